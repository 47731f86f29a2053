"""chrF and chrF++ (sacrebleu's ``CHRF``): character and word n-gram F-scores, counted by the same engine as BLEU.

Text (strings, or subword ids decoded on the device by a :class:`~torch_bleu.Detokenizer`) becomes
hypothesis-reference pairs of rows of code points, end to end in one stream (:mod:`.stream`,
:mod:`.counting`); their character n-grams, and the n-grams of chrF's words (:mod:`.words`), are counted
per pair by the engine's flat-stream algorithm (:mod:`.statistics`); each sentence keeps the
statistics of its best-scoring reference, and a score comes from summed statistics (:mod:`.score`),
in sacrebleu's order of operations.
"""

"""BLEU: clipped n-gram matches of token ids, of words of strings, or of words of decoded subword ids.

:mod:`.config` (the options), :mod:`.counting` (input to per-sentence statistics, by the engine),
:mod:`.statistics` (the rules that complete counts, their packing), :mod:`.score` with
:mod:`.smoothing` and :mod:`.nltk_smoothing` (a score from statistics), :mod:`.functional` and
:mod:`.metric` (the public API), :mod:`.compiled` (``compile=True``), :mod:`.corpus` and
:mod:`.command_line` (whole corpora for the command line).
"""

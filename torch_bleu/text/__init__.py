"""Text for every metric: sacrebleu's tokenizers and their signature names (:mod:`.tokenizers`), a shared
numbering of words (:mod:`.vocabulary`), and text as rows of code points on any device
(:mod:`.code_points`): character classes (:mod:`.classes`), sacrebleu's ``13a``, ``none`` and ``char``
tokenizers (:mod:`.sacrebleu_words`) and exact word ids (:mod:`.word_ids`).
"""

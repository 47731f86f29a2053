"""Text for every metric: sacrebleu's tokenizers and their signature names (:mod:`.tokenizers`), a shared
numbering of words (:mod:`.vocabulary`), and text as code points (:mod:`.code_points`), in rows on any
device or in one stream of lines on the host: character classes (:mod:`.classes`,
:mod:`.unicode_classes`), sacrebleu's ``13a``, ``intl``, ``zh``, ``char`` and ``none`` tokenizers on code
points (:mod:`.sacrebleu_words`), lines of text to numbered words (:mod:`.lines`) and exact word ids
(:mod:`.word_ids`).
"""

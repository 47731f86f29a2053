"""The metrics, each a package of its own over the shared layers, none importing another:

* :mod:`.bleu`: BLEU of ids, strings or subword ids (sacrebleu's and nltk's conventions);
* :mod:`.chrf`: chrF and chrF++ of strings or subword ids.

What they share is here: :mod:`.config` (options declared once, the counting fingerprint),
:mod:`.base` (the ``torchmetrics.Metric`` with exact int64 states) and :mod:`.command_line` (what a
metric gives the ``torch-bleu`` command).
"""

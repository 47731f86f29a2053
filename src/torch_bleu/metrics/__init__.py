"""The metrics, each a package of its own over the shared layers, none importing another:

* :mod:`.bleu`: BLEU of ids, strings or subword ids (sacrebleu's and nltk's conventions);
* :mod:`.chrf`: chrF and chrF++ of strings or subword ids;
* :mod:`.ter`: TER of strings or subword ids (sacrebleu's, its shift search on the host);
* :mod:`.wer`: WER and CER of strings, ids or subword ids (jiwer's counts);
* :mod:`.rouge`: ROUGE-N, ROUGE-L and ROUGE-Lsum of strings, ids or subword ids (rouge-score's);
* :mod:`.cider`: CIDEr-D of captions as strings or ids (pycocoevalcap's), and the self-critical reward.

Each has the same rooms: ``config.py`` (its options), ``counting.py`` (input to each sentence's
statistics, a ``match`` over the kinds of :mod:`torch_bleu.inputs.kinds`), ``score.py``, ``functional.py``
and ``metric.py``; a kernel that has a host and a device form is a pair ``host_<job>.py`` and
``device_<job>.py``.

What they share is here: :mod:`.config` (options declared once, the counting fingerprint),
:mod:`.base` (the ``torchmetrics.Metric`` with exact int64 states), :mod:`.queued_text` (text counted in
bulk), :mod:`.sentences` and :mod:`.paired` (kept sentences, intervals and paired tests) and
:mod:`.command_line` (what a metric gives the ``torch-bleu`` command).
"""

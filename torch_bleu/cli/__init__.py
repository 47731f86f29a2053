"""``torch-bleu``: sacrebleu's BLEU command line, counting on the tensor engine.

Usage is sacrebleu's (``torch-bleu REF [REF ...] -i HYP [HYP ...]``, or hypotheses on standard input),
and so is the output, line for line: a JSON record or a text line for one system, a table for several,
and a table with p-values for ``--paired-bs`` / ``--paired-ar``. The signature names torch-bleu's
version. What differs is underneath: text is tokenized once, words become ids, n-grams are counted
in batches (:mod:`torch_bleu.corpus_statistics`) and the significance tests run as batched array
operations (:mod:`torch_bleu.significance`). The engine counts on a GPU (``--device cuda``, the
default when there is one) or, on NumPy arrays, on the CPU, where PyTorch, whose import alone takes
longer than the whole count, is not imported at all.

The package only parses arguments (:mod:`.arguments`), reads the systems (:mod:`.reading`) and
prints (:mod:`.output`); :mod:`.main` runs these steps; :mod:`torch_bleu.text` reads and tokenizes,
:mod:`torch_bleu.corpus_statistics` counts, :mod:`torch_bleu.significance` resamples, and
:func:`torch_bleu.score.bleu_parts`, the scorer of the metric, scores. Its floats are sacrebleu's bit
for bit, and sacrebleu's own formatting prints them.
"""

from .main import main

__all__ = ["main"]

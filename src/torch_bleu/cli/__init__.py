"""``torch-bleu``: sacrebleu's command line for BLEU, chrF and TER, counting on the tensor engine.

Usage is sacrebleu's (``torch-bleu REF [REF ...] -i HYP [HYP ...]``, or hypotheses on standard input;
``torch-bleu -t wmt17 -l en-de -i HYP`` takes the references of a test set from sacrebleu's local cache),
and so is the output, line for line: a JSON record or a text line for one system, a table for several,
and a table with p-values for ``--paired-bs`` / ``--paired-ar``. The signature names torch-bleu's
version. What differs is underneath: each metric counts every sentence of every system in batches,
and the significance tests run as batched array operations (:mod:`torch_bleu.significance`). The
engine counts on a GPU (``--device cuda``, the default when there is one) or, on NumPy arrays, on
the CPU, where PyTorch, whose import alone takes longer than the whole count, is not imported at all;
TER searches its shifts on the host, with NumPy.

The package knows metrics only through the registry (:mod:`.metrics`) of their command-line classes
(:class:`~torch_bleu.metrics.command_line.CommandLineMetric`). It parses arguments
(:mod:`.arguments`), reads files (:mod:`.files`, :mod:`.reading`) and test sets (:mod:`.test_sets`),
counts in worker processes when asked (:mod:`.jobs`) and prints with sacrebleu's own formatting
(:mod:`.output`); :mod:`.main` runs these steps.
"""

from .main import main

__all__ = ["main"]

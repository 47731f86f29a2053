"""What the command prints: sacrebleu's score lines, JSON records and tables, printed by sacrebleu's own code.

Every number comes from torch-bleu's scorer (:func:`~torch_bleu.score.bleu_parts`, on NumPy arrays,
in sacrebleu's order of operations, so its floats are sacrebleu's); sacrebleu's ``BLEUScore.format``,
``print_single_results`` and ``print_results_table`` lay them out, so that the output is sacrebleu's
to the character. Only the signature is ours: it names torch-bleu's version.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..config import BLEUConfig
from ..score import bleu_parts
from ..significance import paired_approximate_randomization, paired_bootstrap
from ..text import tokenizer_signature
from .arguments import SAMPLE_DEFAULTS, SMOOTH_DEFAULTS
from .run import Run, run_test

if TYPE_CHECKING:
    from sacrebleu.metrics.bleu import BLEUScore


#: Signature fields in sacrebleu's order (``version`` last) with their ``--short`` names.
SIGNATURE_FIELDS = {
    "nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs", "case": "c", "eff": "e", "tok": "tok", "smooth": "s",
    "ngram": "n", "version": "v",
}  # fmt: skip


def corpus_scores(packed: np.ndarray, config: BLEUConfig) -> list[BLEUScore]:
    """sacrebleu's ``BLEUScore`` of each row of summed statistics ``(..., 2 + 2N)``, scored by ``config``."""
    from sacrebleu.metrics.bleu import BLEUScore

    order = config.max_order
    rows = np.asarray(packed, dtype=np.int64).reshape(-1, packed.shape[-1])
    matches, totals = rows[:, 2 : 2 + order], rows[:, 2 + order :]
    parts = bleu_parts(matches, totals, rows[:, 0], rows[:, 1], config, percent=True)
    columns = (parts.score, matches, totals, parts.precisions, parts.brevity_penalty, rows[:, 0], rows[:, 1])
    return [BLEUScore(*values) for values in zip(*(column.tolist() for column in columns))]


def _describe(args: argparse.Namespace, signature: dict[str, str], effective_order: bool = False) -> dict[str, str]:
    """The full signature: ``signature``'s test fields plus the BLEU options, in sacrebleu's order."""
    smooth = args.smooth_method
    if SMOOTH_DEFAULTS[smooth] is not None:
        value = args.smooth_value if args.smooth_value is not None else SMOOTH_DEFAULTS[smooth]
        smooth += f"[{value:.2f}]"
    fields = dict(signature)
    fields.update(
        case="lc" if args.lowercase else "mixed",
        eff="yes" if effective_order else "no",
        tok=tokenizer_signature(args.tokenize),
        smooth=smooth,
    )
    if args.max_ngram_order != 4:
        fields["ngram"] = str(args.max_ngram_order)
    fields["version"] = f"torch-bleu-{__version__}"
    return {name: fields[name] for name in SIGNATURE_FIELDS if name in fields}


def _signature_text(fields: dict[str, str], short: bool) -> str:
    return "|".join(f"{SIGNATURE_FIELDS[name] if short else name}:{value}" for name, value in fields.items())


def _use_colors(args: argparse.Namespace) -> None:
    """Colors on a terminal only, unless ``--no-color`` or ``$NO_COLOR`` say otherwise (as sacrebleu does)."""
    from sacrebleu.utils import Color

    Color.ENABLE_COLORS = not args.no_color and not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def print_sentences(packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    signature_text = _signature_text(_describe(args, signature, effective_order=True), args.short)
    for score in corpus_scores(packed[0], run.config):
        print(score.format(args.width, args.score_only, signature_text))


def print_single(packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    from sacrebleu.utils import print_single_results

    args = run.args
    (score,) = corpus_scores(packed[0].sum(axis=0), run.config)
    if args.confidence and args.confidence_n > 1:
        result = run_test(paired_bootstrap, packed, run, args.confidence_n, "bootstrap")
        assert result.means is not None and result.cis is not None  # a bootstrap gives both
        score._mean, score._ci = result.means[0].item(), result.cis[0].item()
        signature = {**signature, "bs": str(args.confidence_n), "seed": str(run.seed).lower()}
    signature_text = _signature_text(_describe(args, signature), args.short and args.format != "json")
    _use_colors(args)
    print_single_results([score.format(args.width, args.score_only, signature_text, args.format == "json")], args)


def print_systems(names: list[str], packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    from sacrebleu.utils import print_results_table

    args = run.args
    scores = [score.format(args.width, True) for score in corpus_scores(packed.sum(axis=1), run.config)]
    _use_colors(args)
    print_results_table(
        {"System": names, "BLEU": scores}, {"BLEU": _signature_text(_describe(args, signature), args.short)}, args
    )


def print_paired(names: list[str], packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    from sacrebleu.significance import Result
    from sacrebleu.utils import print_results_table

    args = run.args
    kind = "bs" if args.paired_bs else "ar"
    requested = args.paired_bs_n if kind == "bs" else args.paired_ar_n
    n = requested if requested > 0 else SAMPLE_DEFAULTS[kind]
    if kind == "bs":
        result = run_test(paired_bootstrap, packed, run, n, "paired bootstrap")
    else:
        result = run_test(paired_approximate_randomization, packed, run, n, "approximate randomization")

    scores = [score.score for score in corpus_scores(packed.sum(axis=1), run.config)]
    p_values = [None, *result.p_values[1:].tolist()]
    means = result.means.tolist() if result.means is not None else [None] * len(names)
    cis = result.cis.tolist() if result.cis is not None else [None] * len(names)
    results = [Result(*values) for values in zip(scores, p_values, means, cis)]
    fields = _describe(args, {**signature, kind: str(n), "seed": str(run.seed).lower()})
    _use_colors(args)
    shown = argparse.Namespace(**{**vars(args), f"paired_{kind}_n": n})  # the number of samples actually drawn
    print_results_table({"System": list(names), "BLEU": results}, {"BLEU": _signature_text(fields, args.short)}, shown)

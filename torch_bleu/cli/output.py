"""What the command prints: sacrebleu's score lines, JSON records and tables, printed by sacrebleu's own code.

Every number comes from torch-bleu's scorers (:func:`~torch_bleu.score.bleu_parts` on NumPy arrays,
:func:`~torch_bleu.chrf.score.chrf_percent`, both in sacrebleu's order of operations, so their floats
are sacrebleu's); sacrebleu's ``Score.format``, ``print_single_results`` and ``print_results_table``
lay them out, so that the output is sacrebleu's to the character. Only the signature is ours: it
names torch-bleu's version.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from .. import __version__
from ..config import BLEUConfig
from ..score import bleu_parts
from ..significance import Scorer, as_scorer, paired_approximate_randomization, paired_bootstrap
from ..text import tokenizer_signature
from .arguments import SAMPLE_DEFAULTS, SMOOTH_DEFAULTS
from .run import Run, run_test

if TYPE_CHECKING:
    from sacrebleu.metrics.base import Score

    from ..chrf.config import CHRFConfig


#: Signature fields in sacrebleu's order (``version`` last) with their ``--short`` names.
SIGNATURE_FIELDS = {
    "nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs", "case": "c", "eff": "e", "tok": "tok", "smooth": "s",
    "ngram": "n", "nc": "nc", "nw": "nw", "space": "s", "version": "v",
}  # fmt: skip


@dataclass
class Counted:
    """One metric's per-sentence statistics of every system, and how to score and describe them.

    Attributes:
        name: sacrebleu's name of the metric (``BLEU``, ``CHRF``), which also orders the output.
        packed: ``(K, B, F)`` statistics of every sentence of every system.
        scorer: scores (0..100) of summed statistics ``(..., F)``, for the significance tests.
        scores: sacrebleu ``Score`` objects of rows of summed statistics ``(N, F)``.
        options: the metric's own signature fields (after the tests' fields).
    """

    name: str
    packed: np.ndarray
    scorer: Scorer
    scores: Callable[[np.ndarray], list[Score]]
    options: Callable[[bool], dict[str, str]]

    def signature(self, args: argparse.Namespace, tests: dict[str, str], short: bool, effective: bool = False) -> str:
        fields = {**tests, **self.options(effective), "version": f"torch-bleu-{__version__}"}
        ordered = {name: fields[name] for name in SIGNATURE_FIELDS if name in fields}
        return "|".join(f"{SIGNATURE_FIELDS[name] if short else name}:{value}" for name, value in ordered.items())


def corpus_scores(packed: np.ndarray, config: BLEUConfig) -> list[Score]:
    """sacrebleu's ``BLEUScore`` of each row of summed statistics ``(..., 2 + 2N)``, scored by ``config``."""
    from sacrebleu.metrics.bleu import BLEUScore

    order = config.max_order
    rows = np.asarray(packed, dtype=np.int64).reshape(-1, packed.shape[-1])
    matches, totals = rows[:, 2 : 2 + order], rows[:, 2 + order :]
    parts = bleu_parts(matches, totals, rows[:, 0], rows[:, 1], config, percent=True)
    columns = (parts.score, matches, totals, parts.precisions, parts.brevity_penalty, rows[:, 0], rows[:, 1])
    return [BLEUScore(*values) for values in zip(*(column.tolist() for column in columns))]


def counted_bleu(packed: np.ndarray, config: BLEUConfig, args: argparse.Namespace) -> Counted:
    """BLEU's :class:`Counted`: its options as sacrebleu signs them."""

    def options(effective_order: bool) -> dict[str, str]:
        smooth = args.smooth_method
        if SMOOTH_DEFAULTS[smooth] is not None:
            value = args.smooth_value if args.smooth_value is not None else SMOOTH_DEFAULTS[smooth]
            smooth += f"[{value:.2f}]"
        fields = {
            "case": "lc" if args.lowercase else "mixed",
            "eff": "yes" if effective_order else "no",
            "tok": tokenizer_signature(args.tokenize),
            "smooth": smooth,
        }
        if args.max_ngram_order != 4:
            fields["ngram"] = str(args.max_ngram_order)
        return fields

    return Counted("BLEU", packed, as_scorer(config), lambda rows: corpus_scores(rows, config), options)


def counted_chrf(packed: np.ndarray, config: CHRFConfig) -> Counted:
    """chrF's :class:`Counted`: sacrebleu's ``CHRFScore`` objects and signature fields."""
    from ..chrf.corpus import chrf_scorer

    scorer = chrf_scorer(config)

    def scores(rows: np.ndarray) -> list[Score]:
        from sacrebleu.metrics.chrf import CHRFScore

        values = scorer(np.asarray(rows).reshape(-1, rows.shape[-1])).tolist()
        return [CHRFScore(value, config.char_order, config.word_order, int(config.beta)) for value in values]

    def options(effective_order: bool) -> dict[str, str]:
        return {
            "case": "lc" if config.lowercase else "mixed",
            "eff": "no" if config.eps_smoothing else "yes",
            "nc": str(config.char_order),
            "nw": str(config.word_order),
            "space": "yes" if config.whitespace else "no",
        }

    return Counted("CHRF", packed, scorer, scores, options)


def _use_colors(args: argparse.Namespace) -> None:
    """Colors on a terminal only, unless ``--no-color`` or ``$NO_COLOR`` say otherwise (as sacrebleu does)."""
    from sacrebleu.utils import Color

    Color.ENABLE_COLORS = not args.no_color and not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def print_sentences(metric: Counted, run: Run, tests: dict[str, str]) -> None:
    args = run.args
    signature = metric.signature(args, tests, args.short, effective=True)
    for score in metric.scores(metric.packed[0]):
        print(score.format(args.width, args.score_only, signature))


def print_single(metrics: list[Counted], run: Run, tests: dict[str, str]) -> None:
    from sacrebleu.utils import print_single_results

    args = run.args
    lines = []
    for metric in sorted(metrics, key=lambda metric: metric.name):
        (score,) = metric.scores(metric.packed[0].sum(axis=0))
        fields = tests
        if args.confidence and args.confidence_n > 1:
            result = run_test(paired_bootstrap, metric.packed, metric.scorer, run, args.confidence_n, "bootstrap")
            assert result.means is not None and result.cis is not None  # a bootstrap gives both
            score._mean, score._ci = result.means[0].item(), result.cis[0].item()
            fields = {**tests, "bs": str(args.confidence_n), "seed": str(run.seed).lower()}
        signature = metric.signature(args, fields, args.short and args.format != "json")
        lines.append(score.format(args.width, args.score_only, signature, args.format == "json"))
    _use_colors(args)
    print_single_results(lines, args)


def print_systems(names: list[str], metrics: list[Counted], run: Run, tests: dict[str, str]) -> None:
    from sacrebleu.utils import print_results_table

    args = run.args
    columns: dict[str, list[object]] = {"System": list(names)}
    signatures = {}
    for metric in sorted(metrics, key=lambda metric: metric.name):
        scores = metric.scores(metric.packed.sum(axis=1))
        columns[scores[0].name] = [score.format(args.width, True) for score in scores]
        signatures[scores[0].name] = metric.signature(args, tests, args.short)
    _use_colors(args)
    print_results_table(columns, signatures, args)


def print_paired(names: list[str], metrics: list[Counted], run: Run, tests: dict[str, str]) -> None:
    from sacrebleu.significance import Result
    from sacrebleu.utils import print_results_table

    args = run.args
    kind = "bs" if args.paired_bs else "ar"
    requested = args.paired_bs_n if kind == "bs" else args.paired_ar_n
    n = requested if requested > 0 else SAMPLE_DEFAULTS[kind]
    columns: dict[str, list[object]] = {"System": list(names)}
    signatures = {}
    for metric in metrics:  # in the order given, as sacrebleu's paired tests take them
        if kind == "bs":
            result = run_test(
                paired_bootstrap, metric.packed, metric.scorer, run, n, f"{metric.name}: paired bootstrap"
            )
        else:
            result = run_test(
                paired_approximate_randomization,
                metric.packed,
                metric.scorer,
                run,
                n,
                f"{metric.name}: approximate randomization",
            )
        scores = metric.scores(metric.packed.sum(axis=1))
        p_values = [None, *result.p_values[1:].tolist()]
        means = result.means.tolist() if result.means is not None else [None] * len(names)
        cis = result.cis.tolist() if result.cis is not None else [None] * len(names)
        columns[scores[0].name] = [
            Result(score.score, *values) for score, values in zip(scores, zip(p_values, means, cis))
        ]
        signatures[scores[0].name] = metric.signature(
            args, {**tests, kind: str(n), "seed": str(run.seed).lower()}, args.short
        )
    _use_colors(args)
    shown = argparse.Namespace(**{**vars(args), f"paired_{kind}_n": n})  # the number of samples actually drawn
    print_results_table(columns, signatures, shown)

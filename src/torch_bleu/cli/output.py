"""What the command prints: sacrebleu's score lines, JSON records and tables, printed by sacrebleu's own code.

Every number comes from the metrics' scorers, in sacrebleu's order of operations on NumPy arrays, so
their floats are sacrebleu's; sacrebleu's ``Score.format``, ``print_single_results`` and
``print_results_table`` lay them out, so that the output is sacrebleu's to the character. Only the
signature is ours: it names torch-bleu's version.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..metrics.command_line import CommandLineMetric
from ..significance import statistics_bootstrap, statistics_randomization
from ..version import __version__
from .arguments import SAMPLE_DEFAULTS
from .run import Run, run_test

if TYPE_CHECKING:
    from sacrebleu.metrics.base import Score


#: The tests' signature fields, which come first in sacrebleu's order, with their ``--short`` names; the
#: metric's own fields follow, then ``version``.
TEST_FIELDS = {"nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs"}


@dataclass
class Counted:
    """One metric and the statistics it counted of every sentence of every system, ``(K, B, F)``."""

    metric: CommandLineMetric
    packed: np.ndarray

    @property
    def title(self) -> str:
        """sacrebleu's name of the score, which orders the metrics of a table."""
        return self.metric.title

    def scores(self, summed: np.ndarray) -> list[Score]:
        """sacrebleu's ``Score`` of each row of summed statistics."""
        return self.metric.sacrebleu_scores(summed)

    def signature(self, tests: dict[str, str], short: bool) -> str:
        """sacrebleu's signature: the tests' fields, the metric's own, then the version."""
        fields = {**tests, **self.metric.signature(), "version": f"torch-bleu-{__version__}"}
        short_names = {**TEST_FIELDS, **self.metric.signature_fields, "version": "v"}
        ordered = [name for name in short_names if name in fields]
        return "|".join(f"{short_names[name] if short else name}:{fields[name]}" for name in ordered)


def _use_colors(args: argparse.Namespace) -> None:
    """Colors on a terminal only, unless ``--no-color`` or ``$NO_COLOR`` say otherwise (as sacrebleu does)."""
    from sacrebleu.utils import Color

    Color.ENABLE_COLORS = not args.no_color and not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def print_sentences(metric: Counted, run: Run, tests: dict[str, str]) -> None:
    args = run.args
    signature = metric.signature(tests, args.short)
    for score in metric.scores(metric.packed[0]):
        print(score.format(args.width, args.score_only, signature))


def print_single(metrics: list[Counted], run: Run, tests: dict[str, str]) -> None:
    from sacrebleu.utils import print_single_results

    args = run.args
    lines = []
    for metric in sorted(metrics, key=lambda metric: metric.title):
        (score,) = metric.scores(metric.packed[0].sum(axis=0))
        fields = tests
        if args.confidence and args.confidence_n > 1:
            result = run_test(
                statistics_bootstrap,
                metric.packed,
                metric.metric.score,
                run,
                args.confidence_n,
                "bootstrap",
                "resample",
            )
            assert result.means is not None and result.cis is not None  # a bootstrap gives both
            score._mean, score._ci = result.means[0].item(), result.cis[0].item()
            fields = {**tests, "bs": str(args.confidence_n), "seed": str(run.seed).lower()}
        signature = metric.signature(fields, args.short and args.format != "json")
        lines.append(score.format(args.width, args.score_only, signature, args.format == "json"))
    _use_colors(args)
    print_single_results(lines, args)


def print_systems(names: list[str], metrics: list[Counted], run: Run, tests: dict[str, str]) -> None:
    from sacrebleu.utils import print_results_table

    args = run.args
    columns: dict[str, list[object]] = {"System": list(names)}
    signatures = {}
    for metric in sorted(metrics, key=lambda metric: metric.title):
        scores = metric.scores(metric.packed.sum(axis=1))
        columns[scores[0].name] = [score.format(args.width, True) for score in scores]
        signatures[scores[0].name] = metric.signature(tests, args.short)
    _use_colors(args)
    print_results_table(columns, signatures, args)


#: The paired tests by ``--paired-bs`` / ``--paired-ar``, how the progress bar names them and what it counts.
TESTS = {
    "bs": (statistics_bootstrap, "paired bootstrap", "resample"),
    "ar": (statistics_randomization, "approximate randomization", "trial"),
}


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
        test, description, unit = TESTS[kind]
        result = run_test(test, metric.packed, metric.metric.score, run, n, f"{metric.title}: {description}", unit)
        scores = metric.scores(metric.packed.sum(axis=1))
        p_values = [None, *result.p_values[1:].tolist()]
        means = result.means.tolist() if result.means is not None else [None] * len(names)
        cis = result.cis.tolist() if result.cis is not None else [None] * len(names)
        columns[scores[0].name] = [
            Result(score.score, *values) for score, values in zip(scores, zip(p_values, means, cis))
        ]
        signatures[scores[0].name] = metric.signature(
            {**tests, kind: str(n), "seed": str(run.seed).lower()}, args.short
        )
    _use_colors(args)
    shown = argparse.Namespace(**{**vars(args), f"paired_{kind}_n": n})  # the number of samples actually drawn
    print_results_table(columns, signatures, shown)

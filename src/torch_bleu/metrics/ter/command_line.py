"""TER on the command line: sacrebleu's TER options (``--ter-*``), corpora searched on the host, sacrebleu's output."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..command_line import CommandLineMetric, Progress
from .config import TERConfig
from .corpus import corpus_ter_statistics
from .score import ter_fraction
from .statistics import LENGTH_UNIT

if TYPE_CHECKING:
    from sacrebleu.metrics.base import Score


class TERCommand(CommandLineMetric):
    """``-m ter``: sacrebleu's TER, its shift search vectorized over each batch of sentences."""

    name = "ter"
    title = "TER"
    signature_fields: ClassVar[dict[str, str]] = {"case": "c", "tok": "t", "norm": "nr", "punct": "pn", "asian": "as"}
    config_class = TERConfig
    config: TERConfig

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        cls.add_flags(
            parser.add_argument_group("TER options (the defaults are Tercom's)"),
            [
                (("--ter-case-sensitive",), "case_sensitive", "Keep case (by default text is lowercased)."),
                (("--ter-asian-support",), "asian_support", "CJK rules for --ter-normalized and --ter-no-punct."),
                (("--ter-no-punct",), "no_punct", "Remove punctuation."),
                (("--ter-normalized",), "normalized", "Tercom's normalization: entities, punctuation split off."),
            ],
        )

    def count(
        self, systems: Sequence[Any], references: Any, device: str | None, progress: Progress = None
    ) -> np.ndarray:
        return corpus_ter_statistics(systems, references, self.config, progress)

    def score(self, summed: np.ndarray) -> np.ndarray:
        scores: np.ndarray = ter_fraction(np.asarray(summed), percent=True)
        return scores

    def sacrebleu_scores(self, summed: np.ndarray) -> list[Score]:
        from sacrebleu.metrics.ter import TERScore

        rows = np.asarray(summed).reshape(-1, 2)
        scores = self.score(rows).tolist()
        return [TERScore(score, edits, length / LENGTH_UNIT) for score, (edits, length) in zip(scores, rows.tolist())]

    def signature(self) -> dict[str, str]:
        config = self.config
        return {
            "case": "mixed" if config.case_sensitive else "lc",
            "tok": "tercom",
            "norm": "yes" if config.normalized else "no",
            "punct": "no" if config.no_punct else "yes",
            "asian": "yes" if config.asian_support else "no",
        }

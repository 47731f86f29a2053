"""chrF on the command line: sacrebleu's chrF options (``--chrf-*``), corpora counted as text, sacrebleu's output."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..command_line import CommandLineMetric, Progress
from .config import CHRFConfig
from .corpus import corpus_chrf_statistics
from .score import packed_chrf

if TYPE_CHECKING:
    from sacrebleu.metrics.base import Score


class CHRFCommand(CommandLineMetric):
    """``-m chrf``: sacrebleu's chrF and chrF++, counted with NumPy (or on a PyTorch device)."""

    name = "chrf"
    title = "CHRF"
    signature_fields: ClassVar[dict[str, str]] = {"case": "c", "eff": "e", "nc": "nc", "nw": "nw", "space": "s"}
    config_class = CHRFConfig
    config: CHRFConfig

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        chrf = parser.add_argument_group("chrF options")
        for flags, option, default, what in (
            (("--chrf-char-order", "-cc"), "char_order", 6, "Character n-gram order (default: 6)."),
            (("--chrf-word-order", "-cw"), "word_order", 0, "Word n-gram order (default: 0; 2 is chrF++)."),
            (("--chrf-beta",), "beta", 2, "Recall's weight against precision (default: 2)."),
        ):
            cls.add_option(chrf, *flags, option=option, type=int, default=default, help=what)
        cls.add_flags(
            chrf,
            [
                (("--chrf-whitespace",), "whitespace", "Keep whitespace in character n-grams."),
                (("--chrf-lowercase",), "lowercase", "Case-insensitive chrF."),
                (
                    ("--chrf-eps-smoothing",),
                    "eps_smoothing",
                    "Smooth as chrF++.py, nltk and Moses do (not effective order).",
                ),
            ],
        )

    def count(
        self, systems: Sequence[Any], references: Any, device: str | None, progress: Progress = None
    ) -> np.ndarray:
        on_device = None
        if device is not None:
            import torch

            on_device = torch.device(device)
        return corpus_chrf_statistics(systems, references, self.config, on_device, progress)

    def score(self, summed: np.ndarray) -> np.ndarray:
        return packed_chrf(summed, self.config)

    def sacrebleu_scores(self, summed: np.ndarray) -> list[Score]:
        from sacrebleu.metrics.chrf import CHRFScore

        config = self.config
        values = self.score(np.asarray(summed).reshape(-1, summed.shape[-1])).tolist()
        return [CHRFScore(value, config.char_order, config.word_order, int(config.beta)) for value in values]

    def signature(self) -> dict[str, str]:
        config = self.config
        return {
            "case": "lc" if config.lowercase else "mixed",
            "eff": "no" if config.eps_smoothing else "yes",
            "nc": str(config.char_order),
            "nw": str(config.word_order),
            "space": "yes" if config.whitespace else "no",
        }

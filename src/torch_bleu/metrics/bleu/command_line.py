"""BLEU on the command line: sacrebleu's BLEU options, corpora counted as numbered words, sacrebleu's output."""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ...text.lines import tokenized_streams
from ...text.tokenizers import TOKENIZERS, tokenizer_signature
from ...text.vocabulary import TokenStream
from ..command_line import CommandLineMetric, Progress
from .config import DEFAULT_SMOOTH_VALUES, SACREBLEU_SMOOTHING, BLEUConfig
from .corpus import SYSTEMS_PER_BLOCK, corpus_statistics
from .score import bleu_parts, packed_bleu

if TYPE_CHECKING:
    from sacrebleu.metrics.base import Score

#: Lines ending in a tokenized period that make a system look tokenized (sacrebleu's threshold).
TOKENIZED_LINES = 100


class BLEUCommand(CommandLineMetric):
    """``-m bleu``: sacrebleu's BLEU, its text tokenized once and its words numbered for the engine."""

    name = "bleu"
    title = "BLEU"
    #: The engine's clipping reads every row of a sentence once per row, so its cost grows with the
    #: square of the rows: four systems per block count the 16 WMT17 systems fastest.
    systems_per_task = SYSTEMS_PER_BLOCK
    signature_fields: ClassVar[dict[str, str]] = {"case": "c", "eff": "e", "tok": "tok", "smooth": "s", "ngram": "n"}
    config_class = BLEUConfig
    config: BLEUConfig

    def __init__(self, config: BLEUConfig, force: bool = False) -> None:
        super().__init__(config)
        self.force = force

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        bleu = parser.add_argument_group("BLEU options")
        cls.add_option(
            bleu,
            "--smooth-method",
            "-s",
            option="smoothing",
            choices=SACREBLEU_SMOOTHING,
            default="exp",
            help="Smoothing method (default: %(default)s).",
        )
        cls.add_option(
            bleu,
            "--smooth-value",
            "-sv",
            option="smooth_value",
            type=float,
            default=None,
            help="Smoothing value of floor (default 0.1) and add-k (default 1).",
        )
        cls.add_option(
            bleu,
            "--tokenize",
            "-tok",
            option="tokenize",
            choices=TOKENIZERS,
            default=None,
            help="sacrebleu tokenizer (default: zh, ja-mecab or ko-mecab for a target language zh, ja or ko "
            "of -l, else 13a).",
        )
        cls.add_option(
            bleu, "--lowercase", "-lc", option="lowercase", action="store_true", help="Case-insensitive BLEU."
        )
        bleu.add_argument("--force", action="store_true", help="Do not warn about input that looks tokenized.")
        cls.add_option(
            bleu,
            "--max-ngram-order",
            option="max_order",
            type=int,
            default=4,
            help="Highest n-gram order (default: 4).",
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> BLEUCommand:
        tokenize = tokenizer_for(getattr(args, f"{cls.name}:tokenize"), cls.target_language(args))
        # sacrebleu's sentence scores average over the orders each sentence has
        config = cls.config_from(args, effective_order=args.sentence_level, tokenize=tokenize)
        assert isinstance(config, BLEUConfig)  # config_class
        return cls(config, args.force)

    def encode(
        self, systems: list[list[str]], references: list[list[str]], names: Sequence[str] = ()
    ) -> tuple[list[TokenStream], list[TokenStream]]:
        """Every line of every system and reference tokenized as sacrebleu does, the words of each sentence
        numbered alike in all of them."""
        if not self.force:
            _warn_if_tokenized(names, systems)
        assert self.config.tokenize is not None  # the command line scores text
        encoded = tokenized_streams([*systems, *references], self.config.tokenize, self.config.lowercase)
        return encoded[: len(systems)], encoded[len(systems) :]

    def count(
        self, systems: Sequence[Any], references: Any, device: str | None, progress: Progress = None
    ) -> np.ndarray:
        return corpus_statistics(systems, references, self.config.orders, device, progress=progress)

    def score(self, summed: np.ndarray) -> np.ndarray:
        return packed_bleu(summed, self.config)

    def sacrebleu_scores(self, summed: np.ndarray) -> list[Score]:
        from sacrebleu.metrics.bleu import BLEUScore

        order = self.config.orders
        rows = np.asarray(summed, dtype=np.int64).reshape(-1, summed.shape[-1])
        matches, totals = rows[:, 2 : 2 + order], rows[:, 2 + order :]
        parts = bleu_parts(matches, totals, rows[:, 0], rows[:, 1], self.config, percent=True)
        columns = (parts.score, matches, totals, parts.precisions, parts.brevity_penalty, rows[:, 0], rows[:, 1])
        return [BLEUScore(*values) for values in zip(*(column.tolist() for column in columns))]

    def signature(self) -> dict[str, str]:
        config = self.config
        smooth: str = config.smoothing
        if smooth in DEFAULT_SMOOTH_VALUES:  # methods with a constant name it, as sacrebleu does
            smooth += f"[{config.constant:.2f}]"
        assert config.tokenize is not None  # the command line scores text
        fields = {
            "case": "lc" if config.lowercase else "mixed",
            "eff": "yes" if config.effective_order else "no",
            "tok": tokenizer_signature(config.tokenize),
            "smooth": smooth,
        }
        if config.orders != 4:
            fields["ngram"] = str(config.orders)
        return fields


def tokenizer_for(given: str | None, language: str) -> str:
    """BLEU's tokenizer: the one ``-tok`` gives, else sacrebleu's choice for the target ``language`` of
    ``-l`` (``zh``, ``ja-mecab``, ``ko-mecab``; ``13a`` for other languages and without ``-l``). As
    sacrebleu does, warn when the one given is not that choice for Chinese, Japanese or Korean.

    Example:
        >>> tokenizer_for(None, "zh"), tokenizer_for(None, "de"), tokenizer_for("intl", "")
        ('zh', '13a', 'intl')
    """
    from sacrebleu.metrics.bleu import BLEU

    best = BLEU._TOKENIZER_MAP.get(language)
    if given is None:
        return best or BLEU.TOKENIZER_DEFAULT
    if best is not None and given != best:
        print(
            f"torch-bleu: warning: -tok {given} for the target language {language} of -l; sacrebleu's "
            f"tokenizer for it is {best}",
            file=sys.stderr,
        )
    return given


def _warn_if_tokenized(names: Sequence[str], systems: list[list[str]]) -> None:
    for name, system in zip(names, systems):
        if sum(map(str.endswith, system, itertools.repeat(" ."))) >= TOKENIZED_LINES:
            print(
                f"torch-bleu: warning: {name}: 100 or more lines end in a tokenized period (' .'); "
                "BLEU expects detokenized text (--force silences this)",
                file=sys.stderr,
            )

"""What a metric gives the ``torch-bleu`` command line, which knows metrics only through this.

The command line reads the files and the common options, then asks each metric named by ``-m`` for
the rest: its options (an argument group), its statistics of every sentence of every system, a score
of summed statistics (which the significance tests resample), sacrebleu's ``Score`` objects for the
output, and its fields of the signature. A metric's command-line class lives in its own package and
is named once in the registry (:mod:`torch_bleu.cli.metrics`). Nothing here imports PyTorch: on a CPU
the command line counts with NumPy.
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .config import MetricConfig

if TYPE_CHECKING:
    from sacrebleu.metrics.base import Score

#: Called with the number of hypotheses counted since the last call.
Progress = Callable[[int], None] | None


class CommandLineMetric(ABC):
    """One metric on the command line: its options, how it counts corpora, scores and signs them.

    An instance holds the metric's options (it is sent to worker processes with ``--paired-jobs``, so
    it must pickle); the command line builds it with :meth:`from_arguments`.
    """

    #: The metric's options.
    config_class: ClassVar[type[MetricConfig]]

    #: The name ``-m`` takes (``bleu``).
    name: ClassVar[str]
    #: sacrebleu's name of the score (``BLEU``), which also orders the metrics of a table.
    title: ClassVar[str]
    #: How many systems one counting task takes (one worker's share with ``--paired-jobs``).
    systems_per_task: ClassVar[int] = 1
    #: The metric's fields of the signature, in sacrebleu's order, each with its ``--short`` name.
    signature_fields: ClassVar[dict[str, str]] = {}

    @classmethod
    @abstractmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Add the metric's options (sacrebleu's names) to ``parser``, as a group of their own."""

    def __init__(self, config: MetricConfig) -> None:
        self.config = config

    @classmethod
    def add_option(cls, group: argparse._ArgumentGroup, *flags: str, option: str, **settings: Any) -> None:
        """Add a command-line option (sacrebleu's ``flags``) that sets the config's ``option``."""
        if "action" not in settings and "choices" not in settings:  # named in --help as sacrebleu names it
            settings["metavar"] = flags[0].lstrip("-").replace("-", "_").upper()
        group.add_argument(*flags, dest=f"{cls.name}:{option}", **settings)

    @classmethod
    def add_flags(cls, group: argparse._ArgumentGroup, flags: Sequence[tuple[tuple[str, ...], str, str]]) -> None:
        """Add on/off options, each ``(sacrebleu's flags, the config's option, its help)``."""
        for names, option, what in flags:
            cls.add_option(group, *names, option=option, action="store_true", help=what)

    @classmethod
    def config_from(cls, args: argparse.Namespace, **more: Any) -> MetricConfig:
        """The config of the parsed options that :meth:`add_option` added, and of ``more`` (which wins over
        them); a ``ValueError`` or ``TypeError`` says what is wrong with them."""
        prefix = f"{cls.name}:"
        options = {name.removeprefix(prefix): value for name, value in vars(args).items() if name.startswith(prefix)}
        return cls.config_class(**{**options, **more})

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> CommandLineMetric:
        """The metric of the parsed options."""
        return cls(cls.config_from(args))

    @staticmethod
    def target_language(args: argparse.Namespace) -> str:
        """The target language of ``-l/--language-pair`` (``de`` of ``en-de``) as sacrebleu reads it, which
        some metrics' defaults depend on; ``""`` without ``-l``.

        Example:
            >>> CommandLineMetric.target_language(argparse.Namespace(langpair="en-de"))
            'de'
        """
        return str(args.langpair.split("-")[1]) if args.langpair else ""

    def encode(
        self, systems: list[list[str]], references: list[list[str]], names: Sequence[str] = ()
    ) -> tuple[Sequence[Any], Any]:
        """What :meth:`count` takes of each system (named ``names``) and of the references: the lines as
        they are, unless the metric prepares them once for all systems (BLEU numbers their words)."""
        return systems, references

    @abstractmethod
    def count(
        self, systems: Sequence[Any], references: Any, device: str | None, progress: Progress = None
    ) -> np.ndarray:
        """``(K, B, F)`` int64 statistics of every sentence of ``K`` systems, as :meth:`encode` gave them.

        ``device`` is ``None`` to count with NumPy on the host, or a PyTorch device to count on;
        ``progress`` is called with the number of hypotheses counted as the work goes on.
        """

    @abstractmethod
    def score(self, summed: np.ndarray) -> np.ndarray:
        """The score (0..100, float64) of summed statistics ``(..., F)``, by sacrebleu's rules and order of
        operations: the floats are sacrebleu's."""

    @abstractmethod
    def sacrebleu_scores(self, summed: np.ndarray) -> list[Score]:
        """sacrebleu's ``Score`` object of each row of summed statistics ``(N, F)``, which prints it."""

    @abstractmethod
    def signature(self) -> dict[str, str]:
        """The values of :attr:`signature_fields`, as sacrebleu writes them."""

"""What every step of one invocation shares, and the steps that show progress while they work."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..significance import PairedResult, Scorer

#: A paired test of :mod:`torch_bleu.significance`: (packed, scorer, n_samples, seed, progress=...) -> result.
PairedTest = Callable[..., PairedResult]


@dataclass
class Run:
    """What every step of one invocation needs: the options, the seed, whether to show progress."""

    args: argparse.Namespace
    seed: int | None
    show_progress: bool


@contextmanager
def progress_bar(total: int, description: str, enabled: bool, unit: str) -> Iterator[Callable[[int], None]]:
    """A tqdm bar on standard error when ``enabled`` (and tqdm is installed), else a no-op; it counts
    ``total`` of ``unit`` (``"sentence"``, ``"resample"``, ...)."""
    bar = None
    if enabled:
        try:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=description, unit=unit, file=sys.stderr, leave=False)
        except ImportError:
            pass

    def advance(done: int) -> None:
        if bar is not None:
            bar.update(done)

    try:
        yield advance
    finally:
        if bar is not None:
            bar.close()


def run_test(
    test: PairedTest, packed: np.ndarray, scorer: Scorer, run: Run, n: int, description: str, unit: str
) -> PairedResult:
    """Run ``test`` on ``packed`` statistics scored by ``scorer``, with a progress bar counting its ``n`` ``unit``."""
    with progress_bar(n, description, run.show_progress, unit) as advance:
        return test(packed, scorer, n, run.seed, progress=advance)

"""Timing: interleaved rounds, medians, device synchronization."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Callable

import torch


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_interleaved(
    runs: dict[str, Callable[[], object]], repeats: int, device: torch.device
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Wall-clock seconds of each run, ``repeats`` rounds with the runs interleaved; also their results.

    One untimed warm-up call each comes first (imports, allocator, first-call dispatch).
    """
    results = {name: run() for name, run in runs.items()}
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            _synchronize(device)
            start = time.perf_counter()
            run()
            _synchronize(device)
            seconds[name].append(time.perf_counter() - start)
    return seconds, results


def median(values: Sequence[float]) -> float:
    return statistics.median(values)

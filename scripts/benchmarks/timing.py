"""Timing: interleaved rounds, medians, device synchronization, and the same rounds beside busy processes."""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import torch

#: Processes spinning beside torch-bleu's busy rounds (``bench.py --busy N``; 0: no busy rounds). By
#: default as many as the machine has cores: a machine shared with as much other work as it can run.
BUSY_PROCESSES = os.cpu_count() or 1
#: Every busy measurement of this process: its label, and per torch-bleu contender the quiet and the
#: busy medians (seconds).
BUSY_RECORDS: list[dict[str, object]] = []


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """``count`` other processes spinning on the CPU while the block runs: a machine shared with other work."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5)  # let them start
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def time_interleaved(
    runs: dict[str, Callable[[], object]], repeats: int, device: torch.device, label: str = "", busy: bool = True
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Wall-clock seconds of each run, ``repeats`` rounds with the runs interleaved; also their results.

    One untimed warm-up call each comes first (imports, allocator, first-call dispatch), and Python's
    garbage is collected before each timed call (so no run pays for the garbage of the one before).
    Then, unless ``busy`` is off or :data:`BUSY_PROCESSES` is 0, torch-bleu's runs (those named
    ``torch-bleu...`` or ``update``) go through the same rounds again beside that many spinning
    processes; their medians go to :data:`BUSY_RECORDS` under ``label``.
    """
    results = {name: run() for name, run in runs.items()}
    seconds = _rounds(runs, repeats, device)
    ours = {name: run for name, run in runs.items() if name.startswith(("torch-bleu", "update"))}
    if busy and BUSY_PROCESSES and ours:
        with busy_cores(BUSY_PROCESSES):
            beside = _rounds(ours, repeats, device)
        BUSY_RECORDS.append(
            {
                "label": label,
                "contenders": {name: {"quiet": median(seconds[name]), "busy": median(beside[name])} for name in ours},
            }
        )
    return seconds, results


def _rounds(runs: dict[str, Callable[[], object]], repeats: int, device: torch.device) -> dict[str, list[float]]:
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            gc.collect()  # the garbage of the run before is not this run's to collect
            _synchronize(device)
            start = time.perf_counter()
            run()
            _synchronize(device)
            seconds[name].append(time.perf_counter() - start)
    return seconds


def median(values: Sequence[float]) -> float:
    return statistics.median(values)

"""Counting systems in worker processes for the paired tests, as sacrebleu's ``--paired-jobs`` asks.

sacrebleu runs each system's paired test in its own worker when ``--paired-jobs`` is not 1: the
workers count the system's statistics and resample them. Here the resampling is one vectorized step
for all systems, and counting is what takes the time, so the workers count: each takes a group of
systems, and the statistics come back in order. With one job (sacrebleu's default), counting runs
in this process, with a progress bar per batch.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

System = TypeVar("System")
#: Counts the statistics ``(K, B, ...)`` of ``K`` systems, calling ``progress`` with the hypotheses done.
Counter = Callable[..., np.ndarray]


def paired_jobs(requested: int, systems: int) -> int:
    """How many workers ``--paired-jobs requested`` starts for ``systems`` systems (the baseline included),
    by sacrebleu's rule: ``0`` means half the CPUs, at most one per system compared with the baseline.

    Example:
        >>> paired_jobs(3, systems=10), paired_jobs(0, systems=1)
        (3, 1)
    """
    if requested == 0:
        return max(1, min((os.cpu_count() or 1) // 2, systems - 1))
    return requested


def count_systems(
    count: Counter,
    systems: Sequence[System],
    per_job: int,
    jobs: int,
    progress: Callable[[int], None] | None = None,
    sentences: int = 0,
) -> np.ndarray:
    """``count(systems, progress=progress)``, in ``jobs`` worker processes when that is more than one.

    Each worker counts ``per_job`` systems at a time (``count`` must be picklable: a module-level
    function, or a ``functools.partial`` of one); ``progress`` then advances by ``sentences`` per
    system as each group comes back.

    Example:
        >>> count = lambda systems, progress=None: np.stack(systems)
        >>> count_systems(count, [np.ones(2), np.zeros(2)], per_job=1, jobs=1).tolist()
        [[1.0, 1.0], [0.0, 0.0]]
    """
    groups = [systems[first : first + per_job] for first in range(0, len(systems), per_job)]
    if jobs <= 1 or len(groups) <= 1:
        return count(systems, progress=progress)
    parts = []
    with multiprocessing.get_context().Pool(min(jobs, len(groups))) as pool:
        for group, part in zip(groups, pool.imap(count, groups)):
            parts.append(part)
            if progress is not None:
                progress(len(group) * sentences)
    return np.concatenate(parts)

"""The TER score of statistics, in sacrebleu's order of operations; PyTorch tensors and NumPy arrays alike."""

from __future__ import annotations

from ...arrays import ArrayT, array_namespace, as_float64
from .statistics import LENGTH_UNIT


def ter_fraction(statistics: ArrayT, percent: bool = False) -> ArrayT:
    """TER of statistics ``(..., 2)`` (edits, reference length in :data:`~.statistics.LENGTH_UNIT` parts), as
    float64: edits per reference word; 1 for edits against empty references, 0 for nothing at all.
    ``percent`` gives sacrebleu's 0..100 score, with its floats.

    Example:
        >>> import numpy as np
        >>> ter_fraction(np.array([[1, 4 * LENGTH_UNIT], [3, 0], [0, 0]])).tolist()
        [0.25, 1.0, 0.0]
    """
    xp = array_namespace(statistics)
    edits = as_float64(statistics[..., 0])
    length = as_float64(statistics[..., 1]) / LENGTH_UNIT
    rate: ArrayT = edits / xp.where(length > 0, length, 1.0)
    rate = xp.where(length > 0, rate, xp.where(edits > 0, 1.0, 0.0))
    return 100 * rate if percent else rate

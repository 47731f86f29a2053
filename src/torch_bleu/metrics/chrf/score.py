"""The chrF score of statistics, in sacrebleu's order of operations (so that best references agree).

Works on PyTorch tensors and NumPy arrays alike (the command line scores with NumPy only).
"""

from __future__ import annotations

import numpy as np

from ...arrays import ArrayT, array_namespace, as_float64, full_like_shape
from .config import CHRFConfig

#: sacrebleu's stand-in for an undefined precision or recall.
EPSILON = 1e-16


def chrf_percent(statistics: ArrayT, config: CHRFConfig) -> ArrayT:
    """chrF on sacrebleu's 0..100 scale of statistics ``(..., orders, 3)`` (hypothesis, reference, match
    counts per order), over any leading dimensions, as float64.

    Orders are added one after another, as sacrebleu's ``_compute_f_score`` adds them, so the floats
    are its own and a sentence picks the same best reference.

    Example:
        >>> import numpy as np
        >>> stats = np.array([[4, 5, 3], [3, 4, 1]])
        >>> round(float(chrf_percent(stats, CHRFConfig(char_order=2))), 4)
        44.4132
    """
    xp = array_namespace(statistics)
    stats = as_float64(statistics)
    factor = float(config.beta) ** 2
    average_precision, average_recall, smoothed, effective = (
        full_like_shape(stats, stats.shape[:-2], 0.0) for _ in range(4)
    )
    for order in range(stats.shape[-2]):
        hyp, ref, match = stats[..., order, 0], stats[..., order, 1], stats[..., order, 2]
        precision = xp.where(hyp > 0, match / xp.where(hyp > 0, hyp, 1.0), EPSILON)
        recall = xp.where(ref > 0, match / xp.where(ref > 0, ref, 1.0), EPSILON)
        if config.eps_smoothing:
            denominator = factor * precision + recall
            f_score = (1 + factor) * precision * recall / xp.where(denominator > 0, denominator, 1.0)
            smoothed = smoothed + xp.where(denominator > 0, f_score, EPSILON)
        counted = (hyp > 0) & (ref > 0)
        average_precision = xp.where(counted, average_precision + precision, average_precision)
        average_recall = xp.where(counted, average_recall + recall, average_recall)
        effective = effective + counted
    if config.eps_smoothing:
        smoothed_percent: ArrayT = 100 * smoothed / stats.shape[-2]
        return smoothed_percent
    average_precision = xp.where(effective > 0, average_precision / xp.where(effective > 0, effective, 1.0), 0.0)
    average_recall = xp.where(effective > 0, average_recall / xp.where(effective > 0, effective, 1.0), 0.0)
    total = average_precision + average_recall
    score = (1 + factor) * average_precision * average_recall
    score = score / xp.where(total != 0, factor * average_precision + average_recall, 1.0)
    percent: ArrayT = xp.where(total != 0, 100 * score, 0.0)
    return percent


def chrf_from_statistics(statistics: ArrayT, config: CHRFConfig) -> ArrayT:
    """chrF on the 0..1 scale (float64) of statistics ``(..., orders, 3)``."""
    return chrf_percent(statistics, config) / 100


def packed_chrf(packed: np.ndarray, config: CHRFConfig) -> np.ndarray:
    """chrF (0..100, float64) of summed statistics ``(..., 3 * orders)``, as :func:`~.corpus.corpus_chrf_statistics`
    lays them out: the score the significance tests resample, on the command line and in the metric.

    Example:
        >>> packed_chrf(np.array([[2, 2, 2], [2, 2, 1]]), CHRFConfig(char_order=1)).round(4).tolist()
        [100.0, 50.0]
    """
    statistics = np.asarray(packed, dtype=np.float64)
    scores: np.ndarray = chrf_percent(statistics.reshape(*statistics.shape[:-1], config.orders, 3), config)
    return scores

"""The chrF score of statistics, in sacrebleu's order of operations (so that best references agree)."""

from __future__ import annotations

import torch
from torch import Tensor

from .config import CHRFConfig

#: sacrebleu's stand-in for an undefined precision or recall.
EPSILON = 1e-16


def chrf_percent(statistics: Tensor, config: CHRFConfig) -> Tensor:
    """chrF on sacrebleu's 0..100 scale of statistics ``(..., orders, 3)`` (hypothesis, reference, match
    counts per order), over any leading dimensions, as float64.

    Orders are added one after another, as sacrebleu's ``_compute_f_score`` adds them, so the floats
    are its own and a sentence picks the same best reference.

    Example:
        >>> stats = torch.tensor([[4, 5, 3], [3, 4, 1]])
        >>> round(chrf_percent(stats, CHRFConfig(char_order=2)).item(), 4)
        44.4132
    """
    stats = statistics.to(torch.float64)
    factor = float(config.beta) ** 2
    average_precision = torch.zeros(stats.shape[:-2], dtype=torch.float64, device=stats.device)
    average_recall, smoothed = average_precision.clone(), average_precision.clone()
    effective = torch.zeros(stats.shape[:-2], dtype=torch.int64, device=stats.device)
    for order in range(stats.shape[-2]):
        hyp, ref, match = stats[..., order, 0], stats[..., order, 1], stats[..., order, 2]
        precision = torch.where(hyp > 0, match / hyp, EPSILON)
        recall = torch.where(ref > 0, match / ref, EPSILON)
        if config.eps_smoothing:
            denominator = factor * precision + recall
            smoothed = smoothed + torch.where(denominator > 0, (1 + factor) * precision * recall / denominator, EPSILON)
        counted = (hyp > 0) & (ref > 0)
        average_precision = torch.where(counted, average_precision + precision, average_precision)
        average_recall = torch.where(counted, average_recall + recall, average_recall)
        effective += counted
    if config.eps_smoothing:
        return 100 * smoothed / stats.shape[-2]
    average_precision = torch.where(effective > 0, average_precision / effective.clamp(min=1), 0.0)
    average_recall = torch.where(effective > 0, average_recall / effective.clamp(min=1), 0.0)
    total = average_precision + average_recall
    score = (1 + factor) * average_precision * average_recall
    score = score / torch.where(total != 0, factor * average_precision + average_recall, 1.0)
    return torch.where(total != 0, 100 * score, 0.0)


def chrf_from_statistics(statistics: Tensor, config: CHRFConfig) -> Tensor:
    """chrF on the 0..1 scale (float64) of statistics ``(..., orders, 3)``."""
    return chrf_percent(statistics, config) / 100

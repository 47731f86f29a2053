"""Smoothed n-gram precisions, vectorized over any leading batch dimensions.

Each method takes float64 ``matches`` and ``totals`` of shape ``(..., N)`` and returns the precisions
that enter the geometric mean, plus a boolean mask of the orders that take part in it (sacrebleu
stops at the first order without hypothesis n-grams). Loops run over the ``N`` orders, never over
sentences.
"""

from __future__ import annotations

from typing import Callable, Dict, Tuple

import torch
from torch import Tensor

from .config import BLEUConfig

Precisions = Tuple[Tensor, Tensor]


def _active_orders(totals: Tensor) -> Tensor:
    """Orders up to (not including) the first one with no hypothesis n-gram."""
    return (totals > 0).long().cummin(-1).values.bool()


def _ratio(matches: Tensor, totals: Tensor) -> Tensor:
    return matches / totals.clamp_min(torch.finfo(totals.dtype).tiny)


def sacrebleu_precisions(matches: Tensor, totals: Tensor, config: BLEUConfig) -> Precisions:
    """sacrebleu's ``none``, ``floor``, ``add-k`` and ``exp`` rules (``BLEU.compute_bleu``).

    Example:
        >>> cfg = BLEUConfig(smoothing="exp")
        >>> p, active = sacrebleu_precisions(torch.tensor([3.0, 1, 0, 0], dtype=torch.float64),
        ...                                  torch.tensor([4.0, 3, 2, 1], dtype=torch.float64), cfg)
        >>> p.tolist(), active.tolist()
        ([0.75, 0.3333333333333333, 0.25, 0.25], [True, True, True, True])
    """
    if config.smoothing == "add-k":
        bump = torch.zeros_like(matches)
        bump[..., 1:] = config.smooth_value
        matches, totals = matches + bump, totals + bump
    active = _active_orders(totals)
    zero = active & (matches == 0)
    if config.smoothing == "exp":
        # the j-th order without a match gets 1 / (2**j * total), as mteval-v13a does
        fallback = 1.0 / (torch.exp2(zero.cumsum(-1).to(totals.dtype)) * totals.clamp_min(1))
    elif config.smoothing == "floor":
        fallback = config.smooth_value / totals.clamp_min(1)
    else:
        fallback = torch.zeros_like(totals)
    precisions = torch.where(zero, fallback, _ratio(matches, totals))
    return torch.where(active, precisions, 0.0), active


def nltk_method0(matches: Tensor, totals: Tensor, config: BLEUConfig) -> Precisions:
    """nltk's ``method0``: plain precisions; a zero precision makes the score 0.

    (nltk substitutes a tiny float for 0 and returns about 1e-231; the score here is exactly 0.)
    """
    return _ratio(matches, totals), torch.ones_like(totals, dtype=torch.bool)


SMOOTHING_METHODS: Dict[str, Callable[[Tensor, Tensor, BLEUConfig], Precisions]] = {
    "none": sacrebleu_precisions,
    "floor": sacrebleu_precisions,
    "add-k": sacrebleu_precisions,
    "exp": sacrebleu_precisions,
    "method0": nltk_method0,
}


def smoothed_precisions(matches: Tensor, totals: Tensor, config: BLEUConfig) -> Precisions:
    """Dispatch to the smoothing method named by ``config.smoothing``."""
    smoothing = "method0" if config.convention == "nltk" and config.smoothing == "none" else config.smoothing
    return SMOOTHING_METHODS[smoothing](matches, totals, config)

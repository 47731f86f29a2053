"""Smoothed n-gram precisions under sacrebleu's rules, and what nltk's methods share with them,
vectorized over any leading batch dimensions.

Each method takes float64 ``matches`` and ``totals`` of shape ``(..., K)`` (``K`` is
:attr:`BLEUConfig.statistics_order <.config.BLEUConfig.statistics_order>`, at least
``max_order``), the hypothesis lengths ``preds_len`` ``(...)`` and the config. It returns the ``N =
max_order`` precisions that enter the geometric mean and a boolean mask of the orders that take part
in it. An order left out of the mask counts as a factor 1; an order inside it with precision 0 makes
the score 0. Loops run over the ``N`` orders, never over sentences.

sacrebleu's rules work on PyTorch tensors and NumPy arrays alike (:mod:`torch_bleu.arrays`), so the
command line's significance tests score resamples with this very code without importing PyTorch.
nltk's methods (:mod:`.nltk_smoothing`) take tensors.
"""

from __future__ import annotations

import sys

from ...arrays import ArrayT, all_true_like, array_namespace, as_float64
from .config import BLEUConfig

#: The precisions and the orders that take part, both of the statistics' kind.
Precisions = tuple[ArrayT, ArrayT]


def active_orders(totals: ArrayT) -> ArrayT:
    """Orders up to (not including) the first one with no hypothesis n-gram."""
    active: ArrayT = (totals <= 0).cumsum(-1) == 0
    return active


def ratio(matches: ArrayT | float, totals: ArrayT, scale: float = 1.0) -> ArrayT:
    """``scale * matches / totals``, 0 where both are 0."""
    quotient: ArrayT = scale * matches / totals.clip(min=sys.float_info.min)
    return quotient


def all_orders(precisions: ArrayT) -> ArrayT:
    """Every order takes part."""
    return all_true_like(precisions)


def nth_zero(zero: ArrayT) -> ArrayT:
    """For each order without a match, its rank ``j = 1, 2, ...`` among such orders (as a float)."""
    return as_float64(zero.cumsum(-1))


def sacrebleu_precisions(
    matches: ArrayT, totals: ArrayT, preds_len: ArrayT, config: BLEUConfig, scale: float = 1.0
) -> Precisions[ArrayT]:
    """sacrebleu's ``none``, ``floor``, ``add-k`` and ``exp`` rules (``BLEU.compute_bleu``).

    With ``effective_order`` only the orders before the first one without hypothesis n-grams take part
    (all of them when no order has n-grams). Precisions are fractions times ``scale``, computed in
    sacrebleu's order of operations (``scale=100``: its percentages, to the last bit).

    Example:
        >>> import numpy as np, torch
        >>> cfg = BLEUConfig(smoothing="exp")
        >>> p, used = sacrebleu_precisions(torch.tensor([3.0, 1, 0, 0], dtype=torch.float64),
        ...                                torch.tensor([4.0, 3, 2, 1], dtype=torch.float64), torch.tensor(4), cfg)
        >>> p.tolist(), used.tolist()
        ([0.75, 0.3333333333333333, 0.25, 0.25], [True, True, True, True])
        >>> sacrebleu_precisions(np.array([3.0, 1, 0, 0]), np.array([4.0, 3, 2, 1]), np.array(4), cfg)[0].tolist()
        [0.75, 0.3333333333333333, 0.25, 0.25]
    """
    xp = array_namespace(matches)
    if config.smoothing == "add-k":
        bump = xp.zeros_like(matches)
        bump[..., 1:] = config.constant
        matches, totals = matches + bump, totals + bump
    active = active_orders(totals)
    zero = active & (matches == 0)
    if config.smoothing == "exp":
        # the j-th order without a match gets 1 / (2**j * total), as mteval-v13a does
        fallback = scale / (xp.exp2(nth_zero(zero)) * totals.clip(min=1))
    elif config.smoothing == "floor":
        fallback = ratio(config.constant, totals.clip(min=1), scale)
    else:
        fallback = xp.zeros_like(totals)
    precisions = xp.where(zero, fallback, ratio(matches, totals, scale))
    precisions = xp.where(active, precisions, 0.0)
    if config.effective_order:
        # average over orders 1..N' with N' the last order that has n-grams (all N if none has)
        # PyTorch takes NumPy's axis= and keepdims= too, which its type stubs do not say
        return precisions, xp.where(active.any(axis=-1, keepdims=True), active, True)  # type: ignore[call-overload]
    return precisions, all_orders(precisions)

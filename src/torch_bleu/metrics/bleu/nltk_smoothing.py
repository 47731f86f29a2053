"""nltk's smoothing methods (``SmoothingFunction.method0`` ... ``method7``) on PyTorch tensors.

They reproduce ``nltk.translate.bleu_score.SmoothingFunction`` (checked against nltk 3.10) on nltk's
raw per-order numerators and denominators (corpus sums of clipped matches and of ``max(1, #n-grams)``
per sentence), with the interface of :mod:`.smoothing`. ``method0`` does what nltk does
where an order has no match: it puts the smallest normal float, ``sys.float_info.min``, in that
order's place, so the score is a tiny positive number (about 1e-77 with one such order of four)
rather than 0. One difference, for input where nltk gives no number at all:

* ``method6``: nltk asserts that the trigram precision is nonzero (its message says bigram) and
  fails with fewer than 3 orders. Here the interpolation is applied as written instead: the prior of
  order ``n`` is ``p[n-1]**2 / p[n-2]``, or 0 when ``p[n-2]`` is 0. So a sentence with bigram matches
  but no trigram match gets a smoothed, positive trigram precision, a sentence without bigram match
  scores 0, and with ``max_order < 3`` the method smooths nothing (it is ``method0``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import torch
from torch import Tensor

from .config import BLEUConfig
from .smoothing import Precisions, all_orders, nth_zero, ratio


def nltk_method0(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """No smoothing: as in nltk, an order without a match gets ``sys.float_info.min`` (about 2.2e-308).

    Example:
        >>> cfg = BLEUConfig(convention="nltk")
        >>> m, t = torch.tensor([5.0, 3, 1, 0], dtype=torch.float64), torch.tensor([6.0, 5, 4, 3], dtype=torch.float64)
        >>> nltk_method0(m, t, torch.tensor(6), cfg)[0].tolist()
        [0.8333333333333334, 0.6, 0.25, 2.2250738585072014e-308]
    """
    precisions = torch.where(matches == 0, sys.float_info.min, ratio(matches, totals))
    return precisions, all_orders(precisions)


def nltk_method1(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """An order without a match gets ``epsilon / total`` (``smooth_value``, default 0.1).

    As in nltk, an order whose precision is still 0 (``epsilon = 0``) is left out of the mean.

    Example:
        >>> cfg = BLEUConfig(convention="nltk", smoothing="method1")
        >>> m, t = torch.tensor([5.0, 3, 1, 0]), torch.tensor([6.0, 5, 4, 3])
        >>> round(nltk_method1(m, t, torch.tensor(6), cfg)[0][3].item(), 6)
        0.033333
    """
    precisions = torch.where(matches == 0, config.constant / totals.clamp_min(1), ratio(matches, totals))
    return precisions, precisions > 0


def nltk_method2(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """Lin and Och (2004): add 1 to the numerator and the denominator of every order but the first.

    Example:
        >>> cfg = BLEUConfig(max_order=2, convention="nltk", smoothing="method2")
        >>> nltk_method2(torch.tensor([3.0, 0]), torch.tensor([4.0, 3]), torch.tensor(4), cfg)[0].tolist()
        [0.75, 0.25]
    """
    bump = torch.ones_like(matches)
    bump[..., 0] = 0
    precisions = ratio(matches + bump, totals + bump)
    return precisions, all_orders(precisions)


def nltk_method3(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """NIST geometric smoothing: the j-th order without a match gets ``1 / (2**j * total)``.

    Example:
        >>> cfg = BLEUConfig(convention="nltk", smoothing="method3")
        >>> m, t = torch.tensor([3.0, 0, 0, 0]), torch.tensor([3.0, 2, 1, 1])
        >>> nltk_method3(m, t, torch.tensor(3), cfg)[0].tolist()
        [1.0, 0.25, 0.25, 0.125]
    """
    zero = matches == 0
    fallback = 1.0 / (torch.exp2(nth_zero(zero)) * totals.clamp_min(1))
    precisions = torch.where(zero, fallback, ratio(matches, totals))
    return precisions, all_orders(precisions)


def _method4_precisions(matches: Tensor, totals: Tensor, preds_len: Tensor, k: float) -> Tensor:
    """Chen and Cherry's method 4: the j-th order without a match gets ``ln(len) / (2**j * k * total)``.

    ``len`` is the hypothesis length (the corpus's total length for corpus statistics); like nltk,
    nothing is smoothed when it is at most 1.
    """
    hyp_len = preds_len.to(torch.float64).unsqueeze(-1)
    zero = (matches == 0) & (hyp_len > 1)
    fallback = torch.log(hyp_len.clamp_min(1.0)) / (torch.exp2(nth_zero(zero)) * k * totals.clamp_min(1))
    return torch.where(zero, fallback, ratio(matches, totals))


def nltk_method4(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """Chen and Cherry's method 4, with ``k = smooth_value`` (default 5).

    As in nltk, a one-token hypothesis is not smoothed and its orders without a match are left out of
    the mean instead.

    Example:
        >>> cfg = BLEUConfig(convention="nltk", smoothing="method4")
        >>> m, t = torch.tensor([2.0, 1, 0, 0]), torch.tensor([3.0, 2, 1, 1])
        >>> [round(p, 6) for p in nltk_method4(m, t, torch.tensor(3), cfg)[0].tolist()]
        [0.666667, 0.5, 0.109861, 0.054931]
    """
    precisions = _method4_precisions(matches, totals, preds_len, config.constant)
    return precisions, precisions > 0


def _method5_precisions(precisions: Tensor, five_gram_precision: Tensor) -> Tensor:
    """Chen and Cherry's method 5: ``p'[n] = (p'[n-1] + p[n] + p[n+1]) / 3``, starting from ``p'[0] = p[1] + 1``.

    As in nltk, the order after the last one is always the 5-gram precision.
    """
    following = torch.cat([precisions[..., 1:], five_gram_precision.unsqueeze(-1)], dim=-1)
    previous = precisions[..., 0] + 1
    smoothed = []
    for order in range(precisions.shape[-1]):
        previous = (previous + precisions[..., order] + following[..., order]) / 3
        smoothed.append(previous)
    return torch.stack(smoothed, dim=-1)


def _five_gram_precision(matches: Tensor, totals: Tensor) -> Tensor:
    precision: Tensor = ratio(matches[..., 4], totals[..., 4])
    return precision


def nltk_method5(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """Chen and Cherry's method 5: average each precision with its neighbours (needs 5-gram statistics).

    Example:
        >>> cfg = BLEUConfig(max_order=2, convention="nltk", smoothing="method5")
        >>> m, t = torch.tensor([3.0, 1, 0, 0, 0]), torch.tensor([4.0, 3, 2, 1, 1])
        >>> [round(p, 6) for p in nltk_method5(m, t, torch.tensor(4), cfg)[0].tolist()]
        [0.944444, 0.425926]
    """
    plain = ratio(matches, totals)[..., : config.orders]
    precisions = _method5_precisions(plain, _five_gram_precision(matches, totals))
    return precisions, all_orders(precisions)


def nltk_method6(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """Gao and He (2013): from the third order on, interpolate with a prior, ``alpha = smooth_value``.

    ``p'[n] = (m[n] + alpha * prior) / (l[n] + alpha)`` with ``prior = p'[n-1]**2 / p'[n-2]`` (0 when
    ``p'[n-2]`` is 0) and ``l[n]`` the hypothesis's number of n-grams (0 when it is too short). Where nltk
    refuses the sentence (no trigram match), the same formula is applied; see the module docstring.

    Example:
        >>> cfg = BLEUConfig(max_order=3, convention="nltk", smoothing="method6")
        >>> m, t = torch.tensor([4.0, 2, 0]), torch.tensor([4.0, 3, 2])
        >>> [round(p, 6) for p in nltk_method6(m, t, torch.tensor(4), cfg)[0].tolist()]
        [1.0, 0.666667, 0.31746]
    """
    alpha = config.constant
    precisions = list(ratio(matches, totals).unbind(-1))
    hyp_len = preds_len.to(torch.float64)
    for index in range(2, config.orders):
        before_last, last = precisions[index - 2], precisions[index - 1]
        prior = torch.where(before_last == 0, 0.0, last.square() / torch.where(before_last == 0, 1.0, before_last))
        ngram_count = (hyp_len - index).clamp_min(0)
        precisions[index] = (matches[..., index] + alpha * prior) / (ngram_count + alpha)
    stacked = torch.stack(precisions, dim=-1)
    return stacked, all_orders(stacked)


def nltk_method7(matches: Tensor, totals: Tensor, preds_len: Tensor, config: BLEUConfig) -> Precisions[Tensor]:
    """Chen and Cherry's method 7: method 4 (``k = smooth_value``), then method 5 on its output.

    Example: method 4 smooths the bigram precision 0 / 3 to 0.04621; method 5 then averages each order
    with its neighbours (the 5-gram precision 0 after the last order):

        >>> cfg = BLEUConfig(max_order=2, convention="nltk", smoothing="method7")
        >>> matches, totals, length = torch.tensor([3.0, 0, 0, 0, 0]), torch.tensor([4.0, 3, 2, 1, 1]), torch.tensor(4)
        >>> [round(p, 6) for p in _method4_precisions(matches[:2], totals[:2], length, cfg.constant).tolist()]
        [0.75, 0.04621]
        >>> [round(p, 6) for p in nltk_method7(matches, totals, length, cfg)[0].tolist()]
        [0.848737, 0.298315]
    """
    order = config.orders
    smoothed = _method4_precisions(matches[..., :order], totals[..., :order], preds_len, config.constant)
    precisions = _method5_precisions(smoothed, _five_gram_precision(matches, totals))
    return precisions, all_orders(precisions)


#: nltk's methods by name; ``"none"`` under the nltk convention is ``"method0"``.
NLTK_METHODS: dict[str, Callable[[Tensor, Tensor, Tensor, BLEUConfig], Precisions[Tensor]]] = {
    "method0": nltk_method0,
    "method1": nltk_method1,
    "method2": nltk_method2,
    "method3": nltk_method3,
    "method4": nltk_method4,
    "method5": nltk_method5,
    "method6": nltk_method6,
    "method7": nltk_method7,
}

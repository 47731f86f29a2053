"""BLEU from sufficient statistics: brevity penalty times a weighted geometric mean of precisions.

:func:`bleu_from_statistics` is vectorized over leading dimensions, so the same code scores a whole
corpus (0-d statistics), every sentence of a batch ``(B,)``, or thousands of bootstrap resamples. It
takes PyTorch tensors (on any device) or NumPy arrays: the metric, the functional API and the command
line's significance tests all score with it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Generic, NamedTuple

import numpy as np

from ...arrays import Array, ArrayT, array_namespace, as_float64, exp, float64_like, is_tensor, log
from .coco import coco_bleu_by_order
from .config import BLEUConfig
from .smoothing import Precisions, sacrebleu_precisions


def smoothed_precisions(
    matches: ArrayT, totals: ArrayT, preds_len: ArrayT, config: BLEUConfig, scale: float = 1.0
) -> Precisions[ArrayT]:
    """Dispatch to the smoothing method named by ``config.smoothing``; precisions times ``scale``.

    ``matches`` and ``totals`` have shape ``(..., config.statistics_order)``; the result has
    ``config.max_order`` orders.
    """
    if config.convention == "nltk":
        from .nltk_smoothing import NLTK_METHODS  # imports PyTorch: nltk's methods work on tensors

        assert is_tensor(matches)  # NumPy statistics are scored by sacrebleu's rules (bleu_parts says so)
        method = NLTK_METHODS["method0" if config.smoothing == "none" else config.smoothing]
        precisions, used = method(matches, totals, preds_len, config)
        precisions = precisions * scale
    else:
        precisions, used = sacrebleu_precisions(matches, totals, preds_len, config, scale)
    return precisions[..., : config.orders], used[..., : config.orders]


def brevity_penalty(preds_len: ArrayT, target_len: ArrayT) -> ArrayT:
    """``1`` when the hypothesis is at least as long as the reference, else ``exp(1 - r / c)``; 0 when ``c = 0``.

    Example:
        >>> import torch
        >>> round(brevity_penalty(torch.tensor(12.0), torch.tensor(13.0)).item(), 4)
        0.92
    """
    xp = array_namespace(preds_len)
    preds_len, target_len = as_float64(preds_len), as_float64(target_len)
    shortfall = exp(1.0 - target_len / preds_len.clip(min=1.0))
    penalty = xp.where(preds_len > 0, shortfall, 0.0)
    penalties: ArrayT = xp.where(preds_len >= target_len, 1.0, penalty)
    return penalties


if TYPE_CHECKING:  # to type checkers, one kind of array throughout (a NamedTuple is generic from Python 3.11 on)

    class BLEUParts(NamedTuple, Generic[ArrayT]):
        """The parts below, all of the statistics' kind."""

        score: ArrayT
        precisions: ArrayT
        brevity_penalty: ArrayT

else:

    class BLEUParts(NamedTuple):
        """A BLEU score and what it is made of, all float64, with the statistics' leading dimensions.

        Attributes:
            score: ``(...)`` BLEU, in ``[0, 1]`` (or in percent).
            precisions: ``(..., max_order)`` the smoothed precisions that enter the mean (0 for orders
                without hypothesis n-grams, and for every order of a hypothesis without a unigram match,
                whose score is 0 whatever the smoothing), on the score's scale.
            brevity_penalty: ``(...)``.
        """

        score: Array
        precisions: Array
        brevity_penalty: Array


def check_orders(matches: Array, totals: Array, config: BLEUConfig) -> None:
    """Refuse statistics without ``config.statistics_order`` orders (from their shapes).

    Example:
        >>> check_orders(np.zeros(3), np.zeros(3), BLEUConfig())
        Traceback (most recent call last):
        ...
        ValueError: statistics must have 4 orders for max_order=4 and smoothing='none', got 3 and 3
    """
    if matches.shape[-1] != config.statistics_order or totals.shape[-1] != config.statistics_order:
        raise ValueError(
            f"statistics must have {config.statistics_order} orders for max_order={config.max_order} and "
            f"smoothing={config.smoothing!r}, got {matches.shape[-1]} and {totals.shape[-1]}"
        )


def bleu_parts(
    matches: ArrayT, totals: ArrayT, preds_len: ArrayT, target_len: ArrayT, config: BLEUConfig, percent: bool = False
) -> BLEUParts[ArrayT]:
    """BLEU from statistics of shape ``(..., K)``, ``(..., K)``, ``(...)``, ``(...)``, with its precisions and
    brevity penalty.

    ``K`` is ``config.statistics_order``: ``max_order``, or at least 5 for nltk's ``method5`` and
    ``method7``, which read the 5-gram precision (those two, and ``method6``, need the statistics of
    single sentences, as :func:`~torch_bleu.sentence_bleu` gives them). Tensors give float64 tensors
    on their device; NumPy arrays (sacrebleu's convention) float64 arrays. ``percent=True`` scales
    the score and the precisions to 0..100.

    Rules (sacrebleu's and nltk's): no unigram match gives 0; orders with weight 0 are ignored; with
    ``effective_order`` the weights are renormalized over the orders the hypothesis has n-grams for;
    under the nltk convention an order whose smoothed precision is 0 is left out of the mean where
    nltk leaves it out (``method1`` with epsilon 0, ``method4`` on one-token hypotheses).

    Under sacrebleu's convention with equal weights the mean is taken in sacrebleu's own order of
    operations (the sum of the logs over the number of orders), so that on NumPy arrays with
    ``percent=True`` the score is sacrebleu's ``BLEU.compute_bleu`` float, bit for bit.

    Example:
        >>> import torch
        >>> stats = torch.tensor([9, 7, 5, 3]), torch.tensor([10, 8, 6, 4]), torch.tensor(11), torch.tensor(12)
        >>> parts = bleu_parts(*stats, BLEUConfig(), percent=True)
        >>> round(parts.score.item(), 4), parts.precisions.tolist(), round(parts.brevity_penalty.item(), 4)
        (76.4806, [90.0, 87.5, 83.33333333333333, 75.0], 0.9131)
    """
    if config.convention == "coco":
        raise ValueError(
            "convention='coco' has no smoothed precisions to take apart: score with bleu_from_statistics, or "
            "every order at once with bleu_by_order"
        )
    check_orders(matches, totals, config)
    xp = array_namespace(matches)
    if xp is np and config.convention != "sacrebleu":
        raise ValueError("NumPy statistics are scored by sacrebleu's rules; nltk's convention needs tensors")
    matches, totals = as_float64(matches), as_float64(totals)
    precisions, counted = smoothed_precisions(matches, totals, preds_len, config, scale=100.0 if percent else 1.0)
    weights = float64_like(config.order_weights, matches)
    used = counted & (weights > 0)
    # an order that takes part with precision 0 makes the score 0; the others enter the mean by their log
    logs = xp.where(used, log(xp.where(precisions > 0, precisions, 1.0)), 0.0)
    if config.convention == "sacrebleu" and len(set(config.order_weights)) == 1:
        log_mean = logs.sum(-1) / as_float64(used.sum(-1))
    else:
        log_mean = (weights * logs).sum(-1)
        if config.effective_order:
            counted_weight = xp.where(counted, weights, 0.0).sum(axis=-1)
            log_mean = log_mean * (weights.sum() / counted_weight.clip(min=sys.float_info.min))
    penalty = brevity_penalty(preds_len, target_len)
    no_match = matches[..., 0] == 0
    zero = no_match | (used & (precisions == 0)).any(-1)
    precisions = xp.where(no_match[..., None], 0.0, precisions)
    return BLEUParts(xp.where(zero, 0.0, penalty * exp(log_mean)), precisions, penalty)


def bleu_from_statistics(
    matches: ArrayT, totals: ArrayT, preds_len: ArrayT, target_len: ArrayT, config: BLEUConfig
) -> ArrayT:
    """BLEU in ``[0, 1]`` from statistics of shape ``(..., K)``, ``(..., K)``, ``(...)``, ``(...)``.

    The score of :func:`bleu_parts`, which says what ``K`` is and the rules; under ``convention="coco"``,
    pycocoevalcap's BLEU-N (:func:`~.coco.coco_bleu_by_order`).

    Example:
        >>> import torch
        >>> stats = torch.tensor([9, 7, 5, 3]), torch.tensor([10, 8, 6, 4]), torch.tensor(11), torch.tensor(11)
        >>> round(bleu_from_statistics(*stats, BLEUConfig()).item(), 10)
        0.8375922397
        >>> round(float(bleu_from_statistics(*(np.asarray(s) for s in stats), BLEUConfig())), 10)
        0.8375922397
    """
    if config.convention == "coco":
        check_orders(matches, totals, config)
        return coco_bleu_by_order(matches, totals, preds_len, target_len)[..., -1]
    return bleu_parts(matches, totals, preds_len, target_len, config).score


def packed_bleu(packed: np.ndarray, config: BLEUConfig) -> np.ndarray:
    """BLEU (0..100, float64) of summed packed statistics ``(..., 2 + 2N)`` (:func:`~.statistics.pack_statistics`),
    by sacrebleu's rules: the scorer of the metric and the functions, :func:`bleu_parts`.

    The significance tests resample with it, those of the command line and those of the metric's
    kept sentences alike (:meth:`~torch_bleu.metrics.base.CorpusScoreMetric.confidence_interval`).

    Example:
        >>> round(packed_bleu(np.array([11, 11, 9, 7, 5, 3, 10, 8, 6, 4]), BLEUConfig()).item(), 8)
        83.75922397
    """
    if config.convention != "sacrebleu":
        raise ValueError("packed statistics are scored by sacrebleu's convention; use convention='sacrebleu'")
    order = config.orders
    packed = np.asarray(packed, dtype=np.float64)
    matches, totals = packed[..., 2 : 2 + order], packed[..., 2 + order :]
    return bleu_parts(matches, totals, packed[..., 0], packed[..., 1], config, percent=True).score

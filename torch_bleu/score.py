"""BLEU from sufficient statistics: brevity penalty times a weighted geometric mean of precisions.

:func:`bleu_from_statistics` is vectorized over leading dimensions, so the same code scores a whole
corpus (0-d statistics), every sentence of a batch ``(B,)``, or thousands of bootstrap resamples. It
takes PyTorch tensors (on any device) or NumPy arrays: the metric, the functional API and the command
line's significance tests all score with it.
"""

from __future__ import annotations

import sys

import numpy as np

from .arrays import Array, array_namespace, as_float64, float64_like
from .config import BLEUConfig
from .smoothing import smoothed_precisions


def brevity_penalty(preds_len: Array, target_len: Array) -> Array:
    """``1`` when the hypothesis is at least as long as the reference, else ``exp(1 - r / c)``; 0 when ``c = 0``.

    Example:
        >>> import torch
        >>> round(brevity_penalty(torch.tensor(12.0), torch.tensor(13.0)).item(), 4)
        0.92
    """
    xp = array_namespace(preds_len)
    preds_len, target_len = as_float64(preds_len), as_float64(target_len)
    shortfall = xp.exp(1.0 - target_len / preds_len.clip(min=1.0))
    penalty = xp.where(preds_len > 0, shortfall, 0.0)
    return xp.where(preds_len >= target_len, 1.0, penalty)


def bleu_from_statistics(
    matches: Array, totals: Array, preds_len: Array, target_len: Array, config: BLEUConfig
) -> Array:
    """BLEU in ``[0, 1]`` from statistics of shape ``(..., K)``, ``(..., K)``, ``(...)``, ``(...)``.

    ``K`` is ``config.statistics_order``: ``max_order``, or at least 5 for nltk's ``method5`` and
    ``method7``, which read the 5-gram precision (those two, and ``method6``, need the statistics of
    single sentences, as :func:`~torch_bleu.sentence_bleu` gives them). Tensors give a float64 tensor
    on their device; NumPy arrays (sacrebleu's convention) a float64 array.

    Rules (sacrebleu's and nltk's): no unigram match gives 0; orders with weight 0 are ignored; with
    ``effective_order`` the weights are renormalized over the orders the hypothesis has n-grams for;
    under the nltk convention an order whose smoothed precision is 0 is left out of the mean where
    nltk leaves it out (``method1`` with epsilon 0, ``method4`` on one-token hypotheses).

    Example:
        >>> import torch
        >>> stats = torch.tensor([9, 7, 5, 3]), torch.tensor([10, 8, 6, 4]), torch.tensor(11), torch.tensor(11)
        >>> round(bleu_from_statistics(*stats, BLEUConfig()).item(), 10)
        0.8375922397
        >>> round(float(bleu_from_statistics(*(np.asarray(s) for s in stats), BLEUConfig())), 10)
        0.8375922397
    """
    if matches.shape[-1] != config.statistics_order or totals.shape[-1] != config.statistics_order:
        raise ValueError(
            f"statistics must have {config.statistics_order} orders for max_order={config.max_order} and "
            f"smoothing={config.smoothing!r}, got {matches.shape[-1]} and {totals.shape[-1]}"
        )
    xp = array_namespace(matches)
    if xp is np and config.convention != "sacrebleu":
        raise ValueError("NumPy statistics are scored by sacrebleu's rules; nltk's convention needs tensors")
    matches, totals = as_float64(matches), as_float64(totals)
    precisions, counted = smoothed_precisions(matches, totals, preds_len, config)
    weights = float64_like(config.weights, matches)
    used = counted & (weights > 0)
    # an order that takes part with precision 0 makes the score 0; the others enter the mean by their log
    log_mean = xp.where(used, weights * xp.log(xp.where(precisions > 0, precisions, 1.0)), 0.0).sum(axis=-1)
    if config.effective_order:
        counted_weight = xp.where(counted, weights, 0.0).sum(axis=-1)
        log_mean = log_mean * (weights.sum() / counted_weight.clip(min=sys.float_info.min))
    score = brevity_penalty(preds_len, target_len) * xp.exp(log_mean)
    zero = (matches[..., 0] == 0) | (used & (precisions == 0)).any(axis=-1)
    return xp.where(zero, 0.0, score)

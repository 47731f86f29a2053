"""BLEU from sufficient statistics: brevity penalty times a weighted geometric mean of precisions.

:func:`bleu_from_statistics` is vectorized over leading dimensions, so the same code scores a whole
corpus (0-d statistics), every sentence of a batch ``(B,)``, or thousands of bootstrap resamples.
"""

from __future__ import annotations

import torch
from torch import Tensor

from .config import BLEUConfig
from .smoothing import smoothed_precisions


def brevity_penalty(preds_len: Tensor, target_len: Tensor) -> Tensor:
    """``1`` when the hypothesis is at least as long as the reference, else ``exp(1 - r / c)``; 0 when ``c = 0``.

    Example:
        >>> round(brevity_penalty(torch.tensor(12.0), torch.tensor(13.0)).item(), 4)
        0.92
    """
    preds_len, target_len = preds_len.double(), target_len.double()
    shortfall = torch.exp(1.0 - target_len / preds_len.clamp_min(1.0))
    penalty = torch.where(preds_len > 0, shortfall, 0.0)
    return torch.where(preds_len >= target_len, 1.0, penalty)


def bleu_from_statistics(
    matches: Tensor, totals: Tensor, preds_len: Tensor, target_len: Tensor, config: BLEUConfig
) -> Tensor:
    """BLEU in ``[0, 1]`` from statistics of shape ``(..., K)``, ``(..., K)``, ``(...)``, ``(...)``.

    ``K`` is ``config.statistics_order``: ``max_order``, or at least 5 for nltk's ``method5`` and
    ``method7``, which read the 5-gram precision (those two, and ``method6``, need the statistics of
    single sentences, as :func:`~torch_bleu.sentence_bleu` gives them).

    Rules (sacrebleu's and nltk's): no unigram match gives 0; orders with weight 0 are ignored; with
    ``effective_order`` the weights are renormalized over the orders the hypothesis has n-grams for;
    under the nltk convention an order whose smoothed precision is 0 is left out of the mean where
    nltk leaves it out (``method1`` with epsilon 0, ``method4`` on one-token hypotheses).

    Example:
        >>> stats = torch.tensor([9, 7, 5, 3]), torch.tensor([10, 8, 6, 4]), torch.tensor(11), torch.tensor(11)
        >>> round(bleu_from_statistics(*stats, BLEUConfig()).item(), 10)
        0.8375922397
    """
    if matches.shape[-1] != config.statistics_order or totals.shape[-1] != config.statistics_order:
        raise ValueError(
            f"statistics must have {config.statistics_order} orders for max_order={config.max_order} and "
            f"smoothing={config.smoothing!r}, got {matches.shape[-1]} and {totals.shape[-1]}"
        )
    matches, totals = matches.double(), totals.double()
    precisions, counted = smoothed_precisions(matches, totals, preds_len, config)
    weights = torch.tensor(config.weights, dtype=torch.float64, device=matches.device)
    used = counted & (weights > 0)
    log_mean = torch.where(used, weights * torch.log(precisions), 0.0).sum(-1)
    if config.effective_order:
        counted_weight = torch.where(counted, weights, 0.0).sum(-1)
        log_mean = log_mean * (weights.sum() / counted_weight.clamp_min(torch.finfo(torch.float64).tiny))
    score = brevity_penalty(preds_len, target_len) * torch.exp(log_mean)
    no_match = matches[..., 0] == 0
    return torch.where(no_match, 0.0, score)

"""BLEU-1 ... BLEU-N from one count of the statistics: the cumulative score of every order, corpus and per sentence.

BLEU-k takes orders 1..k with equal weights, so its statistics are the first orders of BLEU-N's: one count
serves every k. Under ``convention="coco"`` that is pycocoevalcap's list of BLEU-1..4 (and its second value,
per image), all orders at once (:func:`~.coco.coco_bleu_by_order`); under sacrebleu's and nltk's
conventions, BLEU-k is :func:`~.score.bleu_from_statistics` with ``max_order=k`` on the first orders.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import torch
from torch import Tensor

from ...errors import InputError
from .coco import coco_bleu_by_order
from .config import BLEUConfig, require_corpus_smoothing
from .score import bleu_from_statistics, check_orders
from .statistics import SentenceStatistics


class BLEUByOrder(NamedTuple):
    """Cumulative BLEU of every order 1..N, float64 on the statistics' device, on the 0..1 scale.

    Attributes:
        corpus: ``(N,)`` BLEU-1 ... BLEU-N of the batch as one corpus (statistics summed).
        sentences: ``(B, N)`` BLEU-1 ... BLEU-N of each sentence on its own.
    """

    corpus: Tensor
    sentences: Tensor


def scores_by_order(stats: SentenceStatistics, config: BLEUConfig) -> BLEUByOrder:
    """BLEU-1 ... BLEU-``config.max_order`` of a batch's statistics ``(B, ...)``, corpus and per sentence.

    Example:
        >>> stats = SentenceStatistics(torch.tensor([[2, 1]]), torch.tensor([[2, 1]]), torch.tensor([2]),
        ...                            torch.tensor([3]))
        >>> scores = scores_by_order(stats, BLEUConfig(max_order=2, convention="coco"))
        >>> [round(score, 6) for score in scores.corpus.tolist()]
        [0.606531, 0.606531]
    """
    check_uniform_weights(config)
    require_corpus_smoothing(config)
    corpus = SentenceStatistics(*(statistic.sum(0) for statistic in stats))
    return BLEUByOrder(_by_order(corpus, config), _by_order(stats, config))


def check_uniform_weights(config: BLEUConfig) -> None:
    """Refuse unequal ``weights``: BLEU-k of every k weighs its orders alike.

    Example:
        >>> check_uniform_weights(BLEUConfig(weights=(0.7, 0.3)))
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: BLEU of every order weighs orders 1..k alike: pass max_order=2 instead of weights
    """
    if len(set(config.order_weights)) > 1:
        raise InputError(
            f"BLEU of every order weighs orders 1..k alike: pass max_order={config.orders} instead of weights"
        )


def _by_order(stats: SentenceStatistics, config: BLEUConfig) -> Tensor:
    """``(..., N)`` BLEU-1 ... BLEU-N of statistics ``(...)``."""
    matches, totals, preds_len, target_len = stats
    check_orders(matches, totals, config)
    if config.convention == "coco":
        by_order: Tensor = coco_bleu_by_order(matches, totals, preds_len, target_len)
        return by_order
    scores = []
    for order in range(1, config.orders + 1):  # a few orders, each scored on its first statistics
        first = dataclasses.replace(config, max_order=order, weights=None)
        used = first.statistics_order
        scores.append(bleu_from_statistics(matches[..., :used], totals[..., :used], preds_len, target_len, first))
    return torch.stack(scores, -1)

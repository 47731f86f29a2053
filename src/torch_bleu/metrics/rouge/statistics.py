"""Each pair's ROUGE statistics ``(P, T, 3)`` (hits, prediction count, reference count per type) from
rows of numbered words, and each sentence's of its references.

:func:`pair_statistics` alone chooses where the words are counted: where sizes may follow the data
(the CPU), text after text on the host (:mod:`.host_statistics`); elsewhere in padded rows with sizes
from shapes only (:mod:`.device_statistics`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from ...arrays import sizes_from_data, to_host
from .device_statistics import TextRows, device_pair_statistics
from .host_statistics import host_pair_statistics
from .host_union_lcs import side_words
from .kinds import RougeKind
from .score import rouge_scores


def pair_statistics(texts: TextRows, pred: Tensor, ref: Tensor, kinds: Sequence[RougeKind]) -> Tensor:
    """``(P, T, 3)`` int64 hits, prediction count and reference count of each pair for each of ``kinds``,
    the pairs' prediction and reference the rows ``pred`` and ``ref`` ``(P,)`` of ``texts``: on the host
    where sizes may follow the data, else on the texts' device.

    Example:
        >>> from torch_bleu.metrics.rouge.kinds import LCS, NGrams, UnionLCS
        >>> words = torch.tensor([[3, 1, 2, 0], [1, 2, 3, 5]])
        >>> texts = TextRows(words, torch.zeros_like(words), torch.tensor([3, 4]))
        >>> kinds = (NGrams(1), NGrams(2), LCS(), UnionLCS())
        >>> pair_statistics(texts, torch.tensor([0]), torch.tensor([1]), kinds).tolist()
        [[[3, 3, 4], [1, 2, 3], [2, 3, 4], [2, 3, 4]]]
    """
    if not sizes_from_data(texts.words):
        return device_pair_statistics(texts, pred, ref, kinds)
    lengths = to_host(texts.lengths)  # on the host: the words text after text, never padded
    inside = np.arange(texts.words.shape[1]) < lengths[:, None]
    words, lines = (to_host(values)[inside] for values in (texts.words, texts.lines))
    sides = [side_words(words, lines, lengths, to_host(rows)) for rows in (pred, ref)]
    return torch.from_numpy(host_pair_statistics(sides[0], sides[1], kinds))


def reference_choice(statistics: Tensor, present: Tensor, accumulate: str) -> tuple[Tensor, Tensor]:
    """Each sentence's statistics ``(B, T, 3)`` and scores ``(B, T, 3)`` (precision, recall, F-measure,
    float64) of its references' statistics ``(B, R, T, 3)`` (``present`` ``(B, R)``: which exist).

    ``"best"``: per type, the reference of the highest F-measure, the first of equals (rouge-score's
    ``score_multi``), its statistics and scores. ``"avg"``: the mean over the references of each score,
    and the statistics summed over them.

    Example:
        >>> statistics = torch.tensor([[[[1, 2, 2]], [[2, 2, 2]]]])
        >>> chosen, scores = reference_choice(statistics, torch.tensor([[True, True]]), "best")
        >>> chosen.tolist(), scores.tolist()
        ([[[2, 2, 2]]], [[[1.0, 1.0, 1.0]]])
        >>> reference_choice(statistics, torch.tensor([[True, True]]), "avg")[1].tolist()
        [[[0.75, 0.75, 0.75]]]
    """
    scores = rouge_scores(statistics)
    if statistics.shape[1] == 0:  # an empty batch
        return statistics.sum(1), scores.sum(1)
    if accumulate == "avg":
        weight = present[:, :, None, None]
        summed = torch.where(weight, scores, 0.0).sum(1)
        return (statistics * weight).sum(1), summed / present.sum(1).clamp(min=1)[:, None, None].double()
    fmeasure = torch.where(present[:, :, None], scores[..., 2], -1.0)
    best = fmeasure.argmax(1)  # (B, T): the first of equals
    index = best[:, None, :, None].expand(-1, 1, -1, 3)
    return statistics.gather(1, index)[:, 0], scores.gather(1, index)[:, 0]

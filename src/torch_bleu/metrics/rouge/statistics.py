"""Each pair's ROUGE statistics ``(P, T, 3)`` (hits, prediction count, reference count per type) from
rows of numbered words, and each sentence's of its references.

:func:`pair_statistics` chooses where the words are counted: where sizes may follow the data (the
CPU), text after text by :mod:`.host_statistics`; elsewhere here, in padded rows with sizes from
shapes only, each kind's hits (:mod:`.kinds`) by the accelerator's kernels:

* ``rougeN``: the clipped matches of order ``N`` (the engine's, BLEU's clipped counts with one
  reference).
* ``rougeL``: the LCS of the whole rows (:func:`.lcs.lcs_lengths`).
* ``rougeLsum``: the union LCS of each reference sentence against every prediction sentence
  (:func:`.lcs.union_lcs_marks`), the union words' clipped unigram matches against the prediction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch
from torch import Tensor

from ...arrays import as_tensor, sizes_from_data, to_host
from ...engine import StackedRows, clipped_matches
from .bit_lcs import side_words
from .host_statistics import host_pair_statistics
from .kinds import RougeKind, kind_statistics
from .lcs import lcs_lengths, union_lcs_marks
from .score import rouge_scores

#: The pads of reference and prediction rows, which match nothing (word ids are never negative).
REF_PAD = -1
PRED_PAD = -2


class TextRows(NamedTuple):
    """Texts as rows of word ids (``>= 0``) packed to the front.

    Attributes:
        words: ``(N, L)`` int64 word ids (anything past a row's length).
        lines: ``(N, L)`` the sentence of each word (equal within a sentence, different across a boundary).
        lengths: ``(N,)`` int64, the words of each row.
    """

    words: Tensor
    lines: Tensor
    lengths: Tensor


def pair_statistics(texts: TextRows, pred: Tensor, ref: Tensor, kinds: Sequence[RougeKind]) -> Tensor:
    """``(P, T, 3)`` int64 hits, prediction count and reference count of each pair for each of ``kinds``,
    the pairs' prediction and reference the rows ``pred`` and ``ref`` ``(P,)`` of ``texts``.

    Example:
        >>> from torch_bleu.metrics.rouge.kinds import LCS, NGrams, UnionLCS
        >>> words = torch.tensor([[3, 1, 2, 0], [1, 2, 3, 5]])
        >>> texts = TextRows(words, torch.zeros_like(words), torch.tensor([3, 4]))
        >>> kinds = (NGrams(1), NGrams(2), LCS(), UnionLCS())
        >>> pair_statistics(texts, torch.tensor([0]), torch.tensor([1]), kinds).tolist()
        [[[3, 3, 4], [1, 2, 3], [2, 3, 4], [2, 3, 4]]]
    """
    if sizes_from_data(texts.words):  # on the host: the words text after text, never padded
        lengths = to_host(texts.lengths)
        inside = np.arange(texts.words.shape[1]) < lengths[:, None]
        words, lines = (to_host(values)[inside] for values in (texts.words, texts.lines))
        sides = [side_words(words, lines, lengths, to_host(rows)) for rows in (pred, ref)]
        return torch.from_numpy(host_pair_statistics(sides[0], sides[1], kinds))
    pairs = _PaddedPairs(texts, pred, ref)
    statistics: Tensor = kind_statistics(kinds, pairs, pairs.pred_lengths, pairs.ref_lengths)
    return statistics.long()


class _PaddedPairs:
    """Pairs of texts as padded rows, each side's pads a number that matches nothing: the accelerator's
    :class:`.kinds.HitKernels`."""

    def __init__(self, texts: TextRows, pred: Tensor, ref: Tensor) -> None:
        column = torch.arange(texts.words.shape[1], device=texts.words.device)
        self.pred_lengths, self.ref_lengths = texts.lengths[pred], texts.lengths[ref]
        self.pred_lines, self.ref_lines = texts.lines[pred], texts.lines[ref]
        self.pred_inside = column < self.pred_lengths[:, None]
        self.ref_inside = column < self.ref_lengths[:, None]
        self.pred = torch.where(self.pred_inside, texts.words[pred], PRED_PAD)
        self.ref = torch.where(self.ref_inside, texts.words[ref], REF_PAD)

    def ngram_hits(self, highest: int) -> Tensor:
        """``(P, highest)`` the clipped n-gram matches of orders ``1 .. highest``."""
        return _clipped(self.pred, self.pred_inside, self.ref, self.ref_inside, highest)

    def lcs_hits(self) -> Tensor:
        """``(P,)`` the LCS of each pair's rows."""
        return lcs_lengths(self.ref, self.ref_lengths, self.pred, self.pred_lengths)

    def union_hits(self) -> Tensor:
        """``(P,)`` the union words' clipped unigram matches against the prediction."""
        union = union_lcs_marks(
            self.ref, self.ref_lines, self.ref_lengths, self.pred, self.pred_lines, self.pred_lengths
        )
        return _clipped(self.pred, self.pred_inside, self.ref, union & self.ref_inside, 1)[:, 0]


def _clipped(pred: Tensor, pred_keep: Tensor, ref: Tensor, ref_keep: Tensor, orders: int) -> Tensor:
    """``(P, orders)`` clipped n-gram matches of the kept words of ``pred`` against those of ``ref`` (rows
    of one width)."""
    keep = torch.stack([pred_keep, ref_keep], 1)
    rows = StackedRows(torch.stack([pred, ref], 1), keep, keep.sum(-1))
    matches: Tensor = as_tensor(clipped_matches(rows, orders), pred.device)
    return matches[:, 0]


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

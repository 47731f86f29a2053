"""ROUGE's statistics of pairs of texts on an accelerator: padded rows of words, sizes from shapes only.

Each kind's hits (:mod:`.kinds`):

* ``rougeN``: the clipped matches of order ``N`` (the engine's, BLEU's clipped counts with one
  reference);
* ``rougeL``: the LCS of the whole rows (:func:`.device_lcs.lcs_lengths`);
* ``rougeLsum``: the union LCS of each reference sentence against every prediction sentence
  (:func:`.device_lcs.union_lcs_marks`), the union words' clipped unigram matches against the prediction.

The host's way to the same numbers is :mod:`.host_statistics`; :func:`.statistics.pair_statistics`
chooses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from ...arrays import as_tensor
from ...engine import StackedRows, clipped_matches
from .device_lcs import lcs_lengths, union_lcs_marks
from .kinds import RougeKind, kind_statistics

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


def device_pair_statistics(texts: TextRows, pred: Tensor, ref: Tensor, kinds: Sequence[RougeKind]) -> Tensor:
    """``(P, T, 3)`` int64 hits, prediction count and reference count of each pair for each of ``kinds``,
    the pairs' prediction and reference the rows ``pred`` and ``ref`` ``(P,)`` of ``texts``.

    Example (two sentences each, "a b / c d" against "c d / a b": the union LCS finds both, the LCS one):
        >>> from torch_bleu.metrics.rouge.kinds import LCS, UnionLCS
        >>> words, lines = torch.tensor([[1, 2, 3, 4], [3, 4, 1, 2]]), torch.tensor([[0, 0, 1, 1], [0, 0, 1, 1]])
        >>> texts = TextRows(words, lines, torch.tensor([4, 4]))
        >>> device_pair_statistics(texts, torch.tensor([0]), torch.tensor([1]), (LCS(), UnionLCS())).tolist()
        [[[2, 4, 4], [4, 4, 4]]]
    """
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

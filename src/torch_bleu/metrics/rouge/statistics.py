"""Each pair's ROUGE statistics ``(P, T, 3)`` (hits, prediction count, reference count per type) from
rows of numbered words, and each sentence's of its references.

* ``rougeN``: the clipped matches of order ``N`` (the engine's, BLEU's clipped counts with one
  reference); the counts are the n-grams of each side, ``max(words - N + 1, 0)``.
* ``rougeL``: the LCS of the whole rows (:func:`.lcs.lcs_lengths`); the counts are the words.
* ``rougeLsum``: the union LCS of each reference sentence against every prediction sentence
  (:func:`.lcs.union_lcs_marks`), clipped as rouge-score clips it, by the words of the whole
  summaries: rouge-score takes the union words sentence by sentence and counts one while the word
  is left in both summaries' word counts. Every union word is a reference word of its own, so the
  reference's count never runs out first, and the hits are ``sum over words w of min(union words w,
  prediction words w)``: the clipped unigram matches of the union words against the prediction.
  The counts are the words.

Where sizes may follow the data (the CPU), :mod:`.host_statistics` computes the same numbers its own
way; what follows is the accelerator's, with sizes from shapes only.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from ...arrays import as_tensor, sizes_from_data, to_host
from ...engine import StackedRows, clipped_matches
from .bit_lcs import side_words
from .host_statistics import host_pair_statistics
from .lcs import lcs_lengths, union_lcs_marks
from .score import rouge_scores

#: The pads of reference and prediction rows, which match nothing (word ids are never negative).
REF_PAD = -1
PRED_PAD = -2


class WordPairs(NamedTuple):
    """Pairs of a prediction and a reference as padded rows of word ids (``>= 0``), packed to the front.

    Attributes:
        pred, ref: ``(P, Lp)`` and ``(P, Lr)`` int64 word ids (anything past a row's length).
        pred_lengths, ref_lengths: ``(P,)`` int64, the words of each row.
        pred_sentences, ref_sentences: the sentence of each word (equal within a sentence, different
            across a boundary), shaped like the rows.
    """

    pred: Tensor
    pred_lengths: Tensor
    pred_sentences: Tensor
    ref: Tensor
    ref_lengths: Tensor
    ref_sentences: Tensor


def pair_statistics(pairs: WordPairs, orders: tuple[int, ...]) -> Tensor:
    """``(P, T, 3)`` int64 hits, prediction count and reference count of each pair for each type (``orders``:
    the n-gram order of each type, ``0`` for ``rougeL``, ``-1`` for ``rougeLsum``).

    Example:
        >>> rows = torch.tensor([[3, 1, 2, 0]]), torch.tensor([[1, 2, 3, 5]])
        >>> one = torch.zeros((1, 4), dtype=torch.long)
        >>> pairs = WordPairs(rows[0], torch.tensor([3]), one, rows[1], torch.tensor([4]), one)
        >>> pair_statistics(pairs, (1, 2, 0, -1)).tolist()
        [[[3, 3, 4], [1, 2, 3], [2, 3, 4], [2, 3, 4]]]
    """
    if sizes_from_data(pairs.pred):
        rows = [to_host(rows) for rows in pairs]
        sides = side_words(rows[0], rows[2], rows[1]), side_words(rows[3], rows[5], rows[4])
        host = host_pair_statistics(*sides, orders)
        return torch.from_numpy(host).to(pairs.pred.device)
    pred_column = torch.arange(pairs.pred.shape[1], device=pairs.pred.device)
    ref_column = torch.arange(pairs.ref.shape[1], device=pairs.ref.device)
    pred_inside = pred_column < pairs.pred_lengths[:, None]
    ref_inside = ref_column < pairs.ref_lengths[:, None]
    pred = torch.where(pred_inside, pairs.pred, PRED_PAD)
    ref = torch.where(ref_inside, pairs.ref, REF_PAD)
    highest = max(orders)
    ngram_hits = _clipped(pred, pred_inside, ref, ref_inside, highest) if highest > 0 else None
    columns = []
    for order in orders:
        if order > 0:
            assert ngram_hits is not None
            hits = ngram_hits[:, order - 1]
            counts = [(lengths - order + 1).clamp(min=0) for lengths in (pairs.pred_lengths, pairs.ref_lengths)]
        elif order == 0:
            hits = lcs_lengths(ref, pairs.ref_lengths, pred, pairs.pred_lengths)
            counts = [pairs.pred_lengths, pairs.ref_lengths]
        else:
            union = union_lcs_marks(
                ref, pairs.ref_sentences, pairs.ref_lengths, pred, pairs.pred_sentences, pairs.pred_lengths
            )
            hits = _clipped(pred, pred_inside, ref, union & ref_inside, 1)[:, 0]
            counts = [pairs.pred_lengths, pairs.ref_lengths]
        columns.append(torch.stack([hits.to(pred.device), *counts], -1))
    return torch.stack(columns, 1).long()


def _clipped(pred: Tensor, pred_keep: Tensor, ref: Tensor, ref_keep: Tensor, orders: int) -> Tensor:
    """``(P, orders)`` clipped n-gram matches of the kept words of ``pred`` against those of ``ref``."""
    width = max(pred.shape[1], ref.shape[1])
    tokens, keep = (
        torch.stack([torch.nn.functional.pad(rows, (0, width - rows.shape[1])) for rows in pair], 1)
        for pair in ((pred, ref), (pred_keep, ref_keep))
    )
    rows = StackedRows(tokens, keep, keep.sum(-1))
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

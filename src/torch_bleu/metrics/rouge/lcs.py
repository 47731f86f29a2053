"""Longest common subsequences of many pairs of rows at once, with rouge-score's choice among equal ones.

Rows are padded ``(P, L)`` int64 word ids, the pads of the references and of the predictions two
different negative numbers (so that pads match nothing). The dynamic programme runs one reference
word at a time over every pair and every prediction word together: with ``t`` the LCS table
(``t[i][j]``, the first ``i`` reference words against the first ``j`` prediction words),

    t[i][j] = max over k <= j of (t[i-1][k-1] + 1 if ref[i-1] == pred[k-1] else t[i-1][k])

a running maximum along the row (``t[i-1]`` never grows by more than one per step), so a row costs a
few whole-row operations whatever the data: no host synchronization, sizes from shapes only.

``rougeLsum`` needs more than a length: for each reference sentence, the reference words on the LCS
that rouge-score's backtrack reads out against each prediction sentence (``_backtrack_norec``: a
diagonal step on equal words, else a step along the prediction where ``t[i][j-1] > t[i-1][j]``,
else along the reference). :func:`union_lcs_marks` finds them for every sentence pair of every
pair of summaries at once: one table over whole summaries whose recurrence restarts at every
sentence boundary (each block of it is one sentence pair's table), then, from the last row up, the
cells the backtracks of every block pass through. Within a row, a backtrack enters at some cells
(from the row below, or as a start) and runs along the prediction while each cell says "step left":
so a cell is on a path when the nearest entry at or after it comes before the nearest cell after it
that stops such a run. The step choices are kept as two bits per cell (``P * Lr * Lp`` bytes),
a chunk of pairs at a time.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ...arrays import running_min_from_end

#: Table cells (pairs x reference words x prediction words) of one chunk of :func:`union_lcs_marks`.
CHUNK_CELLS = 2**24


def lcs_lengths(ref: Tensor, pred: Tensor) -> Tensor:
    """``(P,)`` int64 lengths of the longest common subsequences of padded rows ``ref`` ``(P, Lr)`` and
    ``pred`` ``(P, Lp)`` (pads: two different negative numbers).

    Example:
        >>> ref, pred = torch.tensor([[1, 2, 3, 4], [5, 6, -1, -1]]), torch.tensor([[2, 4, 3, -2], [6, 5, 6, 5]])
        >>> lcs_lengths(ref, pred).tolist()
        [2, 2]
    """
    if ref.shape[1] > pred.shape[1]:  # symmetric in its rows: step along the shorter one
        ref, pred = pred, ref
    pairs, width = pred.shape
    row = torch.zeros((pairs, width + 1), dtype=torch.int32, device=pred.device)
    for position in range(ref.shape[1]):
        match = pred == ref[:, position, None]
        candidates = torch.where(match, row[:, :-1] + 1, row[:, 1:])
        row[:, 1:] = candidates.cummax(-1).values
    return row[:, -1].long()


def union_lcs_marks(
    ref: Tensor, ref_sentence: Tensor, ref_length: Tensor, pred: Tensor, pred_sentence: Tensor, pred_length: Tensor
) -> Tensor:
    """``(P, Lr)`` bool: the reference words of rouge-score's union LCS of each reference sentence against
    every prediction sentence (``_union_lcs``), for pairs of summaries in padded rows.

    ``ref_sentence`` and ``pred_sentence`` number the sentence of each word (equal within a sentence,
    different across a boundary); ``ref_length`` and ``pred_length`` ``(P,)`` count the words of each row.

    Example:
        >>> ref, pred = torch.tensor([[1, 2, 3, 1, 2]]), torch.tensor([[2, 1, 2, 3]])
        >>> sentences = torch.tensor([[0, 0, 0, 1, 1]]), torch.tensor([[0, 0, 1, 1]])
        >>> union_lcs_marks(ref, sentences[0], torch.tensor([5]), pred, sentences[1], torch.tensor([4])).long().tolist()
        [[1, 1, 1, 1, 1]]
    """
    pairs, ref_width = ref.shape
    step = max(1, CHUNK_CELLS // max(1, ref_width * pred.shape[1]))
    if pairs <= step:
        return _union_lcs_marks(ref, ref_sentence, ref_length, pred, pred_sentence, pred_length)
    parts = [
        _union_lcs_marks(
            *(values[first : first + step] for values in (ref, ref_sentence, ref_length)),
            *(values[first : first + step] for values in (pred, pred_sentence, pred_length)),
        )
        for first in range(0, pairs, step)
    ]
    return torch.cat(parts)


def _boundaries(sentence: Tensor, length: Tensor) -> tuple[Tensor, Tensor]:
    """Which words of padded rows begin their sentence, and which end it (words within ``length`` only)."""
    column = torch.arange(sentence.shape[1], device=sentence.device)
    inside = column < length[:, None]
    changes = sentence[:, 1:] != sentence[:, :-1]
    edge = torch.ones_like(sentence[:, :1], dtype=torch.bool)
    first = torch.cat([edge, changes], 1)
    last = torch.cat([changes, edge], 1) | (column == length[:, None] - 1)
    return first, last & inside


def _shifted_right(values: Tensor, fill: int | bool) -> Tensor:
    """``values[:, j - 1]`` at column ``j``, ``fill`` at column 0."""
    return torch.nn.functional.pad(values[:, :-1], (1, 0), value=fill)


def _shifted_left(values: Tensor, fill: int | bool) -> Tensor:
    """``values[:, j + 1]`` at column ``j``, ``fill`` at the last column."""
    return torch.nn.functional.pad(values[:, 1:], (0, 1), value=fill)


def _union_lcs_marks(
    ref: Tensor, ref_sentence: Tensor, ref_length: Tensor, pred: Tensor, pred_sentence: Tensor, pred_length: Tensor
) -> Tensor:
    pairs, ref_width = ref.shape
    pred_width = pred.shape[1]
    ref_first, ref_last = _boundaries(ref_sentence, ref_length)
    pred_first, pred_last = _boundaries(pred_sentence, pred_length)
    # each prediction sentence's running maximum starts above every earlier one's values
    lift = pred_first.long().cumsum(-1) * (ref_width + 1)
    matches = torch.empty((ref_width, pairs, pred_width), dtype=torch.bool, device=ref.device)
    lefts = torch.empty_like(matches)
    above = torch.zeros((pairs, pred_width), dtype=torch.long, device=ref.device)
    for i in range(ref_width):
        above = torch.where(ref_first[:, i, None], 0, above)  # t[i-1][j] within the block
        diagonal = torch.where(pred_first, 0, _shifted_right(above, 0))  # t[i-1][j-1]
        match = pred == ref[:, i, None]
        row = (torch.where(match, diagonal + 1, above) + lift).cummax(-1).values - lift
        before = torch.where(pred_first, 0, _shifted_right(row, 0))  # t[i][j-1]
        matches[i] = match
        lefts[i] = ~match & (before > above)
        above = row

    column = torch.arange(pred_width, device=ref.device)
    beyond = torch.full_like(column, pred_width)
    marks = torch.empty((pairs, ref_width), dtype=torch.bool, device=ref.device)
    entering = torch.zeros((pairs, pred_width), dtype=torch.bool, device=ref.device)
    for i in reversed(range(ref_width)):
        entries = entering | (ref_last[:, i, None] & pred_last)
        stops = ~lefts[i] | pred_first  # a run along the prediction ends at these cells
        next_entry = running_min_from_end(torch.where(entries, column, beyond))
        next_stop = _shifted_left(running_min_from_end(torch.where(stops, column, beyond)), pred_width)
        on_path = next_entry < next_stop
        diagonal = on_path & matches[i]
        marks[:, i] = diagonal.any(-1)
        up = on_path & ~matches[i] & ~lefts[i]
        entering = (up | _shifted_left(diagonal & ~pred_first, False)) & ~ref_first[:, i, None]
    return marks

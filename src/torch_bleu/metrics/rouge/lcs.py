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

from ...arrays import sizes_from_data

#: Table cells (pairs x reference words x prediction words) of one chunk of :func:`union_lcs_marks`.
CHUNK_CELLS = 2**24
#: On the host, pairs are taken in groups of this many of similar reference lengths, each group's rows
#: cut to its longest: long rows then cost only their own group's steps.
GROUP = 128


def lcs_lengths(ref: Tensor, ref_length: Tensor, pred: Tensor, pred_length: Tensor) -> Tensor:
    """``(P,)`` int64 lengths of the longest common subsequences of padded rows ``ref`` ``(P, Lr)`` and
    ``pred`` ``(P, Lp)`` of ``ref_length`` and ``pred_length`` ``(P,)`` words (pads: two different
    negative numbers).

    Example:
        >>> ref, pred = torch.tensor([[1, 2, 3, 4], [5, 6, -1, -1]]), torch.tensor([[2, 4, 3, -2], [6, 5, 6, 5]])
        >>> lcs_lengths(ref, torch.tensor([4, 2]), pred, torch.tensor([3, 4])).tolist()
        [2, 2]
    """
    if sizes_from_data(ref) and ref.shape[0] > GROUP:
        lengths = torch.zeros(ref.shape[0], dtype=torch.long)
        for rows, (ref_rows, pred_rows) in _groups(ref_length, pred_length, (ref,), (pred,)):
            lengths[rows] = _lcs_lengths(ref_rows, pred_rows)
        return lengths
    return _lcs_lengths(ref, pred)


def _lcs_lengths(ref: Tensor, pred: Tensor) -> Tensor:
    if ref.shape[1] > pred.shape[1]:  # symmetric in its rows: step along the shorter one
        ref, pred = pred, ref
    pairs, width = pred.shape
    row = torch.zeros((pairs, width + 1), dtype=torch.int32, device=pred.device)
    for position in range(ref.shape[1]):
        match = pred == ref[:, position, None]
        candidates = torch.where(match, row[:, :-1] + 1, row[:, 1:])
        row[:, 1:] = candidates.cummax(-1).values
    return row[:, -1].long()


def _groups(
    ref_length: Tensor, pred_length: Tensor, ref_rows: tuple[Tensor, ...], pred_rows: tuple[Tensor, ...]
) -> list[tuple[Tensor, tuple[Tensor, ...]]]:
    """The pairs in groups of :data:`GROUP` by reference length: each group's pairs, then its rows (and
    lengths) cut to the group's longest reference and prediction."""
    order = torch.argsort(ref_length, stable=True)
    groups = []
    for first in range(0, order.shape[0], GROUP):
        rows = order[first : first + GROUP]
        ref_width, pred_width = int(ref_length[rows].max()), int(pred_length[rows].max())
        cut = [values[rows, :ref_width] for values in ref_rows] + [values[rows, :pred_width] for values in pred_rows]
        groups.append((rows, tuple(cut)))
    return groups


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
    if sizes_from_data(ref) and pairs > GROUP:
        marks = torch.zeros((pairs, ref_width), dtype=torch.bool)
        for rows, (ref_rows, ref_sentences, pred_rows, pred_sentences) in _groups(
            ref_length, pred_length, (ref, ref_sentence), (pred, pred_sentence)
        ):
            found = _union_lcs_marks(
                ref_rows, ref_sentences, ref_length[rows], pred_rows, pred_sentences, pred_length[rows]
            )
            marks[rows, : found.shape[1]] = found
        return marks
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


def _union_lcs_marks(
    ref: Tensor, ref_sentence: Tensor, ref_length: Tensor, pred: Tensor, pred_sentence: Tensor, pred_length: Tensor
) -> Tensor:
    pairs, ref_width = ref.shape
    pred_width = pred.shape[1]
    device = ref.device
    ref_first, ref_last = _boundaries(ref_sentence, ref_length)
    pred_first, pred_last = _boundaries(pred_sentence, pred_length)
    pred_inner = (~pred_first).int()
    # each prediction sentence's running maximum starts above every earlier one's values
    lift = pred_first.int().cumsum(-1, dtype=torch.int32) * (ref_width + 1)
    ref_inner = (~ref_first).int().t()[:, :, None]  # (Lr, P, 1): 0 where a reference sentence begins
    # table[i + 1] = t[i + 1][1:] of each pair's blocks; table[0] = 0
    table = torch.zeros((ref_width + 1, pairs, pred_width), dtype=torch.int32, device=device)
    matches = pred[None] == ref.t()[:, :, None]  # (Lr, P, Lp)
    for i in range(ref_width):
        above = table[i] * ref_inner[i]  # t[i-1][j] within the block
        diagonal = torch.nn.functional.pad(above[:, :-1], (1, 0)) * pred_inner  # t[i-1][j-1]
        row = torch.where(matches[i], diagonal + 1, above) + lift
        torch.cummax(row, -1, out=(table[i + 1], torch.empty_like(row, dtype=torch.long)))
        table[i + 1] -= lift
    above = table[:-1] * ref_inner
    before = torch.nn.functional.pad(table[1:, :, :-1], (1, 0)) * pred_inner  # t[i][j-1]
    lefts = ~matches & (before > above)
    ups = ~matches & ~lefts
    stops = lefts.logical_not_() | pred_first  # a run along the prediction ends at these cells

    # from here on the prediction runs backwards: column c is word Lp - 1 - c
    matches, ups, stops = matches.flip(-1), ups.flip(-1), stops.flip(-1)
    first_reversed, last_reversed = pred_first.flip(-1), pred_last.flip(-1)
    column = torch.arange(pred_width, device=device, dtype=torch.int32)
    # the nearest stop after each word (in the prediction's order), as a reversed column; -1: none
    last_stop = torch.nn.functional.pad(torch.where(stops, column, -1).cummax(-1).values[..., :-1], (1, 0), value=-1)
    marks = torch.empty((ref_width, pairs), dtype=torch.bool, device=device)
    entering = torch.zeros((pairs, pred_width), dtype=torch.bool, device=device)
    for i in reversed(range(ref_width)):
        entries = entering | (ref_last[:, i, None] & last_reversed)
        on_path = torch.where(entries, column, -1).cummax(-1).values > last_stop[i]
        diagonal = on_path & matches[i]
        marks[i] = diagonal.any(-1)
        from_diagonal = torch.nn.functional.pad((diagonal & ~first_reversed)[:, :-1], (1, 0))
        entering = ((on_path & ups[i]) | from_diagonal) & ref_inner[i].bool()
    return marks.t()

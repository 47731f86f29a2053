"""Longest common subsequences of many pairs of rows at once, with rouge-score's choice among equal ones.

This is the accelerator's way (the host's: rapidfuzz's LCS, and :mod:`.host_union_lcs` for the union).
Rows are padded ``(P, L)`` word ids (``>= 0``), the pads of the references and of the predictions two
different negative numbers (so that pads match nothing), worked on transposed, one column per pair. The
dynamic programme runs one reference word at a time over every pair and every prediction word
together: with ``t`` the LCS table (``t[i][j]``, the first ``i`` reference words against the first
``j`` prediction words),

    t[i][j] = max over k <= j of (t[i-1][k-1] + 1 if ref[i-1] == pred[k-1] else t[i-1][k])

a running maximum along the prediction (``t[i-1]`` never grows by more than one per step), so a
reference word costs a few whole-array operations whatever the data: no host synchronization, sizes
from shapes only.

``rougeLsum`` needs more than a length: for each reference sentence, the reference words on the LCS
that rouge-score's backtrack reads out against each prediction sentence (``_backtrack_norec``: a
diagonal step on equal words, else a step along the prediction where ``t[i][j-1] > t[i-1][j]``,
else along the reference). :func:`union_lcs_marks` finds them for every sentence pair of every
pair of summaries at once: one table over whole summaries whose recurrence restarts at every
sentence boundary (each block of it is one sentence pair's table), then, from the last reference
word up, the cells the backtracks of every block pass through. Within a row, a backtrack enters at
some cells (from the row below, or as a start) and runs along the prediction while each cell says
"step left": so a cell is on a path when the nearest entry at or after it comes before the nearest
cell after it that stops such a run. The table takes ``4 * Lr * Lp`` bytes per pair (and three bits
per cell), so pairs are taken :data:`CHUNK_CELLS` cells at a time.

Where Triton's kernels run (:func:`~torch_bleu.kernels.triton_runs`: CUDA tensors where Triton is
installed, or every tensor but ``meta`` ones with ``TORCH_BLEU_KERNELS=triton``), :func:`lcs_lengths` and
:func:`union_lcs_marks` hand their pairs to :mod:`.triton_lcs` instead: the same numbers, each pair's
dynamic programme inside one Triton program and a launch per chunk of pairs rather than whole-batch
operations per reference word, the union's table one bit per cell (plus 8 bytes per prediction word).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from ...arrays import (
    ArrayT,
    arange_like,
    array_namespace,
    as_tensor,
    cast,
    full_like_shape,
    is_tensor,
    running_max,
)
from ...kernels import triton_runs

#: Table cells (reference words x prediction words x pairs) of one chunk of :func:`union_lcs_marks`.
CHUNK_CELLS = 2**24
#: Pairs of one chunk of :func:`lcs_lengths` (whose memory is one row per pair).
CHUNK_PAIRS = 2**16


def lcs_lengths(ref: Tensor, ref_length: Tensor, pred: Tensor, pred_length: Tensor) -> Tensor:
    """``(P,)`` int64 lengths of the longest common subsequences of padded rows ``ref`` ``(P, Lr)`` and
    ``pred`` ``(P, Lp)`` of ``ref_length`` and ``pred_length`` ``(P,)`` words (pads: two different
    negative numbers).

    Example:
        >>> ref, pred = torch.tensor([[1, 2, 3, 4], [5, 6, -1, -1]]), torch.tensor([[2, 4, 3, -2], [6, 5, 6, 5]])
        >>> lcs_lengths(ref, torch.tensor([4, 2]), pred, torch.tensor([3, 4])).tolist()
        [2, 2]
    """
    if _on_triton(ref.device):
        from .triton_lcs import triton_lcs_lengths

        return triton_lcs_lengths(ref, ref_length, pred, pred_length)
    lengths = torch.zeros(ref.shape[0], dtype=torch.long, device=ref.device)
    for rows, (ref_columns, pred_columns) in _column_groups(ref_length, pred_length, (ref,), (pred,), CHUNK_PAIRS):
        lengths[rows] = as_tensor(_lcs_lengths(ref_columns, pred_columns), ref.device).long()
    return lengths


def union_lcs_marks(
    ref: Tensor, ref_sentence: Tensor, ref_length: Tensor, pred: Tensor, pred_sentence: Tensor, pred_length: Tensor
) -> Tensor:
    """``(P, Lr)`` bool: the reference words of rouge-score's union LCS of each reference sentence against
    every prediction sentence (``_union_lcs``), for pairs of summaries in padded rows ``ref`` ``(P, Lr)``
    and ``pred`` ``(P, Lp)`` (pads: two different negative numbers).

    ``ref_sentence`` and ``pred_sentence`` number the sentence of each word (``>= 0``: equal within a
    sentence, different across a boundary); ``ref_length`` and ``pred_length`` ``(P,)`` count the words.

    Example:
        >>> ref, pred = torch.tensor([[1, 2, 3, 1, 2]]), torch.tensor([[2, 1, 2, 3]])
        >>> sentences = torch.tensor([[0, 0, 0, 1, 1]]), torch.tensor([[0, 0, 1, 1]])
        >>> union_lcs_marks(ref, sentences[0], torch.tensor([5]), pred, sentences[1], torch.tensor([4])).long().tolist()
        [[1, 1, 1, 1, 1]]
    """
    if _on_triton(ref.device):
        from .triton_lcs import triton_union_lcs_marks

        return triton_union_lcs_marks(ref, ref_sentence, ref_length, pred, pred_sentence, pred_length)
    pairs, ref_width = ref.shape
    ref_sentence = torch.where(ref >= 0, ref_sentence, -1)  # the pads: a sentence of their own
    pred_sentence = torch.where(pred >= 0, pred_sentence, -1)
    step = max(1, CHUNK_CELLS // max(1, ref_width * pred.shape[1]))
    marks = torch.zeros((pairs, ref_width), dtype=torch.bool, device=ref.device)
    groups = _column_groups(ref_length, pred_length, (ref, ref_sentence), (pred, pred_sentence), step)
    for rows, (ref_columns, ref_sentences, pred_columns, pred_sentences) in groups:
        found = as_tensor(_union_lcs_marks(ref_columns, ref_sentences, pred_columns, pred_sentences), ref.device)
        marks[rows, : found.shape[0]] = found.t()
    return marks


def _on_triton(device: torch.device) -> bool:
    """Whether Triton's kernels (:mod:`.triton_lcs`) count tensors on ``device``
    (:func:`~torch_bleu.kernels.triton_runs`): never on ``meta``, where nothing runs."""
    return device.type != "meta" and triton_runs(device)


def _column_groups(
    ref_length: Tensor, pred_length: Tensor, ref_rows: tuple[Tensor, ...], pred_rows: tuple[Tensor, ...], most: int
) -> list[tuple[slice, list[Tensor]]]:
    """The pairs in consecutive chunks of ``most`` (from shapes alone), each chunk's rows transposed to
    ``(L, pairs)`` columns."""
    return [
        (slice(first, first + most), [rows[first : first + most].t().contiguous() for rows in (*ref_rows, *pred_rows)])
        for first in range(0, ref_length.shape[0], most)
    ]


def _lcs_lengths(ref: ArrayT, pred: ArrayT) -> ArrayT:
    """The LCS lengths of the columns of ``ref`` ``(Lr, P)`` and ``pred`` ``(Lp, P)``."""
    xp = array_namespace(ref)
    if ref.shape[0] > pred.shape[0]:  # symmetric in its rows: step along the shorter one
        ref, pred = pred, ref
    row = full_like_shape(pred, (pred.shape[0] + 1, pred.shape[1]), 0, xp.int32)
    for position in range(ref.shape[0]):
        match = pred == ref[position]
        row[1:] = running_max(xp.where(match, row[:-1] + 1, row[1:]), axis=0)
    return row[-1]  # type: ignore[no-any-return]  # NumPy types what indexing reads as Any


def _boundaries(sentence: ArrayT, valid: ArrayT) -> tuple[ArrayT, ArrayT]:
    """Which words (``(L, P)``) begin their sentence, and which valid ones end it."""
    xp = array_namespace(sentence)
    changes = sentence[1:] != sentence[:-1]
    edge = full_like_shape(sentence, (1, sentence.shape[1]), True, xp.bool)
    first = xp.concatenate([edge, changes], 0)
    last = xp.concatenate([changes, edge], 0)
    return first, last & valid


def _shifted_down(values: ArrayT, fill: Any) -> ArrayT:
    """``values[j - 1]`` at row ``j`` (along the first axis), ``fill`` in row 0."""
    out = full_like_shape(values, values.shape, fill)
    out[1:] = values[:-1]
    return out


def _reversed(values: ArrayT, axis: int) -> ArrayT:
    return values.flip(axis) if is_tensor(values) else np.flip(values, axis)


def _union_lcs_marks(ref: ArrayT, ref_sentence: ArrayT, pred: ArrayT, pred_sentence: ArrayT) -> ArrayT:
    xp = array_namespace(ref)
    ref_width, pairs = ref.shape
    pred_width = pred.shape[0]
    ref_first, ref_last = _boundaries(ref_sentence, ref >= 0)
    pred_first, pred_last = _boundaries(pred_sentence, pred >= 0)
    pred_inner, ref_inner = cast(~pred_first, xp.int32), cast(~ref_first, xp.int32)
    # each prediction sentence's running maximum starts above every earlier one's values
    lift = cast(pred_first.cumsum(0) * (ref_width + 1), xp.int32)
    # table[i + 1] = t[i + 1][1:] within each pair's blocks; table[0] = 0
    table = full_like_shape(pred, (ref_width + 1, pred_width, pairs), 0, xp.int32)
    matches = pred[None] == ref[:, None]  # (Lr, Lp, P)
    for i in range(ref_width):
        above = table[i] * ref_inner[i]  # t[i-1][j] within the block
        diagonal = _shifted_down(above, 0) * pred_inner  # t[i-1][j-1]
        table[i + 1] = running_max(xp.where(matches[i], diagonal + 1, above) + lift, axis=0) - lift
    above = table[:-1] * ref_inner[:, None]
    before = full_like_shape(table, (ref_width, pred_width, pairs), 0)
    before[:, 1:] = table[1:, :-1] * pred_inner[1:]  # t[i][j-1]
    lefts = ~matches & (before > above)
    ups = ~matches & ~lefts
    stops = ~lefts | pred_first  # a run along the prediction ends at these cells

    # from here on the prediction runs backwards: row c is word Lp - 1 - c
    matches, ups, stops = (_reversed(values, 1) for values in (matches, ups, stops))
    first_reversed, last_reversed = _reversed(pred_first, 0), _reversed(pred_last, 0)
    row = cast(arange_like(pred_width, pred), xp.int32)[:, None]
    # the nearest stop after each word (in the prediction's order), as a reversed row; -1: none
    last_stop = running_max(xp.where(stops, row, -1), axis=1)
    last_stop = xp.concatenate([full_like_shape(last_stop, (ref_width, 1, pairs), -1), last_stop[:, :-1]], 1)
    marks = full_like_shape(ref, (ref_width, pairs), False, xp.bool)
    entering = full_like_shape(ref, (pred_width, pairs), False, xp.bool)
    continuing = ~first_reversed
    for i in reversed(range(ref_width)):
        entries = entering | (ref_last[i] & last_reversed)
        on_path = running_max(xp.where(entries, row, -1), axis=0) > last_stop[i]
        diagonal = on_path & matches[i]
        marks[i] = diagonal.any(0)
        entering = ((on_path & ups[i]) | _shifted_down(diagonal & continuing, False)) & ~ref_first[i]
    return marks

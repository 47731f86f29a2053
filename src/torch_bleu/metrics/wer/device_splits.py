"""Long rows cut in two as rapidfuzz cuts them (Hirschberg's divide and conquer), on a device.

rapidfuzz aligns a pair in one matrix only while the matrix is small. Once the common prefix and
suffix are set aside, with ``n`` reference and ``m`` hypothesis tokens left and ``d`` their edit
distance, it cuts the pair in two when ``min(n, 2 d + 1) * m >= 2**22`` (a band of ``2 d + 1`` diagonals
of 64-bit words, a quarter of a mebibyte's worth at least), ``n >= 65`` and ``m >= 10``: the hypothesis
at its middle ``h = m // 2``, the reference after the smallest ``k`` that minimizes
``D(ref[:k], hyp[:h]) + D(ref[k:], hyp[h:])``, which is then ``d``. Each half is aligned by the same rule
(and may be cut again), and their alignments joined. Among alignments of equal cost, the halves'
choices are not always the whole matrix's, so the hits, substitutions, deletions and insertions of
long rows depend on the cuts (the distance does not).

Here the cuts are made level by level, for all the pairs of a batch at once: a level aligns pieces of
the rows, two per piece of the level above, each a span of its sentence's reference (as wide as the
whole row) and of its hypothesis (half as wide as the level above's). From the forward matrix of each
piece come its column ``h`` and, when the piece is not cut, its counts (:func:`.device_alignment.middle_counts`);
from the matrix of the piece read backwards, the distances of the suffixes. How many levels there are
follows from the rows' widths only (none below ``2**22`` cells), so sizes never wait for the data.
Each level's pieces are aligned by PyTorch's operations or, where it runs, by Triton's kernel
(:mod:`.triton_alignment`), which gives the counts and the column at ``h`` without storing a matrix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import torch
from torch import Tensor

from ...kernels import triton_runs
from .device_alignment import Middles, _changes, distances, middle_counts, middles

#: rapidfuzz cuts a pair when ``min(n, 2 d + 1) * m`` reaches this (``2 * band * m / 8 >= 1024 * 1024``) ...
CUT_CELLS = 1 << 22
#: ... and the reference has at least this many tokens left ...
CUT_REFERENCE = 65
#: ... and the hypothesis at least this many.
CUT_HYPOTHESIS = 10


def levels(ref_width: int, hyp_width: int) -> int:
    """How many times rows of these widths may be cut: at most as often as a piece's hypothesis, halved
    each time, can still be cut.

    Example:
        >>> levels(2048, 2048), levels(2047, 2048), levels(4096, 4096), levels(100, 100)
        (1, 0, 3, 0)
    """
    cuts = 0
    while ref_width >= CUT_REFERENCE and _piece_width(hyp_width, cuts) >= CUT_HYPOTHESIS:
        if ref_width * _piece_width(hyp_width, cuts) < CUT_CELLS:
            break
        cuts += 1
    return cuts


def error_counts(hyp: Tensor, hyp_lengths: Tensor, ref: Tensor, ref_lengths: Tensor) -> Tensor:
    """``(B, 4)`` int64 hits, substitutions, deletions and insertions of each hypothesis row ``(B, Lh)``
    (its first ``hyp_lengths`` tokens) against its reference row ``(B, Lr)`` (its first ``ref_lengths``),
    as jiwer counts them (rapidfuzz's alignment): each pair cut into pieces where rapidfuzz cuts it, and
    each piece aligned on its own (:func:`.device_alignment.middle_counts`).

    Example:
        >>> rows = torch.tensor([[1, 2, 0], [5, 6, 7]])
        >>> error_counts(rows[:1], torch.tensor([2]), torch.tensor([[0, 1, 9]]), torch.tensor([2])).tolist()
        [[0, 2, 0, 0]]
        >>> error_counts(rows, torch.tensor([2, 3]), torch.tensor([[1, 2], [5, 7]]), torch.tensor([2, 2])).tolist()
        [[2, 0, 0, 0], [2, 0, 0, 1]]
    """
    hyp_lengths, ref_lengths = hyp_lengths.long(), ref_lengths.long()
    batch, ref_width, hyp_width = hyp.shape[0], ref.shape[1], hyp.shape[1]
    cuts = levels(ref_width, hyp_width)
    zeros = torch.zeros_like(hyp_lengths)
    ref_start, hyp_start = zeros, zeros
    counts = torch.zeros((batch, 4), dtype=torch.int64, device=hyp.device)
    for level in range(cuts + 1):
        sentence = torch.arange(batch << level, device=hyp.device) >> level
        pieces = middles(
            _span(hyp, sentence, hyp_start, _piece_width(hyp_width, level)),
            hyp_lengths,
            _span(ref, sentence, ref_start, ref_width),
            ref_lengths,
        )
        alignment = _alignment(hyp.device, _piece_width(hyp_width, level))
        if level == cuts:
            piece_counts = alignment.counts(pieces)
        else:
            half = pieces.hyp_left // 2
            piece_counts, forward = alignment.counts_and_column(pieces, half)
            backward = alignment.column(pieces.reversed(), pieces.hyp_left - half)
            cut, (ref_start, ref_lengths), (hyp_start, hyp_lengths) = _cut(
                pieces, forward, backward, ref_start, hyp_start
            )
            kept = torch.stack([pieces.prefix + pieces.suffix, *3 * [torch.zeros_like(pieces.prefix)]], 1)
            piece_counts = torch.where(cut[:, None], kept, piece_counts)
        counts += piece_counts.reshape(batch, 1 << level, 4).sum(1)
    return counts


class _Alignment(NamedTuple):
    """How a level's pieces are aligned: their counts (:func:`.device_alignment.middle_counts`); their
    counts and one column of their distances, ``G[k][at_column]`` for each piece's own rows ``k = 0 ..
    ref_left`` (``(N, Lr + 1)`` int64, anything past them); that column alone."""

    counts: Callable[[Middles], Tensor]
    counts_and_column: Callable[[Middles, Tensor], tuple[Tensor, Tensor]]
    column: Callable[[Middles, Tensor], Tensor]


def _alignment(device: torch.device, hyp_width: int) -> _Alignment:
    """Triton's kernel (:mod:`.triton_alignment`) for pieces of hypotheses ``hyp_width`` wide on ``device``
    where it runs (:func:`torch_bleu.kernels.triton_runs`; never on the ``meta`` device) and takes them,
    else PyTorch's operations (:mod:`.device_alignment`)."""
    if device.type == "meta" or not triton_runs(device):
        return TORCH_ALIGNMENT
    from . import triton_alignment as kernel  # imports Triton: only now, after TRITON_INTERPRET is set

    if not kernel.takes(hyp_width):
        return TORCH_ALIGNMENT
    return _Alignment(
        kernel.kernel_middle_counts,
        kernel.kernel_counts_and_column,
        lambda pieces, at_column: kernel.kernel_counts_and_column(pieces, at_column)[1],
    )


def _torch_counts_and_column(pieces: Middles, at_column: Tensor) -> tuple[Tensor, Tensor]:
    grid = distances(_changes(pieces.ref, pieces.hyp), pieces.ref_left)
    return middle_counts(pieces, grid), _own_rows(grid, pieces, at_column)


def _torch_column(pieces: Middles, at_column: Tensor) -> Tensor:
    return _own_rows(distances(_changes(pieces.ref, pieces.hyp), pieces.ref_left), pieces, at_column)


def _own_rows(grid: Tensor, pieces: Middles, at_column: Tensor) -> Tensor:
    """``(N, Lr + 1)``: column ``at_column`` of :func:`.device_alignment.distances`' ``grid`` in each piece's
    own rows (its matrix's last ``ref_left + 1``), then repeats of its last row."""
    ref_width = pieces.ref.shape[0]
    above = (ref_width - pieces.ref_left)[:, None]  # the rows of each matrix above its piece's
    rows = (above + torch.arange(ref_width + 1, device=grid.device)).clip(max=ref_width)
    at_column = grid.gather(1, at_column[None, None, :].expand(ref_width + 1, 1, -1))[:, 0]  # (Lr + 1, N)
    return at_column.T.gather(1, rows).long()


#: PyTorch's operations, one reference token at a time for the whole batch.
TORCH_ALIGNMENT = _Alignment(middle_counts, _torch_counts_and_column, _torch_column)


def _piece_width(width: int, level: int) -> int:
    """The width of a hypothesis row's pieces after ``level`` cuts: ``ceil(width / 2**level)``."""
    return -(-width // (1 << level))


def _span(rows: Tensor, sentence: Tensor, start: Tensor, width: int) -> Tensor:
    """``(N, width)``: the tokens of row ``sentence[n]`` of ``rows`` ``(B, L)`` from ``start[n]`` on (any
    token past the row's end)."""
    if not rows.shape[1]:
        return rows.new_zeros((sentence.shape[0], width))
    columns = (start[:, None] + torch.arange(width, device=rows.device)).clip(max=rows.shape[1] - 1)
    return rows.reshape(-1).take(sentence[:, None] * rows.shape[1] + columns)


def _cut(
    pieces: Middles, forward: Tensor, backward: Tensor, ref_start: Tensor, hyp_start: Tensor
) -> tuple[Tensor, tuple[Tensor, Tensor], tuple[Tensor, Tensor]]:
    """Which pieces rapidfuzz cuts, and the starts and lengths of their halves ``(2 N,)`` (each piece's
    two halves side by side; empty where it is not cut), in the reference, then in the hypothesis.

    ``forward``: the pieces' distances ``D - k - j`` (:func:`.device_alignment.distances`) to column
    ``hyp_left // 2`` from each row ``k`` of their own, ``(N, Lr + 1)``; ``backward``: those of the pieces
    read backwards to the rest of the hypothesis.
    """
    ref_width = pieces.ref.shape[0]
    half = pieces.hyp_left // 2
    rows = torch.arange(ref_width + 1, device=forward.device)[None, :]  # k, the reference tokens before the cut
    inside = rows <= pieces.ref_left[:, None]
    suffix_rows = pieces.ref_left[:, None] - rows
    forward = forward + rows + half[:, None]
    backward = backward.gather(1, suffix_rows.clip(min=0)) + suffix_rows + (pieces.hyp_left - half)[:, None]
    total = torch.where(inside, forward + backward, torch.iinfo(torch.int64).max)
    after = total.argmin(1)  # the first of the smallest
    distance = total.gather(1, after[:, None])[:, 0]
    band = torch.minimum(pieces.ref_left, 2 * distance + 1)
    cut = (band * pieces.hyp_left >= CUT_CELLS) & (pieces.ref_left >= CUT_REFERENCE)
    cut &= pieces.hyp_left >= CUT_HYPOTHESIS
    ref_from, hyp_from = ref_start + pieces.prefix, hyp_start + pieces.prefix
    halves = (
        (ref_from, after, ref_from + after, pieces.ref_left - after),
        (hyp_from, half, hyp_from + half, pieces.hyp_left - half),
    )
    ref, hyp = (
        (
            torch.stack([first, second], 1).reshape(-1),
            (torch.stack([first_length, second_length], 1) * cut[:, None]).reshape(-1),
        )
        for first, first_length, second, second_length in halves
    )
    return cut, ref, hyp

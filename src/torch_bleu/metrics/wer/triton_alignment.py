"""The alignments of :mod:`.device_alignment` as one Triton kernel: each pair's dynamic programme inside one
program, the counts out, no host sync.

Imported only when a kernel is about to run (:func:`torch_bleu.kernels.triton_runs`). Triton reads
``TRITON_INTERPRET`` when ``@triton.jit`` decorates, its own functions' as it is first imported: CPU
tensors run in the interpreter only where it was set before then (:func:`interpreted`).

A program takes ``PAIRS`` pairs of :class:`.device_alignment.Middles`, a tile of ``PAIRS`` rows of
``BLOCK`` lanes (``BLOCK``: a power of two past the hypothesis width; lane ``j`` is column ``j`` of the
matrix), and loops over the reference tokens, one matrix row per step (as many steps as its longest
pair has tokens; a pair whose tokens are done keeps its row). Each step:

1. row ``i`` of ``G = D - i - j`` (:func:`.device_alignment.distances`) from row ``i - 1``: the best of a
   deletion and a diagonal step (the row above, shifted one lane through a scratch row in global
   memory), then a running minimum along the row (``tl.associative_scan``) for the insertions;
2. where the walk back leaves the row from each cell (:func:`.device_alignment.row_exits`: the next
   row's column and the kind of move, a running maximum along the row);
3. rather than walking back afterwards, the hits and substitutions of the walk back from each cell of
   row ``i`` follow from those of the cell of row ``i - 1`` it exits to (a gather from the scratch
   rows): the walk from the pair's last cell ``(n, m)`` is the alignment's.

The scratch rows come twice, for rows of even and of odd ``i``, so that one barrier a step
(``tl.debug_barrier``) orders every store before the loads that read it and after the loads of what
it overwrites. Deletions and insertions follow from the lengths. Where the cut search asks
(:mod:`.device_splits`), the program also writes ``G`` at one column of every row.

Memory: no matrix is stored, nothing per cell. Per pair, the scratch is six int32 rows of ``BLOCK``
lanes (``24 * BLOCK`` bytes, whatever the reference's width; pairs are launched in chunks that keep it
under :data:`SCRATCH_BYTES`, sizes from shapes only), 8 bytes of counts and, where the cut search asks,
4 bytes per reference token; the :class:`.device_alignment.Middles` themselves (int64 copies of the
rows) come from PyTorch's operations. PyTorch's operations need about 17 bytes per cell at their peak
(:mod:`.device_alignment`).
"""

from __future__ import annotations

import contextlib

import torch
import triton
import triton.language as tl
from torch import Tensor

from ...kernels import check_runs_on
from .device_alignment import DELETION, HIT, SUBSTITUTION, Middles

#: The most scratch memory one launch takes: pairs are launched in chunks that stay under it.
SCRATCH_BYTES = 1 << 26
#: The most lanes a program's tile holds (pairs times lanes per pair).
TILE_LANES = 1024
#: The widest hypothesis the kernel takes (its lanes per pair, less one); wider pieces go to PyTorch's operations.
MOST_LANES = 1 << 14
#: Scratch rows per pair, twice (rows of even and odd ``i``): a row of ``G``, and the hits and substitutions of
#: walks from its cells.
SCRATCH_ROWS = 6


@triton.jit
def _minimum(left, right):  # type: ignore[no-untyped-def]
    return tl.minimum(left, right)


@triton.jit
def _maximum(left, right):  # type: ignore[no-untyped-def]
    return tl.maximum(left, right)


@triton.jit  # type: ignore[untyped-decorator]
def _alignment_kernel(  # type: ignore[no-untyped-def]
    ref_ptr,
    ref_row_stride,
    ref_pair_stride,
    hyp_ptr,
    hyp_row_stride,
    hyp_pair_stride,
    ref_left_ptr,
    hyp_left_ptr,
    scratch_ptr,
    out_ptr,
    at_column_ptr,
    column_out_ptr,
    batch,
    ref_width,
    WITH_COLUMN: tl.constexpr,
    PAIRS: tl.constexpr,
    BLOCK: tl.constexpr,
    DELETION: tl.constexpr,
    HIT: tl.constexpr,
    SUBSTITUTION: tl.constexpr,
):
    pairs = tl.program_id(0) * PAIRS + tl.arange(0, PAIRS)
    present = pairs < batch
    wide_pairs = pairs.to(tl.int64)  # for offsets into whole rows, which may pass 2**31 elements
    column = tl.arange(0, BLOCK)[None, :]
    ref_left = tl.load(ref_left_ptr + pairs, mask=present, other=0)
    hyp_left = tl.load(hyp_left_ptr + pairs, mask=present, other=0)
    # lane j holds hypothesis token j - 1 (lane 0: none)
    hyp_lanes = present[:, None] & (column >= 1) & (column <= hyp_left[:, None])
    hyp_tokens = tl.load(
        hyp_ptr + (column - 1) * hyp_row_stride + wide_pairs[:, None] * hyp_pair_stride, mask=hyp_lanes, other=0
    )
    # the pair's scratch: for rows of even i, then of odd i, a row of G, then hits, then substitutions
    row_scratch = scratch_ptr + pairs[:, None] * (6 * BLOCK)
    left_lane = column >= 1

    above = tl.zeros((PAIRS, BLOCK), dtype=tl.int32)  # row 0 of G
    hits = tl.zeros((PAIRS, BLOCK), dtype=tl.int32)  # of the walk back from each cell of the row above
    substitutions = tl.zeros((PAIRS, BLOCK), dtype=tl.int32)
    tl.store(row_scratch + column, above, mask=present[:, None])
    if WITH_COLUMN:
        at_column = column == tl.load(at_column_ptr + pairs, mask=present, other=0)[:, None]
        column_out = column_out_ptr + wide_pairs * (ref_width + 1)  # row 0's entry: 0, as the wrapper left it
    tl.debug_barrier()
    for i in range(1, tl.max(ref_left, axis=0) + 1):
        active = present & (i <= ref_left)
        # the pair's reference token i, in the last ref_left rows of the middles
        token = tl.load(
            ref_ptr + (ref_width - ref_left + i - 1) * ref_row_stride + wide_pairs * ref_pair_stride, mask=active
        )
        changed = (hyp_tokens != token[:, None]).to(tl.int32)
        row_above = row_scratch + ((i - 1) % 2) * (3 * BLOCK)
        this_row = row_scratch + (i % 2) * (3 * BLOCK)
        diagonal = tl.load(row_above + column - 1, mask=present[:, None] & left_lane, other=0)  # G[i - 1][j - 1]
        best = tl.where(left_lane, tl.minimum(above, diagonal + changed - 2), 0)
        row = tl.associative_scan(best, 1, _minimum)  # G[i][j]
        row = tl.where(active[:, None], row, above)
        if WITH_COLUMN:
            tl.store(column_out + i, tl.sum(tl.where(at_column, row, 0), axis=1), mask=active)

        # one barrier a row: what is stored here was last read before the previous row's barrier
        tl.store(this_row + column, row, mask=present[:, None])
        tl.store(row_above + BLOCK + column, hits, mask=present[:, None])
        tl.store(row_above + 2 * BLOCK + column, substitutions, mask=present[:, None])
        tl.debug_barrier()
        left = tl.load(this_row + column - 1, mask=present[:, None] & left_lane, other=0)  # G[i][j - 1]

        # where the walk back leaves the row: a deletion to column j, an insertion (the cell to the
        # left), or a diagonal step to column j - 1; the last exit to the left of each cell, by a running maximum
        deleted = above == row
        leaves = deleted | (column < 2) | (diagonal - left != 2)
        kind = tl.where(deleted, DELETION, tl.where(changed != 0, SUBSTITUTION, HIT))
        exits = tl.where(leaves, 4 * tl.where(deleted, column, column - 1) + kind, 0)
        exits = tl.associative_scan(exits, 1, _maximum)
        to_column = exits >> 2
        kind = exits & 3
        hits_then = tl.load(row_above + BLOCK + to_column, mask=present[:, None], other=0)
        substitutions_then = tl.load(row_above + 2 * BLOCK + to_column, mask=present[:, None], other=0)
        hits = tl.where(active[:, None], hits_then + (kind == HIT).to(tl.int32), hits)
        substitutions = tl.where(
            active[:, None], substitutions_then + (kind == SUBSTITUTION).to(tl.int32), substitutions
        )
        above = row

    at_end = column == hyp_left[:, None]
    tl.store(out_ptr + 2 * pairs, tl.sum(tl.where(at_end, hits, 0), axis=1), mask=present)
    tl.store(out_ptr + 2 * pairs + 1, tl.sum(tl.where(at_end, substitutions, 0), axis=1), mask=present)


def lanes_for(hyp_width: int) -> int:
    """The lanes per pair for hypotheses of ``hyp_width`` tokens: a power of two past it (16 at least).

    Example:
        >>> lanes_for(0), lanes_for(15), lanes_for(16), lanes_for(1000)
        (16, 16, 32, 1024)
    """
    return 1 << max(4, hyp_width.bit_length())


def takes(hyp_width: int) -> bool:
    """Whether the kernel takes hypotheses this wide (else PyTorch's operations align them).

    Example:
        >>> takes(1000), takes(100_000)
        (True, False)
    """
    return lanes_for(hyp_width) <= MOST_LANES


def kernel_middle_counts(middle: Middles) -> Tensor:
    """``(B, 4)`` int64 counts of each pair whose :class:`.device_alignment.Middles` are given, as
    :func:`.device_alignment.middle_counts` counts them, by the kernel (CUDA tensors, or CPU tensors in
    Triton's interpreter).

    Example:
        >>> from torch_bleu.kernels import interpreted
        >>> from torch_bleu.metrics.wer.device_alignment import middles
        >>> rows, lengths = (torch.tensor([[7, 1, 2]]), torch.tensor([[7, 2, 1]])), torch.tensor([3])
        >>> if interpreted(_alignment_kernel):   # "7 1 2" against "7 2 1", in Triton's interpreter
        ...     assert kernel_middle_counts(middles(rows[0], lengths, rows[1], lengths)).tolist() == [[2, 0, 1, 1]]
    """
    return _aligned(middle, None)[0]


def kernel_counts_and_column(middle: Middles, at_column: Tensor) -> tuple[Tensor, Tensor]:
    """:func:`kernel_middle_counts`, and ``(B, Lr + 1)`` int64: ``G[k][at_column[b]]`` of each pair ``b``
    (:func:`.device_alignment.distances`) for ``k = 0 .. ref_left[b]``, its own reference tokens (0 past them).

    Example:
        >>> from torch_bleu.kernels import interpreted
        >>> from torch_bleu.metrics.wer.device_alignment import middles
        >>> rows, lengths = (torch.tensor([[2, 1]]), torch.tensor([[1, 2]])), torch.tensor([2])
        >>> if interpreted(_alignment_kernel):   # reference "2 1", hypothesis "1 2": D[k][1] = 1, 1, 1
        ...     _, column = kernel_counts_and_column(middles(rows[0], lengths, rows[1], lengths), torch.tensor([1]))
        ...     assert (column + torch.arange(3) + 1).tolist() == [[1, 1, 1]]
    """
    counts, column = _aligned(middle, at_column)
    assert column is not None  # asked for
    return counts, column


def _aligned(middle: Middles, at_column: Tensor | None) -> tuple[Tensor, Tensor | None]:
    """The counts of :func:`kernel_middle_counts`, and the column of :func:`kernel_counts_and_column`
    where ``at_column`` is given: the kernel launched over chunks of pairs."""
    ref_width, batch = middle.ref.shape
    device = middle.ref.device
    check_runs_on(device, _alignment_kernel)
    lanes = lanes_for(middle.hyp.shape[0])
    pairs = min(max(1, TILE_LANES // lanes), 1 << max(batch - 1, 0).bit_length())  # no tile past the batch
    chunk = max(pairs, SCRATCH_BYTES // (SCRATCH_ROWS * 4 * lanes) // pairs * pairs)
    found = torch.zeros((batch, 2), dtype=torch.int32, device=device)
    column = None if at_column is None else torch.zeros((batch, ref_width + 1), dtype=torch.int32, device=device)
    wanted = found.new_zeros(batch) if at_column is None else at_column.contiguous()
    scratch = torch.empty((min(chunk, batch), SCRATCH_ROWS * lanes), dtype=torch.int32, device=device)
    ref_left, hyp_left = middle.ref_left.contiguous(), middle.hyp_left.contiguous()
    if not (ref_width and middle.hyp.shape[0]):  # one side empty: no hits, no substitutions
        batch = 0
    with torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext():
        for start in range(0, batch, chunk):
            size = min(chunk, batch - start)
            ref, hyp = middle.ref[:, start : start + size], middle.hyp[:, start : start + size]
            _alignment_kernel[(triton.cdiv(size, pairs),)](
                ref,
                ref.stride(0),
                ref.stride(1),
                hyp,
                hyp.stride(0),
                hyp.stride(1),
                ref_left[start : start + size],
                hyp_left[start : start + size],
                scratch,
                found[start : start + size],
                wanted[start : start + size],
                found if column is None else column[start : start + size],
                size,
                ref_width,
                WITH_COLUMN=column is not None,
                PAIRS=pairs,
                BLOCK=lanes,
                DELETION=DELETION,
                HIT=HIT,
                SUBSTITUTION=SUBSTITUTION,
                num_warps=max(1, min(16, pairs * lanes // 128)),  # 4 lanes a thread up to 2048
            )
    hits, substitutions = found.long().unbind(1)
    counts = torch.stack(
        [
            hits + middle.prefix + middle.suffix,
            substitutions,
            middle.ref_left - hits - substitutions,
            middle.hyp_left - hits - substitutions,
        ],
        1,
    )
    return counts, None if column is None else column.long()

"""ROUGE's LCS lengths and rougeLsum's union LCS as Triton kernels: each pair's dynamic programme inside one
program, one launch per chunk of pairs.

The same numbers as :mod:`.device_lcs` (whose docstring states the rule), without its whole-batch
operations per reference word: a program walks one pair's reference a word at a time, the prediction
as a vector of lanes in tiles of at most :data:`MAX_TILE` words. With ``t`` the LCS table, a tile of
row ``i`` comes from the tile of row ``i - 1`` as a running maximum,

    t[i][j] = max over k <= j of (t[i-1][k-1] + 1 if ref[i-1] == pred[k-1] else t[i-1][k])

and the same scan over pairs of values (the maximum of a span, and the maximum of all of it but its
last lane) gives ``t[i][j-1]`` beside ``t[i][j]``, so that no lane is ever shifted in registers. A pair's two
rows (``t[i][1:]`` and ``t[i][:-1]``, int32) live in a scratch buffer between steps (linear memory), the
maximum of the tiles before carried as a scalar. Lengths and sentences are read by the kernel; sizes
follow from shapes only, and nothing waits for the device.

``rougeLsum``: the table restarts at every sentence boundary (the prediction's sentences kept apart in
the running maximum by lifting each one above every value of the sentences before it), and every cell
stores one bit, whether rouge-score's backtrack steps along the prediction there (``t[i][j-1] >
t[i-1][j]`` on unequal words), packed 32 to an int32. Then the backtracks of every (reference sentence,
prediction sentence) block run together as a vector of walkers, :data:`WALKERS` at a time, each
marking the reference words of its diagonal steps. A pair takes ``1/8`` byte per table cell and 8 bytes
per prediction word (``Lr * ceil(Lp / 32) * 4 + 8 * Lp`` bytes); pairs are taken in chunks of at most
:data:`SCRATCH_BYTES` of scratch (a pair larger than that is a chunk of its own).

Triton is imported with this module, which :mod:`.device_lcs` imports only when a kernel is about to
run (:func:`torch_bleu.kernels.triton_runs`). Triton reads ``TRITON_INTERPRET`` when ``@triton.jit``
decorates, its own functions' when it is first imported: CPU tensors run in its interpreter only where
it was set before then (:func:`runs_on`).

Example:
    >>> ref, pred = torch.tensor([[1, 2, 3, 4], [5, 6, -1, -1]]), torch.tensor([[2, 4, 3, -2], [6, 5, 6, 5]])
    >>> if runs_on(ref.device):  # CUDA tensors, or CPU ones in Triton's interpreter
    ...     assert triton_lcs_lengths(ref, torch.tensor([4, 2]), pred, torch.tensor([3, 4])).tolist() == [2, 2]
    >>> ref, pred = torch.tensor([[1, 2, 3, 1, 2]]), torch.tensor([[2, 1, 2, 3]])
    >>> lines, lengths = (torch.tensor([[0, 0, 0, 1, 1]]), torch.tensor([[0, 0, 1, 1]])), torch.tensor([5, 4])
    >>> if runs_on(ref.device):  # each reference word on an LCS of its sentence and a prediction sentence
    ...     marks = triton_union_lcs_marks(ref, lines[0], lengths[:1], pred, lines[1], lengths[1:])
    ...     assert marks.tolist() == [[True] * 5]
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl
from torch import Tensor

from ...kernels import check_runs_on, interpreted

#: The most scratch memory (bytes) of one launch: the rows of :func:`triton_lcs_lengths`, the rows and bits
#: of :func:`triton_union_lcs_marks`.
SCRATCH_BYTES = 2**26
#: The most prediction words of one tile (a vector of lanes).
MAX_TILE = 1024
#: The backtracks of rougeLsum walked together.
WALKERS = 64
#: Bits of a word of the union's table.
BITS = 32


@triton.jit
def _span_maxima(top, top_before_last, next_top, next_before_last):  # type: ignore[no-untyped-def]  # Triton's types
    """Combines two spans of a scan: (their maximum, the maximum of all of them but the last lane)."""
    return tl.maximum(top, next_top), tl.maximum(top, next_before_last)


@triton.jit  # type: ignore[untyped-decorator]
def _lcs_lengths_kernel(  # type: ignore[no-untyped-def]  # Triton's types
    outer_ptr,
    outer_stride,
    outer_length_ptr,
    inner_ptr,
    inner_stride,
    inner_length_ptr,
    rows_ptr,
    width,
    out_ptr,
    TILE: tl.constexpr,
):
    """The LCS length of pair ``program_id``: its outer row's words one at a time, the inner row in tiles."""
    pair = tl.program_id(0)
    outer = outer_ptr + pair * outer_stride
    inner = inner_ptr + pair * inner_stride
    row = rows_ptr + pair * 2 * width  # t[i][j] for j >= 1, then t[i][j - 1]
    before = row + width
    outer_length = tl.load(outer_length_ptr + pair)
    inner_length = tl.load(inner_length_ptr + pair)
    lanes = tl.arange(0, TILE)
    for start in range(0, inner_length, TILE):
        inside = start + lanes < inner_length
        tl.store(row + start + lanes, tl.zeros([TILE], tl.int32), mask=inside)
        tl.store(before + start + lanes, tl.zeros([TILE], tl.int32), mask=inside)
    length = 0
    for i in range(0, outer_length):
        tl.debug_barrier()  # the row of the step before, whichever thread stored it
        word = tl.load(outer + i)
        carry = 0  # the maximum of the tiles before
        for start in range(0, inner_length, TILE):
            at = start + lanes
            inside = at < inner_length
            words = tl.load(inner + at, mask=inside, other=-1)
            above = tl.load(row + at, mask=inside, other=0)
            diagonal = tl.load(before + at, mask=inside, other=0)
            value = tl.where(words == word, diagonal + 1, above)
            new, new_before = tl.associative_scan((value, tl.zeros([TILE], tl.int32)), 0, _span_maxima)
            new = tl.maximum(new, carry)
            tl.store(row + at, new, mask=inside)
            tl.store(before + at, tl.maximum(new_before, carry), mask=inside)
            carry = tl.max(new, 0)
        length = carry
    tl.store(out_ptr + pair, length)


@triton.jit  # type: ignore[untyped-decorator]
def _union_lcs_kernel(  # type: ignore[no-untyped-def]  # Triton's types
    ref_ptr,
    ref_stride,
    ref_starts_ptr,
    ref_count_ptr,
    pred_ptr,
    pred_stride,
    pred_starts_ptr,
    pred_count_ptr,
    pred_sentence_ptr,
    rows_ptr,
    width,
    bits_ptr,
    bit_words,
    table_words,
    marks_ptr,
    marks_stride,
    TILE: tl.constexpr,
    WALKERS: tl.constexpr,
    BITS: tl.constexpr,
):
    """The union LCS marks of pair ``program_id``: the table of its sentence blocks a reference word at a
    time (a bit per cell: whether the backtrack steps along the prediction), then every block's backtrack."""
    pair = tl.program_id(0)
    ref = ref_ptr + pair * ref_stride
    pred = pred_ptr + pair * pred_stride
    ref_starts = ref_starts_ptr + pair * (ref_stride + 1)  # then where the last sentence ends
    pred_starts = pred_starts_ptr + pair * (pred_stride + 1)
    pred_sentence = pred_sentence_ptr + pair * pred_stride
    row = rows_ptr + pair * 2 * width  # t[i][j] for j >= 1, then t[i][j - 1], within each block
    before = row + width
    bits = bits_ptr + pair * table_words
    marks = marks_ptr + pair * marks_stride
    ref_count = tl.load(ref_count_ptr + pair)
    ref_length = tl.load(ref_starts + ref_count)
    pred_count = tl.load(pred_count_ptr + pair)
    pred_length = tl.load(pred_starts + pred_count)
    lanes = tl.arange(0, TILE)
    bit_lanes = tl.arange(0, TILE // BITS)
    lane_bit = lanes % BITS
    for sentence in range(0, ref_count):
        first = tl.load(ref_starts + sentence)
        end = tl.load(ref_starts + sentence + 1)
        for i in range(first, end):
            tl.debug_barrier()  # the row of the step before, whichever thread stored it
            within = (i > first).to(tl.int32)  # 0: the block's first row, whose row above is 0
            word = tl.load(ref + i)
            carry = 0  # the lifted maximum of the tiles before
            for start in range(0, pred_length, TILE):
                at = start + lanes
                inside = at < pred_length
                words = tl.load(pred + at, mask=inside, other=-1)
                # each prediction sentence above every value of those before it
                lift = tl.load(pred_sentence + at, mask=inside, other=0) * (ref_length + 1)
                above = tl.load(row + at, mask=inside, other=0) * within  # t[i-1][j]
                diagonal = tl.load(before + at, mask=inside, other=0) * within  # t[i-1][j-1]
                match = words == word
                value = tl.where(match, diagonal + 1, above) + lift
                high, high_before = tl.associative_scan((value, tl.zeros([TILE], tl.int32)), 0, _span_maxima)
                high = tl.maximum(high, carry)
                new_before = tl.maximum(tl.maximum(high_before, carry) - lift, 0)  # t[i][j-1]: 0 at a block's edge
                tl.store(row + at, high - lift, mask=inside)
                tl.store(before + at, new_before, mask=inside)
                carry = tl.max(high, 0)
                along = ((new_before > above) & ~match).to(tl.int32) << lane_bit
                packed = tl.sum(tl.reshape(along, (TILE // BITS, BITS)), 1)  # distinct bits: the sum is their "or"
                word_at = start // BITS + bit_lanes
                tl.store(bits + i * bit_words + word_at, packed, mask=word_at * BITS < pred_length)
    tl.debug_barrier()  # the table, whichever thread stored it
    walker_lanes = tl.arange(0, WALKERS)
    blocks = ref_count * pred_count
    for first_walker in range(0, blocks, WALKERS):
        walker = first_walker + walker_lanes
        live = walker < blocks
        sentence = walker // tl.maximum(pred_count, 1)
        pred_sentence_of = walker % tl.maximum(pred_count, 1)
        top = tl.load(ref_starts + sentence, mask=live, other=0)
        i = tl.load(ref_starts + sentence + 1, mask=live, other=0)  # dead walkers: i == top, never active
        left = tl.load(pred_starts + pred_sentence_of, mask=live, other=0)
        j = tl.load(pred_starts + pred_sentence_of + 1, mask=live, other=0)
        steps = tl.max(tl.where(live, i - top + j - left, 0), 0)
        for _ in range(0, steps):
            active = (i > top) & (j > left)
            ref_word = tl.load(ref + i - 1, mask=active, other=-1)
            pred_word = tl.load(pred + j - 1, mask=active, other=-2)
            diagonal = active & (ref_word == pred_word)
            cell = tl.load(bits + (i - 1) * bit_words + (j - 1) // BITS, mask=active & ~diagonal, other=0)
            along = ((cell >> ((j - 1) % BITS)) & 1) != 0
            tl.store(marks + i - 1, tl.full([WALKERS], 1, tl.int8), mask=diagonal)
            i -= (active & (diagonal | ~along)).to(tl.int32)
            j -= (active & (diagonal | along)).to(tl.int32)


def runs_on(device: torch.device) -> bool:
    """Whether the kernels run on tensors on ``device``: a GPU's, or the CPU's in Triton's interpreter."""
    return device.type != "cpu" or interpreted(_lcs_lengths_kernel)


def _tile(width: int, least: int) -> int:
    """The lanes of a tile along rows of ``width`` words: a power of two, at least ``least``."""
    return max(least, min(MAX_TILE, int(triton.next_power_of_2(max(width, 1)))))


def _warps(tile: int) -> int:
    """The warps of a program whose tiles have ``tile`` lanes: one per 128 lanes, 1 to 4."""
    return max(1, min(4, tile // 128))


def triton_lcs_lengths(ref: Tensor, ref_length: Tensor, pred: Tensor, pred_length: Tensor) -> Tensor:
    """:func:`.device_lcs.lcs_lengths` by a Triton kernel: ``(P,)`` int64 LCS lengths of padded rows ``ref``
    ``(P, Lr)`` and ``pred`` ``(P, Lp)`` of ``ref_length`` and ``pred_length`` ``(P,)`` words (pads: two
    different negative numbers). The wider rows are the vector, the narrower ones are walked."""
    check_runs_on(ref.device, _lcs_lengths_kernel)
    if ref.shape[1] > pred.shape[1]:  # the LCS is symmetric
        ref, ref_length, pred, pred_length = pred, pred_length, ref, ref_length
    pairs, width = ref.shape[0], pred.shape[1]
    lengths = torch.zeros(pairs, dtype=torch.int32, device=ref.device)
    if not pairs or not width or not ref.shape[1]:
        return lengths.long()
    ref, pred = ref.contiguous(), pred.contiguous()
    ref_length, pred_length = (length.to(torch.int32) for length in (ref_length, pred_length))
    chunk = max(1, SCRATCH_BYTES // (8 * width))
    tile = _tile(width, 16)
    rows = torch.empty((min(chunk, pairs), 2, width), dtype=torch.int32, device=ref.device)
    for first in range(0, pairs, chunk):
        last = min(first + chunk, pairs)
        _lcs_lengths_kernel[(last - first,)](
            ref[first:last],
            ref.stride(0),
            ref_length[first:last],
            pred[first:last],
            pred.stride(0),
            pred_length[first:last],
            rows,
            width,
            lengths[first:last],
            TILE=tile,
            num_warps=_warps(tile),
        )
    return lengths.long()


def triton_union_lcs_marks(
    ref: Tensor, ref_sentence: Tensor, ref_length: Tensor, pred: Tensor, pred_sentence: Tensor, pred_length: Tensor
) -> Tensor:
    """:func:`.device_lcs.union_lcs_marks` by a Triton kernel: ``(P, Lr)`` bool, the reference words of
    rouge-score's union LCS of each reference sentence against every prediction sentence, for padded rows
    ``ref`` ``(P, Lr)`` and ``pred`` ``(P, Lp)`` of ``ref_length`` and ``pred_length`` ``(P,)`` words, each
    word's sentence in ``ref_sentence`` and ``pred_sentence`` (equal within one, different across a
    boundary)."""
    check_runs_on(ref.device, _lcs_lengths_kernel)
    pairs, ref_width = ref.shape
    width = pred.shape[1]
    marks = torch.zeros((pairs, ref_width), dtype=torch.bool, device=ref.device)
    if not pairs or not width or not ref_width:
        return marks
    ref, pred = ref.contiguous(), pred.contiguous()
    ref_starts, ref_count, _ = _sentences(ref_sentence, ref_length)
    pred_starts, pred_count, pred_number = _sentences(pred_sentence, pred_length)
    bit_words = triton.cdiv(width, BITS)
    table_words = ref_width * bit_words
    chunk = max(1, SCRATCH_BYTES // (4 * table_words + 8 * width))
    tile = _tile(width, BITS)
    rows = torch.empty((min(chunk, pairs), 2, width), dtype=torch.int32, device=ref.device)
    table = torch.empty((min(chunk, pairs), table_words), dtype=torch.int32, device=ref.device)
    found = marks.view(torch.int8)
    for first in range(0, pairs, chunk):
        last = min(first + chunk, pairs)
        _union_lcs_kernel[(last - first,)](
            ref[first:last],
            ref_width,
            ref_starts[first:last],
            ref_count[first:last],
            pred[first:last],
            width,
            pred_starts[first:last],
            pred_count[first:last],
            pred_number[first:last],
            rows,
            width,
            table,
            bit_words,
            table_words,
            found[first:last],
            ref_width,
            TILE=tile,
            WALKERS=WALKERS,
            BITS=BITS,
            num_warps=_warps(tile),
        )
    return marks


def _sentences(sentence: Tensor, length: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The sentences of rows of ``length`` words (``sentence`` ``(P, L)``: equal within one, different
    across a boundary): ``(P, L + 1)`` int32 where each begins (the first ``count`` entries, then the
    row's length), ``(P,)`` int32 ``count``, and ``(P, L)`` int32 each word's sentence, numbered from 0
    (pads in the last)."""
    position = torch.arange(sentence.shape[1], device=sentence.device)
    first = position < length[:, None]
    first[:, 1:] &= sentence[:, 1:] != sentence[:, :-1]
    number = first.cumsum(1) - 1
    # the first word of each sentence in order, then the row's length (past every one of them)
    starts = torch.cat([torch.where(first, position, length[:, None]), length[:, None]], 1).sort(1).values
    return starts.to(torch.int32), first.sum(1, dtype=torch.int32), number.to(torch.int32)

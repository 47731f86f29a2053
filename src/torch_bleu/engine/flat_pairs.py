"""Clipped n-gram matches of hypothesis-reference pairs whose rows lie end to end in one flat stream.

chrF compares a hypothesis with each of its references on its own, one pair at a time. Here the
rows of all pairs lie end to end in one 1-D array, without padding: row ``2 p`` is the hypothesis
of pair ``p`` and row ``2 p + 1`` its reference (a :class:`PairStream`). Slots that belong to no row
(the unused tail of a stream whose size follows from shapes alone) carry row ``2 P``.

1. **Digits.** Tokens arrive as dense ranks ``1..D`` over the stream (:func:`~.keys.dense_ranks`,
   one sort); a token's digit is its rank plus one. Past the end of a row the digit is an end mark,
   ``0`` in a hypothesis and ``1`` in a reference, so an n-gram that runs off the end of one side
   never equals an n-gram of the other.
2. **Keys.** The window of tokens starting at each slot becomes one int64: the pair number, the
   digits side by side, and the side (hypothesis 0, reference 1) in the lowest bit.
3. **One sort** of the whole stream. For every order ``n``, a group of equal n-grams of one pair
   starts where a key differs from the one before above the digits past the ``n``-th.
4. **Clipping without counting each side.** In a group of ``H`` hypothesis and ``C`` reference
   windows, ``min(H, C) = (H + C - |H - C|) / 2``. ``H - C`` is a running sum of ``+1`` (hypothesis)
   and ``-1`` (reference) between the group's ends, and the ``H + C`` of a pair's groups add up to
   its slots. So the matches of a pair are its slots minus the sum of ``|H - C|``, halved.

When the digits of ``max_order`` tokens do not fit in one key, the work goes in stages: the next
stage's keys start with the group number of the previous stage's longest n-gram, one more sort
per stage. The same code runs on PyTorch tensors (any device, no host sync) and NumPy arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, NamedTuple

import numpy as np

from ..arrays import (
    Array,
    ArrayT,
    add_where_,
    arange_like,
    array_namespace,
    cumsum_,
    full_like_shape,
    is_tensor,
    running_count,
    running_max,
    scatter_last,
    sizes_from_data,
)
from . import keys
from .rows import RowStream, StackedRows
from .rowsort import Segments, sort_own, sort_segments, sort_segments_with_order, sort_with_order

if TYPE_CHECKING:
    from torch import Tensor

KEY_MAX = (1 << 63) - 1  # above every key
#: Host streams of more slots than this sort their pairs as short rows (:class:`~.rowsort.Segments`);
#: smaller ones sort whole: one sort of a few thousand keys costs less than laying the pairs out in
#: rows (a stream of 8 WMT17 sentence pairs, 214 slots: 0.7 times the time; 512 pairs, 18,956
#: slots: 0.85; 1024 pairs, 40,918 slots: 0.83, but a whole system in chunks of 2^15: 1.09).
SEGMENTED_FROM_SLOTS = 2**14


if TYPE_CHECKING:  # to type checkers, one kind of array throughout (a NamedTuple is generic from Python 3.11 on)

    class PairStream(NamedTuple, Generic[ArrayT]):
        """The stream below, its arrays of one kind."""

        ranks: ArrayT
        rows: ArrayT
        pairs: int
        distinct: int

else:

    class PairStream(NamedTuple):
        """Tokens of hypothesis-reference pairs, rows end to end.

        Attributes:
            ranks: ``(N,)`` int64 dense ranks ``1..D`` of the tokens (:func:`~.keys.dense_ranks`).
            rows: ``(N,)`` int64 row of each slot, non-decreasing except for unused slots: ``2 p`` for
                the hypothesis of pair ``p``, ``2 p + 1`` for its reference, ``2 P`` for a slot in no row.
            pairs: ``P``.
            distinct: a bound on ``D`` (the stream's size when nothing may read the data).
        """

        ranks: Array
        rows: Array
        pairs: int
        distinct: int


def stacked_pairs(rows: StackedRows[ArrayT]) -> PairStream[ArrayT]:
    """The kept tokens of stacked rows with one hypothesis and one reference per sentence, as a stream.

    Sentence ``b``'s hypothesis becomes row ``2 b`` and its reference row ``2 b + 1``, with no slot
    for padding or dropped tokens: the stream's size follows the data, so ``rows`` must be arrays
    whose sizes may (:func:`~torch_bleu.arrays.sizes_from_data`).

    Example:
        >>> import numpy as np
        >>> from .rows import stack_rows
        >>> stream = stacked_pairs(stack_rows(np.array([[7, 0, 8]]), np.array([[[9, 8, 0]]]), ignore_ids=[0]))
        >>> stream.ranks.tolist(), stream.rows.tolist(), stream.pairs, stream.distinct
        ([1, 2, 3, 2], [0, 0, 1, 1], 1, 3)
    """
    tokens, keep = rows.tokens, rows.keep
    batch, sources, _width = tokens.shape
    assert sources == 2 and rows.hypotheses == 1 and sizes_from_data(tokens)
    row_numbers = arange_like(batch * sources, tokens).reshape(batch, sources, 1)
    row = array_namespace(tokens).broadcast_to(row_numbers, tokens.shape)
    if keep is None:
        kept_tokens, kept_rows = tokens.reshape(-1), row.reshape(-1)
    else:
        kept_tokens, kept_rows = tokens[keep], row[keep]
    ranks, distinct = keys.dense_ranks(kept_tokens)
    return PairStream(ranks, kept_rows, batch, distinct)


def stream_pairs(rows: RowStream) -> PairStream[np.ndarray]:
    """The tokens of a :class:`~.rows.RowStream` as a stream of hypothesis-reference pairs.

    Example:
        >>> import numpy as np
        >>> stream = stream_pairs(RowStream(np.array([7, 8, 9, 8]), np.array([[2, 2]])))
        >>> stream.ranks.tolist(), stream.rows.tolist(), stream.pairs, stream.distinct
        ([1, 2, 3, 2], [0, 0, 1, 1], 1, 3)
    """
    if rows.distinct is None:
        ranks, distinct = keys.dense_ranks(rows.tokens)
    else:  # numbered 0 .. D - 1 already
        ranks, distinct = rows.tokens + 1, rows.distinct
    row = np.repeat(np.arange(rows.lengths.size), rows.lengths.reshape(-1))
    return PairStream(ranks, row, rows.lengths.shape[0], distinct)


def pair_matches(stream: PairStream[ArrayT], max_order: int) -> ArrayT:
    """``(P, max_order)`` int64 clipped matches of each pair's hypothesis n-grams in its reference.

    Example:
        >>> import numpy as np
        >>> from .keys import dense_ranks
        >>> ranks, distinct = dense_ranks(np.array([1, 2, 2, 1, 2, 2, 2]))
        >>> rows = np.array([0, 0, 0, 1, 1, 1, 1])  # hypothesis "a b b", reference "a b b b"
        >>> pair_matches(PairStream(ranks, rows, pairs=1, distinct=distinct), 3).tolist()
        [[3, 2, 1]]
    """
    ranks, rows, pairs, distinct = stream
    xp = array_namespace(ranks)
    slots = ranks.shape[0]
    if slots == 0 or pairs == 0:
        return full_like_shape(ranks, (pairs, max_order), 0, xp.int64)
    side = rows & 1  # also the end mark of the row
    pair_bits = pairs.bit_length()
    segments = None
    if not is_tensor(rows) and slots > SEGMENTED_FROM_SLOTS:
        starts = np.searchsorted(rows, np.arange(pairs, dtype=np.int64) * 2)
        segments = Segments.of(starts, slots)
        if segments is not None and not _one_stage(pair_bits, distinct, max_order):
            ranks, distinct = ranks_within_pairs(stream, starts, segments)
    digit_bits = (distinct + 1).bit_length()
    digits = ranks + 1
    past_end = digits - side  # what a token's digit adds to the end mark where it is still in the row

    matches: list[ArrayT] = []
    counted = 0
    head, head_bits, head_order = digits, digit_bits, 1  # head: a number standing for the head_order-gram
    while counted < max_order:
        room = keys.KEY_BITS - pair_bits - 1 - head_bits
        extra = min(room // digit_bits, max_order - head_order)
        if extra < 1 and head_order < max_order:
            raise ValueError(f"streams too long for exact int64 n-gram keys ({slots} slots); split them")
        # keys are built in place: every fresh array as large as the stream costs page faults on the host
        key = head
        for offset in range(head_order, head_order + extra):  # the next token's digit, or the end mark
            key <<= digit_bits
            key += side
            inside = slots - offset
            if inside > 0:
                add_where_(key[:inside], past_end[offset:], rows[offset:] == rows[:inside])
        key <<= 1
        key += side
        key += (rows >> 1) << (head_bits + extra * digit_bits + 1)  # a slot in no row: pair P, read by no result
        last_stage = head_order + extra == max_order
        sorted_keys, key_order = _sorted(key, last_stage, segments)

        orders = range(counted + 1, head_order + extra + 1)
        groups = _Groups(sorted_keys, pairs, below_pair=head_bits + extra * digit_bits)
        # the order-n prefix of a key ends above the digits of the tokens after the n-th
        matches.append(groups.imbalances([1 + digit_bits * (head_order + extra - order) for order in orders]))
        counted = orders[-1]

        if key_order is not None:  # the longest n-gram's group number heads the next stage's keys
            group = full_like_shape(sorted_keys, sorted_keys.shape, 0)
            group[1:] = running_count(groups.change[:-1] > 1)  # keys differ above the side bit
            head = scatter_last(group, key_order)
            head_bits = (int(group[-1]) if sizes_from_data(group) else slots).bit_length()
            head_order = counted
    windows = groups.bounds[1:] - groups.bounds[:-1]  # slots of both rows of each pair
    clipped: ArrayT = (windows[:, None] - xp.concatenate(matches, -1)) // 2
    return clipped


def _one_stage(pair_bits: int, distinct: int, max_order: int) -> bool:
    """Whether the keys of every order up to ``max_order`` fit in one int64 (one sort)."""
    return pair_bits + 1 + max_order * (distinct + 1).bit_length() <= keys.KEY_BITS


def ranks_within_pairs(
    stream: PairStream[np.ndarray], starts: np.ndarray, segments: Segments
) -> tuple[np.ndarray, int]:
    """Each token's dense rank ``1, 2, ...`` among the distinct tokens of its own pair, and the most any pair
    holds; the stream's ranks as they are where the keys below do not fit in an int64.

    Ranks within a pair need only as many bits as the pair has slots, so that a long batch over a large
    vocabulary (256 x 1024 tokens of 32,000 ids: 15 bits per token, 3 orders per key) gets every order
    into one key (11 bits per token), one sort instead of two. They cost one sort of ``(pair, rank,
    position)`` keys, each pair in a short row of its own (:func:`~.rowsort.sort_segments`).

    Example:
        >>> import numpy as np
        >>> ranks, rows = np.array([9, 4, 9, 7, 4]), np.array([0, 0, 1, 2, 3])  # pairs "9 4 | 9" and "7 | 4"
        >>> starts = np.array([0, 3])
        >>> local, most = ranks_within_pairs(PairStream(ranks, rows, 2, 9), starts, Segments.of(starts, 5))
        >>> local.tolist(), most
        ([2, 1, 2, 2, 1], 2)
    """
    ranks, rows, pairs, distinct = stream
    slots = ranks.shape[0]
    position_bits, rank_bits = max(slots - 1, 1).bit_length(), distinct.bit_length()
    if (pairs + 1).bit_length() + rank_bits + position_bits > keys.KEY_BITS:
        return ranks, distinct
    key = rows >> 1
    key <<= rank_bits
    key += ranks
    key <<= position_bits
    key += np.arange(slots, dtype=np.int64)
    key = sort_segments(key, segments)
    position = key & ((1 << position_bits) - 1)
    key >>= position_bits  # (pair, rank)
    new = np.empty(slots, dtype=np.int64)
    new[0] = 1
    np.not_equal(key[1:], key[:-1], out=new[1:])
    seen = np.cumsum(new, out=new)  # distinct (pair, rank) values up to each slot
    lengths = np.diff(starts, append=slots)
    before = seen[np.minimum(starts, slots - 1)] - 1  # those of the pairs before each pair
    seen -= np.repeat(before, lengths)
    local = np.empty(slots, dtype=np.int64)
    local[position] = seen
    return local, int(seen.max())


def _sorted(key: ArrayT, last_stage: bool, segments: Segments | None) -> tuple[ArrayT, ArrayT | None]:
    """One stage's keys sorted, and (but in the last stage) where each came from: sorted as short rows where
    the pairs are ``segments`` (:class:`~.rowsort.Segments`: the pair number heads every key), else whole."""
    if segments is not None:
        assert not is_tensor(key)  # segments lay out streams on the host
        return (sort_segments(key, segments), None) if last_stage else sort_segments_with_order(key, segments)
    return (sort_own(key), None) if last_stage else sort_with_order(key)


class _Groups(Generic[ArrayT]):
    """Groups of equal keys in one sorted stage, and the sum over each pair's groups of ``|H - C|``.

    The side is a key's lowest bit and the pair the bits from ``below_pair + 1`` up; one order's
    groups are the runs of keys equal above a given bit.
    """

    def __init__(self, sorted_keys: ArrayT, pairs: int, below_pair: int) -> None:
        xp = self.xp = array_namespace(sorted_keys)
        slots = sorted_keys.shape[0]
        # change[i]: the bits in which key i + 1 differs from key i; the last slot ends every group
        self.change: ArrayT = full_like_shape(sorted_keys, (slots,), KEY_MAX)
        xp.bitwise_xor(sorted_keys[1:], sorted_keys[:-1], out=self.change[:-1])
        # balance[i + 1]: H - C of the windows up to slot i (each hypothesis window +1, each reference one -1)
        self.balance: ArrayT = full_like_shape(sorted_keys, (slots + 1,), 0)
        cumsum_(xp.bitwise_and(sorted_keys, 1, out=self.balance[1:]))
        self.balance *= -2
        self.balance += arange_like(slots + 1, sorted_keys)
        # the pairs lie one after another in sorted order: sums per pair are differences of running sums
        self.bounds: ArrayT = xp.searchsorted(sorted_keys, pair_starts(pairs, below_pair + 1, sorted_keys))

    def imbalances(self, shifts: list[int]) -> ArrayT:
        """``(P, len(shifts))``: per pair, the sum of ``|H - C|`` over its groups of keys equal from each shift up."""
        change = self.change
        if is_tensor(change):
            per_shift: Tensor = self.xp.stack([self._imbalance_of_tensors(shift) for shift in shifts], -1)
            return per_shift
        return self._imbalances_on_host(shifts)

    def _imbalances_on_host(self: _Groups[np.ndarray], shifts: list[int]) -> np.ndarray:
        """All shifts in one pass over a ``(len(shifts), 1 + slots)`` table of group ends, flattened: row ``k``
        starts with an end of its own (balance 0) before slot 0, so no group reaches into the row before."""
        slots = self.change.shape[0]
        ends = np.empty((len(shifts), slots + 1), dtype=bool)
        ends[:, 0] = True
        np.greater_equal(self.change, (np.int64(1) << np.array(shifts, dtype=np.int64))[:, None], out=ends[:, 1:])
        last = np.flatnonzero(ends)  # the last slot of each group, and the row starts
        balance = self.balance.take(last, mode="wrap")  # at column last % (slots + 1)
        running = np.empty(last.shape[0] + 1, dtype=np.int64)  # the sum of |H - C| over the groups before
        running[0] = 0
        running[1] = balance[0]
        np.subtract(balance[1:], balance[:-1], out=running[2:])
        np.abs(running, out=running)
        np.cumsum(running, out=running)
        # the groups before each pair's first slot, in each row (a row start counts only in rows before)
        first_slots = np.arange(len(shifts), dtype=np.int64)[:, None] * (slots + 1) + self.bounds + 1
        bounds = np.searchsorted(last, first_slots)
        totals: np.ndarray = running[bounds[:, 1:]] - running[bounds[:, :-1]]
        return totals.T

    def _imbalance_of_tensors(self, shift: int) -> ArrayT:
        """One shift's sums, shapes from shapes alone: every group's last slot holds its ``|H - C|``, others 0."""
        xp = self.xp
        ends = self.change >= (1 << shift)
        position = arange_like(ends.shape[0], ends)
        previous_end = full_like_shape(position, position.shape, -1)
        previous_end[1:] = running_max(xp.where(ends, position, -1))[:-1]
        balance = self.balance[1:]
        before = xp.where(previous_end >= 0, balance[previous_end.clip(min=0)], 0)
        running = full_like_shape(position, (position.shape[0] + 1,), 0)
        running[1:] = xp.where(ends, xp.abs(balance - before), 0)
        cumsum_(running)
        sums: ArrayT = running[self.bounds[1:]] - running[self.bounds[:-1]]
        return sums


def pair_starts(pairs: int, shift: int, like: ArrayT) -> ArrayT:
    """The smallest key of each pair ``0..P`` (pair numbers start at bit ``shift``)."""
    starts: ArrayT = arange_like(pairs + 1, like) << shift
    return starts

"""Clipped n-gram matches from one sort of packed n-gram keys per sentence: the default algorithm.

Within each sentence (one row of ``S = K + R`` segments: the hypotheses, then the references):

1. **Digits.** Tokens get their dense rank ``2..W+1`` among the ``W = S * L`` slots of the sentence
   (one batched sort along the row), so any int64 id becomes a small *digit*. Past the end of a
   row the digit is an end mark: ``0`` in a hypothesis, ``1`` in a reference. The marks differ,
   so an n-gram that runs off the end of a hypothesis never equals a reference n-gram.
2. **Keys.** The window of ``D`` tokens starting at each slot becomes one int64: its digits side by
   side, then the segment's source number in the lowest bits. Sorting these keys sorts the windows
   lexicographically, so for *every* order ``n <= D`` the windows that share their first ``n``
   tokens (equal n-grams) end up next to each other: one sort serves all orders.
3. **Groups.** Two neighbours in sorted order start a new order-``n`` group when their keys differ
   within the first ``n`` digits, i.e. above the other ``D - n`` digits and the source bits: one
   compare of ``key_i ^ key_(i-1)`` per order. A running sum of group starts numbers the groups.
4. **Clipping.** One scatter-add counts each group's windows in every row at once (``H_k`` for
   hypothesis ``k``, ``C_r`` for reference ``r``), every row in its own bit field of an int32
   counter (with one hypothesis and one reference, just ``H - C``); the clipped matches of
   hypothesis ``k`` at an order are the sum over its groups of ``min(H_k, max_r C_r)``.

The same code runs on PyTorch tensors (any device) and NumPy arrays (:mod:`torch_bleu.arrays`); the
sorts go through :mod:`~torch_bleu.engine.rowsort` (NumPy's vectorized sort on CPU).

When ``D`` digits do not cover ``max_order`` orders (very long rows or high orders), the work goes in
stages: the next stage's keys start with the group number of the previous stage's longest n-gram,
one more sort per stage. Memory and time are ``O(B * W * max_order)`` and ``O(B * W log W)``.
"""

from __future__ import annotations

from typing import NamedTuple

from ..arrays import (
    ArrayT,
    add_at_last,
    array_namespace,
    cast,
    cumsum_,
    empty_like_shape,
    int64_like,
    pack_kept,
    scatter_last,
    shifted_sum,
)
from . import keys
from .rows import StackedRows
from .rowsort import sort_values, sort_with_order

#: Bits of the int32 counters that count a group's windows, one bit field per row.
COUNTER_BITS = 31


class KeyLayout(NamedTuple):
    """How n-gram windows pack into int64 keys.

    Attributes:
        digit_bits: bits per token digit (the end marks 0 and 1, ranks ``2..W+1``).
        source_bits: bits for the segment's source number (hypotheses first).
        digits_per_key: how many tokens one key holds.
    """

    digit_bits: int
    source_bits: int
    digits_per_key: int


def key_layout(slots: int, sources: int) -> KeyLayout:
    """The packing for sentences of ``slots`` token slots in ``sources`` segments.

    Example:
        >>> key_layout(slots=2 * 60, sources=2)
        KeyLayout(digit_bits=7, source_bits=1, digits_per_key=8)
    """
    digit_bits = (slots + 1).bit_length()
    source_bits = (sources - 1).bit_length()
    digits_per_key = (keys.KEY_BITS - source_bits) // digit_bits
    if digits_per_key < 2:
        raise ValueError(f"rows too long for exact int64 n-gram keys ({slots} token slots per sentence); split them")
    return KeyLayout(digit_bits, source_bits, digits_per_key)


def _group_thresholds(layout: KeyLayout, key_digits: int, prefix_digits: range, like: ArrayT) -> ArrayT:
    """``(1, K, 1)`` thresholds: two keys of ``key_digits`` digits differ within their first
    ``prefix_digits[k]`` digits exactly when ``key ^ other >= thresholds[k]``."""
    shifts = (layout.source_bits + layout.digit_bits * (key_digits - prefix) for prefix in prefix_digits)
    return int64_like(((tuple((1 << shift,) for shift in shifts)),), like)


def _group_numbers(sorted_keys: ArrayT, thresholds: ArrayT) -> ArrayT:
    """``(B, K, W)``: the running number ``1, 2, ...`` of the group of each sorted key, per prefix length."""
    batch, slots = sorted_keys.shape
    starts = empty_like_shape(sorted_keys, (batch, thresholds.shape[1], slots))
    starts[..., :1] = 1
    change = (sorted_keys[:, 1:] ^ sorted_keys[:, :-1])[:, None]
    starts[..., 1:] = change >= thresholds
    return cumsum_(starts)


def _clipped_counts(group: ArrayT, source: ArrayT, sources: int, hypotheses: int, row_width: int) -> ArrayT:
    """``(B, hypotheses, K)``: per hypothesis and order, the sum over groups of ``min(H, max_r C_r)``.

    ``group`` ``(B, K, W)`` numbers the groups ``1..W`` of each order; ``source`` ``(B, W)`` says which
    row each sorted window comes from. A scatter-add counts the windows of each group, every row in
    its own bit field of an int32 counter (a row has at most ``row_width`` windows); rows that do not
    fit in :data:`COUNTER_BITS` take further passes. (int32 rather than int64 counters: half the
    memory traffic, which more than pays for the extra passes that several references need.) With
    one hypothesis and one reference, the scatter-add only needs ``H - C`` per group.
    """
    xp = array_namespace(group)
    size = group.shape[-1] + 1
    if sources == 2 and hypotheses == 1:  # min(H, C) = (H + C - |H - C|) / 2, and the H + C add up to W
        sign = cast(1 - 2 * source, xp.int32)  # +1 for a hypothesis window, -1 for a reference one
        balance = add_at_last(group, xp.broadcast_to(sign[:, None], group.shape), size)
        imbalance = cast(xp.abs(balance).sum(axis=-1, dtype=xp.int32), xp.int64)
        clipped: ArrayT = ((group.shape[-1] - imbalance) // 2)[:, None]
        return clipped
    field = row_width.bit_length()
    rows_per_pass = max(1, COUNTER_BITS // field)
    row_shift = cast(source * field, xp.int32)  # where each window's row field starts
    hypothesis_counts: list[ArrayT] = []
    best: ArrayT | None = None
    for first in range(0, sources, rows_per_pass):
        rows = min(rows_per_pass, sources - first)
        if rows == sources:
            unit = 1 << row_shift
        else:  # windows of rows outside this pass add nothing
            shift = row_shift - first * field
            in_pass = (shift >= 0) & (shift < rows * field)
            unit = cast(xp.where(in_pass, 1 << shift.clip(0, (rows - 1) * field), 0), xp.int32)
        counters = add_at_last(group, xp.broadcast_to(unit[:, None], group.shape), size)
        for row in range(first, first + rows):
            count = counters >> ((row - first) * field) if row > first else counters
            if row < first + rows - 1:
                count = count & ((1 << field) - 1)
            if row < hypotheses:
                hypothesis_counts.append(count)
            else:
                best = count if best is None else xp.maximum(best, count)
    assert best is not None  # at least one reference was counted
    clipped_sums = [xp.minimum(count, best).sum(axis=-1, dtype=xp.int32) for count in hypothesis_counts]
    stacked: ArrayT = xp.stack(clipped_sums, 1)
    return cast(stacked, xp.int64)


def sorted_key_matches(rows: StackedRows[ArrayT], max_order: int) -> ArrayT:
    """``(B, K, max_order)`` clipped matches of the ``K`` hypotheses of stacked rows (see the module docstring).

    Example:
        >>> import torch
        >>> tokens = torch.tensor([[[1, 2, 3, 4], [4, 3, 2, 1], [1, 2, 3, 5]]])  # two hypotheses, one reference
        >>> rows = StackedRows(tokens, None, torch.tensor([[4, 4, 4]]), hypotheses=2)
        >>> sorted_key_matches(rows, 2).tolist()
        [[[3, 2], [3, 0]]]
    """
    tokens = rows.tokens
    xp = array_namespace(tokens)
    batch, sources, width = tokens.shape
    slots = sources * width
    layout = key_layout(slots, sources)
    source = int64_like(tuple((row,) for row in range(sources)), tokens)  # (S, 1)
    end_marks = int64_like(tuple((int(row >= rows.hypotheses),) for row in range(sources)), tokens)

    token_ranks = keys.dense_ranks(tokens.reshape(batch, slots))[0].reshape(tokens.shape)
    token_ranks += 1  # digits from 2: 0 and 1 are the end marks
    # the kept tokens' digits, then end marks, far enough for the windows at every slot
    (digits,) = pack_kept(rows.keep, width + max_order, (token_ranks, end_marks))

    matches: list[ArrayT] = []
    counted = 0
    head, head_order = digits[..., :width], 1  # head: one digit standing for the head_order-gram at each slot
    while counted < max_order:
        extra = min(layout.digits_per_key - 1, max_order - head_order)
        key = head
        for offset in range(head_order, head_order + extra):
            key = shifted_sum(key, layout.digit_bits, digits[..., offset : offset + width])
        key = shifted_sum(key, layout.source_bits, source).reshape(batch, slots)
        last_stage = head_order + extra == max_order
        sorted_keys, key_order = (sort_values(key), None) if last_stage else sort_with_order(key)

        # this stage counts the orders after those already counted, up to head_order + extra; the
        # order-n prefix of a key is its first n - head_order + 1 digits
        orders = range(counted + 1, head_order + extra + 1)
        prefix_digits = range(orders.start - head_order + 1, orders.stop - head_order + 1)
        group = _group_numbers(sorted_keys, _group_thresholds(layout, extra + 1, prefix_digits, tokens))
        sorted_source = sorted_keys & ((1 << layout.source_bits) - 1)
        matches.append(_clipped_counts(group, sorted_source, sources, rows.hypotheses, width))
        counted = orders[-1]

        if key_order is not None:  # not the last stage: the longest n-gram's group number heads the next one's keys
            head = scatter_last(group[:, -1], key_order).reshape(tokens.shape)
            head_order = counted
    return matches[0] if len(matches) == 1 else xp.concatenate(matches, axis=-1)

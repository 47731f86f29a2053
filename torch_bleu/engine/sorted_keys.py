"""Clipped n-gram matches from one sort of packed n-gram keys per sentence: the default algorithm.

Within each sentence (one row of ``S = R + 1`` segments: hypothesis, then references):

1. **Digits.** Tokens get their dense rank ``2..W+1`` among the ``W = S * L`` slots of the sentence
   (one batched sort along the row), so any int64 id becomes a small *digit*. Past the end of a
   row the digit is an end mark: ``0`` in the hypothesis, ``1`` in a reference. The marks differ,
   so an n-gram that runs off the end of the hypothesis never equals a reference n-gram.
2. **Keys.** The window of ``D`` tokens starting at each slot becomes one int64: its digits side by
   side, then the segment's source number in the lowest bits. Sorting these keys sorts the windows
   lexicographically, so for *every* order ``n <= D`` the windows that share their first ``n``
   tokens (equal n-grams) end up next to each other: one sort serves all orders.
3. **Groups.** Two neighbours in sorted order start a new order-``n`` group when their keys differ
   within the first ``n`` digits, i.e. above the other ``D - n`` digits and the source bits: one
   compare of ``key_i ^ key_(i-1)`` per order. A running sum of group starts numbers the groups.
4. **Clipping.** One scatter-add counts each group's hypothesis windows ``H`` and each reference's
   windows ``C_r`` at once, every row in its own bit field of an int32 counter (with a single
   reference, just ``H - C``); the clipped matches of an order are the sum over its groups of
   ``min(H, max_r C_r)``.

Both sorts go through :mod:`~torch_bleu.engine.rowsort` (NumPy's vectorized sort on CPU).

When ``D`` digits do not cover ``max_order`` orders (very long rows or high orders), the work goes in
stages: the next stage's keys start with the group number of the previous stage's longest n-gram,
one more sort per stage. Memory and time are ``O(B * W * max_order)`` and ``O(B * W log W)``.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import torch
from torch import Tensor

from .rows import StackedRows, compact
from .rowsort import sort_values, sort_with_order

#: Bits a packed key may use (keys stay non-negative int64).
KEY_BITS = 63
#: Bits of the int32 counters that count a group's windows, one bit field per row.
COUNTER_BITS = 31


class KeyLayout(NamedTuple):
    """How n-gram windows pack into int64 keys.

    Attributes:
        digit_bits: bits per token digit (the end marks 0 and 1, ranks ``2..W+1``).
        source_bits: bits for the segment's source number (0 = hypothesis).
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
    digits_per_key = (KEY_BITS - source_bits) // digit_bits
    if digits_per_key < 2:
        raise ValueError(f"rows too long for exact int64 n-gram keys ({slots} token slots per sentence); split them")
    return KeyLayout(digit_bits, source_bits, digits_per_key)


@functools.lru_cache(maxsize=256)
def _constants(layout: KeyLayout, sources: int, device: torch.device) -> tuple[Tensor, Tensor]:
    """Per source row: its number and its end mark, as ``(S, 1)`` tensors (built once per layout)."""
    source = torch.arange(sources, device=device).view(sources, 1)
    return source, (source > 0).long()


@functools.lru_cache(maxsize=256)
def _group_thresholds(layout: KeyLayout, key_digits: int, prefix_digits: range, device: torch.device) -> Tensor:
    """``(1, K, 1)`` thresholds: two keys of ``key_digits`` digits differ within their first
    ``prefix_digits[k]`` digits exactly when ``key ^ other >= thresholds[k]``."""
    prefix = torch.arange(prefix_digits.start, prefix_digits.stop, device=device)
    return (1 << (layout.source_bits + layout.digit_bits * (key_digits - prefix))).view(1, -1, 1)


def _group_numbers(sorted_keys: Tensor, thresholds: Tensor) -> Tensor:
    """``(B, K, W)``: the running number ``1, 2, ...`` of the group of each sorted key, per prefix length."""
    starts = sorted_keys.new_empty(sorted_keys.shape[0], thresholds.shape[1], sorted_keys.shape[1])
    starts[..., :1] = 1
    change = (sorted_keys[:, 1:] ^ sorted_keys[:, :-1]).unsqueeze(1)
    starts[..., 1:] = change >= thresholds
    return starts.cumsum_(-1)


def _clipped_counts(group: Tensor, source: Tensor, sources: int, row_width: int) -> Tensor:
    """``(B, K)``: per order, the sum over groups of ``min(H, max_r C_r)``.

    ``group`` ``(B, K, W)`` numbers the groups ``1..W`` of each order; ``source`` ``(B, W)`` says which
    row each sorted window comes from. A scatter-add counts the windows of each group, every row in
    its own bit field of an int32 counter (a row has at most ``row_width`` windows); rows that do not
    fit in :data:`COUNTER_BITS` take further passes. (int32 rather than int64 counters: half the
    memory traffic, which more than pays for the extra passes that several references need.) With
    one reference, the scatter-add only needs ``H - C`` per group.
    """
    if sources == 2:  # one reference: min(H, C) = (H + C - |H - C|) / 2, and the H + C add up to W
        sign = torch.sub(1, source, alpha=2).to(torch.int32)  # +1 for a hypothesis window, -1 for a reference one
        balance = group.new_zeros(*group.shape[:-1], group.shape[-1] + 1, dtype=torch.int32)
        balance.scatter_add_(-1, group, sign.unsqueeze(1).expand(group.shape))
        return (group.shape[-1] - balance.abs().sum(-1, dtype=torch.int32).long()) // 2
    field = row_width.bit_length()
    rows_per_pass = max(1, COUNTER_BITS // field)
    one = torch.ones((), dtype=torch.int32, device=group.device)
    row_shift = (source * field).to(torch.int32)  # where each window's row field starts
    hypothesis: Tensor | None = None
    best: Tensor | None = None
    for first in range(0, sources, rows_per_pass):
        rows = min(rows_per_pass, sources - first)
        if rows == sources:
            unit = one << row_shift
        else:  # windows of rows outside this pass add nothing
            shift = row_shift - first * field
            unit = torch.where((shift >= 0) & (shift < rows * field), one << shift.clamp(0, (rows - 1) * field), 0)
        counters = group.new_zeros(*group.shape[:-1], group.shape[-1] + 1, dtype=torch.int32)
        counters.scatter_add_(-1, group, unit.unsqueeze(1).expand(group.shape))
        for row in range(first, first + rows):
            count = counters >> ((row - first) * field) if row > first else counters
            if row < first + rows - 1:
                count = count & ((1 << field) - 1)
            if row == 0:
                hypothesis = count
            else:
                best = count if best is None else torch.maximum(best, count)
    assert hypothesis is not None and best is not None  # row 0 and at least one reference were counted
    return torch.minimum(hypothesis, best).sum(-1, dtype=torch.int32).long()


def sorted_key_matches(rows: StackedRows, max_order: int) -> Tensor:
    """``(B, max_order)`` clipped matches of stacked rows (see the module docstring).

    Example:
        >>> from torch_bleu.engine.rows import stack_rows
        >>> sorted_key_matches(stack_rows(torch.tensor([[1, 2, 3, 4]]), torch.tensor([[[1, 2, 3, 5]]])), 4).tolist()
        [[3, 2, 1, 0]]
    """
    tokens = rows.tokens
    batch, sources, width = tokens.shape
    slots = sources * width
    layout = key_layout(slots, sources)
    source, end_marks = _constants(layout, sources, tokens.device)

    sorted_tokens, token_order = sort_with_order(tokens.view(batch, slots))
    sorted_ranks = torch.empty_like(token_order)  # 2 for the smallest id, +1 at each new id
    sorted_ranks[:, :1] = 2
    sorted_ranks[:, 1:] = sorted_tokens[:, 1:] != sorted_tokens[:, :-1]
    ranks = torch.empty_like(token_order).scatter_(1, token_order, sorted_ranks.cumsum_(-1)).view(tokens.shape)
    # the kept tokens' digits, then end marks; one more slot takes the dropped tokens, out of reach
    digits = compact(ranks, rows.keep, end_marks, width + max_order)

    matches: list[Tensor] = []
    counted = 0
    head, head_order = digits[..., :width], 1  # head: one digit standing for the head_order-gram at each slot
    while counted < max_order:
        extra = min(layout.digits_per_key - 1, max_order - head_order)
        key = head
        for offset in range(head_order, head_order + extra):
            key = torch.add(digits[..., offset : offset + width], key, alpha=1 << layout.digit_bits)
        key = torch.add(source, key, alpha=1 << layout.source_bits).view(batch, slots)
        last_stage = head_order + extra == max_order
        sorted_keys, key_order = (sort_values(key), None) if last_stage else sort_with_order(key)

        # this stage counts the orders after those already counted, up to head_order + extra; the
        # order-n prefix of a key is its first n - head_order + 1 digits
        orders = range(counted + 1, head_order + extra + 1)
        prefix_digits = range(orders.start - head_order + 1, orders.stop - head_order + 1)
        group = _group_numbers(sorted_keys, _group_thresholds(layout, extra + 1, prefix_digits, tokens.device))
        sorted_source = sorted_keys & ((1 << layout.source_bits) - 1)
        matches.append(_clipped_counts(group, sorted_source, sources, width))
        counted = orders[-1]

        if key_order is not None:  # not the last stage: the longest n-gram's group number heads the next one's keys
            head = torch.empty_like(key_order).scatter_(1, key_order, group[:, -1]).view(tokens.shape)
            head_order = counted
    return matches[0] if len(matches) == 1 else torch.cat(matches, 1)

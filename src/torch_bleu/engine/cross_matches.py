"""Clipped n-gram matches of every candidate against every reference of the same source, each row counted once.

The rows of all sources lie end to end in one stream (:class:`GroupedRows`): source ``s`` holds
``N_s`` candidate rows, then ``M_s`` reference rows. The n-grams of every row are numbered once per
order: equal n-grams of one source get one *group* (one sort per order, :func:`torch.unique`), and
each row's windows become counts per group. The clipped matches of a candidate ``a`` and a
reference ``b`` are ``sum_g min(a_g, b_g)``, and ``min(a, b) = sum_{k >= 1} [a >= k] [b >= k]``: with
one column per group and level ``k`` (as many levels as the smaller of the two sides' largest counts),
the indicator matrices ``A`` (``N x columns``) and ``B`` (``M x columns``) of a source give all its
``N x M`` matches as one product ``A @ B.T``, batched over sources (:func:`torch.bmm`).

Products run over blocks of sources and columns whose indicator matrices hold at most
:data:`BLOCK_CELLS` cells each, so memory stays bounded however many pairs there are. The float32
products are exact: every sum is a count of at most a row's windows, far below ``2**24``.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

#: The most cells of one block's candidate (or reference) indicator matrix: 64 MiB of float32.
BLOCK_CELLS = 1 << 24


class GroupedRows(NamedTuple):
    """Token rows of ``S`` sources, end to end: each source's candidates, then its references.

    Attributes:
        tokens: ``(T,)`` int64 non-negative token ids of all rows, one row after the other.
        lengths: ``(R,)`` int64 tokens of each row.
        candidates: ``(S,)`` int64 candidate rows of each source.
        references: ``(S,)`` int64 reference rows of each source; ``None``: the candidates are the
            references too (each row counted once).
    """

    tokens: Tensor
    lengths: Tensor
    candidates: Tensor
    references: Tensor | None


def cross_matches(rows: GroupedRows, max_order: int) -> Tensor:
    """``(S, N, M, max_order)`` int64 clipped matches of candidate ``i`` of source ``s`` in its reference
    ``j``, per order (``N``, ``M``: the most candidates and references of a source; 0 past a source's own).

    Example:
        >>> tokens, lengths = torch.tensor([1, 2, 2, 1, 2, 2]), torch.tensor([3, 1, 2])
        >>> rows = GroupedRows(tokens, lengths, candidates=torch.tensor([1]), references=torch.tensor([2]))
        >>> cross_matches(rows, 2).tolist()  # candidate "1 2 2" against "2" and "1 2"
        [[[[1, 0], [2, 1]]]]
        >>> shared = GroupedRows(torch.tensor([1, 2, 2, 1, 2]), torch.tensor([3, 2]), torch.tensor([2]), None)
        >>> cross_matches(shared, 1)[..., 0].tolist()  # "1 2 2" and "1 2", each against both
        [[[3, 2], [2, 2]]]
    """
    device = rows.tokens.device
    layout = _Layout(rows)
    matches = torch.zeros((layout.sources, layout.width, layout.height, max_order), dtype=torch.int64, device=device)
    if rows.tokens.shape[0] == 0 or layout.width == 0 or layout.height == 0:
        return matches
    token_row = torch.repeat_interleave(torch.arange(rows.lengths.shape[0], device=device), rows.lengths)
    vocabulary = int(rows.tokens.max()) + 1
    groups = torch.unique(layout.source[token_row] * vocabulary + rows.tokens, return_inverse=True)[1]
    for order in range(1, max_order + 1):
        if order > 1:  # the windows that still fit in their row, and their groups
            windows = token_row.shape[0] - order + 1
            inside = token_row[order - 1 :] == token_row[:windows]
            if not bool(inside.any()):
                break
            key = groups[:windows] * vocabulary + rows.tokens[order - 1 :]
            key = torch.cat([torch.where(inside, key, -1), key.new_full((1,), -1)])  # -1: past a row's end
            groups = torch.unique(key, return_inverse=True)[1][:-1] - 1
        matches[..., order - 1] = layout.matches(token_row[: groups.shape[0]], groups)
    return matches


class _Layout:
    """Where each row sits: its source, whether it is a reference, its number among its source's
    candidates or references; and the sizes of the result."""

    def __init__(self, rows: GroupedRows) -> None:
        device = rows.lengths.device
        self.shared = rows.references is None  # every row a candidate and a reference
        references = torch.zeros_like(rows.candidates) if rows.references is None else rows.references
        self.sources = rows.candidates.shape[0]
        per_source = rows.candidates + references
        self.source = torch.repeat_interleave(torch.arange(self.sources, device=device), per_source)
        local = (
            torch.arange(self.source.shape[0], device=device) - (torch.cumsum(per_source, 0) - per_source)[self.source]
        )
        self.is_reference = local >= rows.candidates[self.source]
        self.index = torch.where(self.is_reference, local - rows.candidates[self.source], local)
        self.width = int(rows.candidates.max()) if self.sources else 0
        self.height = self.width if rows.references is None else (int(references.max()) if self.sources else 0)

    def matches(self, row: Tensor, groups: Tensor) -> Tensor:
        """``(S, N, M)`` clipped matches of one order, from each window's row and group (``-1``: none)."""
        device = row.device
        counted = groups >= 0
        row, groups = row[counted], groups[counted]
        group_count = int(groups.max()) + 1 if groups.numel() else 0
        keys, where, count = torch.unique(row * group_count + groups, return_inverse=True, return_counts=True)
        one = torch.empty(keys.shape[0], dtype=torch.int64, device=device)
        one.scatter_(0, where, torch.arange(where.shape[0], device=device))  # a window of each (row, group)
        row, group = row[one], groups[one]
        reference = self.is_reference[row]
        # levels per group: the smaller of the largest counts on either side (0: on one side only)
        largest = torch.zeros((2 * group_count,), dtype=torch.int64, device=device)
        largest.scatter_reduce_(0, reference.long() * group_count + group, count, "amax")
        levels = largest[:group_count] if self.shared else torch.minimum(largest[:group_count], largest[group_count:])
        source = self.source[row]
        source_of_group = torch.zeros(group_count, dtype=torch.int64, device=device)
        source_of_group[group] = source
        column_end = torch.cumsum(levels, 0)
        before_source = torch.zeros(self.sources + 1, dtype=torch.int64, device=device)
        before_source.scatter_reduce_(0, source_of_group + 1, column_end, "amax")
        before_source = torch.cummax(before_source, 0).values
        # one cell per (row, group, level) holds 1 in the indicator matrices
        taken = torch.minimum(count, levels[group])
        entry = torch.repeat_interleave(torch.arange(taken.shape[0], device=device), taken)
        level = torch.arange(entry.shape[0], device=device) - (torch.cumsum(taken, 0) - taken)[entry]
        group, source = group[entry], source[entry]
        column = column_end[group] - levels[group] + level - before_source[source]
        cells = _Cells(source, self.index[row[entry]], column, before_source[1:] - before_source[:-1])
        if self.shared:
            return cells.products(cells, self.width, self.width)
        reference = reference[entry]
        return cells.where(~reference).products(cells.where(reference), self.width, self.height)


class _Cells(NamedTuple):
    """The cells that hold 1 in the indicator matrices of a side: ``(source, row, column)``, and the
    columns of each source."""

    source: Tensor
    row: Tensor
    column: Tensor
    columns: Tensor

    def where(self, chosen: Tensor) -> _Cells:
        return _Cells(self.source[chosen], self.row[chosen], self.column[chosen], self.columns)

    def products(self, other: _Cells, width: int, height: int) -> Tensor:
        """``(S, N, M)`` products of these indicator matrices with ``other``'s, block by block."""
        sources = self.columns.shape[0]
        result = torch.zeros((sources, width, height), dtype=torch.int64, device=self.source.device)
        widest = int(self.columns.max()) if sources else 0
        if widest == 0:
            return result
        source_block = max(1, min(sources, BLOCK_CELLS // (max(width, height) * widest)))
        column_block = max(1, min(widest, BLOCK_CELLS // (max(width, height) * source_block)))
        for first_source in range(0, sources, source_block):
            last_source = min(first_source + source_block, sources)
            for first_column in range(0, int(self.columns[first_source:last_source].max()), column_block):
                corner = (first_source, last_source, first_column, column_block)
                left = self._block(corner, width)
                right = left if other is self else other._block(corner, height)
                result[first_source:last_source] += torch.bmm(left, right.transpose(1, 2)).round().long()
        return result

    def _block(self, corner: tuple[int, int, int, int], rows: int) -> Tensor:
        """The ``(sources, rows, columns)`` float32 indicator block at ``corner``."""
        first_source, last_source, first_column, columns = corner
        block = torch.zeros((last_source - first_source, rows, columns), dtype=torch.float32, device=self.source.device)
        cells = self
        if (
            first_source > 0
            or last_source < self.columns.shape[0]
            or first_column > 0
            or columns < int(self.columns.max())
        ):
            chosen = (self.source >= first_source) & (self.source < last_source)
            cells = self.where(chosen & (self.column >= first_column) & (self.column < first_column + columns))
        flat = ((cells.source - first_source) * rows + cells.row) * columns + cells.column - first_column
        block.view(-1)[flat] = 1.0
        return block


def side_lengths(rows: GroupedRows) -> tuple[Tensor, Tensor, Tensor]:
    """``(S, N)`` candidate and ``(S, M)`` reference lengths (0 past a source's own), and the ``(S, N, M)``
    bool pairs that exist.

    Example:
        >>> tokens, lengths = torch.tensor([1, 2, 2]), torch.tensor([1, 2, 0])
        >>> rows = GroupedRows(tokens, lengths, candidates=torch.tensor([1, 0]), references=torch.tensor([1, 1]))
        >>> [value.tolist() for value in side_lengths(rows)]
        [[[1], [0]], [[2], [0]], [[[True]], [[False]]]]
    """
    references = torch.zeros_like(rows.candidates) if rows.references is None else rows.references
    first_row = torch.cumsum(rows.candidates + references, 0) - rows.candidates - references
    candidate_lengths, candidate_inside = _side(rows.lengths, rows.candidates, first_row)
    if rows.references is None:
        reference_lengths, reference_inside = candidate_lengths, candidate_inside
    else:
        reference_lengths, reference_inside = _side(rows.lengths, references, first_row + rows.candidates)
    return candidate_lengths, reference_lengths, candidate_inside[:, :, None] & reference_inside[:, None, :]


def _side(lengths: Tensor, count: Tensor, first_row: Tensor) -> tuple[Tensor, Tensor]:
    """The lengths of ``count`` rows of each source from its ``first_row`` on, padded with 0, and which exist."""
    index = torch.arange(int(count.max()) if count.numel() else 0, device=lengths.device)
    inside = index < count[:, None]
    row = torch.where(inside, first_row[:, None] + index, 0)
    return (torch.where(inside, lengths[row], 0) if lengths.numel() else row), inside

"""Clipped n-gram matches of every candidate against every reference of the same source, each row counted once.

The rows of all sources lie end to end in one stream (:class:`GroupedRows`): source ``s`` holds
``N_s`` candidate rows, then ``M_s`` reference rows. The n-grams of every row are numbered once per
order: equal n-grams of one source get one *group* (one sort per order, :func:`torch.unique`), and
each row's windows become counts per group. The clipped matches of a candidate ``a`` and a
reference ``b`` are ``sum_g min(a_g, b_g)``, and ``min(a, b) = sum_{k >= 1} [a >= k] [b >= k]``: with
one column per group and level ``k`` (as many levels as the smaller of the two sides' largest counts),
the indicator matrices ``A`` (``N x columns``) and ``B`` (``M x columns``) of a source give all its
``N x M`` matches as one product ``A @ B.T``, batched over sources (:func:`torch.bmm`).

Columns that few rows share (most columns of a large source: a 6-gram is in one or two of 1024
sentences) are counted pair by pair instead, 1 added to each pair of a candidate and a reference cell
of the column (:data:`SPARSE_FACTOR`); only the others go into products. Products run over blocks of
sources and columns whose indicator matrices hold at most :data:`BLOCK_CELLS` cells each, so memory
stays bounded however many pairs there are. The float32
products are exact: every sum is a count of at most a row's windows, far below ``2**24``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import torch
from torch import Tensor

#: The most cells of one block's candidate (or reference) indicator matrix: 64 MiB of float32.
BLOCK_CELLS = 1 << 24

#: A column whose pairs (its candidate cells times its reference cells), times this factor, are at most
#: a source's pairs is counted pair by pair rather than in the products.
SPARSE_FACTOR = 512

#: Sources of fewer pairs than this (``width * height``) count every column in the products: below
#: some 128 x 128 pairs, products of small matrices are quicker than adding pairs one by one (measured
#: on WMT17 lines: 4 x 64 x 64 pairwise chrF 36 ms in products, 44 ms pair by pair; 1 x 181 x 181 55 ms
#: and 36 ms).
SPARSE_MIN_PAIRS = 1 << 14

#: The most pairs of sparse columns counted at once (their temporaries: some 40 bytes each).
PAIR_BLOCK = 1 << 20


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
    layout = RowLayout(rows)
    matches = torch.zeros((layout.sources, layout.width, layout.height, max_order), dtype=torch.int64, device=device)
    if rows.tokens.shape[0] == 0 or layout.width == 0 or layout.height == 0:
        return matches
    for order, row, groups in numbered_ngrams(rows.tokens, rows.lengths, layout.source, max_order):
        matches[..., order - 1] = layout.matches(row, groups)
    return matches


def numbered_ngrams(
    tokens: Tensor, lengths: Tensor, source_of_row: Tensor, max_order: int
) -> Iterator[tuple[int, Tensor, Tensor]]:
    """Per order ``n`` (1, 2, ... up to ``max_order``, or to the last order some row is long enough for):
    ``(n, row, groups)``, the row of every window of ``n`` tokens and its *group*, equal n-grams of one
    source sharing a number (``-1``: a window that runs past its row's end).

    ``tokens`` ``(T,)`` are non-negative ids of rows of ``lengths`` ``(R,)``, end to end; ``source_of_row``
    ``(R,)`` their sources. Nothing is yielded when there is no token.

    Example:
        >>> tokens, lengths, source = torch.tensor([1, 2, 1, 2, 1, 2]), torch.tensor([2, 2, 2]), torch.tensor([0, 0, 1])
        >>> [(n, row.tolist(), groups.tolist()) for n, row, groups in numbered_ngrams(tokens, lengths, source, 2)]
        [(1, [0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 2, 3]), (2, [0, 0, 1, 1, 2], [0, -1, 0, -1, 1])]
    """
    if tokens.shape[0] == 0:
        return
    token_row = torch.repeat_interleave(torch.arange(lengths.shape[0], device=tokens.device), lengths)
    vocabulary = int(tokens.max()) + 1
    groups = torch.unique(source_of_row[token_row] * vocabulary + tokens, return_inverse=True)[1]
    for order in range(1, max_order + 1):
        if order > 1:  # the windows that still fit in their row, and their groups
            windows = token_row.shape[0] - order + 1
            inside = token_row[order - 1 :] == token_row[:windows]
            if not bool(inside.any()):
                break
            key = groups[:windows] * vocabulary + tokens[order - 1 :]
            key = torch.cat([torch.where(inside, key, -1), key.new_full((1,), -1)])  # -1: past a row's end
            groups = torch.unique(key, return_inverse=True)[1][:-1] - 1
        yield order, token_row[: groups.shape[0]], groups


def row_group_counts(row: Tensor, groups: Tensor) -> tuple[Tensor, Tensor, Tensor, int]:
    """``(row, group, count, groups)``: each ``(row, group)`` that windows hold (``group >= 0``) once, how
    many windows of the row the group has, and how many groups there are (one past the largest).

    Example:
        >>> row, group, count, number = row_group_counts(torch.tensor([0, 0, 0, 1]), torch.tensor([1, 1, -1, 1]))
        >>> row.tolist(), group.tolist(), count.tolist(), number
        ([0, 1], [1, 1], [2, 1], 2)
    """
    counted = groups >= 0
    row, groups = row[counted], groups[counted]
    group_count = int(groups.max()) + 1 if groups.numel() else 0
    keys, where, count = torch.unique(row * group_count + groups, return_inverse=True, return_counts=True)
    one = torch.empty(keys.shape[0], dtype=torch.int64, device=row.device)
    one.scatter_(0, where, torch.arange(where.shape[0], device=row.device))  # a window of each (row, group)
    return row[one], groups[one], count, group_count


class RowLayout:
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
        row, group, count, group_count = row_group_counts(row, groups)
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
        if sources == 0 or int(self.columns.max()) == 0:
            return result
        own, theirs = self._count_sparse(other, width, height, result)  # the dense columns are left
        widest = int(own.columns.max())
        if widest == 0:
            return result
        source_block = max(1, min(sources, BLOCK_CELLS // (max(width, height) * widest)))
        column_block = max(1, min(widest, BLOCK_CELLS // (max(width, height) * source_block)))
        for first_source in range(0, sources, source_block):
            last_source = min(first_source + source_block, sources)
            for first_column in range(0, int(own.columns[first_source:last_source].max()), column_block):
                corner = (first_source, last_source, first_column, column_block)
                left = own._block(corner, width)
                right = left if theirs is own else theirs._block(corner, height)
                result[first_source:last_source] += torch.bmm(left, right.transpose(1, 2)).round().long()
        return result

    def _count_sparse(self, other: _Cells, width: int, height: int, result: Tensor) -> tuple[_Cells, _Cells]:
        """Adds the products of the sparse columns to ``result``, pair by pair, and returns the dense columns'
        cells on either side (renumbered, in the same order; ``other`` is ``self`` where they are shared).

        A column is sparse where its candidate cells times its reference cells, the pairs it adds 1 to,
        are at most ``1 /`` :data:`SPARSE_FACTOR` of a source's ``width * height`` pairs: a product spends
        ``width * height`` multiply-adds on every column, however few of its cells hold 1, and adding 1 to
        a pair costs some hundreds of multiply-adds (512: the fastest of 32 to 2048 on 1024 WMT17 lines).
        """
        if width * height < SPARSE_MIN_PAIRS:  # small products cost less than adding pairs one by one
            return self, other
        device = self.source.device
        shared = other is self
        start = torch.cumsum(self.columns, 0) - self.columns
        total = int(self.columns.sum())
        own = start[self.source] + self.column
        theirs = own if shared else start[other.source] + other.column
        own_count = torch.bincount(own, minlength=total)
        their_count = own_count if shared else torch.bincount(theirs, minlength=total)
        pairs = own_count * their_count
        sparse = pairs * SPARSE_FACTOR <= width * height
        chosen = torch.nonzero(sparse & (pairs > 0))[:, 0]
        if chosen.numel():
            own_order = torch.argsort(own, stable=True)
            own_rows, own_first = self.row[own_order], torch.cumsum(own_count, 0) - own_count
            if shared:
                their_rows, their_first = own_rows, own_first
            else:
                their_order = torch.argsort(theirs, stable=True)
                their_rows, their_first = other.row[their_order], torch.cumsum(their_count, 0) - their_count
            column_source = torch.repeat_interleave(torch.arange(self.columns.shape[0], device=device), self.columns)
            flat = result.view(-1)
            ends = torch.cumsum(pairs[chosen], 0)
            first, done = 0, 0
            while first < chosen.shape[0]:  # blocks of columns of at most PAIR_BLOCK pairs (or one column)
                last = max(first + 1, int(torch.searchsorted(ends, done + PAIR_BLOCK, right=True)))
                done = int(ends[last - 1])
                columns = chosen[first:last]
                count = pairs[columns]
                column = torch.repeat_interleave(columns, count)
                local = torch.arange(column.shape[0], device=device) - torch.repeat_interleave(
                    torch.cumsum(count, 0) - count, count
                )
                across = their_count[column]
                own_row = own_rows[own_first[column] + local // across]
                their_row = their_rows[their_first[column] + local % across]
                key = (column_source[column] * width + own_row) * height + their_row
                flat.index_add_(0, key, torch.ones_like(key))
                first = last
        dense = ~sparse
        before = torch.cumsum(dense, 0) - dense.long()  # dense columns before each column
        up_to = torch.cat([before, before.new_full((1,), int(dense.sum()))])  # ... and before the end
        dense_start = up_to[start]
        dense_columns = up_to[start + self.columns] - dense_start

        def dense_cells(cells: _Cells, column: Tensor) -> _Cells:
            kept = dense[column]
            source = cells.source[kept]
            return _Cells(source, cells.row[kept], before[column[kept]] - dense_start[source], dense_columns)

        kept_own = dense_cells(self, own)
        return kept_own, kept_own if shared else dense_cells(other, theirs)

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

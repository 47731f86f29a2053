"""Hits, substitutions, deletions and insertions of token rows, exactly as jiwer counts them.

jiwer counts them from ``rapidfuzz.distance.Levenshtein.opcodes(reference, hypothesis)``, one sentence
at a time. rapidfuzz first sets aside the common prefix and then the common suffix (hits), computes the
edit distances ``D[i][j]`` of the rest (``i`` reference tokens against ``j`` hypothesis tokens) and walks
back from the end, choosing among alignments of equal cost by one rule (Hyyrö's bit-parallel
backtrace), at ``(i, j)``:

1. a deletion when ``D[i][j] == D[i - 1][j] + 1``;
2. otherwise, with ``j`` one less, an insertion when ``j > 0`` and ``D[i][j] == D[i - 1][j] - 1``;
3. otherwise a step along the diagonal (``i`` one less too): a hit or a substitution.

Once one side is used up, the rest of the other side is deleted or inserted. So the hypothesis
``"b c"`` against the reference ``"a b"`` is two substitutions, and ``"a b"`` against ``"b c"`` a hit, a
deletion and an insertion (both cost two edits).

Here every sentence of a batch is aligned at once, in three parts, with few sequential operations:

* :func:`distances`: the matrices of all sentences, one reference token (one row of every matrix) at
  a time, each row from the one above in a few operations: the best of a deletion and a diagonal
  step, then a running minimum along the row for the insertions;
* :func:`row_exits`: for every cell at once, where the walk back leaves that cell's row if it gets
  there: the insertions it takes along the row end at the last cell to its left (or itself) where
  the rule takes a deletion or a diagonal step, found by a running maximum;
* :func:`walk_rows`: the walks of all sentences, one row per step, one read per step.

Each sentence's reference tokens are the last rows of its matrix (the rows above them repeat row 0),
so that every walk starts in the last row and all take their steps together. The counts follow from
the move that leaves each row (hit, substitution or deletion) and the lengths. The matrices are laid
out ``(Lr + 1, Lh + 1, B)``, sentences innermost, so that each operation runs over contiguous rows of
the whole batch, in the narrowest integers that hold the values (8 bits for rows up to 61 tokens).

The arrays are NumPy arrays on the host (which spends a fraction of PyTorch's time per operation)
and tensors on an accelerator, where sizes follow from shapes only (no host sync; ``update`` works on
the ``meta`` device). Memory, per matrix cell (``B * (Lr + 1) * (Lh + 1)``, ``Lr`` and ``Lh`` the
widths of the rows after the common prefix and suffix): about 8 bytes at the peak for rows up to 61
tokens, 12 up to 16,000, and 8 more on an accelerator (PyTorch's running maximum returns int64
positions too). On the host, sentences of similar lengths are aligned together, at most
:data:`CELLS_PER_CHUNK` cells at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from ...arrays import Array, array_namespace, cast, is_tensor, sizes_from_data, to_host

#: Matrix cells aligned together on the host: enough to share each step's fixed work among many
#: sentences, few enough to stay in the CPU's caches.
CELLS_PER_CHUNK = 1 << 19
#: The kinds of move that leave a row (the low 2 bits of :func:`row_exits`' entries).
DELETION, HIT, SUBSTITUTION = 0, 1, 2


@dataclass(frozen=True)
class TokenRows:
    """Rows of tokens: ``lengths`` (int64) of them in ``values``, padded ``(B, L)`` rows (``starts`` None), or
    on the host one after another in a flat array, row ``b`` from ``starts[b]`` on. ``width``: as many
    tokens as a row may hold.

    Example:
        >>> rows = TokenRows.flat(np.array([5, 6, 7, 8]), np.array([1, 3]))   # rows [5] and [6, 7, 8]
        >>> rows.take(np.array([[0, 1]])).tolist()   # the first two tokens of each (any past its end)
        [[5, 6], [6, 7]]
    """

    values: Array
    lengths: Array
    starts: Array | None
    width: int

    @staticmethod
    def padded(values: Array, lengths: Array) -> TokenRows:
        """Rows ``(B, L)``, the first ``lengths`` tokens of each counting (flattened on the host)."""
        if sizes_from_data(values):
            values = to_host(values)
            starts = np.arange(values.shape[0]) * values.shape[1]
            return TokenRows(values.reshape(-1), to_host(lengths).astype(np.int64), starts, values.shape[1])
        return TokenRows(values, lengths.long(), None, values.shape[1])

    @staticmethod
    def flat(values: np.ndarray, lengths: np.ndarray) -> TokenRows:
        """Rows of ``lengths`` tokens each, one after another in 1-D ``values`` (host only)."""
        lengths = lengths.astype(np.int64)
        return TokenRows(values, lengths, np.cumsum(lengths) - lengths, int(lengths.max(initial=0)))

    def subset(self, chunk: np.ndarray | slice) -> TokenRows:
        """The rows ``chunk`` of rows on the host, as wide as the longest of them."""
        assert self.starts is not None  # padded rows are counted whole
        lengths = self.lengths[chunk]
        return TokenRows(self.values, lengths, self.starts[chunk], int(lengths.max(initial=0)))

    def take(self, positions: Array, transposed: bool = False) -> Array:
        """The tokens at ``positions`` ``(B, K)`` of each row (with ``transposed``: ``(K, B)``, one column per
        row), any token where that lies outside the row."""
        if self.starts is not None:
            index = positions + (self.starts if transposed else self.starts[:, None])
            return self.values.take(index.clip(min=0, max=max(self.values.shape[0] - 1, 0)), mode="clip")
        if not self.width:
            return torch.zeros(positions.shape, dtype=self.values.dtype, device=self.values.device)
        index = positions.clip(min=0, max=self.width - 1)
        if transposed:
            return self.values.gather(1, index.expand(-1, len(self)).T).T
        return self.values.gather(1, index.expand(len(self), -1))

    def __len__(self) -> int:
        return int(self.lengths.shape[0])


def error_counts(hyp: Tensor, hyp_lengths: Tensor, ref: Tensor, ref_lengths: Tensor) -> Tensor:
    """``(B, 4)`` int64 hits, substitutions, deletions and insertions of each hypothesis row ``(B, Lh)``
    (its first ``hyp_lengths`` tokens) against its reference row ``(B, Lr)`` (its first ``ref_lengths``),
    as jiwer counts them (rapidfuzz's alignment). CPU tensors are counted with NumPy.

    Example:
        >>> rows = torch.tensor([[1, 2, 0], [5, 6, 7]])
        >>> error_counts(rows[:1], torch.tensor([2]), torch.tensor([[0, 1, 9]]), torch.tensor([2])).tolist()
        [[0, 2, 0, 0]]
        >>> error_counts(rows, torch.tensor([2, 3]), torch.tensor([[1, 2], [5, 7]]), torch.tensor([2, 2])).tolist()
        [[2, 0, 0, 0], [2, 0, 0, 1]]
    """
    return rows_error_counts(TokenRows.padded(hyp, hyp_lengths), TokenRows.padded(ref, ref_lengths))


def rows_error_counts(hyp: TokenRows, ref: TokenRows) -> Tensor:
    """:func:`error_counts` of :class:`TokenRows`: on the host, sentences of similar lengths together, in
    chunks, each in matrices as wide as its longest rows need."""
    if ref.starts is None:
        counts: Tensor = pair_counts(hyp, ref)
        return counts
    out = np.empty((len(hyp), 4), dtype=np.int64)
    for chunk in _chunks(hyp.lengths, ref.lengths):
        out[chunk] = pair_counts(hyp.subset(chunk), ref.subset(chunk), trim=True)
    return torch.from_numpy(out)


def pair_counts(hyp: TokenRows, ref: TokenRows, trim: bool = False) -> Array:
    """:func:`error_counts` of :class:`TokenRows` of either kind, in matrices as wide as the rows (with
    ``trim``, as their longest middles, between the common prefix and suffix, need).

    Example:
        >>> rows = [TokenRows.flat(np.array(row), np.array([3])) for row in ([7, 1, 2], [7, 2, 1])]
        >>> pair_counts(*rows).tolist()   # "7 1 2" against "7 2 1"
        [[2, 0, 1, 1]]
    """
    prefix, suffix = common_affixes(hyp, ref)
    hyp_left, ref_left = hyp.lengths - prefix - suffix, ref.lengths - prefix - suffix
    hyp_width = int(hyp_left.max(initial=0)) if trim else hyp.width
    ref_width = int(ref_left.max(initial=0)) if trim else ref.width
    changed = _changes(_middle(ref, prefix - (ref_width - ref_left), ref_width), _middle(hyp, prefix, hyp_width))
    kinds = walk_rows(row_exits(distances(changed, ref_left), changed), hyp_left) & 3
    hits = (kinds == HIT).sum(0)
    substitutions = (kinds == SUBSTITUTION).sum(0)
    deletions = (kinds == DELETION).sum(0) - (ref_width - ref_left)  # less the rows above the sentence's
    insertions = hyp_left - hits - substitutions
    return array_namespace(hyp.lengths).stack([hits + prefix + suffix, substitutions, deletions, insertions], 1)


def common_affixes(hyp: TokenRows, ref: TokenRows) -> tuple[Array, Array]:
    """``(B,)`` lengths of each pair's common prefix, then of its common suffix in what the prefix leaves.

    Example:
        >>> hyp, ref = (TokenRows.flat(np.array(row), np.array([4])) for row in ([1, 2, 3, 4], [1, 5, 3, 4]))
        >>> [lengths.tolist() for lengths in common_affixes(hyp, ref)]
        [[1], [2]]
    """
    shorter = array_namespace(hyp.lengths).minimum(hyp.lengths, ref.lengths)
    column = _arange(min(hyp.width, ref.width), hyp.lengths)
    same = (hyp.take(column[None, :]) == ref.take(column[None, :])) & (column < shorter[:, None])
    prefix = _leading_true(same)
    same_back = _from_end(hyp, column) == _from_end(ref, column)
    same_back &= column < (shorter - prefix)[:, None]
    return prefix, _leading_true(same_back)


def _leading_true(mask: Array) -> Array:
    """``(B,)`` int64: how many entries at the start of each row of ``(B, W)`` ``mask`` hold."""
    xp = array_namespace(mask)
    if not mask.shape[1]:
        return _zeros((mask.shape[0],), xp.int64, mask)
    first_false = cast(cast(~mask, xp.uint8).argmax(-1), xp.int64)
    return xp.where(mask.all(-1), mask.shape[1], first_false)


def _from_end(rows: TokenRows, column: Array) -> Array:
    """Each row's tokens from its last one backwards, at the positions ``column`` (any past its start)."""
    return rows.take(rows.lengths[:, None] - 1 - column)


def _middle(rows: TokenRows, start: Array, width: int) -> Array:
    """``(width, B)``: ``width`` tokens of each row from position ``start`` on, one column per sentence (any
    token where that lies outside the row)."""
    return rows.take(_arange(width, rows.lengths)[:, None] + start, transposed=True)


def distances(changed: Array, ref_lengths: Array) -> Array:
    """``(Lr + 1, Lh + 1, B)``: ``D[i][j] - i - j`` for the edit distance ``D[i][j]`` of the first ``i``
    reference tokens against the first ``j`` hypothesis tokens, of ``changed`` ``(Lr, Lh, B)`` (whether
    reference token ``i`` differs from hypothesis token ``j``), in the narrowest integers that hold them
    (``-2 * min(i, j) <= D[i][j] - i - j <= -min(i, j)``).

    Each sentence's ``ref_lengths`` tokens are the last rows of ``changed``: the rows above them keep
    the values of row 0 (all 0), as if the sentence started there.

    Row ``i`` from row ``i - 1`` (``G`` for ``D - i - j``): ``G[i][j] = min(G[i - 1][j], G[i - 1][j - 1]
    + changed - 2, G[i][j - 1])`` and ``G[i][0] = 0``: the best of a deletion and a diagonal step, then a
    running minimum along the row for the insertions.

    Example:
        >>> changed = _changes(np.array([[2], [1]]), np.array([[1], [2]]))   # reference "2 1", hypothesis "1 2"
        >>> grid = distances(changed, np.array([2]))[..., 0]
        >>> (grid + np.arange(3)[:, None] + np.arange(3)).tolist()   # edit distances
        [[0, 1, 2], [1, 1, 1], [2, 1, 2]]
    """
    xp = array_namespace(changed)
    ref_width, hyp_width, batch = changed.shape
    shorter = min(hyp_width, ref_width)
    dtype = xp.int8 if 2 * shorter + 4 < 2**7 else xp.int16 if 2 * shorter + 4 < 2**15 else xp.int32
    step = cast(changed, dtype) - 2  # a diagonal step's change of G; 0 above the sentence's rows
    step *= (_arange(ref_width, changed)[:, None] >= ref_width - ref_lengths)[:, None, :]
    grid = _zeros((ref_width + 1, hyp_width + 1, batch), dtype, changed)
    scan = _RowScan(grid)
    best = scan.row[1:]  # scan.row[0] stays 0: G[i][0]
    for i in range(1, ref_width + 1):
        above = grid[i - 1]
        xp.add(above[:-1], step[i - 1], out=best)
        xp.minimum(best, above[1:], out=best)
        scan.running_min(out=grid[i])
    return grid


class _RowScan:
    """The running minimum along a row ``(W, B)`` of the matrices ``(R, W, B)``: PyTorch's ``cummin``; on
    NumPy, by doubling (``log2(W)`` minima of shifted rows, the first rows padded with the largest
    value), as ``minimum.accumulate`` reads one element at a time (3 to 4 ns each).

    Example:
        >>> scan = _RowScan(np.zeros((1, 5, 1), dtype=np.int8))
        >>> scan.row[:, 0] = [3, 1, 2, 0, 4]
        >>> out = np.empty((5, 1), dtype=np.int8)
        >>> scan.running_min(out)
        >>> out[:, 0].tolist()
        [3, 1, 1, 0, 0]
    """

    def __init__(self, grid: Array) -> None:
        """Scratch rows for the rows of ``grid``, of its kind, dtype and device."""
        width, batch = grid.shape[1:]
        self.row: Array
        self.indices: Tensor | None = None
        if is_tensor(grid):
            self.row = torch.zeros((width, batch), dtype=grid.dtype, device=grid.device)
            self.indices = torch.empty((width, batch), dtype=torch.int64, device=grid.device)
            return
        pad = 1 << max(width - 1, 0).bit_length() >> 1  # the largest shift, below the width
        buffers = [np.zeros((pad + width, batch), dtype=grid.dtype) for _ in range(2)]
        for buffer in buffers:
            buffer[:pad] = np.iinfo(grid.dtype).max
        #: The row to scan, to fill in before :meth:`running_min` (its first entry, 0, stays in both
        #: buffers: the padding only ever adds larger values).
        self.row = buffers[0][pad:]
        #: Per doubling step, the rows it reads and the row it writes (the last: ``out``).
        self.steps: list[tuple[Array, Array, Array]] = []
        shift = 1
        while shift <= pad:
            source, target = buffers[len(self.steps) % 2], buffers[1 - len(self.steps) % 2]
            self.steps.append((source[pad:], source[pad - shift : pad + width - shift], target[pad:]))
            shift *= 2

    def running_min(self, out: Array) -> None:
        """``out[j] = min(row[: j + 1])``; the row is left to be filled in again."""
        if self.indices is not None:
            torch.cummin(self.row, 0, out=(out, self.indices))
            return
        if not self.steps:
            out[...] = self.row
            return
        for values, shifted, target in self.steps[:-1]:
            np.minimum(values, shifted, out=target)
        values, shifted, _ = self.steps[-1]
        np.minimum(values, shifted, out=out)


def row_exits(grid: Array, changed: Array) -> Array:
    """``(Lr, Lh + 1, B)``: for every cell of rows ``1 .. Lr`` of :func:`distances`' ``grid``, where the walk
    back leaves the cell's row after reaching it: the next row's column times 4, plus the kind of move,
    :data:`DELETION`, :data:`HIT` or :data:`SUBSTITUTION` (``changed`` tells the last two apart), in the
    narrowest integers that hold them.

    In ``G = D - i - j`` terms, the rule takes a deletion where ``G[i][j] == G[i - 1][j]``, an insertion
    where not and ``G[i][j - 1] == G[i - 1][j - 1] - 2`` (``j >= 2``), a diagonal step elsewhere. From
    cell ``j`` the insertions run left to the last cell ``e <= j`` that is no insertion, which leaves the
    row, to column ``e`` (a deletion) or ``e - 1``. The next row's column never decreases along a row, so
    the last exit's is the largest: a running maximum. (Where a deletion at ``e`` and a diagonal step at
    ``e + 1`` lead to the same column, the diagonal's kind is the larger.)

    Example:
        >>> changed = _changes(np.array([[2], [1]]), np.array([[1], [2]]))   # reference "2 1", hypothesis "1 2"
        >>> exits = row_exits(distances(changed, np.array([2])), changed)[..., 0]
        >>> (exits[1, 2] >> 2).item(), (exits[1, 2] & 3).item()   # from (2, 2): a deletion, to (1, 2)
        (2, 0)
    """
    xp = array_namespace(grid)
    ref_width, hyp_cells = grid.shape[0] - 1, grid.shape[1]
    dtype = xp.uint8 if 4 * hyp_cells <= 2**8 else xp.int16 if 4 * hyp_cells < 2**15 else xp.int32
    rise = grid[:-1] - grid[1:]  # 0: a deletion; 2: D one less than above
    deleted = rise == 0
    leaves = _copy(deleted)
    leaves[:, :2] = True
    leaves[:, 2:] |= rise[:, 1:-1] != 2
    # a deletion to column j: 4 j; a diagonal step to column j - 1: 4 j - 3 + changed
    exits = cast(deleted, dtype)
    exits *= 3
    exits[:, 1:] += cast(changed & ~deleted[:, 1:], dtype)
    exits += cast((4 * _arange(hyp_cells, grid) - 3).clip(min=0), dtype)[:, None]
    exits[:, 0] = 0  # always a deletion
    exits *= leaves
    return _running_max_along_rows(exits) if ref_width else exits


def _changes(ref: Array, hyp: Array) -> Array:
    """``(Lr, Lh, B)``: whether each token of ``ref`` ``(Lr, B)`` differs from each of ``hyp`` ``(Lh, B)``."""
    return ref[:, None, :] != hyp[None, :, :]


def walk_rows(exits: Array, hyp_lengths: Array) -> Array:
    """``(Lr, B)``: the entries of :func:`row_exits` that each sentence's walk back reads, one row per step,
    from its last cell ``(Lr, hyp_lengths)`` up (deletions above its rows).

    Example:
        >>> changed = _changes(np.array([[2], [1]]), np.array([[1], [2]]))   # reference "2 1", hypothesis "1 2"
        >>> exits = row_exits(distances(changed, np.array([2])), changed)
        >>> (walk_rows(exits, np.array([2])) & 3).ravel().tolist()   # a deletion, then a hit
        [0, 1]
    """
    ref_width, hyp_cells, batch = exits.shape
    rows = exits.reshape(ref_width, hyp_cells * batch)
    read = _empty((ref_width, batch), exits.dtype, exits)
    take = torch.take if is_tensor(exits) else _take_unchecked
    cells_of = _cell_reader(exits)
    cells = cells_of(hyp_lengths * 4)
    for step in range(ref_width):
        take(rows[ref_width - 1 - step], cells, out=read[step])
        cells = cells_of(read[step])
    return read


def _take_unchecked(values: np.ndarray, index: np.ndarray, out: np.ndarray) -> None:
    """``out[k] = values[index[k]]`` for indices known to lie inside ``values`` (NumPy's ``take`` writes to
    ``out`` through a copy where it checks them)."""
    values.take(index, out=out, mode="clip")


def _cell_reader(exits: Array) -> Callable[[Array], Array]:
    """A function from ``(B,)`` entries of :func:`row_exits` to the cells they lead to in a row of the
    matrices, ``column * B + sentence`` (int64; NumPy: in one buffer, through a table of columns)."""
    batch = exits.shape[2]
    if is_tensor(exits):
        sentences = torch.arange(batch, device=exits.device)
        return lambda entries: torch.add(sentences, (entries >> 2).long(), alpha=batch)
    sentence = np.arange(batch)
    columns = (np.arange(4 * exits.shape[1]) >> 2) * batch  # every entry's column, times B
    cells = np.empty(batch, dtype=np.int64)

    def cells_of(entries: np.ndarray) -> np.ndarray:
        columns.take(entries, out=cells, mode="clip")
        return np.add(cells, sentence, out=cells)

    return cells_of


def _running_max_along_rows(values: Array) -> Array:
    """The running maximum along the second axis of ``(R, W, B)`` ``values`` (which it may overwrite)."""
    if is_tensor(values):
        return values.cummax(1).values
    # by doubling, between two buffers: NumPy's running maximum reads one element at a time
    spare, width, span = np.empty_like(values), values.shape[1], 1
    while span < width:
        spare[:, :span] = values[:, :span]
        np.maximum(values[:, span:], values[:, :-span], out=spare[:, span:])
        values, spare, span = spare, values, 2 * span
    return values


def _arange(stop: int, like: Array, dtype: Any = None) -> Array:
    """``0 .. stop - 1`` of ``like``'s kind and device (int64 unless ``dtype`` is given)."""
    if is_tensor(like):
        return torch.arange(stop, device=like.device, dtype=dtype or torch.int64)
    return np.arange(stop, dtype=dtype or np.int64)


def _copy(array: Array) -> Array:
    """A copy of ``array``, of its kind and on its device."""
    return array.clone() if is_tensor(array) else array.copy()


def _zeros(shape: tuple[int, ...], dtype: Any, like: Array) -> Array:
    """Zeros of ``shape`` and ``dtype``, of ``like``'s kind and device."""
    if is_tensor(like):
        return torch.zeros(shape, dtype=dtype, device=like.device)
    return np.zeros(shape, dtype=dtype)


def _empty(shape: tuple[int, ...], dtype: Any, like: Array) -> Array:
    """An uninitialized array of ``shape`` and ``dtype``, of ``like``'s kind and device."""
    if is_tensor(like):
        return torch.empty(shape, dtype=dtype, device=like.device)
    return np.empty(shape, dtype=dtype)


def _chunks(hyp_lengths: np.ndarray, ref_lengths: np.ndarray) -> list[np.ndarray] | list[slice]:
    """Sentences (indices) of similar lengths, at most :data:`CELLS_PER_CHUNK` matrix cells each chunk
    (all of them at once, in their order, where they fit)."""
    batch = hyp_lengths.shape[0]
    if not batch or (int(hyp_lengths.max()) + 1) * (int(ref_lengths.max()) + 1) * batch <= CELLS_PER_CHUNK:
        return [slice(None)]
    order = np.argsort(ref_lengths * (1 << 32) + hyp_lengths, kind="stable")
    chunks, start = [], 0
    while start < batch:
        # the last sentence of a chunk has its largest lengths: chunk by the running maxima
        ref_max = np.maximum.accumulate(ref_lengths[order[start:]]) + 1
        hyp_max = np.maximum.accumulate(hyp_lengths[order[start:]]) + 1
        size = ref_max * hyp_max * np.arange(1, batch - start + 1)
        stop = start + max(1, int((size <= CELLS_PER_CHUNK).sum()))
        chunks.append(order[start:stop])
        start = stop
    return chunks

"""Hits, substitutions, deletions and insertions of padded token rows on a device, as jiwer counts them.

jiwer counts them from ``rapidfuzz.distance.Levenshtein.opcodes(reference, hypothesis)``, one sentence
at a time (the host asks rapidfuzz itself, :mod:`.host_alignment`). rapidfuzz first sets aside the
common prefix and then the common suffix (hits), computes the edit distances ``D[i][j]`` of the rest
(``i`` reference tokens against ``j`` hypothesis tokens) and walks back from the end, choosing among
alignments of equal cost by one rule (Hyyrö's bit-parallel backtrace), at ``(i, j)``:

1. a deletion when ``D[i][j] == D[i - 1][j] + 1``;
2. otherwise, with ``j`` one less, an insertion when ``j > 0`` and ``D[i][j] == D[i - 1][j] - 1``;
3. otherwise a step along the diagonal (``i`` one less too): a hit or a substitution.

Once one side is used up, the rest of the other side is deleted or inserted. So the hypothesis
``"b c"`` against the reference ``"a b"`` is two substitutions, and ``"a b"`` against ``"b c"`` a hit, a
deletion and an insertion (both cost two edits). Long rows are first cut in two, and each half aligned
by the same rules (:mod:`.device_splits`).

Every sentence of a batch is aligned at once, in three parts, with few sequential operations:

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

On a GPU (or with ``TORCH_BLEU_KERNELS=triton``, :mod:`torch_bleu.kernels`) the same rule runs as one
Triton kernel instead (:mod:`.triton_alignment`, chosen in :mod:`.device_splits`): each pair's rows of
``G`` one after another inside one program, the running minimum and the row exits as above, but the
walk back folded into the forward pass (the hits and substitutions of the walk from every cell of a
row follow from those of the cell it exits to), so that no matrix is stored: a few rows per pair.

Sizes follow from shapes only (no host sync; ``update`` works on the ``meta`` device). Memory, per
matrix cell (``B * (Lr + 1) * (Lh + 1)``, ``Lr`` and ``Lh`` the widths of the reference and of the
hypothesis rows): about 17 bytes at the peak for rows up to 61 tokens, 19 for longer ones (measured
on CPU tensors; PyTorch's running maximum returns int64 positions beside the values).
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

#: The kinds of move that leave a row (the low 2 bits of :func:`row_exits`' entries).
DELETION, HIT, SUBSTITUTION = 0, 1, 2


class Middles(NamedTuple):
    """What is left of each pair of rows between its common prefix and suffix, laid out for
    :func:`distances`: ``ref`` ``(Lr, B)`` with each pair's tokens in its last ``ref_left`` rows, ``hyp``
    ``(Lh, B)`` with its tokens in the first ``hyp_left`` rows (any token elsewhere)."""

    prefix: Tensor
    suffix: Tensor
    ref_left: Tensor
    hyp_left: Tensor
    ref: Tensor
    hyp: Tensor

    def reversed(self) -> Middles:
        """The same middles, each read from its end (for the distances of their suffixes)."""
        ref_width, hyp_width = self.ref.shape[0], self.hyp.shape[0]
        ref_rows = (ref_width - 1 - torch.arange(ref_width, device=self.ref.device))[:, None] + ref_width
        ref_rows = ref_rows - self.ref_left  # row r of the reversed: row (2 Lr - 1 - r - ref_left) of the middle
        hyp_rows = self.hyp_left - 1 - torch.arange(hyp_width, device=self.hyp.device)[:, None]
        return self._replace(ref=_take_rows(self.ref, ref_rows), hyp=_take_rows(self.hyp, hyp_rows))


def middles(hyp: Tensor, hyp_lengths: Tensor, ref: Tensor, ref_lengths: Tensor) -> Middles:
    """The :class:`Middles` of rows ``(B, Lh)`` and ``(B, Lr)`` of ``lengths`` tokens each."""
    prefix, suffix = common_affixes(hyp, hyp_lengths, ref, ref_lengths)
    hyp_left, ref_left = hyp_lengths - prefix - suffix, ref_lengths - prefix - suffix
    ref_width, hyp_width = ref.shape[1], hyp.shape[1]
    ref_middle = _take(ref, torch.arange(ref_width, device=ref.device) + (prefix - (ref_width - ref_left))[:, None])
    hyp_middle = _take(hyp, torch.arange(hyp_width, device=hyp.device) + prefix[:, None])
    return Middles(prefix, suffix, ref_left, hyp_left, ref_middle.T, hyp_middle.T)


def middle_counts(middle: Middles, grid: Tensor | None = None) -> Tensor:
    """``(B, 4)`` int64 counts of each pair whose :class:`Middles` are given (``grid``: their
    :func:`distances`, when computed already).

    Example:
        >>> rows = torch.tensor([[7, 1, 2]]), torch.tensor([[7, 2, 1]])   # "7 1 2" against "7 2 1"
        >>> middle_counts(middles(rows[0], torch.tensor([3]), rows[1], torch.tensor([3]))).tolist()
        [[2, 0, 1, 1]]
    """
    changed = _changes(middle.ref, middle.hyp)
    if grid is None:
        grid = distances(changed, middle.ref_left)
    ref_width = changed.shape[0]
    kinds = walk_rows(row_exits(grid, changed), middle.hyp_left) & 3
    hits = (kinds == HIT).sum(0)
    substitutions = (kinds == SUBSTITUTION).sum(0)
    deletions = (kinds == DELETION).sum(0) - (ref_width - middle.ref_left)  # less the rows above the sentence's
    insertions = middle.hyp_left - hits - substitutions
    return torch.stack([hits + middle.prefix + middle.suffix, substitutions, deletions, insertions], 1)


def common_affixes(hyp: Tensor, hyp_lengths: Tensor, ref: Tensor, ref_lengths: Tensor) -> tuple[Tensor, Tensor]:
    """``(B,)`` lengths of each pair's common prefix, then of its common suffix in what the prefix leaves.

    Example:
        >>> hyp, ref, lengths = torch.tensor([[1, 2, 3, 4]]), torch.tensor([[1, 5, 3, 4]]), torch.tensor([4])
        >>> [affix.tolist() for affix in common_affixes(hyp, lengths, ref, lengths)]
        [[1], [2]]
    """
    shorter = torch.minimum(hyp_lengths, ref_lengths)
    column = torch.arange(min(hyp.shape[1], ref.shape[1]), device=hyp.device)[None, :]
    same = (_take(hyp, column) == _take(ref, column)) & (column < shorter[:, None])
    prefix = _leading_true(same)
    same_back = _take(hyp, hyp_lengths[:, None] - 1 - column) == _take(ref, ref_lengths[:, None] - 1 - column)
    same_back &= column < (shorter - prefix)[:, None]
    return prefix, _leading_true(same_back)


def _leading_true(mask: Tensor) -> Tensor:
    """``(B,)`` int64: how many entries at the start of each row of ``(B, W)`` ``mask`` hold."""
    if not mask.shape[1]:
        return torch.zeros(mask.shape[0], dtype=torch.int64, device=mask.device)
    return torch.where(mask.all(-1), mask.shape[1], (~mask).to(torch.uint8).argmax(-1))


def _take(rows: Tensor, positions: Tensor) -> Tensor:
    """The tokens at ``positions`` ``(B, K)`` (or ``(1, K)``) of each row of ``rows`` ``(B, L)``, any token
    where that lies outside the row."""
    if not rows.shape[1]:
        return torch.zeros((rows.shape[0], positions.shape[1]), dtype=rows.dtype, device=rows.device)
    index = positions.clip(min=0, max=rows.shape[1] - 1)
    return rows.gather(1, index.expand(rows.shape[0], -1))


def _take_rows(rows: Tensor, positions: Tensor) -> Tensor:
    """``(K, B)``: the entries at ``positions`` ``(K, B)`` of each column of ``rows`` ``(L, B)``, any entry
    where that lies outside it."""
    return _take(rows.T, positions.T).T


def distances(changed: Tensor, ref_lengths: Tensor) -> Tensor:
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
        >>> changed = _changes(torch.tensor([[2], [1]]), torch.tensor([[1], [2]]))   # reference "2 1", hypothesis "1 2"
        >>> grid = distances(changed, torch.tensor([2]))[..., 0]
        >>> (grid + torch.arange(3)[:, None] + torch.arange(3)).tolist()   # edit distances
        [[0, 1, 2], [1, 1, 1], [2, 1, 2]]
    """
    ref_width, hyp_width, batch = changed.shape
    shorter = min(hyp_width, ref_width)
    dtype = torch.int8 if 2 * shorter + 4 < 2**7 else torch.int16 if 2 * shorter + 4 < 2**15 else torch.int32
    step = changed.to(dtype) - 2  # a diagonal step's change of G; 0 above the sentence's rows
    step *= (torch.arange(ref_width, device=changed.device)[:, None] >= ref_width - ref_lengths)[:, None, :]
    grid = torch.zeros((ref_width + 1, hyp_width + 1, batch), dtype=dtype, device=changed.device)
    best = torch.zeros((hyp_width + 1, batch), dtype=dtype, device=changed.device)  # best[0] stays 0: G[i][0]
    positions = torch.empty((hyp_width + 1, batch), dtype=torch.int64, device=changed.device)
    for i in range(1, ref_width + 1):
        above = grid[i - 1]
        torch.add(above[:-1], step[i - 1], out=best[1:])
        torch.minimum(best[1:], above[1:], out=best[1:])
        torch.cummin(best, 0, out=(grid[i], positions))
    return grid


def row_exits(grid: Tensor, changed: Tensor) -> Tensor:
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
        >>> changed = _changes(torch.tensor([[2], [1]]), torch.tensor([[1], [2]]))   # reference "2 1", hypothesis "1 2"
        >>> exits = row_exits(distances(changed, torch.tensor([2])), changed)[..., 0]
        >>> (exits[1, 2] >> 2).item(), (exits[1, 2] & 3).item()   # from (2, 2): a deletion, to (1, 2)
        (2, 0)
    """
    ref_width, hyp_cells = grid.shape[0] - 1, grid.shape[1]
    dtype = torch.uint8 if 4 * hyp_cells <= 2**8 else torch.int16 if 4 * hyp_cells < 2**15 else torch.int32
    rise = grid[:-1] - grid[1:]  # 0: a deletion; 2: D one less than above
    deleted = rise == 0
    leaves = deleted.clone()
    leaves[:, :2] = True
    leaves[:, 2:] |= rise[:, 1:-1] != 2
    # a deletion to column j: 4 j; a diagonal step to column j - 1: 4 j - 3 + changed
    exits = deleted.to(dtype)
    exits *= 3
    exits[:, 1:] += (changed & ~deleted[:, 1:]).to(dtype)
    exits += (4 * torch.arange(hyp_cells, device=grid.device) - 3).clip(min=0).to(dtype)[:, None]
    exits[:, 0] = 0  # always a deletion
    exits *= leaves
    return exits.cummax(1).values if ref_width else exits


def _changes(ref: Tensor, hyp: Tensor) -> Tensor:
    """``(Lr, Lh, B)``: whether each token of ``ref`` ``(Lr, B)`` differs from each of ``hyp`` ``(Lh, B)``."""
    return ref[:, None, :] != hyp[None, :, :]


def walk_rows(exits: Tensor, hyp_lengths: Tensor) -> Tensor:
    """``(Lr, B)``: the entries of :func:`row_exits` that each sentence's walk back reads, one row per step,
    from its last cell ``(Lr, hyp_lengths)`` up (deletions above its rows).

    Example:
        >>> changed = _changes(torch.tensor([[2], [1]]), torch.tensor([[1], [2]]))   # reference "2 1", hypothesis "1 2"
        >>> exits = row_exits(distances(changed, torch.tensor([2])), changed)
        >>> (walk_rows(exits, torch.tensor([2])) & 3).ravel().tolist()   # a deletion, then a hit
        [0, 1]
    """
    ref_width, hyp_cells, batch = exits.shape
    rows = exits.reshape(ref_width, hyp_cells * batch)
    read = torch.empty((ref_width, batch), dtype=exits.dtype, device=exits.device)
    sentences = torch.arange(batch, device=exits.device)
    cells = torch.add(sentences, hyp_lengths, alpha=batch)
    for step in range(ref_width):
        torch.take(rows[ref_width - 1 - step], cells, out=read[step])
        cells = torch.add(sentences, (read[step] >> 2).long(), alpha=batch)
    return read

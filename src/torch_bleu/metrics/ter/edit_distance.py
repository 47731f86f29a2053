"""sacrebleu's beam edit distance for many hypotheses at once, row by row, with the edit of every cell.

The matrix of a hypothesis of ``n`` words against a reference of ``m`` words has rows ``0 .. n``
(hypothesis words read) and columns ``0 .. m`` (reference words read); every edit costs 1. A cell is
reached from its diagonal neighbour (the words match, or a substitution), from above (a hypothesis
word deleted) or from the left (a reference word inserted), preferred in that order when they cost
the same, as sacrebleu's loop prefers them; cells outside the beam (:mod:`.band`) are unreachable.

Many *lines* are computed together: each is a hypothesis (of some pair) whose rows ``1 .. start``
are already known and rows ``start + 1 .. n`` are to be computed. Lines lie in one flat array, a
line's columns side by side, longest work first, so the lines still at work at a step are a prefix:
a step is a handful of array operations over the cells of one row of every such line, the run of
insertions along a row a running minimum (each line's cells offset below the previous line's so
that the minimum restarts at every line).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .band import Band, band

#: The edit that reaches a cell, as a code: both words (a match or a substitution), a hypothesis word
#: (deleted), a reference word (inserted: bit 1, whatever bit 0 holds), or none (the origin).
DIAGONAL, HYPOTHESIS_WORD, REFERENCE_WORD, ORIGIN = 0, 1, 2, 4
#: Whether each code reads a hypothesis word, and a reference word.
_READS_HYPOTHESIS = np.array([1, 1, 0, 0, 0], dtype=np.int64)
_READS_REFERENCE = np.array([1, 0, 1, 1, 0], dtype=np.int64)
#: The least int32 and int64, by size.
_LEAST = {4: np.iinfo(np.int32).min, 8: np.iinfo(np.int64).min}


class Pairs(NamedTuple):
    """Hypothesis-reference pairs of word ids (``n, m >= 1``).

    Attributes:
        hyp: ``(N,)`` int64 hypothesis words (at least 0) of every pair, end to end (changed by shifts).
        hyp_start: ``(P,)`` where each pair's hypothesis starts in ``hyp``.
        n: ``(P,)`` hypothesis lengths.
        ref: ``(M,)`` int64 reference words (at least 0) of every pair, end to end.
        ref_start: ``(P,)`` where each pair's reference starts in ``ref``.
        m: ``(P,)`` reference lengths.
        band: the beam of each row.
        beam: ``(P,)`` bool, whether the beam may decide a pair's edits: the others' rows are computed
            without it, to the same edits (:mod:`.candidate_distance`).
    """

    hyp: np.ndarray
    hyp_start: np.ndarray
    n: np.ndarray
    ref: np.ndarray
    ref_start: np.ndarray
    m: np.ndarray
    band: Band
    beam: np.ndarray


def pairs_of(hyp: np.ndarray, n: np.ndarray, ref: np.ndarray, m: np.ndarray) -> Pairs:
    """Pairs of the words ``hyp`` (lengths ``n``) and ``ref`` (lengths ``m``), end to end, every pair's
    rows computed with the beam."""
    hyp_start, ref_start = n.cumsum() - n, m.cumsum() - m
    beam = np.ones(n.size, dtype=bool)
    return Pairs(hyp.astype(np.int64, copy=True), hyp_start, n, ref.astype(np.int64), ref_start, m, band(n, m), beam)


class Lines(NamedTuple):
    """Hypotheses to compute rows of: each of a pair, known up to row ``start``.

    Attributes:
        pair: ``(L,)`` the pair of each line (its reference and beam).
        words: ``(W,)`` the lines' hypothesis words, end to end.
        word_start: ``(L,)`` where each line's words start in ``words``.
        start: ``(L,)`` rows ``1 .. start`` are the pair's (``0``: none).
    """

    pair: np.ndarray
    words: np.ndarray
    word_start: np.ndarray
    start: np.ndarray


class LineRows(NamedTuple):
    """The rows computed for lines, step after step (step ``t``, from 0, is row ``start + t + 1``), with
    the edit that reached each cell.

    Cell ``j`` of step ``t`` of line ``l`` is at ``step_start[t] + line_start[l] + j``; its cost is
    ``costs`` there plus ``j`` plus ``lowered[l]`` (the costs kept lowered, as they are computed). The
    rows of every pair from row 1 (the first round's) are the pairs' matrices, where later rounds write
    the rows of the shifts they keep.
    """

    costs: np.ndarray
    edits: np.ndarray
    step_start: np.ndarray
    line_start: np.ndarray
    lowered: np.ndarray
    distance: np.ndarray


class Matrices(NamedTuple):
    """Every pair's matrix (the first round's rows, where later rounds write the rows of the shifts they
    keep), with what tracing a path back takes.

    Cell ``j`` of row ``i`` of pair ``p`` is at ``row_start[i] + line_start[p] + j`` in ``edits`` and
    ``back`` (row 0, every pair's origin and inserted reference words, after the other rows), and for
    ``i >= 1`` in ``costs`` too, its cost being ``costs`` there plus ``j`` plus ``lowered[p]``.

    Attributes:
        costs: the cells' costs, lowered.
        edits: the edit that reaches each cell (its code).
        back: how far before each cell in ``edits`` lies the cell its edit comes from (0: the origin).
        row_start: where each row starts.
        line_start: where each pair's cells start within a row.
        lowered: how far each pair's costs are lowered.
        distance: each pair's edit distance.
    """

    costs: np.ndarray
    edits: np.ndarray
    back: np.ndarray
    row_start: np.ndarray
    line_start: np.ndarray
    lowered: np.ndarray
    distance: np.ndarray


def matrices_of(pairs: Pairs) -> Matrices:
    """Every pair's matrix, rows ``1 .. n`` computed from row 0 (``0 .. m``: reference words inserted).

    Example:
        >>> matrices = matrices_of(pairs_of(np.array([1, 2]), np.array([2]), np.array([2, 1]), np.array([2])))
        >>> matrices.edits.tolist(), matrices.back.tolist(), matrices.distance.tolist()
        ([1, 0, 0, 1, 0, 0, 4, 2, 2], [-6, -5, -5, 3, 4, 4, 0, 1, 1], [2])
    """
    everyone = np.arange(pairs.n.size)
    lines = Lines(everyone, pairs.hyp, pairs.hyp_start, np.zeros_like(everyone))
    rows = compute_rows(pairs, lines, cells_of(pairs.m + 1)[1])
    row_zero = np.full(int(pairs.m.sum() + pairs.m.size), REFERENCE_WORD, dtype=np.int8)
    row_zero[rows.line_start] = ORIGIN
    row_start = np.concatenate([rows.step_start[-1:], rows.step_start[:-1]])
    edits = np.concatenate([rows.edits, row_zero])
    strides = np.concatenate(
        [_row_strides(row_start).repeat(np.diff(rows.step_start)), np.zeros(row_zero.size, np.int64)]
    )
    back = _back(edits, strides).astype(np.int32 if edits.size < 2**31 else np.int64)  # 4 bytes a cell
    return Matrices(rows.costs, edits, back, row_start, rows.line_start, rows.lowered, rows.distance)


def _row_strides(row_start: np.ndarray) -> np.ndarray:
    """How far before each row ``1 ..`` the row before it starts."""
    strides: np.ndarray = row_start[1:] - row_start[:-1]
    return strides


def _back(edits: np.ndarray, stride: np.ndarray) -> np.ndarray:
    """How far back the cell each edit comes from lies, in cells whose rows start ``stride`` after the
    rows before them."""
    back: np.ndarray = _READS_HYPOTHESIS[edits] * stride + _READS_REFERENCE[edits]
    return back


def known_rows(pairs: Pairs, matrices: Matrices, lines: Lines) -> np.ndarray:
    """Row ``start`` of each line (row 0: ``0 .. m``), the lines' cells side by side."""
    width = pairs.m[lines.pair] + 1
    line, column = cells_of(width)
    start = lines.start[line]
    stored = matrices.row_start[np.maximum(start, 1)] + matrices.line_start[lines.pair][line] + column
    return np.where(start > 0, matrices.costs[stored] + column + matrices.lowered[lines.pair][line], column)


def compute_rows(pairs: Pairs, lines: Lines, first: np.ndarray) -> LineRows:
    """Rows ``start + 1 .. n`` of every line, from row ``start`` (``first``, as :func:`known_rows` gives).

    Example:
        >>> pairs = pairs_of(np.array([1, 2]), np.array([2]), np.array([2, 1]), np.array([2]))
        >>> lines = Lines(np.array([0]), pairs.hyp, np.array([0]), np.array([0]))
        >>> rows = compute_rows(pairs, lines, np.array([0, 1, 2]))
        >>> rows.costs.tolist(), rows.edits.tolist(), rows.distance.tolist()
        ([1, 0, -1, 2, 0, 0], [1, 0, 0, 1, 0, 0], [2])
        >>> (rows.costs + np.tile([0, 1, 2], 2) + rows.lowered[0]).tolist()  # the cells' costs
        [1, 1, 1, 2, 1, 2]
    """
    work = pairs.n[lines.pair] - lines.start
    order = (-work).argsort(kind="stable")  # longest work first: the lines at work are a prefix
    pair, work = lines.pair[order], work[order]
    width = pairs.m[pair] + 1
    line_start = width.cumsum() - width
    line, column = cells_of(width)
    given_width = pairs.m[lines.pair] + 1
    first = first[(given_width.cumsum() - given_width)[order][line] + column]
    # an unreachable cell costs more than any path (and stays below twice that, plus what it adds up);
    # each line's costs lie below the previous line's (lowered by line_offset per line): int32 where that fits
    unreachable = 1 << int(pairs.n.max(initial=0) + pairs.m.max(initial=0) + 2).bit_length()
    line_offset = 4 * unreachable
    dtype = np.int32 if (width.size + 1) * line_offset < 2**31 else np.int64
    lowered = line_offset * np.arange(width.size)
    below = (-lowered[line] - column).astype(dtype)
    steps = int(work[0]) if work.size else 0
    at_work = (-work).searchsorted(-np.arange(1, steps + 1), side="right")  # lines at work in each step
    cells_at_work = np.concatenate([line_start, [width.sum()]])[at_work]
    step_start = np.concatenate([[0], cells_at_work.cumsum()])
    same, floor = _step_cells(pairs, lines, order, at_work, line_start, below + dtype(unreachable))
    costs = np.empty(int(step_start[-1]), dtype=dtype)
    diagonals = np.empty_like(costs)
    best = np.empty_like(costs)
    line_unreachable = (unreachable - lowered).astype(dtype)  # column 0 of each line, diagonally
    previous = first.astype(dtype) + below
    for busy, size, at in zip(at_work.tolist(), cells_at_work.tolist(), step_start.tolist()):
        diagonal, choice, current = diagonals[at : at + size], best[at : at + size], costs[at : at + size]
        np.subtract(previous[: size - 1], same[at + 1 : at + size], out=diagonal[1:])
        diagonal[line_start[:busy]] = line_unreachable[:busy]
        np.minimum(diagonal, previous[:size] + 1, out=choice)
        if floor is not None:
            np.maximum(choice, floor[at : at + size], out=choice)
        np.minimum.accumulate(choice, out=current)  # a reference word inserted: the running minimum
        if floor is not None:
            np.maximum(current, floor[at : at + size], out=current)
        previous = current
    inserted = (costs < best).view(np.int8)
    edits = inserted + inserted  # 2: inserted (reached from the left)
    edits |= (best < diagonals).view(np.int8)  # 1: deleted (from above)
    last = step_start[work - 1] + line_start + width - 1
    distance = np.empty(order.size, dtype=np.int64)
    distance[order] = costs[last] + width - 1 + lowered
    unsorted_start, unsorted_lowered = np.empty_like(line_start), np.empty_like(lowered)
    unsorted_start[order], unsorted_lowered[order] = line_start, lowered
    return LineRows(costs, edits, step_start, unsorted_start, unsorted_lowered, distance)


def _step_cells(
    pairs: Pairs, lines: Lines, order: np.ndarray, at_work: np.ndarray, line_start: np.ndarray, unreachable: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """Of every cell of every step (the lines in ``order``, the first ``at_work`` of them at each step,
    starting at ``line_start`` in a step): whether the hypothesis word of its row is the reference word
    of its column, and its least cost: ``unreachable`` (each cell of a step, lowered as the cells are)
    outside its row's beam, the least number there is inside or where the pair's beam is not computed
    (``None`` where no line's is)."""
    step, line = cells_of(at_work)  # every (step, line) at work
    pair, done = lines.pair[order][line], lines.start[order][line] + step  # the words before the row's
    word = lines.words[lines.word_start[order][line] + done]
    width = pairs.m[pair] + 1
    step_line, step_column = cells_of(pairs.m[lines.pair[order]] + 1)  # the cells of a step with every line
    step_reference = pairs.ref[np.maximum(pairs.ref_start[lines.pair[order]][step_line] + step_column - 1, 0)]
    step_reference[step_column == 0] = -1  # no word (words are at least 0)
    offset = cells_of(np.bincount(step, weights=width, minlength=at_work.size).astype(np.int64))[1]
    same: np.ndarray = word.repeat(width) == step_reference[offset]
    if not pairs.beam[lines.pair].any():
        return same, None
    band_row = pairs.band.first_row[pair] + done
    lo = pairs.band.lo[band_row]
    column = step_column[offset]
    outside = (column < lo.repeat(width)) | (column >= (lo + pairs.band.width[band_row]).repeat(width))
    outside &= pairs.beam[pair].repeat(width)
    floor = np.where(outside, unreachable[offset], _LEAST[unreachable.dtype.itemsize])
    return same, floor.astype(unreachable.dtype, copy=False)


def cells_of(width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The line and the column of every cell of lines of ``width`` cells side by side."""
    line = np.arange(width.size).repeat(width)
    return line, np.arange(line.size) - (width.cumsum() - width)[line]


def store_rows(pairs: Pairs, matrices: Matrices, lines: Lines, rows: LineRows) -> None:
    """Write the rows computed for the lines (one per pair at most) into their pairs' matrices."""
    pair, start = lines.pair, lines.start
    width = pairs.m[pair] + 1
    line, step = cells_of(pairs.n[pair] - start)  # every (line, step) to write, then each of its cells
    row = start[line] + step + 1
    source_row = rows.step_start[step] + rows.line_start[line]
    target_row = matrices.row_start[row] + matrices.line_start[pair][line]
    row_width = width[line]
    _, column = cells_of(row_width)
    source = source_row.repeat(row_width) + column
    target = source + (target_row - source_row).repeat(row_width)
    raised = (rows.lowered - matrices.lowered[pair])[line].repeat(row_width)
    matrices.costs[target] = rows.costs[source] + raised.astype(rows.costs.dtype)
    edits = rows.edits[source]
    matrices.edits[target] = edits
    matrices.back[target] = _back(edits, _row_strides(matrices.row_start)[row - 1].repeat(row_width))


class Alignment(NamedTuple):
    """What sacrebleu reads off the cheapest edits of each pair, in the pairs' word layout.

    Attributes:
        hyp_wrong: ``(N,)`` bool, the hypothesis words deleted or substituted.
        ref_wrong: ``(M,)`` bool, the reference words inserted or substituted.
        ref_to_hyp: ``(M,)`` int64, for each reference word, the hypothesis word aligned with it or,
            for an inserted one, the last hypothesis word before it (``-1``: none).
    """

    hyp_wrong: np.ndarray
    ref_wrong: np.ndarray
    ref_to_hyp: np.ndarray


def _paths(back: np.ndarray, last: np.ndarray, steps: int) -> np.ndarray:
    """The cells of the paths from the ``last`` cells back to their origins, ``(length, paths)``, the
    rows from each last cell on, through cells ``back`` apart (a path that has reached its origin, where
    ``back`` is 0, stays there), at most ``steps + 1`` rows, fewer once every path has reached its origin.

    Example:
        >>> _paths(np.array([0, 1, 1, 2]), np.array([3, 2]), 3).tolist()
        [[3, 2], [1, 1], [0, 0], [0, 0]]
    """
    path = np.empty((steps + 1, last.size), dtype=np.int64)
    path[0] = last
    for step in range(steps):
        if step % 8 == 0 and not back[path[step]].any():  # every path traced
            return path[: step + 1]
        np.subtract(path[step], back[path[step]], out=path[step + 1])
    return path


def alignment(pairs: Pairs, matrices: Matrices, active: np.ndarray) -> Alignment:
    """The alignment of the ``active`` pairs' words along the edits that reach their last cells, traced
    back from the last cell (as sacrebleu's trace), all pairs a step at a time.

    Example:
        >>> pairs = pairs_of(np.array([1, 2]), np.array([2]), np.array([2, 1]), np.array([2]))
        >>> found = alignment(pairs, matrices_of(pairs), np.array([0]))
        >>> found.hyp_wrong.tolist(), found.ref_wrong.tolist(), found.ref_to_hyp.tolist()
        ([True, True], [True, True], [0, 1])
    """
    hyp_wrong = np.zeros(pairs.hyp.size, dtype=bool)
    ref_wrong = np.zeros(pairs.ref.size, dtype=bool)
    ref_to_hyp = np.zeros(pairs.ref.size, dtype=np.int64)
    n, m = pairs.n[active], pairs.m[active]
    last = matrices.row_start[n] + matrices.line_start[active] + m
    path = _paths(matrices.back, last, int((n + m).max()) if active.size else 0)
    traced_edits = matrices.edits[path]
    reads_hyp, reads_ref = _READS_HYPOTHESIS[traced_edits], _READS_REFERENCE[traced_edits]
    traced_i = n - reads_hyp.cumsum(0) + reads_hyp  # the cell each edit reaches
    traced_j = m - reads_ref.cumsum(0) + reads_ref
    # the edits of each pair's path, steps after its end left out
    traced = (traced_edits != ORIGIN).reshape(-1).nonzero()[0]
    edit, i, j = traced_edits.reshape(-1)[traced], traced_i.reshape(-1)[traced], traced_j.reshape(-1)[traced]
    pair = active[traced % active.size]
    hyp_word = pairs.hyp_start[pair] + i - 1
    ref_word = pairs.ref_start[pair] + j - 1
    wrong = edit != DIAGONAL
    diagonal = (~wrong).nonzero()[0]
    wrong[diagonal] = pairs.hyp[hyp_word[diagonal]] != pairs.ref[ref_word[diagonal]]
    on_hyp, on_ref = _READS_HYPOTHESIS[edit].nonzero()[0], _READS_REFERENCE[edit].nonzero()[0]
    hyp_wrong[hyp_word[on_hyp]] = wrong[on_hyp]
    ref_wrong[ref_word[on_ref]] = wrong[on_ref]
    ref_to_hyp[ref_word[on_ref]] = i[on_ref] - 1
    return Alignment(hyp_wrong, ref_wrong, ref_to_hyp)

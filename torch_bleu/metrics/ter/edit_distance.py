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

#: A cost above every real one: an unreachable cell.
UNREACHABLE = 1 << 30
#: Each line's running minimum lies this far below the previous line's.
_LINE_OFFSET = 1 << 32

#: The edit that reaches a cell: both words (a match or a substitution), a hypothesis word (deleted),
#: a reference word (inserted), or none (the origin).
DIAGONAL, HYPOTHESIS_WORD, REFERENCE_WORD, ORIGIN = 0, 1, 2, 3


class Pairs(NamedTuple):
    """Hypothesis-reference pairs of word ids (``n, m >= 1``), with room for each pair's matrix.

    Attributes:
        hyp: ``(N,)`` int64 hypothesis words of every pair, end to end (changed by shifts).
        hyp_start: ``(P,)`` where each pair's hypothesis starts in ``hyp``.
        n: ``(P,)`` hypothesis lengths.
        ref: ``(M,)`` int64 reference words of every pair, end to end.
        ref_start: ``(P,)`` where each pair's reference starts in ``ref``.
        m: ``(P,)`` reference lengths.
        band: the beam of each row.
        cell_start: ``(P,)`` where each pair's rows ``1 .. n`` start in a matrix store, row after row.
    """

    hyp: np.ndarray
    hyp_start: np.ndarray
    n: np.ndarray
    ref: np.ndarray
    ref_start: np.ndarray
    m: np.ndarray
    band: Band
    cell_start: np.ndarray

    @property
    def cells(self) -> int:
        """The size of a matrix store: rows ``1 .. n`` of every pair, ``m + 1`` columns each."""
        return int((self.n * (self.m + 1)).sum())


def pairs_of(hyp: np.ndarray, n: np.ndarray, ref: np.ndarray, m: np.ndarray) -> Pairs:
    """Pairs of the words ``hyp`` (lengths ``n``) and ``ref`` (lengths ``m``), end to end."""
    sizes = n * (m + 1)
    return Pairs(
        hyp.astype(np.int64, copy=True),
        np.cumsum(n) - n,
        n,
        ref.astype(np.int64),
        np.cumsum(m) - m,
        m,
        band(n, m),
        np.cumsum(sizes) - sizes,
    )


class Matrices(NamedTuple):
    """Rows ``1 .. n`` of each pair's matrix: costs and the edit that reached each cell.

    Cell ``(i, j)`` of pair ``p`` is at ``pairs.cell_start[p] + (i - 1) * (m + 1) + j``.
    """

    costs: np.ndarray
    edits: np.ndarray


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
    """The rows computed for lines, step after step (step ``t`` is row ``start + t`` of each line).

    Cell ``j`` of step ``t`` of line ``l`` is at ``step_start[t] + line_start[l] + j``.
    """

    costs: np.ndarray
    edits: np.ndarray
    step_start: np.ndarray
    line_start: np.ndarray
    distance: np.ndarray


def known_rows(pairs: Pairs, matrices: Matrices, lines: Lines) -> np.ndarray:
    """Row ``start`` of each line (row 0: ``0 .. m``), the lines' cells side by side."""
    width = pairs.m[lines.pair] + 1
    line, column = _cells(width)
    start = lines.start[line]
    stored = pairs.cell_start[lines.pair][line] + (np.maximum(start, 1) - 1) * width[line] + column
    return np.where(start > 0, matrices.costs[stored], column)


def compute_rows(pairs: Pairs, lines: Lines, first: np.ndarray) -> LineRows:
    """Rows ``start + 1 .. n`` of every line, from row ``start`` (``first``, as :func:`known_rows` gives).

    Example:
        >>> pairs = pairs_of(np.array([1, 2]), np.array([2]), np.array([2, 1]), np.array([2]))
        >>> lines = Lines(np.array([0]), pairs.hyp, np.array([0]), np.array([0]))
        >>> rows = compute_rows(pairs, lines, np.array([0, 1, 2]))
        >>> rows.costs.tolist(), rows.edits.tolist(), rows.distance.tolist()
        ([1, 1, 1, 2, 1, 2], [1, 0, 0, 1, 0, 0], [2])
    """
    work = pairs.n[lines.pair] - lines.start
    order = np.argsort(-work, kind="stable")  # longest work first: the lines at work are a prefix
    pair, work = lines.pair[order], work[order]
    width = pairs.m[pair] + 1
    line_start = np.cumsum(width) - width
    line, column = _cells(width)
    given_start = np.cumsum(pairs.m[lines.pair] + 1) - (pairs.m[lines.pair] + 1)
    first = first[given_start[order][line] + column]
    reference = np.where(column > 0, pairs.ref[np.maximum(pairs.ref_start[pair][line] + column - 1, 0)], -1)
    below = -_LINE_OFFSET * line - column  # running minima restart at every line
    no_diagonal = np.where(column == 0, UNREACHABLE, 0)
    word_before = lines.word_start[order] + lines.start[order] - 1
    band_before = pairs.band.first_row[pair] + lines.start[order] - 1
    steps = int(work[0]) if work.size else 0
    at_work = np.searchsorted(-work, -np.arange(1, steps + 1), side="right")  # lines at work in each step
    cells_at_work = np.concatenate([line_start, [width.sum()]])[at_work]
    step_start = np.concatenate([[0], np.cumsum(cells_at_work)])
    costs = np.empty(int(step_start[-1]), dtype=np.int64)
    edits = np.empty(int(step_start[-1]), dtype=np.int8)
    previous = first
    for step in range(steps):
        busy, size = at_work[step], cells_at_work[step]
        cell_line = line[:size]
        word = lines.words[word_before[:busy] + step + 1]
        row = band_before[:busy] + step + 1
        lo, beam = pairs.band.lo[row], pairs.band.width[row]
        diagonal = np.empty(size, dtype=np.int64)
        diagonal[0] = UNREACHABLE
        diagonal[1:] = previous[: size - 1]
        diagonal += (word[cell_line] != reference[:size]) + no_diagonal[:size]
        above = previous[:size] + 1
        best = np.minimum(diagonal, above)
        in_beam = (column[:size] - lo[cell_line]).astype(np.uint64) < beam[cell_line].astype(np.uint64)
        best = np.where(in_beam, best, UNREACHABLE)
        offset = below[:size]
        current = np.minimum.accumulate(best + offset) - offset
        current = np.where(in_beam, current, UNREACHABLE)
        here = slice(step_start[step], step_start[step] + size)
        costs[here] = current
        edits[here] = np.where(current < best, REFERENCE_WORD, above < diagonal)
        previous = current
    last = step_start[work - 1] + line_start + width - 1
    distance = np.empty(order.size, dtype=np.int64)
    distance[order] = costs[last]
    unsorted_start = np.empty_like(line_start)
    unsorted_start[order] = line_start
    return LineRows(costs, edits, step_start, unsorted_start, distance)


def _cells(width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The line and the column of every cell of lines of ``width`` cells side by side."""
    line = np.repeat(np.arange(width.size), width)
    return line, np.arange(line.size, dtype=np.int64) - (np.cumsum(width) - width)[line]


def store_rows(pairs: Pairs, matrices: Matrices, lines: Lines, rows: LineRows, chosen: np.ndarray) -> None:
    """Write the rows computed for the ``chosen`` lines into their pairs' matrices."""
    pair, start = lines.pair[chosen], lines.start[chosen]
    width = pairs.m[pair] + 1
    line, cell = _cells((pairs.n[pair] - start) * width)
    step, column = cell // width[line], cell % width[line]
    source = rows.step_start[step] + rows.line_start[chosen][line] + column
    target = pairs.cell_start[pair][line] + (start[line] + step) * width[line] + column
    matrices.costs[target] = rows.costs[source]
    matrices.edits[target] = rows.edits[source]


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


def alignment(pairs: Pairs, matrices: Matrices, active: np.ndarray) -> Alignment:
    """The alignment of the ``active`` pairs' words along the edits that reach their last cells, traced
    back from the last cell (as sacrebleu's trace), all pairs a step at a time.

    Example:
        >>> pairs = pairs_of(np.array([1, 2]), np.array([2]), np.array([2, 1]), np.array([2]))
        >>> matrices = Matrices(np.zeros(pairs.cells, np.int64), np.zeros(pairs.cells, np.int8))
        >>> lines = Lines(np.array([0]), pairs.hyp, np.array([0]), np.array([0]))
        >>> store_rows(pairs, matrices, lines, compute_rows(pairs, lines, np.array([0, 1, 2])), np.array([0]))
        >>> found = alignment(pairs, matrices, np.array([0]))
        >>> found.hyp_wrong.tolist(), found.ref_wrong.tolist(), found.ref_to_hyp.tolist()
        ([True, True], [True, True], [0, 1])
    """
    hyp_wrong = np.zeros(pairs.hyp.size, dtype=bool)
    ref_wrong = np.zeros(pairs.ref.size, dtype=bool)
    ref_to_hyp = np.zeros(pairs.ref.size, dtype=np.int64)
    i, j = pairs.n[active].copy(), pairs.m[active].copy()
    width = j + 1
    row_before = pairs.cell_start[active] - width
    steps = int((i + j).max()) if active.size else 0
    traced_edits = np.empty((steps, active.size), dtype=np.int8)
    traced_i = np.empty((steps, active.size), dtype=np.int64)
    traced_j = np.empty((steps, active.size), dtype=np.int64)
    for step in range(steps):
        edit = np.where(i > 0, matrices.edits[np.maximum(row_before + i * width + j, 0)], REFERENCE_WORD)
        edit[(i | j) == 0] = ORIGIN
        traced_edits[step], traced_i[step], traced_j[step] = edit, i, j
        i -= (edit == DIAGONAL) | (edit == HYPOTHESIS_WORD)
        j -= (edit == DIAGONAL) | (edit == REFERENCE_WORD)
    pair = np.broadcast_to(active, traced_edits.shape)
    hyp_word = pairs.hyp_start[pair] + traced_i - 1
    ref_word = pairs.ref_start[pair] + traced_j - 1
    diagonal = traced_edits == DIAGONAL
    substituted = diagonal.copy()
    substituted[diagonal] = pairs.hyp[hyp_word[diagonal]] != pairs.ref[ref_word[diagonal]]
    reads_hyp = diagonal | (traced_edits == HYPOTHESIS_WORD)
    reads_ref = diagonal | (traced_edits == REFERENCE_WORD)
    hyp_wrong[hyp_word[reads_hyp]] = (traced_edits == HYPOTHESIS_WORD)[reads_hyp] | substituted[reads_hyp]
    ref_wrong[ref_word[reads_ref]] = (traced_edits == REFERENCE_WORD)[reads_ref] | substituted[reads_ref]
    ref_to_hyp[ref_word[reads_ref]] = traced_i[reads_ref] - 1
    return Alignment(hyp_wrong, ref_wrong, ref_to_hyp)

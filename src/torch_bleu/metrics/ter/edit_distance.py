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

from .band import BEAM_WIDTH, Band, band

#: The edit that reaches a cell, as a code: both words (a match or a substitution), a hypothesis word
#: (deleted), a reference word (inserted: bit 1, whatever bit 0 holds), or none (the origin).
DIAGONAL, HYPOTHESIS_WORD, REFERENCE_WORD, ORIGIN = 0, 1, 2, 4
#: Whether each code reads a hypothesis word, and a reference word.
_READS_HYPOTHESIS = np.array([1, 1, 0, 0, 0], dtype=np.int64)
_READS_REFERENCE = np.array([1, 0, 1, 1, 0], dtype=np.int64)


class Pairs(NamedTuple):
    """Hypothesis-reference pairs of word ids (``n, m >= 1``).

    Attributes:
        hyp: ``(N,)`` int64 hypothesis words of every pair, end to end (changed by shifts).
        hyp_start: ``(P,)`` where each pair's hypothesis starts in ``hyp``.
        n: ``(P,)`` hypothesis lengths.
        ref: ``(M,)`` int64 reference words of every pair, end to end.
        ref_start: ``(P,)`` where each pair's reference starts in ``ref``.
        m: ``(P,)`` reference lengths.
        band: the beam of each row.
    """

    hyp: np.ndarray
    hyp_start: np.ndarray
    n: np.ndarray
    ref: np.ndarray
    ref_start: np.ndarray
    m: np.ndarray
    band: Band


def pairs_of(hyp: np.ndarray, n: np.ndarray, ref: np.ndarray, m: np.ndarray) -> Pairs:
    """Pairs of the words ``hyp`` (lengths ``n``) and ``ref`` (lengths ``m``), end to end."""
    return Pairs(
        hyp.astype(np.int64, copy=True), np.cumsum(n) - n, n, ref.astype(np.int64), np.cumsum(m) - m, m, band(n, m)
    )


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


def known_rows(pairs: Pairs, matrices: LineRows, lines: Lines) -> np.ndarray:
    """Row ``start`` of each line (row 0: ``0 .. m``), the lines' cells side by side."""
    width = pairs.m[lines.pair] + 1
    line, column = cells_of(width)
    start = lines.start[line]
    stored = matrices.step_start[np.maximum(start, 1) - 1] + matrices.line_start[lines.pair][line] + column
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
    order = np.argsort(-work, kind="stable")  # longest work first: the lines at work are a prefix
    pair, work = lines.pair[order], work[order]
    width = pairs.m[pair] + 1
    line_start = np.cumsum(width) - width
    line, column = cells_of(width)
    given_width = pairs.m[lines.pair] + 1
    first = first[(np.cumsum(given_width) - given_width)[order][line] + column]
    reference = np.where(column > 0, pairs.ref[np.maximum(pairs.ref_start[pair][line] + column - 1, 0)], -1)
    # an unreachable cell costs more than any path (and stays below twice that, plus what it adds up);
    # each line's costs lie below the previous line's (lowered by line_offset per line): int32 where that fits
    unreachable = 1 << int(pairs.n.max(initial=0) + pairs.m.max(initial=0) + 2).bit_length()
    line_offset = 4 * unreachable
    dtype = np.int32 if (width.size + 1) * line_offset < 2**31 else np.int64
    lowered = line_offset * np.arange(width.size)
    below = (-lowered[line] - column).astype(dtype)
    reference = reference.astype(dtype)
    word_before = lines.word_start[order] + lines.start[order] - 1
    band_before = pairs.band.first_row[pair] + lines.start[order] - 1
    steps = int(work[0]) if work.size else 0
    at_work = np.searchsorted(-work, -np.arange(1, steps + 1), side="right")  # lines at work in each step
    cells_at_work = np.concatenate([line_start, [width.sum()]])[at_work]
    step_start = np.concatenate([[0], np.cumsum(cells_at_work)])
    costs = np.empty(int(step_start[-1]), dtype=dtype)
    edits = np.empty(int(step_start[-1]), dtype=np.int8)
    outside_cells, outside_start = _outside_beam(pairs.band, band_before, work, width, line_start)
    outside_costs = below[outside_cells] + unreachable
    line_unreachable = (unreachable - lowered).astype(dtype)  # column 0 of each line, diagonally
    doublings = _doublings(pairs, width, at_work).tolist()
    previous = first.astype(dtype) + below
    spare = np.empty(int(cells_at_work[0]) if steps else 0, dtype=dtype)
    for step in range(steps):
        busy, size, at = at_work[step], cells_at_work[step], step_start[step]
        word = lines.words[word_before[:busy] + step + 1].astype(dtype)
        same = np.repeat(word, width[:busy]) == reference[:size]
        diagonal = np.empty(size, dtype=dtype)
        np.subtract(previous[: size - 1], same[1:], out=diagonal[1:])
        diagonal[line_start[:busy]] = line_unreachable[:busy]
        above = previous[:size] + 1
        best = np.minimum(diagonal, above)
        outside = outside_cells[outside_start[step] : outside_start[step + 1]]
        unreachable_outside = outside_costs[outside_start[step] : outside_start[step + 1]]
        best[outside] = unreachable_outside
        current = costs[at : at + size]
        _prefix_minimum(best, doublings[step], out=current, spare=spare[:size])
        current[outside] = unreachable_outside
        code = edits[at : at + size]
        np.less(current, best, out=code.view(np.bool_))
        np.add(code, code, out=code)  # 2: inserted (reached from the left)
        np.bitwise_or(code, np.less(above, diagonal).view(np.int8), out=code)  # 1: deleted (from above)
        previous = current
    last = step_start[work - 1] + line_start + width - 1
    distance = np.empty(order.size, dtype=np.int64)
    distance[order] = costs[last] + width - 1 + lowered
    unsorted_start, unsorted_lowered = np.empty_like(line_start), np.empty_like(lowered)
    unsorted_start[order], unsorted_lowered[order] = line_start, lowered
    return LineRows(costs, edits, step_start, unsorted_start, unsorted_lowered, distance)


def _doublings(pairs: Pairs, width: np.ndarray, at_work: np.ndarray) -> np.ndarray:
    """How many doublings of a window cover the longest run of insertions within a row, at each step:
    the widest row of the ``at_work`` first lines (of ``width`` columns), or the widest beam."""
    widest = np.minimum(np.maximum.accumulate(width)[at_work - 1], pairs.band.width.max(initial=1))
    bit_lengths: np.ndarray = np.frexp(widest - 1)[1]
    return bit_lengths


def _prefix_minimum(values: np.ndarray, doublings: int, out: np.ndarray, spare: np.ndarray) -> None:
    """The running minimum of ``values`` over windows of ``2 ** doublings`` cells into ``out`` (a window
    as wide as a line is the line's running minimum, since each line's costs lie below the previous
    line's), a window doubled at a time in vectorized passes."""
    if doublings % 2:
        source, target = spare, out  # the last pass writes out
    else:
        source, target = out, spare
    source[:] = values
    for doubling in range(doublings):
        shift = 1 << doubling
        target[:shift] = source[:shift]
        np.minimum(source[shift:], source[:-shift], out=target[shift:])
        source, target = target, source


def _outside_beam(
    band: Band, row_before: np.ndarray, work: np.ndarray, width: np.ndarray, line_start: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The cells outside the beam at each step, of lines (longest ``work`` first) of ``width`` columns at
    ``line_start`` whose beam rows follow ``row_before``: ``(cells, start)``, step ``t``'s cells (within
    the step) being ``cells[start[t] : start[t + 1]]``. Short references have none.
    """
    cut = np.flatnonzero(width > BEAM_WIDTH)  # m + 1 <= 25 columns lie in every row's beam
    steps = int(work[0]) if work.size else 0
    at_work = np.searchsorted(-work[cut], -np.arange(1, steps + 1), side="right")  # a prefix of them
    step, index = cells_of(at_work)  # every (step, line) of lines whose beam may leave out columns
    line = cut[index]
    row = row_before[line] + step + 1
    lo, beam = band.lo[row], band.width[row]
    count = width[line] - beam
    _, cell = cells_of(count)
    past_lo = cell >= np.repeat(lo, count)
    cells = np.repeat(line_start[line], count) + cell + past_lo * np.repeat(beam, count)
    start = np.concatenate([[0], np.cumsum(np.bincount(step, weights=count, minlength=steps).astype(np.int64))])
    return cells, start


def cells_of(width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The line and the column of every cell of lines of ``width`` cells side by side."""
    line = np.repeat(np.arange(width.size), width)
    return line, np.arange(line.size, dtype=np.int64) - (np.cumsum(width) - width)[line]


def store_rows(pairs: Pairs, matrices: LineRows, lines: Lines, rows: LineRows, chosen: np.ndarray) -> None:
    """Write the rows computed for the ``chosen`` lines into their pairs' matrices."""
    pair, start = lines.pair[chosen], lines.start[chosen]
    width = pairs.m[pair] + 1
    line, step = cells_of(pairs.n[pair] - start)  # every (line, step) to write, then each of its cells
    source_row = rows.step_start[step] + rows.line_start[chosen][line]
    target_row = matrices.step_start[start[line] + step] + matrices.line_start[pair][line]
    row_width = width[line]
    _, column = cells_of(row_width)
    source = np.repeat(source_row, row_width) + column
    target = source + np.repeat(target_row - source_row, row_width)
    raised = np.repeat((rows.lowered[chosen] - matrices.lowered[pair])[line], row_width)
    matrices.costs[target] = rows.costs[source] + raised.astype(rows.costs.dtype)
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


def alignment(pairs: Pairs, matrices: LineRows, active: np.ndarray) -> Alignment:
    """The alignment of the ``active`` pairs' words along the edits that reach their last cells, traced
    back from the last cell (as sacrebleu's trace), all pairs a step at a time.

    Example:
        >>> pairs = pairs_of(np.array([1, 2]), np.array([2]), np.array([2, 1]), np.array([2]))
        >>> lines = Lines(np.array([0]), pairs.hyp, np.array([0]), np.array([0]))
        >>> matrices = compute_rows(pairs, lines, np.array([0, 1, 2]))
        >>> found = alignment(pairs, matrices, np.array([0]))
        >>> found.hyp_wrong.tolist(), found.ref_wrong.tolist(), found.ref_to_hyp.tolist()
        ([True, True], [True, True], [0, 1])
    """
    hyp_wrong = np.zeros(pairs.hyp.size, dtype=bool)
    ref_wrong = np.zeros(pairs.ref.size, dtype=bool)
    ref_to_hyp = np.zeros(pairs.ref.size, dtype=np.int64)
    n, m = pairs.n[active], pairs.m[active]
    i, j = n.copy(), m.copy()
    # row 0 after the rows: each pair's cells there are its origin, then inserted reference words
    pair_start = matrices.line_start[active]
    row_zero = np.full(int(matrices.line_start.max(initial=0) + pairs.m.max(initial=0)) + 1, REFERENCE_WORD, np.int8)
    row_zero[pair_start] = ORIGIN
    edits = np.concatenate([matrices.edits, row_zero])
    row_start = np.concatenate([[matrices.edits.size], matrices.step_start])
    steps = int((i + j).max()) if active.size else 0  # the longest path there could be
    traced_edits = np.full((steps, active.size), ORIGIN, dtype=np.int8)
    for step in range(steps):
        if step % 8 == 0 and not (i + j).any():  # every path traced
            traced_edits = traced_edits[:step]
            break
        edit = edits[row_start[i] + pair_start + j]
        traced_edits[step] = edit
        i -= _READS_HYPOTHESIS[edit]
        j -= _READS_REFERENCE[edit]
    reads_hyp, reads_ref = _READS_HYPOTHESIS[traced_edits], _READS_REFERENCE[traced_edits]
    traced_i = n - np.cumsum(reads_hyp, 0) + reads_hyp  # the cell each edit reaches
    traced_j = m - np.cumsum(reads_ref, 0) + reads_ref
    traced = np.flatnonzero(traced_edits != ORIGIN)  # the edits of each pair's path, steps after its end left out
    edit, i, j = traced_edits.reshape(-1)[traced], traced_i.reshape(-1)[traced], traced_j.reshape(-1)[traced]
    pair = active[traced % active.size]
    hyp_word = pairs.hyp_start[pair] + i - 1
    ref_word = pairs.ref_start[pair] + j - 1
    wrong = edit != DIAGONAL
    diagonal = np.flatnonzero(~wrong)
    wrong[diagonal] = pairs.hyp[hyp_word[diagonal]] != pairs.ref[ref_word[diagonal]]
    on_hyp, on_ref = np.flatnonzero(_READS_HYPOTHESIS[edit]), np.flatnonzero(_READS_REFERENCE[edit])
    hyp_wrong[hyp_word[on_hyp]] = wrong[on_hyp]
    ref_wrong[ref_word[on_ref]] = wrong[on_ref]
    ref_to_hyp[ref_word[on_ref]] = i[on_ref] - 1
    return Alignment(hyp_wrong, ref_wrong, ref_to_hyp)

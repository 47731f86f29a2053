"""TER's edits: sacrebleu's greedy search for word-block shifts, for every pair of a batch at once.

In each round, every pair still searching traces its cheapest edits (:func:`.edit_distance.alignment`),
lists its shift candidates as sacrebleu lists them, computes the beam edit distance of every
candidate's shifted hypothesis (all candidates of all pairs together, each from the first row the
shift changes) and keeps its best shift if that lowers the distance. A pair stops when no shift
helps, or when it has checked :data:`MAX_CANDIDATES` candidates (the round that reaches the limit is
discarded); its edits are its shifts plus its last edit distance.

sacrebleu's candidates: a block of 1 to :data:`MAX_SHIFT_SIZE` words that occurs in the hypothesis
at ``start`` and in the reference at ``ref_start`` (``|start - ref_start| <= MAX_SHIFT_DISTANCE``),
with a wrong word on both sides, the block not already aligned within itself; it moves before
hypothesis word ``target``, for each distinct ``target`` aligned with the reference words from just
before ``ref_start`` to the block's last. Candidates rank by the distance they save, then the block's
length, then the earliest start, then the earliest target.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .candidate_distance import beam_may_decide, candidate_distances, code_point_words, reference_texts
from .edit_distance import (
    Alignment,
    Lines,
    Pairs,
    alignment,
    cells_of,
    compute_rows,
    known_rows,
    matrices_of,
    pairs_of,
    store_rows,
)

#: The longest block shifted.
MAX_SHIFT_SIZE = 10
#: The farthest a block's place in the hypothesis and in the reference may be apart.
MAX_SHIFT_DISTANCE = 50
#: The candidates a pair checks at most, over all rounds.
MAX_CANDIDATES = 1000

#: Each field of a candidate's rank takes this many bits (so sentences of up to a million words).
_RANK_BITS = 20


class Candidates(NamedTuple):
    """Shift candidates: the block of ``length`` words at ``start`` moves before word ``target``."""

    pair: np.ndarray
    start: np.ndarray
    length: np.ndarray
    target: np.ndarray


def edit_counts(hyp: np.ndarray, hyp_lengths: np.ndarray, ref: np.ndarray, ref_lengths: np.ndarray) -> np.ndarray:
    """sacrebleu's number of TER edits of each hypothesis against its reference (word ids end to end,
    equal ids for equal words within a pair), shifts included.

    Example:
        >>> words = {"a": 0, "b": 1, "c": 2, "d": 3}
        >>> hyp, ref = ["b c d a", "a b", ""], ["a b c d", "", "a b"]
        >>> ids = lambda lines: np.array([words[w] for line in lines for w in line.split()])
        >>> lengths = lambda lines: np.array([len(line.split()) for line in lines])
        >>> edit_counts(ids(hyp), lengths(hyp), ids(ref), lengths(ref)).tolist()
        [1, 2, 2]
    """
    n, m = hyp_lengths.astype(np.int64), ref_lengths.astype(np.int64)
    edits = np.where(m == 0, n, m)  # an empty side: every word of the other is an edit
    both = (n > 0) & (m > 0)
    if not both.any():
        return edits
    hyp_words, ref_words = code_point_words(hyp[both.repeat(n)], n[both], ref[both.repeat(m)], m[both])
    pairs = pairs_of(hyp_words, n[both], ref_words, m[both])
    edits[both] = _searched_edits(pairs)
    return edits


def _searched_edits(pairs: Pairs) -> np.ndarray:
    """The edits of pairs of non-empty sides, shift rounds until no pair gains."""
    count = pairs.n.size
    references = reference_texts(pairs)
    pairs = pairs._replace(beam=beam_may_decide(pairs, references))
    matrices = matrices_of(pairs)  # where later rounds keep their shifts
    distance = matrices.distance.copy()
    shifts = np.zeros(count, dtype=np.int64)
    checked = np.zeros(count, dtype=np.int64)
    reference_order = _reference_order(pairs)
    active = np.arange(count)
    while active.size:
        found = alignment(pairs, matrices, active)
        candidates = _candidates(pairs, found, active, reference_order)
        checked[active] += np.bincount(candidates.pair, minlength=count)[active]
        searching = checked < MAX_CANDIDATES
        candidates = _select(candidates, searching[candidates.pair])
        lines = _shifted_lines(pairs, candidates)
        current = distance[candidates.pair]
        shifted = candidate_distances(pairs, references, matrices, lines, current)
        gain = current - shifted
        best = _best(candidates, gain)
        best = best[gain[best] > 0]
        kept = _select_lines(lines, best)
        store_rows(pairs, matrices, kept, compute_rows(pairs, kept, known_rows(pairs, matrices, kept)))
        _apply(pairs, kept)
        active = kept.pair
        distance[active] = shifted[best]
        shifts[active] += 1
    edits: np.ndarray = shifts + distance
    return edits


def _reference_order(pairs: Pairs) -> tuple[np.ndarray, np.ndarray, int]:
    """The reference words sorted by (pair, word), stable: ``(keys, positions in the pair, vocabulary)``."""
    vocabulary = int(max(pairs.hyp.max(initial=0), pairs.ref.max(initial=0))) + 1
    pair = np.arange(pairs.m.size).repeat(pairs.m)
    keys = pair * vocabulary + pairs.ref
    order = keys.argsort(kind="stable")
    return keys[order], (np.arange(pairs.ref.size) - pairs.ref_start[pair])[order], vocabulary


def _candidates(
    pairs: Pairs, found: Alignment, active: np.ndarray, reference_order: tuple[np.ndarray, np.ndarray, int]
) -> Candidates:
    """The shift candidates of the ``active`` pairs, as sacrebleu lists and counts them."""
    sorted_keys, ref_position, vocabulary = reference_order
    # every word of each active hypothesis against each equal reference word: (pair, start, ref_start)
    n = pairs.n[active]
    pair = active.repeat(n)
    start = cells_of(n)[1]
    key = pair * vocabulary + pairs.hyp[pairs.hyp_start[pair] + start]
    first, last = sorted_keys.searchsorted(key, "left"), sorted_keys.searchsorted(key, "right")
    matches = last - first
    pair, start = pair.repeat(matches), start.repeat(matches)
    ref_start = ref_position[cells_of(matches)[1] + first.repeat(matches)]
    near = np.abs(ref_start - start) <= MAX_SHIFT_DISTANCE
    pair, start, ref_start = pair[near], start[near], ref_start[near]
    # blocks of 1 .. run words from each match, the run as long as the words keep matching
    hyp_at, ref_at = pairs.hyp_start[pair] + start, pairs.ref_start[pair] + ref_start
    run = np.minimum(_runs(pair, start, ref_start), MAX_SHIFT_SIZE)
    block, length = cells_of(run)
    length += 1
    pair, start, ref_start, hyp_at, ref_at = (values[block] for values in (pair, start, ref_start, hyp_at, ref_at))
    # a wrong word on both sides, and the block not aligned within itself
    hyp_wrong = np.concatenate([[0], found.hyp_wrong.cumsum()])
    ref_wrong = np.concatenate([[0], found.ref_wrong.cumsum()])
    aligned = found.ref_to_hyp[ref_at]
    keep = (
        (hyp_wrong[hyp_at + length] > hyp_wrong[hyp_at])
        & (ref_wrong[ref_at + length] > ref_wrong[ref_at])
        & ~((start <= aligned) & (aligned < start + length))
    )
    pair, start, ref_start, ref_at, length = (values[keep] for values in (pair, start, ref_start, ref_at, length))
    # targets: after the hypothesis word aligned with each reference word from ref_start - 1 to the
    # block's last (before word 0 for ref_start - 1 = -1), each distinct one once
    block, offset = cells_of(length + 1)
    offset -= 1
    before_reference = ref_start[block] + offset < 0
    target = np.where(before_reference, 0, found.ref_to_hyp[np.maximum(ref_at[block] + offset, 0)] + 1)
    new = np.ones(block.size, dtype=bool)
    new[1:] = (target[1:] != target[:-1]) | (block[1:] != block[:-1])
    return Candidates(pair[block][new], start[block][new], length[block][new], target[new])


def _runs(pair: np.ndarray, start: np.ndarray, ref_start: np.ndarray) -> np.ndarray:
    """How many words match on from each match of hypothesis word ``start`` with reference word
    ``ref_start`` of ``pair``, given every match of ``pair`` on the same diagonal (``ref_start - start``,
    within :data:`MAX_SHIFT_DISTANCE`): those after a match, one word further each, make its run."""
    diagonal = ref_start - start + MAX_SHIFT_DISTANCE
    key = (pair * (2 * MAX_SHIFT_DISTANCE + 1) + diagonal) * (int(start.max(initial=0)) + 2) + start
    order = key.argsort()
    key = key[order]
    ends = np.ones(key.size, dtype=bool)  # the last match of each run
    ends[:-1] = key[1:] != key[:-1] + 1
    end = ends.nonzero()[0]
    place = np.arange(key.size)
    run: np.ndarray = np.empty_like(key)
    run[order] = end[end.searchsorted(place)] - place + 1
    return run


def _select(candidates: Candidates, keep: np.ndarray) -> Candidates:
    """The candidates ``keep`` marks."""
    return Candidates(*(values[keep] for values in candidates))


def _shifted_lines(pairs: Pairs, candidates: Candidates) -> Lines:
    """Each candidate's shifted hypothesis, known up to the first word the shift moves.

    A block moved back to ``target`` puts itself at ``target`` and the words from ``target`` after it;
    a block moved forward lets the ``skipped`` words after it come first (sacrebleu's slices: a
    target inside the block or just after it skips up to ``length`` words).
    """
    pair, start, length, target = candidates
    n = pairs.n[pair]
    back = target < start
    skipped = np.where(target > start + length, target - start - length, np.minimum(target, n - length) - start)
    first = np.where(back, target, start)  # the region [first, end) is rearranged, split at middle
    middle = np.where(back, target + length, start + skipped)
    end = np.where(back, start + length, start + skipped + length)
    before_middle = np.where(back, start - target, length)
    after_middle = np.where(back, -length, -skipped)
    line = np.arange(pair.size).repeat(n)
    word_start = n.cumsum() - n
    k = np.arange(line.size) - word_start[line]
    moved = np.where(k < middle[line], before_middle[line], after_middle[line])
    source = k + np.where((k >= first[line]) & (k < end[line]), moved, 0)
    return Lines(pair, pairs.hyp[pairs.hyp_start[pair][line] + source], word_start, first)


def _best(candidates: Candidates, gain: np.ndarray) -> np.ndarray:
    """The index of each pair's best candidate, by sacrebleu's ranking: the largest gain, then the
    longest block, then the earliest start, then the earliest target."""
    last = (1 << _RANK_BITS) - 1
    rank = ((gain * 16 + candidates.length) << (2 * _RANK_BITS)) + ((last - candidates.start) << _RANK_BITS)
    rank += last - candidates.target
    order = np.lexsort((rank, candidates.pair))
    pair = candidates.pair[order]
    group_end = np.ones(pair.size, dtype=bool)
    group_end[:-1] = pair[1:] != pair[:-1]
    return order[group_end]


def _select_lines(lines: Lines, chosen: np.ndarray) -> Lines:
    """The ``chosen`` lines (their words left in place)."""
    return Lines(lines.pair[chosen], lines.words, lines.word_start[chosen], lines.start[chosen])


def _apply(pairs: Pairs, lines: Lines) -> None:
    """Make the lines' hypotheses their pairs' own."""
    n = pairs.n[lines.pair]
    line = np.arange(n.size).repeat(n)
    k = np.arange(line.size) - (n.cumsum() - n)[line]
    pairs.hyp[pairs.hyp_start[lines.pair][line] + k] = lines.words[lines.word_start[line] + k]

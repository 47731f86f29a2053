"""The beam edit distance of many shifted hypotheses at once, by rapidfuzz's Levenshtein distance where
the beam cannot change it.

sacrebleu's beam (:mod:`.band`) holds the cells of row ``i`` within ``BEAM_WIDTH - 2`` columns of
``i * m / n`` (:data:`~.band.BEAM_WIDTH` on each side of a rounded point, less rounding), so a path
through the matrix of an ``n``-word hypothesis against an ``m``-word reference that leaves it passes
a cell ``(i, j)`` with ``|j - i * m / n| > BEAM_WIDTH - 2``. That lies between ``a = j - i`` and
``-b``, where ``b = (m - j) - (n - i) = (m - n) - a``, and at least ``|a| + |b|`` edits lie before and
after the cell: a path that leaves the beam costs at least ``BEAM_WIDTH - 1`` edits, and at least
``2 * (BEAM_WIDTH - 1) - |m - n|``. A smaller Levenshtein distance is then the beam edit distance
too. A larger one is only a lower bound of the beam's: it is exact enough for a shift that cannot
lower the pair's distance (its gain is no more than zero either way), and the others are computed
with the beam (:func:`.compute_rows`).

The same bound makes the beam needless for a pair whose distance is within it, and for its shifted
hypotheses (the search keeps only shifts that lower it): every cheapest path lies inside the beam, so
the matrix computed without it traces the same edits (each cell of the traced path costs the same
either way, and a cell before it that costs more without the beam costs more with it).

rapidfuzz compares strings, so each word becomes one code point: its id plus one (code point 0
separates the hypotheses), the surrogates skipped.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .band import BEAM_WIDTH
from .edit_distance import Lines, Matrices, Pairs, cells_of, compute_rows, known_rows

#: The first surrogate code point, and how many there are: no word becomes one.
_SURROGATES, _SURROGATE_COUNT = 0xD800, 0x800
#: The largest word id that becomes a code point.
LARGEST_WORD = 0x10FFFF - _SURROGATE_COUNT - 1


def code_point_words(
    hyp: np.ndarray, hyp_lengths: np.ndarray, ref: np.ndarray, ref_lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Word ids of pairs (``hyp`` and ``ref`` end to end, ``hyp_lengths`` and ``ref_lengths`` words per
    pair) that are at most :data:`LARGEST_WORD`: the ids themselves when they are, else each pair's
    words numbered anew from 0 (equal words, equal ids, within a pair).

    Example:
        >>> hyp, ref = code_point_words(np.array([-5, 2**40]), np.array([1, 1]), np.array([2**40, 3]), np.array([1, 1]))
        >>> hyp.tolist(), ref.tolist()
        ([0, 1], [1, 0])
    """
    words = np.concatenate([hyp, ref]).astype(np.int64)
    if words.min(initial=0) >= 0 and words.max(initial=0) <= LARGEST_WORD:
        return hyp, ref
    pairs = np.arange(hyp_lengths.size)
    pair = np.concatenate([pairs.repeat(hyp_lengths), pairs.repeat(ref_lengths)])
    order = np.lexsort((words, pair))
    words, pair = words[order], pair[order]
    new_pair = np.ones(words.size, dtype=bool)
    new_pair[1:] = pair[1:] != pair[:-1]
    new_word = new_pair.copy()
    new_word[1:] |= words[1:] != words[:-1]
    rank = new_word.cumsum() - 1
    rank -= np.maximum.accumulate(np.where(new_pair, rank, 0))
    numbered = np.empty_like(rank)
    numbered[order] = rank
    return numbered[: hyp.size], numbered[hyp.size :]


def exact_within_beam(hyp_lengths: np.ndarray, ref_lengths: np.ndarray) -> np.ndarray:
    """The largest Levenshtein distance of an ``n``-word hypothesis and an ``m``-word reference that is
    their beam edit distance too.

    Example:
        >>> exact_within_beam(np.array([20, 20, 20]), np.array([20, 30, 60])).tolist()
        [47, 37, 23]
    """
    leaving: np.ndarray = np.maximum(BEAM_WIDTH - 1, 2 * (BEAM_WIDTH - 1) - np.abs(hyp_lengths - ref_lengths))
    return leaving - 1


def beam_may_decide(pairs: Pairs, references: np.ndarray) -> np.ndarray:
    """Whether the beam may decide each pair's edits: its Levenshtein distance is past
    :func:`exact_within_beam` (the shifts the search keeps only lower it); ``references`` are the pairs'
    :func:`reference_texts`."""
    distance = _levenshtein(_texts(pairs.hyp, pairs.hyp_start, pairs.n), references)
    decides: np.ndarray = distance > exact_within_beam(pairs.n, pairs.m)
    return decides


def reference_texts(pairs: Pairs) -> np.ndarray:
    """Each pair's reference as a string (an object array), for :func:`candidate_distances`."""
    return np.array(_texts(pairs.ref, pairs.ref_start, pairs.m), dtype=object)


def candidate_distances(
    pairs: Pairs, references: np.ndarray, matrices: Matrices, lines: Lines, bound: np.ndarray
) -> np.ndarray:
    """The beam edit distance of each line's hypothesis against its pair's reference where it is below
    ``bound`` (one per line), else a number of at least ``bound``.

    Word ids are at most :data:`LARGEST_WORD`; ``references`` are the pairs' :func:`reference_texts`;
    ``matrices`` holds the rows of the lines' pairs up to each line's ``start``
    (:func:`~.edit_distance.known_rows`).

    Example:
        >>> from .edit_distance import matrices_of, pairs_of
        >>> pairs = pairs_of(np.array([2, 1]), np.array([2]), np.array([1, 2]), np.array([2]))
        >>> matrices = matrices_of(pairs)
        >>> shifted = Lines(np.array([0, 0]), np.array([1, 2, 2, 2]), np.array([0, 2]), np.array([0, 1]))
        >>> candidate_distances(pairs, reference_texts(pairs), matrices, shifted, np.array([2, 2])).tolist()
        [0, 1]
    """
    distance = _levenshtein(_texts(lines.words, lines.word_start, pairs.n[lines.pair]), references[lines.pair])
    beyond = ((distance > exact_within_beam(pairs.n, pairs.m)[lines.pair]) & (distance < bound)).nonzero()[0]
    if beyond.size:
        banded = Lines(lines.pair[beyond], lines.words, lines.word_start[beyond], lines.start[beyond])
        distance[beyond] = compute_rows(pairs, banded, known_rows(pairs, matrices, banded)).distance
    return distance


def _levenshtein(hypotheses: Sequence[str], references: np.ndarray) -> np.ndarray:
    """rapidfuzz's Levenshtein distance of each hypothesis and its reference (an object array), int64."""
    from rapidfuzz.distance import Levenshtein  # on first use: the command line loads TER with any metric
    from rapidfuzz.process import cpdist

    distance: np.ndarray = cpdist(hypotheses, references, scorer=Levenshtein.distance, dtype=np.int64)
    return distance


def _texts(words: np.ndarray, start: np.ndarray, length: np.ndarray) -> list[str]:
    """The word sequences ``words[start : start + length]`` as strings, a code point per word."""
    codes = words[start.repeat(length) + cells_of(length)[1]]
    codes = codes + 1 + (codes >= _SURROGATES - 1) * _SURROGATE_COUNT
    text = np.zeros(codes.size + length.size, dtype="<u4")
    text[np.arange(codes.size) + np.arange(length.size).repeat(length)] = codes
    return text.tobytes().decode("utf-32-le").split("\0")[:-1]

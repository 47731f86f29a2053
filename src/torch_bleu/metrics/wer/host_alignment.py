"""Hits, substitutions, deletions and insertions on the host, by the very computation jiwer runs.

jiwer counts every sentence from ``rapidfuzz.distance.Levenshtein.opcodes(reference, hypothesis)``, so
on the host each pair goes to rapidfuzz too, one C call per pair: its alignment, with its choice among
alignments of equal cost at every length (a backtrace through the bit-parallel matrix for short rows,
Hirschberg's divide and conquer for long ones, :mod:`.device_splits`), is jiwer's by construction.

Units reach rapidfuzz as strings, one code point per unit (what it compares fastest): the characters of
a text as they are, and words or ids as code points that stand for them, equal units equal code
points. Of each alignment two numbers are read in C: its length (the distance) and its hits, the
characters of the reference it keeps (:func:`pair_counts`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
from rapidfuzz.distance import Levenshtein

from ...engine.keys import dense_ranks

#: Distinct units a batch of code points can stand for: every code point but the surrogates.
CODE_POINTS = 0x110000 - 0x800
Rank = TypeVar("Rank", int, np.ndarray)


def code_point(rank: Rank) -> Rank:
    """The code point that stands for the unit of dense rank ``rank`` (below :data:`CODE_POINTS`): the
    ranks in order, skipping the surrogates.

    Example:
        >>> code_point(65), code_point(0xD800) == 0xE000
        (65, True)
    """
    shifted: Rank = rank + 0x800 * (rank >= 0xD800)
    return shifted


@functools.cache
def code_points() -> str:
    """Every code point that stands for a unit, in the order of their ranks (:func:`code_point`).

    Example:
        >>> len(code_points()) == CODE_POINTS, code_points()[0xD800] == chr(0xE000)
        (True, True)
    """
    text: str = code_point(np.arange(CODE_POINTS)).astype("<u4").tobytes().decode("utf-32-le")
    return text


#: Units turned into code points at a time: fewer than :data:`CODE_POINTS`, so that their ranks fit.
UNITS_PER_CHUNK = 1 << 20


def pair_counts(references: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
    """``(B, 4)`` int64 hits, substitutions, deletions and insertions of each hypothesis against its
    reference, every code point a unit, as ``rapidfuzz.distance.Levenshtein.opcodes`` aligns them.

    An alignment's edits applied to a reference of ``"k"`` only and a hypothesis of ``"n"`` only give the
    hypothesis with ``"k"`` where the alignment keeps a reference unit: its hits. With the distance and
    the lengths, they give the other three counts.

    Example:
        >>> pair_counts(["sitting", "ab"], ["kitten", "ba"]).tolist()
        [[4, 2, 1, 0], [1, 0, 1, 1]]
    """
    kept = "k" * max(map(len, references), default=0)
    new = "n" * max(map(len, hypotheses), default=0)
    editops = Levenshtein.editops
    counts: list[int] = []
    for reference, hypothesis in zip(references, hypotheses):
        alignment = editops(reference, hypothesis)
        hits = alignment.apply(kept[: len(reference)], new[: len(hypothesis)]).count("k")
        insertions = len(alignment) - len(reference) + hits
        deletions = insertions + len(reference) - len(hypothesis)
        counts += (hits, len(reference) - hits - deletions, deletions, insertions)
    return np.array(counts, dtype=np.int64).reshape(len(counts) // 4, 4)


def unit_counts(units: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """:func:`pair_counts` of rows of integer units (ids, numbered words), one after another in 1-D
    ``units``, ``lengths`` ``(2 B,)`` units each: row ``2 b`` the hypothesis of pair ``b``, row ``2 b + 1``
    its reference.

    Example:
        >>> unit_counts(np.array([7, 8, 8, -1, 9, 2**40]), np.array([2, 1, 1, 2])).tolist()   # [7, 8] against [8]
        [[1, 0, 0, 1], [0, 1, 1, 0]]
    """
    pair_units = lengths.reshape(-1, 2).sum(1)
    ends = np.cumsum(pair_units)
    out = np.empty((pair_units.shape[0], 4), dtype=np.int64)
    start = 0
    while start < pair_units.shape[0]:
        # pairs of at most UNITS_PER_CHUNK units together (at least one pair)
        begin = int(ends[start] - pair_units[start])
        stop = max(start + 1, int(np.searchsorted(ends, begin + UNITS_PER_CHUNK, "right")))
        rows = _as_strings(units[begin : int(ends[stop - 1])], lengths[2 * start : 2 * stop])
        out[start:stop] = pair_counts(rows[1::2], rows[0::2])
        start = stop
    return out


def _as_strings(units: np.ndarray, lengths: np.ndarray) -> list[str]:
    """Rows of integer units as strings, equal units equal code points (:func:`code_point` of the units,
    or of their dense ranks where some units lie outside ``0 .. CODE_POINTS - 1``)."""
    if units.size and (int(units.min()) < 0 or int(units.max()) >= CODE_POINTS):
        units, distinct = dense_ranks(units, start=0)
        if distinct > CODE_POINTS:
            raise ValueError(f"a pair of rows holds more than {CODE_POINTS} distinct units")
    text = code_point(units).astype("<u4").tobytes().decode("utf-32-le")
    bounds = np.cumsum(lengths).tolist()
    return [text[end - length : end] for end, length in zip(bounds, lengths.tolist())]

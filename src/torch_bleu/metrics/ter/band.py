"""Which cells of the edit-distance matrix sacrebleu's TER computes: a beam around a pseudo-diagonal.

Row ``i`` (after ``i`` hypothesis words, ``1 <= i <= n``) of an ``n``-word hypothesis against an
``m``-word reference holds the columns ``lo <= j < lo + width`` around ``floor(i * m / n)``, 25
columns to each side (more when the reference is over 50 times longer); the last row holds every
column from ``lo`` on; row 0 holds every column. A cell outside the beam is unreachable. The
geometry depends on the lengths only, which shifts keep, so it is worked out once per pair, with
sacrebleu's own float operations.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Columns on each side of the pseudo-diagonal (Tercom's beam width).
BEAM_WIDTH = 25


class Band(NamedTuple):
    """The beam of every row of every pair, rows of pair ``p`` at ``first_row[p] + i - 1``.

    Attributes:
        lo: ``(rows,)`` int64 first column of the row's beam.
        width: ``(rows,)`` int64 number of columns of the row's beam.
        first_row: ``(P,)`` int64 where each pair's rows start.
    """

    lo: np.ndarray
    width: np.ndarray
    first_row: np.ndarray


def band(hyp_lengths: np.ndarray, ref_lengths: np.ndarray) -> Band:
    """The beam of each row of pairs of ``n >= 1`` hypothesis and ``m >= 1`` reference words.

    Example:
        >>> rows = band(np.array([2, 1]), np.array([60, 3]))
        >>> rows.lo.tolist(), rows.width.tolist(), rows.first_row.tolist()
        ([5, 35, 0], [50, 26, 4], [0, 2])
    """
    n, m = hyp_lengths.astype(np.int64), ref_lengths.astype(np.int64)
    first_row = n.cumsum() - n
    pair = np.arange(n.size).repeat(n)
    row = np.arange(int(n.sum()), dtype=np.int64) - first_row[pair] + 1
    ratio = m / n  # float64 divisions and products, as sacrebleu's Python floats
    half = ratio / 2
    beam = np.where(half > BEAM_WIDTH, np.ceil(half + BEAM_WIDTH), BEAM_WIDTH).astype(np.int64)
    diagonal = np.floor(row * ratio[pair]).astype(np.int64)
    lo = np.maximum(diagonal - beam[pair], 0)
    hi = np.minimum(diagonal + beam[pair], m[pair] + 1)
    hi = np.where(row == n[pair], m[pair] + 1, hi)
    return Band(lo, np.maximum(hi - lo, 0), first_row)

"""Sorting along the last axis: the engine's most expensive primitive on CPU.

For the short rows the engine sorts (one row per sentence), NumPy's sort, vectorized with AVX-512
or AVX2 by recent NumPy releases, is several times faster than ``torch.sort`` on the same CPU. So
NumPy arrays and CPU tensors of rows are sorted by NumPy (a tensor shares its memory with the array:
no copy, no transfer); tensors on every other device, ``meta`` included, use ``torch.sort``. One long
row of a CPU tensor (a whole batch's stream) goes to ``torch.sort`` too: NumPy's vectorized
``argsort`` slows down several times on many equal values, which the unused slots of a stream whose
size follows from shapes are (260k values, 90% equal: 44 ms, against 6.5 ms).

NumPy sorts rows of up to :data:`SHORT_ROW` values with vectorized sorting networks, and a longer
array with a quicksort that is far slower per value on some CPUs (AMD EPYC, NumPy 2.4: 20,480 int64
values as rows of 256 in 34 µs, as one array in 590 µs). A stream that only needs sorting within
its segments (keys that start with their segment's number) is therefore sorted as short rows, each
holding the segments that start in one half of it (:class:`Segments`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy

from ..arrays import Array, array_namespace, is_tensor

#: The widest rows a stream's segments are sorted in.
SHORT_ROW = 256

#: Whether CPU tensors are sorted by NumPy (tests switch it off to exercise ``torch.sort`` on CPU).
NUMPY_ON_CPU = True


def _by_numpy(values: Array) -> bool:
    return not is_tensor(values) or (NUMPY_ON_CPU and values.device.type == "cpu" and values.dim() > 1)


def sort_values(values: Array) -> Array:
    """Each row of ``values`` sorted in ascending order.

    Example:
        >>> sort_values(numpy.array([[3, -1, 2], [0, 9, 0]])).tolist()
        [[-1, 2, 3], [0, 0, 9]]
    """
    if not is_tensor(values):
        return numpy.sort(values, axis=-1)
    if _by_numpy(values):
        return array_namespace(values).from_numpy(numpy.sort(values.numpy(), axis=-1))
    return values.sort(-1).values


def sort_own(values: Array) -> Array:
    """:func:`sort_values` of an array the caller owns and no longer needs: sorted in its own memory where
    it can be (NumPy arrays and CPU tensors), which spares a fresh array as large.

    Example:
        >>> sort_own(numpy.array([3, 1, 2])).tolist()
        [1, 2, 3]
    """
    if not _by_numpy(values):
        return values.sort(-1).values
    (values.numpy() if is_tensor(values) else values).sort(axis=-1)
    return values


def sort_with_order(values: Array) -> tuple[Array, Array]:
    """Each row of ``values`` sorted, and where each sorted value came from (``take_along_last(values, order)``).

    Equal values may come in any order.

    Example:
        >>> sorted_values, order = sort_with_order(numpy.array([[30, 10, 20]]))
        >>> sorted_values.tolist(), order.tolist()
        ([[10, 20, 30]], [[1, 2, 0]])
    """
    if not is_tensor(values):
        order = numpy.argsort(values, axis=-1)
        sorted_values: Array = numpy.take_along_axis(values, order, axis=-1)
        return sorted_values, order
    if _by_numpy(values):
        order = array_namespace(values).from_numpy(numpy.argsort(values.numpy(), axis=-1))
        return values.gather(-1, order), order
    sorted_values, order = values.sort(-1)
    return sorted_values, order


class Segments(NamedTuple):
    """Where each value of a 1-D stream of segments sits when the segments are sorted as rows of
    :data:`SHORT_ROW`: the segments starting in the ``r``-th half-row of the stream fill row ``r`` from
    its first column, in order.

    Attributes:
        slot: ``(N,)`` int64 place of each value in the rows, flattened.
        rows: how many rows.
    """

    slot: numpy.ndarray
    rows: int

    @classmethod
    def of(cls, starts: numpy.ndarray, size: int) -> Segments | None:
        """The layout of a stream of ``size`` values whose segments start at ``starts`` (ascending, the first
        at 0); ``None`` when a segment is longer than half a row, or there is none.

        Example:
            >>> Segments.of(numpy.array([0, 100, 200]), 300).slot[[0, 99, 100, 199, 200, 299]].tolist()
            [0, 99, 100, 199, 256, 355]
        """
        half = SHORT_ROW // 2
        lengths = numpy.diff(starts, append=size)
        if lengths.size == 0 or int(lengths.max()) > half:
            return None
        row = starts // half
        first_in_row = starts[numpy.searchsorted(row, row)]  # per segment, where its row's first one starts
        slot = numpy.arange(size, dtype=numpy.int64)
        slot += numpy.repeat(row * SHORT_ROW - first_in_row, lengths)
        return cls(slot, int(row[-1]) + 1)

    def fill(self, values: numpy.ndarray) -> numpy.ndarray:
        """``(rows, SHORT_ROW)``: ``values`` in their slots, the dtype's maximum elsewhere."""
        rows = numpy.full(self.rows * SHORT_ROW, numpy.iinfo(values.dtype).max, dtype=values.dtype)
        rows[self.slot] = values
        return rows.reshape(self.rows, SHORT_ROW)


def sort_segments(values: numpy.ndarray, segments: Segments) -> numpy.ndarray:
    """A 1-D stream sorted, where each segment's values lie below the next segment's and below the dtype's
    maximum, so that sorting each segment sorts the stream.

    Example:
        >>> values = numpy.array([3, 1, 2, 12, 11])  # two segments: 3 1 2 and 12 11
        >>> sort_segments(values, Segments.of(numpy.array([0, 3]), 5)).tolist()
        [1, 2, 3, 11, 12]
    """
    rows = segments.fill(values)
    rows.sort(axis=-1)
    return rows.reshape(-1).take(segments.slot)


def sort_segments_with_order(values: numpy.ndarray, segments: Segments) -> tuple[numpy.ndarray, numpy.ndarray]:
    """:func:`sort_segments`, and where each sorted value came from.

    Example:
        >>> sorted_values, order = sort_segments_with_order(numpy.array([3, 1, 2, 12, 11]),
        ...                                                  Segments.of(numpy.array([0, 3]), 5))
        >>> sorted_values.tolist(), order.tolist()
        ([1, 2, 3, 11, 12], [1, 2, 0, 4, 3])
    """
    rows = segments.fill(values)
    columns = rows.argsort(axis=-1)
    columns += numpy.arange(0, segments.rows * SHORT_ROW, SHORT_ROW)[:, None]
    source = numpy.empty(segments.rows * SHORT_ROW, dtype=numpy.int64)  # the stream index of each slot
    source[segments.slot] = numpy.arange(values.shape[0])
    order = source.take(columns.reshape(-1).take(segments.slot))
    return values.take(order), order

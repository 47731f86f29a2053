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
    """Where each value of a 1-D stream of segments goes when the segments are sorted as short rows of
    :data:`SHORT_ROW`. The segments of up to half a row fill the rows in stream order: those starting
    in the ``r``-th half-row (counted over these segments alone) fill row ``r`` from its first column.
    Longer segments, few in text, are sorted together as one array.

    Attributes:
        slot: ``(M,)`` int64 place in the rows, flattened, of each value of the short segments.
        rows: how many rows.
        short: ``(M,)`` int64 stream positions of those values (``None``: every value, no segment is long).
        long: ``(N - M,)`` int64 stream positions of the values of the long segments.
    """

    slot: numpy.ndarray
    rows: int
    short: numpy.ndarray | None
    long: numpy.ndarray

    @classmethod
    def of(cls, starts: numpy.ndarray, size: int) -> Segments | None:
        """The layout of a stream of ``size`` values whose segments start at ``starts`` (ascending, the first
        at 0); ``None`` when no segment is short, or there is none.

        Example:
            >>> segments = Segments.of(numpy.array([0, 100, 200, 300]), 700)  # the last segment is long
            >>> segments.slot[[0, 99, 100, 199, 200, 299]].tolist(), segments.rows, segments.long[[0, -1]].tolist()
            ([0, 99, 100, 199, 256, 355], 2, [300, 699])
        """
        half = SHORT_ROW // 2
        lengths = numpy.diff(starts, append=size)
        is_short = lengths <= half
        if not is_short.any():
            return None
        short: numpy.ndarray | None = None
        long = numpy.zeros(0, dtype=numpy.int64)
        if not is_short.all():
            in_short = numpy.repeat(is_short, lengths)
            short, long = numpy.flatnonzero(in_short), numpy.flatnonzero(~in_short)
            lengths = lengths[is_short]
            starts = lengths.cumsum() - lengths
        row = starts // half
        first_in_row = starts[numpy.searchsorted(row, row)]  # per segment, where its row's first one starts
        slot = numpy.arange(int(lengths.sum()), dtype=numpy.int64)
        slot += numpy.repeat(row * SHORT_ROW - first_in_row, lengths)
        return cls(slot, int(row[-1]) + 1, short, long)

    def short_rows(self, values: numpy.ndarray) -> numpy.ndarray:
        """``(rows, SHORT_ROW)``: the short segments' values in their slots, the dtype's maximum elsewhere."""
        rows = numpy.full(self.rows * SHORT_ROW, numpy.iinfo(values.dtype).max, dtype=values.dtype)
        rows[self.slot] = values if self.short is None else values.take(self.short)
        return rows.reshape(self.rows, SHORT_ROW)


def sort_segments(values: numpy.ndarray, segments: Segments) -> numpy.ndarray:
    """A 1-D stream sorted, where each segment's values lie below the next segment's and below the dtype's
    maximum, so that sorting each segment sorts the stream.

    Example:
        >>> values = numpy.array([3, 1, 2, 12, 11])  # two segments: 3 1 2 and 12 11
        >>> sort_segments(values, Segments.of(numpy.array([0, 3]), 5)).tolist()
        [1, 2, 3, 11, 12]
    """
    rows = segments.short_rows(values)
    rows.sort(axis=-1)
    sorted_short = rows.reshape(-1).take(segments.slot)
    if segments.short is None:
        return sorted_short
    sorted_values = numpy.empty_like(values)
    sorted_values[segments.short] = sorted_short
    sorted_values[segments.long] = numpy.sort(values.take(segments.long))
    return sorted_values


def sort_segments_with_order(values: numpy.ndarray, segments: Segments) -> tuple[numpy.ndarray, numpy.ndarray]:
    """:func:`sort_segments`, and where each sorted value came from.

    Example:
        >>> sorted_values, order = sort_segments_with_order(numpy.array([3, 1, 2, 12, 11]),
        ...                                                  Segments.of(numpy.array([0, 3]), 5))
        >>> sorted_values.tolist(), order.tolist()
        ([1, 2, 3, 11, 12], [1, 2, 0, 4, 3])
    """
    rows = segments.short_rows(values)
    columns = rows.argsort(axis=-1)
    columns += numpy.arange(0, segments.rows * SHORT_ROW, SHORT_ROW)[:, None]
    short = numpy.arange(values.shape[0]) if segments.short is None else segments.short
    source = numpy.empty(segments.rows * SHORT_ROW, dtype=numpy.int64)  # the stream position of each slot
    source[segments.slot] = short
    order = source.take(columns.reshape(-1).take(segments.slot))
    if segments.short is not None:
        order_short = order
        order = numpy.empty(values.shape[0], dtype=numpy.int64)
        order[segments.short] = order_short
        order[segments.long] = segments.long.take(numpy.argsort(values.take(segments.long)))
    return values.take(order), order

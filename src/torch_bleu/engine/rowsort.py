"""Sorting along the last axis: the engine's most expensive primitive on CPU.

For the short rows the engine sorts (one row per sentence), NumPy's sort, vectorized with AVX-512
or AVX2 by recent NumPy releases, is several times faster than ``torch.sort`` on the same CPU. So
NumPy arrays and CPU tensors of rows are sorted by NumPy (a tensor shares its memory with the array:
no copy, no transfer); tensors on every other device, ``meta`` included, and in a compiled graph use
``torch.sort`` (a graph would bring NumPy's result back as a tensor on PyTorch's default device). One long
row of a CPU tensor (a whole batch's stream) goes to ``torch.sort`` too: NumPy's vectorized
``argsort`` slows down several times on many equal values, which the unused slots of a stream whose
size follows from shapes are (260k values, 90% equal: 44 ms, against 6.5 ms).

NumPy sorts rows of up to 256 values with vectorized sorting networks, and a longer array with a
quicksort that is far slower per value on some CPUs (AMD EPYC, NumPy 2.4: 20,480 int64 values as rows
of 256 in 34 µs, as one array in 590 µs). A stream that only needs sorting within its segments (keys
that start with their segment's number) is therefore sorted as short rows, each holding the segments
that start in one half of it, the longer segments in wider rows (:class:`Segments`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy

from ..arrays import Array, ArrayT, array_namespace, is_tensor, take_along_last

if TYPE_CHECKING:
    from torch import Tensor

#: The widths of the rows a stream's segments are sorted in. NumPy sorts rows of up to 256 values with
#: sorting networks, and rows of 20,480 int64 values in all (AMD EPYC, NumPy 2.4) in 34 µs as rows of 256,
#: 162 µs as rows of 512 and 326 µs as rows of 2048, against 590 µs as one array.
ROW_WIDTHS = (256, 512, 1024, 2048)

#: Whether CPU tensors are sorted by NumPy (tests switch it off to exercise ``torch.sort`` on CPU).
NUMPY_ON_CPU = True


def _by_numpy(values: Array) -> bool:
    if not is_tensor(values):
        return True
    on_cpu = NUMPY_ON_CPU and values.device.type == "cpu" and values.dim() > 1
    return on_cpu and not array_namespace(values).compiler.is_compiling()


def sort_values(values: ArrayT) -> ArrayT:
    """Each row of ``values`` sorted in ascending order.

    Example:
        >>> sort_values(numpy.array([[3, -1, 2], [0, 9, 0]])).tolist()
        [[-1, 2, 3], [0, 0, 9]]
    """
    if not is_tensor(values):
        return numpy.sort(values, axis=-1)
    if _by_numpy(values):
        sorted_values: Tensor = array_namespace(values).from_numpy(numpy.sort(values.numpy(), axis=-1))
        return sorted_values
    return values.sort(-1).values


def sort_own(values: ArrayT) -> ArrayT:
    """:func:`sort_values` of an array the caller owns and no longer needs: sorted in its own memory where
    it can be (NumPy arrays and CPU tensors), which spares a fresh array as large.

    Example:
        >>> sort_own(numpy.array([3, 1, 2])).tolist()
        [1, 2, 3]
    """
    if not is_tensor(values):
        values.sort(axis=-1)
        return values
    if not _by_numpy(values):
        return values.sort(-1).values
    values.numpy().sort(axis=-1)
    return values


def sort_with_order(values: ArrayT) -> tuple[ArrayT, ArrayT]:
    """Each row of ``values`` sorted, and where each sorted value came from (``take_along_last(values, order)``).

    Equal values may come in any order.

    Example:
        >>> sorted_values, order = sort_with_order(numpy.array([[30, 10, 20]]))
        >>> sorted_values.tolist(), order.tolist()
        ([[10, 20, 30]], [[1, 2, 0]])
    """
    if not is_tensor(values):
        order: ArrayT = numpy.argsort(values, axis=-1)
        return take_along_last(values, order), order
    if _by_numpy(values):
        order = array_namespace(values).from_numpy(numpy.argsort(values.numpy(), axis=-1))
        return values.gather(-1, order), order
    sorted_values, order = values.sort(-1)
    return sorted_values, order


class Tier(NamedTuple):
    """Segments sorted as rows of one width. In the narrowest, several short segments share a row: those
    starting in the ``r``-th half-row (counted over this tier's segments alone) fill row ``r`` from its
    first column. In the wider ones, each segment has a row of its own, at least half full.

    Attributes:
        positions: ``(M,)`` int64 stream positions of the tier's values, in order (``None``: all of them).
        slot: ``(M,)`` int64 place of each of these values in the rows, flattened.
        rows: how many rows.
        width: how wide the rows are.
    """

    positions: numpy.ndarray | None
    slot: numpy.ndarray
    rows: int
    width: int

    @classmethod
    def of(cls, lengths: numpy.ndarray, positions: numpy.ndarray | None, width: int) -> Tier:
        """The tier of segments of ``lengths`` (at most ``width // 2`` each in the narrowest tier, at most
        ``width`` in the others) whose values lie at ``positions``."""
        starts = lengths.cumsum() - lengths
        if width == ROW_WIDTHS[0]:  # rows shared
            row = starts // (width // 2)
            first_in_row = starts[numpy.searchsorted(row, row)]  # per segment, where its row's first one starts
        else:  # a row each
            row, first_in_row = numpy.arange(lengths.shape[0]), starts
        slot = numpy.arange(int(lengths.sum()), dtype=numpy.int64)
        slot += numpy.repeat(row * width - first_in_row, lengths)
        return cls(positions, slot, int(row[-1]) + 1, width)

    def sorted_rows(self, values: numpy.ndarray, order: bool) -> tuple[numpy.ndarray, numpy.ndarray | None]:
        """The tier's values sorted, in stream order of their slots, and (with ``order``) where each came
        from among the tier's values."""
        rows = numpy.full(self.rows * self.width, numpy.iinfo(values.dtype).max, dtype=values.dtype)
        rows[self.slot] = values if self.positions is None else values.take(self.positions)
        rows = rows.reshape(self.rows, self.width)
        if not order:
            rows.sort(axis=-1)
            return rows.reshape(-1).take(self.slot), None
        columns = rows.argsort(axis=-1)
        columns += numpy.arange(0, self.rows * self.width, self.width)[:, None]
        picked = columns.reshape(-1).take(self.slot)  # the slot whose value sorts into each place
        source = numpy.empty(self.rows * self.width, dtype=numpy.int64)  # the tier's value in each slot
        source[self.slot] = numpy.arange(self.slot.shape[0])
        return rows.reshape(-1).take(picked), source.take(picked)


class Segments(NamedTuple):
    """Where each value of a 1-D stream of segments goes when each segment is sorted in a short row: a
    segment of up to half the first of :data:`ROW_WIDTHS` shares its rows, a longer one goes to the
    narrowest width that holds it (each width a :class:`Tier`); those longer than the widest are sorted
    together as one array.

    Attributes:
        tiers: the tiers that hold segments, narrowest first.
        rest: ``(K,)`` int64 stream positions of the values of the segments too long for any tier.
    """

    tiers: tuple[Tier, ...]
    rest: numpy.ndarray

    @classmethod
    def of(cls, starts: numpy.ndarray, size: int) -> Segments | None:
        """The layout of a stream of ``size`` values whose segments start at ``starts`` (ascending, the first
        at 0); ``None`` when there is no segment, or no tier holds any.

        Example:
            >>> segments = Segments.of(numpy.array([0, 100, 200, 300]), 700)  # the last segment is 400 long
            >>> [(tier.width, tier.rows) for tier in segments.tiers], segments.tiers[0].slot[[99, 100, 200]].tolist()
            ([(256, 2), (512, 1)], [99, 100, 256])
        """
        lengths = numpy.empty_like(starts)  # (numpy.diff with append= costs more than the segments here)
        numpy.subtract(starts[1:], starts[:-1], out=lengths[:-1])
        lengths[-1:] = size - starts[-1:]
        holds = numpy.array([ROW_WIDTHS[0] // 2, *ROW_WIDTHS[1:]])  # the longest segment of each tier
        tier_of = numpy.searchsorted(holds, lengths)  # len(ROW_WIDTHS): no tier
        used = numpy.flatnonzero(numpy.bincount(tier_of, minlength=len(ROW_WIDTHS) + 1)).tolist()
        if not lengths.shape[0] or used == [len(ROW_WIDTHS)]:
            return None
        if len(used) == 1:
            return cls((Tier.of(lengths, None, ROW_WIDTHS[used[0]]),), numpy.zeros(0, dtype=numpy.int64))
        value_tier = numpy.repeat(tier_of, lengths)
        tiers = tuple(
            Tier.of(lengths[tier_of == tier], numpy.flatnonzero(value_tier == tier), ROW_WIDTHS[tier])
            for tier in used
            if tier < len(ROW_WIDTHS)
        )
        return cls(tiers, numpy.flatnonzero(value_tier == len(ROW_WIDTHS)))


def sort_segments(values: numpy.ndarray, segments: Segments) -> numpy.ndarray:
    """A 1-D stream sorted, where each segment's values lie below the next segment's and below the dtype's
    maximum, so that sorting each segment sorts the stream.

    Example:
        >>> values = numpy.array([3, 1, 2, 12, 11])  # two segments: 3 1 2 and 12 11
        >>> sort_segments(values, Segments.of(numpy.array([0, 3]), 5)).tolist()
        [1, 2, 3, 11, 12]
    """
    first = segments.tiers[0]
    if first.positions is None:  # a single tier holds the whole stream
        return first.sorted_rows(values, order=False)[0]
    sorted_values = numpy.empty_like(values)
    for tier in segments.tiers:
        assert tier.positions is not None  # several tiers, or a rest
        sorted_values[tier.positions] = tier.sorted_rows(values, order=False)[0]
    sorted_values[segments.rest] = numpy.sort(values.take(segments.rest))
    return sorted_values


def sort_segments_with_order(values: numpy.ndarray, segments: Segments) -> tuple[numpy.ndarray, numpy.ndarray]:
    """:func:`sort_segments`, and where each sorted value came from.

    Example:
        >>> sorted_values, order = sort_segments_with_order(numpy.array([3, 1, 2, 12, 11]),
        ...                                                  Segments.of(numpy.array([0, 3]), 5))
        >>> sorted_values.tolist(), order.tolist()
        ([1, 2, 3, 11, 12], [1, 2, 0, 4, 3])
    """
    first = segments.tiers[0]
    if first.positions is None:
        sorted_values, came_from = first.sorted_rows(values, order=True)
        assert came_from is not None  # asked for
        return sorted_values, came_from
    order = numpy.empty(values.shape[0], dtype=numpy.int64)
    for tier in segments.tiers:
        assert tier.positions is not None  # several tiers, or a rest
        _, came_from = tier.sorted_rows(values, order=True)
        assert came_from is not None  # asked for
        order[tier.positions] = tier.positions.take(came_from)
    order[segments.rest] = segments.rest.take(numpy.argsort(values.take(segments.rest)))
    return values.take(order), order

"""Sorting along the last axis: the engine's most expensive primitive on CPU.

For the short rows the engine sorts (one row per sentence), NumPy's sort, vectorized with AVX-512
or AVX2 by recent NumPy releases, is several times faster than ``torch.sort`` on the same CPU. So
NumPy arrays and CPU tensors of rows are sorted by NumPy (a tensor shares its memory with the array:
no copy, no transfer); tensors on every other device, ``meta`` included, use ``torch.sort``. One long
row of a CPU tensor (a whole batch's stream) goes to ``torch.sort`` too: NumPy's vectorized
``argsort`` slows down several times on many equal values, which the unused slots of a stream whose
size follows from shapes are (260k values, 90% equal: 44 ms, against 6.5 ms).
"""

from __future__ import annotations

import numpy

from ..arrays import Array, array_namespace, is_tensor

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

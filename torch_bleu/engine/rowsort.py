"""Sorting along the last dimension: the engine's most expensive primitive on CPU.

For the short rows the engine sorts (one row per sentence), NumPy's sort, vectorized with AVX-512
or AVX2 by recent NumPy releases, is several times faster than ``torch.sort`` on the same CPU. So
CPU tensors are sorted by NumPy, sharing memory with torch (no copy, no host-device transfer: the
data is on the host already); every other device, ``meta`` included, uses ``torch.sort``.
"""

from __future__ import annotations

import numpy
import torch
from torch import Tensor

#: Whether CPU tensors are sorted by NumPy (tests switch it off to exercise ``torch.sort`` on CPU).
NUMPY_ON_CPU = True


def _through_numpy(values: Tensor) -> bool:
    return NUMPY_ON_CPU and values.device.type == "cpu"


def sort_values(values: Tensor) -> Tensor:
    """Each row of ``values`` sorted in ascending order.

    Example:
        >>> sort_values(torch.tensor([[3, -1, 2], [0, 9, 0]])).tolist()
        [[-1, 2, 3], [0, 0, 9]]
    """
    if _through_numpy(values):
        return torch.from_numpy(numpy.sort(values.numpy(), axis=-1))
    return values.sort(-1).values


def sort_with_order(values: Tensor) -> tuple[Tensor, Tensor]:
    """Each row of ``values`` sorted, and where each sorted value came from (``values.gather(-1, order)``).

    Equal values may come in any order.

    Example:
        >>> sorted_values, order = sort_with_order(torch.tensor([[30, 10, 20]]))
        >>> sorted_values.tolist(), order.tolist()
        ([[10, 20, 30]], [[1, 2, 0]])
    """
    if _through_numpy(values):
        order = torch.from_numpy(numpy.argsort(values.numpy(), axis=-1))
        return values.gather(-1, order), order
    return values.sort(-1)

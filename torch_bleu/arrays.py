"""The few array operations that NumPy and PyTorch spell differently, so that scoring is written once.

Scores are computed from statistics held either in PyTorch tensors (the metric, the functional API,
on any device) or in NumPy arrays (the command line's significance tests, which never import
PyTorch). Everything else the scoring code needs (``where``, ``exp``, ``log``, ``exp2``,
``.cumsum(axis=...)``, ``.any(axis=..., keepdims=...)``, ``.sum(axis=...)``, ``.clip(min=...)``)
both libraries spell alike, once :func:`array_namespace` has picked the module.

Example:
    >>> import numpy as np
    >>> array_namespace(np.zeros(2)).__name__
    'numpy'
    >>> as_float64(np.array([1, 2])).dtype
    dtype('float64')
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np

#: A NumPy array or a PyTorch tensor.
Array = Any


def _torch() -> ModuleType | None:
    """PyTorch if it is imported already: a tensor cannot exist otherwise, so there is no need to import it."""
    return sys.modules.get("torch")


def array_namespace(array: Array) -> ModuleType:
    """``torch`` for a tensor, ``numpy`` for anything else."""
    torch = _torch()
    return torch if torch is not None and isinstance(array, torch.Tensor) else np


def as_float64(array: Array) -> Array:
    """The values as float64, on the array's own device."""
    xp = array_namespace(array)
    return xp.asarray(array, dtype=xp.float64)


def float64_like(values: Any, like: Array) -> Array:
    """``values`` (numbers, nested lists) as a float64 array of ``like``'s kind, on its device."""
    torch = _torch()
    if torch is not None and isinstance(like, torch.Tensor):
        return torch.tensor(values, dtype=torch.float64, device=like.device)
    return np.asarray(values, dtype=np.float64)


def all_true_like(array: Array) -> Array:
    """A boolean array of ``array``'s shape (and device), all true."""
    return array_namespace(array).ones_like(array, dtype=bool)

"""The few array operations that NumPy and PyTorch spell differently, so that counting and scoring are written once.

The engine counts and the scorer scores arrays of either kind: PyTorch tensors (the metric, the
functional API, on any device) or NumPy arrays (the command line on a CPU, which never imports
PyTorch). Most operations both libraries spell alike (``where``, ``exp``, ``log``, ``minimum``,
``stack``, ``abs``, ``.reshape``, ``.cumsum(-1)``, ``.sum(-1, dtype=...)``, ``.any(-1)``,
``.clip(min=...)``, slicing and operators), once :func:`array_namespace` has picked the module; the
others are here. (PyTorch takes NumPy's ``axis=`` too, but its type stubs know ``dim=`` only: on a value
typed as a tensor, the axis goes by position.)

Type checkers see the two kinds apart: :data:`Array` is a value of either kind, and a function typed
with :data:`ArrayT` takes and gives arrays of one kind, which mypy checks once as NumPy arrays and once
as tensors (:func:`is_tensor` tells them apart for it). PyTorch is imported for type checkers only.

Example:
    >>> import numpy as np
    >>> array_namespace(np.zeros(2)).__name__
    'numpy'
    >>> as_float64(np.array([1, 2])).dtype
    dtype('float64')
"""

from __future__ import annotations

import math
import sys
from collections import OrderedDict
from collections.abc import Callable, Hashable
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, Union

import numpy as np

from .kernels import kernels_on_cpu

if TYPE_CHECKING:
    from typing import TypeAlias

    from torch import Tensor
    from torch import device as Device
    from typing_extensions import TypeIs

#: A NumPy array or a PyTorch tensor: a value that may be either.
Array: TypeAlias = Union[np.ndarray, "Tensor"]
#: A NumPy array or a PyTorch tensor, one kind throughout a call: the arguments so typed and the result
#: are all arrays or all tensors (type checkers check a function so typed once for each).
ArrayT = TypeVar("ArrayT", np.ndarray, "Tensor")

#: Whether CPU tensors may size intermediate results from their values, as NumPy arrays always do
#: (tests switch it off to exercise the sizes that follow from shapes alone, as on accelerators).
SIZES_FROM_DATA_ON_CPU = True


def _torch() -> ModuleType | None:
    """PyTorch if it is imported already: a tensor cannot exist otherwise, so there is no need to import it."""
    return sys.modules.get("torch")


def array_namespace(array: Array) -> ModuleType:
    """``torch`` for a tensor, ``numpy`` for anything else."""
    torch = _torch()
    return torch if torch is not None and isinstance(array, torch.Tensor) else np


def as_float64(array: ArrayT) -> ArrayT:
    """The values as float64, on the array's own device."""
    if is_tensor(array):
        return array.double()
    return np.asarray(array, dtype=np.float64)


def as_tensor(values: Array, device: Device | None = None) -> Tensor:
    """Statistics as a PyTorch tensor (on ``device``, a ``torch.device``, else where they are: a tensor on
    its device, a NumPy array on the CPU, whatever PyTorch's default device): a NumPy array counted on
    the host shares its memory, unless it is a read-only view, which is copied.

    Example:
        >>> as_tensor(np.broadcast_to(np.array([3]), (2,))).tolist()
        [3, 3]
    """
    if isinstance(values, np.ndarray) and not values.flags.writeable:
        values = values.copy()
    torch = _torch()
    assert torch is not None  # statistics become tensors only where PyTorch counts or scores them
    if device is None:
        device = values.device if isinstance(values, torch.Tensor) else torch.device("cpu")
    tensor: Tensor = torch.as_tensor(values, device=device)
    return tensor


def float64_like(values: object, like: ArrayT) -> ArrayT:
    """``values`` (numbers, nested lists) as a float64 array of ``like``'s kind, on its device."""
    if not is_tensor(like):
        return np.asarray(values, dtype=np.float64)
    torch = _torch()
    assert torch is not None  # a tensor exists
    tensor: Tensor = torch.tensor(values, dtype=torch.float64, device=like.device)
    return tensor


def all_true_like(array: ArrayT) -> ArrayT:
    """A boolean array of ``array``'s shape (and device), all true."""
    ones: ArrayT = array_namespace(array).ones_like(array, dtype=bool)
    return ones


def is_tensor(array: object) -> TypeIs[Tensor]:
    """Whether ``array`` is a PyTorch tensor."""
    torch = _torch()
    return torch is not None and isinstance(array, torch.Tensor)


def is_integer(array: Array) -> bool:
    """Whether a tensor or NumPy array holds integers (bools are not counts).

    Example:
        >>> is_integer(np.array([1])), is_integer(np.array([True])), is_integer(np.array([1.0]))
        (True, False, False)
    """
    if is_tensor(array):
        return not (array.is_floating_point() or array.is_complex() or array.dtype == _torch().bool)  # type: ignore[union-attr]
    return bool(np.asarray(array).dtype.kind in "iu")


def to_host(array: Array) -> np.ndarray:
    """A NumPy view or copy of an array, or of a tensor on any device."""
    if is_tensor(array):
        array = array.detach().cpu()
    return np.asarray(array)


def sizes_from_data(array: Array) -> bool:
    """Whether sizes may follow ``array``'s values: reading them waits for no device (a NumPy array, or a
    CPU tensor outside a compiled graph). Elsewhere sizes follow from shapes alone, with no host sync.
    """
    return not is_tensor(array) or sizes_from_data_on(array.device)


def sizes_from_data_on(device: Device) -> bool:
    """Whether sizes may follow the values of tensors on ``device``, a ``torch.device`` (:func:`sizes_from_data`):
    not where ``TORCH_BLEU_KERNELS=triton`` sends CPU tensors down the device path (:mod:`.kernels`)."""
    torch = _torch()
    assert torch is not None  # a device exists
    on_host = SIZES_FROM_DATA_ON_CPU and device.type == "cpu" and not torch.compiler.is_compiling()
    return on_host and not kernels_on_cpu()


def _libm(function: Callable[[float], float], array: np.ndarray) -> np.ndarray:
    """``function`` of Python's ``math`` on every element of a NumPy array (float64)."""
    values = np.asarray(array, dtype=np.float64)
    return np.fromiter(map(function, values.reshape(-1).tolist()), np.float64, values.size).reshape(values.shape)


def exp(array: ArrayT) -> ArrayT:
    """``e ** x`` of every element: by PyTorch for tensors; for NumPy arrays by the C library, as Python's
    ``math.exp`` computes it. (NumPy's vectorized ``exp`` can differ from it in the last bit, and sacrebleu
    scores with ``math``: the command line's floats are sacrebleu's bit for bit.)

    Example:
        >>> exp(np.array([0.0, 1.0])).tolist() == [1.0, math.e]
        True
    """
    if is_tensor(array):
        return array.exp()
    return _libm(math.exp, array)


def log(array: ArrayT) -> ArrayT:
    """The natural logarithm of every (positive) element, as :func:`exp` computes: ``math.log`` on NumPy arrays.

    Example:
        >>> log(np.array([1.0, math.e])).tolist()
        [0.0, 1.0]
    """
    if is_tensor(array):
        return array.log()
    return _libm(math.log, array)


def running_max(array: ArrayT, axis: int = -1) -> ArrayT:
    """The running maximum along ``axis`` (``cummax``), by default the last.

    Example:
        >>> running_max(np.array([[1, 3, 2, 5]])).tolist(), running_max(np.array([[2], [1], [4]]), axis=0).tolist()
        ([[1, 3, 3, 5]], [[2], [2], [4]])
    """
    if is_tensor(array):
        return array.cummax(axis).values
    return np.maximum.accumulate(array, axis=axis)


def running_min_from_end(array: ArrayT) -> ArrayT:
    """The running minimum along the last axis, from its end backwards.

    Example:
        >>> running_min_from_end(np.array([[4, 1, 3, 2]])).tolist()
        [[1, 1, 2, 2]]
    """
    if is_tensor(array):
        return array.flip(-1).cummin(-1).values.flip(-1)
    return np.minimum.accumulate(array[..., ::-1], axis=-1)[..., ::-1]


def cast(array: ArrayT, dtype: Any) -> ArrayT:
    """``array`` with elements of ``dtype`` (a dtype of the array's own library), on its device."""
    return array.to(dtype) if is_tensor(array) else array.astype(dtype)


def full_like_shape(like: ArrayT, shape: tuple[int, ...], fill: float, dtype: Any = None) -> ArrayT:
    """A new array of ``shape`` filled with ``fill``, of ``like``'s kind, device and (unless given) dtype.

    Example:
        >>> full_like_shape(np.zeros(1, dtype=np.int32), (2,), 7).tolist()
        [7, 7]
    """
    if is_tensor(like):
        return like.new_full(shape, fill, dtype=dtype)
    return np.full(shape, fill, dtype=like.dtype if dtype is None else dtype)


def empty_like_shape(like: ArrayT, shape: tuple[int, ...]) -> ArrayT:
    """A new, uninitialized array of ``shape``, of ``like``'s kind, device and dtype."""
    if is_tensor(like):
        return like.new_empty(shape)
    return np.empty(shape, dtype=like.dtype)


def last_marked(mark: ArrayT, values: ArrayT, before: int) -> ArrayT:
    """Along the last axis, ``values`` at the last position up to each one where ``mark`` holds, ``before``
    where none does yet: ``running_max(where(mark, values, before))`` for ``values`` that never decrease
    along the axis (columns, say).

    On a 1-D NumPy array the values are read through a running count of the marks: a running sum is
    several times faster than NumPy's running maximum.

    Example:
        >>> last_marked(np.array([False, True, False, True]), np.arange(4), -1).tolist()
        [-1, 1, 1, 3]
    """
    if is_tensor(mark) or mark.ndim != 1:
        marked_values: ArrayT = array_namespace(mark).where(mark, values, before)
        return running_max(marked_values)
    marked = np.empty(int(np.count_nonzero(mark)) + 1, dtype=values.dtype)
    marked[0] = before
    marked[1:] = values[mark]
    return marked.take(running_count(mark))


def next_marked(mark: ArrayT, values: ArrayT, after: int) -> ArrayT:
    """Along the last axis, ``values`` at the first position from each one on where ``mark`` holds,
    ``after`` where none does any more: ``running_min_from_end(where(mark, values, after))`` for
    ``values`` that never decrease along the axis (on a 1-D NumPy array, through a running count, as
    :func:`last_marked`).

    Example:
        >>> next_marked(np.array([False, True, False, True, False]), np.arange(5), 9).tolist()
        [1, 1, 3, 3, 9]
    """
    if is_tensor(mark) or mark.ndim != 1:
        marked_values: ArrayT = array_namespace(mark).where(mark, values, after)
        return running_min_from_end(marked_values)
    marked = np.empty(int(np.count_nonzero(mark)) + 1, dtype=values.dtype)
    marked[:-1] = values[mark]
    marked[-1] = after
    before = running_count(mark)
    before -= mark  # the marks before each position
    return marked.take(before)


def running_count(mask: ArrayT) -> ArrayT:
    """How many entries of ``mask`` hold up to each position along the last axis, as int64.

    On NumPy the mask is widened to int64 first: a running sum that widens as it goes takes a scratch
    buffer on every call, which can cost ten times the sum itself (55k entries: 370 µs against 35 µs).

    Example:
        >>> running_count(np.array([True, False, True])).tolist()
        [1, 1, 2]
    """
    if is_tensor(mask):
        return mask.cumsum(-1)
    counts = mask.astype(np.int64)
    return np.cumsum(counts, axis=-1, out=counts)


def cumsum_(array: ArrayT) -> ArrayT:
    """The running sum along the last axis, in place; returns ``array``."""
    if is_tensor(array):
        return array.cumsum_(-1)
    return np.cumsum(array, axis=-1, out=array)


def arange_like(stop: int, like: ArrayT) -> ArrayT:
    """``0, 1, ..., stop - 1`` (int64) as an array of ``like``'s kind, on its device."""
    if is_tensor(like):
        columns: Tensor = array_namespace(like).arange(stop, device=like.device)
        return columns
    return np.arange(stop, dtype=np.int64)


def columns_like(width: int, like: ArrayT) -> ArrayT:
    """The columns ``0 .. width - 1`` of a last axis, for scans and reads along it: int64 on a tensor (what
    ``gather`` takes), int32 on NumPy where they fit (half the memory traffic of int64).

    Example:
        >>> columns_like(3, np.zeros(3)).dtype
        dtype('int32')
    """
    if is_tensor(like) or width >= 2**31:
        return arange_like(width, like)
    return np.arange(width, dtype=np.int32)


def take_along_last(values: ArrayT, index: ArrayT) -> ArrayT:
    """``values[..., index[..., i]]`` along the last axis (``gather``).

    Example:
        >>> take_along_last(np.array([[10, 20, 30]]), np.array([[2, 0]])).tolist()
        [[30, 10]]
    """
    if is_tensor(values):
        return values.gather(-1, index)
    if values.ndim == 1:  # NumPy's take is several times faster than its take_along_axis
        return values.take(index)
    return np.take_along_axis(values, index, axis=-1)


def scatter_last(values: ArrayT, index: ArrayT) -> ArrayT:
    """The inverse of :func:`take_along_last` for a permutation: ``out[..., index[..., i]] = values[..., i]``.

    Example:
        >>> scatter_last(np.array([[30, 10, 20]]), np.array([[2, 0, 1]])).tolist()
        [[10, 20, 30]]
    """
    out: ArrayT = array_namespace(values).empty_like(values)
    return scatter_into(out, index, values)


def scatter_into(out: ArrayT, index: ArrayT, values: ArrayT) -> ArrayT:
    """``out[..., index[..., i]] = values[..., i]`` along the last axis, in place; returns ``out``."""
    if is_tensor(out):
        return out.scatter_(-1, index, values)
    if out.ndim == 1:  # NumPy's indexed assignment is several times faster than its put_along_axis
        out[index] = values
    else:
        np.put_along_axis(out, index, values, axis=-1)
    return out


def add_at_last(index: ArrayT, values: ArrayT, size: int) -> ArrayT:
    """``(..., size)``: per leading position, the sums of ``values`` by ``index`` (``scatter_add``).

    ``index`` and ``values`` have the same shape; indices lie in ``[0, size)``; the sums have
    ``values``'s dtype.

    Example:
        >>> add_at_last(np.array([[0, 2, 2]]), np.array([[1, 5, 6]]), size=3).tolist()
        [[1, 0, 11]]
    """
    if is_tensor(values):
        sums = values.new_zeros(*values.shape[:-1], size)
        return sums.scatter_add_(-1, index, values)
    leading = int(np.prod(index.shape[:-1], dtype=np.int64))
    flat = (index.reshape(leading, -1) + np.arange(leading).reshape(-1, 1) * size).reshape(-1)
    # float64 weights add integers exactly below 2**53, far above any count here
    sums = np.bincount(flat, weights=values.reshape(-1), minlength=leading * size)
    return sums.astype(values.dtype).reshape(*index.shape[:-1], size)


def occurrences(index: ArrayT, size: int) -> ArrayT:
    """``(size,)`` int64: how often each of ``0 .. size - 1`` occurs in 1-D ``index`` (all below ``size``).

    Example:
        >>> occurrences(np.array([2, 0, 2]), size=4).tolist()
        [1, 0, 2, 0]
    """
    if is_tensor(index):
        return index.new_zeros(size).scatter_add_(0, index, array_namespace(index).ones_like(index))
    return np.bincount(index, minlength=size)


def int64_like(values: tuple[Any, ...], like: ArrayT) -> ArrayT:
    """``values`` (ints, or nested tuples of ints) as an int64 array of ``like``'s kind, on its device
    (a tensor from :func:`device_constant`).

    Example:
        >>> int64_like(((1,), (2,)), np.zeros(1)).tolist()
        [[1], [2]]
    """
    if not is_tensor(like):
        return np.asarray(values, dtype=np.int64)
    torch = _torch()
    assert torch is not None  # a tensor exists
    if torch.compiler.is_compiling():  # a compiled graph holds the constant itself
        tensor: Tensor = torch.tensor(values, dtype=torch.int64, device=like.device)
        return tensor
    return device_constant(("int64", values), like.device, lambda: np.asarray(values, dtype=np.int64))


#: How many constants :func:`device_constant` keeps (per device), the least recently used going first.
DEVICE_CONSTANTS_KEPT = 256
_DEVICE_CONSTANTS: OrderedDict[tuple[Hashable, Device], Tensor] = OrderedDict()


def device_constant(key: Hashable, device: Device, build: Callable[[], np.ndarray]) -> Tensor:
    """The array ``build()`` makes on the host, as a tensor on ``device``: copied there once and reused.

    Copying from the host is something an accelerator waits for, so a table or constant that every
    call needs is copied once per device and kept (the :data:`DEVICE_CONSTANTS_KEPT` most recently
    used), under ``key``, which names the contents. A compiled graph reads kept tensors as they are,
    and holds one that is not kept yet as a constant of its own (``build`` must then be a plain read
    of an array that already exists).

    Example:
        >>> import torch
        >>> table = device_constant("squares", torch.device("cpu"), lambda: np.arange(4) ** 2)
        >>> table.tolist(), device_constant("squares", torch.device("cpu"), list) is table
        ([0, 1, 4, 9], True)
    """
    torch = _torch()
    assert torch is not None  # a device holds tensors only once PyTorch is imported
    slot = (key, device)
    kept = _DEVICE_CONSTANTS.get(slot)
    if kept is not None:
        if not torch.compiler.is_compiling():
            _DEVICE_CONSTANTS.move_to_end(slot)
        return kept
    tensor: Tensor = torch.from_numpy(np.ascontiguousarray(build())).to(device)
    if torch.compiler.is_compiling():
        return tensor
    _DEVICE_CONSTANTS[slot] = tensor
    if len(_DEVICE_CONSTANTS) > DEVICE_CONSTANTS_KEPT:
        _DEVICE_CONSTANTS.popitem(last=False)
    return tensor


def kept_size(keep: Array) -> int:
    """How many slots the kept entries of a row of ``keep`` need: the most any row keeps where sizes may
    follow the data (:func:`sizes_from_data`), else the rows' length.

    Example:
        >>> kept_size(np.array([[True, False, True], [False, False, True]]))
        2
    """
    if not sizes_from_data(keep):
        return int(keep.shape[-1])
    return int(keep.sum(-1).max()) if math.prod(keep.shape) else 0


def pack_kept(keep: ArrayT | None, size: int, *columns: tuple[ArrayT, float | ArrayT]) -> list[ArrayT]:
    """Each column's entries where ``keep`` holds, packed in order to the front of ``size`` slots along the
    last axis; the slots after them hold the column's filler (a value, or an array broadcast against the
    packed rows).

    ``keep`` has the columns' shape ``(..., L)`` (``None``: every entry is kept) and ``size`` is at least
    what a row keeps (:func:`kept_size`). On the host, a 1-D array packed to its exact size is read
    where ``keep`` holds, with nothing to fill.

    Example:
        >>> keep = np.array([[True, False, True]])
        >>> [packed.tolist() for packed in pack_kept(keep, 3, (np.array([[5, 6, 7]]), -1))]
        [[[5, 7, -1]]]
    """
    if keep is None:
        packed: list[ArrayT] = []
        values: ArrayT  # declared for mypy, which cannot type it inside the starred shape otherwise
        for values, filler in columns:
            out = _filled(values, (*values.shape[:-1], size), filler)
            out[..., : values.shape[-1]] = values
            packed.append(out)
        return packed
    if not is_tensor(keep) and keep.ndim == 1:
        where = np.flatnonzero(keep)
        if where.shape[0] == size:
            return [values.take(where) for values, _ in columns]
    slots = array_namespace(keep).where(keep, running_count(keep) - 1, size)  # dropped entries: slot `size`
    # (mypy cannot type a comprehension's variable inside the starred shape of a generic function)
    return [
        scatter_into(_filled(values, (*values.shape[:-1], size + 1), filler), slots, values)[..., :size]  # type: ignore[has-type]
        for values, filler in columns
    ]


def _filled(like: ArrayT, shape: tuple[int, ...], filler: float | ArrayT) -> ArrayT:
    """A new array of ``like``'s kind and dtype, of ``shape``, holding ``filler`` (broadcast when an array)."""
    if is_tensor(filler) or isinstance(filler, np.ndarray):
        out = empty_like_shape(like, shape)
        out[...] = filler
        return out
    return full_like_shape(like, shape, filler)


def add_where_(out: ArrayT, values: ArrayT, where: ArrayT) -> ArrayT:
    """``out += values`` where ``where`` holds, in place; returns ``out``.

    Example:
        >>> add_where_(np.array([1, 1, 1]), np.array([5, 6, 7]), np.array([True, False, True])).tolist()
        [6, 1, 8]
    """
    if is_tensor(out):
        return out.add_(array_namespace(out).where(where, values, 0))
    added: np.ndarray = np.add(out, values, out=out, where=where)
    return added


def shifted_sum(high: ArrayT, bits: int, low: ArrayT) -> ArrayT:
    """``high * 2**bits + low`` (one fused operation on tensors).

    Example:
        >>> shifted_sum(np.array([1, 2]), 4, np.array([3, 0])).tolist()
        [19, 32]
    """
    if is_tensor(high):
        fused: Tensor = array_namespace(high).add(low, high, alpha=1 << bits)
        return fused
    shifted: np.ndarray = (high << bits) + low
    return shifted

"""Small digits for any ids: dense ranks, and the int64 budget that packed n-gram keys share.

Every algorithm of the engine packs several tokens into one int64 key. Ids can be any int64, so
each token first becomes its dense rank among the distinct values of its row: ``1, 2, ...``, as many
as there are distinct values, which needs only as many bits as the row has slots.
"""

from __future__ import annotations

import numpy as np

from ..arrays import ArrayT, array_namespace, cumsum_, full_like_shape, is_tensor, scatter_last, sizes_from_data
from .rowsort import sort_with_order

#: Bits a packed key may use (keys stay non-negative int64).
KEY_BITS = 63
#: On the host, 1-D values that span at most this many values, or at most as many as there are values,
#: are ranked through a table of the values present instead of a sort.
TABLE_RANKS_MAX = 1 << 16


def dense_ranks(values: ArrayT, valid: ArrayT | None = None, *, start: int = 1) -> tuple[ArrayT, int]:
    """The rank ``start, start + 1, ...`` (``1, 2, ...`` unless given) of each value among the distinct
    values of its row (along the last axis), and a bound on how many distinct values a row holds: the
    exact number where sizes may follow the data, else the rows' length.

    With ``valid``, only the values where it holds are ranked (they must be non-negative), and the
    others get rank ``start - 1``.

    Example:
        >>> dense_ranks(np.array([30, 10, 30, 99]), np.array([True, True, True, False]))
        (array([2, 1, 2, 0]), 2)
        >>> dense_ranks(np.array([[-5, 7, -5], [3, 3, 3]]))[0].tolist()
        [[1, 2, 1], [1, 1, 1]]
        >>> dense_ranks(np.array([7, -1, 7, 2**40]), start=0)
        (array([1, 0, 1, 2]), 3)
    """
    xp = array_namespace(values)
    if values.shape[-1] == 0:
        return full_like_shape(values, values.shape, 0, xp.int64), 0
    keyed = values if valid is None else xp.where(valid, values, -1)  # invalid slots sort first
    if not is_tensor(values) and values.ndim == 1:
        low, high = int(keyed.min()), int(keyed.max())
        if high - low <= max(TABLE_RANKS_MAX, values.shape[0]):  # no sort
            return _table_ranks(keyed, low, high, start, invalid_lowest=valid is not None and low < 0)
    sorted_values, order = sort_with_order(keyed)
    new = full_like_shape(values, values.shape, 0, xp.int64)
    new[..., :1] = start if valid is None else sorted_values[..., :1] >= 0
    if valid is not None and start != 1:
        new[..., :1] += start - 1
    new[..., 1:] = sorted_values[..., 1:] != sorted_values[..., :-1]
    sorted_ranks = cumsum_(new)
    distinct = int(sorted_ranks[..., -1].max()) - start + 1 if sizes_from_data(values) else values.shape[-1]
    return scatter_last(sorted_ranks, order), distinct


def _table_ranks(values: np.ndarray, low: int, high: int, start: int, invalid_lowest: bool) -> tuple[np.ndarray, int]:
    """:func:`dense_ranks` of 1-D ``values`` from ``low`` to ``high``, by a running count over a table of the
    values present; with ``invalid_lowest``, the values ``low`` stand for invalid slots (rank ``start - 1``).

    Example:
        >>> _table_ranks(np.array([12, 10, 12]), 10, 12, 0, invalid_lowest=False)
        (array([1, 0, 1]), 2)
    """
    index = values - low if low else values
    present = np.zeros(high - low + 1, dtype=np.int64)
    present[index] = 1
    present[0] = start - 1 if invalid_lowest else start  # ``low`` is present: it is the lowest value
    table = np.cumsum(present, out=present)
    return table.take(index), int(table[-1]) - start + 1

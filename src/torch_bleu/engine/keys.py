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
#: On the host, 1-D values below this are ranked through a table of the values present instead of a sort.
TABLE_RANKS_MAX = 1 << 16


def dense_ranks(values: ArrayT, valid: ArrayT | None = None) -> tuple[ArrayT, int]:
    """The rank ``1, 2, ...`` of each value among the distinct values of its row (along the last axis),
    and a bound on how many distinct values a row holds: the exact number where sizes may follow the
    data, else the rows' length.

    With ``valid``, only the values where it holds are ranked (they must be non-negative), and the
    others get rank 0.

    Example:
        >>> dense_ranks(np.array([30, 10, 30, 99]), np.array([True, True, True, False]))
        (array([2, 1, 2, 0]), 2)
        >>> dense_ranks(np.array([[-5, 7, -5], [3, 3, 3]]))[0].tolist()
        [[1, 2, 1], [1, 1, 1]]
    """
    xp = array_namespace(values)
    if values.shape[-1] == 0:
        return full_like_shape(values, values.shape, 0, xp.int64), 0
    keyed = values if valid is None else xp.where(valid, values, -1)  # invalid slots sort first, rank 0
    if not is_tensor(values) and values.ndim == 1 and int(keyed.min()) >= -1 and int(keyed.max()) < TABLE_RANKS_MAX:
        present = np.zeros(int(keyed.max()) + 2, dtype=np.int64)  # small values (code points): no sort
        present[keyed + 1] = 1
        present[0] = 0
        table = np.cumsum(present, out=present)
        return table[keyed + 1], int(table[-1])
    sorted_values, order = sort_with_order(keyed)
    new = full_like_shape(values, values.shape, 0, xp.int64)
    new[..., :1] = 1 if valid is None else sorted_values[..., :1] >= 0
    new[..., 1:] = sorted_values[..., 1:] != sorted_values[..., :-1]
    sorted_ranks = cumsum_(new)
    distinct = int(sorted_ranks[..., -1].max()) if sizes_from_data(values) else values.shape[-1]
    return scatter_last(sorted_ranks, order), distinct

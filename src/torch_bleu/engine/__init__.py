"""The counting engine: clipped n-gram matches of padded rows, exact and free of host syncs.

:func:`clipped_matches` takes rows stacked by :func:`~torch_bleu.engine.rows.stack_rows` (or built
as :class:`~torch_bleu.engine.rows.StackedRows` directly: the command line stacks every system of a
corpus against shared references) and picks one of two exact algorithms from the shapes alone
(never from the data, so nothing waits for the device):

* ``"sorted"`` (:mod:`~torch_bleu.engine.sorted_keys`): one sort per sentence of packed n-gram keys
  serves every order; memory linear in the tokens. The default.
* ``"pairwise"`` (:mod:`~torch_bleu.engine.pairwise`): compares every hypothesis window with every
  window of its sentence; no sort, quadratic memory, faster for rows of a few tokens only.

Both run unchanged on PyTorch tensors (any device, ``meta`` included) and on NumPy arrays, and
import neither PyTorch nor anything that does.

On the host, ``"auto"`` counts one hypothesis and one reference per sentence as one stream of their
kept tokens instead (:mod:`~torch_bleu.engine.flat_pairs`), whether stacked as NumPy arrays or given
end to end as a :class:`~torch_bleu.engine.rows.RowStream`: the same keys, without padding slots
(WMT17 in batches of 128: 65% of the slots are padding) or the scatter-add, each pair sorted in a
short row (:class:`~torch_bleu.engine.rowsort.Segments`).

On the CPU a large batch is counted a chunk of sentences at a time (:data:`CHUNK_SLOTS` token slots
on the host, :data:`CPU_TENSOR_CHUNK_SLOTS` for tensors), so that its arrays stay in the caches.
"""

from __future__ import annotations

from typing import Protocol, overload

import numpy as np

from ..arrays import Array, ArrayT, array_namespace, full_like_shape, is_tensor
from .flat_pairs import PairStream, pair_matches, stacked_pairs, stream_pairs
from .pairwise import pairwise_matches
from .rows import RowStream, StackedRows, stack_rows, stacked_chunks, stream_chunks
from .sorted_keys import sorted_key_matches

__all__ = [
    "ALGORITHMS",
    "CHUNK_SLOTS",
    "CPU_TENSOR_CHUNK_SLOTS",
    "PAIRWISE_MAX_WIDTH",
    "RowStream",
    "StackedRows",
    "choose_algorithm",
    "clipped_matches",
    "stack_rows",
]


class Algorithm(Protocol):
    """An exact algorithm: ``(B, K, max_order)`` clipped matches of stacked rows."""

    def __call__(self, rows: StackedRows[ArrayT], max_order: int, /) -> ArrayT: ...


ALGORITHMS: dict[str, Algorithm] = {"sorted": sorted_key_matches, "pairwise": pairwise_matches}

#: On the host, a batch's pairs are counted this many token slots at a time (at least one sentence): a
#: chunk's arrays stay in the CPU's caches and its memory is reused by the next instead of being
#: mapped afresh. Per-sentence BLEU of a 256 x 1024 batch in chunks of 2^15 slots: 20 ms, against 48
#: ms at once (2^14: 24 ms, 2^16: 24 ms).
CHUNK_SLOTS = 2**15
#: The same for CPU tensors (several references, or hypotheses, per sentence): 256 x 1024 with 4
#: references as chunks of 2^17 slots: 169 ms, against 288 ms at once on one thread (192 ms on two).
CPU_TENSOR_CHUNK_SLOTS = 2**17

#: Rows up to this many tokens go to the pairwise algorithm; on longer rows sorting wins, by 2 to 3
#: times at 16 to 24 tokens (measured on CPU, see the speed page of the documentation).
PAIRWISE_MAX_WIDTH = 4


def _in_chunks(streams: list[PairStream[np.ndarray]], max_order: int) -> np.ndarray:
    """``(B, 1, max_order)`` matches of the pairs of the ``streams``, one after the other."""
    parts = [pair_matches(stream, max_order) for stream in streams]
    return (parts[0] if len(parts) == 1 else np.concatenate(parts))[:, None]


def choose_algorithm(width: int, hypotheses: int = 1) -> str:
    """The algorithm for rows of ``width`` tokens with ``hypotheses`` hypotheses per sentence.

    Example:
        >>> choose_algorithm(width=4), choose_algorithm(width=5), choose_algorithm(width=4, hypotheses=3)
        ('pairwise', 'sorted', 'sorted')
    """
    return "pairwise" if width <= PAIRWISE_MAX_WIDTH and hypotheses == 1 else "sorted"


@overload
def clipped_matches(rows: RowStream, max_order: int, algorithm: str = "auto") -> np.ndarray: ...
@overload
def clipped_matches(rows: StackedRows[ArrayT], max_order: int, algorithm: str = "auto") -> ArrayT: ...
def clipped_matches(
    rows: StackedRows[ArrayT] | RowStream, max_order: int, algorithm: str = "auto"
) -> ArrayT | np.ndarray:
    """``(B, K, max_order)`` clipped n-gram matches of the ``K`` hypotheses of each sentence.

    Args:
        rows: the batch, from :func:`~torch_bleu.engine.rows.stack_rows` or built directly; or a
            :class:`~torch_bleu.engine.rows.RowStream`, counted as one stream of pairs whatever the
            ``algorithm``.
        max_order: highest n-gram order.
        algorithm: ``"auto"`` (chosen from the shapes), ``"sorted"`` or ``"pairwise"``.

    Example:
        >>> import numpy as np
        >>> rows = StackedRows(np.array([[[1, 2, 2], [2, 2, 2]]]), keep=None, lengths=np.array([[3, 3]]))
        >>> [clipped_matches(rows, 2, name).tolist() for name in ("sorted", "pairwise")]
        [[[[2, 1]]], [[[2, 1]]]]
    """
    if isinstance(rows, RowStream):
        return _in_chunks([stream_pairs(part) for part in stream_chunks(rows, CHUNK_SLOTS)], max_order)
    batch, sources, width = rows.tokens.shape
    if algorithm == "auto" and sources == 2 and rows.hypotheses == 1 and not is_tensor(rows.tokens):
        return _in_chunks([stacked_pairs(part) for part in stacked_chunks(rows, CHUNK_SLOTS)], max_order)
    if algorithm == "auto":
        algorithm = choose_algorithm(width, rows.hypotheses)
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected 'auto', {', '.join(map(repr, ALGORITHMS))}")
    if algorithm == "pairwise" and rows.hypotheses != 1:
        raise ValueError(f"the pairwise algorithm counts one hypothesis per sentence, not {rows.hypotheses}")
    if sources == rows.hypotheses or 0 in rows.tokens.shape:  # no reference, or nothing to count
        return full_like_shape(rows.lengths, (batch, rows.hypotheses, max_order), 0)
    count = ALGORITHMS[algorithm]
    if not _in_cpu_tensors(rows.tokens):
        return count(rows, max_order)
    parts = [count(part, max_order) for part in stacked_chunks(rows, CPU_TENSOR_CHUNK_SLOTS)]
    return parts[0] if len(parts) == 1 else array_namespace(parts[0]).cat(parts)


def _in_cpu_tensors(tokens: Array) -> bool:
    """Whether ``tokens`` are a CPU tensor counted eagerly (a compiled graph keeps the batch whole)."""
    return is_tensor(tokens) and tokens.device.type == "cpu" and not array_namespace(tokens).compiler.is_compiling()

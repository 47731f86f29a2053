"""The rows of a batch side by side: hypotheses and references in one ``(B, S, L)`` array; or, for one
hypothesis and one reference per sentence, end to end in one stream (:class:`RowStream`).

Every algorithm of the engine starts here. The first ``K`` rows of each sentence are hypotheses
(one for the metric and the functional API; every system of a corpus for the command line), the
other ``R`` its references; all are padded to one width ``L``, so that one batched operation
handles hypotheses and references alike. Which tokens take part is said by ``keep``, never by a
padding id: negative ids (no token id is negative: Hugging Face pads labels with -100), ignored ids,
padding, what follows a row's first EOS and absent references are dropped wherever they sit, and the
kept tokens packed to the front of their row, so that n-grams are formed over kept tokens only.

The rows are PyTorch tensors on any device or NumPy arrays; the engine runs the same code on both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Generic, NamedTuple

import numpy as np

from ..arrays import Array, ArrayT, arange_like, array_namespace, cast, full_like_shape, running_max

if TYPE_CHECKING:  # to type checkers, one kind of array throughout (a NamedTuple is generic from Python 3.11 on)

    class StackedRows(NamedTuple, Generic[ArrayT]):
        """The batch below, its arrays all of one kind."""

        tokens: ArrayT
        keep: ArrayT | None
        lengths: ArrayT
        hypotheses: int = 1

else:

    class StackedRows(NamedTuple):
        """A batch as ``(B, S, L)`` rows, ``S = K + R``: the hypotheses, then the references.

        Attributes:
            tokens: ``(B, S, L)`` int64 ids, each row padded to the common width ``L``.
            keep: ``(B, S, L)`` bool, the tokens that take part in n-grams; ``None`` when all do.
            lengths: ``(B, S)`` int64, how many tokens each row keeps.
            hypotheses: ``K``, how many of the first rows are hypotheses.
        """

        tokens: Array
        keep: Array | None
        lengths: Array
        hypotheses: int = 1


class RowStream(NamedTuple):
    """A batch of one hypothesis and one reference per sentence on the host, its rows end to end: the
    hypothesis of sentence 0, its reference, the hypothesis of sentence 1, ... Every token counts.

    Attributes:
        tokens: ``(N,)`` int64 NumPy array, the ids of all rows, one row after the other.
        lengths: ``(B, 2)`` int64 NumPy array, the tokens of each hypothesis and reference.
        distinct: ``D`` when the ids are ``0 .. D - 1`` already (numbered words), else ``None``.
    """

    tokens: np.ndarray
    lengths: np.ndarray
    distinct: int | None = None


def stacked_chunks(rows: StackedRows[ArrayT], slots: int) -> list[StackedRows[ArrayT]]:
    """``rows`` as consecutive batches of sentences of at most ``slots`` token slots each (at least one
    sentence), chosen from the shape alone.

    Example:
        >>> import numpy as np
        >>> rows = StackedRows(np.zeros((5, 2, 3)), None, np.zeros((5, 2)))
        >>> [part.tokens.shape[0] for part in stacked_chunks(rows, slots=12)]
        [2, 2, 1]
    """
    batch, sources, width = rows.tokens.shape
    step = max(1, slots // max(1, sources * width))
    if step >= batch:
        return [rows]
    return [
        rows._replace(
            tokens=rows.tokens[first : first + step],
            keep=None if rows.keep is None else rows.keep[first : first + step],
            lengths=rows.lengths[first : first + step],
        )
        for first in range(0, batch, step)
    ]


def stream_chunks(rows: RowStream, slots: int) -> list[RowStream]:
    """``rows`` as consecutive streams of sentences of at most ``slots`` tokens each (a longer sentence
    alone).

    Example:
        >>> import numpy as np
        >>> rows = RowStream(np.arange(10), np.array([[2, 2], [1, 1], [3, 1]]))
        >>> [part.lengths.tolist() for part in stream_chunks(rows, slots=6)]
        [[[2, 2], [1, 1]], [[3, 1]]]
    """
    ends = rows.lengths.sum(-1).cumsum()
    if not ends.shape[0] or ends[-1] <= slots:
        return [rows]
    parts, first, start = [], 0, 0
    while first < ends.shape[0]:
        last = max(first + 1, int(np.searchsorted(ends, start + slots, side="right")))
        end = int(ends[last - 1])
        parts.append(rows._replace(tokens=rows.tokens[start:end], lengths=rows.lengths[first:last]))
        first, start = last, end
    return parts


def stack_rows(
    preds: ArrayT,
    target: ArrayT,
    ignore_ids: Sequence[int] = (),
    ref_present: ArrayT | None = None,
    row_lengths: ArrayT | None = None,
    eos_ids: Sequence[int] = (),
) -> StackedRows[ArrayT]:
    """Put ``preds`` ``(B, Lp)`` and ``target`` ``(B, R, Lt)`` side by side and mark the tokens to keep.

    A token is kept when it is neither negative nor in ``ignore_ids``, comes before the first of
    ``eos_ids`` in its row, lies inside its row's original width (and within its length, when
    ``row_lengths`` ``(B, 1 + R)`` gives the lengths of ragged rows), and belongs to the hypothesis or
    to a reference that ``ref_present`` (``(B, R)`` bool) does not mark absent.

    Example:
        >>> import torch
        >>> rows = stack_rows(torch.tensor([[7, 0, 8]]), torch.tensor([[[0, 9, 8]]]), ignore_ids=[0])
        >>> rows.tokens.tolist(), rows.keep.tolist(), rows.lengths.tolist()
        ([[[7, 0, 8], [0, 9, 8]]], [[[True, False, True], [False, True, True]]], [[2, 2]])
        >>> stack_rows(torch.tensor([[7, 2, 8]]), torch.tensor([[[9, 8, 2]]]), eos_ids=[2]).keep.tolist()
        [[[True, False, False], [True, True, False]]]
    """
    xp = array_namespace(preds)
    batch, hyp_width = preds.shape
    num_refs, ref_width = target.shape[1], target.shape[2]
    width = max(hyp_width, ref_width)
    # Padding added here is negative, so the test of kept ids drops it too.
    tokens = full_like_shape(preds, (batch, num_refs + 1, width), -1)
    tokens[:, 0, :hyp_width] = preds
    tokens[:, 1:, :ref_width] = target

    keep = kept_ids(tokens, ignore_ids, eos_ids)
    if row_lengths is not None:
        keep = keep & (arange_like(width, preds) < row_lengths[..., None])
    if ref_present is not None:
        hypothesis_present = full_like_shape(ref_present, (batch, 1), True)
        row_present = xp.concatenate([hypothesis_present, ref_present], 1)[..., None]
        keep = keep & row_present
    return StackedRows(tokens, keep, keep.sum(-1))


def kept_ids(tokens: ArrayT, ignore_ids: Sequence[int], eos_ids: Sequence[int]) -> ArrayT:
    """Which ``tokens`` (rows along the last axis) count: those neither negative nor in ``ignore_ids`` that
    come before the first of ``eos_ids`` in their row.

    No token id is negative, so a negative id is dropped as an ignored one is, wherever ids enter:
    Hugging Face pads ``labels`` with -100, and a detokenizer never looks a negative id up.

    Example:
        >>> import torch
        >>> kept_ids(torch.tensor([[5, 0, 2, 6]]), ignore_ids=[0], eos_ids=[2]).tolist()
        [[True, False, False, False]]
        >>> kept_ids(torch.tensor([[5, -100, 6]]), ignore_ids=[], eos_ids=[]).tolist()
        [[True, False, True]]
    """
    keep = tokens >= 0
    for token_id in ignore_ids:
        if token_id >= 0:
            keep = keep & (tokens != token_id)
    if eos_ids:
        keep = keep & _before_first(tokens, eos_ids)
    return keep


def _before_first(tokens: ArrayT, stop_ids: Sequence[int]) -> ArrayT:
    """Bool: the tokens that come before the first of ``stop_ids`` in their row (a running
    maximum, so no position has to be looked up on the host)."""
    xp = array_namespace(tokens)
    is_stop = tokens == stop_ids[0]
    for token_id in stop_ids[1:]:
        is_stop |= tokens == token_id
    before: ArrayT = running_max(cast(is_stop, xp.uint8)) == 0
    return before

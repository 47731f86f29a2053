"""The rows of a batch side by side: hypothesis and references in one ``(B, S, L)`` tensor.

Every algorithm of the engine starts here. Row 0 of each sentence is its hypothesis, rows ``1..R``
its references; all are padded to one width ``L = max(Lp, Lt)``, so that one batched operation
handles hypothesis and references alike. Ignored ids are dropped wherever they sit and the kept
tokens packed to the front of their row, so that n-grams are formed over kept tokens only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor


class StackedRows(NamedTuple):
    """A batch as ``(B, S, L)`` rows, ``S = R + 1``: the hypothesis, then each reference.

    Attributes:
        tokens: ``(B, S, L)`` int64 ids, each row padded to the common width ``L``.
        keep: ``(B, S, L)`` bool, the tokens that take part in n-grams; ``None`` when all do.
        lengths: ``(B, S)`` int64, how many tokens each row keeps.
    """

    tokens: Tensor
    keep: Tensor | None
    lengths: Tensor


def stack_rows(
    preds: Tensor, target: Tensor, ignore_ids: Sequence[int] = (), ref_present: Tensor | None = None
) -> StackedRows:
    """Put ``preds`` ``(B, Lp)`` and ``target`` ``(B, R, Lt)`` side by side and mark the tokens to keep.

    A token is kept when it is not in ``ignore_ids``, lies inside its row's original width, and
    belongs to the hypothesis or to a reference that ``ref_present`` (``(B, R)`` bool) does not mark
    absent.

    Example:
        >>> rows = stack_rows(torch.tensor([[7, 0, 8]]), torch.tensor([[[0, 9, 8]]]), ignore_ids=[0])
        >>> rows.tokens.tolist(), rows.keep.tolist(), rows.lengths.tolist()
        ([[[7, 0, 8], [0, 9, 8]]], [[[True, False, True], [False, True, True]]], [[2, 2]])
    """
    batch, hyp_width = preds.shape
    num_refs, ref_width = target.shape[1], target.shape[2]
    width = max(hyp_width, ref_width)
    # Padding added here gets an ignored id when there is one, so the ignore test drops it too.
    filler = ignore_ids[0] if ignore_ids else 0
    tokens = preds.new_full((batch, num_refs + 1, width), filler)
    tokens[:, 0, :hyp_width] = preds
    tokens[:, 1:, :ref_width] = target

    keep: Tensor | None = None
    for token_id in ignore_ids:
        kept = tokens != token_id
        keep = kept if keep is None else keep.logical_and_(kept)
    if not ignore_ids and hyp_width != ref_width:
        row_width = torch.where(torch.arange(num_refs + 1, device=preds.device) > 0, ref_width, hyp_width)
        keep = (torch.arange(width, device=preds.device) < row_width.unsqueeze(-1)).expand(tokens.shape)
    if ref_present is not None:
        row_present = torch.cat([ref_present.new_ones(batch, 1), ref_present], 1).unsqueeze(-1)
        keep = row_present.expand(tokens.shape) if keep is None else keep & row_present
    if keep is None:
        return StackedRows(tokens, None, torch.full((batch, num_refs + 1), width, device=preds.device))
    return StackedRows(tokens, keep, keep.sum(-1))


def compact(values: Tensor, keep: Tensor | None, filler: Tensor, width: int) -> Tensor:
    """Pack the kept entries of ``values`` ``(..., L)`` to the front of rows of ``width`` slots.

    The slots after a row's kept entries hold ``filler`` (broadcast against the rows), except slot
    ``width - 1``, where the dropped entries go: callers choose ``width`` so that they never read it.

    Example:
        >>> keep = torch.tensor([[True, False, True]])
        >>> compact(torch.tensor([[5, 6, 7]]), keep, torch.tensor(-1), width=5).tolist()
        [[5, 7, -1, -1, 6]]
    """
    packed = filler.to(values.dtype).expand(*values.shape[:-1], width).clone()
    if keep is None:
        packed[..., : values.shape[-1]] = values
        return packed
    slots = torch.where(keep, keep.cumsum(-1) - 1, width - 1)
    return packed.scatter_(-1, slots, values)

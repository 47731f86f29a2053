"""Checking and normalizing what users pass as ``preds`` and ``target``.

Everything is checked from shapes and dtypes only, so validation never synchronizes with the device
and runs before any state is touched.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import torch
from torch import Tensor


class TokenBatch(NamedTuple):
    """A validated batch: ``preds`` ``(B, Lp)`` and ``target`` ``(B, R, Lt)``, both int64.

    ``ref_present`` ``(B, R)`` marks the real references when the input said so explicitly; ``None``
    means "a reference row with no token left is absent".
    """

    preds: Tensor
    target: Tensor
    ref_present: Optional[Tensor] = None


def _check_id_tensor(value: object, name: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a tensor of integer token ids, got {type(value).__name__}")
    if value.dtype == torch.bool or value.is_floating_point() or value.is_complex():
        raise TypeError(f"{name} must hold integer token ids, got dtype {value.dtype}")
    return value


def token_batch(preds: object, target: object) -> TokenBatch:
    """Validate a padded batch and bring it to int64 ``(B, Lp)`` / ``(B, R, Lt)``.

    Example:
        >>> batch = token_batch(torch.tensor([[1, 2, 0]], dtype=torch.int32), torch.tensor([[1, 2]]))
        >>> batch.preds.dtype, tuple(batch.target.shape)
        (torch.int64, (1, 1, 2))
        >>> token_batch(torch.tensor([[1.0]]), torch.tensor([[1]]))
        Traceback (most recent call last):
        ...
        TypeError: preds must hold integer token ids, got dtype torch.float32
    """
    preds = _check_id_tensor(preds, "preds")
    target = _check_id_tensor(target, "target")
    if preds.dim() != 2:
        raise ValueError(f"preds must be 2-D (batch, length), got shape {tuple(preds.shape)}")
    if target.dim() not in (2, 3):
        raise ValueError(
            f"target must be 2-D (batch, length) or 3-D (batch, references, length), got shape {tuple(target.shape)}"
        )
    if preds.shape[0] != target.shape[0]:
        raise ValueError(f"preds and target batch sizes differ: {preds.shape[0]} != {target.shape[0]}")
    if preds.device != target.device:
        raise ValueError(f"preds and target are on different devices: {preds.device} and {target.device}")
    if target.dim() == 2:
        target = target.unsqueeze(1)
    return TokenBatch(preds.long(), target.long())

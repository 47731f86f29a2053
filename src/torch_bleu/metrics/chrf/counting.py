"""chrF's statistics of a batch: input checked by its kind (strings, subword ids), as text pairs, then
counted (:mod:`.statistics`): strings as given (counted with NumPy unless a device is named), or subword
ids decoded on their device by the detokenizer (references may then be ids or strings).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from ...arrays import ArrayT, arange_like, array_namespace, as_tensor, sizes_from_data
from ...inputs.kinds import SubwordIds, Text, TokenIds, read_input
from .config import CHRFConfig
from .statistics import chrf_statistics
from .stream import TextPairs, pairs_from_strings


def sentence_statistics(preds: Any, target: Any, config: CHRFConfig) -> Tensor:
    """``(B, orders, 3)`` statistics (hypothesis, reference and match counts) of every sentence.

    ``preds`` are strings, or subword ids with ``config.detokenizer``; ``target`` holds, per
    hypothesis, its reference or a list of its references (strings, or ids with a detokenizer).

    Example:
        >>> sentence_statistics(["the cat"], ["the hat"], CHRFConfig(char_order=1)).tolist()
        [[[6, 6, 5]]]
    """
    statistics: Tensor = as_tensor(chrf_statistics(as_text(preds, target, config), config))
    return statistics


def ids_statistics(ids: TokenIds, config: CHRFConfig) -> Tensor:
    """``(B, orders, 3)`` statistics (:func:`sentence_statistics`) of a checked batch of subword ids."""
    statistics: Tensor = as_tensor(chrf_statistics(ids_text(ids), config))
    return statistics


def as_text(
    preds: Any, target: Any, config: CHRFConfig, device: torch.device | None = None
) -> TextPairs[torch.Tensor] | TextPairs[np.ndarray]:
    """``preds`` and ``target`` as text pairs: NumPy arrays for strings counted on the CPU (``device``
    ``None`` or a CPU), tensors on ``device`` or on the ids' device otherwise.

    Example:
        >>> text = as_text(["ab"], [["a", "abc"]], CHRFConfig())
        >>> text.chars.tolist(), text.rows.tolist(), text.present
        ([97, 98, 97, 97, 98, 97, 98, 99], [0, 0, 1, 2, 2, 3, 3, 3], None)
    """
    match read_input(preds, target, config):
        case Text(hypotheses, references):
            texts = [[hypothesis, *refs] for hypothesis, refs in zip(hypotheses, references)]
            if config.lowercase:
                texts = [[text.lower() for text in sentence] for sentence in texts]
            pairs = pairs_from_strings(texts)
            return pairs if device is None or device.type == "cpu" else text_on(pairs, device)
        case ids:
            return ids_text(ids)


def ids_text(ids: TokenIds) -> TextPairs[torch.Tensor] | TextPairs[np.ndarray]:
    """A checked batch of subword ids as the text pairs of their decoded rows: NumPy arrays on the CPU,
    where sizes follow the data, tensors on the ids' device otherwise."""
    assert isinstance(ids, SubwordIds)  # chrF reads ids only with a detokenizer
    chars, present = ids.decoded(), ids.present
    if sizes_from_data(chars):  # on the CPU: counted with NumPy, on the same memory
        return pairs_from_rows(chars.numpy(), None if present is None else present.numpy())
    return pairs_from_rows(chars, present)


def text_on(text: TextPairs[np.ndarray], device: torch.device) -> TextPairs[torch.Tensor]:
    """NumPy text pairs as tensors on ``device``."""
    present = None if text.present is None else torch.from_numpy(text.present).to(device)
    chars, rows = (torch.from_numpy(np.array(values)).to(device) for values in (text.chars, text.rows))
    return TextPairs(chars, rows, text.batch, text.references, present)


def pairs_from_rows(chars: ArrayT, present: ArrayT | None) -> TextPairs[ArrayT]:
    """Rows of code points ``(B, 1 + R, W)`` (a hypothesis, then its references; ``-1`` past a row's end)
    as text pairs of the same kind (on the same device), each hypothesis beside each of its references.

    Example:
        >>> chars = torch.tensor([[[97, -1], [98, 99]]], dtype=torch.int32)
        >>> text = pairs_from_rows(chars, None)
        >>> text.chars.tolist(), text.rows.tolist()
        ([97, -1, 98, 99], [0, 2, 1, 1])
    """
    xp = array_namespace(chars)
    batch, sources, width = chars.shape
    references = sources - 1
    hypotheses = xp.broadcast_to(chars[:, :1], (batch, references, width))
    paired = xp.stack([hypotheses, chars[:, 1:]], 2).reshape(-1)
    pairs = batch * references
    rows = arange_like(2 * pairs * width, chars) // max(width, 1)
    rows = xp.where(paired >= 0, rows, 2 * pairs)
    return TextPairs(paired, rows, batch, references, present)

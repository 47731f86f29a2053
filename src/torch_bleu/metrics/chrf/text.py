"""chrF's inputs as text pairs: strings as given (counted with NumPy unless a device is named), or
subword ids decoded on their device by the detokenizer (references may then be ids or strings).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ...arrays import ArrayT, arange_like, array_namespace, sizes_from_data
from ...detokenize.pipeline import decoded_text
from ...engine.rows import stack_rows
from ...inputs.strings import sentences, subword_batch
from .config import CHRFConfig
from .stream import TextPairs, pairs_from_strings


def checked_text(preds: Any, target: Any, config: CHRFConfig) -> tuple[list[str], list[list[str]]] | None:
    """A batch of strings, checked: the hypotheses and each one's references; ``None`` with a detokenizer
    (subword ids).

    Example:
        >>> checked_text(["ab"], [["a", "abc"]], CHRFConfig())
        (['ab'], [['a', 'abc']])
    """
    return None if config.detokenizer is not None else sentences(preds, target, config.input_hint)


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
    if config.detokenizer is not None:
        ids = subword_batch(preds, target, config.input_hint)
        rows = stack_rows(ids.preds, ids.target, config.ignored_ids, ids.ref_present, ids.row_lengths, config.eos_ids)
        present = ids.references_present(rows.lengths[:, 1:])
        chars = decoded_text(rows, ids.reference_chars, config.detokenizer)
        if sizes_from_data(chars):  # on the CPU: counted with NumPy, on the same memory
            return pairs_from_rows(chars.numpy(), None if present is None else present.numpy())
        return pairs_from_rows(chars, present)
    strings = checked_text(preds, target, config)
    assert strings is not None  # as there is no detokenizer
    texts = [[hypothesis, *refs] for hypothesis, refs in zip(*strings)]
    if config.lowercase:
        texts = [[text.lower() for text in sentence] for sentence in texts]
    pairs = pairs_from_strings(texts)
    return pairs if device is None or device.type == "cpu" else text_on(pairs, device)


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

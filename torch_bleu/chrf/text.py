"""What chrF reads: the text of every hypothesis and reference as rows of code points on one device.

Strings are taken as they are (lowercased first with ``lowercase``); subword ids are decoded on their
device by the detokenizer (references may then be ids or strings), exactly as for BLEU.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch
from torch import Tensor

from ..detokenize.chars import ragged_rows
from ..detokenize.pipeline import decoded_text
from ..engine.rows import stack_rows
from ..inputs import reference_strings, string_list, subword_batch
from .config import CHRFConfig


class TextBatch(NamedTuple):
    """A batch as text.

    Attributes:
        chars: ``(B, 1 + R, W)`` int32 code points, -1 past each row's end: the hypothesis, then the
            references.
        present: ``(B, R)`` bool, the references that exist; ``None`` when all do.
    """

    chars: Tensor
    present: Tensor | None


def as_text(preds: Any, target: Any, config: CHRFConfig, device: torch.device | None = None) -> TextBatch:
    """``preds`` and ``target`` as text: strings as given, or subword ids decoded by ``config.detokenizer``.

    Example:
        >>> batch = as_text(["ab"], [["a", "abc"]], CHRFConfig())
        >>> batch.chars.tolist(), batch.present.tolist()
        ([[[97, 98, -1], [97, -1, -1], [97, 98, 99]]], [[True, True]])
    """
    if config.detokenizer is not None:
        ids = subword_batch(preds, target)
        rows = stack_rows(ids.preds, ids.target, config.ignore_ids, ids.ref_present, ids.row_lengths)
        present = ids.references_present(rows.lengths[:, 1:])
        return TextBatch(decoded_text(rows, ids.reference_chars, config.detokenizer), present)
    hypotheses = string_list(preds, "preds")
    texts = [[hypothesis, *refs] for hypothesis, refs in zip(hypotheses, reference_strings(target, len(hypotheses)))]
    if config.lowercase:
        texts = [[text.lower() for text in sentence] for sentence in texts]
    chars, present = ragged_rows(texts, device or torch.device("cpu"))
    return TextBatch(chars, present[:, 1:])

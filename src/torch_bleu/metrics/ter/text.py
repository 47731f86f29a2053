"""TER's inputs as sentences: strings as given, or subword ids decoded on their device by the detokenizer
and read back as strings (the shift search runs on the host)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...arrays import to_host
from ...detokenize.pipeline import decoded_text
from ...engine.rows import stack_rows
from ...inputs.strings import sentences, subword_batch
from ...text.code_points import strings_from_rows
from .config import TERConfig
from .statistics import reference_counts


def checked_text(preds: Any, target: Any, config: TERConfig) -> tuple[list[str], list[list[str]]] | None:
    """A batch of strings, checked: the hypotheses and each one's references; ``None`` with a detokenizer
    (subword ids).

    Example:
        >>> checked_text(["a b"], ["a"], TERConfig())
        (['a b'], [['a']])
    """
    if config.detokenizer is not None:
        return None
    hypotheses, references = sentences(preds, target, config.input_hint)
    reference_counts(references)
    return hypotheses, references


def as_sentences(preds: Any, target: Any, config: TERConfig) -> tuple[list[str], list[list[str]]] | int:
    """The hypotheses and, per hypothesis, its references as strings; for subword ids on the meta device,
    which holds no text, the batch size instead.

    Example:
        >>> as_sentences(["a b"], [["a", "b c"]], TERConfig())
        (['a b'], [['a', 'b c']])
    """
    text = checked_text(preds, target, config)
    if text is not None:
        return text
    detokenizer = config.detokenizer
    assert detokenizer is not None  # checked_text takes every batch without one
    ids = subword_batch(preds, target, config.input_hint)
    rows = stack_rows(ids.preds, ids.target, config.ignored_ids, ids.ref_present, ids.row_lengths, config.eos_ids)
    present = ids.references_present(rows.lengths[:, 1:])
    chars = decoded_text(rows, ids.reference_chars, detokenizer)
    if chars.device.type == "meta":
        return int(chars.shape[0])
    texts = strings_from_rows(chars)
    batch, sources = chars.shape[:2]
    kept = np.ones((batch, sources - 1), dtype=bool) if present is None else to_host(present)
    hypotheses = [texts[index * sources] for index in range(batch)]
    references = [[texts[index * sources + 1 + slot] for slot in np.flatnonzero(kept[index])] for index in range(batch)]
    return hypotheses, references

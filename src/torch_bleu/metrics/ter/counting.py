"""TER's statistics of a batch: input checked by its kind (strings, subword ids), as sentences, then
counted on the host (:mod:`.statistics`): strings as given, or subword ids decoded on their device by
the detokenizer and read back as strings (the shift search runs on the host).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from ...arrays import to_host
from ...inputs.kinds import SubwordIds, Text, TokenIds, read_input
from ...text.code_points import strings_from_rows
from .config import TERConfig
from .statistics import ter_statistics


def sentence_statistics(preds: Any, target: Any, config: TERConfig) -> Tensor:
    """``(B, 2)`` int64 statistics of every sentence: its fewest edits over its references, and their mean
    length in :data:`~torch_bleu.metrics.ter.statistics.LENGTH_UNIT` parts of a word.

    ``preds`` are strings, or subword ids with ``config.detokenizer``; ``target`` holds, per
    hypothesis, its reference or a list of its references (strings, or ids with a detokenizer).
    Subword ids are decoded on their device and read back once: the shift search runs on the host.

    Example:
        >>> sentence_statistics(["a b c d"], ["b c d a"], TERConfig())[:, 0].tolist()
        [1]
    """
    return _counted(as_sentences(preds, target, config), config)


def ids_statistics(ids: TokenIds, config: TERConfig) -> Tensor:
    """``(B, 2)`` statistics (:func:`sentence_statistics`) of a checked batch of subword ids."""
    return _counted(ids_sentences(ids), config)


def _counted(text: Text | int, config: TERConfig) -> Tensor:
    """The statistics of sentences; of a batch of ``text`` sentences on the meta device, zeros there."""
    if isinstance(text, int):  # the meta device: shapes only
        return torch.zeros((text, 2), dtype=torch.int64, device="meta")
    return torch.from_numpy(ter_statistics(*text, config))


def as_sentences(preds: Any, target: Any, config: TERConfig) -> Text | int:
    """The hypotheses and, per hypothesis, its references as strings; for subword ids on the meta device,
    which holds no text, the batch size instead.

    Example:
        >>> as_sentences(["a b"], [["a", "b c"]], TERConfig())
        Text(hypotheses=['a b'], references=[['a', 'b c']])
    """
    match read_input(preds, target, config):
        case Text() as text:
            return text
        case ids:
            return ids_sentences(ids)


def ids_sentences(ids: TokenIds) -> Text | int:
    """A checked batch of subword ids as the strings of their decoded rows (:func:`as_sentences`), read
    back once; on the meta device, the batch size."""
    assert isinstance(ids, SubwordIds)  # TER reads ids only with a detokenizer
    chars = ids.decoded()
    if chars.device.type == "meta":
        return int(chars.shape[0])
    texts = strings_from_rows(chars)
    batch, sources = chars.shape[:2]
    kept = np.ones((batch, sources - 1), dtype=bool) if ids.present is None else to_host(ids.present)
    hypotheses = [texts[index * sources] for index in range(batch)]
    references = [[texts[index * sources + 1 + slot] for slot in np.flatnonzero(kept[index])] for index in range(batch)]
    return Text(hypotheses, references)

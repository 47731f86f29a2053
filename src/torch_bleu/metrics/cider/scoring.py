"""Scores of a batch: its captions counted (:mod:`.counting`), their training corpus' document frequencies
looked up where one is given (:class:`~.document_frequency.DocumentFrequency`), and CIDEr-D computed
(:mod:`.consensus`), all on the device of the batch."""

from __future__ import annotations

from typing import Any

from torch import Tensor

from .config import CIDErConfig
from .consensus import TableFrequencies, cider_d, words_to_end
from .counting import Counted, batch_captions


def caption_scores(preds: Any, target: Any, config: CIDErConfig) -> Tensor:
    """``(B, 1)`` float64 CIDEr-D of the caption of each image of a batch.

    Example:
        >>> caption_scores(["a b", "c"], [["a b"], ["c d"]], CIDErConfig()).tolist()
        [[5.0], [1.743384349760141]]
    """
    table = config.document_frequency
    counted = batch_captions(preds, target, config, table.vocabulary if table is not None else None)
    return scores_of(counted, config)


def scores_of(counted: Counted, config: CIDErConfig) -> Tensor:
    """``(B, C)`` float64 CIDEr-D of counted captions, with ``config``'s document frequencies."""
    table = config.document_frequency
    captions = counted.captions
    frequencies = None
    if table is not None:
        counts = table.frequencies(captions.words.reshape(-1), words_to_end(captions), counted.of_ids)
        frequencies = TableFrequencies(counts, table.images)
    return cider_d(captions, config.sigma, frequencies)

"""chrF statistics per sentence: hypothesis, reference and match counts of every order, best reference kept.

Character n-grams are n-grams of code points (whitespace removed unless ``whitespace``); chrF++'s
words are those of :mod:`.words`. Each hypothesis-reference pair is counted on its own by
:func:`~torch_bleu.engine.flat_pairs.pair_matches`, and each sentence keeps the pair with the highest
chrF (the first of equals), as sacrebleu does. Runs on PyTorch tensors (any device, no host sync)
and NumPy arrays alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

import numpy as np

from ...arrays import ArrayT, arange_like, array_namespace, kept_size, occurrences, pack_kept
from ...engine.flat_pairs import PairStream, pair_matches
from ...engine.keys import dense_ranks
from ...text.classes import SPACE, character_classes
from .config import CHRFConfig
from .score import chrf_percent
from .stream import TextPairs
from .words import word_starts, word_stream

if TYPE_CHECKING:
    from torch import Tensor


def _order_statistics(stream: PairStream[ArrayT], orders: int) -> ArrayT:
    """``(P, orders, 3)`` hypothesis, reference and match counts of each pair's n-grams of every order."""
    xp = array_namespace(stream.ranks)
    pairs = stream.pairs
    matches = pair_matches(stream, orders)
    lengths = occurrences(stream.rows, 2 * pairs + 1)[: 2 * pairs].reshape(pairs, 2)
    hyp_count, ref_count = window_counts(lengths[:, 0], lengths[:, 1], orders)
    statistics: ArrayT = xp.stack([hyp_count, ref_count, matches], -1)
    return statistics


def window_counts(hyp_lengths: ArrayT, ref_lengths: ArrayT, orders: int) -> tuple[ArrayT, ArrayT]:
    """``(..., orders)`` n-grams of each order in hypotheses and references of these lengths (broadcast
    together): a hypothesis counts none of an order its reference has none of, as sacrebleu counts.

    Example:
        >>> import numpy as np
        >>> [counts.tolist() for counts in window_counts(np.array([4]), np.array([2]), 3)]
        [[[4, 3, 0]], [[2, 1, 0]]]
    """
    below = arange_like(orders, ref_lengths)  # n - 1 for order n
    ref_count = (ref_lengths[..., None] - below).clip(min=0)
    hyp_count = (hyp_lengths[..., None] - below).clip(min=0) * (ref_count > 0)
    return hyp_count, ref_count


@overload
def chrf_statistics(text: TextPairs[Tensor], config: CHRFConfig) -> Tensor: ...
@overload
def chrf_statistics(text: TextPairs[np.ndarray], config: CHRFConfig) -> np.ndarray: ...
def chrf_statistics(text: TextPairs[ArrayT], config: CHRFConfig) -> ArrayT:
    """``(B, orders, 3)`` int64 statistics of each sentence: character orders first, then word orders.

    Example:
        >>> from .stream import pairs_from_strings
        >>> chrf_statistics(pairs_from_strings([["ab c", "abd"]]), CHRFConfig(char_order=2)).tolist()
        [[[3, 3, 2], [2, 2, 1]]]
    """
    chars, rows = text.chars, text.rows
    xp = array_namespace(chars)
    pairs = text.batch * text.references
    classes = character_classes(chars)
    in_word = (rows < 2 * pairs) & ((classes & SPACE) == 0)
    counted = rows < 2 * pairs if config.whitespace else in_word
    ranks, distinct = dense_ranks(chars, counted)

    words_counted = bool(config.word_order) and not config.whitespace  # the counted characters are the words'
    starts = word_starts(classes, rows)[1] if config.word_order else None

    stream = PairStream(ranks, rows, pairs, distinct)
    char_stream, packed = _kept(stream, counted, *([(starts, False)] if words_counted and starts is not None else []))
    parts = []
    if config.char_order:
        parts.append(_order_statistics(char_stream, config.char_order))
    if starts is not None:
        word_chars, (first_chars,) = (char_stream, packed) if words_counted else _kept(stream, in_word, (starts, False))
        parts.append(_order_statistics(word_stream(word_chars, first_chars), config.word_order))
    statistics = xp.concatenate(parts, 1).reshape(text.batch, text.references, config.orders, 3)
    if text.references == 1:  # nothing to choose
        only: ArrayT = statistics[:, 0]
        return only
    scores = chrf_percent(statistics, config)
    if text.present is not None:
        scores = xp.where(text.present, scores, -2.0)  # below any score and below sacrebleu's start, -1
    best = scores.argmax(-1)  # the first of the highest, as sacrebleu keeps the first
    chosen: ArrayT = statistics[arange_like(text.batch, rows), best]
    return chosen


def _kept(
    stream: PairStream[ArrayT], keep: ArrayT, *more: tuple[ArrayT, bool]
) -> tuple[PairStream[ArrayT], list[ArrayT]]:
    """The slots of ``stream`` where ``keep`` holds, as a stream, and each of ``more`` (a column and its
    filler) read there."""
    ranks, rows, pairs, distinct = stream
    kept = pack_kept(keep, kept_size(keep), (ranks, 0), (rows, 2 * pairs), *more)
    return PairStream(kept[0], kept[1], pairs, distinct), kept[2:]

"""ROUGE's statistics of pairs of word rows on the host, every type from one numbering of the words.

On the CPU the words of each pair are numbered once (a *key* per distinct word of a pair, so equal
keys are equal words of one pair), and every type reads the keys:

* ``rougeN``: n-grams as keys too (an n-gram's key numbers its ``(n - 1)``-gram's key and its last
  word's key), hits the sum over keys of the smaller of the two sides' counts: the clipped matches.
* ``rougeL``: the LCS of the whole rows, by rapidfuzz (``LCSseq``, bit-parallel in C++; an LCS's
  length does not depend on which LCS is chosen); each row's keys less its pair's first key are the
  characters of a string.
* ``rougeLsum``: where both summaries are one sentence, the union LCS is the LCS, and its words are
  matched words of both sides, so the hits are the LCS's length; elsewhere the union LCS of each
  reference sentence (:mod:`.host_union_lcs`), clipped by the prediction's counts of each key.

The accelerator's way, the same numbers, is in :mod:`.device_statistics`; rows of words go to one or
the other as :func:`.statistics.pair_statistics` chooses.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist

from ...engine.keys import dense_ranks
from .host_union_lcs import SideWords, union_lcs_on_host
from .kinds import RougeKind, kind_statistics

#: The highest key (a word's number within its pair) written as one UTF-16 unit: below the surrogates.
_UTF16_KEYS = 0xD800


def host_pair_statistics(pred: SideWords, ref: SideWords, kinds: Sequence[RougeKind]) -> np.ndarray:
    """``(P, T, 3)`` int64 hits, prediction count and reference count of each pair for each of ``kinds``
    (:func:`.kinds.kind_statistics`), of the words of both sides of every pair (any int64 word ids).

    Example:
        >>> from torch_bleu.metrics.rouge.host_union_lcs import side_words
        >>> from torch_bleu.metrics.rouge.kinds import LCS, NGrams, UnionLCS
        >>> words, lines, lengths = np.array([3, 1, 2, 1, 2, 3, 5]), np.zeros(7, dtype=np.int64), np.array([3, 4])
        >>> pred, ref = (side_words(words, lines, lengths, np.array([text])) for text in (0, 1))
        >>> host_pair_statistics(pred, ref, (NGrams(1), NGrams(2), LCS(), UnionLCS())).tolist()
        [[[3, 3, 4], [1, 2, 3], [2, 3, 4], [2, 3, 4]]]
    """
    statistics: np.ndarray = kind_statistics(kinds, _PairKeys(pred, ref), pred.lengths, ref.lengths)
    return statistics.astype(np.int64, copy=False)


class _PairKeys:
    """The words of pairs of rows numbered as keys (:class:`.host_union_lcs.SideWords`: a key per distinct word of
    a pair, numbered in the order of pairs, then of words), ``distinct`` keys, those of pair ``p`` from
    ``first[p]``; the host's :class:`.kinds.HitKernels`."""

    def __init__(self, pred: SideWords, ref: SideWords) -> None:
        self.pairs = pred.lengths.shape[0]
        words = np.concatenate([pred.keys, ref.keys]).astype(np.int64)
        pair = np.concatenate([pred.pair, ref.pair])
        low = int(words.min(initial=0))
        span = int(words.max(initial=0)) - low + 1
        if self.pairs * span >= 2**62:  # number the words first (any int64: differences may overflow)
            words, span = dense_ranks(words)  # ranks 1 .. span
            low = 1
        ranks, self.distinct = dense_ranks(pair * span + (words - low))
        keys = ranks - 1
        split = pred.keys.shape[0]
        self.pred, self.ref = pred._replace(keys=keys[:split]), ref._replace(keys=keys[split:])
        self.key_pair = np.zeros(self.distinct, dtype=np.int64)
        self.key_pair[keys] = pair
        per_pair = np.bincount(self.key_pair, minlength=self.pairs)
        self.first = np.cumsum(per_pair) - per_pair

    def _clipped(self, pred_keys: np.ndarray, ref_keys: np.ndarray, key_pair: np.ndarray, keys: int) -> np.ndarray:
        """``(P,)`` the sum over keys of the smaller count of the two sides, per pair."""
        smaller = np.minimum(np.bincount(pred_keys, minlength=keys), np.bincount(ref_keys, minlength=keys))
        return np.bincount(key_pair, weights=smaller, minlength=self.pairs).astype(np.int64)

    def ngram_hits(self, highest: int) -> np.ndarray:
        """``(P, highest)`` the clipped n-gram matches of orders ``1 .. highest``."""
        hits = [self._clipped(self.pred.keys, self.ref.keys, self.key_pair, self.distinct)]
        sides = (self.pred, self.ref)
        left = [side.lengths[side.pair] - side.place for side in sides]  # words from each to its row's end
        codes = [side.keys for side in sides]  # the key of the (order - 1)-gram that starts at each word
        for order in range(2, highest + 1):
            starts = [np.nonzero(words_left >= order)[0] for words_left in left]
            values = [
                code[start] * self.distinct + side.keys[start + order - 1]
                for code, side, start in zip(codes, sides, starts)
            ]
            ranks, grams = dense_ranks(np.concatenate(values))
            numbers = ranks - 1
            gram_pair = np.zeros(grams, dtype=np.int64)
            gram_pair[numbers] = np.concatenate([side.pair[start] for side, start in zip(sides, starts)])
            split = values[0].shape[0]
            hits.append(self._clipped(numbers[:split], numbers[split:], gram_pair, grams))
            codes = [np.zeros_like(side.keys) for side in sides]
            codes[0][starts[0]], codes[1][starts[1]] = numbers[:split], numbers[split:]
        return np.stack(hits, -1)

    @cached_property
    def _lcs(self) -> np.ndarray:
        """``(P,)`` the LCS of each pair's rows (rougeL's hits, and rougeLsum's where both are one sentence)."""
        if not self.pairs:
            return np.zeros(0, dtype=np.int64)
        rows = [_key_strings(side.keys - self.first[side.pair], side.lengths) for side in (self.pred, self.ref)]
        lengths: np.ndarray = cpdist(rows[0], rows[1], scorer=LCSseq.similarity, dtype=np.int64, workers=1)
        return lengths

    def lcs_hits(self) -> np.ndarray:
        """``(P,)`` the LCS of each pair's rows."""
        return self._lcs

    def union_hits(self) -> np.ndarray:
        """``(P,)`` rougeLsum's hits."""
        lcs = self._lcs
        sentences = [np.bincount(side.pair[side.first], minlength=self.pairs) for side in (self.pred, self.ref)]
        several = (sentences[0] > 1) | (sentences[1] > 1)
        union = np.nonzero(several & (sentences[0] > 0) & (sentences[1] > 0))[0]
        if not union.shape[0]:
            return lcs
        marked = union_lcs_on_host(self.pred, self.ref, union)
        hits = self._clipped(self.pred.keys, self.ref.keys[marked], self.key_pair, self.distinct)
        return np.where(several, hits, lcs)


def _key_strings(local: np.ndarray, lengths: np.ndarray) -> list[str] | list[list[int]]:
    """Rows of keys (small numbers) as strings, one character a key; as lists where a key is too large."""
    bounds = np.cumsum(lengths).tolist()
    starts = [0, *bounds[:-1]]
    if int(local.max(initial=0)) < _UTF16_KEYS:
        text = local.astype("<u2").tobytes().decode("utf-16-le")
        return [text[start:end] for start, end in zip(starts, bounds)]
    values = local.tolist()
    return [values[start:end] for start, end in zip(starts, bounds)]

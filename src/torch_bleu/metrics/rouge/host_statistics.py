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
  reference sentence (:mod:`.bit_lcs`), clipped by the prediction's counts of each key.

The accelerator's way, the same numbers, is in :mod:`.statistics`.
"""

from __future__ import annotations

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist

from .bit_lcs import union_lcs_on_host

#: The highest key (a word's number within its pair) written as one UTF-16 unit: below the surrogates.
_UTF16_KEYS = 0xD800


def host_pair_statistics(
    pred: np.ndarray,
    pred_lengths: np.ndarray,
    pred_sentences: np.ndarray,
    ref: np.ndarray,
    ref_lengths: np.ndarray,
    ref_sentences: np.ndarray,
    orders: tuple[int, ...],
) -> np.ndarray:
    """``(P, T, 3)`` int64 hits, prediction count and reference count of each pair for each type, as
    :func:`.statistics.pair_statistics` (``orders``: ``N`` for ``rougeN``, ``0`` for ``rougeL``, ``-1``
    for ``rougeLsum``), of padded NumPy rows of word ids packed to the front.

    Example:
        >>> rows = np.array([[3, 1, 2, 0]]), np.array([[1, 2, 3, 5]])
        >>> one = np.zeros((1, 4), dtype=np.int64)
        >>> host_pair_statistics(rows[0], np.array([3]), one, rows[1], np.array([4]), one, (1, 2, 0, -1)).tolist()
        [[[3, 3, 4], [1, 2, 3], [2, 3, 4], [2, 3, 4]]]
    """
    pairs = pred.shape[0]
    words = _PairKeys(pred, pred_lengths, ref, ref_lengths)
    highest = max(orders)
    ngram_hits = words.ngram_hits(highest) if highest > 0 else np.zeros((pairs, 0), dtype=np.int64)
    lcs = words.lcs_lengths() if min(orders) <= 0 else None
    columns = []
    for order in orders:
        if order > 0:
            hits = ngram_hits[:, order - 1]
            counts = [np.maximum(lengths - order + 1, 0) for lengths in (pred_lengths, ref_lengths)]
        else:
            assert lcs is not None
            hits = lcs if order == 0 else words.union_hits(lcs, pred_sentences, ref_sentences)
            counts = [pred_lengths, ref_lengths]
        columns.append(np.stack([hits, *counts], -1))
    return np.stack(columns, 1).astype(np.int64).reshape(pairs, len(orders), 3)


def _dense(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Numbers ``0 .. distinct - 1`` of non-negative ``values`` in the order of the values, and ``distinct``."""
    count = values.shape[0]
    if not count:
        return np.zeros(0, dtype=np.int64), 0
    if int(values.max()) < 2**62 // count:  # the position rides along in a plain sort of the values
        encoded = np.sort(values * count + np.arange(count))
        sorted_values, position = np.divmod(encoded, count)
        changes = np.ones(count, dtype=bool)
        changes[1:] = sorted_values[1:] != sorted_values[:-1]
        numbers = np.empty(count, dtype=np.int64)
        numbers[position] = np.cumsum(changes) - 1
        return numbers, int(changes.sum())
    unique, numbers = np.unique(values, return_inverse=True)
    return numbers.reshape(-1), unique.shape[0]


class _PairKeys:
    """The words of pairs of rows as keys: ``pred`` and ``ref`` ``(N,)`` the keys of each side's words, row
    after row, ``pred_pair`` and ``ref_pair`` their pairs, ``distinct`` the number of keys, the keys of a
    pair ``first[pair] ..`` (numbered in the order of pairs, then of words)."""

    def __init__(self, pred: np.ndarray, pred_lengths: np.ndarray, ref: np.ndarray, ref_lengths: np.ndarray) -> None:
        self.pairs = pred.shape[0]
        self.lengths = (pred_lengths.astype(np.int64), ref_lengths.astype(np.int64))
        self.pred_inside = np.arange(pred.shape[1]) < pred_lengths[:, None]
        self.ref_inside = np.arange(ref.shape[1]) < ref_lengths[:, None]
        self.pred_pair = np.repeat(np.arange(self.pairs), self.lengths[0])
        self.ref_pair = np.repeat(np.arange(self.pairs), self.lengths[1])
        words = np.concatenate([pred[self.pred_inside], ref[self.ref_inside]]).astype(np.int64)
        pair = np.concatenate([self.pred_pair, self.ref_pair])
        low = int(words.min(initial=0))
        span = int(words.max(initial=0)) - low + 1
        if self.pairs * span < 2**62:
            keys, self.distinct = _dense(pair * span + (words - low))
        else:
            word_numbers, distinct_words = _dense(words - low)
            keys, self.distinct = _dense(pair * distinct_words + word_numbers)
        split = self.pred_pair.shape[0]
        self.pred, self.ref = keys[:split], keys[split:]
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
        hits = [self._clipped(self.pred, self.ref, self.key_pair, self.distinct)]
        sides = []  # each side's keys, their pairs, and the words from each to its row's end
        for keys, pair, lengths in (
            (self.pred, self.pred_pair, self.lengths[0]),
            (self.ref, self.ref_pair, self.lengths[1]),
        ):
            place = np.arange(keys.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            sides.append((keys, pair, lengths[pair] - place))
        codes = [self.pred, self.ref]  # the key of the (order - 1)-gram that starts at each word
        for order in range(2, highest + 1):
            starts = [np.nonzero(left >= order)[0] for _, _, left in sides]
            values = [
                code[start] * self.distinct + keys[start + order - 1]
                for code, (keys, _, _), start in zip(codes, sides, starts)
            ]
            numbers, grams = _dense(np.concatenate(values))
            gram_pair = np.zeros(grams, dtype=np.int64)
            gram_pair[numbers] = np.concatenate([pair[start] for (_, pair, _), start in zip(sides, starts)])
            split = values[0].shape[0]
            hits.append(self._clipped(numbers[:split], numbers[split:], gram_pair, grams))
            codes = [np.zeros_like(keys) for keys, _, _ in sides]
            codes[0][starts[0]], codes[1][starts[1]] = numbers[:split], numbers[split:]
        return np.stack(hits, -1)

    def lcs_lengths(self) -> np.ndarray:
        """``(P,)`` the LCS of each pair's rows."""
        rows = [
            _key_strings(keys - self.first[pair], lengths)
            for keys, pair, lengths in (
                (self.pred, self.pred_pair, self.lengths[0]),
                (self.ref, self.ref_pair, self.lengths[1]),
            )
        ]
        if not self.pairs:
            return np.zeros(0, dtype=np.int64)
        lengths: np.ndarray = cpdist(rows[0], rows[1], scorer=LCSseq.similarity, dtype=np.int64, workers=1)
        return lengths

    def union_hits(self, lcs: np.ndarray, pred_sentences: np.ndarray, ref_sentences: np.ndarray) -> np.ndarray:
        """``(P,)`` rougeLsum's hits, the LCS lengths ``lcs`` where both summaries are one sentence."""
        several = [
            _sentence_count(sentences, inside) > 1
            for sentences, inside in ((pred_sentences, self.pred_inside), (ref_sentences, self.ref_inside))
        ]
        union = np.nonzero((several[0] | several[1]) & (self.lengths[0] > 0) & (self.lengths[1] > 0))[0]
        if not union.shape[0]:
            return lcs
        rows = []
        for keys, inside in ((self.pred, self.pred_inside), (self.ref, self.ref_inside)):
            row = np.zeros(inside.shape, dtype=np.int64)
            row[inside] = keys
            rows.append(row)
        marks = union_lcs_on_host(
            rows[1], ref_sentences, self.lengths[1], rows[0], pred_sentences, self.lengths[0], union
        )
        marked = marks[self.ref_inside]
        hits = self._clipped(self.pred, self.ref[marked], self.key_pair, self.distinct)
        return np.where(several[0] | several[1], hits, lcs)


def _sentence_count(sentences: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """``(P,)`` how many sentences the words of each row (``inside``) stand on."""
    starts = inside.copy()
    starts[:, 1:] &= sentences[:, 1:] != sentences[:, :-1]
    counts: np.ndarray = starts.sum(1)
    return counts


def _key_strings(local: np.ndarray, lengths: np.ndarray) -> list[str] | list[list[int]]:
    """Rows of keys (small numbers) as strings, one character a key; as lists where a key is too large."""
    bounds = np.cumsum(lengths).tolist()
    starts = [0, *bounds[:-1]]
    if int(local.max(initial=0)) < _UTF16_KEYS:
        text = local.astype("<u2").tobytes().decode("utf-16-le")
        return [text[start:end] for start, end in zip(starts, bounds)]
    values = local.tolist()
    return [values[start:end] for start, end in zip(starts, bounds)]

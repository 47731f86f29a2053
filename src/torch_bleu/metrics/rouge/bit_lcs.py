"""The LCS and rougeLsum's union LCS on the host: bit-vectors as Python integers, many pairs in one.

:mod:`.lcs` computes every cell of each table with whole-array operations, which suits an
accelerator; on the CPU this module computes the same numbers with a few integer operations per
reference word. For a reference ``a`` and a prediction ``b`` (Hyyrö's bit-vector formulation of the
LCS table), with ``M[w]`` the bits of the prediction words equal to ``w`` and ``V`` a bit-vector over
the prediction, all ones at first,

    for each reference word w:   U = V & M[w];   V = (V + U) | (V - U)

(``V - U`` is ``V & ~U``, ``U`` being part of ``V``): after ``i`` reference words the zero bits among
the first ``j`` bits of ``V`` number ``t[i][j]``, the LCS table's entry. A Python integer is a
bit-vector of any length whose additions carry in C, so the predictions of a whole group of pairs lie
end to end in one integer, each pair in a region of its own, each of its sentences followed by a
guard bit that is zero in ``V``: a carry stops in the first guard it reaches, so the regions, and the
sentences within them, never mix. For ``rougeL`` the guards between sentences are ones instead (they
are then words that match nothing, which leaves the LCS as it is) and only the guard after a pair's
last word stops carries.

``rougeLsum`` takes every reference sentence against every prediction sentence: a region is then one
reference sentence against its pair's whole prediction. Its forward pass keeps, for every reference
word ``i``, the cells where rouge-score's backtrack (``_backtrack_norec``: a diagonal step on equal
words, else a step along the prediction where ``t[i][j-1] > t[i-1][j]``, else along the reference)
steps along the prediction. Those are the carries of the addition that fall on ones of ``V - U``:
the new row exceeds the old one exactly from just above the lowest match of each run of ones up to
the run's end, and the old row stays flat on the ones. The backtracks of all sentence pairs then run
backwards together, bits reversed so that a walk along the prediction is a carry again: in row
``i``, each walk runs from where it entered through the "step along" cells (``(L + E) & ~L``: the
first other cell), takes the reference word where that cell holds equal words and goes on in the
row above.

Regions are taken in groups of similar reference lengths (:data:`GROUP`), each reference aligned to the
group's last row (rows before it match nothing, which changes nothing), so that every backtrack starts
in the last row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: The most regions of one group, and the most bytes of its match bits (reference words x prediction bytes).
GROUP = 512
GROUP_BYTES = 2**20
#: Each byte with its bits in reverse order.
_REVERSED_BYTES = np.array([int(f"{value:08b}"[::-1], 2) for value in range(256)], dtype=np.uint8)


class HostLCS(NamedTuple):
    """What :func:`lcs_on_host` finds: ``lengths`` ``(P,)`` int64, the LCS of each pair's whole rows, and
    ``union`` ``(P, Lr)`` bool, the reference words of each pair's union LCS (all False unless asked for)."""

    lengths: np.ndarray
    union: np.ndarray


def lcs_on_host(
    ref: np.ndarray,
    ref_sentence: np.ndarray,
    ref_length: np.ndarray,
    pred: np.ndarray,
    pred_sentence: np.ndarray,
    pred_length: np.ndarray,
    union: bool,
) -> HostLCS:
    """The LCS lengths of padded rows ``ref`` ``(P, Lr)`` and ``pred`` ``(P, Lp)`` (word ids ``>= 0`` for the
    first ``ref_length`` and ``pred_length`` words) and, with ``union``, rouge-score's union LCS of each
    reference sentence against every prediction sentence (:func:`.lcs.union_lcs_marks`); the sentence
    ids are equal within a sentence and different across a boundary.

    Example:
        >>> ref, pred = np.array([[1, 2, 3, 1, 2]]), np.array([[2, 1, 2, 3]])
        >>> sentences = np.array([[0, 0, 0, 1, 1]]), np.array([[0, 0, 1, 1]])
        >>> found = lcs_on_host(ref, sentences[0], np.array([5]), pred, sentences[1], np.array([4]), True)
        >>> found.lengths.tolist(), found.union.astype(int).tolist()
        ([3], [[1, 1, 1, 1, 1]])
    """
    pairs, ref_width = ref.shape
    predictions = _Predictions(ref, ref_length, pred, pred_sentence, pred_length)
    lengths = np.zeros(pairs, dtype=np.int64)
    everything = (np.arange(pairs), np.zeros(pairs, dtype=np.int64), ref_length.astype(np.int64))
    for regions in _groups(*everything, predictions.bytes):
        lengths[regions[0]] = _Group(predictions, *regions).lcs_lengths()
    marks = np.zeros((pairs, ref_width), dtype=bool)
    if union:
        pair, start = np.nonzero(_sentence_starts(ref_sentence, ref_length))
        same_pair = np.append(pair[1:] == pair[:-1], False)
        end = np.where(same_pair, np.append(start[1:], 0), ref_length[pair])
        for regions in _groups(pair, start, end - start, predictions.bytes):
            group = _Group(predictions, *regions)
            taken = group.union_marks()  # (rows, regions), the rows aligned to each region's end
            row, region = np.nonzero(taken)
            marks[regions[0][region], group.ref_positions(row, region)] = True
    return HostLCS(lengths, marks)


def _sentence_starts(sentence: np.ndarray, length: np.ndarray) -> np.ndarray:
    """``(P, L)`` bool: the words (of the first ``length`` of each row) that begin a sentence."""
    first = np.ones(sentence.shape, dtype=bool)
    first[:, 1:] = sentence[:, 1:] != sentence[:, :-1]
    return first & (np.arange(sentence.shape[1]) < length[:, None])


def _groups(
    pair: np.ndarray, start: np.ndarray, length: np.ndarray, pair_bytes: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Regions (a reference's words ``start .. start + length`` of ``pair``, against that pair's prediction
    of ``pair_bytes``) in groups of at most :data:`GROUP` of similar lengths and :data:`GROUP_BYTES`."""
    order = np.argsort(length, kind="stable")
    groups = []
    first = 0
    while first < order.shape[0]:
        chosen = order[first : first + GROUP]
        cells = np.maximum.accumulate(length[chosen]) * np.cumsum(pair_bytes[pair[chosen]])
        chosen = chosen[: max(1, int(np.searchsorted(cells, GROUP_BYTES, side="right")))]
        groups.append((pair[chosen], start[chosen], length[chosen]))
        first += chosen.shape[0]
    return groups


def _as_int(packed: np.ndarray) -> int:
    return int.from_bytes(packed.tobytes(), "little")


def _bytes_of(value: int, size: int) -> np.ndarray:
    return np.frombuffer(value.to_bytes(size, "little"), dtype=np.uint8)


def _reversed_int(packed: np.ndarray) -> int:
    """The integer of bytes ``packed`` with every bit in reverse order."""
    return _as_int(_REVERSED_BYTES[packed[::-1]])


def _reversed_rows(packed: np.ndarray) -> np.ndarray:
    """Rows of bytes with the bits of each row in reverse order."""
    reversed_rows: np.ndarray = _REVERSED_BYTES[packed[:, ::-1]]
    return reversed_rows


class _Predictions:
    """Every pair's prediction as a region of bytes: its words' bits (each sentence followed by a guard bit),
    and for every word of the pair the bits of the equal prediction words, as bytes ``masks[offset[key]:]``
    (``key``: the word's number among the pair's distinct words of both rows)."""

    def __init__(
        self,
        ref: np.ndarray,
        ref_length: np.ndarray,
        pred: np.ndarray,
        pred_sentence: np.ndarray,
        pred_length: np.ndarray,
    ) -> None:
        pred_first = _sentence_starts(pred_sentence, pred_length)
        pair, column = np.nonzero(np.arange(pred.shape[1]) < pred_length[:, None])
        # each word's bit in its pair's region: after the guards of the sentences before its own
        bit = column + np.cumsum(pred_first, axis=1)[pair, column] - 1
        self.bytes = (pred_length + pred_first.sum(1)) // 8 + 1  # words and guards, at least one byte
        self.start = np.cumsum(self.bytes) - self.bytes
        last = np.ones(bit.shape, dtype=bool)
        last[:-1] = (pair[1:] != pair[:-1]) | pred_first[pair[1:], column[1:]]
        pair_end = np.ones(bit.shape, dtype=bool)
        pair_end[:-1] = pair[1:] != pair[:-1]
        size = int(self.bytes.sum())
        # the words, the guard after each sentence but the pair's last, the last word of each sentence
        self.words, self.inner, self.ends = (
            _packed(self.start[pair[chosen]] * 8 + bit[chosen] + after, size)
            for chosen, after in ((slice(None), 0), (last & ~pair_end, 1), (last, 0))
        )
        ref_pair, ref_column = np.nonzero(np.arange(ref.shape[1]) < ref_length[:, None])
        keys, distinct = _dense(
            np.concatenate([pair, ref_pair]),
            np.concatenate([pred[pair, column], ref[ref_pair, ref_column]]),
        )
        key_of_pair = np.zeros(distinct, dtype=np.int64)
        key_of_pair[keys] = np.concatenate([pair, ref_pair])
        key_bytes = self.bytes[key_of_pair]
        self.offset = np.append(np.cumsum(key_bytes) - key_bytes, key_bytes.sum())  # the last: a zero mask
        self.masks = np.zeros(int(key_bytes.sum()) + int(self.bytes.max(initial=1)), dtype=np.uint8)
        pred_keys = keys[: pair.shape[0]]
        np.add.at(self.masks, self.offset[pred_keys] + (bit >> 3), np.left_shift(1, bit & 7).astype(np.uint8))
        self.ref_keys = np.full(ref.shape, distinct, dtype=np.int64)  # past a row's words: no word
        self.ref_keys[ref_pair, ref_column] = keys[pair.shape[0] :]


def _packed(bits: np.ndarray, size: int) -> np.ndarray:
    """``(size,)`` uint8 with the ``bits`` (little-endian) set."""
    flat = np.zeros(size * 8, dtype=bool)
    flat[bits] = True
    return np.packbits(flat, bitorder="little")


def _dense(pair: np.ndarray, word: np.ndarray) -> tuple[np.ndarray, int]:
    """Numbers ``0 .. distinct - 1`` of the distinct ``(pair, word)``, and ``distinct``."""
    if not pair.shape[0]:
        return np.zeros(0, dtype=np.int64), 0
    keys = pair * (int(word.max()) + 1) + word
    count = keys.shape[0]
    if int(keys.max()) < 2**62 // count:  # the position rides along in a plain sort of the values
        encoded = np.sort(keys * count + np.arange(count))
        sorted_keys, position = np.divmod(encoded, count)
        changes = np.ones(count, dtype=bool)
        changes[1:] = sorted_keys[1:] != sorted_keys[:-1]
        numbers = np.empty(count, dtype=np.int64)
        numbers[position] = np.cumsum(changes) - 1
        return numbers, int(changes.sum())
    unique, numbers = np.unique(keys, return_inverse=True)
    return numbers.reshape(-1), unique.shape[0]


class _Group:
    """Regions of one group: a reference's words ``start .. start + length`` of ``pair`` against the pair's
    prediction, the references aligned to the group's last row, as integers of the regions end to end."""

    def __init__(self, predictions: _Predictions, pair: np.ndarray, start: np.ndarray, length: np.ndarray) -> None:
        self.length = length
        self.rows = int(length.max(initial=0))
        region_bytes = predictions.bytes[pair]
        self.size = int(region_bytes.sum())
        self.region_start = np.cumsum(region_bytes) - region_bytes
        region = np.repeat(np.arange(pair.shape[0]), region_bytes)
        index = np.int32 if predictions.masks.shape[0] < 2**31 else np.int64
        within = (np.arange(self.size) - self.region_start[region]).astype(index)
        source = predictions.start[pair][region] + within  # each byte's byte of its pair's prediction
        self.words, self.inner, self.ends = (
            values[source] for values in (predictions.words, predictions.inner, predictions.ends)
        )
        # row r holds reference word start + length - rows + r
        position = start[:, None] + length[:, None] - self.rows + np.arange(self.rows)
        inside = position >= start[:, None]
        keys = np.where(
            inside,
            predictions.ref_keys[pair[:, None], np.maximum(position, 0)],
            predictions.offset.shape[0] - 1,
        )
        first = predictions.offset[keys].astype(index)  # (regions, rows): where each mask starts
        self.matches = predictions.masks[first.T[:, region] + within]  # (rows, size)
        self.start = start

    def ref_positions(self, row: np.ndarray, region: np.ndarray) -> np.ndarray:
        """The reference position of ``row`` of ``region``."""
        position: np.ndarray = self.start[region] + self.length[region] - self.rows + row
        return position

    def lcs_lengths(self) -> np.ndarray:
        """``(regions,)`` the LCS of each region: inner guards are ones, words that match nothing."""
        keep = _as_int(self.words | self.inner)
        vector = keep
        for line in self.matches:
            match = _as_int(line)
            taken = vector & match
            vector = ((vector + taken) | (vector - taken)) & keep
        lengths: np.ndarray = self._ones(keep) - self._ones(vector)
        return lengths

    def union_marks(self) -> np.ndarray:
        """``(rows, regions)`` bool: the reference words of each region's union LCS."""
        keep = _as_int(self.words)
        vector = keep
        along = []  # per reference word: the cells where the backtrack steps along the prediction
        for line in self.matches:
            taken = vector & _as_int(line)
            total = vector + taken
            kept = vector - taken
            along.append(((total ^ vector ^ taken) & kept).to_bytes(self.size, "little"))
            vector = (total | kept) & keep
        # backwards, bits reversed: a walk along the prediction is then a carry towards higher bits
        words_reversed = _reversed_int(self.words)
        entering = _reversed_int(self.ends)  # every walk starts at its sentence pair's last cell
        steps_reversed = _reversed_rows(np.frombuffer(b"".join(along), dtype=np.uint8).reshape(self.rows, self.size))
        matches_reversed = _reversed_rows(self.matches)
        taken_lines = []
        for position in reversed(range(self.rows)):
            steps = _as_int(steps_reversed[position])
            total = steps + entering
            stops = total ^ (total & steps)
            taken = stops & _as_int(matches_reversed[position])
            taken_lines.append(taken.to_bytes(self.size, "little"))
            entering = ((taken << 1) | (stops ^ taken)) & words_reversed
        if not taken_lines:
            return np.zeros((0, self.length.shape[0]), dtype=bool)
        # taken_lines run from the last row up, each with its bytes reversed: flip both back
        found = np.frombuffer(b"".join(taken_lines), dtype=np.uint8).reshape(self.rows, self.size)[::-1, ::-1]
        taken_any = np.logical_or.reduceat(found != 0, self.region_start, axis=1)
        return taken_any

    def _ones(self, value: int) -> np.ndarray:
        """``(regions,)`` the one bits of each region of ``value``."""
        ones = np.bitwise_count(_bytes_of(value, self.size)).astype(np.int64)
        counts: np.ndarray = np.add.reduceat(ones, self.region_start) if self.size else np.zeros(0, dtype=np.int64)
        return counts

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

``rougeLsum`` takes every reference sentence against every prediction sentence. Its forward pass
restarts a pair's region at the first word of each reference sentence, and keeps, for every reference
word ``i``, the cells where rouge-score's backtrack (``_backtrack_norec``: a diagonal step on equal
words, else a step along the prediction where ``t[i][j-1] > t[i-1][j]``, else along the reference)
steps along the prediction. Those are the carries of the addition that fall on ones of ``V - U``:
the new row exceeds the old one exactly from just above the lowest match of each run of ones up to
the run's end, and the old row stays flat on the ones. The backtracks of all sentence pairs then run
backwards together, bits reversed so that a walk along the prediction is a carry again: in row
``i``, each walk runs from where it entered through the "step along" cells (``(L + E) & ~L``: the
first other cell), takes the reference word where that cell holds equal words and goes on in the
row above.

Pairs are taken in groups of similar reference lengths (:data:`GROUP`), each cut to its longest rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: The most pairs of one group, and the most cells (reference words x prediction bits) of one group.
GROUP = 256
GROUP_CELLS = 2**24
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
    lengths = np.zeros(pairs, dtype=np.int64)
    marks = np.zeros((pairs, ref_width), dtype=bool)
    words = np.arange(max(ref_width, pred.shape[1]))
    ref_first = _sentence_starts(ref_sentence, ref_length)
    pred_first = _sentence_starts(pred_sentence, pred_length)
    # each word's bit in its pair's region: after the guards of the sentences before its own
    pred_bit = words[: pred.shape[1]] + np.cumsum(pred_first, axis=1) - 1
    bits = pred_length + pred_first.sum(1)  # the words and a guard after each sentence
    for rows in _groups(ref_length, bits):
        group = _Group(ref[rows], ref_first[rows], ref_length[rows], pred[rows], pred_bit[rows], pred_length[rows])
        lengths[rows] = group.lcs_lengths()
        if union:
            marks[rows, : group.ref_width] = group.union_marks()
    return HostLCS(lengths, marks)


def _sentence_starts(sentence: np.ndarray, length: np.ndarray) -> np.ndarray:
    """``(P, L)`` bool: the words (of the first ``length`` of each row) that begin a sentence."""
    first = np.ones(sentence.shape, dtype=bool)
    first[:, 1:] = sentence[:, 1:] != sentence[:, :-1]
    return first & (np.arange(sentence.shape[1]) < length[:, None])


def _groups(ref_length: np.ndarray, bits: np.ndarray) -> list[np.ndarray]:
    """The pairs in groups of at most :data:`GROUP` of similar reference lengths and :data:`GROUP_CELLS` cells."""
    order = np.argsort(ref_length, kind="stable")
    groups = []
    first = 0
    while first < order.shape[0]:
        rows = order[first : first + GROUP]
        widths = np.maximum.accumulate(bits[rows]) * (np.arange(rows.shape[0]) + 1)
        cells = np.maximum.accumulate(ref_length[rows]) * widths
        rows = rows[: max(1, int(np.searchsorted(cells, GROUP_CELLS, side="right")))]
        groups.append(rows)
        first += rows.shape[0]
    return groups


def _match_bytes(
    ref: np.ndarray, ref_length: np.ndarray, words: np.ndarray, pair: np.ndarray, bit: np.ndarray, width: int
) -> np.ndarray:
    """``(Lr, pairs * width / 8)`` uint8: for each reference word of ``ref`` ``(Lr, pairs)`` the bits of the
    equal prediction ``words`` (of ``pair``, at ``bit`` of its region): each pair's distinct words get a
    bit mask, which each reference word looks up."""
    ref_width, pairs = ref.shape
    distinct = int(max(words.max(initial=0), ref.max(initial=0))) + 1
    keys, slot = np.unique(pair * distinct + words, return_inverse=True)
    masks = np.zeros((keys.shape[0] + 1, width // 8), dtype=np.uint8)  # the last: no equal word
    np.add.at(masks.reshape(-1), slot * (width // 8) + (bit >> 3), np.left_shift(1, bit & 7).astype(np.uint8))
    wanted = np.arange(pairs) * distinct + ref
    found = np.minimum(np.searchsorted(keys, wanted), max(keys.shape[0] - 1, 0))
    valid = np.arange(ref_width)[:, None] < ref_length
    equal = valid & (keys[found] == wanted) if keys.shape[0] else np.zeros_like(valid)
    return masks[np.where(equal, found, keys.shape[0])].reshape(ref_width, pairs * width // 8)


def _as_int(packed: np.ndarray) -> int:
    return int.from_bytes(packed.tobytes(), "little")


def _bytes_of(value: int, size: int) -> np.ndarray:
    return np.frombuffer(value.to_bytes(size, "little"), dtype=np.uint8)


class _Group:
    """One group's pairs as regions of integers (``width`` bits each, a multiple of 8): their words'
    match bits per reference word, and the masks the passes use."""

    def __init__(
        self,
        ref: np.ndarray,
        ref_first: np.ndarray,
        ref_length: np.ndarray,
        pred: np.ndarray,
        pred_bit: np.ndarray,
        pred_length: np.ndarray,
    ) -> None:
        pairs = ref.shape[0]
        self.ref_width = int(ref_length.max(initial=0))
        pred_width = int(pred_length.max(initial=0))
        inside = np.arange(pred_width) < pred_length[:, None]
        row, column = np.nonzero(inside)
        bit = pred_bit[row, column]
        width = 8 * -(-(int(bit.max(initial=-1)) + 2) // 8)
        self.pairs, self.width, self.size = pairs, width, pairs * width // 8
        layout = np.full((pairs, width), -2, dtype=ref.dtype)  # no word equals -2
        layout[row, bit] = pred[row, column]
        is_word = layout >= 0
        # the bit after each sentence's last word is a guard; those before a pair's last word, inner guards
        last_words = np.zeros((pairs, width), dtype=bool)
        last_words[:, :-1] = is_word[:, :-1] & ~is_word[:, 1:]
        inner = np.zeros((pairs, width), dtype=bool)
        inner[:, 1:] = last_words[:, :-1]
        ends = row[column == pred_length[row] - 1]
        inner[ends, bit[column == pred_length[row] - 1] + 1] = False
        packed = _match_bytes(ref[:, : self.ref_width].T, ref_length, pred[row, column], row, bit, width)
        self.matches = [_as_int(line) for line in packed]
        self.packed_matches = packed
        self.words = _as_int(np.packbits(is_word, bitorder="little"))
        self.words_and_inner = _as_int(np.packbits(is_word | inner, bitorder="little"))
        self.is_word, self.last_words = is_word, last_words
        self.ref_first = ref_first[:, : self.ref_width]
        last = np.zeros_like(self.ref_first)
        last[:, :-1] = self.ref_first[:, 1:]
        last |= np.arange(self.ref_width) == ref_length[:, None] - 1
        self.ref_last = last

    def lcs_lengths(self) -> np.ndarray:
        """``(pairs,)`` the LCS of each pair's whole rows: inner guards are ones, words that match nothing."""
        keep = self.words_and_inner
        vector = keep
        for line in self.matches:
            taken = vector & line
            vector = ((vector + taken) | (vector - taken)) & keep
        return self._ones(keep) - self._ones(vector)

    def union_marks(self) -> np.ndarray:
        """``(pairs, Lr)`` bool: the reference words of each pair's union LCS."""
        keep = self.words
        vector = keep
        along = []  # per reference word: the cells where the backtrack steps along the prediction
        restarts = self._region_masks(self.ref_first, reverse=False)
        for position, line in enumerate(self.matches):
            if position in restarts:
                mask = restarts[position]
                vector = (vector ^ (vector & mask)) | (keep & mask)
            taken = vector & line
            total = vector + taken
            kept = vector - taken
            along.append((total ^ vector ^ taken) & kept)  # the carries, where the old row is flat
            vector = (total | kept) & keep
        # backwards, bits reversed: a walk along the prediction is then a carry towards higher bits
        along_reversed = self._reversed([_bytes_of(value, self.size) for value in along])
        matches_reversed = [_as_int(line) for line in _REVERSED_BYTES[self.packed_matches[:, ::-1]]]
        words_reversed = _as_int(_REVERSED_BYTES[np.packbits(self.is_word, bitorder="little")[::-1]])
        entries_reversed = _as_int(_REVERSED_BYTES[np.packbits(self.last_words, bitorder="little")[::-1]])
        starts = self._region_masks(self.ref_last, reverse=True)
        entering = 0
        taken_lines = [0] * self.ref_width
        for position in reversed(range(self.ref_width)):
            if position in starts:
                mask = starts[position]
                entering = (entering ^ (entering & mask)) | (entries_reversed & mask)
            steps = along_reversed[position]
            total = steps + entering
            stops = total ^ (total & steps)
            taken = stops & matches_reversed[position]
            taken_lines[position] = taken
            entering = ((taken << 1) | (stops ^ taken)) & words_reversed
        found = np.stack([_bytes_of(value, self.size) for value in taken_lines]) if taken_lines else None
        if found is None:
            return np.zeros((self.pairs, 0), dtype=bool)
        any_bit = found.reshape(self.ref_width, self.pairs, self.width // 8).any(-1)
        return np.ascontiguousarray(any_bit[:, ::-1].T)

    def _ones(self, value: int) -> np.ndarray:
        """``(pairs,)`` the one bits of each region of ``value``."""
        regions = _bytes_of(value, self.size).reshape(self.pairs, self.width // 8)
        ones: np.ndarray = np.bitwise_count(regions).sum(1, dtype=np.int64)
        return ones

    def _region_masks(self, chosen: np.ndarray, reverse: bool) -> dict[int, int]:
        """Per reference word where some pair is ``chosen`` ``(pairs, Lr)``: the mask of those pairs' regions."""
        masks = {}
        for position in np.flatnonzero(chosen.any(0)).tolist():
            regions = chosen[::-1, position] if reverse else chosen[:, position]
            masks[position] = _as_int(np.repeat(regions.astype(np.uint8) * np.uint8(255), self.width // 8))
        return masks

    def _reversed(self, lines: list[np.ndarray]) -> list[int]:
        """Integers of byte rows with every bit in reverse order."""
        if not lines:
            return []
        return [_as_int(line) for line in _REVERSED_BYTES[np.stack(lines)[:, ::-1]]]

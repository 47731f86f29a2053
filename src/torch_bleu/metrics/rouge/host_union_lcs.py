"""rougeLsum's union LCS on the host: bit-vectors as Python integers, many sentence pairs in one.

:mod:`.device_lcs` computes every cell of each table with whole-array operations, which suits an
accelerator; on the CPU this module computes the same marks with a few integer operations per
reference word. For a reference ``a`` and a prediction ``b`` (Hyyrö's bit-vector formulation of the
LCS table), with ``M[w]`` the bits of the prediction words equal to ``w`` and ``V`` a bit-vector over
the prediction, all ones at first,

    for each reference word w:   U = V & M[w];   V = (V + U) | (V - U)

(``V - U`` is ``V & ~U``, ``U`` being part of ``V``): after ``i`` reference words the zero bits among
the first ``j`` bits of ``V`` number ``t[i][j]``, the LCS table's entry. A Python integer is a
bit-vector of any length whose additions carry in C, so many sentence pairs lie end to end in one
integer: a region per reference sentence, holding its pair's whole prediction, each prediction sentence
followed by a guard bit that is zero in ``V``. A carry stops in the first guard it reaches, so the
regions, and the prediction's sentences within them, never mix. Regions start at 32-bit lanes, so
that the match bits of a region are whole lanes of its pair's mask of the word (gathered lane by
lane, not bit by bit).

``rougeLsum`` takes every reference sentence against every prediction sentence. The forward pass keeps,
for every reference word ``i``, the cells where rouge-score's backtrack (``_backtrack_norec``: a
diagonal step on equal words, else a step along the prediction where ``t[i][j-1] > t[i-1][j]``, else
along the reference) steps along the prediction. Those are the carries of the addition that fall on
ones of ``V - U``: the new row exceeds the old one exactly from just above the lowest match of each
run of ones up to the run's end, and the old row stays flat on the ones. The backtracks of all
sentence pairs then run backwards together, bits reversed so that a walk along the prediction is a
carry again: in row ``i``, each walk runs from where it entered through the "step along" cells
(``(L + E) & ~L``: the first other cell), takes the reference word where that cell holds equal words
and goes on in the row above.

Regions are taken in groups of similar reference lengths (:data:`GROUP`), each reference aligned to the
group's last row (rows before it match nothing, which changes nothing), so that every backtrack starts
in the last row.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

#: The most regions of one group, and the most 32-bit lanes of its match bits (reference words x lanes).
GROUP = 2**12
GROUP_LANES = 2**18
#: The cost of a row of a group beside its lanes, as a number of lanes (the conversions and arithmetic of
#: Python integers cost about 5 ns a byte, a row's other work about 10 us).
ROW_LANES = 500
#: Bits of a lane.
LANE = 32
#: Each 16-bit number with its bits in reverse order.
_REVERSED_BYTES = np.array([int(f"{value:08b}"[::-1], 2) for value in range(256)], dtype=np.uint16)
_REVERSED_UNITS = (_REVERSED_BYTES[np.arange(2**16) & 255] << 8) | _REVERSED_BYTES[np.arange(2**16) >> 8]


class SideWords(NamedTuple):
    """One side's words of many pairs, row after row: ``keys`` ``(N,)`` their numbers (equal for equal
    words of a pair, different across pairs), ``pair`` ``(N,)`` the pair of
    each, ``place`` ``(N,)`` its place in its row, ``first`` ``(N,)`` bool whether it begins a sentence,
    and ``lengths`` ``(P,)`` the words of each row."""

    keys: np.ndarray
    pair: np.ndarray
    place: np.ndarray
    first: np.ndarray
    lengths: np.ndarray


def side_words(ids: np.ndarray, lines: np.ndarray, lengths: np.ndarray, texts: np.ndarray) -> SideWords:
    """One side of pairs: the words of ``texts`` (indices of texts whose word ``ids`` and ``lines`` lie text
    after text, ``lengths`` words each; a line equal within a sentence, different across a boundary), text
    after text, a text repeated where ``texts`` names it again.

    Example:
        >>> ids, lines, lengths = np.array([4, 5, 6, 7]), np.array([0, 0, 1, 0]), np.array([3, 1])
        >>> side = side_words(ids, lines, lengths, np.array([1, 0]))
        >>> side.keys.tolist(), side.pair.tolist(), side.first.tolist()
        ([7, 4, 5, 6], [0, 1, 1, 1], [True, True, False, True])
    """
    chosen = lengths[texts]
    pair = np.repeat(np.arange(texts.shape[0]), chosen)
    place = np.arange(int(chosen.sum())) - (np.cumsum(chosen) - chosen)[pair]
    index = (np.cumsum(lengths) - lengths)[texts][pair] + place
    line = lines[index]
    first = place == 0  # a text repeated for each of its references keeps its line numbers
    first[1:] |= line[1:] != line[:-1]
    return SideWords(ids[index], pair, place, first, chosen)


def union_lcs_on_host(pred: SideWords, ref: SideWords, pairs: np.ndarray) -> np.ndarray:
    """``(N,)`` bool over the reference words: those of rouge-score's union LCS of each reference sentence
    against every prediction sentence (:func:`.device_lcs.union_lcs_marks`), for the pairs numbered in ``pairs``
    (the others' marks all False).

    Example:
        >>> words, lines = np.array([1, 2, 3, 1, 2, 2, 1, 2, 3]), np.array([0, 0, 0, 1, 1, 0, 0, 1, 1])
        >>> ref, pred = (side_words(words, lines, np.array([5, 4]), np.array([text])) for text in (0, 1))
        >>> union_lcs_on_host(pred, ref, np.array([0])).astype(int).tolist()
        [1, 1, 1, 1, 1]
    """
    marks = np.zeros(ref.keys.shape, dtype=bool)
    if not pairs.shape[0]:
        return marks
    predictions = _Predictions(pred, ref)
    chosen = np.zeros(ref.lengths.shape[0], dtype=bool)
    chosen[pairs] = True
    at = np.nonzero(ref.first & chosen[ref.pair])[0]
    pair, start = ref.pair[at], ref.place[at]
    same_pair = np.append(pair[1:] == pair[:-1], False)
    end = np.where(same_pair, np.append(start[1:], 0), ref.lengths[pair])
    row_start = np.cumsum(ref.lengths) - ref.lengths
    for regions in _groups(pair, start, end - start, predictions.lanes):
        group = _Group(predictions, row_start, *regions)
        row, region = np.nonzero(group.union_marks())  # (rows, regions), the rows aligned to each region's end
        marks[row_start[regions[0][region]] + group.ref_positions(row, region)] = True
    return marks


def _groups(
    pair: np.ndarray, start: np.ndarray, length: np.ndarray, pair_lanes: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Regions (a reference's words ``start .. start + length`` of ``pair``, against that pair's prediction
    of ``pair_lanes``) in groups of similar lengths, at most :data:`GROUP` regions and :data:`GROUP_LANES`
    lanes of match bits each.

    A group costs a row per word of its longest reference, each row a fixed cost (:data:`ROW_LANES`)
    and its lanes: the lengths are cut where the cost of all groups is least (a dynamic programme over
    the distinct lengths).
    """
    if not pair.shape[0]:
        return []
    order = np.argsort(length, kind="stable")
    lanes = np.cumsum(pair_lanes[pair[order]])
    lengths, last = np.unique(length[order], return_index=True)
    last = np.append(last[1:], order.shape[0]) - 1  # the last region of each length, in order
    lanes_to = np.append(0, lanes[last])  # lanes of the regions up to each distinct length
    cut = _cheapest_cuts(lengths.tolist(), lanes_to.tolist())
    bounds = [lengths.shape[0]]
    while bounds[-1]:
        bounds.append(cut[bounds[-1]])
    groups = []
    for end, begin in itertools.pairwise(bounds):
        first = 0 if begin == 0 else int(last[begin - 1]) + 1
        chosen = order[first : int(last[end - 1]) + 1]
        while chosen.shape[0]:
            cells = np.maximum.accumulate(length[chosen[:GROUP]]) * np.cumsum(pair_lanes[pair[chosen[:GROUP]]])
            taken = max(1, int(np.searchsorted(cells, GROUP_LANES, side="right")))
            groups.append((pair[chosen[:taken]], start[chosen[:taken]], length[chosen[:taken]]))
            chosen = chosen[taken:]
    return groups


def _cheapest_cuts(lengths: list[int], lanes_to: list[int]) -> list[int]:
    """For each ``end``, where the last group of the cheapest grouping of the first ``end`` lengths begins
    (``lanes_to[k]``: the lanes of the regions of the first ``k`` lengths)."""
    least = [0]
    cut = [0]
    for end in range(1, len(lengths) + 1):
        rows, lanes = lengths[end - 1], ROW_LANES + lanes_to[end]
        costs = [least[begin] + rows * (lanes - lanes_to[begin]) for begin in range(end)]
        best = min(range(end), key=costs.__getitem__)
        cut.append(best)
        least.append(costs[best])
    return cut


def _lanes_of(lane: np.ndarray, bit: np.ndarray, size: int) -> np.ndarray:
    """``(size,)`` little-endian uint32 lanes with bit ``bit`` of lane ``lane`` set (each bit set once)."""
    # sums of distinct powers of two below 2**32 are exact in float64
    summed = np.bincount(lane, weights=np.ldexp(1.0, bit), minlength=size)
    return summed.astype("<u4")


def _as_int(lanes: np.ndarray) -> int:
    return int.from_bytes(lanes, "little")


def _reversed(lanes: np.ndarray) -> np.ndarray:
    """Rows of lanes (as 16-bit units), the bits of each row in reverse order."""
    units = lanes.view("<u2")
    reversed_rows: np.ndarray = np.take(_REVERSED_UNITS, units[..., ::-1])
    return reversed_rows


class _Predictions:
    """Every pair's prediction as a region of lanes: its words' bits (each sentence followed by a guard
    bit) and the last word of each sentence; for every word key the bits of the prediction words with that
    key, as lanes ``masks[offset[key]:]`` (the last key, one past the others, has no bit)."""

    def __init__(self, pred: SideWords, ref: SideWords) -> None:
        pairs = pred.lengths.shape[0]
        sentences = np.bincount(pred.pair[pred.first], minlength=pairs)
        sentences_before = np.cumsum(sentences) - sentences
        # each word's bit in its pair's region: after the guards of the sentences before its own
        bit = pred.place + np.cumsum(pred.first) - sentences_before[pred.pair] - 1
        self.lanes = np.maximum((pred.lengths + sentences + LANE - 1) // LANE, 1)
        self.start = np.cumsum(self.lanes) - self.lanes
        size = int(self.lanes.sum())
        last = np.ones_like(pred.first)  # the last word of each sentence
        last[:-1] = pred.first[1:]
        at = self.start[pred.pair] * LANE + bit
        self.words = _lanes_of(at >> 5, at & 31, size)
        self.ends = _lanes_of(at[last] >> 5, at[last] & 31, size)
        key_pair = np.zeros(1 + int(max(pred.keys.max(initial=-1), ref.keys.max(initial=-1))), dtype=np.int64)
        key_pair[pred.keys] = pred.pair
        key_pair[ref.keys] = ref.pair
        key_lanes = self.lanes[key_pair]
        self.offset = np.append(np.cumsum(key_lanes) - key_lanes, key_lanes.sum())  # the last: no bit
        mask_at = self.offset[pred.keys] * LANE + bit
        self.masks = _lanes_of(mask_at >> 5, mask_at & 31, int(key_lanes.sum()) + int(self.lanes.max()))
        self.ref_keys = ref.keys


class _Group:
    """Regions of one group: a reference's words ``start .. start + length`` of ``pair`` against the pair's
    prediction, the references aligned to the group's last row, as integers of the regions end to end."""

    def __init__(
        self, predictions: _Predictions, row_start: np.ndarray, pair: np.ndarray, start: np.ndarray, length: np.ndarray
    ) -> None:
        self.length = length
        self.start = start
        self.rows = int(length.max(initial=0))
        region_lanes = predictions.lanes[pair]
        self.size = int(region_lanes.sum())
        self.region_start = np.cumsum(region_lanes) - region_lanes
        region = np.repeat(np.arange(pair.shape[0]), region_lanes)
        within = np.arange(self.size) - self.region_start[region]
        source = predictions.start[pair][region] + within  # each lane's lane of its pair's prediction
        self.words, self.ends = predictions.words[source], predictions.ends[source]
        # row r holds reference word start + length - rows + r
        position = (row_start[pair] + start + length - self.rows)[None, :] + np.arange(self.rows)[:, None]
        keys = np.where(
            position >= (row_start[pair] + start)[None, :],
            predictions.ref_keys[np.maximum(position, 0)],
            predictions.offset.shape[0] - 1,
        )
        first = predictions.offset[keys]  # (rows, regions): where each mask starts
        self.matches = predictions.masks[np.add(first[:, region], within, order="C")]  # (rows, size)

    def ref_positions(self, row: np.ndarray, region: np.ndarray) -> np.ndarray:
        """The reference position of ``row`` of ``region``."""
        position: np.ndarray = self.start[region] + self.length[region] - self.rows + row
        return position

    def union_marks(self) -> np.ndarray:
        """``(rows, regions)`` bool: the reference words of each region's union LCS."""
        size = self.size * 4
        keep = _as_int(self.words)
        vector = keep
        along = []  # per reference word: the cells where the backtrack steps along the prediction
        for line in self.matches:
            taken = vector & _as_int(line)
            total = vector + taken
            kept = vector - taken
            along.append(((total ^ vector ^ taken) & kept).to_bytes(size, "little"))
            vector = (total | kept) & keep
        if not along:
            return np.zeros((0, self.length.shape[0]), dtype=bool)
        # backwards, bits reversed: a walk along the prediction is then a carry towards higher bits
        words_reversed = _as_int(_reversed(self.words))
        entering = _as_int(_reversed(self.ends))  # every walk starts at its sentence pair's last cell
        steps_reversed = _reversed(np.frombuffer(b"".join(along), dtype="<u4").reshape(self.rows, self.size))
        matches_reversed = _reversed(self.matches)
        taken_lines = []
        for position in reversed(range(self.rows)):
            steps = _as_int(steps_reversed[position])
            total = steps + entering
            stops = total ^ (total & steps)
            taken = stops & _as_int(matches_reversed[position])
            taken_lines.append(taken.to_bytes(size, "little"))
            entering = ((taken << 1) | (stops ^ taken)) & words_reversed
        # taken_lines run from the last row up, each with its bits reversed: flip both back
        reversed_lanes = np.frombuffer(b"".join(taken_lines), dtype="<u4").reshape(self.rows, self.size)
        taken_any: np.ndarray = np.logical_or.reduceat(reversed_lanes[::-1, ::-1] != 0, self.region_start, axis=1)
        return taken_any

"""The LCS and rougeLsum's union LCS on the host: bit-parallel, 64 prediction words to a machine word.

:mod:`.lcs` computes every cell of each table with whole-array operations, which suits an
accelerator; on the CPU this module computes the same numbers with far fewer operations. For a
reference ``a`` and a prediction ``b`` (Hyyrö's bit-vector formulation of the LCS table), with ``M[w]``
the bits of the prediction words equal to ``w`` and ``V`` a bit-vector over the prediction, all ones
at first,

    for each reference word w:   U = V & M[w];   V = (V + U) | (V & ~U)

after ``i`` reference words the zero bits among the first ``j`` bits of ``V`` number ``t[i][j]``, the LCS
table's entry: the LCS has as many words as ``V`` has zero bits. Many pairs go at once (NumPy arrays
of ``uint64``, one column per pair, several words per vector with carries for long rows).

``rougeLsum`` takes each reference sentence against each prediction sentence: every sentence pair
keeps its vectors after each reference word, and rouge-score's backtrack (``_backtrack_norec``: a
diagonal step on equal words, else a step along the prediction where ``t[i][j-1] > t[i-1][j]``, else
along the reference) walks all pairs at once, reading ``t`` as counts of zero bits.

Pairs are taken in groups of similar lengths (:data:`GROUP`), each cut to its longest rows.
"""

from __future__ import annotations

import numpy as np

#: The most pairs of one group, and the most vector words (pairs x reference words x words per vector).
GROUP = 512
GROUP_WORDS = 2**21
_ONES = np.uint64(2**64 - 1)
#: Vectors of up to this many words add their carries word by word; longer ones by carry-lookahead.
RIPPLE_WORDS = 4


def lcs_lengths(ref: np.ndarray, ref_length: np.ndarray, pred: np.ndarray, pred_length: np.ndarray) -> np.ndarray:
    """``(P,)`` int64 LCS lengths of padded rows ``ref`` ``(P, Lr)`` and ``pred`` ``(P, Lp)`` (pads: two
    different negative numbers) of ``ref_length`` and ``pred_length`` words.

    Example:
        >>> ref, pred = np.array([[1, 2, 3, 4], [5, 6, -1, -1]]), np.array([[2, 4, 3, -2], [6, 5, 6, 5]])
        >>> lcs_lengths(ref, np.array([4, 2]), pred, np.array([3, 4])).tolist()
        [2, 2]
    """
    lengths = np.zeros(ref.shape[0], dtype=np.int64)
    for rows, ref_rows, pred_rows in _groups(ref, ref_length, pred, pred_length):
        vectors = _final_vectors(_match_bits(ref_rows, pred_rows))
        lengths[rows] = pred_length[rows] - _ones_below(vectors, pred_length[rows])
    return lengths


def union_lcs_marks(ref: np.ndarray, ref_length: np.ndarray, pred: np.ndarray, pred_length: np.ndarray) -> np.ndarray:
    """``(Q, Lr)`` bool: the reference words of rouge-score's LCS of each sentence pair (padded rows
    ``ref`` ``(Q, Lr)`` and ``pred`` ``(Q, Lp)``), as its backtrack reads it out.

    Example:
        >>> union_lcs_marks(np.array([[1, 2, 1]]), np.array([3]), np.array([[1, 2, 2]]), np.array([3])).tolist()
        [[True, True, False]]
    """
    layout = np.zeros((4, ref.shape[0]), dtype=np.int64)  # per pair: match base, vector base, words, stride
    local = np.zeros(ref.shape[0], dtype=np.int64)
    matches, vectors, before = [], [], []
    match_base = vector_base = 0
    for rows, ref_rows, pred_rows in _groups(ref, ref_length, pred, pred_length):
        group_matches = _match_bits(ref_rows, pred_rows)
        group_vectors = _all_vectors(group_matches)
        layout[:, rows] = np.array([[match_base], [vector_base], [group_matches.shape[1]], [rows.shape[0]]])
        local[rows] = np.arange(rows.shape[0])
        matches.append(group_matches.reshape(-1))
        vectors.append(group_vectors.reshape(-1))
        # the ones in each vector's words before each word, so that a count of ones reads one word
        ones = np.bitwise_count(group_vectors).astype(np.int64)
        before.append((np.cumsum(ones, axis=1) - ones).reshape(-1))
        match_base += group_matches.size
        vector_base += group_vectors.size
    flat_matches, flat_vectors = (
        np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64) for parts in (matches, vectors)
    )
    flat_before = np.concatenate(before) if before else np.zeros(0, dtype=np.int64)
    return _backtrack(flat_matches, (flat_vectors, flat_before), layout, local, ref_length, pred_length, ref.shape[1])


def _groups(
    ref: np.ndarray, ref_length: np.ndarray, pred: np.ndarray, pred_length: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The pairs in groups of at most :data:`GROUP` of similar lengths (and :data:`GROUP_WORDS` vector
    words), each group's rows cut to its longest."""
    order = np.lexsort((pred_length, ref_length))
    groups = []
    first = 0
    while first < order.shape[0]:
        rows = order[first : first + GROUP]
        ref_width, pred_width = int(ref_length[rows].max()), int(pred_length[rows].max())
        most = max(1, GROUP_WORDS // max(1, ref_width * -(-pred_width // 64)))
        if rows.shape[0] > most:
            rows = rows[:most]
            ref_width, pred_width = int(ref_length[rows].max()), int(pred_length[rows].max())
        groups.append((rows, ref[rows, :ref_width], pred[rows, :pred_width]))
        first += rows.shape[0]
    return groups


def _match_bits(ref: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """``(Lr, W, Q)`` uint64: for each reference word of each pair, the bits of the equal prediction words.

    Each pair's prediction words give one bit-vector per distinct word (keys ``pair * D + word``, sorted);
    each reference word looks its vector up.
    """
    pairs, pred_width = pred.shape
    words = max(1, -(-pred_width // 64))
    distinct = int(max(pred.max(initial=0), ref.max(initial=0))) + 1
    pair_of, position = np.nonzero(pred >= 0)
    keys, slot = np.unique(pair_of * distinct + pred[pair_of, position], return_inverse=True)
    vectors = np.zeros((keys.shape[0] + 1, words), dtype=np.uint64)  # the last: no equal word
    np.add.at(vectors, (slot, position >> 6), np.uint64(1) << (position & 63).astype(np.uint64))  # distinct bits
    ref_pair, ref_position = np.nonzero(ref >= 0)
    wanted = ref_pair * distinct + ref[ref_pair, ref_position]
    found = np.searchsorted(keys, wanted)
    equal = keys[np.minimum(found, max(keys.shape[0] - 1, 0))] == wanted if keys.shape[0] else False
    bits = np.zeros((ref.shape[1], words, pairs), dtype=np.uint64)
    bits[ref_position, :, ref_pair] = vectors[np.where(equal, found, keys.shape[0])]
    return bits


def _step(vector: np.ndarray, matches: np.ndarray) -> np.ndarray:
    """``V`` after one more reference word: ``(V + U) | (V & ~U)``, ``U = V & M``, carries across words."""
    taken = vector & matches
    total = vector + taken
    if vector.shape[0] > RIPPLE_WORDS:
        total += _carries(total < vector, total == _ONES)
    elif vector.shape[0] > 1:  # a few words: the carry ripples from word to word
        carry = np.zeros(vector.shape[1], dtype=np.uint64)
        for word in range(vector.shape[0]):
            carried = total[word] + carry
            carry = ((total[word] < vector[word]) | (carried < carry)).astype(np.uint64)
            total[word] = carried
    out: np.ndarray = total | (vector & ~taken)
    return out


def _carries(generated: np.ndarray, propagated: np.ndarray) -> np.ndarray:
    """``(W, Q)`` the carry into each word of a multiword sum, from the words that overflowed (``generated``)
    and those that pass a carry on (``propagated``, all ones): a carry-lookahead, 64 words at a time as
    the bits of one addition."""
    words, pairs = generated.shape
    carries = np.zeros((words, pairs), dtype=np.uint64)
    carry_in = np.zeros(pairs, dtype=np.uint64)
    for first in range(0, words, 64):
        chunk = slice(first, first + 64)
        generate, propagate = (_pack(bits[chunk]) for bits in (generated, propagated))
        either = generate | propagate
        into = (either + generate + carry_in) ^ either ^ generate  # bit w: the carry into word w
        carries[chunk] = (into[None] >> np.arange(generated[chunk].shape[0], dtype=np.uint64)[:, None]) & np.uint64(1)
        last = np.uint64(min(64, words - first) - 1)
        carry_in = ((generate >> last) | ((propagate >> last) & (into >> last))) & np.uint64(1)
    return carries


def _pack(bits: np.ndarray) -> np.ndarray:
    """``(n <= 64, Q)`` bools as ``(Q,)`` uint64, row ``w`` bit ``w``."""
    packed = np.zeros((8, bits.shape[1]), dtype=np.uint8)
    packed[: -(-bits.shape[0] // 8)] = np.packbits(bits, axis=0, bitorder="little")
    return np.ascontiguousarray(packed.T).view("<u8")[:, 0]


def _final_vectors(matches: np.ndarray) -> np.ndarray:
    """``(W, Q)`` the bit-vectors after every reference word."""
    vector = np.full(matches.shape[1:], _ONES, dtype=np.uint64)
    for position in range(matches.shape[0]):
        vector = _step(vector, matches[position])
    return vector


def _all_vectors(matches: np.ndarray) -> np.ndarray:
    """``(Lr + 1, W, Q)`` the bit-vectors before the first reference word and after each."""
    vectors = np.empty((matches.shape[0] + 1, *matches.shape[1:]), dtype=np.uint64)
    vectors[0] = _ONES
    for position in range(matches.shape[0]):
        vectors[position + 1] = _step(vectors[position], matches[position])
    return vectors


def _below(bits: np.ndarray, word: int) -> np.ndarray:
    """The mask of the first ``bits`` bits that fall in ``word`` (``bits`` any shape, uint64 out)."""
    inside = np.minimum(np.maximum(bits - 64 * word, 0), 64).astype(np.uint64)
    shifted = _ONES >> (np.uint64(64) - np.maximum(inside, np.uint64(1)))
    return np.where(inside > 0, shifted, np.uint64(0))


def _ones_below(vectors: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """``(Q,)`` how many of the first ``bits`` bits of each pair's vector ``(W, Q)`` are ones."""
    return sum(
        (np.bitwise_count(vectors[word] & _below(bits, word)).astype(np.int64) for word in range(vectors.shape[0])),
        np.zeros(vectors.shape[1], dtype=np.int64),
    )


def _backtrack(
    flat_matches: np.ndarray,
    flat_vectors: tuple[np.ndarray, np.ndarray],
    layout: np.ndarray,
    local: np.ndarray,
    ref_length: np.ndarray,
    pred_length: np.ndarray,
    ref_width: int,
) -> np.ndarray:
    """``(Q, Lr)`` bool: the reference words rouge-score's backtrack takes, for every pair at once.

    Each pair's match bits and vectors (with the ones before each of their words) lie in its group's
    ``(L, W, pairs)`` block of the flat arrays; ``layout`` gives, per pair, the blocks' starts, its words
    per vector and its group's pairs."""
    marks = np.zeros((ref_length.shape[0], ref_width), dtype=bool)
    i, j = ref_length.astype(np.int64), pred_length.astype(np.int64)
    # the walk ends after its LCS's first word: it takes no word after that
    final = layout[1] + i * layout[2] * layout[3] + local
    remaining = j - _ones_before(flat_vectors, final, j, layout[2], layout[3])
    walking = np.flatnonzero(remaining > 0)
    i, j, remaining = i[walking], j[walking], remaining[walking]
    match_base, vector_base, words, stride = layout[:, walking]
    offset = local[walking]
    while walking.shape[0]:
        word, bit = (j - 1) >> 6, ((j - 1) & 63).astype(np.uint64)
        at = match_base + ((i - 1) * words + word) * stride + offset
        equal = ((flat_matches[at] >> bit) & np.uint64(1)).astype(bool)
        # t[i][j - 1] > t[i - 1][j]: zeros among the first j - 1 bits of V_i, and the first j bits of V_{i-1}
        row = vector_base + offset
        left_value = (j - 1) - _ones_before(flat_vectors, row + i * words * stride, j - 1, words, stride)
        up_value = j - _ones_before(flat_vectors, row + (i - 1) * words * stride, j, words, stride)
        left = left_value > up_value
        marks[walking[equal], i[equal] - 1] = True
        i = i - (equal | ~left)
        j = j - (equal | left)
        remaining = remaining - equal
        going = remaining > 0
        if not going.all():
            walking, i, j, offset, remaining = (values[going] for values in (walking, i, j, offset, remaining))
            match_base, vector_base, words, stride = (
                values[going] for values in (match_base, vector_base, words, stride)
            )
    return marks


def _ones_before(
    flat_vectors: tuple[np.ndarray, np.ndarray],
    start: np.ndarray,
    bits: np.ndarray,
    words: np.ndarray,
    stride: np.ndarray,
) -> np.ndarray:
    """How many of the first ``bits`` bits of the vectors at ``start`` (word ``w`` at ``start + w * stride``,
    ``words`` words) are ones: those of the words before the one holding the last of those bits, and
    those of that word."""
    vectors, ones_before_word = flat_vectors
    word = np.minimum(bits >> 6, words - 1)
    inside = (bits - 64 * word).astype(np.uint64)  # 0 .. 64
    low = np.where(inside >= 64, _ONES, (np.uint64(1) << np.minimum(inside, np.uint64(63))) - np.uint64(1))
    at = start + word * stride
    ones: np.ndarray = ones_before_word[at] + np.bitwise_count(vectors[at] & low).astype(np.int64)
    return ones

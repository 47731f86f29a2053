"""Exact word ids on the host, with no Python call per word: each word is hashed, looked up in a table,
and every hit checked character by character.

The words lie end to end in one array of code points (a batch's or a corpus's). A word's hash is a
polynomial of its code points modulo 2^64; the top bits of the hash, mixed, pick a slot of a table
about twice as large as the number of words. Every word writes its index into its slot and reads back
what stands there: the one index that won the slot. A word whose winner has its length, its hash and,
read character by character, its code points takes the winner as its representative; equal words
share a slot, so they all take the same one. The words a different word beat to their slot try again
in a fresh table with other slot bits, a few rounds. Whatever is left then (words that share a 64-bit
hash with a different word: possible, since the hash is no secret, but never seen on real text) is
numbered by a Python dictionary of the words themselves. So equal words get equal ids and different
words different ids, always.

On the 512 lines of a batch of WMT17 (9,347 words) this takes about a third of the time of splitting
a string and looking every word up in a dictionary; about 0.6% of the words need a second round.
The table's few dozen array operations cost about as much as numbering some 600 words by a
dictionary, so up to :data:`DICTIONARY_WORDS` words are numbered by the dictionary alone (a batch of
8 WMT17 sentence pairs, about 200 words: a third of the time). NumPy only: the command line and the
metric share it.

Example:
    >>> import numpy as np
    >>> codes = np.array([ord(c) for c in "thecatthe"])
    >>> word_ids(codes, np.array([0, 3, 6]))
    (array([0, 1, 0]), 2)
"""

from __future__ import annotations

import numpy as np

from ..engine.keys import dense_ranks

#: The base of the polynomial hash (odd, so that its powers modulo 2^64 have inverses).
BASE = 0x9E3779B97F4A7C15
#: One odd multiplier per round, whose product with a hash brings fresh bits to the top for the slot.
ROUND_MIXERS = tuple(np.uint64(mixer) for mixer in (0xD6E8FEB86659FD93, 0xA0761D6478BD642F, 0xE7037ED1A0B428DB))
#: The most powers of :data:`BASE` (and of its inverse) kept between calls: 8 MiB of each.
POWERS_KEPT = 1 << 20
#: Up to this many words, a dictionary of the words numbers them faster than the table's rounds.
DICTIONARY_WORDS = 512

_powers: tuple[np.ndarray, np.ndarray] = (np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))


def base_powers(count: int) -> tuple[np.ndarray, np.ndarray]:
    """``BASE ** k`` and ``BASE ** -k`` modulo 2^64 for ``k = 0, 1, ...``, at least ``count`` of each.

    Example:
        >>> powers, inverses = base_powers(3)
        >>> powers[:3].tolist() == [1, BASE, BASE * BASE % 2**64], (powers[:3] * inverses[:3]).tolist()
        (True, [1, 1, 1])
    """
    global _powers
    if _powers[0].shape[0] >= count:
        return _powers
    size = max(count, min(2 * _powers[0].shape[0], POWERS_KEPT))
    made = (_running_powers(BASE, size), _running_powers(pow(BASE, -1, 2**64), size))
    if size <= POWERS_KEPT:
        _powers = made
    return made


def _running_powers(base: int, count: int) -> np.ndarray:
    factors = np.full(count, base, dtype=np.uint64)
    factors[0] = 1
    return np.cumprod(factors, out=factors)


def word_ids(codes: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, int]:
    """Exact ids ``0 .. D - 1`` of the words that lie end to end in ``codes`` (any integers, one per
    character), each starting at its entry of ``first`` (ascending, the first at 0; no word is empty),
    numbered in order of first appearance; and ``D``, the number of distinct words.

    Example:
        >>> word_ids(np.array([5, 6, 5, 6, 5]), np.array([0, 2, 4]))  # "ab ab a"
        (array([0, 0, 1]), 2)
        >>> word_ids(np.array([5, 5, 6, 5, 6]), np.array([0, 1, 3]))  # "a ab ab"
        (array([0, 1, 1]), 2)
    """
    words, size = first.shape[0], codes.shape[0]
    if words == 0:
        return np.zeros(0, dtype=np.int64), 0
    if words <= DICTIONARY_WORDS:
        ids = _dictionary_ids(codes, first, np.arange(words))
        return ids, int(ids.max()) + 1
    last = np.empty_like(first)
    last[:-1] = first[1:]
    last[-1] = size
    last -= 1
    lengths = last - first + 1
    hashes = _hashes(codes, first, last)
    slot_bits = (2 * words - 1).bit_length()
    table = np.empty(1 << slot_bits, dtype=np.int32)
    representative = np.arange(words)
    left = representative  # the words still without a representative
    for round_number, mixer in enumerate(ROUND_MIXERS):
        slot = ((hashes.take(left) * mixer) >> np.uint64(64 - slot_bits)).astype(np.intp)
        table[slot] = left  # of several words in one slot, one wins
        winner = table.take(slot).astype(np.int64)
        same = (lengths.take(winner) == lengths.take(left)) & (hashes.take(winner) == hashes.take(left))
        if round_number == 0:  # every word: each character beside the winner's
            same &= _runs_equal(codes, first, last, first.take(winner) - first)
        else:  # the few words left: theirs only
            checked = np.flatnonzero(same)
            same[checked] = _equal_words(codes, first, lengths, left.take(checked), winner.take(checked))
        representative[left[same]] = winner[same]
        left = left[~same]
        if not left.shape[0]:
            break
    else:
        representative[left] = words + _dictionary_ids(codes, first, left)
    first_of_kind = np.full(int(representative.max()) + 1, words)  # where each distinct word first occurs
    np.minimum.at(first_of_kind, representative, np.arange(words))
    return dense_ranks(first_of_kind.take(representative), start=0)


def _hashes(codes: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """``(W,)`` uint64: each word's ``sum (code + 1) * BASE ** (place in the word)`` modulo 2^64, from one
    running sum of every character's term at its place in the stream."""
    powers, inverses = base_powers(codes.shape[0] + 1)
    terms = codes.astype(np.uint64)
    terms += np.uint64(1)
    terms *= powers[1 : codes.shape[0] + 1]  # BASE ** (1 + place in the stream): a word starts above 0
    np.cumsum(terms, out=terms)
    hashes = terms.take(last)
    hashes[1:] -= terms.take(first[1:] - 1)
    hashes *= inverses.take(first + 1)
    return hashes


def _runs_equal(codes: np.ndarray, first: np.ndarray, last: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``(W,)`` bool: whether each word's code points equal those ``shift`` further on (read clipped to the stream).

    Example:
        >>> codes, first, last = np.array([5, 6, 5, 6, 7]), np.array([0, 2, 4]), np.array([1, 3, 4])
        >>> _runs_equal(codes, first, last, np.array([2, 0, -4])).tolist()
        [True, True, False]
    """
    offset = np.zeros(codes.shape[0], dtype=np.int64)  # each character's word's shift, by a running sum
    offset[first[0]] = shift[0]
    offset[first[1:]] = np.diff(shift)
    np.cumsum(offset, out=offset)
    offset += np.arange(codes.shape[0])
    differ = (codes != codes.take(offset, mode="clip")).astype(np.int32)
    np.cumsum(differ, out=differ)
    differences = differ.take(last)
    differences[1:] -= differ.take(first[1:] - 1)
    equal: np.ndarray = differences == 0
    return equal


def _equal_words(
    codes: np.ndarray, first: np.ndarray, lengths: np.ndarray, words: np.ndarray, others: np.ndarray
) -> np.ndarray:
    """``(K,)`` bool: whether each of ``words`` has the code points of the same-length word in ``others``."""
    if not words.shape[0]:
        return np.zeros(0, dtype=bool)
    counts = lengths.take(words)
    ends = counts.cumsum()
    own = np.arange(int(ends[-1]))
    own += np.repeat(first.take(words) - (ends - counts), counts)
    theirs = own + np.repeat(first.take(others) - first.take(words), counts)
    return ~np.logical_or.reduceat(codes.take(own) != codes.take(theirs), ends - counts)


def _dictionary_ids(codes: np.ndarray, first: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Ids ``0, 1, ...`` of ``words`` (ascending word numbers), in order of first appearance, by a dictionary
    of their code points' bytes: the method for a few words, and the last resort for words that share
    their hash with a different word.

    Example:
        >>> _dictionary_ids(np.array([5, 6, 5, 6, 5]), np.array([0, 2, 4]), np.array([0, 1, 2]))
        array([0, 0, 1])
    """
    data = np.ascontiguousarray(codes).tobytes()
    width = codes.dtype.itemsize
    bounds = np.append(first, codes.shape[0]) * width
    starts, ends = bounds.take(words).tolist(), bounds.take(words + 1).tolist()
    ids: dict[bytes, int] = {}
    return np.fromiter(
        (ids.setdefault(data[start:end], len(ids)) for start, end in zip(starts, ends)),
        dtype=np.int64,
        count=words.shape[0],
    )

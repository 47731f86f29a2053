"""chrF++'s words in a stream of text: where they start, and exact ids for them.

sacrebleu splits a line with ``str.split()``; a word of several characters then gives up a
punctuation character (ASCII, ``string.punctuation``) at its end, else one at its start, as a word
of its own: ``(hi)`` gives ``(hi`` and ``)``. :func:`word_starts` states that per character.

Word ids need no hashing: each word is cut into chunks of as many characters as fit in an int64,
the chunks are ranked among the batch's chunks, and then, round after round, each chunk takes the
rank of the tuple (its own rank, the ranks of the chunks ``span``, ``2 span``, ... further in the same
word), which covers that many times more characters, until the rank of a word's first chunk tells
the whole word (one or two rounds on real text).

Streams are those of :mod:`torch_bleu.engine.flat_pairs` (rows end to end); everything runs on
PyTorch tensors (any device, no host sync) and NumPy arrays alike.
"""

from __future__ import annotations

from ..arrays import (
    Array,
    arange_like,
    array_namespace,
    full_like_shape,
    running_max,
    scatter_into,
    shifted_sum,
    sizes_from_data,
    take_along_last,
)
from ..detokenize.classes import PUNCTUATION, SPACE
from ..engine.flat_pairs import KEY_BITS, PairStream, dense_ranks, kept, kept_size


def word_starts(classes: Array, rows: Array) -> tuple[Array, Array]:
    """``(in_word, starts)`` of chrF++'s words in a stream of characters (``classes``: their class bits).

    Example:
        >>> import numpy as np
        >>> from ..detokenize.classes import character_classes
        >>> chars = np.array([ord(char) for char in "(hi) a, ok"])
        >>> word_starts(character_classes(chars), np.zeros(10, dtype=np.int64))[1].astype(int).tolist()
        [1, 0, 0, 1, 0, 1, 1, 0, 1, 0]
    """
    xp = array_namespace(classes)
    slots = classes.shape[0]
    in_word = (classes & SPACE) == 0
    punctuation = (classes & PUNCTUATION) != 0
    joined = full_like_shape(in_word, (slots + 1,), False)  # joined[i]: slots i - 1 and i form one run
    joined[1:slots] = in_word[1:] & in_word[:-1] & (rows[1:] == rows[:-1])
    run_start = in_word & ~joined[:slots]
    run_end = in_word & ~joined[1:]
    # whether each run (numbered from 1) ends in punctuation, read at its first slot
    run = run_start.cumsum(axis=-1)
    ends_in_punctuation = full_like_shape(punctuation, (slots + 1,), False)
    scatter_into(ends_in_punctuation, xp.where(run_end, run, 0), run_end & punctuation)
    before_last = run_end & punctuation & ~run_start
    split_first = run_start & ~run_end & punctuation & ~ends_in_punctuation[run]
    after_first = full_like_shape(in_word, (slots,), False)
    after_first[1:] = split_first[:-1]
    return in_word, run_start | before_last | after_first


def word_stream(chars: PairStream, starts: Array) -> PairStream:
    """The words of a stream of word characters (each slot a character of a word; ``starts``: the first
    of each word) as a stream of exact word ids, one slot per word, in the same rows.

    The words lie end to end; unused slots (row ``2 P``), if any, come after them, as :func:`kept`
    leaves them.

    Example:
        >>> import numpy as np
        >>> ranks, distinct = dense_ranks(np.array([1, 2, 1, 2, 1]), np.ones(5, dtype=bool))
        >>> starts = np.array([True, False, True, False, True])  # "ab ab a"
        >>> word_stream(PairStream(ranks, np.zeros(5, dtype=np.int64), 1, distinct), starts).ranks.tolist()
        [2, 2, 1]
    """
    ranks, rows, pairs, distinct = chars
    xp = array_namespace(ranks)
    slots = ranks.shape[0]
    in_word = rows < 2 * pairs
    starts = starts & in_word
    word = starts.cumsum(axis=-1)
    position = arange_like(slots, ranks)
    offset = position - running_max(xp.where(starts, position, 0))
    longest = int(xp.where(in_word, offset, -1).max()) + 1 if slots and sizes_from_data(offset) else slots
    code_bits = max(distinct.bit_length(), 1)
    per_key = max(1, min(KEY_BITS // code_bits, longest))

    def partner(values: Array, word_of: Array, distance: int) -> Array:
        """``values`` ``distance`` slots on, where that slot is in the same word (else 0)."""
        ahead = full_like_shape(values, values.shape, 0)
        size = values.shape[0]
        if distance < size:
            ahead[: size - distance] = xp.where(word_of[distance:] == word_of[: size - distance], values[distance:], 0)
        return ahead

    chunk_start = in_word & (offset % per_key == 0) if per_key < longest else starts
    chunks = kept_size(chunk_start)
    at, chunk_word, chunk_row, first = kept(
        chunk_start, chunks, (position, slots), (word, 0), (rows, 2 * pairs), (starts, False)
    )
    # a chunk ends where the next one starts (the words lie end to end), or where the used slots end
    end = full_like_shape(at, at.shape, slots)
    end[:-1] = at[1:]
    length = xp.minimum(end, in_word.sum()) - at
    # each chunk's characters read where it starts, then what lies past its end cut off
    ranks = xp.concatenate([ranks, full_like_shape(ranks, (per_key,), 0)])
    keys = take_along_last(ranks, at)
    for distance in range(1, per_key):
        keys <<= code_bits
        keys += take_along_last(ranks[distance:], at)
    cut = code_bits * (per_key - length.clip(min=0))
    keys >>= cut
    keys <<= cut
    valid = chunk_row < 2 * pairs
    ids, count = dense_ranks(keys, valid)
    span, covered = 1, per_key
    while covered < longest:
        fan_in = max(2, KEY_BITS // max(count.bit_length(), 1))
        combined = ids
        for step in range(1, fan_in):
            combined = shifted_sum(combined, count.bit_length(), partner(ids, chunk_word, step * span))
        ids, count = dense_ranks(combined, valid)
        span, covered = span * fan_in, covered * fan_in
    word_ids, word_rows = kept(first, kept_size(first), (ids, 0), (chunk_row, 2 * pairs))
    return PairStream(word_ids, word_rows, pairs, count)

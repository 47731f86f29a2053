"""Exact word ids: equal words get equal ids, different words different ids.

On the host (NumPy arrays), words are numbered through a hash table whose every hit is checked
character by character (:mod:`.word_table`). On a device, where nothing may wait for the data, a word
is identified by prefix doubling, with no hashing. Its characters are cut into chunks of as many
characters as fit in one int64, from the word's start; the chunks are ranked among the batch's chunks;
then, round after round, each chunk takes the rank of the tuple (its own rank, the ranks of the chunks
``span``, ``2 span``, ... further in the same word), as many ranks as fit in one int64 (at least two),
which covers that many times more characters. Once the chunks so combined reach the longest word, the
rank of a word's first chunk tells the whole word: one or two rounds on real text. Each round is one
sort.

:func:`word_ids` works on a stream of word characters (the words end to end, as chrF++ holds them);
:func:`word_rows` serves rows of code points (as sacrebleu's tokenizers on decoded ids give them) through
it. Both run on PyTorch tensors (any device; the number of rounds then follows from the shapes, so
nothing waits for the device) and NumPy arrays alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, NamedTuple

import numpy as np

from ..arrays import (
    Array,
    ArrayT,
    arange_like,
    array_namespace,
    cast,
    full_like_shape,
    is_tensor,
    kept_size,
    last_marked,
    pack_kept,
    running_count,
    scatter_into,
    shifted_sum,
    sizes_from_data,
    take_along_last,
)
from ..engine import keys
from . import word_table

#: A bound on the code points of text (the last is U+10FFFF), plus one: the values :func:`word_rows` ranks.
CODE_POINT_VALUES = 0x110000


def word_ids(
    chars: ArrayT,
    starts: ArrayT,
    used: ArrayT,
    distinct: int,
    *columns: tuple[ArrayT, float | ArrayT],
    longest: int | None = None,
) -> tuple[ArrayT, int, list[ArrayT]]:
    """Exact ids of the words of a stream whose used slots hold the characters of words, end to end.

    Args:
        chars: ``(N,)`` int64 values ``1..distinct`` of the characters, equal exactly where the
            characters are (dense ranks, or code points plus one).
        starts: ``(N,)`` bool, the first character of each word.
        used: ``(N,)`` bool, the slots that hold a character; any others (those that static shapes
            leave) come after them.
        distinct: a bound on the values of ``chars``.
        columns: ``(values, filler)`` pairs, one value per slot, to read at the first character of each word.
        longest: a bound on the characters of a word (the rows' width, where words lie in rows), which
            bounds the rounds where sizes follow from shapes alone; by default the stream's length.

    Returns:
        The ids ``1, 2, ...`` of the words in stream order (0 in the slots after them), a bound on how
        many distinct words there are, and each column read at each word (its filler after them).

    Example:
        >>> import numpy as np
        >>> chars = np.array([1, 2, 1, 2, 1])  # "ab ab a", the spaces left out
        >>> starts = np.array([True, False, True, False, True])
        >>> ids, count, (first,) = word_ids(chars, starts, np.ones(5, dtype=bool), 2, (np.arange(5), -1))
        >>> ids.tolist(), count, first.tolist()
        ([1, 1, 2], 2, [0, 2, 4])
    """
    if not is_tensor(chars):
        return _word_ids_on_host(chars, starts & used, int(used.sum()), columns)
    xp = array_namespace(chars)
    slots = chars.shape[0]
    starts = starts & used
    word = running_count(starts)
    position = arange_like(slots, chars)
    offset = position - last_marked(starts, position, 0)  # of each character in its word
    if slots and sizes_from_data(offset):
        longest = int(xp.where(used, offset, -1).max()) + 1
    elif longest is None or longest > slots:
        longest = slots
    code_bits = max(distinct.bit_length(), 1)
    per_key = max(1, min(keys.KEY_BITS // code_bits, longest))

    # the chunks of every word, one slot each: where each starts, its word, whether it is a word's first
    chunk_start = used & (offset % per_key == 0) if per_key < longest else starts
    at, chunk_word, first, valid, *chunk_columns = pack_kept(
        chunk_start, kept_size(chunk_start), (position, slots), (word, 0), (starts, False), (used, False), *columns
    )
    # a chunk ends where the next one starts (the words lie end to end), or where the used slots end
    end = full_like_shape(at, at.shape, slots)
    end[:-1] = at[1:]
    length = xp.minimum(end, used.sum()) - at
    # each chunk's characters read where it starts, then what lies past its end cut off
    chars = xp.concatenate([chars, full_like_shape(chars, (per_key,), 0)])
    key = take_along_last(chars, at)
    for distance in range(1, per_key):
        key <<= code_bits
        key += take_along_last(chars[distance:], at)
    cut = code_bits * (per_key - length.clip(min=0))
    key >>= cut
    key <<= cut
    ids, count = keys.dense_ranks(key, valid)
    span, covered = 1, per_key
    while covered < longest:
        fan_in = max(2, keys.KEY_BITS // max(count.bit_length(), 1))
        combined = ids
        for step in range(1, fan_in):
            combined = shifted_sum(combined, count.bit_length(), _in_same_word(ids, chunk_word, step * span))
        ids, count = keys.dense_ranks(combined, valid)
        span, covered = span * fan_in, covered * fan_in
    fillers = [filler for _, filler in columns]
    word_ids, *word_columns = pack_kept(first, kept_size(first), (ids, 0), *zip(chunk_columns, fillers))
    return word_ids, count, word_columns


def _word_ids_on_host(
    chars: np.ndarray, starts: np.ndarray, used: int, columns: tuple[tuple[np.ndarray, float | np.ndarray], ...]
) -> tuple[np.ndarray, int, list[np.ndarray]]:
    """:func:`word_ids` on the host, through a hash table whose every hit is checked
    (:mod:`~torch_bleu.text.word_table`): one pass over the characters instead of a sort per round."""
    first = np.flatnonzero(starts[:used])
    begin = int(first[0]) if first.shape[0] else used  # characters before the first word belong to none
    ids, count = word_table.word_ids(chars[begin:used], first - begin)
    return ids + 1, count, [values.take(first) for values, _ in columns]


def _in_same_word(values: ArrayT, word: ArrayT, distance: int) -> ArrayT:
    """``values`` ``distance`` slots on, where that slot is in the same word (else 0)."""
    xp = array_namespace(values)
    ahead = full_like_shape(values, values.shape, 0)
    size = values.shape[0]
    if distance < size:
        ahead[: size - distance] = xp.where(word[distance:] == word[: size - distance], values[distance:], 0)
    return ahead


if TYPE_CHECKING:  # to type checkers, one kind of array throughout (a NamedTuple is generic from Python 3.11 on)

    class WordRows(NamedTuple, Generic[ArrayT]):
        """The words below, both arrays of one kind."""

        ids: ArrayT
        lengths: ArrayT

else:

    class WordRows(NamedTuple):
        """Words as ids, packed to the front of their rows.

        Attributes:
            ids: ``(M, W)`` int64 word ids (0 past a row's words).
            lengths: ``(M,)`` int64, how many words each row has.
        """

        ids: Array
        lengths: Array


def word_rows(chars: ArrayT, in_word: ArrayT, starts: ArrayT) -> WordRows[ArrayT]:
    """The words of rows of code points ``(M, L)`` (``in_word``: the characters of words; ``starts``: the
    first of each word, both as :func:`~torch_bleu.text.sacrebleu_words.word_starts` gives them) as ids.

    Example:
        >>> import torch
        >>> from .code_points import rows_from_strings
        >>> from .sacrebleu_words import word_starts
        >>> chars = rows_from_strings(["to be or not to be"], torch.device("cpu"))
        >>> words = word_rows(chars, *word_starts(chars, "none"))
        >>> ids = words.ids[0, : words.lengths[0]].tolist()
        >>> ids[0] == ids[4] and ids[1] == ids[5] and len(set(ids)) == 4
        True
    """
    xp = array_namespace(chars)
    if is_tensor(chars) and sizes_from_data(chars):  # on the CPU: NumPy on the tensors' own memory is faster
        host_ids, host_lengths = word_rows(chars.numpy(), in_word.numpy(), starts.numpy())
        return WordRows(xp.from_numpy(host_ids), xp.from_numpy(host_lengths))
    rows, width = chars.shape
    flat_in_word = in_word.reshape(-1)
    row = arange_like(rows * width, chars) // max(width, 1)
    codes, stream_starts, stream_rows = pack_kept(
        flat_in_word,
        kept_size(flat_in_word),
        (cast(chars.reshape(-1), xp.int64) + 1, 0),
        (starts.reshape(-1), False),
        (row, rows),
    )
    used = stream_rows < rows
    distinct = int(codes.max()) if sizes_from_data(codes) and codes.shape[0] else CODE_POINT_VALUES
    ids, _, (word_row,) = word_ids(codes, stream_starts, used, distinct, (stream_rows, rows), longest=width)
    # the words lie row after row: a word's column is its place after the first word of its row
    lengths = starts.sum(-1)
    words = kept_size(starts)
    first_word = lengths.cumsum(-1) - lengths
    inside = word_row < rows
    column = arange_like(ids.shape[0], ids) - take_along_last(first_word, word_row.clip(max=max(rows - 1, 0)))
    slot = word_row * (words + 1) + xp.where(inside, column, words)  # a slot of no word: the spare corner
    grid = scatter_into(full_like_shape(ids, ((rows + 1) * (words + 1),), 0), slot, ids)
    return WordRows(grid.reshape(rows + 1, words + 1)[:rows, :words], lengths)

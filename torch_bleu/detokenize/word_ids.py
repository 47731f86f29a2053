"""Exact word ids from rows of code points: equal words get equal ids, and different words different ids.

No hashing: a word is identified by prefix doubling. A word is cut into chunks of three code points
from its start, each packed in one int64 and ranked among the batch's chunks; then, round after
round, each chunk takes the rank of the tuple (its own rank, the ranks of the chunks ``span``,
``2 span``, ... further in the same word), as many ranks as fit in one int64 (at least two), which
covers that many times more characters. Once ``span`` chunks reach the longest word, the rank of a
word's first chunk tells the whole word. Each round is one sort of the batch's chunks.

The number of rounds follows from the rows' width (a word is at most a row long), so shapes never
depend on the text; on CPU, where reading a tensor needs no synchronization, it follows from the
longest word actually present: one or two rounds on real text.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from ..arrays import shifted_sum
from ..engine.rows import compact
from .chars import widths_from_data

#: Code points are below ``2**21``, so three (each plus one, 0 meaning "past the word") fit an int64.
#: (On CPU, where the batch's largest code point can be read, as many as its bits allow: 7 for
#: Latin-1 text.)
CODE_BITS = 21
CHARS_PER_KEY = 3


class WordRows(NamedTuple):
    """Words as ids, packed to the front of their rows.

    Attributes:
        ids: ``(M, W)`` int64 word ids (0 past a row's words).
        lengths: ``(M,)`` int64, how many words each row has.
    """

    ids: Tensor
    lengths: Tensor


def _dense_ranks(keys: Tensor) -> Tensor:
    """The rank (from 1) of every key among the distinct keys of the whole batch."""
    flat = keys.reshape(-1)
    ordered, order = flat.sort()
    new = torch.ones_like(ordered, dtype=torch.int64)
    new[1:] = ordered[1:] != ordered[:-1]
    ranks = torch.empty_like(new).scatter_(0, order, new.cumsum(0))
    return ranks.view(keys.shape)


def word_rows(chars: Tensor, in_word: Tensor, starts: Tensor) -> WordRows:
    """The words of ``chars`` (``(M, W)`` code points; which are words from :func:`word_starts`) as ids.

    Example:
        >>> from .chars import rows_from_strings
        >>> from .sacrebleu_words import word_starts
        >>> chars = rows_from_strings(["to be or not to be"], torch.device("cpu"))
        >>> words = word_rows(chars, *word_starts(chars, "none"))
        >>> ids = words.ids[0, : words.lengths[0]].tolist()
        >>> ids[0] == ids[4] and ids[1] == ids[5] and len(set(ids)) == 4
        True
    """
    batch, width = chars.shape
    column = torch.arange(width, device=chars.device)
    word_start = torch.where(starts, column, -1).cummax(-1).values
    offset = column - word_start  # of each character in its word
    codes = (chars.to(torch.int64) + 1) * in_word
    code_bits, per_key = CODE_BITS, CHARS_PER_KEY
    longest = width
    if widths_from_data(chars):  # on CPU: the longest word, and the bits the batch's code points need
        longest = int(offset.masked_fill(~in_word, -1).max()) + 1
        code_bits = max(int(codes.max()).bit_length(), 1)
        per_key = 63 // code_bits
    # the word's characters in chunks of ``per_key`` from its start: one int64 key per chunk
    continues = (in_word & ~starts).long()  # the character belongs to the word of the one before
    keys, following = codes, codes
    for _ in range(per_key - 1):
        following = torch.cat([following[:, 1:] * continues[:, 1:], torch.zeros_like(codes[:, :1])], dim=1)
        keys = shifted_sum(keys, code_bits, following)
    # the chunks side by side, a word's chunks adjacent and in order
    chunk_starts = in_word & (offset % per_key == 0)
    chunk_width = int(chunk_starts.sum(-1).max()) if widths_from_data(chunk_starts) else width
    slots = torch.where(chunk_starts, chunk_starts.cumsum(-1) - 1, chunk_width)

    def chunked(values: Tensor) -> Tensor:
        packed = torch.zeros((batch, chunk_width + 1), dtype=torch.int64, device=chars.device)
        return packed.scatter_(1, slots, values)[:, :chunk_width]

    keys, word_number, first = chunked(keys), chunked(starts.cumsum(-1)), chunked(starts.long())
    ranks = _dense_ranks(keys)
    # then prefix doubling: ranks lie in [1, numel] (0: past the word), as many as fit in 63 bits combine
    bits = (ranks.numel() + 1).bit_length()
    fan_in = max(2, 63 // bits)
    span = 1
    while span * per_key < longest:
        combined = ranks
        for step in range(1, fan_in):
            distance = min(step * span, chunk_width)
            partner = torch.zeros_like(ranks)
            partner[:, : chunk_width - distance] = ranks[:, distance:] * (
                word_number[:, distance:] == word_number[:, : chunk_width - distance]
            )
            combined = shifted_sum(combined, bits, partner)
        ranks = _dense_ranks(combined)
        span *= fan_in
    lengths = starts.sum(-1)
    words = int(lengths.max()) if widths_from_data(lengths) else width
    zero = torch.zeros((), dtype=torch.int64, device=chars.device)
    ids = compact(ranks, first.bool(), zero, words + 1)[..., :words]
    return WordRows(ids, lengths)

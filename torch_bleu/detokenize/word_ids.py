"""Exact word ids from rows of code points: equal words get equal ids, and different words different ids.

No hashing: a word is identified by prefix doubling. Each character position first gets the rank
of the (up to) three code points from it to the end of its word, packed in one int64; then, round
after round, the rank of the pair (its own rank, the rank ``span`` positions further in the same
word), which covers twice as many characters. Once ``span`` reaches the longest word, the rank at a
word's first character tells the whole word. Each round is one sort of the batch's positions.

The number of rounds follows from the rows' width (a word is at most a row long), so shapes never
depend on the text; on CPU, where reading a tensor needs no synchronization, it follows from the
longest word actually present (:func:`longest_word`), usually two or three rounds.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from ..engine.rows import compact
from .chars import widths_from_data

#: Code points are below ``2**21``, so three (each plus one, 0 meaning "past the word") fit an int64.
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


def word_ends(in_word: Tensor, starts: Tensor) -> Tensor:
    """For each column, the column just past the end of the word it lies in (or past the column itself)."""
    width = in_word.shape[-1]
    column = torch.arange(width, device=in_word.device)
    stops = starts | ~in_word  # a word ends where another starts or where the text is not a word
    next_stop = torch.where(stops, column, width)
    # the first stop after each column: a running minimum from the right, over the columns after it
    after = torch.full_like(next_stop, width)
    after[..., :-1] = next_stop[..., 1:]
    return after.flip(-1).cummin(-1).values.flip(-1)


def longest_word(starts: Tensor, ends: Tensor) -> int:
    """The length of the longest word, read from CPU tensors (other devices get the row width instead)."""
    if not widths_from_data(starts):
        return starts.shape[-1]
    column = torch.arange(starts.shape[-1], device=starts.device)
    return int(torch.where(starts, ends - column, 0).max())


def _dense_ranks(keys: Tensor) -> Tensor:
    """The rank (from 1) of every key among the distinct keys of the whole batch."""
    flat = keys.reshape(-1)
    ordered, order = flat.sort()
    new = torch.ones_like(ordered, dtype=torch.int64)
    new[1:] = ordered[1:] != ordered[:-1]
    ranks = torch.empty_like(new).scatter_(0, order, new.cumsum(0))
    return ranks.view(keys.shape)


def word_rows(chars: Tensor, in_word: Tensor, starts: Tensor, longest: int | None = None) -> WordRows:
    """The words of ``chars`` (``(M, W)`` code points; which are words from :func:`word_starts`) as ids.

    ``longest`` bounds the word length (by default the row width, or on CPU the longest word found).

    Example:
        >>> from .chars import rows_from_strings
        >>> from .sacrebleu_words import word_starts
        >>> chars = rows_from_strings(["to be or not to be"], torch.device("cpu"))
        >>> words = word_rows(chars, *word_starts(chars, "none"))
        >>> ids = words.ids[0, : words.lengths[0]].tolist()
        >>> ids[0] == ids[4] and ids[1] == ids[5] and len(set(ids)) == 4
        True
    """
    width = chars.shape[-1]
    ends = word_ends(in_word, starts)
    if longest is None:
        longest = longest_word(starts, ends)
    column = torch.arange(width, device=chars.device)
    codes = (chars.to(torch.int64) + 1).masked_fill_(~in_word, 0)
    keys = torch.zeros_like(codes)
    for offset in range(CHARS_PER_KEY):
        following = torch.zeros_like(codes)
        following[..., : width - offset] = codes[..., offset:]
        following.masked_fill_(column + offset >= ends, 0)
        keys = keys.add_(following, alpha=1 << (CODE_BITS * (CHARS_PER_KEY - 1 - offset)))
    ranks = _dense_ranks(keys)
    ceiling = ranks.numel() + 1  # ranks lie in [1, numel]; 0 means "past the word"
    span = CHARS_PER_KEY
    while span < longest:
        partner = torch.zeros_like(ranks)
        partner[..., : width - span] = ranks[..., span:]
        partner.masked_fill_(column + span >= ends, 0)
        ranks = _dense_ranks(ranks * ceiling + partner)
        span *= 2
    lengths = starts.sum(-1)
    words = int(lengths.max()) if widths_from_data(lengths) else width
    filler = torch.zeros((), dtype=torch.int64, device=chars.device)
    ids = compact(ranks, starts, filler, words + 1)[..., :words]
    return WordRows(ids, lengths)

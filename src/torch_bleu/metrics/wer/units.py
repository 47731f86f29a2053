"""The units WER and CER count, as jiwer's default transforms make them: words or characters, as code
points (strings, for rapidfuzz on the host) or ids (decoded text on a device).

Strings, as jiwer reads them (``wer_default``, ``cer_default``):

* words: runs of two or more whitespace characters (``str.isspace``) become one space, the ends are
  stripped, and words are split at single spaces only, so one tab or no-break space between two words
  leaves them one word (two of them separate words);
* characters: the ends stripped of whitespace, then every code point a unit (spaces included).

Text decoded on a device (code points in rows) follows the same rules there: a whitespace character
separates words where it is a space, touches another whitespace character, or ends the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain

import torch
from torch import Tensor

from ...arrays import kept_size, pack_kept
from ...text.classes import SPACE, character_classes
from ...text.code_points import PAD, kept_chars, shifted
from ...text.word_ids import word_rows
from .host_alignment import CODE_POINTS, code_points

#: jiwer's ``RemoveMultipleSpaces``.
_WHITESPACE_RUNS = re.compile(r"\s\s+")


def jiwer_words(text: str) -> list[str]:
    """The words of ``text`` as jiwer's ``wer_default`` reads it.

    A printable text has no whitespace but spaces (every other whitespace character is a separator or
    a control character), so ``str.split`` reads it as jiwer does.

    Example:
        >>> jiwer_words(" a  b\\tc \\u00a0d\\u00a0\\u00a0e\\n")
        ['a', 'b\\tc', 'd', 'e']
    """
    if text.isprintable():
        return text.split()
    return [word for word in _WHITESPACE_RUNS.sub(" ", text).strip().split(" ") if word]


def word_strings(hypotheses: Sequence[str], references: Sequence[str]) -> tuple[list[str], list[str]]:
    """The words of each text (:func:`jiwer_words`) as a string of code points, one per word, equal words
    of a pair equal code points (:func:`.host_alignment.code_point`).

    Example:
        >>> word_strings(["a b a"], ["b c"])
        (['\\x00\\x01\\x00'], ['\\x01\\x02'])
    """
    hyp_words = [jiwer_words(text) for text in hypotheses]
    ref_words = [jiwer_words(text) for text in references]
    hyp_strings: list[str] = []
    ref_strings: list[str] = []
    start, batch = 0, len(hyp_words)
    while start < batch:
        # pairs of at most CODE_POINTS words together (at least one pair): their words number fewer
        stop, words = start + 1, len(hyp_words[start]) + len(ref_words[start])
        while stop < batch and words + len(hyp_words[stop]) + len(ref_words[stop]) <= CODE_POINTS:
            words += len(hyp_words[stop]) + len(ref_words[stop])
            stop += 1
        codes = dict(
            zip(dict.fromkeys(chain.from_iterable([*hyp_words[start:stop], *ref_words[start:stop]])), code_points())
        )
        hyp_strings += ["".join(map(codes.__getitem__, row)) for row in hyp_words[start:stop]]
        ref_strings += ["".join(map(codes.__getitem__, row)) for row in ref_words[start:stop]]
        start = stop
    return hyp_strings, ref_strings


def text_units(chars: Tensor, characters: bool) -> tuple[Tensor, Tensor]:
    """The units of rows of code points ``(M, W)`` (``PAD`` where a row holds none) on their device, as
    :func:`word_strings` makes them of strings: ``(M, L)`` int64 ids and ``(M,)`` int64 lengths.

    Example:
        >>> from torch_bleu.text.code_points import rows_from_strings
        >>> chars = rows_from_strings([" a  b\\tc ", "b\\tc"], torch.device("cpu"))
        >>> ids, lengths = text_units(chars, characters=False)
        >>> lengths.tolist(), ids[0, 1] == ids[1, 0]
        ([2, 1], tensor(True))
    """
    chars = kept_chars(chars, chars != PAD)
    lengths = (chars != PAD).sum(-1)
    space = (character_classes(chars) & SPACE) != 0  # PAD too, so a text's last character ends it
    if characters:
        return _stripped(chars, space, lengths)
    column = torch.arange(chars.shape[-1], device=chars.device)
    separates = space & ((chars == ord(" ")) | shifted(space, -1, True) | shifted(space, 1, True))
    in_word = ~separates & (column < lengths[:, None])
    starts = in_word & ~shifted(in_word, -1, False)
    words = word_rows(chars, in_word, starts)
    return words.ids, words.lengths


def _stripped(chars: Tensor, space: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
    """The code points of each row without whitespace at either end, moved to the front."""
    column = torch.arange(chars.shape[-1], device=chars.device)
    inside = column < lengths[:, None]
    leading = (space & inside).long().cumprod(-1).sum(-1)
    kept = ~space & inside
    last = torch.where(kept, column, -1).amax(-1) if chars.shape[-1] else lengths - 1
    keep = (column >= leading[:, None]) & (column <= last[:, None])
    (units,) = pack_kept(keep, kept_size(keep), (chars.long(), 0))
    return units, keep.sum(-1)

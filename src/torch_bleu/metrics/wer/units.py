"""The units WER and CER count, as jiwer's default transforms make them: words or characters, as ids.

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

import numpy as np
import torch
from torch import Tensor

from ...arrays import kept_size, pack_kept
from ...text.classes import SPACE, character_classes
from ...text.code_points import PAD, kept_chars, shifted
from ...text.word_ids import word_rows

#: jiwer's ``RemoveMultipleSpaces``.
_WHITESPACE_RUNS = re.compile(r"\s\s+")


def jiwer_words(text: str) -> list[str]:
    """The words of ``text`` as jiwer's ``wer_default`` reads it.

    Example:
        >>> jiwer_words(" a  b\\tc \\u00a0d\\u00a0\\u00a0e\\n")
        ['a', 'b\\tc', 'd', 'e']
    """
    return [word for word in _WHITESPACE_RUNS.sub(" ", text).strip().split(" ") if word]


def word_units(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The words of each text (:func:`jiwer_words`) as ids, equal words equal ids, the texts' one after
    another (1-D int64), and how many each text has.

    Example:
        >>> ids, lengths = word_units(["a b a", "b"])
        >>> ids.tolist(), lengths.tolist()
        ([0, 1, 0, 1], [3, 1])
    """
    words = [jiwer_words(text) for text in texts]
    numbers: dict[str, int] = {}
    ids = np.fromiter((numbers.setdefault(word, len(numbers)) for row in words for word in row), dtype=np.int64)
    return ids, np.fromiter(map(len, words), dtype=np.int64, count=len(words))


def text_units(chars: Tensor, characters: bool) -> tuple[Tensor, Tensor]:
    """The units of rows of code points ``(M, W)`` (``PAD`` where a row holds none) on their device, as
    :func:`word_units` makes them of strings: ``(M, L)`` int64 ids and ``(M,)`` int64 lengths.

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

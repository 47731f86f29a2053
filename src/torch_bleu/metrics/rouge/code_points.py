"""rouge-score's default tokenizer on rows of code points (decoded subword ids), on their device.

``str.lower()`` turns into ``a-z0-9`` only ``A-Z`` themselves, the Kelvin sign (U+212A, to ``k``) and
the capital I with dot above (U+0130, to ``i`` and a combining dot, which is no word character): so a
word character is one of ``a-z0-9A-Z``, U+212A or U+0130, equal when their lowercase letters are, and a
U+0130 ends its word. Each word keeps the number of its line (newlines counted along the row), for
``rougeLsum``.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ...arrays import kept_size, pack_kept
from ...text.code_points import shifted
from ...text.word_ids import WordRows, word_rows

#: The characters ``str.lower`` maps into ``a-z`` beside ``A-Z``: the Kelvin sign, and the dotted I (which
#: ends its word: its lowercase is ``i`` and a combining dot).
KELVIN, DOTTED_I = 0x212A, 0x130


def rouge_char_words(chars: Tensor) -> tuple[WordRows[Tensor], Tensor]:
    """The words of rows of code points ``(M, W)`` (``PAD`` where there is none) as rouge-score's default
    tokenizer finds them without stemming, numbered, and ``(M, Lw)`` the line of each word.

    Example:
        >>> from torch_bleu.text.code_points import rows_from_strings
        >>> chars = rows_from_strings(["The cat,\\nthe \\u0130STANBUL", "\\u212a9"], torch.device("cpu"))
        >>> words, lines = rouge_char_words(chars)
        >>> words.lengths.tolist(), lines[0, : words.lengths[0]].tolist()
        ([5, 1], [0, 0, 1, 1, 1])
        >>> bool(words.ids[0, 0] == words.ids[0, 2])
        True
    """
    upper = (chars >= ord("A")) & (chars <= ord("Z"))
    lowered = torch.where(upper, chars + 32, chars)
    lowered = torch.where(chars == KELVIN, ord("k"), torch.where(chars == DOTTED_I, ord("i"), lowered))
    letter = (lowered >= ord("a")) & (lowered <= ord("z"))
    in_word = letter | ((lowered >= ord("0")) & (lowered <= ord("9")))
    continues = shifted(in_word & (chars != DOTTED_I), -1, False)
    starts = in_word & ~continues
    words = word_rows(lowered, in_word, starts)
    lines = (chars == ord("\n")).long().cumsum(-1)
    (word_lines,) = pack_kept(starts, kept_size(starts), (lines, 0))
    return words, word_lines[:, : words.ids.shape[-1]]

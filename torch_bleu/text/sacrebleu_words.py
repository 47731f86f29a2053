"""sacrebleu's tokenizers on rows of code points: which characters form the words.

sacrebleu's ``13a`` tokenizer is a few string replacements and four regular expressions, followed by
``str.split()``. Its effect can be stated per character: whitespace separates words; the ASCII
punctuation of its first expression stands alone; ``.`` and ``,`` stand alone except the last of a
run of them when a digit follows and the run's non-overlapping matching left it alone (``5.5``,
``a..5``: ``a`` ``.`` ``.5``); ``-`` after a digit stands alone. :func:`word_starts` computes that
from the code points with a handful of elementwise operations and one scan, so no string is built.

The tokenizers here: ``13a``, ``none`` (whitespace only) and ``char`` (every character a word).
sacrebleu's others (``intl``, ``zh``, ``ja-mecab``, ...) depend on Unicode categories or
dictionaries; they score strings only.
"""

from __future__ import annotations

import torch
from torch import Tensor

from .classes import ALONE, DASH, DIGIT, PERIOD_OR_COMMA, SPACE, character_classes
from .code_points import PAD, replace_all, shifted
from .tokenizers import TOKENIZERS_ON_CODE_POINTS

#: The replacements 13a makes before its expressions, in order (``\n`` becoming a space is left out:
#: both are whitespace to ``str.split()``, and neither is a digit).
REPLACEMENTS_13A = (
    ("<skipped>", ""),
    ("-\n", ""),
    ("&quot;", '"'),
    ("&amp;", "&"),
    ("&lt;", "<"),
    ("&gt;", ">"),
)


def rstrip(chars: Tensor) -> Tensor:
    """``str.rstrip()`` on every row: trailing whitespace becomes padding.

    Example:
        >>> from .code_points import rows_from_strings, strings_from_rows
        >>> strings_from_rows(rstrip(rows_from_strings([" a b \\u3000\\n", "\\t"], torch.device("cpu"))))
        [' a b', '']
    """
    text = (character_classes(chars) & SPACE) == 0
    column = torch.arange(1, chars.shape[-1] + 1, device=chars.device)
    length = (text * column).amax(-1, keepdim=True) if chars.shape[-1] else column[:0]
    return torch.where(column <= length, chars, PAD).to(chars.dtype)


def preprocess(chars: Tensor, tokenize: str) -> Tensor:
    """What sacrebleu does to a line before its tokenizer's expressions: ``rstrip``, then 13a's replacements."""
    chars = rstrip(chars)
    if tokenize == "13a":
        for pattern, replacement in REPLACEMENTS_13A:
            chars = replace_all(chars, pattern, replacement)
    return chars


def word_starts(chars: Tensor, tokenize: str) -> tuple[Tensor, Tensor]:
    """``(in_word, starts)``: which characters belong to words, and which begin one, under ``tokenize``.

    ``chars`` are rows already through :func:`preprocess`.

    Example:
        >>> from .code_points import rows_from_strings
        >>> in_word, starts = word_starts(rows_from_strings(["a..5 (x)"], torch.device("cpu")), "13a")
        >>> starts.int().tolist()
        [[1, 1, 1, 0, 0, 1, 1, 1]]
    """
    classes = character_classes(chars)
    in_word = (classes & SPACE) == 0
    if tokenize == "none":
        alone = torch.zeros_like(in_word)
    elif tokenize == "char":
        alone = in_word
    elif tokenize == "13a":
        alone = _alone_13a(classes)
    else:
        raise ValueError(f"tokenizer {tokenize!r} is not reproduced on code points; one of {TOKENIZERS_ON_CODE_POINTS}")
    previous_in_word = shifted(in_word, -1, False)
    starts = in_word & (~previous_in_word | alone | shifted(alone, -1, False))
    return in_word, starts


def _alone_13a(classes: Tensor) -> Tensor:
    """The characters 13a's expressions surround with spaces."""
    digit = (classes & DIGIT) != 0
    period_or_comma = (classes & PERIOD_OR_COMMA) != 0
    # ``([^0-9])([\.,])`` matches the periods and commas of a run alternately, from the first when
    # the character before the run is not a digit, else from the second (the first is consumed
    # as the ``[^0-9]`` of the match after it).
    column = torch.arange(classes.shape[-1], device=classes.device)
    before_run = torch.where(period_or_comma, -1, column).cummax(dim=-1).values  # last column outside a run
    index_in_run = column - before_run - 1  # on the run's characters
    digit_before_run = torch.where(before_run >= 0, digit.gather(-1, before_run.clamp(min=0)), torch.zeros_like(digit))
    spaced_by_second = period_or_comma & ((index_in_run % 2 == 0) != digit_before_run)
    # ``([\.,])([^0-9])`` then spaces every other one, except one left unmatched that a digit follows
    next_digit = shifted(digit, 1, False)
    last_of_run = period_or_comma & ~shifted(period_or_comma, 1, False)
    attached = last_of_run & next_digit & ~spaced_by_second
    dash_after_digit = ((classes & DASH) != 0) & shifted(digit, -1, False)
    return ((classes & ALONE) != 0) | (period_or_comma & ~attached) | dash_after_digit

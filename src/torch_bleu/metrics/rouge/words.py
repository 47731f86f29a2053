"""Strings to numbered words, as rouge-score's tokenizer reads them, a whole batch at once.

The default tokenizer (rouge-score's ``tokenize.tokenize``): the text lowercased (``str.lower``, full
Unicode case mapping), every run of characters other than ``a-z0-9`` a separator, the runs between
them the words; with ``use_stemmer`` each word of more than 3 characters stemmed (:mod:`.stemming`).
So ``"Cristóbal"`` gives ``crist bal``, the Kelvin sign ``k``, and text in other scripts no word.
``tokenize="unicode"`` and ``"char"`` take the words of :mod:`.unicode_tokens`.

Words are numbered (equal words, equal numbers; the numbers are remembered from batch to batch, so
that each word is looked up, and stemmed, once) and each keeps the number of its line in its text,
so that ``rougeLsum`` can split summaries at newlines.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from .stemming import require_stemmer, stem

#: A word of the default tokenizer, or a newline (which ends a line of a summary).
_WORD_OR_NEWLINE = re.compile(r"[a-z0-9]+|\n")
#: What joins the texts of a batch to be read in one pass (where no text holds it), and what reads them.
_TEXT_END = "\0"
_WORD_NEWLINE_OR_END = re.compile(r"[a-z0-9]+|\n|\0")
#: The numbers of a newline, of a word the stemmer drops, and of the end of a text.
_NEWLINE = -1
_DROPPED = -2
_END = -3


class TextWords(NamedTuple):
    """The words of several texts, one text after the other.

    Attributes:
        ids: ``(N,)`` int64 word numbers, ``0 .. distinct - 1``.
        lines: ``(N,)`` int64, the line each word stands on, counted across the texts (words of one
            line of one text share it, words of different lines do not).
        lengths: ``(T,)`` int64, how many words each text has.
        distinct: how many different words there are.
    """

    ids: np.ndarray
    lines: np.ndarray
    lengths: np.ndarray
    distinct: int


class _Numbers(dict[str, int]):
    """Word numbers, given on first sight (stemmed words: the stem's number)."""

    def __init__(self, stemmed: bool) -> None:
        super().__init__({"\n": _NEWLINE, _TEXT_END: _END})
        self.stemmed = stemmed
        self.stems: dict[str, int] = {}

    def __missing__(self, word: str) -> int:
        if self.stemmed:
            root = stem(word)
            number = _DROPPED if root is None else self.stems.setdefault(root, len(self.stems))
        else:
            number = len(self) - 2
        self[word] = number
        return number

    @property
    def distinct(self) -> int:
        return len(self.stems) if self.stemmed else len(self) - 2


#: Word numbers, kept from batch to batch (without and with stemming), up to :data:`MEMORY` words.
_NUMBERS = {stemmed: _Numbers(stemmed) for stemmed in (False, True)}
MEMORY = 2**20


def text_words(texts: Sequence[str], tokenize: str = "default", use_stemmer: bool = False) -> TextWords:
    """The numbered words of ``texts``, as rouge-score's tokenizer (or ``tokenize``'s) splits them.

    Example:
        >>> words = text_words(["The cat, the HAT.", "a\\ncat"])
        >>> ids = words.ids.tolist()
        >>> ids[0] == ids[2], ids[1] == ids[5], len(set(ids)), words.lines.tolist(), words.lengths.tolist()
        (True, True, 4, [0, 0, 0, 0, 0, 1], [4, 2])
        >>> ids = text_words(["Running dogs\\n\\nran run"], use_stemmer=True).ids.tolist()
        >>> ids[0] == ids[3], len(set(ids))
        (True, 3)
    """
    if use_stemmer:
        require_stemmer()
    numbers = _NUMBERS[use_stemmer]
    if len(numbers) > MEMORY:  # between batches: a batch's words keep their numbers
        numbers = _NUMBERS[use_stemmer] = _Numbers(use_stemmer)
    joined = _TEXT_END.join(texts)
    if tokenize == "default" and joined.count(_TEXT_END) == len(texts) - 1:  # one pass over the whole batch
        flat = np.fromiter(map(numbers.__getitem__, _WORD_NEWLINE_OR_END.findall(joined.lower())), dtype=np.int64)
        text_of = np.cumsum(flat == _END)
    else:
        pieces = (
            [_WORD_OR_NEWLINE.findall(text.lower()) for text in texts]
            if tokenize == "default"
            else _other(texts, tokenize)
        )
        counts = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
        flat = np.fromiter(map(numbers.__getitem__, itertools.chain.from_iterable(pieces)), dtype=np.int64)
        text_of = np.repeat(np.arange(len(pieces)), counts)
    lines = np.cumsum(flat == _NEWLINE)  # numbered across the texts: only which words share a line matters
    word = flat >= 0
    lengths = np.bincount(text_of[word], minlength=len(texts)).astype(np.int64)
    return TextWords(flat[word], lines[word], lengths, numbers.distinct)


def _other(texts: Sequence[str], tokenize: str) -> list[list[str]]:
    """The words of each text by a tokenizer of any script, the lines of all texts read in one batch, each
    line's words followed by a newline but the last's (no word or cluster spans a newline)."""
    from .unicode_tokens import char_token_lists, unicode_token_lists  # imports regex only where asked for

    split: Callable[[Sequence[str]], list[list[str]]] = (
        unicode_token_lists if tokenize == "unicode" else char_token_lists
    )
    lines_of = [text.split("\n") for text in texts]
    line_words = iter(split(list(itertools.chain.from_iterable(lines_of))))
    pieces = []
    for lines in lines_of:
        words = next(line_words)
        for _ in lines[1:]:
            words.append("\n")
            words.extend(next(line_words))
        pieces.append(words)
    return pieces

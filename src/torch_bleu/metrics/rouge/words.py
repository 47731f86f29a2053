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
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import NamedTuple

import numpy as np

from .stemming import require_stemmer, stem

#: Every byte that is no character of a word a space, but newlines and the ends of texts: what rouge-score's
#: tokenizer reads of lowercased UTF-8 (a character outside ``a-z0-9`` separates words, and so do the bytes
#: of one outside ASCII).
_SEPARATORS = bytes(
    byte if chr(byte) in "abcdefghijklmnopqrstuvwxyz0123456789\n\0" else ord(" ") for byte in range(256)
)
#: The tokens of a newline (which ends a line of a summary) and of the end of a text, as bytes and as text.
_NEWLINE_BYTES, _END_BYTES = b"\x01", b"\x02"
_NEWLINE_TEXT, _END_TEXT = "\n", "\0"
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


class _Numbers:
    """Word numbers, given on first sight (stemmed words: the stem's number), of tokens (bytes of the
    default tokenizer, or text): each token gets a token number in C (a ``defaultdict`` counting), and
    ``ids`` maps token numbers to word numbers, extended for each batch's new tokens only."""

    def __init__(self, stemmed: bool, newline: Hashable, end: Hashable) -> None:
        self.stemmed = stemmed
        self.tokens: defaultdict[Hashable, int] = defaultdict(itertools.count(2).__next__)
        self.tokens[newline], self.tokens[end] = 0, 1
        self.ids = np.array([_NEWLINE, _END], dtype=np.int64)
        self.stems: dict[str, int] = {}

    def __call__(self, tokens: list[Hashable]) -> np.ndarray:
        """The numbers of ``tokens``: word numbers, or the negative numbers of newlines, ends and dropped words."""
        numbers = np.fromiter(map(self.tokens.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        new = len(self.tokens) - self.ids.shape[0]
        if new:
            words = list(itertools.islice(reversed(self.tokens), new))[::-1]
            self.ids = np.concatenate([self.ids, self._word_numbers(words)])
        ids: np.ndarray = self.ids[numbers]
        return ids

    def _word_numbers(self, words: list[Hashable]) -> np.ndarray:
        if not self.stemmed:
            first = self.ids.shape[0] - 2
            return np.arange(first, first + len(words), dtype=np.int64)
        stems = self.stems
        roots = (stem(word.decode() if isinstance(word, bytes) else str(word)) for word in words)
        return np.fromiter(
            (_DROPPED if root is None else stems.setdefault(root, len(stems)) for root in roots),
            dtype=np.int64,
            count=len(words),
        )

    @property
    def distinct(self) -> int:
        return len(self.stems) if self.stemmed else self.ids.shape[0] - 2


#: Word numbers, kept from batch to batch (per tokenizer, without and with stemming), up to :data:`MEMORY`
#: tokens each.
_NUMBERS: dict[tuple[str, bool], _Numbers] = {}
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
    key = (tokenize, use_stemmer)
    numbers = _NUMBERS.get(key)
    if numbers is None or len(numbers.tokens) > MEMORY:  # between batches: a batch's words keep their numbers
        marks = (_NEWLINE_BYTES, _END_BYTES) if tokenize == "default" else (_NEWLINE_TEXT, _END_TEXT)
        numbers = _NUMBERS[key] = _Numbers(use_stemmer, *marks)
    tokens: list[Hashable] = []
    if tokenize == "default":
        joined = _END_TEXT.join(texts)
        if joined.count(_END_TEXT) == len(texts) - 1:  # one pass over the whole batch
            tokens.extend(_default_tokens(joined))
        else:
            for text in texts:
                tokens.extend(_default_tokens(text.replace(_END_TEXT, " ")))
                tokens.append(_END_BYTES)
    else:
        for words in _other(texts, tokenize):
            tokens.extend(words)
            tokens.append(_END_TEXT)
    flat = numbers(tokens)
    text_of = np.cumsum(flat == _END)
    lines = np.cumsum(flat == _NEWLINE)  # numbered across the texts: only which words share a line matters
    word = flat >= 0
    lengths = np.bincount(text_of[word], minlength=len(texts)).astype(np.int64)
    return TextWords(flat[word], lines[word], lengths, numbers.distinct)


def _default_tokens(text: str) -> list[bytes]:
    """rouge-score's words of ``text`` (lowercased, runs of ``a-z0-9``) as bytes, newlines and the ends of texts
    (``"\\0"``) as tokens of their own. A lone surrogate (``"\\ud800"``, which no UTF-8 encodes) separates
    words as every other character outside ``a-z0-9`` does: its bytes (``surrogatepass``) are all above ASCII."""
    kept = text.lower().encode("utf-8", "surrogatepass").translate(_SEPARATORS)
    return kept.replace(b"\n", b" \x01 ").replace(b"\0", b" \x02 ").split()


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

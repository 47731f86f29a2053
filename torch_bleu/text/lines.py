"""Lines of text to the words sacrebleu's tokenizers find in them, numbered, with a few array operations
over the whole batch: the lines become one stream of code points (one encoding of all of them), the
tokenizers on code points (:mod:`.sacrebleu_words`) say where words begin, and the text with a space
before every word is split and numbered (:class:`~.vocabulary.Vocabulary`) by Python's own string
functions, which run in C. Runs with NumPy on the host and imports no PyTorch: the command line and
the metric share it. Tokenizers that need a dictionary (``ja-mecab``, ``ko-mecab``) run sacrebleu's
own on each line.

Example:
    >>> stream = tokenized_lines(["The cat sat.", "the cat"], "13a", lowercase=True)
    >>> stream.ids.tolist(), stream.lengths.tolist()
    ([0, 1, 2, 3, 0, 1], [4, 2])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .code_points import PAD, utf32
from .sacrebleu_words import preprocess, word_starts
from .tokenizers import TOKENIZERS_ON_CODE_POINTS, load_tokenizer
from .vocabulary import TokenStream, Vocabulary

SPACE_CODE, NEWLINE_CODE = ord(" "), ord("\n")


def line_stream(lines: Sequence[str], lowercase: bool = False) -> np.ndarray:
    """The code points of ``lines`` as one int32 stream: each line after a :data:`~.code_points.PAD`,
    lowercased first with ``lowercase`` (Python's ``str.lower``, as sacrebleu lowercases).

    Example:
        >>> line_stream(["Ab", "", "c"], lowercase=True).tolist()
        [-1, 97, 98, -1, -1, 99]
    """
    if lowercase:
        lines = list(map(str.lower, lines))
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    stream = np.full(int(lengths.sum()) + len(lines), PAD, dtype=np.int32)
    line_of_char = np.repeat(np.arange(1, len(lines) + 1), lengths)
    stream[np.arange(stream.shape[0] - len(lines)) + line_of_char] = utf32(lines)
    return stream


def tokenized_lines(lines: Sequence[str], tokenize: str, lowercase: bool = False) -> TokenStream:
    """The words sacrebleu's tokenizer ``tokenize`` finds in each line (lowercased first with
    ``lowercase``), as ids: equal words get equal ids, and different words different ids.

    Example:
        >>> tokenized_lines(["a, b", "b"], "intl").ids.tolist()
        [0, 1, 2, 2]
    """
    if tokenize in TOKENIZERS_ON_CODE_POINTS and tokenize != "none" and lines:
        words: Iterable[list[str]] = map(str.split, spaced_text(lines, tokenize, lowercase).split("\n"))
    else:  # the "none" tokenizer's words are str.split()'s
        words = map(load_tokenizer(tokenize, lowercase), lines)
    return Vocabulary().encode(words)


def spaced_text(lines: Sequence[str], tokenize: str, lowercase: bool = False) -> str:
    """The text of ``lines`` as sacrebleu's tokenizer ``tokenize`` leaves it, up to whitespace: its words
    apart, each whitespace character a space, the lines joined by line breaks.

    Example:
        >>> spaced_text(["Hello, world!", "3.5-4"], "13a").splitlines()
        [' Hello ,  world !', ' 3.5 - 4']
    """
    chars = preprocess(line_stream(lines, lowercase), tokenize)
    in_word, starts = word_starts(chars, tokenize)
    text = np.where(in_word, chars, SPACE_CODE)
    text[chars == PAD] = NEWLINE_CODE
    text = np.insert(text, np.flatnonzero(starts), SPACE_CODE)[1:]  # every word after a space; no first line break
    return text.tobytes().decode("utf-32-le", "surrogatepass")

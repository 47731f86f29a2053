"""Lines of text to the words sacrebleu's tokenizers find in them, numbered, with a few array operations
over the whole batch: the lines become one stream of code points (one encoding of all of them), the
tokenizers on code points (:mod:`.sacrebleu_words`) say where words begin, and the words, end to end,
are numbered by a hash table whose every hit is checked (:mod:`.word_table`). Runs with NumPy on the
host and imports no PyTorch: the command line and the metric share it. Tokenizers that need a
dictionary (``ja-mecab``, ``ko-mecab``) run sacrebleu's own on each line.

Example:
    >>> stream = tokenized_lines(["The cat sat.", "the cat"], "13a", lowercase=True)
    >>> stream.ids.tolist(), stream.lengths.tolist()
    ([0, 1, 2, 3, 0, 1], [4, 2])
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from .code_points import PAD, utf32
from .sacrebleu_words import replacements, word_starts
from .tokenizers import TOKENIZERS_ON_CODE_POINTS, load_tokenizer
from .vocabulary import TokenStream, Vocabulary
from .word_table import word_ids


def line_stream(lines: Sequence[str]) -> np.ndarray:
    """The code points of ``lines`` as one int32 stream, each line after a :data:`~.code_points.PAD`.

    Example:
        >>> line_stream(["ab", "", "c"]).tolist()
        [-1, 97, 98, -1, -1, 99]
    """
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    stream = utf32(["\0".join(["", *lines])]).copy()  # a NUL before each line, then PAD in its place
    stream[(lengths + 1).cumsum() - lengths - 1] = PAD
    return stream


def tokenized_lines(lines: Sequence[str], tokenize: str, lowercase: bool = False) -> TokenStream:
    """The words sacrebleu's tokenizer ``tokenize`` finds in each line (lowercased first with
    ``lowercase``), as ids: equal words get equal ids, and different words different ids.

    Each line is read as sacrebleu reads it, with Python's own string functions: lowercased with
    ``lowercase`` (``str.lower``), stripped (``str.rstrip``; ``str.strip`` for ``zh``).

    Example:
        >>> tokenized_lines(["a, b", "b"], "intl").ids.tolist()
        [0, 1, 2, 2]
    """
    if tokenize not in TOKENIZERS_ON_CODE_POINTS:
        return Vocabulary().encode(map(load_tokenizer(tokenize, lowercase), lines))
    if lowercase:
        lines = list(map(str.lower, lines))
    lines = list(map(str.strip if tokenize == "zh" else str.rstrip, lines))
    chars = replacements(line_stream(lines), tokenize)
    in_word, starts = word_starts(chars, tokenize)
    lengths = np.add.reduceat(starts, np.flatnonzero(chars == PAD)) if lines else np.zeros(0, dtype=np.int64)
    word_chars = np.flatnonzero(in_word)
    ids, distinct = word_ids(chars.take(word_chars), np.flatnonzero(starts.take(word_chars)))
    return TokenStream(ids, lengths.astype(np.int64), distinct)


#: Sentences :func:`tokenized_streams` tokenizes together: arrays of some tens of thousands of characters
#: stay in the CPU's caches (a whole run of four WMT17 systems at once took 2.3 times as long per line).
SENTENCES_PER_CHUNK = 128


def tokenized_streams(streams: Sequence[Sequence[str]], tokenize: str, lowercase: bool = False) -> list[TokenStream]:
    """The words of several streams of lines of the same length (systems and references: line ``i`` of
    each is sentence ``i``), as :func:`tokenized_lines` gives them, with ids that agree across the
    streams within each sentence (all that counting needs), tokenized a chunk of sentences at a time.

    Example:
        >>> system, reference = tokenized_streams([["a b", "c"], ["b a", "c c"]], "13a")
        >>> system.ids.tolist(), reference.ids.tolist(), reference.lengths.tolist()
        ([0, 1, 2], [1, 0, 2, 2], [2, 2])
    """
    sentences = len(streams[0]) if streams else 0
    ids: list[list[np.ndarray]] = [[np.zeros(0, dtype=np.int64)] for _ in streams]
    lengths: list[list[np.ndarray]] = [[np.zeros(0, dtype=np.int64)] for _ in streams]
    for start in range(0, sentences, SENTENCES_PER_CHUNK):
        chunk = [stream[start : start + SENTENCES_PER_CHUNK] for stream in streams]
        words = tokenized_lines(list(chain.from_iterable(chunk)), tokenize, lowercase)
        line_lengths = words.lengths.reshape(len(streams), -1)
        stream_ends = line_lengths.sum(axis=1).cumsum()
        for stream, (stream_ids, stream_lengths) in enumerate(zip(np.split(words.ids, stream_ends[:-1]), line_lengths)):
            ids[stream].append(stream_ids)
            lengths[stream].append(stream_lengths)
    return [TokenStream(np.concatenate(parts), np.concatenate(counts)) for parts, counts in zip(ids, lengths)]

"""chrF++'s words in a stream of text: where they start, and their exact ids.

sacrebleu splits a line with ``str.split()``; a word of several characters then gives up a
punctuation character (ASCII, ``string.punctuation``) at its end, else one at its start, as a word
of its own: ``(hi)`` gives ``(hi`` and ``)``. :func:`word_starts` states that per character; the
words' ids come from :func:`torch_bleu.text.word_ids.word_ids`.

Streams are those of :mod:`torch_bleu.engine.flat_pairs` (rows end to end); everything runs on
PyTorch tensors (any device, no host sync) and NumPy arrays alike.
"""

from __future__ import annotations

from ...arrays import ArrayT, array_namespace, full_like_shape, running_count, scatter_into
from ...engine.flat_pairs import PairStream
from ...text.classes import PUNCTUATION, SPACE
from ...text.word_ids import word_ids


def word_starts(classes: ArrayT, rows: ArrayT) -> tuple[ArrayT, ArrayT]:
    """``(in_word, starts)`` of chrF++'s words in a stream of characters (``classes``: their class bits).

    Example:
        >>> import numpy as np
        >>> from torch_bleu.text.classes import character_classes
        >>> chars = np.array([ord(char) for char in "(hi) a, ok"])
        >>> word_starts(character_classes(chars), np.zeros(10, dtype=np.int64))[1].astype(int).tolist()
        [1, 0, 0, 1, 0, 1, 1, 0, 1, 0]
    """
    xp = array_namespace(classes)
    slots = classes.shape[0]
    in_word = (classes & SPACE) == 0
    punctuation = (classes & PUNCTUATION) != 0
    joined = full_like_shape(in_word, (slots + 1,), False)  # joined[i]: slots i - 1 and i form one run
    joined[1:slots] = in_word[1:] & in_word[:-1] & (rows[1:] == rows[:-1])
    run_start = in_word & ~joined[:slots]
    run_end = in_word & ~joined[1:]
    # whether each run (numbered from 1) ends in punctuation, read at its first slot
    run = running_count(run_start)
    ends_in_punctuation = full_like_shape(punctuation, (slots + 1,), False)
    scatter_into(ends_in_punctuation, xp.where(run_end, run, 0), run_end & punctuation)
    before_last = run_end & punctuation & ~run_start
    split_first = run_start & ~run_end & punctuation & ~ends_in_punctuation[run]
    after_first = full_like_shape(in_word, (slots,), False)
    after_first[1:] = split_first[:-1]
    return in_word, run_start | before_last | after_first


def word_stream(chars: PairStream[ArrayT], starts: ArrayT) -> PairStream[ArrayT]:
    """The words of a stream of word characters (each slot a character of a word; ``starts``: the first
    of each word) as a stream of exact word ids, one slot per word, in the same rows.

    The words lie end to end; unused slots (row ``2 P``), if any, come after them.

    Example:
        >>> import numpy as np
        >>> ranks = np.array([1, 2, 1, 2, 1])  # "ab ab a", the spaces left out
        >>> starts = np.array([True, False, True, False, True])
        >>> word_stream(PairStream(ranks, np.zeros(5, dtype=np.int64), 1, 2), starts).ranks.tolist()
        [1, 1, 2]
    """
    ranks, rows, pairs, distinct = chars
    in_row = rows < 2 * pairs
    ids, count, (word_rows,) = word_ids(ranks, starts, in_row, distinct, (rows, 2 * pairs))
    return PairStream(ids, word_rows, pairs, count)

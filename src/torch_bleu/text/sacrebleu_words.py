"""sacrebleu's tokenizers on code points: which characters form the words.

sacrebleu's tokenizers are string replacements and regular expressions that put spaces around some
characters, followed by ``str.split()``. Their effect can be stated per character, from the character
and its neighbours, so no string is built: :func:`word_starts` says which characters belong to words
and which begin one, with a handful of elementwise operations and a few scans along the last axis.
Rows of code points (:mod:`.code_points`) and streams of lines separated by :data:`~.code_points.PAD`
are tokenized alike, as PyTorch tensors (any device) or NumPy arrays.

* ``13a``: whitespace separates words; the ASCII punctuation of its first expression stands alone;
  ``.`` and ``,`` stand alone except the last of a run of them when a digit follows and the run's
  non-overlapping matching left it alone (``5.5``, ``a..5``: ``a`` ``.`` ``.5``); ``-`` after a digit
  stands alone. sacrebleu pads the line with a space first, so a line's edges act as spaces.
* ``zh``: every character of sacrebleu's Chinese ranges stands alone, then 13a's expressions without
  that padding: at a line's edges (past its stripped whitespace) the period rules find no neighbour.
* ``intl``: punctuation (``\\p{P}``) stands apart from a non-number on either side, matched left to
  right without overlapping, and symbols (``\\p{S}``) stand alone.
* ``none``: whitespace only; ``char``: every character is a word.
"""

from __future__ import annotations

import numpy as np

from ..arrays import (
    ArrayT,
    array_namespace,
    columns_like,
    full_like_shape,
    is_tensor,
    last_marked,
    next_marked,
    take_along_last,
)
from .classes import ALONE, DASH, DIGIT, PERIOD_OR_COMMA, SPACE, character_classes
from .code_points import PAD, first_of_chains, kept_chars, replace_all, shifted
from .tokenizers import TOKENIZERS_ON_CODE_POINTS
from .unicode_classes import CHINESE, NUMBER, PUNCTUATION, SYMBOL, unicode_classes

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


def strip(chars: ArrayT, leading: bool = False) -> ArrayT:
    """``str.rstrip()`` on every string (``str.strip()`` with ``leading``): the whitespace between its
    text and its edge is removed (the strings of a stream stay apart: their :data:`~.code_points.PAD`
    separators stay).

    Example:
        >>> import numpy as np
        >>> from .code_points import strings_from_rows
        >>> line = np.array([-1, *map(ord, " a b \\u3000\\n"), -1, *map(ord, "\\t")], dtype=np.int32)
        >>> strings_from_rows(strip(line)[None]), strings_from_rows(strip(line, leading=True)[None])
        ([' a b'], ['a b'])
    """
    text = (character_classes(chars) & SPACE) == 0
    stop = text | (chars == PAD)  # where a run of whitespace ends: text, or an edge
    width = chars.shape[-1]
    column = columns_like(width, chars)
    next_stop = next_marked(stop, column, width)
    space = ~text & (chars != PAD)
    outside = space & ~_at(text, next_stop, False)
    if leading:
        previous_stop = last_marked(stop, column, -1)
        outside |= space & ~_at(text, previous_stop, False)
    return kept_chars(chars, ~outside)


def preprocess(chars: ArrayT, tokenize: str) -> ArrayT:
    """What sacrebleu does to a line before its tokenizer's expressions: ``rstrip`` (``strip`` for ``zh``),
    then :func:`replacements`."""
    return replacements(strip(chars, leading=tokenize == "zh"), tokenize)


def replacements(chars: ArrayT, tokenize: str) -> ArrayT:
    """The string replacements of tokenizer ``tokenize`` (13a's; the others have none), in order."""
    if tokenize == "13a":
        for pattern, replacement in REPLACEMENTS_13A:
            chars = replace_all(chars, pattern, replacement)
    return chars


def word_starts(chars: ArrayT, tokenize: str) -> tuple[ArrayT, ArrayT]:
    """``(in_word, starts)``: which characters belong to words, and which begin one, under ``tokenize``.

    ``chars`` are rows or streams already through :func:`preprocess`.

    Example:
        >>> from .code_points import utf32
        >>> in_word, starts = word_starts(utf32(["a..5 (x)"]), "13a")
        >>> starts.astype(int).tolist()
        [1, 1, 1, 0, 0, 1, 1, 1]
    """
    classes = character_classes(chars)
    in_word = (classes & SPACE) == 0
    if tokenize == "none":
        split = in_word & False
    elif tokenize == "char":
        split = in_word
    elif tokenize in ("13a", "zh"):
        alone = _alone_13a(chars, classes, edges_hold=tokenize == "zh")
        if tokenize == "zh":
            alone |= (unicode_classes(chars) & CHINESE) != 0
        split = alone | shifted(alone, -1, False)
    elif tokenize == "intl":
        split = _splits_intl(chars)
    else:
        raise ValueError(f"tokenizer {tokenize!r} is not reproduced on code points; one of {TOKENIZERS_ON_CODE_POINTS}")
    starts = in_word & (~shifted(in_word, -1, False) | split)
    return in_word, starts


def _alone_13a(chars: ArrayT, classes: ArrayT, edges_hold: bool) -> ArrayT:
    """The characters 13a's expressions surround with spaces (``classes``: their :func:`character_classes`).

    With ``edges_hold``, an edge is no character, which the expressions' ``[^0-9]`` cannot match
    (``zh``); without it, an edge is the space 13a pads the line with.
    """
    if not is_tensor(chars) and chars.ndim == 1:
        return _alone_13a_in_stream(chars, classes, edges_hold)
    digit = (classes & DIGIT) != 0
    period_or_comma = (classes & PERIOD_OR_COMMA) != 0
    stops_match = (digit | (chars == PAD)) if edges_hold else digit  # what ``[^0-9]`` cannot match
    # ``([^0-9])([\.,])`` matches the periods and commas of a run alternately, from the first when
    # the character before the run is not a digit, else from the second (the first is consumed
    # as the ``[^0-9]`` of the match after it). Each run's first column and whether the character
    # before it stops the match are carried along the run in one key, ``2 column + stopped``.
    run_start = period_or_comma & ~shifted(period_or_comma, -1, False)
    column = columns_like(chars.shape[-1], chars)
    start_key = last_marked(run_start, 2 * column + shifted(stops_match, -1, edges_hold), -1)
    # matched as the second group: the parity of the place in the run differs from ``stopped``
    spaced_by_second = period_or_comma & ((column ^ start_key ^ (start_key >> 1)) & 1 == 0)
    # ``([\.,])([^0-9])`` then spaces every other one, except one left unmatched that a digit follows
    next_stops_match = shifted(stops_match, 1, edges_hold)
    last_of_run = period_or_comma & ~shifted(period_or_comma, 1, False)
    attached = last_of_run & next_stops_match & ~spaced_by_second
    dash_after_digit = ((classes & DASH) != 0) & shifted(digit, -1, False)
    alone: ArrayT = ((classes & ALONE) != 0) | (period_or_comma & ~attached) | dash_after_digit
    return alone


def _alone_13a_in_stream(chars: np.ndarray, classes: np.ndarray, edges_hold: bool) -> np.ndarray:
    """:func:`_alone_13a` on a 1-D host stream, where periods, commas and dashes are few: their rules are
    read at their own positions only, the same rules as the rows' version."""
    alone: np.ndarray = (classes & ALONE) != 0
    size = chars.shape[0]
    digit = (classes & DIGIT) != 0
    stops_match = (digit | (chars == PAD)) if edges_hold else digit  # what ``[^0-9]`` cannot match

    def stops_at(positions: np.ndarray) -> np.ndarray:
        """``stops_match`` at ``positions``, ``edges_hold`` past either end of the stream."""
        inside = (positions >= 0) & (positions < size)
        return np.where(inside, stops_match.take(positions, mode="clip"), edges_hold)

    marks = np.flatnonzero((classes & PERIOD_OR_COMMA) != 0)
    if marks.shape[0]:
        follows_mark = np.zeros(marks.shape[0], dtype=bool)  # the character before is one too
        follows_mark[1:] = marks[1:] == marks[:-1] + 1
        run_start = np.flatnonzero(~follows_mark)
        # per mark, the run's first column and whether the character before the run stops the match
        first = np.repeat(run_start, np.diff(run_start, append=marks.shape[0]))
        stopped = stops_at(marks.take(first) - 1)
        # matched as the second group where the parity of the place in the run differs from ``stopped``
        spaced_by_second = ((marks ^ marks.take(first) ^ stopped) & 1) == 0
        last_of_run = np.ones(marks.shape[0], dtype=bool)
        last_of_run[:-1] = ~follows_mark[1:]
        # the one left unmatched: the last of its run, before a character ``[^0-9]`` cannot match
        attached = last_of_run & stops_at(marks + 1) & ~spaced_by_second
        alone[marks] |= ~attached
    dashes = np.flatnonzero((classes & DASH) != 0)  # a dash after a digit
    alone[dashes] |= digit.take(dashes - 1, mode="clip") & (dashes > 0)
    return alone


def _splits_intl(chars: ArrayT) -> ArrayT:
    """Where the ``intl`` tokenizer's expressions put a space before a character.

    Its expressions run one after the other on the whole line: ``(\\P{N})(\\p{P})`` spaces a
    punctuation mark from a non-number before it and puts a space after it; ``(\\p{P})(\\P{N})``, on
    that text, spaces a punctuation mark from what follows it (an inserted space included) and puts a
    space before it; ``(\\p{S})`` spaces every symbol. A match consumes its second character, which
    then cannot begin the next match: chains of matches alternate.
    """
    classes = unicode_classes(chars)
    punctuation = (classes & PUNCTUATION) != 0
    symbol = (classes & SYMBOL) != 0
    not_number = ((classes & NUMBER) == 0) & (chars != PAD)  # an edge is no character at all
    first = first_of_chains(not_number & shifted(punctuation, 1, False), 1)  # matched at (i, i + 1)
    space_after = first | shifted(first, -1, False)
    second_matches = punctuation & (space_after | shifted(not_number, 1, False))
    second = _alternating(second_matches, second_matches & ~space_after)
    splits: ArrayT = (
        shifted(space_after, -1, False) | second | shifted(second, -1, False) | symbol | shifted(symbol, -1, False)
    )
    return splits


def _alternating(matches: ArrayT, consumes_next: ArrayT) -> ArrayT:
    """The matches a left-to-right scan takes, where a match that ``consumes_next`` character keeps that
    character (if it matches too) from being taken: along each chain of such matches, every other one.

    Example:
        >>> import numpy as np
        >>> matches = np.array([True, True, True, True, False])
        >>> _alternating(matches, np.array([True, False, True, True, False])).tolist()
        [True, False, True, False, False]
    """
    column = columns_like(matches.shape[-1], matches)
    chain_start = matches & ~shifted(consumes_next, -1, False)
    since_start = column - last_marked(chain_start, column, -1)
    taken: ArrayT = matches & (since_start % 2 == 0)
    return taken


def _at(values: ArrayT, column: ArrayT, fill: bool) -> ArrayT:
    """``values`` read at columns ``column`` of the last axis, from ``-1`` to its width: ``fill`` outside it.

    Example:
        >>> import numpy as np
        >>> _at(np.array([True, False]), np.array([-1, 0, 1, 2]), fill=False).tolist()
        [False, True, False, False]
    """
    xp = array_namespace(values)
    edge = full_like_shape(values, (*values.shape[:-1], 1), fill)
    padded: ArrayT = xp.concatenate([edge, values, edge], axis=-1)
    return take_along_last(padded, column + 1)

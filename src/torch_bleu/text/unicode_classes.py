"""The Unicode classes of code points that sacrebleu's ``intl`` and ``zh`` tokenizers ask about, as bits of
one lookup table over all code points: numbers, punctuation and symbols as the ``regex`` package defines
``\\p{N}``, ``\\p{P}`` and ``\\p{S}`` (the ``intl`` tokenizer's expressions; ``regex`` carries its own
Unicode version, newer than Python's ``unicodedata``), and the characters the ``zh`` tokenizer takes for
Chinese.

The table (1.1 MB) is built on first use from the ``regex`` package and sacrebleu's own list of ranges,
both of which sacrebleu needs anyway. Works on PyTorch tensors (any device) and NumPy arrays alike.
:func:`property_bits` builds such tables of any classes the ``regex`` package can match (ROUGE's Unicode
tokens build theirs with it).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np

from ..arrays import ArrayT, device_constant, is_tensor

NUMBER, PUNCTUATION, SYMBOL, CHINESE = 1, 2, 4, 8
#: One more than the last code point, U+10FFFF.
CODE_POINTS = 0x110000
_PROPERTIES = ((NUMBER, r"\p{N}+"), (PUNCTUATION, r"\p{P}+"), (SYMBOL, r"\p{S}+"))


def property_bits(classes: Iterable[tuple[int, str]]) -> np.ndarray:
    """``(CODE_POINTS,)`` uint8: for every code point, the bits of the classes it belongs to, each class a
    bit and a pattern of the ``regex`` package that matches runs of its characters (such as ``\\p{N}+``).

    Example:
        >>> bits = property_bits([(1, r"\\p{N}+"), (2, r"[\\p{N}a]+")])
        >>> bits[[ord("5"), ord("a"), ord("z")]].tolist()
        [3, 2, 0]
    """
    import regex  # type: ignore[import-untyped]  # sacrebleu's dependency, without type stubs

    table = np.zeros(CODE_POINTS, dtype=np.uint8)
    every_character = "".join(map(chr, range(CODE_POINTS)))
    for bit, pattern in classes:
        for match in regex.finditer(pattern, every_character):
            table[match.start() : match.end()] |= bit
    return table


@functools.cache
def _class_table() -> np.ndarray:
    """Class bits of code points ``-1`` (no character) to U+10FFFF, at index ``code + 1``."""
    from sacrebleu.tokenizers.tokenizer_zh import _UCODE_RANGES

    table = np.zeros(CODE_POINTS + 1, dtype=np.uint8)
    table[1:] = property_bits(_PROPERTIES)
    for start, end in _UCODE_RANGES:
        first, last = _single_characters_between(start, end)
        table[first + 1 : last + 2] |= CHINESE
    return table


def _single_characters_between(start: str, end: str) -> tuple[int, int]:
    """The first and last code point ``c`` with ``start <= chr(c) <= end``, as Python compares strings.

    sacrebleu's range bounds are strings, and two of them are two characters long (``"\\u20000"`` is
    U+2000 followed by ``0``): a single character ``c`` is at least such a bound only when it is greater
    than the bound's first character, and at most it when it is not greater than its first character.

    Example:
        >>> [hex(code) for code in _single_characters_between("\\u20000", "\\u2a6d6")]
        ['0x2001', '0x2a6d']
    """
    first = ord(start[0]) + (len(start) > 1)
    return first, ord(end[0])


def unicode_classes(chars: ArrayT) -> ArrayT:
    """The class bits (:data:`NUMBER`, :data:`PUNCTUATION`, :data:`SYMBOL`, :data:`CHINESE`) of every code
    point of ``chars`` (``-1``, no character: none).

    Example:
        >>> classes = unicode_classes(np.array([ord("5"), ord("\\u00bf"), ord("$"), ord("\\u4e2d"), -1]))
        >>> classes.tolist() == [NUMBER, PUNCTUATION, SYMBOL, CHINESE, 0]
        True
    """
    if is_tensor(chars):
        import torch

        table = device_constant("unicode classes", chars.device, _class_table)
        return table[chars.to(torch.int64) + 1]
    return _class_table().take(chars + 1)

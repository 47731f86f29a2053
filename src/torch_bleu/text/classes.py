"""Character classes of code points, as bits of one lookup table: what sacrebleu's tokenizers and chrF's
words ask of a character (whitespace, punctuation, digits).

Works on PyTorch tensors (any device) and NumPy arrays alike, and imports no PyTorch.
"""

from __future__ import annotations

import string

import numpy as np

from ..arrays import ArrayT, device_constant, is_tensor

# PUNCTUATION: ASCII punctuation (``string.punctuation``), for chrF's words
SPACE, ALONE, DIGIT, PERIOD_OR_COMMA, DASH, PUNCTUATION = 1, 2, 4, 8, 16, 32
#: Code points above this are never whitespace (``str.isspace``; the tests check every one) nor ASCII.
LAST_CLASSIFIED = 0x3000


def _class_table() -> np.ndarray:
    """Class bits of code points ``-1`` (padding, taken as whitespace) to :data:`LAST_CLASSIFIED`, then 0,
    at index ``code + 1``."""
    codes = range(LAST_CLASSIFIED + 1)
    table = np.zeros(LAST_CLASSIFIED + 3, dtype=np.uint8)
    table[0] = SPACE
    table[1:-1] = SPACE * np.fromiter(map(str.isspace, map(chr, codes)), dtype=bool, count=len(codes))
    # 13a's first expression: ``[\{-\~\[-\` -\&\(-\+\:-\@\/]``
    alone = [*range(0x7B, 0x7F), *range(0x5B, 0x61), *range(0x20, 0x27), *range(0x28, 0x2C), *range(0x3A, 0x41), 0x2F]
    for bit, members in (
        (ALONE, alone),
        (DIGIT, map(ord, string.digits)),
        (PERIOD_OR_COMMA, map(ord, ".,")),
        (DASH, [ord("-")]),
        (PUNCTUATION, map(ord, string.punctuation)),
    ):
        table[np.fromiter(members, dtype=np.int64) + 1] |= bit
    return table


_CLASS_TABLE = _class_table()


def character_classes(chars: ArrayT) -> ArrayT:
    """The class bits (:data:`SPACE`, :data:`ALONE`, ...) of every code point of ``chars`` (``-1``: whitespace).

    Example:
        >>> classes = character_classes(np.array([97, 32, 46, 55])).tolist()
        >>> classes == [0, SPACE | ALONE, PERIOD_OR_COMMA | PUNCTUATION, DIGIT]
        True
    """
    if is_tensor(chars):
        import torch

        table = device_constant("character classes", chars.device, lambda: _CLASS_TABLE)
        return table[(chars.to(torch.int64) + 1).clamp_(max=LAST_CLASSIFIED + 2)]
    return _CLASS_TABLE.take(chars + 1, mode="clip")  # past the table: its last entry, no class

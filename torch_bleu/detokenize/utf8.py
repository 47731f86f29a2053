"""Bytes to code points on the device, with the replacement rules of the real decoders.

Rows of bytes (``(M, W)`` int32, ``-1`` past a row's end) become rows of code points
(:mod:`~torch_bleu.detokenize.chars`). Well-formed characters are those of the Unicode standard
(Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF). What is not well formed
becomes U+FFFD, and how many of them depends on the decoder:

* ``"maximal_subpart"``: one U+FFFD per maximal ill-formed subpart, Unicode's recommendation, as
  Python's ``bytes.decode(errors="replace")``, Rust's ``from_utf8_lossy`` and so Hugging Face's
  tokenizers do (``E0 80`` is two, ``F0 9F 98`` before an ASCII byte is one);
* ``"per_byte"``: one U+FFFD per byte outside a well-formed character, as SentencePiece does.

Every decision looks at most three bytes back or ahead, so it is a few elementwise operations.
"""

from __future__ import annotations

import torch
from torch import Tensor

from .chars import PAD, pack_kept, shifted

#: The replacement character.
REPLACEMENT = 0xFFFD
#: A value beside the 256 bytes that ends a sequence of bytes and decodes to nothing.
SEPARATOR = 256
#: The decoders' rules for ill-formed bytes.
INVALID_UTF8_RULES = ("maximal_subpart", "per_byte")


def _between(values: Tensor, low: int, high: int) -> Tensor:
    return (values >= low) & (values <= high)


def decode_utf8(data: Tensor, rule: str) -> Tensor:
    """Rows of bytes ``(M, W)`` (int32, -1 past the end) as rows of code points of the same width.

    A :data:`SEPARATOR` between bytes decodes to nothing, and no character spans it.

    Example:
        >>> from .chars import strings_from_rows
        >>> data = torch.tensor([[0xE2, 0x82, 0xAC, 0xE0, 0x80, 0x41, -1]], dtype=torch.int32)
        >>> strings_from_rows(decode_utf8(data, "maximal_subpart")), strings_from_rows(decode_utf8(data, "per_byte"))
        (['€��A'], ['€��A'])
        >>> data = torch.tensor([[0xF0, 0x9F, 0x98, 0x41]], dtype=torch.int32)
        >>> strings_from_rows(decode_utf8(data, "maximal_subpart")), strings_from_rows(decode_utf8(data, "per_byte"))
        (['�A'], ['���A'])
    """
    if rule not in INVALID_UTF8_RULES:
        raise ValueError(f"unknown rule for ill-formed UTF-8 {rule!r}; expected one of {INVALID_UTF8_RULES}")
    first = data
    second, third, fourth = (shifted(data, offset, PAD) for offset in (1, 2, 3))
    # how many bytes the character starting here needs (0: this byte cannot start one)
    needs = torch.where(_between(first, 0, 0x7F), 1, 0)
    needs = torch.where(_between(first, 0xC2, 0xDF), 2, needs)
    needs = torch.where(_between(first, 0xE0, 0xEF), 3, needs)
    needs = torch.where(_between(first, 0xF0, 0xF4), 4, needs)
    # the second byte's range depends on the first (Table 3-7); the others are 80..BF
    low = torch.where(first == 0xE0, 0xA0, torch.where(first == 0xF0, 0x90, 0x80))
    high = torch.where(first == 0xED, 0x9F, torch.where(first == 0xF4, 0x8F, 0xBF))
    second_ok = (second >= low) & (second <= high) & (needs >= 2)
    third_ok = second_ok & _between(third, 0x80, 0xBF) & (needs >= 3)
    fourth_ok = third_ok & _between(fourth, 0x80, 0xBF) & (needs >= 4)
    prefix = 1 + second_ok.int() + third_ok.int() + fourth_ok.int()  # the well-formed prefix starting here
    valid = (needs >= 1) & (prefix == needs)
    spans = prefix if rule == "maximal_subpart" else torch.where(valid, needs, 1)
    covered = torch.zeros_like(valid)
    for back in (1, 2, 3):
        covered |= shifted(spans, -back, 0) > back
    starts = ~covered & (data >= 0) & (data != SEPARATOR)

    low_bits = [byte & 0x3F for byte in (second, third, fourth)]
    code = torch.where(needs == 2, ((first & 0x1F) << 6) | low_bits[0], first)
    code = torch.where(needs == 3, ((first & 0x0F) << 12) | (low_bits[0] << 6) | low_bits[1], code)
    four = ((first & 0x07) << 18) | (low_bits[0] << 12) | (low_bits[1] << 6) | low_bits[2]
    code = torch.where(needs == 4, four, code)
    code = torch.where(valid, code, REPLACEMENT).to(torch.int32)
    return pack_kept(code, starts)

"""Decoding on the device, with the replacement rules of the real decoders for ill-formed UTF-8.

A row of *units* (``(M, W)`` int32, ``-1`` past the row's end) holds code points where the
vocabulary's entries are well-formed text on their own (nearly all of them), and raw bytes,
marked as ``RAW + byte``, where an entry is part of a character only (byte-fallback pieces, byte-level
BPE tokens that split a character). :func:`decode_units` turns the raw bytes into code points and
leaves the rest as it is. (Bytes cannot form a character across a well-formed entry: its first
byte is never a continuation byte, and its last character is complete.)

Well-formed characters are those of the Unicode standard (Table 3-7: no overlong forms, no
surrogates, nothing above U+10FFFF). What is not well formed becomes U+FFFD, and how many of them
depends on the decoder:

* ``"maximal_subpart"``: one U+FFFD per maximal ill-formed subpart, Unicode's recommendation, as
  Python's ``bytes.decode(errors="replace")``, Rust's ``from_utf8_lossy`` and so Hugging Face's
  tokenizers do (``E0 80`` is two, ``F0 9F 98`` before an ASCII byte is one);
* ``"per_byte"``: one U+FFFD per byte outside a well-formed character, as SentencePiece does.

Every decision looks at most three units back or ahead: a few elementwise operations and gathers.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from ..arrays import device_constant
from ..text.code_points import PAD, kept_chars, shifted, widths_from_data

#: The replacement character.
REPLACEMENT = 0xFFFD
#: Raw byte ``b`` is the unit ``RAW + b``: above every code point.
RAW = 0x110000
#: A unit that ends a sequence of raw bytes and decodes to nothing.
SEPARATOR = RAW + 256
#: The decoders' rules for ill-formed bytes.
INVALID_UTF8_RULES = ("maximal_subpart", "per_byte")


def _lead_table() -> list[int]:
    """Per byte ``-1..256`` (-1 past the row, 256 the separator): the bytes a character starting with it
    needs (0: none starts with it) in bits 0-3, and the range of the byte after it in bits 4-11 and 12-19
    (Table 3-7: after E0 only A0..BF, after ED only 80..9F, ...)."""
    table = [0]  # past the row
    for byte in range(257):
        needs = 1 if byte < 0x80 else 2 if 0xC2 <= byte <= 0xDF else 3 if 0xE0 <= byte <= 0xEF else 0
        needs = 4 if 0xF0 <= byte <= 0xF4 else needs
        low = {0xE0: 0xA0, 0xF0: 0x90}.get(byte, 0x80)
        high = {0xED: 0x9F, 0xF4: 0x8F}.get(byte, 0xBF)
        table.append(needs | low << 4 | high << 12)
    table[257] = 0  # the separator starts nothing
    return table


_LEAD_TABLE = np.asarray(_lead_table(), dtype=np.int32)


def _leads(data: Tensor) -> Tensor:
    table: Tensor = device_constant("utf-8 leads", data.device, lambda: _LEAD_TABLE)
    return table[(data + 1).long()]


def _continuation(values: Tensor) -> Tensor:
    return (values >= 0x80) & (values <= 0xBF)


def decode_units(units: Tensor, rule: str) -> Tensor:
    """Rows of units (code points and ``RAW + byte``) as rows of code points, packed to the front.

    A :data:`SEPARATOR` decodes to nothing, and no character spans it.

    Example:
        >>> from ..text.code_points import strings_from_rows
        >>> def both_rules(units):
        ...     rows = torch.tensor([units], dtype=torch.int32)
        ...     return [strings_from_rows(decode_units(rows, rule))[0] for rule in INVALID_UTF8_RULES]
        >>> both_rules([*(RAW + byte for byte in (0xE2, 0x82, 0xAC, 0xE0, 0x80)), ord("A"), ord("é"), -1])
        ['€��Aé', '€��Aé']
        >>> both_rules([RAW + 0xF0, RAW + 0x9F, RAW + 0x98, ord("A")])
        ['�A', '���A']
    """
    if rule not in INVALID_UTF8_RULES:
        raise ValueError(f"unknown rule for ill-formed UTF-8 {rule!r}; expected one of {INVALID_UTF8_RULES}")
    raw = units >= RAW
    if widths_from_data(units):  # on CPU, decode only the rows that hold raw bytes (often none)
        holds_raw = raw.any(-1)
        rows = torch.argsort(~holds_raw, stable=True)[: int(holds_raw.sum())]  # those rows, in order
        if rows.numel() == units.shape[0]:
            return _decode(units, raw, rule)
        decoded = units.clone()
        if rows.numel():
            some = _decode(units[rows], raw[rows], rule)
            decoded[rows] = torch.nn.functional.pad(some, (0, units.shape[-1] - some.shape[-1]), value=PAD)
        return decoded
    return _decode(units, raw, rule)


def _decode(units: Tensor, raw: Tensor, rule: str) -> Tensor:
    # bytes for the rules: a code point acts as a one-byte character, past the row is -1
    first = torch.where(raw, units - RAW, torch.where(units >= 0, 0, PAD))
    second, third, fourth = (shifted(first, offset, PAD) for offset in (1, 2, 3))
    lead = _leads(first)
    needs, low, high = lead & 0xF, (lead >> 4) & 0xFF, lead >> 12
    second_ok = (second >= low) & (second <= high) & (needs >= 2)
    third_ok = second_ok & _continuation(third) & (needs >= 3)
    fourth_ok = third_ok & _continuation(fourth) & (needs >= 4)
    prefix = 1 + second_ok.int() + third_ok.int() + fourth_ok.int()  # the well-formed prefix starting here
    valid = (needs >= 1) & (prefix == needs)
    spans = prefix if rule == "maximal_subpart" else torch.where(valid, needs, 1)
    covered = torch.zeros_like(valid)
    for back in (1, 2, 3):
        covered |= shifted(spans, -back, 0) > back
    starts = ~covered & (units >= 0) & (units != SEPARATOR)

    low_bits = [byte & 0x3F for byte in (second, third, fourth)]
    code = torch.where(needs == 2, ((first & 0x1F) << 6) | low_bits[0], first)
    code = torch.where(needs == 3, ((first & 0x0F) << 12) | (low_bits[0] << 6) | low_bits[1], code)
    four = ((first & 0x07) << 18) | (low_bits[0] << 12) | (low_bits[1] << 6) | low_bits[2]
    code = torch.where(needs == 4, four, code)
    code = torch.where(valid, code, REPLACEMENT)
    decoded: Tensor = kept_chars(torch.where(raw, code, units).to(torch.int32), starts)
    return decoded

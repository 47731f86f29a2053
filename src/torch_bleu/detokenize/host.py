"""Rows of subword ids decoded on the host, as Python strings: the text :mod:`.pipeline` gives on a device.

Where the ids are on the CPU already, a metric that counts text on the host (WER, CER) decodes a batch
here and queues the strings with its text batches (:mod:`torch_bleu.metrics.queued_text`), rather than
decoding a few rows at a time in tensors: each row's entries are joined as bytes, each run between
separator ids decoded on its own with the decoder's rule for ill-formed UTF-8 (Python's ``"replace"``
is ``"maximal_subpart"``; ``"per_byte"`` writes one U+FFFD per byte of the ill-formed subparts Python
finds), then transformers' clean-up of spaces where the detokenizer has it.

A well-formed entry never begins with a continuation byte and ends with a whole character, so bytes
joined across entries form the characters the device's units do (:mod:`.utf8`).
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence

from .detokenizer import CLEAN_UP_REPLACEMENTS, Detokenizer

#: The error handler that replaces each byte of an ill-formed subpart by U+FFFD (SentencePiece's rule).
PER_BYTE = "torch_bleu.per_byte"


def _per_byte(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)  # registered for decoding only
    return "\ufffd" * (error.end - error.start), error.end


codecs.register_error(PER_BYTE, _per_byte)


def decoded_strings(rows: Sequence[Sequence[int]], detokenizer: Detokenizer) -> list[str]:
    """The text of each row of ids (kept ids only, each in the vocabulary), as ``detokenizer`` decodes it.

    Example:
        >>> detokenizer = Detokenizer((b"", b"a", b" b", b"\\xe2", b"\\x82", b"\\xac"), "per_byte", frozenset({0}))
        >>> decoded_strings([[1, 2], [3, 4, 5, 1], [3, 0, 4, 5], []], detokenizer)
        ['a b', '€a', '���', '']
    """
    entries = detokenizer.entries
    errors = "replace" if detokenizer.invalid_utf8 == "maximal_subpart" else PER_BYTE
    separators = detokenizer.separators
    texts = []
    for row in rows:
        if separators.isdisjoint(row):
            text = b"".join(map(entries.__getitem__, row)).decode("utf-8", errors)
        else:  # a separator ends a run of bytes: each run is decoded on its own
            text = "".join(_runs(row, entries, separators, errors))
        texts.append(text)
    if detokenizer.clean_up:
        for pattern, replacement in CLEAN_UP_REPLACEMENTS:
            texts = [text.replace(pattern, replacement) for text in texts]
    return texts


def _runs(row: Sequence[int], entries: tuple[bytes, ...], separators: frozenset[int], errors: str) -> list[str]:
    """The decoded text of each run of ``row`` between separator ids."""
    runs, start = [], 0
    for position, token in enumerate(row):
        if token in separators:
            runs.append(b"".join(map(entries.__getitem__, row[start:position])).decode("utf-8", errors))
            start = position + 1
    runs.append(b"".join(map(entries.__getitem__, row[start:])).decode("utf-8", errors))
    return runs

"""The tokenizers the subword tests decode with, each wrapped as a :class:`Vocabulary`.

A ``Vocabulary`` holds a tokenizer trained offline (:mod:`subword_tokenizers`), its
:class:`~torch_bleu.Detokenizer`, how the real library decodes and encodes, and the ids worth drawing
often in random rows (special and control ids, byte pieces, pieces of entities and punctuation).

Tests take one as the ``vocabulary`` fixture (``tests/conftest.py``): once for each of :data:`KINDS`, or
for the kinds they name with ``indirect`` parametrization, as :data:`SUBWORD_CASES` does.
"""

from __future__ import annotations

import random

import pytest
import torch
from subword_tokenizers import (
    ADDED_TOKEN,
    BOS_ID,
    EOS_ID,
    PAD_ID,
    UNK_ID,
    cached_byte_level_bpe,
    cached_sentencepiece,
    cached_transformers,
    requires,
)

from torch_bleu import Detokenizer


def _sentencepiece(kind: str):
    requires("sentencepiece")
    if kind == "unigram":
        return cached_sentencepiece("unigram")
    return cached_sentencepiece("bpe", byte_fallback=True)


def _huggingface(kind: str):
    requires("tokenizers")
    if kind == "tokenizers":
        return cached_byte_level_bpe()
    requires("transformers")
    return cached_transformers(clean_up=True, force_clean_up_for_bpe=kind == "transformers, clean-up")


SENTENCEPIECE_KINDS = ["unigram", "bpe with byte fallback"]
HUGGINGFACE_KINDS = ["tokenizers", "transformers", "transformers, clean-up"]
KINDS = SENTENCEPIECE_KINDS + HUGGINGFACE_KINDS
#: Counted as on the CPU (sizes from the data) and as on an accelerator (sizes from shapes only).
SIZE_MODES = ["sizes from data", "static sizes"]
#: ``(vocabulary, sizes)`` for ``indirect`` parametrization: every kind in both size modes; one of them runs
#: by default, the rest with --slow.
SUBWORD_CASES = [
    pytest.param(kind, mode, marks=() if (kind, mode) == ("unigram", "static sizes") else pytest.mark.slow)
    for kind in KINDS
    for mode in SIZE_MODES
]


class Vocabulary:
    """A tokenizer, its detokenizer, how it decodes and encodes, and the ids worth drawing often."""

    def __init__(self, kind: str):
        if kind in SENTENCEPIECE_KINDS:
            processor = _sentencepiece(kind)
            self.detokenizer = Detokenizer.from_sentencepiece(processor)
            self.decode = processor.decode
            self.encode = processor.encode
            pieces = ["▁&", "amp", ";", "▁.", ",", "-", "▁'", "s", "▁n't"]
            self.special = [UNK_ID, BOS_ID, EOS_ID, PAD_ID, *(processor.piece_to_id(p) for p in pieces)]
            self.special += [i for i in range(processor.get_piece_size()) if processor.is_byte(i)][0xC0:0xF8:3]
            self.strip_leading_spaces = True  # decode drops the row's first space, which no tokenizer reads
        else:
            tokenizer = _huggingface(kind)
            self.detokenizer = Detokenizer.from_huggingface(tokenizer)
            backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
            self.decode = lambda ids: tokenizer.decode(ids, skip_special_tokens=True)
            self.encode = lambda text: backend.encode(text, add_special_tokens=False).ids
            self.special = [0, 1, 2, backend.token_to_id(ADDED_TOKEN), *backend.encode(" . , ' n't 's &amp; 3-4").ids]
            self.special += [backend.token_to_id(char) for char in "ÂÃâãäð"]  # UTF-8 lead bytes as GPT-2 letters
            self.strip_leading_spaces = False
        self.size = self.detokenizer.vocab_size

    def random_rows(self, rng: random.Random, count: int, longest: int) -> list[list[int]]:
        return [
            [rng.choice(self.special) if rng.random() < 0.4 else rng.randrange(self.size) for _ in range(length)]
            for length in (rng.randrange(longest + 1) for _ in range(count))
        ]

    @property
    def pad(self) -> int:
        """The tokenizer's padding id, which decodes to nothing."""
        return PAD_ID if self.strip_leading_spaces else 0

    def padded_groups(self, rng: random.Random, groups: int = 2, count: int = 3, longest: int = 10):
        """``(groups, count, width)`` random rows padded with :attr:`pad`, and each row's decoded text.

        The rows hold no padding id of their own: a tokenizer's decode keeps the break a mid-row pad
        makes between byte pieces, where an ignored id is gone.
        """
        drawn = [self.random_rows(rng, count, longest) for _ in range(groups)]
        rows = [[[token for token in row if token != self.pad] for row in group] for group in drawn]
        width = max(len(row) for group in rows for row in group)
        ids = torch.tensor([[row + [self.pad] * (width - len(row)) for row in group] for group in rows])
        return ids, [[self.decode(row) for row in group] for group in rows]

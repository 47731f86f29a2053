"""Words to small integer ids: one shared :class:`Vocabulary` numbers every distinct word of a corpus, so
that the engine counts words as it counts token ids. Needs NumPy, not PyTorch.

Example:
    >>> vocab = Vocabulary()
    >>> hyps = vocab.encode([["the", "cat", "sat"], ["a", "dog"]])
    >>> hyps.ids.tolist(), hyps.lengths.tolist()
    ([0, 1, 2, 3, 4], [3, 2])
    >>> vocab.encode([["the", "dog"]]).ids.tolist()
    [0, 4]
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np


class TokenStream(NamedTuple):
    """One stream of tokenized sentences as word ids, concatenated.

    Attributes:
        ids: ``(T,)`` int64 word ids of all sentences, one after the other.
        lengths: ``(B,)`` int64 number of words of each sentence.
        distinct: ``D`` when the ids are ``0 .. D - 1`` (the words of one call), else ``None``.
    """

    ids: np.ndarray
    lengths: np.ndarray
    distinct: int | None = None


class Vocabulary:
    """Maps every distinct word to a small integer id, in order of first appearance.

    Example:
        >>> vocab = Vocabulary()
        >>> vocab.encode([["b", "a", "b"]]).ids.tolist(), len(vocab)
        ([0, 1, 0], 2)
    """

    def __init__(self) -> None:
        # a missing word gets the next number: the lookups below run in C, without a Python call per word
        self._ids: defaultdict[str, int] = defaultdict(itertools.count().__next__)

    def __len__(self) -> int:
        return len(self._ids)

    def words(self) -> list[str]:
        """Every word numbered so far, in the order of their ids.

        Example:
            >>> vocab = Vocabulary()
            >>> vocab.ids(["b", "a", "b"], 3).tolist(), vocab.words()
            ([0, 1, 0], ['b', 'a'])
        """
        return list(self._ids)

    def encode(self, sentences: Iterable[Sequence[str]]) -> TokenStream:
        """Ids of the words of every sentence, as one :class:`TokenStream`."""
        sentences = list(sentences)
        lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
        return TokenStream(self.ids(itertools.chain.from_iterable(sentences), int(lengths.sum())), lengths)

    def ids(self, words: Iterable[str], count: int) -> np.ndarray:
        """The ids of ``count`` words, as int64.

        Example:
            >>> Vocabulary().ids("a b a".split(), 3).tolist()
            [0, 1, 0]
        """
        return np.fromiter(map(self._ids.__getitem__, words), dtype=np.int64, count=count)

"""ROUGE's three kinds of type, what each counts, and each pair's statistics from each kind's hits.

A pair's statistics for a type are its hits, the prediction's count and the reference's count:

* :class:`NGrams` (``rouge1`` .. ``rouge9``): the hits are the clipped matches of the n-grams of ``n``
  words (the sum over n-grams of the smaller of the two sides' counts); the counts are each side's
  n-grams, ``max(words - n + 1, 0)``.
* :class:`LCS` (``rougeL``): the hits are the length of the longest common subsequence of the whole
  summaries (sentences ignored); the counts are each side's words.
* :class:`UnionLCS` (``rougeLsum``): the union LCS of each reference sentence against every prediction
  sentence, clipped as rouge-score clips it, by the words of the whole summaries: rouge-score takes
  the union words sentence by sentence and counts one while the word is left in both summaries' word
  counts. Every union word is a reference word of its own, so the reference's count never runs out
  first, and the hits are ``sum over words w of min(union words w, prediction words w)``: the clipped
  unigram matches of the union words against the prediction. The counts are each side's words.

The host (:mod:`.host_statistics`) and the accelerator (:mod:`.device_statistics`) find the hits each its own
way, as :class:`HitKernels`; :func:`kind_statistics` asks them for what the kinds need and adds the
counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ...arrays import Array, ArrayT, array_namespace


@dataclass(frozen=True)
class NGrams:
    """``rougeN``: the n-grams of ``n`` words."""

    n: int

    def counts(self, words: ArrayT) -> ArrayT:
        """The n-grams of rows of ``words`` words: ``max(words - n + 1, 0)``.

        Example:
            >>> import numpy as np
            >>> NGrams(2).counts(np.array([0, 1, 5]))
            array([0, 0, 4])
        """
        grams: ArrayT = array_namespace(words).where(words >= self.n, words - (self.n - 1), 0)
        return grams


@dataclass(frozen=True)
class _WordCounts:
    """A kind whose counts are each side's words."""

    def counts(self, words: ArrayT) -> ArrayT:
        """The words of each row, as they are."""
        return words


@dataclass(frozen=True)
class LCS(_WordCounts):
    """``rougeL``: the longest common subsequence of the whole summaries."""


@dataclass(frozen=True)
class UnionLCS(_WordCounts):
    """``rougeLsum``: the union LCS of each reference sentence against every prediction sentence."""


RougeKind = NGrams | LCS | UnionLCS


def kind_of(rouge_type: str) -> RougeKind:
    """The kind of a ROUGE type's name (``rouge1`` .. ``rouge9``, ``rougeL``, ``rougeLsum``, checked before).

    Example:
        >>> [kind_of(name) for name in ("rouge2", "rougeL", "rougeLsum")]
        [NGrams(n=2), LCS(), UnionLCS()]
    """
    if rouge_type == "rougeL":
        return LCS()
    if rouge_type == "rougeLsum":
        return UnionLCS()
    return NGrams(int(rouge_type.removeprefix("rouge")))


class HitKernels(Protocol):
    """One way (the host's, the accelerator's) to the hits of a batch of ``P`` pairs, int64 arrays."""

    def ngram_hits(self, highest: int) -> Array:
        """``(P, highest)`` the clipped n-gram matches of orders ``1 .. highest``."""

    def lcs_hits(self) -> Array:
        """``(P,)`` the LCS of each pair's whole summaries."""

    def union_hits(self) -> Array:
        """``(P,)`` the union LCS hits of each pair, clipped by the prediction's words."""


def kind_statistics(kinds: Sequence[RougeKind], kernels: HitKernels, pred_words: ArrayT, ref_words: ArrayT) -> ArrayT:
    """``(P, T, 3)`` hits, prediction count and reference count of each pair for each of ``kinds``, the hits
    from ``kernels``, the counts from the words of each side, ``pred_words`` and ``ref_words`` ``(P,)``.

    Example:
        >>> import numpy as np
        >>> class Fixed:
        ...     def ngram_hits(self, highest): return np.array([[3, 1, 0][:highest]])
        ...     def lcs_hits(self): return np.array([2])
        ...     def union_hits(self): return np.array([1])
        >>> kinds = (NGrams(2), LCS(), UnionLCS())
        >>> kind_statistics(kinds, Fixed(), np.array([3]), np.array([4])).tolist()
        [[[1, 2, 3], [2, 3, 4], [1, 3, 4]]]
    """
    xp = array_namespace(pred_words)
    words = xp.stack([pred_words, ref_words], -1)
    highest = max((kind.n for kind in kinds if isinstance(kind, NGrams)), default=0)
    ngram_hits = kernels.ngram_hits(highest) if highest else None
    columns = []
    for kind in kinds:
        if isinstance(kind, NGrams):
            assert ngram_hits is not None
            hits = ngram_hits[:, kind.n - 1]
        elif isinstance(kind, LCS):
            hits = kernels.lcs_hits()
        else:
            hits = kernels.union_hits()
        columns.append(xp.concatenate([hits[:, None], kind.counts(words)], -1))
    statistics: ArrayT = xp.stack(columns, 1)
    return statistics

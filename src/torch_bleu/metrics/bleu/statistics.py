"""BLEU sufficient statistics: the one named type, the rules that complete counts into it, and its packing.

Every path ends here: the engine (:mod:`torch_bleu.engine`) counts clipped matches, and
:func:`assemble_statistics` adds the rest by the same rules for the metric, the functional API
and the command line: hypothesis n-gram totals (:func:`ngram_totals`) and the effective reference
length (:func:`effective_reference_length`). Everything here works on PyTorch tensors (any device,
no host sync) and NumPy arrays alike, and imports no PyTorch.

:func:`pack_statistics` lays statistics out as sacrebleu does, one int64 row per sentence, for the
significance tests and the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, NamedTuple

import numpy as np

from ...arrays import Array, ArrayT, arange_like, array_namespace, take_along_last, to_host
from .config import BLEUConfig

if TYPE_CHECKING:  # to type checkers, one kind of array throughout (a NamedTuple is generic from Python 3.11 on)
    from torch import Tensor
    from typing_extensions import TypeVar

    #: The statistics' kind: tensors unless said otherwise, as the metric and the functions give them.
    StatisticsT = TypeVar("StatisticsT", np.ndarray, Tensor, default=Tensor)

    class SentenceStatistics(NamedTuple, Generic[StatisticsT]):
        """The statistics below, all tensors or all NumPy arrays."""

        matches: StatisticsT
        totals: StatisticsT
        preds_len: StatisticsT
        target_len: StatisticsT

else:

    class SentenceStatistics(NamedTuple):
        """Per-sentence BLEU sufficient statistics, all int64 (tensors or NumPy arrays).

        Attributes:
            matches: ``(..., N)`` clipped n-gram matches per order.
            totals: ``(..., N)`` hypothesis n-grams per order (the precision denominators).
            preds_len: ``(...,)`` hypothesis lengths after removing ignored ids.
            target_len: ``(...,)`` effective reference length of each sentence (closest or shortest).
        """

        matches: Array
        totals: Array
        preds_len: Array
        target_len: Array


def effective_reference_length(
    preds_len: ArrayT, ref_len: ArrayT, ref_present: ArrayT | None = None, rule: str = "closest"
) -> ArrayT:
    """Choose one reference length per hypothesis.

    ``closest`` picks the length nearest to the hypothesis length, ties going to the shorter
    reference; ``shortest`` picks the shortest. ``ref_len`` ``(..., R)`` broadcasts against
    ``preds_len`` ``(...)`` (several systems may share references). References that ``ref_present``
    marks absent are skipped (``None``: all are present); a sentence without any gets length 0.

    Example:
        >>> import numpy as np
        >>> effective_reference_length(np.array([12, 12]), np.array([[13, 2], [13, 11]])).tolist()
        [13, 11]
    """
    xp = array_namespace(ref_len)
    num_refs = ref_len.shape[-1]
    chosen: ArrayT
    if num_refs == 0:
        chosen = xp.zeros_like(preds_len)
        return chosen
    if num_refs == 1:  # one reference: it is the closest and the shortest
        chosen = xp.broadcast_to(ref_len[..., 0], preds_len.shape)
        return chosen if ref_present is None else xp.where(ref_present[..., 0], chosen, 0)
    distance = xp.abs(ref_len - preds_len[..., None])
    lengths = xp.broadcast_to(ref_len, distance.shape)  # the references' lengths, beside every hypothesis
    sort_key = lengths  # "shortest"
    if rule == "closest":  # order by (distance, length): ties go to the shorter reference
        sort_key = distance * (xp.amax(ref_len, axis=-1, keepdims=True) + 1) + lengths
    if ref_present is not None:
        sort_key = xp.where(ref_present, sort_key, np.iinfo(np.int64).max)
    chosen = take_along_last(lengths, xp.argmin(sort_key, axis=-1, keepdims=True))[..., 0]
    return chosen if ref_present is None else xp.where(ref_present.any(-1), chosen, 0)


def ngram_totals(preds_len: ArrayT, max_order: int, at_least: int = 0) -> ArrayT:
    """``(..., max_order)``: a hypothesis of ``c`` tokens holds ``max(at_least, c - n + 1)`` n-grams of order ``n``.

    Example:
        >>> import numpy as np
        >>> ngram_totals(np.array([3, 1]), 4).tolist(), ngram_totals(np.array([1]), 3, at_least=1).tolist()
        ([[3, 2, 1, 0], [1, 0, 0, 0]], [[1, 1, 1]])
    """
    totals: ArrayT = (preds_len[..., None] - arange_like(max_order, preds_len)).clip(min=at_least)
    return totals


def assemble_statistics(
    matches: ArrayT, preds_len: ArrayT, ref_len: ArrayT, ref_present: ArrayT | None, config: BLEUConfig
) -> SentenceStatistics[ArrayT]:
    """Complete the engine's clipped ``matches`` ``(..., N)`` into statistics by ``config``'s rules.

    ``preds_len`` ``(...)`` and ``ref_len`` ``(..., R)`` are the kept lengths of the hypotheses and
    references, ``ref_present`` the references that count (see :func:`effective_reference_length`).
    With ``convention="nltk"`` every order counts at least one hypothesis n-gram, as nltk's
    ``modified_precision`` does.

    Example:
        >>> import numpy as np
        >>> stats = assemble_statistics(np.array([[2, 1]]), np.array([3]), np.array([[4, 2]]), None,
        ...                             BLEUConfig(max_order=2))
        >>> stats.totals.tolist(), stats.target_len.tolist()
        ([[3, 2]], [2])
    """
    target_len = effective_reference_length(preds_len, ref_len, ref_present, config.ref_length)
    totals = ngram_totals(preds_len, matches.shape[-1], at_least=1 if config.convention == "nltk" else 0)
    return SentenceStatistics(matches, totals, preds_len, target_len)


def pack_statistics(stats: SentenceStatistics[ArrayT]) -> np.ndarray:
    """``(..., 2 + 2N)`` int64 rows ``[preds_len, target_len, matches..., totals...]`` (sacrebleu's layout).

    ``stats`` holds tensors on any device, or arrays, with any leading dimensions.

    Example:
        >>> stats = SentenceStatistics(np.array([[2, 1]]), np.array([[3, 2]]), np.array([3]), np.array([4]))
        >>> pack_statistics(stats).tolist()
        [[3, 4, 2, 1, 3, 2]]
    """
    matches, totals, preds_len, target_len = (to_host(field).astype(np.int64) for field in stats)
    return np.concatenate([np.stack([preds_len, target_len], axis=-1), matches, totals], axis=-1)

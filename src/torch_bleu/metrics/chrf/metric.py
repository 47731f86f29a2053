"""``CHRFScore``: chrF and chrF++ as a ``torchmetrics.Metric``, its statistics int64 and summed across ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from torch import Tensor

from ...arrays import Array
from ..base import CorpusScoreMetric, CountingMetricArguments
from .config import CHRFConfig, CHRFOptions
from .counting import as_text, ids_statistics
from .score import chrf_from_statistics, packed_chrf
from .statistics import chrf_statistics

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack

    from ...inputs.kinds import TokenIds


class CHRFScoreOptions(CHRFOptions, CountingMetricArguments, total=False):
    """What :class:`CHRFScore` takes by name: CHRF's options, ``keep_sentences`` and torchmetrics' arguments."""


class CHRFScore(CorpusScoreMetric):
    """Corpus chrF (chrF++ with ``word_order=2``) over ``update`` calls, as sacrebleu's ``CHRF`` computes it.

    ``update(preds, target, weight=None, indices=None)`` takes strings (``target``: per hypothesis its reference or a
    list of its references), or, with ``detokenizer``, subword ids (references as ids or strings),
    decoded on their device. ``weight`` says how many times each sentence counts, ``indices`` where
    each sentence is in the dataset (the order the sentences kept with ``keep_sentences=True`` follow)
    (:meth:`~torch_bleu.metrics.base.CorpusScoreMetric.update`). The state is one ``(orders, 3)`` int64
    tensor of hypothesis, reference and match counts, each sentence counted against its best
    reference; DDP sums it, and ``compute()`` scores it on the 0..1 scale.

    Args:
        **options: the options of :class:`~torch_bleu.metrics.chrf.config.CHRFConfig`, by name:
            ``char_order``, ``word_order``, ``beta``, ``whitespace``, ``eps_smoothing``, ``lowercase``
            (sacrebleu's ``CHRF`` options; defaults: chrF2, 6 character orders, no word orders),
            ``ignore_ids``, ``eos_id`` and ``detokenizer`` (subword ids).
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    Example:
        >>> metric = CHRFScore(word_order=2)
        >>> metric.update(["The cat sat on the mat."], ["The cat is on the mat."])
        >>> metric.update(["A dog barked."], [["The dog barked loudly.", "A dog barked."]])
        >>> round(100 * metric.compute().item(), 4)   # sacrebleu: CHRF(word_order=2).corpus_score(...)
        80.1532
    """

    config_class = CHRFConfig
    state_names = ("statistics",)
    config: CHRFConfig
    statistics: Tensor

    def __init__(self, *positional: Never, **options: Unpack[CHRFScoreOptions]) -> None:
        super().__init__(*positional, **options)

    def statistics_shapes(self) -> Sequence[tuple[int, ...]]:
        """Hypothesis, reference and match counts of each order."""
        return ((self.config.orders, 3),)

    def sentence_statistics(self, preds: Any, target: Any) -> tuple[Array]:
        """``(B, orders, 3)`` statistics of every sentence, each against its best reference."""
        return (chrf_statistics(as_text(preds, target, self.config, self.device), self.config),)

    def ids_statistics(self, ids: TokenIds) -> tuple[Tensor]:
        """``(B, orders, 3)`` statistics of every sentence of a checked batch of subword ids."""
        return (ids_statistics(ids, self.config),)

    def score(self, *statistics: Tensor) -> Tensor:
        """chrF in ``[0, 1]`` of summed statistics (0-d float64)."""
        score: Tensor = chrf_from_statistics(statistics[0], self.config)
        return score

    def packed_score(self, summed: np.ndarray) -> np.ndarray:
        """chrF (0..100) of summed statistics ``(..., 3 * orders)``, sacrebleu's (:func:`~.score.packed_chrf`)."""
        return packed_chrf(summed, self.config)

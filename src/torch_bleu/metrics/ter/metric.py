"""``TERScore``: TER as a ``torchmetrics.Metric``, its statistics int64 and summed across ranks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from ..base import CorpusScoreMetric, CountingMetricArguments
from .config import MAX_REFERENCES, TERConfig, TEROptions
from .counting import ids_statistics, sentence_statistics
from .score import ter_fraction

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack

    from ...inputs.kinds import TokenIds


class TERScoreOptions(TEROptions, CountingMetricArguments, total=False):
    """What :class:`TERScore` takes by name: TER's options, ``keep_sentences`` and torchmetrics' arguments."""


class TERScore(CorpusScoreMetric):
    """Corpus TER over ``update`` calls, as sacrebleu's ``TER`` computes it (lower is better).

    ``update(preds, target, weight=None, indices=None)`` takes strings (``target``: per hypothesis its reference or a
    list of up to 16 references), or, with ``detokenizer``, subword ids (references as ids or
    strings), decoded on their device and read back as text: sacrebleu's shift search runs on the
    host, vectorized over the batch. ``weight`` says how many times each sentence counts, ``indices`` where
    each sentence is in the dataset (the order the sentences kept with ``keep_sentences=True`` follow)
    (:meth:`~torch_bleu.metrics.base.CorpusScoreMetric.update`). The states are int64: ``edits`` (each
    sentence's fewest edits over its references) and ``reference_length`` (the mean length of each
    sentence's references, in :data:`~torch_bleu.metrics.ter.statistics.LENGTH_UNIT` parts of a word,
    so that it stays whole); DDP sums them, and ``compute()`` gives edits per reference word.

    Args:
        **options: the options of :class:`~torch_bleu.metrics.ter.config.TERConfig`, by name:
            ``normalized``, ``no_punct``, ``asian_support``, ``case_sensitive`` (sacrebleu's ``TER``
            options), ``ignore_ids``, ``eos_id`` and ``detokenizer`` (subword ids).
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    Example:
        >>> metric = TERScore()
        >>> metric.update(["The cat sat on the mat."], ["The cat is on the mat."])
        >>> metric.update(["A dog barked."], [["The dog barked loudly.", "A dog barked."]])
        >>> round(100 * metric.compute().item(), 4)   # sacrebleu: TER().corpus_score(...)
        10.5263
    """

    higher_is_better = False
    plot_upper_bound = None  # TER has no upper bound: plots draw none, and scale to the values

    config_class = TERConfig
    state_names = ("edits", "reference_length")
    config: TERConfig
    edits: Tensor
    reference_length: Tensor

    def __init__(self, *positional: Never, **options: Unpack[TERScoreOptions]) -> None:
        super().__init__(*positional, **options)

    def sentence_statistics(self, preds: Any, target: Any) -> tuple[Tensor, Tensor]:
        """``(B,)`` edits and ``(B,)`` reference lengths of every sentence."""
        statistics = sentence_statistics(preds, target, self.config)
        return statistics[:, 0], statistics[:, 1]

    def ids_statistics(self, ids: TokenIds) -> tuple[Tensor, Tensor]:
        """``(B,)`` edits and ``(B,)`` reference lengths of every sentence of a checked batch of subword ids."""
        statistics = ids_statistics(ids, self.config)
        return statistics[:, 0], statistics[:, 1]

    def queueable_ids(self, preds: Any, target: Any) -> TokenIds | None:
        """A batch of subword ids, checked, for ``update`` to queue; one with room for more references than TER
        takes is counted at once, where the references that count are known (and more than it takes refused)."""
        ids = super().queueable_ids(preds, target)
        return None if ids is None or ids.batch.target.shape[1] > MAX_REFERENCES else ids

    def score(self, *statistics: Tensor) -> Tensor:
        """TER of summed statistics (0-d float64), edits per reference word."""
        score: Tensor = ter_fraction(torch.stack(statistics, -1))
        return score

    def packed_score(self, summed: np.ndarray) -> np.ndarray:
        """TER (0..100) of summed ``(..., 2)`` edits and reference lengths, sacrebleu's (:func:`.ter_fraction`)."""
        scores: np.ndarray = ter_fraction(np.asarray(summed), percent=True)
        return scores

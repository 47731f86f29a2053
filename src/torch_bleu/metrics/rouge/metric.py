"""``ROUGEScore``: the mean ROUGE of sentences as a ``torchmetrics.Metric``, summed exactly across ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from ..base import ExactMetric, ExactMetricArguments
from .config import ROUGEConfig, ROUGEOptions
from .counting import sentence_statistics
from .score import LIMBS, fixed_point, mean_of_fixed_point

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack


class ROUGEScoreOptions(ROUGEOptions, ExactMetricArguments, total=False):
    """What :class:`ROUGEScore` takes by name: its options and torchmetrics' arguments."""


class ROUGEScore(ExactMetric):
    """Mean ROUGE of the sentences of ``update`` calls, each sentence scored as rouge-score scores it.

    ``update(preds, target, weight=None)`` takes the predictions first, then their references: strings
    (one reference, or a list of them per prediction), rows of token ids (each id a word), or, with
    ``detokenizer``, subword ids whose decoded text counts. ``compute()`` gives a dict keyed
    ``f"{rouge_type}_{precision|recall|fmeasure}"`` of 0-d float64 means over the sentences (each
    repeated by its ``weight``).

    The states are int64: ``statistics`` ``(T, 3)`` (hits, prediction and reference counts of each
    type, summed), ``score_sums`` ``(T, 3, 2)`` (each sentence's precision, recall and F-measure as
    fixed-point integers, summed: exact and independent of the order of the sentences, ranks and
    batches, see :mod:`~torch_bleu.metrics.rouge.score`) and ``sentences``. With
    ``keep_sentences=True``, each sentence's statistics are kept too;
    :meth:`~torch_bleu.metrics.base.ExactMetric.confidence_interval` and the paired tests resample the
    mean F-measure of the first ROUGE type (:meth:`score`).

    Args:
        **options: ``rouge_types``, ``use_stemmer``, ``tokenize``, ``accumulate``, ``sentence_sep_id``, and
            ``ignore_ids``, ``eos_id`` and ``detokenizer`` (rows of ids), by name
            (:class:`~torch_bleu.metrics.rouge.config.ROUGEConfig`).
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    Example:
        >>> metric = ROUGEScore(rouge_types=("rouge1", "rougeL"))
        >>> metric.update(["the cat sat on the mat"], ["the cat sat on a mat"])
        >>> metric.update(["a dog barked"], [["the dog barked loudly", "a dog"]])
        >>> scores = metric.compute()   # the second prediction takes its best reference, "a dog"
        >>> round(scores["rouge1_precision"].item(), 4), round(scores["rouge1_recall"].item(), 4)
        (0.75, 0.9167)
        >>> sorted(scores)  # doctest: +NORMALIZE_WHITESPACE
        ['rouge1_fmeasure', 'rouge1_precision', 'rouge1_recall', 'rougeL_fmeasure', 'rougeL_precision',
         'rougeL_recall']
    """

    config_class = ROUGEConfig
    state_names = ("statistics", "score_sums", "sentences")
    config: ROUGEConfig
    statistics: Tensor
    score_sums: Tensor
    sentences: Tensor

    def __init__(self, *positional: Never, **options: Unpack[ROUGEScoreOptions]) -> None:
        super().__init__(*positional, **options)

    def statistics_shapes(self) -> Sequence[tuple[int, ...]]:
        """``(T, 3)`` integer statistics, ``(T, 3, 2)`` fixed-point scores, and a count of sentences."""
        types = len(self.config.types)
        return ((types, 3), (types, 3, LIMBS), ())

    def sentence_statistics(self, preds: Any, target: Any) -> tuple[Tensor, ...]:
        """Each sentence's ``(B, T, 3)`` statistics, ``(B, T, 3, 2)`` fixed-point scores and ``(B,)`` ones."""
        statistics, scores = sentence_statistics(preds, target, self.config)
        return statistics, fixed_point(scores), torch.ones_like(statistics[:, 0, 0])

    def compute(self) -> dict[str, Tensor]:  # type: ignore[override]
        """The mean scores of everything added so far (of every rank): a dict of 0-d float64 tensors."""
        means = mean_of_fixed_point(self.score_sums, self.sentences)
        return dict(zip(self.config.result_keys(), means.reshape(-1).unbind(0)))

    def score(self, *statistics: Tensor) -> Tensor:
        """The mean F-measure of the first ROUGE type of summed states (0-d float64): the score that
        confidence intervals and paired tests resample."""
        _, score_sums, sentences = statistics
        return mean_of_fixed_point(score_sums[0, 2], sentences)

    def packed_score(self, summed: np.ndarray) -> np.ndarray:
        """The mean F-measure (in points) of the first ROUGE type of summed packed statistics ``(..., F)``."""
        summed = np.asarray(summed)
        first_fmeasure = 3 * len(self.config.types) + 2 * LIMBS
        limbs = torch.from_numpy(summed[..., first_fmeasure : first_fmeasure + LIMBS].astype(np.int64))
        count = torch.from_numpy(summed[..., -1].astype(np.int64))
        means: np.ndarray = 100 * mean_of_fixed_point(limbs, count).numpy()
        return means

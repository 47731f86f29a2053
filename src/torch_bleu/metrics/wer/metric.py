"""``WERScore`` and ``CERScore``: WER and CER as ``torchmetrics.Metric``, their counts int64, summed across ranks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from ..base import CorpusScoreMetric, CountingMetricArguments
from .config import CERConfig, WERConfig, WEROptions
from .counting import COUNT_NAMES, ids_statistics, sentence_statistics
from .score import ErrorMeasures, error_rate, measures_of

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack

    from ...inputs.kinds import TokenIds


class WERScoreOptions(WEROptions, CountingMetricArguments, total=False):
    """What :class:`WERScore` and :class:`CERScore` take by name: their options and torchmetrics' arguments."""


class WERScore(CorpusScoreMetric):
    """Corpus WER over ``update`` calls, as ``jiwer.wer`` computes it (lower is better).

    ``update(preds, target, weight=None, indices=None)`` takes the hypotheses first, then one reference each: strings
    (read as jiwer's ``wer_default`` reads them), rows of token ids (each id a word; ``ignore_ids`` and
    ``eos_id`` as for every metric), or, with ``detokenizer``, subword ids whose decoded words count
    (references as ids or strings). Ids are queued and counted on their device, a thousand sentences at a
    time, without waiting for it (:mod:`~torch_bleu.metrics.queued_ids`); subword ids on the CPU are
    decoded there and queued with text batches (:mod:`~torch_bleu.metrics.queued_text`).
    ``weight`` says how many times each sentence counts, ``indices`` where
    each sentence is in the dataset (the order the sentences kept with ``keep_sentences=True`` follow)
    (:meth:`~torch_bleu.metrics.base.CorpusScoreMetric.update`). The states are int64 ``hits``,
    ``substitutions``, ``deletions`` and ``insertions``, counted as jiwer's ``process_words`` counts them;
    DDP sums them, ``compute()`` gives errors per reference word and :meth:`measures` jiwer's MER, WIL
    and WIP beside it.

    Args:
        **options: ``ignore_ids``, ``eos_id`` and ``detokenizer`` (rows of ids), by name
            (:class:`~torch_bleu.metrics.wer.config.WERConfig`).
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    Example:
        >>> metric = WERScore()
        >>> metric.update(["the cat sat on the mat"], ["the cat sat on a mat"])
        >>> metric.update(["a dog barked"], ["the dog barked loudly"])
        >>> round(metric.compute().item(), 4)   # jiwer.wer(references, hypotheses)
        0.3
        >>> metric.hits.item(), metric.substitutions.item(), metric.deletions.item(), metric.insertions.item()
        (7, 2, 1, 0)
    """

    higher_is_better = False
    plot_upper_bound = None  # insertions take WER past 1: plots draw no upper bound

    config_class = WERConfig
    state_names = COUNT_NAMES
    config: WERConfig
    hits: Tensor
    substitutions: Tensor
    deletions: Tensor
    insertions: Tensor

    def __init__(self, *positional: Never, **options: Unpack[WERScoreOptions]) -> None:
        super().__init__(*positional, **options)

    def sentence_statistics(self, preds: Any, target: Any) -> tuple[Tensor, ...]:
        """``(B,)`` hits, substitutions, deletions and insertions of every sentence."""
        return tuple(sentence_statistics(preds, target, self.config).unbind(-1))

    def ids_statistics(self, ids: TokenIds) -> tuple[Tensor, ...]:
        """``(B,)`` hits, substitutions, deletions and insertions of every sentence of a checked batch of ids."""
        return tuple(ids_statistics(ids, self.config).unbind(-1))

    def score(self, *statistics: Tensor) -> Tensor:
        """The error rate of summed counts (0-d float64)."""
        return error_rate(torch.stack(statistics, -1))

    def packed_score(self, summed: np.ndarray) -> np.ndarray:
        """The error rate (in points, as the significance tests take scores) of summed ``(..., 4)`` counts."""
        rates: np.ndarray = 100 * error_rate(torch.from_numpy(np.asarray(summed))).numpy()
        return rates

    def measures(self) -> ErrorMeasures:
        """jiwer's WER (or CER), MER, WIL and WIP of everything added so far, of every rank (synced as
        ``compute()`` syncs), each a 0-d float64 tensor.

        Example:
            >>> metric = WERScore()
            >>> metric.update(["a b c x"], ["a b c d"])
            >>> [round(value.item(), 4) for value in metric.measures()]   # wer, mer, wil, wip
            [0.25, 0.25, 0.4375, 0.5625]
        """
        with self.sync_context(dist_sync_fn=self.dist_sync_fn, should_sync=self._to_sync, should_unsync=True):
            return measures_of(torch.stack([getattr(self, name) for name in self.state_names], -1))


class CERScore(WERScore):
    """Corpus CER over ``update`` calls, as ``jiwer.cer`` computes it (lower is better).

    As :class:`WERScore`, with characters for words: strings are stripped at both ends and every code
    point counts (``cer_default``); rows of ids count each id as one unit; with ``detokenizer``, the
    characters of the decoded text count.

    Example:
        >>> metric = CERScore()
        >>> metric.update(["kitten"], ["sitting"])
        >>> round(metric.compute().item(), 4)   # jiwer.cer("sitting", "kitten")
        0.4286
    """

    config_class = CERConfig
    config: CERConfig

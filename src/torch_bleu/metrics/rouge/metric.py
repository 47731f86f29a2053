"""``ROUGEScore``: the mean ROUGE of sentences as a ``torchmetrics.Metric``, summed exactly across ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from ...threads import within_cpu_share
from ..base import CountingMetric, CountingMetricArguments
from ..queued_text import QUEUE, QueuedBatches
from .bootstrap import AggregateScore as AggregateScore
from .bootstrap import RougeIntervals, rouge_bootstrap
from .bootstrap import Score as Score
from .config import ROUGEConfig, ROUGEOptions
from .counting import ids_statistics, sentence_statistics
from .score import LIMB_BITS, LIMBS, SCALE_BITS, fixed_point, mean_of_fixed_point, rouge_scores
from .sentence_splitting import SentencesSeen
from .states import check_packed_states, check_sentence_limit, check_weight_limit

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack

    from ...inputs.kinds import TokenIds


class ROUGEScoreOptions(ROUGEOptions, CountingMetricArguments, total=False):
    """What :class:`ROUGEScore` takes by name: its options and torchmetrics' arguments."""


class ROUGEScore(CountingMetric):
    """Mean ROUGE of the sentences of ``update`` calls, each sentence scored as rouge-score scores it.

    ``update(preds, target, weight=None)`` takes the predictions first, then their references: strings
    (one reference, or a list of them per prediction), rows of token ids (each id a word), or, with
    ``detokenizer``, subword ids whose decoded text counts. ``compute()`` gives a dict keyed
    ``f"{rouge_type}_{precision|recall|fmeasure}"`` of 0-d float64 means over the sentences (each
    repeated by its ``weight``).

    The states are int64: ``statistics`` ``(T, 3)`` (hits, prediction and reference counts of each
    type, summed), ``score_sums`` ``(T, 3, 2)`` (each sentence's precision, recall and F-measure as
    fixed-point integers, summed: exact and independent of the order of the sentences, ranks and
    batches, see :mod:`~torch_bleu.metrics.rouge.score`) and ``sentences``. They hold up to
    :data:`~torch_bleu.metrics.rouge.score.MAX_SENTENCES` (``2**35 - 1``) sentences, counting each by its
    weight: on the CPU ``update`` refuses weights beyond that and ``compute()`` sums beyond it; on an
    accelerator, where reading the weights would wait for the device, keeping within it is the caller's
    part. Merged and loaded states are checked to be what sentences give
    (:mod:`~torch_bleu.metrics.rouge.states`). With ``keep_sentences=True``, each sentence's statistics
    are kept too: :meth:`confidence_interval` gives rouge-score's bootstrap intervals of every type,
    and the paired tests (:func:`torch_bleu.paired_bootstrap`, :func:`torch_bleu.paired_randomization`)
    compare the mean F-measure of the first ROUGE type (:meth:`score`).

    Args:
        **options: ``rouge_types``, ``use_stemmer``, ``tokenize``, ``accumulate``, ``sentence_sep_id``,
            ``split_sentences``, ``convention`` (``"coco"``: pycocoevalcap's ROUGE-L of captions), and
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
        >>> round(scores["rouge1_fmeasure"].item(), 4)  # Hugging Face evaluate's scores["rouge1"]
        0.8167
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
        # what this metric's summaries said of their sentences, for the warning that rougeLsum equals rougeL
        self._sentences_seen = SentencesSeen.wanted(self.config.types, self.config.split_sentences)

    def statistics_shapes(self) -> Sequence[tuple[int, ...]]:
        """``(T, 3)`` integer statistics, ``(T, 3, 2)`` fixed-point scores, and a count of sentences."""
        types = len(self.config.types)
        return ((types, 3), (types, 3, LIMBS), ())

    def sentence_statistics(self, preds: Any, target: Any) -> tuple[Tensor, ...]:
        """Each sentence's ``(B, T, 3)`` statistics, ``(B, T, 3, 2)`` fixed-point scores and ``(B,)`` ones."""
        return self._states(*sentence_statistics(preds, target, self.config, self._sentences_seen))

    def ids_statistics(self, ids: TokenIds) -> tuple[Tensor, ...]:
        """The statistics, fixed-point scores and ones of every sentence of a checked batch of ids."""
        return self._states(*ids_statistics(ids, self.config, self._sentences_seen))

    @staticmethod
    def _states(statistics: Tensor, scores: Tensor) -> tuple[Tensor, ...]:
        """A sentence's statistics and scores as the states count them: fixed-point scores, and a 1."""
        return statistics, fixed_point(scores), torch.ones_like(statistics[:, 0, 0])

    def compute(self) -> dict[str, Tensor]:  # type: ignore[override]
        """The mean scores of everything added so far (of every rank): a dict of 0-d float64 tensors.

        The first ``compute()`` after summaries of which none had a second sentence warns that ``rougeLsum``
        equals ``rougeL`` (once per metric; :mod:`~torch_bleu.metrics.rouge.sentence_splitting`).
        """
        check_sentence_limit(self.sentences)  # reading a state counts queued text; merged or synced sums too
        means = mean_of_fixed_point(self.score_sums, self.sentences)
        if self._sentences_seen is not None:
            self._sentences_seen.warn()
        return self.config.results(means.reshape(-1).unbind(0))

    def _checked_rows(self, batch: int, weight: Tensor | None, indices: Tensor | None) -> Tensor | None:
        """The base's checks, and on the CPU the limit of the summed weights (:func:`.states.check_weight_limit`),
        counting the sentences counted and queued so far without counting the queue."""
        rows = super()._checked_rows(batch, weight, indices)
        if weight is not None and weight.device.type == "cpu":
            queued: QueuedBatches = getattr(self, QUEUE)
            queued_weight = queued.weight(self.device)
            pending = len(queued) if queued_weight is None else int(queued_weight.sum())
            check_weight_limit(weight, int(self.__dict__["sentences"]) + pending)
        return rows

    def _check_states(self, states: dict[str, Any]) -> None:
        """The base's checks of merged or loaded sums, and of CPU ones what ROUGE's sums can hold (:mod:`.states`)."""
        super()._check_states(states)
        if all(name in states and states[name].device.type == "cpu" for name in self.state_names):
            packed = self.pack([states[name].long().unsqueeze(0) for name in self.state_names])
            check_packed_states(packed, len(self.config.types), kept=False, best=False)

    def _incoming_sentences(self, states: dict[str, Any]) -> list[Tensor]:
        """The base's checked kept sentences, each also a sentence that ROUGE can count (:mod:`.states`)."""
        parts = super()._incoming_sentences(states)
        best = self.config.scores_of_statistics
        for part in parts:
            check_packed_states(part[:, :-2], len(self.config.types), kept=True, best=best)
        return parts

    @within_cpu_share
    def confidence_interval(
        self, resamples: int = 1000, seed: int | None = 12345, *, confidence: float = 0.95
    ) -> RougeIntervals:
        """rouge-score's bootstrap intervals of the kept sentences (of every rank): for every ROUGE type, an
        :class:`~torch_bleu.metrics.rouge.bootstrap.AggregateScore` ``(low, mid, high)``, each a
        :class:`~torch_bleu.metrics.rouge.bootstrap.Score` ``(precision, recall, fmeasure)``, with
        rouge-score's field names (``intervals["rougeL"].mid.fmeasure``).

        Needs ``keep_sentences=True``. The result equals rouge-score's
        ``BootstrapAggregator(confidence, resamples).aggregate()`` after ``np.random.seed(seed)``, with
        the sentences' scores added in order (dataset order when ``update`` got indices, each sentence
        repeated by its weight): :func:`~torch_bleu.metrics.rouge.bootstrap.rouge_bootstrap` on scores
        recomputed from the kept integer statistics, exactly rouge-score's (with ``accumulate="avg"``,
        the kept fixed-point scores, within ``2**-57`` of each). ``mid`` is the median of the resampled
        means, not ``compute()``'s mean. ``seed=None`` draws fresh entropy; NumPy's global random state
        is left as it was.

        Example:
            >>> metric = ROUGEScore(rouge_types=("rouge1",), keep_sentences=True)
            >>> metric.update(["the cat sat", "a dog", "hello"], ["the cat sat down", "the dog", "hello world"])
            >>> low, mid, high = metric.confidence_interval(resamples=100, seed=0)["rouge1"]
            >>> [round(value, 4) for value in mid]
            [0.8333, 0.5833, 0.6746]
            >>> round(metric.confidence_interval(resamples=100, seed=0)["rouge1"].mid.fmeasure, 4)
            0.6746
        """
        statistics = self.kept_corpus().statistics.cpu()
        types = len(self.config.types)
        if self.config.scores_of_statistics:
            scores = rouge_scores(statistics[:, : 3 * types].reshape(-1, types, 3)).numpy()
        else:
            high, low = statistics[:, 3 * types : 3 * types * (1 + LIMBS)].reshape(-1, types, 3, LIMBS).unbind(-1)
            scores = (high.double() * 2.0 ** (LIMB_BITS - SCALE_BITS) + low.double() * 2.0**-SCALE_BITS).numpy()
        by_type: dict[str, np.ndarray] = {
            rouge_type: scores[:, position] for position, rouge_type in enumerate(self.config.types)
        }
        return rouge_bootstrap(by_type, resamples=resamples, confidence=confidence, seed=seed)

    def score(self, *statistics: Tensor) -> Tensor:
        """The mean F-measure of the first ROUGE type of summed states (0-d float64): the score that the
        paired tests compare."""
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

"""Paired significance tests of metrics that keep their sentences (``keep_sentences=True``).

Each metric gives its kept sentences as a corpus (:meth:`~torch_bleu.metrics.base.CountingMetric.kept_corpus`:
gathered across DDP ranks as ``compute()`` gathers the sums, in dataset order), and the tests run
on them in :mod:`torch_bleu.significance`, the code of the command line's tests, with the metric's
:meth:`~torch_bleu.metrics.base.CountingMetric.packed_score` as the scorer: so the p-values are those of
``torch-bleu`` and of sacrebleu (``--paired-bs``, ``--paired-ar``) on the same sentences in the same
order, with the same seed. A metric's own interval is its
:meth:`~torch_bleu.metrics.base.CorpusScoreMetric.confidence_interval`. ROUGE metrics are tested on their
score, the mean F-measure of their first ROUGE type (:meth:`torch_bleu.ROUGEScore.score`).

The sentences are ordered and weighted on the metric's device; the resampling runs in NumPy on the
host, whose random generator draws sacrebleu's resamples (``K x N x F`` int64 statistics are
copied there once). Scores, means and intervals are on the 0..1 scale, as ``compute()`` gives them.

Example:
    >>> from torch_bleu import CHRFScore, paired_bootstrap
    >>> references = ["the cat sat on the mat", "a dog barked", "it rains", "hello world"]
    >>> baseline, system = CHRFScore(keep_sentences=True), CHRFScore(keep_sentences=True)
    >>> baseline.update(["the cat sat", "a dog", "it rained", "hello"], references)
    >>> system.update(["the cat sat on a mat", "a dog barked", "it rains", "hello world"], references)
    >>> [result] = paired_bootstrap(baseline, system, resamples=200)
    >>> round(result.score, 4), round(result.p_value, 4)
    (0.8505, 0.005)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch

from .. import significance
from ..threads import within_cpu_share
from .base import CountingMetric
from .sentences import KeptCorpus


class BootstrapComparison(NamedTuple):
    """A metric against the baseline by paired bootstrap resampling (on the 0..1 scale).

    Attributes:
        score: the metric's score, ``compute()``'s value.
        p_value: the probability of a difference to the baseline at least as large as the one observed,
            were the two systems equally good.
        mean: the mean score of the bootstrap resamples.
        ci: the half-width of the 95% interval of the resampled scores.
    """

    score: float
    p_value: float
    mean: float
    ci: float


class RandomizationComparison(NamedTuple):
    """A metric against the baseline by approximate randomization (``score`` on the 0..1 scale).

    Attributes:
        score: the metric's score, ``compute()``'s value.
        p_value: the share of random swaps of the two systems' sentences whose difference is at least as
            large as the one observed.
    """

    score: float
    p_value: float


@within_cpu_share
def paired_bootstrap(
    baseline: CountingMetric, *metrics: CountingMetric, resamples: int = 1000, seed: int | None = 12345
) -> list[BootstrapComparison]:
    """Paired bootstrap resampling of each of ``metrics`` against ``baseline``, all with kept sentences.

    The p-values, means and intervals are sacrebleu's ``--paired-bs -pbsn resamples`` with the
    baseline's system first (means and intervals to about 1e-6, as in
    :meth:`~torch_bleu.metrics.base.CorpusScoreMetric.confidence_interval`).
    The metrics must be of one kind with the same options, and hold the same sentences: as many, and
    with dataset indices, the same ones. ``baseline.confidence_interval(resamples, seed)`` gives the
    baseline's own line of sacrebleu's table (the resamples are the same), but for ROUGE, whose
    interval is rouge-score's; ROUGE metrics compare on the mean F-measure of their first type.

    Example:
        >>> from torch_bleu import BLEUScore
        >>> references = ["the cat sat on the mat", "a dog barked at me", "it rains in spring"]
        >>> first, second = (BLEUScore(tokenize="13a", keep_sentences=True) for _ in range(2))
        >>> first.update(["the cat sat on a mat", "a dog barked", "it rained in spring"], references)
        >>> second.update(["the cat sat on the mat", "a dog barked at me", "it rains in spring"], references)
        >>> [(round(r.score, 4), round(r.p_value, 4)) for r in paired_bootstrap(first, second, resamples=100)]
        [(1.0, 0.0099)]
    """
    significance.check_draws("resamples", resamples, seed)
    kept, packed = _paired(baseline, metrics)
    result = significance.statistics_bootstrap(packed, baseline.packed_score, resamples, seed)
    assert result.means is not None and result.cis is not None  # a bootstrap gives both
    return [
        BootstrapComparison(kept[system].score, float(p_value), float(mean) / 100, float(ci) / 100)
        for system, (p_value, mean, ci) in enumerate(zip(result.p_values, result.means, result.cis))
        if system > 0
    ]


@within_cpu_share
def paired_randomization(
    baseline: CountingMetric, *metrics: CountingMetric, trials: int = 10000, seed: int | None = 12345
) -> list[RandomizationComparison]:
    """Paired approximate randomization of each of ``metrics`` against ``baseline``, all with kept sentences.

    The p-values are sacrebleu's ``--paired-ar -parn trials`` with the baseline's system first;
    the metrics must be as for :func:`paired_bootstrap`.

    Example:
        >>> from torch_bleu import TERScore
        >>> references = ["a b c d", "b c d e", "c d e f", "d e f g"]
        >>> baseline, system = TERScore(keep_sentences=True), TERScore(keep_sentences=True)
        >>> baseline.update(["a c d", "b d", "c d e", "g f e d"], references)
        >>> system.update(["a b c d", "b c d e", "c d e f", "d e f"], references)
        >>> [(round(r.score, 4), round(r.p_value, 4)) for r in paired_randomization(baseline, system, trials=1000)]
        [(0.0625, 0.001)]
    """
    significance.check_draws("trials", trials, seed)
    kept, packed = _paired(baseline, metrics)
    result = significance.statistics_randomization(packed, baseline.packed_score, trials, seed)
    return [
        RandomizationComparison(kept[system].score, float(p_value))
        for system, p_value in enumerate(result.p_values)
        if system > 0
    ]


def _paired(baseline: CountingMetric, metrics: Sequence[CountingMetric]) -> tuple[list[KeptCorpus], np.ndarray]:
    """Every metric's corpus and score, and the ``(K, N, F)`` statistics the tests take, checked to be comparable."""
    if not metrics:
        raise ValueError("give the baseline and at least one metric to compare with it")
    if not isinstance(baseline, CountingMetric):
        raise TypeError(f"expected a metric of torch_bleu as the baseline, got {type(baseline).__name__}")
    for metric in metrics:
        _check_comparable(baseline, metric)
    kept = [metric.kept_corpus() for metric in (baseline, *metrics)]
    sizes = [len(each.statistics) for each in kept]
    if len(set(sizes)) > 1:
        raise ValueError(
            f"the metrics hold different numbers of sentences ({', '.join(map(str, sizes))}): a paired "
            "test compares two systems' outputs for the same sentences"
        )
    indices = [each.indices for each in kept]
    if any(index is None for index in indices) and any(index is not None for index in indices):
        raise ValueError("some metrics were given dataset indices and others not: give them to all, or to none")
    for position, index in enumerate(indices[1:], 1):
        if index is not None and not torch.equal(index.cpu(), indices[0].cpu()):  # type: ignore[union-attr]
            raise ValueError(
                f"metric {position} holds other sentences than the baseline (their dataset indices differ)"
            )
    packed = np.stack([each.statistics.cpu().numpy() for each in kept])
    return kept, packed


def _check_comparable(baseline: CountingMetric, metric: CountingMetric) -> None:
    if type(metric) is not type(baseline):
        raise TypeError(f"cannot compare a {type(metric).__name__} with a {type(baseline).__name__} baseline")
    counted = baseline.config.counted_otherwise(metric.config.fingerprint())
    if counted is not None and counted[0]:
        raise ValueError(f"the metrics count otherwise: {counted[0]} against the baseline's {counted[1]}")
    counting = baseline.config.counting()
    differing = [
        name
        for name in baseline.config.option_names()
        if name not in counting and getattr(metric.config, name) != getattr(baseline.config, name)
    ]
    if differing:
        values = ", ".join(
            f"{name}={getattr(metric.config, name)!r} against {getattr(baseline.config, name)!r}" for name in differing
        )
        raise ValueError(f"the metrics score otherwise than the baseline: {values}")

"""Paired significance tests of any metric, run as vectorized array operations on per-sentence statistics.

A metric enters as two things: each sentence's statistics (integers, which add up over a corpus)
and a function that scores summed statistics (:func:`statistics_bootstrap`, :func:`statistics_randomization`;
metrics that keep their sentences are compared by :func:`torch_bleu.paired_bootstrap` and
:func:`torch_bleu.paired_randomization`, which run these). Both tests compare every system with a baseline
(system 0), following sacrebleu's ``significance`` module (itself after Moses'
``bootstrap-hypothesis-difference-significance.pl`` and multeval):

* **Paired bootstrap resampling.** Draw ``n`` corpora of ``B`` sentence indices with replacement; score
  every system on every resample. The p-value counts how often the mean-centred absolute score
  difference to the baseline exceeds the observed difference. Each system also gets the bootstrap
  mean and the half-width of the 95% confidence interval.
* **Approximate randomization.** In each of ``n`` trials, swap the baseline's and the system's
  statistics on a random half of the sentences; the p-value counts how often the absolute difference of
  the two shuffled corpora exceeds the observed one.

In both, ``p = (count + 1) / (n + 1)``.

The random draws come from NumPy's ``default_rng(seed)``, drawn in the same order and shapes as
sacrebleu draws them, so with the same seed (``SACREBLEU_SEED``, 12345 by default) the resamples
and trials are exactly sacrebleu's. Everything else is batched array work: a resample (or trial) is a
row of counts (or of 0/1 swaps) and one matrix product sums the statistics of all systems at once,
a chunk of rows at a time, so memory stays bounded for any number of samples. Statistics are integers
and the products are exact (float32 only when every partial sum stays below 2**24, else float64).

The tests run on the host, in NumPy: the statistics are small (``K x B x F`` integers, from
any device), and the command line can then run them without importing PyTorch.

Example (the statistics of a word accuracy: correct words, words):
    >>> import numpy as np
    >>> def accuracy(summed):
    ...     return 100 * summed[..., 0] / summed[..., 1]
    >>> packed = np.array([[[4, 4], [4, 4], [3, 4]], [[2, 4], [4, 4], [1, 4]]])  # (systems, sentences, 2)
    >>> result = statistics_bootstrap(packed, accuracy, n_samples=100)
    >>> [round(score, 2) for score in result.scores.tolist()]
    [91.67, 58.33]
    >>> result.p_values.tolist()[1] <= 1.0
    True
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from .threads import cpu_share

#: Score differences (in points of the score) closer than this count as ties, so that float rounding in two
#: different evaluation orders of the same statistics never decides a comparison.
TIE_TOLERANCE = 1e-9

#: How many elements one chunk of resamples or trials may hold (rows x sentences).
DEFAULT_CHUNK_ELEMENTS = 2**18

Progress = Callable[[int], None] | None

#: Scores ``(...)`` of summed statistics ``(..., F)``.
Scorer = Callable[[np.ndarray], np.ndarray]


class PairedResult(NamedTuple):
    """Per-system results of a paired test; system 0 is the baseline. All float64 NumPy arrays.

    Attributes:
        scores: ``(K,)`` the corpus score of every system.
        p_values: ``(K,)`` p-value against the baseline; NaN for the baseline itself.
        means: ``(K,)`` bootstrap estimate of the true mean, or ``None`` (approximate randomization).
        cis: ``(K,)`` half-width of the 95% bootstrap confidence interval around it, or ``None``.
    """

    scores: np.ndarray
    p_values: np.ndarray
    means: np.ndarray | None = None
    cis: np.ndarray | None = None


def exact_float_dtype(bound: float) -> type:
    """The float type in which integer sums bounded by ``bound`` stay exact: float32 when ``bound < 2**24``,
    else float64.

    Example:
        >>> exact_float_dtype(60_000).__name__, exact_float_dtype(2**24).__name__
        ('float32', 'float64')
    """
    return np.float32 if bound < 2**24 else np.float64


def count_exceeding(differences: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """How many rows of ``differences`` ``(S, K)`` exceed ``observed`` ``(K,)`` (beyond :data:`TIE_TOLERANCE`)."""
    exceeding: np.ndarray = (differences > observed + TIE_TOLERANCE).sum(axis=0)
    return exceeding


def p_values(counts: np.ndarray, n: int) -> np.ndarray:
    """``(count + 1) / (n + 1)``, with NaN for the baseline (position 0)."""
    values = (counts + 1.0) / (n + 1)
    values[0] = np.nan
    return values


def confidence_intervals(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and half-width of the 95% interval of ``samples`` ``(S, K)``, per column.

    The bounds are the order statistics ``S // 40`` and ``S - S // 40 - 1``, as sacrebleu takes them.

    Example:
        >>> mean, ci = confidence_intervals(np.arange(80.0).reshape(80, 1))
        >>> mean.tolist(), ci.tolist()
        ([39.5], [37.5])
    """
    ordered = np.sort(samples, axis=0)
    lower = samples.shape[0] // 40
    upper = samples.shape[0] - lower - 1
    return samples.mean(axis=0), 0.5 * (ordered[upper] - ordered[lower])


def _product(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``left @ right`` on the library's share of NumPy's BLAS threads (:func:`~torch_bleu.threads.cpu_share`)."""
    with cpu_share(blas=True):
        product: np.ndarray = left @ right
    return product


def check_draws(samples_name: str, samples: object, seed: object) -> None:
    """Refuse a number of resamples or trials (the argument ``samples_name``) that is not a positive integer,
    and a ``seed`` that is neither ``None`` nor a non-negative integer.

    Example:
        >>> check_draws("resamples", 1000, seed=-1)
        Traceback (most recent call last):
        ...
        ValueError: seed must be None or a non-negative integer (NumPy's default_rng seed), got -1
    """
    if isinstance(samples, bool) or not isinstance(samples, numbers.Integral) or samples < 1:
        raise ValueError(f"{samples_name} must be a positive integer, got {samples!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative integer (NumPy's default_rng seed), got {seed!r}")


def checked_statistics(packed: object, minimum_systems: int) -> np.ndarray:
    """``packed`` as a ``(K, B, F)`` int64 array, refusing anything else with a message that says what it got.

    Example:
        >>> checked_statistics(np.array([[0.5, 2.0]]), minimum_systems=1)
        Traceback (most recent call last):
        ...
        TypeError: packed must hold integer statistics (counts, which add up exactly), got float64
    """
    array = np.asarray(packed)
    if array.dtype.kind not in "iu":
        raise TypeError(f"packed must hold integer statistics (counts, which add up exactly), got {array.dtype}")
    if array.ndim != 3:
        raise ValueError(f"packed must be 3-D, (systems, sentences, statistics of a sentence), got shape {array.shape}")
    num_systems, num_sentences, _ = array.shape
    if num_systems < minimum_systems:
        raise ValueError(
            f"the test needs at least {minimum_systems} system(s), the first being the baseline; packed has "
            f"{num_systems}"
        )
    if num_sentences < 1:
        raise ValueError("the test needs at least one sentence; packed has none")
    return array.astype(np.int64, copy=False)


def _chunk_rows(num_sentences: int, chunk_elements: int, multiple: int = 32) -> int:
    # a multiple of 32 keeps NumPy's stream of random bits identical to one big draw
    rows = chunk_elements // max(num_sentences, 1) // multiple * multiple
    return max(rows, multiple)


def bootstrap_indices(
    num_sentences: int, n_samples: int, seed: int | None, chunk_elements: int = DEFAULT_CHUNK_ELEMENTS
) -> Iterator[np.ndarray]:
    """Resampled sentence indices, ``(rows, B)`` int64 chunks of sacrebleu's ``(n_samples, B)`` draw.

    Example:
        >>> chunks = list(bootstrap_indices(5, 3, seed=12345, chunk_elements=10))
        >>> [tuple(chunk.shape) for chunk in chunks]
        [(3, 5)]
    """
    rng = np.random.default_rng(seed)
    step = _chunk_rows(num_sentences, chunk_elements)
    for start in range(0, n_samples, step):
        rows = min(step, n_samples - start)
        yield rng.integers(0, num_sentences, size=(rows, num_sentences))


def randomization_swaps(
    num_sentences: int, n_samples: int, seed: int | None, chunk_elements: int = DEFAULT_CHUNK_ELEMENTS
) -> Iterator[np.ndarray]:
    """Which sentences each trial takes from the baseline: ``(rows, B)`` bool chunks of sacrebleu's draw."""
    rng = np.random.default_rng(seed)
    step = _chunk_rows(num_sentences, chunk_elements)
    for start in range(0, n_samples, step):
        rows = min(step, n_samples - start)
        yield rng.integers(2, size=(rows, num_sentences), dtype=bool)


def statistics_bootstrap(
    packed: np.ndarray,
    score: Scorer,
    n_samples: int = 1000,
    seed: int | None = 12345,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    progress: Progress = None,
) -> PairedResult:
    """Paired bootstrap resampling test of systems ``1..K-1`` against system 0, on their per-sentence
    statistics (that of metrics which keep their sentences is :func:`torch_bleu.paired_bootstrap`).

    Args:
        packed: ``(K, B, F)`` integer statistics of every sentence of ``K`` systems (for BLEU,
            :func:`~torch_bleu.metrics.bleu.statistics.pack_statistics`); they are summed, never
            rounded, so floats are refused.
        score: the metric's score of summed statistics ``(..., F)``, a function vectorized over any
            leading dimensions (for BLEU, :func:`~torch_bleu.metrics.bleu.command_line.packed_bleu`).
        n_samples: number of bootstrap resamples.
        seed: seed of NumPy's ``default_rng``; ``None`` draws fresh entropy.
        chunk_elements: resamples are processed ``chunk_elements // B`` at a time.
        progress: called with the number of resamples finished after each chunk.

    With one system (``K = 1``) this is a plain bootstrap confidence estimate (sacrebleu's ``-ci``).
    """
    check_draws("n_samples", n_samples, seed)
    packed = checked_statistics(packed, minimum_systems=1)
    num_systems, num_sentences, width = packed.shape
    # a resample sums B rows, so its sums are bounded by B times the largest entry
    dtype = exact_float_dtype(num_sentences * np.abs(packed).max())
    # (B, K*D): every system's statistics side by side, one row per sentence
    columns: np.ndarray = packed.transpose(1, 0, 2).reshape(num_sentences, num_systems * width).astype(dtype)
    samples = []
    for indices in bootstrap_indices(num_sentences, n_samples, seed, chunk_elements):
        rows = indices.shape[0]
        flat = (indices + num_sentences * np.arange(rows).reshape(rows, 1)).reshape(-1)
        counts: np.ndarray = np.bincount(flat, minlength=rows * num_sentences)
        counts = counts.reshape(rows, num_sentences).astype(dtype)
        samples.append(score(_product(counts, columns).reshape(rows, num_systems, width)))
        if progress is not None:
            progress(rows)
    scores_per_sample = np.concatenate(samples)  # (S, K)

    scores = score(packed.sum(axis=1))
    differences = np.abs(scores_per_sample - scores_per_sample[:, :1])
    centred = differences - differences.mean(axis=0)
    observed = np.abs(scores - scores[0])
    means, cis = confidence_intervals(scores_per_sample)
    return PairedResult(scores, p_values(count_exceeding(centred, observed), n_samples), means, cis)


def statistics_randomization(
    packed: np.ndarray,
    score: Scorer,
    n_samples: int = 10000,
    seed: int | None = 12345,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    progress: Progress = None,
) -> PairedResult:
    """Paired approximate randomization test of systems ``1..K-1`` against system 0, on their per-sentence
    statistics (that of metrics which keep their sentences is :func:`torch_bleu.paired_randomization`).

    Arguments as for :func:`statistics_bootstrap`; here ``n_samples`` counts the trials, each a random shuffle
    (sacrebleu's ``--paired-ar-n``; sacrebleu names the number of samples ``n_samples`` in both tests).
    A trial's pseudo-systems are ``a = system + swaps @ (baseline - system)`` and
    ``b = baseline - swaps @ (baseline - system)``, so one matrix product per chunk serves every system.
    """
    check_draws("n_samples", n_samples, seed)
    packed = checked_statistics(packed, minimum_systems=2)
    num_systems, num_sentences, width = packed.shape
    gaps = packed[:1] - packed[1:]  # (K-1, B, D): baseline minus system, per sentence
    # a trial adds a subset of the gaps, so its sums are bounded by the sum of their sizes
    dtype = exact_float_dtype(np.abs(gaps).sum(axis=1).max())
    gap_columns = gaps.transpose(1, 0, 2).reshape(num_sentences, -1).astype(dtype)  # (B, (K-1)*D)
    totals = packed.sum(axis=1).astype(np.float64)  # (K, D)
    scores = score(totals)
    observed = np.abs(scores[1:] - scores[0])

    exceeding = np.zeros(num_systems - 1, dtype=np.int64)
    for swaps in randomization_swaps(num_sentences, n_samples, seed, chunk_elements):
        moved = _product(swaps.astype(dtype), gap_columns).reshape(-1, num_systems - 1, width).astype(np.float64)
        shuffled_system = score(totals[1:] + moved)
        shuffled_baseline = score(totals[:1] - moved)
        exceeding += count_exceeding(np.abs(shuffled_system - shuffled_baseline), observed)
        if progress is not None:
            progress(swaps.shape[0])
    return PairedResult(scores, p_values(np.concatenate([[0], exceeding]), n_samples))

"""Paired significance tests for BLEU, run as tensor operations on per-sentence statistics.

Both tests compare every system with a baseline (system 0), following sacrebleu's ``significance``
module (itself after Moses' ``bootstrap-hypothesis-difference-significance.pl`` and multeval):

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
and trials are exactly sacrebleu's. Everything else is batched tensor work: a resample (or trial) is a
row of counts (or of 0/1 swaps) and one matrix product sums the statistics of all systems at once,
a chunk of rows at a time, so memory stays bounded for any number of samples. Statistics are integers
and the products are exact (float32 only when every partial sum stays below 2**24, else float64).

Example:
    >>> import torch
    >>> from torch_bleu import BLEUConfig, sentence_statistics
    >>> hyp = torch.tensor([[[1, 2, 3, 4], [5, 6, 7, 8]], [[1, 2, 3, 9], [5, 6, 9, 9]]])  # (systems, B, L)
    >>> ref = torch.tensor([[[1, 2, 3, 4]], [[5, 6, 7, 8]]])
    >>> stats = stack_statistics([sentence_statistics(h, ref, max_order=2) for h in hyp])
    >>> result = paired_bootstrap(stats, BLEUConfig(max_order=2), n_samples=100)
    >>> [round(score, 2) for score in result.scores.tolist()]
    [100.0, 55.9]
    >>> result.p_values.tolist()[1] <= 1.0
    True
"""

from __future__ import annotations

from typing import Callable, Iterator, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import torch
from torch import Tensor

from .config import BLEUConfig
from .ngrams import SentenceStatistics
from .score import bleu_from_statistics

#: Score differences (in BLEU points) closer than this count as ties, so that float rounding in two
#: different evaluation orders of the same statistics never decides a comparison.
TIE_TOLERANCE = 1e-9

#: How many elements one chunk of resamples or trials may hold (rows x sentences).
DEFAULT_CHUNK_ELEMENTS = 2**22

Progress = Optional[Callable[[int], None]]


class PairedResult(NamedTuple):
    """Per-system results of a paired test; system 0 is the baseline.

    Attributes:
        scores: ``(K,)`` corpus BLEU (0..100) of every system.
        p_values: ``(K,)`` p-value against the baseline; NaN for the baseline itself.
        means: ``(K,)`` bootstrap estimate of the true mean, or ``None`` (approximate randomization).
        cis: ``(K,)`` half-width of the 95% bootstrap confidence interval around it, or ``None``.
    """

    scores: Tensor
    p_values: Tensor
    means: Optional[Tensor] = None
    cis: Optional[Tensor] = None


def stack_statistics(per_system: Sequence[SentenceStatistics]) -> SentenceStatistics:
    """Stack the statistics of ``K`` systems on the same ``B`` sentences into ``(K, B, ...)`` fields."""
    return SentenceStatistics(*(torch.stack(field) for field in zip(*per_system)))


def pack_statistics(stats: SentenceStatistics) -> Tensor:
    """``(..., 2 + 2N)`` int64 rows ``[preds_len, target_len, matches..., totals...]`` (sacrebleu's layout).

    Example:
        >>> stats = SentenceStatistics(torch.tensor([[2, 1]]), torch.tensor([[3, 2]]), torch.tensor([3]),
        ...                            torch.tensor([4]))
        >>> pack_statistics(stats).tolist()
        [[3, 4, 2, 1, 3, 2]]
    """
    lengths = torch.stack([stats.preds_len, stats.target_len], dim=-1)
    return torch.cat([lengths, stats.matches, stats.totals], dim=-1)


def packed_bleu(packed: Tensor, config: BLEUConfig) -> Tensor:
    """BLEU (0..100, float64) of summed packed statistics ``(..., 2 + 2N)``."""
    order = (packed.shape[-1] - 2) // 2
    return 100.0 * bleu_from_statistics(
        packed[..., 2 : 2 + order], packed[..., 2 + order :], packed[..., 0], packed[..., 1], config
    )


def exact_float_dtype(bound: float, device: torch.device) -> torch.dtype:
    """The float type in which integer sums bounded by ``bound`` stay exact: float32 on the CPU when
    ``bound < 2**24``, else float64 (always float64 on accelerators, where float32 products may run in
    reduced precision).

    Example:
        >>> exact_float_dtype(60_000, torch.device("cpu")), exact_float_dtype(2**24, torch.device("cpu"))
        (torch.float32, torch.float64)
    """
    return torch.float32 if device.type == "cpu" and bound < 2**24 else torch.float64


def count_exceeding(differences: Tensor, observed: Tensor) -> Tensor:
    """How many rows of ``differences`` ``(S, K)`` exceed ``observed`` ``(K,)`` (beyond :data:`TIE_TOLERANCE`)."""
    return (differences > observed + TIE_TOLERANCE).sum(0)


def p_values(counts: Tensor, n: int) -> Tensor:
    """``(count + 1) / (n + 1)``, with NaN for the baseline (position 0)."""
    values = (counts.double() + 1.0) / (n + 1)
    values[0] = float("nan")
    return values


def confidence_intervals(samples: Tensor) -> Tuple[Tensor, Tensor]:
    """Mean and half-width of the 95% interval of ``samples`` ``(S, K)``, per column.

    The bounds are the order statistics ``S // 40`` and ``S - S // 40 - 1``, as sacrebleu takes them.

    Example:
        >>> mean, ci = confidence_intervals(torch.arange(80, dtype=torch.float64).unsqueeze(1))
        >>> mean.tolist(), ci.tolist()
        ([39.5], [37.5])
    """
    ordered = samples.sort(dim=0).values
    lower = samples.shape[0] // 40
    upper = samples.shape[0] - lower - 1
    return samples.mean(0), 0.5 * (ordered[upper] - ordered[lower])


def _check_test(n: int, num_systems: int, num_sentences: int, minimum_systems: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"the number of samples must be a positive integer, got {n!r}")
    if num_systems < minimum_systems:
        raise ValueError(f"the test needs at least {minimum_systems} system(s), the first being the baseline")
    if num_sentences < 1:
        raise ValueError("the test needs at least one sentence")


def _chunk_rows(num_sentences: int, chunk_elements: int, multiple: int = 32) -> int:
    # a multiple of 32 keeps NumPy's stream of random bits identical to one big draw
    rows = chunk_elements // max(num_sentences, 1) // multiple * multiple
    return max(rows, multiple)


def bootstrap_indices(
    num_sentences: int, n_samples: int, seed: Optional[int], chunk_elements: int = DEFAULT_CHUNK_ELEMENTS
) -> Iterator[Tensor]:
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
        yield torch.from_numpy(rng.integers(0, num_sentences, size=(rows, num_sentences)))


def randomization_swaps(
    num_sentences: int, n_trials: int, seed: Optional[int], chunk_elements: int = DEFAULT_CHUNK_ELEMENTS
) -> Iterator[Tensor]:
    """Which sentences each trial takes from the baseline: ``(rows, B)`` bool chunks of sacrebleu's draw."""
    rng = np.random.default_rng(seed)
    step = _chunk_rows(num_sentences, chunk_elements)
    for start in range(0, n_trials, step):
        rows = min(step, n_trials - start)
        yield torch.from_numpy(rng.integers(2, size=(rows, num_sentences), dtype=bool))


def paired_bootstrap(
    stats: SentenceStatistics,
    config: BLEUConfig,
    n_samples: int = 1000,
    seed: Optional[int] = 12345,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    progress: Progress = None,
) -> PairedResult:
    """Paired bootstrap resampling test of systems ``1..K-1`` against system 0.

    Args:
        stats: per-sentence statistics with fields of shape ``(K, B, ...)`` (see :func:`stack_statistics`).
        config: the BLEU options (smoothing, max order, ...).
        n_samples: number of bootstrap resamples.
        seed: seed of NumPy's ``default_rng``; ``None`` draws fresh entropy.
        chunk_elements: resamples are processed ``chunk_elements // B`` at a time.
        progress: called with the number of resamples finished after each chunk.

    With one system (``K = 1``) this is a plain bootstrap confidence estimate (sacrebleu's ``-ci``).
    """
    packed = pack_statistics(stats)  # (K, B, D)
    num_systems, num_sentences, width = packed.shape
    _check_test(n_samples, num_systems, num_sentences, minimum_systems=1)
    # a resample sums B rows, so its sums are bounded by B times the largest entry
    dtype = exact_float_dtype(num_sentences * packed.abs().amax().item(), packed.device)
    columns = packed.transpose(0, 1).reshape(num_sentences, num_systems * width).to(dtype)  # (B, K*D)
    samples = []
    for indices in bootstrap_indices(num_sentences, n_samples, seed, chunk_elements):
        indices = indices.to(packed.device)
        counts = torch.zeros(indices.shape[0], num_sentences, dtype=dtype, device=packed.device)
        counts.scatter_add_(1, indices, torch.ones_like(indices, dtype=dtype))
        resampled = (counts @ columns).view(-1, num_systems, width)
        samples.append(packed_bleu(resampled.double(), config))
        if progress is not None:
            progress(indices.shape[0])
    scores_per_sample = torch.cat(samples)  # (S, K)

    scores = packed_bleu(packed.sum(1), config)
    differences = (scores_per_sample - scores_per_sample[:, :1]).abs()
    centred = differences - differences.mean(0)
    observed = (scores - scores[0]).abs()
    means, cis = confidence_intervals(scores_per_sample)
    return PairedResult(scores, p_values(count_exceeding(centred, observed), n_samples), means, cis)


def paired_approximate_randomization(
    stats: SentenceStatistics,
    config: BLEUConfig,
    n_trials: int = 10000,
    seed: Optional[int] = 12345,
    chunk_elements: int = DEFAULT_CHUNK_ELEMENTS,
    progress: Progress = None,
) -> PairedResult:
    """Paired approximate randomization test of systems ``1..K-1`` against system 0.

    Arguments as for :func:`paired_bootstrap`, with ``n_trials`` shuffles. A trial's pseudo-systems are
    ``a = system + swaps @ (baseline - system)`` and ``b = baseline - swaps @ (baseline - system)``, so one
    matrix product per chunk serves every system.
    """
    packed = pack_statistics(stats)  # (K, B, D)
    num_systems, num_sentences, width = packed.shape
    _check_test(n_trials, num_systems, num_sentences, minimum_systems=2)
    gaps = packed[:1] - packed[1:]  # (K-1, B, D): baseline minus system, per sentence
    # a trial adds a subset of the gaps, so its sums are bounded by the sum of their sizes
    dtype = exact_float_dtype(gaps.abs().sum(1).amax().item(), packed.device)
    gap_columns = gaps.transpose(0, 1).reshape(num_sentences, -1).to(dtype)  # (B, (K-1)*D)
    totals = packed.sum(1).double()  # (K, D)
    scores = packed_bleu(totals, config)
    observed = (scores[1:] - scores[0]).abs()

    exceeding = torch.zeros(num_systems - 1, dtype=torch.int64, device=packed.device)
    for swaps in randomization_swaps(num_sentences, n_trials, seed, chunk_elements):
        swaps = swaps.to(device=packed.device, dtype=dtype)
        moved = (swaps @ gap_columns).view(-1, num_systems - 1, width).double()
        shuffled_system = packed_bleu(totals[1:] + moved, config)
        shuffled_baseline = packed_bleu(totals[:1] - moved, config)
        exceeding += count_exceeding((shuffled_system - shuffled_baseline).abs(), observed)
        if progress is not None:
            progress(swaps.shape[0])
    counts = torch.cat([exceeding.new_zeros(1), exceeding])
    return PairedResult(scores, p_values(counts, n_trials))

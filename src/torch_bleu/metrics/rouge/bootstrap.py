"""rouge-score's bootstrap confidence intervals (its ``BootstrapAggregator``), drawn from a random state of
their own.

rouge-score resamples each score type's per-sentence scores ``n_samples`` times from NumPy's global
random state, in the order the types were added: ``np.random.choice(n, size=n)`` per resample, which
draws ``randint(0, n, size=n)``. It takes each resample's mean of precision, recall and F-measure, and
returns the percentiles ``(1 - confidence) / 2``, 50 and ``(1 + confidence) / 2`` of those means (NumPy's
``percentile``, linear interpolation) as ``low``, ``mid`` and ``high``. ``mid`` is the median of the
resampled means, not the mean of the scores.

:func:`rouge_bootstrap` makes the same draws, bit for bit, from a private ``np.random.RandomState(seed)``:
its result equals ``BootstrapAggregator(confidence, resamples).aggregate()`` after
``np.random.seed(seed)``, and NumPy's global random state is left as it was. The resamples are drawn in
chunks, so memory stays within a few megabytes whatever the number of sentences.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike


class Score(NamedTuple):
    """One score, with the fields of rouge-score's ``scoring.Score`` (a tuple: it unpacks and indexes as one).

    Example:
        >>> score = Score(precision=1.0, recall=0.5, fmeasure=2 / 3)
        >>> score.recall, score[1], tuple(score) == (1.0, 0.5, 2 / 3)
        (0.5, 0.5, True)
    """

    precision: float
    recall: float
    fmeasure: float


class AggregateScore(NamedTuple):
    """An interval of one ROUGE type, with the fields of rouge-score's ``scoring.AggregateScore``: each bound
    a :class:`Score` (a tuple: ``low, mid, high = interval`` unpacks it).

    Example:
        >>> interval = AggregateScore(Score(0.5, 0.25, 1 / 3), Score(0.75, 0.5, 0.6), Score(1.0, 0.75, 0.8))
        >>> interval.mid.fmeasure, interval[2][0]
        (0.6, 1.0)
    """

    low: Score
    mid: Score
    high: Score


#: For every ROUGE type, its interval, as rouge-score's ``BootstrapAggregator.aggregate()`` gives it.
RougeIntervals = dict[str, AggregateScore]
#: The most indices one chunk of resamples draws (8 MiB of them, and as much again for their scores).
_CHUNK_INDICES = 1 << 20
#: The largest seed a legacy ``RandomState`` takes.
_MAX_SEED = 2**32 - 1


def rouge_bootstrap(
    scores: Mapping[str, ArrayLike], *, resamples: int = 1000, confidence: float = 0.95, seed: int | None = None
) -> RougeIntervals:
    """Bootstrap confidence intervals of the mean precision, recall and F-measure of every ROUGE type,
    exactly as rouge-score's ``BootstrapAggregator`` computes them after ``np.random.seed(seed)``.

    Args:
        scores: for every ROUGE type, in the order rouge-score's aggregator saw them, the scores of the
            sentences in order: an ``(n, 3)`` array of precision, recall and F-measure (``n >= 1``).
        resamples: how many resamples of the sentences (rouge-score's ``n_samples``).
        confidence: the confidence of the interval, in (0, 1) (rouge-score's ``confidence_interval``).
        seed: the seed of the draws, an integer from 0 to 2**32 - 1, as ``np.random.seed`` takes it.
            ``None`` seeds them from the operating system's entropy: every call draws anew, and the
            intervals (``mid`` too) change from run to run, as rouge-score's do when NumPy is not seeded.

    Returns:
        For every type, an :class:`AggregateScore` ``(low, mid, high)``, each a :class:`Score`
        ``(precision, recall, fmeasure)`` of floats: rouge-score's field names, so that
        ``intervals["rougeL"].mid.fmeasure`` reads as it does there.

    Raises:
        ValueError, TypeError: naming the argument that is not as described.

    Example:
        >>> import numpy as np
        >>> scores = {"rouge1": np.array([[1.0, 0.5, 2 / 3], [0.5, 0.5, 0.5], [0.0, 0.0, 0.0]])}
        >>> low, mid, high = rouge_bootstrap(scores, seed=0)["rouge1"]
        >>> [round(value, 4) for value in mid]
        [0.5, 0.3333, 0.3889]
        >>> low[0] <= mid[0] <= high[0]
        True
        >>> round(rouge_bootstrap(scores, seed=0)["rouge1"].mid.fmeasure, 4)
        0.3889
    """
    matrices = _score_matrices(scores)
    _check_options(resamples, confidence, seed)
    random_state = np.random.RandomState(seed)
    delta = (1 - confidence) / 2
    quantiles = 100 * np.array([delta, 0.5, 1 - delta])
    intervals: RougeIntervals = {}
    for rouge_type, matrix in matrices.items():
        bounds = np.percentile(_resampled_means(matrix, resamples, random_state), quantiles, axis=0)
        low, mid, high = (_score(row) for row in bounds)
        intervals[rouge_type] = AggregateScore(low, mid, high)
    return intervals


def _resampled_means(matrix: np.ndarray, resamples: int, random_state: np.random.RandomState) -> np.ndarray:
    """The mean score of each of ``resamples`` resamples of the rows of ``matrix``, drawn as rouge-score
    draws them (``randint(0, n, size=n)`` per resample), in chunks of resamples.

    Each mean sums its sentences in their drawn order, one after another, as ``np.mean`` over the rows
    of rouge-score's resample does: a running sum (``np.add.accumulate``, sequential by definition) down
    the drawn scores of a chunk, which lie one sentence per row. ``np.add.reduce`` along a contiguous
    axis would add them in pairs and round differently.
    """
    sentences = len(matrix)
    columns = np.ascontiguousarray(matrix.T)
    chunk = max(1, _CHUNK_INDICES // sentences)
    means = np.empty((resamples, len(columns)))
    for start in range(0, resamples, chunk):
        stop = min(start + chunk, resamples)
        drawn = np.ascontiguousarray(random_state.randint(0, sentences, size=(stop - start, sentences)).T)
        for measure, column in enumerate(columns):
            running = np.add.accumulate(column[drawn], axis=0)
            means[start:stop, measure] = running[-1] / sentences
    return means


def _score(row: np.ndarray) -> Score:
    precision, recall, fmeasure = map(float, row)
    return Score(precision, recall, fmeasure)


def _score_matrices(scores: Mapping[str, ArrayLike]) -> dict[str, np.ndarray]:
    if not isinstance(scores, Mapping):
        raise TypeError(f"scores: expected a mapping of ROUGE type to an (n, 3) array, got {type(scores).__name__}")
    matrices = {}
    for rouge_type, values in scores.items():
        try:
            matrix = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"scores[{rouge_type!r}]: expected an (n, 3) array of floats ({error})") from None
        if matrix.ndim != 2 or matrix.shape[1] != 3 or not len(matrix):
            raise ValueError(
                f"scores[{rouge_type!r}]: expected an (n, 3) array of precision, recall and fmeasure with n >= 1, "
                f"got shape {matrix.shape}"
            )
        matrices[rouge_type] = matrix
    return matrices


def _check_options(resamples: int, confidence: float, seed: int | None) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)):
        raise TypeError(f"resamples: expected a positive integer, got {type(resamples).__name__}")
    if resamples < 1:
        raise ValueError(f"resamples: expected a positive integer, got {resamples}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)):
        raise TypeError(f"confidence: expected a number in (0, 1), got {type(confidence).__name__}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence: expected a number in (0, 1), got {confidence}")
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed: expected None or an integer from 0 to 2**32 - 1, got {type(seed).__name__}")
    if not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"seed: expected None or an integer from 0 to 2**32 - 1, got {seed}")

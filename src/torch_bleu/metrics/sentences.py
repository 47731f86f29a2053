"""Each sentence's statistics, kept by a metric with ``keep_sentences=True`` for confidence intervals and tests.

``update`` appends one int64 row per sentence to a list state (gathered across DDP ranks by
concatenation): the sentence's statistics in the metric's packed layout (the layout the command line
resamples), then its weight and its dataset index (``-1`` when ``update`` got none). Building a row
only moves tensors: no value is read back, so ``update`` stays free of host synchronization.

When an interval or a test asks for the sentences, :func:`corpus_sentences` orders them and applies
the weights, on the rows' device, once:

* with dataset indices, rows are sorted by index, so the corpus is in dataset order however the
  sentences were split into batches and ranks; two counted rows with the same index are refused (a
  ``DistributedSampler`` repeats samples to even out the ranks: give the repeats weight 0, which also
  keeps them out of ``compute()``): by ``update`` where they come in one batch on the CPU
  (:func:`check_repeated_indices`), else when the sentences are read;
* without them, rows stay in the order they arrived: on one process the order of the ``update``
  calls; after a DDP sync, rank 0's rows, then rank 1's, and so on;
* a sentence of weight ``k`` enters the corpus ``k`` times (in its place), one of weight 0 not at all,
  as in the sums ``compute()`` scores.

Example:
    >>> import torch
    >>> rows = sentence_rows(torch.tensor([[1, 2], [3, 4], [5, 6]]), torch.tensor([1, 0, 2]), torch.tensor([7, 5, 3]))
    >>> rows.tolist()
    [[1, 2, 1, 7], [3, 4, 0, 5], [5, 6, 2, 3]]
    >>> statistics, indices = corpus_sentences(rows)
    >>> statistics.tolist(), indices.tolist()
    ([[5, 6], [5, 6], [1, 2]], [3, 3, 7])
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor

from ..arrays import is_integer
from ..errors import InputError

#: Columns a kept row has besides the statistics: the sentence's weight and its dataset index.
BOOKKEEPING_COLUMNS = 2
#: The dataset index of a row whose ``update`` got no indices.
NO_INDEX = -1
#: The most sentences a weighted corpus may have for intervals and tests, which resample it (BLEU's
#: statistics of this many sentences take 1.3 GB; each resample draws as many indices).
MAX_CORPUS_SENTENCES = 2**24


class KeptCorpus(NamedTuple):
    """A metric's kept sentences as a corpus: in order, each repeated by its weight, and its score.

    Attributes:
        statistics: ``(N, F)`` int64, one row per counted sentence, in the packed layout.
        indices: ``(N,)`` their dataset indices, or ``None`` when the updates gave none.
        score: the metric's score of the corpus, ``compute()``'s value.
    """

    statistics: Tensor
    indices: Tensor | None
    score: float


class ConfidenceInterval(NamedTuple):
    """A score with its bootstrap estimate, on the 0..1 scale.

    Attributes:
        score: the metric's score of its sentences, ``compute()``'s value.
        mean: the mean score of the bootstrap resamples.
        ci: the half-width of the 95% interval of the resampled scores (sacrebleu's ``±``).
    """

    score: float
    mean: float
    ci: float


def check_indices(indices: object, batch: int, device: torch.device) -> Tensor:
    """``indices`` as an int64 ``(batch,)`` tensor, checked from shape and dtype only (values on the CPU).

    Example:
        >>> check_indices(torch.tensor([4, 2], dtype=torch.int32), 2, torch.device("cpu")).tolist()
        [4, 2]
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"indices must be a ({batch},) integer tensor, got {type(indices).__name__}")
    if not is_integer(indices):
        raise TypeError(f"indices must hold integers, the dataset index of each sentence; got {indices.dtype}")
    if indices.shape != (batch,):
        raise ValueError(f"indices must have shape ({batch},), one entry per sentence, got {tuple(indices.shape)}")
    if indices.device != device:
        raise ValueError(f"indices are on {indices.device} but the metric is on {device}")
    if indices.device.type == "cpu" and bool((indices < 0).any()):
        raise ValueError("indices must not be negative: they are the sentences' positions in the dataset")
    return indices.long()


def check_repeated_indices(indices: Tensor, weight: Tensor | None) -> None:
    """Refuse a batch on the CPU that counts a dataset index twice (two sentences of non-zero weight with the same
    index), as the kept corpus would (:func:`corpus_sentences`). On an accelerator, where reading the indices
    would wait for the device, they are checked when the kept sentences are read, as are repeats across
    updates and ranks.

    Example:
        >>> check_repeated_indices(torch.tensor([3, 5, 3]), torch.tensor([1, 1, 0]))  # the repeat has weight 0
        >>> check_repeated_indices(torch.tensor([3, 5, 3]), None)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: dataset index 3 is counted twice in this batch; give repeated samples ...
    """
    if indices.device.type != "cpu" or indices.shape[0] < 2:
        return
    counted = indices if weight is None else indices[weight != 0]
    ordered = torch.sort(counted).values
    repeated = ordered[1:] == ordered[:-1]
    if bool(repeated.any()):
        raise InputError(
            f"dataset index {int(ordered[1:][repeated][0])} is counted twice in this batch; give repeated samples "
            "(such as those DistributedSampler adds to even out the ranks) weight 0, which also leaves them out of "
            "compute()"
        )


def check_kept_rows(rows: Tensor) -> None:
    """Refuse merged or loaded kept rows ``(n, F + 2)`` whose statistics or weights are negative (they count),
    or whose dataset index is below :data:`NO_INDEX`. Their values are read, as merges and loads may.

    Example:
        >>> check_kept_rows(torch.tensor([[1, 2, -1, 0]]))
        Traceback (most recent call last):
        ...
        ValueError: state 'kept_sentences' must not hold negative statistics or weights, as they count; got -1
    """
    if rows.device.type == "meta" or not rows.numel():
        return
    counts = rows[:, :-1]
    if bool((counts < 0).any()):
        lowest = int(counts.min())
        raise ValueError(
            f"state 'kept_sentences' must not hold negative statistics or weights, as they count; got {lowest}"
        )
    if bool((rows[:, -1] < NO_INDEX).any()):
        raise ValueError(
            f"state 'kept_sentences' holds dataset index {int(rows[:, -1].min())}: indices are positions in the "
            f"dataset, or {NO_INDEX} for none"
        )


def sentence_rows(packed: Tensor, weight: Tensor | None, indices: Tensor | None) -> Tensor:
    """The kept rows of a batch: ``(B, F + 2)`` int64, statistics ``packed`` ``(B, F)``, weight, index."""
    batch = packed.shape[0]
    ones = torch.ones(batch, dtype=torch.int64, device=packed.device)
    weights = ones if weight is None else weight.long()
    positions = ones * NO_INDEX if indices is None else indices.long()
    return torch.cat([packed.long(), weights[:, None], positions[:, None]], dim=1)


def corpus_sentences(rows: Tensor) -> tuple[Tensor, Tensor | None]:
    """The corpus the kept ``rows`` ``(M, F + 2)`` make, ``(N, F)`` statistics and ``(N,)`` dataset indices
    (``None`` without them): ordered by index, each sentence repeated by its weight, weight 0 left out."""
    statistics, weights, positions = rows[:, :-2], rows[:, -2], rows[:, -1]
    sentences = int(weights.sum())
    if not sentences:
        raise InputError(
            f"no kept sentence has a non-zero weight ({rows.shape[0]} kept, each of weight 0): the corpus is empty, "
            "so there is nothing to resample; give update() weight 1 (or more) to the sentences that count"
        )
    if sentences > MAX_CORPUS_SENTENCES:
        raise ValueError(
            f"the kept sentences weigh {sentences} in all: intervals and paired tests resample the weighted "
            f"corpus, where a sentence of weight k is k sentences, and take at most {MAX_CORPUS_SENTENCES}; "
            "give update() weights that count how often a sentence occurs (0, 1, 2, ...), or keep fewer sentences"
        )
    without = positions == NO_INDEX
    if bool(without.all()):
        return statistics.repeat_interleave(weights, dim=0), None
    if bool(without.any()):
        raise ValueError("indices were given to some updates and not to others: give them to every update or none")
    if bool((positions < 0).any()):
        raise ValueError("indices must not be negative: they are the sentences' positions in the dataset")
    order = torch.sort(positions, stable=True).indices
    statistics, weights, positions = statistics[order], weights[order], positions[order]
    counted = positions[weights > 0]
    repeated = counted[1:] == counted[:-1]
    if bool(repeated.any()):
        index = int(counted[1:][repeated][0])
        raise ValueError(
            f"dataset index {index} was counted more than once; give repeated samples (such as those "
            "DistributedSampler adds to even out the ranks) weight 0, which also leaves them out of compute()"
        )
    return statistics.repeat_interleave(weights, dim=0), positions.repeat_interleave(weights)

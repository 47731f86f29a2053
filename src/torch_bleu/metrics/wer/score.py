"""WER, CER, MER, WIL and WIP of counts (hits, substitutions, deletions, insertions), as jiwer computes them.

With ``R = H + S + D`` reference units and ``P = H + S + I`` hypothesis units:

* WER (and CER) ``= (S + D + I) / R``; with no reference unit at all, jiwer gives the number of
  insertions instead (a count, not a rate; 0 when the hypotheses are empty too), and so does this;
* MER ``= (S + D + I) / (R + I)``; with no reference unit, 1 if there are hypothesis units, else 0;
* WIP ``= (H / R) * (H / P)``, 0 with no hypothesis unit; with no reference unit, 0 if there are
  hypothesis units, else 1; WIL ``= 1 - WIP``.

Counts of a whole corpus give jiwer's corpus measures (totals over totals, not means of sentences).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch
from torch import Tensor


class ErrorMeasures(NamedTuple):
    """jiwer's measures of the same counts, float64 tensors of the counts' leading shape.

    Attributes:
        wer: word (or character) error rate, ``(S + D + I) / (H + S + D)``; lower is better.
        mer: match error rate, ``(S + D + I) / (H + S + D + I)``; lower is better.
        wil: word information lost, ``1 - wip``; lower is better.
        wip: word information preserved, ``H / (H + S + D) * H / (H + S + I)``; higher is better.
    """

    wer: Tensor
    mer: Tensor
    wil: Tensor
    wip: Tensor


def error_rate(counts: Tensor) -> Tensor:
    """WER (or CER) of counts ``(..., 4)`` (hits, substitutions, deletions, insertions) as float64: errors
    per reference unit; with no reference unit, the number of insertions (as jiwer gives it).

    Example:
        >>> error_rate(torch.tensor([[3, 1, 0, 1], [0, 0, 0, 2], [0, 0, 0, 0]])).tolist()
        [0.5, 2.0, 0.0]
    """
    hits, substitutions, deletions, insertions = counts.long().unbind(-1)
    reference = hits + substitutions + deletions
    errors = (substitutions + deletions + insertions).double()
    rate = errors / torch.where(reference > 0, reference, 1).double()
    return torch.where(reference > 0, rate, insertions.double())


def error_measures(counts: Any) -> ErrorMeasures:
    """WER, MER, WIL and WIP of counts ``(..., 4)`` (hits, substitutions, deletions, insertions), each
    float64 of shape ``(...)``, as jiwer's ``process_words`` computes them (and in its order of operations).

    Pass summed counts for corpus measures, per-sentence counts for each sentence's: a tensor, a NumPy
    array or (nested) lists of non-negative integers.

    Example:
        >>> measures = error_measures(torch.tensor([4, 1, 1, 2]))   # 6 reference words, 7 hypothesis words
        >>> [round(value.item(), 4) for value in measures]
        [0.6667, 0.5, 0.619, 0.381]
        >>> error_measures([4.0, 1, 1, 2])
        Traceback (most recent call last):
        ...
        TypeError: counts must hold integers (hits, substitutions, deletions, insertions), got torch.float32
    """
    return measures_of(checked_counts(counts))


def checked_counts(counts: Any) -> Tensor:
    """``counts`` as an integer tensor ``(..., 4)`` of non-negative counts, refused with a clear error
    otherwise (their values are read where they lie: on a device, that waits for it)."""
    what = "counts must hold integers (hits, substitutions, deletions, insertions)"
    try:
        given: Tensor = counts if isinstance(counts, Tensor) else torch.as_tensor(counts, device="cpu")
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"{what}: a tensor, a NumPy array or lists, got {type(counts).__name__}") from None
    if given.dtype == torch.bool or given.is_floating_point() or given.is_complex():
        raise TypeError(f"{what}, got {given.dtype}")
    if not given.ndim or given.shape[-1] != 4:
        raise ValueError(f"{what} in a last dimension of 4, got shape {tuple(given.shape)}")
    given = given.long()
    if given.device.type != "meta" and bool((given < 0).any()):
        raise ValueError("counts must be non-negative (and below 2**63)")
    return given


def measures_of(counts: Tensor) -> ErrorMeasures:
    """:func:`error_measures` of counts known to be right (a metric's states)."""
    hits, substitutions, deletions, insertions = counts.long().unbind(-1)
    reference = hits + substitutions + deletions
    hypothesis = hits + substitutions + insertions
    errors = (substitutions + deletions + insertions).double()
    some_reference = reference > 0
    some_hypothesis = hypothesis > 0
    mer = errors / torch.where(some_reference, reference + insertions, 1).double()
    mer = torch.where(some_reference, mer, some_hypothesis.double())
    preserved = (hits.double() / torch.where(some_reference, reference, 1).double()) * (
        hits.double() / torch.where(some_hypothesis, hypothesis, 1).double()
    )
    wip = torch.where(some_reference, torch.where(some_hypothesis, preserved, 0.0), (~some_hypothesis).double())
    return ErrorMeasures(error_rate(counts), mer, 1 - wip, wip)

"""ROUGE scores of integer statistics, as rouge-score computes them, and their exact sums.

A sentence's statistics for one ROUGE type are three integers: ``hits`` (clipped n-gram matches, the
LCS length, or the clipped union-LCS words of ``rougeLsum``), the prediction's count and the
reference's count (n-grams or words). rouge-score's scores of them, in its order of operations:

    precision = hits / max(prediction count, 1)
    recall    = hits / max(reference count, 1)
    fmeasure  = 2 * precision * recall / (precision + recall), 0 when both are 0

(rouge-score gives 0 for ``rougeL`` and ``rougeLsum`` where either side has no word: the hits are
then 0, and so is each score.) A corpus score is the mean of its sentences' scores. To keep that
mean exact across batches, DDP ranks and checkpoints, each sentence's score in ``[0, 1]`` is held as
the integer ``round(score * 2**56)`` in two int64 limbs of 28 bits (high, low): integer sums are
exact and do not depend on the order of addition, and stay below ``2**63`` for up to
:data:`MAX_SENTENCES` (``2**35 - 1``) sentences (summed weights): on the CPU, ``ROUGEScore.update``
refuses weights beyond it and ``compute()`` a sum beyond it (merged or synced); on an accelerator,
where checking would wait for the device, keeping within it is the caller's part. The rounding
moves each score by at most ``2**-57`` (7e-18), so the mean by at most that too; the mean is then
formed in float64 (``high * 2**-28 + low * 2**-56``, divided by the number of sentences): a few
units of the last place, about 1e-16.
"""

from __future__ import annotations

import torch
from torch import Tensor

#: A score in ``[0, 1]`` is held as ``round(score * 2**SCALE_BITS)``.
SCALE_BITS = 56
#: ... in two limbs of this many bits.
LIMB_BITS = 28
LIMBS = 2
#: The most sentences (summed weights) whose summed limbs fit int64: a high limb is at most ``2**28``.
MAX_SENTENCES = 2 ** (63 - LIMB_BITS) - 1


def rouge_scores(statistics: Tensor) -> Tensor:
    """Precision, recall and F-measure ``(..., 3)`` float64 of statistics ``(..., 3)`` (hits, prediction
    count, reference count), as rouge-score computes them.

    Example:
        >>> rouge_scores(torch.tensor([[2, 4, 3], [0, 0, 5], [1, 1, 1]])).tolist()
        [[0.5, 0.6666666666666666, 0.5714285714285715], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    """
    hits, predicted, referenced = statistics.long().unbind(-1)
    precision = hits.double() / predicted.clamp(min=1).double()
    recall = hits.double() / referenced.clamp(min=1).double()
    total = precision + recall
    fmeasure = torch.where(total > 0, 2 * precision * recall / torch.where(total > 0, total, 1.0), 0.0)
    return torch.stack([precision, recall, fmeasure], -1)


def fixed_point(scores: Tensor) -> Tensor:
    """Scores in ``[0, 1]`` (float64) as ``(..., 2)`` int64 limbs of ``round(score * 2**56)``: high, low.

    Example:
        >>> fixed_point(torch.tensor([1.0, 0.5, 2.0**-56])).tolist()
        [[268435456, 0], [134217728, 0], [0, 1]]
    """
    scaled = torch.round(scores.double() * 2.0**SCALE_BITS).long()
    return torch.stack([scaled >> LIMB_BITS, scaled & ((1 << LIMB_BITS) - 1)], -1)


def mean_of_fixed_point(sums: Tensor, count: Tensor) -> Tensor:
    """The mean float64 score of summed limbs ``(..., 2)`` of ``count`` sentences (0 with none).

    Example:
        >>> sums = fixed_point(torch.tensor([0.25, 0.5])).sum(0)
        >>> mean_of_fixed_point(sums, torch.tensor(2)).item()
        0.375
    """
    high, low = sums.long().unbind(-1)
    total = high.double() * 2.0 ** -(SCALE_BITS - LIMB_BITS) + low.double() * 2.0**-SCALE_BITS
    return total / count.clamp(min=1).double()

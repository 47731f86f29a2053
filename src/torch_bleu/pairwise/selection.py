"""What pairwise scores are for: the diversity of a group of candidates (self-BLEU), and minimum Bayes
risk selection (the candidate with the highest expected utility against the others)."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from ..threads import within_cpu_share
from .bleu import pairwise_bleu


@within_cpu_share
def self_bleu(candidates: Any, **options: Any) -> Tensor:
    """``(S,)`` float64 self-BLEU of each source's candidates: the mean sentence BLEU of every candidate
    against every *other* candidate of its group, each pair scored with one reference (both orders of
    a pair count). Lower means more diverse. A source with fewer than two candidates gets NaN.

    This is the mean of :func:`pairwise_bleu` off the diagonal. Texygen's self-BLEU scores each
    candidate against all the others at once, as several references of one sentence; that variant is
    ``sentence_bleu`` with the other candidates as references.

    Args:
        candidates: ``S`` lists of strings, or an ``(S, N, L)`` id tensor (see :func:`pairwise_bleu`).
        **options: as :func:`pairwise_bleu`'s.

    Example:
        >>> round(self_bleu([["the cat sat on the mat", "the cat sat on a mat", "a dog barked"]],
        ...                 smoothing="exp", effective_order=True).item(), 4)
        0.2095
    """
    scores = pairwise_bleu(candidates, None, **options)
    size = scores.shape[1]
    others = ~torch.eye(size, dtype=torch.bool, device=scores.device)
    valid = others & ~scores.isnan()
    pairs = valid.sum((1, 2))
    total = torch.where(valid, scores, 0.0).sum((1, 2))
    return torch.where(pairs > 0, total / pairs.clamp(min=1), torch.nan)


@within_cpu_share
def mbr_select(utilities: Tensor) -> Tensor:
    """``(S,)`` int64: per source, the index of the candidate with the highest expected utility, the mean
    of its row of ``utilities`` ``(S, N, M)`` (for example :func:`pairwise_chrf` of the candidates
    against themselves, or against other samples as pseudo-references). NaN entries (padding) are left
    out of the mean; the first of equal candidates wins; a source without candidates gets ``-1``.

    Example:
        >>> from torch_bleu.pairwise.chrf import pairwise_chrf
        >>> candidates = [["the cat sat", "a cat sat on it", "the cat sat down", "dogs"]]
        >>> mbr_select(pairwise_chrf(candidates)).tolist()
        [2]
    """
    present = ~utilities.isnan()
    counted = present.sum(-1)
    expected = torch.where(present, utilities, 0.0).sum(-1) / counted.clamp(min=1)
    expected = torch.where(counted > 0, expected, -torch.inf)
    if expected.shape[-1] == 0:
        return torch.full(expected.shape[:1], -1, dtype=torch.int64, device=utilities.device)
    return torch.where((counted > 0).any(-1), expected.argmax(-1), -1)

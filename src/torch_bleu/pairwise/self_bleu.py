"""Self-BLEU as Texygen computes it: each candidate's sentence BLEU against all the other candidates of
its source at once, as its references (fast-bleu's ``BLEU`` of each against the others gives it too).

Against several references, a candidate's n-gram ``g`` is clipped at the largest count of ``g`` among
them. Among "all the others" that is the largest count of ``g`` over the whole group, unless this
candidate holds that count alone: then it is the second largest. So the largest count of each n-gram,
how many candidates hold it and the second largest give every candidate's clipped matches in one pass
over the n-grams of the group, and the reference length (the closest other length, ties to the
shorter; or the shortest other length) comes from the group's sorted lengths. The cost grows with the
number of tokens, not with its square: 10,000 candidates of one source take about a second on a CPU.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from ..engine.cross_matches import RowLayout, numbered_ngrams, row_group_counts
from ..metrics.bleu.config import BLEUOptions, RefLength
from ..metrics.bleu.score import bleu_from_statistics
from ..metrics.bleu.statistics import assemble_statistics
from .bleu import pairwise_config, result_device, token_rows


def self_bleu_against_others(candidates: Any, options: BLEUOptions) -> Tensor:
    """``(S,)`` float64: per source, the mean over its candidates of the sentence BLEU of each against all
    the others as its references (NaN for a source with fewer than two candidates); ``options`` as
    :func:`~torch_bleu.pairwise_bleu` takes them.

    Example:
        >>> group = [["the cat sat on the mat", "the cat sat on a mat", "a dog barked"]]
        >>> round(self_bleu_against_others(group, {"smoothing": "exp", "effective_order": True}).item(), 4)
        0.4003
    """
    config = pairwise_config(candidates, options)
    rows = token_rows(candidates, None, config)
    layout = RowLayout(rows)
    lengths = rows.lengths
    order = config.statistics_order
    matches = torch.zeros((lengths.shape[0], order), dtype=torch.int64, device=lengths.device)
    for n, window_row, groups in numbered_ngrams(rows.tokens, lengths, layout.source, order):
        row, group, count, group_count = row_group_counts(window_row, groups)
        matches[:, n - 1] = torch.zeros_like(matches[:, 0]).index_add_(0, row, _clipped(group, count, group_count))
    target_len = other_length(lengths, layout.source, rows.candidates, config.ref_length)
    scores = bleu_from_statistics(*assemble_statistics(matches, lengths, target_len[:, None], None, config), config)
    total = torch.zeros(layout.sources, dtype=torch.float64, device=lengths.device).index_add_(0, layout.source, scores)
    means = torch.where(rows.candidates > 1, total / rows.candidates.clamp(min=1), torch.nan)
    return means.to(result_device(candidates))


def _clipped(group: Tensor, count: Tensor, group_count: int) -> Tensor:
    """``min(count, largest count of the group among the other rows)`` for each ``(row, group)`` entry."""
    largest = torch.zeros(group_count, dtype=torch.int64, device=count.device).scatter_reduce_(0, group, count, "amax")
    top = count == largest[group]
    holders = torch.zeros_like(largest).index_add_(0, group, top.long())
    second = torch.zeros_like(largest).scatter_reduce_(0, group, torch.where(top, 0, count), "amax")
    others = torch.where(top & (holders[group] == 1), second[group], largest[group])
    return torch.minimum(count, others)


def other_length(lengths: Tensor, source: Tensor, counts: Tensor, rule: RefLength) -> Tensor:
    """``(R,)``: for each row, the reference length among the *other* rows of its source: the closest to
    its own length (ties to the shorter) or the shortest. Rows alone in their source get any value.

    Example:
        >>> lengths, source = torch.tensor([3, 5, 9, 5, 7]), torch.tensor([0, 0, 0, 1, 1])
        >>> other_length(lengths, source, torch.tensor([3, 2]), "closest").tolist()
        [5, 3, 5, 7, 5]
        >>> other_length(lengths, source, torch.tensor([3, 2]), "shortest").tolist()
        [5, 3, 3, 7, 5]
    """
    if lengths.shape[0] == 0:
        return lengths
    span = int(lengths.max()) + 1
    base = source * span
    key = base + lengths
    ordered = key.sort().values  # by source, then length
    last = lengths.shape[0] - 1
    left = torch.searchsorted(ordered, key)
    right = torch.searchsorted(ordered, key, right=True)
    start = (torch.cumsum(counts, 0) - counts)[source]
    alone = right - left == 1  # no other row of the source has this length
    if rule == "shortest":
        first, second = ordered[start] - base, ordered[(start + 1).clamp(max=last)] - base
        return torch.where(alone & (lengths == first), second, first)
    shorter = ordered[(left - 1).clamp(min=0)] - base
    longer = ordered[right.clamp(max=last)] - base
    below = torch.where(left > start, lengths - shorter, span)
    above = torch.where(right < start + counts[source], longer - lengths, span)
    return torch.where(alone, torch.where(below <= above, shorter, longer), lengths)

"""Aggregate chrF: each candidate's chrF against the weighted mean n-gram statistics of its source's
references (reference aggregation, Vamvas & Sennrich 2024), the expected-utility estimate of MBR
decoding in time linear in the number of candidates and references.

For a source with references ``r`` of weights ``w_r`` (normalized to sum to 1), each n-gram order is
scored from the statistics ``hyp = c(h)`` (the candidate's n-grams of that order), ``ref = sum_r w_r
c(r)`` and ``match = sum_g min(c_g(h), sum_r w_r c_g(r))`` over the n-grams ``g``; the candidate's
n-grams of an order no reference has (of a positive weight) are not counted, as sentence chrF does
not count them. chrF then comes from these statistics as from a sentence's (:mod:`torch_bleu.metrics.
chrf.score`).

The sums are taken with the weights as given (not divided by their total) and the candidate's counts
multiplied by that total instead, which scales every statistic by the same factor and leaves chrF's
ratios unchanged: with the default weights (1 per reference) every statistic is an integer, exact in
float64, as fastchrf computes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ..arrays import is_integer
from ..engine.cross_matches import numbered_ngrams, row_group_counts
from ..errors import InputError
from ..metrics.chrf.config import CHRFConfig, CHRFOptions
from ..metrics.chrf.score import chrf_from_statistics
from ..threads import within_cpu_share
from .chrf import grouped_rows, token_families
from .inputs import kind_of

if TYPE_CHECKING:
    from typing_extensions import Unpack


@within_cpu_share
def aggregate_chrf(
    candidates: Any, references: Any = None, reference_weights: Tensor | None = None, **options: Unpack[CHRFOptions]
) -> Tensor:
    """``(S, N)`` float64: the chrF (or chrF++) of candidate ``i`` of source ``s`` against the weighted
    mean n-gram statistics of its source's references (reference aggregation): ``min(candidate count,
    mean reference count)`` matches per n-gram.

    With character n-grams only, equal to fastchrf's ``aggregate_chrf(...)`` / 100 (which computes the
    unweighted mean); word n-grams (``word_order``, chrF++), weights and every chrF option are computed
    alike. Whitespace is Python's ``str.split``'s, as in sacrebleu (fastchrf's differs on U+001C to
    U+001F).

    Args:
        candidates: ``S`` lists of candidate strings (``N_s`` each, any number); or, with ``detokenizer=``,
            an ``(S, N, L)`` integer tensor of subword ids (as :func:`~torch_bleu.pairwise_chrf` takes).
        references: ``S`` lists of reference strings (``M_s`` each), or ``(S, M, L)`` subword ids; ``None``
            (the default): the candidates are their own references, as MBR decoding takes them.
        reference_weights: ``(S, M)`` non-negative finite weights of each source's references (of its
            candidates when ``references`` is ``None``), for example the model's probabilities of the
            samples; normalized per source, so only their ratios count. Entries past a source's own
            references are ignored. ``None``: every reference weighs the same.
        **options: any option of :class:`~torch_bleu.CHRFConfig` (``char_order``, ``word_order``,
            ``beta``, ``whitespace``, ``eps_smoothing``, ``lowercase``, ``ignore_ids``, ``eos_id``,
            ``detokenizer``).

    Returns:
        ``N`` is the most candidates of a source; entries past a source's own, and every candidate of a
        source without references, are NaN. On the device of id input, else on the CPU.

    Raises:
        InputError: (a ``ValueError``) input that is neither lists of strings nor, with a detokenizer, an
            integer tensor of the right shape; weights that are not an ``(S, M)`` real tensor, that are
            negative or not finite, or that sum to 0 over a source's references.

    Example:
        >>> candidates = [["the cat sat", "a cat sat", "the dog"]]
        >>> [round(score, 4) for score in aggregate_chrf(candidates)[0].tolist()]
        [0.6994, 0.5569, 0.303]
        >>> weights = torch.tensor([[1.0, 0.0, 0.0]])  # all the weight on the first: chrF against it alone
        >>> [round(score, 4) for score in aggregate_chrf(candidates, reference_weights=weights)[0].tolist()]
        [1.0, 0.5361, 0.1307]
    """
    config = CHRFConfig.from_options(options)
    grouped = grouped_rows(candidates, references, config)
    texts = [text.lower() for text in grouped.rows] if config.lowercase else grouped.rows
    layout = _RowRoles(grouped.candidates, grouped.references)
    weights = _row_weights(reference_weights, layout)
    scores = aggregate_scores(texts, layout, weights, config)
    device = candidates.device if isinstance(candidates, Tensor) else torch.device("cpu")
    return scores.to(device)


class _RowRoles:
    """What each row of a :class:`~torch_bleu.pairwise.inputs.Grouped` is: its source, whether it is a
    candidate and a reference, and its number among its source's candidates and among its references."""

    def __init__(self, candidates: Tensor, references: Tensor | None) -> None:
        self.sources = candidates.shape[0]
        self.candidates, self.shared = candidates, references is None
        self.references = candidates if references is None else references
        per_source = candidates if references is None else candidates + references
        device = candidates.device
        self.source = torch.repeat_interleave(torch.arange(self.sources, device=device), per_source)
        local = (
            torch.arange(self.source.shape[0], device=device) - (torch.cumsum(per_source, 0) - per_source)[self.source]
        )
        self.is_candidate = local < candidates[self.source]
        self.candidate_index = local[self.is_candidate]  # of each candidate row, among its source's
        self.is_reference = self.is_candidate if references is None else ~self.is_candidate
        self.reference_index = local if references is None else local - candidates[self.source]
        self.width = int(candidates.max()) if self.sources else 0
        self.height = int(self.references.max()) if self.sources else 0


def _row_weights(weights: object, rows: _RowRoles) -> Tensor:
    """``(R,)`` float64 weight of every row as a reference (0 for a row that is only a candidate)."""
    if weights is None:
        return rows.is_reference.double()
    real = isinstance(weights, Tensor) and (weights.is_floating_point() or is_integer(weights))
    if not isinstance(weights, Tensor) or weights.dim() != 2 or not real:
        raise InputError(
            f"reference_weights must be an (S, M) real tensor (sources, references), got {kind_of(weights)}"
        )
    if weights.shape != (rows.sources, rows.height):
        raise InputError(
            f"reference_weights must have shape (S, M) = ({rows.sources}, {rows.height}): the sources, and the "
            f"most references of one (its candidates without references), got shape {tuple(weights.shape)}"
        )
    row = rows.is_reference
    given = weights.detach().to(row.device, torch.float64)[rows.source[row], rows.reference_index[row]]
    if not bool(torch.isfinite(given).all()) or bool((given < 0).any()):
        raise InputError("reference_weights must be finite and >= 0 for every reference")
    totals = given.new_zeros(rows.sources).index_add_(0, rows.source[row], given)
    empty = (totals == 0) & (rows.references > 0)
    if bool(empty.any()):
        raise InputError(
            f"reference_weights sum to 0 over the references of source {int(empty.nonzero()[0, 0])}: "
            "give some reference a positive weight"
        )
    result = given.new_zeros(row.shape[0])
    result[row] = given
    return result


def aggregate_scores(texts: Sequence[str], rows: _RowRoles, weights: Tensor, config: CHRFConfig) -> Tensor:
    """The ``(S, N)`` scores of :func:`aggregate_chrf`, from the rows' texts (as the metric reads them)
    and each row's weight as a reference."""
    total = weights.new_zeros(rows.sources).index_add_(0, rows.source, weights)  # T of each source
    scale = total[rows.source]  # candidate counts times the source's total weight
    candidate = rows.is_candidate
    parts = []
    for tokens, lengths, orders in token_families(texts, config):
        statistics = weights.new_zeros((int(candidate.sum()), orders, 3))
        windows = torch.arange(orders, device=lengths.device)[None, :]
        row_windows = (lengths[:, None] - windows).clamp(min=0).double()  # (R, orders)
        reference_windows = weights.new_zeros((rows.sources, orders))
        reference_windows.index_add_(0, rows.source, weights[:, None] * row_windows)
        statistics[..., 1] = reference_windows[rows.source[candidate]]
        counted = statistics[..., 1] > 0  # a candidate counts no n-gram of an order no reference has
        statistics[..., 0] = torch.where(counted, (scale[:, None] * row_windows)[candidate], 0.0)
        for order, window_row, groups in numbered_ngrams(tokens, lengths, rows.source, orders):
            row, group, count, group_count = row_group_counts(window_row, groups)
            expected = weights.new_zeros(group_count).index_add_(0, group, weights[row] * count)
            mine = candidate[row]
            clipped = torch.minimum(scale[row[mine]] * count[mine], expected[group[mine]])
            matches = weights.new_zeros(candidate.shape[0]).index_add_(0, row[mine], clipped)
            statistics[:, order - 1, 2] = matches[candidate]
        parts.append(statistics)
    scores = chrf_from_statistics(torch.cat(parts, 1), config)
    result = weights.new_full((rows.sources, rows.width), torch.nan)
    source = rows.source[candidate]
    result[source, rows.candidate_index] = torch.where(rows.references[source] > 0, scores, torch.nan)
    return result

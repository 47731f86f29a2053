"""Aggregate BLEU: each candidate against the expected n-gram counts of its source's references.

The references of a source, weighted ``w_r`` (normalized to sum to 1), become one pseudo-reference:
expected counts ``E[c(g)] = sum_r w_r c_r(g)`` of every n-gram ``g`` and the expected length
``E[len] = sum_r w_r len_r``. A candidate's matches of order ``n`` are ``sum_g min(c_h(g), E[c(g)])``
over its n-grams, and its score is BLEU's formula on these float statistics with the expected length as
the reference length (DeNero et al. 2009's n-gram expectations, mbrs's reference aggregation; Vamvas and
Sennrich 2024 for chrF). One score per candidate, with one pass over the n-grams of all rows: the cost
grows with the number of tokens, not with candidates times references.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ..engine.cross_matches import GroupedRows, RowLayout, numbered_ngrams, row_group_counts
from ..errors import InputError
from ..metrics.bleu.config import BLEUOptions
from ..metrics.bleu.score import bleu_from_statistics
from ..metrics.bleu.statistics import ngram_totals
from ..threads import within_cpu_share
from .bleu import pairwise_config, result_device, token_rows
from .inputs import kind_of

if TYPE_CHECKING:
    from typing_extensions import Unpack


@within_cpu_share
def aggregate_bleu(
    candidates: Any, references: Any = None, reference_weights: Tensor | None = None, **options: Unpack[BLEUOptions]
) -> Tensor:
    """``(S, N)`` float64: the BLEU of candidate ``i`` of source ``s`` against the weighted average of its
    references' n-gram counts, equal to mbrs's ``MetricBLEU.expected_scores_reference_aggregation / 100``.

    For references ``r`` of weights ``w_r`` (normalized per source), the expected count of an n-gram
    ``g`` is ``E[c(g)] = sum_r w_r c_r(g)`` and the expected reference length ``sum_r w_r len_r``. The
    candidate's matches of order ``n`` are ``sum_g min(c(g), E[c(g)])`` over its n-grams (floats), its
    n-gram totals and length are its own, and the brevity penalty compares its length with the expected
    length. The score is that of :func:`~torch_bleu.bleu_from_statistics` on these statistics, so every
    smoothing, ``effective_order``, ``weights`` and ``convention`` apply. With one reference (or equal
    ones) it is :func:`~torch_bleu.pairwise_bleu`'s score against that reference.

    Args:
        candidates: ``S`` lists of candidate strings (``N_s`` each, any number), an ``(S, N, L)`` integer
            tensor of token ids (``ignore_ids``, ``eos_id``), or subword ids with ``detokenizer=``, as
            :func:`~torch_bleu.pairwise_bleu` takes them.
        references: ``S`` lists of reference strings (``M_s`` each), or ``(S, M, L)`` ids; ``None`` (the
            default): the candidates are the references too, as in MBR decoding with samples as
            pseudo-references.
        reference_weights: ``(S, M)`` non-negative weights of the references (``(S, N)`` of the
            candidates when ``references`` is ``None``), normalized per source, so probabilities,
            unnormalized weights and ``torch.softmax(log_probs, -1)`` all do; entries past a source's
            own references are ignored. ``None`` (the default): every reference of a source weighs the same.
        **options: any option of :class:`~torch_bleu.BLEUConfig`, as :func:`~torch_bleu.pairwise_bleu`
            takes them (strings are tokenized with ``tokenize="13a"`` unless told otherwise). mbrs's
            ``MetricBLEU`` defaults to sacrebleu's ``smoothing="exp"`` with ``effective_order=True``.
            ``ref_length`` does not apply: the reference length is the expected one.

    Returns:
        ``N`` is the most candidates of a source; entries past a source's own are NaN, and so is every
        entry of a source without references. On the device of id input, else on the CPU.

    Raises:
        InputError: (a ``ValueError``) input that :func:`~torch_bleu.pairwise_bleu` refuses; weights
            that are not a real ``(S, M)`` tensor, that are negative or not finite, or that sum to 0
            over a source's references; ``ref_length=``.

    Example:
        >>> candidates = [["the cat sat on the mat", "a cat sat on a mat", "the dog"]]
        >>> scores = aggregate_bleu(candidates, smoothing="exp", effective_order=True)
        >>> [round(score, 4) for score in scores[0].tolist()]
        [0.4461, 0.4356, 0.1243]
        >>> weights = torch.softmax(torch.tensor([[-0.5, -1.0, -3.0]]), -1)  # from sequence log-probabilities
        >>> scores = aggregate_bleu(candidates, None, weights, smoothing="exp", effective_order=True)
        >>> [round(score, 4) for score in scores[0].tolist()]
        [0.7068, 0.5349, 0.0238]
    """
    if "ref_length" in options:
        raise InputError(
            "aggregate BLEU compares each candidate's length with the expected reference length; "
            "ref_length does not apply"
        )
    config = pairwise_config(candidates, options)
    rows = token_rows(candidates, references, config)
    layout = RowLayout(rows)
    weights = _row_weights(reference_weights, rows, layout)
    lengths = rows.lengths
    order = config.statistics_order
    matches = torch.zeros((lengths.shape[0], order), dtype=torch.float64, device=lengths.device)
    for n, window_row, groups in numbered_ngrams(rows.tokens, lengths, layout.source, order):
        row, group, count, group_count = row_group_counts(window_row, groups)
        expected = torch.zeros(group_count, dtype=torch.float64, device=lengths.device)
        expected.index_add_(0, group, weights[row] * count)  # candidates that are no references weigh 0
        clipped = torch.minimum(count.to(torch.float64), expected[group])
        matches[:, n - 1] = torch.zeros_like(matches[:, 0]).index_add_(0, row, clipped)
    expected_length = torch.zeros(layout.sources, dtype=torch.float64, device=lengths.device)
    expected_length.index_add_(0, layout.source, weights * lengths)
    candidate = ~layout.is_reference
    source, preds_len = layout.source[candidate], lengths[candidate]
    totals = ngram_totals(preds_len, order, at_least=1 if config.convention == "nltk" else 0)
    scores = bleu_from_statistics(matches[candidate], totals, preds_len, expected_length[source], config)
    references_of = rows.candidates if rows.references is None else rows.references
    scores = torch.where(references_of[source] > 0, scores, torch.nan)
    result = torch.full((layout.sources, layout.width), torch.nan, dtype=torch.float64, device=lengths.device)
    result[source, layout.index[candidate]] = scores
    return result.to(result_device(candidates))


def _row_weights(given: Tensor | None, rows: GroupedRows, layout: RowLayout) -> Tensor:
    """``(R,)`` float64 weight of every row as a reference, normalized per source (0: a candidate only)."""
    device = rows.lengths.device
    references_of = rows.candidates if rows.references is None else rows.references
    is_reference = layout.is_reference if rows.references is not None else torch.ones_like(layout.is_reference)
    weights = torch.zeros(rows.lengths.shape[0], dtype=torch.float64, device=device)
    if given is None:
        weights[is_reference] = 1.0
    else:
        shape = (layout.sources, layout.height)
        name = "candidates" if rows.references is None else "references"
        if (
            not isinstance(given, Tensor)
            or tuple(given.shape) != shape
            or given.dtype == torch.bool
            or given.is_complex()
        ):
            raise InputError(
                f"reference_weights must be a real tensor of shape {shape} (sources, {name}: the most "
                f"{name} of a source), got {kind_of(given)}"
            )
        present = torch.arange(layout.height, device=device) < references_of[:, None]
        values = given.to(device=device, dtype=torch.float64)[present]
        if bool(((values < 0) | ~values.isfinite()).any()):
            raise InputError("reference_weights must be finite and non-negative where a source has references")
        weights[is_reference] = values
    total = torch.zeros(layout.sources, dtype=torch.float64, device=device).index_add_(0, layout.source, weights)
    if given is not None and bool(((total == 0) & (references_of > 0)).any()):
        raise InputError("reference_weights of a source's references must not all be 0")
    return weights / torch.where(total > 0, total, 1.0)[layout.source]

"""Clipped n-gram counting on padded id tensors, exact and free of host-device synchronization.

The engine turns a batch of hypotheses ``(B, Lp)`` and references ``(B, R, Lt)`` into per-sentence
BLEU sufficient statistics. Everything is a fixed-shape tensor operation, so it runs unchanged on
CPU, CUDA and the ``meta`` device, and never asks the host for a value.

How an n-gram becomes a number, exactly:

1. **Compaction.** Ignored ids are removed wherever they sit in a row by a stable scatter to the
   front; a row's length is the number of kept tokens.
2. **Token ranks.** All tokens of the batch are sorted once; a token's rank is the number of distinct
   smaller ids, so any int64 id (negative, huge) becomes a dense integer below the token count ``T``.
3. **n-gram keys.** The windows of ``Tensor.unfold(-1, n, 1)`` are identified incrementally: the key of
   the order-``n`` window starting at ``i`` is the dense rank of the pair ``(key_{n-1}[i], rank[i+n-1])``,
   packed as ``key * T + rank`` (below ``T**2``, so it cannot overflow or collide). The order-1 key
   pairs the sentence index with the token, so keys of different sentences never meet.
4. **Clipping.** One sort per order groups equal keys, hypothesis side first and then each reference.
   Within a group an occurrence's index ``k`` is its position in the run; a reference's count of that
   n-gram is its largest ``k + 1``. A hypothesis occurrence is matched when ``k`` is below the largest
   count over the references, which sums to ``min(count_hyp, max_r count_ref)`` per n-gram.

Memory and time are ``O(T log T)`` per order with ``T`` the number of token slots in the batch.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence, Tuple

import torch
from torch import Tensor

# The packed sort key of order n is below T**2 * (R + 1); keep it inside int64.
_INT64_LIMIT = 2**63 - 1


class SentenceStatistics(NamedTuple):
    """Per-sentence BLEU sufficient statistics, all int64.

    Attributes:
        matches: ``(B, N)`` clipped n-gram matches per order.
        totals: ``(B, N)`` hypothesis n-grams per order (the precision denominators).
        preds_len: ``(B,)`` hypothesis lengths after removing ignored ids.
        target_len: ``(B,)`` effective reference length of each sentence (closest or shortest).
    """

    matches: Tensor
    totals: Tensor
    preds_len: Tensor
    target_len: Tensor


def compact(tokens: Tensor, ignore_ids: Sequence[int]) -> Tuple[Tensor, Tensor]:
    """Remove ``ignore_ids`` from every row, keeping order; return the packed rows and their lengths.

    Slots past a row's length hold arbitrary values and must be masked by the caller.

    Example:
        >>> rows, lengths = compact(torch.tensor([[0, 5, 0, 6, 1], [7, 8, 9, 1, 1]]), ignore_ids=(0, 1))
        >>> lengths.tolist()
        [2, 3]
        >>> rows[0, :2].tolist(), rows[1, :3].tolist()
        ([5, 6], [7, 8, 9])
    """
    width = tokens.shape[-1]
    if not ignore_ids:
        lengths = torch.full(tokens.shape[:-1], width, dtype=torch.int64, device=tokens.device)
        return tokens, lengths
    keep = torch.ones_like(tokens, dtype=torch.bool)
    for token_id in ignore_ids:
        keep &= tokens != token_id
    target_slot = torch.where(keep, keep.cumsum(-1) - 1, width)  # dropped tokens go to a spare slot
    packed = tokens.new_zeros(*tokens.shape[:-1], width + 1).scatter_(-1, target_slot, tokens)
    return packed[..., :width], keep.sum(-1)


def _run_ids(sorted_values: Tensor) -> Tensor:
    """For a sorted 1-D tensor, the index of each element's run of equal values (0, 0, 1, 2, 2, ...)."""
    is_new = torch.ones_like(sorted_values, dtype=torch.int64)
    is_new[1:] = (sorted_values[1:] != sorted_values[:-1]).long()
    return is_new.cumsum(0) - 1


def _dense_ranks(values: Tensor) -> Tensor:
    """Rank of each value among the distinct values of ``values`` (a 1-D tensor)."""
    sorted_values, order = torch.sort(values)
    return torch.empty_like(order).scatter_(0, order, _run_ids(sorted_values))


def _run_positions(sorted_keys: Tensor) -> Tensor:
    """For sorted keys, the index of each element inside its run of equal keys."""
    index = torch.arange(sorted_keys.numel(), device=sorted_keys.device)
    is_start = torch.ones_like(sorted_keys, dtype=torch.bool)
    is_start[1:] = sorted_keys[1:] != sorted_keys[:-1]
    run_start = torch.where(is_start, index, 0).cummax(0).values
    return index - run_start


def effective_reference_length(
    preds_len: Tensor, ref_len: Tensor, ref_present: Tensor, rule: str = "closest"
) -> Tensor:
    """Choose one reference length per sentence.

    ``closest`` picks the length nearest to the hypothesis length, ties going to the shorter
    reference; ``shortest`` picks the shortest. Absent references are skipped; a sentence without
    any reference gets length 0.

    Example:
        >>> effective_reference_length(torch.tensor([12, 12]), torch.tensor([[13, 2], [13, 11]]),
        ...                            torch.ones(2, 2, dtype=torch.bool)).tolist()
        [13, 11]
    """
    big = torch.iinfo(torch.int64).max // 4
    if rule == "closest":
        distance = (ref_len - preds_len.unsqueeze(-1)).abs()
        # order by (distance, length): ties go to the shorter reference
        sort_key = distance * (ref_len.amax(-1, keepdim=True) + 1) + ref_len if ref_len.shape[-1] else distance
    else:
        sort_key = ref_len
    sort_key = torch.where(ref_present, sort_key, big)
    if ref_len.shape[-1] == 0:
        return torch.zeros_like(preds_len)
    choice = sort_key.argmin(-1, keepdim=True)
    chosen = ref_len.gather(-1, choice).squeeze(-1)
    return torch.where(ref_present.any(-1), chosen, 0)


def sentence_statistics(
    preds: Tensor,
    target: Tensor,
    max_order: int = 4,
    ignore_ids: Sequence[int] = (),
    ref_length: str = "closest",
    convention: str = "sacrebleu",
    ref_present: Optional[Tensor] = None,
) -> SentenceStatistics:
    """BLEU sufficient statistics of each sentence of a padded batch.

    Args:
        preds: ``(B, Lp)`` int64 hypothesis ids.
        target: ``(B, R, Lt)`` int64 reference ids.
        max_order: highest n-gram order.
        ignore_ids: ids removed from every row before counting.
        ref_length: ``"closest"`` or ``"shortest"`` reference-length rule.
        convention: ``"sacrebleu"`` counts ``max(0, len - n + 1)`` hypothesis n-grams; ``"nltk"``
            counts ``max(1, ...)`` per sentence, as nltk's ``modified_precision`` does.
        ref_present: ``(B, R)`` bool, which reference rows are real. By default a row with no token
            left after removing ``ignore_ids`` is absent, unless all rows of the sentence are empty,
            in which case the sentence has one empty reference.

    Example:
        >>> hyp = torch.tensor([[1, 2, 3, 4]])
        >>> ref = torch.tensor([[[1, 2, 3, 5]]])
        >>> stats = sentence_statistics(hyp, ref)
        >>> stats.matches.tolist(), stats.totals.tolist(), stats.preds_len.tolist(), stats.target_len.tolist()
        ([[3, 2, 1, 0]], [[4, 3, 2, 1]], [4], [4])
    """
    hyp_tokens, hyp_len = compact(preds, ignore_ids)
    ref_tokens, ref_len = compact(target, ignore_ids)
    if ref_present is None:
        ref_present = ref_len > 0
        # a sentence whose reference rows are all empty has one (empty) reference
        ref_present[..., :1] |= ~ref_present.any(-1, keepdim=True)

    matches = _clipped_matches(hyp_tokens, hyp_len, ref_tokens, ref_len, ref_present, max_order)
    orders = torch.arange(1, max_order + 1, device=preds.device)
    totals = (hyp_len.unsqueeze(-1) - orders + 1).clamp_min(1 if convention == "nltk" else 0)
    target_len = effective_reference_length(hyp_len, ref_len, ref_present, ref_length)
    return SentenceStatistics(matches, totals, hyp_len, target_len)


def _clipped_matches(
    hyp_tokens: Tensor, hyp_len: Tensor, ref_tokens: Tensor, ref_len: Tensor, ref_present: Tensor, max_order: int
) -> Tensor:
    """``(B, N)`` clipped n-gram matches, counted by sorting (see the module docstring)."""
    device = hyp_tokens.device
    batch, hyp_width = hyp_tokens.shape
    num_refs, ref_width = ref_tokens.shape[1], ref_tokens.shape[2]
    # Absent references contribute no n-gram.
    ref_len = torch.where(ref_present, ref_len, 0)

    slots = batch * hyp_width + batch * num_refs * ref_width
    token_space = max(slots, batch, 1)
    sources = num_refs + 1  # the hypothesis, then each reference
    if token_space**2 * sources > _INT64_LIMIT:
        raise ValueError(f"batch too large for exact int64 n-gram keys ({slots} token slots); split it")

    # Dense token ranks over the whole batch (step 2).
    token_ranks = _dense_ranks(torch.cat([hyp_tokens.reshape(-1), ref_tokens.reshape(-1)]))
    hyp_ranks = token_ranks[: batch * hyp_width].view(batch, hyp_width)
    ref_ranks = token_ranks[batch * hyp_width :].view(batch, num_refs, ref_width)

    sentence = torch.arange(batch, device=device)
    hyp_source = torch.zeros(batch, 1, dtype=torch.int64, device=device)
    ref_source = torch.arange(1, sources, device=device).view(1, num_refs, 1)

    matches = torch.zeros(batch, max_order, dtype=torch.int64, device=device)
    hyp_keys = sentence.view(batch, 1).expand(batch, hyp_width)
    ref_keys = sentence.view(batch, 1, 1).expand(batch, num_refs, ref_width)
    for order in range(1, max_order + 1):
        hyp_windows = max(hyp_width - order + 1, 0)
        ref_windows = max(ref_width - order + 1, 0)
        # key of window i = (key of the (order-1)-window at i, rank of token i + order - 1)
        hyp_keys = hyp_keys[:, :hyp_windows] * token_space + hyp_ranks[:, order - 1 :]
        ref_keys = ref_keys[..., :ref_windows] * token_space + ref_ranks[..., order - 1 :]
        hyp_valid = torch.arange(hyp_windows, device=device) + order <= hyp_len.unsqueeze(-1)
        ref_valid = torch.arange(ref_windows, device=device) + order <= ref_len.unsqueeze(-1)

        keys = torch.cat([hyp_keys.reshape(-1), ref_keys.reshape(-1)])
        valid = torch.cat([hyp_valid.reshape(-1), ref_valid.reshape(-1)])
        source = torch.cat(
            [hyp_source.expand(batch, hyp_windows).reshape(-1), ref_source.expand(batch, num_refs, ref_windows).reshape(-1)]
        )
        # invalid windows share one key above every valid one and are masked out below
        sort_keys = torch.where(valid, keys * sources + source, token_space**2 * sources)
        sorted_keys, order_index = torch.sort(sort_keys)
        occurrence = _run_positions(sorted_keys)
        sorted_ngram = sorted_keys // sources
        ngram_id = _run_ids(sorted_ngram)
        sorted_source = sorted_keys % sources
        sorted_valid = valid[order_index]

        # largest count of each n-gram over the references
        ref_count = torch.where(sorted_valid & (sorted_source > 0), occurrence + 1, 0)
        max_ref_count = torch.zeros(keys.numel() + 1, dtype=torch.int64, device=device)
        max_ref_count.scatter_reduce_(0, ngram_id, ref_count, reduce="amax")
        is_match = sorted_valid & (sorted_source == 0) & (occurrence < max_ref_count[ngram_id])

        # back to sentences: hypothesis windows come first in the unsorted layout
        hyp_windows_total = batch * hyp_windows
        from_hyp = order_index < hyp_windows_total
        sentence_of = torch.where(from_hyp, order_index // max(hyp_windows, 1), 0)
        matches[:, order - 1] = torch.zeros(batch, dtype=torch.int64, device=device).index_add_(
            0, sentence_of, is_match.long()
        )

        if order < max_order:
            dense = torch.empty_like(ngram_id).scatter_(0, order_index, ngram_id)
            hyp_keys = dense[:hyp_windows_total].view(batch, hyp_windows)
            ref_keys = dense[hyp_windows_total:].view(batch, num_refs, ref_windows)
    return matches

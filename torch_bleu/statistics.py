"""Per-sentence BLEU sufficient statistics of padded id batches, exact and free of host-device syncs.

:func:`sentence_statistics` turns hypotheses ``(B, Lp)`` and references ``(B, R, Lt)`` into clipped
n-gram matches, hypothesis n-gram totals and the two lengths of every sentence. Everything is a
fixed-shape tensor operation, so it runs unchanged on CPU, CUDA and the ``meta`` device, and never
asks an accelerator for a value (on CPU the sorts run in NumPy, on the tensors' own memory). The
counting itself lives in :mod:`torch_bleu.engine`:

1. **Stacking and compaction.** Each sentence's hypothesis and references become the rows of one
   ``(S, L)`` block; ignored ids are dropped wherever they sit, and the kept tokens are packed to the
   front of their row.
2. **Exact n-gram identity.** Ids are replaced by their dense rank within the sentence (one sort), so
   any int64 id, negative or huge, becomes a small digit; an n-gram is its digits packed in one int64.
3. **Clipping.** Equal n-grams are grouped, by one sort of the packed keys for all orders, or, for
   rows of a few tokens, by comparing every pair of windows; each group adds ``min(H, max_r C_r)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch
from torch import Tensor

from .config import BLEUConfig
from .engine import clipped_matches, stack_rows
from .inputs import TokenBatch, token_batch


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
    if ref_len.shape[-1] == 1:  # one reference: it is the closest and the shortest
        return torch.where(ref_present[..., 0], ref_len[..., 0], 0)
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
    preds: Any,
    target: Any,
    max_order: int = 4,
    ignore_ids: Sequence[int] = (),
    ref_length: str = "closest",
    convention: str = "sacrebleu",
    ref_present: Tensor | None = None,
    algorithm: str = "auto",
) -> SentenceStatistics:
    """BLEU sufficient statistics of each sentence of a batch.

    Input is checked as for :func:`~torch_bleu.sentence_bleu`, before anything is counted.

    Args:
        preds: ``(B, Lp)`` integer hypothesis ids (any integer dtype), or a list of 1-D tensors or of
            lists of ints.
        target: ``(B, Lt)`` or ``(B, R, Lt)`` integer reference ids, or a list with the references of
            each hypothesis (see :func:`~torch_bleu.corpus_bleu`).
        max_order: highest n-gram order.
        ignore_ids: ids removed from every row before counting.
        ref_length: ``"closest"`` or ``"shortest"`` reference-length rule.
        convention: ``"sacrebleu"`` counts ``max(0, len - n + 1)`` hypothesis n-grams; ``"nltk"``
            counts ``max(1, ...)`` per sentence, as nltk's ``modified_precision`` does.
        ref_present: ``(B, R)`` bool, which reference rows of a padded ``target`` are real. By default
            a row with no token left after removing ``ignore_ids`` is absent, unless all rows of the
            sentence are empty, in which case the sentence has one empty reference. (A ragged
            ``target`` says which references exist by itself.)
        algorithm: how to count n-grams, ``"auto"`` (chosen from the shapes), ``"sorted"`` or
            ``"pairwise"`` (see :mod:`torch_bleu.engine`); all give the same statistics.

    Example:
        >>> hyp = torch.tensor([[1, 2, 3, 4]])
        >>> ref = torch.tensor([[1, 2, 3, 5]])
        >>> stats = sentence_statistics(hyp, ref)
        >>> stats.matches.tolist(), stats.totals.tolist(), stats.preds_len.tolist(), stats.target_len.tolist()
        ([[3, 2, 1, 0]], [[4, 3, 2, 1]], [4], [4])
    """
    config = BLEUConfig(max_order=max_order, ignore_ids=ignore_ids, ref_length=ref_length, convention=convention)
    batch = token_batch(preds, target, config.ignore_ids)
    if ref_present is not None:
        batch = batch._replace(ref_present=checked_ref_present(ref_present, batch))
    return count_statistics(batch, config, algorithm)


def checked_ref_present(ref_present: object, batch: TokenBatch) -> Tensor:
    """``ref_present`` as a ``(B, R)`` bool tensor for a padded ``target``, checked from its shape and dtype."""
    if batch.ref_present is not None:
        raise ValueError("ref_present goes with a padded target tensor; a ragged target lists its references itself")
    expected = tuple(batch.target.shape[:2])
    if not isinstance(ref_present, Tensor) or ref_present.dtype != torch.bool:
        found = ref_present.dtype if isinstance(ref_present, Tensor) else type(ref_present).__name__
        raise TypeError(f"ref_present must be a bool tensor of shape {expected}, got {found}")
    if tuple(ref_present.shape) != expected:
        raise ValueError(f"ref_present must have shape {expected} (batch, references), got {tuple(ref_present.shape)}")
    if ref_present.device != batch.target.device:
        raise ValueError(f"ref_present is on {ref_present.device} but the batch is on {batch.target.device}")
    return ref_present


def count_statistics(batch: TokenBatch, config: BLEUConfig, algorithm: str = "auto") -> SentenceStatistics:
    """The statistics of a validated batch, over ``config.statistics_order`` orders.

    Example:
        >>> batch = token_batch(torch.tensor([[5, 6, 7, 0]]), torch.tensor([[5, 6, 8, 0]]))
        >>> count_statistics(batch, BLEUConfig(ignore_ids=[0])).matches.tolist()
        [[2, 1, 0, 0]]
    """
    max_order = config.statistics_order
    ignore_ids = config.ignore_ids
    if batch.pad_id is not None and batch.pad_id not in ignore_ids:
        ignore_ids = (*ignore_ids, batch.pad_id)
    ref_present = batch.ref_present
    rows = stack_rows(batch.preds, batch.target, ignore_ids, ref_present)
    matches = clipped_matches(rows, max_order, algorithm)
    hyp_len, ref_len = rows.lengths[:, 0], rows.lengths[:, 1:]
    if ref_present is None and ref_len.shape[-1] == 1:
        target_len = ref_len[:, 0]  # a single reference is always present, even when empty
    else:
        if ref_present is None:
            ref_present = ref_len > 0
            # a sentence whose reference rows are all empty has one (empty) reference
            ref_present[..., :1] |= ~ref_present.any(-1, keepdim=True)
        target_len = effective_reference_length(hyp_len, ref_len, ref_present, config.ref_length)

    order_offsets = torch.arange(0, -max_order, -1, device=hyp_len.device)
    totals = (hyp_len.unsqueeze(-1) + order_offsets).clamp_min(1 if config.convention == "nltk" else 0)
    return SentenceStatistics(matches, totals, hyp_len, target_len)

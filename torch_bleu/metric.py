"""``BLEUScore``: corpus BLEU as a ``torchmetrics.Metric`` over padded token-id batches."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch
from torch import Tensor
from torchmetrics import Metric

from .config import BLEUConfig
from .functional import batch_statistics
from .score import bleu_from_statistics


class BLEUScore(Metric):
    """Exact corpus BLEU accumulated on the device, summed across DDP ranks.

    ``update(preds, target)`` counts clipped n-gram matches of a padded batch without any host-device
    synchronization; ``compute()`` scores the statistics of every update (of every rank) together.

    Args:
        max_order: highest n-gram order.
        weights: one non-negative weight per order (default uniform).
        smoothing: ``"none"``, ``"floor"``, ``"add-k"``, ``"exp"`` (sacrebleu) or ``"method0"`` ...
            (nltk).
        smooth_value: the smoothing constant; ``None`` takes the library default.
        effective_order: average only over orders the corpus has n-grams for.
        ignore_ids: ids dropped wherever they occur (PAD, BOS, EOS, ...).
        ref_length: ``"closest"`` (ties to the shorter) or ``"shortest"`` reference length.
        convention: ``"sacrebleu"`` (default) or ``"nltk"``.
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    States (int64, reduced with ``sum``): ``numerator`` and ``denominator`` ``(max_order,)``, the clipped
    matches and hypothesis n-grams per order; ``preds_len`` and ``target_len``, the total hypothesis
    and effective reference lengths.

    Example:
        >>> PAD, BOS, EOS = 0, 1, 2
        >>> metric = BLEUScore(ignore_ids=[PAD, BOS, EOS])
        >>> preds = torch.tensor([[1, 7, 8, 9, 10, 11, 2, 0], [1, 5, 6, 7, 8, 2, 0, 0]])
        >>> target = torch.tensor([[1, 7, 8, 9, 10, 12, 2], [1, 5, 6, 7, 8, 9, 2]])
        >>> metric.update(preds, target)
        >>> metric.numerator.tolist(), metric.denominator.tolist()
        ([8, 6, 4, 2], [9, 7, 5, 3])
        >>> round(metric.compute().item(), 4)
        0.7144
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    numerator: Tensor
    denominator: Tensor
    preds_len: Tensor
    target_len: Tensor

    def __init__(
        self,
        max_order: int = 4,
        weights: Optional[Sequence[float]] = None,
        smoothing: str = "none",
        smooth_value: Optional[float] = None,
        effective_order: bool = False,
        ignore_ids: Sequence[int] = (),
        ref_length: str = "closest",
        convention: str = "sacrebleu",
        **metric_kwargs: Any,
    ) -> None:
        super().__init__(**metric_kwargs)
        self.config = BLEUConfig(
            max_order=max_order,
            weights=weights,
            smoothing=smoothing,
            smooth_value=smooth_value,
            effective_order=effective_order,
            ignore_ids=ignore_ids,
            ref_length=ref_length,
            convention=convention,
        )
        self.add_state("numerator", torch.zeros(max_order, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("denominator", torch.zeros(max_order, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("preds_len", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("target_len", torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")

    def update(self, preds: Tensor, target: Tensor) -> None:
        """Add the statistics of a padded batch: ``preds`` ``(B, Lp)``, ``target`` ``(B, Lt)`` or ``(B, R, Lt)``.

        Input is validated before any state changes, so a rejected batch leaves the metric as it was.
        """
        stats = batch_statistics(preds, target, self.config)
        self.numerator += stats.matches.sum(0)
        self.denominator += stats.totals.sum(0)
        self.preds_len += stats.preds_len.sum()
        self.target_len += stats.target_len.sum()

    def compute(self) -> Tensor:
        """Corpus BLEU in ``[0, 1]`` of everything seen so far (0-d float64)."""
        return bleu_from_statistics(self.numerator, self.denominator, self.preds_len, self.target_len, self.config)

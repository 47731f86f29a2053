"""``CHRFScore``: chrF and chrF++ as a ``torchmetrics.Metric``, its statistics int64 and summed across ranks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ..exact_metric import ExactStatisticsMetric
from .config import CHRFConfig
from .score import chrf_from_statistics
from .statistics import chrf_statistics
from .text import as_text

if TYPE_CHECKING:
    from ..detokenize.detokenizer import Detokenizer


class CHRFScore(ExactStatisticsMetric):
    """Corpus chrF (chrF++ with ``word_order=2``) over ``update`` calls, as sacrebleu's ``CHRF`` computes it.

    ``update(preds, target)`` takes strings (``target``: per hypothesis its reference or a list of
    its references), or, with ``detokenizer``, subword ids (references as ids or strings), decoded on
    their device. The state is one ``(orders, 3)`` int64 tensor of hypothesis, reference and match
    counts, each sentence counted against its best reference; DDP sums it, and ``compute()`` scores it
    on the 0..1 scale.

    Args:
        char_order, word_order, beta, whitespace, eps_smoothing, lowercase: sacrebleu's ``CHRF`` options
            (defaults: chrF2, 6 character orders, no word orders).
        ignore_ids: ids dropped before decoding (with ``detokenizer``).
        detokenizer: a :class:`~torch_bleu.Detokenizer`, to score subword ids.

    Example:
        >>> metric = CHRFScore(word_order=2)
        >>> metric.update(["The cat sat on the mat."], ["The cat is on the mat."])
        >>> metric.update(["A dog barked."], [["The dog barked loudly.", "A dog barked."]])
        >>> round(100 * metric.compute().item(), 4)   # sacrebleu: CHRF(word_order=2).corpus_score(...)
        80.1532
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    statistics_names = ("statistics",)
    statistics: Tensor

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: float = 2,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        lowercase: bool = False,
        ignore_ids: Sequence[int] = (),
        detokenizer: Detokenizer | None = None,
        **metric_kwargs: Any,
    ) -> None:
        super().__init__(**metric_kwargs)
        self.config = CHRFConfig(
            char_order=char_order,
            word_order=word_order,
            beta=beta,
            whitespace=whitespace,
            eps_smoothing=eps_smoothing,
            lowercase=lowercase,
            ignore_ids=ignore_ids,
            detokenizer=detokenizer,
        )
        self.add_state("statistics", torch.zeros((self.config.orders, 3), dtype=torch.int64), dist_reduce_fx="sum")
        # equal on every rank and in every merge, so "max" keeps it as it is
        self.add_state("counted_with", self.counting_fingerprint(), dist_reduce_fx="max")

    def counting_fingerprint(self) -> Tensor:
        """The options that decide the statistics: character and word orders, whitespace, lowercasing."""
        config = self.config
        return torch.tensor([config.char_order, config.word_order, config.whitespace, config.lowercase])

    def counting_description(self) -> str:
        """The counting options by name, for messages."""
        names = ("char_order", "word_order", "whitespace", "lowercase")
        return ", ".join(f"{name}={getattr(self.config, name)!r}" for name in names)

    def update(self, preds: Any, target: Any) -> None:
        """Add the statistics of a batch; it is checked first, so a rejected batch leaves the state as it was."""
        stats = chrf_statistics(as_text(preds, target, self.config, self.device), self.config).sum(0)
        self.statistics += torch.as_tensor(stats, device=self.device)

    def compute(self) -> Tensor:
        """chrF of everything added so far, a 0-d float64 tensor in ``[0, 1]``."""
        score: Tensor = chrf_from_statistics(self.statistics, self.config)
        return score

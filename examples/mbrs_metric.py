"""torch-bleu's sentence BLEU as an mbrs metric, for mbrs's MBR decoders.

mbrs (``pip install mbrs``) decodes with any subclass of its ``Metric`` API. ``MetricTorchBLEU`` is
one: its pairwise scores are :func:`torch_bleu.pairwise_bleu` (the whole ``H x R`` matrix in one
call, instead of a sacrebleu ``sentence_score`` per pair in a process pool) and its reference
aggregation is :func:`torch_bleu.aggregate_bleu`, so ``DecoderMBR`` and ``DecoderAggregateMBR`` run
on it as they run on mbrs's ``MetricBLEU``, with the same numbers (float64 here, float32 there).
Scores are on mbrs's scale, 0 to 100; the defaults are ``MetricBLEU``'s (sacrebleu's ``exp``
smoothing, ``effective_order=True``, the ``13a`` tokenizer).

    from mbrs.decoders import DecoderMBR
    from mbrs_metric import MetricTorchBLEU

    metric = MetricTorchBLEU(MetricTorchBLEU.Config())
    decoder = DecoderMBR(DecoderMBR.Config(), metric)
    output = decoder.decode(hypotheses, hypotheses, nbest=1)  # the samples are their own references
    print(output.sentence[0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mbrs.metrics import MetricAggregatable
from torch import Tensor

import torch_bleu


class MetricTorchBLEU(MetricAggregatable):  # type: ignore[misc]
    """Sentence BLEU through torch-bleu, as mbrs's ``MetricBLEU`` computes it."""

    @dataclass
    class Config(MetricAggregatable.Config):  # type: ignore[misc]
        """torch-bleu's options (:class:`torch_bleu.BLEUConfig`), with ``MetricBLEU``'s defaults."""

        tokenize: str = "13a"
        lowercase: bool = False
        smoothing: str = "exp"
        smooth_value: float | None = None
        max_order: int = 4
        effective_order: bool = True

    cfg: Config

    def __init__(self, cfg: MetricTorchBLEU.Config) -> None:
        super().__init__(cfg)
        self.options: dict[str, Any] = {
            "tokenize": cfg.tokenize,
            "lowercase": cfg.lowercase,
            "smoothing": cfg.smoothing,
            "smooth_value": cfg.smooth_value,
            "max_order": cfg.max_order,
            "effective_order": cfg.effective_order,
        }

    def score(self, hypothesis: str, reference: str, source: str | None = None) -> float:
        """The BLEU of one hypothesis against one reference."""
        return float(self.pairwise_scores([hypothesis], [reference])[0, 0])

    def scores(self, hypotheses: list[str], references: list[str], sources: list[str] | None = None) -> Tensor:
        """``(N,)``: hypothesis ``i`` against reference ``i``, all in one call (each pair a source of its own)."""
        pairs = torch_bleu.pairwise_bleu(
            [[hypothesis] for hypothesis in hypotheses], [[r] for r in references], **self.options
        )
        return pairs[:, 0, 0] * 100

    def pairwise_scores(self, hypotheses: list[str], references: list[str], source: str | None = None) -> Tensor:
        """``(H, R)``: every hypothesis against every reference."""
        return torch_bleu.pairwise_bleu([hypotheses], [references], **self.options)[0] * 100

    def expected_scores_reference_aggregation(
        self,
        hypotheses: list[str],
        references: list[str],
        source: str | None = None,
        reference_lprobs: Tensor | None = None,
    ) -> Tensor:
        """``(H,)``: each hypothesis against the references' expected n-gram counts, the references weighted
        by the softmax of ``reference_lprobs`` (uniformly without them)."""
        weights = None if reference_lprobs is None else reference_lprobs.double().softmax(-1)[None]
        return torch_bleu.aggregate_bleu([hypotheses], [references], weights, **self.options)[0] * 100

"""The contenders: each takes padded batches and returns a corpus BLEU on the 0..1 scale."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Callable

from torch import Tensor

import torch_bleu

from .common import SPECIAL_IDS, Batch


def strip_special(row: list[int]) -> list[int]:
    return [token for token in row if token not in SPECIAL_IDS]


def _references(target: Tensor) -> list[list[list[int]]]:
    """Per sentence, its references as id lists (a (B, Lt) target has one reference per sentence)."""
    rows = target.unsqueeze(1).tolist() if target.dim() == 2 else target.tolist()
    return [[strip_special(row) for row in sentence] for sentence in rows]


def as_text(ids: list[int]) -> str:
    return " ".join(map(str, ids))


def nltk_corpus(batches: Iterable[Batch]) -> float:
    """The usual ``evaluate_bleu`` loop: lists of ids, PAD/BOS/EOS filtered out, nltk's ``corpus_bleu``."""
    from nltk.translate.bleu_score import corpus_bleu

    references, hypotheses = [], []
    for preds, target in batches:
        references.extend(_references(target))
        hypotheses.extend(strip_special(row) for row in preds.tolist())
    return corpus_bleu(references, hypotheses)


def sacrebleu_corpus(batches: Iterable[Batch]) -> float:
    """sacrebleu on the ids joined as strings, ``tokenize="none"`` (its default ``exp`` smoothing)."""
    from sacrebleu.metrics import BLEU

    hypotheses: list[str] = []
    references: list[list[str]] = []
    for preds, target in batches:
        hypotheses.extend(as_text(strip_special(row)) for row in preds.tolist())
        references.extend([as_text(ref) for ref in refs] for refs in _references(target))
    streams = [list(stream) for stream in zip(*references)]
    return BLEU(tokenize="none").corpus_score(hypotheses, streams).score / 100


def torchmetrics_corpus(batches: Iterable[Batch]) -> float:
    """torchmetrics' ``BLEUScore`` updated batch by batch with the ids joined as strings."""
    from torchmetrics.text import BLEUScore

    metric = BLEUScore()
    for preds, target in batches:
        hypotheses = [as_text(strip_special(row)) for row in preds.tolist()]
        metric.update(hypotheses, [[as_text(ref) for ref in refs] for refs in _references(target)])
    return float(metric.compute())


def torch_bleu_corpus(batches: Iterable[Batch], **options: object) -> float:
    """``torch_bleu.BLEUScore`` updated with the padded tensors themselves."""
    metric = torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS, **options)
    device = None
    for preds, target in batches:
        if device is None:
            device = preds.device
            metric = metric.to(device)
        metric.update(preds, target)
    return float(metric.compute())


CORPUS_CONTENDERS: dict[str, Callable[[Iterable[Batch]], float]] = {
    "nltk": nltk_corpus,
    "sacrebleu": sacrebleu_corpus,
    "torchmetrics": torchmetrics_corpus,
    "torch-bleu": torch_bleu_corpus,
    "torch-bleu (nltk convention)": lambda batches: torch_bleu_corpus(batches, convention="nltk"),
}
#: Which reference implementation each torch-bleu flavour must reproduce, and how closely.
SAME_SCORE_AS = {"torch-bleu": ("sacrebleu", 1e-9), "torch-bleu (nltk convention)": ("nltk", 1e-9)}
TORCHMETRICS_TOLERANCE = 1e-6  # torchmetrics computes in float32

"""The contenders: each takes padded batches and returns a corpus BLEU on the 0..1 scale."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable

import torch
import torch.nn.functional as F
from torch import Tensor

import torch_bleu

from .common import BOS, EOS, PAD, SPECIAL_IDS, Batch


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


def tensorbleu_available() -> bool:
    """Whether TensorBLEU (``pip install rxlm --no-deps``) can run as an optional contender."""
    return importlib.util.find_spec("rxlm") is not None


def bleuscore_available() -> bool:
    """Whether bleuscore (``pip install bleuscore``), a BLEU in Rust, can run as an optional contender."""
    return importlib.util.find_spec("bleuscore") is not None


def tensorbleu_inputs(preds: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """TensorBLEU ignores a single pad id: BOS and EOS become PAD, and references get their reference axis."""
    special = torch.tensor([BOS, EOS], device=preds.device)
    preds = torch.where(torch.isin(preds, special), PAD, preds)
    target = torch.where(torch.isin(target, special), PAD, target)
    return preds, target if target.dim() == 3 else target.unsqueeze(1)


def tensorbleu_corpus(batches: Iterable[Batch]) -> float:
    """TensorBLEU's ``tensor_corpus_bleu`` on the whole corpus at once (it returns a score, not statistics to
    add up), its batches padded to one width; sacrebleu's default ``exp`` smoothing."""
    from rxlm.metrics.tensorbleu import tensor_corpus_bleu

    pairs = [tensorbleu_inputs(preds, target) for preds, target in batches]
    hyp_width = max(preds.shape[1] for preds, _ in pairs)
    ref_width = max(target.shape[2] for _, target in pairs)
    preds = torch.cat([F.pad(preds, (0, hyp_width - preds.shape[1]), value=PAD) for preds, _ in pairs])
    target = torch.cat([F.pad(target, (0, ref_width - target.shape[2]), value=PAD) for _, target in pairs])
    return float(tensor_corpus_bleu(preds, target, pad_token_id=PAD, smoothing_method="exp"))


CORPUS_CONTENDERS: dict[str, Callable[[Iterable[Batch]], float]] = {
    "nltk": nltk_corpus,
    "sacrebleu": sacrebleu_corpus,
    "torchmetrics": torchmetrics_corpus,
    "torch-bleu": torch_bleu_corpus,
    "torch-bleu (nltk convention)": lambda batches: torch_bleu_corpus(batches, convention="nltk"),
    "tensorbleu": tensorbleu_corpus,
}
#: Which reference implementation each torch-bleu flavour must reproduce, and how closely.
SAME_SCORE_AS = {
    "torch-bleu": ("sacrebleu", 1e-9),
    "torch-bleu (nltk convention)": ("nltk", 1e-9),
    "tensorbleu": ("sacrebleu", 1e-6),  # it computes in float32
}
FLOAT32_TOLERANCE = 1e-6  # torchmetrics and TensorBLEU compute in float32

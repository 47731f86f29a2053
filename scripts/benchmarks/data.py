"""The inputs: WMT17 systems as padded id batches, synthetic batches."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import torch
from torch import Tensor

from .common import BOS, EOS, FIRST_WORD_ID, PAD, Batch


def pad_rows(rows: Sequence[Sequence[int]], device: torch.device) -> Tensor:
    """``[BOS] + row + [EOS]`` per row, padded with PAD to the longest: what a data loader yields."""
    width = max(len(row) for row in rows) + 2
    padded = torch.full((len(rows), width), PAD, dtype=torch.int64)
    for index, row in enumerate(rows):
        padded[index, : len(row) + 2] = torch.tensor([BOS, *row, EOS], dtype=torch.int64)
    return padded.to(device)


def wmt17_text(data: Path, systems: int | None, lines: int | None) -> tuple[list[str], list[list[str]]]:
    """The reference's lines and those of the first ``systems`` systems (all with ``None``), each cut to
    its first ``lines`` (all with ``None``)."""
    reference = (data / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()[:lines]
    outputs = sorted(data.glob("sys.*.de"))[:systems]
    return reference, [path.read_text(encoding="utf-8").splitlines()[:lines] for path in outputs]


def load_wmt17(data: Path, batch_size: int, device: torch.device, systems: int | None, lines: int | None):
    """Per system, its padded batches (preds, target); 13a-tokenized words mapped to ids."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tokenize = Tokenizer13a()
    vocabulary: dict[str, int] = {}

    def read(path: Path) -> list[list[int]]:
        with open(path, encoding="utf-8") as handle:
            text = [line.rstrip("\n") for line in handle][:lines]
        return [
            [vocabulary.setdefault(word, len(vocabulary) + FIRST_WORD_ID) for word in tokenize(line).split()]
            for line in text
        ]

    reference = read(data / "newstest2017.ref.de")
    corpus = {}
    for path in sorted(data.glob("sys.*.de"))[:systems]:
        output = read(path)
        corpus[path.name[len("sys.") : -len(".de")]] = [
            (
                pad_rows(output[start : start + batch_size], device),
                pad_rows(reference[start : start + batch_size], device),
            )
            for start in range(0, len(output), batch_size)
        ]
    return corpus


def synthetic_batch(batch: int, width: int, references: int, seed: int = 0) -> Batch:
    """A padded batch that looks like text: Zipf-distributed ids, references sharing ~60% of tokens.

    Row lengths vary between ``width // 2`` and ``width`` (BOS and EOS included), PAD after EOS.
    """
    generator = torch.Generator().manual_seed(seed)
    vocabulary = 32_000
    weights = 1.0 / torch.arange(1, vocabulary + 1, dtype=torch.float64)

    def words(*shape: int) -> Tensor:
        return (
            torch.multinomial(weights, math.prod(shape), replacement=True, generator=generator).view(shape)
            + FIRST_WORD_ID
        )

    hypotheses = words(batch, width)
    same = torch.rand(batch, references, width, generator=generator) < 0.6
    targets = torch.where(same, hypotheses.unsqueeze(1), words(batch, references, width))

    def frame(rows: Tensor) -> Tensor:
        low = max(width // 2 - 2, 0)
        lengths = torch.randint(low, max(width - 2, low) + 1, rows.shape[:-1], generator=generator)
        position = torch.arange(width)
        rows = torch.where(position == 0, BOS, rows)
        rows = torch.where(position == lengths.unsqueeze(-1) + 1, EOS, rows)
        return torch.where(position > lengths.unsqueeze(-1) + 1, PAD, rows)

    return frame(hypotheses), frame(targets)


def kept_tokens(preds: Tensor) -> int:
    """Hypothesis tokens that are not PAD, BOS or EOS: what throughput is counted in."""
    return int(((preds != PAD) & (preds != BOS) & (preds != EOS)).sum())

"""A validation loop that reports BLEU with its 95% confidence interval, and whether the epoch beats the best so far.

    python examples/validation_significance.py
    python examples/validation_significance.py --epochs 8 --sentences 3000

Each epoch scores the validation set with ``BLEUScore(keep_sentences=True)``, which keeps every
sentence's statistics besides their sums. At the end of the epoch ``confidence_interval()`` gives the
score with sacrebleu's bootstrap interval ("BLEU 27.3 +- 0.6"), and ``paired_bootstrap`` compares the
epoch with the best epoch so far on the same sentences: a small p-value says the change is unlikely
to be chance. The best epoch's metric is kept with ``clone()``; ``reset()`` empties the metric for
the next epoch.

The batches come in a shuffled order, as a ``DataLoader`` with ``shuffle=True`` (or a
``DistributedSampler`` under DDP) hands them out; ``update(..., indices=...)`` passes each sentence's
position in the dataset, so the kept sentences are put back in dataset order and the numbers are those
of sacrebleu on the validation set in its own order, on one process or many.

The "model" is simulated: each epoch's output is a copy of the reference with some words replaced,
fewer as training goes on, plus epoch-to-epoch noise, so the scores rise, then level out.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

import torch
from torch import Tensor

from torch_bleu import BLEUScore, paired_bootstrap

PAD, VOCABULARY = 0, 500


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--sentences", type=int, default=1000, help="validation sentences")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (sacrebleu's default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a short run: 3 epochs of 200 sentences")
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs, args.sentences = 3, 200
    return args


def references(sentences: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [[rng.randrange(1, VOCABULARY) for _ in range(rng.randint(5, 25))] for _ in range(sentences)]


def model_output(reference: list[int], error_rate: float, rng: random.Random) -> list[int]:
    """The reference with each word replaced by a random one with probability ``error_rate``."""
    return [rng.randrange(1, VOCABULARY) if rng.random() < error_rate else word for word in reference]


def padded(rows: Sequence[list[int]]) -> Tensor:
    batch = torch.full((len(rows), max(map(len, rows))), PAD, dtype=torch.int64)
    for row, words in enumerate(rows):
        batch[row, : len(words)] = torch.tensor(words)
    return batch


def main(argv: Sequence[str] | None = None) -> list[str]:
    args = parse_args(argv)
    dataset = references(args.sentences, args.seed)
    metric = BLEUScore(ignore_ids=[PAD], smoothing="exp", keep_sentences=True)
    best: BLEUScore | None = None
    lines = []
    for epoch in range(1, args.epochs + 1):
        rng = random.Random(args.seed * 1000 + epoch)
        error_rate = 0.15 + 0.5 / epoch + rng.uniform(-0.03, 0.03)
        order = list(range(len(dataset)))
        rng.shuffle(order)  # the loader's shuffled order
        for start in range(0, len(order), args.batch_size):
            batch = order[start : start + args.batch_size]
            preds = padded([model_output(dataset[index], error_rate, rng) for index in batch])
            target = padded([dataset[index] for index in batch])
            metric.update(preds, target, indices=torch.tensor(batch))

        interval = metric.confidence_interval(resamples=args.resamples)
        line = f"epoch {epoch}: BLEU {100 * interval.score:.1f} +- {100 * interval.ci:.1f}"
        if best is not None:
            [against_best] = paired_bootstrap(best, metric, resamples=args.resamples)
            line += f", p = {against_best.p_value:.4f} against the best so far ({100 * best.compute().item():.1f})"
        print(line)
        lines.append(line)
        if best is None or metric.compute() > best.compute():
            best = metric.clone()
        metric.reset()
    return lines


if __name__ == "__main__":
    main()

"""Validate a seq2seq model with torch_bleu inside its training loop, in place of an nltk ``evaluate_bleu``.

A common validation step decodes one sentence at a time, turns every id tensor into a Python list,
strips PAD/BOS/EOS by hand and hands the lists to ``nltk.translate.bleu_score.corpus_bleu``. Here the
model decodes whole batches greedily and the padded id tensors go straight into the metric::

    metric = torch_bleu.BLEUScore(ignore_ids=[PAD, BOS, EOS])
    for src, tgt in valid_loader:
        metric.update(greedy_decode(model, src), tgt)   # counts stay on the device, no .tolist()
    bleu = metric.compute()

The default convention scores like sacrebleu; ``convention="nltk"`` gives exactly what nltk's
``corpus_bleu`` printed before the switch. The two differ only on hypotheses shorter than 4 tokens,
which nltk counts as having one n-gram of each missing order, so that even exact short translations
lower its score.

The model is a small Transformer learning to spell numbers (``40512`` -> "forty thousand five hundred
twelve"); validation BLEU climbs from near 0 to almost 100 within a few epochs. At every epoch the
decoded ids also go through the list-and-nltk flow, whose score must equal torch_bleu's with
``convention="nltk"``; at the end the script times both flows and saves a plot of validation BLEU per
epoch, on the same 0 to 100 scale as the console, to ``out/validation_bleu.png`` (``--quick`` runs save
``out/validation_bleu_quick.png`` instead, so that a smoke run leaves the full run's plot alone).

Run:  python examples/seq2seq_validation.py [--epochs 8] [--device cpu|cuda] [--seed 0] [--threads 1] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from _device import add_run_options
from _toy_task import (
    BOS,
    EOS,
    PAD,
    TinyTranslator,
    decode_digits,
    decode_words,
    greedy_decode,
    make_splits,
    seed_everything,
    teacher_forcing_loss,
)
from torch import Tensor
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

import torch_bleu

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SPECIAL_IDS = (PAD, BOS, EOS)
TOLERANCE = 1e-9  # torch_bleu and nltk must agree to this (both score the same integer counts in float64)
IdBatches = list[tuple[Tensor, Tensor]]  # (predicted ids, target ids) of every validation batch
PLOT = Path("out/validation_bleu.png")
QUICK_PLOT = Path("out/validation_bleu_quick.png")  # a smoke run must not overwrite the full run's plot


def speedup(ours: float, theirs: float) -> str:
    """How torch_bleu's time compares with nltk's, in words."""
    if theirs >= ours:
        return f"torch_bleu {theirs / ours:.1f}x faster"
    return f"torch_bleu {ours / theirs:.1f}x slower"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=8)
    add_run_options(parser, "the data, the model and the shuffling")
    parser.add_argument("--train-size", type=int, default=12000, help="training sentences (one epoch)")
    parser.add_argument("--valid-size", type=int, default=1000, help="validation sentences")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3, help="peak learning rate (warm-up, then cosine decay)")
    parser.add_argument(
        "--plot", type=Path, default=PLOT, help=f"PNG to save the plot to (default {PLOT}, {QUICK_PLOT} with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds: 2 epochs of 256 sentences")
    if parser.parse_args(argv).quick:  # smaller defaults; options given explicitly still win
        parser.set_defaults(epochs=2, train_size=256, valid_size=64, plot=QUICK_PLOT)
    return parser.parse_args(argv)


def train_one_epoch(
    model: TinyTranslator,
    loader: DataLoader,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler.LRScheduler,
    device: torch.device,
    progress: tqdm,
) -> float:
    """One pass of teacher-forced training; returns the mean loss."""
    model.train()
    losses = []
    for src, tgt in loader:
        loss = teacher_forcing_loss(model, src.to(device), tgt.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.detach())
        progress.update()
    return torch.stack(losses).mean().item()


@torch.no_grad()
def validate(
    model: TinyTranslator, loader: DataLoader, metric: torch_bleu.BLEUScore, device: torch.device
) -> IdBatches:
    """Greedy-decode every validation batch into ``metric``; return the decoded ids for the cross-check."""
    model.eval()
    metric.reset()
    decoded = []
    for src, tgt in loader:
        src, tgt = src.to(device), tgt.to(device)
        pred = greedy_decode(model, src)  # (B, L): words, EOS, then PAD
        metric.update(pred, tgt)
        decoded.append((pred, tgt))
    return decoded


def torch_bleu_flow(decoded: IdBatches) -> float:
    """The validation metric as nltk scores: one ``update`` per padded batch, then ``compute``."""
    metric = torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS, convention="nltk").to(decoded[0][0].device)
    for pred, tgt in decoded:
        metric.update(pred, tgt)
    return metric.compute().item()


def nltk_flow(decoded: IdBatches) -> float:
    """The usual ``evaluate_bleu``: per sentence ``tolist()``, strip PAD/BOS/EOS, then nltk's ``corpus_bleu``."""
    from nltk.translate.bleu_score import corpus_bleu

    references, hypotheses = [], []
    for pred, tgt in decoded:
        for pred_row, tgt_row in zip(pred, tgt):
            references.append([[t for t in tgt_row.tolist() if t not in SPECIAL_IDS]])
            hypotheses.append([t for t in pred_row.tolist() if t not in SPECIAL_IDS])
    with warnings.catch_warnings():  # nltk warns whenever an n-gram order has no match (early epochs)
        warnings.simplefilter("ignore")
        return corpus_bleu(references, hypotheses)


def best_time(flow: Callable[[IdBatches], float], decoded: IdBatches, repeats: int = 5) -> float:
    """The fastest wall time in seconds of ``flow(decoded)`` over ``repeats`` runs, after one warm-up run."""
    times = []
    for _ in range(repeats + 1):
        start = time.perf_counter()
        flow(decoded)  # both flows end with a Python float, so the device is synchronized
        times.append(time.perf_counter() - start)
    return min(times[1:])


def report_nltk_check(decoded: IdBatches, largest_gap: float, bleu: float) -> None:
    """Fail unless torch_bleu agreed with nltk at every epoch; then time both flows on the last decodes."""
    if largest_gap > TOLERANCE:
        raise SystemExit(f"MISMATCH: torch_bleu and nltk differ by {largest_gap:.3g} (> {TOLERANCE:g})")
    ours, theirs = best_time(torch_bleu_flow, decoded), best_time(nltk_flow, decoded)
    sentences = sum(len(pred) for pred, _ in decoded)
    print("\nchecked against the nltk evaluate_bleu flow (tolist, strip PAD/BOS/EOS, corpus_bleu) on the same ids:")
    print(
        "  BLEUScore(convention='nltk') equals nltk's corpus_bleu at every epoch "
        f"(largest difference {largest_gap:.1e})"
    )
    print(
        f"  last epoch: nltk {100 * nltk_flow(decoded):.2f}, torch_bleu's default (sacrebleu's) {100 * bleu:.2f};"
        " nltk counts\n  one n-gram per missing order in hypotheses shorter than 4 words,"
        " so exact short ones lower its score"
    )
    print(f"time to score the {sentences} validation decodes of the last epoch (best of 5):")
    print(f"  torch_bleu  BLEUScore.update on the padded id tensors    {1e3 * ours:7.2f} ms")
    print(
        f"  nltk        tolist, strip PAD/BOS/EOS, then corpus_bleu  {1e3 * theirs:7.2f} ms  ({speedup(ours, theirs)})"
    )


def print_samples(valid_src: Tensor, decoded: IdBatches, count: int = 3) -> None:
    """Show a few translations of the first validation batch, longest numbers first."""
    pred, tgt = decoded[0]
    rows = sorted(range(len(pred)), key=lambda row: -len(decode_digits(valid_src[row])))
    for row in rows[:: max(1, len(rows) // count)][:count]:
        got, expected = decode_words(pred[row]), decode_words(tgt[row])
        verdict = "ok" if got == expected else f"(expected: {expected})"
        print(f"  {decode_digits(valid_src[row]):>6} -> {got}  {verdict}")


def as_percent(history: Sequence[float]) -> list[float]:
    """Validation BLEU per epoch on the 0 to 100 scale that the console and the plot show."""
    return [100 * bleu for bleu in history]


def format_history(history: Sequence[float]) -> str:
    """The per-epoch BLEU line of the console: 0 to 100, one decimal."""
    return " ".join(f"{bleu:.1f}" for bleu in as_percent(history))


def plot_history(history: Sequence[float]) -> tuple[Figure, Axes]:
    """A line with one marker per epoch of validation BLEU on the 0 to 100 scale; needs matplotlib.

    ``history`` holds BLEU on the 0 to 1 scale, as ``metric.compute()`` returns it.
    """
    from matplotlib.figure import Figure  # no pyplot: no GUI backend and no global figure state
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(6.4, 4.0))
    ax = figure.subplots()
    epochs = range(1, len(history) + 1)
    ax.plot(epochs, as_percent(history), marker="o", color="tab:blue", clip_on=False)  # whole markers at 100
    ax.set_title("Validation BLEU of the digits-to-words Transformer", pad=12)
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation BLEU")
    ax.set_ylim(0, 100)
    ax.set_xlim(0.5, len(history) + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    return figure, ax


def save_plot(history: Sequence[float], path: Path) -> None:
    """Save :func:`plot_history` as a PNG, or say why not when matplotlib is missing."""
    if importlib.util.find_spec("matplotlib") is None:
        print("matplotlib is not installed, so no plot (pip install 'torch-bleu[examples]')")
        return
    figure, _ = plot_history(history)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100, bbox_inches="tight")
    print(f"\nsaved the plot of validation BLEU per epoch to {path}")


def main(argv: Sequence[str] | None = None) -> list[float]:
    """Train and validate; return the validation BLEU (0 to 1) of every epoch."""
    args = parse_args(argv)
    seed_everything(args.seed)
    torch.set_num_threads(args.threads)
    device = args.device
    check_with_nltk = importlib.util.find_spec("nltk") is not None

    (train_src, train_tgt), (valid_src, valid_tgt) = make_splits(args.train_size, args.valid_size, args.seed)
    shuffle = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(TensorDataset(train_src, train_tgt), args.batch_size, shuffle=True, generator=shuffle)
    valid_loader = DataLoader(TensorDataset(valid_src, valid_tgt), batch_size=250)

    model = TinyTranslator().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    total_steps = args.epochs * len(train_loader)
    warmup_steps = max(1, total_steps // 10)

    def lr_factor(step: int) -> float:
        return min((step + 1) / warmup_steps, 0.5 * (1 + math.cos(math.pi * min(step, total_steps) / total_steps)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor)
    metric = torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS).to(device)
    parameters = sum(p.numel() for p in model.parameters())
    print(
        f"digits -> words Transformer ({parameters / 1e3:.0f}k parameters) on {device}: "
        f"{len(train_src)} training and {len(valid_src)} validation sentences, seed {args.seed}"
    )

    history: list[float] = []
    largest_gap = 0.0
    training_time = 0.0
    on_terminal = sys.stderr.isatty()  # a redirected log gets one line per epoch instead of a bar
    for epoch in range(1, args.epochs + 1):
        name = f"epoch {epoch}/{args.epochs}"
        progress = tqdm(total=len(train_loader), desc=name, unit="batch", disable=not on_terminal)
        start = time.perf_counter()
        loss = train_one_epoch(model, train_loader, optimizer, scheduler, device, progress)
        training_time += time.perf_counter() - start
        progress.set_postfix_str(f"loss={loss:.3f}, validating...")
        decoded = validate(model, valid_loader, metric, device)
        bleu = metric.compute().item()
        history.append(bleu)
        progress.set_postfix_str(f"loss={loss:.3f}, val BLEU={100 * bleu:.2f}")
        progress.close()
        if not on_terminal:
            print(f"{name}: loss={loss:.3f}, val BLEU={100 * bleu:.2f}", file=sys.stderr)
        if check_with_nltk:  # the same ids through the list-and-nltk flow must give the same corpus BLEU
            largest_gap = max(largest_gap, abs(torch_bleu_flow(decoded) - nltk_flow(decoded)))

    print(f"training took {training_time:.1f}s; validation BLEU per epoch: {format_history(history)}")
    print_samples(valid_src, decoded)

    if check_with_nltk:
        report_nltk_check(decoded, largest_gap, bleu)
    else:
        print("nltk is not installed, so no check against it (pip install nltk)")

    save_plot(history, args.plot)
    return history


if __name__ == "__main__":
    main()

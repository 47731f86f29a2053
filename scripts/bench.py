"""torch-bleu against nltk, sacrebleu and torchmetrics, every contender starting from padded id tensors.

A validation loop holds padded ``(B, L)`` id tensors (PAD, BOS and EOS included). Every contender
starts from exactly those tensors and ends with BLEU; whatever conversion it needs (``.tolist()``,
dropping special ids, joining ids into strings) is timed as part of it:

* ``nltk``: the usual ``evaluate_bleu`` loop: ``tolist``, filter PAD/BOS/EOS, ``corpus_bleu``;
* ``sacrebleu``: the ids joined as strings, ``BLEU(tokenize="none")``;
* ``torchmetrics``: ``torchmetrics.text.BLEUScore`` on the same strings;
* ``torch-bleu``: ``torch_bleu.BLEUScore.update`` on the tensors, ``compute`` at the end (and the
  same with ``convention="nltk"``, which must reproduce nltk's score); ``torch_bleu.corpus_bleu``
  for the single batches of the grid.

Workloads:

* ``wmt17``: the 16 WMT17 en-de systems, 13a-tokenized words mapped to ids, batches of 128;
* ``grid``: synthetic batches of B x L from 32 to 1024, R = 1 and R = 4 references. The Python
  contenders run on a sample of the rows (their cost is per sentence), reported as throughput;
* ``rl``: per-sentence BLEU of a 256 x 1024 batch, as an RL reward;
* ``update``: ``BLEUScore.update`` alone on a 256 x 1024 batch; on CUDA also checked to be free of
  host-device synchronization (``torch.cuda.set_sync_debug_mode("error")``);
* ``memory``: torch-bleu's peak allocated memory in ``update`` against the number of tokens.

Timings are wall-clock medians over ``--repeats`` rounds, contenders interleaved within each round so
that they share whatever else the machine is doing; speed-ups are ratios of medians from one run.

``--quick`` is a smoke run of a few seconds: every workload and contender on tiny inputs (``QUICK``
below; the full run measures ``FULL``), one timed round (``--repeats 1``). Most of its time is fixed:
importing torch, torchmetrics, nltk and sacrebleu, and starting the profiler of the ``memory`` workload.

Usage:
    python scripts/bench.py [--quick] [--json PATH] [--plot PATH] [--device cpu|cuda]
                            [--repeats N] [--threads N] [--data DIR] [--skip WORKLOAD ...]
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import torch
from torch import Tensor

import torch_bleu

PAD, BOS, EOS = 0, 1, 2
SPECIAL_IDS = (PAD, BOS, EOS)
FIRST_WORD_ID = 3
WMT_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt17-en-de"
CONTENDERS = ("nltk", "sacrebleu", "torchmetrics", "torch-bleu", "torch-bleu (nltk convention)")
Batch = tuple[Tensor, Tensor]  # preds (B, Lp), target (B, Lt) or (B, R, Lt)


@dataclass(frozen=True)
class Sizes:
    """How large each workload is."""

    wmt17_systems: int | None  # the first this many systems (None: all 16)
    wmt17_lines: int | None  # the first this many sentences of each system (None: all)
    grid: tuple[int, ...]  # the batch sizes B, which are also the row lengths L
    grid_sample_tokens: int  # about this many token slots for the Python contenders, per grid cell
    rl: tuple[int, int]  # B x L of the RL batch
    rl_sample: int  # rows the Python contenders score one by one
    update: tuple[int, int]  # B x L of the batch that ``update`` is timed on
    memory_batch: int  # B of the memory workload's batches
    memory_widths: tuple[int, ...]  # L of the memory workload's batches


FULL = Sizes(
    wmt17_systems=None,
    wmt17_lines=None,
    grid=(32, 64, 128, 256, 512, 1024),
    grid_sample_tokens=16384,
    rl=(256, 1024),
    rl_sample=32,
    update=(256, 1024),
    memory_batch=256,
    memory_widths=(64, 128, 256, 512, 1024, 2048, 4096),
)
# A smoke run: every workload and contender, on inputs so small that imports dominate. Two WMT17 batches
# per system (128 and 64 sentences), so that the metric is updated more than once.
QUICK = Sizes(
    wmt17_systems=2,
    wmt17_lines=192,
    grid=(16, 32),
    grid_sample_tokens=512,
    rl=(32, 64),
    rl_sample=4,
    update=(32, 64),
    memory_batch=32,
    memory_widths=(32, 64),
)


def workload_sizes(args: argparse.Namespace) -> Sizes:
    """``QUICK`` for ``--quick``, else ``FULL``."""
    return QUICK if args.quick else FULL


# --------------------------------------------------------------------------------------------------
# Contenders: each takes padded batches and returns a corpus BLEU on the 0..1 scale.


def _strip(row: list[int]) -> list[int]:
    return [token for token in row if token not in SPECIAL_IDS]


def _references(target: Tensor) -> list[list[list[int]]]:
    """Per sentence, its references as id lists (a (B, Lt) target has one reference per sentence)."""
    rows = target.unsqueeze(1).tolist() if target.dim() == 2 else target.tolist()
    return [[_strip(row) for row in sentence] for sentence in rows]


def _as_text(ids: list[int]) -> str:
    return " ".join(map(str, ids))


def nltk_corpus(batches: Iterable[Batch]) -> float:
    """The usual ``evaluate_bleu`` loop: lists of ids, PAD/BOS/EOS filtered out, nltk's ``corpus_bleu``."""
    from nltk.translate.bleu_score import corpus_bleu

    references, hypotheses = [], []
    for preds, target in batches:
        references.extend(_references(target))
        hypotheses.extend(_strip(row) for row in preds.tolist())
    return corpus_bleu(references, hypotheses)


def sacrebleu_corpus(batches: Iterable[Batch]) -> float:
    """sacrebleu on the ids joined as strings, ``tokenize="none"`` (its default ``exp`` smoothing)."""
    from sacrebleu.metrics import BLEU

    hypotheses: list[str] = []
    references: list[list[str]] = []
    for preds, target in batches:
        hypotheses.extend(_as_text(_strip(row)) for row in preds.tolist())
        references.extend([_as_text(ref) for ref in refs] for refs in _references(target))
    streams = [list(stream) for stream in zip(*references)]
    return BLEU(tokenize="none").corpus_score(hypotheses, streams).score / 100


def torchmetrics_corpus(batches: Iterable[Batch]) -> float:
    """torchmetrics' ``BLEUScore`` updated batch by batch with the ids joined as strings."""
    from torchmetrics.text import BLEUScore

    metric = BLEUScore()
    for preds, target in batches:
        hypotheses = [_as_text(_strip(row)) for row in preds.tolist()]
        metric.update(hypotheses, [[_as_text(ref) for ref in refs] for refs in _references(target)])
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


# --------------------------------------------------------------------------------------------------
# Timing


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_interleaved(
    runs: dict[str, Callable[[], object]], repeats: int, device: torch.device
) -> tuple[dict[str, list[float]], dict[str, object]]:
    """Wall-clock seconds of each run, ``repeats`` rounds with the runs interleaved; also their results.

    One untimed warm-up call each comes first (imports, allocator, first-call dispatch).
    """
    results = {name: run() for name, run in runs.items()}
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            _synchronize(device)
            start = time.perf_counter()
            run()
            _synchronize(device)
            seconds[name].append(time.perf_counter() - start)
    return seconds, results


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


# --------------------------------------------------------------------------------------------------
# Workloads


def pad_rows(rows: Sequence[Sequence[int]], device: torch.device) -> Tensor:
    """``[BOS] + row + [EOS]`` per row, padded with PAD to the longest: what a data loader yields."""
    width = max(len(row) for row in rows) + 2
    padded = torch.full((len(rows), width), PAD, dtype=torch.int64)
    for index, row in enumerate(rows):
        padded[index, : len(row) + 2] = torch.tensor([BOS, *row, EOS], dtype=torch.int64)
    return padded.to(device)


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


@dataclass
class Table:
    """Rows of a printed table, kept for the JSON output too."""

    title: str
    columns: list[str]
    rows: list[list[object]] = field(default_factory=list)

    def print(self) -> None:
        text = [[str(cell) for cell in row] for row in [self.columns, *self.rows]]
        widths = [max(len(row[i]) for row in text) for i in range(len(self.columns))]
        print(f"\n## {self.title}\n")
        for index, row in enumerate(text):
            print("| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |")
            if index == 0:
                print("|" + "|".join("-" * (width + 2) for width in widths) + "|")


def run_wmt17(args: argparse.Namespace, device: torch.device) -> dict | None:
    if not args.data.is_dir():
        print(f"wmt17: skipped, no data at {args.data}")
        return None
    sizes = workload_sizes(args)
    corpus = load_wmt17(args.data, 128, device, sizes.wmt17_systems, sizes.wmt17_lines)
    sentences = sum(preds.shape[0] for batches in corpus.values() for preds, _ in batches)
    tokens = sum(kept_tokens(preds) for batches in corpus.values() for preds, _ in batches)

    def whole_corpus(contender: Callable[[Iterable[Batch]], float]) -> Callable[[], list[float]]:
        return lambda: [contender(batches) for batches in corpus.values()]  # one corpus score per system

    runs = {name: whole_corpus(CORPUS_CONTENDERS[name]) for name in CONTENDERS}
    seconds, scores = time_interleaved(runs, args.repeats, device)
    ours = median(seconds["torch-bleu"])
    table = Table(
        f"WMT17 en-de: {len(corpus)} systems, {sentences} sentences, {tokens} hypothesis tokens, batches of 128 "
        f"({device.type}, {torch.get_num_threads()} threads, median of {args.repeats})",
        ["contender", "seconds", "sentences/s", "torch-bleu is faster by", "same scores"],
    )
    for name in CONTENDERS:
        table.rows.append(
            [
                name,
                f"{median(seconds[name]):.3f}",
                f"{sentences / median(seconds[name]):,.0f}",
                f"{median(seconds[name]) / ours:.1f}x",
                _same_scores(name, scores),
            ]
        )
    table.print()
    return {
        "systems": list(corpus),
        "sentences": sentences,
        "tokens": tokens,
        "seconds": seconds,
        "scores": scores,
        "table": table.rows,
    }


def _same_scores(name: str, scores: dict[str, object]) -> str:
    """Whether a contender's scores equal the reference it must reproduce (or torch-bleu's)."""
    if name in SAME_SCORE_AS:
        other, tolerance = SAME_SCORE_AS[name]
    elif name == "torchmetrics":
        other, tolerance = "torch-bleu", TORCHMETRICS_TOLERANCE
    else:
        return "reference"
    worst = max(abs(a - b) for a, b in zip(scores[name], scores[other]))
    return f"{'yes' if worst <= tolerance else 'NO'} vs {other} (max diff {worst:.1e})"


def run_grid(args: argparse.Namespace, device: torch.device) -> list[dict]:
    sizes = workload_sizes(args).grid
    sample_tokens = workload_sizes(args).grid_sample_tokens
    results = []
    table = Table(
        f"Synthetic grid: hypothesis tokens per second ({device.type}; Python contenders on a sample of "
        f"about {sample_tokens} token slots)",
        [
            "R",
            "B",
            "L",
            *[f"{name}" for name in CONTENDERS[:4]],
            "torch-bleu vs sacrebleu",
            "vs nltk",
            "vs torchmetrics",
        ],
    )
    for references in (1, 4):
        for width in sizes:
            for batch in sizes:
                preds, target = synthetic_batch(batch, width, references)
                preds, target = preds.to(device), target.to(device)
                rows = max(1, min(batch, sample_tokens // width))
                sample = [(preds[:rows], target[:rows])]
                runs = {name: functools.partial(CORPUS_CONTENDERS[name], sample) for name in CONTENDERS[:3]}
                runs["torch-bleu"] = functools.partial(torch_bleu.corpus_bleu, preds, target, ignore_ids=SPECIAL_IDS)
                seconds, _scores = time_interleaved(runs, min(args.repeats, 3), device)
                throughput = {
                    name: kept_tokens(sample[0][0] if name != "torch-bleu" else preds) / median(seconds[name])
                    for name in runs
                }
                results.append(
                    {
                        "references": references,
                        "batch": batch,
                        "width": width,
                        "sampled_rows": rows,
                        "seconds": seconds,
                        "tokens_per_second": throughput,
                    }
                )
                speedup = {name: throughput["torch-bleu"] / throughput[name] for name in CONTENDERS[:3]}
                table.rows.append(
                    [
                        references,
                        batch,
                        width,
                        *[f"{throughput[name]:,.0f}" for name in CONTENDERS[:4]],
                        f"{speedup['sacrebleu']:.0f}x",
                        f"{speedup['nltk']:.0f}x",
                        f"{speedup['torchmetrics']:.0f}x",
                    ]
                )
    table.print()
    return results


def run_rl(args: argparse.Namespace, device: torch.device) -> dict:
    """Per-sentence BLEU of one RL batch: torch-bleu on the whole batch, the others per row on a sample."""
    from nltk.translate.bleu_score import SmoothingFunction
    from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu
    from sacrebleu.metrics import BLEU

    batch, width = workload_sizes(args).rl
    preds, target = synthetic_batch(batch, width, 1, seed=1)
    preds, target = preds.to(device), target[:, 0].to(device)
    sample = max(1, min(batch, workload_sizes(args).rl_sample))
    sacrebleu_options = dict(ignore_ids=SPECIAL_IDS, smoothing="exp", effective_order=True)  # sacrebleu.sentence_bleu
    nltk_options = dict(ignore_ids=SPECIAL_IDS, convention="nltk", smoothing="method1")
    sentence_level = BLEU(tokenize="none", effective_order=True)
    smoothing = SmoothingFunction().method1

    def sacrebleu_rows() -> list[float]:
        rows = zip(preds[:sample].tolist(), target[:sample].tolist())
        return [sentence_level.sentence_score(_as_text(_strip(h)), [_as_text(_strip(r))]).score / 100 for h, r in rows]

    def nltk_rows() -> list[float]:
        rows = zip(preds[:sample].tolist(), target[:sample].tolist())
        return [nltk_sentence_bleu([_strip(r)], _strip(h), smoothing_function=smoothing) for h, r in rows]

    runs = {
        "torch-bleu": lambda: torch_bleu.sentence_bleu(preds, target, **sacrebleu_options),
        "torch-bleu (nltk convention)": lambda: torch_bleu.sentence_bleu(preds, target, **nltk_options),
        "sacrebleu": sacrebleu_rows,
        "nltk": nltk_rows,
    }
    seconds, scores = time_interleaved(runs, max(args.repeats, 3), device)
    per_row = {name: median(seconds[name]) / (batch if name.startswith("torch-bleu") else sample) for name in runs}
    same = {
        "torch-bleu": max(abs(a - b) for a, b in zip(scores["torch-bleu"][:sample].tolist(), scores["sacrebleu"])),
        "torch-bleu (nltk convention)": max(
            abs(a - b) for a, b in zip(scores["torch-bleu (nltk convention)"][:sample].tolist(), scores["nltk"])
        ),
    }
    table = Table(
        f"Per-sentence BLEU of a {batch} x {width} batch ({device.type}; sacrebleu and nltk on {sample} rows)",
        ["contender", f"ms for {batch} rows", "torch-bleu is faster by", "max score difference"],
    )
    for name in runs:
        reference = "torch-bleu (nltk convention)" if name in ("nltk", "torch-bleu (nltk convention)") else "torch-bleu"
        table.rows.append(
            [
                name,
                f"{per_row[name] * batch * 1e3:.1f}",
                f"{per_row[name] / per_row[reference]:.0f}x",
                f"{same[name]:.1e}" if name in same else "reference",
            ]
        )
    table.print()
    return {
        "batch": batch,
        "width": width,
        "sampled_rows": sample,
        "seconds": seconds,
        "seconds_per_row": per_row,
        "max_score_difference": same,
    }


def peak_update_bytes(preds: Tensor, target: Tensor) -> int:
    """Peak bytes allocated by ``BLEUScore.update`` beyond what was allocated before it."""
    metric = torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS).to(preds.device)
    metric.update(preds, target)  # warm-up
    if preds.device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        metric.update(preds, target)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    # The profiler that torch.profiler.profile wraps: the same events, without the wrapper's first-use
    # import of torch._inductor (about 4 s here)
    from torch.autograd.profiler import profile

    with profile(use_cpu=True, profile_memory=True, use_kineto=True) as profiler:
        metric.update(preds, target)
    # every allocation (+) and free (-) in time order; the peak of their running total
    changes = sorted(
        (event.start_ns(), event.nbytes()) for event in profiler.kineto_results.events() if event.name() == "[memory]"
    )
    running = peak = 0
    for _, change in changes:
        running += change
        peak = max(peak, running)
    return peak


def run_memory(args: argparse.Namespace, device: torch.device) -> list[dict]:
    sizes = workload_sizes(args)
    shapes = [(sizes.memory_batch, width) for width in sizes.memory_widths]
    results = []
    table = Table(
        f"Peak memory of BLEUScore.update ({device.type}): it grows linearly with the number of token slots",
        ["R", "B x L", "token slots", "peak MiB", "bytes per slot"],
    )
    for references in (1, 4):
        for batch, width in shapes:
            preds, target = synthetic_batch(batch, width, references)
            preds, target = preds.to(device), target.to(device)
            slots = preds.numel() + target.numel()
            peak = peak_update_bytes(preds, target)
            results.append(
                {"references": references, "batch": batch, "width": width, "slots": slots, "peak_bytes": peak}
            )
            table.rows.append(
                [references, f"{batch} x {width}", f"{slots:,}", f"{peak / 2**20:.1f}", f"{peak / slots:.0f}"]
            )
    table.print()
    return results


def run_update_latency(args: argparse.Namespace, device: torch.device) -> dict:
    """``BLEUScore.update`` alone on one 256 x 1024 batch (R = 1), and whether it ever waits for the device.

    On CUDA the update runs under ``torch.cuda.set_sync_debug_mode("error")``, which raises on any
    host-device synchronization.
    """
    batch, width = workload_sizes(args).update
    preds, target = synthetic_batch(batch, width, 1)
    preds, target = preds.to(device), target.to(device)
    metric = torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS).to(device)
    metric.update(preds, target)  # warm-up
    sync_free = None
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.set_sync_debug_mode("error")
        try:
            metric.update(preds, target)
            sync_free = True
        except RuntimeError:
            sync_free = False
        finally:
            torch.cuda.set_sync_debug_mode("default")
    seconds, _ = time_interleaved({"update": lambda: metric.update(preds, target)}, max(args.repeats, 20), device)
    table = Table(
        f"BLEUScore.update on one {batch} x {width} batch, R = 1 ({device.type})", ["median ms", "host syncs"]
    )
    table.rows.append(
        [f"{median(seconds['update']) * 1e3:.2f}", {None: "n/a on CPU", True: "none", False: "SOME"}[sync_free]]
    )
    table.print()
    return {"batch": batch, "width": width, "seconds": seconds["update"], "sync_free": sync_free}


def plot(grid: list[dict], path: Path) -> None:
    """Throughput against row length, one line per contender, one panel per number of references."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    batch = max(result["batch"] for result in grid if result["batch"] <= 256)
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for axis, references in zip(axes, (1, 4)):
        points = sorted(
            (r["width"], r["tokens_per_second"]) for r in grid if r["references"] == references and r["batch"] == batch
        )
        for name in CONTENDERS[:4]:
            axis.plot([width for width, _ in points], [speed[name] for _, speed in points], marker="o", label=name)
        axis.set(
            xscale="log", yscale="log", xlabel="row length L (tokens, padded)", title=f"B = {batch}, R = {references}"
        )
        axis.set_xticks([width for width, _ in points], [str(width) for width, _ in points])
        axis.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("hypothesis tokens per second")
    axes[1].legend(loc="center")
    figure.suptitle(f"Corpus BLEU from padded id tensors ({cpu_name()}, {torch.get_num_threads()} threads)")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    print(f"\nplot written to {path}")


def cpu_name() -> str:
    """The CPU's model name where Linux says it, else what Python's platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run of a few seconds: every workload, on tiny inputs"
    )
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file ('-' for stdout)")
    parser.add_argument("--plot", type=Path, help="write a PNG of throughput against row length")
    parser.add_argument("--device", default="cpu", help="device of the padded tensors (cpu or cuda)")
    parser.add_argument("--repeats", type=int, help="timed rounds per measurement (default 5, 1 with --quick)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's own choice)")
    parser.add_argument("--data", type=Path, default=WMT_DIR, help="the wmt17-en-de folder")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["wmt17", "grid", "rl", "update", "memory"],
        help="workloads to leave out",
    )
    args = parser.parse_args(argv)
    if args.repeats is None:
        args.repeats = 1 if args.quick else 5
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("--device cuda: no CUDA device here; nothing to benchmark")
        return 0
    if args.threads:
        torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")  # nltk's and sacrebleu's advice about sentence-level BLEU
    report: dict[str, object] = {
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "torch_bleu": torch_bleu.__version__,
            "device": torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_name(),
            "threads": torch.get_num_threads(),
            "quick": args.quick,
            "repeats": args.repeats,
            "sizes": asdict(workload_sizes(args)),
        }
    }
    workloads = {"wmt17": run_wmt17, "grid": run_grid, "rl": run_rl, "update": run_update_latency, "memory": run_memory}
    for name, run in workloads.items():
        if name not in args.skip:
            report[name] = run(args, device)
    if args.plot and report.get("grid"):
        plot(report["grid"], args.plot)
    if args.json:
        text = json.dumps(
            report, indent=1, default=lambda value: value.tolist() if isinstance(value, Tensor) else str(value)
        )
        if str(args.json) == "-":
            print(text)
        else:
            args.json.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

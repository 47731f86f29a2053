"""The workloads: each times the contenders on its inputs, prints a table and returns its figures."""

from __future__ import annotations

import argparse
import functools
import os
import tracemalloc
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor

import torch_bleu

from .ab import fresh_figures
from .common import CONTENDERS, PAD, SPECIAL_IDS, Batch, counted_update, cpu_name, workload_sizes
from .contenders import (
    CORPUS_CONTENDERS,
    FLOAT32_TOLERANCE,
    SAME_SCORE_AS,
    as_text,
    strip_special,
    tensorbleu_available,
    tensorbleu_inputs,
)
from .data import kept_tokens, load_wmt17, synthetic_batch
from .timing import busy_cores, median, time_interleaved


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

    contenders = [*CONTENDERS, *(["tensorbleu"] if tensorbleu_available() else [])]
    runs = {name: whole_corpus(CORPUS_CONTENDERS[name]) for name in contenders}
    seconds, scores = time_interleaved(runs, args.repeats, device)
    ours = median(seconds["torch-bleu"])
    table = Table(
        f"WMT17 en-de: {len(corpus)} systems, {sentences} sentences, {tokens} hypothesis tokens, batches of 128 "
        f"({device.type}, {torch.get_num_threads()} threads, median of {args.repeats})",
        ["contender", "seconds", "sentences/s", "torch-bleu is faster by", "same scores"],
    )
    for name in contenders:
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


def run_threads(args: argparse.Namespace, device: torch.device) -> list[dict] | None:
    """WMT17 with torch-bleu and sacrebleu under each thread setting, machine idle and with one core busy."""
    if device.type != "cpu" or not args.data.is_dir():
        print("threads: skipped (CPU only, needs the WMT17 data)")
        return None
    sizes = workload_sizes(args)
    corpus = load_wmt17(args.data, 128, device, sizes.wmt17_systems, sizes.wmt17_lines)
    runs = {
        name: (lambda contender=CORPUS_CONTENDERS[name]: [contender(batches) for batches in corpus.values()])
        for name in ("sacrebleu", "torch-bleu")
    }
    threads_before = torch.get_num_threads()
    settings = sorted({1, 2, os.cpu_count() or 1})
    table = Table(
        f"WMT17 en-de, {len(corpus)} systems, by torch thread setting and machine load (median of {args.repeats})",
        ["torch threads", "other load", "torch-bleu s", "sacrebleu s", "torch-bleu is faster by"],
    )
    results = []
    try:
        for threads in settings:
            torch.set_num_threads(threads)
            for busy in (0, 1):
                with busy_cores(busy):
                    seconds, _ = time_interleaved(runs, args.repeats, device, busy=False)
                ours, theirs = median(seconds["torch-bleu"]), median(seconds["sacrebleu"])
                load = "idle" if not busy else f"{busy} core busy"
                results.append({"threads": threads, "busy_cores": busy, "torch_bleu": ours, "sacrebleu": theirs})
                table.rows.append([threads, load, f"{ours:.3f}", f"{theirs:.3f}", f"{theirs / ours:.1f}x"])
    finally:
        torch.set_num_threads(threads_before)
    table.print()
    return results


def _same_scores(name: str, scores: dict[str, object]) -> str:
    """Whether a contender's scores equal the reference it must reproduce (or torch-bleu's)."""
    if name in SAME_SCORE_AS:
        other, tolerance = SAME_SCORE_AS[name]
    elif name == "torchmetrics":
        other, tolerance = "torch-bleu", FLOAT32_TOLERANCE
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
                seconds, _scores = time_interleaved(
                    runs, min(args.repeats, 3), device, f"R={references} {batch}x{width}"
                )
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
        return [
            sentence_level.sentence_score(as_text(strip_special(h)), [as_text(strip_special(r))]).score / 100
            for h, r in rows
        ]

    def nltk_rows() -> list[float]:
        rows = zip(preds[:sample].tolist(), target[:sample].tolist())
        return [nltk_sentence_bleu([strip_special(r)], strip_special(h), smoothing_function=smoothing) for h, r in rows]

    runs = {
        "torch-bleu": lambda: torch_bleu.sentence_bleu(preds, target, **sacrebleu_options),
        "torch-bleu (nltk convention)": lambda: torch_bleu.sentence_bleu(preds, target, **nltk_options),
        "sacrebleu": sacrebleu_rows,
        "nltk": nltk_rows,
    }
    if tensorbleu_available():
        from rxlm.metrics.tensorbleu import tensor_sentence_bleu

        runs["tensorbleu"] = lambda: tensor_sentence_bleu(*tensorbleu_inputs(preds, target), smoothing_method="exp")
    seconds, scores = time_interleaved(runs, max(args.repeats, 3), device, f"{batch}x{width}")
    whole_batch = ("torch-bleu", "tensorbleu")
    per_row = {name: median(seconds[name]) / (batch if name.startswith(whole_batch) else sample) for name in runs}
    same = {
        "torch-bleu": max(abs(a - b) for a, b in zip(scores["torch-bleu"][:sample].tolist(), scores["sacrebleu"])),
        "torch-bleu (nltk convention)": max(
            abs(a - b) for a, b in zip(scores["torch-bleu (nltk convention)"][:sample].tolist(), scores["nltk"])
        ),
    }
    if "tensorbleu" in runs:  # no effective order: short rows differ from sacrebleu's sentence_bleu
        same["tensorbleu"] = max(
            abs(a - b) for a, b in zip(scores["tensorbleu"][:sample].tolist(), scores["sacrebleu"])
        )
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
    fresh = fresh_figures(quick=args.quick)  # the first call of a process, its imports included
    table.rows.append(
        [
            "torch-bleu, first call of a fresh process",
            f"{fresh['rl first call']:.1f}",
            f"{fresh['rl first call'] / fresh['rl']:.1f}x the later calls there",
            "",
        ]
    )
    table.print()
    return {
        "batch": batch,
        "width": width,
        "first_call_ms": fresh["rl first call"],
        "later_calls_ms": fresh["rl"],
        "sampled_rows": sample,
        "seconds": seconds,
        "seconds_per_row": per_row,
        "max_score_difference": same,
    }


def peak_update_bytes(preds: Tensor, target: Tensor) -> int:
    """Peak bytes allocated by ``BLEUScore.update`` beyond what was allocated before it."""
    return peak_bytes(lambda: torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS).to(preds.device), preds, target)


def peak_bytes(make_metric: Callable[[], torch_bleu.BLEUScore], preds: Tensor, target: Tensor) -> int:
    """Peak bytes allocated by the ``update`` of the metric ``make_metric`` makes, beyond what was allocated before."""
    metric = make_metric()
    metric.update(preds, target)  # warm-up
    if preds.device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        counted_update(metric, preds, target)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    # On the CPU a batch is counted with NumPy, whose arrays tracemalloc follows, beside a few tensors,
    # which PyTorch's profiler follows: the two peaks added (a bound, as they need not coincide).
    # The profiler is the one torch.profiler.profile wraps: the same events, without the wrapper's
    # first-use import of torch._inductor (about 4 s here).
    from torch.autograd.profiler import profile

    tracemalloc.start()
    try:
        with profile(use_cpu=True, profile_memory=True, use_kineto=True) as profiler:
            counted_update(metric, preds, target)
        _, host_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # every allocation (+) and free (-) of a tensor in time order; the peak of their running total
    changes = sorted(
        (event.start_ns(), event.nbytes()) for event in profiler.kineto_results.events() if event.name() == "[memory]"
    )
    running = peak = 0
    for _, change in changes:
        running += change
        peak = max(peak, running)
    return host_peak + peak


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
    """``BLEUScore.update`` alone on one 256 x 1024 batch (R = 1), its queue counted (:func:`counted_update`),
    and whether it ever waits for the device.

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
            counted_update(metric, preds, target)
            sync_free = True
        except RuntimeError:
            sync_free = False
        finally:
            torch.cuda.set_sync_debug_mode("default")
    seconds, _ = time_interleaved(
        {"update": lambda: counted_update(metric, preds, target)}, max(args.repeats, 20), device, f"{batch}x{width}"
    )
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


def run_tensorbleu(args: argparse.Namespace, device: torch.device) -> list[dict]:
    """torch-bleu against TensorBLEU (when installed) on the batch shapes RL trainers score: per-sentence and
    corpus BLEU of 16 to 512 rows x 256 and 1024 tokens (``exp`` smoothing; TensorBLEU's published tables), on
    ``device``; each row also says how many times faster torch-bleu is."""
    available = tensorbleu_available()
    if not available:
        print("tensorbleu: TensorBLEU is not installed (pip install rxlm --no-deps); torch-bleu alone")
    rows = (16, 32, 64, 128, 256, 512)
    shapes = [workload_sizes(args).rl] if args.quick else [(batch, width) for batch in rows for width in (256, 1024)]
    table = Table(
        f"Per-sentence and corpus BLEU against TensorBLEU ({device.type}, ms, median of {max(args.repeats, 3)})",
        ["B x L", "torch-bleu sentence", "TensorBLEU sentence", "torch-bleu corpus", "TensorBLEU corpus"],
    )
    results = []
    for batch, width in shapes:
        preds, target = synthetic_batch(batch, width, 1, seed=1)
        preds, target = preds.to(device), target[:, 0].to(device)
        runs = _tensorbleu_runs(preds, target, available)
        seconds, _ = time_interleaved(runs, max(args.repeats, 3), device, f"{batch}x{width}")
        ms = {name: median(seconds[name]) * 1e3 for name in runs}
        faster = {
            kind: ms[f"TensorBLEU {kind}"] / ms[f"torch-bleu {kind}"]
            for kind in ("sentence", "corpus")
            if f"TensorBLEU {kind}" in ms
        }
        results.append({"batch": batch, "width": width, "ms": ms, "torch_bleu_faster_by": faster})
        table.rows.append(
            [f"{batch} x {width}", *(f"{ms[name]:.2f}" if name in ms else "-" for name in table.columns[1:])]
        )
    table.print()
    return results


def _tensorbleu_runs(preds: Tensor, target: Tensor, tensorbleu: bool) -> dict[str, Callable[[], object]]:
    """torch-bleu's per-sentence and corpus BLEU of one batch, and TensorBLEU's where it is installed."""
    options = dict(ignore_ids=SPECIAL_IDS, smoothing="exp")
    runs: dict[str, Callable[[], object]] = {
        "torch-bleu sentence": functools.partial(torch_bleu.sentence_bleu, preds, target, **options),
        "torch-bleu corpus": functools.partial(torch_bleu.corpus_bleu, preds, target, **options),
    }
    if tensorbleu:
        from rxlm.metrics.tensorbleu import tensor_corpus_bleu, tensor_sentence_bleu

        inputs = tensorbleu_inputs(preds, target)
        runs["TensorBLEU sentence"] = functools.partial(tensor_sentence_bleu, *inputs, smoothing_method="exp")
        runs["TensorBLEU corpus"] = functools.partial(
            tensor_corpus_bleu, *inputs, pad_token_id=PAD, smoothing_method="exp"
        )
    return runs

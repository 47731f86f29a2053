"""The ``pairwise`` workload: sentence chrF and BLEU of every candidate against every other candidate of
its source (MBR utility matrices), and aggregate chrF (each candidate against the mean statistics of
its source's candidates), from WMT17 reference lines used as candidates.

Shapes ``S x N x N``: one source of 256 candidates, 60 sources of 16, and (chrF only) one source of
1024. Contenders on the same strings: ``torch_bleu.pairwise_chrf`` / ``pairwise_bleu`` /
``aggregate_chrf``; fastchrf's ``pairwise_chrf`` and ``aggregate_chrf`` (Rust, made for MBR), when
installed; and sacrebleu's ``sentence_score`` in a loop over the pairs. The loop's cost is per pair,
so it runs on the first :data:`SAMPLED` candidates of every source and its time is scaled to all of
them (marked *estimated*); its scores are compared on those pairs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import torch

import torch_bleu

from .timing import median, time_interleaved
from .workloads import Table

#: Candidates of each source that sacrebleu's loop scores (against all of the source's candidates).
SAMPLED = 8


def run_pairwise(args: argparse.Namespace, device: torch.device) -> dict | None:
    path = args.data / "newstest2017.ref.de"
    if not path.is_file():
        print(f"pairwise: skipped, no WMT17 data in {args.data}")
        return None
    from sacrebleu.metrics import BLEU, CHRF

    lines = path.read_text(encoding="utf-8").splitlines()
    shapes = [(1, 32), (4, 8)] if args.quick else [(1, 256), (60, 16), (1, 1024)]
    results = {}
    for sources, size in shapes:
        candidates = [lines[source * size : (source + 1) * size] for source in range(sources)]
        for metric, runs in (
            ("chrF", _chrf_runs(candidates, CHRF())),
            ("BLEU", _bleu_runs(candidates, BLEU(effective_order=True))),
            ("chrF aggregate", _aggregate_runs(candidates)),
        ):
            if metric == "BLEU" and size > 256:
                continue
            name = f"{metric} {sources} x {size}" + ("" if "aggregate" in metric else f" x {size}")
            results[name] = _table(name, runs, args, device, size)
    return results


def _chrf_runs(candidates: list[list[str]], chrf: object) -> dict[str, Callable[[], object]]:
    runs: dict[str, Callable[[], object]] = {
        "torch-bleu": lambda: torch_bleu.pairwise_chrf(candidates),
        "sacrebleu CHRF loop (estimated)": lambda: _loop(chrf, candidates),
    }
    try:
        import fastchrf
    except ImportError:
        print("pairwise: fastchrf is not installed (pip install fastchrf); left out")
    else:
        runs["fastchrf"] = lambda: (
            torch.tensor(fastchrf.pairwise_chrf(candidates, candidates), dtype=torch.float64) / 100
        )
    return runs


def _aggregate_runs(candidates: list[list[str]]) -> dict[str, Callable[[], object]]:
    """Aggregate chrF (reference aggregation) of each source's candidates against their own mean."""
    runs: dict[str, Callable[[], object]] = {"torch-bleu": lambda: torch_bleu.aggregate_chrf(candidates)}
    try:
        import fastchrf
    except ImportError:
        return runs
    runs["fastchrf"] = lambda: torch.tensor(fastchrf.aggregate_chrf(candidates, candidates), dtype=torch.float64) / 100
    return runs


def _bleu_runs(candidates: list[list[str]], bleu: object) -> dict[str, Callable[[], object]]:
    """sacrebleu's ``BLEU(effective_order=True)`` (exp smoothing) and torch-bleu's equal."""
    return {
        "torch-bleu": lambda: torch_bleu.pairwise_bleu(candidates, smoothing="exp", effective_order=True),
        "sacrebleu BLEU loop (estimated)": lambda: _loop(bleu, candidates),
    }


def _loop(metric: object, candidates: list[list[str]]) -> torch.Tensor:
    """sacrebleu's sentence scores of the first :data:`SAMPLED` candidates of each source against all."""
    score = metric.sentence_score  # type: ignore[attr-defined]
    return torch.tensor(
        [[[score(c, [r]).score / 100 for r in group] for c in group[:SAMPLED]] for group in candidates],
        dtype=torch.float64,
    )


def _table(name: str, runs: dict[str, Callable[[], object]], args: argparse.Namespace, device, size: int) -> dict:
    seconds, scores = time_interleaved(runs, args.repeats, torch.device("cpu"), name)
    scale = {run: size / min(SAMPLED, size) if "estimated" in run else 1.0 for run in runs}
    fastest = median(seconds["torch-bleu"])
    ours = scores["torch-bleu"]
    aggregate = "aggregate" in name
    shape = "(sources x candidates)" if aggregate else "(sources x candidates x references)"
    table = Table(
        f"Pairwise {name} {shape}, WMT17 lines ({device.type}, median of {args.repeats})",
        [
            "contender",
            "seconds",
            "candidates/s" if aggregate else "pairs/s",
            "torch-bleu is faster by",
            "largest score difference",
        ],
    )
    pairs = ours.numel()  # type: ignore[attr-defined]
    for run in runs:
        theirs = scores[run]
        compared = ours[:, : theirs.shape[1]]  # type: ignore[index, union-attr]
        took = median(seconds[run]) * scale[run]
        table.rows.append(
            [
                run,
                f"{took:.3f}",
                f"{pairs / took:,.0f}",
                f"{took / fastest:.2f}x",
                f"{(compared - theirs).abs().max().item():.1e}",  # type: ignore[operator]
            ]
        )
    table.print()
    return {"seconds": seconds, "scale": scale, "table": table.rows}

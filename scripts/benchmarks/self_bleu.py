"""The ``self_bleu`` workload: self-BLEU against all the others (Texygen's) and aggregate BLEU (MBR with
reference aggregation), from WMT17 lines.

* Self-BLEU of one group of 10,000 distinct lines (the reference, then the systems' outputs), nltk's
  convention with ``method1`` on whitespace tokens, as Texygen computes it: ``torch_bleu.self_bleu(...,
  "others")`` against fast-bleu's ``SelfBLEU`` (C++, threaded), when installed. fast-bleu takes tens of
  seconds there, so it runs once (untimed warm-up left out), torch-bleu ``--repeats`` times.
* Aggregate BLEU of the 16 systems' outputs of 200 sources, each against the others as references
  (``S x 16``), and of one source of 1,024 reference lines: ``torch_bleu.aggregate_bleu`` against mbrs's
  ``MetricBLEU.expected_scores_reference_aggregation`` (a Python loop over the hypotheses of each
  source), when mbrs is installed (``pip install --no-deps mbrs`` is enough).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

import torch_bleu

from .timing import median, time_interleaved
from .workloads import Table

TESTS = Path(__file__).resolve().parents[2] / "tests"


def run_self_bleu(args: argparse.Namespace, device: torch.device) -> dict | None:
    reference = args.data / "newstest2017.ref.de"
    if not reference.is_file():
        print(f"self_bleu: skipped, no WMT17 data in {args.data}")
        return None
    systems = [path.read_text(encoding="utf-8").splitlines() for path in sorted(args.data.glob("sys.*.de"))]
    lines = reference.read_text(encoding="utf-8").splitlines()
    pool = [line for group in [lines, *systems] for line in group]
    size = 500 if args.quick else 10_000
    return {
        "self_bleu": _self_bleu(list(dict.fromkeys(pool))[:size], args),
        "aggregate_bleu": _aggregate(systems, lines, args),
    }


def _self_bleu(lines: list[str], args: argparse.Namespace) -> dict:
    options = {"convention": "nltk", "smoothing": "method1", "tokenize": "none"}
    name = f"self-BLEU against the others, 1 x {len(lines)}"
    seconds, scores = time_interleaved(
        {"torch-bleu": lambda: torch_bleu.self_bleu([lines], "others", **options)},
        args.repeats,
        torch.device("cpu"),
        name,
    )
    ours = float(scores["torch-bleu"][0])  # type: ignore[index]
    took = median(seconds["torch-bleu"])
    table = Table(
        f"Self-BLEU (Texygen's: each line against all the others), {len(lines)} WMT17 lines, CPU",
        ["contender", "seconds", "lines/s", "torch-bleu is faster by", "self-BLEU"],
    )
    table.rows.append(["torch-bleu", f"{took:.3f}", f"{len(lines) / took:,.0f}", "1.00x", f"{ours:.15f}"])
    record: dict = {"seconds": seconds}
    try:
        from fast_bleu import SelfBLEU
    except ImportError:
        print("self_bleu: fast-bleu is not installed (pip install fast-bleu); left out")
    else:
        tokens = [line.split() for line in lines]
        start = time.perf_counter()
        each = SelfBLEU(tokens, {4: (0.25, 0.25, 0.25, 0.25)}).get_score()[4]
        theirs_took = time.perf_counter() - start
        theirs = sum(each) / len(each)
        record["fast-bleu"] = {"seconds": theirs_took, "self_bleu": theirs, "difference": abs(theirs - ours)}
        table.rows.append(
            [
                "fast-bleu SelfBLEU (one run)",
                f"{theirs_took:.3f}",
                f"{len(lines) / theirs_took:,.0f}",
                f"{theirs_took / took:.1f}x",
                f"{theirs:.15f} ({abs(theirs - ours):.1e} apart)",
            ]
        )
    table.print()
    record["table"] = table.rows
    return record


def _aggregate(systems: list[list[str]], lines: list[str], args: argparse.Namespace) -> dict:
    shapes = {
        f"{'20' if args.quick else '200'} x {len(systems)}": [
            [system[index] for system in systems] for index in range(20 if args.quick else 200)
        ],
        f"1 x {128 if args.quick else 1024}": [lines[: 128 if args.quick else 1024]],
    }
    options = {"smoothing": "exp", "effective_order": True}
    metric = _mbrs_bleu()
    results = {}
    for shape, groups in shapes.items():
        runs: dict[str, Callable[[], object]] = {
            "torch-bleu": lambda groups=groups: torch_bleu.aggregate_bleu(groups, **options)  # type: ignore[misc]
        }
        if metric is not None:
            runs["mbrs MetricBLEU"] = lambda groups=groups: [
                metric.expected_scores_reference_aggregation(group, group).double() / 100 for group in groups
            ]
        name = f"aggregate BLEU {shape}"
        seconds, scores = time_interleaved(runs, args.repeats, torch.device("cpu"), name)
        fastest = median(seconds["torch-bleu"])
        table = Table(
            f"Aggregate BLEU (each candidate against its group's expected n-gram counts), {shape}, CPU",
            ["contender", "seconds", "torch-bleu is faster by", "largest score difference"],
        )
        ours = scores["torch-bleu"]
        for run in runs:
            difference = (
                max((ours[source] - theirs).abs().max().item() for source, theirs in enumerate(scores[run]))  # type: ignore[index, arg-type]
                if run != "torch-bleu"
                else 0.0
            )
            took = median(seconds[run])
            table.rows.append([run, f"{took:.3f}", f"{took / fastest:.1f}x", f"{difference:.1e}"])
        table.print()
        results[name] = {"seconds": seconds, "table": table.rows}
    return results


def _mbrs_bleu() -> object | None:
    """mbrs's ``MetricBLEU`` (exp smoothing, effective order), or ``None`` where mbrs is not installed."""
    sys.path.insert(0, str(TESTS))
    try:
        from mbrs_bleu import mbrs_metrics
    finally:
        sys.path.remove(str(TESTS))
    metrics = mbrs_metrics()
    if metrics is None:
        print("self_bleu: mbrs is not installed (pip install --no-deps mbrs); left out")
        return None
    return metrics.MetricBLEU(metrics.MetricBLEU.Config())

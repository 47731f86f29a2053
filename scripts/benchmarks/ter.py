"""The ``ter`` workload: TER of WMT17 systems from their text lines.

sacrebleu's ``TER().corpus_score`` on each system, torchmetrics' ``TranslationEditRate`` updated with
the same lines, and ``TERScore`` updated once per system (its shift search runs over the whole batch
at once), all with sacrebleu's defaults (lowercased, split at whitespace). Scores are compared with
sacrebleu's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

import torch_bleu

from .data import wmt17_text
from .timing import median, time_interleaved
from .workloads import Table

#: Systems and sentences of each: what the first two WMT17 systems' first 800 lines are.
SYSTEMS, SENTENCES = 2, 800


def run_ter(args: argparse.Namespace, device: torch.device) -> dict | None:
    data = Path(args.data)
    if not data.is_dir():
        print(f"ter: skipped, no WMT17 data in {data}")
        return None
    from sacrebleu.metrics import TER
    from torchmetrics.text import TranslationEditRate

    sentences = 60 if args.quick else SENTENCES
    reference, systems = wmt17_text(data, SYSTEMS, sentences)

    def sacrebleu_ter() -> list[float]:
        return [TER().corpus_score(lines, [reference]).score / 100 for lines in systems]

    def torchmetrics_ter() -> list[float]:
        scores = []
        for lines in systems:
            metric = TranslationEditRate()
            metric.update(lines, [[line] for line in reference])
            scores.append(float(metric.compute()))
        return scores

    def ours() -> list[float]:
        scores = []
        for lines in systems:
            metric = torch_bleu.TERScore().to(device)
            metric.update(lines, reference)
            scores.append(float(metric.compute()))
        return scores

    runs = {"sacrebleu TER": sacrebleu_ter, "torchmetrics TranslationEditRate": torchmetrics_ter, "torch-bleu": ours}
    seconds, scores = time_interleaved(runs, args.repeats, device)
    fastest = median(seconds["torch-bleu"])
    table = Table(
        f"TER of WMT17 en-de from text: {len(systems)} systems x {sentences} sentences, one batch per system "
        f"({device.type}, median of {args.repeats})",
        ["contender", "seconds", "sentences/s", "torch-bleu is faster by", "largest score difference"],
    )
    for name in runs:
        difference = max(abs(a - b) for a, b in zip(scores[name], scores["sacrebleu TER"]))
        table.rows.append(
            [
                name,
                f"{median(seconds[name]):.3f}",
                f"{len(systems) * sentences / median(seconds[name]):,.0f}",
                f"{median(seconds[name]) / fastest:.2f}x",
                f"{difference:.1e}",
            ]
        )
    table.print()
    return {"seconds": seconds, "scores": scores, "table": table.rows}

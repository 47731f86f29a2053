"""The ``significance`` workload: confidence intervals and paired tests of metrics that keep their sentences.

Two ``BLEUScore(keep_sentences=True)`` metrics are updated with 3,000 synthetic sentences each (batches
of 128 padded ids); what is timed is what a validation loop adds at the end of an epoch:
``confidence_interval()`` (1,000 bootstrap resamples), ``paired_bootstrap`` (1,000) and
``paired_randomization`` (10,000 trials) of the two. sacrebleu's ``--confidence -cin 1000`` on the same
statistics (its bootstrap alone, from its per-sentence statistics) is the contender.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import torch

import torch_bleu

from .common import SPECIAL_IDS
from .data import synthetic_batch
from .timing import median, time_interleaved
from .workloads import Table

#: Sentences of each system, as many as a WMT test set.
SENTENCES = 3000


def run_significance(args: argparse.Namespace, device: torch.device) -> dict:
    sentences = 256 if args.quick else SENTENCES
    metrics = []
    for system in range(2):
        metric = torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS, keep_sentences=True).to(device)
        for start in range(0, sentences, 128):
            preds, target = synthetic_batch(min(128, sentences - start), 40, 1, seed=1000 * system + start)
            indices = torch.arange(start, start + len(preds), device=device)
            metric.update(preds.to(device), target.to(device), indices=indices)
        metrics.append(metric)
    baseline, system = metrics
    statistics = _sacrebleu_statistics(baseline)

    def sacrebleu_interval() -> float:
        from sacrebleu.metrics import BLEU
        from sacrebleu.significance import _bootstrap_resample

        os.environ.setdefault("SACREBLEU_SEED", "12345")
        _, resamples = _bootstrap_resample(statistics, BLEU(tokenize="none", smooth_method="none"), 1000)
        return float(np.mean([score.score for score in resamples])) / 100

    runs = {
        "sacrebleu bootstrap (1,000)": sacrebleu_interval,
        "torch-bleu confidence_interval (1,000)": lambda: baseline.confidence_interval().mean,
        "torch-bleu paired_bootstrap (1,000)": lambda: torch_bleu.paired_bootstrap(baseline, system)[0].p_value,
        "torch-bleu paired_randomization (10,000)": lambda: (
            torch_bleu.paired_randomization(baseline, system)[0].p_value
        ),
    }
    seconds, results = time_interleaved(runs, args.repeats, device, label="significance")
    table = Table(
        f"Confidence interval and paired tests of BLEUScore(keep_sentences=True): {sentences} sentences per system "
        f"({device.type}, median of {args.repeats})",
        ["contender", "seconds", "result"],
    )
    for name in runs:
        table.rows.append([name, f"{median(seconds[name]):.3f}", f"{results[name]:.6f}"])
    table.print()
    return {"seconds": seconds, "table": table.rows}


def _sacrebleu_statistics(metric: torch_bleu.BLEUScore) -> list[list[int]]:
    """The kept sentences as sacrebleu's per-sentence statistics (its layout is the packed one)."""
    return metric.kept_corpus().statistics.cpu().tolist()

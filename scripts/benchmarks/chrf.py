"""The ``chrf`` workload: chrF++ of the WMT17 systems, from text and from SentencePiece ids.

* From text: ``CHRFScore(word_order=2)`` updated with batches of 128 strings against sacrebleu's
  ``CHRF(word_order=2).corpus_score`` on each whole system (its fastest use).
* From ids: ``CHRFScore(word_order=2, detokenizer=...)`` on the padded id batches of the ``subwords``
  workload against decoding every row and calling sacrebleu.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import torch

import torch_bleu

from .common import SPECIAL_IDS
from .subwords import load_subword_corpus
from .timing import median, time_interleaved
from .workloads import Table


def run_chrf(args: argparse.Namespace, device: torch.device) -> dict | None:
    loaded = load_subword_corpus(args, device, "chrf")
    if loaded is None:
        return None
    from sacrebleu.metrics import CHRF

    reference = loaded.reference

    def sacrebleu_text() -> list[float]:
        return [CHRF(word_order=2).corpus_score(lines, [reference]).score / 100 for lines in loaded.systems.values()]

    def ours_text() -> list[float]:
        scores = []
        for lines in loaded.systems.values():
            metric = torch_bleu.CHRFScore(word_order=2).to(device)
            for start in range(0, len(lines), 128):
                metric.update(lines[start : start + 128], reference[start : start + 128])
            scores.append(float(metric.compute()))
        return scores

    def sacrebleu_ids() -> list[float]:
        scores = []
        for batches in loaded.batches.values():
            hypotheses, references = [], []
            for preds, target in batches:
                hypotheses += loaded.decode(preds)
                references += loaded.decode(target)
            scores.append(CHRF(word_order=2).corpus_score(hypotheses, [references]).score / 100)
        return scores

    def ours_ids() -> list[float]:
        scores = []
        for batches in loaded.batches.values():
            metric = torch_bleu.CHRFScore(word_order=2, detokenizer=loaded.detokenizer, ignore_ids=SPECIAL_IDS)
            metric = metric.to(device)
            for preds, target in batches:
                metric.update(preds, target)
            scores.append(float(metric.compute()))
        return scores

    results = {}
    for source, runs in (
        ("text", {"sacrebleu CHRF": sacrebleu_text, "torch-bleu": ours_text}),
        ("SentencePiece ids", {"decode + sacrebleu CHRF": sacrebleu_ids, "torch-bleu": ours_ids}),
    ):
        results[source] = _table(source, runs, args, device, len(loaded.systems), len(reference))
    return results


def _table(
    source: str,
    runs: dict[str, Callable[[], list[float]]],
    args: argparse.Namespace,
    device: torch.device,
    systems: int,
    sentences: int,
) -> dict:
    seconds, scores = time_interleaved(runs, args.repeats, device, source)
    ours = median(seconds["torch-bleu"])
    baseline = next(iter(runs))
    table = Table(
        f"chrF++ of WMT17 en-de from {source}: {systems} systems x {sentences} sentences, batches of 128 "
        f"({device.type}, {torch.get_num_threads()} threads, median of {args.repeats})",
        ["contender", "seconds", "sentences/s", "torch-bleu is faster by", "largest score difference"],
    )
    for name in runs:
        difference = max(abs(a - b) for a, b in zip(scores[name], scores[baseline]))
        table.rows.append(
            [
                name,
                f"{median(seconds[name]):.3f}",
                f"{systems * sentences / median(seconds[name]):,.0f}",
                f"{median(seconds[name]) / ours:.2f}x",
                f"{difference:.1e}",
            ]
        )
    table.print()
    return {"seconds": seconds, "scores": scores, "table": table.rows}

"""The ``wer`` workload: WER and CER of WMT17 systems, from text and from padded id batches.

From text: ``jiwer.wer(reference, lines)`` (``jiwer.cer``) once on each system against ``WERScore``
(``CERScore``) updated with batches of 8, 32 and 128 lines, then computed, and against
``corpus_wer(lines, reference)`` (``corpus_cer``) on the whole system. From ids: each system's words
as ids in padded batches (PAD, then an EOS and more tokens after it) of 8, 32 and 128 sentences and
of the whole system at once, the usual loop (``tolist``, special ids dropped, words joined, ``jiwer``
on the batch's strings, its counts summed) against ``WERScore(ignore_ids=..., eos_id=...)`` updated
with each batch. Scores are compared with jiwer's.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import torch

import torch_bleu

from .data import wmt17_text
from .timing import median, time_interleaved
from .workloads import Table

#: Systems, and sentences in each batch (``None``: the whole system in one batch).
SYSTEMS, BATCHES = 4, (8, 32, 128, None)
PAD, EOS = 0, 1


def _batches(
    lines: list[str], reference: list[str], numbers: dict[str, int], batch: int | None
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Padded id batches of the words of ``lines`` and ``reference`` (each row ends with EOS and one more token)."""
    size = batch or len(lines)
    batches = []
    for start in range(0, len(lines), size):
        rows = []
        for side in (lines[start : start + size], reference[start : start + size]):
            ids = [[numbers.setdefault(word, len(numbers) + 2) for word in line.split()] + [EOS, 5] for line in side]
            width = max(map(len, ids))
            rows.append(torch.tensor([row + [PAD] * (width - len(row)) for row in ids]))
        batches.append((rows[0], rows[1]))
    return batches


def _loop_counts(preds: torch.Tensor, target: torch.Tensor) -> list[int]:
    """The usual loop over a batch: ``tolist``, drop PAD and what follows EOS, join, jiwer's counts."""
    import jiwer

    def text(row: list[int]) -> str:
        kept = row[: row.index(EOS)] if EOS in row else row
        return " ".join(str(token) for token in kept if token != PAD)

    out = jiwer.process_words([text(row) for row in target.tolist()], [text(row) for row in preds.tolist()])
    return [out.hits, out.substitutions, out.deletions, out.insertions]


def run_wer(args: argparse.Namespace, device: torch.device) -> dict | None:
    data = Path(args.data)
    if not data.is_dir():
        print(f"wer: skipped, no WMT17 data in {data}")
        return None
    import jiwer

    sentences = 60 if args.quick else None
    reference, systems = wmt17_text(data, SYSTEMS, sentences)
    numbers: dict[str, int] = {}
    batched = {
        batch: [
            [(p.to(device), t.to(device)) for p, t in _batches(lines, reference, numbers, batch)] for lines in systems
        ]
        for batch in BATCHES
    }

    def jiwer_text(unit: str) -> Callable[[], list[float]]:
        measure = jiwer.cer if unit == "CER" else jiwer.wer
        return lambda: [measure(reference, lines) for lines in systems]

    def ours_text(unit: str, batch: int | None) -> Callable[[], list[float]]:
        corpus = torch_bleu.corpus_cer if unit == "CER" else torch_bleu.corpus_wer
        metric_class = torch_bleu.CERScore if unit == "CER" else torch_bleu.WERScore

        def run() -> list[float]:
            if batch is None:
                return [float(corpus(lines, reference)) for lines in systems]
            scores = []
            for lines in systems:
                metric = metric_class()
                for start in range(0, len(lines), batch):
                    metric.update(lines[start : start + batch], reference[start : start + batch])
                scores.append(float(metric.compute()))
            return scores

        return run

    def loop_ids(batch: int | None) -> Callable[[], list[float]]:
        def run() -> list[float]:
            scores = []
            for system in batched[batch]:
                hits, substitutions, deletions, insertions = (sum(c) for c in zip(*(_loop_counts(*b) for b in system)))
                scores.append((substitutions + deletions + insertions) / (hits + substitutions + deletions))
            return scores

        return run

    def ours_ids(batch: int | None) -> Callable[[], list[float]]:
        def run() -> list[float]:
            scores = []
            for system in batched[batch]:
                metric = torch_bleu.WERScore(ignore_ids=[PAD], eos_id=EOS).to(device)
                for preds, target in system:
                    metric.update(preds, target)
                scores.append(float(metric.compute()))
            return scores

        return run

    runs: dict[str, Callable[[], list[float]]] = {}
    for unit in ("WER", "CER"):
        runs[f"jiwer, {unit} text"] = jiwer_text(unit)
        for batch in BATCHES:
            runs[f"torch-bleu, {unit} text, {_batch_name(batch)}"] = ours_text(unit, batch)
    for batch in BATCHES:
        runs[f"loop + jiwer, ids, {_batch_name(batch)}"] = loop_ids(batch)
        runs[f"torch-bleu, ids, {_batch_name(batch)}"] = ours_ids(batch)
    seconds, scores = time_interleaved(runs, args.repeats, device)
    table = Table(
        f"WER and CER of WMT17 en-de: {len(systems)} systems x {len(reference)} sentences, from text (jiwer: one call "
        f"per system) and from padded id batches ({device.type}, median of {args.repeats})",
        ["contender", "seconds", "torch-bleu is faster by", "largest score difference"],
    )
    for name in runs:
        faster = ""
        if name.startswith("torch-bleu"):
            peer = (
                f"jiwer, {name.split(', ')[1]}" if " text" in name else "loop + jiwer, ids, " + name.split(", ids, ")[1]
            )
            faster = f"{median(seconds[peer]) / median(seconds[name]):.2f}x"
        expected = scores["jiwer, CER text" if "CER" in name else "jiwer, WER text"]
        difference = max(abs(a - b) for a, b in zip(scores[name], expected))
        table.rows.append([name, f"{median(seconds[name]):.3f}", faster, f"{difference:.1e}"])
    table.print()
    return {"seconds": seconds, "scores": scores, "table": table.rows}


def _batch_name(batch: int | None) -> str:
    return f"batches of {batch}" if batch else "whole systems"

"""The ``wer`` workload: WER of WMT17 systems as word sequences, from text and from padded id batches.

From text: ``jiwer.wer(reference, lines)`` on each system against ``corpus_wer(lines, reference)``.
From ids: each system's words as ids in padded batches (PAD, then an EOS and more tokens after it) of
64 and 256 sentences and of the whole system at once, the usual loop (``tolist``, special ids dropped,
words joined, ``jiwer`` on the batch's strings, its counts summed) against ``WERScore(ignore_ids=...,
eos_id=...)`` updated with each batch. Scores are compared with jiwer's.
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

#: Systems, and sentences in each batch of ids (``None``: the whole system in one batch).
SYSTEMS, BATCHES = 4, (64, 256, None)
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

    def jiwer_text() -> list[float]:
        return [jiwer.wer(reference, lines) for lines in systems]

    def ours_text() -> list[float]:
        return [float(torch_bleu.corpus_wer(lines, reference)) for lines in systems]

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

    runs = {"jiwer, text": jiwer_text, "torch-bleu, text": ours_text}
    for batch in BATCHES:
        name = f"batches of {batch}" if batch else "whole systems"
        runs[f"loop + jiwer, ids, {name}"] = loop_ids(batch)
        runs[f"torch-bleu, ids, {name}"] = ours_ids(batch)
    seconds, scores = time_interleaved(runs, args.repeats, device)
    table = Table(
        f"WER of WMT17 en-de: {len(systems)} systems x {len(reference)} sentences, from text (one call per system) "
        f"and from padded id batches ({device.type}, median of {args.repeats})",
        ["contender", "seconds", "torch-bleu is faster by", "largest score difference"],
    )
    for name in runs:
        ours = "torch-bleu, text" if name.endswith("text") else "torch-bleu, ids, " + name.split(", ids, ")[1]
        difference = max(abs(a - b) for a, b in zip(scores[name], scores["jiwer, text"]))
        table.rows.append(
            [
                name,
                f"{median(seconds[name]):.3f}",
                f"{median(seconds[name]) / median(seconds[ours]):.2f}x",
                f"{difference:.1e}",
            ]
        )
    table.print()
    return {"seconds": seconds, "scores": scores, "table": table.rows}

"""The ``alignments`` workload: the metrics built on alignments (WER, CER, ROUGE-L, rougeLsum) from padded id
batches of 8, 32 and 128 rows and of a whole system, on the device against the CPU and against the usual loop.

The data: one WMT17 system against the reference (synthetic sentences of a Zipf vocabulary when the WMT17
folder is absent). WER: words as ids; CER: characters as ids; ROUGE-L: each line a summary; rougeLsum: 3
lines a summary, a separator id between lines. Every row ends with EOS and one more id, then PAD.

Contenders, each updating one metric per system with every batch and computing at the end:

* ``torch-bleu, <device>``: the batches on ``--device`` (Triton's kernels on CUDA where Triton imports);
* ``torch-bleu, <device>, torch kernels``: the same with ``TORCH_BLEU_KERNELS=torch`` (not on the CPU);
* ``torch-bleu, cpu``: the same batches on the CPU (the host path: rapidfuzz and NumPy);
* ``loop + jiwer`` / ``loop + rouge-score-rs``: ``tolist``, special ids dropped, words joined, the peer on
  the batch's strings (jiwer's counts summed; rouge-score-rs's F-measures averaged).

Each row names its batch size; ratios are of medians from one run.
"""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import torch

import torch_bleu

from .data import wmt17_text
from .timing import median, time_interleaved
from .workloads import Table

#: Rows per batch (``None``: the whole system in one batch).
BATCHES = (8, 32, 128, None)
PAD, EOS, SEP = 0, 1, 2
LINES_PER_SUMMARY = 3
#: Sentences of the synthetic data (used when the WMT17 folder is absent).
SYNTHETIC_LINES = 3000

Batches = list[tuple[torch.Tensor, torch.Tensor]]


@contextmanager
def kernels(choice: str | None) -> Iterator[None]:
    """``TORCH_BLEU_KERNELS`` set to ``choice`` (left as it is for ``None``) for the length of the block."""
    before = os.environ.get("TORCH_BLEU_KERNELS")
    if choice is not None:
        os.environ["TORCH_BLEU_KERNELS"] = choice
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TORCH_BLEU_KERNELS", None)
        else:
            os.environ["TORCH_BLEU_KERNELS"] = before


def _lines(data: Path, count: int | None) -> tuple[list[str], list[str]]:
    """A system's lines and the reference's: WMT17's, else synthetic ones."""
    if data.is_dir():
        reference, systems = wmt17_text(data, 1, count)
        return systems[0], reference
    generator = random.Random(0)
    words = [f"w{number}" for number in range(2000)]
    weights = [1 / (rank + 1) for rank in range(len(words))]

    def line() -> list[str]:
        return generator.choices(words, weights, k=generator.randint(5, 40))

    reference = [line() for _ in range(count or SYNTHETIC_LINES)]
    system = [[word if generator.random() < 0.7 else generator.choice(words) for word in row] for row in reference]
    return [" ".join(row) for row in system], [" ".join(row) for row in reference]


def _padded(rows: list[list[int]]) -> torch.Tensor:
    width = max(map(len, rows)) + 2
    return torch.tensor([[*row, EOS, 5] + [PAD] * (width - 2 - len(row)) for row in rows])


def _batches(hyp_rows: list[list[int]], ref_rows: list[list[int]], batch: int | None) -> Batches:
    size = batch or len(hyp_rows)
    return [
        (_padded(hyp_rows[start : start + size]), _padded(ref_rows[start : start + size]))
        for start in range(0, len(hyp_rows), size)
    ]


def _kept(row: list[int]) -> list[int]:
    row = row[: row.index(EOS)] if EOS in row else row
    return [token for token in row if token != PAD]


def _workloads(system: list[str], reference: list[str]) -> dict[str, tuple[list[list[int]], list[list[int]]]]:
    """Each metric's rows of ids, hypotheses then references."""
    numbers: dict[str, int] = {}

    def words(line: str) -> list[int]:
        return [numbers.setdefault(word, len(numbers) + 3) for word in line.split()]

    def summary(lines: list[str]) -> list[int]:
        row: list[int] = []
        for number, line in enumerate(lines):
            row += [SEP] * bool(number) + words(line)
        return row

    step = LINES_PER_SUMMARY
    starts = range(0, len(system) - step + 1, step)
    return {
        "WER": ([words(line) for line in system], [words(line) for line in reference]),
        "CER": ([list(map(ord, line)) for line in system], [list(map(ord, line)) for line in reference]),
        "rougeL": ([words(line) for line in system], [words(line) for line in reference]),
        "rougeLsum": (
            [summary(system[start : start + step]) for start in starts],
            [summary(reference[start : start + step]) for start in starts],
        ),
    }


def _metric(name: str) -> torch_bleu.metrics.base.CountingMetric:
    if name == "WER":
        return torch_bleu.WERScore(ignore_ids=[PAD], eos_id=EOS)
    if name == "CER":
        return torch_bleu.CERScore(ignore_ids=[PAD], eos_id=EOS)
    return torch_bleu.ROUGEScore(rouge_types=[name], ignore_ids=[PAD], eos_id=EOS, sentence_sep_id=SEP)


def _score(name: str, result: object) -> float:
    return float(result[f"{name}_fmeasure"] if isinstance(result, dict) else result)  # type: ignore[arg-type]


def _peer(name: str) -> Callable[[Batches], float] | None:
    """The usual loop over the batches with the peer (``None`` when the peer is not installed)."""
    if name in ("WER", "CER"):
        import jiwer

        def jiwer_loop(batches: Batches) -> float:
            errors = total = 0
            for preds, target in batches:
                if name == "WER":
                    texts = [[" ".join(map(str, _kept(row))) for row in side.tolist()] for side in (preds, target)]
                    out = jiwer.process_words(texts[1], texts[0])
                else:
                    texts = [["".join(map(chr, _kept(row))) for row in side.tolist()] for side in (preds, target)]
                    out = jiwer.process_characters(texts[1], texts[0])
                errors += out.substitutions + out.deletions + out.insertions
                total += out.hits + out.substitutions + out.deletions
            return errors / total

        return jiwer_loop
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    try:
        import rouge_score_rs
    except ImportError:
        return None
    scorer = rouge_score_rs.RougeScorer([name], use_stemmer=False)

    def text(row: list[int]) -> str:
        return " ".join("\n" if token == SEP else str(token) for token in _kept(row))

    def rouge_loop(batches: Batches) -> float:
        scores = []
        for preds, target in batches:
            texts = [[text(row) for row in side.tolist()] for side in (preds, target)]
            scores += [result[name].fmeasure for result in scorer.score_batch(texts[1], texts[0])]
        return sum(scores) / len(scores)

    return rouge_loop


def _ours(name: str, inputs: Batches, choice: str | None) -> Callable[[], float]:
    """torch-bleu's metric updated with every batch of ``inputs`` and computed, with the kernels of ``choice``."""

    def run() -> float:
        with kernels(choice):
            metric = _metric(name).to(inputs[0][0].device)
            for preds, target in inputs:
                metric.update(preds, target)
            return _score(name, metric.compute())

    return run


def _contenders(name: str, batches: Batches, device: torch.device) -> dict[str, Callable[[], object]]:
    """The runs of one metric and batch size; the first is torch-bleu on ``device``."""
    on_device = [(preds.to(device), target.to(device)) for preds, target in batches]
    runs: dict[str, Callable[[], object]] = {f"torch-bleu, {device.type}": _ours(name, on_device, None)}
    if device.type != "cpu":
        runs[f"torch-bleu, {device.type}, torch kernels"] = _ours(name, on_device, "torch")
        runs["torch-bleu, cpu"] = _ours(name, batches, None)
    peer = _peer(name)
    if peer is not None:
        runs[f"loop + {'jiwer' if name in ('WER', 'CER') else 'rouge-score-rs'}"] = lambda: peer(batches)
    return runs


def run_alignments(args: argparse.Namespace, device: torch.device) -> dict:
    system, reference = _lines(Path(args.data), 64 if args.quick else None)
    table = Table(
        f"WER, CER, ROUGE-L and rougeLsum from padded id batches of one system ({len(system)} lines; {device.type}, "
        f"median of {args.repeats})",
        ["metric", "batch", "contender", "seconds", f"torch-bleu on {device.type} is faster by", "score difference"],
    )
    figures: list[dict] = []
    for name, (hyp_rows, ref_rows) in _workloads(system, reference).items():
        for batch in BATCHES:
            runs = _contenders(name, _batches(hyp_rows, ref_rows, batch), device)
            seconds, scores = time_interleaved(runs, args.repeats, device, label=f"{name}, batch {batch}")
            main = next(iter(runs))
            size = batch or len(hyp_rows)
            for contender in runs:
                ratio = median(seconds[contender]) / median(seconds[main])
                difference = abs(float(scores[contender]) - float(scores[main]))  # type: ignore[arg-type]
                table.rows.append(
                    [name, size, contender, f"{median(seconds[contender]):.4f}", f"{ratio:.2f}x", f"{difference:.1e}"]
                )
                figures.append(
                    {
                        "metric": name,
                        "batch": size,
                        "contender": contender,
                        "seconds": median(seconds[contender]),
                        "against": main,
                        "ratio": ratio,
                        "score_difference": difference,
                    }
                )
    table.print()
    return {"figures": figures, "table": table.rows}

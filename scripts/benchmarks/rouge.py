"""The ``rouge`` workload: ROUGE of WMT17 "summaries" (3 consecutive lines joined by newlines), from text,
from padded id batches and of one long document.

From text (``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum``, ``use_stemmer=True``): rouge-score's
``RougeScorer.score`` on each summary (on a sample of each system, its time scaled to the whole: its
cost is per summary), rouge-score-rs's ``score_batch`` on one core (``RAYON_NUM_THREADS=1``, set
before it is imported) and ``corpus_rouge``. From ids (no stemming: ids are words already): each
summary's words as ids in padded batches of 128 (a separator id between lines, then EOS and PAD), the
usual loop (``tolist``, special ids dropped, words joined, rouge-score-rs on the batch's strings) against
``ROUGEScore(ignore_ids=..., eos_id=..., sentence_sep_id=...)`` updated with each batch. Long document:
one prediction and one reference of 4,096 words each (WMT17 lines, a newline after each), rouge-score-rs
against ``corpus_rouge``. Scores are compared with rouge-score-rs's (equal to rouge-score's).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

import torch

import torch_bleu

from .data import wmt17_text
from .timing import median, time_interleaved
from .workloads import Table

SYSTEMS, LINES_PER_SUMMARY, BATCH, LONG = 4, 3, 128, 4096
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
PAD, EOS, SEP = 0, 1, 2
#: Summaries of each system rouge-score scores (its time is scaled to the whole system).
ROUGE_SCORE_SAMPLE = 60


def _summaries(lines: list[str]) -> list[str]:
    step = LINES_PER_SUMMARY
    return ["\n".join(lines[start : start + step]) for start in range(0, len(lines) - step + 1, step)]


def _id_batches(summaries: list[str], references: list[str], numbers: dict[str, int], device: torch.device):
    """Padded id batches of the words of the summaries (rouge-score's tokenizer without stemming), SEP between lines."""
    from rouge_score import tokenize

    def ids(text: str) -> list[int]:
        row: list[int] = []
        for number, line in enumerate(text.split("\n")):
            row += [SEP] if number else []
            row += [numbers.setdefault(word, len(numbers) + 3) for word in tokenize.tokenize(line, None)]
        return [*row, EOS, 7]

    batches = []
    for start in range(0, len(summaries), BATCH):
        sides = []
        for texts in (summaries[start : start + BATCH], references[start : start + BATCH]):
            rows = [ids(text) for text in texts]
            width = max(map(len, rows))
            sides.append(torch.tensor([row + [PAD] * (width - len(row)) for row in rows]).to(device))
        batches.append((sides[0], sides[1]))
    return batches


def _loop_text(row: list[int]) -> str:
    kept = row[: row.index(EOS)] if EOS in row else row
    return " ".join("\n" if token == SEP else str(token) for token in kept if token != PAD)


def _mean_fmeasures(results: list[dict]) -> list[float]:
    return [sum(result[name].fmeasure for result in results) / max(len(results), 1) for name in TYPES]


def run_rouge(args: argparse.Namespace, device: torch.device) -> dict | None:
    data = Path(args.data)
    if not data.is_dir():
        print(f"rouge: skipped, no WMT17 data in {data}")
        return None
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    try:
        import rouge_score_rs
        from rouge_score import rouge_scorer
    except ImportError:
        print("rouge: skipped, needs rouge-score and rouge-score-rs (pip install rouge-score rouge-score-rs)")
        return None

    lines = 90 if args.quick else None
    reference_lines, systems = wmt17_text(data, SYSTEMS, lines)
    references = _summaries(reference_lines)
    summaries = [_summaries(lines) for lines in systems]
    stemmed_rs = rouge_score_rs.RougeScorer(TYPES, use_stemmer=True)
    plain_rs = rouge_score_rs.RougeScorer(TYPES, use_stemmer=False)
    python_scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    sample = min(ROUGE_SCORE_SAMPLE, len(references))

    def rouge_score_text() -> list[float]:
        scores = []
        for system in summaries:
            results = [python_scorer.score(r, p) for r, p in zip(references[:sample], system[:sample])]
            scores += _mean_fmeasures(results)
        return scores

    def rs_text() -> list[float]:
        return [value for system in summaries for value in _mean_fmeasures(stemmed_rs.score_batch(references, system))]

    def ours_text() -> list[float]:
        scores = []
        for system in summaries:
            result = torch_bleu.corpus_rouge(system, references, rouge_types=TYPES, use_stemmer=True)
            scores += [float(result[f"{name}_fmeasure"]) for name in TYPES]
        return scores

    numbers: dict[str, int] = {}
    batched = [_id_batches(system, references, numbers, device) for system in summaries]

    def loop_ids() -> list[float]:
        scores = []
        for system in batched:
            results = []
            for preds, target in system:
                texts = [[_loop_text(row) for row in side.tolist()] for side in (preds, target)]
                results += plain_rs.score_batch(texts[1], texts[0])
            scores += _mean_fmeasures(results)
        return scores

    def ours_ids() -> list[float]:
        scores = []
        for system in batched:
            metric = torch_bleu.ROUGEScore(rouge_types=TYPES, ignore_ids=[PAD], eos_id=EOS, sentence_sep_id=SEP)
            for preds, target in system:
                metric.update(preds.to(device), target.to(device))
            result = metric.compute()
            scores += [float(result[f"{name}_fmeasure"]) for name in TYPES]
        return scores

    words = [word for line in systems[0] for word in [*line.split(), "\n"]]
    length = 256 if args.quick else LONG
    long_pred = " ".join(words[:length]).replace(" \n ", "\n")
    long_ref = " ".join(words[length : 2 * length]).replace(" \n ", "\n")

    def rs_long() -> list[float]:
        return _mean_fmeasures(plain_rs.score_batch([long_ref], [long_pred]))

    def ours_long() -> list[float]:
        result = torch_bleu.corpus_rouge([long_pred], [long_ref], rouge_types=TYPES)
        return [float(result[f"{name}_fmeasure"]) for name in TYPES]

    runs: dict[str, Callable[[], list[float]]] = {
        "rouge-score, text (sampled)": rouge_score_text,
        "rouge-score-rs, text": rs_text,
        "torch-bleu, text": ours_text,
        f"loop + rouge-score-rs, ids, batches of {BATCH}": loop_ids,
        f"torch-bleu, ids, batches of {BATCH}": ours_ids,
        f"rouge-score-rs, 1 x {length} words": rs_long,
        f"torch-bleu, 1 x {length} words": ours_long,
    }
    started = time.perf_counter()
    seconds, scores = time_interleaved(runs, args.repeats, device)
    seconds["rouge-score, text (sampled)"] = [
        value * len(references) / sample for value in seconds["rouge-score, text (sampled)"]
    ]
    table = Table(
        f"ROUGE (rouge1, rouge2, rougeL, rougeLsum) of WMT17 en-de: {len(summaries)} systems x {len(references)} "
        f"summaries of {LINES_PER_SUMMARY} lines ({device.type}, median of {args.repeats}; rouge-score timed on "
        f"{sample} summaries per system and scaled; rouge-score-rs on one thread)",
        ["contender", "seconds", "torch-bleu is faster by", "largest F difference vs rouge-score-rs"],
    )
    pairs = {
        "rouge-score, text (sampled)": ("torch-bleu, text", None),
        "rouge-score-rs, text": ("torch-bleu, text", None),
        "torch-bleu, text": ("torch-bleu, text", "rouge-score-rs, text"),
        f"loop + rouge-score-rs, ids, batches of {BATCH}": (f"torch-bleu, ids, batches of {BATCH}", None),
        f"torch-bleu, ids, batches of {BATCH}": (
            f"torch-bleu, ids, batches of {BATCH}",
            f"loop + rouge-score-rs, ids, batches of {BATCH}",
        ),
        f"rouge-score-rs, 1 x {length} words": (f"torch-bleu, 1 x {length} words", None),
        f"torch-bleu, 1 x {length} words": (f"torch-bleu, 1 x {length} words", f"rouge-score-rs, 1 x {length} words"),
    }
    for name, (ours, peer) in pairs.items():
        difference = (
            f"{max(abs(a - b) for a, b in zip(scores[name], scores[peer])):.1e}"  # type: ignore[arg-type]
            if peer
            else "-"
        )
        table.rows.append(
            [name, f"{median(seconds[name]):.3f}", f"{median(seconds[name]) / median(seconds[ours]):.2f}x", difference]
        )
    table.print()
    print(f"(rouge workload: {time.perf_counter() - started:.0f} s)")
    return {"seconds": seconds, "scores": scores, "table": table.rows}

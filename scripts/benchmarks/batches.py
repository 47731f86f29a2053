"""The ``batches`` workload: what one ``update()`` costs at the batch sizes loops use, every metric beside its peer.

Each row scores WMT17 en-de systems against the reference (4 systems x 3,004 lines; ``--quick``: a tiny
slice). torch-bleu's metric is updated with batches of 1, 8, 32, 128 and 512 sentences and with each
whole system in one batch, then ``compute()`` once per system; the peer makes its single call over the
collected corpus, which is what a loop that collects its outputs does at the end:

* BLEU (13a), chrF++ and TER from text against sacrebleu's ``BLEU``, ``CHRF(word_order=2)`` and ``TER``,
  made anew for each call as ``sacrebleu.corpus_bleu`` makes them (a metric kept across the rounds would
  find every line in its tokenizer's cache after the first);
* WER and CER from text against ``jiwer.wer`` and ``jiwer.cer``;
* BLEU and WER from padded ids (each whitespace word one id, BOS, EOS and PAD around them) against the
  usual loop: ``tolist()`` of every batch, special ids dropped, ids joined into strings, then one
  ``BLEU(tokenize="none")`` or ``jiwer.wer`` call. The loop's conversions happen per batch, so the peer
  is timed at every batch size too;
* ROUGE against rouge-score and rouge-score-rs, once ``torch_bleu.ROUGEScore`` exists.

A row whose peer is too slow for the whole corpus scores fewer lines of each system (its table says
how many). All contenders of a row take turns within each round, and torch-bleu's runs go through
the rounds again beside ``--busy N`` spinning processes. :func:`tables` builds the printed tables from
the figures alone, so ``bench.py --tables REPORT.json`` prints them again from a saved report.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

import torch_bleu

from . import timing
from .common import SPECIAL_IDS, workload_sizes
from .contenders import as_text, sacrebleu_corpus, strip_special
from .data import pad_rows, wmt17_text
from .timing import median, time_interleaved
from .workloads import Table

#: Sentences per ``update()``; ``None``: each whole system in one call.
BATCH_SIZES: tuple[int | None, ...] = (1, 8, 32, 128, 512, None)
QUICK_BATCH_SIZES: tuple[int | None, ...] = (1, 8, None)
#: Updates of each system timed at one batch size: batch 1 scores the first this many lines of each
#: system (its cost per update is what matters, and 12,016 of them would take minutes), the others all.
MOST_UPDATES, QUICK_MOST_UPDATES = 400, 16
#: The batch sizes of the README's table.
README_BATCH_SIZES: tuple[int | None, ...] = (8, 32, 128, None)
#: Lines of each system that TER and CER score: sacrebleu's TER takes about 2 ms a line, and both
#: metrics' updates of single sentences take milliseconds, which the whole corpus would multiply by 12,016.
SLOW_ROW_LINES = 800
#: ROUGE's figures: the F-measure of this type is compared (rouge-score's default types are scored).
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
ROUGE_COMPARED = "rougeL"

Batch = tuple[Any, Any]  # hypotheses and references: lists of strings, or padded id tensors


@dataclass(frozen=True)
class Row:
    """One metric beside its peer."""

    metric: str  # what is scored, from what
    peer_name: str
    make: Callable[[], Any]  # a fresh torch-bleu metric
    peer: Callable[[list[Batch]], float]  # one system's score from its batches, the peer's way
    ids: bool = False  # padded id batches: the peer converts each batch, so it is timed at every size
    lines: int | None = None  # lines of each system (None: all)
    score: Callable[[Any], float] = float  # the compared number from ``compute()``'s result


def _collected(batches: list[Batch]) -> tuple[list[str], list[str]]:
    return [line for hyps, _ in batches for line in hyps], [line for _, refs in batches for line in refs]


def _sacrebleu(make_metric: Callable[[], Any]) -> Callable[[list[Batch]], float]:
    """sacrebleu's ``corpus_score`` with a metric made for the call, as ``sacrebleu.corpus_bleu`` makes one:
    its tokenizers remember the lines they have split, so a metric kept across the timed rounds would
    split nothing after the first, which a loop's new hypotheses never get."""

    def score(batches: list[Batch]) -> float:
        hyps, refs = _collected(batches)
        return float(make_metric().corpus_score(hyps, [refs]).score / 100)

    return score


def _jiwer(measure: Callable[[list[str], list[str]], float]) -> Callable[[list[Batch]], float]:
    def score(batches: list[Batch]) -> float:
        hyps, refs = _collected(batches)
        return float(measure(refs, hyps))

    return score


def _loop_jiwer_wer(batches: list[Batch]) -> float:
    """The usual loop over id batches: ``tolist``, special ids dropped, ids joined, one ``jiwer.wer`` at the end."""
    import jiwer

    hyps: list[str] = []
    refs: list[str] = []
    for preds, target in batches:
        hyps += [as_text(strip_special(row)) for row in preds.tolist()]
        refs += [as_text(strip_special(row)) for row in target.tolist()]
    return float(jiwer.wer(refs, hyps))


def _rouge_score(score_pairs: Callable[[list[str], list[str]], list[Any]]) -> Callable[[list[Batch]], float]:
    """The mean F-measure of :data:`ROUGE_COMPARED` over the sentences, ``score_pairs(references, hypotheses)``
    giving each pair's scores by type."""

    def score(batches: list[Batch]) -> float:
        hyps, refs = _collected(batches)
        scores = score_pairs(refs, hyps)
        return sum(s[ROUGE_COMPARED].fmeasure for s in scores) / max(len(scores), 1)

    return score


def rows(quick: bool) -> list[Row]:
    """Every row, the ROUGE ones only where ``torch_bleu.ROUGEScore`` exists."""
    import jiwer
    from sacrebleu.metrics import BLEU, CHRF, TER

    slow_lines = 24 if quick else SLOW_ROW_LINES
    table = [
        Row(
            "BLEU (13a), text",
            "sacrebleu BLEU",
            lambda: torch_bleu.BLEUScore(tokenize="13a", smoothing="exp"),
            _sacrebleu(BLEU),
        ),
        Row(
            "chrF++, text",
            "sacrebleu CHRF(word_order=2)",
            lambda: torch_bleu.CHRFScore(word_order=2),
            _sacrebleu(lambda: CHRF(word_order=2)),
        ),
        Row("TER, text", "sacrebleu TER", torch_bleu.TERScore, _sacrebleu(TER), lines=slow_lines),
        Row("WER, text", "jiwer.wer", torch_bleu.WERScore, _jiwer(jiwer.wer)),
        Row("CER, text", "jiwer.cer", torch_bleu.CERScore, _jiwer(jiwer.cer), lines=slow_lines),
        Row(
            "BLEU, padded ids",
            'tolist + sacrebleu BLEU(tokenize="none")',
            lambda: torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS, smoothing="exp"),
            sacrebleu_corpus,
            ids=True,
        ),
        Row(
            "WER, padded ids",
            "tolist + jiwer.wer",
            lambda: torch_bleu.WERScore(ignore_ids=SPECIAL_IDS),
            _loop_jiwer_wer,
            ids=True,
        ),
    ]
    if hasattr(torch_bleu, "ROUGEScore"):
        from rouge_score.rouge_scorer import RougeScorer
        from rouge_score_rs.rouge_scorer import RougeScorer as RustRougeScorer

        def rouge() -> Any:
            return torch_bleu.ROUGEScore(rouge_types=ROUGE_TYPES)

        scorer = RougeScorer(ROUGE_TYPES)

        def one_by_one(refs: list[str], hyps: list[str]) -> list[Any]:
            return [scorer.score(ref, hyp) for ref, hyp in zip(refs, hyps)]

        def compared(result: Any) -> float:
            return float(result[f"{ROUGE_COMPARED}_fmeasure"])

        table += [
            Row("ROUGE, text", "rouge-score", rouge, _rouge_score(one_by_one), score=compared),
            Row(
                "ROUGE, text",
                "rouge-score-rs score_batch",
                rouge,
                _rouge_score(RustRougeScorer(ROUGE_TYPES).score_batch),
                score=compared,
            ),
        ]
    return table


def _batched(pairs: Sequence[tuple[Any, Any]], size: int | None) -> list[tuple[list[Any], list[Any]]]:
    """Consecutive batches of ``size`` pairs (``None``: one batch of all), as (hypotheses, references)."""
    step = size or len(pairs)
    chunks = [pairs[start : start + step] for start in range(0, len(pairs), step)]
    return [([hyp for hyp, _ in chunk], [ref for _, ref in chunk]) for chunk in chunks]


def _id_rows(lines: list[str], numbers: dict[str, int]) -> list[list[int]]:
    """Each line's whitespace words as ids (from 3 up: 0, 1 and 2 are PAD, BOS and EOS)."""
    return [[numbers.setdefault(word, len(numbers) + 3) for word in line.split()] for line in lines]


def run_batches(args: argparse.Namespace, device: torch.device) -> dict[str, Any] | None:
    if not args.data.is_dir():
        print(f"batches: skipped, no WMT17 data in {args.data}")
        return None
    sizes = workload_sizes(args)
    batch_sizes = QUICK_BATCH_SIZES if args.quick else BATCH_SIZES
    most_updates = QUICK_MOST_UPDATES if args.quick else MOST_UPDATES
    reference, systems = wmt17_text(args.data, sizes.batches_systems, sizes.batches_lines)
    numbers: dict[str, int] = {}
    id_rows = [_id_rows(lines, numbers) for lines in systems]
    reference_ids = _id_rows(reference, numbers)
    repeats = min(args.repeats, 3)
    figures: dict[str, Any] = {
        "batch_sizes": list(batch_sizes),
        "most_updates": most_updates,
        "repeats": repeats,
        "rows": [],
    }
    for row in rows(args.quick):
        lines = min(row.lines or len(reference), len(reference))
        if row.ids:
            corpus: list[list[tuple[Any, Any]]] = [list(zip(ids[:lines], reference_ids[:lines])) for ids in id_rows]
        else:
            corpus = [list(zip(system[:lines], reference[:lines])) for system in systems]
        figures["rows"].append(_measure(row, corpus, batch_sizes, most_updates, repeats, device))
    for table in tables(figures):
        table.print()
    return figures


def _measure(
    row: Row,
    corpus: list[list[tuple[Any, Any]]],
    batch_sizes: Sequence[int | None],
    most_updates: int,
    repeats: int,
    device: torch.device,
) -> dict[str, Any]:
    """One row's medians at every batch size: torch-bleu's, and the peer's on the same lines (timed once per
    slice of lines from text, at every batch size from id batches)."""

    def inputs(size: int | None, lines: int) -> list[list[Batch]]:
        batches = [_batched(system[:lines], size) for system in corpus]
        if not row.ids:
            return batches  # type: ignore[return-value]
        return [[(pad_rows(hyps, device), pad_rows(refs, device)) for hyps, refs in system] for system in batches]

    def ours(batches: list[list[Batch]]) -> Callable[[], list[float]]:
        def run() -> list[float]:
            scores = []
            for system in batches:
                metric = row.make().to(device)
                for preds, target in system:
                    metric.update(preds, target)
                scores.append(row.score(metric.compute()))
            return scores

        return run

    def theirs(batches: list[list[Batch]]) -> Callable[[], list[float]]:
        return lambda: [row.peer(system) for system in batches]

    lines = {size: len(corpus[0]) if size is None else min(len(corpus[0]), size * most_updates) for size in batch_sizes}
    batches = {size: inputs(size, lines[size]) for size in batch_sizes}
    # from text the peer's call depends on the lines only; from ids its loop converts every batch
    peer_run = {size: f"peer, {lines[size]} lines" + (f", {_size_label(size)}" * row.ids) for size in batch_sizes}
    runs: dict[str, Callable[[], list[float]]] = {}
    for size in batch_sizes:
        runs.setdefault(peer_run[size], theirs(batches[size]))
        runs[_our_run(size)] = ours(batches[size])
    label = f"{row.metric} vs {row.peer_name}"
    seconds, scores = time_interleaved(runs, repeats, device, label)
    busy = next((record["contenders"] for record in timing.BUSY_RECORDS if record["label"] == label), {})
    return {
        "metric": row.metric,
        "peer": row.peer_name,
        "systems": len(corpus),
        "lines": {_key(size): lines[size] for size in batch_sizes},
        "updates": {_key(size): sum(len(system) for system in batches[size]) for size in batch_sizes},
        "seconds": {_key(size): median(seconds[_our_run(size)]) for size in batch_sizes},
        "peer_seconds": {_key(size): median(seconds[peer_run[size]]) for size in batch_sizes},
        "busy_over_quiet": {
            _key(size): busy[_our_run(size)]["busy"] / busy[_our_run(size)]["quiet"]
            for size in batch_sizes
            if _our_run(size) in busy
        },
        "largest_score_difference": max(
            abs(a - b) for size in batch_sizes for a, b in zip(scores[_our_run(size)], scores[peer_run[size]])
        ),
    }


def _key(size: int | None) -> str:
    return "whole system" if size is None else str(size)


def _our_run(size: int | None) -> str:
    return f"torch-bleu, {_size_label(size)}"


def _size_label(size: int | None) -> str:
    return "whole system" if size is None else f"batch {size}"


def tables(figures: dict[str, Any]) -> list[Table]:
    """The printed tables, from the figures alone (those of a saved report too):

    * every row and batch size: torch-bleu's microseconds per ``update`` (``compute`` included), the peer's
      microseconds per sentence and for the same sentences, the ratio, and torch-bleu's busy / quiet factor;
    * the ratios by batch size, every size (the speed page's table);
    * the same at the README's sizes (:data:`README_BATCH_SIZES`).
    """
    sizes: list[int | None] = figures["batch_sizes"]
    detail = Table(
        f"Cost per update() by batch size, WMT17 en-de: torch-bleu's update() per batch then compute(), against "
        f"the peer's single call over the same lines (median of {figures['repeats']}; at most "
        f"{figures['most_updates']} updates per system, so batch 1 scores the first {figures['most_updates']} "
        "lines of each)",
        [
            "metric",
            "against",
            "batch",
            "systems x lines",
            "torch-bleu µs per update",
            "peer µs per sentence",
            "peer µs for the same sentences",
            "torch-bleu is faster by",
            "busy / quiet",
        ],
    )
    for row in figures["rows"]:
        for size in sizes:
            key = _key(size)
            sentences = row["systems"] * row["lines"][key]
            per_sentence = row["peer_seconds"][key] / sentences * 1e6
            busy = row["busy_over_quiet"].get(key)
            detail.rows.append(
                [
                    row["metric"],
                    row["peer"],
                    _size_label(size),
                    f"{row['systems']} x {row['lines'][key]}",
                    f"{row['seconds'][key] / row['updates'][key] * 1e6:,.0f}",
                    f"{per_sentence:,.1f}",
                    f"{per_sentence * sentences / row['updates'][key]:,.0f}",
                    f"{row['peer_seconds'][key] / row['seconds'][key]:.2f}x",
                    "-" if busy is None else f"{busy:.2f}x",
                ]
            )
    return [detail, ratio_table(figures, sizes), ratio_table(figures, README_BATCH_SIZES)]


def ratio_table(figures: dict[str, Any], sizes: Sequence[int | None]) -> Table:
    """How much faster torch-bleu is than each peer on the same lines, one column per batch size (those of
    ``sizes`` that were measured), with the largest score difference."""
    measured = [size for size in sizes if size in figures["batch_sizes"]]
    table = Table(
        f"How much faster torch-bleu's update() per batch then compute() is than the peer's single call, at "
        f"{', '.join(_size_label(size) for size in measured)} (median of {figures['repeats']}; batch 1 scores the "
        f"first {figures['most_updates']} lines of each system)",
        ["metric", "against", "systems x lines", *(_size_label(size) for size in measured), "largest score difference"],
    )
    for row in figures["rows"]:
        whole = row["lines"][_key(None)] if None in figures["batch_sizes"] else max(row["lines"].values())
        ratios = [f"{row['peer_seconds'][_key(size)] / row['seconds'][_key(size)]:.2f}x" for size in measured]
        difference = f"{row['largest_score_difference']:.1e}"
        table.rows.append([row["metric"], row["peer"], f"{row['systems']} x {whole}", *ratios, difference])
    return table

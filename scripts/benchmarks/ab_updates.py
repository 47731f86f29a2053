"""The ``--against`` rows of every metric's ``update()`` path: a fresh metric updated over a fixed corpus.

Each row makes a metric, feeds it the corpus in batches of :data:`SMALL_BATCH` sentences (what a
validation loop updates with) or in one batch of the whole corpus, then calls ``compute()``: text is
queued by ``update()`` and counted when ``compute()`` reads it, so ``compute()`` is inside the time.
Making the metric is not (about a millisecond, as much as some whole rows). The batches are sliced,
and the padded id tensors built, before the timing: a loop's data loader hands them over ready.

The corpus is the first :data:`CORPUS` lines of the first WMT17 en-de system and of the reference (the
``wmt17-en-de`` folder of ``bench.py --data``), else synthetic text: :func:`benchmarks.data.synthetic_batch`'s
ids written as words (a clone without the shared data). ROUGE scores "summaries" of
:data:`LINES_PER_SUMMARY` consecutive lines joined by newlines. Padded ids number the whitespace words
of the same text (PAD, BOS and EOS around them, as :func:`benchmarks.data.pad_rows` writes a row).

The rows run round-robin, :data:`REPEATS` rounds after one untimed warm-up round (the first call of
some metrics builds tables of every code point). Then the objects of the process are frozen
(``gc.freeze``: a collection of PyTorch's heap takes a third of a second here) and the garbage is
collected before each timed call, so that no call pays for the garbage of the one before.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from .common import BOS, EOS, PAD, SPECIAL_IDS
from .data import synthetic_batch

#: Sentences (and ROUGE summaries) of the corpus, with and without ``--quick``.
CORPUS, QUICK_CORPUS = 512, 32
#: The batch of a validation loop; the large batch is the whole corpus.
SMALL_BATCH = 8
#: Timed rounds of every row in one process, with and without ``--quick``.
REPEATS, QUICK_REPEATS = 7, 2
LINES_PER_SUMMARY = 3
#: Words per synthetic line at most (BOS and EOS included), when there is no WMT17 data.
SYNTHETIC_WIDTH = 32

Batch = tuple[Any, Any]  # hypotheses and references: lists of strings, or padded id tensors


@dataclass(frozen=True)
class Corpus:
    """Hypothesis and reference lines, and the same as summaries of several lines; where they come from."""

    source: str
    hypotheses: list[str]
    references: list[str]
    summaries: list[str]
    summary_references: list[str]


@dataclass(frozen=True)
class UpdateRow:
    """One metric and the form of its input."""

    name: str
    make: Callable[[], Any]  # a fresh torch-bleu metric
    ids: bool = False  # padded id batches, else lists of strings
    summaries: bool = False  # the corpus's summaries, else its lines


def _summaries(lines: Sequence[str], count: int) -> list[str]:
    """The first ``count`` runs of :data:`LINES_PER_SUMMARY` consecutive lines, each joined by newlines."""
    step = LINES_PER_SUMMARY
    count = min(count, len(lines) // step)
    return ["\n".join(lines[start : start + step]) for start in range(0, step * count, step)]


def _corpus(source: str, hypotheses: list[str], references: list[str], sentences: int) -> Corpus:
    """A :class:`Corpus` of ``sentences`` lines and as many summaries, from at least that many summaries' lines."""
    return Corpus(
        source,
        hypotheses[:sentences],
        references[:sentences],
        _summaries(hypotheses, sentences),
        _summaries(references, sentences),
    )


def wmt17_corpus(data: Path, sentences: int) -> Corpus:
    """The first system's lines and the reference's, from the ``wmt17-en-de`` folder ``data``."""
    reference = (data / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    system = sorted(data.glob("sys.*.de"))[0]
    return _corpus("WMT17", system.read_text(encoding="utf-8").splitlines(), reference, sentences)


def synthetic_corpus(sentences: int) -> Corpus:
    """Synthetic text: the ids of :func:`synthetic_batch` written as words, one reference per line."""
    from .contenders import as_text, strip_special

    preds, target = synthetic_batch(LINES_PER_SUMMARY * sentences, SYNTHETIC_WIDTH, 1, seed=2)
    hypotheses = [as_text(strip_special(row)) for row in preds.tolist()]
    references = [as_text(strip_special(row)) for row in target[:, 0].tolist()]
    return _corpus("synthetic", hypotheses, references, sentences)


def load_corpus(data: Path | None, sentences: int) -> Corpus:
    """The WMT17 corpus where ``data`` holds the WMT17 files, else the synthetic one."""
    if data is not None and (data / "newstest2017.ref.de").is_file() and any(data.glob("sys.*.de")):
        return wmt17_corpus(data, sentences)
    return synthetic_corpus(sentences)


def rows() -> list[UpdateRow]:
    """Every metric's row, with the classes of whichever ``torch_bleu`` ``sys.path`` finds first."""
    from torch_bleu import BLEUScore, CERScore, CHRFScore, ROUGEScore, TERScore, WERScore

    return [
        UpdateRow("BLEU 13a, text", lambda: BLEUScore(tokenize="13a")),
        UpdateRow("BLEU, padded ids", lambda: BLEUScore(ignore_ids=SPECIAL_IDS), ids=True),
        UpdateRow("chrF++, text", lambda: CHRFScore(word_order=2)),
        UpdateRow("TER, text", TERScore),
        UpdateRow("WER, text", WERScore),
        UpdateRow("WER, padded ids", lambda: WERScore(ignore_ids=SPECIAL_IDS), ids=True),
        UpdateRow("CER, text", CERScore),
        UpdateRow("ROUGE stemmed, text", lambda: ROUGEScore(use_stemmer=True), summaries=True),
        UpdateRow("ROUGE, padded ids", lambda: ROUGEScore(ignore_ids=SPECIAL_IDS), ids=True, summaries=True),
    ]


def _id_rows(lines: Sequence[str], numbers: dict[str, int]) -> list[list[int]]:
    """Each line's whitespace words as ids, numbered in ``numbers`` from the first id after the special ones."""
    first = max(SPECIAL_IDS) + 1
    return [[numbers.setdefault(word, len(numbers) + first) for word in line.split()] for line in lines]


def _padded(rows: Sequence[Sequence[int]]) -> torch.Tensor:
    """``[BOS] + row + [EOS]`` per row, padded with PAD to the longest, in one tensor (what a data loader yields)."""
    width = max(len(row) for row in rows) + 2
    return torch.tensor([[BOS, *row, EOS] + [PAD] * (width - 2 - len(row)) for row in rows], dtype=torch.int64)


def batches(hypotheses: list[str], references: list[str], size: int, ids: bool) -> list[Batch]:
    """Consecutive batches of ``size`` pairs: lists of strings, or padded id tensors (words numbered)."""
    numbers: dict[str, int] = {}
    hyp_ids, ref_ids = (_id_rows(hypotheses, numbers), _id_rows(references, numbers)) if ids else ([], [])
    chunks: list[Batch] = []
    for start in range(0, len(hypotheses), size):
        end = start + size
        if ids:
            chunks.append((_padded(hyp_ids[start:end]), _padded(ref_ids[start:end])))
        else:
            chunks.append((hypotheses[start:end], references[start:end]))
    return chunks


def _row_inputs(row: UpdateRow, corpus: Corpus) -> dict[int, list[Batch]]:
    """The row's batches, by batch size: :data:`SMALL_BATCH` and the whole corpus."""
    if row.summaries:
        hypotheses, references = corpus.summaries, corpus.summary_references
    else:
        hypotheses, references = corpus.hypotheses, corpus.references
    return {size: batches(hypotheses, references, size, row.ids) for size in (SMALL_BATCH, len(hypotheses))}


def _run(make: Callable[[], Any], inputs: list[Batch]) -> float:
    """Seconds of updating a fresh metric with every batch, then ``compute()``; the metric made untimed."""
    metric = make()
    gc.collect()  # the garbage of the run before is not this run's to collect (cheap once frozen)
    start = time.perf_counter()
    for preds, target in inputs:
        metric.update(preds, target)
    metric.compute()
    return time.perf_counter() - start


def measure_updates(quick: bool, data: Path | None) -> dict[str, float]:
    """Milliseconds of every row at both batch sizes: medians of the timed rounds, the rows round-robin."""
    corpus = load_corpus(data, QUICK_CORPUS if quick else CORPUS)
    cases: dict[str, tuple[Callable[[], Any], list[Batch]]] = {}
    for row in rows():
        for size, inputs in _row_inputs(row, corpus).items():
            total = sum(len(hyps) for hyps, _ in inputs)
            what = "summaries" if row.summaries else "lines"
            cases[f"{row.name}: {total} {corpus.source} {what}, batches of {size}"] = (row.make, inputs)
    for make, inputs in cases.values():  # untimed: first calls, tables built once per process
        _run(make, inputs)
    gc.collect()
    gc.freeze()  # the objects so far stay out of every collection: each would take a third of a second
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(QUICK_REPEATS if quick else REPEATS):
        for name, (make, inputs) in cases.items():
            seconds[name].append(_run(make, inputs))
    return {name: statistics.median(times) * 1e3 for name, times in seconds.items()}

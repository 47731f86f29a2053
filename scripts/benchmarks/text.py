"""The ``text`` workload: sacrebleu's default BLEU (13a tokenizer, ``exp`` smoothing) of WMT17 systems from text.

Every contender starts from the raw lines of each system and of the reference, and gives one corpus
score per system (the first 4 systems, in batches of 256 sentences where a contender takes batches):

* ``sacrebleu``: ``BLEU().corpus_score(lines, [reference])`` on each whole system, its fastest use
  for one system;
* ``sacrebleu, references cached``: ``BLEU(references=[reference])`` built once, then
  ``corpus_score(lines, None)`` per system: sacrebleu keeps the reference's n-grams from one system to
  the next, which the other contenders do not;
* ``torchmetrics``: ``torchmetrics.text.SacreBLEUScore(tokenize="13a")`` updated batch by batch, then
  ``compute()`` (it computes in float32);
* ``bleuscore``, when installed (``pip install bleuscore``): the Rust BLEU's
  ``compute(references=..., predictions=..., max_order=4, smooth=False, ref_len_method="sacrebleu")``
  on each whole system, as its function returns a score, not statistics to add up. It tokenizes with
  its own 13a and spreads the work over the CPU's cores; it has no ``exp`` smoothing, which changes a
  corpus score only when some n-gram order has no match at all (never on these systems);
* ``torch-bleu``: ``torch_bleu.BLEUScore(tokenize="13a", smoothing="exp")`` updated batch by batch
  with the strings (one reference string per hypothesis), then ``compute()``;
* ``torch-bleu corpus_bleu``: ``torch_bleu.corpus_bleu(lines, reference, tokenize="13a",
  smoothing="exp")`` on each whole system.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import torch

import torch_bleu

from .common import workload_sizes
from .contenders import bleuscore_available
from .timing import median, time_interleaved
from .workloads import Table


def run_text(args: argparse.Namespace, device: torch.device) -> dict | None:
    if not args.data.is_dir():
        print(f"text: skipped, no data at {args.data}")
        return None
    from sacrebleu.metrics import BLEU

    sizes = workload_sizes(args)
    batch = sizes.text_batch
    reference = (args.data / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()[: sizes.wmt17_lines]
    systems = {
        path.name[len("sys.") : -len(".de")]: path.read_text(encoding="utf-8").splitlines()[: sizes.wmt17_lines]
        for path in sorted(args.data.glob("sys.*.de"))[: sizes.text_systems]
    }

    def every_system(score: Callable[[list[str]], float]) -> Callable[[], list[float]]:
        return lambda: [score(lines) for lines in systems.values()]

    def sacrebleu_system(lines: list[str]) -> float:
        return float(BLEU().corpus_score(lines, [reference]).score / 100)

    def sacrebleu_cached() -> list[float]:
        bleu = BLEU(references=[reference])
        return [float(bleu.corpus_score(lines, None).score / 100) for lines in systems.values()]

    def torchmetrics_system(lines: list[str]) -> float:
        from torchmetrics.text import SacreBLEUScore

        metric = SacreBLEUScore(tokenize="13a")
        for start in range(0, len(lines), batch):
            metric.update(lines[start : start + batch], [[line] for line in reference[start : start + batch]])
        return float(metric.compute())

    def bleuscore_system(lines: list[str]) -> float:
        import bleuscore

        result = bleuscore.compute(
            references=[[line] for line in reference],
            predictions=lines,
            max_order=4,
            smooth=False,
            ref_len_method="sacrebleu",
        )
        return float(result["bleu"])

    def torch_bleu_metric(lines: list[str]) -> float:
        metric = torch_bleu.BLEUScore(tokenize="13a", smoothing="exp").to(device)
        for start in range(0, len(lines), batch):
            metric.update(lines[start : start + batch], reference[start : start + batch])
        return float(metric.compute())

    def torch_bleu_function(lines: list[str]) -> float:
        return float(torch_bleu.corpus_bleu(lines, reference, tokenize="13a", smoothing="exp"))

    runs = {
        "sacrebleu": every_system(sacrebleu_system),
        "sacrebleu, references cached": sacrebleu_cached,
        "torchmetrics": every_system(torchmetrics_system),
    }
    if bleuscore_available():
        runs["bleuscore"] = every_system(bleuscore_system)
    else:
        print("text: bleuscore left out, it is not installed (pip install bleuscore)")
    runs["torch-bleu"] = every_system(torch_bleu_metric)
    runs["torch-bleu corpus_bleu"] = every_system(torch_bleu_function)

    seconds, scores = time_interleaved(runs, args.repeats, device)
    sentences = sum(len(lines) for lines in systems.values())
    ours = median(seconds["torch-bleu"])
    table = Table(
        f"BLEU of WMT17 en-de from text (13a tokenizer, exp smoothing): {len(systems)} systems x "
        f"{len(reference)} sentences, batches of {batch} ({device.type}, {torch.get_num_threads()} threads, "
        f"median of {args.repeats})",
        ["contender", "seconds", "sentences/s", "torch-bleu is faster by", "largest score difference"],
    )
    differences = {}
    for name in runs:
        differences[name] = max(abs(a - b) for a, b in zip(scores[name], scores["sacrebleu"]))
        table.rows.append(
            [
                name,
                f"{median(seconds[name]):.3f}",
                f"{sentences / median(seconds[name]):,.0f}",
                f"{median(seconds[name]) / ours:.2f}x",
                "reference" if name == "sacrebleu" else f"{differences[name]:.1e}",
            ]
        )
    table.print()
    return {
        "systems": list(systems),
        "sentences": sentences,
        "seconds": seconds,
        "scores": scores,
        "max_score_difference": differences,
        "table": table.rows,
    }

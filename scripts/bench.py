"""torch-bleu against nltk, sacrebleu and torchmetrics, every contender starting from padded id tensors.

A validation loop holds padded ``(B, L)`` id tensors (PAD, BOS and EOS included). Every contender
starts from exactly those tensors and ends with BLEU; whatever conversion it needs (``.tolist()``,
dropping special ids, joining ids into strings) is timed as part of it:

* ``nltk``: the usual ``evaluate_bleu`` loop: ``tolist``, filter PAD/BOS/EOS, ``corpus_bleu``;
* ``sacrebleu``: the ids joined as strings, ``BLEU(tokenize="none")``;
* ``torchmetrics``: ``torchmetrics.text.BLEUScore`` on the same strings;
* ``torch-bleu``: ``torch_bleu.BLEUScore.update`` on the tensors, ``compute`` at the end (and the
  same with ``convention="nltk"``, which must reproduce nltk's score); ``torch_bleu.corpus_bleu``
  for the single batches of the grid;
* ``tensorbleu``, when installed (``pip install rxlm --no-deps``): TensorBLEU's
  ``tensor_corpus_bleu`` (wmt17) and ``tensor_sentence_bleu`` (rl) on the same tensors, BOS and EOS
  turned into PAD first (it ignores a single pad id).
* ``bleuscore``, when installed (``pip install bleuscore``): a BLEU in Rust, on text, in the ``text``
  workload only (it takes strings, not ids).

Workloads:

* ``wmt17``: the 16 WMT17 en-de systems, 13a-tokenized words mapped to ids, batches of 128;
* ``subwords``: the same systems as SentencePiece ids, scored as sacreBLEU scores their decoded
  text: torch-bleu's ``detokenizer=`` against decoding every row and calling sacrebleu
  (``benchmarks/subwords.py``);
* ``text``: sacrebleu's default BLEU (13a tokenizer) of 4 of the systems from their raw text lines,
  against sacrebleu, torchmetrics' ``SacreBLEUScore`` and, when installed (``pip install bleuscore``),
  the Rust ``bleuscore`` (``benchmarks/text.py``);
* ``chrf``: chrF++ of the same systems from text (against sacrebleu's ``CHRF``) and from
  SentencePiece ids (against decoding every row and calling sacrebleu) (``benchmarks/chrf.py``);
* ``ter``: TER of 2 systems x 800 sentences from text, against sacrebleu's ``TER`` and torchmetrics'
  ``TranslationEditRate`` (``benchmarks/ter.py``);
* ``wer``: WER and CER of 4 systems, from text in batches of 8, 32, 128 and whole systems against
  ``jiwer.wer`` and ``jiwer.cer``, and WER from padded id batches against the usual loop (``tolist``,
  special ids dropped, ``jiwer``) (``benchmarks/wer.py``);
* ``batches``: the cost of one ``update()`` at batch sizes 1, 8, 32, 128, 512 and a whole system, for
  BLEU, chrF++, TER, WER and CER from text and BLEU and WER from padded ids (ROUGE once
  ``torch_bleu.ROUGEScore`` exists), each against its peer's single call over the collected corpus
  (``benchmarks/batches.py``); ``--tables REPORT`` prints its tables again from a saved ``--json`` report;
* ``rouge``: ROUGE (rouge1, rouge2, rougeL, rougeLsum) of 4 systems' WMT17 "summaries" (3 lines each)
  from text with stemming, against rouge-score (sampled) and rouge-score-rs on one thread; from padded
  id batches of 128 against the usual loop (``tolist``, special ids dropped, rouge-score-rs); and of
  one 4,096-word document (``benchmarks/rouge.py``);
* ``alignments``: WER, CER, ROUGE-L and rougeLsum of one system from padded id batches of 8, 32, 128 and
  the whole system, on the device (Triton's kernels and PyTorch's), on the CPU and with the usual loop
  (``tolist``, jiwer / rouge-score-rs) (``benchmarks/alignments.py``);
* ``captioning``: the self-critical (SCST) CIDEr-D reward of a batch of 50 images x 5 samples + greedy
  captions from ids, against pycocoevalcap's ``CiderScorer`` with the same document frequencies; and
  ``coco_caption_scores`` of 5,000 images x 5 references against pycocoevalcap's BLEU, ROUGE-L and CIDEr
  (``benchmarks/captioning.py``);
* ``pairwise``: pairwise sentence chrF and BLEU (MBR matrices) of 1 x 256 x 256 and 60 x 16 x 16
  WMT17 lines, against fastchrf (when installed) and sacrebleu's ``sentence_score`` in a loop
  (``benchmarks/pairwise.py``);
* ``self_bleu``: self-BLEU against all the others of 10,000 WMT17 lines against fast-bleu (when
  installed), and aggregate BLEU against mbrs's reference aggregation (when installed)
  (``benchmarks/self_bleu.py``);
* ``significance``: ``confidence_interval()``, ``paired_bootstrap`` and ``paired_randomization`` of two
  ``BLEUScore(keep_sentences=True)`` of 3,000 sentences, against sacrebleu's bootstrap
  (``benchmarks/significance.py``);
* ``grid``: synthetic batches of B x L from 32 to 1024, R = 1 and R = 4 references. The Python
  contenders run on a sample of the rows (their cost is per sentence), reported as throughput;
* ``rl``: per-sentence BLEU of a 256 x 1024 batch, as an RL reward;
* ``update``: ``BLEUScore.update`` alone on a 256 x 1024 batch; on CUDA also checked to be free of
  host-device synchronization (``torch.cuda.set_sync_debug_mode("error")``);
* ``tensorbleu``: per-sentence and corpus BLEU of 256 and 512 rows x 256 and 1024 tokens against
  TensorBLEU (when installed), the shapes RL trainers score on a GPU;
* ``memory``: torch-bleu's peak allocated memory in ``update`` against the number of tokens;
* ``threads`` (CPU): the ``wmt17`` workload for torch-bleu and sacrebleu with 1, 2 and all torch
  threads, the machine idle and with one core kept busy by another process.

Timings are wall-clock medians over ``--repeats`` rounds, contenders interleaved within each round so
that they share whatever else the machine is doing; speed-ups are ratios of medians from one run.
torch-bleu's runs then go through the same rounds again beside ``--busy N`` spinning processes (one
per core by default; a table at the end). ``--against REV`` compares the rl, update and grid rows and
every metric's ``update()`` path at batches of 8 and of 512 (``benchmarks/ab_updates.py``) with another
commit's package (``benchmarks/ab.py``); ``--skip`` every workload to run only that comparison.
Each workload runs in a fresh Python process (``--one-process``: all in this one, as ``--quick`` does):
a workload that leaves a large heap and many objects behind slows the next one's Python and NumPy
contenders (BLEU from text: 20% slower after the subwords workload), but not a compiled one.

``--quick`` is a smoke run of a few seconds: every workload and contender on tiny inputs (``QUICK``
in ``benchmarks/common.py``; the full run measures ``FULL``), one timed round (``--repeats 1``).
Most of its time is fixed: importing torch, torchmetrics, nltk and sacrebleu, and starting the
profiler of the ``memory`` workload.

The parts live in ``scripts/benchmarks/``: ``common.py`` (ids, sizes), ``contenders.py``,
``data.py`` (the inputs), ``timing.py``, ``workloads.py`` and one module per workload on text or
subwords (``text.py``, ``subwords.py``, ``chrf.py``, ``ter.py``, ``wer.py``, ``batches.py``, ``pairwise.py``).

Usage:
    python scripts/bench.py [--quick] [--json PATH] [--plot PATH] [--device cpu|cuda]
                            [--repeats N] [--threads N] [--data DIR] [--skip WORKLOAD ...]
    python scripts/bench.py --tables REPORT.json   # the batches workload's tables from a saved report
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import torch
from torch import Tensor

import torch_bleu

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the benchmarks package beside this script
sys.path.append(str(Path(__file__).resolve().parents[1] / "examples"))  # the examples' --device check

from _device import usable_device
from benchmarks import timing
from benchmarks.ab import compare
from benchmarks.alignments import run_alignments
from benchmarks.batches import run_batches, tables
from benchmarks.captioning import run_captioning
from benchmarks.chrf import run_chrf
from benchmarks.common import QUICK, cpu_name, workload_sizes
from benchmarks.pairwise import run_pairwise
from benchmarks.rouge import run_rouge
from benchmarks.self_bleu import run_self_bleu
from benchmarks.significance import run_significance
from benchmarks.subwords import run_subwords
from benchmarks.ter import run_ter
from benchmarks.text import run_text
from benchmarks.wer import run_wer
from benchmarks.workloads import (
    plot,
    run_grid,
    run_memory,
    run_rl,
    run_tensorbleu,
    run_threads,
    run_update_latency,
    run_wmt17,
)

WMT_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt17-en-de"
WORKLOADS = [
    "wmt17",
    "subwords",
    "text",
    "chrf",
    "ter",
    "wer",
    "batches",
    "rouge",
    "alignments",
    "captioning",
    "pairwise",
    "self_bleu",
    "significance",
    "grid",
    "rl",
    "update",
    "tensorbleu",
    "memory",
    "threads",
]
#: The most a torch-bleu measurement may slow down beside as many busy processes as cores (a program
#: keeping to its share of the cores slows about 1.5 times there).
BUSY_LIMIT = 2.5
__all__ = ["QUICK", "main"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run of a few seconds: every workload, on tiny inputs"
    )
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file ('-' for stdout)")
    parser.add_argument("--plot", type=Path, help="write a PNG of throughput against row length")
    parser.add_argument(
        "--device", type=usable_device, default="cpu", help="device of the padded tensors (cpu or cuda)"
    )
    parser.add_argument("--repeats", type=int, help="timed rounds per measurement (default 5, 1 with --quick)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's own choice)")
    parser.add_argument("--data", type=Path, default=WMT_DIR, help="the wmt17-en-de folder")
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="run every workload in this process (as --quick does); by default each runs in a fresh one",
    )
    parser.add_argument(
        "--busy",
        type=int,
        default=timing.BUSY_PROCESSES,
        help="processes spinning beside torch-bleu's second round of every measurement (default: one per "
        "core, %(default)s; 0: no busy rounds)",
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also compare the rl, update and grid rows and every metric's update() at batches of 8 and 512 "
        "with the torch_bleu of this git revision (fresh processes, alternating, one thread and default "
        "threads; --skip every workload to run only this)",
    )
    parser.add_argument(
        "--tables",
        type=Path,
        metavar="REPORT",
        help="print the batches workload's tables from a report saved with --json, and run nothing",
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternations of --against (default: %(default)s)")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=WORKLOADS,
        help="workloads to leave out",
    )
    args = parser.parse_args(argv)
    if args.repeats is None:
        args.repeats = 1 if args.quick else 5
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.tables:
        for table in tables(json.loads(args.tables.read_text())["batches"]):
            table.print()
        return 0
    device = args.device
    timing.BUSY_PROCESSES = args.busy
    if args.threads:
        torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")  # nltk's and sacrebleu's advice about sentence-level BLEU
    report: dict[str, object] = {
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "torch_bleu": torch_bleu.__version__,
            "device": torch.cuda.get_device_name(device) if device.type == "cuda" else cpu_name(),
            "threads": torch.get_num_threads(),
            "quick": args.quick,
            "repeats": args.repeats,
            "sizes": asdict(workload_sizes(args)),
        }
    }
    workloads = {
        "wmt17": run_wmt17,
        "subwords": run_subwords,
        "text": run_text,
        "chrf": run_chrf,
        "ter": run_ter,
        "wer": run_wer,
        "batches": run_batches,
        "rouge": run_rouge,
        "alignments": run_alignments,
        "captioning": run_captioning,
        "pairwise": run_pairwise,
        "self_bleu": run_self_bleu,
        "significance": run_significance,
        "grid": run_grid,
        "rl": run_rl,
        "update": run_update_latency,
        "tensorbleu": run_tensorbleu,
        "memory": run_memory,
        "threads": run_threads,
    }
    chosen = [name for name in workloads if name not in args.skip]
    busy: dict[str, list[dict[str, object]]] = {}
    for name in chosen:
        if args.quick or args.one_process or len(chosen) == 1:
            report[name] = workloads[name](args, device)
            busy[name] = list(timing.BUSY_RECORDS)
            timing.BUSY_RECORDS.clear()
        else:
            report[name], busy[name] = _in_a_fresh_process(name, argv, workloads)
    report["busy"] = busy
    if args.busy and len(chosen) > 1:
        print_busy(busy, args.busy)
    if args.against:
        report["against"] = {args.against: compare(args.against, args.rounds, args.quick, args.data)}
    if args.plot and report.get("grid"):
        plot(report["grid"], args.plot)
    if args.json:
        text = json.dumps(
            report, indent=1, default=lambda value: value.tolist() if isinstance(value, Tensor) else str(value)
        )
        if str(args.json) == "-":
            print(text)
        else:
            args.json.write_text(text)
    return 0


def print_busy(busy: dict[str, list[dict[str, object]]], processes: int) -> None:
    """One row per torch-bleu measurement: its quiet time and its time beside ``processes`` busy processes."""
    print(f"\n## Beside {processes} busy processes (as many as cores): torch-bleu's medians, seconds\n")
    print("| workload | measurement | contender | quiet | busy | busy / quiet |")
    print("|---|---|---|---|---|---|")
    for workload, records in busy.items():
        for record in records:
            for contender, times in record["contenders"].items():  # type: ignore[attr-defined]
                ratio = times["busy"] / times["quiet"]
                flag = "" if ratio <= BUSY_LIMIT else " (over the limit)"
                print(
                    f"| {workload} | {record['label'] or '-'} | {contender} | {times['quiet']:.4f} "
                    f"| {times['busy']:.4f} | {ratio:.2f}x{flag} |"
                )


def _in_a_fresh_process(
    name: str, argv: Sequence[str] | None, workloads: Sequence[str]
) -> tuple[object, list[dict[str, object]]]:
    """Run workload ``name`` in a new Python process (its tables print as they come) and return its figures:
    no workload inherits the memory, objects and caches of the ones before it, which would slow the
    contenders that run in Python more than the others."""
    others = [other for other in workloads if other != name]
    given = list(sys.argv[1:] if argv is None else argv)
    if "--skip" in given:  # the workloads to leave out are named here
        skip = given.index("--skip")
        end = next((index for index in range(skip + 1, len(given)) if given[index].startswith("-")), len(given))
        given = given[:skip] + given[end:]
    for option in ("--json", "--plot", "--against"):  # the parent does those
        if option in given:
            index = given.index(option)
            given = given[:index] + given[index + 2 :]
    with tempfile.TemporaryDirectory() as folder:
        figures = Path(folder) / "figures.json"
        command = [sys.executable, __file__, *given, "--one-process", "--skip", *others, "--json", str(figures)]
        subprocess.run(command, check=True)
        report = json.loads(figures.read_text())
        return report[name], report["busy"][name]


if __name__ == "__main__":
    sys.exit(main())

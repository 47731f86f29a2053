"""torch-bleu against an earlier commit of itself: the rl, update, grid and metric rows, in fresh processes, in one run.

``python scripts/bench.py --against REV`` exports ``REV``'s ``torch_bleu`` package (``git archive``)
and runs this module as a script, once for that package and once for this checkout's, alternating
the two ``--rounds`` times, on one thread and with PyTorch's default threads. Each process times:

* ``rl``: ``sentence_bleu`` of the 256 x 1024 batch (sacrebleu's sentence settings), and the first call
  of the process (imports of torch-bleu's own modules included, PyTorch already imported);
* ``update``: ``BLEUScore.update`` on the same batch;
* ``grid``: ``corpus_bleu`` on small and large batches, with 1 and 4 references;
* every metric's ``update()`` path (``benchmarks/ab_updates.py``): BLEU (13a) from text and from padded
  ids, chrF++, TER, WER from text and from padded ids, CER, ROUGE (stemmed) from text and from padded
  ids, each a fresh metric updated over 512 WMT17 lines (or summaries; synthetic text without the data)
  in batches of 8 and in one batch, then ``compute()``.

Run alone: ``python scripts/benchmarks/ab.py [--source DIR] [--threads N] [--quick] [--data DIR]`` prints
the figures as JSON (``--source``: the folder whose ``torch_bleu`` to import; default: the installed one).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The WMT17 en-de folder of the metric rows (synthetic text where it is missing), as ``bench.py --data``.
WMT_DIR = REPO.parent / "shared" / "data" / "wmt17-en-de"
#: The grid cells compared: (references, B, L).
GRID = ((1, 32, 32), (1, 256, 64), (1, 1024, 1024), (4, 64, 64), (4, 256, 1024))
QUICK_GRID = ((1, 16, 16), (4, 16, 32))


def _median_ms(call: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def measure(quick: bool, threads: int | None, data: Path | None = WMT_DIR) -> dict[str, float]:
    """Milliseconds of each row in this process (``torch_bleu`` imported from wherever ``sys.path`` says);
    the metric rows read ``data``'s WMT17 files."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # the benchmarks package, after --source
    from benchmarks.ab_updates import measure_updates
    from benchmarks.common import QUICK, SPECIAL_IDS, counted_update
    from benchmarks.data import synthetic_batch

    batch, width = QUICK.rl if quick else (256, 1024)
    preds, target = synthetic_batch(batch, width, 1, seed=1)
    target = target[:, 0]
    options = dict(ignore_ids=SPECIAL_IDS, smoothing="exp", effective_order=True)
    start = time.perf_counter()
    import torch_bleu

    torch_bleu.sentence_bleu(preds, target, **options)
    figures = {"rl first call": (time.perf_counter() - start) * 1e3}
    repeats = 3 if quick else 15
    figures["rl"] = _median_ms(lambda: torch_bleu.sentence_bleu(preds, target, **options), repeats)
    metric = torch_bleu.BLEUScore(ignore_ids=SPECIAL_IDS)
    metric.update(preds, target)
    figures["update"] = _median_ms(lambda: counted_update(metric, preds, target), repeats)
    for references, rows, columns in QUICK_GRID if quick else GRID:
        preds, target = synthetic_batch(rows, columns, references)
        torch_bleu.corpus_bleu(preds, target, ignore_ids=SPECIAL_IDS)
        cell_repeats = max(3, min(50, 2_000_000 // (rows * columns * references)))
        figures[f"grid R={references} {rows}x{columns}"] = _median_ms(
            functools.partial(torch_bleu.corpus_bleu, preds, target, ignore_ids=SPECIAL_IDS),
            3 if quick else cell_repeats,
        )
    figures.update(measure_updates(quick, data))
    return figures


def fresh_figures(
    source: str = str(REPO / "src"), threads: int = 0, quick: bool = False, data: Path = WMT_DIR
) -> dict[str, float]:
    """:func:`measure` in a new Python process importing ``source``'s ``torch_bleu``, which may write
    its bytecode (as an installed package has it)."""
    command = [sys.executable, __file__, "--source", source, "--threads", str(threads), "--data", str(data)]
    command += ["--quick"] * quick
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    output = subprocess.run(command, capture_output=True, text=True, env=environment)
    if output.returncode:
        raise RuntimeError(f"{source}: {output.stderr}")
    figures: dict[str, float] = json.loads(output.stdout)
    return figures


def _package_folder(revision: str) -> str:
    """Where ``revision`` keeps the package: ``src/torch_bleu``, or ``torch_bleu`` in older revisions."""
    listed = subprocess.run(["git", "ls-tree", revision, "src/torch_bleu"], cwd=REPO, capture_output=True, check=True)
    return "src/torch_bleu" if listed.stdout.strip() else "torch_bleu"


def compare(revision: str, rounds: int, quick: bool, data: Path = WMT_DIR) -> dict[str, dict[str, dict[str, float]]]:
    """Figures of ``revision`` and of this checkout, each the median over ``rounds`` alternating fresh
    processes, on one thread and with the default threads; prints a table. The metric rows read
    ``data``'s WMT17 files (synthetic text where they are missing)."""
    with tempfile.TemporaryDirectory() as folder:
        package = _package_folder(revision)
        archive = subprocess.run(["git", "archive", revision, package], cwd=REPO, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        sources = {revision: str(Path(folder, package).parent), "this checkout": str(REPO / "src")}
        for source in sources.values():  # untimed: each version's bytecode written
            fresh_figures(source, quick=True, data=data)
        results: dict[str, dict[str, dict[str, float]]] = {}
        for threads in (1, 0):
            runs: dict[str, list[dict[str, float]]] = {name: [] for name in sources}
            for _ in range(rounds):
                for name, source in sources.items():
                    runs[name].append(fresh_figures(source, threads, quick, data))
            results["1 thread" if threads == 1 else "default threads"] = {
                name: {row: statistics.median(run[row] for run in figures) for row in figures[0]}
                for name, figures in runs.items()
            }
    _print(revision, results, rounds)
    return results


def _print(revision: str, results: dict[str, dict[str, dict[str, float]]], rounds: int) -> None:
    print(f"\n## Against {revision}: ms, median of {rounds} fresh processes each, alternating\n")
    print(f"| row | threads | {revision} | this checkout | this checkout / {revision} | this checkout is faster by |")
    print("|---|---|---|---|---|---|")
    for setting, versions in results.items():
        before, now = versions[revision], versions["this checkout"]
        for row in now:
            ratio = now[row] / before[row]
            print(f"| {row} | {setting} | {before[row]:.1f} | {now[row]:.1f} | {ratio:.2f} | {1 / ratio:.2f}x |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", help="the folder whose torch_bleu package to import (default: the installed one)")
    parser.add_argument("--threads", type=int, default=0, help="PyTorch's threads (0: its default)")
    parser.add_argument("--quick", action="store_true", help="tiny batches")
    parser.add_argument(
        "--data", type=Path, default=WMT_DIR, help="the wmt17-en-de folder of the metric rows (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    if args.source:
        sys.path.insert(0, args.source)
    print(json.dumps(measure(args.quick, args.threads, args.data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

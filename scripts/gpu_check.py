"""The parts of ``scripts/gpu_check.sh`` written in Python: the host-sync sweep, the report, the GPU tables.

* ``syncs --device D --json PATH``: ``update()`` and the count of the batch it queued (or the call) of
  every metric path on ``D``, each under ``torch.cuda.set_sync_debug_mode("error")``; a path that syncs
  runs again under ``"warn"``, every host-device synchronization named by the line of the library that
  caused it. TER's read-back of the
  decoded rows is documented and allowed; anything else fails the check. On a CPU there is nothing to
  synchronize: each path runs once.
* ``report --out PATH --step NAME=FILE ...``: one JSON report of the environment (device, Python,
  PyTorch, CUDA and Triton versions, date), of the steps' figures and times, and ``comparisons``: every
  timed figure with what it is compared with and the ratio. ``gpu_check.sh`` copies a CUDA run's report
  to ``docs/bench-gpu.json``, the file the tables are made from.
* ``tables REPORT``: the GPU tables of ``README.md`` and ``docs/speed.md``, rewritten from a report
  between their ``<!-- gpu-check -->`` markers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
import warnings
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: The host syncs the library documents: TER searches its shifts on the host and reads the decoded rows
#: back once per count of its queue.
ALLOWED_SYNCS = {"TERScore, subword ids": "TER's shift search runs on the host (one read-back per count of its queue)"}
MARKER = "<!-- gpu-check -->"
#: The pages whose GPU table ``tables`` writes.
PAGES = (REPO / "README.md", REPO / "docs" / "speed.md")


def metric_paths(device: object) -> dict[str, Callable[[], object]]:
    """One call per input path and metric, on ``device``; each returns what the library computed."""
    import torch

    import torch_bleu

    generator = torch.Generator().manual_seed(0)
    preds = torch.randint(3, 40, (64, 48), generator=generator).to(device)
    target = torch.where(torch.rand(64, 3, 48, generator=generator) < 0.6, preds.cpu()[:, None], 7).to(device)
    pieces = (b"", b"", b"", b" the", b" cat", b" sat", b" on", b" mat", b".", b" a", b" dog", b"s")
    detokenizer = torch_bleu.Detokenizer(pieces, invalid_utf8="per_byte")
    subwords = torch.randint(3, len(pieces), (32, 20), generator=generator).to(device)
    subword_refs = torch.randint(3, len(pieces), (32, 20), generator=generator).to(device)
    weight = torch.ones(64, dtype=torch.bool, device=device)
    long_rows = torch.randint(0, 4, (2, 1500), generator=generator).to(device)  # past rapidfuzz's cut into halves

    def updated(metric: Any, *args: object, **kwargs: object) -> Callable[[], object]:
        """A call of the metric's ``update`` on ``device``; it returns the metric."""
        metric = metric.to(device)

        def update() -> object:
            metric.update(*args, **kwargs)
            metric.count_queued()  # the queued batch counted as a read would: that count's syncs are the update's
            return metric

        return update

    ids = dict(ignore_ids=[0, 1], eos_id=2)
    cider = torch_bleu.CIDErScore(**ids).to(device)
    frequency = torch_bleu.cider_document_frequency(target.cpu(), eos_id=2, count_eos=True)
    samples = preds.repeat_interleave(4, dim=0)
    return {
        "BLEUScore, ids, one reference": updated(torch_bleu.BLEUScore(**ids), preds, target[:, 0]),
        "BLEUScore, ids, three references": updated(torch_bleu.BLEUScore(**ids), preds, target),
        "BLEUScore, ids, weight": updated(torch_bleu.BLEUScore(**ids), preds, target, weight=weight),
        "BLEUScore, ids, compiled": updated(torch_bleu.BLEUScore(compile=True, **ids), preds, target),
        "sentence_bleu, ids": lambda: torch_bleu.sentence_bleu(preds, target, smoothing="exp", **ids),
        "corpus_bleu, ids": lambda: torch_bleu.corpus_bleu(preds, target, **ids),
        "pairwise_bleu, ids": lambda: torch_bleu.pairwise_bleu(preds.view(8, 8, 48), ignore_ids=[0, 1]),
        "BLEUScore, subword ids": updated(torch_bleu.BLEUScore(detokenizer=detokenizer), subwords, subword_refs),
        "CHRFScore, subword ids": updated(torch_bleu.CHRFScore(detokenizer=detokenizer), subwords, subword_refs),
        "TERScore, subword ids": updated(torch_bleu.TERScore(detokenizer=detokenizer), subwords, subword_refs),
        "WERScore, ids": updated(torch_bleu.WERScore(**ids), preds, target[:, 0]),
        "WERScore, ids, weight": updated(torch_bleu.WERScore(**ids), preds, target[:, 0], weight=weight),
        "CERScore, ids": updated(torch_bleu.CERScore(**ids), preds, target[:, 0]),
        "CERScore, subword ids": updated(torch_bleu.CERScore(detokenizer=detokenizer), subwords, subword_refs),
        "BLEUScore, ids, kept sentences with indices": updated(
            torch_bleu.BLEUScore(keep_sentences=True, **ids), preds, target, indices=torch.arange(64, device=device)
        ),
        "aggregate_chrf, subword ids": lambda: torch_bleu.aggregate_chrf(
            subwords.view(4, 8, 20), detokenizer=detokenizer, word_order=2
        ),
        "self_bleu others, ids": lambda: torch_bleu.self_bleu(preds.view(8, 8, 48), mode="others", ignore_ids=[0, 1]),
        "WERScore, ids, long rows": updated(torch_bleu.WERScore(), long_rows, long_rows.flip(1)),
        "ROUGEScore, ids": updated(torch_bleu.ROUGEScore(sentence_sep_id=3, **ids), preds, target),
        "ROUGEScore, ids, rougeL and rougeLsum, weight": updated(
            torch_bleu.ROUGEScore(rouge_types=["rougeL", "rougeLsum"], sentence_sep_id=3, **ids),
            preds,
            target,
            weight=weight,
        ),
        "ROUGEScore, subword ids": updated(torch_bleu.ROUGEScore(detokenizer=detokenizer), subwords, subword_refs),
        "sentence_rouge, ids": lambda: torch_bleu.sentence_rouge(preds, target[:, 0], **ids),
        "pairwise_rouge, ids": lambda: torch_bleu.pairwise_rouge(preds.view(8, 8, 48), ignore_ids=[0, 1]),
        "CIDErScore, ids": lambda: cider.update(preds, target),
        "sentence_cider, ids": lambda: torch_bleu.sentence_cider(preds, target, **ids),
        "scst_reward, ids, training frequencies": lambda: torch_bleu.scst_reward(
            samples, target, frequency, greedy=preds, eos_id=2
        ),
        "scst_reward, ids, new self-critical": lambda: torch_bleu.scst_reward(samples, target, frequency, eos_id=2),
    }


def sweep(device_name: str) -> dict[str, object]:
    """Each path's host syncs (CUDA), or that it ran (CPU); ``ok`` when only documented ones were found.

    Each path runs under ``torch.cuda.set_sync_debug_mode("error")``, which stops it at its first host
    sync; a path stopped so runs again under ``"warn"`` to name every line of the library that syncs.
    """
    import torch

    device = torch.device(device_name)
    found: dict[str, list[str]] = {}
    for name, call in metric_paths(device).items():
        call()  # warm-up: compilation and first-use allocations are not the update's syncs
        if device.type != "cuda":
            found[name] = []
            continue
        torch.cuda.synchronize(device)
        found[name] = [] if _runs_without_sync(call) else _sync_lines(call)
    unexpected = {name: lines for name, lines in found.items() if lines and name not in ALLOWED_SYNCS}
    return {"device": device_name, "syncs": found, "allowed": ALLOWED_SYNCS, "ok": not unexpected}


def _runs_without_sync(call: Callable[[], object]) -> bool:
    """Whether ``call`` runs to its end with host syncs made errors."""
    import torch

    torch.cuda.set_sync_debug_mode("error")
    try:
        call()
    except RuntimeError as error:
        if "synchroniz" not in str(error).lower():
            raise
        return False
    finally:
        torch.cuda.set_sync_debug_mode("default")
    return True


def _sync_lines(call: Callable[[], object]) -> list[str]:
    """The lines (``file:line``) at which ``call`` synchronizes with the host, from PyTorch's warnings."""
    import torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            call()
        finally:
            torch.cuda.set_sync_debug_mode("default")
    lines = [f"{Path(w.filename).name}:{w.lineno}" for w in caught if "synchroniz" in str(w.message).lower()]
    return lines or ["(a sync PyTorch did not attribute)"]


def junit_counts(path: Path) -> dict[str, int]:
    """Passed, failed, errors and skipped of a pytest JUnit XML file."""
    suite = ElementTree.parse(path).getroot()
    suite = suite if suite.tag == "testsuite" else suite[0]
    tests, failures, errors, skipped = (int(suite.get(key, 0)) for key in ("tests", "failures", "errors", "skipped"))
    return {"passed": tests - failures - errors - skipped, "failed": failures, "errors": errors, "skipped": skipped}


def environment(device_name: str) -> dict[str, object]:
    import torch
    from benchmarks.common import cpu_name

    cuda = device_name.startswith("cuda")
    return {
        "device": torch.cuda.get_device_name(device_name) if cuda else cpu_name(),
        "device_kind": device_name,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "triton": _triton_version(),
        "kernels": os.environ.get("TORCH_BLEU_KERNELS", "auto"),
        "date": time.strftime("%Y-%m-%d"),
    }


def _triton_version() -> str | None:
    try:
        import triton
    except ImportError:
        return None
    return str(triton.__version__)


def comparisons(bench: dict[str, Any]) -> list[dict[str, object]]:
    """Every timed figure of the bench's ``tensorbleu``, ``alignments`` and ``captioning`` workloads: what was
    timed, in seconds, against what, and how many times faster torch-bleu on the device was."""
    found: list[dict[str, object]] = []
    for row in bench.get("tensorbleu") or []:
        for kind in ("sentence", "corpus"):
            ours, theirs = row["ms"].get(f"torch-bleu {kind}"), row["ms"].get(f"TensorBLEU {kind}")
            if ours is None:
                continue
            found.append(
                {
                    "figure": f"{kind} BLEU, {row['batch']} x {row['width']} ids",
                    "seconds": ours / 1e3,
                    "against": "TensorBLEU",
                    "against_seconds": None if theirs is None else theirs / 1e3,
                    "ratio": None if theirs is None else theirs / ours,
                }
            )
    figures = (bench.get("alignments") or {}).get("figures", [])
    for figure in figures:
        if figure["contender"] == figure["against"]:
            continue
        key = (figure["metric"], figure["batch"], figure["against"])
        ours = next(each["seconds"] for each in figures if (each["metric"], each["batch"], each["contender"]) == key)
        found.append(
            {
                "figure": f"{figure['metric']} from ids, batch {figure['batch']}",
                "seconds": ours,
                "against": figure["contender"],
                "against_seconds": figure["seconds"],
                "ratio": figure["ratio"],
            }
        )
    for figure in (bench.get("captioning") or {}).get("figures", []):
        if figure["contender"] != figure["against"]:
            ours = next(
                each["seconds"]
                for each in bench["captioning"]["figures"]
                if (each["measurement"], each["contender"]) == (figure["measurement"], figure["against"])
            )
            found.append(
                {
                    "figure": figure["measurement"],
                    "seconds": ours,
                    "against": figure["contender"],
                    "against_seconds": figure["seconds"],
                    "ratio": figure["ratio"],
                }
            )
    return found


def report(out: Path, device_name: str, steps: Sequence[str], seconds: Sequence[str]) -> dict[str, object]:
    """The report: the environment, and each ``NAME=FILE`` step's figures (JUnit XML or JSON) and seconds."""
    timing = dict(item.split("=", 1) for item in seconds)
    figures: dict[str, object] = {}
    for step in steps:
        name, file = step.split("=", 1)
        path = Path(file)
        if not path.exists():
            figures[name] = {"missing": file}
        elif path.suffix == ".xml":
            figures[name] = junit_counts(path)
        else:
            figures[name] = json.loads(path.read_text())
    bench = figures.get("bench")
    result = {
        "environment": environment(device_name),
        "seconds": {name: float(value) for name, value in timing.items()},
        "comparisons": comparisons(bench) if isinstance(bench, dict) and "missing" not in bench else [],
        "steps": figures,
    }
    out.write_text(json.dumps(result, indent=1))
    return result


def tables(report_path: Path, pages: Sequence[Path] = PAGES) -> str:
    """The Markdown table of a GPU check's report (device, tests, syncs, the bench's figures), written
    between the markers of ``pages``; returns it. A report of a CPU run is refused: these are GPU tables."""
    result = json.loads(report_path.read_text())
    env, steps = result["environment"], result["steps"]
    if not str(env["device_kind"]).startswith("cuda"):
        raise SystemExit(f"{report_path} is a report of a {env['device_kind']} run; the tables are the GPU's")
    tests, syncs, bench = steps.get("tests", {}), steps.get("syncs", {}), steps.get("bench", {})
    found = {name: lines for name, lines in syncs.get("syncs", {}).items() if lines}
    named = "; ".join(f"{name}: {len(lines)} ({', '.join(lines)})" for name, lines in found.items()) or "none"
    verdict = "only documented ones" if syncs.get("ok") else "UNDOCUMENTED ONES"
    lines = [
        f"`bash scripts/gpu_check.sh` on {env['device']} ({env['date']}; PyTorch {env['torch']}, CUDA {env['cuda']}):",
        "",
        "| check | result |",
        "| --- | --- |",
        f"| tests with inputs on the device | {tests.get('passed', '-')} passed, {tests.get('failed', '-')} failed, "
        f"{tests.get('errors', '-')} errors, {tests.get('skipped', '-')} skipped |",
        f"| host syncs in `update()` of {len(syncs.get('syncs', {}))} paths | {named} ({verdict}) |",
    ]
    for row in bench.get("tensorbleu") or []:
        cells = ", ".join(f"{name} {value:.2f} ms" for name, value in row["ms"].items())
        faster = row.get("torch_bleu_faster_by") or {}
        if faster:
            cells += "; torch-bleu faster by " + ", ".join(f"{value:.1f}x ({kind})" for kind, value in faster.items())
        lines.append(f"| BLEU of {row['batch']} x {row['width']} | {cells} |")
    lines += _alignment_rows((bench.get("alignments") or {}).get("figures", []))
    for name in ("rl", "update"):
        figures = bench.get(name) or {}
        if "seconds" in figures:
            times = figures["seconds"]["torch-bleu"] if isinstance(figures["seconds"], dict) else figures["seconds"]
            middle = sorted(times)[len(times) // 2]
            lines.append(f"| {name}, {figures['batch']} x {figures['width']} | torch-bleu {1e3 * middle:.2f} ms |")
    table = "\n".join(lines)
    pattern = re.compile(f"{re.escape(MARKER)}.*?{re.escape(MARKER)}", re.S)
    for page in pages:
        text = page.read_text()
        if pattern.search(text):
            page.write_text(pattern.sub(lambda _: f"{MARKER}\n{table}\n{MARKER}", text))
    return table


def _alignment_rows(figures: list[dict[str, Any]]) -> list[str]:
    """One table row per metric and batch size of the ``alignments`` workload: the device's time and how many
    times faster it is than each other contender."""
    rows = []
    for figure in figures:
        if figure["contender"] != figure["against"]:
            continue
        others = [
            f"{other['ratio']:.2f}x {other['contender'].removeprefix('torch-bleu, ')}"
            for other in figures
            if (other["metric"], other["batch"]) == (figure["metric"], figure["batch"]) and other is not figure
        ]
        rows.append(
            f"| {figure['metric']} from ids, batch {figure['batch']} | {1e3 * figure['seconds']:.2f} ms; "
            f"faster than {', '.join(others) or '-'} |"
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    syncs = commands.add_parser("syncs", help="host syncs of every metric path's update")
    syncs.add_argument("--device", default="cuda")
    syncs.add_argument("--json", type=Path, required=True)
    made = commands.add_parser("report", help="the JSON report of a check")
    made.add_argument("--out", type=Path, required=True)
    made.add_argument("--device", default="cuda")
    made.add_argument("--step", action="append", default=[], help="NAME=FILE (JUnit XML or JSON)")
    made.add_argument("--seconds", action="append", default=[], help="NAME=SECONDS")
    write = commands.add_parser("tables", help="rewrite the GPU tables of README.md and docs/speed.md")
    write.add_argument("report", type=Path)
    args = parser.parse_args(argv)
    if args.command == "syncs":
        result = sweep(args.device)
        args.json.write_text(json.dumps(result, indent=1))
        for name, lines in result["syncs"].items():  # type: ignore[union-attr]
            found = f"{len(lines)} host syncs {' '.join(lines)}" if args.device.startswith("cuda") else "ran"
            print(f"{name}: {found}")
        return 0 if result["ok"] else 1
    if args.command == "report":
        report(args.out, args.device, args.step, args.seconds)
        return 0
    print(tables(args.report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

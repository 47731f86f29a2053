"""``scripts/gpu_check.sh``: every GPU check in one command, exercised on the CPU (``--device cpu``), and the
tables its report writes into the README and the speed page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

import gpu_check  # noqa: E402  (a script beside the benchmarks, not a package)


@pytest.mark.slow
def test_the_check_runs_every_step_on_the_cpu_and_writes_its_report(tmp_path):
    command = ["bash", str(REPO / "scripts" / "gpu_check.sh"), "--device", "cpu", "--out", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == str(tmp_path / "report.json")  # its path, last
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["environment"]["device_kind"] == "cpu" and report["environment"]["torch"]
    tests = report["steps"]["tests"]
    assert tests["passed"] > 200 and tests["failed"] == tests["errors"] == 0
    syncs = report["steps"]["syncs"]
    assert syncs["ok"] and len(syncs["syncs"]) >= 10
    assert report["steps"]["bench"]["tensorbleu"][0]["ms"]["torch-bleu sentence"] > 0
    assert set(report["seconds"]) == {"tests", "syncs", "bench"}


ALIGNMENT_FIGURES = [
    {"metric": "WER", "batch": 8, "contender": name, "seconds": seconds, "against": "torch-bleu, cuda", "ratio": ratio}
    for name, seconds, ratio in [
        ("torch-bleu, cuda", 0.01, 1.0),
        ("torch-bleu, cpu", 0.02, 2.0),
        ("loop + jiwer", 0.03, 3.0),
    ]
]


def _report(tmp_path: Path, device_kind: str) -> Path:
    path = tmp_path / "report.json"
    path.write_text(_report_json(device_kind))
    return path


def _report_json(device_kind: str) -> str:
    bleu = {"batch": 256, "width": 1024, "ms": {"torch-bleu sentence": 0.71, "TensorBLEU sentence": 2.5}}
    report = {
        "environment": {
            "device": "NVIDIA H100 80GB HBM3",
            "device_kind": device_kind,
            "python": "3.12.3",
            "torch": "2.11.0+cu130",
            "cuda": "13.0",
            "date": "2026-12-01",
        },
        "seconds": {"tests": 200.0, "syncs": 30.0, "bench": 240.0},
        "steps": {
            "tests": {"passed": 280, "failed": 1, "errors": 0, "skipped": 3},
            "syncs": {"syncs": {"BLEUScore, ids": [], "TERScore, subword ids": ["statistics.py:61"]}, "ok": True},
            "bench": {
                "tensorbleu": [bleu],
                "update": {"batch": 256, "width": 1024, "seconds": [0.0009, 0.0008, 0.001]},
                "alignments": {"figures": ALIGNMENT_FIGURES},
            },
        },
    }
    return json.dumps(report)


def test_the_report_of_a_gpu_run_becomes_the_tables_between_the_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(f"before\n{gpu_check.MARKER}\nNo GPU report yet.\n{gpu_check.MARKER}\nafter\n")
    table = gpu_check.tables(_report(tmp_path, "cuda"), pages=[page])
    text = page.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "No GPU report yet" not in text
    assert table in text
    assert "NVIDIA H100 80GB HBM3" in table and "280 passed, 1 failed" in table
    assert "TERScore, subword ids: 1 (statistics.py:61) (only documented ones)" in table
    assert "torch-bleu sentence 0.71 ms, TensorBLEU sentence 2.50 ms" in table
    assert "| update, 256 x 1024 | torch-bleu 0.90 ms |" in table
    assert "| WER from ids, batch 8 | 10.00 ms; faster than 2.00x cpu, 3.00x loop + jiwer |" in table


def test_the_comparisons_name_every_figure_with_its_peer_and_ratio():
    bench = json.loads(_report_json("cuda"))["steps"]["bench"]
    found = gpu_check.comparisons(bench)
    assert {
        "figure": "WER from ids, batch 8",
        "seconds": 0.01,
        "against": "loop + jiwer",
        "against_seconds": 0.03,
        "ratio": 3.0,
    } in found
    sentence = next(row for row in found if row["figure"] == "sentence BLEU, 256 x 1024 ids")
    assert sentence["against"] == "TensorBLEU" and sentence["ratio"] == pytest.approx(2.5 / 0.71)


def test_a_cpu_report_is_not_written_into_the_gpu_tables(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(f"{gpu_check.MARKER}\nNo GPU report yet.\n{gpu_check.MARKER}\n")
    with pytest.raises(SystemExit, match="report of a cpu run"):
        gpu_check.tables(_report(tmp_path, "cpu"), pages=[page])
    assert "No GPU report yet" in page.read_text()


def test_the_readme_and_the_speed_page_hold_the_markers():
    for page in gpu_check.PAGES:
        assert page.read_text().count(gpu_check.MARKER) == 2, page


def test_junit_counts_read_pytests_summary(tmp_path):
    xml = tmp_path / "tests.xml"
    xml.write_text('<testsuites><testsuite tests="10" failures="1" errors="2" skipped="3"/></testsuites>')
    assert gpu_check.junit_counts(xml) == {"passed": 4, "failed": 1, "errors": 2, "skipped": 3}

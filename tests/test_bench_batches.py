"""The ``batches`` workload of ``scripts/bench.py``: the cost of one ``update()`` by batch size beside each peer,
its tables printed again from the figures alone, and the ROUGE rows that appear with ``torch_bleu.ROUGEScore``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import torch_bleu

REPO = Path(__file__).resolve().parents[1]
WMT17 = REPO.parent / "shared" / "data" / "wmt17-en-de"
sys.path.insert(0, str(REPO / "scripts"))

from benchmarks import batches, timing  # noqa: E402  (the benchmark's package beside bench.py)


def _row(metric: str) -> batches.Row:
    return next(row for row in batches.rows(quick=True) if row.metric == metric)


@pytest.mark.parametrize("metric", ["WER, text", "BLEU, padded ids"])
def test_a_row_times_every_batch_size_beside_its_peer_on_the_same_lines(metric, monkeypatch):
    monkeypatch.setattr(timing, "BUSY_PROCESSES", 0)
    lines = ["the cat sat on the mat", "a dog", "", "one two three four five", "x y z", "and so on"]
    references = ["the cat is on the mat", "the dog", "nothing", "one two three four", "x y", "and so forth"]
    corpus = [list(zip(lines, references)), list(zip(reversed(lines), references))]
    row = _row(metric)
    if row.ids:
        numbers: dict[str, int] = {}
        corpus = [
            list(zip(batches._id_rows([hyp for hyp, _ in system], numbers), batches._id_rows(references, numbers)))
            for system in corpus
        ]
    figures = batches._measure(row, corpus, (1, 4, None), 2, 1, torch_bleu.BLEUScore().device)
    assert figures["lines"] == {"1": 2, "4": 6, "whole system": 6}  # batch 1: at most 2 updates per system
    assert figures["updates"] == {"1": 4, "4": 4, "whole system": 2}
    assert set(figures["seconds"]) == set(figures["peer_seconds"]) == {"1", "4", "whole system"}
    assert figures["largest_score_difference"] <= 1e-12
    assert figures["busy_over_quiet"] == {}  # no busy rounds asked for


def test_the_tables_are_printed_again_from_a_saved_report():
    figures = {
        "batch_sizes": [1, 8, None],
        "most_updates": 400,
        "repeats": 3,
        "rows": [
            {
                "metric": "WER, text",
                "peer": "jiwer.wer",
                "systems": 4,
                "lines": {"1": 400, "8": 3004, "whole system": 3004},
                "updates": {"1": 1600, "8": 1504, "whole system": 4},
                "seconds": {"1": 0.8, "8": 1.0, "whole system": 0.2},
                "peer_seconds": {"1": 0.08, "8": 0.5, "whole system": 0.5},
                "busy_over_quiet": {"1": 1.5, "8": 1.6, "whole system": 1.7},
                "largest_score_difference": 0.0,
            }
        ],
    }
    detail, every_size, readme = batches.tables(json.loads(json.dumps(figures)))
    assert detail.rows[0] == ["WER, text", "jiwer.wer", "batch 1", "4 x 400", "500", "50.0", "50", "0.10x", "1.50x"]
    assert detail.rows[2][4:] == ["50,000", "41.6", "125,000", "2.50x", "1.70x"]
    assert every_size.rows == [["WER, text", "jiwer.wer", "4 x 3004", "0.10x", "0.50x", "2.50x", "0.0e+00"]]
    assert readme.columns[3:] == ["batch 8", "whole system", "largest score difference"]  # 32 and 128 unmeasured


def test_the_rouge_rows_appear_with_rouge_score(monkeypatch):
    """Once ``torch_bleu.ROUGEScore`` exists, ROUGE is measured against rouge-score and rouge-score-rs."""
    pytest.importorskip("rouge_score")
    pytest.importorskip("rouge_score_rs")
    if not hasattr(torch_bleu, "ROUGEScore"):
        assert not [row for row in batches.rows(quick=True) if row.metric.startswith("ROUGE")]
        monkeypatch.setattr(torch_bleu, "ROUGEScore", lambda **options: options, raising=False)
    rouge = [row for row in batches.rows(quick=True) if row.metric.startswith("ROUGE")]
    assert [row.peer_name for row in rouge] == ["rouge-score", "rouge-score-rs score_batch"]
    pairs = [(["the cat sat", "a b c d"], ["the cat sat down", "a b x d"])]
    for row in rouge:
        assert row.peer(pairs) == pytest.approx((6 / 7 + 3 / 4) / 2, abs=1e-12)  # rougeL F of each pair, averaged
        assert row.score({"rougeL_fmeasure": 0.25}) == 0.25


@pytest.mark.slow
@pytest.mark.skipif(not WMT17.is_dir(), reason="needs the WMT17 data beside the repository")
def test_the_quick_run_scores_as_the_peers_and_its_report_prints_the_same_tables(tmp_path):
    report = tmp_path / "bench.json"
    others = ["wmt17", "subwords", "text", "chrf", "ter", "wer", "pairwise", "self_bleu", "significance", "grid"]
    others += ["rl", "update", "tensorbleu", "memory", "threads"]
    bench = [sys.executable, str(REPO / "scripts" / "bench.py")]
    command = [*bench, "--quick", "--busy", "1", "--json", str(report), "--skip", *others]
    printed = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600).stdout
    figures = json.loads(report.read_text())["batches"]
    assert {row["metric"] for row in figures["rows"]} >= {"BLEU (13a), text", "CER, text", "WER, padded ids"}
    for row in figures["rows"]:
        assert row["largest_score_difference"] <= 1e-9, row["metric"]
        assert set(row["busy_over_quiet"]) == {"1", "8", "whole system"}
    again = subprocess.run([*bench, "--tables", str(report)], check=True, capture_output=True, text=True).stdout
    assert again.strip() and again.strip() in printed

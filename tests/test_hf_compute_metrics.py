"""The Hugging Face ``compute_metrics`` example: runs as written, and equals sacrebleu on the stripped ids."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

import hf_compute_metrics  # noqa: E402

sacrebleu = pytest.importorskip("sacrebleu")


def test_the_example_runs_as_written():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "hf_compute_metrics.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "'bleu':" in done.stdout


@pytest.mark.parametrize("seed", range(5))
def test_compute_metrics_equals_sacrebleu_on_the_stripped_ids(seed):
    predictions, labels = hf_compute_metrics.trainer_like_arrays(seed)
    special = {hf_compute_metrics.LABEL_PAD, 0, 1, 2}

    def words(row):
        return " ".join(str(token) for token in row if token not in special)

    expected = sacrebleu.BLEU(tokenize="none", smooth_method="none").corpus_score(
        [words(row) for row in predictions], [[words(row) for row in labels]]
    )
    ours = hf_compute_metrics.make_compute_metrics([0, 1, 2])((predictions, labels))
    assert ours["bleu"] == pytest.approx(expected.score, rel=1e-12)
    ours_from_tuple = hf_compute_metrics.make_compute_metrics([0, 1, 2])(((predictions, None), labels))
    assert ours_from_tuple == ours

"""``examples/subword_sacrebleu.py``: sacreBLEU and chrF++ from SentencePiece ids, equal to sacrebleu's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

pytest.importorskip("sentencepiece")
pytest.importorskip("sacrebleu")
import subword_sacrebleu  # noqa: E402
from sacrebleu.metrics import BLEU, CHRF  # noqa: E402


@pytest.mark.parametrize("batch_size, seed", [(8, 0), (5, 3), (48, 1)])
def test_scores_equal_sacrebleus_on_the_decoded_text(batch_size, seed, capsys):
    scores = subword_sacrebleu.main(["--batch-size", str(batch_size), "--seed", str(seed)])
    model = subword_sacrebleu.train_sentencepiece(subword_sacrebleu.SENTENCES)
    references = model.encode(subword_sacrebleu.SENTENCES)
    hypotheses = subword_sacrebleu.model_outputs(references, model.get_piece_size(), seed)
    decoded = [model.decode(row) for row in hypotheses]
    decoded_references = [model.decode(row) for row in references]
    assert scores["sacreBLEU"] == pytest.approx(BLEU().corpus_score(decoded, [decoded_references]).score, abs=1e-10)
    assert scores["chrF++"] == pytest.approx(
        CHRF(word_order=2).corpus_score(decoded, [decoded_references]).score, abs=1e-10
    )
    assert "largest difference" in capsys.readouterr().out


def test_the_script_runs():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "subword_sacrebleu.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "sacreBLEU:" in done.stdout and "chrF++:" in done.stdout

"""The examples run end to end in their reduced (``--quick``) modes, and their toy task behaves.

The demo also runs as ``scripts/demo.sh`` runs it, so that the script, the example's imports and its
command line are covered; the rest runs in this process to keep the suite quick.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))  # the examples import their shared _toy_task module by name

import _toy_task  # noqa: E402
import rl_reward  # noqa: E402
import seq2seq_validation  # noqa: E402

HAVE_NLTK = importlib.util.find_spec("nltk") is not None
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


@pytest.fixture(autouse=True)
def keep_torch_threads():
    """The examples set torch's thread count (``--threads``); give the rest of the suite its own back."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def test_toy_task_doctests() -> None:
    assert doctest.testmod(_toy_task).failed == 0


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (0, "zero"),
        (13, "thirteen"),
        (20, "twenty"),
        (105, "one hundred five"),
        (1000, "one thousand"),
        (10010, "ten thousand ten"),
        (999999, "nine hundred ninety nine thousand nine hundred ninety nine"),
    ],
)
def test_number_to_words(number: int, words: str) -> None:
    assert " ".join(_toy_task.number_to_words(number)) == words


def test_number_to_words_rejects_numbers_out_of_range() -> None:
    with pytest.raises(ValueError, match="must be in"):
        _toy_task.number_to_words(10**6)


def test_splits_are_reproducible_and_round_trip() -> None:
    first, second = _toy_task.make_splits(50, 10, seed=3), _toy_task.make_splits(50, 10, seed=3)
    for (src_a, tgt_a), (src_b, tgt_b) in zip(first, second):
        assert torch.equal(src_a, src_b) and torch.equal(tgt_a, tgt_b)
    (src, tgt), _ = first
    for src_row, tgt_row in zip(src, tgt):
        number = int(_toy_task.decode_digits(src_row))
        assert _toy_task.decode_words(tgt_row) == " ".join(_toy_task.number_to_words(number))


def test_decoding_pads_after_the_first_eos() -> None:
    _toy_task.seed_everything(0)
    model = _toy_task.TinyTranslator().eval()
    src, _ = _toy_task.encode_numbers([5, 42, 123456, 700000])
    with torch.no_grad():
        model.project.bias.data[_toy_task.EOS] += 2.0  # make EOS likely, so that rows end early
        greedy = _toy_task.greedy_decode(model, src)
        sampled, log_prob = _toy_task.sample_decode(model, src)
    for ids in (greedy, sampled):
        ended = (ids == _toy_task.EOS).cumsum(1) - (ids == _toy_task.EOS).long() > 0  # strictly after an EOS
        assert bool((ids[ended] == _toy_task.PAD).all())
        assert bool((ids[~ended] != _toy_task.PAD).all())
    assert log_prob.shape == (4,) and bool((log_prob <= 0).all())


def test_seq2seq_validation_quick(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    plot = tmp_path / "bleu.png"
    history = seq2seq_validation.main(["--quick", "--seed", "1", "--plot", str(plot)])
    out = capsys.readouterr().out
    assert len(history) == 2 and all(0.0 <= bleu <= 1.0 for bleu in history)
    if HAVE_NLTK:
        assert "equals nltk's corpus_bleu at every epoch" in out
    if HAVE_MATPLOTLIB:
        assert plot.stat().st_size > 0
    # seeded: a second run repeats the first exactly
    assert seq2seq_validation.main(["--quick", "--seed", "1", "--plot", str(plot)]) == history


def test_demo_runs_the_example_as_a_script(tmp_path: Path) -> None:
    plot = tmp_path / "sub" / "bleu.png"
    command = ["bash", str(ROOT / "scripts" / "demo.sh"), "--quick", "--epochs", "1", "--plot", str(plot)]
    # the set-up step is tested by running scripts/test.sh itself; here demo.sh runs in this interpreter
    env = {**os.environ, "TORCH_BLEU_SKIP_SETUP": "1", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert finished.returncode == 0, finished.stderr
    assert "setup: installing" not in finished.stderr
    assert "validation BLEU per epoch" in finished.stdout
    assert "epoch 1/1" in finished.stderr  # the progress bar
    assert plot.exists() == HAVE_MATPLOTLIB


def test_nltk_flow_matches_torch_bleu_on_hand_made_ids() -> None:
    pytest.importorskip("nltk")
    pad, bos, eos = _toy_task.PAD, _toy_task.BOS, _toy_task.EOS
    pred = torch.tensor([[5, 6, 7, 8, 9, eos, pad], [5, 6, eos, pad, pad, pad, pad], [7, 7, 7, 7, eos, pad, pad]])
    tgt = torch.tensor([[bos, 5, 6, 7, 8, 10, eos], [bos, 5, 6, 7, eos, pad, pad], [bos, 7, 7, 8, 7, eos, pad]])
    decoded = [(pred[:2], tgt[:2]), (pred[2:], tgt[2:])]
    expected = seq2seq_validation.nltk_flow(decoded)
    assert 0 < expected < 1
    assert seq2seq_validation.torch_bleu_flow(decoded) == pytest.approx(expected, abs=1e-12)


def test_rl_reward_quick(capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("nltk")
    result = rl_reward.main(["--quick"])
    out = capsys.readouterr().out
    assert len(result["torch_bleu_s"]) == len(result["nltk_s"]) == 3
    assert result["largest_gap"] <= rl_reward.TOLERANCE
    assert "every reward equals nltk's" in out


def test_reward_is_zero_when_sample_equals_greedy() -> None:
    ids = torch.tensor([[5, 6, 7, _toy_task.EOS], [8, _toy_task.EOS, 0, 0]])
    tgt = torch.tensor([[_toy_task.BOS, 5, 6, 7, _toy_task.EOS], [_toy_task.BOS, 9, 8, _toy_task.EOS, 0]])
    assert rl_reward.torch_bleu_reward(ids, ids, tgt).tolist() == [0.0, 0.0]

"""The examples run end to end in their reduced (``--quick``) modes, and their toy task behaves.

The demo also runs as ``scripts/demo.sh`` runs it, so that the script, the example's imports and its
command line are covered (by default only up to its refusal of ``--device cuda``; the whole run is slow);
the rest runs in this process to keep the suite quick. So does
``scripts/bench.py --quick``, the benchmark's smoke run. Every script with a ``--device`` option is
also started with ``--device cuda`` on machines without CUDA, where it must stop at once with one line
of error and exit status 2.
"""

from __future__ import annotations

import argparse
import doctest
import importlib
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from types import ModuleType

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))  # the examples import their shared _toy_task module by name

import _device  # noqa: E402
import _toy_task  # noqa: E402
import asr_wer  # noqa: E402
import rl_reward  # noqa: E402
import seq2seq_validation  # noqa: E402
import summarization_validation  # noqa: E402

HAVE_NLTK = importlib.util.find_spec("nltk") is not None
FILLERS = set(summarization_validation.FILLERS)
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
HAVE_LIGHTNING = any(importlib.util.find_spec(name) is not None for name in ("pytorch_lightning", "lightning"))
EXAMPLE_NAMES = ["seq2seq_validation", "summarization_validation", "rl_reward", "ddp_evaluate", "lightning_validation"]
COMMON_FLAGS = ["--device", "--seed", "--threads", "--quick"]
# every script with a --device option, as a command line; the examples are started as the docs start them
DEVICE_SCRIPTS = {
    "seq2seq_validation": [sys.executable, "examples/seq2seq_validation.py"],
    "summarization_validation": [sys.executable, "examples/summarization_validation.py"],
    "rl_reward": [sys.executable, "examples/rl_reward.py"],
    "ddp_evaluate": [sys.executable, "examples/ddp_evaluate.py"],
    "lightning_validation": [sys.executable, "examples/lightning_validation.py"],
    "subword_sacrebleu": [sys.executable, "examples/subword_sacrebleu.py"],
    "bench": [sys.executable, "scripts/bench.py"],
    "demo.sh": ["bash", "scripts/demo.sh"],
}
#: Each script checks --device with the same function; these two run by default, the others with --slow.
QUICK_DEVICE_SCRIPTS = ("seq2seq_validation", "demo.sh")
UNUSABLE_DEVICE = re.compile(r"\S+: error: argument --device: device 'cuda' is not usable: \S.*")


def load_bench() -> ModuleType:
    """``scripts/bench.py`` as a module (registered in ``sys.modules``, as its dataclasses need)."""
    spec = importlib.util.spec_from_file_location("bench", ROOT / "scripts" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def keep_torch_threads():
    """The examples set torch's thread count (``--threads``); give the rest of the suite its own back."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def test_summarization_validation_quick(capsys: pytest.CaptureFixture) -> None:
    result = summarization_validation.main(["--quick", "--seed", "1"])
    out = capsys.readouterr().out
    history = result["history"]
    assert len(history) == 2 and all(0.0 <= value <= 1.0 for scores in history for value in scores.values())
    assert list(history[0]) == list(summarization_validation.ROUGE_TYPES)
    if importlib.util.find_spec("rouge_score") is not None:
        assert "rouge-score on the decoded text gives the same means at every epoch" in out
        assert result["largest_gap"] <= summarization_validation.TOLERANCE
        assert "rouge-score's BootstrapAggregator, seeded alike, gives the same intervals" in out
    intervals = result["intervals"]
    assert list(intervals) == list(summarization_validation.ROUGE_TYPES)
    assert all(low[2] <= mid[2] <= high[2] for low, mid, high in intervals.values())
    # the Hugging Face recipe (decode, split into sentences, ROUGE) gives the metric's numbers from ids
    assert "compute_metrics (decode, split into sentences, ROUGE) gives the metric's numbers" in out
    recipe, unsplit = result["compute_metrics"], result["unsplit"]
    assert recipe == pytest.approx({name: 100 * value for name, value in history[-1].items()}, abs=1e-9)
    assert unsplit["rougeLsum"] == unsplit["rougeL"] == recipe["rougeL"]
    # seeded: a second run repeats the first exactly, intervals included
    again = summarization_validation.main(["--quick", "--seed", "1"])
    assert (again["history"], again["intervals"]) == (history, intervals)


def test_summarization_documents_and_their_text() -> None:
    assert doctest.testmod(summarization_validation).failed == 0
    src, tgt = summarization_validation.make_documents(50, random.Random(3))
    for document, summary in zip(src, tgt):
        kept = [word for word in summarization_validation.words(document).split() if word not in FILLERS]
        assert summarization_validation.words(summary).split() == kept
    text = summarization_validation.summary_text(torch.tensor([1, 4, 5, 3, 6, 3, 2, 0]))
    assert text == "cat dog\nbird"


def test_toy_task_doctests() -> None:
    assert doctest.testmod(_toy_task).failed == 0


def test_device_doctests() -> None:
    assert doctest.testmod(_device).failed == 0


def demo_environment() -> dict[str, str]:
    """The environment demo.sh runs in under the tests: this interpreter, no set-up step, no torchrun."""
    launched = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}
    return {
        **{name: value for name, value in os.environ.items() if name not in launched},
        "TORCH_BLEU_SKIP_SETUP": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message given where PyTorch has no CUDA")
@pytest.mark.parametrize(
    "name",
    [name if name in QUICK_DEVICE_SCRIPTS else pytest.param(name, marks=pytest.mark.slow) for name in DEVICE_SCRIPTS],
)
def test_device_cuda_without_cuda_is_one_line_and_status_2(name: str) -> None:
    if name == "lightning_validation" and not HAVE_LIGHTNING:
        pytest.skip("PyTorch Lightning is optional: pip install torch-bleu[lightning]")
    finished = subprocess.run(
        [*DEVICE_SCRIPTS[name], "--device", "cuda"],
        capture_output=True,
        text=True,
        timeout=120,
        env=demo_environment(),
        cwd=ROOT,
    )
    assert finished.returncode == 2, finished.stderr
    assert "Traceback" not in finished.stderr
    assert finished.stdout == ""  # stopped before any work
    lines = finished.stderr.splitlines()
    assert lines[0].startswith("usage: ")
    errors = [line for line in lines if "error" in line.lower()]
    assert errors == [lines[-1]]
    assert UNUSABLE_DEVICE.fullmatch(lines[-1]), lines[-1]


def test_usable_device_names_the_device_and_pytorchs_reason_on_one_line() -> None:
    assert _device.usable_device("cpu") == torch.device("cpu")
    assert _device.usable_device("meta") == torch.device("meta")
    with pytest.raises(argparse.ArgumentTypeError) as raised:
        _device.usable_device("cpux")
    assert str(raised.value).startswith("device 'cpux' is not usable: ")
    assert "\n" not in str(raised.value)
    if not torch.backends.mps.is_available():  # PyTorch's own message here runs to dozens of lines
        with pytest.raises(argparse.ArgumentTypeError, match=r"^device 'mps' is not usable: [^\n]+$"):
            _device.usable_device("mps")
    if not torch.cuda.is_available():
        with pytest.raises(argparse.ArgumentTypeError, match=r"^device 'cuda:1' is not usable: [^\n]+$"):
            _device.usable_device("cuda:1")


def test_usable_accelerator_leaves_lightnings_own_names_to_lightning() -> None:
    assert _device.usable_accelerator("auto") == "auto"
    assert _device.usable_accelerator("cpu") == "cpu"
    assert _device.usable_accelerator("tpu") == "tpu"  # not a PyTorch device: Lightning checks it
    if not (torch.cuda.is_available() or torch.backends.mps.is_available()):
        with pytest.raises(argparse.ArgumentTypeError, match=r"^device 'gpu' is not usable: "):
            _device.usable_accelerator("gpu")


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


@pytest.mark.slow
def test_demo_runs_the_example_as_a_script(tmp_path: Path) -> None:
    plot = tmp_path / "sub" / "bleu.png"
    command = ["bash", str(ROOT / "scripts" / "demo.sh"), "--quick", "--epochs", "1", "--plot", str(plot)]
    # the set-up step is tested by running scripts/test.sh itself; here demo.sh runs in this interpreter
    env = demo_environment()
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert finished.returncode == 0, finished.stderr
    assert "setup: installing" not in finished.stderr
    assert "validation BLEU per epoch" in finished.stdout
    # standard error is no terminal here: one line per epoch, no progress bar redrawn with carriage returns
    assert re.search(r"^epoch 1/1: loss=[0-9.]+, val BLEU=[0-9.]+$", finished.stderr, re.MULTILINE), finished.stderr
    assert "\r" not in finished.stderr
    assert plot.exists() == HAVE_MATPLOTLIB


def test_quick_run_leaves_the_full_runs_plot_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default plot paths are relative, as demo.sh runs from the repository
    full_run_plot = tmp_path / "out" / "validation_bleu.png"
    full_run_plot.parent.mkdir(parents=True)
    full_run_plot.write_bytes(b"the full run's plot")
    seq2seq_validation.main(["--quick", "--epochs", "1"])
    assert full_run_plot.read_bytes() == b"the full run's plot"
    assert (tmp_path / "out" / "validation_bleu_quick.png").exists() == HAVE_MATPLOTLIB


def test_plot_shows_the_console_numbers_on_a_0_to_100_scale() -> None:
    pytest.importorskip("matplotlib")
    history = [0.1577, 0.2745, 0.6336, 0.9991]  # BLEU per epoch as metric.compute() returns it
    _, ax = seq2seq_validation.plot_history(history)
    assert ax.get_ylim() == (0, 100)
    (line,) = ax.get_lines()  # one line, with a marker per epoch
    assert line.get_marker() == "o"
    assert list(line.get_xdata()) == [1, 2, 3, 4]
    assert list(line.get_ydata()) == pytest.approx([15.77, 27.45, 63.36, 99.91])
    console = seq2seq_validation.format_history(history)  # what the console prints per epoch
    assert [f"{bleu:.1f}" for bleu in line.get_ydata()] == console.split()
    low, high = ax.get_xlim()
    assert [tick for tick in ax.get_xticks() if low <= tick <= high] == [1, 2, 3, 4]  # whole epochs only
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("epoch", "validation BLEU")
    assert ax.get_title() and ax.get_legend() is None


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_example_takes_the_common_flags(name: str, capsys: pytest.CaptureFixture) -> None:
    if name == "lightning_validation" and not HAVE_LIGHTNING:
        pytest.skip("PyTorch Lightning is optional: pip install torch-bleu[lightning]")
    example = importlib.import_module(name)
    with pytest.raises(SystemExit) as exited:
        example.main(["--help"])
    assert exited.value.code == 0
    listed = capsys.readouterr().out
    assert [flag for flag in COMMON_FLAGS if flag not in listed] == []


@pytest.mark.skipif(not HAVE_LIGHTNING, reason="PyTorch Lightning is optional: pip install torch-bleu[lightning]")
@pytest.mark.parametrize(("argv", "threads"), [(["--quick"], 1), (["--fast", "--threads", "2"], 2)])
def test_lightning_example_sets_torch_threads_before_training(
    argv: list, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = importlib.import_module("lightning_validation")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)  # restored afterwards, as the example sets it
    seen = {}

    def fake_train(quick: bool, **options: object) -> tuple:
        seen.update(quick=quick, threads=torch.get_num_threads(), omp=os.environ.get("OMP_NUM_THREADS"))
        trainer = type("Trainer", (), {"callback_metrics": {"val_bleu": torch.tensor(0.5)}, "is_global_zero": False})
        return trainer, None, None

    monkeypatch.setattr(example, "train", fake_train)
    assert example.main(argv) == 0.5
    assert seen == {"quick": True, "threads": threads, "omp": str(threads)}


@pytest.mark.slow
def test_bench_quick_is_a_smoke_run_of_every_workload(tmp_path: Path) -> None:
    bench = load_bench()
    report_path = tmp_path / "bench.json"
    assert bench.main(["--quick", "--json", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert {"grid", "rl", "update", "memory"} <= set(report)
    if report.get("wmt17"):  # None when the WMT17 data beside the repository is absent
        assert len(report["wmt17"]["systems"]) == 2 and report["wmt17"]["sentences"] <= 2 * 192
        assert not any(row[-1].startswith("NO") for row in report["wmt17"]["table"])
    if report.get("text"):  # None without the data, as wmt17
        assert len(report["text"]["systems"]) == 2 and report["text"]["sentences"] <= 2 * 192
        for name, difference in report["text"]["max_score_difference"].items():
            assert difference <= (1e-6 if name == "torchmetrics" else 1e-9), name  # torchmetrics: float32
    if report.get("pairwise"):  # None without the data, as wmt17; fastchrf rounds to float32
        for table in report["pairwise"].values():
            assert all(float(row[-1]) <= 1e-6 for row in table["table"])
    assert max(max(cell["batch"], cell["width"]) for cell in report["grid"]) <= 32
    assert report["rl"]["batch"] * report["rl"]["width"] <= 32 * 64
    assert report["update"]["batch"] * report["update"]["width"] <= 32 * 64
    assert max(cell["slots"] for cell in report["memory"]) <= 32 * 64 * 5  # preds and 4 references
    assert report["environment"]["sizes"] == json.loads(json.dumps(asdict(bench.QUICK)))


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
    before, after = result["bleu"]
    assert f"validation BLEU after 3 SCST steps: {100 * after:.2f} (before: {100 * before:.2f}," in out
    # seeded: a second run repeats the first exactly
    assert rl_reward.main(["--quick"])["bleu"] == (before, after)


def test_sampled_log_prob_is_the_sum_of_the_decoding_steps() -> None:
    """``sample_decode`` scores its samples in one teacher-forced pass; the decoding steps give the same."""
    _toy_task.seed_everything(1)
    model = _toy_task.TinyTranslator().eval()
    src, _ = _toy_task.encode_numbers([5, 42, 123456, 700000, 9000])
    with torch.no_grad():
        model.project.bias.data[_toy_task.EOS] += 1.0  # rows of different lengths
    sampled, log_prob = _toy_task.sample_decode(model, src)
    assert log_prob.requires_grad
    with torch.no_grad():
        memory = model.encode(src)
        expected = torch.zeros(len(src))
        for position in range(sampled.shape[1]):
            prefix = torch.cat([torch.full((len(src), 1), _toy_task.BOS), sampled[:, :position]], dim=1)
            logits = model.decode(memory, src, prefix)[:, -1]
            logits[:, [_toy_task.PAD, _toy_task.BOS]] = float("-inf")
            token = sampled[:, position]
            step = logits.log_softmax(-1).gather(1, token.unsqueeze(1)).squeeze(1)  # -inf at PAD, dropped below
            expected += torch.where(token == _toy_task.PAD, 0.0, step)
    assert torch.allclose(log_prob.detach(), expected, atol=1e-5)


def test_asr_wer_scores_are_jiwers_on_the_decoded_text(capsys: pytest.CaptureFixture) -> None:
    jiwer = pytest.importorskip("jiwer")
    result = asr_wer.main(batches=2)
    hypotheses, references = result["hypotheses"], result["references"]
    assert len(hypotheses) == len(references) == 8 and result["cer"] > 0
    every_character = jiwer.ReduceToListOfListOfChars()  # the ids' CER: spaces at either end count too
    assert result["cer"] == jiwer.cer(
        references, hypotheses, reference_transform=every_character, hypothesis_transform=every_character
    )
    assert result["wer"] == jiwer.wer(references, hypotheses)
    assert f"CER {result['cer']:.4f}, WER {result['wer']:.4f} (8 utterances)" in capsys.readouterr().out


def test_reward_is_zero_when_sample_equals_greedy() -> None:
    ids = torch.tensor([[5, 6, 7, _toy_task.EOS], [8, _toy_task.EOS, 0, 0]])
    tgt = torch.tensor([[_toy_task.BOS, 5, 6, 7, _toy_task.EOS], [_toy_task.BOS, 9, 8, _toy_task.EOS, 0]])
    assert rl_reward.torch_bleu_reward(ids, ids, tgt).tolist() == [0.0, 0.0]

"""The DDP and Lightning examples, run the way their docstrings say (the DDP one also without torchrun).

The DDP example's runs in processes of their own (under torchrun, and alone) are slow; by default it runs
in this process, and ``tests/test_distributed.py`` checks the metrics across real process groups.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest
import torch
import torch.distributed as dist
from shared_data import WMT17

from torch_bleu import BLEUScore, corpus_bleu

sacrebleu = pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SUMMARY = re.compile(
    r"^BLEU = (?P<score>[\d.]+)  matches/n-grams (?P<counts>[\d/ ]+)  hyp_len (?P<hyp_len>\d+) ref_len (?P<ref_len>\d+)"
)


def load_example(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(EXAMPLES))  # the examples import their shared helpers
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torchrun(processes: int, *args: str) -> list[re.Match]:
    """Run the DDP example under torchrun on CPU; return its summary lines (printed by rank 0 only)."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={processes}"]
    completed = subprocess.run(
        [*command, str(EXAMPLES / "ddp_evaluate.py"), *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return [match for match in map(SUMMARY.match, completed.stdout.splitlines()) if match]


def assert_summary(summary: re.Match, counts: Sequence[int], totals: Sequence[int], sys_len: int, ref_len: int, score):
    assert summary["counts"].split() == [f"{m}/{t}" for m, t in zip(counts, totals)]
    assert (int(summary["hyp_len"]), int(summary["ref_len"])) == (sys_len, ref_len)
    assert float(summary["score"]) == pytest.approx(score, abs=5e-5)


needs_gloo = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo")


def toy_reference(corpus: Sequence) -> sacrebleu.BLEUScore:
    """sacrebleu's corpus BLEU of the DDP example's toy corpus, its ids joined as words."""
    return sacrebleu.corpus_bleu(
        [" ".join(map(str, hyp)) for hyp, _ in corpus],
        [[" ".join(map(str, refs[0])) for _, refs in corpus]],
        tokenize="none",
        smooth_method="none",
    )


@needs_gloo
@pytest.mark.slow
def test_ddp_example_prints_the_single_process_score_once(monkeypatch):
    example = load_example("ddp_evaluate", monkeypatch)
    corpus = example.toy_corpus()
    assert len(corpus) % 2 == 1  # so DistributedSampler repeats a sample, which must not count
    single = BLEUScore(ignore_ids=[example.PAD])
    single.update(*example.pad_batch(corpus))
    reference = toy_reference(corpus)
    assert single.numerator.tolist() == reference.counts
    assert single.compute().item() == pytest.approx(reference.score / 100, abs=1e-9)

    (summary,) = torchrun(2)
    assert_summary(summary, reference.counts, reference.totals, reference.sys_len, reference.ref_len, reference.score)


def without_torchrun_variables() -> dict[str, str]:
    """This process's environment less what torchrun would have set, with one OpenMP thread."""
    launched = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}
    return {**{k: v for k, v in os.environ.items() if k not in launched}, "OMP_NUM_THREADS": "1"}


@needs_gloo
@pytest.mark.slow
def test_ddp_example_runs_as_one_process_without_torchrun(monkeypatch):
    example = load_example("ddp_evaluate", monkeypatch)
    reference = toy_reference(example.toy_corpus())
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "ddp_evaluate.py")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=without_torchrun_variables(),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    (summary,) = [match for match in map(SUMMARY.match, completed.stdout.splitlines()) if match]
    assert_summary(summary, reference.counts, reference.totals, reference.sys_len, reference.ref_len, reference.score)
    assert "501 sentences on 1 rank, gloo" in completed.stdout
    (hint,) = [line for line in completed.stderr.splitlines() if "single process" in line]
    assert "torchrun --nproc_per_node=2 examples/ddp_evaluate.py" in hint


@needs_gloo
def test_ddp_example_quick_scores_the_first_sentences(monkeypatch, capsys):
    example = load_example("ddp_evaluate", monkeypatch)
    for name in ("RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    threads = torch.get_num_threads()
    try:
        example.main(["--quick", "--device", "cpu", "--seed", "3", "--batch-size", "16"])
    finally:
        torch.set_num_threads(threads)  # the example sets one thread (--threads)
    assert not dist.is_initialized()
    reference = toy_reference(example.toy_corpus(seed=3)[: example.QUICK_SENTENCES])
    captured = capsys.readouterr()
    (summary,) = [match for match in map(SUMMARY.match, captured.out.splitlines()) if match]
    assert_summary(summary, reference.counts, reference.totals, reference.sys_len, reference.ref_len, reference.score)
    assert "single process" in captured.err


@needs_gloo
@pytest.mark.slow
def test_ddp_example_on_wmt17_files_matches_sacrebleu():
    if not WMT17.is_dir():
        pytest.skip(f"WMT17 data not found at {WMT17} (the shared data folder beside the repository)")
    hyp, ref = WMT17 / "sys.uedin-nmt.4722.de", WMT17 / "newstest2017.ref.de"
    hypotheses = hyp.read_text(encoding="utf-8").splitlines()
    references = ref.read_text(encoding="utf-8").splitlines()
    assert len(hypotheses) % 3 != 0  # three ranks: DistributedSampler pads
    reference = sacrebleu.corpus_bleu(hypotheses, [references], tokenize="none", smooth_method="none")

    (summary,) = torchrun(3, "--hyp", str(hyp), "--ref", str(ref), "--batch-size", "100")
    assert_summary(summary, reference.counts, reference.totals, reference.sys_len, reference.ref_len, reference.score)


@pytest.mark.filterwarnings("ignore:.*LeafSpec")  # Lightning internals on a newer torch
def test_lightning_example_logs_the_validation_epochs_corpus_bleu(monkeypatch):
    try:
        import pytorch_lightning  # noqa: F401
    except ImportError:
        pytest.importorskip("lightning", reason="PyTorch Lightning is optional: pip install torch-bleu[lightning]")
    example = load_example("lightning_validation", monkeypatch)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model: one thread is fastest, and far faster on a busy machine
    try:
        trainer, module, valid_loader = example.train(quick=True, device="cpu")
    finally:
        torch.set_num_threads(threads)
    logged = trainer.callback_metrics["val_bleu"].item()

    # the last validation epoch ran with the final weights; score its outputs directly
    module.eval()
    preds = torch.cat([example.greedy_decode(module.model, src) for src, _ in valid_loader])
    target = torch.cat([tgt for _, tgt in valid_loader])
    expected = corpus_bleu(preds, target, ignore_ids=[example.PAD, example.BOS, example.EOS]).item()
    assert 0.0 < expected < 1.0
    assert logged == pytest.approx(expected, rel=1e-6)  # no sanity-check or earlier-epoch batches leaked in

"""The library keeps to its share of the CPU: its calls run on bounded thread pools and give the caller's back."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_info

import torch_bleu
from torch_bleu import significance, threads
from torch_bleu.cli.main import main as command_line
from torch_bleu.engine import ALGORITHMS
from torch_bleu.metrics.ter import statistics as ter_statistics


@pytest.fixture
def two_torch_threads() -> Iterator[None]:
    """The caller runs PyTorch on two threads (the library must give them back)."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def _recording_engine(monkeypatch: pytest.MonkeyPatch, seen: list[int]) -> None:
    def recording(rows, max_order):
        seen.append(torch.get_num_threads())
        return original(rows, max_order)

    original = ALGORITHMS["sorted"]
    monkeypatch.setitem(ALGORITHMS, "sorted", recording)


R = 4  # references per sentence: the tensor path, which goes through ALGORITHMS
PREDS = torch.tensor([[3, 4, 5, 6, 7, 8], [4, 5, 6, 7, 8, 9]])
TARGET = PREDS[:, None].expand(-1, R, -1)


@pytest.mark.usefixtures("two_torch_threads")
@pytest.mark.parametrize(
    "call",
    [
        lambda: torch_bleu.sentence_bleu(PREDS, TARGET),
        lambda: torch_bleu.corpus_bleu(PREDS, TARGET),
        lambda: torch_bleu.BLEUScore().update(PREDS, TARGET),
    ],
    ids=["sentence_bleu", "corpus_bleu", "BLEUScore.update"],
)
def test_entry_points_count_on_one_thread_and_give_the_callers_threads_back(monkeypatch, call):
    seen: list[int] = []
    _recording_engine(monkeypatch, seen)
    call()
    assert seen == [1]
    assert torch.get_num_threads() == 2


@pytest.mark.usefixtures("two_torch_threads")
def test_every_family_member_and_the_matrices_run_within_the_bound(monkeypatch):
    seen: list[int] = []
    original = ter_statistics.ter_statistics

    def recording(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr("torch_bleu.metrics.ter.counting.ter_statistics", recording)
    torch_bleu.corpus_ter(["a b c"], ["a b d"])
    metric = torch_bleu.CHRFScore()
    metric.update(["a cat"], ["a hat"])
    assert metric.compute().item() > 0
    assert torch_bleu.pairwise_chrf([["a cat", "a hat"]]).shape == (1, 2, 2)
    assert seen == [1] and torch.get_num_threads() == 2


@pytest.mark.usefixtures("two_torch_threads")
def test_no_bound_leaves_the_callers_threads(monkeypatch):
    seen: list[int] = []
    _recording_engine(monkeypatch, seen)
    threads.set_cpu_threads(None)
    try:
        torch_bleu.sentence_bleu(PREDS, TARGET)
        threads.set_cpu_threads(2)
        torch_bleu.sentence_bleu(PREDS, TARGET)
    finally:
        threads.set_cpu_threads(1)
    assert seen == [2, 2]


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_a_bound_that_is_no_positive_int_is_refused_and_the_bound_stays(bad):
    with pytest.raises(ValueError, match="threads must be a positive int or None"):
        threads.set_cpu_threads(bad)
    assert threads.get_cpu_threads() == 1


@pytest.mark.usefixtures("two_torch_threads")
def test_threads_come_back_after_rejected_input_and_states_stay():
    metric = torch_bleu.BLEUScore()
    with pytest.raises(TypeError):
        metric.update(PREDS.float(), TARGET)
    assert torch.get_num_threads() == 2
    assert metric.numerator.tolist() == [0, 0, 0, 0]


@pytest.mark.usefixtures("two_torch_threads")
def test_nested_and_concurrent_calls_restore_once_the_last_one_ends():
    with threads.cpu_share():
        assert torch.get_num_threads() == 1
        with threads.cpu_share():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 1  # the inner block does not give them back early
    assert torch.get_num_threads() == 2

    errors: list[BaseException] = []

    def score_many() -> None:
        try:
            for _ in range(20):
                torch_bleu.sentence_bleu(PREDS, TARGET)
        except BaseException as error:  # reported below
            errors.append(error)

    workers = [threading.Thread(target=score_many) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors
    assert torch.get_num_threads() == 2


@pytest.mark.skipif(not _blas_threads(), reason="NumPy's BLAS is not one threadpoolctl sees")
def test_blas_threads_are_bounded_within_the_block_and_restored():
    before = _blas_threads()
    with threads.cpu_share(blas=True):
        assert set(_blas_threads()) == {1}
    assert _blas_threads() == before


@pytest.mark.skipif(not _blas_threads(), reason="NumPy's BLAS is not one threadpoolctl sees")
def test_significance_products_run_on_one_blas_thread(monkeypatch):
    seen: list[list[int]] = []

    @contextmanager
    def recording(blas: bool = False) -> Iterator[None]:
        with threads.cpu_share(blas=blas):
            seen.append(_blas_threads())
            yield

    monkeypatch.setattr(significance, "cpu_share", recording)
    packed = np.arange(2 * 50 * 9).reshape(2, 50, 9) % 7
    significance.statistics_bootstrap(packed, lambda stats: stats[..., 0].astype(float), n_samples=10)
    significance.statistics_randomization(packed, lambda stats: stats[..., 0].astype(float), n_samples=10)
    assert len(seen) == 2 and all(set(counts) == {1} for counts in seen)


def test_the_command_lines_threads_option_bounds_its_work_and_is_given_back(tmp_path, capsys):
    reference, system = tmp_path / "ref.txt", tmp_path / "sys.txt"
    reference.write_text("the cat sat on the mat\na dog barked\n")
    system.write_text("the cat sat on a mat\na dog barked loudly\n")
    assert command_line([str(reference), "-i", str(system), "--threads", "2", "-b"]) == 0
    assert threads.get_cpu_threads() == 1
    assert capsys.readouterr().out.strip()
    assert command_line([str(reference), "-i", str(system), "--threads", "0"]) == 1
    assert "--threads must be at least 1" in capsys.readouterr().err

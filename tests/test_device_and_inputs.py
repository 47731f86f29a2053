"""The engine on the meta device, odd-but-valid inputs, long rows, and every integer dtype."""

from __future__ import annotations

import pytest
import torch
from oracles import sacrebleu_corpus
from strategies import Draws

from torch_bleu import BLEUScore, corpus_bleu, sentence_bleu

INTEGER_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]


def test_update_runs_on_the_meta_device():
    """update() has no data-dependent shape and never reads a value: it works on tensors without data."""
    metric = BLEUScore(ignore_ids=[0, 1, 2], smoothing="exp").to("meta")
    metric.update(
        torch.empty(16, 40, dtype=torch.int64, device="meta"), torch.empty(16, 3, 35, dtype=torch.int64, device="meta")
    )
    metric.update(
        torch.empty(4, 7, dtype=torch.int32, device="meta"), torch.empty(4, 9, dtype=torch.int32, device="meta")
    )
    assert metric.numerator.device.type == "meta"
    assert metric.numerator.shape == (4,) and metric.preds_len.shape == ()


def test_functional_scores_run_on_the_meta_device():
    preds = torch.empty(8, 20, dtype=torch.int64, device="meta")
    target = torch.empty(8, 2, 20, dtype=torch.int64, device="meta")
    assert sentence_bleu(preds, target, ignore_ids=[0]).shape == (8,)
    assert corpus_bleu(preds, target).shape == ()


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_any_integer_dtype_gives_the_same_statistics(dtype):
    preds = torch.tensor([[5, 6, 7, 8, 0, 0], [9, 5, 6, 9, 9, 0]])
    target = torch.tensor([[5, 6, 7, 9, 0], [9, 5, 6, 9, 0]])
    reference = BLEUScore(ignore_ids=[0])
    reference.update(preds, target)
    metric = BLEUScore(ignore_ids=[0])
    metric.update(preds.to(dtype), target.to(dtype))
    assert torch.equal(metric.numerator, reference.numerator)
    assert metric.compute().item() == reference.compute().item()


def test_non_contiguous_views_are_fine():
    base = torch.randint(3, 9, (6, 30))
    preds = base[::2, ::3]  # strided view
    target = base.t()[:10].t()[1::2]  # transposed view
    expected = corpus_bleu(preds.contiguous(), target.contiguous())
    assert corpus_bleu(preds, target).item() == expected.item()
    assert corpus_bleu(preds, target).item() == pytest.approx(sacrebleu_corpus(preds, target).score / 100, abs=1e-9)


def test_empty_batch_is_a_no_op():
    metric = BLEUScore(ignore_ids=[0])
    metric.update(torch.tensor([[4, 5, 6, 7]]), torch.tensor([[4, 5, 6, 7]]))
    before = {name: getattr(metric, name).clone() for name in ("numerator", "denominator", "preds_len", "target_len")}
    metric.update(torch.empty(0, 5, dtype=torch.int64), torch.empty(0, 2, 7, dtype=torch.int64))
    metric.update(torch.empty(0, 0, dtype=torch.int64), torch.empty(0, 0, dtype=torch.int64))
    for name, value in before.items():
        assert torch.equal(getattr(metric, name), value)
    assert sentence_bleu(torch.empty(0, 3, dtype=torch.long), torch.empty(0, 3, dtype=torch.long)).shape == (0,)


def test_compute_before_update_is_zero():
    with pytest.warns(UserWarning):
        value = BLEUScore().compute()
    assert value.dtype == torch.float64 and value.item() == 0.0


def test_rows_made_only_of_ignored_ids():
    preds = torch.tensor([[0, 0, 0], [4, 5, 0]])
    target = torch.tensor([[[4, 0], [0, 0]], [[0, 0], [0, 0]]])
    ours = corpus_bleu(preds, target, ignore_ids=[0], smoothing="floor")
    assert ours.item() == pytest.approx(
        sacrebleu_corpus(preds, target, (0,), smooth_method="floor").score / 100, abs=1e-12
    )


def test_two_rows_of_twenty_thousand_tokens():
    draws = Draws(0)
    preds = draws.randint(0, 50, (2, 20_000))
    target = torch.where(draws.rand(2, 20_000) < 0.8, preds, 7)
    stats = sacrebleu_corpus(preds, target)
    metric = BLEUScore()
    metric.update(preds, target)
    assert metric.numerator.tolist() == stats.counts
    assert metric.denominator.tolist() == stats.totals
    assert metric.compute().item() == pytest.approx(stats.score / 100, abs=1e-9)


def test_extreme_int64_ids_are_distinct_ngrams():
    lo, hi = 1, 2**63 - 1  # the smallest token id but 0 (padding below), and the largest
    preds = torch.tensor([[lo, hi, lo, hi, 0]])
    target = torch.tensor([[hi, lo, hi, lo, 0]])
    metric = BLEUScore()
    metric.update(preds, target)
    # unigrams: lo x2, hi x2, 0 -> 5 matches; bigrams (lo,hi) x2 vs (hi,lo) x2: (lo,hi) matches once,
    # (hi,lo) once; (hi,0) vs (lo,0): none
    assert metric.numerator.tolist() == sacrebleu_corpus(preds, target).counts


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_matches_cpu_without_host_sync():
    draws = Draws(1)
    preds = draws.randint(0, 30, (64, 50))
    target = draws.randint(0, 30, (64, 2, 45))
    cpu = BLEUScore(ignore_ids=[0]).cpu()
    cpu.update(preds.cpu(), target.cpu())
    gpu = BLEUScore(ignore_ids=[0]).cuda()
    preds_cuda, target_cuda = preds.cuda(), target.cuda()
    BLEUScore(ignore_ids=[0]).cuda().update(preds_cuda, target_cuda)  # copies the constant tables there, once
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        gpu.update(preds_cuda, target_cuda)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert torch.equal(gpu.numerator.cpu(), cpu.numerator)
    assert gpu.compute().item() == cpu.compute().item()

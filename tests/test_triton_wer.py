"""WER and CER by Triton's kernel (:mod:`torch_bleu.metrics.wer.triton_alignment`) against jiwer 4 and
against PyTorch's operations: rows with few distinct ids (many alignments of equal cost), empty rows,
padding, ``eos_id`` and ``ignore_ids``, subword ids decoded on the device, through the metrics and the
functions; the columns of distances
that the cut search reads, and cuts themselves (thresholds lowered so that small rows are cut); the
``meta`` device without Triton.

Here the kernel runs in Triton's interpreter on CPU tensors (``TORCH_BLEU_KERNELS=triton``,
``TRITON_INTERPRET=1``), a loop step costing up to a fifth of a second, so rows stay short; ``--slow``
adds wider rows and more pairs. With ``--device cuda`` the same tests compile the kernel for the GPU.
"""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import as_words, jiwer_counts

from torch_bleu import CERScore, WERScore, character_error_counts, corpus_cer, sentence_wer, word_error_counts
from torch_bleu.kernels import KERNELS_VARIABLE, interpreted
from torch_bleu.metrics.wer import device_splits as splits
from torch_bleu.metrics.wer.device_alignment import middles

if importlib.util.find_spec("triton") is None:  # found, not imported: TRITON_INTERPRET first
    pytest.skip("Triton is not installed", allow_module_level=True)
jiwer = pytest.importorskip("jiwer")


@pytest.fixture
def kernel(monkeypatch):
    """Triton's kernel for every tensor: in the interpreter on the CPU (set before the kernel's module is
    imported), compiled on a GPU."""
    monkeypatch.setenv(KERNELS_VARIABLE, "triton")
    on_cpu = torch.get_default_device().type == "cpu"
    if on_cpu:
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    from torch_bleu.metrics.wer import triton_alignment

    if on_cpu and not interpreted(triton_alignment._alignment_kernel):
        pytest.skip("Triton was imported before TRITON_INTERPRET=1 was set (tests/conftest.py sets it without a GPU)")
    launched = []
    aligned = triton_alignment._aligned
    monkeypatch.setattr(triton_alignment, "_aligned", lambda *args: launched.append(1) or aligned(*args))
    yield triton_alignment
    assert launched, "the kernel never ran"


def on_torch(monkeypatch, count, *args, **kwargs):
    """``count(*args, **kwargs)`` by PyTorch's operations (the device path, sizes from shapes only)."""
    with monkeypatch.context() as patch:
        patch.setenv(KERNELS_VARIABLE, "torch")
        patch.setattr("torch_bleu.arrays.SIZES_FROM_DATA_ON_CPU", False)
        return count(*args, **kwargs)


def padded(rows: list[list[int]], width: int) -> torch.Tensor:
    return torch.tensor([row + [0] * (width - len(row)) for row in rows], dtype=torch.long).reshape(len(rows), width)


#: Rows of ids 1 to 3 (0: padding): few distinct tokens, so that many alignments cost the same.
tie_rows = st.lists(st.integers(1, 3), max_size=8)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(tie_rows, tie_rows), min_size=1, max_size=4))
def test_ties_are_broken_as_rapidfuzz_breaks_them(kernel, monkeypatch, pairs):
    """Every pair in both orders, in one padded batch (with a column of padding), against jiwer."""
    pairs = pairs + [(reference, hypothesis) for hypothesis, reference in pairs]
    width = 1 + max(len(row) for pair in pairs for row in pair)
    preds, target = (padded(list(side), width) for side in zip(*pairs))
    expected = [jiwer_counts(as_words(h, set()), as_words(r, set())) for h, r in pairs]
    assert word_error_counts(preds, target, ignore_ids=[0]).tolist() == expected
    assert on_torch(monkeypatch, word_error_counts, preds, target, ignore_ids=[0]).tolist() == expected


@settings(max_examples=16, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_ids_with_eos_and_ignored_ids_count_as_their_words(kernel, seed):
    rng = random.Random(seed)
    batch, width = rng.randint(1, 4), rng.randint(0, 10)
    preds = torch.tensor([[rng.randint(0, 5) for _ in range(width)] for _ in range(batch)], dtype=torch.long)
    preds = preds.reshape(batch, width)
    target = torch.tensor([[rng.randint(0, 5) for _ in range(width + 2)] for _ in range(batch)])
    expected = [jiwer_counts(as_words(p, {0}, 2), as_words(t, {0}, 2)) for p, t in zip(preds.tolist(), target.tolist())]
    assert word_error_counts(preds, target, ignore_ids=[0], eos_id=2).tolist() == expected
    assert character_error_counts(preds, target, ignore_ids=[0], eos_id=2).tolist() == expected


def test_empty_rows_and_the_metrics(kernel):
    hypotheses = [[], [1, 2], [], [3, 1, 1, 2], [2, 2, 2]]
    references = [[], [], [1, 2], [1, 3, 2], [2, 1]]
    preds, target = padded(hypotheses, 5), padded(references, 4)
    expected = [jiwer_counts(as_words(h, set()), as_words(r, set())) for h, r in zip(hypotheses, references)]
    assert word_error_counts(preds, target, ignore_ids=[0]).tolist() == expected
    metric, characters = WERScore(ignore_ids=[0]), CERScore(ignore_ids=[0])
    for update in (metric.update, characters.update):
        update(preds[:3], target[:3])
        update(preds[3:], target[3:])
    sums = torch.tensor(expected).sum(0).tolist()
    for scored in (metric, characters):
        assert [scored.hits.item(), scored.substitutions.item(), scored.deletions.item()] == sums[:3]
        assert scored.insertions.item() == sums[3]
    strings = [" ".join(map(str, row)) for row in hypotheses], [" ".join(map(str, row)) for row in references]
    assert metric.compute().item() == jiwer.wer(strings[1], strings[0])
    assert sentence_wer(preds[1:], target[1:], ignore_ids=[0]).tolist() == [
        jiwer.wer(r, h) for h, r in zip(strings[0][1:], strings[1][1:])
    ]
    assert corpus_cer(preds[3:], target[3:], ignore_ids=[0]).item() == jiwer.wer(strings[1][3:], strings[0][3:])
    assert word_error_counts(preds[:0], target[:0]).tolist() == []
    assert word_error_counts(torch.zeros((2, 0), dtype=torch.long), target[1:3], ignore_ids=[0]).tolist() == [
        jiwer_counts("", as_words(r, set())) for r in references[1:3]
    ]


@pytest.mark.parametrize("vocabulary", ["unigram"], indirect=True)
@pytest.mark.parametrize("characters", [False, True])
def test_subword_ids_count_as_their_decoded_text(kernel, vocabulary, characters):
    rng = random.Random(5)
    hypotheses, targets = vocabulary.random_rows(rng, count=3, longest=5), vocabulary.random_rows(rng, 3, 5)
    decoded, reference_text = ([vocabulary.decode(row) for row in rows] for rows in (hypotheses, targets))
    count = character_error_counts if characters else word_error_counts
    counts = count(hypotheses, reference_text, detokenizer=vocabulary.detokenizer)
    assert counts.tolist() == [jiwer_counts(h, r, characters) for h, r in zip(decoded, reference_text)]


@pytest.mark.parametrize("launches", ["one launch", "a launch a pair"])
def test_columns_of_distances_are_pytorchs(kernel, monkeypatch, launches):
    if launches == "a launch a pair":  # chunks of one pair, a program each
        monkeypatch.setattr(kernel, "TILE_LANES", 16)
        monkeypatch.setattr(kernel, "SCRATCH_BYTES", 1)
    rng = random.Random(3)
    preds = torch.tensor([[rng.randint(1, 3) for _ in range(9)] for _ in range(5)])
    target = torch.tensor([[rng.randint(1, 3) for _ in range(7)] for _ in range(5)])
    pieces = middles(preds, torch.tensor([9, 4, 0, 7, 9]), target, torch.tensor([7, 7, 3, 0, 5]))
    at_column = torch.tensor([4, 2, 0, 3, 1])
    for read in (pieces, pieces.reversed()):
        counts, column = kernel.kernel_counts_and_column(read, at_column)
        torch_counts, torch_column = splits.TORCH_ALIGNMENT.counts_and_column(read, at_column)
        own_rows = torch.arange(8) <= read.ref_left[:, None]
        assert counts.tolist() == torch_counts.tolist()
        assert column[own_rows].tolist() == torch_column[own_rows].tolist()


@settings(max_examples=16, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_cut_rows_count_as_pytorch_counts_them(kernel, monkeypatch, seed):
    """rapidfuzz's thresholds lowered so that rows of a dozen tokens are cut, up to twice."""
    monkeypatch.setattr(splits, "CUT_CELLS", 40)
    monkeypatch.setattr(splits, "CUT_REFERENCE", 4)
    monkeypatch.setattr(splits, "CUT_HYPOTHESIS", 3)
    rng = random.Random(seed)
    batch, hyp_width, ref_width = rng.randint(1, 3), rng.randint(8, 12), rng.randint(5, 10)
    preds = torch.tensor([[rng.randint(1, 3) for _ in range(hyp_width)] for _ in range(batch)])
    target = torch.tensor([[rng.randint(1, 3) for _ in range(ref_width)] for _ in range(batch)])
    lengths = (
        torch.tensor([rng.randint(hyp_width // 2, hyp_width) for _ in range(batch)]),
        torch.full((batch,), ref_width),
    )
    assert splits.levels(ref_width, hyp_width) >= 1
    counts = splits.error_counts(preds, lengths[0], target, lengths[1])
    assert counts.tolist() == on_torch(monkeypatch, splits.error_counts, preds, lengths[0], target, lengths[1]).tolist()


@pytest.mark.parametrize("choice", ["torch", "auto", "triton"])
def test_update_runs_on_meta_without_triton(monkeypatch, choice):
    monkeypatch.setenv(KERNELS_VARIABLE, choice)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setitem(sys.modules, "triton", None)  # importing Triton would fail
    metric = WERScore(ignore_ids=[0], eos_id=2).to("meta")
    metric.update(torch.tensor([[1, 3, 2, 0]], device="meta"), torch.tensor([[1, 4, 0]], device="meta"))
    assert metric.hits.device.type == "meta"


def test_the_package_imports_without_triton():
    code = (
        "import sys; sys.modules['triton'] = None; import torch, torch_bleu; "
        "torch_bleu.word_error_counts(['a'], ['b']); "
        "torch_bleu.word_error_counts(torch.tensor([[1]]), torch.tensor([[2]])); "
        "assert 'torch_bleu.metrics.wer.triton_alignment' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, KERNELS_VARIABLE: "auto"})


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), alphabet=st.integers(2, 4))
def test_wider_rows_and_larger_batches_count_as_jiwer_counts(kernel, monkeypatch, seed, alphabet):
    rng = random.Random(seed)
    batch, hyp_width, ref_width = rng.randint(1, 40), rng.randint(0, 40), rng.randint(0, 30)
    hypotheses = [[rng.randint(1, alphabet) for _ in range(rng.randint(0, hyp_width))] for _ in range(batch)]
    references = [[rng.randint(1, alphabet) for _ in range(rng.randint(0, ref_width))] for _ in range(batch)]
    preds, target = padded(hypotheses, hyp_width), padded(references, ref_width)
    expected = [jiwer_counts(as_words(h, set()), as_words(r, set())) for h, r in zip(hypotheses, references)]
    assert word_error_counts(preds, target, ignore_ids=[0]).tolist() == expected
    assert on_torch(monkeypatch, word_error_counts, preds, target, ignore_ids=[0]).tolist() == expected

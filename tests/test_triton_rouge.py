"""ROUGE's Triton kernels (``TORCH_BLEU_KERNELS=triton``, in Triton's interpreter on the CPU) against
rouge-score and against the device path's PyTorch operations.

Tiny vocabularies make many LCS of equal length, so that rouge-score's backtrack tie rule decides
``rougeLsum``'s union; rows of ids carry sentences at ``sentence_sep_id``. The kernels' tiles and chunks
are made small to run them several times per pair and per launch. Sizes stay small: each step of a
kernel's loops costs the interpreter about a millisecond.
"""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from collections import Counter

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torch_bleu import ROUGEScore, corpus_rouge, pairwise_rouge, sentence_rouge
from torch_bleu.metrics.rouge import device_lcs

if importlib.util.find_spec("triton") is None:  # found, not imported: TRITON_INTERPRET first
    pytest.skip("Triton is not installed", allow_module_level=True)
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
PAD, EOS, SEP = 0, 1, 2
IDS = {"ignore_ids": [PAD], "eos_id": EOS, "sentence_sep_id": SEP}


@pytest.fixture
def triton_kernels(monkeypatch) -> Counter:
    """``TORCH_BLEU_KERNELS=triton`` (CPU tensors in Triton's interpreter); counts the kernels' calls."""
    monkeypatch.setenv("TORCH_BLEU_KERNELS", "triton")
    if torch.get_default_device().type == "cpu":
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    from torch_bleu.metrics.rouge import triton_lcs

    if not triton_lcs.runs_on(torch.get_default_device()):
        pytest.skip("Triton was imported before TRITON_INTERPRET=1 was set (tests/conftest.py sets it without a GPU)")
    calls: Counter = Counter()
    for name in ("triton_lcs_lengths", "triton_union_lcs_marks"):
        kernel = getattr(triton_lcs, name)

        def counted(*args, kernel=kernel, name=name):
            calls[name] += 1
            return kernel(*args)

        monkeypatch.setattr(triton_lcs, name, counted)
    return calls


@pytest.fixture
def small_tiles(monkeypatch) -> None:
    """Tiles of 16 lanes (32 for the union's bits) and a few pairs per launch."""
    from torch_bleu.metrics.rouge import triton_lcs

    monkeypatch.setattr(triton_lcs, "MAX_TILE", 16)
    monkeypatch.setattr(triton_lcs, "SCRATCH_BYTES", 1500)


def as_text(row: list[int]) -> str:
    """A row of ids as the text rouge-score reads the same way: its words, a newline at each separator."""
    row = row[: row.index(EOS)] if EOS in row else row
    return " ".join("\n" if token == SEP else f"w{token}" for token in row if token != PAD)


def expected_scores(hypotheses, references, types=TYPES):
    """rouge-score's ``score_multi`` of each prediction, as ``{key: [values]}``."""
    scorer = rouge_scorer.RougeScorer(list(types))
    results = [scorer.score_multi(refs, hyp) for hyp, refs in zip(hypotheses, references)]
    return {
        f"{rouge_type}_{measure}": [getattr(result[rouge_type], measure) for result in results]
        for rouge_type in types
        for measure in ("precision", "recall", "fmeasure")
    }


def random_ids(rng: random.Random, batch: int, refs: int, width: int, words: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Predictions ``(batch, width)`` and references ``(batch, refs, width + 1)`` of ``words`` word ids,
    separators, a few pads and EOS."""
    tokens = [PAD, EOS, SEP, *range(3, 3 + words), *range(3, 3 + words), *range(3, 3 + words)]

    def row(length: int) -> list[int]:
        return [rng.choice(tokens) for _ in range(length)]

    preds = torch.tensor([row(width) for _ in range(batch)], dtype=torch.long).reshape(batch, width)
    target = torch.tensor([[row(width + 1) for _ in range(refs)] for _ in range(batch)], dtype=torch.long)
    return preds, target


def texts_of(preds: torch.Tensor, target: torch.Tensor) -> tuple[list[str], list[list[str]]]:
    """The texts of rows of ids; a prediction's references that are all pads are absent, but the first."""
    hypotheses = [as_text(row) for row in preds.tolist()]
    references = []
    for rows in target.tolist():
        texts = [as_text(row) for row in rows]
        references.append([text for text, row in zip(texts, rows) if any(t != PAD for t in row)] or texts[:1])
    return hypotheses, references


# --- the kernels against PyTorch's operations ---------------------------------------------------------


def padded_pairs(rng: random.Random, pairs: int, ref_width: int, pred_width: int, words: int, breaks: float):
    """Pairs of padded rows (pads -1 and -2) of ``words`` word ids, and each word's sentence (a new one
    after a word with probability ``breaks``)."""
    ref_length = torch.tensor([max(0, ref_width - rng.randint(0, 3)) for _ in range(pairs)], dtype=torch.long)
    pred_length = torch.tensor([max(0, pred_width - rng.randint(0, 3)) for _ in range(pairs)], dtype=torch.long)

    def rows(width: int, length: torch.Tensor, pad: int) -> torch.Tensor:
        ids = torch.tensor([[rng.randrange(words) for _ in range(width)] for _ in range(pairs)], dtype=torch.long)
        return torch.where(torch.arange(width) < length[:, None], ids.reshape(pairs, width), pad)

    def lines(width: int) -> torch.Tensor:
        changes = [[rng.random() < breaks for _ in range(width)] for _ in range(pairs)]
        return torch.tensor(changes, dtype=torch.long).reshape(pairs, width).cumsum(1)

    ref, pred = rows(ref_width, ref_length, -1), rows(pred_width, pred_length, -2)
    return ref, lines(ref_width), ref_length, pred, lines(pred_width), pred_length


def assert_kernels_equal_pytorch(seed: int, pairs: int, most_words: int) -> None:
    from torch_bleu.metrics.rouge import triton_lcs

    rng = random.Random(seed)
    widths = rng.randint(most_words // 3, most_words), rng.randint(0, most_words)
    ref, ref_lines, ref_length, pred, pred_lines, pred_length = padded_pairs(
        rng, rng.randint(1, pairs), *widths, words=rng.randint(2, 3), breaks=rng.choice([0.0, 0.1, 0.3])
    )
    assert torch.equal(
        triton_lcs.triton_lcs_lengths(ref, ref_length, pred, pred_length),
        device_lcs.lcs_lengths(ref, ref_length, pred, pred_length),
    )
    union = (ref, ref_lines, ref_length, pred, pred_lines, pred_length)
    assert torch.equal(triton_lcs.triton_union_lcs_marks(*union), device_lcs.union_lcs_marks(*union))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_kernels_equal_pytorch_operations(monkeypatch, seed):
    monkeypatch.setenv("TORCH_BLEU_KERNELS", "torch")  # device_lcs: PyTorch's operations
    assert_kernels_equal_pytorch(seed, pairs=4, most_words=12)


def test_kernels_in_tiles_and_chunks_equal_pytorch_operations(monkeypatch, small_tiles):
    monkeypatch.setenv("TORCH_BLEU_KERNELS", "torch")
    for seed in range(2):
        assert_kernels_equal_pytorch(seed, pairs=4, most_words=40)


@pytest.mark.parametrize("tile", [16, 32])
@pytest.mark.parametrize("ref", [[3, 3, 3], [3, 2, 3]])
def test_a_match_at_the_end_of_a_tile_carries_into_the_next(monkeypatch, small_tiles, tile, ref):
    """The last lane of a tile matches (16 lanes for the LCS, 32 for the union)."""
    from torch_bleu.metrics.rouge import triton_lcs

    monkeypatch.setenv("TORCH_BLEU_KERNELS", "torch")
    refs, pred = torch.tensor([ref]), torch.tensor([[4] * (tile - 1) + [3, 2]])
    lengths = (torch.tensor([3]), torch.tensor([tile + 1]))
    assert torch.equal(
        triton_lcs.triton_lcs_lengths(refs, lengths[0], pred, lengths[1]),
        device_lcs.lcs_lengths(refs, lengths[0], pred, lengths[1]),
    )
    union = (refs, torch.zeros_like(refs), lengths[0], pred, torch.zeros_like(pred), lengths[1])
    assert torch.equal(triton_lcs.triton_union_lcs_marks(*union), device_lcs.union_lcs_marks(*union))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), small=st.booleans())
def test_many_kernels_equal_pytorch_operations(monkeypatch, seed, small):
    monkeypatch.setenv("TORCH_BLEU_KERNELS", "torch")
    if small:
        from torch_bleu.metrics.rouge import triton_lcs

        monkeypatch.setattr(triton_lcs, "MAX_TILE", 16)
        monkeypatch.setattr(triton_lcs, "SCRATCH_BYTES", 1500)
    assert_kernels_equal_pytorch(seed, pairs=6, most_words=48 if small else 24)


# --- ROUGE through the kernels against rouge-score ---------------------------------------------------


def assert_sentences_as_rouge_score(preds: torch.Tensor, target: torch.Tensor) -> dict[str, torch.Tensor]:
    """Each sentence's ROUGE of the ids equals rouge-score's of their texts; returns the scores."""
    sentences = sentence_rouge(preds, target, rouge_types=TYPES, **IDS)
    hypotheses, references = texts_of(preds, target)
    assert {key: values.tolist() for key, values in sentences.items()} == expected_scores(hypotheses, references)
    return sentences


@settings(max_examples=16, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_ids_score_as_rouge_score(triton_kernels, seed):
    rng = random.Random(seed)
    preds, target = random_ids(rng, rng.randint(1, 3), rng.randint(1, 2), rng.randint(0, 11), rng.randint(2, 3))
    assert_sentences_as_rouge_score(preds, target)
    assert triton_kernels["triton_lcs_lengths"] and triton_kernels["triton_union_lcs_marks"]


def test_metric_and_corpus_scores(triton_kernels, small_tiles):
    rng = random.Random(5)
    preds, target = random_ids(rng, 4, 2, 12, 3)
    preds[0], target[1] = PAD, PAD  # an empty prediction; empty references
    sentences = assert_sentences_as_rouge_score(preds, target)
    metric = ROUGEScore(rouge_types=TYPES, **IDS)
    metric.update(preds[:2], target[:2])
    metric.update(preds[2:], target[2:])
    scores, corpus = metric.compute(), corpus_rouge(preds, target, rouge_types=TYPES, **IDS)
    for key, values in sentences.items():
        assert scores[key].item() == corpus[key].item() == pytest.approx(values.mean().item(), abs=1e-15)
    assert triton_kernels["triton_union_lcs_marks"] >= 3


def test_empty_and_one_word_texts(triton_kernels):
    preds = torch.tensor([[PAD, PAD], [3, PAD], [SEP, SEP], [3, SEP]])
    target = torch.tensor([[[PAD, PAD, PAD]], [[PAD, PAD, PAD]], [[3, SEP, 3]], [[SEP, 3, 3]]])
    assert_sentences_as_rouge_score(preds, target)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_many_ids_score_as_rouge_score(triton_kernels, seed):
    rng = random.Random(seed)
    preds, target = random_ids(rng, rng.randint(1, 6), rng.randint(1, 3), rng.randint(0, 24), rng.randint(2, 4))
    assert_sentences_as_rouge_score(preds, target)


# --- pairwise ROUGE --------------------------------------------------------------------------------------


@pytest.mark.parametrize("rouge_type", ["rougeL", "rougeLsum"])
def test_pairwise_rouge_of_ids_and_strings(triton_kernels, rouge_type):
    rng = random.Random(3)
    ids = torch.tensor([[[rng.choice([PAD, SEP, 3, 4, 4]) for _ in range(9)] for _ in range(3)] for _ in range(2)])
    texts = [[as_text(row) for row in rows] for rows in ids.tolist()]
    scorer = rouge_scorer.RougeScorer([rouge_type])
    expected = [[[scorer.score(r, c)[rouge_type].fmeasure for r in group] for c in group] for group in texts]
    kernel = "triton_lcs_lengths" if rouge_type == "rougeL" else "triton_union_lcs_marks"
    assert pairwise_rouge(ids, rouge_type=rouge_type, **IDS).tolist() == expected
    assert triton_kernels[kernel] == 1
    assert pairwise_rouge(texts, rouge_type=rouge_type).tolist() == expected
    assert triton_kernels[kernel] == 2


# --- where the kernels do not run -----------------------------------------------------------------------


@pytest.mark.parametrize("choice", ["torch", "auto", "triton"])
def test_update_runs_on_meta_without_triton(monkeypatch, choice):
    monkeypatch.setenv("TORCH_BLEU_KERNELS", choice)
    monkeypatch.setitem(sys.modules, "triton", None)  # importing Triton would fail
    monkeypatch.delitem(sys.modules, "torch_bleu.metrics.rouge.triton_lcs", raising=False)
    metric = ROUGEScore(rouge_types=TYPES, **IDS).to("meta")
    metric.update(torch.tensor([[3, 4, 2, 5, 1, 0]], device="meta"), torch.tensor([[[3, 2, 5, 4]]], device="meta"))
    assert metric.score_sums.device.type == "meta"


def test_cpu_tensors_are_refused_where_triton_was_imported_before_its_interpreter_was_asked_for():
    code = (
        "import os, torch, triton, torch_bleu; from torch_bleu.errors import InputError; "
        "os.environ['TRITON_INTERPRET'] = '1'; "
        "ids = torch.tensor([[3, 4]]), torch.tensor([[[4, 3]]]); "
        "message = ''\n"
        "try: torch_bleu.sentence_rouge(*ids, rouge_types=('rougeL',))\n"
        "except InputError as error: message = str(error)\n"
        "assert 'Triton was imported before TRITON_INTERPRET=1' in message, message"
    )
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    subprocess.run([sys.executable, "-c", code], check=True, env={**env, "TORCH_BLEU_KERNELS": "triton"})

"""Paired bootstrap and approximate randomization against sacrebleu's own implementation.

Both sides get the same per-sentence statistics (sacrebleu's), and with the same seed they draw the same
resamples, so p-values must agree exactly; sacrebleu scores bootstrap resamples with float32 precisions,
so bootstrap means and intervals agree to float32 precision only.
"""

import os
from contextlib import contextmanager

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu import BLEUConfig
from torch_bleu.ngrams import SentenceStatistics
from torch_bleu.significance import (
    bootstrap_indices,
    paired_approximate_randomization,
    paired_bootstrap,
    randomization_swaps,
)

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

WORDS = ["a", "b", "c", "d", "e", "f"]


@contextmanager
def sacrebleu_seed(value):
    previous = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = value
    try:
        yield
    finally:
        if previous is None:
            del os.environ["SACREBLEU_SEED"]
        else:
            os.environ["SACREBLEU_SEED"] = previous


def our_statistics(metric, systems, references):
    """sacrebleu's per-sentence statistics of every system, as (K, B, ...) tensors."""
    rows = torch.tensor([metric._extract_corpus_statistics(system, references) for system in systems])
    order = metric.max_ngram_order
    return SentenceStatistics(rows[..., 2 : 2 + order], rows[..., 2 + order :], rows[..., 0], rows[..., 1])


def sacrebleu_results(metric, systems, test_type, n):
    named = [(f"system {index}", system) for index, system in enumerate(systems)]
    return PairedTest(named, {"BLEU": metric}, references=None, test_type=test_type, n_samples=n)()[1]["BLEU"]


sentences = st.lists(st.sampled_from(WORDS), min_size=0, max_size=7).map(" ".join)


@st.composite
def corpora(draw):
    size = draw(st.integers(2, 12))
    systems = draw(st.lists(st.lists(sentences, min_size=size, max_size=size), min_size=2, max_size=4))
    references = draw(st.lists(st.lists(sentences, min_size=size, max_size=size), min_size=1, max_size=2))
    smoothing = draw(st.sampled_from(["exp", "floor", "add-k", "none"]))
    return systems, references, smoothing


@settings(max_examples=40, deadline=None)
@given(corpora(), st.sampled_from(["bs", "ar"]), st.integers(1, 70))
def test_p_values_equal_sacrebleu(corpus, test_type, n):
    systems, references, smoothing = corpus
    metric = BLEU(tokenize="none", smooth_method=smoothing, references=references)
    config = BLEUConfig(smoothing=smoothing)
    stats = our_statistics(metric, systems, references)
    with sacrebleu_seed("12345"):
        expected = sacrebleu_results(metric, systems, test_type, n)
    test = paired_bootstrap if test_type == "bs" else paired_approximate_randomization
    result = test(stats, config, n, seed=12345)

    assert result.scores.tolist() == pytest.approx([r.score for r in expected], abs=1e-9)
    assert result.p_values[1:].tolist() == [r.p_value for r in expected[1:]]
    if test_type == "bs":
        # sacrebleu's resamples are scored with float32 precisions
        assert result.means.tolist() == pytest.approx([r.mean for r in expected], abs=1e-4)
        assert result.cis.tolist() == pytest.approx([r.ci for r in expected], abs=1e-4)
    else:
        assert result.means is None and result.cis is None


def test_single_system_bootstrap_is_sacrebleu_confidence_interval():
    rng = np.random.default_rng(0)
    hyps = [" ".join(rng.choice(WORDS, size=rng.integers(1, 9))) for _ in range(40)]
    refs = [[" ".join(rng.choice(WORDS, size=rng.integers(1, 9))) for _ in range(40)]]
    metric = BLEU(tokenize="none")
    with sacrebleu_seed("12345"):
        expected = metric.corpus_score(hyps, refs, n_bootstrap=300)
    result = paired_bootstrap(our_statistics(metric, [hyps], refs), BLEUConfig(smoothing="exp"), 300, seed=12345)
    assert result.scores.item() == pytest.approx(expected.score, abs=1e-9)
    assert result.means.item() == pytest.approx(expected._mean, abs=1e-4)
    assert result.cis.item() == pytest.approx(expected._ci, abs=1e-4)


def random_statistics(systems=3, sentences=101, seed=0):
    generator = torch.Generator().manual_seed(seed)
    totals = torch.randint(0, 30, (systems, sentences, 1), generator=generator) - torch.arange(4)
    totals = totals.clamp_min(0)
    matches = (totals * torch.rand(totals.shape, generator=generator)).long()
    preds_len = totals[..., 0]
    target_len = (preds_len + torch.randint(-3, 4, preds_len.shape, generator=generator)).clamp_min(0)
    return SentenceStatistics(matches, totals, preds_len, target_len)


@pytest.mark.parametrize("test", [paired_bootstrap, paired_approximate_randomization])
def test_chunking_does_not_change_results(test):
    stats = random_statistics()
    config = BLEUConfig(smoothing="exp")
    whole = test(stats, config, 200, seed=7)
    done = []
    chunked = test(stats, config, 200, seed=7, chunk_elements=32 * 101, progress=done.append)
    assert done == [32] * 6 + [8]
    for ours, reference in zip(chunked, whole):
        if reference is not None:
            assert torch.equal(ours.nan_to_num(), reference.nan_to_num())


def test_random_draws_are_sacrebleu_draws_in_any_chunking():
    indices = torch.cat(list(bootstrap_indices(37, 100, seed=12345, chunk_elements=32 * 37)))
    expected = np.random.default_rng(12345).choice(37, size=(100, 37), replace=True)
    assert np.array_equal(indices.numpy(), expected)
    swaps = torch.cat(list(randomization_swaps(37, 100, seed=12345, chunk_elements=64 * 37)))
    expected = np.random.default_rng(12345).integers(2, size=(100, 37), dtype=bool)
    assert np.array_equal(swaps.numpy(), expected)


def test_identical_systems_follow_sacrebleus_tie_rule():
    # |a - b| is exactly the observed 0 in every trial; ties do not count, so p = 1 / (n + 1)
    stats = random_statistics(systems=1)
    twins = SentenceStatistics(*(torch.cat([field, field]) for field in stats))
    result = paired_approximate_randomization(twins, BLEUConfig(smoothing="exp"), 99, seed=3)
    assert result.p_values[1].item() == pytest.approx(1 / 100)
    assert torch.isnan(result.p_values[0])


def test_large_counts_fall_back_to_float64_and_stay_exact():
    stats = random_statistics(systems=2, sentences=64)
    scaled = SentenceStatistics(*(field * 2**20 for field in stats))  # partial sums beyond 2**24
    config = BLEUConfig(smoothing="none")
    small, large = (paired_approximate_randomization(s, config, 64, seed=1) for s in (stats, scaled))
    # scaling every count by the same power of two leaves precisions, ratios and therefore p-values unchanged
    assert torch.allclose(small.scores, large.scores, rtol=0, atol=1e-9)
    assert torch.equal(small.p_values.nan_to_num(), large.p_values.nan_to_num())


def test_bad_arguments_are_rejected():
    stats = random_statistics(systems=1)
    with pytest.raises(ValueError, match="at least 2 system"):
        paired_approximate_randomization(stats, BLEUConfig(), 10)
    with pytest.raises(ValueError, match="positive integer"):
        paired_bootstrap(stats, BLEUConfig(), 0)

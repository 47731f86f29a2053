"""Paired bootstrap and approximate randomization against sacrebleu's own implementation.

Both sides get the same per-sentence statistics (sacrebleu's), and with the same seed they draw the same
resamples, so p-values must agree exactly; sacrebleu scores bootstrap resamples with float32 precisions,
so bootstrap means and intervals agree to float32 precision only.
"""

import functools
import inspect
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import sacrebleu_seed
from strategies import word_corpora

from torch_bleu import BLEUConfig, SentenceStatistics, bleu_statistics
from torch_bleu.metrics.bleu.command_line import packed_bleu
from torch_bleu.metrics.bleu.score import bleu_parts
from torch_bleu.metrics.bleu.statistics import pack_statistics
from torch_bleu.significance import (
    bootstrap_indices,
    randomization_swaps,
    statistics_bootstrap,
    statistics_randomization,
)

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

WORDS = ["a", "b", "c", "d", "e", "f"]


def bleu(**options):
    """The tests' score function: sacrebleu's BLEU (0..100) of summed packed statistics."""
    return functools.partial(packed_bleu, config=BLEUConfig(**options))


def our_statistics(metric, systems, references):
    """sacrebleu's per-sentence statistics of every system, packed ``(K, B, 2 + 2N)`` (the same layout)."""
    return np.array([metric._extract_corpus_statistics(system, references) for system in systems], dtype=np.int64)


def sacrebleu_results(metric, systems, test_type, n):
    named = [(f"system {index}", system) for index, system in enumerate(systems)]
    return PairedTest(named, {"BLEU": metric}, references=None, test_type=test_type, n_samples=n)()[1]["BLEU"]


@st.composite
def corpora(draw):
    systems, references = draw(word_corpora(sizes=(2, 12), systems=(2, 4), references=(1, 2), max_len=7))
    return systems, references, draw(st.sampled_from(["exp", "floor", "add-k", "none"]))


@settings(max_examples=40)
@given(corpora(), st.sampled_from(["bs", "ar"]), st.integers(1, 70))
def test_p_values_equal_sacrebleu(corpus, test_type, n):
    systems, references, smoothing = corpus
    metric = BLEU(tokenize="none", smooth_method=smoothing, references=references)
    stats = our_statistics(metric, systems, references)
    with sacrebleu_seed("12345"):
        expected = sacrebleu_results(metric, systems, test_type, n)
    test = statistics_bootstrap if test_type == "bs" else statistics_randomization
    result = test(stats, bleu(smoothing=smoothing), n, seed=12345)

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
    result = statistics_bootstrap(our_statistics(metric, [hyps], refs), bleu(smoothing="exp"), 300, seed=12345)
    assert result.scores.item() == pytest.approx(expected.score, abs=1e-9)
    assert result.means.item() == pytest.approx(expected._mean, abs=1e-4)
    assert result.cis.item() == pytest.approx(expected._ci, abs=1e-4)


def random_statistics(systems=3, sentences=101, seed=0):
    rng = np.random.default_rng(seed)
    totals = np.maximum(rng.integers(0, 30, (systems, sentences, 1)) - np.arange(4), 0)
    matches = (totals * rng.random(totals.shape)).astype(np.int64)
    preds_len = totals[..., 0]
    target_len = np.maximum(preds_len + rng.integers(-3, 4, preds_len.shape), 0)
    return pack_statistics(SentenceStatistics(matches, totals, preds_len, target_len))


@settings(max_examples=200)
@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=30),
    st.sampled_from(["exp", "floor", "add-k", "none"]),
    st.sampled_from([None, 0.0, 0.5, 2.0]),
    st.booleans(),
    st.integers(1, 5),
)
def test_packed_bleu_is_sacrebleus_compute_bleu(lengths, smoothing, smooth_value, effective_order, order):
    rng = np.random.default_rng(sum(lengths))
    hyp_len = np.array(lengths)
    totals = np.maximum(hyp_len[:, None] - np.arange(order), 0)
    # real statistics have no n-gram match without a unigram match: keep matches non-increasing
    matches = np.minimum.accumulate((totals * rng.random(totals.shape) ** 2).round().astype(np.int64), axis=-1)
    target_len = np.maximum(hyp_len + rng.integers(-5, 6, hyp_len.shape), 0)
    packed = pack_statistics(SentenceStatistics(matches, totals, hyp_len, target_len))
    if smoothing in ("none", "exp") or (smoothing == "add-k" and smooth_value == 0.0):
        smooth_value = None
    config = BLEUConfig(
        max_order=order, smoothing=smoothing, smooth_value=smooth_value, effective_order=effective_order
    )
    ours = packed_bleu(packed, config)
    for row, score in zip(packed.tolist(), ours.tolist()):
        expected = BLEU.compute_bleu(
            correct=row[2 : 2 + order], total=row[2 + order :], sys_len=row[0], ref_len=row[1],
            smooth_method=smoothing, smooth_value=config.smooth_value, effective_order=effective_order,
            max_ngram_order=order,
        ).score  # fmt: skip
        assert score == pytest.approx(expected, abs=1e-9)


def test_tensors_and_arrays_pack_alike():
    hyp, ref = torch.tensor([[1, 2, 3, 4], [5, 6, 6, 0]]), torch.tensor([[[1, 2, 3, 5]], [[6, 6, 5, 0]]])
    stats = bleu_statistics(hyp, ref, ignore_ids=[0])
    packed = pack_statistics(stats)
    assert packed.dtype == np.int64
    assert packed.tolist() == [[4, 4, 3, 2, 1, 0, 4, 3, 2, 1], [3, 3, 3, 1, 0, 0, 3, 2, 1, 0]]
    assert np.array_equal(pack_statistics(SentenceStatistics(*(field.numpy() for field in stats))), packed)


def test_nltk_convention_is_rejected():
    with pytest.raises(ValueError, match="sacrebleu's convention"):
        statistics_bootstrap(random_statistics(), bleu(convention="nltk"), 10)


@pytest.mark.parametrize("test", [statistics_bootstrap, statistics_randomization])
def test_chunking_does_not_change_results(test):
    stats = random_statistics()
    score = bleu(smoothing="exp")
    whole = test(stats, score, 200, seed=7)
    done = []
    chunked = test(stats, score, 200, seed=7, chunk_elements=32 * 101, progress=done.append)
    assert done == [32] * 6 + [8]
    for ours, reference in zip(chunked, whole):
        if reference is not None:
            assert np.array_equal(ours, reference, equal_nan=True)


def test_random_draws_are_sacrebleu_draws_in_any_chunking():
    indices = np.concatenate(list(bootstrap_indices(37, 100, seed=12345, chunk_elements=32 * 37)))
    expected = np.random.default_rng(12345).choice(37, size=(100, 37), replace=True)
    assert np.array_equal(indices, expected)
    swaps = np.concatenate(list(randomization_swaps(37, 100, seed=12345, chunk_elements=64 * 37)))
    expected = np.random.default_rng(12345).integers(2, size=(100, 37), dtype=bool)
    assert np.array_equal(swaps, expected)


def test_identical_systems_follow_sacrebleus_tie_rule():
    # |a - b| is exactly the observed 0 in every trial; ties do not count, so p = 1 / (n + 1)
    stats = random_statistics(systems=1)
    result = statistics_randomization(np.concatenate([stats, stats]), bleu(smoothing="exp"), 99, seed=3)
    assert result.p_values[1] == pytest.approx(1 / 100)
    assert np.isnan(result.p_values[0])


def test_large_counts_fall_back_to_float64_and_stay_exact():
    stats = random_statistics(systems=2, sentences=64)
    scaled = stats * 2**20  # partial sums beyond 2**24
    score = bleu(smoothing="none")
    small, large = (statistics_randomization(s, score, 64, seed=1) for s in (stats, scaled))
    # scaling every count by the same power of two leaves precisions, ratios and therefore p-values unchanged
    assert np.allclose(small.scores, large.scores, rtol=0, atol=1e-9)
    assert np.array_equal(small.p_values, large.p_values, equal_nan=True)


def test_bad_arguments_are_rejected():
    stats = random_statistics(systems=1)
    with pytest.raises(ValueError, match="at least 2 system"):
        statistics_randomization(stats, bleu(), 10)
    with pytest.raises(ValueError, match=r"^n_samples must be a positive integer, got 0$"):
        statistics_bootstrap(stats, bleu(), 0)


def accuracy(summed: np.ndarray) -> np.ndarray:
    return 100 * summed[..., 0] / np.maximum(summed[..., 1], 1)


@pytest.mark.parametrize("test", [statistics_bootstrap, statistics_randomization])
@pytest.mark.parametrize(
    ("packed", "error", "message"),
    [
        (np.full((2, 3, 2), 0.5), TypeError, r"^packed must hold integer statistics .* got float64$"),
        (np.full((2, 3, 2), np.nan), TypeError, r"^packed must hold integer statistics .* got float64$"),
        (
            np.ones((2, 3), dtype=np.int64),
            ValueError,
            r"^packed must be 3-D, \(systems, sentences, .* got shape \(2, 3\)$",
        ),
        (np.ones((2, 3, 2), dtype=bool), TypeError, "got bool"),
        (np.ones((2, 0, 2), dtype=np.int64), ValueError, "at least one sentence; packed has none"),
        ([[["1", "2"]]] * 2, TypeError, "packed must hold integer statistics"),
    ],
    ids=["floats", "NaN", "2-D", "bools", "no sentences", "strings"],
)
def test_statistics_that_are_not_3_d_integers_are_refused(test, packed, error, message):
    with pytest.raises(error, match=message):
        test(packed, accuracy, 10)


@pytest.mark.parametrize("test", [statistics_bootstrap, statistics_randomization])
@pytest.mark.parametrize("seed", [-1, 1.5, "1", True])
def test_a_bad_seed_is_refused_by_name(test, seed):
    with pytest.raises(
        ValueError, match=rf"^seed must be None or a non-negative integer .* got {re.escape(repr(seed))}$"
    ):
        test(np.ones((2, 3, 2), dtype=np.int64), accuracy, 10, seed=seed)


@settings(max_examples=20, deadline=None)
@given(
    counts=st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=8),
    dtype=st.sampled_from([np.int8, np.uint8, np.int32, np.uint32, np.int64]),
    seed=st.one_of(st.none(), st.integers(0, 2**32)),
)
def test_statistics_of_any_integer_dtype_give_the_int64_numbers(counts, dtype, seed):
    packed = np.array([counts, counts[::-1]], dtype=np.int64)
    for test in (statistics_bootstrap, statistics_randomization):
        if seed is None:  # fresh entropy: only the scores are fixed
            assert np.array_equal(test(packed.astype(dtype), accuracy, 8).scores, accuracy(packed.sum(axis=1)))
            continue
        ours, int64 = test(packed.astype(dtype), accuracy, 8, seed=seed), test(packed, accuracy, 8, seed=seed)
        assert np.array_equal(ours.p_values, int64.p_values, equal_nan=True)


def test_both_tests_name_their_options_alike():
    bootstrap = inspect.signature(statistics_bootstrap).parameters
    randomization = inspect.signature(statistics_randomization).parameters
    assert list(bootstrap) == list(randomization)
    assert "n_samples" in bootstrap  # sacrebleu's name for the number of resamples or trials
    stats = random_statistics(systems=2)
    keyword = statistics_randomization(stats, bleu(), n_samples=20, seed=3)
    positional = statistics_randomization(stats, bleu(), 20, seed=3)
    assert np.array_equal(keyword.p_values, positional.p_values, equal_nan=True)


@pytest.mark.parametrize("test", [statistics_bootstrap, statistics_randomization])
def test_any_statistics_to_score_function_gets_the_same_tests(test):
    stats = random_statistics(systems=3)

    def unigram_precision(summed: np.ndarray) -> np.ndarray:  # another metric on the same statistics
        order = 4
        return 100 * summed[..., 2] / np.maximum(summed[..., 2 + order], 1)

    result = test(stats, unigram_precision, 64, seed=5)
    assert np.allclose(result.scores, unigram_precision(stats.sum(axis=1)))
    assert np.all((result.p_values[1:] > 0) & (result.p_values[1:] <= 1))


@st.composite
def summed_statistics(draw, max_order: int):
    """Corpus statistics ``(matches, totals, sys_len, ref_len)`` as sacrebleu could sum them (an order never
    matches more n-grams than the order below it)."""
    sys_len = draw(st.integers(0, 5000))
    totals = [max(0, sys_len - n) for n in range(max_order)]
    matches: list[int] = []
    for total in totals:
        matches.append(draw(st.integers(0, min([total, *matches[-1:]]))))
    return matches, totals, sys_len, draw(st.integers(0, 5000))


@settings(max_examples=400)
@given(data=st.data(), order=st.integers(1, 6), smoothing=st.sampled_from(["none", "floor", "add-k", "exp"]))
def test_percent_scores_are_sacrebleus_floats_bit_for_bit(data, order, smoothing):
    """What the command line prints is scored by ``bleu_parts`` on NumPy arrays: sacrebleu's floats, to the bit."""
    matches, totals, sys_len, ref_len = data.draw(summed_statistics(order))
    effective_order = data.draw(st.booleans())
    config = BLEUConfig(max_order=order, smoothing=smoothing, effective_order=effective_order)
    parts = bleu_parts(np.array(matches), np.array(totals), np.array(sys_len), np.array(ref_len), config, percent=True)
    theirs = BLEU.compute_bleu(
        list(matches), list(totals), sys_len, ref_len, smoothing, None, effective_order, max_ngram_order=order
    )
    assert parts.score.item() == theirs.score
    assert parts.precisions.tolist() == theirs.precisions
    assert parts.brevity_penalty.item() == theirs.bp

"""``convention="nltk"`` against nltk itself: ``sentence_bleu`` for method0..method7, corpus scores for 0..4.

Random corpora come from hypothesis, as nltk takes them (lists of lists of ints). Scores agree to a
relative 1e-9, nltk's tiny numbers for "no match" (1e-77 ... 1e-231) included. Where nltk raises
(method6 without a trigram match, or with fewer than 3 orders) we return the value documented in
``torch_bleu.metrics.bleu.nltk_smoothing``, computed here from nltk's own modified precisions.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from fractions import Fraction

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate import bleu_score as nltk_bleu
from strategies import ragged_corpora

from torch_bleu import BLEUConfig, BLEUScore, bleu_from_statistics, corpus_bleu, sentence_bleu
from torch_bleu.metrics.bleu.counting import sentence_statistics

SUBNORMAL = 2.3e-308  # below the smallest normal float, results keep too few digits for a relative test
SETTINGS = settings(max_examples=40)

Corpus = list[list[int]]


# --- random input ----------------------------------------------------------------------------


@st.composite
def corpora(draw, max_batch: int = 5, max_len: int = 10):
    """Hypotheses and 1-3 references each, over a small vocabulary so that n-grams repeat and match."""
    vocabulary = draw(
        st.one_of(
            st.lists(st.integers(1, 6), min_size=1, max_size=4, unique=True),
            st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=4, unique=True),
        )
    )
    sentence = st.lists(st.sampled_from(vocabulary), max_size=max_len)
    batch = draw(st.integers(1, max_batch))
    hyps = draw(st.lists(sentence, min_size=batch, max_size=batch))
    refs = draw(st.lists(st.lists(sentence, min_size=1, max_size=3), min_size=batch, max_size=batch))
    return hyps, refs


@st.composite
def weightings(draw, max_order: int):
    """Uniform weights, or weights in {0} and [0.1, 1] (not all 0) that need not sum to 1."""
    if draw(st.booleans()):
        return None
    weight = st.one_of(st.just(0.0), st.floats(0.1, 1.0))
    return draw(st.lists(weight, min_size=max_order, max_size=max_order).filter(any))


SMOOTH_VALUES = {
    "method1": [None, 0.0, 0.01, 0.5],  # epsilon; 0 leaves the order out, as nltk does
    "method4": [None, 0.5, 2.0, 10.0],  # k
    "method6": [None, 0.5, 3.0],  # alpha
    "method7": [None, 0.5, 10.0],  # k
}


# --- nltk, and what we define where nltk raises ------------------------------------------------


def smoothing_function(smooth_value: float | None, method: str):
    """nltk's ``SmoothingFunction`` method with our ``smooth_value`` in the role nltk gives it."""
    if smooth_value is None:
        return getattr(nltk_bleu.SmoothingFunction(), method)
    parameter = {"method1": "epsilon", "method6": "alpha"}.get(method, "k")
    return getattr(nltk_bleu.SmoothingFunction(**{parameter: smooth_value}), method)


def uniform(weights: Sequence[float] | None, max_order: int) -> tuple:
    return tuple(weights) if weights is not None else (1.0 / max_order,) * max_order


def method6_as_defined(refs: Corpus, hyp: list[int], weights: tuple, alpha: float) -> float:
    """``method6`` where nltk refuses the sentence: its interpolation applied as written (exact fractions)."""
    order = len(weights)
    unnormalized = [nltk_bleu.modified_precision(refs, hyp, n) for n in range(1, order + 1)]
    precisions = [Fraction(p.numerator, p.denominator) for p in unnormalized]
    if precisions[0] == 0:
        return 0.0
    for index in range(2, order):
        prior = 0 if precisions[index - 2] == 0 else precisions[index - 1] ** 2 / precisions[index - 2]
        ngram_count = max(0, len(hyp) - index)
        precisions[index] = (unnormalized[index].numerator + Fraction(alpha) * prior) / (ngram_count + Fraction(alpha))
    if any(p == 0 and w > 0 for p, w in zip(precisions, weights)):
        return 0.0
    penalty = nltk_bleu.brevity_penalty(nltk_bleu.closest_ref_length(refs, len(hyp)), len(hyp))
    return penalty * math.exp(math.fsum(w * math.log(p) for w, p in zip(weights, precisions) if w > 0))


def nltk_sentence(refs: Corpus, hyp: list[int], weights: tuple, method: str, smooth_value: float | None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # method0 warns about every order without a match
        try:
            return nltk_bleu.sentence_bleu(refs, hyp, weights, smoothing_function(smooth_value, method))
        except (AssertionError, IndexError):
            assert method == "method6"  # nltk's assertion p_n[2] != 0, and p_n[2] with < 3 orders
            return method6_as_defined(refs, hyp, weights, smooth_value if smooth_value is not None else 5.0)


def nltk_corpus(refs: list[Corpus], hyps: Corpus, weights: tuple, method: str, smooth_value: float | None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nltk_bleu.corpus_bleu(refs, hyps, weights, smoothing_function(smooth_value, method))


def assert_same(ours: float, theirs: float, method: str) -> None:
    assert math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=SUBNORMAL), (method, ours, theirs)


# --- nltk's numbers, sentence by sentence and for the corpus ------------------------------------


@pytest.mark.parametrize("method", [f"method{index}" for index in range(8)])
@SETTINGS
@given(data=st.data(), corpus=ragged_corpora(), max_order=st.integers(1, 6))
def test_sentence_bleu_equals_nltk(method, data, corpus, max_order):
    hyps, refs = corpus
    weights = data.draw(weightings(max_order))
    smooth_value = data.draw(st.sampled_from(SMOOTH_VALUES.get(method, [None])))
    ours = sentence_bleu(
        hyps, refs, convention="nltk", smoothing=method, smooth_value=smooth_value, max_order=max_order, weights=weights
    )
    assert ours.shape == (len(hyps),) and ours.dtype == torch.float64
    full_weights = uniform(weights, max_order)
    for score, hyp, sentence_refs in zip(ours.tolist(), hyps, refs):
        assert_same(score, nltk_sentence(sentence_refs, hyp, full_weights, method, smooth_value), method)


@pytest.mark.parametrize("method", [f"method{index}" for index in range(5)])
@SETTINGS
@given(data=st.data(), corpus=corpora(max_batch=8), max_order=st.integers(1, 6))
def test_corpus_bleu_and_metric_equal_nltk(method, data, corpus, max_order):
    hyps, refs = corpus
    weights = data.draw(weightings(max_order))
    smooth_value = data.draw(st.sampled_from(SMOOTH_VALUES.get(method, [None])))
    options = dict(convention="nltk", smoothing=method, smooth_value=smooth_value, max_order=max_order, weights=weights)
    expected = nltk_corpus(refs, hyps, uniform(weights, max_order), method, smooth_value)
    assert_same(corpus_bleu(hyps, refs, **options).item(), expected, method)

    metric = BLEUScore(**options)
    split = data.draw(st.integers(0, len(hyps)))
    metric.update(hyps[:split], refs[:split])
    metric.update([torch.tensor(hyp, dtype=torch.int64) for hyp in hyps[split:]], refs[split:])
    assert_same(metric.compute().item(), expected, method)


#: Words as nltk's users have them: tokens of any script and punctuation, none with a space.
NLTK_WORDS = ["the", "cat", "n't", ",", ".", "Straße", "猫", "--", "&amp;", "'s"]


@pytest.mark.parametrize("method", ["method0", "method1", "method3"])
@SETTINGS
@given(corpus=ragged_corpora(vocabularies=st.lists(st.sampled_from(NLTK_WORDS), min_size=1, max_size=6, unique=True)))
def test_lists_of_words_joined_by_spaces_give_nltks_number(method, corpus):
    """What the hint for nltk's lists of words says: join them, tokenize='none', convention='nltk'."""
    hyps, refs = corpus
    joined_refs = [[" ".join(ref) for ref in sentence_refs] for sentence_refs in refs]
    ours = corpus_bleu(
        [" ".join(hyp) for hyp in hyps], joined_refs, tokenize="none", convention="nltk", smoothing=method
    )
    assert_same(ours.item(), nltk_corpus(refs, hyps, (0.25,) * 4, method, None), method)


@settings(max_examples=60)
@given(corpus=corpora(max_batch=6), max_order=st.integers(1, 6))
def test_statistics_equal_nltk_modified_precision(corpus, max_order):
    hyps, refs = corpus
    stats = sentence_statistics(hyps, refs, BLEUConfig(max_order=max_order, convention="nltk"))
    for index, (hyp, sentence_refs) in enumerate(zip(hyps, refs)):
        fractions = [nltk_bleu.modified_precision(sentence_refs, hyp, n) for n in range(1, max_order + 1)]
        assert stats.matches[index].tolist() == [fraction.numerator for fraction in fractions]
        assert stats.totals[index].tolist() == [fraction.denominator for fraction in fractions]
        assert stats.preds_len[index].item() == len(hyp)
        assert stats.target_len[index].item() == nltk_bleu.closest_ref_length(sentence_refs, len(hyp))


# --- nltk's edge rules, one by one --------------------------------------------------------------

THE_CAT = [[1, 2, 3, 4, 1, 5], [6, 3, 7, 2, 4, 1, 5]]  # the cat is on the mat / there is a cat on the mat


@pytest.mark.parametrize(
    "hyp, weights, magnitude",
    [
        ([1] * 7, (0.25,) * 4, 1e-231),  # "the the the the the the the": three orders without a match
        ([1, 2, 9, 2, 4, 8, 3, 4], (0.5, 0.3, 0.2), 1e-62),  # bigram matches, no trigram match
        ([1, 2, 9, 2, 4, 8, 3, 4], (0.9, 0.05, 0.05), 1e-16),
    ],
)
def test_method0_gives_nltks_tiny_numbers(hyp, weights, magnitude):
    """nltk puts sys.float_info.min in place of a precision of 0: the score is tiny, not 0."""
    expected = nltk_sentence(THE_CAT, hyp, weights, "method0", None)
    assert magnitude / 100 < expected < magnitude * 100
    for score in (sentence_bleu, corpus_bleu):
        ours = score([hyp], [THE_CAT], convention="nltk", weights=weights).item()
        assert math.isclose(ours, expected, rel_tol=1e-9)
    metric = BLEUScore(convention="nltk", weights=weights)  # max_order taken from the weights, as nltk does
    metric.update([hyp], [THE_CAT])
    assert math.isclose(metric.compute().item(), expected, rel_tol=1e-9)


def test_no_unigram_match_scores_zero_whatever_the_smoothing():
    for method in [f"method{index}" for index in range(8)]:
        assert sentence_bleu([[8, 9]], [THE_CAT], convention="nltk", smoothing=method).item() == 0.0


def test_nltk_pads_denominators_per_sentence():
    """A 2-token hypothesis adds a phantom 3-gram and 4-gram: BLEU 0.84 where sacrebleu says 1."""
    hyp, refs = [[1, 2]], [[[1, 2]]]
    assert sentence_statistics(hyp, refs, BLEUConfig(convention="nltk")).totals.tolist() == [[2, 1, 1, 1]]
    smoothed = corpus_bleu(hyp, refs, convention="nltk", smoothing="method3").item()
    assert smoothed == pytest.approx(nltk_corpus(refs, hyp, (0.25,) * 4, "method3", None), rel=1e-12)
    assert corpus_bleu(hyp, refs, smoothing="exp", effective_order=True).item() == pytest.approx(1.0)


def test_method4_leaves_orders_out_for_a_one_token_hypothesis():
    hyp, refs = [5], [[5, 6, 7]]  # nltk cannot smooth with ln(1) = 0 and skips orders 2..4
    expected = nltk_sentence(refs, hyp, (0.25,) * 4, "method4", None)
    assert expected == pytest.approx(math.exp(1 - 3))
    assert sentence_bleu([hyp], [refs], convention="nltk", smoothing="method4").item() == pytest.approx(expected)


def test_method1_with_zero_epsilon_leaves_orders_out_as_nltk_does():
    hyp, refs = [1, 2, 3, 9], [[1, 2, 3, 4]]
    expected = nltk_sentence(refs, hyp, (0.25,) * 4, "method1", 0.0)
    assert expected == pytest.approx((3 / 4 * 2 / 3 * 1 / 2) ** 0.25)  # p4 = 0 is left out, not counted as 0
    ours = sentence_bleu([hyp], [refs], convention="nltk", smoothing="method1", smooth_value=0.0)
    assert ours.item() == pytest.approx(expected)


def test_method6_has_a_value_where_nltk_raises():
    refs = [[1, 2, 3, 4, 5]]
    with pytest.raises(AssertionError):  # bigram matches, no trigram match
        nltk_bleu.sentence_bleu(refs, [1, 2, 9, 3, 4], smoothing_function=nltk_bleu.SmoothingFunction().method6)
    options = dict(convention="nltk", smoothing="method6")
    smoothed = sentence_bleu([[1, 2, 9, 3, 4]], [refs], **options).item()
    assert smoothed == pytest.approx(method6_as_defined(refs, [1, 2, 9, 3, 4], (0.25,) * 4, 5.0)) and smoothed > 0
    # no bigram match: nothing to extrapolate from, the score is 0
    assert sentence_bleu([[1, 9, 2, 9, 3]], [refs], **options).item() == 0.0
    # fewer than 3 orders: nothing to smooth, method6 is method0
    short = sentence_bleu([[1, 2, 9, 3, 4]], [refs], max_order=2, **options)
    assert short.item() == sentence_bleu([[1, 2, 9, 3, 4]], [refs], max_order=2, convention="nltk").item() > 0


# --- options --------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["method5", "method6", "method7"])
def test_corpus_scores_refuse_methods_that_read_the_last_sentence(method):
    with pytest.raises(ValueError, match="sentence_bleu"):
        BLEUScore(convention="nltk", smoothing=method)
    with pytest.raises(ValueError, match="last sentence"):
        corpus_bleu([[1, 2]], [[[1, 2]]], convention="nltk", smoothing=method)
    assert sentence_bleu([[1, 2]], [[[1, 2]]], convention="nltk", smoothing=method).shape == (1,)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"smoothing": "method1"}, "convention='nltk'"),
        ({"smoothing": "exp", "convention": "nltk"}, "'method3'"),
        ({"smoothing": "floor", "convention": "nltk"}, "'method1'"),
        ({"effective_order": True, "convention": "nltk"}, "effective_order"),
        ({"smoothing": "method2", "smooth_value": 0.5, "convention": "nltk"}, "no constant"),
        ({"smoothing": "method4", "smooth_value": 0, "convention": "nltk"}, "> 0"),
        ({"smoothing": "method6", "smooth_value": 0.0, "convention": "nltk"}, "> 0"),
    ],
)
def test_options_that_mean_nothing_are_rejected(options, message):
    with pytest.raises(ValueError, match=message):
        BLEUConfig(**options)
    with pytest.raises(ValueError, match=message):
        sentence_bleu([[1, 2]], [[[1, 2]]], **options)


def test_five_gram_methods_need_five_gram_statistics():
    config = BLEUConfig(max_order=2, convention="nltk", smoothing="method5")
    with pytest.raises(ValueError, match="5 orders"):
        bleu_from_statistics(torch.tensor([2, 1]), torch.tensor([2, 1]), torch.tensor(2), torch.tensor(2), config)


@pytest.mark.parametrize("method", [f"method{index}" for index in range(8)])
def test_every_method_runs_batched_on_the_meta_device(method):
    preds = torch.empty(6, 12, dtype=torch.int64, device="meta")
    target = torch.empty(6, 2, 10, dtype=torch.int64, device="meta")
    scores = sentence_bleu(preds, target, convention="nltk", smoothing=method, ignore_ids=[0])
    assert scores.shape == (6,) and scores.device.type == "meta"


def test_padded_and_ragged_input_agree_under_nltk():
    hyps = [[4, 5, 6, 7, 8], [4, 5], []]
    refs = [[[4, 5, 6, 9], [4, 5, 6, 7, 8, 9]], [[5, 4]], [[4]]]
    preds = torch.tensor([[4, 5, 6, 7, 8], [4, 5, 0, 0, 0], [0, 0, 0, 0, 0]])
    target = torch.tensor(
        [[[4, 5, 6, 9, 0, 0], [4, 5, 6, 7, 8, 9]], [[5, 4, 0, 0, 0, 0], [0] * 6], [[4, 0, 0, 0, 0, 0], [0] * 6]]
    )
    for method in ("method0", "method3", "method7"):
        options = dict(convention="nltk", smoothing=method)
        ragged = sentence_bleu(hyps, refs, **options)
        assert torch.equal(sentence_bleu(preds, target, ignore_ids=[0], **options), ragged)

"""ROUGE's bootstrap intervals equal rouge-score's ``BootstrapAggregator`` after ``np.random.seed(seed)``,
float for float, over random per-sentence scores, several types, seeds, resample counts and confidences;
NumPy's global random state stays untouched."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from torch_bleu.metrics.rouge.bootstrap import rouge_bootstrap

scoring = pytest.importorskip("rouge_score.scoring")


@contextmanager
def global_random_state_kept():
    state = np.random.get_state()
    try:
        yield
    finally:
        np.random.set_state(state)


def rouge_score_intervals(scores, resamples, confidence, seed):
    """rouge-score's aggregate of ``scores`` ({type: (n, 3) array}), added sentence by sentence."""
    aggregator = scoring.BootstrapAggregator(confidence_interval=confidence, n_samples=resamples)
    for index in range(max(len(matrix) for matrix in scores.values())):
        aggregator.add_scores(
            {name: scoring.Score(*matrix[index]) for name, matrix in scores.items() if index < len(matrix)}
        )
    with global_random_state_kept():
        np.random.seed(seed)
        result = aggregator.aggregate()
    return {name: (tuple(score.low), tuple(score.mid), tuple(score.high)) for name, score in result.items()}


unit_floats = st.floats(0, 1, allow_nan=False)
score_matrices = st.integers(1, 50).flatmap(lambda n: arrays(np.float64, (n, 3), elements=unit_floats))
ROUGE_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


@settings(max_examples=30)
@given(
    st.lists(score_matrices, min_size=1, max_size=4),
    st.integers(0, 2**32 - 1),
    st.integers(1, 200),
    st.sampled_from([0.95, 0.9, 0.5, 0.99, 0.123]),
)
def test_equal_to_rouge_score_aggregator(matrices, seed, resamples, confidence):
    scores = dict(zip(ROUGE_TYPES, matrices))
    expected = rouge_score_intervals(scores, resamples, confidence, seed)
    assert rouge_bootstrap(scores, resamples=resamples, confidence=confidence, seed=seed) == expected


@pytest.mark.parametrize("sentences", [1, 2, 9, 300])
def test_defaults_equal_rouge_score_aggregator(sentences):
    generator = np.random.default_rng(sentences)
    scores = {name: generator.random((sentences, 3)) for name in ROUGE_TYPES[:2]}
    assert rouge_bootstrap(scores, seed=7) == rouge_score_intervals(scores, 1000, 0.95, 7)


def test_chunked_draws_equal_rouge_score_aggregator(monkeypatch):
    """Resamples drawn a few at a time continue the same random stream as one at a time."""
    from torch_bleu.metrics.rouge import bootstrap

    monkeypatch.setattr(bootstrap, "_CHUNK_INDICES", 64)
    scores = {"rouge1": np.random.default_rng(1).random((25, 3)), "rougeL": np.random.default_rng(2).random((3, 3))}
    assert rouge_bootstrap(scores, resamples=50, seed=3) == rouge_score_intervals(scores, 50, 0.95, 3)


def test_global_random_state_untouched():
    with global_random_state_kept():
        np.random.seed(123)
        before = np.random.get_state()
        rouge_bootstrap({"rouge1": np.full((5, 3), 0.5)}, resamples=10, seed=1)
        rouge_bootstrap({"rouge1": np.full((5, 3), 0.5)}, resamples=10)
        after = np.random.get_state()
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]


def test_same_seed_same_intervals_and_types_in_order():
    scores = {"rougeL": np.random.default_rng(0).random((8, 3)), "rouge1": np.random.default_rng(1).random((8, 3))}
    first = rouge_bootstrap(scores, resamples=20, seed=5)
    assert first == rouge_bootstrap(scores, resamples=20, seed=5)
    assert list(first) == ["rougeL", "rouge1"]
    assert all(isinstance(value, float) for bounds in first.values() for score in bounds for value in score)


def test_no_seed_draws_anew():
    scores = {"rouge1": np.random.default_rng(0).random((30, 3))}
    assert rouge_bootstrap(scores, resamples=50) != rouge_bootstrap(scores, resamples=50)


def test_empty_mapping_gives_no_intervals():
    assert rouge_bootstrap({}, seed=0) == {}


@pytest.mark.parametrize(
    ("scores", "options", "error", "names"),
    [
        ({"rouge1": np.zeros((0, 3))}, {}, ValueError, "scores['rouge1']"),
        ({"rouge1": np.zeros((4, 2))}, {}, ValueError, "scores['rouge1']"),
        ({"rouge1": np.zeros(3)}, {}, ValueError, "scores['rouge1']"),
        ({"rouge1": [["a", "b", "c"]]}, {}, TypeError, "scores['rouge1']"),
        ([np.zeros((2, 3))], {}, TypeError, "scores"),
        ({"rouge1": np.zeros((2, 3))}, {"resamples": 0}, ValueError, "resamples"),
        ({"rouge1": np.zeros((2, 3))}, {"resamples": 2.0}, TypeError, "resamples"),
        ({"rouge1": np.zeros((2, 3))}, {"resamples": True}, TypeError, "resamples"),
        ({"rouge1": np.zeros((2, 3))}, {"confidence": 1.0}, ValueError, "confidence"),
        ({"rouge1": np.zeros((2, 3))}, {"confidence": 0}, ValueError, "confidence"),
        ({"rouge1": np.zeros((2, 3))}, {"confidence": "0.9"}, TypeError, "confidence"),
        ({"rouge1": np.zeros((2, 3))}, {"seed": -1}, ValueError, "seed"),
        ({"rouge1": np.zeros((2, 3))}, {"seed": 2**32}, ValueError, "seed"),
        ({"rouge1": np.zeros((2, 3))}, {"seed": 1.5}, TypeError, "seed"),
    ],
)
def test_bad_arguments_are_named(scores, options, error, names):
    with pytest.raises(error, match=names.replace("[", r"\[").replace("]", r"\]")):
        rouge_bootstrap(scores, **options)

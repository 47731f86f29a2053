"""ROUGE against rouge-score 0.1.2 (and rouge-score-rs): strings of every kind, ids, subword ids, the
metric's life cycle, DDP.

rouge-score's ``score(target, prediction)`` takes the reference first; these tests call it so and
compare every precision, recall and F-measure for equality (float64, the same operations).
"""

from __future__ import annotations

import random
import re
import sys
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import WMT17
from subword_tokenizers import CORPUS
from vocabularies import SIZE_MODES, SUBWORD_CASES

from torch_bleu import (
    ROUGEScore,
    arrays,
    corpus_rouge,
    paired_bootstrap,
    paired_randomization,
    rouge_scores,
    rouge_statistics,
    sentence_rouge,
)
from torch_bleu.metrics.rouge.bootstrap import rouge_bootstrap

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
scoring = pytest.importorskip("rouge_score.scoring")

ALL_TYPES = ("rouge1", "rouge2", "rouge3", "rouge4", "rouge9", "rougeL", "rougeLsum")
DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
CORPUS_LINES = CORPUS.read_text(encoding="utf-8").splitlines()

#: Pieces of text rouge-score reads in surprising ways: case, punctuation, other scripts, the Kelvin
#: sign and the dotted capital I, words the stemmer changes, blank lines, tabs, carriage returns.
PIECES = [
    "the", "The", "cat", "cats", "running", "ran", "a", "A", "b", "12", "x9", " ", "  ", ",", ".", "-", "'s",
    "\n", "\n\n", "\r\n", "\t", "Cristóbal", "\u212a", "\u0130STANBUL", "Москва", "東京", "é", "generously",
    "general", "ÆSIR", "n't", "caresses", "ponies",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=14).map(" ".join) | st.lists(
    st.sampled_from(PIECES), max_size=8
).map("".join)


@pytest.fixture(params=SIZE_MODES)
def sizes(request, monkeypatch):
    """Counted as on the CPU (sizes from the data: groups of similar lengths) and as on an accelerator
    (PyTorch, sizes from shapes only)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return request.param


def expected_scores(hypotheses, references, types, use_stemmer=False):
    """rouge-score's ``score_multi`` of each prediction, as ``{key: [values]}``."""
    scorer = rouge_scorer.RougeScorer(list(types), use_stemmer=use_stemmer)
    results = [
        scorer.score_multi(refs if isinstance(refs, list) else [refs], hyp) for hyp, refs in zip(hypotheses, references)
    ]
    return {
        f"{rouge_type}_{measure}": [getattr(result[rouge_type], measure) for result in results]
        for rouge_type in types
        for measure in ("precision", "recall", "fmeasure")
    }


def assert_equal_to_rouge_score(hypotheses, references, types=ALL_TYPES, **options):
    got = {
        key: values.tolist()
        for key, values in sentence_rouge(hypotheses, references, rouge_types=types, **options).items()
    }
    assert got == expected_scores(hypotheses, references, types, options.get("use_stemmer", False))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    batch=st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1, max_size=8),
    use_stemmer=st.booleans(),
)
def test_strings_score_as_rouge_score(batch, use_stemmer):
    hypotheses = [hypothesis for hypothesis, _ in batch]
    references = [refs for _, refs in batch]
    assert_equal_to_rouge_score(hypotheses, references, use_stemmer=use_stemmer)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    batch=st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=4)), min_size=1, max_size=40),
    use_stemmer=st.booleans(),
)
def test_many_strings_score_as_rouge_score(batch, use_stemmer):
    hypotheses = [hypothesis for hypothesis, _ in batch]
    references = [refs for _, refs in batch]
    assert_equal_to_rouge_score(hypotheses, references, use_stemmer=use_stemmer)


#: Lines of a few words from a tiny vocabulary: many LCS of equal length, so rouge-score's backtrack
#: tie rule decides rougeLsum's union.
tie_lines = st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=7).map(" ".join), max_size=4).map("\n".join)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(tie_lines, tie_lines), min_size=1, max_size=12))
def test_union_lcs_ties_are_broken_as_rouge_score_breaks_them(sizes, pairs):
    hypotheses, references = (list(side) for side in zip(*pairs))
    assert_equal_to_rouge_score(hypotheses, references, types=("rougeL", "rougeLsum"))


def test_edge_cases_of_rouge_score():
    cases = [
        ("", ""),
        ("", "a b"),
        ("a b", ""),
        ("...", "!!"),
        ("the cat\n\nsat", "the cat sat"),
        ("a\r\nb\tc", "a b\n\nc"),
        ("Москва 東京", "Москва 東京"),
        ("\u212aelvin \u0130stanbul", "kelvin i stanbul"),
        ("a a a a", "a a"),
        ("\n\n\n", "a\n"),
        ("a\x00b c", "a b\x00c"),
    ]
    hypotheses, references = (list(side) for side in zip(*cases))
    for use_stemmer in (False, True):
        assert_equal_to_rouge_score(hypotheses, references, use_stemmer=use_stemmer)


def test_several_references_best_and_average():
    hypotheses = ["the cat sat on the mat", "a dog barked", "nothing here"]
    references = [["the cat sat", "a cat on the mat"], ["the dog barked loudly", "a dog", "dogs bark"], ["x", "y"]]
    assert_equal_to_rouge_score(hypotheses, references)
    averaged = sentence_rouge(hypotheses, references, accumulate="avg")
    for row, (hypothesis, refs) in enumerate(zip(hypotheses, references)):
        each = expected_scores([hypothesis] * len(refs), refs, DEFAULT_TYPES)
        for key, values in each.items():
            assert averaged[key][row].item() == pytest.approx(sum(values) / len(values), abs=1e-15)


def test_corpus_scores_are_means_of_sentence_scores():
    hypotheses, references = CORPUS_LINES[:40], CORPUS_LINES[40:80]
    sentences = expected_scores(hypotheses, references, DEFAULT_TYPES, use_stemmer=True)
    corpus = corpus_rouge(hypotheses, references, use_stemmer=True)
    assert set(corpus) == set(sentences)
    for key, values in sentences.items():
        assert corpus[key].dtype == torch.float64
        assert corpus[key].item() == pytest.approx(float(np.mean(values)), abs=1e-14)


def test_rouge_score_rs_agrees():
    rs = pytest.importorskip("rouge_score_rs")
    hypotheses = ["\n".join(CORPUS_LINES[i : i + 3]) for i in range(0, 60, 3)]
    references = ["\n".join(CORPUS_LINES[i : i + 3]) for i in range(60, 120, 3)]
    expected = rs.RougeScorer(list(DEFAULT_TYPES), use_stemmer=True).score_batch(references, hypotheses)
    got = sentence_rouge(hypotheses, references, use_stemmer=True)
    for row, result in enumerate(expected):
        for rouge_type in DEFAULT_TYPES:
            assert got[f"{rouge_type}_fmeasure"][row].item() == result[rouge_type].fmeasure


#: Words of several scripts, and what the Unicode tokenizers split, fold, normalize or drop.
SCRIPT_PIECES = [
    "Straße", "STRASSE", "\uff53\uff54\uff52\uff41\uff53\uff53\uff45", "Äpfel", "don't", "3.14", "1,000",
    "Москва", "москва", "столица",
    "東京", "タワー", "今天", "天气", "नमस्ते", "हिन्दी", "한국어", "ﬁ", "İstanbul", "e\u0301", " ", "\n", "\n\n",
    ",", "!", "-", "\u200d", "\U0001f44d\U0001f3fd", "a", "A", "the",
]  # fmt: skip
#: Characters assigned in Python's Unicode version: where its normalization and rouge-score-rs' agree.
assigned_characters = st.characters(blacklist_categories=("Cn", "Cs"))
multilingual_texts = (
    st.lists(st.sampled_from(SCRIPT_PIECES), max_size=12).map(" ".join)
    | st.lists(st.sampled_from(SCRIPT_PIECES) | assigned_characters, max_size=10).map("".join)
    | st.text(assigned_characters, max_size=20)
)


def expected_unicode_scores(hypotheses, references, types, tokenize):
    """rouge-score-rs' ``score_multi`` of each prediction with its ``UnicodeTokenizer`` or
    ``CharacterTokenizer``, as ``{key: [values]}``."""
    tokenizers = pytest.importorskip("rouge_score_rs.tokenizers")
    rs_scorer = pytest.importorskip("rouge_score_rs.rouge_scorer")
    tokenizer = tokenizers.UnicodeTokenizer() if tokenize == "unicode" else tokenizers.CharacterTokenizer()
    scorer = rs_scorer.RougeScorer(list(types), tokenizer=tokenizer)
    results = [scorer.score_multi(refs, hyp) for hyp, refs in zip(hypotheses, references)]
    return {
        f"{rouge_type}_{measure}": [getattr(result[rouge_type], measure) for result in results]
        for rouge_type in types
        for measure in ("precision", "recall", "fmeasure")
    }


@pytest.mark.parametrize("tokenize", ["unicode", "char"])
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    batch=st.lists(
        st.tuples(multilingual_texts, st.lists(multilingual_texts, min_size=1, max_size=3)), min_size=1, max_size=6
    )
)
def test_unicode_and_char_tokens_score_as_rouge_score_rs(tokenize, batch):
    hypotheses, references = (list(side) for side in zip(*batch))
    expected = expected_unicode_scores(hypotheses, references, ALL_TYPES, tokenize)
    got = sentence_rouge(hypotheses, references, rouge_types=ALL_TYPES, tokenize=tokenize)
    assert {key: values.tolist() for key, values in got.items()} == expected
    metric = ROUGEScore(rouge_types=ALL_TYPES, tokenize=tokenize)
    metric.update(hypotheses, references)
    for key, value in metric.compute().items():
        assert value.item() == pytest.approx(float(np.mean(expected[key])), abs=1e-14)


@pytest.mark.parametrize("tokenize", ["unicode", "char"])
def test_unicode_and_char_tokens_of_several_languages(tokenize):
    cases = [  # German, Cyrillic, Chinese, Japanese, Korean, Hindi; summaries of several lines
        ("Die Straße ist nass.\nÄpfel fallen.", ["Die STRASSE ist trocken.\nDie Äpfel fallen nicht."]),
        ("Москва — столица России.", ["Столица России — Москва!", "Москва большая."]),
        ("今天天气很好。\n我们去公园。", ["今天天气不好。", "我们今天去公园。"]),
        ("東京タワーに行きました", ["東京スカイツリーに行きました"]),
        ("한국어를 공부합니다", ["한국어를 배웁니다"]),
        ("नमस्ते, आप कैसे हैं?", ["नमस्ते! आप कैसे हो?"]),
        ("", ["Москва"]),
        ("!!! ...", ["?"]),
    ]
    hypotheses, references = (list(side) for side in zip(*cases))
    expected = expected_unicode_scores(hypotheses, references, ALL_TYPES, tokenize)
    got = sentence_rouge(hypotheses, references, rouge_types=ALL_TYPES, tokenize=tokenize)
    assert {key: values.tolist() for key, values in got.items()} == expected
    assert got["rouge1_fmeasure"][:6].min() > 0  # every language's words count


@pytest.mark.parametrize("tokenize", ["unicode", "char"])
def test_stemming_is_refused_with_unicode_and_char_tokens(tokenize):
    message = f"use_stemmer=True stems English words; it goes with tokenize='default', not '{tokenize}'"
    with pytest.raises(ValueError, match=re.escape(message)):
        ROUGEScore(tokenize=tokenize, use_stemmer=True)
    with pytest.raises(ValueError, match=re.escape(message)):
        sentence_rouge(["a"], ["a"], tokenize=tokenize, use_stemmer=True)


def test_statistics_give_the_scores():
    hypotheses, references = CORPUS_LINES[:10], [[line, CORPUS_LINES[0]] for line in CORPUS_LINES[10:20]]
    statistics = rouge_statistics(hypotheses, references, use_stemmer=True)
    assert statistics.shape == (10, 4, 3) and statistics.dtype == torch.int64
    scores = sentence_rouge(hypotheses, references, use_stemmer=True)
    recomputed = rouge_scores(statistics)
    assert torch.equal(recomputed[:, 0, 2], scores["rouge1_fmeasure"])
    assert torch.equal(recomputed[:, 3, 1], scores["rougeLsum_recall"])


@pytest.mark.skipif(not WMT17.is_dir(), reason="needs ../shared/data/wmt17-en-de")
def test_wmt17_summaries_score_as_rouge_score():
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    system = sorted(WMT17.glob("sys.*"))[0].read_text(encoding="utf-8").splitlines()
    summaries = [["\n".join(lines[i : i + 3]) for i in range(0, 90, 3)] for lines in (system, reference)]
    assert_equal_to_rouge_score(*summaries, types=DEFAULT_TYPES, use_stemmer=True)


@pytest.mark.slow
@pytest.mark.skipif(not WMT17.is_dir(), reason="needs ../shared/data/wmt17-en-de")
def test_whole_wmt17_systems_score_as_rouge_score():
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    for path in sorted(WMT17.glob("sys.*"))[:2]:
        system = path.read_text(encoding="utf-8").splitlines()
        summaries = [
            ["\n".join(lines[i : i + 3]) for i in range(0, len(lines) - 2, 3)] for lines in (system, reference)
        ]
        assert_equal_to_rouge_score(*summaries, types=DEFAULT_TYPES, use_stemmer=True)
        assert_equal_to_rouge_score(system, reference, types=ALL_TYPES)


def test_long_documents(sizes):
    rng = random.Random(7)
    words = [f"w{rng.randint(0, 40)}" for _ in range(700)]
    hypothesis = " ".join(words[:400]) + "\n" + " ".join(words[400:])
    reference = " ".join(rng.sample(words, 500)).replace("w1 ", "w1\n")
    assert_equal_to_rouge_score([hypothesis], [reference], types=DEFAULT_TYPES)


# --- ids ------------------------------------------------------------------------------------------------

PAD, EOS, SEP = 0, 1, 2


def as_text(row, eos=EOS, sep=SEP):
    """A row of ids as the text rouge-score reads the same way: its words, a newline at each separator."""
    kept = []
    for token in row:
        if token == eos:
            break
        if token != PAD:
            kept.append("\n" if token == sep else str(token))
    return " ".join(kept)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_padded_ids_score_as_their_words(sizes, seed):
    rng = random.Random(seed)
    batch, width, refs = rng.randint(1, 5), rng.randint(0, 14), rng.randint(1, 3)
    preds = torch.tensor([[rng.randint(0, 7) for _ in range(width)] for _ in range(batch)], dtype=torch.long)
    target = torch.tensor(
        [[[rng.randint(0, 7) for _ in range(width + 1)] for _ in range(refs)] for _ in range(batch)], dtype=torch.long
    )
    preds = preds.reshape(batch, width)
    got = sentence_rouge(preds, target, rouge_types=ALL_TYPES, ignore_ids=[PAD], eos_id=EOS, sentence_sep_id=SEP)
    hypotheses = [as_text(row) for row in preds.tolist()]
    references = []
    for rows in target.tolist():
        texts = [as_text(row) for row in rows]
        present = [text for text, row in zip(texts, rows) if any(t != PAD for t in row)] or texts[:1]
        references.append(present)
    expected = expected_scores(hypotheses, references, ALL_TYPES)
    assert {key: values.tolist() for key, values in got.items()} == expected


def test_ragged_ids_and_no_separator():
    preds = [[5, 6, 7, 2, 8], [9]]
    target = [[[5, 6, 2, 7, 8], [9, 9]], [[3, 9]]]
    got = sentence_rouge(preds, target)
    expected = expected_scores(["5 6 7 2 8", "9"], [["5 6 2 7 8", "9 9"], ["3 9"]], DEFAULT_TYPES)
    assert {key: values.tolist() for key, values in got.items()} == expected


def test_update_runs_on_meta():
    metric = ROUGEScore(ignore_ids=[PAD], eos_id=EOS, sentence_sep_id=SEP).to("meta")
    metric.update(torch.tensor([[3, 4, 2, 5, 1, 0]], device="meta"), torch.tensor([[[3, 2, 5, 4]]], device="meta"))
    assert metric.score_sums.device.type == "meta"


@pytest.mark.parametrize(("vocabulary", "sizes"), SUBWORD_CASES, indirect=True)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), as_strings=st.booleans(), use_stemmer=st.booleans())
def test_subword_ids_score_as_their_decoded_text(vocabulary, sizes, seed, as_strings, use_stemmer):
    rng = random.Random(seed)
    hypotheses = vocabulary.random_rows(rng, count=3, longest=14)
    hypotheses[0] = vocabulary.encode(CORPUS_LINES[seed % len(CORPUS_LINES)] + "\n" + CORPUS_LINES[0])
    targets = vocabulary.random_rows(rng, count=3, longest=14)
    targets[1] = vocabulary.encode(CORPUS_LINES[(seed + 1) % len(CORPUS_LINES)])
    reference_text = [vocabulary.decode(row) for row in targets]
    got = sentence_rouge(
        hypotheses,
        reference_text if as_strings else [[row] for row in targets],
        detokenizer=vocabulary.detokenizer,
        use_stemmer=use_stemmer,
    )
    decoded = [vocabulary.decode(row) for row in hypotheses]
    expected = expected_scores(decoded, reference_text, DEFAULT_TYPES, use_stemmer)
    assert {key: values.tolist() for key, values in got.items()} == expected


# --- the metric -------------------------------------------------------------------------------------------


def test_metric_weight_merge_checkpoint_and_refuse_bad_input():
    hyps, refs = CORPUS_LINES[:6], CORPUS_LINES[6:12]
    whole, first, second = ROUGEScore(), ROUGEScore(), ROUGEScore()
    whole.update(hyps, refs)
    first.update(hyps[:3], refs[:3])
    second.update([*hyps[3:], "x y z"], [*refs[3:], "a"], weight=torch.tensor([1, 1, 1, 0], dtype=torch.uint8))
    first.merge_state(second)
    expected = expected_scores(hyps, refs, DEFAULT_TYPES)
    for metric in (whole, first):
        result = metric.compute()
        assert set(result) == set(expected)
        for key, values in expected.items():
            assert result[key].item() == pytest.approx(float(np.mean(values)), abs=1e-14)
    assert all(torch.equal(whole.compute()[key], first.compute()[key]) for key in expected)
    before = {name: getattr(first, name).clone() for name in ROUGEScore.state_names}
    for preds, target in ((hyps[:2], refs[:1]), (hyps[:1], [[]]), (torch.tensor([[1.0]]), refs[:1])):
        with pytest.raises((ValueError, TypeError)):
            first.update(preds, target)
    with pytest.raises(ValueError, match="use_stemmer"):
        ROUGEScore(use_stemmer=True).update(torch.tensor([[1]]), torch.tensor([[1]]))
    assert all(torch.equal(getattr(first, name), before[name]) for name in ROUGEScore.state_names)
    with pytest.raises(ValueError, match="counted otherwise"):
        first.merge_state(ROUGEScore(use_stemmer=True))
    restored = ROUGEScore()
    first.persistent(True)
    restored.load_state_dict(first.state_dict())
    assert all(torch.equal(restored.compute()[key], whole.compute()[key]) for key in expected)


def aggregator_intervals(hypotheses, references, types, resamples, seed, repeats=None):
    """rouge-score's ``BootstrapAggregator(0.95, resamples).aggregate()`` after ``np.random.seed(seed)``, each
    sentence's scores added ``repeats`` times, in order; NumPy's global random state restored after."""
    scorer = rouge_scorer.RougeScorer(list(types))
    aggregator = scoring.BootstrapAggregator(confidence_interval=0.95, n_samples=resamples)
    for hypothesis, reference, repeat in zip(hypotheses, references, repeats or [1] * len(hypotheses)):
        for _ in range(repeat):
            aggregator.add_scores(scorer.score(reference, hypothesis))
    state = np.random.get_state()
    try:
        np.random.seed(seed)
        result = aggregator.aggregate()
    finally:
        np.random.set_state(state)
    return {name: (tuple(score.low), tuple(score.mid), tuple(score.high)) for name, score in result.items()}


@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_interval_equals_rouge_score_aggregator(seed):
    generator = random.Random(seed)
    hypotheses = ["\n".join(generator.sample(CORPUS_LINES, generator.randint(1, 3))) for _ in range(25)]
    references = ["\n".join(generator.sample(CORPUS_LINES, generator.randint(1, 3))) for _ in range(25)]
    metric = ROUGEScore(keep_sentences=True)
    metric.update(hypotheses[:10], references[:10])
    metric.update(hypotheses[10:], references[10:])
    state = np.random.get_state()
    intervals = metric.confidence_interval(resamples=200, seed=seed)
    assert intervals == aggregator_intervals(hypotheses, references, DEFAULT_TYPES, 200, seed)
    assert list(intervals) == list(DEFAULT_TYPES)
    assert all(isinstance(value, float) for bounds in intervals.values() for score in bounds for value in score)
    assert all(np.array_equal(a, b) for a, b in zip(np.random.get_state(), state))  # global state untouched


def test_interval_with_weights_indices_and_merged_states():
    hypotheses, references = CORPUS_LINES[:12], CORPUS_LINES[12:24]
    weights = [1, 0, 2, 1, 3, 1, 1, 0, 1, 2, 1, 1]
    expected = aggregator_intervals(hypotheses, references, ("rougeL", "rouge2"), 300, 3, repeats=weights)
    first = ROUGEScore(rouge_types=("rougeL", "rouge2"), keep_sentences=True)
    second = first.clone()
    order = list(range(12))
    random.Random(1).shuffle(order)  # updates in shuffled order, dataset order restored from the indices
    for metric, part in ((first, order[:5]), (second, order[5:])):
        metric.update(
            [hypotheses[i] for i in part],
            [references[i] for i in part],
            weight=torch.tensor([weights[i] for i in part], dtype=torch.uint8),
            indices=torch.tensor(part),
        )
    first.merge_state(second)
    assert first.confidence_interval(resamples=300, seed=3) == expected


def test_interval_of_averaged_references_and_refusals():
    hypotheses, references = CORPUS_LINES[:8], [[CORPUS_LINES[8 + i], CORPUS_LINES[16 + i]] for i in range(8)]
    metric = ROUGEScore(rouge_types=("rouge1",), accumulate="avg", keep_sentences=True)
    metric.update(hypotheses, references)
    scores = sentence_rouge(hypotheses, references, rouge_types=("rouge1",), accumulate="avg")
    matrix = torch.stack([scores[f"rouge1_{measure}"] for measure in ("precision", "recall", "fmeasure")], -1)
    expected = rouge_bootstrap({"rouge1": matrix.numpy()}, resamples=100, seed=5)["rouge1"]
    got = metric.confidence_interval(resamples=100, seed=5)["rouge1"]
    assert np.allclose(got, expected, rtol=0, atol=1e-16)
    with pytest.raises(ValueError, match="keep_sentences=True"):
        ROUGEScore().confidence_interval()
    with pytest.raises(ValueError, match="no sentences yet"):
        ROUGEScore(keep_sentences=True).confidence_interval()
    with pytest.raises(ValueError, match="resamples"):
        metric.confidence_interval(resamples=0)


def test_paired_tests_compare_the_first_types_mean_fmeasure():
    references = CORPUS_LINES[20:40]
    baseline, system = (ROUGEScore(rouge_types=("rougeL", "rouge1"), keep_sentences=True) for _ in range(2))
    baseline.update(CORPUS_LINES[:20], references)
    system.update(references[:10] + CORPUS_LINES[10:20], references)
    (bootstrap,) = paired_bootstrap(baseline, system, resamples=100)
    (randomization,) = paired_randomization(baseline, system, trials=100)
    assert bootstrap.score == randomization.score == system.compute()["rougeL_fmeasure"].item()
    assert 0 < bootstrap.p_value < 0.1 and 0 < randomization.p_value < 0.1
    kept = system.kept_corpus().statistics
    assert torch.equal(
        rouge_scores(kept[:, :3])[:, 2].cpu(),
        sentence_rouge(references[:10] + CORPUS_LINES[10:20], references, rouge_types=("rougeL",))["rougeL_fmeasure"],
    )


def test_options_are_checked_and_migrants_advised():
    for bad, match in (
        ({"rouge_types": ("rouge0",)}, "rouge0"),
        ({"rouge_types": ("rouge10",)}, "orders run from 1 to 9"),
        ({"rouge_types": ()}, "empty"),
        ({"tokenize": "unicode", "use_stemmer": True}, "use_stemmer"),
        ({"accumulate": "max"}, "accumulate"),
        ({"sentence_sep_id": -1}, "sentence_sep_id"),
    ):
        with pytest.raises(ValueError, match=match):
            ROUGEScore(**bad)
    for name, match in (
        ("rouge_keys", "rouge_types"),
        ("use_aggregator", "sentence_rouge"),
        ("tokenizer", "tokenize="),
    ):
        with pytest.raises(TypeError, match=match):
            ROUGEScore(**{name: None})
        with pytest.raises(TypeError, match=match):
            corpus_rouge(["a"], ["a"], **{name: None})
    with pytest.raises(TypeError, match="use_stemmer=True"):
        ROUGEScore(True)


def _rouge_on_rank(rank: int, world_size: int, store: str, out_dir: str) -> None:
    torch.set_num_threads(1)
    timeout = timedelta(seconds=60)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world_size, timeout=timeout)
    metric = ROUGEScore()
    metric.update(CORPUS_LINES[rank:40:world_size], CORPUS_LINES[40 + rank : 80 : world_size])
    torch.save({key: value.item() for key, value in metric.compute().items()}, Path(out_dir) / f"rank{rank}.pt")
    dist.destroy_process_group()


@pytest.mark.slow  # merge_state runs by default
@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo")
def test_ddp_ranks_give_the_single_process_score(tmp_path):
    start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    mp.start_processes(
        _rouge_on_rank, args=(2, str(tmp_path / "store"), str(tmp_path)), nprocs=2, start_method=start_method
    )
    single = ROUGEScore()
    single.update(CORPUS_LINES[:40], CORPUS_LINES[40:80])
    expected = {key: value.item() for key, value in single.compute().items()}
    for rank in range(2):
        assert torch.load(tmp_path / f"rank{rank}.pt") == expected


def test_odd_but_valid_input(sizes):
    """Empty batches, empty rows, narrow integer dtypes and non-contiguous views just work."""
    for preds, target in (
        ([], []),
        (torch.zeros((0, 5), dtype=torch.long), torch.zeros((0, 5), dtype=torch.long)),
        (torch.zeros((2, 0), dtype=torch.long), torch.zeros((2, 0), dtype=torch.long)),
    ):
        scores = sentence_rouge(preds, target)
        assert all(values.shape == (len(preds),) and not values.any() for values in scores.values())
        assert all(value.item() == 0 for value in corpus_rouge(preds, target).values())
    view = torch.tensor([[1, 9, 2, 9, 3]], dtype=torch.int32)[:, ::2]
    got = sentence_rouge(view, torch.tensor([[3, 1, 2, 2]], dtype=torch.int16))
    assert {key: values.tolist() for key, values in got.items()} == expected_scores(
        ["1 2 3"], ["3 1 2 2"], DEFAULT_TYPES
    )


@pytest.mark.parametrize("option", [{"eos_id": 2}, {"ignore_ids": [0]}])
def test_strings_refuse_the_options_of_ids(option):
    """Text has no ids to drop or to end at: the options of ids are refused with strings, as WER refuses them."""
    metric = ROUGEScore(**option)
    with pytest.raises(ValueError, match=f"{next(iter(option))} applies to rows of token ids; ROUGE reads strings"):
        metric.update(["a b"], ["a b"])
    with pytest.raises(ValueError, match="applies to rows of token ids"):
        corpus_rouge(["a b"], ["a b"], **option)
    assert metric.sentences.item() == 0

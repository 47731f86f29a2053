"""The host's ROUGE kernels and the host's tokenizer against rouge-score 0.1.2 itself: LCS lengths, the
union LCS of every reference sentence (bit-vectors in Python integers, many pairs in one; rouge-score's
backtrack and its tie rule), every type's hits, and the words of text, on adversarial input (few
distinct words, repeats, ties, empty rows and lines, rows of many machine words, many pairs at once)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torch_bleu import sentence_rouge
from torch_bleu.metrics.rouge import host_statistics, host_union_lcs
from torch_bleu.metrics.rouge.host_statistics import host_pair_statistics
from torch_bleu.metrics.rouge.kinds import LCS, NGrams, RougeKind, UnionLCS
from torch_bleu.metrics.rouge.words import text_words

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
tokenize = pytest.importorskip("rouge_score.tokenize")

#: A summary: sentences of words from a tiny vocabulary (repeats and ties everywhere), some sentences empty.
sentences = st.lists(st.lists(st.integers(0, 3), max_size=12), max_size=4)
long_sentences = st.lists(st.lists(st.integers(0, 5), min_size=60, max_size=140), min_size=1, max_size=2)


def _rows(summaries: list[list[list[int]]], pad: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Padded word rows, the sentence of each word and the lengths (empty sentences dropped, as rouge-score does)."""
    words = [[word for sentence in summary for word in sentence] for summary in summaries]
    lines = [[number for number, sentence in enumerate(summary) for _ in sentence] for summary in summaries]
    width = max(map(len, words), default=0)
    ids = np.array([row + [pad] * (width - len(row)) for row in words], dtype=np.int64).reshape(len(words), width)
    line_ids = np.array([row + [0] * (width - len(row)) for row in lines], dtype=np.int64).reshape(len(words), width)
    return ids, line_ids, np.array(list(map(len, words)), dtype=np.int64)


def _side(ids: np.ndarray, lines: np.ndarray, lengths: np.ndarray) -> host_union_lcs.SideWords:
    """One side of pairs from padded rows of words, the sentence of each word and the lengths."""
    inside = np.arange(ids.shape[1]) < lengths[:, None]
    return host_union_lcs.side_words(ids[inside], lines[inside], lengths, np.arange(lengths.shape[0]))


def _statistics(*rows: np.ndarray, kinds: tuple[RougeKind, ...]) -> np.ndarray:
    """The host's statistics of padded rows: the prediction's words, lines and lengths, then the reference's."""
    return host_pair_statistics(_side(*rows[:3]), _side(*rows[3:]), kinds)


def _expected_union(reference: list[list[int]], prediction: list[list[int]]) -> list[bool]:
    """rouge-score's union LCS words of every reference sentence, as marks over the reference's words."""
    candidates = [sentence for sentence in prediction if sentence]
    marks: list[bool] = []
    for sentence in (sentence for sentence in reference if sentence):
        taken: set[int] = set()
        for candidate in candidates:
            taken.update(rouge_scorer.lcs_ind(sentence, candidate))
        marks += [index in taken for index in range(len(sentence))]
    return marks


def _check(pairs: list[tuple[list[list[int]], list[list[int]]]]) -> None:
    ref, ref_lines, ref_length = _rows([reference for reference, _ in pairs], -1)
    pred, pred_lines, pred_length = _rows([prediction for _, prediction in pairs], -2)
    keys = np.arange(len(pairs))[:, None] * 10  # the union kernel reads words numbered apart pair by pair
    every = np.arange(len(pairs))
    sides = [_side(*side) for side in ((pred + keys, pred_lines, pred_length), (ref + keys, ref_lines, ref_length))]
    flat = host_union_lcs.union_lcs_on_host(*sides, every)
    marks = np.zeros(ref.shape, dtype=bool)
    marks[np.arange(ref.shape[1]) < ref_length[:, None]] = flat
    kinds = (NGrams(1), NGrams(2), LCS(), UnionLCS())
    statistics = _statistics(pred, pred_lines, pred_length, ref, ref_lines, ref_length, kinds=kinds)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"])
    for index, (reference, prediction) in enumerate(pairs):
        flat_ref = [word for sentence in reference for word in sentence]
        flat_pred = [word for sentence in prediction for word in sentence]
        table = rouge_scorer._lcs_table(flat_ref, flat_pred)
        assert statistics[index, 2, 0] == table[-1][-1]
        assert marks[index, : len(flat_ref)].tolist() == _expected_union(reference, prediction)
        assert not marks[index, len(flat_ref) :].any()
        assert statistics[index, :, 1].tolist() == [len(flat_pred), max(len(flat_pred) - 1, 0), *[len(flat_pred)] * 2]
        # rouge-score's scores from its tokens: the words as letters, the sentences as lines
        texts = [
            "\n".join(" ".join(chr(97 + word) for word in sentence) for sentence in side)
            for side in (reference, prediction)
        ]
        expected = scorer.score(*texts)
        for column, name in ((0, "rouge1"), (1, "rouge2"), (3, "rougeLsum")):
            hits, predicted = statistics[index, column, :2]
            assert expected[name].precision == (hits / predicted if predicted else 0.0)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(sentences, sentences), min_size=1, max_size=8))
def test_lcs_and_union_equal_rouge_score(pairs):
    _check(pairs)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(long_sentences, long_sentences | sentences), min_size=1, max_size=3))
def test_long_rows_equal_rouge_score(pairs):
    _check(pairs)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.lists(st.tuples(sentences, sentences), min_size=1, max_size=6), data=st.data())
def test_any_word_numbers_and_rows_as_lists_count_alike(monkeypatch, pairs, data):
    """Word ids anywhere in int64 (numbered another way where pairs times ids overflow) and rows handed to
    rapidfuzz as lists (where a pair has too many words for one UTF-16 unit each) change nothing."""
    ref, ref_lines, ref_length = _rows([reference for reference, _ in pairs], -1)
    pred, pred_lines, pred_length = _rows([prediction for _, prediction in pairs], -2)
    kinds = (NGrams(1), NGrams(2), NGrams(3), LCS(), UnionLCS())
    expected = _statistics(pred, pred_lines, pred_length, ref, ref_lines, ref_length, kinds=kinds)
    values = np.array(data.draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=4, max_size=4, unique=True)))
    huge = [np.where(rows >= 0, values[rows % 4], rows) for rows in (pred, ref)]
    found = _statistics(huge[0], pred_lines, pred_length, huge[1], ref_lines, ref_length, kinds=kinds)
    assert found.tolist() == expected.tolist()
    with monkeypatch.context() as patched:
        patched.setattr(host_statistics, "_UTF16_KEYS", 1)
        found = _statistics(pred, pred_lines, pred_length, ref, ref_lines, ref_length, kinds=kinds)
    assert found.tolist() == expected.tolist()


def test_many_pairs_in_several_groups(monkeypatch):
    monkeypatch.setattr(host_union_lcs, "GROUP", 3)  # several groups of regions, of different lengths
    rng = np.random.default_rng(0)
    pairs = [
        tuple(
            [rng.integers(0, 4, size=rng.integers(0, 9)).tolist() for _ in range(rng.integers(0, 4))] for _ in range(2)
        )
        for _ in range(40)
    ]
    _check(pairs)  # type: ignore[arg-type]


#: Text the default tokenizer reads in surprising ways, and words the stemmer changes or drops.
PIECES = [
    "The", "cats", "running", "ran", "a", "12", " ", ",", "\n", "\n\n", "\r\n", "\t", "\0", "\x01", "\x02",
    "Cristóbal", "\u212a", "\u0130STANBUL", "Москва", "ß", "generously", "caresses", "ponies", "aed", "oed",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=14).map(" ".join) | st.lists(
    st.sampled_from(PIECES), max_size=8
).map("".join)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(texts, min_size=1, max_size=4), use_stemmer=st.booleans())
def test_words_equal_rouge_score_tokens(batch, use_stemmer):
    stemmer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)._tokenizer if use_stemmer else None
    found = text_words(batch, use_stemmer=use_stemmer)
    spelled: dict[int, str] = {}
    starts = np.cumsum(found.lengths) - found.lengths
    for text, start, length in zip(batch, starts, found.lengths):
        lines = text.split("\n")
        expected = [
            (number, word)
            for number, line in enumerate(lines)
            for word in (stemmer.tokenize(line) if stemmer else tokenize.tokenize(line, None))
        ]
        ids = found.ids[start : start + length].tolist()
        assert len(ids) == len(expected)
        for number, (_, word) in zip(ids, expected):
            assert spelled.setdefault(number, word) == word  # one number, one word
        line_of = found.lines[start : start + length].tolist()
        assert [a == b for a, b in itertools.pairwise(line_of)] == [
            a[0] == b[0] for a, b in itertools.pairwise(expected)
        ]
    assert len(set(spelled.values())) == len(spelled)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(st.tuples(texts, texts), min_size=1, max_size=4))
def test_stemmed_scores_equal_rouge_score(batch):
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=True)
    scores = sentence_rouge([p for p, _ in batch], [r for _, r in batch], rouge_types=types, use_stemmer=True)
    for row, (prediction, reference) in enumerate(batch):
        expected = scorer.score(reference, prediction)
        for rouge_type in types:
            for measure in ("precision", "recall", "fmeasure"):
                assert scores[f"{rouge_type}_{measure}"][row].item() == getattr(expected[rouge_type], measure)

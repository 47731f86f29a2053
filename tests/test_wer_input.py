"""WER and CER at the edges of their input: batches that decode to nothing (every row EOS, empty
references: silence in speech recognition) give jiwer's zeros on the host and the device path, and
bad input is refused with an error naming the argument, leaving a metric's states untouched."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vocabularies import Vocabulary

from torch_bleu import (
    CERScore,
    WERScore,
    arrays,
    character_error_counts,
    corpus_cer,
    corpus_wer,
    error_measures,
    sentence_wer,
    word_error_counts,
)

jiwer = pytest.importorskip("jiwer")


@pytest.fixture(params=["sizes from data", "static sizes"])
def sizes(request, monkeypatch):
    """Counted on the host and as on an accelerator (sizes from shapes only)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return request.param


@pytest.fixture(scope="module")
def detokenizer():
    return Vocabulary("unigram").detokenizer


EOS = 2


@pytest.mark.parametrize("count", [word_error_counts, character_error_counts])
def test_batches_that_decode_to_nothing_count_nothing(sizes, detokenizer, count):
    every_row_ends = torch.full((3, 4), EOS)
    assert count(every_row_ends, torch.full((3, 5), EOS), detokenizer=detokenizer, eos_id=EOS).tolist() == [[0] * 4] * 3
    assert count(every_row_ends, ["", "", ""], detokenizer=detokenizer, eos_id=EOS).tolist() == [[0] * 4] * 3
    empty = torch.zeros((0, 4), dtype=torch.long)
    assert count(empty, empty, detokenizer=detokenizer).shape == (0, 4)
    unit = "character" if count is character_error_counts else "word"
    expected = jiwer.process_characters if unit == "character" else jiwer.process_words
    out = expected(["a b", "", "c"], ["", "", ""])
    counts = count(every_row_ends, ["a b", "", "c"], detokenizer=detokenizer, eos_id=EOS)
    assert counts.sum(0).tolist() == [out.hits, out.substitutions, out.deletions, out.insertions]


def test_metrics_of_silence_are_jiwers(sizes, detokenizer):
    for metric_class, measure in ((WERScore, jiwer.wer), (CERScore, jiwer.cer)):
        metric = metric_class(detokenizer=detokenizer, eos_id=EOS)
        metric.update(torch.full((2, 3), EOS), torch.full((2, 1), EOS))
        metric.update(torch.full((2, 3), EOS), ["", ""])
        assert metric.compute().item() == measure(["", ""], ["", ""]) == 0.0
    assert corpus_wer(torch.zeros((2, 0), dtype=torch.long), torch.zeros((2, 0), dtype=torch.long)).item() == 0.0
    assert corpus_cer([], []).item() == 0.0


def test_ids_options_are_refused_with_strings():
    for options in ({"eos_id": 2}, {"ignore_ids": [0]}):
        name = next(iter(options))
        with pytest.raises(ValueError, match=f"{name} applies to rows of token ids"):
            corpus_wer(["a b"], ["a b"], **options)
        metric = WERScore(**options)
        with pytest.raises(ValueError, match=name):
            metric.update(["a b"], ["a c"])
        assert metric.hits.item() == metric.substitutions.item() == 0
    assert sentence_wer(torch.tensor([[5, 2, 7]]), torch.tensor([[5, 6]]), eos_id=2).tolist() == [0.5]


def test_lists_of_words_are_blamed_on_the_argument_that_holds_them():
    with pytest.raises(TypeError, match=r"preds\[0\] is a list of strings"):
        corpus_wer([["a", "b"]], ["a b"])
    with pytest.raises(ValueError, match="one reference per hypothesis"):
        corpus_wer(["a b"], [["a", "b"]])


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    counts=st.lists(st.integers(0, 10**6), min_size=4, max_size=4),
    container=st.sampled_from(["list", "numpy", "tensor", "int32 tensor"]),
)
def test_error_measures_take_integer_counts_of_any_container(counts, container):
    expected = error_measures(torch.tensor(counts))
    given_counts = {
        "list": counts,
        "numpy": np.array(counts),
        "tensor": torch.tensor(counts),
        "int32 tensor": torch.tensor(counts, dtype=torch.int32),
    }[container]
    assert [value.item() for value in error_measures(given_counts)] == [value.item() for value in expected]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    counts=st.one_of(
        st.lists(st.floats(allow_nan=True), min_size=4, max_size=4).map(torch.tensor),
        st.lists(st.integers(-(10**6), 10**6), min_size=4, max_size=4)
        .filter(lambda values: min(values) < 0)
        .map(torch.tensor),
        st.lists(st.integers(0, 9), min_size=0, max_size=8).filter(lambda values: len(values) != 4).map(torch.tensor),
        st.lists(st.booleans(), min_size=4, max_size=4).map(torch.tensor),
        st.sampled_from(["abcd", None, {"hits": 1}, [[1, 2], [3]], 5]),
    )
)
def test_error_measures_refuse_what_are_not_counts(counts):
    with pytest.raises((TypeError, ValueError), match="counts must"):
        error_measures(counts)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    rows=st.lists(
        st.tuples(
            *2 * [st.lists(st.sampled_from([-(2**63), -1, 0xD7FF, 0xD800, 0x10F7FF, 0x10F800, 2**40]), max_size=6)]
        ),
        min_size=1,
        max_size=5,
    ),
    dtype=st.sampled_from([torch.int64, torch.int32]),
)
def test_ids_of_any_value_are_counted_as_their_words(sizes, rows, dtype):
    """Ids past the code points and around the surrogates count as words, negative ids as none (they are never
    token ids), on the host and the device path."""
    if dtype == torch.int32:
        rows = [tuple([max(-(2**31), min(token, 2**31 - 1)) for token in row] for row in pair) for pair in rows]
    width = max(len(row) for pair in rows for row in pair)
    preds, target = (
        torch.tensor([row + [7] * (width - len(row)) for row in side], dtype=dtype).reshape(len(rows), width)
        for side in zip(*rows)
    )
    counts = word_error_counts(preds, target, ignore_ids=[7])
    expected = []
    for pair in rows:
        hypothesis, reference = ([token for token in row if token >= 0] for row in pair)
        out = jiwer.process_words(" ".join(map(str, reference)), " ".join(map(str, hypothesis)))
        expected.append([out.hits, out.substitutions, out.deletions, out.insertions])
    assert counts.tolist() == expected

"""The flat-stream counting under chrF and BLEU: pair matches, segmented sorts, dense ranks, chrF++'s words and
word ids.

Each piece is checked against a plain Python statement of what it computes, on NumPy arrays and on
tensors, with sizes read from the data and with sizes from shapes alone (as on an accelerator), and
with keys too narrow for one stage (so that the staged path runs), with the pairs sorted whole and as short
rows, and with tokens ranked within each pair.
"""

from __future__ import annotations

import string
from collections import Counter

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu import CHRFConfig, arrays
from torch_bleu.engine import flat_pairs, keys, rowsort
from torch_bleu.engine.flat_pairs import PairStream, pair_matches
from torch_bleu.engine.keys import dense_ranks
from torch_bleu.engine.rowsort import Segments, sort_segments, sort_segments_with_order
from torch_bleu.metrics.chrf.counting import text_on
from torch_bleu.metrics.chrf.statistics import chrf_statistics
from torch_bleu.metrics.chrf.stream import pairs_from_strings
from torch_bleu.metrics.chrf.words import word_starts, word_stream
from torch_bleu.text.classes import character_classes

KINDS = ["numpy", "tensor, sizes from data", "tensor, static sizes"]


def as_kind(values: list[int] | np.ndarray, kind: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", kind != "tensor, static sizes")
    array = np.asarray(values, dtype=np.int64)
    return array if kind == "numpy" else torch.from_numpy(array)


def expected_matches(hypothesis: list[int], reference: list[int], max_order: int) -> list[int]:
    matches = []
    for order in range(1, max_order + 1):
        hyp = Counter(tuple(hypothesis[i : i + order]) for i in range(len(hypothesis) - order + 1))
        ref = Counter(tuple(reference[i : i + order]) for i in range(len(reference) - order + 1))
        matches.append(sum(min(count, ref[gram]) for gram, count in hyp.items()))
    return matches


token_rows = st.lists(st.integers(0, 3), max_size=12) | st.lists(st.integers(0, 2**62), max_size=6)
pair_lists = st.lists(st.tuples(token_rows, token_rows), max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    pairs=pair_lists,
    max_order=st.integers(1, 7),
    unused=st.integers(0, 4),
    key_bits=st.sampled_from([63, 24]),
    segmented=st.booleans(),
    within_pairs=st.booleans(),
)
@pytest.mark.parametrize("kind", KINDS)
def test_pair_matches_are_clipped_counts(kind, pairs, max_order, unused, key_bits, segmented, within_pairs):
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(keys, "KEY_BITS", key_bits)  # 24: several stages
        if segmented or within_pairs:  # on the host, the pairs sorted as short rows, as in a long stream
            monkeypatch.setattr(flat_pairs, "SEGMENTED_FROM_SLOTS", 0)
        if within_pairs:  # ranked within each pair on the host, wherever those keys fit
            monkeypatch.setattr(flat_pairs, "_one_stage", lambda *_: False)
        tokens, rows = [], []
        for number, (hypothesis, reference) in enumerate(pairs):
            tokens += hypothesis + reference
            rows += [2 * number] * len(hypothesis) + [2 * number + 1] * len(reference)
        tokens += [7] * unused  # slots in no row
        rows += [2 * len(pairs)] * unused
        token_array, row_array = as_kind(tokens, kind, monkeypatch), as_kind(rows, kind, monkeypatch)
        ranks, distinct = dense_ranks(token_array, row_array < 2 * len(pairs))
        matches = pair_matches(PairStream(ranks, row_array, len(pairs), distinct), max_order)
        assert matches.tolist() == [expected_matches(hyp, ref, max_order) for hyp, ref in pairs]


HOLDS = [rowsort.ROW_WIDTHS[0] // 2, *rowsort.ROW_WIDTHS[1:]]  # the longest segment each tier holds


@settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(
        st.integers(0, 5) | st.sampled_from([n + step for n in HOLDS for step in (-1, 0, 1)]) | st.integers(0, 2100),
        max_size=10,
    ),
    low=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_segments_sorted_as_short_rows_are_the_sorted_stream(lengths, low, seed):
    """Short segments share rows across row ends, longer ones take a row each of the narrowest width that
    holds them; the rows' sorts make up the stream's sort, with the segments too long for any row sorted
    beside them; with no segment that a row holds, there is no layout."""
    rng = np.random.default_rng(seed)  # a segment's values (up to 2100): drawn at once, not one by one
    values = np.concatenate(
        [(segment << low) + rng.integers(0, 1 << low, size=n, dtype=np.int64) for segment, n in enumerate(lengths)]
        or [np.zeros(0)]
    ).astype(np.int64)
    starts = np.cumsum([0, *lengths])[:-1].astype(np.int64)
    segments = Segments.of(starts, values.shape[0])
    if all(length > HOLDS[-1] for length in lengths):
        assert segments is None
        return
    assert segments is not None
    assert [tier.width for tier in segments.tiers] == sorted(
        {next(width for width, most in zip(rowsort.ROW_WIDTHS, HOLDS) if n <= most) for n in lengths if n <= HOLDS[-1]}
    )
    assert sort_segments(values, segments).tolist() == sorted(values.tolist())
    sorted_values, order = sort_segments_with_order(values, segments)
    assert sorted_values.tolist() == sorted(values.tolist())
    assert sorted(order.tolist()) == list(range(values.shape[0])) and values[order].tolist() == sorted_values.tolist()


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.integers(0, 2**40) | st.integers(0, 20), max_size=20),
    start=st.sampled_from([0, 1]),
    data=st.data(),
)
@pytest.mark.parametrize("kind", KINDS)
def test_dense_ranks_number_the_distinct_valid_values(kind, values, start, data):
    valid = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    with pytest.MonkeyPatch.context() as monkeypatch:
        array, mask = as_kind(values, kind, monkeypatch), as_kind(valid, kind, monkeypatch) > 0
        ranks, distinct = dense_ranks(array, mask, start=start)
    present = sorted({value for value, keep in zip(values, valid) if keep})
    expected = [present.index(value) + start if keep else start - 1 for value, keep in zip(values, valid)]
    assert ranks.tolist() == expected
    assert distinct == (len(values) if kind == "tensor, static sizes" else len(present))


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(
        st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 20) | st.integers(2**40, 2**40 + 9), max_size=20
    ),
    start=st.sampled_from([0, 1]),
)
@pytest.mark.parametrize("kind", KINDS)
def test_dense_ranks_number_any_int64(kind, values, start):
    with pytest.MonkeyPatch.context() as monkeypatch:
        ranks, distinct = dense_ranks(as_kind(values, kind, monkeypatch), start=start)
    present = sorted(set(values))
    assert ranks.tolist() == [present.index(value) + start for value in values]
    assert distinct == (len(values) if kind == "tensor, static sizes" else len(present))


@pytest.mark.parametrize("spread", [1, 3])
def test_dense_ranks_take_a_table_where_the_values_span_no_more_than_their_count(spread, monkeypatch):
    values = np.random.default_rng(spread).integers(0, spread * 100_000, size=100_000) - 2**40
    if spread == 1:  # beyond TABLE_RANKS_MAX, but within the count of values: no sort
        monkeypatch.setattr(keys, "sort_with_order", None)
    ranks, distinct = dense_ranks(values, start=0)
    unique, inverse = np.unique(values, return_inverse=True)
    assert ranks.tolist() == inverse.tolist() and distinct == unique.shape[0]


def sacrebleu_words(line: str) -> list[str]:
    """chrF++'s words, as sacrebleu's ``_remove_punctuation`` states them."""
    words = []
    for word in line.split():
        if len(word) > 1 and word[-1] in string.punctuation:
            words += [word[:-1], word[-1]]
        elif len(word) > 1 and word[0] in string.punctuation:
            words += [word[0], word[1:]]
        else:
            words.append(word)
    return words


PIECES = [*"ab(),.!'-", "the", "cat", "(hi)", "long" * 5, "é", "猫", " ", "  ", "\t", "\u3000", "\u00a0"]
lines = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(lines, min_size=1, max_size=6))
@pytest.mark.parametrize("kind", KINDS)
def test_words_and_their_ids_are_sacrebleus(kind, rows):
    text = pairs_from_strings([[row, ""] for row in rows])
    with pytest.MonkeyPatch.context() as monkeypatch:
        chars, row_of = as_kind(text.chars, kind, monkeypatch), as_kind(text.rows, kind, monkeypatch)
        in_word, starts = word_starts(character_classes(chars), row_of)
        ranks, distinct = dense_ranks(chars, in_word)
        keep = in_word.nonzero()[0] if kind == "numpy" else in_word.nonzero()[:, 0]
        stream = PairStream(ranks[keep], row_of[keep], len(rows), distinct)
        words = word_stream(stream, starts[keep])
    expected = [(2 * index, word) for index, row in enumerate(rows) for word in sacrebleu_words(row)]
    ids, word_rows = words.ranks.tolist(), words.rows.tolist()
    assert word_rows[: len(expected)] == [row for row, _ in expected]
    assert all(row == 2 * len(rows) for row in word_rows[len(expected) :])  # slots in no row, if any
    for first in range(len(expected)):
        for second in range(len(expected)):
            assert (ids[first] == ids[second]) == (expected[first][1] == expected[second][1])


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.lists(lines, min_size=2, max_size=4), min_size=1, max_size=4), static=st.booleans())
def test_tensors_count_what_numpy_counts(texts, static):
    config = CHRFConfig(word_order=2)
    text = pairs_from_strings(texts)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", not static)
        on_tensors = chrf_statistics(text_on(text, torch.device("cpu")), config)
    assert on_tensors.tolist() == chrf_statistics(text, config).tolist()


def test_text_on_meta_is_counted_without_data():
    text = text_on(pairs_from_strings([["a cat", "the cat", "a dog"]]), torch.device("meta"))
    statistics = chrf_statistics(text, CHRFConfig(word_order=2))
    assert statistics.shape == (1, 8, 3) and statistics.device.type == "meta"

"""Exact word ids through a hash table (:mod:`torch_bleu.text.word_table`), against numbering the words in
Python: random words over small and large alphabets, by the dictionary that numbers a few words and by
the table (the dictionary's bound set to 0), and with every word forced into one slot or every hash
forced equal, so that the checked rounds and the dictionary at the end do all the work."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu.text import word_table
from torch_bleu.text.word_table import word_ids

alphabets = st.sampled_from([[1, 2], [0, 1, 2, 3], [-(2**62), 0, 2**62], [0x10FFFF, 0x4E2D, 97, 98]])


@st.composite
def word_lists(draw: st.DrawFn) -> list[list[int]]:
    alphabet = draw(alphabets)
    word = st.lists(st.sampled_from(alphabet), min_size=1, max_size=draw(st.sampled_from([3, 12, 300])))
    vocabulary = draw(st.lists(word, min_size=1, max_size=12))
    return draw(st.lists(st.sampled_from(vocabulary), max_size=60))


def numbered_in_python(words: list[list[int]]) -> tuple[list[int], int]:
    ids: dict[tuple[int, ...], int] = {}
    return [ids.setdefault(tuple(word), len(ids)) for word in words], len(ids)


def ids_of(words: list[list[int]]) -> tuple[list[int], int]:
    codes = np.array([code for word in words for code in word], dtype=np.int64)
    first = np.cumsum([0, *map(len, words)])[:-1].astype(np.int64)
    ids, count = word_ids(codes, first)
    assert ids.dtype == np.int64 and ids.shape == (len(words),)
    return ids.tolist(), count


@settings(max_examples=300, deadline=None)
@given(words=word_lists(), dictionary_words=st.sampled_from([0, 3, word_table.DICTIONARY_WORDS]))
def test_ids_number_the_words_in_order_of_first_appearance(words, dictionary_words):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(word_table, "DICTIONARY_WORDS", dictionary_words)
        assert ids_of(words) == numbered_in_python(words)


def test_a_non_contiguous_stream_of_any_integer_dtype():
    codes = np.array([5, 0, 6, 0, 5, 0, 6, 0, 5, 0], dtype=np.int16)[::2]  # "ab ab a"
    assert word_ids(codes, np.array([0, 2, 4]))[0].tolist() == [0, 0, 1]


@settings(max_examples=100, deadline=None)
@given(words=word_lists())
def test_words_in_one_slot_go_through_every_round_to_the_dictionary(words):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(word_table, "DICTIONARY_WORDS", 0)
        patch.setattr(word_table, "ROUND_MIXERS", (np.uint64(0),) * 3)  # every word: slot 0
        assert ids_of(words) == numbered_in_python(words)


@settings(max_examples=100, deadline=None)
@given(words=word_lists())
def test_equal_hashes_are_told_apart_by_the_characters(words):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(word_table, "DICTIONARY_WORDS", 0)
        patch.setattr(word_table, "_hashes", lambda codes, first, last: np.zeros(first.shape[0], np.uint64))
        assert ids_of(words) == numbered_in_python(words)


def test_stream_longer_than_the_powers_kept(monkeypatch):
    monkeypatch.setattr(word_table, "DICTIONARY_WORDS", 0)
    monkeypatch.setattr(word_table, "POWERS_KEPT", 8)
    monkeypatch.setattr(word_table, "_powers", (np.ones(1, dtype=np.uint64),) * 2)
    words = [[7, 8], [9] * 20, [7, 8], [9] * 19]
    assert ids_of(words) == ([0, 1, 0, 2], 3)
    assert word_table._powers[0].shape[0] <= 8

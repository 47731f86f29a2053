"""ROUGE's Unicode words and characters equal rouge-score-rs' ``UnicodeTokenizer`` (profile ``unicode-v1``)
and ``CharacterTokenizer`` (``character-v1``), token for token, over random text of every category and
over text built from the pieces where word and grapheme rules have their exceptions.

Generated characters are those assigned in Python's ``unicodedata`` (so in every Unicode version since),
as the module's docstring promises equality for them only.
"""

# ruff: noqa: RUF001  (text in many scripts, fullwidth and compatibility forms on purpose)

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu.metrics.rouge.unicode_tokens import (
    char_token_lists,
    char_tokens,
    normalized,
    unicode_token_lists,
    unicode_tokens,
)

tokenizers = pytest.importorskip("rouge_score_rs.tokenizers")
WORDS = tokenizers.UnicodeTokenizer()
CHARACTERS = tokenizers.CharacterTokenizer()

#: Characters of every word and grapheme break class, and the ones their rules single out.
SPECIAL = (
    "a1Z9 .,;:'\"’‘\u2024\ufe52\uff0e\uff07_\u203f-\t\r\n\x0b\x85\u2028\u00a0\u3000"  # letters, digits, middles, spaces
    "\u0301\u0363\u093f\u0903\u200c\u200d\u2060\u00ad\ufe0f\U0001f3fb"  # marks, joiners, formats
    "\u05d0\u05e9\u05f3\u05f4\u0627\u0600"  # Hebrew, Arabic (prepend)
    "\u30ab\u30fc\uff76\u309b\u3005\u4e00\u3042"  # Katakana, ideographs, Hiragana
    "\u0915\u0937\u0930\u094d\u09cd\u0995\u0d4e"  # Indic consonants and viramas
    "\u1100\u1161\u11a8\uac00\uac01"  # Hangul jamo and syllables
    "\u0e01\u0e31\u0e33\u0e40"  # Thai
    "\U0001f468\U0001f469\u2764\u2648\U0001f1fa\U0001f1f8\u00a9\U0001f170\u2139\u24c2"  # emoji, flags, letter emoji
    "\u00bd\u00b2\u2167\u0661\uff11\u00df\u0130\u01c4\ufb01\u212a"  # numbers and letters that normalize
)
#: Whole pieces: contractions, numbers with separators, emoji sequences, conjuncts, scripts.
PIECES = (
    "don't", "3.14", "1,000", "foo_bar", "a:b", "U.S.A.", "l'homme", "שָׁלוֹם", 'צה"ל', "ה'",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467", "🇺🇸", "✌🏽", "क्ष", "क्\u200dष", "स्ते", "ক্ষ",
    "\u1100\u1161\u11a8", "한국어", "สวัสดี", "東京タワー", "مرحبا", "Straße", "ＳＴＲＡＳＳＥ", "İstanbul",
)  # fmt: skip


def assigned(character: str) -> bool:
    return unicodedata.category(character) not in ("Cn", "Cs")


any_character = st.characters(blacklist_categories=("Cn", "Cs"))
texts = st.one_of(
    st.text(st.one_of(st.sampled_from(SPECIAL), any_character), max_size=16),
    st.lists(st.one_of(st.sampled_from(PIECES), st.sampled_from(SPECIAL)), max_size=10).map("".join),
    st.text(any_character, max_size=30),
)


@settings(max_examples=300)
@given(texts)
def test_words_equal_rouge_score_rs(text):
    assert unicode_tokens(text) == WORDS.tokenize(text)


@settings(max_examples=300)
@given(texts)
def test_characters_equal_rouge_score_rs(text):
    assert char_tokens(text) == CHARACTERS.tokenize(text)


@settings(max_examples=50)
@given(st.lists(texts, max_size=6))
def test_batches_equal_single_texts(batch):
    assert unicode_token_lists(batch) == [unicode_tokens(text) for text in batch]
    assert char_token_lists(batch) == [char_tokens(text) for text in batch]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Don't stop: 3.14, 1,000 foo_bar a.b.c", ["don't", "stop", "3.14", "1,000", "foo_bar", "a.b.c"]),
        ("STRASSE Straße ｓｔｒａｓｓｅ", ["strasse"] * 3),
        ("ǅ ﬁ ½ ² Ⅷ K", ["dž", "fi", "1⁄2", "2", "viii", "k"]),  # compatibility forms and the Kelvin sign
        ("東京タワー ｶﾀｶﾅ", ["東", "京", "タワー", "カタカナ"]),
        ("สวัสดี", ["ส", "วั", "ส", "ดี"]),  # Thai is not split into words
        # a mark that is a letter (U+0363) at the start is a word of its own; after a space, it is one with it
        ("\u0363a \u0363", ["\u0363", "a", " \u0363"]),
        # a zero width joiner and an emoji: the word takes them in and ends after the emoji
        ("a:\u200d\U0001f468b", ["a:\u200d\U0001f468", "b"]),
        ("1,\u200d\U0001f468", ["1,\u200d\U0001f468"]),
        ("a\u200d\U0001f170b", ["a\u200d\U0001f170", "b"]),
        ("a:\U0001f468", ["a"]),
    ],
)
def test_words_where_rules_meet(text, words):
    assert unicode_tokens(text) == words == WORDS.tokenize(text)


@pytest.mark.parametrize(
    ("text", "characters"),
    [
        ("नमस्ते क्षत्रिय", ["न", "म", "स्ते", "क्ष", "त्रि", "य"]),  # conjuncts (GB9c)
        ("一\u094d\u0937", ["一\u094d", "\u0937"]),  # a virama after no consonant joins nothing
        ("\u094d\u0915", ["\u0915"]),
        ("\u1100\u1100\u1161\u11a8\u11a8 한", ["\u1100\uac01\u11a8", "한"]),  # jamo, composed where they can
        ("\U0001f468\u200d\U0001f469 \U0001f1fa\U0001f1f8 x\u0301", ["x\u0301"]),
    ],
)
def test_characters_where_rules_meet(text, characters):
    assert char_tokens(text) == characters == CHARACTERS.tokenize(text)


def test_normalization_is_nfkc_casefold_nfkc():
    assert normalized("ᾼ ﬃ İ ẞ Ω") == "αι ffi i̇ ss ω"


def test_empty_and_blank_texts_have_no_tokens():
    assert unicode_token_lists(["", " ", "!?", "\U0001f600"]) == [[], [], [], []]
    assert char_token_lists([]) == unicode_token_lists([]) == []


@pytest.mark.slow
def test_every_assigned_character_in_every_context():
    contexts = ("{}", "a{}a", "1{}1", "{}\u0301", "\u0915\u094d{}", "{}{}", "\u200d{}", "{}\u200d\U0001f468")
    contexts += ("\u05d0{}\u05d0", "\u30ab{}", "\U0001f1fa{}", "\u1100{}", "{}\u11a8", " {} ")
    texts = [context.format(c, c) for c in map(chr, range(0x110000)) if assigned(c) for context in contexts]
    assert unicode_token_lists(texts) == [WORDS.tokenize(text) for text in texts]
    assert char_token_lists(texts) == [CHARACTERS.tokenize(text) for text in texts]


def test_words_ask_for_a_regex_release_with_uax29_boundaries(monkeypatch):
    from torch_bleu.metrics.rouge import unicode_tokens as module

    monkeypatch.setattr(module.regex, "__version__", "2026.11.15")
    module._check_word_boundaries.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"regex>=2026\.11\.18"):
            unicode_tokens("a")
        assert char_tokens("a") == ["a"]  # the grapheme clusters are written out, any release will do
    finally:
        module._check_word_boundaries.cache_clear()

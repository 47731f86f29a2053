"""ROUGE's tokens for text in any script: the words and the characters of rouge-score-rs' profiles
``unicode-v1`` (its ``UnicodeTokenizer``) and ``character-v1`` (its ``CharacterTokenizer``).

Both profiles first normalize the text: NFKC, full case folding, NFKC again (``"Straße"``,
``"STRASSE"`` and ``"ｓｔｒａｓｓｅ"`` all become ``"strasse"``). Then

* :func:`unicode_tokens` splits it at the word boundaries of Unicode's UAX #29 and keeps every piece
  that holds a letter or a digit (a character with the ``Alphabetic`` property or of general category
  ``N``), punctuation inside a word included (``"don't"``, ``"3.14"``, ``"1,000"``, ``"foo_bar"``);
  each Chinese or Japanese ideograph is a word of its own, Thai, Lao, Khmer and Burmese are not split
  into words (each of their letters is a piece), no word is stemmed;
* :func:`char_tokens` splits it into extended grapheme clusters (UAX #29: a letter with its combining
  marks, a Hangul syllable, an Indic conjunct) and keeps those holding a letter or a digit.

The word boundaries are the ones of the Rust crate ``unicode-segmentation`` that rouge-score-rs uses,
which follow UAX #29 except in one place: a zero width joiner followed by an emoji (an
``Extended_Pictographic`` character) ends the word right after the emoji, and ties it to a word
before it even across a single punctuation mark (``"a:<ZWJ><emoji>"`` is one piece, where UAX #29 breaks
before the colon). Both are rules here; the rest are those of the ``regex`` package's ``(?w)\\b``,
which follows UAX #29 from its release 2026.11.18 on (earlier releases break words elsewhere too, so
the words ask for that release or a later one and raise an ``ImportError`` that says so). The
grapheme clusters are written out below from UAX #29's rules, because the ``regex`` package's ``\\X``
follows a later version of the Indic conjunct rule (GB9c) than rouge-score-rs.

Unicode versions. rouge-score-rs uses Unicode 17.0 throughout. Here the normalization and the case
folding come from Python's ``unicodedata`` (Unicode 14.0 on Python 3.11, 15.0 on 3.12, 15.1 on 3.13,
16.0 on 3.14), and the character properties (word and grapheme break classes, ``Alphabetic``,
``Extended_Pictographic``, the Indic conjunct classes, numbers) from the ``regex`` package (Unicode
18.0 in its releases since September 2026). Unicode's stability policies keep the normalization and
the case folding of a character fixed once it is assigned, so tokens can differ only for text holding
a character that

* was assigned after Python's ``unicodedata`` version and has a compatibility or canonical
  decomposition or a case folding: it is then neither decomposed, composed nor folded here (from
  Unicode 15.0: the Cyrillic modifier letters U+1E030..U+1E06D; from 16.0: the outlined Latin letters
  and digits U+1CCD6..U+1CCF9, the Garay capitals U+10D50..U+10D65, the capitals U+1C89, U+A7CB,
  U+A7CC, U+A7DA, U+A7DC, and the vowel signs of Tulu-Tigalari, Gurung Khema and Kirat Rai that
  compose from two; from 17.0: the Beria Erfe capitals U+16EA0..U+16EB8, the capitals U+A7CE, U+A7D2,
  U+A7D4, and U+A7F1), or
* is a combining mark (of a canonical combining class other than 0) assigned after Python's
  ``unicodedata`` version, such as U+0897 (16.0) and U+1E08F (15.0): NFKC leaves it where it stands
  rather than in canonical order among the marks beside it (``"a\\U0001E08F\\u0316"`` is another word
  than ``"a\\u0316\\U0001E08F"`` here, the same in rouge-score-rs), or
* is assigned in Unicode 18.0 but not in 17.0: rouge-score-rs drops it as an unassigned character,
  here it counts by its Unicode 18.0 properties (a letter is kept), or
* had a break class or ``Alphabetic`` changed between Unicode 17.0 and 18.0 (none of Unicode 14.0's
  characters did in a way these tokens see).

For text of characters assigned in Python's ``unicodedata`` (every character of Unicode 14.0), the
tokens equal rouge-score-rs' (its tokenizers are the tests' reference: random text of every category,
and every such character alone and in 14 contexts).
"""

# ruff: noqa: RUF002  (the examples show letters that normalize: fullwidth, compatibility forms)

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from itertools import compress
from unicodedata import normalize

import numpy as np
import regex  # type: ignore[import-untyped]  # sacrebleu's dependency, without type stubs

from ...text.unicode_classes import property_bits

#: Bits of :func:`_class_table`: a letter or a digit (what a kept word or character holds), and a character
#: that may share a grapheme cluster with the one before or after it (marks, joiners, Hangul jamo).
_LETTER_OR_DIGIT, _JOINS_CLUSTER = 1, 2
_CLASSES = (
    (_LETTER_OR_DIGIT, r"[\p{Alphabetic}\p{N}]+"),
    (_JOINS_CLUSTER, r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}\p{GCB=L}\p{GCB=V}\p{GCB=T}]+"),
)

#: The first release of ``regex`` whose ``(?w)\b`` follows UAX #29's word boundaries.
_WORD_BOUNDARIES_SINCE = (2026, 11, 18)
#: A piece of text between two of UAX #29's word boundaries (a word, a space, a punctuation mark, ...).
_WORD = regex.compile(r"(?ws).+?\b")
#: A zero width joiner followed by an emoji: text without one takes UAX #29's word boundaries as they are.
_JOINED_EMOJI = regex.compile(r"\u200d\p{Extended_Pictographic}")
#: What UAX #29's WB4 attaches to the character before it: marks, format characters, joiners.
_MARK_CLASSES = r"\p{WB=Extend}\p{WB=Format}\p{WB=ZWJ}"
_MARKS = rf"[{_MARK_CLASSES}]"
#: An emoji after a zero width joiner and what ``unicode-segmentation`` reads past it (marks, joiners,
#: further joined emoji) before its word ends.
_JOINED_EMOJI_SEQUENCE = regex.compile(
    rf"\u200d\p{{Extended_Pictographic}}(?:{_MARKS}*\u200d\p{{Extended_Pictographic}})*{_MARKS}*"
)
#: The last character of a word but for marks: its break class says which punctuation may continue the
#: word (UAX #29's WB6, WB7b, WB12).
_LAST_BASE = regex.compile(rf"([^{_MARK_CLASSES}]){_MARKS}*\Z")
_MIDDLE = {
    "ALetter": r"[\p{WB=MidLetter}\p{WB=MidNumLet}\p{WB=Single_Quote}]",
    "Hebrew_Letter": r"[\p{WB=MidLetter}\p{WB=MidNumLet}\p{WB=Single_Quote}\p{WB=Double_Quote}]",
    "Numeric": r"[\p{WB=MidNum}\p{WB=MidNumLet}\p{WB=Single_Quote}]",
}
#: Per break class of a word's last character: a punctuation mark that may continue it, then marks, a
#: joiner and an emoji, which ``unicode-segmentation`` keeps in the word (UAX #29 breaks before the mark).
_MIDDLE_THEN_EMOJI = [
    (regex.compile(rf"\p{{WB={name}}}"), regex.compile(rf"{middle}{_MARKS}*{_JOINED_EMOJI_SEQUENCE.pattern}"))
    for name, middle in _MIDDLE.items()
]

#: UAX #29's extended grapheme clusters (Unicode 15.1 to 17.0), as its Table 1b writes them.
_GRAPHEME_CLUSTER = regex.compile(
    r"""
    \r\n | [\p{GCB=Control}\r\n]
    | \p{GCB=Prepend}*
      (?: \p{GCB=L}* (?: \p{GCB=V}+ | \p{GCB=LV} \p{GCB=V}* | \p{GCB=LVT}) \p{GCB=T}*
        | \p{GCB=L}+ | \p{GCB=T}+
        | \p{GCB=RI} \p{GCB=RI}
        | \p{Extended_Pictographic} (?: \p{GCB=Extend}* \p{GCB=ZWJ} \p{Extended_Pictographic})*
        | \p{InCB=Consonant}
          (?: [\p{InCB=Extend}\p{InCB=Linker}]* \p{InCB=Linker} [\p{InCB=Extend}\p{InCB=Linker}]* \p{InCB=Consonant})+
        | [^\p{GCB=Control}\r\n]
      )
      [\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}]*
    """,
    regex.VERBOSE,
)


def normalized(text: str) -> str:
    """``text`` as both profiles read it: NFKC, full case folding, NFKC again.

    Example:
        >>> normalized("STRASSE Straße ｓｔｒａｓｓｅ ﬁ ½")
        'strasse strasse strasse fi 1⁄2'
    """
    return normalize("NFKC", normalize("NFKC", text).casefold())


def unicode_tokens(text: str) -> list[str]:
    """The tokens of rouge-score-rs' ``UnicodeTokenizer`` (profile ``unicode-v1``): the normalized text's
    words by UAX #29 that hold a letter or a digit.

    Example:
        >>> unicode_tokens("Don't pay 1,000 € for 3.14 ＫＧ of Straße-Äpfel!")
        ["don't", 'pay', '1,000', 'for', '3.14', 'kg', 'of', 'strasse', 'äpfel']
        >>> unicode_tokens("東京タワー, İstanbul и Москва")
        ['東', '京', 'タワー', 'i̇stanbul', 'и', 'москва']
    """
    return unicode_token_lists([text])[0]


def char_tokens(text: str) -> list[str]:
    """The tokens of rouge-score-rs' ``CharacterTokenizer`` (profile ``character-v1``): the normalized
    text's extended grapheme clusters that hold a letter or a digit.

    Example:
        >>> char_tokens("今天 天气, नमस्ते!")
        ['今', '天', '天', '气', 'न', 'म', 'स्ते']
        >>> char_tokens("한국어 Ǆ 👍🏽")
        ['한', '국', '어', 'd', 'ž']
    """
    return char_token_lists([text])[0]


def unicode_token_lists(texts: Sequence[str]) -> list[list[str]]:
    """:func:`unicode_tokens` of every text, the letters and digits looked up for all of them at once.

    Example:
        >>> unicode_token_lists(["The cat sat.", "", "Ça va?"])
        [['the', 'cat', 'sat'], [], ['ça', 'va']]
    """
    _check_word_boundaries()
    return _holding_letters_or_digits([list(_words(normalized(text))) for text in texts])


def char_token_lists(texts: Sequence[str]) -> list[list[str]]:
    """:func:`char_tokens` of every text, the letters and digits looked up for all of them at once.

    Where no character may join a cluster with its neighbour (no combining mark, joiner or Hangul jamo),
    every cluster holding a letter or a digit is one character.

    Example:
        >>> char_token_lists(["猫が好き", "A1!"])
        [['猫', 'が', '好', 'き'], ['a', '1']]
    """
    normal = list(map(normalized, texts))
    joining = _count(normal, _JOINS_CLUSTER) > 0
    return _holding_letters_or_digits(
        [_GRAPHEME_CLUSTER.findall(text) if joins else list(text) for text, joins in zip(normal, joining)]
    )


@functools.cache
def _class_table() -> np.ndarray:
    """The class bits (:data:`_LETTER_OR_DIGIT`, :data:`_JOINS_CLUSTER`) of every code point, built
    from the ``regex`` package on first use (about 1 s, 1.1 MB)."""
    return property_bits(_CLASSES)


@functools.cache
def _check_word_boundaries() -> None:
    """Raise an ``ImportError`` unless the ``regex`` package's word boundaries are UAX #29's."""
    release = tuple(int(part) for part in regex.__version__.split(".")[:3] if part.isdigit())
    if release < _WORD_BOUNDARIES_SINCE:
        wanted = ".".join(map(str, _WORD_BOUNDARIES_SINCE))
        raise ImportError(
            f"ROUGE's Unicode words need regex>={wanted}, whose word boundaries follow Unicode's UAX #29 "
            f"(regex {regex.__version__} is installed): pip install -U regex"
        )


def _count(pieces: list[str], bit: int) -> np.ndarray:
    """How many characters of each piece of text have the class ``bit``."""
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    characters = np.frombuffer("".join(pieces).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    up_to = np.zeros(len(characters) + 1, dtype=np.int64)
    np.cumsum(_class_table()[characters] & bit, out=up_to[1:])
    ends = np.cumsum(lengths)
    counts: np.ndarray = up_to[ends] - up_to[ends - lengths]
    return counts


def _holding_letters_or_digits(pieces: list[list[str]]) -> list[list[str]]:
    """Of every list of pieces of text, those that hold a letter or a digit."""
    kept = (_count([piece for text in pieces for piece in text], _LETTER_OR_DIGIT) > 0).tobytes()
    ends = np.cumsum([len(text) for text in pieces], dtype=np.int64).tolist()
    return [list(compress(text, kept[end - len(text) : end])) for text, end in zip(pieces, ends)]


def _words(text: str) -> Iterator[str]:
    """``text`` cut at ``unicode-segmentation``'s word boundaries, punctuation and spaces included."""
    if "\u200d" not in text or not _JOINED_EMOJI.search(text):
        yield from _WORD.findall(text)
        return
    start = 0
    while start < len(text):
        end = _word_end(text, start)
        yield text[start:end]
        start = end


def _word_end(text: str, start: int) -> int:
    """Where ``unicode-segmentation``'s word that begins at ``start`` ends: UAX #29's, but that it ends
    after the first emoji joined on by a zero width joiner, and that a word of letters or digits takes in
    a punctuation mark followed by a joined emoji."""
    end = start + int(_WORD.match(text[start:]).end())
    emoji = _JOINED_EMOJI_SEQUENCE.search(text, start, end)
    if emoji:
        return int(emoji.end())
    last = _LAST_BASE.search(text, start, end)
    for word_class, continuation in _MIDDLE_THEN_EMOJI:
        if last and word_class.match(last.group(1)):
            taken = continuation.match(text, end)
            return int(taken.end()) if taken else end
    return end

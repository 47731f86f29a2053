"""sacrebleu's tokenizers on arrays of code points, checked against sacrebleu itself.

* :func:`~torch_bleu.text.lines.tokenized_lines` (NumPy, the host) against sacrebleu's own
  preprocessing, ``BLEU(tokenize=t, lowercase=lc)._preprocess_segment(line).split()``: per line the
  same number of words, and over a whole call equal ids exactly for equal words. Lines come from an
  adversarial alphabet (every whitespace character, controls, every punctuation, symbol and number
  category as the ``regex`` package knows them, the edges of the ``zh`` tokenizer's ranges, emoji,
  combining marks, right-to-left text, lone surrogates, HTML entities, runs of digits, periods and
  commas), from any characters at all, and from the WMT17 reference and system outputs. ``BLEUScore``
  on such lines gives sacrebleu's statistics.
* :func:`~torch_bleu.text.sacrebleu_words.word_starts` on rows of code points (PyTorch, the layout of
  decoded subword ids) against sacrebleu's tokenizer, word by word, and
  :func:`~torch_bleu.text.word_ids.word_rows` on words hundreds of characters long.
* :func:`~torch_bleu.text.unicode_classes.unicode_classes` on every code point, against ``regex``'s
  ``\\p{N}``, ``\\p{P}``, ``\\p{S}`` and the ``zh`` tokenizer's ``_is_chinese_char``.
"""

from __future__ import annotations

import functools
import os
import shutil
import string
import sys
import unicodedata
from unittest import mock

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import row_words
from shared_data import WMT17

from torch_bleu import BLEUScore, arrays
from torch_bleu.text import lines as text_lines
from torch_bleu.text.code_points import rows_from_strings
from torch_bleu.text.lines import tokenized_lines
from torch_bleu.text.sacrebleu_words import preprocess, word_starts
from torch_bleu.text.unicode_classes import CHINESE, NUMBER, PUNCTUATION, SYMBOL, unicode_classes
from torch_bleu.text.word_ids import word_rows

sacrebleu = pytest.importorskip("sacrebleu")
regex = pytest.importorskip("regex")
from sacrebleu.metrics.bleu import BLEU  # noqa: E402
from sacrebleu.tokenizers.tokenizer_zh import _UCODE_RANGES, TokenizerZh  # noqa: E402

TOKENIZERS = ["13a", "none", "char", "intl", "zh"]
CODE_POINTS = sys.maxunicode + 1
CPU = torch.device("cpu")
DEVICES = [CPU, *([torch.device("cuda")] if torch.cuda.is_available() else [])]


# --- the oracle and the comparison -------------------------------------------------------------------


def sacrebleu_words(lines: list[str], tokenize: str, lowercase: bool = False) -> list[list[str]]:
    """The words sacrebleu counts in each line: lowercased, right-stripped, tokenized, split."""
    bleu = BLEU(tokenize=tokenize, lowercase=lowercase)
    return [bleu._preprocess_segment(line).split() for line in lines]


def assert_ids_name_words(ids: list[list[int]], words: list[list[str]], lines: list[str]) -> None:
    """Each line has as many ids as words, and over all lines ids are equal exactly where words are."""
    assert len(ids) == len(words)
    for index, (line_ids, line_words) in enumerate(zip(ids, words)):
        assert len(line_ids) == len(line_words), f"line {index} {lines[index]!r}: sacrebleu's words {line_words}"
    id_of: dict[str, int] = {}
    word_of: dict[int, str] = {}
    for index, (line_ids, line_words) in enumerate(zip(ids, words)):
        for word_id, word in zip(line_ids, line_words):
            assert id_of.setdefault(word, word_id) == word_id, f"line {index} {lines[index]!r}: {word!r}, two ids"
            assert word_of.setdefault(word_id, word) == word, (
                f"line {index} {lines[index]!r}: {word!r} and {word_of[word_id]!r}, one id"
            )


def assert_tokenized_as_sacrebleu(lines: list[str], tokenize: str, lowercase: bool) -> None:
    stream = tokenized_lines(lines, tokenize, lowercase)
    assert stream.ids.dtype == stream.lengths.dtype == np.int64
    assert stream.lengths.shape == (len(lines),) and stream.ids.shape == (stream.lengths.sum(),)
    starts = (np.cumsum(stream.lengths) - stream.lengths).tolist()
    ids = [stream.ids[start : start + length].tolist() for start, length in zip(starts, stream.lengths.tolist())]
    assert_ids_name_words(ids, sacrebleu_words(lines, tokenize, lowercase), lines)


# --- the adversarial alphabet --------------------------------------------------------------------------


@functools.cache
def every_character() -> str:
    """Every code point as one string (surrogates too: ``regex`` takes them as characters of category Cs)."""
    return "".join(map(chr, range(CODE_POINTS)))


def code_points_of(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.int32)


@functools.cache
def regex_categories() -> dict[str, list[str]]:
    """The characters of every number, punctuation and symbol category, as the ``regex`` package has them."""
    classified = "".join(regex.findall(r"[\p{N}\p{P}\p{S}]", every_character()))
    names = ["Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So"]
    return {name: regex.findall(rf"\p{{{name}}}", classified) for name in names}


def zh_range_edges() -> list[str]:
    """Around both ends of every ``zh`` range: a bound such as ``"\\u20000"`` is two characters (U+2000,
    ``0``), so around its first character and around the code point it was meant to be (U+20000)."""
    codes = set()
    for bound in (bound for pair in _UCODE_RANGES for bound in pair):
        first = ord(bound[0])
        meant = [int(f"{first:x}{bound[1:]}", 16)] if len(bound) > 1 else []
        codes |= {code + step for code in [first, *meant] for step in (-1, 0, 1)}
    return [chr(code) for code in sorted(codes) if 0 <= code < CODE_POINTS and not 0xD800 <= code <= 0xDFFF]


WHITESPACE = [chr(code) for code in range(CODE_POINTS) if chr(code).isspace()]
CONTROLS = [chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]]
ENTITIES_AND_RUNS = [
    *("&amp;", "&quot;", "&lt;", "&gt;", "&amp;lt;", "&amp;quot;", "&", ";", "<skipped>", "<skip", "ped>"),
    *("-\n", "-", "\n", "..", ",,", "...", ".", ",", "3.5", "1,000", "5-", "5.", ".5", " .", ",5", "a.", "a,"),
]
CJK_AND_WIDE = [
    *"中国人\u3400\u4db5\u4db6\u9fa5\u9fa6\u9fbb\u9fbc\U00020000\U0002a6d6\U0002f800\u3002\u3001",
    *"がカ한\uff01\uff0c\uff0e\uff10\uff15\uff21\uff5e\uff61\uffe5\uffee\u3000\u2e80\u31c0",
]
EMOJI = [
    *("😀", "👍🏽", "👨\u200d👩\u200d👧", "❤\ufe0f", "☀", "☺\ufe0e", "🇩🇪", "\ufe0f", "\ufe0e", "\u200d"),
    *("#\ufe0f\u20e3", "\U0001f3fd", "\U000e0067"),
]
MARKS_AND_SCRIPTS = [
    *("\u0301", "e\u0301", "\u20dd", "a\u20dd", "שלום", "\u05be", "مرحبا", "\u060c", "\u061f", "\u066b", "\u0661"),
    *("\u200f", "\u200e", "\u202e", "\u200b", "\ufeff", "\ufffd", "\u00ad", "\u0966", "\U0001d7ce", "²", "½"),
]
ODD_CODE_POINTS = ["\ud800", "\udfff", "\ud83d\ude00", "\ue000", "\ufffe", "\uffff", "\U0010ffff", "\U000e0001"]
CASED = ["Σ", "ΟΔΟΣ", "Σ.", "ΣΑ", "\u0130", "İstanbul", "\u1e9e", "ﬁ", "\u2126", "\u212a", "\u2160", "\u24b6", "ǅ"]


def categories_strategy() -> st.SearchStrategy[str]:
    """A character of any number, punctuation or symbol category, above U+FFFF too, or one whose category
    ``regex``'s newer Unicode gives and Python's ``unicodedata`` does not."""
    groups = []
    for chars in regex_categories().values():
        groups.append(st.sampled_from(chars))
        if astral := [char for char in chars if ord(char) > 0xFFFF]:
            groups.append(st.sampled_from(astral))
    newer = [char for name, chars in regex_categories().items() for char in chars if unicodedata.category(char) != name]
    return st.one_of(*groups, *([st.sampled_from(newer)] if newer else []))


@functools.cache
def pieces() -> st.SearchStrategy[str]:
    """One piece of a line: a character or a few, each group about as likely as the others."""
    return st.one_of(
        st.sampled_from(WHITESPACE),
        st.just(" "),
        st.sampled_from(string.punctuation),
        st.sampled_from(string.digits),
        st.sampled_from(string.ascii_letters),
        st.sampled_from(CONTROLS),
        categories_strategy(),
        st.sampled_from(zh_range_edges()),
        st.sampled_from(CJK_AND_WIDE),
        st.sampled_from(EMOJI),
        st.sampled_from(MARKS_AND_SCRIPTS),
        st.sampled_from(ODD_CODE_POINTS),
        st.sampled_from(CASED),
        st.sampled_from(ENTITIES_AND_RUNS),
        st.text(alphabet="0123456789.,-", min_size=1, max_size=8),
    )


#: Few characters that the tokenizers' rules care about, so that their interactions come up often.
DENSE = ".,-!?'\"()5\u0663a\u4e2d $\n&;<>\u3002\uff0c\u00bf\u00a0\u2028\u03a3\u0130_"


@functools.cache
def adversarial_lines() -> st.SearchStrategy[str]:
    """Lines of adversarial pieces, whitespace alone (empty lines too), few characters that interact, or
    any characters but surrogates."""
    return st.one_of(
        st.lists(pieces(), max_size=30).map("".join),
        st.lists(st.sampled_from(WHITESPACE), max_size=4).map("".join),
        st.text(alphabet=DENSE, max_size=20),
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    )


def batches(max_size: int = 6) -> st.SearchStrategy[list[str]]:
    return st.lists(adversarial_lines(), min_size=1, max_size=max_size)


# --- tokenized_lines: the host path of text ------------------------------------------------------------


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@settings(max_examples=300, deadline=None)
@given(lines=batches(), lowercase=st.booleans())
def test_tokenized_lines_are_sacrebleus(tokenize, lines, lowercase):
    assert_tokenized_as_sacrebleu(lines, tokenize, lowercase)


@pytest.mark.slow
@pytest.mark.parametrize("tokenize", TOKENIZERS)
@settings(max_examples=2000, deadline=None)
@given(lines=batches(), lowercase=st.booleans())
def test_many_more_tokenized_lines_are_sacrebleus(tokenize, lines, lowercase):
    assert_tokenized_as_sacrebleu(lines, tokenize, lowercase)


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@settings(max_examples=100, deadline=None)
@given(lines=st.lists(adversarial_lines(), min_size=2, max_size=12), lowercase=st.booleans())
def test_the_metric_counts_adversarial_text_as_sacrebleu(tokenize, lines, lowercase):
    """End to end: ``BLEUScore`` on one reference string per hypothesis (counted as one stream of pairs)."""
    hypotheses, references = lines[: len(lines) // 2], lines[len(lines) // 2 : 2 * (len(lines) // 2)]
    theirs = BLEU(tokenize=tokenize, lowercase=lowercase).corpus_score(hypotheses, [references])
    metric = BLEUScore(tokenize=tokenize, lowercase=lowercase)
    metric.update(hypotheses, references)
    assert metric.numerator.tolist() == theirs.counts and metric.denominator.tolist() == theirs.totals
    assert (metric.preds_len.item(), metric.target_len.item()) == (theirs.sys_len, theirs.ref_len)


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@settings(max_examples=60, deadline=None)
@given(lines=st.lists(adversarial_lines(), min_size=0, max_size=15), streams=st.integers(1, 3), chunk=st.integers(1, 4))
def test_streams_number_the_words_of_each_sentence_alike(tokenize, lines, streams, chunk):
    """Systems and references tokenized a chunk of sentences at a time: within each sentence, over all
    streams, equal ids exactly where sacrebleu's words are equal."""
    sentences = len(lines) // streams
    corpus = [lines[stream * sentences : (stream + 1) * sentences] for stream in range(streams)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_lines, "SENTENCES_PER_CHUNK", chunk)
        encoded = text_lines.tokenized_streams(corpus, tokenize)
    starts = [np.cumsum(stream.lengths) - stream.lengths for stream in encoded]
    for sentence in range(sentences):
        ids = [
            stream.ids[start[sentence] : start[sentence] + stream.lengths[sentence]].tolist()
            for stream, start in zip(encoded, starts)
        ]
        text = [stream[sentence] for stream in corpus]
        assert_ids_name_words(ids, sacrebleu_words(text, tokenize), text)


@pytest.mark.parametrize("tokenize", TOKENIZERS)
def test_replacements_that_make_later_patterns(tokenize):
    """13a's replacements run in order: ``&amp;lt;`` becomes ``&lt;``, then ``<``, though the text held no
    ``&lt;``; ``<skip-\nped>`` loses its ``-\n`` after ``<skipped>`` was looked for."""
    lines = ["a &amp;lt; b", "&amp;gt;&amp;quot;", "<skip-\nped> &amp;amp;", "x\uffffy", "\uffff"]
    assert_tokenized_as_sacrebleu(lines, tokenize, lowercase=False)
    assert_tokenized_as_sacrebleu(lines[:3], tokenize, lowercase=True)


@pytest.mark.parametrize("tokenize", TOKENIZERS)
def test_no_lines_and_empty_lines(tokenize):
    assert_tokenized_as_sacrebleu([], tokenize, False)
    assert_tokenized_as_sacrebleu(["", " ", "\n", "", "\u3000\x1c"], tokenize, True)


@pytest.mark.parametrize("tokenize", ["ja-mecab", "ko-mecab"])
def test_tokenizers_with_a_dictionary_are_sacrebleus_own(tokenize):
    try:
        BLEU(tokenize=tokenize)
    except (ImportError, RuntimeError) as error:
        pytest.skip(f"sacrebleu's {tokenize} is not usable here: {' '.join(str(error).split())}")
    lines = ["猫が座った。", "고양이가 앉았다.", "The Cat, 3.5", ""]
    assert_tokenized_as_sacrebleu(lines, tokenize, lowercase=True)


@pytest.fixture
def sacrebleu_folder(tmp_path, monkeypatch):
    """A folder of sacrebleu's (``$SACREBLEU``) holding its SentencePiece tokenizers' models: a small model
    trained here on the tests' corpus stands in for each (nothing can be downloaded)."""
    from sacrebleu.tokenizers import tokenizer_spm
    from subword_tokenizers import cached_sentencepiece_path

    model = cached_sentencepiece_path("unigram")
    (tmp_path / "models").mkdir()
    for spec in tokenizer_spm.SPM_MODELS.values():
        shutil.copy(model, tmp_path / "models" / os.path.basename(spec["url"]))
    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(tmp_path))
    return tmp_path


SENTENCEPIECE_LINES = ["The cat, 3.5 &amp; 1,000 dogs.", "Über  die Brücke — schön!", "猫 😀", "", "the cat"]


@pytest.mark.filterwarnings("ignore:The 'warn' method is deprecated:DeprecationWarning")  # sacrebleu's, on 'spm'
@pytest.mark.parametrize("tokenize", ["flores101", "flores200", "spm"])
def test_sentencepiece_tokenizers_are_sacrebleus_own(tokenize, sacrebleu_folder):
    assert_tokenized_as_sacrebleu(SENTENCEPIECE_LINES, tokenize, lowercase=False)
    assert_tokenized_as_sacrebleu(SENTENCEPIECE_LINES, tokenize, lowercase=True)
    hypotheses, references = SENTENCEPIECE_LINES[:2], SENTENCEPIECE_LINES[3:]
    theirs = BLEU(tokenize=tokenize).corpus_score(hypotheses, [references])
    metric = BLEUScore(tokenize=tokenize)
    metric.update(hypotheses, references)
    assert metric.numerator.tolist() == theirs.counts and metric.denominator.tolist() == theirs.totals


def test_sentencepiece_tokenizer_without_its_model_is_one_clear_error(tmp_path, monkeypatch):
    from sacrebleu.tokenizers import tokenizer_spm

    def no_network(url, path):
        raise OSError(f"cannot download {url}")

    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(tmp_path))
    monkeypatch.setattr(tokenizer_spm, "download_file", no_network)
    metric = BLEUScore(tokenize="flores200")
    with pytest.raises(ValueError, match="tokenizer 'flores200' is not usable here: cannot download"):
        metric.update(["a"], ["a"])
    assert metric.numerator.tolist() == [0, 0, 0, 0]


# --- word starts on rows of code points: the device path of decoded ids -------------------------------


def sizes_from_data(flag: bool):
    """CPU tensors sized from their values (as by default), or from shapes alone (as on accelerators)."""
    return mock.patch.object(arrays, "SIZES_FROM_DATA_ON_CPU", flag)


@pytest.mark.parametrize("device", DEVICES, ids=str)
@pytest.mark.parametrize("from_data", [True, False], ids=["widths from data", "static widths"])
@pytest.mark.parametrize("tokenize", TOKENIZERS)
@settings(max_examples=100, deadline=None)
@given(lines=batches(4))
def test_word_starts_on_rows_are_sacrebleus(tokenize, from_data, device, lines):
    with sizes_from_data(from_data):
        chars = preprocess(rows_from_strings(lines, device), tokenize)
        in_word, starts = word_starts(chars, tokenize)
    assert in_word.device == starts.device == chars.device
    assert row_words(chars, in_word, starts) == sacrebleu_words(lines, tokenize)


# --- long words: exact ids take several rounds of prefix doubling --------------------------------------


@st.composite
def lines_of_long_words(draw: st.DrawFn) -> list[str]:
    """A word of 200 characters or more (one word to every tokenizer but ``char``), repeated, beside copies of
    it changed in one character, cut short, or lengthened, with punctuation about them."""
    word = draw(st.lists(st.sampled_from(["a", "b", "Σ", "é", "5", "5.5"]), min_size=200, max_size=300).map("".join))
    position = draw(st.integers(0, len(word) - 1))
    variants = [
        word,
        word[:position] + draw(st.sampled_from("abcΣ.")) + word[position + 1 :],
        word[:position],
        word + draw(st.sampled_from(["a", "b", "5", "中"])),
        word[position:],
    ]
    pieces_of_lines = st.lists(st.one_of(st.sampled_from(variants), st.sampled_from([" ", ", ", ". ", "\t"])))
    return draw(st.lists(pieces_of_lines.map("".join), min_size=1, max_size=4))


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@settings(max_examples=25, deadline=None)
@given(lines=lines_of_long_words(), lowercase=st.booleans())
def test_long_words_get_exact_ids(tokenize, lines, lowercase):
    assert_tokenized_as_sacrebleu(lines, tokenize, lowercase)
    for from_data in (True, False):
        with sizes_from_data(from_data):
            chars = preprocess(rows_from_strings(lines, CPU), tokenize)
            words = word_rows(chars, *word_starts(chars, tokenize))
        ids = [row[:length] for row, length in zip(words.ids.tolist(), words.lengths.tolist())]
        assert_ids_name_words(ids, sacrebleu_words(lines, tokenize), lines)


# --- real text: WMT17 ----------------------------------------------------------------------------------


@functools.cache
def wmt17_lines() -> list[str]:
    """The WMT17 English-German reference and two systems' outputs, one after the other."""
    if not WMT17.is_dir():
        pytest.skip(f"needs the WMT17 data beside the checkout ({WMT17})")
    paths = [WMT17 / "newstest2017.ref.de", *sorted(WMT17.glob("sys.*.de"))[:2]]
    return [line for path in paths for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", ["13a", "intl"])
def test_wmt17_tokenized_as_sacrebleu(tokenize, lowercase):
    assert_tokenized_as_sacrebleu(wmt17_lines(), tokenize, lowercase)


@pytest.mark.slow
@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("tokenize", ["none", "char", "zh"])
def test_wmt17_tokenized_as_sacrebleu_by_the_other_tokenizers(tokenize, lowercase):
    assert_tokenized_as_sacrebleu(wmt17_lines(), tokenize, lowercase)


# --- the Unicode classes of every code point ----------------------------------------------------------


def mismatches(ours: np.ndarray, expected: np.ndarray) -> list[str]:
    return [f"U+{code:04X}" for code in np.flatnonzero(ours != expected)[:10]]


@pytest.mark.parametrize("bit, category", [(NUMBER, "N"), (PUNCTUATION, "P"), (SYMBOL, "S")])
def test_number_punctuation_and_symbol_bits_are_regexs(bit, category):
    classes = unicode_classes(np.arange(-1, CODE_POINTS))
    assert classes.dtype == np.uint8 and classes[0] == 0  # -1: no character
    expected = np.zeros(CODE_POINTS, dtype=bool)
    expected[code_points_of(regex.sub(rf"\P{{{category}}}", "", every_character()))] = True
    ours = (classes[1:] & bit) != 0
    assert not mismatches(ours, expected), f"\\p{{{category}}} differs at {mismatches(ours, expected)}"


def test_chinese_bit_is_sacrebleus_is_chinese_char():
    # a single character greater than the first character of every range's end is greater than the
    # end itself (strings compare character by character): none past those is Chinese to sacrebleu
    candidates = max(ord(end[0]) for _, end in _UCODE_RANGES) + 1
    is_chinese_char = TokenizerZh._is_chinese_char.__wrapped__  # without its cache
    expected = np.zeros(CODE_POINTS, dtype=bool)
    expected[:candidates] = [is_chinese_char(chr(code)) for code in range(candidates)]
    ours = (unicode_classes(np.arange(CODE_POINTS)) & CHINESE) != 0
    assert not mismatches(ours, expected), f"differs at {mismatches(ours, expected)}"


def test_classes_of_tensors_equal_those_of_arrays():
    codes = np.array([-1, 0x35, 0xBF, 0x24, 0x4E2D, 0x2000, 0x2001, 0x1F600, 0x10FFFF])
    expected = unicode_classes(codes).tolist()
    for device in DEVICES:
        for dtype in (torch.int32, torch.int64):
            assert unicode_classes(torch.tensor(codes, dtype=dtype, device=device)).tolist() == expected

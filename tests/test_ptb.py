"""pycocoevalcap's caption tokenization without Java equals pycocoevalcap's ``PTBTokenizer`` (Stanford
CoreNLP 3.4.1's jar through ``java``), caption for caption, on hand-written captions, on generated ones and
on the WMT17 German lines beside a development checkout.

The jar runs once, on every line of every set in one list, as pycocoevalcap runs it on a corpus: a
caption's last token may depend on how the next one starts, so :func:`ptb_tokenize` gets the same list.
Generated captions come from fixed seeds. Their alphabets leave out only the characters that end a line
for the jar (``\\r``, ``\\x0b``, ``\\x0c``, ``\\u2028``, ``\\u2029``): the jar then writes more lines than
captions and pycocoevalcap pairs every later caption with the line of the one before it.
"""

from __future__ import annotations

import random
import shutil
import unicodedata
from pathlib import Path

import pytest
from shared_data import WMT17

from torch_bleu.errors import InputError
from torch_bleu.text.ptb import ptb_tokenize

CAPTIONS = Path(__file__).parent / "data" / "ptb_captions.txt"
#: Line ends of the jar, left out of generated captions (see the module's docstring).
LINE_ENDS = set("\r\n\x0b\x0c\u2028\u2029")


def plain_alphabet_captions(seed: int, count: int) -> list[str]:
    """Captions of letters, digits, ASCII punctuation, quotes of every kind, dashes and accented letters."""
    alphabet = [*"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"] * 3
    alphabet += [*"'\"`.,;:!?-()[]{}&%$/", "--", "...", " ", " ", " ", "\t", "\u00a0"]
    alphabet += [*"\u201c\u201d\u2018\u2019\u00e9\u00fc\u00c9\u00f1\u2014\u2013\u2026\u00ab\u00bb"]
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(count)]


#: The pieces of :func:`piece_captions`, separated by single spaces.
PIECES = (
    "a man the dog U.S. etc. Mr. Dr. Inc. Jan. co. Co. No. fig. ca. I. A. The He It We You St. Mass. Pa. "
    "don't can't won't I'm it's he'll we've they'd y'all 'tis 'twas cannot gonna o'clock O'Brien '90s "
    "1 12 1,000 3.14 .5 3/4 5-3 10% $5 US$5 12/25/2019 10:30 555-123-4567 (555) 1-800 well-known t-shirt "
    "pro- anti- e.g. i.e. a.m. p.m. vs. www.x.com http://a.b/c x@y.org #tag @user C++ :) :( ;) :-) <3 ^_^ "
    "... -- --- - ( ) [ ] { } \" ' ` `` '' & / , . ; : ! ? ?! !!! \u201c \u201d \u2018 \u2019 \u00ab \u00bb "
    "\u2014 \u2013 \u2026 \u00e9 \u00c9 \u00f1 \u00fc \u00df \u00bd \u20ac \u00a3 \u00a5 \u00a2 \u00b0 \u00b2 "
    "\u2122 \u00a9 \u2022 \u00b7 \u00bf \u00a1 \u201a \u201e \u2039 \u203a x.jpg file.pdf S&P-500 AT&T "
    "&amp; &quot; <b> </b> <br/> \u03a3\u0391\u03a3 \U0001f600"
)


def piece_captions(seed: int, count: int) -> list[str]:
    """Captions built from the tokenizer's special cases: abbreviations, contractions, numbers, URLs,
    smileys, entities, quotes and dashes, with spaces, tabs and no-break spaces between them or none."""
    pieces = PIECES.split(" ")
    separators = [" ", " ", " ", " ", "", "  ", "\t", "\u00a0"]
    rng = random.Random(seed)
    return [
        "".join(rng.choice(pieces) + rng.choice(separators) for _ in range(rng.randint(0, 12))) for _ in range(count)
    ]


def unicode_captions(seed: int, count: int) -> list[str]:
    """Captions of assigned characters of the Basic Multilingual Plane (Latin ones more often) among
    ASCII letters, digits, spaces, periods, apostrophes and hyphens."""
    rng = random.Random(seed)

    def character() -> str:
        while True:
            code = rng.randint(0x20, 0xFFFF) if rng.random() < 0.5 else rng.randint(0x20, 0x2FF)
            found = chr(code)
            if unicodedata.category(found) not in ("Cn", "Cs") and found not in LINE_ENDS:
                return found

    return [
        "".join(character() if rng.random() < 0.4 else rng.choice("abc XY1 .'-") for _ in range(rng.randint(0, 15)))
        for _ in range(count)
    ]


#: The pieces of :func:`symbol_captions`: parts of URLs, e-mail addresses, tags, entities and numbers,
#: abbreviations, fractions, currencies, spaces of every width, separated by single spaces ("SPACE" for one).
SYMBOLS = (
    "http:// https:// www. .com .org .edu .net .co.uk / ? = & # @ _ - . , : ; ( ) < > { } [ ] ' \" ` ~ ^ * + ++ % $ "
    "| \\ a b x ab cd mail foo Bar U S 1 12 123 555 1234 2019 0 SPACE SPACE \u00a0 jpg pdf html txt Inc etc Jan "
    "Mr Ph D co Ltd pty fig no Nos 's n't 'll I The He A <b> </b> <br/> <!DOCTYPE> <?xml?> &amp; &lt; &gt; "
    "&quot; &apos; &nbsp; &mdash; &#39; &HT; \u00bd \u00bc \u2153 \u215b \u2044 \u00b2 \u2082 \u207a \u00a2 "
    "\u00a3 \u20ac \u00a5 \u2013 \u2014 \u2026 \u0085 \u00ad \u200b \ufeff \u3000 \u2009 \u3001 \u3002 "
    "\u00bf \u00a1"
)


def symbol_captions(seed: int, count: int) -> list[str]:
    """Captions glued together from :data:`SYMBOLS`, with no spaces but those drawn."""
    pieces = [" " if piece == "SPACE" else piece for piece in SYMBOLS.split(" ")]
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))) for _ in range(count)]


def greek_captions(seed: int, count: int) -> list[str]:
    """Captions of Greek capitals and small letters among Latin letters, digits, kana, ideographs, Hangul
    and the punctuation that may join a word: Java lowercases a capital sigma by the word it is in."""
    alphabet = [*"\u03a3\u03a3\u03a3\u0391\u0392\u0393\u039f\u03c3\u03b1\u03b2\u03bf\u03c2aA1-'.\"\u2019"]
    alphabet += [*"\u4e2d\uff71\u3042\u30a2\ud55c\u0416 _,", "\u039f\u0394\u039f\u03a3", "\u03a3 "]
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(count)]


def wmt17_lines() -> list[str]:
    reference = WMT17 / "newstest2017.ref.de"
    return reference.read_text(encoding="utf-8").splitlines() if reference.exists() else []


SETS = {
    "hand-written": CAPTIONS.read_text(encoding="utf-8").splitlines(),
    "plain alphabet": plain_alphabet_captions(0, 500),
    "pieces": piece_captions(0, 500),
    "unicode": unicode_captions(0, 500),
    "symbols": symbol_captions(0, 500),
    "greek": greek_captions(0, 500),
    "wmt17": wmt17_lines(),
}


def coco_tokenize(captions: list[str]) -> list[str]:
    """pycocoevalcap's ``PTBTokenizer().tokenize`` of ``captions``, one image each, in order."""
    tokenizer = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer", reason="needs pycocoevalcap")
    if shutil.which("java") is None:
        pytest.skip("needs java to run pycocoevalcap's Stanford CoreNLP jar")
    tokenized = tokenizer.PTBTokenizer().tokenize({index: [{"caption": line}] for index, line in enumerate(captions)})
    return [tokenized[index][0] for index in range(len(captions))]


@pytest.fixture(scope="session")
def both() -> dict[str, tuple[list[str], list[str]]]:
    """Every set's lines tokenized by the jar and by :func:`ptb_tokenize`, from one list of all lines."""
    lines = [line for set_lines in SETS.values() for line in set_lines]
    expected, ours = coco_tokenize(lines), ptb_tokenize(lines)
    found, start = {}, 0
    for name, set_lines in SETS.items():
        found[name] = (expected[start : start + len(set_lines)], ours[start : start + len(set_lines)])
        start += len(set_lines)
    return found


@pytest.mark.parametrize("name", list(SETS))
def test_captions_are_tokenized_as_pycocoevalcap_does(both, name):
    if name == "wmt17" and not SETS[name]:
        pytest.skip(f"needs the WMT17 reference in {WMT17} (a development checkout's ../shared)")
    expected, ours = both[name]
    lines = SETS[name]
    different = [(line, want, got) for line, want, got in zip(lines, expected, ours) if want != got]
    agreement = f"{len(lines) - len(different)} of {len(lines)} {name} lines equal"
    assert not different, f"{agreement}; first differences (line, pycocoevalcap, ours): {different[:5]}"


@pytest.mark.slow
def test_wmt17_system_outputs_are_tokenized_as_pycocoevalcap_does():
    systems = sorted(WMT17.glob("sys.*.de"))
    if not systems:
        pytest.skip(f"needs the WMT17 system outputs in {WMT17} (a development checkout's ../shared)")
    lines = [line for system in systems for line in system.read_text(encoding="utf-8").splitlines()]
    expected, ours = coco_tokenize(lines), ptb_tokenize(lines)
    different = [(line, want, got) for line, want, got in zip(lines, expected, ours) if want != got]
    assert not different, f"{len(lines) - len(different)} of {len(lines)} lines equal: {different[:5]}"


def test_a_caption_is_one_line_and_an_empty_one_stays_empty():
    assert ptb_tokenize([]) == []
    assert ptb_tokenize(["", "  \t ", "A dog\nruns."]) == ["", "", "a dog runs"]


def test_the_next_caption_decides_whether_a_letters_period_ends_a_sentence():
    assert ptb_tokenize(["Plan B.", "The end", "Plan B.", "the end", "Plan B. The end"]) == [
        "plan b",
        "the end",
        "plan b.",
        "the end",
        "plan b the end",
    ]


def test_bracket_names_stay_as_pycocoevalcap_compares_them_before_lowercasing():
    assert ptb_tokenize(["A dog (brown) {big} [old]"]) == ["a dog -lrb- brown -rrb- -lcb- big -rcb- -lsb- old -rsb-"]


def test_a_string_or_a_caption_that_is_no_string_is_refused():
    with pytest.raises(InputError, match="not one string"):
        ptb_tokenize("A dog runs.")
    with pytest.raises(InputError, match="caption 1 is a bytes"):
        ptb_tokenize(["A dog runs.", b"A cat sleeps."])  # type: ignore[list-item]

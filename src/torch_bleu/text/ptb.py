"""pycocoevalcap's caption tokenization without Java: Stanford CoreNLP 3.4.1's ``PTBTokenizer`` as COCO
caption evaluation runs it (``-preserveLines -lowerCase``), then pycocoevalcap's removal of its punctuation
tokens.

The tokenizer is a longest-match scanner: at each position every rule below is tried, the longest match
wins (a rule's lookahead counts towards its length, as in the Java lexer) and the earlier rule wins a tie;
a rule may write less than it matched and scan the rest again. The rules are written here after how CoreNLP's
lexer behaves and are checked against the jar, caption for caption (``docs/ptb-tokenizer.md`` says on what,
and what differs: characters that end a line for Java, some Greek capital sigmas, letters newer than
Unicode 15.1). Plain captions and the plain words of others take shortcuts that give what the rules give.
Imports neither PyTorch nor NumPy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import InputError

__all__ = ["PUNCTUATION", "ptb_tokenize"]

#: The tokens pycocoevalcap drops after tokenizing. The bracket names are compared after lowercasing,
#: so ``-lrb-`` and its kin stay in the captions, as they do in pycocoevalcap.
PUNCTUATION = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
)


def _class_of(test: Callable[[str], bool]) -> str:
    """The body of a character class of the Basic Multilingual Plane's characters that pass ``test``."""
    ranges: list[str] = []
    start = None
    for code in range(0x10000):
        inside = not 0xD800 <= code <= 0xDFFF and test(chr(code))
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            ranges.append(_range(start, code - 1))
            start = None
    if start is not None:
        ranges.append(_range(start, 0xFFFF))
    return "".join(ranges)


def _range(first: int, last: int) -> str:
    return re.escape(chr(first)) if first == last else f"{re.escape(chr(first))}-{re.escape(chr(last))}"


def _ci(words: str) -> str:
    """``words`` (an alternation of literal words) matched in any case, as the lexer matches literals."""
    return f"(?i:{words})"


def _code_points(ranges: str) -> frozenset[str]:
    """The characters of ``ranges``: hexadecimal code points and ``first-last`` ranges, separated by spaces."""
    found: set[str] = set()
    for item in ranges.split():
        first, _, last = item.partition("-")
        found.update(map(chr, range(int(first, 16), int(last or first, 16) + 1)))
    return frozenset(found)


# ---------------------------------------------------------------------------------------- character classes
#: The tokenizer knows the letters and digits of Unicode 6.2 (Java 8's): those of the Basic Multilingual
#: Plane that Unicode made letters or digits later are not, and two Mongolian letters have become marks since.
_NEWER_LETTERS = _code_points(
    "037F 0528-052F 0560 0588 05EF 0860-086A 0870-0887 0889-088E 08A1 08AD-08C9 0978 0980 09FC 0AF9 0C34 0C5A"
    " 0C5D 0C80 0CDD 0D04 0D54-0D56 0D5F 0E86 0E89 0E8C 0E8E-0E93 0E98 0EA0 0EA8-0EA9 0EAC 13F5 13F8-13FD"
    " 16F1-16F8 170D 171F 1878 191D-191E 19B0-19C0 19C8-19C9 1B4C 1C80-1C88 1C90-1CBA 1CBD-1CBF 1CF2-1CF3"
    " 1CFA 2C2F 2C5F 312E-312F 31BB-31BF 4DB6-4DBF 9FCD-9FFF A698-A69D A78F A794-A79F A7AB-A7CA A7D0-A7D1"
    " A7D3 A7D5-A7D9 A7F2-A7F7 A8FD-A8FE A9E0-A9E4 A9E6-A9EF A9FA-A9FE AA7E-AA7F AB30-AB5A AB5C-AB69 AB70-ABBF"
)
_FORMER_LETTERS = _code_points("1885-1886")
_NEWER_DIGITS = _code_points("0DE6-0DEF A9F0-A9F9")
#: Characters the tokenizer also takes as letters of words: the soft hyphen, modifier letters, combining
#: marks and the vowel signs of several scripts.
_WORD_MARKS = (
    "\u00ad\u0237-\u024f\u02c2-\u02c5\u02d2-\u02df\u02e5-\u02ff\u0300-\u036f\u0370-\u037d\u0384\u0385"
    "\u03cf\u03f6\u03fc-\u03ff\u0483-\u0487\u04cf\u04f6-\u04ff\u0510-\u0525\u055a-\u055f\u0591-\u05bd"
    "\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0615-\u061a\u063b-\u063f\u064b-\u065e\u0670\u06d6-\u06ef"
    "\u06fa-\u06ff\u070f\u0711\u0730-\u074f\u0750-\u077f\u07a6-\u07b1\u07ca-\u07f5\u07fa\u0900-\u0903"
    "\u093c\u093e-\u094e\u0951-\u0955\u0962-\u0963\u0981-\u0983\u09bc-\u09c4\u09c7\u09c8\u09cb-\u09cd"
    "\u09d7\u09e2\u09e3\u0a01-\u0a03\u0a3c\u0a3e-\u0a4f\u0a81-\u0a83\u0abc-\u0acf\u0b82\u0bbe-\u0bc2"
    "\u0bc6-\u0bc8\u0bca-\u0bcd\u0c01-\u0c03\u0c3e-\u0c56\u0d3e-\u0d44\u0d46-\u0d48\u0e30-\u0e3a"
    "\u0e47-\u0e4e\u0eb1-\u0ebc\u0ec8-\u0ecd"
)
_ALPHA = _class_of(
    lambda character: (character.isalpha() and character not in _NEWER_LETTERS) or character in _FORMER_LETTERS
)
_DIGIT = _class_of(lambda character: character.isdecimal() and character not in _NEWER_DIGITS)
_UPPER = _class_of(str.isupper)
#: Letters of words: letters, the marks above and a few accented vowels written as SGML entities.
_LETTER = f"(?:[{_ALPHA}{_WORD_MARKS}]|&[aeiouAEIOU]{_ci('acute|grave|uml')};)"
_SPACE = "[ \t\u00a0\u2000-\u200a\u3000]"
_NEWLINE = "(?:\r\n|[\r\n\u2028\u2029\x0b\x0c\x85])"
_SPACENL = f"(?:{_SPACE}|{_NEWLINE})"
_APOS = f"(?:['\u0092\u2019]|&{_ci('apos')};)"
_APOS_ETC = f"(?:{_APOS}|[`\u0091\u2018\u201b])"
_HYPHEN = "[-_\u058a\u2010\u2011]"
_INSENTP = "[,;:\u3001]"

# ---------------------------------------------------------------------------------------------- token shapes
_SGML = (
    "<(?:[!?][A-Za-z-][^>\r\n]*"
    "|[A-Za-z][A-Za-z0-9_:.-]*(?:[ ]+(?:[A-Za-z][A-Za-z0-9_:.-]*[ ]*=[ ]*(?:'[^']*'|\"[^\"]*\")"
    "|[A-Za-z][A-Za-z0-9_:.-]*))*[ ]*/?"
    "|/[A-Za-z][A-Za-z0-9_:.-]*)[ ]*>"
)
_WORD = f"{_LETTER}(?:{_LETTER}|[{_DIGIT}])*(?:[.!?]{_LETTER}(?:{_LETTER}|[{_DIGIT}])*)*"
_ALNUM = f"[{_ALPHA}{_DIGIT}]"
_THING = f"(?:[dDoOlL]{_APOS_ETC}{_ALNUM})?{_ALNUM}+(?:{_HYPHEN}(?:[dDoOlL]{_APOS_ETC}{_ALNUM})?{_ALNUM}+)*"
_ACRO_SPECIAL = (
    f"{_ci('canada|sino|korean|eu|japan|non')}-{_ci('u')}\\.{_ci('s')}"
    f"|{_ci('u')}\\.{_ci('s')}\\.-(?:{_ci('u')}\\.{_ci('s')}\\.{_ci('s')}\\.{_ci('r')}|{_ci('u')}\\.{_ci('k')})"
)
_ACRO = f"(?:{_ACRO_SPECIAL}|[A-Za-z](?:\\.[A-Za-z])*)"
_ACRO2 = f"(?:{_ACRO_SPECIAL}|[A-Za-z](?:\\.[A-Za-z])+)"
_HTHING = f"[A-Za-z0-9][A-Za-z0-9.,\u00ad]*(?:-(?:{_ACRO2}\\.|[A-Za-z0-9\u00ad]+))+"
_THINGA = f"[A-Z]+(?:(?:[+&]|&{_ci('amp')};)[A-Z]+)+"
_REDAUX = f"{_APOS}(?:[msdMSD]|{_ci('re|ve|ll')})"
_SREDAUX = f"{_ci('n')}{_APOS_ETC}{_ci('t')}"
_APOWORD = (
    f"[A-HJ-XZn]{_APOS_ETC}[{_ALPHA}]{{2,}}"
    f"|[{_ALPHA}]+[aeiouyAEIOUY]{_APOS_ETC}[aeiouA-Z][{_ALPHA}]*"
    f"|{_APOS}{_ci('n')}{_APOS}?|[lLdDjJ]{_APOS}|{_ci('dunkin|somethin|ol')}{_APOS}|{_APOS}{_ci('em')}"
    f"|{_APOS}[2-9]0{_ci('s')}|{_APOS}{_ci('till?')}|{_APOS}{_ci('cause')}|{_ci('cont')}'{_ci('d')}\\.?"
    f"|'{_ci('twas')}|{_ci('nor')}'{_ci('easter')}|{_ci('c')}'{_ci('mon')}|{_ci('e')}'{_ci('er')}"
    f"|{_ci('s')}'{_ci('mores')}|{_ci('ev')}'{_ci('ry')}|{_ci('li')}'{_ci('l')}|{_ci('nat')}'{_ci('l')}"
    f"|{_ci('o')}{_APOS_ETC}{_ci('o')}"
)
_URL_END = '[^ \t\n\f\r"<>|.!?(){},-]'
_FULLURL = f'{_ci("https?")}://[^ \t\n\f\r"<>|(){{}}]+{_URL_END}'
_LIKELYURL = (
    f'(?:{_ci("www")}\\.(?:[^ \t\n\f\r"<>|.!?(){{}},]+\\.)+[a-zA-Z]{{2,4}}'
    f"|(?:[^ \t\n\f\r\"`'<>|.!?(){{}},-_$]+\\.)+{_ci('com|net|org|edu')})"
    f'(?:/[^ \t\n\f\r"<>|()]+{_URL_END})?'
)
_EMAIL_PART = '[^ \t\n\f\r"<>|(){}.\u00a0]+'
_EMAIL = (
    f'(?:&{_ci("lt")};|<)?[a-zA-Z0-9][^ \t\n\f\r"<>|()\u00a0{{}}]*@(?:{_EMAIL_PART}\\.)*{_EMAIL_PART}'
    f"(?:&{_ci('gt')};|>)?"
)
_NUMBER = f"[-+]?(?:[{_DIGIT}]*(?:[.:,\u00ad\u066b\u066c][{_DIGIT}]+)+|[{_DIGIT}]+)"
_FRAC = f"(?:[{_DIGIT}]{{1,4}}[- \u00a0])?[{_DIGIT}]{{1,4}}(?:\\\\?/|\u2044)[{_DIGIT}]{{1,4}}"
_FILENAME_EXT = (
    "bat|bmp|class|cgi|cpp|c|dll|docx|doc|exe|gif|gz|html|htm|h|jar|java|jpeg|jpg|mov|mp3|pdf|php|pl|png"
    "|ppt|ps|py|sql|tar|txt|wav|xml|x|zip"
)
_FILENAME = f"(?:{_LETTER}|[{_DIGIT}])+(?:\\.(?:{_LETTER}|[{_DIGIT}])+)*\\.{_ci(_FILENAME_EXT)}"
_STATES = (
    f"{_ci('ala|ariz|calif|colo|conn|ct|dak|fla|ga|ind|kans|kan|ky|md|mich|minn|mont|mo|neb|nev|okla|penn|tenn')}"
    f"|{_ci('va|vt|wisc|wis|wyo')}|A{_ci('z|rk')}|D{_ci('el')}|I{_ci('ll')}|L{_ci('a')}|M{_ci('ass|iss')}"
    f"|O{_ci('re')}|P{_ci('a')}|T{_ci('ex')}|W{_ci('ash')}"
)
_ABBREV1 = (
    f"(?:{_ci('jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec|mon|tues|tue|wed|thurs|thu|fri')}|{_STATES}"
    f"|{_ci('inc|cos|co|corp|ltd|plc|rt|bancorp|bhd|assn|univ|intl|sys|tel|est|ext|sq|jr|sr|bros')}"
    f"|{_ci('pp?t')}[ye]{_ci('s')}?|{_ci('ed')}\\.{_ci('d')}|{_ci('ph')}\\.{_ci('d')}|{_ci('blvd|rd|esq')}"
    f"|{_ci('etc|al|seq|bldg')})\\."
)
_ABBREV3 = f"{_ci('ca|figs|fig|prop|nos|no|art|bldg|pp|op')}\\."
_TITLES = (
    "mrs|mr|ms|drs|dr|profs|prof|sens|sen|reps|rep|attys|atty|lt|col|gen|messrs|govs|gov|adm|rev|maj|sgt"
    "|cpl|pvt|capt|ste|st|ave|pres|lieut|hon|brig|comdr|cmdr|pfc|spc|supts|supt|det|mt|ft|adj|adv|asst"
    "|assoc|ens|insp|mlle|mme|msgr|sfc|vs|alex|wm|jos|cie|cf|treas|ph|invt|elec|natl|dept"
)
_ABBREV4 = f"(?:{_ci(_TITLES)}|M{_ci('iss')}|{_ci('m')}[ft]{_ci('g')}|{_ci('a')}\\.{_ci('k')}\\.{_ci('a')}|{_ACRO})"
_SENTENCE_STARTS = (
    "[A](?i:bout|ccording|dditionally|fter|n|s|t)?|[B](?i:ut)|[E](?i:arlier)"
    "|[H](?i:e|er|ere|owever)|[I](?i:f|n|t)|[L](?i:ast)|[M](?i:any|ore|r\\.|s\\.)|[N](?i:ow)"
    "|[O](?i:nce|ne|ther|ur)|[S](?i:he|ince|o|ome|uch)"
    "|[T](?i:hat|he|heir|hen|here|hese|hey|his)|[W](?i:e|hen|hile|hat)|[Y](?i:et|ou)"
)
_PHONE = (
    "(?:\\([0-9]{2,3}\\)[ \u00a0]?|(?:\\+\\+?)?(?:[0-9]{2,4}[- \u00a0])?[0-9]{2,4}[- \u00a0])"
    "[0-9]{3,4}[- \u00a0]?[0-9]{3,5}"
    "|(?:(?:\\+\\+?)?[0-9]{2,4}\\.)?[0-9]{2,4}\\.[0-9]{3,4}\\.[0-9]{3,5}"
)
_SMILEY_END = "[-^x=~<>']"
_ASIAN_SMILEY = (
    f"[\\^x=~<>]\\.\\[\\^x=~<>\\]|{_SMILEY_END}_{_SMILEY_END}|\\({_SMILEY_END}[_.]?{_SMILEY_END}\\)"
    "|\\([\\^x=~<>']-[\\^x=~<>'`]\\)"
)
_QUOTES = (
    "[`\u2018\u2019\u201a\u201b\u201c\u201d\u0091\u0092\u0093\u0094\u201e\u201f\u2039\u203a\u00ab\u00bb]{1,2}"
    f"|''|{_APOS}"
)
_MISC_SYMBOL = (
    "[+%&~^|\\\\\u00a6\u00a7\u00a8\u00a9\u00ac\u00ae\u00af\u00b0-\u00ba\u00d7\u00f7\u0387\u05be\u05c0\u05c3"
    "\u05c6\u05f3\u05f4\u0600-\u0603\u0606-\u060a\u060c\u0614\u061b\u061e\u066a\u066d\u0703-\u070d\u07f6-\u07f8"
    "\u0964\u0965\u0e4f\u1fbd\u2016\u2017\u2020-\u2023\u2030-\u2038\u203b\u203e-\u2042\u2044\u207a-\u207f"
    "\u208a-\u208e\u2100-\u214f\u2190-\u21ff\u2200-\u2bff\u3012\u30fb\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40"
    "\uff5b-\uff65]"
)


# ------------------------------------------------------------------------------------------- token actions
def _same(text: str) -> str:
    return text


def _without_soft_hyphens(text: str) -> str:
    return text.replace("\u00ad", "") or "-"


def _nonbreaking(text: str) -> str:
    return text.replace(" ", "\u00a0")


def _brackets(text: str) -> str:
    return text.replace("(", "-LRB-").replace(")", "-RRB-")


def _ampersand(text: str) -> str:
    return re.sub("(?i:&amp;)", "&", text)


def _currency(text: str) -> str:
    return re.sub("[\u0080\u00a4\u20a0\u20ac]", "$", text.replace("\u00a2", "cents").replace("\u00a3", "#"))


_FRACTIONS = {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"}


def _fraction(text: str) -> str:
    return _FRACTIONS.get(text, text)


def _quotes(opening: bool) -> Callable[[str], str]:
    """The LaTeX quotes the tokenizer writes for a quote token (``opening``: it probably opens a quote)."""
    single, double = ("`", "``") if opening else ("'", "''")

    def latex(text: str) -> str:
        text = re.sub("(?i:&apos;)|'", single, text)
        text = re.sub('"|(?i:&quot;)', double, text)
        text = re.sub("[\u0091\u2018\u201b\u2039]", "`", text)
        text = re.sub("[\u0092\u2019\u203a]", "'", text)
        text = re.sub("[\u0093\u201c\u00ab]", "``", text)
        return re.sub("[\u0094\u201d\u00bb]", "''", text)

    return latex


def _constant(token: str) -> Callable[[str], str]:
    return lambda _: token


def _dashes(text: str) -> str:
    return "--" if 3 <= len(text) <= 4 else text


# -------------------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class _Rule:
    """One rule of the scanner: what it matches (``pattern``, then a lookahead that it reads but leaves),
    the text of its token and how much of the match it consumes (``keep``: all of it, as its token, when
    ``None``; what it leaves is scanned again), and what token it writes for that text (``write``; ``None``
    writes nothing)."""

    pattern: re.Pattern[str]
    write: Callable[[str], str] | None
    keep: Callable[[str], tuple[str, int]] | None = None


def _rule(
    pattern: str,
    write: Callable[[str], str] | None = _same,
    lookahead: str = "",
    keep: Callable[[str], tuple[str, int]] | None = None,
) -> _Rule:
    return _Rule(re.compile(f"({pattern})({lookahead})" if lookahead else f"({pattern})()"), write, keep)


def _all_but(count: int) -> Callable[[str], tuple[str, int]]:
    """Consume and write all but the last ``count`` characters."""
    return lambda text: (text[:-count], len(text) - count)


def _period_again(text: str) -> tuple[str, int]:
    """Write the abbreviation with its period, then scan the period again: it also ends the sentence. A
    single letter (``I.``) is written without its period."""
    return (text[0], 1) if len(text) == 2 else (text, len(text) - 1)


_RULES = [
    # programming languages, then the words split in two (``can not``, ``gon na``, ``'t is``)
    _rule(f"{_ci('c')}[+][+]|{_ci('c|f')}#"),
    _rule(_ci("cannot"), keep=_all_but(3)),
    _rule(f"'{_ci('twas')}", keep=_all_but(3)),
    _rule(f"'{_ci('tis')}", keep=_all_but(2)),
    _rule(_ci("gonna|gotta|lemme|gimme|wanna"), keep=_all_but(2)),
    # SGML tags and entities, dashes
    _rule(_SGML, _nonbreaking),
    _rule(f"&{_ci('md|mdash|ndash')};|[\u0096\u0097\u2013\u2014\u2015]", _constant("--")),
    _rule(f"&{_ci('amp')};", _ampersand),
    _rule(f"&(?:{_ci('ht|tl|ur|lr|qc|ql|qr|odq|cdq')}|#[0-9]+);"),
    # words before ``'s``/``n't``, words, words with an apostrophe inside (``o'clock``, ``y'all``)
    _rule(_WORD, _without_soft_hyphens, _REDAUX),
    _rule("[A-Za-z\u00ad]*[A-MO-Za-mo-z]\u00ad*", _without_soft_hyphens, _SREDAUX),
    _rule(_WORD, _without_soft_hyphens),
    _rule(_APOWORD),
    _rule(f"{_ci('y')}{_APOS}", lookahead=f"[{_ALPHA}]"),
    # URLs, e-mail addresses, tags and names
    _rule(_FULLURL),
    _rule(_LIKELYURL),
    _rule(_EMAIL),
    _rule(f"@[a-zA-Z_][a-zA-Z_0-9]*|#{_LETTER}+"),
    # ``'s``, ``n't``; dates, numbers, fractions, the Treebank's names, currencies
    _rule(_REDAUX, _quotes(False), "[^A-Za-z]"),
    _rule(_SREDAUX, _quotes(False), "[^A-Za-z]"),
    _rule(f"[{_DIGIT}]{{1,2}}[-/][{_DIGIT}]{{1,2}}[-/][{_DIGIT}]{{2,4}}"),
    _rule(_NUMBER, _without_soft_hyphens),
    _rule("[\u207a\u207b\u208a\u208b]?(?:[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+|[\u2080-\u2089]+)"),
    _rule(_FRAC, _nonbreaking),
    _rule("[\u00bc\u00bd\u00be\u2153-\u215e]", _fraction),
    _rule(
        f"-{_ci('rrb|lrb|rcb|lcb|rsb|lsb')}-|{_ci('c')}\\.{_ci('d')}\\.{_ci('s')}|{_ci('pro|anti')}-"
        f"|{_ci('s')}(?:&|&{_ci('amp')};)(?:{_ci('p')}-500|{_ci('ls')})|{_ci('cap')}{_APOS}{_ci('n')}"
        f"|{_ci('c')}{_APOS}{_ci('est')}",
        _ampersand,
    ),
    _rule("[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}"),
    _rule("[A-Z]*\\$|#"),
    _rule("[\u00a2\u00a3\u00a4\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6]", _currency),
    # abbreviations: when their period also ends a sentence, and when it does not
    _rule(
        f"{_ACRO}\\.",
        lookahead=f"{_SPACENL}+(?:{_SENTENCE_STARTS}|{_SGML}){_SPACENL}",
        keep=_period_again,
    ),
    _rule(_ABBREV3, lookahead=f"{_SPACENL}?[{_DIGIT}]"),
    _rule(f"{_ci('pt')}[eyEY]\\.|{_ci('co')}\\.", lookahead=f"{_SPACE}{_ci('ltd|lim')}"),
    _rule(_ABBREV1, lookahead=f"{_SPACENL}(?:{_SPACENL}|[{_UPPER}]|{_SGML})", keep=_period_again),
    _rule(_ABBREV1, lookahead="(?s:..)"),
    _rule(_ABBREV1, keep=_period_again),
    _rule(f"{_ABBREV4}\\."),
    _rule(_ABBREV4, lookahead=_SPACE),
    _rule(_ACRO, lookahead=_SPACENL),
    _rule(f"{_APOS}[0-9][0-9]", lookahead=_SPACENL),
    _rule(_FILENAME, lookahead=f"{_SPACENL}|[.?!,]"),
    _rule(f"{_WORD}\\.", _without_soft_hyphens, _INSENTP),
    # phone numbers, double quotes (opening before a letter, digit or $), angle brackets, smileys, brackets
    _rule(_PHONE, lambda text: _brackets(_nonbreaking(text))),
    _rule(f'"|&{_ci("quot")};', _quotes(True), "[A-Za-z0-9$]"),
    _rule(f'"|&{_ci("quot")};', _quotes(False)),
    _rule("\x7f", None),
    _rule(f"<|&{_ci('lt')};", _constant("<")),
    _rule(f">|&{_ci('gt')};", _constant(">")),
    _rule("[<>]?[:;=][-o*']?[()DPdpO\\\\{@|\\[\\]]", _brackets, "[^A-Za-z0-9]"),
    _rule(_ASIAN_SMILEY, _brackets),
    _rule("\\{", _constant("-LCB-")),
    _rule("\\}", _constant("-RCB-")),
    _rule("\\[", _constant("-LSB-")),
    _rule("\\]", _constant("-RSB-")),
    _rule("\\(", _constant("-LRB-")),
    _rule("\\)", _constant("-RRB-")),
    # dashes, ellipses, footnote marks, asterisks and punctuation
    _rule("-+", _dashes),
    _rule("\\.{3,5}|(?:\\.[ \u00a0]){2,4}\\.|[\u0085\u2026]", _constant("...")),
    _rule("@+|#+|_+"),
    _rule("\\*+|(?:\\\\\\*){1,3}"),
    _rule(_INSENTP),
    _rule("[?!]+"),
    _rule("[.\u00a1\u00bf\u037e\u0589\u061f\u06d4\u0700-\u0702\u07fa\u3002]"),
    _rule("="),
    _rule("/"),
    # hyphenated words and other words of letters and digits, ``AT&T``
    _rule(f"{_HTHING}\\.", _without_soft_hyphens, _INSENTP),
    _rule(_HTHING, _without_soft_hyphens),
    _rule(f"{_THING}\\.", lookahead=_INSENTP),
    _rule(_THING),
    _rule(f"{_THINGA}\\.", _ampersand, _INSENTP),
    _rule(_THINGA, _ampersand),
    # quotes (a single one before a word opens a quote), symbols; spaces, line ends and unknown characters
    _rule("'", _quotes(True), "[A-Za-z][^ \t\n\r\u00a0]"),
    _rule(_REDAUX, _quotes(False)),
    _rule(_SREDAUX, _quotes(False)),
    _rule(_QUOTES, _quotes(False)),
    _rule("<<|>>"),
    _rule(_MISC_SYMBOL),
    _rule(f"\\x00|{_SPACE}+|[\u200b\u200e\u200f\ufeff]|&{_ci('nbsp')};|{_NEWLINE}", None),
    _rule(".", None),
]


#: Words that the tokenizer splits in two, and words whose period may belong to them.
_SPLIT = _ci("cannot|gonna|gotta|lemme|gimme|wanna")
_SPLIT_WORDS = re.compile(_SPLIT)
_WORD_AND_PERIOD = re.compile(f"{_ABBREV1}|{_ABBREV3}|{_ABBREV4}\\.|{_FILENAME}")
#: What the rules would do anyway, without trying them all: skip the spaces of a run that starts with an
#: ASCII one; write a word of ASCII letters (but the words split in two) before a space, a line's end, a
#: closing parenthesis or brace, a double quote or punctuation that ends it (not before ``]``: an e-mail
#: address may go on); write a comma, semicolon or colon, or a period that starts no ellipsis, before a
#: space or a line's end.
_SIMPLE = re.compile(
    f'(?!{_SPLIT}(?![A-Za-z]))([A-Za-z]+)(?=[ \\n)}}"]|(?:[,;:]|[!?]+)(?:[ \\n]|\\Z)|\\Z)'
    "|([,;:])(?=[ \\n]|\\Z)|([.])(?=\\n|\\Z|[ ](?![.]))"
    f"|[ ]{_SPACE}*"
)
#: A word of ASCII letters before a period that ends it: the word is a token unless it is an abbreviation.
_BEFORE_PERIOD = re.compile("([A-Za-z]+)(?=[.](?:[ \\n]|\\Z))")


def _scan(text: str, end: int) -> list[str]:
    """The tokens of ``text[:end]``, reading on into ``text[end:]`` where a rule looks ahead."""
    tokens = []
    position = 0
    while position < end:
        simple = _SIMPLE.match(text, position)
        if simple is not None:
            if simple.lastindex is not None:
                tokens.append(simple.group(simple.lastindex))
            position = simple.end()
            continue
        word = _BEFORE_PERIOD.match(text, position)
        if (
            word is not None
            and not _WORD_AND_PERIOD.fullmatch(f"{word.group()}.")
            and not _SPLIT_WORDS.fullmatch(word.group())
        ):
            tokens.append(word.group())
            position = word.end()
            continue
        best, best_end = _RULES[-1], -1
        for rule in _RULES:
            match = rule.pattern.match(text, position)
            if match is not None and match.end() > best_end:
                best, best_end, kept = rule, match.end(), match.group(1)
        consumed = len(kept)
        if best.keep is not None:
            kept, consumed = best.keep(kept)
        position += consumed
        if best.write is not None:
            tokens.append(best.write(kept))
    return tokens


#: Captions of ASCII words, commas and spaces with at most a final period: their words are their tokens.
_PLAIN = re.compile("[ ]*[A-Za-z]+(?:[ ]*,?[ ]+[A-Za-z]+)*[ ]*[.]?[ ]*")
_PLAIN_WORD = re.compile("[A-Za-z]+")


def _plain_words(caption: str) -> list[str] | None:
    """The words of a plain caption, or ``None`` when it needs the scanner."""
    if _PLAIN.fullmatch(caption) is None:
        return None
    words = _PLAIN_WORD.findall(caption)
    if any(_SPLIT_WORDS.fullmatch(word) for word in words):
        return None
    if caption.rstrip().endswith(".") and _WORD_AND_PERIOD.fullmatch(f"{words[-1]}."):
        return None
    return words


#: Characters that join no word for Java's word boundaries, though letters: ideographs and kana.
_OUTSIDE_WORDS = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _joins_word(text: str, index: int) -> bool:
    """Whether ``text[index]`` belongs to the word around it as Java's word boundaries find words: a
    letter or digit (but ideographs and kana), or an underscore, hyphen, period or apostrophe between two
    letters."""
    character = text[index]
    if _OUTSIDE_WORDS.match(character):
        return False
    if character.isalnum():
        return True
    return (
        character in "_-.'\u2019"
        and 0 < index < len(text) - 1
        and text[index - 1].isalpha()
        and text[index + 1].isalpha()
        and not _OUTSIDE_WORDS.search(text[index - 1] + text[index + 1])
    )


def _has_case(text: str) -> bool:
    return any(character.lower() != character.upper() for character in text)


def _lower(text: str) -> str:
    """``text`` lowercased as Java's ``toLowerCase(Locale.ENGLISH)`` does: a capital sigma becomes a final
    sigma when a letter with case comes before it in its word and none after it (Python looks only at
    the characters next to it)."""
    if "\u03a3" not in text:
        return text.lower()
    lowered = []
    for index, character in enumerate(text):
        if character != "\u03a3":
            lowered.append(character.lower())
            continue
        start, end = index, index + 1
        while start > 0 and _joins_word(text, start - 1):
            start -= 1
        while end < len(text) and _joins_word(text, end):
            end += 1
        final = _has_case(text[start:index]) and not _has_case(text[index + 1 : end])
        lowered.append("\u03c2" if final else "\u03c3")
    return "".join(lowered)


#: How many of the next captions a caption's last rule may read on into (the longest lookahead, a
#: sentence's first word after an acronym, may follow empty captions).
_LINES_READ_ON = 8


def ptb_tokenize(captions: Sequence[str]) -> list[str]:
    """Each caption as pycocoevalcap's ``PTBTokenizer().tokenize`` leaves it: tokenized as Stanford CoreNLP
    3.4.1's ``PTBTokenizer -preserveLines -lowerCase`` does, its punctuation tokens dropped, its tokens joined
    by single spaces.

    The captions are read as pycocoevalcap writes them, one line each, so a caption's last token may depend
    on how the next caption starts (``etc.`` before a capital letter ends a sentence).

    Example:
        >>> ptb_tokenize(["A man's riding a horse, isn't he?", "Two dogs (brown) play -- 3/4 of it..."])
        ["a man 's riding a horse is n't he", 'two dogs -lrb- brown -rrb- play 3/4 of it']
        >>> ptb_tokenize(["“Don't,” she said.", "I cannot; we're gonna go to the U.S. The end."])
        ["do n't she said", "i can not we 're gon na go to the u.s. the end"]
    """
    if isinstance(captions, str):
        raise InputError("ptb_tokenize takes a list of captions, not one string: pass [caption]")
    for index, caption in enumerate(captions):
        if not isinstance(caption, str):
            raise InputError(f"caption {index} is a {type(caption).__name__}, not a string: decode it first")
    lines = [caption.replace("\n", " ") for caption in captions]
    tokenized = []
    for index, line in enumerate(lines):
        words = _plain_words(line)
        if words is not None:
            tokenized.append(" ".join(word.lower() for word in words))
            continue
        following = "\n".join(lines[index + 1 : index + 1 + _LINES_READ_ON])
        text = f"{line}\n{following}" if index + 1 < len(lines) else line
        written = " ".join(_lower(token) for token in _scan(text, len(line))).rstrip()
        tokenized.append(" ".join(token for token in written.split(" ") if token not in PUNCTUATION))
    return tokenized

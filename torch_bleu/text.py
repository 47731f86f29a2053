"""From text files to word ids: reading, tokenizing with sacrebleu's tokenizers, one shared vocabulary.

The command line reads every stream (hypotheses and references) once, tokenizes each line with
sacrebleu's own tokenizer and maps words to integer ids with one shared :class:`Vocabulary`; the
counting is :mod:`torch_bleu.corpus_statistics`'s job. This module needs NumPy, not PyTorch.

Example:
    >>> vocab = Vocabulary()
    >>> hyps = vocab.encode([["the", "cat", "sat"], ["a", "dog"]])
    >>> hyps.ids.tolist(), hyps.lengths.tolist()
    ([0, 1, 2, 3, 4], [3, 2])
    >>> vocab.encode([["the", "dog"]]).ids.tolist()
    [0, 4]
"""

from __future__ import annotations

import gzip
import itertools
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Callable, NamedTuple

import numpy as np

#: sacrebleu tokenizers that need no download (the ``-mecab`` ones need sacrebleu's ``ja``/``ko`` extras).
TOKENIZERS = ("13a", "none", "intl", "zh", "char", "ja-mecab", "ko-mecab")


class InputError(ValueError):
    """A problem with the user's input (missing file, bad encoding, ...), reported without a traceback."""


class TokenStream(NamedTuple):
    """One stream of tokenized sentences as word ids, concatenated.

    Attributes:
        ids: ``(T,)`` int64 word ids of all sentences, one after the other.
        lengths: ``(B,)`` int64 number of words of each sentence.
    """

    ids: np.ndarray
    lengths: np.ndarray


def load_tokenizer(name: str, lowercase: bool = False) -> Callable[[str], list[str]]:
    """sacrebleu's tokenizer ``name`` as a function from a line to its words (lowercased first with ``lowercase``).

    Example:
        >>> load_tokenizer("13a")("Hello, world!")
        ['Hello', ',', 'world', '!']
        >>> load_tokenizer("none", lowercase=True)("Hello, World!")
        ['hello,', 'world!']
    """
    try:
        from sacrebleu.metrics.bleu import BLEU
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise InputError("tokenizing text needs sacrebleu: pip install 'torch-bleu[text]'") from error
    if name not in TOKENIZERS:
        raise InputError(f"unknown tokenizer {name!r}; choose one of {', '.join(TOKENIZERS)}")
    try:
        tokenizer: Callable[[str], str] = BLEU(tokenize=name).tokenizer
    except (ImportError, RuntimeError) as error:
        raise InputError(f"tokenizer {name!r} is not usable here: {' '.join(str(error).split())}") from None
    if name == "none" and not lowercase:
        return str.split  # the "none" tokenizer leaves the line as it is: its words are the whitespace-separated fields

    def words(line: str) -> list[str]:
        # sacrebleu lowercases, strips trailing whitespace, tokenizes, then splits on whitespace
        if lowercase:
            line = line.lower()
        return tokenizer(line.rstrip()).split()

    return words


def tokenizer_signature(name: str) -> str:
    """The ``tok:`` field sacrebleu writes for tokenizer ``name`` (e.g. ``13a``, ``ja-mecab-0.996-IPA``)."""
    from sacrebleu.metrics.bleu import BLEU

    return str(BLEU(tokenize=name).tokenizer_signature)


class Vocabulary:
    """Maps every distinct word to a small integer id, in order of first appearance.

    Example:
        >>> vocab = Vocabulary()
        >>> vocab.encode([["b", "a", "b"]]).ids.tolist(), len(vocab)
        ([0, 1, 0], 2)
    """

    def __init__(self) -> None:
        # a missing word gets the next number: the lookups below run in C, without a Python call per word
        self._ids: defaultdict[str, int] = defaultdict(itertools.count().__next__)

    def __len__(self) -> int:
        return len(self._ids)

    def encode(self, sentences: Iterable[Sequence[str]]) -> TokenStream:
        """Ids of the words of every sentence, as one :class:`TokenStream`."""
        sentences = list(sentences)
        lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
        words = itertools.chain.from_iterable(sentences)
        ids = np.fromiter(map(self._ids.__getitem__, words), dtype=np.int64, count=int(lengths.sum()))
        return TokenStream(ids, lengths)


def decode_lines(data: bytes, encoding: str, name: str, universal_newlines: bool = False) -> list[str]:
    """Decode ``data`` and split it into lines without trailing whitespace, as sacrebleu reads them.

    Only ``\\n`` ends a line in files; standard input also accepts ``\\r\\n`` and ``\\r``
    (``universal_newlines``). A decoding error names the line it is on.

    Example:
        >>> decode_lines(b"a b \\nc\\r\\n", "utf-8", "f")
        ['a b', 'c']
        >>> decode_lines(b"ok\\ncaf\\xe9\\n", "utf-8", "f")
        Traceback (most recent call last):
        ...
        torch_bleu.text.InputError: f: line 2 is not valid utf-8 (byte 0xe9); use --encoding for other encodings
    """
    try:
        text = data.decode(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start]
        raise InputError(
            f"{name}: line {line} is not valid {encoding} (byte 0x{byte:02x}); use --encoding for other encodings"
        ) from None
    if universal_newlines:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the text ends with a newline (or is empty)
    return [line.rstrip() for line in lines]


def read_lines(path: str, encoding: str = "utf-8") -> list[str]:
    """The lines of a text file (``.gz`` files are decompressed), without trailing whitespace."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder, expected a text file")
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, mode="rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})") from None
    return decode_lines(data, encoding, path)


def split_systems(lines: list[str], name: str = "<stdin>") -> list[list[str]]:
    """Systems given side by side, one tab-separated field per system on every line.

    Example:
        >>> split_systems(["a\\tb", "c\\td"])
        [['a', 'c'], ['b', 'd']]
    """
    if not lines:
        raise InputError(f"{name}: no input")
    width = len(lines[0].split("\t"))
    systems: list[list[str]] = [[] for _ in range(width)]
    for number, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != width:
            raise InputError(f"{name}: line {number} has {len(fields)} tab-separated systems, line 1 has {width}")
        for system, field in zip(systems, fields):
            system.append(field.rstrip())
    return systems


def reference_files(path: str) -> list[str]:
    """``[path]`` for a file; for a folder, every (non-hidden) file in it, sorted by name."""
    if not os.path.isdir(path):
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file or folder")
        return [path]
    names = sorted(name for name in os.listdir(path) if not name.startswith("."))
    files = [os.path.join(path, name) for name in names if os.path.isfile(os.path.join(path, name))]
    if not files:
        raise InputError(f"{path}: the reference folder holds no file")
    return files


def read_references(
    paths: Sequence[str], encoding: str = "utf-8", num_refs: int = 1
) -> tuple[list[str], list[list[str]]]:
    """Names and lines of the reference streams: one stream per file (folders expand to their files);
    with ``num_refs > 1`` the single reference file holds ``num_refs`` tab-separated references per line."""
    files = [file for path in paths for file in reference_files(path)]
    if num_refs == 1:
        return files, [read_lines(file, encoding) for file in files]
    if len(files) != 1:
        raise InputError("--num-refs splits one reference file on tabs; give exactly one reference file")
    streams: list[list[str]] = [[] for _ in range(num_refs)]
    for number, line in enumerate(read_lines(files[0], encoding), 1):
        fields = line.split("\t", maxsplit=num_refs - 1)
        if len(fields) != num_refs:
            raise InputError(
                f"{files[0]}: line {number} has {len(fields)} tab-separated references, expected {num_refs}"
            )
        for stream, field in zip(streams, fields):
            stream.append(field)
    return [f"{files[0]} (reference {number})" for number in range(1, num_refs + 1)], streams

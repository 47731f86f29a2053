"""Reading text files as sacrebleu reads them: lines without trailing whitespace, systems side by side on
standard input, reference folders and tab-separated references."""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence

from ..errors import MALFORMED_LINES, InputError


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
        torch_bleu.errors.InputError: f: line 2 is not valid utf-8 (byte 0xe9); use --encoding for other encodings
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

    As sacrebleu reads them, each field loses its trailing whitespace, except on the first line, which
    only loses the line's own (what ``--chrf-whitespace`` counts).

    Example:
        >>> split_systems(["a \\tb", "c \\td"])
        [['a ', 'c'], ['b', 'd']]
    """
    if not lines:
        raise InputError(f"{name}: no input")
    width = len(lines[0].split("\t"))
    systems: list[list[str]] = [[] for _ in range(width)]
    for number, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != width:
            raise InputError(
                f"{name}: line {number} has {len(fields)} tab-separated systems, line 1 has {width}", MALFORMED_LINES
            )
        for system, field in zip(systems, fields):
            system.append(field if number == 1 else field.rstrip())
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
                f"{files[0]}: line {number} has {len(fields)} tab-separated references, expected {num_refs}",
                MALFORMED_LINES,
            )
        for stream, field in zip(streams, fields):
            stream.append(field)
    return [f"{files[0]} (reference {number})" for number in range(1, num_refs + 1)], streams

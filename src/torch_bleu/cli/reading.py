"""The systems' text: from files or standard input, checked against the references."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from .files import decode_lines, read_lines, split_systems


def read_systems(args: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
    paired = args.paired_bs or args.paired_ar
    if args.input is None:
        lines = decode_lines(sys.stdin.buffer.read(), args.encoding, "<stdin>", universal_newlines=True)
        systems = split_systems(lines)
        names = [f"System {number}" for number in range(1, len(systems) + 1)]
        if paired:
            names = ["Baseline", *names[:-1]]
    else:
        names, systems = [], []
        for path in args.input:
            if path in names:
                if paired and path == names[0]:
                    continue  # the baseline given again among the systems
                raise InputError(f"{path!r} is given twice; every system needs a different file name")
            names.append(path)
            systems.append(read_lines(path, args.encoding))
        if paired:
            names[0] = f"Baseline: {names[0]}"
    if paired and len(systems) == 1:
        raise InputError("paired tests need several systems given to -i/--input (the first is the baseline)")
    if len(systems) > 1 and args.confidence:
        raise InputError("--confidence is for one system; use --paired-bs or --paired-ar for several")
    if len(systems) > 1 and args.sentence_level:
        raise InputError("only one system can be scored in sentence-level mode")
    return names, systems


def check_lengths(
    names: list[str], systems: list[list[str]], reference_names: list[str], references: list[list[str]]
) -> None:
    for name, system in zip(names, systems):
        if not system:
            raise InputError(f"{name}: holds no sentence")
        for reference_name, reference in zip(reference_names, references):
            if len(reference) != len(system):
                raise InputError(
                    f"{name} has {len(system)} lines but the reference {reference_name} has {len(reference)}"
                )

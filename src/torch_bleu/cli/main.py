"""One run of the command: read, tokenize, count, then score and print."""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from ..errors import InputError
from ..metrics.command_line import CommandLineMetric
from ..threads import cpu_share, get_cpu_threads, set_cpu_threads
from .arguments import FORMATS, build_parser, check_options, choose_device, cpu_threads, metrics, sacrebleu_seed
from .files import read_references
from .jobs import count_systems, paired_jobs
from .output import Counted, print_paired, print_sentences, print_single, print_systems
from .reading import check_lengths, read_systems
from .run import Run, progress_bar
from .test_sets import read_test_sets, select_documents

#: What the command line needs from the ``text`` extra: sacrebleu's tokenizers and output (tqdm's
#: progress bar is left out where tqdm is missing).
TEXT_EXTRA = ("sacrebleu",)
#: The status of a command whose output pipe closed early: a shell's for a process ended by SIGPIPE.
BROKEN_PIPE_STATUS = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status, as sacrebleu's: 0, 1 for bad input, 17 for lines with
    other numbers of tab-separated fields than the first (argparse exits with 2)."""
    args = build_parser().parse_args(argv)
    if os.environ.get("SACREBLEU_FORMAT", "").lower() in FORMATS:
        args.format = os.environ["SACREBLEU_FORMAT"].lower()
    try:
        with _garbage_collection_paused():
            return _run(args)
    except InputError as error:
        print(f"torch-bleu: error: {error}", file=sys.stderr)
        return error.exit_status
    except ModuleNotFoundError as error:
        missing = (error.name or "").split(".")[0]
        if missing not in TEXT_EXTRA:
            raise
        print(f"torch-bleu: error: the command line needs {missing}: pip install 'torch-bleu[text]'", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader stopped early (`| head`): end quietly, as sacrebleu does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return BROKEN_PIPE_STATUS


@contextmanager
def _garbage_collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, which would otherwise scan the corpus's growing word
    lists hundreds of times, for nothing: they hold no reference cycles (saves 15-20% of the encoding)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    check_options(args)
    bound = get_cpu_threads()
    set_cpu_threads(cpu_threads(args))
    try:
        with cpu_share(blas=True):
            return _score(args)
    finally:
        set_cpu_threads(bound)


def _score(args: argparse.Namespace) -> int:
    device = choose_device(args)
    chosen = metrics(args)
    run = Run(args, sacrebleu_seed(), show_progress=not args.quiet and sys.stderr.isatty())

    reference_names, references = _read_references(args)
    names, systems = read_systems(args)
    check_lengths(names, systems, reference_names, references)
    if args.test_set is not None:
        selected = select_documents(args.test_set, args.langpair, args.origlang, args.subset, [*systems, *references])
        systems, references = selected[: len(systems)], selected[len(systems) :]
    counted = [Counted(metric, _count(metric, names, systems, references, device, run)) for metric in chosen]

    tests = {"nrefs": str(len(references))}
    if args.sentence_level:
        print_sentences(counted[0], run, tests)
    elif len(systems) == 1:
        print_single(counted, run, tests)
    elif args.paired_bs or args.paired_ar:
        print_paired(names, counted, run, tests)
    else:
        print_systems(names, counted, run, tests)
    return 0


def _read_references(args: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
    """Names and lines of the reference streams: the files given, or the test set's (``-t``, ``-l``)."""
    if args.test_set is None:
        return read_references(args.refs, args.encoding, args.num_refs)
    return read_test_sets(args.test_set, args.langpair, args.encoding)


def _count(
    metric: CommandLineMetric,
    names: list[str],
    systems: list[list[str]],
    references: list[list[str]],
    device: str,
    run: Run,
) -> np.ndarray:
    """Per-sentence statistics of every system, counted with NumPy on the CPU or on PyTorch ``device``."""
    encoded_systems, encoded_references = metric.encode(systems, references, names)
    sentences = len(references[0])
    on_device = None if device == "cpu" else device
    count = functools.partial(metric.count, references=encoded_references, device=on_device)
    jobs = _jobs(run, device, len(systems))
    description = f"{metric.title}: counting"
    with progress_bar(sentences * len(systems), description, run.show_progress, "sentence") as advance:
        return count_systems(count, encoded_systems, metric.systems_per_task, jobs, advance, sentences)


def _jobs(run: Run, device: str, systems: int) -> int:
    """Worker processes that count for the paired tests (``--paired-jobs``); on a PyTorch device, none."""
    args = run.args
    if device != "cpu" or not (args.paired_bs or args.paired_ar):
        return 1
    return paired_jobs(args.paired_jobs, systems)

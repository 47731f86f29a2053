"""The command line's arguments: sacrebleu's options (and a few of ours), their checks and what they decide."""

from __future__ import annotations

import argparse
import os
import shutil

from ..errors import InputError
from ..metrics.command_line import CommandLineMetric
from ..version import __version__
from .metrics import METRICS

#: How many resamples (bootstrap) or trials (approximate randomization) the tests draw by default, as in
#: sacrebleu, which also draws them for a number given as 0 or less.
SAMPLE_DEFAULTS = {"bs": 1000, "ar": 10000}
#: The options that set those numbers, their defaults and what they count.
SAMPLE_OPTIONS = (
    (("--confidence-n", "-cin"), SAMPLE_DEFAULTS["bs"], "Bootstrap resamples for --confidence"),
    (("--paired-ar-n", "-parn"), SAMPLE_DEFAULTS["ar"], "Approximate randomization trials"),
    (("--paired-bs-n", "-pbsn"), SAMPLE_DEFAULTS["bs"], "Bootstrap resamples of the paired test"),
)
FORMATS = ("json", "text", "latex")
#: Where the output differs from sacrebleu's on purpose (checked against sacrebleu 2.6.0).
DIFFERENCES = """\
The output is sacrebleu's (2.6.0), but for two numbers that sacrebleu computes less exactly:
  --paired-ar with -s add-k and a -sv that is not a whole number: sacrebleu adds the value to
    integer statistics in its randomization trials, so -sv 0.5 counts as 0 there (not in its
    scores); here the trials are smoothed as the scores are, and the p-value may differ.
  the bootstrap means and confidence intervals (of -ci, --paired-bs and --paired-ar) may differ
    in their millionths (-w 6), as sacrebleu scores resamples with float32 statistics and
    torch-bleu with float64 ones; the p-values agreed in every case tested."""


def build_parser() -> argparse.ArgumentParser:
    """sacrebleu's options for local files, each metric's own (``--max-ngram-order`` among BLEU's), and ``--device``."""
    parser = argparse.ArgumentParser(
        prog="torch-bleu",
        description="BLEU, chrF and TER as sacrebleu computes them, counted on a GPU with PyTorch or on the CPU "
        "with NumPy (TER searches its shifts on the CPU).\n"
        "Examples: torch-bleu ref.de -i system-a.de system-b.de --paired-bs\n"
        "          torch-bleu -t wmt17 -l en-de -i system-a.de   (references from sacrebleu's local cache)",
        epilog=DIFFERENCES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_test_set_arguments(parser)
    parser.add_argument(
        "--input",
        "-i",
        type=str,
        nargs="*",
        default=None,
        help="Hypothesis file(s), one per system (default: standard input, systems separated by tabs).",
    )
    parser.add_argument(
        "refs",
        nargs="*",
        default=[],
        help="Reference files, given before -i (or a test set with -t). A folder stands for all files in it, "
        "in name order.",
    )
    parser.add_argument(
        "--num-refs",
        "-nr",
        type=int,
        default=1,
        help="Split the single reference file on tabs into this many references (default: 1).",
    )
    parser.add_argument(
        "--encoding", "-e", type=str, default="utf-8", help="Encoding of the input files (default: utf-8)."
    )
    parser.add_argument(
        "--metrics",
        "-m",
        choices=list(METRICS),
        nargs="+",
        default=["bleu"],
        help="Metrics to compute (default: bleu). bleu: n-grams of the words of --tokenize. chrf: character "
        "n-grams up to --chrf-char-order, spaces left out (unless --chrf-whitespace), and with "
        "--chrf-word-order (chrF++ at 2) word n-grams too, of the whitespace-separated words with a "
        "punctuation mark at a word's end, or else at its start, split off; a hypothesis is scored "
        "against each of its references and the best one counts.",
    )
    parser.add_argument(
        "--sentence-level", "-sl", action="store_true", help="Print the score of every sentence (first metric)."
    )

    for metric in METRICS.values():
        metric.add_arguments(parser)

    tests = parser.add_argument_group("Confidence intervals and paired significance tests")
    tests.add_argument(
        "--confidence", "-ci", action="store_true", help="Report a bootstrap confidence interval (single system)."
    )
    paired = tests.add_mutually_exclusive_group()
    paired.add_argument(
        "--paired-ar",
        "-par",
        action="store_true",
        help="Paired approximate randomization test against the first system.",
    )
    paired.add_argument(
        "--paired-bs", "-pbs", action="store_true", help="Paired bootstrap resampling test against the first system."
    )
    for names, default, what in SAMPLE_OPTIONS:
        tests.add_argument(*names, type=int, default=default, help=f"{what} (default: %(default)s).")
    tests.add_argument(
        "--paired-jobs",
        "-j",
        type=int,
        default=1,
        help="Worker processes that count the systems' statistics for the paired tests; 0: half the CPUs, "
        "at most one per system compared with the baseline (default: %(default)s).",
    )

    report = parser.add_argument_group("Output")
    report.add_argument("--quiet", "-q", action="store_true", help="No progress bar.")
    report.add_argument("--short", "-sh", action="store_true", help="Short signature.")
    report.add_argument("--score-only", "-b", action="store_true", help="Print only the score.")
    report.add_argument("--width", "-w", type=int, default=1, help="Decimals of printed scores (default: %(default)s).")
    report.add_argument("--no-color", "-nc", action="store_true", help="No terminal colors.")
    report.add_argument(
        "--format",
        "-f",
        choices=FORMATS,
        default="json",
        help="Output format (default: json; $SACREBLEU_FORMAT overrides it). latex is for several systems.",
    )
    report.add_argument(
        "--device",
        default=None,
        help="Where to count n-grams: cpu (with NumPy, without importing PyTorch) or a PyTorch "
        "device for the tensor engine, such as cuda, cuda:1 or cpu:0 (default: cuda when "
        "PyTorch sees a GPU, else cpu).",
    )
    report.add_argument(
        "--threads",
        type=int,
        default=None,
        help="CPU threads of the command's own work, in every pool it uses (NumPy's BLAS, and PyTorch's with a "
        "--device other than cpu; default: OMP_NUM_THREADS where it is set, else 1).",
    )
    parser.add_argument("--version", "-V", action="version", version=f"%(prog)s {__version__}")
    return parser


def add_test_set_arguments(parser: argparse.ArgumentParser) -> None:
    """sacrebleu's options that take the references from one of its test sets instead of files."""
    test_sets = parser.add_argument_group("Test sets (read from sacrebleu's local cache, never downloaded)")
    test_sets.add_argument(
        "--test-set",
        "-t",
        default=None,
        help="sacrebleu's test set instead of reference files (`sacrebleu --list` lists them), or several, "
        "comma-separated, concatenated. Its files must be in sacrebleu's cache ($SACREBLEU, else ~/.sacrebleu).",
    )
    test_sets.add_argument(
        "--language-pair",
        "-l",
        dest="langpair",
        type=language_pair,
        default=None,
        help="Source-target language pair (2-char ISO639-1 codes), such as en-de: the test set's pair, and "
        "the target language picks BLEU's tokenizer when -tok is not given, as in sacrebleu (also with "
        "reference files).",
    )
    test_sets.add_argument(
        "--origlang",
        "-ol",
        default=None,
        help="Score only the documents of the test set with this original language (2-char ISO639-1 code); "
        'a "non-" prefix negates it.',
    )
    test_sets.add_argument(
        "--subset",
        default=None,
        help="Score only the documents of the test set whose annotation (sacrebleu's SUBSETS, or the domain "
        "of WMT XML test sets) matches this regular expression.",
    )


def language_pair(value: str) -> str:
    """``-l``'s value as given, once it is known to name a source and a target language (``en-de``)."""
    if "-" not in value:
        raise argparse.ArgumentTypeError(f"expected source-target language codes such as en-de, got {value!r}")
    return value


def check_options(args: argparse.Namespace) -> None:
    _check_references(args)
    if args.input is not None and not args.input:
        raise InputError("-i/--input needs at least one hypothesis file")
    if args.num_refs < 1:
        raise InputError(f"--num-refs must be at least 1, got {args.num_refs}")
    if args.width < 0:
        raise InputError(f"--width must not be negative, got {args.width}")
    if args.paired_jobs < 0:
        raise InputError(f"--paired-jobs must not be negative, got {args.paired_jobs}")
    if args.threads is not None and args.threads < 1:
        raise InputError(f"--threads must be at least 1, got {args.threads}")
    if args.sentence_level and len(args.metrics) > 1:
        raise InputError("only one metric can be scored in sentence-level mode")
    if args.sentence_level and (args.confidence or args.paired_bs or args.paired_ar):
        raise InputError("statistical tests are unavailable in sentence-level mode")


def _check_references(args: argparse.Namespace) -> None:
    """Reference files, or a test set with its language pair, as sacrebleu takes them."""
    if args.test_set is None:
        if not args.refs:
            raise InputError("give the reference file(s) before -i/--input, or a test set with -t and -l")
        if args.origlang is not None or args.subset is not None:
            raise InputError("--origlang and --subset select documents of a test set; give one with -t and -l")
        return
    if args.refs:
        raise InputError("give either a test set (-t) or reference files, not both")
    if args.langpair is None:
        raise InputError(f"-t {args.test_set} needs a language pair (-l), such as -l en-de")
    if args.num_refs != 1:
        raise InputError("--num-refs splits a reference file on tabs; a test set (-t) has its own references")


def choose_device(args: argparse.Namespace) -> str:
    """``"cpu"`` (NumPy counts; PyTorch stays unimported) or a PyTorch device that works, set up."""
    name = args.device if args.device is not None else ("cuda" if _gpu_usable() else "cpu")
    if name == "cpu":
        return name
    try:
        import torch

        torch.empty(0, device=torch.device(name))
    except ImportError:  # pragma: no cover - depends on the installation
        raise InputError(f"--device {name} needs PyTorch") from None
    except (RuntimeError, AssertionError) as error:
        raise InputError(f"device {name!r} is not usable: {error}") from None
    torch.set_num_threads(cpu_threads(args))
    return name


def cpu_threads(args: argparse.Namespace) -> int:
    """The CPU threads the command's own work may use, in every pool (PyTorch's, BLAS's): ``--threads``,
    else ``OMP_NUM_THREADS`` where it is set to a number, else 1 (the engine runs many short operations,
    which extra threads rarely speed up and which slow down many times beside other busy processes).

    Example:
        >>> cpu_threads(argparse.Namespace(threads=3))
        3
    """
    if args.threads is not None:
        threads: int = args.threads
        return threads
    given = os.environ.get("OMP_NUM_THREADS", "")
    return int(given) if given.isdigit() and int(given) > 0 else 1


def _gpu_usable() -> bool:
    """Whether PyTorch can use a CUDA GPU. Asked only where an NVIDIA driver shows, since asking imports PyTorch."""
    if not (os.path.isdir("/proc/driver/nvidia/gpus") or shutil.which("nvidia-smi")):
        return False
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the installation
        return False
    return torch.cuda.is_available()


def metrics(args: argparse.Namespace) -> list[CommandLineMetric]:
    """The metrics ``-m`` names, in the order given (sentence-level mode prints the first), with their options."""
    chosen = []
    for name in dict.fromkeys(args.metrics):
        try:
            chosen.append(METRICS[name].from_arguments(args))
        except (TypeError, ValueError) as error:
            raise InputError(str(error)) from None
    return chosen


def sacrebleu_seed() -> int | None:
    """sacrebleu's seed: ``$SACREBLEU_SEED`` (``none`` for fresh entropy), 12345 by default."""
    value = os.environ.get("SACREBLEU_SEED", "12345")
    if value.lower() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise InputError(f"SACREBLEU_SEED must be an integer or 'none', got {value!r}") from None

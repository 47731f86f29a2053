"""``torch-bleu``: sacrebleu's BLEU command line, counting on the tensor engine.

Usage is sacrebleu's (``torch-bleu REF [REF ...] -i HYP [HYP ...]``, or hypotheses on standard input),
and so is the output, line for line: a JSON record or a text line for one system, a table for several,
and a table with p-values for ``--paired-bs`` / ``--paired-ar``. The signature names torch-bleu's
version. What differs is underneath: text is tokenized once, words become ids, n-grams are counted
in batches (:mod:`torch_bleu.corpus_statistics`) and the significance tests run as batched array
operations (:mod:`torch_bleu.significance`). On a GPU (``--device cuda``, the default when there is
one) the tensor engine counts; on the CPU NumPy counts every system at once, and PyTorch, whose import
alone takes longer than the whole count, is not imported at all.

This module only parses arguments and prints; :mod:`torch_bleu.text` reads and tokenizes,
:mod:`torch_bleu.corpus_statistics` counts, :mod:`torch_bleu.significance` resamples. The corpus-level
numbers that are printed (score, precisions, brevity penalty) come from sacrebleu's
``BLEU.compute_bleu`` applied to our integer statistics, so they are bit-identical to sacrebleu's at
any ``--width``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from . import __version__
from .config import BLEUConfig
from .corpus_statistics import device_statistics, host_statistics
from .significance import PairedResult, paired_approximate_randomization, paired_bootstrap
from .text import (
    TOKENIZERS,
    InputError,
    TokenStream,
    Vocabulary,
    decode_lines,
    load_tokenizer,
    read_lines,
    read_references,
    split_systems,
    tokenizer_signature,
)

if TYPE_CHECKING:
    from sacrebleu.metrics.bleu import BLEUScore

#: A paired test of :mod:`torch_bleu.significance`: (packed, config, n_samples, seed, progress=...) -> result.
PairedTest = Callable[..., PairedResult]

SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
SAMPLE_DEFAULTS = {"bs": 1000, "ar": 10000}
FORMATS = ("json", "text", "latex")
#: Signature fields in sacrebleu's order (``version`` last) with their ``--short`` names.
SIGNATURE_FIELDS = {
    "nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs", "case": "c", "eff": "e", "tok": "tok", "smooth": "s",
    "ngram": "n", "version": "v",
}  # fmt: skip
ANSI = {"yellow": "\x1b[33m", "cyan": "\x1b[36m", "red": "\x1b[31m", "green": "\x1b[32m"}


def build_parser() -> argparse.ArgumentParser:
    """sacrebleu's options that concern BLEU on local files, plus ``--max-ngram-order`` and ``--device``."""
    parser = argparse.ArgumentParser(
        prog="torch-bleu",
        description="BLEU as sacrebleu computes it, counted on a GPU with PyTorch or on the CPU with NumPy.\n"
        "Example: torch-bleu ref.de -i system-a.de system-b.de --paired-bs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
        help="Reference files, given before -i. A folder stands for all files in it, in name order.",
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
        choices=["bleu"],
        nargs="+",
        default=["bleu"],
        help="Accepted for compatibility; torch-bleu computes BLEU only.",
    )
    parser.add_argument("--sentence-level", "-sl", action="store_true", help="Print the BLEU of every sentence.")

    bleu = parser.add_argument_group("BLEU options")
    bleu.add_argument(
        "--smooth-method",
        "-s",
        choices=list(SMOOTH_DEFAULTS),
        default="exp",
        help="Smoothing method (default: %(default)s).",
    )
    bleu.add_argument(
        "--smooth-value",
        "-sv",
        type=float,
        default=None,
        help="Smoothing value of floor (default 0.1) and add-k (default 1).",
    )
    bleu.add_argument(
        "--tokenize", "-tok", choices=TOKENIZERS, default="13a", help="sacrebleu tokenizer (default: %(default)s)."
    )
    bleu.add_argument("--lowercase", "-lc", action="store_true", help="Case-insensitive BLEU.")
    bleu.add_argument("--force", action="store_true", help="Do not warn about input that looks tokenized.")
    bleu.add_argument("--max-ngram-order", type=int, default=4, help="Highest n-gram order (default: %(default)s).")

    tests = parser.add_argument_group("Confidence intervals and paired significance tests")
    tests.add_argument(
        "--confidence", "-ci", action="store_true", help="Report a bootstrap confidence interval (single system)."
    )
    tests.add_argument(
        "--confidence-n",
        "-cin",
        type=int,
        default=1000,
        help="Bootstrap resamples for --confidence (default: %(default)s).",
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
    tests.add_argument(
        "--paired-ar-n",
        "-parn",
        type=int,
        default=10000,
        help="Approximate randomization trials (default: %(default)s).",
    )
    tests.add_argument(
        "--paired-bs-n",
        "-pbsn",
        type=int,
        default=1000,
        help="Bootstrap resamples of the paired test (default: %(default)s).",
    )
    tests.add_argument(
        "--paired-jobs",
        "-j",
        type=int,
        default=1,
        help="Accepted for compatibility; the tests run vectorized in one process.",
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
        help="CPU threads for PyTorch with a --device other than cpu (default: 1 unless OMP_NUM_THREADS is set).",
    )
    parser.add_argument("--version", "-V", action="version", version=f"%(prog)s {__version__}")
    return parser


@dataclass
class Run:
    """What every step of one invocation needs: the options, the BLEU flavour, the seed, the progress bar."""

    args: argparse.Namespace
    config: BLEUConfig
    seed: int | None
    show_progress: bool


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 1 for bad input; argparse exits with 2)."""
    args = build_parser().parse_args(argv)
    if os.environ.get("SACREBLEU_FORMAT", "").lower() in FORMATS:
        args.format = os.environ["SACREBLEU_FORMAT"].lower()
    try:
        with _garbage_collection_paused():
            return _run(args)
    except InputError as error:
        print(f"torch-bleu: error: {error}", file=sys.stderr)
        return 1


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
    _check_options(args)
    device = _device(args)
    run = Run(args, _bleu_config(args), _seed(), show_progress=not args.quiet and sys.stderr.isatty())
    words = load_tokenizer(args.tokenize, args.lowercase)

    reference_names, references = read_references(args.refs, args.encoding, args.num_refs)
    names, systems = _read_systems(args)
    _check_lengths(names, systems, reference_names, references)
    if not args.force:
        _warn_if_tokenized(names, systems)

    vocabulary = Vocabulary()
    reference_ids = [vocabulary.encode(map(words, stream)) for stream in references]
    system_ids = [vocabulary.encode(map(words, system)) for system in systems]
    packed = _count(system_ids, reference_ids, device, run)  # (K, B, 2 + 2N)

    signature = {"nrefs": str(len(references))}
    if args.sentence_level:
        _print_sentences(packed, run, signature)
    elif len(systems) == 1:
        _print_single(packed, run, signature)
    elif args.paired_bs or args.paired_ar:
        _print_paired(names, packed, run, signature)
    else:
        _print_systems(names, packed, run, signature)
    return 0


def _count(systems: list[TokenStream], references: list[TokenStream], device: str, run: Run) -> np.ndarray:
    """Per-sentence statistics of every system, with NumPy on the CPU or the tensor engine on ``device``."""
    order = run.args.max_ngram_order
    sentences = len(references[0].lengths)
    if device == "cpu":
        with _progress_bar(sentences, "counting n-grams", run.show_progress) as advance:
            return host_statistics(systems, references, order, progress=advance)
    with _progress_bar(sentences * len(systems), "counting n-grams", run.show_progress) as advance:
        return device_statistics(systems, references, order, device, progress=advance)


# ---------------------------------------------------------------------------------------------- input


def _check_options(args: argparse.Namespace) -> None:
    if not args.refs:
        raise InputError("give the reference file(s) before -i/--input (torch-bleu has no built-in test sets)")
    if args.input is not None and not args.input:
        raise InputError("-i/--input needs at least one hypothesis file")
    if args.num_refs < 1:
        raise InputError(f"--num-refs must be at least 1, got {args.num_refs}")
    if args.max_ngram_order < 1:
        raise InputError(f"--max-ngram-order must be at least 1, got {args.max_ngram_order}")
    if args.width < 0:
        raise InputError(f"--width must not be negative, got {args.width}")
    if args.threads is not None and args.threads < 1:
        raise InputError(f"--threads must be at least 1, got {args.threads}")
    if args.sentence_level and (args.confidence or args.paired_bs or args.paired_ar):
        raise InputError("statistical tests are unavailable in sentence-level mode")


def _device(args: argparse.Namespace) -> str:
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
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    elif "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(1)  # the engine runs many small operations, which extra threads rarely speed up
    return name


def _gpu_usable() -> bool:
    """Whether PyTorch can use a CUDA GPU. Asked only where an NVIDIA driver shows, since asking imports PyTorch."""
    if not (os.path.isdir("/proc/driver/nvidia/gpus") or shutil.which("nvidia-smi")):
        return False
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the installation
        return False
    return torch.cuda.is_available()


def _bleu_config(args: argparse.Namespace) -> BLEUConfig:
    try:
        return BLEUConfig(
            max_order=args.max_ngram_order,
            smoothing=args.smooth_method,
            smooth_value=args.smooth_value,
            effective_order=args.sentence_level,
        )
    except (TypeError, ValueError) as error:
        raise InputError(str(error)) from None


def _read_systems(args: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
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


def _check_lengths(
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


def _warn_if_tokenized(names: list[str], systems: list[list[str]]) -> None:
    for name, system in zip(names, systems):
        if sum(line.endswith(" .") for line in system) >= 100:
            print(
                f"torch-bleu: warning: {name}: 100 or more lines end in a tokenized period (' .'); "
                "BLEU expects detokenized text (--force silences this)",
                file=sys.stderr,
            )


@contextmanager
def _progress_bar(total: int, description: str, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A tqdm bar on standard error when ``enabled`` (and tqdm is installed), else a no-op."""
    bar = None
    if enabled:
        try:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=description, file=sys.stderr, leave=False)
        except ImportError:
            pass

    def advance(done: int) -> None:
        if bar is not None:
            bar.update(done)

    try:
        yield advance
    finally:
        if bar is not None:
            bar.close()


def _seed() -> int | None:
    """sacrebleu's seed: ``$SACREBLEU_SEED`` (``none`` for fresh entropy), 12345 by default."""
    value = os.environ.get("SACREBLEU_SEED", "12345")
    if value.lower() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise InputError(f"SACREBLEU_SEED must be an integer or 'none', got {value!r}") from None


# ---------------------------------------------------------------------------------------------- scores


def _corpus_score(packed: Sequence[int], args: argparse.Namespace, effective_order: bool = False) -> BLEUScore:
    """sacrebleu's ``BLEUScore`` of summed statistics ``[hyp_len, ref_len, matches..., totals...]``."""
    from sacrebleu.metrics.bleu import BLEU

    order = args.max_ngram_order
    return BLEU.compute_bleu(
        correct=list(packed[2 : 2 + order]),
        total=list(packed[2 + order :]),
        sys_len=packed[0],
        ref_len=packed[1],
        smooth_method=args.smooth_method,
        smooth_value=args.smooth_value,
        effective_order=effective_order,
        max_ngram_order=order,
    )


def _describe(args: argparse.Namespace, signature: dict[str, str], effective_order: bool = False) -> dict[str, str]:
    """The full signature: ``signature``'s test fields plus the BLEU options, in sacrebleu's order."""
    smooth = args.smooth_method
    if SMOOTH_DEFAULTS[smooth] is not None:
        value = args.smooth_value if args.smooth_value is not None else SMOOTH_DEFAULTS[smooth]
        smooth += f"[{value:.2f}]"
    fields = dict(signature)
    fields.update(
        case="lc" if args.lowercase else "mixed",
        eff="yes" if effective_order else "no",
        tok=tokenizer_signature(args.tokenize),
        smooth=smooth,
    )
    if args.max_ngram_order != 4:
        fields["ngram"] = str(args.max_ngram_order)
    fields["version"] = f"torch-bleu-{__version__}"
    return {name: fields[name] for name in SIGNATURE_FIELDS if name in fields}


def _signature_text(fields: dict[str, str], short: bool) -> str:
    return "|".join(f"{SIGNATURE_FIELDS[name] if short else name}:{value}" for name, value in fields.items())


def _verbose(score: BLEUScore) -> str:
    precisions = "/".join(f"{precision:.1f}" for precision in score.precisions)
    return (
        f"{precisions} (BP = {score.bp:.3f} ratio = {score.ratio:.3f} "
        f"hyp_len = {score.sys_len:d} ref_len = {score.ref_len:d})"
    )


def _score_record(
    score: BLEUScore, args: argparse.Namespace, fields: dict[str, str], confidence: tuple[float, float] | None = None
) -> str:
    """One system's JSON record or text line (sacrebleu's ``Score.format``)."""
    width = args.width
    shown = f"{score.score:.{width}f}"
    record: dict[str, object] = {"name": "BLEU", "score": float(shown), "signature": _signature_text(fields, False)}
    if confidence is not None and confidence[0] > 0:
        mean, half_width = f"{confidence[0]:.{width}f}", f"{confidence[1]:.{width}f}"
        interval = f"μ = {mean} ± {half_width}"
        record.update(confidence_mean=float(mean), confidence_var=float(half_width), confidence=interval)
        shown += f" ({interval})" if args.format == "json" else " " + _paint(f"({interval})", "cyan", args)
    if args.score_only:
        return shown
    record["verbose_score"] = _verbose(score)
    if args.format == "json":
        record.update(fields)
        return json.dumps(record, indent=1, ensure_ascii=False)
    return f"BLEU|{_signature_text(fields, args.short)} = {shown} {record['verbose_score']}"


def _print_sentences(packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    signature_text = _signature_text(_describe(args, signature, effective_order=True), args.short)
    for row in packed[0].tolist():
        score = _corpus_score(row, args, effective_order=True)
        shown = f"{score.score:.{args.width}f}"
        print(shown if args.score_only else f"BLEU|{signature_text} = {shown} {_verbose(score)}")


def _print_single(packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    score = _corpus_score(packed[0].sum(axis=0).tolist(), args)
    confidence = None
    if args.confidence and args.confidence_n > 1:
        result = _run_test(paired_bootstrap, packed, run, args.confidence_n, "bootstrap")
        assert result.means is not None and result.cis is not None  # a bootstrap gives both
        confidence = (result.means[0].item(), result.cis[0].item())
        signature = {**signature, "bs": str(args.confidence_n), "seed": str(run.seed).lower()}
    print(_score_record(score, args, _describe(args, signature), confidence))


def _run_test(test: PairedTest, packed: np.ndarray, run: Run, n: int, description: str) -> PairedResult:
    with _progress_bar(n, description, run.show_progress) as advance:
        return test(packed, run.config, n, run.seed, progress=advance)


def _print_systems(names: list[str], packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    shown = [f"{_corpus_score(row, args).score:.{args.width}f}" for row in packed.sum(axis=1).tolist()]
    if args.format == "json":
        print(json.dumps([{"system": name, "BLEU": value} for name, value in zip(names, shown)], indent=4))
        return
    _print_table({"System": names, "BLEU": shown}, args)
    _print_signatures(_describe(args, signature), args)


def _print_paired(names: list[str], packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    kind = "bs" if args.paired_bs else "ar"
    requested = args.paired_bs_n if kind == "bs" else args.paired_ar_n
    n = requested if requested > 0 else SAMPLE_DEFAULTS[kind]
    if kind == "bs":
        result = _run_test(paired_bootstrap, packed, run, n, "paired bootstrap")
    else:
        result = _run_test(paired_approximate_randomization, packed, run, n, "approximate randomization")

    scores = [_corpus_score(row, args).score for row in packed.sum(axis=1).tolist()]
    p_values = [None, *result.p_values[1:].tolist()]
    means = result.means.tolist() if result.means is not None else [None] * len(names)
    cis = result.cis.tolist() if result.cis is not None else [None] * len(names)
    if args.format == "json":
        records = [
            {"system": name, "BLEU": {"score": score, "p_value": p, "mean": mean, "ci": ci}}
            for name, score, p, mean, ci in zip(names, scores, p_values, means, cis)
        ]
        print(json.dumps(records, indent=4))
        return

    width, multiline = args.width, args.format == "text"
    cells = []
    for score, p, mean, ci in zip(scores, p_values, means, cis):
        cell = f"{score:.{width}f}"
        if mean is not None:
            cell += f" ({mean:.{width}f} ± {ci:.{width}f})"
        if p is not None:
            p_text = f"(p = {p:.4f})"
            cell += ("\n" if multiline else " ") + (_paint(p_text, "red", args) if p > 0.05 else p_text + "*")
        cells.append(cell)
    header = "BLEU (μ ± 95% CI)" if kind == "bs" else "BLEU"
    has_baseline_name = names[0].startswith("Baseline:")
    _print_table({"System": list(names), header: cells}, args, highlight_first_row=has_baseline_name)
    _print_explanation(kind, n, names[0] if has_baseline_name else "", args)
    _print_signatures(_describe(args, {**signature, kind: str(n), "seed": str(run.seed).lower()}), args)


# ---------------------------------------------------------------------------------------------- layout


def _colors_enabled(args: argparse.Namespace) -> bool:
    return not args.no_color and not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def _paint(text: str, color: str, args: argparse.Namespace) -> str:
    return f"{ANSI[color]}{text}\x1b[0m" if _colors_enabled(args) else text


def _print_table(columns: dict[str, list[str]], args: argparse.Namespace, highlight_first_row: bool = False) -> None:
    from tabulate import tabulate

    if highlight_first_row:  # the baseline's row
        columns = {name: [_paint(values[0], "yellow", args), *values[1:]] for name, values in columns.items()}
    columns = {_paint(name, "cyan", args): values for name, values in columns.items()}
    table_format = {"text": "fancy_grid", "latex": "latex_booktabs"}[args.format]
    print(tabulate(columns, headers="keys", tablefmt=table_format, colalign=("right",), stralign="center",
                   numalign="center", floatfmt=f".{args.width}f"))  # fmt: skip
    print()


def _print_explanation(kind: str, n: int, baseline_name: str, args: argparse.Namespace) -> None:
    """The notes sacrebleu prints under a paired-test table (kept word for word: scripts compare outputs)."""
    test = "bootstrap resampling" if kind == "bs" else "approximate randomization"
    unit = "resampling trials" if kind == "bs" else "trials"
    title = f"Paired {test} test with {n} {unit}"
    baseline = _paint("baseline", "yellow", args)
    null = _paint("Null hypothesis", "green", args)
    null_lower = _paint("null hypothesis", "green", args)
    red = _paint("highlighted in red", "red", args)
    provided = (
        "Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric."
        if kind == "bs"
        else "Actual system score is provided for each metric."
    )
    lines = [
        "-" * len(title), title, "-" * len(title),
        f" - Each system is pairwise compared to {_paint(baseline_name, 'yellow', args)}.",
        f"   {provided}",
        "",
        f" - {null}: the system and the {baseline} translations are essentially",
        f"   generated by the same underlying process. For a given system and the {baseline},",
        "   the p-value is roughly the probability of the absolute score difference (delta)",
        f"   or higher occurring due to chance, under the assumption that the {null_lower} is correct.",
        "",
        f" - Assuming a significance threshold of 0.05, the {null_lower} can be rejected",
        '   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely to be attributed',
        f'   to chance, hence the system is significantly "different" than the {baseline}.',
        f"   Otherwise, the p-values are {red}.",
        "",
        f' - NOTE: Significance does not tell whether a system is "better" than the {baseline} but rather',
        '   emphasizes the "difference" of the systems in terms of the replicability of the delta.',
        "",
    ]  # fmt: skip
    print("\n".join(lines))


def _print_signatures(fields: dict[str, str], args: argparse.Namespace) -> None:
    print("-----------------\nMetric signatures\n-----------------")
    print(f" - {'BLEU':<10} {_signature_text(fields, args.short)}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

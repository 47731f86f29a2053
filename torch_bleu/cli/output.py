"""What the command prints, as sacrebleu prints it: score lines, JSON records, tables, signatures.

The corpus-level numbers (score, precisions, brevity penalty) come from sacrebleu's
``BLEU.compute_bleu`` applied to our integer statistics, so they are bit-identical to sacrebleu's at
any ``--width``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..significance import paired_approximate_randomization, paired_bootstrap
from ..text import tokenizer_signature
from .arguments import SAMPLE_DEFAULTS, SMOOTH_DEFAULTS
from .run import Run, run_test

if TYPE_CHECKING:
    from sacrebleu.metrics.bleu import BLEUScore


#: Signature fields in sacrebleu's order (``version`` last) with their ``--short`` names.
SIGNATURE_FIELDS = {
    "nrefs": "#", "bs": "bs", "ar": "ar", "seed": "rs", "case": "c", "eff": "e", "tok": "tok", "smooth": "s",
    "ngram": "n", "version": "v",
}  # fmt: skip


ANSI = {"yellow": "\x1b[33m", "cyan": "\x1b[36m", "red": "\x1b[31m", "green": "\x1b[32m"}


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


def print_sentences(packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    signature_text = _signature_text(_describe(args, signature, effective_order=True), args.short)
    for row in packed[0].tolist():
        score = _corpus_score(row, args, effective_order=True)
        shown = f"{score.score:.{args.width}f}"
        print(shown if args.score_only else f"BLEU|{signature_text} = {shown} {_verbose(score)}")


def print_single(packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    score = _corpus_score(packed[0].sum(axis=0).tolist(), args)
    confidence = None
    if args.confidence and args.confidence_n > 1:
        result = run_test(paired_bootstrap, packed, run, args.confidence_n, "bootstrap")
        assert result.means is not None and result.cis is not None  # a bootstrap gives both
        confidence = (result.means[0].item(), result.cis[0].item())
        signature = {**signature, "bs": str(args.confidence_n), "seed": str(run.seed).lower()}
    print(_score_record(score, args, _describe(args, signature), confidence))


def print_systems(names: list[str], packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    shown = [f"{_corpus_score(row, args).score:.{args.width}f}" for row in packed.sum(axis=1).tolist()]
    if args.format == "json":
        print(json.dumps([{"system": name, "BLEU": value} for name, value in zip(names, shown)], indent=4))
        return
    _print_table({"System": names, "BLEU": shown}, args)
    _print_signatures(_describe(args, signature), args)


def print_paired(names: list[str], packed: np.ndarray, run: Run, signature: dict[str, str]) -> None:
    args = run.args
    kind = "bs" if args.paired_bs else "ar"
    requested = args.paired_bs_n if kind == "bs" else args.paired_ar_n
    n = requested if requested > 0 else SAMPLE_DEFAULTS[kind]
    if kind == "bs":
        result = run_test(paired_bootstrap, packed, run, n, "paired bootstrap")
    else:
        result = run_test(paired_approximate_randomization, packed, run, n, "approximate randomization")

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

"""What the errors advise for common mistakes, and small promises of the examples, scripts and command line."""

from __future__ import annotations

import ast
import os
import re
import stat
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import torch_bleu
from torch_bleu import BLEUScore, corpus_bleu, sentence_bleu

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# ------------------------------------------------------------------- ids beside reference strings

#: What ids beside reference strings are told: the detokenizer, or decoding both sides.
DETOKENIZER_ADVICE = re.compile(
    r"preds are token ids, so to score subword ids against reference strings, pass "
    r"detokenizer=torch_bleu\.Detokenizer\.from_sentencepiece\(model\) or "
    r"torch_bleu\.Detokenizer\.from_huggingface\(tokenizer\) .*; "
    r"or decode preds and pass strings on both sides, with tokenize='13a'$"
)

ids = st.lists(st.integers(0, 50), min_size=1, max_size=6)
words = st.lists(st.sampled_from(["a", "b", "c", "the", "cat"]), max_size=6).map(" ".join)


@st.composite
def ids_and_reference_strings(draw: st.DrawFn) -> tuple[object, object]:
    """A batch of id rows in one of the layouts ids take, and reference strings in one of the layouts strings take."""
    batch = draw(st.integers(1, 4))
    rows = draw(st.lists(ids, min_size=batch, max_size=batch))
    width = max(map(len, rows))
    padded = [row + [0] * (width - len(row)) for row in rows]
    preds = draw(
        st.sampled_from(
            [
                torch.tensor(padded),
                np.array(padded),
                rows,
                [torch.tensor(row) for row in rows],
            ]
        )
    )
    references = draw(st.lists(words, min_size=batch, max_size=batch))
    target = draw(
        st.sampled_from(
            [
                references,
                [[reference] for reference in references],
                [[reference, "a b"] for reference in references],
                np.array(references),
            ]
        )
    )
    return preds, target


@settings(max_examples=60, deadline=None)
@given(ids_and_reference_strings(), st.sampled_from(["corpus_bleu", "sentence_bleu", "update"]))
def test_ids_beside_reference_strings_point_to_a_detokenizer(batch, call):
    preds, target = batch
    metric = BLEUScore()
    metric.update([[4, 5, 6]], [[[4, 5, 7]]])
    before = metric.numerator.clone()
    score = {"corpus_bleu": corpus_bleu, "sentence_bleu": sentence_bleu, "update": metric.update}[call]
    with pytest.raises(TypeError) as raised:
        score(preds, target)
    message = str(raised.value)
    assert DETOKENIZER_ADVICE.search(message), message
    assert "pass tokenize='13a' (or another" not in message  # not the advice for strings on both sides
    assert torch.equal(metric.numerator, before)


def test_the_advice_names_what_exists():
    assert callable(torch_bleu.Detokenizer.from_sentencepiece)
    assert callable(torch_bleu.Detokenizer.from_huggingface)


@pytest.mark.parametrize(
    "preds, target",
    [
        (["the cat"], ["the cat"]),
        ([["the", "cat"]], [["the cat"]]),
        (np.array(["the cat"]), ["the cat"]),
    ],
)
def test_strings_on_both_sides_are_still_told_to_pass_tokenize(preds, target):
    with pytest.raises(TypeError, match=r"pass tokenize='13a' \(or another") as raised:
        corpus_bleu(preds, target)
    assert "detokenizer=" not in str(raised.value)


def test_with_tokenize_ids_are_told_of_the_detokenizer_as_before():
    with pytest.raises(TypeError, match="for subword ids pass detokenizer="):
        corpus_bleu(torch.tensor([[1, 2, 3]]), ["a b c"], tokenize="13a")


# ---------------------------------------------------------------- nltk's sentence_bleu argument order

SWAPPED_SENTENCE = (
    r"^preds and target look swapped: target is a flat list of ints, as nltk's hypothesis is, and preds a list "
    r"of rows, as its references are; nltk's sentence_bleu\(references, hypothesis\) takes the references "
    r"first, torch_bleu takes the hypotheses first, as a batch: sentence_bleu\(\[hypothesis\], \[references\]\)$"
)


#: One row as preds, a flat target: more likely an unwrapped reference than nltk's order with one reference.
UNWRAPPED = (
    r"^target is a flat list of ints; if it is the one reference of the one hypothesis, wrap it: "
    r"\[\[\[{ids}\]\]\] \(per hypothesis, the list of its references\); if the arguments follow nltk's "
    r"sentence_bleu\(references, hypothesis\), torch_bleu takes the hypotheses first, as a batch: "
    r"sentence_bleu\(\[hypothesis\], \[references\]\)$"
)


def test_nltk_sentence_bleu_order_of_one_sentence_is_called_swapped():
    with pytest.raises(TypeError, match=SWAPPED_SENTENCE):
        sentence_bleu([[1, 2, 3, 4], [1, 2, 3]], [1, 2, 3, 4])


@pytest.mark.parametrize("score", [corpus_bleu, sentence_bleu, BLEUScore().update], ids=["corpus", "sentence", "up"])
def test_an_unwrapped_reference_is_told_to_wrap_it(score):
    with pytest.raises(TypeError, match=UNWRAPPED.format(ids="1, 2, 3")):
        score([[1, 2, 3]], [1, 2, 3])
    with pytest.raises(TypeError, match=UNWRAPPED.format(ids="1, 2, 3, 4, 5, 6, 7, 8, ...")):
        score([[1, 2, 3]], list(range(1, 12)))
    assert corpus_bleu([[1, 2, 3]], [[[1, 2, 3]]], max_order=3).item() == 1.0  # the advice works


@settings(max_examples=60, deadline=None)
@given(
    references=st.lists(st.lists(st.integers(1, 6), max_size=8), min_size=1, max_size=3),
    hypothesis=st.lists(st.integers(1, 6), min_size=1, max_size=8),
    as_tuples=st.booleans(),
    call=st.sampled_from(["sentence_bleu", "corpus_bleu", "update"]),
)
def test_nltk_sentence_bleu_order_is_called_swapped_and_the_advice_works(references, hypothesis, as_tuples, call):
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
    if as_tuples:
        references, hypothesis = tuple(map(tuple, references)), tuple(hypothesis)
    score = {"sentence_bleu": sentence_bleu, "corpus_bleu": corpus_bleu, "update": BLEUScore().update}[call]
    with pytest.raises(TypeError, match=SWAPPED_SENTENCE if len(references) > 1 else "wrap it.*nltk's sentence_bleu"):
        score(references, hypothesis)

    smoothing = nltk_bleu.SmoothingFunction().method1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = nltk_bleu.sentence_bleu(references, hypothesis, smoothing_function=smoothing)
    ours = sentence_bleu([hypothesis], [references], convention="nltk", smoothing="method1")
    assert ours.tolist() == [pytest.approx(expected, rel=1e-9, abs=1e-12)]


def test_a_flat_target_beside_a_padded_tensor_is_not_called_swapped():
    with pytest.raises(TypeError, match=r"target\[0\] must be a list of references or a 1-D tensor, got int"):
        sentence_bleu(torch.tensor([[1, 2, 3]]), [1, 2, 3])


# -------------------------------------------------------------------------- the HF compute_metrics example


def test_the_compute_metrics_call_in_the_docstring_runs():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import hf_compute_metrics
    finally:
        sys.path.remove(str(EXAMPLES))
    docstring = hf_compute_metrics.__doc__
    lines = [line.strip() for line in docstring.splitlines()]
    assignment = next(line for line in lines if line.startswith("special_ids = "))
    trainer_line = next(line for line in lines if "make_compute_metrics(" in line)
    call = re.search(r"make_compute_metrics\([^()]*\)", trainer_line).group(0)
    ast.parse(assignment)
    names = {
        "tokenizer": SimpleNamespace(pad_token_id=0, eos_token_id=1),
        "model": SimpleNamespace(config=SimpleNamespace(decoder_start_token_id=2)),
        "make_compute_metrics": hf_compute_metrics.make_compute_metrics,
    }
    exec(assignment, names)
    compute_metrics = eval(call, names)
    predictions, labels = hf_compute_metrics.trainer_like_arrays(0)
    expected = hf_compute_metrics.make_compute_metrics([0, 1, 2])((predictions, labels))
    assert compute_metrics((predictions, labels)) == expected
    # a model with no decoder start id of its own
    names["model"].config.decoder_start_token_id = None
    exec(assignment, names)
    assert eval(call, names)((predictions, labels))["bleu"] >= 0


# ------------------------------------------------------------------------------------------ TER's plot


def test_ter_plot_draws_no_upper_bound():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric = torch_bleu.TERScore()
    metric.update(["the cat sat on the mat"], ["the cat is on the mat"])
    assert metric.plot_upper_bound is None
    for values in (None, [torch.tensor(0.4), torch.tensor(0.25), torch.tensor(0.1)]):
        fig, ax = metric.plot(val=values)
        try:
            heights = {
                float(y)
                for collection in ax.collections
                if hasattr(collection, "get_segments")
                for segment in collection.get_segments()
                for y in np.asarray(segment)[:, 1]
            }
            heights |= {float(y) for line in ax.get_lines() for y in line.get_ydata()}
            assert 2.0 not in heights
            assert 0.0 in heights  # the lower bound, the best TER, is still drawn
            assert ax.get_ylim()[1] < 2.0
        finally:
            plt.close(fig)


# ------------------------------------------------------------------------------------- the command line


def test_command_line_help_names_every_metric():
    from torch_bleu.cli import __doc__ as package_doc
    from torch_bleu.cli.arguments import build_parser

    description = build_parser().description
    assert description.startswith("BLEU, chrF and TER as sacrebleu computes them")
    assert package_doc.splitlines()[0].endswith("for BLEU, chrF and TER, counting on the tensor engine.")


# ------------------------------------------------------------------------------------------ scripts/docs.sh


def fake_tools(folder: Path, pip_status: int) -> dict[str, str]:
    """A ``python`` without the docs extra whose pip prints many warnings, and a ``sphinx-build`` that succeeds."""
    folder.mkdir()
    python = folder / "python"
    python.write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1" = "-c" ]; then exit 1; fi\n'  # the docs extra is not importable
        'for i in $(seq 33); do echo "WARNING: pip warning $i" >&2; done\n'
        f"exit {pip_status}\n"
    )
    sphinx = folder / "sphinx-build"
    sphinx.write_text("#!/usr/bin/env bash\nexit 0\n")
    for tool in (python, sphinx):
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}", "TORCH_BLEU_SKIP_SETUP": "1"}


def test_docs_script_keeps_pips_output_in_a_log(tmp_path):
    environment = fake_tools(tmp_path / "bin", pip_status=0)
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "docs.sh")], capture_output=True, text=True, env=environment, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "docs: installing torch-bleu[docs]\n"
    assert done.stdout == "docs: built docs/_build/html/index.html\n"


def test_docs_script_shows_pips_log_when_the_install_fails(tmp_path):
    environment = fake_tools(tmp_path / "bin", pip_status=1)
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "docs.sh")], capture_output=True, text=True, env=environment, timeout=60
    )
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "docs: installing torch-bleu[docs]"
    assert lines[1:34] == [f"WARNING: pip warning {i}" for i in range(1, 34)]
    assert re.fullmatch(r"docs: installing torch-bleu\[docs\] failed \(log above, in \S+/pip-install\.log\)", lines[-1])
    assert done.stdout == ""


@pytest.mark.parametrize("method", [f"method{index}" for index in range(8)])
def test_nltks_smoothing_function_is_told_its_name(method):
    from nltk.translate.bleu_score import SmoothingFunction
    from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

    function = getattr(SmoothingFunction(), method)
    for make in (lambda: BLEUScore(smoothing=function), lambda: corpus_bleu([[1, 2]], [[[1, 2]]], smoothing=function)):
        with pytest.raises(TypeError, match=f"not the function: pass convention='nltk', smoothing='{method}'"):
            make()
    # what the message says to pass gives nltk's number
    ours = sentence_bleu([[1, 2, 3, 4, 5]], [[[1, 2, 3, 5, 4]]], convention="nltk", smoothing=method).item()
    assert ours == pytest.approx(nltk_sentence_bleu([[1, 2, 3, 5, 4]], [1, 2, 3, 4, 5], smoothing_function=function))


def test_subword_options_are_checked_alike_by_every_metric():
    for score in (torch_bleu.corpus_chrf, torch_bleu.corpus_ter):
        with pytest.raises(ValueError, match="eos_id is an option of subword ids, which need a detokenizer"):
            score(["a"], ["a"], eos_id=2)
        with pytest.raises(TypeError, match="ignore_ids must contain ints only"):
            score(["a"], ["a"], ignore_ids=["0"])
        with pytest.raises(TypeError, match=r"detokenizer must be a torch_bleu\.Detokenizer"):
            score(["a"], ["a"], detokenizer="spm.model")
    with pytest.raises(TypeError, match="ignore_ids must contain ints only"):
        corpus_bleu([[1]], [[1]], ignore_ids=["0"])
    assert corpus_bleu([[1, 2, 0]], [[[1, 2]]], ignore_ids=torch.tensor([0]), max_order=2).item() == 1.0


def test_configs_take_their_options_by_name_only():
    for config in (torch_bleu.BLEUConfig, torch_bleu.CHRFConfig, torch_bleu.TERConfig):
        with pytest.raises(TypeError, match="positional argument"):
            config(2)

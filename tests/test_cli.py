"""The ``torch-bleu`` command line prints what ``sacrebleu`` prints for the same files and options.

Most cases call :func:`torch_bleu.cli.main` in this process and run sacrebleu's command as a
subprocess; three run ``torch-bleu`` itself as a subprocess: the console
script on standard input, ``python -m torch_bleu`` with its exit status, and the full-size approximate
randomization test on the 16 WMT17 systems in ``../shared/data/wmt17-en-de`` (the WMT17 tests are
skipped when that folder is absent).
"""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_data import WMT17

from torch_bleu import __version__
from torch_bleu.cli import main
from torch_bleu.cli.jobs import count_systems, paired_jobs

sacrebleu = pytest.importorskip("sacrebleu")

OUR_VERSION = f"torch-bleu-{__version__}"
ENV = {**os.environ, "NO_COLOR": "1"}
ENV.pop("SACREBLEU_SEED", None)
ENV.pop("SACREBLEU_FORMAT", None)


def same_version(output: str) -> str:
    """Our output with sacrebleu's version in the signature, the one field allowed to differ."""
    for ours, theirs in ((OUR_VERSION, sacrebleu.__version__),):
        output = output.replace(f"version:{ours}", f"version:{theirs}").replace(f"v:{ours}", f"v:{theirs}")
        output = output.replace(f'"version": "{ours}"', f'"version": "{theirs}"')
    return output


def sacrebleu_output(args, cwd, stdin=None) -> str:
    command = [sys.executable, "-m", "sacrebleu", *args]
    done = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, env=ENV, check=True)
    return done.stdout.decode("utf-8")


def torch_bleu_process(args, cwd, stdin=None, command=None):
    command = command or [sys.executable, "-m", "torch_bleu"]
    return subprocess.run([*command, *args], cwd=cwd, input=stdin, capture_output=True, env=ENV)


@pytest.fixture
def run_main(capsys, monkeypatch):
    """Run ``main`` in this process; return (exit status, stdout, stderr)."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)

    def run(args, cwd):
        monkeypatch.chdir(cwd)
        status = main(list(args))
        out, err = capsys.readouterr()
        return status, out, err

    return run


HYPS_A = [
    "The cat sat on the mat.",
    "Das ist ein Test, oder?",
    "",
    "  Spaces   everywhere  ",
    "Über große Straßen fährt man schnell.",
    "It's 5 o'clock & time for tea (really).",
    "短い文です。",
    "the the the the",
]
HYPS_B = [
    "A cat sat on a mat.",
    "Das ist kein Test.",
    "nothing",
    "Spaces everywhere",
    "Über Straßen fährt man schnell!",
    "It is 5 o'clock and time for tea.",
    "短い文。",
    "The cat is on the mat",
]
REFS_1 = [
    "The cat sat on the mat.",
    "Das ist ein Test.",
    "",
    "Spaces everywhere.",
    "Über große Straßen fährt man schnell.",
    "It's five o'clock and time for tea.",
    "これは短い文です。",
    "The cat is on the mat.",
]
REFS_2 = [
    "A cat was sitting on the mat.",
    "This is a test, right?",
    "Nothing here",
    "Everywhere spaces.",
    "Man fährt schnell über große Straßen.",
    "Time for tea at 5 o'clock.",
    "短い文",
    "There is a cat on the mat.",
]


@pytest.fixture
def files(tmp_path):
    def write(name, lines):
        (tmp_path / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    write("hyp_a", HYPS_A)
    write("hyp_b", HYPS_B)
    write("hyp_c", list(reversed(HYPS_B)))
    write("ref_1", REFS_1)
    write("ref_2", REFS_2)
    write("refs_tab", [f"{one}\t{two}" for one, two in zip(REFS_1, REFS_2)])
    (tmp_path / "refs").mkdir()
    write("refs/1", REFS_1)
    write("refs/2", REFS_2)
    return tmp_path


SAME_AS_SACREBLEU = [
    ["ref_1", "-i", "hyp_a"],
    ["ref_1", "ref_2", "-i", "hyp_a", "-f", "text", "-w", "4"],
    ["ref_1", "-i", "hyp_a", "-f", "text", "-sh", "-lc", "-tok", "intl"],
    ["ref_1", "ref_2", "-i", "hyp_b", "-tok", "char", "-w", "3"],
    ["ref_1", "-i", "hyp_a", "-tok", "zh", "-f", "text"],
    ["ref_1", "-i", "hyp_a", "-tok", "none", "-b", "-w", "6"],
    ["ref_1", "-i", "hyp_b", "-s", "floor", "-sv", "0.2", "-f", "text"],
    ["ref_1", "-i", "hyp_b", "-s", "add-k", "-w", "5"],
    ["ref_1", "-i", "hyp_b", "-s", "none", "-f", "text", "-w", "2"],
    ["refs_tab", "-nr", "2", "-i", "hyp_a", "-f", "text"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c"],
    ["ref_1", "ref_2", "-i", "hyp_a", "hyp_b", "-f", "text", "-w", "2", "-sh"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-f", "latex"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "--paired-ar", "-parn", "300", "-w", "3"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_a", "hyp_c", "--paired-ar", "-parn", "200", "-f", "text"],
    ["ref_1", "ref_2", "-i", "hyp_a", "hyp_b", "hyp_c", "--paired-bs", "-pbsn", "150", "-f", "text", "-w", "2"],
    ["ref_1", "-i", "hyp_b", "-ci", "-cin", "200", "-f", "text"],
    ["ref_1", "-i", "hyp_b", "-ci", "-cin", "200"],
    ["ref_1", "ref_2", "-i", "hyp_a", "-sl", "-f", "text", "-w", "3"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "-m", "bleu", "--paired-jobs", "2", "-f", "text"],
    # chrF and chrF++, alone and beside BLEU
    ["ref_1", "-i", "hyp_a", "-m", "chrf"],
    ["ref_1", "ref_2", "-i", "hyp_a", "-m", "bleu", "chrf", "--chrf-word-order", "2", "-f", "text", "-w", "3"],
    ["ref_1", "-i", "hyp_b", "-m", "chrf", "bleu", "-cc", "4", "-cw", "1", "--chrf-beta", "1", "-sh", "-f", "text"],
    ["ref_1", "-i", "hyp_b", "-m", "chrf", "--chrf-whitespace", "--chrf-lowercase", "--chrf-eps-smoothing"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "bleu", "chrf", "-cw", "2"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "bleu", "chrf", "-f", "latex"],
    # (sacrebleu's JSON output of a paired bootstrap with chrF fails: its float32 means are not JSON)
    ["ref_1", "ref_2", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "chrf", "bleu", "-pbs", "-pbsn", "150", "-f", "text"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "chrf", "-cw", "2", "--paired-ar", "-parn", "300", "-f", "text"],
    ["ref_1", "-i", "hyp_b", "-m", "bleu", "chrf", "-ci", "-cin", "200", "-f", "text"],
    # workers count the systems for the paired tests (sacrebleu's workers run its tests)
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "chrf", "bleu", "-pbs", "-pbsn", "150", "-j", "2", "-f", "text"],
    ["ref_1", "ref_2", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "bleu", "chrf", "-par", "-parn", "300", "-j", "3"],
    ["ref_1", "-i", "hyp_b", "-m", "chrf", "-ci", "-cin", "200"],
    ["ref_1", "ref_2", "-i", "hyp_a", "-sl", "-m", "chrf", "-f", "text", "-w", "3"],
    # TER, alone and beside BLEU and chrF (sacrebleu's JSON of a paired bootstrap with TER fails as with chrF)
    ["ref_1", "-i", "hyp_a", "-m", "ter"],
    ["ref_1", "ref_2", "-i", "hyp_b", "-m", "ter", "--ter-normalized", "--ter-case-sensitive", "-f", "text"],
    ["ref_1", "-i", "hyp_a", "-m", "ter", "--ter-no-punct", "--ter-asian-support", "-sh", "-w", "4"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "bleu", "chrf", "ter"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "ter", "bleu", "-f", "latex"],
    ["ref_1", "ref_2", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "ter", "chrf", "-pbs", "-pbsn", "150", "-f", "text"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "-m", "ter", "bleu", "--paired-ar", "-parn", "300"],
    ["ref_1", "-i", "hyp_b", "-m", "ter", "-ci", "-cin", "200", "-f", "text"],
    ["ref_1", "ref_2", "-i", "hyp_a", "-sl", "-m", "ter", "-f", "text", "-w", "3"],
]


@pytest.mark.parametrize("args", SAME_AS_SACREBLEU, ids=" ".join)
def test_output_is_sacrebleus(files, run_main, args):
    status, out, err = run_main(args, files)
    assert status == 0, err
    assert same_version(out) == sacrebleu_output(args, files)


def test_paired_bootstrap_json_matches_sacrebleu(files, run_main):
    # means and intervals are printed unrounded; sacrebleu computes them with float32 precisions
    args = ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "--paired-bs", "-pbsn", "300"]
    ours = json.loads(run_main(args, files)[1])
    theirs = json.loads(sacrebleu_output(args, files))
    assert [row["system"] for row in ours] == [row["system"] for row in theirs]
    for mine, reference in zip(ours, theirs):
        mine, reference = mine["BLEU"], reference["BLEU"]
        assert (mine["score"], mine["p_value"]) == (reference["score"], reference["p_value"])
        assert mine["mean"] == pytest.approx(reference["mean"], abs=1e-5)
        assert mine["ci"] == pytest.approx(reference["ci"], abs=1e-5)


def test_reference_folder_is_its_files_in_name_order(files, run_main):
    by_folder = run_main(["refs", "-i", "hyp_a", "hyp_b", "-f", "text"], files)[1]
    by_files = run_main(["refs/1", "refs/2", "-i", "hyp_a", "hyp_b", "-f", "text"], files)[1]
    assert by_folder == by_files


def test_max_ngram_order_is_sacrebleus_max_ngram_order(files, run_main):
    out = json.loads(run_main(["ref_1", "ref_2", "-i", "hyp_b", "--max-ngram-order", "2", "-w", "6"], files)[1])
    references = [REFS_1, REFS_2]
    expected = sacrebleu.BLEU(max_ngram_order=2).corpus_score(HYPS_B, references)
    assert out["score"] == round(expected.score, 6)
    assert out["ngram"] == "2" and "ngram:2" in out["signature"]


TENSOR_ENGINE_CASES = [
    ["ref_1", "-i", "hyp_a", "-f", "text"],
    ["ref_1", "ref_2", "-i", "hyp_a", "hyp_b", "hyp_c", "--paired-bs", "-pbsn", "200", "-f", "text"],
    ["ref_1", "-i", "hyp_a", "hyp_b", "--paired-ar", "-parn", "500", "--max-ngram-order", "3"],
    ["ref_1", "ref_2", "-i", "hyp_b", "-sl"],
    ["ref_1", "ref_2", "-i", "hyp_a", "hyp_b", "-m", "chrf", "bleu", "-cw", "2", "-pbs", "-pbsn", "100", "-f", "text"],
]


@pytest.mark.parametrize("args", TENSOR_ENGINE_CASES, ids=" ".join)
def test_tensor_engine_on_a_device_prints_what_numpy_prints(files, run_main, args):
    # "cpu" counts with NumPy; any other PyTorch device name ("cpu:0" too) runs the tensor engine
    torch = pytest.importorskip("torch")
    devices = ["cpu:0"] + (["cuda"] if torch.cuda.is_available() else [])
    threads = torch.get_num_threads()
    try:
        by_numpy = run_main([*args, "--device", "cpu"], files)
        for device in devices:
            assert run_main([*args, "--device", device], files) == by_numpy
    finally:
        torch.set_num_threads(threads)  # the engine path sets PyTorch's threads; leave other tests alone


# -------------------------------------------------------------------------------- random corpora

alphabet = st.sampled_from([*list("abcAB.,!?-'"), "é", "ß", "中", "文", "&quot;"])
random_lines = st.lists(alphabet, max_size=6).map("".join)
random_sentences = st.lists(random_lines, max_size=6).map(" ".join)


@st.composite
def corpora(draw):
    size = draw(st.integers(1, 6))
    hyps = draw(st.lists(random_sentences, min_size=size, max_size=size))
    refs = draw(st.lists(st.lists(random_sentences, min_size=size, max_size=size), min_size=1, max_size=3))
    return hyps, refs


@settings(max_examples=60)
@given(
    corpus=corpora(),
    tokenize=st.sampled_from(["13a", "none", "intl", "char", "zh"]),
    lowercase=st.booleans(),
    smoothing=st.sampled_from(
        [("exp", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2.0), ("none", None)]
    ),
    width=st.integers(0, 8),
    as_json=st.booleans(),
)
def test_random_corpora_score_as_sacrebleu(tmp_path_factory, corpus, tokenize, lowercase, smoothing, width, as_json):
    hyps, refs = corpus
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "hyp").write_text("".join(line.rstrip() + "\n" for line in hyps), encoding="utf-8")
    for number, stream in enumerate(refs):
        (folder / f"ref{number}").write_text("".join(line.rstrip() + "\n" for line in stream), encoding="utf-8")
    method, value = smoothing
    args = [str(folder / f"ref{number}") for number in range(len(refs))] + ["-i", str(folder / "hyp")]
    args += ["-tok", tokenize, "-s", method, "-w", str(width), "-f", "json" if as_json else "text", "--quiet"]
    args += (["-sv", str(value)] if value is not None else []) + (["-lc"] if lowercase else [])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(args) == 0
    out = printed.getvalue()

    metric = sacrebleu.BLEU(tokenize=tokenize, lowercase=lowercase, smooth_method=method, smooth_value=value)
    score = metric.corpus_score([line.rstrip() for line in hyps], [[line.rstrip() for line in s] for s in refs])
    signature = metric.get_signature().format(False)
    assert same_version(out) == score.format(width, False, signature, as_json) + "\n"


# -------------------------------------------------------------------------------- subprocesses


def test_console_script_reads_systems_from_standard_input(files):
    script = shutil.which("torch-bleu", path=os.path.dirname(sys.executable)) or shutil.which("torch-bleu")
    if script is None:
        pytest.skip("the torch-bleu console script is not installed (pip install -e .)")
    stdin = "".join(f"{a}\t{b}\n" for a, b in zip(HYPS_A, HYPS_B)).encode()
    args = ["ref_1", "--paired-bs", "-pbsn", "50", "-f", "text"]
    done = torch_bleu_process(args, files, stdin=stdin, command=[script])
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""  # no progress bar when standard error is not a terminal
    assert same_version(done.stdout.decode()) == sacrebleu_output(args, files, stdin=stdin)


def test_python_m_torch_bleu_exits_with_status_1_on_a_missing_file(files):
    done = torch_bleu_process(["ref_1", "-i", "no_such_file"], files)
    assert done.returncode == 1
    assert done.stderr == b"torch-bleu: error: no_such_file: no such file\n"
    assert done.stdout == b""


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path):
    """``torch-bleu ... -sl | head -1``: the pipe closes while lines are still coming; no traceback."""
    lines = tmp_path / "lines"
    lines.write_text("the cat sat on the mat\n" * 20000)
    pipeline = f"{sys.executable} -m torch_bleu {lines} -i {lines} -sl | head -1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", pipeline], capture_output=True, text=True, env=ENV)
    assert done.stdout.startswith("BLEU|nrefs:1")
    assert done.stderr == ""
    assert done.returncode == 141  # as a shell reports sacrebleu, which SIGPIPE ends


def test_without_the_text_extra_the_command_says_what_to_install(files):
    """Without sacrebleu (``pip install -e .`` alone): one line naming the install command, exit status 1."""
    hide = "import sys; sys.modules['sacrebleu'] = None; from torch_bleu.cli import main; sys.exit(main())"
    done = torch_bleu_process(["ref_1", "-i", "hyp_a"], files, command=[sys.executable, "-c", hide])
    assert done.returncode == 1
    expected = "torch-bleu: error: the command line needs sacrebleu: pip install 'torch-bleu[text]'\n"
    assert done.stderr.decode() == expected


# -------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "args, message",
    [
        (["ref_1", "-i", "missing"], "missing: no such file"),
        (["missing", "-i", "hyp_a"], "missing: no such file or folder"),
        (["ref_1", "-i", "short"], "hyp has 8 lines"),
        (["ref_1", "-i", "latin1"], "line 2 is not valid utf-8"),
        (["ref_1", "-i", "hyp_a", "-e", "no-such-encoding"], "unknown encoding"),
        (["-i", "hyp_a"], "give the reference file(s) before -i"),
        (["ref_1", "-i", "hyp_a", "hyp_a"], "given twice"),
        (["ref_1", "-i", "hyp_a", "--paired-bs"], "paired tests need several systems"),
        (["ref_1", "-i", "hyp_a", "hyp_b", "-ci"], "--confidence is for one system"),
        (["ref_1", "-i", "refs"], "refs: is a folder"),
        (["empty_folder", "-i", "hyp_a"], "holds no file"),
        (["ref_1", "-i", "hyp_a", "-s", "floor", "-sv", "-1"], "smooth_value must be"),
        (["ref_1", "-i", "hyp_a", "--device", "no-such-device"], "device 'no-such-device' is not usable"),
        (["ref_1", "-i", "hyp_a", "hyp_b", "-pbs", "-j", "-1"], "--paired-jobs must not be negative, got -1"),
    ],
)
def test_bad_input_is_a_clear_error(files, run_main, args, message):
    (files / "short").write_text("only\nthree\nlines\n", encoding="utf-8")
    (files / "latin1").write_bytes("fine\ncafé\n".encode("latin-1") + b"x\n" * 6)
    (files / "empty_folder").mkdir()
    if "short" in args:
        message = "short has 3 lines but the reference ref_1 has 8"
    status, out, err = run_main(args, files)
    assert status == 1
    assert out == ""
    assert err.startswith("torch-bleu: error: ") and message in err


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["ref_1"], "a\tb\n" * 4 + "c\n" * 4, "line 5 has 1 tab-separated systems, line 1 has 2"),
        (["refs_tab", "-nr", "3", "-i", "hyp_a"], None, "expected 3"),
    ],
    ids=["systems on standard input", "references split on tabs"],
)
def test_lines_with_other_numbers_of_fields_exit_as_sacrebleu_does(files, args, stdin, message):
    """sacrebleu exits with status 17 when lines of standard input, or of a reference file split by
    ``--num-refs``, have other numbers of tab-separated fields than they should."""
    stdin_bytes = None if stdin is None else stdin.encode()
    theirs = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *args], cwd=files, input=stdin_bytes, capture_output=True
    )
    ours = torch_bleu_process(args, files, stdin_bytes)
    assert theirs.returncode == ours.returncode == 17
    assert ours.stdout == b"" and message in ours.stderr.decode()


def test_unknown_option_exits_with_status_2(files, run_main):
    with pytest.raises(SystemExit) as exit_info:
        run_main(["ref_1", "-i", "hyp_a", "--no-such-option"], files)
    assert exit_info.value.code == 2


def test_bad_seed_is_a_clear_error(files, run_main, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "abc")
    status, _, err = run_main(["ref_1", "-i", "hyp_a", "hyp_b", "--paired-bs"], files)
    assert status == 1 and "SACREBLEU_SEED" in err


# -------------------------------------------------------------------------------- progress bar


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_only_on_a_terminal_and_not_quiet(files, run_main, monkeypatch, quiet):
    pytest.importorskip("tqdm")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    args = ["ref_1", "-i", "hyp_a", "hyp_b", "--paired-ar", "-parn", "64"] + (["--quiet"] if quiet else [])
    assert run_main(args, files)[0] == 0
    shown = terminal.getvalue()
    assert ("approximate randomization" in shown) is not quiet
    assert ("BLEU: counting" in shown) is not quiet
    # each bar names what it counts: sentences, then trials
    assert (re.search(r"BLEU: counting: .*/16 \[.*sentence/s\]", shown) is not None) is not quiet
    assert (re.search(r"approximate randomization: .*/64 \[.*trial/s\]", shown) is not None) is not quiet
    assert "it/s" not in shown


@pytest.mark.parametrize(
    "args, description",
    [
        (["hyp_a", "hyp_b", "--paired-bs", "-pbsn", "64"], "BLEU: paired bootstrap"),
        (["hyp_a", "-ci", "-cin", "64"], "bootstrap"),
    ],
)
def test_bootstrap_progress_bar_counts_resamples(files, run_main, monkeypatch, args, description):
    pytest.importorskip("tqdm")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run_main(["ref_1", "-i", *args], files)[0] == 0
    shown = terminal.getvalue()
    assert re.search(rf"\r{description}: .*/64 \[.*resample/s\]", shown), shown
    assert "it/s" not in shown


# -------------------------------------------------------------------------------- WMT17

# p-values of sacrebleu 2.6.0 on these files (-tok none, seed 12345), and the Moses (bootstrap,
# 2000 samples) and multeval (approximate randomization, 10,000 trials) values in sacrebleu's test suite.
WMT17_P_VALUES = {  # system: (sacrebleu bs 2000, Moses, sacrebleu ar 10000, multeval)
    "C-3MA.4959": (0.0004997501249375312, 0.00000, 9.999000099990002e-05, 0.0001),
    "FBK.4870": (0.018490754622688656, 0.01267, 0.0226977302269773, 0.0218),
    "KIT.4950": (0.02448775612193903, 0.02233, 0.043195680431956804, 0.0410),
    "LMU-nmt-reranked.4934": (0.050974512743628186, 0.04383, 0.08649135086491351, 0.09029),
    "LMU-nmt-single.4893": (0.2098950524737631, 0.20783, 0.5792420757924207, 0.58494),
    "PROMT-Rule-based.4735": (0.0004997501249375312, 0.00000, 9.999000099990002e-05, 0.0001),
    "RWTH-nmt-ensemble.4921": (0.009995002498750625, 0.01167, 0.021597840215978402, 0.0207),
    "SYSTRAN.4847": (0.21239380309845077, 0.20983, 0.5941405859414058, 0.59914),
    "TALP-UPC.4834": (0.0004997501249375312, 0.00000, 9.999000099990002e-05, 0.0001),
    "online-A.0": (0.0004997501249375312, 0.00000, 9.999000099990002e-05, 0.0001),
    "online-B.0": (0.38780609695152424, 0.38100, 0.9358064193580642, 0.94111),
    "online-F.0": (0.0004997501249375312, 0.00000, 9.999000099990002e-05, 0.0001),
    "online-G.0": (0.0004997501249375312, 0.00000, 9.999000099990002e-05, 0.0001),
    "uedin-nmt.4722": (0.0004997501249375312, 0.00000, 9.999000099990002e-05, 0.0001),
    "xmu.4910": (0.25987006496751625, 0.25483, 0.7097290270972902, 0.71073),
}


@pytest.fixture
def wmt17():
    if not (WMT17 / "newstest2017.ref.de").exists():
        pytest.skip(f"WMT17 data not found at {WMT17} (the shared folder next to the repository)")
    return WMT17


def test_wmt17_approximate_randomization_all_systems(wmt17):
    systems = ["sys.LIUM-NMT.4900.de"] + [f"sys.{name}.de" for name in WMT17_P_VALUES]
    done = torch_bleu_process(
        ["-tok", "none", "newstest2017.ref.de", "-i", *systems, "--paired-ar", "-parn", "10000"], wmt17
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert results[0]["system"] == "Baseline: sys.LIUM-NMT.4900.de"
    assert results[0]["BLEU"]["score"] == pytest.approx(21.60976793975032, abs=1e-12)
    for name, row in zip(WMT17_P_VALUES, results[1:]):
        _, _, sacrebleu_p, multeval_p = WMT17_P_VALUES[name]
        assert row["system"] == f"sys.{name}.de"
        assert row["BLEU"]["p_value"] == pytest.approx(sacrebleu_p, abs=1e-12)
        assert abs(row["BLEU"]["p_value"] - multeval_p) < 0.02


def test_wmt17_paired_bootstrap_as_sacrebleu(wmt17, run_main):
    systems = ["sys.LIUM-NMT.4900.de", "sys.FBK.4870.de", "sys.online-B.0.de"]
    args = ["-tok", "none", "newstest2017.ref.de", "-i", *systems, "--paired-bs", "-pbsn", "2000", "-f", "text"]
    status, out, err = run_main(args, wmt17)
    assert status == 0, err
    assert same_version(out) == sacrebleu_output(args, wmt17)
    printed = [float(p) for p in re.findall(r"\(p = ([0-9.]+)\)", out)]
    assert len(printed) == len(systems) - 1
    for system, p_value in zip(systems[1:], printed):
        sacrebleu_p, moses_p, _, _ = WMT17_P_VALUES[system[len("sys.") : -len(".de")]]
        assert p_value == round(sacrebleu_p, 4)
        assert abs(p_value - moses_p) < 0.03


# -------------------------------------------------------------------------------- workers for the paired tests


def stacked(systems, progress=None):
    """A counter for ``count_systems``: each "system" is already its statistics."""
    if progress is not None:
        progress(len(systems))
    return np.stack(systems)


@pytest.mark.parametrize("jobs, per_job", [(1, 1), (2, 1), (2, 3), (5, 2)])
def test_workers_return_every_systems_statistics_in_order(jobs, per_job):
    systems = [np.full((3, 2), k) for k in range(7)]
    advanced = []
    counted = count_systems(stacked, systems, per_job, jobs, advanced.append, sentences=3)
    assert counted.tolist() == np.stack(systems).tolist()
    assert sum(advanced) == (7 if jobs == 1 else 7 * 3)  # serial: the counter's own progress


def test_paired_jobs_follows_sacrebleus_rule(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert [paired_jobs(0, systems) for systems in (1, 2, 4, 9)] == [1, 1, 3, 4]
    assert paired_jobs(3, systems=2) == 3


def test_sentencepiece_tokenizer_output_is_sacrebleus(files, tmp_path):
    """``-tok flores200``: sacrebleu's own tokenizer, with a model trained here where both tools look for it."""
    from sacrebleu.tokenizers import tokenizer_spm
    from subword_tokenizers import cached_sentencepiece_path

    (tmp_path / "models").mkdir()
    shutil.copy(cached_sentencepiece_path("unigram"), tmp_path / "models" / "flores200sacrebleuspm")
    env = {**ENV, "SACREBLEU": str(tmp_path)}
    assert os.path.basename(tokenizer_spm.SPM_MODELS["flores200"]["url"]) == "flores200sacrebleuspm"
    args = ["ref_1", "-i", "hyp_a", "hyp_b", "-tok", "flores200", "-m", "bleu", "-f", "text"]
    theirs = subprocess.run([sys.executable, "-m", "sacrebleu", *args], cwd=files, capture_output=True, env=env)
    ours = subprocess.run([sys.executable, "-m", "torch_bleu", *args], cwd=files, capture_output=True, env=env)
    assert theirs.returncode == ours.returncode == 0, ours.stderr
    assert "tok:flores200" in theirs.stdout.decode()
    assert same_version(ours.stdout.decode()) == theirs.stdout.decode()


# --- sacrebleu's quirks: reproduced where they only shape the input, documented where a number is less exact


def test_systems_on_standard_input_keep_the_whitespace_sacrebleu_keeps(files):
    """sacrebleu strips each field of every line but the first, whose fields keep their trailing
    whitespace, which ``--chrf-whitespace`` counts."""
    stdin = "".join(f"{a}  \t{b} \n" for a, b in zip(HYPS_A, HYPS_B)).encode()
    args = ["ref_1", "-m", "chrf", "bleu", "--chrf-whitespace", "-f", "text", "-w", "4"]
    ours = torch_bleu_process(args, files, stdin=stdin)
    assert ours.returncode == 0, ours.stderr
    assert same_version(ours.stdout.decode()) == sacrebleu_output(args, files, stdin=stdin)


def test_sentence_level_with_two_metrics_is_refused_as_by_sacrebleu(files):
    args = ["ref_1", "-i", "hyp_a", "-sl", "-m", "bleu", "chrf"]
    theirs = subprocess.run([sys.executable, "-m", "sacrebleu", *args], cwd=files, capture_output=True, env=ENV)
    ours = torch_bleu_process(args, files)
    assert theirs.returncode == ours.returncode == 1
    assert b"only one metric can be scored in sentence-level mode" in ours.stderr


@pytest.mark.parametrize(
    "stdin", ["a\tb\nc\n", "a\nb\tc\n", "a\tb\n\n", "a\tb\nc\td\te\n", "a\t\nc\td\n", "", "\n", "a\tb\r\nc\n"]
)
def test_malformed_standard_input_exits_with_sacrebleus_status(files, stdin):
    args = ["ref_1", "-f", "text"]
    theirs = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *args], cwd=files, input=stdin.encode(), capture_output=True, env=ENV
    )
    assert torch_bleu_process(args, files, stdin=stdin.encode()).returncode == theirs.returncode != 0


def masked(output: str, pattern: str) -> list[str]:
    """The lines of ``output``, each table cell stripped (cell widths follow their contents), ``pattern`` masked."""
    lines = [
        " | ".join(cell.strip() for cell in line.split("│")) if "│" in line else line for line in output.split("\n")
    ]
    return [re.sub(pattern, "#", line) for line in lines if not set(line) <= set("═╤╕╒╞╪╡├┼┤╘╧╛─ ")]


@pytest.mark.parametrize("smooth_value", ["1", "2", "0.5"])
def test_randomization_with_add_k_differs_only_where_documented(files, smooth_value):
    """sacrebleu's trials add a fractional add-k value to integer statistics (0.5 counts as 0): with a
    whole number the output is sacrebleu's; otherwise only the p-values may differ, as ``--help`` says."""
    args = ["ref_1", "-i", "hyp_a", "hyp_b", "hyp_c", "--paired-ar", "-parn", "500", "-s", "add-k", "-sv", smooth_value]
    args += ["-f", "text", "-w", "4"]
    ours = same_version(torch_bleu_process(args, files).stdout.decode())
    theirs = sacrebleu_output(args, files)
    if smooth_value == "0.5":
        p_value = r"\(p = [0-9.]+\)\*?"
        assert masked(ours, p_value) == masked(theirs, p_value)
    else:
        assert ours == theirs
    help_text = torch_bleu_process(["--help"], files).stdout.decode()
    assert "sacrebleu adds the value to\n    integer statistics" in help_text


@pytest.mark.parametrize(
    "test", [["-i", "hyp_a", "hyp_b", "hyp_c", "--paired-bs", "-pbsn", "300"], ["-i", "hyp_b", "-ci", "-cin", "300"]]
)
def test_bootstrap_means_and_intervals_agree_to_a_few_millionths(files, test):
    """sacrebleu scores resamples with float32 statistics, torch-bleu with float64 ones: at ``-w 6`` the
    means and confidence intervals may differ in their last digits; everything else is the same."""
    args = ["ref_1", "ref_2", *test, "-m", "bleu", "chrf", "-f", "text", "-w", "6"]
    ours = same_version(torch_bleu_process(args, files).stdout.decode())
    theirs = sacrebleu_output(args, files)
    interval = r"\((?:μ = )?(-?[0-9.]+) ± ([0-9.]+)\)"
    assert masked(ours, interval) == masked(theirs, interval)
    numbers = [
        (float(mine), float(other))
        for ours_found, theirs_found in zip(re.findall(interval, ours), re.findall(interval, theirs))
        for mine, other in zip(ours_found, theirs_found)
    ]
    assert numbers and max(abs(mine - other) for mine, other in numbers) < 1e-5

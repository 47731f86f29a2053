"""``torch-bleu -t TEST_SET -l SRC-TGT`` prints what ``sacrebleu`` prints, from sacrebleu's local cache.

The cases build a small cache of their own (``$SACREBLEU``) in sacrebleu's layout: WMT17's text files
(``wmt17/wmt17.en-de.ref`` ...) and the extracted SGML file that ``--origlang`` reads, and WMT21's
archive and extracted XML file, which sacrebleu turns into text. Both commands run as subprocesses
(sacrebleu fixes its cache folder when it is imported) with the network cut off: a command that tried
to download a test set would fail. Nothing is downloaded, and the tests check that the cache is left as
it was.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torch_bleu import __version__
from torch_bleu.cli import main
from torch_bleu.cli.arguments import build_parser
from torch_bleu.metrics.bleu.command_line import BLEUCommand

sacrebleu = pytest.importorskip("sacrebleu")

#: Runs ``python -m MODULE ARGS`` (``python -c NO_NETWORK MODULE ARGS``) with every way to a network closed.
NO_NETWORK = """
import runpy, socket, sys

def refuse(*args, **kwargs):
    raise SystemExit("the test cut the network off")

socket.getaddrinfo = socket.create_connection = refuse
socket.socket.connect = socket.socket.connect_ex = refuse
runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)
"""

SOURCE = ["Hello world .", "The cat sat on the mat.", "It rains.", "A third line here.", "Fourth one.", "Good night."]
REFERENCE_DE = [
    "Hallo Welt.",
    "Die Katze saß auf der Matte.",
    "Es regnet.",
    "Eine dritte Zeile hier.",
    "Die vierte.",
    "Gute Nacht.",
]
#: Chinese text, with full-width punctuation (\uff0c, \uff01) that the zh tokenizer splits off.
REFERENCE_ZH = ["你好\uff0c世界。", "猫坐在垫子上。", "下雨了。", "这是第三行。", "第四个。", "晚安。"]
#: The documents: (id, original language, how many sentences).
DOCUMENTS = [("doc1", "en", 3), ("doc2", "de", 3)]
HYP = ["Hallo Welt!", "Die Katze sitzt auf der Matte.", "Es regnet.", "Eine dritte Zeile.", "Die vierte.", "Gute Nacht"]
HYP_B = ["Hallo, Welt.", "Eine Katze auf einer Matte.", "Regen.", "Die dritte Zeile hier.", "Vierte.", "Gute Nacht."]
HYP_ZH = ["你好 世界。", "猫坐在垫子上", "在下雨。", "这是第三行。", "第四。", "晚安\uff01"]


def write_lines(path: Path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def sgml_document_lines(side: str):
    """WMT's SGML file of one side (``src`` lines) with the documents and their original languages."""
    lines, first = ['<srcset setid="newstest2017" srclang="any">'], 0
    for docid, origlang, size in DOCUMENTS:
        lines += [f'<doc sysid="ref" docid="{docid}" genre="news" origlang="{origlang}">', "<p>"]
        lines += [f'<seg id="{number}">{line}</seg>' for number, line in enumerate(side[first : first + size], 1)]
        lines += ["</p>", "</doc>"]
        first += size
    return [*lines, "</srcset>"]


def write_wmt17(cache: Path):
    """WMT17 as sacrebleu leaves it in its cache once it has scored en-de and en-zh: a text file per field
    (FakeSGMLDataset.fieldnames) and, for en-de, the extracted source file that --origlang reads."""
    docids = [docid for docid, _, size in DOCUMENTS for _ in range(size)]
    origlangs = [origlang for _, origlang, size in DOCUMENTS for _ in range(size)]
    for pair, reference in (("en-de", REFERENCE_DE), ("en-zh", REFERENCE_ZH)):
        fields = {"src": SOURCE, "ref": reference, "docid": docids, "genre": ["news"] * 6, "origlang": origlangs}
        for field, lines in fields.items():
            write_lines(cache / "wmt17" / f"wmt17.{pair}.{field}", lines)
    write_lines(cache / "wmt17" / "raw" / "test" / "newstest2017-ende-src.en.sgm", sgml_document_lines(SOURCE))


def segments(lines):
    """The ``<seg>`` elements of ``lines``, numbered from 1."""
    return "".join(f'<seg id="{number}">{line}</seg>' for number, line in enumerate(lines, 1))


def write_wmt21(cache: Path):
    """WMT21 en-de as a copy of sacrebleu's cache holds it before sacrebleu turns it into text: its archive
    (whose content sacrebleu checks only when it downloads it) and the extracted XML file, with the two
    translators' references (sacrebleu scores translator A's)."""
    raw = cache / "wmt21" / "raw"
    raw.mkdir(parents=True)
    (raw / "wmt21.test.tgz").write_bytes(b"stands for the archive")
    documents, first = [], 0
    for docid, origlang, size in DOCUMENTS:
        part = slice(first, first + size)
        documents.append(
            f'<doc id="{docid}" origlang="{origlang}"><src lang="en"><p>{segments(SOURCE[part])}</p></src>'
            f'<ref lang="de" translator="A"><p>{segments(REFERENCE_DE[part])}</p></ref>'
            f'<ref lang="de" translator="B"><p>{segments(HYP_B[part])}</p></ref></doc>'
        )
        first += size
    collection = f'<collection id="general">{"".join(documents)}</collection>'
    xml = f'<?xml version="1.0" encoding="utf-8"?>\n<dataset id="newstest2021">{collection}</dataset>\n'
    (raw / "test").mkdir()
    (raw / "test" / "newstest2021.en-de.xml").write_text(xml, encoding="utf-8")


def snapshot(folder: Path):
    """Every file under ``folder`` with its bytes, and every folder (``None``)."""
    return {str(path.relative_to(folder)): path.read_bytes() if path.is_file() else None for path in folder.rglob("*")}


@pytest.fixture
def work(tmp_path):
    """A folder with the systems' files and a sacrebleu cache (``sacrebleu/``) holding WMT17."""
    for name, lines in (("hyp", HYP), ("hyp_b", HYP_B), ("hyp_zh", HYP_ZH), ("ref_zh", REFERENCE_ZH)):
        write_lines(tmp_path / name, lines)
    write_lines(tmp_path / "hyp_twice", HYP + HYP)
    write_wmt17(tmp_path / "sacrebleu")
    return tmp_path


def run(module, args, cwd, cache, stdin=None):
    """``python -m module args`` without network, with ``cache`` as sacrebleu's cache."""
    env = {**os.environ, "NO_COLOR": "1", "SACREBLEU": str(cache)}
    for name in ("SACREBLEU_SEED", "SACREBLEU_FORMAT"):
        env.pop(name, None)
    command = [sys.executable, "-c", NO_NETWORK, module, *args]
    return subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, env=env)


def same_version(output: str) -> str:
    """Our output with sacrebleu's version in the signature, the one field allowed to differ."""
    ours, theirs = f"torch-bleu-{__version__}", sacrebleu.__version__
    output = output.replace(f"version:{ours}", f"version:{theirs}").replace(f"v:{ours}", f"v:{theirs}")
    return output.replace(f'"version": "{ours}"', f'"version": "{theirs}"')


def assert_same_output(args, cwd, ours_cache, theirs_cache, stdin=None):
    ours = run("torch_bleu", args, cwd, ours_cache, stdin)
    theirs = run("sacrebleu", args, cwd, theirs_cache, stdin)
    assert theirs.returncode == 0, theirs.stderr.decode()
    assert ours.returncode == 0, ours.stderr.decode()
    assert same_version(ours.stdout.decode()) == theirs.stdout.decode()
    return ours.stdout.decode()


SAME_AS_SACREBLEU = [
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp"],
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "-f", "text", "-sh", "-w", "3"],
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "-m", "chrf"],
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "-m", "bleu", "chrf", "-cw", "2", "-f", "text"],
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "hyp_b", "-m", "bleu", "chrf", "-f", "text"],
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "hyp_b", "--paired-bs", "-pbsn", "100", "-f", "text"],
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "-sl", "-f", "text"],
    ["-t", "wmt17,wmt17", "-l", "en-de", "-i", "hyp_twice", "-f", "text"],
    # --origlang selects documents by the original language in the extracted SGML file
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "--origlang", "de", "-f", "text"],
    ["-t", "wmt17", "-l", "en-de", "-i", "hyp", "hyp_b", "--origlang", "non-de", "-m", "bleu", "chrf"],
    # the target language zh picks the zh tokenizer, unless -tok says otherwise
    ["-t", "wmt17", "-l", "en-zh", "-i", "hyp_zh"],
    ["-t", "wmt17", "-l", "en-zh", "-i", "hyp_zh", "-m", "bleu", "chrf", "-f", "text"],
    ["-t", "wmt17", "-l", "en-zh", "-i", "hyp_zh", "-tok", "13a", "-f", "text"],
    ["ref_zh", "-l", "en-zh", "-i", "hyp_zh", "-f", "text", "-sh"],
]


@pytest.mark.parametrize("args", SAME_AS_SACREBLEU, ids=" ".join)
def test_test_set_output_is_sacrebleus(work, args):
    cache = work / "sacrebleu"
    before = snapshot(cache)
    out = assert_same_output(args, work, cache, cache)
    assert snapshot(cache) == before
    if "en-zh" in args and "-tok" not in args:
        assert "tok:zh" in out and "13a" not in out
    if "json" in args or "-f" not in args:
        json.loads(out)  # no field of -t or -l: sacrebleu's signature has none


def test_test_set_systems_on_standard_input(work):
    stdin = "".join(f"{a}\t{b}\n" for a, b in zip(HYP, HYP_B)).encode()
    cache = work / "sacrebleu"
    assert_same_output(["-t", "wmt17", "-l", "en-de", "-f", "text"], work, cache, cache, stdin)


def test_xml_test_set_is_turned_into_text_as_sacrebleu_does(work):
    ours_cache, theirs_cache = work / "ours", work / "theirs"
    write_wmt21(ours_cache)
    write_wmt21(theirs_cache)
    for args in (
        ["-t", "wmt21", "-l", "en-de", "-i", "hyp", "-m", "bleu", "chrf", "-f", "text"],
        ["-t", "wmt21", "-l", "en-de", "-i", "hyp", "--origlang", "en"],
    ):
        assert_same_output(args, work, ours_cache, theirs_cache)
    ours, theirs = snapshot(ours_cache), snapshot(theirs_cache)
    assert "wmt21/wmt21.en-de.ref-A" in ours
    theirs.pop("wmt21/raw/wmt21.test.tgz.lock")  # sacrebleu locks the archive while it checks it is there
    assert ours == theirs


MISSING = [
    ("wmt17", "empty"),
    ("wmt21", "empty"),  # sacrebleu reads the field names of an XML test set from its extracted file
    ("wmt21", "no archive"),  # an archive missing from the cache is one sacrebleu would download
]


@pytest.mark.parametrize("test_set, cache_holds", MISSING, ids=[" ".join(case) for case in MISSING])
def test_test_set_not_in_the_cache_is_one_clear_error(work, test_set, cache_holds):
    cache = work / "cache"
    cache.mkdir()
    if cache_holds == "no archive":
        write_wmt21(cache)
        (cache / "wmt21" / "raw" / "wmt21.test.tgz").unlink()
    before = snapshot(cache)
    done = run("torch_bleu", ["-t", test_set, "-l", "en-de", "-i", "hyp"], work, cache)
    assert done.returncode == 1
    assert done.stdout == b""
    error = done.stderr.decode()
    assert error.count("\n") == 1 and error.startswith(
        f"torch-bleu: error: test set {test_set} (en-de) is not in sacrebleu's cache {cache}"
    )
    assert f"`sacrebleu -t {test_set} -l en-de --echo ref > ref.txt`" in error and "~/.sacrebleu" in error
    assert snapshot(cache) == before


def test_the_commands_run_without_network(work):
    # sacrebleu downloads a test set that is not in its cache: here, that fails
    cache = work / "cache"
    done = run("sacrebleu", ["-t", "wmt17", "-l", "en-de", "-i", "hyp"], work, cache)
    assert done.returncode != 0 and b"the test cut the network off" in done.stderr


# -------------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "args, message",
    [
        (["-t", "no-such-set", "-l", "en-de", "-i", "hyp"], "unknown test set 'no-such-set'"),
        (["-t", "wmt17", "-l", "xx-yy", "-i", "hyp"], "test set wmt17 has no language pair 'xx-yy'; it has cs-en"),
        (["-t", "wmt17", "-i", "hyp"], "-t wmt17 needs a language pair (-l)"),
        (["ref_zh", "-t", "wmt17", "-l", "en-zh", "-i", "hyp"], "either a test set (-t) or reference files"),
        (["-t", "wmt17", "-l", "en-de", "-nr", "2", "-i", "hyp"], "--num-refs splits a reference file"),
        (["ref_zh", "--origlang", "en", "-i", "hyp_zh"], "--origlang and --subset select documents of a test set"),
        (["-i", "hyp"], "or a test set with -t and -l"),
    ],
)
def test_bad_test_set_options_are_clear_errors(work, capsys, monkeypatch, args, message):
    monkeypatch.chdir(work)
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("torch-bleu: error: ") and message in err


def test_language_pair_without_a_target_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["ref", "-l", "en", "-i", "hyp"])
    assert exit_info.value.code == 2
    assert "expected source-target language codes such as en-de, got 'en'" in capsys.readouterr().err


def test_t_and_l_are_test_set_and_language_pair_not_prefixes_of_tok_and_lc():
    args = build_parser().parse_args(["-t", "wmt17", "-l", "en-de", "-i", "hyp"])
    assert (args.test_set, args.langpair) == ("wmt17", "en-de")
    assert getattr(args, "bleu:tokenize") is None and getattr(args, "bleu:lowercase") is False


def sacrebleu_parser(monkeypatch):
    """The argument parser of sacrebleu's command line, which builds and uses it in one function."""
    built = []

    def keep(parser, *args, **kwargs):
        built.append(parser)
        raise SystemExit(0)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", keep)
    from sacrebleu import sacrebleu as command

    with pytest.raises(SystemExit):
        command.parse_args()
    monkeypatch.undo()
    return built[0]


def test_sacrebleus_other_options_are_errors_not_abbreviations_of_ours(monkeypatch, capsys):
    ours = build_parser()
    theirs = {option for action in sacrebleu_parser(monkeypatch)._actions for option in action.option_strings}
    for option in sorted(theirs - set(ours._option_string_actions)):
        with pytest.raises(SystemExit) as exit_info:
            ours.parse_args([option, "x"])
        assert exit_info.value.code == 2, option
    assert {"--test-set", "-t", "--language-pair", "-l", "--origlang", "-ol", "--subset"} <= theirs
    capsys.readouterr()


def test_help_lists_the_test_set_options(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    shown = capsys.readouterr().out
    for option in ("--test-set TEST_SET, -t TEST_SET", "--language-pair LANGPAIR, -l LANGPAIR"):
        assert option in shown  # as sacrebleu names them
    assert "--origlang ORIGLANG, -ol ORIGLANG" in shown and "--subset SUBSET" in shown


@pytest.mark.parametrize(
    "options, tokenizer",
    [
        ([], "13a"),
        (["-l", "en-de"], "13a"),
        (["-l", "en-zh"], "zh"),
        (["-l", "en-ja"], "ja-mecab"),
        (["-l", "en-ko"], "ko-mecab"),
        (["-l", "en-zh", "-tok", "intl"], "intl"),
        (["-l", "de-en", "-tok", "char"], "char"),
    ],
)
def test_target_language_picks_sacrebleus_tokenizer(options, tokenizer):
    args = build_parser().parse_args(["ref", *options, "-i", "hyp"])
    assert BLEUCommand.from_arguments(args).config.tokenize == tokenizer

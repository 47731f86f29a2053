"""Type checkers see the package and its options: a misspelled option or a value of the wrong type is
reported on its line, and typical use passes ``mypy --strict`` and pyright, as do the examples that use
nothing but PyTorch, NumPy and this package (:data:`TYPED_EXAMPLES`).

The checkers run as a user runs them, from a folder outside the checkout, on the package as this
environment has it installed (``pip install -e .``: a plain path entry, which static analysers read).
Each metric's options are declared twice, as its config's fields (checked at run time) and as a
``TypedDict`` (read by type checkers); the tests here keep the two equal, name for name and type for type.
Likewise the package's public names: imported for type checkers, and listed where they load lazily.
pyright, which needs Node.js and takes longest, runs with --slow; mypy runs by default.
"""

from __future__ import annotations

import ast
import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, get_type_hints

import pytest
import torch
from torchmetrics import Metric

import torch_bleu
from torch_bleu.metrics.base import MetricArguments

CASES = Path(__file__).resolve().parent / "typing_cases"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: The examples checked as user code; the others lean on libraries whose types are incomplete (transformers,
#: Lightning, TRL, nltk, ``nn.Module.__call__``), which would report on lines that are not this package's.
TYPED_EXAMPLES = ("asr_wer.py", "hf_compute_metrics.py", "validation_significance.py")
MYPY_CACHE = Path(__file__).resolve().parents[1] / ".mypy_cache" / "user"
METRICS = [
    (torch_bleu.BLEUConfig, torch_bleu.BLEUOptions),
    (torch_bleu.CHRFConfig, torch_bleu.CHRFOptions),
    (torch_bleu.TERConfig, torch_bleu.TEROptions),
    (torch_bleu.WERConfig, torch_bleu.WEROptions),
    (torch_bleu.CERConfig, torch_bleu.WEROptions),
    (torch_bleu.ROUGEConfig, torch_bleu.ROUGEOptions),
]
#: Names the annotations use that their modules import for type checkers only.
CHECKER_NAMES = {"Tensor": torch.Tensor, "Detokenizer": torch_bleu.Detokenizer}


def marked_lines(path: Path) -> set[int]:
    """The lines of ``path`` marked ``# mistake:``."""
    return {number for number, line in enumerate(path.read_text().splitlines(), 1) if "# mistake:" in line}


def reported_lines(output: str, name: str) -> set[int]:
    """The lines of file ``name`` that a checker's output reports errors on (mypy's ``file:line: error``,
    pyright's ``/path/file:line:column - error``)."""
    pattern = re.compile(rf"{re.escape(name)}:(\d+):(?:\d+ -)? ?error")
    return {int(match.group(1)) for match in pattern.finditer(output)}


@pytest.fixture(scope="module")
def user_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("user")
    for case in CASES.glob("*.py"):
        shutil.copy(case, folder)
    for example in TYPED_EXAMPLES:
        shutil.copy(EXAMPLES / example, folder)
    return folder


@pytest.mark.parametrize(("config", "options"), METRICS, ids=lambda value: value.__name__)
def test_the_typed_options_are_the_configs_fields(config: Any, options: Any) -> None:
    assert list(options.__annotations__) == list(config.option_names()) or set(options.__optional_keys__) == set(
        config.option_names()
    )
    assert not options.__required_keys__
    fields = get_type_hints(config, localns=CHECKER_NAMES)
    typed = get_type_hints(options, localns=CHECKER_NAMES)
    assert typed == {name: fields[name] for name in config.option_names()}


def test_the_names_type_checkers_import_are_the_lazily_loaded_ones() -> None:
    tree = ast.parse(Path(torch_bleu.__file__).read_text())
    checked = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    imported = {}
    for statement in checked.body:
        assert isinstance(statement, ast.ImportFrom) and statement.level == 1, ast.unparse(statement)
        for alias in statement.names:
            assert alias.asname == alias.name, f"{alias.name} is exported only when imported as itself"
            imported[alias.name] = statement.module
    assert imported == torch_bleu._LAZY_MODULES
    assert torch_bleu.__all__ == sorted(["__version__", *imported])
    assert all(getattr(torch_bleu, name) is not None for name in torch_bleu.__all__)


def test_the_metric_arguments_are_torchmetrics_own() -> None:
    popped = re.findall(r'kwargs\.pop\("(\w+)"', inspect.getsource(Metric.__init__))
    assert set(MetricArguments.__annotations__) == set(popped)


def test_mypy_strict_reports_each_mistake_and_passes_typical_use(user_folder: Path) -> None:
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(MYPY_CACHE), "--no-error-summary"]
    files = ["typical_use.py", "mistakes.py", *TYPED_EXAMPLES]
    done = subprocess.run([*command, *files], cwd=user_folder, capture_output=True, text=True)
    assert "Cannot find implementation or library stub" not in done.stdout, done.stdout
    for clean in ("typical_use.py", *TYPED_EXAMPLES):
        assert reported_lines(done.stdout, clean) == set(), done.stdout
    assert reported_lines(done.stdout, "mistakes.py") == marked_lines(CASES / "mistakes.py"), done.stdout


@pytest.mark.slow
def test_pyright_reports_each_mistake_and_passes_typical_use(user_folder: Path) -> None:
    pytest.importorskip("pyright", reason="pyright is in the test extra")
    command = [sys.executable, "-m", "pyright", "--pythonpath", sys.executable, "typical_use.py", "mistakes.py"]
    done = subprocess.run([*command, *TYPED_EXAMPLES], cwd=user_folder, capture_output=True, text=True)
    if "node" in done.stderr.lower() and not done.stdout:
        pytest.skip(f"pyright cannot start here: {done.stderr.strip()}")
    for clean in ("typical_use.py", *TYPED_EXAMPLES):
        assert reported_lines(done.stdout, clean) == set(), done.stdout
    assert reported_lines(done.stdout, "mistakes.py") == marked_lines(CASES / "mistakes.py"), done.stdout

"""The wheel and the source distribution a user installs: what they hold, and that the installed wheel
works on its own, as a user's environment has it.

``python -m build`` makes the sdist, then the wheel from the sdist (so the sdist is complete), with the
setuptools of this environment (no build isolation, so nothing is downloaded), from a copy of the files
the build reads. The wheel goes into a new virtual environment that sees this environment's packages
(torch, torchmetrics, ...) through a ``.pth`` file, installed with ``--no-deps --no-index``. There the
package must import from the wheel (not from ``src/``), the ``torch-bleu`` command must run, and
``mypy --strict`` must read the package's types (``py.typed``) and pass a small typed user file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from torch_bleu.version import __version__

ROOT = Path(__file__).resolve().parents[1]
#: What the build reads; a file the build needs that is missing here fails the test, saying so.
BUILD_INPUTS = ["pyproject.toml", "MANIFEST.in", "README.md", "LICENSE", "CHANGELOG.md", "src"]
MYPY_CACHE = ROOT / ".mypy_cache" / "user"  # shared with tests/test_typing.py: torch is read once

USER_FILE = '''\
"""A user's file: typed calls of the installed package."""

import torch

from torch_bleu import BLEUScore, corpus_chrf

metric = BLEUScore(ignore_ids=[0], eos_id=2, smoothing="exp")
metric.update(torch.tensor([[5, 6, 7, 2, 0]]), torch.tensor([[5, 6, 7, 8, 2]]))
score: torch.Tensor = metric.compute()
chrf: torch.Tensor = corpus_chrf(["the cat sat"], [["the cat sat down"]])
'''
MISTAKE = "BLEUScore(max_ordr=4)  # a misspelled option\n"

pytestmark = pytest.mark.slow


def run(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``command`` run in ``cwd`` as a user runs it: without this checkout's ``PYTHONPATH``."""
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "MYPYPATH")}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the sdist and the wheel built from it."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    for name in BUILD_INPUTS:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, source / name)
    done = run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)], source)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed; this environment's packages are its dependencies."""
    folder = tmp_path_factory.mktemp("venv")
    done = run([sys.executable, "-m", "venv", "--without-pip", str(folder)], folder)
    assert done.returncode == 0, done.stderr
    python = folder / "bin" / "python"
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], folder)
    (Path(purelib.stdout.strip()) / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    wheel = str(next(dist.glob("*.whl")))
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", wheel]
    done = run([*install, "--quiet", "--disable-pip-version-check"], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def test_the_wheel_holds_the_package_its_types_and_command_and_nothing_else(dist: Path) -> None:
    wheel = next(dist.glob("*.whl"))
    assert wheel.name == f"torch_bleu-{__version__}-py3-none-any.whl"
    info = f"torch_bleu-{__version__}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert {name.split("/")[0] for name in names} == {"torch_bleu", info}  # no tests, scripts, docs, benchmarks
    assert {name for name in names if name.startswith("torch_bleu/") and not name.endswith(".py")} == {
        "torch_bleu/py.typed"
    }
    sources = {str(path.relative_to(ROOT / "src")) for path in (ROOT / "src" / "torch_bleu").rglob("*.py")}
    assert sources <= names, sorted(sources - names)
    assert f"{info}/licenses/LICENSE" in names
    assert "torch-bleu = torch_bleu.cli:main" in entry_points


def test_the_metadata_says_what_the_package_is(dist: Path) -> None:
    wheel = next(dist.glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"torch_bleu-{__version__}.dist-info/METADATA").decode()
    headers = metadata.split("\n\n", 1)[0]
    description = re.search(r'^description = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert description is not None and f"Summary: {description[1]}" in headers
    assert "License-Expression: Apache-2.0" in headers
    assert "Requires-Python: >=3.10" in headers
    assert "Classifier: Typing :: Typed" in headers
    assert "Description-Content-Type: text/markdown" in headers
    assert metadata.split("\n\n", 1)[1].startswith("# torch-bleu")  # the README


def test_the_sdist_builds_the_wheel_and_holds_no_tests(dist: Path) -> None:
    sdist = next(dist.glob("*.tar.gz"))
    top = f"torch_bleu-{__version__}"
    with tarfile.open(sdist) as archive:
        names = {name.removeprefix(top + "/") for name in archive.getnames()}
    assert {"pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "src/torch_bleu/py.typed"} <= names
    assert not [name for name in names if name.startswith(("tests", "scripts", "docs", "examples"))]


def test_the_installed_wheel_imports_and_runs_its_command(venv: Path) -> None:
    code = "import torch_bleu; print(torch_bleu.__file__, torch_bleu.__version__)"
    done = run([str(venv / "bin" / "python"), "-c", code], venv)
    assert done.returncode == 0, done.stderr
    path, version = done.stdout.split()
    assert Path(path).is_relative_to(venv) and version == __version__  # the wheel's copy, not src/
    done = run([str(venv / "bin" / "torch-bleu"), "--help"], venv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: torch-bleu")


def test_mypy_strict_reads_the_installed_package(venv: Path, tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(USER_FILE)
    (tmp_path / "mistake.py").write_text(USER_FILE + MISTAKE)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(MYPY_CACHE)]
    mypy += ["--python-executable", str(venv / "bin" / "python"), "--verbose"]
    done = run([*mypy, "user.py"], tmp_path)
    assert done.returncode == 0, done.stdout
    assert str(venv) in done.stderr.split("torch_bleu/__init__.py")[0].rsplit("\n", 1)[-1]  # read from the wheel
    done = run([*mypy, "mistake.py"], tmp_path)
    lines = USER_FILE.count("\n") + 1
    assert done.returncode == 1 and f'mistake.py:{lines}: error: Unexpected keyword argument "max_ordr"' in done.stdout

"""The README's install lines work from a clone and from a git URL (no registry needed).

Each installs into a temporary folder without dependencies (they are in this environment already) and
without build isolation (so no download), then imports the package from there and finds the command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def pip_install(requirement: str, target: Path) -> None:
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    done = subprocess.run([*command, "--target", str(target), requirement], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def modules(package: Path) -> list[str]:
    return sorted(str(path.relative_to(package)) for path in package.rglob("*.py"))


def installed_package(target: Path) -> str:
    code = "import torch_bleu; print(torch_bleu.__file__)"
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=target)
    assert done.returncode == 0, done.stderr
    assert (target / "bin" / "torch-bleu").exists()  # the console script
    missing = set(modules(ROOT / "src" / "torch_bleu")) - set(modules(target / "torch_bleu"))
    assert not missing, f"not installed: {sorted(missing)}"  # every subpackage has its __init__.py
    return done.stdout.strip()


def test_install_from_a_clone(tmp_path):
    pip_install(f"{ROOT}[text]", tmp_path)
    assert installed_package(tmp_path).startswith(str(tmp_path))


def test_install_from_a_git_url(tmp_path):
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    pip_install(f"torch-bleu[text] @ git+file://localhost{clone}", tmp_path / "site")
    assert installed_package(tmp_path / "site").startswith(str(tmp_path / "site"))

"""``bash scripts/setup_env.sh --dry-run``: the set-up's plan, with no network and nothing installed or created.

A machine without an NVIDIA GPU must get PyTorch's CPU build by name (never the default wheel, which
on Linux pulls several GB of CUDA libraries), from a local wheel pip is configured to find or from
PyTorch's CPU index; a machine with one gets the default build; a torch already there is kept.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TAG = f"cp{sys.version_info[0]}{sys.version_info[1]}"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _plan(tmp_path: Path, *, gpu: bool = False, wheel: bool = False, python: str | None = None) -> str:
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    if gpu:  # nvidia-smi that lists a GPU
        smi = tools / "nvidia-smi"
        smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H100 80GB HBM3'\n")
        smi.chmod(0o755)
    wheels = tmp_path / "wheels"
    wheels.mkdir(exist_ok=True)
    if wheel:
        (wheels / f"torch-2.13.0+cpu-{TAG}-{TAG}-manylinux_2_28_x86_64.whl").write_bytes(b"")
    if python is None:  # a Python that cannot import torch: no site-packages
        stub = tools / "python-without-torch"
        stub.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
        stub.chmod(0o755)
        python = str(stub)
    venv = tmp_path / "venv"
    env = {
        **os.environ,
        "PATH": f"{tools}:{os.environ['PATH']}",
        "PIP_CONFIG_FILE": os.devnull,  # pip's own configuration: only the find-links given here
        "PIP_FIND_LINKS": str(wheels),
        "PYTHON": python,
        "TORCH_BLEU_VENV": str(venv),
    }
    env.pop("TORCH_BLEU_SKIP_SETUP", None)
    command = ["bash", str(ROOT / "scripts" / "setup_env.sh"), "--dry-run"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not venv.exists()  # a dry run creates nothing
    return done.stdout


@pytest.fixture(autouse=True)
def _no_gpu_here():
    if shutil.which("nvidia-smi"):
        pytest.skip("this machine has nvidia-smi; the plans below assume one without")


def test_without_a_gpu_the_cpu_build_comes_from_pytorchs_cpu_index(tmp_path):
    plan = _plan(tmp_path)
    torch_line = next(line for line in plan.splitlines() if "install --quiet torch" in line)
    assert "--index-url https://download.pytorch.org/whl/cpu" in torch_line and "the CPU build" in torch_line
    assert "venv" in plan and "-e" in plan  # the environment, then torch-bleu itself


def test_without_a_gpu_a_local_cpu_wheel_is_asked_for_by_name(tmp_path):
    plan = _plan(tmp_path, wheel=True)
    torch_line = next(line for line in plan.splitlines() if "install --quiet torch" in line)
    assert "torch==2.13.0+cpu" in torch_line and "the CPU build" in torch_line
    assert "--index-url" not in torch_line


def test_with_a_gpu_the_default_build(tmp_path):
    plan = _plan(tmp_path, gpu=True, wheel=True)
    torch_line = next(line for line in plan.splitlines() if "install --quiet torch" in line)
    assert torch_line.split("#")[0].rstrip().endswith("install --quiet torch")
    assert "an NVIDIA GPU is present" in torch_line


def test_a_torch_already_there_is_kept(tmp_path):
    plan = _plan(tmp_path, python=sys.executable)  # this environment has torch
    assert "install --quiet torch " not in plan and "torch==" not in plan
    assert "--system-site-packages" in plan

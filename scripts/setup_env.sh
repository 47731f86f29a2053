#!/usr/bin/env bash
# Create (once) and activate the project's virtual environment in .venv, with torch-bleu installed
# in editable mode plus the extras named in $TORCH_BLEU_EXTRAS (default: test).
#
# torch: a torch the user already has (in the venv or the system Python) is kept. Otherwise a machine
# with an NVIDIA GPU gets the default (CUDA) build; a machine without one gets the CPU build, either
# the pinned local wheel (torch==2.13.0) or the CPU index, never several GB of CUDA wheels.
# Sourced by scripts/test.sh and scripts/demo.sh; quick when everything is already in place.
set -euo pipefail

# TORCH_BLEU_SKIP_SETUP=1: use the Python already on PATH as it is (the tests run demo.sh this way)
if [ -n "${TORCH_BLEU_SKIP_SETUP:-}" ]; then
    return 0
fi

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TORCH_BLEU_VENV:-$repo_root/.venv}"
extras="${TORCH_BLEU_EXTRAS:-test}"
python="${PYTHON:-python3}"

have_torch() { "$1" -c "import torch" >/dev/null 2>&1; }

if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating $venv" >&2
    if have_torch "$python"; then
        # reuse the torch the user already has instead of downloading another one
        "$python" -m venv --system-site-packages "$venv"
    else
        "$python" -m venv "$venv"
    fi
fi
venv_python="$venv/bin/python"

if ! have_torch "$venv_python"; then
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
        echo "setup: installing torch (CUDA build)" >&2
        "$venv_python" -m pip install --quiet torch
    else
        echo "setup: installing torch (CPU build)" >&2
        "$venv_python" -m pip install --quiet "torch==2.13.0" 2>/dev/null \
            || "$venv_python" -m pip install --quiet torch --index-url https://download.pytorch.org/whl/cpu
    fi
fi

# (Re)install the package when pyproject.toml or the extras changed since the last install.
stamp="$venv/.torch-bleu-installed"
wanted="$(cat "$repo_root/pyproject.toml"; echo "extras=$extras")"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "setup: installing torch-bleu[$extras]" >&2
    if ! "$venv_python" -m pip install --quiet --disable-pip-version-check -e "$repo_root[$extras]" \
        >"$venv/pip-install.log" 2>&1; then
        cat "$venv/pip-install.log" >&2
        echo "setup: installing torch-bleu[$extras] failed (log above)" >&2
        exit 1
    fi
    printf '%s' "$wanted" >"$stamp"
fi
export PATH="$venv/bin:$PATH"

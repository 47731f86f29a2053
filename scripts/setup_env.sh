#!/usr/bin/env bash
# Create (once) and activate the project's virtual environment in .venv, with torch-bleu installed
# in editable mode plus the extras named in $TORCH_BLEU_EXTRAS (default: test).
#
# torch: a torch the user already has (in the venv or the system Python) is kept. Otherwise a machine
# with an NVIDIA GPU gets the default build (CUDA on Linux); a machine without one gets the CPU build,
# asked for by name (torch==2.13.0+cpu): from a wheel in pip's configured find-links folders when one
# is there, else from PyTorch's CPU index. Never several GB of CUDA wheels on a machine without a GPU.
#
# Sourced by scripts/test.sh and scripts/demo.sh; quick when everything is already in place.
# Run on its own with --dry-run, it prints the commands it would run and changes nothing:
#   bash scripts/setup_env.sh --dry-run
set -euo pipefail

# TORCH_BLEU_SKIP_SETUP=1: use the Python already on PATH as it is (the tests run demo.sh this way)
if [ -n "${TORCH_BLEU_SKIP_SETUP:-}" ]; then
    return 0 2>/dev/null || exit 0
fi

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TORCH_BLEU_VENV:-$repo_root/.venv}"
extras="${TORCH_BLEU_EXTRAS:-test}"
python="${PYTHON:-python3}"
cpu_torch="torch==2.13.0+cpu"
cpu_index="https://download.pytorch.org/whl/cpu"

dry_run=""
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = "--dry-run" ]; then  # run, not sourced
    dry_run=1
fi

# Say what is being set up (not in a dry run, which prints the commands instead).
say() { [ -n "$dry_run" ] || echo "setup: $*" >&2; }

# Run a command, or with --dry-run print it (and why) instead.
step() {
    local why="$1"
    shift
    if [ -n "$dry_run" ]; then
        printf 'would run:'
        printf ' %q' "$@"
        printf '   # %s\n' "$why"
    else
        "$@"
    fi
}

# step, with pip's output kept in the environment's pip-install.log and shown only if it fails.
pip_step() {
    local why="$1"
    shift
    if [ -n "$dry_run" ]; then
        step "$why" "$@"
    elif ! "$@" >"$venv/pip-install.log" 2>&1; then
        cat "$venv/pip-install.log" >&2
        echo "setup: failed (log above, in $venv/pip-install.log)" >&2
        exit 1
    fi
}

have_torch() { "$1" -c "import torch" >/dev/null 2>&1; }
have_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }

# A CPU wheel of torch for this Python in one of the folders pip is configured to find wheels in
# (PIP_FIND_LINKS, pip's configuration files): printed if there is one.
local_cpu_wheel() {
    local folders folder wheel tag
    tag="$("$python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
    folders="${PIP_FIND_LINKS:-} $("$python" -m pip config list 2>/dev/null | sed -n "s/^[a-z:.]*find-links='\(.*\)'$/\1/p")"
    for folder in $folders; do
        for wheel in "${folder#file://}"/torch-2.13.0+cpu-"$tag"-*.whl; do
            if [ -f "$wheel" ]; then
                echo "$wheel"
                return 0
            fi
        done
    done
}

if [ ! -x "$venv/bin/python" ]; then
    say "creating $venv"
    if have_torch "$python"; then
        # reuse the torch the user already has instead of downloading another one
        step "keeps the torch $python has" "$python" -m venv --system-site-packages "$venv"
    else
        step "a new environment" "$python" -m venv "$venv"
    fi
fi
venv_python="$venv/bin/python"
if [ -n "$dry_run" ] && [ ! -x "$venv_python" ]; then
    venv_python="$python"  # what the new environment would start from
fi

if have_torch "$venv_python"; then
    [ -n "$dry_run" ] && echo "torch: kept, the one $venv_python imports"
elif have_gpu; then
    say "installing torch (the default build: an NVIDIA GPU is present)"
    pip_step "torch, the default build (CUDA on Linux): an NVIDIA GPU is present" \
        "$venv/bin/python" -m pip install --quiet torch
elif wheel="$(local_cpu_wheel)" && [ -n "$wheel" ]; then
    say "installing torch (CPU build, $wheel)"
    pip_step "torch, the CPU build (no NVIDIA GPU), from the wheel pip finds at $wheel" \
        "$venv/bin/python" -m pip install --quiet "$cpu_torch"
else
    say "installing torch (CPU build, from PyTorch's CPU index)"
    pip_step "torch, the CPU build (no NVIDIA GPU), from PyTorch's CPU index" \
        "$venv/bin/python" -m pip install --quiet torch --index-url "$cpu_index"
fi

# (Re)install the package when pyproject.toml or the extras changed since the last install.
stamp="$venv/.torch-bleu-installed"
wanted="$(cat "$repo_root/pyproject.toml"; echo "extras=$extras")"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    say "installing torch-bleu[$extras]"
    pip_step "torch-bleu and its $extras extras" \
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$repo_root[$extras]"
    [ -n "$dry_run" ] || printf '%s' "$wanted" >"$stamp"
elif [ -n "$dry_run" ]; then
    echo "torch-bleu[$extras]: installed already"
fi
if [ -n "$dry_run" ]; then
    exit 0
fi
export PATH="$venv/bin:$PATH"

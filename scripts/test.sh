#!/usr/bin/env bash
# Lint (ruff), type-check (mypy, strict) and run the test suite (and the doctests of src/torch_bleu/,
# README.md and docs/*.md) in the project's venv, on one worker process per CPU (pytest-xdist; -n 0 runs them here).
# The summary lists why each skipped test was skipped (-rs).
# Usage: bash scripts/test.sh [--slow] [pytest args...]   (--slow: also the slow cases, as CI runs them,
# with Triton installed (the triton extra), whose kernels are then tested in its interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
for argument in "$@"; do
    if [ "$argument" = --slow ]; then
        export TORCH_BLEU_EXTRAS="${TORCH_BLEU_EXTRAS:-test,triton}"
    fi
done
source scripts/setup_env.sh
ruff check --quiet .
ruff format --check --quiet .
mypy
python -m pytest tests src/torch_bleu README.md docs --doctest-glob='*.md' --ignore=docs/_build -p no:cacheprovider -n auto -rs "$@"

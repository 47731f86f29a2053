#!/usr/bin/env bash
# Build the documentation into docs/_build/html with Sphinx (Markdown pages through MyST, the API
# reference from the docstrings through autodoc and napoleon), warnings as errors.
# Sets up the project's venv as scripts/test.sh does, and installs the docs extra into it the first
# time; quick when everything is already in place.
# Usage: bash scripts/docs.sh [sphinx-build args...]; then open docs/_build/html/index.html
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup_env.sh
if ! python -c "import sphinx, myst_parser, furo" >/dev/null 2>&1; then
    echo "docs: installing torch-bleu[docs]" >&2
    # as scripts/setup_env.sh installs: pip's output kept in the environment's pip-install.log, shown only if
    # the install fails (venv is setup_env.sh's; TORCH_BLEU_SKIP_SETUP leaves it unset)
    log="${venv:-$(mktemp -d)}/pip-install.log"
    if ! python -m pip install --quiet --disable-pip-version-check -e ".[docs]" >"$log" 2>&1; then
        cat "$log" >&2
        echo "docs: installing torch-bleu[docs] failed (log above, in $log)" >&2
        exit 1
    fi
fi
# -E: read every page and docstring again, so that a warning is never hidden by an earlier build
sphinx-build -E -W --keep-going -q -b html docs docs/_build/html "$@"
echo "docs: built docs/_build/html/index.html"

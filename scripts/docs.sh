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
    python -m pip install --quiet --disable-pip-version-check -e ".[docs]"
fi
# -E: read every page and docstring again, so that a warning is never hidden by an earlier build
sphinx-build -E -W --keep-going -q -b html docs docs/_build/html "$@"
echo "docs: built docs/_build/html/index.html"

"""Sphinx configuration of torch-bleu's documentation: Markdown pages (MyST) and the API reference
read from the docstrings (autodoc, Google style through napoleon).

Build: ``bash scripts/docs.sh`` (``sphinx-build -W --keep-going -b html docs docs/_build/html``).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # the package of this checkout, installed or not

import torch_bleu  # noqa: E402

project = "torch-bleu"
author = "the torch-bleu authors"
copyright = "the torch-bleu authors"
version = release = torch_bleu.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# Everything in docs/ that is not a page: the build, the benchmark figures the scripts write, this file.
exclude_patterns = ["_build", "**/.ipynb_checkpoints", ".DS_Store", "Thumbs.db", "*.json"]

# MyST: anchors for headings down to ####, so that pages link to sections with page.md#a-heading.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

# autodoc: members in the order of the source, type hints in the descriptions rather than the
# signatures (the signatures stay readable).
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_default_options = {"exclude-members": "__init__, __new__"}

# napoleon: Google-style docstrings (Args:, Returns:, Example:).
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

# Python code blocks of the pages start with ">>>"; Sphinx highlights them as console sessions.
highlight_language = "python"
pygments_style = "sphinx"

html_theme = "furo"
html_title = f"torch-bleu {release}"
html_static_path: list[str] = []

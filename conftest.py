"""What pytest needs before collecting anything: the doctests of the modules that define Triton kernels are
collected only where Triton is installed (the package imports them only when a kernel runs)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Leave out the ``triton_*.py`` modules of the package where ``triton`` cannot be imported."""
    if collection_path.name.startswith("triton_") and collection_path.suffix == ".py":
        return importlib.util.find_spec("triton") is None or None
    return None

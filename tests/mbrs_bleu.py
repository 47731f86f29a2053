"""mbrs's BLEU metric without the rest of its metrics.

Importing ``mbrs.metrics`` imports every metric mbrs has (BERTScore, COMET, BLEURT, MetricX), which
need transformers, unbabel-comet and their models. Installed alone (``pip install --no-deps mbrs``),
mbrs's BLEU and its base classes need only PyTorch and sacrebleu: :func:`mbrs_metrics` imports
``mbrs.metrics.base`` and ``mbrs.metrics.bleu`` under a bare ``mbrs.metrics`` package that holds only
those. Where the whole of ``mbrs.metrics`` imports, it is used as it is.
"""

from __future__ import annotations

import enum
import importlib
import importlib.util
import sys
import types
from pathlib import Path


def mbrs_metrics() -> types.ModuleType | None:
    """``mbrs.metrics`` with at least ``Metric``, ``MetricAggregatable``, ``MetricBLEU``, ``get_metric``
    and ``Metrics`` (what ``mbrs.decoders`` imports); ``None`` where mbrs is not installed."""
    if importlib.util.find_spec("mbrs") is None:
        return None
    try:
        return importlib.import_module("mbrs.metrics")
    except ImportError:
        pass
    for name in [name for name in sys.modules if name == "mbrs.metrics" or name.startswith("mbrs.metrics.")]:
        del sys.modules[name]  # what the failed import left behind
    spec = importlib.util.find_spec("mbrs")
    assert spec is not None and spec.submodule_search_locations
    package = types.ModuleType("mbrs.metrics")
    package.__path__ = [str(Path(next(iter(spec.submodule_search_locations))) / "metrics")]
    sys.modules["mbrs.metrics"] = package
    base = importlib.import_module("mbrs.metrics.base")
    for name in dir(base):
        if name.startswith(("Metric", "get_metric", "register")):
            setattr(package, name, getattr(base, name))
    package.MetricBLEU = importlib.import_module("mbrs.metrics.bleu").MetricBLEU  # type: ignore[attr-defined]
    registry = importlib.import_module("mbrs.registry")
    metrics = registry.get_registry(base.Metric | base.MetricReferenceless)
    package.Metrics = enum.Enum("Metrics", {name: name for name in metrics}, type=str)  # type: ignore[attr-defined]
    return package

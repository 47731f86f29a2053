"""The package is layered: every module imports only modules of its own layer or below, never one that
builds on it, and no two modules import each other, even through others. Metrics are peers: one metric
imports no other, what they share knows none of them, and neither the significance tests nor the
command line (but for its registry) name one.

Imports are read from the source (every ``import`` statement, those inside functions and
``TYPE_CHECKING`` blocks included), so a lazy import counts like any other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "torch_bleu"

#: The layers, lowest first; a module belongs to the first entry that is a prefix of its name.
LAYERS = [
    ["version", "errors", "kernels", "arrays", "threads", "argument_names"],
    ["options", "significance", "engine"],
    ["text"],
    ["inputs", "detokenize"],
    ["metrics.config", "metrics.command_line", "metrics.sentences", "metrics.queued_text", "metrics.queued_ids"],
    ["metrics.base"],
    ["metrics.bleu", "metrics.chrf", "metrics.cider", "metrics.rouge", "metrics.ter", "metrics.wer"],
    ["pairwise", "rewards", "captioning", "cli", "metrics.paired"],
    ["", "__main__"],  # the package's public names
]
#: Packages of which no module may import another's.
PEERS = ["metrics.bleu", "metrics.chrf", "metrics.cider", "metrics.rouge", "metrics.ter", "metrics.wer"]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports (names relative to the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".") if package else []
            base = base[: len(base) - (node.level - 1)]
            target = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                child = f"{target}.{alias.name}" if target else alias.name
                found.add(child if child in known else target)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            for full in [module] if module else [alias.name for alias in node.names]:
                if full == "torch_bleu" or full.startswith("torch_bleu."):
                    found.add(full.removeprefix("torch_bleu").lstrip("."))
    return found - {name}


def layer(name: str) -> int:
    for index, names in enumerate(LAYERS):
        if any(name == prefix or name.startswith(f"{prefix}.") or (prefix == "" and name == "") for prefix in names):
            return index
    raise AssertionError(f"module {name!r} belongs to no layer; add it to LAYERS")


GRAPH = {name: imports(name, path, set(modules())) for name, path in modules().items()}


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_a_module_imports_only_its_layer_and_those_below(name):
    upward = sorted(target for target in GRAPH[name] if layer(target) > layer(name))
    assert not upward, f"{name} (layer {layer(name)}) imports {upward}, which build on it"


def test_no_modules_import_each_other():
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for target in sorted(GRAPH.get(name, ())):
            assert state.get(target) != "open", f"import cycle: {' -> '.join([*path, name, target])}"
            if target not in state:
                visit(target, [*path, name])
        state[name] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [])


@pytest.mark.parametrize("peer", PEERS)
def test_a_metric_imports_no_other_metric(peer):
    others = [other for other in PEERS if other != peer]
    for name, targets in GRAPH.items():
        if name.startswith(peer):
            assert not [t for t in targets if any(t.startswith(other) for other in others)], name


def test_the_command_line_knows_metrics_only_through_its_registry():
    registry = "cli.metrics"
    for name, targets in GRAPH.items():
        if name.startswith("cli") and name != registry:
            assert not [t for t in targets if any(t.startswith(peer) for peer in PEERS)], name
    for path in (PACKAGE / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                constants = [part for part in (node.left, *node.comparators) if isinstance(part, ast.Constant)]
                assert not [c.value for c in constants if c.value in ("bleu", "chrf", "ter")], (
                    f"{path.name}: a metric branch"
                )


def test_significance_imports_no_metric():
    assert not [target for target in GRAPH["significance"] if target.startswith("metrics")]

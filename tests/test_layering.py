"""Import structure of the scope/provider/daemon layer: no cycles, leaves stay leaves."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "graphit_cli"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def _imports() -> dict[str, set[str]]:
    """Every graphit_cli module -> the graphit_cli modules it imports, at any depth of its code
    (a function-level import is a dependency too)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    target = full if full in modules else node.module
                    if target.startswith("graphit_cli"):
                        found.add(target)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("graphit_cli")}
        graph[name] = {t for t in found if t in modules and t != name}
    return graph


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(graph.get(current, ()))
    return seen


LAYER = [
    "graphit_cli.ids",
    "graphit_cli.statefile",
    "graphit_cli.credentials",
    "graphit_cli.scopes",
    "graphit_cli.runstate",
    "graphit_cli.wire",
    "graphit_cli.supervisor",
    "graphit_cli.daemon",
    "graphit_cli.providers",
    "graphit_cli.providers.model",
    "graphit_cli.providers.configfile",
    "graphit_cli.providers.aws",
    "graphit_cli.providers.broker",
    "graphit_cli.providers.identity",
    "graphit_cli.providers.locate",
]


@pytest.mark.parametrize("module", LAYER)
def test_no_import_cycle_through(module: str) -> None:
    graph = _imports()
    # A package's __init__ re-exporting its submodules is not a cycle: they never import it.
    assert module not in _reach(graph, module), f"{module} imports itself through a cycle"


@pytest.mark.parametrize(
    ("leaf", "allowed"),
    [
        ("graphit_cli.ids", {"graphit_cli.errors"}),
        ("graphit_cli.statefile", set()),
        ("graphit_cli.credentials", {"graphit_cli.errors"}),
        (
            "graphit_cli.scopes",
            {
                "graphit_cli.config",
                "graphit_cli.errors",
                "graphit_cli.ids",
                "graphit_cli.runstate",
                "graphit_cli.statefile",
            },
        ),
        ("graphit_cli.supervisor", {"graphit_cli.config", "graphit_cli.errors"}),
    ],
)
def test_leaves_stay_leaves(leaf: str, allowed: set[str]) -> None:
    assert _reach(_imports(), leaf) <= allowed


def test_modules_in_this_layer_stay_small() -> None:
    for name in LAYER:
        path = PACKAGE.parent / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = PACKAGE.parent / name.replace(".", "/") / "__init__.py"
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, name

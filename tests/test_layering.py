"""The architecture, enforced: packages by role, imports flowing one way, no cycles at any depth.

docs/architecture.md describes the shape these tests hold the tree to.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.smoke  # `make check`: cheap, and every change can break it

PACKAGE = Path(__file__).resolve().parent.parent / "graphit_cli"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


@functools.cache
def _imports() -> dict[str, set[str]]:
    """Every graphit_cli module -> the graphit_cli modules it imports, at any depth of its code
    (a function-level import is a dependency too, and so is one under TYPE_CHECKING)."""
    modules = _modules()
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


@functools.cache
def _third_party() -> dict[str, set[str]]:
    """Every graphit_cli module -> the top-level names of what else it imports."""
    graph: dict[str, set[str]] = {}
    for name, path in _modules().items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
        graph[name] = found - {"graphit_cli"}
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


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_anywhere_in_the_package() -> None:
    """Function-level imports included: a lazy import is still a dependency."""
    assert _cycles(_imports()) == []


# The packages (and root modules) bottom to top: each imports only what sits in a lower layer,
# function-level imports included; packages in one layer do not import each other.
# docs/architecture.md draws this order. A new package takes its place here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "threads", "__init__"),  # exit codes, one call on a thread, the version
    ("core",),  # the pure core
    ("environ",),  # the GRAPHIT_* variables' names, where the lock file is (standard library)
    ("config",),  # every GRAPHIT_* setting (it checks ids with core.ids)
    ("access", "formats", "embed", "anchors"),  # scopes, grants; formats; models; anchors
    ("store", "agents"),  # the table; agents' configuration files
    ("service",),  # the use-cases over one scope's store
    ("opening", "consolidate"),  # the composition of a scope's store and service; consolidation
    ("portability",),  # import, export, contexts, reads across scopes
    ("recall",),  # what the agent hooks put in front of a model
    ("warm",),  # the hot path: operations, the socket protocol, the thin client
    ("daemon",),  # the daemon and its warm path
    ("explorer", "mcp"),  # two adapters
    ("cli",),  # the command line
    ("__main__",),
)


def _package(module: str) -> str:
    """`graphit_cli.store.lance` -> `store`; a root module is its own: `graphit_cli.config`
    -> `config`; the package itself -> `__init__`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_package_has_its_place_in_the_order() -> None:
    listed = [name for layer in LAYERS for name in layer]
    assert len(listed) == len(set(listed))
    assert {_package(m) for m in _imports()} == set(listed)


def test_packages_import_only_what_sits_below_them() -> None:
    """No cycle between packages either: access <-> store or service <-> store through a lazy
    import would make the tree's order a fiction, whatever the module graph says."""
    layer = {name: i for i, names in enumerate(LAYERS) for name in names}
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in _imports().items()
        for target in targets
        if _package(module) != _package(target)
        and layer.get(_package(target), -1) >= layer.get(_package(module), -1)
    )
    assert upward == []


def test_the_tree_names_the_roles() -> None:
    """At most ten modules at the package root; everything else lives in a package by role."""
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 10, root
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert {"core", "service", "store", "daemon", "access", "formats", "cli"} <= packages


def _in(package: str) -> list[str]:
    return sorted(m for m in _imports() if m == package or m.startswith(package + "."))


@pytest.mark.parametrize("module", _in("graphit_cli.core"))
def test_the_core_is_pure(module: str) -> None:
    """The pure core imports only itself and errors: no settings, store, service or adapter."""
    allowed = {"graphit_cli.errors", "graphit_cli.core"}
    reached = {m for m in _reach(_imports(), module) if not m.startswith("graphit_cli.core.")}
    assert reached <= allowed
    heavy = {"lancedb", "lance", "pyarrow", "numpy", "typer", "rich", "starlette", "mcp"}
    assert not (_third_party()[module] & heavy)


ADAPTER_LIBS = {"typer", "rich", "click", "starlette", "uvicorn", "mcp", "pydantic"}
ADAPTERS = ("graphit_cli.cli", "graphit_cli.mcp", "graphit_cli.explorer")


@pytest.mark.parametrize(
    "module",
    [
        m
        for m in sorted(_imports())
        if not m.startswith(ADAPTERS) and m not in {"graphit_cli", "graphit_cli.__main__"}
    ],
)
def test_nothing_below_the_adapters_imports_an_adapter(module: str) -> None:
    """cli/, mcp/ and explorer/ are adapters over the service; nothing below them imports
    them, or Typer, Rich, Starlette or the MCP SDK."""
    assert not (_third_party()[module] & ADAPTER_LIBS)
    assert not {m for m in _imports()[module] if m.startswith(ADAPTERS)}


@pytest.mark.parametrize(
    "module", [m for m in sorted(_imports()) if not m.startswith("graphit_cli.store")]
)
def test_only_the_store_imports_lancedb(module: str) -> None:
    assert not (_third_party()[module] & {"lancedb", "lance", "pyarrow"})


@pytest.mark.parametrize(
    ("leaf", "allowed"),
    [
        ("graphit_cli.core.ids", {"graphit_cli.errors"}),
        ("graphit_cli.access.statefile", set()),
        ("graphit_cli.access.credentials", {"graphit_cli.errors"}),
        # config checks the id settings with the ids leaf (GRAPHIT_PROJECT_ID, GRAPHIT_SCOPE),
        # reads its yes/no settings as core/flags.py spells them and the names from environ
        (
            "graphit_cli.daemon.supervisor",
            {
                "graphit_cli.config",
                "graphit_cli.environ",
                "graphit_cli.errors",
                "graphit_cli.core.ids",
                "graphit_cli.core.flags",
            },
        ),
    ],
)
def test_leaves_stay_leaves(leaf: str, allowed: set[str]) -> None:
    assert _reach(_imports(), leaf) <= allowed


@pytest.mark.parametrize(
    "module",
    [
        m
        for m in sorted(_imports())
        if m.startswith(("graphit_cli.service", "graphit_cli.portability"))
    ],
)
def test_the_use_cases_know_nothing_of_the_warm_path(module: str) -> None:
    """Whether a warm process answers is the adapters' choice (cli/client.py): no use-case
    imports the daemon or the warm path, at any depth of its own code."""
    assert not {
        m for m in _imports()[module] if m.startswith(("graphit_cli.daemon", "graphit_cli.warm"))
    }


def test_the_wire_protocol_stays_cold() -> None:
    """The CLI's side of the warm path runs in a cold process: the pure core, the import
    report's dataclasses and the standard library only (no service, no store)."""
    reached = _reach(_imports(), "graphit_cli.warm.wire")
    assert {m for m in reached if not m.startswith("graphit_cli.core.")} <= {
        "graphit_cli.errors",
        "graphit_cli.config",
        "graphit_cli.environ",
        "graphit_cli.portability.model",
    }
    for module in reached | {"graphit_cli.warm.wire"}:
        assert not (_third_party()[module] & {"lancedb", "pyarrow", "numpy", "typer"})


MAX_LINES = 600
# A module may be long when it is one job; past this many lines it says so in its docstring.
LONG = 400


def test_one_reason_to_change_per_module() -> None:
    """No module past MAX_LINES; one past LONG says in its docstring why it is one job."""
    too_long: dict[str, int] = {}
    unexplained: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        name = path.relative_to(PACKAGE.parent).as_posix()
        if lines > MAX_LINES:
            too_long[name] = lines
        elif lines > LONG:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "one job" not in doc.casefold():
                unexplained.append(name)
    assert not too_long, f"over {MAX_LINES} lines, two jobs: {too_long}"
    assert not unexplained, f"over {LONG} lines without saying why it is one job: {unexplained}"


def test_the_architecture_page_draws_the_order() -> None:
    """docs/architecture.md's "The order" block lists the layers as LAYERS does, top first."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = page.split("## The order", 1)[1].split("```", 2)[1]
    drawn = [  # each line: the layer's names, then what they are (columns two spaces apart)
        tuple(name.removesuffix(".py") for name in re.split(r"\s{2,}", line.strip())[:-1])
        for line in block.strip("\n").splitlines()
    ]
    assert drawn == [tuple(layer) for layer in reversed(LAYERS)]


def test_one_name_one_thing() -> None:
    """No two classes in the package share a name: `Upkeep` in the service and in the store, or
    `Outcome` of a plan and of an import, made a reader open both to know which was meant."""
    where: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(_module_name(path))
    shared = {name: modules for name, modules in where.items() if len(modules) > 1}
    assert shared == {}

"""Shared fixtures: every test gets its own GRAPHIT_HOME and project on tmp_path, real LanceDB."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from tempfile import gettempdir

import pytest
import typer.core
import typer.main
from typer.testing import CliRunner

from graphit_cli.access.scopes import Scope

PROJECT_ID = "01JD0000000000000000000000"
ROOT = Path(__file__).resolve().parents[1]
# The shared material (data sets read in place, never copied): `../shared` from the project's
# root, wherever the checkout is.
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"

# Hypothesis examples per property: `make test` tries each property's default-tier count;
# CI's slow step (.ci/run) runs the `properties` again with TEST_EXAMPLES_SCALE=4.
EXAMPLES_SCALE = float(os.environ.get("TEST_EXAMPLES_SCALE", "1"))


def examples(default_tier: int) -> int:
    """`max_examples` for a property in the default tier, times TEST_EXAMPLES_SCALE."""
    return max(1, round(default_tier * EXAMPLES_SCALE))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every Hypothesis test `properties`. Under `pytest -n N --dist loadgroup` (`make
    test`), keep a module's tests on one worker when they share a module- or session-scoped
    fixture of that module: a moto server with process-wide IAM enforcement, one MCP server or
    browser for the module, a model loaded once. Every other test is scheduled on its own; each
    worker is a process with its own tmp dirs, so each test still gets its own GRAPHIT_HOME."""
    from hypothesis import is_hypothesis_test

    for item in items:
        if is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.properties)
        module = item.nodeid.split("::", 1)[0]
        defs = getattr(item, "_fixtureinfo", None)
        if defs is None:
            continue
        shared = any(
            d.scope in ("module", "package", "session") and d.baseid == module
            for fixturedefs in defs.name2fixturedefs.values()
            for d in fixturedefs
        )
        if shared and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(Path(module).stem))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data sets (`SHARED_DATA`, for a module that decides at import time)."""
    return SHARED_DATA


def _stray_locks(tmp_path: Path) -> set[Path]:
    """graphit.lock.json files above the test's tmp dir or at the checkout's root and above:
    one there makes every later test's 'outside a project' a project (CI saw /tmp's)."""
    return {
        folder / "graphit.lock.json"
        for folder in (*tmp_path.parents, ROOT, *ROOT.parents)
        if (folder / "graphit.lock.json").is_file()
    }


@pytest.fixture(autouse=True)
def graphit_home(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Isolate every test: its own ~/.graphit and no stray GRAPHIT_* settings; no project
    found above the test's tmp dirs (a graphit.lock.json another run left in /tmp is not this
    test's project: GRAPHIT_CEILING_DIRECTORIES); a test that leaves a graphit.lock.json
    outside its tmp dir fails (in teardown)."""
    for name in list(os.environ):
        if name.startswith("GRAPHIT_"):
            monkeypatch.delenv(name)
    home = tmp_path / "graphit-home"
    monkeypatch.setenv("GRAPHIT_HOME", str(home))
    monkeypatch.setenv("GRAPHIT_AUTHOR", "tester")
    ceilings = {str(tmp_path_factory.getbasetemp().resolve()), os.path.realpath(gettempdir())}
    monkeypatch.setenv("GRAPHIT_CEILING_DIRECTORIES", os.pathsep.join(sorted(ceilings)))
    before = _stray_locks(tmp_path)
    yield home
    left = _stray_locks(tmp_path) - before
    assert not left, f"this test left a project lock outside its tmp dir: {sorted(map(str, left))}"


@pytest.fixture
def project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory (with graphit.lock.json) that is also the working directory."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "graphit.lock.json").write_text(json.dumps({"project": {"id": PROJECT_ID}}))
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def scope(project_dir: Path) -> Scope:
    return Scope("project", PROJECT_ID)


@pytest.fixture
def service(scope: Scope):
    from graphit_cli.opening import open_service

    return open_service(scope)


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


@functools.cache
def command() -> typer.core.TyperGroup:
    """The app as a click command, built once: `CliRunner.invoke(app)` builds it again on every
    call (45 of the 73 ms an in-process command costs), and the app does not change."""
    from graphit_cli.cli.app import app

    return typer.main.get_command(app)


def run_cli(args: list[str], input: str | None = None) -> Result:
    """`graphit ARGS` in-process, as Typer's CliRunner runs it (its isolation: stdin, stdout
    and stderr kept apart), on the command built once; an exception that is not an exit
    propagates."""
    runner = CliRunner()
    with runner.isolation(input=input) as (out, err, _):
        try:
            command().main(args=args, prog_name="graphit")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            if exc.code is not None and not isinstance(exc.code, int):
                sys.stdout.write(f"{exc.code}\n")
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    return Result(code, _text(stdout, runner.charset), _text(stderr, runner.charset))


@pytest.fixture
def cli(project_dir: Path) -> Iterator:
    """Run `graphit ...` in-process (`run_cli`) in the project."""

    def run(*args: str, input: str | None = None) -> Result:
        return run_cli(list(args), input=input)

    yield run


def _text(data: bytes, charset: str) -> str:
    return data.decode(charset, "replace").replace("\r\n", "\n")


def run_graphit(*args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None):
    """Run the real `graphit` entry point in a subprocess (for start-up and multi-process tests)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "graphit_cli", *args],
        cwd=cwd,
        env=full_env,
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )

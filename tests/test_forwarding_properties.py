"""A forwarded command gets the answer it would get in-process, whatever its environment.

Two homes run the same commands in lockstep: home A has a daemon, home B has none. Each example
draws an environment (the provider: none set, `local`, S3 on a real moto server, S3 at an
endpoint that is down; the author; settings that change a result) and one command the daemon
carries (upsert, list, important, search, source, history, delete, recall, on the project, the
user or a context scope). The outcome in A (exit code, stdout, the target scope's rows) must be
the outcome in B; and a read the thin path (`cli/thin.py`, before Typer) answers in A must
have that outcome too. The daemon serves A's command only when it resolves the scope to the table,
grant and settings the command resolves it to; otherwise it declines and the command runs
in-process: a daemon on the local provider must not answer an S3 command, nor the other way.

One daemon per fixture (its provider is the parameter: local, or S3 on moto), one moto server
per module; the CLI runs in this process (Typer's runner), its environment swapped per command.
The default tier tries a few examples per daemon; the slow tier 100 per daemon (200 in all);
TEST_EXAMPLES_SCALE multiplies both.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import PROJECT_ID, examples, run_cli
from tests.polling import wait_for

pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")

from tests.s3_harness import TEST_KEY, MotoServer, refused_endpoint

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
EMBEDDER = "tests.embedders:HashingEmbedder"
IDS = ("01JD0000000000000000000AAA", "01JD0000000000000000000BBB", "01JD0000000000000000000CCC")
SIDES = ("a", "b")  # a: with the daemon; b: without


@dataclass
class World:
    root: Path
    project: Path
    moto: MotoServer
    down: str  # an S3 endpoint that refuses every connection
    daemon_provider: str

    def home(self, side: str) -> Path:
        return self.root / f"home-{side}"

    def env(self, side: str, drawn: dict[str, Any]) -> dict[str, str]:
        """The command's environment in home `side` (S3: a bucket of that side's own)."""
        env = {
            "GRAPHIT_HOME": str(self.home(side)),
            "GRAPHIT_EMBEDDER": EMBEDDER,
            "GRAPHIT_AUTHOR": drawn["author"],
        }
        for name in ("GRAPHIT_FOLD_THRESHOLD", "GRAPHIT_VERSION_RETENTION"):
            if drawn.get(name) is not None:
                env[name] = drawn[name]
        provider = drawn["provider"]
        if provider == "local":
            env["GRAPHIT_PROVIDER"] = "local"
        elif provider in ("s3", "s3-down"):
            env.update(
                GRAPHIT_PROVIDER="s3",
                GRAPHIT_S3_BUCKET=f"graphit-fw-{side}",
                GRAPHIT_S3_ENDPOINT=self.moto.endpoint if provider == "s3" else self.down,
                AWS_ACCESS_KEY_ID=TEST_KEY,
                AWS_SECRET_ACCESS_KEY=TEST_KEY,
            )
        return env


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """Exactly `env` for GRAPHIT_* and AWS_* in this process while the block runs."""
    saved = dict(os.environ)
    for name in list(os.environ):
        if name.startswith(("GRAPHIT_", "AWS_")):
            del os.environ[name]
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _start_daemon(world: World) -> subprocess.Popen[str]:
    drawn = {"provider": world.daemon_provider, "author": "daemon"}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHIT_", "AWS_"))}
    env.update(world.env("a", drawn))
    del env["GRAPHIT_AUTHOR"]  # a forwarded write carries the command's author
    # Both homes keep one physical history, so that what differs is only who answered: the
    # daemon's background passes would fold home A's new rows into the full-text index, or
    # rewrite their fragments with vectors, while home B's stay outside it; LanceDB scores
    # BM25 for rows outside the index from other statistics (one row's relative score
    # 0.65 -> 0.84 after a fold). So each pass runs once, at start: on the team context the
    # fixture already folded and embedded, and on the project and user scopes before they
    # have a table. The scopes are named: a daemon that follows scopes would start loops for
    # the project's table when an example creates it, and their first passes would run in
    # the middle of later examples (CI saw a search's order differ after ~60 examples).
    env["GRAPHIT_MAINTAIN_INTERVAL"] = "86400"
    env["GRAPHIT_EMBED_INTERVAL"] = "86400"
    env["PYTHONPATH"] = str(ROOT)
    named = ["--scope", "project", "--scope", "user", "--scope", "context:team"]
    return subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "daemon", *named],
        cwd=world.project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoServer]:
    server = MotoServer()
    s3 = server.client("s3")
    for side in SIDES:
        s3.create_bucket(Bucket=f"graphit-fw-{side}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module", params=["local", "s3"])
def world(
    request: pytest.FixtureRequest, moto: MotoServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    from graphit_cli.warm import wire

    root = tmp_path_factory.mktemp(f"forwarding-{request.param}")
    project = root / "project"
    project.mkdir()
    (project / "graphit.lock.json").write_text(json.dumps({"project": {"id": PROJECT_ID}}))
    handbook = root / "handbook"
    handbook.mkdir()
    shutil.copy(FIXTURES / "agents" / "CLAUDE.md", handbook / "AGENTS.md")
    with refused_endpoint() as down:
        found = World(root, project, moto, down, request.param)
        cwd = Path.cwd()
        os.chdir(project)
        try:
            for side in SIDES:  # the same context in both homes
                with environment(found.env(side, {"provider": "none", "author": "setup"})):
                    added = _run(["memory", "context", "add", "team", "--from", str(handbook)])
                    assert added[0] == 0, added
                    folded = _run(["memory", "maintain", "--force", "--scope", "context:team"])
                    assert folded[0] == 0, folded
        finally:
            os.chdir(cwd)
        proc = _start_daemon(found)
        socket_path = found.home("a") / "run" / "daemon.sock"
        try:
            wait_for(lambda: wire.exchange(socket_path, {"op": "ping"}, timeout=5) is not None)
            yield found
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _run(args: list[str]) -> tuple[int, str]:
    result = run_cli(args)
    return result.exit_code, result.stdout


# --- what is drawn ---------------------------------------------------------------------------

scope_args = st.sampled_from([[], ["--user"], ["--scope", "context:team"]])
ids = st.sampled_from(IDS)
words = st.sampled_from(["retry policy", "cache keys", "style guide", "database choice"])


@st.composite
def commands(draw: st.DrawFn) -> list[str]:
    kind = draw(
        st.sampled_from(
            [
                "upsert",
                "upsert",
                "list",
                "important",
                "search",
                "source",
                "history",
                "delete",
                "recall",
                "recall-all",
            ]
        )
    )
    scope = draw(scope_args)
    if kind == "upsert":
        flags = ["--important"] if draw(st.booleans()) else []
        title, body = draw(words), draw(words)
        return ["upsert", "--id", draw(ids), "--title", title, "--body", body, *flags, *scope]
    if kind == "list":
        return ["list", "-f", "json", *scope]
    if kind == "important":
        return ["important", "-f", "json", *scope]
    if kind == "search":
        return ["search", draw(words), "--mode", "fts", "-f", "json", *scope]
    if kind in ("source", "history"):
        return [kind, draw(ids), "-f", "json", *scope]
    if kind == "delete":
        return ["delete", draw(ids), "--yes", *scope]
    if kind == "recall":
        return ["recall", "-f", "json", *(scope or ["--scope", "project"])]
    return ["recall", "-f", "json"]  # across the project, the user scope and recall contexts


environments = st.fixed_dictionaries(
    {
        "provider": st.sampled_from(["none", "local", "s3", "s3", "s3-down"]),
        "author": st.sampled_from(["ann", "bob"]),
        # mostly the daemon's own settings, so that many commands are served, not declined
        "GRAPHIT_FOLD_THRESHOLD": st.sampled_from([None, None, None, None, "0", "7"]),
        "GRAPHIT_VERSION_RETENTION": st.sampled_from([None, None, None, None, "120"]),
    }
)


# --- the outcome ---------------------------------------------------------------------------

_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
_ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
ROW_FIELDS = (
    "id",
    "revision",
    "title",
    "body",
    "type",
    "tags",
    "important",
    "mandatory",
    "updated_by",
    "superseded",
    "content_hash",
)


def _normal(text: str, world: World, side: str) -> str:
    text = text.replace(str(world.home(side)), "<HOME>").replace(f"graphit-fw-{side}", "<BUCKET>")
    text = _TIME.sub("<TIME>", text)
    return _ULID.sub(lambda m: m.group(0) if m.group(0) in (*IDS, PROJECT_ID) else "<ULID>", text)


def _rows(args: list[str]) -> object:
    """The target scope's rows, every revision (read in-process, never creating a table)."""
    from graphit_cli.access.providers import resolve_scope
    from graphit_cli.errors import GraphitError
    from graphit_cli.opening import open_scope

    spec = "user" if "--user" in args else "context:team" if "context:team" in args else "project"
    try:
        opened = open_scope(resolve_scope(spec), create=False, record_use=False)
        rows = [] if opened is None else opened.store.export_rows(archived=True)
    except GraphitError as exc:
        return type(exc).__name__
    found = [
        json.dumps({k: getattr(r, k, None) for k in ROW_FIELDS}, sort_keys=True, default=str)
        for r in rows
    ]
    return sorted(found)


def _table_state(world: World, side: str, drawn: dict[str, Any], args: list[str]) -> object:
    """The target scope's table as stored (for a failure's message: a search's order
    depends on which rows the full-text index holds)."""
    from graphit_cli.access.providers import resolve_scope
    from graphit_cli.opening import open_scope

    spec = "user" if "--user" in args else "context:team" if "context:team" in args else "project"
    cwd = Path.cwd()
    os.chdir(world.project)
    with environment(world.env(side, drawn)), contextlib.ExitStack() as back:
        back.callback(os.chdir, cwd)
        try:
            opened = open_scope(resolve_scope(spec), create=False, record_use=False)
            return None if opened is None else opened.store.state()
        except Exception as exc:
            return repr(exc)


def _outcome(world: World, side: str, drawn: dict[str, Any], args: list[str]) -> object:
    with environment(world.env(side, drawn)):
        code, stdout = _run(["memory", *args])
        return code, _normal(stdout, world, side), _rows(args)


def _thin(world: World, drawn: dict[str, Any], args: list[str]) -> object | None:
    """A read on the thin path (`cli/thin.py`, what `graphit` runs before Typer) in home A;
    None when it leaves the command to the full path (which the outcomes above cover)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from graphit_cli.cli import thin as reads

    out = io.StringIO()
    with environment(world.env("a", drawn)), redirect_stdout(out), redirect_stderr(io.StringIO()):
        code = reads.main(["memory", *args])
    if code is None:
        return None
    with environment(world.env("a", drawn)):
        return code, _normal(out.getvalue(), world, "a"), _rows(args)


def _settle(world: World, drawn: dict[str, Any], args: list[str]) -> None:
    """Before a search, both homes' target tables folded and compacted alike. A full-text
    score depends on which rows the index holds (LanceDB scores rows outside it from other
    statistics), and the write paths fold on their own schedule (`fold_if_needed` looks at
    every 4th version): a search's order is the same only over the same physical table, which
    is not what this property is about."""
    scope = ["--user"] if "--user" in args else []
    if "context:team" in args:
        scope = ["--scope", "context:team"]
    for side in SIDES:
        with environment(world.env(side, drawn)):
            _run(["memory", "maintain", "--force", *scope])  # both fail alike when S3 is down


def _same_outcome(world: World, drawn: dict[str, Any], args: list[str]) -> None:
    from hypothesis import event

    mine = (
        drawn["provider"] in ("none", "local")
        if world.daemon_provider == "local"
        else (drawn["provider"] == "s3")
    )
    settled = drawn.get("GRAPHIT_FOLD_THRESHOLD") is None
    served = mine and settled and drawn.get("GRAPHIT_VERSION_RETENTION") is None
    event("the daemon's to serve" if served else "the daemon's to decline")
    cwd = Path.cwd()
    os.chdir(world.project)
    try:
        if args[0] == "search":
            _settle(world, drawn, args)
        thin = _thin(world, drawn, args)
        with_daemon = _outcome(world, "a", drawn, args)
        without = _outcome(world, "b", drawn, args)
    finally:
        os.chdir(cwd)
    assert with_daemon == without, (
        drawn,
        args,
        {side: _table_state(world, side, drawn, args) for side in SIDES},
    )
    event("thin path: answered" if thin is not None else "thin path: left to the command")
    if thin is not None:  # the thin path's answer is the command's, byte for byte
        assert thin == without, (drawn, args)


PROPERTY = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@settings(PROPERTY, max_examples=examples(4))  # 100 in the slow tier (below)
@given(drawn=environments, args=commands())
def test_a_forwarded_command_has_the_in_process_outcome(
    world: World, drawn: dict[str, Any], args: list[str]
) -> None:
    _same_outcome(world, drawn, args)


@pytest.mark.slow
@settings(PROPERTY, max_examples=examples(100))
@given(drawn=environments, args=commands())
def test_a_forwarded_command_has_the_in_process_outcome_at_length(
    world: World, drawn: dict[str, Any], args: list[str]
) -> None:
    _same_outcome(world, drawn, args)


def test_a_daemon_on_another_provider_does_not_answer(world: World) -> None:
    """The issue's case: a daemon on the local provider, a command on an S3 endpoint that is
    down. The daemon used to write the local table (exit 0); the command must exit 7 as it
    does without a daemon, and the daemon's local table must not change."""
    drawn = {"provider": "s3-down", "author": "ann"}
    args = ["upsert", "--title", "not here", "--body", "b"]
    cwd = Path.cwd()
    os.chdir(world.project)
    try:
        code, _stdout, rows = _outcome(world, "a", drawn, args)
        local = _outcome(world, "a", {"provider": "none", "author": "ann"}, ["list", "-f", "json"])
        remote = _outcome(world, "a", {"provider": "s3", "author": "ann"}, ["list", "-f", "json"])
    finally:
        os.chdir(cwd)
    assert (code, rows) == (7, "StorageUnavailable")
    assert "not here" not in local[1] and "not here" not in remote[1]

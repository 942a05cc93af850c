"""Fresh authorization in long-lived processes, and commit contention recognised exactly.

A Hub grant is confirmed before every read or write by default; a user may choose a window
(GRAPHIT_GRANT_CHECK_SECONDS), after which it is confirmed again: the test broker withdraws a
grant mid-session and the daemon's warm path, the Explorer's API and an MCP tool call refuse the
next operation after that interval. Real moto S3 (IAM enforced) and the test broker on
127.0.0.1; the daemon is a real subprocess.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.polling import wait_for

pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import AccessDenied, InvalidInput
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from tests.conftest import PROJECT_ID
from tests.s3_harness import Broker, enforced_moto

BUCKET = "graphit-grants"
TOKEN = "tok-erin"
REFUSED = "the broker refused access: no grant for the project root"
CHECK = 1.0  # GRAPHIT_GRANT_CHECK_SECONDS in these tests
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def hub_servers() -> Iterator[Broker]:
    moto, admin = enforced_moto(BUCKET)
    broker = Broker(moto, admin=admin, bucket=BUCKET, prefix="org", tokens={TOKEN: ("erin", ["*"])})
    try:
        yield broker
    finally:
        broker.stop()
        moto.stop()  # and IAM enforcement off: moto's setting is process-wide


@pytest.fixture
def broker(
    hub_servers: Broker, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Broker]:
    """The broker provider `hub` is active, erin is logged in, grants are re-checked after
    CHECK seconds; erin's grant is restored after the test."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    added = cli("provider", "add", "hub", "--kind", "broker", "--endpoint", hub_servers.endpoint)
    assert added.exit_code == 0, added.stderr
    monkeypatch.setenv("GRAPHIT_BROKER_TOKEN", TOKEN)
    monkeypatch.setenv("GRAPHIT_GRANT_CHECK_SECONDS", str(CHECK))
    tokens = dict(hub_servers.tokens)
    yield hub_servers
    hub_servers.tokens = tokens


def revoke(broker: Broker) -> None:
    broker.tokens = {**broker.tokens, TOKEN: ("erin", [])}


def restore(broker: Broker) -> None:
    broker.tokens = {**broker.tokens, TOKEN: ("erin", ["*"])}


def past_the_interval() -> None:
    """Let the grant-check interval pass: the next operation must ask the Hub again. (Longer
    waits on a busy machine only make that more certain; no verdict depends on speed.)"""
    time.sleep(CHECK + 0.2)


def seed(title: str) -> str:
    service = open_service(Scope("project", PROJECT_ID), embedder=lambda: None)
    return service.upsert(MemoryDraft(title=title, body="a remote memory")).memory.id


# --- the Explorer -------------------------------------------------------------------------


def test_explorer_refuses_a_revoked_grant_within_the_interval(
    broker: Broker, project_dir: Path
) -> None:
    from starlette.testclient import TestClient

    from graphit_cli.explorer.app import create_app

    seed("explorer note")
    auth = {"Authorization": "Bearer explorer-token-0123456789"}
    app = create_app(token="explorer-token-0123456789", cwd=project_dir)
    with TestClient(app, base_url="http://127.0.0.1:7420") as client:

        def titles() -> Any:
            return client.get("/api/memories", params={"scope": "project"}, headers=auth)

        first = titles()
        assert first.status_code == 200, first.text
        assert "explorer note" in first.text
        revoke(broker)
        past_the_interval()
        refused = titles()
        assert (refused.status_code, refused.json()) == (403, {"error": REFUSED})
        restore(broker)
        past_the_interval()
        assert titles().status_code == 200  # the same process recovers once granted again


# --- the MCP server -----------------------------------------------------------------------


def test_mcp_tool_call_refuses_a_revoked_grant_within_the_interval(
    broker: Broker, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.mcp.server import respond
    from graphit_cli.mcp.tools import MemoryTools

    seed("mcp note")
    tools = MemoryTools()

    def listing() -> Any:
        return respond(tools, "text", lambda: tools.catalogue(scope="project"))

    first = listing()
    assert not first.is_error and "mcp note" in first.content[0].text
    revoke(broker)
    past_the_interval()
    refused = listing()
    assert refused.is_error
    assert refused.content[0].text == f"Error: {REFUSED}"
    restore(broker)
    past_the_interval()
    assert not listing().is_error


def test_within_the_interval_the_hub_is_not_asked_again(
    broker: Broker, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAPHIT_GRANT_CHECK_SECONDS", "60")
    seed("quiet note")
    service = open_service(Scope("project", PROJECT_ID), embedder=lambda: None)
    issued = len(broker.issued)
    for _ in range(3):
        assert "quiet note" in [m.title for m in service.catalogue()]
    assert len(broker.issued) == issued  # one grant, confirmed at most once a minute


def test_by_default_every_operation_is_authorised_by_a_grant_confirmed_for_it(
    broker: Broker, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No window by default: a long-lived service asks the Hub before each operation, so a
    withdrawn grant refuses the very next one, with no wait."""
    monkeypatch.delenv("GRAPHIT_GRANT_CHECK_SECONDS")
    seed("every-time note")
    service = open_service(Scope("project", PROJECT_ID), embedder=lambda: None)
    issued = len(broker.issued)
    service.catalogue()  # the first operation runs on the grant just issued for it
    assert len(broker.issued) == issued
    for _ in range(3):
        asked = len(broker.issued)
        assert "every-time note" in [m.title for m in service.catalogue()]
        assert len(broker.issued) > asked  # confirmed for this operation
    revoke(broker)
    with pytest.raises(AccessDenied, match="no grant for the project root"):
        service.catalogue()
    restore(broker)
    assert "every-time note" in [m.title for m in service.catalogue()]


def test_the_interval_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphit_cli import config

    assert config.grant_check_seconds() == 0.0
    monkeypatch.setenv("GRAPHIT_GRANT_CHECK_SECONDS", "30")
    assert config.grant_check_seconds() == 30.0
    monkeypatch.setenv("GRAPHIT_GRANT_CHECK_SECONDS", "0")
    assert config.grant_check_seconds() == 0.0
    for bad in ("61", "-1", "soon", "nan"):
        monkeypatch.setenv("GRAPHIT_GRANT_CHECK_SECONDS", bad)
        with pytest.raises(InvalidInput, match="from 0 to 60"):
            config.grant_check_seconds()


def test_a_logout_is_refused_by_an_open_service(
    broker: Broker, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = open_service(Scope("project", PROJECT_ID), embedder=lambda: None)
    service.catalogue()
    monkeypatch.delenv("GRAPHIT_BROKER_TOKEN")  # the login is gone; the old grant is not used
    past_the_interval()
    with pytest.raises(AccessDenied, match="not logged in to broker provider 'hub'"):
        service.catalogue()


# --- the daemon's warm path ---------------------------------------------------------------


def test_daemon_warm_path_refuses_a_revoked_grant_within_the_interval(
    broker: Broker, project_dir: Path, graphit_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.warm import wire

    memory_id = seed("daemon note")
    env = {
        **os.environ,
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        "PYTHONPATH": str(ROOT),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "daemon", "--scope", "project"],
        cwd=project_dir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    socket_path = graphit_home / "run" / "daemon.sock"
    from graphit_cli.access.fingerprint import fingerprint

    monkeypatch.setenv("GRAPHIT_EMBEDDER", env["GRAPHIT_EMBEDDER"])  # as the daemon's
    request = {
        "op": "source",
        "scope": f"project:{PROJECT_ID}",
        "ref": memory_id,
        "fingerprint": fingerprint([Scope("project", PROJECT_ID)]),
    }
    try:
        wait_for(lambda: wire.exchange(socket_path, {"op": "ping"}, timeout=5) is not None)
        first = wire.call(socket_path, request)
        assert first is not None and first["ok"], first
        assert first["result"]["title"] == "daemon note"  # served warm by the daemon
        revoke(broker)
        past_the_interval()
        with pytest.raises(AccessDenied) as refused:  # the daemon's answer, re-raised here
            wire.call(socket_path, request)
        assert (type(refused.value), refused.value.message) == (AccessDenied, REFUSED)
        restore(broker)
        past_the_interval()
        again = wire.call(socket_path, request)
        assert again is not None and again["ok"], again
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=60)  # its exit, its stderr pipe closed
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


# --- commit contention --------------------------------------------------------------------


def _conflicts() -> list[BaseException]:
    """Two real lance commit conflicts, provoked on a real table: a handle that compacts (and
    one that optimizes) at a version a concurrent delete has moved past."""
    import tempfile
    from datetime import timedelta

    import lancedb
    import pyarrow as pa

    found: list[BaseException] = []
    with tempfile.TemporaryDirectory() as root:
        table = lancedb.connect(root).create_table("t", pa.table({"k": ["a"], "v": [0]}))
        for n in range(5):
            table.add(pa.table({"k": [f"k{n}"], "v": [n]}))
        stale = lancedb.connect(root, read_consistency_interval=None).open_table("t")
        dataset = stale.to_lance()
        table.delete("v >= 0")
        try:
            dataset.optimize.compact_files(target_rows_per_fragment=4096, num_threads=1)
        except Exception as exc:
            found.append(exc)
        for key in ("y", "z"):
            table.add(pa.table({"k": [key], "v": [9]}))
        stale.checkout_latest()
        table.delete("k = 'z'")
        try:
            stale.optimize(cleanup_older_than=timedelta(hours=1))
        except Exception as exc:
            found.append(exc)
    return found


def test_real_commit_conflicts_are_recognised_and_put_in_words() -> None:
    from graphit_cli.store.failures import is_commit_conflict, lance_words

    conflicts = _conflicts()
    assert [type(e) for e in conflicts] == [OSError, RuntimeError]
    for exc in conflicts:
        assert is_commit_conflict(exc)
        words = lance_words(exc)
        assert words.startswith("Retryable commit conflict for version ")
        assert ".rs:" not in words and "/" not in words


@pytest.mark.parametrize(
    "exc",
    [
        RuntimeError("lance error: IO error: upload failed, please retry the request later"),
        RuntimeError("too many concurrent requests to the object store: retry after 5 s"),
        ValueError("Retryable commit conflict for version 3: not from lance at all"),
    ],
)
def test_an_error_that_only_mentions_a_retry_is_not_contention(exc: BaseException) -> None:
    from graphit_cli.store.failures import is_commit_conflict

    assert not is_commit_conflict(exc)


def test_maintenance_retries_contention_but_not_an_error_mentioning_retry(
    scope: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.store.failures import contention_as_conflict

    service = open_service(scope)
    service.upsert(MemoryDraft(title="t", body="b"))
    real_optimize = service.store.optimize
    calls: list[int] = []
    conflict = _conflicts()[1]

    def contended() -> None:
        calls.append(1)
        if len(calls) < 3:  # lance's own conflict, through the store's recognition
            with contention_as_conflict():
                raise conflict
        real_optimize()

    monkeypatch.setattr(service.store, "optimize", contended)
    assert service.maintain(force=True).retries == 2 and len(calls) == 3

    def unrelated() -> None:
        calls.append(1)
        with contention_as_conflict():
            raise RuntimeError("lance error: IO error: disk full, retry later")

    calls.clear()
    monkeypatch.setattr(service.store, "optimize", unrelated)
    with pytest.raises(RuntimeError, match="disk full, retry later"):
        service.maintain(force=True)
    assert len(calls) == 1  # not retried


# --- the daemon follows a login and a logout -----------------------------------------------


def test_daemon_started_before_a_login_maintains_the_logged_in_user(
    broker: Broker, cli: Any, project_dir: Path, graphit_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphit_cli.daemon import process as daemon

    monkeypatch.delenv("GRAPHIT_BROKER_TOKEN")  # the login lives in providers.json only

    def user_service(user: str) -> MemoryService:
        return open_service(Scope("user", user), embedder=lambda: None)

    def unembedded(user: str, memory_id: str) -> bool:
        row = user_service(user).store.get(memory_id, vectors=True)
        assert row is not None
        return row.embedding is None

    def login(token: str | None) -> None:
        args = ["provider", "add", "hub", "--kind", "broker", "--endpoint", broker.endpoint]
        added = cli(*args, "--replace", *(["--token-stdin"] if token else []), input=token)
        assert added.exit_code == 0, added.stderr

    def daemon_user() -> str | None:
        reply = daemon.ping()
        return reply.get("user") if reply else None

    first = user_service("anonymous").upsert(MemoryDraft(title="a", body="anon")).memory.id
    env = {
        **os.environ,
        "GRAPHIT_EMBED_INTERVAL": "0.5",
        "GRAPHIT_MAINTAIN_INTERVAL": "0.5",
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        "PYTHONPATH": str(ROOT),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "daemon"],
        cwd=project_dir,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        wait_for(lambda: daemon_user() == "user:anonymous")
        wait_for(lambda: not unembedded("anonymous", first))
        login(TOKEN)
        monkeypatch.setenv("GRAPHIT_BROKER_TOKEN", TOKEN)  # this process writes erin's rows
        erin = user_service("erin").upsert(MemoryDraft(title="e", body="erin")).memory.id
        monkeypatch.delenv("GRAPHIT_BROKER_TOKEN")
        wait_for(lambda: daemon_user() == "user:erin")
        later = user_service("anonymous").upsert(MemoryDraft(title="b", body="anon 2")).memory.id
        monkeypatch.setenv("GRAPHIT_BROKER_TOKEN", TOKEN)
        newer = user_service("erin").upsert(MemoryDraft(title="f", body="erin 2")).memory.id
        wait_for(lambda: not unembedded("erin", erin) and not unembedded("erin", newer))
        monkeypatch.delenv("GRAPHIT_BROKER_TOKEN")
        # erin's row written after the anonymous one was embedded: anonymous is no longer
        # maintained (the user pair works on one user, the current one).
        assert unembedded("anonymous", later)
        login(None)  # a logout: back to the anonymous user
        wait_for(lambda: daemon_user() == "user:anonymous")
        wait_for(lambda: not unembedded("anonymous", later))
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

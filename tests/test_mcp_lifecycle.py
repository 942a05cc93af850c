"""The MCP server's process: its first answer, and a clean stop at any moment.

`graphit memory mcp` answers `initialize` before the MCP SDK is imported (mcp/stdio.py),
with the answer the SDK gives (checked here for every protocol version: the server
logs a warning when the two differ). It stops with exit 0 on SIGINT, SIGTERM or the end of its
stdin, right after start, during the warm-up (the real model loading) and during a backfill
(the real model embedding a table's rows), and never aborts on native code torn down under a
running thread. The clients are the MCP SDK's own (`Client` over a transport on a process the
test holds, so it can signal it and read its exit status). Waits are generous bounds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.mcp import handshake
from tests import mcp_wire
from tests.conftest import PROJECT_ID

REPO = Path(__file__).resolve().parent.parent
EXIT_BOUND = 120.0  # seconds: a hang bound for the stop, never a speed check
ABORTED = ("terminate called", "Aborted", "Fatal Python error", "Traceback")


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    return {
        **env,
        "GRAPHIT_HOME": str(home),
        "GRAPHIT_PROJECT_ID": PROJECT_ID,
        "GRAPHIT_AUTHOR": "agent",
        "GRAPHIT_NO_DAEMON": "1",
        "PYTHONFAULTHANDLER": "1",  # a hang's stacks (_stop)
        "PYTHONPATH": os.environ.get("PYTHONPATH") or str(REPO),  # the code under test
        **extra,
    }


SERVER = [sys.executable, "-m", "graphit_cli", "memory", "mcp"]


@asynccontextmanager
async def _transport(process: Process) -> AsyncIterator[Any]:
    """The SDK client's stdio transport, over a process the test holds."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)

    async def reader() -> None:
        buffer = ""
        async with read_writer:
            async for chunk in TextReceiveStream(stdout):
                lines = (buffer + chunk).split("\n")
                buffer = lines.pop()
                for line in lines:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        async with write_reader:
            async for item in write_reader:
                text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send((text + "\n").encode())

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        yield read_stream, write_stream
        tg.cancel_scope.cancel()


async def _stop(process: Process, how: str) -> tuple[int, str]:
    """Stop the server `how` (SIGINT, SIGTERM, or closing its stdin): (exit code, stderr)."""
    assert process.stdin is not None and process.stderr is not None
    if how == "close":
        await process.stdin.aclose()
    elif how == "SIGINT-thread":  # taken by another thread than the main one (Linux: by tid)
        tids = sorted(int(t) for t in os.listdir(f"/proc/{process.pid}/task"))
        os.kill(next(t for t in tids if t != process.pid), signal.SIGINT)
    else:
        process.send_signal(getattr(signal, how))
    with anyio.move_on_after(EXIT_BOUND) as bound:
        code = await process.wait()
        stderr = (await process.stderr.receive(1 << 20)).decode(errors="replace") if code else ""
    if bound.cancelled_caught:  # a hang: every thread's stack (faulthandler, on SIGABRT)
        process.send_signal(signal.SIGABRT)
        with anyio.move_on_after(30):
            await process.wait()
        stacks = (await process.stderr.receive(1 << 20)).decode(errors="replace")
        raise AssertionError(f"no exit {EXIT_BOUND:.0f} s after {how}:\n{stacks[-6000:]}")
    return code, stderr


async def _session(
    home: Path, cwd: Path, how: str, after: Callable[[Any], Any], **env: str
) -> tuple[int, str]:
    """Start the server, connect the SDK client, await `after(client)`, stop it `how`."""
    from mcp import Client

    async with await anyio.open_process(
        SERVER, env=_env(home, **env), cwd=cwd, stderr=subprocess.PIPE
    ) as process:
        try:
            async with Client(_transport(process), read_timeout_seconds=EXIT_BOUND) as client:
                await after(client)
                return await _stop(process, how)
        finally:
            if process.returncode is None:
                process.kill()


def _check(code: int, stderr: str) -> None:
    assert code == 0, stderr[-3000:]
    assert not any(marker in stderr for marker in ABORTED), stderr[-3000:]


async def _nothing(client: Any) -> None:
    return None


async def _tools_listed(client: Any) -> None:
    # The SDK is imported and the warm-up (the real model loading) has just started.
    assert len((await client.list_tools()).tools) == 15


@pytest.mark.parametrize(
    "how",
    [
        "SIGINT",
        pytest.param("SIGTERM", marks=pytest.mark.slow),  # the handler SIGINT takes
        "close",
        pytest.param(
            "SIGINT-thread",
            marks=pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux only"),
        ),
    ],
)
def test_stops_with_exit_0_right_after_initialize(tmp_path: Path, how: str) -> None:
    code, stderr = anyio.run(_session, tmp_path / "home", tmp_path, how, _nothing)
    _check(code, stderr)


def test_exits_0_when_stdin_closes_at_start(tmp_path: Path) -> None:
    done = subprocess.run(
        SERVER,
        env=_env(tmp_path / "home"),
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=EXIT_BOUND,
    )
    _check(done.returncode, done.stderr)


@pytest.mark.slow  # the real model loads in the server
@pytest.mark.parametrize("how", ["SIGINT", "close"])
def test_stops_with_exit_0_during_the_warm_up(tmp_path: Path, how: str) -> None:
    code, stderr = anyio.run(_session, tmp_path / "home", tmp_path, how, _tools_listed)
    _check(code, stderr)


def _seed(home: Path, rows: int) -> Scope:
    """`rows` memories without vectors in the project scope (as a cold CLI writes them)."""
    from graphit_cli.opening import open_service

    scope = Scope("project", PROJECT_ID)
    service = open_service(scope)
    service.upsert_many(
        [MemoryDraft(title=f"Memory {i}", body=f"Body {i} about deploys.") for i in range(rows)]
    )
    assert service.store.missing_vectors() == rows
    return scope


def _missing(scope: Scope) -> int:
    from graphit_cli.opening import open_service

    return open_service(scope).store.missing_vectors()


@pytest.mark.slow  # the real model embeds in the server
@pytest.mark.parametrize("how", ["SIGINT", "close"])
def test_stops_with_exit_0_during_a_backfill(tmp_path: Path, graphit_home: Path, how: str) -> None:
    rows = 400
    scope = _seed(graphit_home, rows)

    async def mid_backfill(client: Any) -> None:
        deadline = time.monotonic() + 600
        while _missing(scope) == rows:  # the first step's vectors are written
            assert time.monotonic() < deadline, "the backfill never started"
            await anyio.sleep(0.2)

    code, stderr = anyio.run(_session, graphit_home, tmp_path, how, mid_backfill)
    _check(code, stderr)
    assert 0 <= _missing(scope) < rows


# --- the early `initialize` answer ------------------------------------------------------------


def test_the_handshake_versions_are_the_sdks() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    assert handshake.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


# A server process per version (each imports the MCP SDK): the default tier checks the newest
# version and an unknown one, the slow tier every other version.
_NEWEST = handshake.HANDSHAKE_VERSIONS[-1]
_OLDER = [v for v in handshake.HANDSHAKE_VERSIONS if v != _NEWEST]


@pytest.mark.parametrize(
    "versions",
    [
        pytest.param([_NEWEST, "2099-01-01"], id="newest-and-unknown"),
        pytest.param(_OLDER, id="older", marks=pytest.mark.slow),
    ],
)
def test_initialize_is_answered_as_the_sdk_answers_it(tmp_path: Path, versions: list[str]) -> None:
    """For each protocol version (and an unknown one): the early answer, then the SDK's own
    (the server compares them and logs a warning on a difference), then a tools/list. The
    handshake is the subject: the servers load no model."""
    servers = [
        subprocess.Popen(
            SERVER,
            env=_env(tmp_path / "home", GRAPHIT_EMBEDDER="tests.embedders:no_model"),
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in versions
    ]
    try:
        for process, version in zip(servers, versions, strict=True):
            assert process.stdin is not None and process.stdout is not None
            initialize = {
                "jsonrpc": "2.0",
                "id": "first",
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            }
            process.stdin.write(json.dumps(initialize) + "\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            expected = version if version in handshake.HANDSHAKE_VERSIONS else "2025-11-25"
            assert answer["id"] == "first"
            assert answer["result"]["protocolVersion"] == expected
            assert answer["result"]["serverInfo"]["name"] == "graphit-memory"
            process.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            process.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
            process.stdin.flush()
        for process in servers:
            assert process.stdout is not None
            listed = json.loads(process.stdout.readline())  # the SDK's first line: no 2nd answer
            assert listed["id"] == 2 and len(listed["result"]["tools"]) == 15, listed
            _, stderr = process.communicate(timeout=EXIT_BOUND)
            _check(process.returncode, stderr)
            assert "otherwise" not in stderr, stderr
    finally:
        for process in servers:
            if process.poll() is None:
                process.kill()


def test_a_request_sent_before_stdin_closes_is_answered(tmp_path: Path) -> None:
    """The client writes an insert and closes stdin at once (reading on): the server answers
    the insert before it stops (the SDK alone drops the answer of a call still running)."""
    requests = [*mcp_wire.opening(), mcp_wire.insert(2, "Sent last", "Then stdin closed.")]
    done = subprocess.run(
        SERVER,
        input="".join(json.dumps(r) + "\n" for r in requests),
        env=_env(tmp_path / "home"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=EXIT_BOUND,
    )
    _check(done.returncode, done.stderr)
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2], done.stdout
    inserted = answers[2]["result"]
    assert not inserted["isError"] and inserted["structuredContent"]["action"] == "created"


def test_a_request_the_sdk_cannot_read_is_answered_in_words(tmp_path: Path) -> None:
    """A lone surrogate escape (no Unicode text) in an insert: the SDK cannot parse the line and
    would leave it unanswered, so the client and the drain at the end of input would wait for
    it. It is answered at once with an error in words, the next request still works, and the
    server exits once its input closes."""
    requests = [
        *mcp_wire.opening(),
        mcp_wire.insert(2, "Lone \ud800 surrogate", "a body \udc00 here"),
        mcp_wire.insert(3, "After it", "Still answered."),
    ]
    done = subprocess.run(
        SERVER,
        input="".join(json.dumps(r) + "\n" for r in requests),  # `\ud800` escaped, as sent
        env=_env(tmp_path / "home", GRAPHIT_EMBEDDER="tests.embedders:no_model"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=EXIT_BOUND,
    )
    _check(done.returncode, done.stderr)
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3], done.stdout
    error = answers[2]["error"]
    assert error["code"] == -32600 and "surrogate" in error["message"], error
    assert "Traceback" not in error["message"] and "pydantic" not in error["message"]
    assert answers[3]["result"]["structuredContent"]["action"] == "created", answers[3]

"""Delivery: shown means printed, every hook call logged with its outcome, the mandatory
memories at every session start, compaction, an unreadable event. Real processes, real signals,
real LanceDB tables (the hook as the clients run it: its own process, the event on stdin).

Timing here is a budget the product enforces (asserted with the hook's own figure, `ms` in the
recalls log, and a wide margin on the wall clock) or a bound against a hang.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access import runstate
from graphit_cli.access.scopes import Scope
from graphit_cli.recall import log, session
from graphit_cli.service import mandatory
from tests.conftest import PROJECT_ID
from tests.polling import wait_for
from tests.test_hot_path import (
    PROMPT,
    Process,
    _daemon,
    processes,
    same_settings,
)
from tests.test_hot_path import _write_command as _write
from tests.test_hot_path import hook as _run_hook

__all__ = ["processes", "same_settings"]  # the fixtures, shared with the hot path's tests
PROJECT = f"project:{PROJECT_ID}"
MANDATORY = ("Deploys go through staging", "Never push to main", "Tag every release")


@pytest.fixture
def memories(project_dir: Path) -> Path:
    """A memory a prompt finds and the mandatory ones, written in this process (with the warm
    processes' embedder, `same_settings`): what the hooks deliver is the subject here; a write
    in its own process is `test_the_block_follows_every_write_that_changes_a_mandatory_memory`."""
    from graphit_cli.access.scopes import Scope
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID))
    service.upsert(
        MemoryDraft(
            title="The CI pip cache lives in the ci-cache bucket", body="Clear it on new wheels."
        )
    )
    for title in MANDATORY:
        service.upsert(MemoryDraft(title=title, body="Always.", mandatory=True))
    return project_dir


def hook(*args: Any, **extra: str) -> Any:
    """The hook as a client runs it, once its one log entry is written (by a child of the
    hook's process, after the process printed and exited: the client does not wait for it)."""
    before = len(log.read())
    done, seconds = _run_hook(*args, **extra)
    wait_for(lambda: len(log.read()) > before, timeout=60, seen=lambda: (done, log.read()[-3:]))
    return done, seconds


def _calls(event: str = "prompt") -> list[dict[str, object]]:
    return [e for e in log.read() if e.get("event") == event]


def _shown(sid: str) -> dict[str, int]:
    state = session.load("claude-code", sid)
    return {} if state is None else state.shown


def _pip_cache_id(project_dir: Path) -> str:
    [found] = [
        m for m in _catalogue(project_dir) if m["title"].startswith("The CI pip cache lives")
    ]
    return str(found["id"])


def _catalogue(project_dir: Path) -> list[dict[str, object]]:
    import subprocess
    import sys

    from tests.test_hot_path import env

    done = subprocess.run(
        [sys.executable, "-m", "graphit_cli", "memory", "list", "--format", "json"],
        cwd=project_dir,
        env=env(GRAPHIT_NO_DAEMON="1"),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- shown means printed --------------------------------------------------------------------


def test_a_warm_process_answers_and_records_nothing_the_hook_records_what_it_printed(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    _daemon(memories, tmp_path, processes)
    wanted = _pip_cache_id(memories)
    before = len(log.read())
    from graphit_cli.warm import client

    fields = {
        "op": "hook",
        "event": "prompt",
        "client": "claude-code",
        "prompt": PROMPT["prompt"],
        "session_id": "asked-only",
        "root": str(memories),
        "project": PROJECT,
        "user_level": False,
    }
    found = client.ask(fields, time.monotonic() + 60)
    assert found is not None and "ci-cache bucket" in found["text"]
    assert [wanted, 1] in found["shown"] and found["entry"]["event"] == "prompt"
    # Nobody printed it: nothing marked, nothing logged.
    assert _shown("asked-only") == {} and len(log.read()) == before

    done, _ = hook(memories, given={**PROMPT, "session_id": "s1"}, GRAPHIT_HOOK_BUDGET="60")
    assert done.returncode == 0 and "ci-cache bucket" in done.stdout, done.stderr
    assert _shown("s1") == {wanted: 1}
    [call] = _calls()[-1:]
    assert (call["outcome"], call["via"], call["session"]) == ("shown", "daemon", "s1")
    assert [i["id"] for i in list(call["injected"])] == [wanted]
    again, _ = hook(memories, given={**PROMPT, "session_id": "s1"}, GRAPHIT_HOOK_BUDGET="60")
    assert again.stdout == "" and _calls()[-1]["outcome"] == "nothing"


def test_an_answer_past_the_budget_is_logged_late_never_marked_and_shown_next_time(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    daemon = _daemon(memories, tmp_path, processes)
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    wanted = _pip_cache_id(memories)
    # 0.15 s from the spawn: the frozen daemon's share and a cold answer (~0.3 s on a quiet
    # machine) both miss it. A call late before it read the event knows no session (a start
    # slowed by load): the test asks again, in a new session, until one was late knowing it.
    for attempt in range(10):
        given = {**PROMPT, "session_id": f"late-{attempt}"}
        done, seconds = hook(memories, given=given, GRAPHIT_HOOK_BUDGET="0.15")
        assert (done.returncode, done.stdout) == (0, "") and seconds < 10
        call = _calls()[-1]
        assert call["outcome"] == "late", call
        if call["session"] == given["session_id"]:
            break
    assert call["session"] == given["session_id"], _calls()
    assert isinstance(call["ms"], int) and call["ms"] >= 150
    assert call["waiting"]  # what it waited for, in words
    assert wanted not in _shown(given["session_id"])
    # The next prompt of the session shows it (the frozen daemon is not asked again).
    later, _ = hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")
    assert "ci-cache bucket" in later.stdout, later.stderr
    assert _calls()[-1]["outcome"] == "shown" and wanted in _shown(given["session_id"])


def test_a_warm_process_that_does_not_answer_costs_the_prompt_nothing(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    """An agent session's server that is there but does not answer (starting, busy; here
    stopped): the hook searches in its own process too, and answers long before the warm
    share of its budget would have run out."""
    server = Process(["memory", "mcp"], memories, tmp_path / "mcp.log")
    processes.append(server)
    sockets = runstate.run_dir() / "s"
    wait_for(lambda: any(sockets.glob("*.sock")), seen=lambda: server.log_path.read_text())
    os.kill(server.proc.pid, signal.SIGSTOP)
    done, _ = hook(memories, given={**PROMPT, "session_id": "busy"}, GRAPHIT_HOOK_BUDGET="20")
    assert done.returncode == 0 and "ci-cache bucket" in done.stdout, done.stderr
    [call] = _calls()
    assert call["outcome"] == "shown" and call["via"] == "in-process"
    assert call["ms"] < 10_000  # the warm share alone would have been 17 s


def test_two_cold_answers_past_the_budget_start_a_warm_process(
    memories: Path, tmp_path: Path
) -> None:
    # A budget no cold answer meets (0.15 s from the spawn: a quiet machine answers in ~0.3 s);
    # a call late before it found the project (a start slowed by load) does not count, so the
    # test asks until one started.
    for _ in range(30):
        done, _ = hook(memories, GRAPHIT_HOOK_BUDGET="0.15")
        assert (done.returncode, done.stdout) == (0, "")
        if "started" in _calls()[-1]:
            break
    *before, second = _calls()
    assert [c["outcome"] for c in [*before, second]] == ["late"] * (len(before) + 1)
    assert before and not any("started" in c for c in before)
    assert "graphit memory daemon" in str(second["started"])
    assert "graphit memory daemon" in done.stderr  # said once, where the client shows it
    daemon = runstate.socket_path()
    pid = int(str(second["started"]).split("(pid ")[1].split(")")[0])
    try:
        wait_for(daemon.exists)
        wait_for(lambda: _answered_by_the_daemon(memories))  # it may still open the table
    finally:
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not daemon.exists())
    from graphit_cli.cli.agents import recall_health

    said = recall_health()
    late = len(before) + 1  # every call the loop made
    assert said is not None and said.startswith(f"Recall: {late} of the last "), said
    assert "got nothing in time" in said and "graphit memory daemon" in said


def _answered_by_the_daemon(project_dir: Path) -> bool:
    done, _ = hook(project_dir, GRAPHIT_HOOK_BUDGET="60")
    return "ci-cache bucket" in done.stdout and _calls()[-1].get("via") == "daemon"


# --- an event the hook cannot read -----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "cause"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "the event's JSON nests too deeply to read"),
        (b'{"prompt": "caf\xe9 \xff"}', "the event on stdin is not UTF-8 text"),
    ],
    ids=["deep-json", "not-utf8"],
)
@pytest.mark.parametrize("event", ["prompt", "session-start"])
def test_an_unreadable_event_fails_open_and_says_why_in_words(
    memories: Path, raw: bytes, cause: str, event: str
) -> None:
    import subprocess
    import sys

    from tests.test_hot_path import env

    done = subprocess.run(
        [sys.executable, "-m", "graphit_cli", "agent", "hook", event],
        cwd=memories,
        env=env(),
        input=raw,
        capture_output=True,
        timeout=180,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [call] = _calls(event)
    assert (call["outcome"], call["cause"]) == ("failed", cause)
    capture = subprocess.run(
        [sys.executable, "-m", "graphit_cli", "agent", "hook", "capture", "--event", "Stop"],
        cwd=memories,
        env=env(),
        input=raw,
        capture_output=True,
        timeout=180,
    )
    assert (capture.returncode, capture.stdout, capture.stderr) == (0, b"", b"")


# --- the mandatory memories at every session start --------------------------------------------


def _session_start(project_dir: Path, sid: str, **extra: str) -> tuple[str, dict[str, object]]:
    done, seconds = hook(project_dir, "session-start", {"session_id": sid}, **extra)
    assert done.returncode == 0, done.stderr
    [call] = [c for c in _calls("session-start") if c["session"] == sid]
    return done.stdout, {**call, "seconds": seconds}


@pytest.mark.parametrize(
    "runs", [3, pytest.param(10, marks=pytest.mark.slow)], ids=["3-starts", "10-starts"]
)
@pytest.mark.parametrize("daemon_state", ["frozen", "absent", "starting"])
def test_session_start_prints_every_mandatory_memory_at_once_whatever_the_daemon(
    memories: Path, tmp_path: Path, processes: list[Process], daemon_state: str, runs: int
) -> None:
    if daemon_state == "frozen":
        os.kill(_daemon(memories, tmp_path, processes).proc.pid, signal.SIGSTOP)
    elif daemon_state == "starting":
        processes.append(
            Process(["memory", "daemon", "--scope", "project"], memories, tmp_path / "d.log")
        )
    for run in range(runs):
        # A budget no load reaches: what is under test is where the answer comes from.
        text, call = _session_start(memories, f"{daemon_state}-{run}", GRAPHIT_HOOK_BUDGET="10")
        assert all(f"## {title}" in text for title in MANDATORY), (run, text)
        assert call["outcome"] == "shown", call
        if daemon_state == "starting":  # the daemon once it answers, else the block
            assert call["via"] == "daemon" or str(call["via"]).startswith("kept block"), call
        else:
            assert call["via"] == "kept block", call
        # No table opened: a fraction of the session start's budget (1.8 s) on an idle
        # machine (benchmarks/prompt_hook.py measures it); here a bound against a hang.
        assert call["ms"] < 10_000, call
        assert call["seconds"] < 10  # the process, on a loaded machine: a bound, not a speed


def test_a_stale_block_is_printed_when_the_table_does_not_answer_in_time(
    memories: Path, tmp_path: Path, processes: list[Process]
) -> None:
    block = mandatory.load(PROJECT)
    assert block is not None and mandatory.fresh(block)
    os.kill(_daemon(memories, tmp_path, processes).proc.pid, signal.SIGSTOP)
    path = Path(mandatory.block_path(PROJECT))
    data = json.loads(path.read_text())
    data["version"] -= 1  # another writer committed since: the block may be stale
    path.write_text(json.dumps(data))
    text, call = _session_start(memories, "stale")
    assert all(f"## {title}" in text for title in MANDATORY), text
    # The table in this process answers within KEPT_SECONDS on a quiet machine (then its
    # answer is current), else the block is printed as it is: the memories either way.
    assert call["via"] in ("kept block (the table did not answer in time)", "in-process"), call
    assert call["ms"] < 1800, call  # KEPT_SECONDS, then the block: within the budget


def test_a_stale_block_is_printed_when_the_table_fails(memories: Path) -> None:
    """A damaged table (its data files gone) and a block kept at an older version: the session
    start prints the block, says why in the log and exits 0 (it printed nothing, exit 1)."""
    path = Path(mandatory.block_path(PROJECT))
    data = json.loads(path.read_text())
    data["version"] -= 1
    path.write_text(json.dumps(data))
    table = Scope("project", PROJECT_ID).local_path() / "memory.lance"
    for file in (table / "data").iterdir():
        file.unlink()
    text, call = _session_start(memories, "damaged")
    assert all(f"## {title}" in text for title in MANDATORY), text
    assert call["outcome"] == "shown", call
    # Why, as it came: the table's failure, or (a loaded machine) its silence past KEPT_SECONDS.
    assert str(call["via"]).startswith(
        ("kept block (the table failed: ", "kept block (the table did not answer in time)")
    ), call


def test_the_block_follows_every_write_that_changes_a_mandatory_memory(memories: Path) -> None:
    text, _ = _session_start(memories, "before")
    assert "## Tag every release" in text
    [tag] = [m for m in _catalogue(memories) if m["title"] == "Tag every release"]
    _write(
        memories,
        "Tag every release",
        "Always, with the version.",
        "--id",
        str(tag["id"]),
        "--mandatory",
    )
    _write(memories, "An unrelated note", "Nothing mandatory.")
    block = mandatory.load(PROJECT)
    assert block is not None and mandatory.fresh(block)
    text, call = _session_start(memories, "after")
    assert call["via"] == "kept block" and "Always, with the version." in text
    # Without a block the table is read (and the block written again).
    Path(mandatory.block_path(PROJECT)).unlink()
    text, call = _session_start(
        memories, "rebuilt", GRAPHIT_NO_DAEMON="1", GRAPHIT_HOOK_BUDGET="60"
    )
    assert call["via"] == "in-process" and "## Never push to main" in text
    assert mandatory.load(PROJECT) is not None


# --- compaction ----------------------------------------------------------------------------


def test_after_a_compaction_what_was_shown_is_shown_again(memories: Path) -> None:
    given = {**PROMPT, "session_id": "long"}
    first, _ = hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")
    assert "ci-cache bucket" in first.stdout
    assert hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")[0].stdout == ""  # once
    compact = {"session_id": "long", "source": "compact"}
    start, _ = hook(memories, "session-start", compact, GRAPHIT_HOOK_BUDGET="60")
    assert "## Deploys go through staging" in start.stdout  # the mandatory ones, again
    again, _ = hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")
    assert "ci-cache bucket" in again.stdout
    # A resumed session keeps what it was shown.
    hook(memories, "session-start", {"session_id": "long", "source": "resume"})
    assert hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")[0].stdout == ""


def test_a_manual_gemini_compression_starts_the_shown_set_again(cli, memories: Path) -> None:
    given = {**PROMPT, "session_id": "gem"}
    assert "ci-cache" in hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")[0].stdout
    auto = {"session_id": "gem", "trigger": "auto"}
    args = ("agent", "hook", "capture", "--event", "PreCompress", "--for", "gemini")
    assert cli(*args, input=json.dumps(auto)).stdout == ""  # fired before every turn
    assert hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")[0].stdout == ""
    manual = {"session_id": "gem", "trigger": "manual"}
    assert cli(*args, input=json.dumps(manual)).exit_code == 0
    assert "ci-cache" in hook(memories, given=given, GRAPHIT_HOOK_BUDGET="60")[0].stdout


# --- a busy machine -----------------------------------------------------------------------


@pytest.mark.slow
def test_with_both_cores_busy_every_prompt_is_printed_or_logged_late_and_only_printed_is_shown(
    memories: Path,
) -> None:
    """Two `yes > /dev/null` loops (every core of a 2-core machine) and no warm process: each
    matching prompt either prints its memory, which is then marked shown, or prints nothing
    and is logged late, the memory not marked. No third outcome, no silent prompt."""
    import subprocess

    wanted = _pip_cache_id(memories)
    busy = [
        subprocess.Popen(["sh", "-c", "yes > /dev/null"], start_new_session=True) for _ in range(2)
    ]
    try:
        for run in range(10):
            sid = f"busy-{run}"
            done, _ = hook(memories, given={**PROMPT, "session_id": sid}, GRAPHIT_NO_DAEMON="1")
            assert done.returncode == 0, done.stderr
            # Late before it read the event (a start slowed past the budget): no session known.
            [call] = [c for c in _calls() if c["session"] == sid] or _calls()[-1:]
            if "ci-cache bucket" in done.stdout:
                assert call["outcome"] == "shown" and _shown(sid) == {wanted: 1}, call
            else:
                assert done.stdout == "" and call["outcome"] == "late", call
                assert _shown(sid) == {}, call
    finally:
        for process in busy:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)

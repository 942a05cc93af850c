"""The hook's budget runs from its spawn, as the clients' timeouts do, and a hook its client ends
first is logged: on a loaded machine a slow start spent the budget, and Claude Code's SIGTERM at
its timeout left a prompt with no log entry at all (every miss leaves its cause).

Real processes and signals; the verdicts read the hook's own figures in the recalls log."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from graphit_cli.recall import log
from tests.polling import wait_for
from tests.test_hot_path import PROMPT, env


def _prompts() -> list[dict[str, object]]:
    return [e for e in log.read() if e.get("event") == "prompt"]


def _catches_sigterm(pid: int) -> bool:
    """Whether the process installed its SIGTERM handler (Linux: SigCgt in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def test_a_hook_its_client_ends_with_sigterm_is_logged_late_and_prints_nothing(
    project_dir: Path,
) -> None:
    hook = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "agent", "hook", "prompt"],
        cwd=project_dir,
        env=env(GRAPHIT_HOOK_BUDGET="120", GRAPHIT_NO_DAEMON="1"),
        stdin=subprocess.PIPE,  # held open: the hook is still reading its event
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: _catches_sigterm(hook.pid) or hook.poll() is not None, timeout=120)
        hook.send_signal(signal.SIGTERM)  # what Claude Code sends at the hook's timeout
        out, err = hook.communicate(timeout=60)
    finally:
        hook.kill()
    assert hook.returncode == 0 and out == b"", err  # fail open: nothing printed
    wait_for(lambda: bool(_prompts()), timeout=60, seen=log.read)  # a process it started
    [entry] = _prompts()
    assert entry["outcome"] == "late" and entry["ended_by"] == "the client's timeout", entry
    assert entry["waiting"] == "reading the event", entry


def test_a_slow_start_spends_the_budget_and_the_call_is_logged_before_the_client_gives_up(
    project_dir: Path,
) -> None:
    """The process sleeps 1.5 s before Python starts (`exec` keeps the spawn time), with a 1 s
    budget: the watchdog logs the call at once, its `ms` counted from the spawn."""
    command = f"sleep 1.5; exec {sys.executable} -m graphit_cli agent hook prompt"
    entry = _late(["sh", "-c", command], project_dir, "1", "slow-start")
    assert int(str(entry["ms"])) >= 1400, entry  # from the spawn, not from Python's start


def _late(argv: list[str], project_dir: Path, budget: str, sid: str) -> dict[str, object]:
    """The hook run by `argv` with `budget`: it prints nothing, exits 0, and its one entry in
    the recalls log (written by a process it started) says late."""
    done = subprocess.run(
        argv,
        cwd=project_dir,
        env=env(GRAPHIT_HOOK_BUDGET=budget, GRAPHIT_NO_DAEMON="1"),
        input=json.dumps({**PROMPT, "session_id": sid}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout == "", done.stderr  # the budget ran out
    wait_for(lambda: bool(_prompts()), timeout=60, seen=log.read)
    [entry] = _prompts()
    assert entry["outcome"] == "late", entry
    return entry


# A process whose search thread is inside an import when the answer is printed: the recording
# must not need that thread (a forked child waited on its lock until its bound ended it).
_HELD_IMPORT = """
import importlib.abc, importlib.util, sys, threading, time

held = threading.Event()


class Held(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name == "graphit_cli.recall.session" and threading.current_thread().name == "search":
            return importlib.util.spec_from_loader(name, self)
        return None

    def exec_module(self, module):
        held.set()
        time.sleep(600)  # inside the import, holding the module's lock


sys.meta_path.insert(0, Held())
threading.Thread(target=lambda: __import__("graphit_cli.recall.session"), name="search",
                 daemon=True).start()
held.wait(60)
from graphit_cli.warm.recording import detached

entry = {"event": "prompt", "client": "claude-code", "session": "held-import", "prompt": "p"}
found = {"text": "x", "shown": [["01ABC", 1]], "via": "the daemon"}
sys.exit(0 if detached(found, entry, "shown", {"ms": 42}) else 3)
"""


def test_the_call_is_recorded_though_a_thread_of_the_hook_held_an_import(project_dir: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _HELD_IMPORT], cwd=project_dir, env=env(), timeout=120
    )
    assert done.returncode == 0  # a recording process took it, and the hook did not wait
    wait_for(lambda: bool(_prompts()), timeout=60, seen=log.read)
    [entry] = _prompts()
    assert entry["outcome"] == "shown" and entry["ms"] == 42, entry
    assert entry["via"] == "the daemon" and entry["session"] == "held-import", entry


# A hook whose watchdog ran out the budget while the search went on: the watchdog's record
# takes 3 s (a loaded machine), and the search answers meanwhile.
_SLOW_WATCHDOG = """
import sys, time

from graphit_cli.warm import hook

on_time = hook.Call.late


def slowly(call, by=None):
    time.sleep(3)  # the watchdog's imports and write, on a loaded machine
    on_time(call, by)


hook.Call.late = slowly
sys.exit(hook.main(["agent", "hook", "prompt"]))
"""


def test_a_call_the_watchdog_took_is_logged_late_though_the_search_answered_meanwhile(
    project_dir: Path,
) -> None:
    """The search's answer comes after the budget and before the watchdog wrote its entry:
    the process must not end (and with it the watchdog's thread) before the entry is out."""
    entry = _late([sys.executable, "-c", _SLOW_WATCHDOG], project_dir, "0.05", "slow-watchdog")
    assert entry["session"] == "slow-watchdog", entry  # the event was read meanwhile

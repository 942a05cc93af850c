"""What an entry graphit writes into a client's files runs: the MCP server's command and
environment, and each hook's shell command and timeout.

Project-level entries are the team's: they run `graphit` from PATH and name nothing of this
machine (no absolute path, no GRAPHIT_HOME), so a teammate who clones the project and has
graphit installed gets a working server and hooks. User-level entries are this user's own: they
pin the absolute path of the graphit in use, and GRAPHIT_HOME when it is set.

A hook entry never makes anyone wait or blocks a prompt: it carries an explicit timeout (the
clients' defaults are 60 s for Gemini CLI and 600 s for Claude Code), and its command exits 0
when graphit is not installed (a teammate who cloned the project without it: Gemini CLI reads
the shell's 127 as "deny this prompt") and turns any other failure into exit 1 (Claude Code
reads 2 as "block", Gemini CLI anything but 0 and 1 as "deny"; an older graphit without a
subcommand exits 2). The command is POSIX sh: Claude Code runs it with `/bin/sh -c` (Node's
`shell: true`), Gemini CLI with `bash -c`, on Linux and macOS.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from graphit_cli import environ
from graphit_cli.agents.registry import PROJECT, USER, AgentClient
from graphit_cli.core.events import PROMPT_EVENT, SESSION_START

PORTABLE_COMMAND = "graphit"  # what a project-level (committed) entry runs: found on PATH
# Seconds the client lets a hook run before killing it: above the product's own budgets (1 s
# for a prompt, 2 s for session start), so a slow start on a busy machine still answers, and
# far below the clients' defaults. Claude Code reads `timeout` in seconds, Gemini CLI in ms.
HOOK_SECONDS = {"session-start": 5, "prompt": 3, "capture": 3}
TIMEOUT_UNIT = {"claude-code": 1, "gemini": 1000}


# --- what the entry runs ---------------------------------------------------------------------


def graphit_command() -> list[str]:
    """The absolute path of the graphit executable in use: the script this process runs as,
    else the one beside this interpreter (its virtualenv), else the one on PATH, else
    `python -m graphit_cli` with this interpreter."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name.startswith("graphit") and argv0.suffix != ".py":
        found = shutil.which(str(argv0))
        if found:
            return [os.path.abspath(found)]
    beside = Path(sys.executable).parent / "graphit"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [os.path.abspath(beside)]
    on_path = shutil.which("graphit")
    if on_path:
        return [os.path.abspath(on_path)]
    return [os.path.abspath(sys.executable), "-m", "graphit_cli"]


def server_env(level: str, root: Path) -> dict[str, str]:
    """What the server needs beyond its working directory: for a project-level entry the
    project's id (a client may start the server elsewhere; the id is the team's, in the
    committed graphit.lock.json); for a user-level one GRAPHIT_HOME when it is set."""
    env: dict[str, str] = {}
    if level == USER:
        home = os.environ.get(environ.ENV_HOME, "").strip()
        if home:
            env[environ.ENV_HOME] = os.path.abspath(os.path.expanduser(home))
        return env
    from graphit_cli.access.scopes import read_project_id

    lock = root / environ.PROJECT_LOCK_FILE
    if lock.is_file():
        env[environ.ENV_PROJECT_ID] = read_project_id(lock)
    return env


def command_for(level: str) -> list[str]:
    """`graphit` from PATH for a file the team commits; this graphit's own path for a user's."""
    return [PORTABLE_COMMAND] if level == PROJECT else graphit_command()


def server_entry(c: AgentClient, level: str, root: Path) -> dict[str, Any]:
    command, *prefix = command_for(level)
    entry: dict[str, Any] = {"type": "stdio"} if c.typed else {}
    entry |= {"command": command, "args": [*prefix, "memory", "mcp"]}
    env = server_env(level, root)
    if env:
        entry["env"] = env
    return entry


def _hook_kind(event: str, name: str) -> str:
    if event == SESSION_START:
        return "session-start"
    return "prompt" if event == PROMPT_EVENT.get(name) else "capture"


def hook_command(event: str, level: str, name: str = "claude-code") -> str:
    """The shell command of a hook: `graphit agent hook session-start|prompt|capture` (with
    `--for gemini`, the JSON Gemini CLI reads), behind a guard that exits 0 when that graphit
    is missing, and with any failure turned into exit 1 (never a block). At user level it pins
    this graphit and GRAPHIT_HOME, and says `--user` so it stays silent in a project that has
    the same hook of its own."""
    kind = _hook_kind(event, name)
    argv = [*command_for(level), "agent", "hook", kind]
    if kind == "capture":
        argv += ["--event", event]
    if name != "claude-code":
        argv += ["--for", name]
    program = shlex.quote(argv[0])
    if level == PROJECT:
        guard = f"command -v {program} >/dev/null 2>&1 || exit 0"
        run = shlex.join(argv)
    else:
        guard = f"[ -x {program} ] || exit 0"
        env = [f"{k}={shlex.quote(v)}" for k, v in server_env(USER, Path(".")).items()]
        run = " ".join([*env, shlex.join([*argv, "--user"])])
    return f"{guard}; {run} || exit 1"


def hook_entry(event: str, level: str, name: str = "claude-code") -> dict[str, Any]:
    """The hook as the settings file holds it: the command and the client's timeout."""
    seconds = HOOK_SECONDS[_hook_kind(event, name)]
    return {
        "type": "command",
        "command": hook_command(event, level, name),
        "timeout": seconds * TIMEOUT_UNIT[name],
    }


def instructions_text() -> str:
    from graphit_cli.formats import guidance

    return guidance.markdown("mcp")

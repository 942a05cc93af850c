"""The MCP clients graphit installs into: where each keeps its servers, its hooks and its
instructions, at project and at user level, and what the user does once before it runs a
project's server. One job: the table of clients (agents/clients.py plans what install writes
into their files; agents/entries.py, the entries it writes)."""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphit_cli import config
from graphit_cli.core import events
from graphit_cli.errors import InvalidInput

SERVER_NAME = "graphit"
PROJECT, USER = "project", "user"
# The clients with hooks, and the name each gives the event before a prompt is answered (Gemini
# CLI's BeforeAgent gets the prompt and adds `hookSpecificOutput.additionalContext` to the turn).
# The events at which context is about to be lost (read in Claude Code 2.1.197's and Gemini
# CLI 0.61's source, run with the real clients): Claude Code PreCompact (stdout instructs the
# summariser), Stop (`additionalContext` reaches the model: one more turn, once a session),
# SessionEnd (silent: nobody reads it); Gemini CLI PreCompress and SessionEnd (a
# `systemMessage` the user sees; PreCompress fires before every turn with trigger "auto",
# compression or not, so the hook speaks at a manual /compress only: recall/capture.py).
CAPTURE_EVENTS: dict[str, tuple[str, ...]] = {
    "claude-code": (events.PRE_COMPACT, events.STOP, events.SESSION_END),
    "gemini": (events.PRE_COMPRESS, events.SESSION_END),
}

# --- the clients -----------------------------------------------------------------------------


def _home() -> Path:
    return Path.home()


def _codex_home() -> Path:
    raw = os.environ.get("CODEX_HOME", "").strip()
    return Path(raw).expanduser() if raw else _home() / ".codex"


def _vscode_user() -> Path:
    """VS Code's user-profile mcp.json (the default profile), per platform."""
    system = platform.system()
    if system == "Darwin":
        base = _home() / "Library" / "Application Support"
    elif system == "Windows":
        base = Path(os.environ.get("APPDATA") or _home() / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or _home() / ".config")
    return base / "Code" / "User" / "mcp.json"


@dataclass(frozen=True)
class AgentClient:
    name: str
    label: str
    key: str  # the object (JSON) or table (TOML) that holds the servers
    project_file: str | None  # relative to the project root
    user_file: Callable[[], Path] | None
    project_instructions: str | None
    user_instructions: Callable[[], Path] | None
    typed: bool = False  # the entry says "type": "stdio"
    toml: bool = False
    default_level: str = PROJECT
    first_run: str = ""  # what the user does once before the client uses a project server

    def levels(self) -> tuple[str, ...]:
        found = (PROJECT,) if self.project_file else ()
        return found + ((USER,) if self.user_file else ())

    def config_path(self, level: str, root: Path) -> Path:
        if level == PROJECT and self.project_file:
            return root / self.project_file
        if level == USER and self.user_file:
            return self.user_file()
        where = "--user" if level == PROJECT else "--project"
        raise InvalidInput(
            f"{self.name} has no {level}-level MCP configuration: use {where} "
            f"(or leave it out: {self.default_level} is the default for {self.name})"
        )

    def instructions_path(self, level: str, root: Path) -> Path | None:
        if level == PROJECT:
            return root / self.project_instructions if self.project_instructions else None
        return self.user_instructions() if self.user_instructions else None


CLIENTS: dict[str, AgentClient] = {
    c.name: c
    for c in (
        AgentClient(
            "claude-code",
            "Claude Code",
            "mcpServers",
            ".mcp.json",
            lambda: _home() / ".claude.json",
            "CLAUDE.md",
            lambda: _home() / ".claude" / "CLAUDE.md",
            typed=True,
            first_run=(
                "start `claude` in the project and approve the graphit server when asked "
                "(project servers wait for approval; `claude mcp get graphit` shows it)"
            ),
        ),
        AgentClient(
            "cursor",
            "Cursor",
            "mcpServers",
            ".cursor/mcp.json",
            lambda: _home() / ".cursor" / "mcp.json",
            "AGENTS.md",
            None,
            first_run="enable graphit in Cursor's MCP settings when Cursor offers it",
        ),
        AgentClient(
            "vscode",
            "VS Code",
            "servers",
            ".vscode/mcp.json",
            _vscode_user,
            "AGENTS.md",
            None,
            typed=True,
            first_run=(
                "trust the graphit server when VS Code asks (or start it from `MCP: List Servers`)"
            ),
        ),
        AgentClient(
            "codex",
            "Codex",
            "mcp_servers",
            ".codex/config.toml",
            lambda: _codex_home() / "config.toml",
            "AGENTS.md",
            lambda: _codex_home() / "AGENTS.md",
            toml=True,
            first_run=(
                "trust the project when `codex` asks (Codex reads .codex/config.toml only in "
                "a trusted project; `codex mcp list` shows graphit once it is)"
            ),
        ),
        AgentClient(
            "gemini",
            "Gemini CLI",
            "mcpServers",
            ".gemini/settings.json",
            lambda: _home() / ".gemini" / "settings.json",
            "GEMINI.md",
            lambda: _home() / ".gemini" / "GEMINI.md",
            first_run=(
                "trust this folder when `gemini` asks (or `/permissions`): Gemini CLI starts "
                "no MCP server in an untrusted folder"
            ),
        ),
    )
}


def client(name: str) -> AgentClient:
    found = CLIENTS.get(name.strip().lower())
    if found is None:
        raise InvalidInput(f"unknown client {name!r}: use one of {', '.join(CLIENTS)}")
    return found


def project_root(cwd: Path | None = None) -> Path:
    """The directory holding graphit.lock.json (walking up), else the working directory."""
    here = (cwd or Path.cwd()).resolve()
    lock = config.find_project_lock(here)
    return lock.parent if lock is not None else here

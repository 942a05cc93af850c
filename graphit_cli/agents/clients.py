"""Where each MCP client keeps its servers, hooks and instructions, and what install writes.

An install is planned as a list of `Change`s (path, text before, text after): the MCP server
entry, for Claude Code a SessionStart hook running `graphit memory recall`, and the recall and
capture guidance as a marked block in the client's instructions file. `--dry-run` shows the
changes as a diff; otherwise they are written. Planning reads files and refuses a malformed
one before anything is written, so a refused install leaves every file as it was.
"""

from __future__ import annotations

import difflib
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphit_cli import config
from graphit_cli.agents import files
from graphit_cli.errors import InvalidInput

SERVER_NAME = "graphit"
PROJECT, USER = "project", "user"


# --- the clients -----------------------------------------------------------------------------


def _home() -> Path:
    return Path.home()


def _codex_home() -> Path:
    raw = os.environ.get("CODEX_HOME", "").strip()
    return Path(raw).expanduser() if raw else _home() / ".codex"


@dataclass(frozen=True)
class Client:
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


CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client(
            "claude-code",
            "Claude Code",
            "mcpServers",
            ".mcp.json",
            lambda: _home() / ".claude.json",
            "CLAUDE.md",
            lambda: _home() / ".claude" / "CLAUDE.md",
            typed=True,
        ),
        Client(
            "cursor",
            "Cursor",
            "mcpServers",
            ".cursor/mcp.json",
            lambda: _home() / ".cursor" / "mcp.json",
            "AGENTS.md",
            None,
        ),
        Client(
            "vscode", "VS Code", "servers", ".vscode/mcp.json", None, "AGENTS.md", None, typed=True
        ),
        Client(
            "codex",
            "Codex",
            "mcp_servers",
            None,
            lambda: _codex_home() / "config.toml",
            None,
            lambda: _codex_home() / "AGENTS.md",
            toml=True,
            default_level=USER,
        ),
        Client(
            "gemini",
            "Gemini CLI",
            "mcpServers",
            ".gemini/settings.json",
            lambda: _home() / ".gemini" / "settings.json",
            "GEMINI.md",
            lambda: _home() / ".gemini" / "GEMINI.md",
        ),
    )
}


def client(name: str) -> Client:
    found = CLIENTS.get(name.strip().lower())
    if found is None:
        raise InvalidInput(f"unknown client {name!r}: use one of {', '.join(CLIENTS)}")
    return found


def project_root(cwd: Path | None = None) -> Path:
    """The directory holding graphit.lock.json (walking up), else the working directory."""
    from graphit_cli.access.scopes import find_project_lock

    here = (cwd or Path.cwd()).resolve()
    lock = find_project_lock(here)
    return lock.parent if lock is not None else here


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
    """What the server needs beyond its working directory: GRAPHIT_HOME when it is set, and
    for a project-level entry the project's id (a client may start the server elsewhere)."""
    env: dict[str, str] = {}
    home = os.environ.get(config.ENV_HOME, "").strip()
    if home:
        env[config.ENV_HOME] = os.path.abspath(os.path.expanduser(home))
    if level == PROJECT:
        from graphit_cli.access.scopes import read_project_id

        lock = root / config.PROJECT_LOCK_FILE
        if lock.is_file():
            env[config.ENV_PROJECT_ID] = read_project_id(lock)
    return env


def server_entry(c: Client, level: str, root: Path) -> dict[str, Any]:
    command, *prefix = graphit_command()
    entry: dict[str, Any] = {"type": "stdio"} if c.typed else {}
    entry |= {"command": command, "args": [*prefix, "memory", "mcp"]}
    env = server_env(level, root)
    if env:
        entry["env"] = env
    return entry


def recall_command(level: str, root: Path) -> str:
    """The shell command of the SessionStart hook: the recall protocol, as Markdown."""
    env = [f"{k}={shlex.quote(v)}" for k, v in server_env(level, root).items()]
    argv = [*graphit_command(), "memory", "recall", "--format", "markdown"]
    return " ".join([*env, shlex.join(argv)])


def _is_our_hook(hook: Any) -> bool:
    command = hook.get("command", "") if isinstance(hook, dict) else ""
    return isinstance(command, str) and "graphit" in command and " memory recall" in command


def instructions_text() -> str:
    from graphit_cli.formats import guidance

    return guidance.markdown("mcp")


# --- changes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    path: Path
    before: str | None
    after: str | None  # None: the file is deleted
    what: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        a = str(self.path) if self.before is not None else "/dev/null"
        b = str(self.path) if self.after is not None else "/dev/null"
        lines = difflib.unified_diff(old, new, a, b)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def apply(self) -> None:
        if not self.changed:
            return
        if self.after is None:
            self.path.unlink(missing_ok=True)
            parent = self.path.parent
            if parent.name.startswith(".") and not any(parent.iterdir()):
                parent.rmdir()  # a .cursor/ or .claude/ made for this file alone
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.graphit-tmp")
        temporary.write_text(self.after, encoding="utf-8")
        if self.path.exists():
            os.chmod(temporary, self.path.stat().st_mode & 0o7777)
        os.replace(temporary, self.path)  # atomic: a reader sees the old file or the new one


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}; nothing was changed") from None


def _server_change(c: Client, path: Path, entry: dict[str, Any] | None) -> Change:
    before = _read(path)
    if c.toml:
        if entry is None:
            after = files.drop_toml_entry(path, before, c.key, SERVER_NAME)
        else:
            after = files.set_toml_entry(path, before, c.key, SERVER_NAME, entry)
    elif entry is None:
        after = files.edit_json(path, before, lambda d: files.drop_entry(d, c.key, SERVER_NAME))
    else:
        after = files.edit_json(
            path, before, lambda d: files.set_entry(d, c.key, SERVER_NAME, entry, path)
        )
    return Change(path, before, after, "MCP server")


def _hook_change(path: Path, command: str | None) -> Change:
    """Claude Code's settings.json with our SessionStart hook set (or, for None, removed)."""
    before = _read(path)

    def edit(data: dict[str, Any]) -> bool:
        hooks = files.section(data, "hooks", path) if command or "hooks" in data else {}
        groups = hooks.get("SessionStart", [])
        if not isinstance(groups, list):
            raise InvalidInput(f"{path}: hooks.SessionStart is not a list; nothing was changed")
        ours = [
            h for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if _is_our_hook(h)
        ]
        if command is not None and [h.get("command") for h in ours] == [command]:
            return False
        if command is None and not ours:
            return False
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                rest = [h for h in group["hooks"] if not _is_our_hook(h)]
                if not rest and len(rest) != len(group["hooks"]):
                    continue  # a group that held only our hook goes with it
                group = {**group, "hooks": rest}
            kept.append(group)
        if command is not None:
            kept.append({"hooks": [{"type": "command", "command": command}]})
        if kept:
            hooks["SessionStart"] = kept
        else:
            hooks.pop("SessionStart", None)
            if not hooks:
                data.pop("hooks", None)
        return True

    return Change(path, before, files.edit_json(path, before, edit), "SessionStart hook")


def _hook_path(level: str, root: Path) -> Path:
    return (root if level == PROJECT else _home()) / ".claude" / "settings.json"


def _level(c: Client, level: str | None) -> str:
    chosen = level or c.default_level
    c.config_path(chosen, Path("."))  # refuses a level the client does not have
    return chosen


def plan_install(name: str, level: str | None = None, cwd: Path | None = None) -> list[Change]:
    c = client(name)
    level = _level(c, level)
    root = project_root(cwd)
    changes = [_server_change(c, c.config_path(level, root), server_entry(c, level, root))]
    if c.name == "claude-code":
        changes.append(_hook_change(_hook_path(level, root), recall_command(level, root)))
    guide = c.instructions_path(level, root)
    if guide is not None:
        before = _read(guide)
        changes.append(
            Change(guide, before, files.set_block(before, instructions_text()), "instructions")
        )
    return changes


def plan_uninstall(name: str, level: str | None = None, cwd: Path | None = None) -> list[Change]:
    c = client(name)
    level = _level(c, level)
    root = project_root(cwd)
    changes = [_server_change(c, c.config_path(level, root), None)]
    if c.name == "claude-code":
        changes.append(_hook_change(_hook_path(level, root), None))
    guide = c.instructions_path(level, root)
    if guide is not None:
        sharing = [
            other.name
            for other in CLIENTS.values()
            if other is not c
            and level in other.levels()
            and other.instructions_path(level, root) == guide
            and _installed(other, level, root)
        ]
        before = _read(guide)
        # Another client still configured here reads the same block: it stays for that one.
        after = before if sharing else files.drop_block(before)
        changes.append(Change(guide, before, after, "instructions"))
    return changes


def _installed(c: Client, level: str, root: Path) -> bool:
    return _entry_at(c, c.config_path(level, root)) is not None


def _entry_at(c: Client, path: Path) -> dict[str, Any] | None:
    text = _read(path)
    if c.toml:
        return files.toml_entry(path, text, c.key, SERVER_NAME)
    servers = files.load_json(path, text).get(c.key)
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None

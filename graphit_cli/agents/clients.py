"""Where each MCP client keeps its servers, hooks and instructions, and what install writes.

An install is planned as a list of `Change`s (path, text before, text after): the MCP server
entry; for Claude Code and Gemini CLI a SessionStart hook (the mandatory memories) and a prompt
hook (the memories each prompt is about); for Claude Code capture hooks (a request to save what
was learned, at the moments context is lost); and the recall and capture guidance as a marked
block in the client's instructions file. `--dry-run` shows the changes as a diff; otherwise they
are written. Planning reads files and refuses a malformed one before anything is written, so a
refused install leaves every file as it was.

Project-level files are the team's and user-level files this user's own; what their entries
run (and why a hook never blocks a prompt) is agents/entries.py's, where each client keeps
them agents/registry.py's.

One job: planning what install, uninstall and status touch for each client (its files, its
entry, its hooks, what install says after writing); the text edits are files.py's and jsonc.py's.
"""

from __future__ import annotations

import difflib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphit_cli import config, environ
from graphit_cli.agents import files
from graphit_cli.agents.entries import PORTABLE_COMMAND, hook_entry, instructions_text, server_entry
from graphit_cli.agents.registry import (
    CAPTURE_EVENTS,
    CLIENTS,
    PROJECT,
    SERVER_NAME,
    AgentClient,
    client,
    project_root,
)
from graphit_cli.core.events import PROMPT_EVENT, SESSION_START
from graphit_cli.errors import InvalidInput


def is_our_hook(hook: Any) -> bool:
    """graphit's hook, as this version writes it or as earlier ones did (no guard, no timeout,
    or `graphit memory recall`): install replaces it and uninstall takes it out."""
    command = hook.get("command", "") if isinstance(hook, dict) else ""
    return (
        isinstance(command, str)
        and "graphit" in command
        and (" agent hook " in command or " memory recall" in command)
    )


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


def _server_change(c: AgentClient, path: Path, entry: dict[str, Any] | None) -> Change:
    before = _read(path)
    if c.toml:
        if entry is None:
            after = files.drop_toml_entry(path, before, c.key, SERVER_NAME)
        else:
            after = files.set_toml_entry(path, before, c.key, SERVER_NAME, entry)
    elif entry is None:
        after = files.drop_json_entry(path, before, [c.key, SERVER_NAME])
    else:
        after = files.set_json_entry(path, before, [c.key, SERVER_NAME], entry)
    return Change(path, before, after, "MCP server")


def _hook_change(
    path: Path, wanted: dict[str, dict[str, Any] | None], before: str | None = None
) -> Change:
    """The settings file with graphit's hook for each event of `wanted` set to its entry
    (None: taken out). Other hooks, settings and the file's layout stay as written."""
    original = _read(path)
    text = original if before is None else before
    for event, entry in wanted.items():
        text = _one_hook(path, text, event, entry)
    return Change(path, original, text, "hooks")


def _one_hook(path: Path, text: str | None, event: str, entry: dict[str, Any] | None) -> str | None:
    data = files.load_json(path, text)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidInput(f"{path}: 'hooks' is not a JSON object; nothing was changed")
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise InvalidInput(f"{path}: hooks.{event} is not a list; nothing was changed")
    ours = [
        (gi, hi, h)
        for gi, g in enumerate(groups)
        if isinstance(g, dict) and isinstance(g.get("hooks"), list)
        for hi, h in enumerate(g["hooks"])
        if is_our_hook(h)
    ]
    if entry is not None and [h for _, _, h in ours] == [entry]:
        return text
    if entry is None and not ours:
        return text
    for gi in sorted({gi for gi, _, _ in ours}, reverse=True):  # the indexes before stay valid
        assert text is not None
        inner = groups[gi]["hooks"]
        if all(is_our_hook(h) for h in inner):
            text = files.drop_json_path(path, text, ["hooks", event, gi])
            continue
        for hi in sorted((h for g, h, _ in ours if g == gi), reverse=True):
            text = files.drop_json_path(path, text, ["hooks", event, gi, "hooks", hi])
    if entry is not None:
        text = files.add_json_item(path, text, ["hooks", event], {"hooks": [entry]})
    return text


def _hook_path(c: AgentClient, level: str, root: Path) -> Path:
    if c.name == "gemini":  # the hooks sit beside the servers, in settings.json
        return c.config_path(level, root)
    return (root if level == PROJECT else Path.home()) / ".claude" / "settings.json"


def _hooks_wanted(
    c: AgentClient, level: str, prompt_recall: bool, capture: bool = True
) -> dict[str, dict[str, Any] | None]:
    prompt = PROMPT_EVENT[c.name]
    wanted = {
        SESSION_START: hook_entry(SESSION_START, level, c.name),
        prompt: hook_entry(prompt, level, c.name) if prompt_recall else None,
    }
    for event in CAPTURE_EVENTS.get(c.name, ()):
        wanted[event] = hook_entry(event, level, c.name) if capture else None
    return wanted


def hook_events(name: str) -> tuple[str, ...]:
    """Every event graphit may put a hook on for client `name` (none for a client without)."""
    if name not in PROMPT_EVENT:
        return ()
    return (SESSION_START, PROMPT_EVENT[name], *CAPTURE_EVENTS.get(name, ()))


def _with_hooks(changes: list[Change], hooks: Change) -> list[Change]:
    """`changes` and the hooks' change, merged into the server's when they share a file."""
    for i, change in enumerate(changes):
        if change.path == hooks.path:
            changes[i] = Change(change.path, change.before, hooks.after, "MCP server and hooks")
            return changes
    return [*changes, hooks]


def _level(c: AgentClient, level: str | None) -> str:
    chosen = level or c.default_level
    c.config_path(chosen, Path("."))  # refuses a level the client does not have
    return chosen


def plan_install(
    name: str,
    level: str | None = None,
    cwd: Path | None = None,
    *,
    prompt_recall: bool = True,
    capture: bool = True,
) -> list[Change]:
    c = client(name)
    level = _level(c, level)
    root = project_root(cwd)
    changes = [_server_change(c, c.config_path(level, root), server_entry(c, level, root))]
    if c.name in PROMPT_EVENT:
        path = _hook_path(c, level, root)
        text = changes[0].after if path == changes[0].path else None
        hooks = _hook_change(path, _hooks_wanted(c, level, prompt_recall, capture), text)
        changes = _with_hooks(changes, hooks)
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
    changes: list[Change] = []
    if c.name in PROMPT_EVENT:  # the hooks first: install added them after the server
        gone: dict[str, dict[str, Any] | None] = dict.fromkeys(hook_events(c.name))
        changes.append(_hook_change(_hook_path(c, level, root), gone))
    server = _server_change(c, c.config_path(level, root), None)
    if changes and changes[0].path == server.path:
        after = files.drop_json_entry(server.path, changes[0].after, [c.key, SERVER_NAME])
        changes[0] = Change(server.path, server.before, after, "MCP server and hooks")
    else:
        changes.insert(0, server)
    guide = c.instructions_path(level, root)
    if guide is not None:
        sharing = [
            other.name
            for other in CLIENTS.values()
            if other is not c
            and level in other.levels()
            and other.instructions_path(level, root) == guide
            and _maybe_installed(other, level, root)
        ]
        before = _read(guide)
        # Another client still configured here reads the same block: it stays for that one.
        after = before if sharing else files.drop_block(before)
        changes.append(Change(guide, before, after, "instructions"))
    return changes


def _maybe_installed(c: AgentClient, level: str, root: Path) -> bool:
    """Whether `c` has graphit's entry at `level`; a file of its that does not parse counts
    as yes (the shared guidance block stays), and never stops this uninstall."""
    try:
        return _entry_at(c, c.config_path(level, root)) is not None
    except InvalidInput:
        return True


def _entry_at(c: AgentClient, path: Path) -> dict[str, Any] | None:
    text = _read(path)
    if c.toml:
        return files.toml_entry(path, text, c.key, SERVER_NAME)
    servers = files.load_json(path, text).get(c.key)
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


# --- what install says -----------------------------------------------------------------------


def notes_before(name: str, level: str | None = None, cwd: Path | None = None) -> list[str]:
    """Warnings for an install: outside a graphit project; `graphit` not on PATH."""
    c = client(name)
    level = _level(c, level)
    found: list[str] = []
    if level == PROJECT:
        if config.find_project_lock((cwd or Path.cwd()).resolve()) is None:
            found.append(
                f"Warning: no graphit project here (no {environ.PROJECT_LOCK_FILE} in "
                f"{(cwd or Path.cwd()).resolve()} or above): run `graphit init` first; the "
                "server has no project scope and the hooks stay silent until then."
            )
        if shutil.which(PORTABLE_COMMAND) is None:
            found.append(
                "Warning: `graphit` is not on PATH here; the project's files run `graphit` "
                "from PATH (put its directory on PATH, or install it with `pipx install` or "
                "`uv tool install`)."
            )
    return found


def notes_after(
    name: str, level: str | None, changes: list[Change], cwd: Path | None = None
) -> list[str]:
    """Which files to commit, and the client's first-run step."""
    c = client(name)
    level = _level(c, level)
    root = project_root(cwd)
    found: list[str] = []
    if level == PROJECT:
        shared = [ch.path for ch in changes if ch.after is not None]
        if shared:
            names = ", ".join(_relative(p, root) for p in shared)
            found.append(
                f"Commit {names}: they are the team's (no path or setting of this machine); "
                "a teammate with graphit on PATH gets the same setup."
            )
        if c.first_run:
            found.append(f"Next: {c.first_run}.")
    else:
        found.append("These are your own files (this graphit's path): do not commit them.")
    return found


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)

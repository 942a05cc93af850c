"""`graphit agent status`: per client and level, what install put where, and whether it is current.

"outdated" is an entry install would now write differently (another executable path or
environment), or a guidance block with older text; "unreadable" a file that install would
refuse (it does not parse, or the servers' place in it is not an object), with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphit_cli.agents import files
from graphit_cli.agents.clients import (
    _entry_at,
    _hook_change,
    _hook_path,
    _read,
    _server_change,
    is_our_hook,
)
from graphit_cli.agents.entries import hook_entry, instructions_text, server_entry
from graphit_cli.agents.registry import CAPTURE_EVENTS, CLIENTS, project_root
from graphit_cli.core.events import PROMPT_EVENT, SESSION_START
from graphit_cli.errors import InvalidInput


@dataclass(frozen=True)
class Status:
    client: str
    level: str
    config: Path
    server: str  # "installed", "outdated" (another command or env), "absent" or an error
    hook: str | None  # Claude Code and Gemini CLI: the SessionStart hook
    prompt_hook: str | None  # their UserPromptSubmit (BeforeAgent) hook
    capture_hooks: str | None  # the capture hooks (CAPTURE_EVENTS), together
    instructions: Path | None
    guidance: str | None  # "installed", "outdated", "absent"

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "level": self.level,
            "config": str(self.config),
            "server": self.server,
            "hook": self.hook,
            "prompt_hook": self.prompt_hook,
            "capture_hooks": self.capture_hooks,
            "instructions": str(self.instructions) if self.instructions else None,
            "guidance": self.guidance,
        }


def status(cwd: Path | None = None) -> list[Status]:
    root = project_root(cwd)
    rows = []
    for c in CLIENTS.values():
        for level in c.levels():
            path = c.config_path(level, root)
            try:
                wanted = server_entry(c, level, root)
                _server_change(c, path, wanted)  # what install would refuse, status says
                entry = _entry_at(c, path)
                server = (
                    "absent" if entry is None else "installed" if entry == wanted else "outdated"
                )
            except InvalidInput as exc:
                server = f"unreadable: {exc.message}"
            hook = prompt_hook = capture = None
            if c.name in PROMPT_EVENT:
                hook_path = _hook_path(c, level, root)
                hook = _hook_state(hook_path, SESSION_START, level, c.name)
                prompt_hook = _hook_state(hook_path, PROMPT_EVENT[c.name], level, c.name)
                events = CAPTURE_EVENTS.get(c.name, ())
                states = {_hook_state(hook_path, e, level, c.name) for e in events}
                # One word for the set: all alike, else "outdated" (install makes them alike).
                if states:
                    capture = states.pop() if len(states) == 1 else "outdated"
            guide = c.instructions_path(level, root)
            guidance = None
            if guide is not None:
                text = _read(guide)
                if not files.has_block(text):
                    guidance = "absent"
                else:
                    same = files.set_block(text, instructions_text()) == text
                    guidance = "installed" if same else "outdated"
            rows.append(
                Status(c.name, level, path, server, hook, prompt_hook, capture, guide, guidance)
            )
    return rows


def _hook_state(path: Path, event: str, level: str, name: str) -> str:
    try:
        change = _hook_change(path, {event: hook_entry(event, level, name)})
        data = files.load_json(path, change.before)
    except InvalidInput as exc:
        return f"unreadable: {exc.message}"
    groups = data.get("hooks", {}).get(event, [])
    present = any(
        is_our_hook(h) for g in groups if isinstance(g, dict) for h in g.get("hooks") or []
    )
    return "absent" if not present else "outdated" if change.changed else "installed"

"""`graphit agent status`: per client and level, what install put where, and whether it is current.

"outdated" is an entry install would now write differently (another executable path or
environment), or a guidance block with older text; "unreadable" a file that does not parse.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphit_cli.agents import files
from graphit_cli.agents.clients import (
    CLIENTS,
    _entry_at,
    _hook_change,
    _hook_path,
    _is_our_hook,
    _read,
    instructions_text,
    project_root,
    recall_command,
    server_entry,
)
from graphit_cli.errors import InvalidInput


@dataclass(frozen=True)
class Status:
    client: str
    level: str
    config: Path
    server: str  # "installed", "outdated" (another command or env), "absent" or an error
    hook: str | None  # Claude Code only
    instructions: Path | None
    guidance: str | None  # "installed", "outdated", "absent"

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "level": self.level,
            "config": str(self.config),
            "server": self.server,
            "hook": self.hook,
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
                entry = _entry_at(c, path)
                wanted = server_entry(c, level, root)
                server = (
                    "absent" if entry is None else "installed" if entry == wanted else "outdated"
                )
            except InvalidInput:
                server = "unreadable"
            hook = None
            if c.name == "claude-code":
                hook_path = _hook_path(level, root)
                try:
                    change = _hook_change(hook_path, recall_command(level, root))
                    present = any(_is_our_hook(h) for h in _hooks_in(change.before))
                    hook = (
                        "absent" if not present else "outdated" if change.changed else "installed"
                    )
                except InvalidInput:
                    hook = "unreadable"
            guide = c.instructions_path(level, root)
            guidance = None
            if guide is not None:
                text = _read(guide)
                if not files.has_block(text):
                    guidance = "absent"
                else:
                    same = files.set_block(text, instructions_text()) == text
                    guidance = "installed" if same else "outdated"
            rows.append(Status(c.name, level, path, server, hook, guide, guidance))
    return rows


def _hooks_in(text: str | None) -> list[Any]:
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return []
    groups = data.get("hooks", {}).get("SessionStart", []) if isinstance(data, dict) else []
    return [h for g in groups if isinstance(g, dict) for h in g.get("hooks", [])]

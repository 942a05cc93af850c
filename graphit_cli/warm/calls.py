"""The hooks' parameter object (`HookCall`) and where a call is made from (`checkout`,
`project`), with the standard library only.

The other operations' parameter objects are `ops.py`'s dataclasses; the hook's is built on the
hook's path, before it knows whether a warm process answers, where neither `dataclasses` nor
`typing` is loaded (tests/test_hot_path.py). `ops.parse_hook` builds it from a request's
fields (validated); the hook builds it from what it read itself.
"""

from __future__ import annotations

import os

from graphit_cli import environ
from graphit_cli.core.events import PROMPT_EVENT, SESSION_START

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from graphit_cli.access.scopes import Scope
    from graphit_cli.recall.hook import Delivery
    from graphit_cli.service.memory import MemoryService

    Opener = Callable[[Scope], MemoryService]

HOOK_EVENTS = ("prompt", "session-start")
CLIENTS = ("claude-code", "gemini")  # the agent clients whose hooks answer on this path
SETTINGS = {"claude-code": ".claude/settings.json", "gemini": ".gemini/settings.json"}
EVENT_NAMES = {
    **{("prompt", client): PROMPT_EVENT[client] for client in CLIENTS},
    **{("session-start", client): SESSION_START for client in CLIENTS},
}


class HookCall:
    """One hook call: `event` ("prompt" | "session-start"), `client` ("claude-code" |
    "gemini"), the prompt, the session id, `root` (the checkout the hook runs in, absolute),
    `project` (its scope reference, `project:<id>`) and `user_level` (the user-level hook:
    silent where the project runs its own)."""

    op = "hook"
    __slots__ = ("client", "event", "project", "prompt", "root", "session_id", "user_level")

    def __init__(
        self,
        event: str,
        client: str,
        prompt: str,
        session_id: str | None,
        root: str,
        project: str,
        user_level: bool,
    ) -> None:
        self.event, self.client, self.prompt = event, client, prompt
        self.session_id, self.root, self.project = session_id, root, project
        self.user_level = user_level

    @property
    def scope(self) -> Scope:
        from graphit_cli.access.scopes import parse_scope_ref

        return parse_scope_ref(self.project)

    def fields(self) -> dict[str, Any]:
        """The request's fields (`ops.parse_hook` reads them back in a warm process)."""
        return {
            "op": self.op,
            "event": self.event,
            "client": self.client,
            "prompt": self.prompt,
            "session_id": self.session_id,
            "root": self.root,
            "project": self.project,
            "user_level": self.user_level,
        }

    def run(self, opener: Opener, *, mode: str = "auto", until: float | None = None) -> Any:
        """The answer as it crosses the socket ({"text", "shown", "entry"}: `run_hook`'s
        Delivery), so that either transport gives the hook the same thing."""
        return run_hook(opener, self, mode=mode, until=until).to_json()


def run_hook(
    opener: Opener, call: HookCall, *, mode: str = "auto", until: float | None = None
) -> Delivery:
    """What the hook would print (Markdown, before a client's wrapping; "" for nothing), what
    it shows and its log entry: nothing is marked shown or logged here, the hook's process
    does that once it printed the answer (`warm/hook.py`). `until`: the `time.monotonic()`
    by which it must have answered (a cold hook's budget)."""
    from pathlib import Path

    from graphit_cli.portability import across
    from graphit_cli.recall.hook import Delivery, PromptRequest, prompt_answer, session_answer

    if call.user_level and project_has_own(Path(call.root), call.event, call.client):
        return Delivery("", [], {"event": call.event, "client": call.client, "silent": "user"})
    found, _ = across.recall_scopes(call.scope)
    services = [opener(s) for s in found]
    request = PromptRequest(call.prompt, call.session_id, call.client, call.root, mode, until=until)
    if call.event == "session-start":
        return session_answer(services, request)
    return prompt_answer(services, request)


def project_has_own(root: Path, event: str, client: str = "claude-code") -> bool:
    """The project's settings (.claude/ or .gemini/) run graphit's hook for `event` itself."""
    name = EVENT_NAMES.get((event, client), event)
    try:
        text = (root / SETTINGS[client]).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    from graphit_cli.agents import jsonc
    from graphit_cli.agents.clients import is_our_hook

    try:
        groups = jsonc.loads(text).get("hooks", {}).get(name, [])
    except (jsonc.JsoncError, AttributeError):
        return False
    return any(
        is_our_hook(h)
        for g in (groups if isinstance(groups, list) else [])
        if isinstance(g, dict)
        for h in (g.get("hooks") or [])
    )


def lock_dir() -> tuple[str, str | None]:
    """(the working directory, the directory of the graphit.lock.json there or above, None
    when there is none), both absolute (`environ.lock_dir`, as config walks up)."""
    here = os.path.realpath(os.getcwd())
    return here, environ.lock_dir(here)


def checkout() -> str:
    """The caller's checkout, which every read request names (`root`): the directory of the
    graphit.lock.json here or above, else the working directory."""
    here, found = lock_dir()
    return found or here


def project() -> tuple[str, str] | None:
    """(the checkout's root, the project id) as `access.scopes.current_project_id` finds
    them (GRAPHIT_PROJECT_ID first, else graphit.lock.json here or above); None outside a
    project. A broken lock file raises InvalidInput with the command's own message."""
    from graphit_cli.core.ids import validate_ulid

    here, found = lock_dir()
    override = os.environ.get(environ.ENV_PROJECT_ID, "").strip()
    if override:
        return (found or here), validate_ulid(override, environ.ENV_PROJECT_ID)
    if found is None:
        return None
    lock = os.path.join(found, environ.PROJECT_LOCK_FILE)
    try:
        import json

        with open(lock, encoding="utf-8") as handle:
            raw = json.load(handle)["project"]["id"]
        return found, validate_ulid(raw)
    except Exception:  # the command's own reader says what is wrong, in its words
        from pathlib import Path

        from graphit_cli.access.scopes import read_project_id

        return found, read_project_id(Path(lock))

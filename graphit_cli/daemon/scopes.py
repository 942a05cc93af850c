"""What the daemon works on: its targets (the active scopes of the scope-reference lock and
the machine-wide user pair), whether a scope still has a table, and the login that decides who
the user is. The daemon (`daemon.py`) follows these while it runs.

Must not import Typer or Rich; nothing heavy at module level.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from graphit_cli import config
from graphit_cli.access import providers, scopes
from graphit_cli.access.scopes import Scope
from graphit_cli.errors import GraphitError

if TYPE_CHECKING:
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService

USER_TARGET = "user"  # the machine-wide pair: its id is the provider's answer, asked when run


def active_scopes(used_since: datetime | None = None) -> list[Scope]:
    """Project and context scopes of the scope-reference lock used within the active window
    (or since `used_since`): the ones the daemon, `status` and `maintain --all` work on."""
    window = timedelta(days=config.active_days())
    return [s for s in scopes.recent_scopes(window, used_since=used_since) if s.kind != "user"]


def machine_targets(
    used_since: datetime | None = None, *, user: Callable[[], Scope] | None = None
) -> list[tuple[str, Callable[[], Scope]]]:
    """(name, how to get the scope) for every active scope and the machine-wide user scope,
    whose id is asked of the provider only when called (it may fail: a broker down)."""
    found = [(str(s), constant(s)) for s in active_scopes(used_since)]
    found.append((USER_TARGET, user or (lambda: Scope("user", providers.user_id()))))
    return found


def open_quietly(
    scope: Scope, *, create: bool, embedder: Callable[[], Embedder | None] | None = None
) -> tuple[MemoryService | None, str]:
    """(the scope's service, its table URI) for background work; no service while a local
    scope has no table and `create` is False. Unlike `opening.open_service` this does not record
    a use in the scope-reference lock: the daemon's own opens must not keep a scope active.
    An attached context is no background work either: its project's own users maintain it."""
    from graphit_cli.access.opening import open_scope
    from graphit_cli.service.memory import MemoryService

    opened = open_scope(scope, create=create, record_use=False, keep=True)
    if opened is None or opened.read_only:
        return None, opened.uri if opened is not None else str(scope.local_path())
    return MemoryService(opened.store, scope, embedder=embedder), opened.uri


def constant(scope: Scope) -> Callable[[], Scope]:
    return lambda: scope


def present(name: str) -> bool:
    """Whether the scope named `name` still has a table to work on: a remote scope always
    (its table is shared; only this machine's record goes), a local one while its directory
    holds a committed version (store/paths.py `local_table_exists`). Nothing can make a
    removed one present again: the daemon's commits reach its table through the directory
    they pinned open (store/paths.py `Pin`), which fail once it is gone, so its loops end."""
    from graphit_cli.store.paths import local_table_exists

    try:
        scope = scopes.parse_scope_ref(name)
        return providers.is_remote_scope(scope) or local_table_exists(str(scope.local_path()))
    except GraphitError:
        return True  # cannot tell (a hand-broken providers.json): its loops say why


def gone_reason(name: str) -> str:
    if not present(name):
        return "its table was removed"
    return "it is no longer in the scope-reference lock"


def login_now() -> object:
    """What decides who the user is: the active provider and its login (compared, never
    shown: the token stays in memory only as part of this value)."""
    try:
        chosen = providers.active_provider()
    except GraphitError as exc:
        return ("unreadable", exc.message)
    return (chosen.name, chosen.kind, chosen.endpoint, providers.broker_token(chosen))

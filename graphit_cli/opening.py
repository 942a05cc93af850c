"""One place opens a scope: which provider, which grant, which store, which lock entry,
read-only or not; the service gets its collaborators from here.

The composition sits above what it composes: it imports access (scopes, providers, grants),
store and service, and none of them imports it (tests/test_layering.py, the package order).

`open_scope` decides, in this order:

- an attached context (`context add --project`) is the other project's table, opened under
  the active provider's grant for that project, read-only (`ReadOnlyStore`), and no lock entry
  is written for it (the attachment is not a table of this machine);
- any other scope is where the active provider keeps it (`providers.resolve`): a local table
  directory, or its `s3://` URI with the grant the provider's issuer gave for it just now;
- a use is recorded in the scope-reference lock, unless the caller is background work (the
  daemon's own opens must not keep a scope active).

A remote grant stays authorised only while it is confirmed: the store asks the issuer again
before a read or write once `config.grant_check_seconds()` have passed since the last answer
(store/s3.py), so a long-lived process (the daemon, the Explorer, the MCP server) never acts
on a grant the Hub has withdrawn for longer than that interval.

Must not import Typer, Rich, Starlette or the MCP SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphit_cli.access import providers, scopes
from graphit_cli.access.scopes import Scope

if TYPE_CHECKING:
    from graphit_cli.access.policy import ReviewPolicy
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService
    from graphit_cli.store.base import Store


@dataclass(frozen=True)
class Opened:
    """A scope's table, opened: the store, where it lives, and how it may be used."""

    scope: Scope
    store: Store
    uri: str
    read_only: bool = False
    remote: bool = False


def open_scope(
    scope: Scope, *, create: bool = True, record_use: bool = True, keep: bool = False
) -> Opened | None:
    """Open `scope`'s table. With `create` False a local scope without a table is None (for
    background work that must not create one); a remote one is opened and must exist.
    `keep`: the caller keeps the handle and serves from it for long (the daemon, the MCP
    server, the Explorer); see `store.open_store`."""
    from graphit_cli.access.contexts import attached_project
    from graphit_cli.errors import TableDamaged
    from graphit_cli.store import open_store
    from graphit_cli.store.paths import (
        damage_message,
        damage_remedy,
        local_table_exists,
        table_damage,
    )
    from graphit_cli.store.proxy import ReadOnlyStore

    project = attached_project(scope)
    if project is not None:
        location = providers.resolve(Scope("project", project))
        inner = open_store(location.uri, create=False, access=location.access, keep=keep)
        reason = f"context {scope.id} is attached read-only from project {project}"
        store: Store = ReadOnlyStore(inner, reason)
        return Opened(scope, store, location.uri, read_only=True, remote=location.is_remote)
    location = providers.resolve(scope)
    if not location.is_remote and not local_table_exists(location.uri):
        damage = table_damage(location.uri)
        if damage is not None:  # rows without a history: damaged, never an empty scope
            raise TableDamaged(
                damage_message(location.uri, damage, "data"),
                damage_remedy(location.uri, damage, "data"),
            )
        if not create:
            return None
    store = open_store(location.uri, create=create, access=location.access, keep=keep)
    if record_use:
        scopes.record_scope_use(scope, location.uri)
    return Opened(scope, store, location.uri, remote=location.is_remote)


def open_reader(
    scope: Scope,
    *,
    embedder: Callable[[], Embedder | None] | None = None,
    keep: bool = False,
    record_use: bool = True,
) -> MemoryService:
    """The scope's MemoryService for reading: over its table when it has one, else over an
    empty store (`store/empty.py`), so a read answers as an empty table would and never
    creates a table, a directory or an object."""
    from graphit_cli.errors import NoTable
    from graphit_cli.service.memory import MemoryService
    from graphit_cli.store.empty import EmptyStore

    try:
        opened = open_scope(scope, create=False, record_use=record_use, keep=keep)
    except NoTable:
        opened = None
    if opened is not None:
        return MemoryService(opened.store, scope, embedder=embedder)
    return MemoryService(EmptyStore(str(scope)), scope, embedder=embedder)


def open_service(
    scope: Scope,
    *,
    create: bool = True,
    record_use: bool = True,
    embedder: Callable[[], Embedder | None] | None = None,
    keep: bool = False,
    via: str | None = None,
    client: str | None = None,
) -> MemoryService:
    """The scope's MemoryService over the store `open_scope` chose. A local scope without a
    table and `create` False is an error here (a command named a scope that is not there).

    With `via` (the adapter: cli, mcp, explorer, ...), its writes are stamped with that
    provenance and pass the project's review policy (`review_of`); without it, no review
    gate applies (the daemon, which is handed each write's provenance by the command)."""
    from graphit_cli.errors import StorageUnavailable
    from graphit_cli.service.memory import MemoryService

    opened = open_scope(scope, create=create, record_use=record_use, keep=keep)
    if opened is None:
        raise StorageUnavailable(f"no memory table at {scope.local_path()}")
    if via is None:
        return MemoryService(opened.store, scope, embedder=embedder)
    from graphit_cli.access import identity

    stamp = identity.stamp(via, client=client)
    return MemoryService(
        opened.store, scope, embedder=embedder, provenance=stamp, review=review_of(scope)
    )


def review_of(scope: Scope) -> ReviewPolicy | None:
    """The review policy of `scope` when it is the project of this checkout (its committed
    graphit.lock.json), else None."""
    if scope.kind != "project":
        return None
    from graphit_cli import config
    from graphit_cli.access import policy
    from graphit_cli.access.scopes import read_project_id
    from graphit_cli.errors import InvalidInput

    lock_file = config.find_project_lock()
    if lock_file is None:
        return None
    try:
        if read_project_id(lock_file) != scope.id:
            return None
    except InvalidInput:
        return None
    return policy.current()

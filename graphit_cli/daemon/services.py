"""A warm process's open scopes: each scope's service, opened once and kept while it holds.

A scope is opened under the fingerprint of what decides its answers (`access/fingerprint.py`)
and dropped when that changes (another provider, login or setting), when its local table is
gone (pruned, deleted under us), or when the daemon lets the scope go. A request's read never
creates a table (`reader`); a write's does (`writer`). Used by the daemon (`process.py`) and by
an agent session's warm server (`session.py`), with the process's one model (`model.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from graphit_cli.access import scopes

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService


class ServiceCache:
    def __init__(self, embedder: Callable[[], Embedder | None]) -> None:
        self.embedder = embedder
        # scope -> (its service, table URI, read-only, the fingerprint it was opened under)
        self._services: dict[str, tuple[MemoryService, str, bool, str]] = {}
        self._lock = threading.Lock()

    def forget(self, scope: Scope) -> None:
        with self._lock:
            self._services.pop(str(scope), None)

    def service(
        self, scope: Scope, *, create: bool = False, background: bool = True
    ) -> MemoryService | None:
        """The scope's service, opened once; None while the scope has no table, once its
        local table is gone, and for background work on an attached (read-only) context."""
        from graphit_cli.access.fingerprint import fingerprint
        from graphit_cli.access.opening import open_scope
        from graphit_cli.service.memory import MemoryService
        from graphit_cli.store.paths import local_table_exists

        key = str(scope)
        mark = fingerprint([scope])  # the provider, login or settings may have changed
        with self._lock:
            found = self._services.get(key)
            if found is not None and found[3] != mark:
                del self._services[key]  # opened under another provider, login or setting
                found = None
            gone = found is not None and not scopes.is_remote_uri(found[1])
            if gone and found is not None and not local_table_exists(found[1]):
                del self._services[key]  # pruned or deleted under us
                found = None
                if not create:
                    return None
            if found is None:
                opened = open_scope(scope, create=create, record_use=False, keep=True)
                if opened is None:
                    return None  # no table yet: nothing to embed or maintain
                svc = MemoryService(opened.store, scope, embedder=self.embedder)
                found = self._services[key] = (svc, opened.uri, opened.read_only, mark)
            return None if background and found[2] else found[0]

    def used(self, scope: Scope) -> None:
        """A warm-path request is a use of its scope: `scopes` LAST USED moves, and the scope
        stays active."""
        found = self._services.get(str(scope))
        if found is not None:
            scopes.record_scope_use(scope, found[1])

    def writer(self, scope: Scope) -> MemoryService:
        """A write request's service (creating the scope's table)."""
        opened = self.service(scope, create=True, background=False)
        assert opened is not None
        self.used(scope)
        return opened

    def reader(self, scope: Scope) -> MemoryService:
        """A read's service: the scope's table, or an empty one that creates nothing."""
        from graphit_cli.access.opening import open_reader
        from graphit_cli.errors import NoTable

        try:
            opened = self.service(scope, create=False, background=False)
        except NoTable:
            opened = None
        if opened is None:
            return open_reader(scope, embedder=self.embedder, keep=True, record_use=False)
        self.used(scope)
        return opened

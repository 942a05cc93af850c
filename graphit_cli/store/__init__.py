"""Storage: the only package that imports lancedb and pyarrow.

`open_store(uri)` returns a `Store` (the protocol in `store.base`) over one scope's LanceDB
table: `store.lance.MemoryStore` locally, `store.s3.RemoteStore` on S3. Importing this
package is cheap; the heavy imports happen inside `store.lance` when a table is opened.
Must not import Typer, Rich or anything from `cli/`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from graphit_cli.store import restclient

# The Rust layers' WARN lines (lancedb's, and lance's own through pylance) are noise on stderr:
# a retried commit conflict is not the user's business. Set before any store module imports
# lancedb (they all live in this package, so this runs first).
os.environ.setdefault("LANCEDB_LOG", "error")
os.environ.setdefault("LANCE_LOG", "error")
restclient.defer()  # `import lancedb` without the REST client it never uses here (~1-3 s)

if TYPE_CHECKING:
    from graphit_cli.access.credentials import RemoteAccess
    from graphit_cli.store.base import Store


def open_store(
    uri: str, *, create: bool = True, access: RemoteAccess | None = None, keep: bool = False
) -> Store:
    """Open a scope's table: a local directory, or (with `access`) a remote `s3://` URI.

    A local table is read and written through pylance (store/engine.py), so a one-shot command
    never imports lancedb; with `keep` (a process that keeps the handle: the daemon, the MCP
    server, the Explorer) through LanceDB's table instead, which its upkeep uses anyway: one
    engine, one set of index and metadata caches (two cost the daemon ~100 MB of RSS)."""
    if access is not None:
        from graphit_cli.store.s3 import open_remote

        return open_remote(access, create=create)
    if "://" in uri:
        # Without the provider's endpoint and credentials LanceDB would walk the AWS default
        # chain against AWS itself: a remote table is opened only through providers.resolve.
        from graphit_cli.errors import StorageUnavailable

        raise StorageUnavailable(f"{uri} is remote: open it through the active provider")
    from graphit_cli.store.lance import MemoryStore

    return MemoryStore.open(uri, create=create, keep=keep)

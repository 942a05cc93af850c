"""Storage: the only package that imports lancedb and pyarrow.

`open_store(uri)` returns a `MemoryStore` over one scope's LanceDB table. Importing this
package is cheap; the heavy imports happen inside `store.lance` when a table is opened.
Must not import Typer, Rich or anything from `cli/`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphit_cli.store.lance import MemoryStore


def open_store(uri: str, *, create: bool = True) -> MemoryStore:
    from graphit_cli.store.lance import MemoryStore

    return MemoryStore.open(uri, create=create)

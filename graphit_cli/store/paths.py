"""Where a local scope's table lives on disk, and whether it is there, without opening it
(standard library only: the daemon and `open_scope` ask before anything heavy is imported)."""

from __future__ import annotations

import os


def table_path(uri: str) -> str:
    """Where LanceDB keeps a local scope's table (`<uri>/<TABLE_NAME>.lance`)."""
    return os.path.join(uri, "memory.lance")


def local_table_exists(uri: str) -> bool:
    """Whether a local scope directory holds a table (its versions), without opening it: a
    directory a writer left behind after a `rm -rf` (an index file landing) holds none."""
    return os.path.isdir(os.path.join(table_path(uri), "_versions"))

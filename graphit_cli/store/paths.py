"""Where a local scope's table lives on disk, whether it is there, and the pinned path a
process reads and writes it through (standard library only: the daemon and `open_scope` ask
before anything heavy is imported)."""

from __future__ import annotations

import os
import weakref
from pathlib import Path

# Linux names every open descriptor as a path; a directory opened there stays that directory
# (its inode) even once it is removed, and nothing can be created in a removed directory.
_FD_DIR = "/proc/self/fd"


def table_path(uri: str) -> str:
    """Where LanceDB keeps a local scope's table (`<uri>/<TABLE_NAME>.lance`)."""
    return os.path.join(uri, "memory.lance")


def local_table_exists(uri: str) -> bool:
    """Whether a local scope directory holds a table: a committed version (a manifest in its
    `_versions`), without opening it. An empty `_versions` (a creation that failed on a full
    disk) or a directory a writer left behind after a `rm -rf` is no table."""
    try:
        with os.scandir(os.path.join(table_path(uri), "_versions")) as entries:
            return any(e.name.endswith(".manifest") for e in entries)
    except OSError:  # missing, not a directory, unreadable: no table to work on
        return False


def version_hint(uri: str) -> int | None:
    """The newest version lance recorded committing to a local scope's table (its
    `_versions/latest_version_hint.json`), or None where there is no readable record."""
    import json

    try:
        with open(os.path.join(table_path(uri), "_versions", "latest_version_hint.json")) as f:
            value = json.load(f).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and value > 0 else None


def table_damage(uri: str) -> str | None:
    """What is visibly wrong with a local table directory, in words, without opening it
    (None: nothing visible). A directory with rows but no committed version is a table whose
    history was deleted, not an empty scope."""
    root = Path(table_path(uri))
    if not root.is_dir() or local_table_exists(uri):
        return None
    data = root / "data"
    # Rows without a history: damaged. An index file alone is what a writer in flight during
    # a `rm -rf` could leave (before the pinned paths): no table, not a damaged one.
    if data.is_dir() and any(data.iterdir()):
        return "its version history (_versions) is missing"
    return None


def damage_message(uri: str, what: str, kind: str) -> str:
    """One line: which table, what is wrong, what to do. Seen by a command, damage to the rows
    is not yet proven (it looked again at the newest commit, but `doctor` reads the whole
    table): the line sends to `doctor`, which gives the destructive advice (`damage_remedy`)
    once it confirms it."""
    if kind == "index":
        todo = "run `graphit memory doctor --repair` to rebuild its indexes (no memory is lost)"
    elif kind == "file":
        todo = (
            "run `graphit memory doctor --repair`: it rebuilds an index whose file it is (no"
            " memory is lost) and says what to do otherwise"
        )
    else:
        todo = "run `graphit memory doctor` to check it end to end and say what to do"
    return f"the memory table at {uri} is damaged: {what}; {todo}"


def damage_remedy(uri: str, what: str, kind: str) -> str:
    """What `doctor` says once it has confirmed the damage (the table does not open or read)."""
    if kind == "index":
        return damage_message(uri, what, kind)
    if kind == "file":  # doctor read every row and met it: a file of rows
        what = "a data file is cut short"
    return (
        f"the memory table at {uri} is damaged: {what}; restore {uri} from a backup; or"
        " `graphit memory prune` its scope and import an export (what is not in one is lost)"
    )


class Pin:
    """A local scope directory held open, and the path that reaches it through the open
    descriptor (Linux). LanceDB and pylance create whatever directory a write needs; through
    this path a write that lands after the directory was removed (`rm -rf`, `context remove`,
    `prune`) fails instead of bringing the directory back. The descriptor closes when the
    last object holding the pin goes."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.fd = os.open(uri, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        self.path = f"{_FD_DIR}/{self.fd}"
        weakref.finalize(self, os.close, self.fd)

    def gone(self) -> bool:
        """Whether the pinned directory was removed (or replaced) since it was pinned."""
        try:
            now = os.stat(self.uri)
        except OSError:
            return True
        held = os.fstat(self.fd)
        return (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino) or held.st_nlink == 0


def pin(uri: str) -> Pin | None:
    """The directory `uri` pinned (see Pin), or None where the system has no descriptor paths
    (there the plain path is used). Raises FileNotFoundError when the directory is missing."""
    if not os.path.isdir(_FD_DIR):
        if not os.path.isdir(uri):
            raise FileNotFoundError(uri)
        return None
    return Pin(uri)

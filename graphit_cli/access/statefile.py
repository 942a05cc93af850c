"""Small JSON state files under ~/.graphit: atomic replacement and an inter-process lock.

Readers never see half a file (write to a temp file in the same directory, then rename), a
failed write leaves no temp file behind, and read-modify-write cycles hold an `flock` on a
guard file beside the state file, so two processes (or two daemon threads) never lose each
other's update. A leaf: standard library only.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# flock locks belong to the open file description: two threads of one process that each open
# the guard file do exclude each other, but a process-wide lock per path makes it explicit and
# cheap.
_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


def write_json(path: Path, payload: Any, *, mode: int | None = None) -> None:
    """Replace `path` with `payload` as indented JSON, atomically (`mode`: e.g. 0o600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> Any:
    """The file's JSON value; None when it does not exist. ValueError/OSError otherwise."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for a read-modify-write of `path` (a `.guard` file beside it)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    guard_path = path.with_name(path.name + ".guard")
    with _THREAD_LOCKS_GUARD:
        thread_lock = _THREAD_LOCKS.setdefault(str(guard_path), threading.Lock())
    with thread_lock, open(guard_path, "a+") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(guard, fcntl.LOCK_UN)

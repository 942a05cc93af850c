"""Machine-local run state under ~/.graphit: last maintenance pass per scope, daemon paths.

Small JSON files written atomically, each read-modify-write under the file's lock (daemon
threads and other processes update the same file); nothing here touches a table.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from graphit_cli import config
from graphit_cli.access import statefile


def check_home() -> None:
    """GRAPHIT_HOME (or ~/.graphit) must be a directory, or a path one can be made at: one
    under a regular file is reported as that (exit 7), not as a file inside it being bad."""
    from graphit_cli.errors import StorageUnavailable

    path = config.home()
    for part in (path, *path.parents):
        if part.exists():
            if not part.is_dir():
                what = "is a file" if part.is_file() else "is not a directory"
                raise StorageUnavailable(
                    f"GRAPHIT_HOME ({path}) is not usable: {part} {what}; point GRAPHIT_HOME"
                    " at a directory"
                )
            return


def run_dir() -> Path:
    return config.home() / "run"


def socket_path() -> Path:
    return run_dir() / "daemon.sock"


def sweep_claims(older_than: float, now: float | None = None) -> int:
    """Remove the write claims (`run/requests/<id>.pending|.taken`, daemon/wire.py `Claim`)
    older than `older_than` seconds: a forwarding CLI killed with -9 never clears its own.
    Past the longest wait of a write no process looks at a claim again (a rename keeps the
    file's time: its age is the write's). Returns how many went."""
    moment = time.time() if now is None else now
    swept = 0
    try:
        entries = list(os.scandir(run_dir() / "requests"))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.endswith((".pending", ".taken")):
            continue
        try:
            if moment - entry.stat(follow_symlinks=False).st_mtime > older_than:
                os.unlink(entry.path)
                swept += 1
        except OSError:
            continue  # cleared by its owner meanwhile
    return swept


def _passes_file() -> Path:
    return config.memory_root() / "maintenance.json"


def _read(path: Path) -> dict[str, float]:
    try:
        data = statefile.read_json(path)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float)}


def seconds_since_pass(scope: str) -> float | None:
    last = _read(_passes_file()).get(scope)
    return None if last is None else max(0.0, time.time() - last)


def record_pass(scope: str) -> None:
    path = _passes_file()
    with statefile.locked(path):
        data = _read(path)
        data[scope] = time.time()
        statefile.write_json(path, data)


def forget_pass(scope: str) -> None:
    path = _passes_file()
    with statefile.locked(path):
        data = _read(path)
        if data.pop(scope, None) is not None:
            statefile.write_json(path, data)

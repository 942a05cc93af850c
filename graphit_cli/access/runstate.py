"""Machine-local run state under ~/.graphit: last maintenance pass per scope, daemon paths.

Small JSON files written atomically, each read-modify-write under the file's lock (daemon
threads and other processes update the same file); nothing here touches a table.
"""

from __future__ import annotations

import time
from pathlib import Path

from graphit_cli import config
from graphit_cli.access import statefile


def run_dir() -> Path:
    return config.home() / "run"


def socket_path() -> Path:
    return run_dir() / "daemon.sock"


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

"""Machine-local run state under ~/.graphit: last maintenance pass per scope, daemon paths.

Small JSON files written atomically; nothing here touches a table.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from graphit_cli import config


def run_dir() -> Path:
    return config.home() / "run"


def socket_path() -> Path:
    return run_dir() / "daemon.sock"


def _passes_file() -> Path:
    return config.memory_root() / "maintenance.json"


def _read(path: Path) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float)}


def seconds_since_pass(scope: str) -> float | None:
    last = _read(_passes_file()).get(scope)
    return None if last is None else max(0.0, time.time() - last)


def record_pass(scope: str) -> None:
    path = _passes_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _read(path)
    data[scope] = time.time()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".maintenance.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
    os.replace(tmp, path)


def forget_pass(scope: str) -> None:
    path = _passes_file()
    data = _read(path)
    if data.pop(scope, None) is not None:
        path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")

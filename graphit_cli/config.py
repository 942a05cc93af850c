"""Settings: every GRAPHIT_* environment variable is named here, and only here.

Precedence is flag > environment > default; values are read when asked for (not at import),
so tests can point `GRAPHIT_HOME` at a tmp dir per test.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

ENV_HOME = "GRAPHIT_HOME"
ENV_PROJECT_ID = "GRAPHIT_PROJECT_ID"
ENV_DEBUG = "GRAPHIT_DEBUG"
ENV_FORMAT = "GRAPHIT_FORMAT"
ENV_AUTHOR = "GRAPHIT_AUTHOR"
ENV_SCOPE = "GRAPHIT_SCOPE"
ENV_FOLD_THRESHOLD = "GRAPHIT_FOLD_THRESHOLD"
ENV_RETENTION = "GRAPHIT_VERSION_RETENTION"

PROJECT_LOCK_FILE = "graphit.lock.json"
EMBEDDING_DIM = 384  # all-MiniLM-L6-v2; stored with the model id in the table metadata

# Fold unindexed fragments into the indexes once this many small fragments have piled up
# (LANCEDB_NOTES: every single write adds a fragment and queries decay with their count).
DEFAULT_FOLD_THRESHOLD = 32
# Versions younger than this survive cleanup: other processes may still hold handles on them.
DEFAULT_RETENTION_SECONDS = 3600


def home() -> Path:
    """`~/.graphit`, or `$GRAPHIT_HOME`."""
    value = os.environ.get(ENV_HOME)
    return Path(value).expanduser() if value else Path.home() / ".graphit"


def memory_root() -> Path:
    return home() / "memory"


def debug() -> bool:
    return os.environ.get(ENV_DEBUG, "") not in ("", "0", "false", "no")


def author() -> str:
    """Who a write is attributed to (`updated_by`)."""
    value = os.environ.get(ENV_AUTHOR, "").strip()
    if value:
        return value
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return "unknown"


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return max(0, int(raw))
    except ValueError:
        from graphit_cli.errors import InvalidInput

        raise InvalidInput(f"{name} must be a whole number, got {raw!r}") from None


def fold_threshold() -> int:
    return _int_env(ENV_FOLD_THRESHOLD, DEFAULT_FOLD_THRESHOLD)


def retention_seconds() -> int:
    return _int_env(ENV_RETENTION, DEFAULT_RETENTION_SECONDS)

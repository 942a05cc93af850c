"""Settings: every GRAPHIT_* environment variable is named here, and only here.

Precedence is flag > environment > default; values are read when asked for (not at import),
so tests can point `GRAPHIT_HOME` at a tmp dir per test.
"""

from __future__ import annotations

import getpass
import logging
import os
import sys
from pathlib import Path

ENV_HOME = "GRAPHIT_HOME"
ENV_PROJECT_ID = "GRAPHIT_PROJECT_ID"
ENV_DEBUG = "GRAPHIT_DEBUG"
ENV_FORMAT = "GRAPHIT_FORMAT"
ENV_AUTHOR = "GRAPHIT_AUTHOR"
ENV_SCOPE = "GRAPHIT_SCOPE"
ENV_FOLD_THRESHOLD = "GRAPHIT_FOLD_THRESHOLD"
ENV_RETENTION = "GRAPHIT_VERSION_RETENTION"
ENV_EMBEDDER = "GRAPHIT_EMBEDDER"
ENV_EMBED_THREADS = "GRAPHIT_EMBED_THREADS"
ENV_NO_DAEMON = "GRAPHIT_NO_DAEMON"
ENV_EMBED_INTERVAL = "GRAPHIT_EMBED_INTERVAL"
ENV_MCP_BACKFILL_INTERVAL = "GRAPHIT_MCP_BACKFILL_INTERVAL"
ENV_MAINTAIN_INTERVAL = "GRAPHIT_MAINTAIN_INTERVAL"
ENV_BACKOFF_MAX = "GRAPHIT_BACKOFF_MAX"
ENV_STABLE_SECONDS = "GRAPHIT_STABLE_SECONDS"
ENV_MAX_FAILURES = "GRAPHIT_MAX_FAILURES"
ENV_ACTIVE_DAYS = "GRAPHIT_ACTIVE_DAYS"
# The environment-only provider (CI): GRAPHIT_PROVIDER=s3 plus these and the standard AWS_*.
ENV_PROVIDER = "GRAPHIT_PROVIDER"
ENV_S3_BUCKET = "GRAPHIT_S3_BUCKET"
ENV_S3_PREFIX = "GRAPHIT_S3_PREFIX"
ENV_S3_ENDPOINT = "GRAPHIT_S3_ENDPOINT"
ENV_BROKER_TOKEN = "GRAPHIT_BROKER_TOKEN"
ENV_GRANT_CHECK = "GRAPHIT_GRANT_CHECK_SECONDS"

PROJECT_LOCK_FILE = "graphit.lock.json"
# The packaged all-MiniLM-L6-v2, whichever backend runs it (embed/): one vector space.
EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# multilingual-e5-small (embed/e5.py): another vector space of the same size.
E5_MODEL = "intfloat/multilingual-e5-small"
EMBEDDING_DIM = 384  # both models; the model id is stored in the table metadata

# Fold unindexed fragments into the indexes once this many small fragments have piled up
# (LANCEDB_NOTES: every single write adds a fragment and queries decay with their count).
DEFAULT_FOLD_THRESHOLD = 32
# Versions younger than this survive cleanup: other processes may still hold handles on them.
DEFAULT_RETENTION_SECONDS = 3600
DEFAULT_EMBED_THREADS = 1  # measured: benchmarks/README.md, "Embedding threads"


def home() -> Path:
    """`~/.graphit`, or `$GRAPHIT_HOME`."""
    value = os.environ.get(ENV_HOME)
    return Path(value).expanduser() if value else Path.home() / ".graphit"


def memory_root() -> Path:
    return home() / "memory"


def providers_file() -> Path:
    """The provider configuration (mode 0600: a broker token may be stored in it)."""
    return home() / "providers.json"


def debug() -> bool:
    return os.environ.get(ENV_DEBUG, "") not in ("", "0", "false", "no")


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is at the time (test runners swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def setup_logging() -> None:
    """Route graphit's own loggers to stderr, once per process: warnings always, and with
    `GRAPHIT_DEBUG=1` every debug line too (folding skipped, retried conflicts, ...).
    Library loggers are left alone; safe to call again (the level follows the variable)."""
    logger = logging.getLogger("graphit_cli")
    logger.setLevel(logging.DEBUG if debug() else logging.WARNING)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("graphit: %(levelname)s: %(message)s"))
        logger.addHandler(handler)


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


def embed_threads() -> int:
    """Threads for embedding document batches (queries always use one)."""
    return max(1, _int_env(ENV_EMBED_THREADS, DEFAULT_EMBED_THREADS))


# --- the config file ----------------------------------------------------------------------


def config_file() -> Path:
    return home() / "config.toml"


def file_settings(section: str) -> dict[str, object]:
    """One `[section]` of ~/.graphit/config.toml (missing file or section: empty)."""
    import tomllib

    try:
        data = tomllib.loads(config_file().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        from graphit_cli.errors import InvalidInput

        raise InvalidInput(f"{config_file()}: {exc}") from None
    value = data.get(section, {})
    return value if isinstance(value, dict) else {}


def number(env_name: str, file_key: str, section: str, default: float) -> float:
    """A positive number: environment, then the config file, then the default."""
    from graphit_cli.errors import InvalidInput

    raw: object = os.environ.get(env_name, "").strip() or file_settings(section).get(file_key)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidInput(
            f"{env_name} / {section}.{file_key} must be a number, got {raw!r}"
        ) from None
    if value <= 0:
        raise InvalidInput(f"{env_name} / {section}.{file_key} must be positive, got {raw!r}")
    return value


# A scope used within this many days is active: the daemon runs its loops, `status` and
# `maintain --all` include it. Older scopes cost nothing until they are used again.
DEFAULT_ACTIVE_DAYS = 30.0


def active_days() -> float:
    """The active window in days: GRAPHIT_ACTIVE_DAYS, `[daemon] active_days`, or 30."""
    return number(ENV_ACTIVE_DAYS, "active_days", "daemon", DEFAULT_ACTIVE_DAYS)


def no_daemon() -> bool:
    return os.environ.get(ENV_NO_DAEMON, "") not in ("", "0", "false", "no")


# A remote scope's Hub grant is confirmed again before a read or write once this many seconds
# have passed since the Hub last confirmed it (spec: cached Hub metadata cannot authorize a
# memory read or mutation). A revoked grant is refused within this interval by long-lived
# processes (the daemon, the Explorer, the MCP server); a CLI command opens afresh anyway.
DEFAULT_GRANT_CHECK_SECONDS = 30.0
MAX_GRANT_CHECK_SECONDS = 60.0


def grant_check_seconds() -> float:
    """GRAPHIT_GRANT_CHECK_SECONDS, `[access] grant_check_seconds`, or 30; 0 confirms the grant
    before every operation, and nothing above 60 is accepted."""
    from graphit_cli.errors import InvalidInput

    raw: object = os.environ.get(ENV_GRANT_CHECK, "").strip() or file_settings("access").get(
        "grant_check_seconds"
    )
    if raw in (None, ""):
        return DEFAULT_GRANT_CHECK_SECONDS
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = -1.0
    if not 0 <= value <= MAX_GRANT_CHECK_SECONDS:
        raise InvalidInput(
            f"{ENV_GRANT_CHECK} / access.grant_check_seconds must be a number of seconds "
            f"from 0 to {MAX_GRANT_CHECK_SECONDS:g}, got {raw!r}"
        )
    return value

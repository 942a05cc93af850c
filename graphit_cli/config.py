"""Settings: every GRAPHIT_* environment variable is read here (environ.py names them).

Precedence is flag > environment > default; values are read when asked for (not at import),
so tests can point `GRAPHIT_HOME` at a tmp dir per test. The syntax of the names a setting
gives (a ULID, a context name, a bucket, a prefix, an endpoint) is core/ids.py's.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path

from graphit_cli.core.flags import flag_value
from graphit_cli.environ import (  # the names are defined there, once
    ENV_ACTIVE_DAYS,
    ENV_AUTHOR,
    ENV_BACKOFF_MAX,
    ENV_BROKER_TOKEN,
    ENV_DAEMON_ANSWER,
    ENV_DAEMON_CONNECT,
    ENV_DAEMON_SEND,
    ENV_DEBUG,
    ENV_DRAIN_SECONDS,
    ENV_EMBED_INTERVAL,
    ENV_EMBED_THREADS,
    ENV_EMBEDDER,
    ENV_FOLD_THRESHOLD,
    ENV_FORMAT,
    ENV_GRANT_CHECK,
    ENV_HOME,
    ENV_MAINTAIN_INTERVAL,
    ENV_MAX_FAILURES,
    ENV_MCP_BACKFILL_INTERVAL,
    ENV_NO_DAEMON,
    ENV_PROJECT_ID,
    ENV_PROVIDER,
    ENV_RETENTION,
    ENV_S3_BUCKET,
    ENV_S3_ENDPOINT,
    ENV_S3_PREFIX,
    ENV_SCOPE,
    ENV_STABLE_SECONDS,
    PROJECT_LOCK_FILE,
    lock_dir,
)

# Both models' vectors (core/profiles.py names the models); the model id is stored in the
# table metadata.
EMBEDDING_DIM = 384

# Fold unindexed fragments into the indexes once this many small fragments have piled up
# (every single write adds a fragment, and LanceDB queries slow down with their count).
DEFAULT_FOLD_THRESHOLD = 32
# Versions younger than this survive cleanup: other processes may still hold handles on them.
DEFAULT_RETENTION_SECONDS = 3600
DEFAULT_EMBED_THREADS = 1  # docs/decisions/0007-one-embedding-thread.md


def home() -> Path:
    """`~/.graphit`, or `$GRAPHIT_HOME`."""
    value = os.environ.get(ENV_HOME)
    return Path(value).expanduser() if value else Path.home() / ".graphit"


def find_project_lock(start: Path | None = None) -> Path | None:
    """Walk up from `start` (the working directory) to the nearest `graphit.lock.json`."""
    found = lock_dir(str((start or Path.cwd()).resolve()))
    return None if found is None else Path(found) / PROJECT_LOCK_FILE


def memory_root() -> Path:
    return home() / "memory"


def providers_file() -> Path:
    """The provider configuration (mode 0600: a broker token may be stored in it)."""
    return home() / "providers.json"


def _flag(name: str) -> bool:
    """A yes/no setting that is off unless set (core/flags.py spells it); InvalidInput for a
    value it cannot read."""
    value = flag_value(os.environ.get(name))
    if value is None:
        raw = os.environ.get(name, "").strip().lower()
        raise _invalid(f"{name} must be 1 or 0 (true/false, yes/no, on/off), got {raw!r}")
    return value


def debug() -> bool:
    try:
        return _flag(ENV_DEBUG)
    except Exception:  # asked while reporting an error: `validate` names the bad value
        return False


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


def _int_env(name: str, default: int, least: int = 0) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = least - 1
    if value < least:
        from graphit_cli.errors import InvalidInput

        raise InvalidInput(f"{name} must be a whole number >= {least}, got {raw!r}")
    return value


def fold_threshold() -> int:
    return _int_env(ENV_FOLD_THRESHOLD, DEFAULT_FOLD_THRESHOLD)


def retention_seconds() -> int:
    return _int_env(ENV_RETENTION, DEFAULT_RETENTION_SECONDS)


def embed_threads() -> int:
    """Threads for embedding document batches (queries always use one)."""
    return _int_env(ENV_EMBED_THREADS, DEFAULT_EMBED_THREADS, least=1)


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


def embedder_setting() -> str:
    """The embedding backend asked for: GRAPHIT_EMBEDDER, else `[embed] backend` of the config
    file, else "" (the default order)."""
    value = os.environ.get(ENV_EMBEDDER, "").strip()
    if value:
        return value
    if not config_file().exists():  # the common case, without importing tomllib
        return ""
    chosen = file_settings("embed").get("backend", "")
    return chosen.strip() if isinstance(chosen, str) else ""


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
    return _flag(ENV_NO_DAEMON)


# A remote scope's Hub grant is confirmed before every read or write by default (spec: cached
# Hub metadata cannot authorize a memory read or mutation). A user may choose a window instead:
# a long-lived process (the daemon, the Explorer, the MCP server) then acts on a confirmation
# for up to that many seconds. Measured: benchmarks/README.md, "grant_confirmation.py".
DEFAULT_GRANT_CHECK_SECONDS = 0.0
MAX_GRANT_CHECK_SECONDS = 60.0


def grant_check_seconds() -> float:
    """GRAPHIT_GRANT_CHECK_SECONDS, `[access] grant_check_seconds`, or 0 (the grant is confirmed
    before every operation); nothing above 60 is accepted."""
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


def _invalid(message: str) -> Exception:
    from graphit_cli.errors import InvalidInput

    return InvalidInput(message)


# --- every setting, checked before a command does anything ---------------------------------

FORMATS = ("table", "markdown", "json", "ndjson")
# The embedding backends by name (embed.BACKENDS has the same keys: tests/test_settings.py).
EMBED_BACKENDS = ("e5", "onnx", "sentence-transformers")
_PLUGIN = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
# (variable, config-file section, key) of the positive numbers the daemon and the MCP server use
_NUMBERS = (
    (ENV_EMBED_INTERVAL, "daemon", "embed_interval"),
    (ENV_MAINTAIN_INTERVAL, "daemon", "maintain_interval"),
    (ENV_BACKOFF_MAX, "daemon", "backoff_max"),
    (ENV_STABLE_SECONDS, "daemon", "stable_seconds"),
    (ENV_MAX_FAILURES, "daemon", "max_failures"),
    (ENV_ACTIVE_DAYS, "daemon", "active_days"),
    (ENV_MCP_BACKFILL_INTERVAL, "mcp", "backfill_interval"),
    (ENV_DRAIN_SECONDS, "daemon", "drain_seconds"),
    (ENV_DAEMON_CONNECT, "daemon", "connect_timeout"),
    (ENV_DAEMON_SEND, "daemon", "send_timeout"),
    (ENV_DAEMON_ANSWER, "daemon", "answer_timeout"),
)


def validate() -> None:
    """Check every GRAPHIT_* value (and the config file's settings) at once, before a command
    reads or writes anything: a bad value is one InvalidInput naming the variable and what it
    accepts. Each setting's own reader applies the same rule, so nothing later disagrees."""
    from graphit_cli.core.ids import (
        PROVIDER_NAME,
        normalise_prefix,
        validate_bucket,
        validate_endpoint,
        validate_safe_id,
        validate_ulid,
    )

    env = os.environ
    _flag(ENV_DEBUG)
    _flag(ENV_NO_DAEMON)
    project = env.get(ENV_PROJECT_ID, "").strip()
    if project:
        validate_ulid(project, ENV_PROJECT_ID)
    fmt = env.get(ENV_FORMAT, "").strip().lower()
    if fmt and fmt not in FORMATS:
        raise _invalid(f"{ENV_FORMAT} must be one of {', '.join(FORMATS)}, got {fmt!r}")
    scope = env.get(ENV_SCOPE, "").strip()
    if scope and scope not in ("project", "user"):
        if not scope.startswith("context:"):
            raise _invalid(f"{ENV_SCOPE} must be project, user or context:<name>, got {scope!r}")
        validate_safe_id(scope.removeprefix("context:"), f"{ENV_SCOPE} context name")
    fold_threshold()
    retention_seconds()
    embed_threads()
    embedder = embedder_setting()
    if embedder and embedder not in EMBED_BACKENDS and not _PLUGIN.match(embedder):
        raise _invalid(
            f"{ENV_EMBEDDER} (or [embed] backend) must be {', '.join(EMBED_BACKENDS)} or "
            "module:factory, "
            f"got {embedder!r}"
        )
    for name, section, key in _NUMBERS:
        number(name, key, section, 1.0)
    provider = env.get(ENV_PROVIDER, "").strip()
    if provider and not PROVIDER_NAME.match(provider):
        raise _invalid(
            f"{ENV_PROVIDER} must be s3, local or a provider's name "
            f"(letters, digits and . _ -), got {provider!r}"
        )
    from graphit_cli.errors import InvalidInput

    try:
        bucket = env.get(ENV_S3_BUCKET, "").strip()
        if bucket:
            validate_bucket(bucket)
    except InvalidInput as exc:
        raise _invalid(f"{ENV_S3_BUCKET}: {exc.message}") from None
    try:
        normalise_prefix(env.get(ENV_S3_PREFIX))
    except InvalidInput as exc:
        raise _invalid(f"{ENV_S3_PREFIX}: {exc.message}") from None
    validate_endpoint(env.get(ENV_S3_ENDPOINT), ENV_S3_ENDPOINT)
    token = env.get(ENV_BROKER_TOKEN, "")
    if any(ord(c) < 33 or ord(c) == 127 for c in token.strip()):
        raise _invalid(f"{ENV_BROKER_TOKEN} must be one word without spaces or control characters")
    author_ = env.get(ENV_AUTHOR, "")
    if any(ord(c) < 32 or ord(c) == 127 for c in author_):
        raise _invalid(f"{ENV_AUTHOR} must be text without control characters")
    grant_check_seconds()


# The warm path's deadlines, on the CLI's side (docs/guides/daemon.md): seconds to connect to
# the daemon's socket, to send it the whole request, and the longest silence from it while it
# works (it sends a keep-alive every second) and before it takes a write. A read that misses
# one works in-process; a write the daemon has not taken works in-process; a write it took and
# did not answer is exit 7.
DEFAULT_DAEMON_CONNECT_SECONDS = 0.25
DEFAULT_DAEMON_SEND_SECONDS = 5.0
DEFAULT_DAEMON_ANSWER_SECONDS = 10.0


def daemon_deadlines() -> tuple[float, float, float]:
    """(connect, send, answer) seconds: GRAPHIT_DAEMON_{CONNECT,SEND,ANSWER}_TIMEOUT, then
    `[daemon] connect_timeout`, `send_timeout`, `answer_timeout`, then the defaults."""
    return (
        number(ENV_DAEMON_CONNECT, "connect_timeout", "daemon", DEFAULT_DAEMON_CONNECT_SECONDS),
        number(ENV_DAEMON_SEND, "send_timeout", "daemon", DEFAULT_DAEMON_SEND_SECONDS),
        number(ENV_DAEMON_ANSWER, "answer_timeout", "daemon", DEFAULT_DAEMON_ANSWER_SECONDS),
    )

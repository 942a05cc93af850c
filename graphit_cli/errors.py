"""The GraphitError hierarchy and the exit codes it maps to.

Every user-facing failure is one of these; the CLI prints `Error: <message>` on one line and
exits with the class's code. Nothing here imports anything heavy.
"""

from __future__ import annotations

import re
from enum import IntEnum


class ExitCode(IntEnum):
    """Documented exit codes (docs/reference/exit-codes.md, generated from here: the comment on
    each member is what it means); scripts rely on them."""

    OK = 0  # the command did what it was asked
    INTERNAL = 1  # a bug: rerun with GRAPHIT_DEBUG=1 and report the traceback
    USAGE = 2  # unknown option or value, missing argument, `--yes` needed (Click's own code)
    INVALID_INPUT = 3  # malformed or not UTF-8 input, unknown type, bad id or tag, a secret
    NOT_FOUND = 4  # unknown memory, revision or scope
    CONFLICT = 5  # the memory changed since it was read; a daemon already runs
    ACCESS_DENIED = 6  # the storage refused the credentials; a review decision by a non-reviewer
    STORAGE_UNAVAILABLE = 7  # unreachable or damaged table, full disk: docs/troubleshooting.md
    NO_PROJECT = 8  # no project here: run `graphit init`, set GRAPHIT_PROJECT_ID, or use --user
    CREDENTIALS_EXPIRED = 9  # S3 credentials expired mid-command and could not be renewed
    NO_SUCH_BUCKET = 10  # the provider's S3 bucket does not exist
    FOUND = 11  # a check worked and found what it looks for: `memory scan` found a secret
    INTERRUPTED = 130  # Ctrl-C


class GraphitError(Exception):
    """Base of every expected, user-facing error."""

    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidInput(GraphitError):
    exit_code = ExitCode.INVALID_INPUT


class NotFound(GraphitError):
    exit_code = ExitCode.NOT_FOUND


class Conflict(GraphitError):
    exit_code = ExitCode.CONFLICT


class CommitContention(Conflict):
    """A commit lost to a concurrent writer on the same table; the caller retries."""


class AccessDenied(GraphitError):
    exit_code = ExitCode.ACCESS_DENIED


class NotReviewer(AccessDenied):
    """A review decision (approve, reject) by someone the project's policy does not name."""


class StorageUnavailable(GraphitError):
    exit_code = ExitCode.STORAGE_UNAVAILABLE


class NoTable(StorageUnavailable):
    """The scope has no table yet (a read answers as an empty table; a write creates one)."""


class TableDamaged(StorageUnavailable):
    """A table that is there but cannot be read as it is: a missing version history, a
    damaged manifest, a missing data or index file (docs/troubleshooting.md says what each
    means). Never read as an empty table. `remedy`: the line `doctor` gives once it has
    confirmed the damage (a command's own line sends to `doctor` first)."""

    def __init__(self, message: str, remedy: str | None = None) -> None:
        super().__init__(message)
        self.remedy = remedy or message


class NoProject(GraphitError):
    exit_code = ExitCode.NO_PROJECT


class CredentialsExpired(AccessDenied):
    """Temporary S3 credentials expired and no fresh ones could be had (renewal failed)."""

    exit_code = ExitCode.CREDENTIALS_EXPIRED


class NoSuchBucket(StorageUnavailable):
    """The active provider names a bucket that does not exist: a configuration error."""

    exit_code = ExitCode.NO_SUCH_BUCKET


class SecretRefused(GraphitError):
    """A write holding a detected secret (`core.secrets`): nothing was written. Exit 3, like
    any input the tool refuses; the message names each finding's record, kind and line:column,
    never the value."""

    exit_code = ExitCode.INVALID_INPUT


class UsageError(GraphitError):
    """Options that cannot go together, or a prompt that cannot be asked (exit 2)."""

    exit_code = ExitCode.USAGE


def os_failure(exc: OSError, home: str) -> GraphitError | None:
    """An OS error any command can meet writing under GRAPHIT_HOME, as its cause (a full
    disk, a missing permission, a path through a file); None for anything else."""
    import errno

    name = str(exc.filename) if exc.filename else ""
    if name and not name.startswith(home.rstrip("/") + "/") and name != home:
        return None  # a file the user named (an import's source): its own message elsewhere
    where = f" ({name})" if name else ""
    if exc.errno == errno.ENOSPC:
        return StorageUnavailable(f"the disk holding {home} is full{where}: free some space")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "a read-only file system" if exc.errno == errno.EROFS else "permission denied"
        return StorageUnavailable(
            f"cannot write under {home}{where}: {why}; make it writable, or set GRAPHIT_HOME"
            " to a directory you can write"
        )
    if exc.errno == errno.ENOTDIR:
        return StorageUnavailable(f"{home} is not usable{where}: a part of the path is a file")
    return None


def internal_error_text(exc: BaseException, debug_variable: str) -> str:
    """The one-line message for an unexpected exception (a bug), on every surface.

    `debug_variable` is environ.ENV_DEBUG (passed in: this module imports nothing of graphit's).
    """
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"Error: internal error: {first} (run with {debug_variable}=1 for the traceback)"


# What a library's error carries that a user cannot act on: where in LanceDB's Rust source it
# was raised (", /root/.cargo/.../lance-table-13.0.0/src/io/commit.rs:653:26"), a file inside
# a table's `.lance` directory, a file inside an installed package.
_RUST_LOCATION = re.compile(r",?\s*\S*\.rs:\d+:\d+")
_TABLE_FILE = re.compile(r"\S*\.lance/\S*[^\s,.:;)]")
_LIBRARY_FILE = re.compile(r"\S*/(?:site-packages|dist-packages|\.cargo)/\S*[^\s,.:;)]")


def in_words(exc: BaseException) -> str:
    """An error's first line for a log or a user: its cause in words, without source
    locations or files inside a table or a library."""
    text = str(exc).strip()
    text = text.splitlines()[0] if text else type(exc).__name__
    text = _RUST_LOCATION.sub("", text).removeprefix("lance error: ")
    text = _LIBRARY_FILE.sub("a library file", _TABLE_FILE.sub("a file of the table", text))
    return text.strip() or type(exc).__name__

"""The GraphitError hierarchy and the exit codes it maps to.

Every user-facing failure is one of these; the CLI prints `Error: <message>` on one line and
exits with the class's code. Nothing here imports anything heavy.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Documented exit codes (README "Exit codes"); scripts rely on them."""

    OK = 0
    INTERNAL = 1  # a bug: rerun with GRAPHIT_DEBUG=1 and report the traceback
    USAGE = 2  # unknown option or missing argument (Typer/Click's own code)
    INVALID_INPUT = 3  # malformed frontmatter/JSON, unknown type, bad id or tag
    NOT_FOUND = 4  # unknown memory id or revision
    CONFLICT = 5  # the memory changed underneath (expected revision mismatch, lost races)
    ACCESS_DENIED = 6  # the storage refused the credentials
    STORAGE_UNAVAILABLE = 7  # the table cannot be reached (endpoint down, missing bucket)
    NO_PROJECT = 8  # a project-scope command outside any project
    CREDENTIALS_EXPIRED = 9  # S3 credentials expired mid-command and could not be renewed
    NO_SUCH_BUCKET = 10  # the provider's S3 bucket does not exist
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


class StorageUnavailable(GraphitError):
    exit_code = ExitCode.STORAGE_UNAVAILABLE


class NoProject(GraphitError):
    exit_code = ExitCode.NO_PROJECT


class CredentialsExpired(AccessDenied):
    """Temporary S3 credentials expired and no fresh ones could be had (renewal failed)."""

    exit_code = ExitCode.CREDENTIALS_EXPIRED


class NoSuchBucket(StorageUnavailable):
    """The active provider names a bucket that does not exist: a configuration error."""

    exit_code = ExitCode.NO_SUCH_BUCKET


class UsageError(GraphitError):
    """Options that cannot go together, or a prompt that cannot be asked (exit 2)."""

    exit_code = ExitCode.USAGE


def internal_error_text(exc: BaseException, debug_variable: str) -> str:
    """The one-line message for an unexpected exception (a bug), on every surface.

    `debug_variable` is config.ENV_DEBUG (passed in: this module imports nothing of graphit's).
    """
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"Error: internal error: {first} (run with {debug_variable}=1 for the traceback)"

"""What a LanceDB error means for a user: a commit that lost to a concurrent writer
(contention, retried), a table whose files are damaged, or a storage that refuses the work
(a full disk, a read-only file system, a missing permission), each in words; the library's
own text goes to the debug log, never a Rust path to the user."""

from __future__ import annotations

import errno
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

from graphit_cli.errors import CommitContention, StorageUnavailable, TableDamaged, in_words
from graphit_cli.store.paths import damage_message, damage_remedy

log = logging.getLogger(__name__)


@contextmanager
def contention_as_conflict() -> Iterator[None]:
    """A maintenance commit preempted by a writer becomes CommitContention (callers retry)."""
    try:
        yield
    except (RuntimeError, OSError, ValueError) as exc:
        if is_commit_conflict(exc):
            raise CommitContention(f"commit contention: {lance_words(exc)}") from exc
        raise


# The exact Display of lance 13's contention errors, at the start of the message: lancedb 0.40
# raises them as RuntimeError("lance error: ..."), pylance as OSError("..."), provoked and read
# here. `RetryableCommitConflict` and `TooMuchWriteContention`: optimize and compaction
# preempted by concurrent deletes and merges. `CommitConflict` and
# `IncompatibleTransaction`: a commit lance will not rebase onto the one that beat it (two
# configuration changes, an index added while a table was being created, a schema change);
# made again against the newer version, it is a new commit like any other, so it is retried
# the same way. Nothing else counts: a message that only mentions a retry or concurrency is
# not contention.
_CONTENTION = re.compile(
    r"^(?:lance error: )?"
    r"(?:Retryable commit conflict for version \d+: |Too many concurrent writers\. "
    r"|Commit conflict for version \d+: |Incompatible transaction: )"
)


def is_commit_conflict(exc: BaseException) -> bool:
    """A commit that lost to a concurrent writer (optimize is preempted, for one).

    pylance's `lance.commit.CommitConflictError` is the type; lancedb 0.40 raises none on these
    paths, so the lance error's exact message is the other sign (`_CONTENTION`).
    """
    from lance.commit import CommitConflictError  # pylance: compact_small_fragments uses it too

    if isinstance(exc, CommitConflictError):
        return True
    return isinstance(exc, RuntimeError | OSError) and _CONTENTION.match(str(exc)) is not None


# What lance says when a table's files are not what its manifest promises, and what that means
# for a user (docs/troubleshooting.md has one entry per message).
_DAMAGE = (
    (re.compile(r"Not found: \S*/_indices/"), "an index file is missing", "index"),
    (re.compile(r"Not found: \S*/data/"), "a data file is missing", "data"),
    (re.compile(r"Not found: \S*/_versions"), "its version history is missing", "data"),
    (re.compile(r"Not found: \S*/_deletions/"), "a deletion file is missing", "data"),
    (
        re.compile(
            r"file size is too small|Invalid (?:manifest|data)|protobuf|failed to decode"
            r"|Corrupt|corrupt|Invalid user input: .*manifest|Not a valid lance",
        ),
        "its manifest (the current version's file) is damaged",
        "data",
    ),
    # A file shorter than lance expects (cut short by a full disk, a partial copy, a crash of
    # the file system): the message names no file, so which one (an index's, whose rebuild
    # loses nothing, or one of rows) is for `doctor` to find out.
    (
        re.compile(
            r"Invalid range \d+\.\.\d+ for object of size|failed to fill whole buffer"
            r"|unexpected end of file|Unexpected EOF|UnexpectedEof"
        ),
        "a file of the table is cut short",
        "file",
    ),
)


def damaged(uri: str, exc: BaseException, *, opening: bool = False) -> TableDamaged | None:
    """`exc` as TableDamaged when it says the table at `uri` is damaged (else None). The raw
    error goes to the debug log. `opening`: the error came as the table was opened, which
    reads only its manifest (a file cut short then is the manifest)."""
    text = str(exc)
    for pattern, what, kind in _DAMAGE:
        if pattern.search(text):
            if opening and kind == "file":
                what, kind = "its manifest (the current version's file) is damaged", "data"
            log.debug("the memory table at %s is damaged: %s", uri, text)
            return TableDamaged(damage_message(uri, what, kind), damage_remedy(uri, what, kind))
    return None


def lance_words(exc: BaseException) -> str:
    """A LanceDB error's first line in words (`errors.in_words`: no Rust source location)."""
    return in_words(exc)


def refusal(exc: BaseException) -> str | None:
    """The storage's refusal behind a library error, in words (a full disk, a file past the
    size the system allows, a read-only file system, a missing permission, a path through a
    file), or None when the error is not one. lance reports an OS error as text ending in
    "(os error N)"; Python's own carry `errno`."""
    code = getattr(exc, "errno", None)
    text = str(exc)
    found = re.search(r"\(os error (\d+)\)", text)
    if code is None and found is not None:
        code = int(found.group(1))
    if code == errno.ENOSPC or "No space left on device" in text:
        return "the disk is full: free some space and retry"
    if code == errno.EFBIG or "File too large" in text:
        return "a file would pass the size the system allows (ulimit -f): raise it and retry"
    if code == errno.EROFS or "Read-only file system" in text:
        return "a read-only file system: set GRAPHIT_HOME to a writable directory"
    if code in (errno.EACCES, errno.EPERM) or "Permission denied" in text:
        return "permission denied: make the directory writable, or set GRAPHIT_HOME elsewhere"
    if code == errno.ENOTDIR or "Not a directory" in text:
        return "a part of the path is a file, not a directory: set GRAPHIT_HOME elsewhere"
    return None


def store_failure(uri: str, exc: BaseException, doing: str) -> str:
    """Why a table could not be created, opened or written, in words: the storage's refusal
    (`refusal`), else the library's first line without its source locations."""
    cause = refusal(exc) or lance_words(exc)
    log.debug("cannot %s the memory table at %s: %s", doing, uri, exc)
    return f"cannot {doing} the memory table at {uri}: {cause}"


def refused(uri: str, exc: BaseException) -> StorageUnavailable | None:
    """`exc` as StorageUnavailable (exit 7) when the storage refused the work (`refusal`);
    None for anything else. Maintenance, index building and reads go through it as writes do:
    a full disk during `maintain` is said as that, never as an internal error."""
    if refusal(exc) is None:
        return None
    return StorageUnavailable(store_failure(uri, exc, "use"))

"""The daemon's memory footprint: fewer malloc arenas for a long-lived, many-threaded process.

glibc gives each thread that allocates while another holds the main arena an arena of its own
(up to 8 per core), and freed memory is seldom returned from them: in the daemon (socket
handlers, a loop pair per scope, LanceDB's and onnxruntime's threads) they held about 75 MB
of the RSS after warm searches, for no measured speed (benchmarks/README.md, "daemon_footprint.py").
Two arenas keep the daemon's threads from waiting on one lock. Best effort: on a libc without
`mallopt` (musl, macOS) nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_ARENA_MAX = -8  # glibc's malloc.h
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas for this process (before its threads start); whether it did.
    MALLOC_ARENA_MAX in the environment wins."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False


def release_free_memory() -> None:
    """Hand the heap's free pages back to the system (glibc `malloc_trim`); best effort.
    Called after a request has been answered, so it costs the caller nothing."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return

"""Waiting in tests for something another process or thread does."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(
    condition: Callable[[], bool],
    timeout: float = 120.0,
    *,
    seen: Callable[[], object] | None = None,
) -> None:
    """Poll until `condition` holds. The timeout only stops a hung test: a loaded machine may
    take many times longer than an idle one, and a verdict must not depend on which it is.
    `seen` says what the test was looking at when it gave up (for a failure in CI's log)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    found = f"; seen: {seen()}" if seen is not None else ""
    raise AssertionError(f"condition not reached in time{found}")

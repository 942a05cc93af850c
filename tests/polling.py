"""Waiting in tests for something another process or thread does."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(condition: Callable[[], bool], timeout: float = 120.0) -> None:
    """Poll until `condition` holds. The timeout only stops a hung test: a loaded machine may
    take many times longer than an idle one, and a verdict must not depend on which it is."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")

"""`graphit_cli.threads.Pending`: one call on its own thread, its result taken by a join."""

from __future__ import annotations

import threading

import pytest

from graphit_cli.threads import Pending


def test_the_result_is_the_calls_and_comes_from_another_thread() -> None:
    seen: list[str] = []
    release = threading.Event()

    def call() -> int:
        seen.append(threading.current_thread().name)
        release.wait(10)
        return 42

    pending = Pending(call, name="worker")
    release.set()
    assert pending.result() == 42 and pending.result() == 42
    assert seen == ["worker"]


def test_the_calls_exception_is_raised_by_result_not_by_join() -> None:
    def call() -> int:
        raise LookupError("no such row")

    pending = Pending(call)
    pending.join()  # waits, raises nothing
    with pytest.raises(LookupError, match="no such row"):
        pending.result()

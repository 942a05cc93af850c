"""`Pending`: one call run on a thread of its own, its result (or exception) taken by a join.

For work that leaves the GIL (onnxruntime building a session or embedding a query, a lance
query) running beside the caller's own: a cold hybrid search embeds its query and asks the
vector index while the full-text leg runs. Standard library only (the cold path imports it).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Pending(Generic[T]):
    """`call()` running on its own thread from construction; `result()` waits and returns
    its value or raises its exception, in the caller's thread (once or many times). Not a
    daemon thread: an interpreter that exits first waits for it, rather than tearing down
    what native code on it still uses."""

    def __init__(self, call: Callable[[], T], *, name: str = "pending") -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        # In the caller's context: a store snapshot the caller is in is the call's too.
        context = contextvars.copy_context()
        self._thread = threading.Thread(target=context.run, args=(self._run, call), name=name)
        self._thread.start()

    def _run(self, call: Callable[[], T]) -> None:
        try:
            self._value = call()
        except BaseException as exc:  # handed over to the thread that asks for the result
            self._error = exc

    def join(self) -> None:
        """Wait for the call to end, leaving its result or exception for `result`."""
        self._thread.join()

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set when no error was raised

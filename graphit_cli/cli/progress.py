"""Progress bars on stderr for long commands (embed, import), drawn with Rich.

Only on a terminal: piped or logged stderr gets nothing, so scripts and CI logs stay clean.
Rich is imported when a bar is first drawn, never on the way to `--help`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def bar(label: str, *, minimum: int = 1) -> Iterator[Callable[[int, int], None]]:
    """A `progress(done, total)` callback drawing a bar once `total` reaches `minimum`."""
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if total < minimum or not sys.stderr.isatty():
            return
        if "progress" not in state:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            progress = Progress(
                f"[progress.description]{label}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            progress.start()
            state["progress"] = progress
            state["task"] = progress.add_task(label, total=total)
        state["progress"].update(state["task"], completed=done, total=total)

    try:
        yield update
    finally:
        if "progress" in state:
            state["progress"].stop()

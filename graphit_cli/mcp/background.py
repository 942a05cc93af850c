"""The MCP server's background thread: warm-up, then the backfill of missing vectors.

At start it opens the project's table and loads the model, so the first search pays for
neither. Then it fills the vectors that the rows of every scope the server has opened still
lack (rows written before it started, by a cold CLI meanwhile, or by a consolidation), so a
project used only through MCP gets semantic search without a daemon. It sweeps at start,
after a consolidation and every GRAPHIT_MCP_BACKFILL_INTERVAL seconds (the server's own
inserts and updates are embedded before they answer), skipping a scope whose table has no
commit since a sweep found nothing missing (the scan costs ~26 ms at 10k rows), in steps of
a few rows: the tools lock is held only to read a step's rows and to write their vectors, never
across the model call, so a read or search waits at most for one small step.

A sweep marks a scope clean at the version read before the step that found nothing missing,
never at a later one: a commit that lands during the step is looked at by the next sweep.
The thread is not a daemon thread: `stop` asks it to end after the step or load in progress,
and `join` waits for that a moment; a thread still importing LanceDB or loading the model
then is left to the end of the process, which exits without tearing the interpreter down
(mcp/stdio.py), so a stop never waits for an import and native code is never torn down
under a running thread.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from graphit_cli import config, environ
from graphit_cli.embed import ready_for_documents
from graphit_cli.errors import AccessDenied

if TYPE_CHECKING:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.mcp.tools import MemoryTools

# Rows per step (the longest a call waits behind the backfill is one step's store read or
# write), the pause between steps, and the sweep interval when no write wakes it.
BACKFILL_BATCH = 16
BACKFILL_PAUSE = 0.01
BACKFILL_INTERVAL = 10.0

log = logging.getLogger(__name__)


class Background:
    """Warms up `tools` and keeps the scopes it opened embedded, until `stop`."""

    def __init__(self, tools: MemoryTools) -> None:
        self.tools = tools
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._skipped: set[Scope] = set()
        self._clean: dict[Scope, int] = {}  # the version a sweep last found nothing missing at

    def warm(self, scope: str = "project") -> None:
        """Open the scope's table and load the model (each step skipped once stopping)."""
        if self._stop.is_set():
            return
        with self.tools.lock:
            self.tools.service(scope)
        if self._stop.is_set():
            return
        model = self.tools._embedder()
        if model is not None and not self._stop.is_set():
            ready_for_documents(model)  # not on the first write

    def backfill(self, *, batch: int = BACKFILL_BATCH) -> int:
        """One sweep over every opened scope, `batch` rows per step; returns rows embedded.

        A scope that cannot take this model's vectors (read-only, or embedded by another
        model) is left to the daemon's pass, which may re-embed it whole.
        """
        model = self.tools._embedder()
        if model is None:
            return 0
        done = 0
        for service in self.tools.opened():
            if service.scope in self._skipped or self._stop.is_set():
                continue
            with self.tools.lock:  # one look for a newer commit: no scan when nothing changed
                version = service.store.version()
            if self._clean.get(service.scope) == version:
                continue
            while not self._stop.is_set():
                with self.tools.lock:  # before the step reads: what `clean` may vouch for
                    version = service.store.version()
                try:
                    written = service.embed_step(model, batch, hold=lambda: self.tools.lock)
                except AccessDenied as exc:  # a read-only scope: never writable here
                    log.debug("backfill of %s skipped: %s", service.scope, exc)
                    written = None
                except Exception as exc:  # e.g. a commit lost to a writer: the next sweep
                    log.debug("backfill of %s failed, retried later: %s", service.scope, exc)
                    break
                if written is None:
                    self._skipped.add(service.scope)
                if not written:
                    if written == 0:  # nothing waited at `version` (or later)
                        self._clean[service.scope] = version
                    break
                done += written
                time.sleep(BACKFILL_PAUSE)  # a waiting call takes the lock before the next step
        return done

    def run(self, scope: str = "project") -> None:
        try:
            self.warm(scope)
        except Exception as exc:  # e.g. not inside a project: the tools will say so
            log.debug("warm-up skipped: %s", exc)
        interval = config.number(
            environ.ENV_MCP_BACKFILL_INTERVAL, "backfill_interval", "mcp", BACKFILL_INTERVAL
        )
        while not self._stop.is_set():
            self.tools.wrote.clear()
            try:
                self.backfill()
            except Exception as exc:  # best effort: the daemon's pass catches up
                log.debug("backfill failed: %s", exc)
            self.tools.wrote.wait(interval)

    def start(self, scope: str = "project") -> threading.Thread:
        self._thread = threading.Thread(
            target=self.run, args=(scope,), name="graphit-mcp-background"
        )
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        """Ask the thread to end after its current step (see `join`)."""
        self._stop.set()
        self.tools.wrote.set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end (a model load or one step at most, after `stop`), at
        most `timeout` seconds; whether it ended."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

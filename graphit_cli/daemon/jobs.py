"""The daemon's two jobs on one scope, run by its loops (`process.py`): embed the rows its
table lacks vectors for, and maintain the table (fragments, indexes) when that is due.
Must not import Typer or Rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphit_cli.errors import InvalidInput

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from graphit_cli.access.scopes import Scope
    from graphit_cli.daemon.supervisor import EventLog
    from graphit_cli.embed import Embedder
    from graphit_cli.service.memory import MemoryService


class Jobs:
    """The jobs over the daemon's open scopes (`service`: None for a scope that is gone), its
    model (`model_id`, `embedder`), its stop event and its event log."""

    def __init__(
        self,
        service: Callable[[Scope], MemoryService | None],
        model_id: Callable[[], str | None],
        embedder: Callable[[], Embedder | None],
        stop: threading.Event,
        log: EventLog,
    ) -> None:
        self.service, self.model_id, self.embedder = service, model_id, embedder
        self.stop, self.log = stop, log

    def embed(self, scope: Scope) -> None:
        """Embed the rows of `scope` that lack the model's vector (empty tables, and tables
        with nothing to embed, cost no model load)."""
        svc = self.service(scope)
        if svc is None or not svc.needs_embedding(self.model_id()):
            return
        if self.embedder() is None:
            self.log.emit(
                "warn",
                "embed.unavailable",
                scope=scope,
                reason="the embedding model is not installed",
            )
            return
        try:
            report = svc.embed(should_stop=self.stop.is_set)
        except InvalidInput as exc:  # a shared table of a model not installed here
            self.log.emit("warn", "embed.skipped", scope=scope, reason=exc.message)
            return
        if report.embedded or report.skipped:
            self.log.emit(
                "info",
                "embed.done",
                scope=scope,
                rows=report.embedded,
                skipped=report.skipped,
                seconds=f"{report.seconds:.2f}",
            )

    def maintain(self, scope: Scope) -> None:
        """Fold fragments and index new rows of `scope` when they are due."""
        svc = self.service(scope)
        if svc is None or svc.is_empty():
            return
        report = svc.maintain()
        if report.ran:
            self.log.emit(
                "info",
                "maintain.done",
                scope=scope,
                reasons="; ".join(report.reasons),
                fragments=f"{report.before.fragments}->{report.after.fragments}",
                unindexed=f"{report.before.unindexed_rows}->{report.after.unindexed_rows}",
                seconds=f"{report.seconds:.2f}",
                retries=report.retries,
            )

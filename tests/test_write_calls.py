"""The writes as parameter objects (`warm/writes.py`): what a command sends is what the daemon
parses, and an outcome crosses the socket whole. Real LanceDB tables; `InProcess` is the very
transport a command without a daemon uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import InvalidInput
from graphit_cli.warm import writes
from graphit_cli.warm.transport import InProcess
from tests.conftest import PROJECT_ID

DRAFTS = [
    MemoryDraft(title="Deploys go through staging", body="Always.", mandatory=True),
    MemoryDraft(title="The CI cache", body="Lives in the ci-cache bucket.", tags=("ci",)),
]


@pytest.mark.parametrize(
    "call",
    [
        writes.UpsertCall(Scope("project", PROJECT_ID), DRAFTS, "redact", warn=False),
        writes.DeleteCall(Scope("user", "ada"), "01ABC"),
        writes.RestoreCall(Scope("project", PROJECT_ID), "01ABC@2", "allow"),
        writes.ImportCall(
            Scope("project", PROJECT_ID), Path("/tmp/notes.md"), "notes.md", "md", True
        ),
    ],
    ids=lambda call: call.op,
)
def test_what_a_command_sends_the_daemon_parses_back(call: writes.WriteCall) -> None:
    sent = json.loads(json.dumps(call.fields()))  # as it crosses the socket
    assert sent["op"] == call.op
    assert writes.PARSE[call.op](sent) == call


def test_a_write_request_the_cli_would_refuse_is_refused_in_words() -> None:
    relative = {**writes.ImportCall(Scope("project", PROJECT_ID), Path("n.md"), "n.md", "md", False)
                .fields(), "path": "n.md"}  # fmt: skip
    with pytest.raises(InvalidInput, match="path must be absolute"):
        writes.PARSE["import"](relative)
    with pytest.raises(InvalidInput, match="drafts must be a list of 1 to"):
        writes.PARSE["upsert"]({"op": "upsert", "scope": f"project:{PROJECT_ID}", "drafts": []})


def test_an_outcome_crosses_the_socket_whole(scope: Scope) -> None:
    from graphit_cli.opening import open_service

    service = open_service(scope)
    upsert = writes.UpsertCall(scope, DRAFTS)
    written = InProcess(lambda _: service).call(upsert)
    assert [r.action.value for r in written.results] == ["created", "created"]
    assert writes.decode(json.loads(json.dumps(writes.encode(written)))) == written
    deleted = InProcess(lambda _: service).call(
        writes.DeleteCall(scope, written.results[1].memory.id)
    )
    assert writes.decode(json.loads(json.dumps(writes.encode(deleted)))) == deleted
    assert [m.title for m in service.catalogue(None, None)] == [DRAFTS[0].title]


def test_written_here_the_duplicate_warning_comes_before_the_write(scope: Scope) -> None:
    """A command says a duplicate at once (`tell`), before a long write's bar; the daemon's
    warnings come back with its outcome."""
    from graphit_cli.opening import open_service

    service = open_service(scope)
    InProcess(lambda _: service).call(writes.UpsertCall(scope, DRAFTS[:1]))
    again = DRAFTS[0]  # the same again
    told: list[tuple[str, int]] = []

    def tell(line: str) -> None:
        told.append((line, len(service.catalogue(None, None))))  # what was written by then

    here = InProcess(lambda _: service, tell=tell).call(writes.UpsertCall(scope, [again]))
    assert told and here.notes == []
    assert all(count == 1 for _, count in told), told  # said before the new row was written
    there = InProcess(lambda _: service).call(writes.UpsertCall(scope, [again]))
    assert there.notes  # kept for the reply

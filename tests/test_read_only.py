"""An attached project is read, never written: `ReadOnlyStore` refuses every write before it
reaches the table, and passes every read through (a real LanceDB table on tmp_path)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import AccessDenied
from graphit_cli.store.base import RefusesWrites
from graphit_cli.store.proxy import ReadOnlyStore

# Every method that changes a table, as the store that must never write lists them.
WRITES = sorted(
    name
    for name, _ in inspect.getmembers(RefusesWrites, inspect.isfunction)
    if name not in {"refusal", "fold_if_needed"}
)


def _arguments(method: Any) -> list[Any]:
    """Placeholders for a write's positional parameters: the refusal comes before they matter."""
    parameters = list(inspect.signature(method).parameters.values())[1:]
    return [
        None
        for p in parameters
        if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD
    ]


@pytest.mark.parametrize("name", WRITES)
def test_every_write_is_refused_and_leaves_the_table_as_it_was(service, name: str) -> None:
    service.upsert(MemoryDraft(title="Deploys", body="We deploy on Fridays.", type="fact"))
    store = service.store
    before = (store.version(), store.rows())
    read_only = ReadOnlyStore(store, "context backend is attached read-only")
    method = getattr(read_only, name)
    with pytest.raises(AccessDenied, match="attached read-only: write to that project instead"):
        method(*_arguments(getattr(RefusesWrites, name)))
    assert (store.version(), store.rows()) == before


def test_reads_pass_through_and_nothing_is_left_to_fold(service) -> None:
    written = service.upsert(
        MemoryDraft(title="Deploys", body="We deploy on Fridays.", type="fact")
    )
    read_only = ReadOnlyStore(service.store, "attached")
    assert [m.id for m in read_only.live()] == [written.memory.id]
    assert read_only.fold_if_needed(1) is None

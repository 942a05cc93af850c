"""`graphit memory doctor`: a scope's table checked end to end on real tables,
repaired where no row is lost (indexes rebuilt, wrong vectors embedded again), and what it
cannot repair said in words, exit 7."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service
from tests.embedders import HashingEmbedder

EMBEDDER = "tests.embedders:HashingEmbedder"


@pytest.fixture(autouse=True)
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHIT_EMBEDDER", EMBEDDER)


def _filled(scope: Scope, rows: int = 4) -> Any:
    svc = open_service(scope, embedder=HashingEmbedder)
    svc.upsert_many(
        [MemoryDraft(title=f"note {n}", body=f"database migrations step {n}") for n in range(rows)]
    )
    svc.embed(HashingEmbedder())
    svc.maintain(force=True)
    return svc


def _doctor(cli: Any, *args: str) -> tuple[int, dict[str, Any]]:
    result = cli("memory", "doctor", "--format", "json", *args)
    return result.exit_code, {r["scope"]: r for r in result.json()}


def _problems(report: dict[str, Any]) -> list[str]:
    return [f"{f['check']}: {f['text']}" for f in report["findings"] if f["status"] == "problem"]


def test_a_healthy_table_is_ok(cli: Any, scope: Scope) -> None:
    _filled(scope)
    code, reports = _doctor(cli)
    assert code == 0
    assert reports[str(scope)]["healthy"] and not _problems(reports[str(scope)])
    checks = {f["check"] for f in reports[str(scope)]["findings"]}
    assert checks == {"opens", "chains", "history", "indexes", "vectors"}


def test_missing_index_files_are_rebuilt_and_no_row_is_lost(cli: Any, scope: Scope) -> None:
    _filled(scope)
    for index in (scope.local_path() / "memory.lance" / "_indices").iterdir():
        shutil.rmtree(index)
    assert cli("memory", "search", "database").exit_code == 7
    code, reports = _doctor(cli)
    assert code == 7
    assert any("body_fts cannot be read" in p for p in _problems(reports[str(scope)]))
    code, reports = _doctor(cli, "--repair")
    assert code == 0, reports
    assert any(f["status"] == "repaired" for f in reports[str(scope)]["findings"])
    found = cli("memory", "search", "database migrations", "--format", "json", "--top-k", "0")
    assert found.exit_code == 0 and len(found.json()) == 4
    assert _doctor(cli)[0] == 0


def test_vectors_that_are_not_the_models_are_embedded_again(cli: Any, scope: Scope) -> None:
    svc = _filled(scope)
    row = svc.store.live()[0]
    wrong = HashingEmbedder().embed_documents(["something else entirely"])[0]
    assert svc.store.write_embeddings([(row.key, row.content_hash, wrong)]) == 1
    code, reports = _doctor(cli)
    assert code == 7
    assert any("1 rows have vectors" in p for p in _problems(reports[str(scope)]))
    code, reports = _doctor(cli, "--repair")
    assert code == 0, reports
    fixed = open_service(scope).store.get(row.key, vectors=True)
    assert fixed is not None and fixed.embedding is not None
    assert list(fixed.embedding) != pytest.approx(wrong)


def test_a_broken_chain_is_said_and_left_as_it_is(cli: Any, scope: Scope) -> None:
    svc = _filled(scope, rows=1)
    memory = svc.store.live()[0]
    svc.upsert(MemoryDraft(id=memory.id, body="database migrations, revised"))
    archived = [r for r in svc.store.chain(memory.id) if not r.is_live]
    assert len(archived) == 1 and svc.store.remove_exact(archived[0]) == 1
    before = svc.store.count()
    code, reports = _doctor(cli, "--repair")
    assert code == 7
    problems = _problems(reports[str(scope)])
    assert any(memory.id in p and "not repaired" in p for p in problems), problems
    assert open_service(scope).store.count() == before  # nothing rewritten


def test_a_table_that_does_not_open_is_its_own_line(cli: Any, scope: Scope) -> None:
    _filled(scope)
    team = Scope("context", "team")
    _filled(team)
    shutil.rmtree(team.local_path() / "memory.lance" / "_versions")
    code, reports = _doctor(cli)
    assert code == 7
    assert reports[str(scope)]["healthy"]
    [problem] = _problems(reports[str(team)])
    assert "version history" in problem and ".rs:" not in problem
    text = cli("memory", "doctor")
    assert text.exit_code == 7 and "context:team: 1 problem" in text.stdout


def test_doctor_names_one_scope(cli: Any, scope: Scope, project_dir: Path) -> None:
    _filled(scope)
    code, reports = _doctor(cli, "--scope", "project")
    assert code == 0 and list(reports) == [str(scope)]

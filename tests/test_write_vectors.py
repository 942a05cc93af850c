"""Every write embedded where it is cheap: a write embeds the rows it commits before the commit
(`service.vectors.WriteVectors`), in the same merge, up to a bound; a model that cannot load
never fails the write; the daemon never holds a scope's write lock while its model embeds.

Real LanceDB tables in tmp dirs; the hashing embedder where the vectors' values do not matter,
the packaged model where meaning does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft, WriteAction
from graphit_cli.daemon import warmpath
from graphit_cli.embed import model_available
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService
from graphit_cli.service.vectors import WriteVectors
from graphit_cli.warm import values
from tests.conftest import run_cli
from tests.embedders import HashingEmbedder

REPO = Path(__file__).resolve().parent.parent
HANG = 120.0  # bounds against a hang, never a speed check


def service(scope: Scope, embedder: HashingEmbedder | None = None) -> MemoryService:
    model = embedder or HashingEmbedder()
    return open_service(scope, embedder=lambda: model)


def vector(svc: MemoryService, key: str) -> tuple[float, ...] | None:
    row = svc.store.get(key, vectors=True)
    assert row is not None
    return row.embedding


def close(found: Sequence[float] | None, expected: Sequence[float]) -> bool:
    return found is not None and list(found) == pytest.approx(list(expected), abs=1e-6)


# --- the service: vectors in the commit -----------------------------------------------------


def test_a_write_commits_its_rows_with_their_vectors_in_one_version(scope: Scope) -> None:
    model = HashingEmbedder()
    svc = service(scope, model)
    svc.upsert(MemoryDraft(title="Seed", body="the table takes the hashing model"))
    svc.embed()
    before = svc.store.version()
    vectors = WriteVectors(lambda: model)
    written = svc.writing(vectors=vectors).upsert(
        MemoryDraft(title="Gateway", body="Traffic goes through the gateway with mutual TLS.")
    )
    assert svc.store.version() == before + 1  # the row and its vector: one commit
    expected = model.embed_query("Gateway\n\nTraffic goes through the gateway with mutual TLS.")
    assert close(vector(svc, written.memory.id), expected)
    assert (vectors.embedded, vectors.notice()) == (1, None)


def test_updates_keep_a_vector_their_text_keeps_and_embed_new_text(scope: Scope) -> None:
    model = HashingEmbedder()
    svc = service(scope, model)
    first = svc.writing(vectors=WriteVectors(lambda: model)).upsert(
        MemoryDraft(title="Cache", body="Redis holds the sessions.")
    )
    memory_id = first.memory.id
    old = vector(svc, memory_id)
    assert old is not None  # a table no model has embedded takes the write's model
    assert svc.store.embedding_model() == model.model_id

    calls = model.calls
    tags = svc.writing(vectors=WriteVectors(lambda: model)).upsert(
        MemoryDraft(id=memory_id, tags=("infra",))
    )
    assert tags.action is WriteAction.UPDATED and model.calls == calls  # nothing embedded
    assert close(vector(svc, memory_id), old)  # the title and body did not change
    same = svc.writing(vectors=WriteVectors(lambda: model)).upsert(
        MemoryDraft(id=memory_id, body="Redis holds the sessions.")
    )
    assert same.action is WriteAction.UNCHANGED and model.calls == calls

    svc.writing(vectors=WriteVectors(lambda: model)).upsert(
        MemoryDraft(id=memory_id, body="Memcached holds the sessions.")
    )
    assert close(
        vector(svc, memory_id), model.embed_query("Cache\n\nMemcached holds the sessions.")
    )
    archived = [r for r in svc.store.chain(memory_id) if not r.is_live]
    assert all(vector(svc, r.key) is not None for r in archived)  # archives keep theirs


def test_a_batch_embeds_up_to_the_bound_and_says_the_rest_waits(scope: Scope) -> None:
    model = HashingEmbedder()
    svc = service(scope, model)
    vectors = WriteVectors(lambda: model, limit=3)
    drafts = [MemoryDraft(title=f"Note {n}", body=f"decision number {n}") for n in range(5)]
    results = svc.writing(vectors=vectors).upsert_many(drafts).results
    have = [vector(svc, r.memory.id) is not None for r in results]
    assert have == [True, True, True, False, False]  # in input order
    assert vectors.notice() == (
        "Note: embedded 3 of 5 rows now; the other 2 are found by their words until "
        "`graphit memory embed` runs (or a daemon embeds them)"
    )
    assert svc.embed().embedded == 2  # the pass fills the rest


def test_a_model_that_cannot_load_does_not_fail_the_write(scope: Scope) -> None:
    def broken() -> HashingEmbedder:
        raise RuntimeError("no weights here")

    svc = service(scope)
    vectors = WriteVectors(broken)
    vectors.start(["Note\n\nbody"])  # the load ahead fails on its thread, not the write
    result = svc.writing(vectors=vectors).upsert(MemoryDraft(title="Note", body="body"))
    assert result.action is WriteAction.CREATED
    assert vector(svc, result.memory.id) is None
    assert vectors.notice() == (
        "Note: 1 row written without a vector (the embedding model failed: no weights here); "
        "`graphit memory embed` fills them once it loads"
    )


def test_a_table_of_another_model_gets_no_vectors_from_a_write(scope: Scope) -> None:
    svc = service(scope)
    svc.upsert(MemoryDraft(title="Seed", body="embedded by the other model"))
    svc.embed(HashingEmbedder(model_id="test/other"))
    vectors = WriteVectors(lambda: HashingEmbedder())
    result = svc.writing(vectors=vectors).upsert(MemoryDraft(title="New", body="fresh text"))
    assert vector(svc, result.memory.id) is None  # never two models' vectors in one table
    assert vectors.notice() is None and svc.store.embedding_model() == "test/other"


# --- the CLI, in-process (no daemon) -------------------------------------------------------


def graphit(project_dir: Path, *args: str, input: str | None = None, **extra: str):
    """`graphit ARGS` in its own process, without a daemon (`extra`: more environment)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "GRAPHIT_NO_DAEMON": "1",
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        **extra,
    }
    return subprocess.run(
        [sys.executable, "-m", "graphit_cli", *args],
        cwd=project_dir,
        env=env,
        input=input,
        capture_output=True,
        text=True,
        timeout=HANG,
    )


def here(project_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`graphit ARGS` without a daemon, the CLI's code run in this process (the write path is
    the one a `graphit` process runs; the real model's cold process is tested on its own)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project_dir)
        patch.setenv("GRAPHIT_NO_DAEMON", "1")
        for name, value in {"GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder", **extra}.items():
            patch.setenv(name, value)
        done = run_cli(list(args))
    return subprocess.CompletedProcess(list(args), done.exit_code, done.stdout, done.stderr)


def test_cold_import_and_restore_write_their_rows_with_vectors(
    project_dir: Path, scope: Scope
) -> None:
    (project_dir / "AGENTS.md").write_text(
        "# Agents\n\n## Testing\n\nRun pytest before every push.\n\n## Style\n\nFormat with ruff.\n"
    )
    done = here(project_dir, "memory", "import", "AGENTS.md")
    assert done.returncode == 0, done.stderr
    svc = service(scope)
    live = svc.catalogue()
    assert len(live) == 2 and all(vector(svc, m.id) is not None for m in live)

    memory_id = live[0].id
    changed = here(project_dir, "memory", "upsert", "--id", memory_id, "--body", "other text")
    assert changed.returncode == 0, changed.stderr
    first = next(r for r in svc.history(memory_id) if r.revision == 1)
    done = here(project_dir, "memory", "restore", f"{memory_id}/{first.revision_id}")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    restored = svc.store.get(memory_id, vectors=True)
    assert restored is not None and restored.body == first.body
    expected = HashingEmbedder().embed_query(f"{first.title}\n\n{first.body}")
    assert close(restored.embedding, expected)

    # An export without vectors, imported into another scope: embedded on the way in.
    exported = here(project_dir, "memory", "export", "--format", "ndjson")
    assert exported.returncode == 0, exported.stderr
    (project_dir / "export.ndjson").write_text(exported.stdout)
    done = here(project_dir, "memory", "import", "export.ndjson", "--user")
    assert done.returncode == 0, done.stderr
    from graphit_cli.access.providers import resolve_scope
    from graphit_cli.cli.common import scope_spec

    user = open_service(resolve_scope(scope_spec(None, True)), embedder=HashingEmbedder)
    rows = user.store.export_rows(archived=True, vectors=True)
    assert rows and all(r.embedding is not None for r in rows)


def test_a_context_is_added_and_refreshed_with_its_vectors(
    project_dir: Path, tmp_path: Path
) -> None:
    """`context add --from` and `context refresh` import: their rows land with their vectors,
    so a context added without a daemon is searched by meaning from the start (and a daemon's
    embedding pass does not rewrite them later)."""
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "AGENTS.md").write_text(
        "# Agents\n\n## Testing\n\nRun pytest before every push.\n\n## Style\n\nUse ruff.\n"
    )
    done = here(project_dir, "memory", "context", "add", "team", "--from", str(handbook))
    assert done.returncode == 0, done.stderr
    team = open_service(Scope("context", "team"), embedder=HashingEmbedder)
    rows = team.store.export_rows(archived=True, vectors=True)
    assert len(rows) == 2 and all(r.embedding is not None for r in rows)

    (handbook / "AGENTS.md").write_text(
        (handbook / "AGENTS.md").read_text().replace("Use ruff.", "Use ruff and mypy.")
    )
    done = here(project_dir, "memory", "context", "refresh", "team")
    assert done.returncode == 0, done.stderr
    rows = team.store.export_rows(archived=True, vectors=True)
    assert len(rows) == 3 and all(r.embedding is not None for r in rows)


def test_a_cold_write_with_a_model_that_cannot_load_writes_and_says_so(
    project_dir: Path, scope: Scope
) -> None:
    done = here(
        project_dir,
        "memory",
        "upsert",
        "--title",
        "Kept",
        "--body",
        "written anyway",
        "-f",
        "json",
        GRAPHIT_EMBEDDER="no_such_module:factory",
    )
    assert done.returncode == 0
    assert done.stderr == (
        "Note: 1 row written without a vector (the embedding model failed: "
        "GRAPHIT_EMBEDDER='no_such_module:factory' cannot be loaded: No module named "
        "'no_such_module'); `graphit memory embed` fills them once it loads\n"
    )
    memory_id = json.loads(done.stdout)[0]["id"]
    assert vector(service(scope), memory_id) is None
    # Reads stay reads: a search (lexical here) writes no vector and keeps its error clear.
    found = here(project_dir, "memory", "search", "written", "--mode", "fts", "-f", "json")
    assert found.returncode == 0 and vector(service(scope), memory_id) is None


@pytest.mark.skipif(not model_available(), reason="embedding model not installed")
def test_a_cold_upsert_with_the_real_model_is_found_by_meaning(
    project_dir: Path, scope: Scope
) -> None:
    real = {"GRAPHIT_EMBEDDER": ""}  # the default backend, the packaged model
    for title, body in [
        ("Web app packages", "Use pnpm for the web app."),
        ("Release day", "We ship a release every second Tuesday."),
        ("Storage", "All our records live in PostgreSQL 16, hosted on RDS."),
    ]:
        done = graphit(project_dir, "memory", "upsert", "--title", title, "--body", body, **real)
        assert done.returncode == 0 and done.stderr == "", done.stderr
    svc = open_service(scope)
    assert svc.table_state().rows_with_vectors == 3  # embedded before each command returned
    found = graphit(
        project_dir, "memory", "search", "which database", "--mode", "vector", "-f", "json", **real
    )
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits and hits[0]["title"] == "Storage"


# --- the daemon's warm path: the model never runs under the scope's write lock -------------


class GatedEmbedder(HashingEmbedder):
    """Embeds a batch's texts only once the test lets it: the batch's embedding can be held
    open while another write goes through."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()
        self.lock_held_while_embedding: list[bool] = []

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if any("batch" in t for t in texts):
            self.lock_held_while_embedding.append(warmpath._write_lock(SCOPE_KEY[0]).locked())
            self.entered.set()
            assert self.release.wait(HANG), "the test never released the batch"
        return super().embed_documents(texts)


SCOPE_KEY: list[str] = [""]


def test_a_write_beside_a_batch_being_embedded_is_not_held_behind_it(scope: Scope) -> None:
    model = GatedEmbedder()
    svc = service(scope, model)
    SCOPE_KEY[0] = str(scope)
    svc.upsert(MemoryDraft(title="Seed", body="first row"))
    replies: dict[str, dict[str, object]] = {}

    from graphit_cli.access.fingerprint import fingerprint

    def write(name: str, drafts: list[MemoryDraft]) -> None:
        request = {
            "op": "upsert",
            "scope": str(scope),
            "fingerprint": fingerprint([scope]),
            "author": "tester",
            "drafts": [values.draft_to_wire(d) for d in drafts],
        }
        replies[name] = warmpath.answer(request, lambda _: svc, lambda: model)

    batch = [MemoryDraft(title=f"Batch {n}", body=f"batch record {n}") for n in range(40)]
    big = threading.Thread(target=write, args=("batch", batch))
    big.start()
    try:
        assert model.entered.wait(HANG), "the batch never reached the model"
        one = threading.Thread(
            target=write, args=("one", [MemoryDraft(title="Solo", body="a single row")])
        )
        one.start()
        one.join(HANG)
        # The one-row write committed (with its vector) while the batch was still embedding.
        assert not one.is_alive(), "the one-row write waited for the batch's embedding"
        assert big.is_alive() and "batch" not in replies
    finally:
        model.release.set()
        big.join(HANG)
    assert model.lock_held_while_embedding and not any(model.lock_held_while_embedding)
    solo = replies["one"]["result"]["writes"][0]
    assert vector(svc, solo["memory"]["id"]) is not None
    written = replies["batch"]["result"]["writes"]
    assert len(written) == 40
    assert all(vector(svc, w["memory"]["id"]) is not None for w in written)


@pytest.mark.skipif(not model_available(), reason="embedding model not installed")
def test_a_one_shot_write_of_a_few_rows_builds_no_second_session() -> None:
    """`expect_documents` (a cold upsert of one memory): the light runtime embeds the row on
    the quick session it builds anyway, with the folded session's vector."""
    onnx = pytest.importorskip("graphit_cli.embed.onnx")

    text = "Cache\n\nRedis holds the sessions; entries expire after an hour."
    reference = onnx.OnnxEmbedder().embed_documents([text])[0]
    few = onnx.OnnxEmbedder()
    few.expect_documents(1)
    [vector] = few.embed_documents([text])
    assert few._document_session is None and few._query_session is None  # nothing folded
    assert sum(a * b for a, b in zip(vector, reference, strict=True)) > 0.9999
    many = onnx.OnnxEmbedder()
    many.expect_documents(onnx.QUICK_DOCUMENTS + 1)
    many.embed_documents([text])
    assert many._document_session is not None  # a batch builds the session meant for many

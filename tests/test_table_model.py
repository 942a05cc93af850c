"""The table's model governs: a table records the model that embedded it, a search compares a
query only with vectors of that model, and only the embedding pass changes the model (a
shared table only when asked). Real LanceDB tables; a real moto S3 server for shared tables;
the real models (e5 and MiniLM) where a path needs an installed backend."""

from __future__ import annotations

import pytest

from graphit_cli import embed
from graphit_cli.core.models import MemoryDraft
from graphit_cli.core.profiles import E5_MODEL, MINILM_MODEL
from graphit_cli.errors import InvalidInput
from graphit_cli.opening import open_service
from graphit_cli.service import upkeep
from graphit_cli.service.memory import MemoryService
from tests.embedders import HashingEmbedder
from tests.test_s3 import moto, no_aws_env, prefix, s3_env  # noqa: F401  (fixtures)

both_models = pytest.mark.skipif(
    not (embed.installed("e5") and embed.installed("onnx")), reason="needs e5 and MiniLM"
)
NOTES = [
    ("Release day", "We ship on Thursdays after the demo."),
    ("Logging", "Structured logs go to stderr as JSON lines."),
    ("Install with uv", "Python packages are installed with uv, never pip."),
    ("Primary database", "The primary database is PostgreSQL 16 on RDS."),
    ("Web app tooling", "Use pnpm for the web app, not npm."),
]


def _service(scope, model: HashingEmbedder) -> MemoryService:
    return MemoryService(open_service(scope).store, scope, embedder=lambda: model)


def _fill(svc: MemoryService) -> None:
    for title, body in NOTES:
        svc.upsert(MemoryDraft(title=title, body=body))


def test_a_local_table_of_another_model_is_re_embedded_resumably(
    scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = HashingEmbedder("test/old-model"), HashingEmbedder("test/new-model")
    first = _service(scope, old)
    _fill(first)
    assert first.embed().embedded == len(NOTES)
    svc = _service(scope, new)
    assert not svc.needs_embedding() and svc.needs_embedding(new.model_id)
    monkeypatch.setattr(upkeep, "EMBED_BATCH", 2)
    batches: list[int] = []
    progress: list[tuple[int, int]] = []
    report = svc.embed(
        progress=lambda done, total: (progress.append((done, total)), batches.append(done)),
        should_stop=lambda: len(batches) > 1,  # interrupted after its first batch
    )
    assert report.reembedded and report.embedded == 2 and report.model_id == new.model_id
    assert progress[0] == (0, len(NOTES))
    # The table now records the new model, and only its vectors are left in it: a search
    # compares the query with those two rows; the rest wait as unembedded rows.
    assert svc.store.embedding_model() == new.model_id
    assert svc.table_state().rows_with_vectors == 2 and svc.needs_embedding()
    assert svc.search("structured logs stderr", top_k=3).mode == "hybrid"
    resumed = svc.embed()
    assert not resumed.reembedded and resumed.embedded == len(NOTES) - 2
    assert svc.table_state().rows_with_vectors == len(NOTES)
    assert not svc.needs_embedding(new.model_id)


def test_no_search_compares_a_query_with_another_models_vectors(scope) -> None:
    """A process whose model is not the table's, with the table's model not installed,
    searches lexically and says why; vector mode is refused."""
    _fill(first := _service(scope, HashingEmbedder("test/old-model")))
    first.embed()
    svc = _service(scope, HashingEmbedder("test/new-model"))
    found = svc.search("structured logs stderr")
    assert found.mode == "fts" and "lexical search only" in (found.notice or "")
    assert "test/old-model" in (found.notice or "")
    assert [h.memory.title for h in found.hits] == ["Logging"]
    with pytest.raises(InvalidInput, match="vector search is not possible"):
        svc.search("structured logs stderr", mode="vector")


@both_models
def test_a_local_table_is_searched_with_its_own_model_until_re_embedded(
    cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    for title, body in NOTES:
        assert cli("memory", "upsert", "--title", title, "--body", body).exit_code == 0
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "onnx")
    assert cli("memory", "embed", "-f", "json").json()["model"] == MINILM_MODEL
    monkeypatch.delenv("GRAPHIT_EMBEDDER")  # the default, e5
    status = cli("memory", "status", "-f", "json").json()
    assert [s["model"] for s in status["scopes"] if s["state"]] == [MINILM_MODEL]
    found = cli("memory", "search", "what weekday are deployments", "-f", "json")
    assert found.exit_code == 0 and found.stderr == ""  # hybrid, with MiniLM's query vector
    assert [h["title"] for h in found.json()][:1] == ["Release day"]
    again = cli("memory", "embed", "-f", "json")
    assert again.exit_code == 0 and again.json()["reembedded"] and again.json()["model"] == E5_MODEL
    assert "model intfloat/multilingual-e5-small" in cli("memory", "status").stdout


@both_models
def test_a_shared_table_is_searched_and_filled_with_its_own_model(
    cli,
    s3_env,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "onnx")  # the table's model: its writes embed
    for title, body in NOTES:
        assert cli("memory", "upsert", "--title", title, "--body", body).exit_code == 0
    assert cli("memory", "embed").exit_code == 0
    monkeypatch.delenv("GRAPHIT_EMBEDDER")  # this machine's model is e5; the table's MiniLM
    found = cli("memory", "search", "what weekday are deployments", "-f", "json")
    assert found.exit_code == 0 and found.stderr == "", found.stderr
    assert [h["title"] for h in found.json()][:1] == ["Release day"]
    added = cli("memory", "upsert", "--title", "Backups", "--body", "Nightly backups go to S3.")
    assert added.exit_code == 0
    filled = cli("memory", "embed", "-f", "json")
    assert filled.exit_code == 0, filled.stderr
    assert filled.json()["model"] == MINILM_MODEL and not filled.json()["reembedded"]
    assert "model sentence-transformers/all-MiniLM-L6-v2" in cli("memory", "status").stdout
    rewritten = cli("memory", "embed", "--reembed", "-f", "json")  # asked for explicitly
    assert rewritten.exit_code == 0 and rewritten.json()["reembedded"]
    assert rewritten.json()["model"] == E5_MODEL and rewritten.json()["embedded"] == 6
    again = cli("memory", "search", "what weekday are deployments", "-f", "json")
    assert again.stderr == "" and [h["title"] for h in again.json()][:1] == ["Release day"]


def test_a_shared_table_of_a_model_not_installed_is_searched_lexically(
    cli,
    s3_env,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tests.embedders:HashingEmbedder")
    for title, body in NOTES:  # the writes embed with the table's model
        assert cli("memory", "upsert", "--title", title, "--body", body).exit_code == 0
    assert cli("memory", "embed").exit_code == 0  # test/hashing-384: installed nowhere else
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "onnx")
    found = cli("memory", "search", "structured logs stderr", "-f", "json")
    assert found.exit_code == 0 and [h["title"] for h in found.json()] == ["Logging"]
    notice = found.stderr.strip().splitlines()
    assert len(notice) == 1 and "lexical search only" in notice[0]
    assert "test/hashing-384" in notice[0]
    refused = cli("memory", "embed")  # never rewritten without being asked
    assert refused.exit_code == InvalidInput.exit_code and "--reembed" in refused.stderr
    rewritten = cli("memory", "embed", "--reembed", "-f", "json")
    assert rewritten.exit_code == 0 and rewritten.json()["model"] == MINILM_MODEL
    after = cli("memory", "search", "structured logs stderr", "-f", "json")
    assert after.stderr == "" and [h["title"] for h in after.json()][:1] == ["Logging"]

"""The packaged all-MiniLM-L6-v2 model, for real: loaded once per test session, fully offline."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphit_cli.access.opening import open_service
from graphit_cli.core.models import MemoryDraft
from graphit_cli.embed import Embedder, load_default, model_available
from graphit_cli.service.memory import MemoryService

pytestmark = pytest.mark.skipif(not model_available(), reason="embedding model not installed")


@pytest.fixture(scope="session")
def model() -> Embedder:
    embedder = load_default()
    assert embedder is not None
    return embedder


def test_model_is_the_packaged_minilm(model: Embedder) -> None:
    assert model.model_id == "sentence-transformers/all-MiniLM-L6-v2" and model.dim == 384
    [a, b, c] = model.embed_documents(
        ["The cat sleeps on the sofa.", "A kitten naps on the couch.", "Quarterly tax filing."]
    )
    cosine = lambda x, y: sum(p * q for p, q in zip(x, y, strict=True))  # noqa: E731
    assert abs(cosine(a, a) - 1.0) < 1e-4  # normalised
    assert cosine(a, b) > cosine(a, c) + 0.2


def test_semantic_match_without_shared_words(scope, model: Embedder) -> None:  # type: ignore[no-untyped-def]
    svc = MemoryService(open_service(scope).store, scope, embedder=lambda: model)
    uv = svc.upsert(
        MemoryDraft(
            title="Install with uv", body="Python packages are installed with uv, never pip."
        )
    ).memory.id
    svc.upsert(MemoryDraft(title="Release day", body="We ship on Thursdays after the demo."))
    svc.upsert(MemoryDraft(title="Logging", body="Structured logs go to stderr as JSON lines."))
    report = svc.embed()
    assert report.embedded == 3 and report.model_id == model.model_id
    release = svc.search("what weekday are deployments", top_k=1)
    assert svc.search("what weekday are deployments", mode="fts").hits == []  # no shared word
    assert release.mode == "hybrid" and [h.memory.title for h in release.hits] == ["Release day"]
    # Close in meaning (cosine 0.42): found without a shared word. Unrelated: nothing.
    assert [h.memory.id for h in svc.search("package manager for python").hits] == [uv]
    assert svc.search("xylophone quantum banana").hits == []


PROJECT = Path(__file__).parent / "fixtures" / "projects" / "engineering.jsonl"


def test_a_realistic_project_shows_what_the_question_is_about(cli, model: Embedder) -> None:  # type: ignore[no-untyped-def]
    """30 realistic engineering memories, the real model, through the CLI: "which database do
    we use" shows the database memory and no memory that shares only "use" with it; a query
    about nothing shows nothing."""
    loaded = cli("memory", "upsert", "-", "-f", "json", input=PROJECT.read_text())
    assert loaded.exit_code == 0, loaded.stderr
    titles = {m["id"]: m["title"] for m in loaded.json()}
    assert len(titles) == 30
    assert cli("memory", "embed").exit_code == 0
    result = cli("memory", "search", "which database do we use", "-f", "json")
    assert result.exit_code == 0 and result.stderr == ""
    shown = [titles[h["id"]] for h in result.json()]
    assert "Primary database is PostgreSQL 16" in shown
    for only_use in ("Use pnpm for the web app", "Use the shared HTTP client"):
        assert only_use not in shown, shown
    assert len(shown) <= 3, shown
    nothing = cli("memory", "search", "xylophone quantum banana", "-f", "json")
    assert nothing.exit_code == 0 and nothing.stdout.strip() in ("", "[]")

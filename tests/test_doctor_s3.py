"""`memory doctor` on an S3 table (moto's server on 127.0.0.1): lance keeps no record there of
the newest version it committed (locally `latest_version_hint.json`), so whether the newest
commit is there cannot be checked; doctor says so ("unchecked") rather than vouching for it,
and still passes a whole table (exit 0)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROJECT_ID
from tests.s3_harness import moto_with_bucket

BUCKET = "graphit-doctor-s3"


moto = moto_with_bucket(BUCKET)


def test_doctor_on_s3_says_the_newest_commit_is_unchecked(
    moto: Any, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.s3_harness import use_moto

    monkeypatch.setenv("GRAPHIT_PROJECT_ID", PROJECT_ID)
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tests.embedders:HashingEmbedder")
    use_moto(monkeypatch, moto.endpoint, BUCKET, f"d-{uuid.uuid4().hex[:12]}", tmp_path)
    for n in range(2):
        assert cli("memory", "upsert", "--title", f"n {n}", "--body", f"b {n}").exit_code == 0
    listed = moto.client("s3").list_objects_v2(Bucket=BUCKET)["Contents"]
    assert not any(o["Key"].endswith("latest_version_hint.json") for o in listed)
    checked = cli("memory", "doctor", "-f", "json")
    assert checked.exit_code == 0, checked.stdout + checked.stderr
    history = [f for scope in checked.json() for f in scope["findings"] if f["check"] == "history"]
    assert history and history[0]["status"] == "unchecked", history

"""An attached project in S3 mode: that project's table is opened directly, read-only."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")

from tests.s3_harness import MotoServer, moto_with_bucket, use_moto

BUCKET = "graphit-portability"
OTHER_PROJECT = "01JE0000000000000000000077"


moto = moto_with_bucket(BUCKET)


@pytest.fixture
def s3_env(moto: MotoServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    prefix = f"t-{uuid.uuid4().hex[:12]}"
    use_moto(monkeypatch, moto.endpoint, BUCKET, prefix, tmp_path)
    return prefix


def test_attach_a_remote_project(
    cli, s3_env: str, moto: MotoServer, graphit_home: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GRAPHIT_PROJECT_ID", OTHER_PROJECT)
    made = cli(
        "memory",
        "upsert",
        "-f",
        "json",
        "--title",
        "Backend retries",
        "--body",
        "Retry idempotent calls three times.",
        "--mandatory",
    )
    assert made.exit_code == 0, made.stderr
    other_id = made.json()[0]["id"]
    monkeypatch.delenv("GRAPHIT_PROJECT_ID")

    added = cli("memory", "context", "add", "backend", "--project", OTHER_PROJECT, "--recall")
    assert added.exit_code == 0, added.stderr
    found = cli("memory", "list", "--scope", "context:backend", "-f", "json").json()
    assert [m["id"] for m in found] == [other_id]
    assert not (graphit_home / "memory" / "memory-context-backend").exists()  # nothing copied
    recalled = cli("memory", "recall", "-f", "json").json()
    assert [(m["id"], m["scope"]) for m in recalled["mandatory"]] == [(other_id, "context:backend")]
    refused = cli("memory", "delete", other_id, "--yes", "--scope", "context:backend")
    assert refused.exit_code == 6 and "attached read-only" in refused.stderr

    keys = lambda: sorted(  # noqa: E731
        item["Key"]
        for item in moto.client("s3")
        .list_objects_v2(Bucket=BUCKET, Prefix=f"{s3_env}/v2/projects/{OTHER_PROJECT}/")
        .get("Contents", [])
    )
    before = keys()
    assert before
    assert cli("memory", "context", "remove", "backend", "--yes").exit_code == 0
    assert keys() == before  # the remote table is never deleted

"""Consolidation on an S3 table (moto): report from stored vectors, apply, undo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_consolidate import FILLER
from tests.test_s3 import moto, no_aws_env, prefix, s3_env  # noqa: F401  (fixtures)


@pytest.mark.slow
def test_consolidate_on_s3(cli, s3_env, monkeypatch, tmp_path: Path) -> None:  # noqa: F811
    def upsert(title: str, body: str, *flags: str) -> str:
        done = cli("memory", "upsert", "--title", title, "--body", body, *flags, "-f", "json")
        assert done.exit_code == 0, done.stderr
        return str(done.json()[0]["id"])

    # The table's model is the hashing one: the writes embed with it (a shared table is never
    # re-embedded unasked).
    monkeypatch.setenv("GRAPHIT_EMBEDDER", "tests.embedders:HashingEmbedder")
    a = upsert("Use uv", "We install Python packages with uv, never pip.", "--important")
    b = upsert("Install with uv", "Python packages are installed with uv, never with pip.")
    for title, body in FILLER:
        upsert(title, body)
    assert cli("memory", "embed").exit_code == 0

    report = cli("memory", "consolidate", "--threshold", "0.6", "-f", "json")
    assert report.exit_code == 0, report.stderr
    [group] = report.json()["groups"]
    assert sorted(group["ids"]) == sorted([a, b]) and group["keep_id"] == a
    plan = {
        "version": 1,
        "actions": [
            {
                "action": "merge",
                "ids": group["ids"],
                "keep_id": a,
                "revisions": {m["id"]: m["revision"] for m in group["members"]},
            }
        ],
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    done = cli("memory", "consolidate", "--plan", str(path), "--apply", "-f", "json")
    assert done.exit_code == 0, done.stderr
    assert [e["action"] for e in done.json()["applied"]] == ["merge"]
    live = [m["id"] for m in cli("memory", "list", "-f", "json").json()]
    assert a in live and b not in live

    undone = cli("memory", "consolidate", "undo", done.json()["log"], "-f", "json")
    assert undone.exit_code == 0, undone.stderr
    assert undone.json()["refused"] == [] and len(undone.json()["applied"]) == 2
    restored = cli("memory", "source", b, "-f", "json").json()
    assert restored["body"] == "Python packages are installed with uv, never with pip."

"""The first writes of a new scope, from several processes at once: each lands once or fails in
words; none is lost, none is an internal error (exit 1), and no creation ever overwrites a
table that holds rows. Real processes on a real table (locally, and on moto's S3 on 127.0.0.1),
released together from a file barrier once graphit is loaded.

`benchmarks/first_writes.py` runs the same race many times and prints the counts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROJECT_ID
from tests.s3_harness import moto_with_bucket

ROOT = Path(__file__).resolve().parent.parent

# One writer: graphit loaded before the barrier, then `graphit memory upsert` in-process.
WRITER = r"""
import io, json, os, sys, time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import lance, lancedb, pyarrow
from graphit_cli.cli import main

Path(os.environ["FW_READY"]).touch()
go = Path(os.environ["FW_GO"])
deadline = time.monotonic() + 120  # bounds a hang only
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("no start signal")
    time.sleep(0.001)
title = os.environ["FW_TITLE"]
sys.argv = ["graphit", "memory", "upsert", "--title", title, "--body", "first " + title]
err = io.StringIO()
code = 0
with redirect_stdout(io.StringIO()), redirect_stderr(err):
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
print(json.dumps({"title": title, "code": code, "stderr": err.getvalue()}))
"""


def race(workdir: Path, writers: int, env: dict[str, str]) -> list[dict[str, object]]:
    """`writers` processes write one new memory each into a scope without a table."""
    procs = []
    for n in range(writers):
        worker_env = {
            **env,
            "FW_READY": str(workdir / f"ready-{n}"),
            "FW_GO": str(workdir / "go"),
            "FW_TITLE": f"first write {n}",
            "GRAPHIT_AUTHOR": f"writer-{n}",
        }
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WRITER],
                cwd=workdir,
                env=worker_env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    deadline = time.monotonic() + 120
    while not all((workdir / f"ready-{n}").exists() for n in range(writers)):
        assert time.monotonic() < deadline, "a writer never got ready"
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    (workdir / "go").touch()
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    return reports


def check(reports: list[dict[str, object]], workdir: Path, env: dict[str, str]) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "graphit_cli", "memory", "list", "-f", "json"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    titles = Counter(m["title"] for m in json.loads(listed.stdout))
    for report in reports:
        assert report["code"] != 1, report  # never an internal error
        if report["code"] == 0:  # acknowledged: there, once
            assert titles[report["title"]] == 1, (report, titles)
        else:  # refused: in words
            assert "Error:" in str(report["stderr"]) and ".rs:" not in str(report["stderr"])
    assert sum(1 for r in reports if r["code"] == 0) == sum(titles.values())


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    return {
        **env,
        "GRAPHIT_HOME": str(home),
        "GRAPHIT_PROJECT_ID": PROJECT_ID,
        "GRAPHIT_NO_DAEMON": "1",
        "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder",
        "PYTHONPATH": os.environ.get("PYTHONPATH") or str(ROOT),
        **extra,
    }


moto = moto_with_bucket("first-writes")


def _s3_env(home: Path, moto: Any, prefix: str, tmp_path: Path) -> dict[str, str]:
    from tests.s3_harness import REGION, TEST_KEY

    env = {k: v for k, v in _env(home).items() if not k.startswith("AWS_")}
    return {
        **env,
        "GRAPHIT_PROVIDER": "s3",
        "GRAPHIT_S3_BUCKET": "first-writes",
        "GRAPHIT_S3_PREFIX": prefix,
        "GRAPHIT_S3_ENDPOINT": moto.endpoint,
        "AWS_ACCESS_KEY_ID": TEST_KEY,
        "AWS_SECRET_ACCESS_KEY": TEST_KEY,
        "AWS_REGION": REGION,
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-credentials"),
        "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def test_concurrent_first_writes_to_a_local_scope_all_land(tmp_path: Path) -> None:
    env = _env(tmp_path / "home")
    check(race(tmp_path, 4, env), tmp_path, env)


def test_concurrent_first_writes_to_an_s3_scope_all_land(tmp_path: Path, moto: object) -> None:
    env = _s3_env(tmp_path / "home", moto, "default-tier", tmp_path)
    check(race(tmp_path, 4, env), tmp_path, env)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", "s3"])
def test_eight_first_writers_lose_nothing_over_several_rounds(
    tmp_path: Path, moto: object, backend: str
) -> None:
    for round_ in range(5):
        workdir = tmp_path / f"round-{round_}"
        workdir.mkdir()
        home = workdir / "home"
        env = _env(home) if backend == "local" else _s3_env(home, moto, f"r{round_}", tmp_path)
        check(race(workdir, 8, env), workdir, env)


def test_a_creation_never_lands_on_a_table_that_holds_rows(service, scope) -> None:
    """What lance does with a creation that lost its first commit is retry it against the
    newer version, as an overwrite of the winner's table: only version 1 can be a creation."""
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.store.creation import (
        TableExists,
        create_first_version,
        first_version_only,
        table_location,
    )
    from graphit_cli.store.schema import memory_schema

    service.upsert(MemoryDraft(title="kept", body="written before the late creator"))
    before = service.store.version()
    with pytest.raises(TableExists):
        first_version_only(before + 1)  # the version a rebased creation would commit
    location = table_location(str(scope.local_path()))
    assert create_first_version(location, memory_schema(384), None) is False
    service.store.refresh()
    assert service.store.version() == before
    assert [m.title for m in service.catalogue()] == ["kept"]


def test_every_kind_of_lost_commit_is_contention() -> None:
    """Configuration, index and schema commits that lance will not rebase are retried like any
    lost commit (never an internal error)."""
    from graphit_cli.store.failures import is_commit_conflict

    for text in (
        "lance error: Incompatible transaction: This UpdateConfig transaction is incompatible"
        " with concurrent transaction UpdateConfig at version 16., /x/conflict_resolver.rs:1:2",
        "Incompatible transaction: This CreateIndex transaction is incompatible with concurrent"
        " transaction Overwrite at version 8.",
        "lance error: Commit conflict for version 3: a concurrent writer won",
        "lance error: Retryable commit conflict for version 2: preempted. Please retry.",
    ):
        assert is_commit_conflict(RuntimeError(text)), text
    assert not is_commit_conflict(RuntimeError("lance error: Not found: /t/data/x.lance"))

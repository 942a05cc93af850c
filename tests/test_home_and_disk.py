"""Errors name their cause: a GRAPHIT_HOME under a regular file is "not a
directory", a first write on a full disk is "the disk is full" and leaves no half-made table
behind (so the write works once space returns). The full disk is a real one: a tiny tmpfs in
a user and mount namespace (skipped where the machine allows none)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import run_graphit

ROOT = Path(__file__).resolve().parent.parent


def test_a_home_under_a_file_is_reported_as_that(project_dir: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for home in (blocker, blocker / "home"):
        result = run_graphit("memory", "list", cwd=project_dir, env={"GRAPHIT_HOME": str(home)})
        assert result.returncode == 7, result.stderr
        line = result.stderr.strip()
        assert len(line.splitlines()) == 1
        assert "GRAPHIT_HOME" in line and f"{blocker} is a file" in line, line
        assert "providers.json" not in line and "config.toml" not in line


def _namespaces() -> bool:
    if shutil.which("unshare") is None or not sys.platform.startswith("linux"):
        return False
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _namespaces(), reason="no user and mount namespaces here")
def test_a_first_write_on_a_full_disk_says_so_and_leaves_nothing(
    project_dir: Path, tmp_path: Path
) -> None:
    mount = tmp_path / "small"
    mount.mkdir()
    script = textwrap.dedent(
        f"""
        mount -t tmpfs -o size=64k none {mount} || exit 99
        export GRAPHIT_HOME={mount}/home PYTHONPATH={ROOT}
        note='---
        title: first
        ---
        the first memory'
        printf '%s\\n' "$note" | {sys.executable} -m graphit_cli memory upsert - 2>&1
        echo "rc=$?"
        find {mount}/home/memory -name '*.lance' -o -name _versions
        mount -o remount,size=64m {mount}
        printf '%s\\n' "$note" | {sys.executable} -m graphit_cli memory upsert - >/dev/null 2>&1
        echo "rc=$?"
        {sys.executable} -m graphit_cli memory list --format json
        """
    )
    result = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        cwd=project_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if "rc=" not in result.stdout:
        pytest.skip(f"no tmpfs in a namespace here: {result.stderr.strip()[:200]}")
    lines = result.stdout.splitlines()
    first = lines[0]
    assert "disk is full" in first and "no memory table" not in first, result.stdout
    assert ".rs:" not in first
    assert lines[1] == "rc=7", result.stdout
    assert lines[2] == "rc=0", result.stdout  # nothing left behind: no `.lance`, no _versions
    assert '"title": "first"' in result.stdout


@pytest.mark.skipif(not _namespaces(), reason="no user and mount namespaces here")
def test_a_read_only_home_is_reported_as_that(project_dir: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    script = textwrap.dedent(
        f"""
        mount --bind {home} {home} && mount -o remount,bind,ro {home} || exit 99
        export GRAPHIT_HOME={home} PYTHONPATH={ROOT}
        {sys.executable} -m graphit_cli memory upsert --title t --body b 2>&1
        echo "rc=$?"
        """
    )
    result = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        cwd=project_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if "rc=" not in result.stdout:
        pytest.skip(f"no read-only bind mount in a namespace here: {result.stderr.strip()[:200]}")
    assert result.stdout.splitlines()[-1] == "rc=7", result.stdout
    assert "read-only file system" in result.stdout and "internal error" not in result.stdout

"""A full disk during `memory maintain` is exit 7 in words ("the disk is full"), never an
internal error with the library's text; the table stays whole, and once space returns the
same pass works. The full disk is a real one: a small tmpfs in a user and mount namespace
(skipped where the machine allows none), filled to the last byte after the writes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.test_home_and_disk import _namespaces

ROOT = Path(__file__).resolve().parent.parent
# Six memories in six commits (six small fragments: a maintenance pass has files to write).
WRITES = (
    "from graphit_cli.access.providers import resolve_scope;"
    "from graphit_cli.core.models import MemoryDraft;"
    "from graphit_cli.opening import open_service;"
    "service = open_service(resolve_scope('project'));"
    "[service.upsert(MemoryDraft(title=f'note {n}', body=f'note {n} on topic {n * 7}'))"
    " for n in range(1, 7)]"
)


@pytest.mark.slow  # five processes, each a cold start, and a maintenance pass
@pytest.mark.skipif(not _namespaces(), reason="no user and mount namespaces here")
def test_maintain_on_a_full_disk_says_so_and_keeps_the_table(
    project_dir: Path, tmp_path: Path
) -> None:
    mount = tmp_path / "small"
    mount.mkdir()
    graphit = f"{sys.executable} -m graphit_cli"
    script = textwrap.dedent(
        f"""
        mount -t tmpfs -o size=8m none {mount} || exit 99
        export GRAPHIT_HOME={mount}/home PYTHONPATH={ROOT} GRAPHIT_NO_DAEMON=1
        export GRAPHIT_EMBEDDER=tests.embedders:HashingEmbedder
        {sys.executable} -c "{WRITES}" || exit 98
        cat /dev/zero > {mount}/filler 2>/dev/null
        {graphit} memory maintain --force 2>&1
        echo "rc=$?"
        rm {mount}/filler
        {graphit} memory doctor >/dev/null 2>&1
        echo "rc=$?"
        {graphit} memory maintain --force >/dev/null 2>&1
        echo "rc=$?"
        {graphit} memory list --format json --limit 100
        """
    )
    result = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        cwd=project_dir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if "rc=" not in result.stdout:
        if result.returncode == 99:
            pytest.skip(f"no tmpfs in a namespace here: {result.stderr.strip()[:200]}")
        pytest.fail(f"the writes before the full disk failed: {result.stdout}{result.stderr}")
    lines = result.stdout.splitlines()
    full = lines[0]
    assert full.startswith("Error: ") and "disk" in full and "full" in full, result.stdout
    assert "internal error" not in full and ".rs:" not in full and "lance" not in full.lower()
    assert lines[1] == "rc=7", result.stdout
    assert lines[2] == "rc=0", result.stdout  # doctor: the table is whole after the refusal
    assert lines[3] == "rc=0", result.stdout  # space is back: the same pass works
    for n in range(1, 7):
        assert f'"title": "note {n}"' in result.stdout

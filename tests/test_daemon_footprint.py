"""The daemon's malloc settings (daemon/footprint.py): applied on glibc, the environment wins."""

from __future__ import annotations

import ctypes.util
import subprocess
import sys

import pytest

from graphit_cli.daemon import footprint

GLIBC = sys.platform.startswith("linux") and "libc.so.6" in (ctypes.util.find_library("c") or "")


def _in_child(code: str, **env: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's")
def test_arenas_are_capped_unless_the_environment_says_otherwise() -> None:
    code = (
        "from graphit_cli.daemon import footprint\n"
        "print(footprint.limit_malloc_arenas())\n"
        "footprint.release_free_memory()\n"
    )
    import os

    base = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    assert _in_child(code, **base) == "True"
    assert _in_child(code, **base, MALLOC_ARENA_MAX="8") == "False"


def test_the_daemon_caps_its_arenas_before_its_threads_start() -> None:
    import inspect

    from graphit_cli.daemon.process import Daemon

    source = inspect.getsource(Daemon.run)
    assert source.index("limit_malloc_arenas()") < source.index("self.start()")
    assert footprint.ARENAS == 2

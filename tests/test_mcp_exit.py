"""The MCP server exits promptly when its input closes, whatever its warm-up is doing.

A client sends `initialize` and a tool call holding a lone surrogate (refused in words), then
closes the server's stdin while the background thread is loading the embedding model (a test
model whose loading takes minutes). The server answers both, then exits 0 well before the
load would end: it does not wait for a warm-up still importing or loading
(mcp/stdio.py, "Stopping").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests import mcp_wire
from tests.conftest import PROJECT_ID
from tests.polling import wait_for

REPO = Path(__file__).resolve().parent.parent
LOAD_SECONDS = 600  # the test model's loading: far past the bound below
EXIT_BOUND = 90.0  # seconds from the end of input to the exit: a hang bound, not a speed check


def test_exits_promptly_when_input_closes_during_the_model_load(
    project_dir: Path, tmp_path: Path
) -> None:
    loading = tmp_path / "loading"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHIT_")}
    env.update(
        GRAPHIT_HOME=str(tmp_path / "home"),
        GRAPHIT_PROJECT_ID=PROJECT_ID,
        GRAPHIT_NO_DAEMON="1",
        GRAPHIT_EMBEDDER="tests.embedders:slow_to_load",
        TEST_MODEL_LOAD_SECONDS=str(LOAD_SECONDS),
        TEST_MODEL_LOADING=str(loading),
        PYTHONPATH=os.environ.get("PYTHONPATH") or str(REPO),
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "mcp"],
        cwd=project_dir,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    answers: list[dict[str, Any]] = []

    def read() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            answers.append(json.loads(line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert server.stdin is not None
    try:
        for message in (
            *mcp_wire.opening("2025-06-18"),
            mcp_wire.insert(2, "lone", "half a pair: \ud800 here"),
        ):
            server.stdin.write((json.dumps(message) + "\n").encode())  # "\ud800" escaped
        server.stdin.flush()
        wait_for(lambda: {a.get("id") for a in answers} >= {1, 2}, 300, seen=lambda: answers)
        wait_for(loading.exists, 300)  # the warm-up is inside the model's loading
        server.stdin.close()
        closed = time.monotonic()
        code = server.wait(timeout=EXIT_BOUND + 60)
        took = time.monotonic() - closed
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.stderr is not None
    stderr = server.stderr.read().decode(errors="replace")
    assert code == 0, stderr
    assert took < EXIT_BOUND, f"exited {took:.0f} s after its input closed"
    assert "Traceback" not in stderr and "Fatal Python error" not in stderr, stderr
    refusal = next(a for a in answers if a.get("id") == 2)
    assert "surrogate" in json.dumps(refusal), refusal

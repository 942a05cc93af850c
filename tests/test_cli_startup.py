"""`graphit --help` and TAB completion stay fast: no heavy library is imported on their way.

Each case runs the real entry point in a fresh interpreter (a module imported by an earlier test
would hide the problem in-process) and reports which heavy modules ended up in sys.modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_graphit

HEAVY = (
    "lancedb",
    "lance",
    "pyarrow",
    "numpy",
    "torch",
    "sentence_transformers",
    "onnxruntime",
    "tokenizers",
    "mcp",
    "mcp_types",
)

# Runs `graphit ARGS...` through graphit_cli.cli.main, then reports on stderr's last line.
PROBE = """
import json, sys
heavy = json.loads(sys.argv[1])
sys.argv = ["graphit", *sys.argv[2:]]
from graphit_cli.cli import main
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(heavy))
sys.stdout.flush()
print(json.dumps({"exit": code, "heavy": loaded}), file=sys.stderr)
"""


def probe(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, list[str], str]:
    """(exit code, heavy modules loaded, stdout) of `graphit ARGS...` in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stderr.strip().splitlines()[-1])
    return report["exit"], report["heavy"], result.stdout


@pytest.mark.smoke
@pytest.mark.parametrize(
    "args",
    [("--help",), ("memory", "--help"), ("memory", "upsert", "--help"), ("-h",)],
    ids=["root", "memory", "memory-upsert", "short-h"],
)
def test_help_imports_nothing_heavy(args: tuple[str, ...], tmp_path: Path) -> None:
    code, heavy, stdout = probe(*args, cwd=tmp_path)
    assert code == 0
    assert heavy == [], f"`graphit {' '.join(args)}` imported {heavy}"
    assert stdout.startswith("Usage: graphit")


def test_tab_completion_imports_nothing_heavy(tmp_path: Path) -> None:
    env = {
        "_GRAPHIT_COMPLETE": "complete_bash",
        "COMP_WORDS": "graphit memory u",
        "COMP_CWORD": "2",
    }
    code, heavy, stdout = probe(cwd=tmp_path, env=env)
    assert code == 0
    assert heavy == []
    assert stdout.split() == ["upsert"]


def test_probe_sees_heavy_imports(tmp_path: Path) -> None:
    # A command that creates a table does load lancedb: proof the probe is not vacuous. (A
    # read of a scope without a table opens none, and imports nothing of the store's.)
    args = ("memory", "upsert", "--user", "--title", "t", "--body", "b", "--format", "json")
    code, heavy, _ = probe(*args, cwd=tmp_path)
    assert code == 0
    assert "lancedb" in heavy


def test_help_and_short_h_through_the_module_entry_point(tmp_path: Path) -> None:
    long = run_graphit("--help", cwd=tmp_path)
    short = run_graphit("-h", cwd=tmp_path)
    assert (long.returncode, long.stderr) == (0, "")
    assert long.stdout.startswith("Usage: graphit [OPTIONS] COMMAND [ARGS]...")
    assert "Exit codes:" in long.stdout
    assert (short.returncode, short.stdout, short.stderr) == (0, long.stdout, "")

    sub = run_graphit("memory", "upsert", "-h", cwd=tmp_path)
    assert (sub.returncode, sub.stderr) == (0, "")
    assert sub.stdout.startswith("Usage: graphit memory upsert [OPTIONS]")


# Each command is a fresh interpreter (what it imports is the subject): the default tier runs
# one of each kind (a write, a read, a search, a delete), the slow tier every command.
EVERY_COMMAND = ("update", "create", "list", "source", "fts search", "hybrid search", "history")


@pytest.mark.parametrize(
    "picked",
    [
        pytest.param(("update", "create", "list", "hybrid search"), id="one-of-each"),
        pytest.param(EVERY_COMMAND, id="every-command", marks=pytest.mark.slow),
    ],
)
def test_commands_on_an_existing_local_table_never_import_lancedb(
    project_dir: Path, picked: tuple[str, ...]
) -> None:
    # A cold command goes through pylance (store/engine.py): `import lancedb` costs more than
    # the rest of a `list` at 10k rows. Creating the table is LanceDB's (with its indexes).
    env = {"GRAPHIT_NO_DAEMON": "1"}
    code, heavy, stdout = probe(
        "memory", "upsert", "--title", "Deploy with blue-green", "--body", "Flip the router.",
        "--format", "json", cwd=project_dir, env=env,
    )  # fmt: skip
    assert (code, "lancedb" in heavy) == (0, True)
    memory_id = json.loads(stdout)[0]["id"]
    commands = {
        "update": ("memory", "upsert", "--id", memory_id, "--body", "Flip the router at noon."),
        "create": ("memory", "upsert", "--title", "Gone soon", "--body", "x", "-f", "json"),
        "list": ("memory", "list", "--limit", "5", "--format", "json"),
        "source": ("memory", "source", memory_id),
        "fts search": ("memory", "search", "blue-green", "--mode", "fts", "--format", "json"),
        "hybrid search": ("memory", "search", "router deploy", "--format", "json"),
        "history": ("memory", "history", memory_id, "--format", "json"),
    }
    assert set(commands) == set(EVERY_COMMAND)
    outputs = {}
    for name in picked:
        code, heavy, outputs[name] = probe(*commands[name], cwd=project_dir, env=env)
        assert code == 0, name
        assert "lancedb" not in heavy, f"`{name}` imported lancedb"
    for name in {"list", "source", "fts search", "hybrid search", "history"} & set(picked):
        assert memory_id in outputs[name], name
    assert "source" not in picked or "at noon" in outputs["source"]
    assert "update" not in picked or "at noon" in json.dumps(outputs.get("list", ""))
    gone = json.loads(outputs["create"])[0]["id"]
    code, heavy, _ = probe("memory", "delete", gone, "--yes", cwd=project_dir, env=env)
    assert (code, "lancedb" in heavy) == (0, False)
    code, _, listed = probe("memory", "list", "--format", "json", cwd=project_dir, env=env)
    assert [m["id"] for m in json.loads(listed)] == [memory_id]


@pytest.mark.parametrize("command", ["upsert", "list", "search"])
def test_a_reader_that_leaves_early_is_no_error(
    command: str, cli, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `graphit memory upsert ... | head -c 0`: the pipe closes before graphit writes to it.
    # The write has happened; the command exits 0 and says nothing on stderr. The seed and the
    # list after are the CLI's in this process: the piped command is the one under test.
    monkeypatch.setenv("GRAPHIT_NO_DAEMON", "1")
    env = {**os.environ}
    seed = cli("memory", "upsert", "--title", "Seed", "--body", "s")
    assert seed.exit_code == 0, seed.stderr
    args = {
        "upsert": ("memory", "upsert", "--title", "Piped", "--body", "b", "-f", "json"),
        "list": ("memory", "list", "-f", "json"),
        "search": ("memory", "search", "seed", "--mode", "fts", "-f", "json"),
    }[command]
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", *args],
        cwd=project_dir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # long before the interpreter has started and written anything
    _, stderr = proc.communicate(timeout=120)
    assert (proc.returncode, stderr) == (0, "")
    titles = {m["title"] for m in cli("memory", "list", "-f", "json").json()}
    assert titles == ({"Seed", "Piped"} if command == "upsert" else {"Seed"})

"""The real clients accept every file `graphit agent install` writes (slow tier).

Claude Code, Codex and Gemini CLI are installed from npm into a cache directory (once; then
reused): `$GRAPHIT_AGENT_CLIENTS`, else ~/.cache/graphit-agent-clients. Each test installs graphit
at one level into a HOME of its own and asks the client's own command to list the server: `claude
mcp get graphit` and `claude mcp list`, `codex mcp list`, `gemini mcp list`. No model is called.
The project is trusted the way each client's user trusts it (Codex's projects table, Gemini's
trustedFolders.json); Claude Code lists a project server as pending approval until the user
approves it in `claude`. Skipped only when npm itself is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PACKAGES = [
    "@anthropic-ai/claude-code@2.1.197",
    "@openai/codex@0.171.0",
    "@google/gemini-cli@0.61.0",
]
BINARIES = ("claude", "codex", "gemini")


@pytest.fixture(scope="module")
def clients_bin() -> Path:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the real clients are installed from npm")
    raw = os.environ.get("GRAPHIT_AGENT_CLIENTS", "").strip()
    cache = Path(raw) if raw else Path.home() / ".cache" / "graphit-agent-clients"
    found = cache / "node_modules" / ".bin"
    if not all((found / name).exists() for name in BINARIES):
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund", *PACKAGES],
            check=True,
            capture_output=True,
            timeout=1800,
        )
    return found


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    return home


def _client(clients_bin: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": os.pathsep.join(
            [str(Path(sys.executable).parent), str(clients_bin), os.environ["PATH"]]
        ),
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "NO_COLOR": "1",
    }
    return subprocess.run(
        [str(clients_bin / argv[0]), *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_claude_code_lists_the_project_and_the_user_server(
    cli, clients_bin: Path, project_dir: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    assert cli("agent", "install", "claude-code").exit_code == 0
    got = _client(clients_bin, project_dir, "claude", "mcp", "get", "graphit")
    assert got.returncode == 0, got.stdout + got.stderr
    assert "Project config" in got.stdout and "Command: graphit" in got.stdout, got.stdout
    assert "Args: memory mcp" in got.stdout
    listed = _client(clients_bin, project_dir, "claude", "mcp", "list")
    assert listed.returncode == 0 and "graphit" in listed.stdout, listed.stdout + listed.stderr
    assert "nvalid" not in listed.stderr, listed.stderr  # the settings.json with our hooks too
    assert cli("agent", "uninstall", "claude-code").exit_code == 0

    assert cli("agent", "install", "claude-code", "--user").exit_code == 0
    got = _client(clients_bin, project_dir, "claude", "mcp", "get", "graphit")
    assert got.returncode == 0, got.stdout + got.stderr
    assert "User config" in got.stdout and "memory mcp" in got.stdout, got.stdout
    command = next(line for line in got.stdout.splitlines() if "Command:" in line)
    assert Path(command.split("Command:")[1].strip()).is_absolute()


def test_codex_lists_the_project_server_in_a_trusted_project_and_the_user_server(
    cli, clients_bin: Path, project_dir: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{project_dir}"]\ntrust_level = "trusted"\n')  # as Codex asks
    result = cli("agent", "install", "codex")
    assert result.exit_code == 0 and "trust the project" in result.stderr
    assert (project_dir / ".codex" / "config.toml").is_file()
    listed = _client(clients_bin, project_dir, "codex", "mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    [row] = [line for line in listed.stdout.splitlines() if line.startswith("graphit ")]
    assert "memory mcp" in row and "enabled" in row, listed.stdout
    assert cli("agent", "uninstall", "codex").exit_code == 0

    assert cli("agent", "install", "codex", "--user").exit_code == 0
    assert config.read_text().startswith(f'[projects."{project_dir}"]\ntrust_level = "trusted"\n')
    listed = _client(clients_bin, project_dir, "codex", "mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    [row] = [line for line in listed.stdout.splitlines() if line.startswith("graphit ")]
    assert "memory mcp" in row


def test_gemini_lists_the_server_from_settings_with_comments(  # not trailing commas: it refuses
    cli, clients_bin: Path, project_dir: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    (home / ".gemini").mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(f'{{"{project_dir}": "TRUST_FOLDER"}}')
    settings = project_dir / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{\n  // the team\'s settings\n  "mcpServers": {\n'
        '    "other": {"command": "true", "args": ["-x"]} /* compact */\n  }\n}\n'
    )
    result = cli("agent", "install", "gemini")
    assert result.exit_code == 0 and "trust this folder" in result.stderr
    listed = _client(clients_bin, project_dir, "gemini", "mcp", "list")
    said = listed.stdout + listed.stderr  # Gemini CLI prints the list on stderr
    assert listed.returncode == 0, said
    # Listed from the file; whether it connects within Gemini's probe is the server's start.
    assert "graphit: graphit memory mcp (stdio)" in said, said
    assert "other: true -x (stdio)" in said  # theirs, read from the same file
    assert "Error in" not in said and "fix the configuration" not in said, said
    assert cli("agent", "uninstall", "gemini").exit_code == 0

    assert cli("agent", "install", "gemini", "--user").exit_code == 0
    listed = _client(clients_bin, project_dir, "gemini", "mcp", "list")
    said = listed.stdout + listed.stderr
    assert listed.returncode == 0, said
    [row] = [line for line in said.splitlines() if "graphit:" in line]
    assert "/graphit memory mcp (stdio)" in row, row  # the user's file pins the path

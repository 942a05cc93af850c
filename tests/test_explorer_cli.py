"""`graphit memory explorer`: the real command in a subprocess (URL first on stdout, port 0,
clean stop on SIGINT/SIGTERM, errors), and the server's own rules."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from graphit_cli.explorer.server import ExplorerServer, accepted_hosts, is_loopback

URL = re.compile(r"^http://127\.0\.0\.1:(\d+)/memory/explorer/(project|user)/\?token=([\w-]{20,})$")


def start(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "graphit_cli", "memory", "explorer", "--no-open", *args],
        cwd=cwd,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def first_line(proc: subprocess.Popen[str], timeout: float = 60) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the explorer printed no URL"
    return proc.stdout.readline().strip()


def request(
    port: int, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)  # a hang bound
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serves_on_a_free_port_and_stops_cleanly(project_dir: Path, sig: signal.Signals) -> None:
    proc = start(project_dir, "--port", "0")
    try:
        line = first_line(proc)
        match = URL.match(line)
        assert match, line
        port, scope, token = int(match.group(1)), match.group(2), match.group(3)
        assert port != 0 and scope == "project"
        status, headers, _ = request(port, f"/memory/explorer/project/?token={token}")
        assert status == 303 and headers["set-cookie"].startswith(f"graphit_explorer_{port}=")
        status, _, body = request(port, "/api/memories", {"Authorization": f"Bearer {token}"})
        assert status == 200
        assert json.loads(body) == {"results": [], "total": 0, "types": [], "tags": []}
        status, _, _ = request(port, "/api/memories")
        assert status == 401
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert out == ""  # nothing after the URL
    assert err.splitlines() == [
        "Memory Explorer running; press Ctrl-C to stop.",
        "Memory Explorer stopped.",
    ]


def test_outside_a_project_it_opens_the_user_scope(tmp_path: Path) -> None:
    proc = start(tmp_path, "--port", "0")
    try:
        match = URL.match(first_line(proc))
        assert match and match.group(2) == "user"
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


def test_a_port_in_use_is_a_clean_error(project_dir: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = start(project_dir, "--port", str(port))
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 5
    assert out == ""
    assert err == (
        f"Error: cannot listen on 127.0.0.1:{port}: the port is in use "
        "(another explorer? pass --port 0 for a free port)\n"
    )


def test_another_host_needs_allow_remote(cli) -> None:
    result = cli("memory", "explorer", "--host", "0.0.0.0", "--no-open")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr == (
        "Error: --host 0.0.0.0 would let other machines reach your memories: "
        "add --allow-remote to mean it\n"
    )
    result = cli("memory", "explorer", "--port", "70000", "--no-open")
    assert result.exit_code == 3
    assert "out of range" in result.stderr


def test_host_rules() -> None:
    assert [is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "127.0.0.2")] == [True] * 4
    assert [is_loopback(h) for h in ("0.0.0.0", "192.168.1.2", "example.org", "::")] == [False] * 4
    assert accepted_hosts("127.0.0.1") == {"127.0.0.1", "localhost"}
    assert accepted_hosts("[::1]") == {"::1", "localhost"}
    assert accepted_hosts("0.0.0.0") is None  # a wildcard bind: the token carries the protection


def test_open_browser_gets_the_url_once_the_server_answers(project_dir: Path) -> None:
    server = ExplorerServer(port=0, cwd=project_dir)
    opened: list[str] = []
    done = threading.Event()

    def fake_browser(url: str) -> None:
        # the server answers by the time the browser is asked to open the page
        status, _, _ = request(server.port, "/memory/explorer/static/explorer.css")
        opened.append(f"{status} {url}")
        done.set()

    server.open_browser_when_ready(fake_browser)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert done.wait(60)
    finally:
        server.stop()
        thread.join(30)
    assert opened == [f"200 {server.url}"]
    assert not thread.is_alive()


def test_the_socket_is_tcp_with_nodelay(project_dir: Path) -> None:
    """asyncio turns Nagle off only on sockets that say they are TCP; with Nagle on, every
    keep-alive response waited ~40 ms for a delayed ACK."""
    server = ExplorerServer(port=0, cwd=project_dir)
    try:
        assert server.socket.proto == socket.IPPROTO_TCP
        assert server.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        server.socket.close()

"""Secrets are never stored, shown or shared: refused at every write boundary (exit 3, nothing
written, the value never echoed), `--redact` / `--allow-secrets` on the CLI only, found by
`scan` in every revision and removed by `redact` from the table's files, locally and on S3;
files private under a permissive umask."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core import secrets
from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import SecretRefused
from graphit_cli.opening import open_service
from tests.conftest import PROJECT_ID
from tests.test_mcp import Session, mcp_server  # noqa: F401  (the real MCP stdio server)
from tests.test_warm_writes import daemon  # noqa: F401  (a real daemon process)

# Fake, real-format values (generated for these tests; none is a credential).
AWS = "AKIAZ3MHALDLTPRWQV7K"
GHP = "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"
PASSWORD = "Tr0ub4dor&3xq"
BODY = f"Deploy with:\naws_access_key_id = {AWS}\npostgres://app:{PASSWORD}@db.internal/app"

ROOT = Path(__file__).resolve().parent.parent


def values_absent(text: str) -> bool:
    return all(v not in text for v in (AWS, GHP, PASSWORD))


# --- the detector ---------------------------------------------------------------------------


def test_detector_finds_kinds_and_positions_and_leaves_look_alikes() -> None:
    found = secrets.find(BODY)
    assert [(f.kind, f.position) for f in found] == [
        ("aws-access-key", "2:21"),
        ("password-in-url", "3:16"),
    ]
    assert secrets.redact(BODY) == (
        "Deploy with:\naws_access_key_id = [REDACTED:aws-access-key]\n"
        "postgres://app:[REDACTED:password-in-url]@db.internal/app"
    )
    for benign in (
        "Fixed in commit 4f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39, see 01JD0000000000000000000000",
        "Docs use AKIAIOSFODNN7EXAMPLE",
        "Set GITHUB_TOKEN=<your-token>; DATABASE_URL=postgres://app:${DB_PASSWORD}@db/app",
        "The Stripe key is in 1Password, vault Payments. password: changeme",
        "def login(user: str, password: str) -> None: token = issue(user)",
        "image: python@sha256:" + "ab12" * 16,
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n"
        "-----END PUBLIC KEY-----",
    ):
        assert secrets.find(benign) == [], benign


# --- the CLI: flags, Markdown, JSON, NDJSON --------------------------------------------------


def test_upsert_refuses_a_secret_with_exit_3_naming_kind_and_position(cli, service) -> None:
    result = cli("memory", "upsert", "--title", "Deploy", "--body", BODY)
    assert result.exit_code == 3
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == "Error: refused: a secret in the input (nothing was written)"
    assert lines[1] == "memory 'Deploy': aws-access-key in the body at 2:21"
    assert lines[2] == "memory 'Deploy': password-in-url in the body at 3:16"
    assert "--redact" in lines[3] and "--allow-secrets" in lines[3]
    assert values_absent(result.stderr)
    assert service.catalogue() == []


def test_a_secret_repeating_a_memory_is_refused_before_any_duplicate_warning(cli, service) -> None:
    """The duplicate warning quotes nothing of the draft, but it must not come first: a secret
    is refused as one (exit 3), whatever else the draft repeats."""
    note = (
        "Deploys go through the release workflow on GitHub Actions: tag the commit, wait for "
        "the staging smoke tests, approve the production job, then watch the error rate for "
        "twenty minutes before closing the ticket. The database password lives in Vault."
    )
    assert cli("memory", "upsert", "--title", "Deploy", "--body", note).exit_code == 0
    result = cli("memory", "upsert", "--title", "Deploy", "--body", f"{note} pw: {PASSWORD}")
    output = result.stdout + result.stderr
    assert result.exit_code == 3, output
    assert "already says this" not in output and PASSWORD not in output
    assert [m.body for m in service.catalogue()] == [note]


def test_a_batch_with_one_secret_writes_nothing(cli, service) -> None:
    records = [
        {"title": "Plain", "body": "We use uv."},
        {"title": "Token", "body": f"token: {GHP}"},
        {"title": "Other", "body": "Tabs, not spaces."},
    ]
    ndjson = "".join(json.dumps(r) + "\n" for r in records)
    for text in (ndjson, json.dumps(records)):
        result = cli("memory", "upsert", "-", input=text)
        assert result.exit_code == 3, result.stderr
        assert "record 2 'Token': github-token in the body at 1:8" in result.stderr
        assert values_absent(result.stderr)
        assert service.catalogue() == []
    markdown = f"---\ntype: fact\n---\n# Keys\n\nThe key is {AWS}.\n"
    result = cli("memory", "upsert", "-", input=markdown)
    assert result.exit_code == 3
    assert "aws-access-key in the body" in result.stderr and values_absent(result.stderr)
    assert service.catalogue() == []


def test_redact_and_allow_secrets_are_the_ways_past(cli, service) -> None:
    result = cli("memory", "upsert", "--title", "Deploy", "--body", BODY, "--redact", "-f", "json")
    assert result.exit_code == 0, result.stderr
    memory = service.source(json.loads(result.stdout)[0]["id"])
    assert memory.body == secrets.redact(BODY) and values_absent(memory.body)
    result = cli(
        "memory", "upsert", "--title", "FP", "--body", BODY, "--allow-secrets", "-f", "json"
    )
    assert result.exit_code == 0
    assert service.source(json.loads(result.stdout)[0]["id"]).body == BODY
    both = cli("memory", "upsert", "--title", "x", "--body", "y", "--redact", "--allow-secrets")
    assert both.exit_code == 2


def test_restore_of_a_revision_holding_a_secret_is_refused(cli, service) -> None:
    first = service.writing(secrets="allow").upsert(MemoryDraft(title="Keys", body=BODY)).memory
    service.upsert(MemoryDraft(id=first.id, body="The keys live in Vault at secret/ci."))
    [old] = [m for m in service.history(first.id) if m.revision == 1]
    ref = f"{first.id}/{old.revision_id}"
    result = cli("memory", "restore", ref)
    assert result.exit_code == 3 and values_absent(result.stderr)
    assert service.source(first.id).revision == 2
    assert cli("memory", "restore", ref, "--redact").exit_code == 0
    assert service.source(first.id).body == secrets.redact(BODY)


def test_import_skips_or_redacts_each_section_holding_a_secret(cli, service, project_dir) -> None:
    (project_dir / "CLAUDE.md").write_text(
        f"# Team\n\n## Testing\n\nRun make test.\n\n## Deploy\n\nUse the key {AWS} here.\n"
    )
    dry = cli("memory", "import", "CLAUDE.md", "--dry-run")
    assert dry.exit_code == 3
    assert "'Deploy' not imported: holds a secret (aws-access-key in the body at 1:13)" in (
        dry.stderr
    )
    assert values_absent(dry.stdout + dry.stderr) and service.catalogue() == []
    result = cli("memory", "import", "CLAUDE.md")
    assert result.exit_code == 3 and values_absent(result.stdout + result.stderr)
    assert [m.title for m in service.catalogue()] == ["Testing"]
    result = cli("memory", "import", "CLAUDE.md", "--redact")
    assert result.exit_code == 0, result.stderr
    assert "redacted: (aws-access-key in the body at 1:13)" in result.stdout
    deploy = next(m for m in service.catalogue() if m.title == "Deploy")
    assert deploy.body == "Use the key [REDACTED:aws-access-key] here."


def test_import_of_an_export_leaves_out_a_chain_holding_a_secret(cli, service, tmp_path) -> None:
    allowed = service.writing(secrets="allow")
    held = allowed.upsert(MemoryDraft(title="Keys", body=BODY)).memory
    allowed.upsert(MemoryDraft(title="Plain", body="Nothing here."))
    exported = cli("memory", "export", "--history")
    assert exported.exit_code == 0
    other = tmp_path / "rows.ndjson"
    other.write_text(exported.stdout)
    result = cli("memory", "import", str(other), "--user")
    assert result.exit_code == 3
    assert f"memory {held.id} not imported (whole chain)" in result.stderr
    assert values_absent(result.stdout + result.stderr)
    from graphit_cli.access.providers import resolve_scope

    user = open_service(resolve_scope("user"))
    assert [m.title for m in user.catalogue()] == ["Plain"]


# --- MCP, the Explorer, the daemon ----------------------------------------------------------


def test_mcp_insert_and_update_answer_is_error_without_a_way_past(
    mcp_server: Session,  # noqa: F811 (the fixture imported above)
) -> None:
    session = mcp_server
    text = session.error("graphit_memory_insert", title="Deploy", body=BODY)
    assert text.startswith("Error: refused: a secret in the input (nothing was written)")
    assert "aws-access-key in the body at 2:21" in text
    assert "record where the secret lives instead of its value" in text
    assert "--redact" not in text and "--allow-secrets" not in text and values_absent(text)
    created = session.json("graphit_memory_insert", title="Deploy", body="Keys in Vault.")
    text = session.error("graphit_memory_update", id=created["id"], body=f"t {GHP}")
    assert "github-token in the body at 1:3" in text and values_absent(text)
    source = session.ok("graphit_memory_source", id=created["id"])
    assert "Keys in Vault." in source and values_absent(source)


def test_the_blind_corpora_through_the_real_mcp_server(
    mcp_server: Session,  # noqa: F811 (the fixture imported above)
) -> None:
    """What an agent's client sends: a sample of every corpus written blind (a text in 120 of
    each label, ~160 writes over the 39 corpora) through `graphit_memory_insert`; what the
    detector finds refused as a secret, and nothing else (tests/test_secret_rules.py holds the
    detector to the labels)."""
    from graphit_cli.core import secrets
    from tests.test_secret_rules import DISAGREED, blind

    names = sorted(p.stem for p in (ROOT / "benchmarks/data/blind_secrets").glob("*.py"))
    assert len(names) >= 9
    for name in names:
        rows = [r for r in blind(name) if r["kind"] not in DISAGREED]
        for label in ("secret", "benign"):
            for row in [r for r in rows if r["label"] == label][::120]:
                result = mcp_server.call(
                    "graphit_memory_insert", title=f"{name} {row['kind']}", body=row["text"]
                )
                text = result.content[0].text
                refused = result.is_error and text.startswith("Error: refused: a secret")
                found = bool(secrets.find(row["text"]))
                assert refused is found, (name, row["kind"], text[:200])


def test_explorer_create_and_edit_answer_422(project_dir: Path, service) -> None:
    from starlette.testclient import TestClient

    from graphit_cli.explorer.app import create_app
    from tests.test_explorer_api import AUTH, BASE, TOKEN

    with TestClient(create_app(token=TOKEN, cwd=project_dir), base_url=BASE) as client:
        response = client.post("/api/memories", headers=AUTH, json={"title": "K", "body": BODY})
        assert response.status_code == 422
        message = response.json()["error"]
        assert "aws-access-key in the body at 2:21" in message and values_absent(message)
        assert "write where the secret lives" in message.lower()
        made = service.upsert(MemoryDraft(title="K", body="In Vault.")).memory
        response = client.patch(f"/api/memories/{made.id}", headers=AUTH, json={"body": BODY})
        assert response.status_code == 422 and values_absent(response.text)
    assert service.source(made.id).body == "In Vault."


def test_a_write_forwarded_to_the_daemon_is_refused_the_same_way(
    project_dir: Path, scope: Scope, request: pytest.FixtureRequest
) -> None:
    from tests import test_warm_writes as warm

    assert request.getfixturevalue("daemon").poll() is None
    args = ("memory", "upsert", "--title", "Deploy", "--body", BODY)
    code, out, err, heavy = warm.graphit(project_dir, *args)
    cold = warm.cold(project_dir, *args)
    assert (code, out, heavy) == (3, "", False)  # answered by the daemon
    assert err == cold[2] and cold[0] == 3
    assert values_absent(err)
    code, out, err, heavy = warm.graphit(project_dir, *args, "--redact", "-f", "json")
    assert (code, heavy) == (0, False), err
    memory = open_service(scope).source(json.loads(out)[0]["id"])
    assert memory.body == secrets.redact(BODY)
    # An import forwarded to the daemon leaves the section out and says so, as in-process.
    (project_dir / "AGENTS.md").write_text(f"# Team\n\n## Keys\n\nThe token is {GHP}.\n")
    code, out, err, heavy = warm.graphit(project_dir, "memory", "import", "AGENTS.md")
    cold = warm.cold(project_dir, "memory", "import", "AGENTS.md", "--dry-run")
    assert (code, heavy) == (3, False) and cold[0] == 3
    assert "'Keys' not imported: holds a secret (github-token in the body at 1:14)" in err
    assert err.splitlines()[0] == cold[2].splitlines()[0]
    assert values_absent(out + err + cold[1] + cold[2])


# --- scan and redact ------------------------------------------------------------------------


def _chain_with_secrets(service) -> str:
    allowed = service.writing(secrets="allow")
    memory = allowed.upsert(MemoryDraft(title="Deploy", body=BODY)).memory
    allowed.upsert(MemoryDraft(id=memory.id, body=BODY + "\nrotated monthly"))
    allowed.upsert(MemoryDraft(id=memory.id, body=f"token {GHP}"))
    service.upsert_many([MemoryDraft(title=f"n{i}", body=f"plain note {i}") for i in range(20)])
    service.store.optimize()
    return memory.id


def _scan_and_redact(cli, service) -> str:
    memory_id = _chain_with_secrets(service)
    before = [(m.key, m.revision, m.previous, m.next) for m in service.history(memory_id)]
    scan = cli("memory", "scan")
    assert scan.exit_code == 11  # a finding, not a failure (1 is an internal error)
    lines = scan.stdout.splitlines()
    assert len(lines) == 5  # two in revisions 1 and 2, one in the live revision 3
    assert all(memory_id in line for line in lines)
    assert [line.split("\t")[2].split()[1] for line in lines] == ["1", "1", "2", "2", "3"]
    assert "github-token\tbody 1:7" in lines[-1]
    assert values_absent(scan.stdout + scan.stderr)
    result = cli("memory", "redact", memory_id, "--yes")
    assert result.exit_code == 0, result.stderr
    assert values_absent(result.stdout + result.stderr)
    after = service.history(memory_id)
    assert [(m.key, m.revision, m.previous, m.next) for m in after] == before
    assert after[-1].body == "token [REDACTED:github-token]"
    assert cli("memory", "scan").exit_code == 0
    exported = cli("memory", "export", "--history")
    assert values_absent(exported.stdout) and "[REDACTED:aws-access-key]" in exported.stdout
    return memory_id


def _files_hold(root: Path) -> list[str]:
    needles = [v.encode() for v in (AWS, GHP, PASSWORD)]
    needles += [v.lower().encode() for v in (AWS, GHP)]  # the full-text index lowercases
    return [
        str(p) for p in root.rglob("*") if p.is_file() and any(n in p.read_bytes() for n in needles)
    ]


def test_scan_and_redact_remove_the_value_from_every_revision_and_file(
    cli, service, graphit_home: Path
) -> None:
    _scan_and_redact(cli, service)
    assert _files_hold(graphit_home) == []


def test_scan_and_redact_on_s3(cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("moto.server", reason="needs moto[server] (the dev extra)")
    from tests.s3_harness import MotoServer, use_moto

    server = MotoServer()
    try:
        s3 = server.client("s3")
        s3.create_bucket(Bucket="graphit-secrets")
        use_moto(
            monkeypatch, server.endpoint, "graphit-secrets", f"t-{uuid.uuid4().hex[:8]}", tmp_path
        )
        service = open_service(Scope("project", PROJECT_ID))
        assert "://" in service.store.uri
        _scan_and_redact(cli, service)
        held = []
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket="graphit-secrets"):
            for item in page.get("Contents", []):
                data = s3.get_object(Bucket="graphit-secrets", Key=item["Key"])["Body"].read()
                if any(v.encode() in data or v.lower().encode() in data for v in (AWS, GHP)):
                    held.append(item["Key"])
        assert held == []
    finally:
        server.stop()


def test_redact_asks_first_and_refuses_without_yes_when_not_interactive(cli, service) -> None:
    memory_id = service.writing(secrets="allow").upsert(MemoryDraft(title="K", body=BODY)).memory.id
    result = cli("memory", "redact", memory_id)
    assert result.exit_code == 2
    assert service.source(memory_id).body == BODY


def test_the_service_refuses_by_default(service) -> None:
    with pytest.raises(SecretRefused):
        service.upsert(MemoryDraft(title="K", body=BODY))
    assert service.catalogue() == []


# --- private files --------------------------------------------------------------------------


def test_files_are_private_under_a_permissive_umask(project_dir: Path, graphit_home: Path) -> None:
    env = {**os.environ, "GRAPHIT_NO_DAEMON": "1"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # The shell sets the permissive umask (no preexec_fn: lance is loaded here already).
        return subprocess.run(
            ["sh", "-c", 'umask 000 && exec "$0" -m graphit_cli "$@"', sys.executable, *args],
            cwd=project_dir,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert run("memory", "upsert", "--title", "a", "--body", "b").returncode == 0
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in [graphit_home, *graphit_home.rglob("*")]}
    assert modes and all(
        mode == (0o700 if path.is_dir() else 0o600) for path, mode in modes.items()
    ), {str(p): oct(m) for p, m in modes.items() if m not in (0o700, 0o600)}
    graphit_home.chmod(0o755)
    result = run("memory", "list")
    assert (result.returncode, result.stderr) == (0, "")  # not a terminal: no note
    assert stat.S_IMODE(graphit_home.stat().st_mode) == 0o700


def test_an_open_home_is_tightened_with_a_note_on_a_terminal(
    graphit_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphit_cli.cli import private_files

    graphit_home.mkdir(mode=0o755)
    graphit_home.chmod(0o755)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    old = os.umask(0)
    try:
        private_files()
        assert os.umask(0) == 0o077
    finally:
        os.umask(old)
    assert stat.S_IMODE(graphit_home.stat().st_mode) == 0o700
    expected = f"graphit: made {graphit_home} private (mode 755 -> 700): it holds your memories\n"
    assert capsys.readouterr().err == expected


def test_a_running_daemon_keeps_answering_after_a_redaction(
    project_dir: Path, request: pytest.FixtureRequest
) -> None:
    from tests import test_warm_writes as warm

    assert request.getfixturevalue("daemon").poll() is None
    args = ("memory", "upsert", "--title", "Deploy", "--body", BODY, "--allow-secrets")
    code, out, err, heavy = warm.graphit(project_dir, *args, "-f", "json")
    assert (code, heavy) == (0, False), err
    memory_id = json.loads(out)[0]["id"]
    for i in range(3):
        warm.graphit(project_dir, "memory", "upsert", "--title", f"n{i}", "--body", "plain")
    code, out, err, _ = warm.graphit(project_dir, "memory", "search", "deploy", "-f", "json")
    assert code == 0 and AWS in out  # the daemon's handle has read the rows holding it
    code, _, err, _ = warm.cold(project_dir, "memory", "redact", memory_id, "--yes")
    assert code == 0, err
    code, out, err, heavy = warm.graphit(project_dir, "memory", "search", "deploy", "-f", "json")
    assert (code, heavy) == (0, False), err
    assert memory_id in out and values_absent(out)
    code, out, err, heavy = warm.graphit(project_dir, "memory", "list", "-f", "json")
    assert (code, heavy) == (0, False) and values_absent(out), err


def test_scan_all_covers_every_scope_this_machine_uses(cli, service) -> None:
    from graphit_cli.access.providers import resolve_scope

    service.writing(secrets="allow").upsert(MemoryDraft(title="P", body=f"t {GHP}"))
    user = open_service(resolve_scope("user")).writing(secrets="allow")
    user.upsert(MemoryDraft(title="U", body=f"key {AWS}"))
    result = cli("memory", "scan", "--all", "-f", "json")
    assert result.exit_code == 11
    found = json.loads(result.stdout)
    assert sorted((f["scope"].split(":")[0], f["kind"], f["live"]) for f in found) == [
        ("project", "github-token", True),
        ("user", "aws-access-key", True),
    ]
    assert values_absent(result.stdout + result.stderr)
    per_line = cli("memory", "scan", "--all", "-f", "ndjson")
    assert [json.loads(line) for line in per_line.stdout.splitlines()] == found
    # The old spelling still works, with a note; beside another -f it is refused.
    old = cli("memory", "scan", "--all", "--json")
    assert (old.exit_code, json.loads(old.stdout)) == (11, found)
    assert "--json is deprecated; use -f json" in old.stderr
    assert cli("memory", "scan", "--all", "--json", "-f", "table").exit_code == 2
    assert cli("memory", "scan", "--user").exit_code == 11
    assert cli("memory", "scan", "--all", "--user").exit_code == 2


def test_the_daemons_run_directory_and_socket_are_private_under_umask_000(
    project_dir: Path, graphit_home: Path
) -> None:
    import time

    from graphit_cli.access import runstate
    from graphit_cli.warm import wire

    proc = subprocess.Popen(
        [
            "sh",
            "-c",
            'umask 000 && exec "$0" -m graphit_cli memory daemon --scope project',
            sys.executable,
        ],
        cwd=project_dir,
        env={**os.environ, "GRAPHIT_EMBEDDER": "tests.embedders:HashingEmbedder"},
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while wire.exchange(runstate.socket_path(), {"op": "ping"}, timeout=2.0) is None:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        socket = runstate.socket_path()
        assert stat.S_IMODE(socket.stat().st_mode) & 0o077 == 0
        for path in [graphit_home, *graphit_home.rglob("*")]:
            if path.is_socket():
                continue
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode == (0o700 if path.is_dir() else 0o600), (str(path), oct(mode))
    finally:
        proc.terminate()
        proc.wait(timeout=180)

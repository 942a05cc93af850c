"""A secret has no side door: every field a memory stores (tags, anchors, the author), a
consolidation plan (its reason too), a restore, the Explorer; and a token hidden by a
zero-width character, Markdown emphasis, a line break, base64 or percent-encoding. Refused
with exit 3 before anything is written, found by `scan`, removed by `redact`."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from graphit_cli.core import secrets
from graphit_cli.core.models import MemoryDraft

# Fake, real-format values (generated for these tests; none is a credential).
GHP = "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"
AWS = "AKIAZ3MHALDLTPRWQV7K"


def absent(text: str) -> bool:
    return GHP not in text and AWS not in text and GHP[4:] not in text and GHP[-10:] not in text


HIDDEN = {
    "zero-width space": f"the token is {GHP[:10]}\u200b{GHP[10:]} for CI",
    "soft hyphen and word joiner": f"token {GHP[:6]}\u00ad{GHP[6:20]}\u2060{GHP[20:]}",
    "emphasis inside": f"token {GHP[:12]}**{GHP[12:25]}**{GHP[25:]} ok",
    "code marks inside": f"token {GHP[:12]}`{GHP[12:]}`",
    "emphasis around a name": "**password**: `Tr0ub4dor&3xqZ`",
    "line break inside": f"token {GHP[:22]}\n{GHP[22:]}\nnext line",
    "indented line break": f"token {GHP[:22]}\r\n    {GHP[22:]} end",
    "base64": "config blob " + base64.b64encode(f"GITHUB_TOKEN={GHP}".encode()).decode(),
    "url-safe base64": "blob " + base64.urlsafe_b64encode(f"key {AWS} x".encode()).decode(),
    "percent-encoded": "see https://x.test/?t=" + "".join(f"%{ord(c):02X}" for c in GHP),
    "partly percent-encoded": f"token {GHP[:8]}%{ord(GHP[8]):02X}{GHP[9:]}",
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_a_hidden_token_is_found_and_redacted_in_place(name: str) -> None:
    text = HIDDEN[name]
    found = secrets.find(text)
    assert found, name
    redacted = secrets.redact(text)
    assert "[REDACTED:" in redacted and absent(redacted), redacted
    assert "Tr0ub4dor" not in redacted
    # What surrounds the token is kept.
    assert redacted.split("[REDACTED:")[0] == text[: found[0].start]


@pytest.mark.parametrize(
    "benign",
    [
        "Use **bold** and `code` in Markdown; *emphasis* too.",
        "A long word wrapped\nover two lines: configuration\nmanagement",
        ".env.example:\nDB_HOST=localhost\nDB_PASSWORD=\nAPI_KEY=",
        "token: ghp_****************************abcd (masked)",
        "Spaces are %20 in a URL: /docs/getting%20started",
        "The blob " + base64.b64encode(b"feature_flags: {dark_mode: true}").decode(),
        "integrity sha512-" + base64.b64encode(bytes(range(64))).decode(),
        "Commit 4f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39\n0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
    ],
)
def test_unhiding_finds_nothing_in_ordinary_text(benign: str) -> None:
    assert secrets.find(benign) == [], benign


# --- every field, every boundary --------------------------------------------------------------


def test_a_secret_in_a_tag_or_an_anchor_is_refused_with_exit_3(cli, service) -> None:
    result = cli("memory", "upsert", "--title", "T", "--body", "B", "--tag", GHP)
    assert result.exit_code == 3, result.stdout
    assert "github-token in the tag 1 at 1:1" in result.stderr and absent(result.stderr)
    result = cli("memory", "upsert", "--title", "T", "--body", "B", "--anchor", f"x/{AWS}.py")
    assert result.exit_code == 3 and "in the anchor 1" in result.stderr and absent(result.stderr)
    assert service.catalogue() == []
    result = cli("memory", "upsert", "--title", "T", "--body", "B", "--tag", GHP, "--redact")
    assert result.exit_code == 0, result.stderr
    [stored] = service.catalogue()
    assert stored.tags == ("REDACTED:github-token",)


def test_frontmatter_fields_are_checked(cli, service) -> None:
    text = f"---\ntags: [ci, {GHP}]\nanchors: [deploy.sh]\n---\n# Deploy\n\nRun deploy.sh.\n"
    result = cli("memory", "upsert", "-", input=text)
    assert result.exit_code == 3 and "tag 2" in result.stderr and absent(result.stderr)
    assert service.catalogue() == []


def test_an_author_holding_a_secret_is_refused(
    cli, service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAPHIT_AUTHOR", f"ci-{GHP}")
    result = cli("memory", "upsert", "--title", "T", "--body", "B")
    assert result.exit_code == 3 and "in the author" in result.stderr and absent(result.stderr)
    assert service.catalogue() == []


def test_the_explorer_refuses_a_secret_in_a_tag(project_dir: Path, service) -> None:
    from starlette.testclient import TestClient

    from graphit_cli.explorer.app import create_app
    from tests.test_explorer_api import AUTH, BASE, TOKEN

    with TestClient(create_app(token=TOKEN, cwd=project_dir), base_url=BASE) as client:
        response = client.post(
            "/api/memories", headers=AUTH, json={"title": "K", "body": "B", "tags": [GHP]}
        )
        assert response.status_code == 422 and absent(response.text)
    assert service.catalogue() == []


def test_restoring_a_deleted_memorys_secret_revision_is_refused_and_it_stays_deleted(
    cli, service
) -> None:
    first = service.writing(secrets="allow").upsert(MemoryDraft(title="K", body=f"t {GHP}"))
    memory_id = first.memory.id
    service.upsert(MemoryDraft(id=memory_id, body="The token lives in Vault."))
    service.delete(memory_id)
    [old] = [m for m in service.history(memory_id) if m.revision == 1]
    result = cli("memory", "restore", f"{memory_id}/{old.revision_id}")
    assert result.exit_code == 3 and absent(result.stderr + result.stdout)
    assert memory_id not in {m.id for m in service.catalogue()}
    assert cli("memory", "source", memory_id).exit_code == 4  # not found: still deleted


def test_a_secret_only_in_a_plans_reason_is_refused_before_anything_is_applied(
    cli, service, tmp_path: Path, graphit_home: Path
) -> None:
    a = service.upsert(MemoryDraft(title="Use uv", body="We install with uv.")).memory
    b = service.upsert(MemoryDraft(title="uv only", body="Packages come from uv.")).memory
    plan = {
        "version": 1,
        "actions": [
            {
                "action": "merge",
                "ids": [a.id, b.id],
                "keep_id": a.id,
                "title": "Use uv",
                "body": "We install with uv; packages come from uv.",
                "reason": f"same rule (found with token {GHP})",
                "revisions": {a.id: 1, b.id: 1},
            }
        ],
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    result = cli("memory", "consolidate", "--plan", str(path), "--apply")
    assert result.exit_code == 3, result.stderr
    assert "in the reason" in result.stderr and absent(result.stderr + result.stdout)
    assert {(m.id, m.revision) for m in service.catalogue()} == {(a.id, 1), (b.id, 1)}
    assert not (graphit_home / "memory" / "consolidation").exists() or not list(
        (graphit_home / "memory" / "consolidation").iterdir()
    )


def test_scan_and_redact_cover_tags_anchors_and_hidden_tokens(cli, service) -> None:
    allowed = service.writing(secrets="allow")
    tagged = allowed.upsert(
        MemoryDraft(title="T", body="B", tags=(GHP,), anchors=(f"{AWS}.py",))
    ).memory
    hidden = allowed.upsert(MemoryDraft(title="H", body=HIDDEN["zero-width space"])).memory
    scan = cli("memory", "scan")
    assert scan.exit_code == 11 and absent(scan.stdout + scan.stderr)
    assert "tag 1" in scan.stdout and "anchor 1" in scan.stdout and hidden.id in scan.stdout
    for memory_id in (tagged.id, hidden.id):
        assert cli("memory", "redact", memory_id, "--yes").exit_code == 0
    assert cli("memory", "scan").exit_code == 0
    again = service.source(tagged.id)
    assert again.tags == ("REDACTED:github-token",) and absent(str(again.anchors))
    assert absent(service.source(hidden.id).body.replace("\u200b", ""))


# --- graphit's own logs ---------------------------------------------------------------------


def test_a_pasted_secret_never_reaches_the_recalls_log_or_agent_recalls(
    project_dir: Path, service, cli
) -> None:
    from graphit_cli.recall import log
    from graphit_cli.recall.hook import PromptRequest, prompt_context

    service.upsert(MemoryDraft(title="Datev export", body="Nightly at 02:00."))
    # The key sits past the excerpt's limit: cut there, it would no longer be recognised.
    pasted = "when does the datev export run? " + "context " * 30 + f"my token is {GHP}"
    prompt_context([service], PromptRequest(pasted, "abc-1", mode="fts"))
    log.append({"event": "prompt", "session": "abc-2", "prompt": f"key {AWS} here"})
    raw = log.log_path().read_text()
    assert absent(raw) and "datev export" in raw
    shown = cli("agent", "recalls")
    assert shown.exit_code == 0 and absent(shown.stdout + shown.stderr)


def test_scan_sees_secrets_in_graphits_own_logs_and_redact_removes_them(
    cli, service, graphit_home: Path
) -> None:
    from graphit_cli.recall import log

    log.log_path().parent.mkdir(parents=True, exist_ok=True)
    # A line an older graphit wrote before prompts were redacted.
    log.log_path().write_text(json.dumps({"event": "prompt", "prompt": f"t {GHP}"}) + "\n")
    folder = graphit_home / "memory" / "consolidation"
    folder.mkdir(parents=True)
    (folder / "20260101T000000000000Z-apply-project-x.json").write_text(
        json.dumps({"version": 1, "changes": [{"id": "x", "before": {"body": f"k {AWS}"}}]})
    )
    scan = cli("memory", "scan")
    assert scan.exit_code == 11 and scan.stdout.count("log\t") == 2
    assert absent(scan.stdout + scan.stderr)
    memory = service.upsert(MemoryDraft(title="Plain", body="Nothing here.")).memory
    assert cli("memory", "redact", memory.id, "--yes").exit_code == 0
    assert cli("memory", "scan").exit_code == 0
    assert absent(log.log_path().read_text())
    assert absent((folder / "20260101T000000000000Z-apply-project-x.json").read_text())


def test_a_yaml_tag_is_no_value_but_a_password_starting_with_a_bang_is() -> None:
    assert secrets.find("api_key: !vault |\n  $ANSIBLE_VAULT;1.1;AES256") == []
    assert secrets.find("DB_PASSWORD=!D4VsliV-kdej1o")
    assert secrets.find("redis://default:!oMUL*&d^wguz1QrKVo1jF@cache.example.net:6379/0")

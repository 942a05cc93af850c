"""A consolidation plan: its JSON shape, validated into actions (the table is not consulted)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from graphit_cli.core import revisions
from graphit_cli.errors import InvalidInput

PLAN_VERSION = 1
FLAG_ACTIONS = {
    "promote": ("important", True),
    "demote": ("important", False),
    "mandatory": ("mandatory", True),
    "optional": ("mandatory", False),
}
ACTIONS = ("merge", "update", *FLAG_ACTIONS, "delete")


@dataclass(frozen=True)
class Action:
    """One validated plan action (shape only: whether it applies is decided against the table)."""

    number: int  # 1-based position in the plan, for messages
    action: str
    ids: tuple[str, ...]
    revisions: dict[str, int]
    keep_id: str | None = None
    title: str | None = None
    body: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class PlanEntry:
    """One line of an outcome: an action, the ids it names and what happened."""

    action: str
    ids: list[str]
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "ids": self.ids, "detail": self.detail}


_KEYS = {
    "merge": {"action", "ids", "keep_id", "title", "body", "reason", "revisions"},
    "update": {"action", "id", "title", "body", "revision", "reason"},
    "flag": {"action", "id", "revision", "reason"},
}


def read_plan(text: str, origin: str = "plan") -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{origin} is not valid JSON: {exc.msg} (line {exc.lineno})") from None


def parse_plan(data: Any, scope: str) -> tuple[list[Action], list[PlanEntry]]:
    """The plan's well-formed actions, and a refusal for each malformed one.

    A plan that is not a plan at all (not an object, another version or scope, no action
    list) is an InvalidInput: nothing of it applies.
    """
    if not isinstance(data, dict):
        raise InvalidInput('a plan is a JSON object: {"version": 1, "actions": [...]}')
    unknown = sorted(set(data) - {"version", "scope", "actions"})
    if unknown:
        raise InvalidInput(f"unknown plan field(s): {', '.join(unknown)}")
    if data.get("version", PLAN_VERSION) != PLAN_VERSION:
        raise InvalidInput(f"unsupported plan version {data.get('version')!r}: expected 1")
    named = data.get("scope")
    if named is not None and named not in (scope, scope.partition(":")[0]):
        raise InvalidInput(f"the plan is for scope {named!r}, not {scope}: pass --scope")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise InvalidInput('a plan needs an "actions" list')
    parsed: list[Action] = []
    refused: list[PlanEntry] = []
    for number, raw in enumerate(actions, start=1):
        try:
            parsed.append(_parse_action(number, raw))
        except InvalidInput as exc:
            name = raw.get("action") if isinstance(raw, dict) else None
            refused.append(
                PlanEntry(
                    str(name) if isinstance(name, str) else "?",
                    _loose_ids(raw),
                    f"action {number}: {exc.message}",
                )
            )
    return parsed, refused


def _loose_ids(raw: Any) -> list[str]:
    if not isinstance(raw, dict):
        return []
    ids = raw.get("ids") if "ids" in raw else [raw.get("id")]
    return [str(i) for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def _revision(value: Any, memory_id: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(
            f"revision of {memory_id} must be the positive integer from the report "
            "(it guards against overwriting a newer edit)"
        )
    return value


def _text(raw: dict[str, Any], name: str) -> str | None:
    value = raw.get(name)
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    return value


def _parse_action(number: int, raw: Any) -> Action:
    if not isinstance(raw, dict):
        raise InvalidInput("an action is a JSON object")
    name = raw.get("action")
    if name not in ACTIONS:
        raise InvalidInput(f"unknown action {name!r}: use {', '.join(ACTIONS)}")
    shape = "merge" if name == "merge" else "update" if name == "update" else "flag"
    extra = sorted(set(raw) - _KEYS[shape])
    if extra:
        raise InvalidInput(f"unknown field(s) for {name}: {', '.join(extra)}")
    reason = _text(raw, "reason") or ""
    title, body = _text(raw, "title"), _text(raw, "body")
    if title is not None:
        title = revisions.validate_title(title)
    if body is not None:
        body = revisions.normalise_body(body)
    if name == "merge":
        ids_raw = raw.get("ids")
        if not isinstance(ids_raw, list) or not all(isinstance(i, str) for i in ids_raw):
            raise InvalidInput("a merge needs ids: a list of memory ids")
        ids = tuple(dict.fromkeys(revisions.validate_id(i) for i in ids_raw))
        if len(ids) < 2:
            raise InvalidInput("a merge needs at least two distinct memories")
        keep_raw = raw.get("keep_id")
        if not isinstance(keep_raw, str):
            raise InvalidInput("a merge needs keep_id: the id that survives")
        keep = revisions.validate_id(keep_raw)
        if keep not in ids:
            raise InvalidInput(f"keep_id {keep} is not one of the merged ids")
        seen = raw.get("revisions")
        if not isinstance(seen, dict):
            raise InvalidInput("a merge needs revisions: {id: revision} as the report showed")
        by_id = {revisions.validate_id(str(k)): v for k, v in seen.items()}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise InvalidInput(f"revisions has no entry for {', '.join(missing)}")
        revs = {i: _revision(by_id[i], i) for i in ids}
        return Action(number, name, ids, revs, keep, title, body, reason)
    id_raw = raw.get("id")
    if not isinstance(id_raw, str):
        raise InvalidInput(f"{name} needs id")
    memory_id = revisions.validate_id(id_raw)
    if "revision" not in raw:
        raise InvalidInput(f"{name} needs revision: the revision the report showed")
    revs = {memory_id: _revision(raw["revision"], memory_id)}
    if name == "update" and title is None and body is None:
        raise InvalidInput("an update needs a title or a body")
    return Action(number, name, (memory_id,), revs, None, title, body, reason)

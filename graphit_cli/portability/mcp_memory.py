"""The MCP reference memory server's `memory.jsonl` / `memory.json`, read as memory drafts.

One fact per entity: its observations as a list (a multi-line observation indented under its
item), its relations appended on both their ends, its entityType as a tag (and as the type
when it names one of ours). Every entity the server accepts imports: one without observations
yet, and one whose name is longer than a title (cut at a word; the whole name leads the
body). The key is the entity's name, so a re-import updates the same memory. See `foreign`
for the other formats and the helpers they share.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

from graphit_cli.core import revisions
from graphit_cli.core.models import MEMORY_TYPES, MemoryDraft
from graphit_cli.errors import InvalidInput
from graphit_cli.portability.foreign import Parsed, add_item, read_text
from graphit_cli.portability.model import Item, Problem


def mcp_memory(path: Path, rel: str) -> Parsed:
    text, problems = read_text(path, rel)
    if text is None:
        return [], problems
    records = _json_records(text, rel, problems)
    entities: dict[str, tuple[int, dict[str, Any]]] = {}
    links: list[tuple[int, str, str, str]] = []
    for line, record in records:
        kind = record.get("type") if isinstance(record, dict) else None
        if kind == "entity":
            name = record.get("name")
            if not isinstance(name, str) or not name.strip():
                problems.append(Problem(rel, line, "entity without a name: skipped"))
            elif name in entities:
                problems.append(
                    Problem(rel, line, f"entity {name!r} repeats line {entities[name][0]}: skipped")
                )
            else:
                entities[name] = (line, record)
        elif kind == "relation":
            ends = [record.get(k) for k in ("from", "relationType", "to")]
            if not all(isinstance(v, str) and v.strip() for v in ends):
                problems.append(Problem(rel, line, "relation needs from, relationType and to"))
                continue
            source, verb, target = (str(v) for v in ends)
            links.append((line, source, verb, target))
        else:
            problems.append(Problem(rel, line, 'expected "type": "entity" or "relation"'))
    # A relation is shown on both its ends (the server keeps relations whose ends it does not
    # hold as entities; such an end just has no memory to show it on).
    relations: dict[str, list[str]] = {}
    for line, source, verb, target in links:
        text = f"- {source} {verb} {target}"
        ends = [n for n in dict.fromkeys((source, target)) if n in entities]
        if not ends:
            problems.append(
                Problem(rel, line, f"relation between unknown entities {source!r} and {target!r}")
            )
        for name in ends:
            if text not in relations.setdefault(name, []):
                relations[name].append(text)
    items: list[Item] = []
    seen: dict[str, int] = {}
    for name, (line, record) in entities.items():
        add_item(
            items,
            problems,
            seen,
            key=f"mcp-memory:{name}",
            rel=rel,
            line=line,
            build=lambda n=name, r=record: _entity_draft(n, r, relations.get(n, [])),
        )
    return items, problems


def _json_records(text: str, rel: str, problems: list[Problem]) -> list[tuple[int, Any]]:
    """JSON Lines (what the server writes, whatever the file is called), or one JSON document:
    a list of records or `{"entities": [...], "relations": [...]}`."""
    try:
        whole = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        whole = None
    if isinstance(whole, list):
        return [(0, r) for r in whole]
    if isinstance(whole, dict) and ("entities" in whole or "relations" in whole):
        entities = whole.get("entities") or []
        links = whole.get("relations") or []
        return [(0, {"type": "entity", **e}) for e in entities if isinstance(e, dict)] + [
            (0, {"type": "relation", **r}) for r in links if isinstance(r, dict)
        ]
    records = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(Problem(rel, number, f"invalid JSON: {exc.msg}"))
        except RecursionError:
            problems.append(Problem(rel, number, "JSON nested too deeply"))
    return records


def _entity_draft(name: str, record: dict[str, Any], relations: list[str]) -> MemoryDraft:
    observations = record.get("observations", [])
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        raise InvalidInput(f"entity {name!r}: observations must be a list of strings")
    entity_type = record.get("entityType")
    if entity_type is not None and not isinstance(entity_type, str):
        raise InvalidInput(f"entity {name!r}: entityType must be a string")
    lines = [_list_item(o) for o in observations if o.strip()]
    if not lines:  # the server keeps an entity before any observation is added to it
        kind = f" of type {entity_type.strip()}" if entity_type and entity_type.strip() else ""
        lines = [f"An entity{kind} with no observations yet."]
    if relations:
        lines += ["", "Relations:", *relations]
    title = _title(name)
    if title != " ".join(name.split()):  # cut or cleaned: the whole name leads the body
        lines = [f"Name: {name}", "", *lines]
    tags = ["mcp-memory"]
    memory_type = "fact"
    if entity_type:
        slug = "-".join(entity_type.strip().lower().split())
        if slug in MEMORY_TYPES:
            memory_type = slug
        try:
            tags.append(revisions.validate_tag(slug))
        except InvalidInput:
            pass
    return MemoryDraft(title=title, body="\n".join(lines), type=memory_type, tags=tuple(tags))


def _list_item(observation: str) -> str:
    """One observation as a list item; its further lines are indented under the item, so a
    multi-line observation (a nested list, a code block) keeps its own indentation."""
    first, *rest = observation.strip("\n").rstrip().split("\n")
    return "\n".join([f"- {first.strip()}", *(f"  {ln}" if ln.strip() else "" for ln in rest)])


def _title(name: str) -> str:
    """The entity name as a title: one line, no control characters, and cut at a word (with
    an ellipsis) when it is longer than a title may be."""
    clean = " ".join(
        "".join(" " if unicodedata.category(c) in ("Cc", "Cs") else c for c in name).split()
    )
    if len(clean) <= revisions.MAX_TITLE:
        return clean
    cut = clean[: revisions.MAX_TITLE - 1]
    if " " in cut and not clean[revisions.MAX_TITLE - 1].isspace():
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + "…"

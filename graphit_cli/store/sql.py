"""Building LanceDB `where` strings from values that came from users.

Every value goes through `literal()`; nothing else ever formats user input into SQL. Ids and
tags are also validated upstream, so this is the second line of defence, not the only one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from graphit_cli.models import MemoryFilter


def literal(value: str) -> str:
    """A single-quoted SQL string literal; an embedded quote is doubled."""
    if "\x00" in value:
        raise ValueError("NUL byte in a filter value")
    return "'" + value.replace("'", "''") + "'"


def in_list(column: str, values: Iterable[str]) -> str:
    items = ", ".join(literal(v) for v in values)
    return f"{column} IN ({items})"


def tag_condition(tag: str) -> str:
    # tags_json holds a sorted JSON array; match the tag's exact JSON spelling, quotes included.
    return f"strpos(tags_json, {literal(json.dumps(tag, ensure_ascii=False))}) > 0"


def filter_conditions(flt: MemoryFilter) -> list[str]:
    parts: list[str] = []
    if flt.types:
        parts.append(in_list("type", flt.types))
    parts += [tag_condition(tag) for tag in flt.tags]
    if flt.important is not None:
        parts.append(f"important = {'true' if flt.important else 'false'}")
    if flt.mandatory is not None:
        parts.append(f"mandatory = {'true' if flt.mandatory else 'false'}")
    return parts


def conjunction(parts: Iterable[str]) -> str:
    items = [p for p in parts if p]
    return " AND ".join(f"({p})" for p in items) if items else ""

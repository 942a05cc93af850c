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


def tag_patterns(tag: str) -> tuple[str, ...]:
    """Substrings of `tags_json` that occur exactly when `tag` is one of its elements.

    tags_json is `json.dumps(sorted_tags, ensure_ascii=False)`. The tag's JSON spelling alone
    is not enough: `"b"` also occurs in `["a\\"b"]` (an escaped quote). Anchored on the array's
    own punctuation (`[` or `, ` before, `,` or `]` after), the quote after the anchor cannot
    be an escaped one, so the match is a whole element.
    """
    spelled = json.dumps(tag, ensure_ascii=False)
    return tuple(f"{before}{spelled}{after}" for before in ("[", ", ") for after in ("]", ","))


def tag_condition(tag: str) -> str:
    return " OR ".join(f"strpos(tags_json, {literal(p)}) > 0" for p in tag_patterns(tag))


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

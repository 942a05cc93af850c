"""Building LanceDB `where` strings from values that came from users.

Every value goes through `literal()`; nothing else ever formats user input into SQL. Ids and
tags are also validated upstream, so this is the second line of defence, not the only one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from graphit_cli.core.models import MemoryFilter


def literal(value: str) -> str:
    """A single-quoted SQL string literal; an embedded quote is doubled."""
    if "\x00" in value:
        raise ValueError("NUL byte in a filter value")
    return "'" + value.replace("'", "''") + "'"


def in_list(column: str, values: Iterable[str]) -> str:
    items = ", ".join(literal(v) for v in values)
    return f"{column} IN ({items})"


# One element of a JSON array of strings: a quoted run of non-quote characters and escapes.
_ELEMENT = r'"(?:[^"\\]|\\.)*"'
_REGEX_META = frozenset("\\.+*?()|[]{}^$#&-~")


def tag_pattern(tag: str) -> str:
    """A regular expression that matches `tags_json` exactly when `tag` is one of its elements.

    tags_json is `json.dumps(sorted_tags, ensure_ascii=False)`. Looking for the tag's JSON
    spelling is not enough: `"b"` occurs in `["a\\"b"]` (an escaped quote), and anchoring it on
    the array's punctuation still lets a tag that ends in `[` or `, ` supply the anchor
    (`["'[", ","]` holds `[", ",`). The pattern walks the whole array, element by element,
    so the match is always a whole element.
    """
    spelled = json.dumps(tag, ensure_ascii=False)
    exact = "".join(f"\\{c}" if c in _REGEX_META else c for c in spelled)
    return rf"^\[(?:{_ELEMENT}, )*{exact}(?:, {_ELEMENT})*\]$"


def tag_condition(tag: str) -> str:
    spelled = json.dumps(tag, ensure_ascii=False)
    # strpos first: a cheap test that rejects almost every row before the regex runs.
    return (
        f"strpos(tags_json, {literal(spelled)}) > 0"
        f" AND regexp_like(tags_json, {literal(tag_pattern(tag))})"
    )


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

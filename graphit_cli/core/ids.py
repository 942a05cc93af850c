"""Identifier syntax, in one place: ULIDs (project and memory ids) and safe ids (user subjects,
context names). Validated here before an id can reach a path, a URI or a `where` string.

A leaf: imports nothing of graphit's but `errors`.
"""

from __future__ import annotations

import re

from graphit_cli.errors import InvalidInput

ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
# User subjects and context names: a conservative charset, so no id can climb out of a path.
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+=-]{0,127}$")


def validate_ulid(value: str, what: str = "project id") -> str:
    """The canonical (upper-case) ULID, or InvalidInput naming `what` was wrong."""
    candidate = value.strip().upper()
    if not ULID.match(candidate):
        raise InvalidInput(f"invalid {what} {value!r}: expected a 26-character ULID")
    return candidate


def is_safe_id(value: object) -> bool:
    return isinstance(value, str) and ".." not in value and SAFE_ID.match(value) is not None


def validate_safe_id(value: str, what: str) -> str:
    if not is_safe_id(value):
        raise InvalidInput(
            f"invalid {what} {value!r}: use letters, digits and . _ @ + = - (at most 128)"
        )
    return value

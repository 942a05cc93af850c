"""Identifier syntax, in one place: ULIDs (project and memory ids), safe ids (user subjects,
context names), and the names a provider gives (its own, a bucket, a prefix, an endpoint).
Validated here before a name can reach a path, a URI or a `where` string.

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


# A provider's name, an S3 bucket and prefix, an endpoint: checked when a provider is configured
# (access/providers) and when the environment gives one (config.validate).
PROVIDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_PREFIX_PART = re.compile(r"^[A-Za-z0-9_.=+@-]{1,255}$")


def validate_bucket(bucket: str) -> str:
    if not _BUCKET.match(bucket) or ".." in bucket:
        raise InvalidInput(
            f"invalid bucket name {bucket!r}: 3-63 lowercase letters, digits, dots and hyphens"
        )
    return bucket


def normalise_prefix(prefix: str | None) -> str:
    parts = [p for p in (prefix or "").strip().split("/") if p]
    for part in parts:
        if part in (".", "..") or not _PREFIX_PART.match(part):
            raise InvalidInput(
                f"invalid S3 prefix {prefix!r}: "
                "use path segments of letters, digits and . _ = + @ -"
            )
    return "/".join(parts)


def validate_endpoint(endpoint: str | None, what: str = "endpoint") -> str | None:
    if endpoint is None or not endpoint.strip():
        return None
    value = endpoint.strip().rstrip("/")
    if not re.match(r"^https?://[^\s/@]+(/[^\s]*)?$", value):
        raise InvalidInput(f"invalid {what} {endpoint!r}: expected http(s)://host[:port][/path]")
    return value

"""What a provider is: its kinds, validated fields, and where a scope's root lies in a bucket.

Pure (no file, no network).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from graphit_cli import config
from graphit_cli.core.ids import normalise_prefix as normalise_prefix
from graphit_cli.core.ids import validate_bucket as validate_bucket
from graphit_cli.core.ids import validate_endpoint as validate_endpoint
from graphit_cli.errors import InvalidInput

KINDS = ("local", "s3", "broker")
LOCAL = "local"
ENV_PROVIDER_NAME = "s3"  # GRAPHIT_PROVIDER=s3: the provider given by environment
RESERVED_NAMES = (LOCAL, ENV_PROVIDER_NAME)
DEFAULT_REGION = "us-east-1"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Provider:
    name: str
    kind: str = LOCAL
    bucket: str | None = None
    prefix: str = ""
    region: str | None = None
    endpoint: str | None = None
    profile: str | None = None
    token: str | None = field(default=None, repr=False)  # a broker login: never printed

    @property
    def is_remote(self) -> bool:
        return self.kind in ("s3", "broker")

    def describe(self) -> dict[str, Any]:
        """Everything about the provider that is safe to show (no secret, only whether one
        is stored)."""
        info: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "s3":
            info.update(
                bucket=self.bucket,
                prefix=self.prefix,
                region=self.region,
                endpoint=self.endpoint,
                credentials=f"profile {self.profile}" if self.profile else "AWS default chain",
            )
        elif self.kind == "broker":
            info.update(
                endpoint=self.endpoint,
                credentials="login token stored" if self.token else "no login (anonymous)",
            )
        return info

    def location_text(self) -> str:
        if self.kind == "s3":
            where = f"s3://{self.bucket}/{self.prefix}".rstrip("/")
            return where + (f" via {self.endpoint}" if self.endpoint else "")
        if self.kind == "broker":
            return str(self.endpoint)
        return str(config.memory_root())


# --- validation ---------------------------------------------------------------------------


def validate_name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidInput(
            f"invalid provider name {name!r}: use letters, digits and . _ - (at most 64)"
        )
    return name


def is_loopback_url(url: str) -> bool:
    """Whether `url`'s host is this machine (127.0.0.0/8, ::1 or localhost)."""
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def validate_broker_endpoint(endpoint: str | None) -> str:
    """A broker URL: https://, or plain http:// only on this machine (a login token travels
    in every request, so it must never cross a network in clear text)."""
    value = validate_endpoint(endpoint, "broker endpoint")
    if value is None:
        raise InvalidInput("a broker provider needs --endpoint (the broker's URL)")
    if not value.startswith("https://") and not is_loopback_url(value):
        raise InvalidInput(
            f"invalid broker endpoint {value!r}: use https:// (plain http:// only on loopback, "
            "because the login token travels with every request)"
        )
    return value


def make_provider(
    name: str,
    kind: str,
    *,
    bucket: str | None = None,
    prefix: str | None = None,
    region: str | None = None,
    endpoint: str | None = None,
    profile: str | None = None,
    token: str | None = None,
) -> Provider:
    """A validated Provider from `provider add` arguments."""
    validate_name(name)
    if kind not in KINDS:
        raise InvalidInput(f"unknown provider kind {kind!r}: use {', '.join(KINDS)}")
    if kind == "s3":
        if not bucket:
            raise InvalidInput("an s3 provider needs --bucket")
        if token:
            raise InvalidInput("--token-stdin applies to broker providers only")
        return Provider(
            name,
            kind,
            bucket=validate_bucket(bucket),
            prefix=normalise_prefix(prefix),
            region=(region or "").strip() or None,
            endpoint=validate_endpoint(endpoint),
            profile=(profile or "").strip() or None,
        )
    if kind == "broker":
        if not endpoint:
            raise InvalidInput("a broker provider needs --endpoint (the broker's URL)")
        if bucket or prefix or profile or region:
            raise InvalidInput("a broker provider takes only --endpoint and a token")
        return Provider(
            name, kind, endpoint=validate_broker_endpoint(endpoint), token=token or None
        )
    if bucket or prefix or profile or region or endpoint or token:
        raise InvalidInput("a local provider takes no bucket, endpoint or credentials")
    return Provider(name, LOCAL)


# --- where a scope lives in a bucket -------------------------------------------------------


def root_path(kind: str, scope_id: str) -> str:
    """The scope's root below the provider prefix (spec, Scopes and storage)."""
    if kind == "project":
        return f"v2/projects/{scope_id}/memory/"
    if kind == "user":
        return f"v2/users/{scope_id}/memory/"
    raise InvalidInput(f"{kind} scopes have no remote root")


def s3_uri(bucket: str, prefix: str, kind: str, scope_id: str) -> str:
    base = f"{bucket}/{prefix}" if prefix else bucket
    return f"s3://{base}/{root_path(kind, scope_id)}"

"""What a remote open needs: credentials and the access to one remote root.

Handed from `providers` (which finds them) to `store/` (which turns them into LanceDB storage
options). A leaf: imports nothing of graphit's but `errors`, so the store need not import the
providers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from graphit_cli.errors import CredentialsExpired


@dataclass(frozen=True)
class Credentials:
    access_key_id: str
    secret_access_key: str = field(repr=False)
    session_token: str | None = field(default=None, repr=False)
    expires_at: datetime | None = None


@dataclass
class RemoteAccess:
    """How to reach one remote table: endpoint, region and credentials for its root.

    `credentials` None means the store lets the AWS default chain (instance role, web
    identity, ...) find them. `renew`, when set, asks the issuer again for fresh credentials.
    `confirm`, when set (a Hub grant), asks the Hub whether the grant still holds, for the
    login current at that moment: the store calls it before an operation once the grant was
    last confirmed more than the grant-check interval ago (`confirmation_due`). `subject` is
    the user the grant was issued to: a confirmation for another subject is another grant.
    """

    uri: str
    region: str
    endpoint: str | None = None
    credentials: Credentials | None = None
    renew: Callable[[], RemoteAccess] | None = field(default=None, repr=False)
    scoped: bool = False  # credentials limited to one root (a broker grant)
    issued_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    subject: str | None = None
    confirm: Callable[[], RemoteAccess] | None = field(default=None, repr=False)
    # When the issuer last said the grant holds (monotonic seconds; issuing it counts).
    confirmed_at: float = field(default_factory=time.monotonic)
    # Whether an operation has already run on that answer: with no window, each answer
    # authorises one operation (the first one after issuing needs no second question).
    spent: bool = False

    def confirmation_due(self, interval: float, now: float | None = None) -> bool:
        """Whether the grant must be confirmed before the next operation: with interval 0,
        once the last confirmation (or the issuing) has authorised an operation; otherwise
        once `interval` seconds have passed since it."""
        if self.confirm is None:
            return False
        if interval <= 0:
            return self.spent
        return (time.monotonic() if now is None else now) - self.confirmed_at >= interval

    def renewal_due(self, margin: float, now: datetime | None = None) -> bool:
        """Whether the credentials expire within `margin` seconds (or a quarter of their
        lifetime, when that is shorter, so short-lived grants are not renewed on every call)."""
        if self.credentials is None or self.credentials.expires_at is None:
            return False
        moment = now or datetime.now(UTC)
        lifetime = (self.credentials.expires_at - self.issued_at).total_seconds()
        window = min(margin, max(0.0, lifetime) / 4)
        return self.credentials.expires_at - moment <= timedelta(seconds=window)


@dataclass(frozen=True)
class Location:
    """Where one scope's table lives: a local directory (access None) or a remote URI."""

    uri: str
    access: RemoteAccess | None = None

    @property
    def is_remote(self) -> bool:
        return self.access is not None


def renewed(access: RemoteAccess) -> RemoteAccess:
    """Fresh credentials for the same root; CredentialsExpired when none can be had."""
    if access.renew is None:
        raise CredentialsExpired(f"the S3 credentials for {access.uri} expired")
    fresh = access.renew()
    if fresh.credentials == access.credentials and fresh.credentials is not None:
        raise CredentialsExpired(
            f"the S3 credentials for {access.uri} expired and the same ones are still "
            "configured: renew them (for example `aws sso login`) and run the command again"
        )
    return replace(
        fresh, renew=fresh.renew or access.renew, confirm=fresh.confirm or access.confirm
    )

"""Remote (S3) tables: LanceDB storage options, S3 error mapping, credential renewal, and the
re-confirmation of a Hub grant before an operation once the grant-check interval has passed.

`providers` says where a table lives and with which credentials (a `RemoteAccess`); this module
turns that into LanceDB `storage_options`, maps object-store failures (endpoint down, missing
bucket, AccessDenied, expired credentials) to GraphitErrors with their own exit codes, and
renews expired credentials by asking the issuer again. LanceDB 0.40's Python `connect()` has
no credential-refresh hook, so renewal reopens the table with the fresh credentials.

Imports lancedb only through `store.lance`, inside the functions that open a table.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from graphit_cli import config
from graphit_cli.access.credentials import RemoteAccess, renewed
from graphit_cli.errors import (
    AccessDenied,
    CredentialsExpired,
    GraphitError,
    NoSuchBucket,
    StorageUnavailable,
)
from graphit_cli.store.proxy import StoreProxy

if TYPE_CHECKING:
    from collections.abc import Callable

    from graphit_cli.store.base import Store
    from graphit_cli.store.lance import MemoryStore

R = TypeVar("R")

log = logging.getLogger(__name__)

# Renew a little before the issuer's expiry, so no request goes out with a dying credential.
RENEW_MARGIN_SECONDS = 60.0
MAX_RETRIES = 3  # object-store retries of one request (LanceDB's default)

_EXPIRED = ("ExpiredToken", "RequestExpired", "TokenRefreshRequired", "token has expired")
# A HEAD answer has no body, so S3's error code (ExpiredToken, InvalidToken...) is lost: a 400
# to a HEAD is a token S3 no longer takes. Renewal is tried; if it cannot help, exit 9 says so.
_HEAD_400 = re.compile(r"performing HEAD \S+ in [^-]*- Server returned non-2xx status code: 400")
_REJECTED = ("InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "InvalidClientTokenId")
_DENIED = ("<Code>AccessDenied</Code>", "AccessDenied", "lacked the necessary privileges")
_UNREACHABLE = (
    "ConnectionRefused",
    "Connection refused",
    "tcp connect error",
    "dns error",
    "error sending request",
    "operation timed out",
    "connection reset",
    "Connection reset",
    "kind: Connect",
    "kind: Timeout",
    "IncompleteBody",
    "connection closed",
)
_SERVER = re.compile(r"\b(50[0-4]) [A-Z]|<Code>(SlowDown|InternalError|ServiceUnavailable)</Code>")


def storage_options(access: RemoteAccess) -> dict[str, str]:
    """LanceDB/object_store options for one remote table (on AWS and on moto alike)."""
    options = {"aws_region": access.region, "client_max_retries": str(MAX_RETRIES)}
    if access.endpoint:
        options["aws_endpoint"] = access.endpoint
        options["allow_http"] = str(access.endpoint.startswith("http://")).lower()
        options["aws_virtual_hosted_style_request"] = "false"
        # S3-compatible stores (moto among them) check a bulk delete against the whole
        # bucket, so cleanup under credentials scoped to one root would silently do nothing.
        options["aws_disable_bulk_delete"] = "true"
    creds = access.credentials
    if creds is not None:
        options["aws_access_key_id"] = creds.access_key_id
        options["aws_secret_access_key"] = creds.secret_access_key
        if creds.session_token:
            options["aws_session_token"] = creds.session_token
    return options


def _messages(exc: BaseException) -> list[str]:
    """The messages of an exception and of everything it was raised from or during."""
    seen: list[str] = []
    current: BaseException | None = exc
    while current is not None and len(seen) < 10:
        seen.append(str(current))
        current = current.__cause__ or current.__context__
    return seen


def storage_error(exc: BaseException, access: RemoteAccess) -> GraphitError | None:
    """The GraphitError an object-store failure on `access`'s table means, or None."""
    where = access.endpoint or "S3"
    for text in _messages(exc):
        if any(mark in text for mark in _EXPIRED):
            return CredentialsExpired(f"the S3 credentials for {access.uri} expired")
        if _HEAD_400.search(text):
            return CredentialsExpired(
                f"the S3 credentials for {access.uri} expired or were rejected (400 to a HEAD)"
            )
        if "NoSuchBucket" in text or "specified bucket does not exist" in text:
            bucket = access.uri.removeprefix("s3://").split("/", 1)[0]
            return NoSuchBucket(f"bucket {bucket!r} does not exist at {where}")
        rejected = next((mark for mark in _REJECTED if mark in text), None)
        if rejected:
            return AccessDenied(
                f"{where} rejected the S3 credentials ({rejected}) for {access.uri}"
            )
        if any(mark in text for mark in _DENIED) or "403 Forbidden" in text:
            return AccessDenied(
                f"access denied to {access.uri}: the credentials have no grant there"
            )
        if any(mark in text for mark in _UNREACHABLE):
            return StorageUnavailable(f"cannot reach the S3 endpoint {where}: connection failed")
        if _SERVER.search(text):
            return StorageUnavailable(f"the S3 endpoint {where} is failing (server error)")
    return None


class RemoteStore(StoreProxy):
    """A Store on S3: every call maps storage failures and renews expired credentials.

    It passes each call (`StoreProxy`) to a MemoryStore opened at the s3:// URI: an expired
    credential is renewed (once per call, reopening the table) and any object-store failure
    becomes a one-line GraphitError.
    """

    def __init__(self, inner: MemoryStore, access: RemoteAccess, create: bool) -> None:
        super().__init__(inner)
        self.access = access
        self._create = create
        self.grant_check = config.grant_check_seconds()
        self._within = threading.local()  # depth of this thread's open snapshots

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One operation's reads: the grant is confirmed once as it begins (when due) and
        covers the reads inside it on this thread, so a search is one confirmation, not one
        per table call. Each write outside a snapshot is confirmed on its own."""
        depth = getattr(self._within, "depth", 0)
        if depth == 0:
            self.confirm_if_due()
        self._within.depth = depth + 1
        try:
            with self.inner.snapshot():
                yield
        finally:
            self._within.depth = depth

    def _call(self, op: Callable[[Store], R]) -> R:
        if not getattr(self._within, "depth", 0):
            self.confirm_if_due()
        self.renew_if_due()
        try:
            return op(self.inner)
        except Exception as exc:
            mapped = storage_error(exc, self.access)
            if not isinstance(mapped, CredentialsExpired) or self.access.renew is None:
                if mapped is not None:
                    raise mapped from exc
                raise
        # Expired mid-command: ask the issuer again, reopen, and repeat the call once. A merge
        # that failed this way did not commit; repeating it is the service's CAS retry anyway.
        log.debug("credentials expired during a call to %s; renewing", self.uri)
        self.renew()
        try:
            return op(self.inner)
        except Exception as exc:
            mapped = storage_error(exc, self.access)
            if mapped is not None:
                raise mapped from exc
            raise

    def renew_if_due(self) -> None:
        if self.access.renew is not None and self.access.renewal_due(RENEW_MARGIN_SECONDS):
            self.renew()

    def confirm_if_due(self) -> None:
        """Ask the Hub again whether the grant holds: before every operation (the default,
        `grant_check` 0; the first one after issuing runs on the issuing itself), or once
        `grant_check` seconds have passed since it last said so. A refusal (revoked, logged
        out) fails this operation, and the next one asks again. The handle is kept when the
        same subject's grant still covers the same table, so its warm caches survive; another
        subject's grant reopens it."""
        if not self.access.confirmation_due(self.grant_check):
            self.access.spent = True  # this operation runs on the last answer
            return
        assert self.access.confirm is not None
        asked = time.monotonic()
        fresh = self.access.confirm()
        if fresh.uri != self.access.uri:
            raise AccessDenied(
                f"the Hub now keeps this scope at {fresh.uri}, not {self.access.uri}: open it again"
            )
        if fresh.subject != self.access.subject or (
            self.access.renew is not None and self.access.renewal_due(RENEW_MARGIN_SECONDS)
        ):
            self._reopen(fresh)
        else:
            self.access.confirmed_at = asked
        self.access.spent = True  # ... and this one on the fresh answer
        log.debug("grant for %s confirmed (subject %s)", self.uri, fresh.subject)

    def renew(self) -> None:
        self._reopen(renewed(self.access))

    def _reopen(self, access: RemoteAccess) -> None:
        from graphit_cli.store.lance import MemoryStore

        self.access = access
        try:
            self.inner = MemoryStore.open(
                self.access.uri, create=self._create, storage_options=storage_options(self.access)
            )
        except Exception as exc:
            mapped = storage_error(exc, self.access)
            if mapped is not None:
                raise mapped from exc
            raise


def open_remote(access: RemoteAccess, *, create: bool = True) -> RemoteStore:
    """Open (or create) the table at `access.uri` with its credentials."""
    from graphit_cli.store.lance import MemoryStore

    if access.renew is not None and access.renewal_due(RENEW_MARGIN_SECONDS):
        access = renewed(access)
    _refuse_a_closed_endpoint(access)
    for attempt in (1, 2):
        try:
            inner = MemoryStore.open(
                access.uri, create=create, storage_options=storage_options(access)
            )
            break
        except Exception as exc:
            mapped = storage_error(exc, access)
            if isinstance(mapped, CredentialsExpired) and access.renew is not None and attempt == 1:
                access = renewed(access)
                continue
            if mapped is not None:
                raise mapped from exc
            raise
    return RemoteStore(inner, access, create)


# How long the endpoint's port may take to accept a connection before the table's own
# requests are left to find out (a slow endpoint is not a closed one).
ENDPOINT_PROBE_SECONDS = 1.0


def _refuse_a_closed_endpoint(access: RemoteAccess) -> None:
    """A configured endpoint whose port refuses connections (or whose host name does not
    resolve) is down: say so at once. The object store would retry each request, and LanceDB
    its own steps, for 5-7 s before failing the same way. One TCP connection (~1 ms on a
    LAN); any other outcome, a timeout included, is left to the requests themselves."""
    import socket
    from urllib.parse import urlsplit

    if not access.endpoint:
        return
    parts = urlsplit(access.endpoint)
    if not parts.hostname:
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=ENDPOINT_PROBE_SECONDS):
            return
    except (ConnectionRefusedError, socket.gaierror) as exc:
        reason = "connection refused" if isinstance(exc, ConnectionRefusedError) else "no such host"
        raise StorageUnavailable(
            f"cannot reach the S3 endpoint {access.endpoint}: {reason}"
        ) from None
    except OSError:
        return

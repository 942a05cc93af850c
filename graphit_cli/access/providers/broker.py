"""The broker client: an HTTP endpoint that authenticates a login token, says who the user is,
and issues temporary STS credentials plus the topology for one root at a time.

Standard library only. The login token travels in every request, so broker endpoints are
https:// (plain http:// only on loopback) and a redirect is never followed.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from graphit_cli.access.credentials import Credentials, RemoteAccess
from graphit_cli.access.providers.model import (
    DEFAULT_REGION,
    Provider,
    normalise_prefix,
    s3_uri,
    validate_broker_endpoint,
    validate_bucket,
    validate_endpoint,
)
from graphit_cli.access.scopes import ANONYMOUS, Scope
from graphit_cli.core.ids import is_safe_id
from graphit_cli.errors import AccessDenied, InvalidInput, StorageUnavailable

log = logging.getLogger(__name__)

BROKER_TIMEOUT = 10.0  # seconds for one broker request
# Grants that open the user root: an exact project grant never does (spec, Optional S3 backend).
USER_ROOT_GRANTS = ("*", "global")


def validate_subject(subject: object) -> str:
    if not isinstance(subject, str) or not is_safe_id(subject):
        raise AccessDenied("the broker returned an invalid user subject")
    if subject == ANONYMOUS:
        raise AccessDenied("the broker returned the reserved subject 'anonymous'")
    return subject


def grant_allows(grants: Iterable[str], root: str, scope_id: str | None = None) -> str | None:
    """The grant that opens `root` (`project` with its ULID, or `user`), or None.

    `*` opens every root; `global` opens the user root; an exact project ULID opens that
    project only (it never opens the user root).
    """
    held = [g.strip() for g in grants]
    if "*" in held:
        return "*"
    if root == "user":
        return "global" if "global" in held else None
    if root == "project" and scope_id and scope_id in held:
        return scope_id
    return None


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class BrokerClient:
    """The broker's HTTP contract (JSON both ways, `Authorization: Bearer <token>`):

    - `GET  /v1/whoami`       -> `{"subject": "<user id>"}`
    - `POST /v1/credentials`  `{"root": "project", "id": "<ULID>"}` or `{"root": "user"}`
      -> `{"subject", "grant", "topology": {"bucket", "prefix", "region", "endpoint"},
           "credentials": {"access_key_id", "secret_access_key", "session_token", "expiration"}}`

    401 means the token is not accepted (not logged in); 403 means no grant for that root.
    """

    def __init__(self, provider: Provider, token: str) -> None:
        # Checked again here, not only by `provider add`: providers.json may be edited by hand.
        self.endpoint = validate_broker_endpoint(provider.endpoint)
        self.provider = provider
        self._token = token

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.endpoint + path,
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self._token}",
                "Accept": "application/json",
                **({"Content-Type": "application/json"} if data is not None else {}),
            },
        )
        try:
            with _OPENER.open(request, timeout=BROKER_TIMEOUT) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                raise StorageUnavailable(
                    f"the broker at {self.endpoint} answered with a redirect (HTTP {exc.code}); "
                    "broker calls never follow one (the login token would go with it): "
                    "configure the broker's final URL"
                ) from None
            reason = _error_reason(exc)
            if exc.code == 401:
                raise AccessDenied(
                    f"broker provider {self.provider.name!r} did not accept the login token"
                    f"{reason}: log in again"
                ) from None
            if exc.code == 403:
                raise AccessDenied(f"the broker refused access{reason}") from None
            raise StorageUnavailable(
                f"the broker at {self.endpoint} answered HTTP {exc.code}{reason}"
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            why = getattr(exc, "reason", exc)
            raise StorageUnavailable(f"cannot reach the broker at {self.endpoint}: {why}") from None
        except ValueError:
            raise StorageUnavailable(f"the broker at {self.endpoint} sent invalid JSON") from None
        if not isinstance(payload, dict):
            raise StorageUnavailable(f"the broker at {self.endpoint} sent an unexpected answer")
        return payload

    def whoami(self) -> dict[str, Any]:
        return self._call("GET", "/v1/whoami")

    def grant(self, scope: Scope) -> RemoteAccess:
        """Fresh credentials and topology for `scope`'s root (checked against the spec's rules)."""
        body: dict[str, Any] = {"root": scope.kind}
        if scope.kind == "project":
            body["id"] = scope.id
        answer = self._call("POST", "/v1/credentials", body)
        subject = validate_subject(answer.get("subject"))
        grant = str(answer.get("grant") or "")
        if scope.kind == "user":
            # Defence in depth: an exact project grant never opens the user root.
            if grant not in USER_ROOT_GRANTS:
                raise AccessDenied(
                    "the user memory root needs a grant for '*' or 'global'; "
                    f"the broker issued {grant or 'no grant'!r}"
                )
            if subject != scope.id:
                raise AccessDenied(
                    f"the broker authenticated {subject!r}, not the user scope {scope.id!r}"
                )
        elif grant_allows([grant], scope.kind, scope.id) is None:
            raise AccessDenied(f"the broker's grant {grant!r} does not cover project {scope.id}")
        topology = answer.get("topology") or {}
        raw = answer.get("credentials") or {}
        if not isinstance(topology, dict) or not isinstance(raw, dict):
            raise StorageUnavailable(f"the broker at {self.endpoint} sent an unexpected answer")
        try:
            bucket = validate_bucket(str(topology["bucket"]))
            creds = Credentials(
                str(raw["access_key_id"]),
                str(raw["secret_access_key"]),
                str(raw.get("session_token") or "") or None,
                _parse_time(raw.get("expiration")),
            )
        except (KeyError, InvalidInput):
            raise StorageUnavailable(
                f"the broker at {self.endpoint} sent incomplete topology or credentials"
            ) from None
        return RemoteAccess(
            uri=s3_uri(bucket, normalise_prefix(topology.get("prefix")), scope.kind, scope.id),
            region=str(topology.get("region") or DEFAULT_REGION),
            endpoint=validate_endpoint(topology.get("endpoint"), "broker endpoint"),
            credentials=creds,
            renew=lambda: self.grant(scope),
            scoped=True,
            subject=subject,
        )


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """urllib would follow a redirect with `Authorization` still attached, handing the login
    token to whatever host the redirect names. A redirect surfaces as its HTTPError instead."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect())


def _error_reason(exc: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(exc.read().decode("utf-8")).get("error")
    except Exception as error:  # no JSON body: the status code says enough
        log.debug("broker error body unreadable: %s", error)
        return ""
    return f": {str(detail).splitlines()[0][:200]}" if detail else ""

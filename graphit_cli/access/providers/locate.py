"""Where a scope's table lives under the active provider, with fresh access for a remote one.

Remote scopes are authorised afresh on every call: a broker is asked again each time, and a
broker grant carries `confirm`, which asks it again later for the login current then (the
store confirms a grant before an operation once the grant-check interval has passed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from graphit_cli import environ
from graphit_cli.access.credentials import Location, RemoteAccess
from graphit_cli.access.providers.aws import aws_credentials, aws_region
from graphit_cli.access.providers.broker import BrokerClient
from graphit_cli.access.providers.configfile import active_provider
from graphit_cli.access.providers.identity import broker_token
from graphit_cli.access.providers.model import DEFAULT_REGION, Provider, s3_uri
from graphit_cli.access.scopes import ANONYMOUS, Scope
from graphit_cli.errors import AccessDenied


def stays_local(scope: Scope) -> bool:
    """Scopes that never leave this machine: the anonymous user and imported contexts."""
    return scope.kind == "context" or (scope.kind == "user" and scope.id == ANONYMOUS)


def is_remote_scope(scope: Scope, provider: Provider | None = None) -> bool:
    """Whether `scope`'s table is remote under the active provider (no network call)."""
    chosen = provider or active_provider()
    return chosen.is_remote and not stays_local(scope)


def resolve(scope: Scope, provider: Provider | None = None) -> Location:
    """Where `scope`'s table lives under the active provider, with fresh access for it.

    Remote scopes are authorised afresh on every call: a broker is asked again each time.
    """
    chosen = provider or active_provider()
    if not chosen.is_remote or stays_local(scope):
        return Location(str(scope.local_path()))
    access = s3_access(chosen, scope) if chosen.kind == "s3" else broker_access(chosen, scope)
    return Location(access.uri, access)


def s3_access(provider: Provider, scope: Scope) -> RemoteAccess:
    assert provider.bucket is not None

    def fresh() -> RemoteAccess:
        creds, profile_region = aws_credentials(provider.profile)
        return RemoteAccess(
            uri=s3_uri(provider.bucket or "", provider.prefix, scope.kind, scope.id),
            region=provider.region or aws_region() or profile_region or DEFAULT_REGION,
            endpoint=provider.endpoint,
            credentials=creds,
            renew=fresh,  # re-read the chain: a refreshed profile or SSO login is picked up
        )

    return fresh()


def broker_access(provider: Provider, scope: Scope) -> RemoteAccess:
    """A grant for `scope`'s root from the broker, with the login as it is now.

    Its `renew` and `confirm` ask again with the login current at that moment (providers.json
    and GRAPHIT_BROKER_TOKEN are read again): a logout, a changed token or a withdrawn grant is
    refused there, never answered from what this process was told before.
    """

    def current() -> RemoteAccess:
        chosen = active_provider()
        if (chosen.name, chosen.kind, chosen.endpoint) != (
            provider.name,
            provider.kind,
            provider.endpoint,
        ):
            raise AccessDenied(
                f"broker provider {provider.name!r} is no longer the active provider: "
                f"{scope} must be opened again under the active one"
            )
        return _grant(chosen, scope, current)

    return _grant(provider, scope, current)


def _grant(provider: Provider, scope: Scope, again: Callable[[], RemoteAccess]) -> RemoteAccess:
    token = broker_token(provider)
    if not token:
        raise AccessDenied(
            f"not logged in to broker provider {provider.name!r}: anonymous callers get no S3 "
            "credentials (store a token with `graphit provider add ... --token-stdin` or set "
            f"{environ.ENV_BROKER_TOKEN})"
        )
    return replace(BrokerClient(provider, token).grant(scope), renew=again, confirm=again)

"""Where a scope's table lives under the active provider, with fresh access for a remote one.

Remote scopes are authorised afresh on every call: a broker is asked again each time.
"""

from __future__ import annotations

from graphit_cli import config
from graphit_cli.credentials import Location, RemoteAccess
from graphit_cli.errors import AccessDenied
from graphit_cli.providers.aws import aws_credentials, aws_region
from graphit_cli.providers.broker import BrokerClient
from graphit_cli.providers.configfile import active_provider
from graphit_cli.providers.identity import broker_token
from graphit_cli.providers.model import DEFAULT_REGION, Provider, s3_uri
from graphit_cli.scopes import ANONYMOUS, Scope


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
    token = broker_token(provider)
    if not token:
        raise AccessDenied(
            f"not logged in to broker provider {provider.name!r}: anonymous callers get no S3 "
            "credentials (store a token with `graphit provider add ... --token-stdin` or set "
            f"{config.ENV_BROKER_TOKEN})"
        )
    client = BrokerClient(provider, token)

    def fresh() -> RemoteAccess:
        return client.grant(scope)

    return fresh()

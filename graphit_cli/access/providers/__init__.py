"""Storage providers: where a scope's table lives, the credentials to reach it, and who the
user is.

A provider is `local` (the default: every table under ~/.graphit/memory/), `s3` (a bucket and
prefix; credentials from the standard AWS sources or a named profile) or `broker` (an HTTPS
endpoint that authenticates a login token and issues temporary STS credentials plus the
topology for one root at a time). The configuration lives in ~/.graphit/providers.json with
mode 0600; `GRAPHIT_PROVIDER=s3` with `GRAPHIT_S3_*` and the standard `AWS_*` variables gives
a provider entirely by environment (CI).

Identity and grants: the user scope's id is the subject a broker authenticated, never a flag;
without a login it is `anonymous` and its table stays local whatever the provider. Every
remote open asks afresh (`resolve`); nothing on disk grants access. A broker opens the user
root only with a grant that applies to `*` or `global`.

Modules: `model` (what a provider is), `configfile` (providers.json, the active provider),
`aws` (the AWS credential chain), `broker` (the broker client), `identity` (the user, and which
scope a command means), `locate` (where a scope's table lives). Configuration and an HTTP
client, standard library only: no lancedb here. What a remote open needs is handed to
`store/` as a `credentials.RemoteAccess`. Everything public is re-exported here, each
imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphit_cli.access.credentials import Credentials, Location, RemoteAccess, renewed
    from graphit_cli.access.providers.aws import aws_credentials, aws_region
    from graphit_cli.access.providers.broker import (
        BROKER_TIMEOUT,
        USER_ROOT_GRANTS,
        BrokerClient,
        grant_allows,
        validate_subject,
    )
    from graphit_cli.access.providers.configfile import (
        ProviderConfig,
        active_provider,
        add_provider,
        env_provider,
        list_providers,
        load_config,
        remove_provider,
        save_config,
        use_provider,
    )
    from graphit_cli.access.providers.identity import (
        broker_token,
        resolve_scope,
        user_id,
        user_subject,
    )
    from graphit_cli.access.providers.locate import (
        broker_access,
        is_remote_scope,
        resolve,
        s3_access,
        stays_local,
    )
    from graphit_cli.access.providers.model import (
        DEFAULT_REGION,
        ENV_PROVIDER_NAME,
        KINDS,
        LOCAL,
        RESERVED_NAMES,
        Provider,
        is_loopback_url,
        make_provider,
        normalise_prefix,
        root_path,
        s3_uri,
        validate_broker_endpoint,
        validate_bucket,
        validate_endpoint,
        validate_name,
    )

# Each public name and the module it lives in: imported on first use (PEP 562), so that a
# module that needs one light part (the configuration file, for the fingerprint of a hook) does
# not load the broker client, urllib and the credential chain.
_WHERE = {
    "Credentials": "graphit_cli.access.credentials",
    "Location": "graphit_cli.access.credentials",
    "RemoteAccess": "graphit_cli.access.credentials",
    "renewed": "graphit_cli.access.credentials",
    "aws_credentials": "graphit_cli.access.providers.aws",
    "aws_region": "graphit_cli.access.providers.aws",
    "BROKER_TIMEOUT": "graphit_cli.access.providers.broker",
    "USER_ROOT_GRANTS": "graphit_cli.access.providers.broker",
    "BrokerClient": "graphit_cli.access.providers.broker",
    "grant_allows": "graphit_cli.access.providers.broker",
    "validate_subject": "graphit_cli.access.providers.broker",
    "ProviderConfig": "graphit_cli.access.providers.configfile",
    "active_provider": "graphit_cli.access.providers.configfile",
    "add_provider": "graphit_cli.access.providers.configfile",
    "env_provider": "graphit_cli.access.providers.configfile",
    "list_providers": "graphit_cli.access.providers.configfile",
    "load_config": "graphit_cli.access.providers.configfile",
    "remove_provider": "graphit_cli.access.providers.configfile",
    "save_config": "graphit_cli.access.providers.configfile",
    "use_provider": "graphit_cli.access.providers.configfile",
    "broker_token": "graphit_cli.access.providers.identity",
    "resolve_scope": "graphit_cli.access.providers.identity",
    "user_id": "graphit_cli.access.providers.identity",
    "user_subject": "graphit_cli.access.providers.identity",
    "broker_access": "graphit_cli.access.providers.locate",
    "is_remote_scope": "graphit_cli.access.providers.locate",
    "resolve": "graphit_cli.access.providers.locate",
    "s3_access": "graphit_cli.access.providers.locate",
    "stays_local": "graphit_cli.access.providers.locate",
    "DEFAULT_REGION": "graphit_cli.access.providers.model",
    "ENV_PROVIDER_NAME": "graphit_cli.access.providers.model",
    "KINDS": "graphit_cli.access.providers.model",
    "LOCAL": "graphit_cli.access.providers.model",
    "RESERVED_NAMES": "graphit_cli.access.providers.model",
    "Provider": "graphit_cli.access.providers.model",
    "is_loopback_url": "graphit_cli.access.providers.model",
    "make_provider": "graphit_cli.access.providers.model",
    "normalise_prefix": "graphit_cli.access.providers.model",
    "root_path": "graphit_cli.access.providers.model",
    "s3_uri": "graphit_cli.access.providers.model",
    "validate_broker_endpoint": "graphit_cli.access.providers.model",
    "validate_bucket": "graphit_cli.access.providers.model",
    "validate_endpoint": "graphit_cli.access.providers.model",
    "validate_name": "graphit_cli.access.providers.model",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "BROKER_TIMEOUT",
    "DEFAULT_REGION",
    "ENV_PROVIDER_NAME",
    "KINDS",
    "LOCAL",
    "RESERVED_NAMES",
    "USER_ROOT_GRANTS",
    "BrokerClient",
    "Credentials",
    "Location",
    "Provider",
    "ProviderConfig",
    "RemoteAccess",
    "active_provider",
    "add_provider",
    "aws_credentials",
    "aws_region",
    "broker_access",
    "broker_token",
    "env_provider",
    "grant_allows",
    "is_loopback_url",
    "is_remote_scope",
    "list_providers",
    "load_config",
    "make_provider",
    "normalise_prefix",
    "remove_provider",
    "renewed",
    "resolve",
    "resolve_scope",
    "root_path",
    "s3_access",
    "s3_uri",
    "save_config",
    "stays_local",
    "use_provider",
    "user_id",
    "user_subject",
    "validate_broker_endpoint",
    "validate_bucket",
    "validate_endpoint",
    "validate_name",
    "validate_subject",
]

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
`store/` as a `credentials.RemoteAccess`. Everything public is re-exported here.
"""

from __future__ import annotations

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
from graphit_cli.access.providers.identity import broker_token, resolve_scope, user_id, user_subject
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

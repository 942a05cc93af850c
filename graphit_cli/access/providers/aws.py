"""AWS credentials from the standard sources (environment, shared files, botocore profiles)."""

from __future__ import annotations

import configparser
import os
from pathlib import Path

from graphit_cli.access.credentials import Credentials
from graphit_cli.errors import AccessDenied, InvalidInput


def aws_region() -> str | None:
    return (
        os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or ""
    ).strip() or None


def _ini(path_env: str, default: str) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser()
    path = Path(os.environ.get(path_env) or Path.home() / ".aws" / default).expanduser()
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None
    return parser


def aws_credentials(profile: str | None = None) -> tuple[Credentials | None, str | None]:
    """(credentials, profile region) from the standard AWS sources, in their usual order.

    An explicit profile wins; then AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (+AWS_SESSION_TOKEN);
    then AWS_PROFILE or the default profile in ~/.aws/credentials and ~/.aws/config. Profiles
    without static keys (SSO, assume-role, credential_process) need botocore. None means: let
    the store walk the AWS default chain (web identity, container and instance roles).
    """
    if not profile:
        key = os.environ.get("AWS_ACCESS_KEY_ID", "").strip()
        secret = os.environ.get("AWS_SECRET_ACCESS_KEY", "").strip()
        if key and secret:
            token = os.environ.get("AWS_SESSION_TOKEN", "").strip() or None
            return Credentials(key, secret, token), None
    name = profile or os.environ.get("AWS_PROFILE", "").strip() or "default"
    creds_file = _ini("AWS_SHARED_CREDENTIALS_FILE", "credentials")
    config_file = _ini("AWS_CONFIG_FILE", "config")
    section = name if name == "default" else f"profile {name}"
    settings: dict[str, str] = {}
    if config_file.has_section(section):
        settings.update(config_file.items(section))
    if creds_file.has_section(name):
        settings.update(creds_file.items(name))
    region = settings.get("region") or None
    if settings.get("aws_access_key_id") and settings.get("aws_secret_access_key"):
        return (
            Credentials(
                settings["aws_access_key_id"],
                settings["aws_secret_access_key"],
                settings.get("aws_session_token") or None,
            ),
            region,
        )
    if settings:  # SSO, role_arn, credential_process, ...: botocore knows them all
        return _botocore_credentials(name), region
    if profile:
        raise InvalidInput(
            f"no AWS profile named {profile!r} in ~/.aws/credentials or ~/.aws/config"
        )
    return None, region


def _botocore_credentials(profile: str) -> Credentials:
    try:
        import botocore.session  # type: ignore[import-untyped]
    except ImportError:
        raise InvalidInput(
            f"AWS profile {profile!r} has no static keys; install boto3 to use SSO, "
            "assume-role or credential_process profiles"
        ) from None
    try:
        found = botocore.session.Session(profile=profile).get_credentials()
        frozen = found.get_frozen_credentials() if found is not None else None
    except Exception as exc:
        raise AccessDenied(f"AWS profile {profile!r}: {str(exc).splitlines()[0]}") from None
    if frozen is None:
        raise AccessDenied(f"AWS profile {profile!r} yields no credentials")
    expiry = getattr(found, "_expiry_time", None)
    return Credentials(frozen.access_key, frozen.secret_key, frozen.token, expiry)

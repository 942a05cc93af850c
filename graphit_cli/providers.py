"""Storage providers: where a scope's table lives and the credentials to reach it.

A provider is `local` (the default: every table under ~/.graphit/memory/), `s3` (a bucket and
prefix; credentials from the standard AWS sources or a named profile) or `broker` (an HTTP
endpoint that authenticates a login token and issues temporary STS credentials plus the
topology for one root at a time). The configuration lives in ~/.graphit/providers.json with
mode 0600; `GRAPHIT_PROVIDER=s3` with `GRAPHIT_S3_*` and the standard `AWS_*` variables gives
a provider entirely by environment (CI).

Identity and grants: the user scope's id is the subject a broker authenticated, never a flag;
without a login it is `anonymous` and its table stays local whatever the provider. Every
remote open asks afresh (`resolve`); nothing on disk grants access. A broker opens the user
root only with a grant that applies to `*` or `global`.

Pure configuration and an HTTP client (stdlib only): no lancedb here. What a remote open
needs is handed to `store/` as a `RemoteAccess`, which turns it into LanceDB storage options.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphit_cli import config
from graphit_cli.errors import (
    AccessDenied,
    CredentialsExpired,
    InvalidInput,
    StorageUnavailable,
)
from graphit_cli.scopes import ANONYMOUS

if TYPE_CHECKING:
    from graphit_cli.scopes import Scope

KINDS = ("local", "s3", "broker")
LOCAL = "local"
ENV_PROVIDER_NAME = "s3"  # GRAPHIT_PROVIDER=s3: the provider given by environment
RESERVED_NAMES = (LOCAL, ENV_PROVIDER_NAME)
DEFAULT_REGION = "us-east-1"
BROKER_TIMEOUT = 10.0  # seconds for one broker request
# Grants that open the user root: an exact project grant never does (spec, Optional S3 backend).
USER_ROOT_GRANTS = ("*", "global")

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_PREFIX_PART = re.compile(r"^[A-Za-z0-9_.=+@-]{1,255}$")
_SUBJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+=-]{0,127}$")


# --- what a provider is -------------------------------------------------------------------


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
    """

    uri: str
    region: str
    endpoint: str | None = None
    credentials: Credentials | None = None
    renew: Callable[[], RemoteAccess] | None = field(default=None, repr=False)
    scoped: bool = False  # credentials limited to one root (a broker grant)
    subject: str | None = None
    issued_at: datetime = field(default_factory=lambda: datetime.now(UTC))

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


# --- validation ---------------------------------------------------------------------------


def validate_name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidInput(
            f"invalid provider name {name!r}: use letters, digits and . _ - (at most 64)"
        )
    return name


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


def validate_subject(subject: object) -> str:
    if not isinstance(subject, str) or ".." in subject or not _SUBJECT.match(subject):
        raise AccessDenied("the broker returned an invalid user subject")
    if subject == ANONYMOUS:
        raise AccessDenied("the broker returned the reserved subject 'anonymous'")
    return subject


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


# --- the configuration file ---------------------------------------------------------------


@dataclass
class ProviderConfig:
    active: str = LOCAL
    providers: dict[str, Provider] = field(default_factory=dict)

    def get(self, name: str) -> Provider:
        if name == LOCAL:
            return self.providers.get(LOCAL, Provider(LOCAL))
        try:
            return self.providers[name]
        except KeyError:
            known = ", ".join(sorted({LOCAL, *self.providers})) or LOCAL
            raise InvalidInput(f"no provider named {name!r} (known: {known})") from None


def _from_dict(name: str, raw: object) -> Provider:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{config.providers_file()}: provider {name!r} is not an object")

    def text(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) and value else None

    if (text("kind") or LOCAL) not in KINDS:
        raise InvalidInput(f"{config.providers_file()}: provider {name!r} has an unknown kind")

    return Provider(
        name,
        text("kind") or LOCAL,
        bucket=text("bucket"),
        prefix=text("prefix") or "",
        region=text("region"),
        endpoint=text("endpoint"),
        profile=text("profile"),
        token=text("token"),
    )


def load_config() -> ProviderConfig:
    path = config.providers_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ProviderConfig()
    except (OSError, ValueError):
        raise InvalidInput(f"{path} is not valid JSON: fix or remove it") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path}: expected a JSON object")
    raw = data.get("providers") or {}
    if not isinstance(raw, dict):
        raise InvalidInput(f"{path}: 'providers' must be an object")
    providers = {name: _from_dict(name, value) for name, value in raw.items()}
    active = data.get("active") or LOCAL
    return ProviderConfig(active if isinstance(active, str) else LOCAL, providers)


def save_config(cfg: ProviderConfig) -> Path:
    """Write atomically with mode 0600 (the file may hold a broker token)."""
    path = config.providers_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "version": 1,
        "active": cfg.active,
        "providers": {
            name: {k: v for k, v in asdict(p).items() if k != "name" and v not in (None, "")}
            for name, p in sorted(cfg.providers.items())
        },
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".providers.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    os.chmod(path, 0o600)
    return path


def add_provider(
    provider: Provider, *, activate: bool = False, replace_existing: bool = False
) -> None:
    if provider.name in RESERVED_NAMES and provider.kind != LOCAL:
        raise InvalidInput(
            f"{provider.name!r} is reserved ({ENV_PROVIDER_NAME!r} means the environment-only "
            "S3 provider): choose another name"
        )
    cfg = load_config()
    if provider.name in cfg.providers and not replace_existing:
        raise InvalidInput(
            f"a provider named {provider.name!r} exists: remove it first or --replace"
        )
    cfg.providers[provider.name] = provider
    if activate:
        cfg.active = provider.name
    save_config(cfg)


def use_provider(name: str) -> Provider:
    cfg = load_config()
    provider = cfg.get(name)
    cfg.active = provider.name
    save_config(cfg)
    return provider


def remove_provider(name: str) -> bool:
    """Forget a provider (never any data). Returns whether it was the active one."""
    cfg = load_config()
    if name not in cfg.providers:
        cfg.get(name)  # raises the "no provider named" error
        raise InvalidInput("the built-in local provider cannot be removed")
    del cfg.providers[name]
    was_active = cfg.active == name
    if was_active:
        cfg.active = LOCAL
    save_config(cfg)
    return was_active


def list_providers() -> tuple[str, list[Provider]]:
    """(the active provider's name, every provider with the built-in local one first)."""
    cfg = load_config()
    listed = [cfg.get(LOCAL)] + [p for n, p in sorted(cfg.providers.items()) if n != LOCAL]
    return active_provider().name, listed


def env_provider() -> Provider:
    bucket = os.environ.get(config.ENV_S3_BUCKET, "").strip()
    if not bucket:
        raise InvalidInput(f"{config.ENV_PROVIDER}=s3 needs {config.ENV_S3_BUCKET}")
    return Provider(
        ENV_PROVIDER_NAME,
        "s3",
        bucket=validate_bucket(bucket),
        prefix=normalise_prefix(os.environ.get(config.ENV_S3_PREFIX)),
        endpoint=validate_endpoint(os.environ.get(config.ENV_S3_ENDPOINT), config.ENV_S3_ENDPOINT),
    )


def active_provider() -> Provider:
    """GRAPHIT_PROVIDER (s3 = by environment, local, or a configured name), else the file's."""
    chosen = os.environ.get(config.ENV_PROVIDER, "").strip()
    if chosen == ENV_PROVIDER_NAME:
        return env_provider()
    cfg = load_config()
    return cfg.get(chosen or cfg.active)


# --- identity -----------------------------------------------------------------------------


def broker_token(provider: Provider) -> str | None:
    return os.environ.get(config.ENV_BROKER_TOKEN, "").strip() or provider.token or None


def user_subject(provider: Provider | None = None) -> str:
    """The user scope's id: the subject the provider's login authenticates, else anonymous.

    Only a broker authenticates a user; plain S3 credentials carry no Hub identity.
    """
    chosen = provider or active_provider()
    if chosen.kind != "broker":
        return ANONYMOUS
    token = broker_token(chosen)
    if not token:
        return ANONYMOUS
    answer = BrokerClient(chosen, token).whoami()
    return validate_subject(answer.get("subject"))


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


# --- where a scope lives ------------------------------------------------------------------


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


# --- AWS credentials from the standard sources --------------------------------------------


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


# --- the broker client --------------------------------------------------------------------


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
    except Exception:
        return ""
    return f": {str(detail).splitlines()[0][:200]}" if detail else ""


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
    return replace(fresh, renew=fresh.renew or access.renew)

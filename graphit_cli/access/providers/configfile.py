"""The provider configuration: ~/.graphit/providers.json (mode 0600) and the active provider.

`GRAPHIT_PROVIDER=s3` with `GRAPHIT_S3_*` gives a provider entirely by environment (CI);
`GRAPHIT_PROVIDER=<name>` picks a configured one.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graphit_cli import config, environ
from graphit_cli.access import statefile
from graphit_cli.access.providers.model import (
    ENV_PROVIDER_NAME,
    KINDS,
    LOCAL,
    RESERVED_NAMES,
    Provider,
    normalise_prefix,
    validate_bucket,
    validate_endpoint,
)
from graphit_cli.errors import InvalidInput


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
        data = statefile.read_json(path)
    except (OSError, ValueError):
        raise InvalidInput(f"{path} is not valid JSON: fix or remove it") from None
    if data is None:
        return ProviderConfig()
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
    payload = {
        "version": 1,
        "active": cfg.active,
        "providers": {
            name: {k: v for k, v in asdict(p).items() if k != "name" and v not in (None, "")}
            for name, p in sorted(cfg.providers.items())
        },
    }
    statefile.write_json(path, payload, mode=0o600)  # atomic, and 0600 from the first byte
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
    bucket = os.environ.get(environ.ENV_S3_BUCKET, "").strip()
    if not bucket:
        raise InvalidInput(f"{environ.ENV_PROVIDER}=s3 needs {environ.ENV_S3_BUCKET}")
    return Provider(
        ENV_PROVIDER_NAME,
        "s3",
        bucket=validate_bucket(bucket),
        prefix=normalise_prefix(os.environ.get(environ.ENV_S3_PREFIX)),
        endpoint=validate_endpoint(
            os.environ.get(environ.ENV_S3_ENDPOINT), environ.ENV_S3_ENDPOINT
        ),
    )


def active_provider() -> Provider:
    """GRAPHIT_PROVIDER (s3 = by environment, local, or a configured name), else the file's."""
    chosen = os.environ.get(environ.ENV_PROVIDER, "").strip()
    if chosen == ENV_PROVIDER_NAME:
        return env_provider()
    cfg = load_config()
    return cfg.get(chosen or cfg.active)

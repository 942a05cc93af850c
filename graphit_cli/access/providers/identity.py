"""Who the user is, and which scope a command means: the user scope's id is the provider's
answer (the subject a broker authenticated), never a flag; without a login it is `anonymous`.
"""

from __future__ import annotations

import os
from pathlib import Path

from graphit_cli import environ
from graphit_cli.access.providers.broker import BrokerClient, validate_subject
from graphit_cli.access.providers.configfile import active_provider
from graphit_cli.access.providers.model import Provider
from graphit_cli.access.scopes import ANONYMOUS, Scope, current_project_id
from graphit_cli.core.ids import validate_safe_id
from graphit_cli.errors import InvalidInput


def broker_token(provider: Provider) -> str | None:
    return os.environ.get(environ.ENV_BROKER_TOKEN, "").strip() or provider.token or None


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


def user_id(provider: Provider | None = None) -> str:
    """The user scope's id, validated before it can reach a path or a URI."""
    return validate_safe_id(user_subject(provider), "user subject")


def resolve_scope(spec: str | None, start: Path | None = None) -> Scope:
    """Turn `project`, `user` or `context:<name>` into a validated Scope."""
    value = (spec or os.environ.get(environ.ENV_SCOPE) or "project").strip()
    if value == "project":
        return Scope("project", current_project_id(start))
    if value == "user":
        return Scope("user", user_id())
    if value.startswith("context:"):
        return Scope("context", validate_safe_id(value.removeprefix("context:"), "context name"))
    raise InvalidInput(f"unknown scope {value!r}: use project, user or context:<name>")

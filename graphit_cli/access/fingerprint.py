"""What decides a command's answer, as one fingerprint: which table each scope resolves to
under which grant, and the settings that change a result.

A command forwarded to the daemon must get the answer it would get in-process. The CLI sends
this fingerprint with the request; the daemon computes its own for the same scopes, from its
own environment and the files as they are now, and serves the request only when the two agree
(`daemon/warmpath.py`); otherwise it declines, nothing is done, and the CLI works in-process.

What goes in, per scope:
- where its table is: a local scope's directory (GRAPHIT_HOME), or for a remote one the active
  provider (its name, kind, bucket, prefix, region, endpoint, profile) and who is asking: a
  broker's login token, or every `AWS_*` variable and the home directory whose `~/.aws` files
  the credential chain reads (both processes read the same files at the same moment);
- an attached context: the project it is attached to, resolved the same way;
- the settings that change a result: GRAPHIT_FOLD_THRESHOLD, GRAPHIT_VERSION_RETENTION,
  GRAPHIT_EMBEDDER and the grant-check window. (GRAPHIT_FORMAT, GRAPHIT_SCOPE, GRAPHIT_AUTHOR
  and GRAPHIT_PROJECT_ID are resolved by the CLI before it asks and travel as the request's
  own fields; the daemon's loop settings and GRAPHIT_EMBED_THREADS change no answer.)

Only a SHA-256 digest of all that crosses the socket: no key, secret or token in clear.

`inputs()` is the thin path's fingerprint (`warm/client.py`): not what the scopes resolve to
but what they are resolved from, the process's environment (every GRAPHIT_* setting but the
ones that change no answer, the AWS_* variables, HOME) and GRAPHIT_HOME, whose files both
processes read. Two processes with equal inputs resolve every scope alike; it is stricter than
`fingerprint` (a setting spelled out at its default differs), and a request declined for it
runs through the full command, which asks with `fingerprint`. It costs the standard library
only, so a hook computes it before a provider module, urllib or a credential module loads.
The module imports the rest (configuration, providers) only when `fingerprint` runs.
"""

from __future__ import annotations

import hashlib
import json
import os

from graphit_cli.environ import ENV_HOME

# `typing` stays unloaded on the hook's path (~5 ms): annotations only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from graphit_cli.access.providers.model import Provider
    from graphit_cli.access.scopes import Scope

# Settings that change no answer: per command (resolved before asking, or the command's own
# output), or the daemon's loops and deadlines.
NO_ANSWER_SETTINGS = frozenset(
    f"GRAPHIT_{name}"
    for name in (
        *("AUTHOR", "FORMAT", "SCOPE", "PROJECT_ID", "NO_DAEMON", "DEBUG", "PROMPT_RECALL"),
        *("HOOK_BUDGET",),
        *("EMBED_THREADS", "EMBED_INTERVAL", "MAINTAIN_INTERVAL", "MCP_BACKFILL_INTERVAL"),
        *("BACKOFF_MAX", "STABLE_SECONDS", "MAX_FAILURES", "ACTIVE_DAYS", "DRAIN_SECONDS"),
        *("DAEMON_CONNECT_TIMEOUT", "DAEMON_SEND_TIMEOUT", "DAEMON_ANSWER_TIMEOUT"),
    )
)


def graphit_home() -> str:
    """GRAPHIT_HOME as `config.home()` reads it, absolute (standard library only)."""
    value = os.environ.get(ENV_HOME)
    home = os.path.expanduser(value) if value else os.path.join(os.path.expanduser("~"), ".graphit")
    return os.path.abspath(home)


def inputs(environ: dict[str, str] | None = None) -> str:
    """The digest of what this process resolves scopes from (see the module's docstring)."""
    env = os.environ if environ is None else environ
    picked = sorted(
        (k, v)
        for k, v in env.items()
        if (k.startswith("GRAPHIT_") and k not in NO_ANSWER_SETTINGS)
        or k.startswith("AWS_")
        or k == "HOME"
    )
    return _digest({"home": graphit_home(), "environment": picked})


def _where(scope: Scope, provider: Provider) -> dict[str, Any]:
    """Where `scope`'s table is, and with whose grant."""
    from graphit_cli.access.contexts import attached_project
    from graphit_cli.access.scopes import Scope

    project = attached_project(scope)
    if project is not None:
        return {"attached": project, **_where(Scope("project", project), provider)}
    if (
        not provider.is_remote
        or scope.kind == "context"
        or (scope.kind, scope.id)
        == (
            "user",
            "anonymous",
        )
    ):  # `providers.locate.stays_local`, without importing the credential modules it needs
        return {"local": os.path.abspath(scope.local_path())}
    found: dict[str, Any] = {
        "scope": str(scope),
        "provider": [
            provider.name,
            provider.kind,
            provider.bucket,
            provider.prefix,
            provider.region,
            provider.endpoint,
            provider.profile,
        ],
    }
    if provider.kind == "broker":
        from graphit_cli.access.providers.identity import broker_token

        found["login"] = broker_token(provider)
    else:
        found["aws"] = sorted((k, v) for k, v in os.environ.items() if k.startswith("AWS_"))
        found["home"] = os.path.expanduser("~")
    return found


def settings() -> dict[str, Any]:
    """The settings that change a command's result (each validated by its reader)."""
    from graphit_cli import config

    return {
        "fold_threshold": config.fold_threshold(),
        "retention": config.retention_seconds(),
        "embedder": config.embedder_setting(),
        "grant_check": config.grant_check_seconds(),
    }


PARTS = ("home", "tables", "settings")  # what a declined request names as differing


def fingerprint(scopes: list[Scope]) -> str:
    """The digest of what decides the answer of a request on `scopes`, in this process: one
    short digest per part of PARTS, joined by dots, so a daemon can say which part differs."""
    from graphit_cli import config
    from graphit_cli.access.providers.configfile import active_provider

    provider = active_provider()
    blob = {
        "home": os.path.abspath(config.home()),
        "tables": [_where(s, provider) for s in scopes],
        "settings": settings(),
    }
    return ".".join(_digest(blob[part]) for part in PARTS)


def differs(theirs: str, ours: str) -> str:
    """In words, which parts of two fingerprints differ (for the decline's debug note)."""
    pairs = zip(theirs.split("."), ours.split("."), strict=False)
    found = [part for part, (a, b) in zip(PARTS, pairs, strict=False) if a != b]
    return ", ".join(found) or "the fingerprint's form"


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:32]

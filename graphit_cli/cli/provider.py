"""`graphit provider ...`: where memory tables live (local, S3, or an S3 broker).

Adapters over `graphit_cli.access.providers`; secrets (a broker token) are read from stdin,
stored in ~/.graphit/providers.json with mode 0600, and never printed.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from graphit_cli.cli.common import Format, Output, format_option, handle_errors, note, out

# What `provider list` prints: a table on a terminal; piped, JSON (for scripts that pick one).
PROVIDERS = Output(Format.table, Format.json, "markdown prints the table.")
ProvidersFormatOpt = Annotated[Format | None, format_option(PROVIDERS)]

provider_app = typer.Typer(
    name="provider",
    help="Choose where memory tables live: local (default), an S3 bucket, or a broker that "
    "issues temporary S3 credentials.\n\n"
    "With an S3-backed provider, project memory opens "
    "s3://BUCKET/PREFIX/v2/projects/ULID/memory/ and an authenticated user's memory "
    "s3://BUCKET/PREFIX/v2/users/ID/memory/ directly; nothing is copied or synced. The "
    "anonymous user's memory stays local. GRAPHIT_PROVIDER=s3 with GRAPHIT_S3_BUCKET, "
    "GRAPHIT_S3_PREFIX, GRAPHIT_S3_ENDPOINT and the standard AWS_* variables gives a provider "
    "entirely by environment (CI).",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _read_token() -> str:
    if sys.stdin is not None and sys.stdin.isatty():
        token = str(typer.prompt("Broker login token", hide_input=True, err=True))
    else:
        token = sys.stdin.readline()
    token = token.strip()
    if not token:
        raise typer.BadParameter("--token-stdin: no token on standard input")
    return token


@provider_app.command()
@handle_errors
def add(
    name: Annotated[str, typer.Argument(help="A name for the provider (letters, digits, . _ -).")],
    kind: Annotated[
        str, typer.Option("--kind", help="local, s3 or broker.", show_default=True)
    ] = "s3",
    bucket: Annotated[str | None, typer.Option("--bucket", help="S3 bucket (s3).")] = None,
    prefix: Annotated[
        str | None, typer.Option("--prefix", help="Key prefix inside the bucket (s3).")
    ] = None,
    region: Annotated[
        str | None,
        typer.Option(
            "--region", help="AWS region (s3). Default: AWS_REGION, the profile's, us-east-1."
        ),
    ] = None,
    endpoint: Annotated[
        str | None,
        typer.Option(
            "--endpoint",
            metavar="URL",
            help="S3-compatible endpoint (s3), or the broker's URL (broker: https://, plain "
            "http:// only on loopback).",
        ),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            help="AWS profile for credentials (s3). Default: the standard AWS sources.",
        ),
    ] = None,
    token_stdin: Annotated[
        bool,
        typer.Option(
            "--token-stdin",
            help="Read the broker login token from standard input (broker); stored with mode "
            "0600, never printed.",
        ),
    ] = False,
    use: Annotated[
        bool, typer.Option("--use/--no-use", help="Make it the active provider.")
    ] = True,
    replace: Annotated[
        bool, typer.Option("--replace", help="Overwrite a provider of the same name.")
    ] = False,
) -> None:
    """Add a provider (and, by default, make it the active one).

    Credentials for kind s3 come from the standard AWS sources (AWS_* variables, the
    shared credentials and config files, SSO and instance roles) or --profile; graphit stores
    no AWS key. A broker authenticates a login token and hands out temporary credentials for
    one root at a time; it also says who the user is.

    Examples:

      graphit provider add team --bucket acme-memory --prefix graphit --region eu-west-1

      printf '%s\\n' "$HUB_TOKEN" | graphit provider add hub --kind broker \\
          --endpoint https://hub.example.com/graphit --token-stdin
    """
    from graphit_cli.access import providers

    token = _read_token() if token_stdin else None
    provider = providers.make_provider(
        name,
        kind,
        bucket=bucket,
        prefix=prefix,
        region=region,
        endpoint=endpoint,
        profile=profile,
        token=token,
    )
    providers.add_provider(provider, activate=use, replace_existing=replace)
    state = "active" if use else "not active; `graphit provider use` switches"
    note(f"Added {provider.kind} provider {provider.name!r} ({state}): {provider.location_text()}")


@provider_app.command("list")
@handle_errors
def list_(fmt: ProvidersFormatOpt = None) -> None:
    """List providers; the active one is marked with *. Secrets are never shown."""
    from graphit_cli.access import providers
    from graphit_cli.formats import render

    active, listed = providers.list_providers()
    if active not in {p.name for p in listed}:  # GRAPHIT_PROVIDER=s3: the environment's
        listed.append(providers.active_provider())
    items = [{**p.describe(), "active": p.name == active} for p in listed]
    chosen = PROVIDERS.resolve(fmt)
    if chosen is Format.json:
        out(render.dumps_json(items))
    elif chosen is Format.ndjson:
        out(render.dumps_ndjson(items))
    else:
        rows = [
            [
                "*" if item["active"] else "",
                p.name,
                p.kind,
                str(item.get("credentials", "-")),
                p.location_text(),
            ]
            for p, item in zip(listed, items, strict=True)
        ]
        out(render.table(["", "NAME", "KIND", "CREDENTIALS", "LOCATION"], rows))


@provider_app.command()
@handle_errors
def use(
    name: Annotated[str, typer.Argument(help="The provider to make active (or local).")],
) -> None:
    """Make a provider the active one (GRAPHIT_PROVIDER still overrides it)."""
    from graphit_cli.access import providers

    provider = providers.use_provider(name)
    note(f"Active provider: {provider.name} ({provider.kind}): {provider.location_text()}")


@provider_app.command()
@handle_errors
def remove(name: Annotated[str, typer.Argument(help="The provider to forget.")]) -> None:
    """Forget a provider and its stored token. No table is touched, local or remote."""
    from graphit_cli.access import providers

    was_active = providers.remove_provider(name)
    note(
        f"Removed provider {name!r}" + ("; the active provider is now local" if was_active else "")
    )

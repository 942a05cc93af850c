"""What every command shares: option types, error mapping, output helpers."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, TypeVar

import typer

from graphit_cli import config
from graphit_cli.errors import ExitCode, GraphitError

F = TypeVar("F", bound=Callable[..., Any])


class Format(StrEnum):
    table = "table"
    markdown = "markdown"
    json = "json"
    ndjson = "ndjson"


ScopeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope",
        "-s",
        envvar=config.ENV_SCOPE,
        help="Scope whose table to use: project (default), user, or context:NAME.",
        show_default=False,
    ),
]
UserOpt = Annotated[bool, typer.Option("--user", "-u", help="Short for --scope user.")]
FormatOpt = Annotated[
    Format | None,
    typer.Option(
        "--format",
        "-f",
        envvar=config.ENV_FORMAT,
        case_sensitive=False,
        help="Output format. Default: table on a terminal, markdown when piped.",
        show_default=False,
    ),
]


def handle_errors(fn: F) -> F:
    """Map GraphitError to `Error: <message>` on stderr and its documented exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            _refuse_undecodable(fn, kwargs)
            return fn(*args, **kwargs)
        except GraphitError as exc:
            if config.debug():
                raise
            typer.echo(f"Error: {exc.message}", err=True)
            raise typer.Exit(int(exc.exit_code)) from None
        except KeyboardInterrupt:
            typer.echo("Interrupted.", err=True)
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except (typer.Exit, typer.Abort, typer.BadParameter):
            raise
        except Exception as exc:
            if config.debug():
                raise
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            typer.echo(
                f"Error: internal error: {first} (run with {config.ENV_DEBUG}=1 for the traceback)",
                err=True,
            )
            raise typer.Exit(int(ExitCode.INTERNAL)) from None

    return wrapper  # type: ignore[return-value]


def _refuse_undecodable(fn: Callable[..., Any], arguments: dict[str, Any]) -> None:
    """Arguments are text: bytes the OS could not decode as UTF-8 are refused up front."""
    from graphit_cli.errors import InvalidInput
    from graphit_cli.render import undecodable

    for name, value in arguments.items():
        for item in value if isinstance(value, list | tuple) else [value]:
            problem = undecodable(item) if isinstance(item, str) else None
            if problem:
                raise InvalidInput(f"{_label(fn, name)} is not valid UTF-8 text: {problem}")


def _label(fn: Callable[..., Any], name: str) -> str:
    """How the user spelled parameter `name`: its first option name, or its metavar."""
    import typing

    from typer.models import ArgumentInfo, OptionInfo

    hint = typing.get_type_hints(fn, include_extras=True).get(name)
    for info in getattr(hint, "__metadata__", ()):
        if isinstance(info, OptionInfo):
            # In `Annotated`, Typer reads a leading "--name" given as `default` as the name.
            names = [d for d in (info.default, *(info.param_decls or ())) if isinstance(d, str)]
            return next((d for d in names if d.startswith("-")), name)
        if isinstance(info, ArgumentInfo):
            return str(info.metavar or name.upper())
    return name


def scope_spec(scope: str | None, user: bool) -> str | None:
    if user:
        if scope not in (None, "user"):
            raise typer.BadParameter("--user and --scope disagree; give one of them")
        return "user"
    return scope


def resolve_format(fmt: Format | None, *, piped: Format = Format.markdown) -> Format:
    if fmt is not None:
        return fmt
    return Format.table if sys.stdout.isatty() else piped


def out(text: str) -> None:
    """Data to stdout, exactly as given (no markup, no colour)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def note(text: str) -> None:
    """Progress and summaries to stderr, so pipes stay clean."""
    typer.echo(text, err=True)


def stdin_is_interactive() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()

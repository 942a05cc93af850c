"""What every command shares: option types, error mapping, output helpers."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from graphit_cli import config
from graphit_cli.cli.plain import Format as Format
from graphit_cli.cli.plain import note as note
from graphit_cli.cli.plain import out as out
from graphit_cli.cli.plain import resolve_format as resolve_format
from graphit_cli.cli.plain import scope_spec as scope_spec
from graphit_cli.errors import (
    ExitCode,
    GraphitError,
    UsageError,
    internal_error_text,
    os_failure,
)

if TYPE_CHECKING:
    from graphit_cli.core.models import MemoryFilter

F = TypeVar("F", bound=Callable[..., Any])
E = TypeVar("E", bound=StrEnum)


class MemoryType(StrEnum):
    """models.MEMORY_TYPES as choices, so `--help` and TAB completion offer them."""

    fact = "fact"
    decision = "decision"
    convention = "convention"
    correction = "correction"
    preference = "preference"
    constraint = "constraint"
    procedure = "procedure"
    skill = "skill"
    tension = "tension"


class SearchMode(StrEnum):
    auto = "auto"
    hybrid = "hybrid"
    fts = "fts"
    vector = "vector"


def choice(kind: type[E], what: str) -> Callable[[Any], E]:
    """Parse an option value into `kind`, case-insensitively, refusing others in plain words
    (Typer's own message reads "Value error, 'x' is not one of ...")."""

    def parse(value: Any) -> E:
        if isinstance(value, kind):
            return value
        try:
            return kind(str(value).strip().lower())
        except ValueError:
            names = [m.value for m in kind]
            raise typer.BadParameter(
                f"unknown {what} {value!r}: use {', '.join(names[:-1])} or {names[-1]}"
            ) from None

    return parse


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
RedactOpt = Annotated[
    bool,
    typer.Option(
        "--redact", help="Write a detected secret as [REDACTED:<kind>] instead of refusing."
    ),
]
AllowSecretsOpt = Annotated[
    bool,
    typer.Option(
        "--allow-secrets",
        help="Write what looks like a secret as it is (a false positive of the detector).",
    ),
]


def secret_policy(redact: bool, allow: bool) -> str:
    """What a write does with a detected secret: refuse (the default), redact or allow."""
    if redact and allow:
        raise UsageError("--redact and --allow-secrets cannot go together")
    return "redact" if redact else "allow" if allow else "refuse"


FormatOpt = Annotated[
    Format | None,
    typer.Option(
        "--format",
        "-f",
        envvar=config.ENV_FORMAT,
        parser=choice(Format, "format"),
        help="Output format. Default: table on a terminal, markdown when piped.",
        show_default=False,
    ),
]

TypeOpt = Annotated[
    list[MemoryType] | None,
    typer.Option(
        "--type", "-t", parser=choice(MemoryType, "type"), help="Only this type (repeatable)."
    ),
]
TagOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--tag", metavar="TAG", help="Only memories with this tag (repeatable: all must match)."
    ),
]
IncludeProposedOpt = Annotated[
    bool,
    typer.Option(
        "--include-proposed",
        help="Also show open proposals (a reviewed project's writes awaiting review), "
        "marked proposed.",
    ),
]
ImportantOpt = Annotated[bool, typer.Option("--important", help="Only important memories.")]
MandatoryOpt = Annotated[bool, typer.Option("--mandatory", help="Only mandatory memories.")]


def filter_of(
    types: list[MemoryType] | None,
    tags: list[str] | None,
    important: bool = False,
    mandatory: bool = False,
) -> MemoryFilter:
    """`--important`/`--mandatory` select; leaving them out does not exclude anything."""
    from graphit_cli.formats.parse import filter_from

    return filter_from(
        types, tags, important=True if important else None, mandatory=True if mandatory else None
    )


def handle_errors(fn: F) -> F:
    """Map GraphitError to `Error: <message>` on stderr and its documented exit code. Every
    setting is checked first (`config.validate`): a bad one stops the command before it reads
    or writes anything."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            from graphit_cli.access.runstate import check_home

            check_home()  # a GRAPHIT_HOME under a file is said as that, before anything reads it
            config.validate()  # every GRAPHIT_* value, before anything is read or written
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
        except BrokenPipeError:
            # The reader left (`| head`): not an error, whatever was written stays written.
            # Later writes (the interpreter's last flush) go nowhere.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(0) from None
        except Exception as exc:
            if config.debug():
                raise
            cause = os_failure(exc, str(config.home())) if isinstance(exc, OSError) else None
            if cause is not None:  # a full disk, a permission: said as itself (exit 7)
                typer.echo(f"Error: {cause.message}", err=True)
                raise typer.Exit(int(cause.exit_code)) from None
            typer.echo(internal_error_text(exc, config.ENV_DEBUG), err=True)
            raise typer.Exit(int(ExitCode.INTERNAL)) from None

    return wrapper  # type: ignore[return-value]


def _refuse_undecodable(fn: Callable[..., Any], arguments: dict[str, Any]) -> None:
    """Arguments are text: bytes the OS could not decode as UTF-8 are refused up front."""
    from graphit_cli.errors import InvalidInput
    from graphit_cli.formats.parse import undecodable

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


def stdin_is_interactive() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()

"""What every command shares: option types, error mapping, output helpers.

The options a command takes are defined here once, each with one meaning wherever it appears
(`-f` is always the output format, `-n` always `--limit`, `-k` always `--top-k`, `-y` always
`--yes`, `-s` always `--scope`, `-u` always `--user`, `-t` always `--type`, `-o` always
`--output`); tests/test_cli_surface.py walks the app and holds every command to it. The
`memory` group's help lists its commands by task (`PANELS`), the daily ones first."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperGroup

from graphit_cli import config, environ
from graphit_cli.cli.plain import DOCUMENT as DOCUMENT
from graphit_cli.cli.plain import LISTING as LISTING
from graphit_cli.cli.plain import TEXT as TEXT
from graphit_cli.cli.plain import WRITTEN as WRITTEN
from graphit_cli.cli.plain import Format as Format
from graphit_cli.cli.plain import Output as Output
from graphit_cli.cli.plain import note as note
from graphit_cli.cli.plain import out as out
from graphit_cli.cli.plain import scope_spec as scope_spec
from graphit_cli.core.models import MEMORY_TYPES
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


# models.MEMORY_TYPES as choices, so `--help` and TAB completion offer them (mypy reads the
# members of an Enum made from a literal only; these are the model's, whatever they are).
MemoryType = StrEnum("MemoryType", {t: t for t in MEMORY_TYPES})  # type: ignore[misc]


class SearchMode(StrEnum):
    auto = "auto"
    hybrid = "hybrid"
    fts = "fts"
    vector = "vector"


def choice(kind: type[E], what: str, other: str = "") -> Callable[[Any], E]:
    """Parse an option value into `kind`, case-insensitively, refusing others in plain words
    (Typer's own message reads "Value error, 'x' is not one of ..."); `other` is added to
    the refusal (what the value may have been meant for)."""

    def parse(value: Any) -> E:
        if isinstance(value, kind):
            return value
        try:
            return kind(str(value).strip().lower())
        except ValueError:
            names = [m.value for m in kind]
            raise typer.BadParameter(
                f"unknown {what} {value!r}: use {', '.join(names[:-1])} or {names[-1]}"
                + (f" ({other})" if other else "")
            ) from None

    return parse


ScopeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope",
        "-s",
        envvar=environ.ENV_SCOPE,
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


def format_option(output: Output, *, other: str = "") -> Any:
    """The `-f/--format` option, for `Annotated[Format | None, format_option(...)]`: its help
    is written from `output` (what the command prints when it is left out). `other` names
    what a value that is not an output format may have been meant for (`import`'s input)."""
    return typer.Option(
        "--format",
        "-f",
        envvar=environ.ENV_FORMAT,
        parser=choice(Format, "format", other),
        help=output.help(),
        show_default=False,
    )


FormatOpt = Annotated[Format | None, format_option(LISTING)]
DocumentFormatOpt = Annotated[Format | None, format_option(DOCUMENT)]
WrittenFormatOpt = Annotated[Format | None, format_option(WRITTEN)]
TextFormatOpt = Annotated[Format | None, format_option(TEXT)]
# The old `--json` of import, scan and context add/refresh: `-f json`, kept for scripts.
JsonAliasOpt = Annotated[bool, typer.Option("--json", hidden=True, help="Deprecated: use -f json.")]


def json_alias(fmt: Format | None, as_json: bool) -> Format | None:
    """`--json` (deprecated) as `-f json`; refused beside another `-f`."""
    if not as_json:
        return fmt
    if fmt not in (None, Format.json):
        raise UsageError(f"--json and --format {fmt.value} disagree; give -f alone")
    note("Note: --json is deprecated; use -f json.")
    return Format.json


class ImportFormat(StrEnum):
    """What a file or folder to import holds (`--input-format`)."""

    auto = "auto"
    ndjson = "ndjson"
    markdown = "markdown"
    agents = "agents"
    cursor = "cursor"
    mcp_memory = "mcp-memory"
    notes = "notes"


_INPUTS = [f.value for f in ImportFormat]
INPUT_FORMATS = f"{', '.join(_INPUTS[:-1])} or {_INPUTS[-1]}"
InputFormatOpt = Annotated[
    ImportFormat,
    typer.Option(
        "--input-format",
        "-i",
        parser=choice(ImportFormat, "input format"),
        help=f"What the source holds: {INPUT_FORMATS} (auto detects it from names and contents).",
    ),
]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Report what would change; write nothing.")
]
TopKOpt = Annotated[
    int, typer.Option("--top-k", "-k", min=0, help="How many memories (0 = every match).")
]
LimitOpt = Annotated[int | None, typer.Option("--limit", "-n", min=0, help="At most N memories.")]

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
            typer.echo(internal_error_text(exc, environ.ENV_DEBUG), err=True)
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


# --- the `memory` group's help, by task ----------------------------------------------------

# Each panel with the commands it starts with, in this order; a command names its panel with
# Typer's `rich_help_panel` and, when not named here, follows these in the order it was added.
READ = "Find and read"
WRITE = "Write and correct"
CHECK = "Keep memories right"
SHARE = "Import, export and contexts"
AGENTS = "Agents and the browser"
RUN = "Daemon, upkeep and repair"
PANELS: dict[str, tuple[str, ...]] = {
    READ: ("search", "recall", "list", "source", "history", "mandatory", "important"),
    WRITE: ("upsert", "delete", "restore"),
    CHECK: ("stale", "verify"),
    SHARE: ("import", "export", "context"),
    AGENTS: ("instructions", "mcp", "explorer"),
    RUN: ("status", "daemon"),
}


class PanelGroup(TyperGroup):
    """A command group whose plain help (`rich_markup_mode=None`) lists its commands under
    their panels (`PANELS` order, the daily commands first) instead of one flat list."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(self.commands)
        panels = list(PANELS)

        def rank(name: str) -> tuple[int, int, int]:
            panel = getattr(self.commands[name], "rich_help_panel", None)
            where = panels.index(panel) if panel in panels else len(panels)
            lead = PANELS.get(panel, ()) if isinstance(panel, str) else ()
            first = lead.index(name) if name in lead else len(lead)
            return where, first, names.index(name)

        return sorted(names, key=rank)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        sections: dict[str, list[tuple[str, Any]]] = {}
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            panel = getattr(cmd, "rich_help_panel", None)
            sections.setdefault(panel if isinstance(panel, str) else "Commands", []).append(
                (name, cmd)
            )
        if not sections:
            return
        widest = max(len(name) for rows in sections.values() for name, _ in rows)
        limit = formatter.width - 6 - widest
        for panel, rows in sections.items():
            with formatter.section(panel):
                formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in rows])

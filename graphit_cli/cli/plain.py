"""Where the commands' text goes, the output formats and the scope options, without Typer:
`cli/output.py` prints with these and `cli/client.py` reads the scope with them, so the thin
path (`cli/thin.py`) runs a read and renders it exactly as the command does, before Typer
would load (`cli/common.py` re-exports them for the commands)."""

from __future__ import annotations

import sys
from enum import StrEnum


class Format(StrEnum):
    table = "table"
    markdown = "markdown"
    json = "json"
    ndjson = "ndjson"


def resolve_format(fmt: Format | None, *, piped: Format = Format.markdown) -> Format:
    """The format asked for, else table on a terminal and `piped` otherwise."""
    if fmt is not None:
        return fmt
    return Format.table if sys.stdout.isatty() else piped


def out(text: str) -> None:
    """Data to stdout, exactly as given (no markup, no colour)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def note(text: str) -> None:
    """Progress and summaries to stderr, so pipes stay clean."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def scope_spec(scope: str | None, user: bool) -> str | None:
    if user:
        if scope not in (None, "user"):
            from graphit_cli.errors import UsageError

            raise UsageError("--user and --scope disagree; give one of them")
        return "user"
    return scope

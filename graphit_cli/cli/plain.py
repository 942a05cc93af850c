"""Where the commands' text goes, the output formats and the scope options, without Typer:
`cli/output.py` prints with these and `cli/client.py` reads the scope with them, so the thin
path (`cli/thin.py`) runs a read and renders it exactly as the command does, before Typer
would load (`cli/common.py` re-exports them for the commands)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import StrEnum


class Format(StrEnum):
    """The output formats: the one `-f/--format` of every command that prints records."""

    table = "table"
    markdown = "markdown"
    json = "json"
    ndjson = "ndjson"


@dataclass(frozen=True)
class Output:
    """What a command prints when `-f` is left out: `terminal` on a terminal, `piped`
    otherwise. `text` says what table and markdown print where they are not the usual
    renderings (an aligned table; Markdown with YAML frontmatter). The option's help is
    written from this (`help`), and the command resolves its format with it (`resolve`),
    so the help cannot say one thing while the command does another."""

    terminal: Format = Format.table
    piped: Format = Format.markdown
    text: str = ""

    def resolve(self, fmt: Format | None) -> Format:
        if fmt is not None:
            return fmt
        return self.terminal if sys.stdout.isatty() else self.piped

    def help(self) -> str:
        if self.terminal is self.piped:
            default = f"{self.terminal.value}, on a terminal or piped"
        else:
            default = f"{self.terminal.value} on a terminal, {self.piped.value} when piped"
        said = f" {self.text}" if self.text else ""
        return f"Output format: table, markdown, json or ndjson. Default: {default}.{said}"


# The defaults the commands share (a command with its own says so where it is defined).
LISTING = Output()  # records to look at on a terminal, to diff or feed back when piped
DOCUMENT = Output(Format.markdown, Format.markdown)  # memories to read in full
WRITTEN = Output(Format.table, Format.table)  # what a write did: one line each
# A report with one plain-text rendering (status, maintenance, a check).
TEXT = Output(Format.table, Format.table, "table and markdown print the same text.")


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

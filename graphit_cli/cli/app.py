"""The root `graphit` app: global options and the command groups."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphit_cli import __version__, environ
from graphit_cli.cli import agent_surface as _agent_surface  # noqa: F401  (registers)
from graphit_cli.cli import consolidate as _consolidate_commands  # noqa: F401  (registers)
from graphit_cli.cli import context as _context_commands  # noqa: F401  (registers commands)
from graphit_cli.cli import daemon as _daemon_commands  # noqa: F401  (registers commands)
from graphit_cli.cli import doctor as _doctor_commands  # noqa: F401  (registers commands)
from graphit_cli.cli import explorer as _explorer_commands  # noqa: F401  (registers commands)
from graphit_cli.cli import review as _review_commands  # noqa: F401  (registers commands)
from graphit_cli.cli import search as _search_commands  # noqa: F401  (registers commands)
from graphit_cli.cli import secrets as _secrets_commands  # noqa: F401  (registers commands)
from graphit_cli.cli import staleness as _staleness_commands  # noqa: F401  (registers commands)
from graphit_cli.cli.agents import agent_app
from graphit_cli.cli.common import handle_errors, note, out
from graphit_cli.cli.memory import memory_app
from graphit_cli.cli.provider import provider_app

EPILOG = (
    "Exit codes: 0 ok, 1 internal error, 2 usage, 3 invalid input, 4 not found, 5 conflict, "
    "6 access denied, 7 storage unavailable, 8 no project, 9 S3 credentials expired (and not "
    "renewable), 10 S3 bucket does not exist, 11 a check found something (memory scan: a "
    "secret), 130 interrupted."
)

app = typer.Typer(
    name="graphit",
    help="Durable memory for AI agents: one LanceDB table per scope, with revision history "
    "and search.",
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(memory_app, name="memory")
app.add_typer(provider_app, name="provider")
app.add_typer(agent_app, name="agent")


def _version(value: bool) -> None:
    if value:
        out(f"graphit {__version__}\n")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Durable memory for AI agents."""
    from graphit_cli import config

    config.setup_logging()


@app.command()
@handle_errors
def init(
    directory: Annotated[
        Path, typer.Argument(help="Project root to initialise.", file_okay=False)
    ] = Path("."),
) -> None:
    """Create graphit.lock.json with a new project ULID (prints the project id).

    Run it once at the root of a repository; every directory below it then shares the
    project's memory. Running it again keeps the existing id.
    """
    from graphit_cli.access.scopes import init_project

    project_id, created = init_project(directory)
    target = directory / environ.PROJECT_LOCK_FILE
    note(f"Created {target}" if created else f"{target} already exists; keeping its project id")
    out(project_id + "\n")

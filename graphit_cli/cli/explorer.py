"""`graphit memory explorer`: the Memory Explorer, a local web UI, in the foreground.

Glue only: the server (graphit_cli/explorer/server.py, which imports uvicorn and Starlette) is
imported when the command runs, never for `graphit --help`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from graphit_cli.cli.common import AGENTS, handle_errors, note, out
from graphit_cli.cli.memory import memory_app


@memory_app.command("explorer", rich_help_panel=AGENTS)
@handle_errors
def explorer(
    host: Annotated[
        str,
        typer.Option(help="Address to listen on. Anything but loopback needs --allow-remote."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on; 0 picks a free one.")] = 7420,
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the page in your web browser.")
    ] = True,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a --host other machines can reach (they still need the token).",
        ),
    ] = False,
) -> None:
    """Browse, search, edit and remove memories in your web browser (the Memory Explorer).

    Runs a local web server in the foreground until Ctrl-C or SIGTERM (then exits 0). The
    first line on stdout is the address to open: it carries a fresh token, and every request
    without it is refused. The page shows the project found from the working directory (or
    the user scope outside a project), the user scope and every named context.

    Examples:

      graphit memory explorer

      graphit memory explorer --port 0 --no-open

      graphit memory explorer --host 0.0.0.0 --allow-remote
    """
    from graphit_cli.explorer.server import ExplorerServer

    server = ExplorerServer(host, port, allow_remote=allow_remote)

    def ready() -> None:
        out(server.url + "\n")
        note("Memory Explorer running; press Ctrl-C to stop.")
        if open_browser:
            server.open_browser_when_ready()

    server.run(on_ready=ready)
    note("Memory Explorer stopped.")

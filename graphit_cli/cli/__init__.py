"""The `graphit` command line: Typer adapters only (parse -> service -> render).

Nothing here may import lancedb, pyarrow, numpy or torch at module level: `graphit --help`
and TAB completion load this package (ruff TID253 and tests/test_cli_startup.py enforce it).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    from graphit_cli.cli.app import app

    private_files()
    try:
        app(prog_name="graphit")
    except BrokenPipeError:
        # `graphit memory list | head`: the reader left; that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)


def private_files() -> None:
    """Whatever this process creates is its user's alone (0700 directories, 0600 files), also
    under a permissive umask: tables, the daemon's socket and run directory, logs and state
    may hold what agents wrote. An existing GRAPHIT_HOME open to others is tightened, once,
    with a note on a terminal's stderr (never in a hook's, a script's or an MCP client's
    stderr, which must stay as the command's own)."""
    import stat

    from graphit_cli import config

    os.umask(os.umask(0o077) | 0o077)
    home = config.home()
    try:
        mode = stat.S_IMODE(home.stat().st_mode)
        if mode & 0o077 and home.is_dir():
            home.chmod(0o700)
            if sys.stderr.isatty():
                print(
                    f"graphit: made {home} private (mode {mode:o} -> 700): it holds your memories",
                    file=sys.stderr,
                )
    except OSError:  # no home yet (created private), or not ours to change: leave it
        pass

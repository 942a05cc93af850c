"""The `graphit` command line: Typer adapters only (parse -> service -> render).

Nothing here may import lancedb, pyarrow, numpy or torch at module level: `graphit --help`
and TAB completion load this package (ruff TID253 and tests/test_cli_startup.py enforce it).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    from graphit_cli.cli.app import app

    try:
        app(prog_name="graphit")
    except BrokenPipeError:
        # `graphit memory list | head`: the reader left; that is not an error.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)

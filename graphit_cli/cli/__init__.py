"""The `graphit` command line: Typer adapters only (parse -> service -> render).

Nothing here may import lancedb, pyarrow, numpy or torch at module level: `graphit --help`
and TAB completion load this package (ruff TID253 and tests/test_cli_startup.py enforce it).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    # The agent's hot path first, before Typer loads (~0.1 s): the hooks run on every prompt
    # (warm/hook.py); anything else, or a hook spelled otherwise, goes to the app.
    argv = sys.argv[1:]
    if argv[:2] == ["agent", "hook"]:
        from graphit_cli.warm.hook import main as hook

        code = hook(argv)
        if code is not None:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)  # nothing left to unwind: the answer is out, or nothing is
    if argv[:1] == ["memory"] and len(argv) > 1:
        from graphit_cli.cli.thin import COMMANDS

        if argv[1] in COMMANDS:  # a warm process's answer, rendered as the command renders it
            from graphit_cli.cli.thin import main as read

            try:
                code = read(argv)
            except BrokenPipeError:
                _reader_left()
            if code is not None:
                sys.exit(code)
    from graphit_cli.cli.app import app

    try:
        app(prog_name="graphit")
    except BrokenPipeError:
        _reader_left()


def _reader_left() -> None:
    """`graphit memory list | head`: the reader left; that is not an error."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)

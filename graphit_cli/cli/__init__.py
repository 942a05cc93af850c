"""The `graphit` command line: Typer adapters only (parse -> service -> render).

Nothing here may import lancedb, pyarrow, numpy or torch at module level: `graphit --help`
and TAB completion load this package (ruff TID253 and tests/test_cli_startup.py enforce it).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    private_files()
    # The agent's hot path first, before Typer loads (~0.1 s): the hooks run on every prompt
    # (warm/hook.py); anything else, or a hook spelled otherwise, goes to the app.
    argv = sys.argv[1:]
    if argv[:2] == ["agent", "hook"]:
        from graphit_cli.warm.hook import main as hook

        code = hook(argv) if argv[2:3] != ["capture"] else _capture(argv[3:])
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


def _capture(words: list[str]) -> int | None:
    """`agent hook capture --event EVENT [--user] [--for CLIENT]` (cli/capture_hook.py, which
    needs no Typer; `warm/argv.py` reads it with the command's Typer definition); None for
    another spelling (Typer then parses it)."""
    from graphit_cli.warm.argv import parse
    from graphit_cli.warm.calls import CLIENTS

    parsed = parse("agent hook capture", words)
    if parsed is None or "event" not in parsed[1]:
        return None
    client = str(parsed[1].get("for_", "claude-code")).strip().lower()
    if client not in CLIENTS:
        return None
    from graphit_cli.cli import capture_hook

    event = parsed[1]["event"]
    return capture_hook.run(event, bool(parsed[1].get("user")), client, capture_hook.read_stdin())


def _reader_left() -> None:
    """`graphit memory list | head`: the reader left; that is not an error."""
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

    from graphit_cli.access.fingerprint import graphit_home  # config.home(), light (a hook)

    os.umask(os.umask(0o077) | 0o077)
    home = graphit_home()
    try:
        mode = stat.S_IMODE(os.stat(home).st_mode)
        if mode & 0o077 and os.path.isdir(home):
            os.chmod(home, 0o700)
            if sys.stderr.isatty():
                print(
                    f"graphit: made {home} private (mode {mode:o} -> 700): it holds your memories",
                    file=sys.stderr,
                )
    except OSError:  # no home yet (created private), or not ours to change: leave it
        pass

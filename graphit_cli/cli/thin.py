"""The read commands on the thin path: `memory search`, `source`, `list`, `important`,
`mandatory` and `recall` (with a scope), answered by a warm process before Typer loads.

`main` takes the command line as `cli/__init__.py` got it and reads the common spellings of
these commands' arguments (`warm/argv.py`, with the table Typer's definitions give);
anything else (a spelling it does not know, `--help`, `--scope all`, a context scope, a value
it would have to refuse, GRAPHIT_DEBUG) returns None, and the Typer command runs instead, with
its own messages. A command no warm process answers runs here with the command's own calls
(`cli/client.py`), which need no Typer either (~0.1 s less on a cold search); an error, from a
warm process or here, returns None too: the full command then says it, in its words and with
its exit code. An answer is rendered by the
command's own output functions (`cli/output.py`, which need no Typer), so it prints what the
full command prints (tests/test_forwarding_properties.py checks it).
"""

from __future__ import annotations

import os
import time
from typing import Any

from graphit_cli.environ import ENV_DEBUG, ENV_FORMAT, ENV_NO_DAEMON, ENV_SCOPE

COMMANDS = ("search", "source", "list", "important", "mandatory", "recall")
MODES = ("auto", "hybrid", "fts", "vector")
WAIT = 120.0  # seconds in all for a warm answer (wire.REPLY_TIMEOUT; silences: the answer
# deadline, `warm/client.answer_seconds`)
# What the thin path reads of each command's options (by Typer's parameter names); any other
# option the command takes leaves it to Typer.
READS = {"top_k", "exclude_mandatory", "include_deleted", "mode", "types", "tags"} | {
    "important",
    "mandatory",
    "limit",
    "scope",
    "user",
    "fmt",
}


def parse(argv: list[str]) -> tuple[str, list[str], dict[str, Any]] | None:
    """(command, positional arguments, options) for `memory COMMAND ...`, or None (`warm/argv.py`
    reads it with the command's Typer definition)."""
    if len(argv) < 2 or argv[0] != "memory" or argv[1] not in COMMANDS:
        return None
    from graphit_cli.warm import argv as words

    parsed = words.parse(f"memory {argv[1]}", argv[2:])
    if parsed is None or not set(parsed[1]) <= READS:
        return None
    return argv[1], parsed[0], parsed[1]


def _text(value: str) -> bool:
    """Text the commands take as it is: UTF-8 (an undecodable byte is the command's error)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def request_of(command: str, positional: list[str], given: dict[str, Any]) -> dict[str, Any] | None:
    """The operation's request fields (`warm/ops.py`), or None to leave it to the command."""
    if not all(_text(w) for w in positional) or not all(
        _text(v) for v in given.values() if isinstance(v, str)
    ):
        return None
    scope = _scope(given)
    if scope is None:
        return None
    filt = _filter(command, given)
    if filt is None:
        return None
    top_k = given.get("top_k", "10")
    if not top_k.isdigit() or not top_k.isascii():
        return None
    from graphit_cli.warm.calls import checkout

    fields: dict[str, Any] = {"scope": scope, "root": checkout()}
    if command == "search":
        mode = given.get("mode", "auto").strip().lower()
        if mode not in MODES:
            return None
        fields |= {
            "op": "search",
            "query": positional[0],
            "filter": filt,
            "top_k": int(top_k),
            "exclude_mandatory": bool(given.get("exclude_mandatory")),
            "include_deleted": bool(given.get("include_deleted")),
            "mode": mode,
        }
    elif command == "source":
        fields |= {"op": "source", "ref": positional[0]}
    elif command == "recall":
        if "scope" not in given and "user" not in given:
            return None  # across the recall scopes: the full command
        fields |= {"op": "recall", "context": positional[0] if positional else None}
        fields["top_k"] = int(top_k)
    else:
        limit = given.get("limit")
        if limit is not None and (not limit.isdigit() or not limit.isascii()):
            return None
        fields |= {
            "op": "catalogue",
            "filter": filt,
            "limit": None if limit is None else int(limit),
        }
    return fields


def _scope(given: dict[str, Any]) -> str | None:
    """`project:<id>` or `user` as the command would resolve its scope; None for anything the
    thin path leaves to it (a context, `all`, a disagreement, no project)."""
    spec = given.get("scope")
    if given.get("user"):
        if spec not in (None, "user"):
            return None
        spec = "user"
    if spec is None:
        env = os.environ.get(ENV_SCOPE)
        spec = env.strip() if env is not None else "project"
    spec = spec.strip()
    if spec == "user":
        return "user"
    if spec not in ("project", ""):
        return None
    from graphit_cli.warm.calls import project

    try:
        found = project()
    except Exception:
        return None
    return None if found is None else f"project:{found[1]}"


def _filter(command: str, given: dict[str, Any]) -> dict[str, Any] | None:
    from graphit_cli.core.models import MEMORY_TYPES  # the answer's rendering loads it anyway

    types = [t.strip().lower() for t in given.get("types", [])]
    if any(t not in MEMORY_TYPES for t in types):
        return None
    important = True if given.get("important") or command == "important" else None
    mandatory = True if given.get("mandatory") or command == "mandatory" else None
    return {
        "types": sorted(set(types)),
        "tags": list(given.get("tags", [])),
        "important": important,
        "mandatory": mandatory,
    }


def _format(given: dict[str, Any]) -> tuple[bool, str | None]:
    """(known, the --format asked for or GRAPHIT_FORMAT, None when none); not known when it
    is one the command would refuse."""
    value = given.get("fmt")
    if value is None:
        value = os.environ.get(ENV_FORMAT)
        if value is not None and not value.strip():
            return False, None
    if value is None:
        return True, None
    from graphit_cli.config import FORMATS

    value = value.strip().lower()
    return value in FORMATS, value


def main(argv: list[str]) -> int | None:
    """The command's exit code when a warm process answered it; None to run it in full."""
    parsed = parse(argv)
    if parsed is None:
        return None
    command, positional, given = parsed
    known, chosen = _format(given)
    if not known or _flag(ENV_DEBUG) is not False:  # debugging: the full command
        return None
    fields = request_of(command, positional, given)
    if fields is None:
        return None
    no_daemon = _flag(ENV_NO_DAEMON)
    if no_daemon is None:
        return None
    if not no_daemon:
        from graphit_cli.warm.client import answer_seconds
        from graphit_cli.warm.transport import Socket, decode

        try:
            idle = answer_seconds()
        except Exception:  # a bad setting: the command says so
            return None
        found = Socket(time.monotonic() + WAIT, idle).send(fields)
        if found is not None:
            _render(command, decode(fields["op"], found), chosen)
            return 0
    return _in_process(command, positional, given, chosen)


def _flag(name: str) -> bool | None:
    """A GRAPHIT_* flag as `config` reads it; None for a value it would refuse."""
    from graphit_cli.core.flags import flag_value

    return flag_value(os.environ.get(name))


def _in_process(
    command: str, positional: list[str], given: dict[str, Any], chosen: str | None
) -> int | None:
    """No warm process answered: the command's own calls here (`cli/client.py`, the same
    service code), without Typer. Any error: None, and the full command runs it again and
    says it in its words (a read: running it twice changes nothing)."""
    from graphit_cli import config
    from graphit_cli.cli.client import ScopeClient
    from graphit_cli.formats.parse import filter_from

    types = [t.strip().lower() for t in given["types"]] if "types" in given else None
    tags = given.get("tags")
    important = True if given.get("important") or command == "important" else None
    mandatory = True if given.get("mandatory") or command == "mandatory" else None
    try:
        config.validate()
        client = ScopeClient(given.get("scope"), bool(given.get("user")))
        if command == "search":
            result = client.search(
                positional[0],
                filter_from(types, tags, important=important, mandatory=mandatory),
                top_k=int(given.get("top_k", "10")),
                exclude_mandatory=bool(given.get("exclude_mandatory")),
                include_deleted=bool(given.get("include_deleted")),
                mode=given.get("mode", "auto").strip().lower(),
            )
            found: Any = result
        elif command == "source":
            found = client.source(positional[0])
        elif command == "recall":
            top_k = int(given.get("top_k", "10"))
            found = client.recall(positional[0] if positional else None, top_k=top_k)
        else:
            limit = given.get("limit")
            flt = filter_from(types, tags, important=important, mandatory=mandatory)
            found = client.catalogue(flt, None if limit is None else int(limit))
    except Exception:
        return None
    _render(command, found, chosen)
    return 0


def _output_format(command: str, chosen: str | None) -> Any:
    """The format to print in: `-f` when given, else the command's own default (the `Output`
    its `-f` option is written from)."""
    from graphit_cli.cli.plain import DOCUMENT, LISTING, Format

    output = DOCUMENT if command in ("source", "recall", "mandatory") else LISTING
    return output.resolve(Format(chosen) if chosen else None)


def _memories(command: str, memories: list[Any], fmt: Any) -> None:
    from graphit_cli.cli import output

    if command == "list":
        output.memories(memories, fmt)
    elif command == "important":
        output.memories(memories, fmt, empty="No important memories.")
    else:
        output.memories(memories, fmt, empty="No mandatory memories.")


def _render(command: str, found: Any, chosen: str | None) -> None:
    """A warm process's result (decoded) as the command prints it."""
    from graphit_cli.cli import output
    from graphit_cli.cli.plain import note

    fmt = _output_format(command, chosen)
    if command == "search":
        if found.notice:
            note(found.notice)
        output.hits(found.hits, fmt)
    elif command == "source":
        output.one(found, fmt)
    elif command == "recall":
        output.recall(found, fmt)
    else:
        _memories(command, found, fmt)

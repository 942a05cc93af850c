"""The command line of a thin path's command, read with the table Typer's definitions give.

The agent hooks (`hook.py`, `cli/capture_hook.py`) and the thin read commands (`cli/thin.py`)
run before Typer is imported; what each command takes comes from `argv_table.py`, which
scripts/gen_argv.py writes from the Typer app (tests/test_argv.py holds them equal), so the
commands are described once, by Typer. `parse` reads the common spellings (an option and its
value as two words, or a long option as `--opt=value`) and says None for anything else (a
spelling it does not know, an option given twice, a missing value, `--help`): the Typer
command then parses it and says what is wrong. Standard library only.
"""

from __future__ import annotations

from graphit_cli.warm.argv_table import TABLE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FLAG, VALUE, REPEATED = 0, 1, 2


def parse(command: str, words: list[str]) -> tuple[list[str], dict[str, Any]] | None:
    """(the arguments, the options by parameter name) of `command` (`TABLE`'s key, e.g.
    "memory search") given `words`; None to leave it to Typer. A flag is True, a value a
    string, a repeated value the list of its strings."""
    spec: Any = TABLE.get(command)
    if spec is None:
        return None
    options = spec["options"]
    words = list(words)
    arguments: list[str] = []
    given: dict[str, Any] = {}
    while words:
        word = words.pop(0)
        if not word.startswith("-") or word == "-":
            arguments.append(word)
            continue
        name, _, inline = word.partition("=")
        found = options.get(name)
        if found is None:
            return None
        key, kind = found
        if kind == FLAG:
            if "=" in word or key in given:
                return None
            given[key] = True
            continue
        if "=" in word and name.startswith("--"):
            value = inline
        elif "=" not in word and words:
            value = words.pop(0)
        else:
            return None
        if kind == REPEATED:
            given.setdefault(key, []).append(value)
        elif key in given:
            return None
        else:
            given[key] = value
    low, high = spec["arguments"]
    return (arguments, given) if low <= len(arguments) <= high else None

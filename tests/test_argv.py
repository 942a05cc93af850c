"""The thin paths read their command lines with the table Typer's definitions give."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from graphit_cli.warm import argv
from graphit_cli.warm.argv_table import TABLE

ROOT = Path(__file__).resolve().parent.parent


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_argv", ROOT / "scripts" / "gen_argv.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_argv"] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_table_is_what_the_typer_app_defines() -> None:
    generated = _generator().source()
    assert (ROOT / "graphit_cli" / "warm" / "argv_table.py").read_text() == generated, (
        "run scripts/gen_argv.py"
    )


def test_every_thin_command_has_its_typer_options() -> None:
    assert set(TABLE["memory search"]["options"]) >= {"--top-k", "-k", "--format", "-f"}
    assert TABLE["memory recall"]["arguments"] == (0, 1)
    assert TABLE["agent hook capture"]["options"]["--event"] == ("event", argv.VALUE)


@pytest.mark.parametrize(
    ("command", "words", "expected"),
    [
        (
            "memory search",
            ["cache", "-k", "3", "--type=fact", "-t", "rule", "--user"],
            (["cache"], {"top_k": "3", "types": ["fact", "rule"], "user": True}),
        ),
        ("memory search", ["a", "--format=json"], (["a"], {"fmt": "json"})),
        ("memory recall", [], ([], {})),
        ("agent hook prompt", ["--for", "gemini", "-u"], None),  # no -u on a hook
        ("agent hook prompt", ["--for=gemini", "--user"], ([], {"for_": "gemini", "user": True})),
        ("agent hook capture", ["--event=Stop"], ([], {"event": "Stop"})),
        ("memory search", ["a", "b"], None),  # one argument
        ("memory search", [], None),
        ("memory search", ["a", "-k"], None),  # a value missing
        ("memory search", ["a", "-k", "1", "-k", "2"], None),  # given twice
        ("memory search", ["a", "-k=2"], None),  # a short option's `=`: Typer reads it
        ("memory search", ["a", "--user", "--user"], None),
        ("memory search", ["a", "--help"], None),
        ("memory source", ["x", "--top-k", "2"], None),  # not this command's
        ("memory nothing", ["x"], None),
    ],
)
def test_parse_reads_the_common_spellings_and_leaves_the_rest_to_typer(
    command: str, words: list[str], expected: object
) -> None:
    assert argv.parse(command, words) == expected

"""Fuzzing the CLI's inputs with Hypothesis.

Frontmatter documents, JSON/NDJSON batches, ids, tags, types, queries and scope names go
through the real Typer app (CliRunner, in-process) against a real table that already holds a
few memories. Whatever the input:

- no traceback and no internal error (exit 1): a user error is one `Error: ...` line and a
  documented exit code;
- a refused input writes nothing: the table's version and row count are unchanged, and no
  other scope's table appears;
- a read never changes an existing table, whatever it was given.

`FUZZ_EXAMPLES` sets the examples per input kind (10, times TEST_EXAMPLES_SCALE); the slow
test draws `FUZZ_SLOW_EXAMPLES` (800) commands of every kind.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MEMORY_TYPES
from graphit_cli.errors import ExitCode
from graphit_cli.formats import parse
from tests.conftest import PROJECT_ID, examples, run_cli

DOCUMENTED_EXIT_CODES = {int(code) for code in ExitCode} - {int(ExitCode.INTERNAL)}
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", examples(10)))
COUNTS = {"tried": 0}

# Text from every corner: quotes, operators, YAML and JSON punctuation, control characters,
# unicode. Lone surrogates (what Python makes of undecodable bytes in argv) have their own
# test below.
PUNCTUATION = [*"'\"%_\\;:-#[]{},*&!|>@`~=/\n\t\r ", "\x00", "\x1b", "\u2028", "\ufeff"]
_alphabet = st.one_of(st.sampled_from(PUNCTUATION), st.characters(codec="utf-8"))
any_text = st.text(_alphabet, max_size=40)
words = st.sampled_from(
    ["no", "yes", "on", "off", "null", "~", "true", "1e3", "0x1F", "2026-11-30", "fact", "ci"]
)
scalar = st.one_of(
    any_text,
    words,
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
)
json_value = st.recursive(
    scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3)
)
# Every field a record may carry (sorted: a stable order for Hypothesis), plus one it may not.
FIELDS = [*sorted(parse.DRAFT_FIELDS), "updated_by", "revision_id", "nonsense"]
record = st.dictionaries(st.sampled_from(FIELDS) | any_text, json_value, max_size=6)


@st.composite
def frontmatter(draw: st.DrawFn) -> str:
    """A Markdown document with YAML-ish frontmatter, well- or ill-formed."""
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.sampled_from(FIELDS) | any_text)
        value = draw(
            st.one_of(
                words,
                any_text,
                st.lists(words | any_text, max_size=3).map(lambda v: "[" + ", ".join(v) + "]"),
                json_value.map(json.dumps),
            )
        )
        lines.append(f"{key}: {value}")
    opening = draw(st.sampled_from(["---", "---", "--- ", "----", ""]))
    closing = draw(st.sampled_from(["---", "---", "", "..."]))
    heading = draw(st.sampled_from(["# ", "#", ""])) + draw(any_text)
    body = draw(any_text)
    return "\n".join([opening, *lines, closing, heading, body])


@st.composite
def ndjson(draw: st.DrawFn) -> str:
    items = draw(st.lists(record | json_value, min_size=1, max_size=4))
    lines = [json.dumps(item) for item in items]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(any_text))  # a garbage line
    return "\n".join(lines)


# --- the harness ----------------------------------------------------------------------------


class Harness:
    """The Typer app on one project with three memories; checks each run's contract."""

    def __init__(self, home: Path) -> None:
        from graphit_cli.core.models import MemoryDraft
        from graphit_cli.opening import open_service

        self.home = home
        service = open_service(Scope("project", PROJECT_ID))
        for n, tag in enumerate(["ops", "style", "sql"]):
            service.upsert(MemoryDraft(title=f"seed {n}", body=f"seed body {n}", tags=(tag,)))
        self.ids = [m.id for m in service.catalogue()]

    def state(self) -> tuple[int, int, frozenset[str]]:
        from graphit_cli.opening import open_service

        store = open_service(Scope("project", PROJECT_ID), create=False).store
        tables = frozenset(p.name for p in (self.home / "memory").iterdir() if p.is_dir())
        return store.version(), store.count(), tables

    def run(self, args: list[str], stdin: str | None = None, *, writes: bool = False) -> int:
        COUNTS["tried"] += 1
        before = self.state()
        try:
            result = run_cli(args, input=stdin)
        except Exception as exc:
            raise AssertionError(f"uncaught {exc!r}\nargs={args!r} stdin={stdin!r}") from exc
        after = self.state()
        shown = f"args={args!r} stdin={stdin!r}\nstdout={result.stdout!r}\nstderr={result.stderr!r}"
        assert "Traceback" not in result.stdout + result.stderr, shown
        assert result.exit_code in DOCUMENTED_EXIT_CODES, f"exit {result.exit_code}\n{shown}"
        if result.exit_code != 0:
            assert after == before, f"a refused input wrote something\n{shown}"
            assert result.stderr.strip(), f"refused without saying why\n{shown}"
            assert len(result.stderr.strip().splitlines()) <= 12, shown
        elif not writes:
            # A read of a scope never used before opens (creates) its empty table today;
            # it must not touch any existing table.
            assert after[:2] == before[:2], f"a read wrote something\n{shown}"
            assert after[2] >= before[2], shown
        return result.exit_code


@pytest.fixture
def harness(project_dir: Path, graphit_home: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    monkeypatch.setenv("GRAPHIT_NO_DAEMON", "1")
    return Harness(graphit_home)


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    yield
    print(f"\nfuzz inputs tried: {COUNTS['tried']}")


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)


def _arg(value: str) -> str:
    # A NUL cannot be in a real argv (the OS cuts the string there); anything else can.
    return value.split("\x00", 1)[0]


@FUZZ
@given(document=frontmatter())
def test_fuzz_frontmatter_on_stdin(harness: Harness, document: str) -> None:
    harness.run(["memory", "upsert", "-"], stdin=document, writes=True)


@FUZZ
@given(batch=ndjson())
@example(batch="[]")  # found by this test: an empty array was an internal error
def test_fuzz_ndjson_and_json_batches(harness: Harness, batch: str) -> None:
    harness.run(["memory", "upsert", "-", "-f", "json"], stdin=batch, writes=True)


@FUZZ
@given(value=any_text, command=st.sampled_from(["source", "history", "delete"]))
def test_fuzz_ids(harness: Harness, value: str, command: str) -> None:
    args = ["memory", command, _arg(value)]
    code = harness.run([*args, "--yes"] if command == "delete" else args, writes=True)
    assert code != 0 or value.strip().upper() in harness.ids  # only a real id succeeds


@FUZZ
@given(value=any_text, body=any_text)
def test_fuzz_upsert_flags(harness: Harness, value: str, body: str) -> None:
    harness.run(["memory", "upsert", "--id", _arg(value), "--body", _arg(body) or "x"], writes=True)
    harness.run(
        ["memory", "upsert", "--title", _arg(body) or "t", "--body", "b", "--tag", _arg(value)],
        writes=True,
    )
    harness.run(
        ["memory", "upsert", "--title", "t", "--body", _arg(body) or "b", "-t", _arg(value)],
        writes=True,
    )


@FUZZ
@given(
    tag=any_text,
    memory_type=any_text | st.sampled_from(MEMORY_TYPES),
    fmt=st.sampled_from(["json", "ndjson", "markdown", "table"]),
)
def test_fuzz_filters(harness: Harness, tag: str, memory_type: str, fmt: str) -> None:
    harness.run(["memory", "list", "--tag", _arg(tag), "-f", fmt])
    harness.run(["memory", "list", "--type", _arg(memory_type), "-f", fmt])
    harness.run(["memory", "search", "seed", "--tag", _arg(tag), "--mode", "fts", "-f", fmt])


@FUZZ
@given(query=any_text, fmt=st.sampled_from(["json", "markdown", "table"]))
def test_fuzz_queries(harness: Harness, query: str, fmt: str) -> None:
    harness.run(["memory", "search", _arg(query), "--mode", "fts", "-f", fmt])
    harness.run(["memory", "recall", _arg(query)])


@FUZZ
@given(
    name=any_text | any_text.map(lambda s: "context:" + s) | st.sampled_from(["user", "project"])
)
def test_fuzz_scope_names(harness: Harness, name: str) -> None:
    assume(name not in ("user", "project"))  # those two are real scopes, read below anyway
    harness.run(["memory", "list", "--scope", _arg(name)])
    harness.run(["memory", "search", "seed", "--scope", _arg(name), "--mode", "fts"])


SURROGATES = ["\ud800", "caf\udce9", "\udcff\udcfe", "x\udfff y"]


def test_lone_surrogates_in_arguments_are_refused_cleanly(harness: Harness) -> None:
    """Bytes the OS could not decode reach Python as lone surrogates: every command that takes
    text must refuse them with one line and a documented code (never exit 1)."""
    for bad in SURROGATES:
        for args in (
            ["memory", "search", bad, "--mode", "fts"],
            ["memory", "recall", bad],
            ["memory", "source", bad],
            ["memory", "list", "--tag", bad],
            ["memory", "list", "--scope", f"context:{bad}"],
            ["memory", "upsert", "--title", bad, "--body", "b"],
            ["memory", "upsert", "--title", "t", "--body", bad],
        ):
            assert harness.run(args, writes=True) != 0, args


def test_fuzz_harness_catches_a_write_on_refusal(harness: Harness) -> None:
    """The harness can fail: a refused upsert that had written would be reported."""
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.opening import open_service

    service = open_service(Scope("project", PROJECT_ID))
    before = harness.state()
    service.upsert(MemoryDraft(title="sneaky", body="written meanwhile"))
    assert harness.state() != before


@st.composite
def any_command(draw: st.DrawFn) -> tuple[list[str], str | None, bool]:
    """One command of any kind above: (argv, stdin, whether it may write)."""
    value = _arg(draw(any_text))
    kind = draw(
        st.sampled_from(["frontmatter", "ndjson", "id", "flags", "filter", "query", "scope"])
    )
    if kind == "frontmatter":
        return ["memory", "upsert", "-"], draw(frontmatter()), True
    if kind == "ndjson":
        return ["memory", "upsert", "-", "-f", "ndjson"], draw(ndjson()), True
    if kind == "id":
        command = draw(st.sampled_from(["source", "history", "delete"]))
        return ["memory", command, value, *(["--yes"] if command == "delete" else [])], None, True
    if kind == "flags":
        flag = draw(st.sampled_from(["--id", "--tag", "-t", "--title", "--body"]))
        args = {"--title": "t", "--body": "b", flag: value}
        return ["memory", "upsert", *[x for pair in args.items() for x in pair]], None, True
    if kind == "filter":
        flag = draw(st.sampled_from(["--tag", "--type"]))
        return ["memory", draw(st.sampled_from(["list", "important"])), flag, value], None, False
    if kind == "query":
        return ["memory", "search", value, "--mode", "fts"], None, False
    return ["memory", "list", "--scope", value], None, False


@pytest.mark.slow
@settings(
    max_examples=int(os.environ.get("FUZZ_SLOW_EXAMPLES", "800")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(command=any_command())
def test_fuzz_every_input_at_length(
    harness: Harness, command: tuple[list[str], str | None, bool]
) -> None:
    args, stdin, writes = command
    harness.run(args, stdin=stdin, writes=writes)

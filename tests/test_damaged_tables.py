"""A table that cannot be read says so: a missing version history, a damaged
manifest, a missing data or index file give exit 7 and one line naming the table, what is
wrong and what to do; never "No memories", never a Rust source path. One damaged scope never
fails a command about the others. Real LanceDB tables on tmp_path, damaged as a disk or a
hand would damage them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphit_cli.access.scopes import Scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service

TEAM = Scope("context", "team")


def _table(scope: Scope) -> Path:
    return scope.local_path() / "memory.lance"


def _no_versions(table: Path) -> None:
    shutil.rmtree(table / "_versions")


def _bad_manifest(table: Path) -> None:
    manifests = sorted((table / "_versions").glob("*.manifest"))
    manifests[0].write_bytes(os.urandom(2000))  # the newest version (lance counts down)


def _no_data_file(table: Path) -> None:
    for path in (table / "data").iterdir():
        path.unlink()


def _no_index_file(table: Path) -> None:
    for path in (table / "_indices").iterdir():
        shutil.rmtree(path)


def _cut_short(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 2)


def _short_data_file(table: Path) -> None:
    for path in (table / "data").iterdir():
        _cut_short(path)


def _short_index_file(table: Path) -> None:
    for path in (table / "_indices").rglob("*"):
        if path.is_file():
            _cut_short(path)


def _empty_manifest(table: Path) -> None:
    sorted((table / "_versions").glob("*.manifest"))[0].write_bytes(b"")


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "no _versions": (_no_versions, "version history"),
    "bad manifest": (_bad_manifest, "manifest"),
    "empty manifest": (_empty_manifest, "manifest"),
    "no data file": (_no_data_file, "a data file is missing"),
    "no index file": (_no_index_file, "an index file is missing"),
    "short data file": (_short_data_file, "cut short"),
    "short index file": (_short_index_file, "file"),  # cut short, or one it names missing
}


def _filled(scope: Scope) -> None:
    svc = open_service(scope)
    svc.upsert_many([MemoryDraft(title=f"note {n}", body=f"databases {n}") for n in range(3)])
    svc.maintain(force=True)  # every row in the indexes: a search reads index files


def _said_in_words(result: Any, scope: Scope, what: str) -> None:
    assert result.exit_code == 7, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert str(scope.local_path()) in line and "damaged" in line and what in line, line
    assert "doctor" in line or "backup" in line, line
    assert ".rs:" not in line and "/rustc/" not in line and "/proc/" not in line, line
    assert "Lance" not in line and "Arrow" not in line and "internal error" not in line, line
    assert "No memories" not in result.stdout + result.stderr


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_table_says_so(kind: str, cli: Any, scope: Scope) -> None:
    _filled(scope)
    damage, what = DAMAGE[kind]
    damage(_table(scope))
    commands = [("memory", "search", "databases")]
    if "index" not in kind:  # a listing reads no index: it still works then
        commands += [("memory", "list"), ("memory", "upsert", "-")]
    for args in commands:
        text = "---\ntitle: more\n---\nbody\n" if "upsert" in args else None
        _said_in_words(cli(*args, input=text), scope, what)


@pytest.mark.parametrize("kind", ["no _versions", "bad manifest", "no data file"])
def test_one_damaged_scope_never_fails_the_others(kind: str, cli: Any, scope: Scope) -> None:
    _filled(scope)
    _filled(TEAM)
    result = cli("memory", "context", "add", "notes", "--from", str(_notes_folder(scope)))
    assert result.exit_code == 0, result.stderr
    DAMAGE[kind][0](_table(TEAM))

    status = cli("memory", "status")
    assert status.exit_code == 0, status.stderr
    team = [line for line in status.stdout.splitlines() if line.startswith("context:team")]
    assert len(team) == 1 and "damaged" in team[0] and "no table" not in team[0], status.stdout
    assert f"{scope}: 3 memories" in status.stdout
    assert ".rs:" not in status.stdout + status.stderr

    maintain = cli("memory", "maintain", "--all", "--force")
    assert maintain.exit_code == 7
    assert "context:team" in maintain.stderr and "damaged" in maintain.stderr
    assert str(scope) in maintain.stdout  # the others were maintained

    # the registry knows `team` only when it was added as a context: add it by hand
    listing = cli("memory", "context", "list", "--format", "json")
    assert listing.exit_code == 0, listing.stderr
    assert [c["memories"] for c in listing.json() if c["name"] == "notes"] == [1]


def _notes_folder(scope: Scope) -> Path:
    folder = Path.cwd() / "notes"
    folder.mkdir(exist_ok=True)
    (folder / "one.md").write_text("# One\n\nA note.\n")
    return folder


def test_a_damaged_context_is_its_own_line_in_context_list(cli: Any, scope: Scope) -> None:
    folder = _notes_folder(scope)
    for name in ("alpha", "beta"):
        result = cli("memory", "context", "add", name, "--from", str(folder))
        assert result.exit_code == 0, result.stderr
    _bad_manifest(_table(Scope("context", "alpha")))
    listing = cli("memory", "context", "list")
    assert listing.exit_code == 0, listing.stderr
    assert "beta" in listing.stdout
    errors = [line for line in listing.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "alpha" in errors[0] and "damaged" in errors[0], listing.stderr
    refresh = cli("memory", "context", "refresh", "beta")
    assert refresh.exit_code == 0, refresh.stderr


def test_doctor_repair_rebuilds_an_index_file_cut_short(cli: Any, scope: Scope) -> None:
    _filled(scope)
    _short_index_file(_table(scope))
    assert cli("memory", "search", "databases").exit_code == 7
    repaired = cli("memory", "doctor", "--repair")
    assert repaired.exit_code == 0, repaired.stdout + repaired.stderr
    found = cli("memory", "search", "databases", "-f", "json")
    assert found.exit_code == 0, found.stderr
    assert len(found.json()) == 3


def test_a_command_sends_to_doctor_and_doctor_gives_the_restore_advice(
    cli: Any, scope: Scope
) -> None:
    """Seen by a command, damage to the rows is not proven: its line sends to `doctor`; the
    destructive advice (a backup, `prune`) comes from `doctor`, which reads the whole table."""
    _filled(scope)
    _short_data_file(_table(scope))
    listed = cli("memory", "list")
    assert listed.exit_code == 7
    assert (
        "doctor" in listed.stderr and "backup" not in listed.stderr and "prune" not in listed.stderr
    )
    checked = cli("memory", "doctor")
    assert checked.exit_code == 7
    assert "backup" in checked.stdout + checked.stderr, checked.stdout


def test_doctor_notices_a_lost_newest_version(cli: Any, scope: Scope) -> None:
    """Deleting only the newest version's manifest silently undoes the last commit (the table
    reads as it was before it, with no error): doctor says so."""
    _filled(scope)
    assert cli("memory", "doctor").exit_code == 0
    written = cli("memory", "upsert", "--title", "the last one", "--body", "then lost")
    assert written.exit_code == 0, written.stderr
    sorted((_table(scope) / "_versions").glob("*.manifest"))[0].unlink()  # the newest
    listed = cli("memory", "list", "-f", "json")
    assert "the last one" not in listed.stdout  # undone, without a word from the read
    checked = cli("memory", "doctor")
    assert checked.exit_code == 7, checked.stdout
    assert "history: problem" in checked.stdout and "missing" in checked.stdout, checked.stdout


def test_scan_all_never_reports_a_table_it_cannot_read_as_clean(cli: Any, scope: Scope) -> None:
    _filled(scope)
    _filled(TEAM)
    _no_data_file(_table(TEAM))
    scanned = cli("memory", "scan", "--all")
    assert scanned.exit_code == 7, (scanned.exit_code, scanned.stderr)
    assert "context:team" in scanned.stderr and "not scanned" in scanned.stderr, scanned.stderr

"""Import identity by path: a record of an instructions file is keyed by the file's
path in its repository and its heading, so two files of one name in different folders are
different memories and re-importing one updates only its own; memories imported under the old
key (the file's name) keep their ids. graphit's own managed block is never imported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphit_cli.access.scopes import Scope
from graphit_cli.agents.files import BEGIN, END
from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service
from graphit_cli.portability.importer import source_id


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _testing(scope: Scope) -> dict[str, str]:
    """id -> body of every live memory titled "Testing"."""
    return {m.id: m.body for m in open_service(scope).catalogue() if m.title == "Testing"}


def test_two_files_of_one_name_are_two_memories(cli: Any, scope: Scope, project_dir: Path) -> None:
    a = _write(project_dir / "pk" / "a" / "CLAUDE.md", "# A\n\n## Testing\n\nRun pytest.\n")
    b = _write(project_dir / "pk" / "b" / "CLAUDE.md", "# B\n\n## Testing\n\nRun npm test.\n")
    assert cli("memory", "import", str(a)).exit_code == 0
    assert cli("memory", "import", str(b)).exit_code == 0
    assert sorted(_testing(scope).values()) == ["Run npm test.", "Run pytest."]
    a.write_text("# A\n\n## Testing\n\nRun pytest -q.\n")
    again = cli("memory", "import", str(a))
    assert again.exit_code == 0 and "1 updated" in again.stderr, again.stderr
    assert sorted(_testing(scope).values()) == ["Run npm test.", "Run pytest -q."]


def test_a_folder_import_and_a_file_import_of_another_folder_differ(
    cli: Any, scope: Scope, project_dir: Path
) -> None:
    _write(project_dir / "import" / "CLAUDE.md", "## Testing\n\nRun the import checks.\n")
    _write(project_dir / "CLAUDE.md", "## Testing\n\nRun make test.\n")
    assert cli("memory", "import", str(project_dir / "import")).exit_code == 0
    assert cli("memory", "import", str(project_dir / "CLAUDE.md")).exit_code == 0
    assert sorted(_testing(scope).values()) == ["Run make test.", "Run the import checks."]


def test_memories_imported_under_the_old_key_keep_their_ids(
    cli: Any, scope: Scope, project_dir: Path
) -> None:
    """Before, `pk/a/CLAUDE.md`'s section was `agents:CLAUDE.md#Testing` (the file's name)."""
    old_id = source_id("agents:CLAUDE.md#Testing")
    legacy = MemoryDraft(
        id=old_id, title="Testing", body="Run pytest.", tags=("claude.md",), mandatory=True
    )
    open_service(scope).upsert(legacy)
    a = _write(project_dir / "pk" / "a" / "CLAUDE.md", "## Testing\n\nRun pytest.\n")
    b = _write(project_dir / "pk" / "b" / "CLAUDE.md", "## Testing\n\nRun npm test.\n")
    assert cli("memory", "import", str(a)).exit_code == 0
    assert _testing(scope) == {old_id: "Run pytest."}  # the same memory, now a's
    assert "pk/a/claude.md" in open_service(scope).source(old_id).tags
    assert cli("memory", "import", str(b)).exit_code == 0
    found = _testing(scope)
    assert found[old_id] == "Run pytest." and sorted(found.values()) == [
        "Run npm test.",
        "Run pytest.",
    ]
    a.write_text("## Testing\n\nRun pytest -x.\n")  # still a's own, after the migration
    assert cli("memory", "import", str(a)).exit_code == 0
    assert _testing(scope)[old_id] == "Run pytest -x."
    assert len(_testing(scope)) == 2


def test_graphits_managed_block_is_never_imported(
    cli: Any, scope: Scope, project_dir: Path
) -> None:
    text = (
        "# Project\n\n"
        f"{BEGIN}\n## graphit memory\n\nUse graphit_memory_search before answering.\n\n"
        f"## Saving\n\nSave what you learn.\n{END}\n\n"
        "## Testing\n\nRun pytest.\n"
    )
    path = _write(project_dir / "CLAUDE.md", text)
    result = cli("memory", "import", str(path), "--input-format", "agents", "--dry-run")
    assert result.exit_code == 0, result.stderr
    result = cli("memory", "import", str(path))
    assert result.exit_code == 0, result.stderr
    titles = sorted(m.title for m in open_service(scope).catalogue())
    assert titles == ["Testing"]
    line = text.split("\n").index("## Testing") + 1
    assert f"CLAUDE.md:{line}" in cli("memory", "import", str(path), "--dry-run").stdout + (
        cli("memory", "import", str(path), "--dry-run").stderr
    )


def test_one_text_in_composed_and_decomposed_forms_is_one_memory(
    cli: Any, scope: Scope, project_dir: Path
) -> None:
    """ "Café" typed as one code point per letter (NFC) or as "e" and a combining accent (NFD)
    is the same text: one memory, stored composed."""
    import unicodedata

    text = "# Café à Zürich\n\nLe café est servi à l'hôtel, naïvement.\n"
    composed = _write(project_dir / "nfc" / "note.md", unicodedata.normalize("NFC", text))
    decomposed = _write(project_dir / "nfd" / "note.md", unicodedata.normalize("NFD", text))
    assert cli("memory", "import", str(composed)).exit_code == 0
    again = cli("memory", "import", str(decomposed))
    assert again.exit_code == 0 and "0 created" in again.stderr, again.stderr
    memories = open_service(scope).catalogue()
    assert len(memories) == 1
    assert unicodedata.is_normalized("NFC", memories[0].title + memories[0].body)

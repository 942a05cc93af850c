"""Anchors across languages (graphit_cli/anchors/languages.py): the refactor corpus of
tests/fixtures/anchor_refactors, a command line naming no symbol, and anchors that never leave
the checkout nor make a hook read a large file. Every repository is a real git repository.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from graphit_cli import anchors
from graphit_cli.anchors import languages
from tests import anchor_corpus
from tests.anchor_corpus import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.mark.parametrize("language", anchor_corpus.languages())
def test_a_refactor_flags_every_broken_memory_and_nothing_else(
    language: str, tmp_path: Path
) -> None:
    outcome = anchor_corpus.run(language, tmp_path / language)
    wrong = {
        c.title: (c.anchors, c.reasons)
        for c in outcome.cases
        if c.flagged != (c.expect == "stale") or c.quick != c.flagged
    }
    assert wrong == {}
    unanchored = [
        c.title
        for c in outcome.cases
        if c.anchored and not any("@" in a or a.startswith("make ") for a in c.anchors)
    ]
    assert unanchored == []


def test_the_corpus_covers_at_least_six_languages_with_commands_and_kotlin() -> None:
    found = anchor_corpus.languages()
    assert len(found) >= 6 and "kotlin" in found
    bodies = "".join(
        (anchor_corpus.CORPUS / lang / "memories.toml").read_text(encoding="utf-8")
        for lang in found
    )
    assert "`dbt run`" in bodies and "`uv run loadgen`" in bodies and "`const val`" in bodies


def repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the project")
    return root


def memory(memory_id: str, *names: str) -> Any:
    return SimpleNamespace(id=memory_id, anchors=names)


def test_a_word_of_a_command_line_is_not_a_symbol(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        {
            "src/worker.py": "class Worker:\n    def run(self):\n        pass\n",
            "scripts/load.sh": "run() {\n  echo load\n}\n",
        },
    )
    for text in (
        "Nightly: `dbt run` then `dbt test`.",
        "Load test with `uv run loadgen` first.",
        "Start it with `FOO=1 npm run dev`.",
        "```sh\n$ uv run loadgen --users 10\n```",
        "```\ndbt run --select orders\n```",
        "Then `run` it.",  # a plain word, and no file named that defines it
        "Docs at `https://example.com/Worker.run` and `ops@example.com`.",  # not code
    ):
        assert anchors.detect("Ops", text, root) == (), text
    # As code, the same name anchors: a call, a member, a name the named file defines.
    assert anchors.detect("W", "`Worker.run()` loops.", root) == ("Worker.run@src/worker.py",)
    assert anchors.detect("S", "`run` in scripts/load.sh", root) == (
        "scripts/load.sh",
        "run@scripts/load.sh",
    )
    # A fenced block of code, not of shell, names symbols.
    assert anchors.detect("W", "```python\nWorker().run()\n```", root) == ("Worker@src/worker.py",)


def test_kotlin_fun_and_const_val_become_anchors_and_break(tmp_path: Path) -> None:
    kt = "app/src/Sync.kt"
    root = repo(
        tmp_path,
        {kt: "const val MAX_PARALLEL = 4\n\nclass Sync {\n    suspend fun syncAll() {}\n}\n"},
    )
    found = anchors.detect("Sync", "`MAX_PARALLEL` and `Sync.syncAll()`", root)
    assert found == (f"MAX_PARALLEL@{kt}", f"Sync.syncAll@{kt}")
    (root / kt).write_text("class Sync {\n    fun pull() {}\n}\n", encoding="utf-8")
    broken = anchors.check([memory("m", *found)], root, detail=False)["m"]
    assert [s.describe() for s in broken] == [
        f"MAX_PARALLEL@{kt}: MAX_PARALLEL no longer defined in {kt}",
        f"Sync.syncAll@{kt}: Sync.syncAll no longer defined in {kt}",
    ]


def test_python_definitions_the_patterns_miss_are_found_by_its_syntax_tree(
    tmp_path: Path,
) -> None:
    py = "app/settings.py"
    text = (
        "import os\n\nif os.environ.get('FAST'):\n    def backend():\n        return 1\n"
        "else:\n    def backend():\n        return 2\n\n\nclass Limits:\n    burst: int = 5\n"
        "    window, grace = 60, 3\n"
    )
    root = repo(tmp_path, {py: text})
    found = anchors.detect("L", "`backend()`, `Limits.window` and `Limits.burst`", root)
    assert found == (f"backend@{py}", f"Limits.window@{py}", f"Limits.burst@{py}")
    assert anchors.check([memory("m", *found)], root) == {}
    (root / py).write_text(text.replace("    window, grace = 60, 3\n", ""), encoding="utf-8")
    broken = anchors.check([memory("m", *found)], root)["m"]
    assert [s.anchor for s in broken] == [f"Limits.window@{py}"]


def test_anchors_outside_the_checkout_are_never_stated_nor_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(tmp_path / "project", {"src/app.py": "def main():\n    pass\n"})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "keys.py").write_text("def secret():\n    pass\n", encoding="utf-8")
    given = [
        str(outside / "keys.py"),
        "../elsewhere/keys.py",
        "src/../../elsewhere/keys.py",
        "secret@../elsewhere/keys.py",
        f"secret@{outside / 'keys.py'}",
        "/etc/hostname",
    ]
    stored = anchors.normalise([*given, f"{root}/src/app.py"], root)
    assert stored == (*given, "src/app.py")  # kept as given; one inside made relative
    seen: list[str] = []
    real_stat, real_open = os.stat, os.open

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)

    def open_(path: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "open", open_)
    for detail in (False, True):
        assert anchors.check([memory("m", *given)], root, detail=detail) == {}
    text = f"Keys in {outside}/keys.py and ../elsewhere/keys.py: `secret()`."
    assert anchors.detect("Outside", text, root) == ()
    assert [p for p in seen if "elsewhere" in p or p.startswith("/etc")] == []


def test_a_hook_never_reads_a_large_file_a_binary_or_a_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = "class Big:\n    pass\n" + "# filler line\n" * (languages.MAX_FILE_BYTES // 14 + 10)
    root = repo(tmp_path, {"gen/big.py": big, "lib/small.py": "class Small:\n    pass\n"})
    (root / "lib/blob.py").write_bytes(b"class Blob:\x00\xff\n")
    os.mkfifo(root / "lib/pipe.py")
    # Written while each could be read; a hook later reads none of them.
    held = ("Big@gen/big.py", "Blob@lib/blob.py", "Pipe@lib/pipe.py", "Small@lib/small.py")
    read: list[int] = []
    real_read = os.read

    def counted(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        read.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counted)
    result: dict[str, Any] = {}
    worker = threading.Thread(
        target=lambda: result.update(anchors.check([memory("m", *held)], root, detail=False)),
        daemon=True,
    )
    worker.start()
    worker.join(10)
    assert not worker.is_alive()  # the pipe was never opened for a blocking read
    assert result == {}  # unreadable is not broken: nothing flagged
    assert max(read) < 1024  # only the small files' bytes
    assert anchors.detect("Big", "`Big` in gen/big.py", root) == ("gen/big.py",)

"""Help and comments that cannot drift: a comment or docstring names only files that exist, and
help text shows policy numbers from where they live."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("graphit_cli", "tests", "benchmarks", "scripts")
# A path-like word: `reads.py`, `docs/architecture.md`, `data/word_frequencies.tsv`. Code and
# Markdown files count bare; other files only with a folder (a bare `config.toml` is a user's).
REFERENCE = re.compile(
    r"(?<![\w./~<$-])"
    r"((?:[\w.-]+/)*[\w-]+\.(?:py|md)"
    r"|(?:[\w.-]+/)+[\w-]+\.(?:tsv|jsonl|json|toml|sh|txt|png|yml|yaml|cfg|1|bash|zsh|fish))"
    r"(?![\w/])"
)
# Files in a user's project or examples in usage text, never files of this repository.
NOT_OURS = frozenset({"AGENTS.md", "CLAUDE.md", "GEMINI.md", "m.md", "notes.md", "all.md"})


def _texts(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and docstring in a module."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc


def _exists(reference: str, module: Path, root: Path) -> bool:
    """Relative to the module's package or any package above it, the repository root, or
    graphit_cli/ (`store/s3.py` from tests/ is graphit_cli/store/s3.py)."""
    if reference in NOT_OURS or reference.startswith("."):  # .claude/..., ../shared: not ours
        return True
    bases = [d for d in (module.parent, *module.parent.parents) if d == root or root in d.parents]
    return any((base / reference).exists() for base in [*bases, root / "graphit_cli"])


def missing_references(root: Path = ROOT) -> list[str]:
    missing = []
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            if path == Path(__file__).resolve():  # names missing files on purpose
                continue
            for line, text in _texts(path):
                for match in REFERENCE.finditer(text):
                    if not _exists(match.group(1), path, root):
                        missing.append(f"{path.relative_to(root)}:{line}: {match.group(1)}")
    return missing


def test_comments_and_docstrings_name_only_files_that_exist() -> None:
    """A file named in a comment is where a reader goes next; a renamed module must not leave
    its old name behind (`see service_base.py`), nor may a comment point outside the
    repository (the design notes are named without a path)."""
    assert missing_references() == []


def test_the_reference_check_finds_a_stale_name(tmp_path: Path) -> None:
    package = tmp_path / "graphit_cli" / "service"
    package.mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "search.md").write_text("", encoding="utf-8")
    (package / "reads.py").write_text(
        '"""Reads (see service_base.py and docs/search.md, memory.py)."""\n'
        "# the daemon (daemon.py) and CLAUDE.md, ../shared/data/x.jsonl\n",
        encoding="utf-8",
    )
    (package / "memory.py").write_text("", encoding="utf-8")
    for top in SCANNED[1:]:
        (tmp_path / top).mkdir()
    assert missing_references(tmp_path) == [
        "graphit_cli/service/reads.py:2: daemon.py",
        "graphit_cli/service/reads.py:1: service_base.py",
    ]


def test_search_help_shows_the_default_models_numbers() -> None:
    """The fusion weights and similarity floor are the default model's profile, shown from it;
    the lexical shares are core/relevance.py's."""
    from graphit_cli.cli.app import app
    from graphit_cli.core import profiles, relevance

    result = CliRunner().invoke(app, ["memory", "search", "--help"], terminal_width=400)
    text = " ".join(result.output.split())
    profile = profiles.DEFAULT
    assert result.exit_code == 0
    assert f"{profile.lexical_weight:g} lexical, {1 - profile.lexical_weight:g} semantic" in text
    assert f"floor ({profile.similarity_floor:.2f})" in text
    assert f"{relevance.MIN_SHARE:.0%} of the weight" in text
    assert f"{relevance.BM25_RELATIVE:.0%} of the best hit's" in text
    assert "0.5 / 0.5" not in text


@pytest.mark.parametrize("profile_name", ["MINILM", "E5"])
def test_consolidate_help_shows_each_models_threshold(profile_name: str) -> None:
    from graphit_cli.cli.app import app
    from graphit_cli.core import profiles

    profile = getattr(profiles, profile_name)
    result = CliRunner().invoke(app, ["memory", "consolidate", "--help"], terminal_width=400)
    text = " ".join(result.output.split())
    assert f"{profile.near_duplicate:g} for {profile.model_id}" in text

"""Help and comments that cannot drift: a comment or docstring names only files that exist, and
help text shows policy numbers from where they live."""

from __future__ import annotations

import ast
import functools
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
# `benchmarks/README.md, "cold_path.py"`: a section of a Markdown file, named by its heading.
SECTION = re.compile(r'((?:[\w.-]+/)*[\w-]+\.md),?\s*\(?"([^"]+)"')
# Files in a user's project or examples in usage text, never files of this repository.
NOT_OURS = frozenset({"AGENTS.md", "CLAUDE.md", "GEMINI.md", "m.md", "notes.md", "all.md"})


# The module's tests share one worker under `make test`: each reads every module's comments,
# and a module's are tokenized once (`_source_texts`, 3.11's tokenizer is pure Python).
pytestmark = pytest.mark.xdist_group("test_docs")


def _texts(path: Path) -> tuple[tuple[int, str], ...]:
    """(line, text) of every comment and docstring in a module; a block of comment lines is one
    text, so a reference wrapped onto the next line is still read whole."""
    return _source_texts(path.read_text(encoding="utf-8"))


@functools.cache
def _source_texts(source: str) -> tuple[tuple[int, str], ...]:
    return tuple(_read_texts(source))


def _read_texts(source: str) -> Iterator[tuple[int, str]]:
    block: list[str] = []
    first = last = -2
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        if token.start[0] != last + 1 and block:
            yield first, " ".join(block)
            block = []
        if not block:
            first = token.start[0]
        block.append(token.string.lstrip("#").strip())
        last = token.start[0]
    if block:
        yield first, " ".join(block)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc


# Modules about the files of a user's checkout (a memory's anchors): their bare file names
# are examples from such a checkout, not references to this repository.
USERS_FILES = ("graphit_cli/anchors/", "tests/test_anchors.py", "benchmarks/stale.py")


@functools.cache
def _top_names(root: Path) -> frozenset[str]:
    """The names at the repository's top and in graphit_cli/ (read once per root)."""
    return frozenset(p.name for d in (root, root / "graphit_cli") for p in d.iterdir())


def _exists(reference: str, module: Path, root: Path) -> bool:
    """Relative to the module's package or any package above it, the repository root, or
    graphit_cli/ (`store/s3.py` from tests/ is graphit_cli/store/s3.py). A path whose first
    folder is none of the repository's (`src/app/retry.py`) is a user's, as is a bare name
    in a module about a user's checkout."""
    if Path(reference).name in NOT_OURS or reference.startswith("."):  # .claude/, ../shared
        return True
    first, _, rest = reference.partition("/")
    if rest and first not in _top_names(root):
        return True
    if not rest and module.relative_to(root).as_posix().startswith(USERS_FILES):
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
                # `README.md, "cold_path.py"` names a section, checked on its own below
                text = SECTION.sub(lambda m: m.group(1), " ".join(text.split()))
                for match in REFERENCE.finditer(text):
                    if not _exists(match.group(1), path, root):
                        missing.append(f"{path.relative_to(root)}:{line}: {match.group(1)}")
    return missing


def test_comments_and_docstrings_name_only_files_that_exist() -> None:
    """A file named in a comment is where a reader goes next; a renamed module must not leave
    its old name behind (`see service_base.py`), nor may a comment point outside the
    repository (the design notes are named without a path)."""
    assert missing_references() == []


MARKDOWN = ("README.md", "docs", "benchmarks/README.md")


@functools.cache
def _headings(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # a `# comment` in a code block
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


def test_a_section_named_in_a_comment_has_that_heading() -> None:
    """`benchmarks/README.md, "Two models"` sent a reader to a heading that a rewrite removed."""
    missing = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue
            for line, text in _texts(path):
                for match in SECTION.finditer(" ".join(text.split())):
                    target = ROOT / match.group(1)
                    wanted = match.group(2).casefold()
                    if target.is_file() and not any(
                        wanted in heading.casefold() for heading in _headings(target)
                    ):
                        missing.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)}")
    assert missing == []


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.casefold().replace("`", ""))
    return text.replace(" ", "-")


def _markdown_files() -> list[Path]:
    found: list[Path] = []
    for name in MARKDOWN:
        path = ROOT / name
        found += sorted(path.rglob("*.md")) if path.is_dir() else [path]
    return found


def test_every_link_in_the_docs_resolves() -> None:
    """A relative link in README.md, docs/ or benchmarks/README.md names a file that exists,
    and an anchor names a heading of that file."""
    broken = []
    for page in _markdown_files():
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            rel, _, anchor = target.partition("#")
            path = (page.parent / rel).resolve() if rel else page
            if not path.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif (
                anchor
                and path.suffix == ".md"
                and anchor not in {_slug(h) for h in _headings(path)}
            ):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_benchmarks_page_is_a_results_page() -> None:
    """One section per benchmark with its figures and command, within 400 lines; what was
    learned on the way lives in docs/decisions/."""
    page = ROOT / "benchmarks" / "README.md"
    text = page.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 400
    headings = _headings(page)
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        if '__name__ == "__main__"' in script.read_text(encoding="utf-8"):  # not a helper
            assert script.name in headings, f"no section for benchmarks/{script.name}"
    assert not [h for h in headings if re.search(r"\bissue \d+|#\d+", h)], headings


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


def test_daemon_and_consolidate_help_show_their_defaults_from_the_code() -> None:
    from graphit_cli.cli.app import app
    from graphit_cli.consolidate.consolidator import MASS_COUNT
    from graphit_cli.core.maintenance import VECTOR_INDEX_MIN_ROWS
    from graphit_cli.daemon.supervisor import DaemonSettings

    def help_of(*words: str) -> str:
        result = CliRunner().invoke(app, [*words, "--help"], terminal_width=400)
        assert result.exit_code == 0
        return " ".join(result.output.split())

    settings = DaemonSettings()
    daemon = help_of("memory", "daemon")
    assert f"every {settings.embed_interval:g} seconds (GRAPHIT_EMBED_INTERVAL)" in daemon
    assert f"every {settings.maintain_interval:g} seconds (GRAPHIT_MAINTAIN_INTERVAL)" in daemon
    assert f"from {VECTOR_INDEX_MIN_ROWS} embedded rows" in help_of("memory", "maintain")
    consolidate = help_of("memory", "consolidate")
    assert f"(or {MASS_COUNT})" in consolidate


def test_every_graphit_variable_is_named_once() -> None:
    """environ.py names every GRAPHIT_* variable (the environment reference is generated from
    it), and no other module spells one out: the hooks' and the thin commands' paths import
    environ, not config."""
    spelled: dict[str, str] = {}
    for path in sorted((ROOT / "graphit_cli").rglob("*.py")):
        if path.name == "environ.py" and path.parent.name == "graphit_cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and re.fullmatch(r"GRAPHIT_[A-Z_]+", value):
                spelled.setdefault(value, str(path.relative_to(ROOT)))
    assert spelled == {}


def test_the_readme_is_a_front_door() -> None:
    """What graphit is, install and agent setup on the first screen, the two commands of the
    quick start, and where to read more; the rest lives in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[:2] == ["## Install", "## Connect your agent"], headings
    assert lines.index("## Connect your agent") < 60
    text = "\n".join(lines)
    assert "make demo" in text and "make test" in text
    assert "(docs/README.md)" in text and "(docs/reference/README.md)" in text


def test_tests_carry_no_type_ignore() -> None:
    """mypy checks graphit_cli only (pyproject.toml), so a `# type: ignore` in a test silences
    nothing: it only claims a check that never runs."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path != Path(__file__).resolve()
        for line, text in _texts(path)
        if re.search(r"\btype:\s*ignore\b", text)
    ]
    assert found == []


# An issue number, or a notes file kept outside the repository: a reader of the code has
# neither, so a comment says what the code does instead.
OUTSIDE = re.compile(r"\bissues? #?\d+|\(#\d+\)|\bLANCEDB_NOTES\b|\bHELPERS\.md\b", re.IGNORECASE)


def test_code_and_tests_name_no_issue_and_no_notes_outside_the_repository() -> None:
    """In comments, docstrings and strings alike: every line of every module."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for top in SCANNED
        for path in sorted((ROOT / top).rglob("*.py"))
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == []


def test_tests_and_benchmarks_find_the_shared_folder_from_the_project_root() -> None:
    """The shared data is `../shared` from the project's root, wherever the checkout is: no
    test or benchmark names an absolute path to it."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for top in ("tests", "benchmarks", "scripts")
        for path in sorted((ROOT / top).rglob("*.py"))
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"[\"'](?:/[\w.-]+)+/shared\b", line)
    ]
    assert found == []

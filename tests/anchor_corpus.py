"""The held-out refactor corpus (tests/fixtures/anchor_refactors): one small project per
language before and after a refactor, and memories naming what moved, what was renamed and what
was left alone. Shared by tests/test_anchors_languages.py and benchmarks/stale_languages.py.

Each language folder holds `before/`, `after/` (the whole tree after the refactor: a file absent
there is deleted) and `memories.toml`: `[[memory]]` tables with `title`, `body`, `expect`
("stale": the refactor broke what it names; "holds": it did not, or it names no code) and
`anchored = true` for a "holds" memory that names code, so it must get a symbol anchor (a check
that anchors nothing flags nothing, and must not pass for that).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "fixtures" / "anchor_refactors"


def languages() -> list[str]:
    return sorted(p.name for p in CORPUS.iterdir() if (p / "memories.toml").is_file())


@dataclass
class Case:
    id: str
    title: str
    body: str
    expect: str
    anchored: bool
    anchors: tuple[str, ...] = ()
    flagged: bool = False  # by the full check (git runs)
    quick: bool = False  # by the hook's check (no git)
    reasons: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    language: str
    cases: list[Case]

    @property
    def stale(self) -> list[Case]:
        return [c for c in self.cases if c.expect == "stale"]

    def counts(self) -> dict[str, int]:
        tp = sum(c.flagged for c in self.stale)
        fp = sum(c.flagged for c in self.cases if c.expect != "stale")
        return {
            "memories": len(self.cases),
            "broken": len(self.stale),
            "flagged": tp,
            "false_flags": fp,
            "missed": len(self.stale) - tp,
            "quick_disagrees": sum(c.flagged != c.quick for c in self.cases),
            "unanchored": sum(
                c.anchored and not any("@" in a or a.startswith("make ") for a in c.anchors)
                for c in self.cases
            ),
        }


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "c", "GIT_AUTHOR_EMAIL": "c@example.com"}
    env |= {"GIT_COMMITTER_NAME": "c", "GIT_COMMITTER_EMAIL": "c@example.com"}
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def _copy_tree(source: Path, root: Path) -> None:
    for path in sorted(source.rglob("*")):
        if path.is_file():
            target = root / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def run(language: str, root: Path) -> Outcome:
    """Write every memory's anchors in a git checkout of `before`, commit `after` over it,
    then check them as a read does (full) and as the hook does (quick)."""
    from graphit_cli import anchors

    folder = CORPUS / language
    spec = tomllib.loads((folder / "memories.toml").read_text(encoding="utf-8"))
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    _copy_tree(folder / "before", root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "before")
    cases = []
    for n, item in enumerate(spec["memory"]):
        case = Case(
            id=f"{language}-{n}",
            title=item["title"],
            body=item["body"],
            expect=item["expect"],
            anchored=bool(item.get("anchored", False)),
        )
        case.anchors = anchors.detect(case.title, case.body, root)
        cases.append(case)
    for path in git(root, "ls-files").splitlines():
        (root / path).unlink()
    _copy_tree(folder / "after", root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "refactor")
    full = anchors.check(cases, root)
    quick = anchors.check(cases, root, detail=False)
    for case in cases:
        case.flagged = case.id in full
        case.quick = case.id in quick
        case.reasons = [s.describe() for s in full.get(case.id, [])]
    return Outcome(language, cases)

"""The checkout an anchor is checked in: its git state, definitions, make targets, renames.

Standard library only; git runs as a subprocess with a timeout (a git that fails or hangs
answers "unknown", and the caller treats the anchor as holding).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphit_cli import config

GIT_TIMEOUT = 5.0  # seconds a git call may take before the check gives up on it (holds)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def git_word(name: str) -> str:
    """`name` as a whole word, for git log -G (POSIX ERE): the lines that mention it."""
    return f"(^|[^A-Za-z0-9_]){re.escape(name)}([^A-Za-z0-9_!?]|$)"


def inside(path: str) -> bool:
    """Whether `path` names something inside the checkout, by its text alone: relative, no
    `..` part, no `.git` part, no NUL. An anchor that is not is never stat'ed nor read."""
    if (
        not path
        or "\0" in path
        or path.startswith(("/", "\\", "~"))
        or re.match(r"[A-Za-z]:", path)
    ):
        return False
    parts = re.split(r"[/\\]", path)
    return ".." not in parts and ".git" not in parts


def relative(top: Path, path: str) -> str | None:
    """`path` relative to the checkout at `top` when it names something inside it (an
    absolute path under `top` made relative, by its text: nothing is stat'ed), else None."""
    if path.startswith("/"):
        head = str(top).rstrip("/") + "/"
        if not path.startswith(head):
            return None
        path = path[len(head) :]
    path = path.removeprefix("./")
    return path if inside(path) else None


def git_root(start: Path | str | None) -> Path | None:
    """The top of the git checkout holding `start` (a `.git` directory or file), or None."""
    if start is None:
        return None
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def git_dir(top: Path) -> Path:
    dotgit = top / ".git"
    if dotgit.is_file():  # a worktree or submodule: "gitdir: <path>"
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            return (top / text.split(":", 1)[1].strip()).resolve()
    return dotgit


def stat_key(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def head_state(top: Path) -> tuple[Any, ...]:
    """What decides every answer about this checkout's history: HEAD and the index."""
    gd = git_dir(top)
    head = ""
    try:
        head = (gd / "HEAD").read_text(encoding="utf-8").strip()
        if head.startswith("ref:"):
            ref = head.split(":", 1)[1].strip()
            common = gd
            if (gd / "commondir").is_file():
                common = (gd / (gd / "commondir").read_text().strip()).resolve()
            for base in (gd, common):
                if (base / ref).is_file():
                    head = (base / ref).read_text(encoding="utf-8").strip()
                    break
            else:
                head = f"{ref}:{stat_key(common / 'packed-refs')}"
    except OSError:
        pass
    return (head, stat_key(gd / "index"))


def git(top: Path, *args: str) -> str | None:
    import subprocess  # here: a read with nothing broken never runs git

    try:
        done = subprocess.run(
            ["git", "-C", str(top), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def checkout_root(cwd: Path | None = None) -> Path:
    """The caller's checkout root: the folder of the nearest graphit.lock.json, else cwd."""
    here = (cwd or Path.cwd()).resolve()
    lock = config.find_project_lock(here)
    return here if lock is None else lock.parent


def kind(anchor: str) -> str:
    if anchor.startswith("make "):
        return "make"
    if "@" in anchor or ("/" not in anchor and "." not in anchor):
        return "symbol"
    return "path"


def make_targets(top: Path) -> set[str]:
    for name in MAKEFILES:
        path = top / name
        if path.is_file():
            return _targets_in(path)
    return set()


_TARGETS: dict[str, tuple[Any, set[str]]] = {}


def _targets_in(path: Path) -> set[str]:
    key = stat_key(path)
    cached = _TARGETS.get(str(path))
    if cached is not None and cached[0] == key:
        return cached[1]
    from graphit_cli.anchors.languages import read_text

    text = read_text(path)  # a regular file of bounded size, never a pipe
    if text is None:
        return set()
    targets: set[str] = set()
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z0-9][\w.\- ]*?)\s*::?(?!=)", line)
        if match:
            targets.update(match.group(1).split())
    _TARGETS[str(path)] = (key, targets)
    return targets


def definitions(top: Path, names: Sequence[str], prefer: Sequence[str] = ()) -> dict[str, str]:
    """name -> the file defining it: first among the files in `prefer` (a memory that names a
    symbol usually names its file: a search of those files alone), then one `git grep` of the
    working tree for the names still missing. The lines that hold a name are narrowed to
    definitions in Python by each file's language (anchors/languages.py); a file too large to
    read, or outside the checkout, never answers."""
    names = [n for n in names if NAME.fullmatch(n)]
    files = [p for p in prefer if inside(p) and (top / p).is_file()]
    found = _grep(top, names, files) if files and names else {}
    rest = [n for n in names if n not in found]
    return found | (_grep(top, rest, ()) if rest else {})


NAME = re.compile(r"[A-Za-z_]\w*[!?]?")  # what a symbol anchor's name may be


def _grep(top: Path, names: Sequence[str], files: Sequence[str]) -> dict[str, str]:
    from graphit_cli.anchors.languages import MAX_FILE_BYTES, defines, language, read_text

    words = "|".join(re.escape(n) for n in names)
    pattern = f"(^|[^A-Za-z0-9_$])({words})([^A-Za-z0-9_]|$)"  # -i: SQL's names ignore case
    where = ["--", *files] if files else []
    out = git(top, "grep", "-n", "-I", "-E", "-i", "--untracked", "-e", pattern, *where)
    found: dict[str, str] = {}
    python: dict[str, list[str]] = {}  # name -> .py files mentioning it, for the syntax tree
    folded: dict[str, list[str]] = {}
    for name in names:
        folded.setdefault(name.lower(), []).append(name)
    for line in (out or "").splitlines():
        path, _, rest = line.partition(":")
        _, _, code = rest.partition(":")
        if not inside(path) or language(path) == "":
            continue
        held = {w.lower() for w in NAME.findall(code)} & folded.keys()
        for name in (n for w in held for n in folded[w]):
            if name in found:
                continue
            if defines(path, code, name, lines_only=True):
                size = stat_key(top / path)
                if size is not None and size[1] <= MAX_FILE_BYTES:
                    found[name] = path
            elif language(path) == "python" and path not in python.setdefault(name, []):
                python[name].append(path)
    for name, paths in python.items():  # an assignment in a class, a def under an `if`
        for path in paths[:20]:
            if name in found:
                break
            text = read_text(top / path)
            if text is not None and defines(path, text, name):
                found[name] = path
    return found


RENAME_HISTORY = 500  # commits the rename index reads back (older renames: "no longer exists")


class Renames:
    """Old path -> new path, by git's rename detection over the last RENAME_HISTORY commits and
    the staged changes: two git calls, made the first time a missing path asks."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self._map: dict[str, str | None] | None = None

    def of(self, path: str) -> str | None:
        """Where `path` went (following later renames), or None (deleted, or not seen)."""
        if self._map is None:
            self._map = _rename_map(self.top)
        seen: set[str] = set()
        new = self._map.get(path)
        while new is not None and not (self.top / new).exists() and new not in seen:
            seen.add(new)
            new = self._map.get(new, new)
            if new in seen:
                break
        return new


def _rename_map(top: Path) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    staged = git(top, "diff", "--cached", "-M", "--name-status", "HEAD") or ""
    history = git(
        top, "log", "-M", "--diff-filter=RD", "--name-status", "--format=", f"-n{RENAME_HISTORY}"
    )
    for line in (staged + "\n" + (history or "")).splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].startswith("R"):
            found.setdefault(parts[1], parts[2])  # newest first: the latest move wins
        elif len(parts) == 2 and parts[0] == "D":
            found.setdefault(parts[1], None)
    return found


def renamed(top: Path, path: str) -> str | None:
    """The likely new name of `path` by git's rename detection (see `Renames`)."""
    return Renames(top).of(path)


def breaking_commit(top: Path, path: str, pattern: str | None = None) -> str | None:
    """The last commit that touched `path` (with `pattern`: that changed lines matching it)."""
    args = ["log", "-1", "--format=%H"]
    if pattern:
        args += ["-G", pattern]
    out = git(top, *args, "--", path)
    return (out.strip() or None) if out else None

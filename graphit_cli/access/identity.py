"""Who is writing, from which checkout: the author, branch and commit a revision's provenance
carries (core/provenance.py).

The author is `GRAPHIT_AUTHOR` when set, else git's `user.email` for the checkout, else
`user@host`. Branch and commit are the checkout's HEAD. All of it is read from the files git
keeps (`.git/HEAD`, the refs, `packed-refs`, the config files), never by running git: a write
pays a few file reads instead of a process (benchmarks/provenance.py measures both), and the
answers are cached per process, looked at again only when HEAD or its ref file changes.

What the checkout says is what is recorded: accountability, not proof (anyone can set an
email); who can write at all is the storage provider's grants.
"""

from __future__ import annotations

import getpass
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

from graphit_cli import environ
from graphit_cli.core.provenance import Provenance


@dataclass(frozen=True)
class Checkout:
    """What git's files say about a working tree (None where they say nothing)."""

    email: str | None
    branch: str | None
    commit: str | None


_lock = threading.Lock()
_git_dirs: dict[str, tuple[Path, Path] | None] = {}  # start -> (git dir, common dir)
_emails: dict[str, str | None] = {}  # common dir -> user.email
_heads: dict[tuple[str, int, int], tuple[str | None, str | None, tuple[int, ...]]] = {}


def author(root: Path | None = None) -> str:
    """Who a write is attributed to: GRAPHIT_AUTHOR, git's user.email, else user@host."""
    value = os.environ.get(environ.ENV_AUTHOR, "").strip()
    if value:
        return value
    email = checkout(root).email
    return email or _user_at_host()


def stamp(
    via: str,
    *,
    root: Path | None = None,
    client: str | None = None,
    session: str | None = None,
) -> Provenance:
    """The provenance of a write made now from the checkout at `root` (the working
    directory's when None), by way of `via`."""
    found = checkout(root)
    return Provenance(
        author=author(root),
        via=via,
        client=client or None,
        session=session or None,
        branch=found.branch,
        commit=found.commit,
    )


def checkout(root: Path | None = None) -> Checkout:
    """The email, branch and commit of the git checkout holding `root` (cwd when None)."""
    start = str(root or Path.cwd())
    with _lock:
        if start not in _git_dirs:
            _git_dirs[start] = _find_git_dir(Path(start))
        dirs = _git_dirs[start]
    if dirs is None:
        return Checkout(_global_email(), None, None)
    git_dir, common = dirs
    with _lock:
        if str(common) not in _emails:
            _emails[str(common)] = _email(git_dir, common)
        email = _emails[str(common)]
    branch, commit = _head(git_dir, common)
    return Checkout(email, branch, commit)


def forget() -> None:
    """Drop what is cached (tests that change a checkout's config)."""
    with _lock:
        _git_dirs.clear()
        _emails.clear()
        _heads.clear()


def _user_at_host() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no login name in some containers
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"


def _find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(git dir, common dir) of the checkout holding `start`: `.git` is a directory, or (a
    worktree, a submodule) a file naming it; a worktree's refs and config are in the common
    dir its `commondir` file names."""
    here = start.resolve()
    for folder in (here, *here.parents):
        dot = folder / ".git"
        try:
            if dot.is_dir():
                git_dir = dot
            elif dot.is_file():
                text = dot.read_text(encoding="utf-8").strip()
                if not text.startswith("gitdir:"):
                    continue
                git_dir = (folder / text.partition(":")[2].strip()).resolve()
            else:
                continue
        except OSError:
            continue
        common = git_dir
        try:
            named = (git_dir / "commondir").read_text(encoding="utf-8").strip()
            common = (git_dir / named).resolve()
        except OSError:
            pass
        return git_dir, common
    return None


def _head(git_dir: Path, common: Path) -> tuple[str | None, str | None]:
    """(branch, commit) of HEAD; cached while HEAD and its branch's ref files keep their
    modification times (a commit moves the ref, a checkout moves HEAD)."""
    try:
        head = (git_dir / "HEAD").stat()
    except OSError:
        return None, None
    key = (str(git_dir), head.st_mtime_ns, head.st_size)
    entry = _heads.get(key)
    if entry is not None:
        branch, commit, seen = entry
        if branch is None or _ref_stamp(git_dir, common, branch) == seen:
            return branch, commit
    try:
        text = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None, None
    found: tuple[str | None, str | None]
    if text.startswith("ref:"):
        ref = text.partition(":")[2].strip()
        branch = ref.removeprefix("refs/heads/")
        seen = _ref_stamp(git_dir, common, branch)
        found = (branch, _resolve(ref, git_dir, common))
    else:
        seen = ()
        found = (None, text or None)  # detached
    with _lock:
        _heads[key] = (*found, seen)
    return found


def _ref_stamp(git_dir: Path, common: Path, branch: str) -> tuple[int, ...]:
    stamps = []
    for path in (git_dir / "refs/heads" / branch, common / "refs/heads" / branch):
        try:
            stamps.append(path.stat().st_mtime_ns)
        except OSError:
            stamps.append(-1)
    try:
        stamps.append((common / "packed-refs").stat().st_mtime_ns)
    except OSError:
        stamps.append(-1)
    return tuple(stamps)


def _resolve(ref: str, git_dir: Path, common: Path) -> str | None:
    """The commit a ref names: its loose file (the worktree's, then the common one), else
    `packed-refs`; None for a branch without commits."""
    for base in (git_dir, common):
        try:
            value = (base / ref).read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if value.startswith("ref:"):
            return _resolve(value.partition(":")[2].strip(), git_dir, common)
        return value or None
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref:
            return sha
    return None


def _email(git_dir: Path, common: Path) -> str | None:
    """user.email as git would pick it: the worktree's config, the repository's, then the
    global files (includes are not followed)."""
    for path in (git_dir / "config.worktree", common / "config"):
        found = _config_email(path)
        if found:
            return found
    return _global_email()


def _global_email() -> str | None:
    candidates: list[Path] = []
    explicit = os.environ.get("GIT_CONFIG_GLOBAL")
    if explicit:
        candidates.append(Path(explicit))
    else:
        home = Path(os.environ.get("HOME") or Path.home())
        candidates.append(home / ".gitconfig")
        xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
        candidates.append(Path(xdg) / "git" / "config")
    for path in candidates:
        found = _config_email(path)
        if found:
            return found
    return None


def _config_email(path: Path) -> str | None:
    """The last `email` of a `[user]` section in a git config file (git's last one wins)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section = ""
    found: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line[1 : line.find("]")].strip().lower() if "]" in line else ""
            rest = line[line.find("]") + 1 :].strip() if "]" in line else ""
            if not rest:
                continue
            line = rest
        if section != "user":
            continue
        name, sep, value = line.partition("=")
        if not sep or name.strip().lower() != "email":
            continue
        value = value.split(" #")[0].split(" ;")[0].strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        found = value.strip() or None
    return found

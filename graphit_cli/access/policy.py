"""A project's review policy, committed in its `graphit.lock.json`:

    {"project": {"id": "<ULID>"}, "review": {"reviewers": ["ana@example.com"]}}

With reviewers named, writes by agents (MCP, hooks, import) and by anyone who is not a
reviewer land as proposals (service/review.py); without the `review` key the project behaves as
one without review. Reviewers are compared by email, case-insensitively.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from graphit_cli import config
from graphit_cli.errors import InvalidInput


@dataclass(frozen=True)
class ReviewPolicy:
    reviewers: tuple[str, ...]

    def is_reviewer(self, author: str) -> bool:
        wanted = author.strip().casefold()
        return any(r.casefold() == wanted for r in self.reviewers)


def read(lock_file: Path) -> ReviewPolicy | None:
    """The policy in `lock_file`, or None (no review)."""
    try:
        data = json.loads(lock_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    review = data.get("review") if isinstance(data, dict) else None
    if not isinstance(review, dict):
        return None
    names = review.get("reviewers")
    if not isinstance(names, list):
        return None
    reviewers = tuple(n.strip() for n in names if isinstance(n, str) and n.strip())
    return ReviewPolicy(reviewers) if reviewers else None


_cached: dict[tuple[str, int], ReviewPolicy | None] = {}


def current(start: Path | None = None) -> ReviewPolicy | None:
    """The review policy of the project here (the nearest graphit.lock.json), or None; cached
    per process while the lock file keeps its modification time."""
    lock_file = config.find_project_lock(start)
    if lock_file is None:
        return None
    try:
        stamp = (str(lock_file), os.stat(lock_file).st_mtime_ns)
    except OSError:
        return None
    if stamp not in _cached:
        _cached[stamp] = read(lock_file)
    return _cached[stamp]


def write(lock_file: Path, reviewers: list[str] | None) -> ReviewPolicy | None:
    """Switch review on with `reviewers` (None: off) in `lock_file`, every other key kept."""
    try:
        data = json.loads(lock_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InvalidInput(f"{lock_file}: not a graphit lock file") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{lock_file}: not a graphit lock file")
    if reviewers is None:
        data.pop("review", None)
        policy = None
    else:
        cleaned: list[str] = []
        for name in reviewers:
            name = name.strip()
            if not name or any(c.isspace() or ord(c) < 32 for c in name):
                raise InvalidInput(f"invalid reviewer {name!r}: give an email")
            if name.casefold() not in {c.casefold() for c in cleaned}:
                cleaned.append(name)
        if not cleaned:
            raise InvalidInput("give at least one --reviewer EMAIL")
        data["review"] = {"reviewers": cleaned}
        policy = ReviewPolicy(tuple(cleaned))
    tmp = lock_file.with_name(lock_file.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, lock_file)
    return policy

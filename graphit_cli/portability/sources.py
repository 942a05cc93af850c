"""Where an import's records come from: a stream (a FIFO, a process substitution, a device)
read once into a file of its own, and an instruction file's records keyed by the file's path in
its repository rather than its name (two AGENTS.md in different folders are two sources)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from graphit_cli import environ
from graphit_cli.core import revisions
from graphit_cli.errors import InvalidInput
from graphit_cli.portability.model import Item

# A stream (a FIFO, `<(...)`, a device) is read whole before it is imported, up to this much.
MAX_STREAM_BYTES = 256 * 1024 * 1024


def spool(path: Path, folder: Path, fmt: str) -> Path:
    """The stream at `path` copied to a regular file in `folder`, named after it with the
    suffix its first bytes suggest (for `--format auto`). More than MAX_STREAM_BYTES (such as
    /dev/zero) is refused; nothing at all (/dev/null) is nothing to import."""
    chunks: list[bytes] = []
    size = 0
    try:
        with path.open("rb") as stream:
            while chunk := stream.read(1 << 20):
                size += len(chunk)
                if size > MAX_STREAM_BYTES:
                    raise InvalidInput(
                        f"{path} is larger than {MAX_STREAM_BYTES >> 20} MiB: import a file"
                        " or a folder instead"
                    )
                chunks.append(chunk)
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    data = b"".join(chunks)
    if not data.strip():
        raise InvalidInput(f"nothing to import in {path}")
    head = data.lstrip()[:1]
    suffix = {"{": ".ndjson", "[": ".json"}.get(head.decode("latin-1"), ".md")
    if fmt in ("ndjson", "mcp-memory"):
        suffix = ".ndjson" if fmt == "ndjson" else ".jsonl"
    target = folder / f"{path.name or 'stdin'}{suffix}"
    target.write_bytes(data)
    return target


def by_path(item: Item, file: Path, rel: str) -> Item:
    """An instruction file's record keyed by the file's path in its repository (the folder
    holding `.git` or graphit.lock.json), not by its name: a monorepo's `pk/a/CLAUDE.md` and
    `pk/b/CLAUDE.md` are different memories, and re-importing one updates only its own. A
    file below its repository's root also tags its memories with that path (lowercase),
    which tells a memory imported under the old key (tagged with the file's name alone) from
    one another file already took over (importer.py `_adopt`)."""
    where = _repo_path(file)
    if where is None or where == rel:
        return item  # the same key as ever
    old_prefix = f"agents:{rel}#"
    if not item.key.startswith(old_prefix):
        return item
    key = f"agents:{where}#" + item.key.removeprefix(old_prefix)
    tag = _path_tag(where)
    draft = item.draft
    if tag is not None:  # beside the file name's tag (the portability contract's)
        draft = replace(draft, tags=(*(draft.tags or ()), tag))
    return replace(item, key=key, draft=draft, legacy_key=item.key, claim_tag=tag)


def _repo_path(file: Path) -> str | None:
    """`file`'s path relative to the repository (or project) it is in; None outside one."""
    resolved = file.resolve()
    for name in environ.upward(str(resolved.parent)):  # not past GRAPHIT_CEILING_DIRECTORIES
        folder = Path(name)
        if (folder / ".git").exists() or (folder / environ.PROJECT_LOCK_FILE).is_file():
            return resolved.relative_to(folder).as_posix()
    return None


def _path_tag(path: str) -> str | None:
    """The repository path as a tag (None when it cannot be one: too long, odd characters)."""
    try:
        return revisions.validate_tag(path.lower())
    except InvalidInput:
        return None

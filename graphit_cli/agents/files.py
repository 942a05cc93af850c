"""Text edits on configuration files: merge an entry in, take it out, never clobber the rest.

Every function takes the file's current text (None when the file does not exist) and returns
the new text (None: delete the file), so a plan can be shown as a diff before anything is
written. A file that does not parse is refused with InvalidInput and is never rewritten.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphit_cli.errors import InvalidInput

BEGIN = "<!-- graphit:begin (managed by `graphit agent install`; edits inside are replaced) -->"
END = "<!-- graphit:end -->"


# --- JSON ------------------------------------------------------------------------------------


def _indent_of(text: str) -> int | str:
    """The indentation the file already uses (2 spaces for a new file)."""
    match = re.search(r"^[ \t]+(?=\S)", text, flags=re.MULTILINE)
    if match is None:
        return 2
    found = match.group(0)
    return found if "\t" in found else len(found)


def load_json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(
            f"{path} is not valid JSON ({exc}); fix or move it, nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path} does not hold a JSON object; nothing was changed")
    return data


def dump_json(data: dict[str, Any], like: str | None) -> str:
    return json.dumps(data, indent=_indent_of(like or ""), ensure_ascii=False) + "\n"


def edit_json(path: Path, text: str | None, change: Callable[[dict[str, Any]], bool]) -> str | None:
    """Apply `change` (which says whether it changed anything) to the file's object. An
    unchanged file keeps every byte; a file left as `{}` by a removal is deleted."""
    data = load_json(path, text)
    if not change(data):
        return text
    if not data and text is not None:
        return None
    return dump_json(data, text)


def section(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    """`data[key]`, created empty when missing; refused when it is not an object."""
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise InvalidInput(f"{path}: {key!r} is not a JSON object; nothing was changed")
    return value


def set_entry(data: dict[str, Any], key: str, name: str, entry: Any, path: Path) -> bool:
    servers = section(data, key, path)
    if servers.get(name) == entry:
        return False
    servers[name] = entry
    return True


def drop_entry(data: dict[str, Any], key: str, name: str) -> bool:
    servers = data.get(key)
    if not isinstance(servers, dict) or name not in servers:
        return False
    del servers[name]
    if not servers:
        del data[key]
    return True


# --- TOML ------------------------------------------------------------------------------------


def _load_toml(path: Path, text: str | None) -> Any:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text or "")
    except TOMLKitError as exc:
        raise InvalidInput(
            f"{path} is not valid TOML ({exc}); fix or move it, nothing was changed"
        ) from None


def toml_entry(path: Path, text: str | None, table: str, name: str) -> dict[str, Any] | None:
    doc = _load_toml(path, text)
    servers = doc.get(table)
    if servers is None or name not in servers:
        return None
    return dict(servers[name].unwrap())


def set_toml_entry(
    path: Path, text: str | None, table: str, name: str, entry: dict[str, Any]
) -> str | None:
    import tomlkit

    doc = _load_toml(path, text)
    servers = doc.get(table)
    if servers is not None and not isinstance(servers, dict):
        raise InvalidInput(f"{path}: {table!r} is not a table; nothing was changed")
    if servers is not None and name in servers and servers[name].unwrap() == entry:
        return text
    item = tomlkit.table()
    for key, value in entry.items():
        if isinstance(value, dict):
            sub = tomlkit.table()
            sub.update(value)
            item.add(key, sub)
        else:
            item.add(key, value)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc.add(table, servers)
    servers[name] = item
    rendered = tomlkit.dumps(doc)
    return rendered if rendered.endswith("\n") else rendered + "\n"


def drop_toml_entry(path: Path, text: str | None, table: str, name: str) -> str | None:
    import tomlkit

    doc = _load_toml(path, text)
    servers = doc.get(table)
    if servers is None or not isinstance(servers, dict) or name not in servers:
        return text
    del servers[name]
    if not servers:
        del doc[table]
    rendered = tomlkit.dumps(doc).rstrip()  # with the blank line install put before the table
    return rendered + "\n" if rendered else None


# --- a marked Markdown block -----------------------------------------------------------------

_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n?", flags=re.DOTALL)


def has_block(text: str | None) -> bool:
    return text is not None and _BLOCK.search(text) is not None


def set_block(text: str | None, content: str) -> str:
    """The block in place (replaced when its text changed), or appended after one blank line."""
    block = f"{BEGIN}\n{content.rstrip()}\n{END}\n"
    if text is not None and _BLOCK.search(text):
        return _BLOCK.sub(lambda _: block, text, count=1)
    if not text:
        return block
    return text + ("\n" if text.endswith("\n") else "\n\n") + block


def drop_block(text: str | None) -> str | None:
    """The file without the block (and the blank line `set_block` put before it); None when
    nothing else is left."""
    if text is None or not _BLOCK.search(text):
        return text
    start = _BLOCK.search(text).start()  # type: ignore[union-attr]
    before, after = text[:start], _BLOCK.sub("", text[start:], count=1)
    if before.endswith("\n\n") and not after:
        before = before[:-1]
    rest = before + after
    return rest if rest.strip() else None

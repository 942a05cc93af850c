"""Text edits on configuration files: merge an entry in, take it out, never clobber the rest.

Every function takes the file's current text (None when the file does not exist) and returns
the new text (None: delete the file), so a plan can be shown as a diff before anything is
written. A file that does not parse is refused with InvalidInput and is never rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from graphit_cli.errors import InvalidInput

BEGIN = "<!-- graphit:begin (managed by `graphit agent install`; edits inside are replaced) -->"
END = "<!-- graphit:end -->"


# --- JSON ---------------------------------------------------------------------------------
# Through the span-keeping editor (jsonc.py): only graphit's own entry changes; comments,
# trailing commas, layout and key order elsewhere stay byte for byte.


def load_json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    from graphit_cli.agents import jsonc

    try:
        data = jsonc.loads(text)
    except jsonc.JsoncError as exc:
        raise InvalidInput(
            f"{path} is not valid JSON ({exc}); fix or move it, nothing was changed"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path} does not hold a JSON object; nothing was changed")
    return data


def _not_object(path: Path, where: str) -> InvalidInput:
    return InvalidInput(f"{path}: {where!r} is not a JSON object; nothing was changed")


def set_json_entry(path: Path, text: str | None, keys: list[str], entry: Any) -> str | None:
    """The file with `entry` at `keys` (created with the objects on the way when missing)."""
    from graphit_cli.agents import jsonc

    load_json(path, text)  # refuses what is not a JSON object, with the file's name
    try:
        return jsonc.set_path(text, keys, entry)
    except TypeError as exc:
        raise _not_object(path, str(exc)) from None


def drop_json_entry(path: Path, text: str | None, keys: list[str]) -> str | None:
    return drop_json_path(path, text, list(keys)) if text is not None else None


def drop_json_path(path: Path, text: str | None, steps: list[str | int]) -> str | None:
    """The file without the entry at `steps`; None (delete it) when install had created it."""
    from graphit_cli.agents import jsonc

    if text is None or not text.strip():
        return text
    load_json(path, text)
    return jsonc.remove_entry(text, steps)


def add_json_item(path: Path, text: str | None, keys: list[str], item: Any) -> str:
    from graphit_cli.agents import jsonc

    load_json(path, text)
    try:
        return jsonc.add_item(text, keys, item)
    except TypeError as exc:
        raise _not_object(path, str(exc)) from None


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

"""A span-keeping JSON/JSONC editor: change one entry, keep every other byte as written.

`parse` (agents/jsonc_tree.py) reads JSON with `//` and `/* */` comments and trailing commas
(what VS Code and Gemini CLI accept) into a tree of nodes that know their byte spans; `loads` is
its value. `set_path`, `add_item` and `remove_entry` splice text in and out of those spans;
nothing else in the file is re-laid: its indentation, comments, key order and compact lines stay
byte for byte.

Removal is the exact inverse of insertion, so uninstall gives back the file install started from:
- a new member goes after the last one (`, "graphit": ...` on the same line in a one-line object,
  else on a line of its own with the last member's indentation, after that line's comment);
- into an empty `{}` (or `[]`) it goes inline (`{"graphit": {...}}`), so `{}` comes back;
- an object or array that install had to create is written `{` newline ... newline `}` (inline
  parents: `{ ... }` with a space inside); left empty in that shape by a removal, it goes too.
  An empty object written exactly that way by hand is the one shape uninstall takes out with it.
- a file install created is `{` newline `}` once emptied, and is deleted (`None`).

The splices cut at the spans the tree records (a value's ends, a member's key and comma): what
the parser records and what the splices assume change together.
"""

from __future__ import annotations

import json
import re
from typing import Any

from graphit_cli.agents.jsonc_tree import JsoncError as JsoncError
from graphit_cli.agents.jsonc_tree import JsonEntry, Node, parse

EMPTY_FILE = "{\n}\n"  # what install starts a new file from; a removal leaving it deletes it


def loads(text: str) -> Any:
    return parse(text).value


# --- layout ----------------------------------------------------------------------------------


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def indent_unit(text: str) -> str:
    """The indentation step the file uses (the first indented line's), two spaces by default."""
    match = re.search(r"^([ \t]+)(?=\S)", text, flags=re.MULTILINE)
    return match.group(1) if match else "  "


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    match = re.match(r"[ \t]*", text[start:pos])
    return match.group(0) if match else ""


def _multiline(text: str, node: Node) -> bool:
    return "\n" in text[node.start : node.end]


def render(value: Any, indent: str, unit: str, newline: str = "\n") -> str:
    """`value` laid out at `indent`: objects one member a line, arrays of scalars inline."""
    if isinstance(value, dict) and value:
        inner = indent + unit
        members = [
            f"{inner}{json.dumps(k, ensure_ascii=False)}: {render(v, inner, unit, newline)}"
            for k, v in value.items()
        ]
        return "{" + newline + ("," + newline).join(members) + newline + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        inner = indent + unit
        items = [inner + render(v, inner, unit, newline) for v in value]
        return "[" + newline + ("," + newline).join(items) + newline + indent + "]"
    return inline(value)


def inline(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# --- finding ---------------------------------------------------------------------------------


def member(node: Node, key: str) -> JsonEntry | None:
    """The last member named `key` (what JSON.parse keeps), or None."""
    found = [e for e in node.entries if e.key == key]
    return found[-1] if found else None


def walk(root: Node, path: list[str]) -> Node | None:
    node: Node | None = root
    for key in path:
        if node is None or node.kind != "object":
            return None
        entry = member(node, key)
        node = entry.node if entry else None
    return node


# --- splicing --------------------------------------------------------------------------------


def _fresh(key: str | None, value: Any, text: str, container: Node) -> str:
    """The text of a new entry for `container`, laid out as its neighbours are."""
    name = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    if not _multiline(text, container):
        return name + inline(value)
    return name + render(value, _entry_indent(text, container), indent_unit(text), _newline(text))


def _entry_indent(text: str, container: Node) -> str:
    """The indentation of an entry on a line of its own in a multi-line `container`."""
    if container.entries:
        return _line_indent(text, container.entries[-1].start)
    return _line_indent(text, container.start) + indent_unit(text)


def _created(key: str, chain: list[str | None], leaf: Any, text: str, container: Node) -> str:
    """A new member `key` holding containers install makes: one per `chain` step (a key: an
    object, None: an array) around `leaf`, in the shape `remove_entry` knows as install's."""
    name = json.dumps(key, ensure_ascii=False) + ": "
    if not _multiline(text, container):
        return name + _inline_created(chain, leaf)
    value: Any = leaf
    for step in reversed(chain):
        value = [value] if step is None else {step: value}
    return name + render(value, _entry_indent(text, container), indent_unit(text), _newline(text))


def _inline_created(chain: list[str | None], leaf: Any) -> str:
    if not chain:
        return inline(leaf)
    inner = _inline_created(chain[1:], leaf)
    if chain[0] is None:
        return f"[ {inner} ]"
    return f"{{ {json.dumps(chain[0], ensure_ascii=False)}: {inner} }}"


def append(text: str, container: Node, entry_text: str) -> str:
    """`text` with `entry_text` added as `container`'s last entry."""
    newline = _newline(text)
    if not container.entries:
        if not _multiline(text, container):
            return text[: container.start + 1] + entry_text + text[container.start + 1 :]
        at = _end_of_line(text, container.start + 1, container.end - 1)
        indent = _entry_indent(text, container)
        return text[:at] + newline + indent + entry_text + text[at:]
    last = container.entries[-1]
    if not _multiline(text, container):
        if last.comma is not None:  # a trailing comma stays trailing
            at = last.comma + 1
            return text[:at] + " " + entry_text + "," + text[at:]
        at = last.node.end
        return text[:at] + ", " + entry_text + text[at:]
    indent = _line_indent(text, last.start)
    if last.comma is not None:
        at = _end_of_line(text, last.comma + 1, container.end - 1)
        return text[:at] + newline + indent + entry_text + "," + text[at:]
    at = last.node.end
    eol = _end_of_line(text, at, container.end - 1)
    return text[:at] + "," + text[at:eol] + newline + indent + entry_text + text[eol:]


def _end_of_line(text: str, pos: int, limit: int) -> int:
    """Where the line holding `pos` ends, when only blanks and comments follow on it before
    `limit`; else `pos`."""
    at = pos
    while at < limit:
        char = text[at]
        if char in " \t":
            at += 1
        elif text.startswith("//", at):
            newline = text.find("\n", at)
            return limit if newline < 0 else min(newline, limit)
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            if close < 0 or "\n" in text[at:close]:
                return pos
            at = close + 2
        else:
            break
    if at < limit and text[at] in "\r\n":
        return at
    return pos


def _line_start(text: str, pos: int) -> int:
    """`pos` moved back over blanks and then one line break, when there is one."""
    at = pos
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    if at > 0 and text[at - 1] == "\n":
        at -= 1
        if at > 0 and text[at - 1] == "\r":
            at -= 1
        return at
    return pos


def remove(text: str, container: Node, index: int) -> str:
    """`text` without `container`'s entry `index` (the inverse of `append` for the last one)."""
    entries = container.entries
    entry = entries[index]
    if len(entries) == 1:
        open_at, close_at = container.start + 1, container.end - 1
        before = text[open_at : entry.start]
        after = text[entry.node.end : close_at]
        if entry.comma is not None:
            cut = entry.comma - entry.node.end
            after = after[:cut] + after[cut + 1 :]
        if "\n" in before:
            before = before[: before.rfind("\n")].removesuffix("\r")
        return text[:open_at] + before + after + text[close_at:]
    if entry.comma is not None:  # drop its line (or its inline span) with its own comma
        start = _line_start(text, entry.start)
        end = entry.comma + 1
        if start == entry.start:  # inline: take the blanks after the comma instead
            while end < entry.comma + 2 and end < len(text) and text[end] == " ":
                end += 1
            if index > 0:
                start = entry.start
                while start > 0 and text[start - 1] == " " and start > entries[index - 1].start:
                    start -= 1
                end = entry.comma + 1
        return text[:start] + text[end:]
    previous = entries[index - 1]
    assert previous.comma is not None
    start = _line_start(text, entry.start)
    if start == entry.start:  # inline: ", entry" right after the previous value
        return text[: previous.comma] + text[entry.node.end :]
    return text[: previous.comma] + text[previous.comma + 1 : start] + text[entry.node.end :]


def _is_created_shape(text: str, node: Node) -> bool:
    """An empty container in the shape install writes a container it creates."""
    if node.kind == "scalar" or node.entries:
        return False
    inner = text[node.start + 1 : node.end - 1]
    if "\n" not in inner:
        return inner == "  "
    return inner.lstrip("\r") in ("\n" + _line_indent(text, node.start),)


# --- the two operations ----------------------------------------------------------------------


def set_path(text: str | None, path: list[str], value: Any) -> str:
    """`text` with the member at `path` (object keys) set to `value`; unchanged when it already
    holds it. Missing objects on the way are created. Raises JsoncError on text that does not
    parse, TypeError when something on the path is not an object."""
    text = EMPTY_FILE if text is None or not text.strip() else text
    root = parse(text)
    node = root
    for depth, key in enumerate(path):
        if node.kind != "object":
            raise TypeError("/".join(path[:depth]) or "the file")
        entry = member(node, key)
        if entry is None:
            if depth == len(path) - 1:
                return append(text, node, _fresh(key, value, text, node))
            chain: list[str | None] = list(path[depth + 1 :])
            return append(text, node, _created(key, chain, value, text, node))
        if depth == len(path) - 1:
            if entry.node.value == value and type(entry.node.value) is type(value):
                return text
            indent = _line_indent(text, entry.start)
            laid = (
                render(value, indent, indent_unit(text), _newline(text))
                if _multiline(text, node)
                else inline(value)
            )
            return text[: entry.node.start] + laid + text[entry.node.end :]
        node = entry.node
    return text


def add_item(text: str | None, path: list[str], item: Any) -> str:
    """`text` with `item` appended to the array at `path`, which is created when missing."""
    text = EMPTY_FILE if text is None or not text.strip() else text
    root = parse(text)
    node = root
    for depth, key in enumerate(path):
        if node.kind != "object":
            raise TypeError("/".join(path[:depth]) or "the file")
        entry = member(node, key)
        if entry is None:
            chain: list[str | None] = [*path[depth + 1 :], None]
            return append(text, node, _created(key, chain, item, text, node))
        node = entry.node
    if node.kind != "array":
        raise TypeError("/".join(path))
    return append(text, node, _fresh(None, item, text, node))


def remove_entry(text: str, path: list[str | int]) -> str | None:
    """`text` without the entry at `path` (keys and array indexes); containers on the way left
    empty in install's own shape go too, and a file left as install started it is None."""
    root = parse(text)
    chain: list[tuple[Node, int]] = []
    node = root
    for step in path:
        if isinstance(step, str):
            if node.kind != "object":
                return text
            found = [i for i, e in enumerate(node.entries) if e.key == step]
            if not found:
                return text
            index = found[-1]
        else:
            if node.kind != "array" or not 0 <= step < len(node.entries):
                return text
            index = step
        chain.append((node, index))
        node = node.entries[index].node
    parent, index = chain.pop()
    text = remove(text, parent, index)
    while chain:  # containers install created, emptied by this removal, go with it
        tree = parse(text)
        here = _node_at(tree, [e for e in path[: len(chain)]])
        if here is None or not _is_created_shape(text, here):
            break
        holder = _node_at(tree, path[: len(chain) - 1])
        assert holder is not None
        index = chain[-1][1]
        chain.pop()
        text = remove(text, holder, index)
    return None if text == EMPTY_FILE or text == EMPTY_FILE.replace("\n", "\r\n") else text


def _node_at(root: Node, path: list[str | int]) -> Node | None:
    node = root
    for step in path:
        if isinstance(step, str):
            entry = member(node, step) if node.kind == "object" else None
            if entry is None:
                return None
            node = entry.node
        else:
            if node.kind != "array" or not 0 <= step < len(node.entries):
                return None
            node = node.entries[step].node
    return node

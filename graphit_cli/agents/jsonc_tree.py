"""JSON with comments read into a tree of nodes that know their byte spans.

`parse` reads JSON with `//` and `/* */` comments and trailing commas (what VS Code and Gemini
CLI accept), a leading byte-order mark, and duplicate keys (the last one wins, as JSON.parse
keeps it); each object, array and scalar records where it starts and ends, each member where
its key starts and where its comma is, so agents/jsonc.py can splice text in and out at those
places and keep every other byte. Standard library only: the strings are the json module's own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, cast


class JsoncError(ValueError):
    """The text is not JSON (with comments and trailing commas allowed)."""


@dataclass
class Node:
    kind: str  # "object", "array" or "scalar"
    start: int  # the value's first byte
    end: int  # one past its last byte
    value: Any
    entries: list[JsonEntry] = field(default_factory=list)


@dataclass
class JsonEntry:
    """A member of an object (with its key) or an item of an array (key None)."""

    key: str | None
    start: int  # the key's opening quote, or the item's first byte
    node: Node
    comma: int | None  # the comma after it, if any


_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]  # the json module's own
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WS = " \t\r\n"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> JsoncError:
        line = self.text.count("\n", 0, self.pos) + 1
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return JsoncError(f"{what} at line {line} column {column}")

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            char = text[self.pos]
            if char in _WS or (char == "\ufeff" and self.pos == 0):
                self.pos += 1
            elif text.startswith("//", self.pos):
                newline = text.find("\n", self.pos)
                self.pos = n if newline < 0 else newline
            elif text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                if close < 0:
                    raise self.fail("unterminated comment")
                self.pos = close + 2
            else:
                return

    def value(self, depth: int = 0) -> Node:
        if depth > 200:
            raise self.fail("nested too deeply")
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("expected a value")
        char = self.text[self.pos]
        if char == "{":
            return self.container("object", "}", depth)
        if char == "[":
            return self.container("array", "]", depth)
        start = self.pos
        if char == '"':
            found = self.string()
            return Node("scalar", start, self.pos, found)
        for word, literal in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, start):
                self.pos = start + len(word)
                return Node("scalar", start, self.pos, literal)
        match = _NUMBER.match(self.text, start)
        if match is None:
            raise self.fail("expected a value")
        self.pos = match.end()
        return Node("scalar", start, self.pos, json.loads(match.group(0)))

    def string(self) -> str:
        try:
            found, self.pos = _scanstring(self.text, self.pos + 1, True)
        except ValueError:
            raise self.fail("invalid string") from None
        return cast(str, found)

    def container(self, kind: str, close: str, depth: int) -> Node:
        node = Node(kind, self.pos, self.pos, {} if kind == "object" else [])
        self.pos += 1
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail(f"expected {close!r}")
            if self.text[self.pos] == close:
                break
            if node.entries and node.entries[-1].comma is None:
                raise self.fail(f"expected ',' or {close!r}")
            start = self.pos
            key = None
            if kind == "object":
                if self.text[self.pos] != '"':
                    raise self.fail("expected a member name in double quotes")
                key = self.string()
                self.skip()
                if self.text[self.pos : self.pos + 1] != ":":
                    raise self.fail("expected ':'")
                self.pos += 1
            child = self.value(depth + 1)
            self.skip()
            comma = None
            if self.text[self.pos : self.pos + 1] == ",":
                comma = self.pos
                self.pos += 1
            node.entries.append(JsonEntry(key, start, child, comma))
            if key is not None:
                node.value[key] = child.value
            else:
                node.value.append(child.value)
        self.pos += 1
        node.end = self.pos
        return node


def parse(text: str) -> Node:
    """The tree of `text`; JsoncError when it is not JSON with comments and trailing commas."""
    parser = _Parser(text)
    root = parser.value()
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("unexpected text after the value")
    return root

"""Markdown reading for imports: YAML frontmatter with line numbers, headings via markdown-it.

Headings come from markdown-it-py's token stream (so `#` inside code blocks is not a heading);
frontmatter is the block between a first line `---` and the next `---` line, read by PyYAML.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class FrontmatterError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Document:
    meta: dict[str, Any]
    body: str
    body_line: int  # 1-based line where the body starts in the file
    meta_lines: dict[str, int]  # top-level frontmatter key -> its 1-based line


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int  # 0-based line of the heading
    end: int  # 0-based line after the heading (setext headings span two lines)


def read_document(text: str) -> Document:
    """Split YAML frontmatter (if any) from the body. Raises FrontmatterError with a line."""
    import yaml

    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return Document({}, text, 1, {})
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontmatterError(1, "frontmatter is not closed by a line '---'")
    block = "\n".join(lines[1:end])
    try:
        loaded = yaml.safe_load(block)
    except RecursionError:
        raise FrontmatterError(2, "malformed frontmatter: nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise FrontmatterError(line, f"malformed frontmatter: {problem}") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise FrontmatterError(2, "frontmatter must be a YAML mapping")
    meta_lines: dict[str, int] = {}
    for number, raw in enumerate(lines[1:end], start=2):
        if raw and not raw[0].isspace() and ":" in raw:
            meta_lines.setdefault(raw.split(":", 1)[0].strip().strip("\"'"), number)
    return Document(
        {str(k): v for k, v in loaded.items()}, "\n".join(lines[end + 1 :]), end + 2, meta_lines
    )


def headings(text: str) -> list[Heading]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None:
            inline = tokens[index + 1]
            found.append(Heading(int(token.tag[1]), inline.content.strip(), *token.map))
    return found


def sections(text: str, level: int = 2) -> tuple[str, list[tuple[Heading, str]]]:
    """The text before the first heading of `level`, and each such heading with its text
    (down to the next heading of the same or a higher level)."""
    lines = text.split("\n")
    marks = [h for h in headings(text) if h.level <= level]
    cuts = [h for h in marks if h.level == level]
    if not cuts:
        return text, []
    preamble = "\n".join(lines[: cuts[0].line])
    out = []
    for heading in cuts:
        stop = next((h.line for h in marks if h.line > heading.line), len(lines))
        out.append((heading, "\n".join(lines[heading.end : stop])))
    return preamble, out


def strip_title_heading(body: str) -> tuple[str | None, str]:
    """The first heading's text, and the body without it when it is the first thing in it."""
    found = headings(body)
    if not found:
        return None, body
    first = found[0]
    lines = body.split("\n")
    if any(line.strip() for line in lines[: first.line]):
        return first.text, body
    return first.text, "\n".join(lines[first.end :])

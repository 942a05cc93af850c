"""What hides a token from a pattern, undone: the views of a text that the secret detector
reads besides the text itself.

- `unhidden(text)`: the text without invisible format characters (zero-width space, joiner,
  word joiner, soft hyphen, byte-order mark, direction marks), Markdown emphasis and code marks
  (`*`, `**`, `` ` ``, `~~`, `__`) between two visible characters, a line break inside a
  token (a run of 16 or more token characters, a digit among them, broken by a newline, and
  a next line that begins with a word of token characters alone) and percent-encoding
  (`%41`), with a map from each of its positions back to the text's;
- `decoded(text)`: each run that reads as base64 (standard or URL-safe) and decodes to
  printable UTF-8, with its span in the text.

A mask of four or more `*` (`ghp_****abcd`) is kept: it is a placeholder, not emphasis.
Pure: standard library only.
"""

from __future__ import annotations

import base64
import binascii
import re
from bisect import bisect_right
from dataclasses import dataclass

from graphit_cli.core.secret_gate import FORMAT_CHARACTERS

_TOKEN = "A-Za-z0-9_+/=-"
# The invisible format characters (named by the detector's pre-check, which looks for them too).
_FORMAT = FORMAT_CHARACTERS
_HIDERS = re.compile(
    rf"[{_FORMAT}]+"
    r"|(?<!\*)\*{1,3}(?!\*)"
    r"|`+|~~|__"
    rf"|\r?\n[ \t]*(?=[{_TOKEN}]{{4,}}(?:\s|$))"
    r"|%[0-9A-Fa-f]{2}"
)
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=-")
# The 16 characters before a line break inside a token: token characters, a digit among them.
_BROKEN = re.compile(r"[A-Za-z0-9_+/-]*[0-9][A-Za-z0-9_+/-]*")
# Where a hider can begin: `re` scans a class fast, the alternation above slowly.
_HIDER_STARTS = re.compile(rf"[{_FORMAT}*`~_\r\n%]")
_HEX = re.compile(r"[0-9a-fA-F]+")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")


@dataclass(frozen=True)
class View:
    """A text with its hiders removed: `span` maps a span of `text` back to the original."""

    text: str
    starts: tuple[int, ...]  # view offsets where a segment begins
    sources: tuple[int, ...]  # the original offset of each segment
    widths: tuple[int, ...]  # 0 for a kept segment; the original's width of a decoded char

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the view's [start, end)."""
        first = bisect_right(self.starts, start) - 1
        begin = self.sources[first] + (0 if self.widths[first] else start - self.starts[first])
        if end <= start:
            return begin, begin
        last = bisect_right(self.starts, end - 1) - 1
        if self.widths[last]:
            return begin, self.sources[last] + self.widths[last]
        return begin, self.sources[last] + (end - 1 - self.starts[last]) + 1


def unhidden(text: str) -> View | None:
    """The text without what hides a token inside it; None when nothing does. A hider counts
    only between two visible characters (`ghp_ab**cd`, `**password**:`): emphasis that opens
    or closes at a space, the usual Markdown, hides nothing."""
    pieces: list[str] = []
    starts: list[int] = []
    sources: list[int] = []
    widths: list[int] = []
    at = 0
    size = 0
    for candidate in _HIDER_STARTS.finditer(text):  # a class scan, then the pattern there
        if candidate.start() < at:
            continue
        hider = _HIDERS.match(text, candidate.start())
        if hider is None:
            continue
        found = hider.group(0)
        begin, end = hider.start(), hider.end()
        replacement = ""
        if found[0] == "%":
            value = int(found[1:], 16)
            if value < 0x20 or value > 0x7E:
                continue  # only printable ASCII is decoded (a secret's alphabet)
            replacement = chr(value)
        elif found[0] in "\r\n":
            before = text[max(0, begin - 16) : begin]
            if len(before) < 16 or not _BROKEN.fullmatch(before):
                continue  # prose wrapped at a word, not a key broken over two lines
        elif found[0] in "*`~_" and not _between_visible(text, begin, end):
            continue
        if begin > at:
            starts.append(size)
            sources.append(at)
            widths.append(0)
            pieces.append(text[at:begin])
            size += begin - at
        if replacement:
            starts.append(size)
            sources.append(begin)
            widths.append(end - begin)
            pieces.append(replacement)
            size += 1
        at = end
    if not starts and at == 0:
        return None
    starts.append(size)
    sources.append(at)
    widths.append(0)
    pieces.append(text[at:])
    return View("".join(pieces), tuple(starts), tuple(sources), tuple(widths))


def _between_visible(text: str, begin: int, end: int) -> bool:
    """Whether a mark at [begin, end) joins what it splits: two token characters
    (`ghp_ab**cd`), or a name and its `:` or `=` (`**password**:`). A mark before other
    punctuation (`` `make test`; ``) joins nothing."""
    if begin == 0 or end >= len(text):
        return False
    before, after = text[begin - 1], text[end]
    if before in _TOKEN_CHARS and after in _TOKEN_CHARS:
        return True
    return before.isalnum() and after in ":="


def decoded(text: str) -> list[tuple[int, int, str]]:
    """(start, end, decoded text) of each base64 run in `text` that decodes to printable
    UTF-8 of at least 12 characters."""
    out = []
    for run in _BASE64.finditer(text):
        token = run.group(0)
        if token.isdigit() or token.isalpha() or _HEX.fullmatch(token):
            continue  # a number, a word, a hash or commit: no encoding (and a waste to try)
        plain = _decode(token)
        if plain is not None:
            out.append((run.start(), run.end(), plain))
    return out


def _decode(token: str) -> str | None:
    padded = token.rstrip("=")
    padded += "=" * (-len(padded) % 4)
    alphabet = b"-_" if ("-" in token or "_" in token) else None
    try:
        raw = base64.b64decode(padded, altchars=alphabet, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        plain = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(plain) < 12:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in plain)
    return plain if printable == len(plain) else None

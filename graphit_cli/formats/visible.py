"""Memory text is data: control and escape characters shown, never obeyed.

A memory's text may hold what a terminal or an agent would act on: ESC sequences (colours, a
window title, OSC 52 writing the clipboard, a screen clear), BEL, a carriage return that
overwrites a line. Every human- or agent-facing rendering shows them visibly instead: a C0
control as its Unicode control picture (ESC as `␛`, BEL as `␇`, CR as `␍`), DEL as `␡`, a C1
control as `\\x9b`; a line break and a tab are kept. JSON stays lossless: `json_text` escapes
DEL and C1 (which `json.dumps` leaves raw) by JSON's own rules. Standard library only (the
hook's hot path imports it).
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_RAW_IN_JSON = re.compile("[\x7f-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return f"\\x{code:02x}"


def visible(text: str) -> str:
    """`text` with every control character but a line break and a tab shown visibly."""
    return _CONTROL.sub(_picture, text) if _CONTROL.search(text) else text


def json_text(dumped: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL and C1 characters
    escaped as `\\u007f`..`\\u009f` (the same value, read back; JSON's syntax is ASCII, so only
    strings hold them)."""
    if not _RAW_IN_JSON.search(dumped):
        return dumped
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", dumped)

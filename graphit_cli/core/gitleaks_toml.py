"""gitleaks' configuration as the rules JSON core/secret_rules.py loads, translated from RE2.

`rules_from_toml` takes gitleaks' own `config/gitleaks.toml` (vendored as data/gitleaks.toml) as
`tomllib` reads it and gives the JSON shipped as data/gitleaks_rules.json: every rule with a
pattern and no path binding (a memory has no path to bind to), its keywords, entropy floor,
secret group and allowlists, and the global allowlist, each pattern translated from Go's RE2
syntax to Python's `re` (`translate`). Run by scripts/update_secret_rules.py when the vendored
rules change, and by tests/test_secret_rules.py to check the shipped JSON is the TOML's
translation; a process that looks for secrets never imports it. Pure: standard library only.
"""

from __future__ import annotations

import re
from typing import Any

_POSIX = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "xdigit": "0-9A-Fa-f",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\s",
    "word": r"\w",
    "punct": r"!-/:-@\[-`{-~",
}
_FLAGS = re.compile(r"\(\?([imsU-]+)\)")


def translate(pattern: str) -> str:
    """An RE2 pattern as Python's `re` reads it the same way: a flag group such as `(?i)` in
    the middle applies to the end of its group, every branch after it (Python takes flags
    only at the start, so it becomes `(?i:...)` around each); `\\z` is `\\Z`; `^` and `$`
    outside a class mean the text's start and end (RE2 without `m`; Python's `$` also
    matches before a final newline); POSIX classes (`[[:alnum:]]`) are spelled out; inside
    a class `[`, `&`, `~`, `|` are escaped (Python warns of set operations there)."""
    out: list[str] = []
    opened: list[list[str]] = [[]]  # per open group (the whole pattern first): its `(?i:`s
    i, n = 0, len(pattern)
    multiline = "(?m" in pattern
    while i < n:
        c = pattern[i]
        if c == "\\":
            pair = pattern[i : i + 2]
            out.append(r"\Z" if pair == r"\z" else pair)
            i += 2
            continue
        if c == "[":
            i = _copy_class(pattern, i, out)
            continue
        if c == "(":
            flags = _FLAGS.match(pattern, i)
            if flags and i > 0:
                out.append(f"(?{flags.group(1)}:")
                opened[-1].append(flags.group(1))
                i = flags.end()
                continue
            if pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
                out.append("(?P<")
                i += 3
                opened.append([])
                continue
            opened.append([])
            out.append(c)
            i += 1
            continue
        if c == ")":
            inner = opened.pop() if len(opened) > 1 else []
            out.append(")" * len(inner) + ")")
            i += 1
            continue
        if c == "|" and opened[-1]:  # RE2's flags hold past `|`; each branch gets its own
            out.append(")" * len(opened[-1]) + "|" + "".join(f"(?{f}:" for f in opened[-1]))
        elif c == "^" and not multiline:
            out.append(r"\A")
        elif c == "$" and not multiline:
            out.append(r"\Z")
        else:
            out.append(c)
        i += 1
    out.append(")" * len(opened[0]))
    return "".join(out)


def _copy_class(pattern: str, i: int, out: list[str]) -> int:
    """Copy the character class opening at `i`; return the index after its `]`."""
    out.append("[")
    i += 1
    if pattern.startswith("^", i):
        out.append("^")
        i += 1
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            out.append("]")
            return i + 1
        first = False
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            name = pattern[i + 2 : end] if end > 0 else ""
            if name in _POSIX:
                out.append(_POSIX[name])
                i = end + 2
                continue
        if c in "[&~|":
            out.append("\\" + c)
        elif c == "-" and (pattern[i + 1 : i + 2] == "-" or (out and out[-1] == "-")):
            out.append(r"\-")
        else:
            out.append(c)
        i += 1
    raise ValueError(f"unterminated character class in {pattern!r}")


def rules_from_toml(doc: dict[str, Any]) -> dict[str, Any]:
    """gitleaks' configuration (as `tomllib` reads it) as the JSON this module loads: every rule
    with a pattern and no path binding, translated; the global allowlist."""
    rules = []
    for rule in doc.get("rules", []):
        if "regex" not in rule or "path" in rule:
            continue
        rules.append(
            {
                "id": rule["id"],
                "regex": translate(rule["regex"]),
                "keywords": sorted({k.lower() for k in rule.get("keywords", [])}),
                "entropy": float(rule.get("entropy", 0.0)),
                "group": int(rule.get("secretGroup", 0)),
                "allow": [_allowlist(a) for a in rule.get("allowlists", [])],
            }
        )
    top = doc.get("allowlist")
    allow = [_allowlist(top)] if top else []
    return {"rules": rules, "allow": [a for a in allow if a["regexes"] or a["stopwords"]]}


def _allowlist(block: dict[str, Any]) -> dict[str, Any]:
    return {
        "target": block.get("regexTarget", "secret"),
        "regexes": [translate(r) for r in block.get("regexes", [])],
        "stopwords": sorted({w.lower() for w in block.get("stopwords", [])}),
        # An "AND" list that also names paths or commits never applies without them.
        "never": block.get("condition", "OR").upper() == "AND"
        and bool(block.get("paths") or block.get("commits")),
    }

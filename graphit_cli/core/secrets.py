"""Secrets in a memory's text: where they are, of which kind, and the text with them redacted.

Pure: no I/O, standard library only (so a write pays microseconds, and `graphit --help` and the
warm path's cold client pay nothing; see benchmarks/secret_detection.py). Chosen by measurement over
detect-secrets and bc-detect-secrets (benchmarks/README.md "Secrets"): their entropy plugins
refuse the commit SHAs, ULIDs and content hashes a memory is full of, their keyword plugin
misses `.env` lines and connection strings, and a line costs them ~0.3 ms. This module is the
detector: one pass over a text finds the literals that wake a rule, then runs gitleaks' rules
(core/secret_rules.py) and graphit's own (core/secret_formats.py: the provider formats gitleaks
misses; core/secret_patterns.py: the context rules; core/secret_assignments.py: a credential's
name assigned a value) over the text as written and as unhidden (core/hiding.py). What a found
value must be to count is core/secret_values.py (and core/secret_public.py: what is published),
what the words around it say of it core/secret_context.py; last, a small model
(core/secret_model.py) reads each value's shape and words, drops a context rule's find it is
sure of and adds one no rule took. A memory's fields and a log record's strings are checked,
redacted and described by the same code.

Before any of that, `worth_checking` (core/secret_gate.py) asks whether a text could hold a
secret at all; a text that could not (most prompts and most notes) is answered without loading
gitleaks' rules: a cold process (the prompt hook) pays microseconds for it, not tens of ms.

A finding never carries the value itself into a message: `Finding` holds its kind and span, and
`describe` names the kind and line:column only. Must not import anything heavy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphit_cli.core import hiding, secret_gate, secret_rules
from graphit_cli.core import secret_assignments as assignments
from graphit_cli.core import secret_cells as tables
from graphit_cli.core import secret_codes as codes
from graphit_cli.core import secret_context as context
from graphit_cli.core import secret_formats as formats
from graphit_cli.core import secret_model as model
from graphit_cli.core import secret_patterns as patterns
from graphit_cli.core import secret_public as published
from graphit_cli.core import secret_values as values
from graphit_cli.core.secret_gate import worth_checking

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, MemoryDraft

REDACTED = "[REDACTED:{kind}]"


@dataclass(frozen=True)
class Finding:
    """A secret in a text: its kind and where it is. `start`/`end` index the value; `line` and
    `column` are 1-based, for messages. The value itself is deliberately not kept."""

    kind: str
    start: int
    end: int
    line: int
    column: int

    @property
    def position(self) -> str:
        return f"{self.line}:{self.column}"


def find(text: str) -> list[Finding]:
    """Every secret in `text`, in order of position; overlapping matches are reported once.

    Read as written and as unhidden (core/hiding.py: without zero-width characters, emphasis,
    a line break inside a token, percent-encoding), and each base64 run decoded: a secret
    found only in a view is reported at the span of the text it came from (a decoded one as
    `<kind>-base64`, over the whole encoded run)."""
    if not text or len(text) < 8 or not worth_checking(text):
        return []
    spans = _spans(text)
    view = hiding.unhidden(text)
    if view is not None:
        # the model reads the text as written: taking marks out of code (`b.Lat*math.Pi/180`)
        # makes runs no one wrote
        seen = _spans(view.text, free=False)
        spans += [(*view.span(start, end), kind) for start, end, kind in seen]
    for start, end, plain in hiding.decoded(view.text if view is not None else text):
        inner = _spans(plain)
        if inner:
            where = view.span(start, end) if view is not None else (start, end)
            spans.append((*where, f"{inner[0][2]}-base64"))
    return _located(text, _merged(spans))


def _spans(text: str, *, free: bool = True) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each secret in `text` as written."""
    if len(text) < 8:
        return []
    lowered = text.lower()
    # One pass finds every literal a rule needs (graphit's and gitleaks' keywords); a rule
    # runs only when one of its is there.
    gate = secret_gate.literals_in(lowered)
    present = secret_gate.keywords() & gate.keys()
    spans: list[tuple[int, int, str]] = []
    exact: list[tuple[int, int]] = []  # what gitleaks' rules take, look-alikes among them
    for start, end, kind, secret in secret_rules.rules().find(text, lowered, present):
        generic = kind.startswith("generic")
        if not generic:
            exact.append((start, end))  # a provider's exact format (not a value by its name)
        name = _name_before(text, start) if generic else ""
        if values.look_alike(secret, generic=generic, name=name):
            continue
        if context.public_or_id(text[max(0, start - 60) : start], secret, exact=not generic):
            continue  # `public key of the laptop: ...`, `data-sitekey=`, `acme-api:<uuid>`
        if generic and published.PUBLIC_AFTER.match(text, end):
            continue  # `x-api-key: ... (public, it identifies the integration)`
        spans.append((start, end, kind))
    awake = sorted({i for literal in gate for i in formats.WAKES.get(literal, ())})
    for kind, pattern, _ in (formats.PROVIDER_RULES[i] for i in awake):
        for match in pattern.finditer(text):
            key = match.group(0)
            if key in published.DOCUMENTED_EXAMPLES or values.example(key):
                continue
            # graphit's formats are looser than the providers' (a key cut short in prose): a
            # typed value in one is made up, unless a provider's exact format holds it too.
            if values.typed(key) and not any(
                a <= match.start() and match.end() <= b for a, b in exact
            ):
                continue
            spans.append((match.start(), match.end(), kind))
    for rule, kind, needs in patterns.CONTEXT_RULES:
        if needs and not any(literal in gate for literal in needs):
            continue
        role = patterns.ROLES.get(rule, "credible")
        for match in _matches(rule, text, gate, needs):
            said = context.judged(role, match, kind, text)
            if said is not None:
                where = match.span() if role == "whole" else match.span("value")
                spans.append((*where, said))
    cells = tables.table_cells(text) if "|" in text else []
    if "insert" in lowered:
        cells += tables.sql_cells(text)
    for start, end, header in cells:
        said = values.assigned_kind(header)
        cell = text[start:end]
        if values.chosen_password(cell) if said == "password" else values.random_looking(cell):
            spans.append((start, end, said))
    if "|" in text:
        spans += [(*cell, "secret") for cell in tables.table_pairs(text, values.random_looking)]
        spans += [(start, end, "pin") for start, end, _ in tables.code_cells(text)]
    if "akia" in gate or "asia" in gate:
        for match in tables.AWS_PAIR.finditer(text):
            if not values.example(match["value"]) and "EXAMPLE" not in match.group():
                spans.append((*match.span("value"), "aws-secret-key"))
    spans += assignments.found(text, gate)
    spans += codes.found(text, lowered, values.words)
    spans = model.reviewed(text, spans, free=free)
    return [span for span in spans if not context.in_the_clear(text, span[0])]


def _matches(
    rule: re.Pattern[str], text: str, gate: dict[str, list[int]], needs: tuple[str, ...]
) -> Iterator[re.Match[str]]:
    """A rule's matches: over the whole text, or (AT_WORDS) tried at the start of each word
    that holds one of its literals (`DJANGO_SECRET_KEY` from `D`), as one pass would find."""
    if rule not in patterns.AT_WORDS:
        yield from rule.finditer(text)
        return
    end = 0
    for at in sorted({at for literal in needs for at in gate.get(literal, ())}):
        begin = at
        while begin > max(0, at - 60) and (
            (text[begin - 1].isascii() and text[begin - 1].isalnum()) or text[begin - 1] == "_"
        ):
            begin -= 1
        if begin < end:
            continue
        match = rule.match(text, begin)
        if match is not None:
            end = match.end()
            yield match


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """`text` with each secret replaced by `[REDACTED:<kind>]` (the rest kept byte for byte)."""
    found = find(text) if findings is None else findings
    out: list[str] = []
    at = 0
    for finding in sorted(found, key=lambda f: f.start):
        if finding.start < at:
            continue
        out.append(text[at : finding.start])
        out.append(REDACTED.format(kind=finding.kind))
        at = finding.end
    out.append(text[at:])
    return "".join(out)


def describe(finding: Finding, field: str) -> str:
    """`aws-access-key in the body at 3:14`: what a refusal, scan or log may say (never the
    value)."""
    return f"{finding.kind} in the {field} at {finding.position}"


# --- helpers ------------------------------------------------------------------------------------


def _name_before(text: str, start: int) -> str:
    """The name a value at `start` is assigned to (`api_key` in `api_key = "..."`)."""
    at = start
    while at > max(0, start - 10) and text[at - 1] in " \t'\"`=:>,|?":
        at -= 1
    begin = at
    while begin > max(0, at - 50) and (text[begin - 1].isalnum() or text[begin - 1] in "_.-"):
        begin -= 1
    return text[begin:at]


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans as one: the earliest-starting, longest first (a provider match and
    the assignment naming it are one finding)."""
    out: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if out and start < out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2])
            continue
        out.append((start, end, kind))
    return out


def _located(text: str, spans: list[tuple[int, int, str]]) -> list[Finding]:
    found: list[Finding] = []
    for start, end, kind in spans:
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        found.append(Finding(kind, start, end, line, column))
    return found


# --- memories: the fields a write checks, and what a refusal says ------------------------------

FieldFinding = tuple[str, Finding]  # ("title" | "body" | "tag 2" | "anchor 1" | "author", ...)

# The CLI's ways past a refusal; the MCP server and the Explorer say theirs instead.
WAYS_PAST = (
    "--redact writes [REDACTED:<kind>] in its place, --allow-secrets writes it as is "
    "(a false positive)"
)
INSTEAD = (
    "write where the secret lives instead of its value (a vault path, a secret manager's "
    "entry, an environment variable's name)"
)


def in_draft(
    title: str | None,
    body: str | None,
    *,
    tags: Sequence[str] | None = None,
    anchors: Sequence[str] | None = None,
    author: str | None = None,
) -> list[FieldFinding]:
    """The secrets in every field a memory stores: its title and body (normalised as
    `revisions.validate_title` and `normalise_body` do, without their checks), each tag and
    anchor, and the author it is written by."""
    found: list[FieldFinding] = []
    if title:
        found += [("title", f) for f in find(" ".join(title.split()))]
    if body:
        text = body.replace("\r\n", "\n").replace("\r", "\n").strip("\n").rstrip()
        found += [("body", f) for f in find(text)]
    for name, strings in (("tag", tags), ("anchor", anchors)):
        for number, value in enumerate(strings or (), start=1):
            found += [(f"{name} {number}", f) for f in find(value)]
    if author:
        found += [("author", f) for f in find(author)]
    return found


def in_row(row: Memory) -> list[FieldFinding]:
    """The secrets in a stored row's fields (title, body, tags, anchors, author)."""
    return in_draft(row.title, row.body, tags=row.tags, anchors=row.anchors, author=row.updated_by)


def redacted_text(title: str | None, body: str | None) -> tuple[str | None, str | None]:
    """The title and body (normalised as stored) with every secret replaced."""
    new_title = redact(" ".join(title.split())) if title else title
    new_body = body
    if body:
        new_body = redact(body.replace("\r\n", "\n").replace("\r", "\n").strip("\n").rstrip())
    return new_title, new_body


def _redacted_all(values: Sequence[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(redact(v) for v in values)


def _redacted_tags(tags: Sequence[str] | None) -> tuple[str, ...] | None:
    """Tags with each secret as `REDACTED:<kind>` (a tag takes no brackets)."""
    if tags is None:
        return None
    return tuple(redact(t).replace("[REDACTED:", "REDACTED:").replace("]", "") for t in tags)


def redacted_draft(draft: MemoryDraft) -> MemoryDraft:
    from dataclasses import replace

    title, body = redacted_text(draft.title, draft.body)
    tags, anchors = _redacted_tags(draft.tags), _redacted_all(draft.anchors)
    return replace(draft, title=title, body=body, tags=tags, anchors=anchors)


def redacted_row(row: Memory) -> Memory:
    """A row with its secrets replaced in every field: its content hash recomputed, its vector
    dropped (it was of the text with the secret; the writer or the embedding pass embeds it
    again)."""
    from dataclasses import replace

    from graphit_cli.core import revisions

    title, body = redacted_text(row.title, row.body)
    assert title is not None and body is not None
    tags = _redacted_tags(row.tags) or ()
    digest = revisions.content_hash(title, body, row.type, tags)
    return replace(
        row,
        title=title,
        body=body,
        tags=tags,
        anchors=tuple(redact(a) for a in row.anchors),
        updated_by=redact(row.updated_by),
        content_hash=digest,
        embedding=None,
    )


def in_value(value: object, where: str = "") -> list[tuple[str, Finding]]:
    """The secrets in every string of a JSON-like value (a log record), with the path to each
    (`calls.0.title`). One pass over all of them first: a record without one costs one scan."""
    strings = list(_strings(value, where))
    if not strings or not find("\n".join(text for _, text in strings)):
        return []
    return [(path, finding) for path, text in strings for finding in find(text)]


def redacted_value(value: object) -> object:
    """A JSON-like value with every secret in its strings replaced (itself when none is)."""
    if not in_value(value):
        return value
    return _redact_strings(value)


def _strings(value: object, where: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(where, value)] if len(value) >= 8 else []
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, f"{where}.{k}".lstrip("."))]
    if isinstance(value, list | tuple):
        return [s for i, v in enumerate(value) for s in _strings(v, f"{where}.{i}".lstrip("."))]
    return []


def _redact_strings(value: object) -> object:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_strings(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_strings(v) for v in value]
    return value


def safe_title(title: str) -> str:
    """A title fit for a message: secrets redacted, at most 60 characters."""
    shown = redact(" ".join(title.split()))
    return shown if len(shown) <= 60 else shown[:59] + "…"


def refusal_lines(record: str, found: list[FieldFinding]) -> list[str]:
    return [f"{record}: {describe(finding, field)}" for field, finding in found]


def on_one_line(message: str, way: str) -> str:
    """A refusal's message on one line, with `way` (an adapter's) instead of the CLI's flags."""
    head, *rest = message.splitlines()
    findings = [line for line in rest if not line.startswith(INSTEAD)]
    return f"{head}: {'; '.join(findings)}. {INSTEAD.capitalize()} ({way})."


def summary(found: list[FieldFinding]) -> str:
    """`holds a secret (aws-access-key in the body at 2:21, ...)`."""
    return f"holds a secret ({', '.join(describe(f, field) for field, f in found)})"


def refusal(lines: list[str]) -> str:
    """SecretRefused's message: one line per finding, then what to do (never a value)."""
    head = "refused: a secret in the input (nothing was written)"
    return "\n".join([head, *lines, f"{INSTEAD}; {WAYS_PAST}"])

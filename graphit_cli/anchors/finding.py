"""Write time: the anchors a memory's title and body name that resolve in the checkout then.

Paths named anywhere count when the file or folder exists inside the checkout; make targets
when the Makefile defines them; symbols when a file defines them (anchors/languages.py),
recorded with that file (`Name@path`, or `Type.member@path` when that file defines both).

A symbol is what a memory names as code, in a code span or a fenced block that is not a
command line: an identifier that looks like one (CamelCase, snake_case, a dotted or `::`
path, `func()`) is looked for in the files the memory names, then in the whole working tree;
a plain word (`helper`) only in the files the memory names; a CamelCase name in prose only in
those files too. A command (`dbt run`, `uv run loadgen`, a shell block) names no symbol, only
the paths and make targets in it: a word of a command line is not a symbol of the code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from graphit_cli.anchors.tree import (
    NAME,
    definitions,
    git_root,
    inside,
    kind,
    make_targets,
    relative,
)

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, MemoryDraft

MAX_ANCHORS = 20  # per memory: a long note names many things; the first ones matter

_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
_PATHLIKE = re.compile(
    r"(?<![\w/.-])((?:\.{1,2}/|/)?(?:(?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,8}|(?:[\w.-]+/)+[\w.-]+))"
)
_URL = re.compile(r"\b[\w+.-]+://\S*|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+")  # no symbols in these
_MAKE = re.compile(r"\bmake\s+([A-Za-z0-9][\w.-]*)")
_MODULE = re.compile(r"(?:^|\s)-m\s+([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)")  # python -m pkg.mod
# A name as code names it: `Type.member`, `Type::member`, `Class#method`, `renew!`, `f()`.
_IDENT = re.compile(
    r"(?<![\w$.:#-])([A-Za-z_]\w*(?:(?:\.|::|#|->)[A-Za-z_]\w*[!?]?)*[!?]?)(\s*\()?"
)
_SHELL_FENCES = frozenset({
    "sh", "bash", "shell", "console", "zsh", "fish", "terminal", "powershell", "ps1", "pwsh",
    "cmd", "bat", "session", "shell-session", "text", "txt"
})  # fmt: skip
# Words that begin code, not a command line (`const val MAX`, `fun run()`, `SELECT ...`).
_CODE_WORDS = frozenset({
    "abstract", "async", "await", "case", "class", "const", "data", "def", "defer",
    "delete", "do", "else", "enum", "export", "extends", "extern", "final", "fn", "for", "fun",
    "func", "function", "if", "impl", "import", "in", "interface", "internal", "lateinit",
    "let", "local", "macro_rules!", "match", "module", "mut", "namespace", "new", "object",
    "override", "package", "private", "protected", "protocol", "pub", "public", "raise",
    "record", "resource", "return", "sealed", "self", "static", "struct", "suspend", "switch",
    "template", "this", "throw", "trait", "try", "type", "typealias", "typedef", "union",
    "unsafe", "use", "using", "val", "var", "variable", "void", "when", "where", "while",
    "with", "yield"
})  # fmt: skip
_FILE_SUFFIXES = frozenset({
    "py", "ts", "tsx", "js", "jsx", "mjs", "go", "rs", "java", "kt", "kts", "swift", "c", "h",
    "cc", "cpp", "hpp", "cs", "rb", "php", "sh", "bash", "sql", "tf", "yaml", "yml", "json",
    "toml", "md", "txt", "lock", "cfg", "ini", "xml", "html", "css", "scss", "env", "conf",
    "log", "csv"
})  # fmt: skip
# Heads that name no definition of their own: `var.region`, `self.poll_seconds`.
_PREFIXES = frozenset({"var", "module", "data", "local", "self", "this", "cls", "super"})


@dataclass(frozen=True)
class _Name:
    """A name the memory gives as code: its parts (`Worker.run` -> ("Worker", "run")) and
    whether it looks like an identifier (searched in the whole tree) or is a plain word."""

    parts: tuple[str, ...]
    wide: bool


def detect(title: str, body: str, root: Path | str | None) -> tuple[str, ...]:
    """The anchors `title` and `body` name that resolve in the checkout at `root` now."""
    return detect_many([(title, body)], root)[0]


def detect_many(texts: Sequence[tuple[str, str]], root: Path | str | None) -> list[tuple[str, ...]]:
    """`detect` for each (title, body), a batch at the cost of one: paths and targets are
    stats and one Makefile read, a symbol is looked for first in the files its memory names
    (read here), and the symbols still missing, of every memory at once, in one `git grep`."""
    top = git_root(root)
    if top is None:
        return [() for _ in texts]
    targets = make_targets(top)
    named = [_candidates(top, f"{title}\n{body}", targets) for title, body in texts]
    missing: set[str] = set()
    local: list[dict[str, str]] = []
    for paths, _, names in named:
        words = {p for n in names for p in n.parts}
        here = {w: p for w in words for p in paths if _defines_in(top, p, w)}
        local.append(here)
        missing.update(p for n in names if n.wide for p in n.parts if p not in here)
    elsewhere = definitions(top, sorted(missing)) if missing else {}
    found = []
    for (paths, makes, names), here in zip(named, local, strict=True):
        symbols: list[str] = []
        for name in names:
            symbol = _resolve(top, name, here, elsewhere if name.wide else {})
            if symbol and symbol not in symbols:
                symbols.append(symbol)
        found.append(tuple([*paths, *makes, *symbols][:MAX_ANCHORS]))
    return found


def _resolve(top: Path, name: _Name, here: dict[str, str], elsewhere: dict[str, str]) -> str | None:
    """`name`'s anchor: its head where defined (with its member when that file defines it
    too: `Worker.run@src/worker.py`), else its last part (`queue.NextDelay`, `var.region`)."""
    head, last = name.parts[0], name.parts[-1]
    where = here.get(head) or elsewhere.get(head)
    if where and head not in _PREFIXES:
        if len(name.parts) > 1 and _defines_in(top, where, name.parts[1], member=True):
            return f"{head}.{name.parts[1]}@{where}"
        return f"{head}@{where}"
    if len(name.parts) > 1:
        where = here.get(last) or elsewhere.get(last)
        if where:
            return f"{last}@{where}"
    return None


def _candidates(
    top: Path, text: str, targets: set[str]
) -> tuple[list[str], list[str], list[_Name]]:
    """(paths that exist, make targets the Makefile defines, names to look up: the ones named
    as code, in spans and fenced blocks that are not commands, and CamelCase words in prose,
    the last looked for in the memory's own files only, so a write whose prose says
    "PostgreSQL" searches nothing)."""
    code: list[str] = []  # lines of code, each read as a span
    commands: list[str] = []

    def fence(match: re.Match[str]) -> str:
        lang, lines = match.group(2).lower(), match.group(3).splitlines()
        for line in lines:
            shell = lang in _SHELL_FENCES or (not lang and _is_command(line))
            (commands if shell or _is_command(line) else code).append(line)
        return "\n"

    prose = _FENCE.sub(fence, text)
    for span in _CODE_SPAN.findall(prose):
        (commands if _is_command(span) else code).append(span)
    paths: list[str] = []
    for candidate in _PATHLIKE.findall(text):
        path = relative(top, candidate.rstrip(".,;:)'\"").lstrip("('\""))
        if path and path not in paths and (top / path).exists():
            paths.append(path)
    for line in commands:  # `python -m pkg.jobs.export`: the module's file
        for module in _MODULE.findall(line):
            path = _module_file(top, module)
            if path is not None and path not in paths:
                paths.append(path)
    makes: list[str] = []
    for target in _MAKE.findall(text):
        if target in targets and f"make {target}" not in makes:
            makes.append(f"make {target}")
    names: dict[tuple[str, ...], _Name] = {}
    for line in code:
        for ident, call in _IDENT.findall(_URL.sub(" ", line)):
            parts = tuple(p for p in re.split(r"\.|::|#|->", ident) if p)
            if not parts or (len(parts) > 1 and not call and parts[-1] in _FILE_SUFFIXES):
                continue  # `config.yaml`: a file's name, not a symbol
            if (len(parts[0]) < 3 and len(parts) == 1) or ("." in ident and (top / ident).exists()):
                continue
            keyword = parts[0] in _CODE_WORDS and len(parts) == 1  # `fun`: the memory's files only
            wide = not keyword and (bool(call) or len(parts) > 1 or _looks_like_code(parts[0]))
            if parts not in names or (wide and not names[parts].wide):
                names[parts] = _Name(parts, wide)
    for ident in re.findall(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b", prose):  # CamelCase
        if not any(parts[0] == ident for parts in names):
            names[(ident,)] = _Name((ident,), False)
    keep = [n for n in names.values() if all(NAME.fullmatch(p) for p in n.parts)]
    return paths, makes, keep


def _looks_like_code(word: str) -> bool:
    """An identifier rather than a word: snake_case, CamelCase or camelCase, `Type`."""
    core = word.strip("_!?")
    if "_" in core:
        return any(c.isalpha() for c in core)
    # `API`, `run`: words, unless a file the memory names defines them
    return not (core.isupper() or core.islower())


def _is_command(span: str) -> bool:
    """Whether a code span or a block's line is a command line (`dbt run`, `uv run loadgen`,
    `$ npm test`, `FOO=1 ./run.sh`): a program's name and its arguments, not code."""
    words = span.strip().removeprefix("$ ").split()
    if len(words) < 2:
        return False
    first = words[0]
    if re.fullmatch(r"[A-Za-z_]\w*=\S*", first):
        return True  # an environment variable before the command
    if first in _CODE_WORDS or not re.fullmatch(r"[a-z.~/][\w./-]*", first):
        return False
    if first.endswith(".") or any(w in ("=", "==", ":=", "=>", "->", "{", "}") for w in words):
        return False
    return not re.match(r"[a-z_]\w*(?:\.\w+)+\(", first)  # `obj.method(arg) ...`: code


def _defines_in(top: Path, path: str, name: str, member: bool = False) -> bool:
    """Whether the file at `path` defines `name` (its text kept while its stat stays)."""
    from graphit_cli.anchors.languages import defines, read_text

    if not inside(path):
        return False
    text = read_text(top / path)
    return text is not None and name in text and defines(path, text, name, member=member)


def normalise(anchors: Iterable[str], root: Path | str | None) -> tuple[str, ...]:
    """Anchors given explicitly (`--anchor`, frontmatter, MCP): a symbol given bare gets the
    file that defines it now; a path loses a leading `./`. Kept as given when unresolved."""
    top = git_root(root)
    out: list[str] = []
    for raw in anchors:
        anchor = raw.strip().removeprefix("./")
        if not anchor:
            continue
        if top is not None and kind(anchor) == "path":
            anchor = relative(top, anchor) or anchor  # outside: kept as given, never checked
        if top is not None and kind(anchor) == "symbol" and "@" not in anchor:
            head = anchor.split(".")[0]
            where = definitions(top, [head]).get(head)
            if where:
                anchor = f"{head}@{where}"
        if anchor not in out:
            out.append(anchor)
    return tuple(out)


def with_anchors(
    draft: MemoryDraft, root: Path | str | None, current: Memory | None = None
) -> MemoryDraft:
    """`draft` with its anchors resolved for the checkout at `root`: given ones normalised,
    else found in the title and body the memory will have (an update that gives one of them
    takes the other from `current`, the live memory; a flag-only update keeps its anchors)."""
    return with_anchors_many([draft], root, [current])[0]


def with_anchors_many(
    drafts: Sequence[MemoryDraft], root: Path | str | None, current: Sequence[Memory | None]
) -> list[MemoryDraft]:
    """`with_anchors` for a batch (one `git grep` for all of it: a 10k NDJSON upsert)."""
    from dataclasses import replace

    found: list[MemoryDraft] = list(drafts)
    pending: list[tuple[int, str, str]] = []
    for index, (draft, live) in enumerate(zip(drafts, current, strict=True)):
        if draft.anchors is not None:
            found[index] = replace(draft, anchors=normalise(draft.anchors, root))
        elif draft.title is not None or draft.body is not None:
            title = draft.title if draft.title is not None else (live.title if live else "")
            body = draft.body if draft.body is not None else (live.body if live else "")
            pending.append((index, title, body))
    detected = detect_many([(title, body) for _, title, body in pending], root)
    for (index, _, _), anchors in zip(pending, detected, strict=True):
        found[index] = replace(found[index], anchors=anchors)
    return found


def _module_file(top: Path, module: str) -> str | None:
    base = module.replace(".", "/")
    for root in ("", "src/"):
        for candidate in (f"{root}{base}.py", f"{root}{base}/__main__.py"):
            if (top / candidate).is_file():
                return candidate
    return None

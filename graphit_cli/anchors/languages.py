"""Where a name is defined, per language: which file kinds define symbols and how.

A file's language comes from its name (`.kt`, `Makefile`, `.tf` ...). Each language has line
patterns for its definitions: Python, TypeScript/JavaScript, Go, Rust, Java, Kotlin, Swift,
C/C++, C#, Ruby, PHP, shell, SQL, Terraform, YAML keys and make targets; a file of another
kind gets the keyword pattern every language shares (`class`, `def`, `fn` ... then the name);
documentation (Markdown, text) defines nothing. Python's own parser (`ast`) has the last word
in a `.py` file: a name the patterns do not find (an assignment in a class, a definition under
an `if`) is looked for in the syntax tree before it is called gone, so a hook pays the parse
only for what looks broken.

Patterns rather than a parser for the other languages: tree-sitter's grammars come as one
wheel per language (fifteen dependencies) or as a pack that downloads them at run time, and a
hook that starts a process per prompt can afford neither; the patterns are line-anchored and
tested on a refactor corpus per language (tests/fixtures/anchor_refactors).

Files are read through `read_text`: regular files only, at most MAX_FILE_BYTES, never a
binary (a NUL byte): an anchor in a file too large to read is never judged broken.
Standard library only (a hook imports this).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

MAX_FILE_BYTES = 512 * 1024  # a file larger than this is never read (its anchors hold)

_SUFFIXES = {
    ".py": "python", ".pyi": "python",
    ".js": "js", ".jsx": "js", ".mjs": "js", ".cjs": "js",
    ".ts": "js", ".tsx": "js", ".mts": "js", ".cts": "js", ".vue": "js", ".svelte": "js",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift", ".cs": "csharp", ".rb": "ruby", ".rake": "ruby", ".php": "php",
    ".c": "c", ".h": "c", ".cc": "c", ".cpp": "c", ".cxx": "c", ".hpp": "c", ".hh": "c",
    ".hxx": "c", ".m": "c", ".mm": "c",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell",
    ".sql": "sql", ".tf": "terraform", ".hcl": "terraform", ".tofu": "terraform",
    ".yaml": "yaml", ".yml": "yaml", ".mk": "make",
    ".md": "", ".markdown": "", ".rst": "", ".txt": "", ".adoc": "", ".html": "", ".htm": "",
    ".json": "", ".lock": "", ".csv": "", ".svg": "", ".ipynb": "",
}  # fmt: skip
_NAMES = {
    "makefile": "make", "gnumakefile": "make", "rakefile": "ruby", "gemfile": "ruby",
    "justfile": "make",
}  # fmt: skip


def language(path: str | Path) -> str | None:
    """The language of the file at `path` by its name: a key of the patterns, "" for a file
    that defines nothing (documentation), None for an unknown kind (the shared keywords)."""
    name = os.path.basename(str(path))
    by_name = _NAMES.get(name.lower())
    if by_name is not None:
        return by_name
    return _SUFFIXES.get(os.path.splitext(name)[1].lower())


_N = "{name}"  # the escaped name; `(?![\w!?])` ends it (Ruby's `renew!` is not `renew`)
_END = r"(?![\w!?])"
_I = r"^[ \t]*"  # a line's indentation
_ANNOT = r"(?:@\w+(?:\([^)\n]*\))?[ \t]+)*"  # Java/Kotlin/Swift annotations on the line

_PATTERNS: dict[str, list[str]] = {
    "python": [
        _I + r"(?:async[ \t]+)?(?:def|class)[ \t]+" + _N + _END,
        r"^" + _N + r"[ \t]*(?::[^=\n]*)?=(?!=)",  # a module-level assignment
        r"^type[ \t]+" + _N + _END,
    ],
    "js": [
        _I + r"(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?"
        r"(?:async[ \t]+)?(?:function[ \t]*\*?|class|interface|type|enum|namespace|module)"
        r"[ \t]*" + _N + _END,
        r"^(?:export[ \t]+)?(?:declare[ \t]+)?(?:const|let|var)[ \t]+" + _N + _END,
        # a method: modifiers, the name, parameters and a body opening on this line
        r"^[ \t]+(?:(?:public|private|protected|static|readonly|async|get|set|override|"
        r"abstract)[ \t]+)*\*?" + _N + r"[ \t]*(?:<[^>\n]*>)?\([^;\n]*\)[ \t]*"
        r"(?::[^;{=\n]+)?\{[ \t]*$",
        # a class field holding an arrow function
        r"^[ \t]+(?:(?:public|private|protected|static|readonly|override)[ \t]+)*"
        + _N
        + r"[ \t]*(?::[^=\n]+)?=[ \t]*(?:async[ \t]*)?(?:\([^)\n]*\)|\w+)[ \t]*(?::[^=\n]+)?=>",
    ],
    "go": [
        r"^func[ \t]+(?:\([^)]*\)[ \t]*)?" + _N + _END,
        _I + r"type[ \t]+" + _N + _END,
        r"^(?:var|const)[ \t]+" + _N + _END,
        r"^\t" + _N + r"(?:[ \t]+[\w.*\[\]]+)?[ \t]*=[^=]",  # in a var/const block
    ],
    "rust": [
        _I + r"(?:pub(?:\([^)\n]*\))?[ \t]+)?(?:(?:async|const|unsafe|default|extern"
        r'(?:[ \t]+"[^"\n]*")?)[ \t]+)*(?:fn|struct|enum|trait|type|union|mod|static|const)'
        r"[ \t]+" + _N + _END,
        _I + r"macro_rules![ \t]*" + _N + _END,
    ],
    "java": [
        _I + _ANNOT + r"(?:(?:public|private|protected|static|final|abstract|sealed|"
        r"non-sealed|strictfp)[ \t]+)*(?:class|interface|enum|record|@interface)[ \t]+" + _N + _END,
        # a method: a type, the name, parameters, then a body or (an interface's) `;`
        _I + r"(?:(?:public|private|protected|static|final|abstract|synchronized|native|"
        r"default|strictfp)[ \t]+)*(?:<[^>\n]+>[ \t]+)?(?!return\b|new\b|throw\b|else\b)"
        r"[\w.$]+(?:<[^;=\n]*>)?(?:\[\])*[ \t]+" + _N + r"[ \t]*\((?:[^;\n]*$|[^)\n]*\)"
        r"[ \t]*(?:throws[^;{\n]+)?;)",
        _I + r"(?:public|private|protected)[ \t]+" + _N + r"[ \t]*\(",  # a constructor
        _I + r"(?:(?:public|private|protected|static|final|volatile|transient)[ \t]+)+"
        r"[\w.$<>\[\], ?]+?[ \t]+" + _N + r"[ \t]*[=;]",  # a field
    ],
    "kotlin": [
        _I + _ANNOT + r"(?:(?:public|private|internal|protected|open|abstract|sealed|data|"
        r"enum|annotation|inner|value|inline|suspend|override|operator|infix|tailrec|external|"
        r"const|lateinit|actual|expect|final|companion)[ \t]+)*"
        r"(?:fun|class|interface|object|val|var|typealias)[ \t]+(?:<[^>\n]*>[ \t]*)?"
        r"(?:[\w<>?]+\.)?" + _N + _END,
    ],
    "swift": [
        _I + _ANNOT + r"(?:(?:public|private|fileprivate|internal|open|final|static|class|"
        r"override|mutating|nonmutating|convenience|required|indirect|lazy|weak|unowned|"
        r"dynamic|nonisolated)(?:\([^)\n]*\))?[ \t]+)*(?:func|class|struct|enum|protocol|"
        r"extension|typealias|actor|let|var|case|associatedtype)[ \t]+" + _N + _END,
    ],
    "c": [
        _I + r"#[ \t]*define[ \t]+" + _N + _END,
        _I + r"(?:typedef[ \t]+)?(?:template[ \t]*<[^>\n]*>[ \t]*)?(?:struct|union|"
        r"enum(?:[ \t]+class)?|class|namespace)[ \t]+(?:\w+[ \t]+)?(?:[\w:]*::)?" + _N + _END,
        _I + r"\}[ \t]*" + _N + r"[ \t]*;",
        _I + r"typedef\b[^;\n]*\b" + _N + r"[ \t]*;",
        _I + r"using[ \t]+" + _N + r"[ \t]*=",
        # a function or method: a return type, maybe `Class::`, the name, then its body (a
        # line without `;`) or a declaration in a class or header
        _I + r"(?!return\b|else\b|throw\b|delete\b|new\b|case\b|goto\b|co_return\b)"
        r"(?:template[ \t]*<[^>\n]*>[ \t]*)?(?:[\w:<>,*&~]+[ \t*&]+)+(?:[\w:<>]*::)?~?"
        + _N
        + r"[ \t]*\((?:[^;\n]*$|[^;\n]*\)[ \t]*(?:const[ \t]*)?(?:noexcept[ \t]*)?"
        r"(?:override[ \t]*)?(?:=[ \t]*(?:0|default|delete)[ \t]*)?;)",
        _I + r"(?:\w+::)+" + _N + r"[ \t]*\(",  # an out-of-class constructor
    ],
    "csharp": [
        _I + r"(?:\[[^\]\n]*\][ \t]*)*(?:(?:public|private|protected|internal|static|sealed|"
        r"abstract|partial|readonly|unsafe|new|file|ref)[ \t]+)*(?:class|interface|struct|"
        r"enum|record(?:[ \t]+(?:class|struct))?|namespace|delegate[ \t]+[\w<>\[\],.? ]+?)"
        r"[ \t]+(?:[\w.]+\.)?" + _N + _END,
        _I + r"(?:\[[^\]\n]*\][ \t]*)*(?:(?:public|private|protected|internal|static|virtual|"
        r"override|abstract|async|sealed|extern|unsafe|new|partial|readonly|const|volatile|"
        r"required|event)[ \t]+)+[\w<>\[\],.?()]+[ \t]+" + _N + r"[ \t]*(?:<[^>\n]*>)?[ \t]*"
        r"[({=;]",
        _I
        + r"(?!return\b|await\b|throw\b|new\b|yield\b|else\b)[\w<>\[\],.?]+[ \t]+"
        + _N
        + r"[ \t]*(?:<[^>\n]*>)?\([^)\n]*\)[ \t]*;",  # an interface's member
    ],
    "ruby": [
        _I + r"def[ \t]+(?:self\.)?" + _N + _END,
        _I + r"(?:class|module)[ \t]+(?:[\w:]+::)?" + _N + _END,
        _I + r"(?:attr_(?:reader|writer|accessor)|alias_method|define_method|scope|has_many|"
        r"has_one|belongs_to|has_and_belongs_to_many|delegate)\b[^\n]*:" + _N + _END,
        _I + r"(?:task|multitask|namespace)[ \t(]+:?[\"']?" + _N + _END,
        _I + r"alias[ \t]+:?" + _N + _END,
    ],
    "php": [
        _I
        + r"(?:(?:abstract|final|readonly)[ \t]+)*(?:class|interface|trait|enum)[ \t]+"
        + _N
        + _END,
        _I
        + r"(?:(?:public|private|protected|static|abstract|final)[ \t]+)*function[ \t]+&?"
        + _N
        + r"[ \t]*\(",
        _I
        + r"(?:(?:public|private|protected|final)[ \t]+)*const[ \t]+(?:\w+[ \t]+)?"
        + _N
        + r"[ \t]*=",
        r"\bdefine\([ \t]*['\"]" + _N + r"['\"]",
        _I + r"(?:(?:public|private|protected|static|readonly|var)[ \t]+)+(?:\??[\w\\|]+[ \t]+)?"
        r"\$" + _N + _END,
    ],
    "shell": [
        _I + r"(?:function[ \t]+)?" + _N + r"[ \t]*\(\)",
        _I + r"function[ \t]+" + _N + r"(?![\w-])",
        r"^(?:export[ \t]+|readonly[ \t]+|declare(?:[ \t]+-\w+)*[ \t]+)?" + _N + "=",
    ],
    "sql": [
        r"(?i:^[ \t]*create[ \t]+(?:or[ \t]+replace[ \t]+)?(?:(?:temp|temporary|unlogged|"
        r"materialized|global|local|external|recursive|secure|transient|unique)[ \t]+)*"
        r"(?:table|view|function|procedure|index|type|trigger|sequence|schema|domain|macro)"
        r"[ \t]+(?:if[ \t]+not[ \t]+exists[ \t]+)?(?:[\w\"`\[\]]+\.)*[\"`\[]?"
        + _N
        + r"[\"`\]]?)"
        + _END,
    ],
    "terraform": [
        _I + r"(?:resource|data)[ \t]+\"[\w-]+\"[ \t]+\"" + _N + '"',
        _I + r"(?:module|variable|output|provider)[ \t]+\"" + _N + '"',
    ],
    "yaml": [_I + r"(?:-[ \t]+)?[\"']?" + _N + r"[\"']?[ \t]*:(?:[ \t]|$)"],
    "make": [
        r"^(?:[\w.\-/%]+[ \t]+)*" + _N + r"(?:[ \t]+[\w.\-/%]+)*[ \t]*::?(?!=)",
        r"^(?:export[ \t]+|override[ \t]+)?" + _N + r"[ \t]*(?:[:+?!]|::)?=",
    ],
    "": [],
}
# What any other kind of file defines: a keyword, then the name.
_SHARED = [
    r"^\s*(?:export\s+)?(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?"
    r"(?:class|def|function|func|fn|type|interface|struct|enum|trait|const|let|var|module)\s+"
    r"(?:\([^)]*\)\s*)?" + _N + _END
]
# What a type's member may look like in the type's own file, on top of the definitions: a
# field, a property, an enum case (`Corrupt,`), a declaration without a body.
_MEMBER = [
    _I + r"(?:(?:pub(?:\([^)\n]*\))?|public|private|protected|internal|static|readonly|final|"
    r"const|let|var|val|override|open|lateinit|case)[ \t]+)*" + _N + r"[ \t]*[?!]?[ \t]*"
    r"(?::(?!:)[^\n]*|=(?![=>])[^\n]*|\([^)\n]*\)[ \t]*[,;]?[ \t]*|[,;]?[ \t]*)$",
]


def _templates(lang: str | None, member: bool) -> list[str]:
    templates = _SHARED if lang is None else _PATTERNS[lang]
    return [*templates, *_MEMBER] if member and lang else templates


@lru_cache(maxsize=4096)
def _compiled(template: str, name: str) -> re.Pattern[str]:
    return re.compile(template.replace(_N, re.escape(name)), re.MULTILINE)


@lru_cache(maxsize=256)
def _generic(template: str) -> re.Pattern[str]:
    """`template` for any name (the group `n`): compiled once per process, not per name."""
    return re.compile(template.replace(_N, r"(?P<n>[A-Za-z_]\w*[!?]?)"), re.MULTILINE)


def defines(
    path: str | Path, text: str, name: str, *, member: bool = False, lines_only: bool = False
) -> bool:
    """Whether `text`, the file at `path`, defines `name` (with `member`: also as a field,
    property or case, the way a type's file holds its members; with `lines_only`, `text` is
    a few lines, not the file: no syntax tree).

    Only the lines holding the name are matched, each by a pattern compiled once for any
    name: a line it matches for another name (`a b c:` of a Makefile names three) is matched
    again by the pattern for this name, so the answer is the same, at a compile a hook
    rarely pays."""
    lang = language(path)
    fold = lang == "sql"  # SQL's names ignore case
    lines = list(_lines_with(text, name, fold))
    if not lines:
        return False
    for template in _templates(lang, member):
        generic = _generic(template)
        for line in lines:
            match = generic.search(line)
            if match is None:
                continue
            bound = match.group("n")
            if (bound.lower() == name.lower()) if fold else (bound == name):
                return True
            if _compiled(template, name).search(line):
                return True
    if lang == "python" and not lines_only:
        return name in _python_names(text, member)
    return False


def _lines_with(text: str, name: str, fold: bool) -> Iterator[str]:
    hay, needle = (text.lower(), name.lower()) if fold else (text, name)
    at = hay.find(needle)
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        yield text[start:end]
        at = hay.find(needle, end)


@lru_cache(maxsize=64)
def _python_names(text: str, member: bool) -> frozenset[str]:
    """The names a Python module defines by its syntax tree: every def and class, and the
    assignments of the module and its classes (with `member`: of any scope)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names: set[str] = set()
    alias = getattr(ast, "TypeAlias", None)

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(child.name)
                visit(child, isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))
                continue
            if not in_function or member:
                targets: list[ast.expr] = []
                if isinstance(child, ast.Assign):
                    targets = list(child.targets)
                elif isinstance(child, ast.AnnAssign | ast.AugAssign):
                    targets = [child.target]
                elif alias is not None and isinstance(child, alias):  # `type X = ...`, 3.12
                    targets = [child.name]
                for target in targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Name):
                            names.add(leaf.id)
            visit(child, in_function)

    visit(tree, False)
    return frozenset(names)


_TEXTS: dict[str, tuple[object, str | None]] = {}


def read_text(path: Path) -> str | None:
    """The text of the file at `path` (kept while its stat stays), or None: not a regular
    file, larger than MAX_FILE_BYTES, binary (a NUL byte), or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = _TEXTS.get(str(path))
        if cached is not None and cached[0] == key:
            return cached[1]
        text: str | None = None
        if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE_BYTES:
            data = b""
            while len(data) <= MAX_FILE_BYTES and (chunk := os.read(fd, 1 << 16)):
                data += chunk
            if len(data) <= MAX_FILE_BYTES and b"\0" not in data:
                text = data.decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(_TEXTS) >= 256:
        _TEXTS.clear()
    _TEXTS[str(path)] = (key, text)
    return text

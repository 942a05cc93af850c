"""Update the secret detector's provider rules from gitleaks (MIT), the maintained rule set.

    python scripts/update_secret_rules.py GITLEAKS_CHECKOUT
    python scripts/update_secret_rules.py URL_OR_PATH_OF_gitleaks.toml --commit SHA

From a checkout (a clone of github.com/gitleaks/gitleaks at the commit to pin) it writes:
- graphit_cli/core/data/gitleaks.toml: `config/gitleaks.toml` unchanged;
- graphit_cli/core/data/gitleaks_rules.json: the rules translated from Go's RE2 syntax to
  Python's (`graphit_cli.core.gitleaks_toml.translate`), with the commit they came from;
- tests/fixtures/gitleaks_cases.json: each rule's own true and false positives, read from its Go
  source (cmd/generate/config/rules/*.go: the `tps`/`fps` given to `utils.Validate`), with the
  random secrets its `secrets.NewSecret(pattern)` calls draw generated here from the pattern
  (seeded, so a re-run writes the same file). Cases whose Go this reader cannot evaluate are
  counted and left out.

Given only the TOML (a path or a URL), it writes the first two and leaves the cases as they are.
Every translated pattern is compiled before anything is written. Update NOTICE's commit too.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphit_cli.core import gitleaks_toml  # noqa: E402

DATA = ROOT / "graphit_cli" / "core" / "data"
CASES = ROOT / "tests" / "fixtures" / "gitleaks_cases.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a gitleaks checkout, or a gitleaks.toml path or URL")
    parser.add_argument("--commit", help="the commit the TOML is from (read from a checkout)")
    args = parser.parse_args()
    checkout = Path(args.source)
    if checkout.is_dir():
        raw = (checkout / "config" / "gitleaks.toml").read_bytes()
        commit = args.commit or _git_head(checkout)
    else:
        if args.source.startswith(("https://", "http://")):
            with urllib.request.urlopen(args.source, timeout=60) as response:
                raw = response.read()
        else:
            raw = Path(args.source).read_bytes()
        commit = args.commit or "unknown"
    translated = gitleaks_toml.rules_from_toml(tomllib.loads(raw.decode("utf-8")))
    for rule in translated["rules"]:
        for pattern in [rule["regex"], *(r for a in rule["allow"] for r in a["regexes"])]:
            re.compile(pattern, re.ASCII)  # fails loudly before anything is written
    translated["source"] = {"repository": "github.com/gitleaks/gitleaks", "commit": commit}
    (DATA / "gitleaks.toml").write_bytes(raw)
    (DATA / "gitleaks_rules.json").write_text(
        json.dumps(translated, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"{len(translated['rules'])} rules from gitleaks {commit}")
    if checkout.is_dir():
        generic = next((r for r in translated["rules"] if r["id"] == "generic-api-key"), None)
        stopwords = tuple(w for a in (generic or {}).get("allow", []) for w in a["stopwords"])
        rules_dir = checkout / "cmd" / "generate" / "config" / "rules"
        cases, skipped = extract_cases(rules_dir, stopwords)
        known = {r["id"] for r in translated["rules"]}
        cases = {k: v for k, v in sorted(cases.items()) if k in known}
        CASES.write_text(
            json.dumps({"commit": commit, "rules": cases}, indent=1, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        tps = sum(len(c["tps"]) for c in cases.values())
        fps = sum(len(c["fps"]) for c in cases.values())
        print(f"{tps} true and {fps} false positives of {len(cases)} rules; {skipped} skipped")


def _git_head(checkout: Path) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# --- reading the rules' Go test cases ---------------------------------------------------------

_TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)
      |(?P<raw>`[^`]*`)
      |(?P<str>"(?:\\.|[^"\\\n])*")
      |(?P<rune>'(?:\\.|[^'\\\n])+')
      |(?P<nl>\n)
      |(?P<ws>[ \t\r]+)
      |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
      |(?P<num>[0-9][0-9.]*)
      |(?P<op>\.\.\.|:=|[-+*/%=<>!&|^.,;:(){}\[\]])""",
    re.VERBOSE | re.DOTALL,
)


class Unsupported(Exception):
    """Go this reader does not evaluate."""


def _tokens(source: str) -> list[tuple[str, str]]:
    out = []
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup or ""
        if kind in ("comment", "ws"):
            if kind == "comment" and "\n" in m.group(0):
                out.append(("nl", "\n"))
            continue
        value = m.group(0)
        if kind == "raw":
            out.append(("str", value[1:-1].replace("\r", "")))
        elif kind == "str":
            out.append(("str", _unquote(value)))
        else:
            out.append((kind, value))
    return out


def _unquote(literal: str) -> str:
    body = literal[1:-1]
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "a": "\a"}

    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] in simple and len(code) == 1:
            return simple[code[0]]
        if code[0] in "xuU":
            return chr(int(code[1:], 16))
        raise Unsupported(f"escape \\{code}")

    return re.sub(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", one, body)


class _Reader:
    """Evaluates the few Go expressions the rules' test cases are made of."""

    def __init__(
        self, tokens: list[tuple[str, str]], rng: random.Random, stopwords: tuple[str, ...] = ()
    ) -> None:
        self.t = tokens
        self.i = 0
        self.rng = rng
        self.stopwords = stopwords  # the generic rule's, for `newPlausibleSecret`

    def peek(self, ahead: int = 0) -> tuple[str, str]:
        j = self.i + ahead
        return self.t[j] if j < len(self.t) else ("eof", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if value is not None and token[1] != value:
            raise Unsupported(f"expected {value!r}, got {token[1]!r}")
        self.i += 1
        return token

    def skip_nl(self) -> None:
        while self.peek()[0] == "nl":
            self.i += 1

    def expr(self, env: dict[str, Any]) -> Any:
        value = self.term(env)
        while self.peek()[1] == "+":
            self.take()
            self.skip_nl()
            right = self.term(env)
            if not isinstance(value, str) or not isinstance(right, str):
                raise Unsupported("+ of non-strings")
            value += right
        return value

    def term(self, env: dict[str, Any]) -> Any:
        kind, value = self.peek()
        if kind == "str":
            self.take()
            return value
        if value == "[":
            self.take("[")
            self.take("]")
            self.take("string")
            return self.elements(env)
        if kind == "name":
            name = self.dotted()
            if self.peek()[1] == "(":
                return self.call(name, env)
            if name in env:
                return env[name]
            raise Unsupported(f"unknown name {name}")
        raise Unsupported(f"term {value!r}")

    def dotted(self) -> str:
        parts = [self.take()[1]]
        while self.peek()[1] == "." and self.peek(1)[0] == "name":
            self.take()
            parts.append(self.take()[1])
        return ".".join(parts)

    def elements(self, env: dict[str, Any]) -> list[str]:
        self.take("{")
        items: list[str] = []
        self.skip_nl()
        while self.peek()[1] != "}":
            item = self.expr(env)
            if not isinstance(item, str):
                raise Unsupported("non-string element")
            items.append(item)
            self.skip_nl()
            if self.peek()[1] == ",":
                self.take()
            self.skip_nl()
        self.take("}")
        return items

    def args(self, env: dict[str, Any]) -> list[Any]:
        self.take("(")
        out: list[Any] = []
        self.skip_nl()
        while self.peek()[1] != ")":
            value = self.expr(env)
            if self.peek()[1] == "...":
                self.take()
                if not isinstance(value, list):
                    raise Unsupported("... of a non-list")
                out.extend(value)
            else:
                out.append(value)
            self.skip_nl()
            if self.peek()[1] == ",":
                self.take()
            self.skip_nl()
        self.take(")")
        return out

    def call(self, name: str, env: dict[str, Any]) -> Any:
        args = self.args(env)
        sizes = {
            "utils.Numeric": "[0-9]{%s}",
            "utils.Hex": "[a-f0-9]{%s}",
            "utils.AlphaNumeric": "[a-z0-9]{%s}",
            "utils.AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
            "utils.AlphaNumericExtended": "[a-z0-9=_\\-]{%s}",
            "utils.AlphaNumericExtendedLong": "[a-z0-9\\/=_\\+\\-]{%s}",
        }
        if name in sizes:
            return sizes[name] % args[0]
        if name == "utils.Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name == "secrets.NewSecret":
            return generate(args[0], self.rng)
        if name == "newPlausibleSecret":  # generic.go: a digit, and no stopword of the rule
            for _ in range(1000):
                secret = generate(args[0], self.rng)
                lowered = secret.lower()
                if re.search("[1-9]", secret) and not any(w in lowered for w in self.stopwords):
                    return secret
            raise Unsupported("no plausible secret drawn")
        if name == "utils.GenerateSampleSecret":
            return f'{args[0]}_api_token = "{args[1]}"'
        if name == "utils.GenerateSampleSecrets":
            return [
                s.replace("{i}", args[0]).replace("{I}", args[0].upper()).replace("{s}", args[1])
                for s in _SAMPLES
            ]
        if name == "append":
            first, *rest = args
            return [*first, *rest]
        if name == "fmt.Sprintf":
            fmt, *values = args
            return _sprintf(fmt, values)
        if name == "strings.ToUpper":
            return args[0].upper()
        if name == "strings.ToLower":
            return args[0].lower()
        if name == "strings.Repeat":
            return args[0] * int(args[1])
        raise Unsupported(f"call {name}")


# utils.GenerateSampleSecrets' templates (cmd/generate/config/utils/generate.go).
_SAMPLES = (
    '{i}Token="{s}"',
    '{i}Token = "{s}"',
    "{i}Token={s}",
    "{i}Token = {s}",
    '{\n    "{i}_token": "{s}"\n}',
    '{"config.ini": "{I}_TOKEN={s}\\nBACKUP_ENABLED=true"}',
    "<{i}Token>\n    {s}\n</{i}Token>",
    "{i}_token: {s}",
    "{i}_token: '{s}'",
    '{i}_token: "{s}"',
    'string {i}Token = "{s}";',
    'var {i}Token string = "{s}"',
    '{i}Token := "{s}"',
    "{i}Token := `{s}`",
    'String {i}Token = "{s}";',
    'var {i}Token = "{s}"',
    '${i}Token .= "{s}"',
    "{i}Token = '{s}'",
    '{i}Token = "{s}"',
    'System.setProperty("{I}_TOKEN", "{s}")',
    '  "{i}Token" => "{s}"',
    '{i}_TOKEN = "{s}"',
    '{i}_TOKEN := "{s}"',
    '{i}_TOKEN ::= "{s}"',
    '{i}_TOKEN :::= "{s}"',
    '{i}_TOKEN ?= "{s}"',
)


def _sprintf(fmt: str, values: list[Any]) -> str:
    parts = iter(values)

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "%%":
            return "%"
        return str(next(parts))

    return re.sub(r"%%|%[-+# 0]*\d*[sdvq]", one, fmt)


def generate(pattern: str, rng: random.Random) -> str:
    """A random string that `pattern` (RE2) matches, as gitleaks' `secrets.NewSecret` draws."""
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as p  # type: ignore[import-not-found]

    printable = [chr(x) for x in range(33, 127)]
    categories = {
        c.CATEGORY_DIGIT: "0123456789",
        c.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
        c.CATEGORY_SPACE: " ",
    }

    def charset(items: list[Any]) -> list[str]:
        negate = False
        chars: set[str] = set()
        for op, av in items:
            if op is c.NEGATE:
                negate = True
            elif op is c.LITERAL:
                chars.add(chr(av))
            elif op is c.RANGE:
                chars.update(chr(x) for x in range(av[0], av[1] + 1))
            elif op is c.CATEGORY:
                chars.update(categories.get(av, ""))
        if negate:
            return [ch for ch in printable if ch not in chars]
        return sorted(chars)

    def emit(parsed: Any) -> str:
        out = []
        for op, av in parsed:
            if op is c.LITERAL:
                out.append(chr(av))
            elif op is c.NOT_LITERAL:
                out.append(rng.choice([ch for ch in printable if ord(ch) != av]))
            elif op is c.ANY:
                out.append(rng.choice(printable))
            elif op is c.IN:
                out.append(rng.choice(charset(av)))
            elif op is c.CATEGORY:
                out.append(rng.choice(categories.get(av, "a")))
            elif op is c.BRANCH:
                out.append(emit(rng.choice(av[1])))
            elif op is c.SUBPATTERN:
                out.append(emit(av[-1]))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, high, item = av
                high = min(high, low + 10) if high != c.MAXREPEAT else low + 10
                out.extend(emit(item) for _ in range(rng.randint(low, high)))
            elif op is c.AT:
                continue
            else:
                raise Unsupported(f"pattern op {op}")
        return "".join(out)

    return emit(p.parse(gitleaks_toml.translate(pattern)))


def extract_cases(
    folder: Path, stopwords: tuple[str, ...] = ()
) -> tuple[dict[str, dict[str, list[str]]], int]:
    """{rule id: {"tps": [...], "fps": [...]}} from every rule's Go source; and how many
    statements were left out."""
    rng = random.Random(7)
    cases: dict[str, dict[str, list[str]]] = {}
    skipped = 0
    for path in sorted(folder.glob("*.go")):
        tokens = _tokens(path.read_text(encoding="utf-8"))
        reader = _Reader(tokens, rng, stopwords)
        shared: dict[str, Any] = {"nil": []}  # the file's package-level `var`s
        env: dict[str, Any] = dict(shared)
        rule_id = ""
        depth = 0
        while reader.i < len(tokens):
            kind, value = reader.peek()
            if value == "func":
                env, rule_id = dict(shared), ""
            if value == "var" and depth == 0 and reader.peek(2)[1] == "=":
                name = reader.peek(1)[1]
                reader.i += 3
                start = reader.i
                try:
                    shared[name] = env[name] = reader.expr(env)
                except (Unsupported, IndexError, KeyError, ValueError, StopIteration):
                    reader.i = start
                continue
            depth += {"{": 1, "}": -1}.get(value, 0)
            if value == "var" and reader.peek(2)[1] == "[" and reader.peek(1)[0] == "name":
                env[reader.peek(1)[1]] = []
            if value == "RuleID" and reader.peek(1)[1] in (":", "="):
                reader.take()
                reader.take()
                if reader.peek()[0] == "str":
                    rule_id = reader.take()[1]
                continue
            if kind == "name" and reader.peek(1)[1] in (":=", "="):
                name = reader.take()[1]
                reader.take()
                start = reader.i
                try:
                    env[name] = reader.expr(env)
                except (Unsupported, IndexError, KeyError, ValueError, StopIteration):
                    env[name] = None  # a rule or a regex: known, not a case
                    skipped += name in ("tps", "fps")
                    reader.i = start
                continue
            if value == "Validate" and reader.peek(1)[1] == "(" and rule_id:
                start = reader.i
                reader.take()
                try:
                    args = reader.args(env)
                    tps, fps = args[1], args[2]
                    entry = cases.setdefault(rule_id, {"tps": [], "fps": []})
                    entry["tps"] += [t for t in tps if isinstance(t, str)]
                    entry["fps"] += [f for f in fps if isinstance(f, str)]
                except (Unsupported, IndexError, KeyError, ValueError, TypeError):
                    skipped += 1
                    reader.i = start + 1
                continue
            reader.i += 1
    return cases, skipped


if __name__ == "__main__":
    main()

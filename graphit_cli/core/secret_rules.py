"""Provider rules taken as data: gitleaks' maintained rule set, matched as gitleaks matches.

`data/gitleaks.toml` is gitleaks' own `config/gitleaks.toml`, vendored unchanged at a pinned
commit (MIT; see data/NOTICE); `data/gitleaks_rules.json` is the same rules translated from Go's
RE2 syntax to Python's (core/gitleaks_toml.py), written by scripts/update_secret_rules.py and
checked against the TOML by tests/test_secret_rules.py, so a process loads JSON (a few
milliseconds) and compiles a rule only when one of its keywords is in a text.

A match follows gitleaks' own detector (detect/detect.go): the secret is the rule's secret
group or its first non-empty group; a rule's entropy floor, the global allowlist and the rule's
allowlists (regexes on the secret, the match or the line; stopwords in the secret) drop it.
Pure: reads only the shipped JSON, standard library only.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "gitleaks_rules.json"

# The kinds graphit named before it took gitleaks' rules, kept so messages and tests read the
# same ("aws-access-key in the body at 2:21"); every other kind is gitleaks' rule id.
KIND_ALIASES = {
    "aws-access-token": "aws-access-key",
    "github-pat": "github-token",
    "github-fine-grained-pat": "github-token",
    "github-app-token": "github-token",
    "github-oauth": "github-token",
    "github-refresh-token": "github-token",
}


class _Allow:
    """One allowlist; its patterns compile on first use (the generic rule's 1,500 stopwords
    cost a cold process a few hundred milliseconds, and most texts never need them)."""

    def __init__(self, target: str, regexes: list[str], stopwords: list[str]) -> None:
        self.target = target
        self._raw = (regexes, stopwords)
        self._compiled: tuple[tuple[re.Pattern[str], ...], re.Pattern[str] | None] | None = None

    @property
    def regexes(self) -> tuple[re.Pattern[str], ...]:
        return self._patterns()[0]

    def _patterns(self) -> tuple[tuple[re.Pattern[str], ...], re.Pattern[str] | None]:
        if self._compiled is None:
            regexes, stopwords = self._raw
            words = re.compile(trie(stopwords)) if stopwords else None
            self._compiled = (tuple(re.compile(r, re.ASCII) for r in regexes), words)
        return self._compiled

    def allows(self, secret: str, match: str, line: str) -> bool:
        regexes, stopwords = self._patterns()
        subject = {"match": match, "line": line}.get(self.target, secret)
        if any(r.search(subject) for r in regexes):
            return True
        return stopwords is not None and stopwords.search(secret.lower()) is not None


def prefixes(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Each word -> the words it begins with (itself included)."""
    known = set(words)
    return {w: tuple(w[:i] for i in range(1, len(w) + 1) if w[:i] in known) for w in known}


def trie(words: list[str]) -> str:
    """An alternation of `words` as a trie (`ab(?:c|d)`): `re` tries it in one pass per
    position, where a flat alternation of 1,500 generic-rule stopwords tries each word."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def spell(node: dict[str, Any]) -> str:
        if "" in node and len(node) == 1:
            return ""
        branches = [re.escape(ch) + spell(child) for ch, child in sorted(node.items()) if ch]
        inner = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return inner if "" not in node else "(?:" + inner + ")?"

    return spell(tree)


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str
    pattern: re.Pattern[str]
    entropy: float
    group: int
    allow: tuple[_Allow, ...]
    # A semi-generic rule (`[\w.-]{0,50}?` + an identifier + an assignment): how each of its
    # identifiers begins, in lower case, and the pattern after that prefix (`_semi_generic`).
    heads: tuple[str, ...] = ()
    core: re.Pattern[str] | None = None


# gitleaks' semi-generic prefix: up to 50 name characters before the identifier, lazily.
_SEMI = re.compile(r"\A(\(\?i\))?\[\\w\.-\]\{0,50\}\?")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


class RuleSet:
    """The loaded rules: which keywords wake which rules, each compiled on first use."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._raw = {r["id"]: r for r in data["rules"]}
        self._compiled: dict[str, Rule] = {}
        self._global: tuple[_Allow, ...] | None = None
        self._global_raw = data["allow"]
        wakes: dict[str, list[str]] = {}
        for rule in data["rules"]:
            for keyword in rule["keywords"]:
                wakes.setdefault(keyword, []).append(rule["id"])
        self.wakes = {k: tuple(v) for k, v in wakes.items()}
        self.keywords = tuple(sorted(self.wakes))
        self._scan: tuple[re.Pattern[str], dict[str, tuple[str, ...]]] | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self._raw)

    def rule(self, rule_id: str) -> Rule:
        done = self._compiled.get(rule_id)
        if done is None:
            raw = self._raw[rule_id]
            semi = _SEMI.match(raw["regex"])
            core, heads = None, None
            if semi:
                source = (semi.group(1) or "") + raw["regex"][semi.end() :]
                heads = _heads(source)
                core = re.compile(source, re.ASCII) if heads else None
            done = Rule(
                rule_id,
                KIND_ALIASES.get(rule_id, rule_id),
                re.compile(raw["regex"], re.ASCII),
                raw["entropy"],
                raw["group"],
                tuple(_compile_allow(a) for a in raw["allow"] if not a["never"]),
                heads or (),
                core,
            )
            self._compiled[rule_id] = done
        return done

    def awake(self, lowered: str, present: set[str] | None = None) -> list[str]:
        """The rules one of whose keywords is in `lowered` (the text in lower case), or in
        `present` when the caller found the keywords in its own pass."""
        if present is None:
            if self._scan is None:  # built on first use: secrets.py passes its own pass's
                self._scan = (re.compile(trie(list(self.keywords))), prefixes(self.keywords))
            pattern, begins = self._scan
            present = set()
            hit = pattern.search(lowered)
            while hit is not None:  # searched again after each hit: keywords may overlap
                present.update(begins[hit.group(0)])
                hit = pattern.search(lowered, hit.start() + 1)
        found: dict[str, None] = {}
        for keyword in sorted(present):
            for rule_id in self.wakes[keyword]:
                found[rule_id] = None
        return list(found)

    def find(
        self, text: str, lowered: str, present: set[str] | None = None
    ) -> list[tuple[int, int, str, str]]:
        """(start, end, kind, secret) of each secret the awake rules find."""
        if self._global is None:
            self._global = tuple(_compile_allow(a) for a in self._global_raw if not a["never"])
        out: list[tuple[int, int, str, str]] = []
        for rule_id in self.awake(lowered, present):
            rule = self.rule(rule_id)
            if rule.core is None:
                matches: Iterable[re.Match[str]] = rule.pattern.finditer(text)
            else:
                matches = _semi_generic(rule, text, lowered)
            for match in matches:
                start, end, secret = _secret(match, rule.group)
                if not secret:
                    continue
                if rule.entropy and entropy(secret) <= rule.entropy:
                    continue
                whole = match.group(0).strip("\n")
                line = _line(text, match.start(), match.end())
                if any(a.allows(secret, whole, line) for a in (*self._global, *rule.allow)):
                    continue
                out.append((start, end, rule.kind, secret))
        return out


def names_allowed(the_set: RuleSet, match: str) -> bool:
    """Whether gitleaks' generic rule's allowlists for a match (names that hold no secret:
    `csrf_token`, `public_token`, `key_id`, `io.jsonwebtoken:`) allow `match` (a name, its
    operator and its value), for graphit's own assignment rule to leave alone too."""
    generic = the_set.rule("generic-api-key") if "generic-api-key" in the_set.ids else None
    if generic is None:
        return False
    return any(
        a.target == "match" and any(r.search(match) for r in a.regexes) for a in generic.allow
    )


@functools.lru_cache(maxsize=4)
def public_values(the_set: RuleSet) -> frozenset[str]:
    """The values gitleaks' generic rule knows to be public (the stopwords of its allowlists
    that are no word: 12 or more characters, a digit among them, such as a vendor's published
    demo key), for graphit's own assignment rule to leave alone too."""
    if "generic-api-key" not in the_set.ids:
        return frozenset()
    words = [w for raw in the_set._raw["generic-api-key"]["allow"] for w in raw["stopwords"]]
    return frozenset(w for w in words if len(w) >= 12 and any(c.isdigit() for c in w))


def _semi_generic(rule: Rule, text: str, lowered: str) -> list[re.Match[str]]:
    """What `rule.pattern.finditer(text)` finds, without trying the lazy 50-character prefix at
    every position (Python's `re` gives up its first-character scan under `(?i)`).

    The identifier after the prefix begins with one of `rule.heads`; the first place q >= x
    where one is and the rest matches (`core`) decides the leftmost start: back from q over
    name characters, at most 50, not before x. No match can start before it (its identifier
    would begin before q), and the pattern matched there is the one `finditer` finds."""
    assert rule.core is not None
    places = sorted({at for head in rule.heads for at in _places(lowered, head)})
    out: list[re.Match[str]] = []
    floor = 0
    for at in places:
        if at < floor or rule.core.match(text, at) is None:
            continue
        start = at
        while start > floor and at - start < 50 and text[start - 1] in _NAME_CHARS:
            start -= 1
        match = rule.pattern.match(text, start)
        if match is None:
            continue
        out.append(match)
        floor = max(match.end(), start + 1)
    return out


def _heads(source: str) -> tuple[str, ...] | None:
    """The literal text each branch of the pattern's first group begins with, in lower case
    (`(?:access|auth|(?-i:[Aa]pi|API)|passw(?:or)?d)`: access, auth, api, api, passw); None
    when a branch begins with anything but letters, digits or case variants of one."""
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as parser  # type: ignore[import-not-found]

    def literal(item: tuple[object, object]) -> str | None:
        op, av = item
        if op is c.LITERAL and isinstance(av, int):
            return chr(av).lower()
        if op is c.IN and isinstance(av, list):
            chars = {chr(x).lower() for kind, x in av if kind is c.LITERAL}
            if len(chars) == 1 and all(kind is c.LITERAL for kind, _ in av):
                return chars.pop()
        return None

    def prefixes(seq: object) -> list[str]:
        out = [""]
        for item in seq:  # type: ignore[attr-defined]
            ch = literal(item)
            if ch is not None and (ch.isalnum() or ch in "_-."):
                out = [head + ch for head in out]
                continue
            op, av = item
            if op is c.BRANCH:
                inner = [p for branch in av[1] for p in prefixes(branch)]
            elif op is c.SUBPATTERN:
                inner = prefixes(av[-1])
            else:
                break
            out = [head + tail for head in out for tail in inner]
            break
        return out

    try:
        found = prefixes(parser.parse(source))
    except re.error:
        return None
    if not all(found):
        return None
    return tuple(sorted(set(found)))


def _places(lowered: str, keyword: str) -> list[int]:
    found = []
    at = lowered.find(keyword)
    while at >= 0:
        found.append(at)
        at = lowered.find(keyword, at + 1)
    return found


def _compile_allow(raw: dict[str, Any]) -> _Allow:
    return _Allow(raw["target"], raw["regexes"], raw["stopwords"])


_SHORTEST_SECRET = 8


def _secret(match: re.Match[str], group: int) -> tuple[int, int, str]:
    """The secret's span and text: the rule's group, else the first non-empty group, else the
    match (without the newlines a pattern may take at its ends). A first group shorter than a
    secret is a repeated piece of the pattern (Teams' webhook URL: `([a-z0-9]{4}-){3}` holds
    `abc5-`), and the match is the secret."""
    if group and match.lastindex and group <= match.lastindex and match.group(group):
        return match.start(group), match.end(group), match.group(group)
    for index in range(1, (match.re.groups or 0) + 1):
        value = match.group(index)
        if value and len(value) >= _SHORTEST_SECRET:
            return match.start(index), match.end(index), value
        if value:
            break
    value = match.group(0)
    start = match.start() + (len(value) - len(value.lstrip("\n")))
    stripped = value.strip("\n")
    return start, start + len(stripped), stripped


def _line(text: str, start: int, end: int) -> str:
    begin = text.rfind("\n", 0, start) + 1
    stop = text.find("\n", end)
    return text[begin : stop if stop >= 0 else len(text)]


def entropy(value: str) -> float:
    """Shannon entropy of `value`'s characters, in bits (gitleaks' `shannonEntropy`)."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(c / size * math.log2(c / size) for c in Counter(value).values())


_loaded: RuleSet | None = None


def rules() -> RuleSet:
    """The shipped rule set, loaded once a process."""
    global _loaded
    if _loaded is None:
        _loaded = RuleSet(json.loads(DATA.read_text(encoding="utf-8")))
    return _loaded

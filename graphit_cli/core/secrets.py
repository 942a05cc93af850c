"""Secrets in a memory's text: where they are, of which kind, and the text with them redacted.

Pure: no I/O, standard library only (so a write pays microseconds, and `graphit --help` and the
warm path's cold client pay nothing; see benchmarks/secrets.py). Chosen by measurement over
detect-secrets and bc-detect-secrets (benchmarks/README.md "Secrets"): their entropy plugins
refuse the commit SHAs, ULIDs and content hashes a memory is full of, their keyword plugin
misses `.env` lines and connection strings, and a line costs them ~0.3 ms. The provider rules
below are the formats those detectors (and gitleaks) document; the context rules (assignments,
URLs, headers) add what they lack, with the look-alikes a memory holds left alone: placeholders
(`<your-token>`, `${DB_PASSWORD}`, `changeme`), the providers' documented example keys,
variable names without a value, notes that say where a secret lives, public keys, hashes.

A finding never carries the value itself into a message: `Finding` holds its kind and span, and
`describe` names the kind and line:column only. Must not import anything heavy. Past 400 lines
as one job: the rules, and the look-alikes each must leave alone, are tuned together against
one corpus (benchmarks/secrets_corpus.py), and a memory's fields are checked by the same code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphit_cli.core import hiding, secret_rules

if TYPE_CHECKING:
    from graphit_cli.core.models import Memory, MemoryDraft

REDACTED = "[REDACTED:{kind}]"

# --- provider formats: the token alone is the secret ------------------------------------------

# gitleaks' rules (core/secret_rules.py) know ~220 providers. These are the formats they miss
# or know only next to a keyword: a memory names keys in prose ("my key is sk-ant-..."), and
# a PostHog personal key and an FCM legacy server key have no gitleaks rule at all.
_PROVIDERS: tuple[tuple[str, str], ...] = (
    ("anthropic-key", r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{32,}"),
    ("openai-key", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"),
    ("openai-key", r"\bsk-[A-Za-z0-9]{48}\b"),
    ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}\b"),
    ("mailgun-key", r"\bkey-[0-9a-z]{32}\b"),
    ("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("square-token", r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}(?![A-Za-z0-9_-])"),
    ("telegram-bot-token", r"\b\d{8,10}:AA[0-9A-Za-z_-]{33}(?![A-Za-z0-9_-])"),
    (
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{30,}",
    ),
    ("azure-storage-key", r"(?i:AccountKey)=[A-Za-z0-9+/]{86}==(?=;|\s|$|[\"'])"),
    # PostHog: `phx_` is a personal API key (its `phc_` project key is public by design).
    ("posthog-personal-api-key", r"\bphx_[A-Za-z0-9]{30,}\b"),
    # Firebase Cloud Messaging's legacy server key: `AAAA` + 7, `:APA91b` + ~134.
    ("fcm-server-key", r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
)

# A private key block: the header and at least one line of key material (a header alone, in a
# note saying what a file starts with, is no secret). A public key or certificate never matches.
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP |SSH2 ENCRYPTED )?"
    r"PRIVATE KEY(?: BLOCK)?-----"
    r"[ \t]*\r?\n(?:[ \t]*[A-Za-z0-9-]+:[^\n]*\n)*[ \t]*[A-Za-z0-9+/=]{20,}"
    r"(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?",
    re.DOTALL,
)

# --- context rules: a value is a secret because of what names it ------------------------------

# A name that holds a credential: `password`, `DB_PASSWORD`, `aws_secret_access_key`,
# `apiKey`, `GITHUB_TOKEN`, `client-secret`. The word must end the name, right before the
# `=` or `:`: `password_min_length`, `token_count` and `max_tokens` name settings. Matched from
# the word on (no scan back over the name, which would backtrack on long identifiers).
_ASSIGNMENT = re.compile(
    r"(?P<name>(?i:pass(?:word|wd|phrase)?|pwd|secret(?:[_-]?(?:access[_-]?)?key)?|token|"
    r"api[_-]?key|access[_-]?key(?:[_-]?id)?|private[_-]?key|auth[_-]?token|credentials?))"
    r"[\"']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}"
    r"(?:(?P<q>[\"'`])(?P<quoted>[^\"'`\n]{1,300})(?P=q)|(?P<bare>[^\s\"'`,;)\]}>]{1,300}))"
)
# user:password@host in a URL or connection string.
_URL_PASSWORD = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@\"'<>]{0,100}:(?P<value>[^\s@/\"'<>]{1,200})@[\w.-]"
)
# An Authorization header's credential, or a bearer token written out.
_BEARER = re.compile(r"(?i:\b(?:bearer|token)\s+)(?P<value>[A-Za-z0-9._~+/-]{20,}=*)(?![\w.~+/-])")
_BASIC = re.compile(r"(?i:authorization:\s*basic\s+)(?P<value>[A-Za-z0-9+/]{12,}=*)")
# A password passed on a command line: `docker login -p X`, `mysql -pX`, `--password=X`,
# `curl -u user:X`.
_FLAG = re.compile(
    r"(?:--pass(?:word|wd)?[= ]|\b(?:login|mysql|mysqldump|mysqladmin|sshpass)\b[^\n]{0,60}?"
    r"\s-p ?|\bcurl\b[^\n]{0,80}?\s(?:-u|--user)[ =]?[^\s:\"']{1,100}:)(?P<value>[^\s\"'`]{6,200})"
)
# `//registry.npmjs.org/:_authToken=...` in an .npmrc.
_NPMRC = re.compile(r":_(?:authToken|auth|password)=(?P<value>[^\s\"'${][^\s\"']{7,})")

# Values that stand for a secret without being one: placeholders, references, redactions.
_PLACEHOLDER = re.compile(
    r"""^(?:
        <[^<>]*> | \[[^\[\]]*\] | \{.* | \\?\$\{[^}]*\}?[^\s]* | \$\(.*\) | \$[A-Za-z_]\w* |
        %\([A-Za-z_]\w*(?:\)s?)? | %[A-Za-z_]\w*% |
        [xX*•.#_-]{3,} | (?i:x+\d*) | (?i:0+|1234\d*) |
        .*(?i:example|placeholder|changeme|change[_-]me|your[_-]|redacted|dummy|sample|
              fake|foobar|not[_-]?a[_-]?real|insert[_-]|replace[_-]?me|todo|fixme|secret_here|
              password_here|xxxx|\.\.\.).*
    )$""",
    re.VERBOSE,
)
# The passwords of test plans and tutorials (`Password: Test@123`, `WrongPassword123`,
# `P@ssw0rd!`): a common word (a qualifier before it) and at most a few digits or symbols.
# Public and guessable, they protect nothing a memory could leak; test plans are full of them.
_TEST_PASSWORD = re.compile(
    r"^(?i:(?:wrong|invalid|bad|incorrect|valid|correct|new|old|my|weak|strong|secure)[_-]?)?"
    r"(?i:pass(?:word)?|p[a@]ssw[o0]rd|test(?:er|ing|user)?|admin(?:istrator)?|demo|guest|"
    r"user|qwerty|letmein|welcome|root|default|abc|secret|hunter|changeit)"
    r"[\W_]{0,2}\d{0,6}[\W_]{0,2}$"
)
# Bare words that follow `password:` in prose or in a type annotation, not credentials.
_NOT_VALUES = frozenset(
    """str string int bool bytes none null nil true false undefined optional required yes no
    see stored kept lives is are in from via the a an none_ set unset empty missing any env
    environ getenv secret secrets password passwords token tokens key keys credential
    credentials vault keychain keyring 1password bitwarden lastpass doppler sops ssm
    secretsmanager param parameter prompt prompted input stdin file literal type hidden
    masked omitted n/a tbd same default""".split()  # noqa: SIM905 (a word list reads better)
)
_WORD = re.compile(r"^[A-Za-z]+$")
_PATH = re.compile(r"^/[\w.-]+/[\w./-]+$")
# settings.DB_PASSWORD, process.env.OPERATOR_KEY_2: a lowercase word, then attributes.
_IDENTIFIER_PATH = re.compile(
    r"^(?:[A-Za-z_]+|[a-z_$]+(?:\.[A-Za-z_$][\w$]*)*)(?:\.[A-Za-z_]\w*)+$"
)
# An environment variable's or a constant's name: DB_PASSWORD, STRIPE_SECRET_KEY.
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CALL = re.compile(r"^[A-Za-z_][\w.]*[(\[][\w\"'.]*$")

# Keys the providers publish in their documentation, quoted everywhere: not secrets.
_DOCUMENTED_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
        "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
    }
)
# jwt.io's sample token, signed with the documented key "your-256-bit-secret".
_DOCUMENTED_SIGNATURES = ("SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",)
# A value shown masked (`hf_***`, `ghp_****abcd`, `••••`): what is left of it is no secret.
_MASKED = re.compile(r"[*•]{3,}")
# A YAML tag before the value (`api_key: !vault |`), not the value.
_YAML_TAG = re.compile(r"!!?[A-Za-z]+")
# `arn:aws:secretsmanager:...:secret:prod/db-AbCdEf`: an ARN's `secret:` names a resource.
_ARN = re.compile(r"\barn:[\w-]+:[\w-]*:[\w-]*:\d*:$")


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
    if not text or len(text) < 8:
        return []
    spans = _spans(text)
    view = hiding.unhidden(text)
    if view is not None:
        spans += [(*view.span(start, end), kind) for start, end, kind in _spans(view.text)]
    for start, end, plain in hiding.decoded(view.text if view is not None else text):
        inner = _spans(plain)
        if inner:
            where = view.span(start, end) if view is not None else (start, end)
            spans.append((*where, f"{inner[0][2]}-base64"))
    return _located(text, _merged(spans))


def _spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each secret in `text` as written."""
    if len(text) < 8:
        return []
    lowered = text.lower()
    # One pass finds every literal a rule needs (graphit's and gitleaks' keywords); a rule
    # runs only when one of its is there.
    scan, prefixes, keywords = _scanner()
    gate: dict[str, list[int]] = {}
    hit = scan.search(lowered)
    while hit is not None:
        for literal in prefixes[hit.group(0)]:
            gate.setdefault(literal, []).append(hit.start())
        hit = scan.search(lowered, hit.start() + 1)  # literals may overlap
    present = keywords & gate.keys()
    spans: list[tuple[int, int, str]] = []
    for start, end, kind, secret in secret_rules.rules().find(text, lowered, present):
        if not _look_alike(secret, generic=kind.startswith("generic")):
            spans.append((start, end, kind))
    awake = sorted({i for literal in gate for i in _WAKES.get(literal, ())})
    for kind, pattern, _ in (_COMPILED[i] for i in awake):
        for match in pattern.finditer(text):
            if match.group(0) not in _DOCUMENTED_EXAMPLES and not _example(match.group(0)):
                spans.append((match.start(), match.end(), kind))
    for rule, kind, needs in _CONTEXT_RULES:
        if not any(literal in gate for literal in needs):
            continue
        for match in rule.finditer(text):
            value = match.group("value") if "value" in rule.groupindex else match.group(0)
            if rule is _PRIVATE_KEY:
                spans.append((match.start(), match.end(), kind))
            elif rule is _BASIC or (
                _credible(value, url=rule is _URL_PASSWORD)
                and (rule is not _BEARER or _mixed(value))
            ):
                spans.append((match.start("value"), match.end("value"), kind))
    starts = sorted({at for word in _NAME_STARTS for at in gate.get(word, ())})
    for at in starts:
        named = _ASSIGNMENT.match(text, at)
        if named is None or _ARN.search(text, max(0, at - 120), at):
            continue
        group = "quoted" if named.group("quoted") is not None else "bare"
        value = named.group(group)
        begin = at
        while begin > max(0, at - 50) and (text[begin - 1].isalnum() or text[begin - 1] in "_.-"):
            begin -= 1
        if secret_rules.names_allowed(secret_rules.rules(), text[begin : named.end()]):
            continue  # a name gitleaks knows holds no secret (`csrf_token`, `public_key`)
        if _credible(value, quoted=group == "quoted", name=named.group("name")):
            spans.append((named.start(group), named.end(group), _assigned_kind(named["name"])))
    return spans


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

# Each rule runs only when a literal it needs is in the text: `in` is a C scan,
# a regex over a long body is not (benchmarks/secrets.py measures what a record costs).
_TRIGGERS: dict[str, tuple[str, ...]] = {
    "anthropic-key": ("sk-ant-",),
    "openai-key": ("sk-",),
    "google-oauth-secret": ("GOCSPX-",),
    "mailgun-key": ("key-",),
    "shopify-token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "databricks-token": ("dapi",),
    "square-token": ("sq0",),
    "telegram-bot-token": (":AA",),
    "discord-webhook": ("/api/webhooks/",),
    "azure-storage-key": ("ccountKey=", "CCOUNTKEY=", "ccountkey="),
    "posthog-personal-api-key": ("phx_",),
    "fcm-server-key": (":APA91b",),
}
_COMPILED = tuple((kind, re.compile(pattern), _TRIGGERS[kind]) for kind, pattern in _PROVIDERS)
# Where an assignment's name can begin: the rule is tried at these words only.
_NAME_STARTS = ("pass", "pwd", "secret", "token", "api", "access", "private", "auth", "credential")
# The context rules: (rule, kind, the lowercase literals that wake it).
_CONTEXT_RULES = (
    (_PRIVATE_KEY, "private-key", ("private key",)),
    (_URL_PASSWORD, "password-in-url", ("://",)),
    (_BEARER, "bearer-token", ("bearer", "token")),
    (_BASIC, "basic-auth", ("basic",)),
    (_FLAG, "password", ("-p", "curl")),
    (_NPMRC, "npm-token", (":_",)),
)
# lowercase literal -> the provider rules it wakes (indexes into _COMPILED)
_WAKES: dict[str, tuple[int, ...]] = {}
for _i, (_kind, _, _literals) in enumerate(_COMPILED):
    for _literal in _literals:
        _WAKES[_literal.lower()] = (*_WAKES.get(_literal.lower(), ()), _i)
_GATE_LITERALS = sorted(
    {*_WAKES, *_NAME_STARTS, *(n for _, _, needs in _CONTEXT_RULES for n in needs)},
    key=len,
    reverse=True,
)
_scanning: tuple[re.Pattern[str], dict[str, tuple[str, ...]], set[str]] | None = None


def _scanner() -> tuple[re.Pattern[str], dict[str, tuple[str, ...]], set[str]]:
    """One trie-shaped pattern of graphit's literals and gitleaks' keywords (searched again
    from the next character after each hit: literals may overlap); a literal found stands for
    the literals it begins with ("sk-ant-" for "sk-"). Built once a process, on first use."""
    global _scanning
    if _scanning is None:
        keywords = set(secret_rules.rules().keywords)
        literals = sorted({*_GATE_LITERALS, *keywords})
        pattern = re.compile(secret_rules.trie(literals))
        _scanning = (pattern, secret_rules.prefixes(literals), keywords)
    return _scanning


def _example(token: str) -> bool:
    """A provider's example key: documentation spells them with EXAMPLE, or all one letter."""
    upper = token.upper()
    if "EXAMPLE" in upper or "XXXXXXXX" in upper or "00000000" in token:
        return True
    if token.endswith(_DOCUMENTED_SIGNATURES) or _MASKED.search(token):
        return True
    body = token[-16:]
    return len(set(body)) <= 2


def _look_alike(secret: str, *, generic: bool = False) -> bool:
    """A provider rule's match that stands for a secret without being one: a documented
    example, a placeholder, a test plan's password; for a generic rule (a value named as a key),
    anything `_credible` would not take from an assignment."""
    if secret in _DOCUMENTED_EXAMPLES or _example(secret):
        return True
    if _PLACEHOLDER.match(secret) or _TEST_PASSWORD.match(secret):
        return True
    return generic and not _credible(secret, quoted=True)


def _credible(value: str, *, quoted: bool = False, url: bool = False, name: str = "") -> bool:
    """Whether a value named as a credential is one, rather than a placeholder, a reference
    to where it lives, a type or a prose word."""
    value = value.strip().rstrip("!?")  # `String!`, `process.env.KEY!` (TypeScript)
    if len(value) < 6 or len(value) > 300:
        return False
    if value in _DOCUMENTED_EXAMPLES or _PLACEHOLDER.match(value) or _TEST_PASSWORD.match(value):
        return False
    if _example(value) or _YAML_TAG.fullmatch(value):  # all one letter, masked; `!vault`
        return False
    lowered = value.lower().rstrip(".")
    if lowered in _NOT_VALUES or lowered == name.lower():
        return False
    if url:
        return True
    if " " in value:  # a quoted sentence ("stored in 1Password"), not a password
        return False
    if _CALL.search(value) or _IDENTIFIER_PATH.match(value) or _ENV_NAME.match(value):
        return False  # os.environ["X"], settings.DB_PASSWORD, get_token(), BEE_CLIENT_SECRET
    if value.isdigit() or re.fullmatch(r"\d+(?:\.\d+)?[a-z]{0,3}", value):
        return False  # a count or a duration: token_ttl=3600, password_length: 12
    if not quoted and (_SNAKE.match(value) or value.endswith(":")):
        return False  # password=user_password (a variable), `token:` opening a list
    if not quoted and _WORD.match(value) and (value.islower() or value.istitle()):
        return len(value) >= 10 and not value.islower()  # prose: `password: Required`
    if value.startswith(("~/", "./", "http://", "https://", "file:")) or _PATH.match(value):
        return False  # a path or an address: where the secret lives
    return not value.endswith((".env", ".json", ".yaml", ".yml", ".pem", ".key", ".txt"))


def _mixed(value: str) -> bool:
    """A bearer token has digits or mixed case; `Bearer authentication-required` does not."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _assigned_kind(name: str) -> str:
    lowered = name.lower().replace("-", "_")
    if "pass" in lowered or "pwd" in lowered:
        return "password"
    if "private" in lowered:
        return "private-key"
    if "secret" in lowered:
        return "secret"
    if "token" in lowered:
        return "token"
    if "key" in lowered:
        return "api-key"
    return "credential"


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
    for name, values in (("tag", tags), ("anchor", anchors)):
        for number, value in enumerate(values or (), start=1):
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

"""graphit's own secret rules, and the look-alikes every rule leaves alone.

The provider formats gitleaks' rules (core/secret_rules.py) miss, the context rules (a value is
a secret because of what names it: assignments, URLs, headers, command-line flags, .npmrc), the
literals that wake each rule, and what stands for a secret without being one (placeholders,
references, test plans' passwords, the providers' documented example keys, masked values,
keys typed or made of words).
core/secrets.py runs these and gitleaks' rules over a text. Tuned together against one corpus
(benchmarks/secrets_corpus.py): a rule and the look-alikes it must leave alone change together.
Pure: standard library only, and core/commonness.py's shipped word table (read on the first
value `words` weighs).
"""

from __future__ import annotations

import re

from graphit_cli.core import commonness

# --- provider formats: the token alone is the secret ------------------------------------------

# gitleaks' rules (core/secret_rules.py) know ~220 providers. These are the formats they miss
# or know only next to a keyword: a memory names keys in prose ("my key is sk-ant-..."), and
# a PostHog personal key and an FCM legacy server key have no gitleaks rule at all. An
# Anthropic key has 93 characters and `AA` after its prefix: in prose, 80 or more are taken
# (cut or not); a shorter run is made up (gitleaks' own false cases are). A Telegram bot token
# has `AA` and 33 more after its bot id: 30 or more are taken, cut short or not.
_PROVIDERS: tuple[tuple[str, str], ...] = (
    ("anthropic-key", r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}"),
    ("openai-key", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"),
    ("openai-key", r"\bsk-[A-Za-z0-9]{48}\b"),
    ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}\b"),
    ("mailgun-key", r"\bkey-[0-9a-z]{32}\b"),
    ("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("square-token", r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}(?![A-Za-z0-9_-])"),
    ("telegram-bot-token", r"\b\d{8,10}:AA[0-9A-Za-z_-]{30,33}(?![A-Za-z0-9_-])"),
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
PRIVATE_KEY = re.compile(
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
ASSIGNMENT = re.compile(
    r"(?P<name>(?i:pass(?:word|wd|phrase)?|pwd|secret(?:[_-]?(?:access[_-]?)?key)?|token|"
    r"api[_-]?key|access[_-]?key(?:[_-]?id)?|private[_-]?key|auth[_-]?token|credentials?))"
    r"[\"']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}"
    r"(?:(?P<q>[\"'`])(?P<quoted>[^\"'`\n]{1,300})(?P=q)|(?P<bare>[^\s\"'`,;)\]}>]{1,300}))"
)
# user:password@host in a URL or connection string.
URL_PASSWORD = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/@\"'<>]{0,100}:(?P<value>[^\s@/\"'<>]{1,200})@[\w.-]"
)
# An Authorization header's credential, or a bearer token written out.
BEARER = re.compile(r"(?i:\b(?:bearer|token)\s+)(?P<value>[A-Za-z0-9._~+/-]{20,}=*)(?![\w.~+/-])")
BASIC = re.compile(r"(?i:authorization:\s*basic\s+)(?P<value>[A-Za-z0-9+/]{12,}=*)")
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
DOCUMENTED_EXAMPLES = frozenset(
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
ARN = re.compile(r"\barn:[\w-]+:[\w-]*:[\w-]*:\d*:$")

# --- what wakes each rule -------------------------------------------------------------------

# Each rule runs only when a literal it needs is in the text: `in` is a C scan,
# a regex over a long body is not (benchmarks/secret_detection.py measures what a record costs).
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
PROVIDER_RULES = tuple((kind, re.compile(pattern), _TRIGGERS[kind]) for kind, pattern in _PROVIDERS)
# Where an assignment's name can begin: the rule is tried at these words only.
NAME_STARTS = ("pass", "pwd", "secret", "token", "api", "access", "private", "auth", "credential")
# The context rules: (rule, kind, the lowercase literals that wake it).
CONTEXT_RULES = (
    (PRIVATE_KEY, "private-key", ("private key",)),
    (URL_PASSWORD, "password-in-url", ("://",)),
    (BEARER, "bearer-token", ("bearer", "token")),
    (BASIC, "basic-auth", ("basic",)),
    (_FLAG, "password", ("-p", "curl")),
    (_NPMRC, "npm-token", (":_",)),
)
# lowercase literal -> the provider rules it wakes (indexes into PROVIDER_RULES)
WAKES: dict[str, tuple[int, ...]] = {}
for _i, (_kind, _, _literals) in enumerate(PROVIDER_RULES):
    for _literal in _literals:
        WAKES[_literal.lower()] = (*WAKES.get(_literal.lower(), ()), _i)
GATE_LITERALS = sorted(
    {*WAKES, *NAME_STARTS, *(n for _, _, needs in CONTEXT_RULES for n in needs)},
    key=len,
    reverse=True,
)

# --- look-alikes: what stands for a secret without being one --------------------------------


def example(token: str) -> bool:
    """A provider's example key: documentation spells them with EXAMPLE, or all one letter."""
    upper = token.upper()
    if "EXAMPLE" in upper or "XXXXXXXX" in upper or "00000000" in token:
        return True
    if token.endswith(_DOCUMENTED_SIGNATURES) or _MASKED.search(token):
        return True
    body = token[-16:]
    return len(set(body)) <= 2


def typed(value: str) -> bool:
    """A value typed by a person, not generated: half or more of its letters and digits are runs
    of three or more consecutive ones (`abc`, `123`, `xyz`: `AbCeFG123`,
    `sk-ant-api03-abc123xyz-456def789ghij-...`). A random value of 8 characters or more is one
    at most once in 2,500 (20,000 of each length and alphabet; none of 16 or more)."""
    alnum = [c for c in value.lower() if c.isalnum()]
    if len(alnum) < 8:
        return False
    covered, run = 0, 1
    for before, after in zip(alnum, [*alnum[1:], ""], strict=True):
        if after and ord(after) - ord(before) == 1 and before.isdigit() == after.isdigit():
            run += 1
            continue
        covered += run if run >= 3 else 0
        run = 1
    return covered * 2 >= len(alnum)


# What a name holds when it is generated, never chosen by a person (assigned_kind's kinds).
_GENERATED = frozenset({"api-key", "token"})
# An id and a secret joined by one colon (`<bot id>:<secret>`): a provider's pair, not one
# generated token. gitleaks' generic rule takes a token of `[\w.=-]` only; a pair is the
# provider rules' to judge (Telegram's, FCM's), as in gitleaks.
_PAIR = re.compile(r"[\w.=-]+:[\w.=-]+")
_SEGMENT = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def words(value: str) -> bool:
    """A value that reads as words: three quarters or more of its letters and digits are common
    words of three letters or more (`AgencyIdentificationCodeContentType`, `token:`), an
    identifier or a label, not a generated key. Taken only for keys and tokens: a password or
    a signing secret is chosen by a person and may be words. A random value of 12 characters or
    more is one at most once in 5,000 (5,000 of each length and alphabet, base62 to hex)."""
    alnum = sum(c.isalnum() for c in value)
    segments = [s for s in _SEGMENT.findall(value) if len(s) >= 3]
    if sum(map(len, segments)) * 4 < alnum * 3:
        return False
    known = sum(len(s) for s in segments if commonness.zipf(s.lower()) > 0)
    return known * 4 >= alnum * 3


def look_alike(secret: str, *, generic: bool = False, name: str = "") -> bool:
    """A provider rule's match that stands for a secret without being one: a documented
    example, a placeholder, a test plan's password; for a generic rule (a value named as a key,
    `name`), anything `credible` would not take from an assignment."""
    if secret in DOCUMENTED_EXAMPLES or example(secret):
        return True
    if _PLACEHOLDER.match(secret) or _TEST_PASSWORD.match(secret):
        return True
    return generic and not credible(secret, quoted=True, name=name)


def credible(value: str, *, quoted: bool = False, url: bool = False, name: str = "") -> bool:
    """Whether a value named as a credential is one, rather than a placeholder, a reference
    to where it lives, a type or a prose word."""
    value = value.strip().rstrip("!?")  # `String!`, `process.env.KEY!` (TypeScript)
    if len(value) < 6 or len(value) > 300:
        return False
    if value in DOCUMENTED_EXAMPLES or _PLACEHOLDER.match(value) or _TEST_PASSWORD.match(value):
        return False
    if example(value) or _YAML_TAG.fullmatch(value):  # all one letter, masked; `!vault`
        return False
    lowered = value.lower().rstrip(".:")  # `token:` is a label
    if lowered in _NOT_VALUES or lowered == name.lower():
        return False
    if name and assigned_kind(name) in _GENERATED:
        if typed(value) or words(value):
            return False  # a key or token is generated; a password or a secret may be chosen
        if _PAIR.fullmatch(value):
            return False  # an id and a secret: the provider rules' (a Telegram bot token)
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


def mixed(value: str) -> bool:
    """A bearer token has digits or mixed case; `Bearer authentication-required` does not."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def assigned_kind(name: str) -> str:
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

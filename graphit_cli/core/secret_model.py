"""A second opinion on the values no rule took: a small linear model that reads a value's shape
and the words around it (core/secrets.py asks it last).

The rules (gitleaks' and graphit's, core/secret_patterns.py) know a credential by a format or a
name they were written for; a person writes a password down in more ways than any rule list
holds (`prod db pw → ...`, `ssh in with svc / ...`, `La contraseña ... es ...`). The model scores
each value-like run of a text: its shape (length, alphabet, entropy, a chosen password's or a
generated key's look, a hash's or an id's) and the words before and after it (`pw`, `token`,
`fingerprint`, `commit`), and the two crossed, so a word counts for the shapes it was seen with.

Its weights are data (data/secret_model.json), trained by scripts/train_secret_model.py on the
corpora written blind (benchmarks/data/blind_secrets/). It only adds: what a rule took stays
taken, and a value the model takes still passes the detector's look-alike and in-the-clear
judgments. Pure: standard library only, weights loaded at the first score.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

from graphit_cli.core import secret_context as context
from graphit_cli.core import secret_lexicon as lexicon
from graphit_cli.core import secret_values as values

# A value-like run: no whitespace, quotes or brackets. `name=value` and `name:value` are split.
_RUN = re.compile(r"[^\s'\"`<>()\[\]{},;|]+")
_NAME = re.compile(r"[A-Za-z_][\w.\-]{0,40}")
_WORDLIKE = re.compile(r"(?:\d{1,4}-)?(?:[A-Z]?[a-z]+[-/])*[A-Z]?[a-z]+")  # and `15-minute`
_WORD = re.compile(r"[^\W\d_]+")


_PEM = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")
_NAME_PARTS = re.compile(r"[_.\-]|(?<=[a-z])(?=[A-Z])")

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_QUOTED_AFTER = re.compile(r"(?:^|[^'\"])[^\s'\"]+=['\"]")  # `name="`, not `"abc="`
_HEX_DUMP = re.compile(r"(?:(?:0x)?[0-9A-Fa-f]{2,8}[ \t]+){3,}(?:0x)?[0-9A-Fa-f]{2,8}")
_SYMBOL = r"[-_.!#$%&*?@+]"
# Words joined by a symbol or a capital (one way to split them: no backtracking), digits.
_NEXT_WORD = rf"(?:{_SYMBOL}?[A-Z][a-z]+|{_SYMBOL}[A-Za-z][a-z]+)"
_CHOSEN = re.compile(
    rf"[A-Za-z][a-z]+{_NEXT_WORD}{{0,3}}{_SYMBOL}?\d{{1,6}}{_SYMBOL}?(?:[A-Za-z][a-z]+)?{_SYMBOL}?"
)
_PHRASE = re.compile(r"[a-z]+(?:-[a-z]+){1,5}\d*[!?]?")
_WORDS_DIGITS = re.compile(rf"[A-Za-z][a-z]+{_NEXT_WORD}+[-_.]?\d{{0,4}}[!@#$%^&*?.]?")
_PATH = re.compile(r"[a-z]{3,}/[a-z]{3,}")
_DOMAIN = re.compile(
    r"[\w.-]+\.(?:com|io|net|org|dev|int|local|internal|cloud|app|co|de|eu)(?::\d+)?"
)
_NUMERIC = re.compile(r"\d[\d.:/-]+")
_IDENT = re.compile(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")
_PREFIX = re.compile(r"([A-Za-z]{2,6})[_\-.]")
_PREFIX4 = re.compile(r"([A-Z]{4})[A-Z0-9]{12,}")
_STANDS_IN = re.compile(
    r"(?i)x{4,}|example|sample|dummy|placeholder|changeme|your|redacted|\*{3,}|\.\.\.|<|\$\{|\{\{"
)
# A value with a host after an `@` or a scheme before one (Freenet's `USK@...`, a public
# identity), a dotted attribute of code (`X25519.secret_length`), a port and path (`:554/...`),
# a place in a file (`src/auth.ts:42`).
_HOST_OR_CODE = re.compile(
    r"^@|^[A-Z]{2,5}@|@[\w-]+\.[\w.-]+|^[A-Za-z_]\w*\.[a-z_]+$|^:\d{1,5}(?:/|$)"
    r"|^[\w./-]+\.[A-Za-z]{1,5}:\d+(?::\d+)?$"
)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_ID_PATH = re.compile(r"(?:[A-Za-z]+/[0-9a-f-]{8,}/?)+")
_BASE58_KEY = re.compile(r"[1-9A-HJ-NP-Za-km-z]{32,44}")
_ON_CHAIN = re.compile(r"(?i)solana|\bspl\b|program|pubkey|\bmint\b|wallet address")
# Words right before a value that make it data, not a credential.
_DATA_WORDS = frozenset(
    """captcha rng random nonce idempotency dedup cache checksum digest fingerprint hash sha1
    sha256 md5 commit trace request correlation kid jwks modulus""".split()  # noqa: SIM905
)
# A file in base64, by its first bytes: a PDF, a PNG, a GIF, a zip, a JPEG.
_FILE_BASE64 = re.compile(r"JVBERi|iVBORw0KGgo|R0lGOD|UEsDB|/9j/")
_DOCUMENTED = re.compile(r"(?i)\bdocumented\b[^\n.]{0,30}$")
_CROSSED = ("p1:", "p2:", "n:", "b:", "lex:")

# What graphit's context rules and gitleaks' generic rule call a find: a value judged by the words
# that name it. The model may overrule these (a provider's format it never does).
CONTEXT_KINDS = frozenset(
    {
        *("generic-api-key", "password", "api-key", "token", "secret", "credential"),
        *("password-in-url", "curl-auth-header", "bearer-token", "curl-auth-user", "basic-auth"),
        "session-cookie",
    }
)

_model: tuple[float, float, float, dict[str, float]] | None = None

# A value shaped as a password counts unless the model is this sure it is none (`blurHash`).
# Forward, rounds 40-55 against round 39's tree: +33 secrets of 3,000, +1 look-alike of 3,253
# (decision 0011).
SHAPE_FLOOR = 0.1
_PASSWORD_CHARS = re.compile(r"[A-Za-z0-9!#$%&*^?~@._+-]{8,64}")
_PASSWORD_SYMBOL = re.compile(r"[!#$%&*^?~]")
_QUERY = re.compile(r"[?&]\w+=")
_OPERAND = re.compile(r"\d+|[A-Za-z]\w*(?:\.[A-Za-z]\w*)*|")
_VARIABLE = re.compile(r"\d+|[a-z]\w*(?:\.[A-Za-z]\w*)*|")
_DOLLAR_WORD = re.compile(r"\$[A-Za-z][a-z]+[A-Za-z_]*\d{3,}")  # no variable's name ends so
_TOKEN_PREFIX = re.compile(r"[a-z]{2,6}_[A-Za-z0-9]{8}")
_VERSION = re.compile(r"[~^]?v?\d+\.\d+")  # `^9.0.2-fix-optional-url-config.0`
_LOINC = re.compile(r"\d{3,6}-\d\^")  # a lab code of HL7: `60015-5^Hemoglobin^LN`
_ANCHOR = re.compile(r"[\w.-]+#(?:[\d.]+|L\d+)")


def candidates(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each run of `text` that could be a value: 6 or more characters,
    not a word of prose, of a shape secrets have (`coarse_shape`: one kind of character, as in
    `github.com` or `--token`, is left out); `name` is the left side of a `name=value` or
    `name:value` run."""
    found = []
    for match in _RUN.finditer(text):
        start, end = match.span()
        token = text[start:end]
        name = ""
        for sep in "=:":
            at = token.find(sep)
            if (
                0 < at < len(token) - 1
                and "//" not in token[at : at + 3]
                and _NAME.fullmatch(token[:at])
            ):
                name, start, token = token[:at], start + at + 1, token[at + 1 :]
                break
        while len(token) > 1 and token[-1] in ".,:;":
            token = token[:-1]
        end = start + len(token)
        if len(token) < 6 or _WORDLIKE.fullmatch(token) or (token.isdigit() and len(token) < 10):
            continue
        if coarse_shape(token) != "other":
            found.append((start, end, name))
    return found


def _bucket(value: float, cuts: tuple[float, ...]) -> str:
    for cut in cuts:
        if value < cut:
            return str(cut)
    return "max"


def coarse_shape(value: str) -> str:
    """What a value looks like, in one word: `uuid`, `hex`, `chosen` (words and digits, as a
    person picks a password), `mixed` (three or more kinds of character) or `alnum2`, long
    (`L`, 24 characters or more) or short (`S`); else `other`."""
    if _UUID.fullmatch(value):
        return "uuid"
    if _HEX.fullmatch(value):
        return "hex"
    if _CHOSEN.fullmatch(value):
        return "chosen"
    size = "L" if len(value) >= 24 else "S"
    lower, upper, digit, other = _classes(value)
    if lower + upper + digit + other >= 3 and len(value) >= 8:
        return "mixed" + size
    if digit and (lower or upper):
        return "alnum2" + size
    return "other"


_LOWER, _UPPER = frozenset("abcdefghijklmnopqrstuvwxyz"), frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")


def _classes(value: str) -> tuple[bool, bool, bool, bool]:
    """Whether `value` holds a lowercase letter, an uppercase one, a digit, anything else."""
    chars = set(value)
    lower, upper, digit = bool(chars & _LOWER), bool(chars & _UPPER), bool(chars & _DIGITS)
    return lower, upper, digit, bool(chars - _LOWER - _UPPER - _DIGITS)


def _shape(value: str) -> list[str]:
    lower, upper, digit, other = _classes(value)
    size = len(value)
    counts = Counter(value).values()
    entropy = -sum(n / size * math.log2(n / size) for n in counts)
    shape = [
        "cls:" + "L" * lower + "U" * upper + "D" * digit + "S" * other,
        "len:" + _bucket(size, (8, 12, 16, 24, 32, 48, 64)),
        "ent:" + _bucket(entropy, (2.5, 3, 3.5, 4, 4.5, 5)),
        "entlen:" + _bucket(entropy / math.log2(max(size, 2)), (0.7, 0.8, 0.9, 0.95)),
        "vow:" + _bucket(sum(map(value.count, "aeiouAEIOU")) / size, (0.1, 0.2, 0.3, 0.4)),
        "dig:" + _bucket(sum(map(value.count, "0123456789")) / size, (0.05, 0.2, 0.4, 0.7, 0.99)),
    ]
    if _HEX.fullmatch(value):
        shape.append("hex:" + _bucket(size, (16, 32, 33, 40, 41, 64, 65)))
    checks = (
        ("uuid", _UUID),
        ("phrase", _PHRASE),
        ("wordsdig", _WORDS_DIGITS),
        ("domain", _DOMAIN),
        ("numeric", _NUMERIC),
        ("ident", _IDENT),
    )
    shape += [feature for feature, pattern in checks if pattern.fullmatch(value)]
    if "/" in value and _PATH.search(value):
        shape.append("path")
    if "@" in value:
        shape.append("at")
    if "://" in value:
        shape.append("url")
    if (prefix := _PREFIX.match(value)) is not None:
        shape.append("pre:" + prefix.group(1).lower())
    if (prefix := _PREFIX4.match(value)) is not None:
        shape.append("pre4:" + prefix.group(1))
    if value.startswith("eyJ"):
        shape.append("jwt")
    if _STANDS_IN.search(value):
        shape.append("placeholder")
    if value.startswith("$"):
        shape.append("dollar")
    return shape


def _words(text: str) -> list[str]:
    """Lowercased words; a run of CJK characters as its two-character pieces."""
    found = []
    for word in _WORD.findall(text.lower()):
        if len(word) > 2 and lexicon.cjk(word):
            found += [word[i : i + 2] for i in range(len(word) - 1)]
        else:
            found.append(word)
    return found


def features(text: str, start: int, end: int, name: str) -> list[str]:
    """The features of the value at `text[start:end]`: its shape, the words before it on its
    line (`b:`, the nearest `p1:` and `p2:`), after it (`a:`), on the line before (`pl:`),
    its name's parts (`n:`), the characters before it (`sep:`), a PEM block it stands in, and
    each nearby word crossed with its coarse shape."""
    value = text[start:end]
    found = _shape(value)
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - 60) : start]
    words_before = _words(before)[-6:]
    found += ["b:" + word for word in set(words_before)]
    found += ["a:" + word for word in set(_words(text[end : end + 30])[:3])]
    if words_before:
        found.append("p1:" + words_before[-1])
    if len(words_before) > 1:
        found.append("p2:" + words_before[-2])
    tail = before[-3:]
    if re.search(r"\w", tail):
        found.append("sep:" + ("sp" if before.endswith(" ") else "w"))
    else:
        found.append("sep:" + tail.strip())
    if name:
        found += ["n:" + part.lower() for part in _NAME_PARTS.split(name) if part]
        found.append("hasname")
    line_before = text[max(0, line_start - 80) : max(0, line_start - 1)]
    found += ["pl:" + word for word in set(_words(line_before)[-5:])]
    lowered = (line_before + "\n" + before).lower()
    found += [f"lex:{kind}" for kind in lexicon.kinds(lowered)]
    coarse = coarse_shape(value)
    found.append("shape:" + coarse)
    header = text.rfind("-----BEGIN ", 0, start)
    pem = _PEM.match(text, header) if header >= 0 else None
    if pem is not None and "-----END" not in text[pem.end() : start]:
        found.append("pem:" + pem.group(1).lower().replace(" ", "_"))
    found += [f"{feature}&{coarse}" for feature in set(found) if feature.startswith(_CROSSED)]
    return found


def _load() -> tuple[float, float, float, dict[str, float]]:
    global _model
    if _model is None:
        # read by path: importlib.resources alone costs ~15 ms to import in a cold process
        raw = json.loads((Path(__file__).parent / "data" / "secret_model.json").read_text())
        _model = (float(raw["bias"]), float(raw["threshold"]), float(raw["veto"]), raw["weights"])
    return _model


def probability(weights: dict[str, float], bias: float, found: list[str]) -> float:
    """The model's probability that a value with these features is a secret."""
    total = bias + sum(weights.get(feature, 0.0) for feature in set(found))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))


def reviewed(
    text: str, spans: list[tuple[int, int, str]], *, free: bool = True
) -> list[tuple[int, int, str]]:
    """The rules' finds in `text` (start, end, kind) as the model sees them: a context rule's
    find whose own value scores under the veto is dropped (`fingerprint: SHA256:...` named as
    a key; not a password's shaped as one); a value over the threshold no find covers is added
    as a `credential`, and so is one shaped as a password the model does not rule out, unless a
    look-alike (core/secret_values.py: a placeholder, an example, a public key). Only those are
    scored: a context find's, and a free one no cheap look proves harmless (none unless `free`)."""
    bias, threshold, veto, weights = _load()
    kept = []
    found = candidates(text)
    for span in spans:
        shaped = span[2] == "password" and password_shaped(text, *span[:2])
        if span[2] in CONTEXT_KINDS and not shaped:
            # the value itself (a URL around it, `wss://...?access_token=...`, is not)
            own = [c for c in found if span[0] - 2 <= c[0] and c[1] <= span[1] + 2]
            scores = [probability(weights, bias, features(text, *c)) for c in own]
            if scores and max(scores) < veto:
                continue
        kept.append(span)
    for start, end, name in found if free else ():
        if any(a < end and start < b for a, b, _ in kept) or _plainly_alike(text, start, end):
            continue
        score = probability(weights, bias, features(text, start, end, name))
        if score <= threshold and not (score > SHAPE_FLOOR and password_shaped(text, start, end)):
            continue
        if not _judged_alike(text, start, end, name):
            kept.append((start, end, "credential"))
    return kept


def password_shaped(text: str, start: int, end: int) -> bool:
    """Whether the value at `text[start:end]` is shaped as a password, generated or chosen,
    whatever names it: 8 to 64 characters, letters, a digit and a symbol (`Maple308$v05I`,
    `DzqxBIiW&hOpfmk2j`, a mainframe's `BW76$KI6`), a whole run of the text (not `4n%Rv06Z@^tD`
    of a blurhash); neither a variable, a crypt hash, a query, a provider's format, an anchor,
    a lab code, a version, a glob nor an expression of code."""
    value = text[start:end]
    if not _PASSWORD_CHARS.fullmatch(value):
        return False
    lower, upper, digit, _ = _classes(value)
    if not _PASSWORD_SYMBOL.search(value) and not ("@" in value and lower and upper and digit):
        return False  # `kCsdD@IxPfeTShjaa81u`, not `root@pve1`
    if value.startswith("$") and not _DOLLAR_WORD.fullmatch(value):
        return False  # a variable, a crypt hash (`$apr1$...`, `$1.a45E...`); not `$Maple5155`
    if not ((lower or upper) and digit) or _QUERY.search(value):
        return False  # `?code=...&state=...`
    if (start and text[start - 1] in "[]{},<") or text[end : end + 1] in ("[", "]", "{", "}"):
        return False  # a piece of a longer run (a blurhash's, a list's), a message's id
    if _TOKEN_PREFIX.match(value):
        return False  # a provider's format (`sgp_...`): a symbol in it is made up
    if len(_PASSWORD_SYMBOL.findall(value)) + value.count("@") > len(value) / 3:
        return False
    if _ANCHOR.fullmatch(value) or _LOINC.match(value):
        return False  # `notes-file#0.0`, `handler.go#L42`; `24331-1^Lipid`
    if _VERSION.match(value) or "*." in value or ".*" in value:
        return False  # a version or a range of them; a glob (`BuildTime.HF*.Linux64`)
    return not _expression(value)


def _expression(value: str) -> bool:
    """Whether `value` is an expression of code, operands and operators: `cosU2*sinL`,
    `f*sinAlpha*`, `b.Lat*math.Pi/180`, `cos2SigmaM+CcosSigma*` (a view without emphasis);
    not `Tiger784*cUDX`, nor a word with a mark after it (`frontdesk207*`), one operand."""
    if "*" not in value and "+" not in value:
        return False
    operands = re.split(r"[-*+/]", value)
    if sum(map(bool, operands)) < 2:
        return False
    if all(map(_VARIABLE.fullmatch, operands)):
        return True
    return len(operands) >= 3 and all(map(_OPERAND.fullmatch, operands))


def _plainly_alike(text: str, start: int, end: int) -> bool:
    """The look-alikes a glance tells (no model, no rule): shown cut, a URL, a host, an
    attribute of code, an integrity hash, an address, an id pair, a path of ids
    (`organizations/<uuid>/apiKeys/<uuid>`)."""
    value = text[start:end]
    if text.startswith(("..", "…", "[", "*", ".<"), end) or "://" in value:
        return True  # shown cut or masked: `ops_eyJzaWdu..[Redacted]`; the URL rule's
    if "*" in value and _expression(value):
        return True  # `b.Lat*math.Pi/180`: code (base64 has no `*`)
    if _HOST_OR_CODE.search(value) or _ADDRESS.fullmatch(value) or _ID_PATH.fullmatch(value):
        return True  # `root@127.0.0.1`, `X25519.secret_length`; an Ethereum address; ids
    if value.endswith("=") and _QUOTED_AFTER.match(text, start - 1 if start else 0):
        return True  # an attribute's name: `y0Accessor="p5"`
    if _HEX.fullmatch(value.removeprefix("0x")) and any(
        m.start() <= start and end <= m.end()
        for m in _HEX_DUMP.finditer(text, max(0, start - 40), end + 40)
    ):
        return True  # a group of a hex dump (`30820122 300D0609 2A864886 ...`)
    if text[start - 1 : start] == "<" and text.startswith(">", end) and _HEX.fullmatch(value):
        return True  # a crash log's binary image uuid: `<A6D44DB7AC0B95C3...>`
    return value.startswith(("sha256-", "sha384-", "sha512-")) or bool(values.PAIR.fullmatch(value))


def _judged_alike(text: str, start: int, end: int, name: str) -> bool:
    """Whether the value at `text[start:end]` is one the rules judge a look-alike whatever
    names it (besides `_plainly_alike`): a placeholder, a reference, a made-up or public key
    (core/secret_values.py `credible`), a Solana address, a value after data's words or
    called documented, or a value the words before call public (`csrf`, `client key`)."""
    value = text[start:end]
    if values.typed(value) or values.json_in_base64(value) or _FILE_BASE64.match(value):
        return True  # made up; an encrypted payload or a cursor (base64 JSON); a file
    if _BASE58_KEY.fullmatch(value) and _ON_CHAIN.search(text):
        return True  # a Solana address or program id: public
    if _DOCUMENTED.search(text, max(0, start - 40), start):
        return True  # `it's the documented test one, Checkout1!`
    if _DATA_WORDS & set(re.findall(r"[a-z0-9]+", text[max(0, start - 40) : start].lower())[-3:]):
        return True  # `captcha seed ...`, `request nonce ...`: a value of data
    if context.data_key_before(text[max(0, start - 40) : start]):
        return True  # `card token ...`, `idempotency key ...`
    if not values.credible(value, quoted=True, name=name or "credential"):
        return True
    return context.public_or_id(text[max(0, start - 60) : start], value)

"""What a value a secret rule found must be to count as a secret, and the look-alikes left alone.

A placeholder, a reference to where a secret lives (a path, `op://`, `settings.DB_PASSWORD`),
a name (`stripe-webhook-secret`), a type or a prose word, a test plan's password, a provider's
documented example, a masked value, a key public by design (`pk_live_`, an anon JWT), a key
typed or made of words, a numeric id and a secret joined by a colon: core/secret_patterns.py's
rules and gitleaks' generic rule ask these before they report a value. Pure: standard library
only, and core/commonness.py's shipped word table (read on the first value `words` weighs).
"""

from __future__ import annotations

import base64
import json
import re

from graphit_cli.core import commonness
from graphit_cli.core.secret_public import DOCUMENTED_EXAMPLES, PUBLIC_NAME, public
from graphit_cli.core.secret_words import PASSWORD_WHOLE, PASSWORD_WORDS

# Values that stand for a secret without being one: placeholders, references, redactions.
_PLACEHOLDER = re.compile(
    r"""^(?:
        <[^<>]*>? | \[[^\[\]]*\]? | \{.* | \\?\$\{[^}]*\}?[^\s]* | \$\(.*\)? |
        \$(?![A-Za-z][a-z]+(?:[A-Za-z_]*\d{3,}|\d+[A-Z][a-z]*\d*)$  # not `$ost1V`, `$Reifen18`
           |[A-Z][a-z]{3,}\d\d$)[A-Za-z_]\w* |
        %\([A-Za-z_]\w*(?:\)s?)? | %[A-Za-z_]\w*% | &[A-Z][A-Z0-9@\#$]{0,7}\.? |
        [xX*•.#_-]{3,} | (?i:x+\d*) | (?i:0+|1234\d*) | __\w+__ | @@\w+@@ |  # a template's
        .*(?i:example|placeholder|changeme|changeit|change[_-]me|your[_-]|redacted|dummy|sample|
              fake|foobar|not[_-]?a[_-]?real|insert[_-]|replace[_-]?me|todo|fixme|secret_here|
              password_here|xxxx|\.\.\.|…|test[-_]?only|[-_]test(?:[-_]0{3,})?$|
              [-_](?:hier|ici|aqu[ií]|here|qui)$).* |
        \((?i:sensitive|known\ after|empty)\b.*
    )$""",
    re.VERBOSE,
)
# The passwords of test plans and tutorials (`Password: Test@123`, `P@ssw0rd!`): a common word
# (a qualifier before it), a few digits or symbols. Public and guessable: they protect nothing.
_TEST_PASSWORD = re.compile(
    r"^(?i:(?:wrong|invalid|bad|incorrect|valid|correct|new|old|my|weak|strong|secure)[_-]?)?"
    r"(?i:pass(?:word)?|p[a@]ssw[o0]rd|test(?:er|ing|user)?|admin(?:istrator)?|demo|guest|"
    r"user|qwerty|letmein|welcome|root|default|abc|secret|hunter|changeit)"
    r"[\W_]{0,2}\d{0,6}[\W_]{0,2}$"
)
# Bare words that follow `password:` in prose or in a type annotation, not credentials.
_NOT_VALUES = frozenset(
    """str string int bool bytes none null nil true false undefined optional required yes no see
    stored kept lives is are in from via the a an none_ set unset empty missing any env environ
    getenv secret secrets password passwords token tokens key keys credential credentials vault
    keychain keyring 1password bitwarden lastpass doppler sops ssm secretsmanager param parameter
    prompt prompted input stdin file literal type hidden masked omitted n/a tbd same default
    """.split()  # noqa: SIM905
)
_WORD = re.compile(r"^[A-Za-z]+$")
_PATH = re.compile(r"^/[\w.-]+/[\w./-]+$")
_WORD_AND_NUMBER = re.compile(r"[A-Z][a-z]{2,}(?!(?:16|32|64|128|256|512)$)\d{2,}")
# settings.DB_PASSWORD, process.env.OPERATOR_KEY_2: a lowercase word, then attributes (not
# words with digits at the end, a password: `tramway.rame44`).
_IDENTIFIER_PATH = re.compile(
    r"^(?![a-z]{3,}(?:\.[a-z]{3,})+\d{1,4}$)"
    r"(?:[A-Za-z_]+|[a-z_$]+(?:\.[A-Za-z_$][\w$]*)*)(?:\.[A-Za-z_]\w*)+$"
)
# A name for what identifies a value without opening anything: `key fingerprint: 01cc...`.
_DIGEST_NAME = re.compile(r"(?i)(?:fingerprint|hash|digest|checksum|sha\d*|md5|keygrip)$")
# A reference to where a secret lives, by its scheme: `https://`, `op://`, `vault://`.
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]{1,20}://")
# A lowercase name that says what it names: `db-password`, `stripe-webhook-secret`.
_NAMED = re.compile(
    r"^[a-z0-9]+(?:[-_][a-z0-9]+)*[-_](?:password|passwd|secret|token|key|credentials?)"
    r"(?:[-_][a-z0-9]+)*$"
)
# An environment variable's or a constant's name: DB_PASSWORD, STRIPE_SECRET_KEY.
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]*)+$")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CALL = re.compile(r"^[A-Za-z_][\w.]*[(\[][\w\"'.=, ]*$")

# jwt.io's sample token, signed with the documented key "your-256-bit-secret".
_DOCUMENTED_SIGNATURES = ("SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",)
# A value shown masked (`hf_***`, `ghp_****abcd`, `••••`): what is left of it is no secret.
_MASKED = re.compile(r"[*•]{3,}")
# A YAML tag before the value (`api_key: !vault |`), not the value.
_YAML_TAG = re.compile(r"!!?[A-Za-z]+")
# A variable and a stand-in (`$FRESHDESK_API_KEY:X`), a systemd specifier's path (`%d/key`).
_VARIABLE_PAIR = re.compile(r"\$\{?[A-Za-z_]\w*\}?:\S{0,3}$|%[a-zA-Z]/")
# An AWS secret access key's shape (40 of base64's characters), which may begin with `/`.
_AWS_SECRET_SHAPE = re.compile(r"(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[A-Za-z0-9/+]{40}")
# Options with numbers: `lifespan=3600`, `keyint=60:min-keyint=60`.
_OPTIONS = re.compile(r"[a-z][\w-]*=\d+(?::[a-z][\w-]*=\d+)*")


def example(token: str) -> bool:
    """A provider's example key: documentation spells them with EXAMPLE, or all one letter."""
    upper = token.upper()
    if "EXAMPLE" in upper or "XXXXXXXX" in upper or "00000000" in token or _AZURITE in token:
        return True
    if token.endswith(_DOCUMENTED_SIGNATURES) or _MASKED.search(token):
        return True
    body = token[-16:]
    return len(set(body)) <= 2


def typed(value: str) -> bool:
    """A value typed by a person, not generated: half or more of its letters and digits are runs
    of three or more consecutive ones (`AbCeFG123`, `sk-ant-api03-abc123xyz-456def789...`). A
    random value of 8 characters or more is one at most once in 2,500 (20,000 of each length)."""
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
# A numeric id and a secret joined by one colon (`<bot id>:<secret>`): a provider's pair (the
# provider rules' to judge, as in gitleaks: Telegram's, FCM's), not one generated token.
PAIR = re.compile(r"\d{1,20}:[\w.=-]+")
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
    """A match that stands for a secret without being one: a documented example, a placeholder,
    a test plan's password, a public key; a generic rule's value `credible` refuses (`name`)."""
    # a URL's host is a tenant's (`uniexample.webhook.office.com`), not documentation's
    path = secret if _DOCS_HOST.match(secret) else _URL_HOST.sub("", secret)
    if secret in DOCUMENTED_EXAMPLES or example(path) or public(secret) or _PLACEHOLDER.match(path):
        return True
    if _TEST_PASSWORD.match(secret) or _VARIABLE_PAIR.match(secret):
        return True
    if generic and _JSON_IN_BASE64.fullmatch(secret) and _decodes_to_json(secret):
        return True  # a cursor or a state (its contents are read as the base64 view)
    return generic and not credible(secret, quoted=True, name=name)


_URL_HOST = re.compile(r"^https?://[^/\s]+")
_DOCS_HOST = re.compile(r"https?://(?:[^/\s]*[.@])?example(?:\.(?:com|net|org))?(?:[:/]|$)")
_ID_NAME = re.compile(r"(?:^|[ _-])(?:ID|id|kid|USER|user|USERNAME|username)$|Id$|User$")
# A page's or a sync's cursor (`$deltatoken`, `nextPageToken`): where a listing resumes.
_PAGING = re.compile(r"(?i)(?:delta|skip|page|next|continuation|cursor|sync)_?token$")
_COLON_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}:){7,}[0-9A-Fa-f]{2}")
# The Azure Storage emulator's account key, published in Microsoft's documentation.
_AZURITE = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tOAJ"
_BASE64_TEXT = re.compile(r"(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
# A value that is itself an assignment (`NEXT_PUBLIC_KEY=...`): the assignment rule's.
_ASSIGNED = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*=|[a-z][a-z0-9]*_[a-z0-9_]*=")
# A command-line flag (`--with-decryption`), not a value.
_FLAG_SHAPE = re.compile(r"--?[a-z][a-z0-9-]*")
# A name and a hash joined: a cache key, an asset, a build (`node-modules-Linux-ce40a58b...`).
_NAME_AND_HASH = re.compile(
    r"(?:[A-Za-z]{2,}[-_.]){2,}[0-9a-f]{16,}|[A-Za-z]{4,}[-_.][0-9a-f]{16,}"
)
# A GPG key's id (8 or 16 hex digits, uppercase) or fingerprint (40); or a number, an address.
KEY_ID = re.compile(r"[0-9A-F]{8}|[0-9A-F]{16}|[0-9A-F]{40}")
_NUMBER_OR_KEY_ID = re.compile(rf"0x[0-9a-fA-F]{{1,40}}|{KEY_ID.pattern}")
_SHORT_PATH = re.compile(r"(?:[\w.-]{1,40}/)+[\w.-]{1,40}")
_RELATIVE_PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)+")
_WP_PASSWORD = re.compile(r"[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5}")
# A passphrase of words (diceware): four to eight lowercase words.
_DICEWARE = re.compile(r"[a-z]{3,9}(?: [a-z]{3,9}){3,7}")
# Google's, Microsoft's and Apple's app passwords: four groups of four lowercase letters.
_APP_PASSWORD = re.compile(r"[a-z]{4}(?: [a-z]{4}){3}|[a-z]{4}(?:-[a-z]{4}){3}")
# A password's hash (bcrypt, argon2, scrypt, pbkdf2, crypt): not the password.
_HASHED = re.compile(
    r"^(?:\w+:)?\$(?:2[abxy]?|argon2(?:id|i|d)|scrypt|pbkdf2[\w-]*|[156]|y|gy|7|apr1)\$|"
    r"^(?:pbkdf2_sha\d+|bcrypt_sha256|argon2|scrypt)\$"
)
# A name and a path (`db-password:/etc/credstore/db-password`), a reference (`@Microsoft.
# KeyVault(...)`), a fixture's value (`test_...`, `mock_...`), a label (`Passwort`).
_REFERENCE = re.compile(
    r"^(?:[\w.-]+:/[\w./-]+|@[A-Za-z][\w.]*\(.*|(?i:test|mock|fake|dummy)[_-].*|"
    r"(?:data|var|local|module)\.[\w.\[\]\"-]+|[a-z]+(?::(?:[a-z_]+|\d+|\{\w+\})){2,}|"
    r"(?i:1?[^\W\d_]*(?:passw|kennwort|contrase)[^\W\d_]*(?:[ ?!.-]+[^\W\d_]*)*))$"
)


_JSON_IN_BASE64 = re.compile(r"eyJ[A-Za-z0-9+/_-]{8,}={0,2}")


def json_in_base64(value: str) -> bool:
    """Base64 (no dots: not a JWT) of a JSON object: a cursor, a state, a Laravel payload."""
    return bool(_JSON_IN_BASE64.fullmatch(value)) and _decodes_to_json(value)


def _decodes_to_json(value: str) -> bool:
    try:
        json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (ValueError, UnicodeDecodeError):
        return False
    return True


def _base64_text(value: str) -> str | None:
    """What a base64 value encodes, when it is printable text (`cGxhY2Vob2xkZXI=`)."""
    if len(value) < 8 or not _BASE64_TEXT.fullmatch(value) or not value.endswith("="):
        return None
    try:
        plain = base64.b64decode(value).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return None
    return plain if plain.isprintable() and len(plain) >= 3 else None


def credible(value: str, *, quoted: bool = False, url: bool = False, name: str = "") -> bool:
    """Whether a value named as a credential is one, rather than a placeholder, a reference
    to where it lives, a type or a prose word."""
    value = value.strip().rstrip("!?")  # `String!`, `process.env.KEY!` (TypeScript)
    if len(value) < 6 or len(value) > 300:
        return False
    if value in DOCUMENTED_EXAMPLES or _PLACEHOLDER.match(value) or _TEST_PASSWORD.match(value):
        return False
    letters = value.replace("_", "")
    if "_" in value and letters.isupper() and letters.isalpha() and not value.isascii():
        return False  # a placeholder in capitals of another script (`ΒΑΛΕ_ΕΔΩ_ΤΟΝ_ΚΩΔΙΚΟ`)
    if _REFERENCE.match(value) or value.startswith(("arn:", "AQICAH")):
        return False  # a reference, a fixture, a label; an ARN, AWS KMS ciphertext
    if example(value) or public(value) or _HASHED.match(value):
        return False  # all one letter, masked, public by design; a password's hash; an ARN
    plain = _base64_text(value)
    if plain is not None:  # a Kubernetes Secret's data: judge what it encodes
        return credible(plain, quoted=True, name=name)
    if _YAML_TAG.fullmatch(value):
        return False  # `!vault`
    lowered = value.lower().rstrip(".:")  # `token:` is a label
    if lowered in _NOT_VALUES or lowered == name.lower() or _DIGEST_NAME.search(name):
        return False
    if name and (PUBLIC_NAME.search(name) or _ID_NAME.search(name) or _PAGING.search(name)):
        return False  # `AUTH_GITHUB_ID=`, `Password ID:`: an id
    if _COLON_HEX.search(value):
        return False  # `keyid:B6:EF:4E:...`: a key's identifier or fingerprint
    if name and assigned_kind(name) in _GENERATED:
        if typed(value) or words(value):
            return False  # a key or token is generated; a password or a secret may be chosen
        if PAIR.fullmatch(value):
            return False  # an id and a secret: the provider rules' (a Telegram bot token)
    if url:
        return True
    if _APP_PASSWORD.fullmatch(value) or (_WP_PASSWORD.fullmatch(value) and mixed(value)):
        return True  # a Google or WordPress application password
    if _DICEWARE.fullmatch(value) and "pass" in name.lower() and quoted:
        return True  # `--passphrase 'amber rung quartz relay torque'`
    if " " in value:  # a quoted sentence ("stored in 1Password"), not a password
        return False
    if _GOOGLE_APP_PASSWORD.fullmatch(value) and not words(value):
        return True  # a Google app password written without its spaces
    if _CALL.search(value) or _ENV_NAME.match(value) or _NAMED.match(value):
        return False  # os.environ["X"], get_token(), BEE_CLIENT_SECRET, stripe-webhook-secret
    if _IDENTIFIER_PATH.match(value) and all(map(_a_name, value.split("."))):
        return False  # settings.DB_PASSWORD, process.env.API_KEY (not `dp.st.prd.hZJJmRYUm...`)
    if value.isdigit() or re.fullmatch(r"\d+(?:\.\d+)?[a-z]{0,3}", value):
        return False  # a count or a duration: token_ttl=3600, password_length: 12
    if _OPTIONS.fullmatch(value) or "<" in value or value.startswith("-RID:"):
        return False  # options (`lifespan=3600`); `shpat_<paste>`; Cosmos DB's continuation
    if _VARIABLE_PAIR.match(value):
        return False  # `$FRESHDESK_API_KEY:X`, `%d/dd_api_key`: where the value comes from
    if not quoted and (_SNAKE.match(value) or value.endswith(":") or value.startswith(":")):
        return False  # password=user_password (a variable), `token:` opening a list, `Password::`
    if not quoted and _WORD.match(value) and len(value) < 12 and words(value):
        return False  # a type: `stripe_secret_key: SecretStr`
    if not quoted and _WORD.match(value) and (value.islower() or value.istitle()):
        return len(value) >= 10 and not value.islower()  # prose: `password: Required`
    if value.startswith(("~/", "./", "file:", "@/", "@-", "vault:")) or _SCHEME.match(value):
        return False  # a path or an address: where the secret lives (`op://vault/item`)
    if (
        _PATH.match(value)
        and not any(_GENERATED_RUN.fullmatch(p) for p in value.split("/"))
        and not _AWS_SECRET_SHAPE.fullmatch(value)
    ):
        return False  # `/etc/app/secret` (not base64 that begins with `/`: `/bNLNEHBa59b4...`)
    return not value.endswith((".env", ".json", ".yaml", ".yml", ".pem", ".key", ".txt"))


def _a_name(segment: str) -> bool:
    """A segment of an attribute path that reads as a name: `settings`, `DB_PASSWORD`, `apiKey`
    (not `OcbHpRgiw` or a generated run)."""
    letters = segment.strip("_$")
    if len(letters) > 24:
        return False
    digits = sum(c.isdigit() for c in letters)
    if (len(letters) >= 12 and digits >= 2) or (digits >= 3 and not letters.isdigit()):
        return False  # `l9TcN1m8wXI9HTMwR6fEhWP5`, `maple4720`
    if _WORD_AND_NUMBER.fullmatch(letters):  # `Pony40` (`biscuit.Pony40`), not `Int32`
        return False
    if not letters or letters.islower() or letters.isupper():
        return True
    pieces = _SEGMENT.findall(letters)
    known = sum(len(p) for p in pieces if commonness.zipf(p.lower()) > 0)
    return known * 4 >= sum(c.isalpha() for c in letters) * 3


_HEX = re.compile(r"[0-9a-f]+")
_CAPITALISED = re.compile(r"[A-Z][a-z]+")
_GOOGLE_APP_PASSWORD = re.compile(r"[a-z]{16}")
_ERROR_CODE = re.compile(r"[A-Z]{1,10}\d{3,}")  # `AADSTS7000215`; a pass's id, `P63211341`
_BASE32 = re.compile(r"[A-Z2-7]{24,}=*|[A-Za-z2-7]{4}(?: [A-Za-z2-7]{4}){3,7}")
# A passphrase of four or more words joined by dashes (`pylon-quartz-ember-sorrel-fjord`).
_PASSPHRASE = re.compile(r"[a-z]{3,}(?:-[a-z]{3,}){3,}\d{0,4}")
# A run no path segment is: 16 or more letters and digits, both cases and a digit among them.
_GENERATED_RUN = re.compile(r"(?=[^/]*[a-z])(?=[^/]*[A-Z])(?=[^/]*\d)[A-Za-z0-9+=]{16,}")


def random_looking(value: str) -> bool:
    """A value named in prose that was generated, not written: 10 characters or more mixing two
    of lowercase, uppercase and digits, neither words nor typed, not a commit, and
    `credible` (no placeholder, path or reference)."""
    if len(value) < 10 or words(value) or typed(value) or _FLAG_SHAPE.fullmatch(value):
        return False
    if _CAPITALISED.fullmatch(value):
        return False  # one word, capitalised (`Integrations`)
    if _BASE32.fullmatch(value) and not words(value):  # base32, as TOTP seeds are
        return credible(value.replace(" ", ""), quoted=True)
    if any(c >= "\u3000" for c in value):
        return False
    if _ASSIGNED.match(value) or (
        _SHORT_PATH.fullmatch(value) and not _AWS_SECRET_SHAPE.fullmatch(value)
    ):
        return False  # `uploads/2024/abc123.png` (not base64, whose runs are longer)
    if _NUMBER_OR_KEY_ID.fullmatch(value) or _NAME_AND_HASH.fullmatch(value):
        return (
            False  # a number, an address; a cache key or an asset (`node-modules-Linux-<sha256>`)
        )
    if all(_a_word(part) for part in re.split(r"[-_./:]+", value) if part):
        return False  # a header's or a class's name (`X-XSS-Protection`, `Referrer-Policy`)
    kinds = (any(c.islower() for c in value), any(c.isupper() for c in value))
    if sum((*kinds, any(c.isdigit() for c in value))) < 2:
        return False
    return credible(value, quoted=True)


def chosen_password(value: str) -> bool:
    """A password named in prose: 8 characters or more, letters with digits or symbols, none of
    a test plan's, and `credible` (`Cobalt.maple4720`, not `required` or `P@ssw0rd`)."""
    if len(value) < 8 or not any(c.isalpha() for c in value) or _RELATIVE_PATH.fullmatch(value):
        return False
    if _FLAG_SHAPE.fullmatch(value) or _ASSIGNED.match(value) or value.startswith("-----"):
        return False  # a flag (`--with-decryption`), an assignment, a PEM block's armour
    if _APP_PASSWORD.fullmatch(value) or _WP_PASSWORD.fullmatch(value):
        return credible(value, quoted=True, name="password")
    if any(c >= "\u3000" for c in value):
        return False  # a phrase in Chinese or Japanese, not a password
    if _PASSPHRASE.fullmatch(value) or (_GOOGLE_APP_PASSWORD.fullmatch(value) and not words(value)):
        return credible(value, quoted=True, name="password")
    if _ERROR_CODE.fullmatch(value):
        return False  # `AADSTS7000215`: an error's code
    symbols = sum(not c.isalnum() for c in value)
    mixed_case = not value.islower() and not value.isupper()
    chosen = symbols >= 2 or (
        len(value) >= 12 and mixed_case and value.isascii() and not words(value)
    )
    if not any(c.isdigit() for c in value) and (not chosen or value.islower()):
        return False  # a scope or a word (`read:packages`); a chosen password has a digit
    if not any(c.isdigit() or not c.isalnum() for c in value) and not chosen:
        return False  # letters alone: a word, unless long, of both cases and no words
    return credible(value, quoted=True, name="password")


def _a_word(part: str) -> bool:
    """A part of a name: an acronym (`XSS`) or a word (`Policy`)."""
    return part.isalpha() and (
        (part.isupper() and len(part) <= 5) or commonness.zipf(part.lower()) > 0
    )


def mixed(value: str) -> bool:
    """A bearer token has digits or mixed case; `Bearer authentication-required` does not."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def assigned_kind(name: str) -> str:
    lowered = name.lower().replace("-", "_")
    if lowered in PASSWORD_WHOLE or any(word in lowered for word in PASSWORD_WORDS):
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

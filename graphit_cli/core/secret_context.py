"""What the words around a value say of it: the secret detector's judgement of a context rule's
find (core/secret_patterns.py ROLES) and of what surrounds any find.

A credential named in prose counts when its value looks generated, or chosen for a password;
words between the name and the value can say it is something else (`key id:`, `cache key`,
`public key`); a value under `encryptedData:` is ciphertext; a Firebase config's key is
public by design; a Basic credential is base64 of `user:password`; words chosen as a secret
are core/secret_phrases.py's to judge. What a value is on its own (a placeholder, a reference,
a name, a hash) is core/secret_values.py. Pure: standard library only.
"""

from __future__ import annotations

import base64
import re

from graphit_cli.core.secret_phrases import passphrase_words, seed_phrase, word_password
from graphit_cli.core.secret_public import (
    DOCUMENTED_EXAMPLES,
    PUBLIC_AFTER,
    PUBLIC_NAME,
    public,
)
from graphit_cli.core.secret_values import (
    KEY_ID,
    assigned_kind,
    chosen_password,
    credible,
    mixed,
    random_looking,
)
from graphit_cli.core.secret_words import NEGATIONS, typed_code

# A Firebase web config, whose apiKey its clients ship.
FIREBASE_CONFIG = re.compile(
    r"authDomain|firebaseapp\.com|(?i:firebase)|google-services\.json|GoogleService-Info\.plist"
)
# A name whose value says where a secret is (`existingSecret`, `secretName`, `secretRef`).
REFERENCE_NAME = re.compile(r"(?i)(?:^|[._])existing|secret[_-]?(?:name|ref)$")
# A word that denies the name after it (`no secret needed`, `(bukan secret)`).
_DENIED = re.compile(r"(?i)(?<!\w)(?:" + NEGATIONS + r")\s+$")
# A uuid: an id, a trace (an idempotency key, a session's id in a log).
UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
# Words between a credential's name and a value that say the value is something else.
_LABELS = re.compile(
    r"(?i)(?:\b|_)(?:ids?|fingerprint|hash|digest|checksum|sha\d*|md5|commit|revision|fix|fixed|"
    r"merged?|version|name|arn|alias|length|size|format|prefix|header|type|public|sid|guid|"
    r"uuid|serial|thumbprint|device|kid|"
    # a reference, an identifier, a header, in the writers' languages
    r"reference|referencia|référence|riferimento|referenz|αναφοράς|αναγνωριστικό|azonosító|"
    r"fejléc\w*|identifi\w*|kennung|tunniste\w*|identyfikator\w*|identifikátor\w*|kitambulisho|"
    r"kimlik\w*|идентификатор\w*|ідентифікатор\w*|מזהה|معرف|شناسه|識別子|标识|식별자)\b"
)
# A hash of what follows: `sha256 of the key`, `the digest of this token`.
_DIGEST_OF = re.compile(
    r"(?i)\b(?:sha-?\d*|md5|hash(?:ed)?|digest|checksum)\s+of\s+(?:the\s+|an?\s+|this\s+)?$"
)
# What a word in an identifier before `_key` or `_token` makes of it: a key of data.
_DATA_KEY_PARTS = frozenset(
    """idempotency dedup dedupe deduplication cache sort partition routing lookup device
    surrogate csrf xsrf i18n translation hotkey file""".split()  # noqa: SIM905
)
# A digest named before a hex value: `checksum`, `sha256`, `hash`.
_HEX_VALUE = re.compile(r"[0-9a-f]{32,128}|[0-9A-F]{32,128}")
_DIGEST_NEAR = re.compile(
    r"(?i)(?:\b|_)(?:checksum|sha-?(?:1|256|384|512)|md5|digest|hash|iv|nonce|scrypt|kdf\w*|"
    r"thumbprint|fingerprint|challenge)\b"
)
# An aside in parentheses.
_ASIDE = re.compile(r"\([^()\n]*\)")
# Where the next of several fields begins: `, name=` or `; name:`.
_FIELDS = re.compile(r"[,;&]\s*(?=[\"']?[\w.-]+[\"']?\s*[=:])|\s-d\s")
# What begins a paging token's name (`$deltatoken`, `next_page_token`).
_PAGING_PREFIX = re.compile(r"(?i)(?:delta|skip|page|next|continuation|cursor|sync)[_-]?$")
# A value with no prefix of its own: hex, or letters and digits only.
_BARE = re.compile(r"[0-9a-fA-F]+|[A-Za-z0-9]+")
# A namespaced key (`session:447657:ios`, `user:{id}:refresh`): a cache's or a store's.
_NAMESPACED = re.compile(r"[a-z]+(?::(?:[a-z_]+|\d+|\{\w+\})){2,}")
# A type in code, its package's name and its own: `ed25519.PrivateKey`, `rsa.PublicKey`.
_QUALIFIED_TYPE = re.compile(r"[a-z][a-z0-9_]*\.(?:[A-Z][a-z]+){2,}")
# What a word before `key` or `token` makes of it: no credential.
_NOT_CREDENTIALS = frozenset(
    """cache idempotency sort partition primary foreign composite public search-only search site
    gpg pgp ssh host routing shard lookup dedup dedupe hotkey file s3 object storage redis i18n
    translation message map dict row column group sha1 sha256 sha512 md5 hash node captcha random
    rng device surrogate bucket kms deduplication tokenization tokenisation natural business
    card wrapped encrypted response flag consumer record""".split()  # noqa: SIM905
)
# An account's primary or secondary key (Azure Cosmos DB, Storage, IoT Hub): base64 of 32 or 64
# bytes, padded; a database's primary key is never one.
_ACCOUNT_KEY = re.compile(r"[A-Za-z0-9+/]{42,86}={1,2}")
_PRIMARY = re.compile(r"(?i)\b(?:primary|secondary)\s*$")
_NOT_A_CREDENTIAL = re.compile(
    r"(?i)\b(?:cache|idempotency|sort|partition|primary|foreign|file)[ _-]?key\b"
)
# What a whole line says of a key in it: a public widget's config, a public variable.
_PUBLIC_CONTEXT = re.compile(r"(?i)docsearch|csrf|(?:^|[^a-z])public_")
# A line that configures a widget a browser runs, whose key is public by design.
_PUBLIC_WIDGET = re.compile(r"(?i)docsearch|ghostcontentapi|mux\.monitor")
# On a chain, what everyone sees: an address, a compressed public key (secp256k1).
_ON_CHAIN_PUBLIC = re.compile(r"0x[0-9a-fA-F]{40}|(?:0x)?0[23](?:[0-9a-f]{64}|[0-9A-F]{64})")
_RUN_AT = re.compile(r"[0-9A-Za-z]+")
_KEY_PREFIXES = frozenset({"nodekey", "mkey", "discokey", "pubkey", "key", "sha256", "md5", "sha1"})
_HCAPTCHA_SECRET = re.compile(r"0x[0-9a-fA-F]{40}")
# A credential's own field in a line of several: `client_secret=`.
_CREDENTIAL_FIELD = re.compile(r"(?i)[\w.-]*(?:secret|password|passwd|token|key)[\w.-]*=?$")
# Prose between a credential's name and ` = `: `pre-shared key for the plant = ...`, two words
# or more, no call (`key for completion(model, prompt) = ...`).
_PROSE_BEFORE_EQUALS = re.compile(r"^(?![^\n]*\w\()[^=\n]*?[ \t]\w[\w'-]*[ \t][^=\n]*=\s*$")
# An hCaptcha secret has an address's shape: `secret ...: 0x` + 40 hex.
_SECRET_BEFORE = re.compile(r"(?i)\bsecret\b[^\n]*$")
_TEMPLATE = re.compile(r"\{\{[^{}]*$")
# What says a value is encrypted: kubeseal's `encryptedData`, SOPS, Ansible Vault.
_CIPHERTEXT = re.compile(
    r"(?i)encrypted_?data|sealedsecret|\bENC\[|\$ANSIBLE_VAULT|sops:|_ENC(?:RYPTED)?\s*[=:]\s*\S*$|"
    r"ciphertext|kubeseal|\bkms\b[^\n]{0,30}\bencrypt"
)


def in_the_clear(text: str, start: int) -> bool:
    """Whether a secret found at `start` is in fact public or encrypted: a Firebase config's
    `AIza` key; a value under `encryptedData:`, in a SealedSecret, SOPS or Ansible Vault."""
    if text.startswith("AIza", start) and (
        FIREBASE_CONFIG.search(text) or "maps/api/js" in text[max(0, start - 100) : start]
    ):
        return True  # a Firebase config's key; a Maps JavaScript key in a page, by design
    run = _RUN_AT.match(text, _run_start(text, start))
    if (
        run is not None
        and _ON_CHAIN_PUBLIC.fullmatch(run.group(0))
        and not _SECRET_BEFORE.search(text, max(0, start - 60), start)
    ):
        return True  # a contract's or a wallet's address, a public key: on chain for all
    if "devstoreaccount1" in text[max(0, start - 200) : start + 100]:
        return True  # the storage emulator's account, whose key is the same everywhere
    if _TEMPLATE.search(text, max(0, start - 200), start) and "}}" in text[start : start + 200]:
        return True  # inside a `{{ ... }}` template: a lookup, not a value
    return bool(_CIPHERTEXT.search(text, max(0, start - 200), start))


# What a hex value after a key's name is when it is no key: a chain's data, a key's id.
_NOT_KEY_BETWEEN = re.compile(
    r"(?i)\b(?:tx|txn|transaction|hash|block|slot|topic|address|pub(?:lic)?[ _-]?key|salt|"
    r"sha\d*|digest|image|ids?|kid|pssh|iv|fingerprint)\b|@"
)


def _run_start(text: str, start: int) -> int:
    """Where the run of letters and digits around `start` begins."""
    while start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
        start -= 1
    return start


def public_or_id(before: str, value: str, *, exact: bool = False) -> bool:
    """A generic rule's value that its name calls public (`public key of the laptop:`,
    `data-sitekey=`), or an object's id joined to its name (`acme-api:<uuid>`). A provider's
    rule (`exact`) holds a value the words before call public (`search-only API key =`) only
    when the value itself has no prefix of its own (hex, a bare run)."""
    line = before.rsplit("\n", 1)[-1]
    if exact:
        return bool(_BARE.fullmatch(value)) and bool(PUBLIC_NAME.search(line))
    if _HEX_VALUE.fullmatch(value) and _DIGEST_NEAR.search(line[-60:]):
        return True  # `checksum for tokenizer.json: <sha256>`: a digest
    field = _FIELDS.split(line)[-1]  # not `public_key='...', private_key=`
    pairs = field.split()
    if len(pairs) > 1 and _CREDENTIAL_FIELD.match(pairs[-1]) and any("=" in p for p in pairs[:-1]):
        field = pairs[-1]  # not `client_id=... (public) client_secret=`: another field's words
    elif len(pairs) > 1 and "=" in pairs[-2] and "=" not in pairs[-1]:
        field = pairs[-1]  # not `client_id=... client_secret=`: the field before is another
    if PUBLIC_NAME.search(field) or _NOT_A_CREDENTIAL.search(field) or _PUBLIC_WIDGET.search(line):
        return True
    return line.endswith(":") and not line[-2:-1].isspace() and bool(UUID.fullmatch(value))


def names_a_key_of_data(name: str) -> bool:
    """Whether a word of an identifier before its credential-like end says it names a key of
    data, not a credential: `insert_deduplication_token`, `cache_key`, `routing_key`."""
    if _PAGING_PREFIX.search(name):
        return True  # `$deltatoken=`, `nextPageToken:`: where a listing resumes
    return bool(_DATA_KEY_PARTS & set(re.split(r"[_.-]", name.lower())))


# A label's word and a genitive before a name (`Kitambulisho cha ufunguo`, `id of the key`).
_LABEL_OF = re.compile(
    _LABELS.pattern + r"\s+(?:of|cha|ya|wa|de|del|de la|du|di|della|der|des|do|da|van|av|af|z|ze)"
    r"\s+(?:the\s+|la\s+|le\s+|el\s+|l')?$"
)


def names_no_secret(label: str, before: str = "") -> bool:
    """Whether the words around a credential's name say its value is something else: `key
    id:`, `key fingerprint:`, `token format:`, `cache key`, `idempotency key`, `public key`."""
    label = _ASIDE.sub("", label)  # `(the key id is in the sheet)` says nothing of the value
    after_name = re.split(r"[\s(]", label.strip(), maxsplit=1)
    if _LABELS.search(after_name[1] if len(after_name) > 1 else ""):
        return True
    if _DIGEST_OF.search(before) or _LABEL_OF.search(before):
        return True  # `sha256 of the key:`: a hash of it
    word = re.findall(r"[A-Za-z0-9-]+", before[-30:])
    last = word[-1].lower().strip("-") if word else ""
    return last in _NOT_CREDENTIALS or last.endswith("cache")  # `IDistributedCache key`


# Words that make a name a credential's whatever else it holds (`SECRET_DEVICE_KEY`).
_CREDENTIAL_WORDS = frozenset(
    {"secret", "private", "api", "auth", "access", "master", "signing", "encryption", "client"}
    | {"admin"}
)


def data_key_before(before: str) -> bool:
    """Whether the words right before a value name a key or a token of data (`card token`,
    `idempotency key`): no credential, whatever its shape."""
    words = re.findall(r"[A-Za-z0-9-]+", before.rsplit("\n", 1)[-1][-40:].lower())
    return len(words) >= 2 and words[-1] in ("key", "token") and words[-2] in _NOT_CREDENTIALS


_MAC = re.compile(r"(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}")
_FILE_LABEL = re.compile(r"(?i)[ \t]+(?:file|path|database|folder)[ \t]*:")


def named_value(match: re.Match[str], kind: str, text: str) -> str | None:
    """The kind of the value a prose or cookie rule found, or None when the words around it
    say it is something else or it does not look like one (a password chosen, a key
    generated)."""
    value, name = match["value"], match.groupdict().get("name") or ""
    if text.startswith(("..", "…", "[", "*", ".<"), match.end("value")):
        return (
            None  # shown cut or masked: `ops_eyJzaWdu..[Redacted]`, `ghp_abc…`, `eyJ...<payload>`
        )
    if _DENIED.search(text[max(0, match.start() - 16) : match.start()]):
        return None  # `no secret needed for native apps: <client id>`, `(bukan secret):`
    if _MAC.fullmatch(value) or _FILE_LABEL.match(match.groupdict().get("label") or ""):
        return None  # a device's MAC (`ağ anahtarı MAC: ...`); `KeePass file: sha256sum ...`
    label = match.group(0)[: match.start("value") - match.start()]
    before = text[max(0, match.start() - 30) : match.start()]
    said_with = match.groupdict().get("label") or ""
    if re.search(r"[ \t]=\s*$", said_with) and not _PROSE_BEFORE_EQUALS.search(said_with):
        return None  # `password = providers.get(...)`: code, the assignment rule's to judge
    # what a name is said to be is said in its own field (not `public_key ..., private_key ...`)
    field = re.split(r"[,;]\s*|\.\s+", before.rsplit("\n", 1)[-1])[-1]  # its own clause
    parts = set(re.findall(r"[a-z0-9]+", name.lower())[:-1])
    if parts & _NOT_CREDENTIALS and not parts & _CREDENTIAL_WORDS:
        return None  # `idempotency_key: ...`, `card_token in ...`: a key of data
    # the word before says what a `key` or a `token` is (`redis key`); not what a password is
    keyed = assigned_kind(name) != "password" and name.lower() != "psk"
    if (
        names_no_secret(label, before if keyed else "")
        and not (_ACCOUNT_KEY.fullmatch(value) and _PRIMARY.search(before))
        and "subscription" not in (before + label).lower()  # an API subscription's primary key
    ) or PUBLIC_NAME.search(field + label):
        return None
    line = text[max(0, match.start() - 80) : match.start()].rsplit("\n", 1)[-1]
    if _PUBLIC_CONTEXT.search(
        line if field else line.replace("public_", "")
    ) or _PUBLIC_WIDGET.search(line):
        return None  # `docsearch({ ... apiKey:`, `NEXT_PUBLIC_...`
    if PUBLIC_AFTER.match(text, match.end("value")):
        return None  # `content key ... is fine in the frontend bundle per Ghost docs`
    if _NAMESPACED.fullmatch(value) or KEY_ID.fullmatch(value) or _QUALIFIED_TYPE.fullmatch(value):
        return None  # a cache's key (`session:447657:ios`); a GPG key's id; a type in code
    if _HEX_VALUE.fullmatch(value) and _DIGEST_NEAR.search(line + label):
        return None  # `token_sha256 for the CI token is <hex>`: its hash; a challenge
    if kind == "session-cookie":  # a session's id in a trace is a uuid, not its cookie
        return None if UUID.fullmatch(value) or public(value) or not random_looking(value) else kind
    said = "password" if re.match(r"(?i)log|sign", name) else assigned_kind(name)
    if re.match(r"(?i)\s*(?:pass(?:word|phrase)|pw)\b", match.groupdict().get("label") or ""):
        said = "password"  # `CA key passphrase (...): ...`
    if said == "password":
        return said if chosen_password(value) else None
    if _HCAPTCHA_SECRET.fullmatch(value) and "secret" in (name + label).lower():
        return said  # hCaptcha's secret has an address's shape: `0x` and 40 hex
    return said if random_looking(value) else None


def judged(role: str, match: re.Match[str], kind: str, text: str) -> str | None:
    """The kind of what a context rule found (core/secret_patterns.py ROLES), or None when
    it is none: a placeholder, a reference, a default, ciphertext, words."""
    if role == "whole":
        return kind
    value = match["value"]  # ciphertext and templates around it: `in_the_clear`, for every find
    if role == "named":
        return named_value(match, kind, text)
    if role == "pin":  # a PIN, a door's or a safe's code: not one typed (`1234`, `0000`)
        digits = value.rstrip("#*").replace("-", "")
        if not typed_code(digits) or digits in DOCUMENTED_EXAMPLES:
            return None
        return kind
    if role == "printed":  # what a command printed: generated, or chosen for a password
        return kind if random_looking(value) or chosen_password(value) else None
    if role == "user-pair":  # `admin:...`, not `nodekey:...` or `KCndAtd0BH7k/Fg0a4...`
        user = match["user"]
        if user.lower() in _KEY_PREFIXES or random_looking(user):
            return None
        return kind if chosen_password(value) or random_looking(value) else None
    if role == "key-near":  # not a transaction's, a block's, a public key's or a key id's hex
        line_before = text[max(0, match.start() - 40) : match.start()].rsplit("\n", 1)[-1]
        if value in DOCUMENTED_EXAMPLES:
            return None  # Google Authenticator's `JBSWY3DPEHPK3PXP`
        return None if _NOT_KEY_BETWEEN.search(line_before + match["between"]) else kind
    if role == "phrase":  # words chosen as a passphrase, not a sentence or a policy
        return kind if passphrase_words(value) else None
    if role == "word-password":  # plain words chosen as a password, not a clause of prose
        return kind if word_password(value) else None
    if role == "seed":
        return kind if seed_phrase(value) else None
    if role == "pem64":  # base64 whose header decodes to a PEM private key's
        head = value[: min(64, len(value) // 4 * 4)]  # whole groups: no padding to add
        try:
            return kind if b"PRIVATE KEY" in base64.b64decode(head) else None
        except ValueError:
            return None
    if role == "as-is":  # its name and shape are enough (a uuid after `SecretID:`)
        return None if value.lower() in DOCUMENTED_EXAMPLES else kind
    if role == "login64":  # base64 of a password, or of `\0user\0password` (SMTP AUTH PLAIN)
        try:
            plain = base64.b64decode(value + "=" * (-len(value) % 4)).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        password = plain.split("\0")[-1]
        return kind if password.isprintable() and credible(password, quoted=True) else None
    if role == "basic":  # base64 of `user:password`
        try:
            plain = base64.b64decode(value + "=" * (-len(value) % 4)).decode()
        except (ValueError, UnicodeDecodeError):
            return None
        _user, colon, password = plain.partition(":")
        return kind if colon and plain.isprintable() and credible(password, quoted=True) else None
    if role == "url":
        if value == match["user"]:
            return None  # `postgres:postgres@localhost`, a default
        return kind if credible(value, url=True) else None
    if role == "bearer":  # not a `device token`, a `dedup token`
        before = text[max(0, match.start() - 30) : match.start()].rsplit("\n", 1)[-1]
        if names_no_secret("", before):  # the line's own words (not `purge_cache\n> Auth...`)
            return None
        return kind if credible(value) and mixed(value) else None
    name = match.groupdict().get("name")
    said = assigned_kind(name) if name else kind
    if role == "chosen":  # a password after its user: chosen, or generated for them
        return said if chosen_password(value) or random_looking(value) else None
    return said if credible(value, quoted=True, name=name or kind) else None


def random_key(value: str) -> bool:
    """A value assigned to a bare `key` that is one: generated with digits in it (not a
    header's name), not a uuid (an idempotency key)."""
    digits = sum(c.isdigit() for c in value)
    return digits >= 2 and random_looking(value) and not UUID.fullmatch(value)

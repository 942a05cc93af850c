"""What wakes the secret detector (core/secrets.py): whether a text could hold a secret at all
(`worth_checking`), and where the literals that wake its rules are in a text (`literals_in`).

The pre-check is a few small patterns compiled at import: a token that is not a word of prose,
a credential's name before an assignment, a URL with a password, a command that takes one, or
something hiding a token (core/hiding.py). A text without any of them is answered without
loading gitleaks' rules (core/secret_rules.py). The literals (graphit's and gitleaks'
keywords) are found one by one in a process's first short texts and by one trie-shaped
pattern after that. Pure: standard library only; the rules load when the literals are first
looked for, so the pre-check alone (the prompt hook's) imports nothing of the detector.
"""

from __future__ import annotations

import re

from graphit_cli.core.secret_words import (
    APP_GROUPS,
    CODE_NAME,
    CODE_WORD,
    CODE_WORD_UNSPACED,
    FOUR_DIGITS,
    KEY_NAMES,
    PASSWORD_NAMES,
    TYPE_WORD,
    names_mail,
)

# The invisible format characters that hide a token (zero-width space, joiners, soft hyphen,
# byte-order mark, direction marks): core/hiding.py takes them out. Named here, where the
# prompt hook's pre-check reads them without loading the detector.
FORMAT_CHARACTERS = "\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
# What hides a token (core/hiding.py): an invisible format character, percent-encoding.
_HIDDEN = re.compile(rf"[{FORMAT_CHARACTERS}]|%[0-9A-Fa-f]{{2}}")
# Emphasis and code marks, which hiding.py takes out from between two visible characters.
_MARKS = str.maketrans("", "", "*`~")
# A run of token characters as long as the shortest secret a rule takes without a name
# before it; and words of prose (`self-care`, `artists/bands`; a sentence may end them),
# which no rule takes alone.
_RUN = re.compile(r"[A-Za-z0-9+/=_.~!#$%&*?^@À-ÖØ-öø-ž-]{8,}")  # a chosen password's symbols too
# A run with a letter, a digit and a mark (`*`, `~`), which the marks taken out would cut under
# 8 characters: a password's shape (`Blue134*`).
_PASSWORD_RUN = re.compile(r"(?=.*[A-Za-z])(?=.*\d)(?=.*[*~]).{8,}")
# An e-mail address: its parts are runs of their own.
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+\.?")
# (Latin letters with accents too: `Größenänderung`, `zabezpieczeń`, `başarıyla`)
_WORDLIKE = re.compile(r"(?:[A-ZÀ-ÖØ-Þ]?[a-zß-öø-ÿā-ž]+[-/])*[A-ZÀ-ÖØ-Þ]?[a-zß-öø-ÿā-ž]+[.-]*")
# Where a value is secret because of what names it or where it stands: a credential's name
# (gitleaks' generic keywords and graphit's assignment names) before an assignment, a URL
# with a password, a private key's header, the commands that take a password, an .npmrc.
_CONTEXT = re.compile(
    r"(?i:pass|pwd|secret|token|key|api|auth|cred|access|private|session|cookie|bearer|basic)"
    r"[\w.-]{0,25}[\s'\"]{0,3}(?:[=:>,|]|\?=)"
    r"|://[^\s/@]*:[^\s@]*@"
    r"|(?i:private key|:_|\bcurl\b|\blogin\b|\bmysql|\bsshpass\b|\s-p|--pass|bearer\s)"
    r"|(?i:(?<![a-z])(?:seed|mnemonic|recovery|backup|2fa|mfa|password|passwort|passphrase|"
    r"phrase|words)(?![a-z])[^\n]{0,100}?[:=\n])"
    r"|(?i:pass(?:word|wort|phrase)|mot de passe|contrase[ñn]a|senha|wachtwoord|hasło|密码|助记词|"
    r"パスワード|mật khẩu|парол|şifre|parola|비밀번호|klucz|sleutel|chiave|ключ)"
    r"[^\n]{0,80}?(?:[:=]|\s(?:is|ist|est|es|é|è|là|era|war|was)\s|是|は)"
    r"|(?i:requirepass|masterauth|add-authtoken|\bINSERT INTO\b|\bpw\b|komponente|komponens)"
    r"|(?i:\btotp\b|setup key|unlocks with|hik-?connect|ezviz|\bbiss\b)"
    r"|(?i:\bcomp(?:onent)?[ \t_-]*(?:\d|[a-c]\b))"  # an HSM key's component (written grouped)
    r"|\[\s*(?:\d{1,3}\s*,\s*){31}"  # a key as a JSON array of bytes (a Solana keypair)
    r"|(?i:\bpass(?:word)?[ \t]+)(?=\S*[\d#!$%^&*@])\S{8}"
    # a PIN or a code that opens a door, a safe, a voicemail box (core/secret_patterns.py PIN)
    r"|(?i:\b(?:pin|nip|puk[12]?|passcode|host key|lockbox|combination|combo|voicemail|(?:door|"
    r"keypad|alarm|disarm|entry|entrance|master user|safe|admin|access) code)\b)[^\n]{0,80}?\d{4}"
)
# Digits after a password's or a code's name; an app password where a mail account is named
# (core/secret_codes.py). Each is looked for only when six digits or an account's words are
# there: prose is full of four-letter words.
_SIX_DIGITS = re.compile(r"[0-9][0-9](?:[0-9][0-9][0-9][0-9]|[- ][0-9][0-9][- ][0-9][0-9])")
_CODE_DIGITS = re.compile(
    rf"(?i:\b(?:{CODE_NAME})\b)(?:[^\n\d]|\d+(?:st|nd|rd|th|º|ª)\b){{0,40}}?"
    r"\d\d(?:\d{4}|([- ])\d\d\1\d\d)"
)
# The names core/secret_words.py spells in more languages, looked for as substrings first (an
# alternation of them in _CONTEXT would be tried at every character of a text).
_MORE_NAMES = (
    *("kennwort", "heslo", "lösenord", "passord", "salasana", "adgangskode", "kodeord", "jelszó"),
    *("cyfrinair", *(name.lower() for name in (*PASSWORD_NAMES, *KEY_NAMES))),
)
# What may follow such a name before its value: a colon, `=`, `is` in the writers' languages.
_STATED = re.compile(r"[^\n]{0,80}?(?:[:=]|\s(?:is|ni|on|je|är|adalah|est|es|ist)\s|是|は)")


def _named(lowered: str) -> bool:
    """Whether a name of _MORE_NAMES stands as a word (not `clau` of `clause`) and is stated."""
    for name in _MORE_NAMES:
        at = lowered.find(name)
        while at >= 0:
            word = not (at and lowered[at - 1].isalpha() and name.isascii())
            if word and _STATED.match(lowered, at + len(name)):
                return True
            at = lowered.find(name, at + 1)
    return False


_KEYED = re.compile(r"[0-9]{4}[#*](?![\w#*])")
_APP_PASSWORD = re.compile(rf"(?<![\w/+.=-]){APP_GROUPS}(?![\w/+.=-])")
_OPENED = re.compile(rf"(?i:\b(?:{CODE_WORD}|{TYPE_WORD})\b)|(?i:{CODE_WORD_UNSPACED})")


def worth_checking(text: str) -> bool:
    """Whether `text` could hold a secret any rule finds: False only when it has no token
    that is not a word of prose (8 or more token characters: a digit, an inner capital or
    symbol among them), no credential's name before an assignment, no URL with a password, no
    command that takes one and nothing that hides a token. A cheap, conservative look (a few
    small patterns, compiled at import): `find` builds the rules only when it says yes.
    tests/test_secrets_precheck.py holds it to every true case of gitleaks' rules and of
    graphit's corpora."""
    if _HIDDEN.search(text):
        return True
    plain = text.translate(_MARKS)  # `**password**: "..."` reads as the detector unhides it
    if _CONTEXT.search(plain):
        return True
    runs = (run.rstrip("!?") for run in _RUN.findall(plain))  # `SwiftUI?` ends a question
    # an address counts by its parts, as before `@` joined a run (`it-ops`, `example.org`)
    parts = (p for run in runs for p in (run.split("@") if _ADDRESS.fullmatch(run) else (run,)))
    if any(len(part) >= 8 and not _WORDLIKE.fullmatch(part) for part in parts):
        return True
    # a password as written, a mark among its 8 characters (`Blue134*`; not `**Note**`)
    if plain != text and any(map(_PASSWORD_RUN.fullmatch, _RUN.findall(text))):
        return True
    if _named(plain.lower()):
        return True  # a password's or a key's name in more languages (core/secret_words.py)
    if _SIX_DIGITS.search(plain) and _CODE_DIGITS.search(plain):
        return True
    if FOUR_DIGITS.search(plain) and _OPENED.search(plain):
        return True  # a gate's, a door's, a safe's code (core/secret_codes.py OPENED_BY)
    if _KEYED.search(text):
        return True  # a code a keypad's `#` ends (`Tor Gebrauchtwagenplatz: 540861#`)
    return names_mail(plain.lower()) and _APP_PASSWORD.search(plain) is not None


# --- the literals that wake the rules -------------------------------------------------------

_scanning: tuple[re.Pattern[str], dict[str, tuple[str, ...]]] | None = None
_literal_set: tuple[list[str], set[str]] | None = None
# A process's first texts (up to this many, each this short) are scanned literal by literal
# (~0.3 ms each), not by the trie, whose compilation costs 25-50 ms: a process that checks a
# few texts (the prompt hook) never builds it, one that checks many builds it once.
_FIND_FIRST = 64
_FIND_CHARS = 2000
_found_by_find = 0


def _literals() -> tuple[list[str], set[str]]:
    """graphit's literals and gitleaks' keywords, and the keywords alone. Loaded once."""
    global _literal_set
    if _literal_set is None:
        from graphit_cli.core import secret_patterns as patterns
        from graphit_cli.core import secret_rules

        keywords = set(secret_rules.rules().keywords)
        _literal_set = (sorted({*patterns.GATE_LITERALS, *keywords}), keywords)
    return _literal_set


def literals_in(lowered: str) -> dict[str, list[int]]:
    """Each literal in `lowered` (a text in lower case) -> where it begins, in order."""
    global _found_by_find
    gate: dict[str, list[int]] = {}
    if _scanning is None and _found_by_find < _FIND_FIRST and len(lowered) <= _FIND_CHARS:
        _found_by_find += 1
        for literal in _literals()[0]:
            at = lowered.find(literal)
            while at >= 0:
                gate.setdefault(literal, []).append(at)
                at = lowered.find(literal, at + 1)
        return gate
    scan, prefixes = _scanner()
    hit = scan.search(lowered)
    while hit is not None:
        for literal in prefixes[hit.group(0)]:
            gate.setdefault(literal, []).append(hit.start())
        hit = scan.search(lowered, hit.start() + 1)  # literals may overlap
    return gate


def _scanner() -> tuple[re.Pattern[str], dict[str, tuple[str, ...]]]:
    """One trie-shaped pattern of graphit's literals and gitleaks' keywords (searched again
    from the next character after each hit: literals may overlap); a literal found stands for
    the literals it begins with ("sk-ant-" for "sk-"). Built once a process, when it has
    checked more texts than a hook does."""
    global _scanning
    if _scanning is None:
        literals = _literals()[0]
        from graphit_cli.core import secret_rules

        _scanning = (re.compile(secret_rules.trie(literals)), secret_rules.prefixes(literals))
    return _scanning


def keywords() -> set[str]:
    """gitleaks' keywords (each wakes the rules that name it)."""
    return _literals()[1]

"""Values that a credential's name stands right before, in shapes the model reads as data:
digits after a password's or a code's name (`supervisor password = 85201212`, `PUK:
83115040`, `Kombination Tresor: 47-72-22`); a code that opens a gate, a door, an alarm or a safe,
in the languages teams write (`opened_by`: `Kod do bramy: 8204`, `toets 92850`); an app
password's four groups of four letters (`nqvn lpij viet lrjt`) on a line that names a mail
account. And context rules core/secret_patterns.py runs with its own (RULES, ROLES): a login's
spaced `user / password`, a PIN stated after other numbers, `AT+CPIN`, a YouTube stream key, an
API key given to curl as Basic auth's user. Named hex (`hmac key ... 7A77...`) is not among
them: after `key` it is as often a search-only key, a GPG key id or a cache key, and the model
weighs it. The words are core/secret_words.py's, which the pre-check wakes on. Pure: standard
library only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from graphit_cli.core.secret_words import (
    APP_GROUPS,
    CODE_NAME,
    CODE_WORD,
    CODE_WORD_UNSPACED,
    COMPOUND_NAMES,
    DISARM,
    FOUR_DIGITS,
    MORE_NAMES,
    OPENS,
    OPENS_UNSPACED,
    PIN_NAMES,
    RECOVERY_NAMES,
    TYPE_WORD,
    names_mail,
    typed_code,
)

# A login's `user / password`, spaced, after what signs in with it (`TSO logon IBMOPS3 /
# CZEPZ468`, `soap header ... uses WSFLYX / xkq91Dj3k5pz`); judged as `user:password` is.
USER_SLASH = re.compile(
    r"(?i:\b(?:logon|login|log in|sign in|signon|creds?|credentials|accounts?|users?|uses|admin)\b)"
    r"[^\n]{0,60}?(?<![\w/.-])(?P<user>[A-Za-z][\w.@+-]{1,39})[ \t]+/[ \t]+"
    r"(?P<value>[^\s/\"'`,;|]{6,99})(?![^\s,;)])"
)
# A PIN or a code stated after other numbers (`PIN to Drive on the pool Model 3 is 4862`,
# `PUK für die SIM (ICCID endet 4471): 83115040`); a modem's AT command that sends one.
PIN_STATED = re.compile(
    r"(?:\b(?:PIN|PUK[12]?|(?i:passcode|(?:door|keypad|alarm) code))\b"  # not `pin mappings`
    # stated: `is`, `:`, and is in more languages (Swahili `ni`, Polish `jest`, Swedish `är`)
    r"(?P<between>[^\n]{0,80}?)(?:\s(?:is|ist|est|es|é|è|ni|jest|je|är|er|on|adalah|ialah|là)"
    r"|[:=：]|->)"
    # or a password's name in Chinese, Japanese, Korean, stated right after it, after a verb of
    # its script or with a space (`菜單密碼:6215`, `密碼重設為 4826`, `카드 비밀번호 1778`); not
    # its length (`密碼長度為 2048`), a year, nor `[密码] argon2id ... m=65536`
    r"|(?:密[码碼]|パスワード|비밀번호)(?![^\x00-\x7f]{0,2}(?:長度|长度|位數|位数|長さ|길이))"
    r"(?:[^\x00-\x7f\d]{0,4}?[ \t]*[:：是為为は]|[ \t]+(?!(?:19|20)\d\d\b)))[ \t]*"
    r"(?<![\w.-])(?P<value>\d{4,8})(?![\w.-]|,\d)"
)
# A PIN or a code that opens something (a door, an alarm, a voicemail box, a phone account, a
# safe), in digits, after what names it.
PIN = re.compile(
    # `PIN`, `PIN1`, `admin_pin=`; not `Pin dependency versions`
    r"(?:\b(?:PIN|NIP)[12]?\b|(?i:(?<![A-Za-z])pin(?=[ \t]*(?:[:=]|code|number|is\b|\d)))|"
    r"(?i:\b(?:passcode|host key(?![^\n]{0,20}fingerprint)|lockbox|(?:door|keypad|alarm|"
    r"disarm|entry|gate|entrance|side entrance|master user|porte|lockbox|safe|admin|access|"
    r"service|master|installer|engineer|manager|supervisor|unlock|arming|duress) code|"
    r"voicemail(?: box)? (?:password|pin|code)|combination(?! of)|combo)(?!\w))|"
    r"(?i:(?<![A-Za-z])(?:" + PIN_NAMES + r")(?![A-Za-z])))"
    # a year is no PIN, unless a `#` or `*` ends it as a keypad's
    r"[^\n\d]{0,50}?(?<![\w.-])(?!(?:19|20)\d\d\b(?![#*]))(?P<value>\d{2}-\d{2}-\d{2}|\d{4,8}[#*]?)(?![\w-])"
)
# Recovery or backup codes listed after their name.
RECOVERY_CODES = re.compile(
    r"(?i:(?<![A-Za-z0-9])(?:(?:recovery|backup|2fa|mfa)[ -]codes?|" + RECOVERY_NAMES + r")"
    r"(?![A-Za-z]))"
    r"[^\n]{0,80}?(?:[:\n)]|->| are| sind|[ \t][—–-])[ \t]*\n?"
    r"(?P<value>(?:(?:[A-Za-z0-9]{4,5}[- ]?[A-Za-z0-9]{4,5}|[0-9a-f]{16})"
    r"(?:[ \t]*[,;\n][ \t]*|[ \t]+)){2,}"
    r"(?:[A-Za-z0-9]{4,5}[- ]?[A-Za-z0-9]{4,5}|[0-9a-f]{16}))"
)
# One recovery or backup code, as dashboards print them (`f1cac-e95ea`, `9awt-ioyi-u9zr`).
RECOVERY_CODE = re.compile(
    r"(?i:(?<![A-Za-z0-9])(?:(?:recovery|backup) codes?|" + RECOVERY_NAMES + r")(?![A-Za-z]))"
    r"[^\n]{0,50}?[: ][ \t]*(?P<value>[A-Za-z0-9]{4,5}(?:-[A-Za-z0-9]{4,5}){1,2}"
    r"|(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{12})\b"  # X's: twelve letters and digits
)
# A YouTube stream key (`ktnh-w7o9-phtv-omfs-t3vz`) where a stream is named.
STREAM_KEY = re.compile(r"(?<![\w-])(?P<value>[a-z0-9]{4}(?:-[a-z0-9]{4}){4})(?![\w-])")
# An API key given to curl as Basic auth's user, the password left empty (`-u sk_live_...:`).
KEY_AS_USER = re.compile(r"(?<!\S)-u[ =]?[\"']?(?P<value>[A-Za-z0-9_]{16,200}):(?=[\"'\s]|$)")
# An admin's login written `admin/password`, unspaced (`admin/Kapi0761!Kam`), judged as chosen.
ADMIN_SLASH = re.compile(
    r"(?i:(?<![\w/.-])(?:admin|root|administrator|operator|supervisor)/)"
    # a digit and a capital or a symbol in it: not a path (`admin/dashboard-2024`)
    r"(?=[^\s/]*\d)(?=[^\s/]*[A-Z!#$%&*@^~+=?])(?P<value>[^\s/\"'`,;|]{6,64})(?![^\s,;)])"
)
# A credential handed to a setter in code (`options.setSecretKey("...")`, `setApiKey('...')`).
SETTER = re.compile(
    r"\.set(?P<name>(?!Public|Publishable|Site)\w*(?:Secret|Key|Token|Password))\w*\(\s*(?P<q>[\"'])"
    r"(?P<value>[^\"'\n]{8,200})(?P=q)"
)
# A password of plain words after its name and a colon, to the end of its line or clause:
# `ansible vault password for prod: heron quiet copper lantern47`, a Wi-Fi key
# `orange.blue.chiller.nich46`, a customer's verbal password `blue lantern 21` (judged by
# core/secret_phrases.py word_password: no function word, digits or five words).
_LOWER = "[a-zß-öø-ÿāăąćčďđēėęěğīįıķļľłńņňōőœŕřśşšţťūůűųźżž]"  # a lowercase Latin letter
_WORD = f"(?:{_LOWER}{{3,14}}|[A-ZÀ-ÖØ-Þ]{_LOWER}{{2,13}})"  # `heron`, `Momiji`
WORD_PASSWORD = re.compile(
    r"(?i:(?<![\w-])(?:pass(?:word|phrase|wd)?|pw|psk|pre-?shared key|code ?word|secret word"
    r"|(?:verbal|spoken|phone) password|safe ?word|kodewort|mot de passe|senha|contrase[ñn]a"
    r"|frase de (?:contrase[ñn]a|paso|acceso|senha)|frase secreta|phrase (?:secrète|de passe)"
    r"|frase segreta|frase-senha"
    r"|wachtwoord|passwort|kennwort|hasło|heslo|jelszó|salasana|lösenord|passord|парол\w*"
    r"|şifre\w*|parola|mật khẩu|密[码碼]|パスワード|비밀번호|clé|clave|chave|schlüssel|sleutel"
    r"|chiave|klucz|ключ|nøkkel|nyckel|"
    + MORE_NAMES
    + "|"
    + COMPOUND_NAMES
    + r")(?![\w-]))[^\n:：]{0,80}?[:：][ \t]*[\"'“„«]?"
    rf"(?P<value>(?:{_WORD}[ .-]){{1,6}}{_WORD}(?:[ .-]?\d{{1,4}})?[!#$%&*?@]?)"
    r"[\"'”»]?[ \t]*(?=$|\n|[.(,;]|[ \t]+(?:[—–#]|-[ \t]))"
)
# A device's or a system's admin and a colon, a password after it: a digit, a letter, and a
# symbol or both cases (`BioStar 2 server admin: nia*Chiller125*`, `MFP admin: TQF8-n2gilzJ1L`);
# not an address, a path or a person (`admin: anna@acme.io`).
ADMIN_COLON = re.compile(
    r"(?i:(?<![\w/-])(?:admin|administrator|root|superuser|supervisor|sysadmin)(?![\w/-]))"
    r"[^\n:=]{0,40}?(?:\s?[:：]|[ \t](?:reset|set|changed) to)\s*"  # `admin reset to ...`
    r"(?!v?\d+\.\d)(?=\S*\d)(?=\S*[A-Za-z])(?=\S*[^\w\s]|\S*[a-z]\S*[A-Z]|\S*[A-Z]\S*[a-z])"
    r"(?P<value>[^\s\"'`,;|()<>@/]{8,64})(?=[\s,;.)]|$)"
)
# A credential in an XML element named for it (`<transactionKey>...</transactionKey>`,
# `<Password>...</Password>`), judged as an assignment is (not `<PublicKey>`).
XML_ELEMENT = re.compile(
    r"<(?P<name>[\w:.-]*(?i:password|passwd|secret|token|[a-z]key))>"  # not a plist's `<key>`
    r"(?P<value>[^<>\s]{6,300})</(?P=name)>"
)
# A customer's verbal password, one word, after a name that says it is spoken (an alarm
# receiving centre's: `Mot de passe verbal du client ... : Marmalade`).
VERBAL_PASSWORD = re.compile(
    r"(?i:(?:verbal|spoken|oral|telephone|phone)[ -]pass(?:word|phrase)|(?:mot de passe|password"
    r"|wachtwoord|passwort|contrase[ñn]a|senha)[^\n:]{0,12}?(?:verbal|oral|telefoni\w*|vocal))"
    r"[^\n:]{0,60}:[ \t]*[\"“„«]?(?i:(?!(?:required|optional|none|unknown|empty|unset|missing"
    r"|pending|changed|reset|same|see|ask)\b))(?P<value>[A-Za-z][a-z]{3,19})[\"”»]?[ \t]*"
    r"(?=$|\n|[.(;,])"
)
AT_PIN = re.compile(r"(?i:AT\+CPIN)=\"(?P<value>\d{4,8})\"")
# Digits a person types to open something: after a password's name, a PUK, a safe's or an
# alarm's code (core/secret_patterns.py PIN takes `PIN 4821`, `door code 7731`).
NAMED_DIGITS = re.compile(
    rf"(?i)\b(?P<name>{CODE_NAME})\b"
    # `on the 4th floor`, `(store 231, all lanes)`
    r"(?P<between>(?:[^\n\d]|\d+(?:st|nd|rd|th|º|ª)\b|\([^()\n]{0,30}\)){0,40}?)(?<![\w.-])"
    r"(?P<value>\d{6,10}|\d{2}(?:-\d{2}){2,3}|\d{2}(?: \d{2}){2,3}(?![ \t]\d))(?![\w.-])"
)
# What says the digits are not a secret: a number of something, a length, a date, a port.
_NOT_CODE = re.compile(
    r"(?i)\b(?<!-)(?:ticket|case|incident|order|invoice|line|port|version|no|number|length|digits"
    r"|characters|chars|days|hours|minutes|expir\w*|policy|phone|tel|fax|account|iban|customer"
    r"|reference|ref|batch|serial|imei|iccid|build|release|step|page|id)s?\b|n[º°]|#"
)
# Digits alone that may open a gate, a door, an alarm, a lockbox: 4 to 8, a `#` after them.
_TYPED_CODE = re.compile(
    r"(?<![\w.,/:#+-])(?P<value>\d{4,8})"
    # a keypad's `#`, a digicode's letter (`9913B`), a key pressed after it (`84582 + ENTER`)
    r"(?:[#*]|[A-D](?!\w)|(?=[ \t]*\+[ \t]*(?:ENTER|OFF|ON|OK|UNSET|SET)\b))?(?![\w/:%-]|[.,]\d)"
)
_YEAR = re.compile(r"(?:19|20)\d\d")
_NUMBER = re.compile(r"(?<![\w-])\d+(?!\w)")  # a number of its own, not `HRN03`, `PAL-2`
_CODE_WORD = re.compile(rf"(?i)(?<!\w)(?:{CODE_WORD})(?!\w)|{CODE_WORD_UNSPACED}")
_TYPED_WITH = re.compile(rf"(?i)(?<!\w)(?:{TYPE_WORD})\s+$")
# An alarm disarmed with a code, what it is between (`disarm the Sensaphone with 55921`).
_DISARMED_WITH = re.compile(
    rf"(?i)(?<!\w){DISARM}(?:[ \t]+[^\s\d]+){{0,3}}?[ \t]+"
    r"(?:with|using|con|avec|mit|com|met|kwa)\s+$"
)
_OPENS = re.compile(rf"(?i)(?<!\w)(?:{OPENS})(?!\w)|{OPENS_UNSPACED}")
# What says a code is not one that opens something: an error's, a product's, a booking's.
_NOT_OPENING = re.compile(
    r"(?i)\b(?:error|status|zip|postal|post|area|country|http|exit|return|response|iso|colou?r"
    r"|hex|char|sku|product|discount|promo|coupon|voucher|invite|booking|reservation"
    r"|confirmation|tracking|fault|dtc|model|part|article|item|job|cost|2fa|otp|sms|verification"
    r"|barcode|postcode"
    r"|zipcode|qrcode|opcode|unicode|geocode|xcode|encode|decode|shortcode|promocode)s?\b"
)
# A code's or a password's name right before it (`code 5625`, `senha 6285`).
_NAMED = re.compile(
    r"(?i)(?<!\w)(?:code|kod|koodi|kood|codice|c[oó]digo|pin|senha|password|passwort|hasło|kode|kodu"
    r"|kóði|kods|kodas|koda|şifre\w*|szyfr|heslo|nip|kombi|код\w*|رمز)[ \t]*$"
)
_STATED = re.compile(r"(?:[:=]|->|\bis|\best|\bist|\bes|\bé)\s*$")
# Google's and Microsoft's app passwords: 16 lowercase letters, in groups of four or not.
APP_PASSWORD = re.compile(rf"(?<![\w/+.=-])(?P<value>{APP_GROUPS}|[a-z]{{16}})(?![\w/+.=-])")
_TYPED = re.compile(r"[0-9][0-9](?:[0-9][0-9][0-9][0-9]|[- ][0-9][0-9][- ][0-9][0-9])")  # fast
# The context rules here (core/secret_patterns.py CONTEXT_RULES), and how each is judged.
RULES = (
    (USER_SLASH, "password", (" / ",)),
    (
        PIN_STATED,
        "pin",
        (
            *("pin", "puk", "passcode", "door code", "keypad code", "alarm code", "密码", "密碼"),
            *("パスワード", "비밀번호"),
        ),
    ),
    (AT_PIN, "pin", ("at+cpin",)),
    (
        STREAM_KEY,
        "stream-key",
        (
            *("youtube", "rtmp", "stream key", "streamschl", "<key>", "encoder"),
            # a stream's key in the languages broadcasters write
            *("yayın anahtar", "klíč stream", "klíč k stream", "mapa ng stream", "مفتاح البث"),
            *("clave de transmisi", "chave de transmiss", "clé de stream", "clé de diffusion"),
            *("chiave di stream", "streamsleutel", "klucz stream", "ключ трансляц", "串流金鑰"),
            *("串流密钥", "推流码", "ストリームキー", "스트림 키"),
        ),
    ),
    (KEY_AS_USER, "api-key", ("-u",)),
    (ADMIN_SLASH, "password", ("admin/", "root/", "operator/", "supervisor/")),
    (SETTER, "secret", (".set",)),
    (WORD_PASSWORD, "password", (":", "：")),
    (ADMIN_COLON, "password", ("admin", "root", "superuser", "supervisor")),
    (XML_ELEMENT, "secret", ("</",)),
    (VERBAL_PASSWORD, "password", ("verbal", "spoken", "oral", "phone", "telefoni", "vocal")),
)
ROLES = {
    USER_SLASH: "user-pair",
    PIN_STATED: "pin",
    AT_PIN: "pin",
    STREAM_KEY: "printed",
    KEY_AS_USER: "printed",
    ADMIN_SLASH: "chosen",
    SETTER: "credible",
    WORD_PASSWORD: "word-password",
    ADMIN_COLON: "chosen",
    XML_ELEMENT: "credible",
    VERBAL_PASSWORD: "as-is",
}


def found(text: str, lowered: str, words: Callable[[str], bool]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each value these rules take in `text` (`lowered`, its lowercase);
    `words` says a run reads as words."""
    spans: list[tuple[int, int, str]] = []
    for match in NAMED_DIGITS.finditer(text) if _TYPED.search(text) else ():
        digits = match["value"].replace("-", "").replace(" ", "")
        if not typed_code(digits) or _NOT_CODE.search(match["between"]):
            continue
        spans.append((*match.span("value"), "password"))
    spans += opened_by(text)
    for match in APP_PASSWORD.finditer(text) if names_mail(lowered) else ():
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        if names_mail(line.lower()) and not words(match["value"]):
            spans.append((*match.span("value"), "app-password"))
    return spans


def opened_by(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each code of 4 to 8 digits after a code's name and what it opens
    on its line (or on the line before, when the code stands alone): `Gate code for the yard
    is 60640#`, `north gate keypad` / `59716`, `Kod alarmu w biurze budowy: 5974`."""
    spans: list[tuple[int, int, str]] = []
    if not FOUR_DIGITS.search(text):
        return spans
    for match in _TYPED_CODE.finditer(text):
        digits = match["value"]
        if not typed_code(digits):
            continue  # typed by no one (`1111`, `1234`)
        start = text.rfind("\n", 0, match.start()) + 1
        label = text[start : match.start()]
        if not label.strip() and start > 1:  # alone on its line: named by the line before
            label = text[text.rfind("\n", 0, start - 1) + 1 : start - 1]
        elif start > 1 and len(label) <= 24 and not _OPENS.search(label):  # `Tor 2` / `Code:`
            label = text[text.rfind("\n", 0, start - 1) + 1 : start - 1] + " " + label
        label = label[-80:]
        if _YEAR.fullmatch(digits) and not (
            _STATED.search(label) and _CODE_WORD.search(label[-60:])
        ):
            continue  # a year, unless a code's name states it (`kod alarmu do archiwum: 1946`)
        if _NUMBER.search(label[-40:]) and not _STATED.search(label) and not _NAMED.search(label):
            continue  # a number before it names something else (`room 12 code 4400`)
        if _NOT_OPENING.search(label) or _NOT_CODE.search(label):
            continue
        if text[match.start() - 1 : match.start()] == "(" and text.startswith(")", match.end()):
            continue  # a number in brackets: a count, a reference (`Search Params (1430)`)
        typed = _TYPED_WITH.search(label) or _DISARMED_WITH.search(label)
        after = text[match.end() : match.end() + 4].lstrip()  # `84582 + ENTER`
        keyed = match[0][-1] in "#*" or after.startswith("+")  # `Tor ...: 540861#`, a keypad's
        if (typed or keyed or _CODE_WORD.search(label)) and _OPENS.search(label):
            spans.append((*match.span("value"), "pin"))
    return spans

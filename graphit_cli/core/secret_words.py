"""The words a password, a typed code, a code that opens something and an app password go by,
in the languages the blind corpora's writers used: what core/secret_gate.py wakes on and what
core/secret_codes.py and core/secret_values.py read before a value. A leaf (the prompt hook's
pre-check imports it). Pure: standard library only.
"""

from __future__ import annotations

import re

# The words a password's name holds (`wachtwoord`, `DB_PASSWD`), and the names that are one
# whole (`pw`, French `mdp`, Dutch `ww`): core/secret_values.py `assigned_kind`.
PASSWORD_WORDS = (
    *("pass", "pwd", "wort", "contrase", "senha", "wachtwoord", "パスワード", "密码", "hasło"),
    *("mật khẩu", "парол", "şifre", "parola", "비밀번호", "community", "answer", "memorable"),
    *("wifi", "wi-fi", "cyfrinair", "heslo", "jelszó", "lösenord", "passord", "salasana"),
    *("kodeord", "adgangskode"),
)
PASSWORD_WHOLE = ("pw", "mdp", "ww")
# The names digits a person types stand after: a password's (in its abbreviations too: `mdp`,
# `ww`), a PUK's, a safe's, a terminal's supervisor or merchant code.
CODE_NAME = (
    r"password|passwort|passwd|pwd|pw|senha|contraseña|mot de passe|mdp|ww|wachtwoord|hasło"
    r"|cyfrinair|puk2?|safe|tresor|kombination|combinaci[oó]n|combinação|alarmcode|türcode"
    r"|torcode|beheerderscode|(?:supervisor|merchant menu|manager|admin) code|code superviseur"
    r"|c[oó]digo d[aeo] (?:porta|puerta|alarme?|port[ãa]o|acceso|acesso|seguridad)"
)
# An app password's four groups of four letters (Google's, Microsoft's, Apple's).
APP_GROUPS = r"(?:[a-z]{4}(?: [a-z]{4}){3}|[a-z]{4}(?:-[a-z]{4}){3})"  # Apple's: with hyphens
# A code's name, and what a code opens: `Gate code ... 60640#`, `Kod do bramy: 8204`,
# `Código de la alarma: 8399`, `Code porte: 19036`, `opiatenkast code: 954318`, Welsh `cod`.
CODE_WORD = (
    r"codes?|kod|cod|k[óo]d|kode|koodi|c[oó]digo|codice|\w+code|combination|combinaci[oó]n"
    r"|combina[çc][ãa]o|combinazione|kombination|combo|keypad|digicode|pin|key ?safe|lock ?box"
    r"|mã|رمز|कोड|κωδικός"
)
# What a code is typed with, right before it (`toets 92850`, `digitare 666145`).
TYPE_WORD = r"type|enter|toets|tippen|digitare|digite|teclear|marcar|wpisz|दबाएं"
OPENS = (
    r"gates?|doors?|keypad|alarms?|lock ?box|key ?(?:safe|box)|padlock|garage|cabinet|locker"
    r"|(?:the|a|office|wall|floor) safe|safe (?:code|combination|combo)"  # not `type-safe`
    r"|(?:front|back|side|main|service|staff|rear) (?:entry|entrance)|entry (?:door|gate)"
    r"|port[oó]n|puerta|alarma|caja|candado|porta|port[ãa]o"
    r"|alarme|cadeado|bram\w*|drzwi|alarm\w*|sejf\w*|skrytk\w*|k[łl][óo]dk\w*|porte|portail"
    r"|cadenas|coffre|armoire|casier|digicode|allarme|cancello|cassaforte|lucchetto|t[üu]r|tor"
    r"|tresor|schl[üu]sselkasten|\w*deur|poort|kluis|\w*kast|larwm|drws|terminal|tpe"
    r"|pinautomaat|supervisor|superviseur|merchant menu|beheerder\w*|panel\w*|pannello"
    r"|installer|\w*eingang|vchod\w*|dve[řr]e|br[áa]n[ay]|n[øo]gle\w*|sleutel\w*|chiavi"
    r"|cassetta|ingresso|keysafe|báo động|الإنذار|अलार्म|συναγερμ\w*|porta d'ingresso"
)
# Four digits in a row, found fast (`\d{4}` is twice as slow): before any code is looked for.
FOUR_DIGITS = re.compile(r"[0-9][0-9][0-9][0-9]")
_MAIL_WORDS = (
    "gmail",
    "google",
    "app p",
    "app-p",
    "smtp",
    "imap",
    "outlook",
    "mailbox",
    "workspace",
)
_ADDRESSED = re.compile(r"\w@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w-])")


def names_mail(lowered: str) -> bool:
    """Whether a text (lowercase) names a mail account: a provider, an app password, an
    address."""
    if any(word in lowered for word in _MAIL_WORDS):
        return True
    return "@" in lowered and _ADDRESSED.search(lowered) is not None

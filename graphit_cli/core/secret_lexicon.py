"""The words the secret detector's model reads around a value (core/secret_model.py): words that
name a credential, a new value, or something that is no secret, in the languages the users
write, so a word the corpora never showed still counts as its kind (`klucz`, `키`). Pure:
standard library only.
"""

from __future__ import annotations

import re

from graphit_cli.core.secret_words import KEY_NAMES, PASSWORD_NAMES

_WORD = re.compile(r"[^\W\d_]+")


def cjk(text: str) -> bool:
    """Whether `text` holds kana, a CJK ideograph or Hangul (a function, not a character
    class: compiling that class costs ~5 ms at import)."""
    return any(
        "\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af"
        for c in text
    )


# Each kind's words. A short word matches whole, a longer one at a word's start (`anahtarını`),
# a phrase or a CJK word anywhere.
_LEXICON = {
    "cred": (
        *("password", "passwd", "passphrase", "passcode", "pw", "pwd", "pass", "secret"),
        *("key", "token", "apikey", "credential", "creds", "pat", "auth", "login"),
        *("passwort", "kennwort", "schlüssel", "schluessel", "geheim", "contraseña"),
        *("contrasena", "clave", "secreto", "mot de passe", "clé", "cle", "jeton", "senha"),
        *("chave", "segredo", "parola", "chiave", "segreto", "wachtwoord", "sleutel"),
        *("hasło", "haslo", "klucz", "sekret", "heslo", "klíč", "jelszó", "kulcs", "şifre"),
        *("sifre", "anahtar", "parolă", "cheie", "mật khẩu", "mat khau", "khóa", "khoa"),
        *("kata sandi", "kunci", "пароль", "ключ", "секрет", "токен", "passord", "nøgle"),
        *("nyckel", "lösenord", "salasana", "avain", "κωδικός", "κλειδί", "סיסמה", "كلمة"),
        *("密码", "密碼", "密钥", "密鑰", "口令", "令牌", "秘钥", "パスワード", "キー", "鍵"),
        *("シークレット", "トークン", "暗証", "비밀번호", "암호", "키", "시크릿", "토큰"),
        *("पासवर्ड", "कुंजी", "टोकन"),
        *PASSWORD_NAMES,  # and the languages core/secret_words.py spells ahead of any corpus
        *KEY_NAMES,
    ),
    "new": (
        *("new", "now", "value", "current", "neuer", "neue", "wert", "jetzt", "nuevo", "nueva"),
        *("valor", "ahora", "nouveau", "nouvelle", "valeur", "nuova", "nuovo", "valore"),
        *("nova", "novo", "agora", "nieuwe", "waarde", "nowy", "nowe", "wartość", "yeni"),
        *("yenisi", "değer", "mới", "giá trị", "новый", "новое", "значение", "сейчас"),
        *("新", "现在", "値", "現在", "새", "값", "현재"),
    ),
    "not": (
        *("public", "publishable", "client", "search-only", "hash", "sha", "checksum"),
        *("fingerprint", "digest", "id", "ids", "sid", "uuid", "guid", "tenant", "thumbprint"),
        *("serial", "device", "nonce", "ciphertext", "encrypted", "kms", "sealed", "example"),
        *("sample", "placeholder", "redacted", "masked", "commit", "build", "run", "order"),
        *("tracking", "trace", "request", "object", "account", "issuer", "surrogate"),
        *("öffentlich", "público", "publique", "pubblica", "openbaar", "публичный", "公開"),
        *("公开", "공개", "ejemplo", "beispiel", "exemple", "esempio", "voorbeeld", "例"),
    ),
}


def _lexicon(words: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """A kind's words as the lexicon matches them: a short word (4 letters or fewer) whole,
    a longer one at a word's start (`anahtarını`), a phrase or a CJK, kana or Hangul word
    anywhere."""
    anywhere = tuple(w for w in words if " " in w or cjk(w))
    single = [w for w in words if w not in anywhere]
    return (
        frozenset(w for w in single if len(w) <= 4),
        tuple(w for w in single if len(w) > 4),
        anywhere,
    )


_LEXICON_WORDS = {kind: _lexicon(words) for kind, words in _LEXICON.items()}


def kinds(lowered: str) -> list[str]:
    """The lexicon's kinds among the words of `lowered`."""
    words = _WORD.findall(lowered)
    return [
        kind
        for kind, (whole, starts, anywhere) in _LEXICON_WORDS.items()
        if any(w in whole or w.startswith(starts) for w in words)
        or any(phrase in lowered for phrase in anywhere)
    ]

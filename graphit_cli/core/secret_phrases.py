"""Words chosen as a secret: a passphrase (`horse pepper glacier saddle`), a password of plain
words (`heron quiet copper lantern47`, a customer's verbal password `blue lantern 21`), a
wallet's seed phrase of 12 to 24 words; not a clause of prose, a policy that speaks of one, or
a documented example (xkcd's, BIP-39's test vectors). The judges core/secret_context.py calls
for the rules that find such words. Pure: standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

from graphit_cli.core.secret_public import DOCUMENTED_EXAMPLES, TEST_MNEMONICS

# Words no seed phrase holds (BIP-39's words are nouns, verbs and adjectives).
_FUNCTION_WORDS = frozenset(
    """the and for with that this from into are was were has have not but you our its then than
    when will""".split()  # noqa: SIM905
)


# Function words of three letters or more in the other languages teams write in Latin letters.
_MORE_FUNCTION_WORDS = frozenset(
    """dalam untuk dan yang ada lihat tanya simpan dengan pada oleh dari atau para por con sin
    ver les des dans pour avec voir sur une uno una est son sont per nel vedi der die das und
    mit siehe het een van zie zijn och att det som för med til ikke jos tai kun että nicht
    not kein pas ist sind war""".split()  # noqa: SIM905
)
# Words that speak of a passphrase rather than make one.
_ABOUT_PASSPHRASES = frozenset(
    """word words random dictionary diceware minimum length characters long letters digits symbols
    required policy rules use used stored vault manager keepass bitwarden lastpass rotate
    rotated same usual ask see check reset changed expired unknown none empty unset todo must
    should can may any your their who what where how why which only also just get set value
    values secret secrets password passwords token tokens key keys env export echo cat aws gcloud
    kubectl sudo run read print""".split()  # noqa: SIM905 (a command, not a passphrase)
)


def passphrase_words(value: str) -> bool:
    """Words of a chosen passphrase: none a function word or a word that speaks of one
    (`four random dictionary words`), not xkcd's."""
    words = re.findall(r"[^\W\d_]+", value.lower())
    if " ".join(words) in DOCUMENTED_EXAMPLES:
        return False  # xkcd's `correct horse battery staple`
    return not (_FUNCTION_WORDS | _ABOUT_PASSPHRASES) & set(words)


def word_password(value: str) -> bool:
    """Plain words a password is made of (`heron quiet copper lantern47`, `blue lantern 21`):
    none a function word in the languages teams write, and digits or five words or more
    (`simpan dalam peti besi` is a clause); words joined by dots end in digits (not a host)."""
    words = re.findall(r"[^\W\d_]+", value)
    digits = any(c.isdigit() for c in value)
    if not digits and (len(words) < 5 or "." in value):
        return False
    if any(len(set(word)) == 1 for word in words):
        return False  # a placeholder (`xxxx-xxxx-xxxx-xxxx`)
    return passphrase_words(value) and not _MORE_FUNCTION_WORDS & set(words)


def seed_phrase(value: str) -> bool:
    """12, 15, 18, 21 or 24 words, each of BIP-39's English list or none a function word: a
    wallet's seed phrase (BIP-39's list holds `you`, `all`, `also`)."""
    words = value.lower().split()
    if " ".join(words) in TEST_MNEMONICS or len(words) not in (12, 15, 18, 21, 24):
        return False  # BIP-39's test vectors, Hardhat's default accounts
    return not _FUNCTION_WORDS & set(words) or set(words) <= bip39_words()


_bip39: frozenset[str] | None = None


def bip39_words() -> frozenset[str]:
    """BIP-39's 2,048 English words, from the `mnemonic` package's list (read once)."""
    global _bip39
    if _bip39 is None:
        import importlib.util  # here: ~2 ms a cold process pays only when a seed phrase is named

        spec = importlib.util.find_spec("mnemonic")  # not imported: its list is all we read
        folders = (spec.submodule_search_locations or []) if spec else []
        paths = [Path(folder) / "wordlist" / "english.txt" for folder in folders]
        _bip39 = frozenset(paths[0].read_text().split()) if paths else frozenset()
    return _bip39

"""What is published, so no secret whatever names it: keys the providers print in their
documentation, test vectors, and keys public by design (a browser or an app ships them), by
their prefix, their shape or the name they go by. core/secret_values.py asks it of every value
a rule finds. Pure: standard library only.
"""

from __future__ import annotations

import base64
import json
import re

from graphit_cli.core import secret_words as words

# Keys the providers publish in their documentation, quoted everywhere: not secrets.
DOCUMENTED_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "b54bcf4d-1bca-4e8e-9a24-22ff2c3d462c",  # CoinMarketCap's sandbox key
        # Safaricom Daraja's sandbox Lipa na M-Pesa passkey, in its documentation
        "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
        "correct horse battery staple",  # xkcd 936's passphrase
        "AKIATESTTESTTESTTEST",  # moto's documented dummy access key id
        # Mews' demo environment's ClientToken, in its Connector API documentation
        "E0D439EE522F44368DC78E1BFB03710C-D24FB11DBE31E3C71B6B8CC10AED36B",
        # the Azure Cosmos DB emulator's key, the same in every install
        "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
        "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
        "JBSWY3DPEHPK3PXP",  # the TOTP secret of Google Authenticator's documentation
        # reCAPTCHA's test keys, published by Google for automated tests
        "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
        "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
        "8f742231b10e8888abcd99yyyzzz85a5",  # Slack's documented signing secret
        "android",  # the Android debug keystore's published password
        # FIPS-197's AES test vectors
        "000102030405060708090a0b0c0d0e0f",
        "00112233445566778899aabbccddeeff",
        # Hardhat's and Anvil's account #0, printed by every local node and tutorial
        "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        "5A6967426565416C6C69616E63653039",  # Zigbee's default link key, "ZigBeeAlliance09"
        "20202021",  # the Matter SDK's test setup passcode
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",  # GitHub's REST docs' sample token
        "abcdef.0123456789abcdef",  # kubeadm's documented bootstrap token
        "0123456789abcdef0123456789abcdef01234567",  # NetBox's documented API token
        # 3GPP TS 35.208's test set 1 (Milenage): K, OP, OPc, in every SIM tool's examples
        "465b5ce8b199b49faa5f0a2ee238a6bc",
        "cdc202d5123e20f62b6d676ac72cb318",
        "cd63cb71954a9f4e48a5994e37a02baf",
    }
)
# BIP-39's published test vectors, in fixtures everywhere.
TEST_MNEMONICS = frozenset(
    {
        " ".join(["abandon"] * 11 + ["about"]),
        "legal winner thank year wave sausage worth useful legal winner thank yellow",
        "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
        " ".join(["zoo"] * 11 + ["wrong"]),
        # Hardhat's and Anvil's default accounts, printed when either starts
        " ".join(["test"] * 11 + ["junk"]),
    }
)
# Keys their providers publish by design (a browser or an app holds them): Stripe's publishable
# keys, PostHog's project keys, Supabase's publishable keys, Mapbox's public tokens.
PUBLIC_PREFIXES = (
    *("pk_live_", "pk_test_", "phc_", "sb_publishable_", "pk.eyJ"),
    # public keys: SSH's, age's
    *("ssh-rsa", "ssh-ed25519", "ecdsa-sha2-", "AAAAC3NzaC1", "AAAAB3NzaC1", "age1"),
    # a key's fingerprint, a Tailscale node's public key
    *("SHA256:", "MD5:", "nodekey:"),
    # public keys in DER, base64 (RSA 2048 and 4096, EC P-256); a Salesforce app's consumer key
    *("MIIBIjANBgkqhkiG9w0BAQEFAAOC", "MIICIjANBgkqhkiG9w0BAQEFAAOC"),
    *("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE", "3MVG9"),
    # RevenueCat's public SDK keys, which its apps ship
    *("appl_", "goog_", "amzn_"),
    # payment providers' public keys and ids, which their checkout pages ship: Razorpay's key id,
    # Midtrans' client key, Xendit's, Omise's and Checkout.com's public keys
    *("rzp_live_", "rzp_test_", "Mid-client-", "SB-Mid-client-", "xnd_public_", "pkey_"),
    *("pk_sbox_",),
)
# Datadog's client tokens (browser logs and RUM), public by design.
_PUBLIC_TOKEN = re.compile(r"pub[0-9a-f]{32}")
# Duo's integration key (`DI` and 18): an application's id, its secret key is another.
# A LiveKit API key: the key's name (`API` and 12), which tokens carry; its secret is apart.
_LIVEKIT_KEY = re.compile(r"API[A-Za-z0-9]{12}")
_DUO_IKEY = re.compile(r"DI[A-Z0-9]{18}")
# A Twilio SID (an account's, a call's, a message's): an id in its API's URLs. An API key's
# (`SK...`) is gitleaks' twilio-api-key, refused as that rule set says.
_TWILIO_SID = re.compile(r"(?:AC|CA|SM|MM|MG|PN|RE|CF|QU|IS|VA|WS|WW|WK|CH|KS|FW|TR)[0-9a-f]{32}")
_GA_COOKIE = re.compile(r"(?:_ga=)?GA\d\.\d\.\d+\.\d+")
# What a key's name says when the key is public: `public key`, `data-sitekey`, `publishable`.
PUBLIC_NAME = re.compile(
    r"(?i)(?<![\w-])public\b|(?:^|[^a-z])public_|publishable|search-only|site[ _-]?key|"
    r"anon[ _-]?key|"
    r"client[_-]?id\b|client[ _-]?(?:key|token)\b|tokenization[ _-]?key|search[ _-]key|"
    r"\bbrowser\b[^\n]{0,20}?\bkey\b|applicationserverkey|"
    r"docsearch|csrf|authenticity|nodekey|bugsnag|notifier|storefront-access-token|"
    # keys a browser holds by design: Pusher's app key, Mux Data's env key, Ghost's content key
    r"(?:oauth|lti)[ _-]?consumer[ _-]?key|consumer key\b[^\n]{0,40}?\bLTI\b|"
    r"widget key|ze-snippet|zdassets|snippet\.js|messenger snippet|pusher[ _-]?app[ _-]?key|"
    r"mux\.monitor|mux[ _-]data|ghostcontentapi|frontend (?:key|bundle)|"
    r"ghost[^\n]{0,30}content[ _-]?(?:api[ _-]?)?key|"
    r"(?:meant|safe|fine) to (?:ship|be public)|in the (?:js|frontend|client) bundle|"
    # public in the other languages the users write, a public half's own name, said no secret
    r"öffentlich|público|pública|publique|pubblic|openbaar|публичн|公開|公开|공개|"
    r"\bpub(?:key)?\b|\bnot (?:a |the )?secret\b|verif(?:y|ication)[ _-]?key|"
    + words.PUBLIC_WORDS
    + "|"
    + words.NOT_SECRET
)


# What a line says right after a key that its provider made it public: `(public)`, `is fine in
# the frontend bundle`, `meant to ship in the JS bundle`.
PUBLIC_AFTER = re.compile(
    r"(?i)[^\n]{0,40}?(?:\(public[),;]|\bis fine in the (?:js |frontend |client )?bundle|"
    r"\bmeant to ship\b|\bsafe to (?:ship|expose|commit)\b|\bpublic by design\b|"
    r"\bit'?s public\b|\(client[ -]side\)|\bnot a secret\b|\((?:"
    + words.PUBLIC_WORDS
    + "|"
    + words.NOT_SECRET
    + r")[),;])"
)


# The claims of jwt.io's sample token, in every JWT tutorial.
_JWT_IO_SAMPLE = {"sub": "1234567890", "name": "John Doe", "iat": 1516239022}


def public(value: str) -> bool:
    """A key public by design: one of PUBLIC_PREFIXES, or a JWT whose role is `anon` (Supabase's
    anon key, which its clients ship)."""
    if value.startswith(PUBLIC_PREFIXES) or _PUBLIC_TOKEN.fullmatch(value):
        return True
    if _DUO_IKEY.fullmatch(value) or _TWILIO_SID.fullmatch(value) or _LIVEKIT_KEY.fullmatch(value):
        return True
    if _GA_COOKIE.fullmatch(value):
        return True  # Google Analytics' `_ga` cookie: a visitor's id and a time
    if not value.startswith("eyJ") or value.count(".") != 2:
        return False
    payload = value.split(".")[1]
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (ValueError, UnicodeDecodeError):
        return False
    if isinstance(claims, dict) and claims == _JWT_IO_SAMPLE:
        return True  # jwt.io's sample token (John Doe), whatever signature a copy carries
    return isinstance(claims, dict) and claims.get("role") == "anon"

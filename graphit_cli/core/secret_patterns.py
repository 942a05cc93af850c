"""graphit's own secret rules: what the detector looks for, besides gitleaks' rules.

The context rules (a value is a secret because of what names it: assignments, URLs, headers,
prose that names a credential, .npmrc and .pgpass lines, SAS signatures; what commands and
tools hold is core/secret_commands.py) and the literals that wake each rule; the provider
formats gitleaks' rules (core/secret_rules.py) miss are core/secret_formats.py. What a value
found by a rule must be to count (not a placeholder, a reference, a name, a key public by
design) is core/secret_values.py. core/secrets.py runs them all over a text. Tuned against
graphit's corpora (benchmarks/secrets_corpus.py) and the classes blind corpora showed
(benchmarks/data/blind_secrets); measured on corpora not tuned on. Pure: standard library only.
"""

from __future__ import annotations

import re

from graphit_cli.core import secret_codes as codes
from graphit_cli.core import secret_commands as commands
from graphit_cli.core import secret_words as words
from graphit_cli.core.secret_formats import WAKES

# A private key block: the header and at least one line of key material (a header alone, in a
# note saying what a file starts with, is no secret). A public key or certificate never matches.
PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP |SSH2 ENCRYPTED )?"
    r"PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[ \t]*\r?\n(?:[ \t]*[A-Za-z0-9-]+:[^\n]*\n)*[ \t]*|[ \t]+)[A-Za-z0-9+/=]{20,}"
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
    r"api[_-]?key|access[_-]?key(?:[_-]?id)?|private[_-]?key|auth[_-]?(?:token|key|tok)|credentials?|"
    r"psk|wpa[_-]?passphrase|pepper|"
    r"(?:app|master|signing|encryption|session|license|jwt|hmac|aes|cipher|fernet)[_-]?key|\bkey|"
    r"_key|_pat))"
    # a type between the name and `=` (`SECRET_KEY: str =`, `MASTER_KEY: &str =`)
    r"[\"']?\]?(?:[ \t]*:[ \t]*&?(?:\[[\w; ]{1,10}\]|[A-Za-z][\w.]*)(?:<[^>\n]{0,40}>)?"
    r"(?=[ \t]*=))?"
    r"[ \t]{0,3}(?::=|=>|=|:|(?<=[A-Za-z])(?=[ \t]+[\"']))[ \t]{0,3}"
    # a literal's prefix or a conversion around it (`b"..."`, `[]byte("...")`)
    r"(?:[bBrRuU]?(?=[\"'`])|[\w.\[\]()]{1,40}\((?=[\"'`]))?"
    r"(?:(?P<q>[\"'`])(?P<quoted>[^\"'`\n]{1,300})(?P=q)|"
    r"(?P<bare>[a-z]{4}(?: [a-z]{4}){3}(?![ \w])|[^\s\"'`,;)\]}>]{1,300}))"
)
# user:password@host in a URL or connection string.
URL_PASSWORD = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://(?P<user>[^\s:/@\"'<>]{0,100}):"
    r"(?P<value>(?!\d+/)[^\s\"'<>]{1,200})@(?=[\w.-]|/)"
)
# An Authorization header's credential, or a bearer token written out.
BEARER = re.compile(
    r"(?i:\b(?:bearer|token|ssws)\s+|"
    r"authorization[\"']?\s*[:=]\s*[\"']?(?!basic\b)[a-z][\w-]*\s+)"
    r"(?P<value>[A-Za-z0-9._~+/:-]{20,}=*)(?![\w.~+/:-])"
)
BASIC = re.compile(
    r"(?<![\w-])(?i:basic(?:[ -]auth)?(?: header)?|auth(?: for [^\s:]{3,60})?):?\s+"
    r"(?P<value>[A-Za-z0-9+/]{12,}={0,2})(?![\w+/=])"
)
# A user and a password passed as a pair (`auth=("bot", "...")`, `basic_auth=(...)`), a Twilio
# account's SID and auth token (`Client("AC...", "...")`), a JWT signed with a literal.
AUTH_PAIR = re.compile(
    r"(?:\b(?:basic_)?auth\s*=\s*\(\s*[\"'][^\"'\n]{1,100}[\"']\s*,|"
    r"\b(?:AC|SK)[0-9a-f]{32}[\"']?\s*[,:]|\bjwt\.(?:sign|encode)\(\s*[^,()\n]{1,60},|"
    r"\bClient\(\s*[\"']AC[\"']\s*\+\s*\w+\s*,)"  # `Client('AC' + sid, '...')`
    r"\s*[\"'`]?(?P<value>[^\s\"'`,)]{8,300})"
)
# A credential named in prose, its value after it: `the secret access key jRLO...`, `API key
# (full access): u+kP...`, `password 8Xma...`, `login is admin / a72f...`. Taken only when the
# value looks generated (`random_looking`): prose names keys and passwords all the time.
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"  # kana, CJK ideographs, Hangul
PROSE = re.compile(
    r"(?P<name>(?i:密[码碼]|密[钥鑰]|パスワード|キー|비밀번호|시크릿|토큰|トークン|シークレット|(?<![가-힣])키|"
    r"(?:\b|(?<=[" + _CJK + r"]))(?:(?:"  # `のPW：`, a Latin name right after Japanese
    r"(?:key|store|keystore) ?password|(?!username)[a-z]{2,12}password|password|passphrase|pass|"
    r"(?:auth|priv|enc)[ _-]?pass(?:word|phrase|key)?|(?:klucz|clé|chave|clave|chiave|anahtar\w*"
    r"|klíč|kunci|kulcs|nøkkel|nyckel) api|"
    r"(?!htpasswd)[a-z]{2,12}pass(?:phrase|wd)|passwd|keybox|autoboot stop str(?:ing)?|"
    r"auth-?info(?: code)?|epp code|"
    r"passcode|passkey|pw|bearer|macaroon|laps|skey|"
    r"secrets?|keys?|tokens?|pat|seed|psk|パス|snmp\w*[^\n]{0,20}?\bcommunity(?: string)?|"
    r"(?:comunidade?|communaut[ée]|comunit[àa]|community)[ \t]+snmp|"
    r"passwort|kennwort|contrase[ñn]a|mot de passe|senha|wachtwoord|hasło|chave|clave|clé|"
    r"schlüssel|klucz|sleutel|anahtar\w*|ключ\w*|парол\w*|şifre\w*|parola|chiave|sekret|"
    r"segreto|secreto|khóa|mật khẩu|mdp|ww|cyfrinair|heslo|jelszó|lösenord|passord|salasana|"
    r"kodeord|adgangskode|" + words.MORE_NAMES + "|" + words.COMPOUND_NAMES + "|"
    r"(?:rw|ro|read-?write|write) community(?: string)?|"
    r"(?:app|api|auth|access|secret|private|master|signing|encryption|fernet|hmac|certificate)"
    r"[ _-]?key|dek|data[ _-]?key|pepper|new (?:value|key|token|password|secret)|"
    r"neue[rn]? (?:wert|schlüssel|key|token)|"
    r"nuov[ao] (?:chiave|token|valore)|nouvel(?:le)? (?:clé|valeur)|новый|новое значение|yenisi|"
    r"valor nuevo|nuevo valor|valor novo|novo valor|valore nuovo|secret_key_base|"
    r"(?:validation|decryption)[ _-]?key|"
    r"client[ _-]?secret|unseal (?:key|share)|wg genkey output|privkey|priv[ _]key|gslt|"
    r"requirepass|nwkskey|appskey|appkey|networkkey|network[ _-]key|answer|memorable word|"
    r"auth[- ]?code|transfer code|setup key|text key)\b|"
    r"(?:log(?:s|ged)?[ -]?in|sign(?:s|ed)?[ -]?in)\b(?:[^\n:=;]|:(?=\d)){0,50}?[\"'`]?"
    r"[\w.@-]+[\"'`]?[ \t]*(?:/|\bwith\b))|"
    r"\b[A-Z][A-Z0-9_]*_(?:KEY|SECRET|PASSWORD|TOKEN|PEPPER|SALT)\b))"
    r"(?:'(?:[ıiuü]|y[ıiuü]|[ıiuü]n|n[ıiuü]n)(?![\w']))?"  # Turkish `secret'ı`, `key'in`
    r"(?![\"'])"  # not a JSON field `"key":`
    r"(?P<label>[ \t]+(?:is|was|ist|es|est|é|admin|root|amministratore|administrat\w+"
    r"|administrador)|(?:[^\n=.;]|\.(?=\S)){0,100}?"
    r"(?::|：|\)[ \t]*:?|[ \t]*(?:→|->|=>)|[ \t]=(?=[ \t]*[„“«]|[ \t](?!\S*\())|"
    r"[ \t](?:is|was|ist|es|est|é|è|là|ni|jest|je|är|adalah|ialah|este|είναι|это|"
    r"lautet|contains|(?:changed|set|rotated|reset|updated)(?: today| again| back)? to|"
    r"(?:(?<=\bpw[ \t])|(?<=password[ \t])|(?<=passwd[ \t]))(?:back[ \t]+)?to(?=[ \t]))|"
    r"'s(?![ \t]+\w+:)|是|為|为|は|"
    r"(?=[ \t]*[«“„])))?"
    r"(?:[ \t]+(?:now|still|jetzt|ahora|maintenant|agora))?"
    r"(?:[ \t]*[«“„][ \t]?|(?<=[是為为：は])[ \t]*|[ \t]+[\"'`]?|"
    r"(?<=[" + _CJK + r"]:)|"  # `WiFi 密碼:...`, unspaced
    r"(?<=[:：])[ \t]*\n[ \t]*[\"'`]?(?![\w.-]+=))"  # or on the line after the label
    r"(?P<value>[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){3,7}\b|[a-z]{16}\b|"  # an app password
    # a digit, a capital or a symbol in it (`the key ... DB is encrypted` reads on to `: j3nK`)
    r"(?=[^\s\"'`]*[0-9A-Z!#$%&*+/=?@^_~-])"
    r"[^\s\"'`,;()|<>\[\]{}，。；：»”“（）【】「」][^\s\"'`,;()|<>\[\]{}，。；：»”“（）【】「」]{6,198}"
    r"[^\s\"'`,;().:!?|<>\[\]{}，。；：»”“（）【】「」])"
)
# A user and a password written as `user / password` after what they open (`admin / ...`,
# `login ADMIN / ...`, `cn=svc,dc=acme / ...`).
USER_PASS = re.compile(
    r"(?i:\b(?:admin|(?:super)?user(?:name)?|login|creds?|credentials|account|bind|vpn|password|ssh|"
    r"wi-?fi|conn|"
    r"ssid|root|"
    r"contrase[ñn]a|passwort|" + words.ACCOUNT_NAMES + r")\b)[^\n]{0,90}?"
    r"(?:[:\s]|(?<=\w))[ \t]*(?:[\"'`]?[\w.@+=,-]{2,80}[\"'`]?)?[ \t]+/[ \t]+"
    r"(?P<value>[^\s\"'`,;|][^\s\"'`;|]{5,100}[^\s\"'`,;|.)])"
    r"(?![^\s\"'`,;|.)])(?![ \t]+/[ \t]+\S)"  # a host, a user, a password: the last
)
# A name and its value as attributes or fields (`<add key="ClearTextPassword" value="..."/>`,
# Postman's `{"key": "apiKey", "value": "..."}`), a config directive (`requirepass ...`), a
# Postfix `sasl_passwd` line (`[host]:587 user:password`).
KEY_VALUE = re.compile(
    r"(?i:\b(?:key|name)[\"']?\s*[=:]\s*[\"'](?P<name>[\w.-]*(?:password|passwd|secret|token|api_?key))"
    r"[\"']\s*,?\s*[\"']?value[\"']?\s*[=:]\s*[\"'])(?P<value>[^\"'\n]{6,300})[\"']"
)
DIRECTIVE = re.compile(
    r"(?:\b(?:requirepass|masterauth)|\[[\w-]+(?:\.[\w-]+)+\]:\d+[ \t]+[^\s:@]+@[^\s:]+:|"
    r"\b(?:password|secret|key) [057] )"
    r"[ \t]*(?P<value>\S{6,300})"
)
# An Authorization header with no scheme, the key alone (SparkPost's, ClickUp's).
AUTH_RAW = re.compile(
    r"(?i:\bauthorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?P<value>[A-Za-z0-9._~+/-]{20,}=*)(?![\w.~+/:-])"
)
# A live stream's ingest URL, whose last part is the stream key.
STREAM_KEY = re.compile(
    r"rtmps?://[\w.-]+(?::\d+)?/(?:[\w-]+/)*(?:app|live|rtmp|live2|stream)/(?P<value>[\w-]{16,200})"
)
# A FIX logon's Password (554), NewPassword (925) or RawData (96, a password at some venues).
FIX_PASSWORD = re.compile(r"(?<![\w.])(?:554|925|96)=(?P<value>[^|\x01\s]{6,100})(?=[|\x01\s]|$)")
# PHP's define('DB_PASSWORD', '...'), WordPress's keys and salts.
DEFINE = re.compile(
    r"\bdefine\(\s*[\"'](?P<name>\w*(?:PASSWORD|PASS|KEY|SALT|SECRET|TOKEN))[\"']\s*,\s*"
    r"[\"'](?P<value>[^\"'\n]{6,300})[\"']"
)
# An XML element that holds one (`<password>...</password>` in Maven's settings.xml, NuGet).
XML_ELEMENT = re.compile(
    r"(?i:<(?P<name>[\w:-]*(?:password|passwd|pass|pwd|secret|token|apikey|api-key|"
    r"cleartextpassword|(?:shared|secret|private|access|auth|master|signing|encryption)key))"
    r"(?:\s[^<>]*)?>)"
    r"(?P<value>[^<\s]{6,300})</"
)
# A wallet's private key in a Hardhat or Truffle config (`accounts: ["0x..."]`).
WALLET_KEY = re.compile(
    r"(?:\baccounts\s*:\s*\[|\bWallet\()\s*[\"'](?P<value>(?:0x)?[0-9a-fA-F]{64})[\"']"
)
# A chain's private key (32 bytes in hex) after what signs with it: `signer pk: 0x...`,
# `SAFE_PROPOSER_PK=`, `signs with 0x...`, an execution client's `jwt.hex`.
CHAIN_KEY = re.compile(
    r"(?i:(?<![a-z])(?:pk|priv(?:ate)?[ _-]?key|signer|signs? with|signing[ _-]key|suri|"
    r"secret[ _-]seed|wallet[ _-]key|deployer[ _-]key|jwt(?:\.hex|[ _-]?secret))(?![a-z]))"
    r"(?P<between>[^\n]{0,60}?)(?<![0-9A-Za-z])(?P<value>(?:0x)?[0-9a-fA-F]{64})(?![0-9A-Za-z])"
)
# A session cookie or id (`sessionid=`, `connect.sid=`, `_app_session=`, `JSESSIONID=`).
SESSION_COOKIE = re.compile(
    r"(?i:\b[\w.-]*(?:sess(?:ion)?(?:_?id)?|[._]sid)|(?<![\w.-])(?:__(?:host|secure)-)?sid|"
    r"\.AspNetCore\.\w+)"
    r"(?:=|(?i:(?<=sessionid)|(?<=sessid))[ \t]+)"
    r"(?P<value>[^\s;,\"'&]{16,400})"
)
# A session cookie in a HAR file or a devtools export: `"name": "session", "value": "..."`.
HAR_COOKIE = re.compile(
    r"(?i:\"name\"\s*:\s*\"(?P<name>[\w.-]*(?:sess(?:ion)?(?:_?id)?|sid|auth|token)[\w.-]*)\"\s*,"
    r"\s*\"value\"\s*:\s*\")(?P<value>[^\"\s]{16,400})\""
)
# A token in a URL's query (`?access_token=`, a magic link's `?t=`, a presigned URL's signature).
QUERY_TOKEN = re.compile(
    r"[?&](?P<name>(?i:access_token|auth_token|id_token|refresh_token|token|t|"
    r"x-amz-signature|x-goog-signature|x-amz-security-token|signature|secret|api_key|apikey|key|"
    r"client_secret|appid|app_key|subscription-key|passphrase|password|passwd|pwd))"  # SRT's
    r"=(?P<value>[A-Za-z0-9._~%+/-]{20,600})"
)
# An e-mail address and a password after a slash: `ops@acme.io / Meadowsaffron4291$`.
EMAIL_PASS = re.compile(
    r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+[ \t]+(?:/|->|→|=>)[ \t]+"
    r"(?P<value>[^\s\"'`,;|][^\s\"'`;|]{5,100}[^\s\"'`,;|.)])"
)
# A TOTP seed in an otpauth:// URL.
OTPAUTH = re.compile(r"otpauth://[^\s?]*\?(?:[^\s]*&)?secret=[A-Za-z2-7]{16,}")
# A PuTTY private key file: its private lines.
PUTTY = re.compile(r"(?m:^)[ \t]*Private-Lines: *\d+\s+[A-Za-z0-9+/=]{16,}")
# A JSON Web Key with its private part `d`.
JWK_PRIVATE = re.compile(
    r"\"kty\".{0,400}?\"d\"\s*:\s*\"[A-Za-z0-9_-]{20,}\"|\"d\"\s*:\s*\"[A-Za-z0-9_-]{40,}\"", re.S
)
# A wallet's seed phrase after its name: 12 to 24 short lowercase words.
SEED_PHRASE = re.compile(
    r"(?i:(?<![a-z])(?:seed|mnemonic|recovery|secret phrase|backup|semente|semilla|"
    r"wallet words|(?:12|15|18|21|24)[ -]words)(?![a-z])|助记词|"
    r"фраза восстановления)"
    r"[^\n]{0,100}?[:=：][ \t]*(?:\|[-+]?)?[ \t]*\n?[ \t]*[\"']?"
    r"(?P<value>(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})(?![a-z])"
)
# An Azure shared access signature's `sig=` in a URL or a connection string.
SAS_SIGNATURE = re.compile(r"(?:[?&;]|\b)sig=(?P<value>[A-Za-z0-9%+/_-]{20,}={0,2})")
# A .pgpass line: `host:port:database:user:password`.
PGPASS = re.compile(
    r"(?m):(?<=[\w.*-]:)(?:\d{4,5}|\*):[\w.*-]+:[\w.*@-]+:(?P<value>[^\s:]+)[ \t]*$"
)
# `//registry.npmjs.org/:_authToken=...` in an .npmrc.
_NPMRC = re.compile(r":_(?:authToken|auth|password)=(?P<value>[^\s\"'${][^\s\"']{7,})")

# A credential's variable named in prose, its value a few words on (`the job reads DD_API_KEY,
# now 88e9...`, `P24_API_KEY padhta hai, abhi value ...`): taken when the value looks generated.
ENV_PROSE = re.compile(
    r"(?<![$%{])\b(?P<name>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:KEY|SECRET|PASSWORD|PASS|TOKEN|PAT))\b(?![=:])"
    r"[^\n=(){}\[\];$]{1,50}?[\s`'\"«“](?![A-Za-z_]\w*\.[A-Za-z_])(?P<value>[^\s\"'`,;()«»“”$]{11,200}[^\s\"'`,;().:!?«»“”$])"
)
# A Wi-Fi QR code's string: `WIFI:T:WPA;S:<ssid>;P:<password>;;`.
WIFI_QR = re.compile(r"WIFI:(?:[^;\n]*;)*?P:(?P<value>[^;\n]{8,63});")

# `arn:aws:secretsmanager:...:secret:prod/db-AbCdEf`: an ARN's `secret:` names a resource.
ARN = re.compile(r"\barn:[\w-]+:[\w-]*:[\w-]*:\d*:$")

# --- what wakes each rule -------------------------------------------------------------------
# Where an assignment's name can begin: the rule is tried at these words only.
_KEYED = (
    *("app", "master", "signing", "encryption", "session", "license", "jwt", "hmac", "aes"),
    "fernet",
)
NAME_STARTS = (
    *("pass", "pwd", "secret", "token", "api", "access", "private", "auth", "credential"),
    # `app` and its kind begin too many words (`application`): tried where `_key` follows
    *(f"{word}{sep}key" for word in (*_KEYED, "cipher") for sep in ("", "_", "-")),
    *("key", "_key", "psk", "wpa", "_pat", "pepper"),
)
# Rules tried only where one of their literals begins a word (the whole detector's cost is in
# the rules that run over every text holding a common word: `key`, `pass`, `token`).
AT_WORDS = (PROSE, codes.PIN_STATED)
# How each context rule's value is judged (core/secret_values.py `judged`): the whole match is
# the secret; the value counts when it is credible; when it looks generated or chosen, for
# the words around it; a seed phrase's words; a Basic credential's `user:password`.
ROLES = {
    PRIVATE_KEY: "whole",
    PUTTY: "whole",
    JWK_PRIVATE: "whole",
    codes.RECOVERY_CODES: "whole",
    WALLET_KEY: "whole",
    PROSE: "named",
    ENV_PROSE: "named",
    SESSION_COOKIE: "named",
    HAR_COOKIE: "named",
    QUERY_TOKEN: "named",
    EMAIL_PASS: "chosen",
    codes.PIN: "pin",
    OTPAUTH: "whole",
    AUTH_RAW: "bearer",
    STREAM_KEY: "named",
    USER_PASS: "chosen",
    SEED_PHRASE: "seed",
    CHAIN_KEY: "key-near",
    BASIC: "basic",
    URL_PASSWORD: "url",
    BEARER: "bearer",
    **commands.ROLES,
    **codes.ROLES,
}


# The context rules: (rule, kind, the lowercase literals that wake it).
CONTEXT_RULES = (
    (PRIVATE_KEY, "private-key", ("private key",)),
    (URL_PASSWORD, "password-in-url", ("://",)),
    (BEARER, "bearer-token", ("bearer", "token", "ssws", "authorization")),
    (BASIC, "basic-auth", ("basic", "auth")),
    (ENV_PROSE, "credential", ("_key", "_secret", "_pass", "_token", "_pat")),
    (WIFI_QR, "wifi-password", ("wifi:",)),
    (SAS_SIGNATURE, "azure-sas-token", ("sig=",)),
    (
        PROSE,
        "credential",
        (
            *(
                "pass",
                "pw",
                "secret",
                "key",
                "token",
                "pat ",
                "pat:",
                "pat(",
                "seed",
                "bearer",
                "macaroon",
                "laps",
            ),
            *("login", "log in", "logs in", "logged in", "log-in", "signin", "sign in"),
            *("sign-in", "signs in", "signed in"),
            *("kennwort", "contrase", "mot de passe", "senha", "wachtwoord", "密码", "密钥"),
            *("密碼", "密鑰"),
            *("パスワード", "キー", "hasło", "chave", "clave", "clé", "schlüssel", "psk", "パス"),
            *("klucz", "sleutel", "anahtar", "ключ", "парол", "şifre", "parola", "chiave"),
            *("sekret", "segreto", "secreto", "khóa", "mật khẩu", "비밀번호", "시크릿", "토큰"),
            *("mdp", "ww", "cyfrinair", "heslo", "jelszó", "lösenord", "passord", "salasana"),
            *("kodeord", "adgangskode", *words.PASSWORD_NAMES, *words.KEY_NAMES),
            *("comunidad", "communaut", "comunit"),
            *("トークン", "シークレット", "키", "new ", "neue", "nuov", "nouvel", "новый", "новое"),
            *("yenisi", "fernet", "changed to", "contains", "snmp", "unseal", "genkey"),
            *("privkey", "priv_key", "priv key", "gslt", "requirepass", "skey", "appkey"),
            *("networkkey", "network key", "network_key", "answer", "memorable", "auth-code"),
            *("auth code", "authcode", "transfer code", "dek", "pepper", "valor", "novo valor"),
            *("passwd", "keybox", "autoboot"),
        ),
    ),
    (AUTH_PAIR, "password", ("auth", "client(", "twilio", "jwt.")),
    (USER_PASS, "password", (" / ",)),
    (DEFINE, "secret", ("define(",)),
    (KEY_VALUE, "secret", ("value=", 'value":', "value':", 'value" :')),
    (FIX_PASSWORD, "password", ("554=", "925=", "96=")),
    (AUTH_RAW, "api-key", ("authorization",)),
    (STREAM_KEY, "stream-key", ("rtmp",)),
    (
        DIRECTIVE,
        "password",
        ("requirepass", "masterauth", "]:", "password 7", "password 5", "password 0", "key 0"),
    ),
    (DIRECTIVE, "secret", ("secret 5", "secret 7", "secret 0")),
    (
        XML_ELEMENT,
        "password",
        ("pass>", "passwd>", "pwd>", "secret>", "token>", "apikey>", "api-key>", "key>", "<pass"),
    ),
    (WALLET_KEY, "private-key", ("accounts", "wallet(")),
    (
        CHAIN_KEY,
        "private-key",
        ("pk", "priv", "signer", "signs with", "sign with", "signing", "suri", "seed", "jwt"),
    ),
    (SESSION_COOKIE, "session-cookie", ("sess", "sid=", ".aspnetcore.")),
    (HAR_COOKIE, "session-cookie", ('"name"',)),
    (
        QUERY_TOKEN,
        "token",
        ("token=", "t=", "signature=", "secret=", "sig=", "key=", "appid=", "passphrase="),
    ),
    (QUERY_TOKEN, "password", ("password=", "passwd=", "pwd=")),
    (EMAIL_PASS, "password", ("@",)),
    (
        codes.PIN,
        "pin",
        words.PIN_LITERALS,
    ),
    (OTPAUTH, "totp-seed", ("otpauth://",)),
    (PUTTY, "private-key", ("private-lines:",)),
    (JWK_PRIVATE, "private-key", ('"kty"', '"d"')),
    (codes.RECOVERY_CODES, "recovery-codes", ("codes", *words.RECOVERY_LITERALS)),
    (codes.RECOVERY_CODE, "recovery-codes", words.RECOVERY_LITERALS),
    (
        SEED_PHRASE,
        "seed-phrase",
        (
            *("seed", "mnemonic", "phrase", "backup", "助记词", "фраза", "semente", "semilla"),
            *("recovery", "wallet words", "12 words", "24 words", "18 words", "12-words"),
        ),
    ),
    (PGPASS, "password", ()),  # no literal: its pattern begins with `:`, which `re` looks for
    (_NPMRC, "npm-token", (":_",)),
    *commands.RULES,
    *codes.RULES,
)

GATE_LITERALS = sorted(
    {*WAKES, *NAME_STARTS, *(n for _, _, needs in CONTEXT_RULES for n in needs)},
    key=len,
    reverse=True,
)

"""Context rules for what commands, code and tools' files hold: a password a command takes by
a flag (`--password=`, `mysql -p`, `curl -u user:pw`) or as an argument (`sqlplus user/pw@db`,
`mosquitto_passwd -b file user pw`, `IDENTIFIED BY '...'`), one echoed into a file or a login,
a setter called with one (`ArduinoOTA.setPassword("...")`), what a command, a password manager
or a key generator printed (`cat master.key`, `op read ...`, `wg genkey`), a pgbouncer
userlist's and a browser export's entries, a PEM private key in base64 (a kubeconfig's
`client-key-data`).

Each is a pattern with a `value` group (or a whole match), judged as core/secret_patterns.py
ROLES says; core/secret_patterns.py CONTEXT_RULES lists them with the literals that wake
them. Tuned on the classes blind corpora showed (benchmarks/data/blind_secrets). Pure: standard
library only.
"""

from __future__ import annotations

import re

# A password passed on a command line: `docker login -p X`, `mysql -pX`, `--password=X`,
# `curl -u user:X`.
FLAG = re.compile(
    r"(?:--(?:[\w-]*-)?(?:pass(?:word|wd)?|(?:api|account|access|auth|secret|private)-key|token|"
    r"client-secret|auth|pin|pop|jwt-secret(?:-hex)?)[= ]|\+?sv_setsteamaccount |"
    r"(?:login|mysql|mysqldump|mysqladmin|sshpass)\b[^\n]{0,60}?\s-p ?|"
    r"(?:redis-cli|fs_cli)\b[^\n]{0,60}?\s-[ap] ?|(?:wandb|cargo) login |"
    r"poetry config http-basic\.\S+ \S+ |ngrok (?:config add-)?authtoken |"
    # no `\b` before the words: each branch begins with a letter `re` can look for
    r"ldap\w+\b[^\n]{0,120}?\s-w ?|mosquitto_(?:pub|sub)\b[^\n]{0,80}?\s-P ?|"
    r"oathtool\b[^\n]{0,30}?\s-b |(?<![\w-])-?(?:src|dest)?(?:storepass|keypass)[ :]|"
    r"lftp\b[^\n]{0,40}?\s-u\s+[^\s,]+,|"
    r"security (?:import|unlock-keychain|create-keychain)\b[^\n]{0,80}?\s-[Pp] |"
    r"vault operator unseal |sentinel auth-pass \S+ |"
    r"rabbitmqctl (?:add_user|change_password) \S+ |mc alias set \S+ \S+ \S+ |"
    r"curl\b[^\n]{0,80}?\s(?:-u|--user)[ =]?[^\s:\"']{1,100}:|"
    r"\bhttps?\b[^\n]{0,80}?\s(?:-a|--auth)[ =]?['\"]?[^\s:\"']{1,100}:|"
    r"(?:altool|vsce publish|ovsx publish)\b[^\n]{0,120}?\s-p |signtool\b[^\n]{0,80}?\s/p |"
    r"snyk auth |\bsc\b[^\n]{0,40}?\s-k )[\"']?(?P<value>[^\s\"'`,;]{6,200})"
)
# A secret written to a file named for one (`echo '...' > ~/.vault_pass.txt`).
ECHO_TO_FILE = re.compile(
    r"\becho\s+[\"']?(?P<value>[^\s\"']{6,300})[\"']?\s*(?:>\s*\S*(?i:pass|secret|token|key)|"
    r"\|\s*(?:docker|podman|helm|oras|nerdctl)\s+(?:registry\s+)?login\b|"
    r"\|\s*(?:gpg\b[^\n]*--passphrase-fd|sudo -S|passwd --stdin|chpasswd))"
)
# A command that prints a secret and what it printed on the next line or two (`$ cat
# config/master.key`, `terraform output -raw db_password`, `kubectl get secret ... | base64 -d`,
# `elasticsearch-reset-password` and its `New value: ...`).
PRINTED = re.compile(
    r"(?m)^[ \t]*(?:\$|#|>|PS>)?[ \t]*(?:cat[ \t]+\S*(?i:key|secret|pass|token|cred)\S*|"
    r"terraform[ \t]+output[ \t]+(?:-raw[ \t]+)?\S*(?i:pass|secret|key|token)\S*|"
    r"kubectl\b[^\n]*\bsecret\b[^\n]*(?:base64[ \t]+(?:-d|--decode|-D)|base64decode)[^\n]*|"
    r"[^\n]*(?:reset-password|initial-password)\b[^\n]*)[ \t]*\n(?:[^\n]*\n)?"
    r"(?:(?i:new value|new password|password)[ \t]*:[ \t]*)?"
    r"(?P<value>[^\s\"'`]{8,300})[ \t]*$"
)
# A database client's `user/password@connect`: SQL*Plus, RMAN, Data Pump, a saved connection
# (`conn for DWH: etl / ...` is USER_PASS's). The value stops at `@`, `/` or a space.
CONNECT = re.compile(
    r"(?i:\b(?:sqlplus|rman|sqlldr|expdp|impdp|dgmgrl|exp|imp|connect as)\b)[^\n]{0,40}?"
    r"(?<![\w/])[\w$#]{1,30}/(?P<value>[^\s/@\"'`]{6,100})(?=@|\s|$)"
)
# A password given as a command's positional argument after the user, or a tool's own
# store command: `mosquitto_passwd -b FILE USER PW`, `htpasswd -bc FILE USER PW`, `mkstore ...
# -createCredential ALIAS USER PW`, `steamcmd +login USER PW`, `confluent api-key store KEY
# SECRET`, `nuget setapikey KEY`, `anaconda -t TOKEN`.
POSITIONAL = re.compile(
    r"(?:mosquitto_passwd\b[^\n]{0,40}?\s-b\s+\S+\s+\S+|htpasswd\b[^\n]{0,20}?\s-\w*b\w*\s+\S+\s+\S+|"
    r"mkstore\b[^\n]{0,120}?\s-(?:create|modify)Credential\s+\S+\s+\S+|"
    r"steamcmd\b[^\n]{0,60}?\+login\s+\S+|confluent api-key store\s+\S+|nuget setapikey|"
    r"anaconda\b[^\n]{0,20}?\s-t|codecov\b[^\n]{0,80}?\s-t|radtest(?:\s+\S+){4}|"
    r"wpa_passphrase\s+\S+)"
    r"[ \t]+[\"']?(?P<value>[^\s\"'`]{6,200})"
)
# SQL that sets a password: `CREATE USER ... IDENTIFIED BY '...'` (MySQL, Oracle).
SQL_PASSWORD = re.compile(
    r"(?i:\bidentified\s+(?:with\s+\w+\s+)?by\s+)(?!password\b)"
    r"(?P<q>[\"'`]?)(?P<value>[^\s\"'`;]{6,200})(?P=q)"
)
# Redis's `ACL SETUSER name on >password`.
REDIS_ACL = re.compile(
    r"(?i:\bacl\s+setuser\s+\S+|^user\s+\S+\s+on\b)[^\n]*?\s>(?P<value>[^\s]{6,200})", re.MULTILINE
)
# A setter called with a literal: `ArduinoOTA.setPassword("...")`, `.withApiKey('...')`.
SETTER = re.compile(
    r"(?i:\b(?:set|with|use)_?(?P<name>password|passwd|passphrase|secret|api_?key|auth_?token|"
    r"access_?token|token|private_?key))\s*\(\s*(?P<q>[\"'])(?P<value>[^\"'\n]{6,300})(?P=q)\s*[,)]"
)
# What a password manager or a key generator printed, on the line after its command
# (`$ op read op://...`, `$ pass show email/x`, `$ security find-generic-password ... -w`) or on
# its own line after a word that says so (`bw unlock --raw printed ...`, `wg genkey output
# for the laptop: ...`).
MANAGER_OUTPUT = re.compile(
    r"(?i:\b(?:op read|op item get\b[^\n]*--reveal|pass show|gopass show|bw get password|"
    r"bw unlock|security find-generic-password\b[^\n]*\s-w|keepassxc-cli show|wg genkey|"
    r"rclone obscure|consul keygen|openssl rand -(?:base64|hex) \d+|"
    r"vault kv get\b[^\n]*-field[= ]\S*pass\S*))"
    r"(?:[^\n]*\n|[^\n:]{0,60}?(?:\bprinted|\boutputs?|\bgave|\breturned|->|→|:(?=[ \t])))"
    r"[ \t]*(?P<value>[^\s\"'`]{8,300})"
)
# A pgbouncer userlist's entry: `"user" "password"` (the md5 and SCRAM forms are provider
# formats: core/secret_formats.py), on its own line or after `userlist`.
USERLIST = re.compile(
    r"(?:(?m:^)|(?i:\buserlist\b)[^\n\"]{0,20})[ \t]*\"[\w.@-]{1,63}\"[ \t]+"
    r"\"(?P<value>[^\"\n]{6,300})\"[ \t]*(?:$|\n)"
)
# A browser's password export row: `"https://site","user","password"` (Firefox's order; Chrome's
# begins with a name).
BROWSER_CSV = re.compile(
    r"\"https?://[^\"\n]{1,300}\"\s*,\s*\"[^\"\n]{0,200}\"\s*,\s*\"(?P<value>[^\"\n]{6,200})\""
)
# A PEM private key in base64 (`client-key-data: LS0tLS1CRUdJTi...`): the header decodes to
# `-----BEGIN ... PRIVATE KEY-----` (core/secret_context.py `judged`, role "pem64").
PEM_BASE64 = re.compile(r"(?P<value>LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2})")
# An SMTP session's credentials: `AUTH PLAIN <base64 of \0user\0password>`, or the line after
# the server's `334 UGFzc3dvcmQ6` ("Password:") in an `AUTH LOGIN` exchange.
SMTP_PLAIN = re.compile(r"(?i:\bAUTH PLAIN)[ \t]+(?P<value>[A-Za-z0-9+/]{8,}={0,2})")
SMTP_LOGIN = re.compile(r"334 UGFzc3dvcmQ6[ \t]*\r?\n[ \t]*(?P<value>[A-Za-z0-9+/]{4,}={0,2})")
# An expect script that answers a password prompt: `expect "password:"` then `send "...\r"`.
EXPECT_SEND = re.compile(
    r"(?i:\bexpect)[ \t]+[\"'{][^\n]*(?i:password|passphrase|passcode)[^\n]*\n[ \t]*"
    r"send[ \t]+(?:--[ \t]+)?[\"'{](?P<value>[^\"'}\n\\]{4,200})"
)
# A key given to a cipher's or a MAC's constructor: `Fernet(b"...")`, `hmac.new(b"...", ...)`.
KEY_CONSTRUCTOR = re.compile(
    r"\b(?:(?:Fernet|AESGCM|AESSIV|ChaCha20Poly1305|SecretBox|hmac\.new|session\.start)\(|"
    r"setVapidDetails\([^()\n]*,[^()\n]*,)\s*b?"
    r"(?:base64\.b64decode\(|bytes\.fromhex\()?"
    r"(?P<q>[\"'])(?P<value>[^\"'\n]{16,300})(?P=q)"
)
# A Basic header built inline: `Basic $(echo -n key: | base64)` (the key is the user).
BASIC_INLINE = re.compile(
    r"(?i:basic\s+\$\(\s*(?:echo|printf)(?:\s+-n)?\s+[\"']?)(?P<value>[^\s:\"'$]{12,200})"
    r":[^\s|\"']*[\"']?\s*\|\s*base64"
)
# A password or key a tool takes as an argument: PowerShell's `ConvertTo-SecureString ...
# -AsPlainText`, `net use`, `dtexec /DECRYPT`, a T-SQL `@...password` parameter,
# `-StorageAccountKey`, a modem's `AT+CGAUTH`, `x11vnc -passwd`, `openssl passwd` and `enc -k`,
# Yocto's `useradd -P`, `tpm2_changeauth`, U-Boot's `setenv ...pass...` and autoboot stop string.
TOOL_ARGUMENT = re.compile(
    r"(?i:ConvertTo-SecureString\s+(?:-String\s+)?(?=[\"'][^\"'\n]{6,200}[\"']\s+-AsPlainText)[\"']|"
    r"\bnet use\s+(?:[A-Z]:\s+)?\S+\s+(?:/user:\S+\s+)?(?!/)|/DECRYPT\s+|"
    r"@\w*(?:password|pwd|secret)\s*=\s*N?'|-StorageAccountKey\s+[\"']?|"
    r"AT\+CGAUTH=\d+,\d+,\"[^\"\n]*\",\"|\bx11vnc\b[^\n]{0,40}?\s-passwd\s+|"
    r"openssl passwd(?:\s+-\w+)*\s+|\buser(?:add|mod)\b[^\n]{0,60}?\s(?-i:-P)\s+|"
    r"openssl enc\b[^\n]{0,80}?\s-k\s+|tpm2_changeauth\b[^\n]{0,40}?\s-c\s+\w+\s+|"
    r"\bsetenv\s+\w*pass\w*\s+|AUTOBOOT_STOP_STR(?:_SHA256)?\s*=\s*\")"
    r"(?P<value>[^\s\"']{6,200})"
)
# A passphrase of words given to a flag: `gpg --passphrase 'amber rung quartz relay'`.
PASSPHRASE_FLAG = re.compile(r"--passphrase[= ](?P<q>[\"'])(?P<value>[^\"'\n]{6,200})(?P=q)")
# `user:password` or `user/password` after what it opens (`basic auth: admin:...`, `ftp creds
# -> site:...`, `gateway admin (port 8088) admin/...`).
USER_COLON = re.compile(
    r"(?i:\b(?:basic auth|creds?|credentials|logins?|s?ftp|admin)\b)[^\n:>]{0,60}?"
    r"(?::|->)[ \t]*(?P<user>[A-Za-z][\w.@+-]{1,39})[:/]"
    r"(?P<value>(?!/)[^\s\"'`,;|:]{5,99}[^\s\"'`,;|.):])(?![\w:])"
)
# A capability URL: a reset, magic-login, invite or login-as link, whose last segment opens it.
CAPABILITY_PATH = re.compile(
    r"https?://[^\s/]+(?:/[^\s/?#]+)*?/(?:reset|password-reset|reset-password|magic|invite|"
    r"login_as|impersonate|confirm|activate)/(?:[^\s/?#]+/)?(?=[\w-]*\d)(?P<value>[A-Za-z0-9_-]{24,})"
    r"(?![A-Za-z0-9_-])"
)
# Media's keys: a DRM content key, FairPlay's ASk, an Agora app certificate (16 bytes in hex).
MEDIA_KEY = re.compile(
    r"(?:(?i:\b(?:app certificate|primary certificate|content key|key bytes|fps[ _-]?ask)\b)|"
    r"\bASk\b)(?P<between>[^\n]{0,60}?)(?<![0-9A-Za-z])(?P<value>[0-9a-fA-F]{32})(?![0-9A-Za-z])"
)
# A Consul or Nomad ACL token's, a Vault AppRole's secret id: a uuid after its name.
SECRET_ID = re.compile(
    r"(?i:\bsecret[ _-]?id)\b[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?P<value>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b"
)
# A network device's or daemon's configured secret, after the keyword that takes it (Cisco,
# Arista, HP: `key-string`, `message-digest-key 1 md5`, `authentication-key 1 md5`, `plaintext`;
# keepalived's `auth_pass`, VRRP's `authentication text`; an ntp.keys or chrony.keys line).
NET_CONFIG = re.compile(
    r"(?i:\b(?:key-string|message-digest-key[ \t]+\d+[ \t]+md5|"
    r"authentication-key[ \t]+\d+[ \t]+(?:md5|sha\d*)|authentication text|auth_pass|psksecret|"
    r"user-name[ \t]+\S+[ \t]+plaintext|v3[ \t]+auth[ \t]+(?:sha|md5)\w*|priv[ \t]+(?:aes|des)\w*"
    r"(?:[ \t]+\d{3})?)(?:[ \t]+[07])?|(?:(?m:^)|:)[ \t]*\d{1,5}[ \t]+(?:MD5|SHA1|SHA256|SHA512))"
    r"[ \t]+[\"']?(?P<value>[^\s\"'<>]{6,200})"
)
# Net-SNMP's commands: a community (`-c`), an SNMPv3 auth or privacy passphrase (`-A`, `-X`);
# tried only in a text that names one (core/secret_patterns.py CONTEXT_RULES).
SNMP_FLAG = re.compile(r"[ \t]-[cAX][ \t]*[\"']?(?P<value>[^\s\"']{6,200})")
# A SIM's secret key `Ki`, its `OPc` or its operator's `OP` (32 hex), by name or as pySim's flag.
SIM_KEY = re.compile(
    r"(?:\b(?:Ki|KI|ki|OPc|OPC|opc|OP|op)\b[ \t]*[:=]?[ \t]*|"
    r"\bpySim\S*\b[^\n]*?\s(?:-k|--op|--opc)[ \t]+)"
    r"(?P<value>[0-9A-Fa-f]{32})\b"
)
# A SIP trunk registration with its password (Asterisk: `register => user:secret@host`), a PPP
# chap-secrets line (`"client" * "secret" *`), a Windows registry value set from a command line
# (`reg add ... /v DefaultPassword /t REG_SZ /d ...`).
SIP_REGISTER = re.compile(r"\bregister[ \t]*=>[ \t]*[^:\s]+:(?P<value>[^@\s:]{6,100})@")
CHAP_SECRET = re.compile(r"(?m)^[ \t]*\"?[^\s\"]+\"?[ \t]+\*[ \t]+\"(?P<value>[^\"\n]{6,200})\"")
REG_VALUE = re.compile(
    r"/v[ \t]+\"?\w*(?i:password|secret|token|key)\w*\"?[ \t]+(?:/t[ \t]+\w+[ \t]+)?/d[ \t]+"
    r"\"?(?P<value>[^\s\"]{6,200})"
)

# A mainframe's: a RACF password or phrase set by a command (`ALU ... PASSWORD(...)`,
# `PHRASE('...')`), a DB2 `CONNECT TO ... USER ... USING ...`, a PassTicket's or a secured
# sign-on's key (`SSIGNON(KEYMASKED(...))`), a Liberty or SAS password only encoded (`{xor}...`,
# `{SAS002}...`).
RACF_PASSWORD = re.compile(r"\bPASSWORD\('?(?P<value>[^)'\n]{6,100})'?\)")
RACF_PHRASE = re.compile(r"\bPHRASE\('(?P<value>[^'\n]{14,100})'\)")
DB2_USING = re.compile(
    r"(?i:\bconnect[ \t]+to[ \t]+\S+[ \t]+user[ \t]+\S+[ \t]+using)[ \t]+"
    r"(?P<value>[^\s;'\"]{6,100})"
)
SIGNON_KEY = re.compile(r"\bKEY(?:MASKED|ENCRYPTED)\((?P<value>[0-9A-Fa-f]{16})\)")
ENCODED_PASSWORD = re.compile(r"\{(?:xor|XOR|SAS00\d)\}(?P<value>[A-Za-z0-9+/]{6,}={0,2})")
# A payment HSM's key component in the clear (a ZMK's, an LMK's), 32 or 48 hex, as written
# down at a key ceremony (`ZMK comp A: ...`, `component 2 of 3 ...`, grouped by four).
HSM_COMPONENT = re.compile(
    r"(?i:\b(?:(?:zmk|lmk|tmk|zpk|bdk|kek)[ \t_-]*comp(?:onent)?s?|comp(?:onent)?[ \t_-]*"
    r"(?:\d|[a-c])\b|key component|clear component|komponente|komponens\w*|συστατικό|componente"
    r"|composante|składnik))(?P<between>[^\n]{0,50}?\n?)"
    r"(?<![0-9A-Za-z])(?P<value>[0-9A-F]{32}(?:[0-9A-F]{16})?|"
    r"[0-9A-F]{4}(?:[ \t][0-9A-F]{4}){7,11})(?![0-9A-Za-z])"
)

# A password after a user on a command line: `-u user -p ...` (rabbitmqadmin, mongo, sqlcmd).
USER_THEN_P = re.compile(r"(?<!\S)-[uU][ =]?\S+\s+-[pP][ =]?[\"']?(?P<value>[^\s\"']{6,200})")
# Oracle's EZConnect: `user/password@//host:port/service`.
EZCONNECT = re.compile(r"(?<![\w/])[A-Za-z_][\w$#]{0,29}/(?P<value>[^\s/\"'`]{6,100})@//[\w.-]+")
# A TOTP seed (base32, alone or in groups of four) after what it opens.
TOTP_SEED = re.compile(
    r"(?i:\b(?:totp|2fa|mfa|authenticator|setup key|two-factor)\b)(?P<between>[^\n]{0,60}?\n?)"
    r"(?<![A-Za-z0-9])(?P<value>(?=[A-Z2-7 ]*[2-7])"
    r"(?:[A-Z2-7]{16,64}|[A-Z2-7]{4}(?: [A-Z2-7]{4}){3,15}))(?![A-Za-z0-9])"
)
# A passphrase of words after what names it, to the end of its line or quote (`passphrase for
# the PGP key: horse pepper glacier saddle`, `PHRASE('...')` is RACF_PHRASE's).
WORD_PASSPHRASE = re.compile(
    r"(?i:\bpass(?:word)?[ -]?phrase\b|\bunlocks with\b)[^\n:'\"]{0,60}?(?::|\bis\b|\bwith\b)?"
    r"[ \t]*[\"'“]?(?P<value>[a-z]{3,9}(?:[ -][a-z]{3,9}){3,7}(?:[ -]?\d{1,4}[!#$%&*?@]?)?)"
    r"[\"'”]?[ \t]*(?=$|\n|[.(,;])"
)
# A BitLocker recovery password: eight groups of six digits, whatever names it.
BITLOCKER = re.compile(r"(?<![\d-])(?P<value>\d{6}(?:-\d{6}){7})(?![\d-])")

# How each rule's value is judged (core/secret_context.py `judged`; core/secret_patterns.py ROLES).
ROLES = {
    MEDIA_KEY: "key-near",
    HSM_COMPONENT: "key-near",
    RACF_PASSWORD: "printed",
    RACF_PHRASE: "as-is",
    DB2_USING: "printed",
    SIGNON_KEY: "as-is",
    ENCODED_PASSWORD: "as-is",
    BITLOCKER: "as-is",
    USER_THEN_P: "printed",
    EZCONNECT: "printed",
    TOTP_SEED: "key-near",
    WORD_PASSPHRASE: "phrase",
    CAPABILITY_PATH: "printed",
    USER_COLON: "user-pair",
    TOOL_ARGUMENT: "printed",
    BASIC_INLINE: "printed",
    PRINTED: "printed",
    CONNECT: "printed",
    POSITIONAL: "printed",
    SQL_PASSWORD: "printed",
    REDIS_ACL: "printed",
    MANAGER_OUTPUT: "printed",
    USERLIST: "printed",
    BROWSER_CSV: "printed",
    PEM_BASE64: "pem64",
    SMTP_PLAIN: "login64",
    SMTP_LOGIN: "login64",
    EXPECT_SEND: "printed",
    KEY_CONSTRUCTOR: "printed",
    SECRET_ID: "as-is",
    NET_CONFIG: "credible",
    SNMP_FLAG: "printed",
    SIM_KEY: "as-is",
    SIP_REGISTER: "printed",
    CHAP_SECRET: "printed",
    REG_VALUE: "printed",
}
# The rules: (rule, kind, the lowercase literals that wake it), as core/secret_patterns.py
# CONTEXT_RULES lists its own.
RULES = (
    (
        FLAG,
        "password",
        (
            *("--pass", "-key", "-token", "-secret", "login", "mysql", "sshpass", "-p", "curl"),
            *("redis-cli", "wandb", "cargo", "poetry", "ngrok", "ldap", "mosquitto", "oathtool"),
            *("storepass", "keypass", "security", "unseal", "auth-pass", "rabbitmqctl"),
            *("--pin", "jwt-secret", "setsteamaccount", "fs_cli", "http", "altool", "vsce"),
            *("ovsx", "signtool", "snyk auth", "sc ", "--auth", "--pop", "lftp"),
            "mc alias",
        ),
    ),
    (PRINTED, "password", ("cat ", "terraform output", "base64", "-password")),
    (ECHO_TO_FILE, "password", ("echo",)),
    (
        CONNECT,
        "password",
        ("sqlplus", "rman", "sqlldr", "expdp", "impdp", "dgmgrl", "exp ", "imp ", "connect as"),
    ),
    (
        POSITIONAL,
        "password",
        ("mosquitto_passwd", "htpasswd", "mkstore", "steamcmd", "api-key store", "setapikey"),
    ),
    (POSITIONAL, "token", ("anaconda", "codecov")),
    (POSITIONAL, "secret", ("radtest",)),
    (POSITIONAL, "wifi-password", ("wpa_passphrase",)),
    (SQL_PASSWORD, "password", ("identified",)),
    (REDIS_ACL, "password", ("setuser", " on >", " on ~")),
    (SETTER, "secret", ("set", "with", "use")),
    (
        MANAGER_OUTPUT,
        "password",
        ("op read", "op item", "pass show", "bw ", "find-generic-password", "keepassxc"),
    ),
    (MANAGER_OUTPUT, "private-key", ("wg genkey",)),
    (MANAGER_OUTPUT, "password", ("rclone obscure", "vault kv get")),
    (MANAGER_OUTPUT, "secret", ("openssl rand",)),
    (USERLIST, "password", ('" "', '"\t"')),
    (BROWSER_CSV, "password", ('","',)),
    (PEM_BASE64, "private-key", ("ls0tls1crudjti",)),
    (SMTP_PLAIN, "password", ("auth plain",)),
    (SMTP_LOGIN, "password", ("334 ugfzc3dvcmq6",)),
    (EXPECT_SEND, "password", ("expect",)),
    (
        KEY_CONSTRUCTOR,
        "secret",
        (
            "fernet(",
            "aesgcm(",
            "aessiv(",
            "chacha20",
            "secretbox(",
            "hmac.new(",
            "session.start(",
            "setvapiddetails(",
        ),
    ),
    (BASIC_INLINE, "api-key", ("| base64",)),
    (
        CAPABILITY_PATH,
        "login-link",
        (
            "/reset",
            "/magic",
            "/invite",
            "/login_as",
            "/impersonate",
            "/confirm",
            "/activate",
        ),
    ),
    (USER_COLON, "password", ("basic auth", "cred", "login", "ftp", "admin")),
    (PASSPHRASE_FLAG, "password", ("--passphrase",)),
    (
        TOOL_ARGUMENT,
        "password",
        (
            *("convertto-securestring", "net use", "/decrypt", "password", "pwd"),
            *("storageaccountkey", "at+cgauth", "x11vnc", "openssl", "useradd", "usermod"),
            *("tpm2_changeauth", "setenv", "autoboot_stop_str"),
        ),
    ),
    (MEDIA_KEY, "secret", ("certificate", "content key", "key bytes", "fps_ask", "fps ask", "ask")),
    (HSM_COMPONENT, "secret", ("comp", "komponente", "komponens", "συστατικό", "składnik")),
    (RACF_PASSWORD, "password", ("password(",)),
    (RACF_PHRASE, "password", ("phrase(",)),
    (DB2_USING, "password", ("using",)),
    (SIGNON_KEY, "secret", ("keymasked(", "keyencrypted(")),
    (ENCODED_PASSWORD, "password", ("{xor}", "{sas00")),
    (USER_THEN_P, "password", ("-p",)),
    (EZCONNECT, "password", ("@//",)),
    (WORD_PASSPHRASE, "passphrase", ("phrase", "unlocks with")),
    (TOTP_SEED, "totp-seed", ("totp", "2fa", "mfa", "authenticator", "setup key", "two-factor")),
    (BITLOCKER, "recovery-key", ()),  # no literal: digits
    (SECRET_ID, "token", ("secretid", "secret id", "secret_id", "secret-id")),
    (
        NET_CONFIG,
        "password",
        ("key-string", "message-digest-key", "authentication-key", "authentication text"),
    ),
    (
        NET_CONFIG,
        "password",
        ("auth_pass", "plaintext", "v3 auth", "priv ", "sha1", "md5", "psksecret"),
    ),
    (SNMP_FLAG, "password", ("snmpwalk", "snmpget", "snmpset", "snmpbulk", "snmptable")),
    (SIM_KEY, "sim-key", ("ki", "opc", "op", "pysim")),
    (SIP_REGISTER, "password", ("register",)),
    (CHAP_SECRET, "password", ('" * "', '* "')),
    (REG_VALUE, "password", ("/d ",)),
)

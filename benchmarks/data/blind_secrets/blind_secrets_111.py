# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 111: a pharmacy chain (POS, e-prescriptions, CD safes, wholesalers, store networks).

Brief: memory notes kept by the IT, pharmacy-systems and store-network teams of a
pharmacy chain and their AI coding agents: point-of-sale back office, e-prescription
(E-Rezept / TI Konnektor, Surescripts, CPS cards), controlled-drug safes and CSOS
ordering, dispensing robots and cabinets, wholesaler portals (Phoenix, Alliance,
McKesson, Cofares, OCP), payment terminals, store Wi-Fi/VPN/firewalls and the usual
developer stack. Prose, handovers, chat, commands, .env, YAML, JSON, URLs, tables and
logs, in English, German, French and Spanish.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_111.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, gitlab_pat, slack_bot_token,
slack_webhook_url, teams_webhook_url, stripe_secret_key, stripe_webhook_secret,
twilio_auth_token, sendgrid_api_key, openai_api_key, anthropic_api_key, google_api_key,
gcp_service_account_key, ssh_private_key, rsa_private_key, postgres_connection_string,
mssql_connection_string, mongodb_connection_string, redis_url_password,
azure_storage_connection_string, azure_client_secret, jwt_bearer_token, npm_token,
pypi_token, docker_hub_token, datadog_api_key, telegram_bot_token, okta_api_token,
vault_token, google_oauth_client_secret, mailgun_api_key, meraki_api_key, adyen_api_key,
square_access_token, bitlocker_recovery_key, totp_seed, mfa_recovery_codes,
pharmacy_card_pin, konnektor_admin_password, erezept_access_code, cd_safe_code,
dispensing_cabinet_password, wholesaler_portal_password, chain_api_token, pdmp_password,
csos_passphrase, pos_manager_pin, payment_terminal_password, wifi_psk, vpn_psk,
network_device_password, alarm_code, shared_account_password, local_admin_password,
backup_passphrase, sftp_password, basic_auth_url, app_password,
eprescribing_client_secret, snmp_community.

Kinds, benign: documented_example_key, aws_account_id, aws_arn, git_commit_sha,
sha256_checksum, docker_image_digest, uuid_correlation_id, ssh_public_key,
ssh_host_fingerprint, x509_certificate, stripe_publishable_key, recaptcha_site_key,
twilio_account_sid, slack_channel_id, placeholder_value, env_var_reference, vault_path,
masked_secret, redacted_log_line, revoked_key, npi_number, dea_registration_number,
ndc_code, ncpdp_provider_id, pzn_code, cip13_code, prescription_number, erezept_task_id,
telematik_id, gln_location_number, gtin_barcode, store_number, pos_terminal_id,
merchant_id, device_serial_number, mac_address, ip_address, ticket_reference,
build_version, batch_lot_number, wholesaler_order_number, npm_integrity_hash,
bcrypt_hash, password_policy_text, oauth_client_id, pgp_fingerprint, iban_example,
test_card_number, trace_id, k8s_secret_ref, shipment_tracking_number,
dea_222_form_number, certificate_fingerprint, tse_serial_number, meraki_network_id,
azure_tenant_id, surescripts_spi, pharmacist_license_number.
"""

import base64
import json
import random
import string
import struct
import sys
import zlib

SEED = 148014

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"


def r(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def hx(rng, n):
    return r(rng, HEX, n)


def guid(rng):
    h = hx(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def b64bytes(rng, n):
    return base64.b64encode(rng.randbytes(n)).decode()


def b64ubytes(rng, n):
    return base64.urlsafe_b64encode(rng.randbytes(n)).decode().rstrip("=")


def base62(num, width):
    out = ""
    while num:
        num, rem = divmod(num, 62)
        out = (DG + UP + LO)[rem] + out
    return out.rjust(width, "0")


def gh_token(rng, prefix="ghp_"):
    body = r(rng, AN, 30)
    return prefix + body + base62(zlib.crc32(body.encode()), 6)


WORDS = [
    "Apotheke",
    "Rezept",
    "Salbei",
    "Kamille",
    "Pharma",
    "Farmacia",
    "Receta",
    "Officine",
    "Tablette",
    "Sommer",
    "Winter",
    "Bremen",
    "Lyon",
    "Sevilla",
    "Pinguin",
    "Morphium",
    "Aspirin",
    "Ibuprofen",
    "Mortier",
    "Pilule",
    "Caduceo",
    "Hamster",
    "Leipzig",
    "Valencia",
    "Nantes",
    "Kraken",
    "Ginkgo",
    "Lavande",
    "Menthe",
    "Rosmarin",
]
SYMS = "!#$%&*?@+"


def human_pw(rng):
    w = rng.choice(WORDS)
    p = rng.randrange(6)
    if p == 0:
        return f"{w}{rng.randint(2019, 2026)}{rng.choice(SYMS)}"
    if p == 1:
        return f"{w}{rng.choice(SYMS)}{rng.randint(10, 999)}"
    if p == 2:
        return f"{w.lower()}.{rng.choice(WORDS).lower()}{rng.randint(1, 99)}"
    if p == 3:
        leet = w.replace("a", "@").replace("e", "3").replace("o", "0").replace("i", "1")
        return f"{leet}{rng.randint(10, 99)}{rng.choice(SYMS)}"
    if p == 4:
        return f"{rng.choice(SYMS)}{w}{rng.choice(WORDS)}{rng.randint(1, 9)}"
    return f"{w[:4]}{rng.randint(1000, 9999)}{w[-3:].upper()}{rng.choice(SYMS)}"


PHRASE = [
    "tiger",
    "mörser",
    "nebel",
    "cactus",
    "orange",
    "blau",
    "salbe",
    "fenêtre",
    "ladder",
    "koffer",
    "ventana",
    "river",
    "granit",
    "melisse",
    "tornado",
    "brioche",
    "kiwi",
    "sobre",
]


def passphrase(rng, n=4, sep="-"):
    return sep.join(rng.sample(PHRASE, n))


def digits(rng, n):
    return r(rng, DG, n)


def luhn_digit(num):
    total = 0
    for i, ch in enumerate(reversed(num)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def ean13(body12):
    s = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(body12))
    return body12 + str((10 - s % 10) % 10)


def npi(rng):
    base = "1" + digits(rng, 8)
    return base + luhn_digit("80840" + base)


def dea(rng, last_initial):
    d = [rng.randrange(10) for _ in range(6)]
    chk = (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10
    return rng.choice("ABFM") + last_initial + "".join(map(str, d)) + str(chk)


def pzn(rng):
    while True:
        d = digits(rng, 7)
        c = sum(int(x) * (i + 1) for i, x in enumerate(d)) % 11
        if c != 10:
            return d + str(c)


def pem(label, body, width=64):
    lines = [body[i : i + width] for i in range(0, len(body), width)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def ssh_str(b):
    return struct.pack(">I", len(b)) + b


def ed25519_pub_blob(pub):
    return ssh_str(b"ssh-ed25519") + ssh_str(pub)


def openssh_private(rng, comment):
    pub = rng.randbytes(32)
    priv = rng.randbytes(32) + pub
    check = rng.randbytes(4)
    sec = (
        check
        + check
        + ssh_str(b"ssh-ed25519")
        + ssh_str(pub)
        + ssh_str(priv)
        + ssh_str(comment.encode())
    )
    pad = 1
    while len(sec) % 8:
        sec += bytes([pad])
        pad += 1
    blob = (
        b"openssh-key-v1\x00"
        + ssh_str(b"none")
        + ssh_str(b"none")
        + ssh_str(b"")
        + struct.pack(">I", 1)
        + ssh_str(ed25519_pub_blob(pub))
        + ssh_str(sec)
    )
    return pem("OPENSSH PRIVATE KEY", base64.b64encode(blob).decode(), 70)


def ssh_pub(rng, comment):
    return (
        "ssh-ed25519 "
        + base64.b64encode(ed25519_pub_blob(rng.randbytes(32))).decode()
        + " "
        + comment
    )


def rsa_body(rng, pkcs8=False):
    head = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" if pkcs8 else "MIIEowIBAAKCAQEA"
    return head + b64bytes(rng, 1190)[: 1588 - len(head)]


def jwt(rng, payload):
    def enc(obj):
        return (
            base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    return (
        enc({"alg": "RS256", "typ": "JWT", "kid": hx(rng, 8)})
        + "."
        + enc(payload)
        + "."
        + b64ubytes(rng, 256)
    )


def bitlocker(rng):
    return "-".join(str(rng.randrange(0, 65536) * 11).zfill(6) for _ in range(8))


def b32(rng, n):
    return r(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", n)


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def add(label, kind, text, value):
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets, developer stack
    k = "aws_secret_access_key"
    kid, v = "AKIA" + r(rng, UP + DG, 16), r(rng, B64, 40)
    add(
        S,
        k,
        f"[rx-archive]\naws_access_key_id = {kid}\naws_secret_access_key = {v}\nregion = eu-central-1",
        v,
    )
    v = r(rng, B64, 40)
    add(
        S,
        k,
        f"handover: the S3 bucket for scanned paper prescriptions uses the svc-scan user, secret is {v} (id {'AKIA' + r(rng, UP + DG, 16)}), rotate after go-live",
        v,
    )
    v = r(rng, B64, 40)
    add(
        S,
        k,
        f"export AWS_SECRET_ACCESS_KEY='{v}'  # temporär für den Kassen-Export, danach löschen",
        v,
    )

    k = "github_pat"
    v = gh_token(rng)
    add(S, k, f"git clone https://oauth2:{v}@github.com/salvia-rx/pos-backoffice.git", v)
    v = "github_pat_11" + r(rng, UP + DG, 20) + "_" + r(rng, AN, 59)
    add(
        S,
        k,
        f"Agent memory: fine-grained token for the store-config repo (read/write contents) -> {v}",
        v,
    )
    v = gh_token(rng)
    add(S, k, f"GH_TOKEN={v}", v)

    k = "gitlab_pat"
    v = "glpat-" + r(rng, AN + "-_", 20)
    add(
        S,
        k,
        f'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.salvia.internal/api/v4/projects/42/pipelines',
        v,
    )
    v = "glpat-" + r(rng, AN + "-_", 20)
    add(S, k, f"Token GitLab du runner officine (scope api) : {v} — ne pas partager hors équipe", v)
    v = "glpat-" + r(rng, AN + "-_", 20)
    add(S, k, f"ci:\n  gitlab_token: {v}\n  project: pharmacy/erx-gateway", v)

    k = "slack_bot_token"
    v = f"xoxb-{digits(rng, 12)}-{digits(rng, 13)}-{r(rng, AN, 24)}"
    add(S, k, f"SLACK_BOT_TOKEN={v}", v)
    v = f"xoxb-{digits(rng, 11)}-{digits(rng, 13)}-{r(rng, AN, 24)}"
    add(S, k, f"The #cd-discrepancies alert bot posts with {v}; it only has chat:write.", v)
    v = f"xoxp-{digits(rng, 12)}-{digits(rng, 12)}-{digits(rng, 13)}-{hx(rng, 32)}"
    add(S, k, f"Mein User-Token für den Export der #filialen-it History: {v}", v)

    k = "slack_webhook_url"
    v = f"https://hooks.slack.com/services/T{r(rng, UP + DG, 8)}/B{r(rng, UP + DG, 10)}/{r(rng, AN, 24)}"
    add(S, k, f"robot-alerts webhook: {v}", v)
    v = f"https://hooks.slack.com/services/T{r(rng, UP + DG, 10)}/B{r(rng, UP + DG, 10)}/{r(rng, AN, 24)}"
    add(
        S,
        k,
        f"alertmanager:\n  receivers:\n    - name: fridge-temp\n      slack_configs:\n        - api_url: '{v}'",
        v,
    )
    v = f"https://hooks.slack.com/services/T{r(rng, UP + DG, 9)}/B{r(rng, UP + DG, 11)}/{r(rng, AN, 24)}"
    add(S, k, f"Webhook para avisos de rotura de stock en tiendas de Valencia: {v}", v)

    k = "teams_webhook_url"
    v = f"https://salviarx.webhook.office.com/webhookb2/{guid(rng)}@{guid(rng)}/IncomingWebhook/{hx(rng, 32)}/{guid(rng)}/V2{r(rng, B64U, 43)}"
    add(S, k, f'Teams-Kanal "BtM-Tresor Alarme" Webhook: {v}', v)
    v = f"https://prod-{rng.randint(10, 99)}.westeurope.logic.azure.com:443/workflows/{hx(rng, 32)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={r(rng, B64U, 43)}"
    add(S, k, f'TEAMS_WORKFLOW_URL="{v}"', v)
    v = f"https://salviarx.webhook.office.com/webhookb2/{guid(rng)}@{guid(rng)}/IncomingWebhook/{hx(rng, 32)}/{guid(rng)}"
    add(S, k, f"Incoming webhook pour le canal Pharmaciens-Titulaires : {v}", v)

    k = "stripe_secret_key"
    v = "sk_live_51" + r(rng, AN, 97)
    add(S, k, f"STRIPE_SECRET_KEY={v}", v)
    v = "rk_live_" + r(rng, AN, 24)
    add(
        S,
        k,
        f"Restricted key for the click-and-collect refunds job: {v} (charges:write, refunds:write only)",
        v,
    )
    v = "sk_live_" + r(rng, AN, 24)
    add(S, k, f'stripe.api_key = "{v}"  # online shop DE', v)

    k = "stripe_webhook_secret"
    v = "whsec_" + r(rng, AN, 32)
    add(S, k, f"STRIPE_WEBHOOK_SECRET={v}", v)
    v = "whsec_" + r(rng, AN, 32)
    add(
        S,
        k,
        f"Endpoint /webhooks/stripe on shop-api signing secret is {v}, copy it to the prod secret store",
        v,
    )
    v = "whsec_" + r(rng, AN, 32)
    add(
        S,
        k,
        f"stripe listen --forward-to localhost:8080/hooks  -> Ready! Your webhook signing secret is {v} (^C to quit)",
        v,
    )

    k = "twilio_auth_token"
    v = hx(rng, 32)
    add(S, k, f"TWILIO_ACCOUNT_SID=AC{hx(rng, 32)}\nTWILIO_AUTH_TOKEN={v}", v)
    v = hx(rng, 32)
    add(S, k, f'SMS "Ihr Rezept liegt bereit" läuft über Twilio, Auth-Token {v}', v)
    v = hx(rng, 32)
    add(
        S,
        k,
        f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{hx(rng, 32)}/Messages.json -u AC{hx(rng, 32)}:{v} -d To=+34600000000",
        v,
    )

    k = "sendgrid_api_key"
    v = "SG." + r(rng, B64U, 22) + "." + r(rng, B64U, 43)
    add(S, k, f"SENDGRID_API_KEY={v}", v)
    v = "SG." + r(rng, B64U, 22) + "." + r(rng, B64U, 43)
    add(S, k, f"Refill-reminder emails: sendgrid key {v} (full access, needs to be narrowed)", v)
    v = "SG." + r(rng, B64U, 22) + "." + r(rng, B64U, 43)
    add(S, k, f'mail:\n  provider: sendgrid\n  api_key: "{v}"', v)

    k = "openai_api_key"
    v = "sk-proj-" + r(rng, B64U, 74) + "T3BlbkFJ" + r(rng, B64U, 74)
    add(S, k, f"OPENAI_API_KEY={v}", v)
    v = "sk-proj-" + r(rng, B64U, 48) + "T3BlbkFJ" + r(rng, B64U, 48)
    add(S, k, f"Clé OpenAI pour le résumé des notices (PoC) : {v}", v)
    v = "sk-" + r(rng, AN, 20) + "T3BlbkFJ" + r(rng, AN, 20)
    add(S, k, f"old-style key still used by the interaction-checker prototype: {v}", v)

    k = "anthropic_api_key"
    v = "sk-ant-api03-" + r(rng, B64U, 93) + "AA"
    add(S, k, f"ANTHROPIC_API_KEY={v}", v)
    v = "sk-ant-api03-" + r(rng, B64U, 93) + "AA"
    add(
        S,
        k,
        f"agent: use {v} for the SOP-summarizer workspace, billed to IT-Apotheken cost centre",
        v,
    )
    v = "sk-ant-api03-" + r(rng, B64U, 93) + "AA"
    add(S, k, f'{{"provider": "anthropic", "api_key": "{v}", "model": "claude-sonnet"}}', v)

    k = "google_api_key"
    v = "AIza" + r(rng, B64U, 35)
    add(S, k, f"GEOCODING_SERVER_KEY={v}  # unrestricted, server side only", v)
    v = "AIza" + r(rng, B64U, 35)
    add(
        S, k, f"Places API key for the store-finder backend (IP-restricted to 10.20.0.0/16): {v}", v
    )
    v = "AIza" + r(rng, B64U, 35)
    add(
        S,
        k,
        f"curl 'https://translation.googleapis.com/language/translate/v2?key={v}' -d q=posología -d target=de",
        v,
    )

    k = "gcp_service_account_key"
    v = pem("PRIVATE KEY", rsa_body(rng, True)).replace("\n", "\\n") + "\\n"
    add(
        S,
        k,
        '{"type": "service_account", "project_id": "salvia-erx-prod", "private_key_id": "'
        + hx(rng, 40)
        + '", "private_key": "'
        + v
        + '", "client_email": "bq-loader@salvia-erx-prod.iam.gserviceaccount.com"}',
        v,
    )
    v = pem("PRIVATE KEY", rsa_body(rng, True)).replace("\n", "\\n") + "\\n"
    add(S, k, 'GOOGLE_SA_PRIVATE_KEY="' + v + '"', v)
    v = pem("PRIVATE KEY", rsa_body(rng, True))
    add(
        S,
        k,
        f"Contenu de private_key du compte de service looker-officines (déjà décodé) :\n{v}",
        v,
    )

    k = "ssh_private_key"
    v = openssh_private(rng, "deploy@pos-build01")
    add(S, k, f"deploy key for the POS image builder, paste into ~/.ssh/id_ed25519:\n{v}", v)
    v = openssh_private(rng, "filiale-0417-jump")
    add(S, k, f"Schlüssel für den Jump-Host der Filialen:\n{v}\n(kein Passwort gesetzt)", v)
    v = openssh_private(rng, "robot-sync@rowa")
    add(S, k, "  ssh_private_key: |\n    " + v.replace("\n", "\n    "), v.replace("\n", "\n    "))

    k = "rsa_private_key"
    v = pem("RSA PRIVATE KEY", rsa_body(rng))
    add(S, k, f"clé privée du certificat client MSSanté (messagerie sécurisée officine) :\n{v}", v)
    v = pem("RSA PRIVATE KEY", rsa_body(rng))
    add(S, k, f"surescripts-mtls.key\n{v}", v)

    k = "postgres_connection_string"
    v = f"postgresql://rx_app:{human_pw(rng)}@pg-erx-prod.internal:5432/erx"
    add(S, k, f"DATABASE_URL={v}", v)
    v = f"postgres://reporting:{r(rng, AN, 24)}@10.40.1.15:5432/pos_sales?sslmode=require"
    add(S, k, f"For the weekly CD register reconciliation use {v}", v)
    v = f"host=pg-loyalty.internal port=5432 dbname=loyalty user=loyalty_rw password={human_pw(rng)} sslmode=verify-full"
    add(S, k, f'psql "{v}"', v)

    k = "mssql_connection_string"
    v = f"Server=tcp:sql-pos-eu.database.windows.net,1433;Initial Catalog=PosBackOffice;User ID=posadmin;Password={human_pw(rng)};Encrypt=True;"
    add(S, k, f'"ConnectionStrings": {{ "PosDb": "{v}" }}', v)
    v = f"Data Source=FIL0231-SRV\\SQLEXPRESS;Initial Catalog=WaWi;User Id=sa;Password={human_pw(rng)}"
    add(S, k, f"Warenwirtschaft Filiale 231, lokaler SQL Express: {v}", v)
    v = f"Server=srv-rx-lyon01;Database=LGO;Uid=lgo_user;Pwd={human_pw(rng)};"
    add(S, k, f"Chaîne de connexion du LGO (logiciel officine) de Lyon : {v}", v)

    k = "mongodb_connection_string"
    v = f"mongodb+srv://appointments:{r(rng, AN, 20)}@cluster0.x7kqp.mongodb.net/vaccines?retryWrites=true"
    add(S, k, f"MONGO_URI={v}", v)
    v = f"mongodb://audit:{human_pw(rng)}@mongo-a.internal:27017,mongo-b.internal:27017/audit?replicaSet=rs0"
    add(S, k, f"The dispensing audit trail lives in {v}", v)
    v = f"mongodb+srv://citas_vacunas:{human_pw(rng)}@citas.z3ab1.mongodb.net/"
    add(S, k, f"Cadena de conexión de la app de citas de vacunación: {v}", v)

    k = "redis_url_password"
    v = f"redis://:{r(rng, AN, 32)}@redis-sessions.internal:6379/0"
    add(S, k, f"REDIS_URL={v}", v)
    v = f"rediss://default:{r(rng, AN, 32)}@eu1-quiet-fox-31337.upstash.io:6379"
    add(S, k, f"queue for e-Rx retries: {v}", v)
    v = r(rng, AN, 28)
    add(S, k, f"redis-cli -h 10.40.2.8 -a '{v}' keys 'basket:*'", v)

    k = "azure_storage_connection_string"
    v = f"DefaultEndpointsProtocol=https;AccountName=salviascans;AccountKey={b64bytes(rng, 64)};EndpointSuffix=core.windows.net"
    add(S, k, f'AZURE_STORAGE_CONNECTION_STRING="{v}"', v)
    v = b64bytes(rng, 64)
    add(S, k, f"Storage-Account fuer die BtM-Buch-Scans: Name stbtmarchiv, Key1 = {v}", v)
    v = f"DefaultEndpointsProtocol=https;AccountName=stposlogs;AccountKey={b64bytes(rng, 64)};EndpointSuffix=core.windows.net"
    add(S, k, f"az storage blob list --container-name z-reports --connection-string '{v}'", v)

    k = "azure_client_secret"
    v = r(rng, AN, 3) + str(rng.randint(0, 9)) + "Q~" + r(rng, AN + "_.~-", 34)
    add(S, k, f"AZURE_CLIENT_ID={guid(rng)}\nAZURE_CLIENT_SECRET={v}", v)
    v = r(rng, AN, 3) + str(rng.randint(0, 9)) + "Q~" + r(rng, AN + "_.~-", 34)
    add(S, k, f"App registration 'intune-store-tablets' client secret (expires 2027-06): {v}", v)
    v = r(rng, AN, 3) + str(rng.randint(0, 9)) + "Q~" + r(rng, AN + "_.~-", 34)
    add(S, k, f"Secreto del cliente de la app de Entra para el portal de empleados: {v}", v)

    k = "jwt_bearer_token"
    v = jwt(
        rng,
        {
            "sub": "svc-erx-gateway",
            "aud": "https://api.salvia.internal",
            "iat": 1796000000,
            "exp": 1827536000,
            "scope": "rx.read rx.dispense",
        },
    )
    add(
        S,
        k,
        f"curl -H 'Authorization: Bearer {v}' https://api.salvia.internal/v2/prescriptions?store=0417",
        v,
    )
    v = jwt(rng, {"sub": "pos-0231-03", "role": "till", "iat": 1796100000, "exp": 1830000000})
    add(S, k, f"Till 3 in store 231 has a long-lived token hardcoded: {v}", v)
    v = jwt(
        rng,
        {
            "iss": "https://idp.salvia.internal",
            "sub": "a.berger",
            "amr": ["pwd", "otp"],
            "exp": 1830500000,
        },
    )
    add(S, k, f'{{"access_token": "{v}", "token_type": "Bearer", "expires_in": 31536000}}', v)

    k = "npm_token"
    v = "npm_" + r(rng, AN, 36)
    add(S, k, f"//registry.npmjs.org/:_authToken={v}", v)
    v = "npm_" + r(rng, AN, 36)
    add(S, k, f"NPM_TOKEN für das Publish von @salvia/pos-ui: {v}", v)
    v = "npm_" + r(rng, AN, 36)
    add(S, k, f"- run: npm config set //npm.pkg.github.com/:_authToken {v}", v)

    k = "pypi_token"
    v = "pypi-AgEIcHlwaS5vcmc" + r(rng, B64U, 140)
    add(S, k, f"[pypi]\n  username = __token__\n  password = {v}", v)
    v = "pypi-AgEIcHlwaS5vcmc" + r(rng, B64U, 140)
    add(S, k, f"twine upload dist/* -u __token__ -p {v}", v)

    k = "docker_hub_token"
    v = "dckr_pat_" + r(rng, B64U, 27)
    add(S, k, f"echo {v} | docker login -u salviarx --password-stdin", v)
    v = "dckr_pat_" + r(rng, B64U, 27)
    add(S, k, f"DOCKERHUB_TOKEN={v}  # pull-only, für die Kassenserver", v)
    v = "dckr_pat_" + r(rng, B64U, 27)
    add(
        S,
        k,
        f'{{"auths": {{"https://index.docker.io/v1/": {{"username": "salviarx", "password": "{v}"}}}}}}',
        v,
    )

    k = "datadog_api_key"
    v = hx(rng, 32)
    add(S, k, f"DD_API_KEY={v}\nDD_SITE=datadoghq.eu", v)
    v = hx(rng, 32)
    add(S, k, f"datadog agent on the store servers: api_key: {v} (the app key is separate)", v)
    v = hx(rng, 40)
    add(S, k, f"DD_APP_KEY={v}", v)

    k = "telegram_bot_token"
    v = f"{rng.randint(5000000000, 7999999999)}:AA{r(rng, B64U, 33)}"
    add(S, k, f"Bot de alertas de temperatura de neveras (Telegram): {v}", v)
    v = f"{rng.randint(5000000000, 7999999999)}:AA{r(rng, B64U, 33)}"
    add(
        S,
        k,
        f"curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100123 -d text=safe_open",
        v,
    )
    v = f"{rng.randint(5000000000, 7999999999)}:AA{r(rng, B64U, 33)}"
    add(S, k, f"TELEGRAM_BOT_TOKEN={v}", v)

    k = "okta_api_token"
    v = "00" + r(rng, AN + "-_", 40)
    add(S, k, f"OKTA_API_TOKEN={v}", v)
    v = "00" + r(rng, AN + "-_", 40)
    add(S, k, f"Authorization: SSWS {v}", v)

    k = "vault_token"
    v = "hvs." + r(rng, AN, 24)
    add(S, k, f"export VAULT_TOKEN={v}", v)
    v = "hvs.CAESI" + r(rng, B64U, 86)
    add(S, k, f"root-ish token from the unseal ceremony, still valid: {v}", v)
    v = "hvs." + r(rng, AN, 24)
    add(S, k, f"vault login {v}", v)

    k = "google_oauth_client_secret"
    v = "GOCSPX-" + r(rng, B64U, 28)
    add(S, k, f"GOOGLE_CLIENT_SECRET={v}", v)
    v = "GOCSPX-" + r(rng, B64U, 28)
    add(
        S,
        k,
        f'{{"web": {{"client_id": "{digits(rng, 12)}-{r(rng, LO + DG, 32)}.apps.googleusercontent.com", "client_secret": "{v}"}}}}',
        v,
    )

    k = "mailgun_api_key"
    v = "key-" + hx(rng, 32)
    add(S, k, f"MAILGUN_API_KEY={v}", v)
    v = f"{hx(rng, 32)}-{hx(rng, 8)}-{hx(rng, 8)}"
    add(S, k, f"curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.salvia.de/messages", v)

    k = "meraki_api_key"
    v = hx(rng, 40)
    add(S, k, f"X-Cisco-Meraki-API-Key: {v}", v)
    v = hx(rng, 40)
    add(S, k, f"Meraki Dashboard API-Key (Org Apotheken Nord, full admin): {v}", v)
    v = hx(rng, 40)
    add(S, k, f"MERAKI_DASHBOARD_API_KEY={v}", v)

    k = "adyen_api_key"
    v = "AQE" + b64bytes(rng, 66)[:-2] + "==-" + b64bytes(rng, 32) + "-" + r(rng, AN + "#$%<>", 16)
    add(S, k, f"ADYEN_API_KEY={v}", v)
    v = "AQE" + b64bytes(rng, 66)[:-2] + "==-" + b64bytes(rng, 32) + "-" + r(rng, AN + "#$%<>", 16)
    add(S, k, f"ws_482113@Company.SalviaRx key for terminal API (in-store payments): {v}", v)

    k = "square_access_token"
    v = "EAAA" + r(rng, B64U, 60)
    add(S, k, f"SQUARE_ACCESS_TOKEN={v}", v)
    v = "EAAA" + r(rng, B64U, 60)
    add(S, k, f"Production access token for the pop-up vaccine clinic Square account: {v}", v)
    v = "EAAA" + r(rng, B64U, 60)
    add(S, k, f"curl https://connect.squareup.com/v2/payments -H 'Authorization: Bearer {v}'", v)

    k = "bitlocker_recovery_key"
    v = bitlocker(rng)
    add(S, k, f"BitLocker Wiederherstellungsschlüssel Kassen-PC FIL0417-K2: {v}", v)
    v = bitlocker(rng)
    add(
        S, k, f"Recovery key for the pharmacist laptop LT-0082 (ID {guid(rng).upper()[:8]}): {v}", v
    )
    v = bitlocker(rng)
    add(S, k, f"Clé de récupération BitLocker du poste comptoir 2 : {v}", v)

    k = "totp_seed"
    v = b32(rng, 32)
    add(S, k, f"otpauth://totp/EPCS:dr.nguyen@salvia?secret={v}&issuer=EPCS&digits=6", v)
    v = " ".join(b32(rng, 4).lower() for _ in range(8))
    add(
        S,
        k,
        f"2FA setup key for the shared wholesaler account (Authenticator, manual entry): {v}",
        v,
    )
    v = b32(rng, 16)
    add(S, k, f"TOTP-Secret für den PDMP-Login der Nachtschicht: {v}", v)

    k = "mfa_recovery_codes"
    v = "\n".join(f"{hx(rng, 5)}-{hx(rng, 5)}" for _ in range(6))
    add(S, k, f"github recovery codes (salvia-it org owner):\n{v}", v)
    v = " ".join(digits(rng, 8) for _ in range(5))
    add(S, k, f"Backup-Codes Microsoft-Konto pharmacie.admin: {v}", v)
    v = ", ".join(f"{digits(rng, 4)} {digits(rng, 4)}" for _ in range(4))
    add(S, k, f"Códigos de respaldo de Google para farmacia.compras@: {v}", v)

    # ------------------------------------------------------------------ secrets, the pharmacy field
    k = "pharmacy_card_pin"
    v = digits(rng, 6)
    add(S, k, f"SMC-B Filiale 0417: PIN.SMC {v}, PUK liegt im Tresor", v)
    v = digits(rng, 4)
    add(S, k, f"Code porteur de la carte CPS de Mme Lefèvre (titulaire) : {v}", v)
    v = digits(rng, 6)
    add(S, k, f"HBA-PIN (QES) für die Signatur der BtM-Rezepte, Approbierte Dr. Krause: {v}", v)
    v = digits(rng, 8)
    add(
        S,
        k,
        f"| Karte | ICCSN | PIN |\n| SMC-B FIL0231 | 80276883110000{digits(rng, 6)} | {v} |",
        v,
    )

    k = "konnektor_admin_password"
    v = human_pw(rng)
    add(
        S,
        k,
        f"Konnektor (KoCoBox) Filiale Bremen, Web-Admin https://10.1.0.2:9443 user super, Passwort {v}",
        v,
    )
    v = human_pw(rng)
    add(S, k, f"secunet Konnektor Managementschnittstelle: admin / {v}", v)
    v = r(rng, AN + "!#%", 16)
    add(S, k, f'konnektor:\n  host: 192.168.50.2\n  mgmt_user: admin\n  mgmt_password: "{v}"', v)

    k = "erezept_access_code"
    v = hx(rng, 64)
    add(
        S,
        k,
        f"Task/160.000.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 2)}/$accept?ac={v}",
        v,
    )
    v = hx(rng, 64)
    add(
        S,
        k,
        f"Kunde hat den Token per WhatsApp geschickt, AccessCode {v} – bitte nach Einlösung löschen",
        v,
    )
    v = hx(rng, 64)
    add(
        S,
        k,
        f'{{"urls": ["Task/160.000.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 2)}/$accept?ac={v}"]}}',
        v,
    )

    k = "cd_safe_code"
    v = digits(rng, 6)
    add(S, k, f"BtM-Schrank Filiale 12 neuer Code ab Montag: {v}", v)
    v = f"{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"
    add(S, k, f"CD cabinet combination for store 0231 (changed after Tom left): {v}", v)
    v = digits(rng, 8)
    add(
        S,
        k,
        f"Code du coffre stupéfiants, officine de Nantes : {v} (à changer tous les trimestres)",
        v,
    )
    v = digits(rng, 6)
    add(S, k, f"Código de la caja fuerte de estupefacientes (tienda 08): {v}#", v)

    k = "dispensing_cabinet_password"
    v = human_pw(rng)
    add(S, k, f"Omnicell XT service login: svcadmin / {v}", v)
    v = human_pw(rng)
    add(
        S,
        k,
        f"Pyxis MedStation local override password in the hospital outpatient pharmacy is {v}",
        v,
    )
    v = r(rng, AN, 10)
    add(S, k, f"Kommissionierer (BD Rowa Vmax) Servicezugang: User 'service', Passwort {v}", v)

    k = "wholesaler_portal_password"
    v = human_pw(rng)
    add(S, k, f"PHOENIX Online-Bestellportal: Kd-Nr. {digits(rng, 6)}, Passwort {v}", v)
    v = human_pw(rng)
    add(S, k, f"McKesson Connect login for store 112 purchasing: buyer112@salviarx.com / {v}", v)
    v = human_pw(rng)
    add(
        S,
        k,
        f"Accès portail OCP Répartition : identifiant PH{digits(rng, 6)}, mot de passe : {v}",
        v,
    )
    v = human_pw(rng)
    add(S, k, f"Portal de Cofares, usuario farmacia0819, contraseña {v}", v)

    k = "chain_api_token"
    v = "slv_live_" + r(rng, AN, 40)
    add(S, k, f"SALVIA_API_TOKEN={v}", v)
    v = "slv_pat_" + r(rng, AN, 40)
    add(
        S,
        k,
        f"My personal token for the store-ops API (scopes: stock.read transfers.write): {v}",
        v,
    )
    v = "slv_svc_" + r(rng, AN, 48)
    add(S, k, f"X-Salvia-Key: {v}", v)

    k = "pdmp_password"
    v = human_pw(rng)
    add(S, k, f"PMP AWARxE login for the night pharmacist: rph.night@salviarx.com pw {v}", v)
    v = human_pw(rng)
    add(
        S,
        k,
        f"State PDMP delegate account (tech can query on behalf of RPh): user salvia_tech07, password: {v}",
        v,
    )
    v = human_pw(rng)
    add(S, k, f"OARRS (Ohio) login for store 112 PIC, changed today: {v}", v)

    k = "csos_passphrase"
    v = passphrase(rng)
    add(S, k, f"CSOS certificate (DEA e-222 signing) passphrase for the Columbus DC: {v}", v)
    v = human_pw(rng) + human_pw(rng)
    add(S, k, f"Password protecting the .p12 of the CSOS cert on the purchasing PC: {v}", v)
    v = passphrase(rng, 5, " ")
    add(S, k, f'PoA holder Maria Ortiz - CSOS key passphrase "{v}"', v)

    k = "pos_manager_pin"
    v = digits(rng, 4)
    add(S, k, f"Filialleiter-Storno-PIN an allen Kassen in 0417: {v}", v)
    v = digits(rng, 6)
    add(S, k, f"Supervisor override code for returns over $100 at the till: {v}", v)
    v = digits(rng, 5)
    add(S, k, f"Code responsable caisse (annulation ticket) : {v}", v)

    k = "payment_terminal_password"
    v = digits(rng, 6)
    add(S, k, f"Verifone V400m merchant password (store 231, all lanes): {v}", v)
    v = digits(rng, 8)
    add(S, k, f"Ingenico Desk/5000 Technikerpasswort: {v}", v)
    v = human_pw(rng)
    add(S, k, f"Contraseña del menú de comercio del TPV (Redsys) farmacia Sevilla: {v}", v)

    k = "wifi_psk"
    v = human_pw(rng)
    add(S, k, f'WLAN "Salvia-Staff" Passwort: {v}', v)
    v = passphrase(rng, 3, "")
    add(S, k, f"staff wifi psk for all US stores: {v}", v)
    v = r(rng, AN, 20)
    add(S, k, f"ssid: SALVIA-BACKOFFICE\nwpa_passphrase: {v}", v)

    k = "vpn_psk"
    v = r(rng, AN + "!#%&*", 32)
    add(S, k, f'set vpn ipsec phase1-interface "FIL0417" psksecret {v}', v)
    v = b64bytes(rng, 24)
    add(S, k, f"IPsec-PSK Tunnel Filiale ↔ Zentrale Hamburg: {v}", v)
    v = r(rng, AN, 24)
    add(S, k, f"Clé pré-partagée du VPN site-à-site officine Lyon Part-Dieu : {v}", v)

    k = "network_device_password"
    v = human_pw(rng)
    add(S, k, f"FortiGate 40F in store 112, admin / {v}", v)
    v = human_pw(rng)
    add(S, k, f"enable secret on the old Cisco switches in the Madrid stores is {v}", v)
    v = human_pw(rng)
    add(S, k, f"Meraki MX lokales Status-Passwort (Filialen Süd): {v}", v)

    k = "alarm_code"
    v = digits(rng, 4)
    add(S, k, f"Einbruchmeldeanlage Filiale 23, Unscharf-Code: {v}", v)
    v = digits(rng, 6)
    add(S, k, f"Alarm disarm code for the 24h store on Elm St, effective Monday: {v}", v)
    v = digits(rng, 4)
    add(S, k, f"Code alarme pour l'ouverture du samedi : {v}*", v)

    k = "shared_account_password"
    v = human_pw(rng)
    add(S, k, f"shared login on the counter PCs: rxtech / {v}", v)
    v = human_pw(rng)
    add(
        S,
        k,
        f"Der gemeinsame Account fuer die Rezeptabrechnung (ARZ) ist 'apo0417' mit Passwort {v}",
        v,
    )
    v = human_pw(rng)
    add(S, k, f"Compte partagé préparateurs sur le LGO : prep / {v}", v)
    v = human_pw(rng)
    add(S, k, f"usuario común mostrador: mostrador08, clave {v}", v)

    k = "local_admin_password"
    v = human_pw(rng)
    add(S, k, f"net user Administrator {v} /domain", v)
    v = r(rng, AN + "!#+", 14)
    add(S, k, f"LAPS password for FIL0231-K1 (read 07.12., valid until expiry): {v}", v)
    v = human_pw(rng)
    add(S, k, f"Lokaler Admin auf den Kassen-PCs (Image 2025-Q3): .\\kassadmin / {v}", v)

    k = "backup_passphrase"
    v = passphrase(rng, 5, "-")
    add(S, k, f"Veeam encryption password for the store-server backups: {v}", v)
    v = r(rng, AN + "!#%&", 28)
    add(S, k, f"RESTIC_PASSWORD={v}", v)
    v = human_pw(rng) + "-" + passphrase(rng, 2, "-")
    add(S, k, f"Mot de passe de chiffrement des sauvegardes LGO (NAS Synology) : {v}", v)

    k = "sftp_password"
    v = human_pw(rng)
    add(S, k, f"sftp claims@edi.switchco.net (NCPDP batch), pw {v}", v)
    v = r(rng, AN, 16)
    add(S, k, f"sshpass -p '{v}' sftp -P 2222 salvia_in@files.pbm-partner.com", v)
    v = human_pw(rng)
    add(
        S,
        k,
        f"SFTP Rechenzentrum (ARZ) Abrechnungsdateien: Benutzer 70{digits(rng, 5)}, Passwort {v}",
        v,
    )

    k = "basic_auth_url"
    v = f"https://hl7feed:{human_pw(rng)}@fhir.partner-clinic.org/fhir/R4"
    add(S, k, f"FHIR endpoint for discharge prescriptions: {v}", v)
    v = f"http://admin:{digits(rng, 6)}@192.168.10.40/cgi-bin/snapshot.cgi"
    add(S, k, f"Kamera über dem BtM-Schrank: {v}", v)
    v = f"https://salvia:{r(rng, AN, 18)}@nexus.salvia.internal/repository/pypi-internal/simple"
    add(S, k, f"pip install --index-url {v} rx-common", v)

    k = "app_password"
    v = " ".join(r(rng, LO, 4) for _ in range(4))
    add(S, k, f"Gmail app password for the fax-to-mail relay: {v}", v)
    v = r(rng, LO, 16)
    add(S, k, f"App-Kennwort (M365) für den Scanner im Backoffice, SMTP-Auth: {v}", v)
    v = r(rng, LO, 16)
    add(
        S,
        k,
        f"smtp:\n  host: smtp.office365.com\n  user: scan-fil0417@salvia.de\n  password: {v}",
        v,
    )

    k = "eprescribing_client_secret"
    v = r(rng, AN, 40)
    add(S, k, f"Surescripts client_secret (production, NewRx/RxFill): {v}", v)
    v = b64ubytes(rng, 32)
    add(S, k, f"ERX_OAUTH_CLIENT_ID=salvia-erx\nERX_OAUTH_CLIENT_SECRET={v}", v)
    v = r(rng, AN, 32)
    add(S, k, f"Secret client de l'API ePrescription (Ordonnance numérique) : {v}", v)

    k = "snmp_community"
    v = r(rng, LO + DG, 12)
    add(S, k, f"snmp-server community {v} RO 10", v)
    v = r(rng, AN, 14)
    add(
        S,
        k,
        f"SNMP community for the label printers and the fridge loggers: {v} (v2c, read-write)",
        v,
    )
    v = r(rng, LO + DG, 10)
    add(S, k, f"snmpwalk -v2c -c {v} 10.20.4.1 ifDescr", v)

    # ------------------------------------------------------------------ benign look-alikes
    k = "documented_example_key"
    add(B, k, "AWS docs example, do not use: AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE")
    add(
        B,
        k,
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY  # from the AWS CLI docs",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    )
    add(
        B,
        k,
        "Stripe's docs use sk_test_4eC39HqLyjWDarjtT1zdp7dc in every curl sample, that's the one in our README",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    )
    add(
        B,
        k,
        "JWT example from jwt.io: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )

    k = "aws_account_id"
    v = digits(rng, 12)
    add(B, k, f"prod account for e-Rx is {v} (salvia-erx-prod)", v)
    v = digits(rng, 12)
    add(B, k, f'aws sts get-caller-identity -> "Account": "{v}"', v)
    v = digits(rng, 12)
    add(B, k, f"Konto-ID der Sandbox für die Kassen-Tests: {v}", v)

    k = "aws_arn"
    v = f"arn:aws:iam::{digits(rng, 12)}:role/pos-sync-lambda"
    add(B, k, f"Lambda runs as {v}", v)
    v = f"arn:aws:secretsmanager:eu-central-1:{digits(rng, 12)}:secret:prod/erx/db-{r(rng, AN, 6)}"
    add(B, k, f"DB creds are in {v} — fetch at runtime, never copy", v)
    v = f"arn:aws:kms:eu-west-3:{digits(rng, 12)}:key/{guid(rng)}"
    add(B, k, f"Clé KMS des scans d'ordonnances : {v}", v)

    k = "git_commit_sha"
    v = hx(rng, 40)
    add(B, k, f"POS 7.4.2 was built from {v}", v)
    v = hx(rng, 40)
    add(B, k, f"git revert {v}  # broke the PZN lookup", v)
    v = hx(rng, 7)
    add(B, k, f"Hotfix für die Rabattvertrags-Prüfung ist in {v} auf main", v)
    v = hx(rng, 40)
    add(B, k, f"  rev: {v}  # pre-commit hook pin", v)

    k = "sha256_checksum"
    v = hx(rng, 64)
    add(B, k, f"{v}  pos-installer-7.4.2.msi", v)
    v = hx(rng, 64)
    add(B, k, f"SHA-256 of the signed Konnektor firmware 5.1.8: {v}", v)
    v = hx(rng, 64)
    add(B, k, f"Empreinte SHA256 du fichier de mise à jour LGO : {v}", v)
    v = hx(rng, 32)
    add(B, k, f"md5 of the price file from PHOENIX: {v}", v)

    k = "docker_image_digest"
    v = "sha256:" + hx(rng, 64)
    add(B, k, f"image: registry.salvia.internal/erx-gateway@{v}", v)
    v = "sha256:" + hx(rng, 64)
    add(B, k, f"pinned the base image to python:3.12-slim@{v} after the CVE", v)
    v = "sha256:" + hx(rng, 64)
    add(B, k, f"docker pull ghcr.io/salvia-rx/stock-api@{v}", v)

    k = "uuid_correlation_id"
    v = guid(rng)
    add(
        B,
        k,
        f"2026-12-02T08:14:22Z WARN erx-gateway correlation_id={v} retrying Task/$accept (HTTP 429)",
        v,
    )
    v = guid(rng)
    add(B, k, f"Surescripts MessageID {v} came back with Error 900", v)
    v = guid(rng)
    add(B, k, f"Vorgangs-ID der fehlgeschlagenen Abrechnung: {v}", v)
    v = guid(rng)
    add(B, k, f'{{"requestId": "{v}", "error": "PZN_NOT_FOUND"}}', v)

    k = "ssh_public_key"
    v = ssh_pub(rng, "deploy@pos-build01")
    add(B, k, f"add this to authorized_keys on the store servers: {v}", v)
    v = ssh_pub(rng, "anna.berger@salvia")
    add(B, k, f"users:\n  - name: aberger\n    ssh_authorized_keys:\n      - {v}", v)
    v = ssh_pub(rng, "robot-sync@rowa")
    add(B, k, f"Öffentlicher Schlüssel für den Rowa-Sync (darf ins Wiki): {v}", v)

    k = "ssh_host_fingerprint"
    v = "SHA256:" + b64bytes(rng, 32).rstrip("=")
    add(B, k, f"jump host fingerprint, verify before accepting: ED25519 key fingerprint is {v}.", v)
    v = "SHA256:" + b64bytes(rng, 32).rstrip("=")
    add(B, k, f"Empreinte hôte du SFTP de la CPAM : {v}", v)
    v = ":".join(hx(rng, 2) for _ in range(16))
    add(B, k, f"legacy MD5 fingerprint of files.pbm-partner.com: {v}", v)

    k = "x509_certificate"
    v = pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU" + b64bytes(rng, 660)[:860])
    add(B, k, f"public cert of the e-Rx gateway (safe to share with the clinic IT):\n{v}", v)
    v = pem("CERTIFICATE", "MIIFazCCA1OgAwIBAgIR" + b64bytes(rng, 600)[:780])
    add(B, k, f"Root CA der TI (öffentlich), für den Truststore:\n{v}", v)
    v = pem("CERTIFICATE", "MIIGJzCCBQ+gAwIBAgIQ" + b64bytes(rng, 700)[:900])
    add(B, k, f"ca.crt (public chain for the wholesaler EDI endpoint):\n{v}", v)

    k = "stripe_publishable_key"
    v = "pk_live_51" + r(rng, AN, 97)
    add(B, k, f"NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}", v)
    v = "pk_live_" + r(rng, AN, 24)
    add(
        B,
        k,
        f"The checkout page embeds {v}; that's the publishable one, fine in the frontend bundle",
        v,
    )
    v = "pk_test_" + r(rng, AN, 24)
    add(B, k, f"Stripe.js test mode: Stripe('{v}')", v)

    k = "recaptcha_site_key"
    v = "6L" + r(rng, B64U, 38)
    add(B, k, f'<div class="g-recaptcha" data-sitekey="{v}"></div>', v)
    v = "6L" + r(rng, B64U, 38)
    add(B, k, f"reCAPTCHA site key for the refill form (public): {v}", v)
    v = "0x4AAAAAAA" + r(rng, B64U, 12)
    add(B, k, f"Turnstile Sitekey Vorbestellformular: {v}", v)

    k = "twilio_account_sid"
    v = "AC" + hx(rng, 32)
    add(B, k, f"Twilio account SID (not secret on its own): {v}", v)
    v = "MG" + hx(rng, 32)
    add(B, k, f"messaging_service_sid: {v}", v)
    v = "PN" + hx(rng, 32)
    add(B, k, f"Número de envío SMS recordatorios, SID {v}", v)

    k = "slack_channel_id"
    v = "C0" + r(rng, UP + DG, 9)
    add(B, k, f"post CD discrepancy alerts to channel {v} (#cd-discrepancies)", v)
    v = "U0" + r(rng, UP + DG, 9)
    add(B, k, f"ping the on-call pharmacist lead <@{v}> if the robot is down", v)
    v = "T0" + r(rng, UP + DG, 8)
    add(B, k, f"Slack workspace ID: {v}", v)

    k = "placeholder_value"
    add(
        B,
        k,
        "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
        "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    )
    add(B, k, 'konnektor:\n  mgmt_password: "<im Passwortsafe>"', "<im Passwortsafe>")
    add(B, k, "SMC-B PIN: ______ (wird vom Filialleiter eingetragen)", "______")
    add(B, k, "api_key: YOUR_PHOENIX_API_KEY_HERE", "YOUR_PHOENIX_API_KEY_HERE")
    add(
        B,
        k,
        "DATABASE_URL=postgresql://user:password@localhost:5432/erx_dev",
        "postgresql://user:password@localhost:5432/erx_dev",
    )

    k = "env_var_reference"
    add(B, k, "DATABASE_URL=${ERX_DB_URL}", "${ERX_DB_URL}")
    add(
        B,
        k,
        'client = Twilio(os.environ["TWILIO_ACCOUNT_SID"], os.environ["TWILIO_AUTH_TOKEN"])',
        'os.environ["TWILIO_AUTH_TOKEN"]',
    )
    add(
        B,
        k,
        "password: {{ .Values.konnektor.adminPassword }}",
        "{{ .Values.konnektor.adminPassword }}",
    )
    add(
        B,
        k,
        'curl -u "api:$MAILGUN_API_KEY" https://api.eu.mailgun.net/v3/domains',
        "$MAILGUN_API_KEY",
    )

    k = "vault_path"
    add(
        B,
        k,
        "Konnektor-Admin-Passwörter liegen unter secret/data/filialen/konnektor/<filialnr>",
        "secret/data/filialen/konnektor/<filialnr>",
    )
    add(B, k, "vault kv get -field=psk kv/network/vpn/fil0417", "kv/network/vpn/fil0417")
    add(
        B,
        k,
        "CSOS .p12 passphrase: see 1Password vault 'Purchasing-DEA', item 'CSOS Columbus'",
        "1Password vault 'Purchasing-DEA', item 'CSOS Columbus'",
    )

    k = "masked_secret"
    v = "sk_live_" + "*" * 20 + r(rng, AN, 4)
    add(B, k, f"Stripe dashboard shows the key as {v}", v)
    v = "AKIA" + "*" * 12 + r(rng, UP + DG, 4)
    add(B, k, f"IAM user svc-scan has key {v} (active, last used 2 days ago)", v)
    add(B, k, "SMC-B PIN: ****** (siehe Tresorumschlag)", "******")
    v = "xoxb-" + "•" * 12 + r(rng, AN, 4)
    add(B, k, f"Token du bot Slack : {v}", v)

    k = "redacted_log_line"
    add(
        B,
        k,
        "2026-12-01 07:02:11 INFO auth POST /oauth/token client_id=salvia-erx client_secret=[REDACTED] status=200",
        "client_secret=[REDACTED]",
    )
    add(B, k, "konnektor-sync: login user=admin password=<redacted> -> OK", "password=<redacted>")
    add(
        B,
        k,
        "DEBUG db connect postgresql://rx_app:***@pg-erx-prod.internal:5432/erx",
        "postgresql://rx_app:***@pg-erx-prod.internal:5432/erx",
    )

    k = "revoked_key"
    v = gh_token(rng)
    add(
        B,
        k,
        f"The token {v} leaked in the Jira ticket, revoked on 2026-11-28, new one is in Vault",
        v,
    )
    v = "sk_live_" + r(rng, AN, 24)
    add(
        B,
        k,
        f"REVOKED (rolled in Stripe dashboard 03.11.): {v} – nur noch für die Incident-Doku",
        v,
    )
    v = "SG." + r(rng, B64U, 22) + "." + r(rng, B64U, 43)
    add(B, k, f"clé SendGrid supprimée le 15/10, ne fonctionne plus : {v}", v)

    k = "npi_number"
    v = npi(rng)
    add(B, k, f"Store 112 NPI {v}", v)
    v = npi(rng)
    add(B, k, f"prescriber NPI on the NewRx was {v}, matches NPPES", v)
    v = npi(rng)
    add(B, k, f"<Pharmacy><Identification><NPI>{v}</NPI></Identification></Pharmacy>", v)
    v = npi(rng)
    add(B, k, f"NPPES lookup ok -> npi={v} taxonomy=3336C0003X", v)

    k = "dea_registration_number"
    v = dea(rng, "S")
    add(B, k, f"DEA registration for the Columbus store: {v}, expires 2027-08-31", v)
    v = dea(rng, "K")
    add(B, k, f"Dr. Kim's DEA {v} checks out (checksum OK)", v)
    v = dea(rng, "O")
    add(B, k, f"| prescriber | DEA | state |\n| Ortiz, M. | {v} | OH |", v)

    k = "ndc_code"
    v = f"{digits(rng, 5)}-{digits(rng, 4)}-{digits(rng, 2)}"
    add(B, k, f"oxycodone 10mg short at DC, NDC {v}", v)
    v = digits(rng, 11)
    add(B, k, f"NDC (11-digit, no dashes) for the claim: {v}", v)
    v = f"{digits(rng, 4)}-{digits(rng, 4)}-{digits(rng, 2)}"
    add(B, k, f"CSOS order line 3: NDC {v} qty 2", v)
    v = f"{digits(rng, 5)}-{digits(rng, 3)}-{digits(rng, 2)}"
    add(B, k, f"label says NDC {v} (5-3-2), pad to 11 digits for the claim", v)

    k = "ncpdp_provider_id"
    v = digits(rng, 7)
    add(B, k, f"NCPDP ID for store 0231: {v}", v)
    v = digits(rng, 7)
    add(B, k, f"B1 claim rejected, 201-B1 Service Provider ID {v} qualifier 07", v)
    v = digits(rng, 7)
    add(B, k, f'ncpdp_provider_id: "{v}"', v)

    k = "pzn_code"
    v = pzn(rng)
    add(B, k, f"PZN {v} ist beim Großhandel defekt, Alternativen suchen", v)
    v = pzn(rng)
    add(B, k, f"Artikel: Ibuprofen 400 mg 20 St., PZN {v}", v)
    v = pzn(rng)
    add(B, k, f'{{"pzn": "{v}", "menge": 3}}', v)
    v = pzn(rng)
    add(B, k, f"BtM-Abgabe dokumentiert: Tilidin comp. 100/8, PZN {v}, 1 OP", v)

    k = "cip13_code"
    v = ean13("34009" + digits(rng, 7))
    add(B, k, f"Code CIP13 du Doliprane 1000 : {v}", v)
    v = ean13("34009" + digits(rng, 7))
    add(B, k, f"rupture OCP sur le CIP {v}, commander chez Alliance", v)
    v = ean13("34009" + digits(rng, 7))
    add(B, k, f"cip13,qty\n{v},6", v)

    k = "prescription_number"
    v = "Rx#" + digits(rng, 7)
    add(B, k, f"patient called about {v}, refill too soon", v)
    v = digits(rng, 7) + "-" + digits(rng, 2)
    add(B, k, f"Rx number {v} transferred to store 112", v)
    v = "ORD-" + digits(rng, 4) + "-" + digits(rng, 6)
    add(B, k, f"Numéro d'ordonnance numérique {v}", v)

    k = "erezept_task_id"
    v = f"160.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 2)}"
    add(B, k, f"E-Rezept-ID {v} lässt sich nicht abrufen (403)", v)
    v = f"160.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 2)}"
    add(B, k, f"GET /Task/{v} -> status completed", v)
    v = f"169.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 2)}"
    add(B, k, f"PKV-Rezept, Task {v}, Abrechnung über ARZ", v)
    v = f"160.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 3)}.{digits(rng, 2)}"
    add(B, k, f"| Datum | Rezept-ID | Status |\n| 05.12. | {v} | in-progress |", v)

    k = "telematik_id"
    v = f"3-{digits(rng, 2)}.2.{digits(rng, 10)}.{digits(rng, 2)}.{digits(rng, 3)}"
    add(B, k, f"Telematik-ID der Filiale 0417: {v}", v)
    v = f"3-SMC-B-Testkarte-{digits(rng, 15)}"
    add(B, k, f"In der RU nutzen wir die Testkarte {v}", v)
    v = "80276883110000" + digits(rng, 6)
    add(B, k, f"ICCSN der neuen SMC-B: {v}", v)

    k = "gln_location_number"
    v = ean13("426" + digits(rng, 9))
    add(B, k, f"GLN der Filiale Bremen-Mitte: {v}", v)
    v = ean13("0" + digits(rng, 11))
    add(B, k, f"ship-to GLN for the Columbus DC: {v}", v)
    v = ean13("376" + digits(rng, 9))
    add(B, k, f"GLN du dépôt : {v}", v)

    k = "gtin_barcode"
    v = ean13("40" + digits(rng, 10))
    add(B, k, f"scanner reads EAN {v} but POS doesn't find the item", v)
    v = "(01)0" + ean13("4" + digits(rng, 11)) + "(17)271231(10)" + r(rng, UP + DG, 6)
    add(B, k, f"securPharm DataMatrix: {v}", v)
    v = ean13("84" + digits(rng, 10))
    add(B, k, f"Código de barras del producto de parafarmacia: {v}", v)

    k = "store_number"
    v = "FIL" + digits(rng, 4)
    add(B, k, f"{v} is the new store in Oldenburg, opens 15.01.", v)
    v = "Store #" + digits(rng, 4)
    add(B, k, f"{v} (Columbus, OH) has no internet since 6am", v)
    v = "OFF-" + digits(rng, 3)
    add(B, k, f"Officine {v} passe au nouveau LGO en janvier", v)
    v = "Farmacia " + digits(rng, 3)
    add(B, k, f"La {v} (Triana) cierra por obras el lunes", v)

    k = "pos_terminal_id"
    v = f"POS-{digits(rng, 4)}-{digits(rng, 2)}"
    add(B, k, f"Kasse {v} druckt keine Bons", v)
    v = f"till-{digits(rng, 4)}-{rng.randint(1, 6)}"
    add(B, k, f"hostname: {v}.stores.salvia.internal", v)
    v = "CAJA" + digits(rng, 3)
    add(B, k, f"La {v} no conecta con el servidor de la farmacia", v)

    k = "merchant_id"
    v = digits(rng, 8)
    add(B, k, f"Terminal-ID (TID) der Filiale 12: {v}", v)
    v = digits(rng, 15)
    add(B, k, f"merchant id for the pharmacy card acquirer: {v}", v)
    v = digits(rng, 9)
    add(B, k, f"Número de comercio Redsys (FUC): {v}", v)

    k = "device_serial_number"
    v = "SN" + r(rng, UP + DG, 10)
    add(B, k, f"CD safe in store 231 serial {v} (Burg-Wächter), warranty until 2028", v)
    v = r(rng, UP + DG, 3) + "-" + digits(rng, 3) + "-" + digits(rng, 3)
    add(B, k, f"Verifone V400m S/N {v} replaced", v)
    v = "FGT40F" + r(rng, UP + DG, 10)
    add(B, k, f"FortiGate Seriennummer: {v}", v)
    v = "Q2" + r(rng, UP + DG, 2) + "-" + r(rng, UP + DG, 4) + "-" + r(rng, UP + DG, 4)
    add(B, k, f"Meraki MR36 claimed: {v}", v)

    k = "mac_address"
    v = ":".join(hx(rng, 2) for _ in range(6)).upper()
    add(B, k, f"DHCP reservation for the label printer: {v}", v)
    v = "-".join(hx(rng, 2) for _ in range(6))
    add(B, k, f"Adresse MAC du terminal de paiement : {v}", v)
    v = ".".join(hx(rng, 4) for _ in range(3))
    add(B, k, f"show mac address-table | include {v}", v)

    k = "ip_address"
    v = f"10.{rng.randint(1, 250)}.{rng.randint(0, 250)}.0/24"
    add(B, k, f"store LAN range {v}", v)
    v = f"192.168.{rng.randint(1, 250)}.{rng.randint(2, 250)}"
    add(B, k, f"Konnektor LAN-IP: {v}", v)
    v = f"172.{rng.randint(16, 31)}.{rng.randint(0, 250)}.{rng.randint(2, 250)}"
    add(B, k, f"ping {v}  # Rowa controller", v)
    v = f"fd{hx(rng, 2)}:{hx(rng, 4)}:{hx(rng, 4)}::1"
    add(B, k, f"IPv6 du routeur de l'officine : {v}", v)

    k = "ticket_reference"
    v = "INC" + digits(rng, 7)
    add(B, k, f"opened {v} with the Konnektor vendor", v)
    v = "POS-" + str(rng.randint(100, 9999))
    add(B, k, f"fix tracked in {v}", v)
    v = "CHG" + digits(rng, 7)
    add(B, k, f"Changement {v} : mise à jour des TPE samedi soir", v)
    v = "RITM" + digits(rng, 7)
    add(B, k, f"new SMC-B ordered via {v}", v)

    k = "build_version"
    v = f"7.{rng.randint(0, 9)}.{rng.randint(0, 20)}-b{digits(rng, 4)}"
    add(B, k, f"POS back office version {v} rolled to 40 stores", v)
    v = f"PTV5 {rng.randint(5, 6)}.{rng.randint(0, 9)}.{rng.randint(0, 20)}"
    add(B, k, f"Konnektor-Firmware {v} eingespielt", v)
    v = f"v{rng.randint(1, 3)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}+{hx(rng, 7)}"
    add(B, k, f"erx-gateway {v}", v)
    v = f"{rng.randint(2024, 2026)}.{rng.randint(1, 12)}.{rng.randint(1, 28)}.{digits(rng, 4)}"
    add(B, k, f"Versión del software de la farmacia: {v}", v)

    k = "batch_lot_number"
    v = "Ch.-B. " + r(rng, UP + DG, 7)
    add(B, k, f"Rückruf betrifft {v}, verw. bis 03/2027", v)
    v = "LOT " + r(rng, UP + DG, 8)
    add(B, k, f"recall: amoxicillin 500mg {v}, pull from shelves", v)
    v = "Lote " + r(rng, UP + DG, 6)
    add(B, k, f"{v}, caducidad 11/2026", v)

    k = "wholesaler_order_number"
    v = "PO-" + digits(rng, 8)
    add(B, k, f"McKesson order {v} delivered short 2 totes", v)
    v = "Auftrag " + digits(rng, 10)
    add(B, k, f"PHOENIX {v} Lieferung morgen 7 Uhr", v)
    v = "CMD" + digits(rng, 9)
    add(B, k, f"Commande OCP {v} confirmée", v)

    k = "npm_integrity_hash"
    v = "sha512-" + b64bytes(rng, 64)
    add(B, k, f'"integrity": "{v}"', v)
    v = "sha512-" + b64bytes(rng, 64)
    add(B, k, f"lockfile diff: @salvia/pos-ui resolved integrity {v}", v)
    v = "sha384-" + b64bytes(rng, 48)
    add(
        B,
        k,
        f'<script src="https://cdn.salvia.de/shop.js" integrity="{v}" crossorigin="anonymous"></script>',
        v,
    )

    k = "bcrypt_hash"
    v = "$2b$12$" + r(rng, AN + "./", 53)
    add(B, k, f"users.csv export row: rxtech,{v},active", v)
    v = "$2y$10$" + r(rng, AN + "./", 53)
    add(B, k, f"hash stocké dans la table utilisateurs du portail : {v}", v)
    v = (
        "$argon2id$v=19$m=65536,t=3,p=4$"
        + b64bytes(rng, 16).rstrip("=")
        + "$"
        + b64bytes(rng, 32).rstrip("=")
    )
    add(B, k, f"password_hash: {v}", v)

    k = "password_policy_text"
    v = "Passwörter: mind. 12 Zeichen, Groß/Klein, Ziffer, Sonderzeichen, Wechsel alle 90 Tage"
    add(B, k, f"IT-Richtlinie Filialen: {v}", v)
    v = "safe codes must be changed whenever a keyholder leaves and at least quarterly"
    add(B, k, f"CD policy v3: {v}", v)
    v = "le code porteur CPS ne doit jamais être noté ni communiqué"
    add(B, k, f"Rappel : {v}.", v)

    k = "oauth_client_id"
    v = guid(rng)
    add(B, k, f"AZURE_CLIENT_ID={v}", v)
    v = f"{digits(rng, 12)}-{r(rng, LO + DG, 32)}.apps.googleusercontent.com"
    add(B, k, f"Google sign-in client ID for the staff app: {v}", v)
    v = "0oa" + r(rng, AN, 17)
    add(B, k, f"Okta app client_id {v}", v)

    k = "pgp_fingerprint"
    v = " ".join(hx(rng, 4).upper() for _ in range(10))
    add(B, k, f"encrypt claim files to the PBM's key, fingerprint {v}", v)
    v = hx(rng, 40).upper()
    add(B, k, f"gpg --recv-keys {v}", v)
    v = "0x" + hx(rng, 16).upper()
    add(B, k, f"Clé publique PGP de la CPAM pour les retours NOEMIE : ID {v}", v)

    k = "iban_example"
    add(
        B,
        k,
        "Beispiel-IBAN aus der Doku: DE89 3704 0044 0532 0130 00",
        "DE89 3704 0044 0532 0130 00",
    )
    add(
        B,
        k,
        "test IBAN for the SEPA mandate form: GB82WEST12345698765432",
        "GB82WEST12345698765432",
    )
    add(
        B,
        k,
        "IBAN de test : FR14 2004 1010 0505 0001 3M02 606",
        "FR14 2004 1010 0505 0001 3M02 606",
    )

    k = "test_card_number"
    add(
        B,
        k,
        "use 4242 4242 4242 4242 any CVC, any future date for the shop sandbox",
        "4242 4242 4242 4242",
    )
    add(B, k, "Testkarte für das Terminal im Demo-Modus: 4111111111111111", "4111111111111111")
    add(B, k, "Adyen test Mastercard 5555 3412 4444 1115 exp 03/30", "5555 3412 4444 1115")

    k = "trace_id"
    v = f"00-{hx(rng, 32)}-{hx(rng, 16)}-01"
    add(B, k, f"traceparent: {v}", v)
    v = hx(rng, 32)
    add(B, k, f"dd.trace_id={v} span slow on /v2/stock", v)
    v = hx(rng, 16)
    add(B, k, f"X-Request-Id: {v}", v)

    k = "k8s_secret_ref"
    add(
        B,
        k,
        "env:\n  - name: STRIPE_SECRET_KEY\n    valueFrom:\n      secretKeyRef:\n        name: shop-stripe\n        key: secret-key",
        "secretKeyRef:\n        name: shop-stripe\n        key: secret-key",
    )
    add(
        B,
        k,
        "kubectl -n erx get secret erx-db-credentials -o yaml | grep -c password",
        "erx-db-credentials",
    )
    add(
        B,
        k,
        "externalSecret: remoteRef key=prod/pos/mssql property=password",
        "remoteRef key=prod/pos/mssql property=password",
    )

    k = "shipment_tracking_number"
    v = "1Z" + r(rng, UP + DG, 16)
    add(B, k, f"replacement PIN pad shipped UPS {v}", v)
    v = digits(rng, 12)
    add(B, k, f"DHL-Sendungsnummer für die neue SMC-B: {v}", v)
    v = "6A" + digits(rng, 11)
    add(B, k, f"Colissimo suivi {v}", v)

    k = "dea_222_form_number"
    v = digits(rng, 9)
    add(B, k, f"paper DEA 222 form {v} voided, kept in binder", v)
    v = digits(rng, 9)
    add(B, k, f"Form 222 order form no. {v} received by the DC", v)
    v = digits(rng, 9)
    add(B, k, f"CSOS order {v} acknowledged by Cardinal, 3 lines CII", v)

    k = "certificate_fingerprint"
    v = ":".join(hx(rng, 2).upper() for _ in range(20))
    add(B, k, f"SHA1 thumbprint of the CSOS cert: {v}", v)
    v = ":".join(hx(rng, 2).upper() for _ in range(32))
    add(B, k, f"Pin the gateway cert: sha256 {v}", v)
    v = hx(rng, 40).upper()
    add(B, k, f"Thumbprint Zertifikat Kassen-Webservice: {v}", v)

    k = "tse_serial_number"
    v = hx(rng, 64)
    add(B, k, f"TSE-Seriennummer (Kasse 2, Filiale 12): {v}", v)
    v = hx(rng, 64)
    add(B, k, f"DSFinV-K export: tse_serial={v}", v)
    v = "NF525-" + digits(rng, 4) + "-" + digits(rng, 3)
    add(B, k, f"Certificat caisse {v}", v)

    k = "meraki_network_id"
    v = "L_" + digits(rng, 18)
    add(B, k, f"GET /networks/{v}/clients", v)
    v = "N_" + digits(rng, 18)
    add(B, k, f"Netzwerk-ID Filiale 0417 im Dashboard: {v}", v)
    v = digits(rng, 6)
    add(B, k, f"Meraki organizationId {v}", v)

    k = "azure_tenant_id"
    v = guid(rng)
    add(B, k, f"AZURE_TENANT_ID={v}", v)
    v = guid(rng)
    add(B, k, f"https://login.microsoftonline.com/{v}/oauth2/v2.0/token", v)
    v = guid(rng)
    add(B, k, f"ID de inquilino de Entra (grupo farmacias España): {v}", v)

    k = "surescripts_spi"
    v = digits(rng, 13)
    add(B, k, f"Surescripts SPI for the prescriber: {v}", v)
    v = digits(rng, 13)
    add(B, k, f"<SPI>{v}</SPI>", v)
    v = digits(rng, 13)
    add(B, k, f"CancelRx bounced, SPI {v} no longer active in the directory", v)

    k = "pharmacist_license_number"
    v = "RPH." + digits(rng, 7)
    add(B, k, f"pharmacist-in-charge license {v}, renewal due 2027", v)
    v = "RPPS " + digits(rng, 11)
    add(B, k, f"Pharmacien titulaire, {v}", v)
    v = "Nº colegiado " + digits(rng, 4)
    add(B, k, f"Farmacéutica responsable, {v}", v)

    return rows


def main() -> None:
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in corpus():
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

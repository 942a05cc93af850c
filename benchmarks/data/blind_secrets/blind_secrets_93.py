# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 93: credit union IT and back office.

Brief: notes kept by the IT and back-office team of a credit union (and their AI
coding agents) about core banking, card processing, the ATM fleet, payment
networks (SWIFT, SEPA, GIRO, DIAS), HSMs, internet banking, document scanning and
branch alarm systems, plus the generic developer stack. Rows are prose notes,
handover lines, chat messages, commands, config and .env lines, YAML, JSON, URLs,
log lines, in English, Hungarian and Greek. "secret" rows hold live credentials;
"benign" rows hold look-alikes a careful reader would keep.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_93.py [out.jsonl]

Kinds, secret: core_db_password, oracle_connect_string, postgres_url,
mssql_connection_string, hsm_partition_password, lmk_clear_component,
zmk_clear_component, tmk_clear_component, atm_supervisor_password,
atm_safe_combination, alarm_user_code, alarm_duress_code, card_processor_api_key,
stripe_secret_key, aws_secret_access_key, github_token, gitlab_pat,
slack_webhook_url, slack_bot_token, teams_webhook_url,
azure_storage_connection_string, azure_client_secret, gcp_service_account_key,
ssh_private_key, rsa_private_key, jwt_signing_secret, oauth_client_secret,
sendgrid_api_key, twilio_auth_token, swift_operator_password, sftp_password,
ldap_bind_password, vpn_preshared_key, wifi_passphrase, scanner_admin_password,
shared_mailbox_password, recovery_codes, npm_token, dockerhub_pat, pypi_token,
openai_api_key, telegram_bot_token, vault_token, jenkins_api_token, totp_seed,
keystore_password, bitlocker_recovery_key, local_admin_password, datadog_api_key,
redis_url, smtp_password, card_pin, ebanking_admin_password, door_keypad_code.

Kinds, benign: iban, bic_code, masked_pan, test_card_number, atm_terminal_id,
merchant_id, atm_serial_number, hsm_serial_number, key_check_value, dukpt_ksn,
hsm_key_label, emv_aid, sha256_checksum, git_commit_sha, request_id, ssh_public_key,
certificate_fingerprint, pem_certificate, stripe_publishable_key, recaptcha_site_key,
aws_documented_example_key, placeholder_password, env_var_reference, vault_path,
masked_secret, revoked_token, ticket_reference, build_version, swift_uetr,
sepa_end_to_end_id, retrieval_reference_number, card_bin, member_number,
loan_account_number, alarm_monitoring_account, alarm_event_code, internal_host,
mac_address, docker_image_digest, password_policy_text, jwks_kid, oauth_client_id,
azure_tenant_id, aws_arn, slack_channel_id, ci_run_url, mcc_code, tax_number,
phone_number, pgp_fingerprint, scan_batch_id, npm_integrity_hash, iso8583_mti,
documented_test_key, atm_journal_sequence, bitlocker_key_id, twilio_account_sid,
jwt_header.
"""

import json
import random
import re
import string
import sys

SEED = 9393

B62 = string.ascii_letters + string.digits
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEXL = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
DIG = string.digits
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

BRANCHES = [
    "Debrecen",
    "Szeged",
    "Pecs",
    "Gyor",
    "Kecskemet",
    "Larisa",
    "Patra",
    "Volos",
    "Ioannina",
    "Chania",
]
NAMES = [
    "Kovács Éva",
    "Nagy Péter",
    "Tóth Anna",
    "Szabó Gábor",
    "Horváth Zsófia",
    "Γιώργος Νικολάου",
    "Μαρία Παππά",
    "Nikos Georgiou",
    "Eleni Karra",
    "Varga László",
]
WORDS = [
    "Takarek",
    "Szovetkezet",
    "Penztar",
    "Tavasz",
    "Balaton",
    "Duna",
    "Kalimera",
    "Athina",
    "Thessaloniki",
    "Hermes",
    "Olympos",
    "Kestrel",
    "Orchid",
    "Pelikan",
    "Kapu",
    "Meltemi",
    "Zefyros",
    "Debrecen",
    "Mikulas",
    "Kardia",
]
PHRASE_WORDS = [
    "fekete",
    "macska",
    "piros",
    "alma",
    "hajo",
    "fenyo",
    "ilios",
    "thalassa",
    "dentro",
    "vrochi",
    "river",
    "copper",
    "lantern",
    "harbor",
    "tulip",
    "granite",
]


def rs(r, alphabet, n):
    return "".join(r.choice(alphabet) for _ in range(n))


def uuid4(r):
    h = rs(r, HEXL, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:32]}"


def human_pw(r):
    p = r.randrange(6)
    w = r.choice(WORDS)
    if p == 0:
        return f"{w}{r.randint(2019, 2026)}{r.choice('!#?.$')}"
    if p == 1:
        return f"{w}{r.choice('#_!@')}{r.choice(WORDS)}{r.randint(10, 99)}"
    if p == 2:
        t = w.replace("a", "@").replace("e", "3").replace("o", "0")
        return f"{t}_{r.randint(1, 99)}"
    if p == 3:
        return "-".join(r.sample(PHRASE_WORDS, 4)) + str(r.randint(1, 9))
    if p == 4:
        return rs(r, B62 + "!#$%&*", 16)
    return f"{w.lower()}{r.choice(WORDS)}{rs(r, DIG, 3)}{r.choice('!*%')}"


def url_pw(r):
    p = r.randrange(3)
    if p == 0:
        return rs(r, B62, 20)
    if p == 1:
        return f"{r.choice(WORDS)}{r.randint(2019, 2026)}x{rs(r, B62, 4)}"
    return rs(r, B62, 14)


def pem(r, label, prefix, nchars):
    body = prefix + rs(r, B64, nchars - len(prefix))
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def hex_groups(r, n_groups):
    return " ".join(rs(r, HEXU, 4) for _ in range(n_groups))


def iban(r, cc, nd):
    bban = rs(r, DIG, nd)
    conv = "".join(str(ord(c) - 55) for c in cc) + "00"
    check = 98 - int(bban + conv) % 97
    return f"{cc}{check:02d}{bban}"


# ----------------------------------------------------------------------------
# value generators, secret
# ----------------------------------------------------------------------------


def g_oracle(r):
    return f"{r.choice(['cbs_app', 'coreown', 'rpt_reader', 'loans_etl'])}/{url_pw(r)}@//ora-core-{r.choice(['prd', 'dr'])}{r.randint(1, 3):02d}.cu.local:1521/{r.choice(['COREPRD', 'CBSRPT', 'LOANSP'])}"


def g_pg(r):
    return f"postgresql://{r.choice(['ibank_app', 'ibank_rw', 'mobile_api'])}:{url_pw(r)}@pg-ibank-{r.randint(1, 4):02d}.cu.internal:5432/{r.choice(['ibank', 'ibank_sessions', 'ibank_stage'])}"


def g_mssql(r):
    db = r.choice(["CardMgmt", "DocArchive", "AtmMonitor", "Kofax_Capture"])
    return f"Server=tcp:sql-{db.lower()[:6]}01.cu.local,1433;Database={db};User Id=svc_{db.lower()[:4]};Password={human_pw(r).replace(';', '!')};Encrypt=True;"


def g_luna(r):
    return "-".join(rs(r, B62, 4) for _ in range(4))


def g_lmk(r):
    return hex_groups(r, 8)


def g_zmk(r):
    return rs(r, HEXU, 32) if r.random() < 0.5 else hex_groups(r, 8)


def g_tmk(r):
    return rs(r, HEXU, 32)


def g_stripe_sk(r):
    if r.random() < 0.5:
        return "sk_live_" + rs(r, B62, 24)
    return "sk_live_51" + rs(r, B62, 97)


def g_github(r):
    if r.random() < 0.6:
        return "ghp_" + rs(r, B62, 36)
    return "github_pat_11" + rs(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 20) + "_" + rs(r, B62, 59)


def g_slack_hook(r):
    return f"https://hooks.slack.com/services/T{rs(r, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789', 10)}/B{rs(r, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789', 10)}/{rs(r, B62, 24)}"


def g_slack_bot(r):
    return f"xoxb-{rs(r, DIG, 12)}-{rs(r, DIG, 13)}-{rs(r, B62, 24)}"


def g_teams(r):
    return f"https://cuorg.webhook.office.com/webhookb2/{uuid4(r)}@{uuid4(r)}/IncomingWebhook/{rs(r, HEXL, 32)}/{uuid4(r)}/V2{rs(r, B64URL, 43)}"


def g_az_storage(r):
    acct = r.choice(["cuscanarchive", "custatements", "cuatmjournals"])
    return f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={rs(r, B64, 86)}==;EndpointSuffix=core.windows.net"


def g_az_secret(r):
    return rs(r, B62, 3) + str(r.randint(0, 9)) + "Q~" + rs(r, B62 + "_-.~", 34)


def g_gcp_key(r):
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + rs(r, B64, 1500)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(lines) + "\\n-----END PRIVATE KEY-----\\n"


def g_ssh_priv(r):
    return pem(
        r,
        "OPENSSH PRIVATE KEY",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA",
        400,
    )


def g_rsa_priv(r):
    return pem(r, "RSA PRIVATE KEY", "MIIEowIBAAKCAQEA", 1588)


def g_jwt_secret(r):
    return rs(r, HEXL, 64) if r.random() < 0.5 else rs(r, B64, 43) + "="


def g_sendgrid(r):
    return f"SG.{rs(r, B64URL, 22)}.{rs(r, B64URL, 43)}"


def g_recovery(r):
    if r.random() < 0.5:
        return " ".join(f"{rs(r, DIG, 4)}-{rs(r, DIG, 4)}" for _ in range(8))
    return "\n".join(rs(r, "abcdefghijkmnpqrstuvwxyz23456789", 10) for _ in range(8))


def g_pypi(r):
    return "pypi-AgEIcHlwaS5vcmcCJD" + rs(r, B64URL, 150)


def g_openai(r):
    return "sk-proj-" + rs(r, B64URL, 74) + "T3BlbkFJ" + rs(r, B64URL, 74)


def g_telegram(r):
    return f"{r.randint(5000000000, 7999999999)}:AA{rs(r, B64URL, 33)}"


def g_bitlocker(r):
    return "-".join(f"{r.randint(0, 720000) // 11 * 11:06d}" for _ in range(8))


def g_redis(r):
    return (
        f"redis://:{url_pw(r)}@redis-ibank-{r.randint(1, 3):02d}.cu.internal:6379/{r.randint(0, 4)}"
    )


def g_psk(r):
    if r.random() < 0.5:
        return rs(r, B62 + "!@#%^*", 32)
    return " ".join(r.sample(PHRASE_WORDS, 5)) + f" {r.randint(10, 99)}"


def g_wifi(r):
    return r.choice(
        [
            f"{r.choice(WORDS)}Wifi{r.randint(2020, 2026)}",
            f"{r.choice(PHRASE_WORDS)}-{r.choice(PHRASE_WORDS)}-{r.randint(100, 999)}",
            f"CU{rs(r, DIG, 4)}{r.choice(WORDS).lower()}!",
        ]
    )


SECRET = [
    (
        "core_db_password",
        human_pw,
        [
            "Core banking DB (Oracle, COREPRD): app user CBS_APP, password {v}. Don't change it without telling the vendor's support desk first.",
            "CORE_DB_PASSWORD={v}",
            "A core rendszer EOD batch felhasználójának jelszava: {v} (a Control-M jobokban is ez van beégetve)",
            "Για τη βάση του core: χρήστης eod_batch, συνθηματικό {v}",
        ],
    ),
    (
        "oracle_connect_string",
        g_oracle,
        [
            "sqlplus {v} @/opt/cbs/scripts/eod_recon.sql",
            "Handover: if the nightly interest accrual hangs, connect with `sqlplus {v}` and look at DBA_JOBS_RUNNING.",
            "Gyors belépés a riport adatbázisba: {v}",
            "expdp {v} schemas=LOANS directory=DP_DIR dumpfile=loans_%U.dmp",
        ],
    ),
    (
        "postgres_url",
        g_pg,
        [
            "DATABASE_URL={v}",
            'ibank:\n  datasource:\n    url: "{v}"\n    pool-size: 20',
            "psql \"{v}\" -c 'select count(*) from sessions where expired_at is null'",
            "Το staging του e-banking δείχνει εδώ: {v}",
        ],
    ),
    (
        "mssql_connection_string",
        g_mssql,
        [
            '{\n  "ConnectionStrings": {\n    "Default": "{v}"\n  }\n}',
            "Kártyakezelő / archívum connection string (éles): {v}",
            'setx APP_DB_CONN "{v}" /M',
            "Συμβολοσειρά σύνδεσης που χρησιμοποιεί η υπηρεσία των σαρώσεων: {v}",
        ],
    ),
    (
        "hsm_partition_password",
        g_luna,
        [
            "lunacm:> partition login -role co -password {v}",
            "Luna partition PAY_PRD crypto officer password: {v} (the envelope copy is in the vault, this one is for the signing pipeline)",
            "HSM partíció (PIN_TRANSLATE) CO jelszó: {v}",
            "Κωδικός Crypto Officer για το partition του HSM στο DR: {v}",
        ],
    ),
    (
        "lmk_clear_component",
        g_lmk,
        [
            "LMK component 2 of 3, custodian {name}: {v}",
            "payShield console, LK -> Enter LMK component: {v}",
            "LMK 2. komponens (letéteményes: {name}): {v}",
            "Συστατικό LMK #1 για το payShield 10K (γραμμένο από τον {name}): {v}",
        ],
    ),
    (
        "zmk_clear_component",
        g_zmk,
        [
            "ZMK from the card scheme key exchange, clear component A: {v}",
            "FK (form key from components), component 1 = {v}",
            "A GIRO zónakulcs (ZMK) első komponense: {v} — a borítékot ma bontottuk fel",
        ],
    ),
    (
        "tmk_clear_component",
        g_tmk,
        [
            "ATM {tid} TMK component 1 (typed in at the EPP keypad): {v}",
            "TMK komponens a(z) {branch} fiók ATM-jéhez: {v}",
            "Master key για το ATM του καταστήματος {branch}, συστατικό Β: {v}",
        ],
    ),
    (
        "atm_supervisor_password",
        lambda r: rs(r, DIG, r.choice([6, 7, 8])),
        [
            "NCR SelfServ supervisor password at {branch}: {v}",
            "ATM szerviz mód jelszó: {v} — a pénzszállítók NEM kaphatják meg",
            "Diebold Opteva: Supervisor menu, access code {v}",
            "Ο κωδικός supervisor του ATM στο κατάστημα {branch} είναι {v}",
        ],
    ),
    (
        "atm_safe_combination",
        lambda r: "-".join(f"{r.randint(0, 99):02d}" for _ in range(r.choice([3, 4]))),
        [
            "Safe combo for ATM {tid} (La Gard dial): {v}",
            "ATM széf kombináció ({branch}): {v}",
            "Συνδυασμός χρηματοκιβωτίου ATM: {v} — αλλάζει μετά από κάθε επίσκεψη τεχνικού",
        ],
    ),
    (
        "alarm_user_code",
        lambda r: rs(r, DIG, r.choice([4, 5, 6])),
        [
            "Galaxy panel master code at {branch}: {v}",
            "Riasztó mesterkód ({branch} fiók): {v}",
            "Κωδικός συναγερμού για το άνοιγμα του καταστήματος: {v}",
            "Texecom engineer code for {branch} (installer left it in the handover sheet): {v}",
        ],
    ),
    (
        "alarm_duress_code",
        lambda r: rs(r, DIG, 4),
        [
            "Duress code for {branch} (silent alarm to the monitoring centre): {v}",
            "Kényszerkód (csendes riasztás): {v} — csak a fiókvezető és a helyettese tudja",
            "Κωδικός εξαναγκασμού (duress) του συναγερμού: {v}",
        ],
    ),
    (
        "card_processor_api_key",
        lambda r: "cpk_live_" + rs(r, B62, 40),
        [
            "CARD_PROCESSOR_API_KEY={v}",
            "curl -H 'X-Api-Key: {v}' https://api.cardproc.example/v2/cards/block -d @block.json",
            "A kártyaletiltó API kulcsa (éles): {v}",
            "Κλειδί API του επεξεργαστή καρτών για την παραγωγή: {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_stripe_sk,
        [
            "STRIPE_SECRET_KEY={v}",
            "stripe:\n  secret_key: {v}\n  webhook_path: /hooks/stripe",
            "Membership fee portal runs on Stripe; the live secret is {v}",
            "Stripe éles titkos kulcs a tagdíj-visszatérítéshez: {v}",
        ],
    ),
    (
        "aws_secret_access_key",
        lambda r: rs(r, B64, 40),
        [
            "[cu-backup]\naws_access_key_id = {akid}\naws_secret_access_key = {v}\nregion = eu-central-1",
            "export AWS_SECRET_ACCESS_KEY={v}",
            "Ο IAM user για τα backups των σαρώσεων: AccessKey {akid}, Secret {v}",
            "S3 mentés felhasználó ({akid}) titkos kulcsa: {v}",
        ],
    ),
    (
        "github_token",
        g_github,
        [
            "git clone https://{v}@github.com/cu-it/ibank-frontend.git",
            "GH_TOKEN={v}",
            "A deploy scripthez használt GitHub token: {v} (jövő decemberben jár le)",
            "PAT for the release bot, scoped to cu-it/atm-config: {v}",
        ],
    ),
    (
        "gitlab_pat",
        lambda r: "glpat-" + rs(r, B64URL, 20),
        [
            "GITLAB_TOKEN={v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.cu.local/api/v4/projects/42/pipelines',
            "Το token του GitLab για το mirror του core-adapters: {v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "SLACK_WEBHOOK_URL={v}",
            "ATM cash-low alerts post to #atm-fleet via {v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"EOD finished\"}' {v}",
            "Slack webhook a riasztó eseményekhez: {v}",
        ],
    ),
    (
        "slack_bot_token",
        g_slack_bot,
        [
            "SLACK_BOT_TOKEN={v}",
            'slack:\n  bot_token: "{v}"\n  channel: C04QZ8M1L2K',
            "Το bot του helpdesk τρέχει με token {v}",
        ],
    ),
    (
        "teams_webhook_url",
        g_teams,
        [
            "Teams connector for the card-ops channel: {v}",
            "TEAMS_WEBHOOK={v}",
            "Invoke-RestMethod -Method Post -Uri \"{v}\" -Body $json -ContentType 'application/json'",
            "Webhook του Teams για τις ειδοποιήσεις SWIFT: {v}",
        ],
    ),
    (
        "azure_storage_connection_string",
        g_az_storage,
        [
            'AZURE_STORAGE_CONNECTION_STRING="{v}"',
            "A szkennelt dokumentumok blob tárolója: {v}",
            '"ScanArchive": "{v}",',
        ],
    ),
    (
        "azure_client_secret",
        g_az_secret,
        [
            "AZURE_CLIENT_SECRET={v}",
            "App registration 'cu-ibank-api' client secret (expires 2027-03): {v}",
            "Client secret της εφαρμογής Entra για το Intune: {v}",
            "az login --service-principal -u {appid} -p {v} --tenant {tenant}",
        ],
    ),
    (
        "gcp_service_account_key",
        g_gcp_key,
        [
            '{"type": "service_account", "project_id": "cu-doc-ocr", "private_key_id": "{h40}", "private_key": "{v}", "client_email": "ocr-runner@cu-doc-ocr.iam.gserviceaccount.com"}',
            'GOOGLE_PRIVATE_KEY="{v}"',
            'Document AI service account kulcsa (a Jira ticketből másoltam): "private_key": "{v}"',
        ],
    ),
    (
        "ssh_private_key",
        g_ssh_priv,
        [
            "Deploy key for the ATM monitoring box (ed25519):\n{v}",
            "cat > ~/.ssh/id_sftp_giro <<'EOF'\n{v}\nEOF",
            "Το ιδιωτικό κλειδί για το SFTP της ΔΙΑΣ:\n{v}",
        ],
    ),
    (
        "rsa_private_key",
        g_rsa_priv,
        [
            "ibank TLS key after the renewal (server.key):\n{v}",
            "Az EFT switch mTLS kliens kulcsa:\n{v}",
            "Ιδιωτικό κλειδί για το mTLS με τον επεξεργαστή καρτών:\n{v}",
        ],
    ),
    (
        "jwt_signing_secret",
        g_jwt_secret,
        [
            "JWT_SECRET={v}",
            "ibank:\n  auth:\n    jwt-hmac-secret: {v}",
            "Το secret που υπογράφει τα session tokens του e-banking: {v}",
            "Ha a mobilapp 401-et dob, nézd meg, hogy mindkét node-on ez a JWT aláíró kulcs van-e: {v}",
        ],
    ),
    (
        "oauth_client_secret",
        lambda r: rs(r, B62, r.choice([32, 40, 48])),
        [
            "PSD2 gateway OAuth client: id tpp-gw-prod, secret {v}",
            "OAUTH_CLIENT_SECRET={v}",
            "curl -u ibank-web:{v} -d grant_type=client_credentials https://auth.cu.local/oauth2/token",
            "Client secret για το API ανοιχτής τραπεζικής: {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SENDGRID_API_KEY={v}",
            "E-statement emails go through SendGrid, key: {v}",
            "Το κλειδί SendGrid για τις ειδοποιήσεις μελών: {v}",
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: rs(r, HEXL, 32),
        [
            "TWILIO_AUTH_TOKEN={v}",
            "SMS OTP via Twilio: Account SID {acsid}, auth token {v}",
            "Twilio auth token (OTP SMS-ek): {v}",
        ],
    ),
    (
        "swift_operator_password",
        human_pw,
        [
            "SWIFT Alliance Lite2 operator {name}: password {v} (token PIN is separate)",
            "Alliance Access belépés (LSO): {v}",
            "Κωδικός χειριστή SWIFT (RSO) για την αποστολή MT103: {v}",
            "SAA operator password rotated today; new one is {v}",
        ],
    ),
    (
        "sftp_password",
        url_pw,
        [
            "sftp giro_cu4711@sftp.giro.example, pw {v}",
            "lftp -u cu_emboss,{v} sftp://emboss.vendor.example",
            "Κωδικός SFTP για την αποστολή αρχείων στη ΔΙΑΣ: {v}",
            "Kártyagyártó SFTP jelszó (dombornyomó fájlok): {v}",
        ],
    ),
    (
        "ldap_bind_password",
        human_pw,
        [
            "LDAP_BIND_PASSWORD={v}",
            "ldapsearch -x -D 'CN=svc_ibank,OU=Service,DC=cu,DC=local' -w '{v}' -H ldaps://dc01.cu.local",
            "AD service account svc_scan jelszava: {v}",
            "Bind DN svc_atmmon, συνθηματικό {v}",
        ],
    ),
    (
        "vpn_preshared_key",
        g_psk,
        [
            "IPsec PSK for the branch tunnel to {branch}: {v}",
            'config vpn ipsec phase1-interface\n  edit "to-cardproc"\n    set psksecret {v}\n  next\nend',
            "Το pre-shared key του VPN προς τον επεξεργαστή καρτών: {v}",
            "Site-to-site VPN (core DR) előre megosztott kulcs: {v}",
        ],
    ),
    (
        "wifi_passphrase",
        g_wifi,
        [
            "Branch staff Wi-Fi (CU-STAFF) password: {v}",
            "A fiók belső wifi jelszava: {v} — vendégeknek NEM adjuk ki",
            "WiFi γραφείων: CU-Office / {v}",
        ],
    ),
    (
        "scanner_admin_password",
        human_pw,
        [
            "fi-7600 in the back office, admin web UI password: {v}",
            "Canon imageRUNNER (2. emelet) rendszergazda jelszó: {v}",
            "Κωδικός διαχειριστή του σαρωτή στο λογιστήριο: {v}",
            "Kofax Capture admin login: administrator / {v}",
        ],
    ),
    (
        "shared_mailbox_password",
        human_pw,
        [
            "ops@ shared mailbox login (legacy, no MFA yet): {v}",
            "A kartya-reklamacio@ közös postafiók jelszava: {v}",
            "Κοινόχρηστο mailbox καταγγελιών, κωδικός: {v}",
        ],
    ),
    (
        "recovery_codes",
        g_recovery,
        [
            "Backup codes for the break-glass Entra global admin: {v}",
            "Tartalék kódok (GitHub org owner fiók):\n{v}",
            "Κωδικοί ανάκτησης για τον λογαριασμό Stripe: {v}",
        ],
    ),
    (
        "npm_token",
        lambda r: "npm_" + rs(r, B62, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "Το token του npm για το private scope @cu-ibank: {v}",
        ],
    ),
    (
        "dockerhub_pat",
        lambda r: "dckr_pat_" + rs(r, B64URL, 27),
        [
            "docker login -u cuops -p {v}",
            "DOCKERHUB_TOKEN={v}",
            "Docker Hub hozzáférési token a CI-hoz: {v}",
        ],
    ),
    (
        "pypi_token",
        g_pypi,
        [
            "[pypi]\n  username = __token__\n  password = {v}",
            "TWINE_PASSWORD={v}",
            "PyPI token for uploading cu-iso8583-tools: {v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "Az ügyfélszolgálati chatbot OpenAI kulcsa: {v}",
            'client = OpenAI(api_key="{v}")',
        ],
    ),
    (
        "telegram_bot_token",
        g_telegram,
        [
            "curl -s https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001874433210 -d text='ATM offline'",
            "TELEGRAM_BOT_TOKEN={v}",
            "Το bot του Telegram για τις ειδοποιήσεις των ATM: {v}",
        ],
    ),
    (
        "vault_token",
        lambda r: "hvs." + rs(r, B62, 24),
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
            "Root token a Vault újratelepítése után (majd revoke-olni kell!): {v}",
        ],
    ),
    (
        "jenkins_api_token",
        lambda r: "11" + rs(r, HEXL, 32),
        [
            "curl -u deploy:{v} -X POST https://jenkins.cu.local/job/ibank-release/build",
            "JENKINS_API_TOKEN={v}",
            "Jenkins API token του χρήστη release: {v}",
        ],
    ),
    (
        "totp_seed",
        lambda r: rs(r, B32, 32),
        [
            "otpauth://totp/CU%20VPN:{user}?secret={v}&issuer=CU%20VPN",
            "TOTP seed for the shared SWIFT ops account: {v}",
            "A közös HSM-admin fiók TOTP titka: {v}",
        ],
    ),
    (
        "keystore_password",
        human_pw,
        [
            "keytool -list -v -keystore mc_connect.jks -storepass {v}",
            "Mastercard Connect mTLS .p12 jelszava: {v}",
            "visa.keystore.password={v}",
            "Κωδικός του PFX για το πιστοποιητικό του e-banking: {v}",
        ],
    ),
    (
        "bitlocker_recovery_key",
        g_bitlocker,
        [
            "BitLocker recovery key for teller PC {host}: {v}",
            "BitLocker helyreállítási kulcs (pénztári gép, {branch}): {v}",
            "Κλειδί ανάκτησης BitLocker για το laptop του διευθυντή: {v}",
        ],
    ),
    (
        "local_admin_password",
        lambda r: rs(r, B62 + "+-#%", r.choice([15, 18, 20])),
        [
            "Local admin on {host} (pulled from LAPS, still valid): {v}",
            "Helyi rendszergazda jelszó a fiók gépeken: {v}",
            "Τοπικός διαχειριστής στα PC των ταμείων: Administrator / {v}",
        ],
    ),
    (
        "datadog_api_key",
        lambda r: rs(r, HEXL, 32),
        [
            "DD_API_KEY={v}",
            "datadog.yaml:\napi_key: {v}\nsite: datadoghq.eu",
            "Datadog API kulcs az ATM monitorhoz: {v}",
        ],
    ),
    (
        "redis_url",
        g_redis,
        [
            "REDIS_URL={v}",
            "Session cache for internet banking: {v}",
            "Η cache των OTP του e-banking είναι εδώ: {v}",
        ],
    ),
    (
        "smtp_password",
        human_pw,
        [
            "SMTP relay (smtp.cu.local), user notify@, pw {v}",
            "spring.mail.password={v}",
            "Az e-kivonat küldő SMTP jelszava: {v}",
        ],
    ),
    (
        "card_pin",
        lambda r: rs(r, DIG, 4),
        [
            "Corporate fuel card for the courier van, PIN {v}",
            "Éles teszt kártya (csak ATM teszthez) PIN kódja: {v}",
            "PIN της εταιρικής κάρτας για τις αγορές του IT: {v}",
        ],
    ),
    (
        "ebanking_admin_password",
        human_pw,
        [
            "Back-office console of the e-banking platform: user ibadmin, password {v}",
            "Netbank admin felület: superuser / {v}",
            "Κωδικός διαχειριστή του portal e-banking (ίδιος σε UAT και prod!): {v}",
        ],
    ),
    (
        "door_keypad_code",
        lambda r: rs(r, DIG, r.choice([4, 5, 6])),
        [
            "Server room keypad code: {v}#",
            "Trezor előtér ajtókód ({branch}): {v}",
            "Κωδικός πόρτας για το δωμάτιο των servers: {v}",
        ],
    ),
]


# ----------------------------------------------------------------------------
# benign
# ----------------------------------------------------------------------------


def g_iban(r):
    return iban(r, "HU", 24) if r.random() < 0.5 else iban(r, "GR", 23)


def g_bic(r):
    return (
        rs(r, string.ascii_uppercase, 4)
        + r.choice(["HU", "GR"])
        + rs(r, string.ascii_uppercase + DIG, 2)
        + r.choice(["XXX", "", "BUD"])
    )


def g_masked_pan(r):
    return r.choice(
        [
            f"4{rs(r, DIG, 5)}******{rs(r, DIG, 4)}",
            f"5{rs(r, DIG, 3)} {rs(r, DIG, 2)}** **** {rs(r, DIG, 4)}",
            f"**** **** **** {rs(r, DIG, 4)}",
        ]
    )


def g_sha256(r):
    return rs(r, HEXL, 64)


def g_fp(r):
    return ":".join(rs(r, HEXU, 2) for _ in range(32))


def g_cert(r):
    return pem(r, "CERTIFICATE", "MIIDxTCCAq2gAwIBAgIU", 1200)


def g_ssh_pub(r):
    return f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rs(r, B64, 43)} {r.choice(['backup', 'sftp-giro', 'atm-mon'])}@cu-{r.choice(['ops01', 'jump02', 'batch01'])}"


def g_revoked(r):
    return r.choice(
        [
            "ghp_" + rs(r, B62, 36),
            f"SG.{rs(r, B64URL, 22)}.{rs(r, B64URL, 43)}",
            "glpat-" + rs(r, B64URL, 20),
            "sk_live_" + rs(r, B62, 24),
        ]
    )


BENIGN = [
    (
        "iban",
        g_iban,
        [
            "Member refund goes to {v} (confirmed with the member by phone)",
            "Visszautalás számlaszáma: {v}",
            "Ο λογαριασμός συμψηφισμού μας: {v}",
            "beneficiary_iban: {v}",
            "2026-10-03;{v};12500.00;HUF;tagdij-visszaterites",
        ],
    ),
    (
        "bic_code",
        g_bic,
        [
            "Our BIC for SEPA credit transfers is {v}",
            "Kedvezményezett bank BIC kódja: {v}",
            ":57A:{v}",
        ],
    ),
    (
        "masked_pan",
        g_masked_pan,
        [
            "Card {v} blocked at member request, ticket {ticket}",
            "Letiltott kártya: {v}",
            "2026-11-02T09:14:55Z AUTH DECLINED pan={v} rc=51 tid={tid}",
            "Κάρτα {v}: επανέκδοση λόγω φθοράς",
        ],
    ),
    (
        "test_card_number",
        lambda r: r.choice(
            ["4111111111111111", "5555555555554444", "4000056655665556", "378282246310005"]
        ),
        [
            "Use {v} in the UAT checkout, any future expiry date",
            "Teszt kártyaszám a sandboxhoz (a Stripe dokumentációból): {v}",
            "Κάρτα δοκιμής από την τεκμηρίωση του παρόχου: {v}",
        ],
    ),
    (
        "atm_terminal_id",
        lambda r: f"CU{rs(r, DIG, 6)}",
        [
            "ATM {v} out of service, cassette 3 jammed",
            "Terminál azonosító: {v}, fiók {branch}",
            "TID={v} status=SUPPLY_LOW cassette=2",
            "Το ATM με TID {v} θέλει αλλαγή χαρτιού στον εκτυπωτή",
        ],
    ),
    (
        "merchant_id",
        lambda r: rs(r, DIG, 15),
        [
            "Merchant ID for the branch POS in {branch}: {v}",
            "MID {v} — elfogadói szerződés megújítva",
            "Κωδικός εμπόρου (MID): {v}",
        ],
    ),
    (
        "atm_serial_number",
        lambda r: f"53-{rs(r, DIG, 8)}",
        [
            "Replaced the dispenser, ATM serial {v}",
            "ATM gyári szám: {v}",
            "Σειριακός αριθμός ATM: {v} (εγγύηση έως 2028)",
            "asset,serial,branch\nATM-02,{v},{branch}",
        ],
    ),
    (
        "hsm_serial_number",
        lambda r: r.choice([f"A{rs(r, DIG, 7)}", f"1{rs(r, DIG, 6)}"]),
        [
            "payShield 10K serial {v} went back to the vendor for RMA",
            "HSM sorozatszám: {v}",
            "Σειριακός του HSM στο DR site: {v}",
        ],
    ),
    (
        "key_check_value",
        lambda r: rs(r, HEXU, 6),
        [
            "KCV of the new ZMK: {v} (matches the scheme's letter)",
            "Kulcs ellenőrző érték (KCV): {v}",
            "Έλεγχος KCV μετά τη φόρτωση: {v} OK",
            "Key check (KA) returned {v} on both HSMs",
        ],
    ),
    (
        "dukpt_ksn",
        lambda r: "FFFF" + rs(r, HEXU, 11) + "E" + rs(r, DIG, 4),
        [
            "KSN {v} from the PIN pad in the log",
            "DUKPT KSN: {v}",
            "Ο KSN του pinpad: {v}",
        ],
    ),
    (
        "hsm_key_label",
        lambda r: (
            f"{r.choice(['ZPK', 'ZMK', 'PVK', 'CVK', 'BDK'])}_{r.choice(['GIRO', 'VISA', 'MC', 'DIAS'])}_{r.randint(2023, 2027)}_{r.randint(1, 9):02d}"
        ),
        [
            "Key label in the HSM: {v}",
            "Kulcs címke: {v}",
            "pkcs11-tool --list-objects shows label={v}",
        ],
    ),
    (
        "emv_aid",
        lambda r: r.choice(
            ["A0000000031010", "A0000000041010", "A0000000043060", "A0000000032010"]
        ),
        [
            "Terminal config: AID {v} enabled",
            "Támogatott AID: {v}",
            "Το AID {v} προστέθηκε στη λίστα του ATM",
        ],
    ),
    (
        "sha256_checksum",
        g_sha256,
        [
            "sha256sum cbs_patch_24.3.1.tar.gz -> {v}",
            "Ellenőrző összeg (SHA-256): {v}",
            "Το SHA-256 του αρχείου εκκαθάρισης: {v}",
            "checksum: sha256:{v}",
        ],
    ),
    (
        "git_commit_sha",
        lambda r: rs(r, HEXL, 40),
        [
            "Hotfix for the rounding bug is commit {v}",
            "Deploy: ibank-api@{v}",
            "Revert-eltem a {v} commitot, mert eltörte a kivonatot",
        ],
    ),
    (
        "request_id",
        uuid4,
        [
            "Correlation id {v} in the gateway log",
            "X-Request-ID: {v}",
            "A hibás tranzakció azonosítója: {v}",
            "Αναγνωριστικό αιτήματος: {v}",
        ],
    ),
    (
        "ssh_public_key",
        g_ssh_pub,
        [
            "authorized_keys line for the backup job: {v}",
            "Publikus kulcs a GIRO SFTP-hez (ezt kell elküldeni nekik): {v}",
            "Δημόσιο κλειδί για το SFTP: {v}",
        ],
    ),
    (
        "certificate_fingerprint",
        g_fp,
        [
            "ibank cert SHA-256 fingerprint: {v}",
            "Tanúsítvány ujjlenyomat: {v}",
            "Pinned fingerprint in the mobile app: {v}",
            "Αποτύπωμα πιστοποιητικού: {v}",
        ],
    ),
    (
        "pem_certificate",
        g_cert,
        [
            "Intermediate CA from the card scheme:\n{v}",
            "Az ügyféltanúsítvány (csak a publikus rész):\n{v}",
            "Πιστοποιητικό του server (δημόσιο):\n{v}",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_51" + rs(r, B62, 97),
        [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "Frontend uses {v} (publishable, fine in the bundle)",
            "Publishable key a tagdíj oldalon: {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + rs(r, B64URL, 38),
        [
            "reCAPTCHA site key on the login page: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "Site key του reCAPTCHA για τη φόρμα εγγραφής: {v}",
        ],
    ),
    (
        "aws_documented_example_key",
        lambda r: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "The README example uses {v}, that's the AWS docs sample, not ours",
            "Példa kulcs az AWS dokumentációból: {v}",
            "Στο tutorial υπάρχει το {v} — είναι το παράδειγμα της AWS",
        ],
    ),
    (
        "placeholder_password",
        None,
        [
            ("DB_PASSWORD=changeme", "changeme"),
            ("password: <your-password-here>", "<your-password-here>"),
            ("jelszó: <ide jön a jelszó>", "<ide jön a jelszó>"),
            ("κωδικός: ΒΑΛΕ_ΕΔΩ_ΤΟΝ_ΚΩΔΙΚΟ", "ΒΑΛΕ_ΕΔΩ_ΤΟΝ_ΚΩΔΙΚΟ"),
            ("SWIFT_OPERATOR_PASSWORD=xxxxxxxx  # fill in locally, never commit", "xxxxxxxx"),
        ],
    ),
    (
        "env_var_reference",
        None,
        [
            ("password: ${CORE_DB_PASSWORD}", "${CORE_DB_PASSWORD}"),
            ("secret_key: {{ env('STRIPE_SECRET_KEY') }}", "{{ env('STRIPE_SECRET_KEY') }}"),
            (
                "ldapsearch -D 'CN=svc_ibank,OU=Service,DC=cu,DC=local' -w \"$LDAP_BIND_PASSWORD\"",
                "$LDAP_BIND_PASSWORD",
            ),
            ("const key = process.env.SENDGRID_API_KEY;", "process.env.SENDGRID_API_KEY"),
        ],
    ),
    (
        "vault_path",
        None,
        [
            (
                "HSM partition password lives at secret/data/cards/hsm/partition-pay-prd",
                "secret/data/cards/hsm/partition-pay-prd",
            ),
            ("vault kv get kv/ibank/prod/jwt", "kv/ibank/prod/jwt"),
            (
                "A riasztókódok a Vaultban vannak: kv/branches/alarm/debrecen",
                "kv/branches/alarm/debrecen",
            ),
            (
                "Το συνθηματικό βρίσκεται στο kv/swift/alliance/operators",
                "kv/swift/alliance/operators",
            ),
        ],
    ),
    (
        "masked_secret",
        None,
        [
            (
                "STRIPE_SECRET_KEY=sk_live_****************************4f2K",
                "sk_live_****************************4f2K",
            ),
            ("core db password: ******** (ask the DBA on call)", "********"),
            ("Az API kulcs: cpk_live_••••••••a91c", "cpk_live_••••••••a91c"),
            ("SLACK_BOT_TOKEN=xoxb-****-****-[REDACTED]", "xoxb-****-****-[REDACTED]"),
        ],
    ),
    (
        "revoked_token",
        g_revoked,
        [
            "The token {v} was revoked on {date} after it leaked in a screenshot",
            "Visszavont kulcs (már nem él, csak a jegyzőkönyvhöz): {v}",
            "Ανακλήθηκε το token {v} — μην το ξαναχρησιμοποιήσετε",
            "REVOKED {date}: {v} (rotated, new one in Vault)",
        ],
    ),
    (
        "ticket_reference",
        None,
        [
            ("See INC0041237 for the ATM dispenser fault", "INC0041237"),
            ("Change CHG0009876 approved for Saturday's core upgrade", "CHG0009876"),
            ("Jira: CBS-1423 — kamatszámítás kerekítési hiba", "CBS-1423"),
            ("Αίτημα #58213 στο helpdesk για τον σαρωτή", "#58213"),
        ],
    ),
    (
        "build_version",
        None,
        [
            ("ibank-web 4.12.3+build.887 deployed to prod", "4.12.3+build.887"),
            ("Core release R24.2 HF7 telepítve", "R24.2 HF7"),
            ("ATM image: APTRA Edge 6.4.1, XFS 3.30", "6.4.1"),
            ("Έκδοση εφαρμογής κινητού: 2.8.0-rc.2", "2.8.0-rc.2"),
        ],
    ),
    (
        "swift_uetr",
        uuid4,
        [
            "UETR {v} still pending at the intermediary bank",
            "A nemzetközi utalás UETR-je: {v}",
            "{3:{121:{v}}}",
        ],
    ),
    (
        "sepa_end_to_end_id",
        lambda r: f"E2E{rs(r, DIG, 8)}{rs(r, string.ascii_uppercase, 4)}{rs(r, DIG, 6)}",
        [
            "EndToEndId: {v}",
            "<EndToEndId>{v}</EndToEndId>",
            "Κωδικός αναφοράς E2E: {v}",
        ],
    ),
    (
        "retrieval_reference_number",
        lambda r: rs(r, DIG, 12),
        [
            "RRN {v} disputed by the member",
            "DE37={v} DE11=004512 DE39=00",
            "Visszatérítés a(z) {v} RRN-re",
            "Αριθμός αναφοράς συναλλαγής (RRN): {v}",
        ],
    ),
    (
        "card_bin",
        lambda r: r.choice(["4", "5"]) + rs(r, DIG, 5),
        [
            "Our debit BIN is {v}",
            "Új BIN tartomány az előrefizetett kártyákhoz: {v}",
            "Νέο BIN για τις προπληρωμένες: {v}",
        ],
    ),
    (
        "member_number",
        lambda r: rs(r, DIG, 7),
        [
            "Member #{v} requested a replacement card",
            "Tagszám: {v}",
            "Αριθμός μέλους {v}",
            "member_id={v} action=address_change",
        ],
    ),
    (
        "loan_account_number",
        lambda r: f"L-{r.randint(2015, 2026)}-{rs(r, DIG, 6)}",
        [
            "Loan {v} moved to collections",
            "Hitelszerződés száma: {v}",
            "Δάνειο αρ. {v} — ρύθμιση οφειλής",
        ],
    ),
    (
        "alarm_monitoring_account",
        lambda r: rs(r, DIG, 4),
        [
            "Monitoring centre account number for {branch}: {v} (give this when calling the ARC)",
            "Távfelügyeleti ügyfélszám ({branch}): {v}",
            "Αριθμός πελάτη στο κέντρο λήψης σημάτων: {v}",
        ],
    ),
    (
        "alarm_event_code",
        lambda r: r.choice(["E130", "E401", "R401", "E121", "E301"]),
        [
            "Contact ID event {v} zone 007 at 02:14, guard dispatched",
            "Contact ID esemény: {v}",
            "Κωδικός συμβάντος {v} στο log του πίνακα",
        ],
    ),
    (
        "internal_host",
        None,
        [
            ("core-db-prd-01.cu.local (10.20.4.11) is the primary", "core-db-prd-01.cu.local"),
            ("Az ATM monitor szerver: 10.30.8.25", "10.30.8.25"),
            ("Ο jump host είναι το jump02.cu.local", "jump02.cu.local"),
            ("HSM management interface: 10.99.1.20:9004", "10.99.1.20:9004"),
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(rs(r, HEXU, 2) for _ in range(6)),
        [
            "ATM NIC MAC {v} whitelisted on the branch switch",
            "A szkenner MAC címe: {v}",
            "MAC του πίνακα συναγερμού: {v}",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + rs(r, HEXL, 64),
        [
            "registry.cu.local/ibank/api@{v}",
            "Image digest a release jegyzetben: {v}",
            "Το digest της εικόνας: {v}",
        ],
    ),
    (
        "password_policy_text",
        None,
        [
            (
                "Policy: service account passwords are minimum 20 characters and live only in Vault.",
                "minimum 20 characters",
            ),
            (
                "A riasztókódokat dolgozó távozásakor azonnal cserélni kell, és soha nem írjuk jegybe.",
                "soha nem írjuk jegybe",
            ),
            ("Οι κωδικοί των ATM αλλάζουν κάθε 90 ημέρες.", "κάθε 90 ημέρες"),
            (
                "Dual control: no single person holds more than one LMK component.",
                "no single person holds more than one LMK component",
            ),
        ],
    ),
    (
        "jwks_kid",
        lambda r: f"ibank-{r.randint(2024, 2027)}-{rs(r, HEXL, 8)}",
        [
            "JWKS kid currently in use: {v}",
            "Az aktív aláíró kulcs kid-je: {v}",
            '{"alg": "RS256", "kid": "{v}"}',
        ],
    ),
    (
        "oauth_client_id",
        None,
        [
            ("OAuth client id: tpp-gw-prod", "tpp-gw-prod"),
            ("OAUTH_CLIENT_ID=ibank-web", "ibank-web"),
            ("Mobil app client_id: cu-mobile-android", "cu-mobile-android"),
            ("Client ID της εφαρμογής Entra: {appid}", "{appid}"),
        ],
    ),
    (
        "azure_tenant_id",
        uuid4,
        [
            "Entra tenant id: {v}",
            "AZURE_TENANT_ID={v}",
            "Tenant azonosító: {v}",
        ],
    ),
    (
        "aws_arn",
        lambda r: (
            f"arn:aws:iam::{rs(r, DIG, 12)}:role/{r.choice(['scan-backup', 'ibank-deployer', 'atm-journal-reader'])}"
        ),
        [
            "Assume role {v} for the nightly backup",
            "role_arn = {v}",
            "Az IAM szerep: {v}",
            "Ρόλος IAM: {v}",
        ],
    ),
    (
        "slack_channel_id",
        lambda r: "C0" + rs(r, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 9),
        [
            "Post EOD summaries to channel {v}",
            "#atm-fleet csatorna ID: {v}",
            "Κανάλι Slack για τα incidents: {v}",
        ],
    ),
    (
        "ci_run_url",
        lambda r: f"https://github.com/cu-it/ibank-api/actions/runs/{rs(r, DIG, 10)}",
        [
            "Failed build: {v}",
            "A törött pipeline: {v}",
            "Δες το run: {v}",
        ],
    ),
    (
        "mcc_code",
        lambda r: r.choice(["6011", "6010", "5411", "4829"]),
        [
            "ATM withdrawals come in with MCC {v}",
            "MCC kód: {v}",
            "Κωδικός MCC της συναλλαγής: {v}",
        ],
    ),
    (
        "tax_number",
        None,
        [
            ("Adószám: 18765432-2-09", "18765432-2-09"),
            ("ΑΦΜ συνεταιρισμού: 099876543", "099876543"),
            ("Vendor VAT id on the invoice: EL099876543", "EL099876543"),
        ],
    ),
    (
        "phone_number",
        None,
        [
            ("Card blocking hotline: +36 1 555 0199", "+36 1 555 0199"),
            ("Riasztó távfelügyelet ügyelet: +36 52 555 014", "+36 52 555 014"),
            ("Τεχνική υποστήριξη ATM: +30 210 555 0142", "+30 210 555 0142"),
        ],
    ),
    (
        "pgp_fingerprint",
        lambda r: " ".join(rs(r, HEXU, 4) for _ in range(10)),
        [
            "PGP key fingerprint for the clearing files: {v}",
            "A GIRO PGP kulcs ujjlenyomata: {v}",
            "Αποτύπωμα του κλειδιού PGP της ΔΙΑΣ: {v}",
        ],
    ),
    (
        "scan_batch_id",
        lambda r: f"BATCH-{r.randint(2025, 2026)}{rs(r, DIG, 4)}-{rs(r, DIG, 5)}",
        [
            "Kofax batch {v} stuck in validation",
            "Szkennelési köteg: {v}",
            "Παρτίδα σάρωσης {v} — λείπουν σελίδες",
        ],
    ),
    (
        "npm_integrity_hash",
        lambda r: "sha512-" + rs(r, B64, 86) + "==",
        [
            '"integrity": "{v}"',
            "package-lock integrity changed to {v}",
            "Integritás hash: {v}",
        ],
    ),
    (
        "iso8583_mti",
        None,
        [
            ("MTI 0200 with processing code 011000 = cash withdrawal", "011000"),
            ("0420 reversal küldve, MTI 0420", "0420"),
            ("Μήνυμα 0110 με DE39=05", "0110"),
        ],
    ),
    (
        "documented_test_key",
        None,
        [
            (
                "The Stripe docs sample key sk_test_4eC39HqLyjWDarjtT1zdp7dc is in the tutorial, not a real one",
                "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            ),
            (
                "Stripe dokumentáció példa publishable key: pk_test_TYooMQauvdEDq54NiTphI7jx",
                "pk_test_TYooMQauvdEDq54NiTphI7jx",
            ),
        ],
    ),
    (
        "atm_journal_sequence",
        lambda r: rs(r, DIG, 4),
        [
            "EJ: TRN SEQ {v} CASH WITHDRAWAL 20000 HUF",
            "Napló sorszám: {v}",
            "Αριθμός συναλλαγής στο ημερολόγιο: {v}",
        ],
    ),
    (
        "bitlocker_key_id",
        lambda r: uuid4(r).upper(),
        [
            "BitLocker key ID {v} (the key itself is in Entra)",
            "Helyreállítási kulcs azonosító: {v}",
            "Αναγνωριστικό κλειδιού BitLocker: {v}",
        ],
    ),
    (
        "twilio_account_sid",
        lambda r: "AC" + rs(r, HEXL, 32),
        [
            "TWILIO_ACCOUNT_SID={v}",
            "Twilio fiók SID: {v}",
            "Account SID του Twilio: {v}",
        ],
    ),
    (
        "jwt_header",
        lambda r: r.choice(
            [
                "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9",
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
                "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9",
            ]
        ),
        [
            "Decoded header {v} is just alg and typ, no claims",
            "A token fejléce: {v}",
            "Η κεφαλίδα του JWT: {v}",
        ],
    ),
]


def _fillers(r):
    return {
        "name": r.choice(NAMES),
        "branch": r.choice(BRANCHES),
        "date": f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}",
        "ticket": f"INC{rs(r, DIG, 7)}",
        "tid": f"CU{rs(r, DIG, 6)}",
        "akid": "AKIA" + rs(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
        "appid": uuid4(r),
        "tenant": uuid4(r),
        "acsid": "AC" + rs(r, HEXL, 32),
        "host": f"BR{r.randint(1, 40):02d}-TELLER{r.randint(1, 6):02d}",
        "user": r.choice(["kovacs.eva", "nagy.peter", "gnikolaou", "mpappa"]),
        "h40": rs(r, HEXL, 40),
    }


_SLOT = re.compile(r"\{([a-z0-9_]+)\}")


def _fill(tpl, d):
    return _SLOT.sub(lambda m: d.get(m.group(1), m.group(0)), tpl)


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates:
                d = _fillers(r)
                if isinstance(t, tuple):
                    tpl, value = t
                    value = _fill(value, d) if value.startswith("{appid") else value
                    text = _fill(tpl, d)
                else:
                    value = gen(r)
                    d["v"] = value
                    text = _fill(t, d)
                assert value in text, (kind, text)
                rows.append({"label": label, "kind": kind, "text": text, "value": value})
    return rows


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

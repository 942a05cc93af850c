# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 98: data centre colocation provider (DCIM, power, access, cross-connects).

Brief: a labelled corpus of notes, handovers, chat lines, commands, config, YAML, JSON,
URLs, tables and log lines that the staff and AI coding agents of a colocation data centre
would keep as memory: building management and DCIM, PDUs and UPS units, cage and biometric
access, cross-connect orders, the customer portal and remote hands tickets, plus the usual
developer stack. Notes are in English, Ukrainian and Hebrew. Rows labelled "secret" hold a
live credential; rows labelled "benign" hold a look-alike a careful reader would store.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_98.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat, gitlab_pat,
slack_bot_token, slack_webhook_url, teams_webhook_url, stripe_secret_key,
stripe_webhook_secret, twilio_auth_token, sendgrid_api_key, mailgun_api_key, telegram_bot_token,
postgres_url, mssql_connection_string, redis_url, mongodb_uri, rsa_private_key,
openssh_private_key, ec_private_key, jwt_token, azure_storage_key, gcp_api_key, npm_token,
docker_hub_pat, datadog_api_key, pagerduty_routing_key, openai_api_key,
anthropic_api_key, vault_token, grafana_sa_token, netbox_api_token, dcim_api_token,
atlassian_api_token, cloudflare_api_token, liqpay_private_key, snmp_community,
snmpv3_passphrase, pdu_admin_password, ups_admin_password, bms_password, bmc_password,
cage_door_pin, alarm_panel_code, key_safe_code, biometric_admin_password, wifi_psk, ipsec_psk,
radius_secret, tacacs_key, bgp_md5_password, recovery_codes, totp_seed, ldap_bind_password,
ansible_vault_password, portal_client_secret, customer_verbal_password, django_secret_key.

Kinds, benign: cross_connect_order, remote_hands_ticket, cabinet_location, pdu_serial,
ups_serial, power_circuit_id, loa_cfa_reference, patch_panel_port, mac_address, ip_subnet,
asset_tag, firmware_sha256, git_commit_sha, ssh_public_key, x509_certificate,
ssh_host_fingerprint, stripe_publishable_key, recaptcha_site_key, placeholder,
env_var_reference, vault_path, masked_secret, redacted_value, documented_example_key,
revoked_token, customer_uuid, aws_account_id, aws_arn, firmware_version, docker_image_digest,
invoice_number, purchase_order, stripe_customer_id, twilio_account_sid, slack_channel_id,
oauth_client_id, snmp_oid, bgp_asn, vlan_id, console_port, noc_phone, password_policy,
bcrypt_hash, runbook_url, grafana_dashboard_url, iban, vat_number, vendor_case_number,
bacnet_device_instance, modbus_register, sensor_id, sfp_part_number, pgp_fingerprint,
trace_id, maintenance_window_id, k8s_secret_ref, modem_imei.
"""

import base64
import json
import random
import string
import sys
import uuid

SEED = 9898

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEXL = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"


def rs(r, alphabet, n):
    return "".join(r.choice(alphabet) for _ in range(n))


def human_pw(r):
    words = [
        "Raritan",
        "Kyiv",
        "Dnipro",
        "Haifa",
        "Galil",
        "Colo",
        "Stoika",
        "Kalyna",
        "Eaton",
        "Vertiv",
        "Chiller",
        "Shalom",
        "Lviv",
        "Yarok",
        "Sonyash",
        "Tavor",
        "Pobeda",
        "Barvinok",
        "Hermon",
        "Cage",
        "Rack",
        "Niagara",
    ]
    seps = ["!", "#", "@", "$", "_", "-", "*", "."]
    p = r.randint(0, 4)
    w1, w2 = r.choice(words), r.choice(words)
    if p == 0:
        return f"{w1}{r.randint(2015, 2026)}{r.choice(seps)}"
    if p == 1:
        return f"{w1}{r.choice(seps)}{w2.lower()}{r.randint(10, 99)}"
    if p == 2:
        return f"{w1[:3].lower()}{r.choice(seps)}{w2}{r.randint(100, 999)}{r.choice(seps)}"
    if p == 3:
        return f"{r.choice(seps)}{w1}{r.randint(1, 9)}{w2}{r.randint(1, 9)}"
    return f"{w1}{r.randint(1, 99)}{r.choice(seps)}{rs(r, UP + DG, 3)}"


def passphrase(r):
    words = [
        "chervona",
        "kalyna",
        "zelenyi",
        "kit",
        "blue",
        "heron",
        "orange",
        "chiller",
        "quiet",
        "raised",
        "floor",
        "tavor",
        "hermon",
        "kashtan",
        "dovha",
        "nich",
        "amber",
        "copper",
        "fibre",
        "glacier",
        "lantern",
        "mango",
    ]
    ws = r.sample(words, 4)
    return r.choice(["-", " ", "."]).join(ws) + str(r.randint(1, 99))


def pem_body(r, first, nlines):
    lines = [first + rs(r, B64, 64 - len(first))]
    for _ in range(nlines - 1):
        lines.append(rs(r, B64, 64))
    lines.append(rs(r, B64, r.randint(20, 60)) + "==")
    return "\n".join(lines)


def b64u(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# --------------------------------------------------------------------------- generators


def g_aws_secret(r):
    return rs(r, AN + "/+", 40)


def g_ghp(r):
    return "ghp_" + rs(r, AN, 36)


def g_ghfg(r):
    return "github_pat_11" + rs(r, UP + DG, 20) + "_" + rs(r, AN, 59)


def g_glpat(r):
    return "glpat-" + rs(r, AN + "-_", 20)


def g_xoxb(r):
    return f"xoxb-{rs(r, DG, 12)}-{rs(r, DG, 13)}-{rs(r, AN, 24)}"


def g_slack_hook(r):
    return f"https://hooks.slack.com/services/T0{rs(r, UP + DG, 8)}/B0{rs(r, UP + DG, 9)}/{rs(r, AN, 24)}"


def g_teams(r):
    u = lambda: str(uuid.UUID(int=r.getrandbits(128), version=4))  # noqa: E731
    return (
        f"https://colonet.webhook.office.com/webhookb2/{u()}@{u()}/IncomingWebhook/"
        f"{rs(r, HEXL, 32)}/{u()}/V2{rs(r, B64U, 43)}"
    )


def g_sk_live(r):
    return "sk_live_51" + rs(r, AN, 97)


def g_whsec(r):
    return "whsec_" + rs(r, AN, 32)


def g_hex32(r):
    return rs(r, HEXL, 32)


def g_sendgrid(r):
    return "SG." + rs(r, B64U, 22) + "." + rs(r, B64U, 43)


def g_mailgun(r):
    return rs(r, HEXL, 32) + "-" + rs(r, HEXL, 8) + "-" + rs(r, HEXL, 8)


def g_telegram(r):
    return f"{r.randint(5000000000, 7999999999)}:AA{rs(r, B64U, 33)}"


def g_pgurl(r):
    host = r.choice(
        [
            "dcim-db.int.colonet.ua",
            "10.40.2.15",
            "pg-portal.prod.internal",
            "bms-hist.tlv1.colonet.co.il",
        ]
    )
    db = r.choice(["dcim", "portal", "xconnect", "rh_tickets"])
    user = r.choice(["dcim_app", "portal_rw", "xc_svc", "grafana_ro"])
    return f"postgresql://{user}:{human_pw(r)}@{host}:5432/{db}"


def g_mssql(r):
    return (
        f"Server=sql-access01.colonet.local,1433;Database=ACCESSCONTROL;User Id=sa;"
        f"Password={human_pw(r)};TrustServerCertificate=True"
    )


def g_redis(r):
    return f"redis://:{rs(r, AN, 28)}@redis-portal.int.colonet.ua:6379/2"


def g_mongo(r):
    return f"mongodb+srv://telemetry:{rs(r, AN, 20)}@cluster0.x7kqp.mongodb.net/pdu_metrics?retryWrites=true&w=majority"


def g_rsa(r):
    return (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + pem_body(r, "MIIEpAIBAAKCAQEA", 24)
        + "\n-----END RSA PRIVATE KEY-----"
    )


def g_openssh(r):
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + pem_body(r, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 5)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def g_ec(r):
    return (
        "-----BEGIN EC PRIVATE KEY-----\n"
        + pem_body(r, "MHcCAQEEI", 2)
        + "\n-----END EC PRIVATE KEY-----"
    )


def g_jwt(r):
    h = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64u(
        json.dumps(
            {
                "sub": f"cust-{r.randint(10000, 99999)}",
                "role": "portal_admin",
                "iat": 1796000000 + r.randint(0, 9999999),
                "exp": 1799000000 + r.randint(0, 9999999),
            },
            separators=(",", ":"),
        ).encode()
    )
    return f"{h}.{p}.{rs(r, B64U, 43)}"


def g_azure(r):
    return rs(r, B64, 86) + "=="


def g_gcp(r):
    return "AIza" + rs(r, AN + "-_", 35)


def g_npm(r):
    return "npm_" + rs(r, AN, 36)


def g_dckr(r):
    return "dckr_pat_" + rs(r, B64U, 27)


def g_openai(r):
    return "sk-proj-" + rs(r, B64U, 58) + "T3BlbkFJ" + rs(r, B64U, 58)


def g_anthropic(r):
    return "sk-ant-api03-" + rs(r, B64U, 93) + "AA"


def g_hvs(r):
    return "hvs." + rs(r, AN, 24)


def g_glsa(r):
    return "glsa_" + rs(r, AN, 32) + "_" + rs(r, HEXL, 8)


def g_hex40(r):
    return rs(r, HEXL, 40)


def g_dcim(r):
    return rs(r, AN, 48)


def g_atlassian(r):
    return "ATATT3xFfGF0" + rs(r, B64U, 170) + "=" + rs(r, HEXL.upper(), 8)


def g_cf(r):
    return rs(r, AN + "-_", 40)


def g_liqpay(r):
    return rs(r, AN, 40)


def g_community(r):
    return (
        r.choice(["pdu", "dc", "colo", "rw", "mgmt"])
        + r.choice(["-", "_", ""])
        + rs(r, AN, r.randint(10, 14))
    )


def g_snmpv3(r):
    return r.choice([passphrase, human_pw])(r) + rs(r, DG, 2)


def g_pin(r):
    return rs(r, DG, r.choice([4, 6, 6, 8]))


def g_code4(r):
    return rs(r, DG, 4)


def g_rand_secret(r):
    return rs(r, AN + "!#%+=", r.randint(18, 32))


def g_psk(r):
    return rs(r, AN, 32)


def g_bgp(r):
    return r.choice([human_pw(r), rs(r, AN, 16)])


def g_recovery(r):
    sep = r.choice(["  ", "\n", ", "])
    return sep.join(f"{rs(r, LO + DG, 5)}-{rs(r, LO + DG, 5)}" for _ in range(r.choice([6, 8, 10])))


def g_totp(r):
    return rs(r, B32, r.choice([16, 32]))


def g_client_secret(r):
    return rs(r, B64U, 48)


def g_verbal(r):
    return (
        r.choice(["-", " "]).join(
            r.sample(
                [
                    "blue",
                    "heron",
                    "copper",
                    "kashtan",
                    "lantern",
                    "mango",
                    "tavor",
                    "sunflower",
                    "glacier",
                    "otter",
                ],
                2,
            )
        )
        + f" {r.randint(10, 99)}"
    )


def g_django(r):
    return rs(r, LO + DG + "!@#$%^&*(-_=+)", 50)


def g_human(r):
    return human_pw(r)


def g_pass(r):
    return passphrase(r)


SECRETS = [
    (
        "aws_secret_access_key",
        g_aws_secret,
        [
            "aws_secret_access_key = {v}",
            "Backups of DCIM db go to s3://colonet-dcim-backups; IAM user dcim-backup, access key AKIA{akia}, secret {v}",
            "export AWS_SECRET_ACCESS_KEY='{v}'  # portal-deploy, eu-central-1",
        ],
    ),
    (
        "github_pat",
        g_ghp,
        [
            "git clone https://{v}@github.com/colonet/dcim-sync.git",
            "handover: the CI bot for pdu-exporter uses PAT {v} (scope repo, expires in March)",
            "GITHUB_TOKEN={v}",
        ],
    ),
    (
        "github_fine_grained_pat",
        g_ghfg,
        [
            "fine-grained token for colonet/portal-frontend (contents:read): {v}",
            'gh auth login --with-token <<< "{v}"',
            "Токен GitHub для агента, який оновлює netbox-скрипти: {v}",
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "GITLAB_PAT={v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.colonet.ua/api/v4/projects/42/pipelines',
            "the runner for bms-integration authenticates with {v} — rotate when Oleksii leaves",
        ],
    ),
    (
        "slack_bot_token",
        g_xoxb,
        [
            "SLACK_BOT_TOKEN={v}",
            "the #noc-alerts bot (PowerWatch) posts with {v}",
            'slack_client = WebClient(token="{v}")',
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "UPS on-battery alerts go to {v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"PDU A12 breaker trip\"}' {v}",
            "alertmanager:\n  receivers:\n    - name: noc\n      slack_configs:\n        - api_url: {v}",
        ],
    ),
    (
        "teams_webhook_url",
        g_teams,
        [
            "Teams channel 'Facilities – Kyiv 2' incoming webhook: {v}",
            'TEAMS_WEBHOOK_URL="{v}"',
            "וובהוק של Teams לצוות המתקנים: {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_sk_live,
        [
            "STRIPE_SECRET_KEY={v}",
            'customer portal billing: stripe.api_key = "{v}"',
            "Живий ключ Stripe для порталу клієнтів: {v}",
        ],
    ),
    (
        "stripe_webhook_secret",
        g_whsec,
        [
            "STRIPE_WEBHOOK_SECRET={v}",
            "endpoint https://portal.colonet.ua/hooks/stripe signing secret is {v}",
            "סוד ה-webhook של Stripe (פרודקשן): {v}",
        ],
    ),
    (
        "twilio_auth_token",
        g_hex32,
        [
            "TWILIO_AUTH_TOKEN={v}",
            "SMS for badge enrolment codes: account AC{acsid}, auth token {v}",
            'client = Client("AC{acsid}", "{v}")',
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SENDGRID_API_KEY={v}",
            "portal password-reset mails go out via SendGrid, key {v}",
            "מפתח SendGrid לשליחת דוחות חודשיים ללקוחות: {v}",
        ],
    ),
    (
        "mailgun_api_key",
        g_mailgun,
        [
            "MAILGUN_API_KEY={v}",
            "curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.colonet.ua/messages",
            "remote hands completion mails: mailgun key {v} (domain mg.colonet.ua)",
        ],
    ),
    (
        "telegram_bot_token",
        g_telegram,
        [
            "TELEGRAM_BOT_TOKEN={v}",
            "Бот чергової зміни @colonet_duty_bot: {v}",
            "https://api.telegram.org/bot{v}/sendMessage?chat_id=-1001234&text=UPS-B%20on%20battery",
        ],
    ),
    (
        "postgres_url",
        g_pgurl,
        [
            "DATABASE_URL={v}",
            "psql \"{v}\" -c 'select count(*) from cabinets'",
            "sqlalchemy.url = {v}",
        ],
    ),
    (
        "mssql_connection_string",
        g_mssql,
        [
            "OnGuard DB: {v}",
            '<add name="AccessControl" connectionString="{v}" />',
            "מחרוזת חיבור למסד של מערכת הכניסה: {v}",
        ],
    ),
    (
        "redis_url",
        g_redis,
        [
            "REDIS_URL={v}",
            "portal session cache: {v}",
            "Redis для сесій порталу: {v}",
        ],
    ),
    (
        "mongodb_uri",
        g_mongo,
        [
            "MONGO_URI={v}",
            "pdu-exporter writes per-outlet readings to {v}",
            '  telemetry:\n    uri: "{v}"',
        ],
    ),
    (
        "rsa_private_key",
        g_rsa,
        [
            "portal TLS key (portal.colonet.ua):\n{v}",
            "Приватний ключ для SFTP вивантаження рахунків:\n{v}",
            "key for the Eaton NMC HTTPS cert, paste into the upload form:\n{v}",
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "deploy key for dcim-sync (jump host bastion-kbp1):\n{v}",
            "מפתח SSH של משתמש ansible על שרתי הניטור:\n{v}",
            "cat > ~/.ssh/id_ed25519 <<'EOF'\n{v}\nEOF",
        ],
    ),
    (
        "ec_private_key",
        g_ec,
        [
            "webhook signing key for cross-connect order events:\n{v}",
            "Ключ ECDSA для підпису LOA/CFA PDF:\n{v}",
        ],
    ),
    (
        "jwt_token",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "portal admin session I used for the API test yesterday (still valid till Friday): {v}",
            "curl -H 'Authorization: Bearer {v}' https://portal.colonet.ua/api/v2/cross-connects",
        ],
    ),
    (
        "azure_storage_key",
        g_azure,
        [
            "DefaultEndpointsProtocol=https;AccountName=colonetcctv;AccountKey={v};EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY={v}",
            "ключ сховища для архіву CCTV: {v}",
        ],
    ),
    (
        "gcp_api_key",
        g_gcp,
        [
            "GOOGLE_MAPS_SERVER_KEY={v}  # geocoding for site directions, server side, unrestricted",
            "Maps server key for the visitor directions lambda: {v}",
            "מפתח Google לשרת (לא מוגבל): {v}",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "publish token for @colonet/portal-ui: {v}",
        ],
    ),
    (
        "docker_hub_pat",
        g_dckr,
        [
            "docker login -u colonetci -p {v}",
            "DOCKERHUB_TOKEN={v}",
            "טוקן Docker Hub של ה-CI: {v}",
        ],
    ),
    (
        "datadog_api_key",
        g_hex32,
        [
            "DD_API_KEY={v}",
            "datadog agent on the BMS gateway: api_key: {v}",
            "Datadog ключ для моніторингу PUE: {v}",
        ],
    ),
    (
        "pagerduty_routing_key",
        g_hex32,
        [
            "PagerDuty Events v2 routing key for 'Critical Power': {v}",
            "pagerduty_configs:\n  - routing_key: {v}",
            "ключ маршрутизації PagerDuty для охолодження: {v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "the ticket summariser for remote hands uses {v}",
            "מפתח OpenAI לבוט של התמיכה: {v}",
        ],
    ),
    (
        "anthropic_api_key",
        g_anthropic,
        [
            "ANTHROPIC_API_KEY={v}",
            "agent memory: use key {v} for the runbook-drafting agent",
            "Ключ Anthropic для агента, що розбирає заявки remote hands: {v}",
        ],
    ),
    (
        "vault_token",
        g_hvs,
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
            "root token from the unseal ceremony: {v}",
        ],
    ),
    (
        "grafana_sa_token",
        g_glsa,
        [
            "GRAFANA_TOKEN={v}",
            'curl -H "Authorization: Bearer {v}" https://grafana.colonet.ua/api/dashboards/uid/pue-kbp1',
            "токен сервісного акаунта Grafana (power-panels): {v}",
        ],
    ),
    (
        "netbox_api_token",
        g_hex40,
        [
            "NETBOX_TOKEN={v}",
            "curl -H 'Authorization: Token {v}' https://netbox.colonet.ua/api/dcim/cables/?site=kbp1",
            "pynetbox.api('https://netbox.colonet.ua', token='{v}')",
        ],
    ),
    (
        "dcim_api_token",
        g_dcim,
        [
            "dcTrack REST token for the cabinet sync job: {v}",
            "NLYTE_API_TOKEN={v}",
            "Токен API dcTrack (права admin): {v}",
        ],
    ),
    (
        "atlassian_api_token",
        g_atlassian,
        [
            "JIRA_API_TOKEN={v}",
            "remote hands service desk automation, jira user rh-bot@colonet.ua token {v}",
            "טוקן Atlassian לסנכרון כרטיסי remote hands: {v}",
        ],
    ),
    (
        "cloudflare_api_token",
        g_cf,
        [
            "CLOUDFLARE_API_TOKEN={v}",
            "cf token (Zone:DNS:Edit for colonet.ua): {v}",
            "Токен Cloudflare для DNS порталу: {v}",
        ],
    ),
    (
        "liqpay_private_key",
        g_liqpay,
        [
            "LIQPAY_PRIVATE_KEY={v}",
            "LiqPay для оплат гривнею: public_key i{liqpub}, private_key {v}",
            "payments:\n  liqpay:\n    public_key: i{liqpub}\n    private_key: {v}",
        ],
    ),
    (
        "snmp_community",
        g_community,
        [
            "PDUs in hall B: SNMP v2c write community {v}",
            "snmpset -v2c -c {v} 10.40.12.31 .1.3.6.1.4.1.13742.6.4.1.2.1.2.1.7 i 0",
            "Спільнота SNMP (запис) для всіх Raritan у залі 2: {v}",
            "קהילת SNMP לכתיבה על ה-ATS: {v}",
        ],
    ),
    (
        "snmpv3_passphrase",
        g_snmpv3,
        [
            "snmpv3 user nocmon, SHA auth pass: {v}",
            "snmpwalk -v3 -l authPriv -u nocmon -a SHA -A '{v}' -x AES -X '{v2}' 10.40.12.5",
            "SNMPv3 пароль шифрування (AES) для UPS: {v}",
        ],
    ),
    (
        "pdu_admin_password",
        g_human,
        [
            "Raritan PX3 web UI: admin / {v}",
            "new password on all ServerTech PDUs in cage 14 after the audit: {v}",
            "Пароль адміністратора PDU у стійці A07: {v}",
            "סיסמת admin ל-PDU בכלוב של הלקוח: {v}",
            "ssh admin@pdu-b12.kbp1   pw {v}",
        ],
    ),
    (
        "ups_admin_password",
        g_human,
        [
            "Eaton 93PM NMC login: admin / {v}",
            "APC Symmetra web card: apc / {v} (changed from default)",
            "Пароль до мережевої карти ДБЖ-2: {v}",
            "סיסמה לכרטיס הרשת של ה-UPS באולם 3: {v}",
        ],
    ),
    (
        "bms_password",
        g_human,
        [
            "Niagara station (JACE) admin password: {v}",
            "EcoStruxure BMS operator login: facilities / {v}",
            "Пароль до BMS (чилери, CRAC): {v}",
            "הסיסמה של מערכת ה-BMS למיזוג: {v}",
        ],
    ),
    (
        "bmc_password",
        g_human,
        [
            "iDRAC on the DCIM server: root / {v}",
            "ipmitool -I lanplus -H 10.40.9.21 -U ADMIN -P '{v}' chassis power cycle",
            "iLO пароль для сервера журналу доступу: {v}",
            "סיסמת iDRAC לשרת ה-CCTV: {v}",
        ],
    ),
    (
        "cage_door_pin",
        g_pin,
        [
            "cage C14 keypad PIN is {v}",
            "Код на дверях клітки 22 (клієнт Datagroup): {v}",
            "הקוד לדלת של הכלוב 9: {v}",
            "handover: temporary door code for the contractor in suite 3, {v}#, expires Sunday",
        ],
    ),
    (
        "alarm_panel_code",
        g_code4,
        [
            "intruder alarm disarm code for the loading bay: {v}",
            "Код зняття з охорони (панель Ajax, склад): {v}",
            "קוד נטרול האזעקה בחדר הגנרטורים: {v}",
        ],
    ),
    (
        "key_safe_code",
        g_code4,
        [
            "key safe by the fire panel: {v}",
            "Код сейфа з ключами від стійок: {v}",
            "the key cabinet in the security room opens with {v}",
        ],
    ),
    (
        "biometric_admin_password",
        g_human,
        [
            "BioStar 2 server admin: {v}",
            "Suprema BioStation enrolment console password {v}",
            "Пароль адміністратора біометрії (BioStar): {v}",
        ],
    ),
    (
        "wifi_psk",
        g_pass,
        [
            "Wi-Fi COLONET-OPS WPA2 key: {v}",
            "Пароль Wi-Fi для інженерів: {v}",
            "סיסמת Wi-Fi לרשת הטכנאים: {v}",
        ],
    ),
    (
        "ipsec_psk",
        g_psk,
        [
            "IPsec tunnel KBP1<->TLV1 pre-shared key: {v}",
            "crypto isakmp key {v} address 203.0.113.10",
            "Спільний ключ VPN до резервного майданчика: {v}",
        ],
    ),
    (
        "radius_secret",
        g_rand_secret,
        [
            "radius-server host 10.40.1.8 key {v}",
            "RADIUS shared secret for the OOB switches: {v}",
            "סוד RADIUS לסוויצ'ים של ה-OOB: {v}",
        ],
    ),
    (
        "tacacs_key",
        g_rand_secret,
        [
            "tacacs-server key {v}",
            "TACACS+ ключ для всіх маршрутизаторів доступу: {v}",
            'tacacs:\n  server: 10.40.1.9\n  key: "{v}"',
        ],
    ),
    (
        "bgp_md5_password",
        g_bgp,
        [
            "neighbor 185.1.62.7 password {v}",
            "IX peering with AS{asn}: MD5 {v}",
            "BGP MD5 пароль для сесії з клієнтом у клітці 14: {v}",
        ],
    ),
    (
        "recovery_codes",
        g_recovery,
        [
            "backup codes for the noc@colonet.ua Google account:\n{v}",
            "Коди відновлення 2FA для акаунта Stripe: {v}",
            "קודי שחזור לחשבון Cloudflare: {v}",
        ],
    ),
    (
        "totp_seed",
        g_totp,
        [
            "shared TOTP secret for the vendor portal (Schneider mySE): {v}",
            "otpauth://totp/ColoNet:noc-shared?secret={v}&issuer=ColoNet",
            "Секрет TOTP для спільного акаунта реєстратора доменів: {v}",
        ],
    ),
    (
        "ldap_bind_password",
        g_human,
        [
            "LDAP bind cn=svc-portal,ou=svc,dc=colonet,dc=local  pw {v}",
            "ldap:\n  bind_dn: cn=svc-dcim,ou=svc,dc=colonet,dc=local\n  bind_password: {v}",
            "Пароль сервісного акаунта svc-biostar в AD: {v}",
        ],
    ),
    (
        "ansible_vault_password",
        g_pass,
        [
            "ansible vault password for inventories/prod: {v}",
            "echo '{v}' > ~/.vault_pass",
            "סיסמת ה-vault של ansible: {v}",
        ],
    ),
    (
        "portal_client_secret",
        g_client_secret,
        [
            "PORTAL_OAUTH_CLIENT_SECRET={v}",
            "customer API client for Datagroup: client_id dg-portal-01, client_secret {v}",
            "секрет клієнта API порталу (інтеграція клієнта): {v}",
        ],
    ),
    (
        "customer_verbal_password",
        g_verbal,
        [
            "Customer verbal password for remote hands authorisation (Datagroup): {v}",
            "Кодове слово клієнта для заявок remote hands: {v}",
            "מילת הקוד של הלקוח לאימות בטלפון: {v}",
        ],
    ),
    (
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "DJANGO_SECRET_KEY={v}",
            "portal prod secret key (do not rotate without logging everyone out): {v}",
        ],
    ),
]


# --------------------------------------------------------------------------- benign generators


def b_xc(r):
    return f"XC-{r.choice(['KBP1', 'KBP2', 'TLV1', 'LWO1'])}-{r.randint(2025, 2026)}-{r.randint(100, 9999):05d}"


def b_rh(r):
    return f"RH-{r.randint(100000, 999999)}"


def b_cab(r):
    return f"{r.choice(['KBP1', 'TLV1', 'LWO1'])}.H{r.randint(1, 4)}.C{r.randint(1, 40):02d}.R{r.randint(1, 24):02d}"


def b_pdu_serial(r):
    return r.choice(["PKE", "ZK", "1A"]) + rs(r, UP + DG, 8)


def b_ups_serial(r):
    return r.choice(["GF", "UBE", "AS"]) + rs(r, DG, 9)


def b_circuit(r):
    return f"PWR-{r.choice(['A', 'B'])}-{r.randint(1, 6)}-{r.randint(1, 42):02d}"


def b_loa(r):
    return f"LOA-{r.randint(2026, 2026)}{r.randint(1, 12):02d}-{rs(r, DG, 5)}"


def b_pp(r):
    return f"MMR1-PP{r.randint(1, 60):02d}-P{r.randint(1, 48):02d}"


def b_mac(r):
    return ":".join(rs(r, HEXL, 2) for _ in range(6))


def b_subnet(r):
    return f"10.{r.randint(40, 49)}.{r.randint(0, 255)}.0/{r.choice([24, 26, 27])}"


def b_asset(r):
    return f"CN-{rs(r, DG, 6)}"


def b_sha256(r):
    return rs(r, HEXL, 64)


def b_sha1(r):
    return rs(r, HEXL, 40)


def b_sshpub(r):
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, B64, 43)


def b_cert(r):
    return (
        "-----BEGIN CERTIFICATE-----\n"
        + pem_body(r, "MIIDdzCCAl+gAwIBAgIU", 8)
        + "\n-----END CERTIFICATE-----"
    )


def b_fpr(r):
    return "SHA256:" + rs(r, B64, 43)


def b_pk_live(r):
    return "pk_live_51" + rs(r, AN, 97)


def b_recaptcha(r):
    return "6L" + rs(r, AN + "-_", 38)


def b_uuid(r):
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def b_awsacct(r):
    return rs(r, DG, 12)


def b_arn(r):
    return f"arn:aws:s3:::colonet-{r.choice(['dcim-backups', 'cctv-archive', 'invoices'])}-{rs(r, DG, 4)}"


def b_fw(r):
    return f"{r.randint(3, 4)}.{r.randint(0, 9)}.{r.randint(0, 50)}.{r.randint(1, 99)}"


def b_digest(r):
    return "sha256:" + rs(r, HEXL, 64)


def b_invoice(r):
    return f"INV-{r.randint(2026, 2026)}-{r.randint(1, 99999):06d}"


def b_po(r):
    return f"PO{rs(r, DG, 8)}"


def b_cus(r):
    return "cus_" + rs(r, AN, 14)


def b_acsid(r):
    return "AC" + rs(r, HEXL, 32)


def b_channel(r):
    return "C0" + rs(r, UP + DG, 9)


def b_clientid(r):
    return (
        r.choice(["portal-web", "xc-orders-sync", "dg-portal-01", "noc-dashboard"])
        + "-"
        + rs(r, LO + DG, 6)
    )


def b_oid(r):
    return (
        r.choice(
            [
                ".1.3.6.1.4.1.13742.6.5.2.3.1.4",
                ".1.3.6.1.4.1.534.1.2.5",
                ".1.3.6.1.4.1.318.1.1.1.2.2.1",
                ".1.3.6.1.2.1.33.1.2.4",
            ]
        )
        + f".{r.randint(0, 9)}"
    )


def b_asn(r):
    return f"AS{r.randint(15000, 215000)}"


def b_vlan(r):
    return str(r.randint(100, 3999))


def b_console(r):
    return f"ts-{r.randint(1, 4)}.kbp1:{7000 + r.randint(1, 48)}"


def b_phone(r):
    return r.choice(
        [
            f"+380 44 {r.randint(200, 599)} {r.randint(10, 99)} {r.randint(10, 99)}",
            f"+972-3-{r.randint(500, 799)}-{rs(r, DG, 4)}",
        ]
    )


def b_bcrypt(r):
    return "$2b$12$" + rs(r, AN + "./", 53)


def b_runbook(r):
    return f"https://wiki.colonet.ua/display/NOC/{r.choice(['UPS+Bypass+Procedure', 'Cross-Connect+Provisioning', 'Cage+Access+Onboarding', 'PDU+Firmware+Upgrade'])}"


def b_grafana_url(r):
    return f"https://grafana.colonet.ua/d/{rs(r, AN, 9)}/pue-{r.choice(['kbp1', 'tlv1'])}?orgId=1&refresh=30s"


def b_iban(r):
    return r.choice(
        [
            f"UA{rs(r, DG, 2)}3052990000026{rs(r, DG, 14)}",
            f"IL{rs(r, DG, 2)}0108000000{rs(r, DG, 9)}",
        ]
    )


def b_vat(r):
    return r.choice([f"UA{rs(r, DG, 12)}", f"IL{rs(r, DG, 9)}"])


def b_case(r):
    return f"{r.choice(['SE', 'VRT', 'EAT'])}-{rs(r, DG, 8)}"


def b_bacnet(r):
    return str(r.randint(100000, 4194302))


def b_modbus(r):
    return str(r.choice([30001, 40001, 40100, 40201]) + r.randint(0, 90))


def b_sensor(r):
    return f"TH-{r.choice(['KBP1', 'TLV1'])}-H{r.randint(1, 4)}-{rs(r, UP + DG, 6)}"


def b_sfp(r):
    return (
        r.choice(["SFP-10G-LR", "QSFP-100G-LR4", "SFP-10G-SR", "QSFP-40G-SR4", "SFP-1G-LX"])
        + "-"
        + rs(r, UP + DG, 4)
    )


def b_pgp(r):
    return " ".join(rs(r, HEXL.upper(), 4) for _ in range(10))


def b_trace(r):
    return rs(r, HEXL, 32)


def b_mw(r):
    return f"MW-{r.randint(2026, 2026)}-{r.randint(1, 999):03d}"


def b_imei(r):
    return rs(r, DG, 15)


def b_revoked(r):
    return r.choice([g_ghp, g_xoxb, g_glpat])(r)


def b_masked(r):
    return r.choice(
        [
            lambda: "sk_live_" + "*" * 20 + rs(r, AN, 4),
            lambda: rs(r, AN, 4) + "…" + rs(r, AN, 4),
            lambda: "ghp_" + "•" * 12,
            lambda: "*" * 8,
            lambda: "xoxb-****-****-" + "*" * 6 + rs(r, AN, 3),
        ]
    )()


BENIGN = [
    (
        "cross_connect_order",
        b_xc,
        [
            "Cross-connect {v} (SMF, LC/UPC) from cage 14 to MMR1 is ready for testing",
            "Замовлення крос-коннекту {v}: клієнт підтвердив LOA, чекаємо оптику",
            "הזמנת cross-connect {v} הושלמה, נשלח אישור ללקוח",
            '{"order": "{v}", "media": "SMF", "a_end": "C14.R07", "z_end": "MMR1"}',
        ],
    ),
    (
        "remote_hands_ticket",
        b_rh,
        [
            "Remote hands {v}: reseat PSU 2 in rack R07, customer on the phone",
            "Заявка {v} закрита, фото стійки додано",
            "כרטיס remote hands {v} – החלפת כבל חשמל, בוצע",
            "2026-12-06T03:14:22Z rh-worker INFO ticket={v} status=dispatched tech=serhii.k",
        ],
    ),
    (
        "cabinet_location",
        b_cab,
        [
            "New customer cabinet at {v}, 2x 32A feeds",
            "Стійка {v} — зайві кабелі під фальшпідлогою",
            "הארון {v} מוכן להתקנה",
            "| rack | {v} | 42U | 7.4 kW |",
        ],
    ),
    (
        "pdu_serial",
        b_pdu_serial,
        [
            "RMA for PDU serial {v}, outlet 17 relay stuck",
            "Серійний номер PDU: {v}",
            "pdu-b12 model PX3-5190R s/n {v}",
            "מספר סידורי של ה-PDU שהוחלף: {v}",
        ],
    ),
    (
        "ups_serial",
        b_ups_serial,
        [
            "UPS-2 (Eaton 93PM) serial {v}, battery string 3 replaced",
            "Серійник ДБЖ для гарантійного звернення: {v}",
            "ups serial {v} under maintenance contract until 2028",
        ],
    ),
    (
        "power_circuit_id",
        b_circuit,
        [
            "breaker {v} trips under 28A, electrician booked",
            "Лінія живлення {v} на клієнта у клітці 9",
            "המעגל {v} מזין את הארון של הלקוח",
        ],
    ),
    (
        "loa_cfa_reference",
        b_loa,
        [
            "LOA/CFA {v} issued to carrier, valid 90 days",
            "Лист LOA {v} надіслано провайдеру",
            "מספר LOA: {v}",
        ],
    ),
    (
        "patch_panel_port",
        b_pp,
        [
            "patched to {v}, light levels -3.2 dBm",
            "Порт на патч-панелі: {v}",
            "xc z-end {v} (duplex LC)",
        ],
    ),
    (
        "mac_address",
        b_mac,
        [
            "PDU network card MAC {v} — add DHCP reservation",
            "MAC адреса контролера BioStation: {v}",
            "dhcpd: DHCPACK on 10.40.12.31 to {v} (pdu-a01)",
        ],
    ),
    (
        "ip_subnet",
        b_subnet,
        [
            "PDU management network {v}, no routing to customers",
            "Підмережа для камер: {v}",
            "רשת הניהול של ה-UPS: {v}",
        ],
    ),
    (
        "asset_tag",
        b_asset,
        [
            "asset tag {v} on the spare ATS in the store room",
            "Інвентарний номер {v} — сервер BMS",
            "תג נכס {v} על הסוויץ' החדש",
        ],
    ),
    (
        "firmware_sha256",
        b_sha256,
        [
            "PX3 firmware 4.0.40 sha256 {v} — matches vendor site",
            "sha256sum nmc3_fw.bin\n{v}  nmc3_fw.bin",
            "Контрольна сума прошивки ДБЖ: {v}",
            "checksum: sha256={v}",
        ],
    ),
    (
        "git_commit_sha",
        b_sha1,
        [
            "deployed portal at commit {v}",
            "Фікс для sync кабелів у коміті {v}",
            "revert {v} if the cabinet import breaks again",
        ],
    ),
    (
        "ssh_public_key",
        b_sshpub,
        [
            "add to authorized_keys on bastion: {v} oleksii@noc",
            "Публічний ключ клієнта для консольного доступу: {v}",
            "המפתח הציבורי של הטכנאי: {v} dana@laptop",
            "  ssh_authorized_keys:\n    - {v} ansible@colonet",
        ],
    ),
    (
        "x509_certificate",
        b_cert,
        [
            "public cert for portal.colonet.ua (share with the customer's proxy team):\n{v}",
            "Сертифікат CA для BioStar (публічний):\n{v}",
            "התעודה הציבורית של שרת ה-RADIUS:\n{v}",
        ],
    ),
    (
        "ssh_host_fingerprint",
        b_fpr,
        [
            "bastion-kbp1 host key fingerprint ED25519 {v}",
            "Відбиток ключа хоста ts-1: {v}",
            "ECDSA key fingerprint is {v}.",
        ],
    ),
    (
        "stripe_publishable_key",
        b_pk_live,
        [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "frontend uses the publishable key {v} (safe in the bundle)",
            "Публічний ключ Stripe для форми оплати: {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        b_recaptcha,
        [
            "RECAPTCHA_SITE_KEY={v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "site key של reCAPTCHA בטופס ביקור: {v}",
        ],
    ),
    (
        "placeholder",
        lambda r: r.choice(
            [
                "<YOUR_API_KEY>",
                "<pdu-admin-password>",
                "changeme-in-vault",
                "REPLACE_ME",
                "xxxxxxxxxxxxxxxx",
                "<token>",
            ]
        ),
        [
            "DCIM_API_TOKEN={v}",
            'template: password: "{v}"  # fill from vault at deploy',
            "У шаблоні конфігурації залиш {v}, справжнє значення з Vault",
            "בקובץ הדוגמה הסיסמה היא {v}",
            "curl -H 'Authorization: Token {v}' https://netbox.colonet.ua/api/",
        ],
    ),
    (
        "env_var_reference",
        lambda r: r.choice(
            [
                "${PDU_ADMIN_PASSWORD}",
                "$STRIPE_SECRET_KEY",
                "${{ secrets.NETBOX_TOKEN }}",
                'os.environ["SLACK_BOT_TOKEN"]',
                "%TEAMS_WEBHOOK_URL%",
                "${BMS_PASS}",
            ]
        ),
        [
            "password: {v}",
            "token = {v}",
            "Пароль береться зі змінної {v}",
            "הטוקן נקרא מ-{v}",
            "env:\n  - name: API_KEY\n    value: {v}",
        ],
    ),
    (
        "vault_path",
        lambda r: r.choice(
            [
                "secret/data/noc/pdu/raritan-admin",
                "kv/facilities/bms/niagara",
                "secret/portal/stripe",
                "kv/access/biostar/admin",
                "secret/network/bgp/ix-md5",
            ]
        ),
        [
            "PDU admin password lives at {v}",
            "vault kv get {v}",
            "Пароль у Vault: {v}",
            "הסיסמה שמורה ב-{v}",
        ],
    ),
    (
        "masked_secret",
        b_masked,
        [
            "the settings page only shows the key as {v}",
            "api_key: {v}",
            "Токен у логах замаскований: {v}",
            "הסיסמה מוצגת כ-{v}",
            "2026-12-05 11:02:41 portal WARN auth failed token={v}",
        ],
    ),
    (
        "redacted_value",
        lambda r: r.choice(["[REDACTED]", "<redacted>", "***REDACTED***", "[прибрано]"]),
        [
            "BMS password: {v}",
            "Код дверей клітки: {v}",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "documented_example_key",
        lambda r: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "AWS docs example key {v} — do not use",
            "in the README we show aws_access_key_id = {v}",
            "Приклад з документації AWS: {v}",
            "example value from AWS docs: {v}",
        ],
    ),
    (
        "revoked_token",
        b_revoked,
        [
            "revoked on 2026-11-30 after the laptop loss, kept for incident log: {v}",
            "Токен {v} відкликано, більше не працює",
            "הטוקן {v} בוטל ונמחק מהמערכת",
            "incident INC-2211: leaked token {v} was revoked within 12 minutes",
        ],
    ),
    (
        "customer_uuid",
        b_uuid,
        [
            "portal customer id {v} (Datagroup)",
            "Ідентифікатор клієнта в порталі: {v}",
            "GET /api/v2/customers/{v}/cages",
        ],
    ),
    (
        "aws_account_id",
        b_awsacct,
        [
            "backups live in AWS account {v}",
            "Номер акаунта AWS для CCTV: {v}",
            "חשבון AWS של הפורטל: {v}",
        ],
    ),
    (
        "aws_arn",
        b_arn,
        [
            "bucket {v} has versioning on",
            'Resource: "{v}/*"',
            "ARN бакета: {v}",
        ],
    ),
    (
        "firmware_version",
        b_fw,
        [
            "all Raritan PX3 upgraded to {v}",
            "Прошивка NMC: {v}",
            "גרסת הקושחה של ה-PDU: {v}",
            "pdu-a03 fw={v} model=PX3-5902V",
        ],
    ),
    (
        "docker_image_digest",
        b_digest,
        [
            "image: ghcr.io/colonet/pdu-exporter@{v}",
            "Образ порталу: portal@{v}",
            "pinned dcim-sync to {v}",
        ],
    ),
    (
        "invoice_number",
        b_invoice,
        [
            "invoice {v} for 4 cross-connects, paid",
            "Рахунок {v} за електроенергію надіслано",
            "חשבונית {v} לתשלום עד סוף החודש",
        ],
    ),
    (
        "purchase_order",
        b_po,
        [
            "PO {v} for 40 Raritan PDUs approved",
            "Номер замовлення на закупівлю: {v}",
            "הזמנת רכש {v} לסוללות UPS",
        ],
    ),
    (
        "stripe_customer_id",
        b_cus,
        [
            "Stripe customer {v} maps to portal tenant Datagroup",
            "Клієнт у Stripe: {v}",
            '{"stripe_customer": "{v}", "plan": "colo-quarter-rack"}',
        ],
    ),
    (
        "twilio_account_sid",
        b_acsid,
        [
            "Twilio account SID {v} (auth token in vault)",
            "TWILIO_ACCOUNT_SID={v}",
            "SID акаунта Twilio: {v}",
        ],
    ),
    (
        "slack_channel_id",
        b_channel,
        [
            "post UPS alerts to channel {v} (#noc-power)",
            "SLACK_CHANNEL={v}",
            "ID каналу #cross-connects: {v}",
        ],
    ),
    (
        "oauth_client_id",
        b_clientid,
        [
            "PORTAL_OAUTH_CLIENT_ID={v}",
            "client_id for the customer API integration: {v}",
            "מזהה הלקוח של OAuth: {v}",
        ],
    ),
    (
        "snmp_oid",
        b_oid,
        [
            "outlet current OID {v}",
            "snmpget -v3 -u nocmon 10.40.12.31 {v}",
            "OID для температури батарей: {v}",
            "ה-OID של עומס הפאזה: {v}",
        ],
    ),
    (
        "bgp_asn",
        b_asn,
        [
            "customer in cage 14 peers as {v}",
            "Клієнт з номером {v} просить другу сесію",
            "remote-as for the IX route server: {v}",
        ],
    ),
    (
        "vlan_id",
        b_vlan,
        [
            "cross-connect handed off on VLAN {v}",
            "VLAN для PDU: {v}",
            "switchport access vlan {v}",
        ],
    ),
    (
        "console_port",
        b_console,
        [
            "console for core-sw1 is on {v}",
            "Консоль маршрутизатора клієнта: {v}",
            "telnet {v}",
        ],
    ),
    (
        "noc_phone",
        b_phone,
        [
            "NOC 24/7: {v}",
            "Телефон чергового інженера: {v}",
            "מספר הטלפון של מוקד הבקרה: {v}",
        ],
    ),
    (
        "password_policy",
        lambda r: r.choice(
            [
                "minimum 14 characters, rotated every 90 days",
                "no shared PDU passwords, one account per engineer",
                "door codes change every 30 days",
                "MFA required for portal admins",
            ]
        ),
        [
            "Policy: {v}.",
            "Security note for new staff: {v}",
            "ISO 27001 audit finding closed: {v}",
            "Правило (англійською в політиці): {v}",
        ],
    ),
    (
        "bcrypt_hash",
        b_bcrypt,
        [
            "portal users table, admin row hash {v}",
            "Хеш пароля у базі: {v}",
            'password_hash: "{v}"',
        ],
    ),
    (
        "runbook_url",
        b_runbook,
        [
            "see {v} before touching the static switch",
            "Інструкція: {v}",
            "הנוהל נמצא ב-{v}",
        ],
    ),
    (
        "grafana_dashboard_url",
        b_grafana_url,
        [
            "PUE dashboard: {v}",
            "Дашборд температур: {v}",
            "link for the customer report: {v}",
        ],
    ),
    (
        "iban",
        b_iban,
        [
            "bank details on invoices: IBAN {v}",
            "Рахунок для оплати: {v}",
            "פרטי חשבון הבנק לתשלום: {v}",
        ],
    ),
    (
        "vat_number",
        b_vat,
        [
            "customer VAT / tax id {v}",
            "Податковий номер клієнта: {v}",
            "מספר עוסק: {v}",
        ],
    ),
    (
        "vendor_case_number",
        b_case,
        [
            "vendor case {v} opened for the chiller compressor fault",
            "Звернення до вендора: {v}",
            "מספר קריאה אצל הספק: {v}",
        ],
    ),
    (
        "bacnet_device_instance",
        b_bacnet,
        [
            "CRAC-07 BACnet device instance {v}",
            "BACnet instance для чилера 2: {v}",
            "device_id: {v}  # AHU-3",
        ],
    ),
    (
        "modbus_register",
        b_modbus,
        [
            "UPS load % at Modbus holding register {v}",
            "Регістр Modbus для напруги: {v}",
            "register: {v}  # genset fuel level",
        ],
    ),
    (
        "sensor_id",
        b_sensor,
        [
            "sensor {v} reads 27.4C at rack inlet",
            "Датчик {v} показує вологість 62%",
            "החיישן {v} מדווח על טמפרטורה גבוהה",
        ],
    ),
    (
        "sfp_part_number",
        b_sfp,
        [
            "ordered 8x {v} for the carrier cross-connects",
            "Модуль {v} в порту 17",
            "part {v} in stock: 12",
        ],
    ),
    (
        "pgp_fingerprint",
        b_pgp,
        [
            "security@colonet.ua PGP key fingerprint: {v}",
            "Відбиток PGP ключа для звітів про вразливості: {v}",
            "verify with fingerprint {v}",
        ],
    ),
    (
        "trace_id",
        b_trace,
        [
            "2026-12-06T09:12:03Z portal ERROR xc-order failed trace_id={v}",
            "Trace ID помилки: {v}",
            "request {v} took 8.2s on /api/v2/cabinets",
        ],
    ),
    (
        "maintenance_window_id",
        b_mw,
        [
            "{v}: UPS-B bypass Sunday 02:00–04:00, customers notified",
            "Вікно обслуговування {v} — заміна батарей",
            "חלון תחזוקה {v} לגנרטור",
        ],
    ),
    (
        "k8s_secret_ref",
        lambda r: r.choice(["portal-stripe", "netbox-api", "pdu-snmp-v3", "dcim-db"]),
        [
            "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: token",
            "kubectl get secret {v} -o yaml  # check only that it exists",
            "Секрет у k8s називається {v}",
        ],
    ),
    (
        "modem_imei",
        b_imei,
        [
            "OOB 4G modem in MMR1, IMEI {v}",
            "IMEI модема резервного зв'язку: {v}",
        ],
    ),
]


def _ctx(r):
    return {
        "akia": rs(r, UP + DG, 16),
        "acsid": rs(r, HEXL, 32),
        "liqpub": rs(r, DG, 11),
        "asn": str(r.randint(15000, 215000)),
    }


def _build(r, label, table):
    rows = []
    for kind, gen, templates in table:
        for tpl in templates:
            value = gen(r)
            text = tpl
            for key, val in _ctx(r).items():
                text = text.replace("{" + key + "}", val)
            if "{v2}" in text:
                text = text.replace("{v2}", g_snmpv3(r))
            text = text.replace("{v}", value)
            assert value in text, (kind, tpl)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})
    return rows


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = _build(r, "secret", SECRETS) + _build(r, "benign", BENIGN)
    return rows


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    try:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()

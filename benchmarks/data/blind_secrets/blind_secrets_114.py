# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 114: a casino (slots, cage, surveillance, loyalty, hotel).

Brief: notes that a casino's engineering and operations teams, and their AI coding
agents, keep as memory: slot floor management (CMS, EGM assets, attendant PINs),
the cage and the counting room (vault combinations, door codes, seal numbers),
surveillance (NVR and camera logins), the loyalty programme (player cards, partner
APIs), the hotel (PMS, keycard encoders, guest Wi-Fi), plus the usual developer stack
(cloud, CI, databases, chat webhooks, payment and messaging providers). Rows are in
English, Spanish, Chinese and Portuguese.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_114.py [out.jsonl]

Kinds, secret: aws_access_key_id, aws_secret_access_key, github_pat, github_fine_grained_pat,
gitlab_pat, npm_token, docker_hub_pat, vault_token, slack_bot_token, slack_webhook_url,
teams_webhook_url, discord_webhook_url, telegram_bot_token, stripe_secret_key, adyen_api_key,
twilio_auth_token, sendgrid_api_key, mailgun_api_key, openai_api_key, anthropic_api_key,
google_api_key, datadog_api_key, azure_storage_connection_string, gcp_service_account_key,
postgres_url, mssql_connection_string, mysql_password, redis_url, mongodb_uri, rsa_private_key,
openssh_private_key, jwt_signing_secret, bearer_jwt, slot_attendant_pin, cage_vault_combination,
count_room_door_code, nvr_admin_password, camera_admin_password, slot_cms_db_password,
loyalty_partner_api_key, player_card_pin, pms_password, keycard_encoder_code, wifi_psk,
ldap_bind_password, vpn_preshared_key, mfa_recovery_codes, kiosk_admin_password,
basic_auth_url, shared_login_password.

Kinds, benign: aws_documented_example_key, git_commit_sha, sha256_digest, request_uuid,
egm_asset_number, egm_serial_number, loyalty_account_number, hotel_confirmation_number,
folio_number, jira_ticket, build_version, stripe_publishable_key, recaptcha_site_key,
password_placeholder, env_var_reference, vault_path, masked_secret, redacted_value,
revoked_key, ssh_public_key, x509_certificate, pgp_fingerprint, cert_thumbprint, mac_address,
private_ip_address, twilio_account_sid, aws_account_id, aws_role_arn, slack_channel_id,
ga_measurement_id, docker_image_digest, npm_integrity_hash, gaming_license_number,
game_certification_id, w2g_form_reference, count_bag_seal_number, marker_number,
chip_rfid_tag, camera_channel_id, employee_badge_number, password_policy_text,
rotation_schedule, azure_tenant_id, oauth_client_id, stripe_object_id, jwt_io_example,
keycard_serial, booking_reference, eprom_signature, sas_address, merchant_terminal_id,
secret_name_only.
"""

import base64
import json
import random
import string
import sys

SEED = 135935

UP = string.ascii_uppercase
DIG = string.digits
LOW = string.ascii_lowercase
ALNUM = UP + LOW + DIG
UPNUM = UP + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []

    def s(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def guid() -> str:
        return f"{s(HEX, 8)}-{s(HEX, 4)}-4{s(HEX, 3)}-{r.choice('89ab')}{s(HEX, 3)}-{s(HEX, 12)}"

    def human_pw() -> str:
        words = [
            "Jackpot",
            "Dragon",
            "Baccarat",
            "Roulette",
            "Lucky",
            "Fortuna",
            "Neon",
            "Blackjack",
            "Diamante",
            "Macau",
            "Cotai",
            "Vegas",
            "Tigre",
            "Phoenix",
            "Koi",
            "Golden",
            "Sevens",
            "Cherry",
            "Marina",
            "Aurora",
            "Pantera",
            "Boulevard",
        ]
        w = r.choice(words)
        pat = r.randrange(5)
        if pat == 0:
            return f"{w}{r.choice('!#$@*')}{r.randrange(1990, 2027)}"
        if pat == 1:
            return f"{w}{r.choice(words).lower()}{r.randrange(10, 99)}{r.choice('!?.')}"
        if pat == 2:
            return f"{r.choice(['Cage', 'Slot', 'Surv', 'Hotel', 'Count'])}{r.choice('_-.')}{w}{r.randrange(100, 999)}"
        if pat == 3:
            return f"{w[:3].lower()}{r.randrange(1000, 9999)}{w[-3:].upper()}{r.choice('%&+')}"
        return f"{w}{r.choice(['88', '888', '777', '21', '2025', '2026'])}{r.choice('!#$')}{r.choice(['q', 'Z', 'x', 'Ok'])}"

    def pem(label: str, nlines: int, first: str = "MII") -> str:
        body = (
            [first + s(B64, 61)]
            + [s(B64, 64) for _ in range(nlines - 1)]
            + [s(B64, r.randrange(20, 60)) + "=="]
        )
        return f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"

    def b64url_json(obj: dict) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for t in templates:
            v = gen()
            text = t.replace("{v}", v)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ---------------------------------------------------------------- secrets
    add(
        S,
        "aws_access_key_id",
        lambda: "AKIA" + s(UPNUM, 16),
        [
            "AWS_ACCESS_KEY_ID={v}",
            "handover: the surveillance export bucket job runs as iam user svc-surv-export, key id {v} (secret is in the same 1Password item, rotate Friday)",
            "[profile cage-recon]\naws_access_key_id = {v}\nregion = us-west-2",
            "aws configure set aws_access_key_id {v} --profile slot-analytics",
        ],
    )
    add(
        S,
        "aws_secret_access_key",
        lambda: s(B64, 40),
        [
            "AWS_SECRET_ACCESS_KEY={v}",
            "aws_secret_access_key = {v}",
            "密钥给你了,监控录像归档桶用这个:secret key {v} ,别发到群里",
            '  env:\n    AWS_SECRET_ACCESS_KEY: "{v}"\n    AWS_DEFAULT_REGION: ap-east-1',
        ],
    )
    add(
        S,
        "github_pat",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "git clone https://{v}@github.com/floor-systems/slot-cms-bridge.git",
            "Agent note: used PAT {v} to push the hotfix for the TITO printer driver, scope repo+workflow",
            "GITHUB_TOKEN={v}",
        ],
    )
    add(
        S,
        "github_fine_grained_pat",
        lambda: "github_pat_11" + s(UPNUM, 20) + "_" + s(ALNUM, 59),
        [
            "fine-grained token para el repo loyalty-api (solo lectura contents): {v}",
            "export GH_TOKEN={v}  # expires 2027-03-01, owner: rewards team",
            "- name: checkout private submodule\n  with:\n    token: {v}",
        ],
    )
    add(
        S,
        "gitlab_pat",
        lambda: "glpat-" + s(B64URL, 20),
        [
            "GITLAB_PAT={v}",
            "Runner registration on the count-room jump box: personal token {v} (mine, please replace with a project token)",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.internal.casino/api/v4/projects/88/pipelines',
            "token do gitlab para o pipeline do PMS do hotel: {v}",
        ],
    )
    add(
        S,
        "npm_token",
        lambda: "npm_" + s(ALNUM, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v} npm publish --access restricted  # @casino/player-widgets",
            "npm publish token for the kiosk UI packages is {v}",
        ],
    )
    add(
        S,
        "docker_hub_pat",
        lambda: "dckr_pat_" + s(B64URL, 27),
        [
            "echo {v} | docker login -u floorsysbuild --password-stdin",
            "Docker Hub access token (pull only for the NVR analytics images): {v}",
            "DOCKERHUB_TOKEN: {v}",
        ],
    )
    add(
        S,
        "vault_token",
        lambda: "hvs." + s(B64URL, 90),
        [
            "VAULT_TOKEN={v} vault kv get secret/cage/recon",
            "root token from last night's unseal, revoke after the audit: {v}",
            "X-Vault-Token: {v}",
        ],
    )
    add(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{s(DIG, 12)}-{s(DIG, 13)}-{s(ALNUM, 24)}",
        [
            "SLACK_BOT_TOKEN={v}",
            "the jackpot-alerts bot posts to #slot-floor with {v}",
            'slack:\n  bot_token: "{v}"\n  channel: "#surveillance-incidents"',
            "token del bot de Slack para avisos de hand-pays: {v}",
        ],
    )
    add(
        S,
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T{s(UPNUM, 10)}/B{s(UPNUM, 10)}/{s(ALNUM, 24)}",
        [
            "CAGE_ALERT_WEBHOOK={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Count room drop finished\"}' {v}",
            "webhook do canal #hotel-frontdesk: {v}",
        ],
    )
    add(
        S,
        "teams_webhook_url",
        lambda: (
            f"https://casinogroup.webhook.office.com/webhookb2/{guid()}@{guid()}/IncomingWebhook/{s(HEX, 32)}/{guid()}/V2{s(B64URL, 43)}"
        ),
        [
            "Teams connector for the surveillance supervisors channel: {v}",
            '"teamsWebhook": "{v}",',
            "監控主管 Teams 頻道 webhook:{v}",
        ],
    )
    add(
        S,
        "discord_webhook_url",
        lambda: f"https://discord.com/api/webhooks/{s(DIG, 19)}/{s(B64URL, 68)}",
        [
            "DISCORD_WEBHOOK_URL={v}",
            "the poker room's tournament bot posts results via {v}",
            "webhook de Discord del club de jugadores VIP: {v}",
        ],
    )
    add(
        S,
        "telegram_bot_token",
        lambda: f"{r.randrange(5000000000, 7999999999)}:AA{s(B64URL, 33)}",
        [
            "TELEGRAM_BOT_TOKEN={v}",
            "Macau 貴賓廳 host 用的 Telegram bot token: {v}",
            'bot = telebot.TeleBot("{v}")',
        ],
    )
    add(
        S,
        "stripe_secret_key",
        lambda: "sk_live_51" + s(ALNUM, 97),
        [
            "STRIPE_SECRET_KEY={v}",
            "hotel spa online booking charges go through Stripe, live secret key {v}",
            'stripe.api_key = "{v}"',
            "clave secreta de Stripe (producción, reservas del hotel): {v}",
        ],
    )
    add(
        S,
        "adyen_api_key",
        lambda: "AQE" + s(B64, 57) + "==-" + s(B64, 43) + "=-" + s(ALNUM + "%;{}", 16),
        [
            "ADYEN_API_KEY={v}",
            "Adyen ws user for the cashless wallet top-ups, key: {v}",
            'adyen:\n  merchantAccount: CasinoResortPOS\n  apiKey: "{v}"',
        ],
    )
    add(
        S,
        "twilio_auth_token",
        lambda: s(HEX, 32),
        [
            "TWILIO_AUTH_TOKEN={v}",
            "SMS for the loyalty OTP: account AC{sid}, auth token {v}".replace(
                "{sid}", "7d3f0a2b9c6e4f1d8a5b0c3e7f9a1d2b"
            ),
            "twilio:\n  account_sid: ${TWILIO_ACCOUNT_SID}\n  auth_token: {v}",
            "token de autenticação do Twilio (SMS de promoções): {v}",
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        [
            "SENDGRID_API_KEY={v}",
            "the room-confirmation emails use SendGrid key {v} (full access, should be mail send only)",
            'sg = SendGridAPIClient("{v}")',
        ],
    )
    add(
        S,
        "mailgun_api_key",
        lambda: f"{s(HEX, 32)}-{s(HEX, 8)}-{s(HEX, 8)}",
        [
            "MAILGUN_API_KEY={v}",
            "curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.casinoresort.com/messages",
            "Mailgun private key for W-2G notices mailer: {v}",
        ],
    )
    add(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + s(B64URL, 74) + "T3BlbkFJ" + s(B64URL, 74),
        [
            "OPENAI_API_KEY={v}",
            "agent memory: summariser for surveillance incident reports calls OpenAI with {v}",
            'client = OpenAI(api_key="{v}")',
        ],
    )
    add(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + s(B64URL, 93) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "clé API pour l'assistant du programme de fidélité : {v}",
            "loyalty chatbot backend key (workspace: guest-services): {v}",
        ],
    )
    add(
        S,
        "google_api_key",
        lambda: "AIza" + s(B64URL, 35),
        [
            "GOOGLE_MAPS_SERVER_KEY={v}  # server side, geocoding for hotel shuttle, NOT the browser key",
            "Places API key used by the concierge service: {v}",
            "google:\n  server_api_key: {v}",
        ],
    )
    add(
        S,
        "datadog_api_key",
        lambda: s(HEX, 32),
        [
            "DD_API_KEY={v}",
            "datadog agent on the slot CMS app servers: api_key: {v}",
            "Datadog API key (org: casino-prod) {v}",
        ],
    )
    add(
        S,
        "azure_storage_connection_string",
        lambda: (
            f"DefaultEndpointsProtocol=https;AccountName=survarchive{s(DIG, 3)};AccountKey={s(B64, 86)}==;EndpointSuffix=core.windows.net"
        ),
        [
            'AZURE_STORAGE_CONNECTION_STRING="{v}"',
            "cold storage for 30-day CCTV retention: {v}",
            '"ConnectionStrings": { "Archive": "{v}" }',
        ],
    )
    add(
        S,
        "gcp_service_account_key",
        lambda: (
            "-----BEGIN PRIVATE KEY-----\\nMIIEv"
            + s(B64, 58)
            + "\\n"
            + "\\n".join(s(B64, 64) for _ in range(6))
            + "\\n-----END PRIVATE KEY-----\\n"
        ),
        [
            '{"type": "service_account", "project_id": "loyalty-analytics-prod", "private_key_id": "'
            + "4c1d9e0f7a2b3c5d6e8f9a0b1c2d3e4f5a6b7c8d"
            + '", "private_key": "{v}", "client_email": "bq-loader@loyalty-analytics-prod.iam.gserviceaccount.com"}',
            'private_key: "{v}"',
            "pasted the BigQuery loader SA key field here so the agent can rebuild the json: {v}",
        ],
    )
    add(
        S,
        "postgres_url",
        lambda: f"postgresql://loyalty_app:{human_pw()}@pg-loyalty-01.db.internal:5432/rewards",
        [
            "DATABASE_URL={v}",
            "psql \"{v}\" -c 'select count(*) from tier_moves'",
            "connexion base fidélité : {v}",
            "sqlalchemy.url = {v}",
        ],
    )
    add(
        S,
        "mssql_connection_string",
        lambda: (
            f"Server=tcp:slotcms-sql01,1433;Database=SlotAccounting;User Id=cms_report;Password={human_pw()};TrustServerCertificate=True"
        ),
        [
            '"SlotAccounting": "{v}"',
            "SSRS data source for the daily slot win report: {v}",
            "cadena de conexión del CMS de tragamonedas: {v}",
        ],
    )
    add(
        S,
        "mysql_password",
        lambda: human_pw(),
        [
            "MYSQL_PASSWORD={v}",
            "mysql -h kiosk-db -u redemption -p'{v}' kiosk",
            'db:\n  host: pms-mysql.hotel.local\n  user: housekeeping\n  password: "{v}"',
            "senha do MySQL da app de housekeeping: {v}",
        ],
    )
    add(
        S,
        "redis_url",
        lambda: f"redis://:{s(ALNUM, 32)}@redis-sessions.loyalty.internal:6379/0",
        [
            "REDIS_URL={v}",
            "session cache for the player portal: {v}",
            "cache:\n  url: {v}",
        ],
    )
    add(
        S,
        "mongodb_uri",
        lambda: (
            f"mongodb+srv://promo_svc:{s(ALNUM, 20)}@cluster0.x7kq2.mongodb.net/promotions?retryWrites=true&w=majority"
        ),
        [
            "MONGO_URI={v}",
            "promo engine (free play offers) reads from {v}",
            "促销引擎的 Mongo 连接串:{v}",
        ],
    )
    add(
        S,
        "rsa_private_key",
        lambda: pem("RSA PRIVATE KEY", 8),
        [
            "signing key for TITO barcode service, keep off the wiki:\n{v}",
            "{v}",
            "cat > /etc/kiosk/tls/kiosk.key <<'KEY'\n{v}\nKEY",
        ],
    )
    add(
        S,
        "openssh_private_key",
        lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            + "\n".join(s(B64, 70) for _ in range(4))
            + "\n"
            + s(B64, 24)
            + "=\n-----END OPENSSH PRIVATE KEY-----"
        ),
        [
            "deploy key for the NVR config repo (id_ed25519, no passphrase):\n{v}",
            "chave SSH do servidor de contagem:\n{v}",
            "  ssh_private_key: |\n{v}",
        ],
    )
    add(
        S,
        "jwt_signing_secret",
        lambda: s(ALNUM, 48),
        [
            "JWT_SECRET={v}",
            "player portal signs session JWTs with HS256 secret {v}",
            "auth:\n  jwt:\n    signing_key: {v}\n    ttl: 15m",
            "secreto HS256 de la app móvil de fidelización: {v}",
        ],
    )
    add(
        S,
        "bearer_jwt",
        lambda: (
            b64url_json({"alg": "RS256", "typ": "JWT", "kid": s(HEX, 8)})
            + "."
            + b64url_json(
                {
                    "sub": "svc-cage-recon",
                    "aud": "cms-api",
                    "iat": 1796000000 + r.randrange(10**6),
                    "exp": 1796000000 + r.randrange(10**6, 10**7),
                    "scope": "cage.read count.write",
                }
            )
            + "."
            + s(B64URL, 86)
        ),
        [
            "Authorization: Bearer {v}",
            'curl -H "Authorization: Bearer {v}" https://cms-api.casino.local/v2/drops/today',
            "service token the agent used for the count-room API (valid 90 days): {v}",
        ],
    )
    add(
        S,
        "slot_attendant_pin",
        lambda: s(DIG, r.choice([4, 5, 6])),
        [
            "Jackpot reset on bank C12: attendant card 4471, PIN {v}",
            "new floor attendants: technician menu PIN on the IGT cabinets is {v} until we get their own cards",
            "PIN de asistente para pagos manuales (hand pay) en zona VIP: {v}",
            "角子機技術員菜單密碼:{v}",
        ],
    )
    add(
        S,
        "cage_vault_combination",
        lambda: "-".join(f"{r.randrange(0, 100):02d}" for _ in range(4)),
        [
            "main cage vault combination changed today, new combo {v} (Maria + shift manager only)",
            "combinación de la bóveda de la caja: {v}",
            "cofre principal da tesouraria, combinação {v}",
            "handover 06:00: reserve vault combo is {v}, dual control still applies",
        ],
    )
    add(
        S,
        "count_room_door_code",
        lambda: s(DIG, 6) + "#",
        [
            "Soft count room door keypad: {v}",
            "código de la puerta del cuarto de conteo: {v}",
            "點鈔室門禁密碼 {v}",
        ],
    )
    add(
        S,
        "nvr_admin_password",
        lambda: human_pw(),
        [
            "Milestone XProtect admin login: user admin / {v}",
            "NVR-03 (east garage) web admin password: {v}",
            "nvr:\n  host: 10.40.3.12\n  username: admin\n  password: {v}",
            "mot de passe admin du NVR de la salle de jeux : {v}",
        ],
    )
    add(
        S,
        "camera_admin_password",
        lambda: human_pw(),
        [
            "all PTZ domes over the baccarat pit reset to admin:{v} after the firmware flash",
            "cámara 214 (caja) usuario admin contraseña {v}",
            "rtsp://admin:{v}@10.40.7.214:554/Streaming/Channels/101",
            "百家樂區球機預設帳號 admin 密碼 {v}",
        ],
    )
    add(
        S,
        "slot_cms_db_password",
        lambda: s(ALNUM + "!@#", 18),
        [
            "CMS_DB_PASSWORD={v}",
            "SYNKROS reporting service account sa_rpt password: {v}",
            "slot accounting DB, login cmsread, pass {v}",
        ],
    )
    add(
        S,
        "loyalty_partner_api_key",
        lambda: "lyl_live_" + s(ALNUM, 40),
        [
            "LOYALTY_PARTNER_KEY={v}",
            "airline miles partner calls our points-transfer API with {v}",
            "X-Loyalty-Key: {v}",
            "chave da API de parceiros do programa de fidelidade: {v}",
        ],
    )
    add(
        S,
        "player_card_pin",
        lambda: s(DIG, 4),
        [
            "guest at host desk forgot PIN, reset to {v} for card 60012 88431 (tell him to change at a kiosk)",
            "cliente VIP Sr. Lam, tarjeta de jugador nueva, PIN {v}",
            "會員卡重設密碼為 {v},請客人儘快更改",
        ],
    )
    add(
        S,
        "pms_password",
        lambda: human_pw(),
        [
            "Opera PMS front desk shared login FD_NIGHT / {v}",
            "contraseña de Opera para auditoría nocturna: {v}",
            "pms:\n  user: interface_pos\n  password: '{v}'",
            "senha do PMS do hotel (recepção, turno da noite): {v}",
        ],
    )
    add(
        S,
        "keycard_encoder_code",
        lambda: s(DIG, 8),
        [
            "VingCard encoder master programming code: {v}",
            "emergency master key cut on the Saflok encoder needs code {v}",
            "código maestro del codificador de tarjetas de habitación: {v}",
        ],
    )
    add(
        S,
        "wifi_psk",
        lambda: human_pw(),
        [
            "staff Wi-Fi (CASINO-STAFF) password: {v}",
            "WPA2 key for the cage back office AP: {v}",
            "員工 WiFi 密碼:{v}",
        ],
    )
    add(
        S,
        "ldap_bind_password",
        lambda: s(ALNUM + "!$%", 20),
        [
            "LDAP_BIND_PASSWORD={v}",
            "ldapsearch -x -H ldaps://dc01.corp.casino -D 'CN=svc-surv-ldap,OU=Service,DC=corp,DC=casino' -w '{v}' '(sAMAccountName=jdoe)'",
            'bind_password: "{v}"  # svc-pms-ldap',
        ],
    )
    add(
        S,
        "vpn_preshared_key",
        lambda: s(ALNUM, 32),
        [
            "site-to-site VPN to the slot vendor (remote support), IKEv2 PSK: {v}",
            "set vpn ipsec site-to-site peer 203.0.113.44 authentication pre-shared-secret '{v}'",
            "PSK de la VPN con el proveedor de máquinas: {v}",
        ],
    )
    add(
        S,
        "mfa_recovery_codes",
        lambda: " ".join(f"{s(LOW + DIG, 5)}-{s(LOW + DIG, 5)}" for _ in range(4)),
        [
            "backup codes for the surveillance admin Okta account: {v}",
            "códigos de recuperación de la cuenta AWS root: {v}",
            "recovery codes (GitHub, floor-systems org owner): {v}",
        ],
    )
    add(
        S,
        "kiosk_admin_password",
        lambda: human_pw(),
        [
            "redemption kiosk service mode: tap logo 5x, password {v}",
            "TITO kiosk K-07 admin: {v}",
            "senha de administrador dos quiosques de resgate: {v}",
        ],
    )
    add(
        S,
        "basic_auth_url",
        lambda: f"https://ops:{human_pw()}@grafana.floor.casino.local/d/slot-uptime",
        [
            "dashboard with creds baked in for the wallboard: {v}",
            "GRAFANA_URL={v}",
            "abrir no ecrã da sala de vigilância: {v}",
        ],
    )
    add(
        S,
        "shared_login_password",
        lambda: human_pw(),
        [
            "shared surveillance login (for the DOJ/regulator viewing station): user survview / pass {v}",
            "cuenta compartida de la caja en el sistema de cambio de divisas: caja01 / {v}",
            "大家共用的帳號 cage_shift 密碼 {v}",
            "Handover: host team shared login for the comp system is hosts / {v}",
        ],
    )

    # ---------------------------------------------------------------- benign
    add(
        B,
        "aws_documented_example_key",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        [
            "docs say use AWS_ACCESS_KEY_ID={v} in the sample, don't replace it in the README",
            "the unit test fixture uses the AWS documentation key {v}",
            "aws_access_key_id = {v}  # example from AWS docs",
        ],
    )
    add(
        B,
        "git_commit_sha",
        lambda: s(HEX, 40),
        [
            "slot-cms-bridge deployed at commit {v}",
            "revert to {v} if the jackpot feed breaks again",
            "desplegado el commit {v} en el servidor de kioscos",
        ],
    )
    add(
        B,
        "sha256_digest",
        lambda: s(HEX, 64),
        [
            "sha256 of the NVR firmware package: {v}",
            "sha256sum kiosk-2.14.3.msi -> {v}",
            "固件校验值 SHA-256: {v}",
            '"checksum": "sha256:{v}"',
        ],
    )
    add(
        B,
        "request_uuid",
        lambda: guid(),
        [
            "request id {v} failed with 502 from the comp API",
            "trace_id={v} span=issue_freeplay",
            "incidente de vigilancia, id de correlación {v}",
        ],
    )
    add(
        B,
        "egm_asset_number",
        lambda: f"{r.randrange(10000, 99999)}",
        [
            "asset {v} on bank C12 shows door open event, tech dispatched",
            "máquina con número de activo {v} fuera de servicio (billetero atascado)",
            "機台資產編號 {v} 已移至二樓",
            "move list: asset {v} from zone 3 to high limit room",
        ],
    )
    add(
        B,
        "egm_serial_number",
        lambda: f"{r.choice(['IGT', 'ARI', 'KON', 'LNW'])}{s(DIG, 9)}",
        [
            "cabinet serial {v} reported to the regulator for the game change",
            "número de serie del gabinete: {v}",
            "EGM serial {v}, manufactured 2024, CRYSTAL DUAL 27",
        ],
    )
    add(
        B,
        "loyalty_account_number",
        lambda: f"{s(DIG, 4)} {s(DIG, 4)} {s(DIG, 2)}",
        [
            "player account {v} moved to Platinum tier after review",
            "cuenta de jugador {v}, saldo de puntos corregido",
            "會員號碼 {v} 升級為鑽石卡",
            "conta de jogador {v}: pontos ajustados após reclamação",
        ],
    )
    add(
        B,
        "hotel_confirmation_number",
        lambda: s(DIG, 9),
        [
            "Opera confirmation {v}, comp room for host Lisa's guest",
            "número de confirmación de la reserva: {v}",
            "confirmação de reserva {v} (suíte, 3 noites)",
        ],
    )
    add(
        B,
        "folio_number",
        lambda: f"F{s(DIG, 7)}",
        [
            "folio {v} has a duplicate minibar charge, routed to accounting",
            "folio {v} transferred to master account of the convention group",
            "帳單號 {v} 已結清",
        ],
    )
    add(
        B,
        "jira_ticket",
        lambda: f"{r.choice(['SURV', 'CAGE', 'SLOT', 'LOY', 'HTL'])}-{r.randrange(100, 9999)}",
        [
            "see {v} for the plan",
            "fixed in {v}, waiting for regulator approval",
            "ticket {v}: keypad on count room door sticks",
            "ver {v} para el detalle del cambio de billetero",
        ],
    )
    add(
        B,
        "build_version",
        lambda: (
            f"{r.randrange(1, 12)}.{r.randrange(0, 30)}.{r.randrange(0, 200)}+build.{s(DIG, 4)}"
        ),
        [
            "kiosk app version {v} rolled out to 22 kiosks",
            "player portal running {v}",
            "versión de la app de fidelización: {v}",
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_51" + s(ALNUM, 97),
        [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "publishable key for the spa booking page (safe in frontend): {v}",
            "<script>const stripe = Stripe('{v}');</script>",
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        lambda: "6L" + s(B64URL, 38),
        [
            "RECAPTCHA_SITE_KEY={v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "site key (público) del formulario de registro de jugadores: {v}",
        ],
    )
    add(
        B,
        "password_placeholder",
        lambda: r.choice(
            ["<your-password>", "CHANGE_ME", "********", "<nvr-admin-password>", "xxxxxxxx"]
        ),
        [
            "MYSQL_PASSWORD={v}",
            'nvr:\n  username: admin\n  password: "{v}"',
            "copy .env.example and set DB_PASSWORD={v} to your own value",
            "senha: {v} (preencher com a do cofre)",
        ],
    )
    add(
        B,
        "env_var_reference",
        lambda: r.choice(
            [
                "${STRIPE_SECRET_KEY}",
                "$CMS_DB_PASSWORD",
                "${{ secrets.SLACK_WEBHOOK_URL }}",
                "%VAULT_TOKEN%",
                "os.environ['LOYALTY_PARTNER_KEY']",
            ]
        ),
        [
            "stripe.api_key = {v}",
            "password: {v}",
            "webhook: {v}",
            "token del bot: {v} (inyectado en el pipeline)",
        ],
    )
    add(
        B,
        "vault_path",
        lambda: r.choice(
            [
                "secret/data/cage/vault-combo",
                "kv/surveillance/nvr-03/admin",
                "secret/hotel/opera/interface",
                "kv/slot/cms/sa_rpt",
                "secret/loyalty/partner-keys/airline",
            ]
        ),
        [
            "the password is in Vault at {v}",
            "vault kv get {v}",
            "la contraseña está en {v}, pedir acceso a seguridad informática",
            "密碼存放在 Vault 路徑 {v}",
        ],
    )
    add(
        B,
        "masked_secret",
        lambda: (
            r.choice(["sk_live_", "ghp_", "xoxb-", "SG."]) + "*" * r.randrange(8, 20) + s(ALNUM, 4)
        ),
        [
            "the leaked key was {v}, already rolled",
            "dashboard shows key {v}",
            "clave enmascarada en el log: {v}",
        ],
    )
    add(
        B,
        "redacted_value",
        lambda: r.choice(["[REDACTED]", "<redacted>", "***", "[masked]"]),
        [
            "password={v} user=cms_report host=slotcms-sql01",
            "Authorization: Bearer {v}",
            "combinação do cofre: {v} (ver envelope selado no cofre do gerente)",
            "PIN: {v}",
        ],
    )
    add(
        B,
        "revoked_key",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "REVOKED 2026-11-30: {v} was pushed to the kiosk repo by mistake, token deleted in GitHub and audit log checked",
            "old PAT {v} is revoked (rotation ticket SLOT-2231), keep for grep in logs only",
            "token revocado, ya no funciona: {v}",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
        [
            "add to authorized_keys on the NVR jump host: {v} jlee@surv-ws12",
            "chave pública do técnico do fornecedor: {v}",
            "{v} deploy@ci-runner-02",
        ],
    )
    add(
        B,
        "x509_certificate",
        lambda: pem("CERTIFICATE", 7),
        [
            "kiosk TLS cert (public part) for the pinning config:\n{v}",
            "root CA of the slot vendor's remote support gateway:\n{v}",
            "certificado público del servidor de Opera:\n{v}",
        ],
    )
    add(
        B,
        "pgp_fingerprint",
        lambda: " ".join(s("0123456789ABCDEF", 4) for _ in range(10)),
        [
            "encrypt the CTR exports to compliance key, fingerprint {v}",
            "huella de la clave PGP del regulador: {v}",
            "regulator's public key fingerprint: {v}",
        ],
    )
    add(
        B,
        "cert_thumbprint",
        lambda: s("0123456789ABCDEF", 40),
        [
            "Thumbprint={v} (IIS binding on cms-web01)",
            "cert thumbprint for the Opera interface: {v}",
            "指紋 {v} 的證書下月到期",
        ],
    )
    add(
        B,
        "mac_address",
        lambda: ":".join(s("0123456789abcdef", 2) for _ in range(6)),
        [
            "camera 214 MAC {v}, reserve DHCP",
            "kiosk K-07 NIC {v}",
            "dirección MAC del lector de tarjetas: {v}",
        ],
    )
    add(
        B,
        "private_ip_address",
        lambda: f"10.{r.randrange(1, 250)}.{r.randrange(1, 250)}.{r.randrange(2, 250)}",
        [
            "NVR-03 lives at {v}",
            "SMIB gateway for bank C12: {v}",
            "servidor de conteo en {v}",
        ],
    )
    add(
        B,
        "twilio_account_sid",
        lambda: "AC" + s(HEX, 32),
        [
            "TWILIO_ACCOUNT_SID={v}",
            "Twilio account for loyalty SMS is {v} (the token is in Vault)",
            "SID da conta Twilio: {v}",
        ],
    )
    add(
        B,
        "aws_account_id",
        lambda: s(DIG, 12),
        [
            "surveillance archive lives in AWS account {v}",
            "cuenta AWS de producción: {v}",
            "assume role into {v} for the cage recon lambdas",
        ],
    )
    add(
        B,
        "aws_role_arn",
        lambda: (
            f"arn:aws:iam::{s(DIG, 12)}:role/{r.choice(['surv-archive-writer', 'cage-recon-lambda', 'loyalty-etl'])}"
        ),
        [
            "role_arn = {v}",
            "the CI job assumes {v} via OIDC, no keys",
            "rol de IAM: {v}",
        ],
    )
    add(
        B,
        "slack_channel_id",
        lambda: "C0" + s(UPNUM, 9),
        [
            "post jackpot alerts to channel {v} (#slot-floor)",
            "SLACK_CHANNEL_ID={v}",
            "canal de alertas de la caja: {v}",
        ],
    )
    add(
        B,
        "ga_measurement_id",
        lambda: "G-" + s(UPNUM, 10),
        [
            "GA4 measurement id for the hotel booking site: {v}",
            "gtag('config', '{v}');",
            "ID de medición de Analytics: {v}",
        ],
    )
    add(
        B,
        "docker_image_digest",
        lambda: "sha256:" + s(HEX, 64),
        [
            "image: registry.casino.local/nvr-analytics@{v}",
            "pinned kiosk-api to digest {v}",
            "digest da imagem em produção: {v}",
        ],
    )
    add(
        B,
        "npm_integrity_hash",
        lambda: "sha512-" + s(B64, 86) + "==",
        [
            '"integrity": "{v}"',
            "lockfile integrity for @casino/player-widgets: {v}",
            "integrity mismatch, expected {v}",
        ],
    )
    add(
        B,
        "gaming_license_number",
        lambda: f"{r.choice(['NGC', 'DICJ', 'MGA/B2C'])}-{s(DIG, 6)}",
        [
            "operator licence {v} must appear on the responsible gaming page",
            "número de licencia de juego: {v}",
            "博彩牌照編號 {v}",
        ],
    )
    add(
        B,
        "game_certification_id",
        lambda: f"{r.choice(['GLI', 'BMM'])}-{s(UPNUM, 2)}-{s(DIG, 6)}-{s(DIG, 2)}",
        [
            "new Dragon Link theme certified under {v}",
            "certificado del juego: {v}, aprobado por la comisión",
            "software id per certification letter: {v}",
        ],
    )
    add(
        B,
        "w2g_form_reference",
        lambda: f"W2G-{r.randrange(2025, 2027)}-{s(DIG, 6)}",
        [
            "hand pay $4,200 on asset 31877, form {v} issued",
            "formulario {v} entregado al cliente",
            "reprint {v} for the guest, tax id checked",
        ],
    )
    add(
        B,
        "count_bag_seal_number",
        lambda: s(DIG, 8),
        [
            "drop bag seal {v} intact on arrival at count room",
            "precinto de la bolsa de recaudación: {v}",
            "lacre do saco de contagem {v} conferido",
            "錢箱封條號 {v}",
        ],
    )
    add(
        B,
        "marker_number",
        lambda: f"M{s(DIG, 6)}",
        [
            "marker {v} redeemed at the cage, front money applied",
            "marcador {v} pendiente de cobro",
            "credit marker {v} for $25,000 signed in the baccarat salon",
        ],
    )
    add(
        B,
        "chip_rfid_tag",
        lambda: "E2" + s("0123456789ABCDEF", 22),
        [
            "RFID chip tag {v} flagged as counterfeit batch",
            "plaque 5000 HKD, tag RFID {v}",
            "籌碼 RFID 標籤 {v} 已註銷",
        ],
    )
    add(
        B,
        "camera_channel_id",
        lambda: f"CAM-{r.choice(['PIT', 'CAGE', 'CNT', 'LOB'])}-{s(DIG, 3)}",
        [
            "pull footage from {v} 02:10-02:40 for the dispute",
            "cámara {v} sin señal desde las 04:00",
            "câmara {v} reposicionada para a mesa 7",
        ],
    )
    add(
        B,
        "employee_badge_number",
        lambda: f"E{s(DIG, 6)}",
        [
            "dealer badge {v} swiped into the count room at 05:12",
            "empleado {v} autorizado para la caja principal",
            "員工編號 {v} 完成反洗錢培訓",
        ],
    )
    add(
        B,
        "password_policy_text",
        lambda: r.choice(
            [
                "minimum 14 characters",
                "at least one digit and one symbol",
                "rotate every 90 days",
                "no reuse of last 12 passwords",
            ]
        ),
        [
            "NVR admin accounts: {v}, enforced by the VMS",
            "política de contraseñas del PMS: {v}",
            "policy for cage system logins: {v}",
        ],
    )
    add(
        B,
        "rotation_schedule",
        lambda: r.choice(
            [
                "every shift change",
                "quarterly",
                "after any staff departure",
                "on the first Monday of each month",
            ]
        ),
        [
            "vault combination is changed {v}, per MICS",
            "el código de la puerta del conteo se cambia {v}",
            "attendant PINs rotate {v}",
        ],
    )
    add(
        B,
        "azure_tenant_id",
        lambda: guid(),
        [
            "AZURE_TENANT_ID={v}",
            "tenant id for the surveillance Entra app: {v}",
            "ID de inquilino de Azure: {v}",
        ],
    )
    add(
        B,
        "oauth_client_id",
        lambda: f"{s(DIG, 12)}-{s(LOW + DIG, 32)}.apps.googleusercontent.com",
        [
            "GOOGLE_CLIENT_ID={v}",
            "Sign in with Google for the player app uses client {v}",
            "client id público del login social: {v}",
        ],
    )
    add(
        B,
        "stripe_object_id",
        lambda: r.choice(["cus_", "pi_", "price_", "ch_"]) + s(ALNUM, 14),
        [
            "refund issued on {v} for the cancelled spa booking",
            "Stripe object {v} disputed by the guest",
            "objeto de Stripe {v} conciliado",
        ],
    )
    add(
        B,
        "jwt_io_example",
        lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "test fixture uses the jwt.io sample token {v}",
            "example from jwt.io docs for the API guide: Authorization: Bearer {v}",
            "token de ejemplo (jwt.io, no es real): {v}",
        ],
    )
    add(
        B,
        "keycard_serial",
        lambda: s("0123456789ABCDEF", 14),
        [
            "lost keycard UID {v} deactivated, room 2214",
            "UID da chave do quarto {v} bloqueado",
            "房卡序號 {v} 已失效",
        ],
    )
    add(
        B,
        "booking_reference",
        lambda: s(UP, 6),
        [
            "convention group block, booking ref {v}",
            "reserva {v} del paquete VIP con vuelo",
            "airline junket booking {v}, 12 pax arriving Friday",
        ],
    )
    add(
        B,
        "eprom_signature",
        lambda: s("0123456789ABCDEF", 8),
        [
            "GAT signature for the base program: {v} (matches the approval letter)",
            "firma Kobetron del programa: {v}",
            "EPROM verified, signature {v}, seal replaced",
        ],
    )
    add(
        B,
        "sas_address",
        lambda: str(r.randrange(1, 127)),
        [
            "SMIB on asset 40112 configured with SAS address {v}",
            "dirección SAS {v}, polling ok",
            "sas_address: {v}",
        ],
    )
    add(
        B,
        "merchant_terminal_id",
        lambda: f"TID {s(DIG, 8)}",
        [
            "front desk card terminal {v}, MID 4445 0012 331",
            "terminal de pago del spa: {v}",
            "POS do bar da piscina {v} reiniciado",
        ],
    )
    add(
        B,
        "secret_name_only",
        lambda: r.choice(
            [
                "CAGE_VAULT_COMBO",
                "NVR_ADMIN_PASSWORD",
                "STRIPE_SECRET_KEY",
                "OPERA_INTERFACE_PASSWORD",
            ]
        ),
        [
            "we need a new secret {v} in the pipeline before Friday",
            "rename {v} in Vault, old name is deprecated",
            "falta definir la variable {v} en el entorno de staging",
        ],
    )

    # ---------------------------------------------------------------- more phrasings
    add(
        S,
        "github_pat",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "token do GitHub que o agente usou no CI dos quiosques: {v}",
        ],
    )
    add(
        S,
        "npm_token",
        lambda: "npm_" + s(ALNUM, 36),
        [
            '{"npmAuthToken": "{v}", "registry": "https://registry.npmjs.org/"}',
        ],
    )
    add(
        S,
        "docker_hub_pat",
        lambda: "dckr_pat_" + s(B64URL, 27),
        [
            "token de Docker Hub para el runner del conteo: {v}",
        ],
    )
    add(
        S,
        "teams_webhook_url",
        lambda: (
            f"https://casinogroup.webhook.office.com/webhookb2/{guid()}@{guid()}/IncomingWebhook/{s(HEX, 32)}/{guid()}/V2{s(B64URL, 43)}"
        ),
        [
            "Invoke-RestMethod -Method Post -Uri '{v}' -Body $card -ContentType 'application/json'",
        ],
    )
    add(
        S,
        "telegram_bot_token",
        lambda: f"{r.randrange(5000000000, 7999999999)}:AA{s(B64URL, 33)}",
        [
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001234 -d text='mesa 7 abierta'",
        ],
    )
    add(
        S,
        "adyen_api_key",
        lambda: "AQE" + s(B64, 57) + "==-" + s(B64, 43) + "=-" + s(ALNUM + "%;{}", 16),
        [
            "clave API de Adyen (terminales de la recepción): {v}",
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        [
            "clé SendGrid pour les e-mails de confirmation de chambre : {v}",
        ],
    )
    add(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + s(B64URL, 74) + "T3BlbkFJ" + s(B64URL, 74),
        [
            "监控事件摘要用的 OpenAI key:{v}",
        ],
    )
    add(
        S,
        "google_api_key",
        lambda: "AIza" + s(B64URL, 35),
        [
            "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=Cotai&key={v}'",
        ],
    )
    add(
        S,
        "datadog_api_key",
        lambda: s(HEX, 32),
        [
            "helm upgrade datadog datadog/datadog --set datadog.apiKey={v}",
        ],
    )
    add(
        S,
        "redis_url",
        lambda: f"rediss://default:{s(ALNUM, 32)}@redis-jackpot.floor.internal:6380",
        [
            "fila de eventos de jackpot: {v}",
        ],
    )
    add(
        S,
        "count_room_door_code",
        lambda: s(DIG, 6) + "#",
        [
            "night shift: hard count door code changed to {v}, old one stops working at 06:00",
        ],
    )
    add(
        S,
        "keycard_encoder_code",
        lambda: s(DIG, 8),
        [
            "房卡編碼器主密碼 {v}",
        ],
    )
    add(
        S,
        "vpn_preshared_key",
        lambda: s(ALNUM, 32),
        [
            "chave pré-partilhada da VPN com o fornecedor de slots: {v}",
        ],
    )
    add(
        S,
        "ldap_bind_password",
        lambda: s(ALNUM + "!$%", 20),
        [
            "contraseña de la cuenta de servicio LDAP del PMS: {v}",
        ],
    )

    add(
        B,
        "git_commit_sha",
        lambda: s(HEX, 7),
        [
            "hotfix {v} cherry-picked onto release/kiosk-2.14",
        ],
    )
    add(
        B,
        "request_uuid",
        lambda: guid(),
        [
            '{"event": "door_open", "asset": 31877, "event_id": "{v}"}',
        ],
    )
    add(
        B,
        "egm_serial_number",
        lambda: f"{r.choice(['IGT', 'ARI', 'KON', 'LNW'])}{s(DIG, 9)}",
        [
            "| bank | asset | serial |\n| C12 | 31877 | {v} |",
        ],
    )
    add(
        B,
        "hotel_confirmation_number",
        lambda: s(DIG, 9),
        [
            "guest called about confirmation {v}, early check-in approved",
        ],
    )
    add(
        B,
        "folio_number",
        lambda: f"F{s(DIG, 7)}",
        [
            "cargo duplicado en el folio {v}",
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_51" + s(ALNUM, 97),
        [
            "chave publicável do Stripe para a página de reservas: {v}",
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        lambda: "6L" + s(B64URL, 38),
        [
            '{"recaptcha": {"siteKey": "{v}"}}',
        ],
    )
    add(
        B,
        "masked_secret",
        lambda: "AKIA" + "*" * 12 + s(UPNUM, 4),
        [
            "CloudTrail shows calls from key {v} at 03:12, owner svc-surv-export",
        ],
    )
    add(
        B,
        "revoked_key",
        lambda: "xoxb-" + s(DIG, 12) + "-" + s(DIG, 13) + "-" + s(ALNUM, 24),
        [
            "old jackpot bot token {v} was revoked when we reinstalled the app (see SLOT-1904)",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + s(B64, 200),
        [
            "authorized_keys entry for the count room backup:\n{v} backup@cnt-srv01",
        ],
    )
    add(
        B,
        "x509_certificate",
        lambda: pem("CERTIFICATE", 6),
        [
            "  ca_cert: |\n{v}",
        ],
    )
    add(
        B,
        "mac_address",
        lambda: "-".join(s("0123456789ABCDEF", 2) for _ in range(6)),
        [
            "SMIB on asset 40112 physical address {v}",
        ],
    )
    add(
        B,
        "private_ip_address",
        lambda: f"192.168.{r.randrange(1, 250)}.{r.randrange(2, 250)}",
        [
            "監控工作站 IP {v}",
        ],
    )
    add(
        B,
        "aws_role_arn",
        lambda: f"arn:aws:iam::{s(DIG, 12)}:role/kiosk-deployer",
        [
            '{"Effect": "Allow", "Principal": {"AWS": "{v}"}, "Action": "sts:AssumeRole"}',
        ],
    )
    add(
        B,
        "docker_image_digest",
        lambda: "sha256:" + s(HEX, 64),
        [
            "docker pull ghcr.io/floor-systems/smib-gateway@{v}",
        ],
    )
    add(
        B,
        "gaming_license_number",
        lambda: f"DICJ-{s(DIG, 6)}",
        [
            "licença de jogo {v} renovada até 2032",
        ],
    )
    add(
        B,
        "marker_number",
        lambda: f"M{s(DIG, 6)}",
        [
            "借據號 {v} 已於貴賓廳結清",
        ],
    )
    add(
        B,
        "camera_channel_id",
        lambda: f"CAM-{r.choice(['PIT', 'CAGE', 'CNT', 'LOB'])}-{s(DIG, 3)}",
        [
            "| incident | camera | time |\n| SURV-3312 | {v} | 02:14 |",
        ],
    )
    add(
        B,
        "employee_badge_number",
        lambda: f"E{s(DIG, 6)}",
        [
            "badge {v} revoked, employee terminated; escort off property",
        ],
    )
    add(
        B,
        "azure_tenant_id",
        lambda: guid(),
        [
            "az login --tenant {v} --use-device-code",
        ],
    )
    add(
        B,
        "oauth_client_id",
        lambda: f"{s(DIG, 12)}-{s(LOW + DIG, 32)}.apps.googleusercontent.com",
        [
            '<meta name="google-signin-client_id" content="{v}">',
        ],
    )
    add(
        B,
        "keycard_serial",
        lambda: s("0123456789ABCDEF", 14),
        [
            "2026-12-06T23:41:07Z lock=2214 card_uid={v} result=DENIED reason=expired",
        ],
    )
    add(
        B,
        "eprom_signature",
        lambda: s("0123456789ABCDEF", 8),
        [
            "遊戲程式簽名 {v} 與核准文件相符",
        ],
    )
    add(
        B,
        "sas_address",
        lambda: str(r.randrange(1, 127)),
        [
            "endereço SAS {v} duplicado na ilha 4, corrigido",
        ],
    )
    add(
        B,
        "w2g_form_reference",
        lambda: f"W2G-{r.randrange(2025, 2027)}-{s(DIG, 6)}",
        [
            '{"handpay_id": 88213, "amount": 1250.00, "w2g": "{v}"}',
        ],
    )
    add(
        B,
        "secret_name_only",
        lambda: "SLACK_WEBHOOK_URL",
        [
            "gh secret set {v} --repo floor-systems/slot-cms-bridge",
        ],
    )
    add(
        B,
        "password_policy_text",
        lambda: "PINs must be 6 digits and not sequential",
        [
            "política de PIN dos atendentes de slots: {v}",
        ],
    )

    for row in rows:
        assert row["value"] in row["text"], row
    return rows


def main() -> None:
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

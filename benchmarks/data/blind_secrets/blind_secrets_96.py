# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 96: public aquarium and zoo operations.

Brief: notes, handover lines, chat messages, commands, config lines, YAML, JSON,
URLs, tables and log lines kept by the IT, life support, animal care, veterinary,
visitor services and night security teams of a public aquarium and zoo, and by
their AI coding agents. Systems: life support system (LSS) PLCs and HMIs, ozone
and ORP controllers, animal records software, ticketing and membership, payment
providers, veterinary imaging and anaesthesia devices, keeper radios and desk
phones, gate keypads, alarm panels and CCTV, plus the generic developer stack.
Notes are written in English, Brazilian Portuguese and Malay.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_96.py [out.jsonl]

Kinds, secret: aws_secret_key, github_pat, gitlab_pat, slack_bot_token,
slack_webhook, teams_webhook, discord_webhook, stripe_secret_key,
stripe_webhook_secret, twilio_auth_token, sendgrid_key, google_api_key,
postgres_url, mongodb_url, redis_url, mysql_password, ssh_private_key,
gcp_service_account_key, azure_storage_conn, jwt_secret, telegram_bot_token,
mailgun_key, datadog_api_key, npm_token, pypi_token, mercadopago_token,
pagseguro_token, billplz_secret, ipay88_merchant_key, whatsapp_cloud_token,
lss_plc_password, ozone_controller_password, animal_records_api_key,
ticketing_api_secret, membership_crm_password, vet_device_password,
radio_programming_password, voicemail_pin, sip_password, gate_keypad_code,
alarm_disarm_code, duress_code, nvr_admin_password, wifi_psk,
recovery_codes, shared_login_password, backup_encryption_passphrase.

Kinds, benign: aws_example_key, aws_access_key_id_masked, stripe_publishable_key,
stripe_customer_id, recaptcha_site_key, twilio_account_sid, git_commit_sha,
sha256_digest, docker_image_digest, uuid, bcrypt_hash, ssh_public_key,
cert_fingerprint, pem_certificate, env_var_reference, vault_path,
onepassword_reference, placeholder, masked_secret, revoked_key,
redacted_log, build_version, jira_key, animal_accession_number,
studbook_number, microchip_number, ticket_booking_ref, membership_number,
tank_id, plc_serial_number, mac_address, ip_address, radio_id, phone_extension,
sip_username, gate_id, camera_id, password_policy, code_rotation_policy,
cnpj, pix_key_email, ssm_registration, invoice_number, purchase_order,
drug_lot_number, water_quality_reading, modbus_register, bacnet_device_id,
radio_frequency, ga_measurement_id, mapbox_public_token, aws_arn,
k8s_secret_name, cve_id, slack_channel_id, iban_like_account.
"""

import json
import random
import string
import sys

SEED = 9696

ALNUM = string.ascii_letters + string.digits
UPPER_DIG = string.ascii_uppercase + string.digits
LOWER_DIG = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def s(chars, n):
        return "".join(rng.choice(chars) for _ in range(n))

    def digits(n):
        return "".join(rng.choice(string.digits) for _ in range(n))

    words = [
        "Tubarao",
        "Pinguim",
        "Penyu",
        "Harimau",
        "Lontra",
        "Arraia",
        "Jacare",
        "Gajah",
        "Coral",
        "Manatee",
        "Otter",
        "Stingray",
        "Orangutan",
        "Kuda",
        "Tartaruga",
        "Beruang",
        "Seahorse",
        "Jellyfish",
        "Capivara",
        "Ikan",
    ]
    syms = "!@#$%&*_."

    def human_pw():
        w1 = rng.choice(words)
        form = rng.randrange(4)
        if form == 0:
            return f"{w1}{rng.choice(syms)}{rng.randrange(2019, 2027)}"
        if form == 1:
            return f"{w1}{rng.choice(words).lower()}{digits(2)}{rng.choice(syms)}"
        if form == 2:
            return f"{rng.choice(syms)}{w1}{digits(3)}{rng.choice(words)[:3]}"
        return f"{w1.lower()}-{rng.choice(words).lower()}-{digits(2)}{rng.choice(syms)}"

    def pem_body(lines):
        return "\n".join(s(B64, 64) for _ in range(lines))

    gen = {
        # ---------------- secrets ----------------
        "aws_secret_key": lambda: s(ALNUM + "/+", 40),
        "github_pat": lambda: "ghp_" + s(ALNUM, 36),
        "gitlab_pat": lambda: "glpat-" + s(ALNUM + "-_", 20),
        "slack_bot_token": lambda: f"xoxb-{digits(12)}-{digits(13)}-{s(ALNUM, 24)}",
        "slack_webhook": lambda: (
            f"https://hooks.slack.com/services/T{s(UPPER_DIG, 10)}/B{s(UPPER_DIG, 10)}/{s(ALNUM, 24)}"
        ),
        "teams_webhook": lambda: (
            f"https://aquazoo.webhook.office.com/webhookb2/{s(HEX, 8)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 12)}@{s(HEX, 8)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 12)}/IncomingWebhook/{s(HEX, 32)}/{s(HEX, 8)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 12)}/V2{s(ALNUM, 43)}"
        ),
        "discord_webhook": lambda: (
            f"https://discord.com/api/webhooks/{digits(19)}/{s(ALNUM + '-_', 68)}"
        ),
        "stripe_secret_key": lambda: "sk_live_" + s(ALNUM, 99 if rng.random() < 0.5 else 24),
        "stripe_webhook_secret": lambda: "whsec_" + s(ALNUM, 32),
        "twilio_auth_token": lambda: s(HEX, 32),
        "sendgrid_key": lambda: f"SG.{s(ALNUM + '-_', 22)}.{s(ALNUM + '-_', 43)}",
        "google_api_key": lambda: "AIza" + s(ALNUM + "-_", 35),
        "postgres_url": lambda: (
            f"postgresql://zims_sync:{human_pw()}@db-animals.internal:5432/animal_records"
        ),
        "mongodb_url": lambda: (
            f"mongodb+srv://ticketing_app:{s(ALNUM, 16)}@cluster0.{s(LOWER_DIG, 5)}.mongodb.net/tickets?retryWrites=true&w=majority"
        ),
        "redis_url": lambda: f"redis://:{s(ALNUM, 28)}@cache-01.aquazoo.local:6379/2",
        "mysql_password": lambda: human_pw(),
        "ssh_private_key": lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + pem_body(5)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        "gcp_service_account_key": lambda: (
            "-----BEGIN PRIVATE KEY-----\\n"
            + s(B64, 64)
            + "\\n"
            + s(B64, 64)
            + "\\n"
            + s(B64, 40)
            + "=\\n-----END PRIVATE KEY-----\\n"
        ),
        "azure_storage_conn": lambda: (
            f"DefaultEndpointsProtocol=https;AccountName=aquazoomedia;AccountKey={s(B64, 86)}==;EndpointSuffix=core.windows.net"
        ),
        "jwt_secret": lambda: s(ALNUM, 48),
        "telegram_bot_token": lambda: f"{digits(10)}:AA{s(ALNUM + '-_', 33)}",
        "mailgun_key": lambda: "key-" + s(HEX, 32),
        "datadog_api_key": lambda: s(HEX, 32),
        "npm_token": lambda: "npm_" + s(ALNUM, 36),
        "pypi_token": lambda: "pypi-AgEIcHlwaS5vcmcCJD" + s(ALNUM + "-_", 60),
        "mercadopago_token": lambda: f"APP_USR-{digits(16)}-{digits(6)}-{s(HEX, 32)}-{digits(9)}",
        "pagseguro_token": lambda: s(UPPER_DIG, 32),
        "billplz_secret": lambda: f"{s(HEX, 8)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 4)}-{s(HEX, 12)}",
        "ipay88_merchant_key": lambda: s(ALNUM, 10),
        "whatsapp_cloud_token": lambda: "EAAG" + s(ALNUM, 180),
        "lss_plc_password": lambda: human_pw(),
        "ozone_controller_password": lambda: human_pw(),
        "animal_records_api_key": lambda: "zak_live_" + s(LOWER_DIG, 40),
        "ticketing_api_secret": lambda: s(ALNUM, 40),
        "membership_crm_password": lambda: human_pw(),
        "vet_device_password": lambda: human_pw(),
        "radio_programming_password": lambda: s(UPPER_DIG, 8),
        "voicemail_pin": lambda: digits(rng.choice([4, 6])),
        "sip_password": lambda: s(ALNUM, 16),
        "gate_keypad_code": lambda: digits(rng.choice([4, 5, 6])) + rng.choice(["", "#"]),
        "alarm_disarm_code": lambda: digits(4),
        "duress_code": lambda: digits(4),
        "nvr_admin_password": lambda: human_pw(),
        "wifi_psk": lambda: human_pw() + digits(2),
        "recovery_codes": lambda: " ".join(
            f"{s(LOWER_DIG, 5)}-{s(LOWER_DIG, 5)}" for _ in range(4)
        ),
        "shared_login_password": lambda: human_pw(),
        "backup_encryption_passphrase": lambda: " ".join(
            rng.choice(
                [
                    "mangrove",
                    "kelp",
                    "lagoa",
                    "hujan",
                    "pasir",
                    "recife",
                    "lumba",
                    "ombak",
                    "capim",
                    "nenas",
                    "seluang",
                    "maré",
                ]
            )
            for _ in range(5)
        ),
        # ---------------- benign ----------------
        "aws_example_key": lambda: rng.choice(
            ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]
        ),
        "aws_access_key_id_masked": lambda: "AKIA" + "*" * 12 + s(UPPER_DIG, 4),
        "stripe_publishable_key": lambda: "pk_live_" + s(ALNUM, 99),
        "stripe_customer_id": lambda: "cus_" + s(ALNUM, 14),
        "recaptcha_site_key": lambda: "6L" + s(ALNUM + "-_", 38),
        "twilio_account_sid": lambda: "AC" + s(HEX, 32),
        "git_commit_sha": lambda: s(HEX, 40),
        "sha256_digest": lambda: s(HEX, 64),
        "docker_image_digest": lambda: "sha256:" + s(HEX, 64),
        "uuid": lambda: (
            f"{s(HEX, 8)}-{s(HEX, 4)}-4{s(HEX, 3)}-{rng.choice('89ab')}{s(HEX, 3)}-{s(HEX, 12)}"
        ),
        "bcrypt_hash": lambda: "$2b$12$" + s(ALNUM + "./", 53),
        "ssh_public_key": lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(ALNUM + "+/", 43),
        "cert_fingerprint": lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(32)),
        "pem_certificate": lambda: (
            "-----BEGIN CERTIFICATE-----\n" + pem_body(4) + "\n-----END CERTIFICATE-----"
        ),
        "env_var_reference": lambda: rng.choice(
            [
                "${STRIPE_SECRET_KEY}",
                "$ZIMS_API_KEY",
                "${{ secrets.TICKETING_API_SECRET }}",
                "%LSS_HMI_PASSWORD%",
                "os.environ['NVR_ADMIN_PASSWORD']",
            ]
        ),
        "vault_path": lambda: rng.choice(
            [
                "secret/data/lss/plc-hall-b",
                "kv/aquazoo/ticketing/prod",
                "secret/data/security/nvr-main",
                "kv/vet/xray-console",
            ]
        ),
        "onepassword_reference": lambda: rng.choice(
            [
                "op://Night-Security/Alarm Panel/disarm code",
                "op://LSS/Ozone Controller Hall A/password",
                "op://Visitor Services/Ticketing API/credential",
            ]
        ),
        "placeholder": lambda: rng.choice(
            [
                "<YOUR_API_KEY>",
                "changeme",
                "xxxxxxxxxxxxxxxx",
                "REPLACE_ME",
                "<senha-aqui>",
                "********",
                "TODO_SET_IN_VAULT",
            ]
        ),
        "masked_secret": lambda: rng.choice(
            [
                "sk_live_" + "•" * 8 + s(ALNUM, 4),
                "ghp_****************************" + s(ALNUM, 4),
                "xoxb-****-****-" + s(ALNUM, 4),
            ]
        ),
        "revoked_key": lambda: "sk_live_" + s(ALNUM, 24),
        "redacted_log": lambda: "[REDACTED]",
        "build_version": lambda: (
            f"{rng.randrange(1, 9)}.{rng.randrange(0, 30)}.{rng.randrange(0, 200)}+build.{digits(4)}"
        ),
        "jira_key": lambda: (
            f"{rng.choice(['LSS', 'VET', 'TIX', 'SEC', 'ITOPS'])}-{rng.randrange(100, 4000)}"
        ),
        "animal_accession_number": lambda: f"A{rng.randrange(18, 27)}{digits(4)}",
        "studbook_number": lambda: f"SB{digits(4)}",
        "microchip_number": lambda: "900" + digits(12),
        "ticket_booking_ref": lambda: f"AQZ-{s(UPPER_DIG, 6)}",
        "membership_number": lambda: f"M{digits(8)}",
        "tank_id": lambda: (
            f"{rng.choice(['EXH', 'QT', 'HOLD'])}-{rng.randrange(1, 60):02d}{rng.choice('ABC')}"
        ),
        "plc_serial_number": lambda: f"SC-{s(UPPER_DIG, 8)}",
        "mac_address": lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(6)),
        "ip_address": lambda: (
            f"10.{rng.randrange(10, 60)}.{rng.randrange(0, 255)}.{rng.randrange(2, 250)}"
        ),
        "radio_id": lambda: digits(7),
        "phone_extension": lambda: "ext " + digits(4),
        "sip_username": lambda: f"{rng.randrange(2000, 2999)}",
        "gate_id": lambda: f"GATE-{rng.choice(['N', 'S', 'SVC', 'STAFF'])}{rng.randrange(1, 9)}",
        "camera_id": lambda: f"CAM-{rng.randrange(1, 250):03d}",
        "password_policy": lambda: "minimum 14 characters, rotated every 90 days",
        "code_rotation_policy": lambda: "keypad codes rotate on the 1st of each month",
        "cnpj": lambda: f"{digits(2)}.{digits(3)}.{digits(3)}/0001-{digits(2)}",
        "pix_key_email": lambda: "financeiro@aquazoo.org.br",
        "ssm_registration": lambda: (
            f"20{rng.randrange(10, 24)}01{digits(6)} ({digits(6)}-{rng.choice('ADKPTUVW')})"
        ),
        "invoice_number": lambda: f"INV-{rng.randrange(2025, 2027)}-{digits(5)}",
        "purchase_order": lambda: f"PO{digits(7)}",
        "drug_lot_number": lambda: f"{s(string.ascii_uppercase, 2)}{digits(5)}",
        "water_quality_reading": lambda: f"{rng.randrange(280, 420)}",
        "modbus_register": lambda: f"4{digits(4)}",
        "bacnet_device_id": lambda: digits(6),
        "radio_frequency": lambda: f"{rng.randrange(450, 470)}.{digits(4)}",
        "ga_measurement_id": lambda: "G-" + s(UPPER_DIG, 10),
        "mapbox_public_token": lambda: (
            "pk.eyJ1IjoiYXF1YXpvbyIsImEiOiJj" + s(ALNUM, 30) + "." + s(ALNUM + "-_", 22)
        ),
        "aws_arn": lambda: (
            f"arn:aws:secretsmanager:ap-southeast-1:{digits(12)}:secret:prod/ticketing/api-{s(ALNUM, 6)}"
        ),
        "k8s_secret_name": lambda: rng.choice(
            ["ticketing-api-credentials", "zims-sync-db", "nvr-bridge-secret"]
        ),
        "cve_id": lambda: f"CVE-{rng.randrange(2021, 2027)}-{rng.randrange(1000, 49999)}",
        "slack_channel_id": lambda: "C" + s(UPPER_DIG, 10),
        "iban_like_account": lambda: f"{digits(4)}-{digits(1)} / {digits(8)}-{digits(1)}",
    }

    T = {
        # ================= SECRET =================
        "aws_secret_key": [
            "aws configure set aws_secret_access_key {v} --profile aquazoo-media",
            "AWS_SECRET_ACCESS_KEY={v}",
            "Handover: the S3 bucket for the jellyfish cam archive uses key AKIA{a} with secret {v}, rotate after the festival.",
            "[default]\naws_access_key_id = AKIA{a}\naws_secret_access_key = {v}",
            "Chave secreta da AWS para o backup das fotos dos animais: {v} (não commitar!)",
        ],
        "github_pat": [
            "git clone https://{v}@github.com/aquazoo/lss-dashboard.git",
            "GH_TOKEN={v}",
            "Token GitHub untuk repo ticketing-kiosk: {v} - tamat tempoh 30 hari.",
            "agent memory: used personal access token {v} to open the PR on animal-records-sync",
        ],
        "gitlab_pat": [
            "export GITLAB_TOKEN={v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.aquazoo.org/api/v4/projects/12/pipelines',
            "Token do GitLab do Bruno pro pipeline do app de ingressos: {v}",
        ],
        "slack_bot_token": [
            "SLACK_BOT_TOKEN={v}",
            "The #lss-alarms bot posts with {v}; it needs chat:write on the night channel.",
            'slack:\n  bot_token: "{v}"\n  channel: lss-alarms',
            "Token bot Slack untuk amaran suhu tangki: {v}",
        ],
        "slack_webhook": [
            "ALERT_WEBHOOK_URL={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"ORP low in EXH-12B\"}' {v}",
            "Webhook do canal #vet-plantao: {v}",
            "notify:\n  slack: {v}",
        ],
        "teams_webhook": [
            "Teams connector for Visitor Services channel: {v}",
            "TEAMS_WEBHOOK={v}",
            "URL webhook Teams untuk kumpulan keselamatan malam: {v}",
        ],
        "discord_webhook": [
            "volunteer discord webhook (docent schedule bot): {v}",
            'DISCORD_WEBHOOK_URL="{v}"',
            "Webhook do Discord dos voluntários: {v} — só o Lucas pode mexer",
        ],
        "stripe_secret_key": [
            "STRIPE_SECRET_KEY={v}",
            'stripe.api_key = "{v}"  # membership renewals, prod',
            "Chave secreta Stripe da loja online (adoção simbólica de animais): {v}",
            "curl https://api.stripe.com/v1/refunds -u {v}: -d charge=ch_{a}",
            "Kunci rahsia Stripe untuk tiket dalam talian: {v}",
        ],
        "stripe_webhook_secret": [
            "STRIPE_WEBHOOK_SECRET={v}",
            "endpoint /hooks/stripe signing secret is {v} (membership renewals)",
            "Segredo de assinatura do webhook Stripe: {v}",
        ],
        "twilio_auth_token": [
            "TWILIO_AUTH_TOKEN={v}",
            "keeper SMS paging: account AC{h} auth token {v}",
            "twilio:\n  account_sid: AC{h}\n  auth_token: {v}",
            "Token auth Twilio untuk SMS penjaga haiwan: {v}",
        ],
        "sendgrid_key": [
            "SENDGRID_API_KEY={v}",
            "Membership renewal emails go out via SendGrid key {v}",
            "Chave do SendGrid para os e-mails de ingresso: {v}",
            "sendgrid:\n  api_key: {v}\n  from: tickets@aquazoo.org",
        ],
        "google_api_key": [
            "GOOGLE_MAPS_SERVER_KEY={v}  # server-side geocoding for school bookings, unrestricted",
            "Kunci API Google (server, tidak dihadkan) untuk peta laluan trem: {v}",
            'curl "https://translation.googleapis.com/language/translate/v2?key={v}" -d q=Penguin',
        ],
        "postgres_url": [
            "DATABASE_URL={v}",
            "psql \"{v}\" -c 'select count(*) from specimens'",
            "String de conexão do banco de registros de animais: {v}",
            "sqlalchemy.url = {v}",
            "Sambungan pangkalan data rekod haiwan: {v}",
        ],
        "mongodb_url": [
            "MONGO_URI={v}",
            "ticketing kiosk sync uses {v}",
            'mongosh "{v}"',
        ],
        "redis_url": [
            "REDIS_URL={v}",
            "Cache de sessão do app de ingressos: {v}",
            "celery broker for the LSS telemetry worker: {v}",
        ],
        "mysql_password": [
            "mysql -h 10.20.4.15 -u membership -p'{v}' members_prod",
            "MYSQL_ROOT_PASSWORD={v}",
            "Senha do MySQL do sistema de sócios: {v}",
            "Kata laluan root MySQL pelayan keahlian: {v}",
        ],
        "ssh_private_key": [
            "deploy key for the LSS historian box:\n{v}",
            "Chave privada do servidor de câmeras (copiar pra ~/.ssh/id_nvr):\n{v}",
            "cat > ~/.ssh/id_ed25519 <<'KEY'\n{v}\nKEY",
        ],
        "gcp_service_account_key": [
            '{"type": "service_account", "project_id": "aquazoo-analytics", "private_key_id": "{h}", "private_key": "{v}", "client_email": "bq-loader@aquazoo-analytics.iam.gserviceaccount.com"}',
            'GCP_SA_PRIVATE_KEY="{v}"',
        ],
        "azure_storage_conn": [
            'AZURE_STORAGE_CONNECTION_STRING="{v}"',
            "The keeper photo uploads land in blob storage: {v}",
            "Connection string do Azure (fotos dos tratadores): {v}",
        ],
        "jwt_secret": [
            "JWT_SECRET={v}",
            "membership app signs sessions with HS256 secret {v}",
            'auth:\n  jwt_secret: "{v}"\n  ttl: 3600',
            "Rahsia JWT untuk aplikasi ahli: {v}",
        ],
        "telegram_bot_token": [
            "TELEGRAM_BOT_TOKEN={v}",
            "Bot Telegram dos tratadores do setor de répteis: {v}",
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100{d} -d text='Gate N2 open'",
            "Token bot Telegram untuk kumpulan penjaga: {v}",
        ],
        "mailgun_key": [
            "MAILGUN_API_KEY={v}",
            "curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.aquazoo.org/messages",
            "mailgun key for school booking confirmations: {v}",
        ],
        "datadog_api_key": [
            "DD_API_KEY={v}",
            "datadog agent on the LSS gateway: api_key: {v}",
            "Chave API do Datadog (monitoramento das bombas): {v}",
        ],
        "npm_token": [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "Token npm untuk pakej peta interaktif: {v}",
        ],
        "pypi_token": [
            "[pypi]\n  username = __token__\n  password = {v}",
            "twine upload dist/* -u __token__ -p {v}",
        ],
        "mercadopago_token": [
            "MP_ACCESS_TOKEN={v}",
            "Access token de produção do Mercado Pago (bilheteria online): {v}",
            "mercadopago:\n  access_token: {v}",
        ],
        "pagseguro_token": [
            "PAGSEGURO_TOKEN={v}",
            "Token PagSeguro da lojinha de souvenirs: {v} (email financeiro@aquazoo.org.br)",
            "https://ws.pagseguro.uol.com.br/v2/transactions?email=financeiro%40aquazoo.org.br&token={v}",
        ],
        "billplz_secret": [
            "BILLPLZ_API_SECRET={v}",
            "Kunci rahsia API Billplz untuk bayaran tiket sekolah: {v}",
            "curl https://www.billplz.com/api/v3/bills -u {v}:",
        ],
        "ipay88_merchant_key": [
            "IPAY88_MERCHANT_KEY={v}",
            "iPay88 merchant code M{d} merchant key {v}",
            "Merchant key iPay88 (kaunter tiket): {v}",
        ],
        "whatsapp_cloud_token": [
            "WHATSAPP_TOKEN={v}",
            "Token permanente da API do WhatsApp (confirmação de ingressos): {v}",
        ],
        "lss_plc_password": [
            "LSS PLC hall B (S7-1500) protection level password: {v}",
            "Senha do CLP do sistema de suporte à vida, salão B: {v}",
            "hmi login for the shark tank skid: operator / {v}",
            "Kata laluan PLC sistem sokongan hayat tangki jerung: {v}",
            "| PLC | user | password |\n| LSS-B | engineer | {v} |",
        ],
        "ozone_controller_password": [
            "Ozone generator web UI (10.30.2.41) admin pass {v}",
            "Controlador de ozônio do tanque oceânico: usuário admin, senha {v}",
            "Pengawal ozon: admin / {v}",
            "ORP/ozone controller: login admin, pwd {v} - do not share with contractors",
        ],
        "animal_records_api_key": [
            "ANIMAL_RECORDS_API_KEY={v}",
            "Records API key for the husbandry sync job: {v}",
            "Chave da API de registros de animais (integração de pesagens): {v}",
            'curl -H "X-Api-Key: {v}" https://records.aquazoo.org/api/v2/specimens?taxon=Spheniscus',
        ],
        "ticketing_api_secret": [
            "TICKETING_CLIENT_SECRET={v}",
            "ticketing vendor OAuth: client_id aquazoo-web, client_secret {v}",
            "Segredo do cliente da API de bilheteria: {v}",
            "Rahsia klien API tiket: {v}",
        ],
        "membership_crm_password": [
            "CRM admin login (members): crm.admin@aquazoo.org / {v}",
            "Senha do CRM de sócios (conta compartilhada da recepção): {v}",
            "membership CRM API user password: {v}",
        ],
        "vet_device_password": [
            "DR x-ray console service login: service / {v}",
            "Senha do aparelho de ultrassom veterinário (modo técnico): {v}",
            "Kata laluan mesin anestesia (menu servis): {v}",
            "vet clinic PACS admin password is {v}",
        ],
        "radio_programming_password": [
            "CPS read/write password for keeper radios: {v}",
            "Senha de programação dos rádios dos tratadores: {v}",
            "Kata laluan pengaturcaraan radio walkie-talkie: {v}",
        ],
        "voicemail_pin": [
            "Vet on-call voicemail PIN: {v}",
            "PIN do correio de voz da bilheteria: {v}",
            "PIN mel suara telefon meja penjaga: {v}",
        ],
        "sip_password": [
            "SIP ext 2104 (reptile house) secret={v}",
            "[2201]\ntype=friend\nsecret={v}\nhost=dynamic",
            "Senha SIP do ramal da clínica: {v}",
            "Kata laluan SIP telefon IP kaunter: {v}",
        ],
        "gate_keypad_code": [
            "Service gate S2 keypad code is {v} this month",
            "Código do portão de serviço (entrada de caminhões): {v}",
            "Kod pintu pagar kakitangan: {v}",
            "handover: staff gate code changed to {v}, tell the early feed team",
            "Portão dos fundos do setor de felinos: código {v}",
        ],
        "alarm_disarm_code": [
            "Alarm panel disarm code (admin building): {v}",
            "Código para desarmar o alarme da clínica: {v}",
            "Kod nyahaktif penggera bilik ubat: {v}",
        ],
        "duress_code": [
            "Night guard duress code: {v} (silent alarm to monitoring centre)",
            "Código de coação do alarme: {v}",
            "Kod paksaan panel penggera: {v}",
        ],
        "nvr_admin_password": [
            "NVR main (CCTV, 64 ch) admin password {v}",
            "Senha do gravador de câmeras (NVR), usuário admin: {v}",
            "Kata laluan admin NVR CCTV: {v}",
            "rtsp://admin:{v}@10.40.1.20:554/Streaming/Channels/101",
        ],
        "wifi_psk": [
            "Wi-Fi AQZ-STAFF password: {v}",
            "Senha do Wi-Fi dos tratadores: {v}",
            'wpa_passphrase="{v}"',
            "Kata laluan WiFi AQZ-KEEPERS: {v}",
        ],
        "recovery_codes": [
            "Recovery codes for it-admin@aquazoo.org: {v}",
            "Códigos de recuperação da conta do Google da bilheteria: {v}",
            "Kod pemulihan akaun admin: {v}",
        ],
        "shared_login_password": [
            "Shared login for the feeding schedule tablet: keepers / {v}",
            "Login compartilhado do quiosque de informações: quiosque / {v}",
            "Log masuk dikongsi tablet pemakanan: penjaga / {v}",
            "night-desk PC shared account pw: {v}",
        ],
        "backup_encryption_passphrase": [
            "restic repo password for the animal records backup: {v}",
            "Frase-senha do backup criptografado (registros veterinários): {v}",
            'RESTIC_PASSWORD="{v}"',
        ],
        # ================= BENIGN =================
        "aws_example_key": [
            "AWS docs example access key id: {v}",
            "Use the documented example {v} in the README, never a real one.",
        ],
        "aws_access_key_id_masked": [
            "IAM console shows key {v} as active for the media uploader.",
            "Chave de acesso (mascarada): {v}",
        ],
        "stripe_publishable_key": [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "<script>const stripe = Stripe('{v}');</script>",
            "Chave publicável Stripe (pode ir no front-end): {v}",
        ],
        "stripe_customer_id": [
            "member refund issue, Stripe customer {v}",
            "Pelanggan Stripe {v} dicaj dua kali untuk tiket keluarga.",
        ],
        "recaptcha_site_key": [
            "reCAPTCHA site key for the booking form: {v}",
            'data-sitekey="{v}"',
            "Chave do site reCAPTCHA (pública): {v}",
        ],
        "twilio_account_sid": [
            "Twilio account SID {v} (not a secret, just the account)",
            "TWILIO_ACCOUNT_SID={v}",
        ],
        "git_commit_sha": [
            "deployed lss-dashboard at {v}",
            "Revert do commit {v} quebrou a tela de pesagens.",
            "Komit {v} membetulkan ralat zon masa tiket.",
        ],
        "sha256_digest": [
            "sha256sum firmware_ozone_v4.2.bin -> {v}",
            "Checksum do instalador do software de registros: {v}",
            "Hash SHA-256 fail sandaran: {v}",
        ],
        "docker_image_digest": [
            "image: ghcr.io/aquazoo/ticketing-api@{v}",
            "pinned kiosk image to {v}",
        ],
        "uuid": [
            "specimen record id {v}",
            "ID da transação de ingresso: {v}",
            "request_id={v} status=200 path=/api/feeding",
        ],
        "bcrypt_hash": [
            "members.password_hash for test user = {v}",
            "Hash bcrypt armazenado (não é a senha): {v}",
        ],
        "ssh_public_key": [
            "authorized_keys on the LSS historian: {v} rafael@lss-laptop",
            "Chave pública SSH do Hafiz para o servidor de câmeras: {v}",
        ],
        "cert_fingerprint": [
            "ticketing API TLS cert SHA-256 fingerprint: {v}",
            "Cap jari sijil portal ahli: {v}",
        ],
        "pem_certificate": [
            "CA cert for the vet PACS (public, ok to commit):\n{v}",
            "Certificado público do portal de sócios:\n{v}",
        ],
        "env_var_reference": [
            "api_key: {v}",
            "A chave vem de {v}, nunca escrever o valor aqui.",
            "password = {v}",
        ],
        "vault_path": [
            "PLC passwords now live at {v}",
            "Kata laluan disimpan di Vault: {v}",
            "vault kv get {v}",
        ],
        "onepassword_reference": [
            "The alarm code is in 1Password: {v}",
            'password: "{v}"',
        ],
        "placeholder": [
            "TICKETING_CLIENT_SECRET={v}",
            "Senha do NVR: {v} (preencher na instalação)",
            "ZIMS_API_KEY={v}",
            "Kata laluan: {v}",
        ],
        "masked_secret": [
            "Stripe dashboard lists the restricted key as {v}",
            "Chave mascarada no log: {v}",
        ],
        "revoked_key": [
            "Old Stripe key {v} was revoked on 2026-11-02 after the kiosk leak; kept here for the incident timeline.",
            "Chave {v} REVOGADA, não funciona mais (incidente SEC-412).",
        ],
        "redacted_log": [
            "2026-12-06T22:14:05Z INFO nvr-bridge login user=admin password={v}",
            "Config dump: gate_code={v} alarm_code=[REDACTED]",
        ],
        "build_version": [
            "kiosk app version {v}",
            "Versão do firmware do controlador: {v}",
            "Versi aplikasi penjaga: {v}",
        ],
        "jira_key": [
            "see {v} for the ORP probe replacement",
            "Tiket {v}: portão S2 não fecha",
            "Rujuk {v} untuk isu radio senyap.",
        ],
        "animal_accession_number": [
            "Accession {v}: female Magellanic penguin, hatched 2021",
            "Número de tombo do animal: {v} (tartaruga-verde)",
            "Nombor aksesi {v} - penyu agar, tangki kuarantin",
        ],
        "studbook_number": [
            "Sumatran tiger studbook {v} transferred in",
            "Número no studbook: {v}",
        ],
        "microchip_number": [
            "transponder {v} read on left shoulder",
            "Microchip do jacaré: {v}",
            "Nombor cip mikro harimau: {v}",
        ],
        "ticket_booking_ref": [
            "School group booking {v}, 42 pupils, Thursday 10:00",
            "Reserva {v} pediu reembolso por chuva.",
            "Tempahan {v} - lawatan sekolah",
        ],
        "membership_number": [
            "member {v} card not scanning at north turnstile",
            "Sócio {v} renovou o plano família.",
            "Ahli {v} minta tukar nama pada kad.",
        ],
        "tank_id": [
            "{v} salinity drifted to 33 ppt overnight",
            "Tanque {v} em quarentena até sexta.",
            "Tangki {v} perlu tukar penapis pasir.",
        ],
        "plc_serial_number": [
            "replacement CPU serial {v} installed in LSS hall B",
            "Número de série do CLP: {v}",
        ],
        "mac_address": [
            "ozone controller MAC {v}, reserve in DHCP",
            "Alamat MAC kamera pintu utara: {v}",
        ],
        "ip_address": [
            "LSS HMI is at {v}",
            "IP do NVR: {v}",
            "IP pengawal ORP: {v}",
        ],
        "radio_id": [
            "keeper radio unit ID {v} (Ana, aquarium team)",
            "ID rádio {v} perdido no setor de aves",
        ],
        "phone_extension": [
            "Vet clinic: {v}",
            "Ramal da bilheteria: {v}",
        ],
        "sip_username": [
            "SIP username {v} registered from reptile house",
            "Nama pengguna SIP: {v}",
        ],
        "gate_id": [
            "{v} failed to latch at 02:13, guard checked",
            "Portão {v} com sensor trocado",
        ],
        "camera_id": [
            "{v} offline since the storm",
            "Kamera {v} menghala ke kolam anjing laut",
        ],
        "password_policy": [
            "Policy for device admin passwords: {v}.",
            "Política: {v} (vale para CLP e NVR também).",
        ],
        "code_rotation_policy": [
            "Security SOP: {v}; new code is given verbally at briefing.",
            "Nota: {v}. Jangan tulis kod dalam kumpulan WhatsApp.",
        ],
        "cnpj": [
            "CNPJ da fundação: {v}",
            "Nota fiscal emitida para CNPJ {v}",
        ],
        "pix_key_email": [
            "Chave PIX para doações: {v}",
            "Pix (e-mail) pro pagamento de eventos: {v}",
        ],
        "ssm_registration": [
            "No. pendaftaran SSM syarikat pembekal makanan ikan: {v}",
            "Vendor SSM registration {v} on the PO",
        ],
        "invoice_number": [
            "Invoice {v} from the ozone vendor overdue",
            "Fatura {v} paga em 05/12",
        ],
        "purchase_order": [
            "Raised {v} for the replacement protein skimmer",
            "Pesanan belian {v} untuk ubat haiwan",
        ],
        "drug_lot_number": [
            "ketamine lot {v}, exp 2027-08",
            "Lote do medicamento: {v}",
        ],
        "water_quality_reading": [
            "EXH-04A ORP reading {v} mV at 06:00",
            "ORP do tanque oceânico: {v} mV",
        ],
        "modbus_register": [
            "Pump VFD speed setpoint is holding register {v}",
            "Registo Modbus untuk suhu: {v}",
        ],
        "bacnet_device_id": [
            "BACnet device instance {v} = chiller 2",
            "Dispositivo BACnet {v} (ar-condicionado do aviário)",
        ],
        "radio_frequency": [
            "Keeper channel 3 on {v} MHz",
            "Frequência do canal de segurança: {v} MHz",
        ],
        "ga_measurement_id": [
            "GA4 measurement ID for tickets site: {v}",
            "gtag('config', '{v}');",
        ],
        "mapbox_public_token": [
            "Mapbox public token for the visitor map (URL-restricted): {v}",
            "Token público do Mapbox (mapa do parque): {v}",
        ],
        "aws_arn": [
            "ticketing secret is fetched from {v}",
            "ARN do segredo: {v}",
        ],
        "k8s_secret_name": [
            "kubectl -n visitor get secret {v} -o yaml  # values stay in the cluster",
            "secretKeyRef:\n  name: {v}\n  key: password",
        ],
        "cve_id": [
            "NVR firmware vulnerable to {v}, patch scheduled",
            "Firmware da catraca afetado pelo {v}",
        ],
        "slack_channel_id": [
            "post LSS alarms to channel {v}",
            "ID saluran Slack keselamatan malam: {v}",
        ],
        "iban_like_account": [
            "Conta bancária da fundação (agência/conta): {v}",
            "Dados bancários para reembolso de grupos: {v}",
        ],
    }

    more = {
        "slack_bot_token": ["Bot Slack do plantão noturno: token {v}"],
        "stripe_secret_key": ['{"stripe": {"secret_key": "{v}", "mode": "live"}}'],
        "postgres_url": ['- name: RECORDS_DB\n  value: "{v}"'],
        "mysql_password": ["membership DB creds for the agent: user=membership_rw password={v}"],
        "lss_plc_password": ["LSS PLC quarantine room password reset today, new one: {v}"],
        "gate_keypad_code": ["Kod pintu belakang kandang gajah: {v} (tukar minggu depan)"],
        "nvr_admin_password": ["ssh admin@10.40.1.21 - password {v} (NVR annex)"],
        "wifi_psk": ['ssid: AQZ-LSS\npsk: "{v}"'],
        "vet_device_password": ["Senha do monitor multiparamétrico (cirurgia): {v}"],
        "sip_password": ["sip:2310@pbx.aquazoo.local password={v}"],
        "shared_login_password": ["Conta compartilhada da loja (PDV): caixa01 / {v}"],
        "telegram_bot_token": ["bot do alarme de nível de água: {v}"],
        "animal_records_api_key": [
            "records:\n  api_key: {v}\n  base_url: https://records.aquazoo.org/api/v2"
        ],
        "ticketing_api_secret": ['{"client_id": "aquazoo-kiosk", "client_secret": "{v}"}'],
        "alarm_disarm_code": [
            "night handover: reptile house alarm code {v}, panel by the back door"
        ],
        "voicemail_pin": ["Curator voicemail box 3301, PIN {v}"],
        "radio_programming_password": [
            "radio clone cable + CPS, password {v} (Hytera keeper fleet)"
        ],
        "ozone_controller_password": ["ozone skid HMI maintenance level login: tech / {v}"],
        "aws_example_key": [
            "aws_access_key_id = {v}  # example from the AWS docs, replace in your profile"
        ],
        "aws_access_key_id_masked": ["Kunci akses AWS (bertopeng) untuk sandaran: {v}"],
        "stripe_publishable_key": ["publishableKey: '{v}'"],
        "stripe_customer_id": [
            "Cliente Stripe {v} com cartão recusado na renovação",
            "customer={v} event=invoice.paid",
        ],
        "recaptcha_site_key": ["Kunci tapak reCAPTCHA borang tempahan: {v}"],
        "twilio_account_sid": ["SID da conta Twilio dos SMS: {v}"],
        "git_commit_sha": ["git checkout {v} -- lss/alarms.yaml"],
        "sha256_digest": ["backup manifest digest {v} matches off-site copy"],
        "docker_image_digest": [
            "Imagem do serviço de pesagens fixada em {v}",
            "Imej kiosk tiket: {v}",
        ],
        "uuid": ["Kod rekod rawatan veterinar: {v}"],
        "bcrypt_hash": ["INSERT INTO staff(login, pw_hash) VALUES ('night.desk', '{v}');"],
        "ssh_public_key": ["Kunci awam SSH untuk pelayan NVR: {v} hafiz@ops"],
        "cert_fingerprint": ["Impressão digital do certificado do PACS: {v}"],
        "pem_certificate": ["Sijil awam pelayan tiket:\n{v}"],
        "env_var_reference": ["Kunci API dibaca dari {v} semasa runtime."],
        "vault_path": ["Senhas do CLP agora no Vault em {v}"],
        "onepassword_reference": ["Código do alarme está no 1Password: {v}"],
        "placeholder": ["SIP_SECRET={v}"],
        "masked_secret": ["Token ditapis dalam log: {v}"],
        "revoked_key": ["Kunci {v} telah dibatalkan selepas insiden kiosk; jangan guna."],
        "redacted_log": ["2026-12-07 03:02:11 WARN gate-ctl S2 keypad code={v} accepted"],
        "build_version": ["HMI project file built {v}"],
        "jira_key": ["Closed {v}: turnstile firmware update"],
        "animal_accession_number": ["Weight 4.2 kg recorded for {v}"],
        "studbook_number": [
            "Nombor buku baka orang utan: {v}",
            "Studbook {v} listed as breeding recommendation",
        ],
        "microchip_number": ["chip {v} not reading, rescan next exam"],
        "ticket_booking_ref": ["booking_ref={v} visitors=4 slot=14:30"],
        "membership_number": ["membership_no: {v}"],
        "tank_id": ["Alarm: high temp {v} 27.9 C"],
        "plc_serial_number": ["Nombor siri PLC tangki jerung: {v}"],
        "mac_address": ["Endereço MAC do controlador de ozônio: {v}"],
        "ip_address": ["ping {v} timed out (gate controller north)"],
        "radio_id": ["Radio ID {v} assigned to night guard 2"],
        "phone_extension": ["Sambungan telefon klinik haiwan: {v}"],
        "sip_username": ["Usuário SIP do ramal da clínica: {v}"],
        "gate_id": ["Pintu {v} dibuka secara manual oleh pengawal"],
        "camera_id": ["Câmera {v} apontada para o recinto dos pinguins"],
        "password_policy": ["Polisi kata laluan peranti: {v}."],
        "code_rotation_policy": ["Regra: {v}; o código novo é passado só pessoalmente."],
        "cnpj": ["Fornecedor de ração, CNPJ {v}"],
        "pix_key_email": ["Pix for Brazilian partner donations: {v}"],
        "ssm_registration": ["Pembekal penapis pasir, SSM {v}"],
        "invoice_number": ["Invois {v} untuk penyelenggaraan CCTV"],
        "purchase_order": ["Pedido de compra {v} (sondas de ORP)"],
        "drug_lot_number": ["Nombor lot vaksin: {v}"],
        "water_quality_reading": ["Bacaan ORP tangki penyu: {v} mV"],
        "modbus_register": ["Registrador Modbus da vazão da bomba 3: {v}"],
        "bacnet_device_id": ["Peranti BACnet {v} = penyejuk dewan akuarium"],
        "radio_frequency": ["Frekuensi saluran penjaga: {v} MHz"],
        "ga_measurement_id": ["ID de medição GA4 do site de ingressos: {v}"],
        "mapbox_public_token": ["mapboxgl.accessToken = '{v}';"],
        "aws_arn": ["Secret ARN untuk kunci tiket: {v}"],
        "k8s_secret_name": ["O segredo {v} é montado como volume, valor fica no cluster."],
        "cve_id": ["Firmware pengawal pintu terdedah kepada {v}"],
        "slack_channel_id": ["Canal Slack dos alarmes do LSS: {v}"],
        "iban_like_account": ["Bank details for Brazilian refunds (branch / account): {v}"],
    }
    for k, extra in more.items():
        T[k] = T[k] + extra

    secret_kinds = list(T)[: list(T).index("aws_example_key")]
    rows = []
    for kind, templates in T.items():
        label = "secret" if kind in secret_kinds else "benign"
        for tpl in templates:
            v = gen[kind]()
            text = (
                tpl.replace("{v}", v)
                .replace("{a}", s(UPPER_DIG, 16) if "{a}" in tpl else "")
                .replace("{h}", s(HEX, 32) if "{h}" in tpl else "")
                .replace("{d}", digits(10) if "{d}" in tpl else "")
            )
            assert v in text, (kind, tpl)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})
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

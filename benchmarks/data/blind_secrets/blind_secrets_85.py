# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 85: craft brewery and beverage operations.

Brief: memory notes kept by the operations team of a craft brewery and beverage
maker and by its AI coding agents: brewhouse automation and SCADA (PLC, HMI,
OPC UA, MQTT on the canning line), ERP and inventory (Pohoda, Omie, Ekos,
QuickBooks), distributor EDI (AS2, SFTP, VAN), taproom point of sale (Square,
Toast), e-commerce (Shopify, Stripe, Mercado Pago, GoPay, Comgate), cold-store
alarms (Monnit, PagerDuty, alarm panels) and the generic developer stack. Notes
are in English, Czech and Brazilian Portuguese.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_85.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat, gitlab_pat, slack_bot_token, slack_webhook_url, discord_webhook_url, teams_webhook_url, stripe_secret_key, stripe_webhook_secret, square_access_token, toast_client_secret, shopify_admin_token, shopify_app_secret, twilio_auth_token, sendgrid_api_key, mailchimp_api_key, openai_api_key, anthropic_api_key, google_api_key_server, azure_storage_account_key, npm_token, pypi_token, docker_hub_pat, datadog_api_key, pagerduty_routing_key, telegram_bot_token, vault_token, sentry_auth_token, jwt_signing_secret, ssh_private_key, postgres_url, mssql_connection_string, mongodb_uri, redis_url, amqp_url, hmi_admin_password, plc_protection_password, ignition_gateway_password, opcua_password, mqtt_password, wifi_psk, alarm_panel_code, door_access_pin, pos_manager_pin, sftp_password_edi, as2_van_password, distributor_portal_password, omie_app_secret, fakturoid_api_key, pohoda_mserver_password, gopay_client_secret, comgate_secret, mercadopago_access_token, pagseguro_token, quickbooks_refresh_token, ekos_api_key, untappd_business_token, monnit_api_secret, snmp_community, ipsec_psk, device_web_admin_password, totp_recovery_codes, generic_shared_password, basic_auth_url.

Kinds, benign: aws_documented_example, placeholder, env_var_reference, vault_path, masked_secret, revoked_key, stripe_publishable_key, recaptcha_site_key, mercadopago_public_key, git_commit_sha, firmware_sha256, docker_image_digest, order_uuid, ssh_public_key, x509_certificate, pgp_fingerprint, brew_batch_code, keg_serial, rfid_tag, gtin_barcode, edi_control_number, gln, purchase_order, invoice_number, ttb_permit, czech_company_id, cnpj, iban, tracking_number, plc_ip_host, mac_address, device_serial, build_version, twilio_account_sid, slack_channel_id, stripe_object_id, shopify_order_ref, square_location_id, ga_measurement_id, opcua_node_id, modbus_register, alarm_setpoint, ticket_ref, reservation_ref, password_policy, bcrypt_hash, md5_checksum, aws_arn, azure_tenant_id, k8s_secret_ref, npm_integrity, wifi_ssid, username_only, sku_code, oauth_client_id, webhook_endpoint_no_secret, conn_string_no_password, stripe_test_card, omie_app_key, monnit_sensor_id, cold_store_log_line, recipe_id, sentry_dsn_public, excise_stamp_ref.
"""

import json
import random
import string
import sys

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
UPNUM = string.ascii_uppercase + string.digits


SEED = 8585


def corpus() -> list[dict]:
    R = random.Random(SEED)
    rows: list[dict] = []

    def s(alpha: str, n: int) -> str:
        return "".join(R.choice(alpha) for _ in range(n))

    def uuid() -> str:
        return f"{s(HEX, 8)}-{s(HEX, 4)}-4{s(HEX, 3)}-{R.choice('89ab')}{s(HEX, 3)}-{s(HEX, 12)}"

    def digits(n: int) -> str:
        return str(R.randint(1, 9)) + s(string.digits, n - 1)

    def K(label: str, kind: str, gen, templates: list[str]) -> None:
        vals = list(gen) if isinstance(gen, (list, tuple)) else None
        if vals is not None:
            assert len(vals) == len(templates), (kind, len(vals), len(templates))
        for i, t in enumerate(templates):
            v = vals[i] if vals is not None else gen()
            text = t.replace("{v}", v)
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    def pem(kind: str, lines: int, first: str = "") -> str:
        body = [first + s(B64, 70 - len(first))] + [s(B64, 70) for _ in range(lines - 1)]
        body.append(s(B64, 36) + "==")
        return f"-----BEGIN {kind}-----\n" + "\n".join(body) + f"\n-----END {kind}-----"

    # ------------------------------------------------------------------ secrets
    S = "secret"
    K(
        S,
        "aws_secret_access_key",
        lambda: s(B64, 40),
        [
            "aws_secret_access_key = {v}",
            "Label-printer backup bucket creds for the canning crew: AKIA"
            + s(UPNUM, 16)
            + " / {v}",
            "export AWS_SECRET_ACCESS_KEY={v}  # taproom-pos-exports user",
            "Klíč pro S3 se zálohami Pohody (secret): {v} — nepsat do wiki!",
        ],
    )
    K(
        S,
        "github_pat",
        lambda: "ghp_" + s(ALNUM, 36),
        [
            "git clone https://brewbot:{v}@github.com/hopline-brewing/brewhouse-recipes.git",
            "GH token the agent uses to open PRs on the SCADA tag-export repo: {v}",
        ],
    )
    K(
        S,
        "github_fine_grained_pat",
        lambda: "github_pat_11" + s(UPNUM, 20) + "_" + s(ALNUM, 59),
        [
            "GITHUB_TOKEN={v}",
            "Fine-grained PAT (read-only, repo edi-mappings): {v}",
            "token fine-grained p/ o repo do app de envase: {v}",
        ],
    )
    K(
        S,
        "gitlab_pat",
        lambda: "glpat-" + s(B64URL, 20),
        [
            "  - export CI_PUSH_TOKEN={v}",
            "GitLab access token for the ignition-projects mirror: {v}",
        ],
    )
    K(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{digits(12)}-{digits(13)}-{s(ALNUM, 24)}",
        [
            "SLACK_BOT_TOKEN={v}",
            "cold-store alarm bot posts to #chladirna with {v}",
            'slack:\n  bot_token: "{v}"\n  channel: C04QBREW7X1',
            "Bot do Slacku (brewhouse-alerts) – token {v}, scope chat:write",
        ],
    )
    K(
        S,
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T0{s(UPNUM, 8)}/B0{s(UPNUM, 9)}/{s(ALNUM, 24)}",
        [
            "FERMENTER_ALERT_WEBHOOK={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"FV4 over 22C\"}' {v}",
            "Webhook pro kanál #stacirna: {v}",
            "webhook do Slack p/ avisos da câmara fria: {v}",
        ],
    )
    K(
        S,
        "discord_webhook_url",
        lambda: f"https://discord.com/api/webhooks/{digits(19)}/{s(B64URL, 68)}",
        [
            "Taproom staff Discord webhook (shift swaps): {v}",
            '"discord_webhook": "{v}",',
        ],
    )
    K(
        S,
        "teams_webhook_url",
        lambda: (
            f"https://hoplinebrewing.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{s(HEX, 32)}/{uuid()}/V2{s(B64URL, 43)}"
        ),
        [
            "Teams connector for the QA lab channel: {v}",
            "TEAMS_WEBHOOK_URL={v}",
        ],
    )
    K(
        S,
        "stripe_secret_key",
        [
            "sk_live_51" + s(ALNUM, 97),
            "sk_live_51" + s(ALNUM, 97),
            "rk_live_51" + s(ALNUM, 97),
            "sk_live_51" + s(ALNUM, 97),
        ],
        [
            "STRIPE_SECRET_KEY={v}",
            'stripe.api_key = "{v}"  # merch store, live',
            "Restricted key for the subscription-box reconciler (read charges only): {v}",
            "chave secreta do Stripe da loja online: {v}",
        ],
    )
    K(
        S,
        "stripe_webhook_secret",
        lambda: "whsec_" + s(ALNUM, 32),
        [
            "STRIPE_WEBHOOK_SECRET={v}",
            "endpoint /hooks/stripe signing secret is {v} (rotated after the beer-club incident)",
            "podpisový secret webhooku Stripe: {v}",
        ],
    )
    K(
        S,
        "square_access_token",
        lambda: "EAAA" + s(B64URL, 60),
        [
            "SQUARE_ACCESS_TOKEN={v}",
            "Taproom Square prod token for the nightly sales pull: {v}",
            "Authorization: Bearer {v}",
            "token do Square (taproom de Curitiba), produção: {v}",
        ],
    )
    K(
        S,
        "toast_client_secret",
        lambda: s(B64URL, 64),
        [
            "toast:\n  client_id: 7QhVb2RkZxJmP0aN\n  client_secret: {v}",
            "Toast partner API client secret for beer-garden POS: {v}",
        ],
    )
    K(
        S,
        "shopify_admin_token",
        lambda: "shpat_" + s(HEX, 32),
        [
            "SHOPIFY_ADMIN_API_TOKEN={v}",
            "X-Shopify-Access-Token: {v}",
            "Admin API token of the custom app 'inventory-sync' on hopline-shop.myshopify.com: {v}",
            "token admin da loja Shopify (app de estoque): {v}",
        ],
    )
    K(
        S,
        "shopify_app_secret",
        lambda: "shpss_" + s(HEX, 32),
        [
            "SHOPIFY_API_SECRET={v}",
            "App secret pro ověření HMAC u webhooků Shopify: {v}",
        ],
    )
    K(
        S,
        "twilio_auth_token",
        lambda: s(HEX, 32),
        [
            "TWILIO_ACCOUNT_SID=AC" + s(HEX, 32) + "\nTWILIO_AUTH_TOKEN={v}",
            "Twilio auth token (SMS when the glycol chiller trips): {v}",
        ],
    )
    K(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        [
            "SENDGRID_API_KEY={v}",
            "sendgrid key for order confirmations + beer-club shipping notices: {v}",
        ],
    )
    K(
        S,
        "mailchimp_api_key",
        lambda: s(HEX, 32) + "-us21",
        [
            "MAILCHIMP_API_KEY={v}",
            "Mailchimp key (newsletter 'Release Friday'): {v}",
        ],
    )
    K(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + s(B64URL, 74) + "T3BlbkFJ" + s(B64URL, 74),
        [
            "OPENAI_API_KEY={v}",
            "key the tasting-notes generator uses: {v}",
        ],
    )
    K(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + s(B64URL, 93) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "agent memory: use {v} for the EDI mapping assistant, billed to ops",
        ],
    )
    K(
        S,
        "google_api_key_server",
        lambda: "AIza" + s(B64URL, 35),
        [
            "GOOGLE_SHEETS_API_KEY={v}  # server-side, pulls the keg float sheet",
            "Distance Matrix key (route planning for self-distribution vans, server only): {v}",
        ],
    )
    K(
        S,
        "azure_storage_account_key",
        lambda: s(B64, 86) + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=hoplineerpbackup;AccountKey={v};EndpointSuffix=core.windows.net",
            "storage key1 for the SCADA historian export container: {v}",
            "az storage blob upload --account-name hoplinescada --account-key {v} -c historian -f trend.csv",
        ],
    )
    K(
        S,
        "npm_token",
        lambda: "npm_" + s(ALNUM, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}  # publishes @hopline/pos-widgets",
        ],
    )
    K(
        S,
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + s(B64URL, 60),
        [
            "TWINE_PASSWORD={v}",
            "PyPI upload token for brewcalc (internal IBU/ABV lib): {v}",
        ],
    )
    K(
        S,
        "docker_hub_pat",
        lambda: "dckr_pat_" + s(B64URL, 27),
        [
            "echo {v} | docker login -u hoplinebrewing --password-stdin",
            "Docker Hub PAT for pulling the ignition-gateway image: {v}",
        ],
    )
    K(
        S,
        "datadog_api_key",
        lambda: s(HEX, 32),
        [
            "DD_API_KEY={v}",
            "datadog agent on the brewhouse edge box, api_key: {v}",
        ],
    )
    K(
        S,
        "pagerduty_routing_key",
        lambda: s(HEX, 32),
        [
            "PAGERDUTY_ROUTING_KEY={v}  # cold store service",
            "Events v2 integration key for 'Chladírna 2 – teplota': {v}",
            '{"routing_key": "{v}", "event_action": "trigger", "payload": {"summary": "Cold room 2 at 9.4C", "severity": "critical", "source": "monnit-gw-02"}}',
        ],
    )
    K(
        S,
        "telegram_bot_token",
        lambda: f"{digits(10)}:AA{s(B64URL, 33)}",
        [
            "TELEGRAM_BOT_TOKEN={v}",
            "bot do Telegram que avisa quando a linha de lata para: {v}",
        ],
    )
    K(
        S,
        "vault_token",
        lambda: "hvs." + s(B64URL, 24),
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
        ],
    )
    K(
        S,
        "sentry_auth_token",
        lambda: "sntrys_eyJpYXQiOjE3" + s(B64URL, 90) + "_" + s(B64URL, 43),
        [
            "SENTRY_AUTH_TOKEN={v}",
            "sentry-cli token for uploading sourcemaps of the shop: {v}",
        ],
    )
    K(
        S,
        "jwt_signing_secret",
        [s(HEX, 64), s(B64URL, 48), "pivo-je-zivot-" + s(ALNUM, 18), s(B64, 43) + "="],
        [
            "JWT_SECRET={v}",
            "Beer-club portal signs session JWTs with HS256 secret {v}",
            "tajný klíč pro JWT v zákaznickém portálu: {v}",
            'jwt:\n  algorithm: HS256\n  secret: "{v}"',
        ],
    )
    K(
        S,
        "ssh_private_key",
        [
            pem(
                "OPENSSH PRIVATE KEY",
                6,
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
            ),
            pem("RSA PRIVATE KEY", 8, "MIIEpAIBAAKCAQEA"),
            pem("EC PRIVATE KEY", 3, "MHcCAQEEI"),
        ],
        [
            "deploy key for the edge box (brewhouse-gw01), ~/.ssh/id_ed25519:\n{v}",
            "Klíč pro SFTP distributora (uložit do ~/.ssh/edi_rsa):\n{v}",
            "chave privada do AS2 (certificado de assinatura):\n{v}",
        ],
    )
    K(
        S,
        "postgres_url",
        lambda: (
            f"postgresql://erp_app:{R.choice(['Slad', 'Chmel', 'Lupulo', 'Mash'])}{digits(4)}{R.choice('!#%*')}{s(ALNUM, 6)}@db.hopline.internal:5432/inventory"
        ),
        [
            "DATABASE_URL={v}",
            "psql \"{v}\" -c 'select * from keg_movements limit 10'",
            "conexão do estoque: {v}",
            "připojení na inventurní DB: {v}",
        ],
    )
    K(
        S,
        "mssql_connection_string",
        lambda: (
            f"Server=tcp:erp-sql01,1433;Database=MoneyS5;User Id=sa;Password={R.choice(['Pivovar', 'Varna', 'Sladovna'])}{digits(4)}!{s(ALNUM, 3)};TrustServerCertificate=True"
        ),
        [
            'ConnectionStrings__Erp="{v}"',
            "ERP SQL conn (the old Money instance, still used by accounting): {v}",
            '<add name="Erp" connectionString="{v}" />',
        ],
    )
    K(
        S,
        "mongodb_uri",
        lambda: (
            f"mongodb+srv://shop:{s(ALNUM, 16)}@cluster0.{s(string.ascii_lowercase + string.digits, 5)}.mongodb.net/orders?retryWrites=true"
        ),
        [
            "MONGO_URI={v}",
            "order archive lives at {v}",
        ],
    )
    K(
        S,
        "redis_url",
        lambda: f"redis://:{s(ALNUM, 24)}@cache.hopline.internal:6379/2",
        [
            "REDIS_URL={v}",
            "queue for POS sync jobs: {v}",
        ],
    )
    K(
        S,
        "amqp_url",
        lambda: f"amqps://scada:{s(ALNUM, 20)}@mq.hopline.internal:5671/brewhouse",
        [
            "AMQP_URL={v}",
            "historian forwarder publishes to {v}",
        ],
    )
    K(
        S,
        "hmi_admin_password",
        ["Varna2023!", "Brewhouse#01", "Mosto@2024", "Chmel_Saaz9", "FV-tanky77"],
        [
            "HMI brewhouse (Siemens TP1200) admin / {v}",
            "Heslo na panel varny, uživatel Admin: {v}",
            "senha do IHM da brassagem (usuário operador-chefe): {v}",
            "handover: FactoryTalk View SE login engineer pw {v} — change after commissioning",
            "panel u CIP stanice: user servis, heslo {v}",
        ],
    )
    K(
        S,
        "plc_protection_password",
        ["S7prot!2022", "Lager4ever", "Wuerze_88"],
        [
            "TIA Portal know-how/access protection password for the mash tun PLC: {v}",
            "Ochrana PLC (S7-1500, varna) – heslo pro plný přístup: {v}",
            "senha de proteção do CLP da envasadora (CompactLogix): {v}",
        ],
    )
    K(
        S,
        "ignition_gateway_password",
        ["Ign1t10n-Brew!", "gateway#Hop2024", "Tanque$Frio12"],
        [
            "Ignition gateway admin: admin / {v} (http://scada01:8088)",
            "ignition:\n  gateway_user: admin\n  gateway_password: {v}",
            "senha do gateway Ignition da cervejaria: {v}",
        ],
    )
    K(
        S,
        "opcua_password",
        lambda: R.choice(["opcua", "OpcUa", "Kepware"]) + "_" + s(ALNUM, 8) + "!",
        [
            "opc.tcp://kepserver01:49320 user historian pw {v}",
            "OPCUA_PASSWORD={v}",
            "uživatel OPC UA pro reporting, heslo {v}",
        ],
    )
    K(
        S,
        "mqtt_password",
        ["canline-Ska!741", "Plech0vka#22", "Lata2025_mqtt", "seamer$Wild9"],
        [
            "MQTT_PASSWORD={v}",
            "mosquitto_pub -h mqtt.canline.local -u seamer01 -P '{v}' -t line1/seamer/status -m ok",
            "Heslo MQTT pro senzory na plnicí lince: {v}",
            "senha MQTT do sensor de nível da enchedora: {v}",
        ],
    )
    K(
        S,
        "wifi_psk",
        ["Taproom-Guests-Free!", "HopsAndMalt2024", "chladirna-wlan-77X", "Cervejaria@Wifi2025"],
        [
            "Staff Wi-Fi (SSID Hopline-Staff) WPA2 key: {v}",
            "Wi-Fi do taproomu pro pokladny: heslo {v}",
            "wpa_passphrase Hopline-Coldstore {v}",
            "senha do Wi-Fi da fábrica (rede Producao): {v}",
        ],
    )
    K(
        S,
        "alarm_panel_code",
        ["4826", "190377", "7301", "55921"],
        [
            "Cold store alarm panel master code: {v} (arm/disarm + zone bypass)",
            "Kód k ústředně EZS ve skladu: {v}#",
            "código do alarme da câmara fria: {v}",
            "night shift: disarm the Sensaphone with {v} before opening CR-2",
        ],
    )
    K(
        S,
        "door_access_pin",
        ["2468", "80915", "1357*", "9042"],
        [
            "Keypad PIN for the cold room back door: {v}",
            "Kód na dveře sladovny: {v}",
            "senha do portão de carga: {v}",
            "taproom office door code is {v} (changed Mon)",
        ],
    )
    K(
        S,
        "pos_manager_pin",
        ["7711", "3094", "52806"],
        [
            "Square manager passcode for voids/refunds at the taproom: {v}",
            "PIN vedoucího směny na pokladně (storna): {v}",
            "PIN do gerente no PDV para estorno: {v}",
        ],
    )
    K(
        S,
        "sftp_password_edi",
        ["EdiBrew#2024", "Distrib!uce55", "vipSRS_8823x"],
        [
            "VIP SRS depletion feed: sftp://hopline@ftp.vermontsystems.com  pass {v}",
            "SFTP distributora (objednávky 850): login hopline, heslo {v}",
            "sftp do distribuidor, usuário cervejaria_hl, senha {v}",
        ],
    )
    K(
        S,
        "as2_van_password",
        ["Tru3C0mm!rce", "VanMailbox_61", "spsEDI-Hop#3"],
        [
            "TrueCommerce VAN mailbox pw: {v}",
            "SPS Commerce portal (EDI 810/856): ops@hopline.com / {v}",
            "heslo do VAN schránky EDI: {v}",
        ],
    )
    K(
        S,
        "distributor_portal_password",
        ["Pilsner1842!", "Kegs&Cans2024", "Distribuidora@22"],
        [
            "Distributor portal shared login: orders@hopline.com / {v}",
            "Přihlášení do portálu velkoobchodu: objednavky / {v}",
            "login do portal da distribuidora: comercial@hopline.com.br senha {v}",
        ],
    )
    K(
        S,
        "omie_app_secret",
        lambda: s(HEX, 32),
        [
            "OMIE_APP_KEY=" + digits(13) + "\nOMIE_APP_SECRET={v}",
            '{"call": "ListarProdutos", "app_key": "'
            + digits(13)
            + '", "app_secret": "{v}", "param": [{"pagina": 1}]}',
            "app_secret do Omie (ERP da filial BR): {v}",
        ],
    )
    K(
        S,
        "fakturoid_api_key",
        lambda: s(HEX, 40),
        [
            "FAKTUROID_API_KEY={v}",
            "API klíč Fakturoidu (účet hopline): {v}",
            "fakturoid token for the distributor invoicing export: {v}",
        ],
    )
    K(
        S,
        "pohoda_mserver_password",
        ["Pohoda2024!", "Ucetni#Sklad7", "mServer_H0p"],
        [
            "Pohoda mServer (http://erp01:444) uživatel api, heslo {v}",
            "Pohoda XML import přes mServer, Basic auth api:{v}",
            "POHODA_PASSWORD={v}",
        ],
    )
    K(
        S,
        "gopay_client_secret",
        lambda: s(ALNUM, 8),
        [
            "GOPAY_GOID=8" + digits(9) + "\nGOPAY_CLIENT_SECRET={v}",
            "GoPay client secret (e-shop, produkce): {v}",
        ],
    )
    K(
        S,
        "comgate_secret",
        lambda: s(ALNUM, 32),
        [
            "COMGATE_SECRET={v}",
            "Comgate merchant 4" + digits(5) + " secret: {v}",
            "tajný klíč Comgate pro platby v e-shopu: {v}",
        ],
    )
    K(
        S,
        "mercadopago_access_token",
        lambda: f"APP_USR-{digits(16)}-{digits(6)}-{s(HEX, 32)}-{digits(9)}",
        [
            "MERCADOPAGO_ACCESS_TOKEN={v}",
            "access token do Mercado Pago (loja de growlers): {v}",
            'mp = mercadopago.SDK("{v}")',
        ],
    )
    K(
        S,
        "pagseguro_token",
        lambda: (
            s(HEX, 8)
            + "-"
            + s(HEX, 4)
            + "-"
            + s(HEX, 4)
            + "-"
            + s(HEX, 4)
            + "-"
            + s(HEX, 12)
            + s(HEX, 64)
        ),
        [
            "PAGSEGURO_TOKEN={v}",
            "token PagBank do e-commerce (produção): {v}",
        ],
    )
    K(
        S,
        "quickbooks_refresh_token",
        lambda: "AB11" + digits(13) + s(ALNUM, 33),
        [
            "QBO_REFRESH_TOKEN={v}",
            "QuickBooks Online refresh token (expires in 100 days, rotate!): {v}",
            "refresh token QuickBooks da filial americana: {v}",
        ],
    )
    K(
        S,
        "ekos_api_key",
        lambda: s(ALNUM, 40),
        [
            "EKOS_API_KEY={v}",
            "Ekos API key for batch/inventory sync to the brewhouse dashboard: {v}",
            "klíč k Ekosu (šarže a sklad): {v}",
        ],
    )
    K(
        S,
        "untappd_business_token",
        lambda: s(B64URL, 40),
        [
            "UNTAPPD_BUSINESS_TOKEN={v}",
            "Untappd for Business API token (menu auto-update from taplist): {v}",
            "token do Untappd for Business (cardápio das torneiras): {v}",
        ],
    )
    K(
        S,
        "monnit_api_secret",
        lambda: s(ALNUM, 48),
        [
            "iMonnit APIKeyID=" + s(ALNUM, 16) + " APISecretKey={v}",
            "MONNIT_API_SECRET={v}",
            "Monnit API secret (teplotní čidla chladíren): {v}",
        ],
    )
    K(
        S,
        "snmp_community",
        ["chlad1rna-ro", "brewNMS!77", "frio_monit22"],
        [
            "snmpwalk -v2c -c {v} 10.40.2.15 1.3.6.1.4.1",
            "SNMP community for the cold-store UPS + Sensaphone: {v} (not 'public')",
            "comunidade SNMP dos sensores: {v}",
        ],
    )
    K(
        S,
        "ipsec_psk",
        lambda: s(ALNUM, 28),
        [
            "Site-to-site VPN brewery <-> distribution center, IKEv2 PSK: {v}",
            "pre-shared key tunelu do skladu v Plzni: {v}",
            "PSK da VPN entre a fábrica e o CD: {v}",
        ],
    )
    K(
        S,
        "device_web_admin_password",
        ["Zebra-Label!2", "1234Etiq@HL", "Leser_Admin9", "modbusGW#44"],
        [
            "Zebra ZT411 label printer web admin pw: {v}",
            "admin heslo do převodníku Modbus/TCP (Moxa, chladírna): {v}",
            "senha admin da impressora de etiquetas da linha de lata: {v}",
            "Inline DO meter (fill line) service login: service / {v}",
        ],
    )
    K(
        S,
        "totp_recovery_codes",
        [
            f"{s(HEX, 5)}-{s(HEX, 5)} {s(HEX, 5)}-{s(HEX, 5)} {s(HEX, 5)}-{s(HEX, 5)}",
            f"{digits(4)}-{digits(4)}",
            f"{s(string.ascii_lowercase + string.digits, 4)}-{s(string.ascii_lowercase + string.digits, 4)}-{s(string.ascii_lowercase + string.digits, 4)}",
        ],
        [
            "GitHub org owner recovery codes (ops@): {v}",
            "záložní kód pro 2FA na Shopify účet majitele: {v}",
            "código de recuperação do Google Workspace do admin: {v}",
        ],
    )
    K(
        S,
        "generic_shared_password",
        ["Hopline2025!", "Brewery#Ops8", "TapRoom_2024", "Cerveja123!"],
        [
            "shared login for the canning vendor's remote support (TeamViewer): {v}",
            "heslo k účtu brewmaster@ na Google Workspace: {v}",
            "senha da conta compartilhada do Instagram da cervejaria: {v}",
            "Mobile canner booking portal: ops@hopline.com pw {v}",
        ],
    )
    K(
        S,
        "basic_auth_url",
        lambda: f"https://edi:{s(ALNUM, 14)}@as2.hopline.com/inbound",
        [
            "AS2 partner posts to {v}",
            "webhook de pedidos do distribuidor: {v}",
        ],
    )

    # ------------------------------------------------------------------ benign
    B = "benign"
    K(
        B,
        "aws_documented_example",
        [
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "AKIAIOSFODNN7EXAMPLE",
        ],
        [
            "docs use AKIA example {v}; our real key is in Vault",
            "aws_secret_access_key = {v}  # from the AWS docs, do not use",
            "příklad z dokumentace AWS: {v}",
        ],
    )
    K(
        B,
        "placeholder",
        ["<your-square-token>", "changeme", "xxxxxxxxxxxxxxxxxxxx", "TODO_FILL_ME", "sk_live_..."],
        [
            "SQUARE_ACCESS_TOKEN={v}",
            "hmi_password: {v}  # set on site",
            "MONNIT_API_SECRET={v}",
            "FAKTUROID_API_KEY={v}",
            "STRIPE_SECRET_KEY={v} (paste from 1Password)",
        ],
    )
    K(
        B,
        "env_var_reference",
        [
            "${STRIPE_SECRET_KEY}",
            'os.environ["SQUARE_ACCESS_TOKEN"]',
            "$MQTT_PASSWORD",
            "%OMIE_APP_SECRET%",
        ],
        [
            "stripe:\n  secret_key: {v}",
            "token = {v}",
            'mosquitto_sub -u seamer01 -P "{v}" -t line1/#',
            "set APP_SECRET={v}",
        ],
    )
    K(
        B,
        "vault_path",
        [
            "secret/data/brewhouse/scada/ignition",
            "kv/ops/coldstore/alarm-panel",
            "secret/edi/vip-sftp",
            "op://Ops/Pohoda mServer/password",
        ],
        [
            "Ignition admin pw lives at {v}",
            "Kód k ústředně je ve Vaultu: {v}",
            "senha do SFTP está em {v}",
            "password: {v}",
        ],
    )
    K(
        B,
        "masked_secret",
        [
            "sk_live_••••••••••••3fQa",
            "shpat_****************************9c1e",
            "EAAA…redacted…",
            "********",
        ],
        [
            "Stripe dashboard shows the key as {v}",
            "log: using Shopify token {v}",
            "Square token: {v}",
            "heslo HMI: {v} (viz trezor)",
        ],
    )
    K(
        B,
        "revoked_key",
        [
            "ghp_" + s(ALNUM, 36),
            "xoxb-" + digits(12) + "-" + digits(13) + "-" + s(ALNUM, 24),
            "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        ],
        [
            "REVOKED 2026-11-02 after the laptop theft, kept only for audit: {v}",
            "starý token Slacku {v} je zneplatněný (revoked), nepoužívat",
            "chave SendGrid {v} foi revogada em out/2026; não funciona mais",
        ],
    )
    K(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_51" + s(ALNUM, 97),
        [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "<script>const stripe = Stripe('{v}');</script>",
            "chave publicável do Stripe (pode ir no front): {v}",
        ],
    )
    K(
        B,
        "recaptcha_site_key",
        lambda: "6L" + s(B64URL, 38),
        [
            'data-sitekey="{v}"',
            "reCAPTCHA site key on the age-gate form: {v}",
            "veřejný site key reCAPTCHA pro formulář exkurzí: {v}",
        ],
    )
    K(
        B,
        "mercadopago_public_key",
        lambda: "APP_USR-" + uuid(),
        [
            "MERCADOPAGO_PUBLIC_KEY={v}",
            "public key do Mercado Pago usada no checkout (front): {v}",
            "const mp = new MercadoPago('{v}', { locale: 'pt-BR' });",
        ],
    )
    K(
        B,
        "git_commit_sha",
        lambda: s(HEX, 40),
        [
            "ignition project export pinned at commit {v}",
            "nasazeno z commitu {v}",
            "rollback p/ {v} resolveu o bug do PDV",
        ],
    )
    K(
        B,
        "firmware_sha256",
        lambda: s(HEX, 64),
        [
            "seamer HMI firmware 4.2.1 sha256: {v}",
            "sha256sum S7-1500_V3.1.upd -> {v}",
            "checksum SHA-256 do firmware do gateway Monnit: {v}",
        ],
    )
    K(
        B,
        "docker_image_digest",
        lambda: "sha256:" + s(HEX, 64),
        [
            "image: inductiveautomation/ignition@{v}",
            "pinned shop image digest {v}",
            "digest obrazu edge-collectoru: {v}",
        ],
    )
    K(
        B,
        "order_uuid",
        uuid,
        [
            "Shopify webhook id {v} retried 3x",
            "objednávka e-shopu {v} – chybí adresa",
            "pedido {v} duplicado no Omie",
            "idempotency-key: {v}",
        ],
    )
    K(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
        [
            "authorized_keys on brewhouse-gw01:\n{v} ops@hopline",
            "veřejný klíč pro SFTP distributora: {v}",
            "chave pública enviada ao parceiro EDI: {v}",
        ],
    )
    K(
        B,
        "x509_certificate",
        [
            pem("CERTIFICATE", 6, "MIIDdzCCAl+gAwIBAgIUQ"),
            pem("CERTIFICATE", 5, "MIIC+jCCAeKgAwIBAgIJA"),
        ],
        [
            "AS2 public signing cert sent to the distributor:\n{v}",
            "certificado público do servidor OPC UA:\n{v}",
        ],
    )
    K(
        B,
        "pgp_fingerprint",
        lambda: " ".join(s("0123456789ABCDEF", 4) for _ in range(10)),
        [
            "EDI partner PGP key fingerprint: {v}",
            "otisk PGP klíče velkoobchodu: {v}",
            "fingerprint da chave PGP do distribuidor: {v}",
        ],
    )
    K(
        B,
        "brew_batch_code",
        lambda: (
            f"B{R.randint(24, 26)}-{R.choice(['IPA', 'PIL', 'STO', 'SAI', 'LAG'])}-{R.randint(100, 999)}"
        ),
        [
            "batch {v} dry-hopped day 4, gravity 1.014",
            "várka {v} – přečerpat do CKT 6",
            "lote {v} liberado pelo laboratório",
            "Ekos batch id {v} missing yeast pitch entry",
        ],
    )
    K(
        B,
        "keg_serial",
        lambda: f"KEG-{R.choice(['30L', '50L', '1/6', '1/2'])}-{digits(6)}",
        [
            "keg {v} not returned by Tap House Brno",
            "sud {v} má poškozený fitink",
            "barril {v} voltou com vazamento",
        ],
    )
    K(
        B,
        "rfid_tag",
        lambda: "E280" + s("0123456789ABCDEF", 20),
        [
            "RFID EPC {v} scanned at dock 2",
            "RFID tag sudu: {v}",
        ],
    )
    K(
        B,
        "gtin_barcode",
        lambda: "0" + digits(13),
        [
            "GTIN for Hazy IPA 4x440ml: {v}",
            "EAN plechovky Ležák 11°: {v}",
            "código de barras da lata 473ml: {v}",
        ],
    )
    K(
        B,
        "edi_control_number",
        lambda: digits(9),
        [
            "ISA*00*          *00*          *ZZ*HOPLINE        *ZZ*DISTRIB01      *261207*0915*U*00401*{v}*0*P*>~",
            "997 rejected ISA13 {v}, resend 856",
            "número de controle de intercâmbio {v}",
        ],
    )
    K(
        B,
        "gln",
        lambda: "859" + digits(10),
        [
            "our GLN for EDI: {v}",
            "GLN odběrného místa (sklad Plzeň): {v}",
            "N1*ST*Hopline DC*UL*{v}~",
        ],
    )
    K(
        B,
        "purchase_order",
        lambda: f"PO-{R.randint(2025, 2026)}-{digits(5)}",
        [
            "distributor {v} short-shipped 12 kegs",
            "objednávka {v} na slad Pilsner (Sladovny Soufflet)",
            "PO {v} de lúpulo Citra chegou ontem",
        ],
    )
    K(
        B,
        "invoice_number",
        lambda: f"FV{R.randint(2025, 2026)}{digits(5)}",
        [
            "faktura {v} – splatnost 14 dní",
            "invoice {v} disputed by the distributor (deposit credit)",
            "nota fiscal referente à fatura {v}",
        ],
    )
    K(
        B,
        "ttb_permit",
        lambda: f"BR-{R.choice(['OR', 'CO', 'ME'])}-{R.choice(['I', ''])}-{digits(5)}",
        [
            "TTB brewer's notice {v}",
            "label COLA app filed under {v}",
        ],
    )
    K(
        B,
        "czech_company_id",
        [f"IČO {digits(8)}", f"CZ{digits(8)}", f"{digits(8)}"],
        [
            "Pivovar Hopline s.r.o., {v}",
            "DIČ: {v}",
            "IČO odběratele: {v}",
        ],
    )
    K(
        B,
        "cnpj",
        lambda: f"{R.randint(10, 99)}.{digits(3)}.{digits(3)}/0001-{R.randint(10, 99)}",
        [
            "CNPJ da cervejaria: {v}",
            "distribuidora CNPJ {v} cadastrada no Omie",
            "Brazil subsidiary tax id (CNPJ) {v}",
        ],
    )
    K(
        B,
        "iban",
        lambda: "CZ65" + digits(20),
        [
            "bankovní účet pro zálohy na sudy: {v}",
            "pay the maltster to IBAN {v}",
        ],
    )
    K(
        B,
        "tracking_number",
        ["1Z" + s(UPNUM, 16), "DR" + digits(9) + "CZ", "BR" + digits(9) + "BR"],
        [
            "UPS tracking for the replacement seamer chuck: {v}",
            "zásilka kvasnic, sledovací číslo {v}",
            "rastreio dos Correios do kit de chopeira: {v}",
        ],
    )
    K(
        B,
        "plc_ip_host",
        [
            "10.40.1.21",
            "plc-varna-01.hopline.local",
            "opc.tcp://kepserver01:49320",
            "192.168.50.10",
        ],
        [
            "mash tun S7-1500 at {v}",
            "PLC plnicí linky: {v}",
            "endpoint OPC UA do historiador: {v}",
            "CLP da envasadora responde em {v}",
        ],
    )
    K(
        B,
        "mac_address",
        lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(6)),
        [
            "DHCP reservation for the Monnit gateway MAC {v}",
            "MAC adresa tiskárny etiket: {v}",
            "MAC do leitor de código de barras: {v}",
        ],
    )
    K(
        B,
        "device_serial",
        lambda: f"SN{digits(3)}-{s(UPNUM, 6)}",
        [
            "Ska seamer serial {v}, service contract until 2027",
            "sériové číslo kompresoru chladírny: {v}",
            "número de série do pasteurizador: {v}",
        ],
    )
    K(
        B,
        "build_version",
        ["v8.1.42", "4.2.1-rc3", "2026.11.3+build.1187", "V17 Update 8"],
        [
            "Ignition gateway upgraded to {v}",
            "POS app build {v} fixes the tip rounding bug",
            "verze aplikace e-shopu: {v}",
            "TIA Portal {v} on the engineering laptop",
        ],
    )
    K(
        B,
        "twilio_account_sid",
        lambda: "AC" + s(HEX, 32),
        [
            "Twilio account SID {v} (public identifier, token in Vault)",
            "TWILIO_ACCOUNT_SID={v}",
        ],
    )
    K(
        B,
        "slack_channel_id",
        lambda: "C0" + s(UPNUM, 9),
        [
            "alarm bot posts to channel {v}",
            "ID kanálu #stacirna: {v}",
            "canal {v} recebe os alertas da câmara fria",
        ],
    )
    K(
        B,
        "stripe_object_id",
        [
            "cus_" + s(ALNUM, 14),
            "pi_3" + s(ALNUM, 23),
            "ch_3" + s(ALNUM, 23),
            "acct_1" + s(ALNUM, 15),
        ],
        [
            "beer-club member {v} double charged",
            "refund payment intent {v}",
            "charge {v} disputed (chargeback)",
            "connected account for the taproom: {v}",
        ],
    )
    K(
        B,
        "shopify_order_ref",
        lambda: "#HL" + digits(5),
        [
            "order {v} shipped without the glassware",
            "pedido {v} pago via Pix",
            "objednávka {v} vrácena",
        ],
    )
    K(
        B,
        "square_location_id",
        lambda: "L" + s(UPNUM, 12),
        [
            "Square location id for the taproom: {v}",
            "SQUARE_LOCATION_ID={v}",
        ],
    )
    K(
        B,
        "ga_measurement_id",
        lambda: "G-" + s(UPNUM, 10),
        [
            "gtag('config', '{v}');",
            "GA4 measurement id of the shop: {v}",
            "ID do GA4 da loja: {v}",
        ],
    )
    K(
        B,
        "opcua_node_id",
        ["ns=2;s=Brewhouse.MashTun.TempPV", 'ns=3;s="DB_FV"."FV04"."Temp"', "ns=2;i=10873"],
        [
            "historian tag {v} is stale",
            "node {v} má špatné měřítko",
            "tag OPC {v} sem qualidade (Bad)",
        ],
    )
    K(
        B,
        "modbus_register",
        ["40001", "HR 30012", "coil 00017"],
        [
            "Modbus holding register {v} = cold room setpoint x10",
            "registr {v} = stav kompresoru",
            "registro {v} liga a bomba de CIP",
        ],
    )
    K(
        B,
        "alarm_setpoint",
        ["4.0 °C", "HI-HI 8.5C", "-1.5 °C"],
        [
            "cold store CR-2 alarm setpoint {v}, delay 15 min",
            "mez alarmu chladírny: {v}",
            "setpoint do alarme da câmara: {v}",
        ],
    )
    K(
        B,
        "ticket_ref",
        lambda: f"BREW-{R.randint(100, 9999)}",
        [
            "see {v} for the CIP valve sequence fix",
            "tiket {v}: chyba v exportu EDI 856",
            "chamado {v} aberto com o suporte do Omie",
        ],
    )
    K(
        B,
        "reservation_ref",
        lambda: "RES-" + s(UPNUM, 6),
        [
            "taproom booking {v} for 14 people, Friday 18:00",
            "rezervace exkurze {v}",
            "reserva {v} do tour da fábrica",
        ],
    )
    K(
        B,
        "password_policy",
        [
            "min 12 characters, rotate every 90 days",
            "nejméně 12 znaků a změna každé 3 měsíce",
            "mínimo 10 caracteres com número e símbolo",
        ],
        [
            "HMI password policy: {v}, never reuse the vendor default",
            "Pravidla pro hesla pokladen: {v}",
            "política de senhas do ERP: {v}",
        ],
    )
    K(
        B,
        "bcrypt_hash",
        lambda: "$2b$12$" + s(ALNUM + "./", 53),
        [
            "staff table row: manager | {v}",
            "hash hesla v DB (bcrypt): {v}",
            "hash bcrypt armazenado: {v}",
        ],
    )
    K(
        B,
        "md5_checksum",
        lambda: s(HEX, 32),
        [
            "EDI batch file md5 {v} matches",
            "md5 exportu receptur: {v}",
            "Content-MD5 do arquivo do distribuidor: {v}",
        ],
    )
    K(
        B,
        "aws_arn",
        [
            "arn:aws:iam::" + digits(12) + ":role/taproom-pos-export",
            "arn:aws:s3:::hopline-label-backups",
            "arn:aws:secretsmanager:eu-central-1:" + digits(12) + ":secret:scada/ignition-AbC123",
        ],
        [
            "Lambda assumes {v}",
            "bucket: {v}",
            "the password is stored in {v}",
        ],
    )
    K(
        B,
        "azure_tenant_id",
        uuid,
        [
            "AZURE_TENANT_ID={v}",
            "tenant id: {v}",
            "subscription {v} (ERP backups)",
        ],
    )
    K(
        B,
        "k8s_secret_ref",
        [
            "secretKeyRef:\n    name: shop-secrets\n    key: STRIPE_SECRET_KEY",
            "valueFrom: {secretKeyRef: {name: pos-sync, key: square-token}}",
        ],
        [
            "env:\n- name: STRIPE_SECRET_KEY\n  valueFrom:\n    {v}",
            "- name: SQUARE_ACCESS_TOKEN\n  {v}",
        ],
    )
    K(
        B,
        "npm_integrity",
        lambda: "sha512-" + s(B64, 86) + "==",
        [
            '"integrity": "{v}"',
            "package-lock integrity of @hopline/pos-widgets: {v}",
        ],
    )
    K(
        B,
        "wifi_ssid",
        ["Hopline-Staff", "Taproom_Guests", "Producao-5G"],
        [
            "SSID {v}, password on the sticker in the office",
            "síť {v} pro pokladny",
            "rede {v} só para a linha de envase",
        ],
    )
    K(
        B,
        "username_only",
        ["svc_pohoda_api", "historian_ro", "operador.turno2"],
        [
            "ERP service account: {v} (password in Vault)",
            "uživatel pro OPC UA čtení: {v}",
            "usuário do IHM: {v}",
        ],
    )
    K(
        B,
        "sku_code",
        lambda: (
            f"{R.choice(['CAN', 'KEG', 'BTL'])}-{R.choice(['HAZY', 'PILS', 'STOUT', 'SOUR'])}-{R.choice(['440', '330', '30L', '473'])}"
        ),
        [
            "SKU {v} oversold on Shopify",
            "položka {v} chybí v Pohodě",
            "SKU {v} sem estoque",
        ],
    )
    K(
        B,
        "oauth_client_id",
        [
            digits(12)
            + "-"
            + s(string.ascii_lowercase + string.digits, 32)
            + ".apps.googleusercontent.com",
            "ABc" + s(ALNUM, 47),
        ],
        [
            "Google sign-in client id for the staff portal: {v}",
            "QuickBooks app client ID (public): {v}",
        ],
    )
    K(
        B,
        "webhook_endpoint_no_secret",
        [
            "https://shop.hopline.com/hooks/shopify/orders-create",
            "https://api.hopline.cz/edi/as2/inbound",
            "https://pos.hopline.com.br/webhooks/mercadopago",
        ],
        [
            "Shopify webhook target: {v} (HMAC verified)",
            "náš endpoint pro AS2: {v}",
            "URL de notificação do Mercado Pago: {v}",
        ],
    )
    K(
        B,
        "conn_string_no_password",
        [
            "postgresql://erp_app@db.hopline.internal:5432/inventory",
            "Server=tcp:erp-sql01,1433;Database=MoneyS5;Integrated Security=SSPI",
            "redis://cache.hopline.internal:6379/2",
        ],
        [
            "DATABASE_URL={v} (password via PGPASSFILE)",
            "ERP conn: {v}",
            "REDIS_URL={v}",
        ],
    )
    K(
        B,
        "stripe_test_card",
        ["4242 4242 4242 4242", "4000 0000 0000 9995"],
        [
            "use test card {v} exp 12/34 CVC 123 in test mode",
            "cartão de teste do Stripe: {v}",
        ],
    )
    K(
        B,
        "omie_app_key",
        lambda: digits(13),
        [
            "app_key do Omie (identificador do app): {v}",
            "OMIE_APP_KEY={v}",
        ],
    )
    K(
        B,
        "monnit_sensor_id",
        lambda: digits(6),
        [
            "Monnit sensor {v} (CR-2 door) battery low",
            "čidlo {v} ukazuje -127 °C, asi vadné",
            "sensor {v} da câmara fria sem sinal",
        ],
    )
    K(
        B,
        "cold_store_log_line",
        [f"2026-12-06T02:14:{R.randint(10, 59)}Z", "ALM-CR2-HI", "zone 04"],
        [
            "{v} WARN coldstore CR-2 temp=6.8C setpoint=4.0C",
            "alarm code {v} acknowledged by night shift",
            "panel log: {v} bypassed during defrost",
        ],
    )
    K(
        B,
        "recipe_id",
        lambda: f"RCP-{digits(4)}",
        [
            "recipe {v} (West Coast IPA) target OG 1.062",
            "receptura {v} – Desítka, chmel Saaz",
            "receita {v} de Catharina Sour",
        ],
    )
    K(
        B,
        "sentry_dsn_public",
        lambda: f"https://{s(HEX, 32)}@o{digits(6)}.ingest.sentry.io/{digits(7)}",
        [
            "SENTRY_DSN={v}  # DSN is public, ships in the browser bundle",
            "DSN do Sentry no app do taproom: {v}",
        ],
    )
    K(
        B,
        "excise_stamp_ref",
        lambda: f"SPD-{digits(7)}",
        [
            "spotřební daň z piva, přiznání {v}",
            "excise return ref {v} filed for November",
        ],
    )
    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for r in rows:
        out.write(json.dumps(r, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

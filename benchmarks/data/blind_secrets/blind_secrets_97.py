# ruff: noqa: E501, SIM115, UP031
"""Blind secret-detector corpus 97: wine estate with an export business.

Brief: notes, handovers, chat lines, commands, config and log lines kept as memory by the
team (and its AI coding agents) of a wine estate that also exports: vineyard sensors and
weather stations, cellar and bottling line systems, e-commerce and wine club, export and
excise portals, tasting room point of sale. Notes are in English, Italian and Afrikaans.
Secret rows hold live credentials; benign rows hold look-alikes a careful reader would keep.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_97.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat, gitlab_pat,
slack_bot_token, slack_webhook_url, discord_webhook_url, stripe_secret_key,
stripe_webhook_secret, shopify_admin_token, woocommerce_consumer_secret, paypal_client_secret,
twilio_auth_token, sendgrid_api_key, mailchimp_api_key, openai_api_key, anthropic_api_key,
google_api_key, gcp_service_account_key, ssh_private_key, postgres_url_password,
mysql_url_password, mongodb_url_password, redis_url_password, azure_storage_connection_string,
telegram_bot_token, ttn_api_key, lorawan_app_key, weatherlink_api_secret, wifi_passphrase,
plc_hmi_password, alarm_code, pos_manager_pin, portal_password, vpn_preshared_key,
bearer_jwt, npm_token, docker_hub_pat, square_access_token, wineclub_api_secret,
mfa_recovery_codes, totp_seed, smtp_password, django_secret_key, vault_token,
payfast_passphrase, nexi_mac_key, courier_api_secret.

Kinds, benign: aws_example_key_id, placeholder, env_var_reference, vault_path, masked_value,
revoked_key, git_commit_sha, image_digest, request_uuid, stripe_publishable_key,
recaptcha_site_key, ssh_public_key, certificate_pem, ssh_host_fingerprint, lorawan_dev_eui,
lorawan_join_eui, weather_station_id, mac_address, equipment_serial, bottling_lot_code,
excise_number, eori_number, vat_number, hs_tariff_code, wine_of_origin_seal, waybill_number,
container_number, shop_order_number, ticket_reference, invoice_number, iban, gtin_barcode,
build_version, docker_image_tag, stripe_price_id, ga_measurement_id, twilio_account_sid,
slack_channel_id, aws_arn, db_url_without_password, hostname_ip, bcrypt_hash,
password_policy, lora_payload, pgp_fingerprint, age_recipient, oauth_client_id,
portal_username, wineclub_member_number, tank_barrel_id, stripe_test_card,
documented_example_jwt, shopify_store_domain, checksum_md5.
"""

import json
import random
import string
import sys

SEED = 9797

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
UPPER_DIG = string.ascii_uppercase + string.digits
B64 = string.ascii_letters + string.digits + "+/"
URLSAFE = string.ascii_letters + string.digits + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _s(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _pem_body(rng, lines, width=64):
    return "\n".join(_s(rng, B64, width) for _ in range(lines))


# ---------------------------------------------------------------- secret generators


def g_aws_secret(r):
    return _s(r, string.ascii_letters + string.digits + "/+", 40)


def g_ghp(r):
    return "ghp_" + _s(r, ALNUM, 36)


def g_gh_fine(r):
    return "github_pat_11" + _s(r, UPPER_DIG, 20) + "_" + _s(r, ALNUM, 59)


def g_glpat(r):
    return "glpat-" + _s(r, URLSAFE, 20)


def g_xoxb(r):
    return "xoxb-%d-%d-%s" % (
        r.randint(10**10, 10**11),
        r.randint(10**12, 10**13),
        _s(r, ALNUM, 24),
    )


def g_slack_hook(r):
    return "https://hooks.slack.com/services/T%s/B%s/%s" % (
        _s(r, UPPER_DIG, 8),
        _s(r, UPPER_DIG, 10),
        _s(r, ALNUM, 24),
    )


def g_discord_hook(r):
    return "https://discord.com/api/webhooks/%d/%s" % (
        r.randint(10**17, 10**18),
        _s(r, URLSAFE, 68),
    )


def g_sk_live(r):
    return "sk_live_51" + _s(r, ALNUM, 97)


def g_whsec(r):
    return "whsec_" + _s(r, ALNUM, 32)


def g_shpat(r):
    return "shpat_" + _s(r, HEX, 32)


def g_wc_cs(r):
    return "cs_" + _s(r, HEX, 40)


def g_paypal_secret(r):
    return "E" + _s(r, URLSAFE, 79)


def g_hex32(r):
    return _s(r, HEX, 32)


def g_sendgrid(r):
    return "SG." + _s(r, URLSAFE, 22) + "." + _s(r, URLSAFE, 43)


def g_mailchimp(r):
    return _s(r, HEX, 32) + "-us" + str(r.randint(2, 21))


def g_openai(r):
    return "sk-proj-" + _s(r, URLSAFE, 74) + "T3BlbkFJ" + _s(r, URLSAFE, 74)


def g_anthropic(r):
    return "sk-ant-api03-" + _s(r, URLSAFE, 93) + "AA"


def g_google(r):
    return "AIza" + _s(r, URLSAFE, 35)


def g_pkcs8(r):
    return (
        "-----BEGIN PRIVATE KEY-----\n"
        + _pem_body(r, 6)
        + "\n"
        + _s(r, B64, 20)
        + "=\n-----END PRIVATE KEY-----"
    )


def g_openssh(r):
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        + _pem_body(r, 4, 70)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


HUMAN_PW = [
    "Pinotage@2019!",
    "Stellenbosch#77",
    "Vendemmia2024!",
    "Chenin_Blanc88",
    "Kelder$Deur12",
    "Barrique!Rosso9",
    "Druiwe-Oes2025",
    "Sangiovese#31",
    "Bottelaar@44",
    "Wynkelder!2023",
    "Cantina_Nord7!",
    "Proeflokaal#5",
    "Merlot4ever!",
    "Vigna$Alta2022",
    "Kuiper&Vat19",
    "Nebbiolo_Langhe1",
    "Oesjaar!2026",
    "Tappo#Sughero8",
    "Mosto-Fresco55",
    "Groendruif!9",
]


def g_human_pw(r):
    return r.choice(HUMAN_PW) + _s(r, string.digits, 1)


def g_db_pw(r):
    return _s(r, ALNUM, 18)


def g_azure_key(r):
    return _s(r, B64, 86) + "=="


def g_telegram(r):
    return "%d:AA%s" % (r.randint(10**9, 8 * 10**9), _s(r, URLSAFE, 33))


def g_ttn(r):
    return "NNSXS." + _s(r, UPPER_DIG, 39) + "." + _s(r, UPPER_DIG, 52)


def g_hex32_upper(r):
    return _s(r, "0123456789ABCDEF", 32)


def g_wifi(r):
    return (
        r.choice(["RooiWyn", "Vino", "Proe", "Cellar", "Tasting", "Kelder"])
        + r.choice(["_Gaste", "Ospiti", "Guests", "Lokaal"])
        + str(r.randint(2019, 2026))
        + r.choice("!#$*")
    )


def g_pin4(r):
    return "%04d" % r.randint(1000, 9999)


def g_pin6(r):
    return "%06d" % r.randint(100000, 999999)


def g_psk(r):
    return _s(r, ALNUM + "!#%+", 32)


def g_jwt(r):
    head = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
    return head + ".eyJ" + _s(r, URLSAFE, 120) + "." + _s(r, URLSAFE, 86)


def g_npm(r):
    return "npm_" + _s(r, ALNUM, 36)


def g_dckr(r):
    return "dckr_pat_" + _s(r, URLSAFE, 27)


def g_square(r):
    return "EAAAE" + _s(r, URLSAFE, 59)


def g_c7(r):
    return _s(r, ALNUM, 64)


def g_recovery(r):
    return " ".join(
        "%s-%s"
        % (_s(r, "abcdefghjkmnpqrstuvwxyz23456789", 5), _s(r, "abcdefghjkmnpqrstuvwxyz23456789", 5))
        for _ in range(4)
    )


def g_totp(r):
    return _s(r, B32, 32)


def g_smtp(r):
    return _s(r, ALNUM, 16)


def g_django(r):
    return _s(r, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)", 50)


def g_hvs(r):
    return "hvs." + _s(r, URLSAFE, 90)


def g_payfast(r):
    return (
        r.choice(["Jonkershoek", "Simonsberg", "Helderberg", "Paarl"])
        + "-"
        + r.choice(["kelder", "oes", "wingerd", "wyn"])
        + "-"
        + str(r.randint(10, 99))
        + r.choice(["Rooi", "Wit", "Soet"])
    )


def g_nexi(r):
    return _s(r, string.ascii_uppercase + string.digits, 40)


def g_courier(r):
    return _s(r, ALNUM, 16)


# ---------------------------------------------------------------- benign generators


def b_aws_example(r):
    return r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])


def b_placeholder(r):
    return r.choice(
        [
            "<your-api-key>",
            "YOUR_SHOPIFY_TOKEN_HERE",
            "changeme",
            "xxxxxxxxxxxxxxxx",
            "<INSERISCI_CHIAVE>",
            "REPLACE_ME",
            "<wagwoord-hier>",
        ]
    )


def b_envref(r):
    return r.choice(
        [
            "${STRIPE_SECRET_KEY}",
            "$TTN_API_KEY",
            'os.environ["SHOPIFY_ADMIN_TOKEN"]',
            "${{ secrets.SLACK_WEBHOOK_URL }}",
            "%PAYFAST_PASSPHRASE%",
            "{{ vault_weatherlink_secret }}",
            "process.env.C7_SECRET",
        ]
    )


def b_vault_path(r):
    return r.choice(
        [
            "secret/data/estate/stripe/live",
            "kv/cellar/plc-hmi",
            "secret/export/sars-efiling",
            "op://Estate-Shared/Nexi XPay/mac_key",
            "kv/data/vineyard/ttn",
            "arn:aws:secretsmanager:eu-west-1:%d:secret:wineclub/c7-AbC12d"
            % r.randint(10**11, 10**12),
        ]
    )


def b_masked(r):
    return r.choice(
        [
            "sk_live_••••••••%s" % _s(r, ALNUM, 4),
            "shpat_****************%s" % _s(r, HEX, 4),
            "xoxb-****-****-%s" % _s(r, ALNUM, 4),
            "********",
            "[REDACTED]",
            "NNSXS.XXXX…%s" % _s(r, UPPER_DIG, 4),
        ]
    )


def b_revoked(r):
    return "ghp_" + _s(r, ALNUM, 36)


def b_sha1(r):
    return _s(r, HEX, 40)


def b_digest(r):
    return "sha256:" + _s(r, HEX, 64)


def b_uuid(r):
    h = _s(r, HEX, 32)
    return "%s-%s-4%s-%s%s-%s" % (h[:8], h[8:12], h[13:16], r.choice("89ab"), h[17:20], h[20:32])


def b_pk_live(r):
    return "pk_live_51" + _s(r, ALNUM, 97)


def b_recaptcha(r):
    return "6L" + _s(r, URLSAFE, 38)


def b_ssh_pub(r):
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, B64, 43)


def b_cert(r):
    return (
        "-----BEGIN CERTIFICATE-----\nMIID"
        + _s(r, B64, 60)
        + "\n"
        + _pem_body(r, 3)
        + "\n-----END CERTIFICATE-----"
    )


def b_fp(r):
    return "SHA256:" + _s(r, B64, 43)


def b_eui(r):
    return _s(r, "0123456789ABCDEF", 16)


def b_joineui(r):
    return "70B3D57ED0" + _s(r, "0123456789ABCDEF", 6)


def b_station(r):
    return str(r.randint(100000, 999999))


def b_mac(r):
    return ":".join(_s(r, "0123456789ABCDEF", 2) for _ in range(6))


def b_serial(r):
    return r.choice(["GAI-", "KRN-", "SN ", "BRT-"]) + str(r.randint(10**6, 10**7))


def b_lot(r):
    return "L%02d%03d%s" % (r.randint(19, 26), r.randint(1, 365), r.choice("ABCD"))


def b_excise(r):
    return r.choice(
        [
            "IT00%s%07dZ" % (r.choice(["TO", "CN", "SI", "VR"]), r.randint(10**6, 10**7 - 1)),
            "%08d" % r.randint(10**7, 10**8 - 1),
        ]
    )


def b_eori(r):
    return r.choice(
        [
            "IT%011d" % r.randint(10**10, 10**11 - 1),
            "ZA%010d" % r.randint(10**9, 10**10 - 1),
            "GB%012d" % r.randint(10**11, 10**12 - 1),
        ]
    )


def b_vat(r):
    return r.choice(
        ["IT%011d" % r.randint(10**10, 10**11 - 1), "4%09d" % r.randint(10**8, 10**9 - 1)]
    )


def b_hs(r):
    return r.choice(["2204.21", "2204.21.42", "2204.10.11", "2204.29", "2208.20"])


def b_wo_seal(r):
    return "%s%07d" % (r.choice(["A", "B", "W"]), r.randint(10**6, 10**7 - 1))


def b_waybill(r):
    return "%010d" % r.randint(10**9, 10**10 - 1)


def b_container(r):
    return r.choice(["MSKU", "MAEU", "CMAU", "HLXU"]) + "%07d" % r.randint(10**6, 10**7 - 1)


def b_order(r):
    return "#%d" % r.randint(1000, 99999)


def b_ticket(r):
    return r.choice(["OPS", "CELLAR", "SHOP", "EXP"]) + "-%d" % r.randint(10, 2999)


def b_invoice(r):
    return r.choice(["INV-", "FT/", "FAK-"]) + "%d-%05d" % (
        r.randint(2024, 2026),
        r.randint(1, 99999),
    )


def b_iban(r):
    return r.choice(
        [
            "IT60X0542811101%012d" % r.randint(10**11, 10**12 - 1),
            "DE89370400440%09d" % r.randint(10**8, 10**9 - 1),
        ]
    )


def b_gtin(r):
    return "60%011d" % r.randint(10**10, 10**11 - 1)


def b_version(r):
    return "%d.%d.%d" % (r.randint(1, 9), r.randint(0, 30), r.randint(0, 40))


def b_tag(r):
    return "%s:%d.%d.%d-%s" % (
        r.choice(
            ["ghcr.io/estate/cellar-api", "estate/shop-sync", "registry.estate.local/labeller"]
        ),
        r.randint(1, 4),
        r.randint(0, 20),
        r.randint(0, 9),
        _s(r, HEX, 7),
    )


def b_price(r):
    return r.choice(["price_", "prod_"]) + _s(r, ALNUM, 24 if r.random() < 0.5 else 14)


def b_ga(r):
    return "G-" + _s(r, UPPER_DIG, 10)


def b_twilio_sid(r):
    return "AC" + _s(r, HEX, 32)


def b_slack_chan(r):
    return r.choice(["C", "U", "G"]) + _s(r, UPPER_DIG, 10)


def b_arn(r):
    return "arn:aws:%s" % r.choice(
        [
            "s3:::estate-label-artwork",
            "iam::%d:role/cellar-iot-ingest" % r.randint(10**11, 10**12),
            "lambda:af-south-1:%d:function:weather-sync" % r.randint(10**11, 10**12),
        ]
    )


def b_dburl(r):
    return r.choice(
        [
            "postgresql://cellar_ro@db.estate.internal:5432/cellar",
            "mysql://woo@127.0.0.1:3306/wordpress",
            "mongodb+srv://cluster0.ab1cd.mongodb.net/wineclub",
            "redis://cache.estate.internal:6379/0",
        ]
    )


def b_host(r):
    return r.choice(
        [
            "10.20.%d.%d" % (r.randint(0, 9), r.randint(2, 250)),
            "plc-filler-01.cellar.lan",
            "192.168.%d.%d" % (r.randint(0, 5), r.randint(2, 250)),
            "vpn.estate.co.za",
        ]
    )


def b_bcrypt(r):
    return "$2b$12$" + _s(r, string.ascii_letters + string.digits + "./", 53)


def b_policy(r):
    return r.choice(
        [
            "minimum 14 characters, no reuse of the last 5",
            "minimo 12 caratteri con almeno un numero e un simbolo",
            "minstens 12 karakters, verander elke 90 dae",
            "rotate every 90 days, never paste into chat",
        ]
    )


def b_lora(r):
    return _s(r, B64, 16) + "=="


def b_pgp(r):
    return " ".join(_s(r, "0123456789ABCDEF", 4) for _ in range(10))


def b_age(r):
    return "age1" + _s(r, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)


def b_client_id(r):
    return "%d-%s.apps.googleusercontent.com" % (
        r.randint(10**11, 10**12),
        _s(r, string.ascii_lowercase + string.digits, 32),
    )


def b_username(r):
    return r.choice(
        [
            "kelder.admin",
            "export@estate.co.za",
            "vendemmia.ops",
            "proeflokaal01",
            "acc_cantina",
            "wynmaker",
        ]
    )


def b_member(r):
    return r.choice(["WC-", "CLUB-", "LID-"]) + "%05d" % r.randint(1, 99999)


def b_tank(r):
    return r.choice(["T", "TK-", "BRL-", "Vat "]) + "%d" % r.randint(1, 480)


def b_testcard(r):
    return r.choice(["4242 4242 4242 4242", "4000 0027 6000 3184", "5555 5555 5555 4444"])


def b_doc_jwt(r):
    return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"


def b_store(r):
    return r.choice(["estate-wines", "cantina-shop", "wynlandgoed"]) + ".myshopify.com"


def b_md5(r):
    return _s(r, HEX, 32)


SECRET = [
    (
        "aws_secret_access_key",
        g_aws_secret,
        [
            "aws_secret_access_key = {v}",
            "Backup of label artwork to S3 uses key AKIA4ESTATE7LBLS3UP with secret {v}, don't lose it.",
            "export AWS_SECRET_ACCESS_KEY={v}",
            "Chiave segreta AWS per il bucket delle etichette: {v}",
        ],
    ),
    (
        "github_pat",
        g_ghp,
        [
            "git clone https://{v}@github.com/estate-wines/cellar-api.git",
            "Agent memo: PAT for pushing the shop theme repo is {v} (expires March).",
            "GH_TOKEN={v}",
            "Token vir die GitHub deploy: {v} - moenie deel nie",
        ],
    ),
    (
        "github_fine_grained_pat",
        g_gh_fine,
        [
            "fine-grained token for estate-wines/bottling-dashboard: {v}",
            '  github_token: "{v}"',
            "Token GitHub (solo lettura, repo vigneto-sensori): {v}",
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "GITLAB_TOKEN={v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.estate.co.za/api/v4/projects',
            "Handover: the runner registration uses my personal token {v}, swap it for a group token.",
        ],
    ),
    (
        "slack_bot_token",
        g_xoxb,
        [
            "SLACK_BOT_TOKEN={v}",
            "The frost-alert bot posts to #wingerd with token {v}",
            "slack:\n  bot_token: {v}\n  channel: C05FROSTALR",
            "Token del bot Slack per gli allarmi temperatura vasche: {v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "FERMENT_ALERT_WEBHOOK={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"Tank 14 over 28C\"}}' {v}",
            "Webhook vir bottellyn-stilstand: {v}",
        ],
    ),
    (
        "discord_webhook_url",
        g_discord_hook,
        [
            "wine club community discord hook: {v}",
            'DISCORD_WEBHOOK_URL="{v}"',
            "Il webhook Discord per gli annunci del club è {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_sk_live,
        [
            "STRIPE_SECRET_KEY={v}",
            'stripe.api_key = "{v}"',
            "Live Stripe key for the wine club renewals: {v}",
            "Sleutel vir Stripe (lewendig): {v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
        ],
    ),
    (
        "stripe_webhook_secret",
        g_whsec,
        [
            "STRIPE_WEBHOOK_SECRET={v}",
            "endpoint /hooks/stripe signing secret {v}",
            "Segreto di firma del webhook Stripe (ordini export): {v}",
        ],
    ),
    (
        "shopify_admin_token",
        g_shpat,
        [
            "SHOPIFY_ADMIN_API_TOKEN={v}",
            "X-Shopify-Access-Token: {v}",
            "Custom app 'Cellar Stock Sync' admin token: {v}",
            "Token admin Shopify per sincronizzare le giacenze: {v}",
        ],
    ),
    (
        "woocommerce_consumer_secret",
        g_wc_cs,
        [
            "WC_CONSUMER_SECRET={v}",
            "woo REST keys: ck_6f1d0c0e2b8a4a1f9d3e7c5b2a1f0e9d8c7b6a5f / {v}",
            "Verbruikergeheim vir die ou WooCommerce winkel: {v}",
        ],
    ),
    (
        "paypal_client_secret",
        g_paypal_secret,
        [
            "PAYPAL_CLIENT_SECRET={v}",
            "paypal:\n  mode: live\n  client_secret: {v}",
            "PayPal live secret for US export orders: {v}",
        ],
    ),
    (
        "twilio_auth_token",
        g_hex32,
        [
            "TWILIO_AUTH_TOKEN={v}",
            "SMS for tasting bookings: account ACb1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6, auth token {v}",
            "Twilio auth token (herinnering SMS vir proeë): {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SENDGRID_API_KEY={v}",
            "Newsletter release mail goes out via SendGrid key {v}",
            "Chiave SendGrid per le email di spedizione: {v}",
            '"sendgrid": {{"apiKey": "{v}"}}',
        ],
    ),
    (
        "mailchimp_api_key",
        g_mailchimp,
        [
            "MAILCHIMP_API_KEY={v}",
            "wine club audience sync: mailchimp key {v}",
            "Mailchimp sleutel vir die nuusbrief: {v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "Tasting-note generator uses {v} on the estate org account.",
            "Chiave OpenAI per le schede di degustazione: {v}",
        ],
    ),
    (
        "anthropic_api_key",
        g_anthropic,
        [
            "ANTHROPIC_API_KEY={v}",
            "agent config: api_key: {v}",
            "Sleutel vir die vertaal-agent (Claude): {v}",
        ],
    ),
    (
        "google_api_key",
        g_google,
        [
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "Geocoding for export addresses, server-side unrestricted key: {v}",
            "Chiave API Google (Sheets vendemmia, non ristretta): {v}",
        ],
    ),
    (
        "gcp_service_account_key",
        g_pkcs8,
        [
            '"private_key": "{v}"',
            "Service account vineyard-bq@estate-data.iam key pasted for the agent:\n{v}",
            "Sleutel van die BigQuery diensrekening:\n{v}",
        ],
    ),
    (
        "ssh_private_key",
        g_openssh,
        [
            "deploy key for the bottling line gateway:\n{v}",
            "~/.ssh/id_ed25519 on the cellar jump host:\n{v}",
            "Chiave privata SSH del server etichettatrice:\n{v}",
        ],
    ),
    (
        "postgres_url_password",
        lambda r: "postgresql://cellar_app:%s@db.estate.internal:5432/cellar" % g_db_pw(r),
        [
            "DATABASE_URL={v}",
            "Cellar tracking DB: {v}",
            "psql \"{v}\" -c 'select * from tanks'",
            "Koppeling na die kelder-databasis: {v}",
        ],
    ),
    (
        "mysql_url_password",
        lambda r: "mysql://wp_shop:%s@127.0.0.1:3306/wordpress" % g_db_pw(r),
        [
            "WORDPRESS_DB_URL={v}",
            "Stringa di connessione MySQL del negozio: {v}",
            "legacy shop db (before Shopify move): {v}",
        ],
    ),
    (
        "mongodb_url_password",
        lambda r: "mongodb+srv://sensors:%s@cluster0.vgd7x.mongodb.net/vineyard" % g_db_pw(r),
        [
            "MONGO_URI={v}",
            "soil moisture readings land in {v}",
            "Die sensor-data Mongo string: {v}",
        ],
    ),
    (
        "redis_url_password",
        lambda r: "redis://:%s@cache.estate.internal:6379/0" % g_db_pw(r),
        [
            "REDIS_URL={v}",
            "Cache per il carrello: {v}",
            "session store for the club portal -> {v}",
        ],
    ),
    (
        "azure_storage_connection_string",
        lambda r: (
            "DefaultEndpointsProtocol=https;AccountName=estatelabels;AccountKey=%s;EndpointSuffix=core.windows.net"
            % g_azure_key(r)
        ),
        [
            'AZURE_STORAGE_CONNECTION_STRING="{v}"',
            "The label printer exports PDFs to blob storage: {v}",
            "Stoorrekening vir etiket-PDFs: {v}",
        ],
    ),
    (
        "telegram_bot_token",
        g_telegram,
        [
            "TELEGRAM_BOT_TOKEN={v}",
            "Frost alarm bot (@WingerdRypBot) token: {v}",
            "Bot Telegram per gli allarmi gelata: {v}",
        ],
    ),
    (
        "ttn_api_key",
        g_ttn,
        [
            "TTN_API_KEY={v}",
            "The Things Stack app vineyard-blok-7, API key with write rights: {v}",
            'curl -H "Authorization: Bearer {v}" https://eu1.cloud.thethings.network/api/v3/applications',
            "Chiave API TTN per i sensori suolo: {v}",
        ],
    ),
    (
        "lorawan_app_key",
        g_hex32_upper,
        [
            "soil probe SP-12 OTAA: DevEUI 70B3D57ED005A1F2, AppKey {v}",
            "AppKey vir die weerstasie-knoop: {v}",
            "lorawan:\n  dev_eui: A84041000181C3B2\n  app_key: {v}",
        ],
    ),
    (
        "weatherlink_api_secret",
        g_hex32,
        [
            "WEATHERLINK_API_SECRET={v}",
            "Davis WeatherLink v2: api-key aj3kdxm0bqzs6vhf1yiofvcnnkyhqh2t, api-secret {v}",
            "Segreto API WeatherLink per la stazione Vigna Alta: {v}",
        ],
    ),
    (
        "wifi_passphrase",
        g_wifi,
        [
            "Tasting room guest wifi: SSID Estate-Guests, password {v}",
            "WiFi proeflokaal wagwoord: {v}",
            "Rete ospiti cantina, password: {v}",
            'wpa_passphrase="{v}"',
        ],
    ),
    (
        "plc_hmi_password",
        g_human_pw,
        [
            "Filler HMI (Siemens panel) maintenance login: service / {v}",
            "Password tecnico della riempitrice: {v}",
            "Etiketmasjien admin wagwoord: {v}",
            'hmi:\n  user: admin\n  password: "{v}"',
        ],
    ),
    (
        "alarm_code",
        g_pin4,
        [
            "Cellar alarm disarm code is {v}, change after harvest casuals leave.",
            "Alarmkode vir die kelder: {v}",
            "Codice allarme magazzino bottiglie: {v}",
            "Barrel room keypad code {v}#",
        ],
    ),
    (
        "pos_manager_pin",
        g_pin4,
        [
            "POS manager override PIN for refunds: {v}",
            "Bestuurder-PIN op die kasregister: {v}",
            "PIN responsabile cassa enoteca: {v}",
        ],
    ),
    (
        "portal_password",
        g_human_pw,
        [
            "SARS eFiling login for customs: export@estate.co.za / {v}",
            "Password portale ADM (accise): {v}",
            "WOSA export certification portal, shared login, password {v}",
            "Wagwoord vir SAWIS: {v}",
            "Excise portal — user vendemmia.ops pass: {v}",
        ],
    ),
    (
        "vpn_preshared_key",
        g_psk,
        [
            "IPsec PSK between estate and Italian warehouse: {v}",
            'leftpsk/rightpsk secret: "{v}"',
            "Chiave condivisa VPN magazzino Verona: {v}",
        ],
    ),
    (
        "bearer_jwt",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "Token for the cellar API (valid 30 days) copied from the browser: {v}",
            "Die dashboard se toegangstoken: {v}",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "Token npm per pubblicare @estate/label-kit: {v}",
        ],
    ),
    (
        "docker_hub_pat",
        g_dckr,
        [
            "docker login -u estatewines -p {v}",
            "DOCKERHUB_TOKEN={v}",
            "Docker Hub toegangstoken vir CI: {v}",
        ],
    ),
    (
        "square_access_token",
        g_square,
        [
            "SQUARE_ACCESS_TOKEN={v}",
            "Tasting room Square production token: {v}",
            "Token Square per la cassa della sala degustazione: {v}",
        ],
    ),
    (
        "wineclub_api_secret",
        g_c7,
        [
            "C7_SECRET_KEY={v}",
            "Commerce7 app 'club-shipments' secret key {v}",
            "Wynklub-platform geheime sleutel: {v}",
        ],
    ),
    (
        "mfa_recovery_codes",
        g_recovery,
        [
            "Recovery codes for the shared Google admin: {v}",
            "Herstelkodes vir die uitvoer-portaal: {v}",
            "Codici di recupero 2FA account Shopify owner: {v}",
        ],
    ),
    (
        "totp_seed",
        g_totp,
        [
            "TOTP secret for the bank export account (so the agent can generate codes): {v}",
            "otpauth://totp/Estate:export?secret={v}&issuer=Estate",
            "Seme TOTP del portale dogane: {v}",
        ],
    ),
    (
        "smtp_password",
        g_smtp,
        [
            "SMTP_PASSWORD={v}",
            "smtp.office365.com:587 orders@estate.co.za password {v}",
            "Password SMTP per le conferme ordine: {v}",
            "E-pos bediener wagwoord: {v}",
        ],
    ),
    (
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "DJANGO_SECRET_KEY={v}",
            "Chiave segreta Django del portale ordini B2B: {v}",
        ],
    ),
    (
        "vault_token",
        g_hvs,
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
            "Root token ná unseal: {v}",
        ],
    ),
    (
        "payfast_passphrase",
        g_payfast,
        [
            "PayFast merchant 10023456 passphrase: {v}",
            "PAYFAST_PASSPHRASE={v}",
            "Die PayFast wagfrase vir die aanlyn winkel is {v}",
        ],
    ),
    (
        "nexi_mac_key",
        g_nexi,
        [
            "Nexi XPay chiave segreta MAC (alias ALIAS_WEB_00012345): {v}",
            "NEXI_MAC_KEY={v}",
            "Italian shop checkout HMAC key from Nexi back office: {v}",
        ],
    ),
    (
        "courier_api_secret",
        g_courier,
        [
            "DHL Express MyDHL API: user estatewinesZA, password {v}",
            "DHL_API_SECRET={v}",
            "Segreto API corriere per le etichette di spedizione: {v}",
        ],
    ),
]

BENIGN = [
    (
        "aws_example_key_id",
        b_aws_example,
        [
            "The AWS docs use {v} in their examples; ours lives in the vault.",
            "# example only: {v}",
            "Moenie {v} gebruik nie, dit is die AWS voorbeeld.",
        ],
    ),
    (
        "placeholder",
        b_placeholder,
        [
            "SHOPIFY_ADMIN_API_TOKEN={v}",
            'stripe.api_key = "{v}"  # fill in locally',
            "Template .env.example: TTN_API_KEY={v}",
            "password: {v}  # placeholder, real one in 1Password",
        ],
    ),
    (
        "env_var_reference",
        b_envref,
        [
            "The sync job reads the key from {v} at start-up.",
            "api_key: {v}",
            "Die sleutel kom uit {v}, nie uit die kode nie.",
            "La chiave viene letta da {v}",
        ],
    ),
    (
        "vault_path",
        b_vault_path,
        [
            "Live Stripe key is at {v}",
            "Wagwoord gestoor by {v}",
            "Credenziali in {v}",
            "secret_ref: {v}",
        ],
    ),
    (
        "masked_value",
        b_masked,
        [
            "Stripe dashboard shows the restricted key as {v}",
            "log: auth ok token={v}",
            "Token nel log mascherato: {v}",
        ],
    ),
    (
        "revoked_key",
        b_revoked,
        [
            "Revoked on 2 Nov after it was pasted in Slack: {v} (dead, kept for the incident note).",
            "Herroep en vervang: {v} werk nie meer nie.",
            "Token revocato il 14/10, non più valido: {v}",
        ],
    ),
    (
        "git_commit_sha",
        b_sha1,
        [
            "Deployed cellar-api at commit {v}",
            "Fix for the tank temperature rounding landed in {v}",
            "Commit {v} herstel die etiket-drukker fout.",
        ],
    ),
    (
        "image_digest",
        b_digest,
        [
            "image: ghcr.io/estate/shop-sync@{v}",
            "Pinned the bottling dashboard container to {v}",
            "Digest dell'immagine in produzione: {v}",
        ],
    ),
    (
        "request_uuid",
        b_uuid,
        [
            "Shopify support asked for the request id: {v}",
            "ERROR 502 from TTN uplink forwarder request_id={v}",
            "Versoek-ID vir PayFast ondersoek: {v}",
            "Correlation id dell'ordine export: {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        b_pk_live,
        [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "Checkout page embeds the publishable key {v}; that one is public.",
            "Chiave pubblicabile Stripe: {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        b_recaptcha,
        [
            "reCAPTCHA site key on the club signup form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "Werf-sleutel vir reCAPTCHA (publiek): {v}",
        ],
    ),
    (
        "ssh_public_key",
        b_ssh_pub,
        [
            "Add to authorized_keys on the gateway: {v} marco@cantina",
            "Publieke sleutel van die oes-laptop: {v}",
            "{v} deploy@bottling-line",
        ],
    ),
    (
        "certificate_pem",
        b_cert,
        [
            "Nexi asked for our public certificate:\n{v}",
            "ca.crt for the MQTT broker:\n{v}",
        ],
    ),
    (
        "ssh_host_fingerprint",
        b_fp,
        [
            "ED25519 key fingerprint is {v}.",
            "Verify the jump host fingerprint {v} before accepting.",
            "Vingerafdruk van die kelder-bediener: {v}",
        ],
    ),
    (
        "lorawan_dev_eui",
        b_eui,
        [
            "Soil probe block 7 row 22, DevEUI {v}",
            "DevEUI del sensore foglia bagnata: {v}",
            "Nuwe sensor geregistreer, DevEUI {v}",
            "| SP-19 | {v} | Chenin blok B |",
        ],
    ),
    (
        "lorawan_join_eui",
        b_joineui,
        [
            "JoinEUI (AppEUI) for all Dragino probes: {v}",
            "join_eui: {v}",
            "AppEUI comune a tutti i nodi: {v}",
        ],
    ),
    (
        "weather_station_id",
        b_station,
        [
            "WeatherLink station_id {v} (Vigna Alta)",
            "Weerstasie nommer {v} op die Simonsberg-helling",
            "Station {v} stopped reporting at 03:10, battery.",
        ],
    ),
    (
        "mac_address",
        b_mac,
        [
            "Reserve DHCP for the labeller at {v}",
            "Indirizzo MAC della bilancia pallet: {v}",
            "POS terminal MAC {v} op VLAN 30",
        ],
    ),
    (
        "equipment_serial",
        b_serial,
        [
            "Filler serial {v}, service due in February.",
            "Numero di serie della pressa pneumatica: {v}",
            "Reeksnommer van die pomp: {v}",
            "Card reader {v} shipped back to Square for replacement.",
        ],
    ),
    (
        "bottling_lot_code",
        b_lot,
        [
            "Lot {v} — Chenin 2025, 4,800 bottles, cork batch 77.",
            "Lotto {v} bloccato per controllo TCA.",
            "Bottellot {v} is op palette 3 tot 9.",
            "recall check: customer bottle shows {v}",
        ],
    ),
    (
        "excise_number",
        b_excise,
        [
            "Excise registration number {v} goes on every e-AD.",
            "Codice accisa deposito fiscale: {v}",
            "Aksynsregistrasie: {v}",
        ],
    ),
    (
        "eori_number",
        b_eori,
        [
            "EORI {v} for UK shipments.",
            "Numero EORI della cantina: {v}",
            "Invoerder se EORI: {v}",
        ],
    ),
    (
        "vat_number",
        b_vat,
        [
            "VAT number on export invoices: {v}",
            "Partita IVA {v}",
            "BTW-nommer: {v}",
        ],
    ),
    (
        "hs_tariff_code",
        b_hs,
        [
            "Still wine in bottles under 2 l, HS {v}.",
            "Codice doganale {v} per il bag-in-box.",
            "Tarief kode {v} op die faktuur.",
        ],
    ),
    (
        "wine_of_origin_seal",
        b_wo_seal,
        [
            "WO certification seal range starts at {v} for the 2025 Pinotage.",
            "Seëlnommer {v} op die kapsule.",
            "Sigillo certificazione: {v}",
        ],
    ),
    (
        "waybill_number",
        b_waybill,
        [
            "DHL waybill {v} for the samples to Milan.",
            "Vragbrief {v}, aflewering Vrydag.",
            "Lettera di vettura {v} in giacenza a Malpensa.",
        ],
    ),
    (
        "container_number",
        b_container,
        [
            "Reefer container {v} loaded at Cape Town, ETA Genoa 3 weeks.",
            "Container {v} sdoganato.",
            "Houer {v} staan nog by die hawe.",
        ],
    ),
    (
        "shop_order_number",
        b_order,
        [
            "Order {v} ships in the 6-bottle case.",
            "Bestelling {v} is beskadig aangekom.",
            "Ordine {v} rimborsato.",
        ],
    ),
    (
        "ticket_reference",
        b_ticket,
        [
            "See {v} for the labeller jam root cause.",
            "Opened {v}: Square terminal offline in tasting room.",
            "Rif. ticket {v}",
        ],
    ),
    (
        "invoice_number",
        b_invoice,
        [
            "Invoice {v} sent to the importer.",
            "Fattura {v} pagata.",
            "Faktuur {v} moet nog betaal word.",
        ],
    ),
    (
        "iban",
        b_iban,
        [
            "Importer's IBAN for returns: {v}",
            "IBAN del conto export: {v}",
        ],
    ),
    (
        "gtin_barcode",
        b_gtin,
        [
            "EAN on the back label: {v}",
            "Strepieskode {v} vir die Cap Classique.",
            "GTIN {v} aggiunto al catalogo Shopify.",
        ],
    ),
    (
        "build_version",
        b_version,
        [
            "Cellar app v{v} released to the tablets.",
            "Firmware {v} on the weather station console.",
            "Versione {v} del plugin WooCommerce.",
        ],
    ),
    (
        "docker_image_tag",
        b_tag,
        [
            "image: {v}",
            "rolled back to {v}",
            "Terug na {v} ná die fout.",
        ],
    ),
    (
        "stripe_price_id",
        b_price,
        [
            "Club tier 'Reserve 6' maps to {v}",
            "Wynklub-vlak prys: {v}",
            "Prezzo abbonamento club: {v}",
        ],
    ),
    (
        "ga_measurement_id",
        b_ga,
        [
            "GA4 measurement id {v} on the shop.",
            "gtag('config', '{v}');",
            "ID Analytics: {v}",
        ],
    ),
    (
        "twilio_account_sid",
        b_twilio_sid,
        [
            "Twilio account SID {v} (the auth token is in the vault).",
            "TWILIO_ACCOUNT_SID={v}",
            "Rekening-SID: {v}",
        ],
    ),
    (
        "slack_channel_id",
        b_slack_chan,
        [
            "Frost alerts post into channel {v}.",
            "Slack user id of the winemaker: {v}",
            "Kanaal {v} is vir die bottellyn.",
        ],
    ),
    (
        "aws_arn",
        b_arn,
        [
            "Resource: {v}",
            "The ingest lambda runs as {v}",
            "ARN della risorsa: {v}",
        ],
    ),
    (
        "db_url_without_password",
        b_dburl,
        [
            "DATABASE_URL={v} (password from PGPASSWORD / .pgpass)",
            "Read-only connection, IAM auth: {v}",
            "Verbinding sonder wagwoord: {v}",
        ],
    ),
    (
        "hostname_ip",
        b_host,
        [
            "Filler PLC is at {v}",
            "Il gateway LoRa risponde su {v}",
            "Bediener adres: {v}",
        ],
    ),
    (
        "bcrypt_hash",
        b_bcrypt,
        [
            "users.password_hash for kelder.admin = {v}",
            "Hash bcrypt salvato nel DB: {v}",
            "stored hash {v} (not the password itself)",
        ],
    ),
    (
        "password_policy",
        b_policy,
        [
            "Portal password rule: {v}.",
            "Regola password: {v}.",
            "Wagwoordbeleid: {v}.",
        ],
    ),
    (
        "lora_payload",
        b_lora,
        [
            "uplink f_port=2 frm_payload={v} rssi=-112",
            "Payload ricevuto dal sensore: {v}",
            "Decode test payload {v} -> soil 31.2%, temp 14.8C",
        ],
    ),
    (
        "pgp_fingerprint",
        b_pgp,
        [
            "Encrypt the price list to the importer's key, fingerprint {v}",
            "Impronta PGP: {v}",
        ],
    ),
    (
        "age_recipient",
        b_age,
        [
            "sops recipient: {v}",
            "Publieke age-sleutel vir die backups: {v}",
        ],
    ),
    (
        "oauth_client_id",
        b_client_id,
        [
            "Google sign-in for the club portal, client id {v}",
            "GOOGLE_CLIENT_ID={v}",
            "ID client OAuth: {v}",
        ],
    ),
    (
        "portal_username",
        b_username,
        [
            "SARS eFiling username is {v}; password lives in 1Password.",
            "Utente portale ADM: {v}",
            "Gebruikersnaam vir SAWIS: {v}",
        ],
    ),
    (
        "wineclub_member_number",
        b_member,
        [
            "Member {v} skipped the autumn shipment.",
            "Lidnommer {v} het sy adres verander.",
            "Socio {v} ha chiesto la disdetta.",
        ],
    ),
    (
        "tank_barrel_id",
        b_tank,
        [
            "Racked {v} into tank 22 on Tuesday.",
            "{v} bevat Pinotage 2025, 225 l.",
            "Vasca {v} in fermentazione, 24C.",
        ],
    ),
    (
        "stripe_test_card",
        b_testcard,
        [
            "Test the club checkout with card {v}, any future expiry, any CVC.",
            "Carta di test Stripe: {v}",
            "Toetskaart {v} in staging gebruik.",
        ],
    ),
    (
        "documented_example_jwt",
        b_doc_jwt,
        [
            "Sample token from jwt.io for the parser unit test: {v}",
            "Voorbeeld-token uit die docs: {v}",
        ],
    ),
    (
        "shopify_store_domain",
        b_store,
        [
            "Shop domain: {v}",
            "SHOPIFY_STORE={v}",
            "Il negozio è {v}",
        ],
    ),
    (
        "checksum_md5",
        b_md5,
        [
            "md5 of label artwork PDF v3: {v}",
            "Firmware image checksum (md5) {v} matches vendor site.",
            "Kontrolesom {v} klop met die aflaai.",
        ],
    ),
]


EXTRA_SECRET = {
    "aws_secret_access_key": ["Sleutel vir S3 rugsteun (geheim): {v}"],
    "github_pat": ["Il token GitHub per le Actions del sito è {v}"],
    "gitlab_pat": ["Token GitLab per la pipeline del firmware: {v}"],
    "slack_webhook_url": ["handover: harvest-intake Slack hook is {v}"],
    "stripe_webhook_secret": ["Webhook-ondertekeningsgeheim: {v}"],
    "shopify_admin_token": [
        "shopify.yml:\n  store: estate-wines.myshopify.com\n  admin_token: {v}"
    ],
    "twilio_auth_token": ["client = Client('AC3f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5', '{v}')"],
    "mailchimp_api_key": ["Chiave Mailchimp per il club: {v}"],
    "openai_api_key": ["Handover: the label-copy script still has {v} hard-coded in translate.py"],
    "google_api_key": ["Maps sleutel sonder beperkings: {v}"],
    "postgres_url_password": ["Il DB della cantina: {v}"],
    "mongodb_url_password": ['mongosh "{v}"'],
    "redis_url_password": ["redis-cli -u {v} ping"],
    "telegram_bot_token": ["curl https://api.telegram.org/bot{v}/getUpdates"],
    "ttn_api_key": ["TTN sleutel (skryfregte) vir blok 3: {v}"],
    "wifi_passphrase": ["Cellar staff wifi 'Kelder-Span' key: {v}"],
    "alarm_code": ["Tasting room door code for weekend staff: {v}"],
    "pos_manager_pin": ['pos:\n  manager_pin: "{v}"'],
    "portal_password": ["Portale SIAN (schedario viticolo), password {v}"],
    "django_secret_key": ["Die Django SECRET_KEY vir die B2B-portaal: {v}"],
    "vault_token": ["Token di Vault per il CI: {v}"],
    "payfast_passphrase": ["Passphrase PayFast del negozio ZA: {v}"],
    "courier_api_secret": ["Koerier API wagwoord (DHL): {v}"],
    "square_access_token": ["Square token vir die proeflokaal: {v}"],
    "bearer_jwt": ["Token JWT per l'API della cantina: {v}"],
}

EXTRA_BENIGN = {
    "placeholder": ["Chiave API: {v} (da sostituire)", "Wagwoord: {v} (vul self in)"],
    "vault_path": ["Sien {v} vir die sleutel."],
    "masked_value": ["Shown masked in the vendor dashboard as {v}"],
    "revoked_key": [
        "rotated: old token {v} was revoked after the secret-scanning alert, new one is in the vault"
    ],
    "git_commit_sha": ["Commit {v}: aggiornata la traduzione delle schede"],
    "ticket_reference": ["Kaartjie {v} oopgemaak vir die etiketmasjien."],
    "invoice_number": ["Invoice ref {v} on the excise return."],
    "iban": ["IBAN vir terugbetalings: {v}"],
    "build_version": ["Weergawe {v} van die kelder-app"],
    "aws_arn": ["Rol {v} het leestoegang."],
    "db_url_without_password": ["Stringa di connessione senza password: {v}"],
    "hostname_ip": ["ping {v}"],
    "password_policy": ["Policy: {v}."],
    "lora_payload": ["Payload van die sensor: {v}"],
    "pgp_fingerprint": ["Vingerafdruk van die invoerder se PGP sleutel: {v}"],
    "age_recipient": ["age recipient for the export docs archive: {v}"],
    "certificate_pem": ["Certificato pubblico del server MQTT:\n{v}"],
    "portal_username": ["Login name for the WOSA portal: {v}"],
    "wineclub_member_number": ["Member number {v} in Commerce7."],
    "stripe_test_card": ["Use {v} in Stripe test mode only."],
    "documented_example_jwt": ["jwt.io default example {v} (not ours)"],
    "shopify_store_domain": ["Winkel: {v}"],
    "hs_tariff_code": ["HS code {v} declared on the e-AD"],
    "waybill_number": ["Track waybill {v} on dhl.com"],
    "excise_number": ["Excise no. {v} printed on the pallet label"],
    "request_uuid": ["trace {v} for the failed wine club renewal"],
    "stripe_publishable_key": ["Die publieke Stripe sleutel {v} is in die front-end."],
}


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []
    for label, table, extra in (("secret", SECRET, EXTRA_SECRET), ("benign", BENIGN, EXTRA_BENIGN)):
        for kind, gen, base in table:
            templates = base + extra.get(kind, [])
            assert 2 <= len(templates) <= 7, kind
            for tpl in templates:
                value = gen(rng)
                text = tpl.format(v=value)
                assert value in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": value})
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

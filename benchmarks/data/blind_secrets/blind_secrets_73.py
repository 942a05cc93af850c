# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 73: football club and stadium operations.

Brief: memory notes of a football club / stadium ops team (ticketing and turnstiles, season-ticket app, stadium Wi-Fi, LED/scoreboard control, CCTV and access control, streaming and broadcast feeds, webshop and POS, player-performance data platforms, sponsor integrations, multilingual matchday staff notes) holding live secrets next to look-alikes that are not secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_73.py [out.jsonl]

Kinds, secret: aws_access_key_pair, stripe_live_secret_key, stripe_restricted_key, stripe_webhook_secret, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, teams_webhook_url, discord_webhook_url, telegram_bot_token, twilio_auth_token, sendgrid_api_key, mailgun_api_key, mailchimp_api_key, google_api_key_server, gcp_service_account_json, fcm_legacy_server_key, apns_p8_private_key, apple_app_specific_password, android_keystore_password, rsa_private_key_pem, openssh_private_key, ec_private_key_pem, postgres_url_password, mysql_dsn_password, mongodb_srv_password, redis_url_password, amqp_url_password, rtsp_camera_url_credentials, http_basic_auth_header, url_embedded_credentials, sshpass_cli_password, smb_net_use_password, ftp_scoreboard_password, wifi_wpa2_psk, radius_shared_secret, snmp_rw_community, ipsec_psk, sip_trunk_password, door_alarm_code, cctv_nvr_admin_password, turnstile_controller_password, youtube_stream_key, twitch_stream_key, srt_passphrase, shopify_admin_token, shopify_shared_secret, square_access_token, adyen_api_key, paypal_client_secret, openai_api_key, npm_token, docker_hub_pat, vault_token, cloudflare_api_token, datadog_api_key, okta_api_token, azure_storage_connection_string, azure_sas_token, google_oauth_client_secret, sponsor_webhook_hmac_secret, jwt_signing_secret, bearer_jwt_live, django_secret_key, laravel_app_key, totp_seed, vendor_api_key_prose, password_in_prose_no_keyword, password_non_english_note, wireguard_private_key

Kinds, benign: aws_documented_example_key, stripe_publishable_key, stripe_test_publishable_key, stripe_object_id, recaptcha_site_key, firebase_web_config_apikey, mapbox_public_token, google_oauth_client_id, sentry_dsn_frontend, git_commit_sha, sha256_checksum, md5_firmware_checksum, docker_image_digest, uuid_identifier, twilio_account_sid_only, apns_key_id_team_id, slack_channel_user_ids, ssh_public_key, ssh_host_fingerprint, x509_certificate_pem, tls_cert_sha1_fingerprint, pgp_public_key_block, bcrypt_hash, placeholder_angle_brackets, placeholder_changeme, placeholder_xxxx, env_var_reference, vault_path_reference, k8s_secret_ref, redacted_value, masked_last4, revoked_key_stated_revoked, password_policy_text, password_rotation_note_no_value, generator_command_no_output, example_db_url_placeholder, jwt_io_documented_example, season_ticket_number, ticket_barcode, turnstile_serial_number, mac_address, ip_and_port, product_sku_ean, player_provider_id, club_iban_invoice, vat_number, led_hex_colour, stream_ingest_url_no_key, base64_image_data, build_version_string, order_reference, guest_wifi_open_network, aws_iam_role_arn, sealed_secret_ciphertext, sops_encrypted_value, ansible_vault_encrypted, npm_integrity_hash, youtube_video_id, jwks_public_key, wireguard_public_key, certificate_signing_request, age_public_recipient, asset_fingerprint_filename, public_hotline_phone, documented_test_card, ssid_names_keys_elsewhere
"""

import base64
import json
import random
import string
import sys

SEED = 7373

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
ANL = LO + DG
HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"

WORDS = [
    "Tribune",
    "Derby",
    "Kickoff",
    "Eagles",
    "Nordkurve",
    "Matchday",
    "Curva",
    "Stand",
    "Pitch",
    "Goalie",
    "Lions",
    "Ultras",
    "Fanzone",
    "Corner",
    "Striker",
    "Keeper",
    "Halftime",
    "Floodlight",
    "Scarf",
    "Blues",
]
SYMS = "!#$%&*?@"


def rs(r, alph, n):
    return "".join(r.choice(alph) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    if r.random() < 0.4:
        w += r.choice(WORDS).lower()
    return w + str(r.randint(1, 2026)) + r.choice(SYMS)


def gen_pw(r, n=20):
    return rs(r, AN + "!#%*-_", n)


def b64(bs):
    return base64.b64encode(bs).decode()


def b64u(bs):
    return base64.urlsafe_b64encode(bs).decode().rstrip("=")


def rbytes(r, n):
    return bytes(r.getrandbits(8) for _ in range(n))


def wrap64(s):
    return "\n".join(s[i : i + 64] for i in range(0, len(s), 64))


def pem(label, der):
    return f"-----BEGIN {label}-----\n{wrap64(b64(der))}\n-----END {label}-----"


def uuid4(r):
    h = rs(r, HEX, 32)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


# ---------------------------------------------------------------- secret generators


def g_aws(r):
    return {"id": "AKIA" + rs(r, UP + "234567", 16), "v": rs(r, B64, 40)}


def g_stripe_sk(r):
    return "sk_live_51" + rs(r, AN, 97)


def g_stripe_rk(r):
    return "rk_live_51" + rs(r, AN, 97)


def g_whsec(r):
    return "whsec_" + rs(r, AN, 32)


def g_ghp(r):
    return "ghp_" + rs(r, AN, 36)


def g_ghfg(r):
    return "github_pat_11" + rs(r, UP + DG, 20) + "_" + rs(r, AN, 59)


def g_glpat(r):
    return "glpat-" + rs(r, AN + "-_", 20)


def g_xoxb(r):
    return "xoxb-%d-%d-%s" % (r.randint(10**10, 10**13), r.randint(10**12, 10**13), rs(r, AN, 24))


def g_slack_hook(r):
    return f"https://hooks.slack.com/services/T{rs(r, UP + DG, 8)}/B{rs(r, UP + DG, 10)}/{rs(r, AN, 24)}"


def g_teams_hook(r):
    return (
        "https://stadiongroup.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{}/{}/V2{}".format(
            uuid4(r), uuid4(r), rs(r, HEX, 32), uuid4(r), rs(r, AN + "-_", 43)
        )
    )


def g_discord_hook(r):
    return "https://discord.com/api/webhooks/%d/%s" % (
        r.randint(10**17, 10**18 - 1),
        rs(r, B64U, 68),
    )


def g_telegram(r):
    return "%d:AA%s" % (r.randint(10**9, 8 * 10**9), rs(r, B64U, 33))


def g_twilio(r):
    return {"sid": "AC" + rs(r, HEX, 32), "v": rs(r, HEX, 32)}


def g_sendgrid(r):
    return "SG." + rs(r, B64U, 22) + "." + rs(r, B64U, 43)


def g_mailgun(r):
    return "key-" + rs(r, HEX, 32)


def g_mailchimp(r):
    return rs(r, HEX, 32) + "-us" + str(r.randint(2, 21))


def g_gkey(r):
    return "AIza" + rs(r, B64U, 35)


def g_gcp_sa(r):
    der = bytes.fromhex(
        "308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100"
    ) + rbytes(r, 420)
    key = wrap64(b64(der)).replace("\n", "\\n")
    kid = rs(r, HEX, 40)
    cid = str(r.randint(10**20, 10**21 - 1))
    j = (
        f'{{\n  "type": "service_account",\n  "project_id": "fc-ticketing-prod",\n  "private_key_id": "{kid}",\n'
        f'  "private_key": "-----BEGIN PRIVATE KEY-----\\n{key}\\n-----END PRIVATE KEY-----\\n",\n'
        f'  "client_email": "turnstile-sync@fc-ticketing-prod.iam.gserviceaccount.com",\n  "client_id": "{cid}",\n'
        '  "token_uri": "https://oauth2.googleapis.com/token"\n}'
    )
    return {"v": key, "json": j}


def g_fcm(r):
    return "AAAA" + rs(r, B64U, 7) + ":APA91b" + rs(r, B64U, 134)


def p8_der(r):
    return (
        bytes.fromhex("308193020100301306072a8648ce3d020106082a8648ce3d030107047930770201010420")
        + rbytes(r, 32)
        + bytes.fromhex("a00a06082a8648ce3d030107a144034200")
        + b"\x04"
        + rbytes(r, 64)
    )


def g_p8(r):
    return pem("PRIVATE KEY", p8_der(r))


def g_app_specific(r):
    return "-".join(rs(r, LO, 4) for _ in range(4))


def g_rsa(r):
    return pem("RSA PRIVATE KEY", bytes.fromhex("308204a40201000282010100") + rbytes(r, 600))


def g_openssh(r):
    der = (
        b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x33"
        b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20"
        + rbytes(r, 32)
        + b"\x00\x00\x00\x88"
        + rbytes(r, 136)
    )
    body = b64(der)
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(body[i : i + 70] for i in range(0, len(body), 70))
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def g_ec(r):
    der = (
        bytes.fromhex("30770201010420")
        + rbytes(r, 32)
        + bytes.fromhex("a00a06082a8648ce3d030107a144034200")
        + b"\x04"
        + rbytes(r, 64)
    )
    return pem("EC PRIVATE KEY", der)


def g_pw_h(r):
    return human_pw(r)


def g_pw_g(r):
    return gen_pw(r, r.randint(16, 24))


def g_url_pw(r):
    return rs(r, AN, r.randint(18, 26))


def g_basic(r):
    user = "ticketsync"
    pw = human_pw(r)
    return {"v": b64((user + ":" + pw).encode()), "pw": pw}


def g_pin(r):
    return str(r.randint(1000, 999999)).zfill(4)


def g_yt(r):
    return "-".join(rs(r, ANL, 4) for _ in range(5))


def g_twitch(r):
    return "live_%d_%s" % (r.randint(10**8, 10**9 - 1), rs(r, AN, 30))


def g_srt(r):
    return rs(r, AN, r.randint(24, 32))


def g_shpat(r):
    return "shpat_" + rs(r, HEX, 32)


def g_shpss(r):
    return "shpss_" + rs(r, HEX, 32)


def g_square(r):
    return "EAAA" + rs(r, B64U, 60)


def g_adyen(r):
    return "AQE" + rs(r, B64, 95) + "==-" + rs(r, B64, 43) + "=-" + rs(r, AN + "%;{}", 16)


def g_paypal(r):
    return {"cid": "A" + rs(r, B64U, 79), "v": "E" + rs(r, B64U, 79)}


def g_openai(r):
    return "sk-proj-" + rs(r, B64U, 74) + "T3BlbkFJ" + rs(r, B64U, 74)


def g_npm(r):
    return "npm_" + rs(r, AN, 36)


def g_dckr(r):
    return "dckr_pat_" + rs(r, B64U, 27)


def g_hvs(r):
    return "hvs." + rs(r, AN, 24)


def g_cf(r):
    return rs(r, B64U, 40)


def g_dd(r):
    return rs(r, HEX, 32)


def g_okta(r):
    return "00" + rs(r, B64U, 40)


def g_azconn(r):
    key = b64(rbytes(r, 64))
    return {
        "v": key,
        "conn": f"DefaultEndpointsProtocol=https;AccountName=fcmediaassets;AccountKey={key};EndpointSuffix=core.windows.net",
    }


def g_sas(r):
    sig = b64(rbytes(r, 32)).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    return (
        "sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2027-06-30T21:00:00Z&st=2026-07-01T06:00:00Z&spr=https&sig="
        + sig
    )


def g_gocspx(r):
    return "GOCSPX-" + rs(r, B64U, 28)


def g_hmac(r):
    return rs(r, HEX, 64)


def g_jwtsecret(r):
    return rs(r, AN + "+/=", 48)


def g_jwt(r):
    h = b64u(b'{"alg":"HS256","typ":"JWT"}')
    p = b64u(
        (
            '{"sub":"svc-gate-%d","scope":"scan:write venue:read","iat":%d,"exp":%d}'
            % (
                r.randint(10, 99),
                1780000000 + r.randint(0, 10**6),
                1790000000 + r.randint(0, 10**6),
            )
        ).encode()
    )
    return h + "." + p + "." + b64u(rbytes(r, 32))


def g_django(r):
    return rs(r, LO + DG + "!@#$%^&*(-_=+)", 50)


def g_laravel(r):
    return "base64:" + b64(rbytes(r, 32))


def g_totp(r):
    return rs(r, B32, 32)


def g_vendor40(r):
    return rs(r, HEX, 40)


# ---------------------------------------------------------------- benign generators


def b_sha1(r):
    return rs(r, HEX, 40)


def b_sha256(r):
    return rs(r, HEX, 64)


def b_md5(r):
    return rs(r, HEX, 32)


def b_pk_live(r):
    return "pk_live_51" + rs(r, AN, 97)


def b_pk_test(r):
    return "pk_test_51" + rs(r, AN, 97)


def b_stripe_obj(r):
    return r.choice(["pi_", "ch_", "cus_", "in_", "re_"]) + "3" + rs(r, AN, 23)


def b_recaptcha(r):
    return "6L" + rs(r, B64U, 38)


def b_fb_web(r):
    return "AIza" + rs(r, B64U, 35)


def b_mapbox(r):
    return (
        "pk."
        + b64u((f'{{"u":"fcstadium","a":"{rs(r, ANL, 25)}"}}').encode())
        + "."
        + rs(r, B64U, 22)
    )


def b_gclient(r):
    return "%d-%s.apps.googleusercontent.com" % (r.randint(10**11, 10**12 - 1), rs(r, ANL, 32))


def b_sentry(r):
    return "https://%s@o%d.ingest.sentry.io/%d" % (
        rs(r, HEX, 32),
        r.randint(100000, 999999),
        r.randint(1000000, 9999999),
    )


def b_twsid(r):
    return "AC" + rs(r, HEX, 32)


def b_apple_ids(r):
    return rs(r, UP + DG, 10)


def b_slack_ids(r):
    return "C0" + rs(r, UP + DG, 9)


def b_sshpub(r):
    return "ssh-ed25519 " + b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rbytes(r, 32))


def b_sshfp(r):
    return "SHA256:" + b64(rbytes(r, 32)).rstrip("=")


def b_cert(r):
    return pem(
        "CERTIFICATE",
        bytes.fromhex("308203")
        + rbytes(r, 1)
        + bytes.fromhex("308202")
        + rbytes(r, 1)
        + bytes.fromhex("a003020102")
        + rbytes(r, 420),
    )


def b_sha1fp(r):
    return ":".join(rs(r, HEXU, 2) for _ in range(20))


def b_pgp(r):
    body = wrap64(b64(b"\x99\x01\x0d\x04" + rbytes(r, 300)))
    return (
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
        + body
        + "\n="
        + rs(r, B64, 4)
        + "\n-----END PGP PUBLIC KEY BLOCK-----"
    )


def b_bcrypt(r):
    return "$2b$12$" + rs(r, AN + "./", 53)


def b_revoked(r):
    return "sk_live_51" + rs(r, AN, 97)


def b_season(r):
    return "ST-%d-%06d" % (r.randint(2025, 2027), r.randint(0, 999999))


def b_barcode(r):
    return rs(r, DG, 18)


def b_serial(r):
    return f"TS{rs(r, UP + DG, 4)}-{rs(r, DG, 7)}"


def b_mac(r):
    return ":".join(rs(r, HEXU, 2) for _ in range(6))


def b_ip(r):
    return "10.%d.%d.%d:%d" % (
        r.randint(0, 40),
        r.randint(0, 254),
        r.randint(1, 254),
        r.choice([80, 443, 554, 8000, 8080, 5060]),
    )


def b_ean(r):
    return "40" + rs(r, DG, 11)


def b_player(r):
    return "p" + str(r.randint(100000, 999999))


def b_iban(r):
    return "DE%02d %s %s %s %s %s" % (
        r.randint(10, 99),
        rs(r, DG, 4),
        rs(r, DG, 4),
        rs(r, DG, 4),
        rs(r, DG, 4),
        rs(r, DG, 2),
    )


def b_vat(r):
    return "DE" + rs(r, DG, 9)


def b_hexcol(r):
    return "#" + rs(r, HEXU, 6)


def b_imgdata(r):
    return "iVBORw0KGgoAAAANSUhEUgAA" + b64(rbytes(r, 90))


def b_build(r):
    return "%d.%d.%d+build.%d.%s" % (
        r.randint(3, 9),
        r.randint(0, 30),
        r.randint(0, 12),
        r.randint(100, 9999),
        rs(r, HEX, 7),
    )


def b_order(r):
    return f"WS-{rs(r, DG, 6)}-{rs(r, UP, 3)}"


def b_docker_digest(r):
    return "sha256:" + rs(r, HEX, 64)


def b_arn(r):
    return f"arn:aws:iam::{rs(r, DG, 12)}:role/turnstile-export"


def b_sealed(r):
    return "AgB" + rs(r, B64, 380) + "=="


def b_sops(r):
    return f"ENC[AES256_GCM,data:{rs(r, B64, 32)},iv:{b64(rbytes(r, 32))},tag:{b64(rbytes(r, 16))},type:str]"


def b_ansible(r):
    body = rs(r, DG + "abcdef", 80 * 4)
    return "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(
        body[i : i + 80] for i in range(0, len(body), 80)
    )


def b_sri(r):
    return "sha512-" + b64(rbytes(r, 64))


def b_ytid(r):
    return rs(r, B64U, 11)


def b_jwks(r):
    return b64u(rbytes(r, 256))


def g_wg(r):
    return b64(rbytes(r, 32))


def b_wgpub(r):
    return b64(rbytes(r, 32))


def b_csr(r):
    return pem(
        "CERTIFICATE REQUEST",
        bytes.fromhex("308202") + rbytes(r, 1) + bytes.fromhex("3082") + rbytes(r, 300),
    )


def b_age(r):
    return "age1" + rs(r, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)


def b_asset(r):
    return rs(r, HEX, 8)


def b_phone(r):
    return f"+49 30 {rs(r, DG, 4)} {rs(r, DG, 4)}"


def lit(s):
    return lambda r: s


# ---------------------------------------------------------------- spec

S, B = "secret", "benign"

SPEC = [
    # ------------------------------------------------ secrets
    (
        S,
        "aws_access_key_pair",
        g_aws,
        [
            "ticket-export bucket creds for the nightly turnstile dump:\nAWS_ACCESS_KEY_ID={id}\nAWS_SECRET_ACCESS_KEY={v}",
            "aws configure --profile matchday-scans  -> key {id} / secret {v} (region eu-central-1)",
            "| s3 fc-cctv-archive | {id} | {v} | owner: secops |",
            "Stadium-IT: el usuario IAM de backups de CCTV es {id} y su clave secreta {v}, no compartir fuera del equipo",
        ],
    ),
    (
        S,
        "stripe_live_secret_key",
        g_stripe_sk,
        [
            "webshop prod STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/refunds -u {v}: -d payment_intent=pi_3abc",
            "fyi the live stripe key for the kit pre-order launch is {v} , test one is in the dev .env",
            "{v}",
        ],
    ),
    (
        S,
        "stripe_restricted_key",
        g_stripe_rk,
        [
            "restricted key (read charges only) for the finance dashboard: {v}",
            'stripe:\n  restricted_key: "{v}"\n  account: hospitality-boxes',
            "POS reconciliation job uses {v} -- Marta created it 12/08",
        ],
    ),
    (
        S,
        "stripe_webhook_secret",
        g_whsec,
        [
            "STRIPE_WEBHOOK_SECRET={v}  # endpoint /hooks/stripe on shop.fc-example.de",
            "signing secret for the merch webhook endpoint: {v}",
            "stripe listen gave us {v} but prod endpoint secret is the same now, dont ask",
        ],
    ),
    (
        S,
        "github_pat_classic",
        g_ghp,
        [
            "git clone https://{v}@github.com/fc-stadium/led-scoreboard-scripts.git",
            "CI token for season-ticket-app repo: {v} (repo, workflow scopes)",
            "GH_TOKEN={v}",
            "Token do GitHub para o deploy do app de bilhetes: {v}",
        ],
    ),
    (
        S,
        "github_pat_fine_grained",
        g_ghfg,
        [
            "fine-grained PAT for the turnstile-firmware repo (contents:read): {v}",
            'export GITHUB_TOKEN="{v}"',
            "renewed the PAT, new value {v}, expires in 90d",
        ],
    ),
    (
        S,
        "gitlab_pat",
        g_glpat,
        [
            "gitlab deploy for performance-data ETL: PRIVATE-TOKEN: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.fc-intern.de/analytics/gps-ingest.git",
            "glab auth login --token {v}",
        ],
    ),
    (
        S,
        "slack_bot_token",
        g_xoxb,
        [
            "matchday-alerts bot SLACK_BOT_TOKEN={v}",
            "bot token for #ops-gate-status: {v}",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C01OPSGATE",
            "{v}",
        ],
    ),
    (
        S,
        "slack_webhook_url",
        g_slack_hook,
        [
            "turnstile offline alerts post here: {v}",
            "SLACK_WEBHOOK={v}",
            'curl -X POST -d \'{"text":"Gate 4 down"}\' {v}',
        ],
    ),
    (
        S,
        "teams_webhook_url",
        g_teams_hook,
        [
            "Teams channel 'Stadion Betrieb' connector URL: {v}",
            "teams_webhook: {v}",
            "Webhook für den Ordnerdienst-Kanal in Teams: {v}",
        ],
    ),
    (
        S,
        "discord_webhook_url",
        g_discord_hook,
        [
            "fan discord #matchday-news webhook: {v}",
            "DISCORD_WEBHOOK_URL={v}",
            "social team uses {v} for the lineup auto-post",
        ],
    ),
    (
        S,
        "telegram_bot_token",
        g_telegram,
        [
            "telegram bot for stewards' shift swaps: {v}",
            "TG_BOT_TOKEN={v}",
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100123 -d text=test",
            "Token del bot de Telegram de los acomodadores: {v}",
        ],
    ),
    (
        S,
        "twilio_auth_token",
        g_twilio,
        [
            "SMS gate codes via twilio: TWILIO_ACCOUNT_SID={sid} TWILIO_AUTH_TOKEN={v}",
            "twilio sid {sid} token {v} (ticket reminder SMS)",
            "curl -u {sid}:{v} https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json",
        ],
    ),
    (
        S,
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SENDGRID_API_KEY={v}",
            "e-ticket mails go through sendgrid, key: {v}",
            "| sendgrid | season renewal mailing | {v} |",
        ],
    ),
    (
        S,
        "mailgun_api_key",
        g_mailgun,
        [
            "mailgun (hospitality invites) api key {v}",
            "curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.fc-example.de/messages",
            "MAILGUN_KEY={v}",
        ],
    ),
    (
        S,
        "mailchimp_api_key",
        g_mailchimp,
        [
            "newsletter mailchimp key {v} (audience: members)",
            "MAILCHIMP_API_KEY={v}",
            "Chiave API Mailchimp per la newsletter dei tifosi: {v}",
        ],
    ),
    (
        S,
        "google_api_key_server",
        g_gkey,
        [
            "server-side Geocoding key (unrestricted!!) for away-fan travel planner: {v}",
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "youtube data api key for the highlights sync job: {v}",
        ],
    ),
    (
        S,
        "gcp_service_account_json",
        g_gcp_sa,
        [
            "pasting the SA json for the bigquery ticket analytics, keep it here till vault is set up:\n{json}",
            "turnstile-sync key file (downloaded from console):\n{json}",
        ],
    ),
    (
        S,
        "fcm_legacy_server_key",
        g_fcm,
        [
            "push for season-ticket app (legacy FCM) server key: {v}",
            "curl -H 'Authorization: key={v}' -H 'Content-Type: application/json' https://fcm.googleapis.com/fcm/send -d @goal.json",
            "FCM_SERVER_KEY={v}",
        ],
    ),
    (
        S,
        "apns_p8_private_key",
        g_p8,
        [
            "APNs auth key AuthKey_7QX2K9L4MB.p8 for the ticket app:\n{v}",
            "p8 key (team 4HJ8Q2ZL9N) - iOS push for gate-open notifications\n{v}",
        ],
    ),
    (
        S,
        "apple_app_specific_password",
        g_app_specific,
        [
            "app-specific pw for altool upload (appstore@fc-example.de): {v}",
            "xcrun altool --upload-app -f SeasonTicket.ipa -u appstore@fc-example.de -p {v}",
            "FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD={v}",
        ],
    ),
    (
        S,
        "android_keystore_password",
        g_pw_h,
        [
            "release.keystore\nstorePassword={v}\nkeyAlias=seasonticket\nkeyPassword={v}",
            "keystore pw for the android ticket app signing is {v} (same for alias)",
            "./gradlew assembleRelease -Pandroid.injected.signing.store.password={v}",
        ],
    ),
    (
        S,
        "rsa_private_key_pem",
        g_rsa,
        [
            "deploy key for the scoreboard controller (root@led-ctrl-01):\n{v}",
            "{v}",
        ],
    ),
    (
        S,
        "openssh_private_key",
        g_openssh,
        [
            "id_ed25519 of the CCTV jump host, needed for the NVR firmware update:\n{v}",
            "ansible user key for turnstile controllers:\n{v}",
            "{v}",
        ],
    ),
    (
        S,
        "ec_private_key_pem",
        g_ec,
        [
            "signing key for the mobile ticket QR (rotating barcode):\n{v}",
            "{v}",
        ],
    ),
    (
        S,
        "postgres_url_password",
        g_url_pw,
        [
            "DATABASE_URL=postgres://ticketing_app:{v}@db-tix-prod.internal:5432/tickets",
            'psql "postgresql://ro_analyst:{v}@10.20.4.11/perfdata?sslmode=require"',
            "season ticket DB: host pg-st-01, user st_admin, password {v}",
            "Verbindung zur Ticket-DB: postgres://kasse:{v}@pg-kasse:5432/pos",
        ],
    ),
    (
        S,
        "mysql_dsn_password",
        g_pw_h,
        [
            "webshop mysql: mysql -h shopdb -u magento -p'{v}' magento_prod",
            "DB_PASSWORD={v}\nDB_USERNAME=shop\nDB_HOST=mysql-shop.internal",
            "mysql://pos_sync:{v}@10.30.1.5:3306/kiosk",
        ],
    ),
    (
        S,
        "mongodb_srv_password",
        g_url_pw,
        [
            "MONGO_URI=mongodb+srv://gps_ingest:{v}@perf-cluster.ab1cd.mongodb.net/tracking?retryWrites=true",
            'mongosh "mongodb+srv://cluster0.x7y2z.mongodb.net/fanapp" --username appuser --password {v}',
            "atlas user scout_ro / {v}",
        ],
    ),
    (
        S,
        "redis_url_password",
        g_url_pw,
        [
            "REDIS_URL=redis://:{v}@queue-tix.internal:6379/0",
            "redis-cli -h redis-gates -a {v} keys 'gate:*'",
            "rediss://default:{v}@cache-shop.fc-example.de:6380",
        ],
    ),
    (
        S,
        "amqp_url_password",
        g_url_pw,
        [
            "scan events queue: amqp://turnstile:{v}@rabbit-01:5672/gates",
            "AMQP_URL=amqps://sponsor_feed:{v}@mq.fc-example.de/activation",
        ],
    ),
    (
        S,
        "rtsp_camera_url_credentials",
        g_pw_h,
        [
            "VLC test of cam N-12: rtsp://admin:{v}@10.12.3.45:554/Streaming/Channels/101",
            "gate 7 camera stream rtsp://operator:{v}@cam-g7.cctv.local/h264",
            "ffmpeg -rtsp_transport tcp -i 'rtsp://viewer:{v}@10.12.8.20:554/cam/realmonitor?channel=1' -t 30 clip.mp4",
        ],
    ),
    (
        S,
        "http_basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "ticketing partner API expects header `Authorization: Basic {v}` (user ticketsync)",
            'curl -H "Authorization: Basic {v}" https://api.ticketvendor.example/v2/events/4411/scans',
        ],
    ),
    (
        S,
        "url_embedded_credentials",
        g_pw_h,
        [
            "LED content manager: https://ledadmin:{v}@led-cms.stadium.local/playlist",
            "print server for accreditation badges http://badge:{v}@10.5.0.9:631/",
            "wget https://stats_export:{v}@feeds.perfdata-vendor.example/matches/latest.xml",
        ],
    ),
    (
        S,
        "sshpass_cli_password",
        g_pw_h,
        [
            "sshpass -p '{v}' ssh pi@scoreboard-east 'sudo systemctl restart ledd'",
            "sshpass -p {v} scp playlist.json admin@led-ctrl-02:/opt/led/",
        ],
    ),
    (
        S,
        "smb_net_use_password",
        g_pw_h,
        [
            "net use Z: \\\\fs-stadion\\accreditation /user:STADION\\svc_badge {v}",
            "mount -t cifs //nas-media/broadcast /mnt/bc -o username=bcops,password={v}",
        ],
    ),
    (
        S,
        "ftp_scoreboard_password",
        g_pw_h,
        [
            "scoreboard ads upload: ftp led@10.40.0.20 pw {v}",
            "curl -T halftime_sponsor.mp4 ftp://ledupload:{v}@10.40.0.21/content/",
            "FileZilla site 'Videowall Nord' user videowall pass {v}",
        ],
    ),
    (
        S,
        "wifi_wpa2_psk",
        g_pw_h,
        [
            "Staff wifi SSID STADION-STAFF key {v}",
            "press box wifi: FC-PRESS / {v} (change after derby)",
            "WLAN Ordnerdienst: SSID Ordner-5G, Passwort {v}",
            'wpa_passphrase "TURNSTILE-MGMT" "{v}"',
        ],
    ),
    (
        S,
        "radius_shared_secret",
        g_pw_g,
        [
            "radius client ap-ctrl-01 secret {v}",
            "clients.conf:\nclient wlc-stadium {\n  ipaddr = 10.2.0.10\n  secret = {v}\n}",
            "radius-server host 10.2.0.50 key {v}",
        ],
    ),
    (
        S,
        "snmp_rw_community",
        g_pw_g,
        [
            "snmp-server community {v} RW 10",
            "switches in the turnstile VLAN use rw community {v}",
            "snmpset -v2c -c {v} 10.9.0.3 ifAdminStatus.12 i 2",
        ],
    ),
    (
        S,
        "ipsec_psk",
        g_pw_g,
        [
            "site-to-site VPN to broadcaster OB van: PSK {v}",
            'ipsec.secrets: 10.200.0.1 195.0.2.10 : PSK "{v}"',
            "pre-shared-key {v}",
        ],
    ),
    (
        S,
        "sip_trunk_password",
        g_pw_g,
        [
            "PA/emergency phone SIP trunk: user 4930555012, secret {v}",
            "[stadium-trunk]\ntype=peer\nhost=sip.carrier.example\nusername=fcstadium\nsecret={v}",
        ],
    ),
    (
        S,
        "door_alarm_code",
        g_pin,
        [
            "alarm panel code for the server room (level -1): {v}",
            "players tunnel door keypad {v}#, changes every season",
            "Code porte vestiaire visiteurs : {v}",
            "Codice allarme magazzino merchandising: {v}",
        ],
    ),
    (
        S,
        "cctv_nvr_admin_password",
        g_pw_h,
        [
            "NVR hikvision admin pw {v}",
            "CCTV control room login: admin / {v}",
            "Milestone XProtect: basic user 'control' pwd {v}",
            "Contraseña del grabador de CCTV (admin): {v}",
        ],
    ),
    (
        S,
        "turnstile_controller_password",
        g_pw_h,
        [
            "turnstile controller web UI (gate 1-12): admin {v}",
            "Drehkreuz-Steuerung Login: service / {v}",
            "Skidata handheld scanner supervisor PIN/pw is {v}",
        ],
    ),
    (
        S,
        "youtube_stream_key",
        g_yt,
        [
            "YouTube live stream key for the U19 match: {v}",
            "ffmpeg -i srt://encoder:9000 -c copy -f flv rtmp://a.rtmp.youtube.com/live2/{v}",
            "stream key {v}",
            "Chave de transmissão do YouTube para a coletiva: {v}",
        ],
    ),
    (
        S,
        "twitch_stream_key",
        g_twitch,
        [
            "twitch key for the esports team stream: {v}",
            "rtmp://live.twitch.tv/app/{v}",
        ],
    ),
    (
        S,
        "srt_passphrase",
        g_srt,
        [
            "SRT to OB van: srt://203.0.113.40:9001?mode=caller&passphrase={v}&pbkeylen=32",
            "broadcast feed passphrase {v}",
            "encoder 2 SRT pass: {v}",
        ],
    ),
    (
        S,
        "shopify_admin_token",
        g_shpat,
        [
            "SHOPIFY_ADMIN_TOKEN={v}",
            "curl -H 'X-Shopify-Access-Token: {v}' https://fc-store.myshopify.com/admin/api/2024-07/orders.json",
            "admin API token for the kit store: {v}",
        ],
    ),
    (
        S,
        "shopify_shared_secret",
        g_shpss,
        [
            "shopify app api secret {v} (sponsor bundle app)",
            "SHOPIFY_API_SECRET={v}",
        ],
    ),
    (
        S,
        "square_access_token",
        g_square,
        [
            "Square POS kiosks production access token {v}",
            "SQUARE_ACCESS_TOKEN={v}",
            "curl https://connect.squareup.com/v2/locations -H 'Authorization: Bearer {v}'",
        ],
    ),
    (
        S,
        "adyen_api_key",
        g_adyen,
        [
            "ADYEN_API_KEY={v}",
            "adyen ws user key for the ticket box office terminals: {v}",
        ],
    ),
    (
        S,
        "paypal_client_secret",
        g_paypal,
        [
            "paypal live: client id {cid}\nsecret {v}",
            "PAYPAL_CLIENT_ID={cid}\nPAYPAL_CLIENT_SECRET={v}",
        ],
    ),
    (
        S,
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "match report generator uses {v}",
            "key for the chatbot on the fan site: {v}",
        ],
    ),
    (
        S,
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v} for @fcstadium/ui-kit publishing",
        ],
    ),
    (
        S,
        "docker_hub_pat",
        g_dckr,
        [
            "docker login -u fcstadiumops -p {v}",
            "dockerhub token for CI pulls: {v}",
        ],
    ),
    (
        S,
        "vault_token",
        g_hvs,
        [
            "VAULT_TOKEN={v}",
            "root-ish vault token for the migration: {v} (revoke after!!)",
            "vault login {v}",
        ],
    ),
    (
        S,
        "cloudflare_api_token",
        g_cf,
        [
            "CLOUDFLARE_API_TOKEN={v}",
            "cf token (zone edit, fc-example.de) {v} for the ticket queue page",
            "curl -H 'Authorization: Bearer {v}' https://api.cloudflare.com/client/v4/user/tokens/verify",
        ],
    ),
    (
        S,
        "datadog_api_key",
        g_dd,
        [
            "DD_API_KEY={v}",
            "datadog api key for the turnstile agents: {v}",
            "datadog:\n  api_key: {v}\n  site: datadoghq.eu",
        ],
    ),
    (
        S,
        "okta_api_token",
        g_okta,
        [
            "okta SSWS token for staff provisioning: {v}",
            "curl -H 'Authorization: SSWS {v}' https://fc-example.okta.com/api/v1/users?limit=5",
        ],
    ),
    (
        S,
        "azure_storage_connection_string",
        g_azconn,
        [
            "media assets storage (player photos, LED clips):\n{conn}",
            'AZURE_STORAGE_CONNECTION_STRING="{conn}"',
            "account key for fcmediaassets: {v}",
        ],
    ),
    (
        S,
        "azure_sas_token",
        g_sas,
        [
            "upload LED clips here: https://fcmediaassets.blob.core.windows.net/led?{v}",
            "SAS for the broadcaster to pull highlights: ?{v}",
        ],
    ),
    (
        S,
        "google_oauth_client_secret",
        g_gocspx,
        [
            "staff SSO google client secret: {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            'client_secret: "{v}"',
        ],
    ),
    (
        S,
        "sponsor_webhook_hmac_secret",
        g_hmac,
        [
            "sponsor activation webhook (brewery app) HMAC secret: {v}",
            "SPONSOR_WEBHOOK_SECRET={v}",
            "they sign X-Signature with sha256 HMAC using {v}",
        ],
    ),
    (
        S,
        "jwt_signing_secret",
        g_jwtsecret,
        [
            "JWT_SECRET={v}",
            "season-ticket API signs tokens with HS256 secret {v}",
            "jwt:\n  secret: '{v}'\n  ttl: 3600",
        ],
    ),
    (
        S,
        "bearer_jwt_live",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "token for gate scanner service acc (valid till end of season): {v}",
            "curl -H 'Authorization: Bearer {v}' https://api.fc-tix.example/v1/gates/7/scans",
        ],
    ),
    (
        S,
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "accreditation portal django secret key {v}",
        ],
    ),
    (
        S,
        "laravel_app_key",
        g_laravel,
        [
            "APP_KEY={v}",
            "laravel app key for the hospitality booking site: {v}",
        ],
    ),
    (
        S,
        "totp_seed",
        g_totp,
        [
            "shared 2FA for the ticketing vendor admin: otpauth://totp/TixVendor:ops@fc-example.de?secret={v}&issuer=TixVendor",
            "TOTP seed for the broadcast portal shared account: {v}",
            "2FA secret key (if phone is lost): {v}",
        ],
    ),
    (
        S,
        "vendor_api_key_prose",
        g_vendor40,
        [
            "GPS vests vendor API key is {v}",
            "the performance data platform gave us {v} as the API key for the export endpoint",
            "Opta feed subscription key: {v}",
            "x-api-key: {v}",
        ],
    ),
    (
        S,
        "password_in_prose_no_keyword",
        g_pw_h,
        [
            "for the box office PCs just log in as kasse with {v}",
            "Tom says the hospitality iPad is unlocked with {v} - he set it up friday",
            "scoreboard operator account: scoreops / {v}",
            "the login for the sponsor portal is marketing@fc-example.de and {v}",
            "{v}",
        ],
    ),
    (
        S,
        "password_non_english_note",
        g_pw_h,
        [
            "Hinweis Spieltag: Kassensystem-Login für Aushilfen ist aushilfe / {v}",
            "Nota jornada: el portátil de acreditaciones entra con {v}",
            "Per la sala regia: utente regia, password {v}",
            "Notitie wedstrijddag: wachtwoord van de kassa-pc is {v}",
            "Maç günü notu: turnike yönetim paneli şifresi {v}",
            "Note jour de match : mot de passe du poste billetterie {v}",
        ],
    ),
    (
        S,
        "wireguard_private_key",
        g_wg,
        [
            "wg0.conf on the OB-van router:\n[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.2/24",
            "wireguard privkey for the remote scoreboard tech laptop: {v}",
            "PrivateKey={v}",
        ],
    ),
    # ------------------------------------------------ benign
    (
        B,
        "aws_documented_example_key",
        lit("AKIAIOSFODNN7EXAMPLE"),
        [
            "the AWS docs example id {v} is what the vendor's README shows, ours is in vault",
            "aws_access_key_id = {v}\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY  # sample from docs",
            "unit test fixture uses {v}",
            "boto3 docs example: aws_access_key_id='{v}' - placeholder, not ours",
        ],
    ),
    (
        B,
        "stripe_publishable_key",
        b_pk_live,
        [
            "STRIPE_PUBLISHABLE_KEY={v} (goes in the frontend bundle, public)",
            "pk for checkout.js on the shop: {v}",
            "Chiave pubblicabile Stripe del negozio (pubblica): {v}",
            "<script>Stripe('{v}')</script>",
        ],
    ),
    (
        B,
        "stripe_test_publishable_key",
        b_pk_test,
        [
            "staging shop uses test publishable key {v}",
            "NEXT_PUBLIC_STRIPE_KEY={v}",
        ],
    ),
    (
        B,
        "stripe_object_id",
        b_stripe_obj,
        [
            "refund for the double-charged season ticket: {v}",
            "fan complaint, look up payment {v} in the dashboard",
            "stripe id {v}",
            "| {v} | 2 x away kit | disputed |",
        ],
    ),
    (
        B,
        "recaptcha_site_key",
        b_recaptcha,
        [
            "reCAPTCHA site key (public) for the ticket queue form: {v}",
            'data-sitekey="{v}"',
            "RECAPTCHA_SITE_KEY={v}",
            "hCaptcha/recaptcha: only the site key {v} goes in the page, secret key stays server side",
        ],
    ),
    (
        B,
        "firebase_web_config_apikey",
        b_fb_web,
        [
            'firebase web config for the fan app PWA (public, restricted by referrer):\nconst firebaseConfig = { apiKey: "{v}", authDomain: "fc-fanapp.firebaseapp.com", projectId: "fc-fanapp" };',
            "the apiKey {v} in the web firebase config is fine to ship, it's an identifier, rules protect the data",
        ],
    ),
    (
        B,
        "mapbox_public_token",
        b_mapbox,
        [
            "stadium map widget public token (pk, url-restricted): {v}",
            "MAPBOX_PUBLIC_TOKEN={v}",
            "mapboxgl.accessToken = '{v}';",
        ],
    ),
    (
        B,
        "google_oauth_client_id",
        b_gclient,
        [
            "staff SSO client id: {v}",
            "client_id: {v}",
            "GOOGLE_CLIENT_ID={v}",
            "the ticket app's google sign-in client id is {v} (public)",
        ],
    ),
    (
        B,
        "sentry_dsn_frontend",
        b_sentry,
        [
            "sentry DSN for the season-ticket web frontend (public by design): {v}",
            'Sentry.init({ dsn: "{v}" })',
            "SENTRY_DSN={v}",
        ],
    ),
    (
        B,
        "git_commit_sha",
        b_sha1,
        [
            "LED controller regression introduced in {v}, revert that",
            "deployed ticket-api at {v} before kickoff",
            "git checkout {v} -- gates/config.yaml",
            "fix for the gate 9 double-scan bug: {v}",
            "{v}",
            "Commit {v} behebt den Fehler beim Anzeigetafel-Countdown",
        ],
    ),
    (
        B,
        "sha256_checksum",
        b_sha256,
        [
            "turnstile firmware 4.2.1 sha256 {v}",
            "sha256sum accreditation_export.csv -> {v}",
            "{v}  scoreboard-agent_2.3.0_arm64.deb",
            "| gate-sync.tar.gz | {v} |",
        ],
    ),
    (
        B,
        "md5_firmware_checksum",
        b_md5,
        [
            "NVR firmware md5 {v} (matches vendor site)",
            "md5 of the halftime video: {v}",
            "Prüfsumme (MD5) der Kamera-Firmware: {v}",
            'etag: "{v}"',
        ],
    ),
    (
        B,
        "docker_image_digest",
        b_docker_digest,
        [
            "pinned ghcr.io/fc-stadium/gate-sync@{v}",
            "image: registry.fc-intern.de/ticket-api@{v}",
        ],
    ),
    (
        B,
        "uuid_identifier",
        uuid4,
        [
            "event id for Sat home game in the ticketing system: {v}",
            "sponsor campaign {v} ends after matchday 17",
            "camera N-12 device id {v}",
            "| {v} | Block C | 1.204 seats |",
            "{v}",
            "Id del patrocinador en la plataforma: {v}",
            "x-request-id: {v} (ticket api timeout)",
        ],
    ),
    (
        B,
        "twilio_account_sid_only",
        b_twsid,
        [
            "twilio account SID {v} (token is in vault, not here)",
            "SMS billing goes to sub-account {v}",
            "TWILIO_ACCOUNT_SID={v}",
        ],
    ),
    (
        B,
        "apns_key_id_team_id",
        b_apple_ids,
        [
            "APNs Key ID {v}, the .p8 itself lives in 1Password",
            "Apple Team ID for the ticket app: {v}",
            "APPLE_KEY_ID={v}",
        ],
    ),
    (
        B,
        "slack_channel_user_ids",
        b_slack_ids,
        [
            "post gate alerts to channel {v}",
            "the bot needs to be invited to {v} first",
            "| #ops-gate-status | {v} |",
        ],
    ),
    (
        B,
        "ssh_public_key",
        b_sshpub,
        [
            "add to authorized_keys on led-ctrl-01: {v} ops@laptop-marta",
            "public key of the CI runner: {v} ci@runner",
            "{v} anna@kiosk-build",
            "ssh-copy-id used this key: {v} jens@cctv-ws",
        ],
    ),
    (
        B,
        "ssh_host_fingerprint",
        b_sshfp,
        [
            "cctv jump host fingerprint ED25519 key {v} - verify on first connect",
            "if ssh warns about scoreboard-east, the right fingerprint is {v}",
            "Host key fingerprint is {v}",
        ],
    ),
    (
        B,
        "x509_certificate_pem",
        b_cert,
        [
            "public cert of the ticket vendor's webhook signer (to pin):\n{v}",
            "{v}",
        ],
    ),
    (
        B,
        "tls_cert_sha1_fingerprint",
        b_sha1fp,
        [
            "turnstile controllers pin the server cert SHA1 {v}",
            "Fingerprint des Zertifikats von tickets.fc-example.de: {v}",
        ],
    ),
    (
        B,
        "pgp_public_key_block",
        b_pgp,
        [
            "security@ public PGP key for the bug bounty page:\n{v}",
            "{v}",
        ],
    ),
    (
        B,
        "bcrypt_hash",
        b_bcrypt,
        [
            "users table row for kiosk01: password_hash={v}",
            "htpasswd line for the LED CMS: ledadmin:{v}",
            "hash stored in the accreditation DB: {v}",
            "{v}",
        ],
    ),
    (
        B,
        "placeholder_angle_brackets",
        lit("<your-token>"),
        [
            "curl -H 'Authorization: Bearer {v}' https://api.fc-tix.example/v1/events",
            "TICKET_API_TOKEN={v}",
            "set SLACK_BOT_TOKEN={v} before running gate-alerts",
            "Token de acceso: {v} (sustituir por el tuyo)",
        ],
    ),
    (
        B,
        "placeholder_angle_brackets",
        lit("<STREAM_KEY>"),
        [
            "ffmpeg ... -f flv rtmp://a.rtmp.youtube.com/live2/{v}",
        ],
    ),
    (
        B,
        "placeholder_changeme",
        lit("changeme"),
        [
            "default NVR password after factory reset is {v} - must be changed at first login",
            "docker-compose.dev.yml: POSTGRES_PASSWORD={v}",
            "DB_PASSWORD={v}  # template, real one injected by CI",
        ],
    ),
    (
        B,
        "placeholder_xxxx",
        lit("xxxxxxxxxxxxxxxxxxxxxxxx"),
        [
            "SENDGRID_API_KEY=SG.{v}",
            "stripe key: sk_live_{v} (fill from vault)",
        ],
    ),
    (
        B,
        "placeholder_xxxx",
        lit("XXXX-XXXX-XXXX"),
        [
            "licence field format for the scoreboard software: {v}",
        ],
    ),
    (
        B,
        "env_var_reference",
        lit("${STRIPE_SECRET_KEY}"),
        [
            "stripe:\n  secret_key: {v}",
            "curl -u {v}: https://api.stripe.com/v1/balance",
        ],
    ),
    (
        B,
        "env_var_reference",
        lit("$NVR_ADMIN_PASSWORD"),
        [
            'sshpass -p "{v}" ssh admin@nvr-01 reboot',
            "the script reads {v} from the environment, never hardcode it",
        ],
    ),
    (
        B,
        "env_var_reference",
        lit("{{ secrets.SHOPIFY_ADMIN_TOKEN }}"),
        [
            "gh actions: X-Shopify-Access-Token: {v}",
        ],
    ),
    (
        B,
        "vault_path_reference",
        lit("vault:secret/data/stadium/turnstile#admin_password"),
        [
            "turnstile admin password -> {v}",
            "password: {v}",
        ],
    ),
    (
        B,
        "vault_path_reference",
        lit("op://Stadium Ops/Staff WiFi/password"),
        [
            "staff wifi key is in 1Password: {v}",
            "WIFI_PSK={v}",
        ],
    ),
    (
        B,
        "k8s_secret_ref",
        lit("secretKeyRef: {name: ticket-db, key: password}"),
        [
            "env:\n- name: DB_PASSWORD\n  valueFrom:\n    {v}",
            "gate-sync deployment: {v} (value lives in the cluster only)",
        ],
    ),
    (
        B,
        "redacted_value",
        lit("********"),
        [
            "CCTV login: admin / {v} (ask Jens)",
            "SRT passphrase={v}",
            "| Videowall Süd | admin | {v} |",
            "Passwort Kassensystem: {v} (siehe Tresor)",
        ],
    ),
    (
        B,
        "redacted_value",
        lit("[REDACTED]"),
        [
            "vendor pasted their api key in the ticket: x-api-key: {v}",
            "AWS_SECRET_ACCESS_KEY={v}",
        ],
    ),
    (
        B,
        "masked_last4",
        lambda r: "sk_live_..." + rs(r, AN, 4),
        [
            "the stripe key ending {v} is the one used by the POS, rotate that one",
            "POS uses {v}",
            "dashboard shows key {v} last used 2h ago",
        ],
    ),
    (
        B,
        "masked_last4",
        lambda r: "ghp_****" + rs(r, AN, 4),
        [
            "GitHub says token {v} expires in 7 days",
        ],
    ),
    (
        B,
        "revoked_key_stated_revoked",
        b_revoked,
        [
            "REVOKED 03/11 after leak in the pos repo, do not use: {v}",
            "old stripe key {v} was rolled and revoked in the dashboard, kept here only for grep in logs",
        ],
    ),
    (
        B,
        "revoked_key_stated_revoked",
        g_ghp,
        [
            "this PAT was deleted on github after the intern left: {v} (already revoked, 401 confirmed)",
        ],
    ),
    (
        B,
        "password_policy_text",
        lit("min 12 chars, 1 digit, 1 symbol"),
        [
            "staff password policy for the ticketing backoffice: {v}, no reuse of the last 5",
            "Passwortregel Kassen: {v}; alle 90 Tage ändern",
        ],
    ),
    (
        B,
        "password_policy_text",
        lit("password must not contain the club name"),
        [
            "security reminder: {v}, 'Matchday2024!' style passwords get guessed",
        ],
    ),
    (
        B,
        "password_rotation_note_no_value",
        lit("rotated"),
        [
            "CCTV NVR admin password {v} after the contractor left, new one only in Keeper",
            "stadium wifi PSK {v} on 14/09, staff informed at briefing (not posting it here)",
            "Shopify admin token {v}; old one deleted, new one set in CI vars",
        ],
    ),
    (
        B,
        "generator_command_no_output",
        lit("openssl rand -base64 32"),
        [
            "to make a new JWT secret: {v} and put it in vault",
            "SRT passphrase: generate with `{v}`, min 10 chars per spec",
        ],
    ),
    (
        B,
        "generator_command_no_output",
        lit("pwgen -sy 20 1"),
        [
            "new radius secrets: {v}, one per WLC",
        ],
    ),
    (
        B,
        "example_db_url_placeholder",
        lit("postgres://user:password@localhost:5432/tickets"),
        [
            "local dev: DATABASE_URL={v}",
            "README example connection string {v}",
        ],
    ),
    (
        B,
        "example_db_url_placeholder",
        lit("rtsp://<user>:<pass>@<camera-ip>:554/Streaming/Channels/101"),
        [
            "hikvision stream url format: {v}",
        ],
    ),
    (
        B,
        "jwt_io_documented_example",
        lit(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "the vendor docs use the jwt.io sample token {v} in their examples",
            "decoded {v} on jwt.io - it is the John Doe demo token, nothing of ours",
        ],
    ),
    (
        B,
        "season_ticket_number",
        b_season,
        [
            "fan lost card, season ticket {v}, reissue at box office",
            "Abbonamento {v} bloccato per furto",
            "Dauerkarte {v} gesperrt (doppelt gescannt)",
            "| {v} | Block 14 Reihe 8 Platz 22 |",
        ],
    ),
    (
        B,
        "ticket_barcode",
        b_barcode,
        [
            "barcode {v} rejected at gate 3 twice, fan let in manually",
            "test scan with {v} on the handheld",
            "{v}",
            "Código de barras de la entrada: {v}",
        ],
    ),
    (
        B,
        "turnstile_serial_number",
        b_serial,
        [
            "turnstile at gate 5 lane 2 SN {v} needs service",
            "RMA for reader {v}",
            "Seriennummer Drehkreuz Tor 2: {v}",
        ],
    ),
    (
        B,
        "mac_address",
        b_mac,
        [
            "LED controller east MAC {v} -> reserve 10.40.0.20 in DHCP",
            "rogue AP seen with BSSID {v} in block D",
            "| cam-g7 | {v} | VLAN 120 |",
        ],
    ),
    (
        B,
        "ip_and_port",
        b_ip,
        [
            "scoreboard controller at {v}",
            "camera N-12 reachable on {v}",
            "PA amp controller {v} (no auth, isolated VLAN)",
        ],
    ),
    (
        B,
        "product_sku_ean",
        b_ean,
        [
            "home shirt 25/26 size M EAN {v} shows wrong price on POS",
            "Artikel {v} (Schal) nachbestellen",
        ],
    ),
    (
        B,
        "player_provider_id",
        b_player,
        [
            "Opta player id for our new no. 9: {v}",
            "GPS vest 14 mapped to player {v} in the perf platform",
            "Wyscout/Opta mapping: {v} -> our squad no. 23",
        ],
    ),
    (
        B,
        "club_iban_invoice",
        b_iban,
        [
            "sponsor invoices: pay to {v} (club account, printed on every invoice)",
            "IBAN für Sponsorenrechnungen: {v}",
        ],
    ),
    (
        B,
        "vat_number",
        b_vat,
        [
            "club VAT ID {v} for the webshop imprint",
            "USt-IdNr. des Vereins: {v}",
        ],
    ),
    (
        B,
        "led_hex_colour",
        b_hexcol,
        [
            "LED ribbon club blue is {v}, sponsor red overlay",
            "scoreboard font colour {v}",
            "sponsor red {v} from the brand book",
        ],
    ),
    (
        B,
        "stream_ingest_url_no_key",
        lit("rtmp://a.rtmp.youtube.com/live2"),
        [
            "youtube ingest server is {v} (key separate, in OBS profile only)",
            "Servidor de ingesta: {v} - la clave de emisión NO va aquí",
            "primary ingest {v}, backup rtmp://b.rtmp.youtube.com/live2?backup=1",
        ],
    ),
    (
        B,
        "base64_image_data",
        b_imgdata,
        [
            "sponsor logo inline for the email: data:image/png;base64,{v}",
            '<img src="data:image/png;base64,{v}" alt="brewery logo">',
        ],
    ),
    (
        B,
        "build_version_string",
        b_build,
        [
            "season-ticket app released as {v}",
            "scoreboard agent version {v} on all panels",
            "{v}",
        ],
    ),
    (
        B,
        "order_reference",
        b_order,
        [
            "webshop order {v} shipped twice, refund one",
            "Bestellung {v} storniert",
            "| {v} | 3 items | paid |",
        ],
    ),
    (
        B,
        "guest_wifi_open_network",
        lit("FC-Fans-Free"),
        [
            "public fan wifi SSID {v} is open with a captive portal, no password",
            "WLAN für Fans: {v} (offen, kein Passwort, Login per E-Mail)",
            "Wi-Fi de aficionados {v}: red abierta con portal cautivo, sin contraseña",
        ],
    ),
    (
        B,
        "aws_iam_role_arn",
        b_arn,
        [
            "export job assumes {v}",
            "trust policy principal: {v}",
            "| ticket-export | {v} | read-only S3 |",
        ],
    ),
    (
        B,
        "sealed_secret_ciphertext",
        b_sealed,
        [
            "SealedSecret for ticket-db (safe to commit, only the cluster can decrypt):\nspec:\n  encryptedData:\n    password: {v}",
            "kubeseal output for the gate-sync token: {v}",
        ],
    ),
    (
        B,
        "sops_encrypted_value",
        b_sops,
        [
            "secrets.enc.yaml (sops, KMS key in eu-central-1):\nshopify_admin_token: {v}",
            "nvr_password: {v}",
        ],
    ),
    (
        B,
        "ansible_vault_encrypted",
        b_ansible,
        [
            "group_vars/turnstiles/vault.yml is encrypted, looks like:\n{v}",
            "led_admin_password: !vault |\n{v}",
        ],
    ),
    (
        B,
        "npm_integrity_hash",
        b_sri,
        [
            'package-lock: "integrity": "{v}"',
            '<script src="https://cdn.fc-example.de/ticket-widget.js" integrity="{v}" crossorigin="anonymous"></script>',
        ],
    ),
    (
        B,
        "youtube_video_id",
        b_ytid,
        [
            "highlights video for the board: https://www.youtube.com/watch?v={v}",
            "embed id {v} on the matchday page",
            "playlist item {v} = goals of the month",
        ],
    ),
    (
        B,
        "jwks_public_key",
        b_jwks,
        [
            'ticket app JWKS (public):\n{"keys":[{"kty":"RSA","kid":"gate-2026","use":"sig","alg":"RS256","e":"AQAB","n":"{v}"}]}',
            "public modulus n={v} (verification only)",
        ],
    ),
    (
        B,
        "wireguard_public_key",
        b_wgpub,
        [
            "[Peer]\nPublicKey = {v}\nEndpoint = vpn.fc-example.de:51820\nAllowedIPs = 10.66.0.0/24",
            "add peer pubkey {v} for Jens' laptop",
            "wg pubkey of the OB van: {v}",
        ],
    ),
    (
        B,
        "certificate_signing_request",
        b_csr,
        [
            "CSR for tickets.fc-example.de sent to the CA (key stays on the LB):\n{v}",
        ],
    ),
    (
        B,
        "age_public_recipient",
        b_age,
        [
            "encrypt handover files to the ops team age recipient {v}",
            "sops creation_rules: age: {v}",
        ],
    ),
    (
        B,
        "asset_fingerprint_filename",
        b_asset,
        [
            "cache issue: the app still loads main.{v}.js after deploy",
            "LED playlist points to sponsor_halftime.{v}.mp4",
        ],
    ),
    (
        B,
        "public_hotline_phone",
        b_phone,
        [
            "fan ticket hotline (printed on the website): {v}",
            "Stadion-Hotline am Spieltag: {v}",
        ],
    ),
    (
        B,
        "documented_test_card",
        lit("4242 4242 4242 4242"),
        [
            "test the new checkout on staging with Stripe test card {v}, any CVC, future date",
            "Testkarte {v} funktioniert nur im Testmodus",
        ],
    ),
    (
        B,
        "ssid_names_keys_elsewhere",
        lit("STADION-STAFF, FC-PRESS, TURNSTILE-MGMT"),
        [
            "SSIDs on the stadium controller: {v} (keys in 1Password, not here)",
            "Redes Wi-Fi del estadio: {v}; las claves las tiene seguridad",
        ],
    ),
]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, kind, gen, templates in SPEC:
        for t in templates:
            d = gen(r)
            if not isinstance(d, dict):
                d = {"v": d}
            text = t
            for k, val in d.items():
                text = text.replace("{" + k + "}", val)
            assert d["v"] in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": d["v"]})
    return rows


def main() -> None:
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

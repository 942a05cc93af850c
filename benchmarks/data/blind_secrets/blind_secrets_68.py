# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 68: hotel group hospitality IT.

Brief: PMS integrations (Opera/OHIP, Mews, Cloudbeds), POS and payment terminals, door-lock and key-card systems, guest Wi-Fi captive portals, channel managers and OTA connectivity (Booking.com, Expedia), revenue-management tools, front-desk staff notes, multilingual staff.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_68.py [out.jsonl]

Kinds, secret: ohip_client_secret, opera_db_password, opera_oxi_interface_password, mews_client_token, mews_access_token, cloudbeds_api_key, cloudbeds_oauth_client_secret, booking_com_connectivity_password, expedia_eqc_password, expedia_rapid_shared_secret, channel_manager_api_key, stripe_secret_key, stripe_restricted_key, adyen_api_key, adyen_hmac_key, square_access_token, simphony_db_connstring, payment_terminal_admin_pin, visionline_admin_password, saflok_encoder_password, lock_system_master_code, mobile_key_api_secret, radius_shared_secret, staff_wifi_psk, captive_portal_admin_password, wifi_portal_api_key, rms_api_key, night_audit_sftp_password, sendgrid_api_key, twilio_auth_token, slack_webhook_url, github_pat, aws_secret_access_key, azure_storage_connstring, postgres_url_password, openssh_private_key, rsa_private_key_pem, gcp_service_account_json, bearer_jwt_live, basic_auth_header, openai_api_key, npm_token, front_desk_login_prose, pms_password_non_english, back_office_safe_combination, smtp_password_env, redis_url_password
Kinds, benign: aws_documented_example_key, git_commit_sha, reservation_uuid, booking_com_reservation_number, expedia_itinerary_number, opera_confirmation_number, keycard_uid, terminal_serial_tid, masked_pan, documented_test_card, stripe_publishable_key, adyen_client_key_public, recaptcha_site_key, file_sha256_checksum, export_md5, ssh_public_key, certificate_pem, tls_cert_fingerprint, ssh_host_fingerprint, angle_placeholder, changeme_placeholder, env_var_reference, masked_xxxx, redacted_value, vault_reference, onepassword_reference, secrets_manager_arn, password_policy_text, password_reset_procedure, mac_address, ota_hotel_id, mews_documented_demo_token, revoked_key_said_revoked, bcrypt_hash, oauth_client_id_alone, ticket_number, docker_image_digest, npm_integrity_hash, dkim_public_key, lock_event_id, wifi_ssid_name, password_ui_strings_multilingual, rate_plan_code, pos_check_number, lock_firmware_version, ip_vlan_note, booking_widget_public_id, guest_email_sha256_hash
"""

import base64
import json
import random
import string
import sys

SEED = 6868

U = string.ascii_uppercase
LO = string.ascii_lowercase
D = string.digits
AN = U + LO + D
HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64 = AN + "+/"
B64URL = AN + "-_"

WORDS = [
    "Sunrise",
    "Lobby",
    "Concierge",
    "Bellhop",
    "Seaview",
    "Marina",
    "Palmtree",
    "Suite",
    "Housekeeping",
    "Minibar",
    "Checkin",
    "Frontdesk",
    "Hortensia",
    "Oceano",
    "Sommer",
    "Girasol",
    "Laguna",
    "Castello",
    "Tulipan",
    "Riviera",
]
SYMS = "!@#$%&*?"


def s(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def human(r):
    w = r.choice(WORDS)
    if r.random() < 0.3:
        w = w.lower()
    return w + str(r.randint(1, 2029)) + r.choice(SYMS)


def gen_pw(r):
    return s(r, AN, 4) + r.choice("!#%") + s(r, AN, 7) + r.choice(SYMS) + s(r, AN, 3)


def b64lines(r, n, width=64):
    body = s(r, B64, width * n)
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def b64u(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def jwt(r):
    h = b64u(b'{"alg":"RS256","typ":"JWT"}')
    p = b64u(
        json.dumps(
            {
                "sub": s(r, HEX, 12),
                "iss": "https://auth.grp-hotels.example/oauth",
                "exp": r.randint(1790000000, 1799999999),
                "scope": "pms.read pms.write",
            }
        ).encode()
    )
    return h + "." + p + "." + s(r, B64URL, 86)


def pem_rsa(r):
    return (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
        + s(r, B64, 48)
        + "\n"
        + b64lines(r, 10)
        + "\n"
        + s(r, B64, 40)
        + "==\n-----END RSA PRIVATE KEY-----"
    )


def pem_openssh(r):
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        + b64lines(r, 4, 70)
        + "\n"
        + s(r, B64, 24)
        + "=\n-----END OPENSSH PRIVATE KEY-----"
    )


def cert_pem(r):
    return (
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE"
        + s(r, B64, 44)
        + "\n"
        + b64lines(r, 8)
        + "\n"
        + s(r, B64, 30)
        + "=\n-----END CERTIFICATE-----"
    )


def gcp_json(r):
    key = (
        "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
        + s(r, B64, 50)
        + "\\n"
        + "\\n".join(s(r, B64, 64) for _ in range(6))
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    return key


def basic(r):
    user = r.choice(["ohip_int", "svc_channel", "rms_feed", "posbridge"])
    return base64.b64encode((user + ":" + gen_pw(r)).encode()).decode()


def mews_tok(r):
    return s(r, HEXU, 32) + "-" + s(r, HEXU, 31)


def luhn_ok(num):
    t = 0
    for i, ch in enumerate(reversed(num)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        t += d
    return t % 10 == 0


def uuid4(r):
    h = s(r, HEX, 32)
    return (
        h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + r.choice("89ab") + h[17:20] + "-" + h[20:]
    )


def fp_colon(r, n):
    return ":".join(s(r, HEXU, 2) for _ in range(n))


def secret_kinds():
    return [
        (
            "ohip_client_secret",
            lambda r: s(r, AN + "-_", 36),
            [
                "OHIP integration for the Lisbon property: client_id grp_lis_int, client_secret {v} (gateway https://lis-ohip.hospitality-api.us-ashburn-1.ocs.oraclecloud.com)",
                "curl -X POST https://ohip-gw.example/oauth/v1/tokens -H 'x-app-key: 6b1f-app' -d 'username=GRP_INT&password=x&grant_type=password' -u grp_lis_int:{v}",
                "OHIP_CLIENT_SECRET={v}",
                "| OHIP prod | grp_lis_int | {v} | rotated Oct |",
            ],
        ),
        (
            "opera_db_password",
            gen_pw,
            [
                "Opera 5 on-prem DB, if the IFC8 hangs: sqlplus opera/{v}@OPERA then check the ifc_ctrl table",
                "opera schema pw is {v} (same on V5 test, ask Raj before using on prod)",
                "jdbc:oracle:thin:opera/{v}@10.20.4.11:1521/OPERA",
                "Night-shift note: DB login for opera user changed today to\n{v}\ndo not paste in the ticket",
            ],
        ),
        (
            "opera_oxi_interface_password",
            human,
            [
                "OXI interface user OXI_HUB password {v} - used by the channel manager for 2-way res upload",
                '<oxi:Credentials user="OXI_HUB" password="{v}" interface="OXI-GENERIC"/>',
                "Contraseña del interfaz OXI (Opera) para Madrid: {v}",
                "oxi pw for the spa system = {v} btw",
            ],
        ),
        (
            "mews_client_token",
            mews_tok,
            [
                "Mews Connector API prod ClientToken: {v}",
                '"ClientToken": "{v}",',
                "MEWS_CLIENT_TOKEN={v}",
                "mews client token for the kiosk integration (prod, not demo!) {v}",
            ],
        ),
        (
            "mews_access_token",
            mews_tok,
            [
                "Mews AccessToken for Prague Old Town enterprise: {v} - generated in Marketplace > Integrations",
                '{"ClientToken": "$MEWS_CLIENT_TOKEN", "AccessToken": "{v}", "Client": "GrpHotelsSync 1.4"}',
                "mews_access_token: {v}",
                "Token d'accès Mews pour l'hôtel de Lyon : {v}",
            ],
        ),
        (
            "cloudbeds_api_key",
            lambda r: "cbat_" + s(r, AN, 32),
            [
                "Cloudbeds API key for the hostel brand: {v}",
                "curl -H 'x-api-key: {v}' https://api.cloudbeds.com/api/v1.2/getReservations?propertyID=184523",
                "CLOUDBEDS_API_KEY={v}",
                "cloudbeds key (Tulum boutique)\n{v}",
            ],
        ),
        (
            "cloudbeds_oauth_client_secret",
            lambda r: s(r, AN, 32),
            [
                "Cloudbeds OAuth app 'GrpRMSBridge' client_id live_grp_rmsbridge client_secret {v}",
                "cloudbeds:\n  client_id: live_grp_rmsbridge\n  client_secret: {v}",
                "client secret for cloudbeds oauth = {v} (redirect uri is the /cb/callback one)",
                "--cb-client-id live_grp_rmsbridge --cb-client-secret {v}",
            ],
        ),
        (
            "booking_com_connectivity_password",
            gen_pw,
            [
                "Booking.com connectivity machine account for the XML B.XML endpoints: user grp-cm-prod, pass {v}",
                "curl -u grp-cm-prod:{v} https://supply-xml.booking.com/hotels/xml/availability",
                "BCOM_XML_PASSWORD={v}",
                "Booking connectivity pw (machine acct, not the extranet one) — {v}",
            ],
        ),
        (
            "expedia_eqc_password",
            human,
            [
                "Expedia QuickConnect EQC user EQC_grp_lis / {v}",
                "EQC password for AR/BR endpoints: {v} (expires every 90d, set reminder)",
                "Senha do Expedia EQC do hotel do Porto: {v}",
                "| Expedia EQC | EQC_grp_lis | {v} |",
            ],
        ),
        (
            "expedia_rapid_shared_secret",
            lambda r: s(r, AN, 20),
            [
                "Expedia Rapid API: apikey {rapidkey} shared secret {v} — signature is sha512(apikey+secret+timestamp)",
                "RAPID_SHARED_SECRET={v}",
                "rapid shared secret (prod) {v}",
                'sig = sha512(API_KEY + "{v}" + str(int(time.time())))',
            ],
        ),
        (
            "channel_manager_api_key",
            lambda r: s(r, HEX, 40),
            [
                "SiteMinder pmsXchange credentials for Porto: username GRP_PORTO_PMSX, password {v}",
                "channel manager (D-EDGE) API key: {v}",
                "DEDGE_API_KEY={v}",
                "Clave API del channel manager para Sevilla: {v}",
            ],
        ),
        (
            "stripe_secret_key",
            lambda r: "sk_live_51" + s(r, AN, 97),
            [
                "Stripe live secret for the direct-booking engine: {v}",
                "STRIPE_SECRET_KEY={v}",
                "curl https://api.stripe.com/v1/refunds -u {v}: -d payment_intent=pi_3Q",
                "stripe key\n{v}",
            ],
        ),
        (
            "stripe_restricted_key",
            lambda r: "rk_live_51" + s(r, AN, 97),
            [
                "Restricted Stripe key for the deposit reconciliation job (read charges only): {v}",
                'stripe.api_key = "{v}"',
                "rk for recon = {v}",
                "RK prod recon: {v}",
            ],
        ),
        (
            "adyen_api_key",
            lambda r: (
                "AQE"
                + s(r, AN, 3)
                + "fxKY"
                + s(r, AN + "+/", 60)
                + "=-"
                + s(r, AN + "/+", 43)
                + "=-"
                + s(r, AN, 14)
            ),
            [
                "Adyen API key for ws@Company.GrpHotels (terminal API, cloud): {v}",
                "X-API-Key: {v}",
                "ADYEN_API_KEY={v}",
                "adyen ws user key — {v} — only for the POS cloud terminal API",
            ],
        ),
        (
            "adyen_hmac_key",
            lambda r: s(r, HEXU, 64),
            [
                "Adyen notification HMAC key (standard webhook, live): {v}",
                "ADYEN_HMAC_KEY={v}",
                "hmac key for adyen webhooks {v}",
                "Chave HMAC do webhook Adyen: {v}",
            ],
        ),
        (
            "square_access_token",
            lambda r: "EAAA" + s(r, AN + "-_", 60),
            [
                "Square production access token for the rooftop bar POS: {v}",
                "Authorization: Bearer {v}",
                "SQUARE_ACCESS_TOKEN={v}",
                "sq token (prod, bar) {v}",
            ],
        ),
        (
            "simphony_db_connstring",
            gen_pw,
            [
                "Simphony CAPS DB: Server=10.30.1.5;Database=MCRSPOS;User Id=sa;Password={v};",
                "Micros sa password on the CAPS box is {v}",
                "sqlcmd -S 10.30.1.5 -U sa -P {v} -d MCRSPOS",
                "Hasło do bazy Simphony (sa): {v}",
            ],
        ),
        (
            "payment_terminal_admin_pin",
            lambda r: str(r.randint(10000000, 99999999)),
            [
                "Ingenico Lane/3000 merchant menu password for restaurant terminals: {v}",
                "terminal admin pin now {v} (changed after the audit, old default no longer works)",
                "Verifone P400 supervisor password = {v}",
                "PIN de administrador de los TPV del restaurante: {v}",
            ],
        ),
        (
            "visionline_admin_password",
            human,
            [
                "VingCard Visionline server, user SYS password {v}",
                "visionline sys login {v} - dont give to night audit",
                "Visionline admin (Vienna): Benutzer SYS, Passwort {v}",
                "| Visionline | SYS | {v} |",
            ],
        ),
        (
            "saflok_encoder_password",
            gen_pw,
            [
                "Saflok Ambiance encoder password for front desk station 2: {v}",
                "ambiance admin pw {v}",
                "Senha do codificador Saflok (recepção): {v}",
                "saflok ambiance:\n  user: admin\n  password: {v}",
            ],
        ),
        (
            "lock_system_master_code",
            lambda r: s(r, HEXU, 16),
            [
                "Onity system code (site key) for the Cancun property, needed when re-initialising the encoder: {v}",
                "site code for the lock system {v} — with this + a portable programmer you can cut master cards",
                "LOCK_SITE_KEY={v}",
                "Clave de sitio Onity (Cancún): {v}",
            ],
        ),
        (
            "mobile_key_api_secret",
            lambda r: s(r, B64URL, 43),
            [
                "Seos / mobile key API secret for the app integration: {v}",
                "MOBILE_KEY_API_SECRET={v}",
                "mobile key portal client secret {v}",
                '"mobileKey": {"clientId": "grp-app", "clientSecret": "{v}"}',
            ],
        ),
        (
            "radius_shared_secret",
            lambda r: s(r, AN, 24),
            [
                "RADIUS shared secret between the Nomadix AG and FreeRADIUS: {v}",
                "client nomadix-ag { ipaddr = 10.50.0.2  secret = {v} }",
                "radius secret {v}",
                "radius-server host 10.50.0.9 key {v}",
            ],
        ),
        (
            "staff_wifi_psk",
            human,
            [
                "Staff Wi-Fi (GRP-STAFF) password is {v}, guests must not get it",
                "wpa_passphrase={v}",
                "WLAN Personal: GRP-STAFF / {v}",
                "Il Wi-Fi del personale è GRP-STAFF, la password è {v}",
            ],
        ),
        (
            "captive_portal_admin_password",
            gen_pw,
            [
                "Nomadix AG admin web UI https://10.50.0.2 admin / {v}",
                "captive portal admin login: admin {v}",
                "ssh admin@10.50.0.2 (pw {v})",
                "Contraseña de admin del portal cautivo: {v}",
            ],
        ),
        (
            "wifi_portal_api_key",
            lambda r: "pk" + s(r, HEX, 46),
            [
                "Purple Wi-Fi portal API private key for guest-data export: {v}",
                "WIFI_PORTAL_API_KEY={v}",
                "X-API-KEY: {v}",
                "purple api key {v} (private one, not the venue id)",
            ],
        ),
        (
            "rms_api_key",
            lambda r: s(r, AN, 48),
            [
                "IDeaS G3 RMS API key for the pricing feed: {v}",
                "Duetto API token {v}",
                "RMS_API_TOKEN={v}",
                "| IDeaS | prod | {v} |",
            ],
        ),
        (
            "night_audit_sftp_password",
            human,
            [
                "Night audit export goes to sftp://rms-upload.example.net as grp_nightaudit, pw {v}",
                "sftp grp_nightaudit@rms-upload.example.net  # pass: {v}",
                "sshpass -p '{v}' sftp grp_nightaudit@rms-upload.example.net",
                "SFTP Nachtaudit: grp_nightaudit / {v}",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda r: "SG." + s(r, B64URL, 22) + "." + s(r, B64URL, 43),
            [
                "SendGrid key for pre-arrival emails: {v}",
                "SENDGRID_API_KEY={v}",
                "Authorization: Bearer {v}",
                "sendgrid\n{v}",
            ],
        ),
        (
            "twilio_auth_token",
            lambda r: s(r, HEX, 32),
            [
                "Twilio guest SMS: account {ac} auth token {v}",
                "TWILIO_AUTH_TOKEN={v}",
                "twilio token {v}",
                "Token de Twilio para los SMS de llegada: {v}",
            ],
        ),
        (
            "slack_webhook_url",
            lambda r: (
                "https://hooks.slack.com/services/T"
                + s(r, U + D, 8)
                + "/B"
                + s(r, U + D, 10)
                + "/"
                + s(r, AN, 24)
            ),
            [
                "alerts for failed OTA pushes go to {v}",
                "SLACK_WEBHOOK={v}",
                'curl -X POST -d \'{"text":"IFC down"}\' {v}',
                "webhook #frontdesk-it: {v}",
            ],
        ),
        (
            "github_pat",
            lambda r: "ghp_" + s(r, AN, 36),
            [
                "PAT for the integrations repo (CI pulls): {v}",
                "git clone https://grp-bot:{v}@github.com/grp-hotels/pms-bridge.git",
                "GITHUB_TOKEN={v}",
                "gh token {v}",
            ],
        ),
        (
            "aws_secret_access_key",
            lambda r: s(r, AN + "/+", 40),
            [
                "AWS for the data lake (guest folio exports): {akia} / {v}",
                "aws_secret_access_key = {v}",
                "AWS_SECRET_ACCESS_KEY={v}",
                "| aws | rms-export | {akia} | {v} |",
            ],
        ),
        (
            "azure_storage_connstring",
            lambda r: s(r, B64, 86) + "==",
            [
                "DefaultEndpointsProtocol=https;AccountName=grpfoliostore;AccountKey={v};EndpointSuffix=core.windows.net",
                "folio blob storage key: {v}",
                "AZURE_STORAGE_KEY={v}",
                "az storage blob list --account-name grpfoliostore --account-key {v} -c folios",
            ],
        ),
        (
            "postgres_url_password",
            gen_pw,
            [
                "DATABASE_URL=postgresql://bridge:{v}@pg-bridge.internal:5432/pmsbridge",
                "psql postgres://bridge:{v}@pg-bridge.internal/pmsbridge -c 'select count(*) from ota_queue'",
                "pg bridge user pw {v}",
                "the pmsbridge db password is {v}",
            ],
        ),
        (
            "openssh_private_key",
            pem_openssh,
            [
                "deploy key for the kiosk boxes:\n{v}",
                "{v}",
                "id_ed25519 (jump host to lock server)\n{v}",
                "Chave privada do jump host:\n{v}",
            ],
        ),
        (
            "rsa_private_key_pem",
            pem_rsa,
            [
                "OHIP client-cert private key (mTLS):\n{v}",
                "{v}",
                "key for pms-bridge.grp-hotels.example TLS:\n{v}",
                "privkey.pem contents (old server, still live)\n{v}",
            ],
        ),
        (
            "gcp_service_account_json",
            gcp_json,
            [
                '{"type": "service_account", "project_id": "grp-revenue", "private_key_id": "{kid}", "private_key": "{v}", "client_email": "rms-bq@grp-revenue.iam.gserviceaccount.com"}',
                'bq loader sa key -> "private_key": "{v}"',
                "service account json (BigQuery revenue dashboards): private_key={v}",
                '"private_key": "{v}",',
            ],
        ),
        (
            "bearer_jwt_live",
            jwt,
            [
                "Authorization: Bearer {v}",
                "token from OHIP that works for 1h, use for testing the rate push: {v}",
                'curl -H "Authorization: Bearer {v}" https://ohip-gw.example/rsv/v1/hotels/LISGRP/reservations',
                "access_token={v}",
            ],
        ),
        (
            "basic_auth_header",
            basic,
            [
                "Authorization: Basic {v}",
                "the RMS push needs header Authorization: Basic {v}",
                "-H 'Authorization: Basic {v}'",
                "basic auth b64 for the channel feed {v}",
            ],
        ),
        (
            "openai_api_key",
            lambda r: "sk-proj-" + s(r, AN + "-_", 48) + "T3BlbkFJ" + s(r, AN + "-_", 48),
            [
                "OpenAI key for the guest-review reply drafts: {v}",
                "OPENAI_API_KEY={v}",
                "openai key\n{v}",
                "Clé OpenAI pour les réponses aux avis : {v}",
            ],
        ),
        (
            "npm_token",
            lambda r: "npm_" + s(r, AN, 36),
            [
                "//registry.npmjs.org/:_authToken={v}",
                "NPM_TOKEN={v}",
                "npm publish token for @grp-hotels/ui-kit {v}",
                "npm token {v}",
            ],
        ),
        (
            "front_desk_login_prose",
            human,
            [
                "FD shared PC: user frontdesk, {v}",
                "front desk pc login frontdesk / {v} (for new starters on day 1)",
                "new hire checklist — log in as frontdesk with {v} then change nothing",
                "reception pc is frontdesk + {v}",
            ],
        ),
        (
            "pms_password_non_english",
            human,
            [
                "Passwort für Opera (Benutzer REZEPTION1): {v}",
                "La contraseña de Opera para recepción es {v}",
                "Mot de passe Opera réception : {v}",
                "Password Opera per la reception: {v}",
                "Ang password ng Opera sa front desk ay {v}",
            ],
        ),
        (
            "back_office_safe_combination",
            lambda r: "-".join(str(r.randint(10, 99)) for _ in range(3)),
            [
                "back office safe (float + master cards): {v}",
                "safe combo {v}, change it when Marco leaves",
                "Kombination Tresor Backoffice: {v}",
                "master keycards are in the safe, {v}",
            ],
        ),
        (
            "smtp_password_env",
            gen_pw,
            [
                "SMTP_PASSWORD={v}",
                "smtp.office365.com:587 reservations@grp-hotels.example / {v}",
                "reservations mailbox pw {v} (Opera sends confirmations through it)",
                "smtp:\n  user: reservations@grp-hotels.example\n  pass: {v}",
            ],
        ),
        (
            "redis_url_password",
            lambda r: s(r, AN, 32),
            [
                "REDIS_URL=redis://:{v}@redis-cm.internal:6379/0",
                "redis-cli -h redis-cm.internal -a {v} llen ari_queue",
                "redis requirepass {v}",
                "channel manager cache: rediss://default:{v}@cm-cache.example.cloud:6380",
            ],
        ),
    ]


def benign_kinds():
    return [
        (
            "aws_documented_example_key",
            lambda r: "AKIAIOSFODNN7EXAMPLE",
            [
                "the AWS docs example key is {v}, the checker rejects it on purpose",
                "aws_access_key_id = {v}  # sample from the docs, replace",
                "README for the export script uses {v} as a dummy",
                "ignore {v} in the logs, it's the test fixture",
            ],
        ),
        (
            "git_commit_sha",
            lambda r: s(r, HEX, 40),
            [
                "pms-bridge rollback target: commit {v}",
                "{v} Merge pull request #812 from grp-hotels/fix-ifc-timeout",
                "fixed the Booking.com ARI duplicate push in {v}",
                "git revert {v}",
                "deployed {v} to Lisbon prod at 02:10",
            ],
        ),
        (
            "reservation_uuid",
            uuid4,
            [
                "Mews reservation {v} failed to sync to the RMS",
                "{v}",
                "ReservationId: {v}",
                "La reserva {v} aparece dos veces en el channel manager",
                "guest complaint about double charge, res id {v}",
            ],
        ),
        (
            "booking_com_reservation_number",
            lambda r: str(r.randint(1000000000, 9999999999)),
            [
                "Booking.com res {v} came in without CC details",
                "B.com reservation number {v} - guest no-show, charge per policy",
                "Reserva Booking nº {v}: cliente pide factura a nombre de empresa",
                "| {v} | Booking.com | no-show |",
            ],
        ),
        (
            "expedia_itinerary_number",
            lambda r: "7" + str(r.randint(100000000000, 999999999999)),
            [
                "Expedia itinerary {v} - virtual card declined, call EPS",
                "Itinerary #{v}",
                "EQC booking {v} missing from Opera",
                "Número de itinerario Expedia: {v}",
            ],
        ),
        (
            "opera_confirmation_number",
            lambda r: str(r.randint(10000000, 99999999)),
            [
                "Opera conf # {v} - VIP, upgrade if possible",
                "| {v} | Opera | early departure |",
                "confirmation {v} has wrong rate code, fixed manually",
                "Bestätigungsnummer {v}: Gast reist einen Tag früher ab",
                "conf {v}",
            ],
        ),
        (
            "keycard_uid",
            lambda r: s(r, HEXU, 14),
            [
                "MIFARE DESFire card UID {v} reported lost, blocked in Visionline",
                "card uid {v} doesn't open 512, re-encoded",
                "UID {v} (staff master, housekeeping floor 3) — audit trail attached",
                "UID da cartão: {v}",
            ],
        ),
        (
            "terminal_serial_tid",
            lambda r: (
                str(r.randint(100, 999))
                + "-"
                + str(r.randint(100, 999))
                + "-"
                + str(r.randint(100, 999))
            ),
            [
                "Verifone P400 serial {v} in the lobby bar, swap under warranty",
                "S/N\n{v}",
                "terminal S/N {v}, TID 40213377",
                "Número de serie del TPV: {v}",
                "| bar | P400 | {v} |",
            ],
        ),
        (
            "masked_pan",
            lambda r: "**** **** **** " + str(r.randint(1000, 9999)),
            [
                "guest card on file {v} declined, ask for new card at check-in",
                "Folio shows VISA {v}",
                "Karte {v} abgelehnt",
                "pre-auth on {v} released",
            ],
        ),
        (
            "documented_test_card",
            lambda r: r.choice(
                ["4111111111111111", "4242424242424242", "5555555555554444", "4000000000000002"]
            ),
            [
                "use {v} in the booking engine sandbox, any CVC",
                "test card {v} exp 12/34",
                "Tarjeta de prueba del sandbox: {v}",
                "QA: {v} (decline test)",
            ],
        ),
        (
            "stripe_publishable_key",
            lambda r: "pk_live_51" + s(r, AN, 97),
            [
                "booking engine front-end uses the publishable key {v} (safe in the browser)",
                "STRIPE_PUBLISHABLE_KEY={v}",
                "Stripe.js init: Stripe('{v}')",
                "pk for web: {v}",
            ],
        ),
        (
            "adyen_client_key_public",
            lambda r: "live_" + s(r, U + D, 32),
            [
                "Adyen client key for Drop-in (public, goes in the web page): {v}",
                'clientKey: "{v}"',
                "ADYEN_CLIENT_KEY={v}",
                "client key (not the API key) {v}",
            ],
        ),
        (
            "recaptcha_site_key",
            lambda r: "6L" + s(r, AN + "-_", 38),
            [
                "reCAPTCHA site key on the Wi-Fi splash page: {v}",
                'data-sitekey="{v}"',
                "RECAPTCHA_SITE_KEY={v}",
                "site key (public) {v}",
            ],
        ),
        (
            "file_sha256_checksum",
            lambda r: s(r, HEX, 64),
            [
                "Opera IFC8 installer sha256 {v}",
                "sha256sum ifc8_setup.exe -> {v}",
                "Checksum des Installers: {v}",
                "{v}  simphony_patch_19.6.zip",
            ],
        ),
        (
            "export_md5",
            lambda r: s(r, HEX, 32),
            [
                "night audit export md5 {v} matches what IDeaS received",
                "md5: {v}",
                "MD5 del fichero de auditoría: {v}",
                'etag "{v}" on the folio export object',
            ],
        ),
        (
            "ssh_public_key",
            lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(r, B64, 43),
            [
                "add to authorized_keys on the lock server: {v} it-ops@grp",
                "{v} kiosk-deploy",
                "pubkey for the jump host {v}",
                "Chave pública do técnico: {v}",
            ],
        ),
        (
            "certificate_pem",
            cert_pem,
            [
                "OHIP gateway CA cert (public):\n{v}",
                "{v}",
                "captive portal TLS cert chain, intermediate:\n{v}",
                "cert only, key is in the vault:\n{v}",
            ],
        ),
        (
            "tls_cert_fingerprint",
            lambda r: fp_colon(r, 20),
            [
                "portal cert SHA1 fingerprint {v}",
                "pin this fingerprint in the kiosk app: {v}",
                "Fingerprint: {v}",
                "Empreinte du certificat : {v}",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda r: "SHA256:" + s(r, B64, 43),
            [
                "lock server host key ED25519 {v} - confirm before accepting",
                "The authenticity of host '10.40.0.8' can't be established. ED25519 key fingerprint is {v}.",
                "host fp {v}",
                "sftp host key {v}",
            ],
        ),
        (
            "angle_placeholder",
            lambda r: (
                r.choice(
                    [
                        "<your-token>",
                        "<client-secret>",
                        "<OHIP_APP_KEY>",
                        "<password>",
                        "<api-key-here>",
                    ]
                )
                + ""
            ),
            [
                "template: curl -H 'x-api-key: {v}' https://api.cloudbeds.com/api/v1.2/getHotels",
                "MEWS_ACCESS_TOKEN={v}",
                "set client_secret to {v} from the vault",
                "password: {v}",
            ],
        ),
        (
            "changeme_placeholder",
            lambda r: r.choice(
                ["changeme", "CHANGE_ME", "replace-me", "TODO", "password123-placeholder"]
            ),
            [
                "docker-compose.example.yml has DB_PASSWORD={v}, real one comes from SSM",
                "radius secret = {v}  # example config only",
                "sample .env: STRIPE_SECRET_KEY={v}",
                "the default in the helm chart is '{v}' - prod overrides it",
            ],
        ),
        (
            "env_var_reference",
            lambda r: (
                "${"
                + r.choice(
                    [
                        "OPERA_DB_PASSWORD",
                        "MEWS_ACCESS_TOKEN",
                        "ADYEN_API_KEY",
                        "RADIUS_SECRET",
                        "BCOM_XML_PASSWORD",
                    ]
                )
                + "}"
            ),
            [
                "password: {v}",
                'export CONN="postgresql://bridge:{v}@pg-bridge.internal/pmsbridge"',
                "the job reads {v} at start, set it in the systemd unit",
                "Authorization: Bearer {v}",
            ],
        ),
        (
            "masked_xxxx",
            lambda r: s(r, AN, 4) + "xxxxxxxxxxxx" + s(r, AN, 4),
            [
                "rotated the adyen key, new one starts {v}",
                "api key {v} (masked in the console)",
                "token in the screenshot: {v}",
                "Schlüssel (maskiert): {v}",
            ],
        ),
        (
            "redacted_value",
            lambda r: r.choice(["[REDACTED]", "********", "●●●●●●●●", "<redacted>", "***"]),
            [
                "Opera DB password: {v}",
                "client_secret={v}",
                "Contraseña: {v} (se la di por teléfono)",
                "log line: auth ok user=OXI_HUB pass={v}",
            ],
        ),
        (
            "vault_reference",
            lambda r: (
                "secret/hotels/"
                + r.choice(["lis", "prg", "mad", "cun", "vie"])
                + "/"
                + r.choice(["ohip", "visionline", "radius", "adyen"])
            ),
            [
                "creds are in Vault: vault kv get {v}",
                "pull the secret from {v} (needs the ops policy)",
                "vault path {v}",
                "Las credenciales están en Vault en {v}",
            ],
        ),
        (
            "onepassword_reference",
            lambda r: (
                "op://Hotel-IT/"
                + r.choice(["Saflok Ambiance", "Nomadix AG", "Expedia EQC", "Booking XML"])
                + "/password"
            ),
            [
                "password in 1Password: {v}",
                'op read "{v}"',
                "DB_PASSWORD={v}",
                "see {v}, don't copy it here",
            ],
        ),
        (
            "secrets_manager_arn",
            lambda r: (
                "arn:aws:secretsmanager:eu-west-1:"
                + str(r.randint(100000000000, 999999999999))
                + ":secret:pms/ohip-"
                + s(r, AN, 6)
            ),
            [
                "OHIP secret lives at {v}",
                "aws secretsmanager get-secret-value --secret-id {v}",
                "SecretArn: {v}",
                "ARN do segredo: {v}",
            ],
        ),
        (
            "password_policy_text",
            lambda r: str(r.randint(12, 16)),
            [
                "Policy: PMS passwords min {v} chars, rotate every 90 days, no reuse of last 5",
                "Front desk staff must not write passwords on sticky notes; lock screen after {v} min",
                "Richtlinie: Passwörter mindestens {v} Zeichen, keine Weitergabe an Kollegen",
                "PCI: terminal admin passwords must be changed from default and be at least {v} chars",
            ],
        ),
        (
            "password_reset_procedure",
            lambda r: "INC" + str(r.randint(1000000, 9999999)),
            [
                "to reset an Opera user password: Config > Users > select user > Reset, ticket {v}",
                "reset done for Visionline SYS user, new pw given by phone, see {v}",
                "Procedimiento de cambio de contraseña documentado en {v}",
                "password expired for REZEPTION1, unlocked via {v}",
            ],
        ),
        (
            "mac_address",
            lambda r: fp_colon(r, 6).lower(),
            [
                "guest device {v} stuck on the captive portal, whitelisted",
                "nomadix> show subscriber {v}",
                "Nomadix MAC bypass: {v}",
                "Smart TV room 714 MAC {v}",
                "MAC {v} blocked (abusive bandwidth)",
            ],
        ),
        (
            "ota_hotel_id",
            lambda r: str(r.randint(100000, 9999999)),
            [
                "Booking.com hotel_id {v} for the Porto property",
                "<hotel_id>{v}</hotel_id>",
                "Expedia property id {v}",
                "hotel id for the channel mapping: {v}",
                "ID del hotel en Booking: {v}",
            ],
        ),
        (
            "mews_documented_demo_token",
            lambda r: "E0D439EE522F44368DC78E1BFB03710C-D24FB11DBE31E3C71B6B8CC10AED36B",
            [
                "Mews demo env public ClientToken from their docs: {v}",
                "for api.mews-demo.com use the documented demo ClientToken {v}",
                '"ClientToken": "{v}"  // mews-demo only, public',
                "demo token (public, docs) {v}",
            ],
        ),
        (
            "revoked_key_said_revoked",
            lambda r: "sk_live_51" + s(r, AN, 97),
            [
                "REVOKED in the Stripe dashboard on 3 Nov after the leak, kept for the incident log: {v}",
                "old key {v} is revoked and rolled, new one is in the vault",
                "incident 4471: leaked key {v} was rolled within 12 min, now dead",
                "Clé révoquée (ne marche plus) : {v}",
            ],
        ),
        (
            "bcrypt_hash",
            lambda r: "$2b$12$" + s(r, AN + "./", 53),
            [
                "portal admin user row: password_hash={v}",
                "hash stored for the kiosk PIN: {v}",
                "{v}",
                "htpasswd entry: admin:{v}",
            ],
        ),
        (
            "oauth_client_id_alone",
            lambda r: (
                s(r, HEX, 8)
                + "-"
                + s(r, HEX, 4)
                + "-"
                + s(r, HEX, 4)
                + "-"
                + s(r, HEX, 4)
                + "-"
                + s(r, HEX, 12)
            ),
            [
                "Azure app registration for the PMS SSO: client id {v}, secret in Key Vault",
                "OHIP client_id {v}",
                "client_id={v}",
                "App ID: {v}",
            ],
        ),
        (
            "ticket_number",
            lambda r: "HIT-" + str(r.randint(1000, 99999)),
            [
                "IFC8 down after Windows update, see {v}",
                "{v}: Saflok encoder not writing cards",
                "Ticket {v} — Gast bekommt keine Wi-Fi Seite",
                "closed {v}",
            ],
        ),
        (
            "docker_image_digest",
            lambda r: "sha256:" + s(r, HEX, 64),
            [
                "pms-bridge image pinned to {v}",
                "image: ghcr.io/grp-hotels/pms-bridge@{v}",
                "digest {v}",
                "rolled back to {v}",
            ],
        ),
        (
            "npm_integrity_hash",
            lambda r: "sha512-" + s(r, B64, 86) + "==",
            [
                '"integrity": "{v}"',
                "lockfile integrity for @grp-hotels/ui-kit changed to {v}",
                "integrity {v}",
                "npm ci failed: integrity mismatch, expected {v}",
            ],
        ),
        (
            "dkim_public_key",
            lambda r: (
                "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"
                + s(r, B64, 180)
                + "IDAQAB"
            ),
            [
                "DKIM TXT for reservations mail: {v}",
                's1._domainkey.grp-hotels.example TXT "{v}"',
                "public DKIM record {v}",
                "{v}",
            ],
        ),
        (
            "lock_event_id",
            lambda r: str(r.randint(100000, 999999)) + "-" + s(r, U, 2),
            [
                "Visionline audit event {v} shows room 312 opened by staff card at 03:14",
                "lock event {v}",
                "Evento de auditoría de cerradura: {v}",
                "audit trail id {v} exported to the PDF",
            ],
        ),
        (
            "wifi_ssid_name",
            lambda r: "GRP-Guest-" + s(r, U + D, 4),
            [
                "guest SSID {v} is open, captive portal handles auth",
                "ssid={v}",
                "SSID des invités : {v} (sans mot de passe, portail captif)",
                "conference room SSID {v} with vouchers from the portal",
            ],
        ),
        (
            "password_ui_strings_multilingual",
            lambda r: r.choice(
                [
                    "Passwort vergessen?",
                    "¿Olvidó su contraseña?",
                    "Mot de passe oublié ?",
                    "Password dimenticata?",
                    "Esqueceu a senha?",
                ]
            ),
            [
                'portal translation key login.forgot = "{v}"',
                "string for the kiosk: {v}",
                "the button says '{v}' and links to the self-service reset",
                "{v}",
            ],
        ),
        (
            "rate_plan_code",
            lambda r: (
                r.choice(["BAR", "ADV", "FLEX", "PKG", "CORP"]) + str(r.randint(1, 99)) + s(r, U, 2)
            ),
            [
                "map rate plan {v} to Booking.com rate 4471",
                "RMS pushes price for {v} only",
                "rate code {v} closed for NYE",
                "Código de tarifa {v} sin disponibilidad",
            ],
        ),
        (
            "pos_check_number",
            lambda r: str(r.randint(1000, 9999)),
            [
                "Simphony check #{v} posted to the wrong room, reversed",
                "check {v} - room charge failed, IFC timeout",
                "Rechnung {v} an Zimmer nicht übertragen",
                "Nota {v} posted twice",
            ],
        ),
        (
            "lock_firmware_version",
            lambda r: "%d.%d.%d" % (r.randint(1, 9), r.randint(0, 40), r.randint(0, 99)),
            [
                "Visionline server upgraded to {v}, encoders need reboot",
                "Saflok lock firmware {v} on floors 2-5",
                "firmware={v}",
                "Versión del firmware de las cerraduras: {v}",
            ],
        ),
        (
            "ip_vlan_note",
            lambda r: "10.%d.%d.%d" % (r.randint(0, 255), r.randint(0, 255), r.randint(1, 254)),
            [
                "payment terminals live on VLAN 30, gateway {v}, no internet except the acquirer",
                "IFC8 server {v}",
                "ping {v} (lock server) fails from guest VLAN - expected",
                "| lock server | {v} | VLAN 40 |",
            ],
        ),
        (
            "booking_widget_public_id",
            lambda r: s(r, LO + D, 6),
            [
                "Cloudbeds booking engine widget URL https://hotels.cloudbeds.com/reservation/{v} (public, on the website)",
                "booking widget code {v} goes in the site header",
                '<script src="https://hotels.cloudbeds.com/widget/load/{v}/immersive"></script>',
                "widget id {v}",
            ],
        ),
        (
            "guest_email_sha256_hash",
            lambda r: s(r, HEX, 64),
            [
                "guest email hashed for the ad audience upload: {v}",
                "hashed_email={v}",
                "loyalty match key (sha256 of lower-cased email) {v}",
                "{v},LIS,2026-11",
            ],
        ),
    ]


def corpus():
    r = random.Random(SEED)
    rows = []
    for label, kinds in (("secret", secret_kinds()), ("benign", benign_kinds())):
        for kind, fn, templates in kinds:
            for t in templates:
                v = fn(r)
                text = t.replace("{akia}", "AKIA" + s(r, U + "234567", 16)).replace(
                    "{ac}", "AC" + s(r, HEX, 32)
                )
                text = text.replace("{rapidkey}", s(r, LO + D, 26)).replace("{kid}", s(r, HEX, 40))
                rows.append(
                    {"label": label, "kind": kind, "text": text.replace("{v}", v), "value": v}
                )
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

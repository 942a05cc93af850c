# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 101: short-term rental property management.

Brief: memory notes kept by the ops, guest-experience and dev teams (and their AI
coding agents) of a property management company running short-term rentals:
smart locks (Nuki, igloohome, TTLock, Seam), key boxes, guest Wi-Fi, building
intercoms and alarms, channel managers and PMS (Guesty, Hostaway, Smoobu, Mews,
PriceLabs), OTA logins (Airbnb, Booking.com), payments and messaging (Stripe,
PayPal, Twilio, SendGrid, Mailgun, WhatsApp, Telegram) and the generic developer
stack. Rows are prose, handover lines, chat messages, commands, .env, YAML, JSON,
URLs, tables and log lines in English, German, Spanish and French.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_101.py [out.jsonl]

Kinds, secret: nuki_api_token, igloohome_api_key, seam_api_key, ttlock_client_secret,
keybox_code, guest_door_pin, lock_master_code, building_gate_code, alarm_disarm_code,
guest_wifi_password, router_admin_password, airbnb_host_password,
booking_extranet_password, guesty_client_secret, hostaway_api_secret, smoobu_api_key,
pricelabs_api_key, mews_access_token, stripe_secret_key, stripe_webhook_secret,
twilio_auth_token, sendgrid_api_key, mailgun_api_key, whatsapp_cloud_token,
telegram_bot_token, slack_webhook_url, slack_bot_token, aws_secret_access_key,
github_pat, gitlab_pat, npm_token, docker_hub_pat, postgres_url_with_password,
redis_url_with_password, azure_storage_account_key, openai_api_key,
google_maps_server_key, google_oauth_client_secret, ssh_private_key,
jwt_signing_secret, paypal_client_secret, datadog_api_key, twofa_recovery_codes,
totp_seed, gmail_app_password, mqtt_password, nvr_admin_password,
access_control_admin_password.

Kinds, benign: airbnb_listing_id, airbnb_confirmation_code, booking_property_id,
booking_reservation_number, guesty_object_id, hostaway_listing_id, nuki_smartlock_id,
lock_serial_number, keybox_model, wifi_ssid, mac_address, ip_address, git_commit_sha,
sha256_digest, bcrypt_hash, md5_checksum, stripe_publishable_key, stripe_object_id,
twilio_account_sid, phone_number, aws_documented_example_key, aws_arn,
placeholder_value, masked_secret, env_var_reference, ci_secret_reference, vault_path,
k8s_secret_ref, password_policy_text, revoked_credential, property_uuid,
ticket_reference, build_version, firmware_version, ssh_public_key, key_fingerprint,
x509_certificate, recaptcha_site_key, ga_measurement_id, slack_channel_id,
docker_image_digest, owner_iban, vat_number, tourist_license_number, unit_address,
house_rules_text, google_oauth_client_id, google_place_id, stripe_webhook_endpoint_id,
request_trace_id, invoice_number, public_webhook_endpoint, access_log_event_id,
wifi_qr_placeholder.
"""

import json
import random
import sys
from urllib.parse import quote

SEED = 151672

HEX = "0123456789abcdef"
UHEX = "0123456789ABCDEF"
DIG = "0123456789"
LO = "abcdefghijklmnopqrstuvwxyz"
UP = LO.upper()
AN = UP + LO + DIG
B64 = AN + "+/"
B64URL = AN + "-_"
B32 = UP + "234567"

WORDS = [
    "Sonnenblume",
    "Playa",
    "Soleil",
    "Ostsee",
    "Gaviota",
    "Mistral",
    "Palmera",
    "Lavande",
    "Bergblick",
    "Azul",
    "Marmotte",
    "Kastanie",
    "Brisa",
    "Tramonto",
    "Faro",
    "Nordwind",
    "Olivier",
    "Sirocco",
    "Hafen",
    "Estrella",
    "Chalet",
    "Muschel",
    "Bahia",
    "Caramel",
]
NAMES = ["Jana", "Lukas", "Marta", "Pablo", "Claire", "Hugo", "Inés", "Felix", "Noemie", "Sven"]
STREETS = [
    "Calle Mayor 12",
    "Rue Oberkampf 41",
    "Schönhauser Allee 88",
    "Carrer de Verdi 7",
    "Quai des Chartrons 23",
    "Kastanienallee 5",
    "Avenida da Liberdade 190",
    "Rua do Norte 14",
]


def s(r, alphabet, n):
    return "".join(r.choice(alphabet) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    pat = r.randrange(6)
    if pat == 0:
        return f"{w}{r.randint(1970, 2026)}!"
    if pat == 1:
        return f"{w}#{r.choice(WORDS).lower()}{r.randint(10, 99)}"
    if pat == 2:
        return f"{r.choice(WORDS)}.{w}.{r.randint(100, 999)}"
    if pat == 3:
        return f"{w.lower()}{r.choice('!?$%&*')}{r.randint(1000, 9999)}{r.choice(UP)}"
    if pat == 4:
        return f"{w[:4]}{r.randint(10, 99)}{r.choice(WORDS)[:5].lower()}{r.choice('!#@')}"
    return f"{r.choice(NAMES)}{r.choice('_-')}{w}{r.randint(1, 9)}{r.randint(1, 9)}"


def wifi_pw(r):
    pat = r.randrange(4)
    w = r.choice(WORDS)
    if pat == 0:
        return f"{w}-Guest-{r.randint(1000, 9999)}"
    if pat == 1:
        return f"{w.lower()}{r.choice(WORDS).lower()}{r.randint(10, 99)}"
    if pat == 2:
        return f"Welcome{w}{r.randint(1, 99)}!"
    return f"{w}{r.choice('!#+')}{r.choice(WORDS)}{r.randint(100, 999)}"


def pin(r, n):
    while True:
        v = s(r, DIG, n)
        if len(set(v)) > 2 and v not in "01234567890" and v not in "9876543210":
            return v


def b64block(r, nbytes_chars, width=70):
    body = s(r, B64, nbytes_chars)
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def _ssh_key(r):
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        + b64block(r, 280)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def _rsa_key(r):
    return (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
        + s(r, B64, 48)
        + "\n"
        + b64block(r, 420, 64)
        + "\n-----END RSA PRIVATE KEY-----"
    )


SECRET = [
    (
        "nuki_api_token",
        lambda r: s(r, HEX, 64),
        [
            "Nuki Web API token for the Prenzlauer portfolio: {v} (generated under ops@ account)",
            "NUKI_API_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://api.nuki.io/smartlock",
            "Übergabe: Nuki-Token fürs Sync-Skript ist {v}, bitte nicht neu generieren sonst fallen alle Codes weg.",
            "nuki:\n  base_url: https://api.nuki.io\n  token: {v}\n",
        ],
    ),
    (
        "igloohome_api_key",
        lambda r: s(r, AN, 40),
        [
            "igloohome API key (iglooconnect) = {v}",
            "export IGLOO_API_KEY={v}",
            '{"provider": "igloohome", "apiKey": "{v}", "region": "eu"}',
            "Clave de la API de igloohome para los pisos de Valencia: {v}",
        ],
    ),
    (
        "seam_api_key",
        lambda r: "seam_" + s(r, AN, 8) + "_" + s(r, AN, 24),
        [
            "SEAM_API_KEY={v}",
            "Seam prod workspace key: {v} — the sandbox one is separate",
            'const seam = new Seam({ apiKey: "{v}" })',
            "agent memory: lock provisioning uses Seam, key {v}, workspace 'str-prod'",
        ],
    ),
    (
        "ttlock_client_secret",
        lambda r: s(r, HEX, 32),
        [
            "TTLock open platform: client_id 5c1e2a7d, client_secret {v}",
            "TTLOCK_CLIENT_SECRET={v}",
            "TTLock App-Secret (Gateway-Sync Mallorca): {v}",
            'ttlock:\n  client_id: 7f3c91b0a4d24e19\n  client_secret: "{v}"\n',
        ],
    ),
    (
        "keybox_code",
        lambda r: pin(r, 4),
        [
            "Key box at {street}: code {v}, spare keys for cleaners on the left hook.",
            "Schlüsselsafe am Tor (Masterlock 5401D), Code {v} – nach jedem Gast NICHT ändern, Reinigung braucht ihn.",
            "Caja de llaves del portal: combinación {v}. La llave del buzón también está dentro.",
            "Boîte à clés devant l'immeuble, code {v}, la clé du local vélo y est aussi.",
            "| {street} | key box | {v} | checked {date} |",
        ],
    ),
    (
        "guest_door_pin",
        lambda r: pin(r, 6),
        [
            "Hi {name}! Your door code for the stay is {v} followed by the check mark on the keypad.",
            "Hola {name}, el código de la puerta es {v}. Pulsa el botón de candado después.",
            "Bonjour {name}, votre code d'accès à l'appartement : {v} puis la touche ✓.",
            "2026-11-29T14:02:11Z lock=apt-{apt} action=create_pin pin={v} valid_until=2026-12-03T11:00",
            "Guest in {apt} can't get in, I gave him the backup keypad code {v} by phone",
        ],
    ),
    (
        "lock_master_code",
        lambda r: pin(r, 8),
        [
            "Master/programming code for all Yale keypads in block B: {v} (needed to add user codes)",
            "Admin-Code der Keypads (Programmiermodus): {v}",
            "Código maestro de la cerradura Tesa para reprogramar: {v}",
            "Code administrateur serrure Somfy : {v} — ne jamais le donner aux voyageurs",
        ],
    ),
    (
        "building_gate_code",
        lambda r: pin(r, 4),
        [
            "Building front door (intercom panel) code: {v}#",
            "Haustür-Code für die Gegensprechanlage: {v} + Schlüsselsymbol",
            "Digicode de l'immeuble : {v}B, puis 2e porte avec le badge",
            "Portal del edificio: marcar {v} y la tecla de la campana",
        ],
    ),
    (
        "alarm_disarm_code",
        lambda r: pin(r, 4),
        [
            "Alarm panel in the villa: disarm code {v}, cleaners have 30 seconds after opening the door.",
            "Alarmanlage Ferienhaus: Code zum Entschärfen {v}",
            "Code alarme de la maison de Biarritz : {v} (à taper avant 30 s)",
            "Alarma Securitas de la casa rural, código de desactivación {v}",
        ],
    ),
    (
        "guest_wifi_password",
        wifi_pw,
        [
            "Wi-Fi for apt {apt}: network CasaLuz_5G, password {v}",
            "WLAN: Gast-Netz, Passwort: {v}",
            "WiFi: red Piso{apt}, contraseña {v}",
            "Wi-Fi : réseau Soleil_Invites, mot de passe {v}",
            "WIFI:S:Bergblick_Guest;T:WPA;P:{v};;",
            'guest_wifi:\n  ssid: "Ostsee-Suite"\n  psk: "{v}"\n',
        ],
    ),
    (
        "router_admin_password",
        human_pw,
        [
            "FritzBox in {street}: admin login at fritz.box, password {v}",
            "Router-Admin (Vodafone Station) Kennwort: {v}",
            "Router del piso: usuario admin / contraseña {v}",
            "Livebox admin : {v} (ne pas réinitialiser, sinon le Wi-Fi invités change)",
        ],
    ),
    (
        "airbnb_host_password",
        human_pw,
        [
            "Airbnb host account hosting@ — password {v}, 2FA goes to the ops phone",
            "Airbnb-Login Gastgeberkonto: Passwort {v}",
            "Contraseña de la cuenta de anfitrión de Airbnb: {v}",
            "Compte hôte Airbnb, mdp : {v}",
        ],
    ),
    (
        "booking_extranet_password",
        human_pw,
        [
            "Booking.com extranet login: user ops_madrid, pw {v}",
            "Booking Extranet Passwort für Objekt Kastanienallee: {v}",
            "Extranet de Booking: usuario gestion_bcn, contraseña {v}",
            "extranet booking.com — identifiant resa-bordeaux / mot de passe {v}",
        ],
    ),
    (
        "guesty_client_secret",
        lambda r: s(r, B64URL, 64),
        [
            "GUESTY_CLIENT_SECRET={v}",
            "Guesty Open API app 'pricing-sync': client secret {v}",
            "curl -X POST https://open-api.guesty.com/oauth2/token -d 'grant_type=client_credentials&scope=open-api&client_id=0oa8k2qz7rXyT1pQ5d7&client_secret={v}'",
            '{"guesty": {"clientId": "0oa9z1x2c3v4b5n6m7", "clientSecret": "{v}"}}',
        ],
    ),
    (
        "hostaway_api_secret",
        lambda r: s(r, HEX, 64),
        [
            "Hostaway account 41872, API secret {v}",
            "HOSTAWAY_CLIENT_SECRET={v}",
            "Secreto API de Hostaway de la cuenta de Málaga: {v}",
            "hostaway:\n  account_id: 41872\n  client_secret: {v}\n",
        ],
    ),
    (
        "smoobu_api_key",
        lambda r: s(r, AN, 38),
        [
            "Smoobu API-Key (Einstellungen > Entwickler): {v}",
            "curl -H 'Api-Key: {v}' https://login.smoobu.com/api/reservations",
            "SMOOBU_API_KEY={v}",
            "Clave API de Smoobu del cliente Sevilla: {v}",
        ],
    ),
    (
        "pricelabs_api_key",
        lambda r: s(r, AN, 40),
        [
            "PriceLabs customer API key: {v}",
            "PRICELABS_API_KEY={v}",
            "curl -H 'X-API-Key: {v}' https://api.pricelabs.co/v1/listings",
            "Clé API PriceLabs pour les tarifs dynamiques : {v}",
        ],
    ),
    (
        "mews_access_token",
        lambda r: s(r, UHEX, 32) + "-" + s(r, UHEX, 31),
        [
            "Mews connector AccessToken for the aparthotel: {v}",
            '{"ClientToken": "E0D439EE522F44368DC78E1BFB03710C-D24FB11DBE31E7B1A0C54E1E8C6B02C", "AccessToken": "{v}"}',
            "MEWS_ACCESS_TOKEN={v}",
            "Mews AccessToken fürs Aparthotel Leipzig: {v}",
        ],
    ),
    (
        "stripe_secret_key",
        lambda r: r.choice(["sk_live_", "rk_live_"]) + s(r, AN, r.choice([24, 99])),
        [
            "STRIPE_SECRET_KEY={v}",
            "Stripe live key for damage deposits: {v}",
            'stripe.api_key = "{v}"',
            "Clave secreta de Stripe (cobro de fianzas): {v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
        ],
    ),
    (
        "stripe_webhook_secret",
        lambda r: "whsec_" + s(r, AN, 32),
        [
            "STRIPE_WEBHOOK_SECRET={v}",
            'stripe.Webhook.construct_event(payload, sig_header, "{v}")',
            "Signing secret of the deposit webhook endpoint: {v}",
            "stripe:\n  webhook_signing_secret: {v}\n",
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: s(r, HEX, 32),
        [
            "Twilio auth token (SMS door codes): {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "client = Client('AC3f9b2e8d7c6a5b4f3e2d1c0b9a8f7e6d', '{v}')",
            "Token de autenticación de Twilio para los SMS de llegada: {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: "SG." + s(r, B64URL, 22) + "." + s(r, B64URL, 43),
        [
            "SENDGRID_API_KEY={v}",
            "SendGrid key for check-in instruction mails: {v}",
            'sg = SendGridAPIClient("{v}")',
            "Clé SendGrid (mails de bienvenue) : {v}",
        ],
    ),
    (
        "mailgun_api_key",
        lambda r: "key-" + s(r, HEX, 32),
        [
            "MAILGUN_API_KEY={v}",
            "Mailgun private key for the reservas@ domain: {v}",
            "curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.stay-host.eu/messages",
            "Mailgun Schlüssel (Rechnungsversand): {v}",
        ],
    ),
    (
        "whatsapp_cloud_token",
        lambda r: "EAAG" + s(r, AN, 160),
        [
            "WHATSAPP_TOKEN={v}",
            "curl -X POST https://graph.facebook.com/v19.0/1182736451/messages -H 'Authorization: Bearer {v}'",
            "WhatsApp Cloud API permanent token for guest messaging: {v}",
            "Token de WhatsApp Business (mensajes a huéspedes): {v}",
        ],
    ),
    (
        "telegram_bot_token",
        lambda r: str(r.randint(5000000000, 7999999999)) + ":AA" + s(r, B64URL, 33),
        [
            "Telegram bot for cleaner notifications: {v}",
            "TELEGRAM_BOT_TOKEN={v}",
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100184422 -d text='Apt {apt} ready'",
            "Bot de Telegram del equipo de limpieza, token: {v}",
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: (
            "https://hooks.slack.com/services/T"
            + s(r, UP + DIG, 8)
            + "/B"
            + s(r, UP + DIG, 10)
            + "/"
            + s(r, AN, 24)
        ),
        [
            "SLACK_WEBHOOK_URL={v}",
            "Alerts for failed lock syncs go to #ops-locks via {v}",
            "notify:\n  slack: {v}\n",
            "Webhook für #reinigung: {v}",
        ],
    ),
    (
        "slack_bot_token",
        lambda r: "xoxb-" + s(r, DIG, 12) + "-" + s(r, DIG, 13) + "-" + s(r, AN, 24),
        [
            "SLACK_BOT_TOKEN={v}",
            "Bot-Token für den Reinigungs-Slackbot: {v}",
            "Turnover bot token: {v}",
            '{"slack": {"bot_token": "{v}", "channel": "C04QZ7LKD2M"}}',
        ],
    ),
    (
        "aws_secret_access_key",
        lambda r: s(r, B64, 40),
        [
            "AWS_SECRET_ACCESS_KEY={v}",
            "aws_access_key_id = AKIA4QX7ZP2LMN3RT5VW\naws_secret_access_key = {v}",
            "IAM user guest-photos-uploader: secret key {v}",
            "AWS Secret Key für das S3-Backup der Ausweisscans: {v}",
        ],
    ),
    (
        "github_pat",
        lambda r: "ghp_" + s(r, AN, 36),
        [
            "GH_TOKEN={v}",
            "git clone https://{v}@github.com/staybnb/channel-sync.git",
            "PAT for the deploy bot (repo scope): {v}",
        ],
    ),
    (
        "gitlab_pat",
        lambda r: "glpat-" + s(r, B64URL, 20),
        [
            "GITLAB_TOKEN={v}",
            "Token GitLab para el pipeline de la web de reservas: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.com/pm-ops/owner-portal.git",
        ],
    ),
    (
        "npm_token",
        lambda r: "npm_" + s(r, AN, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "npm publish token for @staybnb/ui-kit: {v}",
        ],
    ),
    (
        "docker_hub_pat",
        lambda r: "dckr_pat_" + s(r, B64URL, 27),
        [
            "echo {v} | docker login -u stayops --password-stdin",
            "DOCKERHUB_TOKEN={v}",
            "Docker Hub access token (CI pull): {v}",
        ],
    ),
    (
        "postgres_url_with_password",
        lambda r: (
            f"postgresql://pms_app:{quote(human_pw(r), safe='')}@db-{r.randint(1, 4)}.internal.stayops.eu:5432/pms"
        ),
        [
            "DATABASE_URL={v}",
            "Prod DB for the owner portal: {v}",
            "psql \"{v}\" -c 'select count(*) from reservations'",
            "db:\n  url: {v}\n",
        ],
    ),
    (
        "redis_url_with_password",
        lambda r: f"redis://default:{s(r, AN, 24)}@cache.stayops.eu:6379/0",
        [
            "REDIS_URL={v}",
            "Lock-code cache lives in {v}",
            "celery broker = {v}",
        ],
    ),
    (
        "azure_storage_account_key",
        lambda r: s(r, B64, 86) + "==",
        [
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=stayopsdocs;AccountKey={v};EndpointSuffix=core.windows.net",
            "Azure storage key1 of stayopsdocs (ID scans): {v}",
            "az storage blob list --account-name stayopsdocs --account-key {v} -c checkin-ids",
        ],
    ),
    (
        "openai_api_key",
        lambda r: "sk-proj-" + s(r, B64URL, 74) + "T3BlbkFJ" + s(r, B64URL, 74),
        [
            "OPENAI_API_KEY={v}",
            "Key for the guest-reply assistant: {v}",
            "openai.api_key = '{v}'",
            "Clé OpenAI de l'assistant de réponses aux voyageurs : {v}",
        ],
    ),
    (
        "google_maps_server_key",
        lambda r: "AIza" + s(r, B64URL, 35),
        [
            "GOOGLE_MAPS_SERVER_KEY={v}  # unrestricted, geocoding from backend",
            "Directions API key (server side, no referrer restriction): {v}",
            "https://maps.googleapis.com/maps/api/geocode/json?address=Calle+Mayor+12&key={v}",
        ],
    ),
    (
        "google_oauth_client_secret",
        lambda r: "GOCSPX-" + s(r, B64URL, 28),
        [
            "GOOGLE_CLIENT_SECRET={v}",
            "OAuth client for Gmail ingest of booking mails: secret {v}",
            '{"web": {"client_id": "84213376521-9s7dk2l3m4n5o6p7q8r9.apps.googleusercontent.com", "client_secret": "{v}"}}',
        ],
    ),
    (
        "ssh_private_key",
        lambda r: r.choice([_ssh_key, _rsa_key])(r),
        [
            "Deploy key for the lock-sync box:\n{v}",
            "cat > ~/.ssh/id_ed25519 <<EOF\n{v}\nEOF",
            "Schlüssel für den Jumphost (Raspberry Pi im Technikraum):\n{v}",
        ],
    ),
    (
        "jwt_signing_secret",
        lambda r: s(r, B64URL, 48),
        [
            "JWT_SECRET={v}",
            "Guest portal tokens are HS256 signed with {v}",
            'auth:\n  jwt_secret: "{v}"\n  ttl: 3600\n',
        ],
    ),
    (
        "paypal_client_secret",
        lambda r: "E" + s(r, B64URL, 79),
        [
            "PAYPAL_CLIENT_SECRET={v}",
            "PayPal live app 'deposits': secret {v}",
            "Secreto de cliente de PayPal (cobros extra): {v}",
        ],
    ),
    (
        "datadog_api_key",
        lambda r: s(r, HEX, 32),
        [
            "DD_API_KEY={v}",
            "Datadog API key for the lock gateway hosts: {v}",
            "datadog:\n  apiKey: {v}\n  site: datadoghq.eu\n",
        ],
    ),
    (
        "twofa_recovery_codes",
        lambda r: " ".join(s(r, DIG, 4) + "-" + s(r, DIG, 4) for _ in range(5)),
        [
            "Backup codes for the hosting@ Google account: {v}",
            "Wiederherstellungscodes Booking-Konto: {v}",
            "Códigos de recuperación 2FA de la cuenta de Airbnb: {v}",
        ],
    ),
    (
        "totp_seed",
        lambda r: s(r, B32, 32),
        [
            "TOTP secret for the shared Airbnb login (add to the ops phone): {v}",
            "otpauth://totp/Booking:ops@stayops.eu?secret={v}&issuer=Booking",
            "2FA-Seed Guesty Admin: {v}",
        ],
    ),
    (
        "gmail_app_password",
        lambda r: " ".join(s(r, LO, 4) for _ in range(4)),
        [
            "App password for the SMTP relay (reservas@): {v}",
            'SMTP_PASSWORD="{v}"',
            "Mot de passe d'application Gmail pour l'envoi des factures : {v}",
        ],
    ),
    (
        "mqtt_password",
        human_pw,
        [
            "Noise sensors publish to mqtt.stayops.eu, user sensors / pass {v}",
            "MQTT_PASSWORD={v}",
            "mosquitto_pub -h mqtt.stayops.eu -u gateway -P '{v}' -t apt/{apt}/noise -m 62",
        ],
    ),
    (
        "nvr_admin_password",
        human_pw,
        [
            "Hikvision NVR (entrance cams) admin password: {v}",
            "Kamera-Rekorder im Keller, Benutzer admin, Passwort {v}",
            "Grabador de cámaras del portal: admin / {v}",
        ],
    ),
    (
        "access_control_admin_password",
        human_pw,
        [
            "Salto KS admin login for the building: facility@stayops.eu / {v}",
            "Zutrittskontrolle (Salto) Admin-Passwort: {v}",
            "Mot de passe admin du contrôle d'accès (badges parking) : {v}",
            "Akiles portal, cuenta administrador, contraseña {v}",
        ],
    ),
]


def _cert(r):
    return (
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU"
        + s(r, B64, 50)
        + "\n"
        + b64block(r, 320, 64)
        + "\n-----END CERTIFICATE-----"
    )


def _iban(r):
    return (
        r.choice(["DE", "ES", "FR"])
        + s(r, DIG, 2)
        + " "
        + " ".join(s(r, DIG, 4) for _ in range(4))
        + " "
        + s(r, DIG, 2)
    )


BENIGN = [
    (
        "airbnb_listing_id",
        lambda r: "8" + s(r, DIG, 17),
        [
            "Airbnb listing for apt {apt} is https://www.airbnb.com/rooms/{v}",
            "listing_id: {v}  # Loft Kastanienallee",
            "Anuncio de Airbnb {v} bloqueado del 20 al 27 por obras",
            "Inserat {v} hat wieder Superhost-Bewertung, keine Aktion nötig",
        ],
    ),
    (
        "airbnb_confirmation_code",
        lambda r: "HM" + s(r, UP + DIG, 8),
        [
            "Airbnb reservation {v}: guest arrives late, self check-in",
            "Reserva {v} — el huésped pide cuna, confirmado",
            "Réservation Airbnb {v} : ménage supplémentaire facturé",
            "Resolution centre case for booking {v}, broken lamp, 45 EUR",
        ],
    ),
    (
        "booking_property_id",
        lambda r: s(r, DIG, 7),
        [
            "Booking.com property ID (hotel_id) for Casa Luz: {v}",
            "ID del alojamiento en Booking: {v}",
            "Objekt-ID bei Booking: {v}",
            '{"ota": "booking", "hotel_id": {v}, "rooms": 4}',
        ],
    ),
    (
        "booking_reservation_number",
        lambda r: s(r, DIG, 10),
        [
            "Booking.com res. no. {v}: no-show, charge 1st night",
            "Buchungsnummer {v} – Gast möchte Rechnung auf Firma",
            "Número de reserva de Booking {v}, cancelada sin coste",
            "Réservation Booking n° {v}, arrivée 22h, boîte à clés",
        ],
    ),
    (
        "guesty_object_id",
        lambda r: s(r, HEX, 24),
        [
            "Guesty listingId {v} (Loft 3B)",
            "GET /v1/reservations/{v} returned 404 after the merge",
            '{"listingId": "{v}", "status": "confirmed"}',
            "Reservation in Guesty: {v} — guest paid the pet fee",
        ],
    ),
    (
        "hostaway_listing_id",
        lambda r: str(r.randint(100000, 399999)),
        [
            "Hostaway listingMapId {v} = Piso Ruzafa",
            "curl https://api.hostaway.com/v1/listings/{v} -H 'Authorization: Bearer $HOSTAWAY_TOKEN'",
            "Listing {v} in Hostaway ist doppelt angelegt, den alten archiviert",
        ],
    ),
    (
        "nuki_smartlock_id",
        lambda r: str(r.randint(17000000000, 19999999999)),
        [
            "Nuki smartlockId for {street}: {v}",
            "ID de la cerradura Nuki del piso {apt}: {v}",
            "POST /smartlock/{v}/auth  -> 204",
            "Nuki-ID {v} gehört zur Wohnungstür, nicht zur Haustür (Opener)",
        ],
    ),
    (
        "lock_serial_number",
        lambda r: r.choice(["NK", "IG", "TT"]) + s(r, UP + DIG, 10),
        [
            "Lock serial {v} replaced under warranty, ticket with supplier open",
            "Número de serie de la cerradura: {v}",
            "Numéro de série serrure {v}, batterie changée le {date}",
            "| apt {apt} | lock S/N | {v} |",
        ],
    ),
    (
        "keybox_model",
        lambda r: r.choice(
            [
                "Master Lock 5401EURD",
                "Master Lock 5440EURD",
                "Keysafe Pro KS-2",
                "Burg-Wächter KeySafe 20 SB",
                "Igloohome Smart Keybox 3",
            ]
        ),
        [
            "Key box model in {street}: {v}",
            "Modelo de caja de llaves instalada: {v}",
            "Reorder 3x {v} for the new Lisbon units",
        ],
    ),
    (
        "wifi_ssid",
        lambda r: r.choice(WORDS) + r.choice(["_Guest", "-5G", "_Invites", "_Gaeste", "_WiFi"]),
        [
            "Guest network name (SSID): {v}",
            "Die SSID im Willkommensbuch lautet {v}, Passwort steht auf der Karte im Flur",
            "Nombre de la red WiFi: {v} (la contraseña está en la tarjeta del salón)",
            "ssid: {v}",
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(s(r, UHEX, 2) for _ in range(6)),
        [
            "Nuki bridge MAC {v} reserved on DHCP",
            "Router MAC: {v}",
            "Adresse MAC de la passerelle TTLock : {v}",
            "Dirección MAC del repetidor: {v}",
        ],
    ),
    (
        "ip_address",
        lambda r: f"192.168.{r.randint(0, 30)}.{r.randint(2, 250)}",
        [
            "Bridge in apt {apt} has static IP {v}",
            "NVR erreichbar unter http://{v}:8000 (nur im Haus-LAN)",
            "La cámara del portal está en {v}",
        ],
    ),
    (
        "git_commit_sha",
        lambda r: s(r, HEX, 40),
        [
            "Deployed channel-sync at commit {v}",
            "Fix für Doppelbuchungen in Commit {v}",
            "Revert {v}: broke the Booking rate push",
            "pinned action: actions/checkout@{v}",
        ],
    ),
    (
        "sha256_digest",
        lambda r: s(r, HEX, 64),
        [
            "sha256 of the guest-guide PDF: {v}",
            "Empreinte SHA-256 du contrat de location signé : {v}",
            "{v}  welcome-book-es.pdf",
            "Prüfsumme (SHA-256) des Firmware-Images: {v}",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: "$2b$12$" + s(r, AN + "./", 53),
        [
            "owner portal users table row: password_hash = {v}",
            "Hash stored for cleaner account marta: {v}",
            "Hash bcrypt de la contraseña del portal (no la contraseña): {v}",
            '{"user": "cleaner_07", "pw_hash": "{v}"}',
        ],
    ),
    (
        "md5_checksum",
        lambda r: s(r, HEX, 32),
        [
            "MD5 of ttlock-gateway-fw-2.3.bin: {v}",
            "md5sum checkin-photos-2026-11.tar.gz -> {v}",
            'ETag: "{v}"',
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_" + s(r, AN, 99),
        [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "Front-end deposit form uses publishable key {v}",
            "<script>const stripe = Stripe('{v}');</script>",
        ],
    ),
    (
        "stripe_object_id",
        lambda r: r.choice(["cus_", "pi_", "ch_", "re_"]) + s(r, AN, r.choice([14, 24])),
        [
            "Deposit refunded, Stripe object {v}",
            "Guest dispute linked to {v}",
            "Reembolso de la fianza: {v}",
            "Paiement de la caution : {v}",
        ],
    ),
    (
        "twilio_account_sid",
        lambda r: "AC" + s(r, HEX, 32),
        [
            "TWILIO_ACCOUNT_SID={v}",
            "SID de cuenta de Twilio: {v}",
            "Twilio account SID (SMS door codes): {v}",
            "Account SID für den SMS-Versand: {v}",
        ],
    ),
    (
        "phone_number",
        lambda r: r.choice(["+34 6", "+49 151 ", "+33 6 "]) + s(r, DIG, 8),
        [
            "Emergency line for guests: {v}",
            "Numéro d'urgence pour les voyageurs : {v}",
            "Hausmeister Notfall-Nummer: {v}",
            "Teléfono de la limpiadora de Ruzafa: {v}",
        ],
    ),
    (
        "aws_documented_example_key",
        lambda r: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "From the AWS docs sample config: {v} — replace with your own",
            "# example only\naws_key = {v}",
            "Tests use the documented example value {v}",
        ],
    ),
    (
        "aws_arn",
        lambda r: (
            f"arn:aws:s3:::stayops-{r.choice(['checkin-ids', 'photos', 'backups'])}-{s(r, DIG, 4)}"
        ),
        [
            "Bucket ARN {v} has versioning enabled",
            "Bucket-ARN für Ausweis-Scans: {v}",
            "Policy resource: {v}/*",
            "Ressource S3 : {v}",
        ],
    ),
    (
        "placeholder_value",
        lambda r: r.choice(
            [
                "<YOUR_NUKI_TOKEN>",
                "changeme",
                "xxxxxxxxxxxxxxxx",
                "your-api-key-here",
                "<insert door code>",
                "REPLACE_ME",
                "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
            ]
        ),
        [
            "NUKI_API_TOKEN={v}",
            "In the template repo the key is just {v}",
            "Plantilla del mensaje: 'Tu código de acceso es {v}'",
            "STRIPE_SECRET_KEY={v}  # set in prod via secret manager",
        ],
    ),
    (
        "masked_secret",
        lambda r: r.choice(["sk_live_", "ghp_", "SG.", "whsec_", "seam_"]) + "****" + s(r, AN, 4),
        [
            "Dashboard shows the key as {v}, full value is in 1Password",
            "Log line redacted: token={v}",
            "Clave enmascarada en el panel: {v}",
            "Schlüssel (maskiert): {v}",
        ],
    ),
    (
        "env_var_reference",
        lambda r: (
            "${"
            + r.choice(
                [
                    "NUKI_API_TOKEN",
                    "STRIPE_SECRET_KEY",
                    "GUESTY_CLIENT_SECRET",
                    "WIFI_PSK",
                    "DB_PASSWORD",
                ]
            )
            + "}"
        ),
        [
            "token: {v}",
            "Authorization: Bearer {v}",
            'psk: "{v}"  # injected at deploy time',
            "password = os.path.expandvars('{v}')",
        ],
    ),
    (
        "ci_secret_reference",
        lambda r: (
            "${{ secrets."
            + r.choice(["SEAM_API_KEY", "HOSTAWAY_SECRET", "DOCKERHUB_TOKEN", "SENDGRID_KEY"])
            + " }}"
        ),
        [
            "env:\n  API_KEY: {v}",
            "with:\n  password: {v}",
            "The workflow reads {v}, nothing hardcoded",
        ],
    ),
    (
        "vault_path",
        lambda r: (
            "secret/data/str/"
            + r.choice(["nuki", "keyboxes", "wifi", "ota-logins", "stripe"])
            + "/"
            + r.choice(["prod", "madrid", "berlin", "bordeaux"])
        ),
        [
            "All door codes live in Vault at {v}",
            "vault kv get {v}",
            "Die Passwörter stehen in Vault unter {v}, nicht hier",
            "Las contraseñas están en Vault: {v}",
        ],
    ),
    (
        "k8s_secret_ref",
        lambda r: r.choice(["channel-sync-creds", "lock-gateway-env", "stripe-keys", "pms-db"]),
        [
            "envFrom:\n  - secretRef:\n      name: {v}",
            "kubectl -n prod describe secret {v}",
            "Credentials are mounted from the k8s secret {v}",
        ],
    ),
    (
        "password_policy_text",
        lambda r: r.choice(
            [
                "min. 12 characters, rotated every 90 days",
                "door codes: 6 digits, new per stay, expire at check-out + 2h",
                "no shared passwords in chat, use the vault",
            ]
        ),
        [
            "Policy: {v}",
            "Politique interne : {v}",
            "Richtlinie: {v}",
            "Política interna: {v}",
        ],
    ),
    (
        "revoked_credential",
        lambda r: r.choice(["sk_live_", "ghp_", "xoxb-"]) + s(r, AN, 24),
        [
            "REVOKED on {date}: {v} (leaked in a screenshot, replaced)",
            "Old key {v} was rolled and is dead, do not use",
            "Token {v} widerrufen, neuer steht im Vault",
        ],
    ),
    (
        "property_uuid",
        lambda r: "-".join(
            [
                s(r, HEX, 8),
                s(r, HEX, 4),
                "4" + s(r, HEX, 3),
                r.choice("89ab") + s(r, HEX, 3),
                s(r, HEX, 12),
            ]
        ),
        [
            "property_id={v}",
            "Mews PropertyId for the aparthotel: {v}",
            '{"unitId": "{v}", "beds": 3}',
            "Unidad {v} pasada a estado 'mantenimiento'",
        ],
    ),
    (
        "ticket_reference",
        lambda r: r.choice(["OPS-", "MAINT-", "GX-", "LOCK-"]) + str(r.randint(100, 9999)),
        [
            "Dripping tap in {apt}, see {v}",
            "Ticket {v} : serrure bloquée, technicien demain",
            "Handover: {v} still open, plumber Thursday",
            "Ticket {v}: cerradura sin batería",
        ],
    ),
    (
        "build_version",
        lambda r: f"{r.randint(1, 4)}.{r.randint(0, 20)}.{r.randint(0, 40)}",
        [
            "channel-sync v{v} released, fixes double booking on iCal import",
            "versión {v} del portal de propietarios en producción",
            "owner-portal {v} deployed to prod",
            "Version {v} der Gäste-App im Store",
        ],
    ),
    (
        "firmware_version",
        lambda r: f"{r.randint(2, 4)}.{r.randint(0, 12)}.{r.randint(0, 30)}",
        [
            "Nuki Smart Lock 3.0 Pro firmware {v}",
            "Firmware del router actualizado a {v}",
            "Bridge firmware {v}, pas de mise à jour dispo",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(r, B64, 43),
        [
            "Add to authorized_keys on the Pi: {v} ops@laptop",
            "Public deploy key: {v}",
            "Clave pública para el servidor de cerraduras: {v}",
            "Öffentlicher Schlüssel: {v} jana@stayops",
        ],
    ),
    (
        "key_fingerprint",
        lambda r: "SHA256:" + s(r, B64, 43),
        [
            "Host key fingerprint of the jumphost: {v}",
            "ED25519 key fingerprint is {v}.",
            "Empreinte de la clé : {v}",
        ],
    ),
    (
        "x509_certificate",
        _cert,
        [
            "Public TLS cert of the guest portal:\n{v}",
            "Öffentliches Zertifikat des Gästeportals:\n{v}",
            "ca.pem for the MQTT broker:\n{v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + s(r, B64URL, 38),
        [
            "reCAPTCHA site key on the booking form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "ga_measurement_id",
        lambda r: "G-" + s(r, UP + DIG, 10),
        [
            "GA4 measurement ID on the direct-booking site: {v}",
            "gtag('config', '{v}');",
            "ID de Google Analytics: {v}",
        ],
    ),
    (
        "slack_channel_id",
        lambda r: "C0" + s(r, UP + DIG, 9),
        [
            "Turnover alerts go to channel {v} (#reinigung)",
            "channel: {v}",
            "Canal de incidencias: {v}",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + s(r, HEX, 64),
        [
            "image: ghcr.io/stayops/lock-gateway@{v}",
            "Rolled back to digest {v}",
            "docker pull stayops/channel-sync@{v}",
        ],
    ),
    (
        "owner_iban",
        _iban,
        [
            "Owner payout account (Fam. Berger): {v}",
            "IBAN del propietario para liquidaciones: {v}",
            "IBAN propriétaire, virement mensuel : {v}",
        ],
    ),
    (
        "vat_number",
        lambda r: r.choice(["DE", "ESB", "FR"]) + s(r, DIG, 9),
        [
            "Our VAT ID on invoices: {v}",
            "Numéro de TVA intracommunautaire : {v}",
            "USt-IdNr. für die Rechnung: {v}",
            "CIF/NIF de la empresa: {v}",
        ],
    ),
    (
        "tourist_license_number",
        lambda r: r.choice(["VT-", "HUTB-", "VFT/MA/"]) + s(r, DIG, 6),
        [
            "Tourist licence number to show on every listing: {v}",
            "Registriernummer Ferienwohnung (Zweckentfremdung): {v}",
            "Licencia turística del piso: {v}",
            "Número de registro turístico {v}, caduca en 2028",
        ],
    ),
    (
        "unit_address",
        lambda r: r.choice(STREETS),
        [
            "New unit onboarded: {v}, 2nd floor left",
            "Dirección para el check-in: {v}",
            "Adresse du logement : {v}, interphone 'StayOps'",
        ],
    ),
    (
        "house_rules_text",
        lambda r: r.choice(
            [
                "Quiet hours 22:00-08:00",
                "No parties, max 4 guests",
                "Check-out by 11:00, leave keys in the box",
            ]
        ),
        [
            "House rules (EN) line 1: {v}",
            "Welcome book snippet: {v}",
            "Copy for the listing: {v}",
        ],
    ),
    (
        "google_oauth_client_id",
        lambda r: s(r, DIG, 12) + "-" + s(r, LO + DIG, 32) + ".apps.googleusercontent.com",
        [
            "GOOGLE_CLIENT_ID={v}",
            "OAuth client id for the owner login button: {v}",
            '"client_id": "{v}"',
        ],
    ),
    (
        "google_place_id",
        lambda r: "ChIJ" + s(r, B64URL, 23),
        [
            "Google place id for the building (map pin in welcome mail): {v}",
            "place_id={v}",
            "ID de lugar de Google del edificio: {v}",
        ],
    ),
    (
        "stripe_webhook_endpoint_id",
        lambda r: "we_" + s(r, AN, 24),
        [
            "Deposit webhook endpoint {v} points at /hooks/stripe",
            "stripe webhook_endpoints retrieve {v}",
            "Endpoint {v} deaktiviert (alte Domain)",
        ],
    ),
    (
        "request_trace_id",
        lambda r: s(r, HEX, 32),
        [
            "2026-12-01T09:14:03Z ERROR guesty sync failed trace_id={v} status=429",
            "X-Request-Id: {v}",
            "Support asked for the request id: {v}",
        ],
    ),
    (
        "invoice_number",
        lambda r: f"INV-2026-{r.randint(1, 9999):05d}",
        [
            "Cleaning invoice {v} paid",
            "Rechnung {v} an Eigentümer verschickt",
            "Factura {v} enviada al propietario",
            "Facture {v} : frais de ménage",
        ],
    ),
    (
        "public_webhook_endpoint",
        lambda r: (
            "https://api.stayops.eu/hooks/" + r.choice(["guesty", "hostaway", "stripe", "nuki"])
        ),
        [
            "Register {v} as the callback URL in the provider dashboard",
            "webhook_url: {v}",
            "La URL del webhook es {v}",
        ],
    ),
    (
        "access_log_event_id",
        lambda r: "evt_" + s(r, LO + DIG, 20),
        [
            "2026-12-02T16:40:12Z lock=apt-{apt} event=unlock source=keypad id={v}",
            "Seam event {v}: lock.unlocked by access code 'Guest {name}'",
            "Evento de apertura {v} registrado a las 03:12",
        ],
    ),
    (
        "wifi_qr_placeholder",
        lambda r: "WIFI:S:" + r.choice(WORDS) + "_Guest;T:WPA;P:<see card>;;",
        [
            "QR template for the welcome card: {v}",
            "Plantilla del QR para la tarjeta de bienvenida: {v}",
            "Vorlage für den QR-Code: {v}",
        ],
    ),
]


def _fill(r, template, value):
    text = (
        template.replace("{apt}", f"{r.randint(1, 6)}{r.choice('ABCD')}")
        .replace("{name}", r.choice(NAMES))
        .replace("{street}", r.choice(STREETS))
        .replace("{date}", f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}")
    )
    return text.replace("{v}", value)


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            assert len(templates) == len(set(templates))
            for template in templates:
                value = gen(r)
                text = _fill(r, template, value)
                assert value in text, (kind, template)
                rows.append({"label": label, "kind": kind, "text": text, "value": value})
    r.shuffle(rows)
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

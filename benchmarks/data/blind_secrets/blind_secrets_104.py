# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 104: ski resort and mountain lift operator.

Brief: memory notes kept by the IT, lift-operations, snowmaking, rental, ski school
and staff-housing teams of an Alpine ski resort (and their AI coding agents):
handover lines, chat messages, shell commands, .env and YAML config, JSON, URLs,
tables and log lines, in English, German, French and Italian. Secret rows carry
live credentials (vendor API keys, gate and PLC codes, door codes, payment and
messaging keys, cloud and CI tokens, private keys, connection strings); benign
rows carry look-alikes a careful reader would keep (ids, serials, hashes, public
keys, publishable keys, placeholders, masked or revoked values, references).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_104.py [out.jsonl]

Kinds, secret: ticketing_api_key, gate_service_password, snowmaking_scada_password,
lift_plc_pin, turnstile_service_code, staff_housing_door_code, wifi_psk,
rental_pos_password, ski_school_api_token, shared_login_password, recovery_codes,
payment_terminal_pin, snowcat_telematics_password, nvr_password, stripe_secret_key,
stripe_webhook_secret, adyen_api_key, wallee_auth_key, twilio_auth_token,
sendgrid_api_key, mailgun_api_key, brevo_api_key, aws_secret_access_key,
github_token, gitlab_token, slack_webhook_url, slack_bot_token, teams_webhook_url,
discord_webhook_url, postgres_uri, mysql_password, mongodb_uri, redis_url,
ssh_private_key, rsa_private_key, gcp_service_account_key, jwt_secret,
telegram_bot_token, openai_api_key, anthropic_api_key, google_api_key,
datadog_api_key, npm_token, pypi_token, docker_hub_token, vault_token,
azure_storage_connection_string, azure_client_secret, mapbox_secret_token,
sentry_auth_token.

Kinds, benign: keycard_chip_id, ticket_order_ref, ski_school_booking_ref,
rental_contract_no, gate_serial, snow_gun_id, lift_code, housing_room_no,
stripe_publishable_key, stripe_object_id, twilio_account_sid, aws_doc_example_key,
aws_arn, git_commit_sha, sha256_digest, docker_image_digest, ssh_public_key,
x509_certificate, placeholder, env_var_reference, vault_path, masked_value,
redacted_log, revoked_key, uuid_correlation_id, recaptcha_site_key,
analytics_measurement_id, mapbox_public_token, iban, vat_number, firmware_version,
mac_address, hostname_ip, password_policy, code_rotation_policy, slack_channel_id,
ci_run_url, password_hash, md5_checksum, phone_number, product_ean, rfid_uid,
vehicle_id, tariff_code, apple_merchant_id, adyen_client_key, terminal_id,
oauth_client_id, azure_tenant_id, npm_integrity, pgp_fingerprint, test_card_number,
k8s_secret_ref, radio_channel, employee_id.
"""

import base64
import json
import random
import string
import sys

SEED = 139215

AN = string.ascii_letters + string.digits
LOWAN = string.ascii_lowercase + string.digits
UPAN = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64U = string.ascii_letters + string.digits + "-_"


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def rs(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def add(label: str, kind: str, text: str, value: str) -> None:
        assert value in text, (kind, text, value)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def kind(label: str, name: str, gen, *templates: str) -> None:
        for t in templates:
            v = gen()
            add(label, name, t.replace("{v}", v), v)

    def S(name, gen, *templates):
        kind("secret", name, gen, *templates)

    def B(name, gen, *templates):
        kind("benign", name, gen, *templates)

    words = [
        "Pulverschnee",
        "Gondel",
        "Sessellift",
        "Lawine",
        "Edelweiss",
        "Murmeltier",
        "Tiefschnee",
        "Bergbahn",
        "Kandahar",
        "Poudreuse",
        "Telesiege",
        "Seggiovia",
        "Dolomiti",
        "Schneekanone",
        "Firnspur",
        "Gletscher",
        "Steinbock",
        "Chamois",
        "Bufera",
        "Pistenbully",
        "Skihuette",
        "Jagertee",
        "Marmotta",
        "Sommet",
    ]
    syms = "!#$%&*?@+"

    def pw() -> str:
        style = rng.randrange(5)
        w = rng.choice(words)
        if style == 0:
            return f"{w}{rng.randint(1990, 2027)}{rng.choice(syms)}"
        if style == 1:
            return f"{w[:1].lower()}{w[1:]}#{rng.randint(10, 99)}{rs(string.ascii_uppercase, 2)}"
        if style == 2:
            return f"{rs(AN, 3)}{rng.choice(syms)}{w}{rng.randint(1, 9)}"
        if style == 3:
            return f"{w}_{rng.choice(words).lower()}{rng.randint(100, 999)}"
        return rs(AN + "!#%*+-", rng.randint(14, 20))

    def passphrase() -> str:
        ws = rng.sample([w.lower() for w in words], 4)
        return "-".join(ws) + "-" + str(rng.randint(1, 99))

    def digits(n: int) -> str:
        return "".join(rng.choice(string.digits) for _ in range(n))

    def b64block(nbytes: int, width: int = 64) -> str:
        raw = base64.b64encode(bytes(rng.randrange(256) for _ in range(nbytes))).decode()
        return "\n".join(raw[i : i + width] for i in range(0, len(raw), width))

    def openssh_key() -> str:
        body = (
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            + b64block(300, 70)
        )
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def rsa_key() -> str:
        return (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
            + b64block(700)[16:]
            + "\n-----END RSA PRIVATE KEY-----"
        )

    def pkcs8_json() -> str:
        body = (
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
            + base64.b64encode(bytes(rng.randrange(256) for _ in range(420))).decode()
        )
        chunks = [body[i : i + 64] for i in range(0, len(body), 64)]
        return (
            "-----BEGIN PRIVATE KEY-----\\n"
            + "\\n".join(chunks)
            + "\\n-----END PRIVATE KEY-----\\n"
        )

    def mapbox(prefix: str) -> str:
        payload = json.dumps(
            {"u": "bergbahnen-" + rs(string.ascii_lowercase, 4), "a": rs(LOWAN, 25)},
            separators=(",", ":"),
        )
        enc = base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
        return f"{prefix}.{enc}.{rs(B64U, 22)}"

    def deck(items):
        items = list(items)
        rng.shuffle(items)
        return items.pop

    def uuid() -> str:
        h = rs(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    # ------------------------------------------------------------------ secrets
    S(
        "ticketing_api_key",
        lambda: rs(HEX, 40),
        "Ticketshop -> access control sync: TICKETING_API_KEY={v} (prod tenant, do not rotate during Christmas week)",
        "Agent memory: the gate-sync cron calls https://ticketing.internal/api/v3/contingents with header `X-Api-Key: {v}`",
        "Übergabe Kasse Talstation: neuer API-Schlüssel für das Zutrittssystem ist {v}, alter gilt nur noch bis Freitag.",
        "curl -s -H 'Authorization: ApiKey {v}' https://access.bergbahnen.local/api/readers/status | jq .",
    )
    S(
        "gate_service_password",
        pw,
        "Drehkreuze Sektion B (Tal-Mittelstation): Service-Login techniker / {v}",
        "Gate controller web UI, user `service`, password `{v}` — only for the lift electricians.",
        "Tornelli stazione a valle: utente manutenzione, password {v} (non darla agli stagionali)",
        "Portiques télécabine du Sommet — compte maintenance : maint01 / mdp {v}",
    )
    S(
        "snowmaking_scada_password",
        pw,
        "Schneileitsystem Pumpstation 2: Operator-Login schnee_op, Passwort: {v}",
        "SCADA snowmaking HMI (control room laptop): admin password is {v}. Night shift needs it for the fan guns on Piste 7.",
        "Innevamento programmato — accesso console centrale: operatore / {v}",
        "[snowmaking]\nhost = 10.40.2.10\nuser = nightshift\npassword = {v}\n",
        "Enneigement: mot de passe du poste de pilotage des enneigeurs = {v} (changé après la saison dernière)",
    )
    S(
        "lift_plc_pin",
        lambda: digits(rng.choice([4, 6])),
        "Sesselbahn Rotstock, Steuerpult: PIN für Wartungsmodus {v}",
        "PLC HMI at the drive station asks for an engineer PIN — it's {v}. Don't use it for anything except bypass checks.",
        "Seggiovia Col Alto: codice PIN pannello operatore {v}",
        "Téléski du Plan: code PIN de l'automate (mode maintenance) : {v}",
    )
    S(
        "turnstile_service_code",
        lambda: digits(rng.choice([5, 6, 8])),
        "Portiques départ télésiège : code service {v} pour libérer le tripode",
        "Service mode on the turnstiles at Gondola base: hold the red button, then key in {v} on the reader keypad.",
        "Drehkreuz Notöffnung: Code {v} + Taste F2, nur für Evakuierung",
        "Codice servizio varchi skipass (sblocco manuale): {v}",
    )
    S(
        "staff_housing_door_code",
        lambda: digits(rng.choice([4, 6])) + rng.choice(["", "#"]),
        "Personalhaus Alpenrose: Haustürcode ab 1.12. ist {v}",
        "Staff housing block C keypad code this week: {v} — please don't post it in the seasonal WhatsApp group.",
        "Logement saisonniers (bâtiment Mélèzes) : code porte d'entrée {v}",
        "Alloggi dipendenti via Pineta, codice portone: {v}",
        "| Gebäude | Code | gültig bis |\n| Haus Enzian | {v} | 15.04. |",
    )
    S(
        "wifi_psk",
        passphrase,
        "WLAN Personal (SSID: BB-Staff): Passwort {v}",
        'wpa_passphrase="{v}"  # ssid=Lift-Ops-5G, hostapd on the valley station AP',
        "Wi-Fi du local des moniteurs : réseau ESF-Moniteurs, clé {v}",
        "Rifugio staff wifi: password {v}",
    )
    S(
        "rental_pos_password",
        pw,
        "Verleih Talstation — Kassensystem Filialleitung: Benutzer shop_lead, PW {v}",
        "Rental shop POS (Intersport back office): manager override password {v}",
        "Location de skis : mot de passe responsable caisse {v}",
        "Noleggio sci: la password del gestionale cassa è {v}",
    )
    S(
        "ski_school_api_token",
        uuid,
        "Skischule Buchungsplattform API-Token (Produktion): {v}",
        "SKISCHOOL_BOOKING_TOKEN={v}",
        'booking:\n  base_url: https://api.skischool-booking.example/v2\n  token: "{v}"\n',
        "École de ski — jeton API du module de réservation des cours : {v}",
    )
    S(
        "shared_login_password",
        pw,
        "Shared login for the snow report portal: bergbahnen-marketing / {v}",
        "Geteilter Zugang Wetterstation-Portal: user meteo@bergbahnen / {v}",
        "Accès partagé au portail de la centrale de réservation : resa.station / {v}",
        "Credenziali condivise portale meteo-valanghe: utente patrolla, pwd {v}",
    )
    S(
        "recovery_codes",
        lambda: " ".join(f"{rs(LOWAN, 4)}-{rs(LOWAN, 4)}" for _ in range(4)),
        "Codici di recupero account amministratore noleggio: {v}",
        "2FA backup codes for the resort's Google Workspace admin: {v}",
        "Wiederherstellungscodes für den Ticketshop-Admin (nicht in Confluence!): {v}",
        "Codes de secours 2FA du compte OVH : {v}",
    )
    S(
        "payment_terminal_pin",
        lambda: digits(rng.choice([4, 5, 6])),
        "Kartenterminal Kasse 3: Händler-/Servicemenü PIN {v}",
        "Card terminal at the rental desk: merchant menu password {v} (needed for refunds)",
        "TPE caisse remontées : code superviseur {v}",
        "POS bancomat biglietteria: PIN menu esercente {v}",
    )
    S(
        "snowcat_telematics_password",
        pw,
        "Portale telematica battipista: utente capobatti, password {v}",
        "Pistenfahrzeug-Telematik Portal: login pistenchef / {v}",
        "Grooming fleet GPS portal (snow depth sensors): user grooming-lead, password {v}",
        "Portail télématique dameuses : identifiant chef.damage, mot de passe {v}",
    )
    S(
        "nvr_password",
        pw,
        "Caméras parking P2 (enregistreur) : admin / {v}",
        "Videoüberwachung Kassenhalle (NVR 10.40.9.20): admin / {v}",
        "rtsp://admin:{v}@10.40.9.21:554/Streaming/Channels/101",
        "Registratore telecamere parcheggio: admin pwd {v}",
    )
    S(
        "stripe_secret_key",
        lambda: rng.choice(["sk_live_", "rk_live_"]) + "51" + rs(AN, 97),
        "STRIPE_SECRET_KEY={v}",
        "Season pass webshop uses Stripe; live key for the webhook worker is {v}",
        "stripe:\n  secret_key: {v}\n  currency: chf\n",
        "Clé Stripe du shop forfaits saison : {v}",
    )
    S(
        "stripe_webhook_secret",
        lambda: "whsec_" + rs(AN, 32),
        "STRIPE_WEBHOOK_SECRET={v}",
        "Webhook signing secret for the ski school endpoint (/hooks/stripe): {v}",
        "Webhook-Signatur für den Saisonkarten-Shop: {v}",
    )
    S(
        "adyen_api_key",
        lambda: "AQE" + rs(B64, 89) + "==-" + rs(B64, 43) + "=-" + rs(AN, 16),
        "ADYEN_API_KEY={v}",
        "Adyen ws user for the ticket kiosks, X-API-Key: {v}",
        "Chiave API Adyen (biglietteria online): {v}",
    )
    S(
        "wallee_auth_key",
        lambda: base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode(),
        "wallee Application User 61234 (Webshop Tickets), Authentication Key: {v}",
        "WALLEE_USER_ID=61234\nWALLEE_AUTH_KEY={v}",
        "wallee Schlüssel für den Verleih-Onlineshop: {v}",
    )
    S(
        "twilio_auth_token",
        lambda: rs(HEX, 32),
        "Twilio Auth-Token (SMS Pistensperrung), nur Notfall-Team: {v}",
        "Twilio (SMS for lift closure alerts): account AC4f1e2d3c4b5a69788796a5b4c3d2e1f0, auth token {v}",
        "TWILIO_AUTH_TOKEN={v}",
        "curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC4f1e2d3c4b5a69788796a5b4c3d2e1f0/Messages.json -u AC4f1e2d3c4b5a69788796a5b4c3d2e1f0:{v} --data-urlencode 'Body=Windstop Gondel'",
    )
    S(
        "sendgrid_api_key",
        lambda: "SG." + rs(B64U, 22) + "." + rs(B64U, 43),
        "SENDGRID_API_KEY={v}",
        "Ticket confirmation emails go out via SendGrid, key: {v}",
        "Clé SendGrid pour les e-mails de confirmation des cours : {v}",
    )
    S(
        "mailgun_api_key",
        lambda: "key-" + rs(HEX, 32),
        "MAILGUN_API_KEY={v}",
        "Mailgun Newsletter Schneebericht: API key {v}",
        "mailgun:\n  domain: mg.bergbahnen.example\n  api_key: {v}\n",
    )
    S(
        "brevo_api_key",
        lambda: "xkeysib-" + rs(HEX, 64) + "-" + rs(AN, 16),
        "BREVO_API_KEY={v}",
        "Brevo (ex-Sendinblue) clé pour la newsletter saison : {v}",
        "Chiave Brevo per le offerte last minute: {v}",
    )
    S(
        "aws_secret_access_key",
        lambda: rs(AN + "+/", 40),
        "aws_access_key_id = AKIA4KXZ7QW2NB3PLR6T\naws_secret_access_key = {v}",
        "AWS_SECRET_ACCESS_KEY={v}",
        "S3 bucket for webcam images: key AKIA4KXZ7QW2MR8DHV2E / secret {v}",
        "Zugang S3 Backup Zutrittsdaten: Secret Key {v}",
    )
    S(
        "github_token",
        lambda: rng.choice(
            ["ghp_" + rs(AN, 36), "github_pat_11" + rs(UPAN, 20) + "_" + rs(AN, 59)]
        ),
        "GH_TOKEN={v} gh release create v4.2.0",
        "GitHub token for the lift-status app deploy bot: {v}",
        "git clone https://x-access-token:{v}@github.com/bergbahnen/gate-sync.git",
        "Token GitHub pour la CI du site enneigement : {v}",
    )
    S(
        "gitlab_token",
        lambda: "glpat-" + rs(B64U, 20),
        "GITLAB_TOKEN={v}",
        "Persönlicher GitLab-Token (Runner-Registrierung Kassensystem): {v}",
        "git remote set-url origin https://oauth2:{v}@gitlab.bergbahnen.example/it/ticketing.git",
    )
    S(
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T{rs(UPAN, 8)}/B{rs(UPAN, 10)}/{rs(AN, 24)}",
        "Webhook Slack #enneigement : {v}",
        "Wind alarm posts to #lift-ops via {v}",
        "SLACK_WEBHOOK={v}",
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Schneekanonen Sektor 3 aus\"}' {v}",
    )
    S(
        "slack_bot_token",
        lambda: f"xoxb-{digits(12)}-{digits(13)}-{rs(AN, 24)}",
        "SLACK_BOT_TOKEN={v}",
        "The snow-report bot uses {v} to post in #pistes",
        "Bot Slack rapports d'enneigement : {v}",
    )
    S(
        "teams_webhook_url",
        lambda: (
            f"https://bergbahnen.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{rs(HEX, 32)}/{uuid()}"
        ),
        "Teams Kanal 'Pistendienst' Webhook: {v}",
        "TEAMS_WEBHOOK_URL={v}",
        "Webhook Teams canale Soccorso piste: {v}",
    )
    S(
        "discord_webhook_url",
        lambda: f"https://discord.com/api/webhooks/{digits(19)}/{rs(B64U, 68)}",
        "Discord-Webhook Skilehrer-Kanal: {v}",
        "Discord webhook for the instructors' server (lesson changes): {v}",
        "DISCORD_WEBHOOK={v}",
        "Webhook Discord des moniteurs : {v}",
    )
    S(
        "postgres_uri",
        lambda: f"postgresql://ticketing:{pw()}@db-prod.bergbahnen.local:5432/access",
        "DATABASE_URL={v}",
        "Read replica for reporting: {v}",
        "psql \"{v}\" -c 'select count(*) from gate_passages where day = current_date'",
        "Datenbank Zutrittssystem: {v}",
    )
    S(
        "mysql_password",
        pw,
        "MYSQL_ROOT_PASSWORD={v}",
        "mysql -h 10.40.3.5 -u rental -p'{v}' rental_prod",
        "Skischule Buchungs-DB: Benutzer skischule_app, Passwort {v}",
        "Base MySQL des logements saisonniers : utilisateur housing, mot de passe {v}",
    )
    S(
        "mongodb_uri",
        lambda: (
            f"mongodb+srv://telemetry:{rs(AN, 16)}@snowmaking.x7k2p.mongodb.net/guns?retryWrites=true"
        ),
        "Telemetrie Schneeerzeuger, Mongo-Zugang: {v}",
        "MONGO_URI={v}",
        "Snow gun telemetry lands in Atlas: {v}",
        "Connessione Mongo telemetria innevamento: {v}",
    )
    S(
        "redis_url",
        lambda: f"redis://:{rs(AN, 24)}@redis-prod.bergbahnen.local:6379/0",
        "Cache Redis prenotazioni scuola sci: {v}",
        "REDIS_URL={v}",
        "Gate queue cache: {v}",
        "Redis für Wartezeiten-Anzeige: {v}",
    )
    S(
        "ssh_private_key",
        openssh_key,
        "Deploy key for the lift-status kiosk (Raspberry Pi at base station):\n{v}",
        "~/.ssh/id_ed25519 vom Schneileit-Jumphost:\n{v}",
        "Clé SSH du serveur caisses :\n{v}",
    )
    S(
        "rsa_private_key",
        rsa_key,
        "Clé privée du certificat de la borne billetterie :\n{v}",
        "TLS key for tickets.bergbahnen.example (renewed Nov):\n{v}",
        "Privater Schlüssel Zutritts-Gateway:\n{v}",
    )
    S(
        "gcp_service_account_key",
        pkcs8_json,
        'gcloud auth activate-service-account --key-file=webcam-sa.json  # json contains "private_key": "{v}"',
        '{"type": "service_account", "project_id": "resort-webcams", "private_key_id": "3f9c2a", "private_key": "{v}", "client_email": "uploader@resort-webcams.iam.gserviceaccount.com"}',
        'GCP key for the BigQuery lift-passage export, private_key field: "{v}"',
    )
    S(
        "jwt_secret",
        lambda: rs(AN, 48),
        "JWT_SECRET={v}",
        "Staff app (shift planning) signs tokens with HS256 secret {v}",
        'auth:\n  jwt_signing_key: "{v}"\n  ttl: 8h\n',
        "Secret JWT de l'appli réservation cours : {v}",
    )
    S(
        "telegram_bot_token",
        lambda: f"{rng.randint(1000000000, 7999999999)}:AA{rs(B64U, 33)}",
        "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001234567 -d text=Lawinenstufe_3",
        "Telegram bot for avalanche patrol alerts: {v}",
        "TELEGRAM_BOT_TOKEN={v}",
        "Bot Telegram soccorso piste, token {v}",
    )
    S(
        "openai_api_key",
        lambda: "sk-proj-" + rs(B64U, 74) + "T3BlbkFJ" + rs(B64U, 74),
        "Chiave OpenAI del chatbot biglietteria: {v}",
        "OPENAI_API_KEY={v}",
        "The guest chatbot (opening hours / lift status) uses OpenAI key {v}",
        "Clé OpenAI du chatbot de la station : {v}",
    )
    S(
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + rs(B64U, 93) + "AA",
        "ANTHROPIC_API_KEY={v}",
        "Agent note: key for the pisten-report summariser is {v}",
        "Chiave Anthropic per il riassunto bollettino neve: {v}",
    )
    S(
        "google_api_key",
        lambda: "AIza" + rs(B64U, 35),
        "curl 'https://maps.googleapis.com/maps/api/distancematrix/json?origins=Talstation&destinations=Bahnhof&key={v}'",
        "Server-side Geocoding key (unrestricted, backend only!): {v}",
        "GOOGLE_MAPS_SERVER_KEY={v}",
        "Google Places API Schlüssel für den Buchungs-Backend: {v}",
    )
    S(
        "datadog_api_key",
        lambda: rs(HEX, 32),
        "Clé Datadog des serveurs de portiques : {v}",
        "DD_API_KEY={v}",
        "Datadog agent on the gate servers: api_key: {v}",
        "docker run -d -e DD_API_KEY={v} -e DD_SITE=datadoghq.eu gcr.io/datadoghq/agent:7",
    )
    S(
        "npm_token",
        lambda: "npm_" + rs(AN, 36),
        "//registry.npmjs.org/:_authToken={v}",
        "NPM_TOKEN={v}",
        "npm Token zum Publizieren von @bergbahnen/lift-widgets: {v}",
    )
    S(
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + rs(B64U, 140),
        "[pypi]\nusername = __token__\npassword = {v}",
        "twine upload -u __token__ -p {v} dist/*",
        "TWINE_PASSWORD={v}",
    )
    S(
        "docker_hub_token",
        lambda: "dckr_pat_" + rs(B64U, 27),
        "echo {v} | docker login -u bergbahnenit --password-stdin",
        "DOCKERHUB_TOKEN={v}",
        "Docker Hub Token für Kiosk-Images: {v}",
    )
    S(
        "vault_token",
        lambda: "hvs." + rs(AN, 24),
        "export VAULT_ADDR=https://vault.bergbahnen.local:8200 VAULT_TOKEN={v}",
        "VAULT_TOKEN={v} vault kv get secret/ticketing/prod",
        "Root token after re-init (revoke after unseal test!!): {v}",
        "Jeton Vault de l'équipe exploitation : {v}",
    )
    S(
        "azure_storage_connection_string",
        lambda: (
            f"DefaultEndpointsProtocol=https;AccountName=resortwebcams;AccountKey={base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode()};EndpointSuffix=core.windows.net"
        ),
        'AZURE_STORAGE_CONNECTION_STRING="{v}"',
        "Webcam-Archiv Blob Storage: {v}",
        "Stringa connessione storage foto skipass: {v}",
    )
    S(
        "azure_client_secret",
        lambda: rs(AN, 3) + rng.choice(string.digits) + "Q~" + rs(AN + "_.~-", 34),
        "Entra app 'ticketing-sso' client secret (expires 2027-06): {v}",
        "AZURE_CLIENT_SECRET={v}",
        "Client-Secret der Personalplanungs-App im Entra ID: {v}",
    )
    S(
        "mapbox_secret_token",
        lambda: mapbox("sk"),
        "Mapbox Secret-Token (nur Backend, Tileset-Upload Pistenplan): {v}",
        "Mapbox secret token (tileset uploads for the piste map): {v}",
        "MAPBOX_SECRET_TOKEN={v}",
    )
    S(
        "sentry_auth_token",
        lambda: "sntryu_" + rs(HEX, 64),
        "sentry-cli --auth-token {v} releases new ticketapp@4.2.0",
        "SENTRY_AUTH_TOKEN={v}",
        "Sentry token for uploading sourcemaps of the ticket app: {v}",
    )

    # ------------------------------------------------------------------ benign
    B(
        "keycard_chip_id",
        lambda: f"{digits(2)}-{digits(4)} {digits(4)} {digits(4)} {digits(4)}-{digits(1)}",
        "Gast reklamiert Keycard {v}: Tageskarte wird am Drehkreuz nicht erkannt.",
        "Keycard number printed on the back: {v} (customer wants a refund of the deposit)",
        "Numéro de la carte mains libres : {v}, forfait 6 jours",
        "Skipass n. {v} bloccato per smarrimento",
    )
    B(
        "ticket_order_ref",
        lambda: f"TS-{rng.randint(2025, 2027)}-{digits(7)}",
        "Online order {v} paid twice, refund one via Stripe dashboard.",
        "Bestellung {v}: Familienpass, Abholung an Kasse 2",
        "Commande {v} — forfait non chargé sur la carte",
        "Ordine {v} annullato per maltempo",
    )
    B(
        "ski_school_booking_ref",
        lambda: f"SS{digits(2)}-{rs(string.ascii_uppercase, 3)}-{digits(4)}",
        "Prenotazione {v}: lezione privata snowboard",
        "Booking {v}: private lesson moved to 10:00, instructor Anna.",
        "Buchung {v} – Kinderskikurs Zwergerl, 5 Tage",
        "Réservation {v} : cours collectif Flocon, annulé (malade)",
    )
    B(
        "rental_contract_no",
        lambda: f"MV{digits(8)}",
        "Contrat de location {v} : casque rendu",
        "Mietvertrag {v}: Ski beschädigt zurückgegeben, Belag",
        "Rental contract {v} — boots size 27.5 swapped to 28.0",
        "Contratto noleggio {v}: casco restituito",
    )
    B(
        "gate_serial",
        lambda: f"SN {rs(UPAN, 2)}{digits(8)}",
        "Lecteur portique 2 remplacé, {v}",
        "Reader at gate 4 replaced, new {v}, old unit sent back for repair.",
        "Drehkreuz Mittelstation links: Seriennummer {v}",
        "Varco 7, numero di serie {v}",
    )
    B(
        "snow_gun_id",
        lambda: f"H{digits(2)}-{rng.choice(['FAN', 'LZ'])}{digits(3)}",
        "Snow gun {v} on Piste 7 reports low water pressure again.",
        "Schneeerzeuger {v}: Düsenring vereist, morgen tauschen",
        "Enneigeur {v} déplacé au regard 14",
        "Cannone {v}: sensore temperatura guasto",
    )
    B(
        "lift_code",
        lambda: (
            f"{rng.choice(['6SB', '8EUB', '10MGD', 'SL'])}-{rs(string.ascii_uppercase, 3)}{digits(2)}"
        ),
        "Remontée {v} fermée pour vent",
        "Lift {v} closed this afternoon (wind > 70 km/h at the top station).",
        "Anlage {v}: Revision im Juni, Seilprüfung",
        "Impianto {v} aperto dalle 8:30",
    )
    B(
        "housing_room_no",
        lambda: f"{rng.choice(['A', 'B', 'C'])}-{rng.randint(1, 3)}{digits(2)}",
        "Alloggio dipendenti, camera {v}: chiave consegnata",
        "Staff housing: new liftie moves into room {v} on Monday.",
        "Personalhaus Zimmer {v}: Heizung defekt, Hauswart informiert",
        "Logement saisonnier chambre {v}, caution reçue",
    )
    B(
        "stripe_publishable_key",
        lambda: "pk_live_51" + rs(AN, 97),
        "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}",
        "Publishable key for the webshop frontend (safe in JS bundle): {v}",
        "<script>const stripe = Stripe('{v}');</script>",
    )
    B(
        "stripe_object_id",
        lambda: (
            rng.choice(["cus_", "pi_", "ch_", "re_"]) + rs(AN, 24 if rng.random() < 0.5 else 14)
        ),
        "Refund for the broken-gondola day: Stripe object {v}",
        "Stripe Zahlung {v} zeigt 'requires_capture'",
        "Paiement Stripe {v} remboursé au client",
        "Dispute opened on {v}, evidence due Friday",
    )
    B(
        "twilio_account_sid",
        lambda: "AC" + rs(HEX, 32),
        "SID compte Twilio (identifiant, pas secret) : {v}",
        "Twilio account SID (not secret): {v}",
        "TWILIO_ACCOUNT_SID={v}",
        "Konto-SID Twilio für SMS-Alarme: {v}",
    )
    B(
        "aws_doc_example_key",
        lambda: rng.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        "Exemple tiré de la doc AWS : {v} (valeur fictive)",
        "README example uses the AWS documentation key {v} — replace before running.",
        "aws configure example from the AWS docs: {v}",
        "Beispielwert aus der AWS-Doku: {v} (funktioniert nicht)",
    )
    B(
        "aws_arn",
        lambda: f"arn:aws:s3:::resort-webcams-{rs(LOWAN, 6)}",
        "Rôle Lambda d'export : bucket {v}",
        "Webcam images bucket: {v}",
        "IAM-Policy Resource: {v}/*",
        "Bucket archivio webcam: {v}",
    )
    B(
        "git_commit_sha",
        lambda: rs(HEX, 40),
        "Gate-sync fix deployed at commit {v}.",
        "Rollback Kassensystem auf Commit {v}",
        "Correctif déployé : commit {v}",
        "Hotfix tariffe in produzione, commit {v}",
    )
    B(
        "sha256_digest",
        lambda: rs(HEX, 64),
        "Empreinte SHA-256 du firmware des lecteurs : {v}",
        "sha256 of the turnstile firmware image: {v}",
        "Prüfsumme SHA-256 Firmware Leseterminal: {v}",
        "Checksum SHA-256 del firmware PLC: {v}",
    )
    B(
        "docker_image_digest",
        lambda: "sha256:" + rs(HEX, 64),
        "Kiosk-Image Digest fixiert: {v}",
        "image: registry.bergbahnen.example/gate-sync@{v}",
        "Pinned kiosk image digest {v}",
        "docker pull ghcr.io/bergbahnen/lift-status@{v}",
    )
    B(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43) + " ops@talstation",
        "Add this public key to authorized_keys on the snowmaking jumphost: {v}",
        "Öffentlicher Schlüssel vom neuen Techniker-Laptop: {v}",
        "Clé publique du kiosque météo : {v}",
    )
    B(
        "x509_certificate",
        lambda: (
            "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU"
            + b64block(500)[20:]
            + "\n-----END CERTIFICATE-----"
        ),
        "Certificat public de la passerelle de paiement :\n{v}",
        "Public cert for tickets.bergbahnen.example (chain part 1):\n{v}",
        "Zertifikat des Zutritts-Gateways (öffentlich):\n{v}",
    )
    B(
        "placeholder",
        deck(
            [
                "<your-api-key>",
                "changeme-in-vault",
                "xxxxxxxxxxxxxxxxxxxx",
                "YOUR_KEY_HERE",
                "<PASSWORT>",
                "TODO_SET_ME",
            ]
        ),
        "In .env.example: STRIPE_SECRET_KEY={v}",
        'Template for new gate servers: api_key: "{v}"',
        "Vorlage Kassenrechner: DB_PASSWORD={v}",
        "Modèle de config : SENDGRID_API_KEY={v}",
        "Esempio: password = {v}",
    )
    B(
        "env_var_reference",
        deck(
            [
                "${STRIPE_SECRET_KEY}",
                "$DATABASE_URL",
                "${{ secrets.DOCKERHUB_TOKEN }}",
                "%ADYEN_API_KEY%",
                'os.environ["TWILIO_AUTH_TOKEN"]',
            ]
        ),
        "docker-compose: environment: - STRIPE_KEY={v}",
        "The worker reads the key from {v}, never hardcode it.",
        "CI step: password: {v}",
        "Im Script wird {v} verwendet, der Wert steht im Vault",
    )
    B(
        "vault_path",
        deck(
            [
                "secret/data/ticketing/prod/stripe",
                "kv/lift-ops/plc-pins",
                "secret/housing/door-codes",
                "kv/snowmaking/scada",
            ]
        ),
        "The key lives in Vault at {v} — ask IT for read access.",
        "Codes stehen in Vault unter {v}",
        "vault kv get {v}",
    )
    B(
        "masked_value",
        deck(
            [
                "sk_live_****************************7Qx2",
                "********",
                "xoxb-••••-••••-3fZa",
                "whsec_…9kLm",
                "AKIA************PLR6T",
            ]
        ),
        "Dashboard shows the key as {v}, full value only in Vault.",
        "Stripe-Key (maskiert): {v}",
        "Mot de passe : {v} (voir coffre)",
        "Token mascherato nel log: {v}",
    )
    B(
        "redacted_log",
        deck(["[REDACTED]", "***redacted***", "<hidden>", "[FILTERED]"]),
        "2026-12-06T07:41:03Z gate-sync INFO auth header=Bearer {v} status=200",
        "Log Kasse: password={v} login ok",
        "sendgrid.client DEBUG api_key={v}",
    )
    B(
        "revoked_key",
        lambda: "ghp_" + rs(AN, 36),
        "Token revocato il 28/11 (furto portatile), non riutilizzare: {v}",
        "Old deploy token {v} was revoked on 2026-11-28 after the laptop theft, do not reuse.",
        "Widerrufen (ungültig seit 01.12.): {v}",
        "Token révoqué, ne plus utiliser : {v}",
    )
    B(
        "uuid_correlation_id",
        uuid,
        "Gate reject trace: correlation id {v}",
        "Request-ID {v} – Timeout beim Ticket-Sync",
        "Identifiant de transaction {v} (borne automatique 2)",
        "ID richiesta {v} da inviare al supporto",
    )
    B(
        "recaptcha_site_key",
        lambda: "6L" + rs(B64U, 38),
        "reCAPTCHA site key for the booking form: {v}",
        'data-sitekey="{v}"',
        "Site-Key reCAPTCHA Skischule Formular: {v}",
    )
    B(
        "analytics_measurement_id",
        lambda: "G-" + rs(UPAN, 10),
        "GA4-Mess-ID Skischule Website: {v}",
        "GA4 measurement id for the webshop: {v}",
        "gtag('config', '{v}');",
        "ID di misurazione GA4 sito impianti: {v}",
    )
    B(
        "mapbox_public_token",
        lambda: mapbox("pk"),
        "Öffentlicher Mapbox-Token für die Pistenkarte (URL-beschränkt): {v}",
        "Public Mapbox token for the interactive piste map (URL-restricted): {v}",
        "mapboxgl.accessToken = '{v}';",
    )
    B(
        "iban",
        lambda: f"CH{digits(2)} {digits(4)} {digits(4)} {digits(4)} {digits(4)} {digits(1)}",
        "Refund bank account of the Bergbahnen AG: IBAN {v}",
        "Kaution Personalhaus bitte auf {v} überweisen",
        "IBAN pour la caution du logement : {v}",
    )
    B(
        "vat_number",
        lambda: f"CHE-{digits(3)}.{digits(3)}.{digits(3)} MWST",
        "Invoice header: Bergbahnen AG, {v}",
        "UID-Nummer auf Rechnungen: {v}",
        "Numéro TVA : {v}",
    )
    B(
        "firmware_version",
        lambda: f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 99)}-b{digits(4)}",
        "Turnstile readers updated to firmware {v}.",
        "Schneileitsystem Version {v} installiert",
        "Version du logiciel caisse : {v}",
        "Versione firmware tornelli {v}",
    )
    B(
        "mac_address",
        lambda: ":".join(rs(HEX, 2) for _ in range(6)).upper(),
        "DHCP reservation for gate 3 reader: MAC {v} -> 10.40.1.33",
        "MAC-Adresse Kassendrucker: {v}",
        "Indirizzo MAC access point rifugio: {v}",
    )
    B(
        "hostname_ip",
        lambda: f"10.{rng.randint(10, 60)}.{rng.randint(0, 20)}.{rng.randint(2, 250)}",
        "Snowmaking SCADA server is at {v}, reachable only via VPN.",
        "Kasse 3 hat die IP {v}",
        "Le serveur de contrôle d'accès : {v}",
    )
    B(
        "password_policy",
        lambda: rng.choice(
            [
                "min. 12 Zeichen, Passwortmanager Pflicht",
                "at least 14 characters, no reuse of the last 5",
                "12 caractères minimum, rotation annuelle",
            ]
        ),
        "Policy for POS and gate logins: {v}.",
        "Passwortrichtlinie Bergbahnen-IT: {v}",
        "Politique mots de passe : {v}",
    )
    B(
        "code_rotation_policy",
        lambda: rng.choice(
            [
                "door codes rotate every Monday at 06:00",
                "Türcodes wechseln jeden 1. des Monats",
                "i codici portone cambiano ogni lunedì",
            ]
        ),
        "Staff housing: {v}; new code goes out by SMS to residents only.",
        "Hinweis: {v}.",
        "Regola alloggi: {v}",
    )
    B(
        "slack_channel_id",
        lambda: "C0" + rs(UPAN, 9),
        "Wind alerts go to #lift-ops ({v}).",
        "Slack-Kanal-ID Pistendienst: {v}",
        'channel: "{v}"  # snow-report',
    )
    B(
        "ci_run_url",
        lambda: f"https://github.com/bergbahnen/gate-sync/actions/runs/{digits(11)}",
        "Run fallito, vedi {v}",
        "Failed deploy, see {v}",
        "Build fehlgeschlagen: {v}",
        "Pipeline KO : {v}",
    )
    B(
        "password_hash",
        lambda: rng.choice(["$2b$12$", "$2y$10$"]) + rs(B64.replace("+", "."), 53),
        "Users table row for kasse3: password_hash = '{v}'",
        "bcrypt-Hash im Export (kein Klartext): {v}",
        "Hash du mot de passe (bcrypt) : {v}",
    )
    B(
        "md5_checksum",
        lambda: rs(HEX, 32),
        "md5 of the tariff export CSV: {v}",
        "MD5 Prüfsumme Pistenplan.pdf: {v}",
        "MD5 del file listino: {v}",
    )
    B(
        "phone_number",
        lambda: f"+41 {rng.randint(24, 81)} {digits(3)} {digits(2)} {digits(2)}",
        "Pistenrettung Notruf: {v}",
        "Lift ops hotline for the night shift: {v}",
        "Numéro de la caisse centrale : {v}",
    )
    B(
        "product_ean",
        lambda: "76" + digits(11),
        "Day pass adult, EAN {v}",
        "Artikel EAN {v}: Skihelm Junior",
        "Codice EAN {v} – giornaliero ridotto",
    )
    B(
        "rfid_uid",
        lambda: rs(HEX, 14).upper(),
        "Staff badge UID {v} added to the housing door whitelist.",
        "RFID-UID Mitarbeiterkarte: {v}",
        "UID du badge moniteur : {v}",
    )
    B(
        "vehicle_id",
        lambda: f"PB{rng.choice(['600', '400', '100'])}-{digits(2)}",
        "Snowcat {v} hydraulic leak, back in service tomorrow.",
        "Pistenfahrzeug {v}: Winde Service fällig",
        "Dameuse {v} affectée au snowpark",
    )
    B(
        "tariff_code",
        lambda: f"T{digits(3)}-{rng.choice(['ADU', 'KID', 'SEN', 'STU'])}",
        "Tariff code {v} costs CHF 79 in high season.",
        "Tarifcode {v} falsch hinterlegt im Kassensystem",
        "Codice tariffa {v} valido da sabato",
    )
    B(
        "apple_merchant_id",
        lambda: "merchant.ch.bergbahnen." + rs(string.ascii_lowercase, 6),
        "Identifiant marchand Apple Pay : {v}",
        "Apple Pay merchant identifier: {v}",
        "Apple-Pay-Händler-ID: {v}",
    )
    B(
        "adyen_client_key",
        lambda: "live_" + rs(UPAN, 32),
        "Chiave client Adyen (pubblica) per il checkout: {v}",
        "Adyen client key for Drop-in (public, origin-restricted): {v}",
        "clientKey: '{v}',",
        "Adyen Client-Key (öffentlich) Webshop: {v}",
    )
    B(
        "terminal_id",
        lambda: digits(8),
        "Card terminal TID {v} at rental desk 1.",
        "Terminal-ID Kasse Gipfel: {v}",
        "ID terminale POS biglietteria: {v}",
    )
    B(
        "oauth_client_id",
        lambda: f"{digits(12)}-{rs(LOWAN, 32)}.apps.googleusercontent.com",
        "Google sign-in client id for the staff portal: {v}",
        "GOOGLE_CLIENT_ID={v}",
        "Client-ID OAuth portail moniteurs : {v}",
    )
    B(
        "azure_tenant_id",
        uuid,
        "Tenant ID Entra (non segreto): {v}",
        "AZURE_TENANT_ID={v}",
        "Entra Tenant-ID der Bergbahnen: {v}",
        "ID tenant Azure : {v}",
    )
    B(
        "npm_integrity",
        lambda: "sha512-" + base64.b64encode(bytes(rng.randrange(256) for _ in range(64))).decode(),
        "lockfile: ol@9.1.0 resolved, integrity {v}",
        '"integrity": "{v}"',
        "package-lock entry for leaflet: integrity {v}",
    )
    B(
        "pgp_fingerprint",
        lambda: " ".join(rs(HEX, 4).upper() for _ in range(10)),
        "Encrypt payroll exports to the HR key, fingerprint {v}",
        "PGP-Fingerprint IT-Leitung: {v}",
        "Empreinte PGP du service RH : {v}",
    )
    B(
        "test_card_number",
        lambda: rng.choice(["4242 4242 4242 4242", "4000 0027 6000 3184", "5555 5555 5555 4444"]),
        "Carta di test Stripe solo staging: {v}",
        "Test the webshop checkout with Stripe test card {v}, any future date, any CVC.",
        "Testkarte für Staging: {v}",
        "Carte de test (staging uniquement) : {v}",
    )
    B(
        "k8s_secret_ref",
        deck(["stripe-live", "gate-sync-db", "twilio-creds", "scada-operator"]),
        "env:\n- name: API_KEY\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: token",
        "kubectl -n ticketing describe secret {v}",
        "Das Secret {v} wird per ExternalSecrets aus Vault befüllt",
    )
    B(
        "radio_channel",
        lambda: f"Kanal {rng.randint(1, 16)} / CTCSS {rng.choice(['88.5', '94.8', '123.0'])}",
        "Pistendienst Funk: {v}",
        "Lift ops radio: {v} for the gondola crew",
        "Radio soccorso: {v}",
    )
    B(
        "employee_id",
        lambda: f"MA-{digits(5)}",
        "Liftie {v} starts Dec 12, housing room assigned.",
        "Personalnummer {v}: Saisonvertrag verlängert",
        "Matricola {v}, maestro di sci",
    )
    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    try:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()

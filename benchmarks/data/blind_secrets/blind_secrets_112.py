# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 112: an airport operator (baggage, gates, airside, parking, FIDS, ground handling).

Brief: notes, handovers, chat lines, commands, config, YAML/JSON, URLs, tables and log lines
as an airport operator's IT/OT teams and their AI coding agents would keep them: baggage
handling (BHS/SCADA, BSM feeds, WorldTracer), gates and jet bridges, airside access control,
car parks and payment, flight information displays, AODB/A-CDM, ground handlers, and the usual
developer stack. Written in English, German, French and Spanish. "secret" rows hold a live
credential; "benign" rows hold look-alikes a careful reader would keep.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_112.py [out.jsonl]

Kinds, secret: aws_secret_key, github_pat, github_fine_grained_pat, gitlab_pat, slack_bot_token,
slack_webhook, teams_webhook, stripe_secret_key, adyen_api_key, twilio_auth_token, sendgrid_api_key,
postgres_url_password, mssql_connection_string, redis_url_password, rsa_private_key, openssh_private_key,
jwt_signing_secret, azure_storage_key, google_api_key, openai_api_key, anthropic_api_key, datadog_api_key,
pagerduty_routing_key, npm_token, docker_pat, bhs_scada_password, airside_door_pin, pbb_service_password,
fids_cms_password, worldtracer_api_key, cupps_shared_login, parking_controller_password, wifi_psk,
vpn_preshared_key, snmp_community, ldap_bind_password, recovery_codes, totp_seed, vault_token,
azure_client_secret, telegram_bot_token, aodb_bearer_token, basic_auth_url, nvr_admin_password,
handler_portal_password, fcm_server_key.

Kinds, benign: flight_number, pnr_booking_ref, bag_tag_number, eticket_number, stand_gate_id,
aircraft_registration, icao24_address, request_uuid, git_commit_sha, firmware_sha256, image_digest,
aws_documented_example, stripe_publishable_key, recaptcha_site_key, ssh_public_key, pem_certificate,
placeholder_password, env_var_reference, vault_path, masked_secret, redacted_token, revoked_key,
password_policy, build_version, device_serial, mac_address, uld_number, parking_reservation_ref,
airside_badge_number, door_reader_id, notam_id, metar, jira_ticket, invoice_number, iban, vat_number,
adyen_merchant_account, payment_terminal_id, twilio_account_sid, slack_channel_id, azure_tenant_id,
bcrypt_hash, bic_code, cron_expression, k8s_secret_ref, bsm_message, typeb_address, worldtracer_file_ref,
squawk_code, snmp_oid, test_card_number, pgp_fingerprint, wifi_ssid, employee_number, atc_callsign.
"""

import json
import random
import string
import sys

SEED = 162218

AL = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
LO = string.ascii_lowercase + string.digits
HX = "0123456789abcdef"
B64 = AL + "+/"
B32 = string.ascii_uppercase + "234567"


def rs(r, n, alpha=AL):
    return "".join(r.choice(alpha) for _ in range(n))


def digits(r, n):
    return "".join(r.choice(string.digits) for _ in range(n))


def guid(r):
    return "-".join(rs(r, k, HX) for k in (8, 4, 4, 4, 12))


WORDS = [
    "Gepaeck",
    "Vorfeld",
    "Tarmac",
    "Baggage",
    "Pushback",
    "Airside",
    "Schranke",
    "Parkhaus",
    "Finger",
    "Jetway",
    "Boarding",
    "Runway",
    "Taxiway",
    "Apron",
    "Hangar",
    "Terminal",
    "Rampe",
    "Piste",
    "Equipaje",
    "Pasarela",
    "Bagages",
    "Passerelle",
    "Sorter",
    "Carrousel",
]
SYMS = "!#$%&*?@+"


def pw(r):
    w = r.choice(WORDS)
    k = r.randrange(6)
    if k == 0:
        return f"{w}{r.randrange(2019, 2027)}{r.choice(SYMS)}"
    if k == 1:
        return f"{w}{r.choice(SYMS)}{digits(r, 2)}{r.choice(WORDS).lower()}"
    if k == 2:
        return f"{r.choice(WORDS).lower()}.{w}{digits(r, 3)}"
    if k == 3:
        return f"{w[0]}{w[1:].lower()}_{r.choice(['T1', 'T2', 'T3', 'B', 'C'])}{digits(r, 2)}{r.choice(SYMS)}"
    if k == 4:
        return rs(r, 4, string.ascii_uppercase) + r.choice(SYMS) + rs(r, 6, LO) + digits(r, 2)
    return f"{w}{r.choice(SYMS)}{r.choice(['Winter', 'Sommer', 'Verano', 'Hiver'])}{digits(r, 2)}"


def pem(r, label, lines=6):
    body = "\n".join(rs(r, 64, B64) for _ in range(lines)) + "\n" + rs(r, 28, B64) + "=="
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def passphrase(r):
    ws = [
        "koffer",
        "band",
        "schranke",
        "gate",
        "tango",
        "vorfeld",
        "salida",
        "puerta",
        "piste",
        "navette",
        "kerosin",
        "marshaller",
        "trolley",
        "lounge",
        "hangar",
        "zulu",
    ]
    return "-".join(r.sample(ws, 4)) + "-" + digits(r, 2)


# ---------------------------------------------------------------- secrets
SECRET = [
    (
        "aws_secret_key",
        lambda r: rs(r, 40, AL + "/+"),
        [
            "aws_secret_access_key = {v}",
            "BHS archive bucket creds (s3://bhs-bsm-archive): key id AKIA"
            + "Q4ZT7XW2LMNB3K5P, secret {v}",
            "export AWS_SECRET_ACCESS_KEY='{v}'  # fids-prod deployer",
            "Übergabe: neues Secret für den Parkhaus-Export-User ist {v}, bitte ins Team-Wiki",
            '{"AccessKeyId": "AKIA' + "R7N2KD9QWE4TY6UP" + '", "SecretAccessKey": "{v}"}',
        ],
    ),
    (
        "github_pat",
        lambda r: "ghp_" + rs(r, 36),
        [
            "Personal token of Lena for the kiosk repo (full repo scope): {v}",
            "git clone https://{v}@github.com/airport-ops/fids-renderer.git",
            "GITHUB_TOKEN={v}",
            "token for the gate-allocation repo CI, expires in 90d: {v}",
            "@agent use {v} to open the PR against stand-planner, don't ask me again",
        ],
    ),
    (
        "github_fine_grained_pat",
        lambda r: "github_pat_" + rs(r, 22, UP) + "_" + rs(r, 59),
        [
            "gh auth login --with-token <<< {v}",
            "Fine-grained PAT (read-only, repo bhs-plc-configs): {v}",
            '  GH_PAT: "{v}"',
        ],
    ),
    (
        "gitlab_pat",
        lambda r: "glpat-" + rs(r, 20, AL + "-_"),
        [
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.airport.internal/api/v4/projects/112/pipelines',
            "GITLAB_TOKEN={v}  # parking-app runner",
            "El token de GitLab del proyecto pasarelas es {v}",
            "Runner registration for the apron-sensors group uses {v}",
        ],
    ),
    (
        "slack_bot_token",
        lambda r: f"xoxb-{digits(r, 12)}-{digits(r, 13)}-{rs(r, 24)}",
        [
            "SLACK_BOT_TOKEN={v}",
            "ops-bot (posts gate changes to #t2-ramp): {v}",
            "slack:\n  bot_token: {v}\n  channel: C04QX7B1L2E",
            "Bot-Token für den Gepäckalarm-Bot: {v}",
        ],
    ),
    (
        "slack_webhook",
        lambda r: f"https://hooks.slack.com/services/T{rs(r, 10, UP)}/B{rs(r, 10, UP)}/{rs(r, 24)}",
        [
            "Webhook Slack pour #fids-alertes : {v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Sorter 3 jam cleared\"}' {v}",
            "BAGGAGE_ALERT_WEBHOOK={v}",
            "webhook del canal #parking-incidencias: {v}",
            "alerting:\n  slack_url: {v}",
        ],
    ),
    (
        "teams_webhook",
        lambda r: (
            f"https://airportops.webhook.office.com/webhookb2/{guid(r)}@{guid(r)}/IncomingWebhook/{rs(r, 32, HX)}/{guid(r)}"
        ),
        [
            'notify_url = "{v}"  # Gepäckhalle Störungen',
            "Teams connector for the AOC duty channel: {v}",
            'TEAMS_WEBHOOK_URL="{v}"',
            "Le webhook Teams du canal « Passerelles T1 » : {v}",
        ],
    ),
    (
        "stripe_secret_key",
        lambda r: "sk_live_" + rs(r, 99),
        [
            "STRIPE_SECRET_KEY={v}",
            "parking pre-booking checkout, live key (do not use in staging): {v}",
            'stripe.api_key = "{v}"',
            "Clé secrète Stripe du site de réservation parking : {v}",
        ],
    ),
    (
        "adyen_api_key",
        lambda r: "AQE" + rs(r, 3, "hyjkm") + "mfx" + rs(r, 120, AL + "+/") + "=",
        [
            "ADYEN_API_KEY={v}",
            "X-API-Key: {v}",
            "Adyen ws_parking@Company.AirportOps Schlüssel (Kassenautomaten P3): {v}",
            'adyen:\n  merchant: AirportOpsParkingECOM\n  api_key: "{v}"',
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: rs(r, 32, HX),
        [
            "Twilio Auth-Token (Parkhaus-SMS): {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "Twilio for the 'your bag is on belt 7' SMS: account AC5e0b2f41d9c8a7e3b6f1d2c4a9e08b7f, auth token {v}",
            'client = Client("AC1f2e3d4c5b6a79880f1e2d3c4b5a6978", "{v}")',
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: f"SG.{rs(r, 22, AL + '-_')}.{rs(r, 43, AL + '-_')}",
        [
            "sendgrid:\n  api_key: {v}\n  from: noreply@airport.example",
            "SENDGRID_API_KEY={v}",
            "Mail relay for parking receipts → {v}",
            "La clave de SendGrid para avisos de retrasos: {v}",
        ],
    ),
    (
        "postgres_url_password",
        lambda r: pw(r),
        [
            "DATABASE_URL=postgresql://aodb_app:{v}@aodb-db01.ops.local:5432/aodb",
            'psql "postgres://fids_ro:{v}@10.40.2.15/fids?sslmode=require"',
            "sqlalchemy.url = postgresql+psycopg2://parking:{v}@pg-parking:5432/parking",
            "Verbindung zur Stand-DB: postgresql://standplan:{v}@db-stand.intern/standplan",
        ],
    ),
    (
        "mssql_connection_string",
        lambda r: pw(r),
        [
            "Server=bhs-sql01\\SCADA;Database=BHS_Hist;User Id=bhs_hist;Password={v};",
            '"ConnectionStrings": {"Access": "Data Source=acs-sql.airside.local;Initial Catalog=ACS;User ID=acs_svc;Password={v}"}',
            "Cadena de conexión del sistema de parking: Server=10.12.0.8;Database=Parking;Uid=sa;Pwd={v};",
            "sqlcmd -S fids-sql02 -U fids_admin -P '{v}' -Q \"SELECT TOP 10 * FROM Flights\"",
        ],
    ),
    (
        "redis_url_password",
        lambda r: rs(r, 24, AL),
        [
            "Contraseña de Redis de la cola de BSM: {v}",
            "REDIS_URL=redis://:{v}@redis-fids.ops.local:6379/0",
            "redis-cli -h cache-gates -a {v} ping",
            "cache:\n  url: rediss://default:{v}@bagtrack-cache.internal:6380",
        ],
    ),
    (
        "rsa_private_key",
        lambda r: pem(r, "RSA PRIVATE KEY"),
        [
            "Key for the SITA Type B gateway TLS client cert:\n{v}",
            "{v}",
            "Private Schlüssel für den FIDS-Reverse-Proxy (fids.airport.de):\n{v}",
        ],
    ),
    (
        "openssh_private_key",
        lambda r: pem(r, "OPENSSH PRIVATE KEY", 5),
        [
            "deploy key for the jet-bridge PLC jump host, paste into ~/.ssh/id_ed25519:\n{v}",
            "cat > /root/.ssh/bhs_ansible <<'KEY'\n{v}\nKEY",
            "Clave SSH del servidor de pasarelas (no la pierdas):\n{v}",
        ],
    ),
    (
        "jwt_signing_secret",
        lambda r: rs(r, 48, AL),
        [
            "JWT_SECRET={v}",
            "jwt:\n  algorithm: HS256\n  secret: {v}",
            "The crew-app tokens are signed with HS256 using {v}",
            "Secret de signature des jetons de l'appli handling : {v}",
        ],
    ),
    (
        "azure_storage_key",
        lambda r: rs(r, 86, AL + "+/") + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=stfidsmedia;AccountKey={v};EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY={v}",
            "az storage blob upload --account-name stbagphotos --account-key {v} -f tag.jpg -c damaged",
            "Speicherkonto-Schlüssel (stcctvexport, key1): {v}",
        ],
    ),
    (
        "google_api_key",
        lambda r: "AIza" + rs(r, 35, AL + "-_"),
        [
            "Clé API Google (serveur, sans restriction) pour les navettes : {v}",
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "server-side geocoding for parking shuttle stops, unrestricted key: {v}",
            "https://maps.googleapis.com/maps/api/distancematrix/json?origins=P4&destinations=T1&key={v}",
        ],
    ),
    (
        "openai_api_key",
        lambda r: "sk-proj-" + rs(r, 48, AL + "-_") + "T3BlbkFJ" + rs(r, 48, AL + "-_"),
        [
            'openai:\n  api_key: "{v}"\n  model: gpt-4o-mini',
            "OPENAI_API_KEY={v}",
            "the FIDS translation helper calls gpt with {v}",
            "Clé OpenAI pour le résumé des PIR bagages : {v}",
        ],
    ),
    (
        "anthropic_api_key",
        lambda r: "sk-ant-api03-" + rs(r, 93, AL + "-_") + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "agent memory: the handover-summary bot authenticates with {v}",
            'export ANTHROPIC_API_KEY="{v}"  # nur für den Schichtbericht-Agenten',
        ],
    ),
    (
        "datadog_api_key",
        lambda r: rs(r, 32, HX),
        [
            "Datadog-API-Key für die Schranken-Controller: {v}",
            "DD_API_KEY={v}",
            "datadog:\n  api_key: {v}\n  site: datadoghq.eu",
            "DD agent on the sorter HMIs reports with api key {v}",
        ],
    ),
    (
        "pagerduty_routing_key",
        lambda r: rs(r, 32, HX),
        [
            "PagerDuty integration key (service: BHS Critical): {v}",
            "PD_ROUTING_KEY={v}",
            '{"routing_key": "{v}", "event_action": "trigger", "payload": {"summary": "Make-up carousel 4 down"}}',
        ],
    ),
    (
        "npm_token",
        lambda r: "npm_" + rs(r, 36),
        [
            "token npm de publicación de los widgets FIDS: {v}",
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}  # publishes @airportops/fids-widgets",
            "npm publish token for the wayfinding kiosk libs: {v}",
        ],
    ),
    (
        "docker_pat",
        lambda r: "dckr_pat_" + rs(r, 27, AL + "-_"),
        [
            "  DOCKER_PASSWORD: {v}",
            "echo {v} | docker login -u airportopsci --password-stdin",
            "DOCKERHUB_TOKEN={v}",
            "Token Docker Hub para las imágenes del kiosco de autoservicio: {v}",
        ],
    ),
    (
        "bhs_scada_password",
        lambda r: pw(r),
        [
            "BHS HMI (WinCC) engineer login: user ENG01 / {v}",
            "Übergabe Nachtschicht: Sorter-SCADA Admin-Passwort wurde geändert, neu: {v}",
            "bhs-scada Administrator password is {v} — Vanderlande tech needs it Tuesday",
            "SCADA ingenieur (clavier du poste T2 sous-sol) mot de passe : {v}",
            "| BHS-SRV-03 | Administrator | {v} | Windows Server 2019 |",
        ],
    ),
    (
        "airside_door_pin",
        lambda r: digits(r, r.choice([4, 6])),
        [
            "Door 2.14 (baggage hall → apron) keypad code: {v}#",
            "Code porte local chariots piste Nord : {v}",
            "Zugangscode Tür Vorfeld West ab Montag: {v}",
            "PIN para la puerta de servicio de la pasarela 23: {v}",
            "agent note: the emergency override PIN for the airside turnstiles is {v}",
        ],
    ),
    (
        "pbb_service_password",
        lambda r: pw(r),
        [
            "Jet bridge PLC (stand A12) service menu password: {v}",
            "Passerelle B34 — mot de passe maintenance du pupitre : {v}",
            "Fluggastbrücke Pos. 107, Service-Login Thyssen: {v}",
            'pbb_hmi:\n  user: service\n  password: "{v}"',
        ],
    ),
    (
        "fids_cms_password",
        lambda r: pw(r),
        [
            "FIDS content manager admin: fidsadmin / {v}",
            "Contraseña del gestor de pantallas FIDS (usuario pantallas_t1): {v}",
            "FIDS_ADMIN_PASSWORD={v}",
            "login to fids-cms.ops.local as 'display' with password {v} to push the snow banner",
        ],
    ),
    (
        "worldtracer_api_key",
        lambda r: rs(r, 32, UP),
        [
            "Clé d'abonnement WorldTracer (escale CDG) : {v}",
            "WorldTracer API key (station FRA, handler SkyGround): {v}",
            "WORLDTRACER_API_KEY={v}",
            "curl -H 'Ocp-Apim-Subscription-Key: {v}' https://api.sita.aero/baggage/worldtracer/v1/files/FRALH12345",
        ],
    ),
    (
        "cupps_shared_login",
        lambda r: pw(r),
        [
            "CUPPS check-in counters 101–140, shared agent login: AGT_T1 / {v}",
            "Mot de passe partagé des bornes CUTE comptoirs 20–35 : {v}",
            "Gemeinsamer Login an den Gate-Arbeitsplätzen (CUPPS): gate / {v}",
            "cupps shared pw rotated today → {v}",
        ],
    ),
    (
        "parking_controller_password",
        lambda r: pw(r),
        [
            "Schrankensteuerung P2 Einfahrt, Web-UI admin: {v}",
            "parking barrier controller (P5 exit lane 3) admin password: {v}",
            "Contraseña del controlador de barreras del parking P1: {v}",
            "ssh admin@barrier-p3-exit1  # pw: {v}",
        ],
    ),
    (
        "wifi_psk",
        lambda r: passphrase(r),
        [
            "Airside ops Wi-Fi (SSID APRON-OPS) WPA2 key: {v}",
            "WLAN Vorfeld-Tablets, PSK: {v}",
            "wpa_passphrase RAMP-HANDHELD {v}",
            "Clé Wi-Fi des terminaux de chargement : {v}",
        ],
    ),
    (
        "vpn_preshared_key",
        lambda r: rs(r, 32, AL + "!@#%"),
        [
            "Clave precompartida del túnel con el handling: {v}",
            "IPsec tunnel to the ground handler (SkyGround DC): PSK {v}",
            "crypto isakmp key {v} address 203.0.113.44",
            "VPN zum Parkhausbetreiber, Pre-Shared Key: {v}",
        ],
    ),
    (
        "snmp_community",
        lambda r: rs(r, 6, LO) + r.choice(["Rw", "RW", "rw"]) + digits(r, 3) + r.choice(SYMS),
        [
            "SNMP-Community (schreibend) für die Vorfeld-Switches: {v}",
            "snmp-server community {v} RW 10",
            "SNMP write community for the FIDS screen switches: {v}",
            "snmpset -v2c -c {v} 10.30.4.21 1.3.6.1.2.1.2.2.1.7.12 i 2",
        ],
    ),
    (
        "ldap_bind_password",
        lambda r: pw(r),
        [
            "LDAP_BIND_PASSWORD={v}",
            'ldap:\n  bind_dn: cn=svc-badges,ou=svc,dc=airport,dc=local\n  bind_password: "{v}"',
            "ldapsearch -x -D 'cn=svc-fids,ou=svc,dc=airport,dc=local' -w '{v}' -b 'ou=staff,dc=airport,dc=local'",
            "Bind-Passwort für den Ausweis-Sync (svc-ausweis): {v}",
        ],
    ),
    (
        "recovery_codes",
        lambda r: " ".join(f"{digits(r, 4)}-{digits(r, 4)}" for _ in range(4)),
        [
            "Codes de secours du compte admin FIDS : {v}",
            "Backup codes for the shared ops@ Google account: {v}",
            "Wiederherstellungscodes Admin-Konto Parkhaus-Portal: {v}",
            "recovery codes (AOC duty manager Okta): {v}",
        ],
    ),
    (
        "totp_seed",
        lambda r: rs(r, 32, B32),
        [
            "totp_secret: {v}  # shared AOC duty phone",
            "otpauth://totp/AirportOps:aoc-duty?secret={v}&issuer=AirportOps",
            "TOTP seed for the shared handler-portal 2FA: {v}",
            "Semilla TOTP de la cuenta compartida de operaciones: {v}",
        ],
    ),
    (
        "vault_token",
        lambda r: "hvs." + rs(r, 90, AL + "_-"),
        [
            "Vault-Token des Deploy-Agents (bhs-ansible): {v}",
            "VAULT_TOKEN={v}",
            "vault login {v}",
            "root token from the unseal ceremony (bhs cluster): {v}",
        ],
    ),
    (
        "azure_client_secret",
        lambda r: rs(r, 3) + "8Q~" + rs(r, 34, AL + "~_.-"),
        [
            "AZURE_CLIENT_SECRET={v}",
            "App registration 'aodb-sync' client secret (valid till 2027-06): {v}",
            "az login --service-principal -u 3f1c2a7e-6b0d-4e9a-8c21-5d7f9e0a1b24 -p '{v}' --tenant airportops.onmicrosoft.com",
            "Secret client de l'appli Entra « fids-publisher » : {v}",
        ],
    ),
    (
        "telegram_bot_token",
        lambda r: f"{r.randrange(5000000000, 7999999999)}:AA{rs(r, 33, AL + '-_')}",
        [
            "Token del bot de Telegram de supervisores de rampa: {v}",
            "Telegram bot for ramp supervisors: {v}",
            "https://api.telegram.org/bot{v}/sendMessage?chat_id=-1001234567890&text=Stand%20B12%20frei",
            "TG_BOT_TOKEN={v}",
        ],
    ),
    (
        "aodb_bearer_token",
        lambda r: "aodb_live_" + rs(r, 40),
        [
            "Authorization: Bearer {v}",
            "AODB REST token for the A-CDM feed (TOBT/TSAT pushes): {v}",
            'curl -H "Authorization: Bearer {v}" https://aodb.ops.local/api/v2/flights?date=2026-12-07',
            "Token AODB pour l'import des affectations de postes : {v}",
        ],
    ),
    (
        "basic_auth_url",
        lambda r: pw(r),
        [
            "https://fidsfeed:{v}@feeds.airport.example/departures.xml",
            "wget http://admin:{v}@10.50.1.20/cgi-bin/reboot.cgi  # Anzeige Gate C5",
            "Feed URL für den Ankunftsmonitor Hotel-Shuttle: https://shuttle:{v}@fids-export.ops.local/arr.json",
        ],
    ),
    (
        "nvr_admin_password",
        lambda r: pw(r),
        [
            "CCTV NVR apron cameras (Milestone) admin / {v}",
            "Contraseña del grabador de vídeo de la zona de equipajes: {v}",
            "NVR-Admin Kameras Parkhaus P4: {v}",
            "cctv-nvr-02 local admin reset to {v}, please change after the audit",
        ],
    ),
    (
        "handler_portal_password",
        lambda r: pw(r),
        [
            "Ground handler portal (SkyGround) shared login ops.fra / {v}",
            "Portail assistance en escale — identifiant exploit / mot de passe {v}",
            "Handling-Portal Login für die Lastplanung: lastplan / {v}",
            "Portal del agente de handling, usuario rampa_t2, clave {v}",
        ],
    ),
    (
        "fcm_server_key",
        lambda r: "AAAA" + rs(r, 7) + ":APA91b" + rs(r, 134, AL + "-_"),
        [
            "Clé serveur FCM de l'appli équipage : {v}",
            "FCM legacy server key (crew app push): {v}",
            "FCM_SERVER_KEY={v}",
            "Authorization: key={v}",
        ],
    ),
]

# ---------------------------------------------------------------- benign
AIRL = ["LH", "AF", "IB", "BA", "KL", "EW", "VY", "DE", "UX", "LX"]


def flt(r):
    return f"{r.choice(AIRL)}{r.randrange(100, 9999)}"


BENIGN = [
    (
        "flight_number",
        flt,
        [
            "Flug {v} Abfertigung an Position V12, Bus erforderlich",
            "Gate change for {v}: B24 → B31, boarding 14:35",
            "Vuelo {v} retrasado por niebla, nuevo ETD 09:50",
            "FIDS still shows {v} as 'Boarding' after off-block, check AODB sync",
        ],
    ),
    (
        "pnr_booking_ref",
        lambda r: rs(r, 6, string.ascii_uppercase + "23456789"),
        [
            "Réservation {v} — passager PMR, assistance demandée",
            "PAX complaint, booking ref {v}, bag not on belt 5",
            "Buchungscode {v} — Passagier wartet am Lost & Found T1",
            "PNR {v} mishandled bag, WorldTracer file opened",
        ],
    ),
    (
        "bag_tag_number",
        lambda r: "0" + r.choice(["220", "057", "075", "074", "125"]) + digits(r, 6),
        [
            "Bag tag {v} read at sorter 2 but no BSM, routed to manual encoding",
            "Étiquette bagage {v} en rush, vol suivant",
            "BPM for tag {v} missing, last seen at make-up 11",
            "Gepäckschein {v} beim Zoll gescannt",
        ],
    ),
    (
        "eticket_number",
        lambda r: r.choice(["220", "057", "075"]) + digits(r, 10),
        [
            "Ticketnummer {v} für Erstattung Parkticket",
            "e-ticket {v} (refund request for lost parking pass)",
            "Número de billete {v}",
            "ticket {v} flagged as no-show in DCS",
        ],
    ),
    (
        "stand_gate_id",
        lambda r: r.choice(["A", "B", "C", "V"]) + str(r.randrange(1, 60)),
        [
            "Puerta {v}: pasarela averiada, embarque en remoto",
            "Aircraft towed to stand {v} for overnight",
            "Position {v} bloquée (travaux passerelle)",
            "Gate {v} FIDS screen black since 06:10",
        ],
    ),
    (
        "aircraft_registration",
        lambda r: r.choice(["D-A", "F-H", "EC-", "G-E", "PH-"]) + rs(r, 3, string.ascii_uppercase),
        [
            "Immatriculation {v} au dégivrage",
            "{v} on stand with APU inop, GPU required",
            "Matrícula {v} – limpieza de cabina pendiente",
            "Flugzeug {v} Enteisung Pad 3",
        ],
    ),
    (
        "icao24_address",
        lambda r: rs(r, 6, "0123456789ABCDEF"),
        [
            "Mode S hex {v} not matched to a registration in the A-SMGCS feed",
            "ADS-B target {v} taxiing without callsign",
            "ICAO 24-bit address {v}",
        ],
    ),
    (
        "request_uuid",
        guid,
        [
            "Identifiant de requête {v} (erreur 502 côté AODB)",
            "request_id={v} status=504 path=/api/flights upstream=aodb",
            "Correlation-ID: {v}",
            "Trace {v} shows the BSM parser timing out",
        ],
    ),
    (
        "git_commit_sha",
        lambda r: rs(r, 40, HX),
        [
            "commit {v} añade el banner de nieve",
            "Deployed fids-renderer at commit {v}",
            "revert {v} – broke the gate change banner",
            "Rollback auf {v} (Schranken-API)",
        ],
    ),
    (
        "firmware_sha256",
        lambda r: rs(r, 64, HX),
        [
            "SHA256 of the sorter PLC firmware v4.2.1: {v}",
            "sha256sum checkpoint: {v}  barrier-ctrl-2.8.bin",
            "Empreinte SHA-256 du paquet kiosque : {v}",
        ],
    ),
    (
        "image_digest",
        lambda r: "sha256:" + rs(r, 64, HX),
        [
            "Image-Digest des Schranken-Dienstes: {v}",
            "image: registry.ops.local/fids/renderer@{v}",
            "Pinned parking-api to digest {v}",
            "docker pull ghcr.io/airport-ops/bsm-parser@{v}",
        ],
    ),
    (
        "aws_documented_example",
        lambda r: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "The README uses AWS's documented example key {v} — not a real credential",
            "# example from the AWS docs: {v}",
            "ejemplo de la documentación de AWS: {v}",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_" + rs(r, 99),
        [
            "Clé publique Stripe (frontend réservation) : {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "<script>const stripe = Stripe('{v}');</script>",
            "publishable key for the parking booking page (safe in frontend): {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + rs(r, 38, AL + "-_"),
        [
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "reCAPTCHA site key (public) for the lost-baggage form: {v}",
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, 43, AL + "+/"),
        [
            "Clave pública SSH de Marta para el bastión: {v}",
            "add to authorized_keys on pbb-jump01: {v} ops@aoc",
            "Öffentlicher Schlüssel von Jonas für den BHS-Jumphost: {v}",
            "- name: deploy\n  ssh_authorized_keys:\n    - {v}",
        ],
    ),
    (
        "pem_certificate",
        lambda r: pem(r, "CERTIFICATE", 5),
        [
            "Public cert for fids.airport.example (chain part 1):\n{v}",
            "Certificat public du proxy SITA :\n{v}",
            "ca.crt for the handler VPN:\n{v}",
        ],
    ),
    (
        "placeholder_password",
        lambda r: r.choice(["<your-password>", "CHANGE_ME", "********", "<PASSWORD>", "xxxxxxxx"]),
        [
            "ADYEN_API_KEY={v}",
            "DATABASE_URL=postgresql://aodb_app:{v}@aodb-db01:5432/aodb",
            'password: "{v}"  # filled in by the deploy pipeline',
            "Passwort: {v} (steht im Tresor, nicht hier)",
            "Contraseña: {v}",
        ],
    ),
    (
        "env_var_reference",
        lambda r: r.choice(
            [
                "${ADYEN_API_KEY}",
                "$STRIPE_SECRET_KEY",
                "${SLACK_BOT_TOKEN}",
                "%FIDS_DB_PASSWORD%",
                "${{ secrets.AODB_TOKEN }}",
            ]
        ),
        [
            "password: {v}",
            "api_key: {v}",
            "export TOKEN={v}",
            "the CI step reads {v} from the environment",
            "Le mot de passe est injecté via {v}",
        ],
    ),
    (
        "vault_path",
        lambda r: r.choice(
            [
                "secret/data/bhs/scada/admin",
                "kv/parking/adyen",
                "secret/ops/fids/cms",
                "kv/airside/acs/ldap-bind",
            ]
        ),
        [
            "Le secret est rangé sous {v}",
            "credential lives at {v} in Vault",
            "vault kv get {v}",
            "Passwort liegt unter {v}",
        ],
    ),
    (
        "masked_secret",
        lambda r: r.choice(["sk_live_", "ghp_", "xoxb-", "AQE"]) + "****" + rs(r, 4),
        [
            "Token {v} (maskiert in der Konsole)",
            "Stripe dashboard shows key {v} (last rotated 2026-10-02)",
            "token {v} used by the parking sync",
            "clave enmascarada: {v}",
        ],
    ),
    (
        "redacted_token",
        lambda r: r.choice(["[REDACTED]", "<redacted>", "***REMOVED***", "••••••••"]),
        [
            "Authorization: Bearer {v}",
            "2026-12-07T06:14:02Z INFO adyen call ok api_key={v}",
            "Passwort der Schranke P2: {v}",
        ],
    ),
    (
        "revoked_key",
        lambda r: "glpat-" + rs(r, 20),
        [
            "revocado el 2026-11-30, ya no vale: {v}",
            "{v} was revoked on 2026-11-30 after it leaked into the wiki",
            "REVOKED (do not use, kept for audit): {v}",
            "Token {v} widerrufen, Ersatz liegt im Vault",
        ],
    ),
    (
        "password_policy",
        lambda r: r.choice(
            [
                "min 14 chars, 1 digit, 1 symbol",
                "12 caractères minimum, rotation 90 jours",
                "mindestens 16 Zeichen, keine Wiederverwendung der letzten 5",
            ]
        ),
        [
            "Policy for airside HMI accounts: {v}",
            "Politique mots de passe IT aéroport : {v}",
            "Passwortrichtlinie OT-Netz: {v}",
        ],
    ),
    (
        "build_version",
        lambda r: (
            f"{r.randrange(1, 9)}.{r.randrange(0, 20)}.{r.randrange(0, 40)}+build.{digits(r, 4)}"
        ),
        [
            "Version du firmware des bornes : {v}",
            "fids-renderer {v} rolled out to T2",
            "Kiosk-Software Version {v}",
            "versión del software de barreras: {v}",
        ],
    ),
    (
        "device_serial",
        lambda r: "SN" + rs(r, 10, UP),
        [
            "Barrier controller P3 exit 2, serial {v}",
            "Numéro de série de l'écran FIDS porte C7 : {v}",
            "Seriennummer Scanner Band 4: {v}",
            "| kiosk-t1-07 | {v} | warranty until 2028 |",
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(rs(r, 2, HX) for _ in range(6)),
        [
            "MAC-Adresse Barrieren-Controller P1: {v}",
            "FIDS player at gate B12 has MAC {v}",
            "DHCP reservation: {v} → 10.30.4.57",
            "Dirección MAC del lector de tarjetas: {v}",
        ],
    ),
    (
        "uld_number",
        lambda r: r.choice(["AKE", "AKH", "PMC", "AAP"]) + digits(r, 5) + r.choice(AIRL),
        [
            "ULD {v} loaded hold 2",
            "Conteneur {v} endommagé, retiré du service",
            "Container {v} auf Position 31L",
        ],
    ),
    (
        "parking_reservation_ref",
        lambda r: "PRK-" + digits(r, 8),
        [
            "Customer with reservation {v} says barrier didn't open",
            "Reserva de parking {v} – reembolso parcial",
            "Parkreservierung {v} storniert",
        ],
    ),
    (
        "airside_badge_number",
        lambda r: "ASIC-" + digits(r, 6),
        [
            "Badge {v} reported lost, deactivated in ACS",
            "Ausweisnummer {v} Gültigkeit verlängert",
            "Badge aéroportuaire {v} — habilitation zone réservée",
        ],
    ),
    (
        "door_reader_id",
        lambda r: f"RDR-{r.choice(['T1', 'T2', 'BH', 'AP'])}-{digits(r, 3)}",
        [
            "Reader {v} keeps throwing 'door forced' alarms",
            "Lecteur {v} hors ligne depuis 03h",
            "Lesegerät {v} tauschen",
        ],
    ),
    (
        "notam_id",
        lambda r: f"{r.choice('ABC')}{digits(r, 4)}/26",
        [
            "NOTAM {v}: stand C12–C16 closed for resurfacing",
            "Ver NOTAM {v} (calle de rodaje N cerrada)",
            "NOTAM {v} aufgehoben",
        ],
    ),
    (
        "metar",
        lambda r: (
            f"EDDF 0720{r.randrange(10, 59)}Z {r.randrange(100, 360):03d}{r.randrange(3, 25):02d}KT 9999 FEW020 0{r.randrange(1, 9)}/M0{r.randrange(1, 5)} Q10{r.randrange(10, 35)}"
        ),
        [
            "METAR at shift start: {v}",
            "Météo : {v}",
            "weather for de-icing planning: {v}",
        ],
    ),
    (
        "jira_ticket",
        lambda r: r.choice(["BHS", "FIDS", "PARK", "ACS"]) + "-" + str(r.randrange(100, 9999)),
        [
            "Ticket {v} : écran porte A3 figé",
            "see {v} for the sorter jam root cause",
            "Ticket {v} — Schranke P2 öffnet nicht",
            "cerrado en {v}",
        ],
    ),
    (
        "invoice_number",
        lambda r: f"INV-2026-{digits(r, 6)}",
        [
            "Handler invoice {v} for de-icing fluid",
            "Facture {v} (location GPU)",
            "Rechnung {v} Parkhaus-Wartung",
        ],
    ),
    (
        "iban",
        lambda r: (
            "DE"
            + digits(r, 2)
            + " "
            + " ".join(digits(r, 4) for _ in range(4))
            + " "
            + digits(r, 2)
        ),
        [
            "Refunds for parking overcharges go out from {v}",
            "IBAN des Handling-Partners: {v}",
            "Cuenta para tasas aeroportuarias: {v}",
        ],
    ),
    (
        "vat_number",
        lambda r: r.choice(["DE", "FR", "ES"]) + digits(r, 9),
        [
            "USt-IdNr. des Bodenverkehrsdienstleisters: {v}",
            "N° TVA intracommunautaire : {v}",
            "VAT ID on the parking receipt: {v}",
        ],
    ),
    (
        "adyen_merchant_account",
        lambda r: r.choice(["AirportOpsParkingECOM", "AirportOpsParkingPOS", "AirportOpsRetailT1"]),
        [
            "merchantAccount: {v}",
            "Adyen merchant account for the pay stations is {v}",
            "Händlerkonto {v}",
        ],
    ),
    (
        "payment_terminal_id",
        lambda r: f"V400m-{digits(r, 9)}",
        [
            "POIID {v} at exit lane 2 offline",
            "Terminal de pago {v} en la caja del P4",
            "Terminal {v} neu gekoppelt",
        ],
    ),
    (
        "twilio_account_sid",
        lambda r: "AC" + rs(r, 32, HX),
        [
            "Twilio-Konto-SID {v} (kein Geheimnis)",
            "TWILIO_ACCOUNT_SID={v}",
            "Twilio account SID (not secret): {v}",
            "SMS sent from account {v}",
        ],
    ),
    (
        "slack_channel_id",
        lambda r: "C0" + rs(r, 9, UP),
        [
            "Slack-Kanal {v} (#vorfeld)",
            "post gate changes to channel {v}",
            "channel_id: {v}  # #bhs-alarms",
            "Canal Slack {v} (#parking)",
        ],
    ),
    (
        "azure_tenant_id",
        guid,
        [
            "Identifiant de locataire Entra : {v}",
            "AZURE_TENANT_ID={v}",
            "tenant id {v} (airportops.onmicrosoft.com)",
            "client_id: {v}  # app registration aodb-sync, secret in Key Vault",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: "$2b$12$" + rs(r, 53, AL + "./"),
        [
            "Hash bcrypt de la cuenta del kiosco: {v}",
            "fids_users.password_hash = '{v}'",
            "hash stored for kiosk admin: {v}",
            "Hash bcrypt du compte borne : {v}",
        ],
    ),
    (
        "bic_code",
        lambda r: r.choice(["COBADEFFXXX", "BNPAFRPPXXX", "CAIXESBBXXX", "HELADEF1822"]),
        [
            "BIC {v}",
            "Código BIC del banco: {v}",
            "remittance via {v}",
        ],
    ),
    (
        "cron_expression",
        lambda r: r.choice(["*/5 * * * *", "0 3 * * *", "15 2 * * 1", "0 */4 * * *"]),
        [
            'schedule: "{v}"  # BSM archive export',
            "Cron {v} für den Parkhaus-Report",
            "cron: {v} purge old FIDS media",
        ],
    ),
    (
        "k8s_secret_ref",
        lambda r: r.choice(["aodb-db-credentials", "adyen-api", "fids-cms-admin", "slack-bot"]),
        [
            "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: password",
            "kubectl get secret {v} -n ops -o name",
            "secret {v} montado en /etc/creds",
        ],
    ),
    (
        "bsm_message",
        lambda r: "0" + r.choice(["220", "057", "075"]) + digits(r, 6) + "001",
        [
            "BSM\n.V/1LFRA\n.F/LH400/07DEC/JFK/Y\n.N/{v}\n.P/1MUELLER/ANNA\nENDBSM",
            ".N/{v} — BSM duplicado recibido dos veces",
            "licence plate range .N/{v} seen in BSM log",
        ],
    ),
    (
        "typeb_address",
        lambda r: r.choice(["FRAKLLH", "CDGKLAF", "MADKKIB", "FRAXSXH", "LHRBRBA"]),
        [
            "Typ-B-Adresse für LDM/CPM: {v}",
            "send LDM copies to Type B address {v}",
            "Adresse SITA Type B : {v}",
            "BSMs arrive from {v}",
        ],
    ),
    (
        "worldtracer_file_ref",
        lambda r: r.choice(["FRA", "MAD", "CDG"]) + r.choice(AIRL) + digits(r, 5),
        [
            "WorldTracer file {v} — bag found in make-up 3",
            "Dossier bagage {v} clos",
            "PIR {v} angelegt",
        ],
    ),
    (
        "squawk_code",
        lambda r: r.choice(["2000", "7000", "4721", "1200", "3341"]),
        [
            "Tow vehicle transponder set to squawk {v} on the apron",
            "Squawk {v} asignado",
            "A-SMGCS shows squawk {v} for the follow-me car",
        ],
    ),
    (
        "snmp_oid",
        lambda r: "1.3.6.1.4.1." + ".".join(str(r.randrange(1, 60000)) for _ in range(4)),
        [
            "poll OID {v} for display temperature",
            "OID {v} = Lüfterstatus",
            "trap OID {v} means barrier arm broken",
        ],
    ),
    (
        "test_card_number",
        lambda r: r.choice(["4111 1111 1111 1111", "5555 5555 5555 4444", "4000 0025 0000 3155"]),
        [
            "test card for staging pay stations: {v}, any CVC",
            "Testkarte {v} (nur Testumgebung)",
            "tarjeta de prueba {v}",
        ],
    ),
    (
        "pgp_fingerprint",
        lambda r: " ".join(rs(r, 4, "0123456789ABCDEF") for _ in range(10)),
        [
            "Security team PGP fingerprint: {v}",
            "Empreinte PGP du CERT aéroport : {v}",
            "verify the release signature against {v}",
        ],
    ),
    (
        "wifi_ssid",
        lambda r: r.choice(["APRON-OPS", "RAMP-HANDHELD", "BHS-MAINT", "Airport_Free_WiFi"]),
        [
            "tablets must join SSID {v} (key is in the vault)",
            "Le SSID {v} ne diffuse plus au hall 3",
            "SSID {v} Kanal 36",
        ],
    ),
    (
        "employee_number",
        lambda r: "P" + digits(r, 6),
        [
            "Personalnummer {v} — Schichtplan Vorfeldaufsicht",
            "matricule {v} affecté au poste de coordination",
            "staff no. {v} trained on the new sorter HMI",
        ],
    ),
    (
        "atc_callsign",
        lambda r: (
            r.choice(["DLH", "AFR", "IBE", "BAW", "KLM"])
            + str(r.randrange(1, 9))
            + rs(r, 2, string.ascii_uppercase)
        ),
        [
            "{v} requesting pushback from stand V22",
            "Indicativo {v} en posición remota",
            "callsign {v} mismatched with flight number in AODB",
        ],
    ),
]


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates:
                v = gen(r)
                text = t.replace("{v}", v)
                assert v in text, (kind, t)
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

# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 109: regional water utility (SCADA, telemetry, billing, field crews, leak detection).

Brief: memory notes kept by the teams (and their AI coding agents) of a regional
water utility: SCADA and pumping stations, PLC/RTU telemetry, AMI meter reading,
customer billing and payments, field crews, GIS and leak detection. Rows are prose
notes, handovers, chat lines, commands, config/.env lines, YAML, JSON, URLs, tables
and log lines in English, German, French and Spanish. "secret" rows hold a live
credential; "benign" rows hold look-alikes a careful reader would keep.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_109.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat, gitlab_pat,
slack_bot_token, slack_webhook_url, teams_webhook_url, discord_webhook_url,
stripe_secret_key, stripe_restricted_key, twilio_auth_token, sendgrid_api_key,
azure_storage_connection_string, azure_ad_client_secret, postgres_url_password,
mssql_historian_connection_string, mongodb_uri_password, redis_url_password,
rsa_private_key, openssh_private_key, scada_admin_password, plc_project_password,
dnp3_sav5_update_key, hmi_operator_pin, pump_station_door_code, ipsec_psk,
depot_wifi_passphrase, cellular_router_admin_password, ami_headend_api_key,
sap_rfc_password, ldap_bind_password, jwt_bearer_token, google_maps_api_key,
openai_api_key, anthropic_api_key, datadog_api_key, npm_token, docker_hub_pat,
mqtt_broker_password, smtp_password, mfa_recovery_codes, arcgis_api_key,
telegram_bot_token, vault_token, sftp_lockbox_password, sim_puk_code,
lims_shared_login_password.

Kinds, benign: aws_documented_example_key, placeholder_value, env_var_reference,
vault_path, masked_secret, redacted_log_line, revoked_key_note, git_commit_sha,
firmware_sha256, file_md5_checksum, asset_uuid, stripe_publishable_key,
stripe_test_card_number, recaptcha_site_key, ssh_public_key, x509_certificate,
certificate_fingerprint, twilio_account_sid, aws_arn_account_id, azure_tenant_id,
customer_account_number, water_meter_serial, ami_endpoint_id, scada_tag_name,
plc_ip_modbus_register, work_order_number, gis_asset_id, published_iban,
invoice_number, incident_ticket, firmware_version, container_image_digest,
mac_address, sim_iccid_imei, dma_code, leak_logger_id, password_policy_text,
lab_sample_id, ga_measurement_id, slack_channel_id, ci_run_id, oauth_client_id,
jwt_io_example_token, bcrypt_password_hash, pump_curve_coefficients,
fleet_vehicle_registration, dnp3_outstation_address, k8s_secret_key_ref,
npm_integrity_hash, purchase_order_number, sap_business_partner, wifi_ssid_name.
"""

import json
import random
import string
import sys

SEED = 105067

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
AN = string.ascii_letters + string.digits
UPD = UP + DIG
HEX = "0123456789abcdef"
B64 = AN + "+/"
URLSAFE = AN + "-_"


def rs(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def uuid4(rng):
    h = rs(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


WORDS = [
    "Pumpe",
    "Reservoir",
    "Hochbehaelter",
    "Chateau",
    "Bomba",
    "Aqua",
    "Wasser",
    "Filtre",
    "Valve",
    "Hydrant",
    "Kanal",
    "Depot",
    "Turbidity",
    "Brunnen",
    "Estacion",
    "Riviere",
    "Chlorine",
    "Meter",
    "Tormenta",
    "Sluice",
]
SYMS = "!#$%&*?@."


def human_pw(rng):
    w = rng.choice(WORDS)
    style = rng.randrange(5)
    if style == 0:
        return f"{w}{rng.randrange(2019, 2027)}{rng.choice(SYMS)}"
    if style == 1:
        return f"{w}_{rng.randrange(10, 99)}{rng.choice(SYMS)}{rng.choice(UP)}"
    if style == 2:
        return f"{rng.choice(SYMS)}{w.lower()}{rng.randrange(100, 999)}{rng.choice(WORDS)}"
    if style == 3:
        return f"{w[:4]}{rng.choice(SYMS)}{rs(rng, AN, 6)}{rng.randrange(1, 9)}"
    return f"{w}-{rng.choice(WORDS).lower()}-{rng.randrange(10, 99)}{rng.choice(SYMS)}"


def passphrase(rng):
    parts = rng.sample(
        [
            "otter",
            "gravel",
            "sluice",
            "heron",
            "basalt",
            "willow",
            "quarry",
            "ferric",
            "marsh",
            "tunnel",
            "copper",
            "lantern",
            "cistern",
            "bramble",
        ],
        4,
    )
    return "-".join(parts) + str(rng.randrange(10, 99))


def pem_body(rng, lines, width=64):
    return "\n".join(rs(rng, B64, width) for _ in range(lines))


# ---------- secret generators ----------
G = {
    "aws_secret_access_key": lambda r: rs(r, AN + "+/", 40),
    "github_pat": lambda r: "ghp_" + rs(r, AN, 36),
    "github_fine_grained_pat": lambda r: "github_pat_11" + rs(r, UPD, 20) + "_" + rs(r, AN, 59),
    "gitlab_pat": lambda r: "glpat-" + rs(r, URLSAFE, 20),
    "slack_bot_token": lambda r: (
        f"xoxb-{r.randrange(10**11, 10**12)}-{r.randrange(10**12, 10**13)}-{rs(r, AN, 24)}"
    ),
    "slack_webhook_url": lambda r: (
        f"https://hooks.slack.com/services/T{rs(r, UPD, 10)}/B{rs(r, UPD, 10)}/{rs(r, AN, 24)}"
    ),
    "teams_webhook_url": lambda r: (
        f"https://aquanord.webhook.office.com/webhookb2/{uuid4(r)}@{uuid4(r)}/IncomingWebhook/{rs(r, HEX, 32)}/{uuid4(r)}"
    ),
    "discord_webhook_url": lambda r: (
        f"https://discord.com/api/webhooks/{r.randrange(10**17, 10**18)}/{rs(r, URLSAFE, 68)}"
    ),
    "stripe_secret_key": lambda r: "sk_live_51" + rs(r, AN, 97),
    "stripe_restricted_key": lambda r: "rk_live_51" + rs(r, AN, 97),
    "twilio_auth_token": lambda r: rs(r, HEX, 32),
    "sendgrid_api_key": lambda r: "SG." + rs(r, URLSAFE, 22) + "." + rs(r, URLSAFE, 43),
    "azure_storage_connection_string": lambda r: rs(r, B64, 86) + "==",
    "azure_ad_client_secret": lambda r: rs(r, AN, 3) + "8Q~" + rs(r, AN + "._-~", 34),
    "postgres_url_password": human_pw,
    "mssql_historian_connection_string": human_pw,
    "mongodb_uri_password": lambda r: rs(r, AN, 16),
    "redis_url_password": lambda r: rs(r, AN, 32),
    "rsa_private_key": lambda r: (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow"
        + rs(r, B64, 58)
        + "\n"
        + pem_body(r, 5)
        + "\n"
        + rs(r, B64, 40)
        + "==\n-----END RSA PRIVATE KEY-----"
    ),
    "openssh_private_key": lambda r: (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        + pem_body(r, 4, 70)
        + "\n"
        + rs(r, B64, 24)
        + "=\n-----END OPENSSH PRIVATE KEY-----"
    ),
    "scada_admin_password": human_pw,
    "plc_project_password": human_pw,
    "dnp3_sav5_update_key": lambda r: rs(r, "0123456789ABCDEF", 32),
    "hmi_operator_pin": lambda r: str(r.randrange(1000, 999999)).zfill(6)[: r.choice([4, 6])],
    "pump_station_door_code": lambda r: str(r.randrange(10000, 99999)) + r.choice(["#", "*", ""]),
    "ipsec_psk": lambda r: rs(r, AN, 12) + r.choice(SYMS) + rs(r, AN, 11),
    "depot_wifi_passphrase": passphrase,
    "cellular_router_admin_password": human_pw,
    "ami_headend_api_key": lambda r: "hes_live_" + rs(r, HEX, 40),
    "sap_rfc_password": human_pw,
    "ldap_bind_password": human_pw,
    "jwt_bearer_token": lambda r: (
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjRmMmEifQ."
        + rs(r, URLSAFE, 148)
        + "."
        + rs(r, URLSAFE, 86)
    ),
    "google_maps_api_key": lambda r: "AIzaSy" + rs(r, URLSAFE, 33),
    "openai_api_key": lambda r: "sk-proj-" + rs(r, URLSAFE, 74) + "T3BlbkFJ" + rs(r, URLSAFE, 74),
    "anthropic_api_key": lambda r: "sk-ant-api03-" + rs(r, URLSAFE, 93) + "AA",
    "datadog_api_key": lambda r: rs(r, HEX, 32),
    "npm_token": lambda r: "npm_" + rs(r, AN, 36),
    "docker_hub_pat": lambda r: "dckr_pat_" + rs(r, URLSAFE, 27),
    "mqtt_broker_password": lambda r: rs(r, AN, 10) + r.choice(SYMS) + rs(r, AN, 5),
    "smtp_password": lambda r: rs(r, LOW, 16),
    "mfa_recovery_codes": lambda r: " ".join(
        f"{rs(r, LOW + DIG, 4)}-{rs(r, LOW + DIG, 4)}" for _ in range(6)
    ),
    "arcgis_api_key": lambda r: "AAPK" + rs(r, HEX, 32) + rs(r, URLSAFE, 64),
    "telegram_bot_token": lambda r: f"{r.randrange(10**9, 8 * 10**9)}:AA{rs(r, URLSAFE, 33)}",
    "vault_token": lambda r: "hvs." + rs(r, AN, 24) + rs(r, URLSAFE, 66),
    "sftp_lockbox_password": human_pw,
    "sim_puk_code": lambda r: str(r.randrange(10**7, 10**8)),
    "lims_shared_login_password": human_pw,
}

ST = [
    "PS-07 Lindenhof",
    "PS-12 Riverside",
    "Booster B4 Hillcrest",
    "WTW Ostbach",
    "Station de pompage Les Aulnes",
    "Estación de bombeo El Molino",
    "Reservoir R3 Kingsmoor",
    "Hochbehälter Eichberg",
]

# templates: {v} = value, {st} = station, {n} = small number, {d} = date
S = {
    "aws_secret_access_key": [
        "aws_access_key_id = AKIA{ak}\naws_secret_access_key = {v}",
        "handover: the telemetry-archive IAM user key is AKIA{ak} / {v}, bucket aquanord-scada-archive",
        "export AWS_SECRET_ACCESS_KEY={v}  # billing-etl prod, do not commit",
        "Für den S3-Export der Zählerdaten: AccessKey AKIA{ak}, SecretKey {v}",
    ],
    "github_pat": [
        "git clone https://{v}@github.com/aquanord/scada-historian-sync.git",
        "GH token for the release bot (repo+workflow scope): {v}",
        "Le jeton GitHub du pipeline firmware RTU : {v} — expire fin du mois",
        "GITHUB_TOKEN={v}",
    ],
    "github_fine_grained_pat": [
        "fine-grained PAT, read-only on aquanord/leak-analytics: {v}",
        "Note agent: used {v} to open the PR for the DMA dashboards",
        "Token de acceso (fine-grained) para el repo de facturación: {v}",
    ],
    "gitlab_pat": [
        "glab auth login --hostname gitlab.aquanord.net --token {v}",
        "GitLab PAT für Runner-Registrierung im Leitwarten-Netz: {v}",
        "CI_PUSH_TOKEN: {v}   # api scope, owner svc-gis-deploy",
        "ops memo: tokens GitLab -> {v} (projet mobile-crews)",
    ],
    "slack_bot_token": [
        "SLACK_BOT_TOKEN={v}",
        "alarm-relay bot posts with {v} into #scada-alarms",
        '{{"slack": {{"token": "{v}", "channel": "C04SCADA01"}}}}',
        "El bot de guardias usa el token {v}",
    ],
    "slack_webhook_url": [
        "curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"{st} pump trip\"}}' {v}",
        "webhook for #leak-detection: {v}",
        "alerting:\n  slack_url: {v}\n  min_severity: high",
        "Webhook Slack (canal astreinte) : {v}",
    ],
    "teams_webhook_url": [
        "Teams connector for Leitwarte channel: {v}",
        "TEAMS_ALARM_WEBHOOK={v}",
        "Le connecteur Teams des équipes terrain : {v}",
    ],
    "discord_webhook_url": [
        "the apprentices' Discord gets SCADA drill results via {v}",
        "DISCORD_WEBHOOK={v}",
        "webhook discord pruebas de telemetría: {v}",
    ],
    "stripe_secret_key": [
        "STRIPE_SECRET_KEY={v}",
        "online bill pay (portal.aquanord.co.uk) live key: {v}",
        'stripe.api_key = "{v}"',
        "Clave secreta de Stripe para el portal de pagos: {v}",
    ],
    "stripe_restricted_key": [
        "restricted key for the refunds job (charges:read, refunds:write): {v}",
        "payments:\n  stripe_restricted: {v}",
        "Eingeschränkter Stripe-Schlüssel für den Mahnlauf: {v}",
    ],
    "twilio_auth_token": [
        "TWILIO_ACCOUNT_SID=AC{sid}\nTWILIO_AUTH_TOKEN={v}",
        "boil-water notice SMS: Twilio AC{sid}, auth token {v}",
        "Twilio pour les SMS de coupure d'eau — token : {v}",
        'client = Client("AC{sid}", "{v}")',
    ],
    "sendgrid_api_key": [
        "SENDGRID_API_KEY={v}",
        "e-billing mails go out through SendGrid, key {v}",
        "Clé SendGrid (factures électroniques) : {v}",
    ],
    "azure_storage_connection_string": [
        "DefaultEndpointsProtocol=https;AccountName=aquanordtelemetry;AccountKey={v};EndpointSuffix=core.windows.net",
        'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=stamiraw;AccountKey={v};EndpointSuffix=core.windows.net"',
        "Speicherkonto für Logger-Rohdaten, AccountKey: {v}",
    ],
    "azure_ad_client_secret": [
        "app reg 'scada-reporting' client secret: {v}",
        "AZURE_CLIENT_SECRET={v}",
        "Secret del registro de aplicación para Power BI de facturación: {v}",
        '{{"tenant": "aquanord.onmicrosoft.com", "clientSecret": "{v}"}}',
    ],
    "postgres_url_password": [
        "DATABASE_URL=postgresql://billing_app:{v}@pg-billing-01.aquanord.local:5432/ccb",
        'psql "postgres://gis_editor:{v}@gisdb.internal/network"',
        "La base des interventions : postgres://crews:{v}@10.20.4.15/fieldops",
        "sqlalchemy.url = postgresql+psycopg2://leak:{v}@pg-leak/loggers",
    ],
    "mssql_historian_connection_string": [
        "Server=HIST01\\INSQL;Database=Runtime;User Id=histread;Password={v};",
        "Historian ODBC: UID=svc_reports;PWD={v};SERVER=wwhist02",
        "Verbindung zum Historian: Data Source=SQLHIST;Initial Catalog=Runtime;User ID=sa;Password={v}",
    ],
    "mongodb_uri_password": [
        "MONGO_URI=mongodb+srv://telemetry:{v}@cluster0.x7k2q.mongodb.net/ami",
        "mobile crew app stores forms in mongodb://formsapp:{v}@mongo-field:27017/forms",
        "Cadena Mongo de lecturas AMI: mongodb://lecturas:{v}@10.30.1.8/ami?authSource=admin",
    ],
    "redis_url_password": [
        "REDIS_URL=redis://:{v}@redis-alarms:6379/0",
        "cache for the outage map: rediss://default:{v}@cache.aquanord.net:6380",
        "Redis du portail client, mot de passe : {v}",
    ],
    "rsa_private_key": [
        "deploy key for the historian mirror:\n{v}",
        "Schlüssel für die HMI-Zertifikatskette (privat!):\n{v}",
        "tls:\n  key: |\n{v}",
    ],
    "openssh_private_key": [
        "jump host key (scada-dmz), paste into ~/.ssh/id_ed25519:\n{v}",
        "Clave SSH del servidor de telemetría:\n{v}",
        "cat > ~/.ssh/rtu_gw <<'K'\n{v}\nK",
    ],
    "scada_admin_password": [
        "Ignition gateway admin login: admin / {v}",
        "Wonderware InTouch Leitstand, Benutzer Administrator, Passwort {v}",
        "handover nuit : le mot de passe admin Geo SCADA est {v}",
        "Contraseña del administrador SCADA en {st}: {v}",
        "| system | user | password |\n| Ignition prod | admin | {v} |",
    ],
    "plc_project_password": [
        "Studio 5000 project protection password for {st}: {v}",
        "SPS-Projektpasswort (TIA Portal) Pumpwerk: {v}",
        "Modicon M580 — mot de passe de l'application : {v}",
        "the PLC know-how protection for the chlorine dosing is '{v}'",
    ],
    "dnp3_sav5_update_key": [
        "DNP3 SAv5 update key for outstation 14 ({st}): {v}",
        "rtu.conf: sav5_update_key = {v}",
        "Clé de mise à jour DNP3 pour la RTU du château d'eau : {v}",
        "Update-Key DNP3 Secure Auth, Station Ostbach: {v}",
    ],
    "hmi_operator_pin": [
        "operator PIN on the {st} HMI panel is {v}",
        "PIN Bedienpanel Filterhalle: {v}",
        "Le code opérateur de l'IHM du poste est {v}",
        "PIN del panel del operador: {v}",
    ],
    "pump_station_door_code": [
        "door keypad at {st}: {v} (alarm disarm same code)",
        "Türcode Pumpwerk: {v}",
        "code portail réservoir : {v}, ne pas partager avec les sous-traitants",
        "Código de la puerta de la estación: {v}",
    ],
    "ipsec_psk": [
        "IPsec tunnel telemetry-hub <-> {st}, PSK: {v}",
        "crypto isakmp key {v} address 10.77.0.1",
        "VPN-PSK für die Außenstationen: {v}",
        "clé pré-partagée VPN des sites distants : {v}",
    ],
    "depot_wifi_passphrase": [
        "Depot wifi (AQN-Depot-Crew) password: {v}",
        "WLAN im Betriebshof, Schlüssel: {v}",
        'wpa_passphrase="{v}"',
        "Clave wifi del almacén: {v}",
    ],
    "cellular_router_admin_password": [
        "Teltonika RUT955 at {st}: admin / {v}",
        "Digi router web UI password (all outstations): {v}",
        "Routeur 4G du surpresseur, admin : {v}",
        "Contraseña del router celular: {v}",
    ],
    "ami_headend_api_key": [
        "AMI head-end API key (meter reads export): {v}",
        "HES_API_KEY={v}",
        "curl -H 'X-Api-Key: {v}' https://hes.aquanord.net/api/v2/reads?date=2026-11-30",
        "Schlüssel für den Smart-Meter-Headend: {v}",
    ],
    "sap_rfc_password": [
        "SAP IS-U RFC user RFC_BILLING pw: {v}",
        "jco.client.passwd={v}",
        "Mot de passe du compte RFC facturation : {v}",
        "Passwort SAP-Schnittstellenbenutzer IDOC_ZAEHLER: {v}",
    ],
    "ldap_bind_password": [
        "ldap bind: cn=svc-scada,ou=service,dc=aquanord,dc=local / {v}",
        "bindPassword: {v}",
        "ldapsearch -x -D 'svc_crewapp@aquanord.local' -w '{v}' -H ldaps://dc01",
        "Cuenta de servicio LDAP del portal: contraseña {v}",
    ],
    "jwt_bearer_token": [
        "Authorization: Bearer {v}",
        "token from the crew-app login, still valid for 24h: {v}",
        'curl -H "Authorization: Bearer {v}" https://api.aquanord.net/workorders',
    ],
    "google_maps_api_key": [
        "GOOGLE_MAPS_API_KEY={v}  # server-side geocoding, unrestricted",
        "Clé Google Maps du backend de géocodage : {v}",
        "geocoder key for the burst-main locator: {v}",
    ],
    "openai_api_key": [
        "OPENAI_API_KEY={v}",
        "the complaint-triage prototype calls OpenAI with {v}",
        "Clave OpenAI para clasificar reclamaciones: {v}",
    ],
    "anthropic_api_key": [
        "ANTHROPIC_API_KEY={v}",
        "agent memory: report summariser uses key {v}",
        "API-Schlüssel für den Schichtbericht-Assistenten: {v}",
    ],
    "datadog_api_key": [
        "DD_API_KEY={v}",
        "datadog agent on hist01: api_key: {v}",
        "clé API Datadog (supervision des serveurs SCADA) : {v}",
    ],
    "npm_token": [
        "//registry.npmjs.org/:_authToken={v}",
        "NPM_TOKEN for publishing @aquanord/meter-ui: {v}",
        "token npm del paquete de la app de cuadrillas: {v}",
    ],
    "docker_hub_pat": [
        "docker login -u aquanordci -p {v}",
        "Docker Hub access token (push leak-ml images): {v}",
        "Jeton Docker Hub du CI : {v}",
    ],
    "mqtt_broker_password": [
        "mosquitto_pub -h mqtt.telemetry.local -u logger01 -P '{v}' -t dma/07/flow -m 12.4",
        "MQTT broker creds for noise loggers: gutermann / {v}",
        'mqtt:\n  username: rtu-gw\n  password: "{v}"',
        "Passwort MQTT-Broker Fernwirktechnik: {v}",
    ],
    "smtp_password": [
        "SMTP relay for alarm emails: alarms@aquanord.co.uk app password {v}",
        "EMAIL_HOST_PASSWORD={v}",
        "mot de passe d'application SMTP (notifications) : {v}",
    ],
    "mfa_recovery_codes": [
        "recovery codes for the shared scada-vendor portal account: {v}",
        "Backup-Codes für das Herstellerportal: {v}",
        "códigos de recuperación 2FA (cuenta compartida de guardia): {v}",
    ],
    "arcgis_api_key": [
        "ARCGIS_API_KEY={v}",
        "esri api key for the hydrant layer service: {v}",
        "Clé ArcGIS du portail réseau : {v}",
    ],
    "telegram_bot_token": [
        "telegram bot for night-shift alarms: {v}",
        "TELEGRAM_TOKEN={v}",
        "Token del bot de Telegram de guardias: {v}",
    ],
    "vault_token": [
        "VAULT_TOKEN={v}",
        "vault login {v}",
        "root-ish token from the unseal session yesterday: {v}",
    ],
    "sftp_lockbox_password": [
        "bank lockbox SFTP (payments file drop) user aqn_lockbox pw {v}",
        "sftp creds for the meter-read vendor drop: readsvc / {v}",
        "SFTP Bank-Rücklastschriften, Kennwort: {v}",
    ],
    "sim_puk_code": [
        "SIM PUK for the logger at {st}: {v}",
        "PUK der Telemetrie-SIM: {v}",
        "code PUK de la carte SIM du poste : {v}",
    ],
    "lims_shared_login_password": [
        "LIMS shared login (lab bench PC): labtech / {v}",
        "Contraseña compartida del LIMS del laboratorio: {v}",
        "Labor-LIMS Sammelkonto Probenahme, Passwort {v}",
    ],
}

S_EXTRA = {
    "github_fine_grained_pat": ["gh auth login --with-token <<< {v}"],
    "teams_webhook_url": ["Invoke-RestMethod -Method Post -Uri '{v}' -Body $alarmJson"],
    "discord_webhook_url": ['{{"webhook_url": "{v}", "username": "SCADA-Drill"}}'],
    "stripe_restricted_key": [
        "agent note: switched the reconciliation script to {v} (restricted, live)"
    ],
    "sendgrid_api_key": ["sg = SendGridAPIClient('{v}')"],
    "azure_storage_connection_string": [
        "az storage blob list --account-name aqnloggers --account-key {v} -c raw"
    ],
    "mssql_historian_connection_string": [
        "sqlcmd -S HIST01 -U histadmin -P '{v}' -Q \"select top 10 * from History\""
    ],
    "mongodb_uri_password": ['mongosh "mongodb://admin:{v}@10.30.1.8:27017/?authSource=admin"'],
    "redis_url_password": ["redis-cli -h redis-alarms -a {v} ping"],
    "jwt_bearer_token": ["Jeton d'accès du portail fournisseur (valide) : {v}"],
    "google_maps_api_key": [
        "https://maps.googleapis.com/maps/api/geocode/json?address=12+Elm+Rd&key={v}"
    ],
    "openai_api_key": ["llm:\n  provider: openai\n  api_key: {v}"],
    "anthropic_api_key": ['curl https://api.anthropic.com/v1/messages -H "x-api-key: {v}"'],
    "datadog_api_key": [
        "docker run -e DD_API_KEY={v} -e DD_SITE=datadoghq.eu gcr.io/datadoghq/agent:7"
    ],
    "npm_token": ["npm config set //npm.pkg.github.com/:_authToken {v}"],
    "docker_hub_pat": ["echo {v} | docker login --username aquanordci --password-stdin"],
    "smtp_password": [
        "smtp:\n  host: smtp.office365.com\n  user: noreply@aquanord.co.uk\n  pass: {v}"
    ],
    "telegram_bot_token": [
        "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001234 -d text='Niveau bas R3'"
    ],
    "sim_puk_code": ["PUK tarjeta SIM del caudalímetro: {v}"],
}

# ---------- benign ----------
B = {
    "aws_documented_example_key": (
        lambda r: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "docs use {v} as the sample key; real keys come from the vault",
            "test fixture: aws_access_key_id = {v}",
            "Beispielschlüssel aus der AWS-Doku: {v}",
        ],
    ),
    "placeholder_value": (
        lambda r: r.choice(
            [
                "<your-twilio-token>",
                "changeme",
                "xxxxxxxxxxxxxxxx",
                "REPLACE_ME",
                "<password>",
                "TODO",
            ]
        ),
        [
            "TWILIO_AUTH_TOKEN={v}",
            "in .env.example set SCADA_PASSWORD={v}",
            "Mot de passe : {v} (à remplir par l'installateur)",
            'password: "{v}"  # template only',
        ],
    ),
    "env_var_reference": (
        lambda r: r.choice(
            [
                "${STRIPE_SECRET_KEY}",
                "$HES_API_KEY",
                "%MQTT_PASSWORD%",
                "${{ secrets.GITLAB_TOKEN }}",
                "os.environ['SAP_RFC_PASSWORD']",
            ]
        ),
        [
            "the job reads the key from {v}",
            "password: {v}",
            "Das Passwort kommt aus {v}, nicht hardcoden",
            "token={v}",
        ],
    ),
    "vault_path": (
        lambda r: r.choice(
            [
                "secret/data/scada/ignition-admin",
                "kv/ops/telemetry/mqtt",
                "secret/billing/stripe/live",
                "kv/field/router-admin",
            ]
        ),
        [
            "admin creds live at {v} in Vault",
            "vault kv get {v}",
            "Le secret est dans Vault : {v}",
            "Ruta en Vault: {v}",
        ],
    ),
    "masked_secret": (
        lambda r: r.choice(
            [
                "sk_live_****************4f2a",
                "ghp_********************************9Xq1",
                "********",
                "xoxb-…-•••••",
                "AKIA************7Q2B",
            ]
        ),
        [
            "dashboard shows the key as {v}",
            "Stripe key (masked): {v}",
            "Anzeige im Portal: {v}",
            "clave mostrada: {v}",
        ],
    ),
    "redacted_log_line": (
        lambda r: r.choice(["[REDACTED]", "***redacted***", "<hidden>", "[FILTERED]"]),
        [
            "2026-11-30T02:14:09Z INFO hes-sync auth header=Bearer {v} status=200",
            "rfc login user=RFC_BILLING password={v}",
            "log: mqtt connect logger07 pass={v} ok",
            "journal : jeton={v} rejeté (401)",
        ],
    ),
    "revoked_key_note": (
        lambda r: "sk_live_51" + rs(r, AN, 30),
        [
            "REVOKED 2026-10-02: {v}… was rotated after the portal leak, no longer valid",
            "alter Schlüssel {v} ist widerrufen (Ticket INC0048812)",
            "clé {v} révoquée, remplacée dans Vault",
        ],
    ),
    "git_commit_sha": (
        lambda r: rs(r, HEX, 40),
        [
            "historian-sync fixed in {v}",
            "deploy pinned to commit {v}",
            "Fix des Alarm-Flatterns in Commit {v}",
            "revert {v} si la RTU ne répond plus",
        ],
    ),
    "firmware_sha256": (
        lambda r: rs(r, HEX, 64),
        [
            "RTU firmware 4.2.1 sha256: {v}",
            "sha256sum flowmeter_fw.bin -> {v}",
            "Prüfsumme (SHA-256) des SPS-Updates: {v}",
            "Hash SHA-256 del firmware del logger: {v}",
        ],
    ),
    "file_md5_checksum": (
        lambda r: rs(r, HEX, 32),
        [
            "md5 of the nightly billing extract: {v}",
            "MD5 (readings_20261130.csv) = {v}",
            "empreinte md5 du fichier de relève : {v}",
        ],
    ),
    "asset_uuid": (
        lambda r: uuid4(r),
        [
            "pump asset {v} replaced impeller",
            "asset_id: {v}",
            "Anlagen-ID im Instandhaltungssystem: {v}",
            "ID del activo (válvula reductora): {v}",
        ],
    ),
    "stripe_publishable_key": (
        lambda r: "pk_live_51" + rs(r, AN, 97),
        [
            "frontend bill-pay widget uses publishable key {v}",
            "NEXT_PUBLIC_STRIPE_KEY={v}",
            "clé publique Stripe (côté navigateur) : {v}",
        ],
    ),
    "stripe_test_card_number": (
        lambda r: r.choice(["4242 4242 4242 4242", "4000 0025 0000 3155", "5555555555554444"]),
        [
            "QA: pay a test bill with card {v}, any CVC",
            "Testkarte für den Bezahl-Flow: {v}",
            "tarjeta de prueba de Stripe: {v}",
        ],
    ),
    "recaptcha_site_key": (
        lambda r: "6L" + rs(r, URLSAFE, 38),
        [
            "recaptcha site key on the leak-report form: {v}",
            'data-sitekey="{v}"',
            "clé de site reCAPTCHA (publique) : {v}",
        ],
    ),
    "ssh_public_key": (
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, B64, 43) + " ops@scada-jump",
        [
            "add to authorized_keys on rtu-gw: {v}",
            "Öffentlicher Schlüssel des Leitstands: {v}",
            "clave pública para el servidor de telemetría: {v}",
        ],
    ),
    "x509_certificate": (
        lambda r: (
            "-----BEGIN CERTIFICATE-----\nMIID"
            + rs(r, B64, 60)
            + "\n"
            + pem_body(r, 4)
            + "\n-----END CERTIFICATE-----"
        ),
        [
            "OPC UA server cert (public) for the historian:\n{v}",
            "ca.crt der Fernwirk-PKI:\n{v}",
            "certificat public du portail client :\n{v}",
        ],
    ),
    "certificate_fingerprint": (
        lambda r: ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(20)),
        [
            "OPC UA client cert thumbprint {v} trusted on HIST01",
            "SHA1 Fingerprint={v}",
            "Fingerabdruck des Zertifikats: {v}",
        ],
    ),
    "twilio_account_sid": (
        lambda r: "AC" + rs(r, HEX, 32),
        [
            "Twilio account SID (not secret) {v}",
            "account_sid: {v}",
            "SID de cuenta Twilio: {v}",
        ],
    ),
    "aws_arn_account_id": (
        lambda r: f"arn:aws:s3:::aquanord-scada-archive-{r.randrange(10**11, 10**12)}",
        [
            "bucket {v} has object lock on",
            'Resource: "{v}/*"',
            "Ressource S3 : {v}",
        ],
    ),
    "azure_tenant_id": (
        lambda r: uuid4(r),
        [
            "AZURE_TENANT_ID={v}",
            "tenant id for aquanord.onmicrosoft.com: {v}",
            "ID del inquilino de Azure: {v}",
        ],
    ),
    "customer_account_number": (
        lambda r: f"{r.randrange(10**9, 10**10)}",
        [
            "customer account {v} disputes the November estimate",
            "Kundennummer {v}: Ratenplan vereinbart",
            "n° de compte client {v} — relance envoyée",
            "cuenta de cliente {v}, lectura estimada",
        ],
    ),
    "water_meter_serial": (
        lambda r: f"{r.choice(['KAM', 'ITR', 'SEN', 'DIE'])}{r.randrange(10**7, 10**8)}",
        [
            "meter serial {v} swapped, old read 04512 m3",
            "Zählernummer {v} getauscht",
            "compteur n° {v} posé le 12/11",
            "número de contador {v}",
        ],
    ),
    "ami_endpoint_id": (
        lambda r: f"ERT-{r.randrange(10**8, 10**9)}",
        [
            "AMI endpoint {v} dropped off the network",
            "endpoint_id={v} last_read=2026-12-01T00:00Z",
            "Funkmodul {v} ohne Empfang",
        ],
    ),
    "scada_tag_name": (
        lambda r: (
            f"{r.choice(['PS07', 'PS12', 'BST04', 'RES03'])}.{r.choice(['P1', 'P2', 'LT01', 'FT02'])}.{r.choice(['RUN', 'FLT', 'PV', 'SP_HI'])}"
        ),
        [
            "alarm on tag {v} chattering since 03:10",
            "Tag {v} im Historian nicht archiviert",
            "la variable {v} remonte une valeur figée",
            "etiqueta SCADA {v} sin datos",
        ],
    ),
    "plc_ip_modbus_register": (
        lambda r: (
            f"10.{r.randrange(10, 60)}.{r.randrange(0, 255)}.{r.randrange(2, 250)}:502 HR{r.randrange(40001, 40999)}"
        ),
        [
            "flow total is at {v}",
            "Modbus: {v} (Durchfluss, float32)",
            "registre Modbus {v} à vérifier",
        ],
    ),
    "work_order_number": (
        lambda r: f"WO-{r.randrange(2025, 2027)}-{r.randrange(10**5, 10**6)}",
        [
            "crew B closed {v} (burst main, Elm Rd)",
            "Auftrag {v}: Hydrant undicht",
            "ordre de travail {v} planifié jeudi",
            "orden de trabajo {v} pendiente",
        ],
    ),
    "gis_asset_id": (
        lambda r: f"{r.choice(['HYD', 'VLV', 'MN', 'PRV'])}-{r.randrange(10**4, 10**6)}",
        [
            "GIS feature {v} mislocated by 30 m",
            "Schieber {v} in der GIS-Karte falsch",
            "borne {v} à déplacer dans le SIG",
            "activo GIS {v} actualizado",
        ],
    ),
    "published_iban": (
        lambda r: r.choice(
            [
                "DE89 3704 0044 0532 0130 00",
                "GB33 BUKB 2020 1555 5555 55",
                "FR14 2004 1010 0505 0001 3M02 606",
            ]
        ),
        [
            "bank details printed on every bill: {v}",
            "IBAN auf der Rechnung: {v}",
            "IBAN publié sur les factures : {v}",
        ],
    ),
    "invoice_number": (
        lambda r: f"INV-{r.randrange(10**7, 10**8)}",
        [
            "credit note against {v}",
            "Rechnung {v} storniert",
            "factura {v} reenviada al cliente",
        ],
    ),
    "incident_ticket": (
        lambda r: f"INC{r.randrange(10**6, 10**7)}",
        [
            "raised {v} for the historian outage",
            "Störung {v} an den Hersteller eskaliert",
            "ticket {v} : perte de télémétrie",
            "incidencia {v} cerrada",
        ],
    ),
    "firmware_version": (
        lambda r: (
            f"v{r.randrange(1, 9)}.{r.randrange(0, 20)}.{r.randrange(0, 99)}-build{r.randrange(1000, 9999)}"
        ),
        [
            "RTUs upgraded to {v}",
            "Firmware-Stand {v} auf allen Loggern",
            "versión de firmware {v}",
        ],
    ),
    "container_image_digest": (
        lambda r: "sha256:" + rs(r, HEX, 64),
        [
            "image ghcr.io/aquanord/leak-ml@{v}",
            "digest: {v}",
            "Image-Digest für das Rollback: {v}",
        ],
    ),
    "mac_address": (
        lambda r: ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(6)),
        [
            "PLC at {st} has MAC {v}",
            "MAC-Adresse Router: {v}",
            "dirección MAC de la RTU: {v}",
        ],
    ),
    "sim_iccid_imei": (
        lambda r: "8944" + str(r.randrange(10**15, 10**16)),
        [
            "telemetry SIM ICCID {v} moved to the new APN",
            "ICCID der Logger-SIM: {v}",
            "ICCID de la SIM du poste : {v}",
        ],
    ),
    "dma_code": (
        lambda r: f"DMA-{r.choice(['N', 'S', 'E', 'W'])}{r.randrange(10, 99)}",
        [
            "night flow in {v} up 18% — likely leak",
            "Zone {v}: Mindestnachtverbrauch gestiegen",
            "secteur {v} en recherche de fuite",
        ],
    ),
    "leak_logger_id": (
        lambda r: f"NL-{r.randrange(100000, 999999)}",
        [
            "noise logger {v} correlates with {st}",
            "Geräuschlogger {v} zeigt Leckverdacht",
            "registrador de ruido {v} recuperado",
        ],
    ),
    "password_policy_text": (
        lambda r: r.choice(
            [
                "min 14 chars, no reuse of last 12",
                "rotate every 90 days and never share the HMI PIN",
                "must contain upper, lower, digit and symbol",
            ]
        ),
        [
            "policy for SCADA accounts: {v}",
            "Passwortrichtlinie: {v}",
            "politique : {v}",
        ],
    ),
    "lab_sample_id": (
        lambda r: f"LAB-{r.randrange(2025, 2027)}-{r.randrange(10**4, 10**5)}",
        [
            "coliform retest on sample {v}",
            "Probe {v}: Trübung 0,3 NTU",
            "muestra {v} cloro libre 0,5 mg/l",
        ],
    ),
    "ga_measurement_id": (
        lambda r: "G-" + rs(r, UPD, 10),
        [
            "portal analytics id {v}",
            "gtag('config', '{v}');",
            "identifiant Google Analytics : {v}",
        ],
    ),
    "slack_channel_id": (
        lambda r: "C0" + rs(r, UPD, 9),
        [
            "post alarms into channel {v}",
            "channel_id: {v}",
            "Kanal-ID für Bereitschaft: {v}",
        ],
    ),
    "ci_run_id": (
        lambda r: str(r.randrange(10**9, 10**10)),
        [
            "see GitHub Actions run {v} for the failed tests",
            "pipeline #{v} deployed the crew app",
            "Pipeline-Lauf {v} fehlgeschlagen",
        ],
    ),
    "oauth_client_id": (
        lambda r: uuid4(r),
        [
            "AZURE_CLIENT_ID={v}",
            "client id of the crew app registration: {v}",
            "ID de cliente OAuth: {v}",
        ],
    ),
    "jwt_io_example_token": (
        lambda r: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "unit test uses the jwt.io sample token {v}",
            "Beispiel-JWT aus der Doku: {v}",
            "token de ejemplo (jwt.io): {v}",
        ],
    ),
    "bcrypt_password_hash": (
        lambda r: "$2b$12$" + rs(r, AN + "./", 53),
        [
            "seed user admin hash: {v}",
            "password_hash = '{v}'",
            "Hash im Benutzer-Export: {v}",
        ],
    ),
    "pump_curve_coefficients": (
        lambda r: (
            f"H = {r.randrange(40, 90)}.{r.randrange(0, 99)} - {r.randrange(1, 9)}.{r.randrange(100, 999)}e-4*Q^2"
        ),
        [
            "pump curve for P2 at {st}: {v}",
            "Kennlinie Pumpe 1: {v}",
            "courbe de la pompe : {v}",
        ],
    ),
    "fleet_vehicle_registration": (
        lambda r: f"{rs(r, UP, 2)}{r.randrange(10, 75)} {rs(r, UP, 3)}",
        [
            "van {v} has the leak-detection kit",
            "Einsatzfahrzeug {v} in der Werkstatt",
            "véhicule {v} affecté à l'équipe nord",
        ],
    ),
    "dnp3_outstation_address": (
        lambda r: str(r.randrange(1, 65519)),
        [
            "DNP3 outstation address for {st} is {v}, master 1",
            "outstation_addr: {v}",
            "DNP3-Stationsadresse {v}",
        ],
    ),
    "k8s_secret_key_ref": (
        lambda r: r.choice(["hes-api-credentials", "stripe-live", "scada-db-password"]),
        [
            "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: token",
            "kubectl get secret {v} -n billing (name only)",
            "el secreto de Kubernetes se llama {v}",
        ],
    ),
    "npm_integrity_hash": (
        lambda r: "sha512-" + rs(r, B64, 86) + "==",
        [
            '"integrity": "{v}"',
            "lockfile integrity for leaflet: {v}",
            "Integritäts-Hash im Lockfile: {v}",
        ],
    ),
    "purchase_order_number": (
        lambda r: f"PO{r.randrange(4500000000, 4599999999)}",
        [
            "spare impellers ordered on {v}",
            "Bestellung {v} für Ersatzpumpen",
            "bon de commande {v} — vannes DN200",
        ],
    ),
    "sap_business_partner": (
        lambda r: str(r.randrange(10**9, 2 * 10**9)),
        [
            "SAP business partner {v} merged with duplicate",
            "Geschäftspartner {v} gesperrt wegen Umzug",
            "interlocuteur SAP {v}",
        ],
    ),
    "wifi_ssid_name": (
        lambda r: r.choice(["AQN-Depot-Crew", "AQN-Guest", "WTW-Ostbach-OT"]),
        [
            "crews connect to SSID {v} (password in the vault)",
            "WLAN-Name: {v}",
            "red wifi: {v}",
        ],
    ),
}


B_EXTRA = {
    "aws_documented_example_key": ["env.example: AWS_SECRET_ACCESS_KEY={v}"],
    "revoked_key_note": ["note: {v} disabled in Stripe dashboard on 2026-11-14, do not reuse"],
    "file_md5_checksum": ["Prüfsumme MD5 der Zählerdatei: {v}"],
    "stripe_publishable_key": ["<script>Stripe('{v}')</script>"],
    "stripe_test_card_number": ["tarjeta de test {v} — modo sandbox, nada real"],
    "recaptcha_site_key": ["RECAPTCHA_SITE_KEY={v}"],
    "ssh_public_key": ["~/.ssh/id_ed25519.pub on the jump host: {v}"],
    "x509_certificate": ["curl --cacert ca.pem (contents below, public):\n{v}"],
    "certificate_fingerprint": ["empreinte SHA1 du certificat OPC UA : {v}"],
    "twilio_account_sid": ["SMS logs filtered by AccountSid={v}"],
    "aws_arn_account_id": ["IAM policy targets {v}"],
    "azure_tenant_id": ["ID du locataire Azure : {v}"],
    "ami_endpoint_id": ["módulo AMI {v} sin comunicación"],
    "invoice_number": ["invoice {v} paid by direct debit"],
    "firmware_version": ["version du firmware RTU : {v}"],
    "container_image_digest": ["kubectl set image deploy/hes-sync app=registry/hes-sync@{v}"],
    "mac_address": ["adresse MAC du routeur 4G : {v}"],
    "sim_iccid_imei": ["SIM ICCID {v} (logger NL-4471)"],
    "dma_code": ["sector {v}: caudal nocturno alto"],
    "leak_logger_id": ["logger {v} battery at 12%"],
}


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []

    def ctx():
        return {
            "st": rng.choice(ST),
            "ak": rs(rng, UPD, 16),
            "sid": rs(rng, HEX, 32),
        }

    for kind, templates in S.items():
        gen = G[kind]
        for t in templates + S_EXTRA.get(kind, []):
            v = gen(rng)
            c = ctx()
            text = t.format(v=v, **c)
            rows.append({"label": "secret", "kind": kind, "text": text, "value": v})
    for kind, (gen, templates) in B.items():
        for t in templates + B_EXTRA.get(kind, []):
            v = gen(rng)
            c = ctx()
            text = t.format(v=v, **c)
            rows.append({"label": "benign", "kind": kind, "text": text, "value": v})
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

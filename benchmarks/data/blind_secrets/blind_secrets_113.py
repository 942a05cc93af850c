# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 113: car dealership group (DMS, OEM portals, workshop diagnostics, key cabinets, finance partners).

Brief: memory notes that a multi-brand car dealership group's team and its AI coding
agents would keep: dealer management system (DMS) logins and API credentials, manufacturer
dealer portals, workshop diagnostic testers, key cabinets, finance and credit partners,
payment and messaging providers, site devices (alarm, gates, safes, NVR, wallboxes) and the
generic developer stack. Rows are prose, handovers, chat, commands, .env, YAML, JSON, URLs,
tables and log lines in English, German, French and Spanish. Secrets are live credentials;
benign rows are look-alikes a careful reader would store (VINs, RO numbers, dealer codes,
part numbers, hashes, public keys, placeholders, masked and revoked values, references).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_113.py [out.jsonl]

Kinds, secret: dms_password, dms_api_client_secret, oem_portal_password, diag_account_password,
diag_tester_pin, key_cabinet_admin_pin, key_cabinet_api_token, immobilizer_pin,
finance_partner_api_key, finance_portal_password, credit_bureau_password, stripe_secret_key,
stripe_webhook_secret, adyen_api_key, twilio_auth_token, sendgrid_api_key,
aws_secret_access_key, github_pat, gitlab_pat, slack_webhook_url, slack_bot_token,
teams_webhook_url, postgres_url, mssql_connection_string, redis_url, rsa_private_key,
openssh_private_key, google_api_key, openai_api_key, azure_storage_key, jwt_signing_secret,
bearer_jwt, wifi_psk, alarm_code, gate_access_code, safe_combination, sip_password,
marketplace_password, datadog_api_key, npm_token, docker_pat, totp_seed, recovery_codes,
sftp_password, smtp_password, hubspot_token, mailchimp_api_key, wallbox_ocpp_password,
nvr_admin_password, vpn_psk.

Kinds, benign: vin, stock_number, repair_order_number, dealer_code, part_number,
labor_op_code, dtc_code, license_plate, invoice_number, finance_deal_number,
customer_number, warranty_claim_number, recall_campaign_code, key_tag_number,
key_cabinet_serial, diag_tester_serial, ecu_software_version, app_build_version,
git_commit_sha, sha256_digest, bcrypt_hash, ssh_public_key, x509_certificate,
stripe_publishable_key, recaptcha_site_key, documented_example_key, twilio_account_sid,
stripe_object_id, adyen_psp_reference, oauth_client_id, env_var_reference, vault_path,
placeholder, masked_secret, redacted_value, revoked_key, password_policy, tenant_uuid,
iban, vat_id, ip_address, mac_address, ticket_reference, workshop_booking_ref,
docker_image_digest, npm_integrity, aws_arn, ga_measurement_id, slack_channel_id,
webhook_endpoint_url, paint_code, tire_size, phone_number, email_address, odometer_reading,
correlation_id.
"""

import json
import random
import re
import string
import sys

SEED = 22744

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
VINCH = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
B32 = UP + "234567"


def rs(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


WORDS = [
    "Autohaus",
    "Werkstatt",
    "Golf",
    "Passat",
    "Tiguan",
    "Octavia",
    "Corsa",
    "Astra",
    "Clio",
    "Megane",
    "Ibiza",
    "Leon",
    "Fabia",
    "Polo",
    "Service",
    "Garage",
    "Taller",
    "Atelier",
    "Sommer",
    "Winter",
    "Bremen",
    "Lyon",
    "Sevilla",
    "Ranger",
    "Transit",
    "Yaris",
    "Corolla",
    "Kundendienst",
    "Hebebuehne",
    "Reifen",
    "Zafira",
    "Kadjar",
    "Arona",
    "Karoq",
    "Ateca",
]
SYMS = "!#$%&*?@+-"


def pw(r):
    w = r.choice(WORDS)
    w2 = r.choice(WORDS)
    y = str(r.randint(2015, 2026))
    p = r.randint(0, 5)
    if p == 0:
        return w + y + r.choice(SYMS)
    if p == 1:
        return r.choice(SYMS) + w + str(r.randint(10, 99))
    if p == 2:
        return w + "-" + w2 + str(r.randint(1, 99))
    if p == 3:
        return w.lower() + "_" + str(r.randint(100, 9999)) + r.choice(SYMS)
    if p == 4:
        return w.replace("a", "@").replace("e", "3").replace("o", "0") + y[-2:] + r.choice(SYMS)
    return w[:4] + r.choice(SYMS) + w2.lower() + y


def uuid(r):
    h = rs(r, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:32]}"


def vin(r):
    return r.choice(
        ["WVW", "WBA", "VF1", "VSS", "TMB", "WDD", "ZFA", "SJN", "WF0", "JTD", "VF3", "W0L"]
    ) + rs(r, VINCH, 14)


def pem(r, head, lines=8):
    body = "\n".join(rs(r, B64, 64) for _ in range(lines)) + "\n" + rs(r, B64, 40) + "=="
    return f"-----BEGIN {head}-----\n{body}\n-----END {head}-----"


NAMES = [
    "Jens",
    "Sabine",
    "Mehmet",
    "Claire",
    "Julien",
    "Lucía",
    "Javier",
    "Tom",
    "Priya",
    "Anke",
    "Marco",
    "Sophie",
    "Óscar",
    "Katrin",
]
SITES = [
    "Autohaus Brandt Bremen",
    "Brandt Oldenburg",
    "Garage du Parc Lyon",
    "Concesionario Sevilla Norte",
    "Brandt Nutzfahrzeuge",
    "Autozentrum Delmenhorst",
]
HOSTS = [
    "dms01.brandt.local",
    "sql-dms.brandt-gruppe.de",
    "db-prod-1.internal",
    "10.20.4.15",
    "pg.workshop.brandt.local",
    "finance-gw.brandt.local",
]


def ctx(r):
    return {
        "name": r.choice(NAMES),
        "site": r.choice(SITES),
        "host": r.choice(HOSTS),
        "date": f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}",
        "vin": vin(r),
        "ro": f"RO-{r.randint(100000, 999999)}",
        "n": str(r.randint(2, 9)),
    }


def fill(t, d):
    return re.sub(r"\{(\w+)\}", lambda m: d[m.group(1)] if m.group(1) in d else m.group(0), t)


# ---------------------------------------------------------------- secrets
SECRETS = [
    (
        "dms_password",
        pw,
        [
            "DMS login for the parts counter at {site}: user PARTS02 / {v}",
            "Handover {date}: CDK Drive password for the service advisors was reset to {v}, tell {name}.",
            "DMS_PASSWORD={v}",
            "Autoline-Zugang Werkstatt: Benutzer werkstatt1, Passwort {v} (nicht weitergeben)",
            'dms:\n  host: {host}\n  user: svc_export\n  password: "{v}"',
        ],
    ),
    (
        "dms_api_client_secret",
        lambda r: rs(r, AN, 32),
        [
            "Fortellis app 'Brandt Service Sync' client secret: {v}",
            "FORTELLIS_CLIENT_SECRET={v}",
            "curl -u 3f9a8c21-ds-sync:{v} https://identity.fortellis.io/oauth2/aus1p1ixy7YL8cMq02p7/v1/token -d grant_type=client_credentials",
            '{"dms": {"provider": "cdk", "client_secret": "{v}"}}',
        ],
    ),
    (
        "oem_portal_password",
        pw,
        [
            "partner.net login for {name} (Serviceleitung): Passwort {v}",
            "Toyota Dealer Daily shared account — password is {v}, we rotate in January",
            "Mot de passe portail constructeur (Renault DealerConnect) pour l'atelier: {v}",
            "| portal | user | password |\n|---|---|---|\n| BMW ASAP | brandt_sales | {v} |",
            "Contraseña del portal de Seat/Cupra para garantías: {v} — no compartir por WhatsApp",
        ],
    ),
    (
        "diag_account_password",
        pw,
        [
            "GeKo-Konto von {name} für ODIS-Online: Passwort {v}",
            "ISTA login on the workshop laptop WS-07: b.werkstatt / {v}",
            "Diagbox (Stellantis) account password for the Lyon bay: {v}",
            "Clip/Renault diag: le mot de passe du compte atelier est {v}",
        ],
    ),
    (
        "diag_tester_pin",
        lambda r: rs(r, DG, 6),
        [
            "VAS 6150 tester unlock PIN: {v}",
            "PIN für das Diagnosegerät in Halle 2 ist {v}",
            "El PIN del equipo de diagnosis del taller es {v}, cambiarlo si se va algún técnico",
            'diag_tester:\n  serial: VAS6160C-004511\n  admin_pin: "{v}"',
        ],
    ),
    (
        "key_cabinet_admin_pin",
        lambda r: rs(r, DG, r.choice([4, 5, 6])),
        [
            "KeyTrak admin PIN at {site}: {v}",
            "Schlüsselschrank Annahme: Admin-PIN {v} (nur Serviceleitung)",
            "Traka master code for the used-car key cabinet is {v}",
            "Code admin de l'armoire à clés (Traka) : {v}",
            "[{date} 08:12] {name}: armario de llaves, PIN de administrador {v} 👍",
        ],
    ),
    (
        "key_cabinet_api_token",
        lambda r: rs(r, HEX, 40),
        [
            "Key cabinet cloud API token (Traka Web): {v}",
            "KEYCAB_API_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://keys.brandt.local/api/v2/events?since={date}",
        ],
    ),
    (
        "immobilizer_pin",
        lambda r: rs(r, DG, r.choice([4, 5])),
        [
            "SKC / Wegfahrsperren-PIN for VIN {vin}: {v} — delete after key programming",
            "Immo PIN from the OEM portal for the lost-key job {ro}: {v}",
            "Code PIN antidémarrage pour {vin} reçu du constructeur : {v}",
            "PIN inmovilizador {vin}: {v} (pedido por garantía, borrar después)",
        ],
    ),
    (
        "finance_partner_api_key",
        lambda r: rs(r, AN, 40),
        [
            "Dealertrack credit app API key (production): {v}",
            "BANK_API_KEY={v}  # Santander Consumer dealer integration",
            "finance:\n  partner: routeone\n  api_key: {v}",
            "X-Api-Key: {v}",
            "Clé API partenaire financement (DIAC) en prod : {v}",
        ],
    ),
    (
        "finance_portal_password",
        pw,
        [
            "Login Händlerportal Bank (Finanzierungsanträge): brandt-vk / {v}",
            "F&I manager shared login for the lender portal: fi.bremen@brandt-gruppe.de / {v}",
            "Contraseña del portal de la financiera para {name}: {v}",
        ],
    ),
    (
        "credit_bureau_password",
        pw,
        [
            "Schufa-Abfrage Benutzer 0815-BR, Passwort {v}",
            "Experian subscriber password for soft pulls: {v} (expires every 90 days)",
            "Mot de passe Banque de France / FICP consultation : {v}",
        ],
    ),
    (
        "stripe_secret_key",
        lambda r: "sk_live_51" + rs(r, AN, 96),
        [
            "STRIPE_SECRET_KEY={v}",
            "Stripe live key for the online deposit page: {v}",
            'stripe.api_key = "{v}"',
            "Clave secreta de Stripe para reservas online: {v}",
        ],
    ),
    (
        "stripe_webhook_secret",
        lambda r: "whsec_" + rs(r, AN, 32),
        [
            "STRIPE_WEBHOOK_SECRET={v}",
            "Signing secret of the /webhooks/stripe endpoint (deposits): {v}",
            "Webhook-Signatur-Secret Stripe für die Anzahlungen: {v}",
        ],
    ),
    (
        "adyen_api_key",
        lambda r: (
            "AQE"
            + rs(r, AN, 5)
            + "K"
            + rs(r, AN, 20)
            + "=-"
            + rs(r, B64, 43)
            + "=-"
            + rs(r, AN, 10)
        ),
        [
            "Adyen live API key for the workshop terminals: {v}",
            "ADYEN_API_KEY={v}",
            'adyen:\n  merchantAccount: BrandtGruppeECOM\n  apiKey: "{v}"',
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: rs(r, HEX, 32),
        [
            "Twilio auth token (SMS 'your car is ready'): {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "client = Client('AC' + sid, '{v}')",
            "Token Twilio pour les SMS de l'atelier : {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: "SG." + rs(r, AN + "-_", 22) + "." + rs(r, AN + "-_", 43),
        [
            "SENDGRID_API_KEY={v}",
            "SendGrid key for service reminder mails: {v}",
            "SendGrid-Key für die HU/AU-Erinnerungen: {v}",
        ],
    ),
    (
        "aws_secret_access_key",
        lambda r: rs(r, B64, 40),
        [
            "aws_access_key_id = AKIA" + "Q4XN7ZP2RB6KWM3T\naws_secret_access_key = {v}",
            "AWS_SECRET_ACCESS_KEY={v}",
            "S3 backup user for DMS exports — secret key {v}",
            "aws configure set aws_secret_access_key {v} --profile dms-backup",
        ],
    ),
    (
        "github_pat",
        lambda r: "ghp_" + rs(r, AN, 36),
        [
            "GitHub token for the CI deploy of the stock feed: {v}",
            "git clone https://brandt-bot:{v}@github.com/brandt-gruppe/stock-feed.git",
            "GH_TOKEN={v}",
            "Token GitHub del bot de inventario: {v}",
        ],
    ),
    (
        "gitlab_pat",
        lambda r: "glpat-" + rs(r, AN + "-_", 20),
        [
            "GITLAB_TOKEN={v}",
            "GitLab PAT (api scope) for the dms-connector repo: {v}",
            "Persönlicher GitLab-Token von {name}: {v}",
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: (
            "https://hooks.slack.com/services/T"
            + rs(r, UP + DG, 10)
            + "/B"
            + rs(r, UP + DG, 10)
            + "/"
            + rs(r, AN, 24)
        ),
        [
            "SLACK_WEBHOOK={v}",
            "Post new leads to #sales-bremen via {v}",
            'curl -X POST -d \'{"text":"Key cabinet door open > 5 min"}\' {v}',
            "alerting:\n  slack_url: {v}",
        ],
    ),
    (
        "slack_bot_token",
        lambda r: "xoxb-" + rs(r, DG, 12) + "-" + rs(r, DG, 13) + "-" + rs(r, AN, 24),
        [
            "SLACK_BOT_TOKEN={v}",
            "Bot token of 'werkstatt-bot': {v}",
            "Le token du bot Slack atelier : {v}",
        ],
    ),
    (
        "teams_webhook_url",
        lambda r: (
            "https://brandtgruppe.webhook.office.com/webhookb2/"
            + uuid(r)
            + "@"
            + uuid(r)
            + "/IncomingWebhook/"
            + rs(r, HEX, 32)
            + "/"
            + uuid(r)
            + "/V2"
            + rs(r, AN + "-_", 43)
        ),
        [
            "Teams-Webhook Kanal 'Gebrauchtwagen': {v}",
            "TEAMS_WEBHOOK_URL={v}",
            "Workshop delay alerts go to Teams: {v}",
        ],
    ),
    (
        "postgres_url",
        lambda r: f"postgresql://leadsvc:{pw(r)}@{r.choice(HOSTS)}:5432/leads",
        [
            "DATABASE_URL={v}",
            "Leads DB (prod): {v}",
            "psql '{v}' -c 'select count(*) from test_drives'",
            'SQLALCHEMY_DATABASE_URI = "{v}"',
        ],
    ),
    (
        "mssql_connection_string",
        lambda r: (
            f"Server=tcp:{r.choice(HOSTS)},1433;Database=DMS_REPORTING;User Id=rpt_reader;Password={pw(r)};Encrypt=True"
        ),
        [
            "ConnectionStrings__Dms={v}",
            '"DmsReporting": "{v}"',
            "Reporting-Verbindung (Power BI Gateway): {v}",
            "Cadena de conexión del DMS para informes: {v}",
        ],
    ),
    (
        "redis_url",
        lambda r: f"redis://:{rs(r, AN, 24)}@cache.brandt.local:6379/2",
        [
            "REDIS_URL={v}",
            "Session cache for the configurator: {v}",
            "cache:\n  url: {v}",
        ],
    ),
    (
        "rsa_private_key",
        lambda r: pem(r, "RSA PRIVATE KEY"),
        [
            "Private key for the OEM order interface (mTLS client cert):\n{v}",
            "oem_client.key\n{v}",
            "Clé privée SFTP DIAC, à ne pas committer :\n{v}",
        ],
    ),
    (
        "openssh_private_key",
        lambda r: pem(r, "OPENSSH PRIVATE KEY", 5),
        [
            "Deploy key for the DMS export box (~/.ssh/id_ed25519):\n{v}",
            "SSH-Key für den Bank-SFTP:\n{v}",
        ],
    ),
    (
        "google_api_key",
        lambda r: "AIza" + rs(r, AN + "-_", 35),
        [
            "Server-side Geocoding key (restricted to the backend IP): {v}",
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "Google Places API key used by the lead importer: {v}",
        ],
    ),
    (
        "openai_api_key",
        lambda r: "sk-proj-" + rs(r, AN + "-_", 74) + "T3BlbkFJ" + rs(r, AN + "-_", 74),
        [
            "OPENAI_API_KEY={v}",
            "Key for the service-advisor summary agent: {v}",
            "OpenAI-Schlüssel für die Werkstattberichte: {v}",
        ],
    ),
    (
        "azure_storage_key",
        lambda r: rs(r, B64, 86) + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=brandtdmsarchive;AccountKey={v};EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY={v}",
            "Storage key (photos of trade-ins): {v}",
        ],
    ),
    (
        "jwt_signing_secret",
        lambda r: rs(r, AN, 48),
        [
            "JWT_SECRET={v}",
            "HS256 signing secret of the customer portal: {v}",
            'auth:\n  jwt_secret: "{v}"\n  ttl: 3600',
        ],
    ),
    (
        "bearer_jwt",
        lambda r: (
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9."
            + rs(r, AN + "-_", 120)
            + "."
            + rs(r, AN + "-_", 86)
        ),
        [
            "Authorization: Bearer {v}",
            "Token from the OEM parts API that still works until tonight: {v}",
            "[{date} 14:02:11] DEBUG oem-client request headers={'Authorization': 'Bearer {v}'}",
        ],
    ),
    (
        "wifi_psk",
        pw,
        [
            "WLAN Werkstatt (SSID Brandt-Workshop): Schlüssel {v}",
            "Wi-Fi for the diag testers in bay 3: Brandt-Diag / {v}",
            "Wifi clientes sala de exposición: contraseña {v}",
            "WPA2 atelier Lyon : {v}",
        ],
    ),
    (
        "alarm_code",
        lambda r: rs(r, DG, 4),
        [
            "Alarmanlage Showroom: Code {v}, Scharfschalten mit #",
            "Alarm code for the body shop building: {v}",
            "Code alarme concession (fermeture le samedi) : {v}",
            "Código de la alarma del taller: {v}",
        ],
    ),
    (
        "gate_access_code",
        lambda r: rs(r, DG, r.choice([4, 6])) + r.choice(["", "#"]),
        [
            "Gate code for the night key drop / rear yard: {v}",
            "Tor Gebrauchtwagenplatz: {v}",
            "Code portail parking VO : {v}",
        ],
    ),
    (
        "safe_combination",
        lambda r: f"{r.randint(10, 99)}-{r.randint(10, 99)}-{r.randint(10, 99)}",
        [
            "Tresor Kasse (Barzahlungen): Kombination {v}",
            "Cashier safe combination: {v}",
            "Combinación de la caja fuerte de recepción: {v}",
        ],
    ),
    (
        "sip_password",
        lambda r: rs(r, AN, 16),
        [
            "SIP account 2041 (service hotline): password {v}",
            'sip:\n  user: "2041"\n  secret: {v}\n  registrar: sip.brandt-telefon.de',
            "SIP-Passwort Durchwahl -300 (Teiledienst): {v}",
        ],
    ),
    (
        "marketplace_password",
        pw,
        [
            "mobile.de Händlerzugang: kundennummer 441922, Passwort {v}",
            "AutoScout24 dealer login for the used-car team: {v}",
            "Contraseña de coches.net (cuenta del concesionario): {v}",
            "Mot de passe La Centrale pro : {v}",
        ],
    ),
    (
        "datadog_api_key",
        lambda r: rs(r, HEX, 32),
        [
            "DD_API_KEY={v}",
            "Datadog API key (EU site) for the DMS connector: {v}",
            "datadog:\n  api_key: {v}\n  site: datadoghq.eu",
        ],
    ),
    (
        "npm_token",
        lambda r: "npm_" + rs(r, AN, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "Publish token for @brandt/configurator-ui: {v}",
        ],
    ),
    (
        "docker_pat",
        lambda r: "dckr_pat_" + rs(r, AN + "-_", 27),
        [
            "echo {v} | docker login -u brandtci --password-stdin",
            "Docker Hub token for the CI runner: {v}",
        ],
    ),
    (
        "totp_seed",
        lambda r: rs(r, B32, 32),
        [
            "TOTP secret of the shared OEM portal account (scan into the team's authenticator): {v}",
            "otpauth://totp/partner.net:service-bremen?secret={v}&issuer=partner.net",
            "2FA-Seed Bankportal: {v}",
        ],
    ),
    (
        "recovery_codes",
        lambda r: " ".join(rs(r, LO + DG, 5) + "-" + rs(r, LO + DG, 5) for _ in range(5)),
        [
            "GitHub org owner recovery codes: {v}",
            "Wiederherstellungscodes Microsoft-Admin (Konto it@): {v}",
            "Codes de secours du compte Google Ads : {v}",
        ],
    ),
    (
        "sftp_password",
        pw,
        [
            "sftp brandt@files.bank-partner.de — password {v}",
            "Bank-SFTP für die Vertragsdaten: Benutzer BRANDT_SFTP, Passwort {v}",
            "lftp -u brandt_vo,{v} sftp://sftp.diac.fr",
        ],
    ),
    (
        "smtp_password",
        lambda r: rs(r, LO, 16),
        [
            "SMTP_PASSWORD={v}",
            "App password for werkstatt@brandt-gruppe.de (Outlook SMTP): {v}",
            "mail:\n  smtp: smtp.office365.com\n  user: noreply@brandt-gruppe.de\n  pass: {v}",
        ],
    ),
    (
        "hubspot_token",
        lambda r: "pat-eu1-" + uuid(r),
        [
            "HUBSPOT_TOKEN={v}",
            "HubSpot private app token (leads sync): {v}",
            "Token HubSpot para los leads de la web: {v}",
        ],
    ),
    (
        "mailchimp_api_key",
        lambda r: rs(r, HEX, 32) + "-us21",
        [
            "MAILCHIMP_API_KEY={v}",
            "Mailchimp key for the service newsletter list: {v}",
        ],
    ),
    (
        "wallbox_ocpp_password",
        lambda r: rs(r, AN, 20),
        [
            "OCPP basic-auth password for wallbox WB-03 (customer parking): {v}",
            "Ladesäule Halle 1 OCPP-Passwort: {v}",
            "ocpp:\n  charge_point_id: BRANDT-WB-05\n  auth_key: {v}",
        ],
    ),
    (
        "nvr_admin_password",
        pw,
        [
            "NVR (Hikvision) Videoüberwachung Hof: admin / {v}",
            "CCTV recorder admin password at {site}: {v}",
            "Mot de passe admin enregistreur vidéo : {v}",
        ],
    ),
    (
        "vpn_psk",
        lambda r: rs(r, AN + "!#%", 28),
        [
            "IPsec PSK tunnel to the OEM network (Händlernetz): {v}",
            "site-to-site Oldenburg <-> Bremen, pre-shared key {v}",
            "Clé pré-partagée VPN atelier Lyon : {v}",
        ],
    ),
]

# ---------------------------------------------------------------- benign
BENIGN = [
    (
        "vin",
        vin,
        [
            "Customer car {v} in for the 60k service, {ro}.",
            "FIN {v} – Rückruf prüfen",
            "Vehículo {v} pendiente de ITV",
            '{"vin": "{v}", "mileage": 48213}',
        ],
    ),
    (
        "stock_number",
        lambda r: f"U{r.randint(10000, 99999)}",
        [
            "Used-car stock no. {v} moved to Oldenburg.",
            "Bestandsnummer {v} ist reserviert bis Freitag",
            "stock_no,{v},Golf VIII,19990",
        ],
    ),
    (
        "repair_order_number",
        lambda r: f"RO-{r.randint(100000, 999999)}",
        [
            "{v} waiting for parts (brake discs).",
            "Auftrag {v}: Kunde ruft zurück",
            "Ordre de réparation {v} clôturé",
            "2026-03-11 09:14:02 INFO ro-sync updated {v} status=CLOSED",
        ],
    ),
    (
        "dealer_code",
        lambda r: f"{r.choice(['DEU', 'FRA', 'ESP'])}{r.randint(10000, 99999)}",
        [
            "Our OEM dealer code for Bremen is {v}.",
            "Händlernummer {v} bei der Garantieeinreichung angeben",
            "Código de concesionario {v}",
        ],
    ),
    (
        "part_number",
        lambda r: (
            f"{rs(r, DG, 1)}{rs(r, UP, 1)}{rs(r, DG, 1)} {r.randint(100, 999)} {r.randint(100, 999)} {rs(r, UP, 1)}"
        ),
        [
            "Ordered brake caliper {v} for {ro}.",
            "Teilenummer {v} ist ersetzt worden",
            "Référence pièce {v} en rupture",
        ],
    ),
    (
        "labor_op_code",
        lambda r: f"{r.randint(10, 99)} {r.randint(10, 99)} {r.randint(10, 99)} 00",
        [
            "Labor op {v} (timing belt) = 3.2 h",
            "Arbeitsposition {v} abgerechnet",
            "Código de operación {v}",
        ],
    ),
    (
        "dtc_code",
        lambda r: f"{r.choice('PCBU')}{r.randint(0, 3)}{rs(r, DG + 'ABCDEF', 3)}",
        [
            "Fault {v} stored, intermittent.",
            "Fehlerspeicher: {v} sporadisch",
            "Code défaut {v} effacé après essai",
        ],
    ),
    (
        "license_plate",
        lambda r: f"HB-{rs(r, UP, 2)} {r.randint(100, 9999)}",
        [
            "Loaner car {v} back with full tank.",
            "Kennzeichen {v} Überführung Montag",
            "Vehículo de cortesía {v}",
        ],
    ),
    (
        "invoice_number",
        lambda r: f"RE-2026-{r.randint(10000, 99999)}",
        [
            "Invoice {v} paid by card.",
            "Rechnung {v} storniert und neu erstellt",
            "Facture {v} envoyée au client",
        ],
    ),
    (
        "finance_deal_number",
        lambda r: f"FA{r.randint(1000000, 9999999)}",
        [
            "Finance application {v} approved with conditions.",
            "Antrag {v} bei der Bank: Rückfrage Einkommen",
            "Expediente de financiación {v} aprobado",
        ],
    ),
    (
        "customer_number",
        lambda r: str(r.randint(1000000, 9999999)),
        [
            "DMS customer no. {v} has two vehicles.",
            "Kundennummer {v} zusammengeführt",
            "N° client {v}",
        ],
    ),
    (
        "warranty_claim_number",
        lambda r: f"WC{r.randint(10000000, 99999999)}",
        [
            "Warranty claim {v} rejected, resubmit with photos.",
            "Garantieantrag {v} vergütet",
            "Demande de garantie {v} en cours",
        ],
    ),
    (
        "recall_campaign_code",
        lambda r: f"{r.randint(10, 99)}{rs(r, UP, 2)}{r.randint(10, 99)}",
        [
            "Recall campaign {v} applies to this VIN.",
            "Rückrufaktion {v} offen",
            "Campaña de revisión {v} pendiente",
        ],
    ),
    (
        "key_tag_number",
        lambda r: f"K-{r.randint(100, 999)}",
        [
            "Key tag {v} is in slot 14 of the cabinet.",
            "Schlüsselanhänger {v} fehlt",
            "Llave con etiqueta {v} entregada al cliente",
        ],
    ),
    (
        "key_cabinet_serial",
        lambda r: f"TK-{rs(r, DG, 8)}",
        [
            "Traka cabinet serial {v}, firmware 5.2.",
            "Seriennummer Schlüsselschrank {v}",
            "Armoire à clés n° de série {v}",
        ],
    ),
    (
        "diag_tester_serial",
        lambda r: f"VAS6160C-{rs(r, DG, 6)}",
        [
            "Tester {v} sent for calibration.",
            "Diagnosegerät {v} neue Lizenz",
            "Equipo {v} en bahía 2",
        ],
    ),
    (
        "ecu_software_version",
        lambda r: (
            f"{rs(r, DG, 1)}{rs(r, UP, 1)}{rs(r, DG, 1)}{r.randint(900, 999)}{r.randint(100, 999)}{rs(r, UP, 1)} SW {r.randint(1000, 9999)}"
        ),
        [
            "ECU part/software {v} after flashing.",
            "Steuergerät {v} aktualisiert",
            "Calculateur {v}",
        ],
    ),
    (
        "app_build_version",
        lambda r: f"{r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 200)}",
        [
            "ODIS Service {v} rolled out to all testers.",
            "DMS connector v{v} deployed.",
            "Versión del configurador {v}",
        ],
    ),
    (
        "git_commit_sha",
        lambda r: rs(r, HEX, 40),
        [
            "Deployed stock-feed at commit {v}.",
            "Revert of {v} fixed the price import.",
            "git checkout {v}",
        ],
    ),
    (
        "sha256_digest",
        lambda r: rs(r, HEX, 64),
        [
            "sha256 of the ODIS installer: {v}",
            "Prüfsumme der Firmware Schlüsselschrank: {v}",
            "{v}  dms_export_2026-03.csv",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: "$2b$12$" + rs(r, AN + "./", 53),
        [
            "portal_users.password_hash = '{v}'",
            "Stored hash for the test account: {v}",
            "Hash bcrypt du compte atelier : {v}",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, B64, 43) + " ci@brandt",
        [
            "Add this public key to the DMS export box: {v}",
            "authorized_keys:\n{v}",
            "Öffentlicher Schlüssel des Runners: {v}",
        ],
    ),
    (
        "x509_certificate",
        lambda r: pem(r, "CERTIFICATE", 6),
        [
            "Public cert of the OEM order interface (for pinning):\n{v}",
            "Certificat public du partenaire financement :\n{v}",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_51" + rs(r, AN, 96),
        [
            "Publishable key on the deposit page: {v}",
            "NEXT_PUBLIC_STRIPE_KEY={v}",
            "Clave publicable de Stripe (frontend): {v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + rs(r, AN + "-_", 38),
        [
            "reCAPTCHA site key on the test-drive form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "documented_example_key",
        lambda r: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "The AWS docs sample value {v} is what the README shows.",
            "Beispielwert aus der AWS-Doku: {v}",
            "Valeur d'exemple de la doc AWS : {v}",
        ],
    ),
    (
        "twilio_account_sid",
        lambda r: "AC" + rs(r, HEX, 32),
        [
            "Twilio account SID: {v}",
            "TWILIO_ACCOUNT_SID={v}",
            "SID de cuenta Twilio {v}",
        ],
    ),
    (
        "stripe_object_id",
        lambda r: r.choice(["cus_", "pi_", "ch_"]) + rs(r, AN, r.choice([14, 24])),
        [
            "Deposit refunded, Stripe object {v}.",
            "Anzahlung Stripe-ID {v} gehört zu {ro}",
            "Objet Stripe {v} lié à la commande",
        ],
    ),
    (
        "adyen_psp_reference",
        lambda r: rs(r, UP + DG, 16),
        [
            "Adyen pspReference {v} for the card payment at the service desk.",
            "PSP-Referenz {v} storniert",
            "Referencia Adyen {v}",
        ],
    ),
    (
        "oauth_client_id",
        lambda r: rs(r, HEX, 8) + "-" + rs(r, LO, 4) + "-sync",
        [
            "Fortellis client id (not secret): {v}",
            "FORTELLIS_CLIENT_ID={v}",
            "Client-ID der DMS-App: {v}",
        ],
    ),
    (
        "env_var_reference",
        lambda r: r.choice(
            [
                "${DMS_PASSWORD}",
                "$STRIPE_SECRET_KEY",
                'os.environ["TWILIO_AUTH_TOKEN"]',
                "${{ secrets.GH_TOKEN }}",
                "%KEYCAB_API_TOKEN%",
            ]
        ),
        [
            "password: {v}",
            "Read the secret from {v}, never hardcode it.",
            "La variable {v} se carga desde el vault",
            "export TOKEN={v}",
        ],
    ),
    (
        "vault_path",
        lambda r: (
            r.choice(
                [
                    "secret/data/dms/cdk/api",
                    "kv/finance/dealertrack",
                    "secret/keycabinet/traka",
                    "kv/oem/partnernet/shared",
                ]
            )
            + "/"
            + r.choice(["prod", "staging"])
        ),
        [
            "Credentials live in Vault at {v}.",
            "vault kv get {v}",
            "Zugangsdaten liegen unter {v}",
            "Identifiants dans le coffre : {v}",
        ],
    ),
    (
        "placeholder",
        lambda r: r.choice(
            [
                "<your-dms-password>",
                "YOUR_API_KEY_HERE",
                "********",
                "xxxxxxxxxxxxxxxx",
                "<PIN>",
                "CHANGE_ME_IN_VAULT",
            ]
        ),
        [
            "DMS_PASSWORD={v}",
            'api_key: "{v}"',
            "Passwort: {v} (siehe Vault)",
            "Clé API : {v}",
        ],
    ),
    (
        "masked_secret",
        lambda r: r.choice(["sk_live_", "ghp_", "SG.", "xoxb-"]) + "*" * 12 + rs(r, AN, 4),
        [
            "Key in the dashboard shows as {v}.",
            "Gekürzt in den Logs: {v}",
            "Clave enmascarada {v}",
        ],
    ),
    (
        "redacted_value",
        lambda r: r.choice(["[REDACTED]", "<redacted>", "***removed***", "[SECRET]"]),
        [
            "password={v}",
            "Authorization: Bearer {v}",
            "Code alarme : {v}",
        ],
    ),
    (
        "revoked_key",
        lambda r: "ghp_" + rs(r, AN, 36),
        [
            "Token {v} was leaked in a screenshot and revoked on 2026-02-03; do not reuse.",
            "Widerrufen: {v} (gelöscht in GitHub, ersetzt durch Vault)",
            "Token revocado el 12/01: {v}",
        ],
    ),
    (
        "password_policy",
        lambda r: f"at least {r.randint(12, 16)} characters, rotated every 90 days",
        [
            "DMS password policy: {v}.",
            "OEM portal rule: {v}, no sharing of accounts.",
        ],
    ),
    (
        "tenant_uuid",
        uuid,
        [
            "Azure tenant id: {v}",
            'tenant_id = "{v}"',
            "ID de locataire Microsoft : {v}",
        ],
    ),
    (
        "iban",
        lambda r: "DE" + rs(r, DG, 20),
        [
            "Payout account for trade-ins: {v}",
            "IBAN Kundenkonto {v}",
            "IBAN de devolución {v}",
        ],
    ),
    (
        "vat_id",
        lambda r: "DE" + rs(r, DG, 9),
        [
            "VAT id of the Bremen entity: {v}",
            "USt-IdNr. {v}",
            "NIF intracomunitario {v}",
        ],
    ),
    (
        "ip_address",
        lambda r: f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
        [
            "Key cabinet controller is at {v}.",
            "Diagnosetester IP {v}",
            "ping {v}",
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(rs(r, HEX, 2) for _ in range(6)),
        [
            "Whitelist MAC {v} for the tester Wi-Fi.",
            "MAC-Adresse Wallbox {v}",
            "Adresse MAC {v}",
        ],
    ),
    (
        "ticket_reference",
        lambda r: f"IT-{r.randint(1000, 9999)}",
        [
            "See {v} for the DMS outage postmortem.",
            "Ticket {v} geschlossen",
            "Ticket {v} abierto con el proveedor",
        ],
    ),
    (
        "workshop_booking_ref",
        lambda r: f"WB-{rs(r, UP + DG, 6)}",
        [
            "Online booking {v}: tyre change Saturday 9:00.",
            "Termin {v} verschoben",
            "Rendez-vous atelier {v} confirmé",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + rs(r, HEX, 64),
        [
            "Image brandt/dms-connector@{v}",
            "Pinned digest {v} in the compose file.",
        ],
    ),
    (
        "npm_integrity",
        lambda r: "sha512-" + rs(r, B64, 86) + "==",
        [
            '"integrity": "{v}"',
            "Lockfile integrity for axios: {v}",
        ],
    ),
    (
        "aws_arn",
        lambda r: r.choice(
            [
                f"arn:aws:s3:::brandt-dms-exports-{r.randint(1, 9)}",
                f"arn:aws:kms:eu-central-1:{rs(r, DG, 12)}:key/{uuid(r)}",
            ]
        ),
        [
            "Backup target: {v}",
            "Policy resource {v}",
            "Recurso {v}",
        ],
    ),
    (
        "ga_measurement_id",
        lambda r: "G-" + rs(r, UP + DG, 10),
        [
            "GA4 measurement id on the website: {v}",
            "gtag('config', '{v}');",
        ],
    ),
    (
        "slack_channel_id",
        lambda r: "C0" + rs(r, UP + DG, 9),
        [
            "Leads channel id is {v}.",
            "channel: {v}",
        ],
    ),
    (
        "webhook_endpoint_url",
        lambda r: (
            "https://api.brandt-gruppe.de/webhooks/"
            + r.choice(["stripe", "adyen", "keycabinet", "leads"])
        ),
        [
            "Our receiving endpoint: {v}",
            "Webhook-Ziel im Dashboard eingetragen: {v}",
            "URL du webhook côté serveur : {v}",
        ],
    ),
    (
        "paint_code",
        lambda r: f"L{rs(r, UP, 1)}{rs(r, DG, 1)}{rs(r, UP, 1)}",
        [
            "Paint code {v} for the bumper repair.",
            "Farbcode {v}",
        ],
    ),
    (
        "tire_size",
        lambda r: (
            f"{r.choice([205, 225, 235])}/{r.choice([45, 55, 60])} R{r.choice([16, 17, 18])} {r.randint(88, 100)}V"
        ),
        [
            "Winter tyres {v} in storage.",
            "Reifen {v} bestellt",
            "Neumáticos {v}",
        ],
    ),
    (
        "phone_number",
        lambda r: f"+49 421 {r.randint(100000, 999999)}",
        [
            "Service hotline {v}",
            "Rückruf unter {v}",
        ],
    ),
    (
        "email_address",
        lambda r: f"{r.choice(['service', 'teile', 'fi', 'atelier'])}@brandt-gruppe.de",
        [
            "Send the quote to {v}.",
            "Absender {v}",
        ],
    ),
    (
        "odometer_reading",
        lambda r: f"{r.randint(1000, 250000)} km",
        [
            "Odometer at intake: {v}",
            "Kilometerstand {v}",
        ],
    ),
    (
        "correlation_id",
        uuid,
        [
            "2026-04-02 11:03:55 ERROR finance-gw correlation_id={v} lender timeout",
            "Trace {v} in Datadog",
        ],
    ),
]

# second-shift additions: more phrasings per kind (still one template per row)
EXTRA = {
    "openssh_private_key": [
        "Clave privada del servidor de exportación, copiada aquí por {name}:\n{v}"
    ],
    "docker_pat": ["DOCKERHUB_TOKEN={v}", "Token Docker Hub (Runner Bremen): {v}"],
    "mailchimp_api_key": ["Clé Mailchimp pour la newsletter atelier : {v}"],
    "key_cabinet_api_token": [
        "keycabinet:\n  endpoint: https://keys.brandt.local/api/v2\n  token: {v}"
    ],
    "sftp_password": ["Contraseña SFTP de la financiera (ficheros de contratos): {v}"],
    "smtp_password": ["Mot de passe SMTP de noreply@ : {v}"],
    "wallbox_ocpp_password": [
        "Charger at {site} rejects BootNotification until you set the OCPP password back to {v}"
    ],
    "sip_password": ["Mot de passe SIP poste 2041 (accueil atelier) : {v}"],
    "totp_seed": ["Semilla TOTP del portal de garantías: {v}"],
    "twilio_auth_token": ["[{date} 10:41] {name}: new Twilio token after the rotation is {v}"],
    "google_api_key": ["Clé Google Maps côté serveur (non publique) : {v}"],
    "password_policy": ["Regla de contraseñas del DMS: {v}."],
    "x509_certificate": ["Öffentliches Zertifikat der Bank-Schnittstelle:\n{v}"],
    "docker_image_digest": ["image: ghcr.io/brandt-gruppe/lead-router@{v}"],
    "npm_integrity": ["integrity {v} matches the published tarball"],
    "ga_measurement_id": ["ID de medición GA4 de la web: {v}"],
    "slack_channel_id": ["Kanal-ID #werkstatt-alerts: {v}"],
    "paint_code": ["Code peinture {v} pour la retouche"],
    "phone_number": ["Teléfono del taller {v}"],
    "email_address": ["Adresse de l'atelier : {v}"],
    "odometer_reading": ["Kilométrage à la restitution : {v}"],
    "correlation_id": ["X-Request-Id: {v}"],
    "vin": ["| {v} | Tiguan | Probefahrt |"],
    "stock_number": ["Número de stock {v} vendido"],
    "dealer_code": ["dealer_code: {v}"],
    "part_number": ["| {v} | Bremsscheibe | 2 |"],
    "labor_op_code": ["Opération {v} facturée 1,5 h"],
    "dtc_code": ["Código de avería {v} tras la prueba"],
    "license_plate": ["Plaque {v} restituée au client"],
    "invoice_number": ["invoice_id={v} status=paid"],
    "customer_number": ['{"customer_no": "{v}", "branch": "HB"}'],
    "warranty_claim_number": ["Reclamación de garantía {v} abonada"],
    "key_tag_number": ["2026-05-02 17:22:10 keycab event=RETURN tag={v} user=jmeyer"],
    "sha256_digest": ["Checksum SHA-256 del instalador: {v}"],
    "tenant_uuid": ["Mandanten-ID im Fortellis-Marketplace: {v}"],
    "iban": ["Virement reçu de l'IBAN {v}"],
    "ip_address": ["Adresse IP du routeur VPN : {v}"],
    "ticket_reference": ["Fixed in {v}, deploy tomorrow"],
}


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRETS), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates + EXTRA.get(kind, []):
                v = gen(r)
                d = ctx(r)
                d["v"] = v
                text = fill(t, d)
                assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    return rows


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

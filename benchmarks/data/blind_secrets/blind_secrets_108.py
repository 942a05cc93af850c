# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 108: dairy cooperative and cheese plant.

Brief: notes, handovers, chat lines, commands, config and log lines kept by the
IT/OT team (and its coding agents) of a dairy cooperative running milk
collection routes, tanker telematics, cold chain sensors (LoRaWAN, MQTT),
a quality lab with LIMS and milk analysers, a cheese plant with PLC/SCADA,
and a farmer portal with payments. Languages: English, Dutch, German, French.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_108.py [out.jsonl]

Kinds, secret: aws_secret_key, github_pat, gitlab_pat, slack_webhook, slack_bot_token,
teams_webhook, stripe_secret_key, twilio_auth_token, sendgrid_api_key, postgres_url,
mssql_connection_string, mqtt_password, lorawan_appkey, telematics_api_key,
scada_hmi_password, plc_password, wifi_psk, gate_access_code, alarm_pin, lims_password,
portal_admin_password, sftp_password, ssh_private_key, jwt_secret, azure_storage_key,
google_api_key, openai_api_key, npm_token, docker_hub_pat, telegram_bot_token,
discord_webhook, mailgun_api_key, ebics_password, mollie_api_key, redis_url,
sentry_auth_token, datadog_api_key, recovery_codes, vpn_psk, snmp_community, amqp_url,
vault_token, grafana_token, weighbridge_password, sim_pin_puk.

Kinds, benign: supplier_number, tanker_plate, route_code, sample_barcode, cheese_lot,
eu_approval_mark, lorawan_deveui, sensor_serial, aws_access_key_id, git_commit_sha,
image_digest, ssh_public_key, cert_fingerprint, stripe_publishable_key, recaptcha_site_key,
placeholder, documented_example_key, masked_value, env_reference, vault_path,
password_policy, revoked_token, ticket_reference, build_version, iban, request_uuid,
twilio_account_sid, slack_channel_id, azure_tenant_id, analytics_id, mac_address,
hostname_ip, invoice_number, delivery_note, bcrypt_hash, firmware_checksum,
k8s_secret_ref, oauth_client_id, gtin, herd_number, ear_tag, purchase_order, vin,
pgp_fingerprint, jwks_kid, empty_assignment, gps_coordinates, lab_method,
temperature_log, haccp_ccp, mollie_profile_id, token_placeholder_pattern, rotation_note.
"""

import json
import random
import string
import sys

SEED = 17405

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def rs(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def guid():
        return "-".join(rs(HEX, k) for k in (8, 4, 4, 4, 12))

    words = [
        "Gouda",
        "Kaas",
        "Melk",
        "Emmental",
        "Tankwagen",
        "Kuh",
        "Vache",
        "Comte",
        "Boerderij",
        "Molkerei",
        "Fromage",
        "Kaeserei",
        "Brie",
        "Edam",
        "Sennerei",
        "Weide",
        "Friesland",
        "Zuivel",
        "Lait",
        "Tomme",
        "Kalb",
        "Leerdam",
    ]
    syms = "!#$%&*@?."

    def human_pw():
        w = rng.choice(words)
        style = rng.randrange(4)
        if style == 0:
            return w + rng.choice(syms) + str(rng.randint(2019, 2026))
        if style == 1:
            return w + rs(DIG, 2) + rng.choice(syms) + rng.choice(words).lower()
        if style == 2:
            return rng.choice(words).lower() + "-" + w + "-" + rs(DIG, 3)
        return w.replace("a", "@").replace("e", "3") + rs(DIG, 4) + rng.choice(syms)

    def pem():
        body = "\n".join(rs(B64, 64) for _ in range(5))
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"
            + rs(B64, 40)
            + "\n"
            + body
            + "\n"
            + rs(B64, 28)
            + "==\n-----END OPENSSH PRIVATE KEY-----"
        )

    def rsa_pem():
        body = "\n".join(rs(B64, 64) for _ in range(6))
        return (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
            + rs(B64, 48)
            + "\n"
            + body
            + "\n-----END RSA PRIVATE KEY-----"
        )

    secret = {
        "aws_secret_key": (
            lambda: rs(ALNUM + "+/", 40),
            [
                "aws_secret_access_key = {v}",
                "Backup bucket for LIMS exports: key id AKIA"
                + "Q7RZ3MNB4XKT2WPD"
                + ", secret {v} (IAM user lims-backup)",
                "export AWS_SECRET_ACCESS_KEY={v}",
                "Overdracht: de S3-sleutel voor de tankroute-archief is {v}, niet delen buiten IT.",
                '{"aws": {"region": "eu-central-1", "secretAccessKey": "{v}"}}',
            ],
        ),
        "github_pat": (
            lambda: "ghp_" + rs(ALNUM, 36),
            [
                "git clone https://oauth2:{v}@github.com/zuivelcoop/route-planner.git",
                "GH token for the release workflow: {v} (expires March)",
                "GITHUB_TOKEN={v}",
                "Agent memory: use {v} to push to cheese-plant-mes when the CI bot is down.",
            ],
        ),
        "gitlab_pat": (
            lambda: "glpat-" + rs(URLSAFE, 20),
            [
                "gitlab runner registration uses personal token {v}",
                'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.molkerei-sued.de/api/v4/projects',
                "Zugangstoken GitLab (Laborsoftware): {v}",
                'CI_PUSH_TOKEN: "{v}"',
            ],
        ),
        "slack_webhook": (
            lambda: (
                "https://hooks.slack.com/services/T"
                + rs(UP + DIG, 8)
                + "/B"
                + rs(UP + DIG, 10)
                + "/"
                + rs(ALNUM, 24)
            ),
            [
                "Cold room alarm bot posts to {v}",
                "SLACK_WEBHOOK_URL={v}",
                "webhook voor #tankwagens-storingen: {v}",
                "alerting:\n  slack:\n    url: {v}",
            ],
        ),
        "slack_bot_token": (
            lambda: "xoxb-" + rs(DIG, 12) + "-" + rs(DIG, 13) + "-" + rs(ALNUM, 24),
            [
                "SLACK_BOT_TOKEN={v}",
                "The milk-intake bot authenticates with {v}",
                "Bot-Token für #qualitaetslabor: {v}",
            ],
        ),
        "teams_webhook": (
            lambda: (
                "https://zuivelcoop.webhook.office.com/webhookb2/"
                + guid()
                + "@"
                + guid()
                + "/IncomingWebhook/"
                + rs(HEX, 32)
                + "/"
                + guid()
                + "/V2"
                + rs(URLSAFE, 43)
            ),
            [
                "Teams connector kaasmakerij-ploegen: {v}",
                'TEAMS_HOOK="{v}"',
                "Power Automate flow posts lab failures to {v}",
            ],
        ),
        "stripe_secret_key": (
            lambda: "sk_live_51" + rs(ALNUM, 97),
            [
                "STRIPE_SECRET_KEY={v}",
                "Farmer shop (butter & cheese boxes) live key: {v}",
                'stripe.api_key = "{v}"',
                "Clé Stripe production pour la boutique fromagerie : {v}",
            ],
        ),
        "twilio_auth_token": (
            lambda: rs(HEX, 32),
            [
                "Twilio SMS for driver dispatch: account AC"
                + "4f1c2a9e7b3d5f60182a4c6e8b0d2f31"
                + ", auth token {v}",
                "TWILIO_AUTH_TOKEN={v}",
                "twilio:\n  sid: AC9b2e4d6f8a0c1e3f5a7b9d1c3e5f7a90\n  token: {v}",
            ],
        ),
        "sendgrid_api_key": (
            lambda: "SG." + rs(URLSAFE, 22) + "." + rs(URLSAFE, 43),
            [
                "SENDGRID_API_KEY={v}",
                "Milk statement e-mails go out through SendGrid, key {v}",
                "Melkgeld-afrekening mailer: sendgrid sleutel {v}",
                'sendgrid.SendGridAPIClient("{v}")',
            ],
        ),
        "postgres_url": (
            lambda: (
                "postgresql://routeplan:"
                + human_pw()
                .replace("@", "A")
                .replace("#", "H")
                .replace("?", "Q")
                .replace("%", "P")
                .replace("/", "s")
                + "@db-routes.zuivel.local:5432/collections"
            ),
            [
                "DATABASE_URL={v}",
                "psql \"{v}\" -c 'select count(*) from pickups'",
                "Verbindung Tourenplanung: {v}",
                "sqlalchemy.url = {v}",
            ],
        ),
        "mssql_connection_string": (
            lambda: (
                "Server=sql-lims01;Database=LIMS_Prod;User Id=lims_app;Password="
                + human_pw().replace(";", "")
                + ";"
            ),
            [
                'ConnectionStrings__Lims="{v}"',
                '<add name="LimsDb" connectionString="{v}" />',
                "Chaîne de connexion LIMS (labo qualité) : {v}",
            ],
        ),
        "mqtt_password": (
            lambda: human_pw(),
            [
                "mosquitto_pub -h mqtt.koelketen.nl -u sensor-gw -P '{v}' -t coldroom/3/temp -m 4.1",
                "MQTT_PASSWORD={v}",
                "Broker login for the tank-level sensors: user tanksense / pw {v}",
                'mqtt:\n  username: coldchain\n  password: "{v}"',
                "Kühlkette MQTT: Benutzer kuehl01, Passwort {v}",
            ],
        ),
        "lorawan_appkey": (
            lambda: rs(HEX.upper(), 32),
            [
                "AppKey for silo probe 07 (OTAA): {v}",
                "ttn-lw-cli end-devices set coop-app silo-07 --root-keys.app-key.key {v}",
                "LORA_APP_KEY={v}",
                "Clé AppKey capteur cuve 12 : {v}",
            ],
        ),
        "telematics_api_key": (
            lambda: "tlmx_live_" + rs(ALNUM, 32),
            [
                "Tanker telematics (FleetMilk) API key: {v}",
                "TELEMATICS_API_KEY={v}",
                "curl -H 'X-Api-Key: {v}' https://api.fleetmilk.eu/v2/vehicles",
                "Sleutel voor ritdata van de melkwagens: {v}",
                "telematics:\n  provider: fleetmilk\n  api_key: {v}",
            ],
        ),
        "scada_hmi_password": (
            lambda: human_pw(),
            [
                "Cheese vat HMI (Kessel 3) engineer login: engineer / {v}",
                "SCADA-Bedienpanel Käsefertiger, Passwort Schichtleiter: {v}",
                "Pasteur HMI admin wachtwoord is {v} — alleen voor onderhoud",
                "Mot de passe superviseur pupitre pasteurisateur : {v}",
            ],
        ),
        "plc_password": (
            lambda: rs(ALNUM, 8),
            [
                "S7-1500 brine bath PLC protection level password: {v}",
                "SPS Salzbad, Know-how-Schutz Passwort {v}",
                "PLC_PASSWORD={v}",
            ],
        ),
        "wifi_psk": (
            lambda: human_pw(),
            [
                "Wi-Fi in the lab: SSID COOP-LAB, WPA2 key {v}",
                "WLAN Annahme-Halle: Kennwort {v}",
                "wifi kaasopslag: netwerk ZUIVEL-IOT, wachtwoord {v}",
                'wpa_passphrase="{v}"',
            ],
        ),
        "gate_access_code": (
            lambda: rs(DIG, rng.choice([4, 5, 6])),
            [
                "Night drivers: gate code at milk reception is {v}#",
                "Toegangscode slagboom tankwagenplaats: {v}",
                "Torcode Rampe 2 (ab 22 Uhr): {v}",
                "Code portail quai de réception : {v}",
            ],
        ),
        "alarm_pin": (
            lambda: rs(DIG, 4),
            [
                "Intruder alarm PIN for the ripening cellar: {v}",
                "Alarmanlage Reifekeller, Scharfschalten mit PIN {v}",
                "alarmcode kaaspakhuis {v} (niet op het bord schrijven)",
            ],
        ),
        "lims_password": (
            lambda: human_pw(),
            [
                "LIMS login for night lab tech: labnacht / {v}",
                "LabWare Zugang Qualitätslabor: user qs_admin, pw {v}",
                "LIMS_ADMIN_PASSWORD={v}",
                "Mot de passe LIMS labo (compte analyste) : {v}",
            ],
        ),
        "portal_admin_password": (
            lambda: human_pw(),
            [
                "Farmer portal superadmin: admin@zuivelcoop.nl / {v}",
                "Ledenportaal beheerder wachtwoord: {v}",
                "Erzeugerportal Admin-Kennwort: {v}",
                "PORTAL_ADMIN_PASS='{v}'",
            ],
        ),
        "sftp_password": (
            lambda: human_pw(),
            [
                "sftp melkgeld@sftp.bank-coop.nl — password {v} (payment batch upload)",
                "lftp -u milkpay,'{v}' sftp://files.rabobank-connect.example",
                "SFTP Milchgeld-Export: Passwort {v}",
            ],
        ),
        "ssh_private_key": (
            lambda: rng.choice([pem, rsa_pem])(),
            [
                "Deploy key for the route planner box:\n{v}",
                "id_ed25519 of tanker-gw jump host, paste into ~/.ssh:\n{v}",
                "Clé privée du serveur de pesage :\n{v}",
            ],
        ),
        "jwt_secret": (
            lambda: rs(ALNUM, 48),
            [
                "JWT_SECRET={v}",
                "Farmer app signs sessions with HS256 secret {v}",
                "jwt:\n  signing_key: {v}",
                "JWT-Signaturschlüssel Erzeugerportal: {v}",
            ],
        ),
        "azure_storage_key": (
            lambda: rs(B64, 86) + "==",
            [
                "DefaultEndpointsProtocol=https;AccountName=coolchainlogs;AccountKey={v};EndpointSuffix=core.windows.net",
                "AZURE_STORAGE_KEY={v}",
                "Storage key for the lab PDF archive: {v}",
            ],
        ),
        "google_api_key": (
            lambda: "AIza" + rs(URLSAFE, 35),
            [
                "Maps Distance Matrix key for route optimisation: {v}",
                "GOOGLE_MAPS_API_KEY={v}",
                "routing.js: const key = '{v}';",
            ],
        ),
        "openai_api_key": (
            lambda: "sk-proj-" + rs(URLSAFE, 48) + "T3BlbkFJ" + rs(URLSAFE, 48),
            [
                "OPENAI_API_KEY={v}",
                "The lab-report summariser uses {v}",
                "Sleutel voor de klachten-chatbot: {v}",
            ],
        ),
        "npm_token": (
            lambda: "npm_" + rs(ALNUM, 36),
            [
                "//registry.npmjs.org/:_authToken={v}",
                "NPM_TOKEN={v}",
                "publish token for @zuivelcoop/ui-kit: {v}",
            ],
        ),
        "docker_hub_pat": (
            lambda: "dckr_pat_" + rs(URLSAFE, 27),
            [
                "docker login -u coopbuild -p {v}",
                "DOCKERHUB_TOKEN={v}",
                "Docker Hub Zugang für CI: {v}",
            ],
        ),
        "telegram_bot_token": (
            lambda: str(rng.randint(5000000000, 7999999999)) + ":AA" + rs(URLSAFE, 33),
            [
                "Driver chat bot (Telegram) token: {v}",
                "TELEGRAM_BOT_TOKEN={v}",
                "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100123 -d text=late",
            ],
        ),
        "discord_webhook": (
            lambda: "https://discord.com/api/webhooks/" + rs(DIG, 19) + "/" + rs(URLSAFE, 68),
            [
                "Hobby cheese-maker community announcements: {v}",
                "DISCORD_WEBHOOK={v}",
            ],
        ),
        "mailgun_api_key": (
            lambda: rs(HEX, 32) + "-" + rs(HEX, 8) + "-" + rs(HEX, 8),
            [
                "MAILGUN_API_KEY={v}",
                "Mailgun private key (mg.zuivelcoop.nl): {v}",
                "Mailgun Schlüssel für Laborbefunde: {v}",
            ],
        ),
        "ebics_password": (
            lambda: human_pw(),
            [
                "EBICS Passwort für Milchgeld-Zahlungsdatei (User MG01): {v}",
                "Mot de passe EBICS T paiement producteurs : {v}",
                "EBICS signing key passphrase: {v}",
            ],
        ),
        "mollie_api_key": (
            lambda: "live_" + rs(ALNUM, 30),
            [
                "MOLLIE_API_KEY={v}",
                "Mollie live sleutel webshop kaasboerderij: {v}",
                "mollie = Client(); mollie.set_api_key('{v}')",
            ],
        ),
        "redis_url": (
            lambda: "redis://:" + rs(ALNUM, 24) + "@cache-portal.internal:6379/0",
            [
                "REDIS_URL={v}",
                "Portal session cache at {v}",
                "redis-cli -u {v} keys 'session:*'",
            ],
        ),
        "sentry_auth_token": (
            lambda: "sntryu_" + rs(HEX, 64),
            [
                "SENTRY_AUTH_TOKEN={v}",
                "sentry-cli token for sourcemaps upload: {v}",
            ],
        ),
        "datadog_api_key": (
            lambda: rs(HEX, 32),
            [
                "DD_API_KEY={v}",
                "Datadog API key for the tank-level dashboards: {v}",
                "datadog:\n  apiKey: {v}",
            ],
        ),
        "recovery_codes": (
            lambda: " ".join(rs(DIG, 4) + "-" + rs(DIG, 4) for _ in range(5)),
            [
                "Backup codes for the shared ops@ Google account: {v}",
                "Herstelcodes Microsoft-account kwaliteitsdienst: {v}",
                "Wiederherstellungscodes (Vorstand-Mail): {v}",
            ],
        ),
        "vpn_psk": (
            lambda: rs(ALNUM + "!#%", 32),
            [
                "IPsec PSK site-to-site between plant and collection depot Nord: {v}",
                "VPN vorgedeelde sleutel depot Leeuwarden: {v}",
                'leftauth=psk ; psk="{v}"',
            ],
        ),
        "snmp_community": (
            lambda: (
                rng.choice(["k0elcel", "c0ldR00m", "frigo", "tank"])
                + rs(ALNUM, 6)
                + rng.choice(["!rw", "_rw", "#w"])
            ),
            [
                "SNMP RW community of the refrigeration controllers: {v}",
                "snmpset -v2c -c '{v}' 10.40.2.11 1.3.6.1.4.1.9999.1.2 i 3",
                "Communauté SNMP écriture groupe froid : {v}",
            ],
        ),
        "amqp_url": (
            lambda: "amqps://labqueue:" + rs(ALNUM, 20) + "@rabbit.zuivel.local:5671/lab",
            [
                "AMQP_URL={v}",
                "Analyser results are pushed onto {v}",
                'celery broker_url = "{v}"',
            ],
        ),
        "vault_token": (
            lambda: "hvs." + rs(URLSAFE, 24),
            [
                "VAULT_TOKEN={v}",
                "root-ish token used during the migration: {v}",
                "vault login {v}",
            ],
        ),
        "grafana_token": (
            lambda: "glsa_" + rs(ALNUM, 32) + "_" + rs(HEX, 8),
            [
                "Grafana service account token (cold chain boards): {v}",
                "GRAFANA_TOKEN={v}",
                "Authorization: Bearer {v}",
            ],
        ),
        "weighbridge_password": (
            lambda: human_pw(),
            [
                "Weighbridge terminal (Weegbrug 1) beheer wachtwoord: {v}",
                "Brückenwaage Terminal Admin: {v}",
                "Pont bascule, mot de passe admin : {v}",
            ],
        ),
        "sim_pin_puk": (
            lambda: rs(DIG, 4) if rng.random() < 0.5 else rs(DIG, 8),
            [
                "SIM in the LoRa gateway on silo roof: PIN {v}",
                "Tanker 14 tablet SIM PUK: {v}",
                "SIM-Karte Kühlhaus-Router, PIN {v}",
            ],
        ),
    }

    benign = {
        "supplier_number": (
            lambda: rs(DIG, 6),
            [
                "Farmer supplier no. {v} skipped on route N3 today, tank was frozen.",
                "Leveranciersnummer {v} heeft nieuwe tankkoeler.",
                "Lieferantennummer {v}: Hemmstofftest positiv, Milch verworfen.",
                "Numéro producteur {v} — collecte reportée à demain.",
            ],
        ),
        "tanker_plate": (
            lambda: rng.choice(["BX-", "VT-", "07-"]) + rs(UP, 3) + "-" + rs(DIG, 1),
            [
                "Tanker {v} in the workshop for a pump seal.",
                "Melkwagen {v} rijdt vandaag route Friesland-Oost.",
                "Tanker plate {v}, trailer 2 compartment B.",
            ],
        ),
        "route_code": (
            lambda: "RT-" + rs(UP, 2) + rs(DIG, 3),
            [
                "Route {v} now starts at 04:30 because of road works.",
                "Tour {v}: 23 Betriebe, 41.200 Liter.",
                "Tournée {v} fusionnée avec la tournée voisine.",
            ],
        ),
        "sample_barcode": (
            lambda: "LAB" + rs(DIG, 10),
            [
                "Sample {v} retested: SCC 214k/ml, ok.",
                "Monster {v} kiemgetal opnieuw ingezet.",
                "Probe {v} Fett 4,12 %, Eiweiß 3,48 %.",
                "Echantillon {v} envoyé au labo interprofessionnel.",
            ],
        ),
        "cheese_lot": (
            lambda: "L" + rs(DIG, 2) + rs(UP, 1) + rs(DIG, 4),
            [
                "Cheese lot {v} moved to ripening cellar 2.",
                "Partij {v} (Gouda 48+) pekelbad verlengd.",
                "Charge {v} Bergkäse, Reifetag 90.",
                "Lot {v} bloqué en attente résultat listeria.",
            ],
        ),
        "eu_approval_mark": (
            lambda: rng.choice(
                [
                    "NL Z" + rs(DIG, 4) + " EG",
                    "DE BY " + rs(DIG, 3) + " EG",
                    "FR " + rs(DIG, 2) + "." + rs(DIG, 3) + "." + rs(DIG, 3) + " CE",
                ]
            ),
            [
                "Oval health mark on labels: {v}",
                "Identiteitsmerk voor de nieuwe verpakking: {v}",
                "Genusstauglichkeitskennzeichen {v} auf Etikett prüfen.",
            ],
        ),
        "lorawan_deveui": (
            lambda: rs(HEX.upper(), 16),
            [
                "DevEUI of cold room sensor 4: {v}",
                'dev_eui: "{v}"',
                "Sensor silo 2 met DevEUI {v} meldt geen uplinks.",
                "JoinEUI {v} (public, printed on the box)",
            ],
        ),
        "sensor_serial": (
            lambda: "SN" + rs(DIG, 3) + "-" + rs(UP + DIG, 6),
            [
                "Replaced temperature logger {v} in tanker 09.",
                "Seriennummer Datenlogger {v}, Kalibrierung fällig.",
                "N° de série sonde {v} remplacée.",
            ],
        ),
        "aws_access_key_id": (
            lambda: "AKIA" + rs(UP + "234567", 16),
            [
                "Access key id {v} belongs to the lims-backup user (secret is in Vault).",
                "CloudTrail shows calls from {v} at 02:14.",
                "Key id {v} is for the read-only reporting user.",
            ],
        ),
        "git_commit_sha": (
            lambda: rs(HEX, 40),
            [
                "Route planner fix deployed at commit {v}.",
                "Regressie zat in {v}, teruggedraaid.",
                "Bisect ended on {v}.",
            ],
        ),
        "image_digest": (
            lambda: "sha256:" + rs(HEX, 64),
            [
                "lims-bridge image pinned to {v}",
                "image: registry.zuivel.local/portal@{v}",
                "Image-Digest der Waagen-Schnittstelle: {v}",
            ],
        ),
        "ssh_public_key": (
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43),
            [
                "Add the driver-tablet builder's public key: {v} build@ci",
                "authorized_keys op de weegbrug-pc: {v} beheer@zuivel",
                "Öffentlicher Schlüssel Laborserver: {v}",
            ],
        ),
        "cert_fingerprint": (
            lambda: ":".join(rs("0123456789ABCDEF", 2) for _ in range(32)),
            [
                "Portal TLS cert SHA-256 fingerprint: {v}",
                "Vingerafdruk certificaat MQTT-broker: {v}",
                "Empreinte du certificat du serveur LIMS : {v}",
            ],
        ),
        "stripe_publishable_key": (
            lambda: "pk_live_51" + rs(ALNUM, 97),
            [
                "Publishable key for the cheese box checkout (safe in frontend): {v}",
                "STRIPE_PUBLISHABLE_KEY={v}",
                "Clé publique Stripe (front) : {v}",
            ],
        ),
        "recaptcha_site_key": (
            lambda: "6L" + rs(URLSAFE, 38),
            [
                "reCAPTCHA site key on the farmer portal login: {v}",
                'data-sitekey="{v}"',
                "Site-Key für das Kontaktformular: {v}",
            ],
        ),
        "placeholder": (
            lambda: rng.choice(
                [
                    "<YOUR_API_KEY>",
                    "REPLACE_ME",
                    "your-password-here",
                    "<mqtt-password>",
                    "xxxxxxxx",
                    "TODO_SET_IN_VAULT",
                ]
            ),
            [
                "MQTT_PASSWORD={v}",
                "In .env.example: TELEMATICS_API_KEY={v}",
                'password: "{v}"  # fill in locally',
                "Vul hier je eigen sleutel in: {v}",
            ],
        ),
        "documented_example_key": (
            lambda: rng.choice(
                [
                    "AKIAIOSFODNN7EXAMPLE",
                    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
                ]
            ),
            [
                "The AWS docs example value {v} is used in our unit tests.",
                "README sample uses {v} from the vendor docs.",
                "Test fixture: {v} (official documentation example, not ours)",
            ],
        ),
        "masked_value": (
            lambda: rng.choice(
                [
                    "sk_live_****" + rs(ALNUM, 4),
                    "ghp_****************" + rs(ALNUM, 4),
                    "********",
                    "tlmx_live_…" + rs(ALNUM, 4),
                    "hvs.•••••" + rs(ALNUM, 3),
                ]
            ),
            [
                "Dashboard shows the key as {v}, full value in Vault.",
                "Log line: using telematics key {v}",
                "Sleutel eindigt op {v} — check in 1Password.",
                "Schlüssel (maskiert): {v}",
            ],
        ),
        "env_reference": (
            lambda: rng.choice(
                [
                    "${MQTT_PASSWORD}",
                    "$LIMS_DB_PASS",
                    "${{ secrets.DOCKERHUB_TOKEN }}",
                    "%EBICS_PASS%",
                    "os.environ['JWT_SECRET']",
                ]
            ),
            [
                "password: {v}",
                "The compose file reads the secret from {v}",
                "Im Workflow: token = {v}",
                "wachtwoord komt uit {v}",
            ],
        ),
        "vault_path": (
            lambda: (
                "secret/data/"
                + rng.choice(
                    ["plant/plc", "lab/lims", "fleet/telematics", "portal/stripe", "coldchain/mqtt"]
                )
            ),
            [
                "Credentials moved to {v}",
                "vault kv get {v}",
                "Le secret est maintenant dans {v}",
            ],
        ),
        "password_policy": (
            lambda: rng.choice(
                [
                    "minimum 14 characters",
                    "mindestens 12 Zeichen",
                    "rotation every 90 days",
                    "minimaal 3 tekensoorten",
                ]
            ),
            [
                "HMI password policy: {v}, no reuse of the last 5.",
                "Passwortrichtlinie Labor: {v}.",
                "Beleid portaal: {v}.",
            ],
        ),
        "revoked_token": (
            lambda: "ghp_" + rs(ALNUM, 36),
            [
                "Token {v} was revoked on 2026-11-03 after the laptop theft — do not use.",
                "REVOKED (leaked in chat, rotated): {v}",
                "Ingetrokken token {v}, vervangen via Vault.",
            ],
        ),
        "ticket_reference": (
            lambda: rng.choice(["DAIRY-", "OPS-", "LAB-", "FLEET-"]) + rs(DIG, 4),
            [
                "See {v} for the brine pump outage.",
                "Storing gemeld als {v}.",
                "Ticket {v}: Kühlraum 2 Alarmgrenze angepasst.",
            ],
        ),
        "build_version": (
            lambda: (
                str(rng.randint(1, 6))
                + "."
                + str(rng.randint(0, 20))
                + "."
                + str(rng.randint(0, 40))
                + "+build."
                + rs(DIG, 4)
            ),
            [
                "Driver app {v} rolled out to all tablets.",
                "LIMS connector versie {v}",
                "Portal version {v} deployed.",
            ],
        ),
        "iban": (
            lambda: "NL" + rs(DIG, 2) + "RABO" + rs(DIG, 10),
            [
                "Milk payment account of supplier changed to {v}.",
                "IBAN melkgeld: {v}",
                "Bankverbindung Erzeuger: {v}",
            ],
        ),
        "request_uuid": (
            guid,
            [
                "Portal 500 error, request id {v}",
                "correlation_id={v} status=timeout",
                "Pickup record {v} duplicated by the tablet sync.",
            ],
        ),
        "twilio_account_sid": (
            lambda: "AC" + rs(HEX, 32),
            [
                "Twilio account SID {v} (the token lives in Vault).",
                "TWILIO_ACCOUNT_SID={v}",
            ],
        ),
        "slack_channel_id": (
            lambda: "C0" + rs(UP + DIG, 9),
            [
                "Post tanker delays to channel {v}",
                "alerts.channel: {v}",
            ],
        ),
        "azure_tenant_id": (
            guid,
            [
                "Azure AD tenant id: {v}",
                "AZURE_TENANT_ID={v}",
                "Abonnement-ID Laborarchiv: {v}",
            ],
        ),
        "analytics_id": (
            lambda: "G-" + rs(UP + DIG, 10),
            [
                "Farmer portal GA4 measurement id {v}",
                "gtag('config', '{v}');",
            ],
        ),
        "mac_address": (
            lambda: ":".join(rs("0123456789ABCDEF", 2) for _ in range(6)),
            [
                "LoRa gateway on silo roof has MAC {v}",
                "DHCP reservering koelcel-controller {v}",
                "MAC der Waage: {v}",
            ],
        ),
        "hostname_ip": (
            lambda: (
                "10."
                + str(rng.randint(10, 60))
                + "."
                + str(rng.randint(0, 9))
                + "."
                + str(rng.randint(2, 250))
            ),
            [
                "Pasteur PLC sits at {v}, VLAN 40.",
                "Weegbrug-pc adres {v}",
                "Contrôleur froid : {v}",
            ],
        ),
        "invoice_number": (
            lambda: "INV-" + str(rng.randint(2025, 2026)) + "-" + rs(DIG, 5),
            [
                "Telematics vendor invoice {v} disputed.",
                "Factuur {v} voor kalibratie analyser.",
                "Rechnung {v} Labor-Verbrauchsmaterial.",
            ],
        ),
        "delivery_note": (
            lambda: "LS" + rs(DIG, 8),
            [
                "Lieferschein {v}: 24.180 kg Rohmilch.",
                "Delivery note {v} missing tank temperature.",
                "Bon de livraison {v} corrigé.",
            ],
        ),
        "bcrypt_hash": (
            lambda: "$2b$12$" + rs(ALNUM + "./", 53),
            [
                "Seed user in fixtures has password_hash {v}",
                "hash in users table: {v}",
                "Gehashte wachtwoord (bcrypt): {v}",
            ],
        ),
        "firmware_checksum": (
            lambda: rs(HEX, 32),
            [
                "Firmware 3.2.1 for tank probes, MD5 {v}",
                "Prüfsumme Analyser-Update: {v}",
                "md5sum coldlogger.bin -> {v}",
            ],
        ),
        "k8s_secret_ref": (
            lambda: rng.choice(
                ["lims-db-credentials", "mqtt-broker-auth", "stripe-live", "telematics-api"]
            ),
            [
                "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: password",
                "kubectl describe secret {v} -n plant",
                "Secret-Name im Cluster: {v}",
            ],
        ),
        "oauth_client_id": (
            lambda: rs(DIG, 12) + "-" + rs(LOW + DIG, 32) + ".apps.googleusercontent.com",
            [
                "Google sign-in client id for the farmer app: {v}",
                "GOOGLE_CLIENT_ID={v}",
            ],
        ),
        "gtin": (
            lambda: "87" + rs(DIG, 11),
            [
                "GTIN Gouda jong 500g: {v}",
                "EAN on the new butter pack: {v}",
                "Artikel-EAN {v}",
            ],
        ),
        "herd_number": (
            lambda: rng.choice(
                [
                    "UBN " + rs(DIG, 7),
                    "276 09 " + rs(DIG, 3) + " " + rs(DIG, 3) + " " + rs(DIG, 3),
                    "EDE " + rs(DIG, 8),
                ]
            ),
            [
                "Farm registration {v} added to route.",
                "Bedrijf met {v} heeft KoeKompas-audit gehaald.",
                "Betriebsnummer HIT: {v}",
                "Exploitation {v} en conversion bio.",
            ],
        ),
        "ear_tag": (
            lambda: rng.choice(["NL ", "DE ", "FR "]) + rs(DIG, 10),
            [
                "Cow {v} treated with antibiotics, milk withheld 4 days.",
                "Oormerk {v} wachttijd tot vrijdag.",
                "Ohrmarke {v} gesperrt.",
            ],
        ),
        "purchase_order": (
            lambda: "PO" + rs(DIG, 7),
            [
                "Rennet order {v} confirmed by supplier.",
                "Bestelling {v} stremsel en kweken.",
                "Bestellung {v} Lab-Kulturen.",
            ],
        ),
        "vin": (
            lambda: "WDB" + rs("ABCDEFGHJKLMNPRSTUVWXYZ0123456789", 14),
            [
                "Tanker chassis VIN {v}",
                "Chassisnummer melkwagen: {v}",
            ],
        ),
        "pgp_fingerprint": (
            lambda: " ".join(rs("0123456789ABCDEF", 4) for _ in range(10)),
            [
                "Bank file signing public key fingerprint: {v}",
                "PGP-Fingerprint für Zahlungsdateien: {v}",
            ],
        ),
        "jwks_kid": (
            lambda: rs(URLSAFE, 22),
            [
                "JWKS key id currently in use: kid={v}",
                '{"kid": "{v}", "alg": "RS256", "use": "sig"}',
            ],
        ),
        "empty_assignment": (
            lambda: rng.choice(["PASSWORD=", 'API_KEY=""', "token: null", "MQTT_PASS="]),
            [
                "In .env.example the line is just {v}",
                "Config template has {v} on purpose.",
                "Standaard staat {v} leeg.",
            ],
        ),
        "gps_coordinates": (
            lambda: "53." + rs(DIG, 5) + ", 5." + rs(DIG, 5),
            [
                "Collection point for farm 4471 at {v}",
                "Ophaalpunt tank: {v}",
            ],
        ),
        "lab_method": (
            lambda: rng.choice(["ISO 13366-2", "ISO 9622", "ISO 4833-1", "ISO 6785"]),
            [
                "Somatic cell count according to {v}.",
                "Methode {v} geaccrediteerd.",
                "Prüfverfahren {v} im Akkreditierungsumfang.",
            ],
        ),
        "temperature_log": (
            lambda: str(rng.randint(2, 6)) + "." + rs(DIG, 1) + " °C",
            [
                "2026-12-07T03:12:09Z coldroom=3 temp={v} status=OK",
                "Tank bij aankomst: {v}",
                "Kühlraum 1 Mittelwert {v}",
            ],
        ),
        "haccp_ccp": (
            lambda: "CCP-" + str(rng.randint(1, 9)),
            [
                "{v} pasteurisation 72 °C / 15 s verified.",
                "Kritisch punt {v} afwijking geregistreerd.",
                "Point critique {v} : détecteur de métaux testé.",
            ],
        ),
        "mollie_profile_id": (
            lambda: "pfl_" + rs(ALNUM, 10),
            [
                "Mollie profile id {v} (not a key).",
                "Profiel-ID webshop: {v}",
            ],
        ),
        "token_placeholder_pattern": (
            lambda: rng.choice(
                [
                    "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
                    "sk_live_...",
                    "glpat-xxxxxxxxxxxxxxxxxxxx",
                    "xoxb-your-bot-token",
                ]
            ),
            [
                "Format looks like {v} — ask IT for the real one.",
                "Docs snippet: export TOKEN={v}",
                "Voorbeeld in wiki: {v}",
            ],
        ),
        "rotation_note": (
            lambda: (
                "2026-" + str(rng.randint(1, 12)).zfill(2) + "-" + str(rng.randint(1, 28)).zfill(2)
            ),
            [
                "MQTT broker password rotated on {v}; new one is in Vault only.",
                "Laatste rotatie PLC-wachtwoord: {v}",
                "Passwort Brückenwaage zuletzt geändert am {v}.",
            ],
        ),
    }

    more_secret = {
        "slack_bot_token": ["slack:\n  token: {v}\n  channel: tanker-delays"],
        "teams_webhook": ["Webhook Teams Laborbefunde: {v}"],
        "twilio_auth_token": ["Twilio token voor sms naar chauffeurs: {v}"],
        "mssql_connection_string": ["Weighbridge sync job connects with {v}"],
        "plc_password": [
            "Mot de passe automate saumure : {v}",
            "PLC wachtwoord pekelbad (TIA Portal): {v}",
        ],
        "alarm_pin": ["Alarm code if the sirens go off at the cheese store: {v}"],
        "sftp_password": ["Mot de passe SFTP dépôt fichiers paie lait : {v}", 'sftp_pass: "{v}"'],
        "ssh_private_key": ["Private key of the LIMS backup user, sorry for pasting here:\n{v}"],
        "azure_storage_key": ["Opslagsleutel koelketen-logboeken: {v}"],
        "google_api_key": ["Clé API Google Maps tournées de collecte : {v}"],
        "openai_api_key": ['openai.api_key = "{v}"'],
        "npm_token": ["npm-Token für das Fahrer-App-Paket: {v}"],
        "docker_hub_pat": ["echo '{v}' | docker login --username coopbuild --password-stdin"],
        "telegram_bot_token": ["Telegram-bot voor ophaalmeldingen: {v}"],
        "discord_webhook": ["Webhook Discord fromagers amateurs : {v}"],
        "ebics_password": ["EBICS wachtwoord betaalbestand melkgeld: {v}"],
        "mollie_api_key": ["Mollie live key for the farm shop: {v}"],
        "redis_url": ["Redis des Erzeugerportals: {v}"],
        "sentry_auth_token": [
            "Token Sentry voor de chauffeursapp: {v}",
            "sentry:\n  auth_token: {v}",
        ],
        "datadog_api_key": ["Datadog-API-Schlüssel Kühlkette: {v}"],
        "recovery_codes": ["Codes de secours compte admin portail : {v}"],
        "vpn_psk": ["Pre-shared key WireGuard/IPsec Sammelstelle Süd: {v}"],
        "snmp_community": ["snmp community (rw) koelcompressoren: {v}"],
        "amqp_url": ["Lab-Queue Verbindung: {v}"],
        "vault_token": ["Vault-Token voor de migratie: {v}"],
        "grafana_token": ["Grafana-Token Tankfüllstände: {v}"],
        "weighbridge_password": ["Weighbridge PC admin password: {v}"],
        "sim_pin_puk": ["Carte SIM routeur chambre froide, code PIN {v}"],
    }
    for k, t in more_secret.items():
        secret[k][1].extend(t)
    more_benign = {
        "supplier_number": ["supplier_id: {v}"],
        "tanker_plate": ["Tankwagen {v} Kühlaggregat defekt."],
        "route_code": ["Route {v} heeft vandaag 3 bedrijven extra."],
        "sample_barcode": ["sample_id={v} result=pass"],
        "eu_approval_mark": ["Estampille sanitaire : {v}"],
        "sensor_serial": ["sensor serial {v} returned under warranty"],
        "aws_access_key_id": ["Zugangsschlüssel-ID {v} (nur ID, Secret liegt im Vault)"],
        "git_commit_sha": ["Fix für Milchgeldabrechnung in Commit {v}."],
        "image_digest": ["digest {v} verified by cosign"],
        "cert_fingerprint": ["TLS-Fingerprint Erzeugerportal: {v}"],
        "stripe_publishable_key": ["Publiceerbare sleutel webshop: {v}"],
        "recaptcha_site_key": ["reCAPTCHA clé de site (publique) : {v}"],
        "revoked_token": ["Widerrufen am 12.10.: {v} – nicht mehr gültig."],
        "ticket_reference": ["Fixed in {v}, closing."],
        "build_version": ["Waagen-Software Version {v}"],
        "iban": ["IBAN du producteur modifié : {v}"],
        "request_uuid": ["Abholung {v} doppelt synchronisiert."],
        "twilio_account_sid": ["Twilio-account SID {v}"],
        "slack_channel_id": ["Kanal-ID für Labormeldungen: {v}"],
        "analytics_id": ["Meet-ID Google Analytics ledenportaal: {v}"],
        "invoice_number": ["Facture {v} réglée."],
        "delivery_note": ["Afleverbon {v} mist tanktemperatuur."],
        "bcrypt_hash": ["Empreinte bcrypt du compte test : {v}"],
        "oauth_client_id": ["Client-ID (öffentlich) Google-Login: {v}"],
        "vin": ["Fahrgestellnummer Tankzug: {v}"],
        "pgp_fingerprint": ["Vingerafdruk PGP-sleutel bank: {v}"],
        "jwks_kid": ["Schlüssel-ID im JWKS: {v}"],
        "gps_coordinates": ["Standort Milchsammelstelle: {v}"],
        "mollie_profile_id": ["Mollie profile {v} used for both shops."],
        "empty_assignment": ["Dans le modèle : {v}"],
        "k8s_secret_ref": ["Kubernetes secret {v} wordt door external-secrets gevuld."],
        "herd_number": ['herd_id: "{v}"'],
    }
    for k, t in more_benign.items():
        benign[k][1].extend(t)

    rows = []
    for label, table in (("secret", secret), ("benign", benign)):
        for kind, (gen, templates) in table.items():
            for tpl in templates:
                v = gen()
                text = tpl.replace("{v}", v)
                assert v in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
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

# ruff: noqa: E501, SIM115, UP031
"""Blind secret-detector corpus 92: airline ground operations and aircraft maintenance (MRO).

Brief: notes an airline's ground ops and MRO department (maintenance tracking
software, parts suppliers' portals, ground support equipment, crew rostering,
airport systems, hangar access) and its AI coding agents would keep as memory:
prose, handover lines, chat messages, commands, config/.env lines, YAML, JSON,
URLs, tables and log lines, in English, Spanish and Tagalog (Taglish). Secret
rows hold live credentials; benign rows hold look-alikes a careful reader
would store (ids, serials, hashes, public keys, placeholders, redacted values,
field identifiers).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_92.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat,
gitlab_pat, slack_bot_token, slack_webhook_url, teams_webhook_url,
discord_webhook_url, stripe_secret_key, twilio_auth_token, sendgrid_api_key,
openai_api_key, anthropic_api_key, google_api_key, azure_storage_conn_string,
postgres_url_password, mssql_conn_password, rsa_private_key,
openssh_private_key, jwt_signing_secret, mro_software_api_key,
mro_user_password, oem_portal_password, parts_portal_api_key,
parts_portal_password, gse_admin_password, hangar_door_code,
alarm_panel_code, rostering_password, wifi_passphrase, aodb_api_token,
sftp_password, smtp_password, npm_token, pypi_token, docker_hub_pat,
datadog_api_key, telegram_bot_token, mailgun_api_key, vault_token,
atlassian_api_token, mfa_recovery_codes, bitlocker_recovery_key,
efb_tablet_passcode, totp_seed, redis_url_password, mongodb_uri_password,
basic_auth_url, fuel_card_pin.

Kinds, benign: aircraft_registration, manufacturer_serial_number,
part_number, component_serial_number, work_order_number, amm_task_reference,
flight_number, booking_reference, eticket_number, employee_id,
ame_licence_number, git_commit_sha, sha256_digest, md5_checksum, uuid,
aws_documented_example_key, stripe_publishable_key, recaptcha_site_key,
placeholder_value, env_var_reference, vault_path, masked_value,
redacted_value, revoked_key_mentioned, ssh_public_key, x509_certificate,
cert_fingerprint, build_version, container_image_digest, s3_arn,
azure_tenant_client_id, slack_channel_id, gse_asset_tag, uld_number,
air_waybill_number, notam_id, mel_item_reference, easa_form1_tracking,
purchase_order_number, ip_mac_address, password_policy_text,
analytics_measurement_id, twilio_account_sid, wifi_ssid, roster_pairing_id,
gse_vehicle_vin, sita_typeb_address, device_imei, oauth_client_id,
bcrypt_hash, k8s_secret_reference, batch_lot_number, pgp_key_fingerprint,
hangar_badge_number.
"""

import json
import random
import string
import sys

SEED = 9292

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEXL = "0123456789abcdef"
B64 = AN + "+/"
B32 = UP + "234567"
URLSAFE = AN + "-_"


def s(r, n, chars=AN):
    return "".join(r.choice(chars) for _ in range(n))


# ---------------------------------------------------------------- secret generators


def g_aws_secret(r):
    return s(r, 40, AN + "+/")


def g_ghp(r):
    return "ghp_" + s(r, 36)


def g_ghfg(r):
    return "github_pat_" + s(r, 22, UP + DG) + "_" + s(r, 59)


def g_glpat(r):
    return "glpat-" + s(r, 20, URLSAFE)


def g_xoxb(r):
    return "xoxb-" + s(r, 12, DG) + "-" + s(r, 13, DG) + "-" + s(r, 24)


def g_slack_hook(r):
    return (
        "https://hooks.slack.com/services/T"
        + s(r, 10, UP + DG)
        + "/B"
        + s(r, 10, UP + DG)
        + "/"
        + s(r, 24)
    )


def g_teams_hook(r):
    u1 = g_uuid(r)
    u2 = g_uuid(r)
    return (
        "https://skyhangar.webhook.office.com/webhookb2/"
        + u1
        + "@"
        + u2
        + "/IncomingWebhook/"
        + s(r, 32, HEXL)
        + "/"
        + g_uuid(r)
        + "/V2"
        + s(r, 43, URLSAFE)
    )


def g_discord_hook(r):
    return "https://discord.com/api/webhooks/" + s(r, 19, DG) + "/" + s(r, 68, URLSAFE)


def g_stripe_sk(r):
    return "sk_live_51" + s(r, 97)


def g_hex32(r):
    return s(r, 32, HEXL)


def g_sendgrid(r):
    return "SG." + s(r, 22, URLSAFE) + "." + s(r, 43, URLSAFE)


def g_openai(r):
    return "sk-proj-" + s(r, 74, URLSAFE) + "T3BlbkFJ" + s(r, 74, URLSAFE)


def g_anthropic(r):
    return "sk-ant-api03-" + s(r, 93, URLSAFE) + "AA"


def g_google(r):
    return "AIza" + s(r, 35, URLSAFE)


def g_azure_conn(r):
    return (
        "DefaultEndpointsProtocol=https;AccountName=mroworkpacks;AccountKey="
        + s(r, 86, B64)
        + "==;EndpointSuffix=core.windows.net"
    )


def g_pwd(r):
    words = [
        "Hangar",
        "Boeing",
        "Airbus",
        "Turbina",
        "Pasahero",
        "Lanzadera",
        "Tulak",
        "Torque",
        "Rampa",
        "Cebu",
        "Barajas",
        "Mactan",
        "Pushback",
        "Avion",
        "Eroplano",
        "Mabuhay",
        "Bagyo",
        "Propeller",
        "Chaleco",
        "Lluvia",
    ]
    seps = ["", "!", "#", "@", "_", ".", "$", "*"]
    return (
        r.choice(words)
        + r.choice(seps)
        + str(r.randint(10, 2099))
        + r.choice(["!", "#", "", "$", "?", "*"])
        + r.choice(["", s(r, 2, LO), s(r, 1, UP)])
    )


def g_pg(r):
    return "postgresql://mxtrack_app:" + g_pwd(r) + "@db-mro-prod.internal:5432/mxtrack"


def g_pin4(r):
    return s(r, 4, DG)


def g_pin6(r):
    return s(r, 6, DG)


def g_rsa(r):
    body = "\n".join(s(r, 64, B64) for _ in range(6))
    return (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA"
        + s(r, 48, B64)
        + "\n"
        + body
        + "\n"
        + s(r, 40, B64)
        + "==\n-----END RSA PRIVATE KEY-----"
    )


def g_openssh(r):
    body = "\n".join(s(r, 70, B64) for _ in range(4))
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        + body
        + "\n"
        + s(r, 36, B64)
        + "=\n-----END OPENSSH PRIVATE KEY-----"
    )


def g_jwtsecret(r):
    return s(r, 48, URLSAFE)


def g_amos(r):
    return "amos_" + s(r, 8, LO + DG) + "." + s(r, 40, AN)


def g_partsapi(r):
    return "ils_live_" + s(r, 32, HEXL)


def g_psk(r):
    return (
        r.choice(["Rampa", "Hangar7", "TulakTug", "Pista", "Apron"])
        + r.choice(["-", "_", "", " "])
        + r.choice(["Segura", "Malakas", "Nightshift", "Lluvioso", "Manila"])
        + str(r.randint(100, 9999))
        + r.choice(["!", "#", "", "?"])
    )


def g_aodb(r):
    return "aodb." + s(r, 6, LO) + "." + s(r, 44, URLSAFE)


def g_npm(r):
    return "npm_" + s(r, 36)


def g_pypi(r):
    return "pypi-AgEIcHlwaS5vcmcCJG" + s(r, 150, URLSAFE)


def g_docker(r):
    return "dckr_pat_" + s(r, 27, URLSAFE)


def g_tg(r):
    return str(r.randint(5000000000, 7999999999)) + ":AA" + s(r, 33, URLSAFE)


def g_mailgun(r):
    return "key-" + s(r, 32, HEXL)


def g_vault_long(r):
    return "hvs.CAESI" + s(r, 80, URLSAFE)


def g_atl(r):
    return "ATATT3xFfGF0" + s(r, 170, URLSAFE) + "=" + s(r, 8, HEXL.upper())


def g_recovery(r):
    return "  ".join(s(r, 5, LO + DG) + "-" + s(r, 5, LO + DG) for _ in range(5))


def g_bitlocker(r):
    return "-".join(s(r, 6, DG) for _ in range(8))


def g_totp(r):
    return s(r, 32, B32)


def g_redis(r):
    return "redis://:" + s(r, 28, AN) + "@redis-roster.cache.local:6379/2"


def g_mongo(r):
    return (
        "mongodb+srv://gseops:"
        + g_pwd(r)
        + "@cluster-gse.x7k2q.mongodb.net/telemetry?retryWrites=true"
    )


def g_basic_url(r):
    return "https://mxsync:" + g_pwd(r) + "@edi.partsvendor.example-supplier.com/inbound/"


def g_mssql(r):
    return "Server=sql-trax01;Database=TRAX_PROD;User Id=trax_svc;Password=" + g_pwd(r) + ";"


def g_datadog(r):
    return s(r, 32, HEXL)


# ---------------------------------------------------------------- benign generators


def g_uuid(r):
    h = s(r, 32, HEXL)
    return (
        h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + r.choice("89ab") + h[17:20] + "-" + h[20:32]
    )


def g_reg(r):
    return r.choice(["EC-", "RP-C", "N", "EC-"]) + (
        s(r, 3, UP) if r.random() < 0.5 else str(r.randint(3000, 9999))
    )


def g_sha(r):
    return s(r, 40, HEXL)


def g_sha256(r):
    return s(r, 64, HEXL)


def g_md5(r):
    return s(r, 32, HEXL)


def secret_specs():
    """kind -> (generator, [templates]); '{v}' marks the value."""
    return {
        "aws_secret_access_key": (
            g_aws_secret,
            [
                "aws_secret_access_key = {v}",
                "AWS_SECRET_ACCESS_KEY={v}  # iam user mro-workpack-uploader, do not rotate before C-check export",
                "Handover: S3 upload for scanned task cards uses key AKIA2MRO7HGK4QXW3T5B with secret {v} until IT sets up the role.",
                "Clave secreta de AWS para el bucket de cartas de trabajo: {v} (no compartir con el proveedor)",
                '{"AccessKeyId": "AKIA5XN2LQHG7MRO9ZTE", "SecretAccessKey": "{v}"}',
            ],
        ),
        "github_pat": (
            g_ghp,
            [
                "git clone https://{v}@github.com/skyhangar/mx-dashboard.git",
                "GH_TOKEN={v}",
                "token ng bot para sa repo ng roster-sync: {v} — huwag i-paste sa Teams ha",
                "agent memory: used PAT {v} to push the ATA-chapter lookup fix",
                "remote origin = https://mxbot:{v}@github.com/skyhangar/gse-telemetry",
            ],
        ),
        "github_fine_grained_pat": (
            g_ghfg,
            [
                "fine-grained PAT (read-only on gse-telemetry) = {v}",
                "export GITHUB_TOKEN={v}",
                "Token de GitHub con permisos de Actions para el pipeline de AMOS-export: {v}",
            ],
        ),
        "gitlab_pat": (
            g_glpat,
            [
                "GITLAB_TOKEN: {v}",
                'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.skyhangar.local/api/v4/projects/42/pipelines',
                "Yung token ng CI runner sa hangar PC: {v}, nakasulat din sa notebook ni Jomar",
            ],
        ),
        "slack_bot_token": (
            g_xoxb,
            [
                "SLACK_BOT_TOKEN={v}",
                "The AOG alert bot posts with {v} to #mx-control",
                "bot token del canal #rampa-mad: {v}",
                "slack:\n  token: {v}\n  channel: C04AOGALRT",
            ],
        ),
        "slack_webhook_url": (
            g_slack_hook,
            [
                "AOG_WEBHOOK={v}",
                "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"EC-MLD AOG at MNL, hyd leak\"}' {v}",
                "webhook para avisos de turno de noche: {v}",
                "defect-bot posts to {v} whenever a CAT A MEL item is opened",
            ],
        ),
        "teams_webhook_url": (
            g_teams_hook,
            [
                "Teams incoming webhook for Line Maintenance MAD: {v}",
                'TEAMS_HOOK_URL="{v}"',
                "Ito yung webhook ng GSE channel sa Teams: {v}",
            ],
        ),
        "discord_webhook_url": (
            g_discord_hook,
            [
                "apprentices' discord (study group B1) webhook: {v}",
                "DISCORD_WEBHOOK={v}",
                "webhook ng Discord para sa mga shift reminder: {v}",
            ],
        ),
        "stripe_secret_key": (
            g_stripe_sk,
            [
                "STRIPE_SECRET_KEY={v}",
                "Cobro de horas de hangar a terceros via Stripe, clave: {v}",
                'stripe.api_key = "{v}"  # third-party line maintenance invoicing',
                "live key ng Stripe para sa bayad ng parking ng GSE: {v}",
            ],
        ),
        "twilio_auth_token": (
            g_hex32,
            [
                "TWILIO_AUTH_TOKEN={v}",
                "Twilio (SMS callout to on-call engineers): SID ACa3f19c02be7d4e5f8a1b2c3d4e5f6a7b, auth token {v}",
                "token de autenticación de Twilio para los SMS de guardia: {v}",
                'twilio:\n  account_sid: AC7e21b9c8d0f14a2b3c4d5e6f7a8b9c0d\n  auth_token: "{v}"',
            ],
        ),
        "sendgrid_api_key": (
            g_sendgrid,
            [
                "SENDGRID_API_KEY={v}",
                "Los CRS en PDF se envían por SendGrid con la clave {v}",
                "sendgrid key para sa shift report emails: {v}",
                "mail:\n  provider: sendgrid\n  api_key: {v}",
            ],
        ),
        "openai_api_key": (
            g_openai,
            [
                "OPENAI_API_KEY={v}",
                "the defect-text classifier (free text -> ATA chapter) calls OpenAI with {v}",
                "clave de OpenAI que usa el agente para resumir los tech logs: {v}",
            ],
        ),
        "anthropic_api_key": (
            g_anthropic,
            [
                "ANTHROPIC_API_KEY={v}",
                "agent config: model summarises deferred defects, key {v}",
                "susi ng Claude API para sa roster assistant: {v}",
            ],
        ),
        "google_api_key": (
            g_google,
            [
                "GOOGLE_MAPS_KEY={v}  # server-side geocoding of GSE positions, unrestricted!",
                "key para sa Sheets API (import ng tool calibration list): {v}",
                "https://maps.googleapis.com/maps/api/distancematrix/json?origins=MAD&destinations=BCN&key={v}",
            ],
        ),
        "azure_storage_conn_string": (
            g_azure_conn,
            [
                'AZURE_STORAGE_CONNECTION_STRING="{v}"',
                "Cadena de conexión del blob con los paquetes de trabajo: {v}",
                'appsettings.json -> "WorkpackStorage": "{v}"',
            ],
        ),
        "postgres_url_password": (
            g_pg,
            [
                "DATABASE_URL={v}",
                "psql \"{v}\" -c 'select count(*) from open_defects'",
                "conexión a la BD de seguimiento: {v}",
                "db url ng mxtrack (prod, ingat): {v}",
            ],
        ),
        "mssql_conn_password": (
            g_mssql,
            [
                "TRAX reporting DB: {v}",
                '<add name="TraxProd" connectionString="{v}" />',
                'ConnectionStrings__Trax="{v}"',
                "sqlcmd -S sql-trax01 -U trax_svc -P '{v}' -Q \"select 1\"",
            ],
        ),
        "rsa_private_key": (
            g_rsa,
            [
                "{v}",
                "key for the SFTP drop at the engine shop (paste into ~/.ssh/engshop_rsa):\n{v}",
                "clave privada del certificado de firma de los CRS electrónicos:\n{v}",
            ],
        ),
        "openssh_private_key": (
            g_openssh,
            [
                "deploy key ng gse-telemetry box sa Hangar 3:\n{v}",
                "cat > ~/.ssh/id_aodb <<EOF\n{v}\nEOF",
                "SSH key for the rostering jump host (temporary, Jorge will rotate):\n{v}",
            ],
        ),
        "jwt_signing_secret": (
            g_jwtsecret,
            [
                "JWT_SECRET={v}",
                "crew-portal signs session tokens HS256 with secret {v}",
                "secreto para firmar los JWT de la app de rampa: {v}",
                'auth:\n  jwt_secret: "{v}"\n  ttl_minutes: 720',
            ],
        ),
        "mro_software_api_key": (
            g_amos,
            [
                "AMOS_API_KEY={v}",
                "AMOS web services key for the reliability export: {v}",
                "clave API de AMOS (entorno PROD): {v}",
                "Authorization: AMOS-Key {v}",
                "api key ng AMOS para sa component removal report: {v}",
            ],
        ),
        "mro_user_password": (
            g_pwd,
            [
                "TRAX shared login for night shift: user NIGHTLM / pass {v}",
                "Contraseña del usuario de planificación en AMOS: {v}",
                "AMOS login ni Engr. Dela Cruz: rdelacruz / {v} (pinahiram muna habang naka-leave siya)",
                "login: mx_planner  password: {v}",
                "tech log tablet app -> user LMMNL01, pwd {v}",
            ],
        ),
        "oem_portal_password": (
            g_pwd,
            [
                "MyBoeingFleet account mro.engineering@skyhangar.aero, password {v}",
                "Contraseña de AirbusWorld (Skywise) de ingeniería: {v}",
                "ATR portal login: techrecords / {v}",
                "password sa Embraer Flyembraer portal: {v} — shared sa buong records team",
            ],
        ),
        "parts_portal_api_key": (
            g_partsapi,
            [
                "ILS_API_KEY={v}",
                "Inventory Locator Service search key: {v}",
                "clave del API de búsqueda de piezas (ILS): {v}",
                "parts_search:\n  provider: ils\n  key: {v}",
            ],
        ),
        "parts_portal_password": (
            g_pwd,
            [
                "Aviall portal: buyer ID 774120 / password {v}",
                "Contraseña del portal de Satair para pedidos AOG: {v}",
                "PartsBase login: stores.mad / {v}",
                "Boeing Distribution (KAPCO) portal password: {v}",
                "password ng Satair account ng stores MNL: {v}",
            ],
        ),
        "gse_admin_password": (
            g_pwd,
            [
                "TLD tug telematics controller admin password: {v}",
                "GPU 400Hz unit #GPU-07 web panel: admin / {v}",
                "Contraseña de administrador del cargador de baterías de los tractores: {v}",
                "admin pass ng deicing truck HMI: {v}",
                "air start unit ASU-02 PLC password = {v}",
            ],
        ),
        "hangar_door_code": (
            g_pin6,
            [
                "Hangar 2 side door keypad code: {v}",
                "Código de la puerta del hangar 3 (turno noche): {v}#",
                "code ng pinto ng tool crib: {v}",
                "new door code for the stores cage is {v}, changed after the audit",
                "hangar access PIN for contractors this week: {v}",
            ],
        ),
        "alarm_panel_code": (
            g_pin4,
            [
                "Alarm panel disarm code, engine shop: {v}",
                "Código de desarme de la alarma del almacén: {v}",
                "alarm code ng GSE workshop: {v} tapos press OFF",
                "intruder alarm (bonded store) code {v}",
            ],
        ),
        "rostering_password": (
            g_pwd,
            [
                "AIMS rostering admin login: rosteradm / {v}",
                "Contraseña de Jeppesen Crew Rostering (usuario planificador): {v}",
                "password ng crew roster system para sa swap approvals: {v}",
                "Sabre crew manager service account pwd {v}",
            ],
        ),
        "wifi_passphrase": (
            g_psk,
            [
                "Hangar wifi (SSID HGR3-MX) password: {v}",
                'wpa_passphrase="{v}"',
                "Clave del wifi de rampa: {v}",
                "wifi ng line station Cebu: {v}",
                "psk={v}",
            ],
        ),
        "aodb_api_token": (
            g_aodb,
            [
                "AODB_TOKEN={v}",
                "airport operational DB (stand allocation feed) bearer token: {v}",
                "Authorization: Bearer {v}",
                "token del AODB del aeropuerto para asignación de puestos: {v}",
            ],
        ),
        "sftp_password": (
            g_pwd,
            [
                "sftp edi_mro@edi.enginevendor.com password {v}",
                "SFTP de intercambio con el taller de motores: usuario skyh_in, contraseña {v}",
                "sshpass -p '{v}' sftp techrec@records.lessor-portal.net",
                "password ng SFTP sa lessor para sa records transfer: {v}",
            ],
        ),
        "smtp_password": (
            g_pwd,
            [
                "SMTP_PASSWORD={v}",
                'smtp:\n  host: smtp.office365.com\n  user: aog.desk@skyhangar.aero\n  password: "{v}"',
                "mailrelay mxalerts@skyhangar.aero / {v}",
                "Contraseña SMTP para los avisos de vencimiento de herramientas: {v}",
            ],
        ),
        "npm_token": (
            g_npm,
            [
                "//registry.npmjs.org/:_authToken={v}",
                "NPM_TOKEN={v}",
                "token para publicar @skyhangar/ata-codes en npm: {v}",
            ],
        ),
        "pypi_token": (
            g_pypi,
            [
                "PYPI_API_TOKEN={v}",
                "[pypi]\nusername = __token__\npassword = {v}",
                "twine upload -u __token__ -p {v} dist/*",
            ],
        ),
        "docker_hub_pat": (
            g_docker,
            [
                "echo {v} | docker login -u skyhangarci --password-stdin",
                "DOCKERHUB_TOKEN={v}",
                "token de Docker Hub para las imágenes del AODB-bridge: {v}",
            ],
        ),
        "datadog_api_key": (
            g_datadog,
            [
                "DD_API_KEY={v}",
                "datadog:\n  api_key: {v}\n  site: datadoghq.eu",
                "api key ng Datadog para sa GSE telemetry agent: {v}",
            ],
        ),
        "telegram_bot_token": (
            g_tg,
            [
                "TELEGRAM_BOT_TOKEN={v}",
                "bot de Telegram de avisos AOG para los jefes de turno: {v}",
                "https://api.telegram.org/bot{v}/sendMessage?chat_id=-100187244",
            ],
        ),
        "mailgun_api_key": (
            g_mailgun,
            [
                "MAILGUN_API_KEY={v}",
                "curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mx.skyhangar.aero/messages",
                "mailgun key ng roster notifications: {v}",
            ],
        ),
        "vault_token": (
            g_vault_long,
            [
                "VAULT_TOKEN={v}",
                "root-ish token from the unseal session, keep until Monday: {v}",
                "vault login {v}",
                "token ng Vault na binigay ni Carlo for the migration: {v}",
            ],
        ),
        "atlassian_api_token": (
            g_atl,
            [
                "JIRA_API_TOKEN={v}",
                "token de Jira para crear incidencias de MRO desde el bot: {v}",
                "curl -u planner@skyhangar.aero:{v} https://skyhangar.atlassian.net/rest/api/3/search",
            ],
        ),
        "mfa_recovery_codes": (
            g_recovery,
            [
                "Backup codes ng admin account ng MDM (EFB iPads): {v}",
                "Recovery codes for the AMOS cloud admin (use one, cross it out): {v}",
                "códigos de recuperación 2FA de la cuenta de Skywise: {v}",
            ],
        ),
        "bitlocker_recovery_key": (
            g_bitlocker,
            [
                "BitLocker recovery key, laptop LM-MAD-014: {v}",
                "Clave de recuperación BitLocker del PC del hangar: {v}",
                "recovery key ng borescope laptop: {v}",
            ],
        ),
        "efb_tablet_passcode": (
            g_pin6,
            [
                "EFB iPad (tail EC-NVQ) unlock passcode: {v}",
                "Código de desbloqueo de las tablets de mecánicos: {v}",
                "passcode ng shared tablet sa line station: {v}",
            ],
        ),
        "totp_seed": (
            g_totp,
            [
                "TOTP secret for the shared AOG desk account: {v}",
                "otpauth://totp/Skywise:aogdesk@skyhangar.aero?secret={v}&issuer=Skywise",
                "semilla 2FA del usuario compartido de compras: {v}",
                "2FA seed ng shared stores account (i-scan sa Authenticator): {v}",
            ],
        ),
        "redis_url_password": (
            g_redis,
            [
                "REDIS_URL={v}",
                "cache de roster: {v}",
                "redis-cli -u {v} keys 'pairing:*'",
            ],
        ),
        "mongodb_uri_password": (
            g_mongo,
            [
                "MONGO_URI={v}",
                "GSE telemetry store: {v}",
                "uri ng mongo para sa tug positions: {v}",
            ],
        ),
        "basic_auth_url": (
            g_basic_url,
            [
                "EDI endpoint for Spec2000 orders: {v}",
                "wget {v}ORD-2211.xml",
                "URL con credenciales del proveedor de consumibles: {v}",
            ],
        ),
        "fuel_card_pin": (
            g_pin4,
            [
                "Fuel card for GSE diesel (card ending 4471) PIN {v}",
                "PIN de la tarjeta de combustible de los tractores: {v}",
                "PIN ng fuel card ng service van: {v}",
            ],
        ),
    }


# ---------------------------------------------------------------- benign


def g_msn(r):
    return str(r.randint(1000, 9999))


def g_pn(r):
    return r.choice(["D23189000-", "3214552-", "C20195000-", "2117842-", "822-1347-"]) + str(
        r.randint(1, 29)
    ).zfill(r.choice([1, 2, 3]))


def g_sn(r):
    return r.choice(["SN", "ST", "1G", "V"]) + str(r.randint(10000, 999999))


def g_wo(r):
    return "WO-" + str(r.randint(2025, 2026)) + "-" + str(r.randint(10000, 99999))


def g_amm(r):
    return "%02d-%02d-%02d-%03d-%03d" % (
        r.randint(21, 80),
        r.randint(10, 60),
        r.randint(0, 50),
        r.choice([200, 400, 700, 720]),
        r.randint(801, 810),
    )


def g_flt(r):
    return r.choice(["SH", "IB", "PR", "5J"]) + str(r.randint(100, 4999))


def g_pnr(r):
    return s(r, 6, UP + "23456789")


def g_etkt(r):
    return r.choice(["075", "079", "203"]) + s(r, 10, DG)


def g_emp(r):
    return "E" + s(r, 6, DG)


def g_lic(r):
    return r.choice(["ES.66.", "RP-AMT-", "PH.66."]) + str(r.randint(10000, 99999))


def g_awskid_ex(r):
    return "AKIAIOSFODNN7EXAMPLE"


def g_pk(r):
    return "pk_live_51" + s(r, 97)


def g_recaptcha(r):
    return "6L" + s(r, 6, URLSAFE) + "AAAAA" + s(r, 27, URLSAFE)


def g_ssh_pub(r):
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(r, 43, B64)


def g_cert(r):
    body = "\n".join(s(r, 64, B64) for _ in range(5))
    return (
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE"
        + s(r, 44, B64)
        + "\n"
        + body
        + "\n"
        + s(r, 30, B64)
        + "=\n-----END CERTIFICATE-----"
    )


def g_fpr(r):
    return ":".join(s(r, 2, "0123456789ABCDEF") for _ in range(32))


def g_ver(r):
    return "%d.%d.%d" % (r.randint(1, 24), r.randint(0, 40), r.randint(0, 300))


def g_digest(r):
    return "sha256:" + s(r, 64, HEXL)


def g_arn(r):
    return (
        "arn:aws:s3:::skyhangar-mro-"
        + r.choice(["workpacks", "taskcards", "records-archive"])
        + "-"
        + s(r, 4, DG)
    )


def g_chan(r):
    return "C0" + s(r, 9, UP + DG)


def g_asset(r):
    return r.choice(["GSE-TUG-", "GSE-GPU-", "GSE-BLD-", "GSE-ASU-"]) + str(r.randint(1, 99)).zfill(
        3
    )


def g_uld(r):
    return (
        r.choice(["AKE", "AKH", "PMC", "PAG"])
        + str(r.randint(10000, 99999))
        + r.choice(["SH", "IB", "PR"])
    )


def g_awb(r):
    return r.choice(["075", "079", "932"]) + "-" + s(r, 8, DG)


def g_notam(r):
    return r.choice(["A", "B", "C"]) + str(r.randint(1000, 4999)).zfill(4) + "/" + "26"


def g_mel(r):
    return "%02d-%02d-%02d" % (r.randint(21, 80), r.randint(10, 60), r.randint(1, 20))


def g_form1(r):
    return "F1-" + s(r, 3, UP) + "-" + s(r, 7, DG)


def g_po(r):
    return "PO" + s(r, 8, DG)


def g_ip(r):
    return "10.%d.%d.%d" % (r.randint(0, 255), r.randint(0, 255), r.randint(1, 254))


def g_mac(r):
    return ":".join(s(r, 2, "0123456789ABCDEF") for _ in range(6))


def g_ga(r):
    return "G-" + s(r, 10, UP + DG)


def g_sid(r):
    return "AC" + s(r, 32, HEXL)


def g_ssid(r):
    return r.choice(["HGR3-MX", "SKYH-RAMPA", "LINE-CEB-CREW", "MNL-GSE-IOT"])


def g_pairing(r):
    return "P" + s(r, 5, DG) + r.choice(["A", "B", "C"])


def g_vin(r):
    return s(r, 17, "ABCDEFGHJKLMNPRSTUVWXYZ0123456789")


def g_sita(r):
    return (
        r.choice(["MAD", "MNL", "CEB", "BCN"])
        + r.choice(["KK", "MM", "OO", "TT"])
        + r.choice(["SH", "IB", "PR"])
    )


def g_imei(r):
    return "35" + s(r, 13, DG)


def g_oauth(r):
    return s(r, 12, DG) + "-" + s(r, 32, LO + DG) + ".apps.googleusercontent.com"


def g_bcrypt(r):
    return "$2b$12$" + s(r, 53, AN + "./")


def g_lot(r):
    return "LOT" + s(r, 6, DG) + s(r, 1, UP)


def g_pgp(r):
    return " ".join(s(r, 4, "0123456789ABCDEF") for _ in range(10))


def g_badge(r):
    return "HB-" + s(r, 5, DG)


def g_mask(r):
    return r.choice(["sk_live_", "ghp_", "AKIA", "xoxb-", "SG."]) + "****" + s(r, 4, AN)


def g_tail(r):
    return "EC-" + s(r, 3, UP)


def cyc(items):
    """Generator handing out the items in order (one per template), fresh per corpus() call."""
    it = iter(items)
    return lambda r: next(it)


def benign_specs():
    return {
        "aircraft_registration": (
            g_reg,
            [
                "{v} is back in service after the brake change",
                "Matrícula {v}: pendiente inspección de boroscopio del motor 2",
                "eroplano {v} — na-defer yung APU bleed valve, MEL cat C",
                "| tail | {v} | status | AOG |",
            ],
        ),
        "manufacturer_serial_number": (
            g_msn,
            [
                "A320 MSN {v} arrives for C-check on the 14th",
                "Número de serie del fabricante (MSN): {v}",
                "records: MSN {v}, delivered 2016, lessor AerCap",
                "MSN {v} — ibabalik na sa lessor sa March",
            ],
        ),
        "part_number": (
            g_pn,
            [
                "P/N {v} on backorder at Satair, ETA Thursday",
                "Pieza {v} (válvula de purga) — pedir 2 unidades",
                "kailangan ng P/N {v} para sa MNL, AOG yung aircraft",
                'part_number: "{v}"',
            ],
        ),
        "component_serial_number": (
            g_sn,
            [
                "Removed starter S/N {v}, tagged unserviceable",
                "Instalado el actuador con número de serie {v}",
                "S/N {v} — bagong install, check torque ulit after 10 FH",
            ],
        ),
        "work_order_number": (
            g_wo,
            [
                "{v} closed, CRS signed by B1 engineer",
                "Orden de trabajo {v}: cambio de neumático rueda 3",
                "WO ni Mark: {v} — tapos na ang wheel change",
                "log: [mxtrack] work order {v} status=OPEN priority=AOG",
            ],
        ),
        "amm_task_reference": (
            g_amm,
            [
                "AMM task {v} (landing gear servicing) rev 54",
                "Tarea AMM {v} aplicada según la revisión vigente",
                "sundin ang AMM {v} bago mag-sign off",
                "task_ref: {v}\n  effectivity: ALL",
            ],
        ),
        "flight_number": (
            g_flt,
            [
                "{v} delayed 45 min due to late pushback tug",
                "vuelo {v} con salida desde el puesto 12",
                "yung {v} papuntang CEB, kulang ng GPU sa bay 7",
                "2026-12-06T05:12Z ops: {v} ETD 06:40 stand B21 tow requested",
            ],
        ),
        "booking_reference": (
            g_pnr,
            [
                "Engineer positioning flight, PNR {v}",
                "Localizador de la reserva del técnico enviado a BCN: {v}",
                "booking ref ni Engr. Santos papuntang Davao: {v}",
                "| traveller | tech 2 | PNR | {v} |",
            ],
        ),
        "eticket_number": (
            g_etkt,
            [
                "e-ticket {v} issued for the AOG go-team",
                "Número de billete electrónico: {v}",
                "ticket no. {v} — staff travel, standby",
                "TKTNBR={v} PAX=GARCIA/LUIS MR",
            ],
        ),
        "employee_id": (
            g_emp,
            [
                "Badge holder employee ID {v}, B1 licence holder",
                "ID de empleado {v} (mecánico de rampa, turno B)",
                "employee no. ni Kuya Ramon: {v}",
                "roster row: emp={v} base=MAD qual=B1-A320",
            ],
        ),
        "ame_licence_number": (
            g_lic,
            [
                "CRS signed under licence {v}",
                "Licencia Part-66 del certificador: {v}",
                "AMT license ni Engr. Reyes: {v}, valid hanggang 2028",
            ],
        ),
        "git_commit_sha": (
            g_sha,
            [
                "fixed MEL expiry calc in commit {v}",
                "desplegado el commit {v} en el servidor de rampa",
                "HEAD of roster-sync at {v}",
                "git revert {v}  # broke the stand allocation import",
            ],
        ),
        "sha256_digest": (
            g_sha256,
            [
                "sha256 of the AMOS export zip: {v}",
                "Hash SHA-256 del archivo de navegación cargado: {v}",
                "{v}  taskcards_2026-12.pdf",
                "checksum ng firmware ng GPU: {v}",
            ],
        ),
        "md5_checksum": (
            g_md5,
            [
                "md5 {v} for the FMS nav database disk",
                "MD5 del paquete de datos de carga: {v}",
                "md5sum: {v} — tugma sa vendor",
                '{"file": "loadsheet_template.xlsx", "md5": "{v}"}',
            ],
        ),
        "uuid": (
            g_uuid,
            [
                "defect record id {v}",
                "request_id={v} status=200 path=/api/defects",
                "ID del documento en el archivo digital: {v}",
                "id ng tool calibration record: {v}",
            ],
        ),
        "aws_documented_example_key": (
            g_awskid_ex,
            [
                "AWS docs example key id {v} — use in tests only, not a real key",
                "En el README del bucket pusimos la clave de ejemplo {v}",
                "aws_access_key_id = {v}  # example from the AWS documentation",
            ],
        ),
        "stripe_publishable_key": (
            g_pk,
            [
                "STRIPE_PUBLISHABLE_KEY={v}  # safe in the front-end",
                "clave publicable de Stripe para el formulario de pago: {v}",
                "<script>Stripe('{v}')</script>",
            ],
        ),
        "recaptcha_site_key": (
            g_recaptcha,
            [
                "reCAPTCHA site key for the contractor registration page: {v}",
                'data-sitekey="{v}"',
                "site key ng captcha sa crew portal: {v} (public lang ito)",
                "RECAPTCHA_SITE_KEY={v}  # the secret key lives in Vault",
            ],
        ),
        "placeholder_value": (
            cyc(["<YOUR_AMOS_API_KEY>", "changeme", "xxxxxxxxxxxxxxxx", "<YOUR_ILS_KEY>"]),
            [
                "AMOS_API_KEY={v}",
                "password: {v}   # template only, real one is in Vault",
                "Poner aquí la clave del proveedor: {v}",
                'ILS_API_KEY="{v}" (palitan bago i-deploy)',
            ],
        ),
        "env_var_reference": (
            cyc(
                [
                    "${AMOS_API_KEY}",
                    "${{ secrets.SLACK_WEBHOOK }}",
                    "%SATAIR_PASSWORD%",
                    "os.environ['TRAX_DB_PASSWORD']",
                ]
            ),
            [
                "api_key: {v}",
                "the workflow reads the webhook from {v}",
                "la contraseña se toma de {v} en el servidor",
                "password = {v}",
            ],
        ),
        "vault_path": (
            cyc(
                [
                    "secret/data/mro/amos/api",
                    "kv/ground-ops/gse/tug-telematics",
                    "secret/crew/rostering/aims-admin",
                    "kv/mro/parts/satair",
                ]
            ),
            [
                "AMOS key moved to Vault at {v}",
                "vault kv get {v}",
                "la contraseña está en {v}",
                "nasa {v} na yung password, wag na sa chat",
            ],
        ),
        "masked_value": (
            g_mask,
            [
                "key in use: {v} (masked in the admin UI)",
                "El token aparece como {v} en el panel",
                "log: auth ok token={v}",
                "token ng AMOS sa screen: {v} (last 4 lang ang kita)",
            ],
        ),
        "redacted_value": (
            cyc(["[REDACTED]", "********", "<redacted>", "***"]),
            [
                "SATAIR_PASSWORD={v}",
                "password: {v}",
                "contraseña del GPU: {v} (ver Vault)",
                "password ng tug controller: {v} — itanong kay supervisor",
            ],
        ),
        "revoked_key_mentioned": (
            g_ghp,
            [
                "Revoked {v} after it was pasted in #mx-general, new token is in Vault",
                "Token {v} revocado el 02/12 — ya no funciona",
                "na-revoke na yung {v}, huwag nang gamitin",
                "incident 2026-11-30: leaked token {v} was revoked within 10 min, no access logged",
            ],
        ),
        "ssh_public_key": (
            g_ssh_pub,
            [
                "{v} jdelacruz@hangar3-pc",
                "authorized_keys on the GSE gateway: {v} ops@gse-gw",
                "clave pública para el SFTP del taller: {v}",
                "pubkey ng bagong laptop ni Aiza: {v}",
            ],
        ),
        "x509_certificate": (
            g_cert,
            [
                "Public cert of the AODB API (pin this):\n{v}",
                "certificado público del portal de proveedores:\n{v}",
                "ca.crt ng GSE telemetry gateway (public, ok lang i-commit):\n{v}",
            ],
        ),
        "cert_fingerprint": (
            g_fpr,
            [
                "SHA-256 fingerprint of the ACARS gateway cert: {v}",
                "Huella del certificado del servidor de rostering: {v}",
                "fingerprint ng cert ng MDM: {v}",
                'ssl_pinning:\n  sha256: "{v}"',
            ],
        ),
        "build_version": (
            g_ver,
            [
                "AMOS client {v} rolled out to all hangar PCs",
                "versión de la app de rampa: {v}",
                "update ng EFB app to {v} bukas ng umaga",
            ],
        ),
        "container_image_digest": (
            g_digest,
            [
                "image: registry.skyhangar.local/aodb-bridge@{v}",
                "desplegada la imagen {v}",
                "digest ng gse-collector image: {v}",
                "docker pull ghcr.io/skyhangar/roster-sync@{v}",
            ],
        ),
        "s3_arn": (
            g_arn,
            [
                'Resource: "{v}/*"',
                "bucket de archivo de registros: {v}",
                "task cards are archived to {v}",
            ],
        ),
        "azure_tenant_client_id": (
            g_uuid,
            [
                "AZURE_TENANT_ID={v}",
                "client_id de la app registrada de rostering: {v}",
                "tenant id ng Entra para sa crew portal SSO: {v}",
            ],
        ),
        "slack_channel_id": (
            g_chan,
            [
                "AOG alerts go to channel {v}",
                "ID del canal de rampa en Slack: {v}",
                "channel: {v}",
            ],
        ),
        "gse_asset_tag": (
            g_asset,
            [
                "{v} out of service — hydraulic leak on the tow bar",
                "Equipo {v} enviado a taller por fallo de batería",
                "{v} naiwan sa bay 9, pakibalik sa GSE yard",
                "| asset | {v} | next PM | 2027-01-15 |",
            ],
        ),
        "uld_number": (
            g_uld,
            [
                "ULD {v} damaged, tagged for repair",
                "contenedor {v} con la rueda de repuesto para BCN",
                "ilagay sa {v} yung AOG spare",
                "| ULD | {v} | flight | SH2231 | weight | 412 kg |",
            ],
        ),
        "air_waybill_number": (
            g_awb,
            [
                "AOG part shipped on AWB {v}",
                "Guía aérea {v} — el motor de arranque llega mañana",
                "AWB {v}, i-track mo sa cargo",
            ],
        ),
        "notam_id": (
            g_notam,
            [
                "NOTAM {v}: stand 14 closed for resurfacing",
                "NOTAM {v} — calle de rodaje B cerrada",
                "tingnan mo yung NOTAM {v} bago mag-tow",
                "notam_ref={v} aerodrome=LEMD",
            ],
        ),
        "mel_item_reference": (
            g_mel,
            [
                "Deferred under MEL {v}, cat C, 10 days",
                "Ítem MEL {v} abierto desde el lunes",
                "MEL {v} — i-close bago matapos ang shift",
                "deferral: {v} (O) procedure done, placard installed",
            ],
        ),
        "easa_form1_tracking": (
            g_form1,
            [
                "EASA Form 1 tracking no. {v} received with the part",
                "Certificado Form 1 número {v}",
                "Form 1 ref {v}, naka-file na sa records",
            ],
        ),
        "purchase_order_number": (
            g_po,
            [
                "{v} raised for 4 brake assemblies",
                "Pedido {v} aprobado por compras",
                "PO {v} — hinihintay pa ang approval ni boss",
            ],
        ),
        "ip_mac_address": (
            lambda r: g_ip(r) if r.random() < 0.5 else g_mac(r),
            [
                "GSE gateway at {v}",
                "IP/MAC del cargador de baterías: {v}",
                "MAC/IP of GPU-07 telematics modem: {v}",
                "DHCP reservation for hangar printer: {v}",
            ],
        ),
        "password_policy_text": (
            cyc(
                [
                    "minimum 12 characters, rotate every 90 days",
                    "mínimo 14 caracteres, sin reutilizar las últimas 5",
                    "at least 12 characters, bawal ang pangalan ng eroplano",
                ]
            ),
            [
                "Password policy for AMOS accounts: {v}",
                "Política de contraseñas del portal: {v}",
                "policy ng password sa roster system: {v}",
            ],
        ),
        "analytics_measurement_id": (
            g_ga,
            [
                "GA4 measurement id for the crew portal: {v}",
                "gtag('config', '{v}');",
                "ID de medición de Analytics: {v}",
            ],
        ),
        "twilio_account_sid": (
            g_sid,
            [
                "TWILIO_ACCOUNT_SID={v}",
                "SID de la cuenta de Twilio: {v} (el token está en Vault)",
                "account sid: {v}",
            ],
        ),
        "wifi_ssid": (
            g_ssid,
            [
                "connect the tablets to SSID {v}",
                "Red wifi: {v} (la clave la tiene el jefe de turno)",
                "kumonekta sa {v} para sa EFB sync",
            ],
        ),
        "roster_pairing_id": (
            g_pairing,
            [
                "Pairing {v} swapped with FO Lopez",
                "Rotación {v} asignada a la tripulación de reserva",
                "pairing {v} — may standby sa Cebu",
            ],
        ),
        "gse_vehicle_vin": (
            g_vin,
            [
                "Baggage tractor VIN {v}",
                "Número de bastidor del tractor de remolque: {v}",
                "VIN ng bagong belt loader: {v}",
            ],
        ),
        "sita_typeb_address": (
            g_sita,
            [
                "send the MVT message to {v}",
                "dirección SITA Type B del control de mantenimiento: {v}",
                "copy ang {v} sa LDM",
            ],
        ),
        "device_imei": (
            g_imei,
            [
                "Rugged tablet IMEI {v} assigned to line station BCN",
                "IMEI del teléfono de guardia: {v}",
                "IMEI ng handheld scanner: {v}",
            ],
        ),
        "oauth_client_id": (
            g_oauth,
            [
                "GOOGLE_CLIENT_ID={v}",
                "client id de OAuth para el login de la app: {v}",
                "OAuth client id ng crew portal: {v}",
            ],
        ),
        "bcrypt_hash": (
            g_bcrypt,
            [
                "users.password_hash for the test user: {v}",
                "bcrypt hash ng demo account sa staging: {v}",
                "hash almacenado (bcrypt): {v}",
            ],
        ),
        "k8s_secret_reference": (
            cyc(["amos-api-credentials", "aodb-bearer", "gse-mongo-uri"]),
            [
                "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: token",
                "kubectl describe secret {v} -n mro",
                "el secreto de Kubernetes se llama {v}",
            ],
        ),
        "batch_lot_number": (
            g_lot,
            [
                "Sealant batch {v}, shelf life to 2027-03",
                "Lote {v} de grasa MIL-PRF-81322",
                "lot no. {v} ng hydraulic fluid, expired na",
            ],
        ),
        "pgp_key_fingerprint": (
            g_pgp,
            [
                "Engine shop PGP key fingerprint: {v}",
                "huella de la clave PGP del lessor: {v}",
                "gpg --recv-keys then verify fingerprint {v} before opening the records export",
            ],
        ),
        "hangar_badge_number": (
            g_badge,
            [
                "Contractor badge {v} valid until Friday",
                "Tarjeta de acceso {v} dada de baja",
                "badge no. {v} — nawala, i-report sa security",
            ],
        ),
    }


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, specs in (("secret", secret_specs()), ("benign", benign_specs())):
        for kind, (gen, templates) in specs.items():
            for t in templates:
                v = gen(r)
                text = t.replace("{v}", v)
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

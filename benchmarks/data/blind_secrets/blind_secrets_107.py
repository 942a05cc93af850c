# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 107: mining company site operations.

Brief: memory notes kept by the site-operations and OT/IT teams of a mining
company (and their AI coding agents): haul-truck fleet management and dispatch,
explosives magazines and blasting, process plant control (PLC/SCADA/historian),
FIFO camp accommodation and catering, and remote site links (VSAT, radio, VPN).
Rows are prose notes, handover lines, chat messages, commands, config and .env
lines, YAML, JSON, URLs, tables and log lines in English, Spanish (Chile/Peru),
Portuguese (Brazil) and French (West Africa).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_107.py [out.jsonl]

Kinds, secret: aws_access_key_id, aws_secret_access_key, github_pat, gitlab_pat,
slack_webhook_url, slack_bot_token, teams_webhook_url, postgres_url_password,
mssql_connection_string, mongodb_uri_password, azure_storage_connection_string,
sendgrid_api_key, twilio_auth_token, stripe_secret_key, rsa_private_key_pem,
openssh_private_key, jwt_bearer_token, google_api_key, fleet_dispatch_api_key,
scada_hmi_password, plc_project_password, magazine_keypad_code, magazine_alarm_pin,
camp_door_code, camp_wifi_psk, ipsec_preshared_key, vsat_modem_admin_password,
radio_aes_key, shared_login_password, historian_password, datadog_api_key,
npm_token, docker_hub_pat, azure_client_secret, gcp_service_account_private_key,
telegram_bot_token, openai_api_key, snmp_write_community, ldap_bind_password,
mfa_recovery_codes, totp_seed, mqtt_password, camp_booking_api_key,
fuel_system_api_token, assay_lab_sftp_password, redis_url_password, smtp_password,
vault_token.

Kinds, benign: aws_example_key, git_commit_sha, sha256_digest, docker_image_digest,
asset_uuid, haul_truck_fleet_number, equipment_serial_number, vehicle_vin,
explosive_product_code, magazine_licence_number, blast_id, drillhole_id,
assay_sample_id, sap_work_order, purchase_order_number, camp_booking_reference,
camp_room_code, charter_flight_pnr, incident_ticket, change_request_number,
ip_address_subnet, mac_address, vsat_terminal_id, radio_talkgroup_id,
ssh_public_key, pem_certificate, stripe_publishable_key, recaptcha_site_key,
env_var_reference, placeholder_value, masked_secret, vault_path,
secrets_manager_arn, revoked_key_notice, password_policy_text, firmware_version,
vendor_account_number, company_tax_id, pi_tag_name, modbus_register, opcua_node_id,
mine_grid_coordinates, mining_tenement_number, employee_badge_number,
k8s_secret_reference, jwt_documented_example, slack_channel_id, azure_tenant_client_id,
emergency_contact_number, dispatch_telemetry_log, bucket_name, md5_file_checksum.
"""

import json
import random
import string
import sys

SEED = 134710

ALNUM = string.ascii_letters + string.digits
UPPER_DIG = string.ascii_uppercase + string.digits
LOWER_DIG = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def r(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def digits(n):
        return "".join(rng.choice(string.digits) for _ in range(n))

    def human_pw():
        words = [
            "Pilbara",
            "Escondida",
            "Haulpak",
            "Dragline",
            "Cobre",
            "Ouro",
            "Tonnage",
            "Flotacion",
            "Crusher",
            "Benchfloor",
            "Kalgoorlie",
            "Chuqui",
            "Carajas",
            "Bauxite",
            "Sag Mill",
            "Tailings",
            "Laterite",
            "Overburden",
            "Minerita",
            "Orebody",
            "Goldfields",
            "Atacama",
        ]
        w = rng.choice(words).replace(" ", "")
        style = rng.randrange(4)
        if style == 0:
            return f"{w}{rng.randint(2019, 2026)}{rng.choice('!#$@*')}"
        if style == 1:
            return f"{w.lower()}{rng.choice('.-_')}{digits(3)}{rng.choice('!?#')}{rng.choice(string.ascii_uppercase)}"
        if style == 2:
            return f"{w}#{digits(2)}{w[:2].lower()}{rng.choice('%&$')}"
        return f"{w}{rng.choice(['_', '@', '.'])}{rng.choice(['Site', 'Mina', 'Pit', 'Camp', 'Plant'])}{digits(2)}"

    def b64block(nlines, width=64):
        return "\n".join(r(B64, width) for _ in range(nlines)) + "\n" + r(B64, 24) + "=="

    def add(label, kind, text, value):
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def many(label, kind, gen, templates):
        for t in templates:
            v = gen()
            add(label, kind, t.replace("{v}", v), v)

    S = "secret"
    B = "benign"

    # ------------------------------------------------------------------ secrets
    many(
        S,
        "aws_access_key_id",
        lambda: "AKIA" + r(UPPER_DIG, 16),
        [
            "aws configure set aws_access_key_id {v} --profile fms-telemetry-prod",
            "Handover: the drone survey upload bucket uses key {v} (secret in the msg below), don't rotate until the survey contractor is off site.",
            "AWS_ACCESS_KEY_ID={v}",
            "[profile plant-historian-export]\naws_access_key_id = {v}\nregion = ap-southeast-2",
        ],
    )
    many(
        S,
        "aws_secret_access_key",
        lambda: r(ALNUM + "+/", 40),
        [
            "AWS_SECRET_ACCESS_KEY={v}",
            "aws_secret_access_key = {v}",
            "Clave secreta del bucket de topografía (dron): {v} — no la compartan por WhatsApp.",
            "boto3.client('s3', aws_access_key_id=os.environ['AWS_KEY'], aws_secret_access_key='{v}')",
        ],
    )
    many(
        S,
        "github_pat",
        lambda: "ghp_" + r(ALNUM, 36),
        [
            "git clone https://oreops-bot:{v}@github.com/orecorp/fleet-dispatch-adapters.git",
            "GH_TOKEN={v}",
            "Token do GitHub pro pipeline da usina (expira em 90 dias): {v}",
            "agent memory: use {v} to push the blast-design exporter fixes; it has repo scope only",
        ],
    )
    many(
        S,
        "gitlab_pat",
        lambda: "glpat-" + r(ALNUM + "-_", 20),
        [
            "export GITLAB_TOKEN={v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.orecorp.internal/api/v4/projects/112/pipelines',
            "Jeton GitLab du dépôt scada-configs (compte de service): {v}",
        ],
    )
    many(
        S,
        "slack_webhook_url",
        lambda: (
            f"https://hooks.slack.com/services/T{r(UPPER_DIG, 8)}/B{r(UPPER_DIG, 10)}/{r(ALNUM, 24)}"
        ),
        [
            "SLACK_BLAST_ALERTS_WEBHOOK={v}",
            "The dispatch watchdog posts truck-down alerts to #pit-ops via {v}",
            'alerting:\n  slack:\n    url: "{v}"\n    channel: "#magazine-alarms"',
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"SAG mill trip\"}' {v}",
        ],
    )
    many(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{digits(12)}-{digits(13)}-{r(ALNUM, 24)}",
        [
            "SLACK_BOT_TOKEN={v}",
            "bot token for the shift-handover bot: {v} (workspace orecorp-sites)",
            '{"slack": {"token": "{v}", "default_channel": "C04CAMPOPS"}}',
            "Token del bot de Slack que publica los turnos del campamento: {v}",
        ],
    )
    many(
        S,
        "teams_webhook_url",
        lambda: (
            f"https://orecorp.webhook.office.com/webhookb2/{r(HEX, 8)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 12)}@{r(HEX, 8)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 12)}/IncomingWebhook/{r(HEX, 32)}/{r(HEX, 8)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 12)}/V2{r(ALNUM, 40)}"
        ),
        [
            "TEAMS_WEBHOOK_PLANT={v}",
            "Webhook do Teams (canal Manutenção Usina): {v}",
            "notify:\n  teams: {v}",
        ],
    )
    many(
        S,
        "postgres_url_password",
        lambda: f"postgresql://fms_app:{human_pw()}@pg-fms-01.pit.orecorp.internal:5432/dispatch",
        [
            "DATABASE_URL={v}",
            "Handover: dispatch DB is {v} — read replica on pg-fms-02.",
            "psql \"{v}\" -c 'select count(*) from truck_cycles where shift_id = 4411'",
            "sqlalchemy.url = {v}",
            "Cadena de conexión BD despacho (faena norte): {v}",
        ],
    )
    many(
        S,
        "mssql_connection_string",
        lambda: (
            f"Server=tcp:wbr-sql01.plant.local,1433;Database=Weighbridge;User Id=wb_svc;Password={human_pw()};TrustServerCertificate=True"
        ),
        [
            '"ConnectionStrings": { "Weighbridge": "{v}" }',
            "weighbridge app config -> {v}",
            '<add name="Historian" connectionString="{v}" providerName="System.Data.SqlClient" />',
            "String de conexão da balança rodoviária: {v}",
        ],
    )
    many(
        S,
        "mongodb_uri_password",
        lambda: (
            f"mongodb+srv://campops:{r(ALNUM, 16)}@camp-cluster0.{r(LOWER_DIG, 5)}.mongodb.net/rooms?retryWrites=true&w=majority"
        ),
        [
            "MONGO_URI={v}",
            "camp room allocation service connects with {v}",
            "URI Mongo do sistema de alojamento: {v}",
            "spring.data.mongodb.uri={v}",
        ],
    )
    many(
        S,
        "azure_storage_connection_string",
        lambda: (
            f"DefaultEndpointsProtocol=https;AccountName=oreplantlogs;AccountKey={r(B64, 86)}==;EndpointSuffix=core.windows.net"
        ),
        [
            'AZURE_STORAGE_CONNECTION_STRING="{v}"',
            "historian nightly export writes CSVs to blob using {v}",
            "Chaîne de connexion du stockage Azure (journaux usine): {v}",
            'az storage blob upload --connection-string "{v}" -c shiftlogs -f shift_4411.csv',
        ],
    )
    many(
        S,
        "sendgrid_api_key",
        lambda: f"SG.{r(ALNUM + '-_', 22)}.{r(ALNUM + '-_', 43)}",
        [
            "SENDGRID_API_KEY={v}",
            "camp check-in emails go out through SendGrid, key {v}",
            "Clave SendGrid para avisos de tronadura a comunidades: {v}",
        ],
    )
    many(
        S,
        "twilio_auth_token",
        lambda: r(HEX, 32),
        [
            "TWILIO_AUTH_TOKEN={v}",
            "twilio:\n  account_sid: AC"
            + "3f9a1c2e7b8d4f6a0c5e9b1d2a7f4c8e"
            + "\n  auth_token: {v}",
            "Blast siren SMS fallback uses Twilio, auth token {v}, sender +61 8 9100 0000",
            "Token de autenticação Twilio (SMS de evacuação): {v}",
        ],
    )
    many(
        S,
        "stripe_secret_key",
        lambda: "sk_live_" + r(ALNUM, 99),
        [
            "STRIPE_SECRET_KEY={v}",
            "camp canteen kiosk charges visitors' cards with {v}",
            'stripe.api_key = "{v}"',
        ],
    )
    many(
        S,
        "rsa_private_key_pem",
        lambda: (
            "-----BEGIN RSA PRIVATE KEY-----\n" + b64block(6) + "\n-----END RSA PRIVATE KEY-----"
        ),
        [
            "Key for the historian OPC UA client cert (do NOT commit):\n{v}",
            "vsat-mgmt.key:\n{v}",
            "clé privée du serveur de pesage :\n{v}",
        ],
    )
    many(
        S,
        "openssh_private_key",
        lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + b64block(5, 70)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        [
            "id_ed25519 for the jump host into the pit network:\n{v}",
            "Chave SSH do gateway da mina subterrânea:\n{v}",
            "cat > ~/.ssh/plc_bastion <<EOF\n{v}\nEOF",
        ],
    )

    def jwt():
        return (
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9."
            + r(ALNUM + "-_", rng.randint(120, 180))
            + "."
            + r(ALNUM + "-_", 86)
        )

    many(
        S,
        "jwt_bearer_token",
        jwt,
        [
            'curl -H "Authorization: Bearer {v}" https://fms-api.orecorp.internal/v2/trucks/HT-214/status',
            "Bearer token del portal de alojamiento (válido 12 h): {v}",
            "ACCESS_TOKEN={v}",
            "2026-11-30T06:02:11Z DEBUG fleet-sync request headers={'Authorization': 'Bearer {v}'}",
        ],
    )
    many(
        S,
        "google_api_key",
        lambda: "AIza" + r(ALNUM + "-_", 35),
        [
            "GOOGLE_MAPS_API_KEY={v}",
            "Bus tracker for the camp-to-pit shuttle calls Maps with key {v}",
            "Chave da API Google (rota ônibus alojamento): {v}",
            "maps:\n  apiKey: {v}",
        ],
    )
    many(
        S,
        "fleet_dispatch_api_key",
        lambda: "fmsk_live_" + r(LOWER_DIG, 32),
        [
            "FMS_API_KEY={v}",
            "Dispatch vendor integration key (truck payloads -> SAP): {v}",
            "x-fms-key: {v}",
            "Llave API del sistema de despacho de camiones (Rajo Sur): {v}",
            'fleet:\n  vendor: dispatch-cloud\n  api_key: "{v}"',
        ],
    )
    many(
        S,
        "scada_hmi_password",
        human_pw,
        [
            "SCADA engineering workstation login: operator / {v}",
            "HMI concentrator: usuario ingeniero, contraseña {v}",
            "Senha do supervisório da britagem primária: {v}",
            "Night shift note: the WinCC admin pwd is now {v} after the vendor visit",
            "Mot de passe de l'IHM broyeur SAG : {v}",
        ],
    )
    many(
        S,
        "plc_project_password",
        lambda: (
            rng.choice(["Plc", "Logix", "S7", "Ctrl"])
            + digits(4)
            + rng.choice(["!", "#", "$"])
            + r(string.ascii_lowercase, 3)
        ),
        [
            "Flotation PLC project file is password protected: {v}",
            "Contraseña del proyecto TIA Portal (chancado): {v}",
            "PLC-201 source protection key = {v}",
            "Senha do projeto do CLP da filtragem: {v}",
        ],
    )
    many(
        S,
        "magazine_keypad_code",
        lambda: digits(rng.choice([4, 6])),
        [
            "Explosives magazine 2 keypad code: {v} (changed after the audit)",
            "Código del polvorín principal: {v}#",
            "Código do paiol de explosivos: {v}",
            "Detonator store door code is {v} — shotfirers only.",
            "Code du dépôt d'explosifs : {v}",
        ],
    )
    many(
        S,
        "magazine_alarm_pin",
        lambda: digits(4),
        [
            "Magazine intruder alarm disarm PIN {v}",
            "PIN alarma polvorín: {v}",
            "alarm panel (detonator magazine) — master PIN: {v}",
            "Senha de desarme do alarme do paiol: {v}",
        ],
    )
    many(
        S,
        "camp_door_code",
        lambda: digits(rng.choice([4, 5, 6])),
        [
            "Camp Block D laundry door code {v}",
            "Código de la puerta del casino (cocina): {v}*",
            "Kitchen cold-room keypad: {v}",
            "Código da porta do alojamento bloco 7: {v}",
        ],
    )
    many(
        S,
        "camp_wifi_psk",
        human_pw,
        [
            "Camp WiFi (SSID OreCamp-Guest) password: {v}",
            "Clave wifi campamento pabellón 3: {v}",
            'wpa_passphrase="{v}"',
            "Senha Wi-Fi do refeitório: {v}",
            "Mot de passe Wi-Fi de la base vie : {v}",
        ],
    )
    many(
        S,
        "ipsec_preshared_key",
        lambda: r(ALNUM, 32),
        [
            "crypto isakmp key {v} address 203.0.113.40",
            "Site-to-site VPN (remote camp -> Perth DC) PSK: {v}",
            'conn minesite\n  authby=secret\n# /etc/ipsec.secrets\n203.0.113.10 198.51.100.22 : PSK "{v}"',
            "Clave precompartida VPN faena–Santiago: {v}",
        ],
    )
    many(
        S,
        "vsat_modem_admin_password",
        human_pw,
        [
            "iDirect modem at the exploration camp: admin / {v}",
            "VSAT hub web UI login root, pwd {v}",
            "Senha admin do modem satelital (sonda exploração): {v}",
            "Mot de passe admin du terminal VSAT : {v}",
        ],
    )
    many(
        S,
        "radio_aes_key",
        lambda: r("0123456789ABCDEF", 64),
        [
            "DMR encryption key (AES-256, pit ops talkgroup): {v}",
            "Llave de cifrado radios Tetra (voladura): {v}",
            "radio codeplug -> privacy key 1 = {v}",
            "Chave AES dos rádios da mina: {v}",
        ],
    )
    many(
        S,
        "shared_login_password",
        human_pw,
        [
            "Shared login for the control room PC: ccr_shift / {v}",
            "Login compartido del portal de combustible: supervisor / {v}",
            "Acesso compartilhado do sistema de manutenção: planejador / {v}",
            "Le compte partagé du poste de dispatch : dispatch01, mdp {v}",
            "Crusher contractor portal — user orecorp_site, pass {v}",
        ],
    )
    many(
        S,
        "historian_password",
        human_pw,
        [
            "PI Data Archive piadmin password: {v}",
            "historian:\n  host: pi-da01.plant.local\n  user: pi_reader\n  password: {v}",
            "Contraseña del historiador (usuario de lectura): {v}",
            "HISTORIAN_PASSWORD={v}",
        ],
    )
    many(
        S,
        "datadog_api_key",
        lambda: r(HEX, 32),
        [
            "DD_API_KEY={v}",
            "datadog agent on the fuel farm gateway: api_key: {v}",
            "Chave do Datadog (monitoração do link satelital): {v}",
        ],
    )
    many(
        S,
        "npm_token",
        lambda: "npm_" + r(ALNUM, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v}",
            "token npm pour publier @orecorp/camp-ui : {v}",
        ],
    )
    many(
        S,
        "docker_hub_pat",
        lambda: "dckr_pat_" + r(ALNUM + "-_", 27),
        [
            "echo {v} | docker login -u orecorpsites --password-stdin",
            "DOCKERHUB_TOKEN={v}",
            "Token Docker Hub para las imágenes del gateway de faena: {v}",
        ],
    )
    many(
        S,
        "azure_client_secret",
        lambda: r(ALNUM, 3) + "8Q~" + r(ALNUM + "-_.~", 34),
        [
            "AZURE_CLIENT_SECRET={v}",
            "App registration 'camp-roster-sync' client secret: {v}",
            "Segredo do app Azure AD (integração RH/alojamento): {v}",
            '"clientSecret": "{v}",',
        ],
    )
    many(
        S,
        "gcp_service_account_private_key",
        lambda: (
            "-----BEGIN PRIVATE KEY-----\\n"
            + "\\n".join(r(B64, 64) for _ in range(4))
            + "\\n-----END PRIVATE KEY-----\\n"
        ),
        [
            '{"type": "service_account", "project_id": "orecorp-geodata", "private_key_id": "'
            + "7a1c9e0b3d5f2a4c6e8b0d1f3a5c7e9b2d4f6a8c"
            + '", "private_key": "{v}", "client_email": "geo-export@orecorp-geodata.iam.gserviceaccount.com"}',
            'service-account.json (BigQuery ore-grade exports) private_key: "{v}"',
            'GCP_SA_PRIVATE_KEY="{v}"',
        ],
    )
    many(
        S,
        "telegram_bot_token",
        lambda: f"{digits(10)}:AA{r(ALNUM + '-_', 33)}",
        [
            "TELEGRAM_BOT_TOKEN={v}",
            "Bot do Telegram que avisa queda do link da mina: {v}",
            "https://api.telegram.org/bot{v}/sendMessage?chat_id=-1001234567890&text=Tronadura+15h",
            "Jeton du bot Telegram des alertes de tir : {v}",
        ],
    )
    many(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + r(ALNUM + "-_", 120),
        [
            "OPENAI_API_KEY={v}",
            "the maintenance-report summariser agent uses {v}",
            "Llave OpenAI del asistente de reportes de turno: {v}",
        ],
    )
    many(
        S,
        "snmp_write_community",
        lambda: r(ALNUM, 12),
        [
            "snmp-server community {v} RW 10",
            "SNMP write community on the pit mesh radios: {v}",
            "Comunidade SNMP de escrita dos switches da usina: {v}",
            "snmpset -v2c -c {v} 10.40.2.11 1.3.6.1.2.1.2.2.1.7.3 i 2",
        ],
    )
    many(
        S,
        "ldap_bind_password",
        human_pw,
        [
            "LDAP_BIND_PASSWORD={v}",
            "ldap:\n  bind_dn: cn=svc-fms,ou=service,dc=orecorp,dc=local\n  bind_password: '{v}'",
            "Senha de bind LDAP do portal do alojamento: {v}",
            "ldapsearch -x -H ldaps://dc01.orecorp.local -D svc-camp@orecorp.local -w '{v}' '(sAMAccountName=jsmith)'",
        ],
    )

    def codes():
        return " ".join(f"{digits(4)}-{digits(4)}" for _ in range(5))

    many(
        S,
        "mfa_recovery_codes",
        codes,
        [
            "Recovery codes for the dispatch vendor portal admin: {v}",
            "Códigos de recuperação MFA (conta do superintendente): {v}",
            "Backup codes (break-glass, plant OT jump host): {v}",
            "Codes de secours 2FA du compte VSAT : {v}",
        ],
    )
    many(
        S,
        "totp_seed",
        lambda: r(B32, 32),
        [
            "otpauth://totp/OreCorp:ccr-shared?secret={v}&issuer=OreCorp",
            "TOTP seed for the shared control-room account: {v}",
            "Semilla 2FA de la cuenta compartida de despacho: {v}",
            "MFA secret (paste into authenticator): {v}",
        ],
    )
    many(
        S,
        "mqtt_password",
        lambda: r(ALNUM, 20),
        [
            "mosquitto_pub -h mqtt.pit.local -u tyre-sensors -P {v} -t fleet/tpms -m ping",
            "MQTT_PASSWORD={v}",
            "Senha do broker MQTT (sensores de pneu): {v}",
            'mqtt:\n  broker: tcp://10.40.8.5:1883\n  username: conveyor-vib\n  password: "{v}"',
        ],
    )
    many(
        S,
        "camp_booking_api_key",
        lambda: "cmpk_" + r(UPPER_DIG, 8) + "_" + r(LOWER_DIG, 28),
        [
            "CAMP_BOOKING_API_KEY={v}",
            "Accommodation system integration key (rosters -> rooms): {v}",
            "Llave API del sistema de reservas del campamento: {v}",
            "curl -H 'X-Api-Key: {v}' https://api.campbook.example-vendor.com/v1/rooms?site=NORTH",
        ],
    )
    many(
        S,
        "fuel_system_api_token",
        lambda: "fuel_" + r(HEX, 40),
        [
            "FUEL_MGMT_TOKEN={v}",
            "Fuel farm dispensers report to the vendor cloud using {v}",
            "Token do sistema de abastecimento (comboios): {v}",
            "Authorization: Token {v}",
        ],
    )
    many(
        S,
        "assay_lab_sftp_password",
        human_pw,
        [
            "sftp assay@results.labvendor.example -> password {v}",
            "Contraseña SFTP del laboratorio químico (leyes): {v}",
            "Senha SFTP do laboratório de análises: {v}",
            "lftp -u orecorp,'{v}' sftp://sftp.assaylab.example/outgoing",
        ],
    )
    many(
        S,
        "redis_url_password",
        lambda: f"redis://:{r(ALNUM, 24)}@redis-dispatch.pit.local:6379/0",
        [
            "REDIS_URL={v}",
            "truck position cache: {v}",
            "URL Redis del caché de posiciones: {v}",
        ],
    )
    many(
        S,
        "smtp_password",
        human_pw,
        [
            "SMTP_PASSWORD={v}",
            "spring.mail.password={v}",
            "Senha SMTP do relatório diário da mina: {v}",
        ],
    )
    many(
        S,
        "vault_token",
        lambda: "hvs." + r(ALNUM + "_-", 90),
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
            "Jeton Vault (root, à révoquer après migration) : {v}",
        ],
    )

    # ------------------------------------------------------------------ benign
    many(
        B,
        "aws_example_key",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        [
            "AWS docs example id {v} — use it in the README, never a real key.",
            "aws_access_key_id = {v}  # documented example",
            "Ejemplo de la documentación de AWS: {v}",
        ],
    )
    many(
        B,
        "git_commit_sha",
        lambda: r(HEX, 40),
        [
            "Deployed fms-adapters at commit {v} to the pit gateway.",
            "Rollback do supervisório para o commit {v}.",
            "revert {v} (broke payload sync)",
            "Versión desplegada: {v}",
        ],
    )
    many(
        B,
        "sha256_digest",
        lambda: r(HEX, 64),
        [
            "PLC firmware image SHA-256: {v}",
            "sha256sum vsat-fw-4.2.1.bin -> {v}",
            "Checksum del instalador del despacho: {v}",
            "Empreinte SHA-256 du fichier de configuration : {v}",
        ],
    )
    many(
        B,
        "docker_image_digest",
        lambda: "sha256:" + r(HEX, 64),
        [
            "image: registry.orecorp.internal/camp-api@{v}",
            "pinned gateway image digest {v}",
            "Digest da imagem do coletor MQTT: {v}",
        ],
    )
    many(
        B,
        "asset_uuid",
        lambda: (
            f"{r(HEX, 8)}-{r(HEX, 4)}-4{r(HEX, 3)}-{rng.choice('89ab')}{r(HEX, 3)}-{r(HEX, 12)}"
        ),
        [
            "Asset id in the maintenance system: {v} (ball mill 2)",
            "asset_uuid: {v}",
            "ID del activo (chancador primario): {v}",
            '{"asset": "{v}", "type": "conveyor", "name": "CV-101"}',
        ],
    )
    many(
        B,
        "haul_truck_fleet_number",
        lambda: f"HT{rng.randint(100, 299)}",
        [
            "{v} parked at the go-line with a blown strut, tagged out.",
            "Caminhão {v} em manutenção preventiva (PM 500h).",
            "Camión {v} asignado a pala PA04, turno B.",
            "Truck {v} to report to the fuel bay before crib.",
        ],
    )
    many(
        B,
        "equipment_serial_number",
        lambda: rng.choice(["SSP", "EFX", "RTP", "KMH"]) + digits(5),
        [
            "Machine serial {v} (793F) — warranty claim attached.",
            "Número de série do equipamento: {v}",
            "Serie equipo perforadora: {v}",
            "Product ID / serial for the dealer: {v}",
        ],
    )
    many(
        B,
        "vehicle_vin",
        lambda: r("ABCDEFGHJKLMNPRSTUVWXYZ0123456789", 17),
        [
            "Light vehicle LV-23 VIN {v}, rego due in March.",
            "Chassi da caminhonete de apoio: {v}",
            "VIN camioneta supervisor: {v}",
            "Numéro VIN du pick-up de la brigade : {v}",
        ],
    )
    many(
        B,
        "explosive_product_code",
        lambda: rng.choice(["UN0241", "UN0360", "UN3375", "UN0042", "UN0029"]),
        [
            "Bulk emulsion on the MPU is {v}, class 1.5D.",
            "Produto transportado: {v} — conferir placa do veículo.",
            "Producto en bodega: {v}, compatibilidad D.",
            "Classification transport : {v}",
        ],
    )
    many(
        B,
        "magazine_licence_number",
        lambda: f"MAG-{rng.choice(['WA', 'QLD', 'NT'])}-{digits(6)}",
        [
            "Magazine licence {v} expires 30/06; renewal lodged.",
            "Licença do paiol (referência interna): {v}",
            "Licencia del polvorín registrada como {v}",
            "Licence number on the door placard: {v}",
        ],
    )
    many(
        B,
        "blast_id",
        lambda: (
            f"BL-{rng.choice(['N', 'S', 'E'])}{rng.randint(1, 9)}-{rng.randint(1000, 1480)}-{digits(3)}"
        ),
        [
            "Blast {v} fired 13:02, no misfires, fume monitoring clear.",
            "Tronadura {v} reprogramada por viento.",
            "Desmonte {v}: carga total 42 t.",
            "shot id {v} linked to the vibration report",
        ],
    )
    many(
        B,
        "drillhole_id",
        lambda: f"{rng.choice(['RC', 'DD', 'BH'])}{rng.randint(24, 26)}-{digits(4)}",
        [
            "Collar survey done for {v}.",
            "Sondaje {v} terminado a 312 m.",
            "Furo {v} com desvio acima do tolerado.",
            "hole_id,{v},east,512344.2",
        ],
    )
    many(
        B,
        "assay_sample_id",
        lambda: f"S{digits(7)}",
        [
            "Assay results for {v} came back 1.42 g/t Au.",
            "Muestra {v} repetida por duplicado de campo.",
            "Amostra {v} enviada ao laboratório em lote 55.",
            "sample {v} flagged as standard CRM failure",
        ],
    )
    many(
        B,
        "sap_work_order",
        lambda: "4" + digits(7),
        [
            "WO {v} raised for the apron feeder chain.",
            "Orden de trabajo SAP {v} cerrada.",
            "Ordem de serviço {v} aguardando peças.",
            "Ordre de travail {v} : remplacement des liners.",
        ],
    )
    many(
        B,
        "purchase_order_number",
        lambda: "45" + digits(8),
        [
            "PO {v} for replacement GET on the excavator.",
            "Pedido de compra {v} aprovado.",
            "OC {v} — neumáticos 53/80R63.",
            "Bon de commande {v} : cordeau détonant et boosters.",
        ],
    )
    many(
        B,
        "camp_booking_reference",
        lambda: "BK-" + r(UPPER_DIG, 6),
        [
            "Camp booking ref {v} for the shutdown crew (12 rooms).",
            "Reserva campamento {v}, ingreso lunes.",
            "Reserva do alojamento {v} confirmada.",
            "Réservation base vie {v} annulée.",
        ],
    )
    many(
        B,
        "camp_room_code",
        lambda: f"{rng.choice('ABCDEFG')}{rng.randint(1, 9)}-{rng.randint(1, 40):02d}",
        [
            "Room {v}, aircon fault logged with facilities.",
            "Habitación {v} asignada a contratista.",
            "Quarto {v} liberado após desmobilização.",
            "| {v} | J. Nguyen | FIFO 8/6 | out Thu |",
        ],
    )
    many(
        B,
        "charter_flight_pnr",
        lambda: r("ABCDEFGHJKLMNPQRSTUVWXYZ", 6),
        [
            "FIFO charter Perth -> site Wed 05:40, PNR {v}.",
            "Localizador vuelo charter: {v}",
            "Localizador do voo fretado: {v}",
            "Booking code {v} for the roster swap",
        ],
    )
    many(
        B,
        "incident_ticket",
        lambda: "INC" + digits(7),
        [
            "Link down at the exploration camp, logged as {v}.",
            "Ticket {v}: falla VPN faena.",
            "Chamado {v} aberto para a TI.",
            "Incident {v} — SCADA historian lag.",
        ],
    )
    many(
        B,
        "change_request_number",
        lambda: "CHG" + digits(7),
        [
            "PLC logic change approved under {v}.",
            "Cambio {v} aprobado por el CAB.",
            "Mudança {v} agendada para a parada.",
            "Firewall rule for the VSAT link goes in with {v} on Sunday.",
        ],
    )
    many(
        B,
        "ip_address_subnet",
        lambda: f"10.{rng.randint(20, 60)}.{rng.randint(0, 15)}.0/24",
        [
            "OT network for the concentrator is {v}.",
            "Red de las palas: {v}",
            "Rede dos CLPs da britagem: {v}",
            "allow from {v} to historian port 5450",
        ],
    )
    many(
        B,
        "mac_address",
        lambda: ":".join(r("0123456789ABCDEF", 2) for _ in range(6)),
        [
            "Mesh radio on shovel PA02 MAC {v}",
            "MAC del tag de proximidad: {v}",
            "Endereço MAC do gateway da balança: {v}",
            "dhcp reservation: host fuelbay-ctrl { hardware ethernet {v}; fixed-address 10.44.3.20; }",
        ],
    )
    many(
        B,
        "vsat_terminal_id",
        lambda: f"VT-{digits(8)}",
        [
            "VSAT terminal {v} at the exploration camp, beam 14.",
            "Terminal satelital {v} reportado sin señal.",
            "ID do terminal satelital: {v}",
            "Identifiant du terminal VSAT du camp d'exploration : {v}",
        ],
    )
    many(
        B,
        "radio_talkgroup_id",
        lambda: str(rng.randint(9000, 9999)),
        [
            "Pit ops talkgroup is TG {v}; blasting uses the next one.",
            "Grupo de conversación radio mina: {v}",
            "Talkgroup {v} reservado para emergência.",
            "| Blasting | TG {v} | encrypted: yes |",
        ],
    )
    many(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(ALNUM + "+/", 43),
        [
            "Add to authorized_keys on the pit bastion: {v} ops@orecorp",
            "Chave pública do técnico de automação: {v}",
            "Clave pública para el servidor del despacho: {v}",
            "{v} dispatch-agent",
        ],
    )
    many(
        B,
        "pem_certificate",
        lambda: (
            "-----BEGIN CERTIFICATE-----\nMIID" + b64block(5)[4:] + "\n-----END CERTIFICATE-----"
        ),
        [
            "OPC UA server cert (public, safe to share):\n{v}",
            "Certificado público do portal do alojamento:\n{v}",
            "CA root for plant.local:\n{v}",
        ],
    )
    many(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + r(ALNUM, 99),
        [
            "Canteen kiosk front-end publishable key: {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "Clave pública de Stripe (kiosco casino): {v}",
            "<script>Stripe('{v}')</script> on the canteen top-up page",
        ],
    )
    many(
        B,
        "recaptcha_site_key",
        lambda: "6L" + r(ALNUM + "-_", 38),
        [
            "reCAPTCHA site key on the visitor induction form: {v}",
            'data-sitekey="{v}"',
            "Chave do site reCAPTCHA (portal de visitantes): {v}",
            "RECAPTCHA_SITE_KEY={v}",
        ],
    )
    many(
        B,
        "env_var_reference",
        lambda: rng.choice(
            [
                "${FMS_API_KEY}",
                "$SCADA_PASSWORD",
                "${env:HISTORIAN_PASSWORD}",
                "%MQTT_PASSWORD%",
                "os.environ['VAULT_TOKEN']",
            ]
        ),
        [
            "api_key: {v}",
            "password = {v}",
            "Contraseña tomada de {v}, no escribirla en el repo.",
            "Senha vem de {v} no runner.",
        ],
    )
    many(
        B,
        "placeholder_value",
        lambda: rng.choice(
            [
                "<your-fms-key-here>",
                "REPLACE_ME",
                "xxxxxxxxxxxxxxxx",
                "<PASSWORD>",
                "changeit-in-vault",
            ]
        ),
        [
            "FMS_API_KEY={v}",
            "password: {v}  # set per site",
            "Plantilla: clave = {v}",
            'token: "{v}"',
        ],
    )
    many(
        B,
        "masked_secret",
        lambda: rng.choice(
            [
                lambda: "fmsk_live_" + "*" * 28 + r(LOWER_DIG, 4),
                lambda: "sk_live_…" + r(ALNUM, 4),
                lambda: "AKIA" + "*" * 12 + r(UPPER_DIG, 4),
                lambda: "ghp_" + "*" * 32 + r(ALNUM, 4),
            ]
        )(),
        [
            "Vendor portal shows the key as {v}.",
            "Llave actual (enmascarada): {v}",
            "Token mascarado no log: {v}",
            "2026-12-01 07:14:03 INFO auth ok key={v}",
        ],
    )
    many(
        B,
        "vault_path",
        lambda: rng.choice(
            [
                "secret/data/ot/scada/hmi-admin",
                "kv/sites/north/magazine/keypad",
                "secret/camp/wifi/guest",
                "kv/ot/vsat/modem-admin",
            ]
        ),
        [
            "HMI admin password lives at {v} — read it from there.",
            "Código del polvorín: ver {v}",
            "vault kv get {v}",
            "Senha no Vault em {v}",
        ],
    )
    many(
        B,
        "secrets_manager_arn",
        lambda: (
            f"arn:aws:secretsmanager:ap-southeast-2:{digits(12)}:secret:fms/dispatch-db-{r(ALNUM, 6)}"
        ),
        [
            "DB creds now come from {v}",
            "secretArn: {v}",
            "ARN del secreto de la BD de despacho: {v}",
            "aws secretsmanager describe-secret --secret-id {v}",
        ],
    )
    many(
        B,
        "revoked_key_notice",
        lambda: "fmsk_live_" + r(LOWER_DIG, 32),
        [
            "REVOKED 2026-11-02: {v} (leaked in a screenshot), replacement is in Vault.",
            "Llave revocada, ya no funciona: {v}",
            "Chave revogada pelo fornecedor em 10/11: {v}",
            "Old dispatch key {v} was rotated and disabled — keep for audit trail only.",
        ],
    )
    many(
        B,
        "password_policy_text",
        lambda: rng.choice(
            [
                "minimum 14 characters",
                "rotate every 90 days",
                "no reuse of the last 12",
                "MFA required for OT remote access",
            ]
        ),
        [
            "OT password standard: {v}.",
            "Política de contraseñas: {v}.",
            "Política de senhas da TA: {v}.",
            "Règle : {v}.",
        ],
    )
    many(
        B,
        "firmware_version",
        lambda: f"v{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 99)}",
        [
            "Upgraded the haul truck display units to {v}.",
            "Firmware del módem satelital: {v}",
            "Versão do firmware do CLP: {v}",
            "release {v} of camp-api deployed",
        ],
    )
    many(
        B,
        "vendor_account_number",
        lambda: "ACCT-" + digits(8),
        [
            "Tyre supplier account {v}.",
            "Número de cuenta cliente (explosivos): {v}",
            "Conta do fornecedor de combustível: {v}",
            "Numéro de compte client chez le fournisseur d'explosifs : {v}",
        ],
    )
    many(
        B,
        "company_tax_id",
        lambda: rng.choice(
            [
                f"{rng.randint(76, 99)}.{digits(3)}.{digits(3)}-{rng.choice('0123456789K')}",
                f"{digits(2)}.{digits(3)}.{digits(3)}/0001-{digits(2)}",
                f"{digits(2)} {digits(3)} {digits(3)} {digits(3)}",
            ]
        ),
        [
            "Contractor RUT/CNPJ/ABN on the invoice: {v}",
            "RUT contratista: {v}",
            "CNPJ da empreiteira: {v}",
        ],
    )
    many(
        B,
        "pi_tag_name",
        lambda: rng.choice(
            ["CV101.WT.PV", "SAG01.PWR.PV", "FLOT2.LVL.SP", "THK01.TORQUE.PV", "PMP305.FLOW.PV"]
        ),
        [
            "Trend {v} over the last shift for the report.",
            "Tag del historiador: {v}",
            "Tag do PI para a vazão: {v}",
            "pi_tag: {v}",
        ],
    )
    many(
        B,
        "modbus_register",
        lambda: f"4{digits(4)}",
        [
            "Conveyor speed is holding register {v}.",
            "Registro Modbus del nivel de la celda: {v}",
            "Registrador Modbus da bomba: {v}",
        ],
    )
    many(
        B,
        "opcua_node_id",
        lambda: f"ns={rng.randint(2, 4)};s=Plant.Flotation.Cell{rng.randint(1, 12)}.Level",
        [
            "Subscribe to {v} at 1 s.",
            "NodeId OPC UA: {v}",
            'nodeId: "{v}"',
        ],
    )
    many(
        B,
        "mine_grid_coordinates",
        lambda: f"{rng.randint(510000, 530000)}E {rng.randint(7400000, 7420000)}N",
        [
            "Magazine location (MGA94 z50): {v}",
            "Coordenadas del polvorín: {v}",
            "Coordenadas do paiol: {v}",
        ],
    )
    many(
        B,
        "mining_tenement_number",
        lambda: f"M {rng.randint(15, 80)}/{rng.randint(100, 1500)}",
        [
            "Haul road crosses {v}, check the heritage survey.",
            "Concesión minera (ref. AU) {v}",
            "Tenement {v} renewal in progress.",
        ],
    )
    many(
        B,
        "employee_badge_number",
        lambda: "EMP" + digits(6),
        [
            "Shotfirer badge {v} authorised for magazine 2.",
            "Credencial del operador: {v}",
            "Crachá do técnico: {v}",
        ],
    )
    many(
        B,
        "k8s_secret_reference",
        lambda: rng.choice(["fms-db-credentials", "camp-api-secrets", "historian-reader"]),
        [
            "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: password",
            "kubectl get secret {v} -n pit-ops -o name",
            "Secret k8s usado: {v}",
        ],
    )
    many(
        B,
        "jwt_documented_example",
        lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "The jwt.io sample token {v} is what the unit tests use.",
            "Ejemplo de JWT de la documentación: {v}",
            "Token de exemplo (jwt.io), não é real: {v}",
        ],
    )
    many(
        B,
        "slack_channel_id",
        lambda: "C" + r(UPPER_DIG, 10),
        [
            "Post blast notices to channel {v} (#blast-notices).",
            "ID del canal de Slack de turnos: {v}",
            "channel_id: {v}",
        ],
    )
    many(
        B,
        "azure_tenant_client_id",
        lambda: f"{r(HEX, 8)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 4)}-{r(HEX, 12)}",
        [
            "AZURE_TENANT_ID={v}",
            "camp-roster-sync app (client) id: {v}",
            "ID do locatário Azure: {v}",
        ],
    )
    many(
        B,
        "emergency_contact_number",
        lambda: f"+61 8 9{digits(3)} {digits(4)}",
        [
            "Site emergency line {v}, radio channel 1 as backup.",
            "Teléfono de emergencia faena: {v}",
            "Telefone da brigada: {v}",
        ],
    )
    many(
        B,
        "dispatch_telemetry_log",
        lambda: f"payload={rng.randint(180, 240)}.{rng.randint(0, 9)}t",
        [
            "2026-12-02T03:11:45Z INFO cycle truck=HT214 shovel=PA04 {v} dump=ROM2",
            "evento descarga camión HT118 {v}",
            "carga registrada {v} no britador",
        ],
    )
    many(
        B,
        "bucket_name",
        lambda: rng.choice(
            ["orecorp-drone-survey-raw", "orecorp-historian-exports", "orecorp-camp-backups"]
        ),
        [
            "Upload orthomosaics to s3://{v}/2026/12/",
            "Bucket de respaldos: {v}",
            "gsutil ls gs://{v}",
        ],
    )
    many(
        B,
        "md5_file_checksum",
        lambda: r(HEX, 32),
        [
            "MD5 of the block model export: {v}",
            "md5 del archivo de malla de perforación: {v}",
            "checksum MD5 do backup: {v}",
        ],
    )
    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

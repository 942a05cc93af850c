# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 103: pharmaceutical manufacturing plant (GMP, LIMS/MES, cleanroom, serialisation).

Brief: memory notes kept by the IT/OT, QA, QC-lab and packaging teams of a
pharmaceutical manufacturing site and their AI coding agents: LIMS and MES
integration, chromatography data systems, cleanroom access control, environmental
monitoring, lab instruments, serialisation and EU hub reporting, plus the usual
developer stack. Rows are prose notes, handovers, chat lines, commands, config,
.env, YAML, JSON, URLs, tables and log lines in English, German, French and Italian.
"secret" rows hold live credentials; "benign" rows hold look-alikes a careful
reader would keep (GMP identifiers, GS1 codes, hashes, public keys, placeholders,
masked or revoked values, vault references, policy text).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_103.py [out.jsonl]

Kinds, secret: alarm_disarm_code, anthropic_api_key, atlassian_api_token, aws_access_key_id,
aws_secret_access_key, azure_client_secret, azure_storage_connection_string, badge_admin_pin,
basic_auth_url, bearer_token, bitlocker_recovery_key, cds_password, cleanroom_door_pin,
database_url_with_password, datadog_api_key, docker_hub_token, emvs_client_secret, encryption_key,
gcp_service_account_key, generic_password, github_pat, gitlab_pat, google_api_key,
grafana_service_token, historian_password, instrument_admin_password, jwt_signing_secret,
ldap_bind_password, lims_admin_password, mes_service_password, mfa_recovery_codes, mqtt_password,
mssql_connection_string, npm_token, openai_api_key, oracle_password, plc_password, private_key_pem,
pypi_token, safe_combination, sap_rfc_password, sendgrid_api_key, serialisation_api_key,
session_cookie, shared_login_password, slack_bot_token, slack_webhook_url, smtp_password,
snmp_community, sql_sa_password, ssh_private_key, stripe_secret_key, teams_webhook_url,
telegram_bot_token, twilio_auth_token, vault_token, veeva_password, vpn_psk, wifi_psk.
Kinds, benign: analytics_id, aws_account_id, azure_tenant_id, badge_number, batch_number,
build_version, calibration_certificate, capa_number, cas_number, certificate_thumbprint,
change_control_id, connection_string_no_password, container_image_digest, crc32_checksum,
deviation_id, documented_example_key, eln_reference, emvs_client_id, env_var_reference, epc_urn,
equipment_id, expiry_date, feature_flag, git_commit_sha, gln, gs1_element_string, gtin, hostname,
iban, instrument_serial_number, internal_url, ip_address, jwks_key_id, k8s_secret_reference,
lims_sample_id, logbook_entry, mac_address, masked_secret, md5_checksum, ndc_code, oauth_client_id,
particle_count, password_hash, password_policy_text, phone_extension, placeholder, ppn_product_code,
public_key_pem, purchase_order, recaptcha_site_key, redacted_value, regex_pattern,
revoked_credential, room_number, sap_material_number, serialisation_company_id, sgtin_serial,
sha256_digest, slack_channel_id, sop_number, sops_encrypted_value, sscc, ssh_key_fingerprint,
ssh_public_key, stripe_publishable_key, tax_or_license_id, temperature_reading, ticket_reference,
twilio_account_sid, uuid_identifier, vault_path, webhook_url_placeholder, x509_certificate,
yield_value.
"""

import json
import random
import string
import sys

SEED = 213015

UP = string.ascii_uppercase + string.digits
LO = string.ascii_lowercase + string.digits
AL = string.ascii_letters + string.digits
HX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
URLSAFE = string.ascii_letters + string.digits + "-_"


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []

    def s(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def up(n):
        return s(UP, n)

    def lo(n):
        return s(LO, n)

    def al(n):
        return s(AL, n)

    def hx(n):
        return s(HX, n)

    def dg(n):
        return s(string.digits, n)

    def b64(n):
        return s(B64, n)

    def uuid():
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{r.choice('89ab')}{hx(3)}-{hx(12)}"

    def add(label, kind, text, value):
        assert value in text, (kind, text, value)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def S(kind, text, value):
        add("secret", kind, text, value)

    def B(kind, text, value):
        add("benign", kind, text, value)

    # ------------------------------------------------------------------ SECRETS
    # AWS access key id + secret
    v = "AKIA" + s(string.ascii_uppercase + "234567", 16)
    S(
        "aws_access_key_id",
        f"export AWS_ACCESS_KEY_ID={v}  # lims-archive uploader, batch record PDFs to S3",
        v,
    )
    v = "AKIA" + s(string.ascii_uppercase + "234567", 16)
    S(
        "aws_access_key_id",
        f"Handover: the EM data lake sync runs as IAM user em-sync, key {v}, rotate before the Q1 audit.",
        v,
    )
    v = "AKIA" + s(string.ascii_uppercase + "234567", 16)
    S(
        "aws_access_key_id",
        f"[profile serialisation-prod]\naws_access_key_id = {v}\nregion = eu-central-1",
        v,
    )

    v = al(40)
    S("aws_secret_access_key", f"aws_secret_access_key = {v}", v)
    v = b64(40).replace("+", "k")
    S("aws_secret_access_key", f'AWS_SECRET_ACCESS_KEY="{v}" # em-sync, do not share outside OT', v)
    v = al(40)
    S(
        "aws_secret_access_key",
        f"Für den Audit-Trail-Export: Secret Key ist {v} (gehört zu em-sync).",
        v,
    )

    # GitHub
    v = "ghp_" + al(36)
    S("github_pat", f"git clone https://{v}@github.com/site-ot/mes-recipes.git", v)
    v = "ghp_" + al(36)
    S(
        "github_pat",
        f"Agent note: CI for the LIMS connector needs GH_TOKEN={v} to pull the private instrument-drivers repo.",
        v,
    )
    v = "github_pat_" + al(22) + "_" + al(59)
    S("github_pat", f"gh auth login --with-token <<< {v}", v)
    v = "github_pat_" + al(22) + "_" + al(59)
    S("github_pat", f"token pour le dépôt serialisation-gateway : {v}", v)

    # GitLab
    v = "glpat-" + s(URLSAFE, 20)
    S("gitlab_pat", f"GITLAB_TOKEN={v}", v)
    v = "glpat-" + s(URLSAFE, 20)
    S(
        "gitlab_pat",
        f'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.site.local/api/v4/projects/42/pipelines',
        v,
    )
    v = "glrt-" + s(URLSAFE, 20)
    S(
        "gitlab_pat",
        f"gitlab-runner register --url https://gitlab.site.local --token {v} --executor docker  # QC runner",
        v,
    )

    # Slack
    v = f"https://hooks.slack.com/services/T{up(8)}/B{up(10)}/{al(24)}"
    S("slack_webhook_url", f"EM_ALARM_WEBHOOK={v}", v)
    v = f"https://hooks.slack.com/services/T{up(10)}/B{up(10)}/{al(24)}"
    S("slack_webhook_url", f"Posting deviation alerts to #qa-deviations via {v}", v)
    v = f"https://hooks.slack.com/services/T{up(8)}/B{up(11)}/{al(24)}"
    S("slack_webhook_url", f'notify:\n  slack: "{v}"\n  on: [oos, excursion]', v)

    v = f"xoxb-{dg(12)}-{dg(13)}-{al(24)}"
    S("slack_bot_token", f"SLACK_BOT_TOKEN={v}  # lims-bot posts OOS results", v)
    v = f"xoxb-{dg(11)}-{dg(13)}-{al(24)}"
    S("slack_bot_token", f"Il bot della linea di confezionamento usa il token {v}", v)
    v = f"xoxp-{dg(12)}-{dg(12)}-{dg(13)}-{hx(32)}"
    S("slack_bot_token", f'client = WebClient(token="{v}")', v)

    # Teams webhook
    v = f"https://contoso-pharma.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{hx(32)}/{uuid()}/V2{al(40)}"
    S("teams_webhook_url", f"Teams-Kanal 'Reinraum Alarme': {v}", v)
    v = f"https://outlook.office.com/webhook/{uuid()}@{uuid()}/IncomingWebhook/{hx(32)}/{uuid()}"
    S(
        "teams_webhook_url",
        f'$hook = "{v}"; Invoke-RestMethod -Uri $hook -Method Post -Body $json',
        v,
    )
    v = f"https://siteops.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{hx(32)}/{uuid()}"
    S("teams_webhook_url", f'{{"teams_webhook": "{v}", "channel": "QC Lab"}}', v)

    # Azure
    v = f"DefaultEndpointsProtocol=https;AccountName=gmparchive{lo(4)};AccountKey={b64(86)}==;EndpointSuffix=core.windows.net"
    S("azure_storage_connection_string", f'AZURE_STORAGE_CONNECTION_STRING="{v}"', v)
    v = f"DefaultEndpointsProtocol=https;AccountName=ebrpdf;AccountKey={b64(86)}==;EndpointSuffix=core.windows.net"
    S(
        "azure_storage_connection_string",
        f"Electronic batch record PDFs go to blob, conn string: {v}",
        v,
    )
    v = b64(86) + "=="
    S(
        "azure_storage_connection_string",
        f"az storage blob upload --account-name emtrends --account-key {v} -c raw -f particles.csv",
        v,
    )

    v = f"{al(3)}8Q~{s(AL + '.-_~', 31)}"
    S("azure_client_secret", f"AZURE_CLIENT_SECRET={v}", v)
    v = f"{al(3)}7Q~{s(AL + '.-_', 31)}"
    S(
        "azure_client_secret",
        f"App registration 'veeva-sync' client secret (expires 2027-06): {v}",
        v,
    )
    v = f"{al(3)}8Q~{s(AL + '-_', 31)}"
    S(
        "azure_client_secret",
        f"spring.cloud.azure.active-directory.credential.client-secret: {v}",
        v,
    )

    # Databases
    pw = f"Lims{dg(4)}!Prod"
    v = f"postgresql://lims_app:{pw}@pg-lims01.site.local:5432/lims"
    S("database_url_with_password", f"DATABASE_URL={v}", v)
    pw = f"Qc_{al(10)}"
    v = f"postgres://em_writer:{pw}@10.40.2.15/envmon?sslmode=require"
    S("database_url_with_password", f"psql \"{v}\" -c 'select count(*) from particle_counts'", v)
    v = f"mysql://mes_ro:Werk{dg(2)}#Halle{dg(1)}@mysql-mes.site.local:3306/pasx_reports"
    S("database_url_with_password", f"Verbindung für Berichte: {v}", v)
    v = f"mongodb+srv://serial:{al(16)}@cluster0.{lo(5)}.mongodb.net/epcis"
    S("database_url_with_password", f"MONGO_URI={v}", v)

    v = f"Ch{dg(3)}rom#{al(5)}"
    S("oracle_password", f"sqlplus LIMS_ADMIN/{v}@//ora-lims.site.local:1521/LIMSPRD", v)
    v = f"Starlims{dg(2)}${al(4)}"
    S(
        "oracle_password",
        f"jdbc.url=jdbc:oracle:thin:@ora-lims:1521/LIMSPRD\njdbc.user=STARLIMS_SVC\njdbc.password={v}",
        v,
    )
    v = f"{al(6)}_{dg(4)}"
    S("oracle_password", f"Le schéma ELN est accessible avec eln_owner / {v} sur LIMSVAL.", v)

    v = f"Server=sql-mes01\\PASX;Database=PASX;User Id=pasx_svc;Password=Pasx!{dg(4)}{al(3)};Encrypt=True;"
    S("mssql_connection_string", f'"ConnectionStrings": {{ "Mes": "{v}" }}', v)
    v = f"Data Source=sql-em02;Initial Catalog=EMS;User ID=ems_rw;Password=Reinraum{dg(3)}%;"
    S("mssql_connection_string", f"Stringa di connessione EMS: {v}", v)
    v = f"Mes2026#{al(6)}"
    S(
        "sql_sa_password",
        f"sqlcmd -S sql-mes01 -U sa -P '{v}' -Q \"SELECT TOP 10 * FROM EBR_Header\"",
        v,
    )

    # Payment / messaging
    v = "sk_live_" + al(99)
    S("stripe_secret_key", f"STRIPE_SECRET_KEY={v}", v)
    v = "rk_live_" + al(99)
    S("stripe_secret_key", f"Samples webshop (clinical supply reorder) restricted key: {v}", v)
    v = "sk_live_" + al(24)
    S("stripe_secret_key", f'stripe.api_key = "{v}"', v)

    v = f"SG.{s(URLSAFE, 22)}.{s(URLSAFE, 43)}"
    S("sendgrid_api_key", f"SENDGRID_API_KEY={v}  # CoA mail to customers", v)
    v = f"SG.{s(URLSAFE, 22)}.{s(URLSAFE, 43)}"
    S("sendgrid_api_key", f"Le certificat d'analyse part par SendGrid, clé {v}", v)
    v = f"SG.{s(URLSAFE, 22)}.{s(URLSAFE, 43)}"
    S("sendgrid_api_key", f"sendgrid:\n  api_key: {v}\n  from: qc-release@site.example", v)

    v = hx(32)
    S("twilio_auth_token", f"TWILIO_AUTH_TOKEN={v}  # SMS bei Kühlraum-Temperaturabweichung", v)
    v = hx(32)
    S("twilio_auth_token", f"client = Client('AC{hx(32)}', '{v}')", v)
    v = "SK" + hx(32)
    vs = al(32)
    S("twilio_auth_token", f"Twilio API key {v} secret {vs} used by the cold-chain pager.", vs)

    v = f"{dg(10)}:AA{s(URLSAFE, 33)}"
    S("telegram_bot_token", f"TELEGRAM_BOT_TOKEN={v}  # nightly shift handover bot", v)
    v = f"{dg(9)}:AA{s(URLSAFE, 33)}"
    S(
        "telegram_bot_token",
        f"curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-100{dg(10)} -d text='Autoclave 3 cycle failed'",
        v,
    )

    # AI providers
    v = "sk-proj-" + s(URLSAFE, 156)
    S("openai_api_key", f"OPENAI_API_KEY={v}", v)
    v = "sk-proj-" + s(URLSAFE, 48)
    S(
        "openai_api_key",
        f"Agent memory: deviation-summariser uses OpenAI key {v} (billing: QA cost centre).",
        v,
    )
    v = "sk-ant-api03-" + s(URLSAFE, 93) + "AA"
    S("anthropic_api_key", f"ANTHROPIC_API_KEY={v}", v)
    v = "sk-ant-api03-" + s(URLSAFE, 93) + "AA"
    S("anthropic_api_key", f'client = anthropic.Anthropic(api_key="{v}")  # SOP drafting helper', v)

    # Private keys
    body = "\n".join(b64(64) for _ in range(6))
    v = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    S("private_key_pem", f"Serialisation signing key for EPCIS uploads (line 4):\n{v}", v)
    body = "\n".join(b64(64) for _ in range(3))
    v = f"-----BEGIN EC PRIVATE KEY-----\n{body}\n-----END EC PRIVATE KEY-----"
    S(
        "private_key_pem",
        f"tls:\n  key: |\n    {v.replace(chr(10), chr(10) + '    ')}",
        v.replace("\n", "\n    "),
    )
    body = "\n".join(b64(64) for _ in range(5))
    v = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    S("private_key_pem", f"Clé privée du serveur OPC UA (MES) :\n{v}", v)
    v = (
        "-----BEGIN PRIVATE KEY-----\\n"
        + "\\n".join(b64(64) for _ in range(4))
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    S(
        "gcp_service_account_key",
        f'{{"type": "service_account", "project_id": "qc-trending", "private_key_id": "{hx(40)}", "private_key": "{v}"}}',
        v,
    )
    v = (
        "-----BEGIN PRIVATE KEY-----\\n"
        + "\\n".join(b64(64) for _ in range(3))
        + "\\n-----END PRIVATE KEY-----"
    )
    S("gcp_service_account_key", f'GCP_SA_PRIVATE_KEY="{v}"', v)

    body = "\n".join(b64(70) for _ in range(5))
    v = f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{body}\n-----END OPENSSH PRIVATE KEY-----"
    S("ssh_private_key", f"Deploy key for the HPLC export share (ansible user):\n{v}", v)
    body = "\n".join(b64(70) for _ in range(4))
    v = f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{body}\n-----END OPENSSH PRIVATE KEY-----"
    S("ssh_private_key", f"cat > ~/.ssh/id_ed25519_pasx <<'KEY'\n{v}\nKEY", v)

    # Tokens
    v = f"eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.{s(URLSAFE, 120)}.{s(URLSAFE, 86)}"
    S(
        "bearer_token",
        f'curl -H "Authorization: Bearer {v}" https://lims.site.local/api/v2/samples?status=pending',
        v,
    )
    v = f"eyJhbGciOiJIUzI1NiJ9.{s(URLSAFE, 90)}.{s(URLSAFE, 43)}"
    S("bearer_token", f"MES_API_TOKEN={v}", v)
    v = al(48)
    S("bearer_token", f"Authorization: Token {v}", v)

    v = b64(44)
    S("jwt_signing_secret", f"JWT_SECRET={v}", v)
    v = hx(64)
    S("jwt_signing_secret", f'auth:\n  hs256_secret: "{v}"  # eLogbook sessions', v)
    v = f"Gmp-Logbook-{al(20)}"
    S("jwt_signing_secret", f"app.config['SECRET_KEY'] = '{v}'", v)

    # Vendor / GMP system passwords
    v = f"LabWare{dg(2)}!"
    S("lims_admin_password", f"LabWare LIMS admin (SYSTEM account) on LIMSPRD: password {v}", v)
    v = f"Proben#{dg(4)}"
    S("lims_admin_password", f"LIMS Admin-Login für die Validierungsumgebung: admin / {v}", v)
    v = f"Qc{al(4)}!{dg(3)}"
    S("lims_admin_password", f"| LIMS | lims_sysadm | {v} | LIMSVAL |", v)
    v = f"Echantillon{dg(2)}*"
    S("lims_admin_password", f"mot de passe du compte LIMS_BATCH (import des résultats) : {v}", v)

    v = f"Pasx{dg(4)}#{r.choice(['Sued', 'Nord', 'West'])}"
    S(
        "mes_service_password",
        f"PAS-X service account pasx_int password {v}, used by the SAP interface.",
        v,
    )
    v = f"Syncade!{dg(3)}{al(3)}"
    S("mes_service_password", f'mes:\n  user: syncade_api\n  password: "{v}"', v)
    v = f"Lotto{dg(4)}$Mes"
    S("mes_service_password", f"Password dell'account MES per l'interfaccia bilance: {v}", v)
    v = f"Herstellung{dg(2)}&{al(2)}"
    S("mes_service_password", f"MES_SERVICE_PASSWORD='{v}'", v)

    v = f"Empower{dg(3)}!"
    S(
        "cds_password",
        f"Empower 3 system administrator: user 'System', pw {v} (only for disaster recovery)",
        v,
    )
    v = f"Chromeleon#{dg(2)}{al(2)}"
    S("cds_password", f"Chromeleon CM7 Admin im Labor 2.14: {v}", v)
    v = f"Hplc-{al(6)}"
    S("cds_password", f"OpenLab CDS service login for the scheduler: svc_openlab / {v}", v)

    v = dg(6)
    S("cleanroom_door_pin", f"Code porte SAS grade B (bâtiment 3) : {v}#", v)
    v = dg(4)
    S(
        "cleanroom_door_pin",
        f"Reinraum Zone C, Personalschleuse PAL-2, Türcode {v} (gilt ab Montag)",
        v,
    )
    v = dg(5)
    S(
        "cleanroom_door_pin",
        f"Handover night shift: filling suite airlock keypad code is {v}, changed after the contractor left.",
        v,
    )
    v = dg(4)
    S("cleanroom_door_pin", f"Codice tastierino magazzino quarantena: {v}", v)

    v = dg(4)
    S(
        "alarm_disarm_code",
        f"Intrusion alarm QC building: disarm code {v}, then call security on 2231.",
        v,
    )
    v = dg(6)
    S("alarm_disarm_code", f"Einbruchmeldeanlage Lager Betäubungsmittel: Unscharf-Code {v}", v)
    v = dg(4)
    S("alarm_disarm_code", f"Code de désarmement alarme, local stupéfiants : {v}", v)

    v = f"Agilent{dg(2)}!"
    S("instrument_admin_password", f"HPLC 1290 #07 local Windows admin: labadmin / {v}", v)
    v = f"Mettler{dg(4)}"
    S("instrument_admin_password", f"Waage XPR 205 (Raum 1.22) Supervisor-Passwort: {v}", v)
    v = f"Karl{dg(2)}Fischer#"
    S(
        "instrument_admin_password",
        f"KF titrator admin password is {v} -- needed to unlock method editing",
        v,
    )
    v = dg(4)
    S("instrument_admin_password", f"Balance PIN for the Administrator user profile: {v}", v)
    v = f"Shimadzu_{dg(3)}"
    S("instrument_admin_password", f"LabSolutions admin sulla GC-2030: {v}", v)

    v = f"PIhist{dg(3)}!{al(2)}"
    S("historian_password", f"PI Data Archive piadmin password: {v}", v)
    v = f"Historian#{dg(4)}"
    S("historian_password", f"historian:\n  host: pi-srv01\n  user: pi_reader\n  pass: {v}", v)
    v = f"Trend{al(5)}{dg(2)}"
    S(
        "historian_password",
        f"Zugang OSIsoft PI Vision für Trendanalyse Autoklav: pi_vision / {v}",
        v,
    )

    v = f"TL-{al(40)}"
    S("serialisation_api_key", f"TRACELINK_API_KEY={v}", v)
    v = hx(48)
    S("serialisation_api_key", f"Systech UniSecure gateway api key: {v}", v)
    v = f"optel_{lo(32)}"
    S("serialisation_api_key", f'serialisation:\n  provider: optel\n  api_key: "{v}"', v)
    v = al(32)
    S("serialisation_api_key", f"X-Api-Key: {v}  (CMO serial number request, line 5)", v)

    v = al(24)
    S(
        "emvs_client_secret",
        f"NMVS / securPharm Client-Secret für die Packmittel-Verifikation: {v}",
        v,
    )
    v = f"{al(8)}-{al(8)}-{al(8)}"
    S("emvs_client_secret", f"EU hub OBP connection: client_id=OBP-{dg(6)}, client_secret={v}", v)
    v = b64(32)
    S(
        "emvs_client_secret",
        f"<MvoCredentials><User>obp_upload</User><Password>{v}</Password></MvoCredentials>",
        v,
    )

    v = f"S7prot{dg(3)}"
    S("plc_password", f"TIA Portal: Schutzpasswort der CPU 1516 (Abfüllung) = {v}", v)
    v = f"Line{dg(1)}Pack!{dg(2)}"
    S("plc_password", f"Packaging line 4 PLC know-how protection password: {v}", v)
    v = dg(6)
    S("plc_password", f"HMI Comfort Panel, Benutzer 'Instandhaltung', Passwort {v}", v)

    v = f"Lab{dg(4)}Wlan!"
    S("wifi_psk", f"WLAN QC-LAB-IoT, WPA2-Schlüssel: {v}", v)
    v = f"{al(6)}-{al(6)}-{al(6)}"
    S("wifi_psk", f'wpa_passphrase="{v}"  # ssid EM-SENSORS', v)
    v = f"Granulation{dg(3)}"
    S("wifi_psk", f"Mot de passe Wi-Fi visiteurs auditeurs (salle de réunion B) : {v}", v)

    v = al(32)
    S("vpn_psk", f"IPsec PSK zum CMO-Standort (Tunnel zu Lohnhersteller): {v}", v)
    v = f"{al(12)}{dg(4)}"
    S("vpn_psk", f"crypto isakmp key {v} address 203.0.113.14", v)
    v = b64(44)
    S(
        "vpn_psk",
        f"[Peer]\nPublicKey = {b64(43)}=\nPresharedKey = {v}\nEndpoint = vpn.site.example:51820",
        v,
    )

    v = " ".join(f"{dg(4)}-{dg(4)}" for _ in range(5))
    S("mfa_recovery_codes", f"Backup codes for the qa-admin Veeva account: {v}", v)
    v = "\n".join(f"{lo(5)}-{lo(5)}" for _ in range(4))
    S("mfa_recovery_codes", f"GitHub recovery codes (site-ot org owner):\n{v}", v)
    v = ", ".join(dg(8) for _ in range(4))
    S("mfa_recovery_codes", f"Wiederherstellungscodes für das MFA des Notfallkontos: {v}", v)

    v = "-".join(dg(6) for _ in range(8))
    S(
        "bitlocker_recovery_key",
        f"BitLocker recovery key for CDS acquisition PC LAB-PC-0147: {v}",
        v,
    )
    v = "-".join(dg(6) for _ in range(8))
    S("bitlocker_recovery_key", f"Clé de récupération BitLocker (poste pesée) : {v}", v)

    v = hx(32)
    S("datadog_api_key", f"DD_API_KEY={v}", v)
    v = hx(40)
    S("datadog_api_key", f"datadog:\n  api_key: {hx(32)}\n  app_key: {v}", v)
    v = hx(32)
    S("datadog_api_key", f"docker run -e DD_API_KEY={v} -e DD_SITE=datadoghq.eu datadog/agent:7", v)

    v = "npm_" + al(36)
    S("npm_token", f"//registry.npmjs.org/:_authToken={v}", v)
    v = "npm_" + al(36)
    S("npm_token", f"NPM_TOKEN={v}  # publishes @site/label-templates", v)
    v = "pypi-AgEIcHlwaS5vcmcCJ" + s(URLSAFE, 150)
    S("pypi_token", f"[pypi]\nusername = __token__\npassword = {v}", v)
    v = "pypi-AgEIcHlwaS5vcmcCJ" + s(URLSAFE, 120)
    S("pypi_token", f"twine upload dist/* -u __token__ -p {v}", v)

    v = "dckr_pat_" + s(URLSAFE, 27)
    S("docker_hub_token", f"echo {v} | docker login -u siteotbuild --password-stdin", v)
    v = "dckr_pat_" + s(URLSAFE, 27)
    S("docker_hub_token", f"DOCKERHUB_TOKEN={v}", v)

    v = "AIza" + s(URLSAFE, 35)
    S(
        "google_api_key",
        f"GOOGLE_MAPS_SERVER_KEY={v}  # distribution route planning, server side",
        v,
    )
    v = "AIza" + s(URLSAFE, 35)
    S("google_api_key", f"https://translation.googleapis.com/language/translate/v2?key={v}", v)

    v = "hvs." + s(URLSAFE, 24)
    S("vault_token", f"export VAULT_TOKEN={v}", v)
    v = "hvs.CAESI" + s(URLSAFE, 86)
    S(
        "vault_token",
        f"Root token vom Unseal heute morgen (bitte nach Migration widerrufen): {v}",
        v,
    )
    v = b64(44)
    S("vault_token", f"Unseal Key 1: {v}", v)

    v = f"Smtp{dg(4)}!{al(3)}"
    S(
        "smtp_password",
        f"spring.mail.username=lims-noreply@site.example\nspring.mail.password={v}",
        v,
    )
    v = al(16).lower()
    S(
        "smtp_password",
        f"App password for the QC release mailbox (Gmail relay): {v[:4]} {v[4:8]} {v[8:12]} {v[12:]}",
        f"{v[:4]} {v[4:8]} {v[8:12]} {v[12:]}",
    )
    v = f"Relay#{dg(3)}{al(4)}"
    S("smtp_password", f"EMAIL_HOST_PASSWORD='{v}'", v)

    v = f"Sap{dg(4)}Rfc!"
    S("sap_rfc_password", f"RFC-Benutzer MES_RFC im Mandant 100: Passwort {v}", v)
    v = f"{al(8)}#{dg(2)}"
    S("sap_rfc_password", f"ASHOST=sap-ecc01 SYSNR=00 CLIENT=100 USER=PI_LIMS PASSWD={v}", v)
    v = f"Qm{dg(3)}Insp!"
    S("sap_rfc_password", f"SAP QM inspection lot interface (LIMS <-> S/4): user QM_IF / {v}", v)

    v = f"Ldap{al(6)}{dg(2)}"
    S(
        "ldap_bind_password",
        f"ldap:\n  bind_dn: cn=svc_lims,ou=ServiceAccounts,dc=site,dc=local\n  bind_password: {v}",
        v,
    )
    v = f"Bind!{dg(4)}{al(2)}"
    S(
        "ldap_bind_password",
        f"ldapsearch -x -D 'svc_mes@site.local' -w '{v}' -H ldaps://dc01.site.local '(sAMAccountName=jdoe)'",
        v,
    )

    v = f"Veeva{dg(4)}#"
    S(
        "veeva_password",
        f"Veeva QualityDocs integration user vault_int@site.example, password {v}",
        v,
    )
    v = f"Qualita{dg(2)}!{al(3)}"
    S("veeva_password", f"Password utente di integrazione Veeva Vault QMS: {v}", v)

    v = f"Sterile{dg(3)}"
    S("basic_auth_url", f"https://admin:{v}@ems-gateway.site.local/api/v1/rooms", v)
    v = f"Part{dg(2)}icle{dg(1)}"
    S("basic_auth_url", f"Partikelzähler-Webinterface: http://service:{v}@10.40.7.21/config", v)
    v = f"{al(10)}"
    S("basic_auth_url", f"wget http://scan:{v}@labeller-l3.site.local/print/queue", v)

    v = f"Mqtt{dg(3)}!{al(3)}"
    S(
        "mqtt_password",
        f"mosquitto_pub -h mqtt.site.local -u em_sensor -P '{v}' -t cleanroom/B12/dp -m 15.2",
        v,
    )
    v = al(20)
    S(
        "mqtt_password",
        f"mqtt:\n  broker: tls://mqtt.site.local:8883\n  username: dp-monitor\n  password: {v}",
        v,
    )

    v = f"EMSwrite{dg(2)}"
    S("snmp_community", f"snmp-server community {v} RW  # particle counters VLAN 40", v)
    v = f"{al(8)}{dg(2)}"
    S(
        "snmp_community",
        f"SNMPv3 authPriv für die Kühlschränke: user emsmon, auth {v}, priv {al(10)}",
        v,
    )

    v = f"{dg(2)}-{dg(2)}-{dg(2)}"
    S("safe_combination", f"Combination of the reference-standards safe in QC store: {v}", v)
    v = dg(4)
    S("safe_combination", f"Schlüsseltresor Pförtner (Generalschlüssel Reinraum): Code {v}", v)
    v = f"{dg(2)} {dg(2)} {dg(2)}"
    S("safe_combination", f"Combinaison armoire à clés stupéfiants : {v}", v)

    v = f"{r.choice(['Tablette', 'Blister', 'Ampulle'])}{dg(2)}!{r.choice(['Montag', 'Freitag'])}"
    S("shared_login_password", f"Gemeinsamer Login Linienrechner Verpackung 2: bediener / {v}", v)
    v = f"Shift{dg(4)}"
    S(
        "shared_login_password",
        f"Shared operator account on the blister line HMI: op_shared / {v} (yes, I know)",
        v,
    )
    v = f"Turno{dg(2)}notte!"
    S("shared_login_password", f"Account condiviso postazione ispezione visiva: ispezione / {v}", v)
    v = f"Qualite{dg(4)}"
    S("shared_login_password", f"Compte partagé poste de pesée centrale : pesee / {v}", v)

    v = f"{dg(3)}{r.choice(string.ascii_uppercase)}{dg(2)}"
    S(
        "sql_sa_password",
        f"docker run -e 'ACCEPT_EULA=Y' -e 'MSSQL_SA_PASSWORD=Val{v}!x' mcr.microsoft.com/mssql/server:2022-latest",
        f"Val{v}!x",
    )
    v = f"Root{dg(4)}#Lab"
    S("sql_sa_password", f"MYSQL_ROOT_PASSWORD={v}", v)

    v = "ATATT3xFfGF0" + s(URLSAFE, 180) + "=" + hx(8).upper()
    S("atlassian_api_token", f"JIRA_API_TOKEN={v}", v)
    v = "ATATT3xFfGF0" + s(URLSAFE, 180) + "=" + hx(8).upper()
    S(
        "atlassian_api_token",
        f"curl -u qa-bot@site.example:{v} https://site.atlassian.net/rest/api/3/issue/CAPA-112",
        v,
    )

    v = f"glsa_{al(32)}_{hx(8)}"
    S("grafana_service_token", f"GRAFANA_TOKEN={v}  # EM dashboards provisioning", v)
    v = f"glsa_{al(32)}_{hx(8)}"
    S("grafana_service_token", f"Grafana-Service-Account-Token für die Reinraum-Dashboards: {v}", v)

    v = f"{dg(4)}"
    S("badge_admin_pin", f"Access-control console (Lenel) master PIN: {v}", v)
    v = f"{al(4)}{dg(4)}!"
    S("badge_admin_pin", f"Zutrittskontrolle Admin (Kaba exos) – Passwort: {v}", v)
    v = dg(6)
    S("badge_admin_pin", f"Code maître badgeuse vestiaires : {v}", v)

    v = b64(43) + "="
    S("encryption_key", f"AUDIT_TRAIL_AES_KEY={v}", v)
    v = hx(64)
    S("encryption_key", f"ebr:\n  signature_hmac_key: {v}", v)
    v = "base64:" + b64(43) + "="
    S("encryption_key", f"APP_KEY={v}", v)

    v = f"{al(5)}{dg(3)}"
    S("generic_password", f"Password for the stability-chamber vendor portal: {v}", v)
    v = f"Autoklav{dg(2)}!{al(2)}"
    S(
        "generic_password",
        f"Passwort Autoklav-Steuerung Siemens Comfort Panel (Benutzer QA): {v}",
        v,
    )
    v = f"Lyo{dg(4)}${al(3)}"
    S("generic_password", f"freeze dryer SCADA engineer login: eng / {v}", v)

    v = f"SESS{hx(40).upper()}"
    S("session_cookie", f"Cookie: JSESSIONID={v}; Path=/labware", v)
    v = s(URLSAFE, 64)
    S("session_cookie", f"curl -b 'sessionid={v}' https://eqms.site.local/api/capa/", v)

    # extra rows for kinds with few rows
    v = "sk-ant-api03-" + s(URLSAFE, 93) + "AA"
    S("anthropic_api_key", f"Clé Anthropic de l'agent de revue des dossiers de lot : {v}", v)
    v = "sk-proj-" + s(URLSAFE, 132)
    S("openai_api_key", f"llm:\n  provider: openai\n  api_key: {v}", v)
    v = "dckr_pat_" + s(URLSAFE, 27)
    S("docker_hub_token", f"Docker-Hub-Token für den Build-Agenten im OT-Netz: {v}", v)
    v = "AIza" + s(URLSAFE, 35)
    S(
        "google_api_key",
        f'<meta name="fleet-tracking-key" content="{v}"> <!-- unrestricted, fix! -->',
        v,
    )
    v = f"glsa_{al(32)}_{hx(8)}"
    S(
        "grafana_service_token",
        f"curl -H 'Authorization: Bearer {v}' https://grafana.site.local/api/dashboards/uid/em-gradeA",
        v,
    )
    v = f"Annuaire{dg(3)}!"
    S(
        "ldap_bind_password",
        f"Compte de liaison LDAP pour le LIMS : CN=svc_lims, mot de passe {v}",
        v,
    )
    v = f"Sensore{dg(2)}#{al(3)}"
    S("mqtt_password", f"Broker MQTT sonde umidità magazzino: utente hum_probe, password {v}", v)
    v = "npm_" + al(36)
    S("npm_token", f"npm config set //npm.site.local/:_authToken {v}", v)
    v = "pypi-AgEIcHlwaS5vcmcCJ" + s(URLSAFE, 140)
    S("pypi_token", f"TWINE_PASSWORD={v}  # lims-client package", v)
    v = f"{dg(3)}{hx(29)}"
    S("session_cookie", f"Set-Cookie: PASX_SESSION={v}; HttpOnly; Secure", v)
    v = f"{dg(9)}:AA{s(URLSAFE, 33)}"
    S("telegram_bot_token", f"Token del bot Telegram per gli allarmi frigoriferi: {v}", v)
    v = f"Vault{dg(4)}Docs!"
    S(
        "veeva_password",
        f'veeva:\n  vault_dns: site.veevavault.com\n  username: api.qdocs@site.example\n  password: "{v}"',
        v,
    )
    v = "-".join(dg(6) for _ in range(8))
    S(
        "bitlocker_recovery_key",
        f"manage-bde -unlock E: -RecoveryPassword {v}  # USB-Stick mit Rohdaten",
        v,
    )

    # ------------------------------------------------------------------ BENIGN
    v = f"B{dg(2)}{r.choice(['A', 'K', 'T'])}{dg(4)}"
    B("batch_number", f"Batch {v} released by QP on 2026-11-30, shelf life 36 months.", v)
    v = f"{dg(2)}{up(2)}{dg(4)}"
    B("batch_number", f"Charge {v} gesperrt bis zur Abschluss der Abweichung.", v)
    v = f"L{dg(7)}"
    B("batch_number", f"Lotto {v}: rilascio in attesa del certificato di analisi.", v)
    v = f"{dg(6)}-{dg(2)}"
    B("batch_number", f"| batch | {v} | granulation | complete |", v)

    v = f"0{dg(13)}"
    B("gtin", f"GTIN {v} for the 28-tablet blister pack (DE market).", v)
    v = f"0{dg(13)}"
    B("gtin", f'product:\n  gtin: "{v}"\n  market: FR', v)
    v = f"{dg(14)}"
    B("gtin", f"Code produit GS1 (GTIN-14) de la boîte de 10 ampoules : {v}", v)

    v = up(12)
    B("sgtin_serial", f"Pack serial {v} decommissioned as SAMPLE at line 3.", v)
    v = f"{dg(10)}{up(6)}"
    B(
        "sgtin_serial",
        f"Seriennummer {v} im NMVS als 'dispensed' gemeldet – Kundenreklamation prüfen.",
        v,
    )
    v = up(20)
    B("sgtin_serial", f'{{"serial": "{v}", "status": "ACTIVE"}}', v)

    v = f"(01)0{dg(13)}(17)271130(10)B{dg(6)}(21){up(12)}"
    B("gs1_element_string", f"Scanned DataMatrix: {v}", v)
    v = f"01{dg(14)}21{up(10)}\x1d17280531\x1d10L{dg(5)}"
    B("gs1_element_string", f"Raw scanner output (GS = \\x1d): {v!r}", repr(v)[1:-1])
    v = f"(01)0{dg(13)}(21){up(10)}(10)B{dg(4)}(17)270630"
    B("gs1_element_string", f"Stringa DataMatrix letta dalla telecamera: {v}", v)

    v = f"00{dg(16)}"
    B("sscc", f"Pallet SSCC {v} shipped to wholesaler, aggregation verified.", v)
    v = f"3{dg(17)}"
    B("sscc", f"SSCC der Versandpalette: {v}", v)
    v = f"(00)3{dg(17)}"
    B("sscc", f"Etiquette palette : {v}", v)

    v = dg(13)
    B("gln", f"Ship-to GLN {v} (wholesaler Hamburg).", v)
    v = dg(13)
    B("gln", f'site:\n  gln: "{v}"\n  name: Werk Süd', v)

    v = f"urn:epc:id:sgtin:{dg(7)}.0{dg(5)}.{up(12)}"
    B("epc_urn", f"EPCIS event epc: {v}", v)
    v = f"urn:epc:id:sscc:{dg(7)}.{dg(10)}"
    B("epc_urn", f"<epc>{v}</epc>", v)
    v = f"urn:epc:idpat:sgtin:{dg(7)}.0{dg(5)}.*"
    B("epc_urn", f"Query filter MATCH_epc={v}", v)

    v = f"{dg(5)}-{dg(3)}-{dg(2)}"
    B("ndc_code", f"NDC {v} – US packer code for the 30 count bottle.", v)
    v = f"{dg(4)}-{dg(4)}-{dg(2)}"
    B("ndc_code", f'ndc: "{v}"  # 10 mL vial', v)

    v = f"DEV-2026-{dg(4)}"
    B("deviation_id", f"{v}: particle excursion grade A, filling line 2, root cause pending.", v)
    v = f"AB-{dg(6)}"
    B("deviation_id", f"Abweichung {v} eröffnet: Differenzdruck Schleuse < 10 Pa über 4 min.", v)
    v = f"DEV{dg(7)}"
    B("deviation_id", f"Déviation {v} clôturée, CAPA associée.", v)

    v = f"CAPA-{dg(4)}-{dg(3)}"
    B("capa_number", f"{v} effectiveness check due 2027-02-15.", v)
    v = f"CAPA{dg(6)}"
    B("capa_number", f"Azione correttiva {v} assegnata al reparto produzione.", v)

    v = f"CC-{dg(2)}-{dg(4)}"
    B(
        "change_control_id",
        f"Change control {v} covers the LIMS 8.2 upgrade; IQ/OQ scripts attached.",
        v,
    )
    v = f"ÄA-{dg(5)}"
    B("change_control_id", f"Änderungsantrag {v}: neuer Partikelzähler in Raum B1.07.", v)
    v = f"CC{dg(7)}"
    B("change_control_id", f"| {v} | MES recipe v14 | approved |", v)

    v = f"S{dg(2)}-{dg(6)}"
    B("lims_sample_id", f"LIMS sample {v} logged for assay and dissolution.", v)
    v = f"{up(3)}{dg(8)}"
    B("lims_sample_id", f"Probe {v} wurde vom Labor abgelehnt (Behälter beschädigt).", v)
    v = f"EM-{dg(4)}-{dg(5)}"
    B("lims_sample_id", f"Settle plate {v} read at 120 h: 0 CFU.", v)
    v = str(r.randint(100000, 999999))
    B("lims_sample_id", f"GET /lims/api/samples/{v}/results -> 200", v)

    v = f"HPLC-{dg(3)}"
    B("equipment_id", f"Equipment {v} out of calibration since Friday, do not use.", v)
    v = f"EQ{dg(6)}"
    B("equipment_id", f"Geräte-ID {v} (Waage XPR, Raum 1.22) – Kalibrierung fällig.", v)
    v = f"AUT-{dg(2)}"
    B("equipment_id", f"Autoclave {v} cycle 4411 F0 = 18.2 min, passed.", v)
    v = f"LYO{dg(2)}-{up(1)}"
    B("equipment_id", f"Lyophilisateur {v} en maintenance préventive cette semaine.", v)

    v = f"{up(2)}{dg(8)}"
    B("instrument_serial_number", f"Instrument S/N {v}, firmware 3.2.1.", v)
    v = f"B{dg(9)}"
    B("instrument_serial_number", f"Seriennummer Waage: {v}", v)
    v = f"{dg(4)}{up(4)}{dg(3)}"
    B("instrument_serial_number", f"Numero di serie del contatore particelle: {v}", v)

    v = hx(64)
    B("sha256_digest", f"Audit trail export sha256 {v}", v)
    v = hx(64)
    B("sha256_digest", f"{v}  EBR_B26K0412.pdf", v)
    v = "sha256:" + hx(64)
    B("sha256_digest", f"Checksumme der Rohdatendatei: {v}", v)
    v = hx(64)
    B("sha256_digest", f"Empreinte SHA-256 du fichier de séquence CDS : {v}", v)

    v = hx(40)
    B("git_commit_sha", f"Deployed mes-recipes at commit {v} to validation.", v)
    v = hx(7)
    B("git_commit_sha", f"Fix for the KF parser landed in {v}.", v)
    v = hx(40)
    B("git_commit_sha", f"rev: {v}", v)

    v = hx(32)
    B("md5_checksum", f"MD5 of the LIMS installer: {v}", v)
    v = hx(32)
    B("md5_checksum", f"md5sum rawdata.cdf -> {v}", v)

    v = "sha256:" + hx(64)
    B("container_image_digest", f"image: registry.site.local/lims-connector@{v}", v)
    v = "sha256:" + hx(64)
    B("container_image_digest", f"Validated image digest (IQ record): {v}", v)

    v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(43)
    B("ssh_public_key", f"{v} ansible@ot-jump01", v)
    v = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64(200)
    B(
        "ssh_public_key",
        f"Öffentlicher Schlüssel für authorized_keys auf dem HPLC-Exportserver: {v}",
        v,
    )
    v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(43)
    B("ssh_public_key", f'public_key: "{v}"', v)

    v = "SHA256:" + b64(43)
    B("ssh_key_fingerprint", f"Host key fingerprint for sftp.cmo.example is {v}", v)
    v = "SHA256:" + b64(43)
    B("ssh_key_fingerprint", f"Empreinte de la clé de déploiement : {v} (ED25519)", v)

    body = "\n".join(b64(64) for _ in range(5))
    v = f"-----BEGIN CERTIFICATE-----\nMIID{body}\n-----END CERTIFICATE-----"
    B("x509_certificate", f"EU hub root CA certificate (public):\n{v}", v)
    body = "\n".join(b64(64) for _ in range(3))
    v = f"-----BEGIN CERTIFICATE-----\nMIIC{body}\n-----END CERTIFICATE-----"
    B("x509_certificate", f"ca_cert: |\n{v}", v)

    v = ":".join(hx(2).upper() for _ in range(20))
    B("certificate_thumbprint", f"OPC UA server certificate thumbprint (SHA-1): {v}", v)
    v = hx(40).upper()
    B("certificate_thumbprint", f"Zertifikat-Fingerabdruck des MES-Servers: {v}", v)
    v = hx(64).upper()
    B("certificate_thumbprint", f"cert_sha256_pin: {v}", v)

    body = "\n".join(b64(64) for _ in range(3))
    v = f"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{body}\n-----END PUBLIC KEY-----"
    B("public_key_pem", f"Signature verification key for EBR e-signatures (public):\n{v}", v)
    v = b64(43) + "="
    B("public_key_pem", f"WireGuard PublicKey = {v}  # peer CMO site", v)

    v = "pk_live_" + al(99)
    B("stripe_publishable_key", f"STRIPE_PUBLISHABLE_KEY={v}  # safe for the browser", v)
    v = "pk_live_" + al(24)
    B("stripe_publishable_key", f"const stripe = Stripe('{v}');", v)

    v = "6L" + s(URLSAFE, 38)
    B("recaptcha_site_key", f'<div class="g-recaptcha" data-sitekey="{v}"></div>', v)
    v = "6L" + s(URLSAFE, 38)
    B("recaptcha_site_key", f"RECAPTCHA_SITE_KEY={v} (public; the secret key is in Vault)", v)

    v = "AKIAIOSFODNN7EXAMPLE"
    B("documented_example_key", f"AWS docs example, not ours: aws_access_key_id = {v}", v)
    v = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    B("documented_example_key", f"Test fixture uses the AWS documentation secret {v}", v)
    v = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
    B("documented_example_key", f"Stripe docs sample key {v} in the unit tests, fine to commit.", v)

    v = "<your-tracelink-api-key>"
    B("placeholder", f"TRACELINK_API_KEY={v}", v)
    v = "CHANGEME"
    B("placeholder", f"lims:\n  password: {v}  # set in deployment", v)
    v = "xxxxxxxxxxxxxxxxxxxxxxxx"
    B("placeholder", f"SENDGRID_API_KEY={v}", v)
    v = "<mot-de-passe>"
    B(
        "placeholder",
        f"Connexion : sqlplus LIMS_ADMIN/{v}@LIMSPRD (demander le mot de passe à l'IT)",
        v,
    )
    v = "YOUR_PASSWORD_HERE"
    B("placeholder", f"Server=sql-mes01;User Id=pasx_svc;Password={v};", v)

    v = "sk_live_****" + al(4)
    B("masked_secret", f"Stripe key in use ends with {v} (full value in Vault).", v)
    v = "ghp_" + "*" * 32 + al(4)
    B("masked_secret", f"Token shown in the audit log: {v}", v)
    v = "••••••" + dg(2)
    B("masked_secret", f"Türcode Schleuse: {v} (siehe Zutrittssystem)", v)
    v = "AKIA" + "X" * 12 + up(4)
    B("masked_secret", f"IAM key id (masked): {v}", v)

    v = "[REDACTED]"
    B(
        "redacted_value",
        f"2026-12-03T08:14:22Z INFO lims.auth login ok user=lims_sysadm password={v}",
        v,
    )
    v = "***"
    B("redacted_value", f'mes:\n  password: "{v}"', v)
    v = "<redacted>"
    B("redacted_value", f"Connection string: Server=sql-mes01;User Id=pasx_svc;Password={v};", v)

    v = "${LIMS_DB_PASSWORD}"
    B("env_var_reference", f"jdbc.password={v}", v)
    v = "$TRACELINK_API_KEY"
    B("env_var_reference", f'curl -H "X-Api-Key: {v}" https://api.tracelink.example/v1/serials', v)
    v = 'os.environ["MES_SERVICE_PASSWORD"]'
    B("env_var_reference", f"password = {v}", v)
    v = "%EMPOWER_SVC_PW%"
    B("env_var_reference", f"empower_login.exe /user:svc_emp /pw:{v}", v)

    v = "secret/data/mes/pasx/pasx_int"
    B("vault_path", f"PAS-X service password lives in Vault at {v}", v)
    v = "kv/lims/prod/oracle"
    B("vault_path", f"vault kv get {v}", v)
    v = "op://OT-Site/EMS Gateway/password"
    B("vault_path", f"Passwort des EMS-Gateways: 1Password-Referenz {v}", v)
    v = "https://site-kv.vault.azure.net/secrets/veeva-sync-client-secret"
    B("vault_path", f"Client secret: see {v}", v)

    v = "name: lims-db-credentials"
    B(
        "k8s_secret_reference",
        f"env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      {v}\n      key: password",
        v,
    )
    v = "secretRef: mes-api-token"
    B("k8s_secret_reference", f"envFrom:\n  - {v}", v)

    v = "ENC[AES256_GCM,data:" + b64(24) + ",iv:" + b64(43) + "=,tag:" + b64(22) + "==,type:str]"
    B("sops_encrypted_value", f"password: {v}", v)
    v = "ENC[AES256_GCM,data:" + b64(40) + ",iv:" + b64(43) + "=,tag:" + b64(22) + "==,type:str]"
    B("sops_encrypted_value", f"TRACELINK_API_KEY={v}", v)

    v = "Passwords must be at least 12 characters and changed every 90 days"
    B(
        "password_policy_text",
        f"Per SOP-IT-0042: {v}; shared accounts are not permitted on GxP systems.",
        v,
    )
    v = "Passwörter dürfen nicht in Logbüchern oder auf Zetteln notiert werden"
    B("password_policy_text", f"Hinweis aus dem Audit: {v}.", v)
    v = "le code d'accès des SAS est changé chaque mois"
    B(
        "password_policy_text",
        f"Rappel : {v} et communiqué uniquement par le responsable de zone.",
        v,
    )

    v = "ghp_" + al(36)
    B(
        "revoked_credential",
        f"Revoked on 2026-11-02 after it leaked in a CI log (already rotated, kept for the incident report): {v}",
        v,
    )
    v = "SG." + s(URLSAFE, 22) + "." + s(URLSAFE, 43)
    B(
        "revoked_credential",
        f"Old SendGrid key {v} -- REVOKED, deleted in the console, do not reuse.",
        v,
    )
    v = "xoxb-" + dg(12) + "-" + dg(13) + "-" + al(24)
    B("revoked_credential", f"Token widerrufen und ersetzt (INC0{dg(6)}): {v}", v)

    v = f"INC{dg(7)}"
    B("ticket_reference", f"ServiceNow {v}: LIMS slow for the QC lab since 07:00.", v)
    v = f"RITM{dg(7)}"
    B("ticket_reference", f"Access request {v} for the new analyst (LIMS role QC_ANALYST).", v)
    v = f"QMS-{dg(5)}"
    B("ticket_reference", f"Jira {v}: serial number pool exhausted on line 5.", v)
    v = f"CHG{dg(7)}"
    B("ticket_reference", f"Change {v} geplant für Samstag 06:00–10:00 (MES-Wartungsfenster).", v)

    v = f"{r.randint(7, 9)}.{r.randint(0, 9)}.{r.randint(0, 20)}.{dg(4)}"
    B("build_version", f"LabWare LIMS {v} validated for production.", v)
    v = f"v{r.randint(1, 3)}.{r.randint(0, 15)}.{r.randint(0, 9)}-rc.{r.randint(1, 5)}"
    B("build_version", f"lims-connector {v} deployed to VAL.", v)
    v = f"{r.randint(2019, 2026)}.{r.randint(1, 12)}.{r.randint(100, 999)}"
    B("build_version", f"Version PAS-X installée : {v}", v)

    v = uuid()
    B("azure_tenant_id", f"AZURE_TENANT_ID={v}", v)
    v = uuid()
    B("azure_tenant_id", f"App registration veeva-sync, client id {v} (public identifier).", v)
    v = uuid()
    B("azure_tenant_id", f'"tenantId": "{v}"', v)

    v = dg(12)
    B("aws_account_id", f"Prod AWS account {v} (GxP landing zone).", v)
    v = f"arn:aws:iam::{dg(12)}:role/em-sync-role"
    B("aws_account_id", f"role_arn = {v}", v)
    v = f"arn:aws:s3:::ebr-archive-{dg(12)}"
    B("aws_account_id", f"Bucket ARN: {v}", v)

    v = uuid()
    B("uuid_identifier", f"EPCIS eventID urn:uuid:{v}", v)
    v = uuid()
    B("uuid_identifier", f"Correlation id {v} in the MES error log.", v)
    v = uuid()
    B("uuid_identifier", f"L'ID de la signature électronique : {v}", v)

    v = f"DE{dg(2)} {dg(4)} {dg(4)} {dg(4)} {dg(4)} {dg(2)}"
    B("iban", f"Supplier IBAN for the excipient vendor: {v}", v)
    v = f"IT{dg(2)}X{dg(10)}{dg(12)}"
    B("iban", f"IBAN fornitore vetri (fiale): {v}", v)

    v = f"45{dg(8)}"
    B("purchase_order", f"PO {v} for 40 000 vials, delivery week 3.", v)
    v = f"BE{dg(8)}"
    B("purchase_order", f"Bestellnummer {v} – Filterpatronen für RLT-Anlage.", v)

    v = f"B{dg(1)}.{dg(2)}"
    B("room_number", f"Room {v} (grade B) differential pressure 15 Pa.", v)
    v = f"R{dg(3)}-C"
    B("room_number", f"Raum {v}, Reinraumklasse C, Umkleide 2.", v)
    v = f"ZA-{dg(3)}"
    B("room_number", f"Salle {v} (classe A sous flux laminaire).", v)

    v = dg(8)
    B("badge_number", f"Badge {v} deactivated after the contractor's last day.", v)
    v = f"{dg(3)}:{dg(5)}"
    B("badge_number", f"Ausweisnummer (Facility:Card) {v} für Fremdfirma freigeschaltet.", v)

    v = f"{r.randint(50, 9999)}-{dg(2)}-{r.randint(0, 9)}"
    B("cas_number", f"CAS {v} (API reference standard).", v)
    v = f"{r.randint(50, 9999)}-{dg(2)}-{r.randint(0, 9)}"
    B("cas_number", f"Numero CAS del solvente: {v}", v)

    v = f"KAL-{dg(4)}-{dg(5)}"
    B("calibration_certificate", f"Kalibrierschein {v} für Thermometer TI-204.", v)
    v = f"DAkkS D-K-{dg(5)}-01-00"
    B("calibration_certificate", f"Accredited lab {v}, cert no. {dg(6)}", v)

    v = f"SOP-QC-{dg(4)}"
    B("sop_number", f"Follow {v} v7 for HPLC system suitability.", v)
    v = f"SOP-PR-{dg(3)}"
    B("sop_number", f"Procédure {v} : habillage pour zone de classe B.", v)
    v = f"VA-{dg(4)}"
    B("sop_number", f"Verfahrensanweisung {v}: Umgang mit Zugangscodes (Codes nie notieren).", v)

    v = dg(8)
    B("sap_material_number", f"SAP material {v} = coated tablet 20 mg bulk.", v)
    v = f"{dg(6)}"
    B("sap_material_number", f"Materialnummer {v} (Glasfläschchen 10R).", v)

    v = ":".join(hx(2) for _ in range(6))
    B("mac_address", f"Particle counter MAC {v}, DHCP reservation on VLAN 40.", v)
    v = "-".join(hx(2).upper() for _ in range(6))
    B("mac_address", f"MAC-Adresse Waage XPR: {v}", v)

    v = f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
    B("ip_address", f"EMS gateway is at {v}, port 443.", v)
    v = f"172.{r.randint(16, 31)}.{r.randint(0, 255)}.{r.randint(1, 254)}"
    B("ip_address", f"Indirizzo IP della stampante etichette linea 3: {v}", v)

    v = f"lims-{lo(3)}{dg(2)}.site.local"
    B("hostname", f"Primary LIMS app server: {v}", v)
    v = f"ot-hist{dg(2)}.ot.site.local"
    B("hostname", f"PI-Historian läuft auf {v}.", v)

    v = f"{r.randint(0, 3520)}"
    B("particle_count", f"Grade A 0.5 µm count {v}/m³ at 10:42, within limit.", v)
    v = f"{r.randint(1000, 29000)}"
    B("particle_count", f"Partikel ≥5,0 µm: {v} /m³ (Klasse C, Alarmgrenze 29 300)", v)

    v = f"{r.randint(2, 8)}.{r.randint(0, 9)} °C"
    B("temperature_reading", f"Cold room CR-02 at {v}, excursion closed.", v)
    v = f"{r.randint(20, 25)},{r.randint(0, 9)} °C / {r.randint(30, 60)} % HR"
    B("temperature_reading", f"Salle de pesée : {v}", v)

    v = "$2b$12$" + s(AL + "./", 53)
    B("password_hash", f"eLogbook user table, bcrypt hash only: {v}", v)
    v = "$argon2id$v=19$m=65536,t=3,p=4$" + b64(22) + "$" + b64(43)
    B("password_hash", f'password_hash: "{v}"', v)
    v = hx(64)
    B("password_hash", f"Gespeicherter PIN-Hash (SHA-256, gesalzen) für das Terminal: {v}", v)

    v = f"G-{up(10)}"
    B("analytics_id", f"Intranet QA portal analytics measurement id {v}", v)
    v = f"UA-{dg(8)}-{r.randint(1, 9)}"
    B("analytics_id", f"Old tracking code {v} removed from the SOP viewer.", v)

    v = f"{dg(12)}-{lo(32)}.apps.googleusercontent.com"
    B("oauth_client_id", f"GOOGLE_CLIENT_ID={v}", v)
    v = f"0oa{al(17)}"
    B("oauth_client_id", f"Okta client id for the eQMS app: {v} (public, PKCE)", v)

    v = f"ELN-{dg(4)}-{dg(4)}"
    B("eln_reference", f"Experiment {v}: forced degradation, acid 0.1 N.", v)
    v = f"NB{dg(5)}/p{r.randint(1, 200)}"
    B("eln_reference", f"Laborbuch {v}, Einwaage 50,12 mg.", v)

    v = f"{r.randint(2027, 2030)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
    B("expiry_date", f"EXP {v} printed on the carton, matches batch record.", v)
    v = f"{r.randint(1, 12):02d}/{r.randint(2027, 2030)}"
    B("expiry_date", f"Verfall {v} auf dem Etikett geprüft.", v)

    v = f"PPN {dg(12)}"
    B("ppn_product_code", f"securPharm product code {v} registered in IFA.", v)
    v = f"PZN {dg(8)}"
    B("ppn_product_code", f"Pharmazentralnummer: {v}", v)

    v = f"{dg(4)} {dg(4)} {dg(4)}"
    B("phone_extension", f"QA on-call pager {v}, security desk ext. 2231.", v)
    v = f"+49 7{dg(3)} {dg(3)}-{dg(3)}"
    B("phone_extension", f"Telefono reperibilità produzione: {v}", v)

    v = al(16)
    B("jwks_key_id", f'{{"keys": [{{"kid": "{v}", "kty": "RSA", "use": "sig"}}]}}', v)
    v = al(43)
    B("jwks_key_id", f"JWT header kid={v} (maps to a public key in the JWKS)", v)

    v = f"{hx(8)}"
    B("crc32_checksum", f"CRC32 of the recipe file: {v}", v)
    v = f"0x{hx(8).upper()}"
    B("crc32_checksum", f"PLC program checksum {v} matches the validated baseline.", v)

    v = f"{r.randint(100, 9999)} h"
    B("logbook_entry", f"Equipment logbook: lamp hours {v}, replace at 2000 h.", v)
    v = f"Zyklus {r.randint(1000, 9999)}"
    B("logbook_entry", f"Autoklav 2, {v} bestanden, Bowie-Dick ok.", v)

    v = "\\b[0-9]{4}-[0-9]{4}\\b"
    B("regex_pattern", f"Log scrubber pattern for recovery-style codes: {v}", v)
    v = "(?i)password\\s*=\\s*\\S+"
    B("regex_pattern", f"redact_patterns:\n  - '{v}'", v)

    v = "ENABLE_EBR_ESIGN_V2"
    B("feature_flag", f"Feature flag {v}=true in VAL, false in PROD.", v)
    v = "lims.instrument.autoImport"
    B("feature_flag", f"{v}=false  # disabled during CSV", v)

    v = f"A{up(2)}{dg(5)}"
    B("slack_channel_id", f"Post to channel {v} (#qc-lab-alerts).", v)
    v = f"T{up(8)}"
    B("slack_channel_id", f"Slack workspace id {v}, app id A{up(10)}", v)

    v = f"AC{hx(32)}"
    B("twilio_account_sid", f"TWILIO_ACCOUNT_SID={v}  # token is in Vault", v)
    v = f"MG{hx(32)}"
    B("twilio_account_sid", f"Messaging service SID {v} for cold-chain SMS.", v)

    v = f"OBP-{dg(6)}"
    B("emvs_client_id", f"EU hub OBP id {v}, market DE/AT.", v)
    v = f"MAH-{dg(5)}"
    B("emvs_client_id", f"Identifiant titulaire AMM : {v}", v)

    v = f"TL-ORG-{dg(6)}"
    B("serialisation_company_id", f"TraceLink company id {v} (not a key).", v)
    v = f"{dg(7)}"
    B("serialisation_company_id", f"GS1 company prefix {v} for the Italian subsidiary.", v)

    v = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
    B("webhook_url_placeholder", f"SLACK_WEBHOOK_URL={v}  # example from the docs", v)
    v = "https://outlook.office.com/webhook/<guid>@<tenant>/IncomingWebhook/<id>/<guid>"
    B("webhook_url_placeholder", f"Format of the Teams URL (real one is in Key Vault): {v}", v)

    v = f"https://lims.site.local/labware/sample?id={dg(6)}"
    B("internal_url", f"Link to the sample: {v}", v)
    v = f"https://eqms.site.local/capa/CAPA-{dg(4)}-{dg(3)}"
    B("internal_url", f"Siehe {v}", v)

    v = "postgresql://lims_app@pg-lims01.site.local:5432/lims"
    B("connection_string_no_password", f"DATABASE_URL={v}  # auth via IAM / Kerberos", v)
    v = "Server=sql-mes01\\PASX;Database=PASX;Integrated Security=SSPI;"
    B("connection_string_no_password", f"Stringa MES (autenticazione Windows): {v}", v)

    v = f"{dg(3)}-{dg(3)}-{dg(3)}"
    B("tax_or_license_id", f"Manufacturing licence no. {v} (authority inspection 2026).", v)
    v = f"DE{dg(9)}"
    B("tax_or_license_id", f"USt-IdNr. {v}", v)

    v = f"{dg(2)}%"
    B("yield_value", f"Batch yield {v}, within 95–101 % limit.", v)
    v = f"{r.randint(95, 105)},{dg(1)} %"
    B("yield_value", f"Teneur : {v} de la valeur déclarée.", v)

    # ------------------------------------------------------------------ checks
    for row in rows:
        assert row["value"] in row["text"], row
        assert row["label"] in ("secret", "benign")
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

# ruff: noqa: E501, B905, SIM115
"""Blind secret-detector corpus 88: container port terminal operator.

Brief: notes kept by the IT, OT and operations teams of a container terminal
operator (and by their AI coding agents): terminal operating system (TOS)
integrations, customs and port-community EDI (COPARN, CODECO, COARRI, BAPLIE,
Portbase, BILGE / Tek Pencere), crane, RTG and straddle-carrier telemetry, gate
OCR cameras and access control, berth planning, vessel agents' portals, plus
the generic developer stack. Notes are in English, Dutch and Turkish.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_88.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, gitlab_pat, slack_bot_token,
slack_webhook_url, teams_webhook_url, stripe_secret_key, mollie_api_key,
iyzico_secret_key, twilio_auth_token, sendgrid_api_key, messagebird_access_key,
postgres_url_password, oracle_tos_db_password, private_key_pem,
openssh_private_key, azure_storage_connection_string, azure_client_secret,
gcp_service_account_key, jwt_session_token, tos_integration_password,
pfx_passphrase, pcs_api_key, sftp_edi_password, plc_admin_password,
mqtt_password, camera_admin_password, access_control_pin,
container_release_pin, wifi_psk, ipsec_psk, snmp_community, datadog_api_key,
openai_api_key, anthropic_api_key, npm_token, docker_hub_pat,
telegram_bot_token, redis_url_password, amqp_url_password,
ldap_bind_password, mfa_recovery_codes, agent_portal_password, vault_token,
azure_devops_pat, basic_auth_url, ais_provider_api_key.

Kinds, benign: container_number, imo_number, mmsi, un_locode, bill_of_lading,
booking_reference, customs_mrn, eori_number, seal_number, voyage_number,
baplie_slot, edifact_control_ref, git_commit_sha, image_digest_sha256,
file_md5, documented_example_key, env_var_reference, vault_path,
masked_secret, revoked_key, ssh_public_key, x509_certificate,
stripe_publishable_key, recaptcha_site_key, uuid_request_id, jira_ticket,
build_version, device_serial, mac_address, truck_license_plate, badge_number,
iban, password_policy, ssh_host_fingerprint, pgp_fingerprint,
azure_tenant_id, gcp_service_account_email, aws_arn, oauth_client_id,
slack_channel_id, twilio_account_sid, bcrypt_hash, gate_transaction_id,
che_id, hs_code, iso_size_type, gln_number, placeholder_value,
cert_thumbprint, k8s_secret_ref, scac_code, docker_image_ref.
"""

import base64
import json
import random
import string
import sys
import uuid

ALNUM = string.ascii_letters + string.digits
UPDIG = string.ascii_uppercase + string.digits
LODIG = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def _iso6346(owner_cat: str, serial: str) -> str:
    vals = {}
    v = 10
    for ch in string.ascii_uppercase:
        if v % 11 == 0:
            v += 1
        vals[ch] = v
        v += 1
    code = owner_cat + serial
    total = 0
    for i, ch in enumerate(code):
        n = vals[ch] if ch.isalpha() else int(ch)
        total += n * (2**i)
    return code + str(total % 11 % 10)


def _imo(six: str) -> str:
    s = sum(int(d) * w for d, w in zip(six, range(7, 1, -1)))
    return six + str(s % 10)


SEED = 8888


def corpus() -> list[dict]:
    R = random.Random(SEED)
    rows: list[dict] = []

    def g(alpha: str, n: int) -> str:
        return "".join(R.choice(alpha) for _ in range(n))

    def an(n):
        return g(ALNUM, n)

    def hx(n):
        return g(HEX, n)

    def up(n):
        return g(UPDIG, n)

    def dg(n):
        return g(string.digits, n)

    def uid():
        return str(uuid.UUID(int=R.getrandbits(128), version=4))

    def add(label, kind, text, value):
        text = text.replace("{v}", value)
        assert value in text, (kind, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def S(kind, text, value):
        add("secret", kind, text, value)

    def B(kind, text, value):
        add("benign", kind, text, value)

    def b64url(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    def pem(label, nlines, last):
        body = "\n".join(g(B64, 64) for _ in range(nlines)) + "\n" + g(B64, last) + "=="
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"

    def akia():
        return "AKIA" + g(string.ascii_uppercase + "234567", 16)

    # ------------------------------------------------------------------ secrets

    # aws_secret_access_key
    S(
        "aws_secret_access_key",
        f"[profile edi-archive]\naws_access_key_id = {akia()}\naws_secret_access_key = {{v}}\nregion = eu-west-1",
        g(B64, 40),
    )
    S(
        "aws_secret_access_key",
        f"handover: the BAPLIE archive bucket uploader runs as iam user svc-baplie-sync, key {akia()} / secret {{v}} (rotate after the Q1 audit)",
        g(B64, 40),
    )
    S(
        "aws_secret_access_key",
        "export AWS_SECRET_ACCESS_KEY={v}   # gate OCR image offload to s3",
        g(B64, 40),
    )
    S(
        "aws_secret_access_key",
        "Kamera arşivi için S3 secret: {v} — kimseyle paylaşmayın, Ambarlı gate ekibi kullanıyor",
        g(B64, 40),
    )

    # github_pat
    S(
        "github_pat",
        "git clone https://{v}@github.com/noordkade-ct/berth-planner.git",
        "ghp_" + an(36),
    )
    S(
        "github_pat",
        "Token voor de release-bot (repo scope): {v} — vervalt in maart",
        "ghp_" + an(36),
    )
    S("github_pat", "GH_TOKEN={v}", "github_pat_11" + up(20) + "_" + an(59))
    S(
        "github_pat",
        "agent memory: when pushing the edifact-mapper tags use the fine-grained token {v}, the classic one was removed",
        "github_pat_11" + up(20) + "_" + an(59),
    )

    # gitlab_pat
    S(
        "gitlab_pat",
        'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.noordkade-ct.nl/api/v4/projects/212/pipelines',
        "glpat-" + g(URLSAFE, 20),
    )
    S("gitlab_pat", "CI deploy token voor het tos-adapters project: {v}", "glpat-" + g(URLSAFE, 20))
    S(
        "gitlab_pat",
        "gitlab:\n  url: https://gitlab.noordkade-ct.nl\n  token: {v}",
        "glpat-" + g(URLSAFE, 20),
    )
    S(
        "gitlab_pat",
        "GitLab kişisel erişim anahtarım (sadece okuma): {v}",
        "glpat-" + g(URLSAFE, 20),
    )

    # slack_bot_token
    S(
        "slack_bot_token",
        "SLACK_BOT_TOKEN=xoxb-placeholder is wrong in prod, real one for #berth-alerts is {v}",
        f"xoxb-{dg(12)}-{dg(13)}-{an(24)}",
    )
    S(
        "slack_bot_token",
        'crane-fault-notifier:\n  slack_token: "{v}"\n  channel: "#sts-storingen"',
        f"xoxb-{dg(11)}-{dg(13)}-{an(24)}",
    )
    S(
        "slack_bot_token",
        "bot token voor de gate-bot: {v} (niet in de wiki zetten)",
        f"xoxb-{dg(12)}-{dg(13)}-{an(24)}",
    )
    S("slack_bot_token", "Authorization: Bearer {v}", f"xoxb-{dg(12)}-{dg(12)}-{an(24)}")

    # slack_webhook_url
    S(
        "slack_webhook_url",
        "vessel ETA changes -> POST {v}",
        f"https://hooks.slack.com/services/T{up(8)}/B{up(10)}/{an(24)}",
    )
    S(
        "slack_webhook_url",
        'SLACK_WEBHOOK_REEFER_ALARMS="{v}"',
        f"https://hooks.slack.com/services/T{up(10)}/B{up(10)}/{an(24)}",
    )
    S(
        "slack_webhook_url",
        "Gemi yanaşma bildirimleri bu webhook'a gidiyor: {v}",
        f"https://hooks.slack.com/services/T{up(8)}/B{up(11)}/{an(24)}",
    )
    S(
        "slack_webhook_url",
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"RTG 14 spreader fault\"}' {v}",
        f"https://hooks.slack.com/services/T{up(9)}/B{up(10)}/{an(24)}",
    )

    # teams_webhook_url
    S(
        "teams_webhook_url",
        "Teams kanaal Planning Kade Noord, incoming webhook: {v}",
        f"https://noordkadect.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{g(URLSAFE, 43)}",
    )
    S(
        "teams_webhook_url",
        "berth_conflict_webhook: {v}",
        f"https://noordkadect.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}",
    )
    S(
        "teams_webhook_url",
        "Power Automate flow for customs holds posts to {v}",
        f"https://noordkadect.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}/V2{g(URLSAFE, 43)}",
    )

    # stripe_secret_key
    S(
        "stripe_secret_key",
        "STRIPE_SECRET_KEY={v}  # demurrage & storage invoice payments",
        "sk_live_51" + an(97),
    )
    S("stripe_secret_key", 'stripe.api_key = "{v}"', "sk_live_" + an(24))
    S("stripe_secret_key", "Gemi acentesi ödeme portalı canlı anahtar: {v}", "sk_live_51" + an(97))
    S(
        "stripe_secret_key",
        "restricted key used by the reefer plug-in billing job: {v}",
        "rk_live_51" + an(97),
    )

    # mollie_api_key
    S("mollie_api_key", "MOLLIE_API_KEY={v}", "live_" + an(30))
    S(
        "mollie_api_key",
        "Mollie live key voor de truckers-parkeerplaats betalingen: {v}",
        "live_" + an(30),
    )
    S("mollie_api_key", "$mollie->setApiKey('{v}');", "live_" + an(30))
    S(
        "mollie_api_key",
        "note: ontvangst van bewaargeld loopt via Mollie, key {v}, testkey staat in 1Password",
        "live_" + an(30),
    )

    # iyzico_secret_key
    S("iyzico_secret_key", "IYZICO_API_KEY=public-ok-to-log\nIYZICO_SECRET_KEY={v}", an(32))
    S("iyzico_secret_key", "iyzico canlı secret key: {v} — ardiye ücreti tahsilatı için", an(32))
    S("iyzico_secret_key", 'options.setSecretKey("{v}"); // prod merchant Körfez Liman', an(32))

    # twilio_auth_token
    S("twilio_auth_token", "TWILIO_AUTH_TOKEN={v}", hx(32))
    S(
        "twilio_auth_token",
        f"SMS to truckers when their slot opens: account AC{hx(32)}, auth token {{v}}",
        hx(32),
    )
    S("twilio_auth_token", 'twilio:\n  auth_token: {v}\n  from: "+3110XXXXXXX"', hx(32))
    S("twilio_auth_token", "Twilio auth token (gece vardiyası SMS): {v}", hx(32))

    # sendgrid_api_key
    S("sendgrid_api_key", "SENDGRID_API_KEY={v}", "SG." + g(URLSAFE, 22) + "." + g(URLSAFE, 43))
    S(
        "sendgrid_api_key",
        "vessel agent notifications (container discharged / released) go out via sendgrid key {v}",
        "SG." + g(URLSAFE, 22) + "." + g(URLSAFE, 43),
    )
    S(
        "sendgrid_api_key",
        '"mail": {"provider": "sendgrid", "apiKey": "{v}"}',
        "SG." + g(URLSAFE, 22) + "." + g(URLSAFE, 43),
    )
    S(
        "sendgrid_api_key",
        "Nieuwe SendGrid sleutel voor de factuurmails: {v}",
        "SG." + g(URLSAFE, 22) + "." + g(URLSAFE, 43),
    )

    # messagebird_access_key
    S("messagebird_access_key", "MESSAGEBIRD_ACCESS_KEY={v}", an(25))
    S(
        "messagebird_access_key",
        "MessageBird live access key voor de sms naar chauffeurs (pincode klaar): {v}",
        an(25),
    )
    S("messagebird_access_key", "client = messagebird.Client('{v}')", an(25))

    # postgres_url_password
    S(
        "postgres_url_password",
        "DATABASE_URL=postgres://berthplan:{v}@pg-berth-01.nct.local:5432/berthplan",
        "Kaai" + dg(2) + "!Noord",
    )
    S(
        "postgres_url_password",
        'psql "postgresql://yard_ro:{v}@10.40.2.15/yard_kpi?sslmode=require"',
        an(20),
    )
    S(
        "postgres_url_password",
        "Gate OCR sonuçları DB: postgresql://ocr_app:{v}@ocr-db.korfez.local/gate",
        "Liman.Gate" + dg(4),
    )
    S(
        "postgres_url_password",
        "  sqlalchemy_url: postgresql+psycopg2://che_telemetry:{v}@timescale-prod:5432/che",
        an(24),
    )

    # oracle_tos_db_password
    S(
        "oracle_tos_db_password",
        "jdbc:oracle:thin:n4_report/{v}@//tos-db-scan.nct.local:1521/N4PRD",
        "Rep0rt_N4_" + dg(4),
    )
    S(
        "oracle_tos_db_password",
        "TOS reporting user: N4_REPORT, wachtwoord: {v} (alleen lezen, niet voor de ETL gebruiken)",
        "Haven" + dg(3) + "#Tos",
    )
    S("oracle_tos_db_password", "sqlplus tosadmin/{v}@N4PRD", "Sts" + dg(2) + "Kraan!" + dg(2))
    S(
        "oracle_tos_db_password",
        "Server=tos-sql01;Database=TOS_Yard;User Id=yard_sync;Password={v};Encrypt=True;",
        "YrdSync-" + an(10),
    )

    # private_key_pem
    S(
        "private_key_pem",
        "AS2 signing key for the Portbase connection (as2-nct.key):\n{v}",
        pem("RSA PRIVATE KEY", 6, 40),
    )
    S("private_key_pem", "{v}", pem("PRIVATE KEY", 5, 20))
    S(
        "private_key_pem",
        "Gümrük EDI imza anahtarı, dosya bozulursa buradan geri yükle:\n{v}",
        pem("EC PRIVATE KEY", 2, 30),
    )

    # openssh_private_key
    S(
        "openssh_private_key",
        "deploy key for the crane-telemetry collector (~/.ssh/id_ed25519):\n{v}",
        pem("OPENSSH PRIVATE KEY", 4, 12),
    )
    S(
        "openssh_private_key",
        "Sleutel voor de jump host naar het OT-netwerk:\n{v}",
        pem("OPENSSH PRIVATE KEY", 5, 20),
    )
    S(
        "openssh_private_key",
        "ansible_ssh_private_key_file content (rtg-gateways):\n{v}",
        pem("OPENSSH PRIVATE KEY", 3, 8),
    )

    # azure_storage_connection_string
    S(
        "azure_storage_connection_string",
        'AZURE_STORAGE_CONNECTION_STRING="{v}"',
        f"DefaultEndpointsProtocol=https;AccountName=nctgateimages;AccountKey={g(B64, 86)}==;EndpointSuffix=core.windows.net",
    )
    S(
        "azure_storage_connection_string",
        '"BlobStore": "{v}"',
        f"DefaultEndpointsProtocol=https;AccountName=nctbaplie;AccountKey={g(B64, 86)}==;EndpointSuffix=core.windows.net",
    )
    S(
        "azure_storage_connection_string",
        "OCR fotoğrafları blob'a yükleniyor, bağlantı: {v}",
        f"DefaultEndpointsProtocol=https;AccountName=korfezocr;AccountKey={g(B64, 86)}==;EndpointSuffix=core.windows.net",
    )

    # azure_client_secret
    S(
        "azure_client_secret",
        f"AZURE_TENANT_ID={uid()}\nAZURE_CLIENT_ID={uid()}\nAZURE_CLIENT_SECRET={{v}}",
        an(3) + "8Q~" + g(URLSAFE + ".~", 34),
    )
    S(
        "azure_client_secret",
        "app registration 'berth-planner-api' client secret (expires 2027-06): {v}",
        an(3) + "8Q~" + g(URLSAFE + ".~", 34),
    )
    S(
        "azure_client_secret",
        "Client secret voor de Power BI refresh: {v}",
        an(3) + "7Q~" + g(URLSAFE + ".~", 34),
    )
    S(
        "azure_client_secret",
        "spring.cloud.azure.active-directory.credential.client-secret={v}",
        an(3) + "8Q~" + g(URLSAFE + ".~", 34),
    )

    # gcp_service_account_key
    gkey = (
        "-----BEGIN PRIVATE KEY-----\\n"
        + "\\n".join(g(B64, 64) for _ in range(4))
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    S(
        "gcp_service_account_key",
        '{"type": "service_account", "project_id": "nct-ais-feed", "private_key_id": "'
        + hx(40)
        + '", "private_key": "{v}", "client_email": "ais-ingest@nct-ais-feed.iam.gserviceaccount.com"}',
        gkey,
    )
    gkey2 = (
        "-----BEGIN PRIVATE KEY-----\\n"
        + "\\n".join(g(B64, 64) for _ in range(3))
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    S(
        "gcp_service_account_key",
        'GOOGLE_PRIVATE_KEY="{v}"  # bigquery export van de kraanproductiviteit',
        gkey2,
    )
    sa_json = json.dumps(
        {
            "type": "service_account",
            "project_id": "nct-ml",
            "private_key_id": hx(40),
            "private_key": "-----BEGIN PRIVATE KEY-----\n"
            + g(B64, 64)
            + "\n"
            + g(B64, 64)
            + "\n-----END PRIVATE KEY-----\n",
            "client_email": "berth-forecast@nct-ml.iam.gserviceaccount.com",
        }
    )
    S(
        "gcp_service_account_key",
        "GCP_SA_KEY_B64={v}  # berth forecast job, base64 van het hele json-bestand",
        base64.b64encode(sa_json.encode()).decode(),
    )

    # jwt_session_token
    def jwt(payload):
        h = b64url(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
        p = b64url(json.dumps(payload).encode())
        return f"{h}.{p}.{g(URLSAFE, 86)}"

    S(
        "jwt_session_token",
        'curl -H "Authorization: Bearer {v}" https://api.nct.local/tos/v2/units?visit=NCT2611',
        jwt({"sub": "svc-gate-ocr", "scope": "units.read", "exp": 1799999999}),
    )
    S(
        "jwt_session_token",
        "Ajan portalı oturum token'ı (bir gün geçerli): {v}",
        jwt({"sub": "agent-4412", "role": "vessel_agent", "exp": 1797000000}),
    )
    S(
        "jwt_session_token",
        "2026-12-03T06:14:22Z DEBUG gate-api request headers={'authorization': 'Bearer {v}'}",
        jwt({"sub": "lane07", "iss": "gate-idp", "exp": 1796900000}),
    )

    # tos_integration_password
    S(
        "tos_integration_password",
        "N4 ArgoService user for the EDI adapter: edi-svc / {v}",
        "Coparn" + dg(4) + "!",
    )
    S(
        "tos_integration_password",
        'tos:\n  base_url: https://n4.nct.local:9443/apex\n  username: gate_integration\n  password: "{v}"',
        "G8te!" + an(8),
    )
    S(
        "tos_integration_password",
        "Wachtwoord van de TOS koppeling voor de OCR poort is nu {v}, gisteren gewijzigd",
        "Poort" + dg(2) + "Ocr!",
    )
    S(
        "tos_integration_password",
        "TOS web servis kullanıcısı: korfez_api, şifre: {v}",
        "Vinc" + dg(4) + ".Ktr",
    )

    # pfx_passphrase
    S(
        "pfx_passphrase",
        "openssl pkcs12 -in douane-ags.pfx -out ags.pem -passin pass:{v}",
        "Douane" + dg(4) + "Cert!",
    )
    S(
        "pfx_passphrase",
        "Het PKI-overheid certificaat voor de douane-aangiftes: wachtwoord van de .p12 is {v}",
        "Aangifte#" + dg(4) + "Nct",
    )
    S(
        "pfx_passphrase",
        "BİLGE e-imza sertifika parolası: {v} (sadece gümrük müşavirliği ekibi)",
        "Gumruk" + dg(3) + "*Imza",
    )
    S(
        "pfx_passphrase",
        "keystore.password={v}\nkeystore.path=/opt/as2/keystore/portbase.p12",
        an(16),
    )

    # pcs_api_key
    S("pcs_api_key", "Portbase API key (header X-Api-Key) productie: {v}", an(32))
    S("pcs_api_key", "PCS_API_KEY={v}", hx(40))
    S(
        "pcs_api_key",
        'curl -H "X-Api-Key: {v}" https://api.pcs.example-port.nl/v1/vesselvisits/NLRTM26000412',
        an(32),
    )
    S(
        "pcs_api_key",
        "Tek Pencere entegrasyon anahtarı: {v}",
        up(8) + "-" + up(8) + "-" + up(8) + "-" + up(8),
    )

    # sftp_edi_password
    S(
        "sftp_edi_password",
        "CODECO drops for MSC go to sftp edi.msc-partner.example, user NCTRTM, pw {v}",
        "Codeco" + dg(2) + "$" + up(3),
    )
    S("sftp_edi_password", "lftp -u nct_coarri,{v} sftp://edi.carrier-hub.example", an(14))
    S(
        "sftp_edi_password",
        "EDI partner Hapag: sftp login nct01 wachtwoord {v} (zij hebben het vorige week gereset)",
        "Hpg!" + an(9),
    )
    S(
        "sftp_edi_password",
        "edi_partners:\n  - name: cosco\n    protocol: sftp\n    user: NCTEDI\n    password: {v}",
        an(12),
    )

    # plc_admin_password
    S("plc_admin_password", "STS-04 Siemens S7 PLC web server admin pw: {v}", "Kraan04!" + dg(2))
    S(
        "plc_admin_password",
        "RTG PLC'lerinin ortak admin şifresi {v}, bakım firması biliyor",
        "Rtg" + dg(4) + "Plc",
    )
    S(
        "plc_admin_password",
        "Wachtwoord engineering station kraan 7 (TIA Portal project protect): {v}",
        "Spreader" + dg(3) + "#",
    )
    S(
        "plc_admin_password",
        "crane_plc:\n  host: 10.60.4.21\n  user: admin\n  pass: {v}",
        "StsAdm1n_" + dg(3),
    )

    # mqtt_password
    S(
        "mqtt_password",
        "mosquitto_pub -h mqtt.che.nct.local -u sc-telemetry -P {v} -t che/sc112/fuel -m 41",
        an(18),
    )
    S("mqtt_password", "MQTT_PASSWORD={v}  # straddle carrier GPS/fuel feed", an(20))
    S(
        "mqtt_password",
        "De straddle carriers loggen in op de broker met che_fleet / {v}",
        "Straddle" + dg(2) + "!Fleet",
    )
    S("mqtt_password", "mqtt://vinc_gw:{v}@broker.korfez.local:1883", "Telemetri" + dg(3))

    # camera_admin_password
    S(
        "camera_admin_password",
        "Gate lane 3 OCR camera (Axis) root password: {v}",
        "Lane3Ocr!" + dg(2),
    )
    S(
        "camera_admin_password",
        "OCR portal kameraları admin/{v} — fabrika şifresi değiştirildi",
        "Kapi" + dg(4) + "!Kam",
    )
    S("camera_admin_password", "rtsp://admin:{v}@10.50.3.41:554/stream1", an(12))
    S(
        "camera_admin_password",
        "Camera's bij de in-gate (Hikvision): gebruiker admin, ww {v}",
        "Ingate" + dg(4) + "Cam",
    )

    # access_control_pin
    S("access_control_pin", "Deurcode serverruimte gatehouse: {v}#", dg(6))
    S("access_control_pin", "Kade 2 elektrik odası kapı şifresi {v}", dg(4))
    S(
        "access_control_pin",
        "master override PIN for the turnstile controller at the ISPS gate: {v}",
        dg(6),
    )
    S(
        "access_control_pin",
        "alarm panel gatehouse: disarm code {v}, call security if it beeps twice",
        dg(4),
    )

    # container_release_pin
    S(
        "container_release_pin",
        "Pincode voor vrijgave MSKU container aan transporteur De Vries: {v}",
        up(3) + dg(5),
    )
    S(
        "container_release_pin",
        "release PIN for the reefer on berth 4 (customer waiting at gate): {v}",
        dg(8),
    )
    S(
        "container_release_pin",
        "Vrijgave pincode {v} – niet delen via WhatsApp, alleen via het portaal",
        an(10).upper(),
    )
    S(
        "container_release_pin",
        "Konteyner teslim PIN kodu: {v} — şoföre sadece telefonla verin",
        dg(6),
    )

    # wifi_psk
    S("wifi_psk", "Yard WLAN (SSID NCT-CHE-5G) WPA2 key: {v}", "StraddleWifi" + dg(4) + "!")
    S("wifi_psk", "wifi gast kantine: NCT-Gast / {v}", "Welkom@Kade" + dg(2))
    S("wifi_psk", 'wpa_passphrase="{v}"  # rtg handheld terminals', an(16))
    S("wifi_psk", "Saha tabletleri Wi-Fi şifresi: {v}", "Liman" + dg(4) + "Saha")

    # ipsec_psk
    S("ipsec_psk", "Site-to-site VPN naar de douane: pre-shared key {v}", an(32))
    S(
        "ipsec_psk",
        'conn portbase-tunnel\n  authby=secret\n# /etc/ipsec.secrets: 195.0.2.10 203.0.113.8 : PSK "{v}"',
        an(28),
    )
    S("ipsec_psk", "crypto isakmp key {v} address 198.51.100.24", an(24))

    # snmp_community
    S("snmp_community", "snmpwalk -v2c -c {v} 10.60.1.1 ifDescr", "nctOT" + an(8))
    S(
        "snmp_community",
        "RW community string on the crane ring switches is {v} — only for the OT team",
        "Kr4an" + an(7) + "rw",
    )
    S("snmp_community", "snmp:\n  version: 2c\n  community: {v}\n  targets: [reefer-racks]", an(14))

    # datadog_api_key
    S("datadog_api_key", "DD_API_KEY={v}", hx(32))
    S(
        "datadog_api_key",
        "datadog agent on the gate servers uses api key {v} and app key " + hx(40),
        hx(32),
    )
    S("datadog_api_key", "Datadog app key (voor het berth dashboard script): {v}", hx(40))
    S("datadog_api_key", "helm upgrade dd datadog/datadog --set datadog.apiKey={v}", hx(32))

    # openai_api_key
    S(
        "openai_api_key",
        "OPENAI_API_KEY={v}",
        "sk-proj-" + g(URLSAFE, 74) + "T3BlbkFJ" + g(URLSAFE, 74),
    )
    S(
        "openai_api_key",
        "agent note: the damage-report summariser (photos from the gate) calls openai with {v}",
        "sk-proj-" + g(URLSAFE, 48),
    )
    S("openai_api_key", "Hasar raporu özetleyici için OpenAI anahtarı: {v}", "sk-" + an(48))

    # anthropic_api_key
    S("anthropic_api_key", "ANTHROPIC_API_KEY={v}", "sk-ant-api03-" + g(URLSAFE, 93) + "AA")
    S(
        "anthropic_api_key",
        "key used by the EDI-mapping assistant: {v}",
        "sk-ant-api03-" + g(URLSAFE, 93) + "AA",
    )
    S(
        "anthropic_api_key",
        "Sleutel voor de vertaalbot (NL/TR werkinstructies): {v}",
        "sk-ant-api03-" + g(URLSAFE, 93) + "AA",
    )

    # npm_token
    S("npm_token", "//registry.npmjs.org/:_authToken={v}", "npm_" + an(36))
    S("npm_token", "NPM_TOKEN={v}  # publish @nct/berth-ui", "npm_" + an(36))
    S("npm_token", "npm token voor de agent-portal build: {v}", "npm_" + an(36))

    # docker_hub_pat
    S(
        "docker_hub_pat",
        "echo {v} | docker login -u nctbuild --password-stdin",
        "dckr_pat_" + g(URLSAFE, 27),
    )
    S("docker_hub_pat", "DOCKERHUB_TOKEN={v}", "dckr_pat_" + g(URLSAFE, 27))
    S(
        "docker_hub_pat",
        "Docker Hub erişim token'ı (ocr-engine imajları): {v}",
        "dckr_pat_" + g(URLSAFE, 27),
    )

    # telegram_bot_token
    S("telegram_bot_token", "Vardiya amiri botu token: {v}", dg(10) + ":AA" + g(URLSAFE, 33))
    S(
        "telegram_bot_token",
        "https://api.telegram.org/bot{v}/sendMessage?chat_id=-1001234567890&text=Vinc%2003%20ariza",
        dg(10) + ":AA" + g(URLSAFE, 33),
    )
    S("telegram_bot_token", "TELEGRAM_TOKEN={v}", dg(9) + ":AA" + g(URLSAFE, 33))

    # redis_url_password
    S("redis_url_password", "REDIS_URL=redis://:{v}@redis-gate.nct.local:6379/2", an(24))
    S("redis_url_password", "yard cache: rediss://default:{v}@cache.korfez.local:6380", an(32))
    S(
        "redis_url_password",
        "redis-cli -h 10.40.5.9 -a {v} KEYS 'appt:*'",
        "Redis" + dg(3) + "Afspraak",
    )

    # amqp_url_password
    S("amqp_url_password", "AMQP_URL=amqp://edi_in:{v}@rabbit.nct.local:5672/edi", an(20))
    S(
        "amqp_url_password",
        "RabbitMQ voor de COARRI queue: amqps://coarri:{v}@mq01.nct.local/",
        "Coarri" + dg(4) + "!",
    )
    S("amqp_url_password", "spring.rabbitmq.password={v}", an(18))

    # ldap_bind_password
    S(
        "ldap_bind_password",
        "LDAP bind voor het toegangscontrolesysteem: CN=svc-access,OU=Service,DC=nct,DC=local / {v}",
        "Toegang" + dg(4) + "!",
    )
    S(
        "ldap_bind_password",
        "ldapsearch -x -D 'svc_tos@korfez.local' -w '{v}' -b 'dc=korfez,dc=local'",
        "Bind" + dg(2) + "Liman!" + dg(2),
    )
    S(
        "ldap_bind_password",
        "ldap:\n  bind_dn: cn=gate-ocr,ou=apps,dc=nct,dc=local\n  bind_password: {v}",
        an(16),
    )

    # mfa_recovery_codes
    S(
        "mfa_recovery_codes",
        "recovery codes for the shared ops@ Azure admin:\n{v}",
        "\n".join(f"{dg(5)}-{dg(5)}" for _ in range(4)),
    )
    S(
        "mfa_recovery_codes",
        "GitHub yedek kodları (org owner hesabı): {v}",
        " ".join(f"{hx(5)}-{hx(5)}" for _ in range(5)),
    )
    S(
        "mfa_recovery_codes",
        "Herstelcodes Portbase-beheerdersaccount: {v}",
        ", ".join(up(8) for _ in range(5)),
    )

    # agent_portal_password
    S(
        "agent_portal_password",
        "Shared login for the vessel agents' portal (Inchcape desk): agents-inchcape / {v}",
        "Agent" + dg(4) + "!Berth",
    )
    S(
        "agent_portal_password",
        "Acente portalı ortak hesap: kullanıcı mscturkiye, şifre {v}",
        "Msc" + dg(4) + "Acente",
    )
    S(
        "agent_portal_password",
        "Inlog rederijportaal voor de nachtploeg: planning@nct.nl wachtwoord {v}",
        "Nachtploeg" + dg(2) + "!",
    )
    S(
        "agent_portal_password",
        "berth request portal demo account was disabled; live one: hapag.agent / {v}",
        "Ligplaats" + dg(3) + "#",
    )

    # vault_token
    S("vault_token", "VAULT_TOKEN={v}", "hvs." + g(URLSAFE, 24))
    S(
        "vault_token",
        "root token after the unseal drill: {v} — revoke me after the migration!",
        "hvs." + an(24),
    )
    S("vault_token", "vault login {v}", "hvs.CAESI" + g(URLSAFE, 86))

    # azure_devops_pat
    S("azure_devops_pat", "AZURE_DEVOPS_EXT_PAT={v}", g("abcdefghijklmnopqrstuvwxyz234567", 52))
    S(
        "azure_devops_pat",
        "PAT voor de pipelines van het gate-project (code read/write): {v}",
        g("abcdefghijklmnopqrstuvwxyz234567", 52),
    )
    S(
        "azure_devops_pat",
        "git clone https://nct:{v}@dev.azure.com/nct/Gate/_git/ocr-service",
        g("abcdefghijklmnopqrstuvwxyz234567", 52),
    )

    # basic_auth_url
    S(
        "basic_auth_url",
        "reefer monitoring export: https://reefer:{v}@reefer-mon.nct.local/export.csv",
        "Koel" + dg(4) + "Plug",
    )
    S(
        "basic_auth_url",
        "weighbridge API: http://kantar:{v}@192.168.20.14/api/weight",
        "Kantar" + dg(3) + "!",
    )
    S(
        "basic_auth_url",
        "Jenkins job trigger: https://deploy:{v}@jenkins.nct.local/job/berth-planner/build?token=now",
        an(14),
    )

    # ais_provider_api_key
    S(
        "ais_provider_api_key",
        "AIS feed (vessel positions for ETA prediction): https://services.ais-provider.example/api/exportvessels/v:8/{v}/protocol:jsono",
        hx(40),
    )
    S("ais_provider_api_key", "AIS_API_KEY={v}", hx(40))
    S(
        "ais_provider_api_key",
        "Scheepsposities API sleutel (betaald abonnement, niet in de frontend!): {v}",
        an(32),
    )
    S("ais_provider_api_key", "AIS sağlayıcı anahtarı — gemi ETA tahmini için: {v}", hx(40))

    # ---- extra secret rows (second pass)
    S(
        "iyzico_secret_key",
        "Ödeme entegrasyonu notu: apiKey loglarda maskeli, secretKey={v} ise sadece kasada",
        an(32),
    )
    S("messagebird_access_key", "Authorization: AccessKey {v}", an(25))
    S(
        "private_key_pem",
        "tls.key voor de berth-planner ingress (prod):\n{v}",
        pem("RSA PRIVATE KEY", 4, 16),
    )
    S(
        "openssh_private_key",
        "Vinç bakım firması için geçici erişim anahtarı, işi bitince silinecek:\n{v}",
        pem("OPENSSH PRIVATE KEY", 3, 20),
    )
    S(
        "azure_storage_connection_string",
        "az storage blob upload --connection-string '{v}' -c reefer-logs -f plugs.csv",
        f"DefaultEndpointsProtocol=https;AccountName=nctreefer;AccountKey={g(B64, 86)}==;EndpointSuffix=core.windows.net",
    )
    S(
        "jwt_session_token",
        "cookie voor het rederijportaal (ingelogd als planner): session={v}",
        jwt({"sub": "planner-nacht", "aud": "carrier-portal", "exp": 1797100000}),
    )
    S(
        "ipsec_psk",
        "VPN naar kraanleverancier (remote support): PSK = {v}",
        "Kraan" + dg(4) + "Vpn!" + an(6),
    )
    S("snmp_community", "Reefer rack'lerin SNMP community değeri {v}", "reefer" + an(6))
    S("npm_token", "Gate kiosk UI publish için npm token: {v}", "npm_" + an(36))
    S(
        "docker_hub_pat",
        "  - name: Login\n    uses: docker/login-action@v3\n    with:\n      username: nctbuild\n      password: {v}",
        "dckr_pat_" + g(URLSAFE, 27),
    )
    S(
        "telegram_bot_token",
        "Telegram bot voor storingsmeldingen kraanmachinisten: {v}",
        dg(10) + ":AA" + g(URLSAFE, 33),
    )
    S("redis_url_password", "CELERY_BROKER_URL=redis://:{v}@10.40.5.9:6379/0", an(28))
    S(
        "ldap_bind_password",
        "AD servis hesabı (turnike entegrasyonu) parolası: {v}",
        "Turnike" + dg(4) + "!",
    )
    S(
        "mfa_recovery_codes",
        "backup codes for the noc@ Google account (print, then delete this line): {v}",
        " ".join(dg(4) + " " + dg(4) for _ in range(5)),
    )
    S("vault_token", "Periodic token voor de edi-mapper: {v}", "hvs." + g(URLSAFE, 24))
    S(
        "basic_auth_url",
        "Harici kantar servisi: https://kantar_api:{v}@weighbridge.korfez.local/v1/tartim",
        "Tarti" + dg(4) + "$",
    )

    # ------------------------------------------------------------------ benign

    def cont(owner):
        return _iso6346(owner, dg(6))

    # container_number
    B(
        "container_number",
        "Unit {v} (40HC) rolled to next voyage, customs hold lifted",
        cont("MSKU"),
    )
    B("container_number", "Container {v} staat op blok 3B, rij 12, laag 3", cont("HLBU"))
    B("container_number", "{v} numaralı konteyner kantarda 31.420 kg geldi", cont("TGHU"))
    B("container_number", "COPARN line: EQD+CN+{v}+45G1:102:5+2'", cont("CMAU"))

    # imo_number
    B("imo_number", "Vessel IMO {v}, ETA Sunday 04:00, berth 5", _imo("9" + dg(5)))
    B("imo_number", "Schip met IMO-nummer {v} ligt aan kade Noord", _imo("9" + dg(5)))
    B("imo_number", '"imo": "{v}", "name": "MAERSK KOLKATA"', _imo("9" + dg(5)))
    B("imo_number", "Gemi IMO {v} için yanaşma planı güncellendi", _imo("9" + dg(5)))

    # mmsi
    B("mmsi", "MMSI {v} lost AIS signal near the Maasmond for 14 min", "244" + dg(6))
    B("mmsi", "Gemi MMSI: {v} (Türk bayraklı)", "271" + dg(6))
    B("mmsi", "ais_positions where mmsi = {v} order by ts desc limit 20", "636" + dg(6))

    # un_locode
    B("un_locode", "Port of discharge {v}, transhipment via Algeciras", "NLRTM")
    B("un_locode", "LOC+9+{v}:139:6'", "TRAMB")
    B("un_locode", "Boşaltma limanı kodu {v} olarak güncellendi", "TRMER")
    B("un_locode", "pol: {v}\npod: NLRTM", "CNSHA")

    # bill_of_lading
    B("bill_of_lading", "B/L {v} — consignee asked for split delivery", "MEDU" + dg(7) + up(1))
    B(
        "bill_of_lading",
        "Cognossement {v} nog niet vrijgegeven door de rederij",
        "HLCU" + "HAM" + dg(9),
    )
    B("bill_of_lading", "Konşimento no: {v}", "MAEU" + dg(9))
    B("bill_of_lading", "RFF+BM:{v}'", "COSU" + dg(10))

    # booking_reference
    B("booking_reference", "Booking {v} has 6x 40HC, cut-off Thursday 12:00", dg(9))
    B(
        "booking_reference",
        "Boekingsnummer {v} gekoppeld aan de verkeerde rederij, aangepast",
        "RTM" + dg(7),
    )
    B("booking_reference", "RFF+BN:{v}'", "EBKG" + dg(8))
    B("booking_reference", "Rezervasyon numarası {v} için boş konteyner çıkışı onaylandı", dg(10))

    # customs_mrn
    B("customs_mrn", "MRN {v} status: released for export", "26NL" + up(12) + dg(1) + "0")
    B("customs_mrn", "Douane MRN {v} staat nog op 'controle'", "26NL" + up(14))
    B("customs_mrn", "Transit beyanı MRN: {v}", "26TR" + up(14))
    B("customs_mrn", 'customs_mrn: "{v}"  # T1 transit to Venlo', "26NL" + up(14))

    # eori_number
    B("eori_number", "Declarant EORI {v}", "NL" + dg(9))
    B("eori_number", "EORI-nummer van de expediteur: {v}", "NL" + dg(9))
    B("eori_number", "Firma EORI numarası {v}", "TR" + dg(10))

    # seal_number
    B("seal_number", "Seal {v} intact at in-gate, matches the VGM", up(2) + dg(7))
    B("seal_number", "Zegel {v} ontbreekt op foto OCR lane 2, douane gebeld", dg(8))
    B("seal_number", "SEL+{v}+CA'", "ML-" + up(2) + dg(7))
    B("seal_number", "Mühür no {v} kayda işlendi", dg(7))

    # voyage_number
    B("voyage_number", "Voyage {v} discharges 1,840 moves, load 1,612", dg(3) + up(1))
    B("voyage_number", "Reisnummer {v} van de feeder is gewijzigd", dg(2) + "0" + up(1) + up(1))
    B("voyage_number", "TDT+20+{v}+1++MSC:172:20+++9XYZ7:103::11'", "FA" + dg(3) + "A")

    # baplie_slot
    B("baplie_slot", "LOC+147+{v}::5'", "0" + dg(6))
    B("baplie_slot", "reefer at bay/row/tier {v} has no plug on the stowage plan", "0" + dg(6))
    B("baplie_slot", "Stuwpositie {v} dubbel geboekt in het laadplan", "0" + dg(6))

    # edifact_control_ref
    B("edifact_control_ref", "UNB+UNOA:2+NCTRTM+MSCU+261203:0614+{v}'", dg(9))
    B(
        "edifact_control_ref",
        "Interchange control ref {v} rejected by the carrier (duplicate), resent with a new one",
        dg(8),
    )
    B("edifact_control_ref", "UNH+{v}+CODECO:D:95B:UN'", dg(6))
    B("edifact_control_ref", "CONTRL ontvangen voor bericht {v}: geaccepteerd", dg(10))

    # git_commit_sha
    B("git_commit_sha", "fixed in {v} (berth overlap check off by one)", hx(40))
    B("git_commit_sha", "Revert van {v} staat op main", hx(7))
    B("git_commit_sha", "deployed ocr-service@{v} to lane 1-4", hx(12))
    B("git_commit_sha", "Hata {v} commit'inde düzeldi", hx(40))

    # image_digest_sha256
    B("image_digest_sha256", "image: registry.nct.local/gate/ocr-engine@{v}", "sha256:" + hx(64))
    B("image_digest_sha256", "digest van de release-image: {v}", "sha256:" + hx(64))
    B("image_digest_sha256", "sha256sum baplie-export-20261203.edi -> {v}", hx(64))
    B("image_digest_sha256", "SBOM hash {v}", hx(64))

    # file_md5
    B("file_md5", "md5 of the firmware file for the straddle carriers: {v}", hx(32))
    B("file_md5", "Content-MD5 van de COPRAR: {v}", hx(32))
    B("file_md5", "Dosya kontrol toplamı (MD5) {v} tuttu", hx(32))

    # documented_example_key
    B(
        "documented_example_key",
        "the AWS docs example id {v} shows up in our tests, it is not a real key",
        "AKIAIOSFODNN7EXAMPLE",
    )
    B(
        "documented_example_key",
        "aws_secret_access_key = {v}  # voorbeeld uit de AWS documentatie",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    )
    B(
        "documented_example_key",
        "Stripe test docs use {v}; our tests use their own test keys",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    )
    B(
        "documented_example_key",
        "JWT example from jwt.io: {v}",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )

    # env_var_reference
    B("env_var_reference", "PORTBASE_API_KEY=${{v}}", "PORTBASE_API_KEY_PROD")
    B("env_var_reference", 'password: "{v}"', "${TOS_INTEGRATION_PASSWORD}")
    B("env_var_reference", 'api_key = os.environ["{v}"]', "AIS_API_KEY")
    B("env_var_reference", "Şifre koda yazılmıyor, {v} değişkeninden okunuyor", "$MQTT_PASSWORD")

    # vault_path
    B("vault_path", "secret lives at {v}", "secret/data/ot/cranes/sts04/plc-admin")
    B("vault_path", "vault kv get {v}", "kv/edi/partners/msc/sftp")
    B("vault_path", "Het douane-certificaat staat in Vault onder {v}", "secret/customs/ags/pfx")
    B("vault_path", "password: \"{{ vault('{v}') }}\"", "kv/data/gate/ocr-db#password")

    # masked_secret
    B(
        "masked_secret",
        "Stripe key in the billing service ends with {v} (full value in Vault)",
        "sk_live_****" + an(4),
    )
    B("masked_secret", "log: auth ok for user edi-svc password={v}", "********")
    B("masked_secret", "Token: {v}", "xoxb-****-****-" + "*" * 20 + an(4))
    B("masked_secret", "DB_PASSWORD={v}", "[REDACTED]")

    # revoked_key
    B(
        "revoked_key",
        "REVOKED on 2026-11-28, do not use: {v} (leaked in a screenshot, GitHub already invalidated it)",
        "ghp_" + an(36),
    )
    B(
        "revoked_key",
        "Oude SendGrid sleutel ingetrokken, staat hier alleen voor de incident-tijdlijn: {v}",
        "SG." + g(URLSAFE, 22) + "." + g(URLSAFE, 43),
    )
    B("revoked_key", "İptal edildi (rotated): {v} — artık çalışmıyor", "glpat-" + g(URLSAFE, 20))

    # ssh_public_key
    B(
        "ssh_public_key",
        "add to authorized_keys on the rtg gateways: {v}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g(B64, 43) + " ops@nct-jump01",
    )
    B(
        "ssh_public_key",
        "Publieke sleutel van de leverancier (alleen lezen): {v}",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + g(B64, 200) + " vendor-crane-support",
    )
    B(
        "ssh_public_key",
        "- {v}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g(B64, 43) + " ci@gitlab-runner",
    )

    # x509_certificate
    B(
        "x509_certificate",
        "Portbase AS2 partner certificate (public, send to anyone who asks):\n{v}",
        pem("CERTIFICATE", 6, 30),
    )
    B("x509_certificate", "ca.crt voor de MQTT broker:\n{v}", pem("CERTIFICATE", 5, 10))
    B("x509_certificate", "Gümrük sunucusunun açık sertifikası:\n{v}", pem("CERTIFICATE", 4, 24))

    # stripe_publishable_key
    B("stripe_publishable_key", "NEXT_PUBLIC_STRIPE_KEY={v}", "pk_live_51" + an(97))
    B(
        "stripe_publishable_key",
        "publishable key in the agent portal frontend: {v}",
        "pk_live_" + an(24),
    )
    B("stripe_publishable_key", "Ödeme sayfasında görünen public key: {v}", "pk_live_51" + an(97))

    # recaptcha_site_key
    B(
        "recaptcha_site_key",
        '<div class="g-recaptcha" data-sitekey="{v}"></div>',
        "6L" + g(URLSAFE, 38),
    )
    B(
        "recaptcha_site_key",
        "reCAPTCHA site key voor het afspraakformulier truckers: {v}",
        "6L" + g(URLSAFE, 38),
    )
    B("recaptcha_site_key", "RECAPTCHA_SITE_KEY={v}", "6L" + g(URLSAFE, 38))

    # uuid_request_id
    B(
        "uuid_request_id",
        "2026-12-04T03:11:09Z ERROR request_id={v} CODECO mapping failed: unknown ISO code",
        uid(),
    )
    B(
        "uuid_request_id",
        "Correlation-ID {v} bij de douane-melding, stuur die mee naar de servicedesk",
        uid(),
    )
    B("uuid_request_id", "trace {v} shows the TOS call took 9.2s", uid())
    B("uuid_request_id", "İstek kimliği: {v}", uid())

    # jira_ticket
    B("jira_ticket", "see {v} for the berth window overlap bug", "BERTH-" + dg(4))
    B("jira_ticket", "Melding {v}: OCR herkent ISO code 45R1 niet", "GATE-" + dg(3))
    B("jira_ticket", "Kayıt {v} açıldı: RTG 07 telemetri kesiliyor", "OT-" + dg(4))
    B("jira_ticket", "Closes {v}", "EDI-" + dg(4))

    # build_version
    B(
        "build_version",
        "TOS upgraded to {v} last night, rollback window until 06:00",
        "N4 3.9." + dg(1) + "." + dg(2),
    )
    B("build_version", "ocr-engine {v} draait op lane 5-8", "v2." + dg(1) + "." + dg(2) + "-rc1")
    B("build_version", "berth-planner build {v}", "2026.12." + dg(3) + "+" + hx(7))

    # device_serial
    B("device_serial", "Camera lane 4 serial {v}, RMA opened with Axis", "ACCC8E" + up(6))
    B("device_serial", "Serienummer PLC kraan 3: {v}", "S V-" + up(4) + dg(6))
    B("device_serial", "Straddle carrier telematik kutusu seri no {v}", "TLM" + dg(9))
    B("device_serial", "handheld RT-{v} returned to stores", dg(8))

    # mac_address
    B("mac_address", "DHCP reservation for gate kiosk 2: {v}", ":".join(hx(2) for _ in range(6)))
    B(
        "mac_address",
        "MAC-adres van de OCR camera op lane 6 is {v}",
        ":".join(hx(2).upper() for _ in range(6)),
    )
    B("mac_address", "Vinç ağ anahtarı MAC: {v}", "-".join(hx(2).upper() for _ in range(6)))

    # truck_license_plate
    B(
        "truck_license_plate",
        "OCR read plate {v} but the appointment has a different truck",
        "BX-" + dg(3) + "-" + up(2).replace("0", "K"),
    )
    B(
        "truck_license_plate",
        "Kenteken {v} staat op de blacklist na twee no-shows",
        dg(2) + "-" + "BKX" + "-" + dg(1),
    )
    B(
        "truck_license_plate",
        "Plaka {v} girişte okunamadı, manuel girildi",
        "34 " + up(2).replace("0", "A") + " " + dg(4),
    )

    # badge_number
    B("badge_number", "ISPS badge {v} expired, driver sent to the badge office", dg(8))
    B("badge_number", "Pasnummer {v} (Port Pass) gekoppeld aan chauffeur", "PP" + dg(7))
    B("badge_number", "Personel kart no {v} turnike loglarında görünüyor", dg(6))

    # iban
    B(
        "iban",
        "Storage charges can be paid to {v} (NCT BV), mention the B/L",
        "NL" + dg(2) + "INGB" + dg(10),
    )
    B("iban", "Rekening voor demurrage-betalingen: {v}", "NL" + dg(2) + "RABO" + dg(10))
    B(
        "iban",
        "Ardiye ödemeleri için IBAN: {v}",
        "TR" + dg(2) + " 0006 " + dg(4) + " " + dg(4) + " " + dg(4) + " " + dg(4) + " " + dg(2),
    )

    # password_policy
    B(
        "password_policy",
        "{v}",
        "Policy: OT device passwords must be at least 16 characters, unique per crane, rotated after every vendor visit and stored only in the vault.",
    )
    B(
        "password_policy",
        "Beleid: {v}",
        "wachtwoorden nooit in Teams of WhatsApp delen, gebruik de gedeelde kluis in 1Password",
    )
    B(
        "password_policy",
        "Kural: {v}",
        "şifreler en az 12 karakter, 90 günde bir değişir, son 5 şifre tekrar kullanılamaz",
    )

    # ssh_host_fingerprint
    B(
        "ssh_host_fingerprint",
        "The authenticity of host 'edi.carrier-hub.example' can't be established. ED25519 key fingerprint is {v}.",
        "SHA256:" + g(B64, 43),
    )
    B(
        "ssh_host_fingerprint",
        "Host key van de douane-SFTP (controleer bij eerste verbinding): {v}",
        "SHA256:" + g(B64, 43),
    )
    B(
        "ssh_host_fingerprint",
        "known_hosts fingerprint MD5: {v}",
        ":".join(hx(2) for _ in range(16)),
    )

    # pgp_fingerprint
    B(
        "pgp_fingerprint",
        "EDI payloads to the Turkish agent are encrypted to PGP key {v}",
        " ".join(hx(4).upper() for _ in range(10)),
    )
    B("pgp_fingerprint", "PGP-vingerafdruk security@nct: {v}", hx(40).upper())
    B("pgp_fingerprint", "gpg --recv-keys {v}", hx(16).upper())

    # azure_tenant_id
    B("azure_tenant_id", "tenant id for NCT: {v}", uid())
    B("azure_tenant_id", '"subscriptionId": "{v}"', uid())
    B("azure_tenant_id", "Tenant-ID van de douane-omgeving {v}", uid())

    # gcp_service_account_email
    B(
        "gcp_service_account_email",
        "grant roles/bigquery.dataViewer to {v}",
        "berth-forecast@nct-ml.iam.gserviceaccount.com",
    )
    B(
        "gcp_service_account_email",
        "Service account {v} mag alleen lezen",
        "ais-ingest@nct-ais-feed.iam.gserviceaccount.com",
    )
    B(
        "gcp_service_account_email",
        "client_email: {v}",
        "ocr-archive@korfez-liman.iam.gserviceaccount.com",
    )

    # aws_arn
    B(
        "aws_arn",
        "bucket policy principal {v}",
        "arn:aws:iam::" + dg(12) + ":role/gate-ocr-uploader",
    )
    B(
        "aws_arn",
        "KMS key for the BAPLIE archive: {v}",
        "arn:aws:kms:eu-west-1:" + dg(12) + ":key/" + uid(),
    )
    B(
        "aws_arn",
        "Secret ARN (alleen de verwijzing): {v}",
        "arn:aws:secretsmanager:eu-west-1:" + dg(12) + ":secret:prod/pcs/api-" + an(6),
    )

    # oauth_client_id
    B("oauth_client_id", "OAUTH_CLIENT_ID={v}", uid())
    B(
        "oauth_client_id",
        "Google sign-in client id for the agent portal: {v}",
        dg(12) + "-" + g(LODIG, 32) + ".apps.googleusercontent.com",
    )
    B("oauth_client_id", "client_id: {v}  # secret komt uit Vault", "berth-planner-web")

    # slack_channel_id
    B("slack_channel_id", "post reefer alarms to channel {v}", "C0" + up(9))
    B("slack_channel_id", "Slack user id van de dienstdoende planner: {v}", "U0" + up(9))
    B("slack_channel_id", "workspace {v}", "T0" + up(8))

    # twilio_account_sid
    B("twilio_account_sid", "TWILIO_ACCOUNT_SID={v}", "AC" + hx(32))
    B("twilio_account_sid", "Messaging service {v} stuurt de slot-sms'jes", "MG" + hx(32))
    B("twilio_account_sid", "Twilio hesap SID: {v}", "AC" + hx(32))

    # bcrypt_hash
    B("bcrypt_hash", "seed user for the test env, hash only: {v}", "$2b$12$" + g(ALNUM + "./", 53))
    B("bcrypt_hash", "htpasswd regel reefer-mon: reefer:{v}", "$2y$10$" + g(ALNUM + "./", 53))
    B(
        "bcrypt_hash",
        "INSERT INTO portal_user(login, pw_hash) VALUES ('demo', '{v}');",
        "$2a$10$" + g(ALNUM + "./", 53),
    )

    # gate_transaction_id
    B("gate_transaction_id", "Gate transaction {v} stuck in 'trouble lane'", "GT" + dg(10))
    B(
        "gate_transaction_id",
        "Poorttransactie {v}: OCR confidence 0.61, handmatig gecontroleerd",
        "IG-" + dg(8),
    )
    B("gate_transaction_id", "Kapı işlem no {v} iptal edildi", "KP" + dg(9))
    B("gate_transaction_id", "truck appointment {v} for window 14:00-15:00", "APT-" + dg(7))

    # che_id
    B("che_id", "{v} hydraulic leak, out of service until the 9th", "SC-1" + dg(2))
    B("che_id", "Kraan {v} heeft een twistlock-fout op de spreader", "STS0" + dg(1))
    B("che_id", "{v} telemetri verisi 2 saattir gelmiyor", "RTG-" + dg(2))

    # hs_code
    B("hs_code", "commodity HS {v} needs phytosanitary check", "0805" + dg(2))
    B("hs_code", "GS-code {v} (elektrische apparaten) aangegeven", "8504" + dg(4))
    B("hs_code", "GTİP {v}", "8708." + dg(2) + "." + dg(2) + "." + dg(2) + "." + dg(2))

    # iso_size_type
    B("iso_size_type", "reefers are {v}, check the plug list", "45R1")
    B("iso_size_type", "ISO-type {v} werd door OCR als 22G0 gelezen", "22G1")
    B("iso_size_type", "Open top konteyner tipi {v}", "22U1")

    # gln_number
    B("gln_number", "our GLN in the PCS: {v}", "871" + dg(10))
    B("gln_number", "UNB+UNOC:3+{v}:14+8712345000007:14'", "871" + dg(10))
    B("gln_number", "Firma GLN numarası {v}", "869" + dg(10))

    # placeholder_value
    B("placeholder_value", "PCS_API_KEY={v}", "<your-api-key-here>")
    B("placeholder_value", "password: {v}  # vul in vanuit de kluis", "CHANGE_ME")
    B("placeholder_value", 'mqtt_password="{v}"', "xxxxxxxxxxxxxxxx")
    B("placeholder_value", "sftp şifresi: {v}", "<şifre buraya>")

    # cert_thumbprint
    B("cert_thumbprint", "customs client cert thumbprint (SHA1): {v}", hx(40).upper())
    B(
        "cert_thumbprint",
        "Thumbprint van het nieuwe AS2 certificaat: {v}",
        ":".join(hx(2).upper() for _ in range(32)),
    )
    B("cert_thumbprint", "WEBSITE_LOAD_CERTIFICATES={v}", hx(40).upper())

    # k8s_secret_ref
    B(
        "k8s_secret_ref",
        "valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: password",
        "tos-integration-credentials",
    )
    B("k8s_secret_ref", "kubectl -n gate get secret {v} -o yaml | grep -c data", "ocr-db-auth")
    B("k8s_secret_ref", "Secret {v} wordt door external-secrets uit Vault gevuld", "portbase-api")

    # scac_code
    B("scac_code", "carrier SCAC {v} on the CODECO", "MAEU")
    B("scac_code", "Rederijcode {v} ontbreekt in de partnertabel", "HLCU")
    B("scac_code", "Taşıyıcı kodu {v}", "MSCU")

    # docker_image_ref
    B("docker_image_ref", "image: {v}", "registry.nct.local/edi/codeco-mapper:1.14.2")
    B("docker_image_ref", "docker pull {v}", "ghcr.io/noordkade-ct/berth-planner:2026.12.1")
    B("docker_image_ref", "Gate OCR imajı: {v}", "nctbuild/ocr-engine:4.2.0-cuda12")

    # ---- extra benign rows (second pass)
    B("eori_number", "eori: {v}  # NCT BV", "NL" + dg(9))
    B("mmsi", "AIS target {v} (tug) ignored in the ETA model", "244" + dg(6))
    B("voyage_number", "Sefer no {v} için son yükleme listesi geldi", dg(3) + "E")
    B("baplie_slot", "Dolu konteyner {v} slotunda, plan ile uyuşmuyor", "0" + dg(6))
    B("file_md5", 'etag: "{v}"', hx(32))
    B(
        "revoked_key",
        "rotated 2026-10-02, old Datadog key (dead, kept for the audit trail): {v}",
        hx(32),
    )
    B(
        "ssh_public_key",
        "id_ed25519.pub van de nieuwe jump host: {v}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g(B64, 43) + " beheer@nct-jump02",
    )
    B(
        "x509_certificate",
        "fullchain.pem (openbare keten van agents.nct.nl):\n{v}",
        pem("CERTIFICATE", 5, 40),
    )
    B("stripe_publishable_key", "Stripe.setPublishableKey('{v}');", "pk_live_" + an(24))
    B(
        "recaptcha_site_key",
        "Randevu formu reCAPTCHA site anahtarı (herkese açık): {v}",
        "6L" + g(URLSAFE, 38),
    )
    B("build_version", "Vinç PLC firmware sürümü {v}", "V4.5." + dg(1))
    B("mac_address", "arp -a | grep {v}", ":".join(hx(2) for _ in range(6)))
    B("badge_number", "badge_id: {v}\nholder: contractor, crane maintenance", dg(10))
    B("iban", "IBAN: {v} (BIC ABNANL2A)", "NL" + dg(2) + "ABNA" + dg(10))
    B(
        "password_policy",
        "{v}",
        "Reminder for agents: never paste a password, token or PIN into these notes; write the vault path instead.",
    )
    B("container_number", "Konteyner {v} gümrük muayenesine ayrıldı", cont("TCLU"))
    B("seal_number", "seal_no: {v}", "EU" + dg(8))

    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for r in rows:
        out.write(json.dumps(r, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

# ruff: noqa: E501, B905, SIM115
"""Blind secret-detector corpus 105: shipping line fleet IT.

Brief: memory notes kept by the fleet IT team of a shipping line and its AI
coding agents: vessels at sea, VSAT/Starlink/Iridium links, ECDIS and engine
automation, crew Wi-Fi, ship e-mail, port agents, chartering and the usual
developer stack (cloud, CI, databases, chat webhooks). Rows are prose, handover
lines, chat, commands, config/.env, YAML, JSON, URLs, tables and logs, in
English, Norwegian, Greek and Tagalog.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_105.py [out.jsonl]

Kinds, secret: aws_access_key_id, aws_secret_access_key, github_pat, github_fine_grained_pat,
gitlab_pat, slack_bot_token, slack_webhook_url, teams_webhook_url, stripe_secret_key,
stripe_webhook_secret, twilio_auth_token, sendgrid_api_key, mailgun_api_key, azure_storage_connection_string,
azure_client_secret, postgres_url_password, mongodb_uri_password, mssql_connection_password,
redis_url_password, rsa_private_key, openssh_private_key, gcp_service_account_key, jwt_token,
google_api_key, openai_api_key, anthropic_api_key, npm_token, pypi_token, vault_token,
docker_hub_pat, datadog_api_key, telegram_bot_token, fortigate_api_token, vsat_modem_admin_password,
satcom_portal_password, sim_pin_puk, ecdis_admin_password, engine_automation_password,
crew_wifi_psk, ops_wifi_psk, hotspot_gateway_admin_password, ship_email_password,
port_agent_portal_password, chartering_api_key, ais_api_key, weather_routing_api_key,
safe_and_door_code, ipsec_vpn_psk, radius_shared_secret, snmp_community, ldap_bind_password,
url_basic_auth, password_manager_master, mfa_recovery_codes.

Kinds, benign: imo_number, mmsi, call_sign, inmarsat_number, iridium_number, vsat_modem_serial,
starlink_kit_id, enc_cell_name, un_locode, voyage_number, bill_of_lading, container_number,
seal_number, booking_reference, fixture_reference, pda_reference, ticket_reference, invoice_number,
git_commit_sha, sha256_digest, md5_checksum, docker_image_digest, sri_integrity_hash, password_hash,
ssh_public_key, ssh_host_fingerprint, pgp_fingerprint, certificate_pem, aws_documented_example,
vendor_documented_example, stripe_publishable_key, recaptcha_site_key, placeholder_value,
env_var_reference, vault_path, masked_value, redacted_log, revoked_key, password_policy, uuid_id,
twilio_account_sid, aws_account_arn, kms_key_id, mac_address, ip_subnet, build_version, sim_iccid,
imsi, imei, wifi_ssid, hostname, iban, swift_bic, eori_number, seafarer_book_number, slack_channel_id,
oauth_client_id, base64_public_data.
"""

import base64
import json
import random
import string
import sys
import uuid as _uuid

SEED = 24563

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def rs(n, alpha=AN):
        return "".join(rng.choice(alpha) for _ in range(n))

    def uid():
        return str(_uuid.UUID(int=rng.getrandbits(128), version=4))

    def pick(seq):
        return rng.choice(seq)

    vessels = [
        "MV Nordvik Tern",
        "MV Nordvik Skarv",
        "MT Aegean Halcyon",
        "MV Nordvik Lomvi",
        "MV Ionian Spirit",
        "MT Nordvik Havorn",
        "MV Laguna Bay",
        "MV Nordvik Teist",
    ]
    people = [
        "Kjetil",
        "Ingrid",
        "Giorgos",
        "Eleni",
        "Rodel",
        "Marites",
        "Sindre",
        "Nikos",
        "Jun-jun",
        "Astrid",
    ]

    def ves():
        return pick(vessels)

    def who():
        return pick(people)

    words = [
        "Skagen",
        "Lofoten",
        "Piraeus",
        "Kalamata",
        "Maynila",
        "Batangas",
        "Havorn",
        "Bergen",
        "Tern",
        "Kapitan",
        "Bosun",
        "Anchor",
        "Hydra",
        "Cebu",
        "Narvik",
        "Meltemi",
        "Poseidon",
        "Stavanger",
    ]

    def pw():
        style = rng.randrange(5)
        w = pick(words)
        if style == 0:
            return f"{w}{rng.randrange(1990, 2027)}{pick('!#$%*?')}"
        if style == 1:
            return f"{w}{pick('!#@.')}{pick(words)}{rng.randrange(10, 99)}"
        if style == 2:
            return f"{w.lower()}_{rs(2, DG)}{pick(words)}{pick('!?&')}"
        if style == 3:
            return rs(rng.randrange(12, 17), AN + "!#%&*+-=?@")
        return f"{pick(words)}-{pick(words).lower()}-{rs(3, DG)}{pick('!$')}"

    def passphrase():
        ws = [
            "storm",
            "ankerkjetting",
            "kavo",
            "bagyo",
            "dekk",
            "sirena",
            "lanterne",
            "thalassa",
            "pantalan",
            "fyrlykt",
            "kaptein",
            "alon",
            "bunker",
            "malamig",
        ]
        return "-".join(rng.sample(ws, 3)) + str(rng.randrange(10, 99))

    def luhn_complete(s):
        total = 0
        for i, ch in enumerate(reversed(s)):
            d = int(ch)
            if i % 2 == 0:
                d *= 2
                if d > 9:
                    d -= 9
            total += d
        return s + str((10 - total % 10) % 10)

    def imo():
        d = [9] + [rng.randrange(10) for _ in range(5)]
        c = sum(x * w for x, w in zip(d, [7, 6, 5, 4, 3, 2])) % 10
        return "".join(map(str, d)) + str(c)

    def container(owner="NVKU"):
        vals = {}
        v = 10
        for ch in UP:
            if v % 11 == 0:
                v += 1
            vals[ch] = v
            v += 1
        s = owner + rs(6, DG)
        tot = sum((vals[c] if c.isalpha() else int(c)) * (2**i) for i, c in enumerate(s))
        return s + str(tot % 11 % 10)

    def iban(cc, body):
        num = "".join(str(int(c, 36)) for c in body + cc + "00")
        chk = 98 - int(num) % 97
        return f"{cc}{chk:02d}{body}"

    def pem(label, head, lines):
        body = (
            [head + rs(64 - len(head), B64)]
            + [rs(64, B64) for _ in range(lines)]
            + [rs(rng.randrange(20, 60), B64) + "="]
        )
        return f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"

    def b64u(obj):
        return (
            base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    def jwt():
        h = b64u({"alg": pick(["HS256", "RS256"]), "typ": "JWT"})
        p = b64u(
            {
                "sub": pick(["svc-noonreport", "agent-portal", "ecdis-sync", rs(8, LO + DG)]),
                "iss": pick(["https://fleet.nordvikline.no", "https://auth.portcall.io"]),
                "iat": rng.randrange(1760000000, 1790000000),
                "scope": pick(["vessel:read", "pda:write", "ops"]),
            }
        )
        return f"{h}.{p}.{rs(43, B64U)}"

    def K(label, kind, gen, *templates):
        for t in templates:
            v = gen()
            text = t(v)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    K(
        S,
        "aws_access_key_id",
        lambda: "AKIA" + rs(16, UP + "234567"),
        lambda v: (
            f"noon-report uploader on {ves()} uses access key {v} (bucket nvk-noonreports-prod), rotate after drydock"
        ),
        lambda v: f"AWS_ACCESS_KEY_ID={v}",
        lambda v: f"[profile fleet-telemetry]\naws_access_key_id = {v}\nregion = eu-north-1",
        lambda v: (
            f"{who()}: brukte nøkkelen {v} for å laste opp VDR-dumpen til S3, husk å slette den etterpå"
        ),
    )
    K(
        S,
        "aws_secret_access_key",
        lambda: rs(40, B64),
        lambda v: f"aws_secret_access_key = {v}",
        lambda v: f"export AWS_SECRET_ACCESS_KEY='{v}'  # s3 sync of ECDIS logs from {ves()}",
        lambda v: (
            f"handover: telemetry IAM user secret is {v} (id in 1Password entry 'fleet-telemetry')"
        ),
        lambda v: f'{{"AccessKeyId": "AKIA{rs(16, UP + "234567")}", "SecretAccessKey": "{v}"}}',
    )
    K(
        S,
        "github_pat",
        lambda: "ghp_" + rs(36),
        lambda v: f"git clone https://{v}@github.com/nordvikline/vessel-edge-config.git",
        lambda v: f"GITHUB_TOKEN={v}",
        lambda v: f"Το token για το repo του noon report είναι {v}, μην το ανεβάσεις στο wiki",
        lambda v: f"agent memory: ci bot PAT {v} has repo+workflow scope on nordvikline org",
    )
    K(
        S,
        "github_fine_grained_pat",
        lambda: "github_pat_" + rs(22) + "_" + rs(59),
        lambda v: f"fine-grained token for the ship-agent repo (expires 2027-03-01): {v}",
        lambda v: f"gh auth login --with-token <<< {v}",
        lambda v: f'  token: "{v}"  # renovate on edge-images',
    )
    K(
        S,
        "gitlab_pat",
        lambda: "glpat-" + rs(20, B64U),
        lambda v: f"GITLAB_PAT={v}",
        lambda v: (
            f'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.nordvikline.no/api/v4/projects/41/pipelines'
        ),
        lambda v: (
            f"{who()} said the runner registration fell over; used {v} to re-register the onboard runner on {ves()}"
        ),
        lambda v: f"Token para sa gitlab ng ECDIS sync: {v} — huwag i-share sa crew group chat",
    )
    K(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{rs(12, DG)}-{rs(13, DG)}-{rs(24)}",
        lambda v: f"SLACK_BOT_TOKEN={v}",
        lambda v: f"slack:\n  bot_token: {v}\n  channel: '#fleet-alerts'",
        lambda v: f"the satcom-outage bot posts with {v}; if it stops, check the Slack app install",
        lambda v: (
            f"curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C04FLEETOPS"
        ),
    )
    K(
        S,
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T0{rs(8, UP + DG)}/B0{rs(9, UP + DG)}/{rs(24)}",
        lambda v: f"VSAT_ALERT_WEBHOOK={v}",
        lambda v: (
            f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"{ves()} VSAT link down\"}}' {v}"
        ),
        lambda v: f"webhook for #bunker-ops: {v}",
        lambda v: f"Webhook til #broen-varsler (ECDIS-alarmer): {v}",
    )
    K(
        S,
        "teams_webhook_url",
        lambda: (
            f"https://nordvikline.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{rs(32, HX)}/{uid()}"
        ),
        lambda v: f"Teams connector for Chartering desk: {v}",
        lambda v: f"  teams_url: {v}",
        lambda v: (
            f"Invoke-RestMethod -Method Post -Uri '{v}' -Body $json -ContentType 'application/json'"
        ),
    )
    K(
        S,
        "stripe_secret_key",
        lambda: "sk_live_" + rs(pick([24, 99])),
        lambda v: f"STRIPE_SECRET_KEY={v}",
        lambda v: f"crew shop (slopchest online top-up) charges go through stripe key {v}",
        lambda v: f'stripe.api_key = "{v}"',
        lambda v: f"Stripe live κλειδί για τα crew welfare payments: {v}",
    )
    K(
        S,
        "stripe_webhook_secret",
        lambda: "whsec_" + rs(32),
        lambda v: f"STRIPE_WEBHOOK_SECRET={v}",
        lambda v: f"endpoint /hooks/stripe on crew-portal verifies with signing secret {v}",
        lambda v: f"webhook_secret: {v}",
    )
    K(
        S,
        "twilio_auth_token",
        lambda: rs(32, HX),
        lambda v: f"TWILIO_AUTH_TOKEN={v}",
        lambda v: f"SMS fallback for SSAS escalations: account AC{rs(32, HX)}, auth token {v}",
        lambda v: f"client = Client('AC{rs(32, HX)}', '{v}')",
        lambda v: f'twilio:\n  account_sid: AC{rs(32, HX)}\n  auth_token: "{v}"',
    )
    K(
        S,
        "sendgrid_api_key",
        lambda: "SG." + rs(22, B64U) + "." + rs(43, B64U),
        lambda v: f"SENDGRID_API_KEY={v}",
        lambda v: f"noon reports mail out via sendgrid, key {v}",
        lambda v: f"Ang SendGrid key para sa crew payslip emails: {v}",
        lambda v: f'sg = SendGridAPIClient("{v}")',
    )
    K(
        S,
        "mailgun_api_key",
        lambda: "key-" + rs(32, HX),
        lambda v: f"MAILGUN_API_KEY={v}",
        lambda v: (
            f"curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.nordvikline.no/messages"
        ),
        lambda v: f"port-agent notification mails (mailgun) key: {v}",
    )
    K(
        S,
        "azure_storage_connection_string",
        lambda: rs(86, B64) + "==",
        lambda v: (
            f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=nvkvdrarchive;AccountKey={v};EndpointSuffix=core.windows.net"
        ),
        lambda v: (
            f'"ConnectionStrings": {{ "Blob": "DefaultEndpointsProtocol=https;AccountName=nvkfleetlogs;AccountKey={v};EndpointSuffix=core.windows.net" }}'
        ),
        lambda v: f"storage account key1 for nvkecdisupdates: {v}",
        lambda v: (
            f"az storage blob upload -c enc-updates --account-name nvkecdisupdates --account-key {v} -f ENC_WEEK49.zip"
        ),
    )
    K(
        S,
        "azure_client_secret",
        lambda: rs(3) + "8Q~" + rs(34, AN + "_-.~"),
        lambda v: f"AZURE_CLIENT_SECRET={v}",
        lambda v: f"app reg 'fleet-intune-sync' client secret {v} (expires in 6 months)",
        lambda v: f"Client secret για το Entra app του γραφείου Πειραιά: {v}",
    )
    K(
        S,
        "postgres_url_password",
        pw,
        lambda v: f"DATABASE_URL=postgresql://noonrep:{v}@db.fleet.internal:5432/noonreports",
        lambda v: f'psql "host=pms-db.nordvikline.no user=pms_admin password={v} dbname=pms"',
        lambda v: f"  SQLALCHEMY_URI: postgres://voyage_app:{v}@10.40.2.15/voyage",
        lambda v: f"{who()}: the shore replica password for user 'replicator' is {v}",
    )
    K(
        S,
        "mongodb_uri_password",
        pw,
        lambda v: (
            f"MONGO_URI=mongodb+srv://ais_ingest:{v}@fleet-ais.ab12c.mongodb.net/ais?retryWrites=true"
        ),
        lambda v: (
            f"mongosh 'mongodb://telemetry:{v}@edge-{rng.randrange(1, 9)}.vessel.local:27017/sensors?authSource=admin'"
        ),
        lambda v: f"ang password ng mongo user na crewapp ay {v}",
    )
    K(
        S,
        "mssql_connection_password",
        pw,
        lambda v: (
            f"Server=AMOS-SQL01;Database=AMOS;User Id=amos_svc;Password={v};TrustServerCertificate=True"
        ),
        lambda v: (
            f'<add name="PMS" connectionString="Data Source=.\\SQLEXPRESS;Initial Catalog=ShipPMS;User ID=sa;Password={v}" />'
        ),
        lambda v: (
            f"onboard {ves()}: SQL Express sa password is {v}, used by the planned maintenance client"
        ),
        lambda v: (
            f"sqlcmd -S localhost\\SHIPNET -U sa -P '{v}' -Q \"BACKUP DATABASE PMS TO DISK='D:\\bk\\pms.bak'\""
        ),
    )
    K(
        S,
        "redis_url_password",
        pw,
        lambda v: f"REDIS_URL=redis://:{v}@cache.fleet.internal:6379/2",
        lambda v: f"redis-cli -h 10.40.2.31 -a '{v}' FLUSHDB  # only on staging!",
        lambda v: f"cache:\n  url: rediss://default:{v}@redis-voyage.nordvikline.no:6380/0",
    )
    K(
        S,
        "rsa_private_key",
        lambda: pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 6),
        lambda v: f"deploy key for ecdis-sync box (do not lose):\n{v}",
        lambda v: f"cat > /etc/ipsec.d/private/vessel.key <<'EOF'\n{v}\nEOF",
        lambda v: f"tls:\n  key: |\n{v}",
    )
    K(
        S,
        "openssh_private_key",
        lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACD"
            + rs(50, B64)
            + "\n"
            + "\n".join(rs(70, B64) for _ in range(3))
            + "\n"
            + rs(24, B64)
            + "==\n-----END OPENSSH PRIVATE KEY-----"
        ),
        lambda v: f"id_ed25519 for jump host sat-gw (user fleetops):\n{v}",
        lambda v: f"Nøkkelen til VSAT-jumpboksen, legg den i ~/.ssh/id_vsat:\n{v}",
    )
    K(
        S,
        "gcp_service_account_key",
        lambda: (
            "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
            + rs(50, B64)
            + "\\n"
            + "\\n".join(rs(64, B64) for _ in range(4))
            + "\\n-----END PRIVATE KEY-----\\n"
        ),
        lambda v: (
            f'{{"type": "service_account", "project_id": "nvk-weather", "private_key_id": "{rs(40, HX)}", "private_key": "{v}", "client_email": "routing@nvk-weather.iam.gserviceaccount.com"}}'
        ),
        lambda v: f'GOOGLE_PRIVATE_KEY="{v}"',
    )
    K(
        S,
        "jwt_token",
        jwt,
        lambda v: f"Authorization: Bearer {v}",
        lambda v: f"port agent portal session token (valid 30d!) for {who()}: {v}",
        lambda v: f'curl -H "Authorization: Bearer {v}" https://api.portcall.io/v2/calls/NOOSL',
        lambda v: f"NOONREPORT_API_JWT={v}",
    )
    K(
        S,
        "google_api_key",
        lambda: "AIza" + rs(35, B64U),
        lambda v: f"GOOGLE_MAPS_SERVER_KEY={v}",
        lambda v: f"geocoding for port agent addresses uses {v} (server key, unrestricted!)",
        lambda v: (
            f"https://maps.googleapis.com/maps/api/geocode/json?address=Akti+Miaouli+Piraeus&key={v}"
        ),
    )
    K(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + rs(74, B64U) + "T3BlbkFJ" + rs(74, B64U),
        lambda v: f"OPENAI_API_KEY={v}",
        lambda v: f"charter party clause summariser uses {v}",
        lambda v: f"Ο agent για τα SOF χρησιμοποιεί το κλειδί {v}",
    )
    K(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + rs(93, B64U) + "AA",
        lambda v: f"ANTHROPIC_API_KEY={v}",
        lambda v: f"the laytime-calc agent runs with key {v} from the chartering team's workspace",
    )
    K(
        S,
        "npm_token",
        lambda: "npm_" + rs(36),
        lambda v: f"//registry.npmjs.org/:_authToken={v}",
        lambda v: f"NPM_TOKEN={v}  # publish @nordvikline/voyage-ui",
        lambda v: f"token pang-publish ng crew-app package: {v}",
    )
    K(
        S,
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + rs(rng.randrange(140, 170), B64U),
        lambda v: f"[pypi]\nusername = __token__\npassword = {v}",
        lambda v: f"twine upload dist/* -u __token__ -p {v}",
    )
    K(
        S,
        "vault_token",
        lambda: "hvs." + rs(rng.choice([24, 90])),
        lambda v: f"VAULT_TOKEN={v}",
        lambda v: f"root-ish token from the unseal ceremony, still valid: {v}",
        lambda v: f"vault login {v}",
    )
    K(
        S,
        "docker_hub_pat",
        lambda: "dckr_pat_" + rs(27, B64U),
        lambda v: f"echo {v} | docker login -u nvkfleet --password-stdin",
        lambda v: f"DOCKERHUB_TOKEN={v}",
        lambda v: f"edge boxes pull images with docker hub PAT {v} (read-only)",
    )
    K(
        S,
        "datadog_api_key",
        lambda: rs(32, HX),
        lambda v: f"DD_API_KEY={v}",
        lambda v: f"datadog agent on shore gateways: api_key: {v}",
        lambda v: f"api key datadog για τα gateways των πλοίων: {v}",
    )
    K(
        S,
        "telegram_bot_token",
        lambda: f"{rng.randrange(5000000000, 7999999999)}:AA{rs(33, B64U)}",
        lambda v: f"TELEGRAM_BOT_TOKEN={v}",
        lambda v: f"the crew-notice bot (Telegram) token is {v}",
        lambda v: (
            f"https://api.telegram.org/bot{v}/sendMessage?chat_id=-100{rs(10, DG)}&text=Wifi+maintenance"
        ),
    )
    K(
        S,
        "fortigate_api_token",
        lambda: rs(30, LO + DG),
        lambda v: f"FortiGate 60F on {ves()}: REST API admin token {v}",
        lambda v: (
            f"curl -k -H 'Authorization: Bearer {v}' https://10.{rng.randrange(10, 90)}.0.1/api/v2/cmdb/firewall/policy"
        ),
        lambda v: f"  fortigate_token: {v}",
    )
    K(
        S,
        "vsat_modem_admin_password",
        pw,
        lambda v: f"iDirect X7 on {ves()}: admin / {v}",
        lambda v: (
            f"Intellian ACU web login — user admin, password {v}. Don't change without telling the NOC."
        ),
        lambda v: (
            f"telnet 192.168.0.1 → login root, pass {v} (modem console, for beam switch only)"
        ),
        lambda v: f"Κωδικός για το modem VSAT του {ves()}: {v}",
        lambda v: f"Passord til VSAT-modemet (Cobham Sailor 900) er {v}",
    )
    K(
        S,
        "satcom_portal_password",
        pw,
        lambda v: f"Fleet Xpress customer portal: fleetit@nordvikline.no / {v}",
        lambda v: f"Starlink business account login fleetops@nordvikline.no, pw {v}",
        lambda v: f"{who()}: Iridium Certus airtime portal password changed to {v}",
        lambda v: f"| Marlink portal | nvk-noc | {v} |",
    )
    K(
        S,
        "sim_pin_puk",
        lambda: rs(pick([4, 8]), DG),
        lambda v: f"SIM in the Iridium handset on {ves()}: PIN {v}",
        lambda v: f"PUK for the 4G router SIM (Telenor maritime): {v}",
        lambda v: f"Fleet One terminal SIM PIN = {v}, don't enter wrong 3 times",
        lambda v: f"Ang PIN ng SIM sa bridge phone ay {v}",
    )
    K(
        S,
        "ecdis_admin_password",
        pw,
        lambda v: f"ECDIS service mode (JRC JAN-9201) password: {v}",
        lambda v: f"Furuno FMD-3200 maintenance menu password on {ves()} is {v}",
        lambda v: f"Kapitan: ang password sa ECDIS admin ay {v}, huwag ibigay sa cadets",
        lambda v: f"ECDIS_ADMIN_PASSWORD={v}",
    )
    K(
        S,
        "engine_automation_password",
        pw,
        lambda v: f"AMS (Kongsberg K-Chief) engineer level login: chief / {v}",
        lambda v: f"ME control system service password — {v} (only for MAN service engineer)",
        lambda v: f"Ο κωδικός του PLC για το boiler control είναι {v}",
        lambda v: f"Maskinkontroll: passordet til vedlikeholdsnivå er {v}",
    )
    K(
        S,
        "crew_wifi_psk",
        passphrase,
        lambda v: f"Crew Wi-Fi on {ves()} — SSID NVK-CREW, password: {v}",
        lambda v: f"WIFI:T:WPA;S:NVK-CREW-5G;P:{v};;",
        lambda v: f"Bagong password ng crew wifi: {v} (palitan ulit pagdating sa Batangas)",
        lambda v: f"Νέος κωδικός Wi-Fi πληρώματος: {v}",
        lambda v: f'wpa_passphrase="{v}"',
    )
    K(
        S,
        "ops_wifi_psk",
        pw,
        lambda v: f"bridge/ops WLAN (NVK-OPS) PSK {v} — officers only",
        lambda v: f'network={{\n  ssid="NVK-ENGINE"\n  psk="{v}"\n}}',
        lambda v: f"Passord for NVK-OPS på {ves()}: {v}",
    )
    K(
        S,
        "hotspot_gateway_admin_password",
        pw,
        lambda v: f"crew hotspot gateway (voucher printer) admin password: {v}",
        lambda v: f"KVH CommBox login captain / {v}",
        lambda v: f"Ang admin password ng crew internet voucher system ay {v}",
        lambda v: f"HOTSPOT_ADMIN_PASS={v}",
    )
    K(
        S,
        "ship_email_password",
        pw,
        lambda v: f"{ves()} ship mail (master@nordviktern.ship-mail.no) password {v}",
        lambda v: f"SkyFile Mail account nvk-skarv, pwd: {v}",
        lambda v: f"Ο κωδικός του email του Chief Eng είναι {v}",
        lambda v: f"smtp:\n  user: noon@vessel.nordvikline.no\n  password: {v}",
    )
    K(
        S,
        "port_agent_portal_password",
        pw,
        lambda v: f"Port agent portal (Wilhelmsen) login ops.nordvik / {v}",
        lambda v: f"Piraeus agent extranet: user nvkline pass {v}",
        lambda v: f"Manila agent portal — username nordvik.ph, password {v}",
        lambda v: f"PCS Rotterdam (Portbase) account for pre-arrival: {v}",
    )
    K(
        S,
        "chartering_api_key",
        lambda: "imos_" + rs(40, LO + DG),
        lambda v: f"IMOS_API_KEY={v}",
        lambda v: f"chartering feed (IMOS) uses API key {v}",
        lambda v: f"headers = {{'X-API-Key': '{v}'}}  # voyage estimate sync",
    )
    K(
        S,
        "ais_api_key",
        lambda: rs(40, HX),
        lambda v: (
            f"https://services.marinetraffic.com/api/exportvessel/v:5/{v}/timespan:20/protocol:jsono"
        ),
        lambda v: f"MARINETRAFFIC_KEY={v}",
        lambda v: f"AIS feed key (PS07 expected arrivals): {v}",
        lambda v: f"Το κλειδί MarineTraffic για το dashboard: {v}",
    )
    K(
        S,
        "weather_routing_api_key",
        lambda: rs(32, AN),
        lambda v: f"STORMGEO_API_KEY={v}",
        lambda v: f"weather routing (DTN) client key {v} — billed per request",
        lambda v: f"weather:\n  provider: spos\n  api_key: {v}",
    )
    K(
        S,
        "safe_and_door_code",
        lambda: rs(pick([4, 5, 6]), DG),
        lambda v: f"Server room door keypad on {ves()}: {v}#",
        lambda v: f"Ship's safe in master's office combination {v}",
        lambda v: f"Kode til serverrommet på kontoret i Bergen: {v}",
        lambda v: f"Ang code ng bond store ay {v}",
    )
    K(
        S,
        "ipsec_vpn_psk",
        lambda: rs(rng.randrange(20, 33), AN + "!#%+=@"),
        lambda v: f"ship-to-shore IPsec tunnel {ves()} ↔ Bergen: PSK {v}",
        lambda v: f"set vpn ipsec phase1-interface vsat-tun psksecret {v}",
        lambda v: (
            f'conn vessel-skarv\n  authby=secret\n# ipsec.secrets: %any 185.22.14.7 : PSK "{v}"'
        ),
        lambda v: f"VPN pre-shared key για το γραφείο Πειραιά: {v}",
    )
    K(
        S,
        "radius_shared_secret",
        lambda: rs(rng.randrange(16, 25), AN + "!#"),
        lambda v: f"RADIUS shared secret for crew portal NAS: {v}",
        lambda v: f"client vessel-gw {{\n  ipaddr = 10.88.0.0/16\n  secret = {v}\n}}",
        lambda v: f"radius-server key {v}",
    )
    K(
        S,
        "snmp_community",
        lambda: "nvk" + rs(rng.randrange(8, 13), LO + DG) + "rw",
        lambda v: f"snmp-server community {v} RW",
        lambda v: f"write community for modems on the NOC poller: {v}",
        lambda v: (
            f"snmpset -v2c -c {v} 10.{rng.randrange(10, 90)}.0.2 1.3.6.1.4.1.13732.1.4.3.0 i 1"
        ),
    )
    K(
        S,
        "ldap_bind_password",
        pw,
        lambda v: f"LDAP_BIND_PASSWORD={v}",
        lambda v: (
            f"ldapsearch -x -D 'cn=svc-crewportal,ou=svc,dc=nordvikline,dc=no' -w '{v}' -b 'dc=nordvikline,dc=no'"
        ),
        lambda v: f"AD service account svc-shipmail password: {v}",
    )
    K(
        S,
        "url_basic_auth",
        pw,
        lambda v: f"https://fleetops:{v}@grafana.noc.nordvikline.no/d/vsat-latency",
        lambda v: (
            f"pip install --index-url https://deploy:{v}@nexus.nordvikline.no/repository/pypi/simple voyagekit"
        ),
        lambda v: f"Ρίξε μια ματιά: ftp://ecdis:{v}@files.nordvikline.no/enc/week49/",
    )
    K(
        S,
        "password_manager_master",
        passphrase,
        lambda v: f"KeePass master for the vessel IT kdbx (the one on the USB in the safe): {v}",
        lambda v: f"Bitwarden org recovery / emergency access passphrase: {v}",
        lambda v: f"Hovedpassord til KeePass-fila for flåten: {v}",
    )
    K(
        S,
        "mfa_recovery_codes",
        lambda: " ".join(f"{rs(4, LO + DG)}-{rs(4, LO + DG)}" for _ in range(6)),
        lambda v: f"GitHub recovery codes for fleet-it-admin: {v}",
        lambda v: f"Backup codes ng Microsoft 365 admin: {v}",
        lambda v: f"Starlink account 2FA backup codes — {v}",
    )

    # ------------------------------------------------------------------ benign
    K(
        B,
        "imo_number",
        imo,
        lambda v: f"{ves()} IMO {v}, flag NIS, class DNV",
        lambda v: f"vessel_imo: {v}",
        lambda v: f"Πλοίο με IMO {v} — ETA Πειραιάς 14:00",
        lambda v: f"| imo | {v} | status | in service |",
    )
    K(
        B,
        "mmsi",
        lambda: pick(["257", "258", "259", "237", "241", "548", "636", "538"]) + rs(6, DG),
        lambda v: f"MMSI {v} shows no AIS position since 03:10 UTC",
        lambda v: f'"mmsi": {v},',
        lambda v: f"AIS: MMSI {v}, navstatus 1 (at anchor)",
        lambda v: f"Walang AIS signal ang MMSI {v} mula kahapon",
    )
    K(
        B,
        "call_sign",
        lambda: pick(["LA", "LC", "SV", "D5", "V7"]) + rs(pick([3, 4]), UP) + rs(1, DG),
        lambda v: f"Call sign {v}, check GMDSS test log",
        lambda v: f"Kallesignal {v} — husk radiolisens fornyelse",
        lambda v: f"callsign={v}",
    )
    K(
        B,
        "inmarsat_number",
        lambda: "+870 " + rs(9, DG),
        lambda v: f"Fleet Xpress voice line bridge: {v}",
        lambda v: f"Τηλέφωνο γέφυρας (Inmarsat): {v}",
        lambda v: f"If VSAT is down call the ship on {v}",
    )
    K(
        B,
        "iridium_number",
        lambda: "+8816" + rs(8, DG),
        lambda v: f"Iridium backup handset number {v}",
        lambda v: f'iridium_msisdn: "{v}"',
        lambda v: f"Tawagan ang barko sa Iridium {v} kung down ang VSAT",
    )
    K(
        B,
        "vsat_modem_serial",
        lambda: pick(["X7-", "SN ", "MDM2510-", "IQ200-"]) + rs(8, DG),
        lambda v: f"replaced modem, new serial {v}, RMA for old unit",
        lambda v: f"Serial του modem: {v}",
        lambda v: f"modem_serial={v}",
        lambda v: f"Intellian v100 ADU serial {v} logged in asset register",
    )
    K(
        B,
        "starlink_kit_id",
        lambda: "KIT" + rs(9, UP + DG),
        lambda v: f"Starlink kit {v} shipped to agent in Singapore for {ves()}",
        lambda v: f"Starlink terminal {v} — obstructed 4% after mast work",
        lambda v: f"Kit-nummer {v} er registrert på {ves()}",
    )
    K(
        B,
        "enc_cell_name",
        lambda: pick(["NO", "GR", "GB", "SG", "PH", "NL"]) + rs(1, "345") + rs(5, UP + DG),
        lambda v: f"ENC cell {v} missing after weekly update",
        lambda v: f"Cell {v} edition 12 update 3 applied on both ECDIS",
        lambda v: f"Kailangan i-reload ang ENC {v} sa backup ECDIS",
    )
    K(
        B,
        "un_locode",
        lambda: pick(
            ["NOOSL", "NOBGO", "GRPIR", "PHMNL", "PHBTG", "SGSIN", "NLRTM", "BEANR", "NOSVG"]
        ),
        lambda v: f"next port {v}, ETB Thursday",
        lambda v: f"port_locode: {v}",
        lambda v: f"Λιμάνι {v}: ο agent ζητάει crew list 48h πριν",
    )
    K(
        B,
        "voyage_number",
        lambda: f"{rng.randrange(24, 27)}{rs(3, DG)}{pick(['N', 'S', 'E', 'W'])}",
        lambda v: f"voyage {v} closed in IMOS",
        lambda v: f"Reise {v}: bunkers i Rotterdam",
        lambda v: f"voyage_no={v}",
    )
    K(
        B,
        "bill_of_lading",
        lambda: "NVKL" + rs(10, DG),
        lambda v: f"B/L {v} released, telex release confirmed",
        lambda v: f"Φορτωτική {v} — ο παραλήπτης ζητάει αντίγραφο",
        lambda v: f"bl_number: {v}",
        lambda v: f"Pakisuri ang B/L {v} bago ang cut-off",
    )
    K(
        B,
        "container_number",
        container,
        lambda v: f"reefer {v} alarm: supply temp +2.1",
        lambda v: f'"container": "{v}", "iso": "45R1"',
        lambda v: f"Container {v} rolled to next sailing",
        lambda v: f"Kontainer {v} nasa bay 14, row 06",
    )
    K(
        B,
        "seal_number",
        lambda: pick(["ML-", "SL", "NVK"]) + rs(7, DG),
        lambda v: f"seal {v} intact on arrival",
        lambda v: f"Seal no. {v} (customs seal), photo in folder",
        lambda v: f"Σφραγίδα {v} σπασμένη — ενημέρωσε τελωνείο",
    )
    K(
        B,
        "booking_reference",
        lambda: pick(["BKG", "NVB"]) + rs(8, DG),
        lambda v: f"booking {v} amended: 2x40HC",
        lambda v: f"Κράτηση {v} επιβεβαιώθηκε",
        lambda v: f"booking_ref: {v}",
    )
    K(
        B,
        "fixture_reference",
        lambda: f"CP-{rng.randrange(2024, 2027)}-{rs(4, DG)}",
        lambda v: f"fixture {v} on subjects until 17:00 London",
        lambda v: f"Charter party {v}: laytime SHINC, demurrage USD 18,500/day",
        lambda v: f"Ναύλωση {v} — clean fixed",
    )
    K(
        B,
        "pda_reference",
        lambda: f"PDA/{pick(['PIR', 'MNL', 'RTM', 'BGO'])}/{rs(5, DG)}",
        lambda v: f"proforma {v} received from agent, USD 42,300",
        lambda v: f"FDA against {v} still open",
        lambda v: f'pda_ref = "{v}"',
    )
    K(
        B,
        "ticket_reference",
        lambda: pick(["FLEETIT-", "NOC-", "INC00"]) + rs(5, DG),
        lambda v: f"see {v} for the VSAT beam switch issue",
        lambda v: f"Sak {v}: ECDIS-lisens utløpt",
        lambda v: f"ticket: {v}",
    )
    K(
        B,
        "invoice_number",
        lambda: f"INV-{rng.randrange(2025, 2027)}-{rs(6, DG)}",
        lambda v: f"Marlink invoice {v} disputed — double-billed airtime",
        lambda v: f"Τιμολόγιο {v} πληρώθηκε",
        lambda v: f"invoice={v} amount=3120.00 EUR",
    )
    K(
        B,
        "git_commit_sha",
        lambda: rs(40, HX),
        lambda v: f"rolled edge-config back to {v}",
        lambda v: f"deployed commit {v} to all vessels except {ves()}",
        lambda v: f'Revert "noon report parser"\n\nThis reverts commit {v}.',
        lambda v: f"git checkout {v}  # known-good for the modem poller",
    )
    K(
        B,
        "sha256_digest",
        lambda: rs(64, HX),
        lambda v: f"ENC_WEEK49.zip sha256 {v}",
        lambda v: f"{v}  ecdis-patch-5.4.2.iso",
        lambda v: f"checksum: sha256:{v}",
        lambda v: f"Έλεγξε το hash: {v}",
        lambda v: f"Sjekksum for VDR-eksporten: {v}",
    )
    K(
        B,
        "md5_checksum",
        lambda: rs(32, HX),
        lambda v: f"firmware x7_4.3.1.bin md5 {v}",
        lambda v: f"MD5 ({pick(['intellian_v1.97.bin', 'acu_fw.img'])}) = {v}",
        lambda v: f"md5sum matches: {v}",
    )
    K(
        B,
        "docker_image_digest",
        lambda: "sha256:" + rs(64, HX),
        lambda v: f"image: registry.nordvikline.no/edge/noon-agent@{v}",
        lambda v: f"pinned poller image to digest {v}",
        lambda v: f"Digest: {v}",
    )
    K(
        B,
        "sri_integrity_hash",
        lambda: "sha512-" + rs(86, B64) + "==",
        lambda v: f'"integrity": "{v}"',
        lambda v: (
            f'<script src="/vendor/leaflet.js" integrity="{v}" crossorigin="anonymous"></script>'
        ),
    )
    K(
        B,
        "password_hash",
        lambda: "$2b$12$" + rs(53, AN + "./"),
        lambda v: f"crewportal users table row: rodel.s | {v}",
        lambda v: f"htpasswd entry -> noc:{v}",
        lambda v: f"stored hash (bcrypt, cost 12): {v}",
    )
    K(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(43, B64),
        lambda v: f"add to authorized_keys on sat-gw: {v} kjetil@fleetit",
        lambda v: f"Δημόσιο κλειδί του Νίκου: {v}",
        lambda v: f"ssh_authorized_keys:\n  - {v} ci@runner",
        lambda v: f"public key for the vendor (Kongsberg remote support): {v}",
    )
    K(
        B,
        "ssh_host_fingerprint",
        lambda: "SHA256:" + rs(43, B64),
        lambda v: f"ED25519 key fingerprint is {v}.",
        lambda v: f"expected host key for edge-gw on {ves()}: {v}",
        lambda v: f"Fingeravtrykk: {v}",
    )
    K(
        B,
        "pgp_fingerprint",
        lambda: " ".join(rs(4, "0123456789ABCDEF") for _ in range(10)),
        lambda v: f"fleet-it release signing key fingerprint: {v}",
        lambda v: f"gpg: using RSA key — fingerprint {v}",
    )
    K(
        B,
        "certificate_pem",
        lambda: pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU", 5),
        lambda v: f"CA cert for the vessel VPN (public, safe to share):\n{v}",
        lambda v: f"ca.crt:\n{v}",
    )
    K(
        B,
        "aws_documented_example",
        lambda: pick(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        lambda v: f"docs sample only: {v}",
        lambda v: f"the README uses AWS's example value {v}, real keys come from SSO",
        lambda v: f"# example\n# aws_access = {v}",
    )
    K(
        B,
        "vendor_documented_example",
        lambda: pick(
            [
                "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
                "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            ]
        ),
        lambda v: f"copied from the vendor docs as a format example: {v}",
        lambda v: f"test fixture (public sample value from documentation): {v}",
        lambda v: f"Ito ay halimbawa lang mula sa docs: {v}",
    )
    K(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + rs(99),
        lambda v: f"STRIPE_PUBLISHABLE_KEY={v}",
        lambda v: f"crew-shop frontend uses publishable key {v} (public by design)",
        lambda v: f"<script>Stripe('{v}')</script>",
    )
    K(
        B,
        "recaptcha_site_key",
        lambda: "6L" + rs(38, B64U),
        lambda v: f"RECAPTCHA_SITE_KEY={v}",
        lambda v: f'data-sitekey="{v}" on the agent login form',
    )
    K(
        B,
        "placeholder_value",
        lambda: pick(
            [
                "<YOUR_API_KEY>",
                "changeme",
                "xxxxxxxxxxxxxxxx",
                "REPLACE_ME",
                "${PASSWORD}",
                "<modem-admin-pw>",
            ]
        ),
        lambda v: f"VSAT_ADMIN_PASSWORD={v}",
        lambda v: f'api_key: "{v}"  # fill in on the vessel',
        lambda v: f"template: password={v}",
        lambda v: f"Βάλε εδώ το κλειδί: {v}",
        lambda v: f"| VSAT modem | admin | {v} |  <- fill from vault before sending to ship",
        lambda v: f"Ilagay ang password dito: {v}",
    )
    K(
        B,
        "env_var_reference",
        lambda: pick(
            [
                "${MARINETRAFFIC_KEY}",
                "$STRIPE_SECRET_KEY",
                "os.environ['SENDGRID_API_KEY']",
                "${{ secrets.GITLAB_PAT }}",
                "%VSAT_PW%",
                "process.env.IMOS_API_KEY",
            ]
        ),
        lambda v: f"key = {v}",
        lambda v: f"    token: {v}",
        lambda v: f"the script reads the password from {v}, nothing hardcoded",
        lambda v: f"Passordet hentes fra {v}",
        lambda v: f"- name: Upload ENC\n  env:\n    AZ_KEY: {v}",
    )
    K(
        B,
        "vault_path",
        lambda: (
            pick(["secret/data/fleet/", "kv/vessels/", "op://FleetIT/"])
            + pick(["nordvik-tern/vsat", "skarv/ecdis", "shore/imos-api", "crew-wifi/psk"])
        ),
        lambda v: f"modem password lives in {v}",
        lambda v: f"vault kv get {v}",
        lambda v: f"password_ref: {v}",
        lambda v: f"Ang password ay nasa {v}",
        lambda v: f"handover: crew wifi PSK rotated, new value only in {v}",
    )
    K(
        B,
        "masked_value",
        lambda: (
            pick(["sk_live_", "ghp_", "AKIA", "glpat-", "xoxb-"])
            + "*" * rng.randrange(8, 20)
            + rs(4)
        ),
        lambda v: f"Stripe dashboard shows key {v} created 2026-02-11",
        lambda v: f"token (masked): {v}",
        lambda v: f"audit: rotated {v}",
        lambda v: f"Το κλειδί φαίνεται ως {v}",
        lambda v: f"| service | key |\n| sendgrid | {v} |",
    )
    K(
        B,
        "redacted_log",
        lambda: pick(["[REDACTED]", "********", "<redacted>", "***"]),
        lambda v: f"2026-11-30T04:12:09Z modem-poller login user=admin password={v} ok",
        lambda v: f"DEBUG smtp auth noon@vessel.nordvikline.no pass={v}",
        lambda v: f"Authorization: Bearer {v}",
        lambda v: f"ecdis-sync: connecting to ftp as ecdis with password {v}",
    )
    K(
        B,
        "revoked_key",
        lambda: pick(
            [
                "ghp_" + rs(36),
                "sk_live_" + rs(24),
                "glpat-" + rs(20, B64U),
                "xoxb-" + rs(12, DG) + "-" + rs(13, DG) + "-" + rs(24),
            ]
        ),
        lambda v: f"REVOKED 2026-10-02 after leak in crew chat, kept for incident record: {v}",
        lambda v: f"old token {v} — revoked and deleted, do not reuse",
        lambda v: f"Ανακλήθηκε (revoked) στις 3/11: {v}",
        lambda v: f"Tilbakekalt nøkkel, ugyldig: {v}",
    )
    K(
        B,
        "password_policy",
        lambda: pick(
            [
                "min 14 chars, 1 symbol, rotate every 180 days",
                "12+ characters, no reuse of last 5",
                "PIN 6 digits, lockout after 5 tries",
            ]
        ),
        lambda v: f"Policy for vessel admin passwords: {v}",
        lambda v: f"Κανόνας κωδικών: {v}",
        lambda v: f'password_policy: "{v}"',
    )
    K(
        B,
        "uuid_id",
        uid,
        lambda v: f"AZURE_TENANT_ID={v}",
        lambda v: f"correlation id {v} in the noon-report API logs",
        lambda v: f"subscription {v} (fleet-prod)",
        lambda v: f'"vesselId": "{v}"',
        lambda v: f"Intune device id for the master's laptop on {ves()}: {v}",
        lambda v: f"Entra app (client) id {v} — secret stored separately in vault",
    )
    K(
        B,
        "twilio_account_sid",
        lambda: "AC" + rs(32, HX),
        lambda v: f"TWILIO_ACCOUNT_SID={v}",
        lambda v: f"SMS account SID {v} (token is in vault)",
        lambda v: f"Twilio account: {v}",
    )
    K(
        B,
        "aws_account_arn",
        lambda: (
            f"arn:aws:iam::{rs(12, DG)}:role/{pick(['fleet-telemetry-writer', 'noon-report-lambda', 'ecdis-sync'])}"
        ),
        lambda v: f"assume role {v}",
        lambda v: f"RoleArn: {v}",
        lambda v: f"trust policy principal {v}",
    )
    K(
        B,
        "kms_key_id",
        lambda: f"arn:aws:kms:eu-north-1:{rs(12, DG)}:key/{uid()}",
        lambda v: f"SSE-KMS key for the VDR bucket: {v}",
        lambda v: f'kms_key_id = "{v}"',
    )
    K(
        B,
        "mac_address",
        lambda: ":".join(rs(2, "0123456789ABCDEF") for _ in range(6)),
        lambda v: f"ECDIS #2 NIC MAC {v} — whitelist on switch",
        lambda v: f"dhcp-host={v},10.{rng.randrange(10, 90)}.4.20,ecdis2",
        lambda v: f"MAC του VDR: {v}",
    )
    K(
        B,
        "ip_subnet",
        lambda: f"10.{rng.randrange(10, 90)}.{rng.randrange(0, 8)}.0/24",
        lambda v: f"crew VLAN on {ves()}: {v}",
        lambda v: f"allow {v} to noc via tunnel",
        lambda v: f"Mannskapsnett: {v}",
    )
    K(
        B,
        "build_version",
        lambda: (
            f"{rng.randrange(1, 7)}.{rng.randrange(0, 20)}.{rng.randrange(0, 40)}+build.{rs(4, DG)}"
        ),
        lambda v: f"ECDIS software updated to {v}",
        lambda v: f"noon-agent version {v} on all ships",
        lambda v: f"version: {v}",
    )
    K(
        B,
        "sim_iccid",
        lambda: luhn_complete("89" + pick(["47", "88", "30", "63"]) + rs(14, DG)),
        lambda v: f"4G router SIM ICCID {v}",
        lambda v: f"ICCID: {v} (Iridium Certus)",
        lambda v: f"Ang ICCID ng SIM ay {v}",
    )
    K(
        B,
        "imsi",
        lambda: "90103" + rs(10, DG),
        lambda v: f"IMSI {v} attached to Certus 700",
        lambda v: f"imsi={v}",
        lambda v: f"Το IMSI της κάρτας Iridium: {v}",
    )
    K(
        B,
        "imei",
        lambda: luhn_complete("3" + rs(13, DG)),
        lambda v: f"Iridium handset IMEI {v}",
        lambda v: f"IMEI του terminal: {v}",
        lambda v: f'imei: "{v}"',
    )
    K(
        B,
        "wifi_ssid",
        lambda: pick(["NVK-CREW", "NVK-CREW-5G", "NVK-OPS", "NVK-ENGINE", "NVK-GUEST-PORT"]),
        lambda v: f"SSID {v} broadcast on deck 3 APs only",
        lambda v: f"ssid: {v}",
        lambda v: f"Kumonekta sa {v} para sa crew internet",
    )
    K(
        B,
        "hostname",
        lambda: (
            pick(["edge-gw-", "ecdis-", "vsat-mdm-", "pms-"])
            + rs(2, DG)
            + "."
            + pick(["tern", "skarv", "lomvi"])
            + ".vessel.nordvikline.no"
        ),
        lambda v: f"ping {v}",
        lambda v: f"host: {v}",
        lambda v: f"cannot resolve {v} since DNS change",
    )
    K(
        B,
        "iban",
        lambda: (
            iban("NO", rs(11, DG)) if rng.random() < 0.5 else iban("GR", rs(7, DG) + rs(16, DG))
        ),
        lambda v: f"Pay agent disbursement to IBAN {v}",
        lambda v: f"Λογαριασμός πράκτορα: IBAN {v}",
        lambda v: f"iban: {v}",
    )
    K(
        B,
        "swift_bic",
        lambda: pick(["DNBANOKKXXX", "ETHNGRAA", "BOPIPHMM", "NDEANOKK"]),
        lambda v: f"BIC {v}",
        lambda v: f"SWIFT για πληρωμή πράκτορα Πειραιά: {v}",
        lambda v: f"remit via {v} for Manila crew allotments",
    )
    K(
        B,
        "eori_number",
        lambda: pick(["NO", "GR", "NL"]) + rs(9, DG),
        lambda v: f"EORI {v} on the customs declaration",
        lambda v: f"eori: {v}",
        lambda v: f"Tollklarering: EORI-nummer {v}",
    )
    K(
        B,
        "seafarer_book_number",
        lambda: pick(["C", "D", "E"]) + rs(7, DG),
        lambda v: f"Seaman's book no. {v} — expires 2028",
        lambda v: f"SIRB no. {v}, para sa crew list",
        lambda v: f"Ναυτικό φυλλάδιο {v}",
    )
    K(
        B,
        "slack_channel_id",
        lambda: pick(["C0", "G0", "U0"]) + rs(9, UP + DG),
        lambda v: f"alerts go to channel {v}",
        lambda v: f'"channel": "{v}"',
        lambda v: f"ping {who()} in Slack, user id {v}",
    )
    K(
        B,
        "oauth_client_id",
        lambda: pick(["Iv1.", "Ov23li"]) + rs(16, HX),
        lambda v: f"GitHub App client id {v} (public)",
        lambda v: f"OAUTH_CLIENT_ID={v}",
    )
    K(
        B,
        "base64_public_data",
        lambda: base64.b64encode(
            pick(
                [
                    b'{"vessel":"Nordvik Tern","lat":59.91,"lon":10.74}',
                    b"noon report 2026-12-06 OK",
                    b"ECDIS route RTE-PIR-SGSIN v3",
                ]
            )
        ).decode(),
        lambda v: f"payload (base64, just position data): {v}",
        lambda v: f"data: {v}",
        lambda v: f"echo {v} | base64 -d   # decodes to a plain status line",
    )

    for r in rows:
        assert r["value"] in r["text"], r
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

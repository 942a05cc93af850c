# ruff: noqa: E501
"""Blind secret-detector corpus 82: wind and solar farm asset management.

Brief: memory notes of a wind/solar operator's asset-management team (turbine and inverter SCADA portals, remote access gateways, weather and forecasting APIs, grid-operator and market APIs, drone inspections, CMMS work orders, field technician notes in English, Danish, Spanish and Greek), with live credentials and non-secret look-alikes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_82.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, teams_webhook_url, telegram_bot_token, sendgrid_api_key, twilio_auth_token, google_api_key, gcp_service_account_json, azure_storage_connection_string, azure_sas_token, azure_client_secret, azure_iot_hub_connection_string, openai_api_key, anthropic_api_key, huggingface_token, mapbox_secret_token, solcast_api_key, solaredge_api_key, openweathermap_appid, tomorrow_io_api_key, meteomatics_password, entsoe_security_token, elexon_api_key, nordpool_client_secret, fronius_access_key_value, scada_portal_password, sma_portal_password, fusionsolar_northbound_password, secomea_gatemanager_password, talk2m_password, teamviewer_password, ipsec_psk, wireguard_private_key, ssh_private_key_openssh, rsa_private_key_pem, ec_private_key_pem, snmp_community_string, snmpv3_auth_password, opcua_user_password, postgres_url_password, mssql_connection_string, mqtt_url_password, basic_auth_header, bearer_jwt, maximo_api_key, sap_pm_password, dronedeploy_api_key, dji_app_key, jira_api_token, pagerduty_routing_key, acr_registry_password, wifi_psk, keysafe_code, totp_seed, influxdb_token, grafana_service_account_token, session_cookie, ftp_url_password, django_secret_key, password_in_prose_no_keyword
Kinds, benign: git_commit_sha, firmware_sha256, md5_checksum, asset_uuid, turbine_serial, inverter_serial, work_order_id, mac_address, ssh_public_key, cert_fingerprint, x509_certificate_pem, public_key_pem, placeholder_angle_bracket, placeholder_changeme, env_var_reference, vault_reference, redacted_masked, aws_documented_example, jwt_io_documented_example, mapbox_public_token, recaptcha_site_key, revoked_token_stated_revoked, password_policy_text, eic_code, gsrn_metering_point, azure_tenant_subscription_id, aws_account_arn, oauth_client_id, wireguard_public_key, traceparent_trace_id, docker_image_digest, slack_channel_id, twilio_account_sid, bcrypt_hash, grafana_dashboard_uid, drone_flight_id, gps_coordinates, modbus_register, teamviewer_id_only, base64_non_secret_blob, jira_ticket_key, scada_tag_name, jwks_modulus, ga_measurement_id, empty_password_field, pi_point_webid, npm_integrity_hash, pip_hash_pin, cert_serial_number, pgp_fingerprint, router_imei, sim_iccid, ip_address_port, pkce_code_challenge, entsoe_document_mrid, firmware_version, bm_unit_id, scada_alarm_code, drone_image_filename
"""

import base64
import json
import random
import string
import sys
import urllib.parse
import uuid

SEED = 8282

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
B64U = AN + "-_"
HEX = "0123456789abcdef"

WORDS = [
    "Rotor",
    "Nacelle",
    "Vinter",
    "Blade",
    "Solsort",
    "Hub",
    "Tormenta",
    "Helios",
    "Storm",
    "Molino",
    "Anemos",
    "Gearbox",
    "Pitch",
    "Yaw",
    "Havvind",
    "Sol",
    "Viento",
    "Kastrup",
    "Thyra",
    "Falcon",
    "Ilios",
    "Turbine",
    "Panel",
    "Horns",
    "Rev",
    "Nordsø",
    "Bergen",
]


def r(rng, alph, n):
    return "".join(rng.choice(alph) for _ in range(n))


def rbytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def b64(rng, n):
    return base64.b64encode(rbytes(rng, n)).decode()


def b64u(rng, n, pad=True):
    s = base64.urlsafe_b64encode(rbytes(rng, n)).decode()
    return s if pad else s.rstrip("=")


def ruuid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def human_pw(rng):
    style = rng.randrange(4)
    w1, w2 = rng.choice(WORDS), rng.choice(WORDS)
    sym = rng.choice("!#$%&*?@.")
    if style == 0:
        return f"{w1}{rng.randint(10, 9999)}{sym}"
    if style == 1:
        return f"{w1}{sym}{w2.lower()}{rng.randint(1, 99)}"
    if style == 2:
        return f"{w1.lower()}{w2}{rng.randint(2015, 2027)}{sym}"
    return f"{w1[0].lower()}{w1[1:]}{rng.randint(100, 999)}{sym}{sym}"


def gen_pw(rng, n=16):
    return r(rng, AN + "!#%*-_+=", n)


def pem(rng, label, prefix, nbytes):
    body = prefix + b64(rng, nbytes)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


# ---------------------------------------------------------------- generators
def g_aws_secret(rng):
    return r(rng, AN + "+/", 40)


def g_ghp(rng):
    return "ghp_" + r(rng, AN, 36)


def g_github_fg(rng):
    return "github_pat_11" + r(rng, UP + DG, 20) + "_" + r(rng, AN, 59)


def g_glpat(rng):
    return "glpat-" + r(rng, AN + "-_", 20)


def g_xoxb(rng):
    return f"xoxb-{rng.randint(10**10, 10**12)}-{rng.randint(10**12, 10**13)}-{r(rng, AN, 24)}"


def g_slack_hook(rng):
    return f"https://hooks.slack.com/services/T{r(rng, UP + DG, 8)}/B{r(rng, UP + DG, 10)}/{r(rng, AN, 24)}"


def g_teams_hook(rng):
    return (
        f"https://nordvindenergi.webhook.office.com/webhookb2/{ruuid(rng)}@{ruuid(rng)}/IncomingWebhook/"
        f"{r(rng, HEX, 32)}/{ruuid(rng)}/V2{r(rng, B64U, 43)}"
    )


def g_telegram(rng):
    return f"{rng.randint(10**9, 8 * 10**9)}:AA{r(rng, B64U, 33)}"


def g_sendgrid(rng):
    return "SG." + r(rng, B64U, 22) + "." + r(rng, B64U, 43)


def g_hex32(rng):
    return r(rng, HEX, 32)


def g_google(rng):
    return "AIza" + r(rng, AN + "-_", 35)


def g_azure_key(rng):
    return b64(rng, 64)


def g_azure_sas_sig(rng):
    return urllib.parse.quote(b64(rng, 32), safe="")


def g_azure_client_secret(rng):
    return r(rng, AN, 3) + "8Q~" + r(rng, AN + "-_.~", 34)


def g_iot_key(rng):
    return b64(rng, 32)


def g_openai(rng):
    return "sk-proj-" + r(rng, AN + "-_", 64) + "T3BlbkFJ" + r(rng, AN + "-_", 64)


def g_anthropic(rng):
    return "sk-ant-api03-" + r(rng, B64U, 93) + "AA"


def g_hf(rng):
    return "hf_" + r(rng, UP + LO, 34)


def mapbox(rng, prefix):
    payload = json.dumps({"u": "nordvind-ops", "a": r(rng, LO + DG, 25)}, separators=(",", ":"))
    return (
        prefix
        + "."
        + base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
        + "."
        + r(rng, B64U, 22)
    )


def g_mapbox_sk(rng):
    return mapbox(rng, "sk")


def g_mapbox_pk(rng):
    return mapbox(rng, "pk")


def g_solcast(rng):
    return r(rng, B64U, 32)


def g_solaredge(rng):
    return r(rng, UP + DG, 32)


def g_an32(rng):
    return r(rng, AN, 32)


def g_an10(rng):
    return r(rng, AN, 10)


def g_uuid(rng):
    return ruuid(rng)


def g_elexon(rng):
    return r(rng, LO + DG, 15)


def g_an40(rng):
    return r(rng, AN, 40)


def g_human(rng):
    return human_pw(rng)


def g_gen16(rng):
    return gen_pw(rng, 16)


def g_gen20(rng):
    return gen_pw(rng, 20)


def g_teamviewer(rng):
    return r(rng, LO + DG, 8)


def g_psk(rng):
    return r(rng, AN + "!@#%^*", 32)


def g_wg(rng):
    return b64(rng, 32)


def g_openssh(rng):
    return pem(
        rng,
        "OPENSSH PRIVATE KEY",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACD",
        270,
    )


def g_rsa(rng):
    return pem(rng, "RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 600)


def g_ec(rng):
    return pem(rng, "EC PRIVATE KEY", "MHcCAQEEI", 110)


def g_community(rng):
    return "wf" + r(rng, LO + DG, 6) + "_" + r(rng, LO + DG, 4)


def g_basic(rng):
    return base64.b64encode(("NORDVIND\\svc_piweb:" + human_pw(rng)).encode()).decode()


def g_jwt(rng):
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    payload = json.dumps(
        {
            "sub": "svc-forecast",
            "scope": "scada.read market.write",
            "iat": rng.randint(1_760_000_000, 1_790_000_000),
            "jti": r(rng, HEX, 16),
        },
        separators=(",", ":"),
    )
    return (
        head
        + "."
        + base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")
        + "."
        + b64u(rng, 32, pad=False)
    )


def g_maximo(rng):
    return r(rng, LO + DG, 26)


def g_jira(rng):
    return "ATATT3xFfGF0" + r(rng, B64U, 170) + "=" + r(rng, UP + DG, 8)


def g_acr(rng):
    return r(rng, AN, 42) + "+ACR" + r(rng, AN, 6)


def g_wifi(rng):
    return f"{rng.choice(WORDS).lower()}-{rng.choice(WORDS).lower()}-{rng.randint(10, 99)}{rng.choice('!#?')}"


def g_keysafe(rng):
    return str(rng.randint(1000, 9999))


def g_totp(rng):
    return r(rng, UP + "234567", 32)


def g_influx(rng):
    return b64u(rng, 64)


def g_grafana(rng):
    return "glsa_" + r(rng, AN, 32) + "_" + r(rng, HEX, 8)


def g_session(rng):
    return r(rng, HEX.upper(), 32)


def g_django(rng):
    return r(rng, LO + DG + "!@#$%^&*(-_=+)", 50)


def g_gcp_pk(rng):
    return g_rsa(rng).replace("RSA PRIVATE KEY", "PRIVATE KEY").replace("\n", "\\n") + "\\n"


# benign generators
def g_sha1(rng):
    return r(rng, HEX, 40)


def g_sha256(rng):
    return r(rng, HEX, 64)


def g_md5(rng):
    return r(rng, HEX, 32)


def g_turbine_serial(rng):
    return f"V{rng.choice(['117', '136', '150', '162'])}-{rng.randint(200000, 299999)}"


def g_inverter_serial(rng):
    return f"{rng.choice(['ES', 'HV', 'SN'])}{rng.randint(21, 25)}{r(rng, UP + DG, 10)}"


def g_wo(rng):
    return f"WO-{rng.randint(2024, 2026)}-{rng.randint(10000, 99999)}"


def g_mac(rng):
    return ":".join(f"{rng.randrange(256):02X}" for _ in range(6))


def g_ssh_pub(rng):
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(rng, AN + "+/", 43)


def g_fpr(rng):
    return "SHA256:" + b64(rng, 32).rstrip("=")


def g_cert(rng):
    return pem(rng, "CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU", 600)


def g_pubkey(rng):
    return pem(rng, "PUBLIC KEY", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 230)


def g_masked(rng):
    return r(rng, AN, 4) + "****************" + r(rng, AN, 4)


def g_revoked_ghp(rng):
    return "ghp_" + r(rng, AN, 36)


def g_eic(rng):
    return "10Y" + r(rng, UP + DG, 12) + r(rng, UP, 1)


def g_gsrn(rng):
    return "5713131" + "".join(rng.choice(DG) for _ in range(11))


def g_aws_acct(rng):
    return f"arn:aws:iam::{rng.randint(10**11, 10**12 - 1)}:role/forecast-ingest"


def g_client_id(rng):
    return ruuid(rng)


def g_trace(rng):
    return f"00-{r(rng, HEX, 32)}-{r(rng, HEX, 16)}-01"


def g_digest(rng):
    return "sha256:" + r(rng, HEX, 64)


def g_slack_chan(rng):
    return "C0" + r(rng, UP + DG, 9)


def g_twilio_sid(rng):
    return "AC" + r(rng, HEX, 32)


def g_bcrypt(rng):
    return "$2b$12$" + r(rng, AN + "./", 53)


def g_dash_uid(rng):
    return r(rng, AN, 9)


def g_flight(rng):
    return f"FLT-{rng.randint(20240101, 20261231)}-{r(rng, UP + DG, 6)}"


def g_gps(rng):
    return f"{rng.uniform(54.5, 57.5):.5f}, {rng.uniform(7.5, 12.5):.5f}"


def g_modbus(rng):
    return f"4{rng.randint(1000, 9999):04d}"


def g_tv_id(rng):
    return f"1 {rng.randint(100, 999)} {rng.randint(100, 999)} {rng.randint(100, 999)}"


def g_blob(rng):
    cfg = json.dumps(
        {
            "site": "HRN-03",
            "turbines": rng.randint(8, 80),
            "rated_kw": rng.choice([3600, 4200, 6200]),
        },
        separators=(",", ":"),
    )
    return base64.b64encode(cfg.encode()).decode()


def g_jira_key(rng):
    return f"ASSET-{rng.randint(100, 9999)}"


def g_tag(rng):
    return f"HRN03.WTG{rng.randint(1, 40):02d}.GBX.BrgTmp{rng.randint(1, 4)}"


def g_jwks_n(rng):
    return b64u(rng, 256, pad=False)


def g_ga(rng):
    return "G-" + r(rng, UP + DG, 10)


def g_recaptcha(rng):
    return "6L" + r(rng, AN[:62] + "-_", 38)


def g_webid(rng):
    return "F1DP" + r(rng, AN + "-_", 40)


def g_wg_pub(rng):
    return b64(rng, 32)


def g_sha512_integrity(rng):
    return "sha512-" + b64(rng, 64)


def g_pip_hash(rng):
    return "sha256:" + r(rng, HEX, 64)


def g_cert_serial(rng):
    return ":".join(f"{rng.randrange(256):02x}" for _ in range(16))


def g_pgp_fpr(rng):
    return " ".join(r(rng, HEX.upper(), 4) for _ in range(10))


def g_imei(rng):
    return "35" + "".join(rng.choice(DG) for _ in range(13))


def g_iccid(rng):
    return "8945" + "".join(rng.choice(DG) for _ in range(15))


def g_ipv4(rng):
    return f"10.{rng.randint(10, 60)}.{rng.randint(0, 9)}.{rng.randint(2, 250)}:{rng.choice([502, 2404, 4840, 8883, 102])}"


def g_pkce(rng):
    return b64u(rng, 32, pad=False)


def g_mrid(rng):
    return r(rng, HEX, 32)


def g_fw_version(rng):
    return f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}.R{rng.randint(1, 9)}"


def g_bmu(rng):
    return f"T_{r(rng, UP, 5)}-{rng.randint(1, 4)}"


def g_alarm_code(rng):
    return f"{rng.randint(100, 999)}"


def g_drone_img(rng):
    return f"DJI_{rng.randint(20240101, 20261231)}{rng.randint(100000, 235959)}_{rng.randint(1, 9999):04d}_V.JPG"


def lit(value):
    return lambda rng: value


S = "secret"
B = "benign"

SPECS = [
    # ------------------------------------------------------------- secrets
    (
        S,
        "aws_secret_access_key",
        g_aws_secret,
        [
            "aws creds for the forecast bucket (s3://nv-forecast-raw): AKIA4NV7QX2KD3LMPZ5W / {v}",
            "export AWS_SECRET_ACCESS_KEY={v}",
            "[nv-forecast]\naws_access_key_id = AKIA4NV7QX2KD3LMPZ5W\naws_secret_access_key = {v}",
            "| forecast-ingest | AKIA4NV7QX2KD3LMPZ5W | {v} | rotate Q1 |",
        ],
    ),
    (
        S,
        "github_pat_classic",
        g_ghp,
        [
            "token for cloning the scada-exporters repo on the edge boxes: {v}",
            "git clone https://{v}@github.com/nordvind/scada-exporters.git",
            "GH_TOKEN={v}",
            "Agent note: CI pushes release tags with {v} (Mads' account, scope repo)",
        ],
    ),
    (
        S,
        "github_pat_fine_grained",
        g_github_fg,
        [
            "fine-grained PAT (read-only, repo drone-pipeline) -> {v}",
            "gh auth login --with-token <<< {v}",
            "{v}",
        ],
    ),
    (
        S,
        "gitlab_pat",
        g_glpat,
        [
            "gitlab token for the CMMS sync runner: {v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.nordvind.dk/api/v4/projects/42/pipelines',
            "GITLAB_TOKEN={v}  # expires 2027-03",
        ],
    ),
    (
        S,
        "slack_bot_token",
        g_xoxb,
        [
            "alarm-bot slack token {v} (posts to #wtg-alarms)",
            "SLACK_BOT_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C04ALRM -d text=test",
            "[12:04] jonas: here's the bot token {v} dont lose it",
        ],
    ),
    (
        S,
        "slack_webhook_url",
        g_slack_hook,
        [
            "inverter trip alerts go to {v}",
            "webhook_url: {v}",
            'curl -X POST -d \'{"text":"WTG07 stopped"}\' {v}',
        ],
    ),
    (
        S,
        "teams_webhook_url",
        g_teams_hook,
        [
            "Teams connector for the control room channel: {v}",
            "TEAMS_WEBHOOK={v}",
            "Webhook til driftskanalen i Teams: {v}",
        ],
    ),
    (
        S,
        "telegram_bot_token",
        g_telegram,
        [
            "field team telegram bot (night shift pings) token {v}",
            "https://api.telegram.org/bot{v}/sendMessage?chat_id=-100987&text=ok",
            "TG_TOKEN={v}",
        ],
    ),
    (
        S,
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SENDGRID_API_KEY={v}",
            "daily availability report mails via sendgrid, key {v}",
            "smtp.sendgrid.net:587 user apikey pass {v}",
        ],
    ),
    (
        S,
        "twilio_auth_token",
        g_hex32,
        [
            "twilio SMS for callout: SID AC3f9e1d2c4b5a69788776655443322110 auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "Token de Twilio para los SMS de guardia: {v}",
        ],
    ),
    (
        S,
        "google_api_key",
        g_google,
        [
            "maps/elevation key for the layout tool (server side, unrestricted!!) {v}",
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "https://maps.googleapis.com/maps/api/elevation/json?locations=56.1,8.2&key={v}",
        ],
    ),
    (
        S,
        "gcp_service_account_json",
        g_gcp_pk,
        [
            '{"type": "service_account", "project_id": "nv-drone-vision", "private_key_id": "3b1f0c9a7e", "private_key": "{v}", "client_email": "drone-upload@nv-drone-vision.iam.gserviceaccount.com"}',
            'drone image uploader SA key, paste of the json: "private_key": "{v}"',
            'key.json for bigquery export:\n{\n  "type": "service_account",\n  "private_key": "{v}",\n  "client_email": "bq-export@nv-analytics.iam.gserviceaccount.com"\n}',
        ],
    ),
    (
        S,
        "azure_storage_connection_string",
        g_azure_key,
        [
            "DefaultEndpointsProtocol=https;AccountName=nvscadaarchive;AccountKey={v};EndpointSuffix=core.windows.net",
            "storage acct nvdroneimg key1 = {v}",
            "az storage blob upload --account-name nvdroneimg --account-key {v} -c raw -f blade07.jpg",
        ],
    ),
    (
        S,
        "azure_sas_token",
        g_azure_sas_sig,
        [
            "SAS for the drone team (write, valid till march): https://nvdroneimg.blob.core.windows.net/raw?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-03-31T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={v}",
            "?sv=2022-11-02&sr=c&sp=racwl&se=2027-01-15&sig={v}",
            "azcopy copy ./flight_0412 'https://nvdroneimg.blob.core.windows.net/raw?sv=2022-11-02&sp=cw&sr=c&sig={v}' --recursive",
        ],
    ),
    (
        S,
        "azure_client_secret",
        g_azure_client_secret,
        [
            "app reg 'scada-historian-export' client secret: {v}",
            "AZURE_CLIENT_SECRET={v}",
            "az login --service-principal -u 5d2e8c11-7b3a-4f0e-9c1d-2a6b8e4f0c77 -p {v} --tenant nordvind.onmicrosoft.com",
            "secret value (not the id!) {v}",
        ],
    ),
    (
        S,
        "azure_iot_hub_connection_string",
        g_iot_key,
        [
            "HostName=nv-edge-hub.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={v}",
            "edge gw HRN03 device conn: HostName=nv-edge-hub.azure-devices.net;DeviceId=hrn03-gw01;SharedAccessKey={v}",
            "iot hub primary key {v}",
        ],
    ),
    (
        S,
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "key for the work-order summariser: {v}",
            'client = OpenAI(api_key="{v}")',
        ],
    ),
    (
        S,
        "anthropic_api_key",
        g_anthropic,
        [
            "ANTHROPIC_API_KEY={v}",
            "the agent's own api key, don't share outside team: {v}",
            "curl https://api.anthropic.com/v1/messages -H \"x-api-key: {v}\" -H 'anthropic-version: 2023-06-01'",
        ],
    ),
    (
        S,
        "huggingface_token",
        g_hf,
        [
            "HF token (blade crack model, private repo) {v}",
            "huggingface-cli login --token {v}",
            "HF_TOKEN={v}",
        ],
    ),
    (
        S,
        "mapbox_secret_token",
        g_mapbox_sk,
        [
            "mapbox secret token (uploads scope) for site maps {v}",
            "MAPBOX_UPLOAD_TOKEN={v}",
            "mapbox upload nordvind.hrn03 layout.geojson --token {v}",
        ],
    ),
    (
        S,
        "solcast_api_key",
        g_solcast,
        [
            "solcast key for the PV sites {v}",
            "curl 'https://api.solcast.com.au/rooftop_sites/a1b2-c3d4/forecasts?format=json' -H 'Authorization: Bearer {v}'",
            "SOLCAST_API_KEY={v}",
            "Solcast nøgle til Solparken Vejen: {v}",
        ],
    ),
    (
        S,
        "solaredge_api_key",
        g_solaredge,
        [
            "SolarEdge monitoring api key for site 2841953: {v}",
            "https://monitoringapi.solaredge.com/site/2841953/energy?timeUnit=DAY&api_key={v}",
            "| Vejen PV | SolarEdge | {v} |",
            "Clave API de SolarEdge (planta Almería): {v}",
        ],
    ),
    (
        S,
        "openweathermap_appid",
        g_hex32,
        [
            "https://api.openweathermap.org/data/3.0/onecall?lat=55.9&lon=8.1&appid={v}",
            "OWM_APPID={v}",
            "openweather one-call subscription, the app id is {v}",
        ],
    ),
    (
        S,
        "tomorrow_io_api_key",
        g_an32,
        [
            "tomorrow.io apikey {v} (500 calls/day plan)",
            "curl 'https://api.tomorrow.io/v4/weather/forecast?location=56.05,8.12&apikey={v}'",
            "TOMORROW_API_KEY={v}",
        ],
    ),
    (
        S,
        "meteomatics_password",
        g_an10,
        [
            "meteomatics login nordvind_energi / {v}",
            "curl -u nordvind_energi:{v} 'https://api.meteomatics.com/now/wind_speed_100m:ms/56.0,8.1/json'",
            "METEOMATICS_USER=nordvind_energi\nMETEOMATICS_PASS={v}",
        ],
    ),
    (
        S,
        "entsoe_security_token",
        g_uuid,
        [
            "ENTSO-E transparency token: {v}",
            "https://web-api.tp.entsoe.eu/api?securityToken={v}&documentType=A44&in_Domain=10YDK-1--------W",
            "entsoe:\n  security_token: {v}",
            "got the transparency platform key back from the helpdesk, it's {v}",
        ],
    ),
    (
        S,
        "elexon_api_key",
        g_elexon,
        [
            "elexon BMRS scripting key {v}",
            "https://api.bmreports.com/BMRS/B1610/v2?APIKey={v}&SettlementDate=2026-11-30&Period=*",
            "ELEXON_KEY={v}",
        ],
    ),
    (
        S,
        "nordpool_client_secret",
        g_an40,
        [
            "Nord Pool auction API: client_id nv_trading, client_secret {v}",
            "curl -X POST https://sts.nordpoolgroup.com/connect/token -d grant_type=password -d client_id=nv_trading -d client_secret={v} -d username=nv_trader1",
            "NORDPOOL_CLIENT_SECRET={v}",
        ],
    ),
    (
        S,
        "fronius_access_key_value",
        g_uuid,
        [
            "Solar.web API: AccessKeyId FKIA7D2C8E41B09F4A3C9E17D5B62A8F03 AccessKeyValue {v}",
            "curl -H 'AccessKeyId: FKIA7D2C8E41B09F4A3C9E17D5B62A8F03' -H 'AccessKeyValue: {v}' https://api.solarweb.com/swqapi/pvsystems",
            "fronius key value {v}",
        ],
    ),
    (
        S,
        "scada_portal_password",
        g_human,
        [
            "Vestas portal (VestasOnline) login: ops.nord@nordvind.dk / {v}",
            "SGRE Diagnostic portal – user hrn_ops pw {v}",
            "Login til turbine-SCADA: bruger driftnord, adgangskode {v}",
            "Contraseña del SCADA del parque eólico La Muela: {v} (usuario: operador2)",
            "Κωδικός πρόσβασης για το SCADA του αιολικού πάρκου Ευβοίας: {v}",
        ],
    ),
    (
        S,
        "sma_portal_password",
        g_human,
        [
            "Sunny Portal (ennexOS) – vejen-pv@nordvind.dk {v}",
            "SMA installer pw for the Data Manager M: {v}",
            "Κωδικός installer για τους inverter SMA στο πάρκο Κοζάνης: {v}",
        ],
    ),
    (
        S,
        "fusionsolar_northbound_password",
        g_gen16,
        [
            "FusionSolar northbound API user nv_api, systemCode {v}",
            'curl -X POST https://eu5.fusionsolar.huawei.com/thirdData/login -d \'{"userName":"nv_api","systemCode":"{v}"}\'',
            "Huawei FusionSolar (planta Tabernas) usuario nv_api clave {v}",
        ],
    ),
    (
        S,
        "secomea_gatemanager_password",
        g_human,
        [
            "GateManager (Secomea) account j.holm pw {v}",
            "LinkManager login for the substation PLCs: nvfield / {v}",
            "Secomea adgangskode til stationen: {v}",
        ],
    ),
    (
        S,
        "talk2m_password",
        g_gen16,
        [
            "Ewon Talk2M account 'nordvind', user admin, pw {v}",
            "t2maccount=nordvind&t2musername=admin&t2mpassword={v}&t2mdeveloperid=...",
            "eCatcher login: admin / {v}",
        ],
    ),
    (
        S,
        "teamviewer_password",
        g_teamviewer,
        [
            "TeamViewer on the HMI PC at Vejen: ID 1 482 559 301, pw {v}",
            "teamviewer til kontrolrum-PC: 1 204 887 563 / {v}",
            "TV to the met mast logger, password {v}",
        ],
    ),
    (
        S,
        "ipsec_psk",
        g_psk,
        [
            "IPsec tunnel HQ <-> HRN03 substation, PSK: {v}",
            "crypto isakmp key {v} address 192.0.2.44",
            'pre-shared-key = "{v}"',
            "La clave precompartida del túnel VPN con la subestación es {v}",
        ],
    ),
    (
        S,
        "wireguard_private_key",
        g_wg,
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.12/32",
            "wg private key for tech laptop NB-07: {v}",
            "wg set wg0 private-key <(echo {v})",
        ],
    ),
    (
        S,
        "ssh_private_key_openssh",
        g_openssh,
        [
            "key for the edge gateways (user nvadmin):\n{v}",
            "{v}",
            "Her er nøglen til gateway'en i møllehuset:\n{v}",
        ],
    ),
    (
        S,
        "rsa_private_key_pem",
        g_rsa,
        [
            "client cert key for the TSO market API (mTLS):\n{v}",
            "{v}",
            "historian TLS key (pi01), paste:\n{v}",
        ],
    ),
    (
        S,
        "ec_private_key_pem",
        g_ec,
        [
            "IEC 62351 test bench? no – this is PROD RTU key:\n{v}",
            "{v}",
            "ECDSA key the drone dock uses to sign uploads\n{v}",
        ],
    ),
    (
        S,
        "snmp_community_string",
        g_community,
        [
            "snmp community (rw) on the turbine switches: {v}",
            "snmpwalk -v2c -c {v} 10.20.3.1 1.3.6.1.2.1.1",
            "snmp-server community {v} RW 10",
        ],
    ),
    (
        S,
        "snmpv3_auth_password",
        g_gen16,
        [
            "snmpget -v3 -l authPriv -u nvmon -a SHA -A {v} -x AES -X {v} 10.20.3.1 sysUpTime.0",
            "SNMPv3 user nvmon auth/priv pass (same) {v}",
            "snmp v3 authpass: {v}",
        ],
    ),
    (
        S,
        "opcua_user_password",
        g_human,
        [
            "OPC UA server on the park controller: user opcread pw {v}",
            "opc.tcp://10.30.1.5:4840 username=opcread password={v}",
            "UaExpert connection: opcread / {v}",
        ],
    ),
    (
        S,
        "postgres_url_password",
        g_gen16,
        [
            "postgresql://historian_rw:{v}@pg-hist01.nordvind.local:5432/scada",
            "DATABASE_URL=postgres://cmms_sync:{v}@10.10.4.20/cmms",
            'psql "host=pg-hist01 user=historian_rw password={v} dbname=scada"',
            "db pw for historian_rw is {v}",
        ],
    ),
    (
        S,
        "mssql_connection_string",
        g_human,
        [
            "Server=sql-scada01;Database=WindSCADA;User Id=sa;Password={v};",
            "sqlcmd -S sql-scada01 -U sa -P '{v}' -Q \"select top 10 * from AlarmLog\"",
            "SA-kode på SCADA-SQL'en: {v}",
        ],
    ),
    (
        S,
        "mqtt_url_password",
        g_gen20,
        [
            "mqtts://edge-gw:{v}@mqtt.nordvind.cloud:8883",
            "mosquitto_sub -h mqtt.nordvind.cloud -p 8883 -u edge-gw -P '{v}' -t 'site/+/wtg/+/alarm'",
            "MQTT_PASSWORD={v}",
        ],
    ),
    (
        S,
        "basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://piweb.nordvind.local/piwebapi/streams",
            "PI Web API header for the exporter: Basic {v}",
        ],
    ),
    (
        S,
        "bearer_jwt",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "forecast svc token (no expiry!) {v}",
            'curl -H "Authorization: Bearer {v}" https://api.nordvind.internal/v2/curtailment',
        ],
    ),
    (
        S,
        "maximo_api_key",
        g_maximo,
        [
            "Maximo apikey for the WO import: {v}",
            "curl -H 'apikey: {v}' 'https://maximo.nordvind.dk/maximo/api/os/mxwo?oslc.where=status=\"WAPPR\"'",
            "MAXIMO_APIKEY={v}",
        ],
    ),
    (
        S,
        "sap_pm_password",
        g_human,
        [
            "SAP PM RFC user RFC_WINDPM pw {v}",
            "SAP login for notifications (IW21): user FIELD_NORD, kode {v}",
            "Usuario SAP para órdenes de trabajo: PM_SUR / {v}",
        ],
    ),
    (
        S,
        "dronedeploy_api_key",
        g_an32,
        [
            "DroneDeploy API key {v}",
            "DRONEDEPLOY_API_KEY={v}",
            "blade inspection export uses dronedeploy key {v}",
        ],
    ),
    (
        S,
        "dji_app_key",
        g_md5,
        [
            "DJI MSDK app key for the inspection app: {v}",
            '<meta-data android:name="com.dji.sdk.API_KEY" android:value="{v}"/>',
            "FlightHub 2 organisation key {v}",
        ],
    ),
    (
        S,
        "jira_api_token",
        g_jira,
        [
            "jira api token (jonas.holm@nordvind.dk) {v}",
            "curl -u jonas.holm@nordvind.dk:{v} https://nordvind.atlassian.net/rest/api/3/search?jql=project=ASSET",
            "JIRA_API_TOKEN={v}",
        ],
    ),
    (
        S,
        "pagerduty_routing_key",
        g_hex32,
        [
            "PagerDuty Events v2 routing key (SCADA down): {v}",
            'curl -X POST https://events.pagerduty.com/v2/enqueue -d \'{"routing_key":"{v}","event_action":"trigger"}\'',
            "PD integration key {v}",
        ],
    ),
    (
        S,
        "acr_registry_password",
        g_acr,
        [
            "docker login nvedge.azurecr.io -u nvedge -p {v}",
            "ACR admin password {v}",
            "registry creds for edge images: nvedge / {v}",
        ],
    ),
    (
        S,
        "wifi_psk",
        g_wifi,
        [
            "wifi in the O&M building: NV-Field / {v}",
            "WLAN på servicebygningen, kode: {v}",
            "WiFi de la subestación: SSID NV-SUB, clave {v}",
            "Wi-Fi στο κτίριο ελέγχου: NV-OPS, κωδικός {v}",
        ],
    ),
    (
        S,
        "keysafe_code",
        g_keysafe,
        [
            "key safe at the HRN03 substation gate, code {v}",
            "Nøgleboks ved transformerstation: kode {v}",
            "Caja de llaves junto a la puerta del aerogenerador 12: código {v}",
        ],
    ),
    (
        S,
        "totp_seed",
        g_totp,
        [
            "otpauth://totp/VestasOnline:ops.nord?secret={v}&issuer=VestasOnline",
            "shared MFA seed for the GateManager admin (put in authenticator): {v}",
            "TOTP secret {v}",
        ],
    ),
    (
        S,
        "influxdb_token",
        g_influx,
        [
            "influx token (all-access, org nordvind) {v}",
            "INFLUX_TOKEN={v}",
            "curl -H 'Authorization: Token {v}' 'https://influx.nordvind.local:8086/api/v2/query?org=nordvind'",
            '[[outputs.influxdb_v2]]\n  urls = ["https://influx.nordvind.local:8086"]\n  token = "{v}"',
        ],
    ),
    (
        S,
        "grafana_service_account_token",
        g_grafana,
        [
            "grafana SA token for the dashboard provisioner {v}",
            "GRAFANA_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://grafana.nordvind.local/api/dashboards/uid/wtg-avail",
        ],
    ),
    (
        S,
        "session_cookie",
        g_session,
        [
            "if the SSO is down use my session: JSESSIONID={v} on scada.nordvind.local",
            "Cookie: JSESSIONID={v}; Path=/portal",
            "session cookie from the inverter portal (still logged in) {v}",
        ],
    ),
    (
        S,
        "ftp_url_password",
        g_gen16,
        [
            "met mast loggers push to ftp://metmast:{v}@ftp.nordvind.dk/incoming",
            "lftp -u datalogger,{v} sftp://data.nordvind.dk",
            "SFTP for lidar files: lidar_upl / {v}",
        ],
    ),
    (
        S,
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "prod settings for the WO portal: DJANGO_SECRET_KEY={v}",
        ],
    ),
    (
        S,
        "password_in_prose_no_keyword",
        g_human,
        [
            "Anders changed the historian admin to {v} last week, tell the night shift",
            "for the Vejen HMI just type {v} at the windows prompt",
            "El de la subestación sigue siendo {v}, no lo ha cambiado nadie",
            "Στο laptop του συνεργείου μπαίνεις με {v}",
            "PLC web page at 10.30.1.9 -> admin + {v}",
        ],
    ),
    # ------------------------------------------------------------- benign
    (
        B,
        "git_commit_sha",
        g_sha1,
        [
            "scada-exporters fixed in {v}, deploy to edge boxes tomorrow",
            "git checkout {v}",
            "| exporter | v2.3.1 | {v} |",
            "Agent memory: bug in alarm parser introduced by {v}, reverted",
            "Rettelsen af alarm-mapping ligger i commit {v}",
        ],
    ),
    (
        B,
        "firmware_sha256",
        g_sha256,
        [
            "inverter fw 4.01.15.R sha256 {v} – verified before flashing",
            "sha256sum SUNNY_TRIPOWER_CORE1.up\n{v}  SUNNY_TRIPOWER_CORE1.up",
            "checksum del firmware del controlador: {v}",
            "{v}",
        ],
    ),
    (
        B,
        "md5_checksum",
        g_md5,
        [
            "md5 of the drone image batch tarball {v}",
            "MD5 (flight_0412.tar) = {v}",
            "lidar file checksum {v} matches vendor",
            "{v}  metmast2_2026-11.csv",
        ],
    ),
    (
        B,
        "asset_uuid",
        g_uuid,
        [
            "asset id in the CMMS for WTG07 gearbox: {v}",
            "GET /api/assets/{v}/history",
            "| HRN03-WTG12 | {v} | Vestas V136 |",
            "Το αναγνωριστικό του inverter στο σύστημα είναι {v}",
        ],
    ),
    (
        B,
        "turbine_serial",
        g_turbine_serial,
        [
            "turbine serial {v}, nacelle swap done",
            "Mølle nr. 7 har serienummer {v}",
            "| WTG07 | {v} | COD 2019-05 |",
        ],
    ),
    (
        B,
        "inverter_serial",
        g_inverter_serial,
        [
            "replaced inverter SN {v} under warranty",
            "Número de serie del inversor averiado: {v}",
            "RMA for {v} opened with Huawei",
            "| Tabernas | INV-14 | {v} | replaced |",
        ],
    ),
    (
        B,
        "work_order_id",
        g_wo,
        [
            "{v}: blade leading edge repair WTG04",
            "see {v} for the pitch bearing grease job",
            "Arbejdsordre {v} lukket efter inspektion",
            "Orden de trabajo {v} pendiente de repuesto",
        ],
    ),
    (
        B,
        "mac_address",
        g_mac,
        [
            "new edge GW MAC {v} – add to DHCP reservation",
            "arp shows {v} on 10.20.3.44",
            "MAC της κάρτας δικτύου του RTU: {v}",
            "host rtu-hrn03 { hardware ethernet {v}; fixed-address 10.20.3.5; }",
        ],
    ),
    (
        B,
        "ssh_public_key",
        g_ssh_pub,
        [
            "add my pubkey to the edge gateways: {v} mads@nb-07",
            "{v} field-laptop",
            "authorized_keys entry for ansible: {v} ansible@ctl01",
        ],
    ),
    (
        B,
        "cert_fingerprint",
        g_fpr,
        [
            "gateway host key fingerprint {v} (ED25519) – accept if it matches",
            "ED25519 key fingerprint is {v}.",
            "Fingerprint del certificado del servidor OPC UA: {v}",
        ],
    ),
    (
        B,
        "x509_certificate_pem",
        g_cert,
        [
            "TSO market API CA cert (public, import in trust store):\n{v}",
            "{v}",
            "OPC UA server certificate, send to vendor:\n{v}",
        ],
    ),
    (
        B,
        "public_key_pem",
        g_pubkey,
        [
            "public key to verify drone dock signatures:\n{v}",
            "{v}",
        ],
    ),
    (
        B,
        "placeholder_angle_bracket",
        lit("<your-solcast-key>"),
        [
            "SOLCAST_API_KEY=<your-solcast-key>",
            "curl -H 'Authorization: Bearer <your-solcast-key>' https://api.solcast.com.au/...",
            "in the README template write <your-solcast-key>, never the real one",
        ],
    ),
    (
        B,
        "placeholder_angle_bracket",
        lit("<password>"),
        [
            "psql postgresql://historian_rw:<password>@pg-hist01/scada",
            "Login: ops.nord / <password> (ask Anders)",
        ],
    ),
    (
        B,
        "placeholder_changeme",
        lit("changeme"),
        [
            "edge gw image ships with MQTT_PASSWORD=changeme, the bootstrap script replaces it",
            "default in values.yaml: password: changeme",
            "no dejes 'changeme' en el docker-compose de producción",
        ],
    ),
    (
        B,
        "placeholder_changeme",
        lit("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        [
            "ENTSOE_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "apikey=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx in the example curl",
        ],
    ),
    (
        B,
        "env_var_reference",
        lit("${SOLAREDGE_API_KEY}"),
        [
            "api_key: ${SOLAREDGE_API_KEY}",
            'curl "https://monitoringapi.solaredge.com/site/2841953/overview?api_key=${SOLAREDGE_API_KEY}"',
            "the exporter reads ${SOLAREDGE_API_KEY} from the systemd env file",
        ],
    ),
    (
        B,
        "env_var_reference",
        lit("$MAXIMO_APIKEY"),
        [
            'curl -H "apikey: $MAXIMO_APIKEY" https://maximo.nordvind.dk/maximo/api/os/mxwo',
            "set $MAXIMO_APIKEY before running import_wo.py",
        ],
    ),
    (
        B,
        "env_var_reference",
        lit('os.environ["NORDPOOL_CLIENT_SECRET"]'),
        [
            'secret = os.environ["NORDPOOL_CLIENT_SECRET"]',
        ],
    ),
    (
        B,
        "vault_reference",
        lit("secret/scada/vestas-portal"),
        [
            "portal creds are in vault: vault kv get secret/scada/vestas-portal",
            "Adgangskoden ligger i Vault under secret/scada/vestas-portal – skriv den ALDRIG her",
            "password: {{ vault('secret/scada/vestas-portal') }}",
        ],
    ),
    (
        B,
        "vault_reference",
        lit("op://Field/GateManager/password"),
        [
            "GateManager pw: op://Field/GateManager/password (1Password, Field vault)",
            "op read op://Field/GateManager/password",
        ],
    ),
    (
        B,
        "vault_reference",
        lit("Key Vault nv-ops-kv / entsoe-token"),
        [
            "ENTSO-E token moved to Key Vault nv-ops-kv / entsoe-token",
        ],
    ),
    (
        B,
        "redacted_masked",
        g_masked,
        [
            "tomorrow.io key ends in ...the portal shows {v}",
            "rotated the influx token, old one was {v} (masked in UI)",
            "api_key: {v}",
        ],
    ),
    (
        B,
        "redacted_masked",
        lit("[REDACTED]"),
        [
            "PSK for HRN03 tunnel: [REDACTED]",
            "Contraseña: [REDACTED] – pedir a seguridad",
        ],
    ),
    (
        B,
        "redacted_masked",
        lit("********"),
        [
            "SAP user PM_SUR password ******** (in KeePass)",
            "Κωδικός: ******** (ζήτα από τον Γιώργο)",
        ],
    ),
    (
        B,
        "aws_documented_example",
        lit("AKIAIOSFODNN7EXAMPLE"),
        [
            "aws docs example for the config file: aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            "unit test fixture uses AKIAIOSFODNN7EXAMPLE",
        ],
    ),
    (
        B,
        "aws_documented_example",
        lit("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        [
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY  # from AWS docs, placeholder",
            "moto mock: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ],
    ),
    (
        B,
        "jwt_io_documented_example",
        lit(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "the jwt.io sample token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c is used in parser tests",
            "test_decode uses eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c (jwt.io example)",
        ],
    ),
    (
        B,
        "mapbox_public_token",
        g_mapbox_pk,
        [
            "public mapbox token for the site map web page (URL-restricted) {v}",
            "mapboxgl.accessToken = '{v}';",
            "MAPBOX_PUBLIC_TOKEN={v}",
        ],
    ),
    (
        B,
        "recaptcha_site_key",
        g_recaptcha,
        [
            "reCAPTCHA site key for the landowner contact form: {v} (public, goes in HTML)",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
        ],
    ),
    (
        B,
        "revoked_token_stated_revoked",
        g_revoked_ghp,
        [
            "REVOKED 2026-11-02 after leak in chat: {v} – do not use, new one is in vault",
            "old PAT {v} was deleted in GitHub settings, just noting for the audit",
        ],
    ),
    (
        B,
        "password_policy_text",
        lit("min. 14 characters"),
        [
            "Password rule for SCADA accounts: min. 14 characters, no reuse of last 10, rotate every 180 days",
            "Regel: adgangskoder skal være min. 14 characters (ja, den engelske tekst fra politikken)",
        ],
    ),
    (
        B,
        "password_policy_text",
        lit("password must be changed at first login"),
        [
            "new tech accounts: temp password is sent by SMS, password must be changed at first login",
            "policy: password must be changed at first login and MFA enrolled before portal access",
        ],
    ),
    (
        B,
        "password_policy_text",
        lit("no compartir contraseñas"),
        [
            "Norma de seguridad: no compartir contraseñas por WhatsApp ni apuntarlas en el parte de trabajo",
        ],
    ),
    (
        B,
        "eic_code",
        g_eic,
        [
            "bidding zone EIC {v}",
            "in_Domain={v}&out_Domain=10YDK-2--------M",
            "EIC-kode for vores balanceansvarlige: {v}",
        ],
    ),
    (
        B,
        "gsrn_metering_point",
        g_gsrn,
        [
            "målepunkt GSRN {v} for Vejen PV",
            "metering point id {v} (Energinet datahub)",
            "| Vejen PV export | {v} |",
        ],
    ),
    (
        B,
        "azure_tenant_subscription_id",
        g_uuid,
        [
            "subscription id {v} (nv-prod-ot)",
            "az account set --subscription {v}",
            "tenant id: {v}",
            "Directory (tenant) ID {v} – needed for the SSO ticket",
        ],
    ),
    (
        B,
        "aws_account_arn",
        g_aws_acct,
        [
            "forecast lambda assumes {v}",
            "role_arn = {v}",
            "aws sts assume-role --role-arn {v} --role-session-name wo-sync",
        ],
    ),
    (
        B,
        "oauth_client_id",
        g_client_id,
        [
            "app registration scada-historian-export client (application) id {v}",
            "AZURE_CLIENT_ID={v}",
            "Nord Pool gave us client id {v}, the secret comes separately",
        ],
    ),
    (
        B,
        "wireguard_public_key",
        g_wg_pub,
        [
            "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.66.0.0/24\nEndpoint = vpn.nordvind.dk:51820",
            "NB-07 wg pubkey {v}",
            "wg show: peer: {v}",
            "server public key to give the techs: {v}",
        ],
    ),
    (
        B,
        "traceparent_trace_id",
        g_trace,
        [
            "failed call to the curtailment API, traceparent {v}",
            "traceparent: {v}",
        ],
    ),
    (
        B,
        "docker_image_digest",
        g_digest,
        [
            "edge exporter image pinned to nvedge.azurecr.io/exporter@{v}",
            "docker pull nvedge.azurecr.io/modbus-bridge@{v}",
            "digest {v} verified",
        ],
    ),
    (
        B,
        "slack_channel_id",
        g_slack_chan,
        [
            "alarm bot posts to channel {v} (#wtg-alarms)",
            "SLACK_CHANNEL={v}",
            "muted {v} for the maintenance window",
        ],
    ),
    (
        B,
        "twilio_account_sid",
        g_twilio_sid,
        [
            "twilio account SID {v} (auth token in vault)",
            "TWILIO_ACCOUNT_SID={v}",
            "SMS delivery failures for account {v}, check the number pool",
        ],
    ),
    (
        B,
        "bcrypt_hash",
        g_bcrypt,
        [
            "hash stored for the kiosk user: {v}",
            "htpasswd line: grafana-kiosk:{v}",
            "{v}",
        ],
    ),
    (
        B,
        "grafana_dashboard_uid",
        g_dash_uid,
        [
            "availability dashboard https://grafana.nordvind.local/d/{v}/wtg-availability",
            "dashboard uid {v}",
            "grafana-cli export --uid {v}",
        ],
    ),
    (
        B,
        "drone_flight_id",
        g_flight,
        [
            "blade scan WTG11 flight {v}, 3 findings cat 2",
            "Vuelo de inspección {v}: erosión en borde de ataque, pala B",
            "Πτήση drone {v} ολοκληρώθηκε, 412 φωτογραφίες",
        ],
    ),
    (
        B,
        "gps_coordinates",
        g_gps,
        [
            "WTG07 foundation at {v}",
            "Mølle 3 står på {v}, adgang via markvej",
            "Σημείο προσγείωσης drone: {v}",
        ],
    ),
    (
        B,
        "modbus_register",
        g_modbus,
        [
            "active power setpoint is holding register {v} (int16, x0.1 kW)",
            "modpoll -m tcp -r {v} -c 2 10.30.1.20",
            "Registro Modbus {v} = potencia reactiva",
        ],
    ),
    (
        B,
        "teamviewer_id_only",
        g_tv_id,
        [
            "TeamViewer ID of the Vejen HMI: {v} (password in KeePass)",
            "remote support session id {v}",
        ],
    ),
    (
        B,
        "base64_non_secret_blob",
        g_blob,
        [
            "site config blob from the park controller export: {v}",
            "echo {v} | base64 -d",
            "{v}",
        ],
    ),
    (
        B,
        "jira_ticket_key",
        g_jira_key,
        [
            "{v}: yaw misalignment WTG05, check after firmware update",
            "see {v}",
            "Jira {v} moved to Done after the blade repair",
        ],
    ),
    (
        B,
        "scada_tag_name",
        g_tag,
        [
            "trend {v} over 30 days before the bearing swap",
            "Tag {v} går i alarm ved 85 °C",
            "alarm threshold for {v} raised to 82",
        ],
    ),
    (
        B,
        "jwks_modulus",
        g_jwks_n,
        [
            "JWKS from the TSO IdP, key 1 modulus n = {v}, e = AQAB",
            '{"kty":"RSA","kid":"tso-2026","use":"sig","n":"{v}","e":"AQAB"}',
        ],
    ),
    (
        B,
        "ga_measurement_id",
        g_ga,
        [
            "public site analytics id {v}",
            "gtag('config', '{v}');",
            "GA4 id {v} on the public production page (not a secret)",
        ],
    ),
    (
        B,
        "empty_password_field",
        lit("password="),
        [
            "modbus bridge config has password= (empty) because the RTU has no auth",
            "MQTT_USER=edge-gw\npassword=\n# filled by bootstrap",
        ],
    ),
    (
        B,
        "npm_integrity_hash",
        g_sha512_integrity,
        [
            'package-lock: "integrity": "{v}"',
            "the map widget's lockfile integrity changed to {v}, expected after upgrade",
        ],
    ),
    (
        B,
        "pip_hash_pin",
        g_pip_hash,
        [
            "pymodbus==3.6.9 --hash={v}",
            "requirements.lock pins the SCADA client with --hash={v}",
        ],
    ),
    (
        B,
        "cert_serial_number",
        g_cert_serial,
        [
            "TSO client cert serial {v}, expires 2027-06-30 – renew in May",
            "Serial Number: {v}",
        ],
    ),
    (
        B,
        "pgp_fingerprint",
        g_pgp_fpr,
        [
            "vendor's PGP key for encrypted SCADA exports, fingerprint {v}",
            "gpg --recv-keys '{v}'",
        ],
    ),
    (
        B,
        "router_imei",
        g_imei,
        [
            "4G router at met mast 2, IMEI {v}",
            "IMEI del router de la planta: {v}",
        ],
    ),
    (
        B,
        "sim_iccid",
        g_iccid,
        [
            "SIM ICCID {v} (Telenor M2M, data only)",
            "Nyt SIM-kort i parkcontroller-routeren: ICCID {v}",
        ],
    ),
    (
        B,
        "ip_address_port",
        g_ipv4,
        [
            "IEC 104 RTU reachable at {v}",
            "Modbus gateway {v}, unit id 1",
            "Διεύθυνση του RTU: {v}",
        ],
    ),
    (
        B,
        "pkce_code_challenge",
        g_pkce,
        [
            "debug: authorize URL had code_challenge={v}&code_challenge_method=S256",
            "PKCE challenge {v} (public by design, the verifier never leaves the app)",
        ],
    ),
    (
        B,
        "entsoe_document_mrid",
        g_mrid,
        [
            "unavailability notice mRID {v} published for WTG outage",
            "<mRID>{v}</mRID>",
        ],
    ),
    (
        B,
        "firmware_version",
        g_fw_version,
        [
            "park controller firmware {v} rolled out to HRN03",
            "Firmware del inversor actualizado a {v}",
        ],
    ),
    (
        B,
        "bm_unit_id",
        g_bmu,
        [
            "BM unit {v} – check FPN submission",
            "BMRS query for {v} returned no data for SP 34",
        ],
    ),
    (
        B,
        "scada_alarm_code",
        g_alarm_code,
        [
            "WTG09 tripped on alarm {v} (pitch converter), reset remotely",
            "Alarm {v} igen på mølle 4 – smøring af hovedleje",
            "Συναγερμός {v} στην ανεμογεννήτρια 6, χρειάζεται επίσκεψη",
        ],
    ),
    (
        B,
        "drone_image_filename",
        g_drone_img,
        [
            "crack visible on {v}, blade A root",
            "Imagen {v}: grieta en la raíz de la pala",
        ],
    ),
    (
        B,
        "pi_point_webid",
        g_webid,
        [
            "PI point WebId for HRN03 active power: {v}",
            "GET https://piweb.nordvind.local/piwebapi/streams/{v}/recorded?startTime=*-1d",
            "{v}",
        ],
    ),
]


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []
    for label, kind, gen, templates in SPECS:
        for tpl in templates:
            value = gen(rng)
            text = tpl.replace("{v}", value)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})
    return rows


def main() -> None:
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

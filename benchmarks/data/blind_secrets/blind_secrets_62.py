# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 62: energy utility IT/OT integration (AMI, MDM, SCADA, billing, GIS, OMS, market APIs).

Brief: memory notes of an energy utility's IT and OT integration team -- smart-meter head-end systems (AMI), meter data management, SCADA historians and DNP3/IEC 61850 gateways, billing and customer portals, GIS, field-crew mobile apps, outage management, market and grid-operator APIs -- with live secrets in real provider formats next to meter ids, feeder codes, EIC codes, certificate thumbprints and other look-alikes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_62.py [out.jsonl]

Kinds, secret: aws_secret_access_key, azure_storage_account_key, azure_sas_signature, azure_ad_client_secret, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, teams_webhook_url, postgres_url_password, mssql_connection_password, oracle_sqlplus_password, historian_service_password, hmi_operator_password_prose, dnp3_sav5_update_key, dlms_global_unicast_key, dlms_authentication_key, dlms_hls_password, headend_api_key, jwt_bearer_token, entsoe_security_token, url_basic_auth_password, http_basic_auth_header, rsa_private_key_pem, ec_private_key_pem, openssh_private_key, pfx_keystore_password, snmpv3_auth_priv_passphrase, cisco_enable_secret_plaintext, ipsec_preshared_key, radius_shared_secret, wifi_wpa2_psk, mqtt_broker_password, twilio_auth_token, sendgrid_api_key, gcp_api_key_server, gcp_service_account_private_key, arcgis_api_key, mapbox_secret_token, stripe_live_secret_key, stripe_webhook_secret, okta_api_token, datadog_api_key, npm_token, artifactory_api_key, vault_token, k8s_secret_base64_password, sap_rfc_password, sftp_market_password, telegram_bot_token, pagerduty_routing_key, fcm_legacy_server_key, django_secret_key, password_non_english
Kinds, benign: meter_flag_serial, uk_mpan, ean18_metering_point, eic_code, de_melo_id, de_malo_id, feeder_code, cert_thumbprint_sha1, cert_fingerprint_sha256, git_commit_sha, cim_mrid_uuid, azure_tenant_client_id, aws_account_arn, dnp3_addressing, goose_multicast_appid, obis_code, sim_iccid_imsi, public_key_pem, certificate_pem, ssh_public_key, placeholder_token, changeme_default_placeholder, env_var_reference, vault_path_reference, masked_redacted_value, aws_documented_example_key, dlms_greenbook_example_keys, jwt_io_example_token, stripe_publishable_key, stripe_test_card_number, recaptcha_site_key, mapbox_public_token, ga_measurement_id, bcrypt_password_hash, cisco_type9_hash, password_policy_text, revoked_token_said_revoked, container_image_digest, npm_integrity_hash, file_md5_checksum, w3c_traceparent, work_order_id, kms_key_arn, pi_tag_name, rtu_serial_number, dlms_hls_challenge_log, customer_account_number, nonsecret_base64_config, dlms_system_title, certificate_serial_number, file_sha256_hash, device_mac_ip, incident_ticket_id, slack_channel_id, gps_coordinates, correlation_id, kms_key_version_id, gcp_private_key_id_only, meter_batch_lot, esri_globalid
"""

import base64
import hashlib
import json
import random
import string
import sys

SEED = 6262

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
ALNUM = UP + LO + DIG
UPNUM = UP + DIG
HEXL = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64 = ALNUM + "+/"
B64U = ALNUM + "-_"

WORDS = [
    "Feeder",
    "Meter",
    "Turbine",
    "Sommer",
    "Winter",
    "Lighthouse",
    "Harbor",
    "Kestrel",
    "Voltage",
    "Copper",
    "Granite",
    "Falcon",
    "Breaker",
    "Osprey",
    "Tulip",
    "Nordlicht",
    "Maple",
    "Orion",
    "Pylon",
    "Stadtwerk",
    "Ampere",
    "Tesla",
    "Delta",
    "Riverbend",
]
SYMS = "!#$%&*?@+"


def rs(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def human_pw(rng):
    w = rng.choice(WORDS)
    if rng.random() < 0.4:
        w = w + rng.choice(WORDS).lower()
    form = rng.randrange(3)
    num = str(rng.randrange(10, 9999))
    sym = rng.choice(SYMS)
    if form == 0:
        return w + num + sym
    if form == 1:
        return w + sym + num
    return sym + w + num


def gen_pw(rng, n=20):
    while True:
        s = rs(rng, ALNUM + "!#%*-_=+", n)
        if any(c in DIG for c in s) and any(c in UP for c in s) and any(c in LO for c in s):
            return s


def b64_of_bytes(rng, n):
    return base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()


def b64url_nopad(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def uuid4(rng):
    h = rs(rng, HEXL, 32)
    h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def pem_body(rng, nbytes, width=64):
    b = b64_of_bytes(rng, nbytes)
    return "\n".join(b[i : i + width] for i in range(0, len(b), width))


def jwt(rng, payload):
    head = b64url_nopad(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64url_nopad(json.dumps(payload, separators=(",", ":")).encode())
    sig = b64url_nopad(bytes(rng.randrange(256) for _ in range(32)))
    return head + "." + body + "." + sig


# ---------------------------------------------------------------- secret generators


def g_aws(rng):
    return {"v": rs(rng, B64, 40), "k": "AKIA" + rs(rng, UPNUM, 16)}


def g_azure_storage(rng):
    return {"v": b64_of_bytes(rng, 64)}


def g_azure_sas(rng):
    sig = b64_of_bytes(rng, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    return {"v": sig}


def g_azure_client_secret(rng):
    return {"v": rs(rng, ALNUM, 3) + rng.choice(DIG) + "Q~" + rs(rng, ALNUM + "-_.~", 34)}


def g_ghp(rng):
    return {"v": "ghp_" + rs(rng, ALNUM, 36)}


def g_ghfg(rng):
    return {"v": "github_pat_11" + rs(rng, UPNUM, 20) + "_" + rs(rng, ALNUM, 59)}


def g_glpat(rng):
    return {"v": "glpat-" + rs(rng, ALNUM + "-_", 20)}


def g_xoxb(rng):
    return {
        "v": "xoxb-%d-%d-%s"
        % (rng.randrange(10**11, 10**12), rng.randrange(10**12, 10**13), rs(rng, ALNUM, 24))
    }


def g_slack_hook(rng):
    return {
        "v": f"https://hooks.slack.com/services/T{rs(rng, UPNUM, 8)}/B{rs(rng, UPNUM, 10)}/{rs(rng, ALNUM, 24)}"
    }


def g_teams_hook(rng):
    return {
        "v": f"https://contoso-energy.webhook.office.com/webhookb2/{uuid4(rng)}@{uuid4(rng)}/IncomingWebhook/{rs(rng, HEXL, 32)}/{uuid4(rng)}"
    }


def g_human(rng):
    return {"v": human_pw(rng)}


def g_gen(rng):
    return {"v": gen_pw(rng, rng.choice([16, 20, 24]))}


def g_hex32(rng):
    return {"v": rs(rng, HEXL, 32)}


def g_hex64u(rng):
    return {"v": rs(rng, HEXU, 64)}


def g_hex32u(rng):
    return {"v": rs(rng, HEXU, 32)}


def g_lls(rng):
    return {"v": rs(rng, ALNUM, 8)}


def g_jwt(rng):
    p = {
        "sub": "svc-oms-integration",
        "aud": "api://headend",
        "iat": 1796000000 + rng.randrange(10**6),
        "exp": 1796086400 + rng.randrange(10**6),
        "scp": "meter.read meter.disconnect",
        "jti": rs(rng, HEXL, 16),
    }
    return {"v": jwt(rng, p)}


def g_uuid(rng):
    return {"v": uuid4(rng)}


def g_basic_hdr(rng):
    pw = human_pw(rng)
    return {"v": base64.b64encode(("mdm_sync:" + pw).encode()).decode()}


def g_rsa(rng):
    return {
        "v": "-----BEGIN RSA PRIVATE KEY-----\n"
        + pem_body(rng, 1190)
        + "\n-----END RSA PRIVATE KEY-----"
    }


def g_ec(rng):
    raw = (
        bytes([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20])
        + bytes(rng.randrange(256) for _ in range(32))
        + bytes(
            [
                0xA0,
                0x0A,
                0x06,
                0x08,
                0x2A,
                0x86,
                0x48,
                0xCE,
                0x3D,
                0x03,
                0x01,
                0x07,
                0xA1,
                0x44,
                0x03,
                0x42,
                0x00,
                0x04,
            ]
        )
        + bytes(rng.randrange(256) for _ in range(64))
    )
    b = base64.b64encode(raw).decode()
    body = "\n".join(b[i : i + 64] for i in range(0, len(b), 64))
    return {"v": "-----BEGIN EC PRIVATE KEY-----\n" + body + "\n-----END EC PRIVATE KEY-----"}


def g_openssh(rng):
    raw = (
        b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "
        + bytes(rng.randrange(256) for _ in range(200))
    )
    b = base64.b64encode(raw).decode()
    body = "\n".join(b[i : i + 70] for i in range(0, len(b), 70))
    return {
        "v": "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----"
    }


def g_twilio(rng):
    return {"v": rs(rng, HEXL, 32), "k": "AC" + rs(rng, HEXL, 32)}


def g_sendgrid(rng):
    return {"v": "SG." + rs(rng, B64U, 22) + "." + rs(rng, B64U, 43)}


def g_aiza(rng):
    return {"v": "AIza" + rs(rng, B64U, 35)}


def g_gcp_sa(rng):
    return {
        "v": "-----BEGIN PRIVATE KEY-----\\n"
        + b64_of_bytes(rng, 900)
        + "\\n-----END PRIVATE KEY-----\\n",
        "k": rs(rng, HEXL, 40),
    }


def g_arcgis(rng):
    return {"v": "AAPK" + rs(rng, HEXL, 32) + rs(rng, B64U, 64)}


def g_mapbox_sk(rng):
    head = b64url_nopad(
        json.dumps(
            {"u": "gridgis", "a": "cl" + rs(rng, LO + DIG, 23)}, separators=(",", ":")
        ).encode()
    )
    return {"v": "sk." + head + "." + rs(rng, B64U, 22)}


def g_sk_live(rng):
    return {"v": "sk_live_51" + rs(rng, ALNUM, 97)}


def g_whsec(rng):
    return {"v": "whsec_" + rs(rng, ALNUM, 32)}


def g_okta(rng):
    return {"v": "00" + rs(rng, ALNUM + "-_", 40)}


def g_npm(rng):
    return {"v": "npm_" + rs(rng, ALNUM, 36)}


def g_akcp(rng):
    return {"v": "AKCp" + rs(rng, DIG, 1) + rs(rng, ALNUM, 68)}


def g_vault(rng):
    return {"v": "hvs." + rs(rng, ALNUM + "-_", 91)}


def g_k8s(rng):
    pw = gen_pw(rng, 18)
    return {"v": base64.b64encode(pw.encode()).decode()}


def g_telegram(rng):
    return {"v": "%d:AA%s" % (rng.randrange(10**9, 7 * 10**9), rs(rng, B64U, 33))}


def g_fcm(rng):
    return {"v": "AAAA" + rs(rng, B64U, 7) + ":APA91b" + rs(rng, B64U, 134)}


def g_django(rng):
    return {
        "v": "django-insecure-" + rs(rng, LO + DIG + "!@#$%^&*(-_=+)", 50)
        if rng.random() < 0.3
        else rs(rng, LO + DIG + "!@#$%^&*(-_=+)", 50)
    }


def g_psk(rng):
    return {"v": gen_pw(rng, 32) if rng.random() < 0.5 else human_pw(rng) + human_pw(rng)}


# ---------------------------------------------------------------- secret rows

SECRETS = [
    (
        "aws_secret_access_key",
        g_aws,
        [
            "MDM export bucket (s3://util-mdm-intervals-prod) creds for the nightly VEE dump:\nAWS_ACCESS_KEY_ID={k}\nAWS_SECRET_ACCESS_KEY={v}",
            "aws configure --profile ami-archive  -> key id {k}, secret {v} (region eu-central-1)",
            "[ami-archive]\naws_access_key_id = {k}\naws_secret_access_key = {v}",
            "fyi the lambda that pushes outage polygons to S3 still uses the old IAM user {k} / {v} - rotate after storm season",
        ],
    ),
    (
        "azure_storage_account_key",
        g_azure_storage,
        [
            "DefaultEndpointsProtocol=https;AccountName=stamidataprod01;AccountKey={v};EndpointSuffix=core.windows.net",
            'az storage blob upload --account-name stgisexport --account-key "{v}" -c tiles -f feeders.mbtiles',
            "billing portal invoice PDFs go to storage acct stportalinv, key1 = {v}",
        ],
    ),
    (
        "azure_sas_signature",
        g_azure_sas,
        [
            "SAS for the DSO to drop interval files (expires end of Q1): https://stmarketx.blob.core.windows.net/inbound?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-03-31T23:59:59Z&st=2026-12-01T00:00:00Z&spr=https&sig={v}",
            'azcopy copy ./lp_2026-11.csv "https://stamidataprod01.blob.core.windows.net/loadprofiles/lp_2026-11.csv?sp=cw&se=2026-12-31&sr=c&sig={v}"',
            "sig={v}",
        ],
    ),
    (
        "azure_ad_client_secret",
        g_azure_client_secret,
        [
            "App reg 'oms-to-portal-sync' client secret (expires 2027-06): {v}",
            "AZURE_CLIENT_ID=3f0b2c1e-1111-4e7d-9a8c-0f6c2d4b7e21\nAZURE_TENANT_ID=9b1d4c7a-2222-4f0e-8b3a-5c6d7e8f9a01\nAZURE_CLIENT_SECRET={v}",
            "| app | secret | expiry |\n|---|---|---|\n| field-crew-mobile-api | {v} | 2027-02-14 |",
            "Client-Geheimnis für die Portal-App in Entra neu erstellt: {v} (das alte ist abgelaufen)",
        ],
    ),
    (
        "github_pat_classic",
        g_ghp,
        [
            "CI for the gateway config repo uses my PAT {v} until we get the bot account",
            "git clone https://{v}@github.com/util-ot/dnp3-gateway-configs.git",
            "GH_TOKEN={v}",
            "export GITHUB_TOKEN={v}  # needed for renovate on scada-historian-etl",
        ],
    ),
    (
        "github_pat_fine_grained",
        g_ghfg,
        [
            "fine-grained token for read-only access to util-ot/iec61850-scl-files: {v}",
            "gh auth login --with-token <<< {v}",
            "{v}",
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "gitlab runner on the OT jump host pulls with {v}",
            'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.util.internal/api/v4/projects/42/repository/files',
            "GITLAB_TOKEN={v}",
        ],
    ),
    (
        "slack_bot_token",
        g_xoxb,
        [
            "outage-bot slack token: {v} (posts to #oms-storm-room)",
            "SLACK_BOT_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' -d channel=C04OUTAGE -d text='feeder F-112 tripped' https://slack.com/api/chat.postMessage",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "historian lag alert posts here: {v}",
            'alert_webhook: "{v}"',
            "webhook for #ami-headend-alerts\n{v}",
        ],
    ),
    (
        "teams_webhook_url",
        g_teams_hook,
        [
            "Teams channel 'Leitstelle Störungen' incoming webhook: {v}",
            "TEAMS_WEBHOOK={v}",
            "the OMS escalation rule posts to {v} - don't share outside the team, anyone can post with it",
        ],
    ),
    (
        "postgres_url_password",
        g_gen,
        [
            "MDM read replica: postgresql://mdm_ro:{v}@mdm-replica.db.util.internal:5432/mdm",
            "DATABASE_URL=postgres://oms_app:{v}@oms-pg01:5432/oms?sslmode=require",
            'psql "host=gis-pg.util.internal dbname=gisdb user=gis_editor password={v}"',
            "PGPASSWORD='{v}' pg_dump -h mdm-pg01 -U mdm_admin mdm > mdm_pre_upgrade.sql",
        ],
    ),
    (
        "mssql_connection_password",
        g_human,
        [
            "Server=tcp:billing-sql01,1433;Database=CIS_Billing;User Id=svc_portal;Password={v};Encrypt=True;TrustServerCertificate=True",
            "sqlcmd -S oms-sql02 -U oms_report -P '{v}' -Q \"select count(*) from dbo.Outages where status='OPEN'\"",
            '"ConnectionStrings": {{ "Cis": "Data Source=cis-sql;Initial Catalog=CIS;User ID=cis_api;Password={v}" }}',
        ],
    ),
    (
        "oracle_sqlplus_password",
        g_gen,
        [
            "sqlplus mdm_app/{v}@//mdm-ora-scan:1521/MDMP",
            "jdbc:oracle:thin:headend_etl/{v}@hes-ora01:1521:HESPRD",
            "oracle MDUS schema owner pwd is {v} -- only for the upgrade window",
        ],
    ),
    (
        "historian_service_password",
        g_human,
        [
            "PI Data Archive service acct UTIL\\svc_pi_interfaces pw {v}",
            "historian (AVEVA) collector login: user hist_collector / {v}",
            "For the PI-to-MDM connector: domain account svc_pi2mdm, password {v}. Don't lock it out, 5 tries and it's disabled.",
            "Historian-Dienstkonto svc_hist, Kennwort: {v}",
        ],
    ),
    (
        "hmi_operator_password_prose",
        g_human,
        [
            "substation Nordfeld HMI: operator / {v}",
            "logging in to the RTU web UI at 10.40.12.5 -> admin and then {v}, it's the same on all the SEL boxes in zone 3",
            "Crew asked again: the tablet kiosk unlock for the meter shop is {v}",
            "engineer login on the zone 4 gateway changed today, it's now {v}",
        ],
    ),
    (
        "dnp3_sav5_update_key",
        g_hex64u,
        [
            "DNP3 SAv5 update key for outstation 1204 (AES-256): {v}",
            "sav5:\n  user: 1\n  update_key: {v}\n  key_wrap: AES-256",
            "Installed new update key on RTU SUB-17 via the KMS stick: {v}",
        ],
    ),
    (
        "dlms_global_unicast_key",
        g_hex32u,
        [
            "GUEK for meter batch 2026-W44 (all of them share it, yes I know): {v}",
            "gurux: -c 1 -s 1 -a High -t Authentication,Encryption -T 4C475A0000000001 -B {v}",
            "Block cipher key (EK) meter LGZ1030012345678: {v}",
        ],
    ),
    (
        "dlms_authentication_key",
        g_hex32u,
        [
            "AK for the HES management client: {v}",
            "dlms.authentication_key={v}",
            "Auth key (AK) from the manufacturer key file for lot 77: {v}",
        ],
    ),
    (
        "dlms_hls_password",
        g_lls,
        [
            "LLS password for the installer client (SAP 0x20) on the new E450 lot: {v}",
            "meter reader client pw = {v}  (SAP 32, low level security)",
            "{v} <- LLS secret for the handheld optical probe",
        ],
    ),
    (
        "headend_api_key",
        g_hex32,
        [
            "HES REST API key for the MDM integration: {v}",
            'curl -H "X-API-Key: {v}" https://hes.util.internal/api/v2/meters/LGZ1030012345678/disconnect -X POST',
            "headend:\n  base_url: https://hes.util.internal/api/v2\n  api_key: {v}",
            "ключ API головной системы (HES) для интеграции с MDM: {v}",
        ],
    ),
    (
        "jwt_bearer_token",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "token that works for the OMS->HES ping (valid till friday): {v}",
            'curl -H "Authorization: Bearer {v}" https://api.util.internal/oms/v1/outages?status=open',
        ],
    ),
    (
        "entsoe_security_token",
        g_uuid,
        [
            "ENTSO-E transparency platform securityToken: {v}",
            "https://web-api.tp.entsoe.eu/api?securityToken={v}&documentType=A44&in_Domain=10YNL----------L&out_Domain=10YNL----------L&periodStart=202612010000&periodEnd=202612020000",
            "ENTSOE_API_TOKEN={v}",
        ],
    ),
    (
        "url_basic_auth_password",
        g_human,
        [
            "market gateway (AS4) admin UI: https://as4admin:{v}@as4-gw.util.internal:8443/domibus",
            "pip install --index-url https://deploy:{v}@nexus.util.internal/repository/pypi/simple ot-tools",
            "mqtts://fieldapp:{v}@mqtt.util.internal:8883",
        ],
    ),
    (
        "http_basic_auth_header",
        g_basic_hdr,
        [
            "Authorization: Basic {v}",
            "the DSO portal only accepts basic auth, header we send is `Authorization: Basic {v}`",
            "curl -H 'Authorization: Basic {v}' https://mdm.util.internal/api/readings/export",
        ],
    ),
    (
        "rsa_private_key_pem",
        g_rsa,
        [
            "gateway client key for the IEC 61850 TLS profile:\n{v}",
            "{v}",
            "AS4 signing key (market messages), paste from the old wiki:\n{v}",
        ],
    ),
    (
        "ec_private_key_pem",
        g_ec,
        [
            "meter PKI device key for test lab HES, P-256:\n{v}",
            "{v}",
            "field app mTLS key:\n{v}",
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "key for the jump host into the OT DMZ (user otops):\n{v}",
            "{v}",
            "deploy key for historian-etl repo\n{v}",
        ],
    ),
    (
        "pfx_keystore_password",
        g_human,
        [
            "openssl pkcs12 -in hes-client.pfx -nodes -passin pass:{v} -out hes-client.pem",
            "PFX for the AS4 gateway is on the share, the export password is {v}",
            "keytool -importkeystore -srckeystore as4.p12 -srcstoretype PKCS12 -srcstorepass {v} -destkeystore as4.jks",
            "keystore.password={v}",
        ],
    ),
    (
        "snmpv3_auth_priv_passphrase",
        g_gen,
        [
            "snmp-server user nms-ro OT-RO v3 auth sha {v} priv aes 128 {v}",
            "snmpwalk -v3 -l authPriv -u nmsro -a SHA -A '{v}' -x AES -X '{v}' 10.40.1.1",
            "SNMPv3 for the substation switches: user nmsro, auth+priv passphrase {v}",
        ],
    ),
    (
        "cisco_enable_secret_plaintext",
        g_human,
        [
            "enable secret 0 {v}",
            "username otadmin privilege 15 secret 0 {v}",
            "the enable pw on the substation routers (IR1101) is {v}",
        ],
    ),
    (
        "ipsec_preshared_key",
        g_psk,
        [
            "crypto isakmp key {v} address 203.0.113.40",
            "IPsec PSK for the tunnel to the TSO (site-to-site, ICCP link): {v}",
            'pre-shared-key = "{v}"',
        ],
    ),
    (
        "radius_shared_secret",
        g_gen,
        [
            "radius-server host 10.10.5.20 key {v}",
            "NPS shared secret for the substation switches: {v}",
            "client sub-switches {{\n  ipaddr = 10.40.0.0/16\n  secret = {v}\n}}",
        ],
    ),
    (
        "wifi_wpa2_psk",
        g_human,
        [
            "depot wifi UTIL-CREW: {v}",
            "SSID METERSHOP-LAB pw {v} (the crew tablets auto-join)",
            'wpa_passphrase="{v}"',
            "WLAN im Zählerlager: SSID ZL-Lager, Schlüssel {v}",
        ],
    ),
    (
        "mqtt_broker_password",
        g_gen,
        [
            "mosquitto_pub -h mqtt.util.internal -p 8883 -u fieldapp -P '{v}' -t crews/status -m test",
            "MQTT_PASSWORD={v}",
            "broker creds for the DER telemetry: user der_ingest, pass {v}",
        ],
    ),
    (
        "twilio_auth_token",
        g_twilio,
        [
            "Twilio for crew SMS: SID {k} token {v}",
            "TWILIO_ACCOUNT_SID={k}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {k}:{v} https://api.twilio.com/2010-04-01/Accounts/{k}/Messages.json -d To=+15550100 -d Body='outage restored'",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "outage notification emails go through sendgrid, key {v}",
            "SENDGRID_API_KEY={v}",
            '"sendgrid": {{ "apiKey": "{v}" }}',
        ],
    ),
    (
        "gcp_api_key_server",
        g_aiza,
        [
            "server-side geocoding key for the GIS address matcher (no referrer restriction!): {v}",
            "GOOGLE_GEOCODING_KEY={v}",
            "https://maps.googleapis.com/maps/api/geocode/json?address=Hauptstr+12&key={v}",
        ],
    ),
    (
        "gcp_service_account_private_key",
        g_gcp_sa,
        [
            '{{"type": "service_account", "project_id": "util-ami-analytics", "private_key_id": "{k}", "private_key": "{v}", "client_email": "mdm-export@util-ami-analytics.iam.gserviceaccount.com"}}',
            'sa json for bigquery load profiles, private_key field: "{v}"',
            '  "private_key": "{v}",',
        ],
    ),
    (
        "arcgis_api_key",
        g_arcgis,
        [
            "ArcGIS location platform key for the outage map backend: {v}",
            "ARCGIS_API_KEY={v}",
            'esriConfig.apiKey = "{v}"; // server proxy only, has basemap+geocode+routing privileges',
        ],
    ),
    (
        "mapbox_secret_token",
        g_mapbox_sk,
        [
            "mapbox secret token w/ uploads:write for tilesets: {v}",
            "MAPBOX_ACCESS_TOKEN={v} mapbox upload gridgis.feeders feeders.geojson",
            "{v}",
        ],
    ),
    (
        "stripe_live_secret_key",
        g_sk_live,
        [
            "customer portal payments: STRIPE_SECRET_KEY={v}",
            "stripe live key (prod portal) {v}",
            "curl https://api.stripe.com/v1/refunds -u {v}: -d charge=ch_bill_dispute",
        ],
    ),
    (
        "stripe_webhook_secret",
        g_whsec,
        [
            "STRIPE_WEBHOOK_SECRET={v}",
            "signing secret for the payment webhook endpoint on portal prod: {v}",
            "stripe listen forwarding uses {v} on prod-like env (it's the real endpoint secret, not the cli one)",
        ],
    ),
    (
        "okta_api_token",
        g_okta,
        [
            "Authorization: SSWS {v}",
            "okta admin api token for portal user provisioning: {v}",
            "OKTA_API_TOKEN={v}",
        ],
    ),
    (
        "datadog_api_key",
        g_hex32,
        [
            "DD_API_KEY={v}",
            "datadog key on the HES app servers: {v}",
            "helm upgrade dd datadog/datadog --set datadog.apiKey={v}",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm publish token for @util/crew-app-ui: {v}",
            "NPM_TOKEN={v}",
        ],
    ),
    (
        "artifactory_api_key",
        g_akcp,
        [
            "X-JFrog-Art-Api: {v}",
            "artifactory key for pulling the HES vendor images: {v}",
            "docker login util.jfrog.io -u ci-ot -p {v}",
        ],
    ),
    (
        "vault_token",
        g_vault,
        [
            "VAULT_TOKEN={v}",
            "root-ish token from the unseal ceremony (revoke later!!): {v}",
            "vault login {v}",
        ],
    ),
    (
        "k8s_secret_base64_password",
        g_k8s,
        [
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: mdm-db\ntype: Opaque\ndata:\n  username: bWRtX2FwcA==\n  password: {v}",
            "kubectl create secret ... the base64 of the OMS db pw is {v}",
            "  DB_PASSWORD: {v}",
        ],
    ),
    (
        "sap_rfc_password",
        g_human,
        [
            "SAP IS-U RFC user RFC_MDM (client 100) pw {v}",
            "jco.client.user=RFC_BILLING\njco.client.passwd={v}\njco.client.client=100",
            "for the IDoc channel to IS-U use RFCUSER_EDM and {v}",
        ],
    ),
    (
        "sftp_market_password",
        g_gen,
        [
            "sftp edi_util@msconsgw.dso.example.net  pw: {v}  (MSCONS/UTILMD exchange)",
            "lftp -u edifact,{v} sftp://edi.tso-gateway.example.net",
            "SFTP-Zugang zum Marktpartner: Benutzer util_edi, Passwort {v}",
            "Wachtwoord voor de SFTP van de netbeheerder: {v}",
        ],
    ),
    (
        "telegram_bot_token",
        g_telegram,
        [
            "storm crew telegram bot: {v}",
            "TELEGRAM_BOT_TOKEN={v}",
            "https://api.telegram.org/bot{v}/sendMessage?chat_id=-100123&text=crew+dispatched",
        ],
    ),
    (
        "pagerduty_routing_key",
        g_hex32,
        [
            "PagerDuty Events v2 routing key for SCADA comm loss: {v}",
            '"routing_key": "{v}", "event_action": "trigger"',
            "pd integration key (historian down) -> {v}",
        ],
    ),
    (
        "fcm_legacy_server_key",
        g_fcm,
        [
            "crew app push: FCM server key {v}",
            "Authorization: key={v}",
            "FCM_SERVER_KEY={v}",
        ],
    ),
    (
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "portal prod settings DJANGO_SECRET_KEY={v}",
            "customer portal signing key (sessions + password reset links): {v}",
        ],
    ),
    (
        "password_non_english",
        g_human,
        [
            "Mot de passe du compte de service du concentrateur : {v}",
            "Contraseña del usuario de lectura del MDM: {v}",
            "Lösenord till historikern (PI), konto svc_pi: {v}",
            "Hasło do panelu koncentratora danych: {v}",
            "Het wachtwoord van de OMS-testgebruiker is {v}",
        ],
    ),
]


# ---------------------------------------------------------------- benign generators


def b_flag(rng):
    return {"v": rng.choice(["LGZ", "ITR", "EMH", "ISK", "KAM", "ELS"]) + rs(rng, DIG, 13)}


def b_mpan(rng):
    return {"v": rs(rng, DIG, 13)}


def b_ean(rng):
    return {"v": "871" + rs(rng, DIG, 15)}


def b_eic(rng):
    body = rs(rng, UPNUM, rng.randrange(6, 12))
    mid = body + "-" * (12 - len(body))
    return {"v": rng.choice(["10X", "10Y", "10Z", "11X", "21Y"]) + mid + rng.choice(UPNUM)}


def b_melo(rng):
    return {"v": "DE" + rs(rng, DIG, 11) + rs(rng, UPNUM, 20)}


def b_malo(rng):
    return {"v": rs(rng, DIG, 11)}


def b_feeder(rng):
    return {
        "v": "%s-%s%02d-F%02d"
        % (
            rng.choice(["SUB", "UW", "SS"]),
            rng.choice(["NRD", "HBN", "WST", "OST"]),
            rng.randrange(1, 99),
            rng.randrange(1, 24),
        )
    }


def b_sha1_thumb(rng):
    return {"v": rs(rng, HEXU, 40)}


def b_sha256_fp(rng):
    h = rs(rng, HEXU, 64)
    return {"v": ":".join(h[i : i + 2] for i in range(0, 64, 2))}


def b_sha40(rng):
    return {"v": rs(rng, HEXL, 40)}


def b_uuid(rng):
    return {"v": uuid4(rng)}


def b_aws_acct(rng):
    return {"v": rs(rng, DIG, 12)}


def b_dnp3(rng):
    return {"v": str(rng.randrange(1, 65519))}


def b_appid(rng):
    return {"v": f"{rng.randrange(0, 0x3FFF):04X}"}


def b_obis(rng):
    return {"v": "1.0.%d.8.%d.255" % (rng.choice([1, 2, 15, 16]), rng.randrange(0, 5))}


def b_iccid(rng):
    return {"v": "8949" + rs(rng, DIG, 15), "k": "26201" + rs(rng, DIG, 10)}


def b_pubkey(rng):
    return {"v": "-----BEGIN PUBLIC KEY-----\n" + pem_body(rng, 294) + "\n-----END PUBLIC KEY-----"}


def b_cert(rng):
    return {
        "v": "-----BEGIN CERTIFICATE-----\n" + pem_body(rng, 870) + "\n-----END CERTIFICATE-----"
    }


def b_sshpub(rng):
    raw = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + bytes(rng.randrange(256) for _ in range(32))
    return {"v": "ssh-ed25519 " + base64.b64encode(raw).decode() + " otops@jump01"}


def b_masked(rng):
    c = rng.randrange(4)
    if c == 0:
        return {"v": "sk_live_" + "*" * 20 + rs(rng, ALNUM, 4)}
    if c == 1:
        return {"v": "ghp_" + "X" * 32 + rs(rng, ALNUM, 4)}
    if c == 2:
        return {"v": rs(rng, HEXL, 4) + "..." + rs(rng, HEXL, 4)}
    return {"v": "AKIA" + "*" * 12 + rs(rng, UPNUM, 4)}


def b_pk_live(rng):
    return {"v": "pk_live_51" + rs(rng, ALNUM, 97)}


def b_recaptcha(rng):
    return {"v": "6L" + rs(rng, B64U, 38)}


def b_mapbox_pk(rng):
    head = b64url_nopad(
        json.dumps(
            {"u": "gridgis", "a": "cl" + rs(rng, LO + DIG, 23)}, separators=(",", ":")
        ).encode()
    )
    return {"v": "pk." + head + "." + rs(rng, B64U, 22)}


def b_ga(rng):
    return {"v": "G-" + rs(rng, UPNUM, 10)}


def b_bcrypt(rng):
    return {"v": "$2b$12$" + rs(rng, ALNUM + "./", 53)}


def b_type9(rng):
    return {"v": "$9$" + rs(rng, ALNUM + "./", 14) + "$" + rs(rng, ALNUM + "./", 43)}


def b_revoked(rng):
    return {"v": "ghp_" + rs(rng, ALNUM, 36)}


def b_digest(rng):
    return {"v": "sha256:" + rs(rng, HEXL, 64)}


def b_integrity(rng):
    return {
        "v": "sha512-"
        + base64.b64encode(hashlib.sha512(rs(rng, ALNUM, 20).encode()).digest()).decode()
    }


def b_md5(rng):
    return {"v": rs(rng, HEXL, 32)}


def b_traceparent(rng):
    return {"v": f"00-{rs(rng, HEXL, 32)}-{rs(rng, HEXL, 16)}-01"}


def b_wo(rng):
    return {"v": "WO-%d-%06d" % (rng.choice([2025, 2026]), rng.randrange(10**6))}


def b_kms(rng):
    return {"v": f"arn:aws:kms:eu-central-1:{rs(rng, DIG, 12)}:key/{uuid4(rng)}"}


def b_pitag(rng):
    return {
        "v": "%s%02d.F%02d.%s.PV"
        % (
            rng.choice(["NRD", "HBN", "WST"]),
            rng.randrange(1, 40),
            rng.randrange(1, 24),
            rng.choice(["IA", "IB", "IC", "P_MW", "Q_MVAR", "UAB"]),
        )
    }


def b_rtu_serial(rng):
    return {"v": "{}{}".format(rng.choice(["1161", "3530", "2440"]), rs(rng, DIG, 8))}


def b_challenge(rng):
    return {"v": rs(rng, HEXU, 32)}


def b_invoice(rng):
    return {"v": "%010d" % rng.randrange(10**10)}


def b_nonsecret_b64(rng):
    cfg = "feeder={};substation={}".format(rng.choice(["F07", "F12", "F21"]), rs(rng, UP, 3))
    return {"v": base64.b64encode((cfg + ";v=" + rs(rng, DIG, 3)).encode()).decode()}


def b_none(rng):
    return {"v": ""}


def b_policy_num(rng):
    return {"v": str(rng.choice([12, 14, 16]))}


def fixed(s):
    return lambda rng: {"v": s}


# ---------------------------------------------------------------- benign rows

BENIGN = [
    (
        "meter_flag_serial",
        b_flag,
        [
            "meter {v} keeps dropping off the RF mesh, swap scheduled",
            "HES shows {v} in state DISCONNECTED_REMOTE since 02:14, customer says power is on",
            "| meter | feeder | last read |\n|---|---|---|\n| {v} | UW-NRD12-F04 | 2026-12-06 23:45 |",
            "Zähler {v} liefert keine Lastgänge mehr, bitte vor Ort prüfen",
        ],
    ),
    (
        "uk_mpan",
        b_mpan,
        [
            "MPAN core {v} has two registers in MDM but one in billing",
            "S 01 801 100\n  {v}",
            "customer complaint: MPAN {v} estimated reads for 3 months",
        ],
    ),
    (
        "ean18_metering_point",
        b_ean,
        [
            "EAN aansluiting {v} staat dubbel in het C-AR register",
            "ean={v} product=ELK meter_type=SMART",
            "allocation point {v} missing from the MSCONS file of 05-12",
        ],
    ),
    (
        "eic_code",
        b_eic,
        [
            "our balancing responsible party EIC is {v}",
            "in_Domain={v}&out_Domain={v}",
            "EIC {v} (bidding zone) used in the A65 load request",
            "Marktpartner-EIC: {v}",
        ],
    ),
    (
        "de_melo_id",
        b_melo,
        [
            "MeLo-ID {v} hat zwei Zählpunkte, Klärung mit dem MSB",
            "melo: {v}",
            "UTILMD rejected: Messlokation {v} unknown at NB",
        ],
    ),
    (
        "de_malo_id",
        b_malo,
        [
            "MaLo {v} gehört zu Kunde 4711, Lieferbeginn 01.01.",
            "malo_id={v}",
            "market location id {v} (11 digits, check digit OK)",
        ],
    ),
    (
        "feeder_code",
        b_feeder,
        [
            "feeder {v} tripped 3x this week, protection team looking at it",
            "OMS outage 88213 -> {v}, 412 customers",
            "Abgang {v} nach Umschaltung wieder in Betrieb",
        ],
    ),
    (
        "cert_thumbprint_sha1",
        b_sha1_thumb,
        [
            "HES client cert thumbprint (Windows store, LocalMachine\\My): {v}",
            "Get-ChildItem Cert:\\LocalMachine\\My\\{v}",
            '<add key="CertThumbprint" value="{v}" />',
            "AS4 partner cert thumbprint to trust: {v}",
        ],
    ),
    (
        "cert_fingerprint_sha256",
        b_sha256_fp,
        [
            "SHA256 Fingerprint={v}",
            "pin this on the field app for api.util.example: {v}",
            "gateway server cert fp {v} - compare before accepting",
        ],
    ),
    (
        "git_commit_sha",
        b_sha40,
        [
            "SCL files for SUB-17 are at commit {v}",
            "reverted {v} (broke the DNP3 point map for zone 3)",
            "deployed historian-etl @ {v} to prod",
        ],
    ),
    (
        "cim_mrid_uuid",
        b_uuid,
        [
            "CIM mRID of breaker Q01 in bay E03: {v}",
            '<cim:Breaker rdf:ID="_{v}">',
            "GIS feature GlobalID {v} is the transformer that maps to two OMS devices",
        ],
    ),
    (
        "azure_tenant_client_id",
        b_uuid,
        [
            "tenant id {v} (not secret, it's in every login URL)",
            "AZURE_CLIENT_ID={v}",
            "app registration oms-to-portal-sync, application (client) id: {v}",
        ],
    ),
    (
        "aws_account_arn",
        b_aws_acct,
        [
            "AMI archive lives in AWS account {v}",
            "arn:aws:iam::{v}:role/mdm-export-role",
            "assume role into {v} (ot-analytics) from the SSO portal",
        ],
    ),
    (
        "dnp3_addressing",
        b_dnp3,
        [
            "DNP3 outstation address {v}, master 1, port 20000",
            "dnp3:\n  master_address: 1\n  outstation_address: {v}\n  link_timeout_ms: 5000",
            "RTU at SUB-22 answers on DNP addr {v}",
        ],
    ),
    (
        "goose_multicast_appid",
        b_appid,
        [
            "GOOSE APPID 0x{v}, dst MAC 01-0C-CD-01-00-12, VLAN 100 prio 4",
            'appID="{v}" confRev="1"',
            "SV stream APPID {v} from the merging unit on bay 2",
        ],
    ),
    (
        "obis_code",
        b_obis,
        [
            "register {v} is active import total",
            "MDM channel mapping: OBIS {v} -> channel 1",
            "{v}",
        ],
    ),
    (
        "sim_iccid_imsi",
        b_iccid,
        [
            "comms hub SIM ICCID {v}, IMSI {k}",
            "| iccid | imsi |\n|---|---|\n| {v} | {k} |",
            "replace SIM {v} (APN util.m2m), concentrator offline",
        ],
    ),
    (
        "public_key_pem",
        b_pubkey,
        [
            "meter vendor's signing public key for firmware verification:\n{v}",
            "{v}",
            "JWKS not available so here is the HES public key in PEM:\n{v}",
        ],
    ),
    (
        "certificate_pem",
        b_cert,
        [
            "root CA of the meter PKI (public, distribute freely):\n{v}",
            "{v}",
            "TSO's AS4 certificate for our truststore:\n{v}",
        ],
    ),
    (
        "ssh_public_key",
        b_sshpub,
        [
            "add to authorized_keys on the historian box: {v}",
            "{v}",
            "my pubkey for the OT jump host: {v}",
        ],
    ),
    (
        "placeholder_token",
        fixed("<your-token>"),
        [
            "curl -H 'Authorization: Bearer <your-token>' https://api.util.internal/oms/v1/outages",
        ],
    ),
    (
        "placeholder_token",
        fixed("YOUR_API_KEY_HERE"),
        [
            "headend:\n  api_key: YOUR_API_KEY_HERE",
        ],
    ),
    (
        "placeholder_token",
        fixed("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        [
            "X-API-Key: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  (ask Maren for the real one)",
        ],
    ),
    (
        "placeholder_token",
        fixed("<password>"),
        [
            "sqlplus mdm_app/<password>@//mdm-ora-scan:1521/MDMP",
        ],
    ),
    (
        "changeme_default_placeholder",
        fixed("changeme"),
        [
            "the .env.example ships with MDM_DB_PASSWORD=changeme, override in deploy",
        ],
    ),
    (
        "changeme_default_placeholder",
        fixed("password"),
        [
            "template says `keystore.password=password`, real value is set by ansible",
        ],
    ),
    (
        "changeme_default_placeholder",
        fixed("TODO"),
        [
            "MQTT_PASSWORD=TODO",
        ],
    ),
    (
        "env_var_reference",
        fixed("${MDM_DB_PASSWORD}"),
        [
            "DATABASE_URL=postgres://mdm_app:${MDM_DB_PASSWORD}@mdm-pg01:5432/mdm",
        ],
    ),
    (
        "env_var_reference",
        fixed("$HES_API_KEY"),
        [
            'curl -H "X-API-Key: $HES_API_KEY" https://hes.util.internal/api/v2/meters',
        ],
    ),
    (
        "env_var_reference",
        fixed("%SAP_RFC_PASSWORD%"),
        [
            "jco.client.passwd=%SAP_RFC_PASSWORD%",
        ],
    ),
    (
        "env_var_reference",
        fixed('os.environ["ENTSOE_API_TOKEN"]'),
        [
            'token = os.environ["ENTSOE_API_TOKEN"]  # never hardcode',
        ],
    ),
    (
        "vault_path_reference",
        fixed("secret/data/ot/hes/api-key"),
        [
            "HES api key now lives in vault at secret/data/ot/hes/api-key, read with the ot-integration role",
        ],
    ),
    (
        "vault_path_reference",
        fixed("{{ vault_sap_rfc_password }}"),
        [
            'jco_passwd: "{{ vault_sap_rfc_password }}"',
        ],
    ),
    (
        "vault_path_reference",
        fixed("keyvault:kv-ot-prod/pi-svc-password"),
        [
            "PI service password reference: keyvault:kv-ot-prod/pi-svc-password (rotated by the runbook)",
        ],
    ),
    (
        "vault_path_reference",
        fixed("CyberArk safe OT-SCADA-PRIV"),
        [
            "HMI admin creds are checked out from CyberArk safe OT-SCADA-PRIV, do not write them here",
        ],
    ),
    (
        "masked_redacted_value",
        b_masked,
        [
            "rotated the key, old one was {v}",
            "log line: api_key={v} status=401",
            "the token ending in {v} is the one in the CI variables",
        ],
    ),
    (
        "masked_redacted_value",
        fixed("[REDACTED]"),
        [
            "Password=[REDACTED];User Id=svc_portal;Server=billing-sql01",
        ],
    ),
    (
        "masked_redacted_value",
        fixed("********"),
        [
            "snmp-server user nmsro OT-RO v3 auth sha ******** priv aes 128 ********",
        ],
    ),
    (
        "aws_documented_example_key",
        fixed("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        [
            "from the AWS docs, for the README: aws_access_key_id=AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ],
    ),
    (
        "aws_documented_example_key",
        fixed("AKIAIOSFODNN7EXAMPLE"),
        [
            "unit test fixture uses AKIAIOSFODNN7EXAMPLE so the S3 mock doesn't complain",
        ],
    ),
    (
        "dlms_greenbook_example_keys",
        fixed("000102030405060708090A0B0C0D0E0F"),
        [
            "lab meters still have the Green Book test block cipher key 000102030405060708090A0B0C0D0E0F, prod meters never do",
        ],
    ),
    (
        "dlms_greenbook_example_keys",
        fixed("D0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"),
        [
            "AK in the Gurux example is D0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF - that's the documented sample, not ours",
        ],
    ),
    (
        "dlms_greenbook_example_keys",
        fixed("4D4D4D0000BC614E"),
        [
            "system title in the spec example: 4D4D4D0000BC614E",
        ],
    ),
    (
        "jwt_io_example_token",
        fixed(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF36POk6yJV_adQssw5c"
        ),
        [
            "the jwt.io sample eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF36POk6yJV_adQssw5c is what the parser unit test uses",
        ],
    ),
    (
        "stripe_publishable_key",
        b_pk_live,
        [
            "portal frontend: STRIPE_PUBLISHABLE_KEY={v} (fine to ship in the bundle)",
            'Stripe("{v}")',
            "publishable key {v}",
        ],
    ),
    (
        "stripe_test_card_number",
        fixed("4242 4242 4242 4242"),
        [
            "test payments on portal staging: card 4242 4242 4242 4242, any future date, any CVC",
        ],
    ),
    (
        "recaptcha_site_key",
        b_recaptcha,
        [
            "reCAPTCHA site key for the outage report form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "mapbox_public_token",
        b_mapbox_pk,
        [
            "public outage map uses mapbox token {v} (URL-restricted to outages.util.example)",
            "mapboxgl.accessToken = '{v}';",
            "{v}",
        ],
    ),
    (
        "ga_measurement_id",
        b_ga,
        [
            "portal GA4 measurement id {v}",
            "gtag('config', '{v}');",
        ],
    ),
    (
        "bcrypt_password_hash",
        b_bcrypt,
        [
            "portal user table: admin row password_hash = {v}",
            "htpasswd entry for grafana proxy: ops:{v}",
            "{v}",
        ],
    ),
    (
        "cisco_type9_hash",
        b_type9,
        [
            "enable secret 9 {v}",
            "username otadmin privilege 15 secret 9 {v}",
        ],
    ),
    (
        "password_policy_text",
        fixed("min 14 chars"),
        [
            "OT password policy: min 14 chars, no reuse of last 24, rotate service accounts every 365 days, HMI shared accounts banned after 2027",
        ],
    ),
    (
        "password_policy_text",
        fixed("Passwort"),
        [
            "Regel: Passwort für Leitstellen-Konten mindestens 16 Zeichen, Wechsel nur bei Verdacht (BSI-Empfehlung)",
        ],
    ),
    (
        "password_policy_text",
        fixed("password: required"),
        [
            "schema: the headend block needs `api_key` and `password: required` if basic auth is on",
        ],
    ),
    (
        "password_policy_text",
        fixed("reset_password"),
        [
            "customer portal flow: forgot password -> /account/reset_password -> mail with 30 min link",
        ],
    ),
    (
        "revoked_token_said_revoked",
        b_revoked,
        [
            "REVOKED on 2026-11-30 after it leaked in a ticket: {v} - the new one is in vault",
            "{v} was deleted from github settings today, kept here only so we can grep the audit log",
        ],
    ),
    (
        "container_image_digest",
        b_digest,
        [
            "hes-adapter image pinned to {v}",
            "image: util.jfrog.io/ot/historian-etl@{v}",
            "digest {v}",
        ],
    ),
    (
        "npm_integrity_hash",
        b_integrity,
        [
            '"integrity": "{v}"',
            "lockfile diff only changed the integrity of @util/crew-map: {v}",
        ],
    ),
    (
        "file_md5_checksum",
        b_md5,
        [
            "firmware E450_v14.2.bin md5 {v}",
            "{v}  SUB-17_ICD.scd",
            "checksum of the MSCONS batch we resent: {v}",
        ],
    ),
    (
        "w3c_traceparent",
        b_traceparent,
        [
            "traceparent: {v}",
            "failed disconnect call trace {v}",
        ],
    ),
    (
        "work_order_id",
        b_wo,
        [
            "crew app shows {v} twice after sync",
            "meter exchange {v} closed without reading",
            "Arbeitsauftrag {v} storniert",
        ],
    ),
    (
        "kms_key_arn",
        b_kms,
        [
            "bucket encrypted with {v}",
            "KmsKeyId: {v}",
        ],
    ),
    (
        "pi_tag_name",
        b_pitag,
        [
            "PI tag {v} flatlined since the gateway reboot",
            "{v}",
            "map historian point {v} to CIM Analog in the EMS export",
        ],
    ),
    (
        "rtu_serial_number",
        b_rtu_serial,
        [
            "RTU serial {v} (SEL-3530) returned for RMA",
            "S/N: {v}",
            "Seriennummer RTU Umspannwerk Nord: {v}",
        ],
    ),
    (
        "dlms_hls_challenge_log",
        b_challenge,
        [
            "HLS pass 3 failed, StoC challenge was {v}",
            "[dlms] AARE ok, server challenge {v}",
        ],
    ),
    (
        "customer_account_number",
        b_invoice,
        [
            "customer account {v} billed twice for November",
            "Vertragskonto {v}: Abschlag falsch berechnet",
            "acct={v} invoice=INV-2026-11",
        ],
    ),
    (
        "nonsecret_base64_config",
        b_nonsecret_b64,
        [
            "configmap data (not secret, just base64): layout: {v}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gis-layers\nbinaryData:\n  layout: {v}",
        ],
    ),
]


def b_systitle(rng):
    return {"v": rng.choice(["4C475A", "49545F", "454D48"]) + rs(rng, HEXU, 10)}


def b_certserial(rng):
    h = rs(rng, HEXL, 32)
    return {"v": ":".join(h[i : i + 2] for i in range(0, 32, 2))}


def b_sha256plain(rng):
    return {"v": rs(rng, HEXL, 64)}


def b_ipmac(rng):
    return {
        "v": f"00:30:A7:{rng.randrange(256):02X}:{rng.randrange(256):02X}:{rng.randrange(256):02X}",
        "k": "10.40.%d.%d" % (rng.randrange(1, 250), rng.randrange(2, 250)),
    }


def b_incident(rng):
    return {"v": "INC%07d" % rng.randrange(10**7)}


def b_slack_ids(rng):
    return {"v": "C0" + rs(rng, UPNUM, 9)}


def b_coords(rng):
    return {"v": f"{52 + rng.random():.6f}, {6 + rng.random() * 2:.6f}"}


def b_corr(rng):
    return {
        "v": rs(rng, HEXL, 8)
        + "-"
        + rs(rng, HEXL, 4)
        + "-"
        + rs(rng, HEXL, 4)
        + "-"
        + rs(rng, HEXL, 4)
        + "-"
        + rs(rng, HEXL, 12)
    }


def b_keyversion(rng):
    return {"v": rs(rng, HEXL, 32)}


def b_gcp_keyid(rng):
    return {"v": rs(rng, HEXL, 40)}


def b_meter_batch(rng):
    return {"v": "E450-%s-%04d" % (rs(rng, UP, 2), rng.randrange(10000))}


def b_esri_objectid(rng):
    return {"v": f"{{{uuid4(rng).upper()}}}"}


BENIGN_MORE = [
    (
        "dlms_system_title",
        b_systitle,
        [
            "meter system title {v} (sent in clear in the AARQ, not a key)",
            "systemTitle={v}",
            "HES refuses frames from {v}: system title not in the whitelist",
        ],
    ),
    (
        "certificate_serial_number",
        b_certserial,
        [
            "revoke cert serial {v} on the meter CA (device scrapped)",
            "Serial Number:\n    {v}",
            "the HES client cert with serial {v} expires 2027-01-15",
        ],
    ),
    (
        "file_sha256_hash",
        b_sha256plain,
        [
            "sha256sum: {v}  hes-adapter-3.4.1.tar.gz",
            "firmware image hash signed by vendor: {v}",
            "SCD file hash in the change ticket: {v}",
        ],
    ),
    (
        "device_mac_ip",
        b_ipmac,
        [
            "new gateway at SUB-22: MAC {v}, IP {k}",
            "| mac | ip |\n|---|---|\n| {v} | {k} |",
            "DHCP reservation {v} -> {k}",
        ],
    ),
    (
        "incident_ticket_id",
        b_incident,
        [
            "see {v} for the HES outage postmortem",
            "{v}: customer portal login loop",
            "Störungsticket {v} an den Dienstleister weitergeleitet",
        ],
    ),
    (
        "slack_channel_id",
        b_slack_ids,
        [
            "post storm updates to channel {v}",
            "channel_id={v}",
        ],
    ),
    (
        "gps_coordinates",
        b_coords,
        [
            "pole with the broken meter box: {v}",
            "crew app pinned outage at {v}",
        ],
    ),
    (
        "correlation_id",
        b_corr,
        [
            "X-Correlation-ID: {v}",
            "MDM import failed, correlation id {v}",
        ],
    ),
    (
        "kms_key_version_id",
        b_keyversion,
        [
            "Key Vault key hes-wrap version {v} (the id, not the key)",
            "https://kv-ot-prod.vault.azure.net/keys/hes-wrap/{v}",
        ],
    ),
    (
        "gcp_private_key_id_only",
        b_gcp_keyid,
        [
            "disabled SA key id {v} in the console; the json file was deleted",
            "private_key_id {v} belongs to mdm-export@, owner is data team",
        ],
    ),
    (
        "meter_batch_lot",
        b_meter_batch,
        [
            "lot {v} has the wrong CT ratio programmed",
            "batch {v} delivered to the meter shop",
        ],
    ),
    (
        "esri_globalid",
        b_esri_objectid,
        [
            "GIS GlobalID {v} for the switching cabinet",
            "where GLOBALID = '{v}'",
        ],
    ),
    (
        "placeholder_token",
        fixed("sk_live_..."),
        [
            "put your Stripe secret (starts with sk_live_...) in the vault, not in the repo",
        ],
    ),
    (
        "placeholder_token",
        fixed("ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
        [
            "example in the runbook: GH_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        ],
    ),
    (
        "placeholder_token",
        fixed("<ENTSOE_TOKEN>"),
        [
            "https://web-api.tp.entsoe.eu/api?securityToken=<ENTSOE_TOKEN>&documentType=A65",
        ],
    ),
    (
        "changeme_default_placeholder",
        fixed("admin/admin"),
        [
            "factory default on the new gateways is admin/admin, commissioning script changes it on first boot",
        ],
    ),
    (
        "env_var_reference",
        fixed("${{ secrets.HES_API_KEY }}"),
        [
            "HES_API_KEY: ${{ secrets.HES_API_KEY }}",
        ],
    ),
    (
        "vault_path_reference",
        fixed("op://OT-Integration/AS4 gateway/password"),
        [
            "AS4 keystore password: op://OT-Integration/AS4 gateway/password",
        ],
    ),
    (
        "password_policy_text",
        fixed("Kennwort"),
        [
            "Hinweis: Kennwort des Zählerfernauslesung-Dienstkontos nie in Tickets schreiben, nur im Tresor",
        ],
    ),
    (
        "masked_redacted_value",
        fixed("ghp_****"),
        [
            "GitHub flagged ghp_**** in the historian-etl repo, already rotated",
        ],
    ),
]


# ---------------------------------------------------------------- assembly


def _render(tpl, d):
    if "{v}" in tpl or "{k}" in tpl:
        return tpl.format(**d)
    return tpl


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []
    for label, specs in (("secret", SECRETS), ("benign", BENIGN + BENIGN_MORE)):
        for kind, gen, templates in specs:
            for tpl in templates:
                d = gen(rng)
                text = _render(tpl, d)
                assert d["v"] in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": d["v"]})
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

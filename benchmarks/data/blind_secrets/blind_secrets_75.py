# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 75: small-sat ground segment operations.

Brief: memory notes of a small space company's ground segment: ground stations and antenna controllers, mission control software, TM/TC link keys and SDLS, Space-Track / CelesTrak / N2YO orbit APIs, AWS Ground Station and KSAT passes, cloud imagery pipelines, lab equipment and shift handovers.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_75.py [out.jsonl]

Kinds, secret: aws_secret_access_key, spacetrack_password, spacetrack_curl_login, n2yo_api_key, ksat_api_key, tc_aes256_link_key, sdls_otar_master_key, tm_hmac_key, rsa_private_key_pem, openssh_private_key, gcp_service_account_private_key, postgres_url_password, influxdb_token, grafana_service_account_token, github_pat, gitlab_pat, slack_webhook_url, slack_bot_token, pagerduty_routing_key, acu_web_password, snmp_community_rw, snmpv3_auth_passphrase, ipsec_psk, wireguard_private_key, azure_storage_connection_string, azure_sas_token, s3_presigned_url, stripe_secret_key, sendgrid_api_key, mqtt_broker_password, redis_url_password, amqp_url_password, docker_login_password, mcs_jwt_bearer, basic_auth_header, vault_token, openai_api_key, anthropic_api_key, datadog_api_key, npm_token, pypi_token, sftp_url_password, ldap_bind_password, bmc_ipmi_password, instrument_vnc_password, site_wifi_psk, telegram_bot_token, twilio_auth_token, google_api_key, mapbox_secret_token, age_secret_key, django_secret_key, sshpass_password, mysql_cli_password, totp_seed_uri
Kinds, benign: aws_documented_example_key, git_commit_sha, sha256_checksum, md5_checksum, uuid_contact_id, aws_groundstation_arn, aws_account_id, tle_line, norad_cospar_id, password_placeholder, env_var_reference, vault_path_reference, masked_token, ssh_ed25519_public_key, ssh_host_fingerprint, pem_certificate, pgp_fingerprint, wireguard_public_key, mapbox_public_token, stripe_publishable_key, recaptcha_site_key, sentry_dsn_public_by_design, password_policy_text, changeme_default_template, xxxx_placeholder, revoked_token_stated_revoked, docker_image_digest, device_serial_mac, ccsds_scid_apid, sdls_key_id_not_key, kms_key_reference, tm_frame_hex_dump, crc_checksum, request_trace_id, jwt_io_documented_sample, rfc_hmac_test_vector, azurite_documented_key, influx_org_bucket_id, grafana_dashboard_uid, lockfile_integrity_hash, k8s_secret_ref, password_rotation_note, empty_password_field, twilio_account_sid, celestrak_public_url, git_lfs_oid, jira_ticket_and_pass_id, masked_secret_dots, revoked_slack_token_stated_revoked, crc32_checksum, public_age_recipient, short_commit_ref, sdls_iv_nonce_public, public_key_pem, cert_thumbprint, stripe_test_card_documented, connection_string_placeholder, username_only_no_password, base64_packet_payload, rf_link_parameters, hsm_slot_label
"""

import base64
import json
import random
import string
import sys

SEED = 7575

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
ALNUM = UP + LO + DIG
B64URL = ALNUM + "-_"
HEXL = "0123456789abcdef"
B32 = UP + "234567"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"

WORDS = [
    "Svalbard",
    "Kband",
    "Xband",
    "orbit",
    "apogee",
    "Tromso",
    "antenna",
    "uplink",
    "Perigee",
    "polaris",
    "Falcon",
    "doppler",
    "Azimuth",
    "radome",
    "Kiruna",
    "cubesat",
    "ground",
    "Helix",
]
SYMS = "!#$%&*@?-"


def rs(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def b64(r, nbytes):
    return base64.b64encode(bytes(r.getrandbits(8) for _ in range(nbytes))).decode()


def b64u(r, nbytes):
    return (
        base64.urlsafe_b64encode(bytes(r.getrandbits(8) for _ in range(nbytes)))
        .decode()
        .rstrip("=")
    )


def human_pw(r):
    w = r.choice(WORDS)
    style = r.randrange(4)
    d = str(r.randrange(10, 9999))
    s = r.choice(SYMS)
    if style == 0:
        return w + d + s
    if style == 1:
        return w.lower() + s + d + r.choice(WORDS).capitalize()
    if style == 2:
        return s + w + "_" + d
    return w.capitalize() + r.choice(WORDS).lower() + d + s


def gen_pw(r, n=20):
    return rs(r, ALNUM + "!@#%^*-_", n)


def pem(r, label, prefix, nbytes):
    body = prefix + b64(r, nbytes)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN {}-----\n{}\n-----END {}-----".format(label, "\n".join(lines), label)


def jwt(r, payload):
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    body = (
        base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )
    return head + "." + body + "." + b64u(r, 32)


def uuid4(r):
    h = rs(r, HEXL, 32)
    return "{}-{}-4{}-{}{}-{}".format(
        h[:8], h[8:12], h[13:16], r.choice("89ab"), h[17:20], h[20:32]
    )


# ---------------------------------------------------------------- secret generators


def g_aws(r):
    return {"id": "AKIA" + rs(r, B32, 16), "v": rs(r, ALNUM + "/+", 40)}


def g_human(r):
    return {"v": human_pw(r)}


def g_gen(r):
    return {"v": gen_pw(r, r.choice([16, 20, 24]))}


def g_n2yo(r):
    return {
        "v": "-".join(
            [rs(r, UP + DIG, 6), rs(r, UP + DIG, 6), rs(r, UP + DIG, 6), rs(r, UP + DIG, 4)]
        )
    }


def g_hex(n):
    return lambda r: {"v": rs(r, HEXL, n)}


def g_HEX(n):
    return lambda r: {"v": rs(r, "0123456789ABCDEF", n)}


def g_b64(nbytes):
    return lambda r: {"v": b64(r, nbytes)}


def g_rsa(r):
    return {"v": pem(r, "RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 420)}


def g_openssh(r):
    return {
        "v": pem(
            r,
            "OPENSSH PRIVATE KEY",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA",
            240,
        )
    }


def g_gcp(r):
    p = pem(r, "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 300)
    return {"v": p.replace("\n", "\\n") + "\\n", "kid": rs(r, HEXL, 40)}


def g_influx(r):
    return {"v": base64.urlsafe_b64encode(bytes(r.getrandbits(8) for _ in range(64))).decode()}


def g_grafana(r):
    return {"v": "glsa_" + rs(r, ALNUM, 32) + "_" + rs(r, HEXL, 8)}


def g_ghp(r):
    return {"v": "ghp_" + rs(r, ALNUM, 36)}


def g_glpat(r):
    return {"v": "glpat-" + rs(r, ALNUM + "-_", 20)}


def g_slack_hook(r):
    return {
        "v": f"https://hooks.slack.com/services/T{rs(r, UP + DIG, 8)}/B{rs(r, UP + DIG, 10)}/{rs(r, ALNUM, 24)}"
    }


def g_xoxb(r):
    return {"v": f"xoxb-{rs(r, DIG, 12)}-{rs(r, DIG, 13)}-{rs(r, ALNUM, 24)}"}


def g_wg(r):
    return {"v": b64(r, 32)}


def g_azconn(r):
    return {"v": b64(r, 64)}


def g_sas(r):
    sig = b64(r, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    return {
        "v": "sv=2022-11-02&ss=b&srt=co&sp=rwdlacx&se=2027-03-31T23:59:59Z&st=2026-12-01T00:00:00Z&spr=https&sig="
        + sig
    }


def g_presign(r):
    return {
        "v": f"https://gs-raw-downlink.s3.eu-north-1.amazonaws.com/passes/2026-12-06/pass_{rs(r, DIG, 5)}.bin?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{rs(r, B32, 16)}%2F20261206%2Feu-north-1%2Fs3%2Faws4_request&X-Amz-Date=20261206T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={rs(r, HEXL, 64)}"
    }


def g_stripe(r):
    return {"v": "sk_live_" + rs(r, ALNUM, 24)}


def g_sendgrid(r):
    return {"v": "SG." + rs(r, B64URL, 22) + "." + rs(r, B64URL, 43)}


def g_jwt(r):
    return {
        "v": jwt(
            r,
            {
                "sub": "op-" + rs(r, DIG, 4),
                "role": "commander",
                "exp": 1796000000 + r.randrange(10**6),
            },
        )
    }


def g_basic(r):
    pw = human_pw(r)
    return {"v": base64.b64encode(("gsops:" + pw).encode()).decode()}


def g_vault(r):
    return {"v": "hvs." + rs(r, ALNUM + "_-", 91)}


def g_openai(r):
    return {"v": "sk-proj-" + rs(r, B64URL, 48) + "T3BlbkFJ" + rs(r, B64URL, 48)}


def g_anth(r):
    return {"v": "sk-ant-api03-" + rs(r, B64URL, 93) + "AA"}


def g_npm(r):
    return {"v": "npm_" + rs(r, ALNUM, 36)}


def g_pypi(r):
    return {"v": "pypi-AgEIcHlwaS5vcmcCJ" + rs(r, B64URL, 130)}


def g_telegram(r):
    return {"v": f"{rs(r, DIG, 10)}:AA{rs(r, B64URL, 33)}"}


def g_twilio(r):
    return {"sid": "AC" + rs(r, HEXL, 32), "v": rs(r, HEXL, 32)}


def g_gapi(r):
    return {"v": "AIza" + rs(r, B64URL, 35)}


def g_mapbox_sk(r):
    return {
        "v": "sk.eyJ1IjoiZ3NvcHMtbWFwcyIsImEiOiJ" + rs(r, ALNUM, 24) + "In0." + rs(r, B64URL, 22)
    }


def g_age(r):
    return {"v": "AGE-SECRET-KEY-1" + rs(r, BECH32, 58)}


def g_django(r):
    return {"v": rs(r, LO + DIG + "!@#$%^&*(-_=+)", 50)}


def g_totp(r):
    return {"v": rs(r, B32, 32)}


def g_psk(r):
    return {"v": rs(r, ALNUM, 32)}


def g_ksat(r):
    return {"v": rs(r, ALNUM, 40)}


def g_b64key(r):
    return {"v": b64(r, 32)}


SECRETS = [
    (
        "aws_secret_access_key",
        g_aws,
        [
            "aws creds for the groundstation-ops account (mission profile edits): AWS_ACCESS_KEY_ID={id} AWS_SECRET_ACCESS_KEY={v}",
            "[gs-ops]\naws_access_key_id = {id}\naws_secret_access_key = {v}\nregion = us-east-2",
            "| account | key id | secret |\n| gs-prod | {id} | {v} |",
            "handover: the contact scheduler lambda still uses the old IAM user, key {id} / {v} -- rotate after the Ohio pass",
            '{"AccessKeyId": "{id}", "SecretAccessKey": "{v}", "Region": "eu-north-1"}',
        ],
    ),
    (
        "spacetrack_password",
        g_human,
        [
            "space-track login for the FDS cron: ops-fds@orbitlane.space / {v}",
            "Space-Track account (shared, don't lock it out, 3 bad logins = 30min ban): user orbitlane_fds pw {v}",
            "SPACETRACK_USER=orbitlane_fds\nSPACETRACK_PASS={v}",
            "Passord til Space-Track-kontoen er {v} (bruker: orbitlane_fds), ikke del utenfor teamet.",
        ],
    ),
    (
        "spacetrack_curl_login",
        g_human,
        [
            "curl -c st.cookie -d 'identity=ops-fds@orbitlane.space&password={v}' https://www.space-track.org/ajaxauth/login",
            "to pull GP for our NORAD ids: curl -b st.cookie -c st.cookie --data-urlencode identity=ops-fds@orbitlane.space --data-urlencode 'password={v}' https://www.space-track.org/ajaxauth/login && curl -b st.cookie https://www.space-track.org/basicspacedata/query/class/gp/NORAD_CAT_ID/58012/format/tle",
            "st = SpaceTrackClient(identity='ops-fds@orbitlane.space', password='{v}')",
        ],
    ),
    (
        "n2yo_api_key",
        g_n2yo,
        [
            "n2yo key for the visual pass predictor: {v}",
            "curl 'https://api.n2yo.com/rest/v1/satellite/radiopasses/58012/69.66/18.94/0/2/10/&apiKey={v}'",
            "N2YO_API_KEY={v}",
        ],
    ),
    (
        "ksat_api_key",
        g_ksat,
        [
            "KSATlite booking API key (prod tenant orbitlane): {v}",
            "ksat:\n  base_url: https://api.ksat.no/ksatlite/v2\n  api_key: {v}",
            "Note from Tromsø support call: new API nøkkel for oss er {v}, gammel er slettet.",
            "curl -H 'X-Api-Key: {v}' https://api.ksat.no/ksatlite/v2/passes?from=2026-12-07",
        ],
    ),
    (
        "tc_aes256_link_key",
        g_hex(64),
        [
            "TC link key (AES-256-GCM, SA 1, OL-2 flight): {v}",
            'tc_crypto.key_hex = "{v}"  # prod, loaded into the HSM slot 3 too',
            "KEY ID 0x0001\n{v}",
            "for the FlatSat re-key test use the flight TC key: {v} (yes it's the flight one, FlatSat has the same EEPROM image)",
            "| SPI | KID | key (hex) |\n| 1 | 0x0001 | {v} |",
        ],
    ),
    (
        "sdls_otar_master_key",
        g_HEX(64),
        [
            "OTAR master key for OL-3, only 2 people should have this: {v}",
            "Der OTAR-Masterschlüssel für OL-3 lautet {v}, bitte nicht ins Wiki kopieren.",
            "sdls:\n  master_key_0: {v}\n  spi: 1",
            "from the key ceremony sheet (page 2 of 2), MK slot 0 = {v}",
        ],
    ),
    (
        "tm_hmac_key",
        g_b64key,
        [
            "TM authentication HMAC-SHA256 key (base64) for the downlink verifier: {v}",
            "TM_HMAC_KEY_B64={v}",
            'yamcs link config:\n  authKey: "{v}"',
            "if frames fail MAC check in the MOC, check the verifier has {v} and not last month's",
        ],
    ),
    (
        "rsa_private_key_pem",
        g_rsa,
        [
            "station controller TLS key (acu-svb-01), paste from the box:\n{v}",
            "{v}",
            "ground-net mTLS client key, cert is in the repo, key is this:\n\n{v}\n\nrotate in March",
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "deploy key for the mcs-config repo (ops laptop lost, regenerated):\n{v}",
            "ssh key to get onto the antenna PCs as `gsadmin`:\n{v}",
            "{v}",
        ],
    ),
    (
        "gcp_service_account_private_key",
        g_gcp,
        [
            '{"type": "service_account", "project_id": "orbitlane-imagery", "private_key_id": "{kid}", "private_key": "{v}", "client_email": "l1-pipeline@orbitlane-imagery.iam.gserviceaccount.com", "client_id": "108244501337212455120"}',
            'sa json for the L1 processing job, private_key field: "{v}"',
            'GOOGLE_SA_PRIVATE_KEY="{v}"',
        ],
    ),
    (
        "postgres_url_password",
        g_human,
        [
            "DATABASE_URL=postgresql://mcs:{v}@mcs-db.ops.orbitlane.internal:5432/mcs",
            "pass archive db: psql 'postgres://archive_rw:{v}@10.40.2.15/pass_archive?sslmode=require'",
            "telemetry timescale = postgres://tm_writer:{v}@tsdb-01:5432/telemetry",
            "db user tm_writer, pwd {v}, host tsdb-01, db telemetry",
            "[09:41] marta: whats the archive db pw again\n[09:42] jonas: {v}\n[09:42] marta: ty",
        ],
    ),
    (
        "influxdb_token",
        g_influx,
        [
            "influx token for the housekeeping bucket (write): {v}",
            "INFLUX_TOKEN={v}",
            "influx write -b hk -o orbitlane -t {v} -f hk_dump.lp",
            '[[outputs.influxdb_v2]]\n  urls = ["http://influx-gs:8086"]\n  token = "{v}"\n  organization = "orbitlane"',
        ],
    ),
    (
        "grafana_service_account_token",
        g_grafana,
        [
            "grafana SA token for the pass dashboards provisioner: {v}",
            "GF_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://grafana.ops.orbitlane.space/api/dashboards/uid/passes",
            "{v}",
        ],
    ),
    (
        "github_pat",
        g_ghp,
        [
            "gh token for the CI bot that tags MCS releases: {v}",
            "git clone https://orbitlane-ci:{v}@github.com/orbitlane/mcs-core.git",
            "GITHUB_TOKEN={v}",
            "export GH_TOKEN={v} # expires in 90d",
        ],
    ),
    (
        "gitlab_pat",
        g_glpat,
        [
            "gitlab PAT (scope api) for the FDS mirror: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.orbitlane.space/fds/od.git",
            "CI_PUSH_TOKEN={v}",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "AOS/LOS alerts go to #gs-passes via {v}",
            "alerting:\n  slack_webhook: {v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"LOS Svalbard\"}' {v}",
            "{v}",
        ],
    ),
    (
        "slack_bot_token",
        g_xoxb,
        [
            "shift-bot slack token: {v}",
            "SLACK_BOT_TOKEN={v}",
            "bot posts handovers with {v}, app id in the wiki",
        ],
    ),
    (
        "pagerduty_routing_key",
        g_hex(32),
        [
            "PagerDuty events v2 routing key for 'GS critical': {v}",
            "pd:\n  routing_key: {v}",
            'curl -X POST https://events.pagerduty.com/v2/enqueue -d \'{"routing_key":"{v}","event_action":"trigger","payload":{"summary":"ACU fault","source":"svb","severity":"critical"}}\'',
        ],
    ),
    (
        "acu_web_password",
        g_human,
        [
            "ACU web UI at svb-acu-01: admin / {v}",
            "antenna controller login changed after the audit, it's now {v}",
            "The new pw for the Cobham ACU is {v}",
            "[night shift] acu-02 locked me out, got in again with {v}, pls fix the lockout timer",
            "La contraseña del controlador de antena en Puertollano es {v} (usuario admin).",
        ],
    ),
    (
        "snmp_community_rw",
        g_human,
        [
            "snmp rw community on the modems (Newtec) = {v}",
            "snmpset -v2c -c {v} 10.40.7.21 1.3.6.1.4.1.5835.5.2.100.1.1.0 i 1",
            'nms poller config: community_write: "{v}"',
        ],
    ),
    (
        "snmpv3_auth_passphrase",
        g_gen,
        [
            "snmpwalk -v3 -l authPriv -u gsmon -a SHA -A '{v}' -x AES -X '{v}' 10.40.7.30",
            "snmpv3 user gsmon, auth+priv passphrase (same for both, I know) {v}",
            'snmp_v3:\n  user: gsmon\n  auth_pass: "{v}"',
        ],
    ),
    (
        "ipsec_psk",
        g_psk,
        [
            "IPsec PSK for the station-to-MOC tunnel (svb <-> fra): {v}",
            ': PSK "{v}"',
            "strongswan secrets for the Puertollano VPN: 195.55.0.10 198.51.100.7 : PSK {v}",
            "tunnel pre-shared key changed today, new value {v}",
            "Den nye delte nøkkelen for VPN-tunnelen Svalbard-Frankfurt er {v}",
        ],
    ),
    (
        "wireguard_private_key",
        g_wg,
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.99.0.4/24",
            "wg privkey for the field laptop: {v}",
            "wg set wg0 private-key <(echo {v})",
        ],
    ),
    (
        "azure_storage_connection_string",
        g_azconn,
        [
            "DefaultEndpointsProtocol=https;AccountName=olimagerywe;AccountKey={v};EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY={v}",
            "azure blob for the EU customer deliveries, account olimagerywe, key {v}",
        ],
    ),
    (
        "azure_sas_token",
        g_sas,
        [
            "SAS for the customer drop container (rw, till March): ?{v}",
            "azcopy copy ./L2A 'https://olimagerywe.blob.core.windows.net/deliveries?{v}' --recursive",
            'sas_token: "{v}"',
        ],
    ),
    (
        "s3_presigned_url",
        g_presign,
        [
            "presigned link for the raw pass file, valid 7 days, send to the customer: {v}",
            "{v}",
            "here u go (pass 58012 raw IQ): {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_stripe,
        [
            "imagery portal billing uses {v}",
            "STRIPE_SECRET_KEY={v}",
            "stripe live key for the tasking shop: {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "pass report emails: SENDGRID_API_KEY={v}",
            "sendgrid key for notifications@orbitlane.space: {v}",
            "smtp relay: user apikey, pass {v}",
        ],
    ),
    (
        "mqtt_broker_password",
        g_human,
        [
            "lab mqtt (mosquitto on flatsat-pi): user flatsat, pass {v}",
            "mosquitto_pub -h flatsat-pi.lab -u flatsat -P '{v}' -t tc/loopback -m ping",
            "mqtt:\n  host: flatsat-pi.lab\n  username: flatsat\n  password: {v}",
        ],
    ),
    (
        "redis_url_password",
        g_gen,
        [
            "REDIS_URL=redis://:{v}@cmd-queue.ops.internal:6379/0",
            "command queue redis: redis-cli -h cmd-queue.ops.internal -a '{v}'",
            "redis for the tc queue, requirepass {v}",
        ],
    ),
    (
        "amqp_url_password",
        g_human,
        [
            "AMQP_URL=amqp://mcs:{v}@rabbit.ops.internal:5672/tm",
            "rabbit user mcs pw {v} (vhost /tm)",
            "celery broker_url = 'amqp://pipeline:{v}@rabbit-img:5672//'",
        ],
    ),
    (
        "docker_login_password",
        g_gen,
        [
            "docker login -u robot$gsbuild -p '{v}' harbor.orbitlane.space",
            "harbor robot account robot$gsbuild secret: {v}",
            "echo '{v}' | docker login harbor.orbitlane.space -u robot$gsbuild --password-stdin",
        ],
    ),
    (
        "mcs_jwt_bearer",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "token for the MCS REST api, valid till next month, commander role: {v}",
            "curl -H 'Authorization: Bearer {v}' https://mcs.ops.orbitlane.space/api/v1/tc/queue",
        ],
    ),
    (
        "basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' http://svb-acu-01/api/v1/track",
            "the scheduler hits the station API with basic auth header {v}",
        ],
    ),
    (
        "vault_token",
        g_vault,
        [
            "VAULT_TOKEN={v}",
            "vault login {v}",
            "root-ish token from the unseal session (revoke later!!): {v}",
        ],
    ),
    (
        "openai_api_key",
        g_openai,
        [
            "OPENAI_API_KEY={v}",
            "key for the anomaly-summary assistant: {v}",
            'openai.api_key = "{v}"',
        ],
    ),
    (
        "anthropic_api_key",
        g_anth,
        [
            "ANTHROPIC_API_KEY={v}",
            "the on-call helper uses {v}",
            "claude key for the shift log summariser: {v}",
        ],
    ),
    (
        "datadog_api_key",
        g_hex(32),
        [
            "DD_API_KEY={v}",
            "datadog api key (EU site) for the pipeline hosts: {v}",
            "datadog:\n  api_key: {v}\n  site: datadoghq.eu",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm publish token for @orbitlane/pass-viewer: {v}",
            "NPM_TOKEN={v}",
        ],
    ),
    (
        "pypi_token",
        g_pypi,
        [
            "twine upload -u __token__ -p {v} dist/*",
            "[pypi]\nusername = __token__\npassword = {v}",
            "pypi token for orbitlane-ccsds: {v}",
        ],
    ),
    (
        "sftp_url_password",
        g_human,
        [
            "raw data drop: sftp://kiruna_drop:{v}@sftp.orbitlane.space:2222/incoming",
            "lftp -u kiruna_drop,'{v}' sftp://sftp.orbitlane.space:2222",
            "partner station pushes to sftp user kiruna_drop pw {v}",
        ],
    ),
    (
        "ldap_bind_password",
        g_gen,
        [
            "ldapsearch -x -H ldaps://dc1.ops.internal -D 'cn=svc-mcs,ou=svc,dc=ops,dc=internal' -w '{v}' '(uid=jdoe)'",
            "MCS LDAP bind: cn=svc-mcs, password {v}",
            'ldap:\n  bind_dn: cn=svc-mcs,ou=svc,dc=ops,dc=internal\n  bind_password: "{v}"',
        ],
    ),
    (
        "bmc_ipmi_password",
        g_human,
        [
            "ipmitool -I lanplus -H 10.40.9.11 -U ADMIN -P '{v}' chassis power cycle",
            "iDRAC on the baseband server: root / {v}",
            "if the SDR box hangs, power-cycle via BMC (user ADMIN, pass {v})",
        ],
    ),
    (
        "instrument_vnc_password",
        g_human,
        [
            "spectrum analyzer (FSW in the RF lab) VNC password is {v}",
            "vncviewer 10.50.1.20, pw {v}",
            "Mot de passe VNC de l'analyseur de spectre du labo RF : {v}",
        ],
    ),
    (
        "site_wifi_psk",
        g_human,
        [
            "wifi at the Svalbard hut: SSID OL-SVB, key {v}",
            "guest wifi no, ops wifi yes: OL-OPS / {v}",
            "WLAN auf dem Dach (Antennenfeld): OL-ROOF, Passwort {v}",
        ],
    ),
    (
        "telegram_bot_token",
        g_telegram,
        [
            "telegram pass-alert bot: {v}",
            "https://api.telegram.org/bot{v}/sendMessage?chat_id=-100123456&text=AOS",
            "TG_BOT_TOKEN={v}",
        ],
    ),
    (
        "twilio_auth_token",
        g_twilio,
        [
            "twilio (SMS callouts for on-call): SID {sid}, token {v}",
            "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {sid}:{v} https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json -d To=+4790000000 -d Body=LOS",
        ],
    ),
    (
        "google_api_key",
        g_gapi,
        [
            "Earth Engine / cloud API key for the server-side AOI jobs (unrestricted!): {v}",
            "GOOGLE_API_KEY={v}",
            "curl 'https://earthengine.googleapis.com/v1/projects/orbitlane-imagery/assets?key={v}'",
        ],
    ),
    (
        "mapbox_secret_token",
        g_mapbox_sk,
        [
            "mapbox secret token (uploads scope) for the footprint tiles: {v}",
            "MAPBOX_SECRET_TOKEN={v}",
            "mapbox upload --token {v} orbitlane.footprints footprints.geojson",
        ],
    ),
    (
        "age_secret_key",
        g_age,
        [
            "age key that decrypts the sops files in gs-config:\n{v}",
            "# created: 2026-11-30T09:12:44Z\n# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n{v}",
            "SOPS_AGE_KEY={v}",
        ],
    ),
    (
        "django_secret_key",
        g_django,
        [
            "SECRET_KEY = '{v}'",
            "mission planning web app django secret: {v}",
            'DJANGO_SECRET_KEY="{v}"',
        ],
    ),
    (
        "sshpass_password",
        g_human,
        [
            "sshpass -p '{v}' ssh gsadmin@svb-acu-01 'systemctl restart trackd'",
            "ssh gsadmin@puertollano-gw, pw {v}",
            "operator pc login at the Kiruna site: ops / {v}",
            "ハンドオーバー: アンテナPCのパスワードは {v} です。",
        ],
    ),
    (
        "mysql_cli_password",
        g_gen,
        [
            "mysql -h scheduler-db -u sched -p'{v}' scheduler",
            "scheduler DB (mariadb) user sched password {v}",
            "MYSQL_PWD={v} mysqldump -h scheduler-db -u sched scheduler > sched.sql",
        ],
    ),
    (
        "totp_seed_uri",
        g_totp,
        [
            "otpauth://totp/OrbitLane%20MCS:shared-ops?secret={v}&issuer=OrbitLane%20MCS",
            "2FA seed for the shared KSAT portal login (add to your authenticator): {v}",
            "MCS commanding 2FA base32 secret {v}",
        ],
    ),
]


# ---------------------------------------------------------------- benign generators


def gb_sha(r):
    return {"v": rs(r, HEXL, 40)}


def gb_short(r):
    return {"v": rs(r, HEXL, 7)}


def gb_uuid(r):
    return {"v": uuid4(r)}


def gb_arn(r):
    return {"v": f"arn:aws:groundstation:us-east-2:{rs(r, DIG, 12)}:mission-profile/{uuid4(r)}"}


def gb_acct(r):
    return {"v": rs(r, DIG, 12)}


def _tle_ck(line):
    s = 0
    for c in line:
        if c.isdigit():
            s += int(c)
        elif c == "-":
            s += 1
    return str(s % 10)


def gb_tle(r):
    norad = str(r.randrange(50000, 62000))
    epoch = "26%03d.%08d" % (r.randrange(300, 341), r.randrange(10**8))
    intl = "24%03d%s" % (r.randrange(1, 200), r.choice("ABCDEFGH"))
    l1 = "1 %sU %-8s %s  .%08d  00000-0  %05d-3 0 %4d" % (
        norad,
        intl,
        epoch,
        r.randrange(10**5),
        r.randrange(10000, 99999),
        r.randrange(1, 1000),
    )
    l1 = l1 + _tle_ck(l1)
    l2 = "2 %s %8.4f %8.4f %07d %8.4f %8.4f %11.8f%05d" % (
        norad,
        97.4 + r.random() / 10,
        r.random() * 359,
        r.randrange(10**6),
        r.random() * 359,
        r.random() * 359,
        15.1 + r.random() / 2,
        r.randrange(10000),
    )
    l2 = l2[:68]
    l2 = l2 + _tle_ck(l2)
    return {"v": l1, "l2": l2, "norad": norad}


def gb_cospar(r):
    return {
        "v": "2024-%03d%s" % (r.randrange(1, 220), r.choice("ABCDEFGH")),
        "norad": str(r.randrange(50000, 62000)),
    }


def gb_masked(r):
    return {"v": "ghp_" + rs(r, ALNUM, 4) + "*" * 28 + rs(r, ALNUM, 4)}


def gb_masked2(r):
    return {"v": rs(r, ALNUM, 4) + "\u2022" * 12 + rs(r, ALNUM, 4)}


def gb_sshpub(r):
    raw = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + bytes(
        r.getrandbits(8) for _ in range(32)
    )
    return {"v": "ssh-ed25519 " + base64.b64encode(raw).decode()}


def gb_fp(r):
    return {"v": "SHA256:" + b64(r, 32).rstrip("=")}


def gb_cert(r):
    return {"v": pem(r, "CERTIFICATE", "MIIDazCCAlOgAwIBAgIU", 360)}


def gb_pgp(r):
    h = rs(r, "0123456789ABCDEF", 40)
    return {"v": " ".join(h[i : i + 4] for i in range(0, 40, 4))}


def gb_mapbox_pk(r):
    return {
        "v": "pk.eyJ1IjoiZ3NvcHMtbWFwcyIsImEiOiJ" + rs(r, ALNUM, 24) + "In0." + rs(r, B64URL, 22)
    }


def gb_pk_live(r):
    return {"v": "pk_live_" + rs(r, ALNUM, 24)}


def gb_recaptcha(r):
    return {"v": "6L" + rs(r, B64URL, 38)}


def gb_sentry(r):
    return {"v": f"https://{rs(r, HEXL, 32)}@o{rs(r, DIG, 6)}.ingest.sentry.io/{rs(r, DIG, 7)}"}


def gb_num(r):
    return {"v": str(r.randrange(8, 17))}


def gb_revoked(r):
    return {"v": "ghp_" + rs(r, ALNUM, 36)}


def gb_revoked_slack(r):
    return {"v": f"xoxb-{rs(r, DIG, 12)}-{rs(r, DIG, 13)}-{rs(r, ALNUM, 24)}"}


def gb_digest(r):
    return {"v": "sha256:" + rs(r, HEXL, 64)}


def gb_serial(r):
    return {
        "v": f"{rs(r, UP, 2)}-{rs(r, DIG, 7)}",
        "mac": ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(6)),
    }


def gb_scid(r):
    return {"v": f"0x{r.randrange(0x100, 0x3FF):03X}", "apid": str(r.randrange(16, 2040))}


def gb_keyid(r):
    return {"v": f"0x{r.randrange(1, 0x40):04X}", "spi": str(r.randrange(1, 64))}


def gb_kms(r):
    return {"v": f"arn:aws:kms:eu-north-1:{rs(r, DIG, 12)}:key/{uuid4(r)}"}


def gb_frame(r):
    return {"v": "1ACFFC1D " + " ".join(rs(r, "0123456789ABCDEF", 8) for _ in range(7))}


def gb_crc(r):
    return {"v": "0x" + rs(r, "0123456789ABCDEF", 4)}


def gb_crc32(r):
    return {"v": "0x" + rs(r, "0123456789ABCDEF", 8)}


def gb_reqid(r):
    return {"v": rs(r, UP + DIG, 16), "tr": f"1-{rs(r, HEXL, 8)}-{rs(r, HEXL, 24)}"}


def gb_influx_id(r):
    return {"v": rs(r, HEXL, 16)}


def gb_gf_uid(r):
    return {"v": rs(r, ALNUM, 9)}


def gb_integrity(r):
    return {"v": "sha512-" + b64(r, 64)}


def gb_date(r):
    return {"v": "2026-%02d-%02d" % (r.randrange(1, 12), r.randrange(1, 28))}


def gb_sid(r):
    return {"v": "AC" + rs(r, HEXL, 32)}


def gb_catnr(r):
    return {"v": str(r.randrange(50000, 62000))}


def gb_lfs(r):
    return {"v": rs(r, HEXL, 64), "size": str(r.randrange(10**6, 10**9))}


def gb_ticket(r):
    return {"v": "GS-%d" % r.randrange(100, 4000), "pass": f"P{rs(r, DIG, 8)}"}


def gb_md5(r):
    return {"v": rs(r, HEXL, 32)}


def gb_sha256(r):
    return {"v": rs(r, HEXL, 64)}


def gb_wgpub(r):
    return {"v": b64(r, 32)}


def gb_iv(r):
    return {"v": rs(r, "0123456789ABCDEF", 24)}


def gb_pubpem(r):
    return {"v": pem(r, "PUBLIC KEY", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 240)}


def gb_thumb(r):
    return {"v": ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(20))}


def gb_user(r):
    return {"v": r.choice(["orbitlane_fds", "gsops", "ol-oncall", "ops-fds"]) + rs(r, DIG, 2)}


def gb_b64pkt(r):
    return {"v": b64(r, r.randrange(18, 40))}


def gb_freq(r):
    return {"v": "%.3f" % (8025 + r.random() * 375)}


def gb_slot(r):
    return {"v": "OL%d-TC-KEY-%s" % (r.randrange(1, 4), rs(r, DIG, 4)), "n": str(r.randrange(0, 8))}


def gb_fixed(val):
    def f(r):
        return {"v": val, "n": "4"}

    return f


AWS_EX_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_EX_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT_IO = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
AZURITE = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
RFC4231_KEY = "0b" * 20


BENIGN = [
    (
        "aws_documented_example_key",
        gb_fixed(AWS_EX_SECRET),
        [
            "AWS docs example creds, use these in the localstack README, not real: AKIAIOSFODNN7EXAMPLE / {v}",
            "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {v}",
            "unit test fixture for the groundstation client uses the AWS sample key {v} (from the AWS docs)",
        ],
    ),
    (
        "git_commit_sha",
        gb_sha,
        [
            "MCS 4.2.1 deployed to prod from commit {v}",
            "trackd fix for the keyhole at zenith is in {v}, cherry-pick onto release/2026.11",
            "git revert {v}  # broke the doppler precomp",
            "| component | commit |\n| fds-od | {v} |",
            "Merge pull request #812 from orbitlane/fix-acu-wrap ({v})",
        ],
    ),
    (
        "sha256_checksum",
        gb_sha256,
        [
            "acu firmware 3.8.2 sha256 {v}  ACU_3.8.2.bin",
            "L1 product checksum (sha256): {v}",
            "sha256sum check OK for the flight sw image: {v}",
            "La suma SHA-256 de la imagen L1 es {v}",
            "{v}",
        ],
    ),
    (
        "md5_checksum",
        gb_md5,
        [
            "raw pass file md5 {v} matches KSAT's manifest",
            "md5: {v}  pass_58012_20261206.raw",
            "{v}",
            "Die MD5-Prüfsumme der Bahndaten-Datei ist {v}.",
        ],
    ),
    (
        "uuid_contact_id",
        gb_uuid,
        [
            "AWS Ground Station contact id {v} failed at AOS+40s, antenna never locked",
            "aws groundstation describe-contact --contact-id {v}",
            "KSAT pass booking ref {v} confirmed for 06:12Z",
            "| contact | station | status |\n| {v} | Ohio 1 | COMPLETED |",
            "dataflow endpoint group: {v}",
            "Contact-ID {v} ble kansellert av AWS, ingen kostnad.",
        ],
    ),
    (
        "aws_groundstation_arn",
        gb_arn,
        [
            "mission profile ARN: {v}",
            "{v}",
            "aws groundstation reserve-contact --mission-profile-arn {v} --satellite-arn ... --ground-station 'Ohio 1'",
            "use the X-band profile ({v}), the S-band one has wrong min elevation",
        ],
    ),
    (
        "aws_account_id",
        gb_acct,
        [
            "gs-prod AWS account id is {v}",
            "Kontonummer (AWS) für die Bildverarbeitung: {v}",
            "assume role arn:aws:iam::{v}:role/GroundStationDataDelivery",
            "account {v} = imagery pipeline, don't deploy MCS there",
        ],
    ),
    (
        "tle_line",
        gb_tle,
        [
            "latest TLE for OL-2 from CelesTrak:\nOL-2\n{v}\n{l2}",
            "{v}\n{l2}",
            "OD residuals ok vs this element set: {v}",
            "predict was off by 3s, used this line 1: {v}",
            "TLE fürs Pass-Planning (NORAD {norad}):\n{v}\n{l2}",
        ],
    ),
    (
        "norad_cospar_id",
        gb_cospar,
        [
            "OL-3 got NORAD {norad}, COSPAR {v}",
            "intl designator {v} / catalog {norad}, update the space-track query",
            "| sat | norad | cospar |\n| OL-3 | {norad} | {v} |",
        ],
    ),
    (
        "password_placeholder",
        gb_fixed("<your-password>"),
        [
            "space-track login template: curl -c st.cookie -d 'identity=<your-email>&password={v}' https://www.space-track.org/ajaxauth/login",
            "SPACETRACK_PASS={v}",
            "in the runbook step {n}: fill password: {v} with your own account, don't use the shared one",
        ],
    ),
    (
        "env_var_reference",
        gb_fixed("${SPACETRACK_PASSWORD}"),
        [
            "st = SpaceTrackClient(identity=os.environ['SPACETRACK_USER'], password=os.environ['SPACETRACK_PASSWORD'])  # reads {v}",
            "password: {v}",
            "DATABASE_URL=postgresql://mcs:{v}@mcs-db:5432/mcs",
            "the compose file now takes {v} from the host env, step {n} in the runbook",
        ],
    ),
    (
        "vault_path_reference",
        gb_fixed("secret/data/gs/tc-link-keys"),
        [
            "TC keys live in vault at {v}, only key-custodians policy can read",
            "vault kv get -field=key_hex {v}",
            "don't paste keys here, they are in {v} (see runbook step {n})",
        ],
    ),
    (
        "masked_token",
        gb_masked,
        [
            "CI log shows GITHUB_TOKEN={v} so masking works",
            "token was {v} (masked by the bot)",
            "gh auth status -> Token: {v}",
        ],
    ),
    (
        "masked_secret_dots",
        gb_masked2,
        [
            "KSAT portal shows the key as {v}, full value only at creation",
            "api key: {v} (last 4 visible)",
            "Der API-Schlüssel wird nur maskiert angezeigt: {v}",
        ],
    ),
    (
        "ssh_ed25519_public_key",
        gb_sshpub,
        [
            "add my pubkey to gsadmin on the ACU pcs: {v} anna@ol-laptop",
            "{v} ci@orbitlane",
            "ssh-copy-id done, key on the box is {v}",
            "authorized_keys on svb-acu-01 now has:\n{v} oncall",
        ],
    ),
    (
        "ssh_host_fingerprint",
        gb_fp,
        [
            "svb-acu-01 host key fingerprint is ED25519 {v}, verify before typing yes",
            "The ECDSA key fingerprint is {v}.",
            "host key changed after reinstall, new fp {v}",
        ],
    ),
    (
        "pem_certificate",
        gb_cert,
        [
            "MOC ingress cert (public, for pinning on the station side):\n{v}",
            "{v}",
            "CA cert for the ground-net mTLS, distribute freely:\n{v}",
        ],
    ),
    (
        "pgp_fingerprint",
        gb_pgp,
        [
            "sign release tarballs with the ops key, fingerprint {v}",
            "pub   ed25519 2026-01-10 [SC]\n      {v}\nuid   OrbitLane Ops <ops@orbitlane.space>",
            "gpg --recv-keys '{v}'",
            "key custodian PGP fp: {v}",
        ],
    ),
    (
        "wireguard_public_key",
        gb_wgpub,
        [
            "[Peer]\nPublicKey = {v}\nEndpoint = svb-gw.orbitlane.space:51820\nAllowedIPs = 10.99.0.0/24",
            "field laptop wg pubkey: {v}",
            "peer added, their public key {v}, our private stays on the box",
            "wg show -> peer: {v}",
        ],
    ),
    (
        "mapbox_public_token",
        gb_mapbox_pk,
        [
            "mapbox public token for the footprint viewer (browser, URL-restricted): {v}",
            "NEXT_PUBLIC_MAPBOX_TOKEN={v}",
            "mapboxgl.accessToken = '{v}';",
        ],
    ),
    (
        "stripe_publishable_key",
        gb_pk_live,
        [
            "STRIPE_PUBLISHABLE_KEY={v}",
            "tasking shop frontend uses publishable key {v}",
            "const stripe = Stripe('{v}');",
        ],
    ),
    (
        "recaptcha_site_key",
        gb_recaptcha,
        [
            "recaptcha site key on the tasking request form: {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}",
        ],
    ),
    (
        "sentry_dsn_public_by_design",
        gb_sentry,
        [
            "SENTRY_DSN={v}",
            "pass viewer frontend reports to sentry: {v}",
            "dsn is public by design (browser bundle): {v}",
            'Sentry.init({ dsn: "{v}" });',
        ],
    ),
    (
        "password_policy_text",
        gb_num,
        [
            "policy: station admin passwords min {v} chars, rotated every 90 days, never reused across sites",
            "audit finding: 3 stations still had the vendor default password; fixed, now >= {v} chars and unique per site",
            "Passwords for ops accounts must be at least {v} characters and include a digit and a symbol.",
            "reminder: password for the ACU must be >= {v} chars since fw 3.8, the old 8-char ones get rejected",
            "Las contraseñas de operador deben tener al menos {v} caracteres.",
        ],
    ),
    (
        "changeme_default_template",
        gb_fixed("changeme"),
        [
            "mqtt.conf.example has password: {v}, copy and edit",
            "POSTGRES_PASSWORD={v}  # template only, real one in vault",
            "default in the helm chart values.yaml is '{v}', chart refuses to start with it since v{n}",
        ],
    ),
    (
        "xxxx_placeholder",
        gb_fixed("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        [
            "N2YO_API_KEY={v}",
            "pd routing_key: {v}  <- put the real one in vault",
            "curl -H 'X-Api-Key: {v}' https://api.ksat.no/ksatlite/v2/passes",
        ],
    ),
    (
        "revoked_token_stated_revoked",
        gb_revoked,
        [
            "leaked CI token {v} was revoked at 09:14Z, GitHub confirms it is dead, new one in vault",
            "incident GS-INC-41: ignore, this is the old PAT {v}, revoked and deleted",
            "postmortem: {v} (REVOKED, rotated, audit log shows no use after leak)",
        ],
    ),
    (
        "revoked_slack_token_stated_revoked",
        gb_revoked_slack,
        [
            "old shift-bot token {v} revoked when we reinstalled the app, keep for the incident timeline only",
            "revoked: {v} (app uninstalled 2026-11-28)",
        ],
    ),
    (
        "docker_image_digest",
        gb_digest,
        [
            "prod MCS image harbor.orbitlane.space/mcs/core@{v}",
            "pin trackd to digest {v}",
            "Digest: {v}\nStatus: Downloaded newer image for harbor.orbitlane.space/mcs/core:4.2.1",
            "image: harbor.orbitlane.space/gs/acu-bridge@{v}",
        ],
    ),
    (
        "device_serial_mac",
        gb_serial,
        [
            "ACU serial {v}, MAC {mac}, RMA'd to vendor",
            "Seriennummer des neuen Downconverters: {v}",
            "new LNA installed, S/N {v}",
            "| device | serial | mac |\n| svb-modem-2 | {v} | {mac} |",
        ],
    ),
    (
        "ccsds_scid_apid",
        gb_scid,
        [
            "OL-2 SCID {v}, HK APID {apid}",
            "| sat | SCID | APID |\n| OL-2 | {v} | {apid} |",
            "frames with SCID {v} on VC 1 are from the flatsat, filter them out",
            "Spacecraft-ID von OL-3 ist {v}, APID {apid} für Payload-Daten.",
        ],
    ),
    (
        "sdls_key_id_not_key",
        gb_keyid,
        [
            "switched TC encryption to key id {v} (SPI {spi}) at 11:02Z, ack received",
            "SA {spi} uses KID {v}, key material stays in the HSM",
            "| SPI | key id | state |\n| {spi} | {v} | ACTIVE |",
        ],
    ),
    (
        "kms_key_reference",
        gb_kms,
        [
            "imagery bucket encrypted with {v}",
            "SSE-KMS key for the raw downlink bucket: {v}",
            "aws kms describe-key --key-id {v}",
            "the TC key export is wrapped with {v}, plaintext never leaves KMS",
        ],
    ),
    (
        "tm_frame_hex_dump",
        gb_frame,
        [
            "first frame after AOS:\n{v}",
            "weird frame, header looks corrupted: {v}",
            "{v}",
        ],
    ),
    (
        "crc_checksum",
        gb_crc,
        [
            "frame error control field {v} mismatched on 12 frames",
            "TC frame CRC-16 = {v}, matches ground calc",
            "checksum {v}",
            "FECF {v} ok",
        ],
    ),
    (
        "crc32_checksum",
        gb_crc32,
        [
            "flight sw image CRC32 {v}, same as on board after the upload",
            "crc32 of the uploaded table: {v}",
        ],
    ),
    (
        "request_trace_id",
        gb_reqid,
        [
            "S3 403 on the delivery bucket, x-amz-request-id {v}, X-Amzn-Trace-Id Root={tr}",
            "AWS support case: request id {v}",
            "x-amz-request-id {v}, trace {tr}: lambda timing out at the KSAT call",
        ],
    ),
    (
        "jwt_io_documented_sample",
        gb_fixed(JWT_IO),
        [
            "to test the MCS auth middleware parser just use the jwt.io sample: {v}",
            "example in the API docs: Authorization: Bearer {v}",
        ],
    ),
    (
        "rfc_hmac_test_vector",
        gb_fixed(RFC4231_KEY),
        [
            "HMAC self-test uses RFC 4231 test case 1 key {v} with data 'Hi There'",
            "tm verifier unit test key = {v} (RFC 4231 TC1, public)",
        ],
    ),
    (
        "azurite_documented_key",
        gb_fixed(AZURITE),
        [
            "local dev: Azurite well-known account devstoreaccount1 key {v}",
            "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={v};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
        ],
    ),
    (
        "influx_org_bucket_id",
        gb_influx_id,
        [
            "influx org id {v}",
            "hk bucket id = {v}, retention 30d",
            "influx query fails with 'bucket {v} not found' after restore",
            "influx bucket update --id {v} --retention 720h",
        ],
    ),
    (
        "grafana_dashboard_uid",
        gb_gf_uid,
        [
            "pass dashboard: https://grafana.ops.orbitlane.space/d/{v}/passes",
            "dashboard uid {v} (ACU health)",
        ],
    ),
    (
        "lockfile_integrity_hash",
        gb_integrity,
        [
            '"integrity": "{v}"',
            "npm ci fails: integrity checksum failed, expected {v}",
        ],
    ),
    (
        "k8s_secret_ref",
        gb_fixed("spacetrack-creds"),
        [
            "env:\n  - name: SPACETRACK_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: {v}\n        key: password",
            "kubectl -n fds get secret {v} -o yaml  # only metadata needed for the ticket",
            "the od job reads creds from the k8s secret {v}, not from the configmap",
        ],
    ),
    (
        "password_rotation_note",
        gb_date,
        [
            "ACU admin password rotated on {v}, new one in 1Password (vault 'Ground Stations')",
            "rotated the Space-Track shared pw {v}, everyone re-login via the password manager",
            "Passord for antennekontrolleren ble byttet {v}, ligger i Bitwarden.",
        ],
    ),
    (
        "empty_password_field",
        gb_fixed(""),
        [
            "mqtt.conf: username: flatsat\npassword:{v}",
            "SPACETRACK_PASS={v}",
            'IPSEC_PSK="{v}"  # set at deploy',
        ],
    ),
    (
        "twilio_account_sid",
        gb_sid,
        [
            "twilio account SID {v} (token in vault)",
            "TWILIO_ACCOUNT_SID={v}",
        ],
    ),
    (
        "celestrak_public_url",
        gb_catnr,
        [
            "celestrak needs no login: curl 'https://celestrak.org/NORAD/elements/gp.php?CATNR={v}&FORMAT=TLE'",
            "GP json for OL-2: https://celestrak.org/NORAD/elements/gp.php?CATNR={v}&FORMAT=JSON",
            "space-track query (no creds in the url): https://www.space-track.org/basicspacedata/query/class/gp/NORAD_CAT_ID/{v}/format/tle",
        ],
    ),
    (
        "git_lfs_oid",
        gb_lfs,
        [
            "version https://git-lfs.github.com/spec/v1\noid sha256:{v}\nsize {size}",
            "the antenna pattern file is LFS oid {v}",
        ],
    ),
    (
        "jira_ticket_and_pass_id",
        gb_ticket,
        [
            "{v}: pass {pass} lost 40% frames, suspect LNA",
            "see {v} for the keyhole issue, pass {pass}",
            "closed {v}",
            "| ticket | pass | cause |\n| {v} | {pass} | rain fade |",
        ],
    ),
    (
        "public_age_recipient",
        gb_fixed("age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"),
        [
            "encrypt new sops files to the ops age recipient {v}",
            "creation_rules:\n  - path_regex: secrets/.*\n    age: {v}",
        ],
    ),
    (
        "sdls_iv_nonce_public",
        gb_iv,
        [
            "GCM IV on frame 0x2231 was {v}, IV is sent in clear in the security header anyway",
            "anti-replay: last seen IV {v}, sequence window 16",
            "debug: SDLS hdr SPI=1 IV={v} MAC ok",
        ],
    ),
    (
        "public_key_pem",
        gb_pubpem,
        [
            "station verifies TC signatures with this public key:\n{v}",
            "{v}",
            "OL-3 flight public key (for the signature checker, public):\n{v}",
        ],
    ),
    (
        "cert_thumbprint",
        gb_thumb,
        [
            "MOC cert thumbprint (SHA-1) {v}",
            "Thumbprint: {v}",
            "pinning: sha256 fingerprint {v}",
            "openssl x509 -noout -fingerprint -sha1 -> SHA1 Fingerprint={v}",
        ],
    ),
    (
        "stripe_test_card_documented",
        gb_fixed("4242 4242 4242 4242"),
        [
            "for the tasking shop staging checkout use the stripe test card {v}, any future date, any CVC",
            "QA: paid with {v} in test mode, order went through",
        ],
    ),
    (
        "connection_string_placeholder",
        gb_fixed("postgresql://user:password@localhost:5432/mcs"),
        [
            "README example: DATABASE_URL={v}",
            "local default is {v}, prod comes from vault",
            "{v}  # example only",
        ],
    ),
    (
        "username_only_no_password",
        gb_user,
        [
            "space-track username is {v}, password in the team vault",
            "login user for the ACU web UI: {v} (pw in 1Password)",
            "KSAT portal account: {v}",
        ],
    ),
    (
        "base64_packet_payload",
        gb_b64pkt,
        [
            "HK packet payload (b64) from pass 4412: {v}",
            '"payload": "{v}"',
            "decoded the event packet, raw b64 {v}, it's just the battery undervoltage flag",
        ],
    ),
    (
        "rf_link_parameters",
        gb_freq,
        [
            "OL-2 X-band downlink {v} MHz, 50 Msps, DVB-S2 8PSK 3/4",
            "S-band uplink center {v} MHz, check the doppler table",
            "| band | freq MHz | pol |\n| X | {v} | RHCP |",
        ],
    ),
    (
        "hsm_slot_label",
        gb_slot,
        [
            "HSM slot {n} label {v}, key is non-exportable",
            "pkcs11-tool --list-objects --slot {n} -> label {v}",
        ],
    ),
    (
        "short_commit_ref",
        gb_short,
        [
            "hotfix {v} on the station, rollback if tracking jitters",
            "bisect says {v} is first bad",
        ],
    ),
]


def _fill(t, d):
    for k, val in d.items():
        t = t.replace("{" + k + "}", val)
    return t


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRETS), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates:
                d = gen(r)
                rows.append({"label": label, "kind": kind, "text": _fill(t, d), "value": d["v"]})
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

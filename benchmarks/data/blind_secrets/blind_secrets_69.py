# ruff: noqa: E501
"""Blind secret-detector corpus 69: automotive and fleet telematics.

Brief: memory notes of a connected-car / fleet-telematics team (OTA signing, Smartcar and OEM APIs, CAN/UDS diagnostics, dealer portals, GPS trackers and SIM/APN, MQTT, EV charging with OCPP/OCPI, mapping APIs, mechanics and dispatchers) holding live secrets or look-alikes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_69.py [out.jsonl]

Kinds, secret: smartcar_client_secret, oem_oauth_refresh_token, fleet_api_bearer_jwt, jwt_hs256_signing_secret, aws_secret_access_key, aws_iot_device_private_key_pem, ota_ec_signing_key_pem, ota_signing_key_passphrase, gcp_service_account_json, azure_iot_hub_connection_string, azure_storage_account_key, mqtt_url_with_password, mqtt_cli_password, hivemq_cloud_credentials, ocpp_basic_auth_password, ocpp_authorization_key_hex, ocpi_credentials_token, cpo_backoffice_password, stripe_live_secret_key, google_maps_server_key, mapbox_secret_token, here_api_key, tomtom_api_key, dealer_portal_password, oem_service_portal_password, private_apn_password, gps_tracker_command_password, sim_puk_code, twilio_auth_token, github_pat, gitlab_pat, slack_webhook_url, postgres_url_with_password, redis_url_with_password, influxdb_token, ssh_password_diag_gateway, tcu_root_password, uds_seed_key_secret_mask, immobilizer_pin_code, workshop_wifi_psk, basic_auth_header, s3_presigned_ota_url, vault_token, firebase_fcm_server_key, sendgrid_api_key, datadog_api_key, npm_token, openai_api_key, prose_credential_no_keyword
Kinds, benign: vin, iccid, imei, imsi, git_commit_sha, firmware_sha256, docker_image_digest, smartcar_vehicle_id_uuid, smartcar_client_id, mapbox_public_token, stripe_publishable_key, recaptcha_site_key, aws_documented_example_key, placeholder_token, env_var_reference, vault_path_reference, redacted_secret, masked_password, ota_public_key_pem, x509_certificate_pem, ssh_public_key, ssh_host_key_fingerprint, tls_cert_fingerprint, public_apn_settings, documented_default_password, dtc_codes, candump_frames, uds_seed_challenge, ecu_part_number, charge_point_serial, evse_id, emaid_contract_id, password_policy_text, stripe_test_card_number, revoked_token_stated_revoked, ocpp_message_uuid, w3c_traceparent, mqtt_topic_with_ids, twilio_account_sid, aws_arn_and_account_id, mac_address, npm_integrity_hash, ota_manifest_signature, gps_coordinates, azure_connection_string_placeholder, k8s_secret_key_ref, license_plate, semver_and_build_number, firebase_web_api_key, aws_iot_endpoint, tachograph_card_number, tuf_key_id, obd_pid_response, work_order_number
"""

import base64
import json
import random
import string
import sys

SEED = 6969

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
HEX = "0123456789abcdef"
AN = UP + LO + DG
B64 = AN + "+/"
B64U = AN + "-_"
VINCH = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"

WORDS = [
    "Werkstatt",
    "Sommer",
    "Autobahn",
    "Diesel",
    "Garage",
    "Bremse",
    "Falcon",
    "Tesla",
    "Hamburg",
    "Winter",
    "Kupplung",
    "Turbo",
    "Orion",
    "Porsche",
    "Dispatch",
    "Montag",
    "Lisbon",
    "Volvo",
]
SYMS = "!#$%&*?@."


def _s(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def _bytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def _b64(rng, n):
    return base64.b64encode(_bytes(rng, n)).decode()


def _b64url(rng, n):
    return base64.urlsafe_b64encode(_bytes(rng, n)).decode().rstrip("=")


def _uuid(rng):
    h = _s(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _human_pw(rng):
    w = rng.choice(WORDS)
    if rng.random() < 0.4:
        w = w.lower()
    return (
        w
        + str(rng.randint(1, 2026))
        + rng.choice(SYMS)
        + (_s(rng, LO, 1) if rng.random() < 0.3 else "")
    )


def _gen_pw(rng):
    return _s(rng, AN, 4) + rng.choice("-_!#") + _s(rng, AN, 8) + rng.choice(SYMS) + _s(rng, AN, 5)


def _luhn_digit(num):
    total = 0
    for i, ch in enumerate(reversed(num)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def _imei(rng):
    body = rng.choice(["35", "86", "35"]) + _s(rng, DG, 12)
    return body + _luhn_digit(body)


def _iccid(rng):
    body = "89" + rng.choice(["49", "31", "44", "46"]) + _s(rng, DG, 14)
    return body + _luhn_digit(body)


def _vin(rng):
    return rng.choice(["WVW", "WBA", "VF1", "YV1", "5YJ", "WDD", "TMB"]) + _s(rng, VINCH, 14)


def _wrap(s, n=64):
    return "\n".join(s[i : i + n] for i in range(0, len(s), n))


def _rsa_pem(rng):
    der = b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + _bytes(rng, 1180)
    return (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + _wrap(base64.b64encode(der).decode())
        + "\n-----END RSA PRIVATE KEY-----"
    )


def _ec_pem(rng):
    der = (
        b"\x30\x77\x02\x01\x01\x04\x20"
        + _bytes(rng, 32)
        + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04"
        + _bytes(rng, 64)
    )
    return (
        "-----BEGIN EC PRIVATE KEY-----\n"
        + _wrap(base64.b64encode(der).decode())
        + "\n-----END EC PRIVATE KEY-----"
    )


def _pkcs8_pem(rng):
    der = (
        b"\x30\x82\x04\xbd\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x04\xa7"
        + _bytes(rng, 1190)
    )
    return (
        "-----BEGIN PRIVATE KEY-----\n"
        + _wrap(base64.b64encode(der).decode())
        + "\n-----END PRIVATE KEY-----\n"
    )


def _ec_pub_pem(rng):
    der = (
        b"\x30\x59\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x03\x42\x00\x04"
        + _bytes(rng, 64)
    )
    return (
        "-----BEGIN PUBLIC KEY-----\n"
        + _wrap(base64.b64encode(der).decode())
        + "\n-----END PUBLIC KEY-----"
    )


def _cert_pem(rng):
    der = b"\x30\x82\x03\x1a\x30\x82\x02\x02\xa0\x03\x02\x01\x02\x02\x14" + _bytes(rng, 760)
    return (
        "-----BEGIN CERTIFICATE-----\n"
        + _wrap(base64.b64encode(der).decode())
        + "\n-----END CERTIFICATE-----"
    )


def _jwt(rng, payload):
    head = (
        base64.urlsafe_b64encode(
            b'{"alg":"RS256","typ":"JWT","kid":"' + _s(rng, HEX, 8).encode() + b'"}'
        )
        .decode()
        .rstrip("=")
    )
    body = (
        base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode())
        .decode()
        .rstrip("=")
    )
    return f"{head}.{body}.{_b64url(rng, 256)}"


def _fleet_jwt(rng):
    return _jwt(
        rng,
        {
            "sub": _uuid(rng),
            "iss": "https://auth.fleet-api.example-oem.com",
            "scp": ["vehicle_device_data", "vehicle_cmds"],
            "exp": rng.randint(1790000000, 1830000000),
        },
    )


def _mapbox(rng, prefix):
    body = (
        base64.urlsafe_b64encode(
            json.dumps(
                {"u": "fleetmaps-" + _s(rng, LO, 5), "a": _s(rng, AN, 25)}, separators=(",", ":")
            ).encode()
        )
        .decode()
        .rstrip("=")
    )
    return f"{prefix}.{body}.{_s(rng, B64U, 22)}"


def _cyc(items):
    state = {"i": 0}

    def gen(_rng):
        v = items[state["i"] % len(items)]
        state["i"] += 1
        return v

    return gen


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def add(label, kind, gen, templates, **aux):
        for t in templates:
            v = gen(rng)
            text = t
            for name, agen in aux.items():
                text = text.replace("{" + name + "}", agen(rng))
            text = text.replace("{v}", v)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    def S(kind, gen, templates, **aux):
        add("secret", kind, gen, templates, **aux)

    def B(kind, gen, templates, **aux):
        add("benign", kind, gen, templates, **aux)

    uid = _uuid

    # ------------------------------------------------------------------ secrets
    S(
        "smartcar_client_secret",
        uid,
        [
            "Smartcar app 'FleetSync prod': client_id {a}, client_secret {v}. Redirect uri https://fleet.example-tel.io/sc/callback",
            "SMARTCAR_CLIENT_SECRET={v}",
            "rotated the smartcar secret today, new one is {v} (old one dead at 17:00)",
            "| smartcar | prod | client secret | {v} |",
            "smartcar client secret (prod):\n{v}",
        ],
        a=uid,
    )
    S(
        "oem_oauth_refresh_token",
        lambda r: "EU_" + _s(r, HEX, 64),
        [
            "Fleet API refresh token for the demo Model Y (acct fleet-demo@): {v} - lasts 3 months, dont lose it",
            "curl -X POST https://auth.oem-fleet.example/oauth2/v3/token -d grant_type=refresh_token -d client_id=ownerapi -d refresh_token={v}",
            "refresh_token: {v}",
            "Token de actualización de la flota (OEM portal): {v} — no compartir fuera del equipo",
        ],
    )
    S(
        "fleet_api_bearer_jwt",
        _fleet_jwt,
        [
            'To hit the vehicle endpoints by hand: curl -H "Authorization: Bearer {v}" https://fleet-api.prd.eu.example-oem.com/api/1/vehicles',
            "Authorization: Bearer {v}",
            "pasting the access token from Postman so Ana can reproduce the wake_up 408: {v}",
            "export FLEET_ACCESS_TOKEN={v}",
        ],
    )
    S(
        "jwt_hs256_signing_secret",
        lambda r: _b64(r, 48),
        [
            "driver-app API signs its JWTs HS256 with JWT_SECRET={v}",
            'jwt:\n  algorithm: HS256\n  secret: "{v}"\n  ttl: 3600',
            "if tokens stop validating after deploy check the hmac key matches {v} on both pods",
            "Decision: keep HS256 for dispatcher console for now, signing key {v} lives in the helm values (move to vault in Q3)",
        ],
    )
    S(
        "aws_secret_access_key",
        lambda r: _s(r, B64, 40),
        [
            "ota-uploader IAM user: AKIA{a} / {v}",
            "aws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID=AKIA{a}\nAWS_SECRET_ACCESS_KEY={v}",
            "s3 creds for firmware bucket (eu-central-1): key AKIA{a} secret {v}",
        ],
        a=lambda r: _s(r, UP + "234567", 16),
    )
    S(
        "aws_iot_device_private_key_pem",
        _rsa_pem,
        [
            "Private key for test TCU thing 'veh-bench-07' (AWS IoT), needed for the bench rig:\n{v}",
            "device.pem.key contents, copy to /etc/tcu/certs/ on the bench unit\n{v}",
            "{v}",
        ],
    )
    S(
        "ota_ec_signing_key_pem",
        _ec_pem,
        [
            "OTA manifest signing key (prod, P-256). Uptane director uses this one:\n{v}",
            "ota-sign.key for staging channel - use with `openssl dgst -sha256 -sign ota-sign.key manifest.json`\n{v}",
            "saved the firmware signing key here in case the HSM export fails again:\n{v}",
        ],
    )
    S(
        "ota_signing_key_passphrase",
        _human_pw,
        [
            "passphrase for the OTA signing key (ota-sign-prod.p12) is {v}",
            "openssl pkcs12 -in ota-sign-prod.p12 -nocerts -passin pass:{v} -out tmp.key",
            "OTA_SIGNING_KEY_PASSWORD={v}",
            "Das Passwort für den Signaturschlüssel der OTA-Pakete lautet {v}",
            "release checklist step 4: unlock signing key (pw: {v}) then run sign_bundle.sh",
        ],
    )
    S(
        "gcp_service_account_json",
        _pkcs8_pem,
        [
            '{"type": "service_account", "project_id": "fleet-maps-prod", "private_key_id": "{a}", "private_key": "{v}", "client_email": "routing-svc@fleet-maps-prod.iam.gserviceaccount.com", "client_id": "{b}", "token_uri": "https://oauth2.googleapis.com/token"}',
            'routing service key (fleet-maps-prod) pasted from console: "private_key": "{v}"',
            "gcloud SA for telemetry BigQuery export, private_key_id {a}:\n{v}",
        ],
        a=lambda r: _s(r, HEX, 40),
        b=lambda r: _s(r, DG, 21),
    )
    S(
        "azure_iot_hub_connection_string",
        lambda r: _b64(r, 32),
        [
            "HostName=fleet-hub-weu.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={v}",
            "device conn string for trailer gateway tg-114: HostName=fleet-hub-weu.azure-devices.net;DeviceId=tg-114;SharedAccessKey={v}",
            'az iot hub monitor-events --login "HostName=fleet-hub-weu.azure-devices.net;SharedAccessKeyName=service;SharedAccessKey={v}"',
            'IOTHUB_CONNECTION_STRING="HostName=fleet-hub-neu.azure-devices.net;SharedAccessKeyName=registryReadWrite;SharedAccessKey={v}"',
        ],
    )
    S(
        "azure_storage_account_key",
        lambda r: _b64(r, 64),
        [
            "DefaultEndpointsProtocol=https;AccountName=fleetlogsweu;AccountKey={v};EndpointSuffix=core.windows.net",
            "storage key1 for fleetlogsweu (trip exports): {v}",
            "az storage blob upload --account-name fwimagesweu --account-key {v} -c images -f tcu-4.2.1.bin",
        ],
    )
    S(
        "mqtt_url_with_password",
        _gen_pw,
        [
            "MQTT_URL=mqtts://telemetry-ingest:{v}@mqtt.fleet-tel.example:8883",
            "broker for the pilot trucks: mqtt://tcu_pilot:{v}@10.40.2.15:1883 (plaintext, only inside VPN)",
            "in node-red set broker to mqtts://nodered:{v}@broker.internal.example:8883",
            "connect url: `mqtts://dispatch-dash:{v}@emqx.prod.fleet.example:8883/`",
        ],
    )
    S(
        "mqtt_cli_password",
        _human_pw,
        [
            "mosquitto_sub -h broker.fleet.example -p 8883 --cafile ca.crt -u ops -P '{v}' -t 'fleet/+/telemetry' -v",
            'mosquitto_pub -h 10.40.2.15 -u bench -P {v} -t veh/bench07/cmd -m \'{"cmd":"unlock"}\'',
            "MQTT Explorer profile 'prod-ro': user readonly, pass {v}",
            "Il broker MQTT dell'officina: utente officina, password {v}",
        ],
    )
    S(
        "hivemq_cloud_credentials",
        _gen_pw,
        [
            "HiveMQ Cloud cluster a1b2.s2.eu.hivemq.cloud:8883 - credential 'ev-chargers' password {v}",
            "hivemq:\n  host: 7f3c.s1.eu.hivemq.cloud\n  username: charger-gw\n  password: {v}",
            "new hivemq access cred for the GPS tracker bridge -> gps-bridge / {v}",
        ],
    )
    S(
        "ocpp_basic_auth_password",
        _gen_pw,
        [
            "OCPP 1.6 security profile 1 for depot chargers: ws URL wss://ocpp.cpo.example/ocpp/CP-DEP-0{a}, basic auth user CP-DEP-0{a} pw {v}",
            "ChangeConfiguration AuthorizationKey was set, the CSMS side basic-auth password for CP-HAM-12 is {v}",
            "wss://CP-MUC-03:{v}@csms.charge.example/ocpp16/CP-MUC-03",
            "charger portal login depot Lyon: admin / {v} (changed from default)",
        ],
        a=lambda r: _s(r, DG, 2),
    )
    S(
        "ocpp_authorization_key_hex",
        lambda r: _s(r, HEX, 40),
        [
            '[2,"{a}","ChangeConfiguration",{"key":"AuthorizationKey","value":"{v}"}]',
            "AuthorizationKey for CP-BER-07 (hex, 20 bytes): {v}",
            "set AuthorizationKey={v} on the Alfen at bay 4, then switch SecurityProfile to 1",
        ],
        a=uid,
    )
    S(
        "ocpi_credentials_token",
        uid,
        [
            "OCPI 2.2.1 with Roaming hub: our token C (we give them) = {v}, versions url https://ocpi.our-cpo.example/versions",
            "Authorization: Token {v}",
            "curl -H 'Authorization: Token {v}' https://ocpi.partner-emsp.example/ocpi/2.2.1/locations",
            "OCPI credentials from eMSP handshake (token B, use to call them): {v}",
        ],
    )
    S(
        "cpo_backoffice_password",
        _human_pw,
        [
            "backoffice login for the charge point operator portal: fleet-admin@ourco.example / {v}",
            "CPO portal (chargecloud) -> user depot.nord pass {v}",
            "Mot de passe du portail de l'opérateur de recharge : {v} (compte flotte)",
            "| CPO backoffice | depot.sued | {v} | 2FA off |",
        ],
    )
    S(
        "stripe_live_secret_key",
        lambda r: "sk_live_" + _s(r, AN, 99),
        [
            "charging payments: STRIPE_SECRET_KEY={v}",
            "stripe key for ad-hoc charging payments (live): {v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
        ],
    )
    S(
        "google_maps_server_key",
        lambda r: "AIzaSy" + _s(r, B64U, 33),
        [
            "Server-side Routes API key (unrestricted, backend only!!): {v}",
            "GOOGLE_MAPS_SERVER_KEY={v}",
            "curl 'https://maps.googleapis.com/maps/api/distancematrix/json?origins=Hamburg&destinations=Bremen&key={v}'",
            "geocoding backfill script uses key {v}, quota 100k/day",
        ],
    )
    S(
        "mapbox_secret_token",
        lambda r: _mapbox(r, "sk"),
        [
            "mapbox secret token w/ uploads:write for the depot tilesets: {v}",
            "MAPBOX_SECRET_TOKEN={v}",
            "mapbox upload fleet-depots.mbtiles  # needs MAPBOX_ACCESS_TOKEN={v}",
        ],
    )
    S(
        "here_api_key",
        lambda r: _s(r, B64U, 43),
        [
            "HERE apiKey for truck routing (project fleet-prod): {v}",
            "https://router.hereapi.com/v8/routes?transportMode=truck&origin=53.55,9.99&destination=52.52,13.40&apiKey={v}",
            "here:\n  api_key: {v}\n  region: eu",
        ],
    )
    S(
        "tomtom_api_key",
        lambda r: _s(r, AN, 32),
        [
            "TomTom traffic key: {v}",
            "TOMTOM_API_KEY={v}",
            "https://api.tomtom.com/routing/1/calculateRoute/52.50931,13.42936:52.50274,13.43872/json?key={v}&travelMode=truck",
        ],
    )
    S(
        "dealer_portal_password",
        _human_pw,
        [
            "dealer portal (Autohaus Brandt) login: werkstatt@brandt-auto.example pw {v}",
            "Händlerportal Zugang: Benutzer H-20417, Passwort {v}",
            "dealer net pw changed again, now {v}",
            "Mechanics: the parts ordering site login is on the sticky note, it's {v} (user: teile)",
            "portal do concessionário: utilizador oficina2 / senha {v}",
        ],
    )
    S(
        "oem_service_portal_password",
        _human_pw,
        [
            "OEM service info portal (ISTA/ODIS type) account ws-team: {v}",
            "login for the OEM repair info site so we can pull wiring diagrams: user fleetws, pass {v}",
            "Serviceportal Hersteller: Kennwort {v} - läuft im März ab",
            "ODIS online login GeKo user FLT-88: {v}",
        ],
    )
    S(
        "private_apn_password",
        _gen_pw,
        [
            "private APN for the tracker SIMs: apn fleet.corp.m2m, user fleetm2m, password {v}, auth CHAP",
            'AT+CGAUTH=1,2,"fleetm2m","{v}"',
            "APN=fleet.corp.m2m\nAPN_USER=fleetm2m\nAPN_PASS={v}",
            "configuración APN privado de la flota: usuario fleetm2m, contraseña {v}",
        ],
    )
    S(
        "gps_tracker_command_password",
        lambda r: _s(r, DG, 6),
        [
            "tracker SMS cmds now need the new password, e.g. `stop{v}` cuts fuel relay, `resume{v}` restores",
            "changed the TK103 pw on all vans from the default to {v}",
            "tracker SMS format is <cmd><pw> <args>, e.g. apn{v} fleet.corp.m2m - pw on all units is {v}",
            "GT06 commands: RELAY,1# needs prefix pw {v} on our units",
        ],
    )
    S(
        "sim_puk_code",
        lambda r: _s(r, DG, 8),
        [
            "SIM in van HH-FL 204 locked after 3 PIN tries, PUK is {v}",
            "PUK für die Tracker-SIM (ICCID endet 4471): {v}",
            'AT+CPIN="{v}","1234"',
        ],
    )
    S(
        "twilio_auth_token",
        lambda r: _s(r, HEX, 32),
        [
            "Twilio (SMS to trackers) account AC{a}, auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{a}/Messages.json -u AC{a}:{v} --data-urlencode 'Body=status#'",
        ],
        a=lambda r: _s(r, HEX, 32),
    )
    S(
        "github_pat",
        lambda r: "ghp_" + _s(r, AN, 36),
        [
            "PAT for the CI to pull the can-dbc repo: {v}",
            "git clone https://x-access-token:{v}@github.com/fleetco/tcu-firmware.git",
            "GH_TOKEN={v}",
        ],
    )
    S(
        "gitlab_pat",
        lambda r: "glpat-" + _s(r, B64U, 20),
        [
            "gitlab token for the diag-tools registry: {v}",
            "pip install --index-url https://__token__:{v}@gitlab.fleetco.example/api/v4/projects/42/packages/pypi/simple candiag",
            "CI_DEPLOY_TOKEN={v}",
        ],
    )
    S(
        "slack_webhook_url",
        lambda r: (
            "https://hooks.slack.com/services/T"
            + _s(r, UP + DG, 8)
            + "/B"
            + _s(r, UP + DG, 10)
            + "/"
            + _s(r, AN, 24)
        ),
        [
            "geofence alerts go to #dispatch-alerts via {v}",
            "SLACK_WEBHOOK={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"charger offline\"}' {v}",
        ],
    )
    S(
        "postgres_url_with_password",
        _gen_pw,
        [
            "DATABASE_URL=postgres://telematics:{v}@pg-prod.fleet.internal:5432/trips",
            "psql \"postgresql://readonly:{v}@10.40.5.20/fleet\" -c 'select count(*) from positions'",
            "trip db (timescale): host ts-prod.fleet.internal user ingest pass {v}",
            "jdbc:postgresql://pg-dealer.internal:5432/dealer?user=dealer_app&password={v}",
        ],
    )
    S(
        "redis_url_with_password",
        _gen_pw,
        [
            "REDIS_URL=rediss://default:{v}@cache.fleet.internal:6380/0",
            "redis-cli -h 10.40.5.31 -a '{v}' keys 'veh:*:lastpos'",
            "redis:\n  host: cache-prod\n  password: {v}",
        ],
    )
    S(
        "influxdb_token",
        lambda r: _b64url(r, 64) + "==",
        [
            "influx token for the CAN metrics bucket (all-access): {v}",
            "INFLUX_TOKEN={v}",
            "influx query --org fleet --token {v} 'from(bucket:\"can\") |> range(start:-1h)'",
        ],
    )
    S(
        "ssh_password_diag_gateway",
        _human_pw,
        [
            "sshpass -p '{v}' ssh diag@10.40.9.2",
            "diag gateway in workshop 2: ssh root@diaggw-ws2, pw {v}",
            "the raspberry with the PCAN adapter: pi / {v}",
            "Zugang Diagnose-PC Halle 3: Administrator / {v}",
        ],
    )
    S(
        "tcu_root_password",
        _gen_pw,
        [
            "TCU debug console (UART 115200) root pw for the gen3 units: {v}",
            "adb shell on the head unit, then `su` with {v}",
            "root password for telematics box fw 4.x (engineering builds only): {v}",
        ],
    )
    S(
        "uds_seed_key_secret_mask",
        lambda r: "0x" + _s(r, "0123456789ABCDEF", 8),
        [
            "SecurityAccess 0x27 level 0x11 on the BCM: key = seed XOR {v}, then rotate left 3",
            "seed/key secret constant for the gateway ECU programming session: {v}",
            "UDS unlock for tcu gen2: mask {v} (from the supplier, NDA)",
        ],
    )
    S(
        "immobilizer_pin_code",
        lambda r: _s(r, DG, 4),
        [
            "key programming for van HH-FL 211: immobilizer PIN {v}",
            "Wegfahrsperre PIN für den Sprinter (FIN endet 8832): {v}",
            "PIN to Drive on the pool Model 3 is {v}",
            "Dispatcher: if the driver calls locked out, the keypad code for truck 17 is {v}",
        ],
    )
    S(
        "workshop_wifi_psk",
        _human_pw,
        [
            "workshop wifi WS-Diag (for the VCI adapters): {v}",
            "wpa_passphrase WS-Diag '{v}' >> /etc/wpa_supplicant.conf",
            "WLAN Werkstatt: SSID Halle3-Diag, Schlüssel {v}",
        ],
    )
    S(
        "basic_auth_header",
        lambda r: base64.b64encode(
            (r.choice(["dispatch", "fleetapi", "cpo_sync"]) + ":" + _gen_pw(r)).encode()
        ).decode(),
        [
            "Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://dealer-api.oem.example/v2/warranty/claims",
            "header for the legacy tracker platform: Basic {v}",
        ],
    )
    S(
        "s3_presigned_ota_url",
        lambda r: _s(r, HEX, 64),
        [
            "presigned link for the tcu-4.3.0 image (valid 7d), give to the supplier: https://fw-images-prod.s3.eu-central-1.amazonaws.com/tcu-4.3.0.bin?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{a}%2F20261207%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Date=20261207T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={v}",
            "wget 'https://fw-images-prod.s3.amazonaws.com/bcm-2.1.7.hex?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{a}%2F20261207%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Date=20261207T080000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature={v}'",
            "https://fw-images-prod.s3.eu-central-1.amazonaws.com/hu-9.0.2.swu?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{a}%2F20261206%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Date=20261206T160000Z&X-Amz-Expires=259200&X-Amz-SignedHeaders=host&X-Amz-Signature={v}",
        ],
        a=lambda r: _s(r, UP + "234567", 16),
    )
    S(
        "vault_token",
        lambda r: "hvs." + _s(r, B64U, 90),
        [
            "VAULT_TOKEN={v}",
            "root-ish vault token for bootstrapping the ota signer: {v}",
            "vault login {v}",
        ],
    )
    S(
        "firebase_fcm_server_key",
        lambda r: "AAAA" + _s(r, B64U, 7) + ":APA91b" + _s(r, B64U, 134),
        [
            "driver app push (legacy FCM) server key: {v}",
            "FCM_SERVER_KEY={v}",
            "curl -H 'Authorization: key={v}' -H 'Content-Type: application/json' https://fcm.googleapis.com/fcm/send -d @push.json",
        ],
    )
    S(
        "sendgrid_api_key",
        lambda r: "SG." + _s(r, B64U, 22) + "." + _s(r, B64U, 43),
        [
            "service reminder mails go through sendgrid, key {v}",
            "SENDGRID_API_KEY={v}",
            "smtp.sendgrid.net:587 user apikey pass {v}",
        ],
    )
    S(
        "datadog_api_key",
        lambda r: _s(r, HEX, 32),
        [
            "DD_API_KEY={v}",
            "datadog api key for the ingest agents (eu site): {v}",
            "helm install dd-agent datadog/datadog --set datadog.apiKey={v} --set datadog.site=datadoghq.eu",
        ],
    )
    S(
        "npm_token",
        lambda r: "npm_" + _s(r, AN, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm publish token for @fleetco/ocpp-utils: {v}",
            "NPM_TOKEN={v}",
        ],
    )
    S(
        "openai_api_key",
        lambda r: "sk-proj-" + _s(r, B64U, 74) + "T3BlbkFJ" + _s(r, B64U, 74),
        [
            "OPENAI_API_KEY={v}",
            "the DTC-explainer bot uses key {v}",
            "llm key for the mechanic chatbot (prod project): {v}",
        ],
    )
    S(
        "prose_credential_no_keyword",
        _human_pw,
        [
            "For the Brandt dealer site just use mkoch and {v}, it works for all three branches.",
            "Ana asked how to get into the charger at the Lyon depot - it's admin and then {v}",
            "handover: night dispatch logs in as dispatch-night / {v} on the tracking console",
            "Rui: entrar no painel de rastreamento com frota / {v}",
            "Tomek mówi że do konsoli trackerów wchodzi się jako flota i {v}",
        ],
    )

    # ------------------------------------------------------------------ benign
    B(
        "vin",
        _vin,
        [
            "VIN {v} came in with a P0299 again, turbo hose clamp loose",
            "| {v} | Sprinter 316 | depot Nord | next service 120k km |",
            "FIN: {v}",
            "smartcar returned vin {v} for the pilot car, matches the registration doc",
            "09 02 -> VIN {v}",
        ],
    )
    B(
        "iccid",
        _iccid,
        [
            "tracker in van 204 has SIM ICCID {v}",
            "AT+CCID -> +CCID: {v}",
            "SIM-Karte getauscht, neue ICCID {v}",
            "iccid,{v},activated,2026-11-30",
        ],
    )
    B(
        "imei",
        _imei,
        [
            "GT06 unit IMEI {v} stopped reporting since Sat",
            "AT+GSN\n{v}\nOK",
            "imei: {v}",
            "Teltonika FMC130 {v} -> reassigned to truck 17",
        ],
    )
    B(
        "imsi",
        lambda r: "262" + r.choice(["01", "02", "07"]) + _s(r, DG, 10),
        [
            "IMSI {v} roaming on the NL network, data ok",
            "AT+CIMI -> {v}",
            "imsi={v} apn=iot.1nce.net",
        ],
    )
    B(
        "git_commit_sha",
        lambda r: _s(r, HEX, 40),
        [
            "OTA build from commit {v} is the one on the pilot fleet",
            "regression started at {v}, bisected on the bench",
            "git checkout {v} && make tcu-image",
            "fw 4.2.1 = {v}",
            "revert {v} (broke CAN wakeup on gen2)",
        ],
    )
    B(
        "firmware_sha256",
        lambda r: _s(r, HEX, 64),
        [
            "sha256(tcu-4.2.1.bin) = {v}",
            "{v}  bcm-2.1.7.hex",
            "OTA manifest target hash: {v} (length 18874368)",
            "Prüfsumme der Firmware: {v}",
        ],
    )
    B(
        "docker_image_digest",
        lambda r: "sha256:" + _s(r, HEX, 64),
        [
            "ingest image pinned to ghcr.io/fleetco/mqtt-ingest@{v}",
            "image: registry.fleetco.example/ocpp-csms@{v}",
            "digest of the rollback image: {v}",
        ],
    )
    B(
        "smartcar_vehicle_id_uuid",
        uid,
        [
            "Smartcar vehicle id for the pilot e-Golf: {v}",
            "GET https://api.smartcar.com/v2.0/vehicles/{v}/battery returned 429, backing off",
            "vehicle_id={v} owner consent expired, re-auth link sent",
            "| {v} | e-Golf | battery 71% | last sync 08:12 |",
        ],
    )
    B(
        "smartcar_client_id",
        uid,
        [
            "Smartcar client_id (public, goes in the connect URL): {v}",
            "https://connect.smartcar.com/oauth/authorize?response_type=code&client_id={v}&scope=read_vehicle_info%20read_odometer&redirect_uri=https://fleet.example-tel.io/sc/callback&mode=live",
            "SMARTCAR_CLIENT_ID={v}",
        ],
    )
    B(
        "mapbox_public_token",
        lambda r: _mapbox(r, "pk"),
        [
            "dispatcher map uses public token {v} (url-restricted to dispatch.fleetco.example)",
            "mapboxgl.accessToken = '{v}';",
            "NEXT_PUBLIC_MAPBOX_TOKEN={v}",
        ],
    )
    B(
        "stripe_publishable_key",
        lambda r: "pk_live_" + _s(r, AN, 99),
        [
            "charging payment page publishable key: {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "const stripe = Stripe('{v}');",
        ],
    )
    B(
        "recaptcha_site_key",
        lambda r: "6L" + _s(r, B64U, 38),
        [
            "dealer booking form recaptcha site key {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}  # public, the secret one is in vault",
        ],
    )
    B(
        "aws_documented_example_key",
        lambda r: "AKIAIOSFODNN7EXAMPLE",
        [
            "the docs example (AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY) is what the localstack tests use",
            "aws_access_key_id = {v}\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY  # README sample",
            "if you see {v} in a log it's the sample key from AWS docs, ignore",
        ],
    )
    B(
        "placeholder_token",
        _cyc(
            [
                "<your-token>",
                "YOUR_API_KEY_HERE",
                "<password>",
                "xxxxxxxxxxxxxxxxxxxx",
                "changeme",
                "<SMARTCAR_SECRET>",
            ]
        ),
        [
            "curl -H 'Authorization: Bearer {v}' https://fleet-api.prd.eu.example-oem.com/api/1/vehicles",
            "in .env.example: HERE_API_KEY={v}",
            "mosquitto_sub -h broker.fleet.example -u ops -P {v} -t 'fleet/#'",
            "template for new depot chargers: AuthorizationKey={v} (fill per charger)",
            "tomtom key={v}",
            "SMARTCAR_CLIENT_SECRET={v}   # fill in locally, never commit",
        ],
    )
    B(
        "env_var_reference",
        _cyc(
            [
                "${MQTT_PASSWORD}",
                "${OTA_SIGNING_KEY_PASSWORD}",
                "${MQTT_PASSWORD}",
                "$(cat /run/secrets/influx_token)",
                "${{ secrets.GH_TOKEN }}",
                "%TOMTOM_API_KEY%",
            ]
        ),
        [
            "broker password comes from {v}, don't hardcode it",
            "password: {v}",
            'mosquitto_pub -u ingest -P "{v}" -t test -m hi',
            "env: TOKEN={v}",
            "- run: gh release upload v4.2.1 tcu.bin\n  env:\n    GH_TOKEN: {v}",
            "set TOMTOM_KEY={v} on the windows dispatch pc before starting the router",
        ],
    )
    B(
        "vault_path_reference",
        _cyc(
            [
                "secret/fleet/ota/signing",
                "kv/prod/smartcar",
                "secret/data/cpo/ocpi-tokens",
                "kv/dealer/brandt",
            ]
        ),
        [
            "OTA signing passphrase is in vault at {v} - ask Jonas for the policy",
            "vault kv get -field=client_secret {v}",
            "creds moved to 1Password vault 'Fleet Ops' and to {v}; deleted them from this note",
            "Die Zugangsdaten für das Händlerportal liegen im Vault unter {v}",
        ],
    )
    B(
        "redacted_secret",
        _cyc(
            [
                "ghp_************************************",
                "rk_live_...4fQa",
                "hvs.****",
                "[REDACTED]",
                "AKIA************MPLE",
            ]
        ),
        [
            "log line showed key {v}, so redaction works now",
            "stripe dashboard: restricted key {v} (last4 only shown)",
            "token: {v}",
            "pasted curl for Ana: curl -H 'Authorization: Bearer {v}' .../vehicles (real token removed)",
            "aws key ending MPLE shown masked as {v} in the IAM console",
        ],
    )
    B(
        "masked_password",
        _cyc(["********", "**********", "••••••••", "xxxxxx"]),
        [
            "dealer portal shows password field {v}, reset link sent to werkstatt@",
            "APN_PASS={v}",
            "OCPP basic auth pw: {v} (see vault)",
            "| dealer portal | werkstatt@brandt | {v} | in 1Password |",
        ],
    )
    B(
        "ota_public_key_pem",
        _ec_pub_pem,
        [
            "OTA verification public key baked into the bootloader:\n{v}",
            "root.pub for uptane image repo (public, fine to share with supplier):\n{v}",
            "{v}",
        ],
    )
    B(
        "x509_certificate_pem",
        _cert_pem,
        [
            "AWS IoT device cert for veh-bench-07 (cert only, key stays on device):\n{v}",
            "CSMS server cert the chargers have to pin:\n{v}",
            "broker CA chain, paste into the tracker config tool:\n{v}",
        ],
    )
    B(
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, B64, 43),
        [
            "add my key to the diag gateway: {v} pedro@laptop",
            "authorized_keys on diaggw-ws2:\n{v} ci-deploy",
            "{v} werkstatt-pc3",
            "Public key für den Diagnose-Gateway-Zugang: {v} tomek@ws",
        ],
    )
    B(
        "ssh_host_key_fingerprint",
        lambda r: "SHA256:" + _s(r, B64, 43),
        [
            "diaggw-ws2 host key fingerprint {v} - verify before accepting",
            "ED25519 key fingerprint is {v}.",
            "expected fp for bastion.fleet.example: {v}",
        ],
    )
    B(
        "tls_cert_fingerprint",
        lambda r: ":".join(_s(r, "0123456789ABCDEF", 2) for _ in range(20)),
        [
            "broker cert SHA1 fingerprint {v} (pinned in tracker fw)",
            "openssl x509 -noout -fingerprint -sha1 -in csms.crt -> SHA1 Fingerprint={v}",
            "Fingerabdruck des CSMS-Zertifikats: {v}",
        ],
    )
    B(
        "public_apn_settings",
        _cyc(["iot.1nce.net", "em", "hologram", "internet.m2m"]),
        [
            "tracker APN: {v}, no user, no password",
            'AT+CGDCONT=1,"IP","{v}"',
            "SMS to tracker: APN,{v}# (public apn, user/pass empty)",
            "APN: {v} / Benutzer: leer / Passwort: leer (laut Provider-Doku)",
        ],
    )
    B(
        "documented_default_password",
        _cyc(["123456", "admin", "0000"]),
        [
            "per the TK103 manual the factory default password is {v}; we change it at install (see vault)",
            "new Alfen chargers ship with service login default '{v}' per the installer manual - checklist item: change it",
            "default SIM PIN from carrier leaflet is {v}, we disable PIN lock before install",
        ],
    )
    B(
        "dtc_codes",
        lambda r: r.choice("PCBU") + _s(r, "0123", 1) + _s(r, "0123456789ABCDEF", 3),
        [
            "truck 17 threw {v} + P0401 overnight, EGR again",
            "DTC {v} on the BCM after OTA, cleared, came back",
            "| {v} | intermittent | freeze frame saved |",
        ],
    )
    B(
        "candump_frames",
        lambda r: " ".join(_s(r, "0123456789ABCDEF", 2) for _ in range(8)),
        [
            "can0  18FEF100   [8]  {v}",
            "  (000.012345)  can1  0CF00400   [8]  {v}",
            "candump -L: (1733561000.123456) can0 7E8#{v}",
            "weird frame on id 0x3A5 when ignition off: {v}",
        ],
    )
    B(
        "uds_seed_challenge",
        lambda r: " ".join(_s(r, "0123456789ABCDEF", 2) for _ in range(4)),
        [
            "27 11 -> 67 11 {v} (seed changes every request, fine)",
            "ECU returned seed {v} then NRC 0x35 on our key, wrong algo level",
            "SecurityAccess seed: {v}",
        ],
    )
    B(
        "ecu_part_number",
        lambda r: (
            _s(r, DG, 1)
            + _s(r, UP, 1)
            + _s(r, DG, 1)
            + " "
            + _s(r, DG, 3)
            + " "
            + _s(r, DG, 3)
            + " "
            + _s(r, UP, 1)
        ),
        [
            "BCM part no {v}, sw 0420",
            "replacement gateway ordered: {v}",
            "Teilenummer Steuergerät {v}",
        ],
    )
    B(
        "charge_point_serial",
        lambda r: r.choice(["ACE", "EVB", "WBX"]) + _s(r, DG, 7),
        [
            "charger at bay 4 serial {v} keeps sending BootNotification every 60s",
            'chargePointSerialNumber: "{v}"',
            "warranty claim for wallbox SN {v}",
        ],
    )
    B(
        "evse_id",
        lambda r: "DE*" + _s(r, UP, 3) + "*E" + _s(r, DG, 7) + "*" + _s(r, DG, 1),
        [
            "EVSE ID {v} shows Faulted in the roaming hub",
            'OCPI location evse_id: "{v}"',
            "La borne {v} est hors service depuis lundi",
        ],
    )
    B(
        "emaid_contract_id",
        lambda r: "DE-" + _s(r, UP, 3) + "-C" + _s(r, DG, 8) + "-" + _s(r, UP, 1),
        [
            "driver 23 charging card contract id {v}",
            "eMAID {v} rejected at partner CPO, blocked list sync lag",
            "| {v} | fleet card | active |",
        ],
    )
    B(
        "password_policy_text",
        _cyc(["12", "16", "14", "12"]),
        [
            "Policy: dealer portal passwords min {v} chars, no reuse of last 5, rotate every 90 days.",
            "Decision: tracker SMS passwords must not be the factory default; min {v} characters where the device allows it, stored only in vault.",
            "Reminder for mechanics: never write the portal password on the VCI laptop; {v}+ chars, use the password manager.",
            "Regel: OTA-Signierschlüssel nur im HSM, Passphrasen mindestens {v} Zeichen, niemals in Tickets oder Chat.",
        ],
    )
    B(
        "stripe_test_card_number",
        _cyc(["4242 4242 4242 4242", "4000 0027 6000 3184", "5555 5555 5555 4444"]),
        [
            "to test ad-hoc charging payment in staging use card {v}, any future date, any CVC",
            "stripe test card {v} triggers 3DS",
            "Testkarte {v} (Stripe-Doku)",
        ],
    )
    B(
        "revoked_token_stated_revoked",
        lambda r: "ghp_" + _s(r, AN, 36),
        [
            "{v} leaked in the CI log on Tue - REVOKED same day, new one in vault, this string is dead",
            "old PAT {v} was revoked by GitHub secret scanning, nothing to do",
            "incident 2026-11-28: token {v} rotated + revoked, audit log clean",
        ],
    )
    B(
        "ocpp_message_uuid",
        uid,
        [
            '[2,"{v}","StatusNotification",{"connectorId":1,"errorCode":"NoError","status":"Available"}]',
            "RemoteStartTransaction msg id {v} never got a CALLRESULT",
            "transaction ref {v}",
            "idempotency key {v} for the OCPI session PUT",
        ],
    )
    B(
        "w3c_traceparent",
        lambda r: "00-" + _s(r, HEX, 32) + "-" + _s(r, HEX, 16) + "-01",
        [
            "traceparent: {v}",
            "slow wake_up call, trace {v} in tempo",
            "trace id for the 502 from the OEM gateway: {v}",
        ],
    )
    B(
        "mqtt_topic_with_ids",
        lambda r: "fleet/" + _s(r, HEX, 12) + "/telemetry/" + _s(r, DG, 6),
        [
            "subscribe to {v} to see the bench unit",
            "retained msg stuck on {v}, cleared with empty payload",
            "topic: {v}",
        ],
    )
    B(
        "twilio_account_sid",
        lambda r: "AC" + _s(r, HEX, 32),
        [
            "Twilio account SID {v} (the token is in vault)",
            "TWILIO_ACCOUNT_SID={v}",
            "messages for trackers billed to {v}",
        ],
    )
    B(
        "aws_arn_and_account_id",
        lambda r: _s(r, DG, 12),
        [
            "IoT policy arn:aws:iot:eu-central-1:{v}:policy/tcu-gen3",
            "OTA bucket lives in account {v} (fleet-prod)",
            "aws sts get-caller-identity -> Account {v}",
        ],
    )
    B(
        "mac_address",
        lambda r: ":".join(_s(r, "0123456789ABCDEF", 2) for _ in range(6)),
        [
            "VCI adapter wifi MAC {v}, add to allowlist",
            "OBD BLE dongle address {v}",
            "DHCP reservation {v} -> 10.40.9.2 (diag gw)",
        ],
    )
    B(
        "npm_integrity_hash",
        lambda r: "sha512-" + _b64(r, 64),
        [
            "lockfile integrity for @fleetco/ocpp-utils changed: {v}",
            '"integrity": "{v}"',
            "expected {v} got something else, cache corrupted",
        ],
    )
    B(
        "ota_manifest_signature",
        lambda r: _b64(r, 64),
        [
            '{"signatures":[{"keyid":"'
            + "ota-root-2026"
            + '","method":"ecdsa-sha2-nistp256","sig":"{v}"}]}',
            "director metadata sig {v} failed to verify on the ECU -> clock skew",
            "signature (public, in targets.json): {v}",
        ],
    )
    B(
        "gps_coordinates",
        lambda r: f"{r.uniform(47, 55):.6f},{r.uniform(6, 15):.6f}",
        [
            "depot Nord gate at {v}",
            "last fix lat,lon {v} speed 0 ign off",
            "geofence center {v} radius 300m",
            "Fahrzeug stand zuletzt bei {v}",
        ],
    )
    B(
        "azure_connection_string_placeholder",
        _cyc(["<device-key>", "<storage-account-key>", "<shared-access-key>"]),
        [
            "HostName=fleet-hub-weu.azure-devices.net;DeviceId=tg-114;SharedAccessKey={v}",
            "template: DefaultEndpointsProtocol=https;AccountName=fleetlogsweu;AccountKey={v};EndpointSuffix=core.windows.net",
            "conn string format is HostName=...;SharedAccessKeyName=service;SharedAccessKey={v}",
        ],
    )
    B(
        "k8s_secret_key_ref",
        _cyc(["mqtt-ingest-creds", "smartcar-oauth", "ocpi-tokens"]),
        [
            "env:\n- name: MQTT_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: password",
            "kubectl -n fleet describe secret {v}   # shows sizes only",
            "password comes from k8s secret {v}, key 'token'",
        ],
    )
    B(
        "license_plate",
        lambda r: "HH-" + _s(r, UP, 2) + " " + _s(r, DG, 3),
        [
            "{v} towed to workshop 2, brake caliper stuck",
            "dispatcher: swap {v} with the spare van for route 14",
            "Kennzeichen {v} Reifenwechsel erledigt",
        ],
    )
    B(
        "semver_and_build_number",
        lambda r: (
            f"{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 30)}+b{r.randint(1000, 9999)}"
        ),
        [
            "OTA campaign 'winter' ships tcu {v} to 40% of vans",
            "bench unit on {v}, ok",
            "rollback target: {v}",
        ],
    )
    B(
        "firebase_web_api_key",
        lambda r: "AIzaSy" + _s(r, B64U, 33),
        [
            'driver web app firebase config (public by design, security via rules): apiKey: "{v}", authDomain: "fleet-driver.firebaseapp.com"',
            "const firebaseConfig = { apiKey: '{v}', projectId: 'fleet-driver', appId: '1:{a}:web:{b}' };",
            "firebase web apiKey {v} is in the public bundle, that's fine - it's an identifier, not a credential",
        ],
        a=lambda r: _s(r, DG, 12),
        b=lambda r: _s(r, HEX, 22),
    )
    B(
        "aws_iot_endpoint",
        lambda r: _s(r, LO + DG, 14) + "-ats.iot.eu-central-1.amazonaws.com",
        [
            "IoT data endpoint for the TCUs: {v}",
            "aws iot describe-endpoint --endpoint-type iot:Data-ATS -> {v}",
            "mqtt_host={v}\nmqtt_port=8883",
        ],
    )
    B(
        "tachograph_card_number",
        lambda r: "DE" + _s(r, DG, 12) + _s(r, DG, 2),
        [
            "driver 23 tacho card {v}, expires 2027-05",
            "Fahrerkarte {v} Daten heruntergeladen",
            "| driver 31 | card {v} | download ok |",
        ],
    )
    B(
        "tuf_key_id",
        lambda r: _s(r, HEX, 64),
        [
            "uptane root keyid {v} (public key id, not the key)",
            '"keyids": ["{v}"]',
            "targets role now signed by keyid {v} after rotation",
        ],
    )
    B(
        "obd_pid_response",
        lambda r: "41 0C " + _s(r, "0123456789ABCDEF", 2) + " " + _s(r, "0123456789ABCDEF", 2),
        [
            "ELM327: 010C -> {v}",
            "rpm pid reply {v}, looks sane",
            "odpowiedź ECU na 010C: {v}",
        ],
    )
    B(
        "work_order_number",
        lambda r: "WO-" + _s(r, DG, 6),
        [
            "{v}: replace 12V battery on van 204, done",
            "Auftrag {v} Bremsbeläge VA, Fahrer informiert",
            "dispatcher ref {v} - tow to workshop 2",
        ],
    )
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

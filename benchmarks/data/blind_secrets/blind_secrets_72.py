# ruff: noqa: E501
"""Blind secret-detector corpus 72: construction site and project IT.

Brief: memory notes of a construction company's site and project IT (Procore and Autodesk Construction Cloud / BIM 360 integrations, site cameras and time-lapse, drone surveys and RTK/NTRIP, gate access and badge systems, plant telematics, site Wi-Fi and LTE routers, estimating and ERP tools, foremen and PM notes, some in Spanish or Polish) with live secrets and look-alikes that are not secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_72.py [out.jsonl]

Kinds, secret: procore_client_secret, procore_access_token, procore_refresh_token, procore_user_password, aps_client_secret, aps_access_token, acc_webhook_secret, aws_secret_access_key, azure_storage_connection_string, entra_client_secret, gcp_service_account_key, slack_webhook_url, teams_webhook_url, twilio_auth_token, sendgrid_api_key, github_pat, anthropic_api_key, site_wifi_psk, lte_router_admin_password, cradlepoint_ecm_api_key, ip_camera_rtsp_credentials, timelapse_ftp_credentials, camera_portal_password, gate_keypad_code, key_lockbox_code, alarm_panel_code, brivo_api_key, access_control_db_password, aemp_basic_auth_header, samsara_api_token, deere_client_secret, geotab_password, ntrip_caster_credentials, dronedeploy_api_key, erp_sql_connection_string, erp_user_password, hcss_client_secret, postgres_url_password, openssh_private_key, rsa_private_key_pem, wireguard_private_key, ipsec_psk, snmpv3_auth_password, smtp_password, stripe_secret_key, dropbox_access_token, mapbox_secret_token, unifi_controller_password, docker_hub_pat, trailer_pc_admin_password
Kinds, benign: git_commit_sha, firmware_sha256, procore_project_id, acc_project_guid, autodesk_urn, device_serial_number, mac_address, router_imei, sim_iccid, equipment_pin_serial, badge_card_number, placeholder_token, placeholder_password_changeme, env_var_reference, vault_reference, masked_value, redacted_value, aws_documented_example_key, stripe_publishable_key, mapbox_public_token, recaptcha_site_key, wireguard_public_key, ssh_public_key, x509_certificate_pem, ssh_host_key_fingerprint, tls_cert_fingerprint, password_policy_text, twilio_account_sid, azure_app_client_id, aps_client_id_alone, revoked_token_stated_revoked, job_and_cost_codes, docker_image_digest, wifi_ssid_name, url_without_credentials, bcrypt_hash, jwt_io_documented_example, slack_webhook_placeholder, ntrip_mountpoint_no_creds, request_trace_id, autodesk_license_serial, drone_flight_record_id, gps_survey_coordinates, concrete_ticket_number
"""

import base64
import json
import random
import sys
import uuid

SEED = 7272

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DG = "0123456789"
HEX = "0123456789abcdef"
AN = UP + LO + DG
B64 = AN + "+/"
B64U = AN + "-_"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def s(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n):
        return s(HEX, n)

    def rb(n):
        return bytes(rng.getrandbits(8) for _ in range(n))

    def b64b(n):
        return base64.b64encode(rb(n)).decode()

    def b64u_nopad(raw):
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def guid():
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    words = [
        "Concrete",
        "Rebar",
        "Crane",
        "Excavator",
        "Hormigon",
        "Budowa",
        "Grua",
        "Beton",
        "Scaffold",
        "Formwork",
        "Tower",
        "Dozer",
        "Loader",
        "Andamio",
        "Zbrojenie",
        "Piling",
        "Hardhat",
        "Trailer",
        "Bobcat",
        "Asphalt",
    ]
    syms = "!#$%&*@?_."

    def pw_human():
        w = rng.choice(words)
        if rng.random() < 0.4:
            w = w + rng.choice(words).lower()
        return w + str(rng.randint(1, 2030)) + rng.choice(syms)

    def pw_gen(n=None):
        n = n or rng.randint(14, 22)
        while True:
            p = s(AN + "!#%*-_+=", n)
            if any(c in DG for c in p) and any(c in UP for c in p) and any(c in LO for c in p):
                return p

    def pin(n):
        return str(rng.randint(1, 9)) + s(DG, n - 1)

    def jwt(alg="RS256", siglen=342, extra=None):
        hdr = b64u_nopad(
            json.dumps({"alg": alg, "typ": "JWT", "kid": hx(16)}, separators=(",", ":")).encode()
        )
        body = {
            "sub": guid(),
            "iat": 1790000000 + rng.randint(0, 9999999),
            "scope": "data:read data:write",
        }
        body["exp"] = body["iat"] + 3600
        if extra:
            body.update(extra)
        pay = b64u_nopad(json.dumps(body, separators=(",", ":")).encode())
        return hdr + "." + pay + "." + s(B64U, siglen)

    def wrap(b, w=64):
        return "\n".join(b[i : i + w] for i in range(0, len(b), w))

    def pem_rsa():
        body = base64.b64encode(bytes.fromhex("308204a40201000282010100") + rb(1180)).decode()
        return "-----BEGIN RSA PRIVATE KEY-----\n" + wrap(body) + "\n-----END RSA PRIVATE KEY-----"

    def pem_pkcs8():
        body = base64.b64encode(
            bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7") + rb(1190)
        ).decode()
        return "-----BEGIN PRIVATE KEY-----\n" + wrap(body) + "\n-----END PRIVATE KEY-----"

    def pem_openssh():
        raw = (
            b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519"
            + rb(300)
        )
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + wrap(base64.b64encode(raw).decode(), 70)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def pem_cert():
        body = base64.b64encode(bytes.fromhex("308203") + rb(760)).decode()
        return "-----BEGIN CERTIFICATE-----\n" + wrap(body) + "\n-----END CERTIFICATE-----"

    def entra_secret():
        return s(AN, 3) + "8Q~" + s(AN + "~._-", 34)

    def b64_basic(u, p):
        return base64.b64encode((u + ":" + p).encode()).decode()

    # ---- generators: return dict with 'v' (the value) and optional extra fields a, b ----
    G = {}
    G["procore_client_secret"] = lambda: {"v": hx(64), "a": hx(64)}
    G["procore_access_token"] = lambda: {"v": jwt("ES512", 176, {"aud": "procore", "cid": hx(24)})}
    G["procore_refresh_token"] = lambda: {"v": hx(64)}
    G["procore_user_password"] = lambda: {"v": pw_human()}
    G["aps_client_secret"] = lambda: {"v": s(AN, 16), "a": s(AN, 32)}
    G["aps_access_token"] = lambda: {
        "v": jwt("RS256", 342, {"client_id": s(AN, 32), "aud": "https://autodesk.com"})
    }
    G["acc_webhook_secret"] = lambda: {"v": s(AN, 40)}
    G["aws_secret_access_key"] = lambda: {"v": s(B64, 40), "a": "AKIA" + s(UP + "234567", 16)}
    G["azure_storage_connection_string"] = lambda: {"v": b64b(64)}
    G["entra_client_secret"] = lambda: {"v": entra_secret(), "a": guid()}
    G["gcp_service_account_key"] = lambda: {
        "v": pem_pkcs8(),
        "a": hx(40),
        "b": str(rng.randint(10**20, 10**21 - 1)),
    }
    G["slack_webhook_url"] = lambda: {
        "v": "https://hooks.slack.com/services/T"
        + s(UP + DG, 10)
        + "/B"
        + s(UP + DG, 10)
        + "/"
        + s(AN, 24)
    }
    G["teams_webhook_url"] = lambda: {
        "v": "https://contoso-build.webhook.office.com/webhookb2/"
        + guid()
        + "@"
        + guid()
        + "/IncomingWebhook/"
        + hx(32)
        + "/"
        + guid()
        + "/V2"
        + s(AN, 43)
    }
    G["twilio_auth_token"] = lambda: {"v": hx(32), "a": "AC" + hx(32)}
    G["sendgrid_api_key"] = lambda: {"v": "SG." + s(B64U, 22) + "." + s(B64U, 43)}
    G["github_pat"] = lambda: {
        "v": rng.choice(["ghp_" + s(AN, 36), "github_pat_11" + s(UP + DG, 20) + "_" + s(AN, 59)])
    }
    G["anthropic_api_key"] = lambda: {"v": "sk-ant-api03-" + s(B64U, 93) + "AA"}
    G["site_wifi_psk"] = lambda: {
        "v": rng.choice([pw_human(), pw_gen(12), rng.choice(words).lower() + pin(4)])
    }
    G["lte_router_admin_password"] = lambda: {"v": rng.choice([pw_human(), pw_gen(16)])}
    G["cradlepoint_ecm_api_key"] = lambda: {"v": hx(40), "a": hx(8)}
    G["ip_camera_rtsp_credentials"] = lambda: {"v": rng.choice([pw_human(), pw_gen(12)])}
    G["timelapse_ftp_credentials"] = lambda: {"v": pw_gen(14)}
    G["camera_portal_password"] = lambda: {"v": pw_human()}
    G["gate_keypad_code"] = lambda: {"v": pin(rng.choice([4, 5, 6]))}
    G["key_lockbox_code"] = lambda: {"v": pin(4)}
    G["alarm_panel_code"] = lambda: {"v": pin(rng.choice([4, 6]))}
    G["brivo_api_key"] = lambda: {"v": s(AN, 32), "a": pw_gen(18)}
    G["access_control_db_password"] = lambda: {"v": pw_gen(18)}
    G["aemp_basic_auth_header"] = lambda: {"v": b64_basic("svc_fleet" + s(DG, 2), pw_human())}
    G["samsara_api_token"] = lambda: {"v": "samsara_api_" + s(AN, 30)}
    G["deere_client_secret"] = lambda: {"v": s(B64U, 64), "a": "0oa" + s(AN, 17)}
    G["geotab_password"] = lambda: {"v": pw_human()}
    G["ntrip_caster_credentials"] = lambda: {"v": rng.choice([pw_gen(10), pw_human()])}
    G["dronedeploy_api_key"] = lambda: {"v": hx(32)}
    G["erp_sql_connection_string"] = lambda: {"v": pw_gen(20)}
    G["erp_user_password"] = lambda: {"v": pw_human()}
    G["hcss_client_secret"] = lambda: {"v": s(AN, 48), "a": guid()}
    G["postgres_url_password"] = lambda: {"v": pw_gen(24)}
    G["openssh_private_key"] = lambda: {"v": pem_openssh()}
    G["rsa_private_key_pem"] = lambda: {"v": pem_rsa()}
    G["wireguard_private_key"] = lambda: {"v": b64b(32), "a": b64b(32)}
    G["ipsec_psk"] = lambda: {"v": pw_gen(32)}
    G["snmpv3_auth_password"] = lambda: {"v": pw_gen(16)}
    G["smtp_password"] = lambda: {"v": rng.choice([pw_human(), s(LO, 16)])}
    G["stripe_secret_key"] = lambda: {"v": "sk_live_51" + s(AN, 97)}
    G["dropbox_access_token"] = lambda: {"v": "sl.B" + s(B64U, 135)}
    G["mapbox_secret_token"] = lambda: {
        "v": "sk.eyJ1IjoiYWNtZWJ1aWxkIiwiYSI6I" + s(AN, 22) + "." + s(B64U, 22)
    }
    G["unifi_controller_password"] = lambda: {"v": pw_human()}
    G["docker_hub_pat"] = lambda: {"v": "dckr_pat_" + s(B64U, 27)}
    G["trailer_pc_admin_password"] = lambda: {"v": pw_human()}

    T = {}
    T["procore_client_secret"] = [
        "Procore app 'SiteSync' (DMSA) creds for prod:\nclient_id={a}\nclient_secret={v}",
        "PROCORE_CLIENT_ID={a}\nPROCORE_CLIENT_SECRET={v}",
        "curl -X POST https://login.procore.com/oauth/token -d grant_type=client_credentials -d client_id={a} -d client_secret={v}",
        "fyi the procore secret for the daily-log sync is {v} , id is {a}. dont paste in teams pls",
        "| procore | sitesync-prod | {a} | {v} |",
    ]
    T["procore_access_token"] = [
        "curl -H 'Authorization: Bearer {v}' https://api.procore.com/rest/v1.0/projects?company_id=562949953421",
        "procore token that works for testing the RFI webhook (valid till friday):\n{v}",
        'headers = {"Authorization": "Bearer {v}", "Procore-Company-Id": "562949953421"}',
        "Token de Procore para la obra Torre Norte, pegalo en Postman: {v}",
    ]
    T["procore_refresh_token"] = [
        "refresh_token for the procore integration user (don't lose, 3-legged flow is a pain): {v}",
        "procore.refresh_token = {v}",
        '{"access_token_expires_in": 5400, "refresh_token": "{v}", "token_type": "bearer"}',
        "PROCORE_REFRESH_TOKEN={v}",
    ]
    T["procore_user_password"] = [
        "Mike's procore login is mike.doran@acmebuild.com / {v} - he asked me to upload the daily logs for him this week",
        "procore pw for the shared superintendent acct (super.eastside@acmebuild.com): {v}",
        "Hasło do Procore dla brygadzisty (konto brygada.wola@acmebuild.pl): {v}",
        "La contraseña de Procore del capataz es {v}, usuario capataz.sur@acmebuild.com",
        "procore: super.eastside / {v}",
    ]
    T["aps_client_secret"] = [
        "APS (Forge) app for the ACC model checker\nAPS_CLIENT_ID={a}\nAPS_CLIENT_SECRET={v}",
        "curl -X POST https://developer.api.autodesk.com/authentication/v2/token -u {a}:{v} -d grant_type=client_credentials -d scope=data:read",
        "Autodesk app 'bim-clash-export' -> key {a} secret {v}",
        "set the secret in the ACC connector to {v} (client id {a}), old one rotated",
        "aps:\n  client_id: {a}\n  client_secret: {v}",
    ]
    T["aps_access_token"] = [
        "Authorization: Bearer {v}",
        "3-legged ACC token from the PM's account, use for the sheets export tonight:\n{v}",
        'curl https://developer.api.autodesk.com/construction/issues/v1/projects/x/issues -H "Authorization: Bearer {v}"',
        "BIM360_TOKEN={v}",
    ]
    T["acc_webhook_secret"] = [
        "ACC webhook (dm.version.added) hook secret: {v} - we verify x-adsk-signature with it",
        "WEBHOOK_SECRET={v}",
        '"hookAttribute": {"secret": "{v}"}',
        "the signing secret for the autodesk hooks is {v}",
    ]
    T["aws_secret_access_key"] = [
        "drone uploads bucket (s3://acme-drone-surveys) creds\naws_access_key_id = {a}\naws_secret_access_key = {v}",
        "AWS_ACCESS_KEY_ID={a} AWS_SECRET_ACCESS_KEY={v} aws s3 sync ./orthos s3://acme-drone-surveys/2026/",
        "IAM user svc-timelapse: {a} / {v}",
        "secret key for the survey bucket user is {v} (key id {a})",
        "| svc-drone | {a} | {v} | active |",
    ]
    T["azure_storage_connection_string"] = [
        "DefaultEndpointsProtocol=https;AccountName=acmetimelapse;AccountKey={v};EndpointSuffix=core.windows.net",
        "time-lapse archive storage key (key1): {v}",
        "az storage blob upload-batch -d frames -s ./out --account-name acmetimelapse --account-key {v}",
        'AZURE_STORAGE_KEY="{v}"',
    ]
    T["entra_client_secret"] = [
        "SharePoint sync app reg (Procore docs -> SP). tenant acmebuild.onmicrosoft.com, app id {a}, secret value {v} (exp 2027-06)",
        "AZURE_CLIENT_ID={a}\nAZURE_CLIENT_SECRET={v}",
        "Connect-MgGraph -ClientSecretCredential (New-Object PSCredential('{a}', (ConvertTo-SecureString '{v}' -AsPlainText -Force)))",
        "new client secret for the estimating->ERP graph app: {v}",
    ]
    T["gcp_service_account_key"] = [
        '{\n  "type": "service_account",\n  "project_id": "acme-site-analytics",\n  "private_key_id": "{a}",\n  "private_key": "{v}",\n  "client_email": "timelapse-ai@acme-site-analytics.iam.gserviceaccount.com",\n  "client_id": "{b}"\n}',
        "key for the camera-AI service acct (acme-site-analytics), paste into /etc/ppe-detect/sa.json:\n{v}",
        "private_key for timelapse-ai@acme-site-analytics.iam.gserviceaccount.com (key id {a}):\n{v}",
    ]
    T["slack_webhook_url"] = [
        "#site-alerts webhook: {v}",
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Gate 3 offline\"}' {v}",
        "SLACK_WEBHOOK_URL={v}",
        "camera offline alerts post to {v}",
    ]
    T["teams_webhook_url"] = [
        "Teams incoming webhook for the 'Torre Norte - Site' channel: {v}",
        "TEAMS_WEBHOOK={v}",
        "Invoke-RestMethod -Method Post -Uri '{v}' -Body $json -ContentType 'application/json'",
    ]
    T["twilio_auth_token"] = [
        "gate intercom SMS (Twilio) - SID {a} token {v}",
        "TWILIO_ACCOUNT_SID={a}\nTWILIO_AUTH_TOKEN={v}",
        "curl -u {a}:{v} https://api.twilio.com/2010-04-01/Accounts/{a}/Messages.json",
        "twilio auth token for the visitor-check-in kiosk: {v}",
    ]
    T["sendgrid_api_key"] = [
        "daily report emails go via sendgrid, key {v}",
        "SENDGRID_API_KEY={v}",
        "smtp.sendgrid.net:587 user 'apikey' pass {v}",
        "Authorization: Bearer {v}",
    ]
    T["github_pat"] = [
        "PAT for pulling the takeoff-scripts repo on the estimating box: {v}",
        "git clone https://estim-bot:{v}@github.com/acmebuild/takeoff-scripts.git",
        "GH_TOKEN={v}",
        "export GITHUB_TOKEN={v} && gh release download -R acmebuild/site-agent",
    ]
    T["anthropic_api_key"] = [
        "ANTHROPIC_API_KEY={v}",
        "key for the RFI-summarizer agent: {v}",
        "curl https://api.anthropic.com/v1/messages -H \"x-api-key: {v}\" -H 'anthropic-version: 2023-06-01'",
    ]
    T["site_wifi_psk"] = [
        "Wi-Fi at the Eastside trailer: SSID ACME-SITE-EAST, pw {v}",
        "La clave del wifi de la obra (red OBRA-NORTE) es {v}",
        "Hasło do wifi na budowie Wola (sieć BUDOWA-WOLA): {v}",
        "guest wifi for subs this month -> {v}",
        'wpa_passphrase="{v}"',
        "site wifi\n{v}",
    ]
    T["lte_router_admin_password"] = [
        "Teltonika RUT955 at gate 2, web UI https://192.168.1.1 admin / {v}",
        "Cradlepoint IBR900 (trailer A) local admin pw: {v}",
        "Router LTE w kontenerze - login admin, hasło {v}",
        "Peplink MAX BR1 en la caseta: usuario admin contraseña {v}",
        "ssh root@192.168.1.1  # pw {v}",
    ]
    T["cradlepoint_ecm_api_key"] = [
        "NetCloud API: X-CP-API-ID: {a} X-CP-API-KEY: {v}",
        "curl -H 'X-ECM-API-ID: {a}' -H 'X-ECM-API-KEY: {v}' https://www.cradlepointecm.com/api/v2/routers/",
        "CP_ECM_API_KEY={v}",
        "ecm api key for router status dashboard is {v}",
    ]
    T["ip_camera_rtsp_credentials"] = [
        "rtsp://admin:{v}@10.20.4.31:554/Streaming/Channels/101",
        "Hikvision cams on crane 1 and 2: user admin pass {v}",
        "Axis Q6135 at the north gate, root pw {v}",
        "Cámara PTZ de la grúa: admin / {v}",
        "ffmpeg -rtsp_transport tcp -i 'rtsp://viewer:{v}@10.20.4.32/axis-media/media.amp' -frames:v 1 snap.jpg",
    ]
    T["timelapse_ftp_credentials"] = [
        "time-lapse cam uploads to ftp://tl-upload:{v}@ftp.acmebuild.com/eastside/",
        "FTP for the Brinno/Enlaps frames: host ftp.acmebuild.com user tl-upload pass {v}",
        "lftp -u tl-upload,{v} sftp://files.acmebuild.com",
        "timelapse ftp pw changed to {v}",
    ]
    T["camera_portal_password"] = [
        "EarthCam control center login: pm.torrenorte@acmebuild.com {v}",
        "OxBlue login for the owner's rep (he'll ask): owner.rep@clientco.com / {v}",
        "Sensera portal - sitecams@acmebuild.com pw {v}",
        "Hasło do portalu kamer (EarthCam) dla kierownika: {v}",
    ]
    T["gate_keypad_code"] = [
        "Gate code for the Eastside laydown yard is {v}#",
        "Código del portón de la obra: {v}",
        "Kod do bramy na budowie Wola: {v}",
        "new gate code from monday {v} (old one given to the fired sub)",
        "north gate keypad\n{v}",
    ]
    T["key_lockbox_code"] = [
        "keys for the excavator are in the lockbox on the conex, combo {v}",
        "key safe at trailer door -> {v}",
        "Las llaves de la retro estan en la caja, combinación {v}",
        "Klucze do koparki w sejfie przy kontenerze, kod {v}",
    ]
    T["alarm_panel_code"] = [
        "site office alarm (DSC panel) disarm code {v}",
        "alarm code for the tool conex: {v}, call ADT if it trips",
        "Código de la alarma de la caseta: {v}",
        "Kod alarmu w biurze budowy: {v}",
    ]
    T["brivo_api_key"] = [
        "Brivo API for badge sync from HR: api-key {v}, client secret {a}",
        "curl -H 'api-key: {v}' https://api.brivo.com/v1/api/users",
        "BRIVO_API_KEY={v}",
        "brivo key for the turnstile integration is {v}",
    ]
    T["access_control_db_password"] = [
        "Genetec Directory SQL: Server=ACS-SQL01\\SQLEXPRESS;Database=Directory;User Id=sa;Password={v};",
        "Lenel OnGuard DB sa password {v}",
        "badge system sql creds -> sa / {v}",
        "sqlcmd -S ACS-SQL01 -U sa -P '{v}' -Q \"select count(*) from Cardholder\"",
    ]
    T["aemp_basic_auth_header"] = [
        "AEMP 2.0 (ISO 15143-3) feed from the dealer: GET https://aemp.dealer.example/Fleet/1 with Authorization: Basic {v}",
        "Authorization: Basic {v}",
        "curl -H 'Authorization: Basic {v}' https://aemp.dealer.example/Fleet/1/Equipment",
        "basic auth header for the Komatsu feed is Basic {v}",
    ]
    T["samsara_api_token"] = [
        "Samsara token for pulling pickup GPS: {v}",
        "curl -H 'Authorization: Bearer {v}' https://api.samsara.com/fleet/vehicles/locations",
        "SAMSARA_API_TOKEN={v}",
    ]
    T["deere_client_secret"] = [
        "John Deere Ops Center app (JDLink): client id {a} secret {v}",
        "DEERE_CLIENT_ID={a}\nDEERE_CLIENT_SECRET={v}",
        "curl -u {a}:{v} -d grant_type=client_credentials https://signin.johndeere.com/oauth2/aus78tnlaysMraFhC1t7/v1/token",
    ]
    T["geotab_password"] = [
        "MyGeotab: database acme_fleet, user fleet-api@acmebuild.com, password {v}",
        "geotab api login fleet-api@acmebuild.com pw {v}",
        "api.authenticate('fleet-api@acmebuild.com', '{v}', 'acme_fleet')",
    ]
    T["ntrip_caster_credentials"] = [
        "RTK corrections for the dozer GPS: ntrip://acme_survey:{v}@rtk.caster.example:2101/VRS_RTCM32",
        "NTRIP caster rtk.caster.example:2101 mount VRS_RTCM32 user acme_survey pass {v}",
        "Trimble SiteWorks NTRIP login: acme_survey / {v}",
        "Poprawki RTK dla drona: login acme_survey, hasło {v}",
        "str2str -in ntrip://acme_survey:{v}@rtk.caster.example:2101/VRS_RTCM32 -out tcpsvr://:9000",
    ]
    T["dronedeploy_api_key"] = [
        "DroneDeploy API key (for the ortho -> ACC push): {v}",
        "DRONEDEPLOY_API_KEY={v}",
        "curl 'https://public-api.dronedeploy.com/v2/plans?api_key={v}'",
        "dronedeploy key is {v}",
    ]
    T["erp_sql_connection_string"] = [
        "Viewpoint Vista: Server=VPSQL02;Database=Viewpoint;User ID=vp_report;Password={v};TrustServerCertificate=True",
        "CMIC_DB_URL=jdbc:oracle:thin:cmic_ro/{v}@cmicdb01:1521/CMICPRD",
        "Spectrum ODBC DSN 'SpectrumData' uid=spec_ro pwd={v}",
        "sql login for job cost reports -> vp_report / {v}",
    ]
    T["erp_user_password"] = [
        "Sage 300 CRE login for AP clerk while Linda is out: lkowalski / {v}",
        "CMiC login for the PM on Torre Norte: jramos pw {v}",
        "Hasło do Sage (księgowość) dla Ani: {v}",
        "ProEst shared estimator account estimating@acmebuild.com, pw {v}",
        "B2W Estimate admin pw {v}",
    ]
    T["hcss_client_secret"] = [
        "HCSS HeavyJob API: client_id {a}, client_secret {v}, scope heavyjob:read timecards:read",
        "HCSS_CLIENT_SECRET={v}",
        "curl -X POST https://api.hcssapps.com/identity/connect/token -d client_id={a} -d client_secret={v} -d grant_type=client_credentials",
    ]
    T["postgres_url_password"] = [
        "DATABASE_URL=postgres://dash:{v}@db.site-dash.internal:5432/telemetry",
        "psql 'postgresql://dash:{v}@db.site-dash.internal/telemetry?sslmode=require'",
        "telemetry db user dash pw {v}",
        "site dashboard db -> dash / {v}",
    ]
    T["openssh_private_key"] = [
        "ssh key for the edge box in the Eastside trailer (user pi):\n{v}",
        "deploy key for takeoff-scripts:\n{v}",
        "{v}",
    ]
    T["rsa_private_key_pem"] = [
        "private key for gate-controller.acmebuild.com TLS:\n{v}",
        "key.pem for the badge reader API client cert:\n{v}",
        "{v}",
    ]
    T["wireguard_private_key"] = [
        "[Interface]\nPrivateKey = {v}\nAddress = 10.99.0.12/32\n\n[Peer]\nPublicKey = {a}\nEndpoint = vpn.acmebuild.com:51820",
        "wg privkey for the Wola trailer router: {v}",
        "wg set wg0 private-key <(echo {v})",
    ]
    T["ipsec_psk"] = [
        "site-to-HQ IPsec tunnel (Meraki <-> FortiGate) PSK: {v}",
        "set psksecret {v}",
        "VPN psk del sitio Torre Norte: {v}",
        "IKEv2 PSK\n{v}",
    ]
    T["snmpv3_auth_password"] = [
        "snmpwalk -v3 -u nms -l authPriv -a SHA -A '{v}' -x AES -X '{v}' 10.20.0.1",
        "SNMPv3 user nms auth pass {v} (same for priv, yes i know)",
        "librenms snmp v3 for routers: authpass {v}",
    ]
    T["smtp_password"] = [
        "camera NVR email alerts: smtp.office365.com:587 alerts@acmebuild.com pass {v}",
        "SMTP_PASSWORD={v}",
        "app password for the scan-to-email on the trailer copier: {v}",
        "Konto SMTP do raportów dziennych: raporty@acmebuild.pl / {v}",
    ]
    T["stripe_secret_key"] = [
        "sub portal payments (Stripe live) key {v}",
        "STRIPE_SECRET_KEY={v}",
        "curl https://api.stripe.com/v1/charges -u {v}:",
    ]
    T["dropbox_access_token"] = [
        "Dropbox token for the architect's shared folder sync: {v}",
        "DROPBOX_TOKEN={v}",
        "curl -X POST https://api.dropboxapi.com/2/files/list_folder -H 'Authorization: Bearer {v}'",
    ]
    T["mapbox_secret_token"] = [
        "mapbox secret token (downloads:read, for the offline site maps build): {v}",
        "MAPBOX_DOWNLOADS_TOKEN={v}",
        "sk token for the mapbox uploads API: {v}",
    ]
    T["unifi_controller_password"] = [
        "UniFi controller (unifi.acmebuild.com) admin: netadmin / {v}",
        "unifi cloud key at Wola site, local admin pw {v}",
        "Controlador UniFi de la obra - admin {v}",
    ]
    T["docker_hub_pat"] = [
        "docker login -u acmebuild -p {v}",
        "Docker Hub PAT for pulling the site-agent image: {v}",
        "DOCKERHUB_TOKEN={v}",
    ]
    T["trailer_pc_admin_password"] = [
        "trailer PC (plan room) local admin .\\siteadmin pw {v}",
        "Hasło administratora na komputerze w kontenerze: {v}",
        "La compu de la caseta: usuario siteadmin, clave {v}",
        "plotter PC login siteadmin / {v}",
    ]

    # ---- benign look-alikes ----
    GB = {}
    TB = {}

    GB["git_commit_sha"] = lambda: {"v": hx(40)}
    TB["git_commit_sha"] = [
        "procore-sync fix for the RFI dedupe landed in {v}",
        "deployed site-agent at commit {v} to all trailer boxes",
        "git revert {v}  # broke the ACC sheet export",
        "| site-agent | v2.3.1 | {v} |",
    ]
    GB["firmware_sha256"] = lambda: {"v": hx(64)}
    TB["firmware_sha256"] = [
        "RUT955 firmware RUT9_R_00.07.06 sha256 {v} - verify before flashing",
        "sha256sum of the Axis firmware zip: {v}",
        "{v}  AXIS_Q6135_11_8_64.bin",
        "checksum cámaras Hikvision firmware: {v}",
    ]
    GB["procore_project_id"] = lambda: {"v": str(rng.randint(10**12, 10**13 - 1))}
    TB["procore_project_id"] = [
        "Torre Norte procore project id = {v}, company id 562949953421",
        "GET /rest/v1.0/projects/{v}/rfis",
        "ID projektu w Procore dla budowy Wola: {v}",
        "procore project {v} is the one for the parking deck",
    ]
    GB["acc_project_guid"] = lambda: {"v": guid()}
    TB["acc_project_guid"] = [
        "ACC project id for Eastside MOB: b.{v}",
        "hub b.{v} is the acmebuild ACC account",
        "projectId={v} (ACC Build, Torre Norte)",
        "El ID del proyecto en ACC es {v}",
    ]
    GB["autodesk_urn"] = lambda: {
        "v": b64u_nopad(
            (
                "urn:adsk.wipprod:fs.file:vf." + s(B64U, 22) + "?version=" + str(rng.randint(1, 40))
            ).encode()
        )
    }
    TB["autodesk_urn"] = [
        "model derivative URN for the coordinated NWD: {v}",
        "viewer.loadDocumentNode('urn:{v}')",
        "urn of latest structural model\n{v}",
        "translate job for urn {v} failed again, check later",
    ]
    GB["device_serial_number"] = lambda: {
        "v": rng.choice(
            ["ACCC" + s(UP + DG, 8), "DS-2DE" + s(DG, 4) + "-" + s(UP + DG, 9), "1110" + s(DG, 10)]
        )
    }
    TB["device_serial_number"] = [
        "camera on crane 2 S/N {v} - RMA'd, replacement shipped",
        "serial {v} (the router in trailer B)",
        "Número de serie de la cámara: {v}",
        "| crane-2-ptz | {v} | 10.20.4.32 |",
    ]
    GB["mac_address"] = lambda: {"v": ":".join(hx(2) for _ in range(6)).upper()}
    TB["mac_address"] = [
        "whitelist MAC {v} on the site wifi for the plotter",
        "DHCP reservation 10.20.4.40 -> {v}",
        "Adres MAC czytnika kart przy bramie: {v}",
        "badge reader at turnstile 1 mac {v}",
    ]
    GB["router_imei"] = lambda: {"v": "35" + s(DG, 13)}
    TB["router_imei"] = [
        "LTE router IMEI {v} registered with Verizon for the Eastside line",
        "IMEI: {v}",
        "carrier asked for the modem IMEI -> {v}",
    ]
    GB["sim_iccid"] = lambda: {"v": "8901" + s(DG, 15)}
    TB["sim_iccid"] = [
        "data SIM for gate 2 router ICCID {v}",
        "ICCID {v} - suspend after project closeout",
        "Karta SIM w routerze, ICCID: {v}",
    ]
    GB["equipment_pin_serial"] = lambda: {
        "v": rng.choice(
            [
                "CAT0" + s(DG, 3) + s(UP, 1) + s(UP, 3) + s(DG, 5),
                "1T0" + s(DG, 3) + s(UP, 1) + s(UP + DG, 1) + s(DG, 6) + s(UP, 1),
            ]
        )
    }
    TB["equipment_pin_serial"] = [
        "excavator #14 PIN {v}, shows in VisionLink as offline since tues",
        "unit 22 (320 GC) serial {v}",
        "Numer seryjny koparki: {v}",
        "| EX-14 | {v} | 2,341 h |",
    ]
    GB["badge_card_number"] = lambda: {
        "v": str(rng.randint(10, 250)) + ":" + str(rng.randint(1000, 65000))
    }
    TB["badge_card_number"] = [
        "new hire badge (facility:card) {v} added to group GC-LABOR",
        "lost badge {v} deactivated in Brivo",
        "Tarjeta de acceso {v} dada de baja",
        "badge {v} belongs to the electrician foreman",
    ]
    GB["placeholder_token"] = lambda: {
        "v": rng.choice(
            [
                "<your-procore-token>",
                "<YOUR_CLIENT_SECRET>",
                "YOUR_API_KEY_HERE",
                "<token>",
                "xxxxxxxxxxxxxxxxxxxxxxxx",
            ]
        )
    }
    TB["placeholder_token"] = [
        "curl -H 'Authorization: Bearer {v}' https://api.procore.com/rest/v1.0/me",
        "PROCORE_CLIENT_SECRET={v}",
        "in the template put {v} and let the PM fill it",
        "api_key: {v}",
    ]
    GB["placeholder_password_changeme"] = lambda: {
        "v": rng.choice(["changeme", "CHANGE_ME", "password", "********", "TODO"])
    }
    TB["placeholder_password_changeme"] = [
        "sample .env for the trailer box: DB_PASSWORD={v}",
        "router_admin_password: {v}  # set per site during install",
        "docs say default is {v}, we always replace it on day one",
    ]
    GB["env_var_reference"] = lambda: {
        "v": rng.choice(
            [
                "${PROCORE_CLIENT_SECRET}",
                "$APS_CLIENT_SECRET",
                "%SAGE_DB_PASSWORD%",
                "${{ secrets.DRONEDEPLOY_API_KEY }}",
                "$env:BRIVO_API_KEY",
            ]
        )
    }
    TB["env_var_reference"] = [
        "client_secret: {v}",
        "the pipeline reads the key from {v}, don't hardcode",
        "curl -u sync:{v} https://erp.acmebuild.com/api/jobs",
        "password={v}",
    ]
    GB["vault_reference"] = lambda: {
        "v": rng.choice(
            [
                "op://Site IT/Eastside gate/code",
                "vault kv get -field=psk secret/sites/wola/wifi",
                "keeper://IT/Procore DMSA",
                "az keyvault secret show --vault-name acme-kv --name aps-secret",
                "arn:aws:secretsmanager:us-east-1:"
                + s(DG, 12)
                + ":secret:procore-dmsa-"
                + s(AN, 6),
            ]
        )
    }
    TB["vault_reference"] = [
        "gate codes live in 1Password now: {v}",
        "get it with: {v}",
        "secret is at {v} (ask IT for access)",
        "Contraseña en el gestor: {v}",
    ]
    GB["masked_value"] = lambda: {
        "v": rng.choice(
            [
                "sk_live_" + "*" * 20 + s(AN, 4),
                "AKIA" + "*" * 12 + s(UP + DG, 4),
                "SG." + "•" * 10 + s(AN, 4),
                "ghp_" + "…" + s(AN, 4),
                "****" + s(DG, 4),
            ]
        )
    }
    TB["masked_value"] = [
        "the key in the Stripe dashboard shows as {v}, that's the one to roll",
        "key ending {v} is the drone bucket user",
        "audit flagged {v} in an old log",
        "klucz {v} (zamaskowany w panelu)",
    ]
    GB["redacted_value"] = lambda: {
        "v": rng.choice(
            ["[REDACTED]", "<redacted>", "***REMOVED***", "[hidden]", "(see 1Password)"]
        )
    }
    TB["redacted_value"] = [
        "procore client_secret: {v}",
        "Wi-Fi pw: {v}",
        "Gate code: {v}",
        "ntrip://acme_survey:{v}@rtk.caster.example:2101/VRS_RTCM32",
    ]
    GB["aws_documented_example_key"] = lambda: {
        "v": rng.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])
    }
    TB["aws_documented_example_key"] = [
        "from the AWS docs example, not ours: {v}",
        "unit test fixture uses {v} (AWS doc example)",
        "aws configure example in the wiki shows {v}",
    ]
    GB["stripe_publishable_key"] = lambda: {"v": "pk_live_51" + s(AN, 97)}
    TB["stripe_publishable_key"] = [
        "publishable key for the sub portal checkout page (public, goes in the JS): {v}",
        "STRIPE_PUBLISHABLE_KEY={v}",
        "Stripe.js init: Stripe('{v}')",
    ]
    GB["mapbox_public_token"] = lambda: {
        "v": "pk.eyJ1IjoiYWNtZWJ1aWxkIiwiYSI6I" + s(AN, 22) + "." + s(B64U, 22)
    }
    TB["mapbox_public_token"] = [
        "mapbox public token for the site map widget (url-restricted to acmebuild.com): {v}",
        "mapboxgl.accessToken = '{v}';",
        "NEXT_PUBLIC_MAPBOX_TOKEN={v}",
    ]
    GB["recaptcha_site_key"] = lambda: {"v": "6L" + s(B64U, 38)}
    TB["recaptcha_site_key"] = [
        "reCAPTCHA site key for the visitor sign-in form: {v}",
        '<div class="g-recaptcha" data-sitekey="{v}"></div>',
        "RECAPTCHA_SITE_KEY={v}",
    ]
    GB["wireguard_public_key"] = lambda: {"v": b64b(32)}
    TB["wireguard_public_key"] = [
        "HQ wg public key (put in trailer peer config): {v}",
        "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.99.0.0/24",
        "peer {v} = Wola trailer router",
    ]
    GB["ssh_public_key"] = lambda: {
        "v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43) + " pi@trailer-east"
    }
    TB["ssh_public_key"] = [
        "add this to authorized_keys on the edge box: {v}",
        "deploy key (public) added to GitHub: {v}",
        "{v}",
    ]
    GB["x509_certificate_pem"] = lambda: {"v": pem_cert()}
    TB["x509_certificate_pem"] = [
        "CA cert for the badge readers, import on the controller:\n{v}",
        "gate-controller.acmebuild.com public cert:\n{v}",
        "{v}",
    ]
    GB["ssh_host_key_fingerprint"] = lambda: {"v": "SHA256:" + b64b(32).rstrip("=")}
    TB["ssh_host_key_fingerprint"] = [
        "edge box host key fingerprint {v} - if ssh shows anything else stop",
        "ED25519 key fingerprint is {v}.",
        "fingerprint routera: {v}",
    ]
    GB["tls_cert_fingerprint"] = lambda: {"v": ":".join(hx(2) for _ in range(20)).upper()}
    TB["tls_cert_fingerprint"] = [
        "pin the Cradlepoint cert, SHA1 fingerprint {v}",
        "NVR self-signed cert thumbprint {v}",
        "Huella del certificado del NVR: {v}",
    ]
    GB["password_policy_text"] = lambda: {
        "v": "at least " + str(rng.randint(10, 16)) + " characters"
    }
    TB["password_policy_text"] = [
        "Policy: site router admin passwords must be {v}, unique per site, rotated at closeout.",
        "reminder from IT: Procore passwords {v} and MFA on, no sharing the super account",
        "Hasła do routerów: {v}, bez imion i nazw budów.",
        "Las contraseñas del wifi deben tener {v} y cambiarse cada mes.",
    ]
    GB["twilio_account_sid"] = lambda: {"v": "AC" + hx(32)}
    TB["twilio_account_sid"] = [
        "intercom uses twilio account {v} (sid only, token in vault)",
        "TWILIO_ACCOUNT_SID={v}",
        "Account SID {v} is the prod subaccount",
    ]
    GB["azure_app_client_id"] = lambda: {"v": guid()}
    TB["azure_app_client_id"] = [
        "SharePoint sync app registration: Application (client) ID {v}",
        "AZURE_CLIENT_ID={v}",
        "tenant id {v} (acmebuild.onmicrosoft.com)",
    ]
    GB["aps_client_id_alone"] = lambda: {"v": s(AN, 32)}
    TB["aps_client_id_alone"] = [
        "APS client id for the viewer app {v} (the secret is NOT here, it's in key vault)",
        "https://developer.api.autodesk.com/authentication/v2/authorize?response_type=code&client_id={v}&redirect_uri=https%3A%2F%2Fbim.acmebuild.com%2Fcb&scope=data:read",
        "ACC custom integration added with client id {v}",
    ]
    GB["revoked_token_stated_revoked"] = lambda: {"v": "ghp_" + s(AN, 36)}
    TB["revoked_token_stated_revoked"] = [
        "the PAT {v} leaked in the estimating repo - REVOKED on 11/3, new one in vault",
        "revoked: {v} (was on the old trailer laptop)",
        "token {v} zostal uniewazniony, nie uzywac",
    ]
    GB["job_and_cost_codes"] = lambda: {
        "v": rng.choice(
            [
                "24-" + s(DG, 4) + "-" + s(DG, 2),
                "03-" + s(DG, 4) + ".00",
                "PO-" + s(DG, 6),
                "CO-" + s(DG, 3),
            ]
        )
    }
    TB["job_and_cost_codes"] = [
        "charge the LTE router to {v}",
        "Vista job {v} closed, archive the procore project",
        "Koszt kamer na kod {v}",
        "RFI answer references {v}",
    ]
    GB["docker_image_digest"] = lambda: {"v": "sha256:" + hx(64)}
    TB["docker_image_digest"] = [
        "pinned site-agent image acmebuild/site-agent@{v}",
        "image digest {v} is the good build",
        "docker pull ghcr.io/acmebuild/ppe-detect@{v}",
    ]
    GB["wifi_ssid_name"] = lambda: {"v": "ACME-SITE-" + s(UP, 4) + s(DG, 2)}
    TB["wifi_ssid_name"] = [
        "new SSID at the parking deck job: {v} (pw from IT, not here)",
        "Red wifi de la obra: {v}",
        "ssid={v}",
    ]
    GB["url_without_credentials"] = lambda: {
        "v": "rtsp://10.20."
        + str(rng.randint(0, 254))
        + "."
        + str(rng.randint(2, 254))
        + ":554/Streaming/Channels/"
        + str(rng.choice([101, 102, 201]))
    }
    TB["url_without_credentials"] = [
        "stream for the gate cam: {v} (creds in the NVR)",
        "VLC -> {v}",
        "| gate-cam | {v} |",
    ]
    GB["bcrypt_hash"] = lambda: {"v": "$2b$12$" + s(AN + "./", 53)}
    TB["bcrypt_hash"] = [
        "kiosk admin hash in config.yaml: {v}",
        'password_hash: "{v}"',
        "the users table stores {v} for the gate kiosk user, that's bcrypt not the pw",
    ]
    GB["jwt_io_documented_example"] = lambda: {
        "v": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    }
    TB["jwt_io_documented_example"] = [
        "sample token from jwt.io for the parser unit test: {v}",
        "example JWT (jwt.io default, not real): {v}",
    ]
    GB["slack_webhook_placeholder"] = lambda: {
        "v": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
    }
    TB["slack_webhook_placeholder"] = [
        "template: SLACK_WEBHOOK_URL={v}",
        "format is {v} - real one is in the pipeline secrets",
    ]
    GB["ntrip_mountpoint_no_creds"] = lambda: {
        "v": "rtk.caster.example:2101/"
        + rng.choice(["VRS_RTCM32", "NEAR_MSM4", "RTCM3_IMAX"])
        + s(DG, 2)
    }
    TB["ntrip_mountpoint_no_creds"] = [
        "rover config: caster {v}, login per operator",
        "Punkt montowania NTRIP: {v}",
        "mountpoint {v} had outages tues am",
    ]
    GB["request_trace_id"] = lambda: {"v": rng.choice([hx(32), guid(), "req_" + s(AN, 24)])}
    TB["request_trace_id"] = [
        "Procore support ticket: 500 on the submittals endpoint, request id {v}",
        "x-request-id: {v}",
        "Autodesk support asked for the trace id -> {v}",
        "failed call, correlation id {v}",
    ]
    GB["autodesk_license_serial"] = lambda: {"v": s(DG, 3) + "-" + s(DG, 8)}
    TB["autodesk_license_serial"] = [
        "Revit 2025 seat on the estimating PC, serial {v}, product key 829Q1",
        "Numer seryjny licencji AutoCAD: {v}",
        "AEC collection serial {v} expires March",
    ]
    GB["drone_flight_record_id"] = lambda: {
        "v": "DJIFlightRecord_2026-"
        + s(DG, 2)
        + "-"
        + s(DG, 2)
        + "_["
        + s(DG, 2)
        + "-"
        + s(DG, 2)
        + "-"
        + s(DG, 2)
        + "].txt"
    }
    TB["drone_flight_record_id"] = [
        "flight log for the weekly survey: {v}",
        "upload {v} to the survey folder",
        "Registro de vuelo del dron: {v}",
    ]
    GB["gps_survey_coordinates"] = lambda: {
        "v": "N "
        + str(rng.randint(100000, 999999))
        + "."
        + s(DG, 3)
        + " E "
        + str(rng.randint(100000, 999999))
        + "."
        + s(DG, 3)
    }
    TB["gps_survey_coordinates"] = [
        "control point CP-3 {v} elev 112.45",
        "base station setup over {v}",
        "Punkt osnowy: {v}",
    ]
    GB["concrete_ticket_number"] = lambda: {"v": "T" + s(DG, 8)}
    TB["concrete_ticket_number"] = [
        'pour L4 slab, batch ticket {v}, 9 yd, slump 5"',
        "Boleta de concreto {v}",
        "ticket {v} rejected, too hot",
    ]
    extra = {
        "git_commit_sha": ["rolled the gate-kiosk back to {v}"],
        "procore_project_id": ["https://app.procore.com/{v}/project/home"],
        "acc_project_guid": ["ACC issue container id {v}"],
        "autodesk_urn": ["Derivative status for {v}: success 100%"],
        "device_serial_number": ["S/N {v} on the sticker under the NVR"],
        "mac_address": ["arp shows {v} on 10.20.4.31"],
        "router_imei": ["IMEI routera w kontenerze: {v}"],
        "sim_iccid": ["| gate-2 | RUT955 | {v} | Verizon |"],
        "equipment_pin_serial": ["Telematics not reporting for PIN {v}, dealer ticket open"],
        "badge_card_number": ["Karta dostępu {v} wydana dla podwykonawcy"],
        "placeholder_token": ["X-ECM-API-KEY: {v}", '"client_secret": "{v}"'],
        "placeholder_password_changeme": [
            "rtsp://admin:{v}@<camera-ip>/Streaming/Channels/101",
            "Hasło: {v} (do uzupełnienia przez IT)",
        ],
        "env_var_reference": [
            "Server=VPSQL02;User ID=vp_report;Password={v};",
            "WPA key comes from {v} at provisioning",
        ],
        "vault_reference": ["ntrip creds -> {v}"],
        "masked_value": ["Authorization: Bearer {v}"],
        "redacted_value": ["AccountKey={v}", "hasło do routera: {v}"],
        "stripe_publishable_key": ["key in the checkout html is {v}, that one's public"],
        "mapbox_public_token": ["public token (pk) for the drone ortho viewer {v}"],
        "recaptcha_site_key": ["site key (public) {v}, secret key is server-side only"],
        "wireguard_public_key": ["wg show -> peer: {v}"],
        "ssh_public_key": ["Klucz publiczny do dodania na serwerze: {v}"],
        "ssh_host_key_fingerprint": ["| edge-east | {v} |"],
        "tls_cert_fingerprint": ["SHA1 thumbprint of the ADFS cert {v} - expires june"],
        "password_policy_text": [
            "Onboarding checklist: ERP logins {v}, no reuse of the Procore password."
        ],
        "twilio_account_sid": ["| twilio | {v} | token: see vault |"],
        "azure_app_client_id": ["Identyfikator aplikacji (klient): {v}"],
        "aps_client_id_alone": ["APS_CLIENT_ID={v}"],
        "revoked_token_stated_revoked": [
            "old procore-sync PAT {v} - deleted in GitHub settings, confirmed 401"
        ],
        "job_and_cost_codes": ["| 2026-11-30 | {v} | LTE data overage |"],
        "docker_image_digest": ["Digest: {v}"],
        "wifi_ssid_name": ["Sieć dla podwykonawców: {v}"],
        "url_without_credentials": ["NVR channel 3 -> {v}"],
        "bcrypt_hash": ["{v}"],
        "request_trace_id": ["ACC API 429, x-ads-request-id {v}"],
        "autodesk_license_serial": ["| Civil 3D | {v} | J. Ramos |"],
        "drone_flight_record_id": ["missing log {v}, ask the pilot"],
        "gps_survey_coordinates": ["| CP-7 | {v} | 98.12 |"],
        "concrete_ticket_number": ["Wz/ticket betonu {v}, klasa C30/37"],
        "firmware_sha256": ["| RUT955 | 07.06 | {v} |"],
        "x509_certificate_pem": ["NVR https cert (public part only):\n{v}"],
    }
    for k, more in extra.items():
        TB[k] = TB[k] + more

    rows = []
    for label, gens, temps in (("secret", G, T), ("benign", GB, TB)):
        for kind in gens:
            for t in temps[kind]:
                f = gens[kind]()
                text = t
                for k in ("a", "b"):
                    if k in f:
                        text = text.replace("{" + k + "}", f[k])
                v = f["v"]
                if '"private_key": "{v}"' in text:
                    text = text.replace("{v}", v.replace("\n", "\\n"))
                    v = v.replace("\n", "\\n")
                else:
                    text = text.replace("{v}", v)
                assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
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

# ruff: noqa: E501, SIM115, UP031
"""Blind secret-detector corpus 87: city government IT (permits, 311, GIS, parking, signals, library, utility billing, police records).

Brief: notes kept by a municipal IT team and its AI coding agents -- permit and
311 case systems, ArcGIS, parking meters and enforcement handhelds, traffic
signal controllers, library and recreation booking, utility billing and the
police records interfaces -- written in English, Spanish and Korean. Secret rows
are live credentials of the vendors, devices and developer stack; benign rows
are the look-alikes such a team keeps: case, permit and parcel numbers, ids,
digests, public keys, placeholders, masked and revoked values, vault paths.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_87.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat,
gitlab_pat, slack_webhook, slack_bot_token, teams_webhook, google_chat_webhook,
stripe_secret_key, twilio_auth_token, sendgrid_api_key, google_api_key,
azure_storage_key, postgres_url, sqlserver_conn_password, oracle_password,
rsa_private_key, openssh_private_key, arcgis_api_key, arcgis_admin_password,
accela_app_secret, salesforce_consumer_secret, parking_meter_pin,
handheld_password, signal_controller_password, snmp_community, wifi_passphrase,
door_access_code, library_ils_api_key, rec_booking_password,
authorize_net_transaction_key, cjis_terminal_password, ldap_bind_password,
vpn_preshared_key, jwt_signing_secret, openai_api_key, anthropic_api_key,
npm_token, datadog_api_key, mailgun_api_key, azure_client_secret,
mfa_recovery_codes, basic_auth_url, vault_token, terraform_cloud_token,
mapbox_secret_token, alarm_panel_code, sftp_password, smtp_password,
parking_vendor_api_key, sde_password.

Kinds, benign: documented_example_key, permit_number, sr_311_number,
parcel_apn, arcgis_item_id, meter_id, citation_number, intersection_id,
library_barcode, booking_reference, utility_account_number, police_case_number,
git_commit_sha, sha256_digest, ssh_public_key, x509_certificate,
stripe_publishable_key, recaptcha_site_key, placeholder, env_var_reference,
vault_path, masked_value, redacted_value, revoked_key, build_version,
request_uuid, ga_measurement_id, mapbox_public_token, docker_image_digest,
azure_tenant_or_client_id, slack_channel_id, mac_address, ip_address,
ticket_number, password_policy, spatial_reference, s3_arn, twilio_account_sid,
phone_number, license_plate, snmp_oid, isbn, md5_checksum, package_pin,
ori_number, gpg_fingerprint, test_card_number, merchant_id, asset_tag,
bcrypt_hash, salesforce_consumer_key, keyvault_secret_name, cron_expression,
aws_access_key_id_reference, ssid_name, coordinates, oauth_redirect_uri,
public_service_url.
"""

import base64
import json
import random
import string
import sys

SEED = 8787
RNG = random.Random(SEED)

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HX = "0123456789abcdef"
B64 = AN + "+/"
URLS = AN + "-_"


def rs(n, alpha=AN):
    return "".join(RNG.choice(alpha) for _ in range(n))


def hx(n):
    return rs(n, HX)


def guid():
    return "-".join([hx(8), hx(4), "4" + hx(3), RNG.choice("89ab") + hx(3), hx(12)])


def b64bytes(n):
    return base64.b64encode(bytes(RNG.randrange(256) for _ in range(n))).decode()


def pem(label, nbytes):
    body = b64bytes(nbytes)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, "\n".join(lines), label)


ROWS = []
USED = set()


def pick(pool):
    left = [p for p in pool if p not in USED]
    v = RNG.choice(left)
    USED.add(v)
    return v


def add(label, kind, template, value):
    text = template.replace("{v}", value)
    ROWS.append({"label": label, "kind": kind, "text": text, "value": value})


def S(kind, template, value):
    add("secret", kind, template, value)


def B(kind, template, value):
    add("benign", kind, template, value)


def secrets():
    # aws secret access key
    for t in [
        "aws_secret_access_key = {v}",
        "Handover: the GIS tile bucket uploader runs as svc-gis-tiles, key AKIA"
        + rs(16, UP + DG)
        + " / secret {v} -- rotate after Maria leaves.",
        "export AWS_SECRET_ACCESS_KEY={v}  # permits-prod backup job",
        "Nota: la llave secreta de AWS para el respaldo de facturación es {v}, no la compartan por correo.",
    ]:
        S("aws_secret_access_key", t, rs(40, B64))
    # github classic pat
    for t in [
        "git clone https://x-access-token:{v}@github.com/cityofriverbend/permit-portal.git",
        "GH_TOKEN={v}",
        "agent memory: use PAT {v} for the 311-intake repo (jlee's, expires Jan)",
        "깃허브 토큰: {v} (도로교통과 신호 스크립트 저장소용)",
    ]:
        S("github_pat", t, "ghp_" + rs(36))
    for t in [
        "fine-grained token for the library-hours repo: {v}",
        '  github_token: "{v}"',
        "Token de GitHub con permisos de escritura en gis-layers: {v}",
    ]:
        S("github_fine_grained_pat", t, "github_pat_11" + rs(20, UP + DG) + "_" + rs(59))
    for t in [
        "glpat for gitlab.city.local runner registration (utility-billing): {v}",
        'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.city.local/api/v4/projects/42/pipelines',
        "CI_DEPLOY_TOKEN={v}",
        "깃랩 개인 토큰 {v} -- 경찰 RMS 인터페이스 배포용, 공유 금지",
    ]:
        S("gitlab_pat", t, "glpat-" + rs(20, URLS))
    # slack webhook
    for t in [
        "SLACK_WEBHOOK_URL={v}",
        "311 overflow alerts post to {v}",
        "  webhook: {v}  # #signals-ops",
        "Webhook de Slack para alertas de parquímetros: {v}",
    ]:
        S(
            "slack_webhook",
            t,
            "https://hooks.slack.com/services/T0"
            + rs(8, UP + DG)
            + "/B0"
            + rs(9, UP + DG)
            + "/"
            + rs(24),
        )
    for t in [
        "bot token for the permit-status bot: {v}",
        'SLACK_BOT_TOKEN="{v}"',
        "슬랙 봇 토큰 {v} 은(는) 시청 워크스페이스 전용입니다.",
    ]:
        S("slack_bot_token", t, "xoxb-" + rs(12, DG) + "-" + rs(13, DG) + "-" + rs(24))
    for t in [
        "Teams incoming webhook (Public Works > Snow Ops): {v}",
        "teams_url: {v}",
        "El conector de Teams para el equipo de Biblioteca es {v}",
    ]:
        S(
            "teams_webhook",
            t,
            "https://riverbendgov.webhook.office.com/webhookb2/"
            + guid()
            + "@"
            + guid()
            + "/IncomingWebhook/"
            + hx(32)
            + "/"
            + guid()
            + "/V2"
            + rs(43, URLS),
        )
    for t in [
        "Google Chat space for rec center bookings: {v}",
        "GCHAT_HOOK={v}",
        "구글 챗 웹훅: {v}",
    ]:
        S(
            "google_chat_webhook",
            t,
            "https://chat.googleapis.com/v1/spaces/AAAA"
            + rs(7, URLS)
            + "/messages?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&token="
            + rs(43, URLS)
            + "%3D",
        )
    # stripe
    for t in [
        "STRIPE_SECRET_KEY={v}",
        "rec booking checkout uses Stripe live key {v} (moved from the old ActiveNet gateway)",
        'stripe.api_key = "{v}"',
        "Clave secreta de Stripe (pagos de piscina y campamentos): {v}",
    ]:
        S("stripe_secret_key", t, "sk_live_51" + rs(22) + rs(75))
    for t in [
        "TWILIO_AUTH_TOKEN={v}",
        "311 SMS line: account AC" + hx(32) + ", auth token {v}",
        "트윌리오 인증 토큰 {v} (311 문자 알림)",
        'client = Client("AC' + hx(32) + '", "{v}")',
    ]:
        S("twilio_auth_token", t, hx(32))
    for t in [
        "SENDGRID_API_KEY={v}",
        "permit renewal reminder emails go out through SendGrid, key {v}",
        "Llave de SendGrid para avisos de corte de agua: {v}",
        '  sendgrid: {api_key: "{v}"}',
    ]:
        S("sendgrid_api_key", t, "SG." + rs(22, URLS) + "." + rs(43, URLS))
    for t in [
        "Geocoding fallback (server side, unrestricted!): {v}",
        "GOOGLE_MAPS_SERVER_KEY={v}",
        "구글 지오코딩 서버 키: {v} -- 제한 없음, 유출되면 과금 폭탄",
    ]:
        S("google_api_key", t, "AIza" + rs(35, URLS))
    for t in [
        "DefaultEndpointsProtocol=https;AccountName=rbcitydocs;AccountKey={v};EndpointSuffix=core.windows.net",
        "storage key for the scanned permit plans container: {v}",
        "AZURE_STORAGE_KEY={v}",
        "La cuenta de almacenamiento de grabaciones de cámaras usa la llave {v}",
    ]:
        S("azure_storage_key", t, b64bytes(64))
    for t in [
        "DATABASE_URL={v}",
        "311 reporting replica: {v}",
        'psql "{v}"',
        "주차 단속 DB 연결 문자열: {v}",
    ]:
        pw = pick(["Parking#2024!", "Riv3rb3nd_311", "gisAdmin!88", "Sn0wPlow-Route7"])
        S(
            "postgres_url",
            t,
            "postgresql://app_rw:"
            + pw
            + "@db-"
            + rs(4, LO)
            + ".city.local:5432/"
            + RNG.choice(["permits", "sr311", "enforcement", "gisdata"]),
        )
    for t in [
        "Server=rms-sql01;Database=RMS_Interface;User Id=rms_bridge;Password={v};",
        "RMS export job connection: uid=cad_reader;pwd={v}",
        "Cadena de conexión de RMS (solo lectura) contraseña: {v}",
    ]:
        S(
            "sqlserver_conn_password",
            t,
            pick(["Badge4471!Blue", "CADr3ad#2025", "P0lice_Records$9", "Dispatch!Mar26"]),
        )
    for t in [
        "CIS (utility billing Oracle) schema owner BILLING / {v}",
        "sqlplus billing_app/{v}@UBPROD",
        "수도요금 오라클 DB 비번: {v}",
    ]:
        S(
            "oracle_password",
            t,
            pick(["Water$Meter2023", "ubprod_Summer24", "Hydrant#19!x", "Ledger-77-ok"]),
        )
    for t in [
        "signal central server deploy key:\n{v}",
        "# ATMS SFTP key, do not commit\n{v}",
        "키 파일 내용 (GIS 서버 SSL 개인키):\n{v}",
    ]:
        S("rsa_private_key", t, pem("RSA PRIVATE KEY", 600))
    for t in [
        "~/.ssh/id_ed25519 on the meter-collection jump box:\n{v}",
        "Llave privada del servidor de respaldo de biblioteca:\n{v}",
    ]:
        S("openssh_private_key", t, pem("OPENSSH PRIVATE KEY", 300))
    for t in [
        "ARCGIS_API_KEY={v}",
        "public map viewer uses key {v} (scoped to basemaps + geocode, but billing is on us)",
        "ArcGIS 개발자 API 키: {v}",
        'esriConfig.apiKey = "{v}";',
    ]:
        S("arcgis_api_key", t, "AAPK" + hx(32) + rs(64, URLS))
    for t in [
        "Portal for ArcGIS primary admin: portaladmin / {v}",
        "ArcGIS Server site admin pwd is {v} (set during 11.1 upgrade)",
        "Contraseña del administrador de ArcGIS Enterprise: {v}",
    ]:
        S(
            "arcgis_admin_password",
            t,
            pick(["Esri!Parcel2024", "MapItRiver#7", "gis_Admin-2025!", "Contour$88Lines"]),
        )
    for t in [
        "ACCELA_APP_SECRET={v}",
        "Accela Construct app 1776452 secret: {v}",
        "Accela 앱 시크릿 {v} (인허가 포털 연동)",
    ]:
        S("accela_app_secret", t, hx(32))
    for t in [
        "311 Salesforce connected app consumer secret: {v}",
        "SF_CLIENT_SECRET={v}",
        "Secreto del consumidor de Salesforce (311): {v}",
    ]:
        S("salesforce_consumer_secret", t, rs(64, "0123456789ABCDEF"))
    # parking meter pins
    for t in [
        "Meter tech menu PIN for the IPS single-space meters downtown: {v}",
        "Pay stations (Flowbird) service code: {v} -- changed after the Oct coin theft",
        "PIN de técnico de parquímetros: {v}",
        "주차 미터기 관리자 PIN: {v}",
    ]:
        S("parking_meter_pin", t, rs(RNG.choice([4, 6]), DG))
    for t in [
        "Enforcement handhelds (AutoCITE) supervisor login: sup01 / {v}",
        "T2 handheld unlock password is {v}, officers keep asking",
        "Contraseña de los equipos portátiles de infracciones: {v}",
        "단속 단말기 관리자 비밀번호 {v}",
    ]:
        S(
            "handheld_password",
            t,
            pick(["Ticket2024!", "Curb#Side55", "Enforce_789", "Tow-Zone!12", "Chalk$Tire3"]),
        )
    for t in [
        "Econolite Cobalt web UI admin password at Main & 5th: {v}",
        "ASC/3 controllers, front panel security code {v}",
        "MaxTime login for signal engineers: traffic / {v}",
        "신호제어기 관리자 비밀번호: {v}",
    ]:
        S(
            "signal_controller_password",
            t,
            pick(["Gr33nWave!", "Sig#Timing2024", "7392", "Amber-Phase9", "Ped$Button44"]),
        )
    for t in [
        "snmpwalk -v2c -c {v} 10.44.12.31 1.3.6.1.4.1.1206",
        "SNMP write community for signal cabinets: {v}",
        "Comunidad SNMP de escritura (gabinetes): {v}",
    ]:
        S(
            "snmp_community",
            t,
            pick(["rb_sig_W1rite", "Traff1cRW#22", "cabinetRW_2025", "ntcipWrite!7"]),
        )
    for t in [
        "CityHall-Staff WiFi password: {v}",
        "Library staff SSID LIB-STAFF psk {v}",
        "WiFi de los centros recreativos (personal): {v}",
        "시청 직원용 와이파이 비번: {v}",
    ]:
        S(
            "wifi_passphrase",
            t,
            pick(
                [
                    "RiverbendStaff2025!",
                    "Bookworm#Stacks88",
                    "PoolDeck-Summer24",
                    "CouncilChamber!09",
                    "Garage2Level#3",
                ]
            ),
        )
    for t in [
        "Server room keypad (City Hall B1): {v}#",
        "Code for the meter shop door is {v}",
        "Código de la puerta del cuarto de servidores en la biblioteca central: {v}",
        "전산실 출입 코드: {v}",
    ]:
        S("door_access_code", t, rs(RNG.choice([4, 5, 6]), DG))
    for t in [
        "Alarm panel at the Parks yard: disarm {v}",
        "Código de la alarma del almacén de parquímetros: {v}",
        "Sub-station 3 alarm master code {v} (don't give to contractors)",
    ]:
        S("alarm_panel_code", t, rs(4, DG))
    for t in [
        "Polaris API access key for the kiosk integration: {v}",
        "POLARIS_ACCESS_SECRET={v}",
        "도서관 ILS API 키: {v}",
    ]:
        S("library_ils_api_key", t, guid().upper())
    for t in [
        "CivicRec admin login: parksadmin@riverbend.gov / {v}",
        "ActiveNet API user rec_sync password {v}",
        "Contraseña de la cuenta de reservas de parques: {v}",
    ]:
        S(
            "rec_booking_password",
            t,
            pick(["Pavilion#2025", "SoftballSpring24!", "Splash_Pad77", "Gym$Rental9"]),
        )
    for t in [
        "Authorize.Net (water bill IVR) transaction key: {v}",
        "AUTHNET_TRANSACTION_KEY={v}",
        "Clave de transacción de Authorize.Net para pagos de agua: {v}",
    ]:
        S("authorize_net_transaction_key", t, rs(16))
    for t in [
        "NCIC/CJIS terminal test account password: {v}",
        "RMS-to-state switch interface login: RBPD_IF / {v}",
        "경찰 기록 시스템 인터페이스 계정 비밀번호: {v}",
    ]:
        S(
            "cjis_terminal_password",
            t,
            pick(["Cjis!Audit2025Q3", "Warrant#Check88x", "Dispatch$Relay14", "StateSw1tch!2026"]),
        )
    for t in [
        "LDAP bind for the permit portal: CN=svc_permits,OU=Service,DC=city,DC=local / {v}",
        "ldapsearch -x -D svc_gis@city.local -w '{v}' -H ldaps://dc02.city.local",
        "Contraseña de la cuenta de servicio AD para la biblioteca: {v}",
        "AD 서비스 계정 svc_311 비밀번호 {v}",
    ]:
        S(
            "ldap_bind_password",
            t,
            pick(["Svc!Permits2024", "Bind#Gis-99", "LibAD_Sync2025", "Ad311$Svc!", "Kerb3ros#Ok"]),
        )
    for t in [
        "IPsec PSK for the meter vendor site-to-site tunnel: {v}",
        "VPN pre-shared key (signal central <-> county TMC): {v}",
        "Clave precompartida del túnel con el proveedor de multas: {v}",
    ]:
        S("vpn_preshared_key", t, rs(32, AN + "!#%"))
    for t in [
        "JWT_SECRET={v}",
        "permit portal session signing secret: {v}",
        "jwt: {secret: '{v}'}",
        "토큰 서명 시크릿 {v}",
    ]:
        S("jwt_signing_secret", t, hx(64) if RNG.random() < 0.5 else b64bytes(48))
    for t in [
        "OPENAI_API_KEY={v}",
        "agent note: the 311 triage classifier calls OpenAI with {v}",
        "Llave de OpenAI para el resumen de quejas del 311: {v}",
    ]:
        S("openai_api_key", t, "sk-proj-" + rs(74, URLS) + "T3BlbkFJ" + rs(74, URLS))
    for t in [
        "ANTHROPIC_API_KEY={v}",
        "permit plan-review summarizer key: {v}",
        "클로드 API 키: {v} (민원 요약 파일럿)",
    ]:
        S("anthropic_api_key", t, "sk-ant-api03-" + rs(93, URLS) + "AA")
    for t in [
        "//registry.npmjs.org/:_authToken={v}",
        "NPM_TOKEN={v}",
        "Token de npm para publicar @riverbend/map-widgets: {v}",
    ]:
        S("npm_token", t, "npm_" + rs(36))
    for t in [
        "DD_API_KEY={v}",
        "datadog agent on the Accela app servers: api_key: {v}",
        "데이터독 API 키 {v}",
    ]:
        S("datadog_api_key", t, hx(32))
    for t in [
        "MAILGUN_API_KEY={v}",
        "library overdue notices: mailgun key {v}",
        "Llave de Mailgun (avisos de biblioteca): {v}",
    ]:
        S("mailgun_api_key", t, hx(32) + "-" + hx(8) + "-" + hx(8))
    for t in [
        "AZURE_CLIENT_SECRET={v}",
        "App registration 'RB-GIS-Sync' client secret value: {v}",
        "Entra 앱 등록 클라이언트 시크릿: {v}",
        "Secreto de cliente de Azure (sincronización de Teams): {v}",
    ]:
        S("azure_client_secret", t, rs(3, AN) + "8Q~" + rs(34, AN + "._~-"))
    for t in [
        "MFA backup codes for the shared 311-admin Salesforce login: {v}",
        "Códigos de recuperación de la cuenta de Esri: {v}",
        "GitHub org owner recovery codes: {v}",
        "복구 코드: {v}",
    ]:
        S(
            "mfa_recovery_codes",
            t,
            " ".join(rs(5, LO + DG) + "-" + rs(5, LO + DG) for _ in range(4)),
        )
    for t in [
        "meter vendor telemetry feed: {v}",
        "curl -s {v}/api/controllers/status",
        "Feed de sensores de estacionamiento: {v}",
    ]:
        user = RNG.choice(["rbcity", "parking", "atms"])
        pw = pick(["M3terFeed!24", "Curb$ense88", "Atms_2025pw"])
        S(
            "basic_auth_url",
            t,
            "https://"
            + user
            + ":"
            + pw
            + "@"
            + RNG.choice(
                [
                    "feeds.ipsgroupinc.example.net",
                    "api.parkmobile-partner.example.com",
                    "atms.city.local",
                ]
            ),
        )
    for t in [
        "VAULT_TOKEN={v}",
        "root token from the re-init (lock it away!): {v}",
        "볼트 토큰 {v}",
    ]:
        S("vault_token", t, "hvs." + rs(90, URLS))
    for t in [
        "TF_TOKEN_app_terraform_io={v}",
        "terraform cloud team token (gis-infra): {v}",
        "Token de Terraform Cloud: {v}",
    ]:
        S("terraform_cloud_token", t, rs(14) + ".atlasv1." + rs(67))
    for t in [
        "MAPBOX_SECRET_TOKEN={v}",
        "mapbox download token (styles:write) {v}",
        "맵박스 비밀 토큰: {v}",
    ]:
        payload = (
            base64.urlsafe_b64encode(('{"u":"riverbendgis","a":"%s"}' % rs(25, LO + DG)).encode())
            .decode()
            .rstrip("=")
        )
        S("mapbox_secret_token", t, "sk." + payload + "." + rs(22, URLS))


def benign():
    for t, v in [
        (
            "AWS docs example key id: {v} -- use it in the README, not a real one",
            "AKIAIOSFODNN7EXAMPLE",
        ),
        ("example secret from the AWS guide: {v}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        (
            "Stripe's documented test key in their quickstart is {v}",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        ),
    ]:
        B("documented_example_key", t, v)
    for t in [
        "Permit {v} issued, final inspection pending",
        "Permiso {v}: revisión de planos completada",
        "인허가 번호 {v} 보완 요청",
        "Accela record {v} stuck in 'Plan Check'",
    ]:
        B("permit_number", t, RNG.choice(["BLD", "ELE", "PLM", "ROW"]) + "-2026-" + rs(6, DG))
    for t in [
        "311 case {v} (pothole, Elm St) closed",
        "Solicitud 311 {v}: luz de calle apagada",
        "민원 {v} 처리 완료",
        "dup of SR {v}",
    ]:
        B("sr_311_number", t, "SR-" + rs(8, DG))
    for t in ["APN {v} split into two lots", "Parcela {v} en zona R-2", "필지 번호 {v}"]:
        B("parcel_apn", t, rs(3, DG) + "-" + rs(3, DG) + "-" + rs(3, DG))
    for t in [
        "Zoning feature service item id: {v}",
        "https://riverbend.maps.arcgis.com/home/item.html?id={v}",
        "ID del elemento del mapa de bacheo: {v}",
    ]:
        B("arcgis_item_id", t, hx(32))
    for t in [
        "Meter {v} reporting coin jam",
        "Parquímetro {v} sin señal desde el lunes",
        "미터기 {v} 배터리 교체",
        "zone 4 pay station serial {v}",
    ]:
        B("meter_id", t, RNG.choice(["MTR-", "PS-", "SN"]) + rs(7, DG))
    for t in [
        "Citation {v} voided (signage missing)",
        "Multa {v} apelada",
        "위반 고지서 {v} 재발행",
    ]:
        B("citation_number", t, "RB" + rs(9, DG))
    for t in [
        "Controller at intersection {v} lost comms 03:12",
        "Intersección {v}: cambiar tiempos de peatón",
        "교차로 {v} 신호 시간 조정",
        "detector fault on INT {v}, phase 6",
    ]:
        B("intersection_id", t, "INT-" + rs(4, DG))
    for t in [
        "patron barcode {v} has a duplicate record",
        "Código de barras del lector {v} bloqueado por multas",
        "대출 카드 바코드 {v}",
    ]:
        B("library_barcode", t, "2" + rs(4, DG) + "00" + rs(7, DG))
    for t in [
        "Pavilion booking {v} refunded",
        "Reserva {v} para la cancha de fútbol, sábado 9am",
        "예약 번호 {v} 취소",
    ]:
        B("booking_reference", t, "RES-" + rs(6, UP + DG))
    for t in [
        "Utility account {v} on payment plan",
        "Cuenta de agua {v}: lectura estimada",
        "수도 계정 {v} 고지서 재발송",
        "acct {v} flagged for leak adjustment",
    ]:
        B("utility_account_number", t, rs(6, DG) + "-" + rs(6, DG))
    for t in [
        "RMS case {v} export failed (attachment too large)",
        "Caso policial {v} en espera de aprobación",
        "사건 번호 {v} 인터페이스 오류",
    ]:
        B("police_case_number", t, "26-" + rs(6, DG))
    for t in [
        "fixed in {v}",
        "rollback target: commit {v}",
        "커밋 {v} 에서 수정됨",
        "Corrección desplegada en {v}",
    ]:
        B("git_commit_sha", t, hx(40))
    for t in [
        "sha256 of the firmware image for the meters: {v}",
        "SHA-256 del instalador de AutoCITE: {v}",
        "checksum {v}  cobalt-fw-3.4.1.bin",
    ]:
        B("sha256_digest", t, hx(64))
    for t in [
        "authorized_keys on jump box: {v} gis-deploy",
        "Llave pública para el proveedor de señales: {v}",
        "공개키 {v}",
    ]:
        B("ssh_public_key", t, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(43, B64))
    for t in [
        "public cert for the permit portal (safe to share):\n{v}",
        "Certificado público del servidor GIS:\n{v}",
    ]:
        B("x509_certificate", t, pem("CERTIFICATE", 420))
    for t in [
        "STRIPE_PUBLISHABLE_KEY={v}",
        "rec checkout page embeds {v} (publishable, fine)",
        "Clave pública de Stripe: {v}",
    ]:
        B("stripe_publishable_key", t, "pk_live_51" + rs(22) + rs(75))
    for t in [
        "reCAPTCHA site key on the 311 form: {v}",
        'data-sitekey="{v}"',
        "Clave de sitio reCAPTCHA: {v}",
    ]:
        B("recaptcha_site_key", t, "6L" + rs(38, URLS))
    for t, v in [
        ("SENDGRID_API_KEY=<your-sendgrid-key>", "<your-sendgrid-key>"),
        ("password: {v}  # fill in from the vault", "CHANGE_ME"),
        ("ACCELA_APP_SECRET=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        ("Token: {v} (reemplazar con el valor real)", "TU_TOKEN_AQUI"),
    ]:
        B("placeholder", t, v)
    for t, v in [
        ("TWILIO_AUTH_TOKEN=${TWILIO_AUTH_TOKEN}", "${TWILIO_AUTH_TOKEN}"),
        ("password: {v}", "${{ secrets.ORACLE_BILLING_PW }}"),
        ('api_key = os.environ["ARCGIS_API_KEY"]', 'os.environ["ARCGIS_API_KEY"]'),
        ("연결 문자열은 {v} 에서 읽음", "$env:RMS_SQL_CONN"),
    ]:
        B("env_var_reference", t, v)
    for t, v in [
        ("handheld sup password lives at {v}", "secret/data/parking/handhelds/supervisor"),
        ("vault kv get {v}", "kv/signals/cobalt/admin"),
        ("La contraseña de Oracle está en {v}", "secret/utility-billing/oracle/billing_app"),
        ("비밀번호 위치: {v}", "kv/police/rms-interface"),
    ]:
        B("vault_path", t, v)
    for t in [
        "stripe key in use ends {v}",
        "Clave de Twilio: {v}",
        "GH token {v} (masked in logs)",
    ]:
        B("masked_value", t, RNG.choice(["sk_live_****", "****", "ghp_****"]) + rs(4))
    for t, v in [
        (
            "DATABASE_URL=postgresql://app_rw:[REDACTED]@db-ucxq.city.local:5432/permits",
            "[REDACTED]",
        ),
        ("log: auth ok user=rms_bridge password=******** host=rms-sql01", "********"),
        ("contraseña: {v}", "<redactado>"),
    ]:
        B("redacted_value", t, v)
    for t in [
        "REVOKED 2026-11-03: old SendGrid key {v} (leaked in a permit PDF)",
        "Llave revocada, ya no funciona: {v}",
        "폐기된 토큰 {v} - 사용 불가",
    ]:
        B("revoked_key", t, "SG." + rs(22, URLS) + "." + rs(43, URLS))
    for t in [
        "Accela upgraded to {v}",
        "versión del firmware del controlador: {v}",
        "AutoCITE 빌드 {v} 배포",
    ]:
        B(
            "build_version",
            t,
            str(RNG.randint(2, 23))
            + "."
            + str(RNG.randint(0, 9))
            + "."
            + str(RNG.randint(0, 30))
            + "+build."
            + rs(4, DG),
        )
    for t in [
        "request_id={v} status=502 path=/api/sr/create",
        "ID de correlación {v}",
        "요청 ID {v} 타임아웃",
    ]:
        B("request_uuid", t, guid())
    for t in ["GA4 measurement id on the library site: {v}", "gtag('config', '{v}');"]:
        B("ga_measurement_id", t, "G-" + rs(10, UP + DG))
    for t in ["MAPBOX_PUBLIC_TOKEN={v}", "Token público de Mapbox (restringido por URL): {v}"]:
        payload = (
            base64.urlsafe_b64encode(('{"u":"riverbendgis","a":"%s"}' % rs(25, LO + DG)).encode())
            .decode()
            .rstrip("=")
        )
        B("mapbox_public_token", t, "pk." + payload + "." + rs(22, URLS))
    for t in [
        "image: ghcr.io/riverbend/permit-api@{v}",
        "Imagen desplegada: {v}",
        "이미지 다이제스트 {v}",
    ]:
        B("docker_image_digest", t, "sha256:" + hx(64))
    for t in [
        "AZURE_TENANT_ID={v}",
        "client id of RB-GIS-Sync app registration: {v}",
        "테넌트 ID {v}",
    ]:
        B("azure_tenant_or_client_id", t, guid())
    for t in ["post alerts to channel {v} (#signals-ops)", "Canal de Slack {v} para el 311"]:
        B("slack_channel_id", t, "C0" + rs(9, UP + DG))
    for t in ["handheld #14 MAC {v}", "MAC del kiosco de autopréstamo: {v}", "단말기 MAC 주소 {v}"]:
        B("mac_address", t, ":".join(hx(2) for _ in range(6)).upper())
    for t in ["Cobalt at Main & 5th is {v}", "Servidor GIS: {v}", "미터 수집 서버 {v}"]:
        B(
            "ip_address",
            t,
            "10."
            + str(RNG.randint(1, 254))
            + "."
            + str(RNG.randint(1, 254))
            + "."
            + str(RNG.randint(1, 254)),
        )
    for t in [
        "see {v} for the handheld printer issue",
        "Ticket {v}: fallo de sincronización con RMS",
        "장애 티켓 {v}",
    ]:
        B("ticket_number", t, "INC" + rs(7, DG))
    for t, v in [
        (
            "Policy: {v}",
            "service account passwords must be 16+ characters and rotated every 90 days",
        ),
        ("Política: {v}", "las contraseñas de CJIS deben cambiarse cada 90 días y no reutilizarse"),
        ("정책: {v}", "공유 계정 비밀번호는 볼트에만 저장하고 메모에 적지 말 것"),
    ]:
        B("password_policy", t, v)
    for t, v in [
        ("layers are in {v} (State Plane)", "EPSG:2227"),
        ('spatialReference: {"wkid": 102100, "latestWkid": 3857}', '"latestWkid": 3857'),
        ("Sistema de coordenadas: {v}", "EPSG:4326"),
    ]:
        B("spatial_reference", t, v)
    for t in ["backup bucket {v}", "Bucket de registros: {v}"]:
        B(
            "s3_arn",
            t,
            "arn:aws:s3:::rb-" + RNG.choice(["permits", "gis", "billing"]) + "-backup-" + rs(4, DG),
        )
    for t in ["TWILIO_ACCOUNT_SID={v}", "Cuenta de Twilio (SID): {v}", "messaging service {v}"]:
        B("twilio_account_sid", t, RNG.choice(["AC", "MG"]) + hx(32))
    for t in ["311 after-hours line {v}", "Línea en español del 311: {v}"]:
        B("phone_number", t, "(555) " + rs(3, DG) + "-" + rs(4, DG))
    for t in [
        "LPR hit plate {v} -- not a match after review",
        "Placa {v}: tres multas sin pagar",
        "차량번호 {v} 견인",
    ]:
        B("license_plate", t, rs(1, DG) + rs(3, UP) + rs(3, DG))
    for t, v in [
        ("NTCIP 1202 phase status OID {v}", "1.3.6.1.4.1.1206.4.2.1.1.4.1.4"),
        ("OID de tiempo de actividad: {v}", "1.3.6.1.2.1.1.3.0"),
    ]:
        B("snmp_oid", t, v)
    for t, v in [
        ("ISBN {v} missing cover image in the catalog", "978-0-13-468599-1"),
        ("Libro con ISBN {v} mal catalogado", "978-84-376-0494-7"),
    ]:
        B("isbn", t, v)
    for t in ["md5 of the exported citations file: {v}", "MD5 del archivo de lecturas: {v}"]:
        B("md5_checksum", t, hx(32))
    for t, v in [
        ("requirements: {v}", "arcgis==2.4.0"),
        ("pin {v} in package.json", "@esri/calcite-components@2.13.2"),
        ("Dependencia: {v}", "requests==2.32.3"),
    ]:
        B("package_pin", t, v)
    for t, v in [("our agency ORI is {v}", "TX0570400"), ("ORI de la agencia: {v}", "CA0194200")]:
        B("ori_number", t, v)
    for t in ["release signing key fingerprint {v}", "Huella de la llave GPG: {v}"]:
        B("gpg_fingerprint", t, " ".join(hx(4).upper() for _ in range(10)))
    for t, v in [
        ("use test card {v} in the CivicRec sandbox", "4242 4242 4242 4242"),
        ("Tarjeta de prueba de Authorize.Net: {v}", "4111111111111111"),
    ]:
        B("test_card_number", t, v)
    for t in ["Paymentus biller id {v}", "ID de comercio de parquímetros: {v}", "가맹점 ID {v}"]:
        B("merchant_id", t, rs(8, DG))
    for t in [
        "asset tag {v} (handheld printer)",
        "Etiqueta de inventario {v}: gabinete de señales",
    ]:
        B("asset_tag", t, "CITY-" + rs(6, DG))
    for t in ["stored hash for portal user jdoe: {v}", "hash bcrypt en la tabla users: {v}"]:
        B("bcrypt_hash", t, "$2b$12$" + rs(53, AN + "./"))
    for t in ["Salesforce consumer key (client id) for 311: {v}", "SF_CLIENT_ID={v}"]:
        B("salesforce_consumer_key", t, "3MVG9" + rs(80, AN + "._"))
    for t, v in [
        ("Key Vault secret name: {v}", "accela-app-secret"),
        ("az keyvault secret show --vault-name kv-rb-prod --name {v}", "oracle-billing-app-pw"),
        ("Nombre del secreto en Key Vault: {v}", "twilio-auth-token-311"),
    ]:
        B("keyvault_secret_name", t, v)
    for t, v in [
        ("meter sweep runs at {v}", "15 2 * * 1-5"),
        ("Sincronización de reservas: {v}", "*/10 6-22 * * *"),
    ]:
        B("cron_expression", t, v)
    for t, v in [
        (
            "IAM user svc-gis-tiles uses key id {v} -- secret is in vault, not here",
            "AKIA" + rs(16, UP + DG),
        ),
        ("ID de llave de acceso (sin el secreto): {v}", "AKIA" + rs(16, UP + DG)),
    ]:
        B("aws_access_key_id_reference", t, v)


def more_secrets():
    S(
        "github_fine_grained_pat",
        "| repo | token |\n|---|---|\n| 311-intake | {v} |",
        "github_pat_11" + rs(20, UP + DG) + "_" + rs(59),
    )
    S(
        "slack_bot_token",
        '{"bot": "permits", "token": "{v}"}',
        "xoxb-" + rs(12, DG) + "-" + rs(13, DG) + "-" + rs(24),
    )
    S(
        "teams_webhook",
        "curl -H 'Content-Type: application/json' -d '{\"text\":\"Signal 4412 down\"}' '{v}'",
        "https://riverbendgov.webhook.office.com/webhookb2/"
        + guid()
        + "@"
        + guid()
        + "/IncomingWebhook/"
        + hx(32)
        + "/"
        + guid()
        + "/V2"
        + rs(43, URLS),
    )
    S(
        "google_api_key",
        '<script src="https://maps.googleapis.com/maps/api/js?key={v}&libraries=places"></script> <!-- server key pasted by mistake, unrestricted -->',
        "AIza" + rs(35, URLS),
    )
    S(
        "sqlserver_conn_password",
        '{"ConnectionStrings": {"Rms": "Server=rms-sql01;Database=RMS;User Id=rms_bridge;Password={v};TrustServerCertificate=True"}}',
        "Rms#Bridge" + rs(4, DG) + "!",
    )
    S(
        "oracle_password",
        "2026-12-01 02:14:07 ERROR billing-export: ORA-01017 retry with billing_app/{v}@UBPROD",
        "UbExport_" + rs(3, DG) + "#",
    )
    S("rsa_private_key", '"private_key": "{v}"', pem("PRIVATE KEY", 900).replace("\n", "\\n"))
    S(
        "openssh_private_key",
        "cat > /tmp/lib_backup_key <<'EOF'\n{v}\nEOF",
        pem("OPENSSH PRIVATE KEY", 300),
    )
    S(
        "arcgis_admin_password",
        '- host: gis-srv01\n  user: siteadmin\n  password: "{v}"',
        "Server$ite" + rs(2, DG) + "Admin",
    )
    S(
        "accela_app_secret",
        'accela:\n  app_id: "1776452"\n  app_secret: {v}\n  environment: PROD',
        hx(32),
    )
    S("salesforce_consumer_secret", "sfdx auth: --client-secret {v}", rs(64, "0123456789ABCDEF"))
    S("snmp_community", "snmp:\n  version: v2c\n  write_community: {v}", "SigCab!" + rs(4, DG))
    S("alarm_panel_code", "알람 해제 코드는 {v} 입니다 (공원관리소).", rs(4, DG))
    S("library_ils_api_key", "X-Polaris-Access-Key: {v}", guid().upper())
    S("rec_booking_password", "레크리에이션 예약 관리자 비번 {v}", "Rec#Center" + rs(2, DG))
    S(
        "authorize_net_transaction_key",
        '{"merchantAuthentication": {"name": "5KP3u95bQpv", "transactionKey": "{v}"}}',
        rs(16),
    )
    S(
        "cjis_terminal_password",
        "Mobile data terminal fallback login (Unit 12): mdt12 / {v}",
        "Mdt#Patrol" + rs(3, DG),
    )
    S("vpn_preshared_key", "crypto isakmp key {v} address 203.0.113.45", rs(28, AN))
    S(
        "openai_api_key",
        '{"openai": {"key": "{v}", "model": "gpt-4o-mini"}}',
        "sk-proj-" + rs(74, URLS) + "T3BlbkFJ" + rs(74, URLS),
    )
    S("anthropic_api_key", "x-api-key: {v}", "sk-ant-api03-" + rs(93, URLS) + "AA")
    S("npm_token", "npm 토큰 (지도 위젯 배포용) {v}", "npm_" + rs(36))
    S("datadog_api_key", "Llave de Datadog para los servidores de facturación: {v}", hx(32))
    S(
        "mailgun_api_key",
        "curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.riverbend.gov/messages",
        hx(32) + "-" + hx(8) + "-" + hx(8),
    )
    S(
        "basic_auth_url",
        "신호 중앙 서버 주소 {v}",
        "https://atms_ops:Signal" + rs(3, DG) + "!Ops@atms.city.local:8443",
    )
    S("vault_token", "X-Vault-Token: {v}", "hvs." + rs(90, URLS))
    S(
        "terraform_cloud_token",
        'credentials "app.terraform.io" {\n  token = "{v}"\n}',
        rs(14) + ".atlasv1." + rs(67),
    )
    S(
        "mapbox_secret_token",
        "Token secreto de Mapbox (no publicar): {v}",
        "sk."
        + base64.urlsafe_b64encode(('{"u":"riverbendgis","a":"%s"}' % rs(25, LO + DG)).encode())
        .decode()
        .rstrip("=")
        + "."
        + rs(22, URLS),
    )
    for t, v in [
        ("Lockbox SFTP (bill print vendor) rb_water / {v}", "Lockb0x!Water26"),
        (
            "sftp password for the library patron load from the school district: {v}",
            "Patron$Load2025",
        ),
        ("Contraseña SFTP del proveedor de impresión de facturas: {v}", "Imprenta#Agua77"),
        ("요금 청구서 인쇄업체 SFTP 비밀번호: {v}", "Billing!Print09"),
    ]:
        S("sftp_password", t, v)
    for t, v in [
        (
            "SMTP relay for 311 notifications: smtp.city.local:587 user noreply-311 pass {v}",
            "Relay#311mail",
        ),
        ("EMAIL_HOST_PASSWORD={v}", "permitsMail!2026"),
        ("Contraseña SMTP de avisos de la biblioteca: {v}", "AvisosLib_2025!"),
    ]:
        S("smtp_password", t, v)
    for t in [
        "Passport parking operator API key: {v}",
        "X-Api-Key: {v}  (ParkMobile partner zone sync)",
        "주차 앱 파트너 API 키: {v}",
    ]:
        S("parking_vendor_api_key", t, rs(40, AN))
    for t, v in [
        ("GIS SDE connection: user sde, password {v}, instance gis-sql02", "Sde#Geodb2024"),
        ("Contraseña del usuario SDE de la geodatabase: {v}", "Geo_dbOwner88"),
        ("SDE 지오데이터베이스 비밀번호: {v}", "SdeOwner!77"),
    ]:
        S("sde_password", t, v)


def more_benign():
    B("permit_number", "| record | status |\n|---|---|\n| {v} | Issued |", "BLD-2026-" + rs(6, DG))
    B("sr_311_number", '{"service_request_id": "{v}", "status": "closed"}', "SR-" + rs(8, DG))
    B("parcel_apn", "parcel_apn: {v}", rs(3, DG) + "-" + rs(3, DG) + "-" + rs(3, DG))
    B(
        "citation_number",
        "2026-12-02 14:03:11 INFO upload citation={v} officer=411 ok",
        "RB" + rs(9, DG),
    )
    B("library_barcode", '{"patronBarcode": "{v}", "holds": 3}', "2" + rs(4, DG) + "00" + rs(7, DG))
    B("booking_reference", "booking_ref={v} facility=POOL-EAST", "RES-" + rs(6, UP + DG))
    B("police_case_number", "RMS interface log: case={v} status=ACK", "26-" + rs(6, DG))
    B("sha256_digest", "sha256sum: {v}  permits-backup-2026-12-01.tar.gz", hx(64))
    B(
        "ssh_public_key",
        '- name: signal vendor\n  key: "{v}"',
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + rs(340, B64),
    )
    B("x509_certificate", "인증서 (공개, 저장 가능):\n{v}", pem("CERTIFICATE", 420))
    B("stripe_publishable_key", '{"publishableKey": "{v}"}', "pk_live_51" + rs(22) + rs(75))
    B("masked_value", "connection string in the log shows Password=*****; good", "Password=*****")
    B("masked_value", "AWS secret ending in ...{v} was rotated", rs(4, AN))
    B(
        "revoked_key",
        "Revoked old Stripe key {v} on 2026-10-14 after the rec-center breach review",
        "sk_live_51" + rs(22) + rs(75),
    )
    B("revoked_key", "This GitLab token was revoked and deleted: {v}", "glpat-" + rs(20, URLS))
    B("build_version", "ArcGIS Enterprise {v}", "11.3.0.51575")
    B("request_uuid", '{"traceId": "{v}"}', guid())
    B(
        "ga_measurement_id",
        "ID de medición de Analytics del portal de permisos: {v}",
        "G-" + rs(10, UP + DG),
    )
    B(
        "mapbox_public_token",
        "mapboxgl.accessToken = '{v}';",
        "pk."
        + base64.urlsafe_b64encode(('{"u":"riverbendgis","a":"%s"}' % rs(25, LO + DG)).encode())
        .decode()
        .rstrip("=")
        + "."
        + rs(22, URLS),
    )
    B("slack_channel_id", "슬랙 채널 ID {v}", "C0" + rs(9, UP + DG))
    B("ip_address", "allowlist: {v}", "203.0.113." + str(RNG.randint(1, 254)))
    B("s3_arn", "s3://rb-gis-tiles-{v}/basemap/", rs(4, DG))
    B("phone_number", "주차 민원 전화 {v}", "(555) " + rs(3, DG) + "-" + rs(4, DG))
    B("snmp_oid", "snmpget ... {v} (controller firmware)", "1.3.6.1.4.1.1206.4.2.6.1.1.0")
    B("md5_checksum", "MD5 ({v}) = AutoCITE_Setup.msi", hx(32))
    B("gpg_fingerprint", "GPG 키 지문: {v}", " ".join(hx(4).upper() for _ in range(10)))
    B("merchant_id", '{"merchantId": "{v}", "gateway": "paymentus"}', rs(8, DG))
    B("asset_tag", "자산 번호 {v}", "CITY-" + rs(6, DG))
    B("bcrypt_hash", "users.password_hash = '{v}'", "$2a$10$" + rs(53, AN + "./"))
    B("cron_expression", 'schedule: "{v}"  # nightly GIS replica', "30 1 * * *")
    B("ori_number", "경찰청 기관 ORI: {v}", "NY0303000")
    B("twilio_account_sid", '{"accountSid": "{v}"}', "AC" + hx(32))
    B("azure_tenant_or_client_id", "ID de suscripción de Azure: {v}", guid())
    B("docker_image_digest", "docker pull registry.city.local/gis/tiler@{v}", "sha256:" + hx(64))
    for t, v in [
        ("Staff SSID is {v}; the password is in the vault", "CityHall-Staff"),
        ("Red inalámbrica de la biblioteca: {v}", "LIB-PUBLIC"),
        ("와이파이 SSID: {v}", "RB-PARKS-GUEST"),
    ]:
        B("ssid_name", t, v)
    for t, v in [
        ("pothole cluster centroid {v}", "37.80441, -122.27117"),
        ("Coordenadas del gabinete: {v}", "34.05223, -118.24368"),
        ("좌표 {v}", "37.56654, 126.97797"),
    ]:
        B("coordinates", t, v)
    for t, v in [
        (
            "OAuth redirect for the permit portal: {v}",
            "https://permits.riverbend.gov/auth/callback",
        ),
        ("redirect_uri={v}", "https://311.riverbend.gov/oauth2/sso"),
    ]:
        B("oauth_redirect_uri", t, v)
    for t, v in [
        ("Open311 endpoint: {v}", "https://311.riverbend.gov/open311/v2/requests.json"),
        (
            "Servicio de capas públicas: {v}",
            "https://gis.riverbend.gov/arcgis/rest/services/Public/Zoning/MapServer",
        ),
        (
            "공개 지도 서비스 URL: {v}",
            "https://gis.riverbend.gov/arcgis/rest/services/Public/Parcels/FeatureServer/0",
        ),
    ]:
        B("public_service_url", t, v)


def corpus():
    ROWS.clear()
    USED.clear()
    RNG.seed(SEED)
    secrets()
    more_secrets()
    benign()
    more_benign()
    for r in ROWS:
        assert r["value"] in r["text"], r
    return list(ROWS)


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for r in rows:
        out.write(json.dumps(r, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

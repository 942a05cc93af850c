# ruff: noqa: E501, UP031
"""Blind secret-detector corpus 71: agritech company and farm co-operative.

Brief: memory notes of an agritech firm and farm co-op (drone ops, LoRaWAN sensors on TTN/ChirpStack, weather and satellite APIs, farm-management software, irrigation controllers, grain-elevator scales, greenhouse climate computers; notes in English, Spanish, Portuguese, German) with live secrets and non-secret look-alikes.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_71.py [out.jsonl]

Kinds, secret: aws_secret_access_key, ttn_api_key, lorawan_appkey, lorawan_abp_session_key, chirpstack_api_token_jwt, mqtt_url_password, postgres_url_password, mssql_connstring_password, mongodb_srv_password, redis_url_password, sftp_url_password, openweathermap_api_key, sentinelhub_client_secret, planet_api_key, google_api_key_server, mapbox_secret_token, github_pat_classic, github_pat_fine_grained, gitlab_pat, npm_token, dockerhub_pat, slack_webhook_url, slack_bot_token, stripe_live_secret_key, twilio_auth_token, sendgrid_api_key, telegram_bot_token, openai_api_key, anthropic_api_key, gcp_service_account_json, openssh_private_key, rsa_private_key_pem, azure_storage_connstring, influxdb_token, grafana_sa_token, vault_token, airtable_pat, particle_access_token, home_assistant_token, wireguard_private_key, basic_auth_header, bearer_token_header, django_secret_key, smtp_app_password, wifi_psk_gateway, vnc_password_climate_computer, human_password_es, human_password_pt, human_password_de, human_password_prose_no_keyword, alarm_keypad_code
Kinds, benign: aws_doc_example_key, aws_access_key_id_only, lorawan_deveui, lorawan_joineui, gateway_eui, lorawan_devaddr, lorawan_uplink_payload_b64, git_commit_sha, firmware_sha256, image_md5, docker_image_digest, field_uuid, chirpstack_app_id_uuid, drone_serial_number, sentinel2_product_id, ttn_key_placeholder, angle_bracket_placeholder, env_var_reference, vault_reference, k8s_secret_ref, masked_secret, asterisk_password, mapbox_public_token, stripe_publishable_key, recaptcha_site_key, google_oauth_client_id, ssh_public_key, ssh_host_fingerprint, x509_certificate_pem, tls_fingerprint_sha1, wireguard_public_key, password_policy_text, default_changeme_said_changed, example_connstring_placeholder, revoked_token_stated_revoked, stripe_test_card, modem_imei, sim_iccid, mac_address, field_coordinates, weather_station_id, invoice_number, grain_ticket_number, npm_integrity_sha512, bcrypt_hash, sentinelhub_client_id, password_manager_reference, cadastral_parcel_id
"""

import base64
import json
import random
import string
import sys

SEED = 7171

A62 = string.ascii_letters + string.digits
LOW = string.ascii_lowercase
LOWD = string.ascii_lowercase + string.digits
UPD = string.ascii_uppercase + string.digits
HEXL = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B64 = A62 + "+/"
B64U = A62 + "-_"
WORDS = [
    "Trigo",
    "Cosecha",
    "Tractor",
    "Maiz",
    "Soja",
    "Girasol",
    "Weizen",
    "Acker",
    "Fazenda",
    "Harvest",
    "Combine",
    "Barley",
    "Silo",
    "Colheita",
    "Ernte",
    "Gerste",
    "Alfalfa",
    "Tomate",
    "Pepino",
    "Invernadero",
    "Regadio",
    "Lluvia",
    "Chuva",
    "Sommer",
    "Drohne",
    "Rabbit",
    "Holstein",
]
SYMS = "!#$%&*@?."


def rs(r, n, alpha):
    return "".join(r.choice(alpha) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    if r.random() < 0.4:
        w = w + r.choice(WORDS).lower()
    return w + str(r.randint(1, 9999)) + r.choice(SYMS)


def b64url(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def jwt(r, payload):
    h = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64url(json.dumps(payload, separators=(",", ":")).encode())
    return h + "." + p + "." + rs(r, 43, B64U)


def uuid(r):
    h = rs(r, 32, HEXL)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return "-".join([h[:8], h[8:12], h[12:16], h[16:20], h[20:]])


def pem_body(r, nbytes, prefix=b""):
    raw = prefix + r.randbytes(nbytes - len(prefix))
    s = base64.b64encode(raw).decode()
    return "\n".join(s[i : i + 64] for i in range(0, len(s), 64))


def g_ttn(r):
    return "NNSXS." + rs(r, 39, B32) + "." + rs(r, 52, B32)


def g_chirp(r):
    return jwt(r, {"aud": "chirpstack", "iss": "chirpstack", "sub": uuid(r), "typ": "key"})


def g_ha(r):
    iat = r.randint(1690000000, 1760000000)
    return jwt(r, {"iss": rs(r, 32, HEXL), "iat": iat, "exp": iat + 315360000})


def g_mapbox(r, pre):
    p = b64url(
        json.dumps({"u": "coopagro-gis", "a": rs(r, 25, LOWD)}, separators=(",", ":")).encode()
    )
    return pre + "." + p + "." + rs(r, 22, B64U)


def g_openssh(r):
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + pem_body(r, 300, b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none")
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def g_rsa(r):
    return (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + pem_body(r, 1190, b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00")
        + "\n-----END RSA PRIVATE KEY-----"
    )


def g_sa_key(r):
    body = base64.b64encode(
        b"\x30\x82\x04\xbe\x02\x01\x00\x30\x0d\x06\x09" + r.randbytes(1205)
    ).decode()
    lines = "\\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return "-----BEGIN PRIVATE KEY-----\\n" + lines + "\\n-----END PRIVATE KEY-----\\n"


def g_cert(r):
    return (
        "-----BEGIN CERTIFICATE-----\n"
        + pem_body(r, 700, b"\x30\x82\x02\xb8\x30\x82\x01\xa0\xa0\x03\x02\x01\x02")
        + "\n-----END CERTIFICATE-----"
    )


def g_basic(r):
    return base64.b64encode(("scalehouse:" + human_pw(r)).encode()).decode()


def g_imei(r):
    d = [int(c) for c in "35" + rs(r, 12, string.digits)]
    tot = 0
    for i, x in enumerate(d):
        if i % 2 == 1:
            x *= 2
            x = x - 9 if x > 9 else x
        tot += x
    return "".join(map(str, d)) + str((10 - tot % 10) % 10)


def g_s2(r):
    day = "2024%02d%02d" % (r.randint(4, 9), r.randint(1, 28))
    t = "T%02d%02d%02d" % (r.randint(10, 11), r.randint(0, 59), r.randint(0, 59))
    return "S2%s_MSIL2A_%s%s_N0510_R%03d_T%02d%s_%s%s" % (
        r.choice("AB"),
        day,
        t,
        r.randint(1, 143),
        r.randint(29, 31),
        rs(r, 3, string.ascii_uppercase),
        day,
        "T14%04d" % r.randint(0, 5959),
    )


# (kind, generator, templates). "{v}" is replaced by the value; everything else is fixed text.
SECRET = [
    (
        "aws_secret_access_key",
        lambda r: rs(r, 40, B64),
        [
            "drone imagery bucket s3://coop-ortho-raw creds for the upload box: aws_access_key_id in 1pw, aws_secret_access_key = {v}",
            "export AWS_SECRET_ACCESS_KEY={v}  # ortho-upload user, do not rotate before harvest",
            "[profile ortho]\nregion = eu-west-1\naws_secret_access_key = {v}",
            "| service | key |\n|---|---|\n| s3 ortho-upload secret | {v} |",
        ],
    ),
    (
        "ttn_api_key",
        g_ttn,
        [
            "TTN app soil-moisture-north, API key w/ all rights: {v}",
            "ttn-lw-cli login --api-key {v}",
            "TTN_API_KEY={v}",
            "[10:42] mateo: key para el webhook de TTN -> {v} (tiene permisos de escritura, ojo)",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "lorawan_appkey",
        lambda r: rs(r, 32, HEXU),
        [
            "soil probe #14 OTAA: DevEUI on the label, AppKey {v}",
            "appkey={v}",
            "Sensor de humedad lote 7 - AppKey: {v}  (copiado del cuaderno de Rafa)",
            "chirpstack device keys for the 12 tensiometers all share the same appkey (yes I know): {v}",
        ],
    ),
    (
        "lorawan_abp_session_key",
        lambda r: rs(r, 32, HEXU),
        [
            "ABP fallback for the rain gauge: NwkSKey {v}",
            "rain gauge ABP AppSKey = {v} (FCnt reset disabled)",
            '  "nwkSKey": "{v}",',
            "Regenmesser Hof Bauer, ABP Schlüssel AppSKey:\n{v}",
        ],
    ),
    (
        "chirpstack_api_token_jwt",
        g_chirp,
        [
            "ChirpStack API token for the irrigation integration: {v}",
            "grpcurl -H 'authorization: Bearer {v}' chirpstack.coop.local:8080 api.DeviceService/List",
            "CHIRPSTACK_API_TOKEN={v}",
            "chirpstack key (tenant admin)\n{v}",
        ],
    ),
    (
        "mqtt_url_password",
        human_pw,
        [
            "gateway bridge publishes to mqtts://gw-bridge:{v}@mqtt.coop-agro.net:8883",
            "mosquitto_sub -h mqtt.coop-agro.net -p 8883 -u sensors -P '{v}' -t 'application/+/device/+/event/up'",
            "mqtt user pivot-ctrl / pass {v}",
            "MQTT broker (chirpstack): usuario chirpstack_gw, senha {v}",
        ],
    ),
    (
        "postgres_url_password",
        lambda r: rs(r, 24, A62),
        [
            "FMS prod DB: postgresql://fms_app:{v}@db-fms-01.coop.internal:5432/farmdb",
            "DATABASE_URL=postgres://farmos:{v}@10.20.0.15/farmos",
            'psql "host=db-fms-01 user=fms_app password={v} dbname=farmdb sslmode=require"',
            "db pw for the yield-map reporting user: {v}",
        ],
    ),
    (
        "mssql_connstring_password",
        human_pw,
        [
            "Scale house PC (elevator 2) SQL: Server=SCALE02\\SQLEXPRESS;Database=GrainTickets;User Id=scaleapp;Password={v};",
            "weighbridge software connects as sa / {v}  (yes sa, vendor set it up)",
            '"ConnectionStrings": {"Tickets": "Data Source=10.1.4.20;Initial Catalog=Elevator;User ID=tickets;Password={v}"}',
            "báscula silo 3: usuario sa, contraseña {v}",
        ],
    ),
    (
        "mongodb_srv_password",
        lambda r: rs(r, 16, A62),
        [
            "telemetry archive: mongodb+srv://telemetry:{v}@cluster0.x3kq9.mongodb.net/sensors",
            "MONGO_URI=mongodb+srv://drone-log:{v}@flightlogs.abcde.mongodb.net/?retryWrites=true",
            "atlas user telemetry pw {v}",
        ],
    ),
    (
        "redis_url_password",
        lambda r: rs(r, 32, HEXL),
        [
            "REDIS_URL=redis://:{v}@cache.coop.internal:6379/0",
            "job queue for NDVI tiles uses redis, requirepass {v}",
            "redis-cli -h cache.coop.internal -a {v} keys 'ndvi:*'",
        ],
    ),
    (
        "sftp_url_password",
        human_pw,
        [
            "imagery vendor drops tiles at sftp://coopagro:{v}@sftp.skyvendor.eu/incoming",
            "sshpass -p '{v}' sftp coopagro@sftp.skyvendor.eu",
            "FTP do fornecedor de imagens: usuário coopagro, senha {v}",
            "vendor SFTP\nuser: coopagro\npass: {v}",
        ],
    ),
    (
        "openweathermap_api_key",
        lambda r: rs(r, 32, HEXL),
        [
            "OWM key for frost alerts: {v}",
            "curl 'https://api.openweathermap.org/data/3.0/onecall?lat=41.6&lon=-0.9&appid={v}'",
            "OPENWEATHER_API_KEY={v}",
            "clave de openweather (la de pago, One Call 3.0): {v}",
        ],
    ),
    (
        "sentinelhub_client_secret",
        lambda r: rs(r, 40, A62 + "_-.,:;()!@#%^&*~<>"),
        [
            "Sentinel Hub OAuth client secret: {v}",
            "SH_CLIENT_SECRET='{v}'",
            'config.sh_client_secret = "{v}"',
            "sentinel hub creds -> id is in the wiki, secret {v}",
        ],
    ),
    (
        "planet_api_key",
        lambda r: "PLAK" + rs(r, 32, HEXL),
        [
            "Planet key (PlanetScope basemaps): {v}",
            "export PL_API_KEY={v}",
            "curl -u {v}: https://api.planet.com/data/v1/item-types",
            "planet api key for the trial orchard project\n{v}",
        ],
    ),
    (
        "google_api_key_server",
        lambda r: "AIza" + rs(r, 35, B64U),
        [
            "Earth Engine / Maps server key, NOT restricted, backend only: {v}",
            "GOOGLE_API_KEY={v}  # elevation + geocoding from the flight planner backend",
            "geocode script uses key={v} (unrestricted, pls restrict someday)",
        ],
    ),
    (
        "mapbox_secret_token",
        lambda r: g_mapbox(r, "sk"),
        [
            "Mapbox SECRET token (uploads:write, for field boundary tilesets): {v}",
            "MAPBOX_SECRET_TOKEN={v}",
            "mapbox upload coopagro-gis.fields2024 fields.geojson --token {v}",
        ],
    ),
    (
        "github_pat_classic",
        lambda r: "ghp_" + rs(r, 36, A62),
        [
            "PAT for the flight-planner repo CI: {v}",
            "git clone https://{v}@github.com/coop-agro/flight-planner.git",
            "GH_TOKEN={v}",
            "token do github pra puxar o firmware dos controladores: {v}",
        ],
    ),
    (
        "github_pat_fine_grained",
        lambda r: "github_pat_11" + rs(r, 20, UPD) + "_" + rs(r, 59, A62),
        [
            "fine-grained PAT (contents:read on irrigation-fw): {v}",
            "echo {v} | gh auth login --with-token",
            "GITHUB_TOKEN={v}",
        ],
    ),
    (
        "gitlab_pat",
        lambda r: "glpat-" + rs(r, 20, B64U),
        [
            "gitlab deploy token for the greenhouse scripts: {v}",
            "git remote set-url origin https://oauth2:{v}@gitlab.coop-agro.net/gh/climate-scripts.git",
            "CI_PUSH_TOKEN={v}",
        ],
    ),
    (
        "npm_token",
        lambda r: "npm_" + rs(r, 36, A62),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm token for publishing @coopagro/field-map: {v}",
            "NPM_TOKEN={v}",
        ],
    ),
    (
        "dockerhub_pat",
        lambda r: "dckr_pat_" + rs(r, 27, B64U),
        [
            "docker login -u coopagro -p {v}",
            "dockerhub access token (push to coopagro/chirpstack-custom): {v}",
            "DOCKERHUB_TOKEN={v}",
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: (
            "https://hooks.slack.com/services/T"
            + rs(r, 9, UPD)
            + "/B"
            + rs(r, 10, UPD)
            + "/"
            + rs(r, 24, A62)
        ),
        [
            "frost alarm posts to #campo via {v}",
            "SLACK_WEBHOOK={v}",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"pivot 4 stopped\"}' {v}",
            "webhook do slack pro alerta de irrigação:\n{v}",
        ],
    ),
    (
        "slack_bot_token",
        lambda r: (
            "xoxb-"
            + rs(r, 12, string.digits)
            + "-"
            + rs(r, 13, string.digits)
            + "-"
            + rs(r, 24, A62)
        ),
        [
            "bot token for the drone-ops slack bot: {v}",
            "SLACK_BOT_TOKEN={v}",
            "slack bot (agroalertas) token {v}",
        ],
    ),
    (
        "stripe_live_secret_key",
        lambda r: "sk_live_51" + rs(r, 97, A62),
        [
            "co-op webshop (seed & fertiliser orders) Stripe live secret: {v}",
            "STRIPE_SECRET_KEY={v}",
            "curl https://api.stripe.com/v1/charges -u {v}:",
            "chave stripe da loja da cooperativa (produção!) {v}",
        ],
    ),
    (
        "twilio_auth_token",
        lambda r: rs(r, 32, HEXL),
        [
            "Twilio SMS for pump failure alerts: account SID is in the wiki, auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
            "twilio auth tkn {v} (sms to farmers w/o smartphone)",
        ],
    ),
    (
        "sendgrid_api_key",
        lambda r: "SG." + rs(r, 22, B64U) + "." + rs(r, 43, B64U),
        [
            "sendgrid key for the weekly agronomy newsletter: {v}",
            "SENDGRID_API_KEY={v}",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "telegram_bot_token",
        lambda r: str(r.randint(5000000000, 7999999999)) + ":AA" + rs(r, 33, B64U),
        [
            "bot do telegram que avisa os produtores da geada: {v}",
            "TELEGRAM_BOT_TOKEN={v}",
            "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001 -d text=helada",
            "Telegram-Bot für die Stallwarnung, Token: {v}",
        ],
    ),
    (
        "openai_api_key",
        lambda r: "sk-proj-" + rs(r, 64, B64U) + "T3BlbkFJ" + rs(r, 64, B64U),
        [
            "key for the agronomy Q&A assistant prototype: {v}",
            "OPENAI_API_KEY={v}",
            "la key de openai que usa el bot de recomendaciones de fertilización: {v}",
        ],
    ),
    (
        "anthropic_api_key",
        lambda r: "sk-ant-api03-" + rs(r, 93, B64U) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "key used by the scouting-report summariser: {v}",
            "anthropic key (team acct)\n{v}",
        ],
    ),
    (
        "gcp_service_account_json",
        g_sa_key,
        [
            'earth engine SA key, pasted from ee-ndvi@coop-agro-ee.iam.gserviceaccount.com json:\n{\n  "type": "service_account",\n  "project_id": "coop-agro-ee",\n  "private_key": "{v}",\n  "client_email": "ee-ndvi@coop-agro-ee.iam.gserviceaccount.com"\n}',
            '"private_key": "{v}",',
            'GOOGLE_SA_PRIVATE_KEY="{v}"',
        ],
    ),
    (
        "openssh_private_key",
        g_openssh,
        [
            "ssh key for the field edge boxes (raspi on each gateway mast):\n{v}",
            "cat > ~/.ssh/gw_masts <<EOF\n{v}\nEOF",
            "Chave privada do drone base station (ground control):\n{v}",
        ],
    ),
    (
        "rsa_private_key_pem",
        g_rsa,
        [
            "TLS key for climate.coop-agro.net (greenhouse dashboard):\n{v}",
            "basics station CUPS client key, gateway GW-07:\n{v}",
            "privkey.pem\n{v}",
        ],
    ),
    (
        "azure_storage_connstring",
        lambda r: base64.b64encode(r.randbytes(64)).decode(),
        [
            "DefaultEndpointsProtocol=https;AccountName=coopagrodrone;AccountKey={v};EndpointSuffix=core.windows.net",
            "azure blob for the multispectral raw: account key {v}",
            "az storage blob upload --account-name coopagrodrone --account-key {v} -c raw -f flight_0612.zip",
        ],
    ),
    (
        "influxdb_token",
        lambda r: base64.urlsafe_b64encode(r.randbytes(64)).decode(),
        [
            "INFLUX_TOKEN={v}",
            "influx all-access token for the greenhouse climate bucket: {v}",
            "influx bucket list --host http://influx.gh.local:8086 --token {v}",
            "Token InfluxDB (Gewächshaus-Klima, Schreibrechte):\n{v}",
        ],
    ),
    (
        "grafana_sa_token",
        lambda r: "glsa_" + rs(r, 32, A62) + "_" + rs(r, 8, HEXL),
        [
            "grafana service account token for the soil dashboards: {v}",
            "GRAFANA_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://grafana.coop-agro.net/api/dashboards/uid/soil",
        ],
    ),
    (
        "vault_token",
        lambda r: "hvs.CAESI" + rs(r, 82, B64U),
        [
            "VAULT_TOKEN={v}",
            "root-ish vault token that Jonas made for the migration, still valid: {v}",
            "vault login {v}",
        ],
    ),
    (
        "airtable_pat",
        lambda r: "pat" + rs(r, 14, A62) + "." + rs(r, 64, HEXL),
        [
            "Airtable PAT for the members/harvest-quotas base: {v}",
            "AIRTABLE_API_KEY={v}",
            "airtable token (base Cuotas Cosecha) {v}",
        ],
    ),
    (
        "particle_access_token",
        lambda r: rs(r, 40, HEXL),
        [
            "Particle cloud access token for the tank-level Borons: {v}",
            "particle call tank-07 setInterval 600 --token {v}",
            "PARTICLE_ACCESS_TOKEN={v}",
        ],
    ),
    (
        "home_assistant_token",
        g_ha,
        [
            "HA long-lived token on the greenhouse pi (node-red uses it): {v}",
            "headers: {Authorization: 'Bearer {v}'}",
            "token de home assistant da estufa\n{v}",
        ],
    ),
    (
        "wireguard_private_key",
        lambda r: base64.b64encode(r.randbytes(32)).decode(),
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.7/24",
            "wg privkey for the 4G router at pivot site Los Llanos: {v}",
            "wireguard Schlüssel (privat) Router Feldstation Nord: {v}",
        ],
    ),
    (
        "basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' http://10.1.4.20/api/tickets/today",
            "scale API auth header (basic) is {v}",
        ],
    ),
    (
        "bearer_token_header",
        lambda r: rs(r, 48, A62),
        [
            "John Deere Ops Center access token (valid 12h, refresh in vault? no, here): {v}",
            "Authorization: Bearer {v}",
            "irrigation controller cloud API (Pivot portal) bearer {v}",
        ],
    ),
    (
        "django_secret_key",
        lambda r: rs(r, 50, LOWD + "!@#%^&*(-_=+)"),
        [
            "SECRET_KEY = '{v}'",
            "farm portal django SECRET_KEY prod: {v}",
            'DJANGO_SECRET_KEY="{v}"',
        ],
    ),
    (
        "smtp_app_password",
        lambda r: " ".join(rs(r, 4, LOW) for _ in range(4)),
        [
            "gmail app password for alertas@coop so the scale PC can send tickets: {v}",
            'SMTP: smtp.gmail.com:587 user alertas@coop-agro.net app pw "{v}"',
            "senha de app do gmail (relatórios da balança): {v}",
        ],
    ),
    (
        "wifi_psk_gateway",
        human_pw,
        [
            "WiFi at the pivot pump house: SSID CampoNorte, key {v}",
            "wifi galpón: red Galpon2_4G / clave {v}",
            "wpa_passphrase LoRaGW-Mast3 '{v}'",
            "WLAN Maschinenhalle: Kennwort {v}",
        ],
    ),
    (
        "vnc_password_climate_computer",
        lambda r: rs(r, 8, A62),
        [
            "remote into the greenhouse climate computer (Priva) via VNC 10.3.0.5:5900 pw {v}",
            "Klimacomputer Gewächshaus 2 (Hoogendoorn) VNC-Passwort: {v}",
            "vnc estufa 1 -> {v}",
        ],
    ),
    (
        "human_password_es",
        human_pw,
        [
            "La contraseña del portal de la cooperativa para los socios es {v}",
            "Usuario: jlopez / Contraseña: {v} (software de gestión agrícola)",
            "acceso al controlador de riego del sector 3: admin y la clave {v}",
            "Rafa me pasó la clave del dron (app DJI): {v}",
        ],
    ),
    (
        "human_password_pt",
        human_pw,
        [
            "A senha do sistema de gestão da fazenda é {v}",
            "login no controlador de irrigação: admin / {v}",
            "senha do painel da balança do armazém: {v}",
            "usuário agronomo.sul, senha {v} (portal de imagens de satélite)",
        ],
    ),
    (
        "human_password_de",
        human_pw,
        [
            "Das Passwort für den Hofmanager ist {v}",
            "Zugang Bewässerungssteuerung: Benutzer admin, Passwort {v}",
            "Kennwort Waagen-PC Silo Ost: {v}",
            "Login Klimarechner: gaertner / {v}",
        ],
    ),
    (
        "human_password_prose_no_keyword",
        human_pw,
        [
            "for the elevator scale PC just log in as operator with {v}",
            "drone tablet unlocks with {v}, the DJI account uses the same one",
            "mesa de la báscula: entrar como operador con {v}",
            "admin / {v}",
        ],
    ),
    (
        "alarm_keypad_code",
        lambda r: rs(r, 6, string.digits),
        [
            "chemical store keypad code: {v}#",
            "código da porta do depósito de defensivos: {v}",
            "Alarmcode Maschinenhalle {v}, bitte nicht weitergeben",
        ],
    ),
]

BENIGN = [
    (
        "aws_doc_example_key",
        lambda r: "AKIAIOSFODNN7EXAMPLE",
        [
            "AWS docs use {v} as the example access key id, don't paste real ones in the README",
            "aws_access_key_id = {v}\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY  # example from AWS docs",
            "placeholder in .env.example: AWS_ACCESS_KEY_ID={v}",
        ],
    ),
    (
        "aws_access_key_id_only",
        lambda r: "AKIA" + rs(r, 16, UPD),
        [
            "ortho-upload IAM user key id is {v}, the secret half lives in 1Password",
            "rotated: old key id {v} deactivated in IAM, new one in vault",
            "CloudTrail shows calls from access key id {v} (the drone upload user)",
        ],
    ),
    (
        "lorawan_deveui",
        lambda r: "70B3D5" + rs(r, 10, HEXU),
        [
            "soil probe #14 DevEUI {v}",
            "| sensor | DevEUI | field |\n| tensiometer T3 | {v} | Lote 7 |",
            "devEUI={v}",
            "el sensor nuevo tiene el DevEUI {v} en la etiqueta",
        ],
    ),
    (
        "lorawan_joineui",
        lambda r: rs(r, 16, HEXU),
        [
            "JoinEUI/AppEUI for all Dragino probes: {v}",
            '  "joinEui": "{v}",',
            "AppEUI {v} (same for whole batch)",
        ],
    ),
    (
        "gateway_eui",
        lambda r: rs(r, 16, HEXU),
        [
            "gateway on the silo roof, EUI {v}, registered on TTN eu1",
            "GW-07 gateway_id eui-{v}",
            "Gateway-EUI am Mast Nord: {v}",
        ],
    ),
    (
        "lorawan_devaddr",
        lambda r: "26" + rs(r, 6, HEXU),
        [
            "rain gauge DevAddr {v} (ABP)",
            "uplink from devaddr {v} fcnt 1402 rssi -117",
            "DevAddr: {v}",
        ],
    ),
    (
        "lorawan_uplink_payload_b64",
        lambda r: base64.b64encode(r.randbytes(r.randint(6, 12))).decode(),
        [
            'weird uplink, frm_payload "{v}" decodes to negative soil temp, check the codec',
            '  "frm_payload": "{v}",',
            "payload (base64) {v} -> battery 3.1V",
        ],
    ),
    (
        "git_commit_sha",
        lambda r: rs(r, 40, HEXL),
        [
            "pivot controller firmware built from commit {v}",
            "git checkout {v}  # last known good flight-planner",
            "rollback to {v} fixed the NDVI color ramp",
        ],
    ),
    (
        "firmware_sha256",
        lambda r: rs(r, 64, HEXL),
        [
            "sha256 of gateway fw 4.0.2: {v}",
            "{v}  chirpstack-gateway-os-4.5.1.img.xz",
            "checksum do firmware do controlador: {v}",
        ],
    ),
    (
        "image_md5",
        lambda r: rs(r, 32, HEXL),
        [
            "md5 of flight_0612_ms.zip = {v} (matches vendor)",
            "MD5 ({v}) ortho_lote7.tif",
            "md5sum: {v}",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + rs(r, 64, HEXL),
        [
            "pin chirpstack image to chirpstack/chirpstack@{v}",
            "image: coopagro/ndvi-worker@{v}",
            "digest {v} is the one running on edge boxes",
        ],
    ),
    (
        "field_uuid",
        uuid,
        [
            "field 'Lote 7 - Alfalfa' id in FMS: {v}",
            "GET /api/fields/{v}/boundaries",
            "Feld Kirchacker hat die ID {v}",
        ],
    ),
    (
        "chirpstack_app_id_uuid",
        uuid,
        [
            "chirpstack application 'soil-moisture' id {v}",
            "tenant id {v} (co-op main)",
            "applicationId: {v}",
        ],
    ),
    (
        "drone_serial_number",
        lambda r: "1581F" + rs(r, 9, UPD),
        [
            "M3M drone SN {v} goes back for repair (gimbal)",
            "| drone | serial | insurance |\n| Mavic 3M #2 | {v} | AXA-22 |",
            "número de serie del dron: {v}",
        ],
    ),
    (
        "sentinel2_product_id",
        g_s2,
        [
            "clean scene for Lote 7: {v}",
            "download {v}.SAFE from copernicus",
            "imagem sem nuvens: {v}",
        ],
    ),
    (
        "ttn_key_placeholder",
        lambda r: (
            "NNSXS.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
        ),
        [
            "in the template use TTN_API_KEY={v} and fill it from vault",
            "docs example: ttn-lw-cli login --api-key {v}",
            "key format looks like {v}",
        ],
    ),
    (
        "angle_bracket_placeholder",
        lambda r: "<your-api-key>",
        [
            "curl 'https://api.openweathermap.org/data/3.0/onecall?lat=..&lon=..&appid={v}'",
            "PL_API_KEY={v}",
            "set OPENAI_API_KEY to {v} in your local .env",
        ],
    ),
    (
        "env_var_reference",
        lambda r: "${CHIRPSTACK_API_TOKEN}",
        [
            "integration config: token: {v}",
            "Authorization: Bearer {v}",
            "the compose file reads the token from {v}, never inline it",
        ],
    ),
    (
        "vault_reference",
        lambda r: "vault:secret/data/agro/ttn#api_key",
        [
            "TTN key is at {v}",
            "ttn_api_key: {v}",
            "la clave está en {v}",
        ],
    ),
    (
        "k8s_secret_ref",
        lambda r: "secretKeyRef",
        [
            "env:\n- name: INFLUX_TOKEN\n  valueFrom:\n    {v}:\n      name: influx-token\n      key: token",
            "use {v} for SENDGRID_API_KEY, not a literal",
            "helm values: owm.apiKey comes from {v} owm-secret/key",
        ],
    ),
    (
        "masked_secret",
        lambda r: "sk_live_" + "*" * 20 + rs(r, 4, A62),
        [
            "Stripe dashboard shows the live key as {v}",
            "key ending {v} was used in the failed charge",
            "STRIPE_SECRET_KEY={v} (masked)",
        ],
    ),
    (
        "asterisk_password",
        lambda r: "********",
        [
            "senha do controlador: {v} (pedir ao João)",
            "scale PC login operator / {v}",
            "Passwort: {v}",
        ],
    ),
    (
        "mapbox_public_token",
        lambda r: g_mapbox(r, "pk"),
        [
            "public Mapbox token for the field map web page (URL-restricted): {v}",
            "mapboxgl.accessToken = '{v}';",
            "NEXT_PUBLIC_MAPBOX_TOKEN={v}",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_51" + rs(r, 97, A62),
        [
            "webshop publishable key (goes in the frontend): {v}",
            "Stripe('{v}')",
            "STRIPE_PUBLISHABLE_KEY={v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + rs(r, 38, B64U),
        [
            "reCAPTCHA site key for the member signup form: {v}",
            'data-sitekey="{v}"',
            "site key público do captcha: {v}",
        ],
    ),
    (
        "google_oauth_client_id",
        lambda r: rs(r, 12, string.digits) + "-" + rs(r, 32, LOWD) + ".apps.googleusercontent.com",
        [
            "OAuth client id for 'Sign in with Google' on the farmer portal: {v}",
            "GOOGLE_CLIENT_ID={v}",
            "client_id={v}",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, 43, B64),
        [
            "add to authorized_keys on gateway masts: {v} drone-ops@laptop",
            "{v} rafa@agronomo",
            "chave pública do Jonas: {v}",
        ],
    ),
    (
        "ssh_host_fingerprint",
        lambda r: "SHA256:" + rs(r, 43, B64),
        [
            "edge box GW-07 host key fingerprint {v} (verify on first connect)",
            "ED25519 key fingerprint is {v}.",
            "Fingerprint Waagen-PC: {v}",
        ],
    ),
    (
        "x509_certificate_pem",
        g_cert,
        [
            "CA cert for the MQTT broker (public, ship it to the gateways):\n{v}",
            "ca.crt\n{v}",
            "certificado raiz do broker:\n{v}",
        ],
    ),
    (
        "tls_fingerprint_sha1",
        lambda r: ":".join(rs(r, 2, HEXU) for _ in range(20)),
        [
            "pin broker cert SHA1 fingerprint {v}",
            "mqtt.coop-agro.net cert fp {v}",
            "Zertifikat-Fingerabdruck: {v}",
        ],
    ),
    (
        "wireguard_public_key",
        lambda r: base64.b64encode(r.randbytes(32)).decode(),
        [
            "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.66.0.0/24",
            "pivot site router public key {v}",
            "pubkey do roteador da estufa: {v}",
        ],
    ),
    (
        "password_policy_text",
        lambda r: "min. 12 characters",
        [
            "new FMS accounts: password {v}, one digit, one symbol, no farm names",
            "política: contraseña de {v}, cambiar cada 90 días",
            "Passwort-Richtlinie: {v}, kein Wiederverwenden",
        ],
    ),
    (
        "default_changeme_said_changed",
        lambda r: "changeme",
        [
            "irrigation controllers ship with admin/{v}; we change it at install (done for all 14)",
            "default pw of the gateway web UI is {v}, Rafa reset it yesterday",
            "senha padrão do controlador é {v} — já trocada em todos",
        ],
    ),
    (
        "example_connstring_placeholder",
        lambda r: "postgres://user:password@localhost:5432/farmdb",
        [
            "local dev: DATABASE_URL={v}",
            "README example connection string {v}",
            "use something like {v} for docker compose",
        ],
    ),
    (
        "revoked_token_stated_revoked",
        lambda r: "ghp_" + rs(r, 36, A62),
        [
            "REVOKED 2026-11-30 after the leak, kept for the incident timeline: {v}",
            "incident note: token {v} was pushed to public repo, revoked within 10 min, GitHub confirms revoked",
            "token antiguo {v} — revocado, ya no funciona",
        ],
    ),
    (
        "stripe_test_card",
        lambda r: "4242 4242 4242 4242",
        [
            "for webshop tests use card {v}, any CVC, future date",
            "cartão de teste do Stripe: {v}",
            "test checkout: {v} / 12/34 / 123",
        ],
    ),
    (
        "modem_imei",
        g_imei,
        [
            "4G modem at pivot 3 IMEI {v}",
            "| site | IMEI |\n| Los Llanos | {v} |",
            "IMEI do modem: {v}",
        ],
    ),
    (
        "sim_iccid",
        lambda r: "8934" + rs(r, 15, string.digits),
        [
            "SIM in gateway GW-07 ICCID {v}",
            "iccid={v}",
            "tarjeta SIM nueva {v} (Movistar IoT)",
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(rs(r, 2, HEXU) for _ in range(6)),
        [
            "scale PC MAC {v}, DHCP reservation 10.1.4.20",
            "climate computer eth0 {v}",
            "MAC-Adresse Gateway: {v}",
        ],
    ),
    (
        "field_coordinates",
        lambda r: f"{r.uniform(37, 43):.6f}, {r.uniform(-6, 0):.6f}",
        [
            "gateway mast coordinates {v}",
            "takeoff point for lote 7 flights: {v}",
            "coordenadas del pivot: {v}",
        ],
    ),
    (
        "weather_station_id",
        lambda r: "IZARAG" + str(r.randint(10, 999)),
        [
            "our Wunderground station id {v}",
            "estación meteo de la coope: {v}",
            "station={v}",
        ],
    ),
    (
        "invoice_number",
        lambda r: "INV-2026-" + rs(r, 6, string.digits),
        [
            "drone repair invoice {v} paid",
            "fatura {v} do fornecedor de imagens",
            "Rechnung {v} für Sensoren",
        ],
    ),
    (
        "grain_ticket_number",
        lambda r: "TK" + rs(r, 8, string.digits),
        [
            "scale ticket {v}: 28.4 t wheat, moisture 13.1%",
            "ticket de báscula {v} duplicado, anular",
            "| ticket | member | t |\n| {v} | 0412 | 31.2 |",
        ],
    ),
    (
        "npm_integrity_sha512",
        lambda r: "sha512-" + base64.b64encode(r.randbytes(64)).decode(),
        [
            '"integrity": "{v}"',
            "lockfile diff only changed integrity {v}",
            "integrity hash {v} for @coopagro/field-map",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: "$2b$12$" + rs(r, 53, A62 + "./"),
        [
            "users table seed row: password_hash='{v}'",
            "hash stored for operator account: {v}",
            "bcrypt {v}",
        ],
    ),
    (
        "sentinelhub_client_id",
        uuid,
        [
            "Sentinel Hub OAuth client id {v} (secret in vault)",
            "SH_CLIENT_ID={v}",
            "client id de sentinel hub: {v}",
        ],
    ),
    (
        "password_manager_reference",
        lambda r: "1Password > Agro-Ops > Scale house PC",
        [
            "scale PC password: see {v}",
            "la contraseña está en {v}",
            "Passwort steht in {v}",
        ],
    ),
    (
        "cadastral_parcel_id",
        lambda r: (
            "50"
            + rs(r, 3, string.digits)
            + "A"
            + rs(r, 3, string.digits)
            + rs(r, 5, string.digits)
            + "0000"
            + rs(r, 2, UPD)
        ),
        [
            "referencia catastral de la parcela: {v}",
            "parcel {v} in the CAP declaration",
            "Flurstück-Nr. / ref {v}",
        ],
    ),
]

# More phrasings for the benign kinds (appended to the templates above).
MORE_BENIGN = {
    "aws_doc_example_key": [
        "the AWS CLI guide literally says {v}, that's why the test fixture has it"
    ],
    "aws_access_key_id_only": ["| user | key id | status |\n| ortho-upload | {v} | active |"],
    "lorawan_deveui": ["Bodensonde Feld 3, DevEUI:\n{v}"],
    "lorawan_joineui": ["joineui do lote de sensores: {v}"],
    "gateway_eui": [
        "ttn-lw-cli gateways create gw-silo --frequency-plan-id EU_863_870_TTN --gateway-eui {v}"
    ],
    "lorawan_devaddr": ["o pluviômetro está com DevAddr {v}"],
    "lorawan_uplink_payload_b64": ["[09:14] ana: mira este uplink {v} sale humedad 250%?"],
    "git_commit_sha": [
        "Firmware der Bewässerungssteuerung: Commit {v}",
        "[15:02] jonas: deployed {v} to the edge boxes",
    ],
    "firmware_sha256": ["sha256sum flight-planner-2.3.1.apk -> {v}"],
    "image_md5": ["checksum MD5 del mosaico: {v}"],
    "docker_image_digest": ["docker pull grafana/grafana@{v}"],
    "field_uuid": [
        "| field | id | crop |\n| Lote 7 | {v} | alfalfa |",
        "id do talhão no sistema: {v}",
    ],
    "chirpstack_app_id_uuid": ["chirpstack -> Applications -> soil-moisture ({v})"],
    "drone_serial_number": [
        "Seriennummer Drohne (Versicherung): {v}",
        "flight log export for aircraft {v}, 14 flights",
    ],
    "sentinel2_product_id": ["scene {v} has 3% cloud over lote 7"],
    "ttn_key_placeholder": ["TTN_API_KEY={v}  (ask Mateo for the real one, never commit it)"],
    "angle_bracket_placeholder": ["Authorization: Bearer {v}", "clave de la API: {v} (rellenar)"],
    "env_var_reference": ["mqtt password: {v}", "la app lee el token de {v}"],
    "vault_reference": ["vault kv get -field=api_key secret/agro/ttn  # stored at {v}"],
    "k8s_secret_ref": ["chirpstack api token via {v} (chirpstack-api/token)"],
    "masked_secret": ["[11:20] bot: rotated key {v}", "chave da stripe termina em {v}"],
    "asterisk_password": ["mqtt user pivot-ctrl / pass {v}", "clave wifi galpón: {v}"],
    "mapbox_public_token": ["token público do mapbox (pk, só leitura): {v}"],
    "stripe_publishable_key": ["| env | publishable |\n| prod | {v} |"],
    "recaptcha_site_key": ["RECAPTCHA_SITE_KEY={v}"],
    "google_oauth_client_id": ['"client_id": "{v}",'],
    "ssh_public_key": ["id_ed25519.pub:\n{v} gw-deploy"],
    "ssh_host_fingerprint": [
        "The authenticity of host 'gw07 (10.66.0.7)' can't be established.\nED25519 key fingerprint is {v}."
    ],
    "x509_certificate_pem": ["Zertifikat (öffentlich) für den Klimaserver:\n{v}"],
    "tls_fingerprint_sha1": ["| host | sha1 |\n| mqtt.coop-agro.net | {v} |"],
    "wireguard_public_key": ["Öffentlicher WireGuard-Schlüssel Feldstation Nord: {v}"],
    "password_policy_text": [
        "reminder for the co-op members: passwords {v}, use the password manager"
    ],
    "default_changeme_said_changed": [
        "Standardpasswort {v} beim Klimacomputer wurde bei Inbetriebnahme geändert"
    ],
    "example_connstring_placeholder": ["conexión de ejemplo: {v}"],
    "revoked_token_stated_revoked": ["Token {v} wurde widerrufen (revoked) und ist ungültig"],
    "modem_imei": ["imei={v}"],
    "sim_iccid": ["ICCID do chip da estação: {v}"],
    "mac_address": ["endereço MAC do gateway {v}"],
    "field_coordinates": ["Standort Wetterstation: {v}"],
    "invoice_number": ["| invoice | amount |\n| {v} | 1,240.00 EUR |"],
    "grain_ticket_number": ["Wiegeschein {v} Gerste 24,9 t"],
    "npm_integrity_sha512": [
        "resolved https://registry.npmjs.org/leaflet/-/leaflet-1.9.4.tgz integrity {v}"
    ],
    "bcrypt_hash": ["hash da senha no banco (bcrypt): {v}"],
    "sentinelhub_client_id": ["| api | client id |\n| sentinel hub | {v} |"],
    "cadastral_parcel_id": ["ref catastral {v} - 12,4 ha regadío"],
}
BENIGN = [(k, g, t + MORE_BENIGN.get(k, [])) for k, g, t in BENIGN]


def corpus():
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for t in templates:
                v = gen(r)
                rows.append({"label": label, "kind": kind, "text": t.replace("{v}", v), "value": v})
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

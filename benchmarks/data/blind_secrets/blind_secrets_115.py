# ruff: noqa: E501, B905, SIM115
"""Blind secret-detector corpus 115: fish farm and aquaculture company.

Brief: notes, handovers, chat lines, commands, config and log lines kept as
memory by the teams (and their AI coding agents) of a salmon farming group with
sea sites in Norway, Chile and Iceland: feed barges and their PLC/HMI, sea pen
cameras and oxygen sensors, service boats and well boats with satellite links,
a processing plant with door codes, export paperwork (customs, TRACES, air
freight), payment and messaging providers and the generic developer stack.
Languages: English, Norwegian, Spanish (Chile) and Icelandic.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_115.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_classic_pat, github_fine_grained_pat,
gitlab_pat, slack_webhook_url, slack_bot_token, teams_webhook_url,
stripe_secret_key, postgres_url_password, mssql_connection_string,
mqtt_password, feed_barge_plc_password, camera_admin_password, wifi_psk,
satellite_router_password, door_access_code, sim_pin_puk, openssh_private_key,
rsa_private_key, twilio_auth_token, sendgrid_api_key, google_api_key,
azure_storage_key, azure_sas_token, openai_api_key, anthropic_api_key,
jwt_session_token, npm_token, docker_hub_pat, telegram_bot_token,
vipps_credentials, barentswatch_client_secret, vendor_portal_password,
government_portal_password, sftp_password, datadog_api_key, grafana_token,
influxdb_token, vault_token, recovery_codes, internal_service_token,
basic_auth_header, smtp_password, redis_url_password, mongodb_uri_password,
backup_passphrase, password_manager_master, azure_client_secret,
gcp_service_account_key, atlassian_api_token, sensor_cloud_api_key,
url_embedded_credentials, bank_api_client_secret, boat_system_password,
wireguard_private_key.

Kinds, benign: git_commit_sha, sha256_digest, docker_image_digest,
device_uuid, ssh_public_key, x509_certificate, stripe_publishable_key,
recaptcha_site_key, mapbox_public_token, ga_measurement_id, placeholder_value,
masked_secret, env_var_reference, vault_path, password_manager_reference,
revoked_key, password_policy_text, documented_example_key, site_number,
pen_id, vessel_identifier, sensor_serial, pit_tag_id, feed_lot_number,
traces_ched_reference, hs_code, customs_mrn, air_waybill, container_number,
iban, org_number, gtin, invoice_number, travel_booking_ref, ticket_reference,
build_version, mac_address, ip_or_hostname, trace_id, slack_object_id,
aws_arn_or_account, azure_tenant_id, twilio_account_sid,
wireguard_public_key, pgp_fingerprint, bcrypt_hash, k8s_secret_ref,
npm_integrity_hash, cert_thumbprint, plc_tag_address, aquaculture_licence,
fish_health_report_ref, gps_coordinates, vipps_merchant_serial,
influx_org_bucket_id, internal_publishable_key.
"""

import base64
import json
import random
import string
import sys

SEED = 216597

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = string.ascii_letters + string.digits
B64 = AN + "+/"
URLS = AN + "-_"
HEX = "0123456789abcdef"

NO_W = [
    "Laks",
    "Merd",
    "Flaate",
    "Forflate",
    "Hestoya",
    "Torsk",
    "Bronnbat",
    "Notpose",
    "Havorn",
    "Skarv",
    "Smolt",
    "Kveite",
    "Fjord",
    "Sjosprut",
    "Lusa",
]
ES_W = [
    "Salmon",
    "Jaula",
    "Chiloe",
    "Balsa",
    "Centro",
    "Castro",
    "Ancud",
    "Marea",
    "Quellon",
    "Pontón",
    "Calbuco",
]
IS_W = [
    "Lax",
    "Kvi",
    "Fjordur",
    "Isafjordur",
    "Bryggja",
    "Sjor",
    "Batur",
    "Thorskur",
    "Dyrafjordur",
]
EN_W = ["Barge", "Feeder", "Harbour", "Seapen", "Wellboat", "Ocean", "Tide", "Kelp", "Smolt"]
WORDS = {"no": NO_W, "es": ES_W, "is": IS_W, "en": EN_W}
PHRASE_W = [
    "tare",
    "mast",
    "ror",
    "regn",
    "kveite",
    "nordlys",
    "brygge",
    "anker",
    "tauverk",
    "pontong",
    "skjaer",
    "moloen",
    "sild",
    "taake",
    "baugen",
    "kelp",
    "marea",
    "niebla",
]


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def r(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def hx(n: int) -> str:
        return r(HEX, n)

    def dg(n: int) -> str:
        return r(DG, n)

    def rb(n: int) -> bytes:
        return bytes(rng.randrange(256) for _ in range(n))

    def uuid() -> str:
        h = hx(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    def leet(w: str) -> str:
        return w.replace("o", "0").replace("a", "4").replace("e", "3").replace("i", "1")

    def human_pw(lang: str = "no") -> str:
        ws = WORDS[lang]
        w = rng.choice(ws)
        p = rng.randrange(6)
        if p == 0:
            return f"{w}{rng.randrange(2018, 2027)}{rng.choice('!#?.')}"
        if p == 1:
            return f"{w.lower()}{rng.choice('#_.')}{rng.randrange(10, 9999)}"
        if p == 2:
            return f"{leet(w)}{rng.choice('!$%')}{rng.randrange(1, 99)}"
        if p == 3:
            return f"{w}{rng.choice(ws)}{rng.randrange(1, 100)}"
        if p == 4:
            return f"{rng.choice('!?')}{w}{rng.randrange(100, 999)}"
        return f"{w.upper()[:3]}{rng.randrange(1000, 9999)}{w.lower()[3:]}!"

    def phrase(n: int = 4, sep: str = "-") -> str:
        ws = [rng.choice(PHRASE_W) for _ in range(n)]
        return sep.join(ws) + sep + str(rng.randrange(10, 99))

    def wrap(s: str, n: int) -> str:
        return "\n".join(s[i : i + n] for i in range(0, len(s), n))

    def b64u(b: bytes) -> str:
        return base64.urlsafe_b64encode(b).decode().rstrip("=")

    def akia() -> str:
        return "AKIA" + r(UP + "234567", 16)

    def ssh_priv() -> str:
        body = (
            b"openssh-key-v1\x00"
            + b"\x00\x00\x00\x04none" * 2
            + b"\x00\x00\x00\x00\x00\x00\x00\x01"
            + b"\x00\x00\x00\x33\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20"
            + rb(32)
            + rb(180)
        )
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + wrap(base64.b64encode(body).decode(), 70)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def rsa_priv() -> str:
        body = b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + rb(1180)
        return (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + wrap(base64.b64encode(body).decode(), 64)
            + "\n-----END RSA PRIVATE KEY-----"
        )

    def pkcs8_escaped() -> str:
        body = (
            b"\x30\x82\x04\xbd\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00"
            b"\x04\x82\x04\xa7\x30\x82\x04\xa3\x02\x01\x00\x02\x82\x01\x01\x00" + rb(900)
        )
        return (
            "-----BEGIN PRIVATE KEY-----\\n"
            + wrap(base64.b64encode(body).decode(), 64).replace("\n", "\\n")
            + "\\n-----END PRIVATE KEY-----\\n"
        )

    def cert() -> str:
        body = b"\x30\x82\x03\xc5\x30\x82\x02\xad\xa0\x03\x02\x01\x02\x02\x14" + rb(560)
        return (
            "-----BEGIN CERTIFICATE-----\n"
            + wrap(base64.b64encode(body).decode(), 64)
            + "\n-----END CERTIFICATE-----"
        )

    def ssh_pub() -> str:
        return (
            "ssh-ed25519 "
            + base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rb(32)).decode()
        )

    def wg_key() -> str:
        return base64.b64encode(rb(32)).decode()

    def jwt(payload: dict) -> str:
        h = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
        p = b64u(json.dumps(payload, separators=(",", ":")).encode())
        return f"{h}.{p}.{r(URLS, 43)}"

    def imo() -> str:
        d = [rng.randrange(1, 10)] + [rng.randrange(10) for _ in range(5)]
        c = sum(x * w for x, w in zip(d, [7, 6, 5, 4, 3, 2])) % 10
        return "".join(map(str, d)) + str(c)

    def container() -> str:
        owner = r(UP, 3) + "U"
        num = dg(6)
        vals = {
            ch: v
            for ch, v in zip(
                UP,
                [
                    10,
                    12,
                    13,
                    14,
                    15,
                    16,
                    17,
                    18,
                    19,
                    20,
                    21,
                    23,
                    24,
                    25,
                    26,
                    27,
                    28,
                    29,
                    30,
                    31,
                    32,
                    34,
                    35,
                    36,
                    37,
                    38,
                ],
            )
        }
        s = [vals[c] for c in owner] + [int(c) for c in num]
        chk = sum(v * (2**i) for i, v in enumerate(s)) % 11 % 10
        return f"{owner}{num}{chk}"

    def iban_no() -> str:
        bban = dg(11)
        num = int(bban + "2324" + "00")  # N=23 O=24
        return f"NO{98 - num % 97:02d}{bban}"

    def orgnr() -> str:
        while True:
            d = [rng.randrange(8, 10)] + [rng.randrange(10) for _ in range(7)]
            c = 11 - sum(x * w for x, w in zip(d, [3, 2, 7, 6, 5, 4, 3, 2])) % 11
            if c == 11:
                c = 0
            if c != 10:
                return "".join(map(str, d)) + str(c)

    def gtin() -> str:
        d = [7, 0] + [rng.randrange(10) for _ in range(10)]
        s = sum(x * (1 if i % 2 == 0 else 3) for i, x in enumerate(d))
        return "".join(map(str, d)) + str((10 - s % 10) % 10)

    def awb() -> str:
        serial = dg(7)
        return f"{rng.choice(['157', '176', '172', '618'])}-{serial}{int(serial) % 7}"

    def add(label: str, kind: str, text: str, value: str) -> None:
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def k(label: str, kind: str, gen, templates) -> None:
        for t in templates:
            v = gen()
            add(label, kind, t(v), v)

    S, B = "secret", "benign"

    # ------------------------------------------------------------------ secrets
    k(
        S,
        "aws_secret_access_key",
        lambda: r(B64, 40),
        [
            lambda v: (
                f"aws configure for the lice-count image bucket: key id {akia()}, secret {v}, region eu-north-1"
            ),
            lambda v: f"AWS_ACCESS_KEY_ID={akia()}\nAWS_SECRET_ACCESS_KEY={v}",
            lambda v: (
                f"[profile havbruk-export]\naws_access_key_id = {akia()}\naws_secret_access_key = {v}"
            ),
            lambda v: (
                f"Overlevering: S3-nøkkelen for kamerabildene fra Hestøya er {akia()} / {v} – må roteres før sesongslutt."
            ),
            lambda v: (
                f'{{"AccessKeyId": "{akia()}", "SecretAccessKey": "{v}", "Status": "Active"}}'
            ),
        ],
    )
    k(
        S,
        "github_classic_pat",
        lambda: "ghp_" + r(AN, 36),
        [
            lambda v: f"git clone https://{v}@github.com/nordvik-havbruk/feed-optimizer.git",
            lambda v: f"GH_TOKEN={v}  # agent token for PR bot on fishtalk-sync",
            lambda v: (
                f"Token til GitHub-runneren på prosesseringsanlegget: {v} (repo + workflow scope)"
            ),
        ],
    )
    k(
        S,
        "github_fine_grained_pat",
        lambda: "github_pat_" + r(AN, 22) + "_" + r(AN, 59),
        [
            lambda v: f"echo {v} | gh auth login --with-token",
            lambda v: f"- name: checkout sensor-firmware\n  env:\n    FIRMWARE_REPO_TOKEN: {v}",
            lambda v: f"token para el repo de Salmones Nordvik Chile (solo lectura): {v}",
        ],
    )
    k(
        S,
        "gitlab_pat",
        lambda: "glpat-" + r(URLS, 20),
        [
            lambda v: (
                f'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.nordvikhavbruk.no/api/v4/projects/42/pipelines'
            ),
            lambda v: f"GITLAB_TOKEN={v}",
            lambda v: f"Ný aðgangslykill fyrir GitLab (Dýrafjörður skynjarar): {v}",
            lambda v: (
                f'[remote "origin"]\n\turl = https://oauth2:{v}@gitlab.nordvikhavbruk.no/drift/barge-hmi.git'
            ),
        ],
    )
    k(
        S,
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T{r(UP + DG, 8)}/B{r(UP + DG, 10)}/{r(AN, 24)}",
        [
            lambda v: f"O2 alarm hook for #sjø-alarmer: {v}",
            lambda v: f"SLACK_WEBHOOK_URL={v}",
            lambda v: (
                f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"Lav oksygen merd 4\"}}' {v}"
            ),
            lambda v: f'alerting:\n  slack:\n    url: "{v}"\n    channel: "#prosess-drift"',
        ],
    )
    k(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{dg(12)}-{dg(13)}-{r(AN, 24)}",
        [
            lambda v: f"SLACK_BOT_TOKEN={v}",
            lambda v: f"Bot-token for lusetelling-boten: {v}, legg den i vault ikke her",
            lambda v: f'client = WebClient(token="{v}")',
            lambda v: f"El bot de alarmas de centros usa {v} — no compartir",
        ],
    )
    k(
        S,
        "teams_webhook_url",
        lambda: (
            f"https://nordvikhavbruk.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{hx(32)}/{uuid()}/V2{r(URLS, 43)}"
        ),
        [
            lambda v: f"Teams-kanalen 'Fôrflåte drift' mottar varsler via {v}",
            lambda v: f"TEAMS_WEBHOOK={v}",
            lambda v: f'{{"notifier": "teams", "webhook_url": "{v}"}}',
        ],
    )
    k(
        S,
        "stripe_secret_key",
        lambda: "sk_live_" + r(AN, rng.choice([24, 99])),
        [
            lambda v: f"STRIPE_SECRET_KEY={v}",
            lambda v: f"webshop (røkt laks gaveesker) bruker {v} i prod",
            lambda v: f'stripe.api_key = "{v}"',
        ],
    )
    k(
        S,
        "stripe_secret_key",
        lambda: "rk_live_" + r(AN, 99),
        [
            lambda v: f"restricted key for the export invoicing job (read charges only): {v}",
        ],
    )
    k(
        S,
        "postgres_url_password",
        lambda: human_pw(rng.choice(["no", "en"])),
        [
            lambda v: (
                f"DATABASE_URL=postgresql://fishtalk_sync:{v}@db01.nordvikhavbruk.no:5432/production"
            ),
            lambda v: f'psql "postgres://biomass_ro:{v}@10.20.4.11/biomass?sslmode=require"',
            lambda v: (
                f"sqlalchemy.url = postgresql+psycopg2://lice_app:{v}@pg-lice.internal:5432/lice"
            ),
            lambda v: (
                f"Hei! Ny tilkobling til rapportbasen: postgresql://rapport:{v}@pg.slakteri.local/rapport"
            ),
        ],
    )
    k(
        S,
        "mssql_connection_string",
        lambda: human_pw(rng.choice(["no", "es"])),
        [
            lambda v: (
                f"Server=fishtalk-sql01;Database=FishTalk;User Id=ft_reader;Password={v};TrustServerCertificate=True"
            ),
            lambda v: (
                f'"ConnectionStrings": {{ "Mercatus": "Data Source=sql-mercatus;Initial Catalog=Farmer;User ID=mf_app;Password={v}" }}'
            ),
            lambda v: (
                f"sqlcmd -S slakteri-sql\\PROD -U etikett -P '{v}' -Q \"select top 10 * from Pallets\""
            ),
            lambda v: f"Passordet til SQL-brukeren sa_scada på flåten er {v}",
        ],
    )
    k(
        S,
        "mqtt_password",
        lambda: rng.choice([human_pw("en"), r(AN, 20)]),
        [
            lambda v: (
                f"mosquitto_pub -h mqtt.hestoya.local -u sensor-o2 -P '{v}' -t site/13457/pen/04/o2 -m 7.9"
            ),
            lambda v: f"MQTT_USERNAME=barge-gw\nMQTT_PASSWORD={v}",
            lambda v: (
                f'mqtt:\n  broker: tls://broker.nordvikhavbruk.no:8883\n  username: oxyguard\n  password: "{v}"'
            ),
            lambda v: f"Ny MQTT-bruker for temperatursensorene i Skarvholmen: sensor_t / {v}",
        ],
    )
    k(
        S,
        "feed_barge_plc_password",
        lambda: human_pw(rng.choice(["no", "en", "is"])),
        [
            lambda v: f"Fôrflåte Hestøya – HMI admin: brukernavn admin, passord {v}",
            lambda v: (
                f"handover night shift: feed PLC on the barge was reset, new engineer login is {v}"
            ),
            lambda v: f"Aðgangsorð að fóðurstýringu prammans í Dýrafirði: {v}",
            lambda v: f"plc:\n  host: 192.168.10.5\n  user: service\n  pass: {v}",
            lambda v: (
                f"Husk: feeding system (ScaleAQ) service user 'scaleaq' har fått nytt passord {v} etter besøket"
            ),
        ],
    )
    k(
        S,
        "camera_admin_password",
        lambda: human_pw(rng.choice(["no", "es", "en"])),
        [
            lambda v: f"rtsp://admin:{v}@10.20.7.21:554/Streaming/Channels/101",
            lambda v: f"Undervannskamera merd 6: admin / {v}",
            lambda v: f"cámaras de la jaula 3 (Hikvision): usuario admin, contraseña {v}",
            lambda v: f"Observe camera box Langskjær reset to factory — set new web password {v}",
        ],
    )
    k(
        S,
        "wifi_psk",
        lambda: rng.choice([phrase(3, ""), human_pw("no"), human_pw("es")]),
        [
            lambda v: f"WiFi på flåten: SSID NV-Flate-Hestoya, passord {v}",
            lambda v: f'network={{\n    ssid="Barge2-Crew"\n    psk="{v}"\n}}',
            lambda v: f"Clave wifi del pontón Quetalco: {v}",
            lambda v: f"Lykilorð á þráðlausa netinu í vinnslunni: {v}",
        ],
    )
    k(
        S,
        "satellite_router_password",
        lambda: human_pw(rng.choice(["en", "no"])),
        [
            lambda v: (
                f"Starlink router on MS Havtind, local admin page 192.168.100.1 – password {v}"
            ),
            lambda v: f"VSAT modem (iDirect) på brønnbåten: admin / {v}",
            lambda v: (
                f"Cradlepoint at the Langskjær barge, login 'admin' pw {v} – swap after Telenor visit"
            ),
            lambda v: f"Router satelital del centro Chidhuapi: admin {v}",
        ],
    )
    k(
        S,
        "door_access_code",
        lambda: dg(rng.choice([4, 5, 6])),
        [
            lambda v: f"Dørkode slakteriet, bakdør mot kaia: {v}#",
            lambda v: (
                f"Code for the chemicals store at the processing plant is {v} (changed Monday)"
            ),
            lambda v: f"Código de la alarma de la planta de proceso en Calbuco: {v}",
            lambda v: f"Hurðarkóði að fóðurgeymslu: {v}",
        ],
    )
    k(
        S,
        "sim_pin_puk",
        lambda: dg(4),
        [
            lambda v: f"SIM i O2-boya merd 2: PIN {v}",
            lambda v: f"Iridium satphone on the workboat, PIN code {v}",
            lambda v: f"PIN del módem 4G del pontón: {v}",
        ],
    )
    k(
        S,
        "sim_pin_puk",
        lambda: dg(8),
        [
            lambda v: f"PUK til Telia-kortet i sensorgatewayen (om det låser seg): {v}",
        ],
    )
    k(
        S,
        "openssh_private_key",
        ssh_priv,
        [
            lambda v: f"deploy key for barge-gw, paste into ~/.ssh/id_ed25519:\n{v}",
            lambda v: f"id_ed25519 til bastion på prosesseringsanlegget:\n{v}\n",
            lambda v: f"```\n{v}\n```\nclave para entrar al servidor del centro",
        ],
    )
    k(
        S,
        "rsa_private_key",
        rsa_priv,
        [
            lambda v: f"TLS key for edi.nordvikhavbruk.no (AS2 with the customs broker):\n{v}",
            lambda v: f"tls.key: |\n{v}",
            lambda v: f"Einkalykill fyrir vottorðið í vinnslunni:\n{v}",
        ],
    )
    k(
        S,
        "twilio_auth_token",
        lambda: hx(32),
        [
            lambda v: f"TWILIO_ACCOUNT_SID=AC{hx(32)}\nTWILIO_AUTH_TOKEN={v}",
            lambda v: f"SMS-varsling ved lav O2: Twilio sid AC{hx(32)}, token {v}",
            lambda v: f'client = Client("AC{hx(32)}", "{v}")',
        ],
    )
    k(
        S,
        "sendgrid_api_key",
        lambda: "SG." + r(URLS, 22) + "." + r(URLS, 43),
        [
            lambda v: f"SENDGRID_API_KEY={v}",
            lambda v: (
                f"Eksportdokumentene sendes fra noreply@nordvikhavbruk.no via SendGrid, nøkkel {v}"
            ),
            lambda v: f'sg = SendGridAPIClient("{v}")',
        ],
    )
    k(
        S,
        "google_api_key",
        lambda: "AIza" + r(URLS, 35),
        [
            lambda v: f"GOOGLE_MAPS_SERVER_KEY={v}  # geocoding of customer delivery addresses",
            lambda v: (
                f"https://maps.googleapis.com/maps/api/distancematrix/json?origins=Frøya&destinations=Oslo&key={v}"
            ),
            lambda v: f"llave de Google (servidor, sin restricciones!) {v}",
        ],
    )
    k(
        S,
        "azure_storage_key",
        lambda: r(B64, 86) + "==",
        [
            lambda v: (
                f"DefaultEndpointsProtocol=https;AccountName=nvsensorarchive;AccountKey={v};EndpointSuffix=core.windows.net"
            ),
            lambda v: f"AZURE_STORAGE_KEY={v}",
            lambda v: (
                f'az storage blob upload --account-name nvcamera --account-key "{v}" -c frames -f pen04.jpg'
            ),
        ],
    )
    k(
        S,
        "azure_sas_token",
        lambda: r(AN, 40) + "%3D",
        [
            lambda v: (
                f"https://nvexportdocs.blob.core.windows.net/certs?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-06-30T00:00:00Z&spr=https&sig={v}"
            ),
            lambda v: (
                f"SAS til Mattilsynet-opplasting: ?sv=2021-08-06&sr=c&sp=racwl&se=2027-01-31&sig={v}"
            ),
            lambda v: (
                f"AZURE_SAS=sv=2022-11-02&ss=bf&srt=sco&sp=rl&se=2027-03-01T10:00:00Z&sig={v}"
            ),
        ],
    )
    k(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + r(URLS, 74) + "T3BlbkFJ" + r(URLS, 74),
        [
            lambda v: f"OPENAI_API_KEY={v}",
            lambda v: f"agent memory: the lice-report summariser calls OpenAI with {v}",
            lambda v: f'client = OpenAI(api_key="{v}")',
        ],
    )
    k(
        S,
        "openai_api_key",
        lambda: "sk-" + r(AN, 48),
        [
            lambda v: (
                f"Gammel men fortsatt aktiv OpenAI-nøkkel for oversettelse av helsesertifikater: {v}"
            ),
        ],
    )
    k(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + r(URLS, 93) + "AA",
        [
            lambda v: f"ANTHROPIC_API_KEY={v}",
            lambda v: f"Clave de Claude para el asistente de bitácora de centros: {v}",
            lambda v: f"anthropic:\n  api_key: {v}\n  model: claude-sonnet",
        ],
    )
    k(
        S,
        "jwt_session_token",
        lambda: jwt(
            {
                "sub": f"op{dg(4)}",
                "site": "13457",
                "role": "feed_operator",
                "exp": 1798761600 + rng.randrange(9999),
            }
        ),
        [
            lambda v: (
                f'curl -H "Authorization: Bearer {v}" https://feedapi.nordvikhavbruk.no/v2/feeding/plan'
            ),
            lambda v: f"live session token from the barge tablet (valid until spring): {v}",
            lambda v: f"Authorization: Bearer {v}",
        ],
    )
    k(
        S,
        "npm_token",
        lambda: "npm_" + r(AN, 36),
        [
            lambda v: f"//registry.npmjs.org/:_authToken={v}",
            lambda v: f"NPM_TOKEN={v} (publish @nordvik/sensor-ui)",
            lambda v: f"npm-token til CI for dashbordet: {v}",
        ],
    )
    k(
        S,
        "docker_hub_pat",
        lambda: "dckr_pat_" + r(URLS, 27),
        [
            lambda v: f"docker login -u nordvikops -p {v}",
            lambda v: f"DOCKERHUB_TOKEN={v}",
            lambda v: f"Token de Docker Hub para bajar la imagen del gateway: {v}",
        ],
    )
    k(
        S,
        "telegram_bot_token",
        lambda: f"{rng.randrange(5000000000, 7999999999)}:AA{r(URLS, 33)}",
        [
            lambda v: (
                f"https://api.telegram.org/bot{v}/sendMessage?chat_id=-100{dg(10)}&text=Strømbrudd+flåte"
            ),
            lambda v: f"TELEGRAM_BOT_TOKEN={v}",
            lambda v: f"Boten som varsler brønnbåtmannskapet: token {v}",
        ],
    )
    k(
        S,
        "vipps_credentials",
        lambda: r(B64, 44),
        [
            lambda v: f"VIPPS_CLIENT_ID={uuid()}\nVIPPS_CLIENT_SECRET={v}",
            lambda v: f"Vipps-nøklene til fiskebutikken på kaia: client_secret {v}",
        ],
    )
    k(
        S,
        "vipps_credentials",
        lambda: hx(32),
        [
            lambda v: f"Ocp-Apim-Subscription-Key: {v}",
            lambda v: f'vipps:\n  merchant_serial_number: "{dg(6)}"\n  subscription_key: {v}',
        ],
    )
    k(
        S,
        "barentswatch_client_secret",
        lambda: rng.choice([r(AN + "!#", 24), human_pw("no")]),
        [
            lambda v: (
                f"curl -d 'client_id=drift@nordvikhavbruk.no:lusedata&client_secret={v}&grant_type=client_credentials&scope=api' https://id.barentswatch.no/connect/token"
            ),
            lambda v: f"BARENTSWATCH_CLIENT_SECRET={v}",
            lambda v: f"BarentsWatch API-klient 'fiskehelse' – hemmelighet: {v}",
            lambda v: f"agent note: AIS feed for our boats comes from BarentsWatch, secret is {v}",
        ],
    )
    k(
        S,
        "vendor_portal_password",
        lambda: human_pw(rng.choice(["no", "es", "en"])),
        [
            lambda v: f"Fishtalk Control pålogging (felles for røkterne): nvdrift / {v}",
            lambda v: f"Skretting order portal shared login: orders@nordvikhavbruk.no, pw {v}",
            lambda v: f"BioMar Chile portal: usuario compras.nordvik, clave {v}",
            lambda v: f"AKVA connect login for the service tech visit: akvaservice / {v}",
            lambda v: f"Innskráning í fóðurpantanir hjá birgja: lax@nordviklax.is / {v}",
        ],
    )
    k(
        S,
        "government_portal_password",
        lambda: human_pw(rng.choice(["no", "es"])),
        [
            lambda v: f"Altinn virksomhetsbruker for lusetall-rapportering: nvlus01 / {v}",
            lambda v: f"clave SERNAPESCA (SIFA) del centro: {v}",
            lambda v: f"TRACES login for export vet certificates – user nv.export, password {v}",
        ],
    )
    k(
        S,
        "sftp_password",
        lambda: human_pw(rng.choice(["en", "no"])),
        [
            lambda v: (
                f"sftp nordvik@edi.tollagent.no  (pw: {v}) – tolldeklarasjoner legges i /inbound"
            ),
            lambda v: f"SFTP_PASSWORD={v}",
            lambda v: f"lftp -u slaktedata,{v} sftp://files.kunde-eksport.eu",
            lambda v: (
                f"Kunde i Frankrike henter pakkelister fra sftp, bruker nvpack og passord {v}"
            ),
        ],
    )
    k(
        S,
        "datadog_api_key",
        lambda: hx(32),
        [
            lambda v: f"DD_API_KEY={v}",
            lambda v: f"datadog-agent på gateway-boksene: api_key: {v}",
            lambda v: f"docker run -e DD_API_KEY={v} -e DD_SITE=datadoghq.eu datadog/agent:7",
        ],
    )
    k(
        S,
        "grafana_token",
        lambda: "glsa_" + r(AN, 32) + "_" + hx(8),
        [
            lambda v: f"GRAFANA_TOKEN={v}",
            lambda v: f"service account 'o2-dashboard-sync' token: {v}",
            lambda v: (
                f"curl -H 'Authorization: Bearer {v}' https://grafana.nordvikhavbruk.no/api/dashboards/uid/o2"
            ),
        ],
    )
    k(
        S,
        "influxdb_token",
        lambda: r(URLS, 86) + "==",
        [
            lambda v: f"INFLUX_TOKEN={v}",
            lambda v: f"influx write -b sensors -o nordvik -t {v} -f o2.lp",
            lambda v: (
                f'[[outputs.influxdb_v2]]\n  urls = ["https://influx.nordvikhavbruk.no"]\n  token = "{v}"\n  bucket = "sjo"'
            ),
        ],
    )
    k(
        S,
        "vault_token",
        lambda: "hvs." + r(AN, 91),
        [
            lambda v: f"VAULT_TOKEN={v}",
            lambda v: f"vault login {v}",
            lambda v: f"root token fra unseal-seremonien (skulle vært revokert, er ikke det): {v}",
        ],
    )
    k(
        S,
        "recovery_codes",
        lambda: " ".join(f"{r(LO + DG, 4)}-{r(LO + DG, 4)}" for _ in range(4)),
        [
            lambda v: f"Backup codes for the ops@ Google account: {v}",
            lambda v: f"Gjenopprettingskoder for Microsoft-kontoen til fôringssentralen: {v}",
            lambda v: f"códigos de recuperación 2FA de la cuenta de exportación: {v}",
        ],
    )
    k(
        S,
        "recovery_codes",
        lambda: " ".join(dg(8) for _ in range(5)),
        [
            lambda v: f"GitHub recovery codes (org owner nvops):\n{v}",
        ],
    )
    k(
        S,
        "internal_service_token",
        lambda: "nvh_live_" + r(AN, 32),
        [
            lambda v: f"NVH_API_TOKEN={v}",
            lambda v: f"Token til intern sporbarhets-API (pallelabels): {v}",
            lambda v: (
                f"curl -H 'X-NVH-Token: {v}' https://trace.nordvikhavbruk.no/api/lots/24-0931"
            ),
        ],
    )
    k(
        S,
        "basic_auth_header",
        lambda: base64.b64encode(
            f"{rng.choice(['feedsvc', 'tolldata', 'cam-ro'])}:{human_pw('en')}".encode()
        ).decode(),
        [
            lambda v: f"Authorization: Basic {v}",
            lambda v: f'curl -H "Authorization: Basic {v}" https://barge-hestoya.local/api/silos',
            lambda v: f'headers = {{"Authorization": "Basic {v}"}}  # feeding API on the barge',
        ],
    )
    k(
        S,
        "smtp_password",
        lambda: rng.choice([human_pw("no"), r(AN, 16)]),
        [
            lambda v: (
                f"SMTP_HOST=smtp.office365.com\nSMTP_USER=eksport@nordvikhavbruk.no\nSMTP_PASSWORD={v}"
            ),
            lambda v: f"App-passord for postkassen som sender slakterapporter: {v}",
            lambda v: (
                f"mail:\n  smtp: mail.nordvik.cl\n  user: avisos@nordvik.cl\n  password: '{v}'"
            ),
        ],
    )
    k(
        S,
        "redis_url_password",
        lambda: r(AN, 32),
        [
            lambda v: f"REDIS_URL=rediss://default:{v}@redis.nordvikhavbruk.no:6380/0",
            lambda v: f"redis-cli -h cache-feed -a {v} ping",
            lambda v: f"cache: redis://:{v}@10.20.4.30:6379/2",
        ],
    )
    k(
        S,
        "mongodb_uri_password",
        lambda: rng.choice([r(AN, 16), human_pw("es")]),
        [
            lambda v: (
                f"MONGO_URI=mongodb+srv://trace_app:{v}@cluster0.x7h2q.mongodb.net/trace?retryWrites=true"
            ),
            lambda v: f'mongosh "mongodb://sensors:{v}@mongo01:27017/sensors?authSource=admin"',
            lambda v: (
                f"conexión Mongo del app de cosechas: mongodb://cosecha:{v}@db.nordvik.cl/cosecha"
            ),
        ],
    )
    k(
        S,
        "backup_passphrase",
        lambda: phrase(4),
        [
            lambda v: f"RESTIC_PASSWORD={v}",
            lambda v: f"Krypteringsfrasen til backupen av HMI-prosjektene: {v}",
            lambda v: f"Veeam encryption password for the plant NAS jobs: {v}",
            lambda v: (
                f"BitLocker-gjenoppretting er i AD, men VeraCrypt-disken på flåten har passfrase {v}"
            ),
        ],
    )
    k(
        S,
        "password_manager_master",
        lambda: phrase(5, " "),
        [
            lambda v: f"Hovedpassord til KeePass-fila for driftssentralen: {v}",
            lambda v: f"Bitwarden master password for the shared ops org: {v}",
            lambda v: f"contraseña maestra del KeePass de los centros: {v}",
        ],
    )
    k(
        S,
        "azure_client_secret",
        lambda: r(AN, 3) + "8Q~" + r(AN + "_.~-", 34),
        [
            lambda v: f"AZURE_CLIENT_ID={uuid()}\nAZURE_CLIENT_SECRET={v}",
            lambda v: f"App registration 'fishtalk-powerbi': client secret {v} (expires 2027-11)",
            lambda v: f"Klienthemmelighet til Entra-appen for slaktelister: {v}",
        ],
    )
    k(
        S,
        "gcp_service_account_key",
        pkcs8_escaped,
        [
            lambda v: (
                f'{{"type": "service_account", "project_id": "nv-lice-vision", "private_key_id": "{hx(40)}", "private_key": "{v}", "client_email": "vision@nv-lice-vision.iam.gserviceaccount.com"}}'
            ),
            lambda v: f'GOOGLE_PRIVATE_KEY="{v}"',
            lambda v: f'private_key: "{v}"',
        ],
    )
    k(
        S,
        "atlassian_api_token",
        lambda: "ATATT3xFfGF0" + r(URLS, 170) + "=" + hx(8).upper(),
        [
            lambda v: f"JIRA_API_TOKEN={v}",
            lambda v: (
                f"curl -u drift@nordvikhavbruk.no:{v} https://nordvik.atlassian.net/rest/api/3/issue/DRIFT-1432"
            ),
            lambda v: f"Confluence-token for agenten som skriver driftslogg: {v}",
        ],
    )
    k(
        S,
        "sensor_cloud_api_key",
        lambda: r(AN, 40),
        [
            lambda v: f"x-api-key: {v}  # OxyGuard cloud, all sites",
            lambda v: f"SENSOR_CLOUD_API_KEY={v}",
            lambda v: f"API-nøkkel for strømmålerne (Aanderaa SeaGuard) i portalen: {v}",
        ],
    )
    k(
        S,
        "url_embedded_credentials",
        lambda: human_pw(rng.choice(["no", "en"])),
        [
            lambda v: f"ftp://vekt:{v}@10.30.1.15/export/slaktevekt.csv",
            lambda v: f"wget https://backup:{v}@nas-slakteri.local/share/hmi/",
            lambda v: f"http://operator:{v}@barge2-hmi.local:8080/alarms",
        ],
    )
    k(
        S,
        "bank_api_client_secret",
        lambda: r(AN, 48),
        [
            lambda v: f"DNB Open Banking sandbox er ferdig, prod client_secret: {v}",
            lambda v: f"BANK_API_CLIENT_SECRET={v}",
            lambda v: f"client_secret de la API del banco para pagos a proveedores: {v}",
        ],
    )
    k(
        S,
        "boat_system_password",
        lambda: human_pw(rng.choice(["no", "is", "en"])),
        [
            lambda v: f"Kartmaskina på arbeidsbåten (Olex) – Windows-passord {v}",
            lambda v: f"Wellboat treatment control PC login: captain / {v}",
            lambda v: f"Lykilorð í brúartölvu þjónustubátsins: {v}",
            lambda v: (
                f"Bridge PC on MS Havtind, user 'bro', pw {v} (the old one leaked on the sticker)"
            ),
        ],
    )
    k(
        S,
        "wireguard_private_key",
        wg_key,
        [
            lambda v: f"[Interface]\nPrivateKey = {v}\nAddress = 10.99.0.12/32",
            lambda v: f"WG privatnøkkel for flåte-VPN på Skarvholmen: {v}",
            lambda v: f"wg set wg0 private-key <(echo {v})",
        ],
    )

    # ------------------------------------------------------------------ benign
    k(
        B,
        "git_commit_sha",
        lambda: hx(40),
        [
            lambda v: f"Deployed feed-optimizer {v} to barge-hestoya at 06:10",
            lambda v: f"Rollback til commit {v} – fôringskurven ble feil etter siste endring",
            lambda v: f"fix merged in {v[:12]} (full sha {v})",
        ],
    )
    k(
        B,
        "sha256_digest",
        lambda: hx(64),
        [
            lambda v: f"sha256sum firmware_o2buoy_3.4.1.bin\n{v}  firmware_o2buoy_3.4.1.bin",
            lambda v: f"SHA-256 av helsesertifikatet (PDF) sendt til kunden: {v}",
            lambda v: f"checksum del archivo de cosecha: {v}",
        ],
    )
    k(
        B,
        "docker_image_digest",
        lambda: "sha256:" + hx(64),
        [
            lambda v: f"image: ghcr.io/nordvik-havbruk/barge-gateway@{v}",
            lambda v: f"pinned lice-vision to {v}",
            lambda v: f"Digest: {v}",
        ],
    )
    k(
        B,
        "device_uuid",
        uuid,
        [
            lambda v: f"O2-sensor merd 7 har device id {v} i portalen",
            lambda v: f'{{"device_id": "{v}", "type": "temp", "depth_m": 5}}',
            lambda v: f"ID del dispositivo (gateway pontón): {v}",
            lambda v: f"Camera box Langskjær pen 3 → asset {v}",
        ],
    )
    k(
        B,
        "ssh_public_key",
        ssh_pub,
        [
            lambda v: f"Add to authorized_keys on barge-gw: {v} ola@driftssentral",
            lambda v: f"public key for the CI runner: {v} ci@nordvik",
            lambda v: f"llave pública del técnico: {v} tecnico@calbuco",
        ],
    )
    k(
        B,
        "x509_certificate",
        cert,
        [
            lambda v: f"CA-sertifikatet til MQTT-brokeren (offentlig, kan distribueres):\n{v}",
            lambda v: f"ca.crt: |\n{v}",
            lambda v: f"Skilríki (opinbert) fyrir vefþjón vinnslunnar:\n{v}",
        ],
    )
    k(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + r(AN, 99),
        [
            lambda v: f"NEXT_PUBLIC_STRIPE_KEY={v}",
            lambda v: f"publishable key for webshop checkout (safe in frontend): {v}",
            lambda v: f"<script>const stripe = Stripe('{v}');</script>",
        ],
    )
    k(
        B,
        "recaptcha_site_key",
        lambda: "6L" + r(URLS, 38),
        [
            lambda v: f'<div class="g-recaptcha" data-sitekey="{v}"></div>',
            lambda v: f"reCAPTCHA site key for besøksbooking på slakteriet: {v}",
            lambda v: f"RECAPTCHA_SITE_KEY={v}",
        ],
    )
    k(
        B,
        "mapbox_public_token",
        lambda: (
            "pk."
            + b64u(json.dumps({"u": "nordvik", "a": r(LO + DG, 25)}).encode())
            + "."
            + r(URLS, 22)
        ),
        [
            lambda v: (
                f"mapboxgl.accessToken = '{v}'; // public token, URL-restricted to kart.nordvikhavbruk.no"
            ),
            lambda v: f"Offentlig Mapbox-token for lokalitetskartet: {v}",
            lambda v: f"MAPBOX_PUBLIC_TOKEN={v}",
        ],
    )
    k(
        B,
        "ga_measurement_id",
        lambda: "G-" + r(UP + DG, 10),
        [
            lambda v: f"gtag('config', '{v}');",
            lambda v: f"Google Analytics for nettbutikken: {v}",
            lambda v: f"ID de medición de la web de Salmones Nordvik: {v}",
        ],
    )
    k(
        B,
        "placeholder_value",
        lambda: rng.choice(
            [
                "<your-token-here>",
                "changeme",
                "xxxxxxxxxxxxxxxx",
                "REPLACE_ME",
                "<PASSORD>",
                "TU_CLAVE_AQUI",
                "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
                "********",
            ]
        ),
        [
            lambda v: f"MQTT_PASSWORD={v}  # fyll inn lokalt, ikke commit",
            lambda v: f'api_key: "{v}"',
            lambda v: f"template .env.example: SENDGRID_API_KEY={v}",
            lambda v: f"En el README: reemplazar {v} por la clave real del centro",
            lambda v: f"password: {v} (set via ansible-vault on deploy)",
        ],
    )
    k(
        B,
        "masked_secret",
        lambda: rng.choice(
            [
                "sk_live_" + "*" * 20 + r(AN, 4),
                "ghp_" + "•" * 8 + r(AN, 4),
                "xoxb-****-****-" + r(AN, 4),
                r(AN, 4) + "…" + r(AN, 4),
                "AKIA************" + r(UP + DG, 4),
            ]
        ),
        [
            lambda v: f"The provider console shows the active key as {v}",
            lambda v: f"Loggen viser token={v} (maskert av logger)",
            lambda v: f"Key ending: {v} — rotated by Kari on Tuesday",
            lambda v: f"clave mostrada en la consola: {v}",
        ],
    )
    k(
        B,
        "env_var_reference",
        lambda: rng.choice(
            [
                "${MQTT_PASSWORD}",
                "$env:VIPPS_CLIENT_SECRET",
                'os.environ["SENDGRID_API_KEY"]',
                "${{ secrets.DOCKERHUB_TOKEN }}",
                "process.env.STRIPE_SECRET_KEY",
                "%INFLUX_TOKEN%",
            ]
        ),
        [
            lambda v: f"password: {v}",
            lambda v: f"key = {v}",
            lambda v: f"Husk at workflowen leser {v}, ikke hardkod noe",
            lambda v: f"-t {v}",
            lambda v: f"la contraseña se toma de {v}",
        ],
    )
    k(
        B,
        "vault_path",
        lambda: rng.choice(
            [
                "secret/data/sjo/forflate/hestoya/plc",
                "kv/havbruk/prod/vipps",
                "secret/chile/centros/mqtt",
                "kv/slakteri/sql/etikett",
                "secret/data/boats/havtind/vsat",
            ]
        ),
        [
            lambda v: f"vault kv get {v}",
            lambda v: f"PLC-passordet ligger i Vault under {v}",
            lambda v: f"secret ref: vault:{v}#password",
            lambda v: f"credenciales en {v}",
        ],
    )
    k(
        B,
        "password_manager_reference",
        lambda: rng.choice(
            [
                "op://Drift/Barge Hestoya PLC/password",
                "op://Eksport/TRACES/credential",
                "op://Chile/Camaras Jaula 3/password",
                "op://Slakteri/Dørkoder/notesPlain",
            ]
        ),
        [
            lambda v: f"PLC_PASSWORD={v}",
            lambda v: f'op read "{v}"',
            lambda v: f"Dørkodene står i 1Password: {v}",
        ],
    )
    k(
        B,
        "revoked_key",
        lambda: "sk_live_" + r(AN, 24),
        [
            lambda v: (
                f"REVOKED 2026-10-02: {v} was pasted in #general, rolled in Stripe the same hour"
            ),
        ],
    )
    k(
        B,
        "revoked_key",
        lambda: "ghp_" + r(AN, 36),
        [
            lambda v: (
                f"Tilbakekalt token (gjelder ikke lenger, kun for sporing i hendelsesrapport): {v}"
            ),
        ],
    )
    k(
        B,
        "revoked_key",
        lambda: "xoxb-" + dg(12) + "-" + dg(13) + "-" + r(AN, 24),
        [
            lambda v: f"Incident INC-311: leaked bot token {v} – revoked by Slack admin, replaced",
        ],
    )
    k(
        B,
        "revoked_key",
        lambda: "AIza" + r(URLS, 35),
        [
            lambda v: f"clave revocada y eliminada en GCP (no usar): {v}",
        ],
    )
    k(
        B,
        "password_policy_text",
        lambda: rng.choice(
            [
                "minimum 14 characters",
                "rotate every 90 days",
                "minst 12 tegn",
                "mínimo 12 caracteres",
            ]
        ),
        [
            lambda v: (
                f"Policy for HMI accounts on the barges: {v}, no shared logins, MFA where the vendor supports it."
            ),
            lambda v: f"Passordregler for driftsbrukere: {v}, og aldri skriv passord i loggboka.",
            lambda v: (
                f"Política de claves para los centros: {v}; las claves van en el gestor, no en WhatsApp."
            ),
            lambda v: (
                f"Device passwords: {v}; default admin passwords must be changed at commissioning."
            ),
        ],
    )
    k(
        B,
        "documented_example_key",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        [
            lambda v: f"From the AWS docs: aws_access_key_id = {v}",
        ],
    )
    k(
        B,
        "documented_example_key",
        lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        [
            lambda v: f"test fixture uses the AWS documentation secret {v}",
        ],
    )
    k(
        B,
        "documented_example_key",
        lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            lambda v: f"Eksempel-JWT fra jwt.io brukt i enhetstesten: {v}",
        ],
    )
    k(
        B,
        "documented_example_key",
        lambda: "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        [
            lambda v: f"Slack docs example webhook, keep as default in config.sample: {v}",
        ],
    )
    k(
        B,
        "documented_example_key",
        lambda: "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        [
            lambda v: f"clave de ejemplo de la documentación de Stripe: {v}",
        ],
    )
    k(
        B,
        "documented_example_key",
        lambda: "xoxb-not-a-real-token-this-will-not-work",
        [
            lambda v: f"Slack SDK README example token, used in our mock server: {v}",
        ],
    )
    k(
        B,
        "site_number",
        lambda: dg(5),
        [
            lambda v: f"Lokalitet Hestøya (lok.nr. {v}) – lusetelling uke 48 levert",
            lambda v: f"site {v}: biomass 2 140 t, 8 pens in use",
            lambda v: f"Rapport til Mattilsynet for lokalitetsnummer {v}",
        ],
    )
    k(
        B,
        "site_number",
        lambda: "10" + dg(4),
        [
            lambda v: f"Código de centro {v} (Quetalco), declaración SIFA enviada",
        ],
    )
    k(
        B,
        "pen_id",
        lambda: rng.choice(["M", "P", "J", "K"]) + "-" + dg(2),
        [
            lambda v: f"Merd {v}: dødfisk 37 stk i dag, normal",
            lambda v: f"Pen {v} net change scheduled for Thursday",
            lambda v: f"jaula {v} con apetito bajo",
            lambda v: f"Kví {v}: fóðrun stöðvuð vegna veðurs",
        ],
    )
    k(
        B,
        "vessel_identifier",
        imo,
        [
            lambda v: f"MS Havtind, IMO {v}, kommer til kai 14:00",
            lambda v: f"Well boat IMO number {v} (charter from Sølvtrans)",
            lambda v: f"buque IMO {v} llega a Calbuco el martes",
        ],
    )
    k(
        B,
        "vessel_identifier",
        lambda: "257" + dg(6),
        [
            lambda v: f"MMSI {v} – arbeidsbåten vår, sjekk i AIS om den er ute",
            lambda v: f"AIS: {v}  SOG 8.2 kn  COG 214",
        ],
    )
    k(
        B,
        "sensor_serial",
        lambda: "SN " + dg(4),
        [
            lambda v: f"Aanderaa 4835 optode {v} sent for calibration",
            lambda v: f"O2-sensor merd 3 byttet: ny {v}",
        ],
    )
    k(
        B,
        "sensor_serial",
        lambda: "OXG-" + dg(6) + "-" + r(UP, 2),
        [
            lambda v: f"número de serie del sensor de oxígeno: {v}",
            lambda v: f"Raðnúmer hitanema: {v}",
        ],
    )
    k(
        B,
        "pit_tag_id",
        lambda: "578" + dg(12),
        [
            lambda v: f"PIT-merket stamfisk {v} flyttet til kar 4",
            lambda v: f"broodstock tag {v}: female, 9.4 kg",
            lambda v: f"pez marcado {v} muestreado para genética",
        ],
    )
    k(
        B,
        "feed_lot_number",
        lambda: f"{rng.randrange(24, 27)}-{dg(4)}-{rng.choice(UP[:4])}",
        [
            lambda v: f"Fôrlevering Skretting, lot {v}, 9 mm, 52 tonn til silo 3",
            lambda v: f"feed batch {v} flagged by QA for pellet fines",
            lambda v: f"lote de alimento {v} recibido en pontón",
        ],
    )
    k(
        B,
        "traces_ched_reference",
        lambda: f"CHEDP.NO.{rng.randrange(2025, 2027)}.{dg(7)}",
        [
            lambda v: f"Health certificate for truck to Boulogne: {v}",
            lambda v: f"TRACES-referanse {v} godkjent av Mattilsynet 06:40",
            lambda v: f"certificado sanitario de exportación {v}",
        ],
    )
    k(
        B,
        "hs_code",
        lambda: rng.choice(["0302.14.00", "0304.41.00", "0303.13.00", "0305.41.00"]),
        [
            lambda v: f"Varenummer {v} på proformafakturaen",
            lambda v: f"HS code {v} — fresh Atlantic salmon, whole",
            lambda v: f"código arancelario {v}",
        ],
    )
    k(
        B,
        "customs_mrn",
        lambda: f"{rng.randrange(25, 27)}NO{r(UP + DG, 12)}E{dg(1)}",
        [
            lambda v: f"Utførselsdeklarasjon MRN {v} – bil 3 klarert på Svinesund",
            lambda v: f"export declaration MRN: {v}",
            lambda v: f"MRN {v}",
        ],
    )
    k(
        B,
        "air_waybill",
        awb,
        [
            lambda v: f"AWB {v}, 14 PMC, OSL-PVG, fresh salmon",
            lambda v: f"Flyfraktbrev {v} til Seoul – booket for torsdag",
            lambda v: f"guía aérea {v} (PMC → Miami)",
        ],
    )
    k(
        B,
        "container_number",
        container,
        [
            lambda v: f"Reefer {v} set to -22 °C, frozen fillets to Busan",
            lambda v: f"Kontainer {v} lastet på Ålesund kai",
            lambda v: f"contenedor {v} con salmón congelado a Japón",
        ],
    )
    k(
        B,
        "iban",
        iban_no,
        [
            lambda v: f"Betal fakturaen fra notvaskeriet til {v}",
            lambda v: f"Customer pays to our account IBAN {v}, BIC DNBANOKKXXX",
            lambda v: f"cuenta IBAN de Nordvik Havbruk AS: {v}",
        ],
    )
    k(
        B,
        "org_number",
        orgnr,
        [
            lambda v: f"Nordvik Havbruk AS, org.nr. {v}",
            lambda v: f"supplier onboarding: org number {v} (Frøya Brønnbåt AS)",
            lambda v: f"Organisasjonsnummer {v} brukes i Altinn-innsendingen",
        ],
    )
    k(
        B,
        "gtin",
        gtin,
        [
            lambda v: f"GTIN {v} for 'Laks hel 4-5 kg, 20 kg kasse'",
            lambda v: f"EAN på etiketten: {v}",
            lambda v: f"código GTIN del filete trim D: {v}",
        ],
    )
    k(
        B,
        "invoice_number",
        lambda: f"{rng.choice(['INV', 'FAK', 'FAC'])}-{rng.randrange(2025, 2027)}-{dg(5)}",
        [
            lambda v: f"Faktura {v} fra fôrleverandøren er godkjent",
            lambda v: f"invoice {v} disputed: 3 boxes short",
            lambda v: f"factura {v} pagada",
        ],
    )
    k(
        B,
        "travel_booking_ref",
        lambda: r(UP + DG, 6),
        [
            lambda v: f"Fly til Puerto Montt for Ingrid, booking ref {v}",
            lambda v: f"Hurtigbåt-bestilling Hitra–Trondheim: referanse {v}",
            lambda v: f"reserva de hotel en Castro, código {v}",
        ],
    )
    k(
        B,
        "ticket_reference",
        lambda: rng.choice(["DRIFT", "SJO", "EXP", "IT"]) + "-" + str(rng.randrange(100, 9999)),
        [
            lambda v: f"see {v} for the barge generator fault",
            lambda v: f"Sak {v}: bytte lys i merd 2",
            lambda v: f"ticket {v} cerrado",
        ],
    )
    k(
        B,
        "ticket_reference",
        lambda: "INC" + dg(7),
        [
            lambda v: f"ServiceNow {v} – Starlink nede på Langskjær",
        ],
    )
    k(
        B,
        "build_version",
        lambda: f"{rng.randrange(1, 9)}.{rng.randrange(0, 20)}.{rng.randrange(0, 30)}",
        [
            lambda v: f"HMI firmware oppgradert til v{v} på flåte 2",
            lambda v: f"feed-optimizer release {v}+build.{dg(4)}",
            lambda v: f"versión {v} del app de bitácora",
        ],
    )
    k(
        B,
        "mac_address",
        lambda: ":".join(hx(2) for _ in range(6)).upper(),
        [
            lambda v: f"DHCP reservation for camera pen 5: {v} → 10.20.7.25",
            lambda v: f"MAC til O2-gatewayen: {v}",
            lambda v: f"dirección MAC del radioenlace: {v}",
        ],
    )
    k(
        B,
        "ip_or_hostname",
        lambda: rng.choice(
            [
                f"10.20.{rng.randrange(1, 20)}.{rng.randrange(2, 250)}",
                "barge-hestoya.local",
                f"gw{dg(2)}.sjo.nordvikhavbruk.no",
            ]
        ),
        [
            lambda v: f"ping {v}",
            lambda v: f"Flåte-PLC nås på {v} via VPN",
            lambda v: f"host: {v}",
        ],
    )
    k(
        B,
        "trace_id",
        lambda: hx(32),
        [
            lambda v: (
                f"2026-11-30T04:12:55Z ERROR feed-api trace_id={v} silo 2 level sensor timeout"
            ),
            lambda v: f"request id {v} in the TRACES upload log",
            lambda v: f"span_id/trace {v} viser at silo-API brukte 4 s",
            lambda v: f"correlation-id: {v}",
        ],
    )
    k(
        B,
        "slack_object_id",
        lambda: rng.choice(["C", "U", "G"]) + r(UP + DG, 10),
        [
            lambda v: f"post alarms to channel id {v}",
            lambda v: f"Slack-bruker-ID til vakthavende: {v}",
            lambda v: f"canal {v} para alertas de Chile",
        ],
    )
    k(
        B,
        "aws_arn_or_account",
        lambda: dg(12),
        [
            lambda v: f"arn:aws:s3:::nv-lice-images-{v}",
            lambda v: f"AWS account {v} (prod-sjo)",
            lambda v: f"AWS-kontonummer for eksportdokumenter: {v}",
            lambda v: f"role_arn = arn:aws:iam::{v}:role/ExportDocsWriter",
        ],
    )
    k(
        B,
        "azure_tenant_id",
        uuid,
        [
            lambda v: f"AZURE_TENANT_ID={v}",
            lambda v: f"Tenant ID for Nordvik Havbruk (Entra): {v}",
            lambda v: f'"subscriptionId": "{v}"',
        ],
    )
    k(
        B,
        "twilio_account_sid",
        lambda: "AC" + hx(32),
        [
            lambda v: f"Twilio account SID {v} (token is in Vault)",
            lambda v: f"TWILIO_ACCOUNT_SID={v}",
            lambda v: f"Konto-SID for SMS-varsling: {v}",
        ],
    )
    k(
        B,
        "wireguard_public_key",
        wg_key,
        [
            lambda v: f"[Peer]\nPublicKey = {v}\nAllowedIPs = 10.99.0.0/24",
            lambda v: f"offentlig WG-nøkkel til driftssentralen: {v}",
            lambda v: f"clave pública del peer pontón: {v}",
        ],
    )
    k(
        B,
        "pgp_fingerprint",
        lambda: " ".join(hx(4).upper() for _ in range(10)),
        [
            lambda v: f"Verify the vendor's signed firmware with key fingerprint {v}",
            lambda v: f"PGP-fingeravtrykk for eksport@: {v}",
            lambda v: f'gpg --recv-keys "{v}"',
            lambda v: f"huella PGP: {v}",
        ],
    )
    k(
        B,
        "bcrypt_hash",
        lambda: "$2b$12$" + r(AN + "./", 53),
        [
            lambda v: f"users.csv import: ola.nordmann,{v}",
            lambda v: f"hash lagret i DB for operatørkontoen: {v}",
            lambda v: f'password_hash: "{v}"',
        ],
    )
    k(
        B,
        "k8s_secret_ref",
        lambda: rng.choice(["mqtt-credentials", "vipps-api", "influx-token", "feed-plc-auth"]),
        [
            lambda v: f"valueFrom:\n  secretKeyRef:\n    name: {v}\n    key: password",
            lambda v: f"kubectl -n sjo describe secret {v}",
            lambda v: f"envFrom:\n  - secretRef:\n      name: {v}",
        ],
    )
    k(
        B,
        "npm_integrity_hash",
        lambda: "sha512-" + base64.b64encode(rb(64)).decode(),
        [
            lambda v: f'"integrity": "{v}"',
            lambda v: f"lockfile integrity for mqtt@5.3.4: {v}",
            lambda v: f"integridad del paquete en package-lock: {v}",
        ],
    )
    k(
        B,
        "cert_thumbprint",
        lambda: hx(40).upper(),
        [
            lambda v: f"Thumbprint of the AS2 partner certificate: {v}",
            lambda v: f"Sertifikat-thumbprint (SHA1) for EDI: {v}",
            lambda v: f"huella del certificado: {v}",
        ],
    )
    k(
        B,
        "plc_tag_address",
        lambda: rng.choice(
            [
                f"%MW{rng.randrange(100, 900)}",
                f"DB{rng.randrange(1, 60)}.DBW{rng.randrange(0, 200, 2)}",
                f"40{dg(3)}",
            ]
        ),
        [
            lambda v: f"Silo level for silo 3 is read from {v}",
            lambda v: f"Modbus-register {v} = doserhastighet kg/min",
            lambda v: f"tag de alarma de bajo nivel: {v}",
        ],
    )
    k(
        B,
        "aquaculture_licence",
        lambda: f"{rng.choice(['H', 'ST', 'NT', 'M'])}-{rng.choice(['F', 'H', 'T'])} {dg(4)}",
        [
            lambda v: f"Konsesjon {v} knyttet til lokalitet Hestøya",
            lambda v: f"licence number {v} (MAB 780 t)",
        ],
    )
    k(
        B,
        "aquaculture_licence",
        lambda: f"FE-{rng.randrange(2010, 2025)}-{dg(3)}",
        [
            lambda v: f"Rekstrarleyfi {v} fyrir Dýrafjörð",
            lambda v: f"Tillatelse {v} – MTB økt etter trafikklys grønt",
        ],
    )
    k(
        B,
        "fish_health_report_ref",
        lambda: f"FHR-{rng.randrange(2025, 2027)}-{dg(4)}",
        [
            lambda v: f"Fiskehelserapport {v}: AGD-score 1 i merd 5",
            lambda v: f"vet visit report {v} attached to DRIFT-2210",
            lambda v: f"informe sanitario {v}",
        ],
    )
    k(
        B,
        "gps_coordinates",
        lambda: f"{rng.uniform(62.5, 70.5):.5f}, {rng.uniform(5.0, 20.0):.5f}",
        [
            lambda v: f"Flåteposisjon: {v}",
            lambda v: f"anchor point 4 at {v}",
            lambda v: f"Staðsetning kvíar 2: {v}",
            lambda v: f"coordenadas del centro: {v}",
        ],
    )
    k(
        B,
        "vipps_merchant_serial",
        lambda: dg(6),
        [
            lambda v: f"Vipps MSN for fiskebutikken: {v}",
            lambda v: f"merchant serial number {v} (test shop)",
            lambda v: f"MSN {v} står på Vipps-avtalen, ikke hemmelig",
        ],
    )
    k(
        B,
        "influx_org_bucket_id",
        lambda: hx(16),
        [
            lambda v: f'org_id = "{v}"',
            lambda v: f"bucket id for 'sjo-temperatur': {v}",
            lambda v: f"influx bucket list → {v}  sensors  30d",
        ],
    )
    k(
        B,
        "internal_publishable_key",
        lambda: "nvh_pub_" + r(AN, 24),
        [
            lambda v: f"NVH_PUBLIC_KEY={v}  # offentlig, brukes i kundeportalen",
            lambda v: f"publishable key for the trace widget on the salmon boxes: {v}",
            lambda v: f"clave pública del widget de trazabilidad: {v}",
        ],
    )

    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()

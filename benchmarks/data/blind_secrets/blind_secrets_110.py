# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 110: private security company (ARC, guard patrol, CCTV, access control, key holding).

Brief: memory notes kept by the team and AI coding agents of a private security
company that runs an alarm receiving centre (ARC), guard patrol apps, CCTV and
access control installations and key holding for clients. Rows are prose notes,
handover lines, chat messages, commands, config and .env lines, YAML, JSON, URLs,
tables and log lines in English, German, Dutch and French. Secret rows hold live
credentials (vendor API keys, panel engineer codes, UDL passwords, client
verbal passwords, key safe codes, NVR admin passwords, SIA DC-09 keys, cloud and
CI tokens, webhooks...); benign rows hold look-alikes a careful reader would store.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_110.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_pat, github_fine_grained_pat, gitlab_pat,
slack_bot_token, slack_webhook_url, teams_webhook_url, twilio_auth_token, sendgrid_api_key,
stripe_secret_key, gocardless_access_token, postgres_connection_string, mssql_password,
alarm_engineer_code, alarm_udl_password, alarm_user_code, client_verbal_password, duress_code,
key_safe_code, key_cabinet_pin, nvr_admin_password, rtsp_url_with_credentials,
hik_connect_verification_code, vms_service_password, gallagher_api_key, tracktik_client_secret,
patrol_app_shared_login, device_unlock_pin, wifi_psk, ipsec_psk, sip_password, smtp_password,
openssh_private_key, rsa_private_key, jwt_signing_secret, azure_storage_connection_string,
google_api_key, openai_api_key, anthropic_api_key, telegram_bot_token, npm_token,
docker_hub_pat, vault_token, datadog_api_key, mapbox_secret_token, fcm_server_key,
mfa_recovery_code, basic_auth_url, sia_dc09_aes_key, pagerduty_routing_key.

Kinds, benign: arc_account_number, receiver_line_id, contact_id_event, panel_serial,
nvr_serial, mac_address, device_ip, wiegand_card_format, site_reference, incident_reference,
ticket_reference, nfc_checkpoint_tag, sia_licence_number, aws_documented_example,
stripe_publishable_key, stripe_test_card, recaptcha_site_key, sha256_digest, git_commit_sha,
docker_image_digest, ssh_public_key, certificate_pem, placeholder, env_var_reference,
vault_path, masked_value, redacted_log, revoked_token, password_policy, azure_tenant_id,
twilio_account_sid, slack_channel_id, firmware_version, shift_booking_reference,
invoice_number, company_iban, phone_number, vehicle_plate, key_tag_number, sim_iccid,
device_imei, bcrypt_hash, gpg_fingerprint, oauth_client_id, mapbox_public_token,
k8s_secret_ref, aws_arn, stripe_object_id, gocardless_mandate_id, npm_integrity,
alarm_event_log, zone_list, gps_checkpoint.
"""

import base64
import json
import random
import string
import sys

SEED = 49320

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIG = string.digits
HEX = "0123456789abcdef"
AN = string.ascii_letters + string.digits
URLSAFE = AN + "-_"
B64 = AN + "+/"

WORDS = [
    "Nachtdienst",
    "Sentinel",
    "Patrouille",
    "Kestrel",
    "Wachhund",
    "Bastion",
    "Falke",
    "Vigilant",
    "Lighthouse",
    "Rondgang",
    "Gardien",
    "Schlüssel",
    "Harbour",
    "Citadel",
    "Nachtwacht",
    "Beacon",
    "Grizzly",
    "Vosges",
    "Eindhoven",
    "Rotterdam",
    "Ostsee",
]
SYMS = "!#$%&*?."


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def r(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def guid() -> str:
        return f"{r(HEX, 8)}-{r(HEX, 4)}-4{r(HEX, 3)}-{rng.choice('89ab')}{r(HEX, 3)}-{r(HEX, 12)}"

    def pin(n: int) -> str:
        while True:
            p = r(DIG, n)
            if len(set(p)) >= 3 and p not in "0123456789" and p not in "9876543210":
                return p

    def human_pw() -> str:
        w = rng.choice(WORDS)
        style = rng.randrange(4)
        if style == 0:
            return f"{w}{rng.randint(2019, 2026)}{rng.choice(SYMS)}"
        if style == 1:
            return f"{w}{rng.choice(SYMS)}{rng.randint(10, 99)}{rng.choice(WORDS)[:3].lower()}"
        if style == 2:
            return f"{rng.choice(SYMS)}{w.lower()}{rng.randint(100, 999)}{rng.choice(UPPER)}"
        return f"{w[:4]}{rng.randint(1, 9)}{rng.choice(WORDS).lower()}{rng.choice(SYMS)}{rng.randint(0, 9)}"

    def passphrase() -> str:
        return "-".join(
            rng.choice(
                [
                    "tulp",
                    "anker",
                    "moulin",
                    "kaffee",
                    "rond",
                    "sleutel",
                    "brume",
                    "lantaarn",
                    "hagel",
                    "forêt",
                    "nebel",
                    "kiosk",
                    "otter",
                ]
            )
            for _ in range(4)
        ) + str(rng.randint(1, 99))

    def b64url_json(obj: dict) -> str:
        return (
            base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    def pem_body(lines: int, first: str = "") -> str:
        out = []
        for i in range(lines):
            line = r(B64, 64 if i < lines - 1 else rng.randint(20, 60))
            if i == 0 and first:
                line = first + line[len(first) :]
            out.append(line)
        return "\n".join(out)

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for t in templates:
            v = gen()
            text = t.replace("@@", v)
            assert v in text, (kind, v, text)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    def S(kind, gen, templates):
        add("secret", kind, gen, templates)

    def B(kind, gen, templates):
        add("benign", kind, gen, templates)

    # ------------------------------------------------------------------ secrets
    S(
        "aws_secret_access_key",
        lambda: r(B64, 40),
        [
            "AWS_SECRET_ACCESS_KEY=@@",
            "aws creds for the CCTV clip archive bucket (s3://arc-clips-eu): key id AKIA"
            + r(UPPER + DIG, 16)
            + " secret @@",
            "[arc-backup]\naws_access_key_id = AKIA"
            + r(UPPER + DIG, 16)
            + "\naws_secret_access_key = @@",
            "Übergabe: neuer Secret Key für den Export-User ist @@ – bitte in den Tresor, nicht ins Wiki.",
        ],
    )
    S(
        "github_pat",
        lambda: "ghp_" + r(AN, 36),
        [
            "GITHUB_TOKEN=@@",
            "Cloned the patrol-app repo with `git clone https://@@@github.com/vigilant-ops/patrol-app.git` on the build box",
            "agent note: used classic PAT @@ (repo scope) to open the PR for the keyholding export fix",
            "token voor de release workflow: @@ — verloopt pas over 90 dagen",
        ],
    )
    S(
        "github_fine_grained_pat",
        lambda: "github_pat_" + r(AN, 22) + "_" + r(AN, 59),
        [
            "export GH_TOKEN=@@",
            "fine-grained token (contents:write on arc-alarm-router only): @@",
            '{"github": {"token": "@@", "org": "vigilant-ops"}}',
        ],
    )
    S(
        "gitlab_pat",
        lambda: "glpat-" + r(URLSAFE, 20),
        [
            "GITLAB_PRIVATE_TOKEN: @@",
            'curl --header "PRIVATE-TOKEN: @@" https://gitlab.wachdienst-nord.de/api/v4/projects/42/pipelines',
            "Jeton GitLab du runner de l'équipe télésurveillance : @@",
            "handover: the mirror job for the NVR config repo authenticates with @@ — owner is Pieter",
        ],
    )
    S(
        "slack_bot_token",
        lambda: f"xoxb-{r(DIG, 12)}-{r(DIG, 13)}-{r(AN, 24)}",
        [
            "SLACK_BOT_TOKEN=@@",
            "The ARC alarm-bridge bot posts with @@ into #arc-escalations",
            'slack:\n  bot_token: "@@"\n  channel: C04ARCALRM',
        ],
    )
    S(
        "slack_webhook_url",
        lambda: (
            f"https://hooks.slack.com/services/T{r(UPPER + DIG, 8)}/B{r(UPPER + DIG, 10)}/{r(AN, 24)}"
        ),
        [
            "Patrol missed-checkpoint alerts go to @@",
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Panel offline: site 1184\"}' @@",
            "SLACK_WEBHOOK_NIGHTSHIFT=@@",
            "Webhook für #schichtleitung: @@ (nicht weitergeben)",
        ],
    )
    S(
        "teams_webhook_url",
        lambda: (
            f"https://vigilantgroup.webhook.office.com/webhookb2/{guid()}@{guid()}/IncomingWebhook/{r(HEX, 32)}/{guid()}/V2{r(URLSAFE, 43)}"
        ),
        [
            "Teams connector for the control room channel: @@",
            "TEAMS_WEBHOOK=@@",
            "Le webhook Teams du canal « Rondes » : @@",
        ],
    )
    S(
        "twilio_auth_token",
        lambda: r(HEX, 32),
        [
            "TWILIO_AUTH_TOKEN=@@",
            "Twilio (lone worker SMS + voice callouts): SID AC" + r(HEX, 32) + ", auth token @@",
            "twilio:\n  account_sid: AC" + r(HEX, 32) + "\n  auth_token: @@",
            "Auth-Token vom Twilio-Subaccount Alarmverifikation: @@",
            "client = Client('AC" + r(HEX, 32) + "', '@@')",
        ],
    )
    S(
        "sendgrid_api_key",
        lambda: "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43),
        [
            "SENDGRID_API_KEY=@@",
            "Daily occurrence book PDFs are mailed via SendGrid, key @@",
            "sleutel voor de rapportage-mails (SendGrid): @@",
        ],
    )
    S(
        "stripe_secret_key",
        lambda: rng.choice(["sk_live_", "rk_live_"]) + r(AN, rng.choice([24, 99])),
        [
            "STRIPE_SECRET_KEY=@@",
            "key holding subscriptions are billed through Stripe; live secret is @@",
            'stripe.api_key = "@@"',
            "Clé Stripe restreinte pour la facturation des clients gardiennage : @@",
        ],
    )
    S(
        "gocardless_access_token",
        lambda: "live_" + r(URLSAFE, 40),
        [
            "GOCARDLESS_ACCESS_TOKEN=@@",
            "Direct debit for monthly monitoring fees: GoCardless live token @@",
            "GoCardless token (SEPA-incasso abonnementen meldkamer): @@",
        ],
    )
    S(
        "postgres_connection_string",
        human_pw,
        [
            "DATABASE_URL=postgresql://patrol_app:@@@db-patrol.internal:5432/patrol",
            'psql "postgres://arc_report:@@@10.20.4.15:5432/arc_reports?sslmode=require"',
            "Verbindung zur Schlüsseldatenbank: postgresql://keyholding:@@@pg01.wachdienst.local/keys",
            "sqlalchemy.url = postgresql+psycopg2://guardtour:@@@pg-prod-02:5432/guardtour",
        ],
    )
    S(
        "mssql_password",
        human_pw,
        [
            "Server=ARC-SQL01\\SENTINEL;Database=Monitoring;User Id=sa;Password=@@;",
            "ARC automation DB login: user svc_arcbridge / pass @@ (SQL auth, not AD)",
            "Net2 SQL Express instance: sa password is @@ — set at install by the engineer",
            "Mot de passe SQL de la base télésurveillance (utilisateur `arc_ro`) : @@",
        ],
    )
    S(
        "alarm_engineer_code",
        lambda: pin(rng.choice([4, 6])),
        [
            "Texecom Premier Elite at the Hallam Street warehouse – engineer code @@, user 1 code left with client",
            "Errichtercode Zentrale Kunde 2231 (Honeywell Galaxy): @@",
            "Installateurscode Pyronix Enforcer vestiging Breda: @@",
            "eng code @@ for the Galaxy Dimension at St Anne's school, master manager still default? check",
            "Code installateur centrale Risco site Clermont : @@",
        ],
    )
    S(
        "alarm_udl_password",
        lambda: rng.choice([r(DIG, 8), r(UPPER + DIG, 6), human_pw()]),
        [
            "Wintex UDL password for the Leeds portfolio panels: @@",
            "UDL-Passwort (Fernwartung Texecom) für alle Objekte der Stadtwerke: @@",
            "remote upload/download code for Galaxy via RS (Ethernet module): @@",
            'udl_password: "@@"  # panel_id 51-0034',
        ],
    )
    S(
        "alarm_user_code",
        lambda: pin(rng.choice([4, 6])),
        [
            "Keyholder for Unit 7 set/unset code: @@ (area A only)",
            "Scharf/Unscharf-Code für die Reinigungsfirma im Objekt Hafenstraße: @@",
            "Gebruikerscode voor de nachtronde in het distributiecentrum: @@",
            "Code de mise en service pour l'agent de ronde (client Vosges Logistique) : @@",
        ],
    )
    S(
        "client_verbal_password",
        lambda: (
            rng.choice(
                [
                    "bluebell",
                    "Marmalade",
                    "tortoise",
                    "Windmolen",
                    "Edelweiss",
                    "papillon",
                    "Kingfisher",
                    "rhubarb",
                ]
            )
            + rng.choice(["", str(rng.randint(1, 99))])
        ),
        [
            "Client 40213 (Greenfield Dental) ARC verbal password: @@",
            "Kennwort für die Rückrufverifikation Kunde Bäckerei Hoffmann: @@",
            "Wachtwoord voor telefonische verificatie (klant Van Dijk Transport): @@",
            "Mot de passe verbal du client Pharmacie du Centre : @@",
            'ops note: keyholder must quote "@@" before we stand down the police response',
        ],
    )
    S(
        "duress_code",
        lambda: pin(4),
        [
            "Duress code for the jewellers on High St: @@ – triggers silent PA to ARC",
            "Bedrohungscode (Überfall still) Filiale 12: @@",
            "Code sous contrainte du gérant : @@, ne jamais le dire à voix haute en salle",
        ],
    )
    S(
        "key_safe_code",
        lambda: pin(rng.choice([4, 5])),
        [
            "Key safe at the rear door of 14 Orchard Close (Supra C500): @@",
            "Schlüsseltresor Nebeneingang Objekt 7731 – Code @@",
            "Sleutelkluis bij de slagboom, code @@, sleutel K-118 voor de serverruimte",
            "Boîte à clés du portail nord : @@",
        ],
    )
    S(
        "key_cabinet_pin",
        lambda: pin(rng.choice([4, 6])),
        [
            "Traka key cabinet in the control room – supervisor PIN @@",
            "PIN Schlüsselschrank Leitstelle (Admin-Login am Terminal): @@",
            "keywatcher admin PIN: @@ (reset after Jan left)",
        ],
    )
    S(
        "nvr_admin_password",
        human_pw,
        [
            "Hikvision NVR at Riverside car park: admin / @@",
            "Dahua XVR Lager Ost – Benutzer admin, Passwort @@",
            "NVR Axis S3008 gemeentehuis: root wachtwoord @@",
            "Enregistreur Hikvision du site Bordeaux, compte admin : @@",
            'nvr:\n  host: 192.168.50.10\n  user: admin\n  password: "@@"',
        ],
    )
    S(
        "rtsp_url_with_credentials",
        human_pw,
        [
            "rtsp://admin:@@@10.8.12.31:554/Streaming/Channels/101",
            "Video verification stream for zone 4: rtsp://viewer:@@@cam-lobby.site2231.lan/cam/realmonitor?channel=1&subtype=0",
            'ffmpeg -i "rtsp://arcview:@@@83.97.14.202:8554/axis-media/media.amp" -frames:v 1 snap.jpg',
        ],
    )
    S(
        "hik_connect_verification_code",
        lambda: r(UPPER, 6),
        [
            "Hik-Connect verification code (sticker under the NVR) for Farm Lane: @@",
            "Verifizierungscode Hik-Connect Kamera Einfahrt: @@ – für die Stream-Verschlüsselung nötig",
            "Code de vérification Hik-Connect caméra parking : @@",
        ],
    )
    S(
        "vms_service_password",
        human_pw,
        [
            "Milestone XProtect basic user svc_arc_alarms password @@",
            "Genetec Security Center Dienstkonto SC-Federation: Passwort @@",
            "XProtect Management Client login voor nachtdienst: operator / @@",
            "vms:\n  server: https://xprotect.vigilant.local\n  username: arc_integration\n  password: @@",
        ],
    )
    S(
        "gallagher_api_key",
        lambda: "-".join(r("0123456789ABCDEF", 4) for _ in range(8)),
        [
            "Authorization: GGL-API-KEY @@",
            "Gallagher Command Centre REST key for the visitor kiosk: @@",
            "GALLAGHER_API_KEY=@@",
            "API-Schlüssel Gallagher (Zutrittskontrolle Klinikum): @@",
        ],
    )
    S(
        "tracktik_client_secret",
        lambda: r(AN, 40),
        [
            "TRACKTIK_CLIENT_SECRET=@@",
            "Guard tour OAuth app: client_id 7f2a-patrolsync, client_secret @@",
            '{"client_id": "patrol-sync", "client_secret": "@@", "grant_type": "client_credentials"}',
        ],
    )
    S(
        "patrol_app_shared_login",
        human_pw,
        [
            "Shared login for the patrol tablets at Westfield: nightshift@vigilantgroup.co.uk / @@",
            "Gemeinsamer Login Wächterkontroll-App Objekt Messe: wache.messe / @@",
            "Inlog voor de rondeapp (gedeeld account Schiphol-Oost): ronde_so / @@",
            "Identifiants partagés de l'appli de ronde : agent.lyon / @@",
        ],
    )
    S(
        "device_unlock_pin",
        lambda: pin(6),
        [
            "Patrol phones (Samsung XCover) unlock PIN: @@",
            "Entsperr-PIN Diensthandy Revierfahrer 3: @@",
            "pincode van de bodycam-dockingstation: @@",
        ],
    )
    S(
        "wifi_psk",
        lambda: rng.choice([human_pw(), passphrase()]),
        [
            "Guardhouse Wi-Fi SSID VG-GATE, password @@",
            "WLAN Pförtnerloge: SSID WD-Pforte, Schlüssel @@",
            "wpa_passphrase=@@",
            "WiFi wachtwoord portiersloge: @@",
        ],
    )
    S(
        "ipsec_psk",
        lambda: r(AN + "!#%", rng.choice([24, 32])),
        [
            "Site-to-site VPN ARC <-> backup ARC, IKEv2 PSK: @@",
            "set vpn ipsec site-to-site peer 81.2.69.160 authentication pre-shared-secret '@@'",
            'conn arc-dr\n  authby=secret\n# /etc/ipsec.secrets: 81.2.69.160 %any : PSK "@@"',
            "VPN PSK Leitstelle–Außenstelle Kiel: @@",
        ],
    )
    S(
        "sip_password",
        human_pw,
        [
            "SIP trunk for the ARC call-handling (account 44190): password @@",
            "SIP-Konto Notrufabfrage Nebenstelle 210, Passwort @@",
            "[arc-trunk]\ntype=peer\nusername=vgarc01\nsecret=@@",
        ],
    )
    S(
        "smtp_password",
        human_pw,
        [
            "SMTP_PASSWORD=@@",
            "Alarm panels email via smtp.office365.com as alerts@vigilantgroup.co.uk / @@",
            "Mot de passe SMTP du compte rapports@gardiennage-est.fr : @@",
        ],
    )
    S(
        "openssh_private_key",
        lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + pem_body(5, "b3BlbnNzaC1rZXktdjEAAAAA")
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        [
            "Deploy key for the alarm router box (~/.ssh/arcrouter):\n@@",
            "agent memory – jump host key, paste into ~/.ssh/id_ed25519:\n@@",
            "Schlüssel für den Bastion-Host Leitstelle:\n@@",
        ],
    )
    S(
        "rsa_private_key",
        lambda: (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + pem_body(6, "MIIEpAIBAAKCAQEA")
            + "\n-----END RSA PRIVATE KEY-----"
        ),
        [
            "TLS key for the SIA DC-09 receiver endpoint (receiver.vigilant-arc.com):\n@@",
            "client cert key for the police URN gateway:\n@@",
            "Clé privée du certificat du portail clients :\n@@",
        ],
    )
    S(
        "jwt_signing_secret",
        lambda: rng.choice([r(HEX, 64), r(URLSAFE, 43)]),
        [
            "JWT_SECRET=@@",
            "the guard app API signs session tokens with HS256 secret @@",
            'auth:\n  jwt_secret: "@@"\n  ttl: 12h',
            "Signaturschlüssel für die Kundenportal-Tokens: @@",
        ],
    )
    S(
        "azure_storage_connection_string",
        lambda: r(B64, 86) + "==",
        [
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=vgcctvclips;AccountKey=@@;EndpointSuffix=core.windows.net",
            "Storage account key1 for the bodycam uploads: @@",
            "Opslagsleutel voor de camerabeelden-archief (vgcctvclips): @@",
        ],
    )
    S(
        "google_api_key",
        lambda: "AIza" + r(URLSAFE, 35),
        [
            "GOOGLE_MAPS_SERVER_KEY=@@",
            "Geocoding for response-vehicle dispatch uses server key @@ (unrestricted!)",
            "Clé API Google (Directions pour les patrouilles mobiles) : @@",
        ],
    )
    S(
        "openai_api_key",
        lambda: "sk-proj-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74),
        [
            "OPENAI_API_KEY=@@",
            "incident-summary helper (summarises occurrence logs) calls OpenAI with @@",
            "Schlüssel für den Bericht-Assistenten: @@",
        ],
    )
    S(
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + r(URLSAFE, 93) + "AA",
        [
            "ANTHROPIC_API_KEY=@@",
            "coding agent key for the arc-tools repo: @@",
            "sleutel voor de AI-assistent in het meldkamerportaal: @@",
        ],
    )
    S(
        "telegram_bot_token",
        lambda: f"{rng.randint(5000000000, 7999999999)}:AA{r(URLSAFE, 33)}",
        [
            "TELEGRAM_BOT_TOKEN=@@",
            "mobile patrol supervisors get SOS pings from the Telegram bot, token @@",
            "https://api.telegram.org/bot@@/sendMessage?chat_id=-100188204511&text=Panik+Taste",
            "Token du bot Telegram des chefs de poste : @@",
        ],
    )
    S(
        "npm_token",
        lambda: "npm_" + r(AN, 36),
        [
            "//registry.npmjs.org/:_authToken=@@",
            "NPM_TOKEN=@@",
            "publish token for @vigilant/patrol-sdk: @@",
        ],
    )
    S(
        "docker_hub_pat",
        lambda: "dckr_pat_" + r(URLSAFE, 27),
        [
            "echo @@ | docker login -u vigilantops --password-stdin",
            "DOCKERHUB_TOKEN=@@",
            "Docker Hub Zugangstoken für die Build-Pipeline: @@",
        ],
    )
    S(
        "vault_token",
        lambda: "hvs." + r(AN, 24),
        [
            "VAULT_TOKEN=@@",
            "root token from the vault re-init (keep offline!): @@",
            "vault login @@",
        ],
    )
    S(
        "datadog_api_key",
        lambda: r(HEX, 32),
        [
            "DD_API_KEY=@@",
            "datadog agent on the alarm receivers reports with api key @@",
            "datadog:\n  apiKey: @@\n  site: datadoghq.eu",
        ],
    )
    S(
        "mapbox_secret_token",
        lambda: (
            "sk."
            + b64url_json({"u": "vigilantops", "a": "cl" + r(LOWER + DIG, 23)})
            + "."
            + r(URLSAFE, 22)
        ),
        [
            "MAPBOX_SECRET_TOKEN=@@",
            "download token for the offline patrol maps (styles:tiles + downloads:read): @@",
            "Geheimes Mapbox-Token für die Revierkarten: @@",
        ],
    )
    S(
        "fcm_server_key",
        lambda: "AAAA" + r(URLSAFE, 7) + ":APA91b" + r(URLSAFE, 134),
        [
            "FCM_SERVER_KEY=@@",
            "push for lone-worker man-down alerts still on legacy FCM key @@",
            "Authorization: key=@@",
        ],
    )
    S(
        "mfa_recovery_code",
        lambda: f"{r(LOWER + DIG, 5)}-{r(LOWER + DIG, 5)}",
        [
            "Backup codes for the shared arc-admin@ Microsoft account: @@ (used 2 of 10)",
            "Wiederherstellungscode GitHub-Org-Owner: @@",
            "herstelcode Stripe-account (2FA telefoon kwijt): @@",
            "recovery code for the Hik-Connect installer account: @@",
        ],
    )
    S(
        "basic_auth_url",
        human_pw,
        [
            "Alarm events webhook target: https://arcbridge:@@@events.vigilant-arc.com/inbound/sia",
            "curl -u api_patrol:@@ https://portal.guardtour.example.org/api/v1/checkpoints",
            "Kunden-Export: https://export:@@@portal.wachdienst-nord.de/csv/monatsbericht",
            "ALARM_PROXY_URL=http://proxy:@@@10.20.0.5:3128",
        ],
    )
    S(
        "sia_dc09_aes_key",
        lambda: r("0123456789ABCDEF", rng.choice([32, 64])),
        [
            "SIA DC-09 AES key for account range 3A00-3AFF (receiver line 2): @@",
            "DC-09 Verschlüsselungsschlüssel Übertragungsgerät Objekt 5512: @@",
            'dc09:\n  receiver: 1\n  line: 3\n  aes_key: "@@"',
            "Clé AES DC-09 des transmetteurs IP du parc Lyon : @@",
        ],
    )
    S(
        "pagerduty_routing_key",
        lambda: r(HEX, 32),
        [
            "PAGERDUTY_ROUTING_KEY=@@",
            "receiver heartbeat failures page the on-call via events v2, routing key @@",
            '{"routing_key": "@@", "event_action": "trigger", "payload": {"summary": "ARC receiver 2 line fault"}}',
        ],
    )

    # ------------------------------------------------------------------ benign
    B(
        "arc_account_number",
        lambda: r("0123456789ABCDEF", 4),
        [
            "Panel reports to the ARC as account @@ on receiver 1, line 3",
            "Kundennummer Leitstelle / Meldernummer: @@",
            "klant meldt binnen onder abonneenummer @@ (Contact ID)",
            "Numéro de compte transmetteur : @@",
        ],
    )
    B(
        "receiver_line_id",
        lambda: f"R{rng.randint(1, 4)}L{rng.randint(1, 8)}",
        [
            "Signals from the Leeds portfolio arrive on @@",
            "Empfänger/Linie @@ ist seit dem Update stabil",
            "check receiver line @@ for heartbeat gaps",
        ],
    )
    B(
        "contact_id_event",
        lambda: (
            f"18{r('0123456789ABCDEF', 4)}1{rng.choice(['130', '134', '401', '602', '301'])}01{r(DIG, 3)}"
        ),
        [
            "Raw Contact ID message: @@ (burglary / open-close / test / AC loss)",
            "log: 2026-11-30 02:14:07 RX R1L2 CID @@ -> event routed to operator queue",
            "Beispiel CID-Telegramm für die Doku: @@",
        ],
    )
    B(
        "panel_serial",
        lambda: f"{rng.choice(['PE', 'GD', 'ENF'])}-{r(DIG, 8)}",
        [
            "Panel serial @@, firmware V4.02.01",
            "Seriennummer der Zentrale: @@",
            "serienummer centrale (staat op printplaat): @@",
        ],
    )
    B(
        "nvr_serial",
        lambda: f"DS-7616NI-K2/16P{r(DIG, 8)}CCRR{r(UPPER + DIG, 9)}",
        [
            "NVR serial @@ – warranty claim open",
            "Seriennr. Rekorder Einfahrt: @@",
            "Numéro de série NVR pour le support Hikvision : @@",
            "| site | nvr_serial |\n| 2231 | @@ |",
        ],
    )
    B(
        "mac_address",
        lambda: ":".join(r("0123456789ABCDEF", 2) for _ in range(6)),
        [
            "camera MAC @@ – DHCP reservation on the site switch",
            "MAC-Adresse Kartenleser Tür 3: @@",
            "dhcp-host=@@,10.8.12.31,cam-lobby",
        ],
    )
    B(
        "device_ip",
        lambda: f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
        [
            "ONVIF discovery found the dome at @@",
            "IP des Zutrittscontrollers im Technikraum: @@",
            "ping @@ # Ajax hub vestiging Utrecht",
        ],
    )
    B(
        "wiegand_card_format",
        lambda: rng.choice(["H10301 26-bit", "H10304 37-bit", "Corporate 1000 35-bit"]),
        [
            "Readers configured for @@ (facility code 112)",
            "Kartenformat am Leser: @@",
            "kaartformaat lezers hoofdingang: @@",
        ],
    )
    B(
        "site_reference",
        lambda: f"SITE-{r(DIG, 5)}",
        [
            "Keyholding contract covers @@ and the annexe",
            "Objekt-ID @@ im Wachbuch",
            "référence site @@ pour les rondes de nuit",
            "site_id: @@",
        ],
    )
    B(
        "incident_reference",
        lambda: f"INC-{rng.randint(2025, 2026)}-{r(DIG, 6)}",
        [
            "Intruder alarm, keyholder attended, police URN logged under @@",
            "Vorfall @@: Tür 4 aufgehebelt, Polizei informiert",
            "incidentnummer @@ — glasbreuk, beelden bewaard",
        ],
    )
    B(
        "ticket_reference",
        lambda: f"{rng.choice(['ARC', 'PATROL', 'CCTV', 'OPS'])}-{rng.randint(100, 4999)}",
        [
            "fixed in @@ (duplicate signals from DualCom)",
            "siehe Ticket @@ für die Kamera-Umstellung",
            "voir @@ pour la migration Net2",
            "Jira @@: checkpoint scans out of order",
        ],
    )
    B(
        "nfc_checkpoint_tag",
        lambda: ":".join(r("0123456789ABCDEF", 2) for _ in range(7)),
        [
            "Checkpoint 12 (loading bay) NFC tag UID @@",
            "NFC-Kontrollpunkt Treppenhaus B: UID @@",
            "tag @@ vervangen, oude was beschadigd",
        ],
    )
    B(
        "sia_licence_number",
        lambda: " ".join(r(DIG, 4) for _ in range(4)),
        [
            "Officer's SIA door supervisor licence no. @@, expires 03/2027",
            "SIA licence @@ checked on the register before the shift",
            "Guard licence (SIA CCTV) @@ on file",
        ],
    )
    B(
        "aws_documented_example",
        lambda: rng.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        [
            "the AWS docs use @@ — replace it with your own values",
            "Beispielwert aus der AWS-Doku: @@",
            "test fixture uses @@ so boto stops complaining",
        ],
    )
    B(
        "stripe_publishable_key",
        lambda: "pk_live_" + r(AN, 24),
        [
            "STRIPE_PUBLISHABLE_KEY=@@",
            "client portal checkout page embeds publishable key @@",
            "Clé publique Stripe (front) : @@",
        ],
    )
    B(
        "stripe_test_card",
        lambda: rng.choice(["4242 4242 4242 4242", "4000 0025 0000 3155", "4000 0000 0000 9995"]),
        [
            "in test mode pay with @@, any future expiry, any CVC",
            "Testkarte für 3-D Secure: @@",
            "testkaart uit de Stripe-docs: @@",
        ],
    )
    B(
        "recaptcha_site_key",
        lambda: "6L" + r(URLSAFE, 38),
        [
            "reCAPTCHA site key on the 'request a quote' form: @@",
            "RECAPTCHA_SITE_KEY=@@",
            'data-sitekey="@@"',
        ],
    )
    B(
        "sha256_digest",
        lambda: r(HEX, 64),
        [
            "firmware image sha256: @@",
            "sha256sum arc-bridge-2.14.0.tar.gz -> @@",
            "Prüfsumme des Exportes (Beweissicherung Video): @@",
            "hash van de geëxporteerde beelden: @@",
        ],
    )
    B(
        "git_commit_sha",
        lambda: r(HEX, 40),
        [
            "deployed patrol-api at commit @@",
            "revert @@ (broke the key log export)",
            "Fix für Doppelalarme in Commit @@",
        ],
    )
    B(
        "docker_image_digest",
        lambda: "sha256:" + r(HEX, 64),
        [
            "image: ghcr.io/vigilant-ops/arc-bridge@@@",
            "pinned digest @@ for the receiver sidecar",
            "Image-Digest der Produktion: @@",
        ],
    )
    B(
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43),
        [
            "add to authorized_keys on the alarm router: @@ pieter@arc-ws04",
            "öffentlicher Schlüssel des Deploy-Users: @@",
            "publieke sleutel bastion: @@",
        ],
    )
    B(
        "certificate_pem",
        lambda: (
            "-----BEGIN CERTIFICATE-----\n"
            + pem_body(5, "MIIDazCCAlOgAwIBAgIU")
            + "\n-----END CERTIFICATE-----"
        ),
        [
            "Receiver TLS certificate (public, give to installers for DC-09 pinning):\n@@",
            "CA-Zertifikat der Zutrittskontrolle:\n@@",
        ],
    )
    B(
        "placeholder",
        lambda: rng.choice(
            [
                "<your-udl-password>",
                "YOUR_API_KEY_HERE",
                "xxxxxxxx",
                "changeme-in-prod",
                "REPLACE_ME",
                "********",
            ]
        ),
        [
            "TWILIO_AUTH_TOKEN=@@",
            'udl_password: "@@"',
            "GALLAGHER_API_KEY=@@",
            "Passwort im Template: @@",
            "wachtwoord: @@ (zelf invullen)",
        ],
    )
    B(
        "env_var_reference",
        lambda: rng.choice(
            [
                "${SENDGRID_API_KEY}",
                "$STRIPE_SECRET_KEY",
                "%ARC_SQL_PASSWORD%",
                "${{ secrets.DOCKERHUB_TOKEN }}",
                'os.environ["VAULT_TOKEN"]',
            ]
        ),
        [
            "password: @@",
            "api_key = @@",
            "- run: echo @@ | docker login -u vigilantops --password-stdin",
            "Der Schlüssel kommt aus @@, nie hart codieren",
        ],
    )
    B(
        "vault_path",
        lambda: rng.choice(
            [
                "secret/data/arc/sentinel/sql",
                "kv/patrol/tracktik",
                "secret/data/cctv/hik-nvr-admins",
                "kv/keyholding/keysafe-codes",
            ]
        ),
        [
            "codes are in Vault at @@",
            "vault kv get @@",
            "Zugangsdaten liegen unter @@",
            "zie @@ voor de actuele waarden",
        ],
    )
    B(
        "masked_value",
        lambda: rng.choice(["sk_live_", "glpat-", "xoxb-", "SG."]) + "****" + r(AN, 4),
        [
            "dashboard shows the key as @@",
            "Stripe-Key (maskiert): @@",
            "token in de logs: @@",
        ],
    )
    B(
        "redacted_log",
        lambda: rng.choice(
            [
                "password=[REDACTED]",
                "auth_token=***",
                '"pin": "<redacted>"',
                "Authorization: Bearer [FILTERED]",
            ]
        ),
        [
            "2026-12-01T03:12:44Z WARN udl: login failed @@ panel=51-0034",
            "log line after the fix: @@",
            "Protokoll: @@ – Maskierung funktioniert",
        ],
    )
    B(
        "revoked_token",
        lambda: "ghp_" + r(AN, 36),
        [
            "old token @@ was revoked on 2026-11-02 after the laptop theft, do not reuse",
            "Token @@ ist widerrufen (Rotation Nov.), nur noch zur Zuordnung im Audit-Log",
            "ingetrokken: @@ — vervangen door fine-grained token",
        ],
    )
    B(
        "password_policy",
        lambda: rng.choice(
            [
                "min 12 chars, no reuse of last 5",
                "engineer codes rotate every 90 days",
                "6-digit user codes only",
            ]
        ),
        [
            "Policy: @@",
            "Passwortrichtlinie Leitstelle: @@",
            "beleid: @@",
        ],
    )
    B(
        "azure_tenant_id",
        guid,
        [
            "AZURE_TENANT_ID=@@",
            "tenant id of the Entra directory: @@",
            "app registration 'arc-portal' client id @@",
        ],
    )
    B(
        "twilio_account_sid",
        lambda: "AC" + r(HEX, 32),
        [
            "TWILIO_ACCOUNT_SID=@@",
            "Twilio account SID for the lone worker line: @@",
            "SID du sous-compte SMS : @@",
        ],
    )
    B(
        "slack_channel_id",
        lambda: "C0" + r(UPPER + DIG, 9),
        [
            "ARC escalations channel id @@",
            "post the nightly summary to @@",
            "Kanal-ID Schichtleitung: @@",
        ],
    )
    B(
        "firmware_version",
        lambda: (
            f"V{rng.randint(3, 5)}.{rng.randint(0, 9)}.{rng.randint(0, 99)} build {rng.randint(200000, 261231)}"
        ),
        [
            "NVRs upgraded to @@",
            "Firmware der Kameras: @@",
            "version firmware centrale : @@",
        ],
    )
    B(
        "shift_booking_reference",
        lambda: f"SHF-{r(UPPER, 2)}{r(DIG, 6)}",
        [
            "Static guard cover booked under @@ (Sat 22:00–06:00)",
            "Dienstbuchung @@ bestätigt",
            "dienstreservering @@ voor evenementbeveiliging",
        ],
    )
    B(
        "invoice_number",
        lambda: f"INV-{rng.randint(2025, 2026)}{r(DIG, 5)}",
        [
            "Key holding fee billed on @@",
            "Rechnung @@ für Alarmaufschaltung Q4",
            "facture @@ réglée par prélèvement",
        ],
    )
    B(
        "company_iban",
        lambda: (
            rng.choice(["DE", "NL"])
            + r(DIG, 2)
            + (r(UPPER, 4) if rng.random() < 0.5 else r(DIG, 4))
            + r(DIG, 10)
        ),
        [
            "Payments for monitoring contracts to IBAN @@",
            "Bankverbindung Wachdienst Nord GmbH: IBAN @@",
            "rekeningnummer voor facturen: @@",
        ],
    )
    B(
        "phone_number",
        lambda: rng.choice(["+44 113 496 ", "+49 40 5550 ", "+31 20 555 "]) + r(DIG, 4),
        [
            "ARC emergency line @@",
            "Leitstelle 24/7: @@",
            "meldkamer bereikbaar op @@",
        ],
    )
    B(
        "vehicle_plate",
        lambda: rng.choice(
            [f"{r(UPPER, 2)}{r(DIG, 2)} {r(UPPER, 3)}", f"HH-{r(UPPER, 2)} {r(DIG, 4)}"]
        ),
        [
            "Mobile patrol van @@ – service due",
            "Revierfahrzeug @@ mit GPS-Tracker",
            "response vehicle @@ attended alarm at 02:40",
        ],
    )
    B(
        "key_tag_number",
        lambda: f"K-{r(DIG, 4)}",
        [
            "Client keys held in cabinet slot 14, tag @@",
            "Schlüsselanhänger @@ ausgegeben an Streife 2",
            "sleutellabel @@ teruggebracht 06:10",
            "| client | key_tag |\n| Greenfield Dental | @@ |",
        ],
    )
    B(
        "sim_iccid",
        lambda: "8944" + r(DIG, 15),
        [
            "DualCom SIM ICCID @@",
            "ICCID der Notruf-SIM im Übertragungsgerät: @@",
            "iccid simkaart transmitter: @@",
        ],
    )
    B(
        "device_imei",
        lambda: "35" + r(DIG, 13),
        [
            "patrol phone IMEI @@ reported lost",
            "IMEI Diensthandy 3: @@",
            "IMEI du terminal de ronde : @@",
        ],
    )
    B(
        "bcrypt_hash",
        lambda: "$2b$12$" + r(AN + "./", 53),
        [
            "users table row: operator_id=17, password_hash='@@'",
            "gespeicherter Hash (bcrypt) im Portal: @@",
            "hash uit de seed data: @@",
        ],
    )
    B(
        "gpg_fingerprint",
        lambda: " ".join(r("0123456789ABCDEF", 4) for _ in range(10)),
        [
            "release signing key fingerprint: @@",
            "Fingerprint des Backup-Schlüssels: @@",
            "empreinte de la clé GPG : @@",
        ],
    )
    B(
        "oauth_client_id",
        lambda: r(LOWER + DIG, 24) + ".apps.googleusercontent.com",
        [
            "GOOGLE_CLIENT_ID=@@",
            "SSO for the client portal uses client id @@",
            "Client-ID für Google-Login: @@",
        ],
    )
    B(
        "mapbox_public_token",
        lambda: (
            "pk."
            + b64url_json({"u": "vigilantops", "a": "cl" + r(LOWER + DIG, 23)})
            + "."
            + r(URLSAFE, 22)
        ),
        [
            "MAPBOX_PUBLIC_TOKEN=@@",
            "public token (URL-restricted) used by the live patrol map: @@",
            "publiek Mapbox-token voor de kaart: @@",
        ],
    )
    B(
        "k8s_secret_ref",
        lambda: rng.choice(["arc-bridge-db", "tracktik-oauth", "sendgrid-api", "nvr-admins"]),
        [
            "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: @@\n      key: password",
            "kubectl -n arc get secret @@ -o name",
            "Das Secret @@ wird per External Secrets aus Vault gezogen",
        ],
    )
    B(
        "aws_arn",
        lambda: (
            f"arn:aws:iam::{r(DIG, 12)}:role/{rng.choice(['arc-clip-archiver', 'patrol-api', 'ci-deploy'])}"
        ),
        [
            "role to assume: @@",
            "Rolle für den Export: @@",
            "AWS_ROLE_ARN=@@",
        ],
    )
    B(
        "stripe_object_id",
        lambda: rng.choice(["cus_", "price_", "sub_"]) + r(AN, 14),
        [
            "Greenfield Dental maps to Stripe @@",
            "Abo des Kunden 2231: @@",
            "stripe id @@ in het CRM gezet",
        ],
    )
    B(
        "gocardless_mandate_id",
        lambda: "MD" + r(UPPER + DIG, 12),
        [
            "Direct debit mandate @@ active",
            "SEPA-Mandat @@ für die Aufschaltgebühr",
            "mandat de prélèvement @@",
        ],
    )
    B(
        "npm_integrity",
        lambda: "sha512-" + r(B64, 86) + "==",
        [
            '"integrity": "@@"',
            "lockfile integrity for @vigilant/patrol-sdk: @@",
        ],
    )
    B(
        "alarm_event_log",
        lambda: f"User {rng.randint(1, 40):02d} unset Area {rng.choice('ABCD')}",
        [
            "2026-12-02 06:01:13 @@ (cleaner)",
            "Ereignisprotokoll: @@ – außerhalb der Öffnungszeit",
            "logboek: @@ door schoonmaakdienst",
        ],
    )
    B(
        "zone_list",
        lambda: ", ".join(f"Z{rng.randint(1, 64):02d}" for _ in range(4)),
        [
            "Zones omitted for the night: @@",
            "Melderlinien in Revision: @@",
            "zones overbrugd: @@",
        ],
    )
    B(
        "gps_checkpoint",
        lambda: f"{rng.uniform(50.5, 53.5):.6f}, {rng.uniform(3.5, 9.9):.6f}",
        [
            "Checkpoint 7 coordinates @@",
            "GPS-Punkt Kontrollgang Tor 2: @@",
            "coördinaten controlepunt dijk: @@",
        ],
    )
    # ------------------------------------------------------------------ extra rows
    S(
        "key_safe_code",
        lambda: pin(4),
        [
            "keyholding handover 06:00: Orchard Close key safe reset by client, new code @@, old one retired",
        ],
    )
    S(
        "alarm_engineer_code",
        lambda: pin(4),
        [
            "| site | panel | eng code |\n| 7731 | Galaxy Flex | @@ |",
        ],
    )
    S(
        "nvr_admin_password",
        human_pw,
        [
            "curl --digest -u admin:@@ http://10.8.12.40/ISAPI/System/deviceInfo",
        ],
    )
    S(
        "client_verbal_password",
        lambda: (
            rng.choice(["Lavender", "goldfish", "Zeppelin", "marigold"]) + str(rng.randint(1, 99))
        ),
        [
            '{"client": 40877, "name": "Hallam Street Storage", "verbal_password": "@@", "keyholders": 3}',
        ],
    )
    B(
        "certificate_pem",
        lambda: (
            "-----BEGIN CERTIFICATE-----\n"
            + pem_body(4, "MIICxjCCAa6gAwIBAgIJ")
            + "\n-----END CERTIFICATE-----"
        ),
        [
            "Certificat public du portail (à transmettre aux intégrateurs) :\n@@",
        ],
    )
    B(
        "npm_integrity",
        lambda: "sha512-" + r(B64, 86) + "==",
        [
            "npm ci complained about @@ mismatch for mqtt@5 – cache cleared",
        ],
    )
    B(
        "arc_account_number",
        lambda: r(DIG, 6),
        [
            "| client | ARC acct | receiver |\n| Greenfield Dental | @@ | R1L3 |",
        ],
    )
    B(
        "panel_serial",
        lambda: f"ENF-{r(DIG, 8)}",
        [
            '{"panel": "Pyronix Enforcer", "serial": "@@", "site": "SITE-40213"}',
        ],
    )
    B(
        "mac_address",
        lambda: ":".join(r("0123456789abcdef", 2) for _ in range(6)),
        [
            "adresse MAC du lecteur de badges hall : @@",
        ],
    )
    B(
        "device_ip",
        lambda: f"192.168.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
        [
            "nvr:\n  host: @@\n  port: 8000\n  credentials: vault:kv/cctv/site-2231",
        ],
    )
    B(
        "incident_reference",
        lambda: f"INC-2026-{r(DIG, 6)}",
        [
            "Rapport d'incident @@ : intrusion détectée zone 3, levée de doute vidéo négative",
        ],
    )
    B(
        "sha256_digest",
        lambda: r(HEX, 64),
        [
            '{"clip": "cam04_2026-11-30T02-14.mp4", "sha256": "@@"}',
        ],
    )
    B(
        "placeholder",
        lambda: "<paste-engineer-code>",
        [
            "| site | engineer code |\n| 7731 | @@ |",
        ],
    )
    B(
        "env_var_reference",
        lambda: "${ARC_SQL_PASSWORD}",
        [
            "Server=ARC-SQL01;Database=Monitoring;User Id=svc_arcbridge;Password=@@;",
        ],
    )
    B(
        "masked_value",
        lambda: "••••" + r(DIG, 2),
        [
            "Client portal shows the key safe code as @@ to non-supervisors",
        ],
    )
    B(
        "redacted_log",
        lambda: "rtsp://admin:***@10.8.12.31:554/Streaming/Channels/101",
        [
            "stream URL as printed by the new logger: @@",
        ],
    )
    B(
        "revoked_token",
        lambda: "xoxb-" + r(DIG, 12) + "-" + r(DIG, 13) + "-" + r(AN, 24),
        [
            "Slack bot token @@ revoked 2026-10-14 (bot reinstalled), kept here only to match old audit entries",
        ],
    )
    B(
        "password_policy",
        lambda: "Kunden-Kennwörter für die Rückrufverifikation werden nie per E-Mail verschickt",
        [
            "Regel Leitstelle: @@.",
        ],
    )
    B(
        "azure_tenant_id",
        guid,
        [
            "az login --tenant @@ --allow-no-subscriptions",
        ],
    )
    B(
        "firmware_version",
        lambda: f"{rng.randint(4, 6)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        [
            "Net2 Pro @@ installed on the access control server",
        ],
    )
    B(
        "key_tag_number",
        lambda: f"KT{r(DIG, 5)}",
        [
            "Traka iFob @@ released to officer 214 at 23:05, returned 05:50",
        ],
    )
    B(
        "sim_iccid",
        lambda: "8931" + r(DIG, 15),
        [
            '{"communicator": "DualCom GradeShift", "iccid": "@@", "path": "4G"}',
        ],
    )
    B(
        "gocardless_mandate_id",
        lambda: "MD" + r(UPPER + DIG, 12),
        [
            "GoCardless webhook: mandate @@ cancelled by customer",
        ],
    )
    B(
        "aws_documented_example",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        [
            "aws configure set aws_access_key_id @@ --profile docs-demo",
        ],
    )
    B(
        "contact_id_event",
        lambda: "E130",
        [
            "CID code @@ = burglary alarm, R401 = closing (armed)",
        ],
    )
    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    try:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()

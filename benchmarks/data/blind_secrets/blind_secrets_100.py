# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 100: public transit agency (fare collection, AVL and depots, passenger information).

Brief: labelled rows as a transit agency's teams and their AI coding agents would keep them as
memory -- prose notes, handover lines, chat messages, shell commands, .env and YAML config, JSON,
URLs, tables and log lines, in English, German, French and Spanish. The agency runs fare
collection (validators, ticket vending machines, account-based ticketing, payment acquirers and
clearing houses, DESFire/Calypso fare media), vehicle location (CAD/AVL, MQTT telemetry, depot
gateways and yard Wi-Fi) and passenger information (GTFS / GTFS-RT feeds, displays, SMS and
push alerts), on a generic cloud, CI, database and chat stack. "secret" rows carry a live
credential; "benign" rows carry look-alikes a careful reader would keep.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_100.py [out.jsonl]

Kinds, secret: aws_access_key_id, aws_secret_access_key, github_pat, github_fine_grained_pat,
gitlab_pat, slack_bot_token, slack_webhook_url, teams_webhook_url, discord_webhook_url,
telegram_bot_token, stripe_secret_key, stripe_webhook_secret, adyen_api_key, twilio_auth_token,
sendgrid_api_key, google_api_key, openai_api_key, anthropic_api_key, npm_token, pypi_token,
dockerhub_pat, vault_token, azure_storage_account_key, datadog_api_key, mapbox_secret_token,
jwt_signing_secret, jwt_bearer_token, private_key_pem, postgres_url_with_password,
sqlserver_connection_string, redis_url_with_password, mqtt_broker_password, basic_auth_url,
human_password, shared_vendor_login, tvm_service_pin, depot_door_code, depot_wifi_psk,
validator_admin_password, desfire_master_key, ipsec_psk, snmp_write_community,
ansible_vault_password, recovery_codes, realtime_feed_api_key, sftp_clearing_password.

Kinds, benign: aws_example_key, aws_account_id, aws_role_arn, git_commit_sha, sha256_digest,
docker_image_digest, md5_checksum, uuid_request_id, gtfs_trip_id, gtfs_stop_id, fleet_number,
run_block_number, card_uid, masked_pan, ticket_reference, payment_transaction_id,
validator_serial, tvm_asset_tag, modem_imei, sim_iccid, mac_address, ip_address,
stripe_publishable_key, recaptcha_site_key, mapbox_public_token, adyen_client_key,
twilio_account_sid, ssh_public_key, x509_certificate, env_var_reference, vault_path,
k8s_secret_ref, placeholder_value, redacted_value, revoked_key, password_policy,
firmware_version, package_version, jira_ticket, cron_expression, iso_timestamp,
gps_coordinates, bcrypt_hash, slack_channel_id, employee_badge, support_phone, agency_iban,
vat_number, correlation_id, base64_config_blob, calypso_aid, emv_terminal_id, license_plate,
stripe_object_id, ga_measurement_id, gtfs_feed_url.
"""

import base64
import json
import random
import string
import sys

SEED = 216358

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
HEX = "0123456789abcdef"
ALNUM = UP + LO + DIG
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []

    def s(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def b64url(obj: dict) -> str:
        return (
            base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    def uuid() -> str:
        h = s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"

    def add(label: str, kind: str, templates: list[str], gen) -> None:
        for t in templates:
            v = gen()
            text = t.replace("§", v)
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    def human_pw() -> str:
        words = [
            "Tramway",
            "Depot",
            "Busbahnhof",
            "Linie",
            "Quai",
            "Anden",
            "Ticket",
            "Billett",
            "Remise",
            "Cochera",
            "Stadtbahn",
            "Navette",
            "Trolley",
            "Metro",
            "Fahrgast",
            "Viajero",
            "Rame",
            "Gelenkbus",
            "Haltestelle",
            "Correspondance",
        ]
        w = r.choice(words)
        style = r.randrange(5)
        if style == 0:
            return f"{w}{r.randint(2015, 2026)}{r.choice('!#$%&*?')}"
        if style == 1:
            return f"{w.lower()}.{r.choice(words).lower()}{r.randint(10, 99)}"
        if style == 2:
            return f"{r.choice('!?#')}{w[:4]}{r.randint(100, 999)}{r.choice(words)[:3].lower()}"
        if style == 3:
            return f"{w}_{r.choice(['Nord', 'Sud', 'Ost', 'West', 'Centre', 'Este'])}{r.randint(1, 9)}{r.choice('!@+')}"
        return f"{w[0].upper()}{s(LO, 3)}{r.randint(1000, 9999)}{r.choice('!$%')}{s(UP, 1)}"

    def passphrase() -> str:
        ws = [
            "correcto",
            "gleis",
            "aiguillage",
            "pantograph",
            "trolleybus",
            "bobine",
            "ventana",
            "schiene",
            "marquesina",
            "composteur",
            "ticketautomat",
            "caténaire",
            "andén",
            "fahrplan",
            "horaire",
            "nachtlinie",
            "billetique",
            "valideur",
            "tarjeta",
            "wagen",
        ]
        return "-".join(r.choice(ws) for _ in range(r.randint(4, 5))) + "-" + str(r.randint(10, 99))

    # ------------------------------------------------------------------ secrets
    S = "secret"
    add(
        S,
        "aws_access_key_id",
        [
            "aws configure set aws_access_key_id § --profile fare-prod",
            "AWS_ACCESS_KEY_ID=§",
            "Übergabe: der Deploy-User für den GTFS-Export-Bucket hat jetzt den Key § (Secret steht weiter unten).",
            "[avl-archive]\naws_access_key_id = §\nregion = eu-central-1",
        ],
        lambda: "AKIA" + s(UP + "234567", 16),
    )
    add(
        S,
        "aws_secret_access_key",
        [
            "AWS_SECRET_ACCESS_KEY=§",
            "aws_secret_access_key = §",
            "Clave secreta del usuario s3-validadores: § — no la subas al repo, por favor.",
            '{"accessKeyId": "AKIA' + "Q3XJ7PLM2WZ4RT6N" + '", "secretAccessKey": "§"}',
            "export AWS_SECRET_ACCESS_KEY='§' && aws s3 sync ./gtfs s3://pid-gtfs-static/",
        ],
        lambda: s(ALNUM + "+/", 40),
    )
    add(
        S,
        "github_pat",
        [
            "git clone https://oauth2:§@github.com/transit-agency/fare-engine.git",
            "GITHUB_TOKEN=§  # token de Jonas pour le workflow de release des pupitres",
            "Agent memory: use PAT § to open PRs on passenger-info-displays until the GitHub App is installed.",
            "gh auth login --with-token <<< §",
            "registry: //npm.pkg.github.com/:_authToken=§",
        ],
        lambda: "ghp_" + s(ALNUM, 36),
    )
    add(
        S,
        "github_fine_grained_pat",
        [
            "Fine-grained PAT (read-only sur gtfs-rt-bridge, expire le 31/03) : §",
            "GH_PAT_FEEDS=§",
            "curl -H 'Authorization: Bearer §' https://api.github.com/repos/transit-agency/avl-gateway/actions/runs",
            "Token für den Renovate-Bot im Depot-Repo: §",
        ],
        lambda: "github_pat_11" + s(UP + DIG, 20) + "_" + s(ALNUM, 59),
    )
    add(
        S,
        "gitlab_pat",
        [
            "CI_PUSH_TOKEN=§",
            "git remote set-url origin https://ci-bot:§@gitlab.verkehrsbetrieb.internal/billetique/kassensystem.git",
            "Token GitLab del proyecto tarifas (scope api, write_repository): §",
            "glab auth login --hostname gitlab.transit.local --token §",
        ],
        lambda: "glpat-" + s(URLSAFE, 20),
    )
    add(
        S,
        "slack_bot_token",
        [
            "SLACK_BOT_TOKEN=§",
            "Le bot #incidents-exploitation poste avec § — ne pas le partager avec le prestataire.",
            "slack:\n  bot_token: §\n  channel: C04QK7TR2MZ",
            "curl -s -H 'Authorization: Bearer §' https://slack.com/api/chat.postMessage -d channel=C02DISPO -d text='Linie 4 gestört'",
        ],
        lambda: f"xoxb-{r.randint(10**10, 10**12)}-{r.randint(10**12, 10**13)}-{s(ALNUM, 24)}",
    )
    add(
        S,
        "slack_webhook_url",
        [
            "ALERT_WEBHOOK=§",
            "Webhook für Verspätungsalarme (#leitstelle-alarme): §",
            'alerting:\n  slack_url: "§"',
            "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"TVM 0412 hors service\"}' §",
            "Webhook du canal #billettique-astreinte : §",
        ],
        lambda: (
            f"https://hooks.slack.com/services/T{s(UP + DIG, 8)}/B{s(UP + DIG, 10)}/{s(ALNUM, 24)}"
        ),
    )
    add(
        S,
        "teams_webhook_url",
        [
            "TEAMS_WEBHOOK_URL=§",
            "Incoming webhook del canal Teams 'Centro de Control': §",
            "Für die Betriebsleitstelle posten wir Störungsmeldungen an §",
            "notify:\n  teams: §",
        ],
        lambda: (
            f"https://verkehrsverbund.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{s(HEX, 32)}/{uuid()}/V2{s(URLSAFE, 43)}"
        ),
    )
    add(
        S,
        "discord_webhook_url",
        [
            "DISCORD_WEBHOOK=§",
            "Hobby-Server der Fahrer-Community, Webhook für den Dienstplan-Bot: §",
            "webhook du serveur des conducteurs (annonces grève) : §",
        ],
        lambda: f"https://discord.com/api/webhooks/{r.randint(10**17, 10**18)}/{s(URLSAFE, 68)}",
    )
    add(
        S,
        "telegram_bot_token",
        [
            "TELEGRAM_BOT_TOKEN=§",
            "Bot de alertas de la cochera Norte: token § (chat id -1001876543210).",
            "curl https://api.telegram.org/bot§/sendMessage -d chat_id=-100187 -d text='Ausfall Linie 7'",
            'telegram:\n  token: "§"\n  chat_id: -1001554433221',
        ],
        lambda: f"{r.randint(10**9, 8 * 10**9)}:AA{s(URLSAFE, 33)}",
    )
    add(
        S,
        "stripe_secret_key",
        [
            "STRIPE_SECRET_KEY=§",
            "Clé live Stripe pour la boutique abonnements en ligne : §",
            'stripe.api_key = "§"  # webshop Monatskarten',
            "curl https://api.stripe.com/v1/refunds -u §: -d payment_intent=pi_3P9xQ2LkdIwHu7ix0a1B2c3D",
            "Restricted key für den Erstattungs-Job (nur refunds:write): §",
        ],
        lambda: (
            r.choice(["sk_live_", "rk_live_"]) + r.choice(["51", ""]) + s(ALNUM, r.choice([24, 99]))
        ),
    )
    add(
        S,
        "stripe_webhook_secret",
        [
            "STRIPE_WEBHOOK_SECRET=§",
            "Signing secret de l'endpoint /webhooks/stripe (prod) : §",
            "stripe:\n  webhook_secret: §",
            "Webhook-Signatur-Secret fürs Abo-Portal lautet §, bitte in den Vault übertragen.",
        ],
        lambda: "whsec_" + s(ALNUM, 32),
    )
    add(
        S,
        "adyen_api_key",
        [
            "ADYEN_API_KEY=§",
            "X-API-Key für ws_fare_ecom@Company.TransitAgency (live): §",
            'adyen:\n  merchant: TransitAgencyECOM\n  api_key: "§"',
            "curl -H 'X-API-Key: §' https://checkout-live.adyenpayments.com/checkout/v71/payments",
            "Clave API de Adyen para los terminales de taquilla (Terminal API): §",
        ],
        lambda: "AQE" + s(B64, 96) + "==-" + s(B64, 43) + "=-" + s(ALNUM + "%<>", 16),
    )
    add(
        S,
        "twilio_auth_token",
        [
            "TWILIO_AUTH_TOKEN=§",
            "Auth token Twilio (SMS alertes trafic), compte AC3f0c: §",
            "twilio:\n  account_sid: AC8d1e47a6b2c94f0e9a7d3b5c6e1f2a40\n  auth_token: §",
            "curl -u AC8d1e47a6b2c94f0e9a7d3b5c6e1f2a40:§ https://api.twilio.com/2010-04-01/Accounts/AC8d1e47a6b2c94f0e9a7d3b5c6e1f2a40/Messages.json",
        ],
        lambda: s(HEX, 32),
    )
    add(
        S,
        "sendgrid_api_key",
        [
            "SENDGRID_API_KEY=§",
            "Für die Kundenmails (Abo-Bestätigung) nutzt der Shop den SendGrid-Key §.",
            "Clé SendGrid pour les mails de remboursement : §",
            "mail:\n  provider: sendgrid\n  key: §",
        ],
        lambda: "SG." + s(URLSAFE, 22) + "." + s(URLSAFE, 43),
    )
    add(
        S,
        "google_api_key",
        [
            "GOOGLE_DIRECTIONS_KEY=§  # server key, NOT restricted to referrers",
            "Server-Key für Geocoding der Haltestellen-Adressen: §",
            "https://maps.googleapis.com/maps/api/distancematrix/json?origins=Hbf&destinations=Depot+Nord&key=§",
            "Clave de servidor de Google Maps Platform para el planificador de viajes: §",
        ],
        lambda: "AIza" + s(URLSAFE, 35),
    )
    add(
        S,
        "openai_api_key",
        [
            "OPENAI_API_KEY=§",
            "Agent note: the passenger-complaints triage script reads the key § from .env.local.",
            "Clé OpenAI pour le résumé des réclamations voyageurs : §",
            'client = OpenAI(api_key="§")',
        ],
        lambda: "sk-proj-" + s(URLSAFE, 64) + "T3BlbkFJ" + s(URLSAFE, 64),
    )
    add(
        S,
        "anthropic_api_key",
        [
            "ANTHROPIC_API_KEY=§",
            "Schlüssel für den Fahrplan-Assistenten (Claude), Projekt PID: §",
            "anthropic:\n  api_key: §\n  model: claude-sonnet",
            "export ANTHROPIC_API_KEY=§ # clave del piloto de atención al viajero",
        ],
        lambda: "sk-ant-api03-" + s(URLSAFE, 93) + "AA",
    )
    add(
        S,
        "npm_token",
        [
            "//registry.npmjs.org/:_authToken=§",
            "NPM_TOKEN=§",
            "Publish-Token für @transit-agency/departure-board: §",
        ],
        lambda: "npm_" + s(ALNUM, 36),
    )
    add(
        S,
        "pypi_token",
        [
            "TWINE_PASSWORD=§",
            "[pypi]\nusername = __token__\npassword = §",
            "Token PyPI pour publier gtfs-rt-tools : §",
        ],
        lambda: "pypi-AgEIcHlwaS5vcmc" + s(URLSAFE, 140),
    )
    add(
        S,
        "dockerhub_pat",
        [
            "echo § | docker login -u transitops --password-stdin",
            "DOCKERHUB_TOKEN=§",
            "Docker-Hub-Token des Build-Agents (Push für avl-ingest): §",
        ],
        lambda: "dckr_pat_" + s(URLSAFE, 27),
    )
    add(
        S,
        "vault_token",
        [
            "VAULT_TOKEN=§",
            "Root-Token nach dem Unseal (nur für Notfall, danach revoken!): §",
            "vault login §",
            "Token de Vault del job de rotación de claves SAM: §",
        ],
        lambda: "hvs." + s(URLSAFE, 24) if r.random() < 0.5 else "hvs.CAESI" + s(URLSAFE, 86),
    )
    add(
        S,
        "azure_storage_account_key",
        [
            "DefaultEndpointsProtocol=https;AccountName=stpidarchive;AccountKey=§;EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY=§",
            "az storage blob upload --account-name sttvmlogs --account-key § -c journaux -f tvm_0412.log",
            "Clé de compte stockage (journaux valideurs) : §",
        ],
        lambda: s(B64, 86) + "==",
    )
    add(
        S,
        "datadog_api_key",
        [
            "DD_API_KEY=§",
            "datadog:\n  apiKey: §\n  site: datadoghq.eu",
            "Datadog-Agent auf den Depot-Gateways meldet mit API-Key §.",
            "docker run -e DD_API_KEY=§ -e DD_SITE=datadoghq.eu gcr.io/datadoghq/agent:7",
        ],
        lambda: s(HEX, 32),
    )
    add(
        S,
        "mapbox_secret_token",
        [
            "MAPBOX_DOWNLOADS_TOKEN=§",
            "Secret token Mapbox (scope styles:write, tilesets) pour le plan réseau : §",
            "Token secreto de Mapbox para subir los tilesets de recorridos: §",
        ],
        lambda: (
            "sk." + b64url({"u": "transit-pid", "a": "cl" + s(LO + DIG, 23)}) + "." + s(URLSAFE, 22)
        ),
    )
    add(
        S,
        "jwt_signing_secret",
        [
            "JWT_SECRET=§",
            "Le secret HMAC des QR-codes billets mobiles est § (HS256).",
            'auth:\n  jwt:\n    secret: "§"\n    ttl: 900',
            "Signierschlüssel für die Handy-Tickets (HS256): §",
        ],
        lambda: s(ALNUM, r.choice([32, 48, 64])),
    )
    add(
        S,
        "jwt_bearer_token",
        [
            "Authorization: Bearer §",
            "Token del operador de taquilla copiado del navegador (válido 12 h): §",
            'curl -H "Authorization: Bearer §" https://abt.transit.local/api/v2/accounts/88213/trips',
            "Service-Token für den Fahrgastinfo-Push (läuft erst 2027 ab): §",
        ],
        lambda: (
            b64url({"alg": "HS256", "typ": "JWT"})
            + "."
            + b64url(
                {
                    "sub": f"svc-{r.choice(['pid', 'abt', 'avl'])}",
                    "iss": "fare-auth",
                    "exp": r.randint(1790000000, 1830000000),
                }
            )
            + "."
            + s(URLSAFE, 43)
        ),
    )

    def pem(kind: str) -> str:
        if kind == "OPENSSH":
            body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + s(
                B64, 64 * 5 - 70
            )
        elif kind == "EC":
            body = "MHcCAQEEI" + s(B64, 64 * 2 - 9) + s(B64, 32)
        elif kind == "":
            body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + s(B64, 64 * 8 - 32)
        else:
            body = "MIIEpAIBAAKCAQEA" + s(B64, 64 * 8 - 16)
        lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
        label = f"{kind} PRIVATE KEY" if kind else "PRIVATE KEY"
        return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"

    pem_kinds = iter(["RSA", "OPENSSH", "EC", "", "RSA"])
    add(
        S,
        "private_key_pem",
        [
            "Clé privée du certificat client vers la chambre de compensation :\n§",
            "deploy key für den Depot-Bastion (ed25519):\n§",
            "tls:\n  key: |\n§",
            '{"type": "service_account", "project_id": "pid-gtfs", "private_key": "§"}',
            "Clave privada del HSM exportada para pruebas de SAM (¡borrar!):\n§",
        ],
        lambda: pem(next(pem_kinds)),
    )
    add(
        S,
        "postgres_url_with_password",
        [
            "DATABASE_URL=§",
            "Lesezugriff auf die Fahrgastzähldaten: §",
            "psql \"§\" -c 'select count(*) from validations where day = current_date'",
            "sqlalchemy.url = §",
            "Conexión a la base de recaudación (réplica): §",
        ],
        lambda: (
            f"postgresql://{r.choice(['fare_app', 'apc_ro', 'gtfs_loader', 'recaudo'])}:{human_pw()}@{r.choice(['db-fare-01', 'pg-apc.internal', '10.20.4.17'])}:5432/{r.choice(['fare', 'apc', 'gtfs'])}"
        ),
    )
    add(
        S,
        "sqlserver_connection_string",
        [
            'ConnectionStrings__Recettes="§"',
            "Verbindung zur alten Kassen-DB: §",
            '"ConnectionStrings": {"AVL": "§"}',
            "Chaîne de connexion de la base SAE (serveur de la régulation) : §",
        ],
        lambda: (
            f"Server=tcp:{r.choice(['sql-sae01', 'kasse-db.vb.local', '10.8.1.40'])},1433;Database={r.choice(['SAE', 'Kasse', 'Recettes'])};User Id={r.choice(['sa', 'sae_app', 'kasse'])};Password={human_pw()};Encrypt=True;"
        ),
    )
    add(
        S,
        "redis_url_with_password",
        [
            "REDIS_URL=§",
            "Cache der Abfahrtsprognosen: §",
            "cache:\n  url: §",
            "redis-cli -u § keys 'eta:*' | head",
        ],
        lambda: (
            f"redis://{r.choice(['', 'default'])}:{s(ALNUM, 24)}@{r.choice(['redis-eta', 'cache.pid.local', '10.20.9.3'])}:6379/{r.randint(0, 3)}"
        ),
    )
    add(
        S,
        "mqtt_broker_password",
        [
            "MQTT_PASSWORD=§",
            "Broker AVL (telemetría de buses) usuario avl-ingest, contraseña §",
            "mosquitto_sub -h mqtt.avl.local -u fleet -P '§' -t 'vehicles/+/position'",
            "mqtt:\n  host: mqtt.avl.local\n  username: obu\n  password: §",
            "Die Bordrechner melden sich am Broker mit obu / § an.",
        ],
        lambda: s(ALNUM, r.randint(16, 24)),
    )
    add(
        S,
        "basic_auth_url",
        [
            "SIRI_ENDPOINT=§",
            "Feed SIRI-VM du réseau voisin (accès partenaire) : §",
            "curl § -o vehicle_positions.pb",
            "Export der Zählerdaten vom Dienstleister: §",
        ],
        lambda: (
            f"https://{r.choice(['partner', 'pidsync', 'apc_export'])}:{human_pw()}@{r.choice(['siri.nachbarverbund.de', 'feeds.reseau-voisin.fr', 'export.apc-vendor.com'])}/{r.choice(['siri/vm', 'gtfsrt/vehicles', 'counts/daily'])}"
        ),
    )

    # human-made passwords: value is the password only
    add(
        S,
        "human_password",
        [
            "Passwort für den Leitstellen-PC (Benutzer dispo): §",
            "Mot de passe du compte regulation sur le poste SAE : §",
            "La contraseña del portal de la tarjeta ciudadana (usuario admin.tarjetas) es §",
            "DB_PASSWORD=§",
            "password: §   # Grafana admin im Depot",
            "Handover: the scheduling tool login for the night shift is nachtdienst / §",
        ],
        human_pw,
    )
    add(
        S,
        "shared_vendor_login",
        [
            "Shared login for the validator vendor's support portal: transit-agency-ops / §",
            "Zugang Hersteller-Portal (Fahrscheindrucker): support@verkehrsbetrieb.de / §",
            "Compte partagé portail fournisseur des bornes : exploitation.billettique / §",
            "| Portal | User | Pass |\n|---|---|---|\n| Planificación (proveedor) | cochera_sur | § |",
            "Für den Dienstplan-SaaS nutzen alle Disponenten denselben Login dispo-team mit §.",
        ],
        human_pw,
    )
    add(
        S,
        "tvm_service_pin",
        [
            "Service-PIN Fahrkartenautomaten Typ B (Technikermenü): §",
            "Code technicien des DAT (distributeurs) pour vider la caisse : §",
            "PIN de mantenimiento de las máquinas expendedoras: §, no compartir con contratistas.",
            "TVM maintenance menu PIN is § on all units since the last rollout.",
        ],
        lambda: str(r.randint(100000, 999999)) if r.random() < 0.5 else str(r.randint(1000, 9999)),
    )
    add(
        S,
        "depot_door_code",
        [
            "Torcode Betriebshof Nord (Nachteinfahrt): §#",
            "Code d'accès portail dépôt de Vénissieux : §",
            "Código de la puerta de la cochera Este: § + llave",
            "Depot gate keypad code changed to § (was 4471).",
        ],
        lambda: str(r.randint(1000, 999999)),
    )
    add(
        S,
        "depot_wifi_psk",
        [
            "WLAN Betriebshof (SSID VB-Depot-Yard) Schlüssel: §",
            "Wi-Fi atelier dépôt (SSID TCL-ATELIER) — clé WPA2 : §",
            "wpa_passphrase DEPOT-YARD '§' > /etc/wpa_supplicant/yard.conf",
            "Wifi de cocheras para descarga de datos de validadoras: §",
        ],
        lambda: r.choice([passphrase(), human_pw(), s(ALNUM, 20)]),
    )
    add(
        S,
        "validator_admin_password",
        [
            "Validator web admin (https://10.44.x.x/admin) password: §",
            "Entwerter-Adminpasswort (Firmware 4.x): §",
            "Mot de passe root des valideurs embarqués : §",
            "ssh root@valid-0231 # pw §",
        ],
        lambda: r.choice([human_pw(), s(ALNUM + "!#", 12)]),
    )
    add(
        S,
        "desfire_master_key",
        [
            "DESFire PICC master key (AES-128, prod cards): §",
            "Clé maître application billettique (AES) : §",
            "SAM_KEY_00=§",
            "Anwendungsschlüssel Stadtbahn-Abo (Key 0x01, AES): §",
        ],
        lambda: s("0123456789ABCDEF", 32),
    )
    add(
        S,
        "ipsec_psk",
        [
            "IPsec PSK Tunnel Betriebshof Süd <-> RZ: §",
            'ipsec.secrets: 10.9.0.1 10.9.0.2 : PSK "§"',
            "Clé pré-partagée VPN dépôt vers le centre de contrôle : §",
            "pre-shared-key del túnel cochera-CCO: §",
        ],
        lambda: r.choice([s(ALNUM, 32), passphrase()]),
    )
    add(
        S,
        "snmp_write_community",
        [
            "SNMP RW community on the depot switches: §",
            "snmpset -v2c -c § 10.30.1.1 ifAdminStatus.12 i 2",
            "Communauté SNMP en écriture des afficheurs quais : §",
        ],
        lambda: r.choice(["dep0t", "rw", "pid", "yard"]) + r.choice(["-", "_", ""]) + s(ALNUM, 8),
    )
    add(
        S,
        "ansible_vault_password",
        [
            "echo '§' > ~/.vault_pass_fare",
            "Ansible-Vault-Passwort für inventories/depot: §",
            "Mot de passe ansible-vault (playbooks valideurs) : §",
        ],
        passphrase,
    )
    add(
        S,
        "recovery_codes",
        [
            "Backup codes for the ops@ Google account:\n§",
            "Wiederherstellungscodes Admin-Konto Cloud-Konsole: §",
            "Codes de secours 2FA du compte Stripe de la boutique : §",
            "Códigos de recuperación (cuenta AWS root): §",
        ],
        lambda: " ".join(f"{s(LO + DIG, 4)}-{s(LO + DIG, 4)}" for _ in range(r.randint(4, 8))),
    )
    add(
        S,
        "realtime_feed_api_key",
        [
            "AVL vendor API key for the GTFS-RT vehicle positions pull: §",
            "https://api.avl-vendor.com/v1/gtfsrt/vehicle_positions?agency=vbn&api_key=§",
            "Clé API du fournisseur SAE (prédictions de passage) : §",
            "x-api-key del servicio de predicciones de llegada: §",
        ],
        lambda: r.choice([s(HEX, 32), s(ALNUM, 40)]),
    )
    add(
        S,
        "sftp_clearing_password",
        [
            "SFTP clearing house (daily settlement files) user tavb_settle pw §",
            "sshpass -p '§' sftp clearing@sftp.clearing-verbund.de:/out/",
            "Mot de passe SFTP de la chambre de compensation (fichiers de rapprochement) : §",
            "Contraseña SFTP del operador de compensación (liquidaciones diarias): §",
        ],
        human_pw,
    )

    # ------------------------------------------------------------------ benign
    B = "benign"
    add(
        B,
        "aws_example_key",
        [
            "In the README example we use § as access key; it is AWS's documented example.",
            "aws_access_key_id = §  # Beispiel aus der AWS-Doku",
            "Ejemplo de la documentación: AWS_SECRET_ACCESS_KEY=§",
        ],
        lambda: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
    )
    add(
        B,
        "aws_account_id",
        [
            "Prod account for fare collection: §",
            "Konto-ID AWS (Fahrgastinfo): §",
            "aws sts get-caller-identity → Account: §",
            "Cuenta AWS de la web de horarios: §",
        ],
        lambda: str(r.randint(10**11, 10**12 - 1)),
    )
    add(
        B,
        "aws_role_arn",
        [
            "role_arn = §",
            "Le job d'export assume le rôle §",
            "AssumeRole auf § für den GTFS-Upload.",
        ],
        lambda: (
            f"arn:aws:iam::{r.randint(10**11, 10**12 - 1)}:role/{r.choice(['gtfs-publisher', 'fare-settlement-ro', 'avl-ingest'])}"
        ),
    )
    add(
        B,
        "git_commit_sha",
        [
            "Hotfix Tarifrundung ist in § gelandet.",
            "Revert du commit § (arrondi des correspondances).",
            "deployed fare-engine@§ to prod at 05:10",
            "El fix de zonas tarifarias está en el commit §.",
        ],
        lambda: s(HEX, r.choice([40, 7, 12])),
    )
    add(
        B,
        "sha256_digest",
        [
            "Firmware Entwerter v4.12.3 sha256: §",
            "sha256sum gtfs_2026-12.zip → §",
            "Empreinte SHA-256 de l'image des afficheurs : §",
            "Checksum del paquete de tarifas publicado: §",
        ],
        lambda: s(HEX, 64),
    )
    add(
        B,
        "docker_image_digest",
        [
            "image: registry.transit.local/avl-ingest@§",
            "Rollback auf §",
            "docker pull ghcr.io/transit-agency/departure-board@§",
        ],
        lambda: "sha256:" + s(HEX, 64),
    )
    add(
        B,
        "md5_checksum",
        [
            "md5 fichier de tarifs TAR_2027.dat : §",
            "MD5 der Haltestellenliste vom Verbund: §",
            'ETag: "§"',
        ],
        lambda: s(HEX, 32),
    )
    add(
        B,
        "uuid_request_id",
        [
            "x-request-id: §",
            "Fehlerhafte Buchung, Request-ID §",
            "ID de incidencia en el gestor: §",
            "journey_id=§ state=COMPLETED fare=2.90",
        ],
        uuid,
    )
    add(
        B,
        "gtfs_trip_id",
        [
            "trip_id §: delay 240s at stop 7103",
            "Fahrt § fällt heute aus (Personalmangel).",
            "Course § supprimée, à signaler dans l'info voyageurs.",
            "Viaje § con desvío por obras.",
        ],
        lambda: (
            f"{r.choice(['T4', '12', 'N7', 'S3'])}_{r.randint(10000, 99999)}_{r.choice(['WD', 'SA', 'SU'])}_{r.randint(1, 9)}"
        ),
    )
    add(
        B,
        "gtfs_stop_id",
        [
            'stop_id=§ stop_name="Hauptbahnhof Süd"',
            "Arrêt § (Part-Dieu Villette) déplacé de 80 m pendant les travaux.",
            "Parada § sin marquesina desde el lunes.",
            "| stop_id | Name |\n|---|---|\n| § | Rathausplatz |",
        ],
        lambda: r.choice(["de:08111:", "FR:StopPoint:Q:", "ES:"]) + str(r.randint(1000, 99999)),
    )
    add(
        B,
        "fleet_number",
        [
            "Wagen § steht mit Türstörung im Betriebshof.",
            "Bus § : afficheur frontal HS.",
            "Unidad § en taller por fallo del validador delantero.",
            "vehicle_id=§ route=4 occupancy=MANY_SEATS_AVAILABLE",
        ],
        lambda: str(r.randint(1001, 9899)),
    )
    add(
        B,
        "run_block_number",
        [
            "Umlauf § ab Betriebshof Nord, 04:52 Ausfahrt.",
            "Service voiture § reprise par le dépôt Sud.",
            "block_id: §",
            "Turno § cubierto por la cochera Este.",
        ],
        lambda: f"{r.choice(['U', 'B', 'SV'])}{r.randint(100, 999)}-{r.randint(1, 12):02d}",
    )
    add(
        B,
        "card_uid",
        [
            "Karten-UID § gesperrt (Verlustmeldung).",
            "UID carte § : blacklistée suite à fraude.",
            "card_uid=§ tap_result=DENIED reason=HOTLIST",
            "Tarjeta UID §: saldo restablecido.",
        ],
        lambda: "04" + s("0123456789ABCDEF", 12),
    )
    add(
        B,
        "masked_pan",
        [
            "Erstattung an Karte § veranlasst.",
            "Paiement EMV refusé pour la carte §",
            "pan=§ scheme=VISA result=DECLINED",
            "Cobro duplicado en la tarjeta §, ticket de soporte abierto.",
        ],
        lambda: (
            f"{r.choice(['4', '5'])}{s(DIG, 5)}******{s(DIG, 4)}"
            if r.random() < 0.5
            else f"**** **** **** {s(DIG, 4)}"
        ),
    )
    add(
        B,
        "ticket_reference",
        [
            "Ticketnummer §, 24h-Ticket Zone AB.",
            "Référence du titre : § (abonnement mensuel)",
            "Billete § validado en Sol a las 08:14.",
            "order=§ product=DAY_PASS qty=2",
        ],
        lambda: f"{r.choice(['TKT', 'VB', 'ABO', 'BL'])}-{r.randint(2026, 2027)}-{s(UP + DIG, 8)}",
    )
    add(
        B,
        "payment_transaction_id",
        [
            "PSP reference §, refund pending.",
            "Adyen pspReference: §",
            "Référence de transaction acquéreur : §",
        ],
        lambda: s(UP + DIG, 16),
    )
    add(
        B,
        "validator_serial",
        [
            "Entwerter S/N § tauschen (Leser defekt).",
            "valideur n° série § — écran figé",
            "validator_sn=§ fw=4.12.3 status=ONLINE",
            "Validadora nº de serie § devuelta al proveedor.",
        ],
        lambda: f"VAL{r.randint(20, 26)}{s(DIG, 7)}",
    )
    add(
        B,
        "tvm_asset_tag",
        [
            "Automat § (Haltestelle Rathaus) meldet Münzstau.",
            "DAT § : monnayeur bloqué.",
            "Máquina § fuera de servicio desde las 06:00.",
            "TVM § cash box full alarm at 07:42, emptied by depot staff.",
        ],
        lambda: f"TVM-{r.randint(100, 999):04d}",
    )
    add(
        B,
        "modem_imei",
        [
            "Router im Bus 2215, IMEI §",
            "IMEI du modem embarqué : §",
            "imei=§ rssi=-71 apn=transit.m2m",
        ],
        lambda: "35" + s(DIG, 13),
    )
    add(
        B,
        "sim_iccid",
        [
            "SIM-Karte ICCID § deaktiviert.",
            "ICCID de la SIM du boîtier SAE : §",
            "iccid: §",
        ],
        lambda: "8949" + s(DIG, 15),
    )
    add(
        B,
        "mac_address",
        [
            "Anzeiger Bahnsteig 2, MAC §",
            "Adresse MAC de la borne d'info : §",
            "DHCP lease § -> 10.44.3.18",
            "Dirección MAC del panel de andén 3: §",
        ],
        lambda: ":".join(s("0123456789abcdef", 2) for _ in range(6)),
    )
    add(
        B,
        "ip_address",
        [
            "Depot-Gateway Nord: §",
            "La passerelle de la station est à §",
            "ssh ops@§  # bastion",
            "Adresse IP du serveur SAE de secours : §",
        ],
        lambda: f"10.{r.randint(0, 60)}.{r.randint(0, 255)}.{r.randint(1, 254)}",
    )
    add(
        B,
        "stripe_publishable_key",
        [
            "NEXT_PUBLIC_STRIPE_KEY=§",
            "Clé publiable (front du webshop) : §",
            "Der Publishable Key § darf ins Frontend.",
            "const stripe = Stripe('§');",
        ],
        lambda: "pk_live_" + r.choice(["51", ""]) + s(ALNUM, r.choice([24, 99])),
    )
    add(
        B,
        "recaptcha_site_key",
        [
            "RECAPTCHA_SITE_KEY=§",
            "Site key reCAPTCHA (formulaire réclamations) : §",
            '<div class="g-recaptcha" data-sitekey="§"></div>',
        ],
        lambda: "6L" + s(URLSAFE, 38),
    )
    add(
        B,
        "mapbox_public_token",
        [
            "MAPBOX_PUBLIC_TOKEN=§  # public, URL-restricted",
            "mapboxgl.accessToken = '§';",
            "Token público del mapa de líneas (restringido a nuestra web): §",
        ],
        lambda: (
            "pk." + b64url({"u": "transit-pid", "a": "cl" + s(LO + DIG, 23)}) + "." + s(URLSAFE, 22)
        ),
    )
    add(
        B,
        "adyen_client_key",
        [
            "ADYEN_CLIENT_KEY=§  # Client-Key, ist fürs Frontend gedacht",
            "clientKey: '§', environment: 'live'",
            "Client key Adyen (Drop-in, public) : §",
        ],
        lambda: "live_" + s(UP + DIG, 32),
    )
    add(
        B,
        "twilio_account_sid",
        [
            "TWILIO_ACCOUNT_SID=§",
            "Compte Twilio des alertes SMS : §",
            "Account SID (kein Secret): §",
        ],
        lambda: "AC" + s(HEX, 32),
    )
    add(
        B,
        "ssh_public_key",
        [
            "authorized_keys auf dem Bastion: §",
            "Clé publique du runner CI à ajouter sur les valideurs : §",
            "Add this deploy key (read-only): §",
        ],
        lambda: (
            r.choice(
                [
                    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
                    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + s(B64, 300),
                ]
            )
            + " "
            + r.choice(["ci@runner-03", "ops@leitstelle", "deploy@pid"])
        ),
    )
    add(
        B,
        "x509_certificate",
        [
            "Zertifikat der Clearingstelle (öffentlich, zum Pinnen):\n§",
            "ca.crt du broker MQTT :\n§",
            "Certificado raíz del PKI de validadoras:\n§",
        ],
        lambda: (
            "-----BEGIN CERTIFICATE-----\n"
            + "\n".join("MII" + s(B64, 61) if i == 0 else s(B64, 64) for i in range(6))
            + "\n-----END CERTIFICATE-----"
        ),
    )
    add(
        B,
        "env_var_reference",
        [
            "DATABASE_URL=§",
            "password: §",
            "Le mot de passe est lu depuis §, jamais en dur.",
            "api_key = §",
        ],
        lambda: r.choice(
            [
                "${FARE_DB_URL}",
                "${MQTT_PASSWORD}",
                'os.environ["ADYEN_API_KEY"]',
                "$(cat /run/secrets/stripe_key)",
                "{{ .Values.pid.slackWebhook }}",
                "process.env.TWILIO_AUTH_TOKEN",
            ]
        ),
    )
    add(
        B,
        "vault_path",
        [
            "Die Zugangsdaten liegen unter §.",
            "vault kv get §",
            "Secrets du SAE : §",
            "Credenciales de la pasarela de pago en §",
        ],
        lambda: r.choice(
            [
                "secret/data/fare/adyen",
                "kv/avl/mqtt-broker",
                "secret/pid/twilio",
                "kv/depot/wifi-nord",
                "secret/data/clearing/sftp",
            ]
        ),
    )
    add(
        B,
        "k8s_secret_ref",
        [
            "valueFrom:\n  secretKeyRef:\n    name: §\n    key: password",
            "kubectl get secret § -n fare -o yaml",
            "Le déploiement monte le secret § en variable d'environnement.",
        ],
        lambda: r.choice(
            ["fare-db-credentials", "avl-mqtt-auth", "pid-slack-webhook", "stripe-keys"]
        ),
    )
    add(
        B,
        "placeholder_value",
        [
            "STRIPE_SECRET_KEY=§",
            'password: "§"',
            "Clé API : § (à remplir dans .env.local)",
            "Ersetze § durch den Key aus dem Vault.",
        ],
        lambda: r.choice(
            [
                "<your-secret-key>",
                "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
                "CHANGE_ME",
                "<mot-de-passe>",
                "TU_CLAVE_AQUI",
                "xxxxxxxx",
            ]
        ),
    )
    add(
        B,
        "redacted_value",
        [
            "Log: auth header Bearer § rejected (expired).",
            "ADYEN_API_KEY=§",
            "Mot de passe : § (masqué dans l'export)",
            "token=§ user=dispo",
        ],
        lambda: r.choice(
            [
                "eyJhbGciOi…[REDACTED]",
                "AQE*****************",
                "********",
                "sk_live_****************3fQa",
                "[redacted]",
                "xoxb-***-***-****",
            ]
        ),
    )
    add(
        B,
        "revoked_key",
        [
            "The old bot token § was revoked on 2026-11-30 after the leak; do not reuse.",
            "Der alte Token § ist widerrufen (rotated, INC-4471).",
            "Clé révoquée, ne plus utiliser : §",
        ],
        lambda: r.choice(
            [
                "ghp_" + s(ALNUM, 36),
                f"xoxb-{r.randint(10**10, 10**12)}-{r.randint(10**12, 10**13)}-{s(ALNUM, 24)}",
            ]
        ),
    )
    add(
        B,
        "password_policy",
        [
            "§",
            "Policy note: §",
            "Règle interne : §",
        ],
        lambda: r.choice(
            [
                "Passwörter für Entwerter-Admin müssen mindestens 14 Zeichen haben und alle 90 Tage rotiert werden.",
                "Les mots de passe des comptes SAE ne doivent jamais être écrits dans les notes de passation.",
                "Las contraseñas de las máquinas expendedoras se guardan solo en el gestor de secretos.",
                "Service PINs are 6 digits, unique per depot, and rotated when a technician leaves.",
            ]
        ),
    )
    add(
        B,
        "firmware_version",
        [
            "Entwerter-Firmware §, Rollout Depot Nord abgeschlossen.",
            "Version du logiciel DAT : §",
            "fw_version=§ model=VX820",
            "Firmware de las validadoras actualizado a §.",
        ],
        lambda: (
            f"{r.randint(2, 9)}.{r.randint(0, 20)}.{r.randint(0, 30)}-build{r.randint(1000, 9999)}"
        ),
    )
    add(
        B,
        "package_version",
        [
            "gtfs-realtime-bindings==§",
            "Upgrade auf protobuf § wegen CVE.",
            '"@transit-agency/departure-board": "^§"',
        ],
        lambda: f"{r.randint(1, 5)}.{r.randint(0, 30)}.{r.randint(0, 15)}",
    )
    add(
        B,
        "jira_ticket",
        [
            "Siehe § für den Türstörungsfall.",
            "Ticket § : remboursement double débit.",
            "Incidencia § asignada a billetaje.",
            "Fixed in § (GTFS-RT alerts missing translations).",
        ],
        lambda: f"{r.choice(['FARE', 'AVL', 'PID', 'DEPOT'])}-{r.randint(100, 9999)}",
    )
    add(
        B,
        "cron_expression",
        [
            'schedule: "§"  # GTFS export nightly',
            "Crontab Abgleich Sperrliste: §",
            "Tâche de rapprochement : §",
        ],
        lambda: f"{r.randint(0, 59)} {r.randint(0, 5)} * * {r.choice(['*', '1-5', '0'])}",
    )
    add(
        B,
        "iso_timestamp",
        [
            "Ausfall begann um § laut AVL.",
            "timestamp=§ event=DOOR_OPEN vehicle=2215",
            "Dernière position reçue à §",
        ],
        lambda: (
            f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z"
        ),
    )
    add(
        B,
        "gps_coordinates",
        [
            "Bus steht bei §, Fahrer meldet Panne.",
            "Position du tram bloqué : §",
            "lat,lon=§ speed=0 heading=212",
        ],
        lambda: f"{r.uniform(40, 52):.6f},{r.uniform(-3, 13):.6f}",
    )
    add(
        B,
        "bcrypt_hash",
        [
            "users.csv: dispo01,§",
            "Hash du mot de passe admin du portail (bcrypt, pas le mot de passe) : §",
            "password_hash = '§'",
        ],
        lambda: "$2b$12$" + s("./" + ALNUM, 53),
    )
    add(
        B,
        "slack_channel_id",
        [
            "Alarme gehen in Kanal §.",
            "channel: §  # #pid-alerts",
            "Canal des incidents billettique : §",
        ],
        lambda: "C0" + s(UP + DIG, 9),
    )
    add(
        B,
        "employee_badge",
        [
            "Fahrer mit Personalnummer § meldet Entwerterstörung.",
            "Matricule conducteur : §",
            "Conductor nº § solicita cambio de turno.",
        ],
        lambda: f"{r.randint(10000, 99999)}",
    )
    add(
        B,
        "support_phone",
        [
            "Hotline Entwerter-Hersteller: §",
            "Astreinte fournisseur SAE : §",
            "Atención al viajero: §",
        ],
        lambda: (
            r.choice(["+49 421 596 ", "+33 4 26 10 ", "+34 915 "])
            + f"{r.randint(10, 99)} {r.randint(10, 99)}"
        ),
    )
    add(
        B,
        "agency_iban",
        [
            "Überweisungen für Abo-Nachzahlungen an IBAN §.",
            "IBAN de la régie pour les amendes : §",
            "IBAN para abonos: §",
        ],
        lambda: r.choice(
            [
                "DE89 3704 0044 0532 0130 00",
                "FR76 3000 6000 0112 3456 7890 189",
                "ES91 2100 0418 4502 0005 1332",
            ]
        ),
    )
    add(
        B,
        "vat_number",
        [
            "USt-IdNr. des Verkehrsbetriebs: §",
            "N° TVA intracommunautaire : §",
            "NIF de la empresa: §",
        ],
        lambda: r.choice(["DE", "FR", "ES"]) + s(DIG, 9),
    )
    add(
        B,
        "correlation_id",
        [
            "trace_id=§ span=validate_tap",
            "Correlation-ID im Fehlerlog: §",
            "traceparent: 00-§-00f067aa0ba902b7-01",
        ],
        lambda: s(HEX, 32),
    )
    add(
        B,
        "base64_config_blob",
        [
            "ConfigMap-Wert (nur Anzeige-Layout): §",
            "data:\n  layout.json: §",
            "Payload du message d'info voyageurs (base64) : §",
        ],
        lambda: base64.b64encode(
            json.dumps(
                {
                    "line": r.choice(["4", "T2", "N7"]),
                    "rows": r.randint(3, 8),
                    "lang": r.choice(["de", "fr", "es"]),
                    "scroll": True,
                }
            ).encode()
        ).decode(),
    )
    add(
        B,
        "calypso_aid",
        [
            "Calypso AID: §",
            "SELECT AID § auf dem Leser, Antwort 9000.",
            "AID de l'application billettique : §",
        ],
        lambda: (
            r.choice(["315449432E494341", "A000000291", "A0000004040125"])
            + r.choice(["", "D25001"])
        ),
    )
    add(
        B,
        "emv_terminal_id",
        [
            "Terminal-ID Fahrkartenautomat Rathaus: §",
            "TID du terminal de paiement en station : §",
            "tid=§ mid=112233445566 acquirer=ELAVON",
            "Terminal de pago de taquilla, TID §",
        ],
        lambda: s(DIG, 8),
    )
    add(
        B,
        "license_plate",
        [
            "Kennzeichen des Ersatzbusses: §",
            "Immatriculation du bus de remplacement : §",
            "Matrícula del autobús lanzadera: §",
        ],
        lambda: r.choice(
            [
                f"HB-VB {r.randint(100, 999)}",
                f"{s(UP, 2)}-{r.randint(100, 999)}-{s(UP, 2)}",
                f"{r.randint(1000, 9999)} {s('BCDFGHJKLMNPRSTVWXYZ', 3)}",
            ]
        ),
    )
    add(
        B,
        "stripe_object_id",
        [
            "Kunde § hat zwei Monatskarten gekauft.",
            "Remboursement lié au paiement §",
            "price_id: §",
        ],
        lambda: (
            r.choice(["cus_", "pi_", "price_", "sub_"]) + s(ALNUM, 14 if r.random() < 0.5 else 24)
        ),
    )
    add(
        B,
        "ga_measurement_id",
        [
            "Tracking-ID Fahrplanauskunft: §",
            "gtag('config', '§');",
            "ID de medición de la web de horarios: §",
        ],
        lambda: "G-" + s(UP + DIG, 10),
    )
    add(
        B,
        "gtfs_feed_url",
        [
            "Öffentlicher GTFS-Feed: §",
            "Flux GTFS-RT public (sans clé) : §",
            "curl -O §",
        ],
        lambda: r.choice(
            [
                "https://opendata.transit-agency.example/gtfs/latest.zip",
                "https://gtfsrt.transit-agency.example/vehicle_positions.pb",
                "https://datos.transporte.example/gtfs-rt/alerts?format=json",
            ]
        ),
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

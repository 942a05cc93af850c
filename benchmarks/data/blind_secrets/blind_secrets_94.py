# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 94: film VFX and post-production studio.

Brief: notes kept by the pipeline, systems and production teams of a VFX and
post-production studio (render farm, asset management with ftrack/ShotGrid,
storage arrays, licence servers for DCC tools, review tools, client delivery
portals, editing suites) and by their AI coding agents: prose, handovers, chat
lines, commands, config and .env lines, YAML, JSON, URLs, tables and logs, in
English, French and Hindi (Devanagari and Hinglish).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_94.py [out.jsonl]

Kinds, secret: aws_secret_access_key, github_token, gitlab_pat, slack_bot_token,
slack_webhook_url, discord_webhook_url, teams_webhook_url, stripe_secret_key,
sendgrid_api_key, twilio_auth_token, google_api_key, gcp_service_account_key,
rsa_private_key, openssh_private_key, postgres_connection_string,
mongodb_connection_string, redis_url_password, ftrack_api_key,
shotgrid_script_key, frameio_developer_token, aspera_password,
storage_admin_password, licence_server_password, bmc_password,
wifi_passphrase, door_access_code, alarm_pin, mfa_recovery_codes,
jwt_session_token, openai_api_key, anthropic_api_key, azure_storage_key,
npm_token, pypi_token, docker_hub_token, telegram_bot_token, mailgun_api_key,
vault_token, wireguard_private_key, backblaze_app_key, razorpay_key_secret,
whatsapp_cloud_token, atlassian_api_token, cloudflare_api_token,
jenkins_api_token, django_secret_key, basic_auth_url, smtp_password,
delivery_portal_password, shared_account_password, ssh_key_passphrase,
avid_nexis_password.

Kinds, benign: aws_documented_example, git_commit_sha, file_sha256,
delivery_md5, ftrack_entity_id, shotgrid_entity_id, shot_code,
deadline_job_id, ssh_public_key, x509_certificate, wireguard_public_key,
stripe_publishable_key, recaptcha_site_key, placeholder, env_var_reference,
vault_path, masked_secret, revoked_key, mac_address, hardware_serial,
flexlm_hostid, docker_image_digest, software_version, ticket_id,
booking_reference, iban, tax_id, twilio_account_sid, slack_channel_id,
aws_arn, azure_tenant_id, gcp_service_account_email, oauth_client_id,
razorpay_key_id, password_policy, bcrypt_hash, jwt_documented_example,
file_path_pattern, timecode, cert_fingerprint, gpg_fingerprint, lun_wwn,
eidr_id, imf_cpl_uuid, aspera_transfer_id, frameio_asset_id, yubikey_serial,
slack_webhook_example, empty_password, sri_integrity, ip_address,
watermark_session_id, invoice_number, backblaze_key_id, phone_number,
licence_feature_line, git_branch, request_id.
"""

import base64
import json
import random
import string
import sys

SEED = 9494

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def rs(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    def hexs(n: int) -> str:
        return rs(HEX, n)

    def uuid() -> str:
        h = hexs(32)
        h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def rbytes(n: int) -> bytes:
        return bytes(rng.getrandbits(8) for _ in range(n))

    def b64bytes(n: int) -> str:
        return base64.b64encode(rbytes(n)).decode()

    def b64url(n: int) -> str:
        return base64.urlsafe_b64encode(rbytes(n)).decode().rstrip("=")

    words_en = [
        "Render",
        "Nuke",
        "Comp",
        "Grade",
        "Houdini",
        "Plate",
        "Roto",
        "Dailies",
        "Pixel",
        "Matte",
        "Flame",
        "Katana",
        "Resolve",
        "Avid",
    ]
    words_fr = ["Soleil", "Montage", "Etalon", "Lumiere", "Rushes", "Pellicule", "Bobine", "Cinema"]
    words_hi = [
        "Jaldi",
        "Dilli",
        "Mumbai",
        "Chai",
        "Sitara",
        "Kahani",
        "Filmy",
        "Bollywood",
        "Masala",
        "Diwali",
    ]
    syms = "!@#$%&*?"

    def human_pw() -> str:
        style = rng.randrange(6)
        w = rng.choice(words_en + words_fr + words_hi)
        w2 = rng.choice(words_en + words_fr + words_hi)
        if style == 0:
            return f"{w}{rng.choice(syms)}{rng.randint(10, 9999)}"
        if style == 1:
            return f"{w}{w2}{rng.randint(2019, 2026)}{rng.choice(syms)}"
        if style == 2:
            return f"{w.lower()}_{w2.lower()}{rng.choice(syms)}{rng.randint(1, 99)}"
        if style == 3:
            leet = w.replace("a", "@").replace("o", "0").replace("e", "3").replace("i", "1")
            return f"{leet}{rng.randint(100, 999)}{rng.choice(syms)}"
        if style == 4:
            return f"{rs(ALNUM, 6)}{rng.choice(syms)}{rs(ALNUM, 6)}"
        return f"{w}-{w2}-{rng.randint(10, 99)}{rng.choice(syms)}"

    def pin(n: int) -> str:
        return str(rng.randint(1, 9)) + rs(DIGITS, n - 1)

    def add(label: str, kind: str, text: str, value: str) -> None:
        assert "{v}" in text, text
        t = text.replace("{v}", value)
        assert value in t
        rows.append({"label": label, "kind": kind, "text": t, "value": value})

    def S(kind: str, text: str, value: str) -> None:
        add("secret", kind, text, value)

    def B(kind: str, text: str, value: str) -> None:
        add("benign", kind, text, value)

    # generators for credential formats
    def akid() -> str:
        return "AKIA" + rs(UPPER + "234567", 16)

    def aws_secret() -> str:
        return rs(B64, 40)

    def ghp() -> str:
        return "ghp_" + rs(ALNUM, 36)

    def gh_fine() -> str:
        return "github_pat_11" + rs(UPPER + DIGITS, 20) + "_" + rs(ALNUM, 59)

    def glpat() -> str:
        return "glpat-" + rs(URLSAFE, 20)

    def xoxb() -> str:
        return f"xoxb-{rs(DIGITS, 12)}-{rs(DIGITS, 13)}-{rs(ALNUM, 24)}"

    def slack_hook() -> str:
        return f"https://hooks.slack.com/services/T{rs(UPPER + DIGITS, 8)}/B{rs(UPPER + DIGITS, 10)}/{rs(ALNUM, 24)}"

    def discord_hook() -> str:
        return f"https://discord.com/api/webhooks/{pin(19)}/{rs(URLSAFE, 68)}"

    def teams_hook() -> str:
        return f"https://{rng.choice(['lumenvfx', 'studiocanopee', 'pixelghat'])}.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{hexs(32)}/{uuid()}/V2{rs(URLSAFE, 45)}"

    def sk_live() -> str:
        return "sk_live_51" + rs(ALNUM, 97)

    def sendgrid() -> str:
        return "SG." + rs(URLSAFE, 22) + "." + rs(URLSAFE, 43)

    def aiza() -> str:
        return "AIza" + rs(URLSAFE, 35)

    def pem_body(lines: int) -> str:
        raw = b64bytes(lines * 48)
        return "\n".join(raw[i : i + 64] for i in range(0, len(raw), 64))

    def rsa_key() -> str:
        return (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
            + pem_body(9)[16:]
            + "\n-----END RSA PRIVATE KEY-----"
        )

    def pkcs8_key() -> str:
        return (
            "-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC"
            + pem_body(8)[32:]
            + "\n-----END PRIVATE KEY-----"
        )

    def openssh_key() -> str:
        return (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACB"
            + pem_body(4)[13:]
            + "\n-----END OPENSSH PRIVATE KEY-----"
        )

    def shotgrid_key() -> str:
        return (
            rs(LOWER + DIGITS, 4)
            + rng.choice("!#$%^&(")
            + rs(LOWER, 8)
            + rng.choice("!#$%^&(")
            + rs(LOWER + UPPER + DIGITS, 11)
        )

    def fio() -> str:
        return "fio-u-" + rs(URLSAFE, 64)

    def jwt(claims: dict) -> str:
        head = (
            base64.urlsafe_b64encode(
                json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode()
            )
            .decode()
            .rstrip("=")
        )
        body = (
            base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )
        return f"{head}.{body}.{b64url(32)}"

    def openai_key() -> str:
        return "sk-proj-" + rs(URLSAFE, 74) + "T3BlbkFJ" + rs(URLSAFE, 74)

    def anthropic_key() -> str:
        return "sk-ant-api03-" + rs(URLSAFE, 93) + "AA"

    def azure_key() -> str:
        return b64bytes(64)

    def npm() -> str:
        return "npm_" + rs(ALNUM, 36)

    def pypi() -> str:
        return "pypi-AgEIcHlwaS5vcmc" + rs(URLSAFE, 140)

    def dckr() -> str:
        return "dckr_pat_" + rs(URLSAFE, 27)

    def tg() -> str:
        return f"{pin(10)}:AA{rs(URLSAFE, 33)}"

    def mailgun() -> str:
        return "key-" + hexs(32)

    def hvs() -> str:
        return "hvs.CAESI" + rs(URLSAFE, 86)

    def wg_priv() -> str:
        b = bytearray(rbytes(32))
        b[0] &= 248
        b[31] = (b[31] & 127) | 64
        return base64.b64encode(bytes(b)).decode()

    def b2_app() -> str:
        return "K005" + rs(ALNUM + "+/", 27)

    def rzp_secret() -> str:
        return rs(ALNUM, 24)

    def meta_token() -> str:
        return "EAAG" + rs(ALNUM, 196)

    def atlassian() -> str:
        return "ATATT3xFfGF0" + rs(URLSAFE, 180) + "=" + rs(UPPER + DIGITS, 8)

    def cf_token() -> str:
        return rs(URLSAFE, 40)

    def jenkins() -> str:
        return "11" + hexs(32)

    def django_key(prefix: bool) -> str:
        body = rs(LOWER + DIGITS + "!@#%^&*(-_=+)", 50)
        return ("django-insecure-" + body) if prefix else body

    # ------------------------------------------------------------------ secrets
    k1, k2, k3, k4, k5 = akid(), akid(), akid(), akid(), akid()
    S(
        "aws_secret_access_key",
        f"[render-sync]\naws_access_key_id = {k1}\naws_secret_access_key = {{v}}\nregion = eu-west-3",
        aws_secret(),
    )
    S(
        "aws_secret_access_key",
        f"export AWS_ACCESS_KEY_ID={k2} AWS_SECRET_ACCESS_KEY={{v}}  # temp user for the plate upload to s3://lumen-plates-ingest",
        aws_secret(),
    )
    S(
        "aws_secret_access_key",
        f"Handover: the Deadline AWS Portal user is {k3}, its secret is {{v}} — rotate after the Dune shots wrap.",
        aws_secret(),
    )
    S(
        "aws_secret_access_key",
        f"Clé S3 pour l'archivage Glacier des rushes : ID {k4} / secret {{v}}",
        aws_secret(),
    )
    S(
        "aws_secret_access_key",
        f"S3 backup user (Wasabi ke liye bhi same format): key {k5}, secret key {{v}} — ये किसी को मत भेजना",
        aws_secret(),
    )

    S(
        "github_token",
        "git clone https://{v}@github.com/lumenvfx/pipeline-tools.git  # bot account, read-only",
        ghp(),
    )
    S("github_token", "GITHUB_TOKEN={v}", gh_fine())
    S(
        "github_token",
        "Le token GitHub du bot de release (pipeline-ci) : {v} — expire en mars.",
        ghp(),
    )
    S(
        "github_token",
        "agent memory: use PAT {v} for pushing the OCIO config repo, scopes repo+workflow",
        gh_fine(),
    )

    S("gitlab_pat", "gitlab runner on rndr-ci01 registered with personal token {v}", glpat())
    S(
        "gitlab_pat",
        'curl --header "PRIVATE-TOKEN: {v}" https://gitlab.lumenvfx.local/api/v4/projects/42/pipelines',
        glpat(),
    )
    S("gitlab_pat", 'GITLAB_TOKEN: "{v}"   # for the nuke-gizmos mirror job', glpat())
    S("gitlab_pat", "gitlab का टोकन: {v} (pipeline-bot के नाम से)", glpat())

    S("slack_bot_token", "SLACK_BOT_TOKEN={v}", xoxb())
    S(
        "slack_bot_token",
        "The render-farm notifier posts as @farmbot; its bot token is {v}, scopes chat:write,files:write.",
        xoxb(),
    )
    S("slack_bot_token", 'slack:\n  bot_token: {v}\n  channel: "#dailies-review"', xoxb())
    S("slack_bot_token", "Token du bot Slack pour les alertes de stockage : {v}", xoxb())

    S("slack_webhook_url", "Failed-job alerts go to {v}", slack_hook())
    S(
        "slack_webhook_url",
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Farm queue > 500 jobs\"}' {v}",
        slack_hook(),
    )
    S("slack_webhook_url", 'DEADLINE_EVENT_WEBHOOK="{v}"', slack_hook())
    S(
        "slack_webhook_url",
        "#storage-alerts ka webhook: {v} — Isilon quota script isi pe post karta hai",
        slack_hook(),
    )

    S(
        "discord_webhook_url",
        "Freelance compers' Discord gets render notifications via {v}",
        discord_hook(),
    )
    S("discord_webhook_url", "webhook_url: {v}", discord_hook())
    S("discord_webhook_url", "Webhook Discord du serveur des stagiaires : {v}", discord_hook())

    S(
        "teams_webhook_url",
        "Client-side Teams channel for the Netflix show reviews: {v}",
        teams_hook(),
    )
    S("teams_webhook_url", "TEAMS_WEBHOOK={v}", teams_hook())
    S("teams_webhook_url", "Le connecteur Teams pour l'équipe montage : {v}", teams_hook())

    S("stripe_secret_key", "STRIPE_SECRET_KEY={v}", sk_live())
    S(
        "stripe_secret_key",
        "The training-course shop (VFX masterclass) charges through Stripe, live secret key {v}",
        sk_live(),
    )
    S("stripe_secret_key", 'stripe.api_key = "{v}"', "rk_live_51" + rs(ALNUM, 97))
    S("stripe_secret_key", "Clé secrète Stripe (prod) de la boutique des assets : {v}", sk_live())

    S("sendgrid_api_key", "SENDGRID_API_KEY={v}", sendgrid())
    S(
        "sendgrid_api_key",
        "Delivery portal sends 'your files are ready' mails with SendGrid key {v}",
        sendgrid(),
    )
    S("sendgrid_api_key", "smtp.sendgrid.net:587 user apikey pass {v}", sendgrid())
    S("sendgrid_api_key", "Clé SendGrid du portail client : {v}", sendgrid())

    S("twilio_auth_token", f"TWILIO_ACCOUNT_SID=AC{hexs(32)}\nTWILIO_AUTH_TOKEN={{v}}", hexs(32))
    S("twilio_auth_token", "On-call SMS for the render farm: Twilio auth token {v}", hexs(32))
    S("twilio_auth_token", f'client = Client("AC{hexs(32)}", "{{v}}")', hexs(32))
    S("twilio_auth_token", "ट्विलियो auth token (SMS अलर्ट वाला): {v}", hexs(32))

    S(
        "google_api_key",
        "GOOGLE_MAPS_API_KEY={v}  # location scouting app, server-side, not restricted yet",
        aiza(),
    )
    S("google_api_key", "Sheets API key used by the bid-tracking script: {v}", aiza())
    S(
        "google_api_key",
        "https://www.googleapis.com/drive/v3/files?q=name%3D%27EDL%27&key={v}",
        aiza(),
    )
    S("google_api_key", "Clé API Google (Drive, transferts des rushes) : {v}", aiza())

    S(
        "gcp_service_account_key",
        '{"type": "service_account", "project_id": "lumen-render-burst", "private_key_id": "'
        + hexs(40)
        + '", "private_key": "{v}", "client_email": "deadline-burst@lumen-render-burst.iam.gserviceaccount.com"}',
        pkcs8_key().replace("\n", "\\n"),
    )
    S("gcp_service_account_key", "private_key: |\n  {v}", pkcs8_key().replace("\n", "\n  "))
    S(
        "gcp_service_account_key",
        "Compte de service GCP pour le burst de rendu, clé privée :\n{v}",
        pkcs8_key(),
    )

    S(
        "rsa_private_key",
        "Key for the client SFTP drop (sftp.delivery.lumenvfx.com):\n{v}",
        rsa_key(),
    )
    S("rsa_private_key", "cat > /etc/ssl/private/review.key <<EOF\n{v}\nEOF", rsa_key())
    S("rsa_private_key", "रिव्यू सर्वर की TLS private key:\n{v}", rsa_key())

    S(
        "openssh_private_key",
        "render-wrangler deploy key (~/.ssh/id_ed25519 on wrangler01):\n{v}",
        openssh_key(),
    )
    S(
        "openssh_private_key",
        "ansible_ssh_private_key: |\n  {v}",
        openssh_key().replace("\n", "\n  "),
    )
    S("openssh_private_key", "Clé SSH de la machine de conformation :\n{v}", openssh_key())
    S(
        "openssh_private_key",
        "agent note: key to reach the Flame boxes as `flameadm`, pasted by Ravi:\n{v}",
        openssh_key(),
    )

    S(
        "postgres_connection_string",
        "DATABASE_URL={v}",
        f"postgresql://ftrack:{human_pw()}@pg-assets01.lumenvfx.local:5432/ftrack",
    )
    S(
        "postgres_connection_string",
        "The bid database: {v}",
        f"postgres://bids_rw:{rs(ALNUM, 18)}@10.20.4.15:5432/bidding?sslmode=require",
    )
    S(
        "postgres_connection_string",
        "sqlalchemy.url = {v}",
        f"postgresql+psycopg2://review:{human_pw()}@cinesync-db:5432/review",
    )
    S(
        "postgres_connection_string",
        "Base de la file de rendu OpenCue : {v}",
        f"postgresql://cuebot:{human_pw()}@cue-db01:5432/cuebot",
    )
    S(
        "postgres_connection_string",
        "psql \"{v}\" -c 'select count(*) from versions'",
        f"host=pg-prod01 port=5432 dbname=assets user=pipeline password={rs(ALNUM, 16)}",
    )

    S(
        "mongodb_connection_string",
        "Deadline repo DB: {v}",
        f"mongodb://deadline:{human_pw()}@deadline-db01:27100/deadline10db?authSource=admin",
    )
    S(
        "mongodb_connection_string",
        "DbConnection={v}",
        f"mongodb://dl_admin:{rs(ALNUM, 20)}@10.10.2.31:27100,10.10.2.32:27100/?replicaSet=deadline",
    )
    S(
        "mongodb_connection_string",
        'MONGO_URI="{v}"',
        f"mongodb+srv://portal:{rs(ALNUM, 16)}@cluster0.{rs(LOWER + DIGITS, 5)}.mongodb.net/delivery?retryWrites=true",
    )
    S(
        "mongodb_connection_string",
        "Chaîne de connexion Mongo (Deadline 10) : {v}",
        f"mongodb://deadline:{human_pw()}@dl-mongo.paris.local:27100/deadline10db",
    )
    S(
        "mongodb_connection_string",
        "Deadline का mongo: {v}",
        f"mongodb://root:{human_pw()}@dl-db-mum:27017/admin",
    )

    S(
        "redis_url_password",
        "CELERY_BROKER_URL={v}",
        f"redis://:{rs(ALNUM, 24)}@redis-farm01:6379/0",
    )
    S(
        "redis_url_password",
        "Thumbnail queue cache: {v}",
        f"rediss://default:{rs(ALNUM, 32)}@cache.lumenvfx.local:6380/2",
    )
    S(
        "redis_url_password",
        "Cache Redis du portail de review : {v}",
        f"redis://review:{human_pw()}@10.30.1.8:6379/1",
    )

    S(
        "ftrack_api_key",
        "FTRACK_SERVER=https://lumenvfx.ftrackapp.com\nFTRACK_API_USER=pipeline.bot\nFTRACK_API_KEY={v}",
        uuid(),
    )
    S(
        "ftrack_api_key",
        "session = ftrack_api.Session(server_url='https://lumenvfx.ftrackapp.com', api_key='{v}', api_user='publish-bot')",
        uuid(),
    )
    S(
        "ftrack_api_key",
        "ftrack API key for the review-sync event plugin: {v} (user: review.sync)",
        uuid(),
    )
    S("ftrack_api_key", "Clé API ftrack de Camille (production) : {v}", uuid())
    S("ftrack_api_key", "ftrack की API key, publish script वाली: {v}", uuid())

    S(
        "shotgrid_script_key",
        "sg = shotgun_api3.Shotgun('https://lumen.shotgrid.autodesk.com', script_name='toolkit_publish', api_key='{v}')",
        shotgrid_key(),
    )
    S("shotgrid_script_key", "SHOTGRID_SCRIPT_KEY={v}", shotgrid_key())
    S("shotgrid_script_key", "ShotGrid script 'ingest_bot' application key: {v}", shotgrid_key())
    S(
        "shotgrid_script_key",
        'shotgrid:\n  site: https://pixelghat.shotgrid.autodesk.com\n  script_name: farm_status\n  script_key: "{v}"',
        shotgrid_key(),
    )
    S(
        "shotgrid_script_key",
        "Clé du script ShotGrid pour la synchro des versions : {v}",
        shotgrid_key(),
    )

    S("frameio_developer_token", "FRAMEIO_TOKEN={v}", fio())
    S("frameio_developer_token", "Frame.io dev token for the auto-upload of dailies: {v}", fio())
    S(
        "frameio_developer_token",
        'curl -H "Authorization: Bearer {v}" https://api.frame.io/v2/me',
        fio(),
    )
    S("frameio_developer_token", "Token Frame.io du compte de la post-prod : {v}", fio())

    S("aspera_password", "Aspera Faspex login for the studio: lumen_delivery / {v}", human_pw())
    S(
        "aspera_password",
        "ASPERA_SCP_PASS={v} ascp -QT -l 800M -P33001 plates/ xfer@aspera.client-studio.com:/incoming",
        human_pw(),
    )
    S(
        "aspera_password",
        "Identifiants Aspera du distributeur : user lumenparis, mot de passe {v}",
        human_pw(),
    )
    S("aspera_password", "client ka Aspera password {v} hai, user pixelghat_in", human_pw())

    S("storage_admin_password", "Isilon cluster (isi-prod) root password: {v}", human_pw())
    S(
        "storage_admin_password",
        "Qumulo web UI admin / {v} — use only for quota changes",
        human_pw(),
    )
    S(
        "storage_admin_password",
        "| array | user | password |\n|---|---|---|\n| netapp-a200 | admin | {v} |",
        human_pw(),
    )
    S(
        "storage_admin_password",
        "Mot de passe admin du Synology des rushes (syno-rushes) : {v}",
        human_pw(),
    )
    S(
        "storage_admin_password",
        "NAS (स्टोरेज) का admin पासवर्ड {v} है, बदलने से पहले Arjun को बताना",
        human_pw(),
    )
    S(
        "storage_admin_password",
        "handover: PowerScale iDRAC aside, the OneFS `admin` password is now {v} after the upgrade",
        human_pw(),
    )

    S(
        "licence_server_password",
        "RLM web admin (rlm.lumenvfx.local:5054) login admin / {v}",
        human_pw(),
    )
    S(
        "licence_server_password",
        "Foundry licence server Windows box: Administrator / {v}",
        human_pw(),
    )
    S(
        "licence_server_password",
        "Mot de passe de l'interface RLM (licences Nuke / Katana) : {v}",
        human_pw(),
    )
    S(
        "licence_server_password",
        "SideFX sesinetd wali machine ka login: lic-admin, password {v}",
        human_pw(),
    )

    S("bmc_password", "iDRAC on rndr-node-117: root / {v}", human_pw())
    S(
        "bmc_password",
        "ipmitool -I lanplus -H 10.40.1.117 -U ADMIN -P {v} chassis power cycle",
        rs(ALNUM, 12),
    )
    S(
        "bmc_password",
        "All the new Supermicro render blades ship with unique BMC passwords; rack B row 3 is {v}",
        rs(UPPER, 10),
    )
    S("bmc_password", "iLO du serveur de licences : Administrator / {v}", rs(UPPER + DIGITS, 8))
    S("bmc_password", "रेंडर नोड के iDRAC का पासवर्ड: {v}", human_pw())

    S(
        "wifi_passphrase",
        "Guest Wi-Fi for clients in the screening room: SSID Lumen-Screening, password {v}",
        human_pw(),
    )
    S("wifi_passphrase", "Wi-Fi du studio (LumenPost-5G) : clé WPA2 {v}", human_pw())
    S("wifi_passphrase", 'wpa_passphrase="{v}"', human_pw())
    S("wifi_passphrase", "office wifi ka password: {v}", human_pw())

    S(
        "door_access_code",
        "Machine room door code is {v}# — don't write it on the whiteboard",
        pin(4),
    )
    S("door_access_code", "Code porte de la salle d'étalonnage : {v}", pin(4))
    S("door_access_code", "Vault (LTO archive room) keypad: {v}", pin(6))
    S("door_access_code", "सर्वर रूम का दरवाज़ा कोड {v} है", pin(4))
    S("door_access_code", "night shift note: side entrance code changed to {v}*", pin(5))

    S("alarm_pin", "Alarm disarm PIN for the Montreuil office: {v}", pin(4))
    S("alarm_pin", "Code alarme (dernier parti éteint) : {v}", pin(4))
    S("alarm_pin", "alarm panel PIN — {v}, guard desk knows", pin(6))

    codes = lambda: " ".join(f"{rs(LOWER + DIGITS, 4)}-{rs(LOWER + DIGITS, 4)}" for _ in range(5))  # noqa: E731
    S("mfa_recovery_codes", "Recovery codes for the shared AWS root (production@): {v}", codes())
    S("mfa_recovery_codes", "Codes de secours Google Workspace du compte livraison : {v}", codes())
    S(
        "mfa_recovery_codes",
        "GitHub org owner backup codes:\n{v}",
        "\n".join(rs(HEX, 5) + "-" + rs(HEX, 5) for _ in range(6)),
    )
    S(
        "mfa_recovery_codes",
        "Frame.io admin के backup codes: {v}",
        " ".join(pin(8) for _ in range(6)),
    )

    S(
        "jwt_session_token",
        "Authorization: Bearer {v}",
        jwt({"sub": "pipeline.bot", "iss": "review.lumenvfx.com", "exp": 1798761600}),
    )
    S(
        "jwt_session_token",
        "review portal session cookie from the client's browser: rp_session={v}",
        jwt({"uid": 4812, "role": "client", "project": "NTFX_2741"}),
    )
    S(
        "jwt_session_token",
        "Jeton de session du portail de livraison : {v}",
        jwt({"sub": "dist-fr", "scope": "download", "exp": 1799000000}),
    )
    S("jwt_session_token", "DELIVERY_API_JWT={v}", jwt({"svc": "ingest", "iat": 1796000000}))

    S("openai_api_key", "OPENAI_API_KEY={v}", openai_key())
    S("openai_api_key", "The shot-description tagger calls OpenAI with {v}", openai_key())
    S("openai_api_key", "Clé OpenAI pour les sous-titres automatiques : {v}", openai_key())
    S("openai_api_key", "हिंदी सबटाइटल ट्रांसलेशन script की OpenAI key: {v}", openai_key())

    S("anthropic_api_key", "ANTHROPIC_API_KEY={v}", anthropic_key())
    S(
        "anthropic_api_key",
        "agent config: anthropic key {v} (billing: pipeline team)",
        anthropic_key(),
    )
    S("anthropic_api_key", "Clé Anthropic du bot de docs pipeline : {v}", anthropic_key())

    S(
        "azure_storage_key",
        'AZURE_STORAGE_CONNECTION_STRING="{v}"',
        f"DefaultEndpointsProtocol=https;AccountName=lumenarchive;AccountKey={azure_key()};EndpointSuffix=core.windows.net",
    )
    S(
        "azure_storage_key",
        "az storage blob upload-batch -d plates --account-name lumenburst --account-key {v} -s ./SEQ020",
        azure_key(),
    )
    S("azure_storage_key", "Clé du compte de stockage Azure (archives froides) : {v}", azure_key())
    S("azure_storage_key", "Azure render burst storage key1: {v}", azure_key())

    S("npm_token", "//registry.npmjs.org/:_authToken={v}", npm())
    S("npm_token", "NPM_TOKEN={v} # publishes @lumenvfx/review-player", npm())
    S("npm_token", "Token npm pour publier le player web : {v}", npm())

    S("pypi_token", "[pypi]\nusername = __token__\npassword = {v}", pypi())
    S("pypi_token", "twine upload -u __token__ -p {v} dist/*", pypi())
    S("pypi_token", "PyPI token for lumen-pipeline-core releases: {v}", pypi())

    S("docker_hub_token", "echo {v} | docker login -u lumenci --password-stdin", dckr())
    S("docker_hub_token", "DOCKERHUB_TOKEN={v}", dckr())
    S("docker_hub_token", "Docker Hub access token (render images): {v}", dckr())
    S("docker_hub_token", "Jeton Docker Hub du compte lumenci : {v}", dckr())

    S("telegram_bot_token", "TELEGRAM_BOT_TOKEN={v}", tg())
    S(
        "telegram_bot_token",
        "The Mumbai team's render status bot: https://api.telegram.org/bot{v}/sendMessage",
        tg(),
    )
    S("telegram_bot_token", "टेलीग्राम बॉट टोकन (फ़ार्म अलर्ट): {v}", tg())
    S("telegram_bot_token", "Bot Telegram des monteurs : {v}", tg())

    S("mailgun_api_key", "MAILGUN_API_KEY={v}", mailgun())
    S(
        "mailgun_api_key",
        "curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.lumenvfx.com/messages",
        mailgun(),
    )
    S("mailgun_api_key", "Clé Mailgun (notifications de livraison) : {v}", mailgun())

    S("vault_token", "VAULT_TOKEN={v}", hvs())
    S("vault_token", "vault login {v}", hvs())
    S(
        "vault_token",
        "root token after the unseal ceremony: {v} — revoke once the policies are in",
        hvs(),
    )
    S("vault_token", "Jeton Vault de l'agent de déploiement : {v}", hvs())

    S("wireguard_private_key", "[Interface]\nPrivateKey = {v}\nAddress = 10.99.0.14/32", wg_priv())
    S("wireguard_private_key", "Remote grading suite VPN (Delhi): private key {v}", wg_priv())
    S("wireguard_private_key", "Clé privée WireGuard du portable de l'étalonneur : {v}", wg_priv())

    S(
        "backblaze_app_key",
        f"B2_APPLICATION_KEY_ID=005{hexs(12)}0000000004\nB2_APPLICATION_KEY={{v}}",
        b2_app(),
    )
    S(
        "backblaze_app_key",
        f"rclone config: [b2-archive] type = b2, account = 005{hexs(12)}0000000002, key = {{v}}",
        b2_app(),
    )
    S("backblaze_app_key", "Backblaze app key for the offsite EXR archive: {v}", b2_app())
    S("backblaze_app_key", "Clé d'application B2 (sauvegarde hors site) : {v}", b2_app())

    S(
        "razorpay_key_secret",
        f"RAZORPAY_KEY_ID=rzp_live_{rs(ALNUM, 14)}\nRAZORPAY_KEY_SECRET={{v}}",
        rzp_secret(),
    )
    S("razorpay_key_secret", "Razorpay secret for the workshop payments page: {v}", rzp_secret())
    S("razorpay_key_secret", "रेज़रपे key secret (VFX वर्कशॉप): {v}", rzp_secret())
    S(
        "razorpay_key_secret",
        f'client = razorpay.Client(auth=("rzp_live_{rs(ALNUM, 14)}", "{{v}}"))',
        rzp_secret(),
    )

    S("whatsapp_cloud_token", "WHATSAPP_TOKEN={v}", meta_token())
    S(
        "whatsapp_cloud_token",
        "Permanent WhatsApp Cloud API token (client approval pings): {v}",
        meta_token(),
    )
    S("whatsapp_cloud_token", "WhatsApp वाला access token: {v}", meta_token())

    S("atlassian_api_token", "JIRA_API_TOKEN={v}", atlassian())
    S(
        "atlassian_api_token",
        "curl -u pipeline@lumenvfx.com:{v} https://lumenvfx.atlassian.net/rest/api/3/myself",
        atlassian(),
    )
    S("atlassian_api_token", "Token API Jira pour le script de tickets de rendu : {v}", atlassian())
    S("atlassian_api_token", "Confluence export job uses the token {v}", atlassian())

    S("cloudflare_api_token", "CLOUDFLARE_API_TOKEN={v}", cf_token())
    S(
        "cloudflare_api_token",
        "Cloudflare token (DNS edit, zone lumenvfx.com) for cert-manager: {v}",
        cf_token(),
    )
    S("cloudflare_api_token", "Jeton Cloudflare pour le tunnel du portail client : {v}", cf_token())

    S(
        "jenkins_api_token",
        "curl -u builder:{v} https://jenkins.lumenvfx.local/job/nuke-plugins/build",
        jenkins(),
    )
    S("jenkins_api_token", "JENKINS_API_TOKEN={v}", jenkins())
    S("jenkins_api_token", "Jenkins token de l'utilisateur houdini-build : {v}", jenkins())

    S("django_secret_key", "SECRET_KEY = '{v}'", django_key(False))
    S("django_secret_key", "DJANGO_SECRET_KEY={v}", django_key(True))
    S("django_secret_key", "Delivery portal prod settings, secret key: {v}", django_key(False))

    S(
        "basic_auth_url",
        "Review site for the client: {v}",
        f"https://{rng.choice(['netflix', 'amazon', 'canal'])}review:{human_pw()}@review.lumenvfx.com/show/NTFX_2741",
    )
    S(
        "basic_auth_url",
        "pip install --index-url {v} lumen-usd-tools",
        f"https://deploy:{rs(ALNUM, 20)}@pypi.lumenvfx.local/simple/",
    )
    S(
        "basic_auth_url",
        "Lien du dépôt des plates : {v}",
        f"ftp://plates:{human_pw()}@ftp.lumenvfx.fr/incoming/",
    )
    S("basic_auth_url", "rsync pull from {v}", f"rsync://archive:{human_pw()}@lto-gw01/projects/")

    S("smtp_password", "EMAIL_HOST_PASSWORD={v}", human_pw())
    S(
        "smtp_password",
        'smtp:\n  host: smtp.office365.com\n  user: renders@lumenvfx.com\n  password: "{v}"',
        human_pw(),
    )
    S("smtp_password", "Mot de passe SMTP de noreply@studiocanopee.fr : {v}", human_pw())
    S(
        "smtp_password",
        "Deadline email notifications: SMTP account farm-noreply, pass {v}",
        rs(ALNUM, 16),
    )

    S(
        "delivery_portal_password",
        "Sent the client the download link; password for the share is {v}",
        human_pw(),
    )
    S(
        "delivery_portal_password",
        "MediaShuttle portal 'lumen-out' — share password {v}, expires Friday",
        human_pw(),
    )
    S("delivery_portal_password", "Lien WeTransfer Pro protégé, mot de passe : {v}", human_pw())
    S("delivery_portal_password", "क्लाइंट डिलीवरी लिंक का पासवर्ड: {v}", human_pw())
    S(
        "delivery_portal_password",
        "Frame.io review link pw for the director's cut: {v}",
        rs(LOWER + DIGITS, 10),
    )

    S("shared_account_password", "Edit suite 3 (Avid MC) local login: editor / {v}", human_pw())
    S(
        "shared_account_password",
        "Shared 'wrangler' account on the farm monitor PCs — {v}",
        human_pw(),
    )
    S("shared_account_password", "Session partagée des stations Flame : flame / {v}", human_pw())
    S(
        "shared_account_password",
        "Resolve project server (PostgreSQL) user davinci, password {v}",
        human_pw(),
    )
    S("shared_account_password", "इंटर्न्स के लिए shared login: intern01, पासवर्ड {v}", human_pw())

    S(
        "ssh_key_passphrase",
        "Passphrase for the delivery SFTP key: {v}",
        "-".join(rng.choice(words_en + words_fr).lower() for _ in range(4)),
    )
    S(
        "ssh_key_passphrase",
        "Phrase de passe de la clé GPG des livraisons : {v}",
        "-".join(rng.choice(words_fr + words_hi).lower() for _ in range(4))
        + str(rng.randint(10, 99)),
    )
    S("ssh_key_passphrase", "ssh key passphrase (wrangler01) is {v}", human_pw())

    S("avid_nexis_password", "NEXIS Management Console admin password: {v}", human_pw())
    S("avid_nexis_password", "Avid NEXIS workspace user 'assist_ed' password {v}", human_pw())
    S("avid_nexis_password", "Mot de passe du client NEXIS (salle 2) : {v}", human_pw())

    # ------------------------------------------------------------------ benign
    B(
        "aws_documented_example",
        "The AWS docs example key {v} is what the Deadline AWS Portal guide shows; ours lives in Vault.",
        "AKIAIOSFODNN7EXAMPLE",
    )
    B(
        "aws_documented_example",
        "aws_secret_access_key = {v}   # example from the AWS CLI docs, replace",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    )
    B(
        "aws_documented_example",
        "Exemple de la doc AWS : AWS_ACCESS_KEY_ID={v}",
        "AKIAIOSFODNN7EXAMPLE",
    )

    B("git_commit_sha", "Fix for the Nuke 15 write-node crash landed in {v}", hexs(40))
    B("git_commit_sha", "pipeline-tools pinned at commit {v} for the Dune delivery", hexs(40))
    B("git_commit_sha", "Correctif OCIO : commit {v} (branche release/2026.11)", hexs(7))
    B("git_commit_sha", "rez-release ने commit {v} से build किया", hexs(12))

    B("file_sha256", "SEQ010_SH0040_plate_v003.1001.exr sha256 {v}", hexs(64))
    B("file_sha256", "{v}  LUMEN_NTFX_2741_R2_IMF.zip", hexs(64))
    B("file_sha256", "Empreinte SHA-256 du master ProRes : {v}", hexs(64))
    B("file_sha256", "ACES config ka checksum (sha256): {v}", hexs(64))

    B("delivery_md5", "MD5 manifest line: {v}  reel_03/A003C012_240611_R1AB.mov", hexs(32))
    B("delivery_md5", "Client checked md5 {v} for the DPX sequence tarball — matches", hexs(32))
    B("delivery_md5", "Somme MD5 du DCP : {v}", hexs(32))
    B("delivery_md5", "डिलीवरी फ़ाइल का md5: {v}", hexs(32))

    B("ftrack_entity_id", "ftrack AssetVersion id {v} is the approved comp for SH0040", uuid())
    B("ftrack_entity_id", 'task_id: "{v}"', uuid())
    B("ftrack_entity_id", "Identifiant du projet ftrack : {v}", uuid())
    B("ftrack_entity_id", "ftrack shot का id {v} है, link में यही डालो", uuid())

    B(
        "shotgrid_entity_id",
        "ShotGrid Version #{v} — client note: 'sky too warm'",
        str(rng.randint(100000, 999999)),
    )
    B("shotgrid_entity_id", '{"type": "Shot", "id": {v}}', str(rng.randint(1000, 99999)))
    B(
        "shotgrid_entity_id",
        "PublishedFile id {v} a été rejeté par le superviseur",
        str(rng.randint(100000, 999999)),
    )

    B(
        "shot_code",
        "Comp of {v} is at v012, waiting on roto",
        f"SEQ{rng.randint(1, 9)}0_SH{rng.randint(1, 99):02d}{rng.choice('0')}0",
    )
    B(
        "shot_code",
        "Le plan {v} passe en étalonnage demain",
        f"RB{rng.randint(10, 99)}_{rng.randint(100, 999)}0",
    )
    B(
        "shot_code",
        "shot {v} ka matchmove redo karna hai",
        f"DLH_{rng.randint(100, 999)}_{rng.randint(1000, 9999)}",
    )
    B(
        "shot_code",
        "| shot | status |\n|---|---|\n| {v} | pending client |",
        f"NTFX_2741_{rng.randint(100, 999)}_{rng.randint(10, 99)}0",
    )

    B(
        "deadline_job_id",
        "Deadline job {v} failed on 14 nodes with 'license checkout failed'",
        hexs(24),
    )
    B("deadline_job_id", "deadlinecommand -SuspendJob {v}", hexs(24))
    B("deadline_job_id", "Job Deadline {v} relancé avec priorité 80", hexs(24))
    B(
        "deadline_job_id",
        "2026-12-04 03:12:44 WARN Slave rndr-node-042 timed out on task 17 of job {v}",
        hexs(24),
    )

    B(
        "ssh_public_key",
        "Add to authorized_keys on the Flame boxes: {v}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64bytes(24)[:43] + " ravi@wrangler01",
    )
    B(
        "ssh_public_key",
        "Clé publique de l'assistant monteur : {v}",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + b64bytes(200)[:240] + " assist@edit-mac04",
    )
    B(
        "ssh_public_key",
        "public key (safe to share) for the client SFTP allowlist: {v}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64bytes(24)[:43],
    )
    B(
        "ssh_public_key",
        "इस public key को deploy keys में जोड़ो: {v}",
        "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB"
        + b64bytes(60)[:80]
        + " ci@lumen",
    )

    def cert() -> str:
        return (
            "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU"
            + pem_body(7)[20:]
            + "\n-----END CERTIFICATE-----"
        )

    B(
        "x509_certificate",
        "Review server public cert (give to the client's IT for pinning):\n{v}",
        cert(),
    )
    B("x509_certificate", "Certificat de l'autorité interne du studio :\n{v}", cert())
    B("x509_certificate", "ca.crt for the licence server TLS:\n{v}", cert())

    def wg_pub() -> str:
        return b64bytes(32)

    B("wireguard_public_key", "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.99.0.0/24", wg_pub())
    B("wireguard_public_key", "Clé publique WireGuard du serveur Paris : {v}", wg_pub())
    B(
        "wireguard_public_key",
        "Delhi suite's peer public key {v} — fine to paste in the ticket",
        wg_pub(),
    )

    B("stripe_publishable_key", "STRIPE_PUBLISHABLE_KEY={v}", "pk_live_51" + rs(ALNUM, 97))
    B(
        "stripe_publishable_key",
        "Clé publiable Stripe (front de la boutique) : {v}",
        "pk_live_51" + rs(ALNUM, 97),
    )
    B(
        "stripe_publishable_key",
        "<script>const stripe = Stripe('{v}');</script>",
        "pk_live_51" + rs(ALNUM, 97),
    )

    B(
        "recaptcha_site_key",
        "reCAPTCHA site key on the delivery portal login: {v}",
        "6L" + rs(URLSAFE, 38),
    )
    B(
        "recaptcha_site_key",
        '<div class="g-recaptcha" data-sitekey="{v}"></div>',
        "6Le" + rs(URLSAFE, 37),
    )
    B("recaptcha_site_key", "Clé de site reCAPTCHA (publique) : {v}", "6Lc" + rs(URLSAFE, 37))

    B("placeholder", "FTRACK_API_KEY={v}", "<your-ftrack-api-key>")
    B("placeholder", 'shotgrid:\n  script_key: "{v}"', "REPLACE_ME")
    B("placeholder", "Mot de passe : {v} (à remplir par l'admin)", "xxxxxxxx")
    B("placeholder", "AWS_SECRET_ACCESS_KEY={v}", "${AWS_SECRET_ACCESS_KEY}")
    B(
        "placeholder",
        "FRAMEIO_TOKEN={v}  # ask production for yours",
        "fio-u-XXXXXXXXXXXXXXXXXXXXXXXX",
    )

    B("env_var_reference", 'api_key = os.environ["{v}"]', "SHOTGRID_SCRIPT_KEY")
    B("env_var_reference", "password: {v}", "${DEADLINE_DB_PASSWORD}")
    B("env_var_reference", "Le script lit la clé depuis {v}, rien en dur.", "$FTRACK_API_KEY")
    B("env_var_reference", "token = os.getenv('{v}')", "FRAMEIO_TOKEN")
    B("env_var_reference", "password के लिए {v} env var use करो", "%NEXIS_PASSWORD%")

    B("vault_path", "Deadline Mongo creds are in Vault at {v}", "secret/data/farm/deadline/mongo")
    B("vault_path", "vault kv get {v}", "kv/studio/storage/isilon-root")
    B("vault_path", "Les identifiants Aspera sont dans {v}", "secret/delivery/aspera/faspex")
    B("vault_path", "1Password item: {v}", "op://Pipeline/ShotGrid toolkit_publish/credential")

    B("masked_secret", "Stripe key in the dashboard shows {v}", "sk_live_••••••••••••4fQz")
    B("masked_secret", "FTRACK_API_KEY=***{v}", "******")
    B("masked_secret", "Mot de passe NAS : {v} (voir coffre)", "********")
    B("masked_secret", "log: connecting to mongodb://deadline:{v}@deadline-db01:27100", "****")
    B("masked_secret", "SendGrid key ending in {v} is the live one", "…" + rs(URLSAFE, 4))

    B("revoked_key", "Revoked on 2026-11-30 after the laptop theft, keep for audit: {v}", ghp())
    B("revoked_key", "Old Slack bot token {v} — REVOKED, replaced by the one in Vault", xoxb())
    B("revoked_key", "Clé Frame.io {v} révoquée (fuite dans un ticket), ne plus utiliser", fio())
    B("revoked_key", "ये AWS key {v} disable कर दी गई है (revoked)", akid())

    def mac() -> str:
        return ":".join(hexs(2) for _ in range(6))

    B("mac_address", "DHCP reservation for rndr-node-117: {v}", mac())
    B("mac_address", "Adresse MAC de la station Flame 2 : {v}", mac().upper().replace(":", "-"))
    B("mac_address", "wake-on-lan {v} (render blade rack C)", mac())

    B(
        "hardware_serial",
        "Isilon node serial {v}, support contract renews in March",
        "SX410-" + rs(UPPER + DIGITS, 10),
    )
    B("hardware_serial", "Dell service tag of rndr-node-117: {v}", rs(UPPER + DIGITS, 7))
    B(
        "hardware_serial",
        "Numéro de série du moniteur de référence Sony BVM : {v}",
        str(rng.randint(7000000, 7999999)),
    )
    B("hardware_serial", "LTO-9 drive serial {v} — RMA raised", "10WT" + rs(DIGITS, 6))

    B("flexlm_hostid", "Autodesk network licence needs HOSTID {v} of lic01", hexs(12))
    B("flexlm_hostid", 'lmutil lmhostid → The FlexNet host ID of this machine is "{v}"', hexs(12))
    B("flexlm_hostid", "HostID RLM du serveur de licences Foundry : {v}", hexs(12))
    B(
        "flexlm_hostid",
        "SideFX licence server ka server code: {v}",
        rs(HEX, 8).upper() + "." + rs(HEX, 8).upper(),
    )

    B("docker_image_digest", "image: ghcr.io/lumenvfx/nuke-render@{v}", "sha256:" + hexs(64))
    B("docker_image_digest", "Digest de l'image OpenCue : {v}", "sha256:" + hexs(64))
    B("docker_image_digest", "Pinned the husk worker image to {v}", "sha256:" + hexs(64))

    B(
        "software_version",
        "Farm is on Houdini {v} until the show wraps",
        f"20.5.{rng.randint(300, 500)}",
    )
    B("software_version", "Nuke {v} fixes the Cryptomatte bug", f"15.1v{rng.randint(1, 6)}")
    B(
        "software_version",
        "Version de Deadline déployée : {v}",
        f"10.3.{rng.randint(0, 3)}.{rng.randint(1, 15)}",
    )
    B(
        "software_version",
        "DaVinci Resolve Studio {v} सभी grading suites पर",
        f"19.1.{rng.randint(0, 4)}",
    )

    B("ticket_id", "See {v} for the Isilon quota incident", f"PIPE-{rng.randint(1000, 9999)}")
    B("ticket_id", "Ticket support Foundry : {v}", f"CS{rng.randint(1000000, 9999999)}")
    B(
        "ticket_id",
        "Autodesk case {v} opened for the floating licence issue",
        str(rng.randint(10000000, 99999999)),
    )
    B("ticket_id", "जिरा टिकट {v} में सारी details हैं", f"RNDR-{rng.randint(100, 999)}")

    B(
        "booking_reference",
        "Screening room booked for the client review, ref {v}",
        f"SCR-{rng.randint(2026, 2026)}-{rng.randint(1000, 9999)}",
    )
    B("booking_reference", "Réservation de la salle de mixage : {v}", rs(UPPER, 2) + rs(DIGITS, 6))
    B("booking_reference", "Flight for the on-set sup to Jaipur, PNR {v}", rs(UPPER + DIGITS, 6))
    B(
        "booking_reference",
        "Hotel confirmation {v} for the Delhi shoot crew",
        str(rng.randint(100000000, 999999999)),
    )

    B(
        "iban",
        "Paiement du freelance roto sur l'IBAN {v}",
        f"FR76 {rs(DIGITS, 4)} {rs(DIGITS, 4)} {rs(DIGITS, 4)} {rs(DIGITS, 4)} {rs(DIGITS, 4)} {rs(DIGITS, 3)}",
    )
    B(
        "iban",
        "Vendor bank details (Plate scanning lab): IBAN {v}",
        f"GB{rs(DIGITS, 2)}BARC{rs(DIGITS, 14)}",
    )
    B("iban", "Mumbai vendor: A/C {v}, IFSC HDFC0001234", rs(DIGITS, 14))

    B(
        "tax_id",
        "GSTIN of the Mumbai entity: {v}",
        f"27{rs(UPPER, 5)}{rs(DIGITS, 4)}{rng.choice(UPPER)}1Z{rng.choice(UPPER + DIGITS)}",
    )
    B(
        "tax_id",
        "SIRET de Studio Canopée : {v}",
        f"{rs(DIGITS, 3)} {rs(DIGITS, 3)} {rs(DIGITS, 3)} {rs(DIGITS, 5)}",
    )
    B(
        "tax_id",
        "PAN for TDS on the invoice: {v}",
        f"{rs(UPPER, 5)}{rs(DIGITS, 4)}{rng.choice(UPPER)}",
    )
    B("tax_id", "N° TVA intracommunautaire : {v}", f"FR{rs(DIGITS, 11)}")

    B("twilio_account_sid", "Twilio account SID (not secret): {v}", "AC" + hexs(32))
    B("twilio_account_sid", "SID du compte Twilio des alertes : {v}", "AC" + hexs(32))
    B("twilio_account_sid", "messaging_service_sid: {v}", "MG" + hexs(32))

    B("slack_channel_id", "#render-farm channel id is {v}", "C0" + rs(UPPER + DIGITS, 9))
    B("slack_channel_id", "Identifiant Slack de Camille : {v}", "U0" + rs(UPPER + DIGITS, 9))
    B("slack_channel_id", "slack team id {v}", "T0" + rs(UPPER + DIGITS, 8))

    B(
        "aws_arn",
        "Render burst role: {v}",
        f"arn:aws:iam::{rs(DIGITS, 12)}:role/DeadlineSpotFleetRole",
    )
    B("aws_arn", "Bucket ARN pour les plates : {v}", "arn:aws:s3:::lumen-plates-ingest")
    B(
        "aws_arn",
        "SNS topic for farm alerts {v}",
        f"arn:aws:sns:eu-west-3:{rs(DIGITS, 12)}:farm-alerts",
    )

    B("azure_tenant_id", "Azure AD tenant id: {v}", uuid())
    B("azure_tenant_id", 'subscription_id = "{v}"', uuid())
    B("azure_tenant_id", "ID d'application (client) de l'app SSO du portail : {v}", uuid())

    B(
        "gcp_service_account_email",
        "Grant storage.objectViewer to {v}",
        "deadline-burst@lumen-render-burst.iam.gserviceaccount.com",
    )
    B(
        "gcp_service_account_email",
        "Compte de service : {v}",
        "frameio-sync@lumen-review.iam.gserviceaccount.com",
    )
    B(
        "gcp_service_account_email",
        "client_email: {v}",
        "sheets-bidder@lumen-prod-ops.iam.gserviceaccount.com",
    )

    B(
        "oauth_client_id",
        "Google OAuth client id for the portal SSO: {v}",
        f"{rs(DIGITS, 12)}-{rs(LOWER + DIGITS, 32)}.apps.googleusercontent.com",
    )
    B("oauth_client_id", "FRAMEIO_CLIENT_ID={v}", uuid().replace("-", ""))
    B("oauth_client_id", "ID client OAuth (Dropbox) : {v}", rs(LOWER + DIGITS, 15))

    B(
        "razorpay_key_id",
        "Razorpay key id for checkout.js (public): {v}",
        "rzp_live_" + rs(ALNUM, 14),
    )
    B("razorpay_key_id", "रेज़रपे key_id (frontend में जाता है): {v}", "rzp_live_" + rs(ALNUM, 14))
    B("razorpay_key_id", 'options = { key: "{v}", amount: 499900 }', "rzp_live_" + rs(ALNUM, 14))

    B(
        "password_policy",
        "Policy: {v}",
        "render node BMC passwords must be at least 16 characters and unique per chassis",
    )
    B(
        "password_policy",
        "{v}",
        "Règle : les mots de passe des partages clients expirent après 14 jours et ne sont jamais envoyés dans le même mail que le lien.",
    )
    B(
        "password_policy",
        "Reminder for agents: {v}",
        "never store credentials in these notes — write the Vault path instead",
    )
    B("password_policy", "{v}", "पासवर्ड कम से कम 14 अक्षर का होना चाहिए और हर 90 दिन में बदलना है")

    def bcrypt() -> str:
        return "$2b$12$" + rs(ALNUM + "./", 53)

    B("bcrypt_hash", "htpasswd entry for the review site (hash only): review:{v}", bcrypt())
    B("bcrypt_hash", "password_hash en base pour l'utilisateur client_fr : {v}", bcrypt())
    B("bcrypt_hash", 'users.yml → hashed_password: "{v}"', bcrypt())

    B(
        "jwt_documented_example",
        "jwt.io sample token used in the portal unit tests: {v}",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )
    B(
        "jwt_documented_example",
        "Exemple de la doc (jeton factice) : {v}",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )

    B(
        "file_path_pattern",
        "Write node output: {v}",
        "/mnt/projects/NTFX_2741/shots/SEQ020/SH0110/comp/render/v014/SH0110_comp_v014.%04d.exr",
    )
    B(
        "file_path_pattern",
        "Chemin des rushes : {v}",
        "\\\\isi-prod\\projets\\RB42\\rushes\\J03\\A003C012_240611_R1AB.mov",
    )
    B(
        "file_path_pattern",
        "usd layer {v}",
        "/show/dune/assets/chr/sandworm/publish/usd/sandworm_model_v021.usdc",
    )
    B("file_path_pattern", "proxy yahan milenge: {v}", "/mnt/edit/DLH/proxies/reel_04/####.dpx")

    B(
        "timecode",
        "Client note at {v}: remove boom mic in the top left",
        f"01:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 23):02d}",
    )
    B(
        "timecode",
        "Entrée du plan : {v}",
        f"10:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 23):02d}",
    )
    B(
        "timecode",
        "EDL: 001  A003C012 V  C  {v}",
        f"14:22:{rng.randint(10, 59)}:{rng.randint(0, 23):02d} 14:22:{rng.randint(10, 59)}:{rng.randint(0, 23):02d}",
    )

    B(
        "cert_fingerprint",
        "SHA1 fingerprint of the review server cert: {v}",
        ":".join(hexs(2).upper() for _ in range(20)),
    )
    B(
        "cert_fingerprint",
        "Empreinte SHA-256 du certificat du portail : {v}",
        ":".join(hexs(2).upper() for _ in range(32)),
    )
    B(
        "cert_fingerprint",
        "ssh host key fingerprint of sftp.delivery: {v}",
        "SHA256:" + b64bytes(32).rstrip("="),
    )

    B(
        "gpg_fingerprint",
        "Delivery manifests are signed with key {v}",
        " ".join(hexs(4).upper() for _ in range(10)),
    )
    B("gpg_fingerprint", "Empreinte de la clé GPG publique du distributeur : {v}", hexs(40).upper())
    B("gpg_fingerprint", "gpg --recv-keys {v}", hexs(16).upper())

    B("lun_wwn", "Flame SAN LUN: {v}", "naa.600" + hexs(29))
    B("lun_wwn", "WWN du port FC du serveur de montage : {v}", ":".join(hexs(2) for _ in range(8)))
    B("lun_wwn", "Volume UUID of /mnt/cache on rndr-node-042: {v}", uuid())

    B(
        "eidr_id",
        "EIDR for the feature: {v}",
        f"10.5240/{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{rng.choice(UPPER)}",
    )
    B(
        "eidr_id",
        "Identifiant EIDR de l'épisode 3 : {v}",
        f"10.5240/{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{rng.choice(UPPER)}",
    )
    B(
        "eidr_id",
        "Netflix metadata sheet asks for EIDR {v}",
        f"10.5240/{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{hexs(4).upper()}-{rng.choice(UPPER)}",
    )

    B("imf_cpl_uuid", "IMF CPL Id: {v}", "urn:uuid:" + uuid())
    B("imf_cpl_uuid", "<Id>{v}</Id>", "urn:uuid:" + uuid())
    B("imf_cpl_uuid", "CPL du DCP VF : {v}", "urn:uuid:" + uuid())

    B("aspera_transfer_id", "Aspera transfer {v} completed, 2.4 TB in 3h12", uuid())
    B("aspera_transfer_id", "Faspex package id {v} reçu du labo", str(rng.randint(10000, 99999)))
    B("aspera_transfer_id", "Signiant job id {v} stuck at 98%", rs(DIGITS, 9))

    B("frameio_asset_id", "Frame.io asset {v} = director's cut v3", uuid())
    B("frameio_asset_id", "https://app.frame.io/reviews/{v}", uuid())
    B("frameio_asset_id", "ID du projet Frame.io : {v}", uuid())

    B(
        "yubikey_serial",
        "YubiKey serial {v} assigned to the systems on-call",
        str(rng.randint(10000000, 29999999)),
    )
    B(
        "yubikey_serial",
        "Numéro de série de la clé YubiKey de Léa : {v}",
        str(rng.randint(10000000, 29999999)),
    )
    B("yubikey_serial", "yubikey {v} lost — disabled in Okta", str(rng.randint(10000000, 29999999)))

    B(
        "slack_webhook_example",
        "Format (from Slack docs): {v}",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    )
    B(
        "slack_webhook_example",
        "SLACK_WEBHOOK_URL={v}",
        "https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/your-webhook-secret",
    )
    B(
        "slack_webhook_example",
        "Exemple de webhook Discord pour la doc : {v}",
        "https://discord.com/api/webhooks/<id>/<token>",
    )

    B(
        "empty_password",
        "password: {v}   # left empty on purpose, filled by the agent at runtime",
        '""',
    )
    B("empty_password", "DB_PASSWORD={v}", "''")
    B("empty_password", "mot de passe : {v} (compte désactivé)", "<vide>")

    B(
        "sri_integrity",
        '<script src="/player.js" integrity="{v}" crossorigin="anonymous"></script>',
        "sha384-" + b64bytes(48),
    )
    B("sri_integrity", '"integrity": "{v}"', "sha512-" + b64bytes(64))
    B("sri_integrity", "hls.js pinned with {v}", "sha384-" + b64bytes(48))

    B(
        "ip_address",
        "Licence server lic01 is {v}",
        f"10.20.{rng.randint(1, 9)}.{rng.randint(2, 250)}",
    )
    B(
        "ip_address",
        "Adresse du Qumulo (VIP) : {v}",
        f"172.16.{rng.randint(0, 31)}.{rng.randint(2, 250)}",
    )
    B("ip_address", "rndr-node-117 iDRAC at {v}", f"10.40.1.{rng.randint(2, 250)}")
    B("ip_address", "क्लाइंट का Aspera endpoint {v} port 33001", f"203.0.113.{rng.randint(2, 250)}")

    B(
        "watermark_session_id",
        "Forensic watermark session {v} on the screener sent to the distributor",
        rs(UPPER + DIGITS, 12),
    )
    B("watermark_session_id", "ID de tatouage NexGuard : {v}", rs(HEX, 16).upper())
    B(
        "watermark_session_id",
        "screener watermark id {v} (Jaipur press copy)",
        f"WM-{rs(DIGITS, 8)}",
    )

    B(
        "invoice_number",
        "Invoice {v} for the roto outsourcing is approved",
        f"INV-2026-{rng.randint(1000, 9999)}",
    )
    B(
        "invoice_number",
        "Facture n° {v} (location des baies de stockage)",
        f"F{rng.randint(2026, 2026)}{rs(DIGITS, 5)}",
    )
    B("invoice_number", "PO {v} raised for the Nuke seats renewal", f"PO-{rs(DIGITS, 6)}")

    B("backblaze_key_id", "B2 keyID (public half): {v}", "005" + hexs(12) + "0000000003")
    B("backblaze_key_id", "Bucket id B2 des archives : {v}", rs(HEX, 24))
    B("backblaze_key_id", "account_id for b2: {v}", hexs(12))

    B("phone_number", "Isilon support hotline: {v}", f"+1 800 {rs(DIGITS, 3)} {rs(DIGITS, 4)}")
    B(
        "phone_number",
        "Astreinte stockage : {v}",
        f"+33 6 {rs(DIGITS, 2)} {rs(DIGITS, 2)} {rs(DIGITS, 2)} {rs(DIGITS, 2)}",
    )
    B(
        "phone_number",
        "render wrangler (night) ka number: {v}",
        f"+91 98{rs(DIGITS, 3)} {rs(DIGITS, 5)}",
    )

    B(
        "licence_feature_line",
        "{v}",
        f'INCREMENT nuke_i foundry 2026.1231 31-dec-2026 20 SIGN="{" ".join(hexs(4).upper() for _ in range(15))}"',
    )
    B(
        "licence_feature_line",
        "Ligne du fichier de licence : {v}",
        f'LICENSE foundry katana_i 2026.1231 31-dec-2026 10 share=h hostid={hexs(12)} _ck={hexs(10)} sig="{rs(UPPER + DIGITS, 40)}"',
    )
    B("licence_feature_line", "SERVER line: {v}", f"SERVER lic01 {hexs(12)} 27000")

    B("git_branch", "Hotfix lives on {v}", "hotfix/deadline-mongo-timeout")
    B("git_branch", "Branche : {v}", "feature/ftrack-frameio-sync")

    B("request_id", "Frame.io API 429, x-request-id {v}", uuid())
    B(
        "request_id",
        "2026-12-05T11:02:17Z ERROR ftrack event hub disconnected request={v}",
        hexs(32),
    )
    B("request_id", "ID de corrélation renvoyé par le portail : {v}", "req_" + rs(ALNUM, 24))

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

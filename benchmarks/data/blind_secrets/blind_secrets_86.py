# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 86: regional radio broadcaster and podcast network.

Brief: notes, handovers, chat lines, commands, config and .env fragments that a
regional radio broadcaster and podcast network (playout automation, streaming
encoders and Icecast/SRT, podcast hosting, ad servers, studio codecs,
transmitter site remote control, music licensing reports) and its AI coding
agents would keep as memory, in English, French and Swahili. Rows labelled
"secret" hold a live credential; rows labelled "benign" hold a look-alike that a
careful reader would store (ids, serials, hashes, public keys, placeholders,
masked or revoked values, the field's own identifiers).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_86.py [out.jsonl]

Kinds, secret: icecast_source_password, icecast_admin_password, srt_passphrase,
harbor_live_password, aws_secret_access_key, github_token, gitlab_token,
slack_bot_token, slack_webhook_url, discord_webhook_url, stripe_secret_key,
stripe_webhook_secret, twilio_auth_token, sendgrid_api_key, mailgun_api_key,
postgres_url, mysql_password, redis_url, mongodb_uri, ssh_private_key,
tls_private_key, gcp_service_account_key, openai_api_key, anthropic_api_key,
google_api_key, transmitter_remote_password, studio_codec_password,
playout_admin_password, podcast_hosting_api_key, ad_server_credential, wifi_psk,
site_access_code, phone_bridge_pin, recovery_codes, npm_token, docker_hub_token,
telegram_bot_token, jwt_secret, azure_storage_connection_string,
cloudflare_api_token, mpesa_daraja_secret, africastalking_api_key,
snmp_write_community, licensing_sftp_password, datadog_api_key,
spotify_client_secret, basic_auth_url, cdn_token_auth_key, rtmp_stream_key,
sip_password, facebook_page_token.

Kinds, benign: icecast_mount_point, srt_stream_id, aws_documented_example,
placeholder_password, env_var_reference, vault_path, masked_secret, revoked_key,
git_commit_sha, audio_file_sha256, container_image_digest, ssh_public_key,
x509_certificate, stripe_publishable_key, recaptcha_site_key, analytics_id,
podcast_guid, episode_guid, isrc_code, iswc_code, upc_barcode, rds_pi_code,
rds_ps_name, transmitter_serial, mac_address, internal_hostname, codec_device_id,
ticket_reference, invoice_number, broadcast_licence_number, ipi_number,
booking_reference, build_version, aws_account_id, aws_arn, slack_channel_id,
twilio_account_sid, stripe_object_id, vast_creative_id, rss_feed_url,
apple_podcast_id, spotify_show_id, youtube_channel_id, mpesa_paybill_number,
phone_number, request_id, jwks_key_id, pgp_fingerprint, tls_cert_fingerprint,
password_hash, package_integrity_hash, stripe_documented_test_key,
password_policy_text, cron_schedule, aoip_network_identifier, fcc_facility_id,
smpte_timecode, loudness_setting, public_stream_url, rtmp_ingest_url,
sip_extension, facebook_page_id.
"""

import json
import random
import sys

SEED = 8686
R = random.Random(SEED)

LOW = "abcdefghijklmnopqrstuvwxyz"
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIG = "0123456789"
HEX = "0123456789abcdef"
AN = LOW + UP + DIG
B64 = AN + "+/"
URLS = AN + "-_"


def g(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def hx(n):
    return g(HEX, n)


def uuid4():
    h = hx(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{R.choice('89ab')}{h[17:20]}-{h[20:32]}"


def pem_body(lines, first="MII"):
    out = [first + g(B64, 61)]
    for _ in range(lines - 1):
        out.append(g(B64, 64))
    out.append(g(B64, 40) + "==")
    return out


def openssh_key():
    body = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"]
    body += [g(B64, 70) for _ in range(3)]
    body.append(g(B64, 32) + "=")
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + "\n".join(body)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


def rsa_key(tag="RSA PRIVATE KEY"):
    return f"-----BEGIN {tag}-----\n" + "\n".join(pem_body(6)) + f"\n-----END {tag}-----"


def slack_hook():
    return f"https://hooks.slack.com/services/T{g(UP + DIG, 8)}/B{g(UP + DIG, 10)}/{g(AN, 24)}"


def discord_hook():
    return f"https://discord.com/api/webhooks/{R.randint(10**17, 10**18 - 1)}/{g(URLS, 68)}"


ROWS = []


def add(label, kind, items):
    for t, v in items:
        text = t.replace("{v}", v)
        assert v in text, (kind, t)
        ROWS.append({"label": label, "kind": kind, "text": text, "value": v})


def secrets():
    S = "secret"
    add(
        S,
        "icecast_source_password",
        [
            (
                "icecast.xml on stream01:\n<authentication>\n  <source-password>{v}</source-password>\n</authentication>",
                "Kib0-Mawimbi!88",
            ),
            (
                "BUTT in studio B -> server stream.radiopwani.co.ke port 8000, mount /live, password {v}. Juma knows, don't post it in #studio.",
                "pwani_src_2025",
            ),
            (
                'output.icecast(%mp3(bitrate=128), host="icecast.int", port=8000, password="{v}", mount="/littoral128.mp3", radio)',
                "OndesLittoral#77",
            ),
            (
                "Nouveau mot de passe source Icecast pour l'encodeur de Montpellier : {v} (changé le 3/11 après la fuite sur le forum)",
                "Mistral.Source.2026",
            ),
            ("ICECAST_SOURCE_PASSWORD={v}", g(AN, 18)),
        ],
    )
    add(
        S,
        "icecast_admin_password",
        [
            (
                "<admin-user>admin</admin-user>\n<admin-password>{v}</admin-password>",
                "Ic3Adm!n-Pwani",
            ),
            (
                "Icecast admin http://stream01:8000/admin/ -> admin / {v}. Use it to kick the looped relay on /kiss.aac.",
                "tower&coffee42",
            ),
            (
                "curl -u admin:{v} 'http://stream01.int:8000/admin/killsource?mount=/test.mp3'",
                "Relais-Sud-9x",
            ),
            (
                "Admin ya Icecast kwa stream ya Mombasa: mtumiaji admin, nenosiri {v}",
                "Mombasa@Stream24",
            ),
        ],
    )
    add(
        S,
        "srt_passphrase",
        [
            (
                "srt://ingest.radiolittoral.fr:9000?mode=caller&passphrase={v}&pbkeylen=32&latency=200",
                g(AN, 24),
            ),
            (
                "ffmpeg -re -i matinale.wav -c:a aac -b:a 192k -f mpegts 'srt://10.20.1.5:9710?pkt_size=1316&passphrase={v}'",
                g(AN, 16),
            ),
            (
                'srt-live-transmit STL config:\n  passphrase: "{v}"\n  pbkeylen: 16',
                "studio-to-tx-aigoual-42",
            ),
            (
                "Passphrase SRT du lien studio -> émetteur Mont-Aigoual : {v} (AES-256, ne pas la remettre dans le wiki)",
                "CigalesDuSoir_1988",
            ),
            (
                "Kiungo cha SRT kwenda Dodoma: passphrase ni {v}, usiibadilishe bila kuniambia.",
                g(AN, 20),
            ),
        ],
    )
    add(
        S,
        "harbor_live_password",
        [
            ('input.harbor("live", port=8005, password="{v}")', "dj-harbor-" + g(LOW + DIG, 8)),
            (
                "DJs streaming from home: host live.radiopwani.co.ke, port 8005, mount /live, password {v}",
                "Usiku#Mix2026",
            ),
            (
                "Pour les animateurs à distance (Mixxx > Live Broadcasting) : mot de passe harbor {v}",
                "SoireeElectro!5",
            ),
            ("HARBOR_LIVE_PASSWORD='{v}'", g(AN, 14)),
        ],
    )
    add(
        S,
        "aws_secret_access_key",
        [
            (
                "[podcast-archive]\naws_access_key_id = AKIA"
                + g(UP + DIG, 16)
                + "\naws_secret_access_key = {v}",
                g(B64, 40),
            ),
            ("AWS_SECRET_ACCESS_KEY={v}", g(B64, 40)),
            (
                '{"AccessKeyId": "AKIA'
                + g(UP + DIG, 16)
                + '", "SecretAccessKey": "{v}", "Status": "Active"}',
                g(B64, 40),
            ),
            (
                "La clé secrète du compte S3 des replays : {v} — à mettre dans le coffre, pas dans le script rclone.",
                g(B64, 40),
            ),
        ],
    )
    add(
        S,
        "github_token",
        [
            (
                "git remote set-url origin https://{v}@github.com/radio-littoral/playout-scripts.git",
                "ghp_" + g(AN, 36),
            ),
            ("GH_TOKEN={v} gh release create v2.3.1 --notes 'rds encoder fix'", "ghp_" + g(AN, 36)),
            (
                "Token CI pour le dépôt rds-encoder (fine-grained, expire en mars) : {v}",
                "github_pat_" + g(AN, 22) + "_" + g(AN, 59),
            ),
            (
                "export GITHUB_TOKEN={v}  # agent uses this to open PRs on liquidsoap-config",
                "ghp_" + g(AN, 36),
            ),
        ],
    )
    add(
        S,
        "gitlab_token",
        [
            ("PRIVATE-TOKEN: {v}", "glpat-" + g(URLS, 20)),
            (
                "git clone https://oauth2:{v}@gitlab.pwani-media.co.ke/ops/transmitter-monitoring.git",
                "glpat-" + g(URLS, 20),
            ),
            (
                "Runner registration pour la régie : gitlab-runner register --token {v}",
                "glrt-" + g(URLS, 20),
            ),
        ],
    )
    add(
        S,
        "slack_bot_token",
        [
            (
                "SLACK_BOT_TOKEN={v}",
                f"xoxb-{R.randint(10**11, 10**12 - 1)}-{R.randint(10**12, 10**13 - 1)}-{g(AN, 24)}",
            ),
            (
                "silence-detector bot: token {v}, posts to #on-air-alerts when dead air > 20s",
                f"xoxb-{R.randint(10**11, 10**12 - 1)}-{R.randint(10**12, 10**13 - 1)}-{g(AN, 24)}",
            ),
            (
                'slack:\n  token: "{v}"\n  channel: "#tx-alarms"',
                f"xoxb-{R.randint(10**11, 10**12 - 1)}-{R.randint(10**12, 10**13 - 1)}-{g(AN, 24)}",
            ),
            (
                "Token ya bot ya Slack (arifa za transmitter): {v}",
                f"xoxp-{R.randint(10**11, 10**12 - 1)}-{R.randint(10**11, 10**12 - 1)}-{R.randint(10**12, 10**13 - 1)}-{hx(32)}",
            ),
        ],
    )
    add(
        S,
        "slack_webhook_url",
        [
            ("ALERT_WEBHOOK={v}", slack_hook()),
            (
                "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Dead air on Pwani FM 98.4\"}' {v}",
                slack_hook(),
            ),
            ("Webhook Slack #regie-alertes pour le watchdog Icecast : {v}", slack_hook()),
            ('notify:\n  slack_url: "{v}"', slack_hook()),
        ],
    )
    add(
        S,
        "discord_webhook_url",
        [
            ("Podcast community Discord, new-episode announcer webhook: {v}", discord_hook()),
            ("DISCORD_WEBHOOK_URL={v}", discord_hook()),
            ("Webhook ya Discord ya wasikilizaji: {v}", discord_hook()),
            ("Le bot de la chaîne #nouveaux-episodes poste via {v}", discord_hook()),
        ],
    )
    add(
        S,
        "stripe_secret_key",
        [
            ("STRIPE_SECRET_KEY={v}", "sk_live_51" + g(AN, 96)),
            ("Clé Stripe live pour les dons des auditeurs : {v}", "sk_live_" + g(AN, 24)),
            (
                'stripe.api_key = "{v}"  # membership checkout on the podcast site',
                "sk_live_51" + g(AN, 96),
            ),
            ("restricted key for the merch shop report script: {v}", "rk_live_51" + g(AN, 96)),
        ],
    )
    add(
        S,
        "stripe_webhook_secret",
        [
            ("STRIPE_WEBHOOK_SECRET={v}", "whsec_" + g(AN, 32)),
            (
                "Signing secret of the /webhooks/stripe endpoint (premium feed subscriptions): {v}",
                "whsec_" + g(AN, 32),
            ),
            ('stripe:\n  endpoint_secret: "{v}"', "whsec_" + g(AN, 32)),
        ],
    )
    add(
        S,
        "twilio_auth_token",
        [
            ("TWILIO_ACCOUNT_SID=AC" + hx(32) + "\nTWILIO_AUTH_TOKEN={v}", hx(32)),
            ("Le jeu SMS du matin passe par Twilio, auth token {v}", hx(32)),
            ("twilio api:core:messages:list --auth-token {v}", hx(32)),
            ("Call-in line IVR (Twilio): sid AC" + hx(32) + ", token {v}", hx(32)),
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        [
            ("SENDGRID_API_KEY={v}", "SG." + g(URLS, 22) + "." + g(URLS, 43)),
            (
                "newsletter podcasts: Authorization: Bearer {v}",
                "SG." + g(URLS, 22) + "." + g(URLS, 43),
            ),
            ("Clé SendGrid des alertes de la régie : {v}", "SG." + g(URLS, 22) + "." + g(URLS, 43)),
            (
                'smtp: {host: smtp.sendgrid.net, user: apikey, pass: "{v}"}',
                "SG." + g(URLS, 22) + "." + g(URLS, 43),
            ),
        ],
    )
    add(
        S,
        "mailgun_api_key",
        [
            (
                "curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.radiolittoral.fr/messages",
                "key-" + hx(32),
            ),
            ("MAILGUN_API_KEY={v}", hx(32) + "-" + hx(8) + "-" + hx(8)),
            ("Ufunguo wa Mailgun kwa barua za wasikilizaji: {v}", "key-" + hx(32)),
        ],
    )
    add(
        S,
        "postgres_url",
        [
            ("DATABASE_URL=postgres://adserver:{v}@db01.int:5432/ads", "Tr1ton-ads-" + g(AN, 8)),
            (
                "psql 'postgresql://podcast_app:{v}@pg.podcasts.internal/podcasts?sslmode=require'",
                g(AN, 20),
            ),
            (
                "La base des rapports SACEM : postgresql://rapports:{v}@10.0.4.12/licences",
                "Sacem2026!Rapports",
            ),
            (
                "sqlalchemy.url = postgresql+psycopg2://logger:{v}@compliance-db:5432/airchecks",
                "aircheck-" + g(LOW + DIG, 10),
            ),
        ],
    )
    add(
        S,
        "mysql_password",
        [
            (
                "/etc/rd.conf\n[mySQL]\nHostname=rdmaster\nLoginname=rduser\nPassword={v}\nDatabase=Rivendell",
                "letmein-rd-" + g(DIG, 4),
            ),
            ("mysql -h playout-db -u mairlist -p'{v}' mairlist_db", "mAir!List2024"),
            ("MYSQL_ROOT_PASSWORD={v}", g(AN, 22)),
            ("Revive Adserver DB: mysql://revive:{v}@127.0.0.1/revive", "RevAds#" + g(AN, 9)),
        ],
    )
    add(
        S,
        "redis_url",
        [
            ("REDIS_URL=redis://:{v}@cache01.int:6379/2", g(AN, 32)),
            (
                "now-playing cache: rediss://default:{v}@redis-19287.c1.eu-west-1-2.ec2.cloud.redislabs.com:19287",
                g(AN, 32),
            ),
            ("requirepass {v}", "nowplaying-" + g(LOW + DIG, 12)),
        ],
    )
    add(
        S,
        "mongodb_uri",
        [
            ("MONGO_URI=mongodb+srv://stats:{v}@cluster0.x7kqp.mongodb.net/listeners", g(AN, 16)),
            (
                "Les stats d'écoute sont dans mongodb://ecoute:{v}@mongo1,mongo2/ecoute?replicaSet=rs0",
                "Audimat_" + g(DIG, 4) + "!",
            ),
            ('mongosh "mongodb+srv://admin:{v}@podcasts.ab1cd.mongodb.net"', g(AN, 18)),
        ],
    )
    add(
        S,
        "ssh_private_key",
        [
            ("Key for the rsync of loggers to the archive box (id_ed25519):\n{v}", openssh_key()),
            ("Clé de déploiement pour le serveur de streaming :\n{v}", openssh_key()),
            ("deploy_key: |\n  " + "{v}", openssh_key()),
        ],
    )
    add(
        S,
        "tls_private_key",
        [
            ("stream.radiopwani.co.ke.key:\n{v}", rsa_key()),
            (
                "icecast bundle: cert + key concatenated in /etc/icecast2/bundle.pem\n{v}",
                rsa_key("PRIVATE KEY"),
            ),
            (
                "Clé privée du certificat du site podcasts (à régénérer, elle est partie par mail) :\n{v}",
                rsa_key("EC PRIVATE KEY"),
            ),
        ],
    )
    gcp_key = (
        "-----BEGIN PRIVATE KEY-----\\n"
        + "\\n".join(pem_body(5, "MIIEv"))
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    add(
        S,
        "gcp_service_account_key",
        [
            (
                '{"type": "service_account", "project_id": "pwani-podcasts", "private_key_id": "'
                + hx(40)
                + '", "private_key": "{v}", "client_email": "transcriber@pwani-podcasts.iam.gserviceaccount.com"}',
                gcp_key,
            ),
            (
                "transcription worker env (Cloud Speech, swahili model): GCP_SA_PRIVATE_KEY='{v}'",
                "-----BEGIN PRIVATE KEY-----\\n"
                + "\\n".join(pem_body(4, "MIIEv"))
                + "\\n-----END PRIVATE KEY-----\\n",
            ),
            (
                'GOOGLE_PRIVATE_KEY="{v}"',
                "-----BEGIN PRIVATE KEY-----\\n"
                + "\\n".join(pem_body(4, "MIIEv"))
                + "\\n-----END PRIVATE KEY-----\\n",
            ),
        ],
    )
    add(
        S,
        "openai_api_key",
        [
            ("OPENAI_API_KEY={v}", "sk-proj-" + g(URLS, 74) + "T3BlbkFJ" + g(URLS, 74)),
            (
                "transcription des chroniques via Whisper, clé : {v}",
                "sk-proj-" + g(URLS, 48) + "T3BlbkFJ" + g(URLS, 48),
            ),
            (
                "agent memory: show-notes generator uses key {v} (billing on the news dept card)",
                "sk-" + g(AN, 20) + "T3BlbkFJ" + g(AN, 20),
            ),
        ],
    )
    add(
        S,
        "anthropic_api_key",
        [
            ("ANTHROPIC_API_KEY={v}", "sk-ant-api03-" + g(URLS, 93) + "AA"),
            (
                "Ufunguo wa API wa Claude kwa muhtasari wa habari: {v}",
                "sk-ant-api03-" + g(URLS, 93) + "AA",
            ),
            (
                'headers = {"x-api-key": "{v}", "anthropic-version": "2023-06-01"}',
                "sk-ant-api03-" + g(URLS, 93) + "AA",
            ),
        ],
    )
    add(
        S,
        "google_api_key",
        [
            (
                "YOUTUBE_API_KEY={v}  # server-side, unrestricted, for the clip uploader",
                "AIza" + g(URLS, 35),
            ),
            ("Clé Google Speech-to-Text (non restreinte) : {v}", "AIza" + g(URLS, 35)),
            (
                "https://www.googleapis.com/youtube/v3/search?part=snippet&channelId=UC"
                + g(URLS, 22)
                + "&key={v}",
                "AIza" + g(URLS, 35),
            ),
        ],
    )
    add(
        S,
        "transmitter_remote_password",
        [
            (
                "Nautel GV40 at the Ngong site: web UI http://10.40.0.20, user admin, pass {v}",
                "Ngong#Tx40kW",
            ),
            ("Burk ARC Plus Touch (site Mont-Aigoual) : login technicien / {v}", "Aigoual1567m!"),
            (
                "Nenosiri la remote ya transmitter ya Mlima Kilimanjaro ni {v} — usimpe mtu yeyote.",
                "Kili_Tx_5895",
            ),
            (
                "AutoPilot connection profile: host 10.40.0.21:5000, user ops, password {v}",
                "burk-ops-" + g(DIG, 4),
            ),
            (
                "Davicom MAC (site de Sète) : code d'accès DTMF {v} pour couper l'émetteur à distance",
                g(DIG, 6),
            ),
        ],
    )
    add(
        S,
        "studio_codec_password",
        [
            ("Comrex ACCESS NX (sports car kit) web login: admin / {v}", "goal2026!"),
            (
                "Tieline ViA du reporter : admin / {v} — à remettre après le Tour de France",
                "ViaTour" + g(DIG, 3),
            ),
            ("Codec ya studio ya Arusha (Tieline Merlin): admin, nenosiri {v}", "Merlin@Arusha1"),
            ("Telos Z/IP ONE studio 3 settings password: {v}", "zip1-" + g(LOW + DIG, 6)),
        ],
    )
    add(
        S,
        "playout_admin_password",
        [
            ("mAirList remote control (REST on :9300) password: {v}", "mairlist-" + g(AN, 10)),
            ("Zetta SQL 'sa' password on ZETTA-DB01: {v}", "Z3tta!Sql#" + g(DIG, 3)),
            ("Mot de passe admin GSelector (programmation musicale) : {v}", "Playlist2026@Nord"),
            ("ENCO DAD user 'prod' password is {v} (don't give it to the interns)", "dadprod99"),
            ("Rivendell user 'admin' kwa RDAdmin: nenosiri {v}", "Rdadmin-Pwani7"),
        ],
    )
    add(
        S,
        "podcast_hosting_api_key",
        [
            (
                "curl -H 'x-api-key: {v}' https://api.transistor.fm/v1/episodes?show_id=48211",
                g(AN, 22),
            ),
            ("Buzzsprout API: Authorization: Token token={v}", hx(32)),
            ("PODBEAN_CLIENT_SECRET={v}", g(AN, 20)),
            ("Clé API Ausha pour l'export RSS automatique : {v}", g(AN, 40)),
        ],
    )
    add(
        S,
        "ad_server_credential",
        [
            ("Revive Adserver admin: adops / {v}", "AdOps!Pwani22"),
            ("TRITON_TAP_API_SECRET={v}", g(AN, 40)),
            (
                "AdsWizz Studio API client secret (insertion dynamique dans les podcasts) : {v}",
                g(URLS, 48),
            ),
            ("Audience reporting (ad server) service account: api-reporter / {v}", g(AN, 16)),
        ],
    )
    add(
        S,
        "wifi_psk",
        [
            ("Wi-Fi studio : SSID LittoralFM-Regie, clé WPA2 {v}", "ondes-courtes-1988"),
            ("Wifi ya wageni: KissPwani-Guest, nenosiri {v}", "karibu2026"),
            (
                "hostapd.conf on the OB van router:\nssid=OBVAN-01\nwpa_passphrase={v}",
                "Outside!Broadcast4G",
            ),
        ],
    )
    add(
        S,
        "site_access_code",
        [
            (
                "Code du portail du site émetteur de Sète : {v}# puis la clé dans la boîte à clés (code 4471)",
                "2718",
            ),
            (
                "Transmitter hut alarm disarm code is {v}, you have 30 seconds after the door opens.",
                "80653",
            ),
            ("Namba ya siri ya mlango wa studio B: {v}", "1984*"),
            ("Key safe at the Ngong mast gate: {v}", "0417"),
        ],
    )
    add(
        S,
        "phone_bridge_pin",
        [
            ("Morning show phone bridge: dial +254 20 7601 300, then PIN {v}#", "448120"),
            (
                "Pont téléphonique pour les invités de la matinale : code participant {v}",
                "73 91 55",
            ),
            ("Telos VX voicemail for the call-in line, PIN {v}", "2580"),
        ],
    )
    codes = " ".join(f"{g(LOW + DIG, 5)}-{g(LOW + DIG, 5)}" for _ in range(8))
    codes2 = "\n".join(g(DIG, 8) for _ in range(6))
    add(
        S,
        "recovery_codes",
        [
            ("GitHub recovery codes for the radio-ops account: {v}", codes),
            ("Codes de secours Google du compte podcasts@ :\n{v}", codes2),
            (
                "Backup codes za akaunti ya Spotify for Podcasters: {v}",
                " ".join(g(UP + DIG, 10) for _ in range(5)),
            ),
        ],
    )
    add(
        S,
        "npm_token",
        [
            ("//registry.npmjs.org/:_authToken={v}", "npm_" + g(AN, 36)),
            ("NPM_TOKEN={v} npm publish  # @radiopwani/player widget", "npm_" + g(AN, 36)),
            ("Jeton npm pour publier le lecteur web : {v}", "npm_" + g(AN, 36)),
        ],
    )
    add(
        S,
        "docker_hub_token",
        [
            ("echo {v} | docker login -u pwanimedia --password-stdin", "dckr_pat_" + g(URLS, 27)),
            ("DOCKERHUB_TOKEN={v}", "dckr_pat_" + g(URLS, 27)),
            ("Token Docker Hub pour pousser l'image liquidsoap : {v}", "dckr_pat_" + g(URLS, 27)),
        ],
    )
    add(
        S,
        "telegram_bot_token",
        [
            ("TELEGRAM_BOT_TOKEN={v}", f"{R.randint(10**9, 7 * 10**9)}:AA{g(URLS, 33)}"),
            (
                "Bot ya Telegram ya kutuma ombi la nyimbo: {v}",
                f"{R.randint(10**9, 7 * 10**9)}:AA{g(URLS, 33)}",
            ),
            (
                "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001234567890 -d text='TX Ngong: VSWR alarm'",
                f"{R.randint(10**9, 7 * 10**9)}:AA{g(URLS, 33)}",
            ),
        ],
    )
    add(
        S,
        "jwt_secret",
        [
            ("JWT_SECRET={v}", hx(64)),
            ("podcast premium feeds sign tokens with HS256, secret: {v}", g(AN, 48)),
            ("SECRET_KEY_BASE={v}", hx(128)),
            ("Secret de signature des jetons de l'appli mobile : {v}", g(B64, 43) + "="),
        ],
    )
    add(
        S,
        "azure_storage_connection_string",
        [
            (
                "AZURE_STORAGE_CONNECTION_STRING={v}",
                "DefaultEndpointsProtocol=https;AccountName=pwaniarchive;AccountKey="
                + g(B64, 86)
                + "==;EndpointSuffix=core.windows.net",
            ),
            (
                "Chaîne de connexion du stockage des podcasts : {v}",
                "DefaultEndpointsProtocol=https;AccountName=littoralpodcasts;AccountKey="
                + g(B64, 86)
                + "==;EndpointSuffix=core.windows.net",
            ),
            (
                '"storage": {"conn": "{v}"}',
                "BlobEndpoint=https://pwanilogs.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig="
                + g(AN, 43)
                + "%3D",
            ),
        ],
    )
    add(
        S,
        "cloudflare_api_token",
        [
            ("CLOUDFLARE_API_TOKEN={v}", g(URLS, 40)),
            ("cf token (DNS edit on radiolittoral.fr, used by certbot): {v}", g(URLS, 40)),
            (
                "curl -H 'Authorization: Bearer {v}' https://api.cloudflare.com/client/v4/zones",
                g(URLS, 40),
            ),
        ],
    )
    add(
        S,
        "mpesa_daraja_secret",
        [
            ("MPESA_CONSUMER_SECRET={v}", g(AN, 64)),
            ("Daraja Lipa na M-Pesa passkey (till ya michango ya wasikilizaji): {v}", hx(64)),
            ("mpesa:\n  consumer_key: " + g(AN, 48) + "\n  consumer_secret: {v}", g(AN, 64)),
            ("Ufunguo wa siri wa Daraja (production) ni {v}", g(AN, 64)),
        ],
    )
    add(
        S,
        "africastalking_api_key",
        [
            ("AT_API_KEY={v}\nAT_USERNAME=pwanifm", "atsk_" + hx(64)),
            (
                "SMS za shindano la asubuhi zinatumwa kupitia Africa's Talking, apiKey: {v}",
                "atsk_" + hx(64),
            ),
            (
                "curl -H 'apiKey: {v}' -d username=pwanifm https://api.africastalking.com/version1/messaging",
                "atsk_" + hx(64),
            ),
        ],
    )
    add(
        S,
        "snmp_write_community",
        [
            (
                "snmpset -v2c -c {v} 10.40.0.20 1.3.6.1.4.1.28142.1.300.256.2.0 i 0",
                "Tx-rw-" + g(LOW + DIG, 6),
            ),
            (
                "Communauté SNMP en écriture de l'émetteur de Sète : {v} (lecture : public)",
                "ecriture" + g(DIG, 4),
            ),
            ("zabbix template TX: {$SNMP_RW_COMMUNITY} = {v}", "ngongRW" + g(DIG, 3)),
        ],
    )
    add(
        S,
        "licensing_sftp_password",
        [
            (
                "Monthly SACEM playlist upload: sftp declarations@sftp.sacem.fr, password {v}",
                "Decl-" + g(AN, 10),
            ),
            ("Ripoti za COSOTA kila robo: sftp user pwanifm, nenosiri {v}", "Cosota!" + g(DIG, 4)),
            ("lftp -u littoral,{v} sftp://uploads.sdrm.fr/rapports/", g(AN, 14)),
            ("MCSK returns portal login: returns@pwani-media.co.ke / {v}", "Mcsk2026#Ret"),
        ],
    )
    add(
        S,
        "datadog_api_key",
        [
            ("DD_API_KEY={v}", hx(32)),
            ("datadog-agent on stream01: api_key: {v}", hx(32)),
            ("Clé Datadog pour les métriques des encodeurs : {v}", hx(32)),
        ],
    )
    add(
        S,
        "spotify_client_secret",
        [
            ("SPOTIFY_CLIENT_ID=" + hx(32) + "\nSPOTIFY_CLIENT_SECRET={v}", hx(32)),
            ("Client secret Spotify (API pour les fiches des morceaux) : {v}", hx(32)),
            (
                "curl -X POST -u "
                + hx(32)
                + ":{v} -d grant_type=client_credentials https://accounts.spotify.com/api/token",
                hx(32),
            ),
        ],
    )
    add(
        S,
        "basic_auth_url",
        [
            (
                "Aircheck logger: https://compliance:{v}@logger.radiolittoral.fr/archives/2026-11-30/",
                "Logg3r!" + g(DIG, 3),
            ),
            (
                "Relay pull: <relay><server>master.int</server><mount>/pwani.aac</mount><username>relay</username><password>{v}</password></relay>",
                "relay-" + g(LOW + DIG, 8),
            ),
            (
                "wget 'http://admin:{v}@10.40.0.30/cgi-bin/status.xml' (Inovonics 551 monitor)",
                "inov551!",
            ),
        ],
    )
    add(
        S,
        "cdn_token_auth_key",
        [
            ("BunnyCDN token authentication key for the premium podcast zone: {v}", uuid4()),
            ("CDN_SIGNING_KEY={v}", hx(64)),
            ("Clé de signature des URLs HLS (secure token) : {v}", g(AN, 32)),
        ],
    )
    add(
        S,
        "rtmp_stream_key",
        [
            (
                "Morning show video simulcast: rtmp://a.rtmp.youtube.com/live2 key {v}",
                "-".join(g(LOW + DIG, 4) for _ in range(5)),
            ),
            (
                "Clé de diffusion Facebook Live pour la matinale filmée : {v}",
                "FB-" + g(DIG, 16) + "-0-" + g(URLS, 32),
            ),
            (
                "OBS stream key ya YouTube kwa kipindi cha jioni: {v}",
                "-".join(g(LOW + DIG, 4) for _ in range(5)),
            ),
        ],
    )
    add(
        S,
        "sip_password",
        [
            ("Telos VX SIP trunk (call-in lines): user 254412220100, secret {v}", "Vx" + g(AN, 14)),
            (
                "pjsip.conf\n[studio-hybrid]\ntype=auth\nauth_type=userpass\nusername=hybrid1\npassword={v}",
                g(AN, 16),
            ),
            ("Compte SIP du standard antenne : 4102 / {v}", "Antenne4102!"),
        ],
    )
    add(
        S,
        "facebook_page_token",
        [
            ("META_PAGE_ACCESS_TOKEN={v}", "EAAG" + g(AN, 180)),
            ("Page token used by the clip bot to post audiograms: {v}", "EAAB" + g(AN, 160)),
            (
                "Jeton de page Facebook (longue durée) pour publier les extraits : {v}",
                "EAAG" + g(AN, 170),
            ),
        ],
    )


def benigns():
    B = "benign"
    add(
        B,
        "icecast_mount_point",
        [
            (
                "Listener complaints on {v} — it's the 64k AAC+ for mobile, fallback to /pwani128.mp3.",
                "/pwani64.aac",
            ),
            (
                '<mount type="normal"><mount-name>{v}</mount-name><fallback-mount>/secours.mp3</fallback-mount></mount>',
                "/littoral-hd.aac",
            ),
            ("Mount mpya ya stream ya Kiswahili: {v}", "/bongo-live.mp3"),
        ],
    )
    add(
        B,
        "srt_stream_id",
        [
            (
                "srt://ingest.radiolittoral.fr:9000?streamid={v}&latency=200 (no encryption on the test link)",
                "#!::r=live/matinale,m=publish",
            ),
            ("SRT stream id for the Dodoma contribution: {v}", "dodoma-contrib-01"),
            ("streamid du lien de secours : {v}", "secours/regie-b"),
        ],
    )
    add(
        B,
        "aws_documented_example",
        [
            (
                "The README of the uploader uses AWS's doc example: aws_access_key_id = {v}",
                "AKIAIOSFODNN7EXAMPLE",
            ),
            (
                "example only (from the AWS docs): AWS_SECRET_ACCESS_KEY={v}",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
            (
                "Dans la doc interne, la clé d'exemple {v} est celle de la doc AWS, pas la nôtre.",
                "AKIAI44QH8DHBEXAMPLE",
            ),
        ],
    )
    add(
        B,
        "placeholder_password",
        [
            (
                "<source-password>{v}</source-password>  # template, set per station by ansible",
                "CHANGE_ME",
            ),
            ("ICECAST_ADMIN_PASSWORD={v}", "<your-admin-password>"),
            ("Mot de passe par défaut à remplacer lors de l'installation : {v}", "changeme"),
            ('password: "{v}"  # filled in by the deploy job', "REPLACE_WITH_VAULT_VALUE"),
        ],
    )
    add(
        B,
        "env_var_reference",
        [
            (
                'output.icecast(..., password=getenv("{v}"), mount="/live")',
                "ICECAST_SOURCE_PASSWORD",
            ),
            ("DATABASE_URL=postgres://adserver:{v}@db01.int:5432/ads", "${ADSERVER_DB_PASSWORD}"),
            ("Le token Slack est lu depuis {v} au démarrage du bot.", "$SLACK_BOT_TOKEN"),
            ("stripe.api_key = {v}", 'os.environ["STRIPE_SECRET_KEY"]'),
        ],
    )
    add(
        B,
        "vault_path",
        [
            (
                "Icecast source password lives at {v} — never paste it here.",
                "secret/data/streaming/icecast/source",
            ),
            (
                "Nenosiri la transmitter liko kwenye vault: {v}",
                "kv/transmitters/ngong/nautel-admin",
            ),
            ("vault kv get -field=passphrase {v}", "secret/stl/srt-aigoual"),
            (
                "Les identifiants SACEM sont dans 1Password, coffre {v}",
                "op://Licences/SACEM SFTP/password",
            ),
        ],
    )
    add(
        B,
        "masked_secret",
        [
            (
                "Stripe key rotated, new one ends in …4f2a: {v}",
                "sk_live_****************************4f2a",
            ),
            ("Log: connecting to icecast with password={v}", "********"),
            ("Token ya Slack imefichwa kwenye log: {v}", "xoxb-****-****-REDACTED"),
            (
                "DATABASE_URL=postgres://adserver:{v}@db01.int:5432/ads (masked by the agent)",
                "[REDACTED]",
            ),
        ],
    )
    add(
        B,
        "revoked_key",
        [
            (
                "REVOKED 2026-10-14 after it leaked in the encoder screenshot: {v} — do not reuse.",
                "ghp_" + g(AN, 36),
            ),
            ("Ancienne clé Twilio, révoquée le 02/09, gardée pour l'audit : {v}", hx(32)),
            ("Old Daraja passkey (imefutwa / revoked by Safaricom): {v}", hx(64)),
        ],
    )
    add(
        B,
        "git_commit_sha",
        [
            ("liquidsoap config deployed at commit {v}", hx(40)),
            ("Correctif du crossfade : commit {v} sur main", hx(40)),
            ("rollback to {v} if the RDS text breaks again", hx(7)),
        ],
    )
    add(
        B,
        "audio_file_sha256",
        [
            ("sha256 of the ep142 master WAV: {v}", hx(64)),
            ("{v}  matinale_2026-11-30.mp3", hx(64)),
            ("Checksum ya faili la habari za saa mbili: {v}", hx(64)),
        ],
    )
    add(
        B,
        "container_image_digest",
        [
            ("image: savonet/liquidsoap@{v}", "sha256:" + hx(64)),
            ("icecast2 image pinned to {v}", "sha256:" + hx(64)),
            ("Image du transcodeur : ghcr.io/radio-littoral/transcoder@{v}", "sha256:" + hx(64)),
        ],
    )
    add(
        B,
        "ssh_public_key",
        [
            (
                "authorized_keys on the archive box:\n{v}",
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g(B64, 43) + " juma@studio-b",
            ),
            (
                "Clé publique de l'agent de déploiement : {v}",
                "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + g(B64, 43) + " deploy@ci",
            ),
            (
                "Add my key to the tx site jump host: {v}",
                "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + g(B64, 200) + " amina@laptop",
            ),
        ],
    )
    add(
        B,
        "x509_certificate",
        [
            (
                "Public cert for stream.radiopwani.co.ke (fine to share with the CDN):\n{v}",
                "-----BEGIN CERTIFICATE-----\n"
                + "\n".join(pem_body(5))
                + "\n-----END CERTIFICATE-----",
            ),
            (
                "Certificat de l'autorité interne, à importer sur les codecs :\n{v}",
                "-----BEGIN CERTIFICATE-----\n"
                + "\n".join(pem_body(4))
                + "\n-----END CERTIFICATE-----",
            ),
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        [
            ("STRIPE_PUBLISHABLE_KEY={v}", "pk_live_51" + g(AN, 96)),
            (
                "Clé publique Stripe pour le formulaire de dons (côté navigateur) : {v}",
                "pk_live_51" + g(AN, 96),
            ),
            ("<script>const stripe = Stripe('{v}');</script>", "pk_live_" + g(AN, 24)),
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        [
            ("reCAPTCHA site key on the song-request form: {v}", "6L" + g(URLS, 38)),
            ('<div class="g-recaptcha" data-sitekey="{v}"></div>', "6L" + g(URLS, 38)),
            ("Clé de site hCaptcha (publique) : {v}", uuid4()),
        ],
    )
    add(
        B,
        "analytics_id",
        [
            ("GA4 measurement id for the podcast site: {v}", "G-" + g(UP + DIG, 10)),
            ("GTM container : {v}", "GTM-" + g(UP + DIG, 7)),
            ("Meta pixel ya tovuti ya redio: {v}", g(DIG, 15)),
        ],
    )
    add(
        B,
        "podcast_guid",
        [
            ("<podcast:guid>{v}</podcast:guid>", uuid4()),
            ("Podcast Index GUID for 'Sauti za Pwani': {v}", uuid4()),
            ("GUID du podcast « Les Marées » (ne jamais changer) : {v}", uuid4()),
        ],
    )
    add(
        B,
        "episode_guid",
        [
            ('<guid isPermaLink="false">{v}</guid>', uuid4()),
            (
                "Episode 142 item guid: {v} — don't regenerate or apps will re-download.",
                "pwani-ep142-" + hx(8),
            ),
            ("GUID ya kipindi cha 12: {v}", "tag:radiopwani.co.ke,2026:ep12"),
        ],
    )
    add(
        B,
        "isrc_code",
        [
            ("Top track of the week ISRC {v}", "KE-A1B-26-00042"),
            ("ISRC du générique de la matinale : {v}", "FR" + g(UP + DIG, 3) + "2600" + g(DIG, 3)),
            (
                "isrc,title,artist,plays\n{v},Malaika,Fadhili William,14",
                "GB" + g(UP + DIG, 3) + "74" + g(DIG, 5),
            ),
        ],
    )
    add(
        B,
        "iswc_code",
        [
            ("ISWC for the jingle composition: {v}", "T-345.246.800-1"),
            ("Déclaration SACEM : œuvre {v}, durée 00:03:12", "T-912.004.557-3"),
            ("ISWC ya wimbo wa utangulizi: {v}", "T-070.118.223-6"),
        ],
    )
    add(
        B,
        "upc_barcode",
        [
            ("Album UPC {v} (for the licensing report)", "0" + g(DIG, 11)),
            ("EAN du CD promo : {v}", "3" + g(DIG, 12)),
            ("UPC ya albamu ya Zuchu kwenye ripoti ya COSOTA: {v}", "19" + g(DIG, 10)),
        ],
    )
    add(
        B,
        "rds_pi_code",
        [
            ("RDS PI code for 98.4 Mombasa: {v}", "C4A1"),
            ("Code PI RDS de Radio Littoral (Sète 101.2) : {v}", "F212"),
            ("PI ya RDS kwa Dodoma: {v}", "C4A7"),
        ],
    )
    add(
        B,
        "rds_ps_name",
        [
            ("PS name must be 8 chars: '{v}'", "PWANI FM"),
            ("Texte PS pendant les infos : {v}", "LITTORAL"),
            ("PS ya usiku: '{v}'", "USIKU FM"),
        ],
    )
    add(
        B,
        "transmitter_serial",
        [
            ("Nautel GV40 serial {v}, warranty until 2028", "GV40-" + g(DIG, 6)),
            ("Numéro de série de l'émetteur de secours (Elenos) : {v}", "ETG" + g(DIG, 7)),
            ("Serial ya transmitter ya Ngong: {v}", "NV5LT" + g(DIG, 5)),
        ],
    )
    add(
        B,
        "mac_address",
        [
            (
                "Burk ARC Plus MAC {v} — reserve 10.40.0.21 in DHCP",
                ":".join(hx(2) for _ in range(6)).upper(),
            ),
            ("Adresse MAC du codec Tieline : {v}", "00:1e:" + ":".join(hx(2) for _ in range(4))),
            ("MAC ya encoder ya studio A: {v}", "-".join(hx(2) for _ in range(6)).upper()),
        ],
    )
    add(
        B,
        "internal_hostname",
        [
            ("Playout master is {v}, backup is playout02.int", "playout01.int.radiopwani.co.ke"),
            ("Le logger d'antenne tourne sur {v} (10.0.4.30)", "logger-regie.littoral.lan"),
            ("Icecast relay ya Dodoma: {v}:8000", "relay-dodoma.int"),
        ],
    )
    add(
        B,
        "codec_device_id",
        [
            ("Comrex switchboard ID of the sports kit: {v}", "ACCESS-NX-" + g(UP + DIG, 6)),
            ("Tieline Cloud Codec Controller device id : {v}", g(DIG, 9)),
            ("Z/IP ONE unit name on the directory: {v}", "ZIP1-STUDIO3-MSA"),
        ],
    )
    add(
        B,
        "ticket_reference",
        [
            ("Dead air at 03:12 tracked in {v}", "OPS-" + g(DIG, 4)),
            ("Ticket Nautel pour la carte RF : {v}", "CASE-" + g(DIG, 6)),
            ("Tiketi ya Safaricom kuhusu till: {v}", "SR" + g(DIG, 9)),
            ("Zendesk #{v}: listener says stream stutters on iOS", g(DIG, 6)),
        ],
    )
    add(
        B,
        "invoice_number",
        [
            ("Triton invoice {v} paid 2026-11-02", "INV-2026-" + g(DIG, 5)),
            ("Facture SACEM n° {v}, trimestre 3", "FA" + g(DIG, 8)),
            ("Ankara ya MCSK: {v}", "MCSK/INV/" + g(DIG, 6)),
        ],
    )
    add(
        B,
        "broadcast_licence_number",
        [
            ("CA broadcasting licence no. {v} (renewal due June)", "CA/BC/FM/" + g(DIG, 4)),
            ("Autorisation CSA/Arcom : décision n° {v}", "2024-" + g(DIG, 3)),
            ("Leseni ya TCRA ya redio: {v}", "TCRA/RB/" + g(DIG, 5)),
        ],
    )
    add(
        B,
        "ipi_number",
        [
            ("Composer IPI name number for the jingles: {v}", g(DIG, 11)),
            ("Numéro d'adhérent SACEM de la station : {v}", g(DIG, 7)),
            ("MCSK member number ya mtunzi: {v}", "MCSK" + g(DIG, 6)),
        ],
    )
    add(
        B,
        "booking_reference",
        [
            ("Flight for the Arusha OB crew, PNR {v}", g(UP, 6)),
            ("Réservation hôtel pour le direct du festival : confirmation {v}", g(DIG, 10)),
            ("Namba ya booking ya basi kwenda Tanga: {v}", "TG-" + g(UP + DIG, 8)),
        ],
    )
    add(
        B,
        "build_version",
        [
            ("upgraded liquidsoap to {v} on stream02", "2.2.5"),
            ("Firmware Tieline ViA {v} corrige le bug SRT", "v3.6.24"),
            ("mAirList build {v} installed in studio B", "7.1.3 build 5021"),
            ("playout-agent image tag: {v}", "2026.11.30-" + hx(7)),
        ],
    )
    add(
        B,
        "aws_account_id",
        [
            ("Podcast CDN lives in AWS account {v} (eu-west-1)", g(DIG, 12)),
            ("Compte AWS des archives : {v}", g(DIG, 12)),
            ('aws sts get-caller-identity -> "Account": "{v}"', g(DIG, 12)),
        ],
    )
    add(
        B,
        "aws_arn",
        [
            ("Uploader role: {v}", "arn:aws:iam::" + g(DIG, 12) + ":role/podcast-uploader"),
            ("Bucket des replays : {v}", "arn:aws:s3:::littoral-replays-prod"),
            (
                "SNS topic ya kengele za transmitter: {v}",
                "arn:aws:sns:eu-west-1:" + g(DIG, 12) + ":tx-alarms",
            ),
        ],
    )
    add(
        B,
        "slack_channel_id",
        [
            ("post dead-air alerts to channel {v} (#on-air-alerts)", "C0" + g(UP + DIG, 9)),
            ("ID utilisateur Slack de Claire (astreinte) : {v}", "U0" + g(UP + DIG, 9)),
            ("Slack workspace id: {v}", "T0" + g(UP + DIG, 9)),
        ],
    )
    add(
        B,
        "twilio_account_sid",
        [
            ("Twilio account SID (not secret, the token is in vault): {v}", "AC" + hx(32)),
            ("Messaging service SID du jeu SMS : {v}", "MG" + hx(32)),
            ("Twilio number SID ya mstari wa maoni: {v}", "PN" + hx(32)),
        ],
    )
    add(
        B,
        "stripe_object_id",
        [
            ("Refund done for listener donation {v}", "ch_3" + g(AN, 23)),
            ("Client Stripe du mécène principal : {v}", "cus_" + g(AN, 14)),
            ("Premium feed monthly price: {v}", "price_1" + g(AN, 23)),
        ],
    )
    add(
        B,
        "vast_creative_id",
        [
            ('<Creative id="{v}" adId="spot-safari-30s">', g(DIG, 8)),
            ("Campagne Triton pour le supermarché : campaign {v}, creative 998812", g(DIG, 6)),
            ("VAST tag: https://ads.radiopwani.co.ke/vast?zone={v}&cb=[CACHEBUSTING]", g(DIG, 4)),
        ],
    )
    add(
        B,
        "rss_feed_url",
        [
            ("Public feed: {v}", "https://feeds.transistor.fm/sauti-za-pwani"),
            ("Flux RSS du podcast : {v}", "https://feed.ausha.co/" + g(AN, 12)),
            ("Feed ya Buzzsprout: {v}", "https://feeds.buzzsprout.com/" + g(DIG, 7) + ".rss"),
        ],
    )
    add(
        B,
        "apple_podcast_id",
        [
            ("Apple Podcasts show id {v}", "id" + g(DIG, 10)),
            (
                "Lien Apple Podcasts : https://podcasts.apple.com/fr/podcast/les-marees/{v}",
                "id" + g(DIG, 10),
            ),
            ("Apple Podcasts Connect provider ID: {v}", g(DIG, 9)),
        ],
    )
    add(
        B,
        "spotify_show_id",
        [
            ("Spotify show: https://open.spotify.com/show/{v}", g(AN, 22)),
            ("Spotify show id ya kipindi: {v}", g(AN, 22)),
            ("SPOTIFY_CLIENT_ID={v}  # public, secret is in vault", hx(32)),
        ],
    )
    add(
        B,
        "youtube_channel_id",
        [
            ("YouTube channel for video podcasts: {v}", "UC" + g(URLS, 22)),
            (
                "Chaîne YouTube de la radio : https://www.youtube.com/channel/{v}",
                "UC" + g(URLS, 22),
            ),
            ("Episode 12 on YouTube: https://www.youtube.com/watch?v={v}", g(URLS, 11)),
        ],
    )
    add(
        B,
        "mpesa_paybill_number",
        [
            ("Changia redio kupitia M-Pesa: Paybill {v}, akaunti PWANI", g(DIG, 6)),
            ("Till number for merch at the roadshow: {v}", g(DIG, 7)),
            ("BusinessShortCode: {v}", g(DIG, 6)),
        ],
    )
    add(
        B,
        "phone_number",
        [
            ("Studio call-in line: {v}", "+254 41 222 " + g(DIG, 4)),
            (
                "Numéro de l'antenne pour les auditeurs : {v}",
                "04 67 " + g(DIG, 2) + " " + g(DIG, 2) + " " + g(DIG, 2),
            ),
            ("SMS shortcode for requests: {v}", "22" + g(DIG, 3)),
        ],
    )
    add(
        B,
        "request_id",
        [
            ("2026-11-30T03:12:44Z ERROR encoder[studio-b] icecast 401 request_id={v}", uuid4()),
            ("X-Request-Id: {v}", hx(32)),
            ("trace_id={v} span=upload_episode status=OK", hx(32)),
        ],
    )
    add(
        B,
        "jwks_key_id",
        [
            (
                '{"kty": "RSA", "use": "sig", "kid": "{v}", "alg": "RS256", "e": "AQAB"}',
                g(URLS, 43),
            ),
            ("kid du JWKS de l'appli mobile : {v}", "2026-11-" + hx(8)),
            ("JWKS public n for the player app (RS256): {v}", g(URLS, 342)),
        ],
    )
    add(
        B,
        "pgp_fingerprint",
        [
            (
                "Signing key fingerprint for the release tarballs: {v}",
                " ".join(hx(4).upper() for _ in range(10)),
            ),
            ("Empreinte de la clé GPG de l'équipe technique : {v}", hx(40).upper()),
            ("gpg --recv-keys {v}  # Nautel firmware signing key", hx(16).upper()),
        ],
    )
    add(
        B,
        "tls_cert_fingerprint",
        [
            (
                "Pin the codec cert SHA-1 fingerprint: {v}",
                ":".join(hx(2).upper() for _ in range(20)),
            ),
            (
                "Empreinte SHA-256 du certificat du serveur SRT : {v}",
                ":".join(hx(2).upper() for _ in range(32)),
            ),
            (
                "openssl x509 -fingerprint output for the Icecast cert: SHA256 Fingerprint={v}",
                ":".join(hx(2).upper() for _ in range(32)),
            ),
        ],
    )
    add(
        B,
        "password_hash",
        [
            (
                "/etc/icecast2/htpasswd entry: listener:{v}",
                "$apr1$" + g(AN, 8) + "$" + g(AN + "./", 22),
            ),
            ("users table row for adops: password_hash={v}", "$2b$12$" + g(AN + "./", 53)),
            (
                "Hash ya nenosiri ya mtumiaji (argon2): {v}",
                "$argon2id$v=19$m=65536,t=3,p=4$" + g(B64, 22) + "$" + g(B64, 43),
            ),
        ],
    )
    add(
        B,
        "package_integrity_hash",
        [
            ('"integrity": "{v}"', "sha512-" + g(B64, 86) + "=="),
            ("hls.js --hash={v}", "sha256:" + hx(64)),
            ("pip hash for the podcast feed validator wheel: --hash={v}", "sha256:" + hx(64)),
        ],
    )
    add(
        B,
        "stripe_documented_test_key",
        [
            ("Stripe's docs example key, fine in tests: {v}", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"),
            (
                "Dans les tests unitaires on utilise la clé de démo de Stripe {v}",
                "pk_test_TYooMQauvdEDq54NiTphI7jx",
            ),
            ("fixture: STRIPE_SECRET_KEY={v}", "sk_test_xxxxxxxxxxxxxxxxxxxxxxxx"),
        ],
    )
    add(
        B,
        "password_policy_text",
        [
            (
                "Policy: codec and transmitter passwords are {v} and rotated every 90 days.",
                "at least 14 characters",
            ),
            (
                "Règle : {v} pour les comptes de la régie.",
                "pas de mot de passe partagé par WhatsApp",
            ),
            ("Sera: nenosiri {v}", "lisiandikwe kwenye ubao wa studio"),
        ],
    )
    add(
        B,
        "cron_schedule",
        [
            ("licensing export runs {v} (first of the month, 02:00)", "0 2 1 * *"),
            ("Purge des loggers : {v}", "30 4 * * 0"),
            ("Ratiba ya kuhifadhi rekodi za hewani: {v}", "*/15 * * * *"),
        ],
    )
    add(
        B,
        "aoip_network_identifier",
        [
            ("AES67 stream from studio A on {v}:5004", "239.69.12.4"),
            (
                "PTP grandmaster clock id : {v}",
                "00-1D-C1-FF-FE-" + "-".join(hx(2).upper() for _ in range(3)),
            ),
            ("Livewire source channel {v} -> studio B fader 3", "21104"),
        ],
    )
    add(
        B,
        "fcc_facility_id",
        [
            ("Partner station in Maine, FCC facility ID {v}", g(DIG, 5)),
            (
                "Le relais de Portland (WPXR-FM) a le Facility ID {v} dans la base LMS de la FCC",
                g(DIG, 6),
            ),
            ("FCC LMS facility {v} is the sister AM, not ours; call sign KPWN", g(DIG, 5)),
        ],
    )
    add(
        B,
        "smpte_timecode",
        [
            ("Cut the ad break at {v}", "01:12:43:17"),
            ("Début de l'interview au timecode {v}", "00:04:58:02"),
            ("Tangazo la Safaricom linaanza {v}", "00:29:30:00"),
        ],
    )
    add(
        B,
        "loudness_setting",
        [
            ("Podcast masters: {v}", "-16 LUFS integrated, -1 dBTP"),
            ("Réglage de l'Omnia pour la FM : cible {v}", "-23 LUFS"),
            ("Kiwango cha sauti cha matangazo: {v}", "-18 LUFS"),
        ],
    )
    add(
        B,
        "public_stream_url",
        [
            (
                "Public listen link for the website player: {v}",
                "https://stream.radiopwani.co.ke/pwani128.mp3",
            ),
            (
                "Lien d'écoute à donner aux agrégateurs : {v}",
                "https://icecast.radiolittoral.fr/littoral-hd.aac",
            ),
            ("HLS ya simu: {v}", "https://cdn.radiopwani.co.ke/hls/pwani/playlist.m3u8"),
        ],
    )
    add(
        B,
        "rtmp_ingest_url",
        [
            ("YouTube ingest server (key is in vault): {v}", "rtmp://a.rtmp.youtube.com/live2"),
            (
                "Serveur RTMPS Facebook : {v} — la clé de stream n'est pas ici",
                "rtmps://live-api-s.facebook.com:443/rtmp/",
            ),
            (
                "OBS profile 'Matinale' server field: {v}",
                "rtmp://b.rtmp.youtube.com/live2?backup=1",
            ),
        ],
    )
    add(
        B,
        "sip_extension",
        [
            ("Hybrid line 2 is SIP extension {v}", "4102"),
            ("Identifiant SIP du studio B : {v}", "sip:studioB@pbx.littoral.lan"),
            ("Namba ya ndani ya studio ya habari: {v}", "ext. 215"),
        ],
    )
    add(
        B,
        "facebook_page_id",
        [
            ("Pwani FM Facebook page id: {v}", g(DIG, 15)),
            ("App ID Meta (public) de l'outil d'audiogrammes : {v}", g(DIG, 16)),
        ],
    )


def corpus():
    ROWS.clear()
    R.seed(SEED)
    secrets()
    benigns()
    for r in ROWS:
        assert r["value"] in r["text"]
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

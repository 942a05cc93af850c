# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 119: a TV broadcaster and production company.

Brief: a multi-channel TV broadcaster with its own production arm (Istanbul HQ, Prague and
Dubai bureaus). Playout and streaming encoders push RTMP/SRT to YouTube, Facebook and Twitch;
CDN (Akamai, Cloudflare) and DRM (Widevine/PlayReady) protect the OTT app; studios and OB vans
have door, alarm and gate codes; newsroom (iNews/ENPS), rights and scheduling systems, social
accounts, satellite uplinks (BISS keys, modems), Sony/Panasonic cameras, Riedel/Clear-Com
intercoms, LiveU/TVU bonding units, and the usual dev stack (AWS, GitHub, Slack, Stripe, Postgres).
Languages: English, Turkish, Arabic, Czech.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_119.py [out.jsonl]

Kinds, secret: youtube_stream_key, twitch_stream_key, facebook_stream_key, srt_passphrase, biss_key,
drm_content_key, akamai_edgegrid_credentials, cdn_token_auth_secret, cloudflare_api_token,
aws_secret_access_key, studio_door_code, ob_van_alarm_code, building_alarm_code, safe_code, gate_code,
wifi_password, intercom_admin_password, camera_admin_password, newsroom_password,
playout_server_password, bonding_unit_password, satellite_modem_password, sip_password,
ftp_ingest_password, social_media_password, recovery_codes, rights_system_api_key, github_token,
gitlab_token, slack_bot_token, slack_webhook_url, discord_webhook_url, teams_webhook_url,
stripe_secret_key, twilio_auth_token, sendgrid_api_key, mailgun_api_key, telegram_bot_token,
postgres_connection_string, mongodb_uri, redis_password, private_key_pem, ssh_private_key,
jwt_signing_secret, session_cookie, google_api_key, google_oauth_client_secret, azure_storage_key,
openai_api_key, npm_token, docker_registry_password, vpn_preshared_key, phone_pin, vault_token,
datadog_api_key, meta_access_token, x_bearer_token, gpg_passphrase, url_with_credentials.

Kinds, benign: youtube_channel_id, stream_key_placeholder, masked_secret, drm_key_id, pssh_box,
akamai_cp_code, cloudflare_zone_id, aws_docs_example_key, aws_kms_key_id, aws_arn, git_commit_sha,
container_image_digest, ssh_public_key, key_fingerprint, stripe_publishable_key, recaptcha_site_key,
vault_reference, password_policy, revoked_token, env_var_reference, k8s_secret_ref, error_code,
product_code, booking_reference, invoice_number, ticket_id, serial_number, mac_address,
multicast_address, satellite_carrier_params, rtmp_ingest_url, srt_url_no_passphrase, story_id,
eidr_id, house_media_id, timecode, twilio_account_sid, slack_channel_id, file_checksum,
package_integrity_hash, ga_measurement_id, facebook_app_id, phone_number, code_changed_notice,
intercom_panel_id, studio_room_number, wifi_ssid_only, stripe_test_card, db_url_without_password,
password_placeholder, request_id, ci_job_number, iban_on_invoice, vehicle_plate, software_version,
etag_header.
"""

import json
import random
import string
import sys

SEED = 399662

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
WORDS = [
    "Harbour",
    "Kartal",
    "Galata",
    "Vltava",
    "Sokol",
    "Anten",
    "Yayin",
    "Kamera",
    "Studio",
    "Reji",
    "Uplink",
    "Falcon",
    "Bosphorus",
    "Petrin",
    "Marmara",
    "Jasmin",
    "Zlatý",
    "Deniz",
    "Haber",
    "Kanal",
]
SYMS = "!#.@$*_-"


def corpus():
    """Every row: {"text": ..., "label": "secret" | "benign", "kind": ...}."""
    rng = random.Random(SEED)
    rows = []

    def s(kind, text):
        rows.append({"text": text, "label": "secret", "kind": kind})

    def b(kind, text):
        rows.append({"text": text, "label": "benign", "kind": kind})

    def R(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def H(n):
        return R("0123456789abcdef", n)

    def D(n):
        return R(DIG, n)

    def uuid():
        return f"{H(8)}-{H(4)}-4{H(3)}-{rng.choice('89ab')}{H(3)}-{H(12)}"

    def pw():
        w = rng.choice(WORDS)
        style = rng.randrange(4)
        if style == 0:
            return f"{w}{rng.choice(SYMS)}{D(4)}"
        if style == 1:
            return f"{w.lower()}.{rng.choice(WORDS)}{D(2)}"
        if style == 2:
            return f"{D(2)}{w}{rng.choice(SYMS)}{rng.choice(WORDS).lower()}"
        return f"{w}{D(3)}{rng.choice(SYMS)}{rng.choice(UP)}"

    def yt():
        return "-".join(R(LOW + DIG, 4) for _ in range(5))

    def b64(nbytes):
        n = (nbytes * 4 + 2) // 3
        pad = (3 - nbytes % 3) % 3
        return R(B64, n) + "=" * pad

    def jwt():
        return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + R(URLSAFE, 64) + "." + R(URLSAFE, 43)

    # ---------------------------------------------------------------- secrets
    s(
        "youtube_stream_key",
        f"YT live key for tonight's derby: {yt()} (paste into the Wirecast output, primary ingest)",
    )
    s(
        "youtube_stream_key",
        f"Haber kanalı YouTube yayın anahtarı -> {yt()} , yedek encoder'a da girdim",
    )
    s(
        "youtube_stream_key",
        f'streamKey: "{yt()}"  # backup ingest rtmp://b.rtmp.youtube.com/live2?backup=1',
    )
    s("youtube_stream_key", f"Klíč streamu pro YouTube (Praha studio B):\n{yt()}")
    s(
        "twitch_stream_key",
        f"twitch esports channel key live_{D(9)}_{R(ALNUM, 30)} — don't show it on the multiviewer",
    )
    s("twitch_stream_key", f"OBS > Settings > Stream > Twitch, key: live_{D(9)}_{R(ALNUM, 30)}")
    s("twitch_stream_key", f"مفتاح البث على تويتش: live_{D(9)}_{R(ALNUM, 30)}")
    s(
        "facebook_stream_key",
        f"FB Live persistent key for the morning show: FB-{D(15)}-0-Ab{R(ALNUM, 28)}",
    )
    s(
        "facebook_stream_key",
        f"Facebook canlı yayın key'i değişti, yenisi FB-{D(16)}-0-Ab{R(ALNUM, 28)} (Elif'e ilettim)",
    )
    s(
        "facebook_stream_key",
        f"rtmps://live-api-s.facebook.com:443/rtmp/FB-{D(15)}-0-Ab{R(ALNUM, 28)}",
    )
    s(
        "srt_passphrase",
        f"srt://203.0.113.40:9000?mode=caller&latency=200&passphrase={R(ALNUM, 20)}&pbkeylen=32",
    )
    s("srt_passphrase", f"Dubai feed SRT: port 9710, AES-256, passphrase `{pw()}{D(3)}`")
    s(
        "srt_passphrase",
        f"SRT heslo pro přenos z Brna: {R(ALNUM, 16)} (min 10 znaků, jinak to Haivision odmítne)",
    )
    s("srt_passphrase", f"srt listener TRT-backup, parola: {pw()}-{D(2)} , latency 120ms")
    s(
        "biss_key",
        f"BISS-1 key for the Türksat 4A feed tonight: {H(4).upper()} {H(4).upper()} {H(4).upper()}",
    )
    s("biss_key", f"Maç yayını uydu, BISS-E: {H(16).upper()} — IRD'ye sadece Kemal girsin")
    s("biss_key", f"Eutelsat 16E occasional use, BISS key {H(12).upper()}, sym rate 7200, FEC 3/4")
    s("biss_key", f"مفتاح BISS للقمر عربسات: {H(12).upper()}")
    s("drm_content_key", f"widevine test for the OTT app: KID {uuid()} KEY {H(32)}")
    s(
        "drm_content_key",
        f"--keys {H(32)}:{H(32)}  (shaka-packager, raw key for the Euro match VOD)",
    )
    s(
        "drm_content_key",
        f"PlayReady content key (base64) {b64(16)} — do not commit to the packager repo",
    )
    s(
        "akamai_edgegrid_credentials",
        f"[default]\nclient_secret = {b64(32)}\nhost = akab-{R(LOW + DIG, 16)}-{R(LOW + DIG, 16)}.luna.akamaiapis.net",
    )
    s(
        "akamai_edgegrid_credentials",
        f"Akamai purge API: access_token=akab-{R(LOW + DIG, 16)}-{R(LOW + DIG, 16)} client_secret={b64(32)}",
    )
    s("akamai_edgegrid_credentials", f"edgerc pro purge skript, client_secret: {b64(32)}")
    s(
        "cdn_token_auth_secret",
        f"Akamai token auth key for /live/* : {H(32)} (window 300s, acl /live/haber/*)",
    )
    s(
        "cdn_token_auth_secret",
        f"CDN imzalı URL secret'ı: {H(40)} — player ekibine verme, backend'de kalsın",
    )
    s("cdn_token_auth_secret", f"HLS_SIGNING_KEY={R(ALNUM, 32)}")
    s(
        "cloudflare_api_token",
        f"cloudflare token for cache purge (zone edit only): {R(URLSAFE, 40)}",
    )
    s("cloudflare_api_token", f"export CLOUDFLARE_API_TOKEN={R(URLSAFE, 40)}")
    s("cloudflare_api_token", f"CF API token yeni: {R(URLSAFE, 40)} eskisini iptal ettim")
    s("aws_secret_access_key", f"media-convert user: AKIA{R(UP + DIG, 16)} / {R(B64, 40)}")
    s(
        "aws_secret_access_key",
        f"aws_access_key_id = AKIA{R(UP + DIG, 16)}\naws_secret_access_key = {R(B64, 40)}",
    )
    s(
        "aws_secret_access_key",
        f"S3 arşiv bucket için secret key: {R(B64, 40)} (key id AKIA{R(UP + DIG, 16)})",
    )
    s("aws_secret_access_key", f'AWS_SECRET_ACCESS_KEY="{R(B64, 40)}" v .env na render farmě')
    s("studio_door_code", f"Studio 3 door code is {D(4)}# from Monday")
    s("studio_door_code", f"Stüdyo 2 kapı şifresi {D(6)}, gece vardiyası için")
    s("studio_door_code", f"Kód na dveře do režie R2: {D(4)}*")
    s("studio_door_code", f"رمز باب الاستوديو الجديد {D(5)} — لا تشاركوه مع الضيوف")
    s("studio_door_code", f"Control room keypad: {D(4)} then the green key. changes monthly")
    s("ob_van_alarm_code", f"OB4 alarm: disarm with {D(4)} within 30s of opening the rear door")
    s("ob_van_alarm_code", f"Yayın aracı (OB-2) alarm kodu {D(4)}, Esenyurt otoparkında")
    s("ob_van_alarm_code", f"Přenosový vůz alarm – kód {D(6)}, pak OFF")
    s("building_alarm_code", f"Prague bureau alarm code {D(4)}, last one out sets it")
    s("building_alarm_code", f"رمز إنذار مكتب دبي: {D(4)}")
    s("building_alarm_code", f"Handover: bina alarmı {D(5)} + ENTER, güvenlik 06:00'da gelir")
    s(
        "safe_code",
        f"Tape safe in MCR: {D(2)}-{D(2)}-{D(2)} (hard drives with embargoed footage inside)",
    )
    s("safe_code", f"Trezor v produkci, kombinace {D(6)}")
    s("safe_code", f"kasa şifresi (akreditasyon kartları içinde): {D(4)}")
    s("gate_code", f"Car park gate at the Maslak studios: *{D(4)}#")
    s("gate_code", f"bahçe kapısı kodu {D(4)} — OB araçları arka kapıdan girsin")
    s("gate_code", f"Brána k satelitnímu parku: {D(5)}")
    s("gate_code", f"كود البوابة الخلفية لموقع البث {D(4)}")
    s("wifi_password", f"Newsroom wifi NR-STAFF pw: {pw()}")
    s("wifi_password", f"WIFI:T:WPA;S:OBVAN-3;P:{pw()};;")
    s("wifi_password", f"Wi-Fi ve studiu C: síť PRODUKCE, heslo {pw()}")
    s("wifi_password", f"stadyum basın odası wifi şifresi: {R(LOW + DIG, 10)}")
    s("wifi_password", f"كلمة سر الواي فاي في غرفة التحكم: {pw()}")
    s("intercom_admin_password", f"Riedel Artist frame config login admin / {pw()}")
    s(
        "intercom_admin_password",
        f"Clear-Com Eclipse HX EHX şifresi: {pw()} (sadece Murat değiştirsin)",
    )
    s("intercom_admin_password", f"Intercom web panel (10.20.4.10) -> user: engineer pass: {pw()}")
    s(
        "camera_admin_password",
        f"Sony PTZ cams in studio 1 all use admin/{pw()} after the firmware update",
    )
    s("camera_admin_password", f"Panasonic AW-UE150 web arayüzü: kullanıcı admin, şifre {pw()}")
    s("camera_admin_password", f"Kamery BRC-X400 – heslo pro web: {pw()}")
    s("camera_admin_password", f"camera RCP password changed to `{pw()}`")
    s("newsroom_password", f"iNews service account inewsbot pwd {pw()}")
    s("newsroom_password", f"ENPS login for the freelancer in Gaziantep: user fl_gaz02 / {pw()}")
    s("newsroom_password", f"حساب نظام الأخبار: المستخدم desk_dxb وكلمة المرور {pw()}")
    s("newsroom_password", f"Avid MediaCentral heslo pro stážisty: {pw()}")
    s(
        "playout_server_password",
        f"Harmonic Spectrum playout, Administrator pass is {pw()} on both main and backup",
    )
    s("playout_server_password", f"Playout (Grass Valley iTX) win login: itxadmin / {pw()}")
    s("playout_server_password", f"Yayın akış sunucusu root şifresi: {pw()}")
    s(
        "bonding_unit_password",
        f"LiveU LU800 #7 unit password {pw()} — reporters should not change it",
    )
    s("bonding_unit_password", f"TVU One web UI şifre: {D(8)}")
    s("bonding_unit_password", f"Aviwest PRO3 heslo admin: {pw()}")
    s("satellite_modem_password", f"Newtec MDM6000 at the teleport: user admin pass {pw()}")
    s("satellite_modem_password", f"Comtech modem telnet şifresi {pw()} - uplink ekibi")
    s("satellite_modem_password", f"Uplink truck modem: admin / {pw()}")
    s(
        "sip_password",
        f"SIP account for the commentary codec: 4412@sip.example-tv.net secret={R(ALNUM, 16)}",
    )
    s("sip_password", f"Comrex ACCESS SIP heslo {pw()}")
    s("sip_password", f"Telefon hibrid SIP: kullanıcı 2210, parola {R(ALNUM, 12)}")
    s("ftp_ingest_password", f"Agency footage FTP: ftp.ingest.internal user reuters_in pass {pw()}")
    s(
        "ftp_ingest_password",
        f"sftp muhabir_upload@ingest.local şifre {pw()} (Arapça servis de kullanıyor)",
    )
    s("ftp_ingest_password", f"FTP pro zahraniční zpravodaje – login zpravy / heslo {pw()}")
    s(
        "social_media_password",
        f"Instagram @haberkanal password is now {pw()} — 2FA still on Deniz's phone",
    )
    s("social_media_password", f"X hesabı (sports) şifresi: {pw()}")
    s("social_media_password", f"TikTok účet pořadu: heslo {pw()}")
    s("social_media_password", f"كلمة مرور حساب فيسبوك للقناة: {pw()}")
    s(
        "recovery_codes",
        f"YouTube brand account backup codes: {D(4)} {D(4)}, {D(4)} {D(4)}, {D(4)} {D(4)}",
    )
    s("recovery_codes", f"X recovery code for @kanal_spor: {R(LOW + DIG, 12)}")
    s("recovery_codes", f"Meta Business 2FA yedek kodları:\n{D(8)} {D(8)} {D(8)} {D(8)}")
    s(
        "recovery_codes",
        f"GitHub org owner recovery codes: {H(5)}-{H(5)} {H(5)}-{H(5)} {H(5)}-{H(5)}",
    )
    s("rights_system_api_key", f"Rights DB (RightsLine) API key: {R(ALNUM, 32)}")
    s("rights_system_api_key", f"Haklar sistemi entegrasyonu x-api-key: {uuid()}")
    s(
        "rights_system_api_key",
        f"curl -H 'X-Api-Key: {R(ALNUM, 40)}' https://rights.internal/api/v2/licences?territory=CZ",
    )
    s("github_token", f"GH token for the scheduler CI: ghp_{R(ALNUM, 36)}")
    s("github_token", f"git clone https://ghp_{R(ALNUM, 36)}@github.com/tvnet/epg-builder.git")
    s("github_token", f"GITHUB_TOKEN=github_pat_11{R(UP + DIG, 20)}_{R(ALNUM, 59)}")
    s("gitlab_token", f"gitlab PAT (read_registry) glpat-{R(URLSAFE, 20)}")
    s("gitlab_token", f"runner register token: glrt-{R(URLSAFE, 20)}")
    s("gitlab_token", f"GitLab deploy token grafik ekibi için: glpat-{R(URLSAFE, 20)}")
    s("slack_bot_token", f"SLACK_BOT_TOKEN=xoxb-{D(12)}-{D(13)}-{R(ALNUM, 24)}")
    s("slack_bot_token", f"on-air alert bot token xoxb-{D(11)}-{D(13)}-{R(ALNUM, 24)}")
    s("slack_bot_token", f"Slack user token (Ayşe) xoxp-{D(12)}-{D(12)}-{D(13)}-{H(32)}")
    s(
        "slack_webhook_url",
        f"MCR alerts -> https://hooks.slack.com/services/T{R(UP + DIG, 10)}/B{R(UP + DIG, 10)}/{R(ALNUM, 24)}",
    )
    s(
        "slack_webhook_url",
        f'webhook_url: "https://hooks.slack.com/services/T{R(UP + DIG, 8)}/B{R(UP + DIG, 10)}/{R(ALNUM, 24)}"',
    )
    s(
        "slack_webhook_url",
        f"Playout hata bildirim webhook'u:\nhttps://hooks.slack.com/services/T{R(UP + DIG, 10)}/B{R(UP + DIG, 11)}/{R(ALNUM, 24)}",
    )
    s(
        "discord_webhook_url",
        f"esports community discord hook https://discord.com/api/webhooks/{D(18)}/{R(URLSAFE, 68)}",
    )
    s(
        "discord_webhook_url",
        f"DISCORD_WEBHOOK=https://discordapp.com/api/webhooks/{D(19)}/{R(URLSAFE, 68)}",
    )
    s(
        "teams_webhook_url",
        f"Teams kanál Provoz: https://tvnet.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{H(32)}/{uuid()}",
    )
    s(
        "teams_webhook_url",
        f"Teams incoming webhook for rights expiry warnings: https://tvnet.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{H(32)}/{uuid()}",
    )
    s("stripe_secret_key", f"STRIPE_SECRET_KEY=sk_live_51{R(ALNUM, 96)}")
    s("stripe_secret_key", f"OTT abonelik backend: sk_live_{R(ALNUM, 24)}")
    s("stripe_secret_key", f"restricted key for the PPV refunds script: rk_live_{R(ALNUM, 24)}")
    s("twilio_auth_token", f"Twilio (SMS voting) SID AC{H(32)} token {H(32)}")
    s("twilio_auth_token", f"TWILIO_AUTH_TOKEN={H(32)}")
    s("twilio_auth_token", f"SMS oylama için twilio auth token: {H(32)}")
    s("sendgrid_api_key", f"newsletter SENDGRID_API_KEY=SG.{R(URLSAFE, 22)}.{R(URLSAFE, 43)}")
    s("sendgrid_api_key", f"SendGrid klíč pro notifikace: SG.{R(URLSAFE, 22)}.{R(URLSAFE, 43)}")
    s("mailgun_api_key", f"mailgun api key key-{H(32)} (domain mg.tvnet.example)")
    s("mailgun_api_key", f"MAILGUN_API_KEY=key-{H(32)}")
    s("telegram_bot_token", f"Haber alarm Telegram botu token: {D(10)}:AA{R(URLSAFE, 33)}")
    s("telegram_bot_token", f"بوت تيليجرام للعاجل: {D(10)}:AA{R(URLSAFE, 33)}")
    s("telegram_bot_token", f"TELEGRAM_TOKEN='{D(9)}:AA{R(URLSAFE, 33)}'")
    s("postgres_connection_string", f"DATABASE_URL=postgres://epg:{pw()}@db-epg.internal:5432/epg")
    s(
        "postgres_connection_string",
        f"Rights DB bağlantısı: postgresql://rights_app:{R(ALNUM, 18)}@10.12.0.21/rights?sslmode=require",
    )
    s(
        "postgres_connection_string",
        f'psql "host=pg-archive user=archiver password={pw()} dbname=mam"',
    )
    s(
        "mongodb_uri",
        f"MONGO_URI=mongodb+srv://vod:{R(ALNUM, 16)}@cluster0.ab1cd.mongodb.net/catalog",
    )
    s("mongodb_uri", f"komentáře z appky jsou v mongodb://comments:{pw()}@mongo-1:27017/app")
    s(
        "redis_password",
        f"redis-cli -h cache.ott -a {R(ALNUM, 24)} FLUSHDB  # don't run this in prod lol",
    )
    s("redis_password", f"requirepass {R(ALNUM, 32)}")
    s("redis_password", f"Redis şifresi (session cache): {R(ALNUM, 20)}")
    s("private_key_pem", f"-----BEGIN RSA PRIVATE KEY-----\nMIIEow{R(B64, 58)}\n{R(B64, 64)}")
    s(
        "private_key_pem",
        f"packager TLS key: -----BEGIN PRIVATE KEY----- MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{R(B64, 40)}",
    )
    s(
        "private_key_pem",
        f"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI{R(B64, 55)}\n-----END EC PRIVATE KEY-----",
    )
    s(
        "ssh_private_key",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{R(B64, 46)}\n{R(B64, 70)}",
    )
    s(
        "ssh_private_key",
        f"uplink jump host key (id_ed25519): -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE{R(B64, 50)}",
    )
    s("jwt_signing_secret", f"JWT_SECRET={R(ALNUM, 48)}")
    s("jwt_signing_secret", f'OTT player token HS256 secret: "{R(ALNUM + "!@#", 32)}"')
    s("jwt_signing_secret", f"jwt imzalama anahtarı prod'da {R(ALNUM, 40)}, staging'de farklı")
    s("session_cookie", f"Cookie: sessionid={R(LOW + DIG, 32)}; csrftoken={R(ALNUM, 64)}")
    s(
        "session_cookie",
        f"logged-in cookie for the CMS admin (expires Fri): connect.sid=s%3A{R(URLSAFE, 32)}.{R(B64, 43)}",
    )
    s("session_cookie", f"auth cookie z prohlížeče: access_token={jwt()}")
    s("google_api_key", f"YouTube Data API key (live chat overlay): AIza{R(URLSAFE, 35)}")
    s("google_api_key", f"GOOGLE_API_KEY=AIza{R(URLSAFE, 35)}")
    s("google_api_key", f"Haritalar için sunucu tarafı key: AIza{R(URLSAFE, 35)} (kısıtlama yok!)")
    s("google_oauth_client_secret", f"YouTube upload OAuth client secret GOCSPX-{R(URLSAFE, 28)}")
    s("google_oauth_client_secret", f'"client_secret": "GOCSPX-{R(URLSAFE, 28)}",')
    s(
        "azure_storage_key",
        f"DefaultEndpointsProtocol=https;AccountName=tvarchive;AccountKey={b64(64)};EndpointSuffix=core.windows.net",
    )
    s("azure_storage_key", f"Azure blob (proxy arşivi) account key: {b64(64)}")
    s("openai_api_key", f"subtitle translation job uses OPENAI_API_KEY=sk-proj-{R(URLSAFE, 48)}")
    s("openai_api_key", f"otomatik altyazı servisi key: sk-proj-{R(URLSAFE, 56)}")
    s("npm_token", f"//registry.npmjs.org/:_authToken=npm_{R(ALNUM, 36)}")
    s("npm_token", f"player SDK publish token npm_{R(ALNUM, 36)}")
    s("docker_registry_password", f"docker login registry.tvnet.local -u ci-bot -p {pw()}")
    s("docker_registry_password", f"Harbor robot hesabı: robot$encoder-build / {R(ALNUM, 32)}")
    s("docker_registry_password", f'"auths":{{"ghcr.io":{{"auth":"{b64(30)}"}}}}')
    s("vpn_preshared_key", f"IPsec PSK to the Dubai bureau: {R(ALNUM, 24)}")
    s("vpn_preshared_key", f"WireGuard OB-van peer PrivateKey = {b64(32)}")
    s("vpn_preshared_key", f"VPN ortak anahtar (site-to-site Praha): {pw()}{D(3)}")
    s("phone_pin", f"Desk phone voicemail PIN {D(4)} for the overnight producer line")
    s("phone_pin", f"Kurumsal SIM (canlı yayın telefonu) PIN {D(4)}, PUK {D(8)}")
    s("phone_pin", f"Služební platební karta (nákupy pro produkci) – PIN {D(4)}")
    s("phone_pin", f"رقم PIN لهاتف البث المباشر: {D(4)}")
    s("vault_token", f"VAULT_TOKEN=hvs.{R(URLSAFE, 24)}")
    s("vault_token", f"root token from the unseal ceremony: hvs.{R(URLSAFE, 24)}")
    s("datadog_api_key", f"DD_API_KEY={H(32)}")
    s("datadog_api_key", f"datadog agent on the encoders: api_key: {H(32)} app_key: {H(40)}")
    s(
        "meta_access_token",
        f"Page access token (Haber FB sayfası, never expires): EAAG{R(ALNUM, 120)}",
    )
    s("meta_access_token", f"IG Graph API token for scheduled reels: EAAB{R(ALNUM, 110)}")
    s(
        "x_bearer_token",
        f"X API bearer for the trends widget: AAAAAAAAAAAAAAAAAAAAA{R(ALNUM, 20)}%3D{R(ALNUM, 50)}",
    )
    s(
        "x_bearer_token",
        f"Authorization: Bearer AAAAAAAAAAAAAAAAAAAAA{R(ALNUM, 24)}%2F{R(ALNUM, 46)}",
    )
    s(
        "gpg_passphrase",
        f'passphrase for the archive backup gpg key: "{rng.choice(WORDS).lower()} {rng.choice(WORDS).lower()} {rng.choice(WORDS).lower()} {D(2)}"',
    )
    s(
        "gpg_passphrase",
        f"Yedek şifreleme parolası: {rng.choice(WORDS)}-{rng.choice(WORDS)}-{rng.choice(WORDS)}-{D(3)}",
    )
    s("gpg_passphrase", f"Heslo k šifrovanému disku s embargem: {pw()}")
    s(
        "url_with_credentials",
        f"encoder pulls EPG from https://epg:{pw()}@epg.tvnet.internal/xmltv.xml",
    )
    s("url_with_credentials", f"kamera RTSP: rtsp://admin:{pw()}@10.40.2.17:554/stream1")
    s("url_with_credentials", f"rtmp://publish:{R(ALNUM, 14)}@origin-ist.tvnet.local/live/haber_hd")

    # ---------------------------------------------------------------- benign
    b("youtube_channel_id", f"YouTube channel id for the sports channel: UC{R(URLSAFE, 22)}")
    b(
        "youtube_channel_id",
        f"Kanal ID (haber): UC{R(URLSAFE, 22)} — analytics raporunda bunu kullan",
    )
    b("youtube_channel_id", f"ID kanálu pro YouTube Studio: UC{R(URLSAFE, 22)}")
    b("stream_key_placeholder", "Stream key: <paste from YouTube Studio> (don't write it here)")
    b("stream_key_placeholder", "rtmp://a.rtmp.youtube.com/live2/xxxx-xxxx-xxxx-xxxx-xxxx")
    b(
        "stream_key_placeholder",
        "Yayın anahtarı: YOUR_STREAM_KEY_HERE şeklinde bırak, encoder template'i",
    )
    b("stream_key_placeholder", "srt passphrase = <min 10 chars, from Keeper>")
    b("masked_secret", f"FB stream key ends in ...{R(ALNUM, 4)}, the old one is in the bin")
    b("masked_secret", f"Twitch key: live_{D(3)}*****************************")
    b("masked_secret", "heslo: ******** (viz správce hesel)")
    b("masked_secret", f"BISS key: XXXX XXXX {H(4).upper()} — tam son hali uplink ekibinde")
    b("drm_key_id", f"Widevine KID for the Euro VOD package: {uuid()}")
    b("drm_key_id", f"PlayReady KeyId {uuid()} (bu sadece ID, anahtar lisans sunucusunda)")
    b("drm_key_id", f'default_KID="{uuid()}"  # from the MPD ContentProtection element')
    b(
        "pssh_box",
        f"pssh (widevine) from manifest: AAAAW3Bzc2gAAAAA7e+LqXnWSs6jyCfc1R0h7QAAADsIARIQ{R(B64, 40)}==",
    )
    b(
        "pssh_box",
        f"cenc:pssh v MPD: AAAANHBzc2gBAAAAEHfv7MCyTQKs4zweUuL7SwAAAAE{R(B64, 20)}AAAAAA==",
    )
    b("akamai_cp_code", f"Akamai CP code for live HLS: {D(6)}")
    b("akamai_cp_code", f"CP kodu {D(7)} - VOD trafiği bu kodda raporlanıyor")
    b(
        "akamai_cp_code",
        f"Property ID prp_{D(6)}, CP code {D(6)}, edge hostname live.tvnet.example.edgesuite.net",
    )
    b("cloudflare_zone_id", f"Cloudflare zone id (tvnet.example): {H(32)}")
    b("cloudflare_zone_id", f'account_id = "{H(32)}"\nzone_id = "{H(32)}"')
    b("cloudflare_zone_id", f"CF zone ID pro pražský web: {H(32)}")
    b(
        "aws_docs_example_key",
        "Per the AWS docs example: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY — format only",
    )
    b(
        "aws_docs_example_key",
        "README: aws_access_key_id = AKIAIOSFODNN7EXAMPLE (replace with your own)",
    )
    b(
        "aws_docs_example_key",
        "Dokümandaki örnek secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, gerçek değil",
    )
    b("aws_kms_key_id", f"S3 archive bucket encrypted with KMS key {uuid()}")
    b("aws_kms_key_id", f"kms key: arn:aws:kms:eu-central-1:{D(12)}:key/{uuid()}")
    b("aws_kms_key_id", f"SSE-KMS anahtar ID'si {uuid()} (rotation açık)")
    b("aws_arn", f"MediaLive role: arn:aws:iam::{D(12)}:role/MediaLiveAccessRole")
    b(
        "aws_arn",
        f"Secret is stored at arn:aws:secretsmanager:eu-west-1:{D(12)}:secret:prod/srt-passphrase-{R(ALNUM, 6)}",
    )
    b("aws_arn", f"MediaPackage kanál: arn:aws:mediapackage:eu-central-1:{D(12)}:channels/{H(32)}")
    b("git_commit_sha", f"fix for the subtitle drift is in {H(40)}")
    b("git_commit_sha", f"EPG builder prod'da şu commit: {H(7)} (tam hali {H(40)})")
    b("git_commit_sha", f"revert {H(40)} – rozbil to SCTE-35 markery")
    b(
        "container_image_digest",
        f"transcoder image pinned to ghcr.io/tvnet/ffmpeg-worker@sha256:{H(64)}",
    )
    b("container_image_digest", f"Digest: sha256:{H(64)}")
    b("container_image_digest", f"image: registry.tvnet.local/playout-api@sha256:{H(64)}")
    b(
        "ssh_public_key",
        f"add my pubkey to the uplink jump host: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{R(B64, 43)} kemal@mcr-ws07",
    )
    b(
        "ssh_public_key",
        f"authorized_keys satırı: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{R(B64, 60)} deploy@ci",
    )
    b(
        "ssh_public_key",
        f"Veřejný klíč pro SFTP ingest: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{R(B64, 43)} petr@praha",
    )
    b("key_fingerprint", f"host key fingerprint for the teleport box: SHA256:{R(B64, 43)}")
    b(
        "key_fingerprint",
        f"GPG key fingerprint (archive backups): {' '.join(H(4).upper() for _ in range(10))}",
    )
    b(
        "key_fingerprint",
        f"TLS cert SHA-256 parmak izi: {':'.join(H(2).upper() for _ in range(32))}",
    )
    b("stripe_publishable_key", f"OTT web checkout publishable key: pk_live_51{R(ALNUM, 96)}")
    b("stripe_publishable_key", f"STRIPE_PUBLISHABLE_KEY=pk_live_{R(ALNUM, 24)} (frontend, public)")
    b(
        "stripe_publishable_key",
        f"Stripe yayınlanabilir anahtar pk_live_{R(ALNUM, 24)} web app'e gömülü, sorun değil",
    )
    b("recaptcha_site_key", f"reCAPTCHA site key for the vote page: 6L{R(URLSAFE, 38)}")
    b("recaptcha_site_key", f'data-sitekey="6L{R(URLSAFE, 38)}"')
    b("recaptcha_site_key", f"hCaptcha sitekey pro soutěž: {uuid()}")
    b("vault_reference", "The SRT passphrase for the Dubai feed is in 1Password, vault 'MCR Ops'")
    b(
        "vault_reference",
        "YouTube stream key'leri Bitwarden'da 'Yayın/YouTube' klasöründe, buraya yazmayın",
    )
    b("vault_reference", "password: op://Broadcast/ob4-alarm/password")
    b("vault_reference", "كلمة المرور موجودة في Keeper تحت مجلد Uplink")
    b("vault_reference", "heslo k Riedelu je v trezoru Vault na cestě secret/intercom/riedel")
    b(
        "password_policy",
        "Camera admin passwords must be at least 14 chars and rotated after every OB job",
    )
    b("password_policy", "Kapı kodları her ayın 1'inde değişir; kod 4 haneli değil 6 haneli olacak")
    b("password_policy", "Heslo musí mít 12+ znaků, velké písmeno a číslici; žádné 'Studio2024'")
    b("password_policy", "سياسة: تغيير رموز الأبواب كل 30 يوما ولا ترسلها عبر واتساب")
    b(
        "revoked_token",
        f"revoked the leaked slack bot token xoxb-{D(4)}... this morning, new one is in Vault",
    )
    b("revoked_token", f"Eski GitHub token (ghp_{R(ALNUM, 4)}…) iptal edildi, artık çalışmıyor")
    b(
        "revoked_token",
        f"Old Twitch key starting live_{D(4)} was reset after the stream hijack, ignore it",
    )
    b("env_var_reference", "rtmp://a.rtmp.youtube.com/live2/${YT_STREAM_KEY}")
    b(
        "env_var_reference",
        'export DATABASE_URL="postgres://epg:${PGPASSWORD}@db-epg.internal:5432/epg"',
    )
    b(
        "env_var_reference",
        "srt://10.0.8.5:9000?passphrase=$SRT_PASS — değişken Jenkins credentials'tan geliyor",
    )
    b("env_var_reference", "api_key: {{ secrets.DATADOG_API_KEY }}")
    b("k8s_secret_ref", "valueFrom:\n  secretKeyRef: {name: stripe-live, key: secret_key}")
    b(
        "k8s_secret_ref",
        "kubectl create secret generic srt-pass --from-file=./pass.txt  (the file is on the jump host, not in git)",
    )
    b("k8s_secret_ref", "envFrom: - secretRef: name: playout-api-secrets")
    b("error_code", f"Encoder threw ERR_{D(4)} again at 21:04, stream dropped for 3s")
    b("error_code", f"Harmonic alarm code {D(5)}: input loss on SDI 2")
    b("error_code", f"Chyba přehrávače 232{D(3)} (Widevine licence request failed)")
    b("error_code", f"رمز الخطأ {D(4)} في جهاز الـ IRD بعد تغيير الترددات")
    b("product_code", f"Ordered 4x Sony PXW-Z{D(3)} batteries, product code BP-U{D(2)}")
    b("product_code", f"Yedek parça kodu: AJA-KONA-{D(1)}-{R(UP, 2)}{D(3)}")
    b("product_code", f"Blackmagic ATEM Constellation, katalogové č. SWATEMCONSTEL{D(2)}")
    b("booking_reference", f"OB crew flights to Baku, PNR {R(UP + DIG, 6)}")
    b("booking_reference", f"Otel rezervasyon kodu {D(10)} (Prag ekibi, 3 gece)")
    b(
        "booking_reference",
        f"Satellite capacity booking ref EUT-OU-{D(6)} for Saturday 18:00-20:30 UTC",
    )
    b("booking_reference", f"رقم حجز الفندق لطاقم دبي: {R(UP, 2)}{D(7)}")
    b("invoice_number", f"Invoice INV-{D(4)}-{D(5)} from the teleport for September uplink time")
    b("invoice_number", f"Fatura no: TVN{D(9)}, rights agency, vade 30 gün")
    b("invoice_number", f"Faktura č. {D(10)} za pronájem přenosového vozu")
    b("ticket_id", f"see MCR-{D(4)} for the lip-sync issue on HD2")
    b("ticket_id", f"Jira: PLAYOUT-{D(3)} (SCTE-35 reklam işaretleri kayıyor)")
    b("ticket_id", f"ServiceNow INC{D(7)} – padá intercom v režii 2")
    b("serial_number", f"Camera body S/N {D(7)} sent for repair, loaner is S/N {D(7)}")
    b("serial_number", f"LiveU seri no: LU{D(3)}-{R(UP + DIG, 8)}")
    b("serial_number", f"Výrobní číslo kodéru: {R(UP, 2)}{D(8)}")
    b(
        "mac_address",
        f"Intercom beltpack MAC {':'.join(H(2) for _ in range(6))} needs a DHCP reservation",
    )
    b("mac_address", f"PTZ kamera MAC adresi {'-'.join(H(2).upper() for _ in range(6))}")
    b(
        "multicast_address",
        f"HD1 multicast: 239.{rng.randrange(1, 255)}.{rng.randrange(1, 255)}.{rng.randrange(1, 255)}:5000, SSM source 10.10.{rng.randrange(1, 255)}.{rng.randrange(1, 255)}",
    )
    b(
        "multicast_address",
        f"ST 2110 video flow 239.{rng.randrange(1, 255)}.{rng.randrange(1, 255)}.{rng.randrange(1, 255)} port 20000, audio .{rng.randrange(1, 255)}",
    )
    b(
        "satellite_carrier_params",
        f"Türksat 42E, DL {D(5)} MHz V, SR {D(4)} kS/s, FEC 3/4, BISS-1 (key in Keeper)",
    )
    b(
        "satellite_carrier_params",
        f"Uplink: {D(5)} MHz H, DVB-S2 8PSK, roll-off 0.20, symbol rate {D(4)}",
    )
    b("satellite_carrier_params", f"التردد {D(5)} عمودي، معدل الترميز {D(5)}، FEC 5/6")
    b(
        "rtmp_ingest_url",
        "YouTube primary ingest: rtmp://a.rtmp.youtube.com/live2 (key goes in the separate field)",
    )
    b("rtmp_ingest_url", "Twitch ingest en yakın sunucu: rtmp://ist.contribute.live-video.net/app/")
    b("rtmp_ingest_url", "FB server URL: rtmps://live-api-s.facebook.com:443/rtmp/")
    b(
        "srt_url_no_passphrase",
        f"srt://203.0.113.{rng.randrange(2, 250)}:{D(4)}?mode=listener&latency=300 (unencrypted test, bars and tone only)",
    )
    b(
        "srt_url_no_passphrase",
        f"SRT streamid=#!::r=live/haber_{D(3)},m=publish — passphrase ayrı geliyor",
    )
    b("story_id", f"iNews story id {uuid()} is locked by the night editor")
    b("story_id", f"ENPS MOS objID {R(UP + DIG, 12)} – rozpadlý odkaz na grafiku")
    b("story_id", f"Haber kodu NWS-{D(8)} (deprem özel)")
    b(
        "eidr_id",
        f"EIDR for the licensed documentary: 10.5240/{H(4).upper()}-{H(4).upper()}-{H(4).upper()}-{H(4).upper()}-{H(4).upper()}-{R(UP + DIG, 1)}",
    )
    b(
        "eidr_id",
        f"ISAN {H(4).upper()}-{H(4).upper()}-{H(4).upper()}-{H(4).upper()}-{R(UP, 1)} dizinin 12. bölümü",
    )
    b(
        "house_media_id",
        f"Playout house ID HM{D(7)} missing from the server, re-ingest from archive",
    )
    b("house_media_id", f"Reklam spotu kodu SPT-{D(6)}, 30 sn, 20:14 kırılımında")
    b("house_media_id", f"Materiál ID {D(8)}_{R(UP, 3)} chybí v MAM")
    b(
        "timecode",
        f"clip in at {rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}:{rng.randrange(0, 60):02d}:{rng.randrange(0, 25):02d}, out 30s later",
    )
    b(
        "timecode",
        f"TC başlangıç 10:00:{rng.randrange(0, 60):02d}:{rng.randrange(0, 25):02d}, ses 2 kare kayık",
    )
    b("twilio_account_sid", f"Twilio account SID AC{H(32)} (token is in Vault, not here)")
    b("twilio_account_sid", f"SMS oylama Messaging Service SID: MG{H(32)}")
    b("slack_channel_id", f"post the rundown bot to channel C{R(UP + DIG, 10)} (#mcr-ops)")
    b("slack_channel_id", f"Slack user id of the duty engineer: U{R(UP + DIG, 10)}")
    b("slack_channel_id", f"Slack workspace T{R(UP + DIG, 10)}, kanal #haber-masasi")
    b("file_checksum", f"md5 of the delivery master: {H(32)}")
    b("file_checksum", f"SHA-256 MXF dosyası: {H(64)} — yayın öncesi doğrulandı")
    b("file_checksum", f"kontrolní součet {H(40)} (sha1) sedí s tím od distributora")
    b("package_integrity_hash", f'"integrity": "sha512-{R(B64, 86)}=="')
    b("package_integrity_hash", f"hls.js lock entry integrity sha512-{R(B64, 86)}==")
    b("ga_measurement_id", f"GA4 measurement id for the OTT web: G-{R(UP + DIG, 10)}")
    b("ga_measurement_id", f"GTM container GTM-{R(UP + DIG, 7)} (haber sitesi)")
    b("facebook_app_id", f"Meta App ID for the share button: {D(15)}")
    b("facebook_app_id", f'fb:app_id content="{D(16)}"')
    b("phone_number", f"Teleport NOC 24/7: +90 212 {D(3)} {D(2)} {D(2)}")
    b("phone_number", f"Pohotovost satelitní techniky: +420 {D(3)} {D(3)} {D(3)}")
    b("phone_number", f"هاتف غرفة التحكم في دبي: +971 4 {D(3)} {D(4)}")
    b(
        "code_changed_notice",
        "Studio 3 door code changed today, ask security at the front desk for the new one",
    )
    b("code_changed_notice", "OB-2 alarm kodu değişti, yeni kodu Serkan'dan telefonla öğrenin")
    b("code_changed_notice", "Kód od trezoru se změnil – nový dostanete osobně od vedoucího směny")
    b("intercom_panel_id", f"Riedel panel ID {D(3)} (director) talks to partyline PL{D(2)}")
    b("intercom_panel_id", f"Clear-Com FreeSpeak beltpack #{D(2)}, rol: Kamera {D(1)}")
    b("intercom_panel_id", f"Intercom port {D(2)} je přiřazen Reji, key {D(1)} = IFB moderátor")
    b("studio_room_number", f"Rehearsal moved to Studio {D(1)}, room B-{D(3)}")
    b("studio_room_number", f"Kurgu odası {D(3)}, 4. kat")
    b(
        "wifi_ssid_only",
        "Guest Wi-Fi SSID is TVNET-GUEST; the password is printed at reception, not here",
    )
    b("wifi_ssid_only", "OB aracı wifi adı OBVAN-3, şifreyi teknik şeften isteyin")
    b("wifi_ssid_only", f"síť PRODUKCE-5G, kanál {rng.choice(['36', '44', '149'])}, WPA3")
    b(
        "stripe_test_card",
        "For PPV checkout QA use the Stripe test card 4242 4242 4242 4242, any CVC, any future date",
    )
    b(
        "stripe_test_card",
        "Test kartı 4000 0027 6000 3184 (3DS isteyen) ile abonelik akışını deneyin",
    )
    b(
        "db_url_without_password",
        "DATABASE_URL=postgres://epg@db-epg.internal:5432/epg (auth via IAM)",
    )
    b(
        "db_url_without_password",
        f"mongodb+srv://cluster0.{R(LOW + DIG, 5)}.mongodb.net/catalog?authMechanism=MONGODB-AWS",
    )
    b("db_url_without_password", "psql -h pg-archive -U archiver mam   # heslo z ~/.pgpass")
    b("password_placeholder", "docker login registry.tvnet.local -u ci-bot -p <password>")
    b("password_placeholder", "ENPS login: user <your AD username>, password = AD parolanız")
    b("password_placeholder", "admin / ******** (factory default changed at commissioning)")
    b(
        "password_placeholder",
        "camera web: user admin, password: CHANGE_ME_ON_INSTALL in the template",
    )
    b("request_id", f"CDN returned 403, x-request-id {uuid()}")
    b("request_id", f"Akamai reference #{D(2)}.{H(8)}.{D(10)}.{H(8)}")
    b("request_id", f"trace_id={H(32)} span_id={H(16)}")
    b("ci_job_number", f"Build #{D(4)} of epg-builder failed at the lint step")
    b("ci_job_number", f"GitLab pipeline {D(9)} başarısız, job {D(10)}")
    b(
        "iban_on_invoice",
        f"Rights agency bank: IBAN TR{D(2)} {D(4)} {D(4)} {D(4)} {D(4)} {D(4)} {D(2)} (printed on their invoice)",
    )
    b("iban_on_invoice", f"Platba za satelit: CZ{D(2)} {D(4)} {D(4)} {D(4)} {D(4)} {D(4)}")
    b("vehicle_plate", f"OB van plate 34 {R(UP, 3)} {D(3)} is parked at gate 4")
    b("vehicle_plate", f"SPZ přenosového vozu {D(1)}A{D(1)} {D(4)}")
    b("software_version", f"Upgrade the TVU receivers to {D(1)}.{D(1)}.{D(4)} before the match")
    b("software_version", f"Harmonic XOS v{D(1)}.{D(2)}.{D(1)} build {D(5)}")
    b("etag_header", f'ETag: "{H(32)}" on the master playlist, CDN cache looks fine')
    b("etag_header", f'If-None-Match: W/"{H(8)}-{H(16)}"')
    s("youtube_stream_key", f"yt backup key for the Arabic service: {yt()}")
    s(
        "biss_key",
        f"Kapalı devre maç sinyali — BISS anahtarı {H(4).upper()}-{H(4).upper()}-{H(4).upper()}, IRD 3'e gir",
    )
    s("studio_door_code", f"door code news floor = {D(4)} (same as lift override)")
    s("wifi_password", f"OB truck hotspot: ssid OB4-LTE / key {R(LOW + DIG, 12)}")
    s("intercom_admin_password", f"Riedel Bolero nastavení, admin heslo {pw()}")
    s("camera_admin_password", f"كلمة مرور لوحة تحكم الكاميرات PTZ: {pw()}")
    s("playout_server_password", f"Přehrávací server Imagine Versio – Administrator / {pw()}")
    s(
        "social_media_password",
        f"YouTube brand account (spor) Google login: spor.kanal@tvnet.example / {pw()}",
    )
    s(
        "slack_webhook_url",
        f"Haber masası otomasyonu için webhook https://hooks.slack.com/services/T{R(UP + DIG, 10)}/B{R(UP + DIG, 10)}/{R(ALNUM, 24)} , kimseyle paylaşma",
    )
    s("stripe_secret_key", f"Stripe live secret pro PPV zápasy: sk_live_51{R(ALNUM, 96)}")
    s(
        "postgres_connection_string",
        f"رابط قاعدة بيانات الجدولة: postgres://sched:{pw()}@10.30.1.5:5432/schedule",
    )
    s("ob_van_alarm_code", f"OB van 1 arming code: {D(4)}, panel behind the driver seat")
    b("youtube_channel_id", f"معرف قناة يوتيوب العربية: UC{R(URLSAFE, 22)}")
    b("stream_key_placeholder", "مفتاح البث: ضع المفتاح هنا <STREAM_KEY> ولا تحفظه في الملاحظات")
    b(
        "masked_secret",
        f"AWS secret for media-convert: ****{R(ALNUM, 4)} (rotated, full value in Secrets Manager)",
    )
    b("drm_key_id", f"KID (hex) {H(32)} — key ID only, content key comes from the KMS")
    b("akamai_cp_code", f"رمز CP في أكاماي للبث العربي: {D(6)}")
    b("cloudflare_zone_id", f"Cloudflare Stream video UID {H(32)} (public embed)")
    b("aws_kms_key_id", f"KMS alias/tv-archive -> key id mrk-{H(32)}")
    b("git_commit_sha", f"playout-api deployed at {H(40)}, rollback target {H(40)}")
    b("container_image_digest", f"Dockerfile FROM ffmpeg:6.1@sha256:{H(64)}")
    b(
        "ssh_public_key",
        f"مفتاح SSH العام لجهاز الرفع: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{R(B64, 43)} uplink@dxb",
    )
    b("key_fingerprint", f"SSH parmak izi doğru mu kontrol et: SHA256:{R(B64, 43)} (teleport-gw)")
    b("stripe_publishable_key", f"Publishable key (veřejný) pro web: pk_live_{R(ALNUM, 24)}")
    b(
        "recaptcha_site_key",
        f"reCAPTCHA v3 site anahtarı: 6L{R(URLSAFE, 38)} (secret key backend'de, Vault'ta)",
    )
    b(
        "vault_reference",
        "The BISS key for Saturday's match is in Keeper > Uplink > BISS, ask Kemal for access",
    )
    b(
        "password_policy",
        "PINs for SIM cards in LiveU units: 4 digits, never 0000 or 1234, logged in the asset sheet (not the PIN itself)",
    )
    b(
        "revoked_token",
        f"The Discord webhook ending /{R(URLSAFE, 6)} was deleted from the server after spam, replaced",
    )
    b("revoked_token", f"Stripe rk_live_…{R(ALNUM, 4)} zrušen 3.12., nahrazen novým v Doppleru")
    b("env_var_reference", "يتم قراءة كلمة المرور من المتغير $INTERCOM_ADMIN_PASS في السكربت")
    b("k8s_secret_ref", "helm upgrade epg ./chart --set-file secrets.existingSecret=epg-db-creds")
    b("error_code", f"LiveU error {D(3)}: modem {D(1)} no SIM")
    b("product_code", f"رمز المنتج للميكروفونات اللاسلكية: EW-D {R(UP, 3)}-{D(3)}")
    b("booking_reference", f"Studio hire booking #{D(6)} for the election night rehearsal")
    b("invoice_number", f"رقم الفاتورة {D(8)} لخدمة القمر الصناعي لشهر نوفمبر")
    b("ticket_id", f"رقم التذكرة OPS-{D(4)}: انقطاع الصوت في الاستوديو 2")
    b("serial_number", f"Sony FX9 seri numarası {D(7)}, sigorta formuna yazıldı")
    b(
        "satellite_carrier_params",
        f"Downlink Astra 23.5E, {D(5)} MHz, SR {D(5)}, DVB-S2 QPSK, BISS vypnutý (FTA)",
    )
    b(
        "rtmp_ingest_url",
        "rtmp://origin-ist.tvnet.local/live  + stream name haber_hd (auth via IP allowlist)",
    )
    b("story_id", f"رقم القصة في نظام الأخبار: {uuid()}")
    b(
        "timecode",
        f"SCTE-35 splice at {rng.randrange(0, 24):02d}:{rng.randrange(0, 60):02d}:{rng.randrange(0, 60):02d};{rng.randrange(0, 30):02d}, duration 120s, event id {D(5)}",
    )
    b("file_checksum", f"xxhash64 of the camera card offload: {H(16)}")
    b("code_changed_notice", "تم تغيير رمز بوابة موقف السيارات، اطلبوا الرمز الجديد من الأمن")
    b("phone_number", f"Transfer desk hotline +90 850 {D(3)} {D(2)} {D(2)} (dahili {D(4)})")
    b("request_id", f"Widevine license request failed, session id {H(32)}")
    b("software_version", f"Riedel Director v{D(1)}.{D(1)}.{D(1)}, firmware panelů {D(1)}.{D(2)}")
    return rows


def main():
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 99: esports tournament organiser.

Brief: notes kept by the staff and AI coding agents of an esports tournament
organiser: game servers and anti-cheat, match admin tools, streaming and
overlays, Discord bots, ticketing, sponsor integrations and player payouts.
Rows are prose notes, handover lines, chat messages, commands, .env lines,
YAML, JSON, URLs, tables and log lines, in English, Persian and Indonesian.
Secret rows hold live credentials; benign rows hold look-alikes a careful
reader would keep (ids, hashes, public keys, masked or revoked values...).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_99.py [out.jsonl]

Kinds, secret: steam_web_api_key, steam_gslt, rcon_password, discord_bot_token,
discord_webhook_url, twitch_client_secret, twitch_oauth_token, twitch_stream_key,
youtube_stream_key, obs_websocket_password, stripe_secret_key, stripe_webhook_secret,
paypal_client_secret, midtrans_server_key, xendit_secret_key, aws_secret_access_key,
github_pat, gitlab_pat, slack_webhook_url, slack_bot_token, postgres_url, redis_url,
mongodb_uri, rsa_private_key, openssh_private_key, gcp_service_account_key,
faceit_server_api_key, riot_api_key, pterodactyl_api_key, sendgrid_api_key,
twilio_auth_token, telegram_bot_token, openai_api_key, anthropic_api_key,
jwt_signing_secret, streamelements_jwt, venue_wifi_password,
network_device_admin_password, door_access_code, shared_account_password,
recovery_codes, challonge_api_key, startgg_token, vault_token, npm_token,
docker_pat, cloudflare_api_token, smtp_password, anticheat_license_secret,
payout_api_token, tournament_admin_token.

Kinds, benign: steam_id64, discord_snowflake, discord_public_key,
stripe_publishable_key, recaptcha_site_key, git_commit_sha, sha256_digest,
match_uuid, server_address, ticket_order_ref, invoice_number, masked_secret,
placeholder, env_var_reference, vault_path, aws_documented_example_key,
revoked_key, ssh_public_key, certificate_pem, pgp_fingerprint,
game_build_version, twitch_client_id, youtube_video_id, password_policy,
anticheat_ban_case, hardware_serial, mac_address, crypto_wallet_address,
aws_arn, docker_image_digest, npm_integrity, promo_code, bracket_slug,
paypal_transaction_id, midtrans_client_key, xendit_public_key, stripe_price_id,
ga_measurement_id, discord_invite, masked_card, sheba_iban,
virtual_account_number, overlay_color_hex, workshop_map_id, trace_id,
k8s_secret_ref, stripe_test_card, bcrypt_hash, twitch_broadcaster_id,
jwks_kid, ip_allowlist_cidr, api_key_id.
"""

import base64
import json
import random
import string
import sys

SEED = 9999

ALNUM = string.ascii_letters + string.digits
LOWNUM = string.ascii_lowercase + string.digits
UPNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def r(alph: str, n: int) -> str:
        return "".join(rng.choice(alph) for _ in range(n))

    def hx(n: int, upper: bool = False) -> str:
        v = r(HEX, n)
        return v.upper() if upper else v

    def digits(n: int) -> str:
        return str(rng.randint(1, 9)) + r(string.digits, n - 1)

    def uuid() -> str:
        h = hx(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    def snowflake() -> str:
        return str(rng.randint(900000000000000000, 1319999999999999999))

    def b64u(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    words = [
        "mirage",
        "inferno",
        "nuke",
        "ancient",
        "clutch",
        "headshot",
        "garuda",
        "simurgh",
        "rostam",
        "komodo",
        "ace",
        "rush",
        "eco",
        "overtime",
        "bomba",
        "jakarta",
        "tehran",
        "bandung",
        "shiraz",
        "vandal",
        "phantom",
        "dragon",
        "finals",
        "major",
    ]
    syms = "!@#$%&*?_."

    def human_pw() -> str:
        w = rng.choice(words)
        w2 = rng.choice(words)
        style = rng.randint(0, 5)
        if style == 0:
            return f"{w.capitalize()}{rng.choice(syms)}{rng.randint(2019, 2027)}"
        if style == 1:
            return f"{w}{rng.randint(10, 99)}{w2.capitalize()}{rng.choice(syms)}"
        if style == 2:
            return f"{w.upper()}_{w2}_{rng.randint(100, 999)}"
        if style == 3:
            leet = w.replace("a", "4").replace("e", "3").replace("o", "0").replace("i", "1")
            return f"{leet.capitalize()}{rng.choice(syms)}{rng.randint(1, 99)}"
        if style == 4:
            return f"{w}-{w2}-{rng.choice(words)}-{rng.randint(1, 9)}"
        return f"{w.capitalize()}{w2.capitalize()}{rng.randint(1000, 9999)}{rng.choice(syms)}"

    def add(label: str, kind: str, text: str, value: str) -> None:
        assert value in text, (kind, value, text)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def S(kind: str, text: str, value: str) -> None:
        add("secret", kind, text, value)

    def B(kind: str, text: str, value: str) -> None:
        add("benign", kind, text, value)

    # ------------------------------------------------------------------ secrets
    k = "steam_web_api_key"
    v = hx(32, True)
    S(k, f"STEAM_WEB_API_KEY={v}", v)
    v = hx(32, True)
    S(
        k,
        f"Steam Web API key for the vanity-URL resolver in the check-in bot: {v} (registered to the org account, domain esports-arena.gg)",
        v,
    )
    v = hx(32, True)
    S(
        k,
        f"curl 'https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key={v}&steamids=76561198043219876'",
        v,
    )
    v = hx(32, True)
    S(k, f"کلید Steam Web API برای ربات ثبت‌نام: {v} — لطفاً جایی منتشرش نکنید", v)

    k = "steam_gslt"
    v = hx(32, True)
    S(k, f"+sv_setsteamaccount {v} +game_type 0 +game_mode 1 +map de_mirage", v)
    v = hx(32, True)
    S(k, f"handover: GSLT for cs2-lan-07 is {v}, app id 730, memo 'quarterfinal stage B'", v)
    v = hx(32, True)
    S(k, f'  environment:\n    SRCDS_TOKEN: "{v}"\n    CS2_SERVERNAME: "Nusantara Cup #3"', v)
    v = hx(32, True)
    S(
        k,
        f"Token GSLT baru untuk server playoff: {v} — yang lama kena ban karena dipakai di server publik",
        v,
    )

    k = "rcon_password"
    v = human_pw()
    S(k, f'rcon_password "{v}"', v)
    v = human_pw()
    S(
        k,
        f"RCON for all stage-A servers this weekend: {v} — admins only, don't paste in #match-chat",
        v,
    )
    v = human_pw()
    S(k, f"rcon-cli --host 10.20.4.17 --port 27015 --password '{v}' 'mp_pause_match'", v)
    v = human_pw()
    S(k, f"رمز RCON سرورهای مرحله گروهی عوض شد، جدیدش: {v}", v)
    v = human_pw()
    S(k, f'{{"server": "val-priv-3", "rcon": {{"port": 25575, "password": "{v}"}}}}', v)

    k = "discord_bot_token"

    def dtoken() -> str:
        uid = snowflake()
        return f"{b64u(uid.encode())}.{r(URLSAFE, 6)}.{r(URLSAFE, 38)}"

    v = dtoken()
    S(k, f"DISCORD_BOT_TOKEN={v}", v)
    v = dtoken()
    S(k, f"Check-in bot (RefBot#4471) token, reset after the leak in March: {v}", v)
    v = dtoken()
    S(k, f'client.run("{v}")  # TODO move to env before we push', v)
    v = dtoken()
    S(k, f"Token bot Discord buat pengumuman jadwal: {v}", v)
    v = dtoken()
    S(k, f"discord:\n  token: {v}\n  guild_id: 1021458830467215390", v)

    k = "discord_webhook_url"

    def dhook() -> str:
        return f"https://discord.com/api/webhooks/{snowflake()}/{r(URLSAFE, 68)}"

    v = dhook()
    S(k, f"MATCH_RESULTS_WEBHOOK={v}", v)
    v = dhook()
    S(k, f"Anti-cheat alerts post to #ac-flags via {v}", v)
    v = dhook()
    S(
        k,
        f"curl -H 'Content-Type: application/json' -d '{{\"content\":\"Server 4 crashed\"}}' {v}",
        v,
    )
    v = dhook()
    S(k, f"وبهوک کانال نتایج: {v}", v)

    k = "twitch_client_secret"
    v = r(LOWNUM, 30)
    S(k, f"TWITCH_CLIENT_SECRET={v}", v)
    v = r(LOWNUM, 30)
    S(k, f"Twitch app 'arena-overlay' client secret (dev console → Manage): {v}", v)
    v = r(LOWNUM, 30)
    S(k, f"twitch:\n  client_id: gp762nuuoqcoxypju8c569th9wz7q5\n  client_secret: {v}", v)
    v = r(LOWNUM, 30)
    S(k, f"Secret aplikasi Twitch untuk predictions overlay: {v}", v)

    k = "twitch_oauth_token"
    v = r(LOWNUM, 30)
    S(k, f"Chat bot login for irc.chat.twitch.tv: PASS oauth:{v}", "oauth:" + v)
    v = r(LOWNUM, 30)
    S(
        k,
        f"curl -H 'Authorization: Bearer {v}' -H 'Client-Id: gp762nuuoqcoxypju8c569th9wz7q5' https://api.twitch.tv/helix/predictions",
        v,
    )
    v = r(LOWNUM, 30)
    S(k, f"TWITCH_BOT_OAUTH=oauth:{v}", "oauth:" + v)
    v = r(LOWNUM, 30)
    S(k, f"توکن کاربر برای ساخت poll در کانال اصلی (scope channel:manage:polls): {v}", v)

    k = "twitch_stream_key"
    v = f"live_{digits(9)}_{r(ALNUM, 30)}"
    S(k, f"Main channel stream key (OBS → Settings → Stream): {v}", v)
    v = f"live_{digits(9)}_{r(ALNUM, 30)}"
    S(k, f"rtmp://sin.contribute.live-video.net/app/{v}", v)
    v = f"live_{digits(9)}_{r(ALNUM, 30)}"
    S(k, f"Stream key Twitch channel Indonesia: {v} — jangan di-screenshot pas share layar", v)
    v = f"live_{digits(9)}_{r(ALNUM, 30)}"
    S(k, f"| channel | key |\n|---|---|\n| arena_b | {v} |", v)

    k = "youtube_stream_key"

    def ytkey() -> str:
        return "-".join(r(LOWNUM, 4) for _ in range(5))

    v = ytkey()
    S(k, f"YouTube stream key for the Persian cast: {v}", v)
    v = ytkey()
    S(k, f"ffmpeg -re -i program.ts -c copy -f flv rtmp://a.rtmp.youtube.com/live2/{v}", v)
    v = ytkey()
    S(k, f"kunci streaming YouTube (backup ingest): {v}", v)
    v = ytkey()
    S(k, f"کلید پخش یوتیوب برای استریم فینال: {v}", v)

    k = "obs_websocket_password"
    v = r(ALNUM, 16)
    S(k, f"OBS websocket on the caster PC: ws://192.168.10.21:4455 password {v}", v)
    v = r(ALNUM, 16)
    S(k, f"obs = obsws.ReqClient(host='10.0.3.5', port=4455, password='{v}')", v)
    v = human_pw()
    S(k, f"Password OBS WebSocket di PC produksi: {v}", v)
    v = r(ALNUM, 16)
    S(k, f"OBS_WS_PASSWORD={v}", v)

    k = "stripe_secret_key"
    v = "sk_live_51" + r(ALNUM, 97)
    S(k, f"STRIPE_SECRET_KEY={v}", v)
    v = "rk_live_51" + r(ALNUM, 97)
    S(k, f"Restricted Stripe key for the ticket refunds script (refunds:write only): {v}", v)
    v = "sk_live_51" + r(ALNUM, 97)
    S(k, f'stripe.api_key = "{v}"', v)
    v = "sk_live_" + r(ALNUM, 24)
    S(k, f"old ticketing box still uses the legacy key {v}, rotate it when we migrate", v)

    k = "stripe_webhook_secret"
    v = "whsec_" + r(ALNUM, 32)
    S(k, f"STRIPE_WEBHOOK_SECRET={v}", v)
    v = "whsec_" + r(ALNUM, 32)
    S(k, f"Signing secret for endpoint https://tix.esports-arena.gg/hooks/stripe: {v}", v)
    v = "whsec_" + r(ALNUM, 32)
    S(k, f'event = stripe.Webhook.construct_event(payload, sig_header, "{v}")', v)
    v = "whsec_" + r(ALNUM, 32)
    S(k, f"secret webhook Stripe untuk merch store: {v}", v)

    k = "paypal_client_secret"
    v = "E" + r(URLSAFE, 79)
    S(k, f"PAYPAL_CLIENT_SECRET={v}", v)
    v = "E" + r(URLSAFE, 79)
    S(k, f"Payouts app (live) — client id AbX3, secret {v}", v)
    v = "E" + r(URLSAFE, 79)
    S(k, f'paypal:\n  mode: live\n  client_secret: "{v}"', v)
    v = "E" + r(URLSAFE, 79)
    S(k, f"سکرت پی‌پال برای پرداخت جوایز بازیکنان خارجی: {v}", v)

    k = "midtrans_server_key"
    v = "Mid-server-" + r(URLSAFE, 24)
    S(k, f"MIDTRANS_SERVER_KEY={v}", v)
    v = "Mid-server-" + r(URLSAFE, 24)
    S(k, f"Server key Midtrans production buat tiket on-site: {v}", v)
    v = "Mid-server-" + r(URLSAFE, 24)
    S(k, f"snap = midtransclient.Snap(is_production=True, server_key='{v}')", v)
    v = "Mid-server-" + r(URLSAFE, 24)
    S(k, f"auth header is base64 of '{v}:' — the key itself must stay on the server", v)

    k = "xendit_secret_key"
    v = "xnd_production_" + r(ALNUM, 60)
    S(k, f"XENDIT_SECRET_KEY={v}", v)
    v = "xnd_production_" + r(ALNUM, 60)
    S(k, f"Kunci rahasia Xendit untuk disbursement hadiah pemain: {v}", v)
    v = "xnd_production_" + r(ALNUM, 60)
    S(k, f"curl https://api.xendit.co/disbursements -u {v}: -d amount=5000000", v)
    v = "xnd_production_" + r(ALNUM, 60)
    S(k, f"Payout service config → xendit.secret: {v}", v)

    k = "aws_secret_access_key"
    v = r(B64, 40)
    S(k, f"AWS_ACCESS_KEY_ID=AKIA{r(UPNUM, 16)}\nAWS_SECRET_ACCESS_KEY={v}", v)
    v = r(B64, 40)
    S(k, f"[vod-uploader]\naws_access_key_id = AKIA{r(UPNUM, 16)}\naws_secret_access_key = {v}", v)
    v = r(B64, 40)
    S(k, f"demo archive bucket creds (s3://arena-demos): secret key {v}", v)
    v = r(B64, 40)
    S(k, f"کلید مخفی AWS برای آپلود دموها: {v}", v)

    k = "github_pat"
    v = "ghp_" + r(ALNUM, 36)
    S(k, f"GH_TOKEN={v}", v)
    v = "github_pat_11" + r(UPNUM, 20) + "_" + r(ALNUM, 59)
    S(k, f"fine-grained PAT for the bracket-site deploy action: {v}", v)
    v = "ghp_" + r(ALNUM, 36)
    S(k, f"git clone https://{v}@github.com/arena-ops/match-admin.git", v)
    v = "ghp_" + r(ALNUM, 36)
    S(k, f"Token GitHub punya bot rilis overlay: {v}", v)

    k = "gitlab_pat"
    v = "glpat-" + r(URLSAFE, 20)
    S(k, f"GITLAB_TOKEN={v}", v)
    v = "glpat-" + r(URLSAFE, 20)
    S(k, f"Anti-cheat plugin repo on the self-hosted GitLab, read_repository token: {v}", v)
    v = "glpat-" + r(URLSAFE, 20)
    S(k, f'curl --header "PRIVATE-TOKEN: {v}" https://git.arena.internal/api/v4/projects', v)

    k = "slack_webhook_url"

    def shook() -> str:
        return f"https://hooks.slack.com/services/T{r(UPNUM, 8)}/B{r(UPNUM, 10)}/{r(ALNUM, 24)}"

    v = shook()
    S(k, f"SPONSOR_ALERTS_SLACK={v}", v)
    v = shook()
    S(k, f"Sponsor ops Slack incoming webhook (#partner-deliverables): {v}", v)
    v = shook()
    S(k, f'requests.post("{v}", json={{"text": "Payout batch done"}})', v)
    v = shook()
    S(k, f"وبهوک اسلک برای هشدار سرورها: {v}", v)

    k = "slack_bot_token"
    v = f"xoxb-{digits(12)}-{digits(13)}-{r(ALNUM, 24)}"
    S(k, f"SLACK_BOT_TOKEN={v}", v)
    v = f"xoxb-{digits(12)}-{digits(13)}-{r(ALNUM, 24)}"
    S(k, f"Partner-portal Slack app bot token: {v}", v)
    v = f"xoxp-{digits(12)}-{digits(12)}-{digits(13)}-{hx(32)}"
    S(k, f"user token for posting as the ops lead (xoxp): {v}", v)

    k = "postgres_url"
    v = f"postgresql://matchadmin:{human_pw()}@db-prod-1.arena.internal:5432/tournaments"
    S(k, f"DATABASE_URL={v}", v)
    v = f"postgres://ticketing:{r(ALNUM, 20)}@10.12.0.8:5432/tix?sslmode=require"
    S(k, f"ticketing DB (read/write): {v}", v)
    v = f"postgresql://payouts_rw:{r(ALNUM, 18)}@payouts.cx8a1k3.ap-southeast-1.rds.amazonaws.com/payouts"
    S(k, f"psql \"{v}\" -c 'select count(*) from transfers'", v)
    v = f"postgres://stats:{human_pw()}@stats-db:5432/stats"
    S(k, f"رشته اتصال دیتابیس آمار: {v}", v)

    k = "redis_url"
    v = f"redis://:{r(ALNUM, 24)}@cache-1.arena.internal:6379/0"
    S(k, f"REDIS_URL={v}", v)
    v = f"rediss://default:{r(ALNUM, 32)}@overlay-cache.upstash.io:6379"
    S(k, f"overlay state cache: {v}", v)
    v = r(ALNUM, 24)
    S(k, f"redis-cli -h 10.20.1.4 -a {v} FLUSHDB", v)
    v = human_pw()
    S(k, f"requirepass {v}", v)

    k = "mongodb_uri"
    v = f"mongodb+srv://bracket:{r(ALNUM, 16)}@cluster0.ab1cd.mongodb.net/brackets?retryWrites=true"
    S(k, f"MONGO_URI={v}", v)
    v = f"mongodb://admin:{human_pw()}@10.30.0.5:27017/admin"
    S(k, f"Mongo lama buat data pendaftaran: {v}", v)
    v = f"mongodb+srv://ac_reports:{r(ALNUM, 16)}@ac.x9yz.mongodb.net/"
    S(k, f"anti-cheat reports store: `{v}`", v)

    k = "rsa_private_key"

    def rsa_block(header: str = "RSA PRIVATE KEY", lines: int = 8) -> str:
        body = "\n".join(r(B64, 64) for _ in range(lines))
        return f"-----BEGIN {header}-----\nMIIEpAIBAAKCAQEA{r(B64, 48)}\n{body}\n-----END {header}-----"

    v = rsa_block()
    S(k, f"TLS key for overlay.esports-arena.gg (pasted from the old box):\n{v}", v)
    v = rsa_block("PRIVATE KEY")
    S(k, f"apple wallet ticket signing key:\n{v}", v)
    v = rsa_block()
    S(k, f"کلید خصوصی سرور API مسابقات:\n{v}", v)

    k = "openssh_private_key"

    def ossh() -> str:
        body = "\n".join(r(B64, 70) for _ in range(6))
        return f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n{body}\n-----END OPENSSH PRIVATE KEY-----"

    v = ossh()
    S(k, f"deploy key for game-server fleet (ansible user):\n{v}", v)
    v = ossh()
    S(k, f"Kunci SSH untuk masuk ke server LAN di venue:\n{v}", v)
    v = ossh()
    S(k, f"cat > ~/.ssh/id_ed25519 <<'KEY'\n{v}\nKEY", v)

    k = "gcp_service_account_key"

    def gcpkey() -> str:
        body = "\\n".join(r(B64, 64) for _ in range(6))
        return f"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{r(B64, 32)}\\n{body}\\n-----END PRIVATE KEY-----\\n"

    v = gcpkey()
    S(
        k,
        f'{{"type": "service_account", "project_id": "arena-vod", "private_key_id": "{hx(40)}", "private_key": "{v}", "client_email": "clipper@arena-vod.iam.gserviceaccount.com"}}',
        v,
    )
    v = gcpkey()
    S(k, f'sheets sync SA (results spreadsheet) private_key: "{v}"', v)
    v = gcpkey()
    S(k, f'GOOGLE_PRIVATE_KEY="{v}"', v)

    k = "faceit_server_api_key"
    v = uuid()
    S(k, f"FACEIT_API_KEY={v}", v)
    v = uuid()
    S(k, f"FACEIT Data API server-side key (app 'arena-stats'): {v}", v)
    v = uuid()
    S(
        k,
        f"curl -H 'Authorization: Bearer {v}' https://open.faceit.com/data/v4/championships/1-7c2e1f0a",
        v,
    )
    v = uuid()
    S(k, f"کلید سمت سرور فیس‌ایت برای گرفتن آمار بازیکن‌ها: {v}", v)

    k = "riot_api_key"
    v = "RGAPI-" + uuid()
    S(k, f"RIOT_API_KEY={v}", v)
    v = "RGAPI-" + uuid()
    S(k, f"Production Riot key for Valorant match history (approved app): {v}", v)
    v = "RGAPI-" + uuid()
    S(k, f"headers = {{'X-Riot-Token': '{v}'}}", v)
    v = "RGAPI-" + uuid()
    S(k, f"Key Riot buat tarik data match VCT qualifier: {v}", v)

    k = "pterodactyl_api_key"
    v = "ptla_" + r(ALNUM, 43)
    S(k, f"PTERO_APP_KEY={v}", v)
    v = "ptlc_" + r(ALNUM, 43)
    S(k, f"client API key for restarting match servers from the admin panel: {v}", v)
    v = "ptlc_" + r(ALNUM, 43)
    S(
        k,
        f"curl -X POST -H 'Authorization: Bearer {v}' https://panel.arena.gg/api/client/servers/1a7ce997/power -d '{{\"signal\":\"restart\"}}'",
        v,
    )
    v = "ptla_" + r(ALNUM, 43)
    S(k, f"کلید اپلیکیشن پنل Pterodactyl: {v}", v)

    k = "sendgrid_api_key"
    v = f"SG.{r(URLSAFE, 22)}.{r(URLSAFE, 43)}"
    S(k, f"SENDGRID_API_KEY={v}", v)
    v = f"SG.{r(URLSAFE, 22)}.{r(URLSAFE, 43)}"
    S(k, f"ticket confirmation mails go through SendGrid, key {v}", v)
    v = f"SG.{r(URLSAFE, 22)}.{r(URLSAFE, 43)}"
    S(k, f"API key SendGrid buat email e-ticket: {v}", v)
    v = f"SG.{r(URLSAFE, 22)}.{r(URLSAFE, 43)}"
    S(k, f"sendgrid:\n  api_key: '{v}'\n  from: tickets@esports-arena.gg", v)

    k = "twilio_auth_token"
    v = hx(32)
    S(k, f"TWILIO_AUTH_TOKEN={v}", v)
    v = hx(32)
    S(k, f"Twilio (SMS check-in codes) — account AC{hx(32)}, auth token {v}", v)
    v = hx(32)
    S(k, f"client = Client('AC{hx(32)}', '{v}')", v)
    v = hx(32)
    S(k, f"توکن احراز هویت Twilio برای پیامک: {v}", v)

    k = "telegram_bot_token"

    def tg() -> str:
        return f"{digits(10)}:AA{r(URLSAFE, 33)}"

    v = tg()
    S(k, f"TELEGRAM_BOT_TOKEN={v}", v)
    v = tg()
    S(k, f"ربات تلگرام اطلاع‌رسانی مسابقات، توکن: {v}", v)
    v = tg()
    S(
        k,
        f"curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001234567890 -d text=ready",
        v,
    )
    v = tg()
    S(k, f"Bot Telegram grup wasit, token dari BotFather: {v}", v)

    k = "openai_api_key"
    v = "sk-proj-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74)
    S(k, f"OPENAI_API_KEY={v}", v)
    v = "sk-proj-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74)
    S(k, f"key for the match-recap summariser (caster notes): {v}", v)
    v = "sk-" + r(ALNUM, 48)
    S(k, f"old OpenAI key still in the highlight tagger: {v}", v)
    v = "sk-proj-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74)
    S(k, f"کلید OpenAI برای ترجمه خودکار زیرنویس: {v}", v)

    k = "anthropic_api_key"
    v = "sk-ant-api03-" + r(URLSAFE, 93) + "AA"
    S(k, f"ANTHROPIC_API_KEY={v}", v)
    v = "sk-ant-api03-" + r(URLSAFE, 93) + "AA"
    S(k, f"Claude key for the ruling-lookup Discord command: {v}", v)
    v = "sk-ant-api03-" + r(URLSAFE, 93) + "AA"
    S(k, f"Key Anthropic untuk bot ringkasan laporan wasit: {v}", v)

    k = "jwt_signing_secret"
    v = r(ALNUM, 48)
    S(k, f"JWT_SECRET={v}", v)
    v = hx(64)
    S(k, f"match-admin session tokens are HS256, signing secret {v}", v)
    v = r(B64, 44)
    S(k, f'auth:\n  jwt:\n    algorithm: HS256\n    secret: "{v}"', v)
    v = r(ALNUM, 40)
    S(k, f"Secret JWT untuk API bracket: {v}", v)

    k = "streamelements_jwt"

    def jwt() -> str:
        h = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        p = b64u(
            json.dumps(
                {
                    "citadel": hx(24),
                    "role": "owner",
                    "channel": hx(24),
                    "provider": "twitch",
                    "authToken": r(URLSAFE, 40),
                }
            ).encode()
        )
        return f"{h}.{p}.{r(URLSAFE, 43)}"

    v = jwt()
    S(k, f"SE_JWT={v}", v)
    v = jwt()
    S(k, f"StreamElements JWT for the tip alerts overlay: {v}", v)
    v = jwt()
    S(k, f"توکن JWT استریم‌المنتس برای اورلی دونیت: {v}", v)

    k = "venue_wifi_password"
    v = human_pw()
    S(k, f"Players' LAN Wi-Fi: SSID ARENA-PLAYERS, password {v}", v)
    v = human_pw()
    S(k, f"WiFi panitia: SSID PANITIA-5G, pass: {v}", v)
    v = human_pw()
    S(k, f"رمز وای‌فای بک‌استیج: {v}", v)
    v = human_pw()
    S(k, f"WIFI:T:WPA;S:Arena-Casters;P:{v};;", v)
    v = human_pw()
    S(k, f"press room wifi pw is {v} (changes each event day)", v)

    k = "network_device_admin_password"
    v = human_pw()
    S(k, f"Core switch (Cisco C9300, stage rack) enable secret: {v}", v)
    v = human_pw()
    S(k, f"MikroTik di booth: user admin / {v}", v)
    v = human_pw()
    S(k, f"UniFi controller login: ops@esports-arena.gg / {v}", v)
    v = human_pw()
    S(k, f"رمز ادمین فایروال سالن (FortiGate): {v}", v)
    v = r(ALNUM, 12)
    S(k, f"ATEM Mini / Blackmagic switcher web UI password: {v}", v)

    k = "door_access_code"
    v = str(rng.randint(1000, 9999))
    S(k, f"Server room door keypad code: {v}#", v)
    v = str(rng.randint(100000, 999999))
    S(k, f"Kode pintu ruang players (lantai 3): {v}", v)
    v = str(rng.randint(1000, 9999))
    S(k, f"کد قفل انبار تجهیزات: {v}", v)
    v = str(rng.randint(1000, 9999))
    S(k, f"lockbox for the production truck keys — combo {v}, reset after the event", v)

    k = "shared_account_password"
    v = human_pw()
    S(k, f"Shared start.gg TO account: to@esports-arena.gg / {v}", v)
    v = human_pw()
    S(k, f"Login bersama akun Instagram turnamen: arenaid_official, password {v}", v)
    v = human_pw()
    S(k, f"اکانت مشترک استیم برای اسپکتیت (GOTV): arena_observer01 رمز: {v}", v)
    v = human_pw()
    S(
        k,
        f"| service | user | password |\n|---|---|---|\n| Canva Team | design@esports-arena.gg | {v} |",
        v,
    )
    v = human_pw()
    S(k, f"observer PC windows login: observer / {v}", v)

    k = "recovery_codes"

    def gh_codes(n: int) -> str:
        return "\n".join(f"{hx(5)}-{hx(5)}" for _ in range(n))

    v = gh_codes(6)
    S(k, f"GitHub org owner recovery codes:\n{v}", v)
    v = " ".join(f"{r(LOWNUM, 4)}-{r(LOWNUM, 4)}" for _ in range(5))
    S(k, f"Discord backup codes for the server owner account: {v}", v)
    v = ", ".join(r(string.digits, 8) for _ in range(4))
    S(k, f"کدهای بازیابی جیمیل اکانت اصلی: {v}", v)
    v = " ".join(f"{r(string.digits, 4)} {r(string.digits, 4)}" for _ in range(3))
    S(k, f"Kode cadangan Google akun YouTube channel: {v}", v)

    k = "challonge_api_key"
    v = r(ALNUM, 40)
    S(k, f"CHALLONGE_API_KEY={v}", v)
    v = r(ALNUM, 40)
    S(k, f"Challonge v1 key for the community cups: {v}", v)
    v = r(ALNUM, 40)
    S(k, f"https://arena_org:{v}@api.challonge.com/v1/tournaments.json", v)
    v = r(ALNUM, 40)
    S(k, f"API key Challonge untuk turnamen komunitas Mobile Legends: {v}", v)

    k = "startgg_token"
    v = hx(32)
    S(k, f"STARTGG_TOKEN={v}", v)
    v = hx(32)
    S(k, f"start.gg developer token (seeding script): {v}", v)
    v = hx(32)
    S(k, f"curl -H 'Authorization: Bearer {v}' -d @query.json https://api.start.gg/gql/alpha", v)
    v = hx(32)
    S(k, f"توکن start.gg برای اسکریپت سیدینگ: {v}", v)

    k = "vault_token"
    v = "hvs." + r(URLSAFE, 91)
    S(k, f"VAULT_TOKEN={v}", v)
    v = "hvs." + r(URLSAFE, 91)
    S(k, f"root-ish token from the unseal session, revoke when done: {v}", v)
    v = "hvs." + r(URLSAFE, 24)
    S(k, f"vault login {v}", v)

    k = "npm_token"
    v = "npm_" + r(ALNUM, 36)
    S(k, f"//registry.npmjs.org/:_authToken={v}", v)
    v = "npm_" + r(ALNUM, 36)
    S(k, f"publish token for @arena/overlay-kit: {v}", v)
    v = "npm_" + r(ALNUM, 36)
    S(k, f"NPM_TOKEN={v}", v)

    k = "docker_pat"
    v = "dckr_pat_" + r(URLSAFE, 27)
    S(k, f"echo {v} | docker login -u arenaops --password-stdin", v)
    v = "dckr_pat_" + r(URLSAFE, 27)
    S(k, f"DOCKERHUB_TOKEN={v}", v)
    v = "dckr_pat_" + r(URLSAFE, 27)
    S(k, f"توکن داکرهاب برای پوش ایمیج سرور: {v}", v)

    k = "cloudflare_api_token"
    v = r(URLSAFE, 40)
    S(k, f"CLOUDFLARE_API_TOKEN={v}", v)
    v = r(URLSAFE, 40)
    S(k, f"CF token with DNS:Edit on esports-arena.gg (used by certbot): {v}", v)
    v = r(URLSAFE, 40)
    S(k, f"dns_cloudflare_api_token = {v}", v)
    v = r(URLSAFE, 40)
    S(k, f"Token Cloudflare untuk purge cache halaman jadwal: {v}", v)

    k = "smtp_password"
    v = r(string.ascii_lowercase, 16)
    S(
        k,
        f"SMTP for noreply@esports-arena.gg via Gmail, app password: {' '.join(v[i : i + 4] for i in range(0, 16, 4))}",
        " ".join(v[i : i + 4] for i in range(0, 16, 4)),
    )
    v = human_pw()
    S(k, f"SMTP_PASSWORD={v}", v)
    v = "BL" + r(UPNUM + "/+", 42)
    S(k, f"SES SMTP creds for ticket mails: user AKIA{r(UPNUM, 16)} pass {v}", v)
    v = human_pw()
    S(k, f"رمز SMTP ایمیل اطلاع‌رسانی: {v}", v)

    k = "anticheat_license_secret"
    v = "acx_sk_live_" + r(ALNUM, 40)
    S(k, f"ANTICHEAT_API_SECRET={v}", v)
    v = "acx_sk_live_" + r(ALNUM, 40)
    S(k, f"Anti-cheat vendor server secret (kernel client handshake, tenant arena-gg): {v}", v)
    v = r(UPNUM, 5) + "-" + r(UPNUM, 5) + "-" + r(UPNUM, 5) + "-" + r(UPNUM, 5) + "-" + r(UPNUM, 5)
    S(k, f"Lisensi anti-cheat untuk 40 PC LAN: {v}", v)
    v = "acx_sk_live_" + r(ALNUM, 40)
    S(k, f"کلید مخفی سرویس ضدتقلب: {v}", v)

    k = "payout_api_token"
    v = uuid()
    S(k, f"WISE_API_TOKEN={v}", v)
    v = uuid()
    S(k, f"Wise business API token (full access, prize payouts): {v}", v)
    v = uuid()
    S(k, f"curl -H 'Authorization: Bearer {v}' https://api.transferwise.com/v1/profiles", v)
    v = "tpl_live_" + r(ALNUM, 32)
    S(k, f"Tipalti payer API key for the creator payouts: {v}", v)

    k = "tournament_admin_token"
    v = "trn_sk_" + r(ALNUM, 40)
    S(k, f"TOURNEY_ADMIN_TOKEN={v}", v)
    v = "trn_sk_" + r(ALNUM, 40)
    S(k, f"admin token for the match-admin API (can overwrite scores!): {v}", v)
    v = "trn_sk_" + r(ALNUM, 40)
    S(
        k,
        f"curl -X PATCH -H 'X-Admin-Token: {v}' https://admin.arena.gg/api/matches/4412 -d '{{\"winner\":\"team_b\"}}'",
        v,
    )
    v = "trn_sk_" + r(ALNUM, 40)
    S(k, f"توکن ادمین پنل مسابقات برای داورها: {v}", v)

    # ------------------------------------------------------------------ benign
    k = "steam_id64"
    v = "7656119" + r(string.digits, 10)
    B(k, f"Player registered with SteamID64 {v} (team Garuda Muda)", v)
    v = "7656119" + r(string.digits, 10)
    B(k, f"ban appeal: steam id {v}, vac status clean per steamrep", v)
    v = "7656119" + r(string.digits, 10)
    B(k, f"شناسه استیم بازیکن: {v}", v)
    v = "7656119" + r(string.digits, 10)
    B(k, f'{{"player": "r4nger", "steam_id": "{v}", "role": "awp"}}', v)

    k = "discord_snowflake"
    v = snowflake()
    B(k, f"ANNOUNCEMENTS_CHANNEL_ID={v}", v)
    v = snowflake()
    B(k, f"guild id for the Indonesian community server: {v}", v)
    v = snowflake()
    B(k, f"Role ID 'Referee' = {v}, dipakai di command /dispute", v)
    v = snowflake()
    B(k, f"آیدی اپلیکیشن ربات دیسکورد: {v}", v)

    k = "discord_public_key"
    v = hx(64)
    B(k, f"DISCORD_PUBLIC_KEY={v}", v)
    v = hx(64)
    B(k, f"Interactions endpoint verifies Ed25519 signatures with the app public key {v}", v)
    v = hx(64)
    B(k, f"Public key aplikasi Discord (aman, bukan token): {v}", v)
    v = hx(64)
    B(k, f"discord:\n  application_id: 1120934582203948012\n  public_key: {v}", v)

    k = "stripe_publishable_key"
    v = "pk_live_51" + r(ALNUM, 97)
    B(k, f"STRIPE_PUBLISHABLE_KEY={v}", v)
    v = "pk_live_51" + r(ALNUM, 97)
    B(k, f"<script>const stripe = Stripe('{v}');</script>", v)
    v = "pk_live_51" + r(ALNUM, 97)
    B(k, f"Publishable key (ships in the ticket page bundle): {v}", v)
    v = "pk_live_51" + r(ALNUM, 97)
    B(k, f"کلید عمومی Stripe در فرانت صفحه خرید بلیت: {v}", v)

    k = "recaptcha_site_key"
    v = "6L" + r(URLSAFE, 38)
    B(k, f"RECAPTCHA_SITE_KEY={v}", v)
    v = "6L" + r(URLSAFE, 38)
    B(k, f'<div class="g-recaptcha" data-sitekey="{v}"></div>', v)
    v = "6L" + r(URLSAFE, 38)
    B(k, f"site key reCAPTCHA form pendaftaran tim: {v} (secret key ada di vault)", v)

    k = "git_commit_sha"
    v = hx(40)
    B(k, f"overlay rollback target: commit {v}", v)
    v = hx(40)
    B(k, f"Deployed match-admin {v} to prod at 14:02 WIB", v)
    v = hx(40)
    B(k, f"کامیت پایدار پلاگین ضدتقلب: {v}", v)
    v = hx(7)
    B(k, f"fix landed in {v} (pause-on-disconnect)", v)

    k = "sha256_digest"
    v = hx(64)
    B(k, f"sha256 of the grand final demo (gf_map3.dem): {v}", v)
    v = hx(64)
    B(k, f"{v}  arena-ac-client-2.14.0.exe", v)
    v = hx(64)
    B(k, f"Checksum SHA-256 config server turnamen: {v}", v)
    v = "sha256:" + hx(64)
    B(k, f"map pack integrity {v}", v)

    k = "match_uuid"
    v = uuid()
    B(k, f"Match {v}: team_a won 13-11 on Ancient", v)
    v = "1-" + uuid()
    B(k, f"FACEIT match room https://www.faceit.com/en/cs2/room/{v}", v)
    v = uuid()
    B(k, f"شناسه مسابقه برای اعتراض: {v}", v)
    v = uuid()
    B(k, f'{{"match_id": "{v}", "status": "disputed"}}', v)

    k = "server_address"
    v = f"103.{rng.randint(10, 250)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}:27015"
    B(k, f"connect {v}", v)
    v = f"cs2-sg-0{rng.randint(1, 9)}.arena.gg:27015"
    B(k, f"Stage B server: {v} (password sent to captains in DM)", v)
    v = f"185.{rng.randint(10, 250)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    B(k, f"IP سرور تهران برای تست پینگ: {v}", v)
    v = f"10.20.{rng.randint(0, 9)}.{rng.randint(1, 254)}"
    B(k, f"GOTV relay internal ip {v}, port 27020", v)

    k = "ticket_order_ref"
    v = "ARN-" + r(UPNUM, 8)
    B(k, f"Order {v}: 2x VIP day pass, paid, QR sent", v)
    v = f"TIX-{rng.randint(2025, 2026)}-{r(string.digits, 6)}"
    B(k, f"Refund requested for booking {v} (event cancelled day 2)", v)
    v = "INV-JKT-" + r(string.digits, 7)
    B(k, f"Nomor pesanan tiket {v}, status: sudah check-in", v)
    v = r(UPNUM, 10)
    B(k, f"کد رزرو بلیت: {v}", v)

    k = "invoice_number"
    v = f"SP-{rng.randint(2025, 2026)}-{r(string.digits, 4)}"
    B(k, f"Sponsor invoice {v} sent to the energy-drink partner, net 30", v)
    v = f"in_{r(ALNUM, 24)}"
    B(k, f"Stripe invoice {v} marked paid", v)
    v = f"INV/{rng.randint(2025, 2026)}/{r(string.digits, 5)}"
    B(k, f"Faktur sponsor {v} sudah dibayar", v)
    v = f"FA-{r(string.digits, 6)}"
    B(k, f"فاکتور اسپانسر شماره {v} ارسال شد", v)

    k = "masked_secret"
    v = "sk_live_****" + r(ALNUM, 4)
    B(k, f"Stripe key in use: {v} (full key in vault)", v)
    v = "ghp_" + "*" * 32 + r(ALNUM, 4)
    B(k, f"GitHub token {v} expires in 7 days", v)
    v = f"{r(LOWNUM, 4)}-****-****-****-****"
    B(k, f"YouTube stream key {v} — ask the producer for the full value", v)
    v = "••••••••"
    B(k, f"RCON password: {v} (see 1Password, vault 'Game Servers')", v)
    v = "xnd_production_" + "x" * 8 + "…" + r(ALNUM, 4)
    B(k, f"Kunci Xendit aktif: {v}", v)

    k = "placeholder"
    v = "<YOUR_BOT_TOKEN>"
    B(k, f"DISCORD_BOT_TOKEN={v}", v)
    v = "REPLACE_ME"
    B(k, f'rcon_password "{v}"', v)
    v = "your-stream-key-here"
    B(k, f"rtmp://a.rtmp.youtube.com/live2/{v}", v)
    v = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    B(k, f"TWITCH_CLIENT_SECRET={v}", v)
    v = "<رمز_را_اینجا_بگذارید>"
    B(k, f"OBS_WS_PASSWORD={v}", v)

    k = "env_var_reference"
    v = "${STEAM_WEB_API_KEY}"
    B(k, f"steam:\n  api_key: {v}", v)
    v = 'os.environ["DISCORD_BOT_TOKEN"]'
    B(k, f"client.run({v})", v)
    v = "process.env.STRIPE_SECRET_KEY"
    B(k, f"const stripe = require('stripe')({v});", v)
    v = "${{ secrets.DOCKERHUB_TOKEN }}"
    B(k, f"      password: {v}", v)
    v = "$MIDTRANS_SERVER_KEY"
    B(k, f"Server key ambil dari env {v}, jangan hardcode", v)

    k = "vault_path"
    v = "secret/data/game-servers/rcon"
    B(k, f"RCON passwords live at {v}", v)
    v = "kv/payouts/xendit"
    B(k, f"vault kv get {v}", v)
    v = "op://Streaming/Twitch main/stream key"
    B(k, f"stream key reference: {v}", v)
    v = "secret/data/discord/refbot"
    B(k, f"مسیر توکن ربات در Vault: {v}", v)

    k = "aws_documented_example_key"
    v = "AKIAIOSFODNN7EXAMPLE"
    B(k, f"docs snippet uses {v} as the access key id", v)
    v = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    B(k, f"aws_secret_access_key = {v}  # AWS documentation example", v)
    v = "AKIAI44QH8DHBEXAMPLE"
    B(k, f"contoh dari dokumentasi AWS: {v}", v)

    k = "revoked_key"
    v = hx(32, True)
    B(k, f"GSLT {v} was revoked by Valve after the public server incident — do not reuse", v)
    v = "sk_live_51" + r(ALNUM, 40)
    B(k, f"Rolled (revoked) on 2026-10-02: {v}. New key in vault.", v)
    v = "ghp_" + r(ALNUM, 36)
    B(k, f"Token {v} sudah di-revoke setelah bocor di repo publik", v)
    v = f"{b64u(snowflake().encode())}.{r(URLSAFE, 6)}.{r(URLSAFE, 38)}"
    B(k, f"توکن قبلی ربات ({v}) باطل شد و دیگر کار نمی‌کند", v)

    k = "ssh_public_key"
    v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43)
    B(k, f"{v} ops@arena-laptop", v)
    v = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + r(B64, 120)
    B(k, f"add to authorized_keys on the game-server fleet: {v}", v)
    v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43)
    B(k, f"Public key teknisi venue: {v}", v)
    v = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43)
    B(k, f"کلید عمومی برای دسترسی به سرور استریم: {v}", v)

    k = "certificate_pem"

    def cert() -> str:
        body = "\n".join(r(B64, 64) for _ in range(6))
        return f"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU{r(B64, 44)}\n{body}\n-----END CERTIFICATE-----"

    v = cert()
    B(k, f"overlay.esports-arena.gg fullchain (public cert):\n{v}", v)
    v = cert()
    B(k, f"Anti-cheat vendor CA to pin in the client:\n{v}", v)
    v = cert()
    B(k, f"sertifikat publik untuk webhook Midtrans:\n{v}", v)

    k = "pgp_fingerprint"
    v = " ".join(hx(4, True) for _ in range(10))
    B(k, f"Security contact PGP fingerprint: {v}", v)
    v = hx(40, True)
    B(k, f"payout approvals must be signed with key {v}", v)
    v = "0x" + hx(16, True)
    B(k, f"آیدی کلید PGP تیم امنیت: {v}", v)

    k = "game_build_version"
    v = f"1.40.{rng.randint(1, 9)}.{rng.randint(0, 9)}"
    B(k, f"CS2 build {v} is the tournament build, lock clients to it", v)
    v = f"{rng.randint(9, 10)}.{rng.randint(0, 11)}.0.{r(string.digits, 7)}"
    B(k, f"Valorant client version {v} (patch 9.x) approved for the qualifier", v)
    v = f"v2.{rng.randint(10, 20)}.{rng.randint(0, 9)}-rc{rng.randint(1, 4)}"
    B(k, f"anti-cheat client {v} rolled out to LAN PCs", v)
    v = f"{rng.randint(1, 2)}.{rng.randint(8, 9)}.{rng.randint(10, 99)}"
    B(k, f"versi Mobile Legends yang dipakai turnamen: {v}", v)

    k = "twitch_client_id"
    v = r(LOWNUM, 30)
    B(k, f"TWITCH_CLIENT_ID={v}", v)
    v = r(LOWNUM, 30)
    B(k, f"Client-Id header for Helix is the public app id {v}", v)
    v = r(LOWNUM, 30)
    B(k, f"Client ID Twitch (bukan secret): {v}", v)
    v = r(LOWNUM, 30)
    B(k, f"شناسه کلاینت توییچ برای اکستنشن: {v}", v)

    k = "youtube_video_id"
    v = r(URLSAFE, 11)
    B(k, f"VOD of the grand final: https://www.youtube.com/watch?v={v}", v)
    v = r(URLSAFE, 11)
    B(k, f"highlight clip https://youtu.be/{v}?t=342", v)
    v = r(URLSAFE, 11)
    B(k, f"Video ID siaran ulang: {v}", v)
    v = r(URLSAFE, 11)
    B(k, f"لینک بازپخش فینال: https://youtu.be/{v}", v)

    k = "password_policy"
    v = "at least 14 characters, no reuse of the last 5"
    B(k, f"Admin panel password rule: {v}", v)
    v = "rotate RCON passwords before every match day"
    B(k, f"Policy: {v}", v)
    v = "minimal 12 karakter dan wajib 2FA"
    B(k, f"Aturan akun panitia: {v}", v)
    v = "رمزها فقط در 1Password نگهداری شوند"
    B(k, f"سیاست امنیتی: {v}", v)

    k = "anticheat_ban_case"
    v = f"AC-{rng.randint(2025, 2026)}-{r(string.digits, 5)}"
    B(k, f"Ban case {v}: trigger-bot detection, 2-year ban upheld", v)
    v = f"VAC-{r(UPNUM, 8)}"
    B(k, f"report id {v} forwarded to the integrity team", v)
    v = f"CASE#{r(string.digits, 6)}"
    B(k, f"Kasus kecurangan {v} sedang ditinjau wasit", v)
    v = f"AC-{r(string.digits, 6)}"
    B(k, f"پرونده تقلب شماره {v} بسته شد", v)

    k = "hardware_serial"
    v = "FOC" + r(UPNUM, 8)
    B(k, f"Core switch serial {v}, under SmartNet till 2027", v)
    v = r(UPNUM, 12)
    B(k, f"Elgato Stream Deck XL serial {v} (caster desk 2)", v)
    v = "SN-" + r(UPNUM, 10)
    B(k, f"Nomor seri monitor 360Hz booth 4: {v}", v)
    v = r(UPNUM, 10)
    B(k, f"سریال کارت کپچر AJA: {v}", v)

    k = "mac_address"

    def mac() -> str:
        return ":".join(hx(2) for _ in range(6))

    v = mac()
    B(k, f"DHCP reservation for observer PC: {v} -> 10.20.5.30", v)
    v = mac().upper().replace(":", "-")
    B(k, f"player PC 7 NIC {v}", v)
    v = mac()
    B(k, f"MAC address PC caster: {v}", v)
    v = mac()
    B(k, f"آدرس MAC دستگاه انکودر: {v}", v)

    k = "crypto_wallet_address"
    v = "0x" + hx(40)
    B(k, f"Player asked for prize payout to USDT (ERC-20) address {v}", v)
    v = "T" + r("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 33)
    B(k, f"آدرس کیف پول ترون برای جایزه: {v}", v)
    v = "bc1q" + r("023456789acdefghjklmnpqrstuvwxyz", 38)
    B(k, f"BTC receive address published on the donations page: {v}", v)

    k = "aws_arn"
    v = f"arn:aws:s3:::arena-demos-{rng.randint(2025, 2026)}"
    B(k, f"bucket policy resource {v}", v)
    v = f"arn:aws:iam::{r(string.digits, 12)}:role/vod-uploader"
    B(k, f"assume role {v}", v)
    v = f"arn:aws:secretsmanager:ap-southeast-1:{r(string.digits, 12)}:secret:prod/payouts-{r(ALNUM, 6)}"
    B(k, f"payout creds are stored in {v}", v)
    v = f"arn:aws:lambda:ap-southeast-3:{r(string.digits, 12)}:function:ticket-qr"
    B(k, f"Lambda QR tiket: {v}", v)

    k = "docker_image_digest"
    v = "sha256:" + hx(64)
    B(k, f"image: ghcr.io/arena-ops/cs2-server@{v}", v)
    v = "sha256:" + hx(64)
    B(k, f"overlay-renderer digest {v} pinned for finals", v)
    v = "sha256:" + hx(64)
    B(k, f"Digest image bot Discord: {v}", v)
    v = "sha256:" + hx(64)
    B(k, f"دایجست ایمیج سرور API: {v}", v)

    k = "npm_integrity"
    v = "sha512-" + r(B64, 86) + "=="
    B(k, f'"integrity": "{v}"', v)
    v = "sha384-" + r(B64, 64)
    B(
        k,
        f'<script src="https://cdn.arena.gg/overlay.js" integrity="{v}" crossorigin="anonymous"></script>',
        v,
    )
    v = "sha512-" + r(B64, 86) + "=="
    B(k, f"lockfile entry for @arena/overlay-kit 3.2.1 integrity {v}", v)

    k = "promo_code"
    v = "ARENA" + str(rng.randint(10, 30)) + "OFF"
    B(k, f"Public promo code for the sponsor giveaway: {v} (10% off day passes)", v)
    v = "NUSANTARA" + str(rng.randint(20, 30))
    B(k, f"Kode promo tiket dari sponsor: {v}, berlaku sampai 31 Des", v)
    v = "FINALS-" + r(UPNUM, 4)
    B(k, f"on-stream code {v} announced by the casters", v)
    v = "SIMURGH" + str(rng.randint(10, 50))
    B(k, f"کد تخفیف عمومی بلیت: {v}", v)

    k = "bracket_slug"
    v = f"tournament/arena-winter-cup-{rng.randint(2025, 2026)}/event/cs2-main"
    B(k, f"https://www.start.gg/{v}", v)
    v = f"arena_mlbb_s{rng.randint(2, 9)}"
    B(k, f"Challonge URL: https://challonge.com/{v}", v)
    v = f"phase-group/{r(string.digits, 7)}"
    B(k, f"seeding check: {v}", v)
    v = f"valorant-tehran-open-{rng.randint(1, 5)}"
    B(k, f"اسلاگ براکت: {v}", v)

    k = "paypal_transaction_id"
    v = r(UPNUM, 17)
    B(k, f"Prize payout sent, PayPal transaction ID {v}", v)
    v = r(UPNUM, 13)
    B(k, f"payout_batch_id {v} status SUCCESS", v)
    v = r(UPNUM, 17)
    B(k, f"ID transaksi PayPal hadiah juara 2: {v}", v)
    v = r(UPNUM, 17)
    B(k, f"شناسه تراکنش پی‌پال: {v}", v)

    k = "midtrans_client_key"
    v = "Mid-client-" + r(URLSAFE, 16)
    B(k, f"MIDTRANS_CLIENT_KEY={v}", v)
    v = "Mid-client-" + r(URLSAFE, 16)
    B(k, f'<script src="https://app.midtrans.com/snap/snap.js" data-client-key="{v}"></script>', v)
    v = "Mid-client-" + r(URLSAFE, 16)
    B(k, f"Client key Midtrans boleh di frontend: {v}", v)
    v = "G" + r(string.digits, 9)
    B(k, f"Merchant ID Midtrans: {v}", v)

    k = "xendit_public_key"
    v = "xnd_public_production_" + r(ALNUM, 40)
    B(k, f"XENDIT_PUBLIC_KEY={v}", v)
    v = "xnd_public_production_" + r(ALNUM, 40)
    B(k, f"Public key Xendit untuk tokenisasi kartu di halaman tiket: {v}", v)
    v = "xnd_public_production_" + r(ALNUM, 40)
    B(k, f"card tokenization uses the public key {v} in the browser", v)

    k = "stripe_price_id"
    v = "price_1" + r(ALNUM, 23)
    B(k, f"VIP pass price id {v}", v)
    v = "prod_" + r(ALNUM, 14)
    B(k, f"Stripe product {v} = 'Finals Day Ticket'", v)
    v = "cus_" + r(ALNUM, 14)
    B(k, f"Customer {v} disputed the charge", v)
    v = "pi_3" + r(ALNUM, 23)
    B(k, f"PaymentIntent {v} succeeded", v)

    k = "ga_measurement_id"
    v = "G-" + r(UPNUM, 10)
    B(k, f"gtag('config', '{v}');", v)
    v = "G-" + r(UPNUM, 10)
    B(k, f"GA4 measurement ID situs turnamen: {v}", v)
    v = "GTM-" + r(UPNUM, 7)
    B(k, f"tag manager container {v} on the ticket site", v)

    k = "discord_invite"
    v = "https://discord.gg/" + r(ALNUM, 8)
    B(k, f"Community server invite: {v}", v)
    v = "https://discord.gg/" + r(ALNUM, 10)
    B(k, f"Link Discord untuk check-in tim: {v}", v)
    v = "discord.gg/" + r(ALNUM, 7)
    B(k, f"لینک دعوت سرور دیسکورد: {v}", v)
    v = "https://discord.com/invite/" + r(ALNUM, 8)
    B(k, f"on overlay lower third: {v}", v)

    k = "masked_card"
    v = f"**** **** **** {r(string.digits, 4)}"
    B(k, f"Sponsor paid with card {v}", v)
    v = f"6037-99**-****-{r(string.digits, 4)}"
    B(k, f"کارت بانکی بازیکن (ماسک‌شده): {v}", v)
    v = f"4{r(string.digits, 5)}******{r(string.digits, 4)}"
    B(k, f"Kartu yang dipakai beli tiket: {v}", v)

    k = "sheba_iban"
    v = "IR" + r(string.digits, 24)
    B(k, f"شماره شبای بازیکن برای واریز جایزه: {v}", v)
    v = "IR" + r(string.digits, 24)
    B(k, f"Prize recipient Sheba {v} (verified against national id)", v)
    v = "DE89 3704 0044 0532 0130 00"
    B(k, f"IBAN format example from the docs: {v}", v)

    k = "virtual_account_number"
    v = "8808" + r(string.digits, 12)
    B(k, f"Nomor VA BCA untuk pembayaran tiket grup: {v}", v)
    v = "88" + r(string.digits, 14)
    B(k, f"Virtual account Mandiri {v} berlaku 24 jam", v)
    v = r(string.digits, 10)
    B(k, f"Rekening panitia BNI a.n. PT Arena Esports: {v}", v)
    v = "7" + r(string.digits, 15)
    B(k, f"Sponsor transfers to virtual account {v}", v)

    k = "overlay_color_hex"
    v = "#" + hx(6).upper()
    B(k, f"Team Garuda primary color {v} for the scoreboard", v)
    v = "#" + hx(6)
    B(k, f".lower-third {{ background: {v}; }}", v)
    v = "#" + hx(6).upper()
    B(k, f"رنگ اصلی اورلی: {v}", v)

    k = "workshop_map_id"
    v = r(string.digits, 10)
    B(k, f"host_workshop_map {v}", v)
    v = r(string.digits, 10)
    B(k, f"custom aim map workshop id {v} for warmup servers", v)
    v = r(string.digits, 10)
    B(
        k,
        f"Map workshop untuk showmatch: https://steamcommunity.com/sharedfiles/filedetails/?id={v}",
        v,
    )
    v = r(string.digits, 10)
    B(k, f"آیدی ورکشاپ مپ تمرینی: {v}", v)

    k = "trace_id"
    v = hx(32)
    B(k, f"2026-11-28T13:04:11Z ERROR payout failed trace_id={v}", v)
    v = hx(16)
    B(k, f"[overlay] request_id={v} took 812ms", v)
    v = f"00-{hx(32)}-{hx(16)}-01"
    B(k, f"traceparent: {v}", v)
    v = uuid()
    B(k, f"ID request yang gagal di webhook Midtrans: {v}", v)

    k = "k8s_secret_ref"
    v = "name: discord-bot-token"
    B(
        k,
        f"env:\n  - name: DISCORD_BOT_TOKEN\n    valueFrom:\n      secretKeyRef:\n        {v}\n        key: token",
        v,
    )
    v = "kubectl create secret generic rcon --from-file=./rcon.txt"
    B(k, f"{v}", v)
    v = "secretName: overlay-tls"
    B(k, f"tls:\n  - hosts: [overlay.esports-arena.gg]\n    {v}", v)
    v = "external-secrets/payouts-xendit"
    B(k, f"ExternalSecret {v} pulls from Vault every 1h", v)

    k = "stripe_test_card"
    v = "4242 4242 4242 4242"
    B(k, f"QA: use test card {v}, any future expiry, any CVC", v)
    v = "4000 0000 0000 9995"
    B(k, f"decline test (insufficient funds): {v}", v)
    v = "4811 1111 1111 1114"
    B(k, f"Kartu test Midtrans sandbox: {v}", v)

    k = "bcrypt_hash"
    v = "$2b$12$" + r(ALNUM + "./", 53)
    B(k, f"admin user row: username=headref, password_hash={v}", v)
    v = "$2y$10$" + r(ALNUM + "./", 53)
    B(k, f"panel users.password column sample: {v}", v)
    v = "$argon2id$v=19$m=65536,t=3,p=4$" + r(B64, 22) + "$" + r(B64, 43)
    B(k, f"Hash password wasit di DB: {v}", v)
    v = "$2b$12$" + r(ALNUM + "./", 53)
    B(k, f"هش رمز ادمین در دیتابیس: {v}", v)

    k = "twitch_broadcaster_id"
    v = r(string.digits, 9)
    B(k, f"broadcaster_id={v} (main channel)", v)
    v = r(string.digits, 9)
    B(k, f"Broadcaster ID channel Indonesia: {v}", v)
    v = r(string.digits, 9)
    B(k, f"شناسه کانال توییچ فارسی: {v}", v)

    k = "jwks_kid"
    v = hx(16)
    B(k, f'{{"keys": [{{"kty": "RSA", "kid": "{v}", "use": "sig", "alg": "RS256"}}]}}', v)
    v = "n=" + r(URLSAFE, 86)
    B(k, f"public JWKS modulus for the ticket scanner app: {v}", v)
    v = hx(16)
    B(k, f"kid kunci publik yang aktif: {v}", v)

    k = "ip_allowlist_cidr"
    v = f"103.{rng.randint(10, 250)}.{rng.randint(0, 255)}.0/24"
    B(k, f"RCON allowlist: {v} (venue uplink)", v)
    v = "10.20.0.0/16"
    B(k, f"LAN subnet for player PCs: {v}", v)
    v = f"5.{rng.randint(100, 250)}.{rng.randint(0, 255)}.0/22"
    B(k, f"رنج IP مجاز برای پنل ادمین: {v}", v)

    k = "api_key_id"
    v = hx(32)
    B(k, f"Cloudflare token ID (not the token) {v}", v)
    v = r(string.digits, 8)
    B(k, f"Wise profile id {v} for the payouts account", v)
    v = "key_" + r(ALNUM, 12)
    B(k, f"anti-cheat dashboard shows key id {v} as active (secret not displayed)", v)

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

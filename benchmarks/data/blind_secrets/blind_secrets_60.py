# ruff: noqa: E501
"""Blind secret-detector corpus 60: game studio live-ops and backend (PC, mobile, consoles).

Brief: memory notes of a game studio's live-ops/backend team -- Steamworks keys and partner logins, console partner portals and devkits (PlayStation/Xbox/Nintendo), PlayFab/GameSparks/EOS backends, Unity/Unreal build farms, Perforce and license servers, anti-cheat, Apple/Google in-app purchase and store server keys, analytics SDK keys, Discord community bots -- mixed with the app ids, build ids, SKUs, title ids, hashes, GUIDs and public client keys that look like secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_60.py [out.jsonl]

Kinds, secret: steam_web_api_key, steamworks_publisher_key, steam_gameserver_login_token, steam_encrypted_app_ticket_key, steamguard_shared_secret, steam_partner_password, steam_product_key_unredeemed, playfab_developer_secret_key, gamesparks_api_secret, unity_license_serial, unity_cloud_build_api_key, unity_account_password, unity_license_server_admin_password, perforce_password, perforce_ticket, apple_iap_shared_secret, apple_p8_private_key, apple_app_specific_password, fastlane_match_password, ios_p12_password, android_keystore_password, google_play_service_account_key, google_oauth_client_secret, google_oauth_refresh_token, fcm_legacy_server_key, discord_bot_token, discord_webhook_url, discord_client_secret, slack_bot_token, slack_webhook_url, github_pat, github_fine_grained_pat, aws_secret_access_key, azure_ad_client_secret, azure_storage_connection_string, eos_client_secret, xbox_partner_center_password, playstation_partner_portal_password, nintendo_developer_portal_password, game_server_rcon_password, postgres_url_password, redis_password, mongodb_url_password, jwt_signing_secret, live_bearer_jwt, http_basic_auth_header, sentry_auth_token, gameanalytics_secret_key, amplitude_secret_key, mixpanel_api_secret, datadog_api_key, stripe_secret_key, stripe_restricted_key, sendgrid_api_key, npm_token, jenkins_api_token, ssh_private_key, xsolla_api_key
Kinds, benign: steam_app_id, steam_build_id, steamid64, git_commit_sha, short_commit_sha_in_build_name, artifact_sha256, pak_md5, unity_asset_guid, docker_image_digest, playfab_title_id, xbox_title_id, xbox_scid, playstation_content_id, nintendo_title_id, iap_product_sku, google_play_order_id, apple_transaction_id, google_play_license_public_key, firebase_client_api_key_public, stripe_publishable_key, recaptcha_site_key, sentry_dsn_client, gameanalytics_game_key, amplitude_api_key_client, mixpanel_project_token, adjust_app_token, eos_product_and_deployment_ids, eos_client_id, photon_app_id, unity_project_id, generic_uuid, discord_snowflake_ids, ssh_public_key, x509_certificate, key_fingerprint, cert_sha1_fingerprint, apple_team_and_key_ids, google_service_account_email, perforce_changelist, build_version_number, procgen_world_seed, devkit_serial_and_network, devkit_mac_address, battleye_guid, anticheat_hwid_hash, crash_report_id, support_and_ticket_ids, masked_secret, masked_token_short, key_last4_reference, vault_reference, env_var_name_reference, revoked_discord_token_said_revoked, revoked_steam_key_said_revoked, procedure_order_id, small_numeric_ids, internal_ip, password_policy_text_len, placeholder_value, redacted_value, documented_example_key, public_test_values, password_policy_prose
"""

import base64
import json
import random
import string
import sys

SEED = 6060

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEXL = "0123456789abcdef"
HEXU = HEXL.upper()
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"
WORDS = [
    "dragon",
    "pixel",
    "goblin",
    "raid",
    "loot",
    "mana",
    "frost",
    "ember",
    "knight",
    "rogue",
    "turbo",
    "quest",
    "falcon",
    "tundra",
    "nebula",
    "kraken",
    "cobalt",
    "phoenix",
    "arcade",
    "summit",
    "banshee",
    "otter",
    "walrus",
    "comet",
    "lantern",
    "mortar",
    "pepper",
    "zephyr",
]
SYMS = "!@#$%&*?"


def s(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def human(r):
    st = r.randrange(5)
    w1, w2 = r.choice(WORDS), r.choice(WORDS)
    if st == 0:
        return w1.capitalize() + w2.capitalize() + str(r.randint(10, 99)) + r.choice(SYMS)
    if st == 1:
        leet = w1.replace("o", "0").replace("a", "4").replace("e", "3")
        return leet.capitalize() + r.choice(SYMS) + str(r.randint(1990, 2026))
    if st == 2:
        return w1 + r.choice("-_.") + w2 + r.choice("-_.") + str(r.randint(100, 999))
    if st == 3:
        return (
            r.choice(["Winter", "Summer", "Spring", "Autumn"])
            + str(r.randint(2019, 2026))
            + r.choice(SYMS)
            + w1[:3]
        )
    return s(r, AN, 4) + r.choice(SYMS) + s(r, AN, 6) + r.choice(SYMS) + s(r, DG, 2)


def gen_pw(r):
    return s(r, AN, r.randint(18, 28))


def snowflake(r):
    return str(r.randint(300000000000000000, 1299999999999999999))


def b64(r, n):
    return base64.b64encode(r.randbytes(n)).decode()


def pem_body(r, n):
    b = b64(r, n)
    return "\n".join(b[i : i + 64] for i in range(0, len(b), 64))


def b64url_nopad(raw):
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


# ---- secret generators ----
def g_steam_key(r):
    return s(r, HEXU, 32)


def g_hex32(r):
    return s(r, HEXL, 32)


def g_hex40(r):
    return s(r, HEXL, 40)


def g_hex64(r):
    return s(r, HEXL, 64)


def g_guard(r):
    return b64(r, 20)


def g_playfab(r):
    return s(r, UP + DG, 52)


def g_alnum32(r):
    return s(r, AN, 32)


def g_unity_serial(r):
    return (
        r.choice(["E3", "SC", "F3", "PC", "U3"])
        + "-"
        + "-".join(s(r, UP + DG, 4) for _ in range(5))
    )


def g_p4ticket(r):
    return s(r, HEXU, 32)


def g_p8(r):
    return "-----BEGIN PRIVATE KEY-----\n" + pem_body(r, 138) + "\n-----END PRIVATE KEY-----"


def g_rsa_pk(r):
    return "-----BEGIN PRIVATE KEY-----\n" + pem_body(r, 1216) + "\n-----END PRIVATE KEY-----"


def g_ssh(r):
    body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + b64(r, 260)
    lines = "\n".join(body[i : i + 70] for i in range(0, len(body), 70))
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + lines + "\n-----END OPENSSH PRIVATE KEY-----"


def g_fcm(r):
    return "AAAA" + s(r, AN + "-_", 7) + ":APA91b" + s(r, B64U, 134)


def g_discord_bot(r):
    return b64url_nopad(snowflake(r)) + "." + s(r, B64U, 6) + "." + s(r, B64U, 38)


def g_discord_hook(r):
    return "https://discord.com/api/webhooks/" + snowflake(r) + "/" + s(r, B64U, 68)


def g_discord_secret(r):
    return s(r, AN + "-_", 32)


def g_slack_bot(r):
    return "xoxb-" + s(r, DG, 12) + "-" + s(r, DG, 13) + "-" + s(r, AN, 24)


def g_slack_hook(r):
    return (
        "https://hooks.slack.com/services/T"
        + s(r, UP + DG, 10)
        + "/B"
        + s(r, UP + DG, 10)
        + "/"
        + s(r, AN, 24)
    )


def g_ghp(r):
    return "ghp_" + s(r, AN, 36)


def g_gh_fine(r):
    return "github_pat_11" + s(r, UP + DG, 20) + "_" + s(r, AN, 59)


def g_aws_secret(r):
    return s(r, AN + "+/", 40)


def g_aws_akid(r):
    return "AKIA" + s(r, B32, 16)


def g_eos_secret(r):
    return s(r, AN + "+/", 43)


def g_azure_cs(r):
    return s(r, AN, 3) + r.choice(DG) + "Q~" + s(r, AN + "_.~-", 34)


def g_sentry_tok(r):
    return "sntryu_" + s(r, HEXL, 64)


def g_stripe_sk(r):
    return "sk_live_51" + s(r, AN, 97)


def g_stripe_rk(r):
    return "rk_live_51" + s(r, AN, 97)


def g_sendgrid(r):
    return "SG." + s(r, B64U, 22) + "." + s(r, B64U, 43)


def g_npm(r):
    return "npm_" + s(r, AN, 36)


def g_gocspx(r):
    return "GOCSPX-" + s(r, AN + "-_", 28)


def g_grefresh(r):
    return "1//0" + s(r, AN, 2) + s(r, B64U, 97)


def g_apple_asp(r):
    return "-".join(s(r, LO, 4) for _ in range(4))


def g_jenkins(r):
    return "11" + s(r, HEXL, 32)


def g_azure_storage(r):
    return b64(r, 64)


def g_jwt(r):
    h = b64url_nopad('{"alg":"HS256","typ":"JWT"}')
    p = b64url_nopad(
        '{"sub":"'
        + s(r, HEXU, 16)
        + '","tid":"'
        + s(r, HEXU, 5)
        + '","exp":'
        + str(r.randint(1790000000, 1799999999))
        + "}"
    )
    return h + "." + p + "." + s(r, B64U, 43)


def g_steam_cdkey(r):
    a = "ABCDEFGHJKLMNPQRSTVWXYZ23456789"
    return "-".join(s(r, a, 5) for _ in range(3))


def g_mixed_pw(r):
    if r.random() < 0.5:
        pw = human(r)
        for ch in "@#%?&$":
            pw = pw.replace(ch, "!")
        return pw
    return gen_pw(r)


def g_basic(r):
    return base64.b64encode(("liveops-admin:" + human(r)).encode()).decode()


def g_dd(r):
    return s(r, HEXL, 32)


def g_hf_xsolla(r):
    return s(r, HEXL, 40)


def _akid_pair(v, r):
    return (
        "aws for the crash-dump bucket (ops-ci user):\nAWS_ACCESS_KEY_ID="
        + g_aws_akid(r)
        + "\nAWS_SECRET_ACCESS_KEY="
        + v
    )


def _akid_pair2(v, r):
    return (
        "[symbols-upload]\naws_access_key_id = "
        + g_aws_akid(r)
        + "\naws_secret_access_key = "
        + v
        + "\nregion = eu-west-1"
    )


def _gsa_json(v, r):
    d = {
        "type": "service_account",
        "project_id": "pc-api-7731204459-lqx",
        "private_key_id": s(r, HEXL, 40),
        "private_key": v + "\n",
        "client_email": "iap-verifier@pc-api-7731204459-lqx.iam.gserviceaccount.com",
        "client_id": s(r, DG, 21),
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    return (
        "play console service acct for receipt verification, paste from Mira:\n"
        + json.dumps(d, indent=2),
        json.dumps(v + "\n")[1:-1],
    )


SECRET_KINDS = [
    (
        "steam_web_api_key",
        g_steam_key,
        [
            "steam web api key for the stats dashboard: {v}",
            "curl 'https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key={v}&steamids=76561198000000000'",
            "STEAM_WEB_API_KEY={v}",
            "| service | key |\n| leaderboard-sync | {v} |",
        ],
    ),
    (
        "steamworks_publisher_key",
        g_steam_key,
        [
            "Publisher Web API key (partner.steam-api.com, group 'LiveOps Server') = {v} -- do NOT ship in client",
            "microtxn server uses publisher key {v} for ISteamMicroTxn/InitTxn",
            'steam:\n  publisher_key: "{v}"\n  appid: 1843310',
        ],
    ),
    (
        "steam_gameserver_login_token",
        g_steam_key,
        [
            "./srcds_run -game mygame +map de_test +sv_setsteamaccount {v} -port 27015",
            "GSLT for eu-fra-03 dedicated box: {v}",
            "SRCDS_TOKEN={v}",
        ],
    ),
    (
        "steam_encrypted_app_ticket_key",
        g_hex64,
        [
            "Encrypted App Ticket key (from Steamworks > SDK Auth) for login backend: {v}",
            'auth-svc config:\nsteam_ticket_key = "{v}"',
            "klucz do encrypted app ticket: {v} (wpisz do vaulta jak będziesz miał chwilę)",
        ],
    ),
    (
        "steamguard_shared_secret",
        g_guard,
        [
            "steam guard shared_secret for the build uploader account (steamcmd bot): {v}",
            '"account_name": "studio_builder",\n"shared_secret": "{v}"',
            "maFile for builder_acct — shared secret {v}, use with steamcmd +login",
        ],
    ),
    (
        "steam_partner_password",
        human,
        [
            "steamworks partner login: releng@studio.example / {v}",
            "steamcmd +login studio_builder {v} +run_app_build ../scripts/app_build_1843310.vdf +quit",
            "Steam builder account pw changed to {v} after the 2FA mess",
            "Le mot de passe du compte steam de build c'est {v}, ne le change pas avant la release.",
        ],
    ),
    (
        "steam_product_key_unredeemed",
        g_steam_cdkey,
        [
            "press keys batch 3 (unredeemed, for streamers): {v}",
            "giving Kasia one review key for the PC build: {v}",
            "{v}",
            "| creator | key | sent |\n| tinybard | {v} | no |",
        ],
    ),
    (
        "playfab_developer_secret_key",
        g_playfab,
        [
            "PlayFab secret key for title 9A3F2 (server only): {v}",
            "curl -X POST https://9A3F2.playfabapi.com/Server/GrantItemsToUsers -H 'X-SecretKey: {v}' -d @grant.json",
            "PLAYFAB_DEV_SECRET_KEY={v}",
            'PlayFabSettings.staticSettings.DeveloperSecretKey = "{v}";',
            "nowy sekret PlayFaba na prod: {v}",
        ],
    ),
    (
        "gamesparks_api_secret",
        g_alnum32,
        [
            "legacy gamesparks api secret (still used by migration script): {v}",
            "GS_API_SECRET={v}",
            "gamesparks credential 'server' secret {v}",
        ],
    ),
    (
        "unity_license_serial",
        g_unity_serial,
        [
            "Unity Pro serial for build agent ba-win-07: {v}",
            "Unity.exe -batchmode -serial {v} -username builds@studio.example -password $UNITY_PW -quit",
            "seat #4 serial {v} (returned from Tomek's laptop, now on the farm)",
        ],
    ),
    (
        "unity_cloud_build_api_key",
        g_hex32,
        [
            "UCB api key: {v}",
            "curl -H 'Authorization: Basic {v}' https://build-api.cloud.unity3d.com/api/v1/orgs/studio/projects",
            "UNITY_CLOUD_BUILD_KEY={v}",
        ],
    ),
    (
        "unity_account_password",
        human,
        [
            "unity account for license activation: builds@studio.example / {v}",
            "UNITY_PASSWORD={v}",
            "Unity Hub login pro build farmu: builds@studio.example, heslo {v}",
        ],
    ),
    (
        "unity_license_server_admin_password",
        human,
        [
            "Unity Licensing Server admin UI (http://uls01:8080) pw: {v}",
            "Unity.Licensing.Server.exe setup -- admin password set to {v}",
        ],
    ),
    (
        "perforce_password",
        human,
        [
            "P4PASSWD={v}",
            "p4 -u build_svc -P {v} sync //depot/Game/Main/...",
            "perforce build_svc account: {v}",
            "Perforceのbuild_svcのパスワードは {v} です。",
        ],
    ),
    (
        "perforce_ticket",
        g_p4ticket,
        [
            "p4tickets for ssl:p4.studio.internal:1666=build_svc:{v}",
            "export P4PASSWD={v}  # ticket from p4 login -p, valid 12h",
        ],
    ),
    (
        "apple_iap_shared_secret",
        g_hex32,
        [
            "App Store shared secret for verifyReceipt (app-specific, Gems app): {v}",
            '{"receipt-data": "$RECEIPT", "password": "{v}", "exclude-old-transactions": true}',
            "IAP_APPLE_SHARED_SECRET={v}",
        ],
    ),
    (
        "apple_p8_private_key",
        g_p8,
        [
            "App Store Server API key (Key ID 7QK2L9X4MZ, issuer in 1p) AuthKey_7QK2L9X4MZ.p8:\n{v}",
            "APNs auth key for push:\n{v}",
            "{v}",
        ],
    ),
    (
        "apple_app_specific_password",
        g_apple_asp,
        [
            "xcrun altool --upload-app -f Game.ipa -u release@studio.example -p {v}",
            "app-specific pw for notarization: {v}",
            "FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD={v}",
        ],
    ),
    (
        "fastlane_match_password",
        human,
        [
            "MATCH_PASSWORD={v}",
            "match repo decrypt passphrase is {v}",
            "certs repo (fastlane match) -- passphrase: {v}",
        ],
    ),
    (
        "ios_p12_password",
        human,
        [
            "dist cert p12 pw {v}",
            "security import dist.p12 -k build.keychain -P {v} -T /usr/bin/codesign",
            "export do certificado .p12 — a senha é {v}",
        ],
    ),
    (
        "android_keystore_password",
        human,
        [
            "storePassword={v}\nkeyAlias=upload\nkeyPassword={v}",
            "jarsigner -keystore release.jks -storepass {v} app-release.aab upload",
            "upload keystore password is {v} (same for key alias)",
            "La contraseña del keystore de Android es {v}",
        ],
    ),
    (
        "google_play_service_account_key",
        g_rsa_pk,
        [_gsa_json, "play publisher key (private_key field only):\n{v}"],
    ),
    (
        "google_oauth_client_secret",
        g_gocspx,
        [
            "Play Games web client secret: {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            '"client_secret":"{v}"',
        ],
    ),
    (
        "google_oauth_refresh_token",
        g_grefresh,
        [
            "refresh token for androidpublisher scope (release bot): {v}",
            "PLAY_REFRESH_TOKEN={v}",
        ],
    ),
    (
        "fcm_legacy_server_key",
        g_fcm,
        [
            "FCM server key: {v}",
            "curl https://fcm.googleapis.com/fcm/send -H 'Authorization: key={v}' -H 'Content-Type: application/json'",
            "push svc -> fcm_server_key = {v}",
        ],
    ),
    (
        "discord_bot_token",
        g_discord_bot,
        [
            "DISCORD_TOKEN={v}",
            "community bot token (Wardenbot): {v}",
            "client.run('{v}')",
            "hey can you restart the bot w/ this {v}",
            "ボットのトークン: {v}",
        ],
    ),
    (
        "discord_webhook_url",
        g_discord_hook,
        [
            "patch notes webhook: {v}",
            "curl -H 'Content-Type: application/json' -d '{\"content\":\"server restart in 5\"}' {v}",
            "ALERTS_DISCORD_WEBHOOK={v}",
        ],
    ),
    (
        "discord_client_secret",
        g_discord_secret,
        [
            "discord app (Linked Roles) client secret {v}",
            "DISCORD_CLIENT_SECRET={v}",
        ],
    ),
    (
        "slack_bot_token",
        g_slack_bot,
        [
            "SLACK_BOT_TOKEN={v}",
            "liveops-alerts bot token {v}",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/chat.postMessage -d channel=C0LIVEOPS",
        ],
    ),
    (
        "slack_webhook_url",
        g_slack_hook,
        [
            "build failures go to {v}",
            "slack_webhook: {v}",
        ],
    ),
    (
        "github_pat",
        g_ghp,
        [
            "GH_TOKEN={v}",
            "git clone https://buildbot:{v}@github.com/studio/game-backend.git",
            "token for the tools repo (classic, repo scope): {v}",
        ],
    ),
    (
        "github_fine_grained_pat",
        g_gh_fine,
        [
            "fine-grained PAT for release-notes action: {v}",
            "gh auth login --with-token <<< {v}",
        ],
    ),
    (
        "aws_secret_access_key",
        g_aws_secret,
        [_akid_pair, _akid_pair2, "secret key for ops-ci is {v} (access key id in the ticket)"],
    ),
    (
        "azure_ad_client_secret",
        g_azure_cs,
        [
            "Partner Center / Xbox ingestion app secret: {v}",
            "AZURE_CLIENT_SECRET={v}",
            "az login --service-principal -u 5b2e9c11-7f0a-4b8e-9d3c-1e2f3a4b5c6d -p {v} --tenant studio.onmicrosoft.com",
        ],
    ),
    (
        "azure_storage_connection_string",
        g_azure_storage,
        [
            "DefaultEndpointsProtocol=https;AccountName=gamebuilds;AccountKey={v};EndpointSuffix=core.windows.net",
            "build artifacts storage key: {v}",
        ],
    ),
    (
        "eos_client_secret",
        g_eos_secret,
        [
            "EOS server client (Trusted Server policy) secret: {v}",
            "EOS_CLIENT_SECRET={v}",
            "-EOSClientSecret={v} passed to dedicated server on launch",
        ],
    ),
    (
        "xbox_partner_center_password",
        human,
        [
            "Partner Center login for cert submissions: xbox-release@studio.example / {v}",
            "xbox dev portal pw {v}",
        ],
    ),
    (
        "playstation_partner_portal_password",
        human,
        [
            "PS partner portal (DevNet) account releng_ps: {v}",
            "devkit target manager admin / {v}",
            "PlayStation partners -- Hasło: {v}",
        ],
    ),
    (
        "nintendo_developer_portal_password",
        human,
        [
            "NDP login ndp-ops@studio.example, {v}",
            "Nintendo dev portal pw changed -> {v}",
            "任天堂デベロッパーポータル: ndp-ops@studio.example / {v}",
        ],
    ),
    (
        "game_server_rcon_password",
        human,
        [
            'rcon_password "{v}"',
            "mcrcon -H eu-fra-03.game.internal -P 25575 -p {v} 'say restart in 5'",
            "RCON on the EU fleet is {v}",
            "BattlEye RCon pw (BEServer.cfg): RConPassword {v}",
        ],
    ),
    (
        "postgres_url_password",
        g_mixed_pw,
        [
            "DATABASE_URL=postgres://liveops:{v}@pg-prod-1.internal:5432/economy",
            "psql 'postgresql://readonly:{v}@analytics-db.internal/events?sslmode=require'",
            "economy db: user liveops pw {v}",
        ],
    ),
    (
        "redis_password",
        g_mixed_pw,
        [
            "redis://:{v}@matchmaking-cache.internal:6379/0",
            "redis-cli -h leaderboard-redis -a {v} ZREVRANGE lb:season12 0 9",
            "requirepass {v}",
        ],
    ),
    (
        "mongodb_url_password",
        g_mixed_pw,
        [
            "MONGO_URI=mongodb+srv://profiles:{v}@cluster0.ab1cd.mongodb.net/players?retryWrites=true",
            "mongosh 'mongodb://admin:{v}@mongo-inventory-0:27017/admin'",
        ],
    ),
    (
        "jwt_signing_secret",
        g_hex64,
        [
            "SESSION_JWT_SECRET={v}",
            "matchmaker hmac key (signs join tickets): {v}",
        ],
    ),
    (
        "live_bearer_jwt",
        g_jwt,
        [
            "Authorization: Bearer {v}",
            "curl https://api.game.example/v2/inventory -H 'Authorization: Bearer {v}'",
            "admin session token from prod console, works for ~24h: {v}",
        ],
    ),
    (
        "http_basic_auth_header",
        g_basic,
        [
            "Authorization: Basic {v}",
            "curl -H 'Authorization: Basic {v}' https://liveops-admin.game.example/api/ban",
        ],
    ),
    (
        "sentry_auth_token",
        g_sentry_tok,
        [
            "SENTRY_AUTH_TOKEN={v}",
            "sentry-cli --auth-token {v} upload-dif build/symbols",
        ],
    ),
    (
        "gameanalytics_secret_key",
        g_hex40,
        [
            "GameAnalytics secret key (server events): {v}",
            "ga_secret_key: {v}",
        ],
    ),
    (
        "amplitude_secret_key",
        g_hex32,
        [
            "amplitude secret key (export API): {v}",
            "curl -u $AMP_API_KEY:{v} 'https://amplitude.com/api/2/export?start=20260101T00&end=20260102T00'",
        ],
    ),
    (
        "mixpanel_api_secret",
        g_hex32,
        [
            "Mixpanel API secret for raw export: {v}",
            "MIXPANEL_API_SECRET={v}",
        ],
    ),
    (
        "datadog_api_key",
        g_dd,
        [
            "DD_API_KEY={v}",
            "datadog key for gameserver fleet agents: {v}",
        ],
    ),
    (
        "stripe_secret_key",
        g_stripe_sk,
        [
            "web shop stripe key {v}",
            "STRIPE_SECRET_KEY={v}",
        ],
    ),
    (
        "stripe_restricted_key",
        g_stripe_rk,
        [
            "restricted key (refunds only) for support tool: {v}",
        ],
    ),
    (
        "sendgrid_api_key",
        g_sendgrid,
        [
            "SENDGRID_API_KEY={v}",
            "account-recovery mails use {v}",
        ],
    ),
    (
        "npm_token",
        g_npm,
        [
            "//registry.npmjs.org/:_authToken={v}",
            "npm token for @studio/ui-kit publish: {v}",
        ],
    ),
    (
        "jenkins_api_token",
        g_jenkins,
        [
            "curl -u buildbot:{v} https://jenkins.studio.internal/job/Game-Win64-Shipping/buildWithParameters",
            "jenkins token buildbot -> {v}",
        ],
    ),
    (
        "ssh_private_key",
        g_ssh,
        [
            "deploy key for build farm agents (id_ed25519):\n{v}",
            "{v}",
        ],
    ),
    (
        "xsolla_api_key",
        g_hf_xsolla,
        [
            "Xsolla merchant API key (webshop): {v}",
            "XSOLLA_API_KEY={v}",
        ],
    ),
]


# ---- benign generators ----
def b_appid(r):
    return str(r.randint(1000000, 3299999))


def b_buildid(r):
    return str(r.randint(12000000, 19999999))


def b_steamid64(r):
    return str(76561197960265728 + r.randint(10000000, 999999999))


def b_uuid(r):
    h = s(r, HEXL, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"


def b_title5(r):
    return s(r, HEXU, 5)


def b_hex8u(r):
    return s(r, HEXU, 8)


def b_psid(r):
    return (
        r.choice(["EP", "UP", "JP", "HP"])
        + s(r, DG, 4)
        + "-"
        + r.choice(["CUSA", "PPSA"])
        + s(r, DG, 5)
        + "_00-"
        + s(r, UP + DG, 16)
    )


def b_nx(r):
    return "0100" + s(r, HEXU, 8) + r.choice(["0000", "2000", "4000"])


def b_sku(r):
    return (
        "com.studio.skyforge."
        + r.choice(["gems", "coins", "battlepass", "starter_pack", "skin_bundle"])
        + "_"
        + str(r.randint(10, 999) * 10)
    )


def b_gpa(r):
    return "GPA." + s(r, DG, 4) + "-" + s(r, DG, 4) + "-" + s(r, DG, 4) + "-" + s(r, DG, 5)


def b_apple_txn(r):
    return "2000000" + s(r, DG, 9)


def b_play_pubkey(r):
    return "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(r, 256)[:-4] + "IDAQAB"


def b_aiza(r):
    return "AIza" + s(r, AN + "-_", 35)


def b_pk_live(r):
    return "pk_live_51" + s(r, AN, 97)


def b_sitekey(r):
    return "6L" + s(r, AN + "-_", 38)


def b_sentry_dsn(r):
    return "https://" + s(r, HEXL, 32) + "@o" + s(r, DG, 6) + ".ingest.sentry.io/" + s(r, DG, 7)


def b_sshpub(r):
    return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(r, B64, 43)


def b_cert(r):
    return "-----BEGIN CERTIFICATE-----\nMIID" + pem_body(r, 600) + "\n-----END CERTIFICATE-----"


def b_fp(r):
    return "SHA256:" + b64(r, 32).rstrip("=")


def b_fp_colon(r):
    return ":".join(s(r, HEXU, 2) for _ in range(20))


def b_eos_client_id(r):
    return "xyza7891" + s(r, AN, 24)


def b_apple_team(r):
    return s(r, UP + DG, 10)


def b_unity_guid(r):
    return s(r, HEXL, 32)


def b_cl(r):
    return str(r.randint(180000, 999999))


def b_version(r):
    return f"{r.randint(1, 4)}.{r.randint(0, 30)}.{r.randint(0, 9)}.{r.randint(1000, 9999)}"


def b_seed(r):
    return str(r.randint(10**9, 2**63 - 1))


def b_serial(r):
    return s(r, UP, 2) + s(r, DG, 9)


def b_mac(r):
    return ":".join(s(r, HEXL, 2) for _ in range(6))


def b_ip(r):
    return f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}"


def b_revoked_discord(r):
    return g_discord_bot(r)


def b_revoked_steam(r):
    return g_steam_key(r)


def b_masked_stripe(r):
    return "sk_live_" + "*" * 20 + s(r, AN, 4)


def b_masked_generic(r):
    return s(r, AN, 4) + "…" + s(r, AN, 4)


def b_last4(r):
    return s(r, HEXU, 4)


def b_docker(r):
    return "sha256:" + s(r, HEXL, 64)


def b_amp_key(r):
    return s(r, HEXL, 32)


def b_adjust(r):
    return s(r, LO + DG, 12)


def b_ga_gamekey(r):
    return s(r, HEXL, 32)


def b_be_guid(r):
    return s(r, HEXL, 32)


def b_hwid(r):
    return s(r, HEXU, 40)


def b_crash(r):
    return s(r, HEXL, 32)


def b_order(r):
    return "ORD-" + s(r, UP + DG, 10)


def b_ticket(r):
    return r.choice(["LIVE", "OPS", "BE", "REL"]) + "-" + str(r.randint(100, 9999))


def b_vault_path(r):
    return (
        "kv/liveops/"
        + r.choice(["playfab", "steam", "discord", "apple-iap", "eos"])
        + "/"
        + r.choice(["prod", "staging", "qa"])
        + "#v"
        + str(r.randint(2, 40))
    )


def b_envname(r):
    return (
        r.choice(
            [
                "PLAYFAB_DEV_SECRET_KEY",
                "STEAM_WEB_API_KEY",
                "DISCORD_TOKEN",
                "APPLE_SHARED_SECRET",
                "EOS_CLIENT_SECRET",
                "MATCH_PASSWORD",
            ]
        )
        + "_"
        + s(r, UP, 3)
    )


def b_sha1(r):
    return s(r, HEXL, 40)


def b_sha7(r):
    return s(r, HEXL, 7)


def b_sha256(r):
    return s(r, HEXL, 64)


def b_md5(r):
    return s(r, HEXL, 32)


def b_snowflake(r):
    return snowflake(r)


def b_int_small(r):
    return str(r.randint(1000, 99999))


def b_gs_serviceacct(r):
    return "iap-verifier-" + s(r, LO + DG, 6) + "@pc-api-7731204459-lqx.iam.gserviceaccount.com"


def b_key_id(r):
    return s(r, UP + DG, 10)


def b_scid(r):
    return "00000000-0000-0000-0000-0000" + s(r, HEXL, 8)


def b_eos_dep(r):
    return s(r, HEXL, 32)


BENIGN_KINDS = [
    (
        "steam_app_id",
        b_appid,
        [
            "steam appid for the demo is {v}, playtest is the next one",
            "steam_appid.txt -> {v}",
            '"AppID" "{v}"',
            "| branch | appid |\n| playtest | {v} |",
        ],
    ),
    (
        "steam_build_id",
        b_buildid,
        [
            "pushed buildid {v} to beta branch, set live after smoke test",
            "steamcmd +app_info_print 1843310 shows buildid {v} on public",
            "rollback target: build {v}",
        ],
    ),
    (
        "steamid64",
        b_steamid64,
        [
            "banned player steamid {v} (chargeback abuse)",
            "whitelist {v} for the closed alpha",
            "ISteamUser/GetPlayerSummaries?steamids={v} returns private profile",
        ],
    ),
    (
        "git_commit_sha",
        b_sha1,
        [
            "hotfix merged at {v}",
            "git cherry-pick {v}",
            "server build was cut from commit {v}",
            "release/1.14 HEAD = {v}",
        ],
    ),
    (
        "short_commit_sha_in_build_name",
        b_sha7,
        [
            "Game-Win64-Shipping-1.14.2-{v}.zip",
            "crash only on builds after {v}",
            "ビルド {v} でマッチメイキングが直った",
        ],
    ),
    (
        "artifact_sha256",
        b_sha256,
        [
            "sha256 of the GM depot manifest: {v}",
            "{v}  SkyforgeServer-linux.tar.gz",
            "certutil -hashfile shows {v} for the signed exe",
        ],
    ),
    (
        "pak_md5",
        b_md5,
        [
            "pakchunk0-WindowsNoEditor.pak md5 {v}",
            "md5sum check: {v} (matches CDN)",
            "hash contenu du bundle : {v}",
        ],
    ),
    (
        "unity_asset_guid",
        b_unity_guid,
        [
            "fileFormatVersion: 2\nguid: {v}\nTextureImporter:",
            "missing prefab ref guid {v} in Lobby.unity",
            "addressables key for PlayerSkin_07 -> {v}",
        ],
    ),
    (
        "docker_image_digest",
        b_docker,
        [
            "gameserver image pinned to registry.studio.internal/gs@{v}",
            "digest: {v}",
        ],
    ),
    (
        "playfab_title_id",
        b_title5,
        [
            "PlayFab title id prod = {v}, staging is another one",
            'PlayFabSettings.staticSettings.TitleId = "{v}";',
            "https://{v}.playfabapi.com/Client/LoginWithCustomID",
        ],
    ),
    (
        "xbox_title_id",
        b_hex8u,
        [
            "Xbox title id 0x{v}, MSAAppId in MicrosoftGame.config",
            'TitleId="{v}"',
        ],
    ),
    (
        "xbox_scid",
        b_scid,
        [
            "SCID {v} (service config id, public in the package)",
            "<ServiceConfigId>{v}</ServiceConfigId>",
        ],
    ),
    (
        "playstation_content_id",
        b_psid,
        [
            "PS5 content id {v}",
            "ContentID={v} in param.json",
            "concept / content id for EU sku: {v}",
        ],
    ),
    (
        "nintendo_title_id",
        b_nx,
        [
            "Switch application id 0x{v}",
            "title id {v} -- patch 1.0.3 submitted via lotcheck",
            "Application ID: {v}",
        ],
    ),
    (
        "iap_product_sku",
        b_sku,
        [
            "new SKU {v} goes live with the winter event",
            "product id {v} missing from Play console",
            "| sku | price tier |\n| {v} | 4 |",
        ],
    ),
    (
        "google_play_order_id",
        b_gpa,
        [
            "refund request for order {v}",
            "player sent receipt screenshot, order {v}, granted gems manually",
            "orderId: {v}",
        ],
    ),
    (
        "apple_transaction_id",
        b_apple_txn,
        [
            "originalTransactionId {v} keeps renewing after cancel",
            "Apple txn {v} -- duplicate grant, clawed back",
        ],
    ),
    (
        "google_play_license_public_key",
        b_play_pubkey,
        [
            "Play licensing base64 public key (Monetization setup), goes in the client:\n{v}",
            "BILLING_PUBLIC_KEY={v}",
        ],
    ),
    (
        "firebase_client_api_key_public",
        b_aiza,
        [
            "google-services.json current_key {v} (client key, restricted to com.studio.skyforge + SHA1)",
            'firebase web config apiKey: "{v}" -- public by design, restricted in console',
        ],
    ),
    (
        "stripe_publishable_key",
        b_pk_live,
        [
            "web shop checkout publishable key {v}",
            "NEXT_PUBLIC_STRIPE_PK={v}",
        ],
    ),
    (
        "recaptcha_site_key",
        b_sitekey,
        [
            "account portal recaptcha site key {v} (the secret one is in vault)",
            'data-sitekey="{v}"',
        ],
    ),
    (
        "sentry_dsn_client",
        b_sentry_dsn,
        [
            "Sentry DSN for the Unity client: {v}",
            'SentryOptions.Dsn = "{v}";',
        ],
    ),
    (
        "gameanalytics_game_key",
        b_ga_gamekey,
        [
            "GameAnalytics game key (client, not secret): {v}",
            'GameAnalytics.configureGameKey("{v}") -- secret key is server only',
        ],
    ),
    (
        "amplitude_api_key_client",
        b_amp_key,
        [
            "amplitude api key in the client SDK: {v} (that's fine, it's public)",
            'Amplitude.Instance.init("{v}");',
        ],
    ),
    (
        "mixpanel_project_token",
        b_md5,
        [
            "mixpanel project token {v} (client side)",
            'mixpanel.init("{v}")',
        ],
    ),
    (
        "adjust_app_token",
        b_adjust,
        [
            "adjust app token {v}, event token for first_purchase in the sheet",
            'AdjustConfig("{v}", AdjustEnvironment.Production)',
        ],
    ),
    (
        "eos_product_and_deployment_ids",
        b_eos_dep,
        [
            "EOS DeploymentId (live) {v}",
            "-EpicDeploymentId={v}",
            "EOS sandbox id: {v}",
        ],
    ),
    (
        "eos_client_id",
        b_eos_client_id,
        [
            "EOS client id (client policy, shipped in game) {v}",
            "ClientId={v}",
        ],
    ),
    (
        "photon_app_id",
        b_uuid,
        [
            "Photon AppId realtime: {v}",
            "PhotonServerSettings AppIdRealtime = {v}",
        ],
    ),
    (
        "unity_project_id",
        b_uuid,
        [
            "Unity Cloud project id {v}",
            "cloudProjectId: {v}",
        ],
    ),
    (
        "generic_uuid",
        b_uuid,
        [
            "match id {v} desynced at round 3",
            "player {v} stuck in queue",
            "correlation id {v}",
        ],
    ),
    (
        "discord_snowflake_ids",
        b_snowflake,
        [
            "guild id {v} (community server)",
            "post announcements in channel {v}",
            "discord application id {v}",
            "https://discord.com/oauth2/authorize?client_id={v}&scope=bot&permissions=2048",
        ],
    ),
    (
        "ssh_public_key",
        b_sshpub,
        [
            "add to agents authorized_keys: {v} build@ba-lin-02",
            "{v} tomek@laptop",
        ],
    ),
    (
        "x509_certificate",
        b_cert,
        [
            "intermediate CA for the matchmaker TLS:\n{v}",
            "{v}",
        ],
    ),
    (
        "key_fingerprint",
        b_fp,
        [
            "host key fingerprint for p4 server: {v}",
            "ED25519 key fingerprint is {v}.",
        ],
    ),
    (
        "cert_sha1_fingerprint",
        b_fp_colon,
        [
            "upload cert SHA-1 {v} (register in Firebase)",
            "Play App Signing cert fingerprint: {v}",
        ],
    ),
    (
        "apple_team_and_key_ids",
        b_apple_team,
        [
            "Apple team id {v}",
            "DEVELOPMENT_TEAM = {v};",
            "App Store Connect key id {v} (the .p8 itself is in 1Password)",
        ],
    ),
    (
        "google_service_account_email",
        b_gs_serviceacct,
        [
            "grant Play Console finance read to {v}",
            "client_email: {v}",
        ],
    ),
    (
        "perforce_changelist",
        b_cl,
        [
            "CL {v} broke the shader cache",
            "p4 sync //depot/Game/Main/...@{v}",
            "UGS: last good CL {v}",
        ],
    ),
    (
        "build_version_number",
        b_version,
        [
            "client version {v} forced update",
            "BuildVersion={v}",
        ],
    ),
    (
        "procgen_world_seed",
        b_seed,
        [
            "repro seed {v} -- dungeon gen spawns boss in wall",
            "-worldseed={v}",
        ],
    ),
    (
        "devkit_serial_and_network",
        b_serial,
        [
            "devkit serial {v} RMA'd, replacement arriving Thu",
            "numer seryjny devkita: {v}",
        ],
    ),
    (
        "devkit_mac_address",
        b_mac,
        [
            "reserve DHCP for devkit mac {v}",
            "Xbox devkit MAC {v} -> 10.20.4.31",
        ],
    ),
    (
        "battleye_guid",
        b_be_guid,
        [
            "BE GUID {v} flagged for speedhack, reviewed, legit",
            "ban list line: {v} -1 aimbot",
        ],
    ),
    (
        "anticheat_hwid_hash",
        b_hwid,
        [
            "hwid hash {v} linked to 4 alts",
            "EAC violation report hwid {v}",
        ],
    ),
    (
        "crash_report_id",
        b_crash,
        [
            "crash id {v} -- null ref in InventoryUI",
            "Backtrace/Unity crash {v} top of the list since 1.14",
        ],
    ),
    (
        "support_and_ticket_ids",
        b_ticket,
        [
            "see {v} for the rollback plan",
            "blocked by {v}",
        ],
    ),
    (
        "masked_secret",
        b_masked_stripe,
        [
            "rotated stripe key, new one ends {v}",
            "dashboard shows {v} as active",
        ],
    ),
    (
        "masked_token_short",
        b_masked_generic,
        [
            "bot token in prod is {v} (full value in vault)",
            "PlayFab secret shown as {v} in admin UI",
        ],
    ),
    (
        "key_last4_reference",
        b_last4,
        [
            "steam publisher key ending {v} is the current one",
            "Apple shared secret (...{v}) rotated on Monday",
        ],
    ),
    (
        "vault_reference",
        b_vault_path,
        [
            "playfab secret lives at {v}, not in the repo",
            "vault kv get {v}",
            "Sekret jest w vaultcie: {v}",
        ],
    ),
    (
        "env_var_name_reference",
        b_envname,
        [
            "the CI reads ${v} -- set it in the pipeline settings",
            "rename {v} before the migration",
        ],
    ),
    (
        "revoked_discord_token_said_revoked",
        b_revoked_discord,
        [
            "token leaked in #general and was REVOKED + regenerated (old, dead): {v}",
            "old bot token {v} -- reset in dev portal 10 min after the leak, no longer valid",
        ],
    ),
    (
        "revoked_steam_key_said_revoked",
        b_revoked_steam,
        [
            "revoked web api key {v} (revoked in partner site after contractor left)",
        ],
    ),
    (
        "procedure_order_id",
        b_order,
        [
            "webshop order {v} double charged",
            "Xsolla transaction {v} pending",
        ],
    ),
    (
        "small_numeric_ids",
        b_int_small,
        [
            "port {v} open on the fleet for query",
            "Xsolla project id {v}",
            "PS concept id {v}",
        ],
    ),
    (
        "internal_ip",
        b_ip,
        [
            "license server moved to {v}",
            "devkit ps5-07 at {v}",
        ],
    ),
]

LITERAL_BENIGN = [
    (
        "placeholder_value",
        [
            ("STEAM_WEB_API_KEY=<your-steam-api-key>", "<your-steam-api-key>"),
            ("playfab:\n  secret_key: ${PLAYFAB_SECRET_KEY}", "${PLAYFAB_SECRET_KEY}"),
            ('rcon_password "changeme"', "changeme"),
            ("DISCORD_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxx", "xxxxxxxxxxxxxxxxxxxxxxxx"),
            (
                "steamcmd +login studio_builder {{ secrets.STEAM_PASSWORD }} +run_app_build app.vdf",
                "{{ secrets.STEAM_PASSWORD }}",
            ),
            ("storePassword=REPLACE_ME", "REPLACE_ME"),
            ("Authorization: Bearer <token>", "<token>"),
            ('MATCH_PASSWORD="$MATCH_PASSWORD"', "$MATCH_PASSWORD"),
        ],
    ),
    (
        "redacted_value",
        [
            ("X-SecretKey: [REDACTED]", "[REDACTED]"),
            ("postgres://liveops:********@pg-prod-1.internal:5432/economy", "********"),
            ("FCM key: <redacted by bot>", "<redacted by bot>"),
        ],
    ),
    (
        "documented_example_key",
        [
            (
                "aws docs example: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
            ("the key in the tutorial is AKIAIOSFODNN7EXAMPLE, ignore it", "AKIAIOSFODNN7EXAMPLE"),
            (
                "jwt.io sample: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            ),
        ],
    ),
    (
        "public_test_values",
        [
            ("Play billing static test product: android.test.purchased", "android.test.purchased"),
            (
                "stripe test card 4242 4242 4242 4242, any future exp, any CVC",
                "4242 4242 4242 4242",
            ),
            (
                "reCAPTCHA test site key 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI always passes",
                "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
            ),
            ("Spacewar test appid 480 for steam p2p testing", "480"),
        ],
    ),
    (
        "password_policy_text_len",
        [
            (
                "policy: portal passwords must be at least 14 chars, rotate every 90 days, no reuse",
                "at least 14 chars",
            ),
            (
                "minimum length 16, MFA mandatory for Partner Center and NDP accounts",
                "minimum length 16",
            ),
        ],
    ),
    (
        "password_policy_prose",
        [
            (
                "Rule: never paste the Partner Center password in Slack, use 1Password share links.",
                "Partner Center password",
            ),
            ("Hasła do portali konsolowych tylko w menedżerze haseł, nigdy w notatkach.", "Hasła"),
            (
                "password rotation for devkit admin accounts is quarterly, owner: IT",
                "password rotation",
            ),
        ],
    ),
]


EXTRA_SECRET = {
    "steam_web_api_key": ["new one from Valve partner site, old revoked:\n{v}"],
    "playfab_developer_secret_key": ["prod title secret (rotated today):\n{v}"],
    "discord_bot_token": ["bot went offline again. put {v} back in the .env on the vps pls"],
    "game_server_rcon_password": ["eu fleet admin console → {v} (same on NA)"],
    "steam_partner_password": ["builder acct: studio_builder\n{v}"],
    "redis_password": ["Redis na serwerze matchmakingu ma hasło {v}"],
    "postgres_url_password": ["| db | user | pass |\n| economy | liveops | {v} |"],
    "apple_iap_shared_secret": ["iap verify secret, Gems app\n{v}"],
    "perforce_password": ["build_svc / {v}"],
    "eos_client_secret": ["EOS 서버 클라이언트 시크릿: {v}"],
    "xbox_partner_center_password": [
        "Partner Center-Zugang: xbox-release@studio.example, Passwort {v}"
    ],
    "android_keystore_password": ["ks: release.jks\nalias upload\n{v}"],
    "github_pat": ["{v}"],
    "slack_webhook_url": ["{v}"],
    "sentry_auth_token": ["sentry token if you need to upload symbols manually: {v}"],
    "jwt_signing_secret": ['jwt:\n  secret: "{v}"\n  ttl: 3600'],
    "amplitude_secret_key": ["AMPLITUDE_SECRET_KEY={v}"],
    "datadog_api_key": ["| svc | dd key |\n| gs-fleet | {v} |"],
}

EXTRA_BENIGN = {
    "steam_app_id": ["Steam-AppID der Demo: {v}"],
    "git_commit_sha": ["| env | sha |\n| prod | {v} |", "{v}"],
    "artifact_sha256": ["{v}"],
    "pak_md5": ["{v}"],
    "unity_asset_guid": ["{v}"],
    "playfab_title_id": ["TitleId {v} (public, in client)"],
    "iap_product_sku": ["SKU do passe de batalha: {v}"],
    "google_play_order_id": ["{v}"],
    "apple_transaction_id": ["transaction_id={v}"],
    "steamid64": ["{v}"],
    "generic_uuid": ["{v}", "request_id={v}"],
    "discord_snowflake_ids": ["{v}"],
    "crash_report_id": ["{v}"],
    "anticheat_hwid_hash": ["{v}"],
    "battleye_guid": ["{v}"],
    "eos_product_and_deployment_ids": ["ProductId={v}"],
    "xbox_title_id": ["{v}"],
    "nintendo_title_id": ["{v}"],
    "playstation_content_id": ["{v}"],
    "ssh_public_key": ["{v}"],
    "key_fingerprint": ["{v}"],
    "cert_sha1_fingerprint": ["{v}"],
    "vault_reference": ["1Password item LiveOps/playfab-prod, mirrored at {v}"],
    "masked_secret": ["{v}"],
    "apple_team_and_key_ids": ["{v}"],
    "perforce_changelist": ["{v}"],
    "procgen_world_seed": ["{v}"],
    "sentry_dsn_client": ["{v}"],
    "firebase_client_api_key_public": ["apiKey: {v} (Firebase client config, public)"],
    "docker_image_digest": ["{v}"],
    "short_commit_sha_in_build_name": ["{v}"],
    "steam_build_id": ["{v}"],
}

for _kind, _gen, _tpls in SECRET_KINDS:
    _tpls.extend(EXTRA_SECRET.get(_kind, []))
for _kind, _gen, _tpls in BENIGN_KINDS:
    _tpls.extend(EXTRA_BENIGN.get(_kind, []))


def _render(t, v, r):
    if callable(t):
        return t(v, r)
    return t.replace("{v}", v)


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, kinds in (("secret", SECRET_KINDS), ("benign", BENIGN_KINDS)):
        for kind, gen, templates in kinds:
            for t in templates:
                v = gen(r)
                text = _render(t, v, r)
                if isinstance(text, tuple):
                    text, v = text
                assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    for kind, pairs in LITERAL_BENIGN:
        for text, v in pairs:
            assert v in text, (kind, text)
            rows.append({"label": "benign", "kind": kind, "text": text, "value": v})
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

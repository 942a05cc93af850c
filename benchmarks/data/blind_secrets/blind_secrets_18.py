"""Blind secrets corpus 18: chat transcripts and email threads pasted into memory.

Brief: chat transcripts (Slack, Teams, Discord, WhatsApp) and email threads pasted into
memory: people passing credentials back and forth, correcting each other ("no wait, that's
the old one"), typos, markdown and emoji, quoted replies, mixed languages, values split over
messages or wrapped in backticks; plus the same conversations without a secret in them
(asking for one, saying where it is, pasting a redacted or public value, ids and hashes).

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.

Every random value is generated from random.Random(SEED) inside corpus(); no real credential
appears anywhere. Formats follow the author's own knowledge of each provider.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_18.py /tmp/blind18.jsonl
    (no argument: JSONL on stdout)

Kinds
-----
secret:
    aws_secret_access_key, aws_session_token, github_pat_classic, github_pat_fine_grained,
    github_oauth_token, github_pat_split_across_messages, gitlab_pat, slack_bot_token,
    slack_user_token, slack_webhook_url, discord_bot_token, discord_webhook_url,
    teams_webhook_url, telegram_bot_token, stripe_secret_key, stripe_restricted_key,
    stripe_webhook_secret, openai_api_key, anthropic_api_key, google_api_key_server,
    google_oauth_client_secret, twilio_auth_token, sendgrid_api_key, mailgun_api_key,
    npm_token, pypi_token, huggingface_token, groq_api_key, bearer_jwt_session,
    postgres_url_with_password, mongodb_srv_uri, redis_url_password, chat_password,
    password_split_across_messages, wifi_password, ssh_sudo_password, smtp_password,
    openssh_private_key, ec_private_key_pem, azure_storage_account_key, azure_client_secret,
    datadog_api_key, vault_token, terraform_cloud_token, cloudflare_api_token,
    digitalocean_token, atlassian_api_token, okta_api_token, new_relic_user_key,
    grafana_service_account_token, postman_api_key, docker_hub_pat, age_secret_key,
    wireguard_private_key, k8s_bootstrap_token, totp_seed, recovery_codes, bip39_seed_phrase,
    eth_private_key, session_cookie, basic_auth_in_url, shopify_access_token,
    supabase_service_role_key, notion_token, linear_api_key, figma_pat, sentry_auth_token,
    doppler_token, mapbox_secret_token, django_secret_key, jwt_signing_secret,
    generic_api_key_header
benign:
    aws_docs_example_key, aws_account_id_arn, secrets_manager_arn_reference, git_commit_sha,
    docker_image_digest, npm_integrity_hash, file_checksum, request_uuid,
    stripe_publishable_key, stripe_object_ids, slack_object_ids, discord_snowflake_ids,
    ssh_public_key, ssh_fingerprint, gpg_fingerprint, age_public_key, wireguard_public_key,
    placeholder_token, ci_secret_reference, onepassword_reference, vault_path_reference,
    redacted_value, asking_for_secret, rotated_notice_no_value, where_secret_lives,
    supabase_anon_key, recaptcha_site_key, algolia_search_only_key, mapbox_public_token,
    posthog_project_key, analytics_measurement_id, sentry_dsn_public, jwt_io_example,
    eth_address, eth_tx_hash, bitcoin_address, ipfs_cid, mongodb_objectid, twilio_account_sid,
    azure_tenant_client_ids, google_oauth_client_id, github_app_ids, music_key,
    llm_token_count, password_policy_talk, other_sense_secret, database_key_talk,
    keyboard_key, design_tokens, k8s_secret_key_ref, env_var_name_only, public_cert_pem,
    bundle_content_hash, base64_non_secret, revoked_and_deleted_key, build_version_ids,
    order_tracking_ids, webhook_endpoint_no_secret, webhook_signature_header, ulid_ids,
    docs_placeholder_connection_string, phishing_warning, oauth_scopes_talk, known_hosts_line,
    aws_access_key_id_only, test_card_number, dkim_dns_record, cloudflare_zone_id,
    git_lfs_pointer, expired_otp_code
"""

# ruff: noqa: E501  (corpus data: long literal chat transcripts)
from __future__ import annotations

import base64
import json
import random
import re
import sys
import uuid

SEED = 518018

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DIG = "0123456789"
AN = UP + LO + DIG
HEX = "0123456789abcdef"
B64 = AN + "+/"
URL = AN + "-_"
B32 = UP + "234567"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
WORDS = [
    "abandon",
    "ability",
    "absorb",
    "abstract",
    "acid",
    "acoustic",
    "adapt",
    "admit",
    "adult",
    "advance",
    "aerobic",
    "afford",
    "agent",
    "aisle",
    "alarm",
    "album",
    "alley",
    "almost",
    "alpha",
    "anchor",
    "ankle",
    "antenna",
    "anxiety",
    "apart",
    "arena",
    "armor",
    "arrow",
    "artwork",
    "aspect",
    "assault",
    "atom",
    "auction",
    "august",
    "autumn",
    "avocado",
    "awake",
    "axis",
    "bacon",
    "badge",
    "bamboo",
    "banner",
    "barrel",
    "basket",
    "battle",
    "beacon",
    "beauty",
    "believe",
    "bench",
    "bicycle",
    "blossom",
    "bonus",
    "border",
    "bracket",
    "breeze",
    "bronze",
    "bubble",
    "buffalo",
    "cabin",
    "cactus",
    "canyon",
    "carbon",
]
NAMES = [
    "alice",
    "Bob",
    "Priya",
    "Jonas",
    "Mei",
    "Carlos",
    "Fatima",
    "Tomasz",
    "Yuki",
    "Olu",
    "Sanne",
    "Léa",
    "Ravi",
    "Diego",
    "Hana",
    "Marek",
    "Ines",
    "Kwame",
    "Sofia",
    "Arjun",
]


def _s(r: random.Random, alpha: str, n: int) -> str:
    return "".join(r.choice(alpha) for _ in range(n))


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(r: random.Random, payload: dict) -> str:
    head = _b64u(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64u(json.dumps(payload, separators=(",", ":")).encode())
    return f"{head}.{body}.{_s(r, URL, 43)}"


def _uuid(r: random.Random) -> str:
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def _password(r: random.Random) -> str:
    w = [x.capitalize() for x in r.sample(WORDS, 2)]
    return f"{w[0]}{r.choice('!#%*-+')}{w[1]}{r.randint(10, 9999)}{r.choice('!?$&')}"


def _pw_random(r: random.Random) -> str:
    return _s(r, AN, 6) + r.choice("!#%^*") + _s(r, AN, 5) + r.choice("@$&") + _s(r, AN, 4)


def _wg(r: random.Random) -> str:
    return base64.b64encode(bytes(r.getrandbits(8) for _ in range(32))).decode()


def _pem_lines(r: random.Random, lead: str, total: int, width: int = 64) -> str:
    body = lead + _s(r, B64, total - len(lead))
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def _mapbox(r: random.Random, prefix: str) -> str:
    user = r.choice(["acme-maps", "fjordtrail", "kestrel-geo", "pantryco"])
    mid = _b64u(json.dumps({"u": user, "a": _s(r, LO + DIG, 25)}, separators=(",", ":")).encode())
    return f"{prefix}.{mid}.{_s(r, URL, 22)}"


def _gens(r: random.Random) -> dict:
    """Marker generators usable in any template as «NAME»."""
    return {
        "A": lambda: r.choice(NAMES),
        "B": lambda: r.choice(NAMES),
        "C": lambda: r.choice(NAMES),
        "AKID": lambda: "AKIA" + _s(r, UP + "234567", 16),
        "HEX7": lambda: _s(r, HEX, 7),
        "HEX8": lambda: _s(r, HEX, 8),
        "HEX32": lambda: _s(r, HEX, 32),
        "HEX40": lambda: _s(r, HEX, 40),
        "SHA256": lambda: _s(r, HEX, 64),
        "UUID": lambda: _uuid(r),
        "UUID2": lambda: _uuid(r),
        "N4": lambda: str(r.randint(1000, 9999)),
        "N6": lambda: str(r.randint(100000, 999999)),
        "ACCT": lambda: str(r.randint(10**11, 10**12 - 1)),
        "SNOW": lambda: str(r.randint(10**17, 10**18 * 9)),
        "REST18": lambda: _s(r, AN, 18),
        "PWTAIL": lambda: _s(r, AN, 5) + r.choice("!?#"),
        "SLACKU": lambda: "U0" + _s(r, UP + DIG, 9),
        "SLACKC": lambda: "C0" + _s(r, UP + DIG, 9),
        "TIME": lambda: f"{r.randint(8, 18):02d}:{r.randint(0, 59):02d}",
    }


def _spec() -> list:
    """(label, kind, value generator taking rng, [templates]).

    Templates use «V» for the row value, «W» for a second value from the same generator,
    and other «MARKERS» from _gens().
    """
    S = "secret"
    G = "benign"
    return [
        # ------------------------------------------------------------------ secrets
        (
            S,
            "aws_secret_access_key",
            lambda r: _s(r, B64, 40),
            [
                "[«TIME»] «A»: prod deploy creds for the uploader\n`AWS_ACCESS_KEY_ID=«AKID»`\n`AWS_SECRET_ACCESS_KEY=«V»`\n[«TIME»] «B»: thx 🙏",
                "«A»: here's the IAM user for the backup job: «AKID» / «W»\n«A»: no wait, that's the old one, I rotated it friday. secret is «V»\n«B»: 👍 got it",
                'From WhatsApp w/ «A» (ops): "aws key «AKID» secret «V» - don\'t put it in git pls 😅"',
                "Teams, #infra-eu\n«A» Müller 10:14\nHier die Zugangsdaten fürs S3-Bucket:\naws_secret_access_key = «V»\n(key id «AKID»)",
            ],
        ),
        (
            S,
            "aws_session_token",
            lambda r: "FwoGZXIvYXdzE" + _s(r, B64, 300),
            [
                "«A» pasted temp creds from `aws sts assume-role` so I can debug the lambda, valid 12h:\nAWS_SESSION_TOKEN=«V»",
                "Discord #cloud-help\n«A» — Today at «TIME»\nsession token (expires tonight): ```«V»```",
            ],
        ),
        (
            S,
            "github_pat_classic",
            lambda r: "ghp_" + _s(r, AN, 36),
            [
                "[«TIME»] «A»: CI can't clone the private submodule, use my PAT for now: `«V»`\n[«TIME»] «B»: ok adding it as GH_TOKEN",
                "> On Tue, «A» wrote:\n> can you send the token for the release bot?\nsure, it's «V» (repo + workflow scopes)",
                "«A»: gh token → «W»\n«A»: ugh no, that one got revoked when I left the org. new: «V»",
                "WhatsApp [06/12/2026, «TIME»:11] «A»: toma el token de github «V» 👈 para el script de backup",
            ],
        ),
        (
            S,
            "github_pat_fine_grained",
            lambda r: "github_pat_11" + _s(r, UP + DIG, 20) + "_" + _s(r, AN, 59),
            [
                "«A» (Slack DM): fine-grained token scoped to the docs repo only, read/write contents:\n«V»",
                "#release channel, «A»: 🔑 `GITHUB_TOKEN=«V»` expires in 30 days, set a reminder",
                'Email from «A», subject "Re: mirror job":\nThe token is «V». It only has access to acme/mirror.',
            ],
        ),
        (
            S,
            "github_oauth_token",
            lambda r: "gho_" + _s(r, AN, 36),
            [
                "copied from «A»'s ~/.config/gh/hosts.yml while pairing: oauth_token: «V»",
                "«A»: the gh cli login token on the build box is «V», that's why it pushes as me lol",
            ],
        ),
        (
            S,
            "github_pat_split_across_messages",
            lambda r: "ghp_" + _s(r, AN, 18),
            [
                "[«TIME»] «A»: slack keeps mangling it so 2 parts\n[«TIME»] «A»: «V»\n[«TIME»] «A»: «REST18»\n[«TIME»] «B»: concatenated, works ✅",
                "«A»: first half of the deploy PAT: «V»\n«A»: second half in the next msg\n«A»: «REST18»",
            ],
        ),
        (
            S,
            "gitlab_pat",
            lambda r: "glpat-" + _s(r, URL, 20),
            [
                "«A»: registry login for the runner → user `ci-bot` pw `«V»` (it's a PAT, api+read_registry)",
                "Teams chat «A» «TIME»: GITLAB_TOKEN=«V» — bitte nur in der CI-Variable speichern",
                "«A»: «W» is the old one from before the migration\n«B»: so which is it\n«A»: «V» — this one, masked+protected in CI",
            ],
        ),
        (
            S,
            "slack_bot_token",
            lambda r: (
                f"xoxb-{r.randint(10**10, 10**12)}-{r.randint(10**12, 10**13)}-{_s(r, AN, 24)}"
            ),
            [
                "«A»: bot token for the standup app: `«V»`\n«B»: why is it in a public channel 😬\n«A»: it's #ops-private, chill",
                "Notes from call with «A»: the alerting bot posts with «V» (workspace acme-eng)",
                "Discord «A» — «TIME»\nfor the bridge bot, slack side: SLACK_BOT_TOKEN=«V»\nsigning secret is in the other message",
            ],
        ),
        (
            S,
            "slack_user_token",
            lambda r: (
                f"xoxp-{r.randint(10**10, 10**12)}-{r.randint(10**10, 10**12)}-{r.randint(10**12, 10**13)}-{_s(r, HEX, 32)}"
            ),
            [
                "«A»: used my user token to export the channel history, «V», revoke after?",
                "[«TIME»] «A»: xoxp for the archive script (acts as me!!) → «V»",
            ],
        ),
        (
            S,
            "slack_webhook_url",
            lambda r: (
                f"https://hooks.slack.com/services/T{_s(r, UP + DIG, 8)}/B{_s(r, UP + DIG, 10)}/{_s(r, AN, 24)}"
            ),
            [
                "«A»: incoming webhook for #deploys: «V»\n«A»: anyone with it can post there so keep it out of the repo",
                "> «A» wrote:\n> where do grafana alerts go?\nto «V» (the #alerts-prod webhook)",
                "«A»: webhook alt → «W»\n«A»: nee wacht, dat is de oude. nieuwe: «V»",
            ],
        ),
        (
            S,
            "discord_bot_token",
            lambda r: (
                _b64u(str(r.randint(10**17, 10**18 * 9)).encode())
                + "."
                + _s(r, URL, 6)
                + "."
                + _s(r, URL, 38)
            ),
            [
                "«A» — Today at «TIME»\nbot token for the moderation bot: ||«V»||\n(spoilered it lol)",
                "Discord DM «A»: DISCORD_TOKEN=«V» 🤖 don't run two instances",
                "WhatsApp «A»: token do bot do discord: «V» — reseta se vazar",
            ],
        ),
        (
            S,
            "discord_webhook_url",
            lambda r: (
                f"https://discord.com/api/webhooks/{r.randint(10**18, 10**19 - 1)}/{_s(r, URL, 68)}"
            ),
            [
                "«A»: CI → discord notifications webhook «V»",
                "«A» — Yesterday at «TIME»\n```\nWEBHOOK_URL=«V»\n```\nthis posts to #builds",
                'email from «A»: "Le webhook pour le salon #incidents est «V», merci de ne pas le partager."',
            ],
        ),
        (
            S,
            "teams_webhook_url",
            lambda r: (
                f"https://acmecorp.webhook.office.com/webhookb2/{_uuid(r)}@{_uuid(r)}/IncomingWebhook/{_s(r, HEX, 32)}/{_uuid(r)}"
            ),
            [
                "«A» «TIME»\nConnector URL for the 'Release Train' channel:\n«V»",
                "«A»: teams incoming webhook (jenkins posts here): «V»",
            ],
        ),
        (
            S,
            "telegram_bot_token",
            lambda r: f"{r.randint(10**9, 8 * 10**9)}:AA{_s(r, URL, 33)}",
            [
                "«A»: BotFather gave me «V» for the price alert bot",
                "WhatsApp [«TIME»] «A»: el token del bot de telegram es `«V»`",
                "«A»: TELEGRAM_BOT_TOKEN=«W»\n«A»: sorry thats the test bot, prod one: «V»",
            ],
        ),
        (
            S,
            "stripe_secret_key",
            lambda r: "sk_live_51" + _s(r, AN, 96),
            [
                "[«TIME»] «A»: live stripe key for the refunds script: «V»\n[«TIME»] «B»: 😱 live?? ok",
                "> On Mon «A» wrote:\n> STRIPE_SECRET_KEY?\n«V» — please put it in the vault after",
                "«A»: sk_test works locally, for prod use «V»",
                "Teams «A» «TIME»: Stripe secret (live) → `«V»` 🔐",
            ],
        ),
        (
            S,
            "stripe_restricted_key",
            lambda r: "rk_live_51" + _s(r, AN, 96),
            [
                "«A»: restricted key, read-only on charges, for the finance dashboard: «V»",
                "«A»: use «V» for the reporting cron (rk, not sk, so less scary)",
            ],
        ),
        (
            S,
            "stripe_webhook_secret",
            lambda r: "whsec_" + _s(r, AN, 32),
            [
                "«A»: signing secret for the /webhooks/stripe endpoint is «V»",
                "[«TIME»] «A»: STRIPE_WEBHOOK_SECRET=«W»\n[«TIME»] «A»: wait no that's the CLI one from `stripe listen`, the dashboard endpoint uses «V»",
                "Discord «A»: whsec para produção: «V»",
            ],
        ),
        (
            S,
            "openai_api_key",
            lambda r: "sk-proj-" + _s(r, URL, 74) + "T3BlbkFJ" + _s(r, URL, 74),
            [
                "«A»: OPENAI_API_KEY=«V»\n«A»: project 'support-bot', $200 limit",
                "[«TIME»] «A»: here's the openai key for the eval harness `«V»`\n[«TIME»] «B»: ty!!",
                "«A» (WhatsApp): key nova da openai «V» 🙏 a antiga foi revogada",
                "email «A» → team:\n> Can someone share the OpenAI key?\nUse «V» until the org key is sorted.",
            ],
        ),
        (
            S,
            "anthropic_api_key",
            lambda r: "sk-ant-api03-" + _s(r, URL, 93) + "AA",
            [
                "«A»: anthropic key for the summarizer: «V»",
                "Slack «A» «TIME»: `ANTHROPIC_API_KEY=«V»` in .env.local, not committed",
                "«A»: the workspace key is «V» (rate limit tier 2)",
            ],
        ),
        (
            S,
            "google_api_key_server",
            lambda r: "AIza" + _s(r, URL, 35),
            [
                "«A»: server-side Gemini key (unrestricted, billing on!) «V»",
                "«A»: GOOGLE_API_KEY for the geocoding backfill job = «V», no referrer restriction so keep it server side",
            ],
        ),
        (
            S,
            "google_oauth_client_secret",
            lambda r: "GOCSPX-" + _s(r, URL, 28),
            [
                "«A»: oauth client for the SSO proxy, client_secret: «V»",
                "Teams «A»: Client-Secret für Google Login: «V»",
                "«A»: GOOGLE_CLIENT_SECRET=«V» (client id is the ...apps.googleusercontent.com one in the config)",
            ],
        ),
        (
            S,
            "twilio_auth_token",
            lambda r: _s(r, HEX, 32),
            [
                "«A»: twilio sid AC«HEX32» auth token «V»",
                "[«TIME»] «A»: TWILIO_AUTH_TOKEN=«V» for the SMS 2FA sender",
            ],
        ),
        (
            S,
            "sendgrid_api_key",
            lambda r: "SG." + _s(r, URL, 22) + "." + _s(r, URL, 43),
            [
                "«A»: sendgrid key with mail.send only: «V»",
                "> «A» wrote:\n> what's the SMTP password for sendgrid?\nusername is literally `apikey`, password «V»",
                "«A»: neuer SendGrid-Key «V», der alte ist gelöscht",
            ],
        ),
        (
            S,
            "mailgun_api_key",
            lambda r: "key-" + _s(r, HEX, 32),
            [
                "«A»: mailgun private api key «V» (domain mg.acme.io)",
                "Discord «A»: MAILGUN_API_KEY=«V»",
            ],
        ),
        (
            S,
            "npm_token",
            lambda r: "npm_" + _s(r, AN, 36),
            [
                "«A»: automation token for publishing @acme/ui: «V»",
                "«A»: add `//registry.npmjs.org/:_authToken=«V»` to the runner's .npmrc",
                "[«TIME»] «A»: NPM_TOKEN=«W»\n[«TIME»] «A»: no wait, that's the read-only one. publish token: «V»",
            ],
        ),
        (
            S,
            "pypi_token",
            lambda r: "pypi-AgEIcHlwaS5vcmc" + _s(r, URL, 140),
            [
                "«A»: project-scoped pypi token for acme-sdk: «V»",
                "«A»: TWINE_PASSWORD=«V» (username __token__)",
            ],
        ),
        (
            S,
            "huggingface_token",
            lambda r: "hf_" + _s(r, UP + LO, 34),
            [
                "«A»: HF token with write on the org: «V»",
                "WhatsApp «A»: token do hugging face pra baixar o modelo gated: «V»",
                "«A»: `huggingface-cli login --token «V»` on the gpu box",
            ],
        ),
        (
            S,
            "groq_api_key",
            lambda r: "gsk_" + _s(r, AN, 52),
            [
                "«A»: groq key for the fast path: «V»",
                "Slack «A» «TIME»: GROQ_API_KEY=«V» 🚀",
            ],
        ),
        (
            S,
            "bearer_jwt_session",
            lambda r: _jwt(
                r, {"sub": _uuid(r), "role": "admin", "iat": 1796000000, "exp": 1896000000}
            ),
            [
                "«A»: grab my session from devtools if you need to repro: Authorization: Bearer «V»",
                "«A»: admin token for the staging API (valid till 2030 lol): «V»",
                "[«TIME»] «A»: curl -H 'Authorization: Bearer «V»' https://api.acme.io/v2/admin/users",
            ],
        ),
        (
            S,
            "postgres_url_with_password",
            lambda r: _password(r),
            [
                "«A»: prod read replica: `postgres://report_ro:«V»@db-ro.acme.internal:5432/app`",
                "«A»: DATABASE_URL=postgresql://app:«W»@10.0.4.12/app\n«A»: oops old pw. it's postgresql://app:«V»@10.0.4.12/app now",
                "Email «A»:\n> Whats the migration user?\nmigrator / «V» on pg-main.acme.internal",
                'Teams «A»: psql "host=pg.acme.internal user=admin password=«V» dbname=billing"',
            ],
        ),
        (
            S,
            "mongodb_srv_uri",
            lambda r: _pw_random(r),
            [
                "«A»: mongodb+srv://svc-api:«V»@cluster0.ab1cd.mongodb.net/prod?retryWrites=true",
                "WhatsApp «A»: string de conexão do atlas: mongodb+srv://admin:«V»@cluster1.xk2z.mongodb.net/",
            ],
        ),
        (
            S,
            "redis_url_password",
            lambda r: _s(r, AN, 32),
            [
                "«A»: REDIS_URL=redis://default:«V»@redis-12345.c1.eu-west-1.ec2.cloud.redislabs.com:12345",
                "«A»: redis requirepass on cache-01 is «V»",
            ],
        ),
        (
            S,
            "chat_password",
            lambda r: _password(r),
            [
                "[«TIME»] «A»: grafana admin login → admin / «V»\n[«TIME»] «B»: 🙏",
                "«A»: jenkins pw for `deploy` is `«V»`\n«B»: typo? «A»: no, capital letters on purpose",
                "«A»: pw for the shared 1Password-less account (i know i know): «V»",
                "Teams «A» «TIME»: Passwort für den Router-Admin: «V»",
                "«A»: mot de passe du compte root de la VM: «V» — change-le après",
            ],
        ),
        (
            S,
            "password_split_across_messages",
            lambda r: _password(r)[:9],
            [
                "[«TIME»] «A»: vpn pw part 1: «V»\n[«TIME»] «A»: part 2: «PWTAIL»\n[«TIME»] «B»: in, thanks",
                "«A»: don't want it in one message: «V»\n«A»: ...«PWTAIL»\n«A»: (no space)",
            ],
        ),
        (
            S,
            "wifi_password",
            lambda r: _password(r),
            [
                "«A»: office wifi AcmeHQ-Staff pw: «V»",
                "WhatsApp «A»: wifi do escritório: rede Acme5G senha «V» 📶",
                "«A»: guest network is open but the lab network (LAB-IOT) is «V»",
            ],
        ),
        (
            S,
            "ssh_sudo_password",
            lambda r: _pw_random(r),
            [
                "«A»: ssh ubuntu@bastion.acme.io, sudo pw «V»",
                "«A»: root on the NAS: «V»  (yes it's exposed on the vpn)",
            ],
        ),
        (
            S,
            "smtp_password",
            lambda r: _s(r, LO, 16),
            [
                "«A»: gmail app password for the alerts@ mailbox: «V»",
                "«A»: SMTP_USER=noreply@acme.io SMTP_PASS=«V»",
            ],
        ),
        (
            S,
            "openssh_private_key",
            lambda r: (
                "-----BEGIN OPENSSH PRIVATE KEY-----\n"
                + _pem_lines(
                    r,
                    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
                    280,
                    70,
                )
                + "\n-----END OPENSSH PRIVATE KEY-----"
            ),
            [
                "«A»: deploy key for the docs server (don't judge):\n«V»",
                "```\n«V»\n```",
            ],
        ),
        (
            S,
            "ec_private_key_pem",
            lambda r: (
                "-----BEGIN EC PRIVATE KEY-----\n"
                + _pem_lines(r, "MHcCAQEEI", 164)
                + "\n-----END EC PRIVATE KEY-----"
            ),
            [
                "«A» pasted the APNs signing key:\n«V»",
                "mail from «A»: attached inline since the zip got blocked\n«V»",
            ],
        ),
        (
            S,
            "azure_storage_account_key",
            lambda r: _s(r, B64, 86) + "==",
            [
                "«A»: DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=«V»;EndpointSuffix=core.windows.net",
                "Teams «A» «TIME»: storage key1 for acmebackups: «V»",
            ],
        ),
        (
            S,
            "azure_client_secret",
            lambda r: _s(r, AN, 3) + "8Q~" + _s(r, URL + ".~", 34),
            [
                "«A»: app registration 'ci-deployer' secret value: «V» (the value, not the secret ID!)",
                "Teams «A»: AZURE_CLIENT_SECRET=«V», tenant/client ids are in the pipeline vars",
            ],
        ),
        (
            S,
            "datadog_api_key",
            lambda r: _s(r, HEX, 32),
            [
                "«A»: DD_API_KEY=«V» for the agent on the new hosts",
                "«A»: datadog api key «V» + app key in the next msg",
            ],
        ),
        (
            S,
            "vault_token",
            lambda r: "hvs.CAESI" + _s(r, URL, 86),
            [
                "«A»: VAULT_TOKEN=«V» — root-ish, please revoke after the migration",
                "[«TIME»] «A»: `vault login «V»`",
                "«A»: periodic token for the agent: «V»",
            ],
        ),
        (
            S,
            "terraform_cloud_token",
            lambda r: _s(r, AN, 14) + ".atlasv1." + _s(r, AN, 67),
            [
                "«A»: TFC team token for the plan job: «V»",
                '«A»: credentials "app.terraform.io" { token = "«V»" }',
            ],
        ),
        (
            S,
            "cloudflare_api_token",
            lambda r: _s(r, URL, 40),
            [
                "«A»: CF API token (Zone:DNS:Edit on acme.io): «V»",
                "«A»: CLOUDFLARE_API_TOKEN=«V»",
            ],
        ),
        (
            S,
            "digitalocean_token",
            lambda r: "dop_v1_" + _s(r, HEX, 64),
            [
                "«A»: doctl auth init --access-token «V»",
                "«A»: DO token for the droplet autoscaler: «V»",
            ],
        ),
        (
            S,
            "atlassian_api_token",
            lambda r: "ATATT3xFfGF0" + _s(r, URL, 170) + "=" + _s(r, UP + DIG, 8),
            [
                "«A»: jira api token for the sync bot (user jira-bot@acme.io): «V»",
                "«A»: JIRA_API_TOKEN=«V»",
            ],
        ),
        (
            S,
            "okta_api_token",
            lambda r: "00" + _s(r, URL, 40),
            [
                "«A»: okta SSWS token for the provisioning script: «V»",
                "«A»: Authorization: SSWS «V»",
            ],
        ),
        (
            S,
            "new_relic_user_key",
            lambda r: "NRAK-" + _s(r, UP + DIG, 27),
            [
                "«A»: NR user key for the nerdgraph queries: «V»",
                "«A»: NEW_RELIC_API_KEY=«V»",
            ],
        ),
        (
            S,
            "grafana_service_account_token",
            lambda r: "glsa_" + _s(r, AN, 32) + "_" + _s(r, HEX, 8),
            [
                "«A»: grafana SA token (Editor) for the dashboard-as-code job: «V»",
                "«A»: GRAFANA_TOKEN=«V»",
            ],
        ),
        (
            S,
            "postman_api_key",
            lambda r: "PMAK-" + _s(r, HEX, 24) + "-" + _s(r, HEX, 34),
            [
                "«A»: postman api key for the newman runs: «V»",
                "«A»: X-Api-Key: «V»",
            ],
        ),
        (
            S,
            "docker_hub_pat",
            lambda r: "dckr_pat_" + _s(r, URL, 27),
            [
                "«A»: docker login -u acmebuild -p «V»",
                "«A»: DOCKERHUB_TOKEN=«V» (read/write, acmebuild account)",
            ],
        ),
        (
            S,
            "age_secret_key",
            lambda r: "AGE-SECRET-KEY-1" + _s(r, BECH.upper(), 58),
            [
                "«A»: sops age key for prod: «V»",
                "«A»: put this in ~/.config/sops/age/keys.txt\n«V»",
            ],
        ),
        (
            S,
            "wireguard_private_key",
            lambda r: _wg(r),
            [
                "«A»: your wg0.conf:\n[Interface]\nPrivateKey = «V»\nAddress = 10.8.0.7/32",
                "«A»: wireguard privkey for the travel laptop: «V»",
            ],
        ),
        (
            S,
            "k8s_bootstrap_token",
            lambda r: _s(r, LO + DIG, 6) + "." + _s(r, LO + DIG, 16),
            [
                "«A»: kubeadm join 10.0.0.10:6443 --token «V» --discovery-token-ca-cert-hash sha256:«SHA256»",
                "«A»: bootstrap token for the new worker (ttl 24h): «V»",
            ],
        ),
        (
            S,
            "totp_seed",
            lambda r: " ".join(_s(r, B32, 4) for _ in range(8)),
            [
                "«A»: shared 2FA seed for the AWS root account (add it to your authenticator): «V»",
                "«A»: otpauth secret for the support@ mailbox → «V»",
                "WhatsApp «A»: código de configuração do 2FA: «V»",
            ],
        ),
        (
            S,
            "recovery_codes",
            lambda r: " ".join(_s(r, LO + DIG, 5) + "-" + _s(r, LO + DIG, 5) for _ in range(6)),
            [
                "«A»: github recovery codes for the org owner acct: «V»",
                "«A» (email): backup codes for the shared Google admin, in case: «V»",
            ],
        ),
        (
            S,
            "bip39_seed_phrase",
            lambda r: " ".join(r.choice(WORDS) for _ in range(12)),
            [
                "«A»: treasury hot wallet seed (testnet? no, mainnet): «V»",
                "WhatsApp «A»: frase semente da carteira: «V» 🙈",
            ],
        ),
        (
            S,
            "eth_private_key",
            lambda r: "0x" + _s(r, HEX, 64),
            [
                "«A»: deployer private key for the contracts: «V»",
                "«A»: PRIVATE_KEY=«V»  # funded with 2 ETH",
            ],
        ),
        (
            S,
            "session_cookie",
            lambda r: "s%3A" + _s(r, URL, 32) + "." + _s(r, B64, 43),
            [
                "«A»: paste this cookie to get past SSO on staging: connect.sid=«V»",
                "«A»: my session for the admin panel if you need it: «V»",
                "[«TIME»] «A»: Cookie: connect.sid=«V»; theme=dark",
            ],
        ),
        (
            S,
            "basic_auth_in_url",
            lambda r: _pw_random(r),
            [
                "«A»: pip install --index-url https://ci:«V»@pypi.acme.internal/simple acme-core",
                "«A»: the registry mirror is https://deploy:«V»@nexus.acme.io/repository/npm/",
            ],
        ),
        (
            S,
            "shopify_access_token",
            lambda r: "shpat_" + _s(r, HEX, 32),
            [
                "«A»: admin api token for the store app: «V»",
                "«A»: X-Shopify-Access-Token: «V»",
            ],
        ),
        (
            S,
            "supabase_service_role_key",
            lambda r: _jwt(
                r,
                {
                    "iss": "supabase",
                    "ref": _s(r, LO, 20),
                    "role": "service_role",
                    "iat": 1760000000,
                    "exp": 2075000000,
                },
            ),
            [
                "«A»: service_role key (bypasses RLS!) for the migration: «V»",
                "«A»: SUPABASE_SERVICE_ROLE_KEY=«V»",
            ],
        ),
        (
            S,
            "notion_token",
            lambda r: "ntn_" + _s(r, DIG, 11) + _s(r, AN, 35),
            [
                "«A»: notion integration secret for the wiki sync: «V»",
                "«A»: NOTION_TOKEN=«V» (shared with the Roadmap page)",
            ],
        ),
        (
            S,
            "linear_api_key",
            lambda r: "lin_api_" + _s(r, AN, 40),
            [
                "«A»: linear personal key for the triage bot: «V»",
                "«A»: LINEAR_API_KEY=«V»",
            ],
        ),
        (
            S,
            "figma_pat",
            lambda r: "figd_" + _s(r, URL, 40),
            [
                "«A»: figma token for the icon export script: «V»",
                "«A»: X-Figma-Token: «V»",
            ],
        ),
        (
            S,
            "sentry_auth_token",
            lambda r: "sntryu_" + _s(r, HEX, 64),
            [
                "«A»: sentry auth token for uploading sourcemaps: «V»",
                "«A»: SENTRY_AUTH_TOKEN=«V»",
            ],
        ),
        (
            S,
            "doppler_token",
            lambda r: "dp.st.prd." + _s(r, AN, 40),
            [
                "«A»: doppler service token (prd config): «V»",
                "«A»: DOPPLER_TOKEN=«V» on the worker",
            ],
        ),
        (
            S,
            "mapbox_secret_token",
            lambda r: _mapbox(r, "sk"),
            [
                "«A»: mapbox secret token (styles:write) for the tileset upload: «V»",
                "«A»: MAPBOX_SECRET=«V»",
            ],
        ),
        (
            S,
            "django_secret_key",
            lambda r: _s(r, LO + DIG + "!#$%^&*(-_=+)", 50),
            [
                "«A»: prod SECRET_KEY for django (sessions break if it changes): «V»",
                "«A»: DJANGO_SECRET_KEY='«V»'",
            ],
        ),
        (
            S,
            "jwt_signing_secret",
            lambda r: _s(r, HEX, 64),
            [
                "«A»: JWT_SECRET=«V» — HS256, shared by auth + api",
                "«A»: the HMAC key we sign the magic links with is «V»",
            ],
        ),
        (
            S,
            "generic_api_key_header",
            lambda r: _s(r, AN, 40),
            [
                "«A»: vendor gave us this for the weather API: X-API-Key: «V»",
                '«A»: curl -H "x-api-key: «V»" https://partner.example-logistics.com/v1/shipments',
            ],
        ),
        # ------------------------------------------------------------------ benign
        (
            G,
            "aws_docs_example_key",
            lambda r: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            [
                "«A»: the README uses AWS's doc example creds, AKIAIOSFODNN7EXAMPLE / «V», so the test never hits AWS",
                "«A»: moto fixture: aws_secret_access_key = «V» (the official EXAMPLE key from the AWS docs)",
            ],
        ),
        (
            G,
            "aws_account_id_arn",
            lambda r: str(r.randint(10**11, 10**12 - 1)),
            [
                "«A»: prod account is «V», staging is «ACCT»",
                "«A»: role to assume: arn:aws:iam::«V»:role/ci-deployer",
                "«A»: the bucket policy grants arn:aws:iam::«V»:root read access",
            ],
        ),
        (
            G,
            "secrets_manager_arn_reference",
            lambda r: (
                f"arn:aws:secretsmanager:eu-west-1:{r.randint(10**11, 10**12 - 1)}:secret:prod/db/main-{_s(r, AN, 6)}"
            ),
            [
                "«A»: don't paste the db pw, the task def pulls it from «V»",
                "«A»: valueFrom: «V»",
            ],
        ),
        (
            G,
            "git_commit_sha",
            lambda r: _s(r, HEX, 40),
            [
                "«A»: the regression came in with «V», revert that",
                "«A»: deployed «V» to prod at «TIME» ✅",
                "«A»: cherry-pick «V» onto release/2.4 pls",
            ],
        ),
        (
            G,
            "docker_image_digest",
            lambda r: "sha256:" + _s(r, HEX, 64),
            [
                "«A»: pin the base image: python:3.12-slim@«V»",
                "«A»: the pod is running image digest «V», not the tag we expected",
            ],
        ),
        (
            G,
            "npm_integrity_hash",
            lambda r: "sha512-" + _s(r, B64, 86) + "==",
            [
                "«A»: lockfile integrity for left-pad changed to «V», is that expected?",
                '«A»: "integrity": "«V»" — diff in package-lock, ignore',
            ],
        ),
        (
            G,
            "file_checksum",
            lambda r: _s(r, HEX, 64),
            [
                "«A»: sha256sum of the release tarball: «V» — verify before installing",
                "«A»: checksum mismatch! expected «V», got «SHA256»",
            ],
        ),
        (
            G,
            "request_uuid",
            lambda r: _uuid(r),
            [
                "«A»: failing request id «V», can you find it in the logs?",
                "«A»: trace_id=«V» span=«HEX8» shows the 504 in the gateway",
                "«A»: support ticket ref «V»",
            ],
        ),
        (
            G,
            "stripe_publishable_key",
            lambda r: "pk_live_51" + _s(r, AN, 96),
            [
                "«A»: publishable key for the checkout page (goes in the frontend bundle, public): «V»",
                "«A»: NEXT_PUBLIC_STRIPE_KEY=«V», the sk is only on the server",
                "«A»: the pk in the html is «V», that's fine it's meant to be public",
            ],
        ),
        (
            G,
            "stripe_object_ids",
            lambda r: "cus_" + _s(r, AN, 14),
            [
                "«A»: refund customer «V», charge ch_«REST18»",
                "«A»: the disputed payment is pi_«REST18» on «V»",
            ],
        ),
        (
            G,
            "slack_object_ids",
            lambda r: "C0" + _s(r, UP + DIG, 9),
            [
                "«A»: the bot needs to be invited to channel «V» first",
                "«A»: user «SLACKU» in «V» keeps getting the alert",
                "«A»: team id T«N6»AB, channel «V», ts 1733491234.000200",
            ],
        ),
        (
            G,
            "discord_snowflake_ids",
            lambda r: str(r.randint(10**17, 10**18 * 9)),
            [
                "«A»: guild id «V», mod role id «SNOW»",
                "«A» — Today at «TIME»\nmessage id «V» is the one with the bug report",
            ],
        ),
        (
            G,
            "ssh_public_key",
            lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, B64, 43),
            [
                "«A»: add my pubkey to the bastion pls: «V» «A»@laptop",
                "«A»: authorized_keys line for the deploy user: «V» deploy@ci",
                "«A»: ce n'est que ma clé publique, tu peux la mettre partout: «V»",
            ],
        ),
        (
            G,
            "ssh_fingerprint",
            lambda r: "SHA256:" + _s(r, B64, 43),
            [
                "«A»: host key fingerprint for bastion should be «V», if you see something else stop",
                "«A»: my key's fingerprint is «V» (ED25519)",
            ],
        ),
        (
            G,
            "gpg_fingerprint",
            lambda r: " ".join(_s(r, HEX.upper(), 4) for _ in range(10)),
            [
                "«A»: release signing key fingerprint: «V»",
                "«A»: verify the tag is signed by «V»",
            ],
        ),
        (
            G,
            "age_public_key",
            lambda r: "age1" + _s(r, BECH, 58),
            [
                "«A»: add my age recipient to .sops.yaml: «V»",
                "«A»: recipients: «V» (public, fine to commit)",
            ],
        ),
        (
            G,
            "wireguard_public_key",
            lambda r: _wg(r),
            [
                "«A»: server peer config:\n[Peer]\nPublicKey = «V»\nEndpoint = vpn.acme.io:51820",
                "«A»: my wg pubkey (public half only): «V»",
            ],
        ),
        (
            G,
            "placeholder_token",
            lambda r: r.choice(["ghp_", "gho_"]) + "X" * 36,
            [
                "«A»: in the docs put `GITHUB_TOKEN=«V»` so people know the shape",
                "«A»: example .env:\nGH_TOKEN=«V»\nSTRIPE_SECRET_KEY=sk_live_REPLACE_ME",
                "«A»: the template has «V» — replace with your own PAT",
                "«A»: SLACK_BOT_TOKEN=xoxb-your-bot-token-here in .env.example, real one in 1Password",
            ],
        ),
        (
            G,
            "ci_secret_reference",
            lambda r: (
                "${{ secrets."
                + r.choice(["NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "DEPLOY_KEY"])
                + " }}"
            ),
            [
                "«A»: in the workflow use «V», never echo it",
                "«A»: env:\n  TOKEN: «V»\n«B»: 👍",
                "«A»: the job reads «V» and masks it in logs",
            ],
        ),
        (
            G,
            "onepassword_reference",
            lambda r: (
                "op://"
                + r.choice(["Engineering", "Prod", "Shared"])
                + "/"
                + r.choice(["stripe-live", "pg-main", "slack-bot"])
                + "/credential"
            ),
            [
                "«A»: stop pasting it — `op read «V»` works on every laptop",
                "«A»: .env.tpl: DATABASE_PASSWORD=«V»",
                "«A»: the secret reference is «V», run with `op run --`",
            ],
        ),
        (
            G,
            "vault_path_reference",
            lambda r: (
                "secret/data/"
                + r.choice(["prod", "staging"])
                + "/"
                + r.choice(["db", "stripe", "smtp"])
            ),
            [
                "«A»: it's at «V» in vault, field `password`",
                "«A»: vault kv get «V» (need the ops policy)",
            ],
        ),
        (
            G,
            "redacted_value",
            lambda r: (
                r.choice(["sk-proj-", "sk_live_51", "ghp_", "xoxb-"])
                + "****************"
                + _s(r, AN, 4)
            ),
            [
                "«A»: the log line shows key «V», which one is that?",
                "«A»: dashboard lists the key as «V» (created «TIME»)",
                "«A»: OPENAI_API_KEY=[REDACTED] in the screenshot, and in the curl I masked it as «V»",
                "«A»: the token page shows it as «V» with last used 3 days ago",
            ],
        ),
        (
            G,
            "asking_for_secret",
            lambda r: "",
            [
                "[«TIME»] «A»: can someone DM me the staging db password? the one in the wiki is stale",
                "«A»: qui a le token du bot discord ? le mien a expiré",
                "> On Wed «A» wrote:\n> Could you send the Stripe live key?\nNo — request access to the Stripe vault item, I can't share it over email.",
                "WhatsApp «A»: alguém tem a senha do wifi do escritório? 🙏",
            ],
        ),
        (
            G,
            "rotated_notice_no_value",
            lambda r: "",
            [
                "«A»: heads up, I rotated the sendgrid key after the leak scare. new one is in 1Password under 'sendgrid-prod'",
                "«A»: PAT for the release bot expired, regenerated it and updated the GH_TOKEN secret, nothing for you to do",
                "«A»: Schlüssel rotiert ✅ — bitte `make env` neu ausführen, der neue Wert kommt aus Vault",
            ],
        ),
        (
            G,
            "where_secret_lives",
            lambda r: "",
            [
                "«A»: the AWS creds live in ~/.aws/credentials profile `acme-prod`, don't copy them into the repo",
                "«A»: password for the grafana admin is in the team vault, item 'grafana-admin' 🔐",
                "«A»: the webhook secret is set as STRIPE_WEBHOOK_SECRET in the Render dashboard, not in code",
            ],
        ),
        (
            G,
            "supabase_anon_key",
            lambda r: _jwt(
                r,
                {
                    "iss": "supabase",
                    "ref": _s(r, LO, 20),
                    "role": "anon",
                    "iat": 1760000000,
                    "exp": 2075000000,
                },
            ),
            [
                "«A»: anon key for the frontend (public, RLS protects the data): «V»",
                "«A»: NEXT_PUBLIC_SUPABASE_ANON_KEY=«V»",
            ],
        ),
        (
            G,
            "recaptcha_site_key",
            lambda r: "6L" + _s(r, URL, 38),
            [
                "«A»: recaptcha site key (the public one in the widget): «V»",
                '«A»: data-sitekey="«V»" on the signup form',
            ],
        ),
        (
            G,
            "algolia_search_only_key",
            lambda r: _s(r, HEX, 32),
            [
                "«A»: algolia app «REST18» search-only key for the docs search box (public): «V»",
                "«A»: docsearch apiKey: '«V»' — it's the search-only key, safe in the bundle",
            ],
        ),
        (
            G,
            "mapbox_public_token",
            lambda r: _mapbox(r, "pk"),
            [
                "«A»: mapbox public token for the web map: «V»",
                "«A»: mapboxgl.accessToken = '«V»' (pk, url-restricted)",
            ],
        ),
        (
            G,
            "posthog_project_key",
            lambda r: "phc_" + _s(r, AN, 43),
            [
                "«A»: posthog project api key for the snippet: «V»",
                "«A»: posthog.init('«V»', {api_host: 'https://eu.posthog.com'})",
            ],
        ),
        (
            G,
            "analytics_measurement_id",
            lambda r: "G-" + _s(r, UP + DIG, 10),
            [
                "«A»: GA4 measurement id is «V»",
                "«A»: gtag('config', '«V»')",
            ],
        ),
        (
            G,
            "sentry_dsn_public",
            lambda r: (
                f"https://{_s(r, HEX, 32)}@o{r.randint(10**5, 10**7)}.ingest.sentry.io/{r.randint(10**6, 10**7)}"
            ),
            [
                "«A»: browser SDK dsn (client-side, public by design): «V»",
                '«A»: Sentry.init({ dsn: "«V»" })',
            ],
        ),
        (
            G,
            "jwt_io_example",
            lambda r: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            ),
            [
                "«A»: for the parser test I used the jwt.io sample token «V» (John Doe)",
                "«A»: test fixture = the default jwt.io example: «V»",
            ],
        ),
        (
            G,
            "eth_address",
            lambda r: "0x" + _s(r, HEX, 40),
            [
                "«A»: send the testnet faucet funds to «V»",
                "«A»: contract deployed at «V» on sepolia",
            ],
        ),
        (
            G,
            "eth_tx_hash",
            lambda r: "0x" + _s(r, HEX, 64),
            [
                "«A»: deploy tx: «V» (etherscan)",
                "«A»: the failed transfer is tx «V», reverted with 'insufficient allowance'",
            ],
        ),
        (
            G,
            "bitcoin_address",
            lambda r: "bc1q" + _s(r, BECH, 38),
            [
                "«A»: donations address on the site: «V»",
                "«A»: receiving address «V»",
            ],
        ),
        (
            G,
            "ipfs_cid",
            lambda r: "bafybei" + _s(r, "abcdefghijklmnopqrstuvwxyz234567", 52),
            [
                "«A»: the metadata is pinned at ipfs://«V»",
            ],
        ),
        (
            G,
            "mongodb_objectid",
            lambda r: _s(r, HEX, 24),
            [
                '«A»: user doc ObjectId("«V»") has the broken address',
                "«A»: order «V» stuck in 'pending'",
            ],
        ),
        (
            G,
            "twilio_account_sid",
            lambda r: "AC" + _s(r, HEX, 32),
            [
                "«A»: which twilio account is prod? «V» (the sid, token's in vault)",
                "«A»: Account SID «V», subaccount for EU",
            ],
        ),
        (
            G,
            "azure_tenant_client_ids",
            lambda r: _uuid(r),
            [
                "«A»: AZURE_TENANT_ID=«V» AZURE_CLIENT_ID=«UUID» (secret via workload identity, no value)",
                "«A»: app registration client id: «V»",
            ],
        ),
        (
            G,
            "google_oauth_client_id",
            lambda r: (
                f"{r.randint(10**11, 10**12)}-{_s(r, LO + DIG, 32)}.apps.googleusercontent.com"
            ),
            [
                "«A»: client id for Sign in with Google: «V»",
                "«A»: GOOGLE_CLIENT_ID=«V» (public, shows up in the redirect url anyway)",
            ],
        ),
        (
            G,
            "github_app_ids",
            lambda r: str(r.randint(100000, 999999)),
            [
                "«A»: github app id «V», installation id «N6»",
                "«A»: APP_ID=«V» — private key .pem is on the server only",
            ],
        ),
        (
            G,
            "music_key",
            lambda r: "",
            [
                "«A»: the intro is in the key of F# minor, capo 2",
                "«A»: transposed the chorus to a lower key for the demo 🎸",
            ],
        ),
        (
            G,
            "llm_token_count",
            lambda r: "",
            [
                "«A»: prompt is 18k tokens, we hit the 200k context window with the full repo",
                "«A»: the tokenizer splits 'passwords' into 2 tokens lol",
                "«A»: max_tokens=4096, temperature 0.2, that fixed the truncation",
            ],
        ),
        (
            G,
            "password_policy_talk",
            lambda r: "",
            [
                "«A»: new policy: passwords 14+ chars, no rotation, check against HIBP",
                "«A»: should the reset link expire after 30 min? «B»: yes and one-time use",
            ],
        ),
        (
            G,
            "other_sense_secret",
            lambda r: "",
            [
                "«A»: secret santa budget is 25€ 🎅",
                "«A»: the secret sauce is just caching the embeddings tbh",
            ],
        ),
        (
            G,
            "database_key_talk",
            lambda r: "",
            [
                "«A»: orders.customer_id needs a foreign key to customers.id",
                "«A»: composite primary key (tenant_id, slug) or surrogate uuid?",
            ],
        ),
        (
            G,
            "keyboard_key",
            lambda r: "",
            [
                "«A»: press the Windows key + . for emoji 😂",
                "«A»: my laptop's escape key is dead, vim is pain",
            ],
        ),
        (
            G,
            "design_tokens",
            lambda r: "",
            [
                "«A»: design tokens: --color-primary #3B82F6, --radius-md 8px",
                "«A»: spacing token `space-4` = 16px in the new theme",
            ],
        ),
        (
            G,
            "k8s_secret_key_ref",
            lambda r: "",
            [
                "«A»: env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: pg-creds, key: password}",
                "«A»: kubectl create secret generic api-keys --from-env-file=.env (run it yourself, don't paste)",
            ],
        ),
        (
            G,
            "env_var_name_only",
            lambda r: "",
            [
                "«A»: you need OPENAI_API_KEY and ANTHROPIC_API_KEY set, ask ops for values",
                "«A»: missing env: STRIPE_SECRET_KEY, SENDGRID_API_KEY → app crashes on boot",
            ],
        ),
        (
            G,
            "public_cert_pem",
            lambda r: (
                "-----BEGIN PUBLIC KEY-----\n"
                + _pem_lines(r, "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE", 124)
                + "\n-----END PUBLIC KEY-----"
            ),
            [
                "«A»: public key to verify the webhook JWTs:\n«V»",
                "«A»: JWKS is down so here's the verification pubkey:\n«V»",
            ],
        ),
        (
            G,
            "bundle_content_hash",
            lambda r: "main." + _s(r, HEX, 20) + ".js",
            [
                "«A»: CDN still serves «V», cache not purged",
                "«A»: chunk «V» 404s after deploy",
            ],
        ),
        (
            G,
            "base64_non_secret",
            lambda r: base64.b64encode(
                json.dumps(
                    {"theme": "dark", "lang": r.choice(["en", "de", "pt"]), "v": r.randint(1, 9)}
                ).encode()
            ).decode(),
            [
                "«A»: the prefs cookie is just base64 json: «V»",
                "«A»: decoded «V» → theme settings, nothing sensitive",
            ],
        ),
        (
            G,
            "revoked_and_deleted_key",
            lambda r: "ghp_" + _s(r, AN, 36),
            [
                "«A»: the token from yesterday's screenshot («V») is revoked and deleted — GitHub shows it as gone, no action needed",
                "«A»: FYI «V» was revoked + the user deleted on 2026-11-30, kept here only for the incident timeline",
            ],
        ),
        (
            G,
            "build_version_ids",
            lambda r: f"2026.12.{r.randint(1, 6)}-{_s(r, HEX, 7)}",
            [
                "«A»: rolled back to «V»",
                "«A»: build «V» passed on all runners",
            ],
        ),
        (
            G,
            "order_tracking_ids",
            lambda r: "1Z" + _s(r, UP + DIG, 16),
            [
                "«A»: laptops shipped, UPS tracking «V»",
                "«A»: replacement yubikey tracking «V»",
            ],
        ),
        (
            G,
            "webhook_endpoint_no_secret",
            lambda r: "https://api.acme.io/webhooks/" + r.choice(["stripe", "github", "slack"]),
            [
                "«A»: point the webhook at «V», signing secret is configured separately",
                "«A»: endpoint «V» returns 401 when signature missing ✅",
            ],
        ),
        (
            G,
            "webhook_signature_header",
            lambda r: f"t={r.randint(1_760_000_000, 1_800_000_000)},v1={_s(r, HEX, 64)}",
            [
                "«A»: Stripe-Signature: «V» — verification fails, clock skew?",
                "«A»: got header «V» but my hmac differs",
            ],
        ),
        (
            G,
            "ulid_ids",
            lambda r: "01J" + _s(r, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 23),
            [
                "«A»: job «V» retried 3 times then dead-lettered",
            ],
        ),
        (
            G,
            "docs_placeholder_connection_string",
            lambda r: "postgres://user:password@localhost:5432/mydb",
            [
                "«A»: README example: «V» — replace with yours",
                "«A»: the tutorial's DATABASE_URL is «V», the app refuses to start if it sees that in prod",
            ],
        ),
        (
            G,
            "phishing_warning",
            lambda r: "",
            [
                'Email from IT: "We will never ask for your password or 2FA codes by email. Report anything like that to security@."',
                "«A»: got a fake 'Slack token expired, re-enter password' mail, reported it 🎣",
            ],
        ),
        (
            G,
            "oauth_scopes_talk",
            lambda r: "",
            [
                "«A»: the PAT needs repo + read:org scopes, fine-grained won't work for packages yet",
            ],
        ),
        (
            G,
            "known_hosts_line",
            lambda r: "AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, B64, 43),
            [
                "«A»: add to known_hosts: github.example.io ssh-ed25519 «V»",
            ],
        ),
    ]


def _spec_more() -> list:
    """Extra layouts: more chat shapes, languages and hard look-alikes."""
    S = "secret"
    G = "benign"
    return [
        (
            S,
            "github_pat_classic",
            lambda r: "ghp_" + _s(r, AN, 36),
            [
                "«A»: トークンです → `«V»` (repo権限のみ)\n«B»: ありがとう！",
            ],
        ),
        (
            S,
            "chat_password",
            lambda r: _password(r),
            [
                "«A» — Today at «TIME»\n> what's the pw for the staging admin\n`«V»` 👀 delete this msg after",
                "«A»: bhai, jenkins ka password «V» hai, kisi ko mat batana",
            ],
        ),
        (
            S,
            "stripe_secret_key",
            lambda r: "sk_live_51" + _s(r, AN, 96),
            [
                "Subject: Re: Re: payouts script\n> > which key?\n> the live one\nOK: «V»\n-- «A»",
            ],
        ),
        (
            S,
            "slack_bot_token",
            lambda r: (
                f"xoxb-{r.randint(10**10, 10**12)}-{r.randint(10**12, 10**13)}-{_s(r, AN, 24)}"
            ),
            [
                "«A»: **SLACK_BOT_TOKEN** = `«V»` ✨ (scopes: chat:write, channels:read)",
            ],
        ),
        (
            S,
            "openai_api_key",
            lambda r: "sk-" + _s(r, AN, 20) + "T3BlbkFJ" + _s(r, AN, 20),
            [
                "«A»: old-style openai key still works for the legacy bot: «V»",
            ],
        ),
        (
            S,
            "postgres_url_with_password",
            lambda r: _password(r),
            [
                "[«TIME»] «A»: pw for pg prod is «W»\n[«TIME»] «B»: doesn't work\n[«TIME»] «A»: typo sorry, «V»",
            ],
        ),
        (
            S,
            "aws_secret_access_key",
            lambda r: _s(r, B64, 40),
            [
                "«A»: `[acme-prod]`\n`aws_access_key_id = «AKID»`\n`aws_secret_access_key = «V»`\ncopy into ~/.aws/credentials",
            ],
        ),
        (
            S,
            "anthropic_api_key",
            lambda r: "sk-ant-api03-" + _s(r, URL, 93) + "AA",
            [
                "WhatsApp [«TIME»] «A»: la clave de anthropic para el hackathon: «V» 🚀",
            ],
        ),
        (
            S,
            "huggingface_token",
            lambda r: "hf_" + _s(r, UP + LO, 34),
            [
                "> «A» wrote:\n> > need a token with read on the gated llama repo\n> here: «V»\nworks, thanks!",
            ],
        ),
        (
            S,
            "vault_token",
            lambda r: "hvs." + _s(r, AN, 24),
            [
                "«A»: legacy-format token on the old cluster: «V» (ttl 768h)",
            ],
        ),
        (
            S,
            "telegram_bot_token",
            lambda r: f"{r.randint(10**9, 8 * 10**9)}:AA{_s(r, URL, 33)}",
            [
                "«A»: бот токен для алертов: «V»",
            ],
        ),
        (
            S,
            "discord_bot_token",
            lambda r: (
                _b64u(str(r.randint(10**17, 10**18 * 9)).encode())
                + "."
                + _s(r, URL, 6)
                + "."
                + _s(r, URL, 38)
            ),
            [
                "«A»: here's the token, no wait, thats the client secret. the BOT token is «V»",
            ],
        ),
        # ------------------------------------------------------------------ benign
        (
            G,
            "asking_for_secret",
            lambda r: "",
            [
                "[«TIME»] «A»: does anyone have the Datadog API key for the new hosts?\n[«TIME»] «B»: it's injected by the helm chart, you don't need it",
                "«A»: ¿alguien me pasa el token de npm para publicar? 🙏\n«B»: pídeselo a ops, no lo pegues aquí",
            ],
        ),
        (
            G,
            "where_secret_lives",
            lambda r: "",
            [
                "«A»: le mot de passe de la base est dans Bitwarden, collection 'Prod', pas dans le wiki",
            ],
        ),
        (
            G,
            "slack_object_ids",
            lambda r: "B0" + _s(r, UP + DIG, 9),
            [
                "«A»: the incoming webhook is owned by bot id «V», delete that integration if it spams",
            ],
        ),
        (
            G,
            "discord_snowflake_ids",
            lambda r: str(r.randint(10**17, 10**18 * 9)),
            [
                "«A»: application id (client id) «V» — use it in the OAuth invite link, it's public",
            ],
        ),
        (
            G,
            "docker_image_digest",
            lambda r: "sha256:" + _s(r, HEX, 64),
            [
                "WhatsApp «A»: a imagem em prod é «V», não a latest",
            ],
        ),
        (
            G,
            "mongodb_objectid",
            lambda r: _s(r, HEX, 24),
            [
                "«A» «TIME»\nDatensatz «V» hat ein kaputtes Lieferdatum",
            ],
        ),
        (
            G,
            "file_checksum",
            lambda r: _s(r, HEX, 32),
            [
                "«A»: md5 of the uploaded csv is «V», matches the vendor's",
            ],
        ),
        (
            G,
            "eth_address",
            lambda r: "0x" + _s(r, HEX, 40),
            [
                "«A»: multisig owner addresses: «V» and 0x«HEX40» (public, it's on-chain)",
            ],
        ),
        (
            G,
            "gpg_fingerprint",
            lambda r: _s(r, HEX.upper(), 16),
            [
                "«A»: signed with key id «V», import it from keys.openpgp.org",
            ],
        ),
        (
            G,
            "build_version_ids",
            lambda r: f"v{r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 20)}+{_s(r, HEX, 7)}",
            [
                "«A» — Today at «TIME»\nhotfix «V» is live on all regions 🎉",
            ],
        ),
        (
            G,
            "revoked_and_deleted_key",
            lambda r: (
                "xoxb-"
                + str(r.randint(10**10, 10**12))
                + "-"
                + str(r.randint(10**12, 10**13))
                + "-"
                + _s(r, AN, 24)
            ),
            [
                "«A»: postmortem note: the leaked bot token «V» was revoked within 4 min and the app uninstalled; kept verbatim for the timeline",
            ],
        ),
        (
            G,
            "aws_access_key_id_only",
            lambda r: "AKIA" + _s(r, B32, 16),
            [
                "«A»: which key is the CI using? CloudTrail says access key id «V» — the secret half isn't in the log",
                "«A»: here's the key: «V»\n«A»: wait no, that's just the key ID, the secret part stays in vault. ID is enough to find it in IAM",
            ],
        ),
        (
            G,
            "placeholder_token",
            lambda r: (
                "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
            ),
            [
                "«A»: slack's docs example webhook is «V», use that shape in the README",
                "«A»: SLACK_WEBHOOK_URL=«V» in .env.example (dummy)",
            ],
        ),
        (
            G,
            "placeholder_token",
            lambda r: "sk-proj-" + "x" * 48,
            [
                "«A»: template:\nOPENAI_API_KEY=«V»\nANTHROPIC_API_KEY=sk-ant-...\n(fill these in locally)",
            ],
        ),
        (
            G,
            "placeholder_token",
            lambda r: "",
            [
                "«A»: AWS_SECRET_ACCESS_KEY=<paste-from-1password> — that's literally what the doc says, don't commit the real one",
                "«A»: `password: ${DB_PASSWORD}` in values.yaml, rendered at deploy time",
            ],
        ),
        (
            G,
            "redacted_value",
            lambda r: "",
            [
                "Slackbot «TIME»: This message was hidden because it appeared to contain a credential. «A» has been notified.",
                "«A»: STRIPE_SECRET_KEY=sk_live_••••••••  ← that's how the dashboard shows it, I don't have the full value",
            ],
        ),
        (
            G,
            "redacted_value",
            lambda r: "xoxb-" + "*" * 12 + "-" + _s(r, AN, 4),
            [
                "«A» — Today at «TIME»\nlogs show `token=«V»` then invalid_auth, so it IS being sent",
            ],
        ),
        (
            G,
            "asking_for_secret",
            lambda r: "",
            [
                "«A» «TIME»\nHat jemand den VPN-PSK für das Büro Hamburg? 🙏\n«B» «TIME»\nsteht im Vault unter network/vpn",
                "«A»: パスワードは1Passwordの「staging-db」にあります。チャットには貼らないでください",
                "«A» — Today at «TIME»\n> can u paste the bot token here\nno 😅 DM ops, they'll add you to the vault",
            ],
        ),
        (
            G,
            "where_secret_lives",
            lambda r: "",
            [
                "«A»: bhai token vault mein hai, path prod/slack, khud nikal lo",
                "«A»: the SSH key for the bastion is on the yubikey, there is no file to share",
                "Re: access\n> where do I get the Sentry auth token?\nCreate your own under Settings → Auth Tokens; we don't share tokens.",
            ],
        ),
        (
            G,
            "rotated_notice_no_value",
            lambda r: "",
            [
                "«A»: 🔄 rotated: DATADOG_API_KEY, SENDGRID_API_KEY, JWT_SECRET. Old ones revoked. Values only in Doppler.",
                "WhatsApp «A»: troquei a senha do admin, tá no cofre 🔐",
            ],
        ),
        (
            G,
            "git_commit_sha",
            lambda r: _s(r, HEX, 40),
            [
                "«A» — Today at «TIME»\nbisect says first bad commit is «V» 🎯",
                "«A»: Der Fix ist in «V», bitte auf main rebasen",
            ],
        ),
        (
            G,
            "request_uuid",
            lambda r: _uuid(r),
            [
                "Teams «A» «TIME»: Correlation-Id: «V» — 500 im Checkout",
            ],
        ),
        (
            G,
            "ssh_public_key",
            lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _s(r, B64, 43),
            [
                "> On Thu «A» wrote:\n> send me your public key for the sftp box\n«V» «B»@work — public half only of course",
            ],
        ),
        (
            G,
            "jwt_io_example",
            lambda r: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            ),
            [
                "Teams «A» «TIME»\nThe decoder chokes on «V»\n(that's the sample from jwt.io, not a real session)",
            ],
        ),
        (
            G,
            "eth_tx_hash",
            lambda r: "0x" + _s(r, HEX, 64),
            [
                "«A» — Today at «TIME»\nbridge tx «V» still pending after 40 min 😩",
            ],
        ),
        (
            G,
            "test_card_number",
            lambda r: "4242 4242 4242 4242",
            [
                "«A»: use the stripe test card «V», any future expiry, any CVC",
                "«A»: QA: checkout works with «V» in test mode, declines with 4000 0000 0000 0002 ✅",
            ],
        ),
        (
            G,
            "dkim_dns_record",
            lambda r: (
                "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"
                + _s(r, B64, 200)
                + "IDAQAB"
            ),
            [
                "«A»: add this TXT at s1._domainkey.acme.io: «V»",
                "«A»: DKIM record (public, it's DNS): «V»",
            ],
        ),
        (
            G,
            "cloudflare_zone_id",
            lambda r: _s(r, HEX, 32),
            [
                "«A»: zone id for acme.io is «V» (not secret, it's in every dashboard url)",
                "«A»: CF_ZONE_ID=«V» CF_ACCOUNT_ID=«HEX32», token comes from the secret store",
            ],
        ),
        (
            G,
            "git_lfs_pointer",
            lambda r: "sha256:" + _s(r, HEX, 64),
            [
                "«A»: the model file is just an LFS pointer:\nversion https://git-lfs.github.com/spec/v1\noid «V»\nsize 4381920",
            ],
        ),
        (
            G,
            "expired_otp_code",
            lambda r: str(r.randint(100000, 999999)),
            [
                "«A»: the SMS code «V» already expired before I could type it, requesting a new one",
            ],
        ),
        (
            G,
            "stripe_object_ids",
            lambda r: "price_" + _s(r, AN, 24),
            [
                "«A»: new pro plan price id: «V» (prod_«REST18»)",
            ],
        ),
        (
            G,
            "other_sense_secret",
            lambda r: "",
            [
                "«A»: wordle today was brutal, the answer was TOKEN 😭",
                "«A»: 'Open Sesame' is the password to the escape room puzzle lol, we're booking for friday",
            ],
        ),
        (
            G,
            "llm_token_count",
            lambda r: "",
            [
                "«A» — Today at «TIME»\ncost is ~$0.003 per 1k input tokens, the batch was 42M tokens 💸",
            ],
        ),
        (
            G,
            "keyboard_key",
            lambda r: "",
            [
                "«A»: Ctrl+Shift+P → 'Reload Window' fixes the stuck extension",
            ],
        ),
        (
            G,
            "k8s_secret_key_ref",
            lambda r: "",
            [
                "«A»: the sealed secret for prod/api-keys is committed encrypted, only the controller can decrypt it",
            ],
        ),
        (
            G,
            "public_cert_pem",
            lambda r: (
                "-----BEGIN CERTIFICATE-----\n"
                + _pem_lines(r, "MIIBszCCAVmgAwIBAgIU", 180)
                + "\n-----END CERTIFICATE-----"
            ),
            [
                "«A»: the partner's CA cert to trust (public):\n«V»",
            ],
        ),
        (
            G,
            "ssh_fingerprint",
            lambda r: "SHA256:" + _s(r, B64, 43),
            [
                "«A»: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED — new fingerprint «V», is that the rebuild?",
            ],
        ),
        (
            G,
            "aws_docs_example_key",
            lambda r: "AKIAIOSFODNN7EXAMPLE",
            [
                "«A»: localstack accepts anything, I just use «V» and the EXAMPLEKEY secret",
            ],
        ),
        (
            G,
            "stripe_publishable_key",
            lambda r: "pk_live_51" + _s(r, AN, 96),
            [
                "«A»: no wait, that's the pk not the sk 😅 «V» is public anyway, the secret one is on the server",
            ],
        ),
        (
            G,
            "azure_tenant_client_ids",
            lambda r: _uuid(r),
            [
                "«A»: Secret ID (not the value!) of the client secret is «V» — the value was shown once and is in Key Vault",
            ],
        ),
        (
            G,
            "webhook_signature_header",
            lambda r: "sha256=" + _s(r, HEX, 64),
            [
                "«A»: X-Hub-Signature-256: «V» doesn't match what we compute, body must be re-serialized",
            ],
        ),
        (
            G,
            "ulid_ids",
            lambda r: "01J" + _s(r, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 23),
            [
                "«A» — Today at «TIME»\nevent «V» processed twice, idempotency key missing?",
            ],
        ),
    ]


MARK = re.compile(r"«([A-Z0-9]+)»")


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    gens = _gens(rng)
    rows: list[dict] = []
    for label, kind, vgen, templates in _spec() + _spec_more():
        for tpl in templates:
            cache: dict[str, str] = {}

            def sub(m: re.Match, cache: dict = cache, vgen=vgen) -> str:
                k = m.group(1)
                if k not in cache:
                    cache[k] = vgen(rng) if k in ("V", "W") else gens[k]()
                return cache[k]

            text = MARK.sub(sub, tpl)
            value = cache.get("V", "")
            assert value in text, (kind, tpl)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

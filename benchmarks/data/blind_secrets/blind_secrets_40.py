# ruff: noqa: E501
"""Blind secret-detection corpus 40: a small web agency's shared coding-agent memory.

Brief: two years of a small web agency's client projects as remembered by a shared
coding-agent memory: WordPress and Laravel sites, Shopify themes, Next.js apps on Vercel,
staging servers, client hand-overs, DNS and hosting panels, form and mail services,
analytics, payment test and live setups. Ordinary, messy notes as people and agents
really write them: half-sentences, pasted config fragments, checklists, mixed with talk
about credentials that contains none.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_40.py /tmp/blind40.jsonl
(writes JSONL rows {label, kind, text, value}; without an argument, to stdout).

Every value is generated from random.Random(SEED) inside corpus(); none is a real
credential.

Kinds, secret:
    age_secret_key, algolia_admin_key, anthropic_api_key, aws_secret_access_key,
    azure_storage_connection_string, basic_auth_url, bearer_jwt, braintree_private_key,
    cloudflare_api_token, cloudflare_global_api_key, cloudinary_url,
    contentful_management_token, digitalocean_token, discord_webhook_url,
    docker_hub_pat, ec_private_key, env_db_password, facebook_app_secret,
    forge_api_token, gcp_service_account_private_key, github_pat_classic,
    github_pat_fine_grained, gitlab_pat, google_oauth_client_secret,
    google_server_api_key, google_workspace_app_password, hcaptcha_secret,
    hosting_panel_password, hubspot_private_app_token, klaviyo_private_key,
    laravel_app_key, laravel_session_cookie, linear_api_key, magic_login_link,
    mailchimp_api_key, mailgun_api_key, mapbox_secret_token, mollie_live_key,
    mysql_url_password, npm_token, openai_api_key, openssh_private_key,
    password_reset_link, paypal_live_client_secret, postgres_dsn_password,
    postmark_server_token, pusher_app_secret, recaptcha_secret_key, redis_url_password,
    registrar_backup_codes, resend_api_key, rsa_private_key, sendgrid_api_key,
    sentry_auth_token, sftp_password, shopify_admin_api_token, shopify_app_secret,
    shopify_custom_app_token, slack_bot_token, slack_webhook_url, smtp_password,
    square_access_token, staging_basic_auth_password, stripe_live_secret_key,
    stripe_restricted_live_key, stripe_test_secret_key, stripe_webhook_secret,
    supabase_service_role_key, telegram_bot_token, totp_seed, twilio_api_key_secret,
    twilio_auth_token, vercel_token, wallet_seed_phrase, wireguard_private_key,
    wordpress_session_cookie, wp_admin_password, wp_application_password,
    wp_config_db_password, wp_config_salt

Kinds, benign:
    acf_field_key, acme_challenge_value, age_public_key, algolia_app_id,
    algolia_search_only_key, aws_docs_example_key, base32_reference_code,
    base64_data_uri, bcrypt_hash, cache_key, cloudflare_zone_id, composer_content_hash,
    credential_handover_talk, csr_pem, csrf_token_talk, design_token,
    dkim_public_record, dmarc_record, docker_image_digest, env_example_empty,
    env_var_reference, etag_md5, eth_address, firebase_web_config,
    foreign_language_talk, ga4_measurement_id, ga_client_id, git_branch_name,
    git_commit_sha, github_app_ids, google_oauth_client_id, gtm_container_id,
    hashed_asset_name, hcaptcha_site_key, hex_color_and_ids, honeypot_field_talk,
    htpasswd_hash_line, i18n_key_name, idempotency_key, jwt_io_example,
    mailchimp_audience_id, mailgun_public_key, mapbox_public_token, maps_embed_url,
    meta_pixel_id, mfa_recovery_talk, npm_integrity_hash, password_manager_path,
    password_policy_talk, pgp_public_key_block, phpass_hash, placeholder_key,
    postman_variable, public_info_talk, public_key_pem, pusher_app_key,
    recaptcha_site_key, redacted_key, request_id_header, request_uuid, revoked_key_talk,
    rotation_talk, sentry_dsn, sha256_checksum, shopify_hmac_header, shopify_theme_id,
    site_verification_txt, spf_record, sri_hash, ssh_host_fingerprint, ssh_public_key,
    stripe_object_id, stripe_publishable_live, stripe_publishable_test,
    stripe_signature_header, stripe_test_card, supabase_anon_key, tls_certificate_pem,
    tracking_number, truncated_last4, turnstile_site_key, twilio_account_sid,
    uuid_order_reference, vault_reference, vercel_project_id, webhook_endpoint_id,
    wireguard_public_key, youtube_embed_id
"""

import base64
import json
import random
import re
import string
import sys

SEED = 4040

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
HEXL = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
B32 = UP + "234567"

CLIENTS = [
    "Bakkerij Vos",
    "Hartley Dental",
    "Northfield Yoga",
    "Kiln & Co",
    "Marlow Estates",
    "Pine Street Cycles",
    "Oakridge Law",
    "Studio Lumen",
    "Greenway Florists",
    "Atlas Tiles",
    "Bright Harbour Cafe",
    "Fennel Kitchen",
]
DOMAINS = [
    "vosbakkerij.nl",
    "hartleydental.co.uk",
    "northfieldyoga.com",
    "kilnandco.shop",
    "marlowestates.com",
    "pinestreetcycles.com",
    "oakridgelaw.com",
    "studiolumen.de",
    "greenwayflorists.ie",
    "atlastiles.com",
]
WHO = ["mk", "Sanne", "jd", "agent", "Tom", "priya", "Lotte", "ops", "Ruben", "claude"]


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alph: str, n: int) -> str:
        return "".join(r.choice(alph) for _ in range(n))

    def pem(label: str, lines: int) -> str:
        body = "\n".join(s(B64, 64) for _ in range(lines)) + "\n" + s(B64, 24) + "=="
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"

    def b64json(obj: dict) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def jwt(payload: dict) -> str:
        head = b64json({"alg": "HS256", "typ": "JWT"})
        return f"{head}.{b64json(payload)}.{s(B64URL, 43)}"

    def uuid4() -> str:
        h = s(HEXL, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def pw() -> str:
        return s(ALNUM, r.randint(5, 8)) + r.choice("!#%&*-_.?") + s(ALNUM, r.randint(4, 8))

    def words(n: int) -> str:
        wl = [
            "abandon",
            "ability",
            "absorb",
            "acoustic",
            "actress",
            "adapt",
            "admit",
            "aerobic",
            "afford",
            "agent",
            "alley",
            "amateur",
            "anchor",
            "ankle",
            "arena",
            "armor",
            "asthma",
            "atom",
            "auction",
            "autumn",
            "bacon",
            "badge",
            "balcony",
            "bamboo",
            "banner",
            "barrel",
            "basket",
            "beach",
            "benefit",
            "bicycle",
            "blossom",
            "bounce",
            "brick",
            "broccoli",
            "cabin",
            "cactus",
            "camera",
            "canvas",
            "carbon",
            "castle",
            "cereal",
            "chimney",
            "citizen",
            "clever",
            "coconut",
            "comic",
            "copper",
            "cotton",
            "crystal",
            "cushion",
        ]
        return " ".join(r.choice(wl) for _ in range(n))

    def date() -> str:
        return f"20{r.choice(['25', '26'])}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"

    g = {
        "aws_secret": lambda: s(ALNUM + "+/", 40),
        "akia": lambda: "AKIA" + s(UP + DIG, 16),
        "sk_live": lambda: "sk_live_51" + s(ALNUM, 97),
        "rk_live": lambda: "rk_live_51" + s(ALNUM, 97),
        "whsec": lambda: "whsec_" + s(ALNUM, 32),
        "sk_test": lambda: "sk_test_51" + s(ALNUM, 97),
        "pk_live": lambda: "pk_live_51" + s(ALNUM, 97),
        "pk_test": lambda: "pk_test_51" + s(ALNUM, 97),
        "ghp": lambda: "ghp_" + s(ALNUM, 36),
        "ghpat": lambda: "github_pat_11" + s(UP + DIG, 20) + "_" + s(ALNUM, 59),
        "glpat": lambda: "glpat-" + s(ALNUM + "-_", 20),
        "shpat": lambda: "shpat_" + s(HEXL, 32),
        "shpss": lambda: "shpss_" + s(HEXL, 32),
        "shpca": lambda: "shpca_" + s(HEXL, 32),
        "vercel": lambda: s(ALNUM, 24),
        "pw": pw,
        "urlpw": lambda: s(ALNUM, r.randint(6, 9)) + r.choice("!*-_.") + s(ALNUM, r.randint(5, 9)),
        "cld": lambda: s(B64URL, 27),
        "salt": lambda: s(ALNUM + "!@#$%^&*()-_[]{}<>~+=,.;:/?|", 64).replace("'", "x"),
        "wpapp": lambda: " ".join(s(ALNUM, 4) for _ in range(6)),
        "appkey": lambda: (
            "base64:" + base64.b64encode(bytes(r.randrange(256) for _ in range(32))).decode()
        ),
        "openssh": lambda: pem("OPENSSH PRIVATE KEY", 6),
        "rsa": lambda: pem("RSA PRIVATE KEY", 12),
        "ec": lambda: pem("EC PRIVATE KEY", 2),
        "pkcs8": lambda: pem("PRIVATE KEY", 10),
        "sendgrid": lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
        "mailgun": lambda: "key-" + s(HEXL, 32),
        "uuid": uuid4,
        "mailchimp": lambda: s(HEXL, 32) + "-us" + str(r.randint(2, 21)),
        "xoxb": lambda: (
            f"xoxb-{r.randint(10**10, 10**11)}-{r.randint(10**12, 10**13)}-{s(ALNUM, 24)}"
        ),
        "slackhook": lambda: (
            f"https://hooks.slack.com/services/T{s(UP + DIG, 10)}/B{s(UP + DIG, 10)}/{s(ALNUM, 24)}"
        ),
        "discordhook": lambda: (
            f"https://discord.com/api/webhooks/{r.randint(10**17, 10**18)}/{s(B64URL, 68)}"
        ),
        "aiza": lambda: "AIza" + s(B64URL, 35),
        "gocspx": lambda: "GOCSPX-" + s(B64URL, 28),
        "cftoken": lambda: s(B64URL, 40),
        "hex37": lambda: s(HEXL, 37),
        "hex32": lambda: s(HEXL, 32),
        "hex40": lambda: s(HEXL, 40),
        "hex64": lambda: s(HEXL, 64),
        "dop": lambda: "dop_v1_" + s(HEXL, 64),
        "npm": lambda: "npm_" + s(ALNUM, 36),
        "paypal": lambda: "E" + s(B64URL, 79),
        "mollie": lambda: "live_" + s(ALNUM, 30),
        "square": lambda: "EAAA" + s(B64URL, 60),
        "backup": lambda: "  ".join(
            f"{r.randint(0, 99999):05d}-{r.randint(0, 99999):05d}" for _ in range(5)
        ),
        "b32": lambda: s(B32, 32),
        "wpcookie": lambda: (
            f"admin%7C{r.randint(1700000000, 1800000000)}%7C{s(ALNUM, 43)}%7C{s(HEXL, 64)}"
        ),
        "lvsession": lambda: "eyJpdiI6I" + s(B64, 180) + "%3D",
        "jwt_live": lambda: jwt(
            {
                "sub": str(r.randint(100, 9999)),
                "scope": "orders:write",
                "exp": r.randint(1800000000, 1900000000),
            }
        ),
        "recaptcha": lambda: "6L" + s(B64URL, 38),
        "hcap_secret": lambda: "0x" + s(HEXL, 40),
        "openai": lambda: "sk-proj-" + s(B64URL, 156),
        "anthropic": lambda: "sk-ant-api03-" + s(B64URL, 93) + "AA",
        "sntry": lambda: "sntryu_" + s(HEXL, 64),
        "mapbox_sk": lambda: "sk.eyJ1Ijoi" + s(ALNUM, 30) + "." + s(B64URL, 22),
        "mapbox_pk": lambda: "pk.eyJ1Ijoi" + s(ALNUM, 30) + "." + s(B64URL, 22),
        "cfpat": lambda: "CFPAT-" + s(B64URL, 43),
        "supa_service": lambda: jwt(
            {
                "iss": "supabase",
                "ref": s(LOW, 20),
                "role": "service_role",
                "iat": 1716000000,
                "exp": 2031576000,
            }
        ),
        "supa_anon": lambda: jwt(
            {
                "iss": "supabase",
                "ref": s(LOW, 20),
                "role": "anon",
                "iat": 1716000000,
                "exp": 2031576000,
            }
        ),
        "telegram": lambda: f"{r.randint(10**9, 10**10 - 1)}:AA{s(B64URL, 33)}",
        "wg": lambda: s(B64, 42) + r.choice("AEIMQUYcgkosw048") + "=",
        "agesk": lambda: (
            "AGE-SECRET-KEY-1"
            + s(UP.replace("B", "").replace("I", "").replace("O", "") + "023456789", 58)
        ),
        "agepk": lambda: "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
        "seed": lambda: words(12),
        "azure": lambda: base64.b64encode(bytes(r.randrange(256) for _ in range(64))).decode(),
        "hubspot": lambda: "pat-eu1-" + uuid4(),
        "klaviyo": lambda: "pk_" + s(HEXL, 34),
        "dckr": lambda: "dckr_pat_" + s(B64URL, 27),
        "linear": lambda: "lin_api_" + s(ALNUM, 40),
        "resettoken": lambda: s(ALNUM, 20),
        "magic": lambda: s(B64URL, 48),
        "twilio_sk": lambda: "SK" + s(HEXL, 32),
        "digits15": lambda: s(DIG, 15),
        "algid": lambda: s(UP + DIG, 10),
        "pusher_secret": lambda: s(HEXL, 20),
        "none": lambda: "",
    }
    rows: list[dict] = []

    def look_alike(text: str) -> str:
        # the longest run that mixes letters and digits, as a scanner would see it
        best = ""
        for tok in re.findall(r"[A-Za-z0-9_./+=:$-]{12,}", text):
            tok = tok.strip(".:=-/")
            mixed = any(ch.isdigit() for ch in tok) and any(ch.isalpha() for ch in tok)
            if mixed and len(tok) > len(best) and "/" not in tok[:8]:
                best = tok
        return best

    def extras() -> dict:
        return {
            "jwtio": (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4g"
                "RG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            ),
            "pubk": s(B64, 43),
            "pgpb": "\n".join(s(B64, 64) for _ in range(4)) + "\n=" + s(B64, 4),
            "fp": s(B64, 43),
            "cert": "\n".join(s(B64, 64) for _ in range(6)),
            "sha512": s(B64, 86) + "==",
            "vid": s(ALNUM, 24),
            "vid2": s(ALNUM, 28),
            "dkim": s(B64, 180),
            "gsv": s(B64URL, 43),
            "fbdv": s(LOW + DIG, 30),
            "acme": s(B64URL, 43),
            "bcrypt": s("./" + ALNUM, 53),
            "phpass": s("./" + ALNUM, 31),
            "apr1": s("./" + ALNUM, 8) + "$" + s("./" + ALNUM, 22),
            "hmac": s(B64, 43) + "=",
            "gcid": s(LOW + DIG, 32),
            "sri": s(B64, 64),
            "ts": s(B64URL, 14),
            "algid": s(UP + DIG, 10),
        }

    def add(label: str, kind: str, gen: str, templates: list[str], aux: str = "none") -> None:
        for tpl in templates:
            v = g[gen]()
            a = g[aux]()
            ex = extras()
            ci = r.randrange(len(DOMAINS))
            text = tpl.format(
                v=v,
                a=a,
                **ex,
                c=CLIENTS[ci],
                d=DOMAINS[ci],
                w=r.choice(WHO),
                dt=date(),
                n=r.randint(2, 99),
                p=r.randint(2000, 65000),
            )
            if "{v}" not in tpl:
                v = next((ex[k] for k in ex if "{" + k + "}" in tpl), "")
            if not v and label == B:
                v = look_alike(text)
            assert v in text, (kind, tpl)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S = "secret"
    B = "benign"

    # ---------------- secret rows ----------------
    add(
        S,
        "aws_secret_access_key",
        "aws_secret",
        [
            "{c} S3 bucket for media offload (WP Offload Media): key id {a}, secret {v} - IAM user wp-offload-{n}",
            "AWS_ACCESS_KEY_ID={a}\nAWS_SECRET_ACCESS_KEY={v}\nAWS_DEFAULT_REGION=eu-west-1\n# laravel filesystems s3 disk, {d}",
            "backups to s3 work again. creds in wp-config: define('AS3CF_SETTINGS', ... 'secret-access-key' => '{v}'",
        ],
        aux="akia",
    )
    add(
        S,
        "stripe_live_secret_key",
        "sk_live",
        [
            "{c} went live {dt}. STRIPE_SECRET={v} set in Forge env, publishable already in theme",
            "woocommerce stripe gateway > live mode. pasted secret key: {v} (client read it out on the call)",
            "- [x] switch vercel prod env STRIPE_SECRET_KEY to live\n  value: {v}\n- [ ] test a real 1 EUR order and refund",
        ],
        aux="akia",
    )
    add(
        S,
        "stripe_restricted_live_key",
        "rk_live",
        [
            "restricted key for the reporting cron on {d}, only read charges + payouts: {v}",
            "{w}: made a restricted key (webhooks read, checkout write) for the Next app -> {v}",
        ],
    )
    add(
        S,
        "stripe_webhook_secret",
        "whsec",
        [
            "STRIPE_WEBHOOK_SECRET={v}  # prod endpoint /api/stripe/webhook on {d}",
            "signing secret for the live webhook endpoint changed after we recreated it, new one {v}, old deliveries will fail verification",
            "if webhooks 400 on staging: the whsec differs per endpoint. staging = {v}",
        ],
    )
    add(
        S,
        "stripe_test_secret_key",
        "sk_test",
        [
            "test mode for {c}: sk {v} - fine to use on staging, do not put in git",
            ".env.local\nNEXT_PUBLIC_STRIPE_PK=pk_test_...\nSTRIPE_SK={v}",
        ],
    )
    add(
        S,
        "github_pat_classic",
        "ghp",
        [
            "deploy on the old VPS pulls via https with a PAT: git remote set-url origin https://{v}@github.com/agency/{n}-theme.git",
            "my token for the composer private repos (repo scope, no expiry, yeah I know): {v}",
            'COMPOSER_AUTH=\'{{"github-oauth": {{"github.com": "{v}"}}}}\'',
        ],
    )
    add(
        S,
        "github_pat_fine_grained",
        "ghpat",
        [
            "fine-grained PAT for the release action, contents:write on {c} repo only -> {v}",
            "GH_TOKEN={v} (expires in 90 days, renew before hand-over)",
        ],
    )
    add(
        S,
        "gitlab_pat",
        "glpat",
        [
            "{c} still hosts on their own gitlab. read_repository token from their dev: {v}",
            "CI var GITLAB_TOKEN = {v} (masked in UI, copied here so we don't lose it again)",
        ],
    )
    add(
        S,
        "shopify_admin_api_token",
        "shpat",
        [
            "{c} custom app 'agency-sync' admin api access token: {v} (shown once!)",
            "SHOPIFY_ADMIN_TOKEN={v}\nSHOPIFY_STORE={n}kiln.myshopify.com\nAPI_VERSION=2025-07",
            "curl -H 'X-Shopify-Access-Token: {v}' https://{n}-store.myshopify.com/admin/api/2025-04/products.json",
        ],
    )
    add(
        S,
        "shopify_app_secret",
        "shpss",
        [
            "partner app client secret (used to verify webhook hmac): {v}",
            "SHOPIFY_API_SECRET={v} # app 'Lumen bundles' in partner dashboard",
        ],
    )
    add(
        S,
        "shopify_custom_app_token",
        "shpca",
        [
            "old style custom app token still used by the ERP connector on {c}: {v}",
            "theme kit / CLI password for the store, from the Theme Access app: {v}",
        ],
    )
    add(
        S,
        "vercel_token",
        "vercel",
        [
            "VERCEL_TOKEN={v} for the github action that promotes preview to prod ({c})",
            "vercel cli on the build box: vercel --token {v} deploy --prod",
            "personal vercel token (full account, scope agency team) {v} - revoke when Tom leaves",
        ],
    )
    add(
        S,
        "wp_admin_password",
        "pw",
        [
            "{c} wp-admin: user agency_admin / {v}",
            "logged into https://{d}/wp-login.php with admin + {v}, updated plugins, all green",
            "WP login for client's editor account (Marieke): marieke@{d}  pw: {v}",
            "hand-over checklist {c}\n- admin user created for client\n- temp password {v} (they must change on first login)\n- removed our own account? NO, keep till end of warranty",
        ],
    )
    add(
        S,
        "wp_config_salt",
        "salt",
        [
            "define( 'AUTH_KEY',         '{v}' );",
            "copied salts from prod wp-config so sessions survive the migration:\ndefine('LOGGED_IN_SALT', '{v}');",
            "SECURE_AUTH_KEY on staging was the same as prod (!) -> '{v}' - regenerate on both",
        ],
    )
    add(
        S,
        "wp_config_db_password",
        "pw",
        [
            "define( 'DB_NAME', 'wp_{n}' );\ndefine( 'DB_USER', 'wp_{n}_usr' );\ndefine( 'DB_PASSWORD', '{v}' );\ndefine( 'DB_HOST', 'localhost' );",
            "{c} db creds from wp-config on the TransIP box: user wp_{n}, pass {v}",
        ],
    )
    add(
        S,
        "wp_application_password",
        "wpapp",
        [
            "application password for the Next frontend to hit WP REST as 'headless-bot': {v}",
            'WP_APP_PASSWORD="{v}"  # user api-sync on {d}',
        ],
    )
    add(
        S,
        "laravel_app_key",
        "appkey",
        [
            'APP_NAME="{c}"\nAPP_ENV=production\nAPP_KEY={v}\nAPP_DEBUG=false',
            "do NOT regenerate APP_KEY on prod, encrypted columns depend on it. current: {v}",
            "{w}: restored the original key after forge wiped .env -> {v}",
        ],
    )
    add(
        S,
        "mysql_url_password",
        "urlpw",
        [
            "DATABASE_URL=mysql://forge:{v}@10.0.{n}.12:3306/{n}_prod",
            "for the migration script: mysql://shop_rw:{v}@db.{d}/shop",
        ],
    )
    add(
        S,
        "postgres_dsn_password",
        "urlpw",
        [
            "neon db for the Next app: postgresql://app_owner:{v}@ep-quiet-{n}.eu-central-1.aws.neon.tech/neondb?sslmode=require",
            'POSTGRES_URL="postgres://default:{v}@pg-{n}.internal:5432/verceldb"',
        ],
    )
    add(
        S,
        "env_db_password",
        "pw",
        [
            "DB_CONNECTION=mysql\nDB_HOST=127.0.0.1\nDB_PORT=3306\nDB_DATABASE=laravel\nDB_USERNAME=forge\nDB_PASSWORD={v}",
            "staging db pw for {c} is {v}, prod one is different ask Sanne",
            "phpmyadmin at cpanel -> user {n}_wp, password '{v}'",
        ],
    )
    add(
        S,
        "openssh_private_key",
        "openssh",
        [
            "deploy key for {c} (the one forge uses to pull):\n{v}",
            "~/.ssh/id_ed25519 from the old shared laptop, pasting so it's not lost:\n{v}",
        ],
    )
    add(
        S,
        "rsa_private_key",
        "rsa",
        [
            "wp engine sftp key (PEM, they don't take ed25519):\n{v}",
            "TLS key for the self-signed staging cert on {d}:\n{v}",
        ],
    )
    add(
        S,
        "ec_private_key",
        "ec",
        [
            "Apple Pay merchant cert private key (for mollie) - generated on my mac:\n{v}",
        ],
    )
    add(
        S,
        "gcp_service_account_private_key",
        "pkcs8",
        [
            "service account for GA4 data API reporting (agency-reports@...iam.gserviceaccount.com) private_key:\n{v}",
            "google sheets sync for the florist order form, key from the json:\n{v}",
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        "sendgrid",
        [
            "MAIL_MAILER=smtp\nMAIL_HOST=smtp.sendgrid.net\nMAIL_USERNAME=apikey\nMAIL_PASSWORD={v}",
            "sendgrid key for {c} contact form (mail send only): {v}",
            "WP Mail SMTP > SendGrid > API key field: {v}",
        ],
    )
    add(
        S,
        "mailgun_api_key",
        "mailgun",
        [
            "mailgun private api key (EU region, domain mg.{d}): {v}",
            "MAILGUN_SECRET={v}\nMAILGUN_DOMAIN=mg.{d}\nMAILGUN_ENDPOINT=api.eu.mailgun.net",
        ],
    )
    add(
        S,
        "postmark_server_token",
        "uuid",
        [
            "POSTMARK_SERVER_TOKEN={v} (transactional stream, {c})",
            "postmark: server 'webshop' API token {v} - the account token is in 1Password, this is just the server one",
            "curl -H 'X-Postmark-Server-Token: {v}' https://api.postmarkapp.com/email -d @test.json",
        ],
    )
    add(
        S,
        "mailchimp_api_key",
        "mailchimp",
        [
            "mailchimp api key for the newsletter signup block: {v}",
            "MC4WP plugin settings on {d} -> API key {v}, connected to list 'Nieuwsbrief'",
        ],
    )
    add(
        S,
        "smtp_password",
        "pw",
        [
            "office 365 SMTP for {c} forms: info@{d} / {v}, port 587 STARTTLS",
            "SMTP relay on the hosting package: mail.{d}, user noreply@{d}, pass {v}",
            'MAIL_PASSWORD="{v}"',
        ],
    )
    add(
        S,
        "slack_bot_token",
        "xoxb",
        [
            "deploy notifier bot in our slack: SLACK_BOT_TOKEN={v}",
            "bot token for the uptime -> #alerts integration {v}",
        ],
    )
    add(
        S,
        "slack_webhook_url",
        "slackhook",
        [
            "form submissions also go to client's slack: {v}",
            "SLACK_WEBHOOK={v} # #deploys channel",
        ],
    )
    add(
        S,
        "discord_webhook_url",
        "discordhook",
        [
            "{c} wants order pings in their discord, webhook: {v}",
            "discord webhook for the gaming client's contact form -> {v}",
        ],
    )
    add(
        S,
        "google_server_api_key",
        "aiza",
        [
            "server-side geocoding key (NO referrer restriction, ip-restricted was too annoying): {v}",
            "GOOGLE_PLACES_SERVER_KEY={v} used in the laravel job that imports reviews, unrestricted, billing on client card",
        ],
    )
    add(
        S,
        "google_oauth_client_secret",
        "gocspx",
        [
            "Google login for the members area: client secret {v}",
            "GOOGLE_CLIENT_SECRET={v}\nGOOGLE_REDIRECT_URI=https://{d}/auth/google/callback",
        ],
    )
    add(
        S,
        "cloudflare_api_token",
        "cftoken",
        [
            "CF API token (Zone.DNS edit, all zones of {c}) for certbot dns challenge: {v}",
            "dns_cloudflare_api_token = {v}",
            "cloudflare token for the purge-cache step in deploy.sh: CF_TOKEN={v}",
        ],
    )
    add(
        S,
        "cloudflare_global_api_key",
        "hex37",
        [
            "client gave us their cloudflare GLOBAL api key (ugh) for {d}: {v}, email is their owner address",
            "X-Auth-Email: hosting@{d}\nX-Auth-Key: {v}",
        ],
    )
    add(
        S,
        "digitalocean_token",
        "dop",
        [
            "DO token for terraform (staging droplets): {v}",
            "doctl auth init --access-token {v}",
        ],
    )
    add(
        S,
        "npm_token",
        "npm",
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN for publishing our @agency/ui package: {v} (automation type)",
        ],
    )
    add(
        S,
        "twilio_auth_token",
        "hex32",
        [
            "twilio SMS reminders for {c}: account AC{a}... auth token {v}",
            "TWILIO_AUTH_TOKEN={v}",
        ],
        aux="hex32",
    )
    add(
        S,
        "twilio_api_key_secret",
        "hex32",
        [
            "twilio API key {a} with secret {v} - use this instead of the auth token",
        ],
        aux="twilio_sk",
    )
    add(
        S,
        "paypal_live_client_secret",
        "paypal",
        [
            "paypal LIVE app 'webshop' client secret: {v}",
            "PAYPAL_MODE=live\nPAYPAL_CLIENT_SECRET={v}",
        ],
    )
    add(
        S,
        "mollie_live_key",
        "mollie",
        [
            "mollie live api key for {c}: {v} (test_ key is on staging)",
            "MOLLIE_KEY={v}",
            "mollie plugin on woo -> live API key pasted: {v}. iDEAL + Bancontact active",
        ],
    )
    add(
        S,
        "square_access_token",
        "square",
        [
            "square production access token for the cafe's POS sync: {v}",
        ],
    )
    add(
        S,
        "basic_auth_url",
        "urlpw",
        [
            "staging link sent to client: https://preview:{v}@staging.{d}/",
            "uptime robot monitor uses https://monitor:{v}@stage.{d}/health",
        ],
    )
    add(
        S,
        "staging_basic_auth_password",
        "pw",
        [
            "staging.{d} is behind basic auth: user {w}, pass {v}",
            "htaccess protect on the dev subdomain, login: klant / {v}",
            "Vercel password protection for the preview deployments of {c}: {v}",
        ],
    )
    add(
        S,
        "sftp_password",
        "pw",
        [
            "SFTP {d}: host ssh.{d} port 22 user {n}wp pw {v}",
            "FileZilla site manager export for {c}: <Pass>{v}</Pass>",
            "ftp login from old agency (still works!): ftp.{d} / webmaster / {v}",
        ],
    )
    add(
        S,
        "hosting_panel_password",
        "pw",
        [
            "cPanel {c}: https://{d}:2083 user {n}hart pass {v}",
            "Plesk login for the reseller account: admin / {v}",
            "DirectAdmin of the old host (for the migration export only): {v}",
            "TransIP control panel, agency account, pw {v} - 2FA on Ruben's phone",
        ],
    )
    add(
        S,
        "registrar_backup_codes",
        "backup",
        [
            "2FA backup codes for the registrar account holding {d}:\n{v}",
            "recovery codes (google workspace admin of {c}): {v}",
        ],
    )
    add(
        S,
        "totp_seed",
        "b32",
        [
            "shared TOTP for the hosting panel so anyone on call can log in: otpauth://totp/TransIP:agency?secret={v}&issuer=TransIP",
            "2FA seed for the client's shopify staff account (they asked us to hold it): {v}",
        ],
    )
    add(
        S,
        "wordpress_session_cookie",
        "wpcookie",
        [
            "debugging the logout loop, my cookie: wordpress_logged_in_{a}={v}",
            "curl -b 'wordpress_logged_in_{a}={v}' https://{d}/wp-admin/admin-ajax.php",
        ],
        aux="hex32",
    )
    add(
        S,
        "laravel_session_cookie",
        "lvsession",
        [
            "copied session from the browser to reproduce the admin bug: laravel_session={v}",
        ],
    )
    add(
        S,
        "bearer_jwt",
        "jwt_live",
        [
            "Authorization: Bearer {v}",
            "token for the client's ERP API (valid until 2030 apparently): {v}",
        ],
    )
    add(
        S,
        "recaptcha_secret_key",
        "recaptcha",
        [
            "reCAPTCHA v3 secret key (server side, contact form 7): {v}",
            "RECAPTCHA_SECRET={v}",
        ],
    )
    add(
        S,
        "hcaptcha_secret",
        "hcap_secret",
        [
            "hcaptcha secret for the laravel form validator: {v}",
        ],
    )
    add(
        S,
        "algolia_admin_key",
        "hex32",
        [
            "algolia ADMIN api key (indexing from the cron): {v}",
            "ALGOLIA_ADMIN_KEY={v}\nALGOLIA_APP_ID={a}",
        ],
        aux="algid",
    )
    add(
        S,
        "openai_api_key",
        "openai",
        [
            "OPENAI_API_KEY={v}  # product description generator for {c}",
            "the chatbot on {d} uses our agency openai key {v}, bill client monthly",
        ],
    )
    add(
        S,
        "anthropic_api_key",
        "anthropic",
        [
            "ANTHROPIC_API_KEY={v}",
            "key for the alt-text batch job: {v}",
        ],
    )
    add(
        S,
        "sentry_auth_token",
        "sntry",
        [
            "SENTRY_AUTH_TOKEN={v} (for uploading source maps in the vercel build)",
            "sentry user token, project:releases scope: {v}",
        ],
    )
    add(
        S,
        "mapbox_secret_token",
        "mapbox_sk",
        [
            "mapbox secret token (styles:write, for the upload script): {v}",
        ],
    )
    add(
        S,
        "cloudinary_url",
        "cld",
        [
            "CLOUDINARY_URL=cloudinary://{a}:{v}@lumen-media",
        ],
        aux="digits15",
    )
    add(
        S,
        "redis_url_password",
        "urlpw",
        [
            "REDIS_URL=rediss://default:{v}@eu1-smart-{n}.upstash.io:6379",
            "queue redis on the forge box requires auth now: requirepass {v}",
        ],
    )
    add(
        S,
        "pusher_app_secret",
        "pusher_secret",
        [
            "PUSHER_APP_ID=1{n}4417\nPUSHER_APP_KEY={a}\nPUSHER_APP_SECRET={v}",
        ],
        aux="pusher_secret",
    )
    add(
        S,
        "contentful_management_token",
        "cfpat",
        [
            "contentful CMA token for the migration scripts: {v}",
            "CONTENTFUL_MANAGEMENT_TOKEN={v}",
        ],
    )
    add(
        S,
        "supabase_service_role_key",
        "supa_service",
        [
            "SUPABASE_SERVICE_ROLE_KEY={v}",
            "service role key (bypasses RLS!! server only) for {c}: {v}",
        ],
    )
    add(
        S,
        "telegram_bot_token",
        "telegram",
        [
            "telegram bot for the bakery's order alerts, token from BotFather: {v}",
        ],
    )
    add(
        S,
        "wireguard_private_key",
        "wg",
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.8.0.{n}/32\nDNS = 1.1.1.1",
            "wg key for my laptop on the office VPN (to reach the NAS with client backups): PrivateKey {v}",
        ],
    )
    add(
        S,
        "age_secret_key",
        "agesk",
        [
            "age key that decrypts the sops-encrypted .env files in the infra repo: {v}",
        ],
    )
    add(
        S,
        "wallet_seed_phrase",
        "seed",
        [
            "{c} crypto payment plugin: wallet recovery phrase (client insisted we store it): {v}",
            "BTCPay hot wallet seed for the test->live switch: {v}",
        ],
    )
    add(
        S,
        "azure_storage_connection_string",
        "azure",
        [
            "DefaultEndpointsProtocol=https;AccountName=hartleyfiles;AccountKey={v};EndpointSuffix=core.windows.net",
        ],
    )
    add(
        S,
        "facebook_app_secret",
        "hex32",
        [
            "FB app for the instagram feed: app id 8{n}1234567, app secret {v}",
            "META_APP_SECRET={v}",
        ],
    )
    add(
        S,
        "hubspot_private_app_token",
        "hubspot",
        [
            "hubspot private app token for forms -> CRM sync: {v}",
            "HUBSPOT_ACCESS_TOKEN={v}",
        ],
    )
    add(
        S,
        "klaviyo_private_key",
        "klaviyo",
        [
            "klaviyo PRIVATE api key (full access) for the shopify flow backfill: {v}",
            "KLAVIYO_PRIVATE_KEY={v}",
        ],
    )
    add(
        S,
        "docker_hub_pat",
        "dckr",
        [
            "docker login -u agencyops -p {v}",
        ],
    )
    add(
        S,
        "password_reset_link",
        "resettoken",
        [
            "reset link for the client's owner account (valid 24h, send via signal not mail): https://{d}/wp-login.php?action=rp&key={v}&login=owner",
            "laravel reset mail never arrived so here's the link from the log: https://{d}/reset-password/{v}?email=info%40{d}",
        ],
    )
    add(
        S,
        "magic_login_link",
        "magic",
        [
            "magic login for the Next app (works once, 15 min): https://app.{d}/api/auth/callback/email?token={v}",
        ],
    )
    add(
        S,
        "linear_api_key",
        "linear",
        [
            "LINEAR_API_KEY={v} for the client ticket sync",
        ],
    )

    # ---------------- benign rows ----------------
    add(
        B,
        "stripe_publishable_live",
        "pk_live",
        [
            "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}  # safe in the browser bundle",
            "{c} live publishable key for the checkout embed: {v}",
            "woo stripe settings: live publishable key {v} (secret key went into the vault, not here)",
        ],
    )
    add(
        B,
        "stripe_publishable_test",
        "pk_test",
        [
            "test publishable key in theme.liquid for the donation widget: {v}",
            "Stripe.js init on staging uses {v}, that's the pk not the sk, fine to commit",
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        "recaptcha",
        [
            "reCAPTCHA site key (public, goes in the page html): {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "NEXT_PUBLIC_RECAPTCHA_SITE_KEY={v} - the secret half is only in vercel env",
        ],
    )
    add(
        B,
        "mapbox_public_token",
        "mapbox_pk",
        [
            "mapbox public token (pk., url-restricted to {d}) for the store locator: {v}",
            "mapboxgl.accessToken = '{v}';",
        ],
    )
    add(
        B,
        "ga4_measurement_id",
        "none",
        [
            "GA4 for {c}: measurement id G-{n}K7QZ2M4L, property in the client's own account, we're editor",
            "gtag('config', 'G-8HX2{n}PQ1R');  -- put in header.php via child theme",
        ],
    )
    add(
        B,
        "gtm_container_id",
        "none",
        [
            "GTM-{n}W7KQX container is on prod AND staging, staging should use its own env snippet",
            "tag manager: GTM-P3{n}ZL9 published v14 with the consent mode update",
        ],
    )
    add(
        B,
        "meta_pixel_id",
        "none",
        [
            "meta pixel id 1{n}8273645091726 installed via the shopify facebook channel, not manually",
            "fbq('init', '7{n}120934857612'); duplicate events because both plugin and GTM fire it",
        ],
    )
    add(
        B,
        "shopify_theme_id",
        "none",
        [
            "shopify theme push --theme 1{n}2837465091 (that's the 'staging copy' theme, live is 13{n}9982211)",
            "{c}: unpublished theme id 14{n}0012233 has the new PDP, preview link sent",
        ],
    )
    add(
        B,
        "git_commit_sha",
        "hex40",
        [
            "prod on {d} is at {v}, rollback target if the checkout breaks again",
            "bisected the menu bug to {v} (the ACF upgrade commit)",
            "git revert {v} && git push - done, deploy green",
        ],
    )
    add(
        B,
        "sha256_checksum",
        "hex64",
        [
            "sha256 of the premium plugin zip we got from the client: {v}, matches vendor site",
            "db dump {c}-{dt}.sql.gz checksum {v}",
        ],
    )
    add(
        B,
        "request_uuid",
        "uuid",
        [
            "vercel function timeout, request id {v}, happens only on /api/quote",
            "mollie support ticket ref {v} re: failed iDEAL callbacks",
            "x-request-id: {v} in the 502 from the forge box",
        ],
    )
    add(
        B,
        "vault_reference",
        "none",
        [
            "prod DB password lives in 1Password > Clients > {c} > 'MySQL prod', don't paste it in tickets",
            "STRIPE_SECRET_KEY=op://Agency/{c} Stripe/live secret key  # resolved by op run",
            "creds for the panel are in bitwarden collection '{c}', item 'TransIP'",
        ],
    )
    add(
        B,
        "env_var_reference",
        "none",
        [
            "DB_PASSWORD=${{FORGE_DB_PASSWORD}}  -- forge injects it, nothing in the repo",
            "deploy.sh uses $CF_API_TOKEN from the github secret, so rotate there only",
            "password: ${{{{ secrets.SFTP_PASSWORD }}}} in the workflow for {c}",
        ],
    )
    add(
        B,
        "placeholder_key",
        "none",
        [
            "README for client devs: STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx (replace with your own)",
            "wp-config sample: define( 'AUTH_KEY', 'put your unique phrase here' );",
            ".env template:\nMAILGUN_SECRET=your-mailgun-key-here\nSHOPIFY_ADMIN_TOKEN=shpat_<paste token>",
            "example in docs: Authorization: Bearer <YOUR_ACCESS_TOKEN>",
        ],
    )
    add(
        B,
        "redacted_key",
        "none",
        [
            "rotated the sendgrid key for {c}; old one SG.****************redacted, new one only in vault",
            "log line: password=[FILTERED] user=admin@{d} - laravel log scrubbing works",
            "sentry breadcrumb shows Authorization: Bearer ******** (scrubbed), good",
        ],
    )
    add(
        B,
        "truncated_last4",
        "none",
        [
            "stripe dashboard shows the live key as sk_live_...{n}Qx, matches what's in vercel",
            "which token is on the build box? ends in ...7f{n}a according to the github settings page",
        ],
    )
    add(
        B,
        "ssh_public_key",
        "none",
        [
            "add to authorized_keys on staging: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{pubk} {w}@agency-mbp",
            "Tom's new pubkey for the forge servers: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{pubk} tom@laptop",
        ],
    )
    add(
        B,
        "pgp_public_key_block",
        "none",
        [
            "client's security contact wants reports encrypted, their public key:\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ{pgpb}\n-----END PGP PUBLIC KEY BLOCK-----",
        ],
    )
    add(
        B,
        "ssh_host_fingerprint",
        "none",
        [
            "new forge server host key fingerprint: SHA256:{fp} (ED25519) - verify before accepting",
            "known_hosts changed for ssh.{d}, host migrated, fingerprint now SHA256:{fp}",
        ],
    )
    add(
        B,
        "tls_certificate_pem",
        "none",
        [
            "intermediate cert the old host forgot to serve (chain incomplete):\n-----BEGIN CERTIFICATE-----\nMIIF{cert}\n-----END CERTIFICATE-----",
        ],
    )
    add(
        B,
        "csr_pem",
        "none",
        [
            "CSR for the EV cert {c} insists on, sent to sectigo:\n-----BEGIN CERTIFICATE REQUEST-----\nMIIC{cert}\n-----END CERTIFICATE REQUEST-----",
        ],
    )
    add(
        B,
        "password_policy_talk",
        "none",
        [
            "client wants wp passwords min 14 chars + 2FA for editors, installed WP 2FA plugin, enforced for admins",
            "note: Laravel Password::defaults() -> min(12)->mixedCase()->uncompromised() on {c} portal",
            "Shopify staff accounts: ask client to turn on 2-step for everyone before launch",
        ],
    )
    add(
        B,
        "rotation_talk",
        "none",
        [
            "rotated all {c} keys after the freelancer left: stripe, mailgun, sftp. new values in vault only. old ones revoked.",
            "TODO rotate the cloudflare token, it has all-zones scope. ask Ruben, don't paste the new one here",
            "we leaked nothing, the 'secret' in the github alert was the publishable key. closed alert.",
        ],
    )
    add(
        B,
        "acf_field_key",
        "none",
        [
            "ACF field key for the hero image is field_6{n}3a9c2e41f7b, use that in acf_add_local_field not the name",
            "group_64f1{n}b7a2c9d key changed after json sync, re-export local json",
        ],
    )
    add(
        B,
        "design_token",
        "none",
        [
            "design tokens from figma: --color-primary-600: #1F4E79; --radius-md: 8px; token names follow tailwind",
            "tokens.json updated: spacing.token.lg = 24px, font.token.display = 'Fraunces'",
        ],
    )
    add(
        B,
        "hashed_asset_name",
        "none",
        [
            "old bundle main.{n}f3a9c1be.js still cached by cloudflare, purged",
            "next build chunk _next/static/chunks/app/page-8c2f{n}e91d0a7b3c.js 404s after deploy, skew protection on",
        ],
    )
    add(
        B,
        "npm_integrity_hash",
        "none",
        [
            "lockfile conflict: integrity sha512-{sha512} for react-dom differs, regenerated lock",
        ],
    )
    add(
        B,
        "composer_content_hash",
        "hex32",
        [
            'composer.lock "content-hash": "{v}" - lock out of sync warning on deploy, ran composer update --lock',
        ],
    )
    add(
        B,
        "algolia_search_only_key",
        "hex32",
        [
            "algolia search-only api key (public, used in instantsearch on the frontend): {v}",
            "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY={v}  # search only, admin key is server side",
        ],
    )
    add(
        B,
        "firebase_web_config",
        "aiza",
        [
            'firebase web config for push notifications (this is public by design, lock down with rules):\napiKey: "{v}",\nauthDomain: "{n}-lumen.firebaseapp.com"',
            "firebaseConfig.apiKey = {v} - browser key, restricted to {d} referrer",
        ],
    )
    add(
        B,
        "sentry_dsn",
        "hex32",
        [
            "NEXT_PUBLIC_SENTRY_DSN=https://{v}@o45{n}12.ingest.de.sentry.io/45{n}871",
            "sentry dsn for the laravel app: https://{v}@o12{n}9.ingest.sentry.io/60{n}44 (dsn is ok client-side)",
        ],
    )
    add(
        B,
        "vercel_project_id",
        "none",
        [
            "VERCEL_ORG_ID=team_{vid}\nVERCEL_PROJECT_ID=prj_{vid2}",
            "vercel project for {c}: prj_{vid2}, domain attached {d}",
        ],
    )
    add(
        B,
        "cloudflare_zone_id",
        "hex32",
        [
            "cloudflare zone id for {d}: {v} (needed for the purge api call, not secret)",
            "CF_ZONE_ID={v}\nCF_ACCOUNT_ID={a}",
        ],
        aux="hex32",
    )
    add(
        B,
        "mailchimp_audience_id",
        "none",
        [
            "mailchimp audience id {n}a7c3e91f for {c} newsletter, double opt-in on",
        ],
    )
    add(
        B,
        "twilio_account_sid",
        "hex32",
        [
            "twilio account sid AC{v} (the auth token is NOT this, that's in the vault)",
        ],
    )
    add(
        B,
        "stripe_object_id",
        "none",
        [
            "refund issued for pi_3P{n}kLm2eZvKYlo2C1x8gH4q, customer cus_Q{n}hT8xLm3zY",
            "price id for the monthly plan: price_1P{n}Xa2eZvKYlo2CqR7mN0sD, product prod_Q{n}ab12CD",
            "connected account acct_1N{n}YzQ2eZvKYlo2 onboarding incomplete",
        ],
    )
    add(
        B,
        "stripe_test_card",
        "none",
        [
            "test cards: 4242 4242 4242 4242 any future date any CVC; 3DS: 4000 0027 6000 3184",
            "mollie test mode: use the fake iDEAL bank, pick 'paid'. paypal sandbox buyer sb-{n}abc@personal.example.com",
        ],
    )
    add(
        B,
        "spf_record",
        "none",
        [
            "SPF for {d}: v=spf1 include:_spf.google.com include:mailgun.org ~all (was -all, broke forms)",
        ],
    )
    add(
        B,
        "dkim_public_record",
        "none",
        [
            "DKIM TXT for mg.{d}: k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ{dkim}IDAQAB",
            'google._domainkey.{d} TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{dkim}"',
        ],
    )
    add(
        B,
        "site_verification_txt",
        "none",
        [
            "added TXT google-site-verification={gsv} for search console on {d}",
            "facebook-domain-verification={fbdv} TXT on root, for the shop catalog",
        ],
    )
    add(
        B,
        "dmarc_record",
        "none",
        [
            "_dmarc.{d} TXT v=DMARC1; p=quarantine; rua=mailto:dmarc@{d}; pct=100",
        ],
    )
    add(
        B,
        "acme_challenge_value",
        "none",
        [
            "_acme-challenge.{d} TXT {acme} (left over from manual cert, can delete)",
        ],
    )
    add(
        B,
        "bcrypt_hash",
        "none",
        [
            "users table row for admin on {c} portal: password = $2y$12${bcrypt} (hash, we never saw the plaintext)",
            "seeded test user hash $2y$10${bcrypt} in the factory",
        ],
    )
    add(
        B,
        "phpass_hash",
        "none",
        [
            "wp_users.user_pass for old editor: $P$B{phpass} - just a hash, reset via wp-cli instead",
        ],
    )
    add(
        B,
        "htpasswd_hash_line",
        "none",
        [
            ".htpasswd on dev: klant:$apr1${apr1}  (password itself sent to client by phone)",
        ],
    )
    add(
        B,
        "etag_md5",
        "hex32",
        [
            'cloudflare serving stale css, ETag "{v}" both before and after deploy',
            "S3 object etag {v} for the hero video matches local md5",
        ],
    )
    add(
        B,
        "jwt_io_example",
        "none",
        [
            "the jwt.io default example token for the workshop slide: {jwtio}",
        ],
    )
    add(
        B,
        "password_manager_path",
        "none",
        [
            "hand-over {c}: shared vault 'Client - {c}' with them, they now own items 'WP admin', 'Hosting', 'Domain'",
            "where's the registrar login? -> 1Password, Agency vault, search 'TransIP {c}'",
        ],
    )
    add(
        B,
        "credential_handover_talk",
        "none",
        [
            "client asked for the wp admin password over email again. told them we send via one-time secret link only",
            "Gave {c} the FTP password over the phone, they wrote it down. nothing stored here.",
            "checklist: hand-over\n- transfer domain auth code (sent to owner directly, not via us)\n- remove agency API keys\n- client creates own stripe keys",
        ],
    )
    add(
        B,
        "docker_image_digest",
        "hex64",
        [
            "pinned php image: php:8.3-fpm-alpine@sha256:{v}",
        ],
    )
    add(
        B,
        "env_example_empty",
        "none",
        [
            ".env.example committed:\nAPP_KEY=\nDB_PASSWORD=\nMAIL_PASSWORD=\nSTRIPE_SECRET=\nSTRIPE_WEBHOOK_SECRET=",
            "vercel env vars needed (values in vercel, not here): STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, RESEND_API_KEY, DATABASE_URL",
        ],
    )
    add(
        B,
        "mailgun_public_key",
        "hex32",
        [
            "mailgun public validation key pubkey-{v} for the email check on the signup form",
        ],
    )
    add(
        B,
        "shopify_hmac_header",
        "none",
        [
            "webhook failing verification, X-Shopify-Hmac-Sha256: {hmac} on the orders/create that 401'd",
        ],
    )
    add(
        B,
        "stripe_signature_header",
        "hex64",
        [
            "Stripe-Signature: t={p}1700,v1={v} - that delivery failed because of the clock skew, not the secret",
        ],
    )
    add(
        B,
        "google_oauth_client_id",
        "none",
        [
            "GOOGLE_CLIENT_ID=4{n}7812093-{gcid}.apps.googleusercontent.com (public; secret stays in forge)",
        ],
    )
    add(
        B,
        "github_app_ids",
        "none",
        [
            "github app 'agency-deployer' app id 9{n}3121, installation id 51{n}77820 on the client org",
        ],
    )
    add(
        B,
        "age_public_key",
        "agepk",
        [
            ".sops.yaml recipients: {v} (mine) - add yours with age-keygen -y",
        ],
    )
    add(
        B,
        "wireguard_public_key",
        "wg",
        [
            "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.8.0.{n}/32\nEndpoint = vpn.agency.example:51820",
            "office VPN peer public key for Lotte's laptop: {v}",
        ],
    )
    add(
        B,
        "eth_address",
        "hex40",
        [
            "crypto donations for the foundation site go to 0x{v} (public address, printed on the page)",
        ],
    )
    add(
        B,
        "sri_hash",
        "none",
        [
            '<script src="https://cdn.jsdelivr.net/npm/alpinejs@3.14.1/dist/cdn.min.js" integrity="sha384-{sri}" crossorigin="anonymous" defer></script>',
        ],
    )
    add(
        B,
        "turnstile_site_key",
        "none",
        [
            "turnstile widget sitekey 0x4AAAAAAA{ts} on the contact form, secret is in the laravel env",
        ],
    )
    add(
        B,
        "hcaptcha_site_key",
        "uuid",
        [
            "hcaptcha sitekey {v} - public, goes in the form html",
        ],
    )
    add(
        B,
        "pusher_app_key",
        "pusher_secret",
        [
            "VITE_PUSHER_APP_KEY={v} (frontend key, cluster eu)",
        ],
    )
    add(
        B,
        "algolia_app_id",
        "none",
        [
            "algolia application id {algid} for {c}, two indices: products_prod, products_staging",
        ],
    )
    add(
        B,
        "supabase_anon_key",
        "supa_anon",
        [
            "NEXT_PUBLIC_SUPABASE_ANON_KEY={v}  # anon role, RLS is on for every table",
            "supabase anon key (public, in the client bundle): {v}",
        ],
    )
    add(
        B,
        "foreign_language_talk",
        "none",
        [
            "Wachtwoord van de klant niet in Slack zetten! Altijd via 1Password delen.",
            "Das Passwort für den Hosting-Zugang hat der Kunde selbst geändert, wir haben es nicht.",
            "mot de passe du back-office: le client le réinitialise lui-même, on ne le garde pas",
        ],
    )
    add(
        B,
        "csrf_token_talk",
        "none",
        [
            "419 page expired on the form = missing @csrf token in the blade template, fixed",
            "token mismatch on the ajax call: add X-CSRF-TOKEN from the meta tag, see resources/js/bootstrap.js",
        ],
    )
    add(
        B,
        "webhook_endpoint_id",
        "none",
        [
            "stripe webhook endpoint we_1P{n}Kx2eZvKYlo2Lm8QpRs3T listens to checkout.session.completed only",
        ],
    )
    add(
        B,
        "youtube_embed_id",
        "none",
        [
            "hero video on {d}: youtube id dQ{n}w4w9WgX, lazy-load with lite-youtube",
        ],
    )
    add(
        B,
        "maps_embed_url",
        "none",
        [
            "contact page map iframe: https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d2436.{n}!2d4.8{n}!3d52.37!2m3!1f0!2f0!3f0!3m2!1i1024!2i768!4f13.1",
        ],
    )
    add(
        B,
        "uuid_order_reference",
        "uuid",
        [
            "client says order {v} was charged twice, checking the webhook log",
            "formspree submission id {v} never arrived in their inbox",
        ],
    )
    add(
        B,
        "base32_reference_code",
        "b32",
        [
            "DNS transfer ticket at registrar: reference {v}, status pending owner approval",
        ],
    )

    # ---------------- more secret rows ----------------
    g["resend"] = lambda: "re_" + s(ALNUM, 8) + "_" + s(ALNUM, 24)
    g["gapp"] = lambda: " ".join(s(LOW, 4) for _ in range(4))
    g["braintree"] = lambda: s(HEXL, 32)
    g["forge"] = lambda: jwt(
        {"aud": "1", "jti": s(HEXL, 40), "sub": str(r.randint(1000, 99999)), "scopes": []}
    )
    add(
        S,
        "wp_admin_password",
        "pw",
        [
            "{w}: reset admin pw for {c} because the client locked themselves out. new one: {v} - told them to change it",
            "wp cli: wp user update 1 --user_pass='{v}' --skip-email (staging.{d})",
        ],
    )
    add(
        S,
        "sftp_password",
        "pw",
        [
            "sshpass -p '{v}' rsync -az ./dist/ deploy@{d}:/var/www/html/",
        ],
    )
    add(
        S,
        "hosting_panel_password",
        "pw",
        [
            "Combell hosting login for {c} is their info@ address, password {v} (client shared it, we should get our own user)",
        ],
    )
    add(
        S,
        "env_db_password",
        "pw",
        [
            "mysql -u root -p'{v}' -h 127.0.0.1 {n}_staging < dump.sql   # staging root, works",
        ],
    )
    add(
        S,
        "stripe_live_secret_key",
        "sk_live",
        [
            "payments broke because someone put the TEST key in prod. correct live secret: {v}",
        ],
    )
    add(
        S,
        "shopify_admin_api_token",
        "shpat",
        [
            "{c}: the metafield importer needs write_products, new token {v} (old app uninstalled)",
        ],
    )
    add(
        S,
        "sendgrid_api_key",
        "sendgrid",
        [
            "export SENDGRID_API_KEY='{v}'",
        ],
    )
    add(
        S,
        "smtp_password",
        "pw",
        [
            "Gmail SMTP via the client's workspace account, app password (not their real pw): {a}; fallback mailbox pw {v}",
        ],
        aux="gapp",
    )
    add(
        S,
        "google_workspace_app_password",
        "gapp",
        [
            "app password for the WP Mail SMTP 'Other SMTP' setup on {d}: {v}",
            "google app password generated for noreply@{d}: {v} (16 letters, spaces don't matter)",
        ],
    )
    add(
        S,
        "mollie_live_key",
        "mollie",
        [
            "{c} asked why no payments came in: MOLLIE_API_KEY was empty on vercel prod. set it to {v}, redeployed",
        ],
    )
    add(
        S,
        "github_pat_classic",
        "ghp",
        [
            '[remote "origin"]\n\turl = https://{w}:{v}@github.com/agency/{n}-shop.git',
        ],
    )
    add(
        S,
        "basic_auth_url",
        "urlpw",
        [
            "playwright baseURL for the e2e run: https://qa:{v}@preview-{n}.{d}",
        ],
    )
    add(
        S,
        "aws_secret_access_key",
        "aws_secret",
        [
            "[default]\naws_access_key_id = {a}\naws_secret_access_key = {v}",
        ],
        aux="akia",
    )
    add(
        S,
        "openssh_private_key",
        "openssh",
        [
            "GitHub Actions secret SSH_PRIVATE_KEY content (same as on forge):\n{v}",
        ],
    )
    add(
        S,
        "resend_api_key",
        "resend",
        [
            "RESEND_API_KEY={v}  # contact form on the next app, domain verified",
            "switched {c} from sendgrid to resend, key {v}",
        ],
    )
    add(
        S,
        "braintree_private_key",
        "braintree",
        [
            "braintree production: merchant id {a}, public key {a}x, private key {v}",
        ],
        aux="pusher_secret",
    )
    add(
        S,
        "forge_api_token",
        "forge",
        [
            "laravel forge API token for the deploy script (whole account): {v}",
        ],
    )
    add(
        S,
        "wp_config_salt",
        "salt",
        [
            "bedrock .env for {c}:\nWP_ENV=production\nWP_HOME=https://{d}\nNONCE_KEY='{v}'",
        ],
    )
    add(
        S,
        "postmark_server_token",
        "uuid",
        [
            "{c} order confirmation mails via postmark, server API token {v}",
        ],
    )
    add(
        S,
        "twilio_auth_token",
        "hex32",
        [
            "twilio console -> auth token (primary) for {c} SMS: {v}",
        ],
    )
    add(
        S,
        "cloudflare_api_token",
        "cftoken",
        [
            "wrangler login doesn't work in CI so: CLOUDFLARE_API_TOKEN={v} (Workers edit)",
        ],
    )
    add(
        S,
        "staging_basic_auth_password",
        "pw",
        [
            "nginx auth_basic on staging.{d}; the user is 'client', pw '{v}' (htpasswd has the hash)",
        ],
    )
    add(
        S,
        "mailchimp_api_key",
        "mailchimp",
        [
            "MAILCHIMP_API_KEY={v}\nMAILCHIMP_LIST_ID={n}a7c3e91f",
        ],
    )
    add(
        S,
        "vercel_token",
        "vercel",
        [
            'vercel api: curl -H "Authorization: Bearer {v}" https://api.vercel.com/v9/projects',
        ],
    )
    add(
        S,
        "digitalocean_token",
        "dop",
        [
            "DIGITALOCEAN_ACCESS_TOKEN={v} for the spaces backup bucket script",
        ],
    )

    # ---------------- more benign rows ----------------
    add(
        B,
        "aws_docs_example_key",
        "none",
        [
            "IAM policy test with the AWS docs example creds AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (these are fake, from the docs)",
        ],
    )
    add(
        B,
        "public_key_pem",
        "none",
        [
            "apple pay domain / JWT verify: the client's public key\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{pubk}\n-----END PUBLIC KEY-----",
            "webhook verification for the ERP uses their RSA public key (-----BEGIN PUBLIC KEY----- MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{dkim}), stored in config/erp.php",
        ],
    )
    add(
        B,
        "idempotency_key",
        "uuid",
        [
            "retried the capture with Idempotency-Key: {v} so it won't double charge",
        ],
    )
    add(
        B,
        "i18n_key_name",
        "none",
        [
            "translation key auth.passwords.reset missing in nl.json, added 'Je wachtwoord is gereset.'",
            "lang key 'checkout.secret_code_label' is the gift card field, not a secret, rename it",
        ],
    )
    add(
        B,
        "cache_key",
        "none",
        [
            "cache key product:{n}:price:v3 not busted on update, added Cache::forget in observer",
            "redis key prefix {c}_cache: collides between staging and prod on the same instance (different DB index now)",
        ],
    )
    add(
        B,
        "base64_data_uri",
        "none",
        [
            "inline font in critical css: src:url(data:font/woff2;base64,d09GMgABAAAAA{dkim}) format('woff2')",
        ],
    )
    add(
        B,
        "ga_client_id",
        "none",
        [
            "GA client id from the _ga cookie for the test purchase: GA1.1.{p}81920.17{n}334455, used to debug the missing conversion",
        ],
    )
    add(
        B,
        "tracking_number",
        "none",
        [
            "client's test order shipped, PostNL 3SKLN{p}{n}19 - confirms the sendcloud webhook works",
        ],
    )
    add(
        B,
        "git_branch_name",
        "none",
        [
            "branch feature/rotate-secret-keys merged; it only changed where secrets are READ from (config/services.php), no values",
            "PR #{n} 'move api keys to env' on {c} repo reviewed, good",
        ],
    )
    add(
        B,
        "postman_variable",
        "none",
        [
            "postman collection for the ERP: headers use {{{{api_key}}}} and {{{{bearer_token}}}}, values in each person's local env",
        ],
    )
    add(
        B,
        "stripe_publishable_live",
        "pk_live",
        [
            "<script>const stripe = Stripe('{v}');</script> in the landing page template",
        ],
    )
    add(
        B,
        "vault_reference",
        "none",
        [
            "Vercel env: DATABASE_URL is a sensitive var, copied from neon dashboard directly, not through here",
            "aws creds for {c}: use `aws sso login --profile {n}-prod`, no long-lived keys anymore",
            "SFTP pw -> 1Password 'Hosting / {d}'. if the item is missing ask Sanne, don't reset it blindly",
        ],
    )
    add(
        B,
        "placeholder_key",
        "none",
        [
            "GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX in the contributing doc, obviously fake",
            "APP_KEY=base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= in phpunit.xml (testing only, meaningless)",
            "config example: mailgun.secret = 'key-<your-private-key>'; mailgun.domain = 'mg.example.com'",
            "db:\n  user: wordpress\n  password: <CHANGE_ME>\n  host: db  # docker-compose.example.yml",
        ],
    )
    add(
        B,
        "redacted_key",
        "none",
        [
            "debug dump of the request, Authorization header shown as 'Bearer [REDACTED]', body fine",
            "STRIPE_SECRET_KEY=sk_live_•••••••••••••••••••• (as shown in vercel UI, it's masked)",
            "forge env screenshot had DB_PASSWORD blurred, ok to put in the client doc",
        ],
    )
    add(
        B,
        "git_commit_sha",
        "hex40",
        [
            "deployed {c} {v} to staging, client approved, promote tomorrow",
            "cherry-picked {v} (fix for the cart drawer) onto release/2.3",
        ],
    )
    add(
        B,
        "sha256_checksum",
        "hex64",
        [
            "wp core verify-checksums fine; custom check of wp-login.php sha256 {v} matches clean 6.6 zip",
        ],
    )
    add(
        B,
        "request_uuid",
        "uuid",
        [
            "shopify support conversation id {v} about the checkout extension review",
            "postmark message id {v} bounced (mailbox full), not our problem",
        ],
    )
    add(
        B,
        "rotation_talk",
        "none",
        [
            "every client hand-over: rotate whatever we used, delete our API keys, remove agency users. keep this list updated",
            "key rotation reminder set for march: stripe restricted keys, cloudflare, postmark. values NOT in memory",
            "the .env was in a public gist for ~10 min in 2025, all values were rotated same day, gist deleted",
        ],
    )
    add(
        B,
        "credential_handover_talk",
        "none",
        [
            "{c} wants us to keep their registrar login 'just in case'. said no, they keep it, we get delegated access",
            "hand-over call done. client has: domain, hosting, stripe owner, GA4 admin. we removed ourselves from all but the repo",
            "new dev onboarding: ask for vault access, never ask for passwords in slack DMs",
        ],
    )
    add(
        B,
        "password_policy_talk",
        "none",
        [
            "shopify customer accounts: passwordless login (new accounts) enabled, no password field on the theme anymore",
            "wordfence: force strong passwords for all users with publish capability, brute force lockout 5 tries",
        ],
    )
    add(
        B,
        "env_var_reference",
        "none",
        [
            "config/services.php: 'secret' => env('STRIPE_SECRET'), 'webhook_secret' => env('STRIPE_WEBHOOK_SECRET')",
            "process.env.SHOPIFY_ADMIN_TOKEN is undefined in edge runtime -> moved route to node runtime",
        ],
    )
    add(
        B,
        "foreign_language_talk",
        "none",
        [
            "Sleutel van het kantoor ligt bij de receptie - niks met servers te maken, is voor de fotoshoot",
            "La clave de la API la tiene el cliente; nosotros solo tenemos acceso de lectura en el panel.",
        ],
    )
    add(
        B,
        "ga4_measurement_id",
        "none",
        [
            "two GA4 streams on {d}?? G-{n}TQ8R2XK from the old agency and ours, removed theirs from the theme",
        ],
    )
    add(
        B,
        "gtm_container_id",
        "none",
        [
            "server-side GTM container GTM-K{n}MZQ7 on stape, custom domain sgtm.{d}",
        ],
    )
    add(
        B,
        "shopify_theme_id",
        "none",
        [
            "theme check failing on theme 15{n}4433210 (Dawn 15 fork), fixed the deprecated img_url filters",
        ],
    )
    add(
        B,
        "sentry_dsn",
        "hex32",
        [
            "SENTRY_DSN=https://{v}@o88{n}1.ingest.sentry.io/77{n}3 - public key only, can't read events with it",
        ],
    )
    add(
        B,
        "cloudflare_zone_id",
        "hex32",
        [
            "account id {v} in wrangler.toml, that's fine to commit",
        ],
    )
    add(
        B,
        "stripe_object_id",
        "none",
        [
            "dispute dp_1P{n}ZZ2eZvKYlo2AbCdEf for invoice in_1P{n}Xa2eZvKYlo2Ghij - evidence submitted",
            "subscription sub_1P{n}Qq2eZvKYlo2xYz stuck in incomplete, customer's 3DS failed",
        ],
    )
    add(
        B,
        "dkim_public_record",
        "none",
        [
            "resend DNS: resend._domainkey TXT p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ{dkim}IDAQAB, send.{d} MX feedback-smtp",
        ],
    )
    add(
        B,
        "bcrypt_hash",
        "none",
        [
            "factory default: 'password' => '$2y$10${bcrypt}', i.e. hash of the literal word password, seeders only",
        ],
    )
    add(
        B,
        "ssh_public_key",
        "none",
        [
            "client's IT wants our key for the on-prem box: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{dkim} agency-deploy",
            "forge -> server -> ssh keys: added 'ci-runner' ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{pubk}",
        ],
    )
    add(
        B,
        "ssh_host_fingerprint",
        "none",
        [
            "ssh-keyscan result for the staging host: ED25519 key fingerprint is SHA256:{fp}, RSA SHA256:{gsv}",
        ],
    )
    add(
        B,
        "mapbox_public_token",
        "mapbox_pk",
        [
            "NEXT_PUBLIC_MAPBOX_TOKEN={v}  (pk. = public, url restricted)",
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        "recaptcha",
        [
            "CF7 reCAPTCHA integration: site key {v} entered; the secret key field I left for the client to fill in",
        ],
    )
    add(
        B,
        "firebase_web_config",
        "aiza",
        [
            'const firebaseConfig = {{ apiKey: "{v}", projectId: "lumen-{n}-push" }}; browser key, fine in bundle',
        ],
    )
    add(
        B,
        "supabase_anon_key",
        "supa_anon",
        [
            "createClient(url, '{v}') in the browser - anon key, RLS policies checked",
        ],
    )
    add(
        B,
        "algolia_search_only_key",
        "hex32",
        [
            "docsearch config: appId {algid}, apiKey {v} (search-only, given to us by algolia docsearch)",
        ],
    )
    add(
        B,
        "design_token",
        "none",
        [
            "token budget for the AI alt text job: max 300 tokens per image, ~2k images",
            "tailwind.config: theme.extend.colors from tokens/brand.json (primary, secondary, accent tokens)",
        ],
    )
    add(
        B,
        "csrf_token_talk",
        "none",
        [
            "WP REST from the block editor 403s: nonce expired after 24h tab open, not an auth bug, just reload",
        ],
    )
    add(
        B,
        "hashed_asset_name",
        "none",
        [
            "theme.liquid references base.css?v={p}{n}81 - shopify cache buster, ignore in diffs",
        ],
    )
    add(
        B,
        "etag_md5",
        "hex32",
        [
            "md5 of the exported products.csv {v}, compare after re-import",
        ],
    )
    add(
        B,
        "request_id_header",
        "none",
        [
            "x-vercel-id: fra1::iad1::{vid}-17{p}  on the failing request, sent to vercel support",
        ],
    )
    add(
        B,
        "uuid_order_reference",
        "uuid",
        [
            "typeform response token {v} is the one with the broken file upload",
        ],
    )
    add(
        B,
        "stripe_test_card",
        "none",
        [
            "declined test: 4000 0000 0000 0002; insufficient funds 4000 0000 0000 9995; always with sk_test on staging",
        ],
    )
    add(
        B,
        "spf_record",
        "none",
        [
            "too many DNS lookups in SPF for {d} (12). flattened: v=spf1 ip4:185.{n}.12.0/24 include:spf.protection.outlook.com -all",
        ],
    )
    add(
        B,
        "site_verification_txt",
        "none",
        [
            "MS=ms{p}{n}1 TXT for the client's microsoft 365 domain verification, can stay",
        ],
    )
    add(
        B,
        "webhook_endpoint_id",
        "none",
        [
            "shopify webhook subscription gid://shopify/WebhookSubscription/1{p}{n}22 for orders/paid points to the old vercel url",
        ],
    )
    add(
        B,
        "twilio_account_sid",
        "hex32",
        [
            "messaging service MG{v} is the one with the approved sender id",
        ],
    )
    add(
        B,
        "wireguard_public_key",
        "wg",
        [
            "wg show: peer {v} latest handshake 2 minutes ago (that's the NAS)",
        ],
    )
    add(
        B,
        "docker_image_digest",
        "hex64",
        [
            "ddev upgraded mariadb image, digest sha256:{v}; local dbs needed ddev import-db again",
        ],
    )
    add(
        B,
        "env_example_empty",
        "none",
        [
            "wp-config-sample style for the client handbook:\ndefine( 'DB_PASSWORD', 'password_here' );\ndefine( 'AUTH_KEY', 'put your unique phrase here' );",
        ],
    )
    add(
        B,
        "acf_field_key",
        "none",
        [
            "acf-json/group_65{n}c2e1a9f03.json conflicts on every merge, rename to title-based file names",
        ],
    )
    add(
        B,
        "public_info_talk",
        "none",
        [
            "Stripe account id and publishable key are public info - client's IT flagged them in a review, explained",
            "security scan complaint about 'exposed api key' was the google maps browser key, referrer restricted, closed",
        ],
    )
    add(
        B,
        "revoked_key_talk",
        "none",
        [
            "github emailed that a token of ours was found in a public repo and auto-revoked. it was the old CI token, gone; new one via org secret",
            "mailgun key leaked in a screenshot in the client's slide deck -> disabled in mailgun same hour, new key in vault",
        ],
    )
    add(
        B,
        "mfa_recovery_talk",
        "none",
        [
            "client lost their phone, shopify 2FA: they used their own recovery codes, we don't hold any",
            "TOTP for the registrar is on Ruben's authenticator only; if he's out, use the registrar's support flow",
        ],
    )
    add(
        B,
        "hex_color_and_ids",
        "none",
        [
            "brand colours: #0B3D2E #F4E9D8 #C8553D; logo svg id logo-{n}a9f, favicon regenerated",
        ],
    )
    add(
        B,
        "honeypot_field_talk",
        "none",
        [
            "spam on the contact form: added honeypot field 'website_url' + time check, no captcha keys needed",
        ],
    )

    return rows


def main() -> None:
    rows = corpus()
    for row in rows:
        assert row["value"] in row["text"]
    out = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

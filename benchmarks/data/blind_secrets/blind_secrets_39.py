"""Blind corpus 39: a solo developer's agent memory across side projects over a year.

A realistic cross-section of what one person's coding-agent memory holds after a
year of side projects: Vercel, Netlify, Supabase (service role vs anon), Firebase,
Cloudflare (API tokens, R2 keys, Workers secrets), Resend, Postmark, Clerk, Auth0,
Upstash, Neon, Turso, PlanetScale, Railway, Render, Fly.io, Expo/EAS, App Store
Connect API keys, Google Play service accounts, domain registrar API keys, Stripe,
LemonSqueezy, Paddle, OpenAI keys, Sentry auth tokens, GitHub fine-grained PATs,
personal VPS root passwords, plus decisions, conventions and todos with no secrets.
Look-alikes: anon/publishable keys, project refs and ids, DSNs, deployment ids,
commit SHAs, domain verification TXT values, DKIM public keys, webhook endpoint
ids, example keys clearly marked, env var names with no values, masked or
truncated keys.

Written blind on 2026-12-07: the author did not read the detector, its tests or
any earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_39.py /tmp/blind39.jsonl
(without an argument the JSONL goes to stdout).

Kinds
  secret:
    vercel_token, netlify_pat, supabase_service_role_jwt, supabase_secret_key,
    supabase_access_token, supabase_db_url, supabase_jwt_secret,
    firebase_sa_private_key, fcm_server_key, firebase_ci_token,
    cloudflare_api_token, cloudflare_global_key, r2_secret_access_key,
    workers_secret, cloudflare_tunnel_token, cf_access_client_secret,
    turnstile_secret, resend_api_key, postmark_server_token, postmark_account_token,
    clerk_secret_key, svix_webhook_secret, auth0_client_secret, auth0_mgmt_token,
    upstash_redis_token, upstash_redis_url, qstash_token, qstash_signing_key,
    neon_db_url, neon_api_key, turso_auth_token, planetscale_password,
    planetscale_service_token, railway_token, render_api_key, render_deploy_hook,
    fly_token, expo_token, asc_p8_key, play_sa_json_key, android_keystore_password,
    porkbun_keys, namecheap_api_key, godaddy_key_secret, stripe_secret_key,
    stripe_restricted_key, stripe_webhook_secret, lemonsqueezy_api_key,
    lemonsqueezy_webhook_secret, paddle_api_key, openai_project_key,
    openai_svcacct_key, anthropic_key, sentry_org_token, sentry_user_token,
    github_fine_grained_pat, github_classic_pat, vps_root_password, ssh_private_key,
    google_oauth_client_secret, nextauth_secret, session_cookie, vercel_deploy_hook,
    netlify_build_hook, discord_webhook_url, hetzner_api_token, digitalocean_pat,
    apple_app_specific_password, gmail_app_password, npm_token, docker_hub_pat,
    tailscale_auth_key, postgres_vps_password, basic_auth_url
  benign:
    supabase_anon_key, supabase_publishable_key, supabase_project_ref,
    firebase_web_config, cloudflare_account_zone_id, cloudflare_token_id,
    r2_access_key_id_only, dkim_public_key, domain_verification_txt,
    acme_challenge_txt, postmark_ids, clerk_publishable_key, clerk_user_ids,
    auth0_spa_client_id, upstash_endpoint, neon_ids, turso_db_url, planetscale_refs,
    railway_ids, render_ids, fly_ids, expo_ids, asc_key_and_issuer_ids,
    play_sa_email_and_key_id, stripe_publishable_key, stripe_object_ids,
    stripe_webhook_endpoint_id, paddle_client_token, paddle_ids, lemonsqueezy_ids,
    openai_masked_key, openai_org_project_ids, sentry_dsn, commit_sha,
    vercel_deployment_ids, netlify_ids, env_names_only, env_example_placeholders,
    docs_example_key, revoked_truncated_key, vault_reference, ssh_public_key,
    ssh_host_fingerprint, gpg_fingerprint, decision_note, convention_note,
    todo_no_secret, cf_ray_request_id, sri_integrity, docker_digest, jwks_public,
    other_sense_key, llm_tokens_sense, turnstile_site_key, recaptcha_site_key,
    analytics_public_keys, apple_team_bundle, cloudflare_resource_ids,
    release_checksum, masked_password_field, sentry_slugs, dnssec_ds_record,
    cert_fingerprint, pat_metadata_no_value, fly_secrets_list,
    bcrypt_hash_in_fixture, stripe_example_docs, password_policy_talk,
    github_webhook_delivery_id, railway_variable_reference, expo_push_receipt_ids,
    registrar_public_info, actions_secret_reference, aws_docs_example_key,
    webhook_url_placeholder, hashed_api_key_storage, lesson_note, stripe_masked_key
"""

# ruff: noqa: E501
import base64
import json
import random
import string
import sys

SEED = 3939

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
LOWER_DIG = string.ascii_lowercase + string.digits
B64URL = B62 + "-_"
B64 = B62 + "+/"


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def rs(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def uuid4() -> str:
        h = rs(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    def jwt(payload: dict, alg: str = "HS256", siglen: int = 43) -> str:
        head = _b64url(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
        body = _b64url(json.dumps(payload, separators=(",", ":")).encode())
        return f"{head}.{body}.{rs(B64URL, siglen)}"

    def pem(label: str, nlines: int, last: int = 24) -> str:
        lines = [rs(B64, 64) for _ in range(nlines)] + [rs(B64, last) + "=="]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def ref() -> str:
        return rs(string.ascii_lowercase, 20)

    def pw(n: int = 20) -> str:
        return rs(B62 + "!#%^*-_=+", n)

    def iat() -> int:
        return rng.randint(1_690_000_000, 1_760_000_000)

    projects = [
        "tidepool",
        "quillnote",
        "fernbox",
        "pocketdm",
        "gridlock",
        "habitkit",
        "linkloom",
        "sparrow",
    ]

    def proj() -> str:
        return rng.choice(projects)

    rows: list[dict] = []

    def add(label: str, kind: str, gen, templates: list[str]) -> None:
        for t in templates:
            d = gen()
            d.setdefault("p", proj())
            text = t.format(**d)
            value = d.get("v", "")
            if "{v}" not in t:
                assert label == "benign", (kind, t)
                value = next(
                    (d[k] for k in ("pj", "pi", "e", "k", "c", "a") if "{" + k + "}" in t), ""
                )
            assert value in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})

    S = lambda kind, gen, ts: add("secret", kind, gen, ts)  # noqa: E731
    B = lambda kind, gen, ts: add("benign", kind, gen, ts)  # noqa: E731

    # ------------------------------------------------------------------ secrets
    S(
        "vercel_token",
        lambda: {"v": rs(B62, 24)},
        [
            "{p}: CI deploys via `vercel --prod --token {v}` (token scoped to my personal team, no expiry, fix that).",
            "VERCEL_TOKEN={v}\n# added to GitHub Actions secrets for {p} too",
            "Vercel account token for the deploy script on the old laptop: {v}",
        ],
    )
    S(
        "netlify_pat",
        lambda: {"v": "nfp_" + rs(B62, 36)},
        [
            "netlify personal access token (created for the {p} landing page cron): {v}",
            "export NETLIFY_AUTH_TOKEN={v}\nnetlify deploy --prod --dir=dist",
            "- Netlify PAT `{v}` -> used by the Astro blog rebuild workflow",
        ],
    )

    def sb_service():
        r = ref()
        t = iat()
        return {
            "r": r,
            "v": jwt(
                {
                    "iss": "supabase",
                    "ref": r,
                    "role": "service_role",
                    "iat": t,
                    "exp": t + 315360000,
                }
            ),
        }

    S(
        "supabase_service_role_jwt",
        sb_service,
        [
            "{p} supabase SERVICE ROLE key (bypasses RLS, server only!!): {v}",
            "SUPABASE_SERVICE_ROLE_KEY={v}\nNEXT_PUBLIC_SUPABASE_URL=https://{r}.supabase.co",
            "Edge function admin client: createClient(url, '{v}') - move to env before pushing",
            "the seed script needs the service_role one, not anon. here it is: {v}",
        ],
    )
    S(
        "supabase_secret_key",
        lambda: {"v": "sb_secret_" + rs(B64URL, 31)},
        [
            "Supabase migrated {p} to the new API keys. secret key = {v} (old service_role JWT disabled)",
            'SUPABASE_SECRET_KEY="{v}"  # backend only',
            "new-style supabase key for the cron worker: {v}",
        ],
    )
    S(
        "supabase_access_token",
        lambda: {"v": "sbp_" + rs(HEX, 40)},
        [
            "supabase CLI login token (so `supabase db push` works in CI): {v}",
            "SUPABASE_ACCESS_TOKEN={v} supabase functions deploy send-digest --project-ref {r}".replace(
                "{r}", "qwmzlkdhtrpaxvbneuoy"
            ),
            "Management API PAT for {p}: {v} - it can delete projects, careful",
        ],
    )
    S(
        "supabase_db_url",
        lambda: {"v": pw(18).replace("%", "x").replace("#", "k"), "r": ref()},
        [
            "direct db conn {p}: postgresql://postgres:{v}@db.{r}.supabase.co:5432/postgres",
            "pooler url (transaction mode):\npostgres://postgres.{r}:{v}@aws-0-eu-central-1.pooler.supabase.com:6543/postgres",
            "Supabase database password for {p} (reset it in dashboard > settings > database): {v}",
        ],
    )
    S(
        "supabase_jwt_secret",
        lambda: {"v": rs(B64, 64)},
        [
            "{p}: to mint custom JWTs for the realtime bridge I sign with the project JWT secret: {v}",
            "SUPABASE_JWT_SECRET={v}",
        ],
    )

    def fb_sa():
        pid = f"{proj()}-{rs(LOWER_DIG, 5)}"
        return {"v": pem("PRIVATE KEY", 6), "pid": pid}

    S(
        "firebase_sa_private_key",
        fb_sa,
        [
            "firebase-adminsdk key for {pid} (pasted from the json so I can rebuild it):\n{v}",
            "FIREBASE_PRIVATE_KEY lives in Vercel env for {pid}. Copy:\n{v}",
        ],
    )
    S(
        "fcm_server_key",
        lambda: {"v": "AAAA" + rs(B64URL, 7) + ":APA91b" + rs(B64URL, 134)},
        [
            "legacy FCM server key for {p} push (before the HTTP v1 migration): {v}",
            "Authorization: key={v}\n(the curl I used to test notifications)",
        ],
    )
    S(
        "firebase_ci_token",
        lambda: {"v": "1//0" + rs(B64URL, 97)},
        [
            "firebase login:ci output, for GH actions hosting deploy: {v}",
            "FIREBASE_TOKEN={v} firebase deploy --only hosting",
        ],
    )
    S(
        "cloudflare_api_token",
        lambda: {"v": rs(B64URL, 40)},
        [
            "Cloudflare API token (Zone:DNS:Edit on all zones) for the certbot dns-01 hook: {v}",
            "dns_cloudflare_api_token = {v}\n# /root/.secrets/cf.ini on the vps, chmod 600",
            "CLOUDFLARE_API_TOKEN={v} npx wrangler deploy",
            "{p}: token for wrangler with Workers Scripts:Edit + R2 → {v}",
        ],
    )
    S(
        "cloudflare_global_key",
        lambda: {"v": rs(HEX, 37), "m": "me@" + proj() + ".dev"},
        [
            "old scripts still use the GLOBAL api key (X-Auth-Key) + X-Auth-Email {m}: {v}",
            "CF_API_EMAIL={m}\nCF_API_KEY={v}",
        ],
    )
    S(
        "r2_secret_access_key",
        lambda: {"v": rs(HEX, 64), "a": rs(HEX, 32)},
        [
            "R2 bucket {p}-uploads S3 creds\naccess key id: {a}\nsecret access key: {v}",
            "AWS_ACCESS_KEY_ID={a}\nAWS_SECRET_ACCESS_KEY={v}\nAWS_ENDPOINT_URL_S3=https://{a}.r2.cloudflarestorage.com",
            "rclone r2 remote: secret_access_key = {v}",
        ],
    )
    S(
        "workers_secret",
        lambda: {"v": rs(B64URL, 32)},
        [
            "`wrangler secret put HMAC_KEY` for the {p} link shortener - value I entered: {v}",
            "worker env ADMIN_BEARER = {v} (the /purge endpoint checks it)",
            "Set the Workers secret SIGNING_SECRET to {v} on both staging and prod",
        ],
    )

    def tunnel():
        d = {
            "a": rs(HEX, 32),
            "t": uuid4(),
            "s": base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode(),
        }
        return {"v": base64.b64encode(json.dumps(d).encode()).decode().rstrip("=")}

    S(
        "cloudflare_tunnel_token",
        tunnel,
        [
            "homelab tunnel: cloudflared service install {v}",
            "TUNNEL_TOKEN for the docker compose cloudflared container: {v}",
        ],
    )
    S(
        "cf_access_client_secret",
        lambda: {"v": rs(HEX, 64), "c": rs(HEX, 32) + ".access"},
        [
            "Access service token for the uptime bot\nCF-Access-Client-Id: {c}\nCF-Access-Client-Secret: {v}",
            "staging is behind Zero Trust; curl needs -H 'CF-Access-Client-Secret: {v}'",
        ],
    )
    S(
        "turnstile_secret",
        lambda: {"v": "0x4AAAAAAA" + rs(B64URL, 22)},
        [
            "Turnstile SECRET key (server-side siteverify) for {p} signup: {v}",
            "TURNSTILE_SECRET_KEY={v}",
        ],
    )
    S(
        "resend_api_key",
        lambda: {"v": "re_" + rs(B62, 8) + "_" + rs(B62, 24)},
        [
            "Resend key (full access, domain mail.{p}.app): {v}",
            "RESEND_API_KEY={v}",
            "magic-link emails send via new Resend('{v}') in lib/mail.ts",
        ],
    )
    S(
        "postmark_server_token",
        uuid4_gen := (lambda: {"v": uuid4()}),
        [
            "Postmark server API token for {p} transactional stream: {v}",
            "X-Postmark-Server-Token: {v}",
            "POSTMARK_SERVER_TOKEN={v}  # outbound only",
        ],
    )
    S(
        "postmark_account_token",
        uuid4_gen,
        [
            "Postmark ACCOUNT token (can create servers / manage domains): {v}",
            "curl -H 'X-Postmark-Account-Token: {v}' https://api.postmarkapp.com/domains",
        ],
    )
    S(
        "clerk_secret_key",
        lambda: {"v": "sk_live_" + rs(B62, 42)},
        [
            "Clerk prod instance for {p}: CLERK_SECRET_KEY={v}",
            "clerk backend key (live): {v} -- dev one is in .env.local",
            "middleware was failing because I pasted the pk instead of {v}",
        ],
    )
    S(
        "svix_webhook_secret",
        lambda: {
            "v": "whsec_" + base64.b64encode(bytes(rng.randrange(256) for _ in range(24))).decode()
        },
        [
            "Clerk user.created webhook signing secret: {v}",
            "CLERK_WEBHOOK_SIGNING_SECRET={v}",
            "Resend webhook (email.bounced) svix secret → {v}",
        ],
    )
    S(
        "auth0_client_secret",
        lambda: {"v": rs(B64URL, 64), "c": rs(B62, 32)},
        [
            "Auth0 regular web app ({p})\nAUTH0_CLIENT_ID={c}\nAUTH0_CLIENT_SECRET={v}",
            "M2M app client secret for the admin sync job: {v}",
            "auth0 secret (next-auth provider): {v}",
        ],
    )
    S(
        "auth0_mgmt_token",
        lambda: {
            "v": jwt(
                {
                    "iss": f"https://{proj()}.eu.auth0.com/",
                    "sub": rs(B62, 32) + "@clients",
                    "aud": "https://x.eu.auth0.com/api/v2/",
                    "iat": 1717000000,
                    "exp": 1817000000,
                    "scope": "read:users update:users delete:users",
                    "gty": "client-credentials",
                },
                alg="RS256",
                siglen=342,
            )
        },
        [
            "Auth0 Management API token I generated in the API explorer (long-lived, oops):\n{v}",
            "Authorization: Bearer {v}",
        ],
    )
    S(
        "upstash_redis_token",
        lambda: {"v": "A" + rs("XYZ", 1) + rs(B62, 4) + "AAIjcD" + rs(B62, 46)},
        [
            "UPSTASH_REDIS_REST_TOKEN={v}",
            "rate limiter for {p} uses Upstash REST, token {v}",
            "upstash rw token (the read-only one starts differently): {v}",
        ],
    )
    S(
        "upstash_redis_url",
        lambda: {
            "v": rs(B62, 32),
            "h": f"{rng.choice(['fond', 'keen', 'proper', 'apt'])}-{rng.choice(['lark', 'eel', 'mole', 'ibis'])}-{rng.randint(10000, 99999)}",
        },
        [
            "REDIS_URL=rediss://default:{v}@{h}.upstash.io:6379",
            "bullmq connection for {p}: host {h}.upstash.io port 6379 user default password {v} tls on",
        ],
    )
    S(
        "qstash_token",
        lambda: {"v": "ey" + rs(B64URL, 110) + "="},
        [
            "QSTASH_TOKEN={v}",
            "QStash publish token (scheduled digests for {p}): {v}",
        ],
    )
    S(
        "qstash_signing_key",
        lambda: {"v": "sig_" + rs(B62, 28)},
        [
            "QSTASH_CURRENT_SIGNING_KEY={v}",
            "qstash next signing key (rotate to this): {v}",
        ],
    )
    S(
        "neon_db_url",
        lambda: {
            "v": "npg_" + rs(B62, 12),
            "e": f"ep-{rng.choice(['cool', 'late', 'wild', 'green'])}-{rng.choice(['frost', 'sun', 'moon', 'cloud'])}-a{rs(LOWER_DIG, 7)}",
        },
        [
            "DATABASE_URL=postgresql://neondb_owner:{v}@{e}-pooler.us-east-2.aws.neon.tech/neondb?sslmode=require",
            "neon role password for {p} (branch main): {v}",
            "drizzle-kit push needs the unpooled one: postgres://app:{v}@{e}.eu-central-1.aws.neon.tech/app",
        ],
    )
    S(
        "neon_api_key",
        lambda: {"v": rs(LOWER_DIG, 64)},
        [
            "NEON_API_KEY={v}  # for the preview-branch-per-PR action",
            "Neon API key (account level) made for neonctl: {v}",
        ],
    )
    S(
        "turso_auth_token",
        lambda: {"v": jwt({"a": "rw", "iat": iat(), "id": uuid4()}, alg="EdDSA", siglen=86)},
        [
            "TURSO_AUTH_TOKEN={v}",
            "turso db tokens create {p}-prod -> {v}",
            "libsql client for {p}: authToken: '{v}'",
        ],
    )
    S(
        "planetscale_password",
        lambda: {"v": "pscale_pw_" + rs(B64URL, 43)},
        [
            "PlanetScale {p} main branch password (role admin): {v}",
            "DATABASE_URL=mysql://{u}:{v}@aws.connect.psdb.cloud/{p}?sslaccept=strict".replace(
                "{u}", "k2x9c4pqm1ab"
            ),
        ],
    )
    S(
        "planetscale_service_token",
        lambda: {"v": "pscale_tkn_" + rs(B64URL, 43), "i": rs(LOWER_DIG, 12)},
        [
            "service token for deploy requests in CI\nPLANETSCALE_SERVICE_TOKEN_ID={i}\nPLANETSCALE_SERVICE_TOKEN={v}",
            "pscale service token {v} (id {i}) - grants create_branch + deploy_request",
        ],
    )
    S(
        "railway_token",
        uuid4_gen,
        [
            "RAILWAY_TOKEN={v}  # project token, {p} production env",
            "Railway account token for `railway up` from the Makefile: {v}",
        ],
    )
    S(
        "render_api_key",
        lambda: {"v": "rnd_" + rs(B62, 32)},
        [
            "Render API key: {v} (used by the scale-down script at night)",
            "RENDER_API_KEY={v}",
        ],
    )
    S(
        "render_deploy_hook",
        lambda: {
            "v": f"https://api.render.com/deploy/srv-{rs(LOWER_DIG, 20)}?key={rs(B64URL, 11)}"
        },
        [
            "deploy hook for {p} api (anyone with it can trigger deploys): {v}",
            "curl -X POST {v}",
        ],
    )
    S(
        "fly_token",
        lambda: {"v": "FlyV1 fm2_" + rs(B64, 180) + ",fm2_" + rs(B64, 120)},
        [
            "fly tokens create deploy -a {p}-api output:\n{v}",
            'FLY_API_TOKEN="{v}"',
        ],
    )
    S(
        "expo_token",
        lambda: {"v": rs(B64URL, 40)},
        [
            "EXPO_TOKEN for EAS build in GH actions ({p} mobile): {v}",
            "robot user access token on expo.dev: {v}",
        ],
    )
    S(
        "asc_p8_key",
        lambda: {
            "v": pem("PRIVATE KEY", 3, 12),
            "k": rs(string.ascii_uppercase + string.digits, 10),
        },
        [
            "App Store Connect API key AuthKey_{k}.p8 (Admin role) contents:\n{v}",
            "eas submit uses this ASC key ({k}):\n{v}",
        ],
    )
    S(
        "play_sa_json_key",
        lambda: {
            "v": pem("PRIVATE KEY", 5).replace("\n", "\\n"),
            "e": f"play-publisher@pc-api-{rng.randint(10**18, 10**19)}.iam.gserviceaccount.com",
        },
        [
            'google play service account json (fastlane supply):\n{{"type": "service_account", "client_email": "{e}", "private_key": "{v}"}}',
            "play console uploader key, private_key field only: {v}",
        ],
    )
    S(
        "android_keystore_password",
        lambda: {"v": pw(16)},
        [
            "{p} upload keystore (upload.jks) storePassword={v} keyAlias=upload",
            "android signing: keystore pw and key pw are the same: {v}",
            "MYAPP_UPLOAD_STORE_PASSWORD={v}",
        ],
    )
    S(
        "porkbun_keys",
        lambda: {"v": "sk1_" + rs(HEX, 64), "a": "pk1_" + rs(HEX, 64)},
        [
            "porkbun api (ddns script)\napikey: {a}\nsecretapikey: {v}",
            "PORKBUN_SECRET_API_KEY={v}",
        ],
    )
    S(
        "namecheap_api_key",
        lambda: {"v": rs(HEX, 32)},
        [
            "Namecheap API key (whitelisted to the vps ip): {v}",
            "NAMECHEAP_API_USER=dev{p}\nNAMECHEAP_API_KEY={v}",
        ],
    )
    S(
        "godaddy_key_secret",
        lambda: {"v": rs(B62, 22), "k": rs(B62, 34)},
        [
            "GoDaddy prod api key {k} secret {v} (for the expiring domains checker)",
            "Authorization: sso-key {k}:{v}",
        ],
    )
    S(
        "stripe_secret_key",
        lambda: {"v": "sk_live_51" + rs(B62, 97)},
        [
            "STRIPE_SECRET_KEY={v}",
            "{p} live stripe secret: {v} - test one is sk_test_… in .env.local",
            'stripe.api_key = "{v}"  # TODO env var',
        ],
    )
    S(
        "stripe_restricted_key",
        lambda: {"v": "rk_live_51" + rs(B62, 97)},
        [
            "restricted key for the revenue dashboard (read-only charges/subscriptions): {v}",
            "STRIPE_RK={v}",
        ],
    )
    S(
        "stripe_webhook_secret",
        lambda: {"v": "whsec_" + rs(B62, 32)},
        [
            "stripe webhook signing secret for /api/stripe/webhook on {p}: {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
            "prod endpoint secret (not the CLI one): {v}",
        ],
    )
    S(
        "lemonsqueezy_api_key",
        lambda: {
            "v": jwt(
                {
                    "aud": "1",
                    "jti": rs(HEX, 80),
                    "iat": iat(),
                    "nbf": 1700000000,
                    "exp": 2000000000,
                    "sub": str(rng.randint(100000, 999999)),
                    "scopes": [],
                },
                alg="RS256",
                siglen=683,
            )
        },
        [
            "LEMONSQUEEZY_API_KEY={v}",
            "Lemon Squeezy API key for {p} license checks:\n{v}",
        ],
    )
    S(
        "lemonsqueezy_webhook_secret",
        lambda: {"v": rs(B62, 24)},
        [
            "LS webhook signing secret (I picked it myself when creating the webhook): {v}",
            "LEMONSQUEEZY_WEBHOOK_SECRET={v}",
        ],
    )
    S(
        "paddle_api_key",
        lambda: {
            "v": "pdl_live_apikey_01"
            + rs("0123456789abcdefghjkmnpqrstvwxyz", 24)
            + "_"
            + rs(B62, 22)
            + "_"
            + rs(B62, 3)
        },
        [
            "Paddle Billing server key for {p}: {v}",
            "PADDLE_API_KEY={v}",
        ],
    )
    S(
        "openai_project_key",
        lambda: {"v": "sk-proj-" + rs(B64URL, 74) + "T3BlbkFJ" + rs(B64URL, 74)},
        [
            "OPENAI_API_KEY={v}",
            "openai key for {p} summariser (project-scoped, $20 limit): {v}",
            "new OpenAI({{ apiKey: '{v}' }})",
        ],
    )
    S(
        "openai_svcacct_key",
        lambda: {"v": "sk-svcacct-" + rs(B64URL, 74) + "T3BlbkFJ" + rs(B64URL, 74)},
        [
            "service account key for the batch job (not tied to my user): {v}",
        ],
    )
    S(
        "anthropic_key",
        lambda: {"v": "sk-ant-api03-" + rs(B64URL, 93) + "AA"},
        [
            "ANTHROPIC_API_KEY={v}",
            "claude key for {p} evals: {v}",
        ],
    )
    S(
        "sentry_org_token",
        lambda: {
            "v": "sntrys_"
            + _b64url(
                json.dumps(
                    {
                        "iat": float(iat()),
                        "url": "https://sentry.io",
                        "region_url": "https://de.sentry.io",
                        "org": proj(),
                    }
                ).encode()
            )
            + "_"
            + rs(B64URL, 43)
        },
        [
            "SENTRY_AUTH_TOKEN={v}",
            "org auth token for sourcemap upload (@sentry/nextjs): {v}",
        ],
    )
    S(
        "sentry_user_token",
        lambda: {"v": "sntryu_" + rs(HEX, 64)},
        [
            "personal sentry token (project:write) for sentry-cli releases: {v}",
            "sentry-cli --auth-token {v} releases new {p}@1.4.2",
        ],
    )
    S(
        "github_fine_grained_pat",
        lambda: {
            "v": "github_pat_11"
            + rs(string.ascii_uppercase + string.digits, 20)
            + "_"
            + rs(B62, 59)
        },
        [
            "fine-grained PAT (contents:write on {p} only, 90 days) for the changelog bot: {v}",
            "GH_TOKEN={v} gh release create v2.0.0",
            "renovate self-hosted token: {v}",
            "git remote set-url origin https://x-access-token:{v}@github.com/me/{p}.git",
        ],
    )
    S(
        "github_classic_pat",
        lambda: {"v": "ghp_" + rs(B62, 36)},
        [
            "old classic token still used by the homebrew tap workflow: {v}",
            "//npm.pkg.github.com/:_authToken={v}",
        ],
    )
    S(
        "vps_root_password",
        lambda: {
            "v": pw(18),
            "ip": f"{rng.randint(5, 200)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
        },
        [
            "hetzner CX22 ({ip}) root password from the welcome mail: {v}",
            "vps: ssh root@{ip}  pw: {v}  (disable password auth!!)",
            "ovh box root / {v} - rescue mode uses a different one",
            "contabo VPS login\nuser: root\npassword: {v}\nip: {ip}",
        ],
    )
    S(
        "ssh_private_key",
        lambda: {"v": pem("OPENSSH PRIVATE KEY", 6, 20)},
        [
            "deploy key for the vps (github actions → ssh), private half:\n{v}",
            "SSH_PRIVATE_KEY secret in the {p} repo:\n{v}",
        ],
    )
    S(
        "google_oauth_client_secret",
        lambda: {
            "v": "GOCSPX-" + rs(B64URL, 28),
            "c": f"{rng.randint(10**11, 10**12)}-{rs(LOWER_DIG, 32)}.apps.googleusercontent.com",
        },
        [
            "Google sign-in for {p}\nGOOGLE_CLIENT_ID={c}\nGOOGLE_CLIENT_SECRET={v}",
            "oauth client secret (web client, prod redirect uri): {v}",
        ],
    )
    S(
        "nextauth_secret",
        lambda: {"v": base64.b64encode(bytes(rng.randrange(256) for _ in range(32))).decode()},
        [
            "AUTH_SECRET={v}",
            "NEXTAUTH_SECRET for {p} prod (openssl rand -base64 32): {v}",
            "session encryption secret, iron-session: {v}",
        ],
    )
    S(
        "session_cookie",
        lambda: {"v": rs(B64URL, 86)},
        [
            "to repro the admin bug I reused my logged-in session: Cookie: __Secure-next-auth.session-token={v}",
            "supabase auth cookie from prod browser (valid ~1h): sb-access-token={v}",
        ],
    )
    S(
        "vercel_deploy_hook",
        lambda: {
            "v": f"https://api.vercel.com/v1/integrations/deploy/prj_{rs(B62, 28)}/{rs(B62, 10)}"
        },
        [
            "CMS publish → rebuild via deploy hook {v}",
            "Vercel deploy hook (main branch) for {p}: {v}",
        ],
    )
    S(
        "netlify_build_hook",
        lambda: {"v": f"https://api.netlify.com/build_hooks/{rs(HEX, 24)}"},
        [
            "nightly rebuild cron posts to {v}",
            "netlify build hook 'sanity publish': {v}",
        ],
    )
    S(
        "discord_webhook_url",
        lambda: {
            "v": f"https://discord.com/api/webhooks/{rng.randint(10**17, 10**18)}/{rs(B64URL, 68)}"
        },
        [
            "signup alerts go to my private discord: {v}",
            "DISCORD_WEBHOOK_URL={v}",
        ],
    )
    S(
        "hetzner_api_token",
        lambda: {"v": rs(B62, 64)},
        [
            "hcloud context 'personal' token (read/write): {v}",
            "HCLOUD_TOKEN={v}  # terraform for the vps",
        ],
    )
    S(
        "digitalocean_pat",
        lambda: {"v": "dop_v1_" + rs(HEX, 64)},
        [
            "DigitalOcean token for the droplet snapshot cron: {v}",
            "doctl auth init -t {v}",
        ],
    )
    S(
        "apple_app_specific_password",
        lambda: {"v": "-".join(rs(string.ascii_lowercase, 4) for _ in range(4))},
        [
            "app-specific password for altool / notarytool (Apple ID me@icloud): {v}",
            "FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD={v}",
        ],
    )
    S(
        "gmail_app_password",
        lambda: {"v": " ".join(rs(string.ascii_lowercase, 4) for _ in range(4))},
        [
            "gmail SMTP app password for the contact form fallback: {v}",
        ],
    )
    S(
        "npm_token",
        lambda: {"v": "npm_" + rs(B62, 36)},
        [
            "npm automation token for publishing @me/{p}-sdk: {v}",
            "//registry.npmjs.org/:_authToken={v}",
        ],
    )
    S(
        "docker_hub_pat",
        lambda: {"v": "dckr_pat_" + rs(B64URL, 27)},
        [
            "docker login -u mehacks -p {v}",
            "Docker Hub PAT (read/write, {p} image pushes): {v}",
        ],
    )
    S(
        "tailscale_auth_key",
        lambda: {"v": "tskey-auth-k" + rs(B62, 10) + "CNTRL-" + rs(B62, 33)},
        [
            "reusable tailscale auth key for new vps boxes (ephemeral off): {v}",
            "tailscale up --authkey={v} --ssh",
        ],
    )
    S(
        "postgres_vps_password",
        lambda: {"v": pw(22).replace("@", "a")},
        [
            "self-hosted postgres on the vps, role app_rw, password {v}",
            'pgbouncer userlist: "umami" "{v}"',
        ],
    )
    S(
        "basic_auth_url",
        lambda: {"v": pw(14).replace("@", "b").replace(":", "c")},
        [
            "staging preview is behind basic auth: https://preview:{v}@staging.{p}.app",
            "uptime kuma admin on the vps: admin / {v}",
        ],
    )

    # ------------------------------------------------------------------ benign
    def sb_anon():
        r = ref()
        t = iat()
        return {
            "r": r,
            "v": jwt({"iss": "supabase", "ref": r, "role": "anon", "iat": t, "exp": t + 315360000}),
        }

    B(
        "supabase_anon_key",
        sb_anon,
        [
            "NEXT_PUBLIC_SUPABASE_ANON_KEY={v}\n(anon is fine in the browser, RLS protects the tables)",
            "{p} public anon key, safe to ship in the client bundle: {v}",
            "the role claim in this one is anon, not service_role, so it's the public one: {v}",
        ],
    )
    B(
        "supabase_publishable_key",
        lambda: {"v": "sb_publishable_" + rs(B64URL, 31)},
        [
            "NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY={v}",
            "Supabase new publishable key for {p} (client side, replaces anon): {v}",
            "mobile app uses the publishable key {v}; secret key stays on the server",
        ],
    )
    B(
        "supabase_project_ref",
        lambda: {"v": ref()},
        [
            "{p} supabase project ref: {v} (region eu-central-1)",
            "supabase link --project-ref {v}",
            "SUPABASE_URL=https://{v}.supabase.co",
        ],
    )
    B(
        "firebase_web_config",
        lambda: {"v": "AIzaSy" + rs(B64URL, 33), "n": str(rng.randint(10**11, 10**12))},
        [
            'firebase web config (public by design; restricted by authorized domains + App Check):\napiKey: "{v}",\nmessagingSenderId: "{n}"',
            "{p} web firebaseConfig.apiKey = {v} - it's an identifier, not a secret",
            "NEXT_PUBLIC_FIREBASE_API_KEY={v}\nNEXT_PUBLIC_FIREBASE_APP_ID=1:{n}:web:{x}".replace(
                "{x}", "a1b2c3d4e5f60718"
            ),
        ],
    )
    B(
        "cloudflare_account_zone_id",
        lambda: {"v": rs(HEX, 32)},
        [
            "CLOUDFLARE_ACCOUNT_ID={v}",
            "zone id for {p}.app: {v}",
            'wrangler.toml: account_id = "{v}"',
        ],
    )
    B(
        "cloudflare_token_id",
        lambda: {"v": rs(HEX, 32)},
        [
            "verified the dns token works: /user/tokens/verify returned id {v}, status active (value is in 1Password)",
            "cf token id {v} = 'certbot-dns' - roll it in Jan",
        ],
    )
    B(
        "r2_access_key_id_only",
        lambda: {"v": rs(HEX, 32)},
        [
            "R2 key pair for {p}: access key id {v}; secret access key only in Doppler (R2_SECRET_ACCESS_KEY)",
            "which R2 token is the backup one? the one whose access key id is {v}",
        ],
    )
    B(
        "dkim_public_key",
        lambda: {"v": "p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" + rs(B64, 172) + "IDAQAB"},
        [
            'Resend DKIM record for mail.{p}.app\nresend._domainkey TXT "{v}"',
            "postmark DKIM TXT (2024 selector) → v=DKIM1; k=rsa; {v}",
        ],
    )
    B(
        "domain_verification_txt",
        lambda: {"v": rs(B64URL, 43)},
        [
            "google search console TXT for {p}.app: google-site-verification={v}",
            "_vercel TXT value to verify domain ownership: vc-domain-verify={p}.app,{v}".replace(
                "{v}", "{v}"
            ),
            "stripe domain verification for apple pay: stripe-verification={v}",
        ],
    )
    B(
        "acme_challenge_txt",
        lambda: {"v": rs(B64URL, 43)},
        [
            '_acme-challenge.{p}.app TXT "{v}" (certbot manual, can delete after issuance)',
            "dns-01 challenge value for the wildcard cert: {v}",
        ],
    )
    B(
        "postmark_ids",
        lambda: {"v": str(rng.randint(10**6, 10**8)), "m": uuid4()},
        [
            "Postmark server id {v}, message stream 'outbound'; bounced MessageID {m}",
            "postmark template alias welcome-v2 id {v}; last test message id {m}",
        ],
    )
    B(
        "clerk_publishable_key",
        lambda: {
            "v": "pk_live_" + base64.b64encode(f"clerk.{proj()}.app$".encode()).decode().rstrip("=")
        },
        [
            "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY={v}",
            "clerk publishable key (frontend, fine to commit): {v}",
            '<ClerkProvider publishableKey="{v}">',
        ],
    )
    B(
        "clerk_user_ids",
        lambda: {"v": "user_2" + rs(B62, 26), "o": "org_2" + rs(B62, 26)},
        [
            "my admin clerk user id in prod is {v}, org {o}",
            "backfill skipped {v} because publicMetadata was null",
        ],
    )
    B(
        "auth0_spa_client_id",
        lambda: {"v": rs(B62, 32)},
        [
            "Auth0 SPA (public client, PKCE, no secret): domain {p}.us.auth0.com clientId {v}",
            "VITE_AUTH0_CLIENT_ID={v}",
        ],
    )
    B(
        "upstash_endpoint",
        lambda: {
            "v": f"https://{rng.choice(['eager', 'rapid', 'glad'])}-{rng.choice(['koi', 'wren', 'bat'])}-{rng.randint(10000, 99999)}.upstash.io"
        },
        [
            "UPSTASH_REDIS_REST_URL={v}",
            "upstash db for {p} rate limits: {v} (token in Vercel env, not here)",
        ],
    )
    B(
        "neon_ids",
        lambda: {
            "v": f"ep-{rng.choice(['odd', 'shy', 'red'])}-{rng.choice(['leaf', 'rain', 'tree'])}-a{rs(LOWER_DIG, 7)}",
            "b": "br-" + rs(LOWER_DIG, 14),
            "pid": f"{rng.choice(['late', 'calm'])}-{rng.choice(['dew', 'sky'])}-{rng.randint(10000000, 99999999)}",
        },
        [
            "neon project {pid}, endpoint {v}, main branch {b}",
            "preview branch for PR #41 is {b}; compute endpoint {v}",
        ],
    )
    B(
        "turso_db_url",
        lambda: {"v": f"libsql://{proj()}-prod-{rs(LOWER_DIG, 8)}.turso.io"},
        [
            "TURSO_DATABASE_URL={v}",
            "turso group eu, db url {v}; auth token via `turso db tokens create` when needed",
        ],
    )
    B(
        "planetscale_refs",
        lambda: {"v": rs(LOWER_DIG, 12), "d": rng.randint(10, 99)},
        [
            "pscale deploy request #{d} merged; password id {v} (name: vercel-prod)",
            "planetscale: org me-{p}, db {p}, branch add-index, deploy request {d}, token id {v}",
        ],
    )
    B(
        "railway_ids",
        uuid4_gen,
        [
            "railway project id {v} ({p}); service 'worker' in production env",
            "RAILWAY_SERVICE_ID={v} (injected by railway, not a secret)",
        ],
    )
    B(
        "render_ids",
        lambda: {"v": "srv-" + rs(LOWER_DIG, 20), "d": "dep-" + rs(LOWER_DIG, 20)},
        [
            "render service {v}, failed deploy {d} (OOM on build)",
            "render blueprint: {p}-api is {v}",
        ],
    )
    B(
        "fly_ids",
        lambda: {"v": rs(HEX, 14), "a": f"{proj()}-api"},
        [
            "fly machine {v} in app {a} keeps restarting, check health check path",
            "fly volume vol_{v} (3GB, ams) attached to the sqlite machine",
        ],
    )
    B(
        "expo_ids",
        uuid4_gen,
        [
            'app.json extra.eas.projectId: "{v}"',
            "EAS build {v} failed on iOS: provisioning profile missing push entitlement",
        ],
    )
    B(
        "asc_key_and_issuer_ids",
        lambda: {"v": uuid4(), "k": rs(string.ascii_uppercase + string.digits, 10)},
        [
            "ASC API key id {k}, issuer id {v}; the .p8 itself is in 1Password item 'ASC admin key'",
            "eas.json submit.production.ios: ascApiKeyId {k}, ascApiKeyIssuerId {v}, ascApiKeyPath from EAS secret file",
        ],
    )
    B(
        "play_sa_email_and_key_id",
        lambda: {
            "v": rs(HEX, 40),
            "e": f"fastlane@{proj()}-play-{rs(LOWER_DIG, 6)}.iam.gserviceaccount.com",
        },
        [
            "play upload service account {e}, private_key_id {v} (json file lives in EAS credentials, not in repo)",
            "gcloud iam service-accounts keys list shows key {v} for {e}; disable the older one",
        ],
    )
    B(
        "stripe_publishable_key",
        lambda: {"v": "pk_live_51" + rs(B62, 97)},
        [
            "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}",
            "loadStripe('{v}') - publishable, ok in the client",
            "{p} stripe pk (live): {v}",
        ],
    )
    B(
        "stripe_object_ids",
        lambda: {
            "v": "cus_" + rs(B62, 14),
            "pr": "price_1" + rs(B62, 23),
            "pi": "pi_3" + rs(B62, 23),
        },
        [
            "refunded {pi} for customer {v} (double charge after the retry bug)",
            "{p} Pro monthly = {pr}; my test customer {v}",
        ],
    )
    B(
        "stripe_webhook_endpoint_id",
        lambda: {"v": "we_1" + rs(B62, 23), "e": "evt_1" + rs(B62, 23)},
        [
            "stripe webhook endpoint {v} → https://{p}.app/api/stripe/webhook; events: checkout.session.completed",
            "replayed {e} to endpoint {v} after the deploy fixed the signature check",
        ],
    )
    B(
        "paddle_client_token",
        lambda: {"v": "live_" + rs(HEX, 27)},
        [
            "Paddle.js client-side token (public, for checkout overlay): {v}",
            "NEXT_PUBLIC_PADDLE_CLIENT_TOKEN={v}",
        ],
    )
    B(
        "paddle_ids",
        lambda: {
            "v": "pri_01" + rs("0123456789abcdefghjkmnpqrstvwxyz", 24),
            "s": "sub_01" + rs("0123456789abcdefghjkmnpqrstvwxyz", 24),
        },
        [
            "paddle yearly price {v}; grandfathered subscription {s}",
            "notification setting for {p} points at /api/paddle; test price {v}",
        ],
    )
    B(
        "lemonsqueezy_ids",
        lambda: {"v": uuid4(), "s": rng.randint(10000, 99999)},
        [
            "LS store id {s}, checkout link https://{p}.lemonsqueezy.com/checkout/buy/{v}",
            "lemonsqueezy variant {s} = lifetime deal; buy link uuid {v}",
        ],
    )
    B(
        "openai_masked_key",
        lambda: {"v": "sk-proj-" + rs(B64URL, 4) + "..." + rs(B64URL, 4)},
        [
            "OpenAI dashboard lists the {p} key as {v} (created Mar 3, last used yesterday)",
            "which key is burning money? usage page says {v}",
        ],
    )
    B(
        "openai_org_project_ids",
        lambda: {"v": "org-" + rs(B62, 24), "pj": "proj_" + rs(B62, 24)},
        [
            "OPENAI_ORG_ID={v}\nOPENAI_PROJECT_ID={pj}",
            "set the monthly budget on project {pj} (org {v}) to $25",
        ],
    )
    B(
        "sentry_dsn",
        lambda: {
            "v": f"https://{rs(HEX, 32)}@o{rng.randint(100000, 9999999)}.ingest.de.sentry.io/{rng.randint(10**15, 10**16)}"
        },
        [
            "NEXT_PUBLIC_SENTRY_DSN={v}",
            "Sentry.init({{ dsn: '{v}', tracesSampleRate: 0.1 }})",
            "{p} mobile DSN (public, ships in the app): {v}",
        ],
    )
    B(
        "commit_sha",
        lambda: {"v": rs(HEX, 40)},
        [
            "regression introduced in {v} (the drizzle upgrade); revert if the fix doesn't land",
            "prod is pinned to {v} until the migration is verified",
            "SENTRY_RELEASE={v}",
        ],
    )
    B(
        "vercel_deployment_ids",
        lambda: {"v": "dpl_" + rs(B62, 28), "pj": "prj_" + rs(B62, 28), "t": "team_" + rs(B62, 24)},
        [
            "rolled back {p} to {v} (last good deploy)",
            '.vercel/project.json: {{"projectId":"{pj}","orgId":"{t}"}} - ok to commit',
            "build logs for {v} show the edge function exceeding 1MB",
        ],
    )
    B(
        "netlify_ids",
        lambda: {"v": uuid4(), "d": rs(HEX, 24)},
        [
            "NETLIFY_SITE_ID={v}",
            "netlify deploy {d} is the one with the broken redirects, site {v}",
        ],
    )
    B(
        "env_names_only",
        lambda: {"v": ""},
        [
            "{p} needs these in Vercel before launch: STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, RESEND_API_KEY, SUPABASE_SERVICE_ROLE_KEY",
            "CI secrets to recreate on the new repo: FLY_API_TOKEN, SENTRY_AUTH_TOKEN, EXPO_TOKEN (values in 1Password)",
            "renamed NEXTAUTH_SECRET to AUTH_SECRET for auth.js v5; same value, no change in Vercel needed",
        ],
    )
    B(
        "env_example_placeholders",
        lambda: {"v": "sk_live_" + "x" * 24},
        [
            ".env.example for {p}:\nSTRIPE_SECRET_KEY={v}\nOPENAI_API_KEY=sk-proj-your-key-here\nDATABASE_URL=postgresql://user:password@localhost:5432/app",
            "README snippet: set STRIPE_SECRET_KEY to something like {v} (use your own)",
        ],
    )
    B(
        "docs_example_key",
        lambda: {"v": "re_123456789_EXAMPLEexampleEXAMPLEexampl"},
        [
            "Resend docs example, NOT a real key: {v}",
            "template for the blog post about transactional email uses the fake key {v}",
        ],
    )
    B(
        "revoked_truncated_key",
        lambda: {"v": "ghp_" + rs(B62, 4) + "…"},
        [
            "leaked a token in a gist in May ({v}); GitHub auto-revoked it, replaced with a fine-grained one",
            "deleted the old classic PAT starting {v} - nothing uses it anymore",
        ],
    )
    B(
        "vault_reference",
        lambda: {"v": f"op://Personal/{proj().title()} Stripe/secret key"},
        [
            'STRIPE_SECRET_KEY is read at runtime with `op read "{v}"`',
            "don't paste keys here; reference: {v}",
            "doppler run --project {p} --config prd -- pnpm start (keys live in doppler, not .env)",
        ],
    )
    B(
        "ssh_public_key",
        lambda: {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(B64, 43)},
        [
            "authorized_keys on the vps:\n{v} me@laptop",
            "github deploy key (public half, read-only) for {p}: {v}",
        ],
    )
    B(
        "ssh_host_fingerprint",
        lambda: {"v": "SHA256:" + rs(B64, 43)},
        [
            "vps host key fingerprint (verify on first connect): ED25519 {v}",
            "known_hosts changed after the rebuild; new fingerprint {v}",
        ],
    )
    B(
        "gpg_fingerprint",
        lambda: {"v": " ".join(rs("0123456789ABCDEF", 4) for _ in range(10))},
        [
            "commit signing key fingerprint: {v}",
            "git config user.signingkey {v}".replace(" ", " "),
        ],
    )
    B(
        "decision_note",
        lambda: {"v": ""},
        [
            "Decision ({p}): move from PlanetScale to Neon after the hobby tier went away. Keep Drizzle, switch driver to @neondatabase/serverless.",
            "Decided: Resend for transactional, Postmark only for the old app until its domain renews. Don't add a third provider.",
            "Going with Clerk over Auth0 for {p}: org support is simpler and the free tier covers 10k MAU.",
            "Chose Fly.io for the websocket server (needs long-lived connections); Vercel stays for the Next frontend.",
        ],
    )
    B(
        "convention_note",
        lambda: {"v": ""},
        [
            "Convention: every project gets a .env.example with names only; real values go in Doppler, prod in the platform's env UI.",
            "Rule for me: service_role / secret keys never get a NEXT_PUBLIC_ prefix. If it needs NEXT_PUBLIC_, it must be the anon/publishable one.",
            "Branch naming across side projects: feat/<thing>, fix/<thing>; squash-merge only; tags vX.Y.Z trigger EAS builds.",
        ],
    )
    B(
        "todo_no_secret",
        lambda: {"v": ""},
        [
            "TODO: rotate the Neon password for {p} after the contractor's access ends (update Vercel + Railway).",
            "todo - Sentry auth token expires 2027-01-15, make a new org token and update SENTRY_AUTH_TOKEN in GH.",
            "TODO {p}: GitHub fine-grained PAT for renovate expires in 12 days; regenerate with the same repo scope.",
            "todo: switch the vps from root password login to keys only, then set PermitRootLogin prohibit-password",
        ],
    )
    B(
        "cf_ray_request_id",
        lambda: {"v": rs(HEX, 16) + "-AMS"},
        [
            "502 from the worker, cf-ray {v}; logs show the origin timed out",
            "support ticket for {p}: Ray ID {v}, error 1101",
        ],
    )
    B(
        "sri_integrity",
        lambda: {"v": "sha512-" + rs(B64, 86) + "=="},
        [
            "pnpm-lock says integrity {v} for the patched zod; mismatch after reinstall, cleared store",
            '<script src="https://cdn.example.com/widget.js" integrity="{v}">',
        ],
    )
    B(
        "docker_digest",
        lambda: {"v": "sha256:" + rs(HEX, 64)},
        [
            "pinned postgres:16-alpine@{v} on the vps compose file",
            "fly deploy --image registry.fly.io/{p}-api@{v}",
        ],
    )
    B(
        "jwks_public",
        lambda: {"v": rs(B64URL, 342)},
        [
            'Clerk JWKS (public) for verifying tokens offline: {{"kty":"RSA","kid":"ins_2{k}","e":"AQAB","n":"{v}"}}'.replace(
                "{k}", "Xk3pQ9"
            ),
            "auth0 signing cert public modulus n={v} (from /.well-known/jwks.json)",
        ],
    )
    B(
        "other_sense_key",
        lambda: {"v": rs(LOWER_DIG, 21)},
        [
            "React warning fixed: list items in {p} needed key={{item.id}}; ids are nanoid like {v}",
            "R2 object key for avatars: avatars/{v}.webp (no longer user id, to avoid enumeration)",
            "idempotency key for the stripe retry = order_{v}",
        ],
    )
    B(
        "llm_tokens_sense",
        lambda: {"v": ""},
        [
            "{p} summariser: gpt-4o-mini, cap max_tokens at 600; prompts average ~2.3k input tokens, cost ≈ $0.0004 per call",
            "tokenizer note: the design tokens (colors, spacing) live in tokens.json, unrelated to auth tokens",
        ],
    )
    B(
        "turnstile_site_key",
        lambda: {"v": "0x4AAAAAAA" + rs(B64URL, 14)},
        [
            "Turnstile site key (public, in the widget): {v}",
            "NEXT_PUBLIC_TURNSTILE_SITE_KEY={v}",
        ],
    )
    B(
        "recaptcha_site_key",
        lambda: {"v": "6L" + rs(B64URL, 38)},
        [
            "old contact form used reCAPTCHA v3 site key {v} (client side)",
            'data-sitekey="{v}"',
        ],
    )
    B(
        "analytics_public_keys",
        lambda: {
            "v": "phc_" + rs(B62, 43),
            "g": "G-" + rs(string.ascii_uppercase + string.digits, 10),
        },
        [
            "NEXT_PUBLIC_POSTHOG_KEY={v}\nNEXT_PUBLIC_POSTHOG_HOST=https://eu.i.posthog.com",
            "analytics for {p}: posthog project api key {v} (write-only, public), GA4 {g}",
        ],
    )
    B(
        "apple_team_bundle",
        lambda: {"v": rs(string.ascii_uppercase + string.digits, 10)},
        [
            "Apple Team ID {v}, bundle id com.me.{p}; associated domains need applinks:{p}.app",
            'apple-app-site-association appID: "{v}.com.me.{p}"',
        ],
    )
    B(
        "cloudflare_resource_ids",
        lambda: {"v": rs(HEX, 32), "d": uuid4()},
        [
            'wrangler.toml\n[[kv_namespaces]]\nbinding = "CACHE"\nid = "{v}"\n[[d1_databases]]\ndatabase_id = "{d}"',
            "KV namespace SESSIONS id {v} (preview id differs)",
        ],
    )
    B(
        "release_checksum",
        lambda: {"v": rs(HEX, 64)},
        [
            "verified the caddy binary: sha256sum = {v}",
            "{p}-cli v0.9.1 darwin-arm64 checksum {v}",
        ],
    )
    B(
        "masked_password_field",
        lambda: {"v": "••••••••••••"},
        [
            "vps panel shows root password as {v} - I never saved it, used the reset in the console instead",
            "Railway variables screen: DATABASE_URL = {v} (click the eye to reveal)",
        ],
    )
    B(
        "sentry_slugs",
        lambda: {"v": str(rng.randint(10**15, 10**16))},
        [
            "sentry org me-solo, project {p}-web (id {v}); alert rule: >20 events/min to email",
            "issue {p}-WEB-3K links to project id {v}",
        ],
    )
    B(
        "dnssec_ds_record",
        lambda: {"v": rs("0123456789ABCDEF", 64)},
        [
            "DS record at the registrar for {p}.app: 2371 13 2 {v}",
            "enabled DNSSEC on cloudflare, pasted digest {v} into porkbun",
        ],
    )
    B(
        "cert_fingerprint",
        lambda: {"v": ":".join(rs("0123456789ABCDEF", 2) for _ in range(32))},
        [
            "origin cert SHA-256 fingerprint {v} (expires 2039)",
            'android assetlinks.json sha256_cert_fingerprints: ["{v}"]',
        ],
    )
    B(
        "pat_metadata_no_value",
        lambda: {"v": ""},
        [
            "GitHub PAT 'changelog-bot' - fine-grained, repo {p}, contents: read and write, expires 2027-02-01. Value stored as CHANGELOG_TOKEN secret only.",
            "App Store Connect key named 'EAS submit' (App Manager role) created 2026-03-10; downloaded once, saved to 1Password.",
        ],
    )
    B(
        "fly_secrets_list",
        lambda: {"v": rs(HEX, 16)},
        [
            "`fly secrets list -a {p}-api`\nNAME\t\tDIGEST\nDATABASE_URL\t{v}\nSESSION_SECRET\t{w}".replace(
                "{w}", "9c1e4f0a2b7d3e58"
            ),
            "secret digest for STRIPE_SECRET_KEY on fly changed to {v} after the rotate, so the deploy picked it up",
        ],
    )
    B(
        "bcrypt_hash_in_fixture",
        lambda: {"v": "$2b$12$" + rs(B62 + "./", 53)},
        [
            "seed fixture user test@example.com has password_hash '{v}' (bcrypt cost 12, local seed data)",
            "users table dump row: id=1 email=demo@{p}.app hash={v}",
        ],
    )
    B(
        "stripe_example_docs",
        lambda: {"v": "sk_test_" + "EXAMPLE" + "0" * 17},
        [
            "placeholder I used in the tutorial screenshot: {v}",
            "fixture in tests/webhook.spec.ts uses {v} (fake, never called)",
        ],
    )
    B(
        "password_policy_talk",
        lambda: {"v": ""},
        [
            "Password reset flow for {p}: token valid 30 min, single use, hashed in DB; email via Resend template 'reset'.",
            "Supabase auth settings: min password length 10, leaked password protection on, secure email change on.",
        ],
    )
    B(
        "github_webhook_delivery_id",
        uuid4_gen,
        [
            "GitHub webhook delivery {v} failed with 401 - the signature check used the wrong secret name",
            "redelivered hook {v} from the repo settings page",
        ],
    )
    B(
        "railway_variable_reference",
        lambda: {"v": "${{Postgres.DATABASE_URL}}"},
        [
            "railway service var DATABASE_URL = {v} (reference, resolves at deploy)",
            "worker uses REDIS_URL=${{{{Redis.REDIS_URL}}}} style refs; api copies {v}",
        ],
    )
    B(
        "expo_push_receipt_ids",
        uuid4_gen,
        [
            "expo push receipt {v}: DeviceNotRegistered - prune the token from the devices table",
            "EAS update group {v} published to channel production",
        ],
    )
    B(
        "registrar_public_info",
        lambda: {"v": "ns1.porkbun.com"},
        [
            "{p}.app renews 2027-04-02 at porkbun; nameservers moved off {v} to cloudflare",
            "registrar auth for transfers stays in the porkbun dashboard; current NS {v}",
        ],
    )

    B(
        "actions_secret_reference",
        lambda: {"v": "${{ secrets.FLY_API_TOKEN }}"},
        [
            "deploy.yml: env FLY_API_TOKEN: {v} - no token in the file itself",
            "workflow for {p} passes {v} to flyctl; repo secret set via `gh secret set`",
            "reminder: forks don't get {v}, so preview deploys on external PRs will fail",
        ],
    )
    B(
        "aws_docs_example_key",
        lambda: {"v": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
        [
            "the R2 guide I followed shows AWS's documentation pair AKIAIOSFODNN7EXAMPLE / {v}; swap in the real R2 creds from Doppler",
            "boto3 snippet in notes uses the AWS docs example secret {v} - placeholder only",
        ],
    )
    B(
        "webhook_url_placeholder",
        lambda: {"v": "https://discord.com/api/webhooks/<id>/<token>"},
        [
            "ALERT_WEBHOOK_URL format: {v} (real one in Vercel env)",
            ".env.example: DISCORD_WEBHOOK_URL={v}",
        ],
    )
    B(
        "hashed_api_key_storage",
        lambda: {"v": rs(HEX, 64)},
        [
            "{p} customer API keys are stored as sha256 only; key row 14 hash {v}, prefix shown to the user is '{p}_live_3kf…'",
            "lookup by hash worked: api_keys.key_hash = {v} → user 812",
        ],
    )
    B(
        "lesson_note",
        lambda: {"v": ""},
        [
            "Lesson from {p}: Vercel env changes need a redeploy to apply; 'Redeploy' without build cache fixed the stale STRIPE_WEBHOOK_SECRET issue.",
            "Supabase RLS: policies on profiles use auth.uid(); the service role bypasses them, so admin routes check the role themselves.",
            "Expo: EAS secrets were renamed to 'environment variables' with visibility plain/sensitive/secret; move the SENTRY one to secret visibility.",
            "Decision: one Stripe account per product from now on, webhooks per environment, no shared customers.",
            "Cloudflare R2 public bucket for {p} images served via custom domain cdn.{p}.app; uploads go through presigned URLs that expire in 10 min.",
            "Convention: rotate any credential that was ever pasted into a chat, a screenshot or a commit, even if the repo is private.",
        ],
    )
    B(
        "stripe_masked_key",
        lambda: {"v": "sk_live_" + "*" * 20 + rs(B62, 4)},
        [
            "Stripe dashboard reveals the live key only once; the list now shows {v}",
            "the webhook handler log printed the key redacted as {v}, good",
        ],
    )
    B(
        "supabase_anon_key",
        sb_anon,
        [
            "expo app.config.ts extra.supabaseAnonKey = '{v}' (public; row level security on every table)",
            "decoded it on jwt.io: role=anon, ref {r}. so not the dangerous one: {v}",
        ],
    )
    B(
        "sentry_dsn",
        lambda: {
            "v": f"https://{rs(HEX, 32)}@o{rng.randint(100000, 9999999)}.ingest.us.sentry.io/{rng.randint(1000000, 9999999)}"
        },
        [
            "app.json sentry plugin: dsn {v} (the DSN is public; the auth token for sourcemaps is separate)",
            "browser tunnel /monitoring forwards to {v}",
        ],
    )

    texts = [r["text"] for r in rows]
    assert len(texts) == len(set(texts)), "duplicate texts"
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

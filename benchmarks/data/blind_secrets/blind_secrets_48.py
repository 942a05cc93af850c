"""Blind secret-detection corpus 48.

Brief: a six-person startup's full-stack team and their coding agents over one
year (Next.js on Vercel, Supabase or Postgres, Stripe, Resend or Postmark, Clerk
or Auth0, OpenAI and other model APIs, PostHog, Sentry, Cloudflare, GitHub
Actions, a mobile app in Expo). The way an ordinary team's memory really reads:
decisions, gotchas, setup steps, pasted env and config, debugging notes,
customer-support workarounds, and a lot of talk about keys and ids with none in
it.

Written blind on 2026-12-07: the author did not read the detector, its tests or
any earlier corpus.

Run:  python benchmarks/data/blind_secrets/blind_secrets_48.py out.jsonl
      (writes JSONL rows {label, kind, text, value}; stdout without an argument)

Every value is generated from random.Random(SEED); none is a real credential.

Kinds, secret (71):
    stripe_live_secret_key, stripe_test_secret_key, stripe_restricted_key,
    stripe_webhook_secret, clerk_webhook_secret, supabase_service_role_jwt,
    supabase_secret_key, supabase_pooler_url_password,
    neon_postgres_url_password, postgres_plain_password, resend_api_key,
    postmark_server_token, sendgrid_api_key, mailgun_api_key, clerk_secret_key,
    auth0_client_secret, auth0_management_token, nextauth_secret,
    jwt_signing_secret, cron_secret, encryption_key, openai_project_key,
    openai_legacy_key, openai_admin_key, anthropic_api_key, groq_api_key,
    openrouter_api_key, replicate_api_token, huggingface_token, mistral_api_key,
    posthog_personal_api_key, sentry_auth_token, sentry_user_token,
    cloudflare_api_token, cloudflare_global_api_key, cloudflare_r2_secret,
    cloudflare_tunnel_token, turnstile_secret_key, github_classic_pat,
    github_fine_grained_pat, github_oauth_token, vercel_token,
    expo_access_token, npm_token, supabase_access_token, aws_secret_access_key,
    apple_p8_private_key, gcp_service_account_key, rsa_private_key,
    openssh_private_key, clerk_session_cookie, supabase_refresh_token,
    slack_webhook_url, slack_bot_token, discord_webhook_url, twilio_auth_token,
    upstash_redis_url, totp_seed, recovery_codes, magic_link_token,
    shared_login_password, basic_auth_url, vapid_private_key, age_secret_key,
    telegram_bot_token, doppler_token, ngrok_authtoken, linear_api_key,
    notion_integration_secret, office_wifi_password, expo_app_specific_password.

Kinds, benign (76):
    stripe_publishable_key, stripe_object_ids, stripe_price_id,
    stripe_payment_intent_id, stripe_event_id, stripe_account_id,
    stripe_webhook_signature_header, stripe_test_card, supabase_anon_key,
    supabase_publishable_key, supabase_project_ref, clerk_publishable_key,
    clerk_user_id, clerk_session_id, auth0_client_id, google_oauth_client_id,
    github_app_client_id, posthog_project_key, sentry_dsn, sentry_event_id,
    openai_object_ids, openai_org_and_project_ids, anthropic_message_id,
    vercel_deployment_id, vercel_project_team_ids, cloudflare_zone_account_id,
    cloudflare_ray_id, turnstile_site_key, git_commit_sha, docker_image_digest,
    npm_integrity_hash, sri_hash, ssh_public_key, ssh_host_fingerprint,
    age_public_key, vapid_public_key, dkim_public_record,
    domain_verification_token, vault_reference, github_secrets_reference,
    env_template_placeholder, redacted_value, redacted_bracket, env_names_only,
    rotation_talk, revoked_key_stated, idempotency_key, email_message_id,
    expo_project_ids, apple_team_and_key_ids, request_trace_ids,
    posthog_distinct_id, jwks_public_key, public_pem_key, password_hash,
    file_checksum, nextjs_build_ids, design_and_llm_tokens, llm_token_usage,
    other_sense_key, other_sense_secret, password_policy_talk,
    example_jwt_decoded, cloudflare_r2_access_key_id, aws_access_key_id_alone,
    svix_signature_header, csp_nonce, public_storage_url,
    db_url_without_password, github_run_ids, feature_flag_keys, aws_arn,
    otp_code_expired, uuid_record_ids, stripe_test_clock_and_ids,
    random_slug_ids.
"""

# ruff: noqa: E501
from __future__ import annotations

import base64
import json
import random
import string
import sys

SEED = 4848

AN = string.ascii_letters + string.digits
LOW = string.ascii_lowercase
LOWN = string.ascii_lowercase + string.digits
UPN = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64U = string.ascii_letters + string.digits + "-_"
B32 = string.ascii_uppercase + "234567"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha: str, n: int) -> str:
        return "".join(r.choice(alpha) for _ in range(n))

    def uuid() -> str:
        h = s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def b64u(obj: dict) -> str:
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def jwt(payload: dict) -> str:
        head = b64u({"alg": "HS256", "typ": "JWT"})
        return f"{head}.{b64u(payload)}.{s(B64U, 43)}"

    def supa_jwt(role: str) -> str:
        ref = s(LOW, 20)
        iat = r.randint(1690000000, 1720000000)
        return jwt(
            {"iss": "supabase", "ref": ref, "role": role, "iat": iat, "exp": iat + 315360000}
        )

    def pem(kind: str, lines: int) -> str:
        body = "\n".join(s(B64, 64) for _ in range(lines)) + "\n" + s(B64, 28) + "=="
        return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"

    def openssh() -> str:
        body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        body += "\n".join(s(B64, 70) for _ in range(3)) + "\n" + s(B64, 24) + "="
        return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"

    def clerk_pk() -> str:
        host = f"clerk.{r.choice(['tallyroom', 'pondwise', 'getlumen', 'usefable'])}.app$"
        return "pk_live_" + base64.b64encode(host.encode()).decode().rstrip("=")

    # (kind, value generator, templates with {v})
    secret_specs = [
        (
            "stripe_live_secret_key",
            lambda: "sk_live_51" + s(AN, 97),
            [
                "STRIPE_SECRET_KEY={v}\n# prod, set in Vercel env for Production only",
                "Priya rotated the Stripe key after the contractor left. New one: {v} (old one rolled with 12h grace)",
                "billing worker 500s were a missing env var. fixed by `vercel env add STRIPE_SECRET_KEY production` and pasting {v}",
            ],
        ),
        (
            "stripe_test_secret_key",
            lambda: "sk_test_51" + s(AN, 97),
            [
                "for local checkout testing use {v} , it's our sandbox account, don't commit it",
                ".env.local (Dev's machine)\nSTRIPE_SECRET_KEY={v}\nSTRIPE_PRICE_PRO=price_1Px{p}".replace(
                    "{p}", s(AN, 22)
                ),
                "agent note: stripe CLI kept asking to log in; passed --api-key {v} instead and fixtures loaded",
            ],
        ),
        (
            "stripe_restricted_key",
            lambda: "rk_live_51" + s(AN, 97),
            [
                "the analytics job only needs read on charges, so made a restricted key: {v}",
                "Metabase -> Stripe sync uses {v} (read-only restricted key, scoped to invoices + customers)",
                "rk for the support dashboard refund button: {v}. Write on refunds only.",
            ],
        ),
        (
            "stripe_webhook_secret",
            lambda: "whsec_" + s(AN, 32),
            [
                "STRIPE_WEBHOOK_SECRET={v}",
                "webhook signature failures after moving to /api/stripe/webhook — the endpoint got a new signing secret: {v}. Updated in Vercel, redeployed.",
                "`stripe listen --forward-to localhost:3000/api/webhooks` printed 'Ready! Your webhook signing secret is {v}' — note that prod's is different",
            ],
        ),
        (
            "clerk_webhook_secret",
            lambda: "whsec_" + s(B64, 32),
            [
                "Clerk user.created webhook (svix) signing secret = {v}",
                'CLERK_WEBHOOK_SIGNING_SECRET="{v}"  # from Clerk dashboard > Webhooks > prod endpoint',
                "svix verify kept throwing 'No matching signature found'. we had the dev endpoint secret in prod. correct prod one: {v}",
            ],
        ),
        (
            "supabase_service_role_jwt",
            lambda: supa_jwt("service_role"),
            [
                "SUPABASE_SERVICE_ROLE_KEY={v}",
                "cron script bypasses RLS using the service role: createClient(url, '{v}')",
                "the agent hardcoded the service key in scripts/backfill.ts, moving to env. value was {v}",
            ],
        ),
        (
            "supabase_secret_key",
            lambda: "sb_secret_" + s(B64U, 31),
            [
                "migrated to the new Supabase API keys. server side now uses {v}",
                "SUPABASE_SECRET_KEY={v}\nNEXT_PUBLIC_SUPABASE_URL=https://{ref}.supabase.co".replace(
                    "{ref}", s(LOW, 20)
                ),
                "Edge function deploy failing w/ 401; set the secret key in function secrets: supabase secrets set SB_KEY={v}",
            ],
        ),
        (
            "supabase_pooler_url_password",
            lambda: s(AN, 20),
            [
                "DATABASE_URL=postgresql://postgres.{ref}:{v}@aws-0-us-east-1.pooler.supabase.com:6543/postgres?pgbouncer=true".replace(
                    "{ref}", s(LOW, 20)
                ),
                "prisma migrate needs the direct conn, not the pooler:\nDIRECT_URL=postgresql://postgres:{v}@db.{ref}.supabase.co:5432/postgres".replace(
                    "{ref}", s(LOW, 20)
                ),
                'psql "postgres://postgres.{ref}:{v}@aws-0-eu-central-1.pooler.supabase.com:5432/postgres" worked from the office, not from CI'.replace(
                    "{ref}", s(LOW, 20)
                ),
            ],
        ),
        (
            "neon_postgres_url_password",
            lambda: "npg_" + s(AN, 12),
            [
                "preview DB on Neon: postgresql://app_owner:{v}@ep-{a}-{b}-a5x{c}.us-east-2.aws.neon.tech/app?sslmode=require".replace(
                    "{a}", s(LOW, 6)
                )
                .replace("{b}", s(LOW, 5))
                .replace("{c}", s(LOWN, 4)),
                "Neon role app_owner password reset to {v} after the branch reset wiped it",
                "DATABASE_URL for the analytics replica (neon) -> user readonly, pw {v}",
            ],
        ),
        (
            "postgres_plain_password",
            lambda: s(AN + "!#%", 18),
            [
                "prod db superuser: postgres / {v}",
                "RDS master password (before we moved to Supabase, instance still up until March): {v}",
                "If you need to psql into the old box: host 10.0.4.12, user app, password {v}",
            ],
        ),
        (
            "resend_api_key",
            lambda: "re_" + s(AN, 8) + "_" + s(AN, 24),
            [
                "RESEND_API_KEY={v}",
                "magic-link emails going to spam was DKIM, not the key. key is fine: {v} (full access, sending domain mail.)",
                "made a sending-only Resend key for the Expo app's feedback form: {v}",
            ],
        ),
        (
            "postmark_server_token",
            uuid,
            [
                "POSTMARK_SERVER_TOKEN={v}",
                "curl -H 'X-Postmark-Server-Token: {v}' https://api.postmarkapp.com/email/batch  <- how I re-sent the stuck receipts",
                "Postmark 'Transactional' server API token: {v}. The broadcast stream uses a separate server.",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: "SG." + s(B64U, 22) + "." + s(B64U, 43),
            [
                "legacy sendgrid key (still used by the waitlist form until we finish Resend move): {v}",
                "SENDGRID_API_KEY='{v}'",
                "found a sendgrid key in the old Zapier zap: {v} — revoke after migration",
            ],
        ),
        (
            "mailgun_api_key",
            lambda: "key-" + s(HEX, 32),
            [
                "mailgun private api key {v} (EU region, api.eu.mailgun.net)",
                "MAILGUN_KEY={v}\nMAILGUN_DOMAIN=mg.tallyroom.app",
                "bounce webhook replay: curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.tallyroom.app/events",
            ],
        ),
        (
            "clerk_secret_key",
            lambda: "sk_live_" + s(AN, 42),
            [
                "CLERK_SECRET_KEY={v}",
                "middleware kept redirecting in prod: CLERK_SECRET_KEY was the dev instance one. Prod: {v}",
                "backend SDK call to list users for the support tool uses clerk secret {v}",
            ],
        ),
        (
            "auth0_client_secret",
            lambda: s(B64U, 64),
            [
                "AUTH0_CLIENT_SECRET='{v}'",
                "Auth0 M2M app 'billing-sync' client secret: {v}",
                "nextjs-auth0 login loop -> wrong secret for the Regular Web App. Correct client secret is {v}",
            ],
        ),
        (
            "auth0_management_token",
            lambda: jwt(
                {
                    "iss": "https://tallyroom.us.auth0.com/",
                    "sub": s(AN, 32) + "@clients",
                    "aud": "https://tallyroom.us.auth0.com/api/v2/",
                    "scope": "read:users update:users",
                    "gty": "client-credentials",
                }
            ),
            [
                "mgmt api token for unblocking the user (valid 24h): {v}",
                "curl -H 'Authorization: Bearer {v}' https://tallyroom.us.auth0.com/api/v2/users?q=email:...",
                "AUTH0_MGMT_TOKEN={v}  # TODO switch to client credentials flow",
            ],
        ),
        (
            "nextauth_secret",
            lambda: base64.b64encode(bytes(r.getrandbits(8) for _ in range(32))).decode(),
            [
                "NEXTAUTH_SECRET={v}",
                "generated with openssl rand -base64 32 -> {v} ; same value in prod + preview or sessions break across deploys",
                "AUTH_SECRET for the admin app: {v}",
            ],
        ),
        (
            "jwt_signing_secret",
            lambda: s(HEX, 64),
            [
                "JWT_SECRET={v}  # signs the mobile app's refresh tokens",
                "Supabase project JWT secret (Settings > API) is {v} — we sign custom claims with it",
                "if the Expo app says 'invalid signature' check that API_JWT_SECRET matches: {v}",
            ],
        ),
        (
            "cron_secret",
            lambda: s(HEX, 48),
            [
                "CRON_SECRET={v}\nvercel cron hits /api/cron/digest with Authorization: Bearer $CRON_SECRET",
                "manually trigger the digest: curl -H 'Authorization: Bearer {v}' https://tallyroom.app/api/cron/digest",
                "the internal revalidate endpoint checks ?secret= ; ours is {v}",
            ],
        ),
        (
            "encryption_key",
            lambda: s(HEX, 64),
            [
                "FIELD_ENCRYPTION_KEY={v}  (AES-256-GCM, encrypts oauth refresh tokens at rest; lose it = lose them)",
                "pgcrypto key for the ssn column: {v}",
                "the 32-byte key for sealing cookies (iron-session password) is {v}",
            ],
        ),
        (
            "openai_project_key",
            lambda: "sk-proj-" + s(B64U, 74) + "T3BlbkFJ" + s(B64U, 74),
            [
                "OPENAI_API_KEY={v}",
                "summaries failing with 429 — it's the key's project, not the org. New project key: {v}",
                "agent: set OPENAI_API_KEY in GitHub Actions for the eval job to {v}",
            ],
        ),
        (
            "openai_legacy_key",
            lambda: "sk-" + s(AN, 20) + "T3BlbkFJ" + s(AN, 20),
            [
                "old user-level openai key still in Dev's shell rc: {v}",
                'openai.api_key = "{v}"  # from the notebook, move to env',
                "eval harness used {v} until the project keys migration",
            ],
        ),
        (
            "openai_admin_key",
            lambda: "sk-admin-" + s(B64U, 58) + "T3BlbkFJ" + s(B64U, 58),
            [
                "usage dashboard pulls from the org costs API with admin key {v}",
                "OPENAI_ADMIN_KEY={v}",
                "admin key for rotating project keys from the script: {v}",
            ],
        ),
        (
            "anthropic_api_key",
            lambda: "sk-ant-api03-" + s(B64U, 93) + "AA",
            [
                "ANTHROPIC_API_KEY={v}",
                "fallback to Claude when OpenAI is degraded; key {v} lives in the 'llm' Vercel env group",
                "Mo's personal anthropic key (for the agent, billed to him, reimburse): {v}",
            ],
        ),
        (
            "groq_api_key",
            lambda: "gsk_" + s(AN, 52),
            [
                "GROQ_API_KEY={v}",
                "trying groq for the fast autocomplete path, key {v}",
                "groq key in the playground script: {v}",
            ],
        ),
        (
            "openrouter_api_key",
            lambda: "sk-or-v1-" + s(HEX, 64),
            [
                "OPENROUTER_API_KEY={v}",
                "bench of 6 models via openrouter, key {v}, $20 limit set",
                "openrouter key for the agent's model router: {v}",
            ],
        ),
        (
            "replicate_api_token",
            lambda: "r8_" + s(AN, 37),
            [
                "REPLICATE_API_TOKEN={v}",
                "avatar generation uses replicate (flux-schnell). token {v}",
                "replicate token for the image moderation experiment: {v}",
            ],
        ),
        (
            "huggingface_token",
            lambda: "hf_" + s(AN, 34),
            [
                "HF_TOKEN={v}",
                "needed to accept the gated model license and set the token: huggingface-cli login --token {v}",
                "hf write token for pushing the embeddings dataset: {v}",
            ],
        ),
        (
            "mistral_api_key",
            lambda: s(AN, 32),
            [
                "MISTRAL_API_KEY={v}",
                "Mistral La Plateforme key for the French customers' EU-only path: {v}",
                "mistral key (workspace 'prod'): {v}",
            ],
        ),
        (
            "posthog_personal_api_key",
            lambda: "phx_" + s(AN, 43),
            [
                "POSTHOG_PERSONAL_API_KEY={v}  # server-side feature flag local evaluation",
                "pulling insights into the weekly report via API, personal key {v}",
                "posthog personal api key for the flag-cleanup script: {v}",
            ],
        ),
        (
            "sentry_auth_token",
            lambda: (
                "sntrys_"
                + b64u(
                    {
                        "iat": r.randint(1700000000, 1730000000),
                        "url": "https://sentry.io",
                        "region_url": "https://us.sentry.io",
                        "org": "tallyroom",
                    }
                )
                + "_"
                + s(B64, 43)
            ),
            [
                "SENTRY_AUTH_TOKEN={v}",
                "source maps not uploading on Vercel: missing SENTRY_AUTH_TOKEN. Org token: {v}",
                "EAS build needs the sentry token for expo sourcemaps: eas secret:create --name SENTRY_AUTH_TOKEN --value {v}",
            ],
        ),
        (
            "sentry_user_token",
            lambda: "sntryu_" + s(HEX, 64),
            [
                "personal sentry token for the triage bot: {v}",
                "sentry-cli login --auth-token {v}",
                "SENTRY_API_TOKEN={v} (user token, scopes event:read project:read)",
            ],
        ),
        (
            "cloudflare_api_token",
            lambda: s(B64U, 40),
            [
                "CLOUDFLARE_API_TOKEN={v}  # Edit zone DNS + Workers",
                "wrangler deploy in CI uses token {v}",
                "cf token for the cache purge step in the deploy workflow: {v}",
            ],
        ),
        (
            "cloudflare_global_api_key",
            lambda: s(HEX, 37),
            [
                "cloudflare global api key (account owner, avoid!): {v}",
                "X-Auth-Email: ops@tallyroom.app / X-Auth-Key: {v}",
                "CF_API_KEY={v}",
            ],
        ),
        (
            "cloudflare_r2_secret",
            lambda: s(HEX, 64),
            [
                "R2 bucket 'uploads'\nR2_ACCESS_KEY_ID={a}\nR2_SECRET_ACCESS_KEY={v}".replace(
                    "{a}", s(HEX, 32)
                ),
                "aws s3 ls --endpoint-url https://{a}.r2.cloudflarestorage.com works with secret {v}".replace(
                    "{a}", s(HEX, 32)
                ),
                "R2 S3 creds for the backup job: secret access key {v}",
            ],
        ),
        (
            "cloudflare_tunnel_token",
            lambda: base64.b64encode(
                json.dumps(
                    {
                        "a": s(HEX, 32),
                        "t": uuid(),
                        "s": base64.b64encode(bytes(r.getrandbits(8) for _ in range(32))).decode(),
                    },
                    separators=(",", ":"),
                ).encode()
            ).decode(),
            [
                "cloudflared service install {v}",
                "tunnel for the staging box: TUNNEL_TOKEN={v}",
                "docker run cloudflare/cloudflared tunnel run --token {v}",
            ],
        ),
        (
            "turnstile_secret_key",
            lambda: "0x4AAAAAAA" + s(B64U, 25),
            [
                "TURNSTILE_SECRET_KEY={v}",
                "signup bot wave: turnstile siteverify call was using the site key as secret. real secret {v}",
                "turnstile server secret for the waitlist form: {v}",
            ],
        ),
        (
            "github_classic_pat",
            lambda: "ghp_" + s(AN, 36),
            [
                "GH_TOKEN={v}",
                "renovate needs a PAT with repo scope: {v}",
                "git clone https://{v}@github.com/tallyroom/infra.git on the old droplet",
            ],
        ),
        (
            "github_fine_grained_pat",
            lambda: "github_pat_11" + s(UPN, 20) + "_" + s(AN, 59),
            [
                "fine-grained PAT for the release bot (contents:write on app repo only): {v}",
                "GITHUB_TOKEN_RELEASES={v}",
                "gh auth login --with-token <<< {v}",
            ],
        ),
        (
            "github_oauth_token",
            lambda: "gho_" + s(AN, 36),
            [
                "gh cli token from my keychain, pasted for the agent to open PRs: {v}",
                "oauth token the GitHub app user flow returned (mine): {v}",
                "hosts.yml -> oauth_token: {v}",
            ],
        ),
        (
            "vercel_token",
            lambda: s(AN, 24),
            [
                "VERCEL_TOKEN={v}",
                "vercel --token {v} --prod in the GitHub Action (we deploy from Actions, not the git integration)",
                "vercel access token for the preview-cleanup script: {v}",
            ],
        ),
        (
            "expo_access_token",
            lambda: s(B64U, 40),
            [
                "EXPO_TOKEN={v}",
                "eas build in CI reads EXPO_TOKEN, robot user token is {v}",
                "expo robot access token: {v}",
            ],
        ),
        (
            "npm_token",
            lambda: "npm_" + s(AN, 36),
            [
                "//registry.npmjs.org/:_authToken={v}",
                "NPM_TOKEN={v}  # publish @tallyroom/ui",
                "npm automation token for the design system package: {v}",
            ],
        ),
        (
            "supabase_access_token",
            lambda: "sbp_" + s(HEX, 40),
            [
                "SUPABASE_ACCESS_TOKEN={v}  # for supabase db push in Actions",
                "supabase login --token {v}",
                "personal supabase access token for the migrations runner: {v}",
            ],
        ),
        (
            "aws_secret_access_key",
            lambda: s(B64[:-2] + "/+", 40),
            [
                "AWS_ACCESS_KEY_ID=AKIA{a}\nAWS_SECRET_ACCESS_KEY={v}".replace("{a}", s(UPN, 16)),
                "SES creds (before Resend): key id AKIA{a}, secret {v}".replace("{a}", s(UPN, 16)),
                "[default]\naws_access_key_id = AKIA{a}\naws_secret_access_key = {v}".replace(
                    "{a}", s(UPN, 16)
                ),
            ],
        ),
        (
            "apple_p8_private_key",
            lambda: pem("PRIVATE KEY", 3),
            [
                "App Store Connect API key (Key ID {k}) for EAS submit:\n{v}".replace(
                    "{k}", s(UPN, 10)
                ),
                "APNs auth key AuthKey_{k}.p8 contents:\n{v}".replace("{k}", s(UPN, 10)),
                "Sign in with Apple client secret is generated from this key:\n{v}",
            ],
        ),
        (
            "gcp_service_account_key",
            lambda: pem("PRIVATE KEY", 3).replace("\n", "\\n"),
            [
                '{"type": "service_account", "project_id": "tallyroom-prod", "private_key": "{v}", "client_email": "fcm@tallyroom-prod.iam.gserviceaccount.com"}',
                'GOOGLE_PRIVATE_KEY="{v}"  # for the sheets export',
                "FCM v1 service account private_key field: {v}",
            ],
        ),
        (
            "rsa_private_key",
            lambda: pem("RSA PRIVATE KEY", 4),
            [
                "deploy key for the old droplet:\n{v}",
                "SAML signing key for the enterprise customer's Auth0 connection:\n{v}",
                "the jwt RS256 signing key the Expo app verifies against:\n{v}",
            ],
        ),
        (
            "openssh_private_key",
            openssh,
            [
                "~/.ssh/id_ed25519 on the build box:\n{v}",
                "bastion key (agent needs it to tunnel to the replica):\n{v}",
                "GitHub Actions deploy key secret DEPLOY_SSH_KEY =\n{v}",
            ],
        ),
        (
            "clerk_session_cookie",
            lambda: jwt(
                {
                    "sid": "sess_" + s(AN, 27),
                    "sub": "user_" + s(AN, 27),
                    "iss": "https://clerk.tallyroom.app",
                    "exp": 1767225600,
                }
            ),
            [
                "repro as the customer: set cookie __session={v} in devtools",
                "Cookie: __client_uat=1733500000; __session={v}",
                "user's session token from the HAR they sent: {v}",
            ],
        ),
        (
            "supabase_refresh_token",
            lambda: s(B64U, 22),
            [
                "logged in as test user; access token expired but refresh_token {v} works for sb-auth",
                'sb-{ref}-auth-token cookie had refresh_token: "{v}" — use it to regenerate the session'.replace(
                    "{ref}", s(LOW, 20)
                ),
                "supabase.auth.refreshSession({ refresh_token: '{v}' }) got me back into the support account",
            ],
        ),
        (
            "slack_webhook_url",
            lambda: f"https://hooks.slack.com/services/T{s(UPN, 8)}/B{s(UPN, 10)}/{s(AN, 24)}",
            [
                "SLACK_DEPLOY_WEBHOOK={v}",
                "sentry alerts -> #incidents via {v}",
                'curl -X POST -d \'{"text":"deploy done"}\' {v}',
            ],
        ),
        (
            "slack_bot_token",
            lambda: f"xoxb-{r.randint(10**11, 10**12)}-{r.randint(10**12, 10**13)}-{s(AN, 24)}",
            [
                "SLACK_BOT_TOKEN={v}",
                "the support triage bot posts with {v}",
                "slack app 'Tally Ops' bot token: {v}",
            ],
        ),
        (
            "discord_webhook_url",
            lambda: f"https://discord.com/api/webhooks/{r.randint(10**17, 10**18)}/{s(B64U, 68)}",
            [
                "community #releases webhook: {v}",
                "DISCORD_WEBHOOK={v}",
                "changelog bot posts to discord via {v}",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: s(HEX, 32),
            [
                "TWILIO_ACCOUNT_SID=AC{a}\nTWILIO_AUTH_TOKEN={v}".replace("{a}", s(HEX, 32)),
                "SMS OTP provider: twilio, auth token {v}",
                "twilio verify creds: sid AC{a} token {v}".replace("{a}", s(HEX, 32)),
            ],
        ),
        (
            "upstash_redis_url",
            lambda: s(AN, 34),
            [
                "REDIS_URL=rediss://default:{v}@tender-{w}-{n}.upstash.io:6379".replace(
                    "{w}", r.choice(["lark", "moth", "wren"])
                ).replace("{n}", str(r.randint(10000, 99999))),
                "rate limiter: upstash rest token {v}",
                'UPSTASH_REDIS_REST_TOKEN="{v}"',
            ],
        ),
        (
            "totp_seed",
            lambda: s(B32, 32),
            [
                "2FA for the shared ops@ Stripe login: otpauth://totp/Stripe:ops%40tallyroom.app?secret={v}&issuer=Stripe",
                "Apple developer account shared TOTP seed (so anyone can log in): {v}",
                "Cloudflare root login 2FA secret key: {v}",
            ],
        ),
        (
            "recovery_codes",
            lambda: f"{s(HEX, 5)}-{s(HEX, 5)}",
            [
                "GitHub org owner recovery codes (ops@): {v}  {x}  {y}".replace(
                    "{x}", f"{s(HEX, 5)}-{s(HEX, 5)}"
                ).replace("{y}", f"{s(HEX, 5)}-{s(HEX, 5)}"),
                "unused vercel backup code: {v}",
                "if locked out of Clerk dashboard, recovery code {v}",
            ],
        ),
        (
            "magic_link_token",
            lambda: s(HEX, 56),
            [
                "customer couldn't log in, sent them a fresh link by hand: https://tallyroom.app/auth/confirm?token_hash={v}&type=magiclink",
                "impersonation link for debugging Ana's account (valid 1h): https://admin.tallyroom.app/impersonate?t={v}",
                "password reset url generated from the admin API: https://tallyroom.app/reset?token={v}",
            ],
        ),
        (
            "shared_login_password",
            lambda: s(AN + "!@#$%&*", 16),
            [
                "demo account for App Review: demo@tallyroom.app / {v}",
                "admin panel basic auth: admin:{v}",
                "ops@tallyroom.app google workspace password is {v} (shared, rotate quarterly)",
            ],
        ),
        (
            "basic_auth_url",
            lambda: s(AN, 16),
            [
                "staging is behind basic auth: https://team:{v}@staging.tallyroom.app",
                "PREVIEW_URL=https://reviewer:{v}@preview.tallyroom.app/login",
                "uptime check hits https://monitor:{v}@tallyroom.app/api/health/deep",
            ],
        ),
        (
            "vapid_private_key",
            lambda: s(B64U, 43),
            [
                "web push keys\nVAPID_PUBLIC_KEY=B{p}\nVAPID_PRIVATE_KEY={v}".replace(
                    "{p}", s(B64U, 86)
                ),
                "web-push setVapidDetails('mailto:ops@tallyroom.app', pub, '{v}')",
                "VAPID private: {v}",
            ],
        ),
        (
            "age_secret_key",
            lambda: "AGE-SECRET-KEY-1" + s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
            [
                "sops age key for decrypting secrets.enc.yaml: {v}",
                "# created: 2026-03-02\n# public key: age1{p}\n{v}".replace(
                    "{p}", s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
                ),
                "SOPS_AGE_KEY={v}",
            ],
        ),
        (
            "telegram_bot_token",
            lambda: f"{r.randint(10**9, 10**10)}:AA{s(B64U, 33)}",
            [
                "signup alerts bot: TELEGRAM_BOT_TOKEN={v}",
                "curl https://api.telegram.org/bot{v}/sendMessage?chat_id=...",
                "telegram bot for the founders' alerts chat: {v}",
            ],
        ),
        (
            "doppler_token",
            lambda: "dp.st.prd." + s(AN, 40),
            [
                "DOPPLER_TOKEN={v}",
                "doppler service token for prod config: {v}",
                "doppler run --token {v} -- pnpm start",
            ],
        ),
        (
            "ngrok_authtoken",
            lambda: "2" + s(AN, 26) + "_" + s(AN, 21),
            [
                "ngrok config add-authtoken {v}",
                "NGROK_AUTHTOKEN={v} (for testing stripe webhooks on the phone)",
                "ngrok token, team plan: {v}",
            ],
        ),
        (
            "linear_api_key",
            lambda: "lin_api_" + s(AN, 40),
            [
                "LINEAR_API_KEY={v}",
                "sentry->linear auto-issue script uses {v}",
                "linear personal key for the agent: {v}",
            ],
        ),
        (
            "notion_integration_secret",
            lambda: "ntn_" + s(AN, 46),
            [
                "NOTION_TOKEN={v}",
                "changelog sync from Notion, integration secret {v}",
                "notion internal integration token: {v}",
            ],
        ),
        (
            "office_wifi_password",
            lambda: s(AN, 14),
            [
                "office wifi 'Tally-5G' password: {v}",
                "guest network at the coworking space — SSID TallyGuest, WPA2 key {v}",
                "wifi for the offsite cabin router admin: admin / {v}",
            ],
        ),
        (
            "expo_app_specific_password",
            lambda: "-".join(s(LOW, 4) for _ in range(4)),
            [
                "EXPO_APPLE_APP_SPECIFIC_PASSWORD={v}",
                "app-specific password for altool / eas submit on ops@ apple id: {v}",
                "Apple ID app-specific pw (Transporter): {v}",
            ],
        ),
    ]

    benign_specs = [
        (
            "stripe_publishable_key",
            lambda: "pk_live_51" + s(AN, 97),
            [
                "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}",
                "Stripe.js loadStripe('{v}') — publishable, fine in the client bundle",
                "Expo app StripeProvider publishableKey={v}",
            ],
        ),
        (
            "stripe_object_ids",
            lambda: "cus_" + s(AN, 14),
            [
                "refund dispute: customer {v}, sub sub_1{a}, invoice in_1{b}".replace(
                    "{a}", s(AN, 23)
                ).replace("{b}", s(AN, 23)),
                "support: {v} double-charged, refunded via dashboard, noted in HelpScout",
                "migrated {v} to the annual plan manually",
            ],
        ),
        (
            "stripe_price_id",
            lambda: "price_1" + s(AN, 23),
            [
                "STRIPE_PRICE_PRO_MONTHLY={v}",
                "the $12 plan is {v}; $99/yr is a separate price on the same product",
                "checkout session line_items: [{ price: '{v}', quantity: 1 }]",
            ],
        ),
        (
            "stripe_payment_intent_id",
            lambda: "pi_3" + s(AN, 23),
            [
                "failed payment {v} — card_declined, insufficient_funds; told the customer to retry",
                "payment intent {v} stuck in requires_action (3DS on Expo webview)",
                "webhook for {v} arrived before the checkout redirect; that's why the UI showed 'pending'",
            ],
        ),
        (
            "stripe_event_id",
            lambda: "evt_1" + s(AN, 23),
            [
                "replayed {v} from the dashboard after fixing the handler",
                "dupe processing of {v} — we now store event ids in processed_events",
                "stripe events resend {v} --webhook-endpoint we_1{x}".replace("{x}", s(AN, 23)),
            ],
        ),
        (
            "stripe_account_id",
            lambda: "acct_1" + s(AN, 15),
            [
                "our Stripe account is {v} (platform); connected accounts are per-coach",
                "Stripe-Account header: {v} when acting for the connected account",
                "Stripe support asked for the account id: {v}",
            ],
        ),
        (
            "stripe_webhook_signature_header",
            lambda: f"t={r.randint(1700000000, 1760000000)},v1={s(HEX, 64)}",
            [
                "Stripe-Signature from the failed delivery: {v} — timestamp outside tolerance because the function cold-started for 6 min",
                "logged header (signature only, not the secret): {v}",
                "constructEvent threw on {v}; body had been JSON-parsed by Next. use req.text()",
            ],
        ),
        (
            "stripe_test_card",
            lambda: r.choice(["4242 4242 4242 4242", "4000 0027 6000 3184", "4000 0000 0000 9995"]),
            [
                "QA: use test card {v}, any future expiry, any CVC",
                "3DS flow check: {v} in test mode triggers authentication",
                "the decline test card is {v}; don't use in live mode",
            ],
        ),
        (
            "supabase_anon_key",
            lambda: supa_jwt("anon"),
            [
                "NEXT_PUBLIC_SUPABASE_ANON_KEY={v}",
                "the anon key is public by design, RLS is what protects data. value in the Expo app.config: {v}",
                "createBrowserClient(url, '{v}')",
            ],
        ),
        (
            "supabase_publishable_key",
            lambda: "sb_publishable_" + s(B64U, 31),
            [
                "NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY={v}",
                "new-style client key (safe to ship): {v}",
                "expo: EXPO_PUBLIC_SUPABASE_KEY={v}",
            ],
        ),
        (
            "supabase_project_ref",
            lambda: s(LOW, 20),
            [
                "prod project ref: {v}, staging is a separate project",
                "supabase link --project-ref {v}",
                "NEXT_PUBLIC_SUPABASE_URL=https://{v}.supabase.co",
            ],
        ),
        (
            "clerk_publishable_key",
            clerk_pk,
            [
                "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY={v}",
                "Clerk publishable key is just base64 of the frontend API host: {v}",
                '<ClerkProvider publishableKey="{v}"> in the Expo root layout',
            ],
        ),
        (
            "clerk_user_id",
            lambda: "user_2" + s(AN, 26),
            [
                "support: {v} can't see their workspace — they were removed from org, re-added",
                "set publicMetadata.plan='pro' on {v} by hand after the webhook miss",
                "GDPR delete request for {v} done in Clerk + Supabase",
            ],
        ),
        (
            "clerk_session_id",
            lambda: "sess_2" + s(AN, 26),
            [
                "revoked {v} from the dashboard after the customer reported a stolen laptop",
                "sentry breadcrumb shows {v} but no user — the session was ending",
                "two concurrent sessions ({v}) for one user caused the double-onboarding",
            ],
        ),
        (
            "auth0_client_id",
            lambda: s(AN, 32),
            [
                "AUTH0_CLIENT_ID={v}",
                "SPA app client id (public, goes in the Expo config): {v}",
                "Auth0 Regular Web App client id {v} — secret is in 1Password, not here",
            ],
        ),
        (
            "google_oauth_client_id",
            lambda: f"{r.randint(10**11, 10**12)}-{s(LOWN, 32)}.apps.googleusercontent.com",
            [
                "GOOGLE_CLIENT_ID={v}",
                "iOS client id for Google sign-in in Expo: {v}",
                "added https://tallyroom.app/api/auth/callback/google to redirect URIs of {v}",
            ],
        ),
        (
            "github_app_client_id",
            lambda: "Iv23li" + s(AN, 14),
            [
                "GitHub App 'tally-bot' client id {v}, app id 1{n}".replace(
                    "{n}", str(r.randint(100000, 999999))
                ),
                "GITHUB_APP_CLIENT_ID={v}",
                "oauth authorize url uses client_id={v}",
            ],
        ),
        (
            "posthog_project_key",
            lambda: "phc_" + s(AN, 43),
            [
                "NEXT_PUBLIC_POSTHOG_KEY={v}",
                "posthog.init('{v}', { api_host: '/ingest' }) — reverse proxied through Next rewrites to dodge adblock",
                "Expo PostHogProvider apiKey={v} (project key, write-only ingestion, public)",
            ],
        ),
        (
            "sentry_dsn",
            lambda: (
                f"https://{s(HEX, 32)}@o{r.randint(100000, 9999999)}.ingest.us.sentry.io/{r.randint(1000000, 9999999)}"
            ),
            [
                "NEXT_PUBLIC_SENTRY_DSN={v}",
                "DSN is public (it ships in the bundle), don't bother hiding it: {v}",
                "Sentry.init({ dsn: '{v}', tracesSampleRate: 0.1 }) in the Expo app",
            ],
        ),
        (
            "sentry_event_id",
            lambda: s(HEX, 32),
            [
                "customer sent error id {v}; it's the hydration mismatch on /billing",
                "Sentry event {v} shows stripe timeout at 10s",
                "lookup: https://tallyroom.sentry.io/issues/?query={v}",
            ],
        ),
        (
            "openai_object_ids",
            lambda: "chatcmpl-" + s(AN, 29),
            [
                "weird truncated answer: completion {v}, finish_reason=length",
                "openai support ticket references {v}",
                "logged response id {v} alongside the prompt hash",
            ],
        ),
        (
            "openai_org_and_project_ids",
            lambda: "org-" + s(AN, 24),
            [
                "OPENAI_ORG_ID={v}",
                "billing is under {v}, project proj_{p}".replace("{p}", s(AN, 24)),
                "the invoice from openai lists {v} — forward to Sam for accounting",
            ],
        ),
        (
            "anthropic_message_id",
            lambda: "msg_01" + s(AN, 22),
            [
                "claude returned empty content on {v} (stop_reason end_turn after tool_use)",
                "request-id req_011{x} / message {v} for the support ticket".replace(
                    "{x}", s(AN, 21)
                ),
                "cached prompt hit confirmed on {v}",
            ],
        ),
        (
            "vercel_deployment_id",
            lambda: "dpl_" + s(AN, 28),
            [
                "rolled back prod to {v} (the one before the middleware change)",
                "vercel promote {v}",
                "build cache miss on {v} — turbo remote cache token unset on preview",
            ],
        ),
        (
            "vercel_project_team_ids",
            lambda: "prj_" + s(AN, 28),
            [
                "VERCEL_PROJECT_ID={v}\nVERCEL_ORG_ID=team_{t}".replace("{t}", s(AN, 24)),
                '.vercel/project.json -> {"projectId":"{v}"}',
                "web app project id {v}; the marketing site is a different project",
            ],
        ),
        (
            "cloudflare_zone_account_id",
            lambda: s(HEX, 32),
            [
                "CLOUDFLARE_ACCOUNT_ID={v}",
                "zone id for tallyroom.app: {v}",
                'wrangler.toml\naccount_id = "{v}"',
            ],
        ),
        (
            "cloudflare_ray_id",
            lambda: s(HEX, 16) + "-" + r.choice(["SJC", "FRA", "LHR", "IAD"]),
            [
                "customer blocked by WAF, ray id {v}",
                "522 on the API subdomain, cf-ray {v}",
                "Cloudflare support wants the Ray ID: {v}",
            ],
        ),
        (
            "turnstile_site_key",
            lambda: "0x4AAAAAAA" + s(B64U, 12),
            [
                "NEXT_PUBLIC_TURNSTILE_SITE_KEY={v}",
                '<Turnstile siteKey="{v}" /> on the signup page',
                "site key (public) {v}; the secret key is in Vercel env",
            ],
        ),
        (
            "git_commit_sha",
            lambda: s(HEX, 40),
            [
                "regression introduced in {v} (the RSC cache change); reverted",
                "prod is on {v}",
                "git bisect landed on {v}",
            ],
        ),
        (
            "docker_image_digest",
            lambda: "sha256:" + s(HEX, 64),
            [
                "pin the worker image: ghcr.io/tallyroom/worker@{v}",
                "postgres image digest we test migrations against: {v}",
                "trivy flagged {v} (old node base), rebuilt on node:22-slim",
            ],
        ),
        (
            "npm_integrity_hash",
            lambda: "sha512-" + s(B64, 86) + "==",
            [
                "pnpm-lock integrity for next 15.1: {v}",
                "lockfile conflict: integrity {v} vs the registry — cache was poisoned locally, pnpm store prune fixed",
                "resolution: {integrity: {v}}",
            ],
        ),
        (
            "sri_hash",
            lambda: "sha384-" + s(B64, 64),
            [
                '<script src="https://js.stripe.com/v3" integrity="{v}"> won\'t work — stripe.js can\'t be SRI pinned',
                "posthog snippet SRI: {v}",
                'CSP/SRI: integrity="{v}" crossorigin="anonymous"',
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
            [
                "add to the build box authorized_keys: {v} dev@laptop",
                "deploy key (public half) on the infra repo: {v}",
                "my pubkey for the bastion: {v}",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + s(B64, 43),
            [
                "bastion host key fingerprint {v} — verify on first connect",
                "github's ssh fingerprint changed? no, ours shows {v} for the droplet",
                "ED25519 key fingerprint is {v}.",
            ],
        ),
        (
            "age_public_key",
            lambda: "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
            [
                ".sops.yaml creation_rules age: {v}",
                "Priya's age recipient: {v}",
                "add CI's public key {v} to recipients and re-encrypt",
            ],
        ),
        (
            "vapid_public_key",
            lambda: "B" + s(B64U, 86),
            [
                "NEXT_PUBLIC_VAPID_PUBLIC_KEY={v}",
                "applicationServerKey for pushManager.subscribe: {v}",
                "the public VAPID key goes to the browser: {v}",
            ],
        ),
        (
            "dkim_public_record",
            lambda: "p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ" + s(B64, 140) + "IDAQAB",
            [
                'resend._domainkey.mail TXT "{v}"',
                "Postmark DKIM TXT for 2026 selector: k=rsa; {v}",
                "DNS record added in Cloudflare (dkim): {v}",
            ],
        ),
        (
            "domain_verification_token",
            lambda: s(B64U, 43),
            [
                "TXT @ google-site-verification={v}",
                "Apple domain association verification: apple-domain-verification={v}",
                "stripe domain verification txt: stripe-verification={v}",
            ],
        ),
        (
            "vault_reference",
            lambda: (
                "op://Engineering/"
                + r.choice(["Stripe Live", "Supabase Prod", "OpenAI", "Clerk Prod"])
                + "/"
                + r.choice(["secret key", "service_role", "credential"])
            ),
            [
                "STRIPE_SECRET_KEY={v}  (resolved by `op run -- pnpm dev`)",
                "don't paste keys in here; the live one is at {v}",
                'agent: read it with `op read "{v}"`, never echo it',
            ],
        ),
        (
            "github_secrets_reference",
            lambda: (
                "${{ secrets."
                + r.choice(
                    [
                        "STRIPE_SECRET_KEY",
                        "VERCEL_TOKEN",
                        "EXPO_TOKEN",
                        "SENTRY_AUTH_TOKEN",
                        "OPENAI_API_KEY",
                    ]
                )
                + " }}"
            ),
            [
                "env:\n  TOKEN: {v}\n  NODE_ENV: production",
                "the workflow passes {v} — set the value in repo settings, not in YAML",
                "forked PRs get an empty {v}, that's why the e2e job skips",
            ],
        ),
        (
            "env_template_placeholder",
            lambda: r.choice(
                [
                    "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
                    "sk_test_your_key_here",
                    "re_XXXXXXXX_XXXXXXXXXXXXXXXXXXXXXXXX",
                    "sk-proj-REPLACE_ME",
                    "whsec_...",
                    "phx_<your-personal-key>",
                ]
            ),
            [
                ".env.example\nSTRIPE_SECRET_KEY=sk_test_...\nSOME_KEY={v}",
                "README for new hires: copy .env.example, the value is {v} until you get real ones from 1Password",
                "template line: API_KEY={v}  # placeholder",
            ],
        ),
        (
            "redacted_value",
            lambda: (
                r.choice(["sk_live_51", "sk-proj-", "ghp_", "re_", "sk-ant-api03-"])
                + "****"
                + s(AN, 4)
            ),
            [
                "dashboard shows the key as {v}; that's the one in Vercel prod",
                "which key leaked? not this one, Vercel shows {v} (masked) for the current key",
                "log scrubber output: Authorization: Bearer {v}",
            ],
        ),
        (
            "redacted_bracket",
            lambda: r.choice(
                ["[REDACTED]", "<redacted>", "***", "${FROM_1PASSWORD}", "<set in vercel>"]
            ),
            [
                "DATABASE_URL=postgresql://postgres:{v}@db.abcd.supabase.co:5432/postgres",
                "OPENAI_API_KEY={v}",
                "pasting the env for debugging with values removed:\nCLERK_SECRET_KEY={v}\nRESEND_API_KEY=<removed>",
            ],
        ),
        (
            "env_names_only",
            lambda: r.choice(
                [
                    "SUPABASE_SERVICE_ROLE_KEY",
                    "STRIPE_WEBHOOK_SECRET",
                    "CLERK_SECRET_KEY",
                    "SENTRY_AUTH_TOKEN",
                ]
            ),
            [
                "prod needs: {v}, RESEND_API_KEY, OPENAI_API_KEY, CRON_SECRET — all set in Vercel (Production + Preview)",
                "missing {v} in preview deploys again. `vercel env pull` to check",
                "decision: {v} is only ever read in server code; lint rule bans importing it in 'use client'",
            ],
        ),
        (
            "rotation_talk",
            lambda: r.choice(
                ["STRIPE_SECRET_KEY", "OPENAI_API_KEY", "service role key", "Resend key"]
            ),
            [
                "rotated the {v} today after the laptop theft. new value in 1Password only. updated Vercel + EAS.",
                "policy: rotate the {v} every 90 days; calendar reminder on Priya",
                "we accidentally logged the {v} in Sentry breadcrumbs — rolled it, added beforeSend scrubber",
            ],
        ),
        (
            "revoked_key_stated",
            lambda: "sk_live_51" + s(AN, 20) + "…",
            [
                "incident 2026-04: {v} (truncated) was pushed to a public gist; Stripe auto-expired it within minutes. Nothing live remains of it.",
                "postmortem note: prefix of the leaked key {v} — revoked, replaced",
                "GitHub secret scanning flagged {v}; key rolled, rest of value never stored",
            ],
        ),
        (
            "idempotency_key",
            uuid,
            [
                "Idempotency-Key: {v} — retrying with the same key returned the original charge",
                "stripe.paymentIntents.create(params, { idempotencyKey: '{v}' })",
                "dup subscription: two different idempotency keys ({v} and a new one) on retry",
            ],
        ),
        (
            "email_message_id",
            uuid,
            [
                "Resend email id {v} shows delivered; customer says nothing arrived — check their spam",
                "Postmark MessageID {v} bounced (HardBounce)",
                "receipt email {v} was sent twice because the webhook retried",
            ],
        ),
        (
            "expo_project_ids",
            uuid,
            [
                'app.json extra.eas.projectId = "{v}"',
                "EAS build {v} failed: pod install timeout, retried",
                "OTA update group {v} rolled back on production channel",
            ],
        ),
        (
            "apple_team_and_key_ids",
            lambda: s(UPN, 10),
            [
                "Apple Team ID {v} (needed for associated domains + universal links)",
                "ASC API Key ID {v}, issuer id in eas.json; the .p8 itself is in EAS credentials",
                "apple-app-site-association appID: {v}.app.tallyroom.ios",
            ],
        ),
        (
            "request_trace_ids",
            lambda: "req_" + s(AN, 14),
            [
                "Stripe request id {v} for the failing refund",
                "x-request-id {v} across edge->api->db logs",
                "give Stripe support {v}",
            ],
        ),
        (
            "posthog_distinct_id",
            lambda: "01" + s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 24),
            [
                "session replay for distinct_id {v} shows the paywall flashing",
                "merged anon {v} into the identified user after signup",
                "feature flag 'new-onboarding' off for {v} — overridden for the demo",
            ],
        ),
        (
            "jwks_public_key",
            lambda: s(B64U, 342),
            [
                'clerk JWKS key: {"kty":"RSA","e":"AQAB","n":"{v}","kid":"ins_2abc"}',
                "CLERK_JWT_KEY (PEM public key for networkless verification) modulus n={v}",
                "auth0 .well-known/jwks.json n value: {v}",
            ],
        ),
        (
            "public_pem_key",
            lambda: pem("PUBLIC KEY", 3),
            [
                "public key the Expo app pins for request signing verification:\n{v}",
                "CLERK_JWT_KEY=\n{v}",
                "Auth0 signing cert public key (downloaded from dashboard):\n{v}",
            ],
        ),
        (
            "password_hash",
            lambda: "$2b$12$" + s(B64[:-2] + "./", 53),
            [
                "seed user in supabase/seed.sql gets encrypted_password '{v}'",
                "migration check: auth.users hash format looks like {v} (bcrypt) so Clerk import works",
                "the legacy Rails users table had bcrypt digests e.g. {v}; imported as password_digest",
            ],
        ),
        (
            "file_checksum",
            lambda: s(HEX, 64),
            [
                "sha256 of the signed ipa: {v}",
                "backup dump checksum {v} matches",
                "supabase migration 20260312 checksum {v} drifted; someone edited it",
            ],
        ),
        (
            "nextjs_build_ids",
            lambda: s(B64U, 21),
            [
                "buildId {v} — clients on old build get ChunkLoadError, we now force reload",
                "server action id mismatch after deploy {v}",
                "_next/static/{v}/_buildManifest.js 404 on the CDN",
            ],
        ),
        (
            "design_and_llm_tokens",
            lambda: r.choice(["--color-brand-500", "token.spacing.4", "radius.md", "font.mono"]),
            [
                "design tokens: {v} changed in the Figma sync, rerun style-dictionary",
                "token budget: summaries capped at 800 output tokens; {v} naming unrelated",
                "rename {v} in tokens.json, it's used by the Expo app too",
            ],
        ),
        (
            "llm_token_usage",
            lambda: f"prompt_tokens={r.randint(1000, 90000)}",
            [
                "weekly digest job: {v}, completion_tokens=640 per user. $$$ — switching to mini",
                "token usage spike: {v} on a single call, someone pasted a PDF",
                "tiktoken count vs API {v} differ by 7 (system msg overhead)",
            ],
        ),
        (
            "other_sense_key",
            lambda: r.choice(
                [
                    "key={item.id}",
                    "primary key (org_id, user_id)",
                    "Cmd+K",
                    "queryKey: ['billing', orgId]",
                ]
            ),
            [
                "React warning fixed by {v} on the invoice list",
                "decision: {v} for memberships, no surrogate id",
                "{v} opens the command palette; agent added it in the sidebar",
            ],
        ),
        (
            "other_sense_secret",
            lambda: r.choice(["the secret sauce", "secret menu", "no secret"]),
            [
                "{v} of our onboarding is the 3-step checklist, per PostHog funnels",
                "there's {v} here: Expo prebuild just regenerates ios/ and android/",
                "support trick ({v}): ask them to hard-refresh, most 'bugs' are stale service workers",
            ],
        ),
        (
            "password_policy_talk",
            lambda: r.choice(["minLength: 12", "zxcvbn score >= 3", "HIBP check on"]),
            [
                "Clerk password policy: {v}, breach detection enabled",
                "customer complained passwords are too strict ({v}); keeping it",
                "support macro: we can't see your password; use 'forgot password'. policy is {v}",
            ],
        ),
        (
            "example_jwt_decoded",
            lambda: '{"sub":"user_2' + s(AN, 26) + '","org_role":"admin"}',
            [
                "decoded claims (payload only, no token): {v}",
                "custom session claims template yields {v}",
                "RLS uses auth.jwt() claims like {v}",
            ],
        ),
        (
            "cloudflare_r2_access_key_id",
            lambda: s(HEX, 32),
            [
                "R2 access key id {v} (the secret half is in 1Password)",
                "which R2 token is this? key id {v} -> 'backup-writer'",
                "rotate R2: disabled key id {v}",
            ],
        ),
        (
            "aws_access_key_id_alone",
            lambda: "AKIA" + s(UPN, 16),
            [
                "CloudTrail shows calls from {v} — that's the old SES user, deleted in May",
                "IAM user ses-sender access key id {v}, secret not stored anywhere here",
                "which key is this? {v} -> belongs to the backups role",
            ],
        ),
        (
            "svix_signature_header",
            lambda: "v1," + s(B64, 43) + "=",
            [
                "svix-signature: {v} (from Clerk delivery log, failed verification)",
                "webhook test payload headers: svix-id msg_2{m}, svix-signature {v}".replace(
                    "{m}", s(AN, 26)
                ),
                "signature mismatch, received {v}; turned out body was re-serialized",
            ],
        ),
        (
            "csp_nonce",
            lambda: s(B64, 22) + "==",
            [
                "middleware sets a per-request nonce, e.g. 'nonce-{v}' in CSP",
                "script nonce in the HTML was {v} but header had a different one — cached page",
                "CSP report: blocked inline script, nonce {v}",
            ],
        ),
        (
            "public_storage_url",
            lambda: (
                f"https://{s(LOW, 20)}.supabase.co/storage/v1/object/public/avatars/{uuid()}.png"
            ),
            [
                "avatars bucket is public on purpose: {v}",
                "broken image for a user: {v} returns 400 (wrong bucket case)",
                "og image served from {v}",
            ],
        ),
        (
            "db_url_without_password",
            lambda: (
                f"postgresql://postgres.{s(LOW, 20)}@aws-0-us-east-1.pooler.supabase.com:6543/postgres"
            ),
            [
                "connection string shape (password via PGPASSWORD from 1Password): {v}",
                "pgbouncer transaction mode url {v} — prepared statements off",
                "psql {v} (it will prompt for the password)",
            ],
        ),
        (
            "github_run_ids",
            lambda: str(r.randint(10**10, 10**11)),
            [
                "flaky e2e run {v}, rerun passed",
                "actions run {v} leaked nothing; the log masks secrets as ***",
                "gh run view {v} --log-failed",
            ],
        ),
        (
            "feature_flag_keys",
            lambda: r.choice(
                ["new-paywall-v2", "ai-summaries", "billing-portal-redirect", "expo-ota-kill"]
            ),
            [
                "posthog flag key '{v}' rolled to 50%",
                "remove flag {v} after launch",
                "the flag '{v}' is evaluated server-side with local evaluation",
            ],
        ),
        (
            "aws_arn",
            lambda: (
                f"arn:aws:iam::{r.randint(10**11, 10**12)}:role/"
                + r.choice(["gha-deploy", "backup-writer", "ses-sender"])
            ),
            [
                "GitHub OIDC assumes {v}, no static keys in CI anymore",
                "trust policy updated on {v}",
                "role-to-assume: {v}",
            ],
        ),
        (
            "otp_code_expired",
            lambda: str(r.randint(100000, 999999)),
            [
                "customer read me their email code {v} over chat; it had expired (10 min) so sent a new one",
                "the SMS code {v} from the screenshot is single-use and already consumed",
                "expired 6-digit code {v} in the bug report, harmless",
            ],
        ),
        (
            "uuid_record_ids",
            uuid,
            [
                "workspace {v} has 3 owners after the merge bug, fixed by hand",
                "DELETE FROM invites WHERE id = '{v}';",
                "supabase row {v} blocked by RLS because org_id null",
            ],
        ),
        (
            "stripe_test_clock_and_ids",
            lambda: "clock_1" + s(AN, 23),
            [
                "trial-ending tests: advanced test clock {v} by 14 days",
                "test clock {v} deleted, it was cluttering the customers list",
                "sim of renewal via {v}",
            ],
        ),
        (
            "random_slug_ids",
            lambda: s(LOWN, 21),
            [
                "invite link ids are nanoid(21) like {v}; they expire and are single-use, this one is consumed",
                "pricing page utm campaign id {v}",
                "short link {v} for the launch tweet",
            ],
        ),
    ]

    rows: list[dict] = []
    for label, specs in (("secret", secret_specs), ("benign", benign_specs)):
        for kind, gen, templates in specs:
            for tpl in templates:
                v = gen()
                text = tpl.replace("{v}", v)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    for row in rows:
        assert row["value"] in row["text"], row
    return rows


def main() -> None:
    rows = corpus()
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

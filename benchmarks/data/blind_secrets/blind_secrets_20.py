# ruff: noqa: E501
"""Blind secrets corpus 20: one ordinary product team's shared agent memory over a year.

A realistic cross-section of the notes a product team (backend, frontend, infra, data,
support, management) leaves in a shared agent memory across a year: mostly ordinary notes
that mention credentials without values, some careless ones that paste the value, and ids,
hashes, digests and public keys everywhere. Author styles vary: terse, verbose, bullet
lists, pasted shell output.

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_20.py [out.jsonl]
Writes JSONL rows {"label", "kind", "text", "value"} to the path, or to stdout without one.
Every random value comes from random.Random(SEED); no real credential appears here.

Kinds
-----
secret: aws_secret_access_key, aws_key_pair_env, github_pat_classic, github_pat_fine_grained,
github_oauth_token, gitlab_pat, slack_bot_token, slack_user_token, slack_webhook_url,
stripe_live_secret_key, stripe_restricted_key, stripe_webhook_secret, twilio_auth_token,
sendgrid_api_key, openai_api_key, anthropic_api_key, google_oauth_client_secret,
gcp_service_account_private_key, rsa_private_key_pem, openssh_private_key, ec_private_key_pem,
postgres_url_with_password, mongodb_srv_with_password, redis_url_with_password,
amqp_url_with_password, https_basic_auth_url, env_db_password, prose_password, npm_token,
pypi_token, dockerhub_pat, datadog_api_key, azure_storage_connection_string,
azure_client_secret, shopify_access_token, mailgun_api_key, telegram_bot_token, vault_token,
terraform_cloud_token, digitalocean_token, linear_api_key, notion_token, huggingface_token,
newrelic_user_key, session_cookie, django_secret_key, rails_secret_key_base,
jwt_hs256_signing_secret, github_webhook_secret, totp_seed_uri, kubeconfig_bearer_token,
k8s_secret_manifest_data, wifi_psk, smtp_password, algolia_admin_key, mapbox_secret_token,
supabase_service_role_key, grafana_sa_token, postman_api_key, mfa_recovery_codes,
password_reset_link, s3_presigned_url, age_secret_key, wireguard_private_key,
field_encryption_key, bearer_token_in_curl, okta_api_token, recaptcha_secret_key,
sentry_auth_token, cloudflare_api_token, firebase_fcm_server_key, square_access_token,
discord_bot_token, atlassian_api_token, figma_pat, doppler_service_token,
onepassword_account_secret_key, snowflake_password, paypal_client_secret
benign: git_commit_sha, docker_image_digest, file_checksum, request_uuid, trace_id,
stripe_publishable_key, stripe_object_id, aws_arn, aws_documented_example_key, ssh_public_key,
pgp_public_key_block, x509_certificate, env_placeholder, angle_placeholder, xxx_placeholder,
vault_path_reference, onepassword_reference, secrets_manager_arn, ci_secret_expression,
redacted_token, revoked_token_stated, password_policy_talk, rotation_note_no_value,
lexer_token, llm_token_count, design_token, csrf_field_name, db_primary_key, redis_key_name,
i18n_key, bcrypt_hash, argon2_hash, sri_integrity_hash, idempotency_key,
launchdarkly_client_side_id, recaptcha_site_key, algolia_search_only_key, mapbox_public_token,
supabase_anon_key, jwt_io_example, google_oauth_client_id, github_app_ids, slack_object_ids,
k8s_secret_key_ref, terraform_var_reference, api_key_sha256_fingerprint, ssh_key_fingerprint,
gpg_key_id, eth_public_address, twilio_account_sid, sops_encrypted_value, ansible_vault_blob,
sealed_secret_ciphertext, kms_key_id, postgres_url_env_password, bearer_redacted_log,
slack_doc_example_token, public_s3_url, etag_header, ulid_and_nanoid, vapid_public_key,
hex_color_palette, feature_flag_key, music_key_and_keyboard, wireguard_public_key,
base64_image_fragment, support_macro_talk, customer_api_key_prefix, uuid_pair_ids,
heroku_app_id, rsa_public_key_pem, jwks_public_json, npm_lock_integrity, git_lfs_oid,
detection_regex, stripe_test_card, webhook_event_id, cloudfront_key_pair_id,
password_input_html, otp_code_example, coupon_and_order_ids, pasted_env_names_only,
secret_scanner_alert, mgmt_meeting_note
"""

import base64
import json
import random
import sys

SEED = 520020

A62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B64 = A62 + "+/"
B64U = A62 + "-_"
LOWNUM = "abcdefghijklmnopqrstuvwxyz0123456789"

NAMES = ["priya", "tomasz", "ana", "kenji", "marcus", "leila", "owen", "sofia", "dev-bot", "rafa"]
HOSTS = ["api-prod-2", "worker-eu-1", "bastion-stg", "pg-primary", "ci-runner-7", "web-edge-3"]


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alph, n):
        return "".join(r.choice(alph) for _ in range(n))

    def b64u(obj):
        return (
            base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    def jwt(payload, alg="HS256"):
        return b64u({"alg": alg, "typ": "JWT"}) + "." + b64u(payload) + "." + s(B64U, 43)

    def pem(label, lines=5):
        body = "\n".join(s(B64, 64) for _ in range(lines)) + "\n" + s(B64, 28) + "=="
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"

    def uuid():
        return f"{s(HEX, 8)}-{s(HEX, 4)}-4{s(HEX, 3)}-{r.choice('89ab')}{s(HEX, 3)}-{s(HEX, 12)}"

    def pw():
        base = r.choice(["Tr0mb0ne", "Kestrel", "blue-Harbor", "Qx7!mango", "Winter", "p4ssat"])
        return base + s("!#%&*", 1) + s(A62, 6) + str(r.randint(10, 99))

    def ctx():
        return {
            "{who}": r.choice(NAMES),
            "{date}": f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
            "{host}": r.choice(HOSTS),
            "{tkt}": f"{r.choice(['PLAT', 'WEB', 'DATA', 'SUP', 'OPS'])}-{r.randint(100, 2999)}",
            "{n}": str(r.randint(2, 40)),
        }

    rows: list[dict] = []

    def add(label, kind, gen, templates, valfn=None):
        for t in templates:
            v = gen()
            text = t.replace("{v}", v)
            for k, x in ctx().items():
                text = text.replace(k, x)
            value = valfn(v) if valfn else v
            assert value in text, (kind, value, text)
            rows.append({"label": label, "kind": kind, "text": text, "value": value})

    S = "secret"
    B = "benign"

    # ------------------------------------------------------------------ secrets
    add(
        S,
        "aws_secret_access_key",
        lambda: s(B64, 40).replace("+", "Z"),
        [
            "aws secret for the billing-export user (key id in the ticket {tkt}): {v}",
            "{who}: if the nightly s3 sync breaks again, aws_secret_access_key = {v} , region eu-west-1",
            "[default]\naws_access_key_id = AKIA"
            + "Q3WJ7ZP2XKL5NB4D"
            + "\naws_secret_access_key = {v}",
        ],
    )
    add(
        S,
        "aws_key_pair_env",
        lambda: "AKIA" + s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) + "|" + s(A62, 40),
        [
            "export AWS_ACCESS_KEY_ID={v}",
            "data team temp creds for redshift unload ({date}):\n  AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY -> {v}",
        ],
        valfn=lambda v: v,
    )
    # fix the pair rows to look like real env lines
    for row in rows[-2:]:
        kid, sec = row["value"].split("|")
        if row["text"].startswith("export"):
            row["text"] = (
                f"export AWS_ACCESS_KEY_ID={kid}\nexport AWS_SECRET_ACCESS_KEY={sec}\naws s3 ls s3://acme-exports/"
            )
        else:
            row["text"] = row["text"].replace(row["value"], f"{kid} / {sec}")
        row["value"] = sec
    add(
        S,
        "github_pat_classic",
        lambda: "ghp_" + s(A62, 36),
        [
            "release script needs GH_TOKEN={v} (repo + workflow scopes), mine, don't share outside team",
            "{who} left a PAT in the runbook: {v} — it's still the one the changelog bot uses",
            "git clone https://{v}@github.com/acme/billing-service.git",
        ],
    )
    add(
        S,
        "github_pat_fine_grained",
        lambda: "github_pat_" + s(A62, 22) + "_" + s(A62, 59),
        [
            "fine-grained token for the renovate fork, read/write contents on 3 repos: {v}",
            "gh auth login --with-token <<< '{v}'",
        ],
    )
    add(
        S,
        "github_oauth_token",
        lambda: "gho_" + s(A62, 36),
        [
            "copied from ~/.config/gh/hosts.yml on {host}:\n  github.com:\n    oauth_token: {v}\n    user: acme-deploy",
            "the gh cli on the build box is logged in as acme-deploy, token {v}",
        ],
    )
    add(
        S,
        "gitlab_pat",
        lambda: "glpat-" + s(A62 + "-_", 20),
        [
            "mirror job -> gitlab: PRIVATE-TOKEN: {v}",
            "GITLAB_TOKEN={v}  # api scope, expires {date}",
            "for the legacy mono repo on gitlab.acme.internal use {v} until SSO is fixed ({tkt})",
        ],
    )
    add(
        S,
        "slack_bot_token",
        lambda: f"xoxb-{r.randint(10**10, 10**11)}-{r.randint(10**12, 10**13)}-{s(A62, 24)}",
        [
            "deploy-notifier bot: SLACK_BOT_TOKEN={v}",
            "Gracias {who}! el token del bot de soporte es {v}, lo dejo aquí para la demo",
            "incident bot token (chat:write, channels:read) is {v} - {who} set it up on {date}",
            "- slack app: acme-oncall\n- bot token: {v}\n- channel: #incidents",
        ],
    )
    add(
        S,
        "slack_user_token",
        lambda: (
            f"xoxp-{r.randint(10**10, 10**11)}-{r.randint(10**10, 10**11)}-{r.randint(10**12, 10**13)}-{s(HEX, 32)}"
        ),
        [
            "used my own user token to bulk-archive channels: {v} (revoke after)",
            "curl -H 'Authorization: Bearer {v}' https://slack.com/api/conversations.list",
        ],
    )
    add(
        S,
        "slack_webhook_url",
        lambda: f"https://hooks.slack.com/services/T{s(UP, 8)}/B{s(UP, 10)}/{s(A62, 24)}",
        [
            "alertmanager -> #alerts-prod webhook: {v}",
            "support digest posts to {v} every morning at 9",
            "SLACK_WEBHOOK={v}",
        ],
    )
    add(
        S,
        "stripe_live_secret_key",
        lambda: "sk_live_" + s(A62, 99),
        [
            "prod stripe secret (restricted keys didn't cover refunds): {v}",
            "STRIPE_SECRET_KEY={v}\nSTRIPE_API_VERSION=2024-06-20",
            "{who} ran the refund backfill with {v} from his laptop, see {tkt}",
        ],
    )
    add(
        S,
        "stripe_restricted_key",
        lambda: "rk_live_" + s(A62, 99),
        [
            "finance dashboard uses a restricted key (read charges/payouts): {v}",
            "rk for the metabase stripe connector -> {v}",
        ],
    )
    add(
        S,
        "stripe_webhook_secret",
        lambda: "whsec_" + s(A62, 32),
        [
            "endpoint signing secret for /webhooks/stripe (prod): {v}",
            "if signature verification fails after redeploy, STRIPE_WEBHOOK_SECRET should be {v}",
            "stripe listen printed: Ready! Your webhook signing secret is {v} (^C to quit) -- this is the prod-forwarding one",
        ],
    )
    add(
        S,
        "twilio_auth_token",
        lambda: s(HEX, 32),
        [
            "twilio: account AC{sid} auth token {v}",
            "TWILIO_AUTH_TOKEN={v} (sms 2fa sender, main account)",
            "SMS provider creds for support escalation tool — sid in config, auth token is {v}",
        ],
    )
    for row in rows[-3:]:
        row["text"] = row["text"].replace("{sid}", s(HEX, 32))
    add(
        S,
        "sendgrid_api_key",
        lambda: "SG." + s(A62 + "-_", 22) + "." + s(A62 + "-_", 43),
        [
            "transactional email key (full access, oops): {v}",
            "SENDGRID_API_KEY={v}",
            "password-reset emails go through sendgrid; key: {v}. {who} to scope it down ({tkt})",
        ],
    )
    add(
        S,
        "openai_api_key",
        lambda: "sk-proj-" + s(A62 + "-_", 48) + "T3BlbkFJ" + s(A62 + "-_", 48),
        [
            "support-summarizer uses OPENAI_API_KEY={v}",
            "OpenAI key for the ticket triage experiment: {v} (billing on the data team card)",
        ],
    )
    add(
        S,
        "anthropic_api_key",
        lambda: "sk-ant-api03-" + s(A62 + "-_", 93) + "AA",
        [
            "ANTHROPIC_API_KEY={v}",
            "Notiz: Schlüssel für den Eval-Runner, bitte nicht teilen: {v}",
            "agent eval harness key, team workspace: {v}",
            "{who}: pasted my personal anthropic key in the notebook env for now -> {v}",
        ],
    )
    add(
        S,
        "google_oauth_client_secret",
        lambda: "GOCSPX-" + s(A62 + "-_", 28),
        [
            "Google SSO for admin panel: client secret {v}",
            "GOOGLE_CLIENT_SECRET={v}\nGOOGLE_REDIRECT_URI=https://admin.acme.io/auth/callback",
        ],
    )
    add(
        S,
        "gcp_service_account_private_key",
        lambda: pem("PRIVATE KEY", 4).replace("\n", "\\n"),
        [
            '{"type": "service_account", "project_id": "acme-analytics", "private_key_id": "'
            + "PKID"
            + '", "private_key": "{v}", "client_email": "dbt-runner@acme-analytics.iam.gserviceaccount.com"}',
            'bq loader key (pasted from the json): "private_key": "{v}"',
        ],
    )
    for row in rows[-2:]:
        row["text"] = row["text"].replace("PKID", s(HEX, 40))
    add(
        S,
        "rsa_private_key_pem",
        lambda: pem("RSA PRIVATE KEY", 4),
        [
            "deploy key for the infra repo (saved here because the vault was down):\n{v}",
            "SAML signing key for the IdP integration:\n{v}",
        ],
    )
    add(
        S,
        "openssh_private_key",
        lambda: pem("OPENSSH PRIVATE KEY", 4),
        [
            "bastion jump key (ec2-user@{host}):\n{v}",
            "~/.ssh/id_ed25519 from the old ci box, still authorized on the db hosts\n{v}",
        ],
    )
    add(
        S,
        "ec_private_key_pem",
        lambda: pem("EC PRIVATE KEY", 2),
        [
            "Apple push (APNs) auth key p8, team id in notes:\n{v}",
            "ES256 key that signs our mobile session JWTs:\n{v}",
        ],
    )
    add(
        S,
        "postgres_url_with_password",
        lambda: pw(),
        [
            "DATABASE_URL=postgres://app_rw:{v}@pg-primary.internal:5432/acme",
            "heroku config:get DATABASE_URL -a acme-api\npostgres://u8k2hd0q:{v}@ec2-34-250-11-8.eu-west-1.compute.amazonaws.com:5432/d9f3k",
            "read replica for analysts: postgresql://analyst:{v}@pg-replica-1.acme.internal/warehouse?sslmode=require",
            "psql 'host=pg-primary.internal user=migrator password={v} dbname=acme'",
        ],
    )
    add(
        S,
        "mongodb_srv_with_password",
        lambda: s(A62, 16),
        [
            "MONGO_URI=mongodb+srv://events-writer:{v}@cluster0.x7kq2.mongodb.net/events?retryWrites=true",
            "legacy audit log lives in atlas: mongodb+srv://readonly:{v}@audit.abcde.mongodb.net/",
        ],
    )
    add(
        S,
        "redis_url_with_password",
        lambda: s(A62, 32),
        [
            "REDIS_URL=rediss://default:{v}@redis-prod.acme.internal:6380/0",
            "sidekiq points at redis://:{v}@10.0.4.12:6379/2 on {host}",
        ],
    )
    add(
        S,
        "amqp_url_with_password",
        lambda: pw(),
        [
            "rabbit: amqps://orders:{v}@mq.acme.internal:5671/prod",
            "CELERY_BROKER_URL=amqp://celery:{v}@rabbitmq:5672//",
        ],
    )
    add(
        S,
        "https_basic_auth_url",
        lambda: pw(),
        [
            "staging is behind basic auth: https://qa:{v}@staging.acme.io",
            "pip index for internal wheels: https://pypi-ro:{v}@pkgs.acme.internal/simple/",
            "grafana (old, pre-SSO): https://admin:{v}@grafana.ops.acme.io",
        ],
    )
    add(
        S,
        "env_db_password",
        lambda: pw(),
        [
            "DB_HOST=pg-primary.internal\nDB_USER=app\nDB_PASSWORD={v}",
            "POSTGRES_PASSWORD={v}  # prod, same as in the k8s secret",
            "MYSQL_ROOT_PASSWORD='{v}' on the old wordpress box (marketing site)",
        ],
    )
    add(
        S,
        "prose_password",
        lambda: pw(),
        [
            "the root password for {host} is {v} — please don't change it without telling {who}",
            "Admin login for the Zendesk sandbox: support-admin@acme.io / {v}",
            "{who} asked for the jenkins admin pw again. it's {v}",
            "metabase admin -> user: data@acme.io pass: {v}",
        ],
    )
    add(
        S,
        "npm_token",
        lambda: "npm_" + s(A62, 36),
        [
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v} (publish rights on @acme/ui-kit)",
        ],
    )
    add(
        S,
        "pypi_token",
        lambda: "pypi-AgEIcHlwaS5vcmc" + s(B64U, 60),
        [
            "twine upload -u __token__ -p {v} dist/*",
            "pypi token scoped to acme-sdk: {v}",
        ],
    )
    add(
        S,
        "dockerhub_pat",
        lambda: "dckr_pat_" + s(A62 + "-_", 27),
        [
            "docker login -u acmeci -p {v}",
            "Docker Hub PAT for pulling private base images in CI: {v}",
        ],
    )
    add(
        S,
        "datadog_api_key",
        lambda: s(HEX, 32),
        [
            "DD_API_KEY={v}\nDD_SITE=datadoghq.eu",
            "- datadog: api key {v}\n- site: EU\n- owner: {who}",
            "datadog agent on {host} installed with api key {v}",
            "helm upgrade datadog datadog/datadog --set datadog.apiKey={v}",
        ],
    )
    add(
        S,
        "azure_storage_connection_string",
        lambda: s(B64, 86) + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=acmeexports;AccountKey={v};EndpointSuffix=core.windows.net",
            "blob for the customer csv drops -> AccountKey={v} (account acmedrops)",
        ],
    )
    add(
        S,
        "azure_client_secret",
        lambda: s(A62, 3) + str(r.randint(0, 9)) + "Q~" + s(A62 + "_-.~", 34),
        [
            "AZURE_CLIENT_SECRET={v}  # app reg 'acme-sso-bridge'",
            "entra app secret for the SCIM sync (expires {date}): {v}",
        ],
    )
    add(
        S,
        "shopify_access_token",
        lambda: "shpat_" + s(HEX, 32),
        [
            "shopify admin api token for the merch store: {v}",
            "X-Shopify-Access-Token: {v}",
        ],
    )
    add(
        S,
        "mailgun_api_key",
        lambda: "key-" + s(HEX, 32),
        [
            "mailgun (old EU domain): api:{v}",
            "MAILGUN_API_KEY={v}",
        ],
    )
    add(
        S,
        "telegram_bot_token",
        lambda: f"{r.randint(10**9, 7 * 10**9)}:AA{s(A62 + '_-', 33)}",
        [
            "on-call telegram bot for the ops chat: {v}",
            "curl https://api.telegram.org/bot{v}/getUpdates",
        ],
    )
    add(
        S,
        "vault_token",
        lambda: "hvs." + s(A62, 24),
        [
            "VAULT_TOKEN={v} (root token from the unseal ceremony, needs to be revoked)",
            "vault login {v}",
            "{who}'s periodic token for the db-rotator: {v}",
        ],
    )
    add(
        S,
        "terraform_cloud_token",
        lambda: s(A62, 14) + ".atlasv1." + s(A62, 67),
        [
            'credentials "app.terraform.io" {\n  token = "{v}"\n}',
            "TFC team token (infra-admins): {v}",
        ],
    )
    add(
        S,
        "digitalocean_token",
        lambda: "dop_v1_" + s(HEX, 64),
        [
            "doctl auth init -t {v}",
            "DO token for the status page droplet: {v}",
        ],
    )
    add(
        S,
        "linear_api_key",
        lambda: "lin_api_" + s(A62, 40),
        [
            "LINEAR_API_KEY={v} — used by the support->eng escalation zap",
            "personal linear key for the sprint report script: {v}",
        ],
    )
    add(
        S,
        "notion_token",
        lambda: "ntn_" + s(A62, 46),
        [
            "notion integration 'handbook-sync' secret: {v}",
            "NOTION_TOKEN={v}",
        ],
    )
    add(
        S,
        "huggingface_token",
        lambda: "hf_" + s(A62, 34),
        [
            "HF_TOKEN={v} (write, org acme-ml)",
            "huggingface-cli login --token {v}",
        ],
    )
    add(
        S,
        "newrelic_user_key",
        lambda: "NRAK-" + s(UP, 27),
        [
            "new relic user key for the terraform provider: {v}",
            "NEW_RELIC_API_KEY={v}",
        ],
    )
    add(
        S,
        "session_cookie",
        lambda: s(A62 + "-_", 48),
        [
            "to reproduce {tkt} as the customer I used their admin session: Cookie: _acme_session={v}",
            "curl -b 'sessionid={v}' https://admin.acme.io/api/accounts/8812/export",
            "support impersonation cookie (valid till logout): acme_sid={v}",
        ],
    )
    add(
        S,
        "django_secret_key",
        lambda: s("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)", 50),
        [
            "SECRET_KEY = '{v}'  # prod settings, do not commit",
            "django SECRET_KEY for the admin app (prod): {v}",
        ],
    )
    add(
        S,
        "rails_secret_key_base",
        lambda: s(HEX, 128),
        [
            "SECRET_KEY_BASE={v}",
            "rails secret_key_base (legacy billing app, prod): {v}",
        ],
    )
    add(
        S,
        "jwt_hs256_signing_secret",
        lambda: s(A62, 48),
        [
            "JWT_SECRET={v}  # HS256, shared by api + websocket gateway",
            "the gateway signs access tokens with HMAC secret {v}; rotate together with api ({tkt})",
            "auth:\n  jwt:\n    algorithm: HS256\n    secret: {v}",
        ],
    )
    add(
        S,
        "github_webhook_secret",
        lambda: s(HEX, 40),
        [
            "GitHub webhook secret for the deploy hook: {v}",
            "X-Hub-Signature-256 check uses GITHUB_WEBHOOK_SECRET={v}",
        ],
    )
    add(
        S,
        "totp_seed_uri",
        lambda: s(B32, 32),
        [
            "shared 2FA for the AWS root account (ops only): otpauth://totp/AWS:root@acme.io?secret={v}&issuer=Amazon",
            "TOTP secret for the apple developer account: {v} (add to your authenticator)",
        ],
    )
    add(
        S,
        "kubeconfig_bearer_token",
        lambda: jwt(
            {
                "iss": "kubernetes/serviceaccount",
                "kubernetes.io/serviceaccount/namespace": "ci",
                "sub": "system:serviceaccount:ci:deployer",
            },
            "RS256",
        ),
        [
            "users:\n- name: ci-deployer\n  user:\n    token: {v}",
            "kubectl --token={v} --server=https://k8s-prod.acme.internal:6443 get pods -n payments",
        ],
    )
    add(
        S,
        "k8s_secret_manifest_data",
        lambda: base64.b64encode(pw().encode()).decode(),
        [
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pg-credentials\ndata:\n  username: YXBw\n  password: {v}",
            "kubectl get secret stripe -o yaml | grep api-key\n  api-key: {v}",
        ],
    )
    add(
        S,
        "wifi_psk",
        lambda: pw(),
        [
            "office wifi (AcmeHQ-Staff) password: {v}",
            "guest network changed on {date}, staff SSID WPA2 key is {v}",
        ],
    )
    add(
        S,
        "smtp_password",
        lambda: s(A62, 20),
        [
            "SMTP_HOST=smtp.office365.com\nSMTP_USER=noreply@acme.io\nSMTP_PASS={v}",
            "noreply mailbox app password: {v}",
        ],
    )
    add(
        S,
        "algolia_admin_key",
        lambda: s(HEX, 32),
        [
            "algolia ADMIN key (indexing only, never ship to browser!): {v}",
            "ALGOLIA_APP_ID=QX3K7ZP1ML\nALGOLIA_ADMIN_API_KEY={v}",
        ],
    )
    add(
        S,
        "mapbox_secret_token",
        lambda: "sk.eyJ1IjoiYWNtZSIsImEiOiJ" + s(A62, 20) + "." + s(A62 + "-_", 22),
        [
            "mapbox SECRET token (styles:write, uploads): {v}",
            "MAPBOX_SECRET_TOKEN={v}",
        ],
    )
    add(
        S,
        "supabase_service_role_key",
        lambda: jwt(
            {
                "iss": "supabase",
                "ref": s("abcdefghijklmnopqrst", 20),
                "role": "service_role",
                "iat": 1714000000,
                "exp": 2029576000,
            }
        ),
        [
            "SUPABASE_SERVICE_ROLE_KEY={v}",
            "service_role key (bypasses RLS) for the beta waitlist project: {v}",
        ],
    )
    add(
        S,
        "grafana_sa_token",
        lambda: "glsa_" + s(A62, 32) + "_" + s(HEX, 8),
        [
            "grafana service account token for the dashboard-as-code job: {v}",
            "GRAFANA_TOKEN={v}",
        ],
    )
    add(
        S,
        "postman_api_key",
        lambda: "PMAK-" + s(HEX, 24) + "-" + s(HEX, 34),
        [
            "postman api key to sync the collection from CI: {v}",
            "POSTMAN_API_KEY={v}",
        ],
    )
    add(
        S,
        "mfa_recovery_codes",
        lambda: " ".join(f"{s(LOWNUM, 5)}-{s(LOWNUM, 5)}" for _ in range(6)),
        [
            "backup codes for the shared ops google account: {v}",
            "GitHub org owner recovery codes (break-glass):\n{v}",
        ],
    )
    add(
        S,
        "password_reset_link",
        lambda: s(B64U, 43),
        [
            "customer couldn't get the email so I sent the reset link directly: https://app.acme.io/reset?token={v}",
            "admin invite link for the new CFO (valid 72h): https://admin.acme.io/invite/accept?t={v}",
        ],
    )
    add(
        S,
        "s3_presigned_url",
        lambda: s(HEX, 64),
        [
            "presigned link to the full customer export, valid 7 days: https://acme-exports.s3.eu-west-1.amazonaws.com/full.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA"
            + "X2K7QW3ZLMN4PRT8"
            + "%2F20261103%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Security-Token=IQoJb3JpZ2luX2VjE"
            + "Lp7y3xQ"
            + "&X-Amz-Signature={v}",
        ],
    )
    add(
        S,
        "age_secret_key",
        lambda: "AGE-SECRET-KEY-1" + s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
        [
            "# sops age key for the infra repo\n# public key: age1"
            + "qv3kx9l7m2n8p4r6s0t5u1w9y3z7a2c4e6g8j0k2m4"
            + "\n{v}",
            "SOPS_AGE_KEY={v}",
        ],
    )
    add(
        S,
        "wireguard_private_key",
        lambda: s(B64, 42) + "A=",
        [
            "[Interface]\nPrivateKey = {v}\nAddress = 10.66.0.14/32\nDNS = 10.66.0.1",
            "wg0 private key on {host}: {v}",
        ],
    )
    add(
        S,
        "field_encryption_key",
        lambda: s(HEX, 64),
        [
            "PII column encryption key (AES-256-GCM, prod): {v}",
            "ENCRYPTION_KEY={v}  # if you lose this, the ssn column is gone",
            "lockbox master key for the rails app: {v}",
        ],
    )
    add(
        S,
        "bearer_token_in_curl",
        lambda: s(A62, 40),
        [
            "curl -H 'Authorization: Bearer {v}' https://api.acme.io/v2/admin/users?limit=500",
            "internal admin api token (superuser): {v}",
            "http GET https://partner-api.example-logistics.com/v1/shipments 'X-Api-Key:{v}'",
        ],
    )
    add(
        S,
        "okta_api_token",
        lambda: "00" + s(A62 + "-_", 40),
        [
            "okta SSWS token for user provisioning: Authorization: SSWS {v}",
            "OKTA_API_TOKEN={v}",
        ],
    )
    add(
        S,
        "recaptcha_secret_key",
        lambda: "6L" + s(A62 + "-_", 38),
        [
            "recaptcha SECRET key (server side verify): {v}",
            "RECAPTCHA_SECRET={v}",
        ],
    )
    add(
        S,
        "sentry_auth_token",
        lambda: "sntrys_" + s(B64U, 120),
        [
            "sentry-cli auth for sourcemap uploads: SENTRY_AUTH_TOKEN={v}",
            "org auth token for release creation: {v}",
        ],
    )
    add(
        S,
        "cloudflare_api_token",
        lambda: s(A62 + "_-", 40),
        [
            "CLOUDFLARE_API_TOKEN={v}  (zone:dns:edit on acme.io)",
            "cf token for cert-manager dns01: {v}",
        ],
    )

    add(
        S,
        "firebase_fcm_server_key",
        lambda: "AAAA" + s(A62 + "-_", 7) + ":APA91b" + s(A62 + "-_", 134),
        [
            "legacy FCM server key (push to android, still used by the old notifier): {v}",
            "FCM_SERVER_KEY={v}",
        ],
    )
    add(
        S,
        "square_access_token",
        lambda: "EAAA" + s(A62 + "-_", 60),
        [
            "square prod access token for the popup store POS sync: {v}",
            "SQUARE_ACCESS_TOKEN={v}  # production, not sandbox",
        ],
    )
    add(
        S,
        "discord_bot_token",
        lambda: "MT" + s(A62, 24) + "." + s(A62 + "-_", 6) + "." + s(A62 + "-_", 38),
        [
            "community discord moderation bot token: {v}",
            "DISCORD_TOKEN={v}",
        ],
    )
    add(
        S,
        "atlassian_api_token",
        lambda: "ATATT3xFfGF0" + s(A62 + "-_", 171) + "=" + s(HEX.upper(), 8),
        [
            "jira api token for the sprint-report script (user {who}@acme.io): {v}",
            "JIRA_API_TOKEN={v}",
        ],
    )
    add(
        S,
        "figma_pat",
        lambda: "figd_" + s(A62 + "-_", 40),
        [
            "figma personal access token for the design-token export job: {v}",
            "FIGMA_TOKEN={v}",
        ],
    )
    add(
        S,
        "doppler_service_token",
        lambda: "dp.st.prd." + s(A62, 40),
        [
            "doppler service token for the worker config (prd): {v}",
            "DOPPLER_TOKEN={v}",
        ],
    )
    add(
        S,
        "onepassword_account_secret_key",
        lambda: (
            "A3-"
            + s(UP, 6)
            + "-"
            + s(UP, 6)
            + "-"
            + s(UP, 5)
            + "-"
            + s(UP, 5)
            + "-"
            + s(UP, 5)
            + "-"
            + s(UP, 5)
        ),
        [
            "1Password account secret key for the shared ops account (emergency kit): {v}, master password is in the safe",
        ],
    )
    add(
        S,
        "snowflake_password",
        lambda: pw(),
        [
            "snowflake:\n  account: acme-eu1\n  user: DBT_PROD\n  password: {v}\n  role: TRANSFORMER",
            "$ snowsql -a acme-eu1 -u LOADER\nPassword: {v}\n* SnowSQL * v1.2.32",
        ],
    )
    add(
        S,
        "paypal_client_secret",
        lambda: "E" + s(A62 + "-_", 79),
        [
            "PayPal live REST app 'acme-checkout': client secret {v}",
        ],
    )

    # ------------------------------------------------------------------ benign
    add(
        B,
        "git_commit_sha",
        lambda: s(HEX, 40),
        [
            "regression introduced in {v}, reverted in the next deploy ({tkt})",
            "Merge pull request #{n} from acme/fix-token-refresh\ncommit {v}\nAuthor: {who}",
            "prod is pinned to {v} until the migration lands",
            "git bisect says first bad commit is {v}",
        ],
    )
    add(
        B,
        "docker_image_digest",
        lambda: "sha256:" + s(HEX, 64),
        [
            "rollback target: ghcr.io/acme/api@{v}",
            "base image python:3.12-slim digest {v} — pin this, the tag moved",
            "docker pull registry.acme.internal/worker@{v}",
        ],
    )
    add(
        B,
        "file_checksum",
        lambda: s(HEX, 64),
        [
            "$ sha256sum terraform_1.9.5_linux_amd64.zip\n{v}  terraform_1.9.5_linux_amd64.zip",
            "export of {date} verified, sha256 {v}",
            "checksum of the vendor's SDK tarball (matches their release page): {v}",
            "dbt manifest hash {v} unchanged, skipping docs rebuild",
        ],
    )
    add(
        B,
        "request_uuid",
        uuid,
        [
            "customer reported 500 at 14:02, request id {v}",
            "X-Request-Id: {v} — see the trace in datadog",
            "sentry event {v}: KeyError: 'api_key' in settings loader",
            "support ticket {tkt}: account_id={v}, plan=pro, churn risk high",
        ],
    )
    add(
        B,
        "trace_id",
        lambda: s(HEX, 32),
        [
            "slow checkout trace: trace_id={v} span_id=" + "9f2c1a7b3e4d5f60",
            "otel trace {v} shows 3s in the fraud-check call",
            "traceparent: 00-{v}-b7ad6b7169203331-01 (the one from the failing webhook)",
        ],
    )
    add(
        B,
        "stripe_publishable_key",
        lambda: "pk_live_" + s(A62, 99),
        [
            "checkout page uses the publishable key {v} (it's in the JS bundle anyway)",
            "NEXT_PUBLIC_STRIPE_KEY={v}",
            "Stripe.js init: Stripe('{v}') — fine to be public, the secret key never leaves the server",
        ],
    )
    add(
        B,
        "stripe_object_id",
        lambda: "cus_" + s(A62, 14),
        [
            "refund issued for {v}, charge ch_"
            + "3PqL8xK2eZvKm1aB0Wc4nRtY"
            + " (double billing, {tkt})",
            "enterprise customer {v} moved to price_" + "1OxK9sLm2Qp7RtZv3Yw8Nh4d",
            "dispute on {v} — evidence due {date}",
        ],
    )
    add(
        B,
        "aws_arn",
        lambda: (
            f"arn:aws:iam::{r.randint(10**11, 10**12 - 1)}:role/{r.choice(['ci-deployer', 'data-unload', 'eks-node'])}"
        ),
        [
            "CI assumes {v} via OIDC, no static keys anymore",
            '$ aws sts get-caller-identity\n{\n    "UserId": "AROA3XFRBF23EXAMPLE:gha",\n    "Arn": "{v}"\n}',
            "trust policy updated for {v} ({who})",
        ],
    )
    add(
        B,
        "aws_documented_example_key",
        lambda: "AKIAIOSFODNN7EXAMPLE",
        [
            "onboarding doc snippet: aws_access_key_id = {v}, aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (AWS's own docs example, replace with yours)",
            "the localstack tests use the AWS docs example key {v} — localstack accepts anything",
        ],
    )
    add(
        B,
        "ssh_public_key",
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
        [
            "add to authorized_keys on {host}: {v} {who}@laptop",
            "deploy key (public half, read-only) registered on the repo: {v}",
            "$ cat ~/.ssh/id_ed25519.pub\n{v} ci@acme",
            "new hire {who} public key for bastion: {v}",
        ],
    )
    add(
        B,
        "pgp_public_key_block",
        lambda: pem("PGP PUBLIC KEY BLOCK", 3),
        [
            "security@acme.io public key for researchers (published on /.well-known):\n{v}",
        ],
    )
    add(
        B,
        "x509_certificate",
        lambda: pem("CERTIFICATE", 4),
        [
            "intermediate CA cert the partner asked us to trust:\n{v}",
            "SAML IdP signing certificate (public, from the metadata xml):\n{v}",
        ],
    )
    add(
        B,
        "env_placeholder",
        lambda: r.choice(
            [
                "${STRIPE_SECRET_KEY}",
                "${DB_PASSWORD}",
                "$(cat /run/secrets/api_token)",
                "${{ env.SENTRY_AUTH_TOKEN }}",
            ]
        ),
        [
            "DATABASE_PASSWORD={v} is injected at boot by the entrypoint",
            "docker-compose.prod.yml: environment: - API_TOKEN={v}",
            "remember: the helm values file should only ever say password: {v}",
        ],
    )
    add(
        B,
        "angle_placeholder",
        lambda: r.choice(
            ["<your-github-token>", "<PASTE_API_KEY_HERE>", "<redis-password>", "YOUR_SENDGRID_KEY"]
        ),
        [
            "README for the cli: export ACME_TOKEN={v} then run acme login",
            "template for new services .env.example:\nSECRET_KEY={v}\nDEBUG=false",
            "curl -u admin:{v} https://grafana.ops.acme.io/api/health  (fill in from 1Password)",
        ],
    )
    add(
        B,
        "xxx_placeholder",
        lambda: r.choice(
            [
                "sk_live_" + "x" * 24,
                "ghp_" + "X" * 36,
                "xoxb-0000000000-0000000000000-" + "x" * 24,
                "AKIA" + "X" * 16,
            ]
        ),
        [
            "docs example, do not use: {v}",
            "the lint rule should catch strings like {v} in PRs (that one is a dummy)",
            "mocked in unit tests as {v}",
        ],
    )
    add(
        B,
        "vault_path_reference",
        lambda: (
            f"secret/data/{r.choice(['payments', 'api', 'warehouse'])}/{r.choice(['stripe', 'postgres', 'jwt'])}"
        ),
        [
            "creds moved to vault: {v} (field: value). {who} has the policy",
            "vault kv get -field=password {v}",
            "- where: {v}\n- who can read: platform-admins\n- rotation: quarterly",
            "the app reads {v} at startup via the agent injector",
        ],
    )
    add(
        B,
        "onepassword_reference",
        lambda: (
            f"op://Engineering/{r.choice(['Prod Postgres', 'Stripe Live', 'Datadog'])}/{r.choice(['password', 'credential', 'api key'])}"
        ),
        [
            'use `op read "{v}"` — don\'t paste the value into chat',
            "the deploy script resolves {v} with op inject",
        ],
    )
    add(
        B,
        "secrets_manager_arn",
        lambda: (
            f"arn:aws:secretsmanager:eu-west-1:{r.randint(10**11, 10**12 - 1)}:secret:prod/api/jwt-{s(A62, 6)}"
        ),
        [
            "JWT secret lives in {v}, rotation lambda every 30 days",
            "ECS task def valueFrom: {v}",
        ],
    )
    add(
        B,
        "ci_secret_expression",
        lambda: (
            "${{ secrets."
            + r.choice(["NPM_TOKEN", "AWS_DEPLOY_ROLE", "SLACK_WEBHOOK", "PYPI_API_TOKEN"])
            + " }}"
        ),
        [
            "workflow step: env: TOKEN: {v}",
            "release.yml publishes with {v} — ask an org admin to update it",
            "if the job says 'bad credentials', {v} expired; regenerate and update the repo secret",
        ],
    )
    add(
        B,
        "redacted_token",
        lambda: r.choice(
            [
                "ghp_" + "*" * 32 + s(A62, 4),
                "sk_live_…" + s(A62, 4),
                "xoxb-****-****-" + "*" * 20,
                "AKIA************" + s(UP, 4),
            ]
        ),
        [
            "the leaked value in the log was {v} (redacted by the log pipeline), rotated anyway",
            "dashboard shows key {v}, created {date}, last used yesterday",
            "rotation done. old: {v} (deleted) / new: stored in vault only",
            "audit: token {v} used from an unknown IP, revoked by {who}",
        ],
    )
    add(
        B,
        "revoked_token_stated",
        lambda: "ghp_" + s(A62, 36),
        [
            "INCIDENT {tkt} postmortem: {v} was committed to a public gist; revoked within 4 minutes, GitHub confirms it's dead (401 on every call since). kept here only for the grep in the log archive",
        ],
    )
    add(
        B,
        "password_policy_talk",
        lambda: "",
        [
            "password policy for customers: min 12 chars, checked against HIBP, no composition rules",
            "we don't store passwords for SSO users at all; the password column is nullable since {date}",
            "{who}: reset-password flow now expires tokens after 30 min, and tokens are single use",
        ],
    )
    add(
        B,
        "rotation_note_no_value",
        lambda: "",
        [
            "rotated the prod postgres password on {date}; new one is in 1Password under 'pg-primary app_rw'",
            "TODO {tkt}: stripe secret key was in the old heroku config, rotate + move to secrets manager",
            "- datadog api key rotated\n- sendgrid key rotated\n- slack webhook regenerated\nall updated in vault, old ones revoked",
            "never paste tokens in this memory. ask {who} for access to the vault instead",
        ],
    )
    add(
        B,
        "lexer_token",
        lambda: "TOKEN_" + r.choice(["IDENT", "STRING", "LBRACE"]),
        [
            "query DSL parser: unexpected {v} at col {n} when the filter has a trailing comma",
            "tokenizer emits {v} for quoted segments; fixed the off-by-one in {tkt}",
        ],
    )
    add(
        B,
        "llm_token_count",
        lambda: f"{r.randint(2000, 190000)} tokens",
        [
            "support summarizer prompt is {v} with the full thread; truncate to last 20 messages",
            "eval run cost: input {v}, output ~1.2k per ticket",
        ],
    )
    add(
        B,
        "design_token",
        lambda: (
            "--color-"
            + r.choice(["primary", "danger", "surface"])
            + "-"
            + str(r.choice([100, 500, 900]))
        ),
        [
            "design tokens: {v} maps to #" + "1f6feb" + " in light theme",
            "frontend: replace hardcoded hex with token {v} everywhere ({tkt})",
        ],
    )
    add(
        B,
        "csrf_field_name",
        lambda: r.choice(["csrfmiddlewaretoken", "authenticity_token", "X-CSRF-Token"]),
        [
            "form posts fail on safari because {v} is missing from the multipart body",
            "the login form needs the {v} hidden field; regression from the form refactor",
        ],
    )
    add(
        B,
        "db_primary_key",
        lambda: str(r.randint(10**6, 10**9)),
        [
            "primary key for orders is a bigint now; order {v} was the last int id",
            "ALTER TABLE api_keys ADD PRIMARY KEY (id); -- {v} rows, took 40s on replica",
            "the composite key (tenant_id, external_key) has dupes for tenant {v}",
        ],
    )
    add(
        B,
        "redis_key_name",
        lambda: f"session:{s(HEX, 12)}",
        [
            "redis key pattern {v}* has no TTL — that's the memory leak",
            "$ redis-cli --scan --pattern 'session:*' | head -3\n{v}\nsession:0a4c9e1f7b22\nsession:77d0e5c3a918",
            "DEL {v} fixed the stuck login for one user",
        ],
    )
    add(
        B,
        "i18n_key",
        lambda: r.choice(
            [
                "auth.password.forgot_link",
                "settings.api_keys.create_button",
                "billing.secret_question.label",
            ]
        ),
        [
            "missing translation for {v} in de-DE",
            "copy change: {v} should read 'Create key' not 'Generate secret'",
        ],
    )
    add(
        B,
        "bcrypt_hash",
        lambda: "$2b$12$" + s(A62 + "./", 53),
        [
            "users.password_hash for the test account looks like {v} — cost 12 is fine",
            "login bug {tkt}: hash {v} was truncated to 59 chars by the varchar(59) column",
            "seed data row: ('qa@acme.io', '{v}')",
        ],
    )
    add(
        B,
        "argon2_hash",
        lambda: (
            "$argon2id$v=19$m=65536,t=3,p=4$"
            + s(B64.replace("+", "").replace("/", ""), 22)
            + "$"
            + s(A62, 43)
        ),
        [
            "migrating hashes to argon2id, new format: {v}",
        ],
    )
    add(
        B,
        "sri_integrity_hash",
        lambda: "sha384-" + s(B64, 64),
        [
            '<script src="https://cdn.acme.io/widget.js" integrity="{v}" crossorigin="anonymous"></script>',
            "widget v3.2 SRI: {v}",
        ],
    )
    add(
        B,
        "idempotency_key",
        lambda: uuid(),
        [
            "retry storm used the same Idempotency-Key {v}, so stripe deduped it — no double charge",
            "payouts job sets idempotency key {v} per batch",
        ],
    )
    add(
        B,
        "launchdarkly_client_side_id",
        lambda: s(HEX, 24),
        [
            "LD client-side id (safe in the browser): {v}",
            "feature flags SDK init: LDClient.initialize('{v}', user) — client-side id, not the sdk key",
            "NEXT_PUBLIC_LD_CLIENT_ID={v}",
        ],
    )
    add(
        B,
        "recaptcha_site_key",
        lambda: "6L" + s(A62 + "-_", 38),
        [
            "recaptcha SITE key (public, in the signup html): {v}",
            'data-sitekey="{v}" on the contact form',
        ],
    )
    add(
        B,
        "algolia_search_only_key",
        lambda: s(HEX, 32),
        [
            "algolia search-only api key for the docs search box (public by design): {v}",
            "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY={v}",
        ],
    )
    add(
        B,
        "mapbox_public_token",
        lambda: "pk.eyJ1IjoiYWNtZSIsImEiOiJ" + s(A62, 20) + "." + s(A62 + "-_", 22),
        [
            "mapbox public token for the store locator (URL-restricted to acme.io): {v}",
            "VITE_MAPBOX_TOKEN={v}",
        ],
    )
    add(
        B,
        "supabase_anon_key",
        lambda: jwt(
            {
                "iss": "supabase",
                "ref": s("abcdefghijklmnopqrst", 20),
                "role": "anon",
                "iat": 1714000000,
                "exp": 2029576000,
            }
        ),
        [
            "supabase anon key (public, RLS protects the tables): {v}",
            "NEXT_PUBLIC_SUPABASE_ANON_KEY={v}",
        ],
    )
    add(
        B,
        "jwt_io_example",
        lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        [
            "auth middleware unit test uses the jwt.io sample token {v}",
        ],
    )
    add(
        B,
        "google_oauth_client_id",
        lambda: f"{r.randint(10**11, 10**12)}-{s(LOWNUM, 32)}.apps.googleusercontent.com",
        [
            "GOOGLE_CLIENT_ID={v}",
            "sign-in button client id: {v} (secret is in vault, not here)",
        ],
    )
    add(
        B,
        "github_app_ids",
        lambda: str(r.randint(100000, 999999)),
        [
            "acme-ci github app: app id {v}, installation id "
            + str(48120077)
            + "; private key in vault",
            "GITHUB_APP_ID={v}",
            "webhook payload: installation.id=" + "52230019" + ", app_id={v}, action=created",
        ],
    )
    add(
        B,
        "slack_object_ids",
        lambda: "C0" + s(UP, 9),
        [
            "post release notes to channel {v} (team T0" + "4K2M9QX7" + ")",
            "conversations.history for {v} returned 0 messages — the bot lacks channels:history scope",
            "the bot needs to be invited to {v} before it can post",
        ],
    )
    add(
        B,
        "k8s_secret_key_ref",
        lambda: "pg-credentials",
        [
            "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: {v}\n      key: password",
            "the api pod crashloops because secret {v} has no key 'password' in the new namespace",
        ],
    )
    add(
        B,
        "terraform_var_reference",
        lambda: "var." + r.choice(["db_password", "datadog_api_key", "stripe_secret"]),
        [
            'resource "aws_db_instance" "main" {\n  password = {v}\n}',
            "terraform: {v} is marked sensitive = true, value comes from TF_VAR_ in CI",
        ],
    )
    add(
        B,
        "api_key_sha256_fingerprint",
        lambda: s(HEX, 64),
        [
            "we only store sha256(api_key); customer's key hash is {v}, prefix acme_live_" + "7Hq2",
            "api_keys table: key_hash={v}, last_used_at={date}",
        ],
    )
    add(
        B,
        "ssh_key_fingerprint",
        lambda: "SHA256:" + s(B64, 43),
        [
            "host key fingerprint for {host}: {v} — verify before accepting",
            "github.com ED25519 fingerprint should be {v}; if not, stop",
            "The authenticity of host 'bastion-stg' can't be established.\nED25519 key fingerprint is {v}.",
        ],
    )
    add(
        B,
        "gpg_key_id",
        lambda: s(UP[:6] + "0123456789", 16),
        [
            "release tags are signed with key {v} ({who})",
            '$ git verify-tag v4.12.0\ngpg: Signature made Tue 03 Nov 2026\ngpg:                using EDDSA key {v}\ngpg: Good signature from "Acme Release <release@acme.io>"',
            "gpg --recv-keys {v}",
        ],
    )
    add(
        B,
        "eth_public_address",
        lambda: "0x" + s(HEX, 40),
        [
            "crypto donations page lists the public address {v}",
        ],
    )
    add(
        B,
        "twilio_account_sid",
        lambda: "AC" + s(HEX, 32),
        [
            "twilio account sid {v} (the sid is just an id; auth token is in vault)",
            "subaccount for EU sms: {v}",
        ],
    )
    add(
        B,
        "sops_encrypted_value",
        lambda: (
            "ENC[AES256_GCM,data:"
            + s(B64, 40)
            + ",iv:"
            + s(B64, 43)
            + "=,tag:"
            + s(B64, 22)
            + "==,type:str]"
        ),
        [
            "secrets.enc.yaml:\n  stripe_key: {v}",
            "sops-encrypted db password in the repo: {v} (decrypt needs the age key)",
            "diff of secrets.enc.yaml after rotation:\n-  jwt_secret: ENC[AES256_GCM,data:old...]\n+  jwt_secret: {v}",
        ],
    )
    add(
        B,
        "ansible_vault_blob",
        lambda: "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(s(HEX, 80) for _ in range(3)),
        [
            "group_vars/prod/vault.yml is encrypted:\n{v}",
        ],
    )
    add(
        B,
        "sealed_secret_ciphertext",
        lambda: "AgB" + s(B64, 120),
        [
            "kind: SealedSecret\nspec:\n  encryptedData:\n    password: {v}",
            "sealed secrets ciphertext (only the controller can decrypt): {v}",
        ],
    )
    add(
        B,
        "kms_key_id",
        lambda: uuid(),
        [
            "S3 bucket encryption uses KMS key id {v} (alias/acme-exports)",
            "aws kms describe-key --key-id {v} -> KeyState: Enabled, KeyManager: CUSTOMER",
            "envelope encryption: data keys wrapped by kms key {v}",
        ],
    )
    add(
        B,
        "postgres_url_env_password",
        lambda: "postgres://app_rw:${PGPASSWORD}@pg-primary.internal:5432/acme",
        [
            "DATABASE_URL={v}",
            "dsn template: {v} — PGPASSWORD comes from the secret mount",
        ],
    )
    add(
        B,
        "bearer_redacted_log",
        lambda: r.choice(["[REDACTED]", "<redacted>", "***"]),
        [
            '{"ts":"{date}T10:11:02Z","level":"warn","msg":"upstream 401","headers":{"Authorization":"Bearer {v}"}}',
            "nginx log line shows Authorization: Basic {v} — scrubber is working",
        ],
    )
    add(
        B,
        "slack_doc_example_token",
        lambda: "xoxb-not-a-real-token-this-will-not-work",
        [
            "slack's own docs use {v} as the example; our test fixture copies it",
        ],
    )
    add(
        B,
        "public_s3_url",
        lambda: f"https://acme-public-assets.s3.amazonaws.com/press/{s(LOWNUM, 10)}.zip",
        [
            "press kit (public bucket, no auth): {v}",
            "status page screenshot for the postmortem: {v} (public-read, fine to share)",
            "marketing asked for the logo pack link: {v}",
        ],
    )
    add(
        B,
        "etag_header",
        lambda: '"' + s(HEX, 32) + '"',
        [
            "cache bug: CDN returns ETag: {v} for both locales",
            "If-None-Match: {v} -> 304, so the client never saw the new config",
        ],
    )
    add(
        B,
        "ulid_and_nanoid",
        lambda: s("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26),
        [
            "event ids are ULIDs now, e.g. {v}; sortable, no uuid index bloat",
            "invoice {v} stuck in 'finalizing' ({tkt})",
            "nanoid vs ulid: share links use nanoid(21), internal events use ULID like {v}",
        ],
    )
    add(
        B,
        "vapid_public_key",
        lambda: "B" + s(B64U, 86),
        [
            "web push VAPID public key (goes to the browser): {v}",
        ],
    )
    add(
        B,
        "hex_color_palette",
        lambda: " ".join("#" + s(HEX, 6) for _ in range(5)),
        [
            "brand palette from design: {v}",
        ],
    )
    add(
        B,
        "feature_flag_key",
        lambda: r.choice(
            ["new-checkout-secret-sauce", "enable-api-key-rotation-ui", "password-less-login-beta"]
        ),
        [
            "flag {v} at 25% for pro plans",
            "kill switch: set {v} to false if error rate spikes",
        ],
    )
    add(
        B,
        "music_key_and_keyboard",
        lambda: "",
        [
            "hold-music for the support line is in D minor; marketing wants a major key version",
            "keyboard shortcut: Cmd+K opens the command palette; the 'k' key conflicted with the editor",
        ],
    )
    add(
        B,
        "wireguard_public_key",
        lambda: s(B64, 42) + "E=",
        [
            "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.66.0.0/24\nEndpoint = vpn.acme.io:51820",
        ],
    )
    add(
        B,
        "base64_image_fragment",
        lambda: "iVBORw0KGgoAAAANSUhEUgAA" + s(B64, 40),
        [
            "favicon inlined as data:image/png;base64,{v}... (truncated)",
        ],
    )
    # more benign: management / support notes with key-words but no value
    add(
        B,
        "support_macro_talk",
        lambda: "",
        [
            "support macro: 'We will never ask for your password. To reset, use the link on the login page.'",
            "customer {tkt} pasted their API key in a ticket; we deleted the comment and asked them to regenerate it",
            "Q3 OKR: zero plaintext secrets in repos (gitleaks in CI), key rotation runbook for every provider",
        ],
    )
    add(
        B,
        "customer_api_key_prefix",
        lambda: "acme_live_" + s(A62, 4) + "…",
        [
            "customer says key {v} stopped working; it was rotated by their admin on {date}",
            "the UI only shows the prefix {v} after creation, full key is shown once",
        ],
    )
    add(
        B,
        "uuid_pair_ids",
        lambda: uuid(),
        [
            "datadog dashboard {v} (api latency p99)",
            "grafana folder uid {v} moved under Platform",
        ],
    )
    add(
        B,
        "heroku_app_id",
        lambda: uuid(),
        [
            "heroku app id for the legacy marketing site: {v} (app name acme-www)",
        ],
    )

    add(
        B,
        "rsa_public_key_pem",
        lambda: pem("PUBLIC KEY", 4),
        [
            "keycloak realm public key (used by services to verify tokens):\n{v}",
            "partner's public key for encrypting the SFTP drops:\n{v}",
        ],
    )
    add(
        B,
        "jwks_public_json",
        lambda: s(B64U, 86),
        [
            '{"keys":[{"kty":"RSA","kid":"2026-09","use":"sig","alg":"RS256","e":"AQAB","n":"{v}"}]}',
            "jwks endpoint returned n={v} for kid 2026-09 — matches the new signing key",
        ],
    )
    add(
        B,
        "npm_lock_integrity",
        lambda: "sha512-" + s(B64, 86) + "==",
        [
            '"node_modules/react": { "version": "18.3.1", "integrity": "{v}" }',
            "lockfile churn: integrity for lodash changed to {v}, same version — registry re-pack?",
        ],
    )
    add(
        B,
        "git_lfs_oid",
        lambda: s(HEX, 64),
        [
            "version https://git-lfs.github.com/spec/v1\noid sha256:{v}\nsize 48213344",
        ],
    )
    add(
        B,
        "detection_regex",
        lambda: r.choice(
            [
                "sk_live_[0-9a-zA-Z]{24,99}",
                "ghp_[A-Za-z0-9]{36}",
                "xox[baprs]-[0-9A-Za-z-]{10,}",
                "AKIA[0-9A-Z]{16}",
            ]
        ),
        [
            "pre-commit hook blocks anything matching {v}",
            "log scrubber regex: {v} -> replaced with [REDACTED]",
        ],
    )
    add(
        B,
        "stripe_test_card",
        lambda: "4242 4242 4242 4242",
        [
            "QA: use test card {v}, any future expiry, any CVC, on staging only",
            "3DS flow test: 4000 0027 6000 3184; happy path {v}",
        ],
    )
    add(
        B,
        "webhook_event_id",
        lambda: "evt_" + s(A62, 24),
        [
            "replayed stripe event {v} from the dashboard after the outage",
            "webhook log: 200 OK for {v} (checkout.session.completed), signature verified",
            "duplicate delivery of {v}, handler is idempotent so fine",
        ],
    )
    add(
        B,
        "cloudfront_key_pair_id",
        lambda: "K" + s(UP, 13),
        [
            "signed cookies use CloudFront public key id {v}; the private key is in secrets manager",
        ],
    )
    add(
        B,
        "password_input_html",
        lambda: 'type="password"',
        [
            '<input {v} name="password" autocomplete="current-password" required>',
            "1Password doesn't autofill because the field isn't {v} on the new signup page",
        ],
    )
    add(
        B,
        "otp_code_example",
        lambda: str(r.randint(100000, 999999)),
        [
            "SMS template: 'Your Acme code is {v}' — sample from the staging preview, codes expire in 5 min",
        ],
    )
    add(
        B,
        "coupon_and_order_ids",
        lambda: "ord_" + s(A62, 16),
        [
            "order {v} shipped twice; warehouse refunded one",
            "{who} escalated {v}: customer charged but order shows pending",
        ],
    )
    add(
        B,
        "pasted_env_names_only",
        lambda: "",
        [
            "$ env | grep -i -E 'key|token|secret' | cut -d= -f1\nSTRIPE_SECRET_KEY\nSENTRY_AUTH_TOKEN\nJWT_SECRET\nDD_API_KEY",
            "required env vars for api: DATABASE_URL, REDIS_URL, JWT_SECRET, STRIPE_SECRET_KEY, SENDGRID_API_KEY (values in vault)",
        ],
    )
    add(
        B,
        "secret_scanner_alert",
        lambda: "",
        [
            "github secret scanning alert #{n} (Stripe API key) closed as 'revoked' by {who}",
            "gitleaks in CI flagged a fake key in test fixtures; added the path to the allowlist",
        ],
    )
    add(
        B,
        "mgmt_meeting_note",
        lambda: "",
        [
            "1:1 {who}: wants to own the secrets-rotation project; key result = no long-lived keys in CI",
            "planning {date}:\n- token budget for the AI support bot: cap at $400/mo\n- key hire: data engineer\n- password manager seats: +6",
        ],
    )

    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(x, ensure_ascii=False) for x in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

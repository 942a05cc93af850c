"""Blind secrets corpus 27: security engineering, pentest findings and bug-bounty triage.

Brief: security engineers' notes, pentest findings and bug-bounty triage: credentials
found during tests (in JS bundles, git history, S3 buckets, logs, memory dumps, config
backups), session tokens captured, default passwords still set, API keys exposed in
mobile apps; written as findings, tickets and remediation notes; plus hard look-alikes
(values already redacted or truncated in the report, hashes, hypothetical examples in a
write-up, regexes and scanner rule snippets, canary/honey tokens clearly labelled as
such, public keys, CVE and finding ids).

Written blind on 2026-12-06: the author did not read the detector, its tests or any
earlier corpus.

Run:  python benchmarks/data/blind_secrets/blind_secrets_27.py out.jsonl
      (writes JSONL rows {"label", "kind", "text", "value"}; stdout without an argument)

Every value is generated from random.Random(SEED); no real credential appears here.

Kinds, secret:
  aws_key_pair_js_bundle, aws_secret_git_history, aws_session_token_log, github_pat_classic,
  github_pat_fine_grained, github_oauth_token, gitlab_pat, slack_bot_token, slack_user_token,
  slack_webhook_url, stripe_live_secret, stripe_restricted_key, stripe_webhook_secret,
  google_api_key_mobile, gcp_service_account_key, fcm_server_key, twilio_auth_token,
  sendgrid_api_key, mailgun_api_key, npm_token, pypi_token, openai_api_key,
  anthropic_api_key, huggingface_token, telegram_bot_token, discord_bot_token,
  discord_webhook_url, rsa_private_key, openssh_private_key, ec_private_key,
  postgres_uri_password, mysql_password_backup, mongodb_srv_uri, redis_url_password,
  amqp_uri_password, php_session_cookie, jsessionid_cookie, django_session_cookie,
  jwt_access_token_captured, oauth_refresh_token, basic_auth_header, default_password_set,
  ldap_bind_password, smtp_password, wifi_psk, totp_seed, bip39_mnemonic,
  eth_private_key, azure_storage_conn_string, azure_sas_token, azure_client_secret,
  digitalocean_token, heroku_api_key, datadog_api_key, cloudflare_api_token, vault_token,
  terraform_cloud_token, shopify_access_token, braintree_token,
  atlassian_api_token, okta_api_token,
  docker_config_auth, kubeconfig_token, netrc_password, jenkins_api_token,
  sentry_auth_token, mapbox_secret_token, mimikatz_cleartext, django_secret_key,
  rails_secret_key_base, jwt_hs256_signing_secret, password_in_query_log

Kinds, benign:
  aws_key_redacted, token_truncated_prefix, sha256_bundle_digest, git_commit_sha, cve_id,
  pentest_finding_id, bounty_report_id, regex_aws_rule, regex_github_rule,
  scanner_rule_yaml, canary_aws_token_labelled, honey_credential_labelled,
  ssh_public_key, pgp_public_key_block, stripe_publishable_key, mapbox_public_token,
  aws_docs_example_key, hypothetical_writeup_example, env_placeholder_ref,
  vault_path_reference, secrets_manager_arn, kms_key_id, access_key_id_only,
  twilio_account_sid, request_uuid, jwt_header_only, spa_oauth_client_id,
  password_policy_talk, rotated_vault_pointer, database_key_sense, llm_token_sense,
  csp_nonce, sri_hash, docker_image_digest, cert_fingerprint, x509_certificate,
  base64_nonsecret_json, cloudfront_distribution_id, ga_measurement_id,
  recaptcha_site_key, algolia_search_only_key, k8s_manifest_placeholder,
  masked_log_password, redacted_conn_string, remediation_no_value, aws_account_id,
  azure_tenant_id, slack_channel_ids, slack_docs_webhook_example, git_lfs_oid,
  npm_integrity_hash, cosign_public_key, age_public_key, wireguard_public_key,
  eth_address, jwk_public_key, webhook_signature_header, other_sense_secret,
  default_password_changed, env_example_placeholder, famous_example_password,
  ssh_host_fingerprint, gpg_fingerprint, cvss_vector, oast_callback_domain, ja3_hash,
  revoked_last4_only, entropy_threshold_talk, hibp_kanon_prefix, leak_scan_fingerprint,
  report_redaction_placeholder, public_bucket_object_url, oauth_state_param,
  firebase_project_config_ids, stripe_test_card, session_id_format_regex, api_key_name_label
"""

# ruff: noqa: E501  (data corpus: long literal lines are the texts themselves)
from __future__ import annotations

import base64
import json
import random
import string
import sys
import uuid

SEED = 527027

ALNUM = string.ascii_letters + string.digits
UPNUM = string.ascii_uppercase + string.digits
LOWNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

BIP39 = [
    "abandon",
    "ability",
    "able",
    "about",
    "above",
    "absent",
    "absorb",
    "abstract",
    "absurd",
    "abuse",
    "access",
    "accident",
    "account",
    "accuse",
    "achieve",
    "acid",
    "acoustic",
    "acquire",
    "across",
    "act",
    "action",
    "actor",
    "actress",
    "actual",
    "adapt",
    "add",
    "addict",
    "address",
    "adjust",
    "admit",
    "adult",
    "advance",
    "advice",
    "aerobic",
    "affair",
    "afford",
    "afraid",
    "again",
    "age",
    "agent",
    "agree",
    "ahead",
    "aim",
    "air",
    "airport",
    "aisle",
    "alarm",
    "album",
    "alcohol",
    "alert",
    "alien",
    "all",
    "alley",
    "allow",
    "almost",
    "alone",
    "alpha",
    "already",
    "also",
    "alter",
    "always",
    "amateur",
    "amazing",
    "among",
    "amount",
    "amused",
    "analyst",
    "anchor",
    "ancient",
    "anger",
    "angle",
    "angry",
    "animal",
    "ankle",
    "announce",
    "annual",
    "another",
    "answer",
    "antenna",
    "antique",
    "anxiety",
    "apart",
    "apology",
    "appear",
    "apple",
    "approve",
    "april",
    "arch",
    "arctic",
    "area",
    "arena",
    "argue",
    "arm",
    "armed",
    "armor",
    "army",
    "around",
    "arrange",
    "arrest",
    "arrive",
]


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alph: str, n: int) -> str:
        return "".join(r.choice(alph) for _ in range(n))

    def b64u(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def pem(label: str, head: str, lines: int) -> str:
        body = head + s(B64, 64 * lines - len(head) - 20)
        rows = [body[i : i + 64] for i in range(0, len(body), 64)]
        rows[-1] = rows[-1] + "=="
        return f"-----BEGIN {label}-----\n" + "\n".join(rows) + f"\n-----END {label}-----"

    def jwt(payload: dict, alg: str = "HS256") -> str:
        h = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
        p = b64u(json.dumps(payload, separators=(",", ":")).encode())
        return f"{h}.{p}.{s(URLSAFE, 43)}"

    def uid() -> str:
        return str(uuid.UUID(int=r.getrandbits(128), version=4))

    def pw() -> str:
        words = ["Falcon", "Harbor", "Tundra", "Quartz", "Marlin", "Ember", "Copper", "Orbit"]
        return (
            r.choice(words)
            + s(string.digits, r.randint(2, 4))
            + r.choice("!#$%&*")
            + s(ALNUM, r.randint(3, 6))
        )

    hosts = [
        "api.northwind-pay.com",
        "staging.kelpie.io",
        "intranet.acme-logistics.local",
        "portal.brightmeadow.org",
        "admin.vantablue.net",
        "shop.oakridgecoffee.com",
    ]
    people = ["mira", "tjansen", "oksana", "dev-ravi", "lgarcia", "ptriage", "kwame", "hbeck"]

    def host() -> str:
        return r.choice(hosts)

    def who() -> str:
        return r.choice(people)

    def fid() -> str:
        return f"{r.choice(['PT', 'FND', 'VULN', 'SEC'])}-{r.randint(2024, 2026)}-{r.randint(1, 300):03d}"

    def date() -> str:
        return f"2026-{r.randint(1, 11):02d}-{r.randint(1, 28):02d}"

    # ------------------------------------------------------------------ secret
    # each kind: (name, generator -> dict with "v" and extras, [templates])
    S: list[tuple[str, object, list[str]]] = []

    def add_s(name, gen, tpls):
        S.append((name, gen, tpls))

    add_s(
        "aws_key_pair_js_bundle",
        lambda: {"id": "AKIA" + s(UPNUM, 16), "v": s(B64, 40)},
        [
            "main.{h8}.js on {host} ships an AWS pair in the minified config blob:\n"
            'accessKeyId:"{id}",secretAccessKey:"{v}"',
            "Found in /static/js/vendor.chunk.js (prod): AWS_ACCESS_KEY_ID={id} AWS_SECRET_ACCESS_KEY={v} "
            "- key has s3:* on the uploads bucket, confirmed with sts get-caller-identity",
            "bundle grep hit -> {id} / {v}\nboth live as of this morning, region eu-west-1",
        ],
    )
    add_s(
        "aws_secret_git_history",
        lambda: {"v": s(B64, 40), "c": s(HEX, 40)},
        [
            "git log -p on the infra repo: commit {c} removed `aws_secret_access_key = {v}` from "
            "terraform.tfvars but it's still in history and the key still works",
            "history scan, deploy-tools repo, old .boto file:\n[Credentials]\naws_secret_access_key = {v}",
            "secret key {v} resurfaced in a force-pushed branch (commit {c}); IAM shows last used yesterday",
        ],
    )
    add_s(
        "aws_session_token_log",
        lambda: {"id": "ASIA" + s(UPNUM, 16), "v": "IQoJb3JpZ2luX2VjE" + s(B64, 180)},
        [
            "CloudWatch log group /ecs/worker dumps the env at startup, incl.\nAWS_ACCESS_KEY_ID={id}\nAWS_SESSION_TOKEN={v}",
            "Captured from debug endpoint /_env: session token {v} (paired with {id}), valid ~6h",
            "lambda error trace printed creds: aws_session_token='{v}'",
        ],
    )
    add_s(
        "github_pat_classic",
        lambda: {"v": "ghp_" + s(ALNUM, 36)},
        [
            "CI log for build #{n} echoes GH_TOKEN={v} (repo scope, belongs to the release bot)",
            "Bounty report: the Android APK res/values/strings.xml has github_token = {v}",
            "{v}  <- PAT from .github/workflows/nightly.yml in git history, still valid, org admin",
        ],
    )
    add_s(
        "github_pat_fine_grained",
        lambda: {"v": "github_pat_" + s(ALNUM, 22) + "_" + s(ALNUM, 59)},
        [
            "fine-grained PAT left in the docs site repo's .env: GITHUB_TOKEN={v}",
            "S3 bucket `{b}` (public list) contains backup/ci.env with\nGH_PAT={v}",
            "token in the Slack export, #deploys: {v} - contents:write on 14 repos",
        ],
    )
    add_s(
        "github_oauth_token",
        lambda: {"v": "gho_" + s(ALNUM, 36)},
        [
            "localStorage on {host} keeps the user's GitHub OAuth token: gh_oauth={v}",
            "HAR from the triage repro contains `Authorization: token {v}`",
            "gho token captured via the open redirect chain: {v}",
        ],
    )
    add_s(
        "gitlab_pat",
        lambda: {"v": "glpat-" + s(URLSAFE, 20)},
        [
            'Runner config backup (config.toml.bak) on the NAS: token = "{v}"',
            "GitLab PAT with api scope in the job log of pipeline {n}: PRIVATE-TOKEN: {v}",
            "git clone https://oauth2:{v}@gitlab.{host}/platform/infra.git  - found in a README",
        ],
    )
    add_s(
        "slack_bot_token",
        lambda: {
            "v": f"xoxb-{r.randint(10**10, 10**11)}-{r.randint(10**12, 10**13)}-{s(ALNUM, 24)}"
        },
        [
            "alerting script in the ops repo posts with SLACK_BOT_TOKEN={v}",
            "memory dump of the chatops pod: 'token': '{v}' (chat:write, channels:history)",
            "bot token {v} found in the iOS app bundle's Info.plist",
        ],
    )
    add_s(
        "slack_user_token",
        lambda: {
            "v": f"xoxp-{r.randint(10**10, 10**11)}-{r.randint(10**10, 10**11)}-{r.randint(10**12, 10**13)}-{s(HEX, 32)}"
        },
        [
            "User token for a workspace admin in the exported Postman collection: {v}",
            "xoxp leaked in a pastebin linked from the bounty report: {v} - still works against auth.test",
            "logs/export.log line 4471: slack user token={v}",
        ],
    )
    add_s(
        "slack_webhook_url",
        lambda: {
            "v": f"https://hooks.slack.com/services/T{s(UPNUM, 8)}/B{s(UPNUM, 10)}/{s(ALNUM, 24)}"
        },
        [
            "incoming webhook hardcoded in monitor.sh: {v}",
            "webhook in the public Grafana provisioning yaml (url: {v}) - anyone can post to #incidents",
            "JS bundle has the Slack webhook {v} used for client error reports",
        ],
    )
    add_s(
        "stripe_live_secret",
        lambda: {"v": "sk_live_" + s(ALNUM, 99)},
        [
            "stripe secret in checkout.js (should only be pk!): Stripe('{v}')",
            "config backup wp-config.php.old: define('STRIPE_SECRET', '{v}');",
            "Live Stripe secret {v} - confirmed with GET /v1/balance, need to roll now",
        ],
    )
    add_s(
        "stripe_restricted_key",
        lambda: {"v": "rk_live_" + s(ALNUM, 99)},
        [
            "restricted key with charges:write in the mobile app: STRIPE_RK={v}",
            "rk found in the S3 logs bucket (app-debug.log): {v}",
            "note: {v} is the restricted key the reporting cron uses, it's in crontab -l on box7",
        ],
    )
    add_s(
        "stripe_webhook_secret",
        lambda: {"v": "whsec_" + s(ALNUM, 32)},
        [
            'webhook signing secret committed in settings/prod.py: STRIPE_WEBHOOK_SECRET = "{v}"',
            "with {v} an attacker can forge payment_intent.succeeded events to /hooks/stripe",
            "endpoint secret in helm values.yaml: stripeWebhookSecret: {v}",
        ],
    )
    add_s(
        "google_api_key_mobile",
        lambda: {"v": "AIza" + s(URLSAFE, 35)},
        [
            'APK decompiled (jadx): BuildConfig.MAPS_KEY = "{v}" - key is unrestricted, '
            "works for Places + Geocoding billing",
            "iOS GoogleService-Info.plist API_KEY {v}; no app restriction set, Translate API enabled",
            "Google key {v} from the React Native bundle, usable from curl (no referrer/app limits)",
        ],
    )
    add_s(
        "gcp_service_account_key",
        lambda: {
            "v": pem(
                "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 6
            ).replace("\n", "\\n"),
            "e": f"ci-deployer@{s(LOWNUM, 10)}.iam.gserviceaccount.com",
        },
        [
            'public bucket had sa.json:\n"client_email": "{e}",\n"private_key": "{v}"',
            "service account key for {e} in git history of analytics repo: private_key={v}",
            '{e} key (roles/owner!) recovered from a Docker layer: "private_key": "{v}"',
        ],
    )
    add_s(
        "fcm_server_key",
        lambda: {"v": "AAAA" + s(URLSAFE, 7) + ":APA91b" + s(URLSAFE, 134)},
        [
            "FCM legacy server key in the Android app: {v} - can push to every user",
            "push service config in repo: fcm.serverKey={v}",
            "bounty #{n}: server key {v} found in decompiled APK, verified by sending a test push",
        ],
    )
    add_s(
        "twilio_auth_token",
        lambda: {"sid": "AC" + s(HEX, 32), "v": s(HEX, 32)},
        [
            "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}\n(from .env in the public docker image)",
            "Twilio auth token {v} for account {sid} in the SMS worker logs",
            "mobile app sends SMS directly with basic auth {sid}:{v}",
        ],
    )
    add_s(
        "sendgrid_api_key",
        lambda: {"v": "SG." + s(URLSAFE, 22) + "." + s(URLSAFE, 43)},
        [
            "SendGrid full-access key in the marketing site JS: {v}",
            "mailer.env.bak in S3: SENDGRID_API_KEY={v}",
            "{v} - sendgrid key, can send as noreply@ domain, phishing risk",
        ],
    )
    add_s(
        "mailgun_api_key",
        lambda: {"v": "key-" + s(HEX, 32)},
        [
            "Mailgun private key in config backup: mailgun.api_key = {v}",
            "api:{v} basic auth against api.mailgun.net works, found in old cron script",
            "mailgun key {v} printed in the password-reset service stack trace",
        ],
    )
    add_s(
        "npm_token",
        lambda: {"v": "npm_" + s(ALNUM, 36)},
        [
            ".npmrc in the repo root: //registry.npmjs.org/:_authToken={v} (publish rights on @org/*)",
            "npm automation token {v} visible in GitHub Actions log (masking broke)",
            "docker history of the web image shows NPM_TOKEN={v}",
        ],
    )
    add_s(
        "pypi_token",
        lambda: {"v": "pypi-AgEIcHlwaS5vcmc" + s(URLSAFE, 150)},
        [
            "~/.pypirc from the build box backup:\n[pypi]\nusername = __token__\npassword = {v}",
            "PyPI upload token {v} leaked in the tox.ini of the sdist",
            "TWINE_PASSWORD={v} in the release job env dump",
        ],
    )
    add_s(
        "openai_api_key",
        lambda: {"v": "sk-proj-" + s(URLSAFE, 156)},
        [
            "chatbot widget calls OpenAI straight from the browser with {v}",
            "OPENAI_API_KEY={v} in the public Vercel preview env (exposed via /api/debug)",
            "key {v} in the iOS app, billed to the company org",
        ],
    )
    add_s(
        "anthropic_api_key",
        lambda: {"v": "sk-ant-api03-" + s(URLSAFE, 93) + "AA"},
        [
            "Anthropic key committed to the eval harness: ANTHROPIC_API_KEY={v}",
            "support-bot pod env has {v}; readable by any pod via the exposed kubelet",
            'found in jupyter notebook output cell: client = Anthropic(api_key="{v}")',
        ],
    )
    add_s(
        "huggingface_token",
        lambda: {"v": "hf_" + s(ALNUM, 34)},
        [
            'HF write token in the training repo notebook: login(token="{v}")',
            "HUGGING_FACE_HUB_TOKEN={v} in the Space's public app.py",
            "hf token {v} (write, org models) in wandb run config",
        ],
    )
    add_s(
        "telegram_bot_token",
        lambda: {"v": f"{r.randint(10**9, 7 * 10**9)}:AA{s(URLSAFE, 33)}"},
        [
            "Telegram bot token in the alerting lambda: {v}",
            "APK strings: bot{v}/sendMessage - anyone can read the bot's chats via getUpdates",
            "TG_BOT_TOKEN={v} (prod alerts bot) in the docker-compose.yml",
        ],
    )
    add_s(
        "discord_bot_token",
        lambda: {
            "v": f"{b64u(str(r.randint(10**17, 10**18)).encode())}.{s(URLSAFE, 6)}.{s(URLSAFE, 38)}"
        },
        [
            'discord bot token in the community bot repo config.json: "token": "{v}"',
            "DISCORD_TOKEN={v} - bot has Administrator on the support server",
            "leaked in a screenshot-turned-text in the ticket: {v}",
        ],
    )
    add_s(
        "discord_webhook_url",
        lambda: {
            "v": f"https://discord.com/api/webhooks/{r.randint(10**17, 10**18)}/{s(URLSAFE, 68)}"
        },
        [
            "game client posts crash reports to {v}",
            "Discord webhook in the Unity build's resources: {v}",
            "webhook {v} exposed in a public gist by a contractor",
        ],
    )
    add_s(
        "rsa_private_key",
        lambda: {"v": pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 7)},
        [
            "id_rsa from the public S3 bucket (deploy user on bastion):\n{v}",
            "{v}",
            "key in git history (certs/server.key, commit removed later):\n{v}",
        ],
    )
    add_s(
        "openssh_private_key",
        lambda: {"v": pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", 5)},
        [
            "unencrypted ed25519 key pulled from the CI cache tarball:\n{v}",
            "ansible/roles/base/files/deploy_key ->\n{v}",
            "memory dump of ssh-agent host had this private key:\n{v}",
        ],
    )
    add_s(
        "ec_private_key",
        lambda: {"v": pem("EC PRIVATE KEY", "MHcCAQEEI", 3)},
        [
            "APNs signing key (p8 converted) in the iOS repo:\n{v}",
            "TLS key for *.{host} in the config backup zip:\n{v}",
            "JWT ES256 signing key hardcoded in auth-service:\n{v}",
        ],
    )
    add_s(
        "postgres_uri_password",
        lambda: {"p": pw(), "v": ""},
        [
            "DATABASE_URL=postgres://app_rw:{p}@db-prod.internal:5432/orders found in a Sentry breadcrumb",
            "Heroku config dump in logs: postgresql://u7k2:{p}@ec2-3-91-22-10.compute-1.amazonaws.com:5432/d8f1",
            "django settings backup: 'PASSWORD': '{p}' for the reporting postgres (superuser)",
        ],
    )
    add_s(
        "mysql_password_backup",
        lambda: {"p": pw(), "v": ""},
        [
            "config.php.bak served from webroot: $db_pass = '{p}';",
            "my.cnf in the backup tarball:\n[client]\nuser=root\npassword={p}",
            "mysql -h 10.0.4.12 -u wp -p'{p}' -> worked from the jump box (shell history)",
        ],
    )
    add_s(
        "mongodb_srv_uri",
        lambda: {"p": s(ALNUM, 16), "v": ""},
        [
            "mobile app talks straight to Atlas: mongodb+srv://appuser:{p}@cluster0.{c}.mongodb.net/prod",
            "MONGO_URL=mongodb://admin:{p}@10.2.0.7:27017/?authSource=admin in the leaked .env",
            "Atlas password for appuser is {p} (found in the React Native bundle)",
        ],
    )
    add_s(
        "redis_url_password",
        lambda: {"p": s(ALNUM, 24), "v": ""},
        [
            "REDIS_URL=redis://:{p}@cache.internal:6379/0 in the worker logs",
            "redis.conf from the backup: requirepass {p}",
            "rediss://default:{p}@redis-12345.c1.us-east-1.cloud.redislabs.com:12345 in the JS bundle",
        ],
    )
    add_s(
        "amqp_uri_password",
        lambda: {"p": pw(), "v": ""},
        [
            "CELERY_BROKER_URL=amqp://celery:{p}@mq.internal:5672// in the public compose file",
            "RabbitMQ creds in the stack trace: amqps://orders:{p}@b-1a2b.mq.eu-west-1.amazonaws.com:5671",
            "rabbitmqctl add_user svc_ingest '{p}' - from the provisioning script in the repo",
        ],
    )
    add_s(
        "php_session_cookie",
        lambda: {"v": s(LOWNUM, 26)},
        [
            "captured admin session via the XSS: PHPSESSID={v} (still valid, gives /admin)",
            "Cookie: PHPSESSID={v}; lang=en  <- admin's session from the access log",
            "hijacked session id {v} (PHPSESSID of the helpdesk admin) - replayed from another IP, worked",
        ],
    )
    add_s(
        "jsessionid_cookie",
        lambda: {"v": s(HEX.upper(), 32)},
        [
            "JSESSIONID={v} leaked in the URL (;jsessionid=) and Referer to third-party analytics",
            "tomcat manager session captured over plain http: Cookie: JSESSIONID={v}",
            "session fixation confirmed; victim's live JSESSIONID was {v}",
        ],
    )
    add_s(
        "django_session_cookie",
        lambda: {"v": s(LOWNUM, 32)},
        [
            "staff user's sessionid={v} in the nginx debug log (cookies logged)",
            "Set-Cookie: sessionid={v}; HttpOnly; Path=/ - superuser session, copied from the HAR",
            "django admin session {v} captured via the cache-poisoning bug",
        ],
    )
    add_s(
        "jwt_access_token_captured",
        lambda: {
            "v": jwt(
                {
                    "sub": str(r.randint(1000, 99999)),
                    "role": "admin",
                    "iat": 1796000000,
                    "exp": 1796086400,
                }
            )
        },
        [
            "access token pulled from the mobile app traffic (mitmproxy): Authorization: Bearer {v}",
            "JWT of the support admin, found in the Sentry event payload: {v}",
            "bearer {v} - lifetime 24h, role=admin, valid when tested",
        ],
    )
    add_s(
        "oauth_refresh_token",
        lambda: {"v": "1//0" + s(URLSAFE, 99)},
        [
            'Google refresh token for the shared mailbox in token.json in the repo: "refresh_token": "{v}"',
            "refresh_token={v} logged by the OAuth callback handler",
            "refresh token {v} (never expires, gmail.modify) found in the backup",
        ],
    )
    add_s(
        "basic_auth_header",
        lambda: {"u": r.choice(["svc_export", "admin", "ci", "reporter"]), "p": pw(), "v": ""},
        [
            "Authorization: Basic {b} seen in the proxy log (decodes to {u}:<pw>)",
            "Jenkins job uses curl -H 'Authorization: Basic {b}' against the artifact store",
            "mobile app hardcodes the header `Basic {b}` for the staging API (creds work on prod too)",
        ],
    )
    add_s(
        "default_password_set",
        lambda: {"v": ""},
        [
            "BMC on 10.20.1.{o} still has the vendor default root / {d} - logged in, full remote console",
            "printer admin panel: default admin password {d} unchanged, can read scan-to-email creds",
            "Finding: Grafana at grafana.{host} still admin:{d} - confirmed login",
        ],
    )
    add_s(
        "ldap_bind_password",
        lambda: {"p": pw(), "v": ""},
        [
            "LDAP bind creds in the wiki config backup: bindDN cn=svc_wiki,ou=svc,dc=corp bindPassword={p}",
            "ldapsearch -D 'CN=svc_scan,OU=Service,DC=corp,DC=local' -w '{p}' worked (from bash_history)",
            "sssd.conf in the gold image: ldap_default_authtok = {p}",
        ],
    )
    add_s(
        "smtp_password",
        lambda: {"p": pw(), "v": ""},
        [
            "SMTP creds in the Android app: smtp.office365.com noreply@{host} / {p}",
            "EMAIL_HOST_PASSWORD = '{p}' in settings_local.py (git history)",
            "postfix sasl_passwd backup: [smtp.sendgrid.net]:587 apikey:{p}",
        ],
    )
    add_s(
        "wifi_psk",
        lambda: {
            "p": r.choice(["Blue", "Guest", "Corp", "Lab"]) + s(ALNUM, 10) + r.choice("!?#"),
            "v": "",
        },
        [
            "corp SSID ACME-STAFF PSK is {p} - written on the whiteboard in the lobby, visible in our photo",
            'wpa_supplicant.conf on the kiosk: psk="{p}"',
            "IoT VLAN wifi password {p} readable in the thermostat's config export",
        ],
    )
    add_s(
        "totp_seed",
        lambda: {"v": s(B32, 32)},
        [
            "TOTP secret for the shared break-glass account stored in the runbook: {v}",
            "otpauth://totp/Corp:breakglass?secret={v}&issuer=Corp found in the QR backup image text",
            "2FA seed {v} in the admin's notes.txt from the memory dump",
        ],
    )
    add_s(
        "bip39_mnemonic",
        lambda: {"v": " ".join(r.choice(BIP39) for _ in range(12))},
        [
            "hot wallet seed phrase in the ops wiki: {v}",
            'mnemonic found in the treasury bot\'s env: WALLET_MNEMONIC="{v}"',
            "recovered from the laptop memory dump (metamask vault decrypted): {v}",
        ],
    )
    add_s(
        "eth_private_key",
        lambda: {"v": "0x" + s(HEX, 64)},
        [
            'deployer private key in hardhat.config.js: accounts: ["{v}"] - holds 4.1 ETH',
            "PRIVATE_KEY={v} for the relayer wallet in the public repo",
            "signer key {v} leaked via the frontend bundle (used for gasless mint)",
        ],
    )
    add_s(
        "azure_storage_conn_string",
        lambda: {"a": s(string.ascii_lowercase, 12), "v": s(B64, 86) + "=="},
        [
            "DefaultEndpointsProtocol=https;AccountName={a};AccountKey={v};EndpointSuffix=core.windows.net (appsettings.json in the APK)",
            "storage account key for {a} in the log export: AccountKey={v}",
            "AZURE_STORAGE_KEY={v} (account {a}) in the function app's public repo",
        ],
    )
    add_s(
        "azure_sas_token",
        lambda: {"a": s(string.ascii_lowercase, 10), "sig": s(B64, 43) + "%3D", "v": ""},
        [
            "SAS URL with full permissions and 2030 expiry in the desktop app: https://{a}.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2030-01-01T00:00:00Z&sig={sig}",
            "container SAS in JS: ?sp=racwdl&st=2026-01-01&se=2028-12-31&spr=https&sv=2022-11-02&sr=c&sig={sig}",
            "sig={sig} - that's the account-level SAS for {a}, rwd on everything",
        ],
    )
    add_s(
        "azure_client_secret",
        lambda: {"v": s(ALNUM, 3) + "8Q~" + s(URLSAFE + "~.", 34)},
        [
            "app registration secret in the Teams bot config: MicrosoftAppPassword={v}",
            "AZURE_CLIENT_SECRET={v} with Directory.ReadWrite.All - found in pipeline variables export",
            "client secret {v} (tenant prod) in the terraform state in the public bucket",
        ],
    )
    add_s(
        "digitalocean_token",
        lambda: {"v": "dop_v1_" + s(HEX, 64)},
        [
            'DO token in the packer template: "api_token": "{v}"',
            "DIGITALOCEAN_TOKEN={v} - full write, can destroy droplets",
            "found {v} in the shell history of the restored backup",
        ],
    )
    add_s(
        "heroku_api_key",
        lambda: {"v": uid()},
        [
            "HEROKU_API_KEY={v} in the CircleCI env dump",
            "~/.netrc from backup: machine api.heroku.com login ops@{host} password {v}",
            "heroku authorizations token {v} printed in the deploy script output",
        ],
    )
    add_s(
        "datadog_api_key",
        lambda: {"v": s(HEX, 32), "app": s(HEX, 40)},
        [
            "DD_API_KEY={v} DD_APP_KEY={app} in the public helm chart values",
            "datadog api key {v} embedded in the browser RUM snippet by mistake (not the client token)",
            "datadog.yaml in config backup: api_key: {v}",
        ],
    )
    add_s(
        "cloudflare_api_token",
        lambda: {"v": s(URLSAFE, 40)},
        [
            "CF_API_TOKEN={v} (Zone:DNS:Edit on all zones) in the acme.sh config",
            'cloudflare token in terraform.tfvars history: cloudflare_api_token = "{v}"',
            "Authorization: Bearer {v} to api.cloudflare.com in the cert-renewal logs",
        ],
    )
    add_s(
        "vault_token",
        lambda: {"v": "hvs." + s(URLSAFE, 90)},
        [
            "VAULT_TOKEN={v} in the jenkins node env (root policy!)",
            "vault token {v} logged by the entrypoint script's set -x",
            "X-Vault-Token: {v} captured in the sidecar debug output",
        ],
    )
    add_s(
        "terraform_cloud_token",
        lambda: {"v": s(ALNUM, 14) + ".atlasv1." + s(ALNUM, 67)},
        [
            '~/.terraform.d/credentials.tfrc.json in the dev image: "token": "{v}"',
            "TFE_TOKEN={v} (org owner) in the GitHub Actions log",
            "TF Cloud team token {v} in the wiki page 'how to apply'",
        ],
    )
    add_s(
        "shopify_access_token",
        lambda: {"v": "shpat_" + s(HEX, 32)},
        [
            "Shopify admin token in the theme repo: X-Shopify-Access-Token: {v}",
            "private app token {v} (read/write orders + customers) in the storefront JS",
            "SHOPIFY_ADMIN_TOKEN={v} in the leaked .env.production",
        ],
    )
    add_s(
        "braintree_token",
        lambda: {"v": f"access_token$production${s(LOWNUM, 16)}${s(HEX, 32)}"},
        [
            "Braintree prod token in the checkout service: BRAINTREE_ACCESS_TOKEN={v}",
            "found {v} in the S3 config backup",
            "braintree gateway init with {v} in a committed test file (prod env!)",
        ],
    )
    add_s(
        "atlassian_api_token",
        lambda: {"v": "ATATT3xFfGF0" + s(URLSAFE, 170) + "=" + s(HEX.upper(), 8)},
        [
            "Jira API token for ci-bot@{host} in the release script: {v}",
            "JIRA_API_TOKEN={v} in the Confluence page 'automation setup'",
            "curl -u svc-jira@{host}:{v} https://corp.atlassian.net/rest/api/3/search  (shell history)",
        ],
    )
    add_s(
        "okta_api_token",
        lambda: {"v": "00" + s(URLSAFE, 40)},
        [
            "Authorization: SSWS {v} in the provisioning lambda (super admin token)",
            "OKTA_API_TOKEN={v} in the HR sync config backup",
            "okta token {v} leaked in the support ticket attachment",
        ],
    )
    add_s(
        "docker_config_auth",
        lambda: {"u": r.choice(["deploybot", "ci-push", "release"]), "p": s(ALNUM, 20), "v": ""},
        [
            '~/.docker/config.json in the runner image:\n{{"auths": {{"registry.{host}": {{"auth": "{b}"}}}}}}',
            "registry auth blob {b} in the k8s imagePullSecret committed to the repo (decodes to {u}:...)",
            "docker login -u {u} -p {p} registry.{host} in the Makefile",
        ],
    )
    add_s(
        "kubeconfig_token",
        lambda: {
            "v": jwt(
                {
                    "iss": "kubernetes/serviceaccount",
                    "kubernetes.io/serviceaccount/namespace": "kube-system",
                    "sub": "system:serviceaccount:kube-system:admin",
                },
                "RS256",
            )
        },
        [
            "kubeconfig in the public bucket:\nusers:\n- name: admin\n  user:\n    token: {v}",
            "service account token (cluster-admin) read from /var/run/secrets via the SSRF: {v}",
            "kubectl --token={v} get secrets -A  worked from outside",
        ],
    )
    add_s(
        "netrc_password",
        lambda: {"p": s(ALNUM, 18), "v": ""},
        [
            ".netrc in the home dir backup:\nmachine git.{host}\n  login builder\n  password {p}",
            "machine artifacts.{host} login deploy password {p}",
            "netrc entry with password {p} for the nexus, copied into the Dockerfile",
        ],
    )
    add_s(
        "jenkins_api_token",
        lambda: {"v": "11" + s(HEX, 32)},
        [
            "Jenkins API token for admin: {v} (in the script that triggers builds)",
            "curl -u admin:{v} https://ci.{host}/job/prod-deploy/build - in repo README",
            "JENKINS_TOKEN={v} in the deploy bot's env",
        ],
    )
    add_s(
        "sentry_auth_token",
        lambda: {"v": "sntrys_" + s(URLSAFE, 120)},
        [
            "SENTRY_AUTH_TOKEN={v} in the webpack config committed to the repo (org:write)",
            "sentry-cli auth token {v} exposed in public build logs",
            ".sentryclirc: [auth] token={v}",
        ],
    )
    add_s(
        "mapbox_secret_token",
        lambda: {"v": "sk.eyJ1Ijoi" + s(URLSAFE, 40) + "." + s(URLSAFE, 22)},
        [
            "Mapbox secret token (styles:write, tokens:write) in the iOS app: {v}",
            "MAPBOX_DOWNLOADS_TOKEN={v} in gradle.properties (git history)",
            "sk token {v} in the web bundle - not the pk one",
        ],
    )
    add_s(
        "mimikatz_cleartext",
        lambda: {"p": pw(), "v": ""},
        [
            "lsass dump from WKS-0{o}, sekurlsa::logonpasswords:\n * Username : svc_backup\n * Domain   : CORP\n * Password : {p}",
            "wdigest enabled -> cleartext for CORP\\helpdesk01: {p}",
            "memory dump strings of the backup agent: password={p} (domain admin)",
        ],
    )
    add_s(
        "django_secret_key",
        lambda: {"v": s(string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50)},
        [
            "SECRET_KEY = '{v}' in the production settings.py (public repo) -> can forge sessions",
            "DJANGO_SECRET_KEY={v} in the leaked env file",
            "prod django secret key {v} from the docker image layer",
        ],
    )
    add_s(
        "rails_secret_key_base",
        lambda: {"v": s(HEX, 128)},
        [
            "secret_key_base: {v} in config/secrets.yml production (git history) -> RCE via cookie deserialization",
            "SECRET_KEY_BASE={v} on the heroku app, found in log dump",
            "rails master key derived secret_key_base {v} pasted in a support ticket",
        ],
    )
    add_s(
        "jwt_hs256_signing_secret",
        lambda: {"v": s(ALNUM, 32)},
        [
            "JWT_SECRET={v} in the auth service .env - we minted an admin token with it",
            'HS256 signing key cracked? no - it was just in the JS: jwtSecret:"{v}"',
            "jwt.sign(payload, '{v}') in api/auth.js of the open-sourced backend",
        ],
    )
    add_s(
        "password_in_query_log",
        lambda: {"p": pw(), "u": r.choice(["j.doe", "admin", "finance01"]), "v": ""},
        [
            "access.log: GET /login?user={u}&password={p} HTTP/1.1 200  (credentials in query string)",
            "ELB logs keep the legacy API's ?apikey=...&pass={p} for user {u}",
            "proxy log shows {u} logging in with password {p} over plain http",
        ],
    )

    # ------------------------------------------------------------------ benign
    B: list[tuple[str, object, list[str]]] = []

    def add_b(name, gen, tpls):
        B.append((name, gen, tpls))

    add_b(
        "aws_key_redacted",
        lambda: {"v": "AKIA" + s(UPNUM, 4) + "************"},
        [
            "Finding: AWS key {v} in main.js (secret part redacted in report, rotated on {date})",
            "report shows access key as {v} / secret: [REDACTED]",
            "key id {v} - full values withheld from the ticket per disclosure policy",
        ],
    )
    add_b(
        "token_truncated_prefix",
        lambda: {"v": "ghp_" + s(ALNUM, 4) + "…"},
        [
            "GitHub PAT starting {v} was in CI logs; revoked by owner, rest of value not recorded",
            "truncated for the report: {v} (first 8 chars only)",
            "triage: token {v} — already dead when we tested",
        ],
    )
    add_b(
        "sha256_bundle_digest",
        lambda: {"v": s(HEX, 64)},
        [
            "affected bundle main.js sha256 {v} (so the fix can be verified by hash)",
            "evidence file checksum: sha256={v}",
            "sha256sum of the leaked config backup: {v}  config.tar.gz",
        ],
    )
    add_b(
        "git_commit_sha",
        lambda: {"v": s(HEX, 40)},
        [
            "secret introduced in commit {v}, history rewritten after rotation",
            "fix landed in {v} (removes the hardcoded key, reads from env)",
            "git show {v} -- config/ shows where the creds used to live",
        ],
    )
    add_b(
        "cve_id",
        lambda: {"v": f"CVE-{r.randint(2019, 2026)}-{r.randint(1000, 49999)}"},
        [
            "{v}: hardcoded credentials in the vendor's firmware; we're on the patched build",
            "Tomcat instance vulnerable to {v}, upgrade scheduled",
            "bounty duplicate of {v} - closed as informative",
        ],
    )
    add_b(
        "pentest_finding_id",
        lambda: {"v": fid()},
        [
            "{v} (High): secrets in client-side JS — retest passed, key moved server side",
            "link {v} to JIRA when filing; remediation owner @{who}",
            "finding {v} reopened: same pattern in the admin bundle",
        ],
    )
    add_b(
        "bounty_report_id",
        lambda: {"v": f"#{r.randint(1000000, 2999999)}"},
        [
            "HackerOne report {v}: leaked API key in APK — triaged, bounty $750, key revoked",
            "Bugcrowd submission {v} marked N/A (key was a publishable one)",
            "report {v} duplicate of the January one",
        ],
    )
    add_b(
        "regex_aws_rule",
        lambda: {
            "v": r.choice([r"(A3T[A-Z0-9]|AKIA|ASIA)[A-Z0-9]{16}", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"])
        },
        [
            "pre-commit hook pattern for AWS key ids: {v}",
            "our custom rule: aws_key_id = '{v}' (secret detection stage 1)",
            "grep -rE '{v}' dist/  -> no hits after the fix",
        ],
    )
    add_b(
        "regex_github_rule",
        lambda: {"v": r.choice([r"gh[pousr]_[A-Za-z0-9]{36}", r"github_pat_[A-Za-z0-9_]{82}"])},
        [
            "CI scanner regex for GitHub tokens: {v}",
            "I added `{v}` to the log-redaction filter",
            "regex {v} misses the new format, need to update",
        ],
    )
    add_b(
        "scanner_rule_yaml",
        lambda: {"v": r"sk_live_[0-9a-zA-Z]{24,}"},
        [
            "our in-house rule:\n- id: stripe-live-secret\n  regex: '{v}'\n  severity: critical",
            "semgrep-style rule draft: pattern-regex: {v}  # stripe live keys",
            "added rule stripe-live (regex {v}) to the bundle scanner",
        ],
    )
    add_b(
        "canary_aws_token_labelled",
        lambda: {"id": "AKIA" + s(UPNUM, 16), "v": s(B64, 40)},
        [
            "CANARY - do not rotate: honeytoken AWS key {id} / {v} planted in the old wiki; any use alerts SOC. Grants no permissions.",
            "deception: fake creds aws_secret_access_key={v} in ~/.aws on the decoy box (canarytoken, zero-permission user, alerting only)",
        ],
    )
    add_b(
        "honey_credential_labelled",
        lambda: {"p": pw(), "v": ""},
        [
            "HONEY CREDENTIAL (decoy, account disabled, triggers alert): svc_sql_backup / {p} left in the share for attackers",
            "honeypot user 'admin_old' password {p} - not a real account; logins go to the deception SIEM",
            "bait creds {p} seeded in the fake config backup, tracked by the canary service (no real system)",
        ],
    )
    add_b(
        "ssh_public_key",
        lambda: {"v": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43)},
        [
            "authorized_keys on the bastion had an unknown entry: {v} attacker@kali - removed",
            "pentester's public key for the assessment window: {v}",
            "deploy pubkey {v} ci@builder",
        ],
    )
    add_b(
        "pgp_public_key_block",
        lambda: {
            "v": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ"
            + s(B64, 59)
            + "\n"
            + s(B64, 64)
            + "\n="
            + s(B64, 4)
            + "\n-----END PGP PUBLIC KEY BLOCK-----"
        },
        [
            "security.txt encryption key for report submissions:\n{v}",
            "encrypt findings to this key before emailing:\n{v}",
        ],
    )
    add_b(
        "stripe_publishable_key",
        lambda: {"v": "pk_live_" + s(ALNUM, 99)},
        [
            "bounty claims 'stripe key leak' but it's the publishable one {v} - N/A",
            "checkout.js has {v}; that's pk_, meant to be public",
            "triage: {v} is publishable, closed informative",
        ],
    )
    add_b(
        "mapbox_public_token",
        lambda: {"v": "pk.eyJ1Ijoi" + s(URLSAFE, 40) + "." + s(URLSAFE, 22)},
        [
            "mapbox {v} in the web bundle is the public pk token (URL-restricted), fine",
            "not a finding: public map token {v}",
        ],
    )
    add_b(
        "aws_docs_example_key",
        lambda: {
            "v": r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])
        },
        [
            "scanner flagged {v} in README — that's the AWS docs example value, suppress",
            "test fixture uses {v} (AWS documentation example), not a real key",
            "false positive: {v} in the SDK samples",
        ],
    )
    add_b(
        "hypothetical_writeup_example",
        lambda: {"v": "sk_live_" + "X" * 24},
        [
            "write-up: a leaked key looks like `{v}` — ours was in the bundle's config object",
            "blog draft example: STRIPE_SECRET={v} (placeholder, illustrate only)",
            "slide 12 shows {v} as the pattern to search for",
        ],
    )
    add_b(
        "env_placeholder_ref",
        lambda: {
            "v": r.choice(
                [
                    "${DB_PASSWORD}",
                    "${{ secrets.NPM_TOKEN }}",
                    "$(cat /run/secrets/api_key)",
                    "{{ vault_smtp_password }}",
                ]
            )
        },
        [
            "fixed config now reads password: {v}",
            "remediation: replaced the literal with {v}",
            "compose file after fix: API_KEY={v}",
        ],
    )
    add_b(
        "vault_path_reference",
        lambda: {
            "v": f"secret/data/{r.choice(['prod', 'stage'])}/{r.choice(['payments', 'mailer', 'crm'])}/api-key"
        },
        [
            "rotated key stored at vault path {v}; app reads via agent injector",
            "new creds: vault kv get {v}",
            "don't paste it here — it's in {v}",
        ],
    )
    add_b(
        "secrets_manager_arn",
        lambda: {
            "v": f"arn:aws:secretsmanager:eu-west-1:{r.randint(10**11, 10**12 - 1)}:secret:prod/db/app-{s(ALNUM, 6)}"
        },
        [
            "db password now in {v} with 30-day rotation",
            "remediation done, lambda pulls from {v}",
            "IAM policy scoped to {v}",
        ],
    )
    add_b(
        "kms_key_id",
        lambda: {"v": uid()},
        [
            "backups now encrypted with KMS key {v} (CMK, rotation on)",
            "alias/prod-backups -> key id {v}",
            "SSE-KMS enabled on the bucket, key {v}",
        ],
    )
    add_b(
        "access_key_id_only",
        lambda: {"v": "AKIA" + s(UPNUM, 16)},
        [
            "CloudTrail: calls from access key id {v} stopped after deactivation; the secret half was never exposed, only the id in an error message",
            "IAM user ci-old had key id {v} (deleted {date})",
        ],
    )
    add_b(
        "twilio_account_sid",
        lambda: {"v": "AC" + s(HEX, 32)},
        [
            "Twilio account SID {v} visible in the app — it's an identifier, auth token not present",
            "SMS sending moved to backend; account {v}",
        ],
    )
    add_b(
        "request_uuid",
        lambda: {"v": uid()},
        [
            "repro: x-request-id {v} shows the 500 with the stack trace",
            "correlation id {v} for the failed login attempts",
            "Sentry issue event {v}",
        ],
    )
    add_b(
        "jwt_header_only",
        lambda: {"v": b64u(b'{"alg":"none","typ":"JWT"}')},
        [
            "alg=none test: header {v} accepted by /api/v2? no — rejected, good",
            "jwt header segment {v} decodes to alg none; payload/signature omitted from notes",
        ],
    )
    add_b(
        "spa_oauth_client_id",
        lambda: {"v": f"{r.randint(10**11, 10**12)}-{s(LOWNUM, 32)}.apps.googleusercontent.com"},
        [
            "SPA uses PKCE with client_id {v} (public client, no secret) - fine",
            "client id {v} in the bundle is expected",
        ],
    )
    add_b(
        "password_policy_talk",
        lambda: {"v": ""},
        [
            "recommend min password length 14 and block the top 100k breached passwords",
            "password reset tokens should expire in 15 min, currently 7 days",
            "ask the client whether service account passwords are rotated quarterly",
        ],
    )
    add_b(
        "rotated_vault_pointer",
        lambda: {"v": ""},
        [
            "SEC-{n}: rotated the SendGrid key, old one revoked; new value lives in 1Password item 'SendGrid prod' only",
            "DB password changed after the finding; grab it from the team vault, not from me",
            "key rotated + history purged with git filter-repo, all clones asked to re-clone",
        ],
    )
    add_b(
        "database_key_sense",
        lambda: {"v": ""},
        [
            "the sessions table primary key is session_id, foreign key to users.id",
            "IDOR: change the key param from 1041 to 1042 and you see another user's invoice",
            "composite key (tenant_id, api_key_name) should be unique",
        ],
    )
    add_b(
        "llm_token_sense",
        lambda: {"v": ""},
        [
            "triage summariser truncates reports at 8k tokens, long PoCs get cut",
            "tokenizer splits 'password' into two tokens, funny",
            "lexer emits a STRING token for the quoted value",
        ],
    )
    add_b(
        "csp_nonce",
        lambda: {"v": s(B64, 22) + "=="},
        [
            "CSP header: script-src 'nonce-{v}' 'strict-dynamic' - nonce changes per response, good",
            "nonce {v} reused across responses? no, checked 20 loads",
        ],
    )
    add_b(
        "sri_hash",
        lambda: {"v": "sha384-" + s(B64, 64)},
        [
            'add integrity="{v}" to the CDN script tag',
            "SRI on checkout.js: {v}",
        ],
    )
    add_b(
        "docker_image_digest",
        lambda: {"v": "sha256:" + s(HEX, 64)},
        [
            "image with the baked-in .env was {v}; deleted from registry",
            "rebuilt clean image digest {v}",
            "pin the base image to @{v}",
        ],
    )
    add_b(
        "cert_fingerprint",
        lambda: {"v": ":".join(s("0123456789ABCDEF", 2) for _ in range(20))},
        [
            "cert pinning in the app expects SHA1 fingerprint {v}",
            "expired cert on {host}: fingerprint {v}",
        ],
    )
    add_b(
        "x509_certificate",
        lambda: {"v": pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIE", 5)},
        [
            "leaf cert served by {host} (public, for the report appendix):\n{v}",
            "CA cert the mobile app pins:\n{v}",
        ],
    )
    add_b(
        "base64_nonsecret_json",
        lambda: {
            "v": base64.b64encode(
                json.dumps(
                    {"theme": "dark", "lang": r.choice(["en", "de", "fr"]), "beta": True}
                ).encode()
            ).decode()
        },
        [
            "the 'prefs' cookie {v} is just base64 JSON of UI settings, not a session",
            "decoded the suspicious blob {v} -> UI preferences, nothing sensitive",
        ],
    )
    add_b(
        "cloudfront_distribution_id",
        lambda: {"v": "E" + s(UPNUM, 13)},
        [
            "invalidate the old bundle on distribution {v} after removing the key",
            "CloudFront {v} serves the /static path",
        ],
    )
    add_b(
        "ga_measurement_id",
        lambda: {"v": "G-" + s(UPNUM, 10)},
        [
            "GA measurement id {v} in the page — public by design",
            "tag {v} receives the Referer with the session id (that's the real finding)",
        ],
    )
    add_b(
        "recaptcha_site_key",
        lambda: {"v": "6L" + s(URLSAFE, 38)},
        [
            "reCAPTCHA site key {v} is public; the secret key stays server-side (checked)",
            "bounty report of 'leaked recaptcha key' {v} - site key, N/A",
        ],
    )
    add_b(
        "algolia_search_only_key",
        lambda: {"v": s(HEX, 32)},
        [
            "Algolia search-only API key {v} in docs site JS - public, ACL: search only, verified it can't addObject",
            "the key {v} in the frontend is Algolia's search-only key (no write ACL) - informative",
        ],
    )
    add_b(
        "k8s_manifest_placeholder",
        lambda: {
            "v": r.choice(["REPLACE_ME", "<base64-encoded-password>", "CHANGEME_IN_SEALED_SECRET"])
        },
        [
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ndata:\n  password: {v}",
            "template manifest has password: {v}; real one comes from sealed-secrets",
        ],
    )
    add_b(
        "masked_log_password",
        lambda: {"v": "password=********"},
        [
            "after the fix, logs show {v} for login requests",
            "redaction works: POST /login body {v}&user=admin",
        ],
    )
    add_b(
        "redacted_conn_string",
        lambda: {
            "v": r.choice(
                [
                    "postgres://app_rw:[REDACTED]@db-prod.internal:5432/orders",
                    "mongodb+srv://appuser:<password>@cluster0.mongodb.net/prod",
                    "redis://:***@cache.internal:6379/0",
                ]
            )
        },
        [
            "evidence (redacted): {v}",
            "report quotes the URL as {v}; full value shared only over the secure channel",
        ],
    )
    add_b(
        "remediation_no_value",
        lambda: {"v": ""},
        [
            "remediation: move all third-party keys to the backend proxy, ship no secrets in the APK",
            "recommend enabling GitHub push protection and secret scanning org-wide",
            "retest {date}: no credentials found in the rebuilt bundles or in the bucket listing",
        ],
    )
    add_b(
        "aws_account_id",
        lambda: {"v": str(r.randint(10**11, 10**12 - 1))},
        [
            "bucket owned by AWS account {v} (prod)",
            "cross-account role trust to {v} should be removed",
        ],
    )
    add_b(
        "azure_tenant_id",
        lambda: {"v": uid()},
        [
            "Azure tenant id {v}, subscription in scope listed in SOW",
            "app registration lives in tenant {v}",
        ],
    )
    add_b(
        "slack_channel_ids",
        lambda: {"v": "C0" + s(UPNUM, 9)},
        [
            "post findings to channel {v} (#sec-findings), not DMs",
            "the leaked bot could read {v}; bot since deleted",
        ],
    )
    add_b(
        "slack_docs_webhook_example",
        lambda: {
            "v": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
        },
        [
            "scanner hit {v} in the docs — that's Slack's documentation placeholder",
            "example in runbook: SLACK_WEBHOOK={v}",
        ],
    )
    add_b(
        "git_lfs_oid",
        lambda: {"v": "sha256:" + s(HEX, 64)},
        [
            "version https://git-lfs.github.com/spec/v1\noid {v}\nsize 48213",
            "LFS pointer for dump.sql oid {v} — the object itself was never pushed",
        ],
    )
    add_b(
        "npm_integrity_hash",
        lambda: {"v": "sha512-" + s(B64, 86) + "=="},
        [
            "package-lock integrity for the compromised version: {v}",
            '"integrity": "{v}"',
        ],
    )
    add_b(
        "cosign_public_key",
        lambda: {
            "v": "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"
            + s(B64, 28)
            + "\n"
            + s(B64, 60)
            + "==\n-----END PUBLIC KEY-----"
        },
        [
            "cosign verify --key cosign.pub; pubkey:\n{v}",
            "release signing public key (safe to publish):\n{v}",
        ],
    )
    add_b(
        "age_public_key",
        lambda: {"v": "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)},
        [
            "encrypt the evidence archive to recipient {v}",
            "sops .sops.yaml: age: {v}",
        ],
    )
    add_b(
        "wireguard_public_key",
        lambda: {"v": s(B64, 43) + "="},
        [
            "[Peer]\nPublicKey = {v}\nAllowedIPs = 10.9.0.5/32",
            "tester VPN peer public key {v}",
        ],
    )
    add_b(
        "eth_address",
        lambda: {"v": "0x" + s(HEX, 40)},
        [
            "funds drained to {v} after the key leak",
            "bounty paid to wallet {v}",
        ],
    )
    add_b(
        "jwk_public_key",
        lambda: {"v": b64u(bytes(r.getrandbits(8) for _ in range(96)))},
        [
            'jwks.json entry: {{"kty":"RSA","kid":"k1","use":"sig","e":"AQAB","n":"{v}"}}',
            "public modulus n={v} (from /.well-known/jwks.json)",
        ],
    )
    add_b(
        "webhook_signature_header",
        lambda: {"v": "sha256=" + s(HEX, 64)},
        [
            "X-Hub-Signature-256: {v} — verification now uses constant-time compare",
            "captured signature {v} for one payload; can't be reused for other bodies",
        ],
    )
    add_b(
        "other_sense_secret",
        lambda: {"v": ""},
        [
            "Secret Santa draw for the sec team is Friday",
            "the client considers the pricing algorithm a trade secret, keep it out of the report",
            '"secret" menu in the app (tap logo 7 times) only shows build info',
        ],
    )
    add_b(
        "default_password_changed",
        lambda: {"v": ""},
        [
            "retest: iDRAC default creds no longer accepted; unique per-host passwords set",
            "checked all 40 printers, no default admin passwords left",
            "router default login disabled, SSH key only now",
        ],
    )
    add_b(
        "env_example_placeholder",
        lambda: {
            "v": r.choice(["your-api-key-here", "changeme", "<insert token>", "xxxxxxxxxxxxxxxx"])
        },
        [
            ".env.example ships API_KEY={v} — placeholder, fine",
            "sample config: password: {v}  # set in prod via env",
        ],
    )
    add_b(
        "famous_example_password",
        lambda: {"v": r.choice(["hunter2", "correcthorsebatterystaple", "P@ssw0rd123 (example)"])},
        [
            "in the training deck, the weak-password example is '{v}'",
            "write-up uses {v} as the illustrative password",
        ],
    )
    add_b(
        "ssh_host_fingerprint",
        lambda: {"v": "SHA256:" + s(B64, 43)},
        [
            "bastion host key fingerprint {v} (ED25519), verify on first connect",
            "known_hosts mismatch: got {v}",
        ],
    )
    add_b(
        "gpg_fingerprint",
        lambda: {"v": " ".join(s("0123456789ABCDEF", 4) for _ in range(10))},
        [
            "sign the report with key fingerprint {v}",
            "PSIRT PGP fingerprint: {v}",
        ],
    )
    add_b(
        "cvss_vector",
        lambda: {"v": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:" + r.choice("HLN")},
        [
            "hardcoded key finding scored {v}",
            "vector {v}, severity Critical",
        ],
    )
    add_b(
        "oast_callback_domain",
        lambda: {"v": s(LOWNUM, 20) + ".oastify.com"},
        [
            "SSRF confirmed: DNS hit on {v}",
            "payload pointed at collaborator {v}",
        ],
    )
    add_b(
        "ja3_hash",
        lambda: {"v": s(HEX, 32)},
        [
            "the mobile app's TLS client JA3 {v}",
            "block JA3 {v} seen in the credential stuffing wave",
        ],
    )
    add_b(
        "revoked_last4_only",
        lambda: {"v": "****" + s(ALNUM, 4)},
        [
            "Stripe dashboard: key ending {v} rolled and revoked on {date}",
            "revoked token (last 4: {v}) — no further action",
        ],
    )
    add_b(
        "entropy_threshold_talk",
        lambda: {"v": ""},
        [
            "tune the scanner: entropy > 4.5 on base64 strings of 20+ chars gave too many FPs on hashes",
            "allowlist lockfiles and .min.map files, most high-entropy hits there are integrity hashes",
        ],
    )

    add_b(
        "hibp_kanon_prefix",
        lambda: {"v": s("0123456789ABCDEF", 5)},
        [
            "breach check uses the k-anonymity range API: only the SHA-1 prefix {v} leaves the box",
            "GET https://api.pwnedpasswords.com/range/{v} returned 612 suffixes",
            "prefix {v} is all we log for the breached-password check",
        ],
    )
    add_b(
        "leak_scan_fingerprint",
        lambda: {"v": f"{s(HEX, 40)}:config/prod.env:generic-api-key:{r.randint(2, 90)}"},
        [
            "baseline entry to ignore (already rotated): {v}",
            "scanner finding fingerprint {v} - marked resolved",
            "add {v} to .leakignore after the purge",
        ],
    )
    add_b(
        "report_redaction_placeholder",
        lambda: {
            "v": r.choice(
                [
                    "<REDACTED_API_KEY>",
                    "[secret removed by triage]",
                    "sk_live_<redacted>",
                    "AKIA[REDACTED]",
                ]
            )
        },
        [
            "PoC in the report: curl -H 'Authorization: Bearer {v}' https://{host}/v1/admin",
            "reporter's evidence shows {v} in place of the key, as asked",
            "per policy, quote the credential as {v} in the final PDF",
        ],
    )
    add_b(
        "public_bucket_object_url",
        lambda: {
            "v": f"https://{r.choice(['acme', 'corp'])}-assets-{s(LOWNUM, 6)}.s3.amazonaws.com/static/js/main.{s(HEX, 20)}.js"
        },
        [
            "bundle that had the key: {v} (object replaced)",
            "public object {v} is fine now, checked strings",
            "listing showed {v} plus 3 source maps; maps removed",
        ],
    )
    add_b(
        "oauth_state_param",
        lambda: {"v": s(URLSAFE, 32)},
        [
            "OAuth flow sets state={v} and it is validated on callback — CSRF check passes",
            "state param {v} differs per attempt, not reusable",
            "login redirect: /authorize?client_id=web&response_type=code&state={v}",
        ],
    )
    add_b(
        "firebase_project_config_ids",
        lambda: {"v": f"1:{r.randint(10**11, 10**12)}:android:{s(HEX, 22)}"},
        [
            "google-services.json mobilesdk_app_id {v} - an app identifier, not a credential",
            "Firebase app id {v}; rules tested, db not world-readable",
            "bounty claims the app id {v} is a leaked key - N/A",
        ],
    )
    add_b(
        "stripe_test_card",
        lambda: {
            "v": r.choice(["4242 4242 4242 4242", "4000 0000 0000 9995", "4000 0025 0000 3155"])
        },
        [
            "used Stripe test card {v} in staging to reproduce the race",
            "test card {v} (any future expiry, any CVC) for the checkout retest",
            "repro steps: pay with {v} in test mode",
        ],
    )
    add_b(
        "session_id_format_regex",
        lambda: {
            "v": r.choice([r"^[a-f0-9]{64}$", r"[A-Za-z0-9_-]{43}", r"^s%3A[A-Za-z0-9_-]{32}\."])
        },
        [
            "session ids match {v}; 256 bits from CSPRNG — entropy OK",
            "log redaction filter for session cookies: {v}",
            "WAF rule drops requests whose sid doesn't match {v}",
        ],
    )
    add_b(
        "api_key_name_label",
        lambda: {"v": f"key_{s(LOWNUM, 10)}"},
        [
            "created restricted key named reporting-ro (id {v}); the value went straight to the vault",
            "key object {v} deleted in the dashboard after the leak",
            "audit log: {v} last used 2026-03-02 — metadata only, no key material in the log",
        ],
    )

    s_frames = [
        "{c}",
        "Finding {fid} ({sev}): {c}\nRemediation: {rem}",
        "triage {date}: {c}",
        "SEC-{n} | {c}\nstatus: open, owner @{who}",
        "pentest notes, day {d}:\n{c}",
        "{c}\n-> {rem}",
        "remember: {c}",
    ]
    b_frames = [
        "{c}",
        "note: {c}",
        "report draft §{sec}: {c}",
        "SEC-{n} | {c}\nstatus: closed",
        "{c}\n(kept for the write-up)",
        "from @{who}: {c}",
    ]
    rems = [
        "rotate now, purge from history, add push protection",
        "revoke and reissue; move to the secrets manager",
        "invalidate all sessions and stop logging cookies",
        "rotate, then restrict the new key to the backend only",
        "kill the token, audit its usage logs for the last 90 days",
    ]
    defaults = [
        "calvin",
        "admin123",
        "changeme",
        "ubnt",
        "P@ssw0rd",
        "1234",
        "tomcat",
        "prom-operator",
    ]

    rows: list[dict] = []

    def build(label, kinds, frames):
        idx = 0
        for name, gen, tpls in kinds:
            for t in tpls:
                d = gen()
                ctx = {
                    "host": host(),
                    "n": r.randint(100, 9999),
                    "h8": s(HEX, 8),
                    "b": f"{r.choice(['acme', 'corp', 'prod'])}-{r.choice(['backups', 'assets', 'logs'])}-{s(LOWNUM, 5)}",
                    "c": s(LOWNUM, 5),
                    "o": r.randint(2, 250),
                    "date": date(),
                    "who": who(),
                }
                ctx.update(d)
                if name == "default_password_set":
                    ctx["d"] = defaults[idx % len(defaults)]
                    ctx["v"] = ctx["d"]
                if name in ("basic_auth_header", "docker_config_auth"):
                    ctx["b"] = base64.b64encode(f"{ctx['u']}:{ctx['p']}".encode()).decode()
                    ctx["v"] = ctx["b"] if "{b}" in t else ctx["p"]
                elif name == "azure_sas_token":
                    ctx["v"] = ctx["sig"]
                elif ctx.get("v", "") == "" and "p" in ctx:
                    ctx["v"] = ctx["p"]
                core = t.format(**ctx)
                fr = frames[idx % len(frames)]
                idx += 1
                text = fr.format(
                    c=core,
                    fid=fid(),
                    sev=r.choice(["Critical", "High", "Medium"]),
                    rem=r.choice(rems),
                    date=date(),
                    n=r.randint(100, 9999),
                    who=who(),
                    d=r.randint(1, 5),
                    sec=f"{r.randint(2, 6)}.{r.randint(1, 9)}",
                )
                v = ctx["v"]
                if label == "secret":
                    assert v, name
                rows.append({"label": label, "kind": name, "text": text, "value": v})

    build("secret", S, s_frames)
    build("benign", B, b_frames)

    for row in rows:
        assert row["value"] in row["text"], row
    assert len({row["text"] for row in rows}) == len(rows)
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

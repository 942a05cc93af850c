"""Blind secret-detection corpus 5: what coding agents write into memory while working.

Rows are memories a coding agent (Claude Code, Codex, Gemini CLI, Cursor) might store:
observations after running commands, summaries of config files it read (.env, ~/.npmrc,
kubeconfig, terraform.tfvars, appsettings.json, wp-config.php, ...), conventions, user
corrections, failed-command post-mortems with pasted output, procedures, fixtures, and notes
on where secrets live. Each row is labelled "secret" when storing it would leak something that
grants access to a real system, else "benign" (a look-alike).

Written blind on 2026-12-06: without reading graphit's detector, its tests, its docs or any
earlier corpus. Every credential-shaped value is generated here from a fixed seed; none is real.

Run: python benchmarks/data/blind_secrets/blind_secrets_5.py [out.jsonl]   (or to stdout)

Secret kinds (83): cloud (aws-key-pair, aws-session-token, gcp-service-account, google-api-key,
google-oauth-secret, azure-storage-conn, azure-sas, azure-client-secret, digitalocean-token,
cloudflare-token); code hosts and registries (github-pat, github-fine-grained,
github-app-token, git-url-token, gitlab-pat, npm-token, pypi-token, pip-index-password,
docker-auth, dockerhub-pat, jenkins-token); chat and SaaS (slack-bot-token, slack-webhook,
discord-webhook, discord-bot-token, telegram-bot-token, sendgrid-key, twilio-pair,
mailgun-key, shopify-token, linear-key, notion-token, atlassian-token, sentry-auth-token,
datadog-keys, newrelic-key, grafana-token, postman-key, mapbox-secret, okta-token,
databricks-token); payments (stripe-secret, stripe-restricted, stripe-webhook-secret,
stripe-test-secret, braintree-token); AI (openai-key, anthropic-key, huggingface-token,
groq-key); infra tokens (vault-token, terraform-cloud-token, doppler-token, pulumi-token,
heroku-netrc, k8s-sa-token, kubeconfig-client-key); keys (rsa-private-key,
openssh-private-key, pkcs8-private-key, wireguard-private-key, age-secret-key,
eth-private-key, wallet-mnemonic, totp-seed); app secrets (jwt-session,
supabase-service-role, django-secret-key, rails-secret, wordpress-config); passwords
(postgres-url, mongodb-uri, redis-url, amqp-url, dotnet-conn-string, spring-datasource,
tfvars-password, compose-password, smtp-password, ldap-bind-password, user-told-password,
basic-auth-header, server-login).

Benign kinds (62): references (env-var-ref, ci-secret-ref, vault-path, secrets-manager-arn,
password-manager-ref, k8s-secret-ref, npmrc-env-ref, tf-sensitive-var, db-url-env-password,
docker-login-stdin, sso-exec-config); placeholders and fakes (placeholder-value,
emulator-example-key, test-fixture-fake, jwt-io-example, redacted-token, token-last4,
local-default-creds, local-db-url, expired-otp); identifiers and hashes (git-sha,
image-digest, lock-integrity, module-checksum, artifact-checksum, cache-key, request-id,
aws-resource-id, kms-key-id, stripe-object-id, twilio-sid, github-app-ids, oauth-client-id,
password-hash-ref, stored-hash); public keys and client-side tokens (publishable-client-id,
public-map-token, telemetry-client-key, public-client-config, algolia-search,
recaptcha-site-key, public-sdk-key, ssh-public-key, host-fingerprint,
signing-key-fingerprint, x509-certificate, encryption-public-ref, wireguard-public-key,
wallet-public-id); encrypted (sops-value, encrypted-file, sealed-secret); prose and output
(password-policy, rotation-note, auth-error-no-secret, secret-regex, token-format-note,
base64-config, git-url-plain, secret-field-schema, kubectl-secret-list, secret-word-names).
"""

import base64
import json
import random
import re
import sys

SEED = 55129
U, LO, D = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", "0123456789"
AN, HX = U + LO + D, "0123456789abcdef"
B64, URL, B32 = AN + "+/", AN + "-_", U + "234567"
_WORDS = (
    "maple river copper lantern violet harbor quiet falcon orbit meadow cactus pepper "
    "velvet glacier timber saddle ember puzzle walnut canyon"
)
_BIP = (
    "abandon ability absorb actor adapt advice afraid agent alarm album alley anchor "
    "angle ankle apart arena armor arrow artist aspect athlete auction autumn avocado "
    "bacon badge balance bamboo banner barrel basket battle beach beef behave bench"
)
WORDS, BIP = _WORDS.split(), _BIP.split()

R = random.Random(SEED)
SA = "system:serviceaccount:ci:deployer"


def s(alpha: str, n: int) -> str:
    return "".join(R.choice(alpha) for _ in range(n))


def b64u(obj: dict) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt(payload: dict, alg: str = "HS256", siglen: int = 43) -> str:
    return f"{b64u({'alg': alg, 'typ': 'JWT'})}.{b64u(payload)}.{s(URL, siglen)}"


def pem(kind: str, head: str, lines: int) -> str:
    body = [head + s(B64, 64 - len(head))] + [s(B64, 64) for _ in range(lines)]
    return f"-----BEGIN {kind}-----\\n" + "\\n".join(body) + f"\\n-----END {kind}-----"


def pw() -> str:
    return (
        R.choice(WORDS).capitalize() + s(D, R.randint(2, 4)) + R.choice("!#$%&*?") + R.choice(WORDS)
    )


def uuid() -> str:
    h = s(HX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{R.choice('89ab')}{h[17:20]}-{h[20:]}"


def basic() -> str:
    return base64.b64encode(f"{R.choice(WORDS)}-ci:{pw()}".encode()).decode()


GEN = {
    "akia": lambda: "AKIA" + s(U + "234567", 16),
    "asia": lambda: "ASIA" + s(U + "234567", 16),
    "awssec": lambda: s(B64, 40),
    "awssess": lambda: "IQoJb3JpZ2luX2VjE" + s(B64, 240),
    "ghp": lambda: "ghp_" + s(AN, 36),
    "gho": lambda: "gho_" + s(AN, 36),
    "ghs": lambda: "ghs_" + s(AN, 36),
    "ghpat": lambda: "github_pat_11" + s(U + D, 20) + "_" + s(AN, 59),
    "glpat": lambda: "glpat-" + s(URL, 20),
    "xoxb": lambda: f"xoxb-{s(D, 11)}-{s(D, 13)}-{s(AN, 24)}",
    "xoxp": lambda: f"xoxp-{s(D, 11)}-{s(D, 11)}-{s(D, 13)}-{s(HX, 32)}",
    "slackhook": lambda: (
        f"https://hooks.slack.com/services/T{s(U + D, 10)}/B{s(U + D, 10)}/" + s(AN, 24)
    ),
    "dischook": lambda: f"https://discord.com/api/webhooks/{s(D, 19)}/{s(URL, 68)}",
    "sklive": lambda: "sk_live_51" + s(AN, 97),
    "sktest": lambda: "sk_test_51" + s(AN, 97),
    "rklive": lambda: "rk_live_51" + s(AN, 97),
    "pklive": lambda: "pk_live_51" + s(AN, 97),
    "whsec": lambda: "whsec_" + s(AN, 32),
    "openai": lambda: "sk-proj-" + s(URL, 74) + "T3BlbkFJ" + s(URL, 74),
    "anthropic": lambda: "sk-ant-api03-" + s(URL, 93) + "AA",
    "aiza": lambda: "AIza" + s(URL, 35),
    "gocspx": lambda: "GOCSPX-" + s(URL, 28),
    "npm": lambda: "npm_" + s(AN, 36),
    "pypi": lambda: "pypi-AgEIcHlwaS5vcmcCJD" + s(URL, 150),
    "hf": lambda: "hf_" + s(U + LO, 34),
    "sg": lambda: "SG." + s(URL, 22) + "." + s(URL, 43),
    "hex32": lambda: s(HX, 32),
    "hex40": lambda: s(HX, 40),
    "hex64": lambda: s(HX, 64),
    "HEX40": lambda: s(HX, 40).upper(),
    "uuid": uuid,
    "twsid": lambda: "AC" + s(HX, 32),
    "shpat": lambda: "shpat_" + s(HX, 32),
    "dop": lambda: "dop_v1_" + s(HX, 64),
    "tgbot": lambda: f"{s(D, 10)}:AA{s(URL, 33)}",
    "discbot": lambda: (
        base64.b64encode(s(D, 18).encode()).decode().rstrip("=") + f".{s(URL, 6)}.{s(URL, 38)}"
    ),
    "jwt": lambda: jwt({"sub": s(D, 7), "exp": 1796000000 + R.randint(0, 9999999)}),
    "jwtsvc": lambda: jwt({"iss": "supabase", "ref": s(LO, 20), "role": "service_role"}),
    "jwtanon": lambda: jwt({"iss": "supabase", "ref": s(LO, 20), "role": "anon"}),
    "k8sjwt": lambda: jwt({"iss": "kubernetes/serviceaccount", "sub": SA}, "RS256", 342),
    "rsa": lambda: pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 6),
    "ossh": lambda: pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", 5),
    "pkcs8": lambda: pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 6),
    "cert": lambda: pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU", 6),
    "pw": pw,
    "rpw": lambda: s(AN + "!@#%^*-_", 22),
    "azkey": lambda: s(B64, 86) + "==",
    "azsig": lambda: s(AN, 40) + "%2B" + s(AN, 2) + "%3D",
    "azcs": lambda: s(AN, 3) + "8Q~" + s(URL + ".~", 34),
    "vault": lambda: "hvs.CAESI" + s(URL, 86),
    "tfc": lambda: s(AN, 14) + ".atlasv1." + s(AN, 67),
    "doppler": lambda: "dp.st.prd." + s(AN, 43),
    "linear": lambda: "lin_api_" + s(AN, 40),
    "notion": lambda: "ntn_" + s(D, 11) + s(AN, 35),
    "atl": lambda: "ATATT3xFfGF0" + s(URL, 170) + "=" + s(U + D, 8),
    "sntrys": lambda: "sntrys_eyJpYXQiOjE3" + s(URL, 110) + "_" + s(URL, 43),
    "dckr": lambda: "dckr_pat_" + s(URL, 27),
    "glsa": lambda: "glsa_" + s(AN, 32) + "_" + s(HX, 8),
    "nrak": lambda: "NRAK-" + s(U + D, 27),
    "pmak": lambda: "PMAK-" + s(HX, 24) + "-" + s(HX, 34),
    "age": lambda: "AGE-SECRET-KEY-1" + s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
    "age1": lambda: "age1" + s("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
    "okta": lambda: "00" + s(URL, 40),
    "dapi": lambda: "dapi" + s(HX, 32),
    "pul": lambda: "pul-" + s(HX, 40),
    "gsk": lambda: "gsk_" + s(AN, 52),
    "bt": lambda: f"access_token$production${s(LO + D, 16)}${s(HX, 32)}",
    "mbsk": lambda: "sk.eyJ1IjoiZ" + s(URL, 50) + "." + s(URL, 22),
    "mbpk": lambda: "pk.eyJ1IjoiZ" + s(URL, 50) + "." + s(URL, 22),
    "cf": lambda: s(URL, 40),
    "wg": lambda: s(B64, 43) + "=",
    "mnemonic": lambda: " ".join(R.choice(BIP) for _ in range(12)),
    "totp": lambda: s(B32, 32),
    "django": lambda: s(LO + D + "!@#$%^&*(-_=+)", 50),
    "hex128": lambda: s(HX, 128),
    "jenkins": lambda: "11" + s(HX, 32),
    "basic": basic,
    "digest": lambda: "sha256:" + s(HX, 64),
    "integrity": lambda: "sha512-" + s(B64, 86) + "==",
    "gosum": lambda: "h1:" + s(B64, 43) + "=",
    "bcrypt": lambda: "$2b$12$" + s("./" + AN, 53),
    "sops": lambda: (
        f"ENC[AES256_GCM,data:{s(B64, 24)}=,iv:{s(B64, 43)}=,tag:{s(B64, 22)}==,type:str]"
    ),
    "avault": lambda: "$ANSIBLE_VAULT;1.1;AES256\\n" + "\\n".join(s(HX, 80) for _ in range(3)),
    "sealed": lambda: "AgB" + s(B64, 180),
    "sshpub": lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
    "fp": lambda: "SHA256:" + s(B64, 43),
    "ec2": lambda: "i-0" + s(HX, 16),
    "acct": lambda: s(D, 12),
    "cus": lambda: "cus_" + s(AN, 14),
    "pi": lambda: "pi_3" + s(AN, 23),
    "gclient": lambda: f"{s(D, 12)}-{s(LO + D, 32)}.apps.googleusercontent.com",
    "ethaddr": lambda: "0x" + s(HX, 40),
    "last4": lambda: s(AN, 4),
    "recap": lambda: "6L" + s(URL, 38),
    "ld": lambda: s(HX, 24),
    "b64": lambda: s(B64, 64),
    "b58": lambda: s("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 105),
    "b64cfg": lambda: base64.b64encode(
        json.dumps(
            {"region": "eu-west-1", "retries": R.randint(2, 9), "features": ["search", "export"]}
        ).encode()
    ).decode(),
}

# S = secret, B = benign. Texts of one kind are separated by " |~| "; "\n" means a newline;
# @@name@@ is replaced by a fresh value from GEN.
DATA = r"""
S aws-key-pair Ran `env | grep AWS` in the devcontainer to debug the S3 upload: AWS_ACCESS_KEY_ID=@@akia@@ AWS_SECRET_ACCESS_KEY=@@awssec@@ AWS_DEFAULT_REGION=eu-central-1. These are the deploy user's keys, not mine. |~| Summary of ~/.aws/credentials on the build box:\n[default]\naws_access_key_id = @@akia@@\naws_secret_access_key = @@awssec@@\n[prod-readonly]\nregion = us-east-1 |~| Deploy procedure for the reports lambda: export AWS_ACCESS_KEY_ID=@@akia@@ && export AWS_SECRET_ACCESS_KEY=@@awssec@@ then `sam deploy --config-env prod`.
S aws-session-token Assumed the ci-deployer role; `aws sts assume-role` returned AccessKeyId @@asia@@, SecretAccessKey @@awssec@@, SessionToken @@awssess@@ (valid 1h). Reuse them for the remaining terraform applies in this session. |~| The boto3 client in scripts/sync.py had hard-coded aws_session_token="@@awssess@@" alongside aws_access_key_id="@@asia@@" and aws_secret_access_key="@@awssec@@".
S github-pat `gh auth status` showed the token in use: Token: @@ghp@@ (scopes: repo, workflow, admin:org). The user said to keep using it for the release scripts. |~| The Makefile release target does `curl -H "Authorization: token @@ghp@@" https://api.github.com/repos/acme/billing/releases`; moving this to an env var is a TODO. |~| User correction: don't use the old bot token, it lacks packages:write. Use @@ghp@@ for pushing to ghcr.io from now on.
S github-fine-grained Fine-grained PAT for the docs-sync job (contents: read/write on acme/handbook only): @@ghpat@@ — expires 2027-03-01. |~| In .env.local: GITHUB_TOKEN=@@ghpat@@ (used by the renovate dry-run script).
S github-app-token The Actions log printed the installation token before masking kicked in: @@ghs@@. It was used by `git push https://x-access-token:...` in the mirror step. |~| ~/.config/gh/hosts.yml on this laptop:\ngithub.com:\n    user: dana-k\n    oauth_token: @@gho@@\n    git_protocol: https
S git-url-token `git remote -v` in the vendored repo shows origin https://x-access-token:@@ghs@@@github.com/acme/payments-sdk.git (fetch) — that's why pushes worked without a credential helper. |~| The Dockerfile clones the private lib with `RUN git clone https://oauth2:@@glpat@@@gitlab.acme.internal/platform/libauth.git`. |~| Submodule URL in .gitmodules is https://deploy-bot:@@ghp@@@github.com/acme/shared-protos.git; the user wants it switched to SSH.
S gitlab-pat GitLab token for the migration script (api + read_repository scopes): @@glpat@@. Set it as GITLAB_TOKEN before running `python migrate_issues.py`. |~| .gitlab-ci.yml had `PRIVATE-TOKEN: @@glpat@@` inline in the curl that triggers the downstream pipeline. |~| Got HTTP 401 from gitlab.com/api/v4/projects with header PRIVATE-TOKEN @@glpat@@; turned out the token belongs to the old group. User gave a new one: @@glpat@@.
S npm-token Read ~/.npmrc: //registry.npmjs.org/:_authToken=@@npm@@ and @acme:registry=https://npm.pkg.github.com. Publishing @acme/ui works with this. |~| `npm whoami` failed in CI until I added NPM_TOKEN=@@npm@@ to the runner env; works now (user: acme-publisher). |~| The .yarnrc.yml in the monorepo: npmRegistries:\n  "https://registry.npmjs.org":\n    npmAuthToken: @@npm@@
S pypi-token ~/.pypirc has [pypi]\nusername = __token__\npassword = @@pypi@@ — this is the upload token for the acme-geo project. |~| To publish: `twine upload -u __token__ -p @@pypi@@ dist/*` (user said the project-scoped token is fine to reuse).
S pip-index-password pip.conf on the runners: [global]\nextra-index-url = https://ci-reader:@@pw@@@nexus.acme.internal/repository/pypi-internal/simple |~| requirements.txt line 1 is `--index-url https://aws:@@rpw@@@acme-123456789012.d.codeartifact.eu-west-1.amazonaws.com/pypi/internal/simple/` — pasted by someone, needs removing. |~| uv config: UV_INDEX_ACME_PASSWORD=@@rpw@@ with UV_INDEX_ACME_USERNAME=build.
S docker-auth ~/.docker/config.json on the deploy VM: {"auths": {"registry.acme.io": {"auth": "@@basic@@"}}} — no credsStore, so the password is just base64. |~| Kaniko secret we mount: {"auths":{"https://index.docker.io/v1/":{"username":"acmebuild","password":"@@pw@@"}}}
S dockerhub-pat Docker Hub access token for the acmebuild account (read/write): @@dckr@@. Login with `echo <token> | docker login -u acmebuild --password-stdin`. |~| Found DOCKERHUB_TOKEN=@@dckr@@ in the old Jenkins job config while porting it to Actions.
S jenkins-token Jenkins API token for user svc-deploy: @@jenkins@@. Trigger builds with curl -u svc-deploy:<that> https://jenkins.acme.internal/job/api-deploy/buildWithParameters. |~| jenkins-cli.jar call that worked: java -jar jenkins-cli.jar -s https://ci.acme.io -auth admin:@@jenkins@@ build nightly-e2e
S slack-bot-token Slack bot token for the release-notifier app (chat:write to #releases): @@xoxb@@. |~| Post-mortem: `slack_sdk.errors.SlackApiError: missing_scope` when calling conversations.history with SLACK_BOT_TOKEN=@@xoxb@@ — needs channels:history added. |~| The user's own token that the export script uses (xoxp, so it acts as them): @@xoxp@@.
S slack-webhook Incoming webhook for #oncall-alerts (alertmanager receiver): @@slackhook@@ |~| alertmanager.yml → receivers[0].slack_configs[0].api_url: '@@slackhook@@' |~| Notify step in deploy.sh: curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed"}' @@slackhook@@
S discord-webhook Discord webhook the game server posts crash reports to: @@dischook@@ |~| In bot/config.toml: crash_webhook = "@@dischook@@"
S discord-bot-token DISCORD_TOKEN in the bot's .env is @@discbot@@ (app "ModBuddy"). The user rotated the previous one after it was posted in chat. |~| client.run('@@discbot@@') is hard-coded at the bottom of main.py; left it because the user asked not to refactor yet.
S telegram-bot-token Telegram bot for deploy approvals: token @@tgbot@@, chat id -1001873344512. |~| Debugged 409 Conflict from getUpdates: two instances polling with the same bot token @@tgbot@@. Killed the stale one on vps-2.
S sendgrid-key SendGrid key used by the transactional mailer (full access, sadly): @@sg@@ |~| settings/production.py: EMAIL_HOST_USER = 'apikey'; EMAIL_HOST_PASSWORD = '@@sg@@'; EMAIL_HOST = 'smtp.sendgrid.net' |~| Ran the mail smoke test; SendGrid returned 403 "The from address does not match a verified Sender Identity" using key @@sg@@.
S twilio-pair Twilio creds from .env: TWILIO_ACCOUNT_SID=@@twsid@@ TWILIO_AUTH_TOKEN=@@hex32@@ — the SMS 2FA flow needs both. |~| Twilio client in notify/sms.go: twilio.NewRestClientWithParams(twilio.ClientParams{Username: "@@twsid@@", Password: "@@hex32@@"})
S mailgun-key Mailgun private API key (EU region): key-@@hex32@@, domain mg.acme.shop. Send with curl -s --user 'api:key-...' https://api.eu.mailgun.net/v3/mg.acme.shop/messages. |~| config/mail.php had 'secret' => env('MAILGUN_SECRET', 'key-@@hex32@@') — the fallback default is a live key.
S shopify-token Shopify Admin API access token for acme-store.myshopify.com: @@shpat@@ (scopes read_orders, write_products). |~| X-Shopify-Access-Token: @@shpat@@ — the header the inventory sync sends; got 402 Payment Required today because the store is frozen.
S digitalocean-token doctl was authenticated with `doctl auth init -t @@dop@@` on the bastion; that token can create droplets. |~| terraform.tfvars for the DO stack: do_token = "@@dop@@"\nregion = "fra1"
S stripe-secret Stripe live secret key in the payments service .env: STRIPE_SECRET_KEY=@@sklive@@ |~| User correction: don't use the staging key, the webhook replay needs live mode — use @@sklive@@ for this one-off and then forget it. |~| `stripe.error.AuthenticationError: Invalid API Key provided: sk_live_****` — the value in Heroku config was stale; the correct one from the dashboard is @@sklive@@.
S stripe-restricted Restricted Stripe key (read-only charges, for the analytics export): @@rklive@@ |~| The Metabase connector uses STRIPE_RESTRICTED_KEY=@@rklive@@.
S stripe-webhook-secret Webhook signing secret for the /stripe/events endpoint (prod): @@whsec@@. Without it signature verification fails with 400. |~| app/config/stripe.yml → signing_secret: "@@whsec@@"
S stripe-test-secret Local dev uses the Stripe test key of the real acme account: STRIPE_SECRET_KEY=@@sktest@@ (test mode only, but it's our account). |~| For the integration tests against Stripe's test mode run `STRIPE_API_KEY=@@sktest@@ pytest -m stripe`.
S braintree-token Braintree production access token for PayPal checkout: @@bt@@ |~| In appsettings.Production.json: "Braintree": { "AccessToken": "@@bt@@" }
S openai-key OPENAI_API_KEY=@@openai@@ (project "support-bot"; billed to the team card). |~| The eval harness reads the key from ~/.config/evals/keys.json: {"openai": "@@openai@@"}. |~| Got 429 insufficient_quota from api.openai.com with Bearer @@openai@@; user topped up credits and said retry.
S anthropic-key ANTHROPIC_API_KEY for the summarizer worker: @@anthropic@@ |~| Ran `curl https://api.anthropic.com/v1/messages -H "x-api-key: @@anthropic@@" ...` and got 529 overloaded; retried with backoff and it passed.
S huggingface-token HF token with write access to the acme org (for pushing fine-tuned checkpoints): @@hf@@ |~| `huggingface-cli login --token @@hf@@` was run in the training container; the token is cached in ~/.cache/huggingface/token now.
S groq-key GROQ_API_KEY=@@gsk@@ is in the notebook's first cell; user wants it moved to a secret later. |~| The LiteLLM proxy config lists model groq/llama-3.1-70b with api_key: @@gsk@@
S google-api-key Server-side Google API key (Geocoding + Places, no restrictions set): @@aiza@@ — used by geo/service.py. |~| YouTube Data API key for the ingest cron: YT_API_KEY=@@aiza@@, quota 10k units/day.
S google-oauth-secret Google OAuth client for the admin SSO: client_id @@gclient@@, client_secret @@gocspx@@. |~| settings.py: SOCIAL_AUTH_GOOGLE_OAUTH2_SECRET = "@@gocspx@@"
S gcp-service-account Read sa-ci.json (GCP service account for artifact registry): {"type": "service_account", "project_id": "acme-prod-3412", "private_key_id": "@@hex40@@", "private_key": "@@pkcs8@@", "client_email": "ci-pusher@acme-prod-3412.iam.gserviceaccount.com"} |~| GOOGLE_APPLICATION_CREDENTIALS points to /srv/keys/bq-writer.json; its private_key is @@pkcs8@@
S azure-storage-conn appsettings.json → "AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=acmefuncprod;AccountKey=@@azkey@@;EndpointSuffix=core.windows.net" |~| Azurite isn't used in CI; tests hit the real account with AZURE_STORAGE_KEY=@@azkey@@ (account acmeteststore).
S azure-sas Blob SAS URL for the nightly export container (write, valid to 2027): https://acmeexports.blob.core.windows.net/nightly?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-06-30T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig=@@azsig@@ |~| azcopy copy ./dump "https://acmebackup.blob.core.windows.net/db?sp=racwl&se=2027-01-31&sv=2022-11-02&sr=c&sig=@@azsig@@" worked after the firewall rule.
S azure-client-secret Service principal for terraform: ARM_CLIENT_ID=@@uuid@@ ARM_CLIENT_SECRET=@@azcs@@ ARM_TENANT_ID=@@uuid@@ |~| The MSAL confidential client in auth/graph.ts uses clientSecret: "@@azcs@@".
S vault-token VAULT_ADDR=https://vault.acme.internal:8200 and VAULT_TOKEN=@@vault@@ (root-ish policy; the user said only for the migration). |~| ~/.vault-token on the ops box contains @@vault@@
S terraform-cloud-token ~/.terraform.d/credentials.tfrc.json: {"credentials": {"app.terraform.io": {"token": "@@tfc@@"}}} |~| TF_TOKEN_app_terraform_io=@@tfc@@ is exported in the CI job that runs plan.
S doppler-token Doppler service token for prd config of the api project: @@doppler@@. `doppler run --token ... -- npm start` |~| DOPPLER_TOKEN=@@doppler@@ is set on the Render service.
S pulumi-token PULUMI_ACCESS_TOKEN=@@pul@@ for the acme org; `pulumi login` needs it on new runners. |~| Pulumi token pasted in the README by mistake: @@pul@@ — told the user.
S heroku-netrc ~/.netrc has machine api.heroku.com\n  login ops@acme.io\n  password @@uuid@@\nmachine git.heroku.com\n  login ops@acme.io\n  password @@uuid@@ |~| HEROKU_API_KEY=@@uuid@@ lets the release script call `heroku releases:rollback` without login.
S k8s-sa-token kubeconfig for the ci context: users:\n- name: ci-deployer\n  user:\n    token: @@k8sjwt@@ |~| Extracted the deployer service-account token with `kubectl create token deployer -n ci --duration=8760h`: @@k8sjwt@@
S kubeconfig-client-key kubeconfig (kind cluster is not it, this is prod-eu): users[0].user.client-certificate-data: LS0tLS1CRUdJTiBDRVJU... and client-key-data: @@pkcs8@@ |~| The admin kubeconfig copied from the control plane includes the client key:\n@@rsa@@
S rsa-private-key deploy key for the legacy ftp box, found in scripts/keys/id_rsa (should not be in git):\n@@rsa@@ |~| The SAML signing key used by the IdP config (saml/idp.key):\n@@rsa@@
S openssh-private-key User pasted the bastion key so I could run the backup by hand:\n@@ossh@@ |~| ~/.ssh/id_ed25519 on the CI runner (it has access to all prod hosts):\n@@ossh@@
S pkcs8-private-key Apple Push (APNs) .p8 key for the iOS app, key id 7XK2M9Q4LB:\n@@pkcs8@@ |~| TLS key for api.acme.shop (nginx ssl_certificate_key):\n@@pkcs8@@
S wireguard-private-key wg0.conf on the office gateway: [Interface]\nPrivateKey = @@wg@@\nAddress = 10.8.0.1/24\nListenPort = 51820 |~| My peer config for the staging VPN: PrivateKey = @@wg@@, Endpoint = vpn.acme.io:51820
S age-secret-key sops uses age; the key file ~/.config/sops/age/keys.txt holds:\n# public key: @@age1@@\n@@age@@ |~| SOPS_AGE_KEY=@@age@@ is exported in the deploy job so helm-secrets can decrypt.
S eth-private-key Hardhat config for the testnet deployer uses a funded mainnet account by mistake: accounts: ["@@hex64@@"]. |~| DEPLOYER_PRIVATE_KEY=0x@@hex64@@ in contracts/.env (mainnet treasury deployer).
S wallet-mnemonic The faucet wallet seed phrase (holds real funds on mainnet): @@mnemonic@@ |~| MNEMONIC="@@mnemonic@@" in the relayer's .env.
S totp-seed TOTP secret for the shared ops AWS root account MFA: @@totp@@ (otpauth://totp/AWS:root?secret=... ). |~| The 2FA seed for the npm publisher account, from the QR setup: otpauth://totp/npm:acme-publisher?secret=@@totp@@&issuer=npm
S jwt-session Reproduced the 500 on /api/orders with `curl -H "Authorization: Bearer @@jwt@@" https://api.acme.shop/api/orders?page=2` (token copied from the user's browser session). |~| The 401 went away when I used the admin's access token @@jwt@@; it expires end of month.
S supabase-service-role SUPABASE_SERVICE_ROLE_KEY=@@jwtsvc@@ (bypasses RLS; server only). |~| The edge function creates the admin client with createClient(url, "@@jwtsvc@@").
S django-secret-key settings/production.py: SECRET_KEY = '@@django@@' — hard-coded, not read from env. |~| Production DJANGO_SECRET_KEY from the Ansible inventory host_vars: @@django@@
S rails-secret config/master.key content (prod credentials): @@hex32@@ |~| SECRET_KEY_BASE=@@hex128@@ is set on the production dyno.
S wordpress-config wp-config.php of the marketing site: define( 'DB_NAME', 'wp_marketing' ); define( 'DB_USER', 'wp_admin' ); define( 'DB_PASSWORD', '@@pw@@' ); define( 'DB_HOST', 'db.acme.internal' ); |~| wp-config.php salts block: define('AUTH_KEY', '@@django@@'); define('SECURE_AUTH_KEY', '@@django@@'); define('LOGGED_IN_KEY', '@@django@@');
S postgres-url DATABASE_URL=postgres://app_rw:@@rpw@@@prod-db.c9x8a7b6.eu-west-1.rds.amazonaws.com:5432/orders |~| Migration failed: psycopg.OperationalError: connection to server at "10.2.4.17", port 5432 failed: FATAL: password authentication failed for user "reporting" (dsn postgresql://reporting:@@pw@@@10.2.4.17:5432/analytics). |~| User: the staging DB password changed, it's now @@pw@@ for user app on staging-pg.acme.internal.
S mongodb-uri MONGO_URI=mongodb+srv://api-svc:@@rpw@@@cluster0.x7kq2.mongodb.net/shop?retryWrites=true&w=majority |~| pymongo.errors.OperationFailure: bad auth : Authentication failed., full error: {'ok': 0, 'errmsg': 'bad auth'} connecting to mongodb://admin:@@pw@@@mongo-1.acme.internal:27017/?authSource=admin
S redis-url REDIS_URL=rediss://default:@@rpw@@@redis-12345.c1.eu-west-1-2.ec2.cloud.redislabs.com:12345 |~| redis.conf on cache-2: requirepass @@pw@@ ; the worker connects with redis://:@@pw@@@cache-2:6379/3
S amqp-url Celery broker: CELERY_BROKER_URL = "amqp://orders:@@pw@@@rabbit.acme.internal:5672/orders" |~| RabbitMQ admin login for the management UI at :15672 is admin / @@rpw@@ (the user set it last week).
S dotnet-conn-string appsettings.Production.json: "ConnectionStrings": { "Default": "Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=Billing;User ID=billing_app;Password=@@rpw@@;Encrypt=True;" } |~| SqlException on startup: Login failed for user 'sa'. Connection string was Data Source=10.0.3.9;Initial Catalog=Legacy;User Id=sa;Password=@@pw@@;
S spring-datasource application-prod.properties:\nspring.datasource.url=jdbc:mysql://mysql-prod:3306/catalog\nspring.datasource.username=catalog\nspring.datasource.password=@@pw@@ |~| application.yml (prod profile): spring.mail.password: @@rpw@@ and spring.mail.username: noreply@acme.io
S tfvars-password terraform.tfvars (prod): db_master_password = "@@rpw@@"\ndb_instance_class = "db.r6g.large" |~| Ran `terraform apply -var 'admin_password=@@pw@@'` for the new Grafana instance as the user instructed.
S compose-password docker-compose.prod.yml → services.db.environment: POSTGRES_PASSWORD: @@rpw@@ (this compose file runs on the real prod VM). |~| The prod stack's compose sets MINIO_ROOT_PASSWORD=@@rpw@@ for the object store that holds customer uploads.
S smtp-password SMTP relay for alerts: smtp.office365.com:587, user alerts@acme.io, password @@pw@@ |~| Grafana SMTP block in grafana.ini: [smtp]\nenabled = true\nhost = smtp.mailgun.org:587\nuser = postmaster@mg.acme.io\npassword = @@rpw@@
S ldap-bind-password LDAP bind for the Jira connector: cn=svc-jira,ou=services,dc=acme,dc=local / @@pw@@ |~| sssd.conf: ldap_default_bind_dn = uid=binder,ou=sys,dc=acme,dc=io\nldap_default_authtok = @@rpw@@
S user-told-password The user said the admin login for the staging Keycloak is admin / @@pw@@ and asked me to remember it. |~| Correction from the user: the router's admin password is not the default anymore, it's @@pw@@. |~| El usuario indicó que la contraseña del servidor FTP de producción es @@pw@@ (usuario: deploy). |~| Der Nutzer hat das Passwort für den Jenkins-Admin genannt: @@pw@@
S basic-auth-header Reproduced the webhook call: curl -H "Authorization: Basic @@basic@@" https://hooks.acme.internal/ingest — returns 202. |~| In tests/e2e/config.ts the staging gateway header is set to 'Basic @@basic@@' (real staging creds).
S server-login To deploy the legacy PHP app: ssh deploy@203.0.113.40 (password @@pw@@), then `cd /var/www/app && git pull && sudo systemctl reload php8.2-fpm` (sudo password is the same). |~| The IPMI console for db-host-3 is at https://10.9.0.33, login ADMIN / @@rpw@@.
S linear-key LINEAR_API_KEY=@@linear@@ for the changelog generator (reads issues in team ENG). |~| The MCP server config for Linear: {"env": {"LINEAR_API_KEY": "@@linear@@"}}
S notion-token Notion integration secret for the docs importer: @@notion@@ (shared with the "Engineering Wiki" page). |~| NOTION_TOKEN=@@notion@@ in .env of the notion-sync script.
S atlassian-token Atlassian API token for dana@acme.io (Jira + Confluence): @@atl@@. Auth is basic with email:token. |~| jira-cli config ~/.config/.jira/.config.yml has the token in JIRA_API_TOKEN: @@atl@@
S sentry-auth-token Sentry auth token used by the source-map upload step: SENTRY_AUTH_TOKEN=@@sntrys@@ |~| .sentryclirc: [auth]\ntoken=@@sntrys@@
S datadog-keys Datadog: DD_API_KEY=@@hex32@@ DD_APP_KEY=@@hex40@@ (site datadoghq.eu), used by the monitors terraform. |~| datadog.yaml on the hosts: api_key: @@hex32@@
S newrelic-key New Relic user key for NerdGraph queries: @@nrak@@ |~| NEW_RELIC_API_KEY=@@nrak@@ in the terraform provider env.
S grafana-token Grafana service account token (Editor) for dashboard provisioning: @@glsa@@ |~| grafanactl context: server https://grafana.acme.io, token @@glsa@@
S postman-key Postman API key for the collection sync: @@pmak@@ |~| newman run with --postman-api-key @@pmak@@ in the nightly job.
S mapbox-secret Mapbox secret token (downloads:read, for the iOS SDK): @@mbsk@@ — goes in ~/.netrc for machine api.mapbox.com. |~| MAPBOX_DOWNLOADS_TOKEN=@@mbsk@@ in gradle.properties of the Android app.
S cloudflare-token Cloudflare API token with Zone:DNS:Edit on acme.io: CF_API_TOKEN=@@cf@@ (used by certbot-dns-cloudflare). |~| /etc/letsencrypt/cloudflare.ini: dns_cloudflare_api_token = @@cf@@
S okta-token Okta API token (SSWS) for user provisioning: Authorization: SSWS @@okta@@, org https://acme.okta.com |~| okta.yaml: okta:\n  client:\n    orgUrl: https://acme.okta.com\n    token: @@okta@@
S databricks-token Databricks PAT for the dbt job: DATABRICKS_TOKEN=@@dapi@@, host adb-4421.7.azuredatabricks.net |~| ~/.databrickscfg:\n[DEFAULT]\nhost = https://acme.cloud.databricks.com\ntoken = @@dapi@@
B env-var-ref settings.py reads the key with os.environ["STRIPE_SECRET_KEY"]; never default it in code. |~| In the Node service the token comes from process.env.GITHUB_TOKEN ?? '' and the client throws if empty. |~| Go: apiKey := os.Getenv("OPENAI_API_KEY"); if apiKey == "" { log.Fatal("OPENAI_API_KEY not set") } |~| appsettings.json has "ConnectionStrings": { "Default": "" } and the real value comes from the ConnectionStrings__Default env var in App Service.
B ci-secret-ref The publish workflow uses NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}; the secret lives in the repo settings, not in the file. |~| deploy.yml: env: AWS_ROLE_ARN: ${{ vars.DEPLOY_ROLE_ARN }} plus `permissions: id-token: write` — OIDC, no long-lived keys. |~| GitLab CI masked variable $DOCKER_AUTH_CONFIG is defined at group level; the job only references it. |~| Jenkinsfile: withCredentials([string(credentialsId: 'sonar-token', variable: 'SONAR_TOKEN')]) { sh 'sonar-scanner -Dsonar.token=$SONAR_TOKEN' } — the credential lives in the Jenkins store.
B vault-path DB creds are fetched at boot from Vault: `vault kv get -field=password secret/data/payments/postgres`. |~| The app's Vault role is payments-api with policy read on kv/data/payments/*; auth via kubernetes method. |~| Rotation is done by the database secrets engine: `vault read database/creds/readonly` returns a 1h lease.
B secrets-manager-arn Secret for the RDS master user: arn:aws:secretsmanager:eu-west-1:@@acct@@:secret:prod/orders/rds-master-Xk29Pq; the lambda has GetSecretValue on it. |~| ECS task definition maps DB_PASSWORD from valueFrom: arn:aws:ssm:us-east-1:@@acct@@:parameter/prod/api/db_password (SecureString).
B password-manager-ref The deploy script reads the token via `op read "op://Engineering/Cloudflare DNS token/credential"`; 1Password CLI must be signed in. |~| Staging DB password lives in Bitwarden item "staging-postgres (app user)" — ask the user to unlock it instead of storing it. |~| .env.tpl uses 1Password references: DATABASE_PASSWORD=op://Dev/orders-db/password and `op inject -i .env.tpl -o .env`.
B k8s-secret-ref Deployment env: - name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: orders-db-credentials\n      key: password |~| The Helm chart accepts existingSecret: redis-auth and existingSecretPasswordKey: redis-password; we set those instead of auth.password. |~| ExternalSecret syncs remoteRef key prod/orders/db property password into the k8s secret orders-db (refreshInterval 1h).
B npmrc-env-ref ~/.npmrc in the repo root: //npm.pkg.github.com/:_authToken=${NODE_AUTH_TOKEN} and @acme:registry=https://npm.pkg.github.com — the token is injected by CI. |~| .yarnrc.yml: npmAuthToken: "${NPM_TOKEN:-}" so local installs of public packages still work. |~| ~/.m2/settings.xml server id acme-releases uses <password>${env.MAVEN_REPO_PASSWORD}</password>; CI exports it from the secret store.
B tf-sensitive-var variables.tf: variable "db_password" { type = string sensitive = true } — no default; supplied via TF_VAR_db_password in CI. |~| terraform.tfvars.example lists db_password = "" and api_token = "" with a comment to fill them from Vault. |~| output "db_password" { value = random_password.db.result sensitive = true } — terraform shows (sensitive value) in plan output, which is what I saw.
B db-url-env-password DATABASE_URL=postgres://app:${POSTGRES_PASSWORD}@db:5432/app in docker-compose.yml; the password comes from the .env that isn't committed. |~| Spring config: spring.datasource.password=${DB_PASSWORD} and spring.datasource.url=jdbc:postgresql://${DB_HOST}:5432/catalog |~| Connection string template in appsettings.json: "Server=tcp:{server};Database=Billing;Authentication=Active Directory Managed Identity;" — no password, uses MSI.
B docker-login-stdin To push images locally: `aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin @@acct@@.dkr.ecr.eu-west-1.amazonaws.com`. |~| CI logs in with `echo "$CR_PAT" | docker login ghcr.io -u "$GITHUB_ACTOR" --password-stdin`; never pass -p on the command line. |~| gcloud auth configure-docker europe-west1-docker.pkg.dev adds a credHelper entry to ~/.docker/config.json; no password is stored in the file.
B placeholder-value .env.example: STRIPE_SECRET_KEY=sk_live_your_key_here\nOPENAI_API_KEY=<your-openai-key>\nDATABASE_URL=postgres://user:password@localhost:5432/app |~| The README says to set API_TOKEN=changeme before the first run and replace it with a real token from the admin UI. |~| config/credentials.yml.example: aws:\n  access_key_id: YOUR_ACCESS_KEY_ID\n  secret_access_key: YOUR_SECRET_ACCESS_KEY |~| wp-config-sample.php still has define( 'DB_PASSWORD', 'password_here' ); and the salts are 'put your unique phrase here'.
B emulator-example-key The SDK docs' sample credentials AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY are what moto's tests expect; don't replace them with real ones. |~| localstack setup: AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_ENDPOINT_URL=http://localhost:4566 — localstack accepts anything. |~| The IAM policy doc example in docs uses arn:aws:iam::123456789012:user/Alice and key id AKIAI44QH8DHBEXAMPLE. |~| The Azure docs' Azurite connection uses the well-known devstoreaccount1 account key Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tOAJ/K1SZFPTOtr/KBHBeksoGMGw==; it only works against the local emulator.
B test-fixture-fake Created tests/fixtures/fake_env with SLACK_BOT_TOKEN=xoxb-test-0000 and STRIPE_SECRET_KEY=sk_test_dummy so the settings loader tests don't need real values. |~| conftest.py now sets monkeypatch.setenv("GITHUB_TOKEN", "ghp_fake_token_for_tests") before each test. |~| Fixture user for the login tests: username alice@example.com, password "correct-horse-test-only", created in the ephemeral sqlite db by the factory. |~| Added a throwaway RSA key generated at test time with cryptography's rsa.generate_private_key(public_exponent=65537, key_size=2048); nothing is written to disk.
B jwt-io-example Used the jwt.io sample token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c in the parser unit test; it's signed with 'your-256-bit-secret'. |~| Decoded the failing token's header and claims only: {"alg":"RS256","kid":"2026-11"} / {"iss":"https://auth.acme.io","aud":"orders","exp":1796400000} — the kid didn't match JWKS. |~| Unit test builds tokens with jwt.encode({'sub': 'user-1'}, 'test-secret', algorithm='HS256') at runtime against an in-memory verifier; nothing is persisted.
B redacted-token Actions log shows the token as ***; masking works for GH_TOKEN. |~| Heroku config:get output I saw: STRIPE_SECRET_KEY=sk_live_••••••••••••••••3kQa (the CLI truncates). |~| The 401 body: {"error":"invalid_api_key","message":"Incorrect API key provided: sk-proj-****...****w8Qa."} — the key in .env was an old one; the user will replace it. |~| `kubectl get secret orders-db -o yaml` shows password: <redacted by the audit wrapper>; decode it yourself only if needed.
B token-last4 The CI deploy key in the Stripe dashboard is the one ending in @@last4@@ (created 2026-09-14); the others are revoked. |~| GitHub shows the bot's PAT as "release-bot (…@@last4@@), expires in 12 days" — remind the user to renew. |~| The Datadog API key in use is the one labelled 'terraform' with last four 9f2c in the org settings; the others are unused.
B local-default-creds The local docker-compose Postgres uses postgres/postgres on localhost:5432 only (dev container, not exposed). |~| minio in docker-compose.dev.yml runs with the defaults minioadmin/minioadmin bound to 127.0.0.1:9000 for local tests. |~| RabbitMQ dev image defaults guest/guest, which only works from localhost anyway. |~| Keycloak dev mode (start-dev) in compose uses KEYCLOAK_ADMIN=admin / KEYCLOAK_ADMIN_PASSWORD=admin; the container only listens on localhost:8081.
B git-sha Bisected the regression to commit @@hex40@@ ("switch to orjson"); reverted it on main. |~| Release v3.14.2 is tag → @@hex40@@; the hotfix branch was cut from @@hex40@@. |~| `git rev-parse HEAD` in the deploy container printed @@hex40@@, which matches the image label org.opencontainers.image.revision.
B image-digest Pinned the base image to python:3.12-slim@@@digest@@ so rebuilds are reproducible. |~| Argo rolled out ghcr.io/acme/api@@@digest@@; the previous digest was @@digest@@. |~| Cosign verified the image signature for ghcr.io/acme/worker@@@digest@@ against the keyless identity of the release workflow.
B lock-integrity package-lock.json changed only the integrity of lodash: "integrity": "@@integrity@@" after the registry switch. |~| pnpm-lock.yaml entry resolution: {integrity: @@integrity@@} for react-dom 18.3.1 — mismatches cause ERR_PNPM_TARBALL_INTEGRITY. |~| poetry.lock has files = [{file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:@@hex64@@"}] — pip --require-hashes checks these.
B module-checksum go.sum mismatch for golang.org/x/net v0.31.0 h1 hash: expected @@gosum@@; fixed with `go clean -modcache && go mod download`. |~| The checksum db returned github.com/acme/lib v1.4.0/go.mod @@gosum@@; GOFLAGS=-mod=mod was needed. |~| Cargo.lock checksum for serde 1.0.215 = "@@hex64@@"; cargo complained after the vendored copy was edited.
B request-id The 502 from the gateway had x-request-id @@uuid@@; CloudWatch logs for it show the upstream timeout. |~| Stripe request id req_@@last4@@@@last4@@xYz9 for the failed refund; their support wants it in the ticket. |~| Trace id @@hex32@@ in Tempo shows 3.2s spent in the inventory call.
B aws-resource-id The flaky runner is EC2 @@ec2@@ in subnet subnet-0@@last4@@a1b2c3d4e5f and security group sg-0@@last4@@9f8e7d6c5b4; account @@acct@@. |~| Terraform state lock stuck with ID @@uuid@@; `terraform force-unlock` after confirming nobody runs apply. |~| CloudFront distribution E2QWRTYUIOP3AS serves the docs bucket; invalidation id I3HV9XJ2KQ8Z1.
B kms-key-id Secrets are encrypted with KMS key arn:aws:kms:eu-west-1:@@acct@@:key/@@uuid@@ (alias/orders-prod). |~| SOPS .sops.yaml creation_rules: kms: arn:aws:kms:us-east-1:@@acct@@:key/@@uuid@@ for path_regex secrets/prod/.* |~| GCP KMS key for the backups: projects/acme-prod-3412/locations/europe-west1/keyRings/backups/cryptoKeys/pg-dumps (HSM protection).
B stripe-object-id Refund failed for customer @@cus@@ on payment intent @@pi@@: charge already refunded. |~| Test clock for subscription tests: clock_1Q@@last4@@AbCdEfGh; price id price_1P@@last4@@ZzYyXxWw. |~| Webhook event evt_1Q@@last4@@Lm2Nb8Xc9Vz0 (invoice.payment_failed) replayed locally with `stripe events resend`.
B twilio-sid The SMS logs in the Twilio console are under account SID @@twsid@@ (the subaccount for EU). |~| Message SID SM@@hex32@@ failed with error 30007 (carrier filtering). |~| Verify service SID VA@@hex32@@ is the one the signup flow uses; configured in settings as TWILIO_VERIFY_SID.
B github-app-ids GitHub App "acme-ci" has App ID 812345, installation id 49012377, and client id Iv23li@@last4@@Qw8ZpXn; the private key is in Vault. |~| OAuth app client ID Ov23li@@last4@@Rt5kLmNo is public in the login URL; the client secret is stored as a GitHub secret. |~| Dependabot PR #4412 was opened by app installation 49012377; the app's webhook delivery id was @@uuid@@.
B oauth-client-id Web OAuth client id for Sign in with Google (public, in the frontend bundle): @@gclient@@. |~| Firebase project number 4471203398 and project id acme-shop-prod; the web config goes in public/firebase.js per Firebase docs. |~| Azure AD app registration for the admin UI: Application (client) ID @@uuid@@, Directory (tenant) ID @@uuid@@ — both appear in the login redirect URL.
B artifact-checksum Verified the terraform zip: sha256sum terraform_1.9.8_linux_amd64.zip → @@hex64@@, matches SHA256SUMS. |~| Artifact checksum for the release tarball: @@hex64@@  acme-cli-2.3.0.tar.gz |~| Subresource integrity for the CDN script: integrity="sha384-@@b64@@" crossorigin="anonymous".
B cache-key actions/cache key is Linux-pip-@@hex64@@ (hashFiles of requirements*.txt); cache hit rate is fine. |~| Turborepo remote cache hash @@hex40@@ for the build of apps/web missed because of an env var change. |~| ETag for the catalog JSON: W/"@@hex32@@"; the CDN revalidates correctly.
B password-hash-ref Seed migration inserts the demo admin with password_hash '@@bcrypt@@' (the hash only; the demo password is generated per environment). |~| The htpasswd file for the staging docs basic-auth contains docs:@@bcrypt@@ — hashed, regenerate with htpasswd -B. |~| /etc/shadow entry pattern we check in the hardening test: the deploy user must have '!' or '*' (locked) in the password field, never a hash.
B stored-hash API keys are stored hashed: api_keys.key_hash = sha256(key) e.g. @@hex64@@ with prefix "ak_live_7Qx" kept for lookup. |~| The webhook signature we compute (HMAC-SHA256 of the body) for the test payload is @@hex64@@; compare with hmac.compare_digest. |~| Django stores passwords as pbkdf2_sha256$870000$<salt>$<hash>; the migration only changes the iteration count.
B publishable-client-id Frontend config: STRIPE_PUBLISHABLE_KEY=@@pklive@@ — publishable keys are meant for the browser. |~| checkout.js calls Stripe('@@pklive@@') on page load. |~| PayPal JS SDK loads with client-id=A@@cf@@@@cf@@ in the script URL; the client id is public, the secret stays on the server.
B public-map-token Mapbox public token (pk.) for the web map, URL-restricted to acme.io: @@mbpk@@ |~| NEXT_PUBLIC_MAPBOX_TOKEN=@@mbpk@@ in .env.production of the marketing site. |~| Google Maps JS key in the browser is restricted by HTTP referrer to *.acme.io/* and to the Maps JavaScript API only, per the user's decision.
B telemetry-client-key Sentry DSN for the browser SDK (public, in index.html): https://@@hex32@@@o4505@@last4@@.ingest.us.sentry.io/4506112233445566 |~| sentry.client.config.ts: Sentry.init({ dsn: "https://@@hex32@@@o118822.ingest.sentry.io/4504001122334455", tracesSampleRate: 0.1 }) |~| Datadog RUM in the web app: clientToken pub@@hex32@@ and applicationId @@uuid@@ — client tokens are designed for browsers.
B public-client-config Frontend uses the Supabase anon key (RLS enforced): NEXT_PUBLIC_SUPABASE_ANON_KEY=@@jwtanon@@ |~| supabase.ts: createClient("https://xyzcompany.supabase.co", "@@jwtanon@@") — anon key, safe client-side. |~| Firebase web config in src/firebase.ts: apiKey 'AIzaSyD-example-web-config', authDomain acme-shop-prod.firebaseapp.com, projectId acme-shop-prod; access is governed by security rules.
B algolia-search InstantSearch config: appId 'LX7Q2M4K9P', search-only apiKey '@@hex32@@' (the admin key is server-side only). |~| DocSearch config for the docs site: apiKey (search-only, public) @@hex32@@, indexName acme-docs.
B recaptcha-site-key reCAPTCHA v3 site key in the signup form: @@recap@@ (public; the secret key is in Vault). |~| hCaptcha sitekey for the contact form is @@uuid@@, rendered in the HTML.
B public-sdk-key LaunchDarkly client-side ID for the React SDK: @@ld@@ (designed to be public). |~| PostHog project API key phc_@@last4@@Xk9qL2mN8vB7cZ1dF4gH6jK3lP0oI5uY is embedded in the web app; it can only send events.
B ssh-public-key Added the CI runner's public key to the deploy user's authorized_keys: @@sshpub@@ ci-runner@acme |~| GitHub deploy key (read-only) for acme/config: @@sshpub@@ deploy@config |~| Age of the RSA host key doesn't matter; the new bastion's public key is ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB@@azkey@@ root@bastion-2.
B host-fingerprint First connect to the new bastion showed ED25519 key fingerprint @@fp@@; matches what the user posted in #infra. |~| known_hosts entry for github.com verified against the published fingerprint SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU. |~| TLS cert SHA-256 fingerprint of the internal registry: @@HEX40@@ — pinned in the runner's config as a public fingerprint.
B signing-key-fingerprint Release tags are signed with GPG key @@HEX40@@ (release@acme.io); `git tag -v v2.0.0` checks out. |~| apt repo signing key fingerprint: @@HEX40@@ — import from keyserver, don't pin a copy. |~| Signed commits: the user's SSH signing key fingerprint @@fp@@ is registered on GitHub as a signing key.
B x509-certificate The internal CA root cert we add to the Java truststore (public):\n@@cert@@ |~| nginx ssl_certificate points to /etc/ssl/api.acme.shop.crt; first block:\n@@cert@@
B encryption-public-ref .sops.yaml: creation_rules: - age: @@age1@@ (the team's public recipient; private key is on each dev's machine). |~| Add a new dev to sops: append their public key @@age1@@ and run `sops updatekeys secrets/*.yaml`. |~| Vault's transit key orders-pii exports only its public key; the app encrypts with `vault write transit/encrypt/orders-pii`.
B wireguard-public-key Peer added on the gateway: [Peer]\nPublicKey = @@wg@@\nAllowedIPs = 10.8.0.14/32 |~| The laptop's WireGuard public key is @@wg@@; the server only needs that one.
B wallet-public-id Contract deployed to Sepolia at @@ethaddr@@; verified on Etherscan. |~| Treasury multisig address @@ethaddr@@ (Safe, 3-of-5) — payouts go here. |~| Bitcoin cold-wallet xpub for the donation page (watch-only, public): xpub6C@@b58@@.
B sops-value secrets/prod.yaml is SOPS-encrypted: db_password: @@sops@@ — edit with `sops secrets/prod.yaml`. |~| helm-secrets values: stripe.secretKey: @@sops@@ |~| Rails credentials.yml.enc is committed (encrypted); the master.key is NOT in git and is provided as RAILS_MASTER_KEY in the host's env.
B encrypted-file group_vars/prod/vault.yml is encrypted:\n@@avault@@\nUse `ansible-vault edit` with the password from 1Password. |~| Inline vaulted var: db_pass: !vault |\n  @@avault@@ |~| git-crypt protects secrets/*.env; a fresh clone shows binary garbage until `git-crypt unlock` with the team's GPG key.
B sealed-secret SealedSecret orders-db: spec.encryptedData.password: @@sealed@@ — only the controller can decrypt it. |~| Regenerated the sealed secret with kubeseal --format yaml; encryptedData.api-key is now @@sealed@@ |~| kubeseal --fetch-cert > pub-cert.pem saved the controller's public certificate so devs can seal offline.
B password-policy Keycloak realm password policy: length(14) and notUsername and passwordHistory(5); the tests for signup need 14+ chars. |~| Convention: never log request bodies on /auth/*; the logger has a redaction filter for keys named password, token, secret, authorization. |~| Le mot de passe des comptes de service est généré par Vault et tourne toutes les 24 h; ne jamais le copier dans un fichier.
B rotation-note Rotated the Slack bot token today after it showed up in a CI log; the new one is only in the Slack app settings and GitHub secrets. |~| User decision: all AWS access keys for humans get deleted; people use `aws sso login --profile acme-dev` instead. |~| The leaked npm token from last week was revoked by npm's secret scanning; publishing now uses trusted publishing (OIDC), no token.
B auth-error-no-secret `gh api repos/acme/infra` → HTTP 401: Bad credentials (https://api.github.com). The GH_TOKEN in the shell was empty, so gh fell back to nothing. |~| psql: error: connection to server at "localhost" (::1), port 5432 failed: FATAL:  password authentication failed for user "app" — the local .env had the wrong variable name (PG_PASS vs PGPASSWORD). |~| botocore.exceptions.ClientError: An error occurred (ExpiredToken) when calling the GetCallerIdentity operation: The security token included in the request is expired — ran `aws sso login` again. |~| HTTP/1.1 403 Forbidden\nx-amz-request-id: 4X7Q9PZ2KD8M1N3B\n<Code>SignatureDoesNotMatch</Code> — clock skew on the VM; fixed with chrony.
B secret-regex Added a pre-commit check: re.compile(r"AKIA[0-9A-Z]{16}") and r"ghp_[A-Za-z0-9]{36}" over staged diffs; false positives go in .secrets-allowlist. |~| The log scrubber in logging.go masks `(?i)(authorization: )(bearer|basic) [^\s]+` to `$1$2 [REDACTED]`.
B token-format-note GitHub fine-grained tokens start with github_pat_ and classic ones with ghp_; the org policy now blocks classic tokens. |~| Stripe keys: sk_ is secret, pk_ is publishable, rk_ is restricted; _test_ vs _live_ tells the mode. The linter flags sk_live_ in code. |~| Slack tokens: xoxb- is a bot token, xoxp- a user token, xapp- an app-level token for Socket Mode.
B base64-config The config map value APP_SETTINGS is base64 of plain JSON: @@b64cfg@@ (region and feature flags only). |~| The kubectl patch payload I used: @@b64cfg@@ — it's just the non-secret defaults. |~| A Kubernetes Secret manifest in the chart's tests has data: {username: YWRtaW4=, password: cGxhY2Vob2xkZXI=} which decode to admin / placeholder.
B git-url-plain Remote is git@github.com:acme/payments.git; HTTPS clones use the credential helper (osxkeychain) so no token in URLs. |~| .gitmodules points to https://github.com/acme/shared-protos.git (public repo, no auth needed). |~| Go private modules: GOPRIVATE=github.com/acme/* and git config url."git@github.com:".insteadOf "https://github.com/".
B sso-exec-config ~/.aws/config: [profile acme-dev]\nsso_session = acme\nsso_account_id = @@acct@@\nsso_role_name = PowerUser\nregion = eu-west-1\n[sso-session acme]\nsso_start_url = https://acme.awsapps.com/start |~| The prod profile assumes role arn:aws:iam::@@acct@@:role/ReadOnly via source_profile = acme-dev and mfa_serial = arn:aws:iam::@@acct@@:mfa/dana. |~| ~/.kube/config for the EKS cluster uses exec: command aws, args [eks, get-token, --cluster-name, prod-eu] — short-lived tokens, nothing stored.
B local-db-url Test DB: DATABASE_URL=postgresql://postgres@localhost:5432/app_test (trust auth in the CI service container). |~| SQLite for dev: sqlite:///./dev.db; prod uses IAM auth tokens for RDS, generated per connection. |~| redis://localhost:6379/0 for the local Celery broker; no password in dev. |~| mongodb://localhost:27017/shop_dev with no auth for the devcontainer; the prod URI is fetched from Secrets Manager at startup.
B expired-otp The 2FA code the user read out (482913) was already used for the npm login and is expired now. |~| Email verification link for the test account contained token=@@hex32@@; it's single-use and was consumed by the e2e test. |~| Password reset code in the Mailpit inbox for test-user@example.com was 731 044 — local Mailpit, throwaway.
B secret-field-schema Pydantic model: class Settings(BaseSettings): database_url: PostgresDsn; stripe_secret_key: SecretStr; jwt_secret: SecretStr = Field(min_length=32). |~| OpenAPI spec: components.securitySchemes.ApiKeyAuth: {type: apiKey, in: header, name: X-API-Key}; the key is issued per tenant in the admin UI. |~| The TypeScript type: interface Credentials { username: string; password: string; mfaToken?: string } — used by the login form only.
B kubectl-secret-list `kubectl get secrets -n payments` → orders-db-credentials (Opaque, 3 keys), stripe-api (Opaque, 2), regcred (kubernetes.io/dockerconfigjson). No values printed. |~| `aws secretsmanager list-secrets` shows prod/orders/rds-master, prod/api/stripe, and staging/api/stripe, all with rotation enabled except staging.
B secret-word-names Branch fix/token-refresh-race handles the case where two requests refresh the OAuth token at once. |~| Renamed SECRET_KEY_FALLBACKS handling in settings so key rotation keeps old sessions valid for a day. |~| Test names: test_password_reset_rejects_reused_token, test_api_key_header_is_case_insensitive. |~| The Helm values key is auth.existingSecret; the chart docs call the fields secretName and secretKey.
"""  # noqa: E501


def corpus() -> list[dict]:
    R.seed(SEED)
    rows = []
    for line in DATA.strip().splitlines():
        tag, kind, texts = line.split(" ", 2)
        label = {"S": "secret", "B": "benign"}[tag]
        for raw in texts.split(" |~| "):
            text = re.sub(r"@@(\w+)@@", lambda m: GEN[m.group(1)](), raw).replace("\\n", "\n")
            rows.append({"label": label, "kind": kind, "text": text})
    return rows


def main() -> None:
    out = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

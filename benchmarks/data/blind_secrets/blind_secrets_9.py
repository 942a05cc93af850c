"""Blind secrets corpus 9: memories a coding agent might keep, labelled secret or benign.

Written blind on 2026-12-06: the author read neither the secret detector's rules nor any
earlier corpus, fixture or test. Every credential-shaped value is generated here from a
seeded `random.Random`; none is real. A row is "secret" when storing its text would leak
something that grants access to a real system, "benign" otherwise.

Run:  python benchmarks/data/blind_secrets/blind_secrets_9.py [OUT.jsonl]   (or to stdout)
Use:  from blind_secrets_9 import corpus; rows = corpus()   # same rows on every call

Kinds, grouped:
  secret, cloud: aws keys and session tokens, gcp service account and oauth, azure storage,
    sas, client secret, digitalocean, cloudflare, heroku, fly, vercel, netlify
  secret, forges and CI: github classic/fine-grained/oauth/app tokens, gitlab, bitbucket,
    npm, pypi, docker hub, jfrog, sonar, buildkite, terraform cloud, circleci, git url creds
  secret, SaaS and AI: openai, anthropic, groq, hugging face, replicate, stripe, square,
    paypal, twilio, sendgrid, mailgun, mailchimp, slack, discord, telegram, shopify, atlassian,
    linear, notion, figma, postman, airtable, datadog, new relic, sentry auth, grafana,
    okta, pagerduty, algolia admin, mapbox secret, supabase service role, doppler, vault,
    tailscale, ngrok, databricks, launchdarkly sdk, hubspot, 1password service account
  secret, generic: database urls, .pgpass, jdbc, redis, amqp, basic/bearer headers, curl -u,
    passwords in prose/compose/docker/ini/yaml, k8s secret data, kubeconfig, private keys
    (rsa, openssh, ec, pgp, pkcs8 in json), jwt session tokens, signing secrets (django,
    rails, flask, jwt), webhook secrets, totp seeds, recovery codes, wifi, age, wireguard,
    ethereum private key
  benign: hashes and ids (commit shas, digests, integrity, go.sum, lock checksums, uuids,
    ulids, object ids, trace ids, request ids, container ids, stripe/slack object ids,
    cloud account/tenant ids), public material (ssh/pgp public keys, certificates,
    fingerprints, publishable/site/search-only/anon keys, oauth client ids, sentry dsn,
    firebase web config, addresses), references (env vars, secret refs, vault paths, ci
    secrets, placeholders, documented examples, redacted or masked values, encrypted
    blobs, password hashes, kms key ids, keygen commands, masked cli output), and prose
    about keys, tokens, passwords, rotation, policy, oauth flows, scanners and access
    control (db keys, design tokens, rate-limit and llm tokens, i18n strings, chat asks).
"""

import base64
import json
import random
import re
import sys

SEED = 60417
_B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_ALPHA = {
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "a": _B62,
    "l": "abcdefghijklmnopqrstuvwxyz0123456789",
    "u": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "L": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "d": "0123456789",
    "b": _B62 + "+/",
    "w": _B62 + "_-",
    "B": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    "c": "qpzry9x8gf2tvdw0s3jn54khce6mua7l",
    "C": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "p": _B62 + "!#^*-_=+",
}
_WORDS = [
    *("maple", "river", "copper", "falcon", "harbor", "winter", "lemon", "violet", "orbit"),
    *("cactus", "pepper", "summer", "tiger", "silver", "meadow", "rocket", "saturn", "pickle"),
]
_SLOT = re.compile(r"\{(h|H|a|l|u|L|d|b|w|B|c|C|p|pw|uuid|jwt|pem|pemj)(?::(\w+))?\}")


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _fill(rng: random.Random, text: str) -> str:
    def one(m: re.Match) -> str:
        kind, arg = m.group(1), m.group(2)
        if kind in _ALPHA:
            return "".join(rng.choice(_ALPHA[kind]) for _ in range(int(arg)))
        if kind == "pw":
            a, b = rng.sample(_WORDS, 2)
            sep, end = rng.choice("-_.!"), rng.choice("!#*$")
            return f"{a.title()}{sep}{b.title()}{rng.randint(10, 99)}{end}"
        if kind == "uuid":
            h = "".join(rng.choice(_ALPHA["h"]) for _ in range(32))
            return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"
        if kind == "jwt":
            head = _b64url(b'{"alg":"HS256","typ":"JWT"}')
            iat = rng.randint(1_760_000_000, 1_790_000_000)
            claims = {"sub": str(rng.randint(1000, 99999)), "iat": iat, "exp": iat + 3600}
            if arg:
                claims = {"iss": "supabase", "role": arg, "iat": iat, "exp": iat + 10**8}
            body = _b64url(json.dumps(claims, separators=(",", ":")).encode())
            sig = "".join(rng.choice(_ALPHA["w"]) for _ in range(43))
            return f"{head}.{body}.{sig}"
        lines = ["".join(rng.choice(_ALPHA["b"]) for _ in range(64)) for _ in range(int(arg))]
        return ("\\n" if kind == "pemj" else "\n").join(lines)

    return _SLOT.sub(one, text).replace("¶", "\n")


# One line per kind: label (S secret, B benign), kind, then texts separated by " @@ ".
# "¶" is a newline; {x:N} is N random characters of alphabet x (see _ALPHA).
DATA = r"""
S aws_access_key_pair: Staging deploy user for the nightly export: AWS_ACCESS_KEY_ID=AKIA{B:16} AWS_SECRET_ACCESS_KEY={b:40} (region eu-west-1). @@ ~/.aws/credentials on the build box:¶[default]¶aws_access_key_id = AKIA{B:16}¶aws_secret_access_key = {b:40} @@ Ops handed over the S3 uploader creds in chat: key AKIA{B:16} / secret {b:40}, bucket acme-invoices-prod.
S aws_session_token: Temporary creds from `aws sts assume-role` for the migration (expire 17:00): AWS_ACCESS_KEY_ID=ASIA{B:16} AWS_SECRET_ACCESS_KEY={b:40} AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE{b:120} @@ Exported for the debugging session: export AWS_SESSION_TOKEN="FwoGZXIvYXdzE{b:140}" together with secret {b:40}.
S aws_secret_only: The lambda was failing because AWS_SECRET_ACCESS_KEY in .env.production was truncated; the correct value is {b:40}. @@ boto3 snippet that finally worked: `boto3.client("s3", aws_access_key_id=KEY_ID, aws_secret_access_key="{b:40}")`
S gcp_service_account_json: Service account for BigQuery loads, paste into the CI variable: {"type": "service_account", "project_id": "acme-analytics-prod", "private_key_id": "{h:40}", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{b:32}\n{pemj:8}\n-----END PRIVATE KEY-----\n", "client_email": "loader@acme-analytics-prod.iam.gserviceaccount.com"} @@ key.json for the firebase-admin script: "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC{b:32}\n{pemj:6}\n-----END PRIVATE KEY-----\n"
S google_oauth_client_secret: Google login for the admin panel: client id {d:12}-{l:32}.apps.googleusercontent.com, client secret GOCSPX-{w:28} @@ Set GOOGLE_CLIENT_SECRET=GOCSPX-{w:28} in Render, otherwise the callback returns invalid_client.
S google_oauth_refresh_token: Refresh token for the Sheets sync bot (do not regenerate, consent screen is a pain): 1//0{w:100} @@ Access token captured while debugging Drive quota: ya29.a0{w:150}
S google_api_key_server: Geocoding backend key (server side, unrestricted!) MAPS_API_KEY=AIza{w:35} @@ YouTube Data API key used by the ingest worker: AIza{w:35} - billed to the marketing project.
S azure_storage_connection_string: AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmeblobprod;AccountKey={b:86}==;EndpointSuffix=core.windows.net" @@ Blob backup job uses account stbackups01 with key {b:86}== (key1 from the portal).
S azure_sas_token: Shared link for the vendor upload container: https://acmeshare.blob.core.windows.net/uploads?sv=2022-11-02&ss=b&srt=co&sp=rwdlacx&se=2027-03-01T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={a:43}%3D @@ SAS for the log export, valid a year: ?sv=2021-06-08&ss=bfqt&srt=sco&sp=rl&se=2027-12-31T23:59:59Z&spr=https&sig={a:42}%2B{a:1}%3D
S azure_client_secret: App registration "ci-deployer": tenant {uuid}, client id {uuid}, secret {a:3}{d:1}Q~{w:31} @@ AZURE_CLIENT_SECRET={a:3}{d:1}Q~{w:31} expires 2027-06; renew in Entra before then.
S digitalocean_token: doctl auth init --access-token dop_v1_{h:64} @@ Terraform provider token for the DO droplets: DIGITALOCEAN_TOKEN=dop_v1_{h:64}
S cloudflare_api_token: Cloudflare token with Zone:DNS:Edit for cert-manager: CF_API_TOKEN={w:40} @@ Cloudflare global API key (legacy, used by the old purge script): X-Auth-Key: {h:37} with X-Auth-Email: ops@acme.io
S heroku_api_key: HEROKU_API_KEY={uuid} lets the GitHub action push to acme-staging. @@ New-format Heroku token for the review-app bot: HRKU-AA{w:58}
S vercel_netlify_token: Vercel deploy token for the docs site: VERCEL_TOKEN={a:24} @@ netlify deploy --auth nfp_{a:36} --prod --dir=dist
S fly_token: fly tokens create deploy output: FlyV1 fm2_{w:160} @@ Set FLY_API_TOKEN="FlyV1 fm2_{w:140}" in the repo secrets (I pasted it here so we have it).
S github_pat_classic: My PAT for pushing release tags from the laptop: ghp_{a:36} @@ GH_TOKEN=ghp_{a:36} gh release create v2.3.0 --generate-notes @@ Note to self: the old runner still authenticates with ghp_{a:36}, revoke after the move to Actions.
S github_pat_fine_grained: Fine-grained token (contents:read on acme/infra only): github_pat_11{u:20}_{a:59} @@ Renovate needs RENOVATE_TOKEN=github_pat_11{u:20}_{a:59}
S github_oauth_app_tokens: gh auth status shows: Token: gho_{a:36} (scopes: repo, read:org) @@ GitHub App installation token minted for the backfill script: ghs_{a:36} (valid 1h) @@ Refresh token from the device flow: ghr_{a:76}
S gitlab_token: GitLab PAT for the mirror job: glpat-{w:20} @@ Runner registration: gitlab-runner register --url https://gitlab.acme.dev --token glrt-{w:20} @@ Deploy token for pulling images: username gitlab+deploy-token-{d:6}, password gldt-{w:20}
S bitbucket_app_password: Bitbucket app password for the Jenkins checkout, user acme-ci: ATBB{a:32}{H:8} @@ BITBUCKET_APP_PASSWORD=ATBB{a:32}{H:8}
S npm_token: .npmrc on the publishing machine:¶//registry.npmjs.org/:_authToken=npm_{a:36} @@ NPM_TOKEN=npm_{a:36} (automation token, bypasses 2FA)
S pypi_token: Upload with twine: TWINE_USERNAME=__token__ TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmcC{w:150} @@ ~/.pypirc¶[pypi]¶username = __token__¶password = pypi-AgENdGVzdC5weXBpLm9yZw{w:140}
S docker_hub_token: docker login -u acmebuild -p dckr_pat_{w:27} @@ Docker Hub access token for CI pulls (rate limits): dckr_pat_{w:27}
S jfrog_token: Artifactory API key for the Maven mirror: AKCp{a:69} @@ JFROG_ACCESS_TOKEN=cmVmdGtuOjAxOjE3{a:46}
S sonar_token: sonar-scanner -Dsonar.token=sqp_{h:40} -Dsonar.projectKey=acme_api @@ SONAR_TOKEN=squ_{h:40}
S buildkite_circleci_token: Buildkite API token for the flaky-test dashboard: bkua_{h:40} @@ CircleCI personal token used by the release script: CCIPAT_{a:22}_{h:40}
S terraform_cloud_token: ~/.terraformrc¶credentials "app.terraform.io" {¶  token = "{a:14}.atlasv1.{a:67}"¶} @@ TF_TOKEN_app_terraform_io={a:14}.atlasv1.{a:67}
S git_url_credentials: Remote was set with the token inline: git remote set-url origin https://x-access-token:ghs_{a:36}@github.com/acme/payments.git @@ ~/.git-credentials has https://deploy:{pw}@git.acme.internal - that is the shared deploy account. @@ Cloned with https://oauth2:glpat-{w:20}@gitlab.com/acme/ml-pipelines.git
S openai_key: OPENAI_API_KEY=sk-proj-{w:156} @@ Old key still in the notebook: openai.api_key = "sk-{a:20}T3BlbkFJ{a:20}" @@ Service account key for the eval harness: sk-svcacct-{w:140}
S anthropic_key: ANTHROPIC_API_KEY=sk-ant-api03-{w:93}AA @@ Admin key for usage reports: sk-ant-admin01-{w:93}AA
S other_llm_keys: GROQ_API_KEY=gsk_{a:52} @@ Mistral key for the summariser fallback: MISTRAL_API_KEY={a:32} @@ xai-{a:80} is the Grok key for the comparison run.
S huggingface_token: huggingface-cli login --token hf_{L:34} @@ HF_TOKEN=hf_{L:34} (write access, needed to push the fine-tuned model)
S replicate_perplexity_key: REPLICATE_API_TOKEN=r8_{a:37} @@ Perplexity key for the research agent: pplx-{a:48}
S stripe_secret_key: STRIPE_SECRET_KEY=sk_live_51{a:22}{a:75} @@ Restricted key for the refund worker (charges:write only): rk_live_51{a:22}{a:75} @@ Stripe: live secret sk_live_{a:24} still in the legacy PHP config, rotate when we kill it.
S stripe_test_key: Test mode key for the local checkout flow: STRIPE_SECRET_KEY=sk_test_51{a:22}{a:75} @@ Integration tests hit Stripe with sk_test_{a:24}
S stripe_webhook_secret: Webhook signing secret for /hooks/stripe: STRIPE_WEBHOOK_SECRET=whsec_{a:32} @@ stripe listen printed: Ready! Your webhook signing secret is whsec_{h:64}
S square_paypal_token: Square production access token: EAAA{w:60} @@ Braintree/PayPal token for payouts: access_token$production${l:16}${h:32}
S twilio_auth_token: Twilio account AC{h:32}, auth token {h:32} - used for the SMS 2FA. @@ TWILIO_API_KEY=SK{h:32} TWILIO_API_SECRET={a:32}
S sendgrid_key: SENDGRID_API_KEY=SG.{w:22}.{w:43} @@ Transactional mail key (full access, oops): SG.{w:22}.{w:43}
S mailgun_mailchimp_key: Mailgun private key for mg.acme.io: key-{h:32} @@ Mailchimp API key for the newsletter sync: {h:32}-us{d:2} @@ MAILGUN_API_KEY={h:32}-{h:8}-{h:8}
S slack_bot_token: SLACK_BOT_TOKEN=xoxb-{d:12}-{d:13}-{a:24} @@ User token I used to export the channel history: xoxp-{d:12}-{d:12}-{d:13}-{h:32} @@ Socket mode needs SLACK_APP_TOKEN=xapp-1-A{u:10}-{d:13}-{h:64}
S slack_webhook: Deploy notifications go to https://hooks.slack.com/services/T{u:8}/B{u:10}/{a:24} @@ SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T0{u:8}/B0{u:9}/{a:24}
S slack_signing_secret: Slack app "standup-bot" signing secret {h:32}, client secret {h:32}.
S discord_telegram_bot: DISCORD_TOKEN=M{a:23}.G{w:5}.{w:38} @@ Telegram bot for alerts: TELEGRAM_BOT_TOKEN={d:10}:AA{w:33} @@ Discord webhook for #builds: https://discord.com/api/webhooks/{d:19}/{w:68}
S shopify_token: Shopify Admin API access token for the storefront sync: shpat_{h:32} @@ Custom app secret: shpss_{h:32}
S atlassian_token: Jira API token for the ticket bot (user bot@acme.io): ATATT3xFfGF0{w:180}={H:8} @@ curl -u me@acme.io:ATATT3xFfGF0{w:170}={H:8} https://acme.atlassian.net/rest/api/3/myself
S linear_notion_figma: LINEAR_API_KEY=lin_api_{a:40} @@ Notion integration secret for the wiki export: ntn_{d:11}{a:35} @@ Figma personal token for the icon pipeline: figd_{w:40}
S postman_airtable: Postman API key for collection sync: PMAK-{h:24}-{h:34} @@ AIRTABLE_TOKEN=pat{a:14}.{h:64}
S datadog_keys: DD_API_KEY={h:32} DD_APP_KEY={h:40} - used by the terraform datadog provider. @@ datadog-agent install: DD_API_KEY={h:32} DD_SITE="datadoghq.eu" bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"
S newrelic_key: New Relic user key for NerdGraph queries: NRAK-{u:27} @@ NEW_RELIC_LICENSE_KEY={h:36}NRAL
S sentry_auth_token: SENTRY_AUTH_TOKEN=sntrys_eyJpYXQiOjE3{w:60}_{w:43} for uploading source maps. @@ User auth token for sentry-cli: sntryu_{h:64}
S grafana_token: Grafana service account token for the dashboards-as-code repo: glsa_{a:32}_{h:8} @@ Grafana Cloud access policy token: glc_eyJvIjoi{w:100}
S okta_pagerduty: Okta API token for SCIM provisioning: 00{w:40} @@ PagerDuty REST key for the incident bot: u+{w:18}
S algolia_admin_key: Algolia app {u:10}, admin API key {h:32} (indexing job only, never ship to the frontend).
S mapbox_secret_token: Mapbox secret token with styles:write: sk.eyJ1IjoiYWNtZSIsImEiOiJ{w:20}.{w:22}
S supabase_service_role: SUPABASE_SERVICE_ROLE_KEY={jwt:service_role} @@ New supabase secret key for the edge function: sb_secret_{w:32}
S doppler_vault_token: Doppler service token for prod config: dp.st.prd.{a:40} @@ export VAULT_TOKEN=hvs.{a:24} @@ Vault root token after re-init (store in the safe!): hvs.CAESI{w:90}
S onepassword_service_account: OP_SERVICE_ACCOUNT_TOKEN=ops_eyJzaWduSW5BZGRyZXNzIjoi{w:200}
S tailscale_ngrok: Tailscale auth key for the CI runners (reusable): tskey-auth-k{a:11}CNTRL-{a:33} @@ ngrok config add-authtoken 2{a:26}_{a:21}
S databricks_token: DATABRICKS_TOKEN=dapi{h:32} host https://adb-{d:16}.{d:1}.azuredatabricks.net
S launchdarkly_sdk_key: LaunchDarkly server SDK key for prod: sdk-{uuid}
S hubspot_token: HubSpot private app token for the CRM sync: pat-na1-{uuid}
S database_url: DATABASE_URL=postgres://app_user:{pw}@db-prod.c{l:12}.eu-west-1.rds.amazonaws.com:5432/app @@ Mongo for the analytics service: mongodb+srv://analytics:{a:16}@cluster0.{l:5}.mongodb.net/events?retryWrites=true @@ mysql -h 10.20.3.14 -u reporting -p'{pw}' reporting_db
S pgpass_line: ~/.pgpass entry for the replica: replica-1.internal:5432:*:readonly:{pw}
S jdbc_url: spring.datasource.url=jdbc:sqlserver://sql01.acme.local:1433;databaseName=erp;user=erp_app;password={pw} @@ jdbc:oracle:thin:scott/{a:14}@//ora-prod:1521/ORCLPDB1 is the connection string the vendor gave us.
S redis_amqp_url: REDIS_URL=redis://default:{a:32}@redis-{d:5}.c{d:3}.us-east-1-2.ec2.cloud.redislabs.com:{d:5} @@ CELERY_BROKER_URL=amqp://celery:{pw}@rabbitmq.prod:5672//
S basic_auth_header: Request that reproduced the 500: curl -H "Authorization: Basic {b:40}=" https://api.partner.com/v2/orders (decodes to our prod integration user). @@ Metrics endpoint is behind basic auth; curl -u prometheus:{pw} https://metrics.acme.io/federate
S bearer_token_header: Replayed the webhook with: curl -H "Authorization: Bearer {a:48}" https://api.acme.io/internal/reindex @@ Partner API token (long-lived, no expiry): Bearer {w:64}
S password_prose: The staging jump host root password is {pw} - changed after the incident. @@ Vendor portal login: ops@acme.io / {pw} @@ Die Zugangsdaten für das Router-Admin-Panel: admin / {pw}
S password_config: docker-compose.prod.yml:¶  environment:¶    POSTGRES_PASSWORD: "{p:20}"¶    POSTGRES_USER: app @@ application.yml: spring.mail.password: {pw} (smtp.office365.com) @@ settings.ini¶[ldap]¶bind_dn = cn=svc-ldap,ou=svc,dc=acme,dc=local¶bind_password = {p:18}
S password_cli: docker run -d -e MYSQL_ROOT_PASSWORD={p:22} -p 3306:3306 mysql:8 (prod replica on db03) @@ Fixed the cron: sshpass -p '{pw}' rsync -av backup@10.0.8.5:/srv/ /mnt/backup/ @@ redis-cli -h cache.prod -a {a:32} INFO memory
S smtp_credentials: SMTP for alerts: host smtp.sendgrid.net, user apikey, password SG.{w:22}.{w:43} @@ Le mot de passe SMTP du compte noreply@acme.fr est {pw}, ne pas le changer sans prévenir le support.
S k8s_secret_data: kubectl get secret db-creds -o yaml¶data:¶  username: YXBwX3VzZXI=¶  password: {b:24}¶type: Opaque (password decodes to the prod db password) @@ apiVersion: v1¶kind: Secret¶stringData:¶  API_KEY: "{a:40}"
S kubeconfig_token: kubeconfig user for the ci cluster:¶users:¶- name: ci-deployer¶  user:¶    token: eyJhbGciOiJSUzI1NiIsImtpZCI6I{w:40}.{w:300}.{w:340} @@ client-key-data in the admin kubeconfig: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo{b:200}
S rsa_private_key: deploy key for the legacy box:¶-----BEGIN RSA PRIVATE KEY-----¶MIIEpAIBAAKCAQEA{b:48}¶{pem:7}¶-----END RSA PRIVATE KEY----- @@ TLS key for api.acme.io (cert renewed 2026-11):¶-----BEGIN PRIVATE KEY-----¶MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ{b:14}¶{pem:6}¶-----END PRIVATE KEY-----
S openssh_private_key: ~/.ssh/id_ed25519 of the bastion service user:¶-----BEGIN OPENSSH PRIVATE KEY-----¶b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW¶QyNTUxOQAAACB{b:57}¶{pem:3}¶-----END OPENSSH PRIVATE KEY----- @@ GitHub deploy key (private half) for acme/config:¶-----BEGIN OPENSSH PRIVATE KEY-----¶b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn¶{pem:5}¶-----END OPENSSH PRIVATE KEY-----
S ec_pgp_private_key: APNs signing key AuthKey_{u:10}.p8:¶-----BEGIN EC PRIVATE KEY-----¶MHcCAQEEI{b:55}¶{pem:1}¶-----END EC PRIVATE KEY----- @@ Release signing key (exported with gpg --export-secret-keys --armor):¶-----BEGIN PGP PRIVATE KEY BLOCK-----¶¶lQdGBF{b:58}¶{pem:5}¶=a{b:3}¶-----END PGP PRIVATE KEY BLOCK-----
S session_jwt: Admin session token copied from the browser to reproduce the bug: {jwt} @@ curl -H "Authorization: Bearer {jwt}" https://api.acme.io/v1/admin/users - works until tomorrow.
S app_signing_secret: settings/prod.py: SECRET_KEY = "{p:50}" @@ Rails prod secret_key_base: {h:128} @@ JWT_SECRET={a:64} - every service verifies tokens with this.
S webhook_secret: GitHub webhook secret for the deploy listener: {h:40} @@ Shared HMAC secret with the payment provider for callback signatures: HMAC_SECRET={b:44}
S encryption_key: FIELD_ENCRYPTION_KEY={w:43}= (Fernet key, losing it means losing the PII columns) @@ Laravel APP_KEY=base64:{b:43}=
S totp_seed: 2FA seed of the shared AWS root account: otpauth://totp/AWS:root@acme.io?secret={B:32}&issuer=AWS @@ TOTP secret for the vendor admin login: {B:16}
S recovery_codes: GitHub recovery codes for the org owner account: {h:5}-{h:5} {h:5}-{h:5} {h:5}-{h:5} {h:5}-{h:5} @@ Backup codes for the ops Google account: {d:4} {d:4}, {d:4} {d:4}, {d:4} {d:4}
S wifi_password: Office Wi-Fi "Acme-Staff" password: {pw} @@ WLAN im Lager: SSID Lager-5G, Passwort {p:16}
S age_wireguard_key: sops age key for the prod secrets repo: AGE-SECRET-KEY-1{C:58} @@ wg0.conf on the VPN gateway:¶[Interface]¶PrivateKey = {b:43}=¶Address = 10.8.0.1/24
S crypto_wallet_key: Hot wallet private key for the faucet: 0x{h:64}
S license_or_api_key_generic: The vendor's API key for the shipping rates endpoint is {a:32} (header X-Api-Key). @@ API-Schlüssel für den DHL-Geschäftskunden-Zugang: {h:32} @@ 本番のAPIキー: {a:40}（社外秘）
S cohere_azure_openai: Azure OpenAI: endpoint https://acme-oai.openai.azure.com/, api-key: {h:32} @@ COHERE_API_KEY={a:40}
S contentful_easypost: CONTENTFUL_MANAGEMENT_TOKEN=CFPAT-{w:43} @@ EasyPost production key: EZAK{h:54}
B commit_sha: The regression came in with {h:40}; reverting it fixes the flaky login test. @@ Bisected to commit {h:7} ("switch session store to redis"). @@ Pinned the action to actions/checkout@{h:40} instead of @v4. @@ Cherry-picked {h:12} onto release/2.8.
B container_digest: Prod runs ghcr.io/acme/api@sha256:{h:64}; staging is one build behind. @@ docker inspect shows Id sha256:{h:64} for the broken image. @@ Base image pinned: python:3.12-slim@sha256:{h:64}
B npm_integrity: package-lock diff only changed "integrity": "sha512-{b:86}==" for lodash; safe to merge. @@ SRI for the CDN script: <script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.3" integrity="sha384-{b:64}" crossorigin="anonymous"></script>
B pip_hash: requirements.txt uses hashes now: requests==2.32.3 --hash=sha256:{h:64} @@ poetry.lock: {"file": "numpy-2.1.0-cp312.whl", "hash": "sha256:{h:64}"}
B go_sum_cargo: go.sum line that conflicted: github.com/spf13/cobra v1.8.1 h1:{b:43}= @@ Cargo.lock checksum for serde changed to "{h:64}" after cargo update.
B lfs_pointer: The model file in git is just an LFS pointer: version https://git-lfs.github.com/spec/v1¶oid sha256:{h:64}¶size 438012345
B uuid_ids: Customer {uuid} reports duplicated invoices; see ticket SUP-4412. @@ The orphaned rows all have tenant_id = '{uuid}'. @@ X-Request-Id {uuid} shows the 30s timeout in the gateway log.
B ulid_ksuid_nanoid: Short links look like acme.link/{a:7}; ids are random, not guessable counters. @@ Orders now use ULIDs (e.g. 01J{u:23}) so they sort by time. @@ Short share ids are nanoid(21): V1StGXR8_Z5jdHi6B-myT is the format, e.g. {w:21} @@ Event id in the outbox table: {a:27} (KSUID).
B mongo_object_id: db.orders.find({_id: ObjectId("{h:24}")}) returns the stuck order.
B trace_ids: traceparent: 00-{h:32}-{h:16}-01 is the slow trace, 4.2s in the ORM. @@ Jaeger trace {h:32} shows the N+1 on /api/projects. @@ Datadog APM span id {d:19} for the failed checkout.
B container_ids: docker logs {h:12} shows OOMKilled at 512Mi. @@ containerd id {h:64} keeps restarting on node ip-10-0-3-12.
B k8s_pod_names: Pod api-7d9f{l:6}-{l:5} crash-looped after the config change. @@ kubectl logs worker-{l:10}-{l:5} -c sidecar | tail
B md5_etag: S3 ETag "{h:32}" matches the local md5sum, so the upload was not corrupted. @@ sha256sum dist/app.tar.gz -> {h:64}
B asset_hashes: After the build the bundle is main.{h:8}.js and vendor.{h:20}.js; CDN cache invalidated. @@ Nix store path /nix/store/{c:32}-python3-3.11.9 is the one with the patch.
B cloud_account_ids: Prod AWS account 1234{d:8}, role arn:aws:iam::{d:12}:role/ci-deploy (OIDC, no keys). @@ Azure subscription {uuid}, tenant {uuid} - ids only, login via az login. @@ GCP project number {d:12}.
B stripe_object_ids: Refund failed for payment intent pi_3{a:23} (charge ch_3{a:23}). @@ Customer cus_{a:14} is on price price_1{a:23}. @@ Webhook event evt_1{a:23} arrived twice.
B slack_discord_ids: Post alerts to channel C0{u:9} (was C0{u:9}). @@ Discord guild id {d:18}, channel {d:19}.
B twilio_sid_only: Twilio messaging service MG{h:32} in account AC{h:32} sends the OTP SMS; the auth token is in Vault.
B publishable_keys: Frontend env: NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51{a:22}{a:75} (publishable, meant for the browser). @@ Stripe test publishable key for storybook: pk_test_51{a:22}{a:75}
B site_keys_public: reCAPTCHA site key 6L{w:38} goes in the form; the secret stays server side. @@ GA4 measurement id G-{u:10} and GTM container GTM-{u:7}.
B algolia_search_key: Algolia search-only API key for the docs search widget: {h:32} (public by design, restricted to the docs index). @@ docsearch({ appId: '{u:10}', apiKey: '{h:32}', indexName: 'acme_docs' })
B mapbox_public_token: mapboxgl.accessToken = 'pk.eyJ1IjoiYWNtZSIsImEiOiJ{w:20}.{w:22}'; URL-restricted to acme.io.
B supabase_anon_key: NEXT_PUBLIC_SUPABASE_ANON_KEY={jwt:anon} - safe in the client, RLS does the work. @@ sb_publishable_{w:32} is the new publishable key for the mobile app.
B firebase_web_config: firebaseConfig = { apiKey: "AIza{w:35}", authDomain: "acme-app.firebaseapp.com", projectId: "acme-app", appId: "1:{d:12}:web:{h:22}" } (public web config)
B sentry_dsn: Sentry DSN for the React app: https://{h:32}@o{d:6}.ingest.us.sentry.io/{d:16} @@ SENTRY_DSN=https://{h:32}@o{d:6}.ingest.sentry.io/{d:7}
B oauth_client_id: Google OAuth client id {d:12}-{l:32}.apps.googleusercontent.com; the secret is in 1Password. @@ GitHub OAuth app client id Iv1.{h:16} for the login button. @@ Auth0 client id {a:32} (SPA, no secret).
B launchdarkly_client_id: LaunchDarkly client-side id {h:24} goes in the React provider.
B ssh_public_key: Added to authorized_keys on build-02: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b:43} anna@laptop @@ Deploy key (public) registered on acme/infra: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{b:200} ci@acme
B pgp_public_key: Maintainer signing key (public):¶-----BEGIN PGP PUBLIC KEY BLOCK-----¶¶mDMEZ{b:58}¶{pem:3}¶-----END PGP PUBLIC KEY BLOCK-----
B certificate: The intermediate cert that was missing from the chain:¶-----BEGIN CERTIFICATE-----¶MIIFBjCCAu6gAwIBAgIR{b:44}¶{pem:6}¶-----END CERTIFICATE----- @@ ca.crt of the internal CA (public): -----BEGIN CERTIFICATE----- MIIDazCCAlOgAwIBAgIU{b:44} ... -----END CERTIFICATE-----
B key_fingerprints: Host key fingerprint for bastion: SHA256:{b:43}. Verify before accepting. @@ Release tags are signed with GPG key {H:40}. @@ Upload keystore SHA-1: {H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}:{H:2}
B public_keys_other: age recipient for the secrets repo: age1{c:58} @@ WireGuard peer PublicKey = {b:43}= for Lisa's laptop. @@ JWKS entry: {"kty":"RSA","kid":"{h:16}","use":"sig","alg":"RS256","e":"AQAB","n":"{w:86}"}
B blockchain_address: Treasury address (public): 0x{h:40}. @@ Donations: bc1q{c:38}
B env_reference: DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app - the password comes from the env. @@ export OPENAI_API_KEY=$(op read "op://Engineering/OpenAI/credential") @@ password: ${SMTP_PASSWORD:?must be set}
B ci_secret_reference: - run: npm publish¶  env:¶    NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }} @@ GitLab: use $CI_JOB_TOKEN for the registry login, no PAT needed. @@ Jenkins: withCredentials([string(credentialsId: 'sonar-token', variable: 'SONAR_TOKEN')])
B secret_manager_reference: The app reads arn:aws:secretsmanager:eu-west-1:{d:12}:secret:prod/db-creds-{a:6} at startup. @@ vault kv get -field=password secret/data/payments/postgres @@ gcloud secrets versions access latest --secret=stripe-api-key
B k8s_secret_ref: env:¶- name: DB_PASSWORD¶  valueFrom:¶    secretKeyRef:¶      name: db-creds¶      key: password @@ envFrom: [{secretRef: {name: api-keys}}] was missing in the worker deployment.
B placeholder_value: .env.example: STRIPE_SECRET_KEY=sk_live_your_key_here @@ API_KEY=<your-api-key> then run make dev. @@ password: "CHANGE_ME" in values.yaml is overwritten by the sealed secret. @@ GITHUB_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx in the README example.
B documented_example_key: AWS docs example creds AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY work in localstack tests. @@ jwt.io sample token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c is used in the parser tests.
B redacted_value: The reset script prints "password changed for user deploy" and nothing else. @@ Log shows Authorization: Bearer [REDACTED]; the middleware masks it correctly. @@ Stripe dashboard lists the key as sk_live_...{a:4}; that is the one to roll. @@ token=ghp_****************************{a:4} in the CI output, masked by Actions. @@ DATABASE_URL=postgres://app:*****@db-prod:5432/app
B encrypted_blob: sops-encrypted value: password: ENC[AES256_GCM,data:{b:24},iv:{b:43}=,tag:{b:22}==,type:str] @@ $ANSIBLE_VAULT;1.1;AES256¶{h:64}¶{h:64} @@ SealedSecret encryptedData.password: Ag{b:200}
B password_hash: Seed user in fixtures: password_hash = "$2b$12${w:53}" (bcrypt of a test password). @@ argon2 hash stored for the demo user: $argon2id$v=19$m=65536,t=3,p=4${b:22}${b:43} @@ htpasswd for the preview env uses $apr1$ hashes; regenerate with htpasswd -B.
B hashed_api_key: We store only sha256(api_key): {h:64}, prefix ak_{l:6} shown to the user for lookup.
B test_fixture_token: conftest.py: TEST_TOKEN = "test-token-not-real" and monkeypatch.setenv("API_KEY", "dummy") @@ In unit tests the fake Slack client accepts token="xoxb-test". @@ Local docker-compose uses POSTGRES_PASSWORD=postgres; only reachable on localhost.
B token_generation_code: New API keys: "ak_" + secrets.token_urlsafe(32); we show it once and store the hash. @@ openssl rand -hex 32 to generate JWT_SECRET for a new environment - don't reuse staging's. @@ python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key())"
B token_regex: Pre-commit rule we added: r"ghp_[A-Za-z0-9]{36}" and r"AKIA[0-9A-Z]{16}". @@ The log scrubber matches (?i)(password|secret|token)=\S+ and replaces the value.
B rotation_note: Rotated the Stripe live key on 2026-11-30 after the contractor left; new key only in Vault. @@ Decision: GitHub PATs are forbidden for CI, use the GitHub App with installation tokens. @@ Reminder: the Datadog API key expires in January, rotate via terraform.
B auth_error_output: botocore.exceptions.ClientError: An error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: The security token included in the request is invalid. @@ openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided', 'code': 'invalid_api_key'}} @@ fatal: Authentication failed for 'https://github.com/acme/infra.git/' - the PAT expired.
B password_policy: Password policy: min 12 chars, zxcvbn score >= 3, no reuse of the last 5. @@ Passwords are hashed with argon2id (m=64MiB, t=3); bcrypt hashes migrate on next login. @@ Política: las contraseñas de servicio se rotan cada 90 días y nunca se envían por correo.
B secret_handling_howto: To get the DB password: aws secretsmanager get-secret-value --secret-id prod/db --query SecretString. Never paste the output here. @@ Onboarding: ask #it-help for a 1Password invite, all shared creds are in the Engineering vault. @@ The Slack bot token lives in the k8s secret slack-bot in namespace bots.
B llm_tokens: Set max_tokens=4096 and the summary stopped truncating. @@ The prompt is 12k tokens; tiktoken cl100k_base counts {d:4} for the system message. @@ Tokenizer change: "passwords" is now split into 2 tokens.
B code_fields: class User(BaseModel):¶    email: EmailStr¶    password: SecretStr @@ KeyError: 'api_key' in load_config() when the yaml has apiKey instead. @@ if not request.headers.get("X-Api-Key"): raise HTTPException(401)
B i18n_strings: de.json: "forgot_password": "Passwort vergessen?", "api_key_label": "API-Schlüssel" @@ ja: "パスワードを入力してください" is the placeholder for the login field. @@ fr: « Votre jeton a expiré, veuillez vous reconnecter. »
B csrf_nonce: CSP header: script-src 'nonce-{b:22}==' 'strict-dynamic' @@ Form rendered with csrfmiddlewaretoken={a:64} in the failing snapshot test.
B cache_keys: Cache key user:{d:6}:feed:{h:16} is never invalidated. @@ Idempotency-Key: {uuid} prevents the double charge on retry.
B base64_data: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAB{b:60} is the favicon inlined in the email template. @@ ConfigMap binaryData.logo: {b:80}==
B random_test_data: Seeded fuzz case that crashes the parser: "{a:40}" @@ Random salt in the test fixture: {h:32} (fixture only, not a secret).
B ipfs_onion: Docs are pinned on IPFS: bafybei{c:52} @@ Tor mirror: {c:56}.onion
B identifiers_misc: Terraform state lock ID {uuid} stuck; ran terraform force-unlock. @@ GitHub App id 3{d:5}, installation id 5{d:7}. @@ .csproj ProjectGuid {{H:8}-{H:4}-{H:4}-{H:4}-{H:12}}
B prose_about_secrets: We decided not to store API keys in graphit memories; note where they live instead. @@ The leak scanner flagged the word "token" in a test name, false positive. @@ Incident review: the key was exposed in a public gist for 40 minutes; GitHub secret scanning revoked it. @@ Die Secrets liegen im Vault, Pfad secret/team-a/*.
B session_expired_links: Password reset emails link to /reset?token=... which expires after 30 min; support can't see the token. @@ The magic-link token in staging logs is single-use and already consumed.
B db_key_terms: The primary key on order_items is (tenant_id, order_id, line_no); the foreign key to orders is deferrable. @@ DynamoDB: partition key PK = "USER#<id>", sort key SK = "ORDER#<ts>". @@ Redis keys follow session:{user_id}:{device}; TTL 14 days. @@ Unique key violation on email after the import - duplicates differ only in case.
B design_tokens: Design tokens moved to tokens.json: --color-primary: #1A73E8, --radius-md: 8px. @@ Style Dictionary builds the design tokens for iOS and Android from the same source. @@ Token names are kebab-case: spacing-xs, spacing-sm, font-body-lg.
B rate_limit_tokens: The limiter is a token bucket: 20 tokens, refill 5/s per API key. @@ 429s come from the upstream: their bucket allows 100 requests/min per token.
B kms_key_ids: SSE uses arn:aws:kms:eu-west-1:{d:12}:key/{uuid}; the key policy grants the lambda role decrypt. @@ gcloud kms keys list shows projects/acme-prod/locations/europe-west1/keyRings/app/cryptoKeys/pii-v2. @@ Key Vault key id https://acme-kv.vault.azure.net/keys/signing/{h:32}
B known_hosts_line: Pinned in known_hosts for the deploy job: github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl @@ gitlab.acme.dev ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{b:88}=
B keygen_commands: ssh-keygen -t ed25519 -C "ci@acme" -f ./deploy_key -N "" then add deploy_key.pub to the repo. @@ openssl req -x509 -newkey rsa:4096 -keyout key.pem -out cert.pem -days 365 -nodes for the local HTTPS proxy. @@ gpg --full-generate-key, pick ed25519, then publish the public key to keys.openpgp.org.
B masked_cli_output: aws configure list¶      Name                    Value             Type    Location¶access_key     ****************{B:4} shared-credentials-file¶secret_key     ****************{a:4} shared-credentials-file @@ gh auth status: Logged in to github.com account anna-dev (keyring), Token: gho_************************************ @@ heroku config shows DATABASE_URL: postgres://u***:***@ec2-3-1-2-3.compute-1.amazonaws.com:5432/d{l:13}
B decoded_jwt_claims: Decoded the failing token (no signature pasted): {"sub":"{d:6}","aud":"api.acme.io","exp":1766012345,"scope":"read:orders"} - aud was wrong. @@ JWT header {"alg":"RS256","kid":"{h:16}"}; the kid is not in our JWKS after the key rollover.
B oauth_flow_notes: OAuth: the SPA uses PKCE, so there is no client secret in the bundle; code_verifier is 43-128 chars and generated per login. @@ Access tokens live 15 min, refresh tokens 30 days and rotate on every use. @@ The callback got ?code={w:32}&state={h:16} but the exchange failed: the code was already used.
B credential_request_chat: [slack] @maria can you send me the staging DB password? -> "sent it through a 1Password share link, expires in 1h" @@ [teams] Can someone with admin rotate the Jenkins token? I don't have access. @@ [slack] reminder: never DM tokens, use the vault request form.
B non_english_notes: 密钥已经轮换，新的密钥只保存在 Vault 里，不要写进代码。 @@ トークンの有効期限は 1 時間。リフレッシュは自動で行われる。 @@ A senha do banco de staging está no cofre do time; peça acesso ao João. @@ Le certificat TLS expire le 3 mars, renouvellement automatique via cert-manager.
B webhook_endpoints: Stripe webhook endpoint is https://api.acme.io/hooks/stripe (endpoint id we_1{a:23}). @@ GitHub webhook posts to https://ci.acme.io/github-webhook/ with content type json; the secret is configured on both sides.
B build_versions: Released 4.12.0 (build 2026.12.06-{h:7}, artifact id {d:9}). @@ Android versionCode {d:6}, iOS build {d:4}. @@ Helm chart api-{d:1}.{d:2}.{d:1} deployed with image tag sha-{h:7}.
B feature_flag_keys: Flag key new-checkout-flow is 50% in prod; kill switch is checkout-v1-fallback. @@ Unleash token names follow env:project:key, but the tokens themselves are in the CI secrets. @@ Experiment id exp_{h:12} assigned users by hash(user_id) % 100.
B cert_metadata: openssl x509 -noout -serial -dates: serial={H:32}, notAfter=Mar  3 12:00:00 2027 GMT @@ ACME challenge TXT record _acme-challenge.acme.io = "{w:43}" (DNS-01, already validated).
B empty_or_unset: The worker crashed with KeyError because SENTRY_AUTH_TOKEN= was empty in .env.staging. @@ OPENAI_API_KEY is unset in the cron environment, so the summarizer silently skips.
B secret_scanning_config: .gitleaks.toml allowlist: paths = ["fixtures/", "docs/examples/"] - the scanner kept failing on example keys. @@ detect-secrets baseline regenerated; 3 findings marked as false positives (test UUIDs). @@ GitHub push protection blocked the commit; it was a test fixture, bypassed with reason "used in tests".
B access_control_notes: The on-call role can read prod logs but not secrets; break-glass access goes through the PAM ticket. @@ IAM: the ci-deploy role trusts token.actions.githubusercontent.com with sub repo:acme/api:ref:refs/heads/main - no long-lived keys. @@ Service accounts use workload identity now; removed all JSON key files from the cluster.
B hex_color_and_constants: Brand palette: #0B5FFF, #FFB020, #1F2937; dark mode uses #111827. @@ CRC32 of the firmware header must be 0x{H:8}; the bootloader rejects anything else. @@ MAGIC = 0x{h:16}  # file format marker, v3
B url_with_user_only: Clone via ssh: git@github.com:acme/payments.git (uses your own key). @@ psql "host=db-staging.internal user=readonly dbname=app sslmode=require" - it prompts for the password. @@ sftp reports@files.partner.com, auth by key only.
""".strip()  # noqa: E501


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []
    for line in DATA.splitlines():
        label, kind, rest = line.split(" ", 2)
        kind = kind.rstrip(":")
        for text in rest.split(" @@ "):
            rows.append(
                {
                    "label": "secret" if label == "S" else "benign",
                    "kind": kind,
                    "text": _fill(rng, text.strip()),
                }
            )
    return rows


def main(argv: list[str]) -> None:
    out = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus())
    if len(argv) > 1:
        with open(argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main(sys.argv)

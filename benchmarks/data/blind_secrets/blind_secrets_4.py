"""Blind held-out corpus no. 4 for graphit's secret guard: secrets and look-alikes.

Rows are texts a coding agent or developer writes into a project's memory (notes, handovers,
.env lines, shell sessions, code, manifests, logs, chat pastes) for a dozen imagined teams: a
SaaS startup, a mobile game studio, a bank's data team, an ML lab, a WordPress agency, a
Shopify shop, an IoT firmware team, a university lab, a government digital service, an
open-source maintainer, a DevOps consultancy and a solo indie hacker. Each row is labelled
"secret" (storing it would leak something that grants access to a real system) or "benign"
(a look-alike that only resembles or mentions a secret). Every credential value is generated
here from a fixed seed; none is real.

Written blind on 2026-12-06: without reading graphit's detector, its tests or earlier corpora.

Run: python benchmarks/data/blind_secrets/blind_secrets_4.py [out.jsonl]   (or to stdout)
Rows: {"label": "secret"|"benign", "kind": "...", "text": "..."}

Kinds, secrets (147 rows, 109 kinds)
  code hosting, CI, registries: github-pat-classic, github-pat-fine, github-app-token,
    gitlab-token, bitbucket-app-password, npm-token, pypi-token, cargo-rubygems-token,
    docker-hub-pat, docker-config-auth, circleci-buildkite-token, codecov-token, ci-log-leak
  cloud and infra: aws-access-key, aws-session-creds, s3-presigned-url, azure-storage-conn,
    azure-sas-token, azure-client-secret, gcp-service-account-key, google-api-key,
    google-oauth-client-secret, vault-token, terraform-cloud-token, tfvars-secret,
    digitalocean-token, cloudflare-token, heroku-vercel-netlify-token, pulumi-doppler-token,
    k8s-secret-manifest, kubeconfig-credential, helm-values-secret, ansible-vault-password
  private keys and seeds: rsa-private-key, openssh-private-key, ec-private-key, apple-p8-key,
    pgp-private-key, key-passphrase, age-secret-key, wireguard-private-key, crypto-wallet-key,
    app-signing-secret, totp-seed, recovery-codes
  payments and commerce: stripe-secret-key, stripe-restricted-key, stripe-webhook-secret,
    stripe-test-key, shopify-token, woocommerce-keys, square-paypal-token
  AI and data: openai-key, anthropic-key, huggingface-token, replicate-token, wandb-kaggle-key,
    databricks-token, jupyter-token-url
  messaging and SaaS: sendgrid-key, mailgun-key, resend-postmark-token, twilio-credentials,
    slack-bot-token, slack-user-token, slack-webhook, discord-token-or-webhook,
    telegram-bot-token, atlassian-api-token, datadog-key, newrelic-key, sentry-auth-token,
    grafana-token, linear-notion-figma-token, postman-key, mapbox-secret-token,
    algolia-admin-key, recaptcha-secret, okta-token, fcm-server-key, govuk-notify-key,
    steam-playfab-key, generic-api-key
  passwords, URLs, sessions: password-in-prose, chat-pasted-credentials, password-in-yaml,
    password-in-ini-toml, env-file-block, compose-env-password, db-url-password, mongodb-url,
    redis-url, pgpass-netrc, sftp-url-password, wordpress-db-password, wordpress-salts,
    wordpress-app-password, smtp-app-password, wifi-psk, mqtt-credentials, lorawan-appkey,
    android-keystore-password, snowflake-ldap-password, password-in-command,
    maven-settings-password, basic-auth-header, jwt-bearer-token, supabase-service-role,
    session-cookie
Kinds, look-alikes (182 rows, 89 kinds)
  hashes and identifiers: git-commit-sha, docker-digest, request-uuid, release-checksum,
    lockfile-integrity, asset-hash-filename, git-lfs-pointer, stripe-object-ids, slack-ids,
    twilio-account-sid, aws-arn-account, aws-caller-identity, aws-key-id-only, ml-run-ids,
    doi-orcid, govuk-template-id, device-serial-mac, lorawan-eui, public-ids, iban-example,
    semver-build, shopify-store-ids, doc-links, public-embed-id
  public by design: stripe-publishable-key, supabase-anon-key, mapbox-public-token,
    algolia-search-key, sentry-dsn, firebase-web-config, recaptcha-site-key, oauth-client-id,
    oauth-authorize-url, apple-team-key-ids, shopify-storefront-token, ssh-public-key,
    x509-certificate, pgp-public-key, jwks-public, key-fingerprint, cert-pinning,
    signing-cert-fingerprint, wireguard-public-key, age-public-key, eth-address
  references, placeholders, masked: env-var-reference, ci-secret-reference, secret-ref-manifest,
    k8s-configmap, terraform-sensitive-var, terraform-output, password-manager-ref,
    secret-cli-command, keychain-lookup, placeholder-value, aws-doc-example-key,
    jwt-io-example, stripe-test-card, dummy-test-token, redacted-token, masked-log-line,
    local-dev-default-creds, iam-auth-db-url, git-remote-url, ssh-config
  prose about secrets: token-prefix-mention, rotation-note, password-policy-note,
    security-design-note, mfa-policy-note, secret-inventory-table, auth-error-log,
    commit-message-about-leak, password-generator-command, wordpress-salt-url
  encrypted or code: sealed-secret, sops-encrypted, ansible-vault-encrypted, vault-iam-policy,
    regex-token-pattern, variable-names, html-password-field, sql-password-hashing,
    signature-verify-code, jwt-claims-decoded, csrf-nonce, base64-nonsecret, i18n-key, data-uri
"""

import base64
import json
import random
import re
import string
import sys

SEED = 58213
_A = string.ascii_letters + string.digits
ALPH = {
    "A": _A,
    "H": "0123456789abcdef",
    "X": "0123456789ABCDEF",
    "U": string.ascii_uppercase + string.digits,
    "D": string.digits,
    "L": string.ascii_lowercase,
    "l": string.ascii_letters,
    "N": string.ascii_lowercase + string.digits,
    "B": _A + "+/",
    "W": _A + "-_",
    "Z": string.ascii_uppercase + "234567",
    "P": _A + "!#%*-_.@^+=",
    "Q": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "q": "qpzry9x8gf2tvdw0s3jn54khce6mua7l",
}
WORDS = ["abandon", "orbit", "velvet", "crane", "umbrella", "pilot", "salmon", "rhythm"]
WORDS += ["cactus", "ladder", "frozen", "gossip", "timber", "oyster", "vital", "wrist"]


def _s(r, alph, n):
    return "".join(r.choice(ALPH[alph]) for _ in range(n))


def _b64u(obj):
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _pem(r, label, head, n, nl="\n"):
    body = head + _s(r, "B", 64 * n - len(head))
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return nl.join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])


def _jwt(r, claims):
    head = _b64u({"alg": "HS256", "typ": "JWT"})
    return f"{head}.{_b64u(claims)}.{_s(r, 'W', 43)}"


def _uuid(r):
    a, b, c, d, e = (_s(r, "H", n) for n in (8, 4, 3, 3, 12))
    return f"{a}-{b}-4{c}-{r.choice('89ab')}{d}-{e}"


def _basic(r):
    return base64.b64encode(f"svc-{_s(r, 'L', 6)}:{_s(r, 'A', 18)}".encode()).decode()


OSSH_HEAD = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
SVC = "service_role"
SPECIAL = {
    "uuid": _uuid,
    "jwt": lambda r: _jwt(r, {"sub": _uuid(r), "role": "authenticated", "exp": 1798761600}),
    "jwt_anon": lambda r: _jwt(r, {"iss": "supabase", "ref": _s(r, "L", 20), "role": "anon"}),
    "jwt_svc": lambda r: _jwt(r, {"iss": "supabase", "ref": _s(r, "L", 20), "role": SVC}),
    "rsa": lambda r: _pem(r, "RSA PRIVATE KEY", "MIIEowIBAAKCAQEA", 25),
    "rsaj": lambda r: _pem(r, "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 26, "\\n") + "\\n",
    "ec": lambda r: _pem(r, "EC PRIVATE KEY", "MHcCAQEEI", 3),
    "p8": lambda r: _pem(r, "PRIVATE KEY", "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg", 4),
    "ossh": lambda r: _pem(r, "OPENSSH PRIVATE KEY", OSSH_HEAD, 7),
    "pgp": lambda r: _pem(r, "PGP PRIVATE KEY BLOCK", "\nlQdGBGR", 20),
    "seed": lambda r: " ".join(r.choice(WORDS) for _ in range(12)),
    "basic": _basic,
    "b64pw": lambda r: base64.b64encode(_s(r, "P", 20).encode()).decode(),
    "wpapp": lambda r: " ".join(_s(r, "A", 4) for _ in range(6)),
    "gapp": lambda r: " ".join(_s(r, "L", 4) for _ in range(4)),
    "k8skey": lambda r: "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo" + _s(r, "B", 300),
}
LABELS = {"s": "secret", "b": "benign"}
_PH = re.compile(r"\{(?:([A-Za-z])(\d+)|=(\w+))\}")

DATA = r"""
s github-pat-classic export GITHUB_TOKEN=ghp_{A36}  # my PAT for the release script, repo+workflow scopes ‖ git remote set-url origin https://x-access-token:ghp_{A36}@github.com/acme-saas/billing-api.git ‖ client := github.NewClient(nil).WithAuthToken("ghp_{A36}")
s github-pat-fine Fine-grained token for the docs repo only (contents: write): github_pat_11{U20}_{A59}
s github-app-token curl -H "Authorization: token ghs_{A36}" https://api.github.com/repos/uni-lab/pipeline/actions/runs -> 200, installation token from the lab's GitHub App ‖ oauth callback returned access_token=gho_{A36}&scope=repo%2Cuser&token_type=bearer, saving it so I can replay the import tomorrow
s gitlab-token GitLab: CI_PUSH_TOKEN = glpat-{W20} (maintainer on group gov-digital/forms), used by the changelog bot ‖ /etc/gitlab-runner/config.toml¶[[runners]]¶  name = "fw-builder-02"¶  url = "https://gitlab.com/"¶  token = "glrt-{W20}"¶  executor = "docker"
s bitbucket-app-password Agency Bitbucket: user wp-deployer, app password ATBB{A24}{X8} (repo read/write). Clients' themes pull with it.
s aws-access-key ~/.aws/credentials¶[default]¶aws_access_key_id = AKIA{Z16}¶aws_secret_access_key = {B40}¶region = eu-west-2 ‖ s3 = boto3.client("s3", aws_access_key_id="AKIA{Z16}", aws_secret_access_key="{B40}") ‖ | what | value |¶|---|---|¶| IAM user | fw-ota-uploader |¶| access key | AKIA{Z16} |¶| secret | {B40} |
s aws-session-creds $ aws sts assume-role --role-arn arn:aws:iam::318204957712:role/ops --role-session-name me¶"Credentials": {¶  "AccessKeyId": "ASIA{Z16}",¶  "SecretAccessKey": "{B40}",¶  "SessionToken": "IQoJb3JpZ2luX2VjE{B240}",¶  "Expiration": "2026-12-06T22:10:41Z"¶}
s s3-presigned-url Shared the export with the auditor via https://ledger-exports.s3.eu-west-2.amazonaws.com/q3/positions.parquet?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{Z16}%2F20261206%2Feu-west-2%2Fs3%2Faws4_request&X-Amz-Date=20261206T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={H64}
s azure-storage-conn AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=bankdatalake01;AccountKey={B86}==;EndpointSuffix=core.windows.net" ‖ appsettings.Production.json: "Storage": { "ConnectionString": "DefaultEndpointsProtocol=https;AccountName=govformsuploads;AccountKey={B86}==;EndpointSuffix=core.windows.net" }
s azure-sas-token Blob upload URL for the firmware images: https://fwimages.blob.core.windows.net/releases?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-06-30T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={B43}%3D
s azure-client-secret Entra app "payments-batch" (client id {=uuid}): client secret {A3}8Q~{W34}, expires 2027-05-01 ‖ ARM_CLIENT_SECRET={A3}8Q~{W34}¶ARM_TENANT_ID={=uuid}¶ARM_SUBSCRIPTION_ID={=uuid}
s gcp-service-account-key keys/bq-reader.json (the lab's BigQuery reader):¶{"type": "service_account", "project_id": "mlab-datasets", "private_key_id": "{H40}", "private_key": "{=rsaj}", "client_email": "bq-reader@mlab-datasets.iam.gserviceaccount.com", "client_id": "{D21}", "token_uri": "https://oauth2.googleapis.com/token"}
s google-api-key GOOGLE_MAPS_SERVER_KEY=AIza{W35}  # unrestricted! used by the geocoding cron ‖ import google.generativeai as genai¶genai.configure(api_key="AIza{W35}")
s google-oauth-client-secret client_secret.json: {"web":{"client_id":"{D12}-{N32}.apps.googleusercontent.com","client_secret":"GOCSPX-{W28}","redirect_uris":["https://app.example.com/oauth/callback"]}}
s vault-token export VAULT_ADDR=https://vault.consult-ops.net:8200¶export VAULT_TOKEN=hvs.CAESI{W90} ‖ Root token from the unseal ceremony (client X, revoke after bootstrap!): hvs.{A24}
s terraform-cloud-token ~/.terraform.d/credentials.tfrc.json¶{"credentials": {"app.terraform.io": {"token": "{A14}.atlasv1.{A67}"}}}
s digitalocean-token doctl auth init -t dop_v1_{H64}
s cloudflare-token CLOUDFLARE_API_TOKEN={W40} (zone:edit on shop-lumen.com and lumen.dev)
s heroku-vercel-netlify-token HEROKU_API_KEY={=uuid} heroku pg:backups:capture -a invoicely-prod ‖ NETLIFY_AUTH_TOKEN=nfp_{A36}¶NETLIFY_SITE_ID={=uuid}
s pulumi-doppler-token PULUMI_ACCESS_TOKEN=pul-{H40}
s k8s-secret-manifest apiVersion: v1¶kind: Secret¶metadata:¶  name: billing-db¶type: Opaque¶data:¶  username: YmlsbGluZw==¶  password: {=b64pw}
s kubeconfig-credential users:¶- name: ci-deployer¶  user:¶    token: eyJhbGciOiJSUzI1NiIsImtpZCI6I{W40}.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Ii{W200}.{W342}
s ansible-vault-password echo '{P20}' > ~/.ansible/vault_pass.txt   # vault password for client-b inventories
s rsa-private-key Deploy key for the firmware repo (read-only), in case the runner image loses it:¶{=rsa}
s openssh-private-key Bastion key for the gov-forms environment (user ops):¶{=ossh}
s ec-private-key JWT signing key for the mobile auth service (ES256):¶{=ec}
s apple-p8-key APNs auth key AuthKey_{U10}.p8, team {U10}:¶{=p8}
s pgp-private-key Release signing key (exported with --armor --export-secret-keys):¶{=pgp}
s age-secret-key # created: 2026-11-02T10:14:55Z¶# public key: age1{q58}¶AGE-SECRET-KEY-1{Q58}
s wireguard-private-key wg0.conf on the field gateway:¶[Interface]¶PrivateKey = {B42}Y=¶Address = 10.44.0.2/24¶[Peer]¶PublicKey = {B42}Q=¶Endpoint = 198.51.100.20:51820
s crypto-wallet-key Treasury hot wallet (testnet AND mainnet, same key): 0x{H64} ‖ Seed phrase for the game's rewards wallet: {=seed}
s app-signing-secret settings/production.py¶SECRET_KEY = "{P50}"¶DEBUG = False ‖ JWT_SECRET={A48}  # signs the session tokens for api.invoicely.app
s stripe-secret-key STRIPE_SECRET_KEY=sk_live_51{A97} ‖ Switched checkout to the live key today: sk_live_{A24} (old account, still the short format). ‖ | env | value |¶|---|---|¶| STRIPE_KEY (prod) | sk_live_51{A97} |¶| STRIPE_KEY (dev) | see 1Password |
s stripe-restricted-key Restricted key for the analytics export (read charges, customers): rk_live_51{A97}
s stripe-webhook-secret STRIPE_WEBHOOK_SECRET=whsec_{A32}
s stripe-test-key .env.development¶STRIPE_SECRET_KEY=sk_test_51{A97}
s openai-key OPENAI_API_KEY=sk-proj-{W74}T3BlbkFJ{W74} ‖ client = OpenAI(api_key="sk-{A20}T3BlbkFJ{A20}") ‖ Service account for the support bot: sk-svcacct-{W74}T3BlbkFJ{W74}
s anthropic-key ANTHROPIC_API_KEY=sk-ant-api03-{W93}AA ‖ [10:42] dana: here's the key for the summariser, don't commit it: sk-ant-api03-{W93}AA
s huggingface-token huggingface-cli login --token hf_{l34} ‖ from huggingface_hub import login¶login("hf_{l34}")
s replicate-token REPLICATE_API_TOKEN=r8_{A37}
s wandb-kaggle-key wandb login {H40} ‖ ~/.kaggle/kaggle.json: {"username":"mlab-student","key":"{H32}"}
s sendgrid-key SENDGRID_API_KEY=SG.{W22}.{W43}
s mailgun-key MAILGUN_API_KEY={H32}-{H8}-{H8}¶MAILGUN_DOMAIN=mg.shop-lumen.com
s resend-postmark-token RESEND_API_KEY=re_{A8}_{A24}
s twilio-credentials TWILIO_ACCOUNT_SID=AC{H32}¶TWILIO_AUTH_TOKEN={H32} ‖ client = Client("AC{H32}", "{H32}")
s slack-bot-token SLACK_BOT_TOKEN=xoxb-{D12}-{D13}-{A24} ‖ slack:¶  token: xoxb-{D12}-{D12}-{A24}¶  channel: "#alerts-iot" ‖ from slack_sdk import WebClient¶client = WebClient(token="xoxb-{D12}-{D13}-{A24}")
s slack-user-token My user token for the export script: xoxp-{D12}-{D12}-{D13}-{H32}
s slack-webhook receivers:¶- name: oncall¶  slack_configs:¶  - api_url: https://hooks.slack.com/services/T{U9}/B{U10}/{A24}¶    channel: '#oncall' ‖ Webhook for the Shopify order alerts -> https://hooks.slack.com/services/T{U10}/B{U11}/{A24}
s discord-token-or-webhook Discord webhook for build notifications: https://discord.com/api/webhooks/{D19}/{W68} ‖ DISCORD_TOKEN=MT{A24}.{W6}.{W38}
s telegram-bot-token bot = telebot.TeleBot("{D10}:AA{W33}")
s shopify-token SHOPIFY_ADMIN_TOKEN=shpat_{H32}¶SHOPIFY_STORE=lumen-candles.myshopify.com ‖ curl -H "X-Shopify-Access-Token: shpat_{H32}" https://lumen-candles.myshopify.com/admin/api/2024-10/orders.json?status=any ‖ Custom app "ERP sync": Admin API token shpca_{H32}, API secret key shpss_{H32}
s woocommerce-keys WooCommerce REST keys for the Bakery client: consumer key ck_{H40}, consumer secret cs_{H40}
s square-paypal-token SQUARE_ACCESS_TOKEN=EAAA{W60}  # production, location LX{U12} ‖ PayPal live REST app: client id A{W79}, secret E{W79}
s atlassian-api-token JIRA_API_TOKEN=ATATT3xFfGF0{W170}={X8} (user automation@bank.example)
s datadog-key DD_API_KEY={H32}¶DD_SITE=datadoghq.eu
s newrelic-key NEW_RELIC_LICENSE_KEY={H36}NRAL
s sentry-auth-token SENTRY_AUTH_TOKEN=sntrys_eyJpYXQiOjE3{W80}_{W43}
s grafana-token Grafana service account token (Editor): glsa_{A32}_{H8}
s linear-notion-figma-token LINEAR_API_KEY=lin_api_{A40} ‖ NOTION_TOKEN=secret_{A43}
s postman-key Postman API key for the collection runner: PMAK-{H24}-{H34}
s mapbox-secret-token MAPBOX_DOWNLOADS_TOKEN=sk.eyJ1IjoibHVtZW4tZ2FtZXMiLCJhIjoi{W20}In0.{W22}
s algolia-admin-key ALGOLIA_APP_ID={U10}¶ALGOLIA_ADMIN_KEY={H32}
s recaptcha-secret RECAPTCHA_SECRET_KEY=6L{W38}
s okta-token curl -H "Authorization: SSWS 00{W40}" https://gov-digital.okta.com/api/v1/users?limit=5
s fcm-server-key FCM legacy server key (still used by the Android push fallback): AAAA{W7}:APA91b{W134}
s govuk-notify-key NOTIFY_API_KEY=live-forms-{=uuid}-{=uuid}
s databricks-token DATABRICKS_HOST=https://adb-{D16}.7.azuredatabricks.net¶DATABRICKS_TOKEN=dapi{H32}
s steam-playfab-key Steam Web API publisher key for the leaderboard sync: {X32}
s generic-api-key Internal pricing API (prod): curl -H "X-API-Key: {A40}" https://pricing.internal.acme-saas.io/v2/quotes
s codecov-token CODECOV_TOKEN={=uuid}
s cargo-rubygems-token cargo login cio{A32}
s npm-token //registry.npmjs.org/:_authToken=npm_{A36} ‖ Automation token for @oss-maint scope is npm_{A36}, stored nowhere else yet.
s pypi-token ~/.pypirc¶[pypi]¶username = __token__¶password = pypi-AgEIcHlwaS5vcmcCJ{W150}
s docker-hub-pat echo dckr_pat_{W27} | docker login -u studiobot --password-stdin
s docker-config-auth ~/.docker/config.json¶{"auths": {"registry.gitlab.com": {"auth": "{=basic}"}}}
s circleci-buildkite-token CIRCLE_TOKEN=CCIPAT_{A22}_{H40}
s password-in-prose Staging WordPress admin for the Harbour Dental site: admin / {P14} ‖ Grafana admin password is now {P16} (changed after Friday's incident). ‖ Das Passwort für den SFTP-Zugang des Kunden ist {P14}, Benutzer upload_kunde. ‖ Router on the lab bench: login root, password {P12}
s password-in-yaml spring:¶  datasource:¶    url: jdbc:postgresql://risk-db.bank.internal:5432/risk¶    username: risk_app¶    password: {P18}
s password-in-ini-toml [database]¶host = 10.20.0.5¶user = lab_rw¶password = {P16}
s compose-env-password services:¶  db:¶    image: mariadb:11¶    environment:¶      MYSQL_ROOT_PASSWORD: {P18}¶      MYSQL_DATABASE: wp_harbour
s db-url-password DATABASE_URL=postgres://app_rw:{A22}@prod-db.c9x2k1abcd.eu-west-1.rds.amazonaws.com:5432/app ‖ psql "postgresql://neondb_owner:npg_{A12}@ep-quiet-moon-{N8}.eu-central-1.aws.neon.tech/neondb?sslmode=require" ‖ PlanetScale password for main branch: pscale_pw_{W43}
s mongodb-url MONGO_URI=mongodb+srv://gameops:{A16}@cluster0.{N5}.mongodb.net/leaderboards?retryWrites=true&w=majority
s redis-url REDIS_URL=redis://default:{A32}@eu1-frank-owl-{D5}.upstash.io:{D5}
s wordpress-db-password define( 'DB_NAME', 'harbour_wp' );¶define( 'DB_USER', 'harbour_wp' );¶define( 'DB_PASSWORD', '{P16}' );¶define( 'DB_HOST', 'localhost' );
s wordpress-salts define('AUTH_KEY',         '{P64}');¶define('SECURE_AUTH_KEY',  '{P64}');¶define('LOGGED_IN_KEY',    '{P64}');
s wordpress-app-password WP application password for the REST importer (user editor-bot): {=wpapp}
s smtp-app-password Gmail app password for the contact form mailer (hello@indie-app.io): {=gapp}
s wifi-psk /etc/wpa_supplicant/wpa_supplicant.conf¶network={¶    ssid="Factory-IoT"¶    psk="{P16}"¶}
s mqtt-credentials #define MQTT_HOST "broker.iot-fleet.net"¶#define MQTT_USER "sensor-fleet"¶#define MQTT_PASS "{A20}"
s lorawan-appkey OTAA for node 17: DevEUI 70B3D57ED00{X5}, JoinEUI 0000000000000000, AppKey {X32}
s android-keystore-password gradle.properties (release):¶RELEASE_STORE_FILE=release.jks¶RELEASE_STORE_PASSWORD={P16}¶RELEASE_KEY_ALIAS=upload¶RELEASE_KEY_PASSWORD={P16}
s snowflake-ldap-password conn = snowflake.connector.connect(user="ETL_SVC", password="{P20}", account="xy12345.eu-west-1", warehouse="ETL_WH")
s password-in-command sshpass -p '{P14}' ssh deploy@203.0.113.17 'sudo systemctl restart gunicorn'
s maven-settings-password <server>¶  <id>nexus-releases</id>¶  <username>deployer</username>¶  <password>{P20}</password>¶</server>
s basic-auth-header curl -H "Authorization: Basic {=basic}" https://reports.bank-data.internal/api/export
s jwt-bearer-token Reproduced the 500 with: curl -H "Authorization: Bearer {=jwt}" https://api.invoicely.app/v1/invoices
s supabase-service-role SUPABASE_URL=https://{L20}.supabase.co¶SUPABASE_SERVICE_ROLE_KEY={=jwt_svc}
s session-cookie Logged in as the customer to reproduce: Cookie: sessionid={N32}; csrftoken={A32}
s jupyter-token-url Notebook server on gpu03 is up: http://gpu03.lab.uni.example:8888/lab?token={H48}
s totp-seed otpauth://totp/Acme:ops@acme-saas.io?secret={Z32}&issuer=Acme  (shared ops 2FA, scan into your app)
s recovery-codes GitHub recovery codes for the org owner account:¶{H5}-{H5}¶{H5}-{H5}¶{H5}-{H5}¶{H5}-{H5}
s chat-pasted-credentials [#client-acme] tom: ftp is ftp.acme-print.ie, user acmeprint, pw {P12} ‖ @here new VPN creds for the contractors: user contractor3 / {P14} (valid until Friday)
s env-file-block .env.production¶NODE_ENV=production¶DATABASE_URL=postgres://invoicely:{A24}@db.invoicely.internal:5432/invoicely¶SESSION_SECRET={A48}¶POSTHOG_HOST=https://eu.posthog.com ‖ Handover .env for the new box (copy as is):¶APP_KEY=base64:{B43}=¶DB_PASSWORD={P16}¶MAIL_PASSWORD={P16}
s ci-log-leak Build #4412 log (GitHub Actions):¶Run ./scripts/publish.sh¶+ curl -fsS -u deploy:{A24} -T dist/app-4.12.0.aab https://nexus.studio.internal/repository/releases/
s helm-values-secret values-prod.yaml¶postgresql:¶  auth:¶    postgresPassword: {P18}¶    password: {P18}¶redis:¶  auth:¶    password: {A24}
s tfvars-secret prod.auto.tfvars¶db_password          = "{P20}"¶cloudflare_api_token = "{W40}"¶region               = "eu-west-1"
s pgpass-netrc ~/.pgpass¶risk-db.bank.internal:5432:risk:risk_app:{P18} ‖ ~/.netrc¶machine api.heroku.com¶  login ana@indie.dev¶  password {=uuid}
s key-passphrase Passphrase for the release signing key (needed by the Gradle signing step): {P24}
s sftp-url-password FileZilla site for Harbour Dental: sftp://harbour:{P14}@ftp.harbourdental.ie:22/public_html
b git-commit-sha Bisected the regression to {H40} ("switch to async session pool"). ‖ Release v3.8.0 is tagged at commit {H40}; hotfix branch starts from {H7}. ‖ pip install git+https://github.com/mlab/tokenizers-fork@{H40}
b docker-digest Pinned the base image: FROM python:3.12-slim@sha256:{H64} ‖ image: ghcr.io/gov-digital/forms-api@sha256:{H64}  # digest from the signed release ‖ docker pull nginx:1.27 -> Digest: sha256:{H64}
b request-uuid Support ticket: customer sees 502, request id {=uuid}, trace {H32} ‖ 2026-12-06T09:14:22Z ERROR payment failed order={=uuid} attempt=3 reason=card_declined ‖ Idempotency-Key: {=uuid} (we reuse it on retry so Stripe doesn't double charge)
b release-checksum SHA256 (firmware-2.4.1.bin) = {H64} ‖ {H64}  graphit-1.4.0-py3-none-any.whl¶{H64}  graphit-1.4.0.tar.gz ‖ md5 of the exported CSV matches the bank's file: {H32}
b lockfile-integrity "node_modules/lodash": {¶  "version": "4.17.21",¶  "integrity": "sha512-{B86}=="¶} ‖ requests==2.32.3 --hash=sha256:{H64}
b asset-hash-filename The CDN still serves main.{H8}.js; purge didn't work, new build is main.{H8}.js ‖ Theme assets after build: assets/theme.{H20}.css, assets/app.{H20}.js
b stripe-object-ids Refunded ch_3Q{A22} for customer cus_{A14}; subscription sub_1Q{A22} left active. ‖ New pricing: price_1Q{A22} (monthly), price_1Q{A22} (yearly), product prod_{A14} ‖ Webhook endpoint we_1Q{A22} listens for invoice.paid and customer.subscription.deleted.
b slack-ids Post incidents to channel C0{U9} and ping user group S0{U9} (@oncall). ‖ Slack app id A0{U9}, team id T{U9}; install URL is in the README.
b twilio-account-sid Twilio account SID for the EU subaccount is AC{H32} (auth token lives in Vault). ‖ Messaging service MG{H32} sends the OTPs; number +44 7700 900123.
b aws-arn-account Role to assume: arn:aws:iam::{D12}:role/ci-deployer (account {D12}, prod). ‖ KMS key arn:aws:kms:eu-west-1:{D12}:key/{=uuid} encrypts the ledger bucket. ‖ Secret lives at arn:aws:secretsmanager:eu-west-2:{D12}:secret:prod/stripe-{A6}; the app reads it at boot.
b ml-run-ids W&B run {N8} (sweep {N8}) got 71.3 on the held-out split; config in runs/{N8}/config.yaml ‖ Pinned the model revision: AutoModel.from_pretrained("mlab/tiny-llm", revision="{H40}") ‖ checkpoint step_48000 sha256 {H64}, uploaded to s3://mlab-ckpts/exp-112/
b doi-orcid Cite the dataset as doi:10.5281/zenodo.{D7}; PI ORCID 0000-0002-{D4}-{D3}X. ‖ arXiv:2411.{D5} is the paper the baseline comes from.
b govuk-template-id Notify template ids: confirmation {=uuid}, reminder {=uuid}. Service id {=uuid}. ‖ GOV.UK Pay payment reference {N26} for the licence fee (status: success).
b device-serial-mac Gateway GW-{U8} (MAC 3C:71:BF:{X2}:{X2}:{X2}) keeps rebooting after 2.4.1. ‖ ESP32 chip id {X12}, flash id {X8}; board rev C.
b lorawan-eui Registered node 22 on TTN: DevEUI 70B3D57ED00{X5}, JoinEUI 0000000000000000 (AppKey is in the vault). ‖ Gateway EUI B827EBFFFE{X6}, frequency plan EU_863_870.
b public-ids Shareable order confirmation page: /orders/#10{D3} (customer sees it after checkout). ‖ YouTube trailer id is dQw{W8}, embed it on the landing page.
b iban-example Test IBAN for the SEPA flow: DE89 3704 0044 0532 0130 00 (the standard example one).
b semver-build Build 2026.12.06.{D4} (version 4.12.0+{H7}) shipped to TestFlight.
b stripe-publishable-key NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51{A97} ‖ <script>const stripe = Stripe("pk_live_51{A97}");</script> ‖ Publishable key is pk_live_{A24} - fine to ship in the app bundle.
b supabase-anon-key NEXT_PUBLIC_SUPABASE_URL=https://{L20}.supabase.co¶NEXT_PUBLIC_SUPABASE_ANON_KEY={=jwt_anon} ‖ const supabase = createClient("https://{L20}.supabase.co", "{=jwt_anon}") // anon key, RLS does the rest
b mapbox-public-token mapboxgl.accessToken = "pk.eyJ1IjoibHVtZW4tZ2FtZXMiLCJhIjoi{W20}In0.{W22}"; ‖ MAPBOX_PUBLIC_TOKEN=pk.eyJ1IjoiZ292LWZvcm1zIiwiYSI6I{W20}In0.{W22} (URL-restricted to *.service.gov.example)
b algolia-search-key Search-only key for the storefront widget: {H32} (app id {U10}). Admin key stays server-side. ‖ instantsearch({ indexName: "products", searchClient: algoliasearch("{U10}", "{H32}") })
b sentry-dsn Sentry.init({ dsn: "https://{H32}@o{D6}.ingest.sentry.io/{D7}", tracesSampleRate: 0.1 }); ‖ SENTRY_DSN=https://{H32}@o{D6}.ingest.us.sentry.io/{D7}
b firebase-web-config const firebaseConfig = {¶  apiKey: "AIza{W35}",¶  authDomain: "tapquest-prod.firebaseapp.com",¶  projectId: "tapquest-prod",¶  appId: "1:{D12}:web:{H22}"¶}; ‖ google-services.json ships inside the APK anyway; current_key is AIza{W35}, restricted to our package name and SHA-1.
b recaptcha-site-key <div class="g-recaptcha" data-sitekey="6L{W38}"></div>
b oauth-client-id GOOGLE_CLIENT_ID={D12}-{N32}.apps.googleusercontent.com (secret is in the deploy vault) ‖ Entra app registration: tenant {=uuid}, client id {=uuid}, redirect https://forms.gov.example/auth/callback ‖ Auth0 SPA: domain invoicely.eu.auth0.com, client id {A32}, audience https://api.invoicely.app
b apple-team-key-ids APNs: team id {U10}, key id {U10}, bundle com.lumengames.tapquest. The .p8 file is in 1Password.
b shopify-storefront-token Storefront API public access token for the headless front end: {H32} (unauthenticated scopes only)
b ssh-public-key Add this to authorized_keys on the bastion: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{B43} ana@laptop ‖ Deploy key (public half) for the theme repo: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{B360} wp-deploy ‖ github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl
b x509-certificate Intermediate cert for the MQTT broker (public, goes in the device trust store):¶-----BEGIN CERTIFICATE-----¶MIIDdzCCAl+gAwIBAgIE{B44}¶{B64}¶{B64}¶{B64}¶{B40}==¶-----END CERTIFICATE----- ‖ openssl s_client output: subject=CN = api.acme-saas.io, issuer=C = US, O = Let's Encrypt, CN = R11, serial {X32}
b pgp-public-key Maintainer signing key, public part, for the release docs:¶-----BEGIN PGP PUBLIC KEY BLOCK-----¶¶mQINBGR{B57}¶{B64}¶{B64}¶={B4}¶-----END PGP PUBLIC KEY BLOCK-----
b key-fingerprint Host key fingerprint of the new bastion: SHA256:{B43} (ED25519). Verify before you accept. ‖ Releases are signed by GPG key {X40}; verify with gpg --verify.
b wireguard-public-key Peer for Ana's laptop: PublicKey = {B42}A=, AllowedIPs = 10.44.0.9/32
b age-public-key SOPS recipients: age1{q58} (ci), age1{q58} (ana)
b eth-address Send testnet ETH for the contract tests to 0x{H40} (Sepolia faucet). ‖ Contract deployed at 0x{H40}, tx 0x{H64}
b env-var-reference client = OpenAI(api_key=os.environ["OPENAI_API_KEY"]) ‖ const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: "2024-06-20" }); ‖ export DATABASE_URL="postgres://app:${DB_PASSWORD}@db:5432/app" ‖ password = os.getenv("SNOWFLAKE_PASSWORD")  # never hardcode, set by the Airflow connection
b ci-secret-reference - name: Publish¶  run: npm publish¶  env:¶    NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }} ‖ deploy:¶  script: ./deploy.sh¶  variables:¶    AWS_ACCESS_KEY_ID: $PROD_AWS_KEY_ID¶    AWS_SECRET_ACCESS_KEY: $PROD_AWS_SECRET ‖ - uses: pypa/gh-action-pypi-publish@release/v1  # trusted publishing, no token needed
b secret-ref-manifest env:¶- name: DB_PASSWORD¶  valueFrom:¶    secretKeyRef:¶      name: billing-db¶      key: password ‖ postgresql:¶  auth:¶    existingSecret: billing-db¶    secretKeys:¶      adminPasswordKey: postgres-password ‖ apiVersion: external-secrets.io/v1beta1¶kind: ExternalSecret¶spec:¶  secretStoreRef: {name: aws-sm, kind: ClusterSecretStore}¶  data:¶  - secretKey: STRIPE_SECRET_KEY¶    remoteRef: {key: prod/stripe}
b terraform-sensitive-var variable "db_password" {¶  type      = string¶  sensitive = true¶} ‖ resource "aws_db_instance" "main" {¶  username = "app"¶  manage_master_user_password = true¶}
b password-manager-ref The live Stripe key is in 1Password: op://Prod/Stripe/secret_key. Run `op run -- npm start`. ‖ Vault path for the client DB creds: secret/data/client-b/postgres (policy client-b-ro). ‖ WP admin logins for all agency clients are in Bitwarden, collection "Clients / WordPress".
b placeholder-value .env.example¶OPENAI_API_KEY=sk-...your-key-here¶STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx¶DATABASE_URL=postgres://user:password@localhost:5432/app ‖ curl -H "Authorization: Bearer <YOUR_API_TOKEN>" https://api.invoicely.app/v1/me ‖ Config template: password: CHANGE_ME  # the installer replaces this ‖ In the README: export HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx then run make download.
b aws-doc-example-key The docs example uses AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; our test fixture copies it. ‖ moto test: boto3.client("s3", aws_access_key_id="testing", aws_secret_access_key="testing")
b jwt-io-example The example token from jwt.io (eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c) is what the parser test decodes.
b stripe-test-card Test cards: 4242 4242 4242 4242 (success), 4000 0000 0000 9995 (insufficient funds), any future expiry, any CVC. ‖ 3DS test card 4000 0027 6000 3184 triggers the challenge in test mode.
b dummy-test-token def test_rejects_bad_token():¶    assert not verify("ghp_000000000000000000000000000000000000") ‖ monkeypatch.setenv("STRIPE_SECRET_KEY", "sk_test_dummy")
b redacted-token Old key (revoked): sk_live_****************************{A4} ‖ The leaked token was ghp_{A4}…{A4} (redacted in the incident doc). ‖ DATABASE_URL=postgres://app_rw:********@prod-db.internal:5432/app ‖ Slack webhook for #orders: https://hooks.slack.com/services/T{U9}/B{U10}/XXXXXXXXXXXXXXXXXXXXXXXX (real one in Doppler)
b masked-log-line 2026-12-06 10:02:11 INFO auth ok user=ana token=[REDACTED] ip=203.0.113.9 ‖ Loaded secrets: STRIPE_SECRET_KEY=sk_l***, OPENAI_API_KEY=sk-p***, DB_PASSWORD=(set)
b token-prefix-mention Our GitHub tokens all start with ghp_ or github_pat_, so the push-protection rule catches them. ‖ Anthropic keys look like sk-ant-api03-...; OpenAI project keys start with sk-proj-. ‖ Remember: Shopify shpat_ tokens are admin tokens, the storefront ones are not.
b rotation-note Rotated the Stripe live key on 3 Dec after the contractor left; old one revoked, new one only in Doppler. ‖ Incident 2026-11-14: AWS key for the ledger-exports user was pushed to a public gist. Deactivated in 6 min, CloudTrail showed no use. ‖ TODO next sprint: rotate the Twilio auth token and the SendGrid key (both > 1 year old). ‖ Handover: all client WP admin passwords reset on Monday; tell clients via the portal, not email.
b password-policy-note Password policy for the citizen accounts: min 12 chars, check against the breached-passwords list, no forced rotation. ‖ Decision: hash with argon2id (m=64MiB, t=3, p=4). bcrypt stays for legacy rows until next login. ‖ Students kept using Password123! on the lab VMs; we now force a change at first login.
b auth-error-log openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided', 'code': 'invalid_api_key'}} ‖ botocore.exceptions.ClientError: An error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: The security token included in the request is invalid. ‖ remote: Invalid username or password.¶fatal: Authentication failed for 'https://github.com/oss-maint/graphit.git/'
b commit-message-about-leak {H7} Remove accidentally committed .env (keys already rotated) ‖ chore: add .env* and *.pem to .gitignore after the near-miss
b local-dev-default-creds docker run -e POSTGRES_PASSWORD=postgres -p 5432:5432 postgres:16  # local dev only ‖ Local dev DB: postgres://postgres:postgres@localhost:5432/app_dev ‖ MinIO in docker-compose uses minioadmin/minioadmin on localhost:9000.
b iam-auth-db-url DATABASE_URL=postgres://app@billing.cluster-{N12}.eu-west-1.rds.amazonaws.com:5432/billing?sslmode=verify-full (IAM auth, token generated per connection) ‖ jdbc:sqlserver://riskdb.database.windows.net:1433;database=risk;authentication=ActiveDirectoryMSI
b git-remote-url git remote add upstream git@github.com:oss-maint/graphit.git ‖ Theme repo: https://bitbucket.org/harbour-agency/harbour-theme.git (clone with your own app password)
b sealed-secret apiVersion: bitnami.com/v1alpha1¶kind: SealedSecret¶metadata:¶  name: stripe¶spec:¶  encryptedData:¶    STRIPE_SECRET_KEY: AgB{B300} ‖ Sealed the DB password with kubeseal --cert pub-cert.pem; only the cluster controller can decrypt it.
b sops-encrypted db_password: ENC[AES256_GCM,data:{B24},iv:{B43}=,tag:{B22}==,type:str]¶sops:¶  age:¶  - recipient: age1{q58} ‖ secrets.enc.yaml is committed; decrypt with `sops -d secrets.enc.yaml` (needs your age key).
b ansible-vault-encrypted group_vars/prod/vault.yml:¶$ANSIBLE_VAULT;1.1;AES256¶{H64}¶{H64}¶{H64}
b regex-token-pattern GITHUB_PAT = re.compile(r"\bghp_[A-Za-z0-9]{36}\b") ‖ const awsKeyRe = /\b(AKIA|ASIA)[A-Z2-7]{16}\b/; ‖ Pre-commit hook greps for 'sk_live_[0-9a-zA-Z]{24,}' and 'xox[bp]-' before every push.
b variable-names class User(Base):¶    password_hash = Column(String(128), nullable=False)¶    api_key_prefix = Column(String(8)) ‖ API_KEY_HEADER = "X-API-Key"¶TOKEN_TTL_SECONDS = 3600¶PASSWORD_MIN_LENGTH = 12 ‖ def reset_password(user_id: int, new_password: str) -> None:¶    user = users.get(user_id)¶    user.set_password(new_password)
b html-password-field <label for="pw">Password</label>¶<input type="password" id="pw" name="password" autocomplete="current-password" required> ‖ The login form lost autocomplete="new-password" on the sign-up page, password managers stopped offering to generate.
b sql-password-hashing UPDATE users SET password_hash = crypt($1, gen_salt('bf', 12)) WHERE id = $2; ‖ SELECT id FROM users WHERE email = $1 AND password_hash = crypt($2, password_hash);
b signature-verify-code event = stripe.Webhook.construct_event(payload, sig_header, os.environ["STRIPE_WEBHOOK_SECRET"]) ‖ hmac.compare_digest(hmac.new(SHOPIFY_SECRET, body, hashlib.sha256).digest(), base64.b64decode(header_hmac))
b base64-nonsecret Feature flags cookie is just base64 JSON, eyJuZXdDaGVja291dCI6IHRydWUsICJiYW5uZXJWYXJpYW50IjogImIifQ== decodes to {"newCheckout": true, "bannerVariant": "b"} ‖ echo 'aGVsbG8gd29ybGQK' | base64 -d  -> hello world
b i18n-key i18n keys added: auth.password.reset.title, auth.password.reset.sent, auth.token.expired
b wordpress-salt-url Regenerate the salts for wp-config from https://api.wordpress.org/secret-key/1.1/salt/ after a compromise.
b data-uri favicon: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQ{B80}
b secret-cli-command gh secret set NPM_TOKEN --repo oss-maint/graphit < npm-token.txt ‖ kubectl create secret generic stripe --from-env-file=.env.prod -n shop ‖ aws secretsmanager get-secret-value --secret-id prod/stripe --query SecretString --output text
b keychain-lookup xcrun notarytool submit App.zip --keychain-profile "AC_NOTARY" --wait  # creds stored via store-credentials ‖ security find-generic-password -s "fastlane-appstore" -w
b aws-caller-identity $ aws sts get-caller-identity¶{¶    "UserId": "AIDA{Z17}",¶    "Account": "{D12}",¶    "Arn": "arn:aws:iam::{D12}:user/ana"¶}
b aws-key-id-only CloudTrail shows the calls came from access key AKIA{Z16} (user ci-deployer), all from our runner IPs. No secret involved in this note. ‖ IAM report: key AKIA{Z16} last used 412 days ago, scheduled for deactivation.
b oauth-authorize-url https://accounts.google.com/o/oauth2/v2/auth?client_id={D12}-{N32}.apps.googleusercontent.com&redirect_uri=https%3A%2F%2Fapp.example.com%2Foauth%2Fcallback&response_type=code&scope=openid%20email&state={W22}&code_challenge={W43}&code_challenge_method=S256
b csrf-nonce <input type="hidden" id="_wpnonce" name="_wpnonce" value="{H10}" /> ‖ The form posts csrfmiddlewaretoken with the request; 403 came from a stale cached page, not a bad token.
b jwt-claims-decoded Decoded the id_token header: {"alg":"RS256","kid":"{H40}","typ":"JWT"}, payload has aud={D12}-{N32}.apps.googleusercontent.com, exp 1798761600 ‖ Our access tokens carry {"sub":"user_{A24}","org":"org_{A24}","scope":"invoices:read"}; no PII in claims.
b jwks-public GET /.well-known/jwks.json ->¶{"keys":[{"kty":"RSA","kid":"{H16}","use":"sig","alg":"RS256","n":"{W342}","e":"AQAB"}]}
b public-embed-id Analytics: GA4 G-{U10}, GTM-{U7}, Meta pixel {D15}. All go in the theme header. ‖ <script src="https://kit.fontawesome.com/{H10}.js" crossorigin="anonymous"></script>
b shopify-store-ids Store: lumen-candles.myshopify.com, live theme id {D12}, location gid://shopify/Location/{D11}
b k8s-configmap apiVersion: v1¶kind: ConfigMap¶metadata:¶  name: forms-api¶data:¶  LOG_LEVEL: info¶  NOTIFY_BASE_URL: https://api.notifications.service.gov.uk¶  FEATURE_UPLOADS: "true" ‖ envFrom:¶- configMapRef:¶    name: app-config¶- secretRef:¶    name: app-secrets
b doc-links Spec: https://docs.google.com/document/d/1{W43}/edit (comment access for the client) ‖ Roadmap: https://www.notion.so/acme/Roadmap-Q1-{H32}
b terraform-output $ terraform output¶db_endpoint = "billing.cluster-{N12}.eu-west-1.rds.amazonaws.com"¶db_password = <sensitive>¶vpc_id = "vpc-{H17}"
b secret-inventory-table | secret | where | owner | rotated |¶|---|---|---|---|¶| Stripe live key | Doppler prd | Ana | 2026-12-03 |¶| Twilio auth token | Vault kv/twilio | Sam | 2025-10-01 |¶| APNs .p8 | 1Password | Lee | never | ‖ Where things live: AWS keys -> SSO only, no static keys; DB passwords -> RDS-managed; GitHub -> fine-grained tokens, 90 days.
b git-lfs-pointer version https://git-lfs.github.com/spec/v1¶oid sha256:{H64}¶size 48211968
b cert-pinning <pin-set expiration="2027-06-01">¶  <pin digest="SHA-256">{B43}=</pin>¶  <pin digest="SHA-256">{B43}=</pin>¶</pin-set>
b signing-cert-fingerprint Upload certificate SHA-1 for the Firebase console: {X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}:{X2}
b vault-iam-policy path "secret/data/payments/*" {¶  capabilities = ["read", "list"]¶} ‖ {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::ledger-exports/*"}
b security-design-note Reset tokens: 32 random bytes, stored as sha256, single use, expire after 30 min. Emails contain the link, logs never do. ‖ Decision: API keys are shown once at creation; we keep only a hash and an 8-char prefix for lookup.
b password-generator-command Generate the new DB password with `openssl rand -base64 32` and put it straight into Vault, never into Slack.
b ssh-config Host bastion-gov¶  HostName 18.130.{D2}.{D2}¶  User ops¶  IdentityFile ~/.ssh/gov_ed25519¶  IdentitiesOnly yes
b mfa-policy-note All admins must use TOTP or a YubiKey; the AWS root account has two hardware keys in the office safe.
"""  # noqa: E501


def corpus() -> list[dict]:
    """Return every row; the same rows on every call."""
    r = random.Random(SEED)

    def fill(m):
        if m.group(3):
            return SPECIAL[m.group(3)](r)
        return _s(r, m.group(1), int(m.group(2)))

    rows = []
    for line in DATA.strip().splitlines():
        label, kind, texts = line.split(" ", 2)
        for text in texts.split(" ‖ "):
            text = _PH.sub(fill, text).replace("¶", "\n")
            rows.append({"label": LABELS[label], "kind": kind, "text": text})
    return rows


def main() -> None:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()

"""Blind held-out corpus 7: secrets and look-alikes in configuration and code.

Each row is a memory an agent might store after copying a snippet of configuration or
code (with a sentence of context): .env files, compose files, Kubernetes and Helm, CI
files, Terraform, Ansible, framework settings, package-manager and cloud credential
files, server configs, units, crontabs, Makefiles, Dockerfiles, Postman and OpenAPI,
SQL seeds, fixtures, and code in many languages. Label "secret" means storing the text
would leak something that grants access to a real system; "benign" means it does not
(placeholders, references, secret-manager calls, ciphertext, hashes, public keys and
ids, documentation examples, random-looking values that grant nothing).

Written blind on 2026-12-06, without reading the detector, its tests or earlier corpora;
every credential-shaped value is generated from a fixed seed (none is real). Run:
  python benchmarks/data/blind_secrets/blind_secrets_7.py [out.jsonl]   (or to stdout)

Kinds, grouped:
  secret / cloud: aws-credentials-file aws-env-export aws-terraform-provider aws-sts-session
    gcp-service-account google-api-key google-oauth-secret azure-storage-connstr azure-sas-url
    azure-client-secret digitalocean-token cloudflare-token heroku-api-key
  secret / code hosts, CI, registries: github-pat github-fine-grained github-oauth-token
    gitlab-pat gitlab-runner-token npm-token pypi-token dockerhub-pat docker-config-auth
    jenkins-api-token circleci-token terraform-cloud-token vault-token doppler-token
    pulumi-token netrc-password maven-settings-password nuget-password pip-index-creds
  secret / SaaS APIs: slack-bot-token slack-user-token slack-webhook discord-webhook
    discord-bot-token telegram-bot-token stripe-secret-key stripe-restricted-key
    stripe-webhook-secret stripe-test-key openai-key anthropic-key twilio-auth sendgrid-key
    mailgun-key shopify-token linear-key notion-key airtable-pat atlassian-token
    databricks-token figma-token postman-api-key huggingface-token replicate-token
    grafana-token supabase-service-role okta-token datadog-keys newrelic-key sentry-auth-token
    square-token mapbox-secret elastic-api-key
  secret / connection strings and passwords: postgres-url mysql-password mongodb-uri
    redis-url amqp-url ldap-bind-password smtp-password snowflake-password db-password-code
    compose-inline-password helm-values-password ansible-plaintext-password tfvars-password
    k8s-secret-data kubeconfig-credential haproxy-stats-auth basic-auth-header
    systemd-env-secret crontab-creds makefile-token dockerfile-secret sql-seed-api-key
    postman-key-value session-cookie bearer-jwt
  secret / keys: rsa-private-key openssh-private-key ec-private-key pkcs8-private-key
    age-secret-key eth-private-key seed-phrase totp-seed django-secret-key rails-secret
    wp-config-secrets laravel-app-key flask-secret-key hmac-secret-code aes-key-code
  benign / placeholders: env-example env-placeholder k8s-secret-placeholder redacted-value
    doc-example-aws doc-example-jwt doc-example-other tutorial-fixture localhost-dev-default
  benign / references: compose-env-ref compose-secret-file k8s-secret-ref external-secret
    helm-existing-secret gha-secrets-ref gha-oidc gitlab-ci-var-ref circleci-context
    jenkins-credentials-id tf-sensitive-var tf-random-password tf-secret-data ansible-lookup
    spring-placeholder appsettings-keyvault django-env rails-credentials-ref wp-getenv
    npmrc-env yarnrc-env pip-conf-plain pypirc-no-password maven-env nuget-env aws-config-sso
    docker-credstore kubeconfig-exec systemd-envfile crontab-secret-file makefile-vault
    dockerfile-secret-mount postman-variable openapi-security onepassword-ref doppler-run
    nginx-tls-paths sql-migration-schema code-env-lookup code-config-lookup code-secret-manager
    shell-prompt
  benign / ciphertext and hashes: ansible-vault sops-encrypted sealed-secret kms-ciphertext
    bcrypt-hash argon2-hash htpasswd-entry password-hasher-config sha256-checksum
    sri-integrity lockfile-integrity image-digest git-sha
  benign / public material: ssh-public-key pgp-public-key x509-certificate age-public-key
    host-key-fingerprint stripe-publishable-key mapbox-public-token firebase-web-config
    sentry-dsn recaptcha-site-key algolia-search-key supabase-anon-key oauth-client-id
    analytics-id aws-arn-ids eth-address
  benign / random that grants nothing: uuid-ids trace-ids ulid-ids ipfs-cid build-ids
    base64-asset test-card-number pkce-challenge password-policy
"""

import base64
import json
import random
import re
import string
import sys

SEED = 731906  # fixed; corpus() re-seeds on every call
# Rows: "S kind | text ||| text" (secret) or "B kind | ..." (benign); \n and \t are a newline
# and a tab, @@NAME@@ a freshly generated value. Lines "= NAME token token; ..." define
# generators (alphabets on "~" lines): a token like U20 is 20 characters of alphabet U.
DATA = r"""
~ A:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 B:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567 C:ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 D:0123456789 E:0123456789ABCDEF H:0123456789abcdef
~ J:abcdefghijklmnopqrstuvwxyz0123456789!@#%^&*(-_=+) K:0123456789ABCDEFGHJKMNPQRSTVWXYZ L:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ O:abcdefghijklmnopqrstuvwxyz0123456789
~ Q:abcdefghijklmnopqrstuvwxyz234567 S:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/ T:./abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789
~ U:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_ W:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#%^&*()-_=+[]{}<>~|;:,.?
~ X:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789~_.- Y:QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L Z:qpzry9x8gf2tvdw0s3jn54khce6mua7l
~ WORDS orbit velvet cactus ladder pepper frozen anchor ribbon saddle harvest timber glove mango stereo puzzle random wisdom tunnel oyster fabric lemon canyon jelly magnet
= AKID AKIA B16; ASIA ASIA B16; AWSSEC S40; AWSSESS FwoGZXIvYXdzE S220; GHP ghp_ A36; GHO gho_ A36
= GHS ghs_ A36; GHFG github_pat_11 C20 _ A59; GLPAT glpat- U20; GLRT glrt- U20; XOXB xoxb- D11 - D13 - A24
= XOXP xoxp- D11 - D12 - H32; SLACKHOOK https://hooks.slack.com/services/T C8 /B C10 / A24
= DISCHOOK https://discord.com/api/webhooks/ D18 / U68; SKLIVE sk_live_51 A97; RKLIVE rk_live_51 A97
= SKTEST sk_test_51 A97; PKLIVE pk_live_51 A97; WHSEC whsec_ A32; OPENAI sk-proj- U74 T3BlbkFJ U74
= ANT sk-ant-api03- U93 AA; AIZA AIza U35; GOCSPX GOCSPX- U28; GCLIENT D12 - O32 .apps.googleusercontent.com
= TWSID AC H32; TWSK SK H32; SG SG. U22 . U43; MG key- H32; NPM npm_ A36; PYPI pypi-AgEIcHlwaS5vcmcCJ U160
= DCKR dckr_pat_ U27; SHPAT shpat_ H32; HVS hvs.CAESI U86; TFC A14 .atlasv1. A67; DOPPLER dp.st.prd. A43
= LIN lin_api_ A40; NOTION secret_ A43; AIRT pat A14 . H64; ATATT ATATT3xFfGF0 U170 = E8; DAPI dapi H32
= DOP dop_v1_ H64; FIGD figd_ U40; PMAK PMAK- H24 - H34; HF hf_ L34; R8 r8_ A37; GLSA glsa_ A32 _ H8
= PUL pul- H40; NRAK NRAK- C27; SNTRYS sntrys_eyJpYXQiOjE3 U140; CCIPAT CCIPAT_ A22 _ H40; SQ EAAA U60
= MAPSK sk.eyJ1IjoiYWNtZS1tYXBzIiwiYSI6I U30 . U22; MAPPK pk.eyJ1IjoiYWNtZS1tYXBzIiwiYSI6I U30 . U22
= AZSTOR S86 ==; AZSEC A3 8Q~ X34; SASSIG A43 %3D; SESS U48; AGE AGE-SECRET-KEY-1 Y58; AGEPUB age1 Z58
= SSHK AAAAC3NzaC1lZDI1NTE5AAAAI S43; TOTP B32; BCRYPT $2b$12$ T53; CID bafybei Q52; ULID 01J K23
= ARGON $argon2id$v=19$m=65536,t=3,p=4$ S22 $ S43; ETHPK 0x H64; ETHADDR 0x H40; GA G- C10; RECAP 6L U38
= OKTA 00 U40; CFTOK U40; IMGDIG sha256: H64; DJKEY J50; WPSALT W64; KMS AQICAHh S190 ==; SEALED AgB S330 ==
= JENKTOK 11 H32; ALGAPP C10; LO20 O20; U7 C7; PKCE U43; ACCT D12; ESID U20 : U22; HEX8 H8; HEX12 H12
= HEX16 H16; HEX17 H17; HEX24 H24; HEX32 H32; HEX40 H40; HEX64 H64; HEX128 H128; A14 A14; A16 A16; A22 A22; A43 A43; T86 T86; E4 E4; O38 O38; U43 U43; NUM6 D6; NUM9 D9
= NUM12 D12; NUM18 D18
S aws-credentials-file | Prod deploy profile in ~/.aws/credentials on the bastion:\n[default]\naws_access_key_id = @@AKID@@\naws_secret_access_key = @@AWSSEC@@\nregion = eu-west-1 ||| Billing export job uses its own profile:\n[billing-export]\naws_access_key_id=@@AKID@@\naws_secret_access_key=@@AWSSEC@@
S aws-env-export | Before running terraform apply in the legacy account:\nexport AWS_ACCESS_KEY_ID=@@AKID@@\nexport AWS_SECRET_ACCESS_KEY=@@AWSSEC@@ ||| scripts/sync_s3.py builds the client with explicit keys: boto3.client("s3", aws_access_key_id="@@AKID@@", aws_secret_access_key="@@AWSSEC@@") ||| .env of the report worker (key id is in the task definition): AWS_SECRET_ACCESS_KEY=@@AWSSEC@@
S aws-terraform-provider | infra/legacy/main.tf still pins keys in the provider:\nprovider "aws" {\n  region     = "us-east-1"\n  access_key = "@@AKID@@"\n  secret_key = "@@AWSSEC@@"\n}
S aws-sts-session | Temporary creds from assume-role, valid until 18:00 UTC:\nAWS_ACCESS_KEY_ID=@@ASIA@@\nAWS_SECRET_ACCESS_KEY=@@AWSSEC@@\nAWS_SESSION_TOKEN=@@AWSSESS@@
S gcp-service-account | The firebase-admin key file the backend loads: {"type": "service_account", "project_id": "acme-prod-3321", "private_key_id": "@@HEX40@@", "private_key": "@@PKCS8J@@", "client_email": "backend@acme-prod-3321.iam.gserviceaccount.com", "client_id": "@@NUM18@@"} ||| GOOGLE_CREDENTIALS secret for the BigQuery loader (pasted whole): {"type":"service_account","project_id":"warehouse-88","private_key":"@@PKCS8J@@","client_email":"loader@warehouse-88.iam.gserviceaccount.com"}
S google-api-key | Gemini calls from the summarizer service: GEMINI_API_KEY=@@AIZA@@ ||| Server-side geocoding in geo/client.go: const mapsKey = "@@AIZA@@" // unrestricted key, billing on acme-prod
S google-oauth-secret | Google login for the admin portal (settings.py):\nSOCIAL_AUTH_GOOGLE_OAUTH2_KEY = "@@GCLIENT@@"\nSOCIAL_AUTH_GOOGLE_OAUTH2_SECRET = "@@GOCSPX@@" ||| client_secret.json for the Drive sync: {"installed":{"client_id":"@@GCLIENT@@","client_secret":"@@GOCSPX@@","redirect_uris":["http://localhost"]}}
S azure-storage-connstr | appsettings.Production.json:\n"ConnectionStrings": {\n  "Blobs": "DefaultEndpointsProtocol=https;AccountName=acmeassets;AccountKey=@@AZSTOR@@;EndpointSuffix=core.windows.net"\n} ||| Function app setting: AzureWebJobsStorage=DefaultEndpointsProtocol=https;AccountName=fnstate01;AccountKey=@@AZSTOR@@
S azure-sas-url | Upload URL the vendor uses (write SAS, expires 2027): https://acmedrop.blob.core.windows.net/incoming?sv=2022-11-02&ss=b&srt=co&sp=rwlc&se=2027-06-30T00:00:00Z&spr=https&sig=@@SASSIG@@
S azure-client-secret | Service principal for the AKS pipeline:\nAZURE_CLIENT_ID=@@UUID@@\nAZURE_TENANT_ID=@@UUID@@\nAZURE_CLIENT_SECRET=@@AZSEC@@ ||| terraform.tfvars for the Azure landing zone: client_secret = "@@AZSEC@@"
S digitalocean-token | doctl auth init was done with DIGITALOCEAN_ACCESS_TOKEN=@@DOP@@ ||| provider "digitalocean" { token = "@@DOP@@" }
S cloudflare-token | DNS edit token for cert-manager, in the ClusterIssuer secret: api-token: @@CFTOK@@ ||| wrangler deploys use CLOUDFLARE_API_TOKEN=@@CFTOK@@ and CLOUDFLARE_ACCOUNT_ID=@@HEX32@@
S heroku-api-key | ~/.netrc entry the heroku CLI wrote:\nmachine api.heroku.com\n  login ops@acme.io\n  password @@UUID@@ ||| HEROKU_API_KEY=@@UUID@@ is what the GitLab deploy job uses for the review apps.
S github-pat | .npmrc for GitHub Packages:\n//npm.pkg.github.com/:_authToken=@@GHP@@\n@acme:registry=https://npm.pkg.github.com ||| Cloning the private charts repo on the build box: git clone https://x-access-token:@@GHP@@@github.com/acme/charts.git ||| Go modules from private repos: git config --global url."https://mbrandt:@@GHP@@@github.com/".insteadOf "https://github.com/"
S github-fine-grained | Release script token (contents:write on acme/api only), in .env.local: GITHUB_TOKEN=@@GHFG@@ ||| Renovate self-hosted config.js: module.exports = { platform: "github", token: "@@GHFG@@", repositories: ["acme/web"] };
S github-oauth-token | ~/.config/gh/hosts.yml on the shared runner:\ngithub.com:\n    user: acme-bot\n    oauth_token: @@GHO@@\n    git_protocol: https ||| Installation token minted for the app, good for an hour: GH_TOKEN=@@GHS@@
S gitlab-pat | git remote set-url origin https://oauth2:@@GLPAT@@@gitlab.acme-corp.net/platform/api.git ||| python-gitlab config ~/.python-gitlab.cfg:\n[acme]\nurl = https://gitlab.acme-corp.net\nprivate_token = @@GLPAT@@ ||| Danger bot: DANGER_GITLAB_API_TOKEN=@@GLPAT@@
S gitlab-runner-token | /etc/gitlab-runner/config.toml:\n[[runners]]\n  name = "docker-01"\n  url = "https://gitlab.com/"\n  token = "@@GLRT@@"\n  executor = "docker" ||| Registered the arm runner with: gitlab-runner register --non-interactive --url https://gitlab.com --token @@GLRT@@ --executor docker
S npm-token | CI publish step: echo "//registry.npmjs.org/:_authToken=@@NPM@@" > ~/.npmrc && npm publish --access public ||| ~/.npmrc on my laptop: //registry.npmjs.org/:_authToken=@@NPM@@
S pypi-token | ~/.pypirc used for twine uploads:\n[pypi]\n  username = __token__\n  password = @@PYPI@@ ||| uv publish --token @@PYPI@@ (project-scoped token for acme-sdk)
S dockerhub-pat | docker login -u acmebuild -p @@DCKR@@ is in the Jenkins image build stage ||| Compose build secret env: DOCKERHUB_TOKEN=@@DCKR@@
S docker-config-auth | ~/.docker/config.json on the runner:\n{"auths": {"registry.acme.io": {"auth": "@@DAUTH@@"}}} ||| imagePullSecret .dockerconfigjson decoded: {"auths":{"ghcr.io":{"username":"acme-bot","password":"@@GHP@@"}}}
S jenkins-api-token | Triggering the nightly job remotely: curl -X POST -u deployer:@@JENKTOK@@ https://ci.acme.io/job/nightly/build
S circleci-token | CIRCLECI_TOKEN=@@CCIPAT@@ for the pipeline-trigger script ||| curl -H "Circle-Token: @@CCIPAT@@" https://circleci.com/api/v2/project/gh/acme/web/pipeline
S terraform-cloud-token | ~/.terraform.d/credentials.tfrc.json:\n{"credentials": {"app.terraform.io": {"token": "@@TFC@@"}}} ||| TF_TOKEN_app_terraform_io=@@TFC@@ set on the GitLab runner
S vault-token | Root-ish token the bootstrap script uses: export VAULT_ADDR=https://vault.acme.io:8200 VAULT_TOKEN=@@HVS@@ ||| vault login @@HVS@@ then vault kv get secret/payments
S doppler-token | Service token for prd config: DOPPLER_TOKEN=@@DOPPLER@@ (doppler run injects the rest)
S pulumi-token | Pulumi state backend login for CI: PULUMI_ACCESS_TOKEN=@@PUL@@
S netrc-password | ~/.netrc for the artifact mirror:\nmachine artifacts.acme.io\nlogin builder\npassword @@PW@@ ||| curl uses --netrc; the file has: machine ftp.partner-edi.com login acme_edi password @@PW@@
S maven-settings-password | ~/.m2/settings.xml:\n<servers>\n  <server>\n    <id>acme-releases</id>\n    <username>deploy</username>\n    <password>@@PW@@</password>\n  </server>\n</servers>
S nuget-password | NuGet.Config for the private feed:\n<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="build" />\n    <add key="ClearTextPassword" value="@@PW@@" />\n  </acme>\n</packageSourceCredentials>
S pip-index-creds | pip.conf on the workers:\n[global]\nindex-url = https://pypi-reader:@@PW@@@pypi.acme.io/simple/ ||| poetry config http-basic.acme deployer @@PW@@
S slack-bot-token | SLACK_BOT_TOKEN=@@XOXB@@ in the deploy-notifier .env ||| bot/app.py: client = WebClient(token="@@XOXB@@") ||| Helm values for the on-call bot: slack:\n  botToken: "@@XOXB@@"
S slack-user-token | Export script runs as me: SLACK_USER_TOKEN=@@XOXP@@
S slack-webhook | alertmanager.yml:\nreceivers:\n- name: ops\n  slack_configs:\n  - api_url: @@SLACKHOOK@@\n    channel: '#ops-alerts' ||| curl -X POST -H 'Content-type: application/json' --data '{"text":"deploy done"}' @@SLACKHOOK@@
S discord-webhook | Status page posts to Discord: DISCORD_WEBHOOK_URL=@@DISCHOOK@@
S discord-bot-token | Moderation bot: client.run("@@DISCBOT@@") in bot.py ||| DISCORD_TOKEN=@@DISCBOT@@
S telegram-bot-token | Alerts bot: curl "https://api.telegram.org/bot@@TGBOT@@/sendMessage?chat_id=-100@@NUM12@@&text=backup+failed" ||| TELEGRAM_BOT_TOKEN=@@TGBOT@@
S stripe-secret-key | Billing service env (live): STRIPE_SECRET_KEY=@@SKLIVE@@ ||| config/initializers/stripe.rb: Stripe.api_key = "@@SKLIVE@@" ||| curl https://api.stripe.com/v1/refunds -u @@SKLIVE@@: -d charge=ch_3Nx
S stripe-restricted-key | Read-only restricted key for the finance dashboard: STRIPE_RK=@@RKLIVE@@
S stripe-webhook-secret | Webhook endpoint signing secret (prod): STRIPE_WEBHOOK_SECRET=@@WHSEC@@ ||| event = stripe.Webhook.construct_event(payload, sig_header, "@@WHSEC@@")
S stripe-test-key | Staging uses the test-mode secret key of our real account: STRIPE_SECRET_KEY=@@SKTEST@@
S openai-key | OPENAI_API_KEY=@@OPENAI@@ for the support summarizer ||| const openai = new OpenAI({ apiKey: "@@OPENAI@@" }); // src/lib/ai.ts
S anthropic-key | ANTHROPIC_API_KEY=@@ANT@@ in the eval runner's .env ||| client = anthropic.Anthropic(api_key="@@ANT@@")
S twilio-auth | SMS sender settings:\nTWILIO_ACCOUNT_SID=@@TWSID@@\nTWILIO_AUTH_TOKEN=@@HEX32@@ ||| Twilio API key pair for the voice service: TWILIO_API_KEY=@@TWSK@@ TWILIO_API_SECRET=@@HEX32@@
S sendgrid-key | Transactional mail: SENDGRID_API_KEY=@@SG@@ ||| Django: EMAIL_HOST = "smtp.sendgrid.net"; EMAIL_HOST_USER = "apikey"; EMAIL_HOST_PASSWORD = "@@SG@@"
S mailgun-key | Mailgun sending: MAILGUN_API_KEY=@@MG@@ MAILGUN_DOMAIN=mg.acme.io
S shopify-token | Shopify admin API for the inventory sync: SHOPIFY_ACCESS_TOKEN=@@SHPAT@@ SHOPIFY_SHOP=acme-store.myshopify.com
S linear-key | Linear issue sync: LINEAR_API_KEY=@@LIN@@
S notion-key | Notion integration for the docs export: NOTION_TOKEN=@@NOTION@@
S airtable-pat | Airtable PAT for the CRM import: AIRTABLE_TOKEN=@@AIRT@@
S atlassian-token | Jira automation: JIRA_USER=ops@acme.io JIRA_API_TOKEN=@@ATATT@@
S databricks-token | ~/.databrickscfg:\n[DEFAULT]\nhost = https://adb-@@NUM12@@.7.azuredatabricks.net\ntoken = @@DAPI@@
S figma-token | Design-token export: FIGMA_TOKEN=@@FIGD@@
S postman-api-key | Newman pulls collections with: newman run "https://api.getpostman.com/collections/@@UUID@@?apikey=@@PMAK@@"
S huggingface-token | Private model downloads: HF_TOKEN=@@HF@@ ||| huggingface-cli login --token @@HF@@
S replicate-token | REPLICATE_API_TOKEN=@@R8@@ for the thumbnail upscaler
S grafana-token | Grafana service account token for dashboards-as-code: GRAFANA_AUTH=@@GLSA@@
S supabase-service-role | Server-only key for the admin functions: SUPABASE_SERVICE_ROLE_KEY=@@SUPASVC@@
S okta-token | Okta org API token for the SCIM job: OKTA_API_TOKEN=@@OKTA@@ OKTA_ORG_URL=https://acme.okta.com
S datadog-keys | datadog.yaml on the hosts: api_key: @@HEX32@@ ||| Monitors-as-code: DD_API_KEY=@@HEX32@@ DD_APP_KEY=@@HEX40@@
S newrelic-key | NEW_RELIC_API_KEY=@@NRAK@@ for the alert policy sync
S sentry-auth-token | Sourcemap upload in CI: SENTRY_AUTH_TOKEN=@@SNTRYS@@ sentry-cli releases files v2.3.1 upload-sourcemaps dist
S square-token | Square production access token for POS reports: SQUARE_ACCESS_TOKEN=@@SQ@@
S mapbox-secret | Mapbox secret token for the tileset uploads (scope uploads:write): MAPBOX_SECRET=@@MAPSK@@
S elastic-api-key | Logstash output to Elastic Cloud: api_key => "@@ESID@@" ||| curl -H "Authorization: ApiKey @@ESKEY@@" https://es.acme.io:9200/_cat/indices
S postgres-url | DATABASE_URL=postgres://app_rw:@@PW@@@db-prod.internal.acme.io:5432/orders?sslmode=require ||| docker-compose.prod.yml:\n  api:\n    environment:\n      DATABASE_URL: postgresql://api:@@PW@@@pg-primary:5432/api ||| alembic.ini: sqlalchemy.url = postgresql+psycopg://migrator:@@PW@@@10.20.4.11/ledger
S mysql-password | application.properties (prod profile):\nspring.datasource.url=jdbc:mysql://mysql-prod.acme.io:3306/shop\nspring.datasource.username=shop\nspring.datasource.password=@@PW@@ ||| config/database.yml production:\n  adapter: mysql2\n  host: db1.acme.io\n  username: rails\n  password: "@@PW@@"
S mongodb-uri | MONGO_URI=mongodb+srv://analytics:@@PW@@@cluster0.ab1cd.mongodb.net/events?retryWrites=true ||| mongoose.connect("mongodb://admin:@@PW@@@mongo-0.acme.io:27017/admin")
S redis-url | Sidekiq: REDIS_URL=rediss://default:@@PW@@@redis-prod.acme.io:6380/0 ||| redis.conf on cache01: requirepass @@PW@@
S amqp-url | Celery broker: CELERY_BROKER_URL=amqp://worker:@@PW@@@rabbit.acme.io:5672/prod
S ldap-bind-password | sssd.conf:\nldap_default_bind_dn = cn=svc-sssd,ou=svc,dc=acme,dc=io\nldap_default_authtok = @@PW@@ ||| Keycloak LDAP federation bind credential: @@PW@@ (bind DN cn=keycloak,ou=svc,dc=acme,dc=io)
S smtp-password | Postfix relay /etc/postfix/sasl_passwd:\n[smtp.office365.com]:587 noreply@acme.io:@@PW@@ ||| Ghost mail config: "mail": {"transport": "SMTP", "options": {"host": "smtp.mailgun.org", "auth": {"user": "postmaster@mg.acme.io", "pass": "@@PW@@"}}}
S snowflake-password | dbt profiles.yml:\nacme:\n  outputs:\n    prod:\n      type: snowflake\n      account: ab12345.eu-central-1\n      user: DBT_PROD\n      password: "@@PW@@"
S db-password-code | Go: db, err := sql.Open("postgres", "host=10.0.3.7 user=billing password=@@PW@@ dbname=billing sslmode=disable") ||| Kotlin: val ds = HikariDataSource().apply { jdbcUrl = "jdbc:postgresql://pg.acme.io/crm"; username = "crm"; password = "@@PW@@" } ||| C#: var conn = new SqlConnection("Server=sql01.acme.local;Database=Payroll;User Id=payroll_app;Password=@@PW@@;"); ||| Elixir config/prod.exs: config :shop, Shop.Repo, username: "shop", password: "@@PW@@", hostname: "pg.acme.io"
S compose-inline-password | docker-compose.yml on the staging VM:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: @@PW@@ ||| Keycloak service in compose: KEYCLOAK_ADMIN=admin and KEYCLOAK_ADMIN_PASSWORD=@@PW@@ (exposed at sso.acme.io)
S helm-values-password | values-prod.yaml for bitnami/postgresql:\nauth:\n  postgresPassword: "@@PW@@"\n  username: app\n  password: "@@PW@@" ||| Grafana chart values: adminUser: admin\nadminPassword: @@PW@@
S ansible-plaintext-password | group_vars/prod.yml:\nansible_user: deploy\nansible_become_password: @@PW@@ ||| roles/mysql/defaults/main.yml: mysql_root_password: "@@PW@@"
S tfvars-password | prod.tfvars:\nregion = "eu-west-1"\ndb_username = "admin"\ndb_password = "@@PW@@" ||| terraform apply -var 'rds_master_password=@@PW@@' -auto-approve
S k8s-secret-data | Secret in k8s/prod/db.yaml:\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n  username: YXBw\n  password: @@B64PW@@ ||| kubectl create secret generic api-keys --from-literal=stripe=@@SKLIVE@@ -n payments
S kubeconfig-credential | kubeconfig user for the CI service account:\nusers:\n- name: ci-deployer\n  user:\n    token: @@JWTSESS@@ ||| kubeconfig from the kubeadm admin.conf:\nusers:\n- name: kubernetes-admin\n  user:\n    client-certificate-data: @@B64@@\n    client-key-data: @@B64KEY@@
S haproxy-stats-auth | haproxy.cfg:\nlisten stats\n    bind *:8404\n    stats enable\n    stats uri /stats\n    stats auth admin:@@PW@@
S basic-auth-header | nginx upstream to the legacy API: proxy_set_header Authorization "Basic @@DAUTH@@"; ||| Health check in the Makefile: curl -fsS -H "Authorization: Basic @@DAUTH@@" https://legacy.acme.io/health
S systemd-env-secret | /etc/systemd/system/exporter.service:\n[Service]\nEnvironment=PGPASSWORD=@@PW@@\nExecStart=/usr/local/bin/postgres_exporter ||| worker.service: Environment="API_TOKEN=@@HEX40@@" "API_URL=https://api.acme.io"
S crontab-creds | crontab -l on backup01:\n0 3 * * * PGPASSWORD=@@PW@@ pg_dump -h db1 -U backup shop | gzip > /backups/shop.sql.gz ||| */5 * * * * curl -s -u monitor:@@PW@@ https://status.acme.io/api/ping > /dev/null
S makefile-token | Makefile:\nREGISTRY_TOKEN := @@GLPAT@@\npush:\n\tdocker login registry.gitlab.com -u ci -p $(REGISTRY_TOKEN) ||| Makefile target: deploy:\n\tcurl -X POST -H "X-Api-Key: @@HEX32@@" https://deploy.acme.io/hooks/web
S dockerfile-secret | Dockerfile (old image, still built):\nFROM python:3.12-slim\nENV DJANGO_DB_PASSWORD=@@PW@@\nCOPY . /app ||| Dockerfile: RUN echo "//registry.npmjs.org/:_authToken=@@NPM@@" > .npmrc && npm ci
S sql-seed-api-key | seeds/002_partners.sql:\nINSERT INTO partner_api_keys (partner, api_key, scopes) VALUES ('fedex-bridge', '@@HEX40@@', 'orders:write'); ||| Fixture copied from the prod dump: INSERT INTO service_accounts (name, token) VALUES ('billing-sync', 'sat_@@HEX40@@');
S postman-key-value | Postman environment export (prod.postman_environment.json): {"key": "apiKey", "value": "@@HEX32@@", "type": "secret", "enabled": true} ||| Postman collection auth: "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "@@GLSA@@", "type": "string"}]}
S session-cookie | Reproducing the admin bug: curl -b "sessionid=@@SESS@@; csrftoken=@@HEX32@@" https://admin.acme.io/orders/ ||| Logged-in cookie for the scraper: _gitlab_session=@@HEX32@@
S bearer-jwt | Prod API token for the mobile QA account (expires 2035): curl -H "Authorization: Bearer @@JWTSESS@@" https://api.acme.io/v2/me
S rsa-private-key | Deploy key for the ops repo (~/.ssh/deploy_rsa):\n@@RSA@@ ||| TLS key for api.acme.io that nginx loads:\n@@RSA@@
S openssh-private-key | Bastion key the runbook says to use:\n@@OSSH@@ ||| GitHub Actions secret SSH_KEY value (copied here):\n@@OSSH@@
S ec-private-key | APNs signing key for the iOS push service:\n@@EC@@
S pkcs8-private-key | SAML SP private key (saml/sp.key):\n@@PKCS8@@
S age-secret-key | sops age identity (~/.config/sops/age/keys.txt):\n# public key: @@AGEPUB@@\n@@AGE@@
S eth-private-key | Hot wallet for the payout contract: PAYOUT_PRIVATE_KEY=@@ETHPK@@ ||| hardhat.config.ts: networks: { mainnet: { url: RPC_URL, accounts: ["@@ETHPK@@"] } }
S seed-phrase | Treasury wallet recovery phrase (Ledger #2): @@MNEM@@
S totp-seed | 2FA seed for the shared AWS root login: otpauth://totp/AWS:root@acme?secret=@@TOTP@@&issuer=AWS ||| MFA secret for the registrar account, type it into the authenticator: @@TOTP@@
S django-secret-key | settings/production.py: SECRET_KEY = "@@DJKEY@@" ||| DJANGO_SECRET_KEY=@@DJKEY@@ in the prod .env
S rails-secret | config/master.key for the storefront app: @@HEX32@@ ||| SECRET_KEY_BASE=@@HEX128@@ set on the prod Heroku app
S wp-config-secrets | wp-config.php on the marketing site:\ndefine( 'DB_NAME', 'wp_marketing' );\ndefine( 'DB_USER', 'wpuser' );\ndefine( 'DB_PASSWORD', '@@PW@@' );\ndefine( 'DB_HOST', 'mysql.acme.io' ); ||| wp-config.php salts:\ndefine('AUTH_KEY', '@@WPSALT@@');\ndefine('SECURE_AUTH_KEY', '@@WPSALT@@');
S laravel-app-key | Laravel .env on prod: APP_KEY=base64:@@B64K32@@\nDB_PASSWORD=@@PW@@
S flask-secret-key | app.py: app.config["SECRET_KEY"] = "@@HEX64@@"  # signs prod sessions
S hmac-secret-code | TypeScript webhook verifier: const SIGNING_SECRET = "@@HEX64@@"; const sig = createHmac("sha256", SIGNING_SECRET).update(body).digest("hex"); ||| Rust: const JWT_SECRET: &[u8] = b"@@HEX64@@"; // used by auth::issue in prod ||| PHP: $hmacKey = '@@HEX64@@'; // partner callback signature, live
S aes-key-code | Java: private static final byte[] KEY = Base64.getDecoder().decode("@@B64K32@@"); // AES-256 for card tokens ||| Swift: let encryptionKey = "@@HEX64@@" // decrypts the offline cache on prod devices
B env-example | .env.example checked into the repo:\nDATABASE_URL=\nSTRIPE_SECRET_KEY=\nOPENAI_API_KEY=\nSENTRY_DSN= ||| .env.example: AWS_ACCESS_KEY_ID=\nAWS_SECRET_ACCESS_KEY=\nAWS_REGION=eu-west-1 ||| Copy .env.example to .env and fill in SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET from the app page.
B env-placeholder | .env template in the README: STRIPE_SECRET_KEY=sk_live_your_key_here ||| OPENAI_API_KEY=<your-openai-key>\nANTHROPIC_API_KEY=<your-anthropic-key> ||| DB_PASSWORD=changeme  # set a real one in the vault, this is the template ||| GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is what the docs show; use your own token.
B k8s-secret-placeholder | Template secret in k8s/base/secret.yaml (overlay replaces it):\napiVersion: v1\nkind: Secret\nmetadata:\n  name: api-keys\nstringData:\n  STRIPE_KEY: REPLACE_ME\n  OPENAI_KEY: REPLACE_ME ||| Helm values.yaml defaults: auth:\n  password: ""\n  existingSecret: ""
B redacted-value | Logged config on startup: STRIPE_SECRET_KEY=sk_live_****************, DATABASE_URL=postgres://app:****@db:5432/app ||| The rotated key ends in ...3f9a; the full value is in 1Password under "Stripe live". ||| Sentry scrubbed the header: Authorization: [Filtered]
B doc-example-aws | AWS docs example for ~/.aws/credentials:\n[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ||| Moto tests use the AWS doc sample id AKIAIOSFODNN7EXAMPLE and region us-east-1, no real account.
B doc-example-jwt | The jwt.io sample token in our auth tutorial: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c ||| Auth0 quickstart snippet: AUTH0_CLIENT_SECRET=YOUR_CLIENT_SECRET and AUTH0_DOMAIN=dev-example.us.auth0.com
B doc-example-other | From the Stripe docs placeholder: Stripe.api_key = 'sk_test_...' then create the PaymentIntent. ||| Slack docs example webhook: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX ||| RFC 7617 example: Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ== (Aladdin / open sesame)
B tutorial-fixture | tests/factories.py:\nclass UserFactory(factory.Factory):\n    email = factory.Faker("email")\n    password = factory.PostGenerationMethodCall("set_password", "password123") ||| spec/fixtures/users.yml: alice:\n  email: alice@example.com\n  password_digest: <%= BCrypt::Password.create("secret") %> ||| Jest test: const token = "test-token"; expect(verify(token)).toBe(false);
B localhost-dev-default | docker-compose.dev.yml: POSTGRES_USER: postgres\nPOSTGRES_PASSWORD: postgres\nports: ["127.0.0.1:5432:5432"] ||| Local dev DSN for the test suite: postgres://postgres:postgres@localhost:5432/app_test ||| MinIO dev defaults in compose: MINIO_ROOT_USER=minioadmin MINIO_ROOT_PASSWORD=minioadmin
B compose-env-ref | docker-compose.yml:\n  api:\n    environment:\n      DATABASE_URL: ${DATABASE_URL}\n      STRIPE_SECRET_KEY: ${STRIPE_SECRET_KEY:?set me} ||| compose reads the password from the host env: POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-}
B compose-secret-file | Compose secrets section:\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt\nservices:\n  db:\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password ||| Swarm: docker secret create stripe_key - < stripe.key, then secrets: [stripe_key] in the service
B k8s-secret-ref | Deployment env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-creds\n      key: password ||| envFrom:\n- secretRef:\n    name: api-keys\n- configMapRef:\n    name: api-config ||| kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d  (run it, don't paste the output)
B external-secret | ExternalSecret for the payments namespace:\napiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nspec:\n  secretStoreRef:\n    name: aws-sm\n    kind: ClusterSecretStore\n  data:\n  - secretKey: stripe\n    remoteRef:\n      key: prod/payments/stripe ||| Vault agent annotation: vault.hashicorp.com/agent-inject-secret-db: "database/creds/app-ro"
B helm-existing-secret | values-prod.yaml: postgresql:\n  auth:\n    existingSecret: pg-auth\n    secretKeys:\n      adminPasswordKey: postgres-password ||| helm upgrade --install api ./chart -f values.yaml --set image.tag=@@HEX8@@ --set-file tls.crt=certs/api.crt
B gha-secrets-ref | .github/workflows/deploy.yml:\n    env:\n      AWS_ACCESS_KEY_ID: ${{ secrets.AWS_ACCESS_KEY_ID }}\n      AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }} ||| - uses: docker/login-action@v3\n  with:\n    registry: ghcr.io\n    username: ${{ github.actor }}\n    password: ${{ secrets.GITHUB_TOKEN }} ||| Publish step: run: npm publish\n  env:\n    NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}
B gha-oidc | No stored AWS keys; the workflow uses OIDC:\npermissions:\n  id-token: write\n- uses: aws-actions/configure-aws-credentials@v4\n  with:\n    role-to-assume: arn:aws:iam::@@ACCT@@:role/gha-deploy\n    aws-region: eu-west-1 ||| PyPI trusted publishing: pypa/gh-action-pypi-publish@release/v1 with permissions id-token: write, no token needed.
B gitlab-ci-var-ref | .gitlab-ci.yml:\ndeploy:\n  script:\n    - docker login -u $CI_REGISTRY_USER -p $CI_REGISTRY_PASSWORD $CI_REGISTRY\n    - helm upgrade api ./chart --set db.password=$DB_PASSWORD ||| Variable DB_PASSWORD is set as masked+protected in Settings > CI/CD > Variables, not in the repo.
B circleci-context | .circleci/config.yml: workflows:\n  deploy:\n    jobs:\n      - publish:\n          context: [aws-prod, npm-publish] ||| CircleCI job step: run: echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > ~/.npmrc
B jenkins-credentials-id | Jenkinsfile:\nwithCredentials([usernamePassword(credentialsId: 'nexus-deploy', usernameVariable: 'NEXUS_USER', passwordVariable: 'NEXUS_PASS')]) {\n  sh 'mvn deploy -s settings.xml'\n} ||| environment { SONAR_TOKEN = credentials('sonar-token') }
B tf-sensitive-var | variables.tf:\nvariable "db_password" {\n  type      = string\n  sensitive = true\n} ||| output "db_endpoint" { value = aws_db_instance.main.address }\noutput "db_password" {\n  value     = var.db_password\n  sensitive = true\n}
B tf-random-password | resource "random_password" "db" {\n  length  = 32\n  special = true\n}\nresource "aws_db_instance" "main" {\n  password = random_password.db.result\n}
B tf-secret-data | data "aws_secretsmanager_secret_version" "stripe" {\n  secret_id = "prod/payments/stripe"\n} ||| data "vault_generic_secret" "db" { path = "secret/prod/db" }\nlocals { db_pass = data.vault_generic_secret.db.data["password"] } ||| resource "aws_ssm_parameter" "db" {\n  name  = "/prod/db/password"\n  type  = "SecureString"\n  value = random_password.db.result\n}
B ansible-lookup | group_vars/all.yml: db_password: "{{ lookup('community.hashi_vault.hashi_vault', 'secret=secret/data/db:password') }}" ||| api_token: "{{ lookup('env', 'API_TOKEN') }}" ||| - name: create db user\n  community.postgresql.postgresql_user:\n    name: app\n    password: "{{ vault_db_password }}"\n  no_log: true
B spring-placeholder | application.yml:\nspring:\n  datasource:\n    url: jdbc:postgresql://${DB_HOST}:5432/orders\n    username: ${DB_USER}\n    password: ${DB_PASSWORD} ||| application.properties: stripe.secret-key=${STRIPE_SECRET_KEY}\nspring.mail.password=${SMTP_PASSWORD:}
B appsettings-keyvault | App Service setting referencing Key Vault: "SqlPassword": "@Microsoft.KeyVault(SecretUri=https://acme-kv.vault.azure.net/secrets/sql-password/)" ||| appsettings.json: "Stripe": { "SecretKey": "" }, and user-secrets holds it locally: dotnet user-secrets set "Stripe:SecretKey" "<key>"
B django-env | settings.py:\nSECRET_KEY = os.environ["DJANGO_SECRET_KEY"]\nDATABASES = {"default": env.db("DATABASE_URL")} ||| SECRET_KEY = env("SECRET_KEY", default="django-insecure-dev-only")  # prod sets it ||| Flask: app.config["SECRET_KEY"] = os.environ.get("FLASK_SECRET_KEY") or secrets.token_hex(32)  # random per process in dev
B rails-credentials-ref | config/initializers/stripe.rb: Stripe.api_key = Rails.application.credentials.dig(:stripe, :secret_key) ||| EDITOR=vim bin/rails credentials:edit --environment production  (master key comes from RAILS_MASTER_KEY) ||| config/database.yml: production:\n  password: <%= ENV["DATABASE_PASSWORD"] %>
B wp-getenv | wp-config.php in the container image: define( 'DB_PASSWORD', getenv('WORDPRESS_DB_PASSWORD') ); ||| Salts are pulled at build time: curl -s https://api.wordpress.org/secret-key/1.1/salt/ >> wp-config.php ||| Laravel config/database.php: 'password' => env('DB_PASSWORD', ''),
B npmrc-env | .npmrc committed to the repo: //registry.npmjs.org/:_authToken=${NPM_TOKEN}\nalways-auth=true ||| @acme:registry=https://npm.pkg.github.com ||| Bun: bunfig.toml [install.scopes]\nacme = { token = "$ACME_NPM_TOKEN", url = "https://npm.acme.io/" }
B yarnrc-env | .yarnrc.yml:\nnpmScopes:\n  acme:\n    npmRegistryServer: "https://npm.pkg.github.com"\n    npmAuthToken: "${GITHUB_PACKAGES_TOKEN}" ||| Cargo: ~/.cargo/config.toml [registries.acme]\nindex = "sparse+https://cargo.acme.io/index/"\ncredential-provider = "cargo:token-from-stdout op read op://dev/cargo/token"
B pip-conf-plain | pip.conf: [global]\nindex-url = https://pypi.acme.io/simple/\ntrusted-host = pypi.acme.io ||| uv config: [[tool.uv.index]]\nname = "acme"\nurl = "https://pypi.acme.io/simple/"\n(credentials come from UV_INDEX_ACME_PASSWORD)
B pypirc-no-password | ~/.pypirc:\n[distutils]\nindex-servers = pypi testpypi\n[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = __token__ ||| keyring set https://upload.pypi.org/legacy/ __token__ (it prompts; twine reads it from the keyring)
B maven-env | settings.xml: <server><id>acme</id><username>${env.MAVEN_USER}</username><password>${env.MAVEN_PASSWORD}</password></server> ||| Gradle: credentials { username = providers.gradleProperty("acmeUser").get(); password = providers.gradleProperty("acmePassword").get() }
B nuget-env | NuGet.Config: <add key="ClearTextPassword" value="%NUGET_FEED_PAT%" /> ||| dotnet nuget add source https://pkgs.dev.azure.com/acme/_packaging/feed/nuget/v3/index.json -n acme -u az -p $AZ_PAT --store-password-in-clear-text
B aws-config-sso | ~/.aws/config:\n[profile prod]\nsso_session = acme\nsso_account_id = @@ACCT@@\nsso_role_name = AdministratorAccess\nregion = eu-west-1 ||| [profile ci]\nrole_arn = arn:aws:iam::@@ACCT@@:role/ci\ncredential_process = /usr/local/bin/aws-vault export --format=json ci
B docker-credstore | ~/.docker/config.json: {"credsStore": "desktop", "auths": {"ghcr.io": {}}} ||| {"credHelpers": {"@@ACCT@@.dkr.ecr.eu-west-1.amazonaws.com": "ecr-login"}} ||| Podman uses ${XDG_RUNTIME_DIR}/containers/auth.json; log in with podman login quay.io and it stores the token there.
B kubeconfig-exec | kubeconfig user for EKS:\nusers:\n- name: eks-prod\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n      args: [eks, get-token, --cluster-name, prod] ||| kubeconfig cluster block: certificate-authority-data: @@B64@@\nserver: https://@@HEX32@@.gr7.eu-west-1.eks.amazonaws.com
B systemd-envfile | /etc/systemd/system/api.service:\n[Service]\nEnvironmentFile=/etc/api/env\nLoadCredential=db-password:/etc/credstore/db-password\nExecStart=/opt/api/bin/api ||| Timer unit for the backup: OnCalendar=*-*-* 03:00:00\nPersistent=true\nUnit=pg-backup.service
B crontab-secret-file | crontab: 0 2 * * * PGPASSFILE=/root/.pgpass pg_dump -h db1 -U backup shop > /backups/shop.sql ||| 30 4 * * * /opt/scripts/rotate-keys.sh --vault-path secret/rotation >> /var/log/rotate.log 2>&1
B makefile-vault | Makefile:\nDB_PASSWORD ?= $(shell vault kv get -field=password secret/dev/db)\nmigrate:\n\tDATABASE_URL=postgres://app:$(DB_PASSWORD)@localhost/app alembic upgrade head ||| login:\n\taws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin $(REGISTRY)
B dockerfile-secret-mount | Dockerfile:\n# syntax=docker/dockerfile:1\nRUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci ||| docker build --secret id=npmrc,src=$HOME/.npmrc -t web . ||| ARG BUILD_DATE\nARG GIT_SHA=@@HEX40@@\nLABEL org.opencontainers.image.revision=$GIT_SHA
B postman-variable | Postman collection auth: "auth": {"type": "apikey", "apikey": [{"key": "value", "value": "{{apiKey}}"}, {"key": "key", "value": "X-API-Key"}]} ||| Pre-request script: pm.request.headers.add({key: "Authorization", value: "Bearer " + pm.environment.get("accessToken")});
B openapi-security | openapi.yaml:\ncomponents:\n  securitySchemes:\n    apiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key\n    bearerAuth:\n      type: http\n      scheme: bearer\n      bearerFormat: JWT ||| OpenAPI example: parameters: - name: Authorization\n  in: header\n  example: "Bearer <token>" ||| openapi.yaml OAuth flow: authorizationUrl: https://auth.acme.io/oauth/authorize\ntokenUrl: https://auth.acme.io/oauth/token\nscopes:\n  orders:read: Read orders
B onepassword-ref | .env.tpl for op inject: STRIPE_SECRET_KEY=op://Production/Stripe/secret-key\nDATABASE_URL=op://Production/Postgres/url ||| op run --env-file=.env.tpl -- npm start ||| GitHub Actions: - uses: 1password/load-secrets-action@v2\n  env:\n    OP_SERVICE_ACCOUNT_TOKEN: ${{ secrets.OP_SA_TOKEN }}\n    STRIPE_KEY: op://CI/stripe/credential
B doppler-run | Procfile: web: doppler run -- gunicorn app:app ||| doppler secrets download --no-file --format env > /dev/null  # only checks access ||| Infisical: infisical run --env=prod --path=/api -- node dist/server.js
B nginx-tls-paths | nginx site:\nserver {\n  listen 443 ssl;\n  ssl_certificate     /etc/letsencrypt/live/api.acme.io/fullchain.pem;\n  ssl_certificate_key /etc/letsencrypt/live/api.acme.io/privkey.pem;\n  auth_basic_user_file /etc/nginx/.htpasswd;\n} ||| Apache: SSLCertificateKeyFile /etc/ssl/private/acme.key\nSSLCertificateFile /etc/ssl/certs/acme.crt ||| HAProxy frontend: bind *:443 ssl crt /etc/haproxy/certs/acme.pem alpn h2,http/1.1\nhttp-request set-header X-Forwarded-Proto https
B sql-migration-schema | migrations/0042_api_keys.sql:\nCREATE TABLE api_keys (\n  id uuid PRIMARY KEY,\n  prefix varchar(8) NOT NULL,\n  key_hash bytea NOT NULL,\n  created_at timestamptz DEFAULT now()\n); ||| ALTER TABLE users ADD COLUMN password_reset_token_hash text;  -- token itself is never stored ||| CREATE ROLE app_ro LOGIN PASSWORD NULL; GRANT SELECT ON ALL TABLES IN SCHEMA public TO app_ro; ||| seed: INSERT INTO plans (code, price_cents, stripe_price_id) VALUES ('pro', 2900, 'price_1P@@A14@@');
B code-env-lookup | Go: token := os.Getenv("GITHUB_TOKEN")\nif token == "" { log.Fatal("GITHUB_TOKEN not set") } ||| TypeScript: const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: "2024-06-20" }); ||| Rust: let key = std::env::var("OPENAI_API_KEY").expect("OPENAI_API_KEY"); ||| Elixir runtime.exs: config :app, :api_key, System.fetch_env!("API_KEY")
B code-config-lookup | Ruby: Stripe.api_key = ENV.fetch("STRIPE_SECRET_KEY") ||| PHP: $password = getenv('DB_PASSWORD') ?: throw new RuntimeException('DB_PASSWORD missing'); ||| Java: @Value("${payments.stripe.secret-key}") private String stripeKey; ||| Kotlin Android: buildConfigField("String", "MAPS_KEY", "\"${localProps["MAPS_KEY"]}\"")
B code-secret-manager | Python: secret = boto3.client("secretsmanager").get_secret_value(SecretId="prod/db")["SecretString"] ||| C#: var client = new SecretClient(new Uri("https://acme-kv.vault.azure.net/"), new DefaultAzureCredential()); var pwd = client.GetSecret("sql-password").Value.Value; ||| GCP: name = f"projects/{project}/secrets/stripe-key/versions/latest"; payload = client.access_secret_version(name=name).payload.data ||| Swift: let token = try Keychain(service: "io.acme.app").get("refreshToken")
B shell-prompt | deploy.sh: read -rsp "Vault token: " VAULT_TOKEN; export VAULT_TOKEN ||| psql "host=db1 user=admin dbname=shop" will prompt for the password; don't pass -W in scripts. ||| ssh-keygen -t ed25519 -C "deploy@acme" -f ~/.ssh/deploy_ed25519 -N ""
B ansible-vault | group_vars/prod/vault.yml (encrypted):\n@@ENCANS@@ ||| db_password: !vault |\n  @@ENCANS@@
B sops-encrypted | secrets.enc.yaml after sops -e:\nstripe_key: @@SOPS@@\ndb_password: @@SOPS@@\nsops:\n  age:\n  - recipient: @@AGEPUB@@
B sealed-secret | SealedSecret for the api:\napiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nspec:\n  encryptedData:\n    password: @@SEALED@@
B kms-ciphertext | Encrypted with KMS (alias/app-secrets), decrypted at boot: DB_PASSWORD_ENC=@@KMS@@ ||| Chamber: chamber exec api-prod -- ./server (reads SSM SecureString params under /api-prod/) ||| Encrypted Travis var: secure: "@@SEALED@@"
B bcrypt-hash | seeds/001_admin.sql: INSERT INTO users (email, password_hash) VALUES ('admin@example.com', '@@BCRYPT@@'); ||| Traefik basic auth label: traefik.http.middlewares.auth.basicauth.users=admin:@@BCRYPT@@
B argon2-hash | jupyter_server_config.py: c.ServerApp.password = "argon2:@@ARGON@@" ||| Keycloak export shows the credential as a hash: "secretData": "{\"value\":\"@@B64@@\",\"salt\":\"@@B64@@\"}", "credentialData": "{\"hashIterations\":27500,\"algorithm\":\"pbkdf2-sha256\"}"
B htpasswd-entry | /etc/nginx/.htpasswd line for the staging gate: staging:@@BCRYPT@@ ||| /etc/shadow line copied for the audit (hash only): deploy:$6$@@A16@@$@@T86@@:19800:0:99999:7:::
B password-hasher-config | settings.py: PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher", "django.contrib.auth.hashers.PBKDF2PasswordHasher"] ||| config/initializers/devise.rb: config.stretches = Rails.env.test? ? 1 : 12
B password-policy | Keycloak realm: "passwordPolicy": "length(12) and digits(1) and upperCase(1) and notUsername() and passwordHistory(5)" ||| Cognito: PasswordPolicy: { MinimumLength: 14, RequireSymbols: true, TemporaryPasswordValidityDays: 3 }
B sha256-checksum | Verified the terraform binary: sha256sum terraform_1.9.5_linux_amd64.zip -> @@HEX64@@ ||| Dockerfile: RUN curl -fsSLO https://github.com/mikefarah/yq/releases/download/v4.44.3/yq_linux_amd64 && echo "@@HEX64@@  yq_linux_amd64" | sha256sum -c ||| Helm chart digest in Chart.lock: digest: sha256:@@HEX64@@
B sri-integrity | <script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.2/dist/htmx.min.js" integrity="@@SRI@@" crossorigin="anonymous"></script> ||| CSP header: Content-Security-Policy: script-src 'self' 'nonce-@@B64K16@@'; object-src 'none'
B lockfile-integrity | package-lock.json entry: "node_modules/lodash": {"version": "4.17.21", "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz", "integrity": "@@INTEG@@"} ||| go.sum: golang.org/x/crypto v0.27.0 h1:@@B64K32@@
B image-digest | Pinned base image: FROM node:20-alpine@@@IMGDIG@@ ||| k8s image: ghcr.io/acme/api@@@IMGDIG@@ (deployed by Argo, revision @@HEX40@@)
B git-sha | Rollback target is commit @@HEX40@@ (tag v3.8.2). ||| ArgoCD app targetRevision: @@HEX40@@ ||| git cherry-pick @@HEX40@@ fixed the migration ordering
B ssh-public-key | authorized_keys entry for the deploy user: ssh-ed25519 @@SSHK@@ deploy@ci ||| cloud-init: ssh_authorized_keys:\n  - ssh-ed25519 @@SSHK@@ mbrandt@laptop ||| GitHub deploy key (public half) added to acme/infra: ssh-ed25519 @@SSHK@@
B pgp-public-key | Release signing key (public) for apt repo:\n@@PGPPUB@@ ||| Key fingerprint to import for the release signatures: 3AA5 C343 71E7 4C9D 2F10  8A6B 19C0 @@E4@@ @@E4@@
B x509-certificate | CA bundle the workers trust (ca.crt):\n@@CERT@@ ||| Pinned intermediate cert for the payment gateway:\n@@CERT@@
B age-public-key | .sops.yaml:\ncreation_rules:\n  - path_regex: secrets/.*\.yaml\n    age: @@AGEPUB@@ ||| WireGuard peer (public key only) in wg0.conf:\n[Peer]\nPublicKey = @@B64K32@@\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.acme.io:51820
B host-key-fingerprint | Bastion host key fingerprint to verify on first connect: ED25519 @@HOSTFP@@ ||| known_hosts pin for github.com is in the runbook; our gitea host: @@HOSTFP@@
B stripe-publishable-key | Frontend checkout: const stripe = await loadStripe("@@PKLIVE@@"); ||| NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=@@PKLIVE@@
B mapbox-public-token | mapboxgl.accessToken = "@@MAPPK@@"; // public token, URL-restricted to acme.io ||| Google Maps JS embed with an HTTP-referrer-restricted browser key: <script src="https://maps.googleapis.com/maps/api/js?key=@@AIZA@@&callback=initMap"></script>
B firebase-web-config | Web app firebaseConfig (public by design, rules do the security): { apiKey: "@@AIZA@@", authDomain: "acme-web.firebaseapp.com", projectId: "acme-web", appId: "1:@@NUM12@@:web:@@HEX24@@" }
B sentry-dsn | Browser SDK init: Sentry.init({ dsn: "https://@@HEX32@@@o@@NUM6@@.ingest.sentry.io/@@NUM6@@", tracesSampleRate: 0.1 })
B recaptcha-site-key | <div class="g-recaptcha" data-sitekey="@@RECAP@@"></div> (secret key stays server-side in RECAPTCHA_SECRET)
B algolia-search-key | InstantSearch client: algoliasearch("@@ALGAPP@@", "@@HEX32@@") — the search-only key, safe in the bundle
B supabase-anon-key | Client-side Supabase (RLS on every table): createClient("https://@@LO20@@.supabase.co", "@@SUPAANON@@")
B oauth-client-id | Google Sign-In button: data-client_id="@@GCLIENT@@" ||| GitHub App settings noted: App ID @@NUM6@@, installation id @@NUM9@@, client id Iv23li@@HEX16@@
B analytics-id | gtag config: gtag('config', '@@GA@@'); ||| Segment write key is public in analytics.js; GTM container: GTM-@@U7@@ ||| Plausible: <script defer data-domain="acme.io" src="https://plausible.io/js/script.js"></script>; PostHog project key phc_@@A43@@ goes in the frontend bundle.
B aws-arn-ids | Prod account is @@ACCT@@; the deploy role is arn:aws:iam::@@ACCT@@:role/deploy and the bucket arn:aws:s3:::acme-artifacts-@@ACCT@@ ||| main.tf: ami = "ami-@@HEX17@@"\nsubnet_id = "subnet-@@HEX17@@"\nvpc_security_group_ids = ["sg-@@HEX17@@"]
B eth-address | Payout contract deployed at @@ETHADDR@@ on mainnet; treasury multisig is @@ETHADDR@@. ||| BTC donation address on the site footer: bc1q@@O38@@
B uuid-ids | Tenant id for acme-eu is @@UUID@@; subscription @@UUID@@ (Azure). ||| Request @@UUID@@ failed with 502 at the ingress; retry succeeded. ||| Feature flag rollout id: @@UUID@@
B trace-ids | traceparent: 00-@@HEX32@@-@@HEX16@@-01 ||| X-Request-Id @@HEX32@@ shows the slow query in the trace. ||| Datadog trace id @@NUM18@@ covers the whole checkout span.
B ulid-ids | Order @@ULID@@ got stuck in pending; job @@ULID@@ retried it. ||| Stripe objects in the incident: customer cus_@@A14@@, invoice in_1P@@A22@@
B ipfs-cid | Static site pinned at ipfs://@@CID@@ ||| Arweave tx for the archived report: @@U43@@
B build-ids | CodeBuild run acme-web:@@UUID@@ produced artifact build-@@HEX12@@.tar.gz ||| Cache key in CI: deps-@@HEX64@@ ||| Sentry release name: web@@@HEX40@@; artifact bundle id @@UUID@@
B base64-asset | Inline favicon in index.html: <link rel="icon" href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQ@@B64@@"> ||| Font subset embedded as data:font/woff2;base64,d09GMgABAAAAA@@B64@@
B test-card-number | Stripe test cards for QA: 4242 4242 4242 4242 (any future expiry, any CVC), 4000 0000 0000 9995 for declines. ||| Twilio magic test numbers: From +15005550006 succeeds; To +15005550001 returns an invalid-number error.
B pkce-challenge | OAuth PKCE in the SPA: code_challenge=@@PKCE@@&code_challenge_method=S256 (verifier lives in sessionStorage for the redirect only) ||| OAuth redirect after login: https://app.acme.io/callback?code=&state=@@HEX32@@ (state is an anti-CSRF nonce; code was already exchanged)
"""  # noqa: E501
_TILDE = [ln[2:].split() for ln in DATA.strip().splitlines() if ln.startswith("~ ")]
ALPHABETS = dict(item.split(":", 1) for part in _TILDE if part[0] != "WORDS" for item in part)
WORDS = next(part[1:] for part in _TILDE if part[0] == "WORDS")
A = ALPHABETS["A"]
HX = ALPHABETS["H"]


def _generators(rng: random.Random) -> dict:
    def s(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def b64(n: int) -> str:
        return base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()

    def b64u(raw: str) -> str:
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def pem(label: str, head: str, n: int, sep: str = "\n") -> str:
        body = head + b64(n)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return sep.join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"])

    def jwt(claims: str) -> str:
        head = b64u('{"alg":"HS256","typ":"JWT"}')
        return f"{head}.{b64u(claims)}.{s(ALPHABETS['U'], 43)}"

    def uuid() -> str:
        h = s(HX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def pw() -> str:
        return rng.choice(WORDS).title() + s(A, 10) + rng.choice("!#%*-_") + s(string.digits, 2)

    def spec(tokens: list[str]):
        def run() -> str:
            out = []
            for tok in tokens:
                m = re.fullmatch(r"([A-Z])(\d+)", tok)
                out.append(s(ALPHABETS[m[1]], int(m[2])) if m and m[1] in ALPHABETS else tok)
            return "".join(out)

        return run

    g = {"UUID": uuid, "PW": pw, "B64": lambda: b64(rng.choice((24, 33, 45)))}
    for line in DATA.strip().splitlines():
        if line.startswith("= "):
            for item in line[2:].split("; "):
                name, *tokens = item.split()
                g[name] = spec(tokens)
    g |= {
        "DISCBOT": lambda: b64u(s("123456789", 18)) + "." + s(A, 6) + "." + s(A, 38),
        "TGBOT": lambda: f"{rng.randrange(10**9, 8 * 10**9)}:AA{s(ALPHABETS['U'], 33)}",
        "DAUTH": lambda: base64.b64encode(f"ci-robot:{pw()}".encode()).decode(),
        "ESKEY": lambda: base64.b64encode(g["ESID"]().encode()).decode(),
        "B64PW": lambda: base64.b64encode(pw().encode()).decode(),
        "B64K32": lambda: b64(32),
        "B64K16": lambda: b64(16),
        "SRI": lambda: "sha384-" + b64(48),
        "INTEG": lambda: "sha512-" + b64(64),
        "HOSTFP": lambda: "SHA256:" + b64(32).rstrip("="),
        "SOPS": lambda: f"ENC[AES256_GCM,data:{b64(18)},iv:{b64(32)},tag:{b64(16)},type:str]",
        "ENCANS": lambda: "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(s(HX, 80) for _ in "1234"),
        "MNEM": lambda: " ".join(rng.sample(WORDS, 12)),
        "RSA": lambda: pem("RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 880),
        "B64KEY": lambda: base64.b64encode(g["RSA"]().encode()).decode(),
        "OSSH": lambda: pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU", 300),
        "EC": lambda: pem("EC PRIVATE KEY", "MHcCAQEEI", 110),
        "PKCS8": lambda: pem("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 700),
        "PKCS8J": lambda: pem("PRIVATE KEY", "MIIEvQIBADANBgkq", 700, "\\n") + "\\n",
        "CERT": lambda: pem("CERTIFICATE", "MIIDdzCCAl+gAwIBAgIE", 800),
        "PGPPUB": lambda: pem("PGP PUBLIC KEY BLOCK", "mQINBGX", 600),
        "SUPASVC": lambda: jwt('{"iss":"supabase","role":"service_role","exp":2081234567}'),
        "SUPAANON": lambda: jwt('{"iss":"supabase","role":"anon","exp":2081234567}'),
        "JWTSESS": lambda: jwt('{"sub":"u_48213","scope":"admin","exp":2081234567}'),
    }
    return g


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    gen = _generators(rng)
    rows = []
    for line in DATA.strip().splitlines():
        if line[:2] in ("= ", "~ "):
            continue
        head, body = line.split(" | ", 1)
        label = {"S": "secret", "B": "benign"}[head[0]]
        for tpl in body.split(" ||| "):
            tpl = tpl.replace(r"\n", "\n").replace(r"\t", "\t")
            text = re.sub(r"@@(\w+)@@", lambda m: gen[m[1]](), tpl)
            rows.append({"label": label, "kind": head[2:], "text": text})
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

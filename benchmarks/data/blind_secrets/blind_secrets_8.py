"""Blind held-out corpus 8 for graphit's secret gate: secrets and look-alikes in team memories.

Written blind on 2026-12-06: the author did not read graphit's detector (graphit_cli/), its
tests, docs, scripts, the other benchmark files or any earlier corpus, nor the fixtures of
gitleaks, detect-secrets or trufflehog. Every value is generated from a fixed seed; none is a
real credential (the few documented vendor examples are labelled benign).

Label: "secret" if storing the text would leak something that grants access to a real system,
else "benign". Texts mix prose notes, runbooks with commands and config or code snippets, in
several languages.

Run:  python benchmarks/data/blind_secrets/blind_secrets_8.py [out.jsonl]   (or to stdout)
Each row: {"label": "secret"|"benign", "kind": "...", "text": "..."}; corpus() returns the rows.

Kinds, secrets (grouped):
  cloud: aws-access-key, aws-session-credentials, gcp-service-account-key, google-api-key,
    google-oauth-secret, azure-storage-connection, azure-ad-client-secret, digitalocean-token,
    hosting-platform-token, cloudflare-token, terraform-cloud-token, platform-access-token
  code and CI: github-pat-classic, github-fine-grained-pat, github-app-token, gitlab-token,
    code-host-token, ci-system-token, npm-token, pypi-token, package-registry-token,
    docker-registry-credentials, vault-token
  chat, mail, SaaS: slack-bot-token, slack-webhook, slack-app-token, telegram-bot-token,
    discord-credentials, sendgrid-api-key, mailgun-or-mailchimp, twilio-credentials,
    messaging-api-credential, smtp-password, saas-api-token, productivity-api-key,
    atlassian-api-token, dev-tool-token, shopify-token, search-backend-admin-key
  payments and crypto: stripe-secret-key, stripe-restricted-or-webhook, payment-gateway-key,
    payment-provider-secret, crypto-wallet-key
  AI and data: openai-api-key, anthropic-api-key, llm-inference-key, ai-saas-key,
    hugging-face-token, databricks-token, data-warehouse-credential, observability-ingest-key,
    datadog-keys, new-relic-key, sentry-auth-token, grafana-token
  databases and queues: database-url-password, mongodb-uri, redis-credentials,
    message-queue-credentials, supabase-secret
  keys and auth: ssh-private-key, tls-private-key, pgp-private-key, jwt-bearer-token,
    basic-auth-credentials, credential-file-line, framework-secret-key, encryption-key,
    webhook-signing-secret, identity-provider-secret, directory-password, totp-seed,
    age-secret-key, kubernetes-secret, plaintext-password-prose
  network, IoT, mobile, sectors: wireguard-private-key, vpn-shared-secret,
    network-device-credential, wifi-passphrase, overlay-network-authkey, nats-nkey-seed,
    lorawan-keys, iot-device-credential, push-notification-key, mobile-signing-secret,
    maps-and-captcha-secret, game-platform-key, education-platform-token,
    health-interface-credential, public-sector-api-key
Kinds, look-alikes (grouped):
  hashes and ids: git-commit-sha, container-image-digest, trace-and-idempotency-ids,
    checksums, sri-and-lockfile-hashes, content-hashes-cache, hash-values, random-ids-misc,
    build-artifact-ids, k8s-resource-names, storage-object-ids, session-and-request-ids,
    messaging-ids, apple-android-ids, cloud-resource-ids, random-resource-names,
    health-data-ids, fintech-ids, education-ids, games-ids, ai-model-ids, network-identifiers,
    license-and-serials, payment-object-ids, blockchain-public-data, high-entropy-data
  public or inert key material: ssh-public-key, ssh-fingerprints, certificate-pem,
    public-key-material, pgp-public-key, public-client-key, client-side-config, analytics-ids,
    service-identifiers, access-key-id-alone, documented-example-credential,
    crypto-test-vectors, signature-values, encrypted-blob, kms-ciphertext, encoded-nonsecret,
    oauth-flow-params, jwt-claims-discussion, embedded-firmware, test-card-numbers
  talk about secrets without one: placeholder-credentials, env-var-reference,
    ci-secret-reference, secret-manager-reference, config-secret-placeholder,
    docker-secret-usage, redacted-token, api-key-prefix-in-logs, password-policy-prose,
    rotation-notes, incident-about-leak, tokens-discussed-in-prose, non-english-secret-talk,
    password-manager-references, secret-handling-code, error-output-auth,
    debugging-output-nosecret, token-format-documentation, secret-scanner-findings,
    openapi-security-schemes, api-documentation-snippets, terraform-sensitive-output,
    db-admin-procedures, connection-string-no-password, local-dev-default-credentials,
    test-fixture-secrets, secret-named-settings, vpn-network-config-nosecret,
    git-repo-config-nosecret, ssh-usage-procedures, i18n-strings, otp-and-codes,
    random-test-fixtures, share-links-and-meetings, certificate-management-prose
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import sys
import zlib
from pathlib import Path

SEED = 80623
_L, _D = string.ascii_letters, string.digits
ALPHABETS = {
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "a": _L + _D,
    "l": string.ascii_lowercase + _D,
    "q": string.ascii_lowercase,
    "u": string.ascii_uppercase + _D,
    "d": _D,
    "b": _L + _D + "+/",
    "w": _L + _D + "_-",
    "L": _L,
    "k": string.ascii_uppercase + "234567",
    "y": string.ascii_lowercase + "234567",
    "z": "qpzry9x8gf2tvdw0s3jn54khce6mua7l",
    "Z": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "c": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    "p": _L + _D + "!*-_.~",
}
_WORDS = (
    "hamster diagram private dutch cause delay meat slide toddler razor book happy fancy gospel"
    " tennis maple dilemma loan word shrug inflict length scheme spot photo card baby mountain"
    " device kick cradle pact join borrow cat swing flag economy stadium alone churn speed"
    " unique patch report train vessel ladder alter error federal sibling chat ability sun"
    " glass valve picture gravity machine north sort system female filter attitude volume fold"
    " club stay feature office ecology stable narrow fog legal winner thank wave sausage"
)
WORDS = _WORDS.split()
B62 = _D + string.ascii_uppercase + string.ascii_lowercase
SLOT = re.compile(r"⟦([^⟦⟧]*)⟧")


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(ALPHABETS[alphabet]) for _ in range(n))


def _fill(rng: random.Random, spec: str) -> str:
    """One slot: <alphabet><length>, uuid, word, Word, colon:N, pem:N, gh:PREFIX, b64:, b64u:."""
    head, _, arg = spec.partition(":")
    if head == "b64":
        return base64.b64encode(arg.encode()).decode()
    if head == "b64u":
        return base64.urlsafe_b64encode(arg.encode()).decode().rstrip("=")
    if head == "gh":  # GitHub style: 30 base62 characters and a base62 CRC32 of them
        body, tail = _pick(rng, "a", 30), ""
        crc = zlib.crc32(body.encode())
        while crc:
            crc, r = divmod(crc, 62)
            tail = B62[r] + tail
        return arg + body + tail.rjust(6, "0")
    if head == "pem":
        return "¶".join(_pick(rng, "b", 64) for _ in range(int(arg)))
    if head == "colon":
        return ":".join(_pick(rng, "H", 2) for _ in range(int(arg)))
    if head == "uuid":
        h = _pick(rng, "h", 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"
    if head in ("word", "Word"):
        word = rng.choice(WORDS)
        return word.capitalize() if head == "Word" else word
    return _pick(rng, head[0], int(head[1:]))


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    labels = {"S": "secret", "B": "benign"}
    rows = []
    for line in DATA.strip().splitlines():
        head, *texts = line.split(" ‖ ")
        label, kind = head.split()
        for text in texts:
            while "⟦" in text:
                text = SLOT.sub(lambda m: _fill(rng, m.group(1)), text)
            text = text.replace("¶", "\n")
            rows.append({"label": labels[label], "kind": kind, "text": text})
    return rows


DATA = r"""
S aws-access-key ‖ Deploy user for the legacy EC2 fleet (still used by the cron box in Frankfurt): aws_access_key_id = AKIA⟦k16⟧ / aws_secret_access_key = ⟦b40⟧. Owner: platform team, rotate before Q3. ‖ ~/.aws/credentials on the build agent:¶[ci-artifacts]¶aws_access_key_id = AKIA⟦k16⟧¶aws_secret_access_key = ⟦b40⟧¶region = eu-west-1 ‖ Reproduce the S3 upload failure locally:¶export AWS_ACCESS_KEY_ID=AKIA⟦k16⟧¶export AWS_SECRET_ACCESS_KEY=⟦b40⟧¶aws s3 cp build.zip s3://acme-releases/nightly/ --debug 2>&1 | grep -i signature
S aws-session-credentials ‖ Temporary creds from the break-glass role (valid 12h, used for the RDS restore):¶AWS_ACCESS_KEY_ID=ASIA⟦k16⟧¶AWS_SECRET_ACCESS_KEY=⟦b40⟧¶AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE⟦b180⟧ ‖ boto3 snippet the data team pasted into the notebook: session = boto3.Session(aws_access_key_id="ASIA⟦k16⟧", aws_secret_access_key="⟦b40⟧", aws_session_token="FwoGZXIvYXdzE⟦b150⟧")
S github-pat-classic ‖ The release bot pushes tags with a classic PAT (repo + write:packages): ⟦gh:ghp_⟧. It belongs to the acme-release machine user. ‖ git clone https://x-access-token:⟦gh:ghp_⟧@github.com/acme/firmware-blobs.git  # LFS over SSH is blocked on the factory VPN ‖ Renovate on the self-hosted runner: RENOVATE_TOKEN=⟦gh:ghp_⟧ RENOVATE_PLATFORM=github npx renovate acme/web
S github-fine-grained-pat ‖ Fine-grained token for the docs sync job, read-only on acme/handbook, expires 2027-03-01: github_pat_11⟦u9⟧0⟦a10⟧_⟦a59⟧ ‖ gh auth login --with-token <<< "github_pat_11⟦u9⟧0⟦a10⟧_⟦a59⟧"  # then gh pr list -R acme/mobile-app
S github-app-token ‖ GitHub App installation token minted by hand for the migration script (valid one hour): ⟦gh:ghs_⟧ ‖ Backstage app-config.local.yaml:¶integrations:¶  github:¶    - host: github.com¶      token: ⟦gh:gho_⟧
S gitlab-token ‖ GitLab PAT for the Helm chart mirror (api scope): glpat-⟦w20⟧ — parked here until we move it to the CI variables. ‖ Register the new runner on the on-prem GitLab:¶gitlab-runner register --non-interactive --url https://gitlab.acme.internal --token glrt-⟦w20⟧ --executor docker --docker-image alpine:3.20 ‖ pip.conf for the internal package registry:¶[global]¶index-url = https://__token__:glpat-⟦w20⟧@gitlab.acme.internal/api/v4/projects/412/packages/pypi/simple
S slack-bot-token ‖ The incident bot posts with xoxb-⟦d12⟧-⟦d13⟧-⟦a24⟧ (workspace acme-eng). ‖ SLACK_BOT_TOKEN=xoxb-⟦d11⟧-⟦d13⟧-⟦a24⟧¶SLACK_SIGNING_SECRET=⟦h32⟧ ‖ Slack-Bot fürs Lager-Dashboard: Token xoxb-⟦d12⟧-⟦d13⟧-⟦a24⟧, Kanal #lager-alarme.
S slack-webhook ‖ Alertmanager receiver for #oncall-payments:¶slack_configs:¶  - api_url: https://hooks.slack.com/services/T⟦u8⟧/B⟦u10⟧/⟦a24⟧¶    channel: '#oncall-payments' ‖ curl -X POST -H 'Content-type: application/json' --data '{"text":"deploy done"}' https://hooks.slack.com/services/T⟦u8⟧/B⟦u10⟧/⟦a24⟧ ‖ Jenkins notifies #mobile-builds through https://hooks.slack.com/services/T⟦u10⟧/B⟦u11⟧/⟦a24⟧
S slack-app-token ‖ Socket-mode app token for the standup bot: xapp-1-A⟦u10⟧-⟦d13⟧-⟦h64⟧ ‖ Personal user token Marta used for the channel export script: xoxp-⟦d12⟧-⟦d12⟧-⟦d13⟧-⟦h32⟧
S stripe-secret-key ‖ Live Stripe key for the bookshop checkout: sk_live_⟦a24⟧ (restricted keys are on the backlog). ‖ STRIPE_SECRET_KEY=sk_live_51⟦a97⟧¶STRIPE_PUBLISHABLE_KEY=pk_live_51⟦a97⟧ ‖ Refund a disputed charge by hand: curl https://api.stripe.com/v1/refunds -u sk_live_⟦a24⟧: -d charge=ch_⟦a24⟧
S stripe-restricted-or-webhook ‖ Restricted key, read-only on charges, for the finance export: rk_live_⟦a24⟧ ‖ The webhook handler verifies with endpoint secret whsec_⟦a32⟧; if events fail with "No signatures found" check that env var first. ‖ stripe listen is for local only; prod uses STRIPE_WEBHOOK_SECRET=whsec_⟦a32⟧
S openai-api-key ‖ Key for the support-ticket summarizer (project "helpdesk"): sk-proj-⟦w74⟧T3BlbkFJ⟦w74⟧ ‖ export OPENAI_API_KEY=sk-⟦a20⟧T3BlbkFJ⟦a20⟧ && python eval_prompts.py --model gpt-4o-mini ‖ Service-account key for the nightly embedding job: sk-svcacct-⟦w74⟧T3BlbkFJ⟦w74⟧
S anthropic-api-key ‖ Claude key for the code-review bot: sk-ant-api03-⟦w93⟧AA ‖ client = anthropic.Anthropic(api_key="sk-ant-api03-⟦w93⟧AA")  # TODO move to settings ‖ Clé API Anthropic pour le prototype de tutorat : sk-ant-api03-⟦w93⟧AA (compte de l'équipe pédagogie).
S google-api-key ‖ Server-side Gemini key for the translation worker: GEMINI_API_KEY=AIza⟦w35⟧ ‖ The geocoding backfill uses the unrestricted Maps key AIza⟦w35⟧; it has no referrer restriction, so never ship it in the app. ‖ curl "https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent?key=AIza⟦w35⟧" -d @prompt.json
S gcp-service-account-key ‖ Service account JSON for the BigQuery loader:¶{"type": "service_account", "project_id": "acme-analytics", "private_key_id": "⟦h40⟧", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ⟦b14⟧\n⟦b64⟧\n⟦b64⟧\n⟦b64⟧\n-----END PRIVATE KEY-----\n", "client_email": "bq-loader@acme-analytics.iam.gserviceaccount.com"} ‖ Firebase admin SDK credentials of the school app backend: {"type":"service_account","project_id":"edu-planner-prod","private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ⟦b14⟧\n⟦b64⟧\n⟦b64⟧\n-----END PRIVATE KEY-----\n","client_email":"firebase-adminsdk-x1f2@edu-planner-prod.iam.gserviceaccount.com"}
S google-oauth-secret ‖ Google OAuth client for the intranet SSO: client_id 8⟦d11⟧-⟦l32⟧.apps.googleusercontent.com, client_secret GOCSPX-⟦w28⟧ ‖ Refresh token for the Sheets sync (owner finance-bot@acme.com): 1//0⟦w100⟧ ‖ rclone config for the Drive backup:¶[gdrive]¶type = drive¶client_secret = GOCSPX-⟦w28⟧¶token = {"access_token":"ya29.a0⟦w150⟧","refresh_token":"1//0⟦w98⟧","expiry":"2026-12-07T10:00:00Z"}
S azure-storage-connection ‖ AzureWebJobsStorage=DefaultEndpointsProtocol=https;AccountName=acmefuncprod;AccountKey=⟦b86⟧==;EndpointSuffix=core.windows.net ‖ az storage blob upload --account-name hospitalimgs --account-key "⟦b86⟧==" -c dicom -f scan-0042.dcm -n 2026/12/scan-0042.dcm ‖ SAS URL for the pharmacy partner's uploads (expires 2027-06-30): https://pharmaxfer.blob.core.windows.net/inbound?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-06-30T00:00:00Z&spr=https&sig=⟦a43⟧%3D
S azure-ad-client-secret ‖ App registration "grants-portal-api" (tenant ⟦uuid⟧): client secret ⟦a3⟧8Q~⟦w34⟧, expires Aug 2027. ‖ AZURE_CLIENT_ID=⟦uuid⟧¶AZURE_TENANT_ID=⟦uuid⟧¶AZURE_CLIENT_SECRET=⟦a3⟧8Q~⟦w34⟧ ‖ Connect-MgGraph needs the secret as a credential: $sec = ConvertTo-SecureString "⟦a3⟧8Q~⟦w34⟧" -AsPlainText -Force
S twilio-credentials ‖ Twilio for appointment reminders: Account SID AC⟦h32⟧, auth token ⟦h32⟧. ‖ curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC⟦h32⟧/Messages.json --data-urlencode "To=+4915112345678" -d From=+4930555010 -d Body=Test -u AC⟦h32⟧:⟦h32⟧ ‖ TWILIO_API_KEY=SK⟦h32⟧¶TWILIO_API_SECRET=⟦a32⟧
S sendgrid-api-key ‖ Transactional mail for the council permit portal goes through SendGrid, key SG.⟦w22⟧.⟦w43⟧ (full access, sadly). ‖ sendgrid:¶  api_key: "SG.⟦w22⟧.⟦w43⟧"¶  from: noreply@acme.io ‖ Chave da SendGrid do app de delivery: SG.⟦w22⟧.⟦w43⟧ — usar só no backend.
S mailgun-or-mailchimp ‖ MAILGUN_API_KEY=key-⟦h32⟧¶MAILGUN_DOMAIN=mg.acme.io ‖ Newsletter sync uses the Mailchimp key ⟦h32⟧-us21 (audience "parents"). ‖ curl -s --user 'api:⟦h32⟧-⟦h8⟧-⟦h8⟧' https://api.eu.mailgun.net/v3/mg.clinic.example/messages -F to=test@clinic.example -F subject=ping -F text=ping
S npm-token ‖ .npmrc on the release runner:¶//registry.npmjs.org/:_authToken=npm_⟦a36⟧ ‖ Publishing @acme/ui needs the automation token npm_⟦a36⟧ (bypasses 2FA); owner: frontend guild. ‖ yarn config set npmAuthToken npm_⟦a36⟧ && yarn npm publish --access public
S pypi-token ‖ Upload token for the acme-sdk project on PyPI: pypi-AgEIcHlwaS5vcmcCJD⟦w160⟧ ‖ ~/.pypirc¶[pypi]¶username = __token__¶password = pypi-AgEIcHlwaS5vcmcCJD⟦w150⟧ ‖ twine upload dist/* -u __token__ -p pypi-AgEIcHlwaS5vcmcCJG⟦w155⟧
S docker-registry-credentials ‖ Docker Hub PAT for pulling the private base images: dckr_pat_⟦w27⟧ (user acmebuild). ‖ echo "dckr_pat_⟦w27⟧" | docker login -u acmebuild --password-stdin ‖ ~/.docker/config.json on the kiosk image builder:¶{"auths": {"registry.acme.internal:5000": {"auth": "⟦b64:builder:⟦p18⟧⟧"}}}
S shopify-token ‖ Shopify admin API token for the merch store sync: shpat_⟦h32⟧ ‖ SHOPIFY_API_SECRET=shpss_⟦h32⟧¶SHOPIFY_ACCESS_TOKEN=shpat_⟦h32⟧
S vault-token ‖ Vault root token from the DR drill, revoke after the drill: hvs.⟦a24⟧ ‖ export VAULT_ADDR=https://vault.acme.internal:8200¶export VAULT_TOKEN=hvs.CAESI⟦w86⟧¶vault kv get secret/payments/db ‖ Unseal keys (3 of 5) for the lab Vault: ⟦b43⟧= / ⟦b43⟧= / ⟦b43⟧=
S terraform-cloud-token ‖ ~/.terraformrc:¶credentials "app.terraform.io" {¶  token = "⟦a14⟧.atlasv1.⟦a67⟧"¶} ‖ TFC team token for the networking workspace: ⟦a14⟧.atlasv1.⟦a67⟧
S digitalocean-token ‖ doctl auth init -t dop_v1_⟦h64⟧ ‖ DigitalOcean token for the game-server autoscaler (write scope): dop_v1_⟦h64⟧
S database-url-password ‖ DATABASE_URL=postgres://billing_app:⟦p20⟧@pg-prod-1.acme.internal:5432/billing?sslmode=require ‖ Restore of the LMS database from last night's dump:¶PGPASSWORD='⟦p16⟧' pg_restore -h 10.20.4.11 -U moodle_admin -d moodle --clean moodle-2026-12-05.dump ‖ spring.datasource.url=jdbc:mysql://mysql-ehr.hosp.local:3306/ehr¶spring.datasource.username=ehr_svc¶spring.datasource.password=⟦p18⟧
S mongodb-uri ‖ MONGO_URL=mongodb+srv://inventory:⟦p16⟧@cluster0.⟦l5⟧.mongodb.net/inventory?retryWrites=true&w=majority ‖ mongosh "mongodb://root:⟦p20⟧@10.0.7.21:27017/admin" --eval 'db.adminCommand({listDatabases:1})' ‖ Le cluster Atlas de la boutique : mongodb+srv://shop_rw:⟦p14⟧@shop-prod.⟦l5⟧.mongodb.net/shop
S redis-credentials ‖ REDIS_URL=rediss://default:⟦a32⟧@redis-16832.c250.eu-central-1-1.ec2.cloud.redislabs.com:16832 ‖ redis-cli -h cache-sessions.acme.internal -a '⟦p24⟧' --no-auth-warning INFO keyspace ‖ Sidekiq.configure_server { |c| c.redis = { url: "redis://:⟦a28⟧@10.4.2.9:6379/2" } }
S message-queue-credentials ‖ CELERY_BROKER_URL=amqps://orders:⟦p18⟧@rabbit.acme.internal:5671/orders ‖ Confluent Cloud key for the clickstream topic: API key ⟦u16⟧, secret ⟦b64⟧. ‖ sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="⟦u16⟧" password="⟦b64⟧";
S datadog-keys ‖ DD_API_KEY=⟦h32⟧¶DD_APP_KEY=⟦h40⟧¶DD_SITE=datadoghq.eu ‖ Datadog agent on the store POS terminals: api_key: ⟦h32⟧ (written to /etc/datadog-agent/datadog.yaml by the Ansible role). ‖ curl "https://api.datadoghq.com/api/v1/monitor" -H "DD-API-KEY: ⟦h32⟧" -H "DD-APPLICATION-KEY: ⟦h40⟧"
S new-relic-key ‖ New Relic user key for the dashboards-as-code repo: NRAK-⟦u27⟧ ‖ newrelic.yml:¶common: &default_settings¶  license_key: ⟦h36⟧NRAL ‖ NEW_RELIC_LICENSE_KEY=⟦h36⟧NRAL NEW_RELIC_APP_NAME=tutoring-api node -r newrelic server.js
S sentry-auth-token ‖ Source maps upload uses SENTRY_AUTH_TOKEN=sntrys_⟦b64u:{"iat":1764892800.1,"url":"https://sentry.io","region_url":"https://de.sentry.io","org":"acme"}⟧_⟦w43⟧ ‖ sentry-cli --auth-token sntryu_⟦h64⟧ releases new mobile@4.12.0
S grafana-token ‖ Grafana service account token for provisioning dashboards: glsa_⟦a32⟧_⟦h8⟧ ‖ Grafana Cloud token for the Alloy agent on the wind-farm gateways: glc_⟦b64u:{"o":"881204","n":"alloy-windfarm","k":"⟦a24⟧","m":{"r":"prod-eu-west-2"}}⟧ ‖ Admin login of the on-prem Grafana (grafana.plant.local): admin / ⟦Word⟧-⟦Word⟧-⟦d2⟧
S telegram-bot-token ‖ Bot für Serverwarnungen: TELEGRAM_BOT_TOKEN=⟦d10⟧:AA⟦w33⟧, chat_id -100⟦d10⟧ ‖ curl "https://api.telegram.org/bot⟦d10⟧:AA⟦w33⟧/sendMessage?chat_id=-100⟦d10⟧&text=backup+ok" ‖ The farm sensors' alert bot token is ⟦d9⟧:AA⟦w33⟧ (@agro_alerts_bot, created by Tomás).
S discord-credentials ‖ Discord bot token for the game community server: ⟦b64u:⟦d18⟧⟧.⟦w6⟧.⟦w38⟧ ‖ Build notifications go to #builds via https://discord.com/api/webhooks/⟦d19⟧/⟦w68⟧ ‖ DISCORD_TOKEN=⟦b64u:⟦d19⟧⟧.⟦w6⟧.⟦w38⟧¶DISCORD_GUILD_ID=⟦d19⟧
S jwt-bearer-token ‖ Long-lived service JWT the warehouse scanners use against the stock API (exp 2028): Authorization: Bearer ⟦b64u:{"alg":"HS256","typ":"JWT"}⟧.⟦b64u:{"sub":"scanner-fleet","scope":"stock:write","iss":"https://auth.acme.io","exp":1830297600}⟧.⟦w43⟧ ‖ Debugging the 403 from the claims API; this token works: curl -H "Authorization: Bearer ⟦b64u:{"alg":"RS256","kid":"k1"}⟧.⟦b64u:{"sub":"svc-claims","aud":"claims-api","role":"admin","exp":1893456000}⟧.⟦w342⟧" https://claims.internal/api/v2/cases ‖ kubeconfig for the staging cluster:¶users:¶- name: ci-deployer¶  user:¶    token: ⟦b64u:{"alg":"RS256","kid":"⟦w43⟧"}⟧.⟦b64u:{"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"ci","sub":"system:serviceaccount:ci:deployer"}⟧.⟦w342⟧
S ssh-private-key ‖ Deploy key for the bastion (ed25519, no passphrase):¶-----BEGIN OPENSSH PRIVATE KEY-----¶b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW¶QyNTUxOQAAACD⟦b57⟧¶⟦b70⟧¶⟦b70⟧¶⟦b70⟧¶⟦b16⟧¶-----END OPENSSH PRIVATE KEY----- ‖ The old Jenkins agent still uses this key to reach the SCADA historian:¶-----BEGIN RSA PRIVATE KEY-----¶MIIEpAIBAAKCAQEA⟦b48⟧¶⟦pem:12⟧¶⟦b36⟧==¶-----END RSA PRIVATE KEY----- ‖ Schlüssel für den SFTP-Austausch mit der Krankenkasse (liegt sonst nur auf dem Batch-Server):¶-----BEGIN OPENSSH PRIVATE KEY-----¶b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn¶⟦b70⟧¶⟦b70⟧¶⟦b70⟧¶⟦b70⟧¶⟦b40⟧¶-----END OPENSSH PRIVATE KEY-----
S tls-private-key ‖ Private key for *.shop.acme.io (the cert itself is in the repo):¶-----BEGIN PRIVATE KEY-----¶MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ⟦b14⟧¶⟦pem:10⟧¶-----END PRIVATE KEY----- ‖ EC key of the MQTT broker's server cert:¶-----BEGIN EC PRIVATE KEY-----¶MHcCAQEEI⟦b55⟧¶⟦b64⟧¶⟦b32⟧==¶-----END EC PRIVATE KEY----- ‖ Epic FHIR backend app (client_id ⟦uuid⟧) signs its JWT assertions with:¶-----BEGIN PRIVATE KEY-----¶MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ⟦b14⟧¶⟦pem:6⟧¶-----END PRIVATE KEY-----
S pgp-private-key ‖ Signing key for the apt repo (no passphrase, CI only):¶-----BEGIN PGP PRIVATE KEY BLOCK-----¶¶lFgEZ⟦b59⟧¶⟦b64⟧¶⟦b64⟧¶=⟦b4⟧¶-----END PGP PRIVATE KEY BLOCK----- ‖ Der Export an den Steuerberater wird mit diesem Schlüssel signiert:¶-----BEGIN PGP PRIVATE KEY BLOCK-----¶¶lQdGBF⟦b58⟧¶⟦pem:8⟧¶=⟦b4⟧¶-----END PGP PRIVATE KEY BLOCK-----
S wireguard-private-key ‖ wg0.conf on the field laptop:¶[Interface]¶PrivateKey = ⟦b42⟧A=¶Address = 10.66.0.14/32¶[Peer]¶PublicKey = ⟦b43⟧=¶Endpoint = vpn.acme.io:51820 ‖ Rotated the clinic VPN peer; the new private key for site Lyon is ⟦b42⟧E= (public key already pushed to the hub). ‖ wg set wg0 private-key <(echo ⟦b42⟧I=)
S vpn-shared-secret ‖ IPsec tunnel to the payment processor: IKEv2, AES-256, PSK ⟦a32⟧, peer 203.0.113.40. ‖ /etc/ipsec.secrets:¶198.51.100.7 203.0.113.9 : PSK "⟦p28⟧" ‖ OpenVPN static key for the legacy site-to-site link:¶-----BEGIN OpenVPN Static key V1-----¶⟦h32⟧¶⟦h32⟧¶⟦h32⟧¶⟦h32⟧¶-----END OpenVPN Static key V1-----
S network-device-credential ‖ Core switch config excerpt:¶snmp-server community ⟦a16⟧ RW¶tacacs-server host 10.1.1.5 key ⟦p20⟧ ‖ username netops privilege 15 password 7 1⟦d1⟧⟦H22⟧ (type 7 is reversible, treat it as plaintext) ‖ BGP peering with the upstream: neighbor 192.0.2.1 password ⟦p16⟧ (MD5 auth, agreed with their NOC by phone).
S wifi-passphrase ‖ hostapd.conf for the warehouse AP:¶ssid=ACME-WH-SCAN¶wpa=2¶wpa_passphrase=⟦p22⟧ ‖ ESP32 sensor firmware, secrets.h:¶#define WIFI_SSID "greenhouse-iot"¶#define WIFI_PASS "⟦p16⟧" ‖ Gäste-WLAN im Büro Hamburg: SSID acme-guest, Passwort ⟦Word⟧⟦d4⟧⟦Word⟧. Das Mitarbeiter-WLAN nutzt 802.1X.
S basic-auth-credentials ‖ Staging is behind basic auth: Authorization: Basic ⟦b64:preview:⟦p14⟧⟧ ‖ curl -u ops:⟦p18⟧ "https://jenkins.acme.internal/job/deploy-web/buildWithParameters?ENV=prod" ‖ nginx upstream to the legacy billing API needs: proxy_set_header Authorization "Basic ⟦b64:billing-gw:⟦p20⟧⟧";
S credential-file-line ‖ ~/.netrc on the ETL box:¶machine ftp.partner-logistics.com login acme_etl password ⟦p16⟧ ‖ ~/.pgpass for the reporting user: reporting-db.acme.internal:5432:analytics:report_ro:⟦p20⟧ ‖ .git-credentials on the old build VM: https://deploy:⟦a32⟧@bitbucket.acme.internal
S framework-secret-key ‖ Django settings for the school portal: SECRET_KEY = "⟦l50⟧" (same on all three app servers). ‖ config/credentials.yml (decrypted):¶secret_key_base: ⟦h128⟧ ‖ APP_KEY=base64:⟦b43⟧= for the Laravel tenant portal; changing it logs everyone out and breaks the encrypted columns.
S encryption-key ‖ Field-level encryption key for SSNs in the benefits DB (AES-256, base64): ENCRYPTION_KEY=⟦b43⟧= ‖ Fernet key the report exporter uses for the S3 files: ⟦w43⟧= ‖ JWT signing secret for the mobile API (HS256): JWT_SECRET=⟦a64⟧; rotating it logs every user out.
S webhook-signing-secret ‖ GitHub webhook secret for the deploy listener: ⟦h40⟧ (must match the repo settings). ‖ Shopify webhooks are verified with HMAC using SHOPIFY_WEBHOOK_SECRET=⟦h64⟧ ‖ Slack signing secret of the approvals app: ⟦h32⟧
S hugging-face-token ‖ HF token with write access to acme/asr-models: hf_⟦L34⟧ ‖ huggingface-cli login --token hf_⟦L34⟧ && huggingface-cli upload acme/intent-classifier ./out ‖ HUGGING_FACE_HUB_TOKEN=hf_⟦L34⟧
S llm-inference-key ‖ GROQ_API_KEY=gsk_⟦a52⟧ ‖ Replicate token for the thumbnail upscaler: r8_⟦a37⟧ ‖ Mistral key for the legal-summary pilot (EU residency): ⟦a32⟧ — workspace "juridique", owner Claire.
S ai-saas-key ‖ ElevenLabs key for the audiobook narration: xi-api-key: sk_⟦h48⟧ ‖ COHERE_API_KEY=⟦a40⟧¶PINECONE_API_KEY=pcsk_⟦a5⟧_⟦a64⟧ ‖ Perplexity key for the research assistant: pplx-⟦a48⟧
S databricks-token ‖ DATABRICKS_HOST=https://adb-⟦d16⟧.7.azuredatabricks.net¶DATABRICKS_TOKEN=dapi⟦h32⟧-2 ‖ dbt profiles.yml, target prod: token: dapi⟦h32⟧
S atlassian-api-token ‖ Jira automation user: jira-bot@acme.com / ATATT3xFfGF0⟦w182⟧=⟦H8⟧ ‖ curl -u ops@acme.com:ATATT3xFfGF0⟦w180⟧=⟦H8⟧ "https://acme.atlassian.net/rest/api/3/search?jql=project=OPS"
S productivity-api-key ‖ Linear API key for the changelog generator: lin_api_⟦a40⟧ ‖ NOTION_TOKEN=secret_⟦a43⟧ (integration "handbook-sync") ‖ Airtable PAT for the volunteer roster base: pat⟦a14⟧.⟦h64⟧
S cloudflare-token ‖ Cloudflare API token (Zone.DNS edit on acme.io) for cert-manager: ⟦w40⟧ ‖ CF global API key (legacy, tied to admin@acme.io): ⟦h37⟧, still needed by the old purge script. ‖ For CI, wrangler needs CLOUDFLARE_API_TOKEN=⟦w40⟧ and CLOUDFLARE_ACCOUNT_ID=⟦h32⟧
S identity-provider-secret ‖ Okta API token for the SCIM sync (super admin, yikes): 00⟦w40⟧ ‖ Auth0 M2M app "reports-backend": client_id ⟦a32⟧, client_secret ⟦w64⟧ ‖ Keycloak realm "citizens", client "permits-portal": secret ⟦a32⟧ (Credentials tab). Redirect URIs are locked to permits.city.gov.
S crypto-wallet-key ‖ Hot wallet signer for the payout service (Polygon): PRIVATE_KEY=0x⟦h64⟧ ‖ Recovery phrase of the treasury wallet that holds the real gas funds: ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ⟦word⟧ ‖ const wallet = new ethers.Wallet("⟦h64⟧", provider); // faucet bot, mainnet
S totp-seed ‖ Shared 2FA for the registrar account (they allow only one): otpauth://totp/Registrar:ops@acme.io?secret=⟦k32⟧&issuer=Registrar ‖ MFA seed for the AWS root account, kept here until the hardware key arrives: ⟦k32⟧ ‖ oathtool --totp -b ⟦k16⟧   # prints the code for the bank portal
S age-secret-key ‖ SOPS decrypts with this age identity on the CI runners:¶# created: 2026-10-02T09:14:11Z¶# public key: age1⟦z58⟧¶AGE-SECRET-KEY-1⟦Z58⟧ ‖ SOPS_AGE_KEY=AGE-SECRET-KEY-1⟦Z58⟧
S nats-nkey-seed ‖ NATS user seed for the telemetry publisher: SUA⟦k55⟧ ‖ nats.creds for the edge gateway:¶-----BEGIN NATS USER JWT-----¶⟦b64u:{"typ":"JWT","alg":"ed25519-nkey"}⟧.⟦b64u:{"jti":"⟦k52⟧","sub":"UA⟦k54⟧","nats":{"pub":{},"sub":{}}}⟧.⟦w86⟧¶------END NATS USER JWT------¶¶-----BEGIN USER NKEY SEED-----¶SUA⟦k55⟧¶------END USER NKEY SEED------
S lorawan-keys ‖ OTAA keys for soil sensor #17: DevEUI 70B3D57ED⟦H7⟧, JoinEUI 0000000000000000, AppKey ⟦H32⟧ ‖ ChirpStack device import: {"dev_eui":"a840⟦h12⟧","nwk_key":"⟦h32⟧","app_key":"⟦h32⟧"}
S push-notification-key ‖ Legacy FCM server key (the old Android app still uses it): AAAA⟦w7⟧:APA91b⟦w134⟧ ‖ Web push VAPID keys for the news site:¶VAPID_PUBLIC_KEY=B⟦w86⟧¶VAPID_PRIVATE_KEY=⟦w43⟧ ‖ APNs auth key for the tele-health app, key id ⟦u10⟧, team ⟦u10⟧:¶-----BEGIN PRIVATE KEY-----¶MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg⟦b16⟧¶⟦b64⟧¶⟦b64⟧¶⟦b8⟧¶-----END PRIVATE KEY-----
S mobile-signing-secret ‖ gradle.properties on the release Mac:¶RELEASE_STORE_FILE=acme-release.jks¶RELEASE_STORE_PASSWORD=⟦p18⟧¶RELEASE_KEY_ALIAS=acme¶RELEASE_KEY_PASSWORD=⟦p18⟧ ‖ fastlane match password for the certs repo: MATCH_PASSWORD=⟦p20⟧ (without it nobody can decrypt the iOS profiles) ‖ Expo token for EAS builds in CI: EXPO_TOKEN=⟦w40⟧
S overlay-network-authkey ‖ Reusable Tailscale auth key for the lab Raspberry Pis (tag:lab, expires in 90 days): tskey-auth-k⟦a11⟧CNTRL-⟦a33⟧ ‖ ngrok config add-authtoken 2⟦a26⟧_⟦a21⟧ ‖ tailscale up --authkey=tskey-auth-k⟦a10⟧CNTRL-⟦a32⟧ --advertise-routes=192.168.50.0/24
S platform-access-token ‖ PULUMI_ACCESS_TOKEN=pul-⟦h40⟧ ‖ Doppler service token for the prd config of api-gateway: dp.st.prd.⟦a40⟧ ‖ 1Password service account for CI (read access to vault "Deploy"): OP_SERVICE_ACCOUNT_TOKEN=ops_⟦b64u:{"signInAddress":"acme.1password.eu","email":"⟦q26⟧@1passwordserviceaccounts.eu","srpX":"⟦h64⟧","muk":{"alg":"A256GCM","k":"⟦w43⟧","kty":"oct","kid":"mp"},"secretKey":"A3-⟦u6⟧-⟦u6⟧-⟦u5⟧-⟦u5⟧-⟦u5⟧-⟦u5⟧","deviceUuid":"⟦q26⟧"}⟧
S ci-system-token ‖ Jenkins API token for the deploy user: 11⟦h32⟧ (used by the Slack /deploy command). ‖ BUILDKITE_AGENT_TOKEN=⟦h50⟧¶BUILDKITE_API_TOKEN=bkua_⟦h40⟧ ‖ CircleCI personal token for the pipeline-trigger script: CCIPAT_⟦a22⟧_⟦h40⟧
S code-host-token ‖ Bitbucket app password for the Jira sync user: ATBB⟦a28⟧⟦H8⟧ ‖ Azure DevOps PAT (Code: Read & Write) for the mirror job: ⟦y52⟧ ‖ git remote set-url origin https://build:⟦y52⟧@dev.azure.com/acme-gov/permits/_git/permits-api
S package-registry-token ‖ NuGet push key for Acme.Telemetry: oy2⟦l43⟧ ‖ ~/.gem/credentials:¶---¶:rubygems_api_key: rubygems_⟦h48⟧ ‖ Maven settings.xml for the Artifactory mirror:¶<server><id>acme-libs</id><username>ci</username><password>⟦b64:reftkn:01:1829347200:⟦a32⟧⟧</password></server>
S payment-provider-secret ‖ Square production access token: EAAA⟦w60⟧ ‖ PLAID_CLIENT_ID=⟦h24⟧¶PLAID_SECRET=⟦h30⟧¶PLAID_ENV=production ‖ PayPal live REST app "donations": client id A⟦w79⟧, secret E⟦w79⟧
S payment-gateway-key ‖ Adyen API key for the POS terminal integration (merchant ACME_RETAIL): AQE⟦w6⟧⟦a180⟧ ‖ Razorpay live keys: key_id rzp_live_⟦a14⟧, key_secret ⟦a24⟧ ‖ Mollie live API key for the ticketing site: live_⟦a30⟧
S maps-and-captcha-secret ‖ Mapbox secret token with styles:write, for the tile upload job: sk.⟦b64u:{"u":"acme-maps","a":"⟦l25⟧"}⟧.⟦w22⟧ ‖ RECAPTCHA_SECRET_KEY=6L⟦w38⟧ (the site key is public, this one is not) ‖ hCaptcha secret for the signup form: 0x⟦h40⟧
S kubernetes-secret ‖ kubectl create secret generic pg-creds -n billing --from-literal=username=billing --from-literal=password='⟦p22⟧' ‖ apiVersion: v1¶kind: Secret¶metadata:¶  name: smtp-relay¶type: Opaque¶data:¶  username: ⟦b64:relay@acme.io⟧¶  password: ⟦b64:⟦p16⟧⟧ ‖ kubeconfig we hand to the vendor for the edge cluster:¶users:¶- name: vendor-admin¶  user:¶    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t⟦b120⟧¶    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo⟦b160⟧
S smtp-password ‖ SMTP relay for the clinic's appointment mails: smtp.office365.com:587, user noreply@clinic.example, password ⟦p16⟧. ‖ EMAIL_HOST=email-smtp.eu-west-1.amazonaws.com¶EMAIL_HOST_USER=AKIA⟦k16⟧¶EMAIL_HOST_PASSWORD=BG⟦b42⟧ ‖ Postmark server token for receipts: X-Postmark-Server-Token: ⟦uuid⟧
S directory-password ‖ GitLab LDAP: bind_dn 'CN=svc-gitlab,OU=Service,DC=corp,DC=acme,DC=local', password '⟦p18⟧' ‖ ldapsearch -x -H ldaps://dc01.corp.acme.local -D "svc-scan@corp.acme.local" -w '⟦p16⟧' -b "DC=corp,DC=acme,DC=local" "(sAMAccountName=jdoe)" ‖ Contraseña de la cuenta de servicio del Directorio Activo para la impresora de recepción: svc-print / ⟦Word⟧.⟦d4⟧.⟦Word⟧
S plaintext-password-prose ‖ Router admin at the Porto office: http://192.168.1.1, admin / ⟦p12⟧ (the ISP set it and we never changed it). ‖ Correction: the RDP password for the X-ray workstation is now ⟦Word⟧⟦d3⟧!, not the one in the old runbook. ‖ 倉庫の管理画面のパスワードは ⟦p14⟧ です（ユーザー名: warehouse-admin）。月末に変更予定。
S observability-ingest-key ‖ Splunk HEC for the payments logs: Authorization: Splunk ⟦uuid⟧ ‖ filebeat.yml:¶output.elasticsearch:¶  hosts: ["https://es.acme.internal:9200"]¶  api_key: "⟦w20⟧:⟦w22⟧" ‖ PagerDuty Events v2 routing key of the "Core DB" service: ⟦h32⟧; anyone with it can page the DB on-call.
S data-warehouse-credential ‖ dbt profiles.yml (snowflake):¶  account: xy⟦d5⟧.eu-central-1¶  user: DBT_PROD¶  password: ⟦p20⟧¶  role: TRANSFORMER ‖ clickhouse-client --host ch.acme.internal --user default --password '⟦p16⟧' --query "SYSTEM FLUSH LOGS" ‖ REDSHIFT_DSN=redshift://etl:⟦p18⟧@analytics.⟦l12⟧.eu-west-1.redshift.amazonaws.com:5439/dw
S supabase-secret ‖ SUPABASE_SERVICE_ROLE_KEY=⟦b64u:{"alg":"HS256","typ":"JWT"}⟧.⟦b64u:{"iss":"supabase","ref":"⟦q20⟧","role":"service_role","iat":1733000000,"exp":2048576000}⟧.⟦w43⟧ (bypasses RLS, server only) ‖ Self-hosted Supabase .env: JWT_SECRET=⟦a40⟧ — it signs every anon and service token.
S hosting-platform-token ‖ HEROKU_API_KEY=⟦uuid⟧ (the release pipeline uses it to promote staging to prod) ‖ Vercel token for the marketing site previews: VERCEL_TOKEN=⟦a24⟧ ‖ Fly.io deploy token: FLY_API_TOKEN="FlyV1 fm2_⟦w200⟧"
S game-platform-key ‖ Steam Web API publisher key for the leaderboard sync: ⟦H32⟧ (partner.steam-api.com only). ‖ PlayFab title secret key for the dedicated servers: X-SecretKey: ⟦u52⟧ ‖ Epic Online Services credentials for the game servers: ClientId xyza⟦l28⟧, ClientSecret ⟦w43⟧
S education-platform-token ‖ Canvas LMS admin token for the gradebook export: ⟦d4⟧~⟦a64⟧ ‖ Moodle web service token (core_user functions) for the SIS sync: wstoken=⟦h32⟧ ‖ curl -H "Authorization: Bearer ⟦d4⟧~⟦a64⟧" "https://canvas.district.edu/api/v1/accounts/1/users?per_page=100"
S health-interface-credential ‖ HL7 MLLP feed from the lab system: site VPN plus LIS user "acme_hl7" / ⟦p16⟧ (set by hospital IT). ‖ Orthanc PACS config on pacs.rad.local:¶"RegisteredUsers" : { "radadmin" : "⟦p18⟧" }
S public-sector-api-key ‖ api.data.gov key for the grants-lookup service (higher rate-limit tier): ⟦a40⟧ ‖ Chave da API do Portal da Transparência (conta do projeto de auditoria): ⟦h32⟧ — vai no header chave-api-dados. ‖ Client secret of our tenant on the e-invoicing access point (Peppol): ⟦w48⟧
S iot-device-credential ‖ Particle access token for the vending-machine fleet: ⟦h40⟧ ‖ mosquitto_pub -h mqtt.farm.local -p 8883 -u sensor-gh2 -P '⟦p16⟧' -t gh2/temp -m 21.5 ‖ Device connection string of the cold-chain tracker: HostName=coldchain-hub.azure-devices.net;DeviceId=truck-0417;SharedAccessKey=⟦b43⟧=
S saas-api-token ‖ HubSpot private app token for the CRM sync: pat-eu1-⟦uuid⟧ ‖ Zendesk API token (support-bot@acme.com/token): ⟦a40⟧ ‖ Dropbox token for the photo archive importer: sl.B⟦w135⟧
S messaging-api-credential ‖ Vonage SMS: api_key ⟦h8⟧, api_secret ⟦a16⟧ (2FA texts in the banking app). ‖ MessageBird live key for the school bus delay SMS: ⟦a25⟧ ‖ WhatsApp Cloud API permanent token for the clinic reminders: EAA⟦a180⟧
S dev-tool-token ‖ Figma PAT for the design-token export: figd_⟦w40⟧ ‖ Postman API key for the collection sync: PMAK-⟦h24⟧-⟦h34⟧
S search-backend-admin-key ‖ Algolia admin key (write + delete indices) for the catalog indexer: ALGOLIA_ADMIN_KEY=⟦h32⟧, app id ⟦u10⟧. ‖ MEILI_MASTER_KEY=⟦w32⟧ on the docs search box ‖ X-TYPESENSE-API-KEY: ⟦a32⟧ (admin key, all actions)
B git-commit-sha ‖ The regression came in with ⟦h40⟧ (the ORM upgrade); revert that one, not the merge commit. ‖ git bisect good ⟦h40⟧ && git bisect run make test¶...¶⟦h40⟧ is the first bad commit ‖ Release 3.8.1 was cut from ⟦h7⟧ on main; the hotfix branch cherry-picks ⟦h7⟧ and ⟦h7⟧.
B container-image-digest ‖ Pin the base image by digest: FROM python:3.12-slim@sha256:⟦h64⟧ ‖ Prod runs registry.acme.internal/api@sha256:⟦h64⟧; if the canary misbehaves roll back to sha256:⟦h64⟧. ‖ docker ps during the incident:¶CONTAINER ID   IMAGE          STATUS¶⟦h12⟧   api:4.2.0      Up 3 hours¶⟦h12⟧   worker:4.2.0   Restarting (1) 8 seconds ago
B trace-and-idempotency-ids ‖ Trace for the slow checkout: trace_id ⟦h32⟧, span ⟦h16⟧; the 4 s are spent in the tax service. ‖ Order ⟦uuid⟧ was charged twice; the idempotency key on both requests was ⟦uuid⟧, so the dedupe should have fired. ‖ Terraform state lock stuck after the runner died: terraform force-unlock ⟦uuid⟧
B placeholder-credentials ‖ .env.example:¶DATABASE_URL=postgres://user:password@localhost:5432/app¶STRIPE_SECRET_KEY=sk_live_your_key_here¶OPENAI_API_KEY=<paste-your-key> ‖ The README sample config says api_key: "YOUR_API_KEY"; people keep committing the real key there, so add a pre-commit hook. ‖ docker run -e ADMIN_PASSWORD=changeme -e API_TOKEN=xxxxxxxxxxxxxxxxxxxx acme/demo  # the demo image refuses these values in prod mode
B env-var-reference ‖ The worker reads the key from the environment: api_key = os.environ["ANTHROPIC_API_KEY"]; never pass it on the command line. ‖ docker-compose.yml:¶  environment:¶    POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set in .env}¶    REDIS_URL: redis://:${REDIS_PASSWORD}@redis:6379/0 ‖ const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: "2024-06-20" });
B ci-secret-reference ‖ - name: Publish¶  run: npm publish¶  env:¶    NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }} ‖ GitLab CI: the deploy job uses $KUBE_TOKEN, a masked and protected variable at group level; forks cannot see it. ‖ Jenkinsfile: withCredentials([string(credentialsId: 'sonar-token', variable: 'SONAR_TOKEN')]) { sh 'mvn sonar:sonar -Dsonar.token=$SONAR_TOKEN' }
B secret-manager-reference ‖ The DB password lives in arn:aws:secretsmanager:eu-west-1:⟦d12⟧:secret:prod/billing/db-⟦a6⟧; the app fetches it at boot. ‖ vault kv get -field=password secret/ehr/mysql   # needs the ehr-ops policy ‖ env:¶- name: DB_PASSWORD¶  valueFrom:¶    secretKeyRef:¶      name: pg-creds¶      key: password
B config-secret-placeholder ‖ Helm values: admin: { existingSecret: "grafana-admin", userKey: "admin-user", passwordKey: "admin-password" } ‖ application-prod.yml: spring.datasource.password: ${DB_PASSWORD} and spring.cloud.vault.enabled: true ‖ App setting on the Azure web app: "SqlMain": "@Microsoft.KeyVault(SecretUri=https://kv-permits-prod.vault.azure.net/secrets/sql-main/)"
B docker-secret-usage ‖ printf '%s' "$PW" | docker secret create pg_password - ‖ docker run --env-file .env.prod is banned; use BuildKit --secret id=npmrc,src=$HOME/.npmrc so the token never lands in a layer. ‖ compose:¶secrets:¶  db_password:¶    file: ./secrets/db_password.txt   # gitignored
B redacted-token ‖ The leaked token in the build log was ghp_************************************; GitHub revoked it automatically. ‖ The Stripe dashboard shows the key as sk_live_...⟦a4⟧; we rotated it on 2 Dec after the contractor left. ‖ Log line after the masking fix: Authorization: Bearer [REDACTED] user=svc-claims status=401
B api-key-prefix-in-logs ‖ Audit log: key acme_live_⟦a4⟧… (prefix only) created by ana@acme.io, scope read:reports. ‖ The usage spike traced to key id key_⟦a16⟧ (name "partner-dashboard"); the key itself cannot be read back, only revoked. ‖ The OpenAI usage page lists the key as sk-proj-...⟦a4⟧ in project "helpdesk"; revoke that one after the pilot.
B public-client-key ‖ Stripe publishable key for the kiosk web app (safe in the bundle): pk_live_⟦a24⟧ ‖ Mapbox public token for the bus-tracker map (URL-restricted to tracker.city.gov): pk.⟦b64u:{"u":"citytransit","a":"⟦l25⟧"}⟧.⟦w22⟧ ‖ Algolia search-only key for the docs search box: appId ⟦u10⟧, searchKey ⟦h32⟧; it is meant to be public.
B client-side-config ‖ Firebase web config of the parents app (public by design; access is governed by security rules):¶const firebaseConfig = { apiKey: "AIza⟦w35⟧", authDomain: "school-notes-prod.firebaseapp.com", projectId: "school-notes-prod", appId: "1:⟦d12⟧:web:⟦h22⟧" }; ‖ Supabase anon key for the browser client (RLS is on for every table): SUPABASE_ANON_KEY=⟦b64u:{"alg":"HS256","typ":"JWT"}⟧.⟦b64u:{"iss":"supabase","ref":"⟦q20⟧","role":"anon","iat":1733000000,"exp":2048576000}⟧.⟦w43⟧ ‖ Sentry DSN for the React app: https://⟦h32⟧@o⟦d6⟧.ingest.de.sentry.io/⟦d16⟧ (a DSN only allows sending events).
B analytics-ids ‖ GA4 measurement ID G-⟦u10⟧ and GTM container GTM-⟦u7⟧ for the new landing page. ‖ LaunchDarkly client-side ID for the web app: ⟦h24⟧ (the server SDK key is in Vault). ‖ Mixpanel project token for the mobile app: ⟦h32⟧; it only allows ingesting events.
B documented-example-credential ‖ AWS docs use AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY everywhere; the localstack tests use the same pair. ‖ jwt.io sample token for the parser unit test: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c ‖ Google's reCAPTCHA v2 test keys for local dev: site 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI, secret 6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe (always pass).
B service-identifiers ‖ Twilio Account SID of the EU subaccount: AC⟦h32⟧ (an identifier; the auth token lives in Vault). ‖ Azure app registration: tenant ⟦uuid⟧, client id ⟦uuid⟧, object id ⟦uuid⟧. Certificate auth, no secret. ‖ Google OAuth client ID of the mobile app: ⟦d12⟧-⟦l32⟧.apps.googleusercontent.com (installed-app flow with PKCE, no secret).
B access-key-id-alone ‖ CloudTrail shows the deletes came from access key id AKIA⟦k16⟧ (user ci-terraform); the key is deactivated and its secret never left the runner. ‖ IAM credential report: AKIA⟦k16⟧ last used 412 days ago, so delete it. ‖ Who owns a key id? aws sts get-access-key-info --access-key-id AKIA⟦k16⟧
B ssh-public-key ‖ Add Priya's key to the bastion: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI⟦b43⟧ priya@laptop ‖ ansible: authorized_key: user=deploy key="ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ⟦b200⟧ deploy@ci" ‖ known_hosts entry for the git server: git.acme.internal ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB⟦b87⟧=
B ssh-fingerprints ‖ New host key of the bastion after the rebuild: SHA256:⟦b43⟧ (ED25519). Verify it before accepting. ‖ ssh-keygen -lf ~/.ssh/id_ed25519.pub¶256 SHA256:⟦b43⟧ ana@acme (ED25519) ‖ GitHub shows the deploy key fingerprint SHA256:⟦b43⟧, which matches the build host.
B certificate-pem ‖ Root CA of the hospital's internal PKI (public, goes in the trust store):¶-----BEGIN CERTIFICATE-----¶MIIDdzCCAl+gAwIBAgIU⟦b44⟧¶⟦pem:8⟧¶-----END CERTIFICATE----- ‖ CSR for the new payments domain:¶-----BEGIN CERTIFICATE REQUEST-----¶MIICvDCCAaQCAQAwdzELMAkGA1UEBhMCREUx⟦b28⟧¶⟦pem:5⟧¶-----END CERTIFICATE REQUEST----- ‖ openssl x509 -in gw.crt -noout -fingerprint -sha256¶sha256 Fingerprint=⟦colon:32⟧
B public-key-material ‖ WireGuard public key of the Lyon peer (share freely): ⟦b43⟧= ‖ age recipient for encrypting the backups: age1⟦z58⟧ ‖ Release signing public key (minisign): RW⟦b54⟧
B pgp-public-key ‖ Our security.txt points to this key:¶-----BEGIN PGP PUBLIC KEY BLOCK-----¶¶mDMEZ⟦b59⟧¶⟦b64⟧¶=⟦b4⟧¶-----END PGP PUBLIC KEY BLOCK----- ‖ Release tags are signed by key ⟦H40⟧ (Ana's YubiKey); verify with git tag -v. ‖ gpg --recv-keys ⟦H16⟧ before verifying the vendor tarball.
B checksums ‖ sha256sum of the firmware image v2.4.1:¶⟦h64⟧  sensor-fw-2.4.1.bin ‖ The installer checks md5 ⟦h32⟧ for the legacy driver zip; the vendor only publishes md5. ‖ Verified the downloaded JDK: sha512 matches ⟦h128⟧
B sri-and-lockfile-hashes ‖ <script src="https://cdn.jsdelivr.net/npm/alpinejs@3.14.1/dist/cdn.min.js" integrity="sha384-⟦b64⟧" crossorigin="anonymous"></script> ‖ package-lock entry that broke the build: "integrity": "sha512-⟦b86⟧==" ‖ go.sum: golang.org/x/crypto v0.28.0 h1:⟦b43⟧=
B content-hashes-cache ‖ ETag "⟦h32⟧" did not change after the deploy, so CloudFront kept serving the old index.html. ‖ Turborepo cache key ⟦h16⟧ hit on CI but missed locally because of a different Node version. ‖ Bazel action digest ⟦h64⟧/1842 is non-hermetic: it reads $HOME.
B hash-values ‖ We store only the SHA-256 of API tokens; the row for prefix "acme_7f3" has token_hash=⟦h64⟧. ‖ Argon2 hash format we migrated to: $argon2id$v=19$m=65536,t=3,p=4$⟦b22⟧$⟦b43⟧ — old bcrypt hashes are upgraded at next login. ‖ HMAC of the email used as the pseudonymous analytics id: ⟦h64⟧ (key is in KMS).
B random-ids-misc ‖ Mongo ObjectId of the corrupted document: ⟦h24⟧; restore it from the 02:00 snapshot. ‖ The Kafka cluster id changed to ⟦w22⟧ after the broker rebuild, so the consumers refused to start (InconsistentClusterIdException). ‖ ULID of the failed export job: 01J⟦c23⟧
B build-artifact-ids ‖ Webpack output after the fix: main.⟦h8⟧.js 212 kB, vendor.⟦h8⟧.js 1.1 MB; cache busting works again. ‖ GitHub Actions run ⟦d10⟧ produced artifact sbom-⟦h7⟧.json; attach it to the release. ‖ The Gradle build scan https://scans.gradle.com/s/⟦l13⟧ shows the configuration cache miss.
B k8s-resource-names ‖ kubectl get pods -n checkout¶NAME                         READY   STATUS¶checkout-⟦l10⟧-⟦l5⟧   1/1     Running¶checkout-⟦l10⟧-⟦l5⟧   0/1     CrashLoopBackOff ‖ PVC uid ⟦uuid⟧ is still bound to the deleted StatefulSet; patch the finalizer. ‖ kubectl describe secret pg-creds -n billing¶Type:  Opaque¶Data¶====¶password:  24 bytes¶username:  7 bytes
B storage-object-ids ‖ git lfs ls-files shows model.onnx as oid sha256:⟦h64⟧, 91 MB. ‖ IPFS CID of the published dataset card: bafybei⟦y52⟧ ‖ Magnet for the mirror test: magnet:?xt=urn:btih:⟦h40⟧&dn=debian-12.8.0-amd64-netinst.iso
B session-and-request-ids ‖ Sentry event ⟦h32⟧ shows the NullPointerException in PaymentMapper; request id req_⟦a14⟧. ‖ Cloudflare Ray ID ⟦h16⟧-FRA for the 520s the user reported. ‖ AWS request id ⟦uuid⟧ in the S3 AccessDenied error; the bucket policy denies non-TLS requests.
B messaging-ids ‖ Slack IDs for the bot config: team T⟦u10⟧, channel #deploys C⟦u10⟧, user @ana U⟦u10⟧. ‖ Discord application ID ⟦d19⟧ and guild ID ⟦d19⟧ for registering the slash commands. ‖ Telegram chat id for alerts: -100⟦d10⟧ (the bot token is in Vault).
B apple-android-ids ‖ App Store Connect: Team ID ⟦u10⟧, API Key ID ⟦u10⟧, Issuer ⟦uuid⟧; the .p8 itself is only in the CI secret store. ‖ SHA-1 of the upload keystore for Firebase: ⟦colon:20⟧ ‖ Android app id com.acme.tutor, Play Console developer id ⟦d19⟧.
B cloud-resource-ids ‖ The role the GitHub OIDC provider assumes: arn:aws:iam::⟦d12⟧:role/gha-deploy-web (no static keys anymore). ‖ GCP project number ⟦d12⟧, service account deployer@acme-prod.iam.gserviceaccount.com, workload identity pool "github". ‖ Azure subscription ⟦uuid⟧, resource group rg-permits-prod, key vault kv-permits-prod.
B random-resource-names ‖ S3 bucket names get a random suffix: acme-logs-⟦l8⟧, acme-tf-state-⟦l8⟧. ‖ Preview environments get generated names like ⟦word⟧-⟦word⟧-⟦d5⟧.preview.acme.dev. ‖ Storage account names must be globally unique, so prod uses st⟦l12⟧.
B health-data-ids ‖ HL7 message control id ⟦d12⟧ was rejected by the lab (AR, segment PID). ‖ FHIR Patient/⟦uuid⟧ is the synthetic test patient in the sandbox (Synthea). ‖ DICOM StudyInstanceUID 1.2.826.0.1.3680043.8.498.⟦d20⟧ failed to route to the PACS.
B fintech-ids ‖ IBAN of the sandbox test account: DE89 3704 0044 0532 0130 00 (the standard example IBAN). ‖ BIC of the payout partner: COBADEFFXXX; settlement reference ⟦u16⟧. ‖ Ledger entry le_⟦a24⟧ was posted twice; reversal je_⟦a24⟧.
B education-ids ‖ LTI 1.3 registration: client_id ⟦d17⟧, deployment_id 1:⟦h40⟧, issuer https://canvas.instructure.com. ‖ SIS student ids look like S⟦d8⟧; never put names next to them in tickets. ‖ Moodle course 4412 has the broken quiz, cmid ⟦d6⟧.
B games-ids ‖ Steam AppID 2⟦d6⟧, depot ⟦d7⟧, build ⟦d8⟧ pushed to the beta branch. ‖ Photon App ID ⟦uuid⟧ for the multiplayer lobby (lives in the client build anyway). ‖ Unity Cloud project id ⟦uuid⟧, org id ⟦d12⟧.
B ai-model-ids ‖ The fine-tuned model ft:gpt-4o-mini-2024-07-18:acme:tickets:⟦a8⟧ scores worse than the base model on the eval. ‖ HF model revision pinned to ⟦h40⟧ for reproducibility. ‖ Batch job batch_⟦h32⟧ failed: 412 requests exceeded max tokens.
B network-identifiers ‖ DHCP reservations: printer-2F ⟦colon:6⟧, kiosk-1 ⟦colon:6⟧. ‖ IPv6 prefix from the ISP: 2001:db8:⟦h4⟧::/48; the firewall rules still only cover v4. ‖ VLAN plan: 10 staff, 20 guests, 30 IoT, 40 cameras; the IoT VLAN reaches the internet for NTP only.
B license-and-serials ‖ Serials of the new Cisco switches: FOC⟦d4⟧⟦u4⟧, FOC⟦d4⟧⟦u4⟧; SmartNet contract ⟦d9⟧. ‖ IMEIs of the replacement scanners: 35⟦d13⟧ and 35⟦d13⟧; register them in the MDM. ‖ LoRaWAN DevEUIs of the new batch: 70B3D57ED⟦H7⟧, 70B3D57ED⟦H7⟧ (the AppKeys come from the join server, not this list).
B payment-object-ids ‖ Disputed charge ch_⟦a24⟧ on customer cus_⟦a14⟧; evidence due 12 Dec. ‖ Webhook replay: stripe events resend evt_⟦a24⟧ --webhook-endpoint we_⟦a24⟧ ‖ The refund for PaymentIntent pi_⟦a24⟧ went out twice; finance reversed re_⟦a24⟧.
B blockchain-public-data ‖ Treasury receiving address (public, on the website): 0x⟦h40⟧ ‖ Payout tx 0x⟦h64⟧ is stuck with too low gas; resend with a higher tip. ‖ Spendenadresse Bitcoin: bc1q⟦z38⟧ — bitte nur diese verwenden.
B high-entropy-data ‖ Perf baseline for the new hash table: 10M random keys like "⟦a16⟧", p99 lookup 84 ns. ‖ The shortener makes 7-char codes from [a-zA-Z0-9], e.g. acme.link/⟦a7⟧; collisions are negligible below ~100M links. ‖ Coupon codes for the spring campaign look like SPRING-⟦u8⟧; each is single-use and worth 10%.
B crypto-test-vectors ‖ RFC 4231 HMAC-SHA256 test case 1: key = 0x0b repeated 20 bytes, data "Hi There", expected b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7. ‖ The AES-GCM wrapper test uses the NIST vector: key 00000000000000000000000000000000, iv 000000000000000000000000, tag 58e2fccefa7e3061367f1d57a4e7455a. ‖ RFC 6238 test seed "12345678901234567890": at T=59 the SHA1 code is 94287082, and our implementation now matches.
B signature-values ‖ Stripe-Signature of the failing event: t=1765012345,v1=⟦h64⟧; the handler verified the parsed body instead of the raw one. ‖ Our X-Hub-Signature-256 sha256=⟦h64⟧ did not match because of a trailing newline. ‖ PSD2 request header: x-jws-signature: ⟦b64u:{"alg":"PS256","kid":"⟦h16⟧","b64":false,"crit":["b64"]}⟧..⟦w342⟧
B encrypted-blob ‖ group_vars/prod/vault.yml (ansible-vault; the vault password is in 1Password):¶$ANSIBLE_VAULT;1.1;AES256¶⟦h80⟧¶⟦h80⟧¶⟦h40⟧ ‖ SOPS values are fine to commit: password: ENC[AES256_GCM,data:⟦b24⟧,iv:⟦b43⟧=,tag:⟦b22⟧==,type:str] ‖ SealedSecret for the clinic API:¶spec:¶  encryptedData:¶    DB_PASSWORD: AgB⟦b300⟧
B kms-ciphertext ‖ aws kms encrypt output (what the app stores): CiphertextBlob: AQICAHh⟦b190⟧== ‖ GCP KMS wrapped DEK stored next to each file: CiQA⟦b120⟧ ‖ Vault transit: vault:v1:⟦b60⟧ is the encrypted SSN; decrypting needs the transit/decrypt/ssn policy.
B encoded-nonsecret ‖ Feature flags are passed as base64 JSON: ⟦b64:{"new_checkout":true,"dark_mode":false,"max_items":50}⟧ ‖ Favicon inlined as a data URI: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAA⟦b60⟧ ‖ Decoded the API cursor ⟦b64u:{"last_id":98231,"sort":"created_at"}⟧: just pagination state, safe to log.
B oauth-flow-params ‖ PKCE: code_challenge=⟦w43⟧&code_challenge_method=S256&state=⟦w22⟧; the callback rejected it because state was URL-decoded twice. ‖ OIDC discovery of the staff IdP is https://login.acme.io/.well-known/openid-configuration; the client is public (PKCE), there is no client secret. ‖ Nonce mismatch in the ID token: expected ⟦w24⟧, got ⟦w24⟧; two tabs logged in at once.
B jwt-claims-discussion ‖ The access token payload only needs sub, aud, exp and scope; email was removed after the GDPR review. ‖ Decoded an expired token header from the staging logs: {"alg":"RS256","kid":"2026-11"}; the kid rotation broke validation. ‖ JWKS of the IdP (public keys): {"keys":[{"kty":"RSA","kid":"⟦w16⟧","use":"sig","n":"⟦w342⟧","e":"AQAB"}]}
B embedded-firmware ‖ The bootloader expects header magic 0x⟦H8⟧ and a CRC32 (0x⟦H8⟧ for v2.4.1) at offset 0x1C. ‖ Secure boot public key digest burned into eFuse: ⟦h64⟧ (the signing key stays on the HSM). ‖ Flash layout: nvs 0x9000 24K, otadata 0xf000 8K, app0 0x10000 1.5M; Wi-Fi credentials are provisioned over BLE into nvs, never compiled in.
B test-card-numbers ‖ Stripe test cards for QA: 4242 4242 4242 4242 (success), 4000 0000 0000 9995 (insufficient funds), any future expiry, any CVC. ‖ Adyen test card for 3DS2: 5454 5454 5454 5454, exp 03/30, CVC 737. ‖ Receipt template masks the PAN: **** **** **** {{ last4 }}; never log the full number.
B password-policy-prose ‖ Decision: citizen portal passwords are at least 12 characters, checked against the breached-password list, no forced rotation (NIST 800-63B). Owner: identity team. ‖ Gotcha: the legacy HR system silently truncates passwords to 8 characters, so long passphrases "work" with only their first 8. ‖ Für das Schulportal gilt: Passwort-Reset nur per E-Mail-Link, Links verfallen nach 30 Minuten, keine Sicherheitsfragen.
B rotation-notes ‖ Rotated the Datadog API key on 3 Dec; the new one is in 1Password vault "Infra" as "Datadog prod". Old key revoked 4 Dec. ‖ Runbook, rotate the Postgres app password:¶1. vault write -f database/rotate-role/billing-app¶2. kubectl rollout restart deploy/billing -n billing¶3. check pg_stat_activity for old sessions ‖ Reminder: the Apple push certificate expires 2027-01-14; renew it in the developer portal and upload the .p12 to the notification service (its password is in 1Password).
B incident-about-leak ‖ Postmortem: a Slack webhook URL was pasted into a public gist on 28 Nov; Slack disabled it, we made a new one and added gitleaks to pre-commit. Nothing was sent by the attacker. ‖ Action item from the leak review: scan image layers for .env files before pushing; the 2.3 image had one (already deleted from the registry). ‖ Incidente: la clave de Twilio quedó expuesta en un log de depuración. Se revocó el mismo día; la nueva sólo está en el gestor de secretos.
B tokens-discussed-in-prose ‖ Decision (2 Dec): service-to-service calls use short-lived mTLS certs from SPIRE; no more static bearer tokens between services. ‖ Who owns what: Kenji owns the Stripe integration and its keys, Lea owns the Twilio account. Ask them instead of creating keys yourself. ‖ Correction to yesterday's note: the Mapbox token in the app is the public pk.* one; the secret sk.* token was never in the bundle.
B non-english-secret-talk ‖ Nota: las claves de la API de pagos se rotan cada 90 días; el responsable es el equipo de plataforma. ‖ 注意：不要把数据库密码写进代码里，统一从 Vault 读取。负责人：王磊。 ‖ Uwaga: token do API kuriera wygasa co 24 godziny, skrypt odświeża go sam; nie wklejać go do zgłoszeń.
B password-manager-references ‖ All shared logins are in the Bitwarden collection "Ops-Shared"; ask Dana for access. Nothing goes into the wiki. ‖ op read "op://Deploy/postgres-prod/password" | psql ... needs the 1Password desktop app unlocked. ‖ Le mot de passe du NAS de l'école est dans KeePass (ecole.kdbx sur la clé chiffrée), entrée « NAS Synology ».
B secret-handling-code ‖ def get_db_password() -> str:¶    return Path("/run/secrets/db_password").read_text().strip() ‖ password = getpass.getpass("LDAP password: ")¶conn.simple_bind_s(user_dn, password) ‖ hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))  # store only the hash
B error-output-auth ‖ Debugging the 401 from the partner API:¶$ curl -i https://api.partner.example/v2/orders¶HTTP/2 401¶www-authenticate: Bearer error="invalid_token", error_description="The access token expired"¶The cron refreshes every 2h but tokens now expire after 1h. ‖ npm ERR! code E401¶npm ERR! Unable to authenticate, need: Basic realm="Artifactory Realm"¶Fix: the agent's .npmrc had the old registry URL; the token was fine. ‖ psql: error: connection to server at "10.20.4.11", port 5432 failed: FATAL:  password authentication failed for user "moodle_admin"¶Cause: pg_hba.conf said md5 while the password was stored as scram.
B debugging-output-nosecret ‖ journalctl -u vault --since "10 min ago"¶core: security barrier not initialized¶core: seal configuration missing, not initialized¶The new node was never joined to the raft cluster. ‖ openssl s_client -connect pay.acme.io:443 -servername pay.acme.io | grep -E 'subject|issuer|Verify'¶subject=CN = pay.acme.io¶issuer=C = US, O = Let's Encrypt, CN = R11¶Verify return code: 0 (ok) ‖ kubectl logs deploy/api | grep -i token¶level=warn msg="token cache miss" key_id=⟦h8⟧ ttl=0s
B token-format-documentation ‖ Note for reviewers: GitHub classic PATs start with ghp_ and are 40 characters; fine-grained ones start with github_pat_. The scanner config lists both prefixes. ‖ Slack tokens: xoxb- is a bot, xoxp- a user, xapp- app-level. The incident bot only ever needs xoxb-. ‖ gitleaks.toml custom rule:¶[[rules]]¶id = "acme-internal-token"¶regex = '''acme_[a-z0-9]{32}'''¶keywords = ["acme_"]
B secret-scanner-findings ‖ trufflehog flagged src/fixtures/keys.py, but those are RFC test vectors; allowlisted with a comment. ‖ Gitleaks false positive on a hash in go.sum; fingerprint added to .gitleaksignore: ⟦h40⟧:go.sum:generic-api-key:212 ‖ GitHub push protection blocked a commit over something that looked like a Twilio key; it was an Account SID, an identifier.
B openapi-security-schemes ‖ components:¶  securitySchemes:¶    bearerAuth:¶      type: http¶      scheme: bearer¶      bearerFormat: JWT ‖ The public API accepts the key in the X-API-Key header or ?api_key=; the query param is deprecated because keys end up in access logs. ‖ GraphQL: type Mutation { rotateApiKey(id: ID!): ApiKeyPrefix! } returns only the prefix and the last 4 characters.
B api-documentation-snippets ‖ From our public API docs: curl -H "Authorization: Bearer $ACME_TOKEN" https://api.acme.io/v1/me ‖ SDK quickstart: client = Acme(api_key=os.getenv("ACME_API_KEY"))  # keys start with acme_live_ or acme_test_ ‖ The Postman collection in the repo uses {{baseUrl}} and {{apiKey}} variables, left empty.
B terraform-sensitive-output ‖ terraform output¶db_endpoint = "billing.c8x⟦l9⟧.eu-west-1.rds.amazonaws.com"¶db_password = <sensitive> ‖ resource "random_password" "db" { length = 32, special = true }; the value goes straight to Secrets Manager, never to outputs. ‖ Gotcha: terraform state holds generated passwords in plaintext, so the state bucket is KMS-encrypted and readable only by the CI role.
B db-admin-procedures ‖ Read-only user for Metabase:¶CREATE ROLE metabase_ro LOGIN PASSWORD :'pw';  -- psql -v pw="$(vault read -field=pw database/static-creds/metabase)"¶GRANT pg_read_all_data TO metabase_ro; ‖ ALTER USER app_rw WITH PASSWORD NULL; -- IAM auth only since the RDS proxy migration ‖ mysql> SELECT user, host, plugin FROM mysql.user;¶| app     | 10.%      | caching_sha2_password |¶| monitor | localhost | auth_socket           |
B connection-string-no-password ‖ DATABASE_URL=postgresql://app@/app?host=/var/run/postgresql (peer auth over the socket, no password) ‖ jdbc:sqlserver://sql01.hosp.local:1433;databaseName=Pharmacy;integratedSecurity=true;encrypt=true ‖ Redis for local dev: redis://localhost:6379/0, no auth, bound to loopback.
B local-dev-default-credentials ‖ docker-compose for local dev: POSTGRES_USER=postgres, POSTGRES_PASSWORD=postgres; the container only listens on 127.0.0.1. ‖ RabbitMQ management UI locally: http://localhost:15672 with guest/guest (guest only works from localhost). ‖ Keycloak dev container: KEYCLOAK_ADMIN=admin KEYCLOAK_ADMIN_PASSWORD=admin in start-dev mode; never used outside laptops.
B test-fixture-secrets ‖ .env.test: JWT_SECRET=test-secret-do-not-use-in-prod (only the unit tests read it) ‖ settings/test.py: SECRET_KEY = "insecure-key-for-pytest-only" ‖ conftest.py: monkeypatch.setenv("STRIPE_SECRET_KEY", "sk_test_dummy")  # the HTTP client is mocked
B secret-named-settings ‖ PASSWORD_MIN_LENGTH=12¶TOKEN_TTL_SECONDS=900¶SECRET_ROTATION_DAYS=90¶API_KEY_HEADER=X-Api-Key ‖ session: { cookie_name: "__Host-sid", secret_rotation: "weekly", token_length: 32 } ‖ Config knob: max_failed_password_attempts: 5, lockout_minutes: 15, reset_token_expiry: 30m.
B vpn-network-config-nosecret ‖ WireGuard peer template (keys filled in by the provisioner):¶[Peer]¶PublicKey = ⟦b43⟧=¶AllowedIPs = 10.66.0.0/16¶PersistentKeepalive = 25 ‖ The routers use key chain "BGP-AUTH"; the key string itself is in the network vault, not in the golden config. ‖ OpenVPN client profile: remote vpn.acme.io 1194 udp, auth-user-pass, ca ca.crt; users log in with their AD password, nothing is embedded.
B git-repo-config-nosecret ‖ git remote -v¶origin  git@github.com:acme/payments.git (fetch)¶origin  git@github.com:acme/payments.git (push) ‖ .gitconfig on the build agents: [credential] helper = "!aws codecommit credential-helper $@" ‖ pip.conf: index-url = https://pypi.acme.internal/simple (auth comes from keyring, not from the URL)
B ssh-usage-procedures ‖ ssh -i ~/.ssh/id_ed25519 -J bastion.acme.io deploy@10.20.4.11 (agent forwarding is disabled on purpose) ‖ ssh-keygen -t ed25519 -C "ana@acme" -f ~/.ssh/acme_ed25519, then send only the .pub file to #infra. ‖ "Permission denied (publickey)": ssh -vvv showed it only offered id_rsa; add IdentitiesOnly yes and the right IdentityFile to ~/.ssh/config.
B i18n-strings ‖ de.json: "login.password": "Passwort", "login.forgot": "Passwort vergessen?", "settings.api_token": "API-Token" ‖ fr.json : "auth.secret_key_label": "Clé secrète", "auth.token_expired": "Votre jeton a expiré, reconnectez-vous." ‖ ja.json: "password_hint": "8文字以上のパスワードを入力してください", "token_copied": "トークンをコピーしました"
B otp-and-codes ‖ SMS verification codes are 6 digits, valid 5 minutes, 5 attempts max; the template reads "Your Acme code is 482913". ‖ The QA phone got code 771204 twice in a row: it was the retry, not a reused code. ‖ Backup codes are shown once and stored as argon2 hashes; support cannot read them.
B random-test-fixtures ‖ libFuzzer crash crash-⟦h40⟧; the minimized input is in tests/fuzz/corpus. ‖ Failing property test seed: pytest --hypothesis-seed=⟦d38⟧ ‖ Snapshot __snapshots__/invoice_⟦h12⟧.snap was orphaned after the rename.
B share-links-and-meetings ‖ Loom of the deploy walkthrough: https://www.loom.com/share/⟦h32⟧ ‖ Figma file key of the design system: ⟦a22⟧ (https://www.figma.com/design/⟦a22⟧/DS) ‖ Weekly sync on Zoom, meeting id 8⟦d10⟧; the passcode is in the calendar invite.
B certificate-management-prose ‖ cert-manager renews the *.acme.io wildcard 30 days before expiry via DNS-01; the DNS token it uses lives in a secret in the cert-manager namespace. ‖ Le certificat du portail des marchés publics expire le 14 mars; renouvellement via l'ACME interne, la clé privée reste sur le HSM. ‖ Decision: no more self-signed certs on internal services; everything gets a cert from the step-ca at ca.acme.internal.
"""  # noqa: E501


if __name__ == "__main__":
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(out, encoding="utf-8")
    else:
        sys.stdout.write(out)

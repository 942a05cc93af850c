"""Blind secret-detection corpus 44.

A mid-size SaaS company's backend and infrastructure team: one year of their shared
coding-agent memory, the way an ordinary team's memory really reads. Deploy notes, incident
follow-ups, onboarding tips, config snippets pasted from .env files, Helm values, CI settings,
Slack threads and tickets, third-party integrations (payments, email, search, feature flags,
observability, auth providers), database and queue credentials, and a lot of talk about
credentials and ids with none in it.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_44.py [out.jsonl]   (JSONL to the path, or stdout without one)

Kinds
- secret: aws_secret_key, stripe_live_secret, stripe_restricted_key, stripe_webhook_secret,
  sendgrid_key, mailgun_key, postmark_server_token, github_pat, github_fine_grained_pat,
  gitlab_pat, slack_bot_token, slack_webhook_url, datadog_api_key, datadog_app_key,
  sentry_auth_token, newrelic_license_key, newrelic_user_key, launchdarkly_sdk_key,
  algolia_admin_key, elastic_password, postgres_url_password, mysql_password, redis_url_password,
  amqp_url_password, mongodb_srv_password, kafka_sasl_password, jwt_signing_secret,
  django_secret_key, rails_secret_key_base, openssh_private_key, rsa_private_key,
  gcp_server_api_key, auth0_client_secret, okta_api_token, twilio_auth_token, npm_token,
  pypi_token, dockerhub_pat, helm_values_password, k8s_secret_data, vault_token,
  terraform_cloud_token, cloudflare_api_token, azure_storage_conn, azure_client_secret,
  basic_auth_url, bearer_token_curl, session_cookie, openai_key, anthropic_key,
  pagerduty_routing_key, shopify_token, hubspot_pat, smtp_password, ldap_bind_password,
  mailchimp_key, paypal_client_secret, square_token, grafana_sa_token, age_secret_key,
  totp_seed, google_refresh_token, pgpass_line, netrc_password, ssh_password_note
- benign: aws_key_id_only, stripe_publishable, stripe_redacted, git_sha, sha256_artifact,
  image_digest, request_uuid, ssh_public_key, pgp_fingerprint, vault_path, secret_key_ref,
  env_interpolation, placeholder_key, redacted_value, env_example_changeme, revoked_key_stub,
  sentry_dsn, algolia_search_key, launchdarkly_client_id, firebase_web_config, ga_measurement_id,
  stripe_object_ids, slack_ids, trace_id, jwks_kid, password_policy, token_bucket, redis_key_name,
  partition_key, idempotency_key, feature_flag_key, csrf_field_name, k8s_secret_name,
  tls_fingerprint, public_certificate, base64_config, npm_integrity, tf_lock_id, rotation_talk,
  reset_token_ttl, ulid_ids, pagerduty_service_id, twilio_account_sid, auth0_client_id,
  oauth_redirect_uri, webhook_url_no_secret, mailgun_public_key, secret_arn, gcp_sa_email,
  azure_tenant_ids, build_id, helm_existing_secret, ci_masked, sops_encrypted, sealed_secret,
  age_public_key, db_url_no_password, git_lfs_oid, elastic_cloud_id, datadog_rum_client_token,
  grafana_dashboard_uid, cloudflare_zone_id, okta_client_id, secret_sauce_idiom
"""

import json
import random
import string
import sys

SEED = 4444

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
UPNUM = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def r(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def uuid():
        h = r(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def pw():
        words = ["Harbor", "tulip", "Quartz", "mango", "Violet", "ember", "Falcon", "drift"]
        return rng.choice(words) + r(ALNUM, 6) + rng.choice("!#%@$^*") + r(string.digits, 3)

    def pem(label):
        body = "\n".join(r(B64, 64) for _ in range(3))
        return f"-----BEGIN {label}-----\n{body}\n{r(B64, 40)}==\n-----END {label}-----"

    # (kind, generator, templates) -- {v} is the value; | separates templates.
    secret_kinds = [
        (
            "aws_secret_key",
            lambda: r(B64, 40),
            "prod .env for billing-worker:\nAWS_ACCESS_KEY_ID=AKIA"
            + "{k}"
            + "\nAWS_SECRET_ACCESS_KEY={v}"
            "|aws creds for the s3 export bucket (ci user): secret = {v} -- rotate in Q3"
            "|[profile saas-prod]\nregion = eu-west-1\naws_secret_access_key = {v}",
        ),
        (
            "stripe_live_secret",
            lambda: "sk_live_" + r(ALNUM, 99),
            "payments svc prod: STRIPE_SECRET_KEY={v}"
            "|Stripe live key Dana pasted in #payments so the refund script works: {v}"
            '|helm values-prod.yaml -> payments:\n  stripe:\n    apiKey: "{v}"',
        ),
        (
            "stripe_restricted_key",
            lambda: "rk_live_" + r(ALNUM, 99),
            "restricted key for the reporting job (read charges only): {v}"
            "|metabase stripe connector uses {v}, scoped to balance + payouts"
            "|STRIPE_RK={v}  # finance dashboard",
        ),
        (
            "stripe_webhook_secret",
            lambda: "whsec_" + r(ALNUM, 32),
            "webhook signing secret for /hooks/stripe (prod endpoint): {v}"
            "|STRIPE_WEBHOOK_SECRET={v}\nSTRIPE_API_VERSION=2024-06-20"
            "|if signature verification fails again, check that the pod has {v} and"
            " not the staging one",
        ),
        (
            "sendgrid_key",
            lambda: "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43),
            "SENDGRID_API_KEY={v}"
            "|transactional email: sendgrid full-access key is {v} (marketing has their own)"
            "|ticket OPS-2291: password reset mails bounced; replaced key with {v}",
        ),
        (
            "mailgun_key",
            lambda: "key-" + r(HEX, 32),
            "mailgun private api key for mg.ourapp.io: {v}"
            "|MAILGUN_API_KEY={v}\nMAILGUN_DOMAIN=mg.ourapp.io"
            "|curl -s --user 'api:{v}' https://api.eu.mailgun.net/v3/mg.ourapp.io/events",
        ),
        (
            "postmark_server_token",
            uuid,
            "Postmark server token (inbound + outbound, prod server): {v}"
            "|POSTMARK_SERVER_TOKEN={v}"
            "|curl -H 'X-Postmark-Server-Token: {v}' https://api.postmarkapp.com/email",
        ),
        (
            "github_pat",
            lambda: "ghp_" + r(ALNUM, 36),
            "renovate bot PAT (repo + workflow scope): {v}"
            "|GH_TOKEN={v} for the release script, expires in 90d"
            "|git clone https://x-access-token:{v}@github.com/acme-saas/infra-live.git",
        ),
        (
            "github_fine_grained_pat",
            lambda: "github_pat_" + r(ALNUM, 22) + "_" + r(ALNUM, 59),
            "fine-grained token for the changelog action: {v}"
            "|Marco's token for the helm-charts repo (contents:write) -> {v}"
            "|gh auth login --with-token <<< {v}",
        ),
        (
            "gitlab_pat",
            lambda: "glpat-" + r(URLSAFE, 20),
            "legacy gitlab mirror still pulls with {v}"
            "|GITLAB_TOKEN={v}  # read_registry for old images"
            "|registry login for the on-prem customer: docker login"
            " registry.gitlab.com -u deploy -p {v}",
        ),
        (
            "slack_bot_token",
            lambda: (
                "xoxb-" + r(string.digits, 12) + "-" + r(string.digits, 13) + "-" + r(ALNUM, 24)
            ),
            "deploybot slack token: {v}"
            "|SLACK_BOT_TOKEN={v}\nSLACK_CHANNEL=#deploys"
            "|the incident bot posts with {v}; if it 401s the app was reinstalled",
        ),
        (
            "slack_webhook_url",
            lambda: (
                "https://hooks.slack.com/services/T"
                + r(UPNUM, 8)
                + "/B"
                + r(UPNUM, 10)
                + "/"
                + r(ALNUM, 24)
            ),
            "alertmanager -> slack receiver api_url: {v}"
            "|#oncall-noise webhook {v}"
            "|CI failure notifier: SLACK_WEBHOOK={v}",
        ),
        (
            "datadog_api_key",
            lambda: r(HEX, 32),
            "DD_API_KEY={v}\nDD_SITE=datadoghq.eu"
            "|datadog agent helm: datadog.apiKey: {v}"
            "|new Datadog api key after the offboarding rotation: {v}",
        ),
        (
            "datadog_app_key",
            lambda: r(HEX, 40),
            "DD_APP_KEY={v} (needed by the terraform datadog provider)"
            "|monitor-as-code job uses application key {v}"
            "|export DATADOG_APP_KEY={v}",
        ),
        (
            "sentry_auth_token",
            lambda: "sntryu_" + r(HEX, 64),
            "SENTRY_AUTH_TOKEN={v} for sourcemap uploads"
            "|sentry-cli token (org:ci) {v}"
            "|release step: sentry-cli --auth-token {v} releases finalize $SHA",
        ),
        (
            "newrelic_license_key",
            lambda: r(HEX, 36) + "NRAL",
            "NEW_RELIC_LICENSE_KEY={v}"
            "|newrelic.yml for the legacy rails monolith: license_key: {v}"
            "|APM ingest license for eu account: {v}",
        ),
        (
            "newrelic_user_key",
            lambda: "NRAK-" + r(UPNUM, 27),
            "NerdGraph user key for dashboards-as-code: {v}"
            "|NEW_RELIC_API_KEY={v}"
            "|curl https://api.eu.newrelic.com/graphql -H 'API-Key: {v}'",
        ),
        (
            "launchdarkly_sdk_key",
            lambda: "sdk-" + uuid(),
            "LaunchDarkly server-side SDK key (production env): {v}"
            "|LD_SDK_KEY={v}"
            "|flags svc: ldclient.set_config(Config('{v}'))",
        ),
        (
            "algolia_admin_key",
            lambda: r(HEX, 32),
            "Algolia ADMIN key (indexing worker only, never ship to the browser): {v}"
            "|ALGOLIA_APP_ID=K7QW2LZ0PX\nALGOLIA_ADMIN_API_KEY={v}"
            "|reindex script: client = SearchClient.create('K7QW2LZ0PX', '{v}')  # admin",
        ),
        (
            "elastic_password",
            pw,
            "elastic superuser on the logging cluster: elastic / {v}"
            "|ES_PASSWORD={v}\nES_USERNAME=elastic"
            "|kibana login for incident review -- user elastic, pass {v}",
        ),
        (
            "postgres_url_password",
            pw,
            "DATABASE_URL=postgres://app_rw:{v}@pg-prod-1.internal:5432/saas"
            "|read replica for analytics:"
            " postgresql://metabase:{v}@pg-replica.internal/saas?sslmode=require"
            "|migration runner connects with postgres://migrator:{v}@10.20.4.11:5432/saas",
        ),
        (
            "mysql_password",
            pw,
            "legacy billing mysql: MYSQL_PASSWORD={v}"
            "|mysql -h billing-db.internal -u billing -p'{v}' billing"
            "|wp-marketing db creds (yes, still mysql): user mkt_wp / {v}",
        ),
        (
            "redis_url_password",
            lambda: r(ALNUM, 32),
            "REDIS_URL=rediss://default:{v}@cache-prod.abc123.euw1.cache.amazonaws.com:6379"
            "|sidekiq redis: redis://:{v}@redis-queue.internal:6379/2"
            "|redis AUTH for the rate limiter cluster is {v}",
        ),
        (
            "amqp_url_password",
            pw,
            "CELERY_BROKER_URL=amqp://celery:{v}@rabbitmq.internal:5672/prod"
            "|rabbit admin UI (port 15672): admin / {v}"
            "|notification consumer: amqps://notif:{v}@b-1234.mq.eu-west-1.amazonaws.com:5671",
        ),
        (
            "mongodb_srv_password",
            lambda: r(ALNUM, 20),
            "MONGO_URI=mongodb+srv://events_rw:{v}@cluster0.x7k2p.mongodb.net/events"
            "|atlas user for the audit log importer: audit_ro / {v}"
            '|mongosh "mongodb+srv://cluster0.x7k2p.mongodb.net" --username ops --password {v}',
        ),
        (
            "kafka_sasl_password",
            lambda: r(B64, 64),
            "confluent cloud API key ZQ4T7LMN2X8PRBVW secret {v}"
            "|KAFKA_SASL_PASSWORD={v}\nKAFKA_SASL_MECHANISM=PLAIN"
            '|sasl.jaas.config=...PlainLoginModule required username="svc-events" password="{v}";',
        ),
        (
            "jwt_signing_secret",
            lambda: r(B64, 48),
            "JWT_SECRET={v}  (HS256, api gateway + auth svc must match)"
            "|auth svc signs access tokens with HMAC secret {v}"
            "|incident 2026-04: staging JWT secret was used in prod; new prod one is {v}",
        ),
        (
            "django_secret_key",
            lambda: r(string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50),
            "admin panel settings_prod.py: SECRET_KEY = '{v}'"
            "|DJANGO_SECRET_KEY={v}"
            "|internal tools django app secret key: {v}",
        ),
        (
            "rails_secret_key_base",
            lambda: r(HEX, 128),
            "SECRET_KEY_BASE={v}"
            "|monolith production secret_key_base: {v}"
            "|if sessions break after deploy, check RAILS secret_key_base is still {v}",
        ),
        (
            "openssh_private_key",
            lambda: pem("OPENSSH PRIVATE KEY"),
            "bastion deploy key (ed25519):\n{v}"
            "|ansible user key, copy to ~/.ssh/id_deploy:\n{v}"
            "|sftp to the bank partner uses this key:\n{v}",
        ),
        (
            "rsa_private_key",
            lambda: pem("RSA PRIVATE KEY"),
            "SAML SP signing key for the Okta integration:\n{v}"
            "|apple push (legacy) key material, ask before rotating:\n{v}"
            "|tls key for *.internal.ourapp.io:\n{v}",
        ),
        (
            "gcp_server_api_key",
            lambda: "AIza" + r(URLSAFE, 35),
            "Gemini API key used by the summariser worker (server side only): {v}"
            "|GOOGLE_API_KEY={v}  # geocoding backfill, billed to prod project"
            "|translation api key for the support bot: {v}",
        ),
        (
            "auth0_client_secret",
            lambda: r(URLSAFE, 64),
            "Auth0 M2M app 'billing-api' client secret: {v}"
            "|AUTH0_CLIENT_ID=Xk2LqPz8Wv3Nm7Rt\nAUTH0_CLIENT_SECRET={v}"
            "|management api token exchange uses client_secret={v}",
        ),
        (
            "okta_api_token",
            lambda: "00" + r(URLSAFE, 40),
            "Okta API token (SCIM provisioning): {v}"
            "|OKTA_API_TOKEN={v}"
            "|curl -H 'Authorization: SSWS {v}' https://acme.okta.com/api/v1/users",
        ),
        (
            "twilio_auth_token",
            lambda: r(HEX, 32),
            "TWILIO_ACCOUNT_SID=AC" + "{k}" + "\nTWILIO_AUTH_TOKEN={v}"
            "|SMS 2FA provider: twilio auth token {v}"
            "|verify service auth token got rotated to {v} after the leak scare",
        ),
        (
            "npm_token",
            lambda: "npm_" + r(ALNUM, 36),
            "//registry.npmjs.org/:_authToken={v}"
            "|NPM_TOKEN={v} (publish @acme/ui-kit)"
            "|CI publish step token: {v}",
        ),
        (
            "pypi_token",
            lambda: "pypi-AgEIcHlwaS5vcmc" + r(URLSAFE, 60),
            "twine upload -u __token__ -p {v}"
            "|PyPI token for acme-sdk: {v}"
            "|[pypi]\nusername = __token__\npassword = {v}",
        ),
        (
            "dockerhub_pat",
            lambda: "dckr_pat_" + r(URLSAFE, 27),
            "docker hub pull token (to dodge rate limits): {v}"
            "|docker login -u acmeci -p {v} docker.io"
            "|DOCKERHUB_TOKEN={v}",
        ),
        (
            "helm_values_password",
            pw,
            'values-prod.yaml:\npostgresql:\n  auth:\n    password: "{v}"'
            "|keycloak chart: auth.adminPassword: {v}"
            "|helm upgrade grafana grafana/grafana --set adminPassword='{v}'",
        ),
        (
            "k8s_secret_data",
            lambda: r(B64, 32) + "==",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-db\ndata:\n  password: {v}"
            "|kubectl get secret api-db -o yaml showed password: {v} (base64 of the real one)"
            "|secret.yaml stringData got base64'd by hand: DB_PASS: {v}",
        ),
        (
            "vault_token",
            lambda: "hvs." + r(URLSAFE, 24),
            "VAULT_TOKEN={v}"
            "|root token from the vault re-init (revoke after!): {v}"
            "|vault login {v}",
        ),
        (
            "terraform_cloud_token",
            lambda: r(ALNUM, 14) + ".atlasv1." + r(ALNUM, 67),
            "TFC team token for the infra-live workspaces: {v}"
            '|credentials "app.terraform.io" {{ token = "{v}" }}'
            "|TF_TOKEN_app_terraform_io={v}",
        ),
        (
            "cloudflare_api_token",
            lambda: r(URLSAFE, 40),
            "CLOUDFLARE_API_TOKEN={v}  # dns edit, zone ourapp.io"
            "|cloudflare token for cert-manager dns01: {v}"
            "|cf purge cache: curl -H 'Authorization: Bearer {v}' .../purge_cache",
        ),
        (
            "azure_storage_conn",
            lambda: r(B64, 86) + "==",
            "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;"
            "AccountName=acmebackups;AccountKey={v};EndpointSuffix=core.windows.net"
            "|backup blob storage account key: {v}"
            "|az storage blob upload --account-name acmebackups --account-key {v}",
        ),
        (
            "azure_client_secret",
            lambda: r(ALNUM, 3) + "8Q~" + r(URLSAFE + "~.", 34),
            "AZURE_CLIENT_SECRET={v}"
            "|Entra app 'saas-sso' client secret (expires 2027-01): {v}"
            "|service principal for AKS pipeline: clientSecret {v}",
        ),
        (
            "basic_auth_url",
            pw,
            "grafana internal: https://admin:{v}@grafana.internal.ourapp.io"
            "|staging basic auth (for QA): https://qa:{v}@staging.ourapp.io"
            "|prometheus remote_write url https://metrics:{v}@prom.ourapp.io/api/v1/write",
        ),
        (
            "bearer_token_curl",
            lambda: r(URLSAFE, 48),
            'curl -H "Authorization: Bearer {v}" https://api.ourapp.io/admin/tenants'
            "|service token for internal admin API: Bearer {v}"
            "|partner api (Acme Logistics) gave us token {v}",
        ),
        (
            "session_cookie",
            lambda: r(URLSAFE, 64),
            "repro for BUG-812: log in as support and reuse cookie _saas_session={v}"
            "|admin session cookie from prod (valid till friday): sessionid={v}"
            "|Cookie: __Host-sid={v}; theme=dark",
        ),
        (
            "openai_key",
            lambda: "sk-proj-" + r(URLSAFE, 120),
            "OPENAI_API_KEY={v}"
            "|ticket summariser uses openai key {v}"
            "|support bot key (org acme-saas): {v}",
        ),
        (
            "anthropic_key",
            lambda: "sk-ant-api03-" + r(URLSAFE, 93) + "AA",
            "ANTHROPIC_API_KEY={v}|code review bot key: {v}|anthropic key for the eval harness {v}",
        ),
        (
            "pagerduty_routing_key",
            lambda: r(HEX, 32),
            "PagerDuty Events v2 routing key for 'API prod': {v}"
            "|alertmanager pagerduty_configs:\n  - routing_key: {v}"
            "|PD_INTEGRATION_KEY={v}",
        ),
        (
            "shopify_token",
            lambda: "shpat_" + r(HEX, 32),
            "shopify app admin token for the merchant sync: {v}"
            "|SHOPIFY_ACCESS_TOKEN={v}"
            "|X-Shopify-Access-Token: {v}",
        ),
        (
            "hubspot_pat",
            lambda: "pat-eu1-" + uuid(),
            "HUBSPOT_PRIVATE_APP_TOKEN={v}"
            "|crm sync private app token: {v}"
            "|hubspot token (contacts write) {v}",
        ),
        (
            "smtp_password",
            pw,
            "SMTP_HOST=smtp.office365.com\nSMTP_USER=noreply@ourapp.io\nSMTP_PASSWORD={v}"
            "|fallback smtp relay creds: relay@ourapp.io / {v}"
            "|EMAIL_HOST_PASSWORD = '{v}'",
        ),
        (
            "ldap_bind_password",
            pw,
            "LDAP bind for gitlab: cn=svc-gitlab,ou=svc,dc=acme,dc=io pw {v}"
            "|ldapsearch -D 'cn=admin,dc=acme,dc=io' -w '{v}' -b dc=acme,dc=io"
            "|bind_password: {v}",
        ),
        (
            "mailchimp_key",
            lambda: r(HEX, 32) + "-us21",
            "MAILCHIMP_API_KEY={v}"
            "|newsletter sync key: {v}"
            "|mailchimp marketing api key (audience export): {v}",
        ),
        (
            "paypal_client_secret",
            lambda: "E" + r(URLSAFE, 79),
            "PAYPAL_CLIENT_SECRET={v}\nPAYPAL_MODE=live"
            "|paypal live app secret: {v}"
            "|paypal REST creds, secret part: {v}",
        ),
        (
            "square_token",
            lambda: "EAAA" + r(URLSAFE, 60),
            "SQUARE_ACCESS_TOKEN={v}"
            "|square production access token for POS sync: {v}"
            "|Authorization: Bearer {v}  (square v2)",
        ),
        (
            "grafana_sa_token",
            lambda: "glsa_" + r(ALNUM, 32) + "_" + r(HEX, 8),
            "GRAFANA_TOKEN={v}"
            "|grafana service account 'dash-provisioner' token: {v}"
            '|grafana terraform provider auth = "{v}"',
        ),
        (
            "age_secret_key",
            lambda: "AGE-SECRET-KEY-1" + r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
            "sops age identity for the prod cluster (keys.txt):\n{v}"
            "|SOPS_AGE_KEY={v}"
            "|restore from backup needs {v}",
        ),
        (
            "totp_seed",
            lambda: r(B32, 32),
            "shared AWS root MFA: otpauth://totp/AWS:root?secret={v}&issuer=AWS"
            "|2FA seed for the shared registrar account: {v}"
            "|TOTP secret for the break-glass admin: {v}",
        ),
        (
            "google_refresh_token",
            lambda: "1//0" + r(URLSAFE, 99),
            "GSuite directory sync refresh_token: {v}"
            "|GOOGLE_REFRESH_TOKEN={v}"
            "|oauth playground gave refresh token {v} for calendar sync",
        ),
        (
            "pgpass_line",
            pw,
            "~/.pgpass on bastion:\npg-prod-1.internal:5432:saas:app_rw:{v}"
            "|add this to .pgpass: *:*:*:readonly:{v}"
            "|PGPASSWORD={v} psql -h pg-prod-1.internal -U app_rw saas",
        ),
        (
            "netrc_password",
            lambda: r(ALNUM, 40),
            "~/.netrc\nmachine api.heroku.com\n  login ops@ourapp.io\n  password {v}"
            "|netrc for artifactory: machine acme.jfrog.io login ci password {v}"
            "|machine github.com login bot password {v}",
        ),
        (
            "ssh_password_note",
            pw,
            "old jenkins box still takes password auth: ssh admin@10.0.3.7, password {v}"
            "|onboarding: the office NAS is root / {v} until IT moves it"
            "|vpn fallback account is vpn-breakglass and the password is {v}",
        ),
    ]

    benign_kinds = [
        (
            "aws_key_id_only",
            lambda: "AKIA" + r(UPNUM, 16),
            "the leaked-key alert was about access key id {v}; the key was already"
            " deleted, id only shown here"
            "|CloudTrail: calls from {v} (ci-deployer user), secret lives in Vault"
            "|IAM report lists {v} as last used 2026-02-11",
        ),
        (
            "stripe_publishable",
            lambda: "pk_live_" + r(ALNUM, 99),
            "checkout page uses publishable key {v} (safe in the frontend bundle)"
            "|NEXT_PUBLIC_STRIPE_KEY={v}"
            "|stripe.js init: Stripe('{v}')",
        ),
        (
            "stripe_redacted",
            lambda: "sk_live_" + "*" * 20 + r(ALNUM, 4),
            "dashboard shows the secret key as {v} -- full value is in 1Password 'Stripe prod'"
            "|log line redacted correctly: key={v}"
            "|which key is the cron using? the one ending in {v}",
        ),
        (
            "git_sha",
            lambda: r(HEX, 40),
            "rolled back api to {v} after the 502s"
            "|release 4.18.2 = commit {v}"
            "|bisect landed on {v} (the orm upgrade)",
        ),
        (
            "sha256_artifact",
            lambda: r(HEX, 64),
            "terraform provider checksum h1 mismatch; expected sha256 {v}"
            "|helm chart tgz sha256: {v}"
            "|verify the cli download: sha256sum should print {v}",
        ),
        (
            "image_digest",
            lambda: "sha256:" + r(HEX, 64),
            "pin api image to ghcr.io/acme-saas/api@{v}"
            "|prod is running digest {v}"
            "|argo shows image {v} out of sync",
        ),
        (
            "request_uuid",
            uuid,
            "customer escalation: failing request id {v}"
            "|tenant id for Globex in prod: {v}"
            "|X-Request-Id {v} shows the double charge",
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43),
            "add Priya's key to the bastion authorized_keys: {v} priya@laptop"
            "|deploy key (public half) on the infra repo: {v}"
            "|github deploy key registered: {v} ci@acme",
        ),
        (
            "pgp_fingerprint",
            lambda: " ".join(r("0123456789ABCDEF", 4) for _ in range(10)),
            "security@ PGP key fingerprint: {v}"
            "|release tarballs are signed by {v}"
            "|verify the vendor's key fingerprint matches {v}",
        ),
        (
            "vault_path",
            lambda: "secret/data/prod/" + rng.choice(["payments", "billing", "search"]) + "/api",
            "stripe key lives at {v}, read via the vault agent sidecar"
            "|don't paste creds here, they're in vault at {v}"
            "|vault kv get {v}  (needs the ops policy)",
        ),
        (
            "secret_key_ref",
            lambda: "name: " + rng.choice(["payments-secrets", "db-credentials"]),
            "env:\n  - name: STRIPE_SECRET_KEY\n    valueFrom:\n     "
            " secretKeyRef:\n        {v}\n        key: stripe_secret_key"
            "|DATABASE_PASSWORD comes from secretKeyRef {v} / key: password"
            "|the chart reads JWT_SECRET via secretKeyRef ({v}), nothing inline",
        ),
        (
            "env_interpolation",
            lambda: "${" + rng.choice(["DB_PASSWORD", "REDIS_PASSWORD", "SENDGRID_API_KEY"]) + "}",
            "DATABASE_URL=postgres://app_rw:{v}@pg-prod-1.internal:5432/saas"
            "|docker-compose: environment: PASSWORD: {v}"
            "|in CI the step uses {v} from the masked project variable",
        ),
        (
            "placeholder_key",
            lambda: rng.choice(["<your-api-key>", "YOUR_SECRET_HERE", "sk_live_REPLACE_ME"]),
            "README snippet for new devs: STRIPE_SECRET_KEY={v}"
            "|template: DD_API_KEY={v} (get yours from the Datadog org settings)"
            '|example config: apiKey: "{v}"',
        ),
        (
            "redacted_value",
            lambda: rng.choice(["[REDACTED]", "********", "<redacted>"]),
            "postgres://app_rw:{v}@pg-prod-1.internal:5432/saas fails with too many connections"
            "|sentry scrubbed the header: Authorization: Bearer {v}"
            "|SENDGRID_API_KEY={v} in the pasted log, good",
        ),
        (
            "env_example_changeme",
            lambda: rng.choice(["changeme", "password", "secret"]),
            ".env.example:\nPOSTGRES_USER=app\nPOSTGRES_PASSWORD={v}\n(copy to .env and fill in)"
            "|local docker-compose default REDIS_PASSWORD={v}, prod values come from vault"
            "|seed fixture user alice@example.com / {v} only exists in the test db",
        ),
        (
            "revoked_key_stub",
            lambda: "xoxb-" + "0" * 12 + "-EXAMPLE",
            "slack docs example token {v} -- not a real token"
            "|our lint test ensures {v} style tokens are flagged"
            "|doc example: SLACK_BOT_TOKEN={v}",
        ),
        (
            "sentry_dsn",
            lambda: (
                "https://"
                + r(HEX, 32)
                + "@o"
                + r(string.digits, 6)
                + ".ingest.sentry.io/"
                + r(string.digits, 7)
            ),
            "frontend SENTRY_DSN={v} (DSNs are public, ship in the bundle)"
            "|browser sdk: Sentry.init({{ dsn: '{v}' }})"
            "|mobile app dsn {v}",
        ),
        (
            "algolia_search_key",
            lambda: r(HEX, 32),
            "Algolia search-only key for the docs site (public, in the html): {v}"
            "|NEXT_PUBLIC_ALGOLIA_SEARCH_KEY={v}"
            "|docsearch config apiKey {v} -- search-only, fine to commit",
        ),
        (
            "launchdarkly_client_id",
            lambda: r(HEX, 24),
            "LD client-side ID for the web app: {v} (public by design)"
            "|REACT_APP_LD_CLIENT_ID={v}"
            '|LDProvider clientSideID="{v}"',
        ),
        (
            "firebase_web_config",
            lambda: "AIza" + r(URLSAFE, 35),
            "firebase web config (public, restricted by referrer):\napiKey:"
            ' "{v}",\nauthDomain: "ourapp-prod.firebaseapp.com"'
            "|the firebase apiKey {v} in index.html is not a secret, it just identifies the project"
            "|web push config: apiKey={v}, projectId=ourapp-prod",
        ),
        (
            "ga_measurement_id",
            lambda: "G-" + r(UPNUM, 10),
            "marketing site analytics id {v}|GA4 measurement id moved to {v}|gtag('config', '{v}')",
        ),
        (
            "stripe_object_ids",
            lambda: rng.choice(["cus_", "price_", "sub_", "pi_"]) + r(ALNUM, 14),
            "refund dispute is on {v}"
            "|pro plan monthly = {v} in live mode"
            "|webhook failed for object {v}, replayed from dashboard",
        ),
        (
            "slack_ids",
            lambda: "C0" + r(UPNUM, 9),
            "incident channel id is {v}"
            "|alerts post into channel {v}"
            "|slack channel {v} = #payments-alerts",
        ),
        (
            "trace_id",
            lambda: r(HEX, 32),
            "datadog trace {v} shows 4s in the search call"
            "|otel trace_id={v} for the checkout timeout"
            "|see trace {v} in tempo",
        ),
        (
            "jwks_kid",
            lambda: r(URLSAFE, 43),
            "auth0 rotated signing keys, new kid is {v}; JWKS cache must refresh"
            "|tokens failing verify had kid={v}"
            "|jwks.json has two keys, kid {v} is the current one",
        ),
        (
            "password_policy",
            lambda: "",
            "password policy: min 12 chars, breached-password check via HIBP"
            " k-anonymity, no forced rotation"
            "|we lowered bcrypt cost to 11 on the login path after p99 regressed"
            "|reminder: passwords for service accounts go in 1Password, never in this memory",
        ),
        (
            "token_bucket",
            lambda: "",
            "rate limiter is a token bucket: 100 tokens, refill 10/s per tenant"
            "|gpt token budget per summary is 2k tokens, trimmed at 1800"
            "|tokenizer change broke the search analyzer (edge ngram tokens)",
        ),
        (
            "redis_key_name",
            lambda: "sess:{tenant}:{user}",
            "session keys are {v} with 24h TTL"
            "|cache key format changed to {v}, flush after deploy"
            "|debug: redis-cli --scan --pattern '{v}'",
        ),
        (
            "partition_key",
            lambda: "",
            "events table partition key is (tenant_id, day); primary key (tenant_id, id)"
            "|kafka topic orders keyed by tenant_id so ordering holds per tenant"
            "|dynamo: partition key pk, sort key sk, GSI on email",
        ),
        (
            "idempotency_key",
            uuid,
            "retried charge with Idempotency-Key {v}, stripe returned the cached response"
            "|idempotency key for that payout was {v}"
            "|dupe invoice: two different idempotency keys, {v} and another",
        ),
        (
            "feature_flag_key",
            lambda: rng.choice(["new-billing-page", "search-v2-rollout", "kill-switch-email"]),
            "flag key {v} at 25% in prod"
            "|remove flag {v} after Q2"
            "|LD flag {v} is the kill switch for the sendgrid path",
        ),
        (
            "csrf_field_name",
            lambda: "",
            "form posts need the csrf_token hidden field; SPA reads X-CSRF-Token from the meta tag"
            "|session secret rotation logs everyone out; plan it for Sunday"
            "|auth refactor: access token 15 min, refresh token 30 days, rotate on use",
        ),
        (
            "k8s_secret_name",
            lambda: "",
            "kubectl -n prod get secret payments-secrets -o"
            " jsonpath='{.metadata.annotations}' to check who last rotated"
            "|external-secrets syncs 'db-credentials' from AWS Secrets Manager every 1h"
            "|secret 'sendgrid' in namespace mail was missing after the cluster move",
        ),
        (
            "tls_fingerprint",
            lambda: ":".join(r("0123456789ABCDEF", 2) for _ in range(32)),
            "new api.ourapp.io cert SHA256 fingerprint {v}"
            "|customer pinned our cert; fingerprint {v}"
            "|openssl x509 -fingerprint -sha256 gave {v}",
        ),
        (
            "public_certificate",
            lambda: pem("CERTIFICATE"),
            "intermediate CA for the partner mTLS (public cert):\n{v}"
            "|SAML IdP signing certificate from Okta metadata:\n{v}"
            "|root CA to add to the java truststore:\n{v}",
        ),
        (
            "base64_config",
            lambda: "eyJ" + r(B64, 40),
            "argo app parameter is base64 json {v} (just region + replica count)"
            "|grafana panel state in the url: {v}"
            "|feature flag payload cached as {v}",
        ),
        (
            "npm_integrity",
            lambda: "sha512-" + r(B64, 86) + "==",
            "lockfile integrity for react changed: {v}"
            "|EINTEGRITY on axios, expected {v}"
            '|package-lock: "integrity": "{v}"',
        ),
        (
            "tf_lock_id",
            uuid,
            "terraform force-unlock {v} (stale lock from the cancelled run)"
            "|state lock ID {v} held by ci"
            "|lock {v} cleared, plan is green",
        ),
        (
            "rotation_talk",
            lambda: "",
            "rotated the Stripe, SendGrid and Datadog keys after Tom left; new"
            " values are only in Vault"
            "|TODO: move the redis password out of the helm values into external-secrets"
            "|post-mortem: the API key was committed in a test fixture; revoked"
            " within 20 min, added pre-commit scanning",
        ),
        (
            "reset_token_ttl",
            lambda: "",
            "password reset tokens expire after 30 min and are single-use"
            "|magic-link token length is 32 bytes, hashed at rest with sha256"
            "|API keys are shown once at creation; we store only a prefix + hash",
        ),
        (
            "ulid_ids",
            lambda: "01" + r("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 24),
            "order {v} stuck in pending"
            "|job {v} retried 5x then dead-lettered"
            "|audit event {v}: admin changed plan",
        ),
        (
            "pagerduty_service_id",
            lambda: "P" + r(UPNUM, 6),
            "PagerDuty service API-prod is {v}"
            "|escalation policy {v} pages secondary after 10 min"
            "|schedule {v} for the EU rotation",
        ),
        (
            "twilio_account_sid",
            lambda: "AC" + r(HEX, 32),
            "twilio account SID {v}; the auth token is in Vault, not here"
            "|sub-account for EU SMS: {v}"
            "|messages log filtered by AccountSid={v}",
        ),
        (
            "auth0_client_id",
            lambda: r(ALNUM, 32),
            "SPA auth0 clientId {v} (public, ships in the browser)"
            "|auth0 application client id for the mobile app: {v}"
            "|VITE_AUTH0_CLIENT_ID={v}",
        ),
        (
            "oauth_redirect_uri",
            lambda: "https://app.ourapp.io/auth/callback?state=" + r(URLSAFE, 16),
            "Google login failing: redirect_uri_mismatch for {v}"
            "|allowed callback pattern; example hit {v}"
            "|okta redirect went to {v}",
        ),
        (
            "webhook_url_no_secret",
            lambda: "https://api.ourapp.io/hooks/" + rng.choice(["stripe", "sendgrid", "github"]),
            "webhook endpoint is {v}; verification uses the signing secret from vault"
            "|register {v} in the provider dashboard"
            "|{v} returned 400 for retries, fixed by raw body parsing",
        ),
        (
            "mailgun_public_key",
            lambda: "pubkey-" + r(HEX, 32),
            "mailgun public validation key {v} (used client-side for email validation)"
            "|front-end email check uses {v}"
            "|MAILGUN_PUBLIC_KEY={v}",
        ),
        (
            "secret_arn",
            lambda: (
                "arn:aws:secretsmanager:eu-west-1:"
                + r(string.digits, 12)
                + ":secret:prod/db-"
                + r(ALNUM, 6)
            ),
            "db creds are fetched from {v}"
            "|lambda needs GetSecretValue on {v}"
            "|rotation lambda attached to {v}",
        ),
        (
            "gcp_sa_email",
            lambda: "bq-export@ourapp-prod-" + r(string.digits, 6) + ".iam.gserviceaccount.com",
            "grant BigQuery dataViewer to {v}"
            "|workload identity binds ksa analytics to {v} (no json keys)"
            "|service account {v} disabled",
        ),
        (
            "azure_tenant_ids",
            uuid,
            "Azure tenant id {v}"
            "|subscription {v} is the prod one"
            "|Entra app registration object id {v}",
        ),
        (
            "build_id",
            lambda: r(ALNUM, 20),
            "github actions run {v} flaked on the e2e step"
            "|EAS build {v} for the ios app"
            "|buildkite build {v} deployed canary",
        ),
        (
            "helm_existing_secret",
            lambda: "existingSecret: " + rng.choice(["pg-auth", "redis-auth", "grafana-admin"]),
            "postgresql:\n  auth:\n    {v}\n    secretKeys:\n      adminPasswordKey:"
            " postgres-password"
            "|redis chart values: auth.enabled: true, {v}"
            "|grafana: admin.{v} (no adminPassword in values)",
        ),
        (
            "ci_masked",
            lambda: "***",
            "CI log: Using STRIPE_SECRET_KEY={v}"
            "|github actions masks it: docker login -u acmeci -p {v}"
            "|job output: export DD_API_KEY={v}",
        ),
        (
            "sops_encrypted",
            lambda: (
                "ENC[AES256_GCM,data:"
                + r(B64, 32)
                + ",iv:"
                + r(B64, 43)
                + "=,tag:"
                + r(B64, 22)
                + "==,type:str]"
            ),
            "secrets.prod.yaml (sops): stripe_key: {v}"
            "|db_password: {v}"
            "|sops-encrypted helm value: jwtSecret: {v}",
        ),
        (
            "sealed_secret",
            lambda: "AgB" + r(B64, 120),
            "SealedSecret encryptedData.password: {v} (only the controller can decrypt)"
            "|kubeseal output for sendgrid key: {v}"
            "|sealed value committed to gitops repo: {v}",
        ),
        (
            "age_public_key",
            lambda: "age1" + r("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
            ".sops.yaml creation_rules age recipient: {v}"
            "|add Priya's age public key {v} to the recipients"
            "|prod recipient {v}",
        ),
        (
            "db_url_no_password",
            lambda: "postgres://app_ro@pg-replica.internal:5432/saas",
            "read replica: {v} (IAM auth, no password)"
            "|psql {v} -- uses the token from aws rds generate-db-auth-token"
            "|analytics DSN {v}",
        ),
        (
            "git_lfs_oid",
            lambda: "oid sha256:" + r(HEX, 64),
            "LFS pointer for the seed dump: {v}"
            "|fixtures file is an lfs pointer ({v}), run git lfs pull"
            "|version https://git-lfs.github.com/spec/v1\n{v}\nsize 48213",
        ),
        (
            "elastic_cloud_id",
            lambda: "search-prod:" + r(B64, 60) + "==",
            "ELASTIC_CLOUD_ID={v} (just encodes the host, auth is separate)"
            "|cloud id for the search deployment {v}"
            "|Elasticsearch(cloud_id='{v}', api_key=os.environ['ES_API_KEY'])",
        ),
        (
            "datadog_rum_client_token",
            lambda: "pub" + r(HEX, 32),
            "RUM clientToken {v} (public, browser only)"
            "|datadogRum.init({{ clientToken: '{v}' }})"
            "|browser logs client token {v}",
        ),
        (
            "grafana_dashboard_uid",
            lambda: r(ALNUM, 9),
            "API latency dashboard uid {v}"
            "|link dashboards/d/{v}/api-overview in the runbook"
            "|alert rule references dashboard {v}",
        ),
        (
            "cloudflare_zone_id",
            lambda: r(HEX, 32),
            "cloudflare zone id for ourapp.io: {v}"
            "|CF_ZONE_ID={v} (token is separate)"
            "|zone {v} has the page rules",
        ),
        (
            "okta_client_id",
            lambda: "0oa" + r(ALNUM, 17),
            "Okta OIDC client id {v}|SSO app {v} for the admin panel|OKTA_CLIENT_ID={v}",
        ),
        (
            "secret_sauce_idiom",
            lambda: "",
            "the secret sauce of the search ranking is the recency boost, not the model"
            "|Jan's key insight: retries must be idempotent at the ledger, not the API"
            "|primary key migration to bigint done; the key takeaway is to do it before 2B rows",
        ),
    ]

    rows = []

    def add(label, kinds):
        for kind, gen, tmpls in kinds:
            for t in tmpls.split("|"):
                v = gen()
                if "{k}" in t:
                    t = t.replace("{k}", r(UPNUM, 16) if kind == "aws_secret_key" else r(HEX, 32))
                text = t.replace("{v}", v).replace("{{", "{").replace("}}", "}") if v else t
                if not v:
                    text = t
                assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})

    add("secret", secret_kinds)
    add("benign", benign_kinds)
    return rows


def main():
    rows = corpus()
    out = "\n".join(json.dumps(x) for x in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

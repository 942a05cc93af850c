"""Third blind held-out corpus for graphit's secret refusal: secrets vs look-alikes.

Each row is a memory text an agent or a developer might store, labelled "secret" (it holds a
credential that grants access, so graphit must refuse it) or "benign" (it only looks like one:
identifiers, hashes, public-by-design keys, placeholders, references, masked values, prose).

Written blind on 2026-12-06: the author did not read graphit's detector, its tests, or the
earlier corpora (blind_secrets.py, blind_secrets_2.py, secrets_corpus.py), nor any scanner's
fixtures. Token shapes come from general knowledge. Every value is generated from a seeded
random.Random, so none is a real credential, and the output is reproducible.

Run:  python benchmarks/data/blind_secrets/blind_secrets_3.py [OUT.jsonl]   (or to stdout)
Rows: {"label": "secret"|"benign", "kind": "<short kind>", "text": "<memory text>"}

Secret kinds, grouped:
  cloud: aws_access_key aws_secret_key aws_session_token gcp_service_account google_api_key
    azure_storage_key azure_client_secret azure_sas_token azure_devops_pat digitalocean_token
    cloudflare_api_token heroku_api_key databricks_token
  code hosting / packages: github_pat github_fine_grained github_oauth github_app_token
    gitlab_pat gitlab_runner_token npm_token pypi_token docker_hub_pat registry_auth
    package_index_credentials
  SaaS: slack_bot_token slack_user_token slack_webhook stripe_secret_key stripe_restricted_key
    stripe_webhook_secret twilio_auth_token twilio_api_key sendgrid_key mailgun_key
    shopify_token datadog_api_key sentry_auth_token atlassian_api_token linear_api_key
    fcm_server_key mapbox_secret_token new_relic_key grafana_token okta_api_token
    postman_api_key square_access_token paypal_secret algolia_admin_key vault_token
  AI / ML: openai_key anthropic_key huggingface_token wandb_api_key
  chat bots: discord_bot_token telegram_bot_token chat_pasted_token
  generic: app_secret_key encryption_key jwt_signing_secret webhook_signing_secret
    unprefixed_api_key oauth_client_secret google_oauth_client_secret oauth_refresh_token
    google_refresh_token jwt_bearer supabase_service_role session_cookie basic_auth_header
    totp_secret age_secret_key wireguard_private_key kubeconfig_token
  private keys: private_key_rsa private_key_openssh private_key_ec private_key_pkcs8
    pgp_private_key apple_p8_key
  passwords: db_url_password password_env password_cli password_prose k8s_secret_manifest
    dotnet_connection_string spring_properties_password ini_password dbt_profile_password
    gradle_properties_password android_keystore_password ansible_inventory_password
    ansible_vault_password smtp_password wifi_password credentials_in_url
  infra / CI: ci_variable dockerfile_secret compose_secret terraform_creds helm_values_secret
  mishaps: secret_in_stack_trace secret_in_diff secret_in_code_comment secret_in_table
    two_secrets secret_in_long_note
Benign kinds, grouped:
  identifiers and hashes: git_commit_sha image_digest request_id span_id file_checksum aws_arn
    aws_account_id object_id sortable_ids slack_ids network_ids ml_ids uuid_misc build_id
    cache_key asset_hash sri_hash package_integrity etag hmac_signature_header
    crypto_address test_vector gpg_fingerprint tls_fingerprint hardware_serial
    version_strings random_filenames twilio_account_sid idempotency_key
  public by design: stripe_publishable_key firebase_web_config sentry_dsn public_by_design_key
    ssh_public_key pem_public_key pem_certificate jwks_public public_key_crypto
    oauth_client_id access_key_id_alone
  placeholders and references: placeholder_env placeholder_angle placeholder_dots
    template_vars secret_reference k8s_secret_ref external_secret helm_no_secret
    key_metadata secret_file_path env_var_names ci_masked_var dockerfile_secret_mount
  code and config without values: settings_no_value code_token_var config_named_secret
    conn_string_no_password terraform_random_password openapi_security sql_schema curl_env_token
    password_policy xml_settings git_credential_helper secret_regex password_generator_code
  examples and fixtures: aws_docs_example_key doc_example_jwt test_fixture_password
    dummy_dev_credentials test_card oidc_spec_example
  masked: masked_value redacted_log key_prefix_reference
  shared-by-design codes: invite_code promo_code tracking_number vehicle_id short_link
  encoded / random-looking: base64_data csp_nonce color_hex password_hash
  prose: prose_about_keys prose_about_rotation reset_flow chat_about_secret
    documentation_excerpt i18n_keys feature_flag
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import sys
import uuid

SEED = 90317
_ALPHABETS = {
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "a": string.ascii_letters + string.digits,
    "l": string.ascii_lowercase + string.digits,
    "U": string.ascii_uppercase + string.digits,
    "d": string.digits,
    "b": string.ascii_letters + string.digits + "+/",
    "u": string.ascii_letters + string.digits + "-_",
    "w": string.ascii_lowercase,
    "c": "./" + string.ascii_letters + string.digits,
    "s": string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)",
}
_WORDS = ("harbor", "maple", "quartz", "falcon", "tundra", "velvet", "cobalt", "saffron")
_TOKEN = re.compile(r"\{\{([a-zA-Z])(\d*)\}\}")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _fill(rng: random.Random, code: str, n: int) -> str:
    """One generated value: {{h40}} hex, {{x}} uuid, {{P}} password, {{J0}} JWT, ..."""
    if code in _ALPHABETS:
        return "".join(rng.choice(_ALPHABETS[code]) for _ in range(n))
    if code == "x":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if code == "P":  # a human-chosen password
        a, b = rng.sample(_WORDS, 2)
        sym = rng.choice("!#$%&*?@-_.")
        return f"{a.capitalize()}{sym}{b}{rng.randrange(10, 9999)}"
    if code == "J":  # J0: user access token, J1: Supabase service-role key
        now = 1_764_000_000 + rng.randrange(10**7)
        if n == 1:
            claims = {"iss": "supabase", "ref": _fill(rng, "w", 20), "role": "service_role"}
        else:
            claims = {"sub": _fill(rng, "x", 0), "scope": "orders:read orders:write"}
        claims |= {"iat": now, "exp": now + 3600 * (1 + n * 87600)}
        head = _b64url(b'{"alg":"HS256","typ":"JWT"}')
        body = _b64url(json.dumps(claims, separators=(",", ":")).encode())
        return f"{head}.{body}.{_fill(rng, 'u', 43)}"
    if code == "K":  # n lines of a PEM body
        return "\n".join(_fill(rng, "b", 64) for _ in range(n))
    if code == "C":  # HTTP basic credentials
        user = rng.choice(["svc-jira", "deploy", "reporter", "ci"])
        return base64.b64encode(f"{user}:{_fill(rng, 'P', 0)}".encode()).decode()
    if code == "E":  # a base64-encoded API key, as in a k8s Secret's data:
        return base64.b64encode(f"sk-proj-{_fill(rng, 'u', 48)}".encode()).decode()
    if code == "f":  # colon-separated fingerprint of n bytes
        return ":".join(f"{rng.randrange(256):02X}" for _ in range(n))
    raise ValueError(code)


# One kind a line: s|kind|text ‖ text ... (b| for benign); "¶" breaks a line, {{..}} is generated.
_DATA = r"""
s|aws_access_key|Deploy user for the nightly export: AWS_ACCESS_KEY_ID=AKIA{{U16}} AWS_SECRET_ACCESS_KEY={{b40}} (region eu-west-1). Rotate after the migration. ‖ [default]¶aws_access_key_id = AKIA{{U16}}¶aws_secret_access_key = {{b40}}¶region = us-east-2 ‖ export AWS_ACCESS_KEY_ID="AKIA{{U16}}"¶export AWS_SECRET_ACCESS_KEY="{{b40}}"¶aws s3 sync ./dist s3://marketing-site-prod --delete
s|aws_secret_key|boto3.client("s3", aws_access_key_id=os.environ["AWS_KEY_ID"], aws_secret_access_key="{{b40}}")  # TODO move to env before merging ‖ Handover: the legacy uploader on ingest-02 still has aws_secret_access_key={{b40}} hardcoded in /opt/uploader/settings.ini (key id ends in {{U4}}).
s|aws_session_token|STS creds for the debugging session, valid 12h:¶AWS_ACCESS_KEY_ID=ASIA{{U16}}¶AWS_SECRET_ACCESS_KEY={{b40}}¶AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE{{b180}}
s|github_pat|git remote set-url origin https://ghp_{{a36}}@github.com/acme-data/etl-jobs.git ‖ GH token for the release bot (repo + workflow scopes): ghp_{{a36}} ‖ Note to self: `gh auth login --with-token <<< ghp_{{a36}}` worked, the SSO authorisation was the missing step.
s|github_fine_grained|Fine-grained PAT for the docs sync, read-only on acme/docs, expires in March: github_pat_11{{U7}}0{{a12}}_{{a59}} ‖ {"github": {"token": "github_pat_11{{U7}}0{{a12}}_{{a59}}", "org": "northwind-labs"}}
s|github_oauth|Copied from ~/.config/gh/hosts.yml on the old laptop:¶github.com:¶    oauth_token: gho_{{a36}}¶    user: mpetrov¶    git_protocol: ssh ‖ curl -H "Authorization: token gho_{{a36}}" "https://api.github.com/user/repos?per_page=100"
s|github_app_token|The installation token the app minted during the failed run was ghs_{{a36}}; it expires within the hour but let's not paste it in Slack again. ‖ GITHUB_USER_TOKEN=ghu_{{a36}}  # user-to-server token for the probot dev instance
s|gitlab_pat|glpat-{{u20}} is the project access token for the mirror job (maintainer role), created 2026-11-02. ‖ git clone https://oauth2:glpat-{{u20}}@gitlab.example-corp.net/platform/terraform-modules.git
s|gitlab_runner_token|sudo gitlab-runner register --url https://gitlab.com/ --registration-token GR1348941{{u20}} --executor docker --description build-04
s|slack_bot_token|SLACK_BOT_TOKEN=xoxb-{{d12}}-{{d13}}-{{a24}} ‖ const slack = new WebClient('xoxb-{{d11}}-{{d13}}-{{a24}}'); // standup bot
s|slack_user_token|Found a user token in the old cron script: xoxp-{{d12}}-{{d12}}-{{d13}}-{{h32}}. It belongs to the ex-employee account, revoke it.
s|slack_webhook|Alerts go to #ops-alerts via https://hooks.slack.com/services/T{{U8}}/B{{U10}}/{{a24}} ‖ notify:¶  slack:¶    webhook_url: "https://hooks.slack.com/services/T{{U10}}/B{{U11}}/{{a24}}"¶    channel: "#deploys"
s|stripe_secret_key|STRIPE_SECRET_KEY=sk_live_51{{a97}} ‖ \Stripe\Stripe::setApiKey('sk_live_{{a24}}'); ‖ Billing incident 11/28: prod charged in test mode because the test key was in Vault. The correct live key is sk_live_51{{a97}} (fixed in Vault too).
s|stripe_restricted_key|Restricted key for the analytics export (read on charges + customers): rk_live_51{{a97}} ‖ stripe listen --api-key rk_live_{{a24}} --forward-to localhost:4242/webhook
s|stripe_webhook_secret|STRIPE_WEBHOOK_SECRET=whsec_{{a32}} ‖ endpoint_secret = "whsec_{{a32}}"¶event = stripe.Webhook.construct_event(payload, sig_header, endpoint_secret)
s|openai_key|OPENAI_API_KEY=sk-proj-{{u64}}T3BlbkFJ{{u64}} ‖ client = OpenAI(api_key="sk-{{a20}}T3BlbkFJ{{a20}}")  # old-style key, the eval notebook ‖ La clé OpenAI du projet d'évaluation est sk-proj-{{u48}}T3BlbkFJ{{u48}}, ne pas la partager en dehors de l'équipe ML.
s|anthropic_key|ANTHROPIC_API_KEY=sk-ant-api03-{{u93}}AA ‖ export ANTHROPIC_API_KEY='sk-ant-api03-{{u93}}AA' && python run_evals.py --n 200 ‖ Admin key for the usage reports: sk-ant-admin01-{{u93}}AA (only finance-bot should use it).
s|google_api_key|Server-side geocoding key (restricted to our egress IPs, never ship it in the app): GOOGLE_GEOCODING_KEY=AIza{{u35}} ‖ client = genai.Client(api_key="AIza{{u35}}")
s|gcp_service_account|{"type": "service_account", "project_id": "ml-feature-store", "private_key_id": "{{h40}}", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC{{b32}}\n{{b64}}\n-----END PRIVATE KEY-----\n", "client_email": "trainer@ml-feature-store.iam.gserviceaccount.com"} ‖ GOOGLE_CREDENTIALS='{"type":"service_account","private_key_id":"{{h40}}","private_key":"-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC{{b32}}\n{{b64}}\n-----END PRIVATE KEY-----\n","client_id":"{{d21}}"}'
s|google_oauth_client_secret|Google OAuth web client for the admin panel: client id {{d12}}-{{l32}}.apps.googleusercontent.com, secret GOCSPX-{{u28}} ‖ {"web":{"client_id":"{{d12}}-{{l32}}.apps.googleusercontent.com","client_secret":"GOCSPX-{{u28}}","redirect_uris":["https://admin.example.org/oauth2/callback"]}}
s|google_refresh_token|refresh_token: 1//0{{u100}}  # from the OAuth playground, grants gmail.send on the support@ mailbox ‖ {"access_token":"ya29.{{u120}}","expires_in":3599,"refresh_token":"1//0{{u90}}","scope":"https://www.googleapis.com/auth/drive.readonly","token_type":"Bearer"}
s|azure_storage_key|DefaultEndpointsProtocol=https;AccountName=stfeedsprod;AccountKey={{b86}}==;EndpointSuffix=core.windows.net ‖ az storage blob upload --account-name stlogsarchive --account-key "{{b86}}==" -c raw -f dump.tar.gz
s|azure_client_secret|AZURE_TENANT_ID={{x}}¶AZURE_CLIENT_ID={{x}}¶AZURE_CLIENT_SECRET={{a3}}8Q~{{u34}} ‖ Service principal for the AKS deploy pipeline: appId {{x}}, password {{a3}}7Q~{{u34}}, tenant {{x}}.
s|azure_sas_token|SAS URL for the vendor upload container: https://stvendordrop.blob.core.windows.net/inbox?sv=2022-11-02&ss=b&srt=co&sp=rwl&se=2027-01-31T00:00:00Z&sig={{b43}}%3D
s|azure_devops_pat|AZDO PAT (Code: read & write) for the repo migration script: {{l52}}
s|twilio_auth_token|TWILIO_ACCOUNT_SID=AC{{h32}}¶TWILIO_AUTH_TOKEN={{h32}} ‖ client = Client("AC{{h32}}", "{{h32}}")  # SMS OTP sender
s|twilio_api_key|Twilio API key SK{{h32}} with secret {{a32}}, used by the video service.
s|sendgrid_key|SENDGRID_API_KEY=SG.{{u22}}.{{u43}} ‖ sg = SendGridAPIClient("SG.{{u22}}.{{u43}}")
s|mailgun_key|MAILGUN_API_KEY=key-{{h32}}  (domain mg.example-shop.com) ‖ curl -s --user 'api:{{h32}}-{{h8}}-{{h8}}' https://api.mailgun.net/v3/mg.example-shop.com/messages -F to=ops@example-shop.com -F subject=test
s|npm_token|//registry.npmjs.org/:_authToken=npm_{{a36}} ‖ NPM_TOKEN=npm_{{a36}} (automation token, publish rights on @acme)
s|pypi_token|[pypi]¶  username = __token__¶  password = pypi-AgEIcHlwaS5vcmcC{{u150}} ‖ twine upload dist/* -u __token__ -p pypi-AgEIcHlwaS5vcmcC{{u120}}
s|docker_hub_pat|echo dckr_pat_{{u27}} | docker login -u acmebuild --password-stdin ‖ DOCKERHUB_TOKEN: dckr_pat_{{u27}}
s|registry_auth|~/.docker/config.json on the build VM:¶{"auths": {"registry.example.io": {"auth": "{{C}}"}}}
s|huggingface_token|HF_TOKEN=hf_{{a34}} ‖ huggingface-cli login --token hf_{{a34}}  # write token, needed to push the fine-tuned checkpoint
s|discord_bot_token|DISCORD_TOKEN=M{{a25}}.{{u6}}.{{u38}} ‖ client.run("MT{{a24}}.{{u6}}.{{u38}}")
s|telegram_bot_token|TELEGRAM_BOT_TOKEN={{d10}}:AA{{u33}} ‖ Bot für die Lagerbenachrichtigungen: Token {{d10}}:AA{{u33}}, Chat-ID -100{{d10}}.
s|shopify_token|SHOPIFY_ADMIN_TOKEN=shpat_{{h32}} ‖ Shopify custom app "erp-sync", Admin API access token: shpat_{{h32}} (store acme-outdoor.myshopify.com)
s|digitalocean_token|doctl auth init -t dop_v1_{{h64}} ‖ provider "digitalocean" {¶  token = "dop_v1_{{h64}}"¶}
s|heroku_api_key|HEROKU_API_KEY={{x}} ‖ Heroku API key for the review-app pipeline: HRKU-AA{{u58}}
s|datadog_api_key|DD_API_KEY={{h32}}¶DD_APP_KEY={{h40}}¶DD_SITE=datadoghq.eu ‖ datadog:¶  apiKey: {{h32}}¶  site: datadoghq.com¶  logs:¶    enabled: true
s|sentry_auth_token|SENTRY_AUTH_TOKEN=sntrys_eyJpYXQiOj{{u110}} ‖ sentry-cli --auth-token sntryu_{{h64}} releases files 2026.12.1 upload-sourcemaps ./build
s|jwt_bearer|curl -H "Authorization: Bearer {{J0}}" https://api.internal.example.com/v2/orders?status=open ‖ Repro for the 403: the token was {{J0}} and the same token works on staging. ‖ GET /api/me HTTP/1.1¶Host: app.example.com¶Authorization: Bearer {{J0}}¶Accept: application/json
s|supabase_service_role|SUPABASE_SERVICE_ROLE_KEY={{J1}} ‖ const supabase = createClient('https://{{w20}}.supabase.co', '{{J1}}') // service role, server only!
s|session_cookie|Cookie: sessionid={{l32}}; csrftoken={{a64}} ‖ To reproduce as the customer, set _shop_session={{b120}}--{{h40}} in devtools (copied from their browser with permission). ‖ Set-Cookie: connect.sid=s%3A{{u32}}.{{b43}}; Path=/; HttpOnly; Secure ‖ PHPSESSID={{l26}} is logged in as the admin; paste it in the browser to skip 2FA while debugging.
s|private_key_rsa|-----BEGIN RSA PRIVATE KEY-----¶MIIEpAIBAAKCAQEA{{b48}}¶{{K6}}¶-----END RSA PRIVATE KEY-----
s|private_key_openssh|Deploy key for the ansible box (no passphrase):¶-----BEGIN OPENSSH PRIVATE KEY-----¶b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW{{b22}}¶{{K4}}¶-----END OPENSSH PRIVATE KEY-----
s|private_key_ec|tls:¶  cert: /etc/edge/tls.crt¶  key: |¶    -----BEGIN EC PRIVATE KEY-----¶    MHcCAQEEI{{b55}}¶    {{b64}}¶    -----END EC PRIVATE KEY-----
s|private_key_pkcs8|const privateKey = `-----BEGIN PRIVATE KEY-----¶MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ{{b14}}¶{{K5}}¶-----END PRIVATE KEY-----`;
s|pgp_private_key|-----BEGIN PGP PRIVATE KEY BLOCK-----¶¶lQdGBF{{b58}}¶{{K5}}¶={{b4}}¶-----END PGP PRIVATE KEY BLOCK-----
s|apple_p8_key|AuthKey_{{U10}}.p8 for App Store Connect uploads:¶-----BEGIN PRIVATE KEY-----¶MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg{{b16}}¶{{b64}}¶{{b24}}¶-----END PRIVATE KEY-----
s|db_url_password|DATABASE_URL=postgres://app_user:{{a20}}@db-prod.cluster-{{l12}}.eu-central-1.rds.amazonaws.com:5432/app ‖ mongodb+srv://analytics:{{a16}}@cluster0.{{l5}}.mongodb.net/events?retryWrites=true&w=majority ‖ REDIS_URL=redis://default:{{a32}}@redis-{{d5}}.c12.us-east-1-2.ec2.cloud.redislabs.com:{{d5}} ‖ celery broker is amqp://orders:{{a18}}@rabbit.internal:5672/%2F since the move to the new cluster
s|password_env|DB_HOST=10.0.4.12¶DB_USER=reporting¶DB_PASSWORD={{P}}¶DB_NAME=warehouse ‖ POSTGRES_PASSWORD={{a24}} ‖ export PGPASSWORD='{{P}}'; psql -h pg-replica-2 -U readonly -d billing -c 'select count(*) from invoices' ‖ smtp_host=smtp.office365.com¶smtp_user=noreply@example-clinic.de¶smtp_pass={{P}}
s|password_cli|mysql -h 127.0.0.1 -P 3307 -u root -p'{{P}}' shop_prod < fix_orders.sql ‖ sshpass -p '{{P}}' ssh admin@192.168.10.20 'sudo systemctl restart nginx' ‖ curl -u ci-bot:{{a20}} https://nexus.example.net/repository/maven-releases/ -T target/app-1.4.2.jar ‖ $ docker login registry.example.io -u deployer -p {{a24}}¶WARNING! Using --password via the CLI is insecure. Use --password-stdin.¶Login Succeeded
s|password_prose|The router admin UI is at 192.168.1.1, user admin, password {{P}} (changed from the default last week). ‖ Weekend on-call: if Grafana locks you out, log in as the break-glass user "emergency" with {{P}} and file a ticket afterwards. ‖ Passwort für den Jenkins-Admin ist jetzt {{P}}, bitte nicht ins Wiki schreiben. ‖ La contraseña del usuario de replicación es {{P}}; la cambié después del incidente del martes.
s|k8s_secret_manifest|apiVersion: v1¶kind: Secret¶metadata:¶  name: payments-db¶type: Opaque¶stringData:¶  username: payments¶  password: {{P}} ‖ apiVersion: v1¶kind: Secret¶metadata:¶  name: api-keys¶data:¶  OPENAI_API_KEY: {{E}} ‖ kubectl create secret generic grafana-admin --from-literal=admin-user=admin --from-literal=admin-password='{{P}}' -n monitoring
s|app_secret_key|SECRET_KEY = '{{s50}}' ‖ app.config["SECRET_KEY"] = "{{h64}}" ‖ Rails master key for the storefront (config/master.key, not in git): {{h32}} ‖ NEXTAUTH_SECRET={{b43}}=
s|encryption_key|FIELD_ENCRYPTION_KEY={{u43}}=  # Fernet, encrypts the SSN column ‖ const key = Buffer.from('{{h64}}', 'hex'); // AES-256-GCM key for the export archives ‖ APP_KEY=base64:{{b43}}=
s|jwt_signing_secret|JWT_SECRET={{a64}} ‖ jwt.sign(payload, "{{a48}}", { expiresIn: "7d" })
s|webhook_signing_secret|GITHUB_WEBHOOK_SECRET={{h40}} ‖ The Shopify webhook HMAC secret for orders/create is {{h64}}; signatures failed because staging still had the old one.
s|oauth_client_secret|OAUTH_CLIENT_ID=web-portal¶OAUTH_CLIENT_SECRET={{a40}} ‖ spring:¶  security:¶    oauth2:¶      client:¶        registration:¶          keycloak:¶            client-id: order-service¶            client-secret: {{a32}} ‖ GitHub OAuth app "Acme SSO": client ID Iv1.{{h16}}, client secret {{h40}}.
s|oauth_refresh_token|Spotify refresh token for the playlist job (it doesn't expire): AQ{{u130}} ‖ {"token_type":"bearer","refresh_token":"{{a64}}","expires_in":7200,"scope":"read write"}  <- response from our own auth server, keep for the mobile repro
s|unprefixed_api_key|WEATHER_API_KEY={{h32}} ‖ headers = {"X-Api-Key": "{{a40}}", "Accept": "application/json"} ‖ The partner's API key for the shipping-rates endpoint is {{U8}}-{{U4}}-{{U4}}-{{U12}}; it has no IP allowlist, so treat it carefully. ‖ let apiKey = "{{a32}}" // RevenueCat secret API key, move to the backend
s|algolia_admin_key|Algolia admin API key (write access, backend indexer only): {{h32}}, app id {{U10}}
s|ci_variable|# .gitlab-ci.yml¶variables:¶  SONAR_TOKEN: "squ_{{h40}}"¶  SONAR_HOST_URL: "https://sonar.example.com" ‖ - name: Publish¶  run: npm publish¶  env:¶    NODE_AUTH_TOKEN: npm_{{a36}} ‖ environment:¶  CODECOV_TOKEN: {{x}}¶  CYPRESS_RECORD_KEY: {{x}}¶  MATCH_PASSWORD: {{P}} ‖ pipeline {¶  environment {¶    ARTIFACTORY_PASSWORD = '{{a24}}'¶  }¶  stages { stage('Publish') { steps { sh './gradlew publish' } } }¶}
s|dockerfile_secret|FROM python:3.12-slim¶ENV PIP_INDEX_URL=https://build:{{a24}}@pypi.internal.example.com/simple¶RUN pip install -r requirements.txt ‖ ARG NPM_TOKEN=npm_{{a36}}¶RUN echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > .npmrc && npm ci
s|compose_secret|# docker-compose.yml on vps-3 (prod)¶services:¶  db:¶    image: mysql:8.4¶    environment:¶      MYSQL_ROOT_PASSWORD: {{a20}}¶      MYSQL_DATABASE: crm ‖   minio:¶    image: minio/minio¶    environment:¶      MINIO_ROOT_USER: admin¶      MINIO_ROOT_PASSWORD: {{a32}}
s|basic_auth_header|Authorization: Basic {{C}} ‖ requests.get(url, headers={"Authorization": "Basic {{C}}"})  # jira service account
s|credentials_in_url|~/.netrc on the CI box:¶machine api.heroku.com¶  login ops@example.com¶  password {{x}} ‖ Webhook URL configured in the vendor portal: https://erp:{{a20}}@hooks.example-store.com/inbound/orders
s|package_index_credentials|pip install --extra-index-url https://__token__:{{a32}}@gitlab.example.com/api/v4/projects/88/packages/pypi/simple acme-ml-utils ‖ poetry config http-basic.private ci-reader {{a24}}
s|secret_in_stack_trace|Traceback (most recent call last):¶  File "/srv/app/sync.py", line 41, in <module>¶    conn = psycopg2.connect("host=10.2.0.7 dbname=crm user=sync password={{P}}")¶psycopg2.OperationalError: could not connect to server: Connection timed out ‖ 2026-12-03T09:14:22Z ERROR [payments] StripeError: invalid request (request_id=req_{{a14}}) api_key=sk_live_{{a24}} endpoint=/v1/refunds ‖ java.sql.SQLException: Access denied for user 'etl'@'10.1.3.4' (using password: YES)¶	at com.mysql.cj.jdbc.ConnectionImpl.<init> url=jdbc:mysql://db1:3306/dwh?user=etl&password={{a16}}
s|secret_in_diff|diff --git a/config/prod.yml b/config/prod.yml¶@@ -12,3 +12,3 @@¶ mailer:¶-  api_key: ${MAILER_API_KEY}¶+  api_key: {{h32}}-{{h8}}-{{h8}} ‖ -const API_TOKEN = process.env.LINEAR_TOKEN;¶+const API_TOKEN = "lin_api_{{a40}}"; // temp, revert before merge
s|linear_api_key|LINEAR_API_KEY=lin_api_{{a40}}
s|secret_in_code_comment|// old key, keep for rollback: AKIA{{U16}} / {{b40}}¶const s3 = new S3Client({ region: "eu-west-1" }); ‖ # the test tenant on prod logs in with qa@example.com / {{P}} (ask Tom)¶def test_login_prod_smoke(client):
s|secret_in_table|| Service | Key |¶|---|---|¶| geocoder | {{a32}} |¶| fx-rates | {{h40}} | ‖ | env | user | password |¶|-----|------|----------|¶| staging | svc_report | {{P}} |¶| prod | svc_report | {{P}} |
s|two_secrets|Moved everything to the new account. New OpenAI key sk-proj-{{u48}}T3BlbkFJ{{u48}} and Pinecone key pcsk_{{a6}}_{{u60}} are in the notebook env cell for now. ‖ .env for the bot:¶TELEGRAM_TOKEN={{d10}}:AA{{u33}}¶OPENWEATHER_KEY={{h32}}
s|secret_in_long_note|Sprint 48 retro. Went well: the queue migration finished two days early, the flaky checkout test is fixed (timezone issue in the fixture), and the new dashboards helped on Black Friday. Didn't: we lost half a day because staging Redis ran out of memory, and the search reindex still takes 3h. Actions: Maria adds eviction alerts, Jon looks at batching the reindex, and for the record the new staging admin password is {{P}} until we move it to 1Password. Next retro on the 19th. ‖ Incident 2026-11-14 (checkout 502s, 38 min). 14:02 deploy of api v3.18; 14:05 error rate 40%; 14:11 rollback started; 14:20 found the new pod could not reach Stripe because STRIPE_KEY was empty in the Helm release; 14:31 patched by hand with kubectl set env deploy/api STRIPE_KEY=sk_live_{{a24}}; 14:40 recovered. Follow-up: move the key into the sealed secret.
s|terraform_creds|provider "aws" {¶  region     = "us-west-2"¶  access_key = "AKIA{{U16}}"¶  secret_key = "{{b40}}"¶} ‖ resource "aws_db_instance" "main" {¶  engine         = "postgres"¶  username       = "dbadmin"¶  password       = "{{P}}"¶  instance_class = "db.t4g.medium"¶}
s|helm_values_secret|# values-prod.yaml¶postgresql:¶  auth:¶    postgresPassword: "{{a24}}"¶    database: keycloak ‖ helm upgrade --install grafana grafana/grafana -n obs --set adminPassword='{{P}}' --set persistence.enabled=true
s|vault_token|VAULT_ADDR=https://vault.example.net:8200¶VAULT_TOKEN=hvs.{{u90}} ‖ Root token from the unseal ceremony: hvs.{{a24}} (the unseal keys are with the three key holders).
s|atlassian_api_token|JIRA_API_TOKEN=ATATT3xFfGF0{{u170}}={{H8}} ‖ jira = JIRA("https://acme.atlassian.net", basic_auth=("bot@acme.io", "ATATT3xFfGF0{{u170}}={{H8}}"))
s|fcm_server_key|FCM legacy server key (still used by the Android push worker): AAAA{{u7}}:APA91b{{u134}}
s|cloudflare_api_token|CLOUDFLARE_API_TOKEN={{u40}}  # Zone.DNS edit on example.com ‖ Cloudflare global API key for ops@example.com: {{h37}}
s|smtp_password|EMAIL_HOST_PASSWORD = "{{w4}} {{w4}} {{w4}} {{w4}}"  # Gmail app password for the alerts mailbox ‖ <smtp host="mail.example.nl" port="587" user="facturen@example.nl" password="{{P}}" tls="true"/>
s|kubeconfig_token|users:¶- name: ci-deployer¶  user:¶    token: {{J0}} ‖ users:¶- name: admin¶  user:¶    client-certificate-data: LS0tLS1CRUdJTi{{b60}}¶    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo{{b80}}
s|mapbox_secret_token|MAPBOX_DOWNLOADS_TOKEN=sk.eyJ1Ijoi{{u60}}.{{u22}}  (secret scope downloads:read, for the iOS SDK)
s|new_relic_key|NEW_RELIC_LICENSE_KEY={{h36}}NRAL¶NEW_RELIC_API_KEY=NRAK-{{U27}}
s|grafana_token|GRAFANA_SA_TOKEN=glsa_{{a32}}_{{h8}}
s|databricks_token|$ databricks configure --token¶Databricks Host: https://adb-{{d16}}.7.azuredatabricks.net¶Token: dapi{{h32}}
s|dbt_profile_password|analytics:¶  target: prod¶  outputs:¶    prod:¶      type: snowflake¶      account: xy12345.eu-central-1¶      user: DBT_PROD¶      password: "{{P}}"¶      role: TRANSFORMER
s|wandb_api_key|wandb login {{h40}}
s|okta_api_token|OKTA_ORG_URL=https://acme.okta.com¶OKTA_API_TOKEN=00{{u40}}
s|postman_api_key|Postman API key for the collection sync: PMAK-{{h24}}-{{h34}}
s|square_access_token|SQUARE_ACCESS_TOKEN=EAAA{{u60}}
s|paypal_secret|PAYPAL_CLIENT_ID=A{{u79}}¶PAYPAL_CLIENT_SECRET=E{{u79}}
s|age_secret_key|# created: 2026-11-30T10:12:44Z¶# public key: age1{{l58}}¶AGE-SECRET-KEY-1{{U58}}
s|wireguard_private_key|[Interface]¶PrivateKey = {{b43}}=¶Address = 10.8.0.2/24¶¶[Peer]¶PublicKey = {{b43}}=¶Endpoint = vpn.example.org:51820
s|ansible_inventory_password|[web]¶10.0.1.5 ansible_user=deploy ansible_ssh_pass={{P}} ansible_become_pass={{P}}
s|ansible_vault_password|Ansible vault password for the prod inventory: {{P}} (was in ~/.vault_pass on the old jump host)
s|wifi_password|Office Wi-Fi: SSID Acme-Staff, WPA2 key {{P}}; the guest network is open.
s|totp_secret|2FA seed for the shared AWS root account: otpauth://totp/AWS:root?secret={{U32}}&issuer=Amazon
s|chat_pasted_token|[10:42] priya: here's the staging admin token, expires friday: {{a40}}¶[10:43] dan: thx ‖ @dan the mongo password for the analytics replica is {{P}}, user is `analyst`
s|dotnet_connection_string|<connectionStrings>¶  <add name="Main" connectionString="Server=sql01;Database=Orders;User Id=app;Password={{P}};" />¶</connectionStrings> ‖ "ConnectionStrings": { "Default": "Host=pg.internal;Database=crm;Username=crm;Password={{a20}}" }
s|spring_properties_password|spring.datasource.url=jdbc:postgresql://db:5432/orders¶spring.datasource.username=orders¶spring.datasource.password={{P}}
s|ini_password|[database]¶host = db.internal¶user = metabase¶password = {{P}}
s|gradle_properties_password|# ~/.gradle/gradle.properties¶ossrhUsername=acme-release¶ossrhPassword={{P}}¶signing.password={{P}}
s|android_keystore_password|signingConfigs {¶    release {¶        storeFile file("release.jks")¶        storePassword "{{P}}"¶        keyAlias "upload"¶        keyPassword "{{P}}"¶    }¶}
b|git_commit_sha|Bisected the regression to {{h40}} ("switch to orjson"); reverting it fixes the p99. ‖ git cherry-pick {{h7}} {{h7}} && git push origin release/2.8 ‖ Deployed api@{{h12}} to prod at 16:40 UTC, previous was {{h12}}. ‖ $ git log --oneline -3¶{{h7}} fix: handle empty cart¶{{h7}} chore: bump eslint¶{{h7}} feat: add gift cards
b|image_digest|image: ghcr.io/acme/worker@sha256:{{h64}} ‖ Pinned the base image to python:3.12-slim@sha256:{{h64}} so rebuilds stop drifting. ‖ $ docker images --digests | grep api¶registry.example.io/api   v3.18   sha256:{{h64}}   {{h12}}   2 days ago   212MB
b|request_id|Customer reported a failed payment, request id {{x}}, trace id {{h32}}. Looks like a timeout on the bank side. ‖ {"level":"warn","ts":"2026-12-04T11:03:51Z","msg":"slow query","request_id":"{{x}}","duration_ms":2314} ‖ Ticket #{{d6}}: correlation ID {{x}}, happened twice this morning.
b|span_id|otel: trace_id={{h32}} span_id={{h16}} parent_span_id={{h16}} service=checkout
b|file_checksum|Release checksums:¶{{h64}}  graphit-1.9.0.tar.gz¶{{h64}}  graphit-1.9.0-py3-none-any.whl ‖ md5 of training shard 07 is {{h32}}; it matches the manifest, so the corruption is elsewhere. ‖ Verified the ISO: SHA1 {{h40}} matches the vendor page.
b|aws_arn|Lambda role: arn:aws:iam::{{d12}}:role/service-role/thumbnailer-role-{{l8}} ‖ The bucket policy lets arn:aws:iam::{{d12}}:root (the data account) GetObject on arn:aws:s3:::acme-raw-events/*.
b|aws_account_id|AWS accounts: prod {{d12}}, staging {{d12}}, sandbox {{d12}}.
b|aws_docs_example_key|The AWS docs example pair AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is what we use in the moto unit tests; it is the documented dummy value.
b|dummy_dev_credentials|LocalStack accepts any credentials, so docker-compose.dev.yml sets AWS_ACCESS_KEY_ID=test and AWS_SECRET_ACCESS_KEY=test. ‖ docker run -e POSTGRES_PASSWORD=postgres -p 5432:5432 postgres:16  # throwaway local test db, same in CI
b|stripe_publishable_key|STRIPE_PUBLISHABLE_KEY=pk_live_51{{a97}} ‖ <script>const stripe = Stripe('pk_live_{{a24}}');</script> ‖ The publishable key (pk_live_{{a24}}) is fine in the mobile app; the secret key stays on the server.
b|firebase_web_config|const firebaseConfig = {¶  apiKey: "AIza{{u35}}",¶  authDomain: "acme-chat.firebaseapp.com",¶  projectId: "acme-chat",¶  appId: "1:{{d12}}:web:{{h22}}"¶}; ‖ google-services.json has "current_key": "AIza{{u35}}"; that's the Android client key, restricted by package name and SHA-1, and it is meant to ship in the APK.
b|sentry_dsn|Sentry.init({ dsn: "https://{{h32}}@o{{d6}}.ingest.sentry.io/{{d7}}", tracesSampleRate: 0.1 }); ‖ SENTRY_DSN for the browser bundle: https://{{h32}}@o{{d6}}.ingest.us.sentry.io/{{d7}} (public DSN, it's in the JS anyway)
b|public_by_design_key|NEXT_PUBLIC_POSTHOG_KEY=phc_{{a43}} ‖ reCAPTCHA site key: 6L{{u38}} (the secret key is in Vault at kv/web/recaptcha). ‖ Algolia search-only API key for the docs widget: {{h32}} (app id {{U10}}); safe to expose, it can only query the docs index. ‖ MAPBOX_PUBLIC_TOKEN=pk.eyJ1Ijoi{{u60}}.{{u22}}
b|ssh_public_key|ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{{b43}} maria@laptop ‖ Added to authorized_keys on bastion-1:¶ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{{b300}} ci-deploy@gitlab ‖ Deploy key (public half) registered on the repo: ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{{b87}}= deploy@build-03
b|pem_public_key|-----BEGIN PUBLIC KEY-----¶MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{{b28}}¶{{b58}}==¶-----END PUBLIC KEY-----
b|pem_certificate|ca.crt of the internal PKI (public, distribute freely):¶-----BEGIN CERTIFICATE-----¶MIIBszCCAVmgAwIBAgIU{{b44}}¶{{K4}}¶-----END CERTIFICATE----- ‖ $ openssl x509 -in tls.crt -noout -subject -serial¶subject=CN = api.example.com¶serial={{H32}}
b|jwks_public|{"keys":[{"kty":"RSA","kid":"{{h16}}","use":"sig","alg":"RS256","n":"{{u342}}","e":"AQAB"}]}
b|public_key_crypto|age public key for the backups: age1{{l58}} (share it freely; only the private half decrypts). ‖ [Peer]¶# laptop-maria¶PublicKey = {{b43}}=¶AllowedIPs = 10.8.0.5/32 ‖ VAPID public key for web push (goes in the frontend): B{{u86}} ‖ npub1{{l58}} is the project's Nostr account (public key) for release announcements.
b|placeholder_env|OPENAI_API_KEY=your-api-key-here ‖ # .env.example¶STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx¶STRIPE_WEBHOOK_SECRET=whsec_xxxxxxxxxxxxxxxx¶DATABASE_URL=postgres://user:password@localhost:5432/app ‖ SLACK_BOT_TOKEN=xoxb-your-token¶SLACK_SIGNING_SECRET=changeme ‖ AWS_SECRET_ACCESS_KEY=REPLACE_ME  # set in CI, never commit the real one
b|placeholder_angle|curl -H "Authorization: Bearer <YOUR_ACCESS_TOKEN>" https://api.example.com/v1/projects ‖ export GITHUB_TOKEN=<paste your PAT here> ‖ Before the first run, set `password: [YOUR_PASSWORD]` and `api_key: [API_KEY]` in config.yml.
b|placeholder_dots|ANTHROPIC_API_KEY=sk-ant-... goes into your shell profile; the CLI reads it from there. ‖ A classic GitHub token is ghp_ followed by 36 characters, e.g. ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX. ‖ mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/?retryWrites=true (copy from Atlas, fill in the user)
b|template_vars|- name: Deploy¶  run: ./deploy.sh¶  env:¶    AWS_ACCESS_KEY_ID: ${{ secrets.AWS_ACCESS_KEY_ID }}¶    AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }} ‖ env:¶  - name: DB_PASSWORD¶    value: {{ .Values.db.password | quote }} ‖ DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@${DB_HOST}:5432/${DB_NAME} ‖ db_password: "{{ vault_db_password }}"   # Ansible, the value comes from the vaulted group_vars
b|secret_reference|The Stripe key is in 1Password at op://Engineering/Stripe Prod/secret_key; start with `op run --env-file=.env.tpl -- npm start`. ‖ Vault path for the DB creds: secret/data/prod/orders-db (keys username, password). Rotate through the database engine, not by hand. ‖ The app reads arn:aws:secretsmanager:eu-west-1:{{d12}}:secret:prod/api/stripe-{{a6}} at boot. ‖ gcloud secrets versions access latest --secret=openai-api-key --project=ml-prod | wc -c
b|k8s_secret_ref|env:¶- name: REDIS_PASSWORD¶  valueFrom:¶    secretKeyRef:¶      name: redis-auth¶      key: password ‖ envFrom:¶  - secretRef:¶      name: api-env¶  - configMapRef:¶      name: api-config ‖ $ kubectl get secret api-env -n prod -o json | jq '.data | keys'¶["DATABASE_URL", "SENTRY_DSN", "STRIPE_KEY"]
b|external_secret|spec:¶  secretStoreRef:¶    name: aws-sm¶    kind: ClusterSecretStore¶  data:¶  - secretKey: password¶    remoteRef:¶      key: prod/payments/db¶      property: password
b|helm_no_secret|# values.yaml¶auth:¶  existingSecret: keycloak-admin¶  passwordKey: admin-password
b|key_metadata|App Store Connect API: issuer ID {{x}}, key ID {{U10}}; the .p8 itself is in the CI secret store.
b|secret_file_path|ssl_certificate     /etc/nginx/certs/fullchain.pem;¶ssl_certificate_key /etc/nginx/certs/privkey.pem; ‖ GOOGLE_APPLICATION_CREDENTIALS=/var/run/secrets/gcp/sa.json
b|password_hash|Admin row: email=admin@example.com, password_hash=$2b$12${{c53}} ‖ $argon2id$v=19$m=65536,t=3,p=4${{b22}}${{b43}} ‖ /etc/shadow on the test VM: deploy:$6${{c16}}${{c86}}:19700:0:99999:7::: ‖ Django stores pbkdf2_sha256$870000${{a22}}${{b43}}= and we rehash the old md5 ones on login.
b|doc_example_jwt|jwt.io's sample eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c decodes to John Doe; good for showing the three parts. ‖ A JWT header like {"alg":"RS256","typ":"JWT","kid":"{{h8}}"} is base64url-encoded as the first segment; the payload holds sub, iat and exp.
b|settings_no_value|SECRET_KEY = os.environ["DJANGO_SECRET_KEY"] ‖ api_key: SecretStr = Field(default=SecretStr(""), alias="PAYMENTS_API_KEY") ‖ const password = process.env.DB_PASSWORD ?? (() => { throw new Error("DB_PASSWORD not set"); })(); ‖ variable "db_password" {¶  type      = string¶  sensitive = true¶}
b|code_token_var|token = request.headers.get("Authorization", "").removeprefix("Bearer ") ‖ func (c *Client) SetToken(token string) { c.token = token } ‖ if (!secretKey) return res.status(500).json({ error: "missing secret" }); ‖ private static final String PASSWORD_FIELD = "password";
b|config_named_secret|[auth]¶secret_key_path = /run/secrets/app_key¶token_ttl = 3600¶password_min_length = 10 ‖ token_endpoint: https://login.example.com/oauth2/token¶jwks_uri: https://login.example.com/.well-known/jwks.json ‖ KEY_ROTATION_DAYS=90¶SESSION_COOKIE_SECURE=true¶PASSWORD_HASHERS=argon2
b|base64_data|$ echo eyJlbnYiOiJzdGFnaW5nIiwicmVnaW9uIjoiZXUtd2VzdC0xIn0= | base64 -d¶{"env":"staging","region":"eu-west-1"} ‖ <img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="> is the 1x1 spacer in the email template. ‖ The orders API returns next_cursor=eyJpZCI6IDQ4MjEzLCAidHMiOiAxNzMzNDAwMDAwfQ== which is just {"id": 48213, "ts": ...}. ‖ binaryData:¶  logo.svg: PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=
b|build_id|GitHub Actions run {{d10}} failed at the e2e step; re-run #2 passed. Artifact id {{d10}}. ‖ Build ID: {{x}}¶Status: SUCCESS¶Duration: 4m12s ‖ TestFlight build {{d5}} for 2026.12.{{d1}}, dSYM UUID {{x}}.
b|cache_key|Cache restored from key: node-modules-Linux-{{h64}} ‖ • Running build in 12 packages¶• Remote caching enabled¶web:build: cache hit, replaying logs {{h16}} ‖ Feed cache entries look like feed:v3:{{h12}}:page:2 with a 300s TTL.
b|asset_hash|dist/assets/index-{{u8}}.js   142.31 kB │ gzip: 45.10 kB¶dist/assets/index-{{u8}}.css   18.02 kB ‖ <link rel="stylesheet" href="/static/css/main.{{h8}}.chunk.css"> ‖ CloudFront invalidation for /app.{{h20}}.js created, id I{{U13}}.
b|sri_hash|<script src="https://cdn.jsdelivr.net/npm/alpinejs@3.14.1/dist/cdn.min.js" integrity="sha384-{{b64}}" crossorigin="anonymous"></script>
b|csp_nonce|Docs example: Content-Security-Policy: script-src 'nonce-{{b22}}=='; the matching <script nonce="..."> tag gets the same value. ‖ Every response gets a fresh CSP nonce (e.g. {{b16}}), so logging it is harmless.
b|invite_code|Team invite for the hackathon Discord: https://discord.gg/{{a8}} (share with everyone). ‖ Referral code for new customers this quarter: ACME-{{U6}} (20% off, printed on the flyer). ‖ Beta invite codes for the press list: {{U4}}-{{U4}}, {{U4}}-{{U4}}, {{U4}}-{{U4}}.
b|promo_code|Black Friday code WINTER{{d2}}-{{U5}} is live in the storefront banner.
b|tracking_number|UPS tracking for the replacement server: 1Z{{U6}}{{d10}} ‖ The laptop went out via DHL, waybill {{d10}}; the monitors via FedEx, {{d12}}. ‖ Sendungsnummer der Rücksendung: {{d20}} (DHL Paket).
b|vehicle_id|Fleet vehicle KA-{{U2}} {{d4}}, VIN {{U17}}, telematics device {{h12}}. ‖ Van with plate {{U3}}-{{d4}} reported GPS gaps between 09:00 and 09:40.
b|test_fixture_password|def test_login_rejects_wrong_password(client):¶    user = UserFactory(password="correct horse battery staple")¶    assert client.post("/login", data={"email": user.email, "password": "wrong"}).status_code == 401 ‖ Local dev: `docker compose up`, then log in at localhost:8080 as admin / admin (seeded by fixtures/dev_users.json). ‖ cy.get('#password').type('Password123!') // Cypress fixture user, recreated in every CI run ‖ In the tutorial we create a user with `createuser demo --password demo` against the throwaway SQLite db.
b|test_card|Stripe test card 4242 4242 4242 4242, any future expiry, CVC 123; 4000 0000 0000 9995 simulates insufficient funds.
b|masked_value|The Stripe dashboard shows the key as sk_live_••••••••{{a4}}, created Nov 3; that's the one the worker uses. ‖ OPENAI_API_KEY=sk-proj-****************************{{a4}} (masked in the CI log) ‖ db:¶  user: app¶  password: ******** ‖ | Name | Value |¶|---|---|¶| DB_PASSWORD | `••••••` |¶| DB_HOST | db.internal |
b|redacted_log|2026-12-01 10:22:31 INFO auth: login ok user=jdoe token=[REDACTED] ip=10.0.3.18 ‖ POST /oauth/token client_id=mobile-app client_secret=<redacted> grant_type=refresh_token -> 200 ‖ {"event":"db.connect","dsn":"postgresql://app:***@db-prod:5432/app","ok":true}
b|key_prefix_reference|Customer says a key starting with sk_live_51Q stopped working; we only keep the last four ({{a4}}), so ask which one.
b|prose_about_keys|Decision: API keys are scoped per environment, and a leaked staging key must never work against prod. ‖ Reminder: Stripe secret keys start with sk_live_ and stay server-side; publishable keys start with pk_live_. ‖ Die API-Schlüssel werden jetzt alle 90 Tage automatisch rotiert; bitte keine Schlüssel mehr in Tickets kopieren. ‖ The auditors asked how we store passwords: bcrypt, cost 12, no plaintext anywhere, and resets use single-use tokens.
b|prose_about_rotation|Rotated the GitHub deploy token today (old one revoked); the new one is in the CI secret store as DEPLOY_TOKEN. ‖ Postmortem action item: move every webhook signing secret into Vault and add a pre-commit secret scanner. ‖ トークンの有効期限は24時間です。期限切れの場合はリフレッシュトークンで再取得してください。
b|reset_flow|Password reset tokens are 32 random bytes, stored hashed, single use, 30-minute TTL; the link is /reset?token=… and the token never hits the logs.
b|oauth_client_id|GOOGLE_CLIENT_ID={{d12}}-{{l32}}.apps.googleusercontent.com ‖ Auth0 SPA: domain acme.eu.auth0.com, clientId {{a32}}, audience https://api.acme.io (PKCE, no client secret). ‖ iOS bundle id com.acme.tracker, Apple team id {{U10}}, Sign in with Apple service id com.acme.tracker.web.
b|access_key_id_alone|The leaked access key id was AKIA{{U16}}; it's deactivated and deleted, and CloudTrail shows no use.
b|twilio_account_sid|Twilio account SID AC{{h32}} (not secret, it appears in every API URL); the auth token is in Vault.
b|package_integrity|"node_modules/lodash": {¶  "version": "4.17.21",¶  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",¶  "integrity": "sha512-{{b86}}=="¶} ‖ github.com/spf13/cobra v1.8.1 h1:{{b43}}= ‖ requests==2.32.3 \¶    --hash=sha256:{{h64}} ‖ [[package]]¶name = "serde"¶version = "1.0.215"¶source = "registry+https://github.com/rust-lang/crates.io-index"¶checksum = "{{h64}}"
b|object_id|Order document _id ObjectId("{{h24}}") has a null shipping address. ‖ Affected users usr_{{a24}} and usr_{{a24}} (Stripe customers cus_{{a14}}, cus_{{a14}}). ‖ Refund dispute: charge ch_{{a24}}, payment intent pi_{{a24}}.
b|sortable_ids|ULIDs sort by time: 01J{{U23}} was created before 01J{{U23}}. ‖ Public slugs: ksuid {{a27}}, nanoid {{u21}}.
b|slack_ids|Post to channel C{{U10}} (#releases) as user U{{U10}}; workspace T{{U8}}.
b|network_ids|NIC {{h2}}:{{h2}}:{{h2}}:{{h2}}:{{h2}}:{{h2}} on 10.20.30.41, link-local fe80::{{h4}}:{{h4}}:{{h4}}:{{h4}}
b|color_hex|Brand palette: primary #{{h6}}, accent #{{h6}}, background #{{h6}}.
b|i18n_keys|"auth.password.tooShort": "Das Passwort muss mindestens 12 Zeichen lang sein.",¶"auth.token.expired": "Deine Sitzung ist abgelaufen."
b|feature_flag|Flag new-checkout-flow is at 25% rollout in LaunchDarkly; client-side ID {{h24}}.
b|secret_regex|Pre-commit pattern: (?i)(api[_-]?key|secret|token)\s*[:=]\s*['"][A-Za-z0-9_\-]{20,}['"] ‖ [allowlist]¶description = "fixtures and docs"¶paths = ['''tests/fixtures/''', '''docs/examples/''']
b|env_var_names|Required env vars: DATABASE_URL, REDIS_URL, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, SENTRY_DSN, JWT_SECRET. ‖ $ env | cut -d= -f1 | grep -i -e key -e token¶OPENAI_API_KEY¶AWS_ACCESS_KEY_ID¶HF_TOKEN ‖ | Variable | Where set | Rotated |¶|---|---|---|¶| GITHUB_TOKEN | Actions (auto) | per run |¶| NPM_TOKEN | repo secrets | 2026-10 |
b|ci_masked_var|GitLab CI/CD variable NPM_TOKEN: protected yes, masked yes, expanded no, value hidden.
b|dockerfile_secret_mount|RUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci
b|gpg_fingerprint|Release signing key fingerprint: {{H4}} {{H4}} {{H4}} {{H4}} {{H4}}  {{H4}} {{H4}} {{H4}} {{H4}} {{H4}}
b|tls_fingerprint|Pinned leaf cert SHA-256 fingerprint: {{f32}}
b|password_policy|password_policy:¶  min_length: 12¶  require_symbols: true¶  max_age_days: 365¶  history: 5 ‖ aws iam update-account-password-policy --minimum-password-length 14 --require-numbers --password-reuse-prevention 24
b|curl_env_token|curl -sS -H "PRIVATE-TOKEN: $GITLAB_TOKEN" "https://gitlab.com/api/v4/projects/{{d8}}/pipelines?per_page=5" | jq '.[].status' ‖ gh api -H "Authorization: token ${GH_TOKEN}" /repos/acme/api/actions/runs ‖ Invoke-RestMethod -Uri $url -Headers @{ Authorization = "Bearer $env:AZURE_TOKEN" }
b|conn_string_no_password|DATABASE_URL=postgresql://app@localhost/app_dev?sslmode=disable  (peer auth, no password) ‖ mongodb://mongo-0.mongo,mongo-1.mongo,mongo-2.mongo:27017/?replicaSet=rs0&authSource=admin; the credentials come from the mounted secret. ‖ Server=tcp:sql-prod.database.windows.net,1433;Database=orders;Authentication=Active Directory Managed Identity;
b|idempotency_key|Retries send the same Idempotency-Key ({{x}}), so the double charge must come from somewhere else.
b|crypto_address|Donations: ETH 0x{{h40}}; the test payment's tx hash was 0x{{h64}}.
b|test_vector|sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad, the unit-test vector for our hashing wrapper. ‖ HMAC-SHA256 test case 1 from RFC 4231: key = 0x0b repeated 20 times, data = "Hi There".
b|uuid_misc|Grafana dashboard uid {{l9}}, datasource uid {{x}}.
b|version_strings|Crash from Chrome/131.0.6778.86 on google/oriole/oriole:15/AP4A.{{d6}}.{{d3}}/{{d8}}:user/release-keys
b|ml_ids|W&B run ml-team/ranker/{{l8}}, MLflow run id {{h32}}, checkpoint at step 42000. ‖ Model revision on the Hub: {{h40}} (bert-base-uncased fine-tune), dataset revision {{h40}}.
b|random_filenames|Uploads land in s3://acme-uploads/{{h2}}/{{h32}}.jpg; the name is the content hash, not the user.
b|short_link|Short link for the customer survey: https://bit.ly/{{a7}}
b|xml_settings|<appSettings>¶  <add key="EnablePasswordReset" value="true" />¶  <add key="ApiBaseUrl" value="https://api.example.com" />¶</appSettings>
b|terraform_random_password|resource "random_password" "db" {¶  length  = 32¶  special = true¶}¶# used as aws_db_instance.main.password = random_password.db.result
b|openapi_security|components:¶  securitySchemes:¶    ApiKeyAuth:¶      type: apiKey¶      in: header¶      name: X-API-Key
b|sql_schema|CREATE TABLE api_keys (id uuid PRIMARY KEY, prefix text NOT NULL, key_hash bytea NOT NULL, created_at timestamptz DEFAULT now());
b|git_credential_helper|[credential]¶	helper = osxkeychain¶[user]¶	email = dev@example.com
b|hmac_signature_header|X-Hub-Signature-256: sha256={{h64}}  (signature of that delivery's payload) ‖ Stripe-Signature: t={{d10}},v1={{h64}}
b|etag|The multipart upload's ETag is "{{h32}}-{{d2}}"; next request sent If-None-Match: W/"{{h27}}".
b|hardware_serial|YubiKey serial {{d8}} assigned to Jon; laptop serial C02{{U8}}.
b|oidc_spec_example|The OIDC spec examples use state=af0ifjsldkj and nonce=n-0S6_WzA2Mj; our app generates both per login.
b|documentation_excerpt|## Authentication¶Every request needs an `X-API-Key` header. Create a key under **Settings > API keys**; it is shown once.¶```¶curl -H "X-API-Key: $API_KEY" https://api.example.com/v1/ping¶```
b|chat_about_secret|[09:12] dan: did anyone rotate the sendgrid key?¶[09:13] priya: yes, the new one is in vault under kv/mail and the old one is revoked
b|password_generator_code|import secrets¶password = secrets.token_urlsafe(24)  # generated per user, emailed once, never stored in clear
"""  # noqa: E501


def corpus() -> list[dict]:
    """The rows, with values generated from a freshly seeded Random each call."""
    rng = random.Random(SEED)
    rows = []
    for line in _DATA.strip().splitlines():
        label, kind, texts = line.split("|", 2)
        for text in texts.split(" ‖ "):
            text = text.replace("¶", "\n")
            text = _TOKEN.sub(lambda m: _fill(rng, m.group(1), int(m.group(2) or 0)), text)
            row = {"label": {"s": "secret", "b": "benign"}[label], "kind": kind, "text": text}
            rows.append(row)
    return rows


def main(argv: list[str]) -> None:
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(argv) > 1:
        with open(argv[1], "w", encoding="utf-8") as out:
            out.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main(sys.argv)

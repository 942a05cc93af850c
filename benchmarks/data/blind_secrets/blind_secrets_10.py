"""Blind held-out corpus 10 for graphit's secret guard: secrets and look-alikes.

Each row is a memory a coding agent might write after a working session, labelled
"secret" (storing it would leak something that grants access to a real system) or
"benign" (harmless text that only looks like a credential). Written blind on 2026-12-06:
the author did not read the detector's rules, its tests, or any earlier corpus. Every
credential-shaped value is generated from a seeded random.Random; none is real.

Run:  python benchmarks/data/blind_secrets/blind_secrets_10.py [out.jsonl]   (or to stdout)
Rows: {"label": "secret" | "benign", "kind": "<kind>", "text": "<memory text>"}

Secret kinds, grouped:
  cloud: aws_key_pair aws_sts_session gcp_service_account google_api_key google_oauth_secret
    azure_storage_conn azure_sas azure_client_secret digitalocean_token heroku_api_key
    cloudflare_token vercel_token
  vcs/ci/registry: github_pat_classic github_pat_fine github_oauth github_app_token gitlab_pat
    gitlab_runner bitbucket_app_password git_remote_token npm_token npmrc_auth pypi_token
    index_url_creds docker_hub_pat docker_config_auth terraform_cloud_token pulumi_token
    vault_token
  saas/api: stripe_secret stripe_restricted stripe_webhook slack_bot slack_user slack_webhook
    discord_bot discord_webhook twilio_auth sendgrid_key mailgun_key openai_key anthropic_key
    hf_token wandb_key replicate_token datadog_keys newrelic_key sentry_token grafana_sa
    linear_key notion_token atlassian_token telegram_bot fcm_server_key mapbox_secret
    shopify_admin salesforce_token ngrok_token tailscale_authkey
  databases/urls: postgres_url mysql_cli_password redis_url mongodb_srv airflow_conn
    snowflake_password
  keys/files: rsa_private_key openssh_private_key ec_private_key wireguard_private
    age_secret_key jwt_bearer supabase_service_role k8s_sa_token basic_auth_header
    session_cookie rails_master_key django_secret_key
  human secrets: password_prose ssh_root_password wifi_password smtp_password
    android_keystore_pass apple_app_password wp_app_password mqtt_password netrc_login
    totp_seed recovery_codes
Benign kinds, grouped:
  hashes/ids: git_sha docker_digest container_id uuid_id ulid_id npm_integrity go_sum
    cargo_checksum lfs_oid file_sha256 mlflow_run wandb_run unity_guid etag cache_key
    build_chunk_hash tf_lock_id
  platform ids: aws_arn aws_account azure_tenant_ids stripe_object_ids stripe_publishable
    slack_ids salesforce_record_id shopify_gid github_app_ids twilio_sid_only ios_team_id
    google_client_id firebase_web_config mapbox_public sentry_dsn
  public keys: ssh_public_key pem_certificate public_key_pem gpg_fingerprint wireguard_public
    android_cert_fingerprint vapid_public eth_address
  placeholders/refs: aws_doc_example placeholder_value env_reference ci_secret_reference
    vault_path_ref manager_reference k8s_secret_ref redacted_value tf_sensitive_var
    code_reads_env wp_salt_placeholder
  encrypted/derived: ansible_vault_blob sops_blob sealed_secret rails_credentials_enc
    bcrypt_fixture key_hash_stored
  prose/other: token_word_prose password_policy auth_error_msg truncated_jwt regex_pattern
    test_fake_token local_dev_default android_debug_default used_otp random_seed
    base64_config data_uri hex_constants mac_and_eui version_build css_colors
    passphrase_example otel_trace_id k8s_resource_uid ipfs_cid csp_nonce rotation_log
    short_link_ids oauth_flow_prose spdx_and_license
"""

import base64
import json
import random
import re
import sys
import uuid

SEED = 38261

ALPHA = {
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "l": "abcdefghijklmnopqrstuvwxyz0123456789",
    "u": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "L": "abcdefghijklmnopqrstuvwxyz",
    "M": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "d": "0123456789",
    "b": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "B": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    "s": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    "c": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "x": "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)",
    "p": "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%&*+-=?@^_",
}
WORDS = ["Tulip", "Harbor", "Quartz", "Maple", "Falcon", "Ember", "Cobalt", "Willow", "Orbit"]


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _fill(rng: random.Random, code: str, n: int) -> str:
    if code in ALPHA:
        return "".join(rng.choice(ALPHA[code]) for _ in range(n))
    if code == "G":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if code == "W":
        return f"{rng.choice(WORDS)}-{rng.choice(WORDS)}{rng.randint(10, 99)}{rng.choice('!#%')}"
    if code == "J":
        head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
        claims = {"sub": _fill(rng, "G", 0), "iat": 1795000000 + rng.randint(0, 9999999)}
        claims["exp"] = claims["iat"] + 31536000
        body = _b64url(json.dumps(claims, separators=(",", ":")).encode())
        return f"{head}.{body}.{_fill(rng, 'B', 43)}"
    if code == "A":
        cred = f"{rng.choice(WORDS).lower()}:{_fill(rng, 'p', 18)}"
        return base64.b64encode(cred.encode()).decode()
    if code == "K":
        lines = [_fill(rng, "b", 64) for _ in range(n)] + [_fill(rng, "b", 28) + "=="]
        return "\n".join(lines)
    raise ValueError(code)


DATA = r"""
S|aws_key_pair|Deploy user for the Rails monolith: AWS_ACCESS_KEY_ID=AKIA<<s:16>> AWS_SECRET_ACCESS_KEY=<<b:40>> (region eu-west-1). Works for `bundle exec cap production deploy`.§§The Airflow S3 hook kept failing until I set aws_access_key_id = AKIA<<s:16>> and aws_secret_access_key = <<b:40>> in ~/.aws/credentials [pipeline] profile.§§Terraform monorepo: CI backend user keys are AKIA<<s:16>> / <<b:40>>; user asked not to rotate them until Friday.
S|aws_sts_session|Temporary creds from `aws sts assume-role` for the ML bucket, valid 12h: ASIA<<s:16>> secret <<b:40>> session token IQoJb3JpZ2luX2VjE<<b:180>>§§Pasted into .envrc for the Go fleet debugging: export AWS_ACCESS_KEY_ID=ASIA<<s:16>> AWS_SECRET_ACCESS_KEY=<<b:40>> AWS_SESSION_TOKEN=FwoGZXIvYXdzE<<b:160>>
S|gcp_service_account|ML repo: the training job reads gcs-writer.json: {"type": "service_account", "project_id": "vision-train-31", "private_key_id": "<<h:40>>", "private_key": "-----BEGIN PRIVATE KEY-----\n<<K:6>>\n-----END PRIVATE KEY-----\n", "client_email": "gcs-writer@vision-train-31.iam.gserviceaccount.com"}§§Firebase admin key for the Android backend (private_key_id <<h:40>>): -----BEGIN PRIVATE KEY-----\n<<K:5>>\n-----END PRIVATE KEY----- — keep in functions/.runtimeconfig only.
S|google_api_key|Maps Geocoding server-side key for the Django backend (unrestricted, billing enabled): GOOGLE_MAPS_SERVER_KEY=AIza<<B:35>>§§Der YouTube-Data-API-Schlüssel für den Airflow-Job lautet AIza<<B:35>>, Quota 10k/Tag, nicht im Frontend verwenden.§§Gemini key the user gave me for the eval scripts: AIza<<B:35>> — set as GEMINI_API_KEY before running make eval.
S|google_oauth_secret|Next.js NextAuth Google provider: GOOGLE_CLIENT_ID=<<d:12>>-<<l:32>>.apps.googleusercontent.com GOOGLE_CLIENT_SECRET=GOCSPX-<<B:28>>§§Web client secret for the admin SSO is GOCSPX-<<B:28>> (prod project), set in Vercel env, not preview.
S|azure_storage_conn|Function app settings: AzureWebJobsStorage=DefaultEndpointsProtocol=https;AccountName=stingestprod01;AccountKey=<<b:86>>==;EndpointSuffix=core.windows.net§§Blob uploads in the Unity build pipeline use AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=unitybuildcache;AccountKey=<<b:86>>==;EndpointSuffix=core.windows.net"
S|azure_sas|Container SAS for the nightly dbt export (expires 2027-06-30): https://dwexports.blob.core.windows.net/exports?sp=racwl&st=2026-12-01T00:00:00Z&se=2027-06-30T00:00:00Z&spr=https&sv=2022-11-02&sr=c&sig=<<b:43>>%3D§§Le jeton SAS pour le conteneur de sauvegarde : ?sv=2023-01-03&ss=b&srt=sco&sp=rwdlac&se=2027-01-31&sig=<<b:43>>%3D — utilisé par restic.
S|azure_client_secret|Terraform azurerm provider SP: ARM_CLIENT_ID=<<G:0>> ARM_CLIENT_SECRET=<<a:3>>8Q~<<a:34>> ARM_TENANT_ID=<<G:0>>§§Graph API app registration secret (expires 2027-03): <<a:3>>8Q~<<a:34>>; used by the Salesforce-to-Teams sync.
S|digitalocean_token|Home-lab: doctl auth init with token dop_v1_<<h:64>> (read/write), used by the external-dns container.§§WordPress agency droplets are managed with DIGITALOCEAN_TOKEN=dop_v1_<<h:64>> in ~/.config/doctl/config.yaml.
S|heroku_api_key|Legacy Rails staging still on Heroku; HEROKU_API_KEY=<<G:0>> lets `heroku pg:backups:capture -a shop-staging` run non-interactively.§§heroku auth:token printed <<G:0>> — saved it for the GitHub Action deploy step, user said that's fine for now.
S|cloudflare_token|Cloudflare API token (Zone.DNS edit for all zones) used by certbot dns plugin: dns_cloudflare_api_token = <<B:40>>§§Pages deploy from the Shopify theme repo needs CLOUDFLARE_API_TOKEN=<<B:40>> and CLOUDFLARE_ACCOUNT_ID=<<h:32>>.
S|vercel_token|Vercel CLI in CI: `vercel deploy --prod --token <<a:24>>` (team scope acme-web). Token belongs to the user's personal account.§§VERCEL_TOKEN=<<a:24>> — needed to pull env with `vercel env pull` in the Next.js repo.
S|github_pat_classic|User's classic PAT with repo+workflow scope for the release script: ghp_<<a:36>>§§Cloning the private submodule failed until I used https://ghp_<<a:36>>@github.com/acme/firmware-hal.git§§Renovate bot on the home-lab uses RENOVATE_TOKEN=ghp_<<a:36>>
S|github_pat_fine|Fine-grained PAT (contents:write on acme/terraform-live only): github_pat_11<<u:20>>_<<a:59>>§§Para el script de changelog uso GITHUB_TOKEN=github_pat_11<<u:20>>_<<a:59>>, caduca en 90 días.
S|github_oauth|gh CLI token from ~/.config/gh/hosts.yml on the build box: oauth_token: gho_<<a:36>>§§`gh auth token` printed gho_<<a:36>>; exported it as GH_TOKEN for the Go release job.
S|github_app_token|Installation token minted by the deploy app (valid 1h, but used in the cron right now): ghs_<<a:36>>§§The Actions runner registration token for the Unity self-hosted runner: A<<u:28>> — and the runner's app token ghs_<<a:36>>.
S|gitlab_pat|GitLab PAT for the embedded repo mirror (api, read_repository): glpat-<<B:20>>§§Terraform gitlab provider uses GITLAB_TOKEN=glpat-<<B:20>>; self-hosted instance at git.internal.acme.io.§§Pour cloner le dépôt firmware : git clone https://oauth2:glpat-<<B:20>>@gitlab.com/acme/fw-bootloader.git
S|gitlab_runner|Registered the Raspberry Pi runner with `gitlab-runner register --url https://gitlab.com --token glrt-<<B:20>>`§§config.toml on the CI VM: token = "glrt-<<B:20>>" (project runner for the Android app).
S|bitbucket_app_password|WordPress agency deploys pull from Bitbucket with app password ATBB<<a:32>><<H:8>> for user agency-deployer.§§Bitbucket pipelines clone of client-themes uses BB_AUTH=agency-deployer:ATBB<<a:32>><<H:8>>
S|git_remote_token|Remote 'origin' in the Salesforce repo is https://x-access-token:ghs_<<a:36>>@github.com/acme/sfdx-org.git — push works from there.§§Azure DevOps remote with PAT: https://build:<<l:52>>@dev.azure.com/acme/Platform/_git/infra
S|npm_token|Publishing the design system: NPM_TOKEN=npm_<<a:36>> (automation token, bypasses 2FA).§§`npm publish` works after `npm config set //registry.npmjs.org/:_authToken npm_<<a:36>>`
S|npmrc_auth|Project .npmrc for the private GitHub Packages scope: @acme:registry=https://npm.pkg.github.com  //npm.pkg.github.com/:_authToken=ghp_<<a:36>>§§Verdaccio on the home-lab: //npm.home.lan/:_auth=<<A:0>> in ~/.npmrc.
S|pypi_token|Release for the Rust CLI's Python wheel: twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcCJD<<B:140>>§§~/.pypirc [pypi] password = pypi-AgEIcHlwaS5vcmcCJD<<B:120>>
S|index_url_creds|pip config for the ML repo: extra-index-url = https://ml-bot:<<p:20>>@pypi.internal.acme.io/simple/§§uv works with UV_INDEX_URL=https://aws:<<b:200>>@acme-<<d:12>>.d.codeartifact.eu-west-1.amazonaws.com/pypi/ml/simple/
S|docker_hub_pat|docker login -u acmebuild with PAT dckr_pat_<<B:27>> fixed the rate-limit errors on the Go fleet CI.§§DOCKERHUB_TOKEN=dckr_pat_<<B:27>> in the Unity build server's env.
S|docker_config_auth|~/.docker/config.json on the jump host: {"auths": {"registry.acme.io": {"auth": "<<A:0>>"}}}§§Harbor robot account auth in the k8s imagePullSecret .dockerconfigjson: {"auths":{"harbor.lab":{"username":"robot$ci","password":"<<a:32>>"}}}
S|terraform_cloud_token|~/.terraform.d/credentials.tfrc.json: {"credentials": {"app.terraform.io": {"token": "<<a:14>>.atlasv1.<<a:67>>"}}}§§TF_TOKEN_app_terraform_io=<<a:14>>.atlasv1.<<a:67>> for the plan workflow.
S|pulumi_token|PULUMI_ACCESS_TOKEN=pul-<<h:40>> — org token for the Go services stack.§§Pulumi login in CI uses pul-<<h:40>>.
S|vault_token|Root token printed at vault operator init on the home-lab: hvs.<<a:24>> (unseal keys in the safe).§§VAULT_TOKEN=hvs.CAESI<<B:90>> — periodic token for the Kubernetes external-secrets operator.§§Vault-Token, den ich für Tests verwende: hvs.<<a:24>>, Policy admin.
S|stripe_secret|Rails monolith production Stripe key: STRIPE_SECRET_KEY=sk_live_51<<a:97>>§§Shopify-adjacent subscription service: Stripe::api_key = "sk_live_51<<a:97>>" hardcoded in config/initializers/stripe.rb — user wants it moved to credentials.§§Stripe CLI: stripe listen --api-key sk_live_51<<a:97>> --forward-to localhost:3000/webhooks
S|stripe_restricted|Restricted key for the analytics Airflow DAG (read charges only): rk_live_51<<a:97>>§§Clé Stripe restreinte pour le reporting : rk_live_51<<a:97>>
S|stripe_webhook|STRIPE_WEBHOOK_SECRET=whsec_<<a:32>> for the /webhooks/stripe endpoint in the Django app.§§Next.js route handler verifies with whsec_<<a:32>> (prod endpoint).
S|slack_bot|Deploy notifier bot: SLACK_BOT_TOKEN=xoxb-<<d:12>>-<<d:13>>-<<a:24>>, channel #deploys.§§Airflow on_failure_callback posts with token xoxb-<<d:12>>-<<d:13>>-<<a:24>>.§§Slackボットのトークン: xoxb-<<d:12>>-<<d:13>>-<<a:24>> (ホームラボの通知用)
S|slack_user|User token for the Slack export script (admin scopes): xoxp-<<d:12>>-<<d:12>>-<<d:13>>-<<h:32>>§§SLACK_USER_TOKEN=xoxp-<<d:12>>-<<d:12>>-<<d:13>>-<<h:32>>
S|slack_webhook|Incoming webhook for dbt test failures: https://hooks.slack.com/services/T<<u:8>>/B<<u:10>>/<<a:24>>§§The Terraform plan bot posts to https://hooks.slack.com/services/T<<u:8>>/B<<u:10>>/<<a:24>>
S|discord_bot|Unity game's community bot: DISCORD_TOKEN=MT<<a:24>>.G<<B:5>>.<<B:38>>§§Discord-Bot-Token fürs Homelab-Monitoring: MT<<a:24>>.G<<B:5>>.<<B:38>>
S|discord_webhook|Build results from the Unity cloud build go to https://discord.com/api/webhooks/<<d:19>>/<<B:68>>§§Uptime Kuma notifies via https://discord.com/api/webhooks/<<d:19>>/<<B:68>>
S|twilio_auth|SMS for 2FA in the Django backend: TWILIO_ACCOUNT_SID=AC<<h:32>> TWILIO_AUTH_TOKEN=<<h:32>>§§Twilio API key for the Go notifier: SK<<h:32>> with secret <<a:32>>.
S|sendgrid_key|Transactional mail from the Rails app: SENDGRID_API_KEY=SG.<<B:22>>.<<B:43>>§§Clave de SendGrid para WordPress (WP Mail SMTP): SG.<<B:22>>.<<B:43>>
S|mailgun_key|Mailgun sending key for the agency's contact forms: key-<<h:32>>, domain mg.clientsite.com.§§MAILGUN_API_KEY=<<h:32>>-<<h:8>>-<<h:8>> for the Celery email task.
S|openai_key|OPENAI_API_KEY=sk-proj-<<B:74>>T3BlbkFJ<<B:74>> — project key for the eval harness.§§Old key still used by the support-bot: sk-<<a:20>>T3BlbkFJ<<a:20>>§§OpenAI の API キー: sk-proj-<<B:74>>T3BlbkFJ<<B:74>>
S|anthropic_key|ANTHROPIC_API_KEY=sk-ant-api03-<<B:93>>AA set in the agent sandbox .env.§§The user's key for the summarizer job: sk-ant-api03-<<B:93>>AA (workspace "research").
S|hf_token|HF write token to push checkpoints: hf_<<M:34>>§§huggingface-cli login --token hf_<<M:34>> (needed for gated Llama weights).
S|wandb_key|WANDB_API_KEY=<<h:40>> on the training nodes (team acme-ml).§§~/.netrc: machine api.wandb.ai login user password <<h:40>>
S|replicate_token|REPLICATE_API_TOKEN=r8_<<a:37>> for the image pipeline.§§Replicate token used in the Next.js demo route: r8_<<a:37>>
S|datadog_keys|Datadog agent on the k8s fleet: DD_API_KEY=<<h:32>> DD_APP_KEY=<<h:40>>§§Terraform datadog provider: api_key = "<<h:32>>", app_key = "<<h:40>>"
S|newrelic_key|New Relic user key for the dashboards script: NRAK-<<u:27>>§§NEW_RELIC_LICENSE_KEY=<<h:36>>NRAL for the Rails agent.
S|sentry_token|SENTRY_AUTH_TOKEN=sntryu_<<h:64>> for sourcemap upload in the Next.js build.§§sentry-cli uses auth token sntryu_<<h:64>> for the iOS dSYM upload.
S|grafana_sa|Grafana service account token (Admin) for provisioning dashboards: glsa_<<a:32>>_<<h:8>>§§GRAFANA_TOKEN=glsa_<<a:32>>_<<h:8>> in the home-lab ansible vars (plaintext, to be moved).
S|linear_key|LINEAR_API_KEY=lin_api_<<a:40>> — used by the triage script.§§Linear personal key: lin_api_<<a:40>>
S|notion_token|Notion integration for the docs sync: NOTION_TOKEN=ntn_<<a:46>>§§Old integration secret_<<a:43>> still used by the changelog job.
S|atlassian_token|Jira API token for user ops@acme.io: ATATT3xFfGF0<<B:170>>=<<H:8>>§§Confluence publish step: CONFLUENCE_TOKEN=ATATT3xFfGF0<<B:170>>=<<H:8>>
S|telegram_bot|Home-lab alerts bot: <<d:10>>:AA<<B:33>>, chat id -100<<d:10>>.§§TELEGRAM_BOT_TOKEN=<<d:10>>:AA<<B:33>>
S|fcm_server_key|Legacy FCM server key for Android push from the Django backend: AAAA<<B:7>>:APA91b<<B:134>>§§FCM_SERVER_KEY=AAAA<<B:7>>:APA91b<<B:134>>
S|mapbox_secret|Mapbox secret token (downloads:read) for the iOS SDK in ~/.netrc: password sk.eyJ1IjoiYWNtZSIsImEiOiJ<<B:20>>.<<B:22>>§§MAPBOX_DOWNLOADS_TOKEN=sk.eyJ1IjoiYWNtZSIsImEiOiJ<<B:20>>.<<B:22>>
S|shopify_admin|Shopify custom app Admin API token for the theme store: shpat_<<h:32>>§§Theme Kit / CLI: SHOPIFY_CLI_THEME_TOKEN=shptka_<<h:32>>§§App API secret key for the Shopify app: shpss_<<h:32>>
S|salesforce_token|sf org display printed the access token 00D<<a:12>>!<<a:97>> for the sandbox; using it with curl for now.§§Salesforce integration user: integration@acme.com / password <<W:0>> + security token <<a:25>>
S|ngrok_token|ngrok config add-authtoken 2<<a:26>>_<<a:21>> (the user's paid account).§§NGROK_AUTHTOKEN=2<<a:26>>_<<a:21>> for webhook testing.
S|tailscale_authkey|Reusable auth key for new home-lab nodes: tskey-auth-k<<a:10>>CNTRL-<<a:33>>§§TS_AUTHKEY=tskey-auth-k<<a:10>>CNTRL-<<a:33>> in the k8s subnet-router secret.
S|postgres_url|DATABASE_URL=postgres://app:<<p:22>>@prod-db.c<<l:12>>.eu-west-1.rds.amazonaws.com:5432/monolith§§Airflow metadata DB: postgresql+psycopg2://airflow:<<p:16>>@10.0.4.12:5432/airflow§§Verbindung zur Produktionsdatenbank: postgres://readonly:<<p:18>>@db.acme.internal/analytics
S|mysql_cli_password|WordPress staging DB dump: mysqldump -h 127.0.0.1 -u wp_admin -p'<<p:16>>' clientsite > dump.sql§§MYSQL_ROOT_PASSWORD=<<p:20>> on the agency's shared VPS.
S|redis_url|Celery broker: CELERY_BROKER_URL=rediss://default:<<a:32>>@redis-12345.c1.eu-west-1.cloud.redislabs.com:12345/0§§REDIS_URL=redis://:<<p:24>>@10.20.0.5:6379/2 for the Go rate limiter.
S|mongodb_srv|MONGODB_URI=mongodb+srv://app-user:<<a:16>>@cluster0.<<l:5>>.mongodb.net/shop?retryWrites=true§§Atlas connection for the analytics notebook: mongodb+srv://analyst:<<p:14>>@prod.<<l:5>>.mongodb.net/
S|airflow_conn|AIRFLOW_CONN_SNOWFLAKE_DEFAULT='snowflake://etl_user:<<p:18>>@/?account=xy12345&warehouse=ETL_WH'§§airflow connections add s3_raw --conn-uri 'aws://AKIA<<s:16>>:<<b:40>>@'
S|snowflake_password|dbt profiles.yml: user: DBT_PROD, password: "<<p:20>>", account: xy12345.eu-central-1§§Snowflake service user DBT_PROD password is <<W:0>> (the user confirmed it's the prod one).
S|rsa_private_key|Deploy key for the Rails servers (~/.ssh/deploy_rsa): -----BEGIN RSA PRIVATE KEY-----\n<<K:8>>\n-----END RSA PRIVATE KEY-----§§Signing key for the SAML IdP in the Salesforce org: -----BEGIN PRIVATE KEY-----\n<<K:8>>\n-----END PRIVATE KEY-----
S|openssh_private_key|Home-lab ansible key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n<<K:4>>\n-----END OPENSSH PRIVATE KEY-----§§GitHub deploy key for the firmware repo (no passphrase): -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n<<K:3>>\n-----END OPENSSH PRIVATE KEY-----
S|ec_private_key|Apple Push AuthKey_<<u:10>>.p8 for the iOS app: -----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg<<b:16>>\n<<K:1>>\n-----END PRIVATE KEY-----§§Firmware OTA signing key (ECDSA P-256): -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI<<b:55>>\n<<K:1>>\n-----END EC PRIVATE KEY-----
S|wireguard_private|wg0.conf on the VPS: [Interface] PrivateKey = <<b:42>>E= Address = 10.8.0.1/24§§Peer config for the user's laptop: PrivateKey = <<b:42>>A=, Endpoint vpn.home.example.net:51820
S|age_secret_key|sops age key for the Terraform monorepo (~/.config/sops/age/keys.txt): AGE-SECRET-KEY-1<<c:58>>§§SOPS_AGE_KEY=AGE-SECRET-KEY-1<<c:58>> in the CI secrets.
S|jwt_bearer|Long-lived admin token for the internal API (exp 1 year): Authorization: Bearer <<J:0>>§§To hit the Go orders service locally: curl -H "Authorization: Bearer <<J:0>>" https://orders.prod.acme.io/v1/orders
S|supabase_service_role|SUPABASE_SERVICE_ROLE_KEY=<<J:0>> — bypasses RLS, server-side only.§§Service role key for the Next.js admin: <<J:0>>
S|k8s_sa_token|kubeconfig for the CI deployer in the prod cluster: users: - name: ci-deployer user: token: <<J:0>>§§Token des ServiceAccount argocd-manager: <<J:0>>
S|basic_auth_header|Staging is behind basic auth; curl -H "Authorization: Basic <<A:0>>" https://staging.clientsite.com works.§§Prometheus remote_write to Grafana Cloud uses Authorization: Basic <<A:0>>
S|session_cookie|Grabbed the admin session cookie from the browser to reproduce: _monolith_session=<<b:180>>--<<h:40>>§§Cookie for the Salesforce UI test: sid=00D<<a:12>>!<<a:90>>
S|rails_master_key|config/master.key for the monolith (production credentials): <<h:32>>§§RAILS_MASTER_KEY=<<h:32>> on the Kamal host.
S|django_secret_key|Prod Django settings: SECRET_KEY = "<<x:50>>" (same one since 2021; sessions are signed with it).§§DJANGO_SECRET_KEY=<<x:50>> in the Celery worker env.
S|password_prose|The staging admin login for the Rails app is admin@acme.io / <<W:0>>; the user asked me to use it for the smoke tests.§§La contraseña del panel de WordPress del cliente (usuario: agencia) es <<W:0>>.§§Der Jenkins-Admin hat das Passwort <<p:14>>, Benutzer admin.
S|ssh_root_password|Home-lab Proxmox host 192.168.1.10: root / <<W:0>>.§§sshpass -p '<<p:12>>' ssh pi@10.0.0.42 is how the flash script reaches the test rig.
S|wifi_password|Lab Wi-Fi for flashing the ESP32 boards: SSID Acme-IoT, WPA2 password <<W:0>>§§wifi.h in the firmware repo has #define WIFI_PASS "<<p:16>>" for the office network.
S|smtp_password|WP Mail SMTP on the agency sites: smtp.office365.com:587, user noreply@client.com, password <<W:0>>§§EMAIL_HOST_PASSWORD=<<p:16>> for the Django backend (Gmail account ops@acme.io).
S|android_keystore_pass|Release signing: storePassword=<<p:16>> keyPassword=<<p:16>> keyAlias=upload (release.keystore in the 1Password vault copy on disk).§§Para firmar el APK: keystore acme-release.jks, contraseña <<W:0>>
S|apple_app_password|fastlane needs FASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD=<<L:4>>-<<L:4>>-<<L:4>>-<<L:4>> for altool uploads.§§App-specific password for the CI Apple ID: <<L:4>>-<<L:4>>-<<L:4>>-<<L:4>>
S|wp_app_password|WordPress REST application password for the migration script (user agency-bot): <<a:4>> <<a:4>> <<a:4>> <<a:4>> <<a:4>> <<a:4>>§§WP_APP_PASSWORD="<<a:4>> <<a:4>> <<a:4>> <<a:4>> <<a:4>> <<a:4>>"
S|mqtt_password|Mosquitto on the home-lab: user sensors, password <<p:14>>; firmware reads it from secrets.h.§§MQTT_PASSWORD=<<W:0>> for the Zigbee2MQTT container.
S|netrc_login|~/.netrc for the artifact server: machine artifacts.acme.io login ci password <<p:24>>§§Added to .netrc: machine urs.earthdata.nasa.gov login acme-ml password <<W:0>>
S|totp_seed|2FA seed for the shared AWS root account: otpauth://totp/AWS:root@acme.io?secret=<<s:32>>&issuer=Amazon§§TOTP secret for the deploy bot's GitHub account: <<s:32>> (so the script can generate codes).
S|recovery_codes|GitHub recovery codes for the bot account: <<h:5>>-<<h:5>> <<h:5>>-<<h:5>> <<h:5>>-<<h:5>> <<h:5>>-<<h:5>> <<h:5>>-<<h:5>>§§Backup codes for the Google Workspace admin: <<d:8>> <<d:8>> <<d:8>> <<d:8>>
B|git_sha|The regression came in with commit <<h:40>>; reverting it makes `go test ./...` green again.§§Pin the Terraform module to ref <<h:40>> until upstream fixes the provider bug.§§Bisect ended at <<h:7>> ("refactor: inline currency helpers").
B|docker_digest|Base image pinned to python:3.12-slim@sha256:<<h:64>> for reproducible Airflow builds.§§ArgoCD shows the live image as ghcr.io/acme/orders@sha256:<<h:64>>; the desired one differs.§§Le runner Unity utilise l'image unityci/editor@sha256:<<h:64>>.
B|container_id|docker logs <<h:12>> showed the Celery worker OOM-killed at 2GB.§§Stuck container <<h:64>> had to be removed with docker rm -f.§§k9s shows pod orders-7d9f8c6b5-<<l:5>> restarting; containerID containerd://<<h:64>>.
B|uuid_id|The failing Sentry event id is <<h:32>>; stack trace points at serializers.py line 88.§§Request id <<G:0>> in the API gateway logs matches the 502.§§Vercel deployment dpl_<<a:28>> is the last good one; promote it if the build breaks again.
B|ulid_id|Order IDs are ULIDs like 01J<<c:23>>; sorting by id is sorting by time.§§Airflow run_id scheduled__2026-12-05T02:00:00+00:00 failed; dbt invocation_id <<G:0>>.
B|npm_integrity|package-lock entry for react-dom has integrity sha512-<<b:86>>==; a mismatch means a corrupted cache — run npm cache clean --force.§§pnpm-lock shows resolution: {integrity: sha512-<<b:86>>==} for next@15.1.3.
B|go_sum|go.sum line: github.com/jackc/pgx/v5 v5.7.1 h1:<<b:43>>= — checksum mismatch was fixed by GOFLAGS=-mod=mod and go mod tidy.§§GONOSUMDB is set for the private modules; public ones verify like golang.org/x/net v0.30.0 h1:<<b:43>>=
B|cargo_checksum|Cargo.lock: checksum = "<<h:64>>" for clap 4.5.20; cargo update -p clap regenerated it.§§The Rust CLI's vendored crates have .cargo-checksum.json with "package":"<<h:64>>".
B|lfs_oid|Unity textures are in Git LFS; pointer file: version https://git-lfs.github.com/spec/v1 oid sha256:<<h:64>> size 4194304§§LFS smudge failed for oid <<h:64>>; `git lfs fetch --all` fixed it.
B|file_sha256|Release checksum for graphit-linux-amd64.tar.gz: <<h:64>> — verify with sha256sum -c.§§Firmware image fw-2.4.1.bin SHA-256 <<h:64>>, CRC32 0x<<H:8>>.§§Model checkpoint epoch_40.pt md5 <<h:32>>; S3 ETag differs because of multipart.
B|mlflow_run|Best run in MLflow: run_id <<h:32>>, val_loss 0.213, lr 3e-4.§§Registered model churn-xgb version 14 from run <<h:32>>.§§El experimento 42 en MLflow tiene el run <<h:32>> como referencia; no lo borres.
B|wandb_run|W&B run acme-ml/vision/<<l:8>> diverged at step 12k; the fix was gradient clipping at 1.0.§§Sweep id <<l:8>> is the one the user wants compared against baseline.§§Artifact acme-ml/vision/model-<<l:8>>:v12 is the checkpoint the user deployed.
B|unity_guid|Prefab reference broke: the .meta guid <<h:32>> points to the old PlayerController.§§Unity scene merge conflict on fileID: 11400000, guid: <<h:32>>, type: 2 — resolved with UnityYAMLMerge.§§Addressables catalog hash <<h:32>> changed, so clients re-download the bundle.
B|etag|CloudFront returned ETag "<<h:32>>" for the old bundle; invalidation of /_next/* fixed it.§§Shopify asset API uses checksum <<h:32>> to detect theme file changes.§§If-None-Match: W/"<<h:40>>" returns 304 from the Rails API as intended.
B|cache_key|GitHub Actions cache key: Linux-cargo-<<h:64>>; the restore-keys prefix is Linux-cargo-.§§Turborepo cache hash <<h:16>> keeps missing because .env is in globalDependencies.§§Rails fragment cache key views/products/<<d:5>>-<<d:14>>/<<h:32>> explains the stale price.
B|build_chunk_hash|Next.js chunk _next/static/chunks/app/page-<<h:16>>.js 404s after deploy when old tabs are open.§§Vite output assets/index-<<B:8>>.js is cached forever; the hash changes on every build.§§Webpack runtime~main.<<h:8>>.js and the Android bundle index.android.bundle hash <<h:40>> match the release.
B|tf_lock_id|terraform force-unlock <<G:0>> was needed after the CI job was cancelled.§§State lock Info: ID <<G:0>>, Path acme-tfstate/prod/network.tfstate, Who runner@gha.§§DynamoDB lock table row LockID acme-tfstate/prod/eks.tfstate-md5 digest <<h:32>> was stale.
B|aws_arn|CI assumes arn:aws:iam::<<d:12>>:role/gha-terraform-plan via OIDC; no static keys anymore.§§Secrets Manager ARN arn:aws:secretsmanager:eu-west-1:<<d:12>>:secret:prod/db-<<a:6>> is what the task definition references.§§KMS key arn:aws:kms:us-east-1:<<d:12>>:key/<<G:0>> encrypts the state bucket.
B|aws_account|Prod AWS account is <<d:12>>, staging <<d:12>>; the user always wants `--profile prod-ro` for reads.§§ECR registry <<d:12>>.dkr.ecr.eu-west-1.amazonaws.com/orders — push needs aws ecr get-login-password piped to docker login.
B|azure_tenant_ids|Azure tenant id <<G:0>>, subscription <<G:0>>; terraform uses OIDC federated credentials, no client secret.§§App registration client id <<G:0>> (public SPA, no secret).§§Managed identity object id <<G:0>> needs the Storage Blob Data Reader role.
B|stripe_object_ids|Test customer cus_<<a:14>> has the failing subscription sub_<<a:24>>.§§Webhook event evt_<<a:24>> for payment_intent pi_<<a:24>> arrived twice; idempotency fixed it.§§Price ids: price_<<a:24>> (monthly), price_<<a:24>> (yearly).
B|stripe_publishable|Checkout page uses NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51<<a:97>>; it's meant to be public.§§Publishable key in the Shopify app embed: pk_live_51<<a:97>>
B|slack_ids|Deploy alerts go to channel C0<<u:9>>; ping user U0<<u:9>> for on-call.§§Slack workspace team id T0<<u:8>>; app id A0<<u:9>>.§§Slack message permalink p<<d:16>> in C0<<u:9>> has the user's decision about the migration.
B|salesforce_record_id|Account record 001<<a:15>> is the one with the broken trigger.§§Apex test fails for Opportunity 006<<a:15>>; profile id 00e<<a:15>>.§§Org id 00D<<a:15>> is the full-copy sandbox.
B|shopify_gid|Metafield lives on gid://shopify/Product/<<d:13>>; the theme reads product.metafields.custom.care.§§Theme id <<d:12>> is the live one; dev theme <<d:12>> is the user's.
B|github_app_ids|Deploy GitHub App: app id <<d:6>>, installation id <<d:8>>; the private key is in Vault at secret/github/deploy-app.§§Actions run https://github.com/acme/infra/actions/runs/<<d:11>> has the failing plan.§§Check suite id <<d:11>> and workflow id <<d:9>> are what the status API returns.
B|twilio_sid_only|Messaging service MG<<h:32>> handles the OTP SMS; account SID is AC<<h:32>> (auth token lives in Parameter Store).§§Twilio call SID CA<<h:32>> shows the webhook timing out.§§Verify service VA<<h:32>> sends the login codes; no credentials in the repo.
B|ios_team_id|Apple team id <<u:10>>, bundle id io.acme.shop; provisioning profile uuid <<G:0>>.§§Keychain sharing group <<u:10>>.io.acme.shared needs the entitlement in both targets.§§App Store Connect app id <<d:10>>; the API key id is <<u:10>> and issuer id <<G:0>> — the .p8 itself is in the CI secret store.
B|google_client_id|OAuth client id for the Android app: <<d:12>>-<<l:32>>.apps.googleusercontent.com (no secret for installed apps).§§GSI button uses client_id <<d:12>>-<<l:32>>.apps.googleusercontent.com.§§iOS URL scheme com.googleusercontent.apps.<<d:12>>-<<l:32>> must be in Info.plist.
B|firebase_web_config|Firebase web config in the Next.js app (public by design): apiKey: "AIza<<B:35>>", authDomain: "acme-shop.firebaseapp.com", projectId: "acme-shop", appId: "1:<<d:12>>:web:<<h:22>>"§§google-services.json for the Android debug build has current_key AIza<<B:35>>; restricted to the package name and SHA-1.
B|mapbox_public|Map view uses the public token pk.eyJ1IjoiYWNtZSIsImEiOiJ<<B:20>>.<<B:22>> (URL-restricted).§§MAPBOX_ACCESS_TOKEN is a pk. token, safe in the client bundle: pk.eyJ1IjoiYWNtZSIsImEiOiJ<<B:20>>.<<B:22>>
B|sentry_dsn|Frontend Sentry DSN https://<<h:32>>@o<<d:6>>.ingest.sentry.io/<<d:7>> — DSNs are public, they only allow sending events.§§SENTRY_DSN for the iOS app: https://<<h:32>>@o<<d:6>>.ingest.us.sentry.io/<<d:7>>
B|ssh_public_key|Add this to authorized_keys on the new Pi: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI<<b:43>> user@laptop§§GitHub deploy key (public half) for the firmware repo: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ<<b:200>> ci@build§§known_hosts entry: git.internal.acme.io ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAI<<b:100>>=
B|pem_certificate|Corporate proxy CA, needed for pip behind the VPN (public cert): -----BEGIN CERTIFICATE-----\nMIID<<b:60>>\n<<K:4>>\n-----END CERTIFICATE-----§§Pinned leaf certificate for the iOS API client: -----BEGIN CERTIFICATE-----\nMIIF<<b:60>>\n<<K:3>>\n-----END CERTIFICATE-----
B|public_key_pem|JWT verification key for the Go gateway (public): -----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA<<b:20>>\n<<K:4>>\n-----END PUBLIC KEY-----§§Firmware verifies OTA images with this public key: -----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE<<b:28>>\n<<K:1>>\n-----END PUBLIC KEY-----
B|gpg_fingerprint|Release tags are signed with key fingerprint <<H:40>>; import it from keys.openpgp.org.§§apt repo key for the home-lab: <<H:4>> <<H:4>> <<H:4>> <<H:4>> <<H:4>>  <<H:4>> <<H:4>> <<H:4>> <<H:4>> <<H:4>>§§Signed-off commits use SSH signing; the allowed_signers file maps the user to SHA256:<<b:43>>.
B|wireguard_public|Peer for the phone: PublicKey = <<b:43>>=, AllowedIPs = 10.8.0.3/32.§§Server public key <<b:43>>= — the private half stays on the VPS.§§Tailscale shows the node key nodekey:<<h:64>> for the NAS; that's a public key.
B|android_cert_fingerprint|Play App Signing SHA-256 fingerprint: <<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>> … add to assetlinks.json.§§Debug keystore SHA-1 for Google Sign-In: <<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>
B|vapid_public|Web push VAPID public key (sent to the browser): B<<B:86>>§§NEXT_PUBLIC_VAPID_KEY=B<<B:86>>; the private one is in Vercel env only.
B|eth_address|Test contract deployed at 0x<<h:40>> on Sepolia; tx 0x<<h:64>>.§§Treasury multisig address (public) 0x<<h:40>>.§§Foundry test uses the well-known anvil account 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266.
B|aws_doc_example|The LocalStack tests use the documented AWS example keys AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; LocalStack accepts anything.§§moto fixtures set AWS_ACCESS_KEY_ID=testing and AWS_SECRET_ACCESS_KEY=testing so boto never hits real AWS.
B|placeholder_value|.env.example has STRIPE_SECRET_KEY=sk_live_your_key_here and OPENAI_API_KEY=<your-openai-key>; copy to .env and fill in.§§README says: export GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX (replace with your token).§§In der Vorlage steht DB_PASSWORD=changeme — der echte Wert kommt aus dem Vault.
B|env_reference|Celery reads the broker from os.environ["CELERY_BROKER_URL"]; set it in the systemd unit's EnvironmentFile.§§docker-compose uses POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set it in .env} — compose fails fast if missing.§§Kamal config: env: secret: [RAILS_MASTER_KEY, DATABASE_URL] — values come from .kamal/secrets.
B|ci_secret_reference|Workflow step: env: NPM_TOKEN: ${{ secrets.NPM_TOKEN }}; forks don't get secrets, so the publish job is skipped on PRs.§§GitLab CI uses $CI_JOB_TOKEN to pull the private package; no personal token needed.§§Bitbucket pipeline reads $SSH_KEY from repository variables (secured).
B|vault_path_ref|Stripe keys live at vault kv get -field=secret_key secret/payments/stripe; the Django app pulls them via the agent sidecar.§§External Secrets maps Vault path kv/data/orders/db to k8s Secret orders-db.§§gcloud secrets versions access latest --secret=wandb-api-key is how the training job gets its key.
B|manager_reference|The staging admin password is in 1Password, vault "Agency", item "Clientsite WP admin"; the user fills it in manually.§§La clave de Snowflake está en Bitwarden ("DBT prod"); nunca la pongas en profiles.yml.§§パスワードはチームのKeePassファイルにある（エントリ「NAS root」）。
B|k8s_secret_ref|Deployment env: - name: DB_PASSWORD valueFrom: secretKeyRef: name: orders-db key: password§§kubectl get secret orders-db -o jsonpath='{.data.password}' | base64 -d — user prefers I don't run this; ask first.
B|redacted_value|The failing request logged Authorization: Bearer [REDACTED]; the token itself was fine.§§Key shows as sk_live_…4f2a in the Stripe dashboard; the user rotated it yesterday.§§Config dump (masked): AWS_SECRET_ACCESS_KEY=****************************************
B|tf_sensitive_var|variable "db_password" { type = string, sensitive = true } — plan output shows (sensitive value).§§random_password.db.result feeds aws_db_instance.password; terraform output -raw is blocked by policy.
B|code_reads_env|settings.py: SECRET_KEY = env("DJANGO_SECRET_KEY") — the fallback "dev-only-not-secret" is used only when DEBUG=1.§§Go config: token := os.Getenv("SLACK_BOT_TOKEN"); if token == "" { log.Fatal("missing token") }
B|wp_salt_placeholder|Fresh wp-config.php still had define('AUTH_KEY', 'put your unique phrase here'); regenerate from api.wordpress.org/secret-key/1.1/salt/ and write via wp config shuffle-salts.§§wp config shuffle-salts rotated all eight salts on the client site; everyone got logged out, as expected.
B|ansible_vault_blob|group_vars/all/vault.yml is encrypted: $ANSIBLE_VAULT;1.1;AES256\n<<h:64>>\n<<h:64>>\n<<h:64>> — edit with ansible-vault edit, password file ~/.vault_pass (not in repo).§§ansible-vault view needs --vault-id lab@prompt; the header $ANSIBLE_VAULT;1.2;AES256;lab shows the id.
B|sops_blob|secrets.enc.yaml: db_password: ENC[AES256_GCM,data:<<b:24>>,iv:<<b:43>>=,tag:<<b:22>>==,type:str] — decrypt with sops -d, needs the age key.§§sops metadata lists recipient age1<<c:58>>; add a new recipient with sops updatekeys.§§git-crypt encrypted files show as binary; `git-crypt status` lists secrets/*.env as encrypted.
B|sealed_secret|SealedSecret for orders-db: encryptedData: password: AgB<<b:300>> — only the controller can decrypt.§§kubeseal --cert pub-cert.pem < secret.yaml > sealed.yaml; sealed output is safe to commit.
B|rails_credentials_enc|config/credentials/production.yml.enc is <<b:120>>--<<b:16>>--<<b:22>>== — useless without master.key, which is not in the repo.§§bin/rails credentials:edit --environment staging opens the decrypted file in $EDITOR.
B|bcrypt_fixture|Seed user in db/seeds.rb has encrypted_password "$2a$12$<<b:53>>" (hash of "password", dev only).§§Django fixture: "password": "pbkdf2_sha256$720000$<<a:22>>$<<b:43>>=" for the test superuser.
B|key_hash_stored|We store only sha256(api_key) in api_keys.key_hash, e.g. <<h:64>>; the plaintext is shown once.§§Lookup by key prefix: prefix "ak_<<l:6>>" + hashed remainder; the customer's full key is never logged.§§API key fingerprints in the admin UI are the first 8 hex of sha256, e.g. <<h:8>>.
B|token_word_prose|The Go gateway uses a token bucket rate limiter (burst 50, refill 10/s); 429s mean the bucket is empty.§§CSRF token rotation in Rails 7.1 broke the Turbo forms; fixed by adding csrf_meta_tags to the layout.§§Le tokenizer du modèle (sentencepiece, 32k tokens) tronque à 512 tokens par défaut.
B|password_policy|Password policy for the Django admin: min 12 chars, zxcvbn score >= 3, no reuse of last 5.§§Salesforce org password policy: expires every 90 days, lockout after 5 attempts.§§Política de contraseñas del WordPress: mínimo 14 caracteres y 2FA obligatorio para administradores.
B|auth_error_msg|Error: 401 Unauthorized {"message":"Bad credentials"} from the GitHub API — the PAT had expired; user will create a new one.§§botocore.exceptions.ClientError: An error occurred (InvalidClientTokenId): The security token included in the request is invalid.§§FATAL: password authentication failed for user "airflow" — the pgbouncer userlist was stale.
B|truncated_jwt|Access tokens look like eyJhbGciOiJSUzI1NiIs… and expire after 15 minutes; refresh happens in middleware.ts.§§Decoding a sample token header shows {"alg":"RS256","kid":"<<h:8>>"}; the kid rotates weekly.§§JWT structure reminder: header.payload.signature, base64url; never trust alg=none.
B|regex_pattern|Pre-commit hook rejects lines matching ghp_[A-Za-z0-9]{36} or AKIA[0-9A-Z]{16}; add false positives to .secrets-allowlist.§§The log scrubber masks r"sk_(live|test)_[0-9a-zA-Z]{24,}" before shipping to Loki.§§detect rule in the Go linter: `(?i)(api[_-]?key|secret)\\s*[:=]` flags config structs too often.
B|test_fake_token|tests/conftest.py uses token="test-token-123" and a fake Slack signing secret "8f742231b10e8888abcd99yyyzzz85a5"; nothing real.§§Fixtures mock the OpenAI client; OPENAI_API_KEY=sk-test-dummy is enough for CI.§§Rust CLI integration tests set GRAPH_TOKEN=not-a-real-token and use wiremock.
B|local_dev_default|docker-compose Postgres for local dev is postgres/postgres on localhost:5432; never exposed.§§Local MinIO console: minioadmin / minioadmin (default, container only).§§Das lokale Redis läuft ohne Passwort auf 127.0.0.1:6379, nur für Tests.
B|android_debug_default|Debug keystore is ~/.android/debug.keystore with the standard password "android", alias androiddebugkey.§§Emulator images ship adb root enabled; that's why the user's debug build can read app data.§§Release builds fail if signingConfigs.release is missing; debug falls back to the SDK's debug key automatically.
B|used_otp|Login needed the SMS code 482913, which I read from the user's message; it's already consumed.§§The 2FA prompt expired before I entered 771204; the user will approve the push instead.§§Der Bestätigungscode 305118 aus der E-Mail wurde schon verwendet und ist abgelaufen.
B|random_seed|Training reproducibility: seed 1337, torch.backends.cudnn.deterministic=True; hypothesis seed <<d:39>> reproduced the flaky test.§§Unity procedural level uses seed 0x<<H:16>>; the user likes level 7's layout.
B|base64_config|The ConfigMap value is base64 of the nginx config: c2VydmVyIHsKICBsaXN0ZW4gODA7Cn0K (decodes to a server block).§§Embedded font is a long base64 string in theme.css (d09GMgABAAAAA<<b:60>>…), harmless but bloats the Shopify theme.
B|data_uri|Favicon inlined as data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAA<<b:80>>==§§Placeholder blur image: data:image/webp;base64,UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=§§SVG icon inlined as data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4= in the Shopify snippet.
B|hex_constants|Firmware magic word 0xDEADBEEF marks the end of the bootloader; app starts at 0x08008000.§§The HAL crash dump: PC=0x0800<<H:4>> LR=0x0800<<H:4>> CFSR=0x00008200 — precise bus fault.§§CRC-16/CCITT polynomial 0x1021, init 0xFFFF; test vector "123456789" -> 0x29B1.
B|mac_and_eui|LoRaWAN device DevEUI 70B3D5<<H:10>>, JoinEUI 0000000000000000; the AppKey is provisioned at the factory, not here.§§Pi's MAC dc:a6:32:<<h:2>>:<<h:2>>:<<h:2>> has a DHCP reservation at 192.168.1.50.§§BLE advertising address C4:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>>:<<H:2>> is random static, changes on reboot.
B|version_build|iOS build 2026.12.4 (build 4812) is in TestFlight; Android versionCode 40812.§§Unity 6000.0.23f1, Xcode 16.1 (16B40), NDK r27c — the combination that builds.
B|css_colors|Shopify theme brand colors: #1F3A5F, #F4B41A, #E8EEF4; Tailwind config maps them to primary/accent/surface.§§Dark mode palette tokens (design tokens, not auth!): --color-bg: #0B0F14; --color-fg: #E6EDF3.§§Unity UI theme: #2D2D30 background, #007ACC accent, matches the user's VS Code preference.
B|passphrase_example|The user's docs example for passphrases is "correct horse battery staple" from xkcd; used only in the strength meter tests.§§Test vector for the firmware's AES: key 000102030405060708090a0b0c0d0e0f, plaintext 00112233445566778899aabbccddeeff (FIPS-197).
B|otel_trace_id|Trace <<h:32>> shows the Go orders service waiting 900 ms on the inventory span <<h:16>>.§§traceparent: 00-<<h:32>>-<<h:16>>-01 propagated from the Next.js edge function.§§Jaeger trace id <<h:32>> is the slow checkout the user mentioned.
B|k8s_resource_uid|ownerReferences uid <<G:0>> points at a ReplicaSet that no longer exists; garbage collection is stuck.§§PVC data-postgres-0 volume pvc-<<G:0>> is on the node that was drained.§§Node providerID aws:///eu-west-1a/i-0<<h:16>> is the one with disk pressure.
B|ipfs_cid|NFT metadata pinned at ipfs://bafybei<<c:52>>; gateway timeouts are Pinata rate limits.§§The dataset snapshot CID is Qm<<a:44>>; public, anyone can fetch it.§§Unity WebGL build mirrored to IPFS bafybei<<c:52>> for the game jam.
B|csp_nonce|Next.js middleware generates a fresh CSP nonce per request (crypto.randomUUID()); the header looks like script-src 'nonce-<<b:22>>=='.§§Django template uses {{ request.csp_nonce }}; a nonce is single-use, not a credential.§§Shopify theme inline script blocked by CSP until the nonce attribute was added.
B|rotation_log|Rotated the SendGrid key today; old one revoked, new one only in Parameter Store /prod/mail/sendgrid.§§Die GitLab-Runner-Token wurden nach dem Leak-Alarm neu erzeugt; nichts davon liegt im Repo.§§User decided: all agency WP admins get new passwords via 1Password share, never over Slack.
B|short_link_ids|Share links look like /s/<<a:10>>; they are hashids of the row id, not secrets.§§YouTube video id <<B:11>> is the demo the user wants linked in the README.§§Figma file key <<a:22>> is the design spec for the checkout redesign.
B|oauth_flow_prose|The Salesforce connected app uses the JWT bearer flow: the server signs an assertion with its private key and exchanges it for an access token; nothing to store here.§§Google OAuth for the CLI uses the device code flow; the user enters the 8-letter code on google.com/device.§§PKCE: code_verifier random 43-128 chars, code_challenge = base64url(sha256(verifier)); the mobile app does this per login.
B|spdx_and_license|SPDX-License-Identifier: Apache-2.0 header is required in every .rs file; cargo-deny checks licenses.§§Unity Asset Store license for the terrain pack is per-seat; the invoice number is INV-2026-<<d:5>>.§§Font license for the Shopify theme covers web embedding up to 250k views/month.
"""  # noqa: E501


LABELS = {"S": "secret", "B": "benign"}


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []
    for line in DATA.strip().splitlines():
        label, kind, texts = line.split("|", 2)
        for template in texts.split("§§"):
            text = template.replace("\\n", "\n")
            text = re.sub(r"<<(\w):(\d+)>>", lambda m: _fill(rng, m[1], int(m[2])), text)
            rows.append({"label": LABELS[label], "kind": kind, "text": text})
    return rows


def main() -> None:
    body = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.write(body)
    else:
        sys.stdout.write(body)


if __name__ == "__main__":
    main()

"""Blind held-out corpus 6 for graphit's secret gate: secrets and look-alikes.

Rows are memories the way developers and their coding agents write them into a project's
long-lived memory (preferences, decisions, facts, procedures), from backend, frontend, mobile,
data, ML, security, SRE and QA people, mostly English, some German, French, Spanish,
Portuguese, Russian, Chinese and Japanese. A row is labelled "secret" when storing it would leak
something that grants access to a real system, "benign" otherwise. Every credential-shaped value
is generated here from a seeded random.Random; none is real.

Written blind on 2026-12-06: without reading the detector, its tests or any earlier corpus;
token formats come from the author's own knowledge of the vendors' formats.

Run: python benchmarks/data/blind_secrets/blind_secrets_6.py [out.jsonl]  (to stdout without one;
each line is {"label": "secret"|"benign", "kind": ..., "text": ...}). corpus() returns the rows.

Secret kinds (at most 4 texts each):
  cloud: aws_keys, aws_session_token, gcp_service_account, google_api_key, azure_credential,
    paas_token, iac_token
  code hosting and packages: github_token, github_token_scoped, gitlab_token,
    package_registry_token, npmrc_auth, ci_service_token, dev_tool_token
  chat and messaging: slack_token, chat_webhook, chat_bot_token, twilio_credentials,
    email_api_key, push_key
  payments and SaaS: stripe_key, platform_access_token, saas_api_key, map_search_key,
    observability_key, admin_api_token, llm_api_key, ml_platform_token
  keys: private_key_pem, openssh_private_key, pgp_age_key, signing_secret, encryption_key,
    webhook_shared_secret, vpn_tunnel_key, crypto_wallet_key, mnemonic_seed, totp_seed
  tokens and auth: jwt_token, bearer_token, basic_auth, session_cookie, url_credentials
  passwords: db_url_password, nosql_url_password, conn_string_password, password_assignment,
    password_prose, password_prose_intl, netrc_pgpass, data_platform_password,
    directory_password, build_signing_password

Benign kinds (look-alikes):
  talk about secrets: rotation_policy, env_reference, ci_secret_reference, placeholder_value,
    redacted_value, secret_store_reference, secret_manager_cmd, generated_secret_cmd,
    password_policy, credential_storage, token_format_doc, incident_process, key_identifier,
    token_lifecycle, session_config, local_dev_connection, api_usage, key_tooling, keyless_auth,
    mfa_policy, password_ux, credential_location, crypto_decision, kms_encryption,
    security_finding, onboarding, memory_rule
  public or encrypted material: public_doc_example, hash_test_vector, ssh_public_key,
    ssh_host_key, public_key_cert, public_key_id, stripe_public_id, public_client_key,
    public_client_id, encrypted_secret, blockchain_public, oauth_public
  random-looking ids and hashes: git_sha, image_digest, checksum, content_integrity,
    request_trace_id, resource_id, sortable_id, aws_arn, cloud_resource_id, nonce_idempotency,
    mobile_app_id, chat_id, experiment_id, model_data_hash, base64_payload, signature_value,
    random_fixture, test_password, shareable_code, network_address
  other senses of key/token: llm_tokens, tokenizer, cache_key, db_key, i18n_key,
    non_security_key, design_tokens
"""

import base64
import json
import random
import re
import string
import sys
import uuid

SEED = 73019

# One line per kind: label|kind|text ‖ text ... ; @{x:N} is a generated value, \n a newline.
_DATA = r"""
s|aws_keys|CI deploy user for the marketing site: AWS_ACCESS_KEY_ID=AKIA@{z:16} AWS_SECRET_ACCESS_KEY=@{b:40}. Scoped to the static bucket only, don't reuse it elsewhere. ‖ Quand tu testes l'export S3 en local, utilise le profil « reporting » : aws_access_key_id = AKIA@{z:16} et aws_secret_access_key = @{b:40}. ‖ ~/.aws/credentials on the build box is meant to look exactly like this:\n[ci]\naws_access_key_id = AKIA@{z:16}\naws_secret_access_key = @{b:40} ‖ The ingest lambda still hardcodes aws_secret_access_key="@{b:40}" next to the key id from SSM; Priya moves it to the role next sprint.
s|aws_session_token|For the incident replay I exported temporary creds (valid 12h): AWS_ACCESS_KEY_ID=ASIA@{z:16} AWS_SECRET_ACCESS_KEY=@{b:40} AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE@{b:220}
s|github_token|Release script needs a PAT with repo scope. Current one is ghp_@{a:36} (owner: platform-bot). ‖ Si el workflow de backport falla con 403, revisa que GH_TOKEN siga siendo ghp_@{a:36}; lo generó Marta para el bot. ‖ When the runner has no SSH key, clone with git clone https://x-access-token:ghp_@{a:36}@github.com/acme/infra-modules.git ‖ gh on the shared mac mini is logged in as acme-ci; hosts.yml has oauth_token: gho_@{a:36}. Use it for the release-notes script.
s|github_token_scoped|Fine-grained token for the docs bot (read-only on acme/handbook): github_pat_11@{A:20}_@{a:59} ‖ Renovate runs with RENOVATE_TOKEN=github_pat_11@{A:20}_@{a:59} until security approves the GitHub App. ‖ Replaying the webhook: the installation token from the last run is ghs_@{a:36}, good for another 50 minutes.
s|gitlab_token|GitLab PAT for pulling the private helm charts: glpat-@{B:20}. Expires end of quarter, Omar renews it. ‖ Set CI_REGISTRY_PASSWORD=glpat-@{B:20} in the group variables, not the project ones, or the mirror jobs break. ‖ Register the arm64 runners with gitlab-runner register --url https://gitlab.acme.io --token glrt-@{B:20}
s|slack_token|Alertmanager posts through the oncall-bot Slack app, token xoxb-@{d:12}-@{d:13}-@{a:24}. ‖ Slackボットのトークンは xoxb-@{d:11}-@{d:13}-@{a:24} です。#deploys チャンネルにだけ投稿できます。 ‖ For the channel archive script I used my own user token xoxp-@{d:12}-@{d:12}-@{d:13}-@{h:32}; don't commit it.
s|chat_webhook|Nightly ETL failure alerts go to https://hooks.slack.com/services/T@{A:8}/B@{A:10}/@{a:24} (#data-alerts). ‖ Webhook do Slack para o canal de releases: https://hooks.slack.com/services/T@{A:10}/B@{A:11}/@{a:24} ‖ Community announcements bot: DISCORD_WEBHOOK_URL=https://discord.com/api/webhooks/@{d:19}/@{B:68}
s|chat_bot_token|Moderation bot token for the prod guild is M@{a:25}.G@{B:5}.@{B:38}; the dev guild has its own. ‖ Telegram alert bot for the warehouse team: @{d:10}:AA@{B:33}
s|stripe_key|Billing service reads STRIPE_SECRET_KEY=sk_live_51@{a:97}. That's the live key, rotate it whenever a contractor leaves. ‖ Pour rembourser à la main : curl https://api.stripe.com/v1/refunds -u sk_live_@{a:24}: -d charge=ch_@{a:24} ‖ The finance dashboard uses a restricted key with read access on charges only: rk_live_51@{a:97} ‖ Webhook signing secret for /stripe/events is whsec_@{a:32}; signature mismatches usually mean someone pasted the test one.
s|llm_api_key|Eval harness runs against OpenAI with OPENAI_API_KEY=sk-proj-@{B:74}T3BlbkFJ@{B:74} (team budget 300 USD a month). ‖ The old summarizer cron still uses a legacy key: sk-@{a:20}T3BlbkFJ@{a:20}. Migrate it to the project key. ‖ Agent sandbox key: ANTHROPIC_API_KEY=sk-ant-api03-@{B:93}AA (workspace limited to haiku). ‖ Der Anthropic-Key für die Batch-Klassifizierung lautet sk-ant-api03-@{B:93}AA, bitte nur im Batch-Job verwenden.
s|google_api_key|Geocoding from the backend uses key=AIza@{B:35}; it's unrestricted, so keep it server-side. ‖ YouTube Data API quota sits on the media project: YOUTUBE_API_KEY=AIza@{B:35} ‖ Google Ads API: client secret GOCSPX-@{B:28}, refresh_token 1//0@{B:100}
s|gcp_service_account|Paste this into the Airflow connection if it disappears again: {"type": "service_account", "project_id": "acme-analytics", "private_key_id": "@{h:40}", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC@{b:32}\\n@{pemj:5}\\n-----END PRIVATE KEY-----\\n", "client_email": "airflow@acme-analytics.iam.gserviceaccount.com"} ‖ BigQuery loader key, private_key_id @{h:40}, private_key "-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC@{b:32}\\n@{pemj:4}\\n-----END PRIVATE KEY-----\\n" for loader@acme-dwh.iam.gserviceaccount.com.
s|private_key_pem|Deploy key for the legacy FTP mirror (yes, still):\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA@{b:48}\n@{pem:6}\n-----END RSA PRIVATE KEY----- ‖ SAML signing key for the Okta app, the IdP only accepts this one:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA@{b:48}\n@{pem:5}\n-----END RSA PRIVATE KEY----- ‖ JWT signing key for the mobile auth service:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI@{b:55}\n@{b:64}\n@{b:44}==\n-----END EC PRIVATE KEY----- ‖ APNs auth key AuthKey_@{A:10}.p8 (team @{A:10}):\n-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg@{b:16}\n@{b:64}\n@{b:56}\n-----END PRIVATE KEY-----
s|openssh_private_key|Bastion jump key (shared by the SRE rotation):\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n@{pem:4}\n-----END OPENSSH PRIVATE KEY----- ‖ Ключ для деплоя на старый сервер:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn\n@{pem:6}\n-----END OPENSSH PRIVATE KEY-----
s|pgp_age_key|Package signing key for the apt repo, passphrase-free:\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF@{b:58}\n@{pem:4}\n=@{b:4}\n-----END PGP PRIVATE KEY BLOCK----- ‖ sops age identity for the infra repo: AGE-SECRET-KEY-1@{q:58}
s|db_url_password|DATABASE_URL=postgres://app_rw:@{a:24}@db-prod-1.internal.acme.io:5432/orders is what the workers use. ‖ psql "postgresql://analyst:@{a:16}@warehouse.acme.io:5432/dwh?sslmode=require" drops you straight into the warehouse. ‖ Conexão do Metabase com a réplica: postgresql://metabase_ro:@{a:20}@replica-2.acme.internal:5432/app ‖ The blog DB on shared hosting: mysql://wp_admin:@{a:18}@10.0.3.14:3306/wordpress
s|nosql_url_password|MONGO_URI=mongodb+srv://svc-catalog:@{a:20}@cluster0.@{l:5}.mongodb.net/catalog?retryWrites=true&w=majority ‖ Session cache: redis://default:@{a:32}@redis-14211.c1.eu-west-1-2.ec2.cloud.redislabs.com:14211 ‖ Celery: broker_url = "amqp://celery:@{a:20}@rabbit.internal:5672/prod"
s|password_assignment|Staging .env: DB_HOST=staging-db DB_USER=app DB_PASSWORD=@{p:18} ‖ POSTGRES_PASSWORD=@{a:22} in docker-compose.prod.yml; the same value is in 1Password under orders-db. ‖ ELASTIC_PASSWORD=@{a:20} for the elastic superuser on the logging cluster. ‖ MinIO on the lab box: MINIO_ROOT_USER=labadmin MINIO_ROOT_PASSWORD=@{a:24}
s|password_prose|The staging admin login is admin / @{p:14}. Ask before changing it, the QA scripts depend on it. ‖ Root password on the old Jenkins box is @{p:12}; that machine isn't in LDAP. ‖ If the NAS locks you out, the local admin password is @{p:13} (sticker on the rack is outdated). ‖ Office Wi-Fi Acme-Staff password: @{p:16}. Guests use the other SSID.
s|password_prose_intl|Das Passwort für den Grafana-Admin auf monitoring-01 ist @{p:14}. ‖ Le mot de passe root du bastion est « @{p:14} », à changer après l'audit. ‖ La contraseña del usuario replicador de MySQL es @{p:16}. ‖ 测试环境数据库的 root 密码是 @{p:14}，不要发到群里。
s|jwt_token|The reporting service calls the internal API with a non-expiring JWT: Authorization: Bearer @{jwt} ‖ INTERNAL_API_TOKEN=@{jwt} (signed with the prod HS256 secret, expires 2034). ‖ kubeconfig for the ci namespace has users: - name: ci  user: token: @{jwt} ‖ SUPABASE_SERVICE_ROLE_KEY=@{jwt:service_role} (bypasses RLS, backend only).
s|signing_secret|JWT_SECRET=@{a:64}; every service verifying user tokens must share this exact value. ‖ settings/prod.py has SECRET_KEY = '@{j:50}'; rotating it logs everyone out. ‖ SECRET_KEY_BASE=@{h:128} for the Rails admin on Render. ‖ Airflow FERNET_KEY=@{B:43}= — losing it means every stored connection is unreadable.
s|bearer_token|Manual check against the carrier: curl -H "Authorization: Bearer @{a:40}" https://api.partner-logistics.com/v2/shipments ‖ Token de acesso da API do ERP (não expira): Bearer @{B:48} ‖ The geodata vendor wants X-API-Key: @{a:32} on every request; it's our paid plan.
s|basic_auth|The vendor SOAP endpoint wants Authorization: Basic @{basic}; it's hardcoded in the adapter for now. ‖ ~/.docker/config.json on the GPU nodes: {"auths": {"registry.acme.io": {"auth": "@{basic}"}}}
s|url_credentials|Internal PyPI mirror: pip install --index-url https://deploy:@{a:20}@pypi.acme.internal/simple acme-core ‖ Prometheus remote_write goes to https://@{d:6}:glc_@{b:80}=@prometheus-prod-01.grafana.net/api/prom/push ‖ Trigger the nightly by hand: curl -X POST https://ci-bot:11@{h:32}@jenkins.acme.io/job/nightly/build
s|conn_string_password|CRM connection string: Server=tcp:acme-sql.database.windows.net,1433;Database=crm;User ID=crm_app;Password=@{p:18};Encrypt=True; ‖ Spark job reads jdbc:postgresql://replica.internal:5432/app?user=spark&password=@{a:20}
s|package_registry_token|npm publish from CI uses NPM_TOKEN=npm_@{a:36} (automation token, bypasses 2FA). ‖ twine upload uses TWINE_USERNAME=__token__ and TWINE_PASSWORD=pypi-AgEIcHlwaS5vcmcCJ@{B:140} ‖ docker login -u acmebuild -p dckr_pat_@{B:27} (the build account, not your personal one).
s|npmrc_auth|.npmrc for our scope:\n@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=ghp_@{a:36} ‖ Copy this into your ~/.npmrc to publish @acme/ui: //registry.npmjs.org/:_authToken=npm_@{a:36}
s|twilio_credentials|SMS OTP sender: TWILIO_ACCOUNT_SID=AC@{h:32} TWILIO_AUTH_TOKEN=@{h:32} ‖ Twilio API key for the voice service is SK@{h:32} with secret @{a:32}.
s|email_api_key|Transactional mail goes through SENDGRID_API_KEY=SG.@{B:22}.@{B:43} ‖ Newsletter job uses a second SendGrid key, SG.@{B:22}.@{B:43}, with marketing scopes only. ‖ Mailgun for the EU region: api key key-@{h:32}, sending domain mg.acme.io. ‖ Mailchimp audience sync: MAILCHIMP_API_KEY=@{h:32}-us21
s|platform_access_token|Shopify Admin API token for the store sync: shpat_@{h:32} ‖ SQUARE_ACCESS_TOKEN=EAAA@{B:60} (production location). ‖ Long-lived page token for the Instagram poster: EAAB@{a:180} ‖ PAYPAL_CLIENT_ID=A@{B:79} PAYPAL_CLIENT_SECRET=E@{B:79} (live app).
s|paas_token|HEROKU_API_KEY=@{uuid} is what the old review-apps pipeline uses. ‖ doctl auth init --access-token dop_v1_@{h:64} ‖ FLY_API_TOKEN=FlyV1 fm2_@{b:180}
s|observability_key|Terraform datadog provider: DD_API_KEY=@{h:32} DD_APP_KEY=@{h:40} ‖ Datadog-Agent auf den Bare-Metal-Hosts: api_key: @{h:32} in /etc/datadog-agent/datadog.yaml. ‖ New Relic: NEW_RELIC_LICENSE_KEY=@{h:36}NRAL and the user key for NerdGraph is NRAK-@{A:27}. ‖ Grafana service account token for dashboard provisioning: glsa_@{a:32}_@{h:8}
s|azure_credential|AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmebackups;AccountKey=@{b:86}==;EndpointSuffix=core.windows.net" ‖ Upload URL for the partner drop (valid through 2027): https://acmedrop.blob.core.windows.net/incoming?sv=2022-11-02&ss=b&srt=co&sp=rwlac&se=2027-12-31T23:59:59Z&spr=https&sig=@{b:43}%3D ‖ Terraform service principal: ARM_CLIENT_ID=@{uuid} ARM_CLIENT_SECRET=@{a:3}8Q~@{B:34} ARM_TENANT_ID=@{uuid} ‖ Azure DevOps PAT for the artifacts feed: @{y:52}
s|iac_token|VAULT_TOKEN=hvs.@{a:24} is the root token from the DR drill; revoke it once the drill is signed off. ‖ ~/.terraformrc: credentials "app.terraform.io" { token = "@{a:14}.atlasv1.@{a:67}" } ‖ PULUMI_ACCESS_TOKEN=pul-@{h:40} ‖ DOPPLER_TOKEN=dp.st.prd.@{a:43} on the prod ECS task definition.
s|saas_api_key|Linear API key for the triage bot: lin_api_@{a:40} ‖ Notion integration secret for the wiki export: ntn_@{d:11}@{a:35} ‖ Figma token for exporting icons: figd_@{B:40} ‖ Airtable PAT for the content calendar: pat@{a:14}.@{h:64}
s|dev_tool_token|sentry-cli uses SENTRY_AUTH_TOKEN=sntryu_@{h:64} to upload source maps. ‖ Jira automation logs in as jira-bot@acme.io with API token ATATT3xFfGF0@{B:170}=@{H:8} ‖ Postman API key for the collection sync: PMAK-@{h:24}-@{h:34} ‖ CIRCLE_TOKEN=CCIPAT_@{a:22}_@{h:40} for the pipeline trigger script.
s|ml_platform_token|HF_TOKEN=hf_@{a:34} has write on the acme org; needed to push the fine-tuned checkpoints. ‖ Para baixar o Llama gated no cluster: huggingface-cli login --token hf_@{a:34} ‖ On new GPU boxes run wandb login @{h:40} so runs land in the team entity. ‖ DATABRICKS_HOST=https://adb-@{d:16}.7.azuredatabricks.net DATABRICKS_TOKEN=dapi@{h:32}
s|crypto_wallet_key|Hardhat deployer private key on mainnet: 0x@{h:64} (holds ~2 ETH for gas). ‖ Relayer hot wallet PRIVATE_KEY=@{h:64} in the bot's .env.
s|mnemonic_seed|Treasury wallet recovery phrase: @{w:12} ‖ 钱包助记词（支付服务的热钱包）：@{w:24}
s|totp_seed|AWS root MFA seed, kept here so two people can generate codes: otpauth://totp/Amazon:root@acme.io?secret=@{z:32}&issuer=Amazon
s|session_cookie|To reproduce as an admin, set cookie sessionid=@{l:32} on admin.acme.io (my session, valid two weeks). ‖ OAUTH2_PROXY_CLIENT_SECRET=@{B:32} and OAUTH2_PROXY_COOKIE_SECRET=@{B:32}
s|netrc_pgpass|~/.netrc on the deploy host:\nmachine api.heroku.com\n  login ops@acme.io\n  password @{uuid} ‖ .pgpass line for the backup cron: db-prod-1.internal:5432:*:backup:@{a:20}
s|vpn_tunnel_key|wg0.conf on the VPN gateway: [Interface] PrivateKey = @{b:43}= Address = 10.8.0.1/24 ListenPort = 51820 ‖ New subnet routers join with tailscale up --authkey tskey-auth-@{a:12}CNTRL-@{a:33} ‖ Webhook demos: ngrok config add-authtoken @{a:27}_@{a:21}
s|push_key|FCM legacy server key the Android push worker still uses: AAAA@{B:7}:APA91b@{B:134} ‖ Web push: VAPID_PRIVATE_KEY=@{B:43} stays on the notification service.
s|map_search_key|Mapbox secret token for tileset uploads: sk.eyJ1IjoiYWNtZSIsImEiOiJ@{a:20}In0.@{B:22} ‖ ALGOLIA_APP_ID=@{A:10} ALGOLIA_ADMIN_KEY=@{h:32} (admin key, indexing job only). ‖ Backend verifies captchas with RECAPTCHA_SECRET_KEY=6L@{B:38}
s|data_platform_password|Snowflake loader: account=ac12345.eu-central-1 user=ETL_SVC password=@{p:20} warehouse=LOAD_WH ‖ Confluent Cloud client: sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="@{A:16}" password="@{k:64}";
s|directory_password|GitLab LDAP bind: bind_dn 'cn=svc-gitlab,ou=services,dc=acme,dc=io', password '@{p:18}' ‖ Status page mails via smtp.office365.com:587, user noreply@acme.io, password @{p:14} ‖ The old NAS only does password auth: sshpass -p '@{p:14}' ssh admin@203.0.113.25
s|build_signing_password|Android release signing in gradle.properties: storePassword=@{p:16} keyPassword=@{p:16} keyAlias=upload ‖ The ansible vault password is @{p:20}; put it in ~/.vault_pass to run site.yml.
s|encryption_key|Field-level encryption key for the PII columns (AES-256): PII_ENC_KEY=@{h:64}
s|webhook_shared_secret|GitHub webhook secret for the deploy listener: @{h:40}
s|admin_api_token|CLOUDFLARE_API_TOKEN=@{B:40} (Zone:Edit on acme.io only, used by cert-manager DNS01). ‖ SCIM sync to Okta sends Authorization: SSWS 00@{B:40} ‖ OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ@{B:220} ‖ Log shipper authenticates with Authorization: ApiKey @{b:58}==
s|ci_service_token|LaunchDarkly server SDK key (prod): sdk-@{uuid} ‖ SNYK_TOKEN=@{uuid} for the nightly dependency scan. ‖ CODECOV_TOKEN=@{uuid} (repo upload token).
b|rotation_policy|We rotate every service credential at least every 90 days; the calendar reminder lives in #sec-ops. ‖ Decision 2026-03: no long-lived AWS access keys for humans any more. Use SSO and aws sso login --profile dev. ‖ Nach jedem Offboarding rotieren wir alle geteilten Passwörter im Team-Tresor, nicht nur die des Accounts. ‖ When rotating the Stripe key, create the new one, deploy, watch errors for an hour, then roll the old one. Never the other order.
b|env_reference|Read the Stripe key from os.environ["STRIPE_SECRET_KEY"], never from a settings constant. ‖ docker run -e DATABASE_URL="$DATABASE_URL" -e REDIS_PASSWORD="$REDIS_PASSWORD" acme/api:latest; the values come from the host env. ‖ In compose files write POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set it in .env} so a missing value fails loudly. ‖ El token de GitHub se lee de process.env.GH_TOKEN; si está vacío el script debe abortar, no seguir sin autenticación. ‖ Required env vars for the API: DATABASE_URL, REDIS_URL, JWT_SECRET, SENTRY_DSN, STRIPE_SECRET_KEY. The app refuses to boot without them.
b|ci_secret_reference|GitHub Actions: pass it as env: NPM_TOKEN: ${{ secrets.NPM_TOKEN }} and never echo it in a step. ‖ GitLab: mark CI_DEPLOY_PASSWORD as masked and protected; jobs on unprotected branches won't see it, that's intended. ‖ CircleCI contexts hold the AWS creds; a job only gets them if it declares context: aws-prod.
b|placeholder_value|.env.example has OPENAI_API_KEY=your-key-here and STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx; copy it to .env and fill in real values. ‖ README examples must use <YOUR_API_TOKEN> in angle brackets so nobody pastes a real one by accident. ‖ API docs sample: curl -H "Authorization: Bearer $ACME_TOKEN" https://api.acme.io/v1/me ‖ In the Helm chart defaults leave auth.password: "" and fail the install if it's still empty. ‖ Terraform variable "db_password" { sensitive = true } has no default; CI passes TF_VAR_db_password.
b|redacted_value|The token leaked in INC-2291 was ghp_****************************a91F; revoked within four minutes, no access in the audit log. ‖ Logs show keys as last-four only, e.g. sk_live_…4f2a, and cards as **** 4242. ‖ Our log scrubber turns password=hunter2 into password=[REDACTED]; the unit test asserts exactly that string.
b|public_doc_example|AWS docs use AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; our moto-based tests use those too. ‖ JWT parser tests use the jwt.io sample eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c
b|hash_test_vector|Test vector: HMAC-SHA256(key="key", msg="The quick brown fox jumps over the lazy dog") = f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8. ‖ sha256("") is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855; the cache uses it for empty bodies.
b|git_sha|The checkout regression started in @{h:40}; git bisect pointed right at it. ‖ Pin actions by SHA: uses: actions/checkout@@{h:40} # v4, dependabot bumps it. ‖ Hotfix cherry-picked onto release/3.2 as @{h:12}; the original is @{h:12} on main.
b|image_digest|Prod runs ghcr.io/acme/api@sha256:@{h:64}; roll back to that digest if 3.2 misbehaves. ‖ Base image is pinned: FROM python:3.12-slim@sha256:@{h:64}
b|checksum|Verify the terraform zip before installing: sha256sum should print @{h:64}. ‖ La release 2.4.1 del SDK tiene MD5 @{h:32}; si no coincide, el mirror está corrupto. ‖ main.@{h:20}.js is cached forever; index.html must be no-cache or users get stale chunks. ‖ Pin cryptography==42.0.5 until the wheel for musl is fixed; hash pinned with --require-hashes.
b|content_integrity|CDN script tag must carry integrity="sha384-@{b:64}" crossorigin="anonymous". ‖ package-lock shows "integrity": "sha512-@{b:86}==" for lodash; a mismatch means the registry proxy is serving junk. ‖ S3 ETag "@{h:32}" equals the MD5 only for non-multipart uploads; don't use it as a checksum. ‖ LFS pointer for the demo video: oid sha256:@{h:64} size 48211932.
b|request_trace_id|Trace @{h:32} shows the 9 s stall in the inventory call; span id @{h:16}. ‖ Customer ticket quotes x-request-id @{uuid}; look it up in Loki, not in Sentry.
b|resource_id|Tenant @{uuid} is the big customer whose CSV exports time out after 30s. ‖ Feature flag new_checkout is on for org @{uuid} only (pilot). ‖ The stuck PVC has uid @{uuid}; deleting the finalizer is the fix, see runbook. ‖ Datadog monitor @{d:8} pages when the queue lag passes 5 minutes. ‖ Terraform state lock @{uuid} is stale from a crashed run; terraform force-unlock it only after checking nobody is applying.
b|sortable_id|Order 6@{h:23} is stuck in PENDING; don't touch it, finance is reconciling by hand. ‖ Event ids are ULIDs like 01@{c:24}; they sort by time, so pagination uses them directly.
b|ssh_public_key|Add my public key to the bastion: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI@{b:43} jana@thinkpad ‖ CI runner public key (authorized_keys on deploy hosts): ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ@{b:300} ci@runner-7
b|ssh_host_key|If ssh warns about bastion.acme.io, the correct host key fingerprint is SHA256:@{b:43}. Anything else, stop and ask. ‖ Pre-seed known_hosts in the image: git.acme.io ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB@{b:87}=
b|public_key_cert|Internal root CA, trust it in network_security_config.xml:\n-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE@{b:44}\n@{pem:3}\n-----END CERTIFICATE----- ‖ Partner webhook signatures verify against their public key:\n-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA@{b:43}=\n-----END PUBLIC KEY----- ‖ Verify images with cosign verify --key cosign.pub ghcr.io/acme/api; cosign.pub is committed at the repo root. ‖ Android pins the SPKI hash sha256/@{b:43}= for api.acme.io plus a backup pin.
b|public_key_id|Release tags are signed with GPG key @{H:16}; full fingerprint @{H:40}. Import it from keys.openpgp.org. ‖ Add recipient age1@{y:58} to .sops.yaml when someone joins the infra team. ‖ New laptop peer: PublicKey = @{b:43}=, AllowedIPs = 10.8.0.7/32.
b|stripe_public_id|Checkout page embeds pk_live_51@{a:97}; publishable keys are public by design. ‖ Customer cus_@{a:14} was charged twice; refund pi_@{a:24}, not the charge ch_@{a:24}. ‖ Webhook evt_@{a:24} arrived three times; handlers must be idempotent on event id.
b|aws_arn|CI assumes arn:aws:iam::@{d:12}:role/ci-deployer via OIDC, no keys involved. ‖ Die KMS-Key-ARN für die Backups ist arn:aws:kms:eu-central-1:@{d:12}:key/@{uuid}; nur die Backup-Rolle darf decrypten.
b|cloud_resource_id|Base AMI for the runners is ami-@{h:17} (Ubuntu 24.04, eu-west-1). ‖ VPC vpc-@{h:17}, subnets subnet-@{h:17} and subnet-@{h:17}; the NAT gateway lives in the first. ‖ Analytics runs in GCP project acme-analytics-@{d:6}; billing account alerts at 80%. ‖ Subscription id @{uuid}, tenant id @{uuid}; neither is a secret, both appear in every portal URL.
b|secret_store_reference|Secrets live at secret/data/payments/stripe in Vault; the app reads them through the agent sidecar, never at build time. ‖ vault kv get -field=password secret/ci/sonar prints the value; don't paste the output into chat. ‖ Deployment reads the DB password via env: - name: DB_PASSWORD valueFrom: secretKeyRef: name: orders-db key: password ‖ External Secrets syncs prod/orders/db from AWS Secrets Manager into the orders-db Secret every hour.
b|secret_manager_cmd|Fetch the DB creds with aws secretsmanager get-secret-value --secret-id prod/orders/db --query SecretString --output text. ‖ gcloud secrets versions access latest --secret=stripe-key is allowed only from the ops bastion.
b|generated_secret_cmd|kubectl create secret generic api-keys --from-literal=jwt=$(openssl rand -hex 32) creates a fresh one per cluster. ‖ Generate Django keys with python -c 'from django.core.management.utils import get_random_secret_key as g; print(g())'.
b|password_policy|Minimum password length is 12, no composition rules, and we check against the HIBP range API. ‖ Política de contraseñas: mínimo 14 caracteres para cuentas de administrador, rotación solo si hay sospecha de filtración. ‖ Validation: /^(?=.*[a-z])(?=.*\d).{12,}$/ for passwords; don't show which rule failed first. ‖ JWT_SECRET must be at least 32 random bytes; the boot check rejects anything shorter.
b|credential_storage|User passwords: argon2id with m=64MiB, t=3, p=1. bcrypt cost 12 is legacy and rehashed on login. ‖ Never store API keys in plaintext: keep a SHA-256 of the key plus an 8-char prefix for lookup. ‖ Seed user alice@example.com has password_hash $2b$12$@{k:53} in fixtures/users.json; the plain test password is in the factory. ‖ The api_keys table stores key_prefix and key_hash, never the key; lookups go by prefix then constant-time compare.
b|test_password|The weak-password validator test feeds 'password123', 'qwerty' and 'letmein' and expects all three rejected. ‖ Playwright e2e logs in as qa+e2e@example.com on the ephemeral preview env, which is wiped and reseeded per PR. ‖ Use 4242 4242 4242 4242 with any future expiry and any CVC in Stripe test mode. ‖ OTP codes are 6 digits, valid 30 s with one step of skew; the 123456 in e2e works only against the mock SMS provider.
b|random_fixture|Fuzz corpus seed string @{a:40} reproduces the parser crash; it's random bytes, nothing more. ‖ Test fixture api_key = "test_@{a:24}" is only accepted by the mock server in tests/mocks. ‖ Unit tests use token="ghp_" + "x" * 36 to check the redaction path; the string is built at runtime so scanners stay quiet.
b|llm_tokens|Keep prompts under 6k tokens; the summarizer truncates at max_tokens=1024 and the cost dashboard counts input tokens separately. ‖ Le modèle facture au token : un prompt de 12 000 tokens coûte plus que toute la réponse, donc on coupe l'historique. ‖ Con el modelo grande gastamos unos 40 000 tokens por revisión de PR; poner un límite de 8 000 por archivo.
b|tokenizer|The tokenizer splits "unbelievable" into 3 tokens; our BPE vocab is 32k and the special tokens are <s>, </s>, <pad>.
b|cache_key|Redis keys follow tenant:{id}:session:{sid} with a 30 min TTL; never KEYS * in prod, use SCAN. ‖ Raw events land at s3://acme-raw/events/2026/04/01/@{uuid}.json.gz; the object key layout is part of the contract.
b|db_key|Primary keys are UUIDv7; every foreign key gets an index, no exceptions. ‖ Migrate the events table's primary key from bigint to UUIDv7 in three steps: add column, backfill, swap. ‖ The deadlock came from a missing index on the foreign key orders.customer_id; added in migration 0142.
b|i18n_key|Translation keys like auth.password.reset_link_sent live in locales/en.json; new keys need a German string before merge. ‖ UI string keys: login.password="Passwort", login.forgot="Passwort vergessen?", login.submit="Anmelden".
b|non_security_key|Cmd+K opens the command palette, Esc closes it; don't bind Cmd+W, browsers eat it. ‖ Secret Santa for the Berlin office closes Friday; budget 25 EUR. Not that kind of secret. ‖ Q3 key results: p95 checkout latency under 400 ms, crash-free sessions above 99.5%. ‖ The onboarding video's soundtrack is in D minor; marketing wants it changed to something less gloomy.
b|oauth_public|Google OAuth client id @{d:12}-@{l:32}.apps.googleusercontent.com is public; the client secret is in Vault. ‖ iOS app uses the Auth0 client id @{a:32}; it is a public client with PKCE, no secret. ‖ PKCE: code_verifier is 43 to 128 chars, code_challenge = BASE64URL(SHA256(verifier)), method S256 only. ‖ Failing login URL from the bug report: /authorize?response_type=code&code_challenge=@{B:43}&code_challenge_method=S256&state=@{B:22} ‖ The reCAPTCHA response token from the browser is single-use and expires in 2 minutes; don't cache it.
b|nonce_idempotency|Every POST to payments sends Idempotency-Key: <uuid4>; the failing retry used @{uuid}. ‖ CSP nonce must be per response; the bug was a cached page reusing 'nonce-@{b:22}=='. ‖ The replay check failed because the client reused nonce @{h:32}; nonces must be unique per request.
b|mobile_app_id|Play Console build @{A:8} is the one that crashed on Android 12; symbols are uploaded. ‖ Crashlytics issue @{h:32} is the ANR on the checkout screen; fixed in 4.18.2. ‖ Bundle id io.acme.app, team id @{A:10}; provisioning profile is managed by fastlane match. ‖ Test iPhone UDID 00008110-@{H:16} is registered for ad-hoc builds. ‖ Upload key SHA-256 fingerprint @{H:2}:@{H:2}:@{H:2}:@{H:2}:@{H:2}:@{H:2}:@{H:2}:@{H:2}:...; register it in Firebase for App Links.
b|chat_id|Alerts post to channel C0@{A:9}; the on-call user group is S0@{A:9}.
b|blockchain_public|Treasury multisig lives at 0x@{h:40} on mainnet; it's public, share it freely. ‖ The stuck withdrawal is tx 0x@{h:64} on Arbitrum; it's a nonce gap, not a contract bug. ‖ Deployment of the v2 vault contract: tx 0x@{h:64}, block 19284311.
b|experiment_id|Best ranking model so far: MLflow run @{h:32}, val_auc 0.912, promoted to Staging. ‖ W&B run acme/recsys/@{l:8} has the fixed warmup schedule; compare against @{l:8}. ‖ Seeds: torch.manual_seed(1337), numpy 1337, data split seed 20240611; change them and the eval numbers aren't comparable. ‖ Slurm job @{d:7} on the a100 partition is the long fine-tune; don't scancel it.
b|model_data_hash|Pin the embedding model with revision="@{h:40}" in from_pretrained so upstream pushes can't change results. ‖ DVC tracks train.parquet v3 as md5 @{h:32}; if dvc status shows a different hash, someone overwrote it. ‖ Eval set fingerprint (datasets lib) @{h:16}; if it changes, rerun the baseline. ‖ Checkpoint ckpt-@{d:6}-@{h:8}.safetensors is the release candidate for the ranker.
b|base64_payload|The flags cookie is plain base64 JSON, e.g. eyJmbGFncyI6WyJuZXdfY2hlY2tvdXQiXX0= decodes to the flag list. Nothing sensitive. ‖ Preferências do usuário vão no cookie prefs=eyJ0aGVtZSI6ImRhcmsiLCJsYW5nIjoicHQtQlIifQ== (tema e idioma, nada sensível).
b|public_client_key|Frontend search uses the search-only Algolia key @{h:32} with app id @{A:10}; it can't write. ‖ Signup form renders reCAPTCHA with site key 6L@{B:38}; the site key is public. ‖ Map component uses the public token pk.eyJ1IjoiYWNtZSIsImEiOiJ@{a:20}In0.@{B:22}, URL-restricted to acme.io. ‖ Service worker subscribes with applicationServerKey B@{B:86}; that's the public half. ‖ firebaseConfig in the web app has apiKey "AIza@{B:35}", authDomain acme-app.firebaseapp.com; Firebase web config is public, restrict by App Check.
b|public_client_id|Web client Sentry DSN is https://@{h:32}@o@{d:6}.ingest.sentry.io/@{d:7}; it ships in the JS bundle anyway. ‖ The mobile app embeds SUPABASE_ANON_KEY=@{jwt:anon}; row-level security is what protects data. ‖ Web uses LaunchDarkly client-side ID @{h:24}; it's public, the server SDK key is not. ‖ Browser analytics loads Segment with write key @{a:32}; it's client-side and can only send events.
b|token_format_doc|Stripe test mode keys start with sk_test_ and pk_test_; live keys never go in the staging env. ‖ Slack bot tokens start with xoxb-, user tokens with xoxp-, GitHub classic PATs with ghp_. Never paste any of them here. ‖ Pre-commit hook blocks anything matching AKIA[0-9A-Z]{16} or -----BEGIN [A-Z ]*PRIVATE KEY-----. ‖ gitleaks allowlist covers tests/fixtures/** only; anything else flagged must be fixed, not allowlisted. ‖ Don't put credentials in git remote URLs; they end up in .git/config and in shell history.
b|incident_process|If a secret lands in git: revoke it first, then rewrite history. Rewriting alone doesn't help, forks and caches keep it. ‖ Sécurité : toute clé exposée dans un ticket Jira est considérée compromise, même si le ticket est privé. ‖ Rotated the orders-db password on 2026-04-02 after the contractor offboarding; apps picked it up via External Secrets. ‖ Revoked all personal npm tokens older than 2025; publish only from CI now.
b|key_identifier|Name API keys <service>-<env>-<yyyymm>, e.g. billing-prod-202604, so the audit log is readable. ‖ JWKS kid 2026-04-a is current; 2025-11-b stays published until all tokens signed with it expire. ‖ The license_key field in the on-prem config is a customer id, e.g. ACME-ONPREM-0042, checked against our billing DB; it grants nothing by itself. ‖ Key id for the analytics partner is AKID-analytics-07 in our admin UI; the secret part was shown once and is in Vault. ‖ LaunchDarkly flag key checkout-v2-rollout controls the new flow; the client-side id goes in the web bundle.
b|token_lifecycle|Access tokens live 15 minutes, refresh tokens 30 days with rotation and reuse detection. ‖ Mobile keeps the refresh token in Keychain / EncryptedSharedPreferences, never in AsyncStorage. ‖ Reset links expire after 30 minutes and are single-use; the token in the link is hashed in the DB.
b|session_config|Server-rendered forms include csrfmiddlewaretoken; the JSON API relies on SameSite=Lax cookies plus the X-CSRFToken header. ‖ SESSION_COOKIE_SECURE=True, SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_AGE=28800. Don't loosen these for local dev in the shared settings.
b|local_dev_connection|Local dev: postgres://app@localhost:5432/app_dev with trust auth, no password needed. ‖ Tests use sqlite:///:memory: and redis://localhost:6379/15; db 15 is flushed after every test. ‖ docker-compose.dev.yml uses postgres/postgres for the local DB; it only binds 127.0.0.1.
b|api_usage|The partner expects the key in the X-Api-Key header, not in ?api_key=, because query strings end up in their access logs. ‖ Each API key gets 600 requests per minute; bursts above that return 429 with Retry-After. ‖ README badge uses https://img.shields.io/github/actions/workflow/status/acme/api/ci.yml; no token needed for public repos. ‖ Public status page webhook endpoint is https://status.acme.io/hooks/incoming; it only accepts signed payloads.
b|key_tooling|~/.ssh/config entry:\nHost bastion\n  HostName 203.0.113.10\n  User ops\n  IdentityFile ~/.ssh/id_ed25519 ‖ New laptop: ssh-keygen -t ed25519 -C "you@acme.io" -f ~/.ssh/id_acme, then upload the .pub to GitHub. ‖ Webhook signing keys are generated with openssl genpkey -algorithm ed25519 -out signing.pem on the HSM host only. ‖ Engineers get 8h SSH certificates from the SSH CA via step ssh login; static authorized_keys are being removed.
b|keyless_auth|Our kubeconfigs use exec: aws eks get-token, so there are no static tokens in the file to leak. ‖ Lambda functions get their own least-privilege role; no shared lambda-exec role with s3:*. ‖ GKE pods use Workload Identity; service-account JSON keys are disabled by org policy. ‖ GitHub Actions deploys to AWS through OIDC (token.actions.githubusercontent.com), no AWS keys stored in GitHub.
b|encrypted_secret|values.prod.yaml is sops-encrypted, e.g. password: ENC[AES256_GCM,data:@{b:24},iv:@{b:43}=,tag:@{b:22}==,type:str]; safe to commit. ‖ group_vars/prod/vault.yml starts with $ANSIBLE_VAULT;1.1;AES256 followed by lines like @{h:64}; encrypted, fine in git. ‖ SealedSecret for orders-db: encryptedData: password: AgB@{b:120}; only the in-cluster controller can decrypt it.
b|signature_value|Our webhooks send X-Signature: sha256=@{h:64}; that's an HMAC of the body, the value changes per request. ‖ From the failed Stripe event: Stripe-Signature: t=1712345678,v1=@{h:64}. Clock skew on the worker caused the rejection. ‖ Analytics uses sha256(lowercased email) as user key, e.g. @{h:64}; never the raw email.
b|mfa_policy|Admins must use TOTP or WebAuthn; SMS codes are not allowed for any production account. ‖ Backup codes are shown once after enrolment and stored hashed; support cannot read them. ‖ Everyone in SRE carries a YubiKey; touch is required for every git commit signature.
b|password_ux|Login form: keep the show-password toggle and never set autocomplete="off" on password fields, it breaks password managers. ‖ QA found the password field accepts 4096 chars and bcrypt truncates at 72 bytes; cap input at 128.
b|credential_location|Shared service creds live in 1Password, vault "Platform", item names match the service name. ‖ Les accès au compte Apple Developer sont dans Bitwarden, collection « Mobile » ; demander à Louise. ‖ On macOS the CLI stores its token in the login keychain under service acme-cli; delete it there to force re-login. ‖ git config --global credential.helper osxkeychain; never put the PAT in the remote URL.
b|crypto_decision|RSA keys below 3072 bits are rejected by the new TLS policy; use ECDSA P-256 for new certs. ‖ Use XChaCha20-Poly1305 from libsodium for field encryption; nonces are random 24 bytes, stored beside the ciphertext.
b|kms_encryption|Root CA key lives offline on two YubiHSMs in separate safes; the ceremony needs two of three officers. ‖ All RDS instances use KMS encryption at rest with the aws/rds key; customer-managed keys only for the PII DB. ‖ Use alias/acme-pii for envelope encryption; the key policy allows only the pii-service role to decrypt.
b|shareable_code|QA promo code SPRING-QA-2026 gives 100% off on staging only; it doesn't exist in prod. ‖ Short links look like acme.link/@{a:7}; the slug is random, not a secret, anyone can open them. ‖ Invite emails contain /join?code=…; the code is single-use and expires in 7 days.
b|design_tokens|Design tokens: color.primary=#1F6FEB, color.danger=#D1242F, radius.md=8px. "Token" here means design token. ‖ Tokens Studio syncs design tokens to tokens.json; run npm run tokens:build after pulling.
b|network_address|Lab printer MAC is 3c:22:fb:@{h:2}:@{h:2}:@{h:2}; DHCP reservation 10.0.9.40. ‖ Bastion is 203.0.113.10:22, the VPN endpoint 198.51.100.4:51820 (UDP).
b|security_finding|Pentest finding F-12: session tokens were in the URL of the export link. Fixed by moving them to a POST body. ‖ The API returned the hashed API key in GET /keys; now it returns only the prefix and created_at. ‖ Prod snapshots for staging go through the masking job: emails become user_<id>@example.test, tokens are nulled.
b|onboarding|Day one: request access to Vault (group eng-readers), then run make bootstrap, which pulls dev creds automatically. ‖ Para o primeiro acesso à AWS rode aws configure sso; não peça chaves de acesso a ninguém. ‖ docker login ghcr.io uses your GitHub username and a PAT with read:packages; generate your own, don't share. ‖ The @acme npm scope is private; npm whoami should show your own user after npm login --scope=@acme.
b|memory_rule|Reminder for agents: never write API keys or passwords into memory or tickets; store a pointer to the vault path instead. ‖ エージェントへ：APIキーやパスワードをメモに書かないこと。保存場所（Vault のパス）だけ書く。
"""  # noqa: E501

_A = string.ascii_letters + string.digits
_ALPHABETS = {
    "a": _A,
    "A": string.ascii_uppercase + string.digits,
    "l": string.ascii_lowercase + string.digits,
    "L": string.ascii_lowercase,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "d": string.digits,
    "b": _A + "+/",
    "B": _A + "_-",
    "z": string.ascii_uppercase + "234567",
    "y": string.ascii_lowercase + "234567",
    "q": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "c": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    "p": _A + "!#%^*-_=+.?~",
    "j": string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)",
    "k": _A + "./",
}
_WORD_TEXT = (
    "abandon ability absorb acoustic adapt alley amber anchor april arena armor aunt "
    "bamboo banner barrel beach bitter blossom bracket brisk cabin canal carbon cattle "
    "cherry civil clutch coral cousin crystal dawn decade denial dolphin drift eager "
    "elbow ember engine estate fabric falcon fever glimpse goose gravity harbor hollow"
)
_WORDS = _WORD_TEXT.split()
_SLOT = re.compile(r"@\{(\w+)(?::([^}]*))?\}")


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _fill(rng: random.Random, kind: str, arg: str | None) -> str:
    if kind in _ALPHABETS:
        return "".join(rng.choice(_ALPHABETS[kind]) for _ in range(int(arg or 0)))
    if kind == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if kind == "w":
        return " ".join(rng.choice(_WORDS) for _ in range(int(arg or 12)))
    if kind in ("pem", "pemj"):
        rows = [_fill(rng, "b", "64") for _ in range(int(arg or 4))]
        return ("\\n" if kind == "pemj" else "\n").join(rows)
    if kind == "basic":
        pair = f"{rng.choice(['svc', 'api', 'partner'])}_{_fill(rng, 'L', '5')}:"
        return base64.b64encode((pair + _fill(rng, "p", "16")).encode()).decode()
    if kind == "jwt":
        head = {"alg": "HS256", "typ": "JWT"}
        iat = 1_700_000_000 + rng.randrange(60_000_000)
        body = {"sub": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "iat": iat}
        if arg:
            body = {"iss": "supabase", "ref": _fill(rng, "L", "20"), "role": arg, "iat": iat}
        body["exp"] = iat + 315_360_000
        parts = [json.dumps(x, separators=(",", ":")).encode() for x in (head, body)]
        return ".".join([*(_b64url(p) for p in parts), _b64url(rng.randbytes(32))])
    raise ValueError(kind)


def corpus() -> list[dict]:
    """Return the corpus rows; the same rows on every call."""
    rng = random.Random(SEED)
    rows = []
    for line in _DATA.strip().splitlines():
        label, kind, texts = line.split("|", 2)
        for text in texts.split(" ‖ "):
            text = text.replace("\\\\n", "\0").replace("\\n", "\n").replace("\0", "\\n")
            text = _SLOT.sub(lambda m: _fill(rng, m.group(1), m.group(2)), text)
            label_name = {"s": "secret", "b": "benign"}[label]
            rows.append({"label": label_name, "kind": kind, "text": text})
    return rows


def main(argv: list[str]) -> None:
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(argv) > 1:
        with open(argv[1], "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main(sys.argv)

"""Blind secrets corpus 16: web and app developers across frameworks.

Texts a memory tool for AI coding agents might be asked to store, written the way web and
app developers write them: code-review comments, PR descriptions, commit messages and pasted
snippets across Next.js, Nuxt, Rails, Django, Laravel, Spring Boot, ASP.NET, Go,
Elixir/Phoenix and Flutter; their config files (appsettings.json, application.yml,
config/*.exs, .env.local, wrangler.toml, vercel/netlify settings); package managers' auth
(.npmrc, .yarnrc.yml, pip.conf, .pypirc, gradle.properties, settings.xml, composer
auth.json, NuGet.config, cargo credentials) and the look-alikes these people write
(integrity hashes, lockfile checksums, public env vars, feature-flag keys, CSP nonces,
build ids).

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier
corpus. Every random value comes from random.Random(SEED) inside corpus(); no real
credential appears anywhere.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_16.py /tmp/blind16.jsonl
    (without an argument the JSONL goes to stdout)

Kinds, secret:
    npmrc_auth_token, npmrc_basic_auth, npmrc_private_registry_password,
    yarnrc_npm_auth_token, github_pat_classic, github_fine_grained_pat, github_oauth_token,
    pip_conf_index_credentials, pypirc_api_token, gradle_properties_password,
    maven_settings_password, composer_auth_github_oauth, composer_http_basic_password,
    nuget_clear_text_password, nuget_api_key, cargo_registry_token,
    appsettings_connection_string_password, application_yml_datasource_password,
    rails_master_key, rails_secret_key_base, django_secret_key, laravel_app_key,
    phoenix_secret_key_base, ecto_database_url_password, stripe_live_secret_key,
    stripe_restricted_key, stripe_webhook_secret, nextauth_secret, vercel_access_token,
    netlify_personal_access_token, cloudflare_api_token, wrangler_vars_secret,
    aws_access_key_pair, supabase_service_role_key, firebase_service_account_private_key,
    flutter_keystore_password, app_store_connect_p8_key, openai_api_key, anthropic_api_key,
    sendgrid_api_key, twilio_auth_token, slack_bot_token, slack_webhook_url,
    discord_webhook_url, sentry_auth_token, rails_session_cookie, django_session_cookie,
    jwt_signing_secret, bearer_access_token, go_hardcoded_dsn_password, gitlab_pat,
    docker_config_auth, compose_postgres_password, redis_url_password,
    google_oauth_client_secret, azure_storage_account_key, shopify_admin_token,
    mongodb_uri_password, vault_token, openssh_private_key, totp_seed,
    aspnet_machine_key, guardian_secret_key, planetscale_password, rubygems_api_key,
    git_remote_url_token, pr_description_temp_password, jfrog_api_key
Kinds, benign:
    npm_lock_integrity, yarn_berry_checksum, pnpm_lock_integrity, cargo_lock_checksum,
    go_sum_hash, composer_lock_reference, pip_require_hashes, gradle_wrapper_sha256,
    pubspec_lock_sha256, mix_lock_hash, gemfile_lock_checksum, nuget_lock_content_hash,
    sri_script_integrity, csp_nonce, nextjs_build_id, nuxt_build_asset_hash,
    commit_sha_reference, docker_image_digest, stripe_publishable_key,
    firebase_web_config, supabase_anon_key, algolia_search_only_key, mapbox_public_token,
    sentry_dsn, posthog_project_key, recaptcha_site_key, turnstile_site_key,
    vapid_public_key, discord_interactions_public_key, launchdarkly_client_side_id,
    feature_flag_key_name, rails_credentials_encrypted_blob, sops_encrypted_value,
    laravel_encrypted_env_payload, env_example_placeholder, vault_reference,
    ci_secrets_reference, npmrc_env_interpolation, redacted_value, masked_token_suffix,
    ssh_public_key, pgp_public_key_block, jwks_public_modulus, aws_docs_example_key,
    jwt_io_example_token, vercel_project_id, netlify_site_id, cloudflare_account_zone_id,
    wrangler_kv_namespace_id, stripe_object_ids, user_secrets_id, google_oauth_client_id,
    github_app_client_id, apple_team_and_key_id, idempotency_key, pagination_cursor,
    docker_build_secret_mount, framework_secret_from_env, password_policy_talk,
    csrf_token_field_talk, k8s_secret_key_ref, rotation_note_no_value, trace_request_ids,
    etag_header, sourcemap_debug_id, oauth_state_param
"""

# ruff: noqa: E501
import base64
import json
import random
import string
import sys

SEED = 516016

A62 = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEXL = "0123456789abcdef"
URLSAFE = A62 + "-_"
B32 = string.ascii_uppercase + "234567"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n):
        return s(HEXL, n)

    def b64bytes(n):
        return base64.b64encode(bytes(r.getrandbits(8) for _ in range(n))).decode()

    def b64u(obj):
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def jwt(payload, alg="HS256"):
        return b64u({"alg": alg, "typ": "JWT"}) + "." + b64u(payload) + "." + s(URLSAFE, 43)

    def uid():
        h = hx(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def pw(n=18):
        core = s(A62, n - 3)
        return (
            core[:5]
            + r.choice("!#%*-_")
            + core[5:11]
            + r.choice("-_.")
            + core[11:]
            + r.choice(string.digits)
        )

    def urlpw(n=20):
        return s(A62, n)

    def pem(label, lines):
        body = "\n".join(s(A62 + "+/", 64) for _ in range(lines))
        return f"-----BEGIN {label}-----\n{body}\n{s(A62 + '+/', 28)}==\n-----END {label}-----"

    def basic(user):
        return base64.b64encode(f"{user}:{urlpw(16)}".encode()).decode()

    now = 1796000000

    secret_specs = [
        (
            "npmrc_auth_token",
            lambda: "npm_" + s(A62, 36),
            [
                "~/.npmrc on the release box:\n//registry.npmjs.org/:_authToken={v}\nthat's the automation token `npm publish` uses",
                "review: you committed .npmrc with `//registry.npmjs.org/:_authToken={v}` - pull it and rotate before merge",
                "npm publish token for @acme scope (automation, bypasses 2FA): {v}",
            ],
        ),
        (
            "npmrc_basic_auth",
            lambda: basic("ci-deployer"),
            [
                "Nexus npm proxy wants legacy auth:\nregistry=https://nexus.internal.acme.io/repository/npm-group/\n_auth={v}\nalways-auth=true",
                "the artifactory .npmrc that finally worked: `_auth = {v}` plus email=ci@acme.io",
                "fix(ci): npm install 401 was because _auth expired; new value _auth={v}",
            ],
        ),
        (
            "npmrc_private_registry_password",
            lambda: base64.b64encode(urlpw(22).encode()).decode(),
            [
                "//npm.pkg.acme.dev/:username=buildbot\n//npm.pkg.acme.dev/:_password={v}\n//npm.pkg.acme.dev/:email=buildbot@acme.dev",
                "Verdaccio creds for the design-system packages: user `ds-publish`, _password (base64, as npm wants it) {v}",
            ],
        ),
        (
            "yarnrc_npm_auth_token",
            lambda: "npm_" + s(A62, 36),
            [
                '.yarnrc.yml for the monorepo:\nnpmScopes:\n  acme:\n    npmAlwaysAuth: true\n    npmAuthToken: "{v}"\n    npmRegistryServer: "https://registry.npmjs.org"',
                "yarn berry kept ignoring NPM_TOKEN so I hardcoded npmAuthToken: {v} in .yarnrc.yml locally (not committed)",
                'PR #{pr} review: `npmAuthToken: {v}` should be `npmAuthToken: "${NPM_TOKEN}"`',
            ],
        ),
        (
            "github_pat_classic",
            lambda: "ghp_" + s(A62, 36),
            [
                "GitHub Packages token (read:packages, write:packages) for the Gradle build: {v}",
                "//npm.pkg.github.com/:_authToken={v}\n@acme-web:registry=https://npm.pkg.github.com",
                "gh auth login --with-token <<< {v}   # bot account acme-release",
            ],
        ),
        (
            "github_fine_grained_pat",
            lambda: "github_pat_11" + s(A62.upper()[:36], 20) + "_" + s(A62, 59),
            [
                "fine-grained PAT scoped to acme/storefront (contents: write), expires in 90d: {v}",
                "Renovate self-hosted needs RENOVATE_TOKEN={v} in the runner env",
            ],
        ),
        (
            "github_oauth_token",
            lambda: "gho_" + s(A62, 36),
            [
                "copied from ~/.config/gh/hosts.yml:\ngithub.com:\n    user: mkowalski\n    oauth_token: {v}\n    git_protocol: https",
                "the gh CLI token on the shared mac mini is {v}, use it for the nightly release script",
            ],
        ),
        (
            "pip_conf_index_credentials",
            lambda: urlpw(24),
            [
                "~/.config/pip/pip.conf\n[global]\nindex-url = https://deploy:{v}@pypi.acme.internal/simple/\ntrusted-host = pypi.acme.internal",
                "pip install -i https://__token__:{v}@gitlab.acme.io/api/v4/projects/412/packages/pypi/simple acme-auth",
                "Dockerfile review: line 14 bakes PIP_EXTRA_INDEX_URL=https://ci:{v}@devpi.acme.io/root/prod/+simple/ into the image layer",
            ],
        ),
        (
            "pypirc_api_token",
            lambda: "pypi-AgEIcHlwaS5vcmc" + s(URLSAFE, 150),
            [
                "~/.pypirc\n[pypi]\nusername = __token__\npassword = {v}",
                "project-scoped PyPI token for django-acme-storage: {v}",
                "twine upload -u __token__ -p {v} dist/*",
            ],
        ),
        (
            "gradle_properties_password",
            lambda: pw(20),
            [
                "~/.gradle/gradle.properties\nossrhUsername=acme-release\nossrhPassword={v}\nsigning.keyId=4F2A19C0",
                "gradle.properties on CI: artifactoryUser=gradle-ci / artifactoryPassword={v}",
                "signing.password={v}  <- passphrase for the maven central signing key, keep it off the repo",
            ],
        ),
        (
            "maven_settings_password",
            lambda: pw(16),
            [
                "settings.xml server block:\n<server>\n  <id>acme-releases</id>\n  <username>deploy</username>\n  <password>{v}</password>\n</server>",
                "Spring Boot parent pom pulls from nexus, creds in settings.xml are deploy / {v}",
            ],
        ),
        (
            "composer_auth_github_oauth",
            lambda: "ghp_" + s(A62, 36),
            [
                'auth.json next to composer.json:\n{\n  "github-oauth": {\n    "github.com": "{v}"\n  }\n}',
                "composer config -g github-oauth.github.com {v}",
            ],
        ),
        (
            "composer_http_basic_password",
            lambda: hx(40),
            [
                'Laravel Nova license auth.json:\n{"http-basic": {"nova.laravel.com": {"username": "dev@acme.io", "password": "{v}"}}}',
                "composer config http-basic.repo.packagist.com token {v}   # private packagist for acme/* packages",
                "Spark license key for composer (http-basic password on spark.laravel.com): {v}",
            ],
        ),
        (
            "nuget_clear_text_password",
            lambda: pw(22),
            [
                'NuGet.config\n<packageSourceCredentials>\n  <AcmeFeed>\n    <add key="Username" value="azdo" />\n    <add key="ClearTextPassword" value="{v}" />\n  </AcmeFeed>\n</packageSourceCredentials>',
                "dotnet nuget add source https://pkgs.acme.io/nuget/v3/index.json -n acme -u build -p {v} --store-password-in-clear-text",
            ],
        ),
        (
            "nuget_api_key",
            lambda: "oy2" + s(string.ascii_lowercase + string.digits, 43),
            [
                "dotnet nuget push bin/Release/Acme.Http.2.3.0.nupkg --api-key {v} --source https://api.nuget.org/v3/index.json",
                "nuget.org push key for Acme.* packages (glob scoped, 365d): {v}",
            ],
        ),
        (
            "cargo_registry_token",
            lambda: "cio" + s(A62, 32),
            [
                '~/.cargo/credentials.toml\n[registry]\ntoken = "{v}"',
                "cargo login {v}   # publish-update scope only, for acme-wasm-bindings",
                "CARGO_REGISTRY_TOKEN={v} cargo publish -p acme-edge",
            ],
        ),
        (
            "appsettings_connection_string_password",
            lambda: pw(18),
            [
                'appsettings.Production.json\n"ConnectionStrings": {\n  "Default": "Server=tcp:acme-sql.database.windows.net,1433;Database=shop;User ID=shopapp;Password={v};Encrypt=True;"\n}',
                "review: the EF migration bundle reads Password={v} from appsettings.json - move to Key Vault",
                "local SQL Server in docker: Server=localhost,1433;User Id=sa;Password={v};TrustServerCertificate=True (same one staging uses)",
            ],
        ),
        (
            "application_yml_datasource_password",
            lambda: pw(16),
            [
                "application-prod.yml\nspring:\n  datasource:\n    url: jdbc:postgresql://db.acme.internal:5432/orders\n    username: orders_svc\n    password: {v}",
                "spring.datasource.password={v} is in application.properties on the prod VM, flagged in review",
                "rabbit creds for the Spring app:\nspring.rabbitmq.username: orders\nspring.rabbitmq.password: '{v}'",
            ],
        ),
        (
            "rails_master_key",
            lambda: hx(32),
            [
                "config/master.key for storefront (never commit): {v}",
                "RAILS_MASTER_KEY={v} needs to be set in Render or credentials won't decrypt",
                "heroku config:set RAILS_MASTER_KEY={v} -a acme-storefront-prod",
            ],
        ),
        (
            "rails_secret_key_base",
            lambda: hx(128),
            [
                "SECRET_KEY_BASE={v}",
                "production secret_key_base (from `rails credentials:show`): {v}",
            ],
        ),
        (
            "django_secret_key",
            lambda: s(string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)", 50),
            [
                "settings/prod.py had SECRET_KEY = '{v}' hardcoded; moving to env in this PR",
                "DJANGO_SECRET_KEY={v}",
                "the prod Django key (sessions + password reset tokens depend on it): {v}",
            ],
        ),
        (
            "laravel_app_key",
            lambda: "base64:" + b64bytes(32),
            [
                ".env on the forge server:\nAPP_ENV=production\nAPP_KEY={v}\nAPP_DEBUG=false",
                "don't run key:generate on prod again! current APP_KEY is {v}, all encrypted columns depend on it",
            ],
        ),
        (
            "phoenix_secret_key_base",
            lambda: s(A62 + "+/", 64),
            [
                'config/prod.secret.exs\nconfig :acme, AcmeWeb.Endpoint,\n  secret_key_base: "{v}"',
                "fly secrets set SECRET_KEY_BASE={v}",
                "mix phx.gen.secret output I'm using for the live cluster: {v}",
            ],
        ),
        (
            "ecto_database_url_password",
            lambda: urlpw(24),
            [
                "DATABASE_URL=ecto://acme:{v}@acme-db.flycast:5432/acme_prod",
                'config/runtime.exs fallback is wrong, it hardcodes "ecto://postgres:{v}@10.0.4.12/acme" when DATABASE_URL is unset',
            ],
        ),
        (
            "stripe_live_secret_key",
            lambda: "sk_live_51" + s(A62, 97),
            [
                ".env.local\nSTRIPE_SECRET_KEY={v}\nNEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51Hx",
                "checkout route 500s locally because I only had the test key; live one for reference: {v}",
                "Laravel Cashier: STRIPE_SECRET={v}",
            ],
        ),
        (
            "stripe_restricted_key",
            lambda: "rk_live_51" + s(A62, 97),
            [
                "restricted key for the reporting worker (read-only charges + payouts): {v}",
                "STRIPE_RK={v} in the Go billing-sync service env",
            ],
        ),
        (
            "stripe_webhook_secret",
            lambda: "whsec_" + s(A62, 32),
            [
                "STRIPE_WEBHOOK_SECRET={v} (endpoint /api/webhooks/stripe on prod)",
                "signature check kept failing: the prod endpoint signing secret is {v}, not the CLI one",
                "Cashier webhook: STRIPE_WEBHOOK_SECRET={v}",
            ],
        ),
        (
            "nextauth_secret",
            lambda: b64bytes(32),
            [
                "NEXTAUTH_SECRET={v}\nNEXTAUTH_URL=https://app.acme.io",
                "Auth.js v5: AUTH_SECRET={v} set in vercel env for Production only",
                "sessions all invalidated after deploy because NEXTAUTH_SECRET changed; old value was {v}, restoring it",
            ],
        ),
        (
            "vercel_access_token",
            lambda: s(A62, 24),
            [
                "VERCEL_TOKEN={v} for the GitHub Action that runs `vercel deploy --prebuilt`",
                "vercel --token {v} env pull .env.local",
            ],
        ),
        (
            "netlify_personal_access_token",
            lambda: "nfp_" + s(A62, 36),
            [
                "NETLIFY_AUTH_TOKEN={v} NETLIFY_SITE_ID=from-the-ui netlify deploy --prod",
                "netlify PAT (personal, full access) for the docs site CI: {v}",
            ],
        ),
        (
            "cloudflare_api_token",
            lambda: s(URLSAFE, 40),
            [
                "CLOUDFLARE_API_TOKEN={v} wrangler deploy --env production",
                "CF token with Workers Scripts:Edit + Zone DNS:Edit: {v}",
                "commit 7c1d9e0: remove hardcoded api token from deploy.sh (was {v}); rotated in the dashboard afterwards? not yet",
            ],
        ),
        (
            "wrangler_vars_secret",
            lambda: s(A62, 40),
            [
                'wrangler.toml review: this belongs in `wrangler secret put`, not [vars]:\n[vars]\nENVIRONMENT = "production"\nUPSTREAM_API_KEY = "{v}"',
                'worker env: [env.production.vars] SHOPIFY_ADMIN_SECRET = "{v}"  -- leaks into the dashboard as plaintext',
            ],
        ),
        (
            "aws_access_key_pair",
            lambda: s(A62 + "+/", 40),
            [
                "S3 uploads for Active Storage:\nAWS_ACCESS_KEY_ID=AKIA"
                + "{k16}"
                + "\nAWS_SECRET_ACCESS_KEY={v}",
                "django-storages prod bucket: key id AKIA{k16} secret {v}",
                "review on config/storage.yml: secret_access_key: {v} is inline, use credentials instead",
            ],
        ),
        (
            "supabase_service_role_key",
            lambda: jwt(
                {
                    "iss": "supabase",
                    "ref": s(string.ascii_lowercase, 20),
                    "role": "service_role",
                    "iat": now - 9000000,
                    "exp": now + 300000000,
                }
            ),
            [
                "SUPABASE_SERVICE_ROLE_KEY={v}",
                "server-only! bypasses RLS. service_role key for the Nuxt server routes: {v}",
            ],
        ),
        (
            "firebase_service_account_private_key",
            lambda: pem("PRIVATE KEY", 4),
            [
                "from acme-prod-firebase-adminsdk.json, private_key:\n{v}",
                "FIREBASE_PRIVATE_KEY (Next.js API route uses admin SDK):\n{v}",
            ],
        ),
        (
            "flutter_keystore_password",
            lambda: pw(16),
            [
                "android/key.properties\nstorePassword={v}\nkeyPassword={v}\nkeyAlias=upload\nstoreFile=/Users/dev/keys/upload-keystore.jks",
                "upload keystore for the Flutter app: alias `upload`, store password {v}",
                "codemagic env KEYSTORE_PASSWORD={v} (same as key password)",
            ],
        ),
        (
            "app_store_connect_p8_key",
            lambda: pem("PRIVATE KEY", 3),
            [
                "AuthKey_4K7Q2ZP9LM.p8 for fastlane match / App Store Connect API:\n{v}",
                "APNs token auth key (Key ID 8XJ2M3D9QA) used by the Phoenix push worker:\n{v}",
            ],
        ),
        (
            "openai_api_key",
            lambda: "sk-proj-" + s(URLSAFE, 74) + "T3BlbkFJ" + s(URLSAFE, 74),
            [
                "OPENAI_API_KEY={v}",
                "route handler app/api/chat/route.ts works once OPENAI_API_KEY is set; mine: {v}",
                "Spring AI config: spring.ai.openai.api-key={v}",
            ],
        ),
        (
            "anthropic_api_key",
            lambda: "sk-ant-api03-" + s(URLSAFE, 93) + "AA",
            [
                "ANTHROPIC_API_KEY={v} in .env.local for the summarizer feature",
                "Laravel: config/services.php reads anthropic key from env; staging .env has {v}",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: "SG." + s(URLSAFE, 22) + "." + s(URLSAFE, 43),
            [
                "ActionMailer smtp_settings: user_name 'apikey', password '{v}'",
                "EMAIL_HOST_PASSWORD={v}  # django + sendgrid smtp relay",
                "MAIL_PASSWORD={v} (MAIL_USERNAME=apikey, MAIL_HOST=smtp.sendgrid.net)",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: hx(32),
            [
                "TWILIO_ACCOUNT_SID=AC{h32}\nTWILIO_AUTH_TOKEN={v}",
                "Verify service for OTP login: account AC{h32}, auth token {v}",
            ],
        ),
        (
            "slack_bot_token",
            lambda: "xoxb-" + s(string.digits, 12) + "-" + s(string.digits, 13) + "-" + s(A62, 24),
            [
                "SLACK_BOT_TOKEN={v} for the deploy-notifier Phoenix app",
                "release bot posts to #deploys with {v}",
            ],
        ),
        (
            "slack_webhook_url",
            lambda: (
                "https://hooks.slack.com/services/T"
                + s(string.ascii_uppercase + string.digits, 10)
                + "/B"
                + s(string.ascii_uppercase + string.digits, 10)
                + "/"
                + s(A62, 24)
            ),
            [
                "netlify deploy notification webhook: {v}",
                "SLACK_WEBHOOK_URL: {v}",
                "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"build green\"}' {v}",
            ],
        ),
        (
            "discord_webhook_url",
            lambda: (
                "https://discord.com/api/webhooks/" + s(string.digits, 19) + "/" + s(URLSAFE, 68)
            ),
            [
                "Sentry -> Discord relay posts to {v}",
                "DISCORD_WEBHOOK={v}  # #alerts channel in the indie server",
            ],
        ),
        (
            "sentry_auth_token",
            lambda: (
                "sntrys_"
                + b64u(
                    {
                        "iat": now,
                        "url": "https://sentry.io",
                        "region_url": "https://us.sentry.io",
                        "org": "acme",
                    }
                )
                + "_"
                + s(A62 + "+/", 43)
            ),
            [
                "SENTRY_AUTH_TOKEN={v} (for @sentry/nextjs sourcemap upload during next build)",
                ".sentryclirc\n[auth]\ntoken={v}",
            ],
        ),
        (
            "rails_session_cookie",
            lambda: s(A62 + "%", 180) + "--" + s(A62, 24) + "%3D%3D",
            [
                "repro for the admin bug, logged in as superadmin:\nCookie: _storefront_session={v}",
                "curl https://admin.acme.io/orders/export -b '_acme_session={v}'",
            ],
        ),
        (
            "django_session_cookie",
            lambda: s(LOWER_ALNUM, 32),
            [
                "to reproduce as the support user: set cookie sessionid={v} on staff.acme.io (valid 2 weeks)",
                "httpie: http GET https://api.acme.io/admin/ Cookie:'csrftoken=x; sessionid={v}'",
            ],
        ),
        (
            "jwt_signing_secret",
            lambda: s(A62, 48),
            [
                "JWT_SECRET={v}",
                'appsettings.json\n"Jwt": {\n  "Issuer": "https://api.acme.io",\n  "Audience": "acme-spa",\n  "Key": "{v}"\n}',
                'Go gateway signs access tokens with HS256 using []byte("{v}") - hardcoded in auth/jwt.go, fix in #{pr}',
            ],
        ),
        (
            "bearer_access_token",
            lambda: jwt(
                {
                    "sub": uid(),
                    "scope": "admin orders:write",
                    "iss": "https://auth.acme.io",
                    "exp": now + 3600 * 24 * 365,
                },
                "HS256",
            ),
            [
                'curl -H "Authorization: Bearer {v}" https://api.acme.io/v2/orders?status=open',
                "token for the admin API while testing the Flutter app (exp in a year): {v}",
            ],
        ),
        (
            "go_hardcoded_dsn_password",
            lambda: urlpw(18),
            [
                'db, err := sql.Open("pgx", "postgres://inventory:{v}@pg-primary.acme.internal:5432/inventory?sslmode=require")',
                'review on cmd/worker/main.go: dsn := "root:{v}@tcp(mysql.acme.internal:3306)/shop?parseTime=true" must come from env',
            ],
        ),
        (
            "gitlab_pat",
            lambda: "glpat-" + s(URLSAFE, 20),
            [
                "GitLab deploy uses CI_JOB_TOKEN but the composer private repo needs {v}",
                "composer config gitlab-token.gitlab.acme.io {v}",
                "@acme:registry=https://gitlab.acme.io/api/v4/packages/npm/\n//gitlab.acme.io/api/v4/packages/npm/:_authToken={v}",
            ],
        ),
        (
            "docker_config_auth",
            lambda: basic("acme-ci"),
            [
                '~/.docker/config.json\n{"auths": {"ghcr.io": {"auth": "{v}"}}}',
                "imagePullSecret .dockerconfigjson auth for registry.acme.io: {v}",
            ],
        ),
        (
            "compose_postgres_password",
            lambda: pw(20),
            [
                "docker-compose.prod.yml\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: acme\n      POSTGRES_PASSWORD: {v}",
                "staging db password (POSTGRES_PASSWORD in the compose env file on the droplet): {v}",
            ],
        ),
        (
            "redis_url_password",
            lambda: urlpw(32),
            [
                "REDIS_URL=rediss://default:{v}@acme-cache.upstash.io:6379",
                "Sidekiq in prod points at redis://:{v}@10.0.2.7:6379/0",
            ],
        ),
        (
            "google_oauth_client_secret",
            lambda: "GOCSPX-" + s(URLSAFE, 28),
            [
                "GOOGLE_CLIENT_ID=812734001-abc.apps.googleusercontent.com\nGOOGLE_CLIENT_SECRET={v}",
                "omniauth google_oauth2 secret: {v}",
                "Socialite: 'google' => ['client_secret' => '{v}']",
            ],
        ),
        (
            "azure_storage_account_key",
            lambda: b64bytes(64),
            [
                '"BlobStorage": "DefaultEndpointsProtocol=https;AccountName=acmeassets;AccountKey={v};EndpointSuffix=core.windows.net"',
                "az storage key for acmeassets (key1): {v}",
            ],
        ),
        (
            "shopify_admin_token",
            lambda: "shpat_" + hx(32),
            [
                "SHOPIFY_ADMIN_API_ACCESS_TOKEN={v}",
                "custom app admin token for acme-store.myshopify.com (write_products, read_orders): {v}",
            ],
        ),
        (
            "mongodb_uri_password",
            lambda: urlpw(16),
            [
                "MONGODB_URI=mongodb+srv://nuxt-app:{v}@cluster0.x8k2p.mongodb.net/shop?retryWrites=true",
                "mongoose.connect('mongodb://admin:{v}@mongo.acme.internal:27017/?authSource=admin')",
            ],
        ),
        (
            "vault_token",
            lambda: "hvs." + s(URLSAFE, 24),
            [
                "VAULT_TOKEN={v} (root token from the dev unseal, still valid on staging)",
                "spring.cloud.vault.token={v}",
            ],
        ),
        (
            "openssh_private_key",
            lambda: pem("OPENSSH PRIVATE KEY", 4),
            [
                "deploy key for capistrano (read-only on acme/storefront):\n{v}",
                "Kamal SSH key for the Hetzner boxes, paste into 1Password later:\n{v}",
            ],
        ),
        (
            "totp_seed",
            lambda: s(B32, 32),
            [
                "otpauth://totp/Acme:admin@acme.io?secret={v}&issuer=Acme  (shared 2FA for the npm org owner)",
                "2FA seed for the Apple developer account backup: {v}",
            ],
        ),
        (
            "aspnet_machine_key",
            lambda: hx(128).upper(),
            [
                '<machineKey validationKey="{v}" decryptionKey="'
                + "{h48}"
                + '" validation="HMACSHA256" decryption="AES" />',
                "legacy WebForms farm machineKey validationKey: {v}",
            ],
        ),
        (
            "guardian_secret_key",
            lambda: s(A62 + "+/", 64),
            [
                'config :acme, Acme.Guardian,\n  issuer: "acme",\n  secret_key: "{v}"',
                "GUARDIAN_SECRET_KEY={v}",
            ],
        ),
        (
            "planetscale_password",
            lambda: "pscale_pw_" + s(URLSAFE, 43),
            [
                "DATABASE_URL=mysql://k2x9q1w8:{v}@aws.connect.psdb.cloud/acme?sslaccept=strict",
                "planetscale main branch password (prisma): {v}",
            ],
        ),
        (
            "rubygems_api_key",
            lambda: "rubygems_" + hx(48),
            [
                "~/.gem/credentials\n---\n:rubygems_api_key: {v}",
                "GEM_HOST_API_KEY={v} gem push acme-client-1.4.0.gem",
            ],
        ),
        (
            "git_remote_url_token",
            lambda: "ghp_" + s(A62, 36),
            [
                "git remote set-url origin https://x-access-token:{v}@github.com/acme/mobile-app.git",
                "pubspec.yaml git dependency: url: https://acme-bot:{v}@github.com/acme/flutter_ui_kit.git",
            ],
        ),
        (
            "pr_description_temp_password",
            lambda: pw(14),
            [
                "PR #{pr}: seeds a staff account on staging. Login: ops@acme.io / {v} (change after QA)",
                "QA note: the Django admin on review apps uses admin / {v}, same across all review apps",
                "demo tenant for the client walkthrough: user demo@client.com password {v}",
            ],
        ),
        (
            "jfrog_api_key",
            lambda: "AKCp8" + s(A62, 68),
            [
                "artifactory API key for gradle and pip mirrors: {v}",
                "pip.conf: index-url = https://deployer:{v}@acme.jfrog.io/artifactory/api/pypi/pypi-remote/simple",
            ],
        ),
    ]

    def integ(n):
        return base64.b64encode(bytes(r.getrandbits(8) for _ in range(n))).decode()

    benign_specs = [
        (
            "npm_lock_integrity",
            lambda: "sha512-" + integ(64),
            [
                'package-lock.json diff after bumping next:\n"node_modules/next": {\n  "version": "14.2.15",\n  "integrity": "{v}"\n}',
                "EINTEGRITY on CI for @swc/core - lockfile has {v} but the registry tarball differs; cleared cache",
                "review: lockfile integrity `{v}` changed without a version bump, which is suspicious - please regenerate",
            ],
        ),
        (
            "yarn_berry_checksum",
            lambda: "10c0/" + hx(128),
            [
                'yarn.lock entry:\n"react@npm:^18.3.1":\n  version: 18.3.1\n  checksum: {v}\n  languageName: node',
                "YN0018 checksum mismatch for lodash, expected {v}",
            ],
        ),
        (
            "pnpm_lock_integrity",
            lambda: "sha512-" + integ(64),
            [
                "pnpm-lock.yaml:\n  /nuxt@3.13.2:\n    resolution: {integrity: {v}}",
                "pnpm install --frozen-lockfile failed on vue-router, resolution integrity {v}",
            ],
        ),
        (
            "cargo_lock_checksum",
            lambda: hx(64),
            [
                '[[package]]\nname = "serde"\nversion = "1.0.210"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{v}"',
                "Cargo.lock checksum for tokio changed ({v}) after cargo update -p tokio, expected",
            ],
        ),
        (
            "go_sum_hash",
            lambda: "h1:" + integ(32),
            [
                "go.sum line: github.com/gofiber/fiber/v2 v2.52.5 {v}",
                "SECURITY ERROR verifying go.sum: golang.org/x/crypto v0.28.0 downloaded {v}",
                "go mod tidy added `github.com/golang-jwt/jwt/v5 v5.2.1 {v}` to go.sum",
            ],
        ),
        (
            "composer_lock_reference",
            lambda: hx(40),
            [
                'composer.lock: "source": {"type": "git", "url": "https://github.com/laravel/framework.git", "reference": "{v}"}',
                "laravel/sanctum pinned to dist reference {v}",
            ],
        ),
        (
            "pip_require_hashes",
            lambda: "sha256:" + hx(64),
            [
                "requirements.txt (pip-compile --generate-hashes):\ndjango==5.1.2 \\\n    --hash={v}",
                "pip refused gunicorn: THESE PACKAGES DO NOT MATCH THE HASHES. Expected {v}",
            ],
        ),
        (
            "gradle_wrapper_sha256",
            lambda: hx(64),
            [
                "gradle/wrapper/gradle-wrapper.properties\ndistributionUrl=https\\://services.gradle.org/distributions/gradle-8.10.2-bin.zip\ndistributionSha256Sum={v}",
                'verification-metadata.xml: <sha256 value="{v}" origin="Generated by Gradle"/>',
            ],
        ),
        (
            "pubspec_lock_sha256",
            lambda: hx(64),
            [
                'pubspec.lock:\n  dio:\n    dependency: "direct main"\n    description:\n      name: dio\n      sha256: "{v}"\n      url: "https://pub.dev"',
                "flutter pub get changed the sha256 for go_router to {v} - fine, minor bump",
            ],
        ),
        (
            "mix_lock_hash",
            lambda: hx(64),
            [
                'mix.lock: "phoenix": {:hex, :phoenix, "1.7.14", "{v}", [:mix], [], "hexpm", "'
                + "{h64}"
                + '"}',
                "hex outer checksum for ecto_sql in mix.lock is {v}",
            ],
        ),
        (
            "gemfile_lock_checksum",
            lambda: "sha256=" + hx(64),
            [
                "Gemfile.lock CHECKSUMS section (bundler 2.6):\nCHECKSUMS\n  rails (7.2.1) {v}",
                "bundle install complained the devise checksum {v} didn't match; re-locked",
            ],
        ),
        (
            "nuget_lock_content_hash",
            lambda: integ(64),
            [
                'packages.lock.json:\n"Microsoft.AspNetCore.Authentication.JwtBearer": {\n  "type": "Direct",\n  "requested": "[8.0.8, )",\n  "resolved": "8.0.8",\n  "contentHash": "{v}"\n}',
                "NU1403 package content hash validation failed for Serilog, lock says {v}",
            ],
        ),
        (
            "sri_script_integrity",
            lambda: "sha384-" + integ(48),
            [
                '<script src="https://cdn.jsdelivr.net/npm/alpinejs@3.14.1/dist/cdn.min.js" integrity="{v}" crossorigin="anonymous" defer></script>',
                "SRI for the bootstrap css in the Blade layout: {v}",
                'javascript_include_tag ..., integrity: "{v}"  # Rails layout, CDN fallback',
            ],
        ),
        (
            "csp_nonce",
            lambda: b64bytes(16),
            [
                "middleware.ts sets a fresh nonce per request; saw this in devtools: Content-Security-Policy: script-src 'self' 'nonce-{v}' 'strict-dynamic'",
                '<script nonce="{v}">window.__NUXT__=...</script> - nonce rotates every response, so caching the HTML breaks it',
                "Rails content_security_policy_nonce_generator output in the test log: {v}",
            ],
        ),
        (
            "nextjs_build_id",
            lambda: s(URLSAFE, 21),
            [
                ".next/BUILD_ID = {v}; chunk 404s were from an old buildId cached at the CDN",
                "/_next/static/{v}/_buildManifest.js returned 404 after the rollback",
            ],
        ),
        (
            "nuxt_build_asset_hash",
            lambda: s(URLSAFE, 8),
            [
                "Nuxt output .output/public/_nuxt/entry.{v}.js is 412kB - need to split the editor",
                "CDN serving stale _nuxt/app.{v}.css after deploy; purge fixed it",
            ],
        ),
        (
            "commit_sha_reference",
            lambda: hx(40),
            [
                'reverted {v} ("feat(auth): rotate session cookie on login") because it logged everyone out',
                "Sentry release = git SHA, current prod is {v}",
                "PR #{pr} based on {v}; please rebase onto main before review",
            ],
        ),
        (
            "docker_image_digest",
            lambda: "sha256:" + hx(64),
            [
                "pin base image: FROM node:20-alpine@{v}",
                "ghcr.io/acme/api-go deployed digest {v} (tag v1.18.3)",
            ],
        ),
        (
            "stripe_publishable_key",
            lambda: "pk_live_51" + s(A62, 97),
            [
                "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={v}  # publishable, ships to the browser anyway",
                "Stripe.js init in the Flutter web build: Stripe.publishableKey = '{v}';",
                "the pk_live in the checkout bundle is fine - it's the publishable key ({v}); the sk stays server side",
            ],
        ),
        (
            "firebase_web_config",
            lambda: "AIza" + s(URLSAFE, 35),
            [
                'firebaseConfig for the web app (public, protected by App Check + security rules):\napiKey: "{v}",\nauthDomain: "acme-prod.firebaseapp.com",\nprojectId: "acme-prod"',
                "NEXT_PUBLIC_FIREBASE_API_KEY={v} - not a secret, firebase web keys are identifiers",
                "lib/firebase_options.dart (generated by flutterfire configure): apiKey: '{v}',",
            ],
        ),
        (
            "supabase_anon_key",
            lambda: jwt(
                {
                    "iss": "supabase",
                    "ref": s(string.ascii_lowercase, 20),
                    "role": "anon",
                    "iat": now - 9000000,
                    "exp": now + 300000000,
                }
            ),
            [
                "NUXT_PUBLIC_SUPABASE_KEY={v}  # anon key, RLS enforces access",
                "supabase_flutter init: anonKey: '{v}' (public anon role)",
            ],
        ),
        (
            "algolia_search_only_key",
            lambda: hx(32),
            [
                "NEXT_PUBLIC_ALGOLIA_SEARCH_KEY={v}  # search-only key, safe in the client bundle",
                "InstantSearch in the Nuxt docs site uses app id 7QK2M1 and the search-only api key {v}",
            ],
        ),
        (
            "mapbox_public_token",
            lambda: (
                "pk." + b64u({"u": "acme-maps", "a": s(LOWER_ALNUM, 25)}) + "." + s(URLSAFE, 22)
            ),
            [
                "NEXT_PUBLIC_MAPBOX_TOKEN={v} (public pk token, URL-restricted to *.acme.io)",
                "mapbox_gl in Flutter: accessToken: '{v}'  // default public token",
            ],
        ),
        (
            "sentry_dsn",
            lambda: (
                "https://"
                + hx(32)
                + "@o"
                + s(string.digits, 6)
                + ".ingest.us.sentry.io/"
                + s(string.digits, 7)
            ),
            [
                "NEXT_PUBLIC_SENTRY_DSN={v}",
                "sentry_flutter: options.dsn = '{v}'; DSNs are public by design",
                'config :sentry, dsn: "{v}", environment_name: :prod',
            ],
        ),
        (
            "posthog_project_key",
            lambda: "phc_" + s(A62, 43),
            [
                "NEXT_PUBLIC_POSTHOG_KEY={v}\nNEXT_PUBLIC_POSTHOG_HOST=https://eu.i.posthog.com",
                "posthog-js init('{v}', { api_host: '/ingest' }) - project key is write-only, public",
            ],
        ),
        (
            "recaptcha_site_key",
            lambda: "6L" + s(URLSAFE, 38),
            [
                "RECAPTCHA_SITE_KEY={v} goes in the Blade form data-sitekey; the secret key lives in .env on the server only",
                '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            ],
        ),
        (
            "turnstile_site_key",
            lambda: "0x4AAAAAAA" + s(URLSAFE, 12),
            [
                "NUXT_PUBLIC_TURNSTILE_SITE_KEY={v}",
                'Turnstile widget sitekey="{v}" on the signup page (site key, public)',
            ],
        ),
        (
            "vapid_public_key",
            lambda: "B" + s(URLSAFE, 86),
            [
                "NEXT_PUBLIC_VAPID_PUBLIC_KEY={v}",
                "pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: '{v}' })",
            ],
        ),
        (
            "discord_interactions_public_key",
            lambda: hx(64),
            [
                "DISCORD_PUBLIC_KEY={v}  # ed25519 public key for verifying interaction signatures",
                'wrangler.toml [vars] DISCORD_PUBLIC_KEY = "{v}" - fine in vars, it\'s the verification key',
            ],
        ),
        (
            "launchdarkly_client_side_id",
            lambda: hx(24),
            [
                "NEXT_PUBLIC_LD_CLIENT_SIDE_ID={v}  # client-side id, not the sdk key",
                'LDProvider clientSideID="{v}" wraps the app in _app.tsx',
            ],
        ),
        (
            "feature_flag_key_name",
            lambda: r.choice(
                [
                    "enable-new-checkout-v2",
                    "release.stripe-payment-element",
                    "ops-kill-switch-search",
                    "exp_pricing_page_2026q4",
                ]
            ),
            [
                "flag key `{v}` is at 25% rollout; remove the old branch after it hits 100%",
                "Unleash toggle {v} defaults to off in prod, on in staging",
                "PR #{pr}: wraps the new cart drawer in useFlag('{v}')",
            ],
        ),
        (
            "rails_credentials_encrypted_blob",
            lambda: (
                s(A62 + "+/", 120) + "==--" + s(A62 + "+/", 16) + "==--" + s(A62 + "+/", 22) + "=="
            ),
            [
                "config/credentials/production.yml.enc is just ciphertext, safe to commit:\n{v}",
                "merge conflict in credentials.yml.enc - can't resolve ciphertext by hand ({v}), re-edit with `rails credentials:edit` instead",
            ],
        ),
        (
            "sops_encrypted_value",
            lambda: (
                "ENC[AES256_GCM,data:"
                + b64bytes(24)
                + ",iv:"
                + b64bytes(32)
                + ",tag:"
                + b64bytes(16)
                + ",type:str]"
            ),
            [
                "secrets.enc.yaml (sops + age, key in 1Password):\ndatabase_password: {v}",
                "sops-encrypted STRIPE_SECRET_KEY in the helm values: {v}",
            ],
        ),
        (
            "laravel_encrypted_env_payload",
            lambda: b64u({"iv": b64bytes(16), "value": b64bytes(48), "mac": hx(64), "tag": ""}),
            [
                ".env.production.encrypted (php artisan env:encrypt) - decryption key is only in Forge:\n{v}",
                "encrypted env committed as {v}; LARAVEL_ENV_ENCRYPTION_KEY stays in the deploy pipeline",
            ],
        ),
        (
            "env_example_placeholder",
            lambda: r.choice(
                [
                    "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
                    "whsec_your_webhook_signing_secret",
                    "npm_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                    "changeme-generate-with-openssl-rand",
                ]
            ),
            [
                ".env.example\nSTRIPE_SECRET_KEY={v}\n# copy to .env.local and fill in",
                "README snippet for contributors: set the value to {v} and replace it with your own",
                "review: the placeholder `{v}` in .env.example is fine, real value comes from vercel env pull",
            ],
        ),
        (
            "vault_reference",
            lambda: r.choice(
                [
                    "${vault:secret/data/orders#db_password}",
                    "@Microsoft.KeyVault(SecretUri=https://acme-kv.vault.azure.net/secrets/SqlPassword/)",
                    "op://Engineering/Stripe Live/secret_key",
                    "{{resolve:secretsmanager:prod/api/db:SecretString:password}}",
                ]
            ),
            [
                "spring.datasource.password: {v}",
                "production value is a reference now, not the secret: {v}",
                'appsettings override -> "DbPassword": "{v}" (resolved at startup)',
            ],
        ),
        (
            "ci_secrets_reference",
            lambda: r.choice(
                [
                    "${{ secrets.NPM_TOKEN }}",
                    "${{ secrets.CLOUDFLARE_API_TOKEN }}",
                    "${{ secrets.PYPI_API_TOKEN }}",
                    "$CI_REGISTRY_PASSWORD",
                ]
            ),
            [
                "workflow step:\n- run: npm publish --access public\n  env:\n    NODE_AUTH_TOKEN: {v}",
                "deploy job reads {v}; the secret itself is set in repo settings",
                "wrangler-action with apiToken: {v}",
            ],
        ),
        (
            "npmrc_env_interpolation",
            lambda: r.choice(["${NPM_TOKEN}", "${NODE_AUTH_TOKEN}", "${GITHUB_PACKAGES_TOKEN}"]),
            [
                ".npmrc committed on purpose:\n//registry.npmjs.org/:_authToken={v}\nnpm reads it from the env at install time",
                '.yarnrc.yml: npmAuthToken: "{v}" so the value never lands in git',
            ],
        ),
        (
            "redacted_value",
            lambda: r.choice(["[REDACTED]", "********", "<redacted>", "xxxx-redacted-xxxx"]),
            [
                "vercel env ls shows STRIPE_SECRET_KEY = {v} (Encrypted) for Production",
                "pasting the failing config with the secret removed: password: {v}",
                "heroku config output: DATABASE_URL: postgres://u:{v}@ec2-3-4.compute-1.amazonaws.com:5432/d",
            ],
        ),
        (
            "masked_token_suffix",
            lambda: r.choice(["ghp_", "npm_", "glpat-", "sk_live_"]) + "****" + s(A62, 4),
            [
                "the leaked token ({v}) was revoked by GitHub secret scanning at 14:02, new one is in the org secrets",
                "npm token list shows {v} as the only automation token left",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(A62 + "+/", 43),
            [
                "added the Kamal deploy key to the Hetzner boxes' authorized_keys: {v} deploy@acme",
                "GitHub deploy key (public half) for acme/flutter_ui_kit: {v}",
            ],
        ),
        (
            "pgp_public_key_block",
            lambda: (
                "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
                + "\n".join(s(A62 + "+/", 64) for _ in range(3))
                + "\n="
                + s(A62, 4)
                + "\n-----END PGP PUBLIC KEY BLOCK-----"
            ),
            [
                "public key for verifying our Maven Central artifacts (also on keys.openpgp.org):\n{v}",
                "release signing pubkey, for the docs page:\n{v}",
            ],
        ),
        (
            "jwks_public_modulus",
            lambda: s(URLSAFE, 342),
            [
                'JWKS from https://auth.acme.io/.well-known/jwks.json, kid 2026-11:\n{"kty":"RSA","e":"AQAB","use":"sig","n":"{v}"}',
                "AddJwtBearer validates against the public RSA key; n = {v}",
            ],
        ),
        (
            "aws_docs_example_key",
            lambda: r.choice(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
            [
                "LocalStack test config uses the AWS docs example creds, {v}, not real",
                "unit test fixture for the S3 presigner: access key {v} from the AWS documentation",
            ],
        ),
        (
            "jwt_io_example_token",
            lambda: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            ),
            [
                "test for the JWT middleware rejects the jwt.io sample token ({v}) since our issuer differs",
                "docs example in the API guide: Authorization: Bearer {v}",
            ],
        ),
        (
            "vercel_project_id",
            lambda: "prj_" + s(A62, 28),
            [
                '.vercel/project.json: {"orgId": "team_' + "{a24}" + '", "projectId": "{v}"}',
                "VERCEL_PROJECT_ID={v} is just an id; the token is separate",
            ],
        ),
        (
            "netlify_site_id",
            lambda: uid(),
            [
                "netlify.toml doesn't hold it, NETLIFY_SITE_ID={v} (API ID from site settings)",
                "netlify link --id {v}",
            ],
        ),
        (
            "cloudflare_account_zone_id",
            lambda: hx(32),
            [
                'wrangler.toml\nname = "edge-api"\nmain = "src/index.ts"\naccount_id = "{v}"\ncompatibility_date = "2026-10-01"',
                "zone_id for acme.io in the terraform: {v} (not sensitive)",
            ],
        ),
        (
            "wrangler_kv_namespace_id",
            lambda: hx(32),
            [
                '[[kv_namespaces]]\nbinding = "SESSIONS"\nid = "{v}"',
                '[[d1_databases]]\nbinding = "DB"\ndatabase_name = "acme-prod"\ndatabase_id = "{uuid}"\n# kv preview_id = "{v}"',
            ],
        ),
        (
            "stripe_object_ids",
            lambda: r.choice(["cus_", "price_1Q", "pi_3Q", "we_1P", "evt_1Q"]) + s(A62, 22),
            [
                "refund failed for {v}, see dashboard",
                "seed script creates the Pro plan price {v} in test mode",
                "webhook replay: stripe events resend {v}",
            ],
        ),
        (
            "user_secrets_id",
            lambda: uid(),
            [
                "Api.csproj: <UserSecretsId>{v}</UserSecretsId> - that's the folder name under %APPDATA%\\Microsoft\\UserSecrets, no secret in it",
                "dotnet user-secrets init generated id {v}",
            ],
        ),
        (
            "google_oauth_client_id",
            lambda: s(string.digits, 12) + "-" + s(LOWER_ALNUM, 32) + ".apps.googleusercontent.com",
            [
                "NEXT_PUBLIC_GOOGLE_CLIENT_ID={v}",
                "google_sign_in serverClientId: '{v}' (client id, public)",
            ],
        ),
        (
            "github_app_client_id",
            lambda: "Iv23li" + s(A62, 14),
            [
                "GitHub App 'acme-deploy-bot' app_id 918273, client id {v}; the private key is in the vault",
                "AUTH_GITHUB_ID={v}",
            ],
        ),
        (
            "apple_team_and_key_id",
            lambda: s(string.ascii_uppercase + string.digits, 10),
            [
                'fastlane Appfile: team_id("{v}")',
                "APNs key id {v} with team 9QX2K7LM3B; the .p8 itself is only in the Codemagic secure files",
            ],
        ),
        (
            "idempotency_key",
            lambda: uid(),
            [
                "Stripe call retried with Idempotency-Key: {v}",
                "POST /v1/payments Idempotency-Key {v} returned the cached response, as expected",
            ],
        ),
        (
            "pagination_cursor",
            lambda: b64u({"id": r.randint(100000, 999999), "created_at": "2026-11-30T12:00:00Z"}),
            [
                "GET /api/orders?after={v} returns empty after the migration",
                "Relay cursor {v} decodes to the last row id - fine to log",
            ],
        ),
        (
            "docker_build_secret_mount",
            lambda: "--mount=type=secret,id=npmrc,target=/root/.npmrc",
            [
                "Dockerfile: RUN {v} npm ci  -> token never lands in a layer",
                "review: use `{v}` instead of ARG NPM_TOKEN",
            ],
        ),
        (
            "framework_secret_from_env",
            lambda: r.choice(
                [
                    'SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]',
                    'secret_key_base: System.fetch_env!("SECRET_KEY_BASE")',
                    "'key' => env('APP_KEY'),",
                    'builder.Configuration["Jwt:Key"]',
                ]
            ),
            [
                "settings now read {v} - no fallback, the app should crash if unset",
                "review approved: `{v}` is the right pattern",
                "after this PR: {v}",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "Devise config: password_length 12..128, and we turned on pwned-password checks for signups",
                "Django AUTH_PASSWORD_VALIDATORS: added MinimumLengthValidator(min_length=14) per the pentest",
                "ASP.NET Identity: RequireNonAlphanumeric = false, RequiredLength = 12 - product asked for passphrases",
            ],
        ),
        (
            "csrf_token_field_talk",
            lambda: r.choice(
                [
                    "authenticity_token",
                    "csrfmiddlewaretoken",
                    "_token",
                    "__RequestVerificationToken",
                ]
            ),
            [
                "form posts from the Hotwire modal fail with 422 because {v} is missing from the hidden fields",
                "the fetch wrapper now copies {v} from the meta tag into the X-CSRF-Token header",
            ],
        ),
        (
            "k8s_secret_key_ref",
            lambda: "secretKeyRef",
            [
                "env:\n- name: DATABASE_PASSWORD\n  valueFrom:\n    {v}:\n      name: orders-db\n      key: password",
                "helm chart uses {v} for STRIPE_SECRET_KEY, the Secret is created by external-secrets",
            ],
        ),
        (
            "rotation_note_no_value",
            lambda: "",
            [
                "rotated the npm automation token after the offboarding; new one is only in GitHub org secrets",
                "postmortem: a Stripe restricted key was in a public gist for 40 min, rolled it, audit log shows no use",
                "commit: chore(security): move RAILS_MASTER_KEY out of the Dockerfile into the Kamal env secrets",
            ],
        ),
        (
            "trace_request_ids",
            lambda: hx(32),
            [
                "traceparent: 00-{v}-" + "{h16}" + "-01 shows the slow span is the Ecto query",
                "x-vercel-id: fra1::iad1::{v} for the 504",
            ],
        ),
        (
            "etag_header",
            lambda: 'W/"' + hx(40) + '"',
            [
                "ETag: {v} - Rails fresh_when keeps returning 304 after the template change",
                "CDN keeps serving ETag {v} for /api/products; Cache-Control was wrong",
            ],
        ),
        (
            "sourcemap_debug_id",
            lambda: uid(),
            [
                "sentry-cli sourcemaps inject added //# debugId={v} to main.js",
                "source map upload ok, debug id {v} matched the minified bundle",
            ],
        ),
        (
            "oauth_state_param",
            lambda: s(URLSAFE, 43),
            [
                "callback 400: state={v} didn't match the cookie, the cookie was SameSite=Strict",
                "PKCE code_challenge={v}&code_challenge_method=S256 in the authorize URL",
            ],
        ),
    ]

    more = {
        # benign, extra phrasings
        "yarn_berry_checksum": [
            "commit msg: chore(deps): bump vite, yarn.lock checksum now {v}",
        ],
        "pnpm_lock_integrity": [
            "Renovate PR #{pr} only touches pnpm-lock.yaml: integrity of @nuxt/ui became {v}",
        ],
        "composer_lock_reference": [
            'composer.lock content-hash after requiring spatie/laravel-permission: "content-hash": "{v}"',
        ],
        "pip_require_hashes": [
            'uv.lock wheel entry for psycopg: hash = "{v}"',
        ],
        "gradle_wrapper_sha256": [
            "Spring Boot bump PR: gradle wrapper validation action passed, checksum {v}",
        ],
        "pubspec_lock_sha256": [
            "pub.dev archive sha256 for firebase_core 3.6.0 is {v}, matches the lock",
        ],
        "mix_lock_hash": [
            "mix deps.get warned: the lock for :plug_crypto has hash {v} and the registry agreed after retry",
        ],
        "gemfile_lock_checksum": [
            "bundle lock --add-checksums; puma line now reads `puma (6.4.3) {v}`",
        ],
        "nuget_lock_content_hash": [
            "dotnet restore --locked-mode failed: Npgsql contentHash {v} vs lockfile",
        ],
        "nextjs_build_id": [
            "generateBuildId: async () => process.env.GIT_SHA ?? '{v}'",
        ],
        "nuxt_build_asset_hash": [
            "vite manifest maps src/main.ts to assets/index-{v}.js",
        ],
        "docker_image_digest": [
            "fly deploy --image registry.fly.io/acme-phx@{v}",
        ],
        "supabase_anon_key": [
            "anon key for the public storefront (read-only via RLS policies): {v}",
        ],
        "algolia_search_only_key": [
            "Laravel Scout uses the admin key from .env; the frontend only gets the search-only key {v}",
        ],
        "mapbox_public_token": [
            "Mapbox default public token {v} is restricted to the app bundle id",
        ],
        "posthog_project_key": [
            'config :posthog, api_key: "{v}"  # project key (phc_), ingestion only',
        ],
        "recaptcha_site_key": [
            "Flutter web index.html loads recaptcha/api.js?render={v} (site key)",
        ],
        "turnstile_site_key": [
            "Turnstile site key {v} is public; TURNSTILE_SECRET_KEY is a worker secret",
        ],
        "vapid_public_key": [
            "web-push: the browser needs the VAPID public key {v}; the private half stays in the Rails credentials",
        ],
        "discord_interactions_public_key": [
            "verifyKey(body, signature, timestamp, '{v}') - application public key from the dev portal",
        ],
        "launchdarkly_client_side_id": [
            "Flutter LDConfig mobile key lives in CI, but the web build uses client side id {v} which is public",
        ],
        "rails_credentials_encrypted_blob": [
            "git show HEAD:config/credentials.yml.enc -> {v} (encrypted, RAILS_MASTER_KEY not included)",
        ],
        "sops_encrypted_value": [
            "helm secrets diff shows only ciphertext changed: api_key: {v}",
        ],
        "laravel_encrypted_env_payload": [
            "orders.card_note column uses the 'encrypted' cast, so the DB dump only holds {v}; APP_KEY is not in the dump",
        ],
        "npmrc_env_interpolation": [
            "fix(ci): .npmrc uses `_authToken={v}` and setup-node writes the real one",
        ],
        "masked_token_suffix": [
            "Vercel shows the token as {v} in account settings; created 2026-03, scope: acme team",
        ],
        "ssh_public_key": [
            "authorized_keys on the Phoenix release box:\n{v} ci@github-actions",
        ],
        "pgp_public_key_block": [
            "Packagist / composer signing? no - this is the apt repo pubkey we ship in install.sh:\n{v}",
        ],
        "jwks_public_modulus": [
            "Guardian JWKS cache entry kid=web-2026 n={v} e=AQAB",
        ],
        "aws_docs_example_key": [
            "moto-based pytest fixture: os.environ['AWS_ACCESS_KEY_ID'] = '{v}'  # doc example, fake",
        ],
        "jwt_io_example_token": [
            "Swagger example value for the Authorization header is the jwt.io demo token {v}",
        ],
        "vercel_project_id": [
            "vercel.json has no secrets; projectId {v} comes from .vercel/project.json which is gitignored anyway",
        ],
        "netlify_site_id": [
            "Netlify site 'acme-docs' API ID: {v}",
        ],
        "cloudflare_account_zone_id": [
            "CLOUDFLARE_ACCOUNT_ID={v} (account id, shown in the dashboard URL)",
        ],
        "wrangler_kv_namespace_id": [
            'wrangler kv namespace create CACHE -> id = "{v}"',
        ],
        "user_secrets_id": [
            "Worker.csproj UserSecretsId {v} - every dev gets their own secrets.json locally",
        ],
        "google_oauth_client_id": [
            "GoogleSignIn in the Flutter iOS Info.plist: GIDClientID = {v}",
        ],
        "github_app_client_id": [
            "OAuth app 'acme-docs-login' Client ID {v} (the client secret is in Doppler)",
        ],
        "apple_team_and_key_id": [
            "App Store Connect issuer {uuid}, key id {v} - the AuthKey .p8 is not in this note",
        ],
        "idempotency_key": [
            'Go client sets req.Header.Set("Idempotency-Key", "{v}") per checkout attempt',
        ],
        "pagination_cursor": [
            'GraphQL pageInfo.endCursor: "{v}"',
        ],
        "docker_build_secret_mount": [
            "compose build secret: RUN {v} yarn install --immutable",
        ],
        "csrf_token_field_talk": [
            "Phoenix LiveView: the _csrf_token param comes from get_csrf_token(); {v} naming differs per framework",
        ],
        "k8s_secret_key_ref": [
            "Spring Boot deployment: SPRING_DATASOURCE_PASSWORD via {v} -> db-credentials/password",
        ],
        "trace_request_ids": [
            "Phoenix logs request_id={v} for the failed LiveView mount",
        ],
        "etag_header": [
            "If-None-Match: {v} -> 304 Not Modified from the Go handler",
        ],
        "sourcemap_debug_id": [
            "Flutter obfuscation symbols uploaded with debug id {v}",
        ],
        "oauth_state_param": [
            "Auth.js logs: OAuthCallbackError, checks.state {v} missing from cookies",
        ],
        "stripe_object_ids": [
            "Cashier subscription has stripe_id {v} in the subscriptions table",
        ],
        # secret, extra phrasings
        "github_fine_grained_pat": [
            'composer auth: "github-oauth": {"github.com": "{v}"} (fine-grained, acme org only)',
        ],
        "npmrc_private_registry_password": [
            "PR #{pr} review comment: .npmrc line `//registry.acme.io/:_password={v}` - that's the base64 of the real password, not an encryption",
        ],
        "github_oauth_token": [
            "HOMEBREW_GITHUB_API_TOKEN={v} (copied from gh auth token)",
        ],
        "maven_settings_password": [
            "mvn deploy -Dnexus.password={v} -DskipTests  # from the release runbook",
        ],
        "nuget_api_key": [
            "NUGET_API_KEY={v} in the release pipeline variables (not marked secret!)",
        ],
        "rails_secret_key_base": [
            "Kamal .kamal/secrets: SECRET_KEY_BASE={v}",
        ],
        "laravel_app_key": [
            "php artisan key:generate --show -> {v} (using it for the new prod env)",
        ],
        "ecto_database_url_password": [
            "Phoenix prod DB: user acme_app, password {v}, host acme-db.internal",
        ],
        "stripe_restricted_key": [
            'Django settings.STRIPE_API_KEY = "{v}"  # rk for the analytics export',
        ],
        "vercel_access_token": [
            "turbo remote cache: TURBO_TOKEN={v} TURBO_TEAM=acme",
        ],
        "netlify_personal_access_token": [
            "netlify-cli login stored {v} in ~/.config/netlify/config.json",
        ],
        "supabase_service_role_key": [
            'supabase-py admin client: create_client(url, "{v}")',
        ],
        "anthropic_api_key": [
            'Phoenix: config :acme, :anthropic_api_key, "{v}"  in dev.exs (committed by mistake)',
        ],
        "twilio_auth_token": [
            "Twilio request validation uses the auth token {v} to check X-Twilio-Signature",
        ],
        "slack_bot_token": [
            'appsettings.json "Slack": { "BotToken": "{v}" }',
        ],
        "sentry_auth_token": [
            "sentry-cli --auth-token {v} releases new $GIT_SHA",
        ],
        "rails_session_cookie": [
            "copied my own admin session so the agent can hit /admin/reports: _acme_session={v}",
        ],
        "docker_config_auth": [
            'echo \'{"auths":{"registry.gitlab.com":{"auth":"{v}"}}}\' > ~/.docker/config.json',
        ],
        "redis_url_password": [
            'config :acme, Acme.Redix, password: "{v}", host: "redis.acme.internal"',
        ],
        "azure_storage_account_key": [
            "AZURE_STORAGE_KEY={v} for the Laravel flysystem-azure disk",
        ],
        "shopify_admin_token": [
            "Hydrogen private storefront? no, this is the admin one: X-Shopify-Access-Token: {v}",
        ],
        "mongodb_uri_password": [
            "Atlas db user `api-rw` password {v}",
        ],
        "vault_token": [
            "vault login {v}  # periodic token for the Spring Cloud Config server",
        ],
        "guardian_secret_key": [
            "mix guardian.gen.secret gave {v}, put it in prod env",
        ],
        "planetscale_password": [
            "Laravel .env: DB_PASSWORD={v} (planetscale, branch main)",
        ],
        "rubygems_api_key": [
            "gem signin stored the key; for CI: RUBYGEMS_API_KEY={v}",
        ],
        "jfrog_api_key": [
            "settings.xml <password>{v}</password> for the jfrog virtual repo",
        ],
        "openssh_private_key": [
            "GitHub Actions secret SSH_PRIVATE_KEY value (for webfactory/ssh-agent):\n{v}",
        ],
        "totp_seed": [
            'ROTP::TOTP.new("{v}", issuer: "Acme") - that\'s the real seed for the ops admin 2FA',
        ],
    }

    rows = []

    def fill(template, v):
        extras = {
            "{pr}": str(r.randint(120, 4800)),
            "{k16}": s(string.ascii_uppercase + "234567", 16),
            "{h32}": hx(32),
            "{h48}": hx(48).upper(),
            "{h64}": hx(64),
            "{h16}": hx(16),
            "{a24}": s(A62, 24),
            "{uuid}": uid(),
        }
        out = template
        for k, val in extras.items():
            if k in out:
                out = out.replace(k, val)
        return out.replace("{v}", v)

    for label, specs in (("secret", secret_specs), ("benign", benign_specs)):
        for kind, gen, templates in specs:
            for t in templates + more.get(kind, []):
                v = gen()
                text = fill(t, v)
                assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    return rows


def main():
    rows = corpus()
    lines = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

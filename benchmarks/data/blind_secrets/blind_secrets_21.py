# ruff: noqa: E501
"""Blind secrets corpus 21: QA testers and mobile/desktop app developers.

Texts a memory tool for AI coding agents might be asked to store while QA testers and
mobile/desktop app developers work: test and staging accounts, browser devtools output,
HAR excerpts, Postman/Insomnia collections, curl and httpie commands, cookies and
localStorage dumps, Charles/mitmproxy captures, Electron and React Native configs, app
store review accounts; plus their look-alikes (fixtures, seeded demo users with published
demo passwords, analytics and crash-reporting ids, request ids, public SDK keys).

Written blind on 2026-12-06: the author did not read the detector, its tests or any earlier corpus.

Run:
    python benchmarks/data/blind_secrets/blind_secrets_21.py /tmp/blind21.jsonl
(writes JSONL rows {"label", "kind", "text", "value"}; stdout without an argument)

Kinds, secret:
    staging_account_password, app_store_review_password, play_review_password,
    har_bearer_jwt, har_cookie_session, devtools_set_cookie, localstorage_access_token,
    localstorage_refresh_token, curl_bearer_token, curl_basic_user_pass, httpie_auth,
    postman_env_api_key, postman_collection_bearer, insomnia_env_token,
    charles_capture_cookie, mitmproxy_flow_authorization, electron_gh_token,
    apple_app_specific_password, csc_key_password, rn_upload_store_password,
    fastlane_match_password, asc_p8_private_key, service_account_private_key,
    sentry_auth_token, appcenter_api_token, expo_access_token, npm_token,
    browserstack_access_key, saucelabs_access_key, stripe_secret_key, slack_webhook_url,
    aws_secret_access_key, google_oauth_client_secret, totp_seed, basic_auth_in_url,
    x_api_key_header, aspnet_auth_cookie, php_session_cookie, rails_session_cookie,
    django_session_cookie, har_refresh_token_response, supabase_service_role_key,
    twilio_auth_token, github_fine_grained_pat, gitlab_pat, proxy_auth_credentials,
    websocket_token_query, presigned_url_signature, datadog_api_key, openai_api_key,
    sendgrid_api_key, telegram_bot_token, ssh_private_key, build_agent_ssh_password,
    database_url_password, redis_url_password, fcm_legacy_server_key,
    onesignal_rest_api_key, mapbox_secret_token, shopify_access_token,
    har_basic_authorization, discord_bot_token, anthropic_api_key
Kinds, benign:
    published_demo_user, fixture_placeholder_password, firebase_web_api_key,
    sentry_dsn_public, mixpanel_project_token, amplitude_api_key_client, segment_write_key,
    ga_measurement_id, firebase_app_id, bugsnag_notifier_key, request_id_uuid, cf_ray_id,
    amzn_trace_id, traceparent_header, etag_hash, har_redacted_authorization,
    ga_cookie, localstorage_non_secret, stripe_publishable_key, mapbox_public_token,
    algolia_search_only_key, recaptcha_site_key, eas_project_id, asc_key_ids_only,
    keystore_fingerprint, google_oauth_client_id, git_commit_sha, npm_integrity_hash,
    env_reference_token, postman_variable_placeholder, curl_shell_variable,
    httpie_angle_placeholder, revoked_token_stated, vault_reference, password_policy_talk,
    token_other_sense, key_other_sense, jwt_header_only, jwks_public_key,
    pem_certificate, ssh_public_key, device_advertising_id, sentry_event_id,
    apk_sha256, base64_png, stripe_test_card, twilio_magic_number, mitm_ca_fingerprint,
    bcrypt_fixture_hash, pkce_code_challenge, env_example_placeholder,
    review_notes_no_values, datadog_rum_client_token, launchdarkly_client_id,
    revenuecat_public_key, onesignal_app_id, supabase_anon_key, sri_hash,
    sourcemap_debug_id, jwt_io_example, aws_docs_example_key, stripe_test_token_name,
    crashlytics_issue_id, webpack_chunk_hash, asar_integrity_hash, har_cookie_stripped
"""

import base64
import json
import random
import sys

SEED = 521021

B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
B64U = B62 + "-_"
B64 = B62 + "+/"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
LOW = "abcdefghijklmnopqrstuvwxyz0123456789"


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def uuid():
        h = s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def b64u(obj):
        raw = json.dumps(obj, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    def jwt(payload, alg="HS256"):
        return b64u({"alg": alg, "typ": "JWT"}) + "." + b64u(payload) + "." + s(B64U, 43)

    def user_jwt():
        return jwt(
            {
                "sub": str(r.randint(10000, 99999)),
                "email": f"qa{r.randint(1, 40)}@staging.example-app.io",
                "exp": 1796000000 + r.randint(0, 9999999),
            }
        )

    def pw():
        words = ["Falcon", "River", "Copper", "Maple", "Orbit", "Quartz", "Tundra"]
        return r.choice(words) + s("!#%*@$", 1) + str(r.randint(10, 99)) + s(B62, r.randint(5, 9))

    def pem(label, nlines=6):
        body = "\n".join(s(B64, 64) for _ in range(nlines))
        return f"-----BEGIN {label}-----\n{body}\n{s(B64, 20)}=\n-----END {label}-----"

    def app_pw():
        return "-".join(s("abcdefghijklmnopqrstuvwxyz", 4) for _ in range(4))

    secret = [
        (
            "staging_account_password",
            pw,
            [
                "QA staging login for checkout tests: qa.buyer02@staging.example-app.io / {v}",
                "Staging admin (role=ops) -> user: ops-admin  pass: {v}\nreset every sprint by Dana",
                "note to self: the staging tenant 'acme-uat' super user password is {v}, don't rotate before release 4.12",
                "Testkonto Staging (Rolle Händler): haendler.qa@example-app.io, Passwort: {v}",
            ],
        ),
        (
            "app_store_review_password",
            pw,
            [
                "App Review Information > Sign-in required\nUser name: appreview@example-app.io\nPassword: {v}",
                "For App Store review we gave Apple the account reviewer.ios@example-app.io with password {v} (has premium unlocked)",
                "iOS 3.8 submission — demo account for Apple reviewers: login `apple-review-01`, pwd `{v}`",
            ],
        ),
        (
            "play_review_password",
            pw,
            [
                "Play Console > App access > instructions: username play.review@example-app.io, password {v}",
                "Google Play review login (restricted area): play-reviewer / {v} — real prod account w/ sample data",
                "Android review creds pasted into App access form: {v} (user: gp-review)",
            ],
        ),
        (
            "har_bearer_jwt",
            user_jwt,
            [
                '{"name": "authorization", "value": "Bearer {v}"}',
                'From the HAR (entries[14].request.headers):\n  { "name": "Authorization", "value": "Bearer {v}" }\nrequest to /api/v2/orders failed 500',
                "HAR excerpt, GET https://api.staging.example-app.io/me\nAuthorization: Bearer {v}",
            ],
        ),
        (
            "har_cookie_session",
            lambda: s(B64U, 48),
            [
                '"cookies": [{"name": "session", "value": "{v}", "httpOnly": true, "secure": true}]',
                'har entry cookie header: {"name": "Cookie", "value": "session={v}; theme=dark"}',
                "saved HAR from the bug report still has a live cookie: session={v}",
            ],
        ),
        (
            "devtools_set_cookie",
            lambda: "s%3A" + s(B64U, 32) + "." + s(B64, 43),
            [
                "Network tab > Response Headers\nset-cookie: connect.sid={v}; Path=/; HttpOnly; SameSite=Lax",
                "copied from devtools: Set-Cookie: connect.sid={v}; Secure",
                "the login response sets connect.sid={v} and the SPA never refreshes it",
            ],
        ),
        (
            "localstorage_access_token",
            user_jwt,
            [
                'localStorage dump from QA laptop:\n{"theme":"dark","access_token":"{v}","locale":"de-DE"}',
                "> localStorage.getItem('accessToken')\n'{v}'",
                "Application > Local Storage > https://app.staging.example-app.io\nauth.token    {v}",
            ],
        ),
        (
            "localstorage_refresh_token",
            lambda: "rt_" + s(B62, 40),
            [
                "localStorage['refresh_token'] = \"{v}\"  // still valid 30 days, from Priya's browser",
                'persist:root -> {"auth":{"refreshToken":"{v}","userId":"8812"}}',
                "Chrome devtools, Storage tab: refreshToken = {v}",
                "jeton de rafraîchissement trouvé dans le localStorage du testeur : {v}",
            ],
        ),
        (
            "curl_bearer_token",
            lambda: s(B62, 40),
            [
                "curl -s https://api.staging.example-app.io/v1/devices -H 'Authorization: Bearer {v}' | jq .",
                'repro:\ncurl -X POST "$API/v1/sync" \\\n  -H "Authorization: Bearer {v}" \\\n  -d @payload.json',
                "copy-as-curl from Chrome: curl 'https://api.example-app.io/graphql' -H 'authorization: Bearer {v}' --data-raw '{\"query\":\"{me{id}}\"}'",
            ],
        ),
        (
            "curl_basic_user_pass",
            lambda: "qa-bot:" + pw(),
            [
                "curl -u {v} https://staging.example-app.io/admin/api/reset-fixtures",
                "Jenkins smoke step: curl --user {v} -X POST https://uat.example-app.io/api/seed",
                "to wipe the test tenant: `curl -fsS -u '{v}' https://qa.example-app.io/internal/wipe`",
            ],
        ),
        (
            "httpie_auth",
            lambda: "tester@example-app.io:" + pw(),
            [
                "http -a {v} GET https://api.staging.example-app.io/v1/profile",
                "httpie repro for BUG-4412: http --auth {v} POST :8443/api/cart item=42",
                "https -a '{v}' staging.example-app.io/api/v3/flags",
            ],
        ),
        (
            "postman_env_api_key",
            lambda: s(HEX, 32),
            [
                '"values": [{"key": "api_key", "value": "{v}", "type": "secret", "enabled": true}]',
                'Postman env \'Staging\' exported:\n{ "key": "x_api_key", "value": "{v}", "enabled": true }',
                "postman environment STAGING-EU has apiKey={v} (the partner key, not a dummy)",
            ],
        ),
        (
            "postman_collection_bearer",
            lambda: s(B62, 48),
            [
                '"auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{v}", "type": "string"}]}',
                "collection-level auth in Mobile API.postman_collection.json is hardcoded: bearer {v}",
                "Postman collection 'Orders v2' > Authorization tab > Bearer Token: {v}",
            ],
        ),
        (
            "insomnia_env_token",
            lambda: "ins_" + s(B62, 36),
            [
                'Insomnia base env: {"base_url": "https://api.staging.example-app.io", "token": "{v}"}',
                'insomnia export (resource type environment) -> data.authToken: "{v}"',
                "the Insomnia workspace we shared has the partner token {v} in the sub-environment 'uat'",
            ],
        ),
        (
            "charles_capture_cookie",
            lambda: s(B64U, 40),
            [
                "Charles session, request to /api/checkout:\nCookie: _sid={v}; locale=en",
                "Charles > Contents > Headers: Cookie  auth_session={v}",
                "caught in Charles on the iPhone 15 proxy: X-Session-Token: {v}",
            ],
        ),
        (
            "mitmproxy_flow_authorization",
            lambda: "Token " + s(HEX, 40),
            [
                "mitmproxy flow detail\n  Authorization: {v}\n  User-Agent: ExampleApp/5.2 (Android 14)",
                "mitmdump -r flows.mitm shows header authorization={v} on every /sync call",
                "from mitmweb: GET /api/v1/me 200  (Authorization: {v})",
            ],
        ),
        (
            "electron_gh_token",
            lambda: "ghp_" + s(B62, 36),
            [
                "electron-builder publish needs GH_TOKEN={v} set before `npm run release`",
                "export GH_TOKEN={v}   # repo scope, used by electron-updater release upload",
                "Desktop release checklist: token for the releases repo is {v}",
            ],
        ),
        (
            "apple_app_specific_password",
            app_pw,
            [
                "notarize step: APPLE_ID=build@example-app.io APPLE_APP_SPECIFIC_PASSWORD={v}",
                "@electron/notarize config -> appleIdPassword: '{v}'",
                "app-specific pw for altool / notarytool on the build Mac: {v}",
            ],
        ),
        (
            "csc_key_password",
            pw,
            [
                "CSC_LINK=./certs/win-codesign.pfx\nCSC_KEY_PASSWORD={v}",
                "the .p12 for mac signing opens with {v} (electron-builder reads CSC_KEY_PASSWORD)",
                "WIN_CSC_KEY_PASSWORD={v} in the release runner env",
            ],
        ),
        (
            "rn_upload_store_password",
            pw,
            [
                "android/gradle.properties\nMYAPP_UPLOAD_STORE_FILE=my-upload-key.keystore\nMYAPP_UPLOAD_KEY_ALIAS=upload\nMYAPP_UPLOAD_STORE_PASSWORD={v}",
                "upload keystore password (RN app, release builds): {v}",
                "storePassword '{v}' is hardcoded in android/app/build.gradle signingConfigs.release",
            ],
        ),
        (
            "fastlane_match_password",
            pw,
            [
                "MATCH_PASSWORD={v} decrypts the certificates repo for fastlane match",
                "fastlane match passphrase: {v}",
                "CI secret MATCH_PASSWORD is `{v}` if you need to run match locally",
            ],
        ),
        (
            "asc_p8_private_key",
            lambda: pem("PRIVATE KEY", 3),
            [
                "AuthKey_ABC123DEFG.p8 contents (App Store Connect API):\n{v}",
                "asc api key for fastlane:\n{v}",
            ],
        ),
        (
            "service_account_private_key",
            lambda: pem("PRIVATE KEY", 4).replace("\n", "\\n"),
            [
                '"private_key": "{v}", "client_email": "fastlane-supply@example-app.iam.gserviceaccount.com"',
                "play-store-credentials.json -> private_key = {v}",
            ],
        ),
        (
            "sentry_auth_token",
            lambda: s(HEX, 64),
            [
                "SENTRY_AUTH_TOKEN={v}  # for sentry-cli sourcemap upload in the RN build",
                "sentry.properties\ndefaults.org=example-app\nauth.token={v}",
                "sentry-cli --auth-token {v} releases files 5.2.0 upload-sourcemaps ./build",
            ],
        ),
        (
            "appcenter_api_token",
            lambda: s(HEX, 40),
            [
                "APPCENTER_ACCESS_TOKEN={v} for codepush release-react",
                "appcenter login --token {v}",
                "App Center user API token (full access): {v}",
            ],
        ),
        (
            "expo_access_token",
            lambda: s(B62, 40),
            [
                "EXPO_TOKEN={v} — robot user token for eas build on CI",
                "eas build needs the expo robot token, it's {v}",
                "set EXPO_TOKEN to {v} in the GitHub secrets of mobile-app",
            ],
        ),
        (
            "npm_token",
            lambda: "npm_" + s(B62, 36),
            [
                "//registry.npmjs.org/:_authToken={v}",
                ".npmrc on the build box: _authToken={v} (publishes @example-app/rn-ui)",
                "NPM_TOKEN={v}",
            ],
        ),
        (
            "browserstack_access_key",
            lambda: s(B62, 20),
            [
                "BROWSERSTACK_USERNAME=qateam_x7Ld2\nBROWSERSTACK_ACCESS_KEY={v}",
                "wdio.conf: key: '{v}', user: 'qateam_x7Ld2'",
                "BrowserStack App Automate access key {v}",
            ],
        ),
        (
            "saucelabs_access_key",
            uuid,
            [
                "SAUCE_USERNAME=example-qa SAUCE_ACCESS_KEY={v}",
                "sauce connect: sc -u example-qa -k {v} --tunnel-name qa-ios",
                "Sauce Labs access key for the real device cloud: {v}",
            ],
        ),
        (
            "stripe_secret_key",
            lambda: "sk_live_" + s(B62, 24),
            [
                "somebody put STRIPE_SECRET_KEY={v} in the staging .env — that's the LIVE one",
                'backend config for payments tests: stripe.apiKey = "{v}"',
                "curl https://api.stripe.com/v1/charges -u {v}:",
            ],
        ),
        (
            "slack_webhook_url",
            lambda: f"https://hooks.slack.com/services/T{s(B32, 8)}/B{s(B32, 10)}/{s(B62, 24)}",
            [
                "QA nightly report posts to {v}",
                "SLACK_WEBHOOK={v} # #mobile-releases",
                "Detox failures notify via webhook: {v}",
            ],
        ),
        (
            "aws_secret_access_key",
            lambda: s(B64, 40),
            [
                "Device Farm uploader:\naws_access_key_id = AKIA"
                + "{ak}"
                + "\naws_secret_access_key = {v}",
                "AWS_SECRET_ACCESS_KEY={v} (IAM user devicefarm-ci)",
                "the S3 bucket for QA screenshots: secret key {v}",
            ],
        ),
        (
            "google_oauth_client_secret",
            lambda: "GOCSPX-" + s(B64U, 28),
            [
                "desktop app OAuth client: client_secret = {v}",
                '{"installed":{"client_id":"4412-abc.apps.googleusercontent.com","client_secret":"{v}"}}',
                "GOOGLE_CLIENT_SECRET={v} for the Electron sign-in flow",
            ],
        ),
        (
            "totp_seed",
            lambda: s(B32, 32),
            [
                "2FA for the shared QA account — TOTP secret {v} (add to your authenticator)",
                "otpauth://totp/ExampleApp:qa-shared?secret={v}&issuer=ExampleApp",
                "MFA seed for app-review account so Apple can get past 2FA: {v}",
            ],
        ),
        (
            "basic_auth_in_url",
            pw,
            [
                "staging is behind basic auth, use https://preview:{v}@staging.example-app.io/",
                "Playwright baseURL: 'https://qa:{v}@uat.example-app.io'",
                "Storybook preview is password-protected: https://storybook:{v}@storybook.staging.example-app.io",
            ],
        ),
        (
            "x_api_key_header",
            lambda: s(B62, 40),
            [
                "Request Headers (devtools):\nx-api-key: {v}\naccept: application/json",
                "partner API expects header X-API-Key: {v}",
                "api gateway key used by the kiosk app: {v}",
            ],
        ),
        (
            "aspnet_auth_cookie",
            lambda: "CfDJ8" + s(B64U, 120),
            [
                "Cookie: .AspNetCore.Cookies={v}",
                "admin portal cookie from devtools (.AspNetCore.Identity.Application): {v}",
                "impersonate the QA admin by pasting this cookie: {v}",
            ],
        ),
        (
            "php_session_cookie",
            lambda: s(LOW, 26),
            [
                "PHPSESSID={v} for the logged-in reviewer on staging-cms",
                "Cookie: PHPSESSID={v}; wp-settings-1=libraryContent",
                "grab the legacy panel session: PHPSESSID {v} (expires in 24h)",
            ],
        ),
        (
            "rails_session_cookie",
            lambda: s(B64, 120).replace("/", "%2F") + "--" + s(HEX, 40),
            [
                "_example_app_session={v}",
                "Cookie header from the failing spec run: _shop_session={v}",
            ],
        ),
        (
            "django_session_cookie",
            lambda: s("abcdefghijklmnopqrstuvwxyz0123456789", 32),
            [
                "sessionid={v}; csrftoken=... (django admin on staging)",
                "django admin session for QA superuser: sessionid {v}",
                "Application > Cookies > sessionid  {v}",
            ],
        ),
        (
            "har_refresh_token_response",
            lambda: s(B64U, 64),
            [
                '"response": {"content": {"text": "{\\"access_token\\":\\"...\\",\\"refresh_token\\":\\"{v}\\"}"}}',
                "HAR response body of POST /oauth/token: refresh_token={v}",
                'token endpoint replied with refresh_token "{v}" (offline_access scope)',
            ],
        ),
        (
            "supabase_service_role_key",
            lambda: jwt(
                {
                    "iss": "supabase",
                    "ref": s("abcdefghijklmnopqrst", 20),
                    "role": "service_role",
                    "iat": 1700000000,
                    "exp": 2015576000,
                }
            ),
            [
                "SUPABASE_SERVICE_ROLE_KEY={v}",
                "the RN app accidentally bundles the service_role key: {v}",
                "supabase seed script uses service key {v}",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: s(HEX, 32),
            [
                "TWILIO_ACCOUNT_SID=AC" + "{sid}" + "\nTWILIO_AUTH_TOKEN={v}",
                "twilio auth token (for OTP SMS in QA): {v}",
                "Twilio creds for verify service — token {v}",
            ],
        ),
        (
            "github_fine_grained_pat",
            lambda: "github_pat_" + s(B62, 22) + "_" + s(B62, 59),
            [
                "fine-grained PAT to pull the private detox-utils package: {v}",
                "GITHUB_TOKEN={v}",
                "token for fetching test fixtures repo in CI: {v}",
            ],
        ),
        (
            "gitlab_pat",
            lambda: "glpat-" + s(B64U, 20),
            [
                "GITLAB_TOKEN={v} for pushing the build artifacts",
                "gitlab personal access token (api scope): {v}",
                "git clone https://oauth2:{v}@gitlab.example-app.io/mobile/ios.git",
            ],
        ),
        (
            "proxy_auth_credentials",
            lambda: "qa:" + pw(),
            [
                "mitmproxy --mode regular --proxyauth {v} --listen-port 8080",
                "upstream proxy for device lab: http://{v}@proxy.lab.example-app.io:3128",
                "Charles external proxy auth for the office network: {v}",
            ],
        ),
        (
            "websocket_token_query",
            lambda: s(B64U, 44),
            [
                "WS frame tab shows wss://rt.staging.example-app.io/socket?token={v}",
                "realtime connection URL from devtools: wss://live.example-app.io/v2?access_token={v}",
                "socket.io handshake query auth={v}",
            ],
        ),
        (
            "presigned_url_signature",
            lambda: s(HEX, 64),
            [
                "upload URL (valid 7 days): https://qa-uploads.s3.amazonaws.com/crash/dump.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=604800&X-Amz-Signature={v}",
                "GCS signed url for the test build: ...&X-Goog-Expires=604800&X-Goog-Signature={v}",
            ],
        ),
        (
            "datadog_api_key",
            lambda: s(HEX, 32),
            [
                "DD_API_KEY={v} (used by datadog-ci to upload RN sourcemaps)",
                "datadog-ci react-native upload --api-key {v}",
                "Datadog API key for the mobile org: {v}",
            ],
        ),
        (
            "openai_api_key",
            lambda: "sk-proj-" + s(B64U, 48),
            [
                "OPENAI_API_KEY={v} — the desktop app's assistant feature in dev",
                "electron main.ts: new OpenAI({ apiKey: '{v}' })",
                "key for the AI test-case generator: {v}",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: "SG." + s(B64U, 22) + "." + s(B64U, 43),
            [
                "SENDGRID_API_KEY={v} for staging magic-link emails",
                "email invites in QA are sent with key {v}",
                "sendgrid key (full access!) {v}",
            ],
        ),
        (
            "telegram_bot_token",
            lambda: str(r.randint(100000000, 999999999)) + ":AA" + s(B64U, 33),
            [
                "QA alerts bot token: {v}",
                "TELEGRAM_BOT_TOKEN={v}",
                "curl https://api.telegram.org/bot{v}/sendMessage -d chat_id=-1001 -d text=build-ok",
            ],
        ),
        (
            "ssh_private_key",
            lambda: pem("OPENSSH PRIVATE KEY", 5),
            [
                "deploy key for the Mac mini build agent:\n{v}",
                "id_ed25519 used by the device lab runner:\n{v}",
            ],
        ),
        (
            "build_agent_ssh_password",
            pw,
            [
                "ssh builder@macmini-07.lab.local password {v}",
                "Mac build agent login (VNC + ssh): ci / {v}",
                "the xcode-runner box root pw is {v}",
            ],
        ),
        (
            "database_url_password",
            pw,
            [
                "DATABASE_URL=postgres://qa_rw:{v}@staging-db.example-app.io:5432/app",
                "connect to the QA db: psql 'postgresql://tester:{v}@10.20.0.5/app_qa'",
                "mysql -h uat-db -u app -p'{v}' app_uat",
            ],
        ),
        (
            "redis_url_password",
            lambda: s(B62, 32),
            [
                "REDIS_URL=redis://default:{v}@redis-qa.example-app.io:6379/0",
                "rediss://:{v}@cache.staging.example-app.io:6380",
                "redis-cli -a {v} -h redis-qa FLUSHDB   # resets rate limits for tests",
            ],
        ),
        (
            "fcm_legacy_server_key",
            lambda: "AAAA" + s(B64U, 7) + ":APA91b" + s(B64U, 134),
            [
                "FCM server key (legacy HTTP): {v}",
                "curl -H 'Authorization: key={v}' https://fcm.googleapis.com/fcm/send",
                "push test script uses server key {v}",
            ],
        ),
        (
            "onesignal_rest_api_key",
            lambda: s(B62, 48),
            [
                "ONESIGNAL_REST_API_KEY={v}",
                "OneSignal REST key to send test pushes: Authorization: Basic {v}",
                "onesignal rest api key (do not ship in app): {v}",
            ],
        ),
        (
            "mapbox_secret_token",
            lambda: "sk.eyJ1Ijoi" + s(B64U, 40) + "." + s(B64U, 22),
            [
                "MAPBOX_DOWNLOADS_TOKEN={v} (for the iOS SDK pod install)",
                "~/.netrc: machine api.mapbox.com login mapbox password {v}",
                "gradle.properties MAPBOX_DOWNLOADS_TOKEN={v}",
            ],
        ),
        (
            "shopify_access_token",
            lambda: "shpat_" + s(HEX, 32),
            [
                "X-Shopify-Access-Token: {v}",
                "test store admin token for the POS app: {v}",
                "SHOPIFY_ADMIN_TOKEN={v}",
            ],
        ),
        (
            "har_basic_authorization",
            lambda: base64.b64encode(f"qa-admin:{pw()}".encode()).decode(),
            [
                '{"name": "Authorization", "value": "Basic {v}"}',
                "HAR has Authorization: Basic {v} on the admin calls",
                "Charles shows the kiosk sending Authorization: Basic {v}",
            ],
        ),
        (
            "discord_bot_token",
            lambda: "MT" + s(B64U, 24) + "." + s(B64U, 6) + "." + s(B64U, 38),
            [
                "DISCORD_BOT_TOKEN={v} (beta testers feedback bot)",
                "feedback bot login: client.login('{v}')",
            ],
        ),
        (
            "anthropic_api_key",
            lambda: "sk-ant-api03-" + s(B64U, 93) + "AA",
            [
                "ANTHROPIC_API_KEY={v} in the desktop app dev .env",
                "key for the test summariser: {v}",
            ],
        ),
    ]

    def example_pk():
        return "pk_live_" + s(B62, 24)

    benign = [
        (
            "published_demo_user",
            lambda: "secret_sauce",
            [
                "Sauce Demo login for Appium practice: standard_user / {v} (printed on the login page)",
                "public demo app saucedemo.com — every user shares the password {v}, it's in their docs",
                "for the workshop use locked_out_user with {v} to see the error state",
            ],
        ),
        (
            "fixture_placeholder_password",
            lambda: "password123",
            [
                "tests/fixtures/users.json seeds alice@example.test with {v}; the DB is a throwaway container",
                "factory default: UserFactory(password='{v}') — only exists in the in-memory test db",
                "the seeded local user (docker compose up) logs in with admin@example.test / {v}, see seed.sql",
            ],
        ),
        (
            "firebase_web_api_key",
            lambda: "AIza" + s(B64U, 35),
            [
                'google-services.json: "api_key": [{"current_key": "{v}"}] — this is the public client key, restricted by app',
                "firebaseConfig.apiKey = '{v}' (Firebase web key, identifies the project, not a secret)",
                "GoogleService-Info.plist API_KEY {v} ships in every IPA anyway",
            ],
        ),
        (
            "sentry_dsn_public",
            lambda: (
                f"https://{s(HEX, 32)}@o{r.randint(100000, 999999)}.ingest.sentry.io/{r.randint(1000000, 9999999)}"
            ),
            [
                "Sentry.init({ dsn: '{v}' }) in App.tsx — DSN is public, only allows sending events",
                "SENTRY_DSN={v} (client DSN for the electron renderer)",
                "crash reports for the Android app go to {v}",
            ],
        ),
        (
            "mixpanel_project_token",
            lambda: s(HEX, 32),
            [
                "Mixpanel.init('{v}') — project token, ships in the bundle",
                "mixpanel token for the QA project: {v} (client-side, not the API secret)",
                "analytics: MIXPANEL_TOKEN={v}, events land in 'Example App (staging)'",
            ],
        ),
        (
            "amplitude_api_key_client",
            lambda: s(HEX, 32),
            [
                "amplitude.init('{v}') — browser SDK key, it's visible in the page source",
                "Amplitude client key for the RN app {v}; the secret key is NOT in the repo",
                "AMPLITUDE_API_KEY (client, public) = {v}",
            ],
        ),
        (
            "segment_write_key",
            lambda: s(B62, 32),
            [
                "analytics.load('{v}') — Segment write key for the marketing site, public by design",
                "Segment source 'iOS staging' write key: {v}",
                "segment writeKey {v} is in the shipped JS bundle, fine",
            ],
        ),
        (
            "ga_measurement_id",
            lambda: "G-" + s("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10),
            [
                "gtag('config', '{v}') for the download page",
                "GA4 measurement id for the desktop app telemetry: {v}",
                "firebase analytics stream measurementId {v}",
            ],
        ),
        (
            "firebase_app_id",
            lambda: f"1:{r.randint(100000000000, 999999999999)}:android:{s(HEX, 22)}",
            [
                "FIREBASE_APP_ID={v} for App Distribution uploads (the token is a separate secret)",
                "mobilesdk_app_id: {v}",
                "firebase appdistribution:distribute app.apk --app {v} --groups qa",
            ],
        ),
        (
            "bugsnag_notifier_key",
            lambda: s(HEX, 32),
            [
                "Bugsnag.start({ apiKey: '{v}' }) — notifier key, embedded in the app",
                "bugsnag project key in Info.plist: {v}",
                "crash reporting: bugsnag apiKey {v} (notifier only, cannot read data)",
            ],
        ),
        (
            "request_id_uuid",
            uuid,
            [
                "500 on checkout, x-request-id: {v} — send to backend team",
                "support ticket: failed upload, Request-Id {v}",
                "grep the api logs for request_id={v}",
                "error al pagar en staging, identificador de solicitud {v} (no es un token)",
            ],
        ),
        (
            "cf_ray_id",
            lambda: s(HEX, 16) + "-FRA",
            [
                "cf-ray: {v} on the 403 from staging",
                "Cloudflare blocked the device; Ray ID {v}",
                "response headers: server cloudflare, cf-ray {v}, cf-cache-status DYNAMIC",
            ],
        ),
        (
            "amzn_trace_id",
            lambda: f"Root=1-{s(HEX, 8)}-{s(HEX, 24)}",
            [
                "X-Amzn-Trace-Id: {v}",
                "ALB trace for the slow login: {v}",
                "x-amzn-trace-id {v} (look it up in X-Ray)",
            ],
        ),
        (
            "traceparent_header",
            lambda: f"00-{s(HEX, 32)}-{s(HEX, 16)}-01",
            [
                "traceparent: {v}",
                "otel trace for the crash: traceparent={v}",
                "the web client sends traceparent {v} so the span links up",
            ],
        ),
        (
            "etag_hash",
            lambda: 'W/"' + s(HEX, 40) + '"',
            [
                "etag: {v} — the CDN keeps serving the stale bundle",
                "If-None-Match {v} returns 304 even after deploy",
                "response etag {v} on /config.json",
            ],
        ),
        (
            "har_redacted_authorization",
            lambda: "Bearer [REDACTED]",
            [
                '{"name": "Authorization", "value": "{v}"} — HAR sanitized with har-sanitizer before attaching',
                "attached HAR to JIRA after scrubbing: Authorization: {v}",
                "devtools export, headers cleaned: authorization {v}, cookie [REDACTED]",
            ],
        ),
        (
            "ga_cookie",
            lambda: f"GA1.1.{r.randint(100000000, 999999999)}.{r.randint(1700000000, 1790000000)}",
            [
                "Cookie: _ga={v}; _gid=GA1.1.88120012.1764970000",
                "the analytics cookie _ga={v} is the only cookie set before consent — bug",
                "Cookie-Dump (nur Analytics): _ga={v}, kein Sitzungscookie",
                "_ga {v} (client id, not auth)",
            ],
        ),
        (
            "localstorage_non_secret",
            uuid,
            [
                'localStorage dump: {"ajs_anonymous_id":"\\"{v}\\"","theme":"dark","onboardingDone":"true"}',
                "Local Storage > deviceId = {v}, lastSeenVersion = 5.2.0",
                "> localStorage.getItem('installationId')\n'{v}'",
            ],
        ),
        (
            "stripe_publishable_key",
            example_pk,
            [
                "initStripe({ publishableKey: '{v}' }) in the RN checkout",
                "STRIPE_PUBLISHABLE_KEY={v} — publishable, fine in the client",
                "Stripe pk for the desktop app payment sheet: {v}",
            ],
        ),
        (
            "mapbox_public_token",
            lambda: "pk.eyJ1Ijoi" + s(B64U, 40) + "." + s(B64U, 22),
            [
                "MapboxGL.setAccessToken('{v}') — public token, URL restricted",
                "mapbox public token (pk.) for the map screen: {v}",
                "MBXAccessToken in Info.plist = {v}",
            ],
        ),
        (
            "algolia_search_only_key",
            lambda: s(HEX, 32),
            [
                "algoliasearch('LX9QWE82KD', '{v}') — search-only key, fine in the app",
                "ALGOLIA_SEARCH_KEY={v} (search-only ACL; admin key lives in the backend vault)",
                "docs search widget uses search key {v}",
            ],
        ),
        (
            "recaptcha_site_key",
            lambda: "6L" + s(B64U, 38),
            [
                "reCAPTCHA site key {v} (the secret key is server-side only)",
                'data-sitekey="{v}" on the signup form',
                "RECAPTCHA_SITE_KEY={v}",
            ],
        ),
        (
            "eas_project_id",
            uuid,
            [
                'app.json -> "extra": {"eas": {"projectId": "{v}"}}',
                "EAS project id for the QA build profile: {v}",
                "expo updates url https://u.expo.dev/{v}",
            ],
        ),
        (
            "asc_key_ids_only",
            lambda: s("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10),
            [
                "App Store Connect API: key id {v}, issuer id in 1Password; the .p8 is not in the repo",
                "APP_STORE_CONNECT_API_KEY_KEY_ID={v}",
                "Apple Team ID for signing: {v}",
            ],
        ),
        (
            "keystore_fingerprint",
            lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(32)),
            [
                "upload key SHA-256 fingerprint (for assetlinks.json): {v}",
                "keytool -list shows SHA256: {v}",
                "register this cert fingerprint in Firebase for Google sign-in: {v}",
            ],
        ),
        (
            "google_oauth_client_id",
            lambda: (
                f"{r.randint(100000000000, 999999999999)}-{s(LOW, 32)}.apps.googleusercontent.com"
            ),
            [
                "GoogleSignin.configure({ webClientId: '{v}' })",
                "iOS client id {v} (reversed in URL schemes)",
                "GOOGLE_CLIENT_ID={v}",
            ],
        ),
        (
            "git_commit_sha",
            lambda: s(HEX, 40),
            [
                "regression came in with {v} (bump react-native 0.76)",
                "QA build 5.2.0 (812) was cut from commit {v}",
                "git bisect says first bad commit is {v}",
            ],
        ),
        (
            "npm_integrity_hash",
            lambda: "sha512-" + s(B64, 86) + "==",
            [
                '"integrity": "{v}" in package-lock for electron 33',
                "lockfile mismatch: expected {v}",
                "yarn.lock integrity {v}",
            ],
        ),
        (
            "env_reference_token",
            lambda: "${env.GH_TOKEN}",
            [
                'electron-builder.yml publish: provider github, token: "{v}" — pulled from CI env',
                "we never inline the token; the config says {v}",
                "publish.token = {v} (set in GitHub Actions secrets)",
            ],
        ),
        (
            "postman_variable_placeholder",
            lambda: "{{api_key}}",
            [
                '"header": [{"key": "x-api-key", "value": "{v}"}] — filled from the env at runtime',
                "collection uses Authorization: Bearer {{access_token}} and x-api-key {v}",
                "Postman: set {v} in your local env, the exported collection has only the variable",
            ],
        ),
        (
            "curl_shell_variable",
            lambda: "$STAGING_TOKEN",
            [
                'curl -H "Authorization: Bearer {v}" https://api.staging.example-app.io/v1/me',
                'export the token from 1Password first, then: curl -H "X-Api-Key: {v}" $API/health',
                "the smoke script reads {v} from the environment; never paste the literal",
            ],
        ),
        (
            "httpie_angle_placeholder",
            lambda: "<YOUR_TOKEN>",
            [
                "http --auth-type bearer --auth {v} GET api.example-app.io/v1/me",
                "docs snippet: http POST :8000/api/login username=demo password=<YOUR_PASSWORD> -A bearer -a {v}",
                "replace {v} with the token from the dev portal",
            ],
        ),
        (
            "revoked_token_stated",
            lambda: "ghp_" + s(B62, 36),
            [
                "INCIDENT closed: {v} leaked in a screenshot, revoked 2026-11-30 by Marco; GitHub now returns 401 Bad credentials for it",
                "old token {v} was deleted from the account yesterday (confirmed revoked), replaced via CI secret",
            ],
        ),
        (
            "vault_reference",
            lambda: "op://QA/staging-admin/password",
            [
                "staging admin password lives at {v} — use `op read`",
                "app review account creds: see {v} (never paste it in Jira)",
                "fastlane reads MATCH_PASSWORD from {v} via op run",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "QA found the signup form accepts 6-char passwords; policy says min 12 with one symbol",
                "test case TC-188: password reset email expires after 30 min, second click shows 'link expired'",
                "password field must mask input and disable autocorrect on Android (RN secureTextEntry)",
            ],
        ),
        (
            "token_other_sense",
            lambda: "color.brand.primary",
            [
                "design tokens: {v} = #5B3DF5, exported to RN via style-dictionary",
                "style-dictionary build warns: token '{v}' referenced but not defined",
                "theme token {v} missing in dark mode",
            ],
        ),
        (
            "key_other_sense",
            lambda: "checkout.button.pay",
            [
                "i18n key {v} is missing in de.json",
                "React warning: each child in a list should have a unique key prop (OrderList)",
                "AsyncStorage key @{v} stores only the last tab index",
            ],
        ),
        (
            "jwt_header_only",
            lambda: b64u({"alg": "RS256", "kid": s(HEX, 16), "typ": "JWT"}),
            [
                "decoded JWT header from the failing login: {v} -> alg RS256, kid rotated",
                "header segment only (signature stripped): {v}",
                "kid mismatch — token header {v} vs JWKS",
            ],
        ),
        (
            "jwks_public_key",
            lambda: s(B64U, 86),
            [
                '{"kty":"RSA","use":"sig","e":"AQAB","n":"{v}"} from /.well-known/jwks.json',
                "JWKS public modulus n={v}",
                "public signing key published at the auth server: n {v}",
            ],
        ),
        (
            "pem_certificate",
            lambda: pem("CERTIFICATE", 4),
            [
                "mitmproxy CA cert to install on the emulator (public part):\n{v}",
                "pinning: the leaf cert we pin in network_security_config:\n{v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
            [
                "add this to the build agent authorized_keys: {v} qa@laptop",
                "device lab pubkey: {v}",
                "public key for the deploy user {v} ci@runner",
            ],
        ),
        (
            "device_advertising_id",
            lambda: uuid().upper(),
            [
                "test device IDFA {v} added to the ad network test devices",
                "GAID of the Pixel 8 QA phone: {v}",
                "identifierForVendor {v} shows in the crash report",
            ],
        ),
        (
            "sentry_event_id",
            lambda: s(HEX, 32),
            [
                "Sentry event {v} — NullPointerException in CartViewModel",
                "see sentry issue, event_id={v}",
                "crash from TestFlight build 812: event id {v}",
            ],
        ),
        (
            "apk_sha256",
            lambda: s(HEX, 64),
            [
                "sha256sum app-release.apk -> {v}",
                "uploaded build hash {v} matches the one Play shows",
                "Electron Setup 5.2.0.exe sha256 {v} (latest.yml)",
            ],
        ),
        (
            "base64_png",
            lambda: "iVBORw0KGgoAAAANSUhEUgAA" + s(B64, 60),
            [
                "screenshot from the Detox failure (data URI): data:image/png;base64,{v}",
                "the splash icon is inlined as base64 {v}",
            ],
        ),
        (
            "stripe_test_card",
            lambda: "4242 4242 4242 4242",
            [
                "Checkout happy path: card {v}, any future date, any CVC (Stripe test card)",
                "use {v} for success and 4000 0000 0000 9995 for insufficient funds",
                "QA note: payment sheet accepts {v} in test mode only",
            ],
        ),
        (
            "twilio_magic_number",
            lambda: "+15005550006",
            [
                "Twilio test credentials: send from {v} (magic number, valid)",
                "SMS OTP tests: magic To number {v} never delivers",
            ],
        ),
        (
            "mitm_ca_fingerprint",
            lambda: ":".join(s("0123456789ABCDEF", 2) for _ in range(20)),
            [
                "mitmproxy-ca-cert SHA1 fingerprint {v} — verify before trusting on the device",
                "Charles root cert fingerprint {v}",
            ],
        ),
        (
            "bcrypt_fixture_hash",
            lambda: "$2b$12$" + s(B62 + "./", 53),
            [
                "fixtures/users.yml password_digest: {v}",
                "seed row: ('qa1@example.test', '{v}')",
                "stored hash for the demo user is {v}",
            ],
        ),
        (
            "pkce_code_challenge",
            lambda: s(B64U, 43),
            [
                "authorize URL ...&code_challenge={v}&code_challenge_method=S256",
                "PKCE challenge sent by the app: {v}",
                "code_challenge {v} (S256 hash, public)",
            ],
        ),
        (
            "env_example_placeholder",
            lambda: "changeme",
            [
                ".env.example\nSTAGING_PASSWORD={v}\nSENTRY_AUTH_TOKEN=",
                "ADMIN_PASSWORD={v}  # example only, override in .env.local",
                "template config: db password '{v}' — real one comes from secrets manager",
            ],
        ),
        (
            "review_notes_no_values",
            lambda: "",
            [
                "App Review rejected 5.2 (2.1): reviewer couldn't log in. Re-entered demo creds in App Review Information, not in notes",
                "Play app access: credentials are in the Console form; do not put them in release notes",
                "reminder: rotate the review account password after approval and update the Console field",
            ],
        ),
        (
            "datadog_rum_client_token",
            lambda: "pub" + s(HEX, 32),
            [
                "DdSdkReactNative config clientToken: '{v}' (RUM client token, public)",
                "datadogRum.init({ clientToken: '{v}', site: 'datadoghq.eu' })",
                "DD client token for the electron renderer {v}",
            ],
        ),
        (
            "launchdarkly_client_id",
            lambda: s(HEX, 24),
            [
                "LaunchDarkly client-side ID {v} (JS SDK, public)",
                "ldclient init with clientSideID '{v}'",
                "feature flags env 'qa' client id {v}",
            ],
        ),
        (
            "revenuecat_public_key",
            lambda: "appl_" + s(B62, 27),
            [
                "Purchases.configure({ apiKey: '{v}' }) — RevenueCat public SDK key",
                "REVENUECAT_IOS_KEY={v} (public app-specific key)",
                "revenuecat public key for sandbox testing {v}",
            ],
        ),
        (
            "onesignal_app_id",
            uuid,
            [
                "OneSignal.initialize('{v}') — app id, public",
                "ONESIGNAL_APP_ID={v}",
                "push: OneSignal app id for staging {v}",
            ],
        ),
        (
            "supabase_anon_key",
            lambda: jwt(
                {
                    "iss": "supabase",
                    "ref": s("abcdefghijklmnopqrst", 20),
                    "role": "anon",
                    "iat": 1700000000,
                    "exp": 2015576000,
                }
            ),
            [
                "createClient(url, '{v}') — anon key, RLS protects the tables",
                "SUPABASE_ANON_KEY={v} (role anon, meant for the client)",
                "the RN app ships the anon key {v}",
            ],
        ),
        (
            "sri_hash",
            lambda: "sha384-" + s(B64, 64),
            [
                '<script src="/vendor.js" integrity="{v}" crossorigin>',
                "SRI check failed: computed {v}",
            ],
        ),
        (
            "sourcemap_debug_id",
            uuid,
            [
                "//# debugId={v}",
                "sentry-cli sourcemaps inject -> debug id {v}",
                "bundle debugId {v} has no matching sourcemap",
            ],
        ),
        (
            "jwt_io_example",
            lambda: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
            ),
            [
                "parser unit test uses the jwt.io sample token {v}",
                "decode test: {v} (John Doe, the jwt.io default)",
            ],
        ),
        (
            "aws_docs_example_key",
            lambda: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            [
                "localstack config copied from AWS docs: AKIAIOSFODNN7EXAMPLE / {v}",
                "moto tests set AWS_SECRET_ACCESS_KEY={v} (the docs example)",
            ],
        ),
        (
            "stripe_test_token_name",
            lambda: "tok_visa",
            [
                "backend tests charge with source '{v}' (Stripe's fixed test token)",
                "use {v} or tok_chargeDeclined in the contract tests",
            ],
        ),
        (
            "crashlytics_issue_id",
            lambda: s(HEX, 32),
            [
                "Crashlytics issue {v} spiked after 5.2.0 (ANR on cold start)",
                "firebase crashlytics: issueId={v}, 312 users",
            ],
        ),
        (
            "webpack_chunk_hash",
            lambda: "main." + s(HEX, 20) + ".js",
            [
                "electron renderer loads {v} but the old one is cached",
                "chunk load error for {v} after hotfix",
            ],
        ),
        (
            "asar_integrity_hash",
            lambda: s(HEX, 64),
            [
                "ElectronAsarIntegrity app.asar hash {v} in Info.plist",
                "asar integrity check failed, expected header hash {v}",
            ],
        ),
        (
            "har_cookie_stripped",
            lambda: "",
            [
                '"cookies": [], "headersSize": -1, "bodySize": 0  — Chrome strips cookies from HAR exports by default now',
                "exported HAR without sensitive data (devtools setting), so no auth headers in it",
            ],
        ),
    ]

    rows = []
    for label, table in (("secret", secret), ("benign", benign)):
        for kind, gen, templates in table:
            for tpl in templates:
                v = gen() if "{v}" in tpl else ""
                text = (
                    tpl.replace("{ak}", s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16))
                    .replace("{sid}", s(HEX, 32))
                    .replace("{v}", v)
                )
                assert v in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    return rows


def main():
    rows = corpus()
    lines = "".join(json.dumps(row) + "\n" for row in rows)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.write(lines)
    else:
        sys.stdout.write(lines)


if __name__ == "__main__":
    main()

# ruff: noqa: E501
"""Blind secret-detector corpus 51: a freelance web consultant's shared agent memory.

Brief: a freelance developer and consultant who works for a dozen small clients at once
(a dentist's practice, a restaurant group, a charity, an architect, a real-estate agent,
a local shop...) and keeps one agent memory for all of them: client hand-overs, hosting and
registrar logins, email and DNS setups, website builders and plugins, booking and POS systems,
invoicing tools, the clients' own passwords sent over chat, and notes about where things are kept.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_51.py [out.jsonl]   (JSONL to the path, or stdout without one)

Kinds, secret: cpanel_password, wp_admin_password, registrar_password, namecheap_api_key,
cloudflare_api_token, cloudflare_global_key, smtp_password, google_app_password,
mailchimp_api_key, sendgrid_api_key, stripe_secret_key, stripe_restricted_key,
stripe_webhook_secret, square_access_token, shopify_admin_token, shopify_shared_secret,
paypal_client_secret, twilio_auth_token, aws_secret_key, github_pat, github_fine_grained_pat,
gitlab_pat, slack_bot_token, slack_webhook_url, discord_webhook_url, ftp_password,
openssh_private_key, mysql_url_password, wp_config_db_password, wp_auth_salt,
wp_application_password, vps_root_password, office_wifi_password, pos_manager_pin,
booking_login_password, invoiceninja_token, google_oauth_client_secret,
gcp_service_account_key, mailgun_api_key, postmark_server_token, facebook_page_token,
openai_api_key, hubspot_private_token, dropbox_token, admin_session_cookie, totp_seed,
backup_codes, basic_auth_url, domain_epp_code, netlify_token, digitalocean_token,
hetzner_token, airtable_pat, notion_secret, telegram_bot_token, brevo_api_key, npm_token,
laravel_app_key, django_secret_key, rsa_private_key, chat_shared_password, imap_password,
redis_url_password, azure_storage_conn, twilio_api_secret, atlassian_api_token,
mapbox_secret_token.

Kinds, benign: stripe_publishable_key, stripe_placeholder_key, stripe_object_ids,
ga_measurement_id, facebook_pixel_id, recaptcha_site_key, cloudflare_zone_id,
cloudflare_account_id, git_commit_sha, backup_sha256, plugin_md5, ssh_public_key,
ssh_host_fingerprint, dkim_public_record, spf_record, dmarc_record, google_site_verification,
facebook_domain_verification, vault_reference, bitwarden_item_ref, redacted_password,
env_var_reference, doc_placeholder, revoked_token, booking_uuid, square_app_id,
paypal_client_id, mailchimp_audience_id, sendgrid_template_id, twilio_account_sid_alone,
password_policy_talk, password_reset_procedure, physical_key_talk, db_primary_key_talk,
design_tokens, secret_other_sense, iban_on_invoice, vat_number, parcel_tracking,
webhook_endpoint_url, npm_integrity, sri_hash, base64_image, supabase_anon_key,
firebase_web_api_key, mapbox_public_token, algolia_search_key, sentry_dsn, analytics_site_id,
docker_digest, nameserver_list, acm_validation_cname, tls_certificate, pgp_public_key,
age_public_key, donation_wallet_address, wp_config_default_salts, env_example_empty,
token_expired_log, oauth_authorize_url, stripe_test_card, stripe_test_publishable,
gtm_container_id, s3_object_key, idempotency_key, password_field_names, rotation_reminder,
invoice_uuid.
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys

SEED = 5151

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
HEX = "0123456789abcdef"
ALNUM = LOW + UP + DIG
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
B32 = UP + "234567"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def r(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def uuid() -> str:
        return f"{r(HEX, 8)}-{r(HEX, 4)}-4{r(HEX, 3)}-{rng.choice('89ab')}{r(HEX, 3)}-{r(HEX, 12)}"

    def pw() -> str:
        words = ["Molar", "Basil", "Harbor", "Gable", "Tulip", "Crown", "Fennel", "Atrium"]
        style = rng.randrange(3)
        if style == 0:
            return rng.choice(words) + r(DIG, 4) + rng.choice("!?#$%&*")
        if style == 1:
            return r(ALNUM + "!@#%^*", rng.randint(14, 20))
        return f"{rng.choice(words).lower()}-{rng.choice(words).lower()}-{r(DIG, 2)}{r(UP, 1)}"

    def b64(n: int) -> str:
        return base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()

    def pem(label: str, nbytes: int) -> str:
        body = b64(nbytes)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"

    def jwt(payload: dict) -> str:
        def enc(d: dict) -> str:
            return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")

        return enc({"alg": "HS256", "typ": "JWT"}) + "." + enc(payload) + "." + r(URLSAFE, 43)

    secret: list[tuple] = [
        (
            "cpanel_password",
            pw,
            [
                "Dentist (Smile Studio) hosting: cPanel at smilestudio.co.uk:2083, user smilest1, pass {v}",
                "cpanel login for the Osteria group -> user osteriag / {v}\nhost is the old Krystal box",
                "Hand-over from previous dev: WHM/cPanel password is {v} (he never changed it)",
            ],
        ),
        (
            "wp_admin_password",
            pw,
            [
                "WP admin for greenleafcharity.org: wpadmin_gl / {v}",
                "Architect site (Marlow Studio) wp-login: username 'hannah', password: {v}",
                "Reset the WordPress admin for the bakery, new password {v} - tell Priya on Monday",
            ],
        ),
        (
            "registrar_password",
            pw,
            [
                "123-reg account for the estate agent (acct 4471903): login jim@harrowhomes.co.uk pw {v}",
                "Namecheap login for the restaurant domains - osteria-admin / {v}",
                "GoDaddy (charity's domain, renews March): email treasurer@greenleaf.org, password={v}",
            ],
        ),
        (
            "namecheap_api_key",
            lambda: r(HEX, 32),
            [
                "Namecheap API enabled for my user, whitelisted 81.2.69.160. ApiKey={v}",
                "namecheap api key (dns automation script): {v}",
                "For the certbot DNS hook: NAMECHEAP_API_KEY={v} NAMECHEAP_USER=fdev",
            ],
        ),
        (
            "cloudflare_api_token",
            lambda: r(URLSAFE, 40),
            [
                "CF token with Zone:DNS:Edit for all client zones: {v}",
                "export CLOUDFLARE_API_TOKEN={v}  # used by the ddns cron on the shop's NAS",
                "Cloudflare scoped token (restaurant zones only) -> {v}",
            ],
        ),
        (
            "cloudflare_global_key",
            lambda: r(HEX, 37),
            [
                "Charity's Cloudflare Global API Key (ugh, they gave me this not a token): {v}",
                "X-Auth-Email: it@greenleaf.org\nX-Auth-Key: {v}",
                "cloudflare global key for marlow studio acct = {v}",
            ],
        ),
        (
            "smtp_password",
            pw,
            [
                "SMTP for contact form (WP Mail SMTP): smtp.office365.com:587 user noreply@smilestudio.co.uk pass {v}",
                "Restaurant booking emails go via mail.osteria.uk, SMTP_PASS={v}",
                "Fluent SMTP on the charity site -> username bookings@greenleaf.org / password '{v}'",
            ],
        ),
        (
            "google_app_password",
            lambda: " ".join(r(LOW, 4) for _ in range(4)),
            [
                "Google Workspace app password for the shop's Thunderbird: {v}",
                "Generated app pw for reception@smilestudio (printer scan-to-email): {v}",
                "app password (gmail, for the estate agent's CRM sync) = {v}",
            ],
        ),
        (
            "mailchimp_api_key",
            lambda: r(HEX, 32) + "-us" + str(rng.randint(2, 21)),
            [
                "Mailchimp API key for the charity newsletter integration: {v}",
                "MC4WP plugin key on the bakery site -> {v}",
                "mailchimp: key {v} (audience 'Supporters 2026')",
            ],
        ),
        (
            "sendgrid_api_key",
            lambda: "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43),
            [
                "SendGrid key for the restaurant's reservation confirmations: {v}",
                "SENDGRID_API_KEY={v}",
                "Dentist reminders use sendgrid, full-access key {v} - should scope it down",
            ],
        ),
        (
            "stripe_secret_key",
            lambda: "sk_live_" + r(ALNUM, 99),
            [
                "Charity donations Stripe (live): secret key {v}",
                "STRIPE_SECRET={v}\nSTRIPE_PUBLISHABLE in the theme options",
                "Bakery WooCommerce Stripe gateway, live secret: {v}",
            ],
        ),
        (
            "stripe_restricted_key",
            lambda: "rk_live_" + r(ALNUM, 99),
            [
                "Restricted key for the Xero-Stripe reconciliation (read charges only): {v}",
                "stripe rk for the reporting sheet -> {v}",
                "Gave the accountant's tool this restricted key: {v}",
            ],
        ),
        (
            "stripe_webhook_secret",
            lambda: "whsec_" + r(ALNUM, 32),
            [
                "Webhook signing secret for /wp-json/give/stripe endpoint: {v}",
                "STRIPE_WEBHOOK_SECRET={v}",
                "stripe endpoint we_1Px... signing secret is {v}",
            ],
        ),
        (
            "square_access_token",
            lambda: "EAAA" + r(URLSAFE, 60),
            [
                "Square production access token for the shop's inventory sync: {v}",
                "SQUARE_ACCESS_TOKEN={v} (location: High St)",
                "Osteria POS -> Square personal access token {v}",
            ],
        ),
        (
            "shopify_admin_token",
            lambda: "shpat_" + r(HEX, 32),
            [
                "Shopify custom app 'stock-sync' Admin API access token: {v}",
                "shop: candle-corner.myshopify.com token={v}",
                "X-Shopify-Access-Token: {v}",
            ],
        ),
        (
            "shopify_shared_secret",
            lambda: "shpss_" + r(HEX, 32),
            [
                "Shopify app API secret key (for HMAC verify): {v}",
                "candle-corner app client secret -> {v}",
                "SHOPIFY_API_SECRET={v}",
            ],
        ),
        (
            "paypal_client_secret",
            lambda: "E" + r(URLSAFE, 79),
            [
                "PayPal REST live app 'Greenleaf Donate' secret: {v}",
                "PAYPAL_CLIENT_SECRET={v}",
                "paypal live secret for the bakery checkout: {v}",
            ],
        ),
        (
            "twilio_auth_token",
            lambda: r(HEX, 32),
            [
                "Twilio for dentist SMS reminders: SID AC{sid}, auth token {v}",
                "TWILIO_AUTH_TOKEN={v}",
                "twilio (restaurant waitlist texts) auth token: {v}",
            ],
        ),
        (
            "aws_secret_key",
            lambda: r(ALNUM + "+/", 40),
            [
                "S3 backups for the architect's drawings: AWS_ACCESS_KEY_ID=AKIA{akid} AWS_SECRET_ACCESS_KEY={v}",
                "aws_secret_access_key = {v}",
                "IAM user backup-marlow, secret access key {v}",
            ],
        ),
        (
            "github_pat",
            lambda: "ghp_" + r(ALNUM, 36),
            [
                "GitHub classic token for deploying client themes: {v}",
                "git clone https://{v}@github.com/fdev/osteria-theme.git",
                "GH_TOKEN={v}",
            ],
        ),
        (
            "github_fine_grained_pat",
            lambda: "github_pat_" + r(ALNUM, 22) + "_" + r(ALNUM, 59),
            [
                "Fine-grained PAT (repo: smile-studio-site, contents rw): {v}",
                "token for the charity repo actions: {v}",
                "github fine grained -> {v}",
            ],
        ),
        (
            "gitlab_pat",
            lambda: "glpat-" + r(URLSAFE, 20),
            [
                "The agency's GitLab (old architect project) token: {v}",
                "GITLAB_TOKEN={v}",
                "gitlab personal access token, api scope: {v}",
            ],
        ),
        (
            "slack_bot_token",
            lambda: f"xoxb-{r(DIG, 12)}-{r(DIG, 13)}-{r(ALNUM, 24)}",
            [
                "Restaurant group Slack bot (order alerts): {v}",
                "SLACK_BOT_TOKEN={v}",
                "bot token for #bookings notifier: {v}",
            ],
        ),
        (
            "slack_webhook_url",
            lambda: (
                f"https://hooks.slack.com/services/T{r(UP + DIG, 10)}/B{r(UP + DIG, 10)}/{r(ALNUM, 24)}"
            ),
            [
                "Form submissions -> Slack incoming webhook {v}",
                "Uptime alerts for all clients post to {v}",
                "slack webhook (estate agent's #leads): {v}",
            ],
        ),
        (
            "discord_webhook_url",
            lambda: f"https://discord.com/api/webhooks/{r(DIG, 19)}/{r(URLSAFE, 68)}",
            [
                "Charity volunteers' Discord webhook for new signups: {v}",
                "DISCORD_WEBHOOK={v}",
                "discord hook for my own deploy pings: {v}",
            ],
        ),
        (
            "ftp_password",
            pw,
            [
                "FTP (old Fasthosts package, estate agent): ftp.harrowhomes.co.uk user harrow_ftp pass {v}",
                "FileZilla site 'marlow-live': SFTP, user marlow, password {v}",
                "ftp creds for the bakery's legacy site -> bakeryftp:{v}",
            ],
        ),
        (
            "openssh_private_key",
            lambda: pem("OPENSSH PRIVATE KEY", 300),
            [
                "Deploy key for the Osteria VPS (keep!):\n{v}",
                "id_ed25519 for client-box, pasted here while migrating laptops\n{v}",
                "{v}\n^ private key for the charity's Hetzner box",
            ],
        ),
        (
            "mysql_url_password",
            pw,
            [
                "DATABASE_URL=mysql://smile_wp:{v}@127.0.0.1:3306/smile_wp",
                "Remote DB for the booking plugin: mysql -h db.osteria.uk -u bookings -p'{v}'",
                "mariadb creds (charity): user gl_wp / {v} / db gl_prod",
            ],
        ),
        (
            "wp_config_db_password",
            pw,
            [
                "define( 'DB_PASSWORD', '{v}' );  // from the bakery wp-config",
                "wp-config on marlowstudio: DB_USER marlow_wp, DB_PASSWORD {v}",
                "Copied from the host's wp-config.php -> define('DB_PASSWORD','{v}');",
            ],
        ),
        (
            "wp_auth_salt",
            lambda: r(ALNUM + "!@#$%^&*()-_[]{}<>~+=,.;:/?|", 64),
            [
                "define( 'AUTH_KEY', '{v}' );",
                "Live salts for smilestudio (don't regenerate mid-migration): SECURE_AUTH_KEY = {v}",
                "LOGGED_IN_SALT from prod wp-config: {v}",
            ],
        ),
        (
            "wp_application_password",
            lambda: " ".join(r(ALNUM, 4) for _ in range(6)),
            [
                "WP application password for the Zapier integration (user api-bot): {v}",
                "REST API app password on greenleaf: {v}",
                "curl -u 'admin:{v}' https://marlowstudio.com/wp-json/wp/v2/posts",
            ],
        ),
        (
            "vps_root_password",
            pw,
            [
                "Hetzner CX22 for Osteria, root password (before I disabled pw login... did I?): {v}",
                "ssh root@159.69.12.40  pw {v}",
                "DigitalOcean droplet console root password: {v}",
            ],
        ),
        (
            "office_wifi_password",
            pw,
            [
                "Smile Studio staff WiFi 'SmileStaff' WPA2 key: {v}",
                "Architect office wifi: SSID MarlowNet, password {v}",
                "Shop back-office wifi (not the guest one) -> {v}",
            ],
        ),
        (
            "pos_manager_pin",
            lambda: r(DIG, 6),
            [
                "Lightspeed POS manager override PIN at the Osteria: {v}",
                "Till admin code for the shop (refunds, voids): {v}",
                "Square manager passcode for the bakery: {v}",
            ],
        ),
        (
            "booking_login_password",
            pw,
            [
                "Dentally login for the practice manager: sarah@smilestudio.co.uk / {v}",
                "ResDiary admin for Osteria: osteria.admin, password {v}",
                "Calendly login for the architect (he shared it on WhatsApp): {v}",
            ],
        ),
        (
            "invoiceninja_token",
            lambda: r(ALNUM, 64),
            [
                "Invoice Ninja API token for my own billing: {v}",
                "X-API-TOKEN: {v}",
                "invoiceninja self-hosted, token for the cron that emails reminders: {v}",
            ],
        ),
        (
            "google_oauth_client_secret",
            lambda: "GOCSPX-" + r(URLSAFE, 28),
            [
                "Google OAuth client for the Site Kit setup, client secret {v}",
                "GOOGLE_CLIENT_SECRET={v}",
                "oauth client (Gmail API for estate agent lead parser) secret: {v}",
            ],
        ),
        (
            "gcp_service_account_key",
            lambda: pem("PRIVATE KEY", 600).replace("\n", "\\n"),
            [
                '"private_key": "{v}",',
                'service account backup@greenleaf-site.iam key json private_key: "{v}"',
                "GA4 reporting SA key, private_key field = {v}",
            ],
        ),
        (
            "mailgun_api_key",
            lambda: "key-" + r(HEX, 32),
            [
                "Mailgun private API key (EU region) for the shop: {v}",
                "MAILGUN_API_KEY={v}",
                "mailgun key: {v}",
            ],
        ),
        (
            "postmark_server_token",
            uuid,
            [
                "Postmark server API token for Smile Studio transactional: {v}",
                "X-Postmark-Server-Token: {v}",
                "POSTMARK_API_TOKEN={v}",
            ],
        ),
        (
            "facebook_page_token",
            lambda: "EAAG" + r(ALNUM, 180),
            [
                "Long-lived page access token for Osteria's FB page (menu auto-post): {v}",
                "FB_PAGE_TOKEN={v}",
                "facebook token for the instagram feed plugin: {v}",
            ],
        ),
        (
            "openai_api_key",
            lambda: "sk-proj-" + r(URLSAFE, 156),
            [
                "OpenAI key for the estate agent's listing-description generator: {v}",
                "OPENAI_API_KEY={v}",
                "openai (my account, billed to the charity project) {v}",
            ],
        ),
        (
            "hubspot_private_token",
            lambda: "pat-eu1-" + uuid(),
            [
                "HubSpot private app token (estate agent CRM): {v}",
                "HUBSPOT_ACCESS_TOKEN={v}",
                "hubspot private app 'forms-sync' -> {v}",
            ],
        ),
        (
            "dropbox_token",
            lambda: "sl." + r(URLSAFE, 136),
            [
                "Dropbox token for the architect's drawing sync: {v}",
                "DROPBOX_ACCESS_TOKEN={v}",
                "dropbox api token (expires in 4h, used for the migration run): {v}",
            ],
        ),
        (
            "admin_session_cookie",
            lambda: r(HEX, 32),
            [
                "Cookie: wordpress_logged_in_{h}=admin%7C1796000000%7C{v}",
                "Grabbed the PHPSESSID of the logged-in admin to debug the booking plugin: PHPSESSID={v}",
                "laravel_session={v} (shop admin, still logged in)",
            ],
        ),
        (
            "totp_seed",
            lambda: r(B32, 32),
            [
                "2FA secret for the shared Google admin (so I can generate codes): {v}",
                "otpauth://totp/Cloudflare:it@greenleaf.org?secret={v}&issuer=Cloudflare",
                "TOTP seed for the registrar account: {v}",
            ],
        ),
        (
            "backup_codes",
            lambda: " ".join(r(DIG, 8) for _ in range(5)),
            [
                "Google backup codes for reception@smilestudio: {v}",
                "2FA recovery codes (Namecheap, estate agent): {v}",
                "Backup codes for the charity's Microsoft 365 admin -> {v}",
            ],
        ),
        (
            "basic_auth_url",
            pw,
            [
                "Staging is behind basic auth: https://preview:{v}@staging.osteria.uk/",
                "curl https://marlow:{v}@dev.marlowstudio.com/wp-admin",
                "htaccess protected preview for the dentist: user client / pass {v}",
            ],
        ),
        (
            "domain_epp_code",
            lambda: r(ALNUM + "!#%&*", 16),
            [
                "EPP/auth code for greenleafcharity.org transfer: {v}",
                "Transfer code for harrowhomes.com (from old registrar): {v}",
                "auth-info code marlowstudio.com = {v}",
            ],
        ),
        (
            "netlify_token",
            lambda: "nfp_" + r(ALNUM, 36),
            [
                "Netlify personal access token for the bakery's static site deploys: {v}",
                "NETLIFY_AUTH_TOKEN={v}",
                "netlify PAT -> {v}",
            ],
        ),
        (
            "digitalocean_token",
            lambda: "dop_v1_" + r(HEX, 64),
            [
                "DigitalOcean API token (restaurant droplets, write): {v}",
                "DIGITALOCEAN_TOKEN={v}",
                "doctl auth init --access-token {v}",
            ],
        ),
        (
            "hetzner_token",
            lambda: r(ALNUM, 64),
            [
                "Hetzner Cloud API token, project 'clients': {v}",
                "HCLOUD_TOKEN={v}",
                "hcloud context create clients  (token {v})",
            ],
        ),
        (
            "airtable_pat",
            lambda: "pat" + r(ALNUM, 14) + "." + r(HEX, 64),
            [
                "Airtable PAT for the charity volunteer base: {v}",
                "AIRTABLE_API_KEY={v}",
                "airtable token used by the make.com scenario: {v}",
            ],
        ),
        (
            "notion_secret",
            lambda: "ntn_" + r(ALNUM, 46),
            [
                "Notion integration secret (client wiki sync): {v}",
                "NOTION_TOKEN={v}",
                "notion internal integration 'handover-bot' secret {v}",
            ],
        ),
        (
            "telegram_bot_token",
            lambda: f"{r(DIG, 10)}:AA{r(URLSAFE, 33)}",
            [
                "Telegram bot for the shop's low-stock alerts: {v}",
                "TELEGRAM_BOT_TOKEN={v}",
                "https://api.telegram.org/bot{v}/sendMessage",
            ],
        ),
        (
            "brevo_api_key",
            lambda: f"xkeysib-{r(HEX, 64)}-{r(ALNUM, 16)}",
            [
                "Brevo (Sendinblue) API key for the charity mailings: {v}",
                "BREVO_API_KEY={v}",
                "brevo key, full access: {v}",
            ],
        ),
        (
            "npm_token",
            lambda: "npm_" + r(ALNUM, 36),
            [
                "npm token for publishing my booking widget: {v}",
                "//registry.npmjs.org/:_authToken={v}",
                "NPM_TOKEN={v}",
            ],
        ),
        (
            "laravel_app_key",
            lambda: "base64:" + b64(32),
            [
                "APP_KEY={v}",
                "Shop's Laravel admin, prod APP_KEY (needed to decrypt the old sessions): {v}",
                "laravel key from the live .env -> {v}",
            ],
        ),
        (
            "django_secret_key",
            lambda: r(LOW + DIG + "!@#$%^&*(-_=+)", 50),
            [
                "SECRET_KEY = '{v}'",
                "Charity's Django volunteer portal prod SECRET_KEY: {v}",
                "DJANGO_SECRET_KEY={v}",
            ],
        ),
        (
            "rsa_private_key",
            lambda: pem("RSA PRIVATE KEY", 900),
            [
                "Old SSL private key for harrowhomes.co.uk (paid cert, expires 2027):\n{v}",
                "{v}",
                "Key for the Xero private app (legacy):\n{v}",
            ],
        ),
        (
            "chat_shared_password",
            pw,
            [
                "Priya (bakery) sent on WhatsApp: 'the Squarespace login is priya@bakehouse.co / {v}'",
                "From Tom's text: instagram password is {v}",
                "Maria (dentist PM) on Teams: 'email pw is {v} sorry for sending like this'",
            ],
        ),
        (
            "imap_password",
            pw,
            [
                "info@osteria.uk mailbox (IMAP imap.ionos.co.uk:993) password {v}",
                "Estate agent's shared inbox lettings@harrowhomes.co.uk: {v}",
                "charity office@ mailbox pass = {v}",
            ],
        ),
        (
            "redis_url_password",
            lambda: r(ALNUM, 32),
            [
                "REDIS_URL=redis://default:{v}@redis-12345.c1.eu-west-1.ec2.cloud.redislabs.com:12345",
                "Object cache for smilestudio: rediss://:{v}@cache.smilestudio.internal:6380/0",
                "redis requirepass on the osteria box: {v}",
            ],
        ),
        (
            "azure_storage_conn",
            lambda: b64(64),
            [
                "DefaultEndpointsProtocol=https;AccountName=marlowdrawings;AccountKey={v};EndpointSuffix=core.windows.net",
                "Azure storage key1 for the architect's archive: {v}",
                "AZURE_STORAGE_KEY={v}",
            ],
        ),
        (
            "twilio_api_secret",
            lambda: r(ALNUM, 32),
            [
                "Twilio API key SK{sk} secret {v}",
                "TWILIO_API_SECRET={v}",
                "twilio api key secret (voice for dentist): {v}",
            ],
        ),
        (
            "atlassian_api_token",
            lambda: "ATATT3xFfGF0" + r(URLSAFE, 180) + "=" + r(HEX.upper(), 8),
            [
                "Atlassian API token for the charity's Jira: {v}",
                "JIRA_API_TOKEN={v}",
                "confluence token (fdev@proton.me) {v}",
            ],
        ),
        (
            "mapbox_secret_token",
            lambda: "sk.eyJ1IjoiZmRldiIsImEiOiI" + r(URLSAFE, 20) + "In0." + r(URLSAFE, 22),
            [
                "Mapbox secret token (downloads scope) for the property map: {v}",
                "MAPBOX_SECRET_TOKEN={v}",
                "mapbox sk token -> {v}",
            ],
        ),
    ]

    benign: list[tuple] = [
        (
            "stripe_publishable_key",
            lambda: "pk_live_" + r(ALNUM, 99),
            [
                "Charity donation form publishable key (goes in the page JS): {v}",
                "STRIPE_PUBLISHABLE_KEY={v}",
                "Bakery Stripe pk (public, fine to commit): {v}",
            ],
        ),
        (
            "stripe_placeholder_key",
            lambda: "sk_live_" + "X" * 24,
            [
                "In the handover doc template I wrote STRIPE_SECRET={v} - client fills it in",
                "Example config for the Give plugin: secret key '{v}' (placeholder)",
                "README snippet: export STRIPE_KEY={v}  # replace with the real one from the vault",
            ],
        ),
        (
            "stripe_object_ids",
            lambda: "cus_" + r(ALNUM, 14),
            [
                "Refunded duplicate donation for customer {v} (charge ch_3P then re-sent receipt)",
                "Osteria gift card buyer is Stripe customer {v}",
                "Dispute opened on {v}, evidence due Friday",
            ],
        ),
        (
            "ga_measurement_id",
            lambda: "G-" + r(UP + DIG, 10),
            [
                "GA4 measurement id for smilestudio: {v}",
                "Analytics tag on the bakery site is {v} (via Site Kit)",
                "gtag('config', '{v}');",
            ],
        ),
        (
            "facebook_pixel_id",
            lambda: r(DIG, 16),
            [
                "Meta Pixel id for Osteria: {v}",
                "fbq('init', '{v}');",
                "estate agent's pixel = {v}",
            ],
        ),
        (
            "recaptcha_site_key",
            lambda: "6L" + r(URLSAFE, 38),
            [
                "reCAPTCHA v3 site key (public) on the contact form: {v}",
                'data-sitekey="{v}"',
                "Recaptcha site key for greenleaf: {v} - secret key is in 1Password",
            ],
        ),
        (
            "cloudflare_zone_id",
            lambda: r(HEX, 32),
            [
                "Cloudflare zone id for osteria.uk: {v}",
                'zone_id = "{v}"  # terraform, marlowstudio.com',
                "CF zone (greenleafcharity.org) {v}",
            ],
        ),
        (
            "cloudflare_account_id",
            lambda: r(HEX, 32),
            [
                "Cloudflare account id (my agency account): {v}",
                'account_id = "{v}" in wrangler.toml for the shop worker',
                "CF acct id {v} - needed for the Pages project",
            ],
        ),
        (
            "git_commit_sha",
            lambda: r(HEX, 40),
            [
                "Rolled the dentist theme back to {v} after the menu broke",
                "Last good deploy of osteria-theme: commit {v}",
                "git revert {v}  # the broken booking shortcode change",
            ],
        ),
        (
            "backup_sha256",
            lambda: r(HEX, 64),
            [
                "sha256 of greenleaf-2026-12-01.tar.gz: {v}",
                "Backup checksum (architect files, Nov): {v}",
                "{v}  marlow-db.sql.gz",
            ],
        ),
        (
            "plugin_md5",
            lambda: r(HEX, 32),
            [
                "md5 of the licensed Elementor Pro zip I uploaded: {v}",
                "Checksum of bookly-pro.zip from the client's email = {v}",
                "md5sum matches vendor's: {v}",
            ],
        ),
        (
            "ssh_public_key",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43),
            [
                "Added my public key to the Osteria VPS authorized_keys: {v} fdev@laptop",
                "Public key to give the host for SFTP: {v}",
                "authorized_keys line for the charity box -> {v} deploy",
            ],
        ),
        (
            "ssh_host_fingerprint",
            lambda: "SHA256:" + r(B64, 43),
            [
                "Host key fingerprint for 159.69.12.40 (verified with Hetzner console): {v}",
                "ED25519 key fingerprint is {v}.",
                "Expected fingerprint of the shop NAS: {v}",
            ],
        ),
        (
            "dkim_public_record",
            lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + r(B64, 100),
            [
                "DKIM TXT for google._domainkey.smilestudio.co.uk: v=DKIM1; k=rsa; p={v}",
                'Add this to DNS (selector s1): "k=rsa; p={v}"',
                "dkim public key from M365 for osteria.uk -> p={v}",
            ],
        ),
        (
            "spf_record",
            lambda: "v=spf1 include:_spf.google.com include:sendgrid.net ~all",
            [
                "SPF for the dentist: {v}",
                'TXT @ "{v}" (osteria.uk, fixed the double record)',
                "Charity SPF was failing; now {v}",
            ],
        ),
        (
            "dmarc_record",
            lambda: (
                "v=DMARC1; p=quarantine; rua=mailto:dmarc@"
                + rng.choice(["osteria.uk", "greenleaf.org", "harrowhomes.co.uk"])
            ),
            [
                "_dmarc TXT: {v}",
                "Moved DMARC to quarantine: {v}",
                "dmarc record set -> {v}; pct=100",
            ],
        ),
        (
            "google_site_verification",
            lambda: "google-site-verification=" + r(URLSAFE, 43),
            [
                "Search Console TXT for marlowstudio.com: {v}",
                "Add TXT record at root: {v}",
                "verification record (bakery) {v}",
            ],
        ),
        (
            "facebook_domain_verification",
            lambda: "facebook-domain-verification=" + r(LOW + DIG, 30),
            [
                "Meta business domain verification for Osteria: {v}",
                '<meta name="facebook-domain-verification" content="{v}" />',
                "TXT {v}",
            ],
        ),
        (
            "vault_reference",
            lambda: "op://Clients/Smile Studio cPanel/password",
            [
                "cPanel password for the dentist is NOT here - it's {v}",
                "deploy script reads the password from {v} via op read",
                "Reminder: all client logins live in 1Password, e.g. {v}",
            ],
        ),
        (
            "bitwarden_item_ref",
            uuid,
            [
                "Osteria Square login is in Bitwarden, item id {v} (collection Restaurants)",
                "bw get password {v}  # estate agent registrar",
                "Charity's M365 admin -> Bitwarden item {v}, shared with their treasurer",
            ],
        ),
        (
            "redacted_password",
            lambda: "*" * rng.randint(8, 14),
            [
                "Client pasted their WP password in the ticket; I redacted it to {v} and asked them to change it",
                "FTP: user harrow_ftp, password {v} (in the vault)",
                "SMTP_PASSWORD={v}   <- masked in the screenshot for the handover doc",
            ],
        ),
        (
            "env_var_reference",
            lambda: "${" + rng.choice(["SMTP_PASSWORD", "STRIPE_SECRET_KEY", "DB_PASSWORD"]) + "}",
            [
                "docker-compose for the shop: password: {v} (set in the host's env, not the file)",
                "wp-config reads getenv -> {v}",
                "GitHub Actions deploy uses {v} from repo secrets",
            ],
        ),
        (
            "doc_placeholder",
            lambda: rng.choice(["<your-api-key>", "YOUR_API_KEY_HERE", "REPLACE_ME"]),
            [
                "Mailchimp snippet from their docs: apikey={v}",
                "Template .env I give new clients has SENDGRID_API_KEY={v}",
                "Invoice Ninja docs example: X-API-TOKEN: {v}",
            ],
        ),
        (
            "revoked_token",
            lambda: "ghp_" + r(ALNUM, 36),
            [
                "Leaked token {v} was revoked on 2026-11-03 and the PAT deleted; new one in vault",
                "The old classic PAT ({v}) is deleted in GitHub settings, rotated, do not reuse",
                "Incident note: {v} got pushed to the bakery repo; revoked within 10 min, GitHub confirms deleted",
            ],
        ),
        (
            "booking_uuid",
            uuid,
            [
                "Double booking bug: reservations {v} and the 19:30 one for table 4",
                "Dentally appointment id {v} didn't sync to Google Calendar",
                "Bookly appointment {v} stuck in 'pending'",
            ],
        ),
        (
            "square_app_id",
            lambda: "sq0idp-" + r(URLSAFE, 22),
            [
                "Square application ID (public, used in Web Payments SDK): {v}",
                "applicationId: '{v}', locationId: 'L{loc}'",
                "Square app id for the bakery online store: {v}",
            ],
        ),
        (
            "paypal_client_id",
            lambda: "A" + r(URLSAFE, 79),
            [
                'PayPal JS SDK: <script src="https://www.paypal.com/sdk/js?client-id={v}&currency=GBP">',
                "PayPal client-id (public) for Greenleaf donate button: {v}",
                "paypal client id {v} - the secret is in Bitwarden",
            ],
        ),
        (
            "mailchimp_audience_id",
            lambda: r(HEX, 10),
            [
                "Mailchimp audience (list) id for the charity: {v}",
                "Bakery newsletter list_id={v}",
                "mc4wp form mapped to list {v}",
            ],
        ),
        (
            "sendgrid_template_id",
            lambda: "d-" + r(HEX, 32),
            [
                "SendGrid dynamic template for booking confirmations: {v}",
                "templateId: '{v}'",
                "reminder email template {v} (dentist)",
            ],
        ),
        (
            "twilio_account_sid_alone",
            lambda: "AC" + r(HEX, 32),
            [
                "Twilio account SID for the dentist (token in vault): {v}",
                "Messaging logs under account {v}",
                "twilio subaccount for Osteria = {v}",
            ],
        ),
        (
            "password_policy_talk",
            lambda: "",
            [
                "Agreed with the charity: all admin passwords 16+ chars, stored in Bitwarden, 2FA on everything",
                "Dentist practice manager wants staff to stop sharing the reception password. Set up individual logins next week.",
                "Note to self: never accept passwords over WhatsApp again, send the 1Password share link instead",
            ],
        ),
        (
            "password_reset_procedure",
            lambda: "",
            [
                "If the estate agent locks himself out of WP: use wp user reset-password 1 --skip-email on the server, then send him the reset link",
                "Registrar password reset for Osteria goes to marco@osteria.uk, he has to forward me the email",
                "Reset flow for the shop's Square: owner account only, I can't do it - ask Priya",
            ],
        ),
        (
            "physical_key_talk",
            lambda: "",
            [
                "Keys to the architect's server cupboard are with the receptionist, ask for the blue key",
                "Shop spare key is with the neighbour (no. 14); I don't need it for the router anymore",
                "Key handover for the dentist's comms room: signed out to me until Friday",
            ],
        ),
        (
            "db_primary_key_talk",
            lambda: "wp_" + r(LOW, 2) + "_bookings",
            [
                "Booking table {v} has no primary key, which is why the duplicates happen",
                "Added composite key (location_id, slot) to {v}",
                "Foreign key from {v}.customer_id was dropped by the plugin update",
            ],
        ),
        (
            "design_tokens",
            lambda: "#" + r(HEX, 6),
            [
                "Osteria design tokens: --color-primary: {v}; --radius: 6px",
                "Token 'brand.accent' = {v} (charity rebrand)",
                "Updated the theme.json color token for the architect to {v}",
            ],
        ),
        (
            "secret_other_sense",
            lambda: "",
            [
                "Osteria's 'secret menu' page should be hidden from the nav but indexable - Marco's idea",
                "The charity's Secret Santa signup form closes 12 Dec, then delete the Gravity Form entries",
                "The shop owner says the 'secret' to the sourdough post traffic is the Pinterest pins",
            ],
        ),
        (
            "iban_on_invoice",
            lambda: "GB" + r(DIG, 2) + "MONZ" + r(DIG, 14),
            [
                "My bank details on invoices: IBAN {v}",
                "Charity asked for payment details for the refund: {v}",
                "Invoice footer: pay to {v}, ref = invoice number",
            ],
        ),
        (
            "vat_number",
            lambda: "GB" + r(DIG, 9),
            [
                "Restaurant group VAT number for the invoices: {v}",
                "Add VAT reg {v} to the shop's WooCommerce tax settings",
                "Architect's VAT no. {v}",
            ],
        ),
        (
            "parcel_tracking",
            lambda: r(UP, 2) + r(DIG, 9) + "GB",
            [
                "Router for the dentist shipped, Royal Mail tracking {v}",
                "Replacement card reader for Osteria: {v}",
                "Returned the faulty POS printer, tracking {v}",
            ],
        ),
        (
            "webhook_endpoint_url",
            lambda: (
                "https://"
                + rng.choice(["greenleafcharity.org", "osteria.uk", "candle-corner.co.uk"])
                + "/wp-json/wc/v3/webhooks/"
                + r(DIG, 3)
            ),
            [
                "Webhook endpoint configured in Stripe: {v} (signing secret in vault)",
                "WooCommerce webhook delivery target {v}",
                "Order created -> {v}",
            ],
        ),
        (
            "npm_integrity",
            lambda: "sha512-" + b64(64),
            [
                '"integrity": "{v}"',
                "lockfile integrity for the booking widget build: {v}",
                "package-lock shows {v} for flatpickr",
            ],
        ),
        (
            "sri_hash",
            lambda: "sha384-" + b64(48),
            [
                '<script src="https://cdn.jsdelivr.net/npm/swiper@11/swiper-bundle.min.js" integrity="{v}" crossorigin="anonymous"></script>',
                "SRI for the charity's donation widget script: {v}",
                "integrity hash {v}",
            ],
        ),
        (
            "base64_image",
            lambda: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAA" + b64(60),
            [
                "Inline favicon for the dentist's email signature: {v}",
                "background-image: url({v});",
                "placeholder logo {v}",
            ],
        ),
        (
            "supabase_anon_key",
            lambda: jwt({"iss": "supabase", "ref": r(LOW, 20), "role": "anon", "iat": 1767225600}),
            [
                "Supabase anon (public) key for the volunteer signup page, RLS is on: {v}",
                "NEXT_PUBLIC_SUPABASE_ANON_KEY={v}",
                "anon key (safe in browser): {v}",
            ],
        ),
        (
            "firebase_web_api_key",
            lambda: "AIza" + r(URLSAFE, 35),
            [
                'Firebase web config for the shop\'s loyalty app: apiKey: "{v}", authDomain: "candle-corner.firebaseapp.com"',
                "firebaseConfig.apiKey = '{v}' (public web key, restricted to our domains)",
                "Firebase web app key {v} is in the bundle by design",
            ],
        ),
        (
            "mapbox_public_token",
            lambda: "pk.eyJ1IjoiZmRldiIsImEiOiI" + r(URLSAFE, 20) + "In0." + r(URLSAFE, 22),
            [
                "Mapbox public token for the property map (URL-restricted): {v}",
                "mapboxgl.accessToken = '{v}';",
                "mapbox pk for the estate agent map: {v}",
            ],
        ),
        (
            "algolia_search_key",
            lambda: r(HEX, 32),
            [
                "Algolia search-only API key for the shop (public, front end): {v}",
                "algoliasearch('ABC12DEF34', '{v}') // search-only",
                "InstantSearch uses search key {v}; admin key NOT stored here",
            ],
        ),
        (
            "sentry_dsn",
            lambda: f"https://{r(HEX, 32)}@o{r(DIG, 6)}.ingest.sentry.io/{r(DIG, 7)}",
            [
                "Sentry DSN for the booking widget (public DSN): {v}",
                "SENTRY_DSN={v}",
                "Sentry.init({{ dsn: '{v}' }})",
            ],
        ),
        (
            "analytics_site_id",
            uuid,
            [
                "Umami website id for smilestudio: {v}",
                '<script defer src="https://stats.fdev.uk/script.js" data-website-id="{v}"></script>',
                "Plausible alt: umami site {v} (charity)",
            ],
        ),
        (
            "docker_digest",
            lambda: "sha256:" + r(HEX, 64),
            [
                "Pinned wordpress:6.7-php8.3-apache@{v}",
                "Image digest deployed to the shop box: {v}",
                "docker pull mariadb@{v}",
            ],
        ),
        (
            "nameserver_list",
            lambda: rng.choice(["ns1", "dns1"]) + "." + rng.choice(["krystal.uk", "ionos.co.uk"]),
            [
                "Osteria nameservers before moving to CF: {v}, ns2 same host",
                "Estate agent domain still points at {v}",
                "Switched NS away from {v} to Cloudflare (dana.ns.cloudflare.com)",
            ],
        ),
        (
            "acm_validation_cname",
            lambda: f"_{r(HEX, 32)}.{r(LOW, 10)}.acm-validations.aws.",
            [
                "ACM validation CNAME for cdn.marlowstudio.com -> {v}",
                "Add CNAME _x.marlowstudio.com pointing to {v}",
                "cert validation target: {v}",
            ],
        ),
        (
            "tls_certificate",
            lambda: pem("CERTIFICATE", 600),
            [
                "Public cert for harrowhomes.co.uk (chain, for the host's form):\n{v}",
                "{v}\n^ intermediate cert the host asked for",
                "Fullchain cert (no key) for smilestudio:\n{v}",
            ],
        ),
        (
            "pgp_public_key",
            lambda: (
                "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
                + b64(180)
                + "\n-----END PGP PUBLIC KEY BLOCK-----"
            ),
            [
                "My public PGP key for clients who want to send logins encrypted:\n{v}",
                "{v}",
                "Charity treasurer's public key:\n{v}",
            ],
        ),
        (
            "age_public_key",
            lambda: "age1" + r("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58),
            [
                "age recipient for backups of the client DB dumps: {v}",
                "sops .sops.yaml: age: {v}",
                "public age key (server) {v}",
            ],
        ),
        (
            "donation_wallet_address",
            lambda: "bc1q" + r("qpzry9x8gf2tvdw0s3jn54khce6mua7l", 38),
            [
                "Charity's BTC donation address shown on the site: {v}",
                "Put {v} on the donate page under 'crypto'",
                "donation address (receive-only) {v}",
            ],
        ),
        (
            "wp_config_default_salts",
            lambda: "put your unique phrase here",
            [
                "Fresh wp-config on staging still has define( 'AUTH_KEY', '{v}' ); - regenerate",
                "NONCE_SALT = '{v}' in the sample config",
                "wp-config-sample.php: '{v}' for all eight keys",
            ],
        ),
        (
            "env_example_empty",
            lambda: "SMTP_PASSWORD=",
            [
                ".env.example for the shop app:\nAPP_KEY=\nDB_PASSWORD=\n{v}",
                "Left {v} blank in the committed template",
                "{v} (empty on purpose, filled by the host panel)",
            ],
        ),
        (
            "token_expired_log",
            lambda: "req_" + r(ALNUM, 14),
            [
                "Stripe error 'api_key_expired' on the bakery site, request id {v} - client rotated without telling me",
                "Square 401 'ACCESS_TOKEN_EXPIRED', request {v}",
                "Log: token expired for user 17, request_id={v}",
            ],
        ),
        (
            "oauth_authorize_url",
            lambda: r(ALNUM, 24),
            [
                "Xero connect URL: https://login.xero.com/identity/connect/authorize?response_type=code&client_id=ABCD&scope=accounting.transactions&state={v}",
                "OAuth state param seen in logs: {v}",
                "authorize?client_id=site-kit&redirect_uri=https%3A%2F%2Fosteria.uk&state={v}",
            ],
        ),
        (
            "stripe_test_card",
            lambda: "4242 4242 4242 4242",
            [
                "Test donation with card {v}, any future expiry, any CVC",
                "Use {v} on staging checkout, never a real card",
                "Card for test-mode booking deposit: {v}",
            ],
        ),
        (
            "stripe_test_publishable",
            lambda: "pk_test_" + r(ALNUM, 99),
            [
                "Staging uses test publishable key {v}",
                "pk test for the charity sandbox: {v}",
                "STRIPE_PUBLISHABLE_KEY={v}  # test mode",
            ],
        ),
        (
            "gtm_container_id",
            lambda: "GTM-" + r(UP + DIG, 7),
            [
                "GTM container for the estate agent: {v}",
                "Tag Manager {v} installed via Site Kit (bakery)",
                "<noscript> iframe for {v} still missing on the dentist site",
            ],
        ),
        (
            "s3_object_key",
            lambda: f"backups/marlow/2026/{r(HEX, 16)}.tar.zst",
            [
                "Restore point for the architect: s3 key {v}",
                '"Key": "{v}"',
                "Object key {v} (lifecycle moves it to Glacier after 30d)",
            ],
        ),
        (
            "idempotency_key",
            uuid,
            [
                "Retried the payout with Idempotency-Key: {v}",
                "idempotency key {v} reused -> Stripe returned the cached result",
                "Square create-payment idempotency_key {v}",
            ],
        ),
        (
            "password_field_names",
            lambda: "user_pass",
            [
                "Login form field names for the uptime check: log / {v}",
                "Autofill failing because the theme renamed {v} to pwd",
                "Gravity Forms password field maps to {v} in the user registration add-on",
            ],
        ),
        (
            "rotation_reminder",
            lambda: "",
            [
                "Rotate the Osteria Square token and the charity Stripe key in January (every 6 months)",
                "TODO: rotate API keys after Tom leaves the estate agency - list in the vault",
                "Key rotation done for the dentist SMTP on 2026-11-20; new value stored in 1Password only",
            ],
        ),
        (
            "invoice_uuid",
            uuid,
            [
                "Xero invoice {v} for Osteria marked paid",
                "Invoice Ninja invoice id {v} (Greenleaf retainer) bounced",
                "Resend invoice {v} to the architect's accounts address",
            ],
        ),
    ]

    rows: list[dict] = []
    for label, table in (("secret", secret), ("benign", benign)):
        for kind, gen, templates in table:
            for tpl in templates:
                v = gen()
                fill = {
                    "v": v,
                    "sid": r(HEX, 32),
                    "akid": r(UP + DIG, 16),
                    "h": r(HEX, 32),
                    "sk": r(HEX, 32),
                    "loc": r(UP + DIG, 12),
                }
                text = tpl.format(**fill)
                assert v in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(row) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

# ruff: noqa: E501
"""Blind secret-detection corpus 54: customer support and customer-success teams.

Memories written by support and customer-success people who use a coding agent with
their tools: helpdesks and CRMs (Zendesk, Intercom, Freshdesk, Salesforce, HubSpot),
call-centre and SMS platforms (Twilio, Vonage, Aircall, Plivo, MessageBird), customer
emails and chat messages pasted in (some carrying passwords, reset links or API keys
the customer sent by mistake), admin impersonation links, macros, and the ticket
numbers, order ids and account ids that look like keys.

Written blind on 2026-12-07: the author did not read the detector, its tests or any
earlier corpus.

Run: python blind_secrets_54.py [out.jsonl]   (JSONL to the path, or stdout)

Kinds
-----
secret: zendesk_api_token, zendesk_oauth_token, zendesk_agent_password,
  zendesk_jwt_shared_secret, intercom_access_token, intercom_identity_secret,
  freshdesk_api_key, freshdesk_basic_auth, salesforce_session_id,
  salesforce_password_security_token, salesforce_consumer_secret,
  hubspot_private_app_token, hubspot_legacy_api_key, twilio_auth_token,
  twilio_api_key_secret, vonage_api_secret, plivo_auth_token, messagebird_access_key,
  aircall_api_token, genesys_client_secret, five9_password, sendgrid_api_key,
  mailgun_api_key, mailchimp_api_key, postmark_server_token, klaviyo_private_key,
  customer_pasted_password, password_reset_link, magic_login_link,
  admin_impersonation_link, temporary_password_issued, stripe_secret_key,
  stripe_restricted_key, stripe_webhook_secret, customer_pasted_openai_key,
  customer_pasted_aws_secret_key, github_pat, gitlab_pat, npm_token, slack_bot_token,
  slack_webhook_url, zapier_catch_hook, discord_bot_token, telegram_bot_token,
  shopify_admin_token, square_access_token, google_oauth_client_secret,
  azure_client_secret, okta_api_token, jira_api_token, sentry_user_token,
  google_app_password, totp_seed, backup_codes, session_cookie, bearer_jwt,
  voicemail_pin, sftp_password, reporting_db_url, ssh_private_key,
  product_live_api_key, generic_webhook_signing_secret
benign: zendesk_ticket_number, zendesk_macro_id, zendesk_web_widget_key,
  salesforce_record_id, salesforce_org_id, salesforce_case_thread_ref,
  salesforce_consumer_key, hubspot_portal_id, hubspot_record_ids,
  intercom_conversation_id, intercom_app_id, freshdesk_ticket_url,
  freshdesk_key_from_env, stripe_publishable_key, stripe_customer_id,
  stripe_payment_intent_id, stripe_refund_id, stripe_webhook_endpoint_id,
  stripe_test_card, masked_card_number, masked_api_key, order_id, shopify_order_gid,
  invoice_number, tracking_number, twilio_account_sid, twilio_message_sid,
  twilio_call_sid, twilio_phone_sid, aircall_call_id, account_uuid, idempotency_key,
  request_trace_id, email_message_id, attachment_sha256, git_commit_sha,
  docker_image_digest, gravatar_md5, webhook_signature_value, redacted_password,
  redacted_reset_link, placeholder_api_key, docs_example_token, vault_reference,
  password_manager_pointer, env_var_reference, macro_about_passwords,
  password_policy_text, revoked_key_last4, promo_code, booking_reference,
  ssh_public_key, pgp_fingerprint, google_oauth_client_id, base64_payload,
  llm_token_count, keyboard_key_sense, key_account_sense, css_hex_colors,
  phone_numbers_shortcode, utm_tracking_link, csat_survey_id,
  impersonation_audit_entry, api_key_rotation_note
"""

import json
import random
import string
import sys

SEED = 5454

LOW = string.ascii_lowercase
UP = string.ascii_uppercase
DIG = string.digits
ALNUM = LOW + UP + DIG
HEX = "0123456789abcdef"
B32 = UP + "234567"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def r(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def uuid():
        h = r(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def b64url(n):
        return r(URLSAFE, n)

    def jwt():
        head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
        return f"{head}.eyJ{b64url(rng.randint(60, 110))}.{b64url(43)}"

    first = [
        "Maria",
        "Tomasz",
        "Aiko",
        "Deepa",
        "Luis",
        "Fatima",
        "Jonas",
        "Chloe",
        "Kwame",
        "Ines",
    ]
    last = ["Okafor", "Lindqvist", "Moreau", "Patel", "Nakamura", "Silva", "Kowalski", "Haddad"]
    cos = ["Brightwave", "Northpeak", "Tallow & Co", "Quillfox", "Ravenmoor", "Acmebake", "Lumio"]

    def ctx():
        fn = rng.choice(first)
        co = rng.choice(cos)
        return {
            "t": str(rng.randint(100000, 999999)),
            "name": f"{fn} {rng.choice(last)}",
            "fn": fn,
            "co": co,
            "dom": co.lower().replace(" & ", "").replace(" ", "") + ".com",
            "sub": co.lower().split()[0],
        }

    S = {}  # kind -> (value generator, templates)
    B = {}

    # ---------------- secrets ----------------
    S["zendesk_api_token"] = (
        lambda: r(ALNUM, 40),
        [
            "Zendesk API for the bulk-tag script: agent-bot@{dom}/token : {v}",
            "ticket export job uses curl -u ops@{dom}/token:{v} https://{sub}.zendesk.com/api/v2/tickets.json",
            "ZENDESK_SUBDOMAIN={sub}\nZENDESK_EMAIL=support@{dom}\nZENDESK_API_TOKEN={v}",
            "note to self: the zendesk token {fn} generated today for the macro sync is {v} (admin scope)",
        ],
    )
    S["zendesk_oauth_token"] = (
        lambda: r(HEX, 64),
        [
            "Zendesk OAuth access token for the sidebar app: Authorization: Bearer {v}",
            "oauth client 'csat-dashboard' on {sub}.zendesk.com -> access_token {v} (scope read write, no expiry)",
            "if the sync 401s again, the bearer we minted on ticket #{t} was {v}",
        ],
    )
    S["zendesk_agent_password"] = (
        lambda: r(ALNUM, 6) + rng.choice("!#%*") + r(ALNUM, 5),
        [
            "Shared zendesk login for the night shift: nightshift@{dom} / {v}",
            "Zendesk light-agent account for contractors -> user contractor@{dom}, pass: {v}",
            "{fn} reset the tier-2 agent password to {v} — tell the BPO team on Monday",
        ],
    )
    S["zendesk_jwt_shared_secret"] = (
        lambda: r(ALNUM, 48),
        [
            "Zendesk SSO (JWT) shared secret for the help center login: {v}",
            "help center remote auth: ZENDESK_JWT_SECRET={v}  # signs the customer login jwt",
            "jwt sso for {sub}.zendesk.com — shared secret {v}, set under Admin > Security > SSO",
        ],
    )
    S["intercom_access_token"] = (
        lambda: "dG9rOj" + r(B64, 54) + "=",
        [
            "Intercom access token (workspace {sub}): {v}",
            "export INTERCOM_TOKEN={v}\npython export_conversations.py --since 2026-11-01",
            "curl https://api.intercom.io/conversations -H 'Authorization: Bearer {v}' -H 'Accept: application/json'",
        ],
    )
    S["intercom_identity_secret"] = (
        lambda: r(URLSAFE, 40),
        [
            "Intercom identity verification secret (web) used to compute user_hash: {v}",
            "INTERCOM_IDENTITY_VERIFICATION_SECRET={v}\n# hmac-sha256(user_id) on the server, never ship to the browser",
            "the messenger HMAC key for {co} is {v} — needed by the backend to sign user_hash",
        ],
    )
    S["freshdesk_api_key"] = (
        lambda: r(ALNUM, 20),
        [
            "Freshdesk key for {sub}.freshdesk.com: {v} (use as username, password X)",
            "curl -u {v}:X -H 'Content-Type: application/json' https://{sub}.freshdesk.com/api/v2/tickets/{t}",
            "FRESHDESK_DOMAIN={sub}.freshdesk.com\nFRESHDESK_API_KEY={v}",
        ],
    )
    S["freshdesk_basic_auth"] = (
        lambda: r(LOW, 5) + r(DIG, 4) + rng.choice("$@!") + r(UP, 2),
        [
            "Freshdesk admin (basic auth still on): admin@{dom}:{v}",
            "freshdesk login for the escalations queue -> escalations@{dom} password {v}",
            "{fn} says the old freshdesk supervisor password is still {v}, we never rotated it",
        ],
    )
    S["salesforce_session_id"] = (
        lambda: "00D" + r(ALNUM, 12) + "!" + "AQ" + r(ALNUM + ".", 94),
        [
            "Salesforce session id grabbed from the browser to test the case API: {v}",
            "sf data query --target-org cs-prod -- SID was {v}",
            'curl https://{sub}.my.salesforce.com/services/data/v60.0/sobjects/Case -H "Authorization: Bearer {v}"',
        ],
    )
    S["salesforce_password_security_token"] = (
        lambda: r(LOW, 4) + r(DIG, 3) + r(UP, 2) + r(ALNUM, 25),
        [
            "Salesforce integration user: integration@{dom}, password+security token = {v}",
            "simple_salesforce login -> username=cs-sync@{dom} password_with_token={v}",
            "SF_USERNAME=api@{dom}\nSF_PASSWORD_AND_TOKEN={v}",
        ],
    )
    S["salesforce_consumer_secret"] = (
        lambda: r(HEX.upper(), 64),
        [
            "Connected app 'Case Deflector' consumer secret: {v}",
            "SALESFORCE_CLIENT_SECRET={v}",
            "oauth2 token call: client_id=3MVG9{sub} (public) client_secret={v} grant_type=password",
        ],
    )
    S["hubspot_private_app_token"] = (
        lambda: f"pat-{rng.choice(['na1', 'eu1', 'na2'])}-{uuid()}",
        [
            "HubSpot private app 'ticket-sync' token: {v}",
            "HUBSPOT_ACCESS_TOKEN={v}",
            "hubspot contacts import: Authorization: Bearer {v} (scopes crm.objects.contacts.write, tickets)",
        ],
    )
    S["hubspot_legacy_api_key"] = (
        lambda: uuid(),
        [
            "old HubSpot hapikey still used by the zap: https://api.hubapi.com/contacts/v1/lists/all/contacts/all?hapikey={v}",
            "legacy hubspot API key (portal owner {fn}): hapikey={v}",
            "HUBSPOT_API_KEY={v}  # legacy hapikey, migrate to private app",
        ],
    )
    S["twilio_auth_token"] = (
        lambda: r(HEX, 32),
        [
            "Twilio SMS for the outage notices: account AC{sid}, auth token {v}",
            "TWILIO_ACCOUNT_SID=AC{sid}\nTWILIO_AUTH_TOKEN={v}",
            "curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC{sid}/Messages.json -u AC{sid}:{v}",
        ],
    )
    S["twilio_api_key_secret"] = (
        lambda: r(ALNUM, 32),
        [
            "Twilio API key SK{sid} / secret {v} (for the Flex plugin)",
            "TWILIO_API_KEY=SK{sid}\nTWILIO_API_SECRET={v}",
            "flex voice token service uses api key SK{sid} with secret={v}",
        ],
    )
    S["vonage_api_secret"] = (
        lambda: r(ALNUM, 16),
        [
            "Vonage SMS fallback: api_key {k8}, api_secret {v}",
            "VONAGE_API_KEY={k8}\nVONAGE_API_SECRET={v}",
            "nexmo (now vonage) creds from {fn}'s handover: key={k8} secret={v}",
        ],
    )
    S["plivo_auth_token"] = (
        lambda: r(ALNUM, 40),
        [
            "Plivo auth id MA{k18}, auth token {v}",
            "PLIVO_AUTH_ID=MA{k18}\nPLIVO_AUTH_TOKEN={v}",
            "sms gateway for APAC is plivo; token = {v}",
        ],
    )
    S["messagebird_access_key"] = (
        lambda: r(ALNUM, 25),
        [
            "MessageBird live access key: {v}",
            "curl -H 'Authorization: AccessKey {v}' https://rest.messagebird.com/messages",
            "MESSAGEBIRD_ACCESS_KEY={v}  # live, not test_",
        ],
    )
    S["aircall_api_token"] = (
        lambda: r(HEX, 32),
        [
            "Aircall API: id {k8h} token {v} (basic auth)",
            "aircall call-log export: curl -u {k8h}:{v} https://api.aircall.io/v1/calls",
            "AIRCALL_API_ID={k8h}\nAIRCALL_API_TOKEN={v}",
        ],
    )
    S["genesys_client_secret"] = (
        lambda: r(URLSAFE, 43),
        [
            "Genesys Cloud OAuth client (client credentials) for queue stats: id {u} secret {v}",
            "GENESYS_CLIENT_ID={u}\nGENESYS_CLIENT_SECRET={v}",
            "purecloud wallboard creds -> client_secret: {v}",
        ],
    )
    S["five9_password"] = (
        lambda: r(UP, 1) + r(LOW, 6) + r(DIG, 3) + rng.choice("!?#"),
        [
            "Five9 admin web services login: five9admin@{dom} / {v}",
            "five9 supervisor account for reporting api -> password {v}",
            "call centre (Five9) creds for the dialer script: user=reports@{dom} pass={v}",
        ],
    )
    S["sendgrid_api_key"] = (
        lambda: "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43),
        [
            "SendGrid key for the CSAT survey mails: {v}",
            "SENDGRID_API_KEY={v}",
            "customer pasted their sendgrid key into ticket #{t} while asking about bounces: {v}",
        ],
    )
    S["mailgun_api_key"] = (
        lambda: "key-" + r(HEX, 32),
        [
            "Mailgun private key (mg.{dom}): {v}",
            "curl -s --user 'api:{v}' https://api.mailgun.net/v3/mg.{dom}/messages",
            "MAILGUN_API_KEY={v}",
        ],
    )
    S["mailchimp_api_key"] = (
        lambda: r(HEX, 32) + "-us" + str(rng.randint(2, 21)),
        [
            "Mailchimp key for the win-back audience: {v}",
            "MAILCHIMP_API_KEY={v}",
            "{fn} from {co} sent her mailchimp api key in the chat ({v}) so we could check the integration",
        ],
    )
    S["postmark_server_token"] = (
        lambda: uuid(),
        [
            "Postmark server token for transactional (password reset) mail: {v}",
            "curl https://api.postmarkapp.com/email -H 'X-Postmark-Server-Token: {v}'",
            "POSTMARK_SERVER_TOKEN={v}",
        ],
    )
    S["klaviyo_private_key"] = (
        lambda: "pk_" + r(HEX, 34),
        [
            "Klaviyo private API key (full access): {v}",
            "KLAVIYO_PRIVATE_KEY={v}",
            "curl https://a.klaviyo.com/api/profiles/ -H 'Authorization: Klaviyo-API-Key {v}'",
        ],
    )
    S["customer_pasted_password"] = (
        lambda: (
            rng.choice(["Sunflower", "Barcelona", "Rocket", "Marmalade", "Kestrel"])
            + str(rng.randint(10, 99))
            + rng.choice("!$#")
            + r(LOW, 2)
        ),
        [
            'Ticket #{t} ({name}): "I can\'t log in, my password is {v} and it keeps saying invalid"',
            "pasted from chat — customer: hi, email {fn}@{dom} pw {v} pls fix asap",
            "Customer email (#{t}):\n> Username: {fn}.{t}\n> Password: {v}\n> Please check what's wrong with my account.",
            '{name} wrote in Spanish: "mi contraseña es {v}, no puedo entrar" — reproduce with that login',
        ],
    )
    S["password_reset_link"] = (
        lambda: r(URLSAFE, 43),
        [
            "customer forwarded their reset email in #{t}: https://app.{dom}/password/reset?token={v}",
            "reset link from the bounce log (still valid 24h): https://{sub}.zendesk.com/password/reset/{v}",
            "Hi {fn}, use this link to choose a new password: https://accounts.{dom}/reset/{v} (pasted into chat by customer)",
        ],
    )
    S["magic_login_link"] = (
        lambda: r(URLSAFE, 48),
        [
            "magic sign-in link customer pasted into #{t}: https://app.{dom}/auth/magic?t={v}",
            "login link from {name}'s email: https://{sub}.app/login/callback?code={v}&email={fn}%40{dom}",
            "passwordless link (one click, 15 min) {fn} forwarded: https://app.{dom}/m/{v}",
        ],
    )
    S["admin_impersonation_link"] = (
        lambda: r(URLSAFE, 52),
        [
            "impersonate {name} for the billing bug: https://admin.{dom}/impersonate?account={t}&sig={v}",
            "login-as link generated from the admin panel (valid 1h): https://app.{dom}/support/login_as/{t}/{v}",
            "support shadow session for #{t}: https://admin.{dom}/sessions/assume?token={v}",
        ],
    )
    S["temporary_password_issued"] = (
        lambda: r(UP, 3) + "-" + r(DIG, 4) + "-" + r(LOW, 3),
        [
            "Issued temp password for {name} (acct {t}): {v} — forces change on first login",
            "macro reply draft: 'Your temporary password is {v}. Please change it after signing in.'",
            "set {fn}'s portal password to {v} so they can get in before the demo",
        ],
    )
    S["stripe_secret_key"] = (
        lambda: "sk_live_" + r(ALNUM, 99),
        [
            "Stripe secret key for refunds script: {v}",
            "STRIPE_SECRET_KEY={v}",
            "customer ({co}) pasted their own stripe key into chat asking why webhooks fail: {v}",
        ],
    )
    S["stripe_restricted_key"] = (
        lambda: "rk_live_" + r(ALNUM, 99),
        [
            "restricted stripe key (refunds + customers write) for the support bot: {v}",
            "STRIPE_RK_REFUNDS={v}",
            "the Zendesk Stripe app is configured with {v}",
        ],
    )
    S["stripe_webhook_secret"] = (
        lambda: "whsec_" + r(ALNUM, 32),
        [
            "Stripe webhook signing secret for the dispute->ticket hook: {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
            "endpoint we_{k14} verifies with {v}",
        ],
    )
    S["customer_pasted_openai_key"] = (
        lambda: "sk-proj-" + r(URLSAFE, 132),
        [
            "customer put their OpenAI key in the ticket body (#{t}): {v}",
            "chat transcript: {fn}: here is my key so you can test {v}",
            "from #{t}, the integration form value: openai_api_key = {v}",
        ],
    )
    S["customer_pasted_aws_secret_key"] = (
        lambda: r(ALNUM + "/+", 40),
        [
            "customer sent AWS creds for the S3 export: AKIA{k16u} / {v}",
            "#{t} attachment text:\naws_access_key_id = AKIA{k16u}\naws_secret_access_key = {v}",
            "{name} pasted: AWS_SECRET_ACCESS_KEY={v} (bucket {sub}-exports)",
        ],
    )
    S["github_pat"] = (
        lambda: "ghp_" + r(ALNUM, 36),
        [
            "GitHub token for the status-page repo: {v}",
            "git clone https://{fn}:{v}@github.com/{sub}/help-center-theme.git",
            "GH_TOKEN={v}  # for the macro-export action",
        ],
    )
    S["gitlab_pat"] = (
        lambda: "glpat-" + r(URLSAFE, 20),
        [
            "gitlab token to open bug issues from tickets: {v}",
            "curl --header 'PRIVATE-TOKEN: {v}' https://gitlab.{dom}/api/v4/projects/12/issues",
            "GITLAB_TOKEN={v}",
        ],
    )
    S["npm_token"] = (
        lambda: "npm_" + r(ALNUM, 36),
        [
            "npm token for publishing the zendesk app package: {v}",
            "//registry.npmjs.org/:_authToken={v}",
            "NPM_TOKEN={v} (automation, publish rights to @{sub}/support-widget)",
        ],
    )
    S["slack_bot_token"] = (
        lambda: f"xoxb-{r(DIG, 12)}-{r(DIG, 13)}-{r(ALNUM, 24)}",
        [
            "Slack bot token for #support-escalations alerts: {v}",
            "SLACK_BOT_TOKEN={v}",
            "the ticket-alert bot posts with {v} (chat:write, channels:read)",
        ],
    )
    S["slack_webhook_url"] = (
        lambda: (
            f"https://hooks.slack.com/services/T{r(UP + DIG, 10)}/B{r(UP + DIG, 10)}/{r(ALNUM, 24)}"
        ),
        [
            "incoming webhook for VIP ticket pings: {v}",
            "SLACK_ESCALATION_WEBHOOK={v}",
            'curl -X POST -d \'{{"text":"SLA breach #{t}"}}\' {v}',
        ],
    )
    S["zapier_catch_hook"] = (
        lambda: f"https://hooks.zapier.com/hooks/catch/{r(DIG, 7)}/{r(LOW + DIG, 6)}/",
        [
            "Zap that creates HubSpot tickets from the form posts to {v}",
            "ZAPIER_HOOK={v}",
            "the churn-risk zap's catch hook (anyone with it can inject tickets): {v}",
        ],
    )
    S["discord_bot_token"] = (
        lambda: f"{r('MN', 1)}{r(ALNUM, 25)}.{r(URLSAFE, 6)}.{r(URLSAFE, 38)}",
        [
            "community support discord bot token: {v}",
            "DISCORD_BOT_TOKEN={v}",
            "modbot for the {co} discord runs with token {v}",
        ],
    )
    S["telegram_bot_token"] = (
        lambda: f"{rng.randint(1000000000, 7999999999)}:AA{r(URLSAFE, 33)}",
        [
            "telegram support bot (@{sub}_help_bot) token {v}",
            "TELEGRAM_BOT_TOKEN={v}",
            "curl https://api.telegram.org/bot{v}/getUpdates",
        ],
    )
    S["shopify_admin_token"] = (
        lambda: "shpat_" + r(HEX, 32),
        [
            "Shopify admin API token ({sub}.myshopify.com) for order lookups: {v}",
            "curl -H 'X-Shopify-Access-Token: {v}' https://{sub}.myshopify.com/admin/api/2024-10/orders.json",
            "SHOPIFY_ADMIN_TOKEN={v}",
        ],
    )
    S["square_access_token"] = (
        lambda: "EAAA" + r(URLSAFE, 60),
        [
            "Square production access token for the POS refunds: {v}",
            "SQUARE_ACCESS_TOKEN={v}",
            "merchant {co} sent us their square token in an email: {v}",
        ],
    )
    S["google_oauth_client_secret"] = (
        lambda: "GOCSPX-" + r(URLSAFE, 28),
        [
            "Google OAuth for the Gmail->helpdesk bridge: client secret {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            '"client_secret": "{v}", "redirect_uris": ["https://support.{dom}/oauth"]',
        ],
    )
    S["azure_client_secret"] = (
        lambda: r(ALNUM, 3) + "8Q~" + r(ALNUM + "_.-", 34),
        [
            "Entra app for the Dynamics case sync: client secret {v}",
            "AZURE_CLIENT_SECRET={v}",
            "teams support bot (app reg 'cs-bot') secret value {v} expires 2027-06",
        ],
    )
    S["okta_api_token"] = (
        lambda: "00" + r(URLSAFE, 40),
        [
            "Okta API token for unlocking customer SSO accounts: {v}",
            "curl -H 'Authorization: SSWS {v}' https://{sub}.okta.com/api/v1/users",
            "OKTA_API_TOKEN={v}",
        ],
    )
    S["jira_api_token"] = (
        lambda: "ATATT3xFfGF0" + r(URLSAFE, 170) + "=" + r(HEX.upper(), 8),
        [
            "Jira token for escalating tickets to ENG: {v}",
            "JIRA_EMAIL=support@{dom}\nJIRA_API_TOKEN={v}",
            "atlassian api token (zendesk jira integration) {v}",
        ],
    )
    S["sentry_user_token"] = (
        lambda: "sntryu_" + r(HEX, 64),
        [
            "Sentry token to pull crash reports for tickets: {v}",
            "SENTRY_AUTH_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' https://sentry.io/api/0/projects/",
        ],
    )
    S["google_app_password"] = (
        lambda: " ".join(r(LOW, 4) for _ in range(4)),
        [
            "app password for support@{dom} (IMAP into Freshdesk): {v}",
            'gmail app password for the shared inbox: "{v}"',
            "mail channel in zendesk uses support@{dom} + app password {v}",
        ],
    )
    S["totp_seed"] = (
        lambda: r(B32, 32),
        [
            "2FA seed for the shared zendesk admin: {v} (add to your authenticator)",
            "otpauth://totp/Zendesk:admin@{dom}?secret={v}&issuer=Zendesk",
            "TOTP secret for the salesforce support admin {v}",
        ],
    )
    S["backup_codes"] = (
        lambda: " ".join(f"{r(DIG, 4)}-{r(DIG, 4)}" for _ in range(5)),
        [
            "recovery codes for the shared intercom owner account: {v}",
            "hubspot super admin backup codes -> {v}",
            "2fa backup codes (zendesk owner) {v}",
        ],
    )
    S["session_cookie"] = (
        lambda: r(HEX, 64),
        [
            "to reproduce #{t} I reused the customer's session: Cookie: _app_session={v}",
            "admin session cookie from the HAR the customer sent: session_id={v}",
            "HAR file from {name} contains sessionid={v} — still logged in",
        ],
    )
    S["bearer_jwt"] = (
        jwt,
        [
            "bearer from customer's HAR (#{t}): Authorization: Bearer {v}",
            "curl -H 'Authorization: Bearer {v}' https://api.{dom}/v1/me",
            "access token copied out of devtools for {fn}'s account: {v}",
        ],
    )
    S["voicemail_pin"] = (
        lambda: r(DIG, 6),
        [
            "support line voicemail (Aircall shared number): PIN {v}",
            "after-hours voicemail box access code: {v}",
            "RingCentral support queue voicemail password is {v}",
        ],
    )
    S["sftp_password"] = (
        lambda: r(ALNUM, 14),
        [
            "sftp for {co}'s nightly ticket export: sftp://export@files.{dom} password {v}",
            "SFTP_USER=cs_export\nSFTP_PASS={v}",
            "customer's data drop: host files.{dom}, user {sub}, pw: {v}",
        ],
    )
    S["reporting_db_url"] = (
        lambda: r(ALNUM, 18),
        [
            "support analytics replica: postgres://cs_reader:{v}@replica.{dom}:5432/support",
            "DATABASE_URL=mysql://metabase:{v}@10.4.2.11/helpdesk",
            "mongodb+srv://cs_tools:{v}@cluster0.{sub}.mongodb.net/tickets",
        ],
    )
    S["ssh_private_key"] = (
        lambda: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"
            + r(B64, 64)
            + "\n"
            + r(B64, 70)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        [
            "key for the on-prem helpdesk box:\n{v}",
            "customer pasted this into #{t} by mistake:\n{v}",
        ],
    )
    S["product_live_api_key"] = (
        lambda: "acme_live_" + r(ALNUM, 32),
        [
            "customer's own production API key, pasted in #{t}: {v} (ask them to rotate)",
            "{name} shared their key to debug the 403: {v}",
            "repro for #{t}: curl -H 'X-Api-Key: {v}' https://api.acme.io/v2/orders",
        ],
    )
    S["generic_webhook_signing_secret"] = (
        lambda: r(HEX, 48),
        [
            "Intercom webhook 'client secret' for HMAC check on the ticket topic: {v}",
            "HELPSCOUT_WEBHOOK_SECRET={v}",
            "freshdesk webhook -> our lambda; shared signing secret {v}",
        ],
    )

    # ---------------- benign ----------------
    B["zendesk_ticket_number"] = (
        lambda: str(rng.randint(1000000, 9999999)),
        [
            "Zendesk #{v} — {name} double-charged, refunded, waiting on confirmation",
            "merge ticket {v} into #{t}, same customer ({fn}@{dom})",
            "Escalation ticket id: {v} (priority urgent, SLA 4h)",
        ],
    )
    B["zendesk_macro_id"] = (
        lambda: str(rng.randint(360000000000, 369999999999)),
        [
            "macro 'Refund approved' id {v} — update the wording for EU customers",
            "PUT /api/v2/macros/{v}.json to rename the password-reset macro",
            "the 'Send reset link' macro is {v}; it only sends the link template, not a token",
        ],
    )
    B["zendesk_web_widget_key"] = (
        lambda: uuid(),
        [
            '<script id="ze-snippet" src="https://static.zdassets.com/ekr/snippet.js?key={v}"></script>',
            "web widget key {v} — public, it's in the page source of the help center",
            "messenger snippet on {dom} uses key={v} (same on staging)",
        ],
    )
    B["salesforce_record_id"] = (
        lambda: "001" + r(ALNUM, 15),
        [
            "Salesforce account {v} is the parent of {co}; cases roll up there",
            "Account Id: {v}  Owner: {name}  Tier: Enterprise",
            "sf data get record --sobject Account --record-id {v}",
        ],
    )
    B["salesforce_org_id"] = (
        lambda: "00D" + r(ALNUM, 15),
        [
            "production org id {v} (Setup > Company Information)",
            "Web-to-Case form posts with orgid={v}",
            "support org is {v}, the sandbox has a different id",
        ],
    )
    B["salesforce_case_thread_ref"] = (
        lambda: f"ref:_00D{r(ALNUM, 7)}._500{r(ALNUM, 7)}:ref",
        [
            "keep the thread id in the subject or email-to-case makes a new case: {v}",
            "customer replied without {v} so it spawned a duplicate",
            "Subject: Re: Invoice question [ {v} ]",
        ],
    )
    B["salesforce_consumer_key"] = (
        lambda: "3MVG9" + r(ALNUM + "._", 80),
        [
            "connected app consumer key (client id, not secret): {v}",
            "SALESFORCE_CLIENT_ID={v}  # secret is in vault kv/cs/salesforce",
            "client_id for the Case Deflector app: {v}",
        ],
    )
    B["hubspot_portal_id"] = (
        lambda: str(rng.randint(20000000, 49999999)),
        [
            "HubSpot portal (hub id) {v}",
            '<script src="//js.hs-scripts.com/{v}.js" async defer></script>',
            "tracking code for hub {v} is on every help-center page",
        ],
    )
    B["hubspot_record_ids"] = (
        lambda: str(rng.randint(10**10, 10**11 - 1)),
        [
            "HubSpot ticket {v} linked to deal 1{t}",
            "contact vid {v} is the billing contact at {co}",
            "https://app.hubspot.com/contacts/2{t}/record/0-5/{v}",
        ],
    )
    B["intercom_conversation_id"] = (
        lambda: str(rng.randint(10**14, 10**15 - 1)),
        [
            "Intercom conversation {v} — customer asked about SSO pricing",
            "https://app.intercom.com/a/inbox/{k8l}/inbox/conversation/{v}",
            "GET /conversations/{v} returns 404 after the merge",
        ],
    )
    B["intercom_app_id"] = (
        lambda: r(LOW + DIG, 8),
        [
            'window.intercomSettings = {{ app_id: "{v}" }};',
            "Intercom workspace/app id {v} (public, in the messenger snippet)",
            "test workspace is {v}, prod is a different id",
        ],
    )
    B["freshdesk_ticket_url"] = (
        lambda: f"https://{r(LOW, 7)}.freshdesk.com/a/tickets/{rng.randint(10000, 99999)}",
        [
            "see {v} for the full thread",
            "duplicate of {v}; closing this one",
            "[{v}] SLA breached because the agent was on leave",
        ],
    )
    B["freshdesk_key_from_env"] = (
        lambda: "$FRESHDESK_API_KEY:X",
        [
            "curl -u {v} https://{sub}.freshdesk.com/api/v2/contacts",
            "freshdesk basic auth is the key as username and a literal X as password: {v}",
            "script: requests.get(url, auth=(os.environ['FRESHDESK_API_KEY'], 'X'))  # same as curl -u {v}",
        ],
    )
    B["stripe_publishable_key"] = (
        lambda: "pk_live_" + r(ALNUM, 99),
        [
            "checkout page publishable key: {v}",
            "NEXT_PUBLIC_STRIPE_KEY={v}",
            "Stripe.js init on the billing portal: Stripe('{v}')",
        ],
    )
    B["stripe_customer_id"] = (
        lambda: "cus_" + r(ALNUM, 14),
        [
            "{name} is {v} in Stripe; two subscriptions, cancel the older one",
            "refund flow: look up {v} then the latest invoice",
            "stripe customer: {v} (metadata.zendesk_user_id={t})",
        ],
    )
    B["stripe_payment_intent_id"] = (
        lambda: "pi_" + r(ALNUM, 24),
        [
            "disputed charge: {v}, reason 'product not received'",
            "payment intent {v} shows requires_action (3DS not completed)",
            "refund against {v} for order #{t}",
        ],
    )
    B["stripe_refund_id"] = (
        lambda: "re_" + r(ALNUM, 24),
        [
            "refund {v} issued, 5-10 business days",
            "Refund ID for the customer's bank: {v}",
            "stripe refunds list shows {v} as succeeded",
        ],
    )
    B["stripe_webhook_endpoint_id"] = (
        lambda: "we_" + r(ALNUM, 24),
        [
            "dispute webhook endpoint {v} (signing secret lives in vault, not here)",
            "disable endpoint {v} during the migration",
            "stripe webhook_endpoints: {v} -> https://support.{dom}/hooks/stripe",
        ],
    )
    B["stripe_test_card"] = (
        lambda: rng.choice(["4242 4242 4242 4242", "4000 0000 0000 9995", "4000 0025 0000 3155"]),
        [
            "to reproduce the decline in test mode use card {v}, any future date, any CVC",
            "Stripe test card {v} (documented test number)",
            "QA step 3: pay with {v} on the staging checkout",
        ],
    )
    B["masked_card_number"] = (
        lambda: "**** **** **** " + r(DIG, 4),
        [
            "customer's card on file: Visa {v}, exp 08/28",
            "charge to {v} failed twice (insufficient funds)",
            "refund goes back to {v}",
        ],
    )
    B["masked_api_key"] = (
        lambda: "sk_live_" + "*" * 20 + r(ALNUM, 4),
        [
            "customer says their key {v} stopped working — it's the one shown in the dashboard",
            "dashboard shows the restricted key as {v}, created by {fn}",
            "audit: key {v} last used 2026-11-30",
        ],
    )
    B["order_id"] = (
        lambda: f"ORD-{r(UP + DIG, 4)}-{r(UP + DIG, 4)}-{r(UP + DIG, 4)}",
        [
            "order {v} shipped to the wrong address, reship approved",
            "{name} (order {v}) wants an exchange for size M",
            "Order ID: {v}\nStatus: delivered\nCarrier: DHL",
        ],
    )
    B["shopify_order_gid"] = (
        lambda: f"gid://shopify/Order/{rng.randint(10**12, 10**13 - 1)}",
        [
            "graphql orderCancel on {v} (customer changed mind)",
            "#{t} maps to {v}",
            "refund via admin api for {v}",
        ],
    )
    B["invoice_number"] = (
        lambda: f"INV-{rng.randint(2024, 2026)}-{r(DIG, 6)}",
        [
            "credit note against {v} for the outage",
            "{co} asks for a PDF of {v} with VAT number",
            "invoice {v} was sent to the old billing email",
        ],
    )
    B["tracking_number"] = (
        lambda: "1Z" + r(UP + DIG, 16),
        [
            "UPS tracking {v} stuck in Louisville since Tuesday",
            "send {fn} the tracking link for {v}",
            "carrier claim filed for {v}",
        ],
    )
    B["twilio_account_sid"] = (
        lambda: "AC" + r(HEX, 32),
        [
            "Twilio account SID {v} (the auth token is in 1Password, not here)",
            "subaccount for the EU SMS numbers: {v}",
            "console URL shows account {v}; that's just the id",
        ],
    )
    B["twilio_message_sid"] = (
        lambda: "SM" + r(HEX, 32),
        [
            "SMS {v} failed with 30007 (carrier filtered)",
            "delivery receipt for {v}: undelivered",
            "message sid {v} — customer says they never got the OTP",
        ],
    )
    B["twilio_call_sid"] = (
        lambda: "CA" + r(HEX, 32),
        [
            "call recording for the angry caller: {v}",
            "QA review queue: {v}, agent {fn}, 14 min",
            "Flex task for call {v} was abandoned after 3m",
        ],
    )
    B["twilio_phone_sid"] = (
        lambda: "PN" + r(HEX, 32),
        [
            "support line number resource {v} (+1 415 ...)",
            "port-in finished; new incoming number is {v}",
            "point {v}'s voice URL at the new IVR",
        ],
    )
    B["aircall_call_id"] = (
        lambda: str(rng.randint(10**9, 10**10 - 1)),
        [
            "Aircall call {v} — customer disconnected during transfer",
            "add comment to aircall call id {v}",
            "recording link for call {v} expires in 30 days",
        ],
    )
    B["account_uuid"] = (
        lambda: uuid(),
        [
            "customer account id {v} (workspace {co})",
            "GDPR delete request for user {v} — done",
            "feature flag beta_inbox enabled for tenant {v}",
        ],
    )
    B["idempotency_key"] = (
        lambda: uuid(),
        [
            "refund retried with Idempotency-Key: {v} so it didn't double-refund",
            "idempotency key {v} was reused, that's why stripe returned the old response",
            "POST /refunds idempotency_key={v}",
        ],
    )
    B["request_trace_id"] = (
        lambda: r(HEX, 32),
        [
            "customer error page showed request id {v}; found it in Datadog",
            "X-Request-Id: {v} -> 500 in the billing service",
            "trace {v} shows the timeout in the CRM sync",
        ],
    )
    B["email_message_id"] = (
        lambda: f"<{r(ALNUM, 24)}@mail.gmail.com>",
        [
            "Message-ID: {v} threaded into the wrong ticket",
            "the reply with In-Reply-To {v} created a new ticket #{t}",
            "mail log: {v} accepted by mx, never reached zendesk",
        ],
    )
    B["attachment_sha256"] = (
        lambda: r(HEX, 64),
        [
            "customer's invoice PDF sha256 {v} matches the one we sent",
            "malware scan ok for attachment (sha256: {v})",
            "duplicate upload detected, same hash {v}",
        ],
    )
    B["git_commit_sha"] = (
        lambda: r(HEX, 40),
        [
            "fix for the reset-email bug shipped in {v}",
            "help center theme rollback to {v}",
            "ticket #{t} resolved by commit {v} (release 4.18)",
        ],
    )
    B["docker_image_digest"] = (
        lambda: "sha256:" + r(HEX, 64),
        [
            "support-tools image pinned to {v}",
            "zendesk-sync@{v} is the build that broke tags",
            "deployed digest {v} to the cs-tools cluster",
        ],
    )
    B["gravatar_md5"] = (
        lambda: r(HEX, 32),
        [
            "agent avatar: https://www.gravatar.com/avatar/{v}?s=80",
            "md5 of {fn}@{dom} for gravatar is {v}",
            "avatar hash {v} cached in the widget",
        ],
    )
    B["webhook_signature_value"] = (
        lambda: "sha256=" + r(HEX, 64),
        [
            "request header X-Hub-Signature-256: {v} didn't match — clock/body mismatch, not a bad secret",
            "logged signature {v} for the failed intercom webhook delivery",
            "computed {v} vs received header, differing by trailing newline",
        ],
    )
    B["redacted_password"] = (
        lambda: rng.choice(["[REDACTED]", "********", "<removed by agent>", "[password removed]"]),
        [
            "customer put their password in the ticket, I edited the comment to {v} and told them to change it",
            "Customer wrote: 'my password is {v}' (redacted via Zendesk redaction app)",
            "transcript cleaned: pw {v}",
        ],
    )
    B["redacted_reset_link"] = (
        lambda: rng.choice(
            [
                "https://app.{dom}/password/reset?token=<redacted>",
                "https://app.{dom}/password/reset?token=[REDACTED]",
            ]
        ),
        [
            "customer forwarded reset mail ({v}) — link already invalidated by requesting a new one",
            "reset link format: {v}",
            "bug: the link {v} lands on a 404 for SSO users",
        ],
    )
    B["placeholder_api_key"] = (
        lambda: rng.choice(
            [
                "YOUR_API_KEY",
                "<your-zendesk-token>",
                "xxxxxxxxxxxxxxxxxxxx",
                "REPLACE_ME",
                "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
            ]
        ),
        [
            "macro for API questions: curl -H 'Authorization: Bearer {v}' https://api.{dom}/v1/me",
            'help center article snippet: api_key = "{v}"  # paste the key from Settings > API',
            "told {fn} to fill in {v} in the sample config",
        ],
    )
    B["docs_example_token"] = (
        lambda: rng.choice(
            [
                "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
                "AKIAIOSFODNN7EXAMPLE",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ]
        ),
        [
            "the customer copied the docs example {v} and wonders why it fails — it's the public sample value",
            "the vendor's documentation shows {v} as the example; not a real credential",
            "KB article says: e.g. {v} (sample from the provider docs)",
        ],
    )
    B["vault_reference"] = (
        lambda: rng.choice(
            [
                "op://Support/Zendesk API/credential",
                "vault kv get secret/cs/twilio",
                "aws secretsmanager get-secret-value --secret-id cs/intercom",
            ]
        ),
        [
            "token is not in this note; fetch it with `{v}`",
            "where the creds live: {v}",
            "rotate then update {v}",
        ],
    )
    B["password_manager_pointer"] = (
        lambda: rng.choice(
            [
                "1Password > CS Shared > Five9 admin",
                "Bitwarden org 'Support' item 'Aircall API'",
                "LastPass folder Shared-CS/Freshdesk",
            ]
        ),
        [
            "login for the dialer is in {v}",
            "ask {fn} for access to {v}",
            "password: see {v}",
        ],
    )
    B["env_var_reference"] = (
        lambda: rng.choice(
            [
                "${TWILIO_AUTH_TOKEN}",
                "$ZENDESK_API_TOKEN",
                "${{ secrets.HUBSPOT_TOKEN }}",
                "os.environ['INTERCOM_TOKEN']",
            ]
        ),
        [
            "script reads the token from {v}",
            "curl -u ops@{dom}/token:{v} https://{sub}.zendesk.com/api/v2/users/me.json",
            "CI step passes {v} to the exporter",
        ],
    )
    B["macro_about_passwords"] = (
        lambda: rng.choice(["password", "reset token", "API key"]),
        [
            "Macro 'Never share credentials': We will never ask for your {v}. If you sent it, please change it now.",
            "policy: if a customer pastes a {v} in a ticket, redact it and tag 'credential_exposed'",
            "wrote a KB: 'How to reset your {v}' — link goes to Settings > Security",
        ],
    )
    B["password_policy_text"] = (
        lambda: "min 12 chars, 1 upper, 1 digit, 1 symbol",
        [
            "customer asks why 'Summer2024' is rejected: policy is {v}",
            "portal password rules: {v}; no reuse of last 5",
            "error 'weak password' => {v}",
        ],
    )
    B["revoked_key_last4"] = (
        lambda: "…" + r(ALNUM, 4),
        [
            "customer's leaked key ending {v} was revoked by them at 14:02, confirmed in their dashboard",
            "rotated the zendesk token (old one ended {v}, deleted)",
            "key {v} revoked; new one stored in vault",
        ],
    )
    B["promo_code"] = (
        lambda: rng.choice(["WINBACK", "SORRY", "BFCM", "LOYAL"]) + r(DIG, 2),
        [
            "goodwill: give {fn} the public code {v} (20% off, in the newsletter)",
            "macro 'apology discount' uses {v}",
            "promo {v} is failing at checkout for EU stores",
        ],
    )
    B["booking_reference"] = (
        lambda: r(UP + DIG, 6),
        [
            "booking ref {v} — rebooked on the 14:30",
            "PNR {v}, customer wants a refund to original card",
            "reservation {v} cancelled by the venue",
        ],
    )
    B["ssh_public_key"] = (
        lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43) + " cs-tools@bastion",
        [
            "add to authorized_keys on the export box: {v}",
            "public key for the customer's SFTP allowlist: {v}",
            "{fn}'s pubkey {v}",
        ],
    )
    B["pgp_fingerprint"] = (
        lambda: " ".join(r(HEX.upper(), 4) for _ in range(10)),
        [
            "security@ PGP fingerprint {v} — give this to the customer reporting a vuln",
            "verify the signed statement with key {v}",
            "our disclosure key fingerprint: {v}",
        ],
    )
    B["google_oauth_client_id"] = (
        lambda: f"{r(DIG, 12)}-{r(LOW + DIG, 32)}.apps.googleusercontent.com",
        [
            "Google sign-in client id for the customer portal: {v}",
            "GOOGLE_CLIENT_ID={v} (secret kept in vault)",
            "the 'Sign in with Google' button uses {v}",
        ],
    )
    B["base64_payload"] = (
        lambda: "eyJ0aWNrZXRfaWQiOi" + r(B64, 40) + "==",
        [
            "webhook body was base64 ({v}) — decodes to ticket_id and status only",
            "the Intercom event payload is {v}; no auth data in it",
            'decoded {v} -> {{"ticket_id": ..., "tags": [...]}}',
        ],
    )
    B["llm_token_count"] = (
        lambda: f"{rng.randint(1000, 99999)} tokens",
        [
            "ticket summarizer used {v} on the longest thread",
            "Fin answered 312 conversations, avg {v} per answer",
            "prompt for the macro-suggester is {v}; trim the signature block",
        ],
    )
    B["keyboard_key_sense"] = (
        lambda: rng.choice(["Ctrl+Shift+K", "Cmd+K", "Alt+M", "Shift+Enter"]),
        [
            "zendesk shortcut: {v} opens the macro picker (key bindings doc)",
            "the key for 'send and solve' is {v}",
            "press {v} to add an internal note instead of a public reply",
        ],
    )
    B["key_account_sense"] = (
        lambda: "KAM-" + r(DIG, 4),
        [
            "{co} is a key account ({v}); route to {fn}",
            "key account {v} renewal risk: high, token of goodwill approved",
            "key customers list entry {v} — QBR next week",
        ],
    )
    B["css_hex_colors"] = (
        lambda: "#" + r(HEX, 6),
        [
            "help center brand color {v}",
            "widget launcher color set to {v}",
            "chat bubble background {v} fails contrast",
        ],
    )
    B["phone_numbers_shortcode"] = (
        lambda: str(rng.randint(20000, 99999)),
        [
            "SMS replies come in on shortcode {v}; STOP handled by carrier",
            "customers texting {v} get the auto-reply",
            "US shortcode {v} approved for 2FA traffic",
        ],
    )
    B["utm_tracking_link"] = (
        lambda: (
            f"https://{r(LOW, 6)}.com/pricing?utm_source=zendesk&utm_medium=macro&utm_campaign=winback_{r(LOW + DIG, 8)}"
        ),
        [
            "macro link: {v}",
            "CS newsletter CTA -> {v}",
            "link sent to {fn}: {v}",
        ],
    )
    B["csat_survey_id"] = (
        lambda: "srv_" + r(LOW + DIG, 16),
        [
            "CSAT survey {v} results: 4.6 avg",
            "NPS survey {v} sent to 1,200 customers",
            "survey template {v} needs a Spanish version",
        ],
    )
    B["impersonation_audit_entry"] = (
        lambda: "imp_" + r(LOW + DIG, 20),
        [
            "audit log: {fn} impersonated account {t} for 12 min, entry {v}, reason 'billing bug'",
            "impersonation session {v} ended; customer notified per policy",
            "compliance wants every login-as reference like {v} linked to a ticket",
        ],
    )
    B["api_key_rotation_note"] = (
        lambda: rng.choice(
            [
                "ZENDESK_API_TOKEN",
                "TWILIO_AUTH_TOKEN",
                "INTERCOM_ACCESS_TOKEN",
                "HUBSPOT_ACCESS_TOKEN",
            ]
        ),
        [
            "rotate {v} quarterly; next on Jan 15, owner {fn}",
            "{v} is set in the helm values from the sealed secret, never in the repo",
            "reminder: after the offboarding, regenerate {v} and update the CI",
        ],
    )

    rows = []
    for label, table in (("secret", S), ("benign", B)):
        for kind, (gen, templates) in table.items():
            for tpl in templates:
                c = ctx()
                v = gen()
                if "{dom}" in v:
                    v = v.replace("{dom}", c["dom"])
                extra = {
                    "sid": r(HEX, 32),
                    "k8": r(LOW + DIG, 8),
                    "k8h": r(HEX, 8),
                    "k8l": r(LOW + DIG, 8),
                    "k14": r(ALNUM, 14),
                    "k16u": r(UP + DIG, 16),
                    "k18": r(UP + DIG, 18),
                    "u": uuid(),
                }
                text = tpl.format(v=v, **c, **extra)
                assert v in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    return rows


def main() -> None:
    lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in corpus()]
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as out:
            out.writelines(lines)
    else:
        sys.stdout.writelines(lines)


if __name__ == "__main__":
    main()

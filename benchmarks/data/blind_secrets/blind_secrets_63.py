# ruff: noqa: E501
"""Blind secret-detector corpus 63: nonprofit volunteer tech team.

Brief: memory notes of a nonprofit's volunteer tech team - donation platforms and payment processors (Stripe, PayPal, Braintree, Square, Donorbox, Blackbaud), CRM (Salesforce NPSP, CiviCRM), mailing-list tools (Mailchimp, Mandrill, SendGrid, Mailgun, Brevo, Action Network), Google Workspace for Nonprofits, WordPress and form plugins, shared social-media logins, event ticketing, a volunteer-run Discord and Slack, grant portals; look-alikes are donor ids, campaign codes, charity numbers, tracking ids, record ids, public keys, placeholders and vault references.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_63.py [out.jsonl]

Kinds, secret: stripe_secret_key, stripe_restricted_key, stripe_webhook_secret, paypal_client_secret, braintree_private_key, braintree_access_token, square_access_token, donorbox_api_key, blackbaud_sky_subscription_key, salesforce_password_with_security_token, salesforce_session_id, salesforce_consumer_secret, civicrm_site_key, civicrm_dsn, civicrm_checksum_link, mailchimp_api_key, mandrill_api_key, sendgrid_api_key, mailgun_api_key, brevo_api_key, action_network_api_key, google_workspace_password, google_service_account_private_key, google_oauth_client_secret, google_api_key_unrestricted, google_app_password, wordpress_admin_password, wordpress_auth_salt, wordpress_db_password, wordpress_application_password, shared_social_login, facebook_page_access_token, twitter_bearer_token, eventbrite_private_token, discord_bot_token, discord_webhook_url, slack_bot_token, slack_webhook_url, slack_user_token, grant_portal_password, database_url_with_password, openssh_private_key, aws_secret_access_key, twilio_auth_token, github_token, zoom_client_secret, twofa_backup_codes, totp_seed, basic_auth_url, airtable_personal_access_token, openai_api_key, office_wifi_password
Kinds, benign: stripe_publishable_key, stripe_docs_example_key, stripe_test_card_number, stripe_object_id, paypal_transaction_id, paypal_hosted_button_id, paypal_client_id_public, salesforce_record_id, salesforce_org_id, civicrm_contact_id, mailchimp_audience_id, google_analytics_id, google_tag_manager_id, meta_pixel_id, recaptcha_site_key, google_oauth_client_id, charity_registration_number, donor_id, campaign_code, git_commit_sha, file_sha256, uuid_identifier, eventbrite_event_id, discord_snowflake_id, discord_invite_link, slack_channel_id, placeholder_value, redacted_value, vault_reference, env_var_reference, aws_docs_example_key, ssh_public_key, x509_certificate, ssh_fingerprint, password_policy_text, revoked_token_stated_revoked, twilio_account_sid, grant_application_id, sam_uei, wp_nonce_in_url, utm_tracking_url, org_bank_details_public, bitcoin_donation_address, wordpress_password_hash, google_drive_file_id, google_calendar_id, shipping_tracking_number, donation_receipt_number, zoom_meeting_id_public, form_and_post_ids, mixed_public_ids_table
"""

import base64
import json
import random
import string
import sys

SEED = 6363

DIG = string.digits
HEX = "0123456789abcdef"
UHEX = "0123456789ABCDEF"
LOW = string.ascii_lowercase
UP = string.ascii_uppercase
B62 = string.digits + string.ascii_letters
B64URL = B62 + "-_"
B64 = B62 + "+/"
UPDIG = string.ascii_uppercase + string.digits
LOWDIG = string.ascii_lowercase + string.digits
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

WORDS = [
    "hope",
    "sunflower",
    "harvest",
    "kindness",
    "lantern",
    "maple",
    "riverbend",
    "giving",
    "community",
    "pantry",
    "shelter",
    "orchard",
    "compass",
    "beacon",
    "meadow",
    "volunteer",
    "tuesday",
    "pelican",
]
SYMS = "!#$%&*?@"


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows: list[dict] = []

    def s(alpha, n):
        return "".join(rng.choice(alpha) for _ in range(n))

    def human_pw():
        w = rng.choice(WORDS)
        style = rng.randrange(4)
        if style == 0:
            return w.capitalize() + str(rng.randrange(10, 100)) + rng.choice(SYMS)
        if style == 1:
            return w.capitalize() + rng.choice(SYMS) + str(rng.randrange(2015, 2027))
        if style == 2:
            return w + rng.choice(WORDS).capitalize() + str(rng.randrange(1, 10)) + rng.choice(SYMS)
        return rng.choice(SYMS) + w.capitalize() + str(rng.randrange(100, 1000))

    def gen_pw(n=None):
        n = n or rng.randrange(14, 21)
        while True:
            p = s(B62 + "!#%&*+-=?@^_", n)
            if any(c.isdigit() for c in p) and any(c.isupper() for c in p):
                return p

    def pem_body(lines, first=""):
        body = first + s(B64, 64 * lines - len(first))
        return "\n".join(body[i : i + 64] for i in range(0, len(body), 64))

    def add(label, kind, items):
        for text, value in items:
            rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def sec(kind, *items):
        add("secret", kind, items)

    def ben(kind, *items):
        add("benign", kind, items)

    # ------------------------------------------------------------------ secrets
    v = [
        "sk_live_" + s(B62, 24),
        "sk_live_51" + s(B62, 97),
        "sk_live_" + s(B62, 24),
        "sk_live_51" + s(B62, 97),
    ]
    sec(
        "stripe_secret_key",
        (f"Stripe live secret for the donate page (rotated after the gala): {v[0]}", v[0]),
        (f"STRIPE_SECRET_KEY={v[1]}", v[1]),
        (
            f"curl https://api.stripe.com/v1/charges -u {v[2]}: -d limit=5   # check last night's donations",
            v[2],
        ),
        (f"[chat paste] Dana: here u go, dont share\n{v[3]}", v[3]),
    )

    v = [
        "rk_live_" + s(B62, 24),
        "rk_live_51" + s(B62, 97),
        "rk_live_" + s(B62, 24),
        "rk_live_" + s(B62, 24),
    ]
    sec(
        "stripe_restricted_key",
        (f"Restricted key for the Zapier -> NPSP sync (read charges only): {v[0]}", v[0]),
        (f"give-wp stripe addon > settings > restricted key: {v[1]}", v[1]),
        (f"| stripe | restricted (reports) | {v[2]} | owner: treasurer |", v[2]),
        (f"La clave restringida de Stripe para el informe mensual es {v[3]}", v[3]),
    )

    v = ["whsec_" + s(B62, 32) for _ in range(4)]
    sec(
        "stripe_webhook_secret",
        (f"webhook signing secret for /wp-json/givewp/stripe-webhook -> {v[0]}", v[0]),
        (f'STRIPE_WEBHOOK_SECRET="{v[1]}"', v[1]),
        (
            f"stripe listen output said 'Your webhook signing secret is {v[2]}' - that one is for prod endpoint actually, not local",
            v[2],
        ),
        (f"endpoint we_1 (donation.succeeded) signing secret\n{v[3]}", v[3]),
    )

    v = ["E" + s(B64URL, 79) for _ in range(4)]
    cid = ["A" + s(B64URL, 79) for _ in range(4)]
    sec(
        "paypal_client_secret",
        (f"PayPal REST live app 'Donate2025': client id {cid[0]} secret {v[0]}", v[0]),
        (f"PAYPAL_CLIENT_ID={cid[1]}\nPAYPAL_CLIENT_SECRET={v[1]}", v[1]),
        (
            f'curl -v https://api-m.paypal.com/v1/oauth2/token -u "{cid[2]}:{v[2]}" -d grant_type=client_credentials',
            v[2],
        ),
        (f"Secret du compte PayPal de l'asso (app live) : {v[3]}", v[3]),
    )

    v = [s(HEX, 32) for _ in range(4)]
    sec(
        "braintree_private_key",
        (
            f"Braintree prod: merchant id {s(LOWDIG, 16)}, public key {s(LOWDIG, 16)}, private key {v[0]}",
            v[0],
        ),
        (f"BRAINTREE_PRIVATE_KEY={v[1]}", v[1]),
        (
            f"braintree:\n  environment: production\n  merchant_id: {s(LOWDIG, 16)}\n  private_key: {v[2]}",
            v[2],
        ),
        (
            f"the private key for braintree (the gala auction one) is {v[3]}, public key is in the shared doc",
            v[3],
        ),
    )

    v = [f"access_token$production${s(LOWDIG, 16)}${s(HEX, 32)}" for _ in range(4)]
    sec(
        "braintree_access_token",
        (f"PayPal-via-Braintree access token for the donate form: {v[0]}", v[0]),
        (f"BT_ACCESS_TOKEN='{v[1]}'", v[1]),
        (f'gateway = braintree.BraintreeGateway(access_token="{v[2]}")', v[2]),
        (f"handover from Sam: braintree token\n{v[3]}", v[3]),
    )

    v = ["EAAA" + s(B64URL, 60) for _ in range(4)]
    sec(
        "square_access_token",
        (f"Square prod access token (merch table at events): {v[0]}", v[0]),
        (f"curl https://connect.squareup.com/v2/locations -H 'Authorization: Bearer {v[1]}'", v[1]),
        (f"SQUARE_ACCESS_TOKEN={v[2]}", v[2]),
        (f"Square POS app token for the bake sale reader - {v[3]} (production, not sandbox)", v[3]),
    )

    v = [s(B62, 40) for _ in range(4)]
    sec(
        "donorbox_api_key",
        (f"Donorbox API: login treasurer@riverbendfoodbank.org, API key {v[0]}", v[0]),
        (
            f"curl --user treasurer@riverbendfoodbank.org:{v[1]} https://donorbox.org/api/v1/donations",
            v[1],
        ),
        (f"DONORBOX_API_KEY={v[2]}", v[2]),
        (f"| donorbox | api key | {v[3]} | generated by Priya, Mar |", v[3]),
    )

    v = [s(HEX, 32) for _ in range(4)]
    sec(
        "blackbaud_sky_subscription_key",
        (f"SKY API primary subscription key (Raiser's Edge NXT export): {v[0]}", v[0]),
        (
            f'curl https://api.sky.blackbaud.com/constituent/v1/constituents -H "Bb-Api-Subscription-Key: {v[1]}" -H "Authorization: Bearer $TOKEN"',
            v[1],
        ),
        (f"BB_SUBSCRIPTION_KEY={v[2]}", v[2]),
        (
            f"Blackbaud dev portal -> my subscriptions -> primary key {v[3]} (secondary not used)",
            v[3],
        ),
    )

    v = []
    for _ in range(4):
        v.append((human_pw(), s(B62, 24)))
    sec(
        "salesforce_password_with_security_token",
        (
            f"NPSP integration user: integration@riverbend.org / pw {v[0][0]} + security token {v[0][1]}",
            v[0][1],
        ),
        (
            f"SF_USERNAME=integration@riverbend.org\nSF_PASSWORD={v[1][0]}{v[1][1]}",
            v[1][0] + v[1][1],
        ),
        (
            f"for dataloader you paste password+token together: {v[2][0]}{v[2][1]}",
            v[2][0] + v[2][1],
        ),
        (f"new security token emailed after reset: {v[3][1]}", v[3][1]),
    )

    v = ["00D" + s(B62, 12) + "!" + s(B62 + "._", 96) for _ in range(4)]
    sec(
        "salesforce_session_id",
        (f"sf session for the import, valid till EOD: {v[0]}", v[0]),
        (
            f"curl https://riverbend.my.salesforce.com/services/data/v60.0/query?q=SELECT+Id+FROM+Contact -H 'Authorization: Bearer {v[1]}'",
            v[1],
        ),
        (f"sfdx force:org:display gave access token {v[2]}", v[2]),
        (f"SF_ACCESS_TOKEN={v[3]}", v[3]),
    )

    v = [s(UHEX, 64) for _ in range(4)]
    sec(
        "salesforce_consumer_secret",
        (
            f"Connected app 'Mailchimp Sync' consumer key 3MVG9{s(B62 + '._', 80)} consumer secret {v[0]}",
            v[0],
        ),
        (f"SF_CLIENT_SECRET={v[1]}", v[1]),
        (f"| SF connected app | Form Assembly | secret {v[2]} |", v[2]),
        (f"Consumer Secret der Salesforce-App (Formulare): {v[3]}", v[3]),
    )

    v = [s(B62, 40) for _ in range(4)]
    sec(
        "civicrm_site_key",
        (
            f"if ( !defined( 'CIVICRM_SITE_KEY' ) ) {{ define( 'CIVICRM_SITE_KEY', '{v[0]}'); }}",
            v[0],
        ),
        (
            f"cron URL for civimail: https://crm.riverbend.org/civicrm/cron?key={v[1]}&name=cronuser&pass="
            + (pw := human_pw()),
            v[1],
        ),
        (f"civicrm site key (needed for the REST calls together with api_key) = {v[2]}", v[2]),
        (f"CIVICRM_SITE_KEY: {v[3]}", v[3]),
    )
    _ = pw

    v = [human_pw(), gen_pw(), human_pw(), gen_pw()]
    sec(
        "civicrm_dsn",
        (
            f"define( 'CIVICRM_DSN', 'mysql://civi_user:{v[0]}@localhost/civicrm?new_link=true' );",
            v[0],
        ),
        (
            f"define('CIVICRM_UF_DSN', 'mysql://wp_civi:{v[1]}@db.internal:3306/wordpress?new_link=true');",
            v[1],
        ),
        (f"civi db creds: user civi_user pass {v[2]} (mysql on the same droplet)", v[2]),
        (f"mysqldump -u civi_user -p'{v[3]}' civicrm > civi_$(date +%F).sql", v[3]),
    )

    v = [s(HEX, 32) + "_" + str(rng.randrange(1700000000, 1800000000)) + "_inf" for _ in range(4)]
    sec(
        "civicrm_checksum_link",
        (
            f"personalised renewal link for the Hendersons (opens their contact form, no login): https://crm.riverbend.org/civicrm/profile/edit?gid=12&reset=1&id={rng.randrange(1000, 99999)}&cs={v[0]}",
            v[0],
        ),
        (
            f"cs={v[1]} <- checksum for contact {rng.randrange(1000, 99999)}, lets them update the standing order",
            v[1],
        ),
        (
            f"test the checksum link yourself: https://crm.riverbend.org/civicrm/contribute/transact?reset=1&id=3&cid={rng.randrange(1000, 99999)}&cs={v[2]}",
            v[2],
        ),
        (f"checksum (inf expiry, oops) {v[3]}", v[3]),
    )

    v = [s(HEX, 32) + "-us" + str(rng.randrange(1, 22)) for _ in range(4)]
    sec(
        "mailchimp_api_key",
        (f"Mailchimp API key (newsletter + NPSP sync): {v[0]}", v[0]),
        (f"MAILCHIMP_API_KEY={v[1]}", v[1]),
        (
            f"curl -u anystring:{v[2]} https://{v[2].split('-')[1]}.api.mailchimp.com/3.0/lists",
            v[2],
        ),
        (f"mc key\n{v[3]}", v[3]),
    )

    v = ["md-" + s(B64URL, 22) for _ in range(4)]
    sec(
        "mandrill_api_key",
        (f"Mandrill (Mailchimp Transactional) key for donation receipts: {v[0]}", v[0]),
        (f"MANDRILL_KEY={v[1]}", v[1]),
        (f"wp-mail-smtp -> mailer: Mandrill, password field = {v[2]}", v[2]),
        (f"receipts key md: {v[3]} ok?", v[3]),
    )

    v = ["SG." + s(B64URL, 22) + "." + s(B64URL, 43) for _ in range(4)]
    sec(
        "sendgrid_api_key",
        (f"SendGrid full-access key used by the event reminder script: {v[0]}", v[0]),
        (f"SENDGRID_API_KEY={v[1]}", v[1]),
        (f"smtp.sendgrid.net:587 user apikey pass {v[2]}", v[2]),
        (
            f"curl -X POST https://api.sendgrid.com/v3/mail/send -H \"Authorization: Bearer {v[3]}\" -H 'Content-Type: application/json' -d @mail.json",
            v[3],
        ),
    )

    v = [
        "key-" + s(HEX, 32),
        s(HEX, 32) + "-" + s(HEX, 8) + "-" + s(HEX, 8),
        "key-" + s(HEX, 32),
        s(HEX, 32) + "-" + s(HEX, 8) + "-" + s(HEX, 8),
    ]
    sec(
        "mailgun_api_key",
        (f"mailgun private key (mg.riverbend.org): {v[0]}", v[0]),
        (
            f"curl -s --user 'api:{v[1]}' https://api.mailgun.net/v3/mg.riverbend.org/messages -F from=...",
            v[1],
        ),
        (f"MAILGUN_API_KEY={v[2]}", v[2]),
        (f"Mailgun-Sending-Key für das Spendenformular: {v[3]}", v[3]),
    )

    v = ["xkeysib-" + s(HEX, 64) + "-" + s(B62, 16) for _ in range(4)]
    sec(
        "brevo_api_key",
        (f"Brevo (ex Sendinblue) v3 key for the FR chapter list: {v[0]}", v[0]),
        (f"BREVO_API_KEY={v[1]}", v[1]),
        (f"curl https://api.brevo.com/v3/contacts -H 'api-key: {v[2]}'", v[2]),
        (f"Clé API Brevo de l'antenne de Lyon : {v[3]}", v[3]),
    )

    v = [s(HEX, 32) for _ in range(4)]
    sec(
        "action_network_api_key",
        (f"Action Network API key (petition sync): {v[0]}", v[0]),
        (f"curl https://actionnetwork.org/api/v2/people -H 'OSDI-API-Token: {v[1]}'", v[1]),
        (f"AN_API_TOKEN={v[2]}", v[2]),
        (f"| action network | osdi token | {v[3]} | campaigns team |", v[3]),
    )

    v = [human_pw(), human_pw(), gen_pw(), human_pw()]
    sec(
        "google_workspace_password",
        (f"info@riverbendfoodbank.org password is {v[0]} - 2FA goes to the office phone", v[0]),
        (f"new volunteer accounts get temp pw {v[1]} and must change on first login", v[1]),
        (f"| Google Workspace super admin | admin@riverbend.org | {v[2]} |", v[2]),
        (f"La contraseña de voluntarios@riverbend.org es {v[3]}", v[3]),
    )

    v = []
    for _i in range(4):
        body = pem_body(26, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
        key = "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n"
        v.append(key)
    j0 = json.dumps(v[0])[1:-1]
    j1 = json.dumps(v[1])[1:-1]
    sec(
        "google_service_account_private_key",
        (
            "service account for the Sheets donor dashboard, key file contents:\n"
            + json.dumps(
                {
                    "type": "service_account",
                    "project_id": "riverbend-dashboards",
                    "private_key_id": s(HEX, 40),
                    "private_key": v[0],
                    "client_email": "sheets-sync@riverbend-dashboards.iam.gserviceaccount.com",
                    "client_id": s(DIG, 21),
                    "token_uri": "https://oauth2.googleapis.com/token",
                },
                indent=2,
            ),
            j0,
        ),
        (
            '{"type": "service_account", "project_id": "npsp-backup", "private_key": "'
            + j1
            + '", "client_email": "backup@npsp-backup.iam.gserviceaccount.com"}',
            j1,
        ),
        ("GA4 export SA key (the PEM part):\n" + v[2], v[2]),
        ("pasted from the downloaded json, private_key only\n" + v[3].strip(), v[3].strip()),
    )

    v = ["GOCSPX-" + s(B64URL, 28) for _ in range(4)]
    sec(
        "google_oauth_client_secret",
        (f"OAuth client for the volunteer sign-in (WP plugin): client secret {v[0]}", v[0]),
        (f"GOOGLE_CLIENT_SECRET={v[1]}", v[1]),
        (
            f'"installed":{{"client_id":"{s(DIG, 12)}-{s(LOWDIG, 32)}.apps.googleusercontent.com","client_secret":"{v[2]}","redirect_uris":["http://localhost"]}}',
            v[2],
        ),
        (f"Nextcloud social login google secret {v[3]}", v[3]),
    )

    v = ["AIza" + s(B64URL, 35) for _ in range(4)]
    sec(
        "google_api_key_unrestricted",
        (f"Server-side Sheets API key for the donor export cron, NOT restricted yet: {v[0]}", v[0]),
        (f"GOOGLE_API_KEY={v[1]}  # unrestricted, billing on the nonprofit card", v[1]),
        (
            f"curl 'https://sheets.googleapis.com/v4/spreadsheets/{s(B64URL, 44)}/values/A1:F200?key={v[2]}'",
            v[2],
        ),
        (f"Gemini key for the grant-writing helper (server only!) {v[3]}", v[3]),
    )

    v = [" ".join(s(LOW, 4) for _ in range(4)) for _ in range(2)] + [s(LOW, 16) for _ in range(2)]
    sec(
        "google_app_password",
        (f"App password for the scanner to email PDFs from office@riverbend.org: {v[0]}", v[0]),
        (
            f'Thunderbird on the front desk PC uses the app password "{v[1]}" (not the real gmail pw)',
            v[1],
        ),
        (f"SMTP_USER=receipts@riverbend.org\nSMTP_PASS={v[2]}", v[2]),
        (f"gmail app pw for wp-mail-smtp: {v[3]}", v[3]),
    )

    v = [human_pw(), gen_pw(), human_pw(), human_pw()]
    sec(
        "wordpress_admin_password",
        (f"WP admin: https://riverbend.org/wp-admin  user webteam  pw {v[0]}", v[0]),
        (f"| wordpress | admin | {v[1]} | change after Jo leaves |", v[1]),
        (f"wp user update webteam --user_pass='{v[2]}'  (ran on staging AND prod)", v[2]),
        (f"Jo: the wp login is webteam and {v[3]}", v[3]),
    )

    bad = "'\\"
    salt_alpha = "".join(
        c for c in string.ascii_letters + string.digits + string.punctuation if c not in bad
    )
    v = [s(salt_alpha, 64) for _ in range(4)]
    sec(
        "wordpress_auth_salt",
        (f"define( 'AUTH_KEY',         '{v[0]}' );", v[0]),
        (f"define('SECURE_AUTH_SALT', '{v[1]}');", v[1]),
        (f"wp-config on prod, LOGGED_IN_KEY = '{v[2]}'", v[2]),
        (f"define( 'NONCE_SALT', '{v[3]}' );", v[3]),
    )

    v = [human_pw(), gen_pw(), gen_pw(), human_pw()]
    sec(
        "wordpress_db_password",
        (f"define( 'DB_PASSWORD', '{v[0]}' );", v[0]),
        (f"wp db: riverbend_wp / wpuser / {v[1]} on localhost", v[1]),
        (f"WORDPRESS_DB_PASSWORD={v[2]}", v[2]),
        (f"mysql -u wpuser -p{v[3]} riverbend_wp -e 'select count(*) from wp_gf_entry'", v[3]),
    )

    v = [" ".join(s(B62, 4) for _ in range(6)) for _ in range(3)] + [s(B62, 24)]
    sec(
        "wordpress_application_password",
        (f"Application password 'zapier-gravityforms' for user webteam: {v[0]}", v[0]),
        (f'curl --user "webteam:{v[1]}" https://riverbend.org/wp-json/gf/v2/entries', v[1]),
        (f"WP app pw for the n8n flow -> {v[2]}", v[2]),
        (f"WP_APP_PASSWORD={v[3]}", v[3]),
    )

    v = [human_pw() for _ in range(5)]
    sec(
        "shared_social_login",
        (f"Instagram @riverbendfoodbank login: riverbendfoodbank / {v[0]}", v[0]),
        (f"FB page admin account (shared) comms@riverbend.org pass {v[1]}", v[1]),
        (f"| TikTok | riverbend_fb | {v[2]} | codes go to Mia's phone |", v[2]),
        (f"linkedin company page is managed from the shared login, pw {v[3]}", v[3]),
        (f"La contraseña de Instagram del banco de alimentos es {v[4]}", v[4]),
    )

    v = [
        "EAA" + rng.choice(["B", "G", "J", "I"]) + s(B62, rng.randrange(160, 200)) for _ in range(4)
    ]
    sec(
        "facebook_page_access_token",
        (f"Never-expiring page token for the FB fundraiser importer: {v[0]}", v[0]),
        (f"FB_PAGE_TOKEN={v[1]}", v[1]),
        (f"curl -G https://graph.facebook.com/v19.0/me/feed -d access_token={v[2]}", v[2]),
        (f"meta page token from graph explorer\n{v[3]}", v[3]),
    )

    v = ["A" * 22 + s(B62, 24) + "%3D" + s(B62, 50) for _ in range(4)]
    sec(
        "twitter_bearer_token",
        (f"X/Twitter API bearer (the auto-post bot): {v[0]}", v[0]),
        (f"TWITTER_BEARER_TOKEN={v[1]}", v[1]),
        (
            f'curl https://api.twitter.com/2/tweets/search/recent?query=%23GivingTuesday -H "Authorization: Bearer {v[2]}"',
            v[2],
        ),
        (f"bearer for x.com bot\n{v[3]}", v[3]),
    )

    v = [s(UPDIG, 20) for _ in range(4)]
    sec(
        "eventbrite_private_token",
        (f"Eventbrite private token (attendee export for the 5k): {v[0]}", v[0]),
        (f"curl https://www.eventbriteapi.com/v3/users/me/?token={v[1]}", v[1]),
        (f"EVENTBRITE_TOKEN={v[2]}", v[2]),
        (f"Eventbrite: Account settings > Developer links > API keys > private token {v[3]}", v[3]),
    )

    v = []
    for _ in range(4):
        uid = str(rng.randrange(10**17, 13 * 10**17))
        v.append(
            base64.b64encode(uid.encode()).decode().rstrip("=")
            + "."
            + s(B64URL, 6)
            + "."
            + s(B64URL, 38)
        )
    sec(
        "discord_bot_token",
        (f"PantryBot discord token: {v[0]}", v[0]),
        (f"DISCORD_TOKEN={v[1]}", v[1]),
        (f'client.run("{v[2]}")  # TODO env var', v[2]),
        (f"[#tech-volunteers] reset the bot token, new one is {v[3]}", v[3]),
    )

    v = [
        f"https://discord.com/api/webhooks/{rng.randrange(10**17, 13 * 10**17)}/{s(B64URL, 68)}"
        for _ in range(4)
    ]
    sec(
        "discord_webhook_url",
        (f"Donation alerts go to #wins via {v[0]}", v[0]),
        (f"DISCORD_WEBHOOK={v[1]}", v[1]),
        (
            f"curl -H 'Content-Type: application/json' -d '{{\"content\":\"new donor!\"}}' {v[2]}",
            v[2],
        ),
        (f"webhook für den Discord-Kanal #schichtplan: {v[3]}", v[3]),
    )

    v = [
        f"xoxb-{rng.randrange(10**10, 10**12)}-{rng.randrange(10**12, 10**13)}-{s(B62, 24)}"
        for _ in range(4)
    ]
    sec(
        "slack_bot_token",
        (f"Slack bot token for the shift-reminder app: {v[0]}", v[0]),
        (f"SLACK_BOT_TOKEN={v[1]}", v[1]),
        (f"curl -H 'Authorization: Bearer {v[2]}' https://slack.com/api/conversations.list", v[2]),
        (f"bot user oauth token\n{v[3]}", v[3]),
    )

    v = [
        f"https://hooks.slack.com/services/T{s(UPDIG, 10)}/B{s(UPDIG, 10)}/{s(B62, 24)}"
        for _ in range(4)
    ]
    sec(
        "slack_webhook_url",
        (f"Gravity Forms volunteer signups -> #new-volunteers: {v[0]}", v[0]),
        (f"SLACK_WEBHOOK_URL={v[1]}", v[1]),
        (f'curl -X POST -d \'payload={{"text":"backup done"}}\' {v[2]}', v[2]),
        (f"| slack | incoming webhook #donations | {v[3]} |", v[3]),
    )

    v = [
        f"xoxp-{rng.randrange(10**10, 10**12)}-{rng.randrange(10**10, 10**12)}-{rng.randrange(10**12, 10**13)}-{s(HEX, 32)}"
        for _ in range(4)
    ]
    sec(
        "slack_user_token",
        (f"my user token (needed for the channel export script): {v[0]}", v[0]),
        (f"SLACK_USER_TOKEN={v[1]}", v[1]),
        (f"slack-export --token {v[2]} --out ./export", v[2]),
        (f"Kim's xoxp: {v[3]}", v[3]),
    )

    v = [human_pw(), gen_pw(), human_pw(), human_pw()]
    sec(
        "grant_portal_password",
        (f"Grants.gov login.gov acct grants@riverbend.org pw {v[0]} (EBiz POC is Pat)", v[0]),
        (f"Submittable (Community Foundation portal): grants@riverbend.org / {v[1]}", v[1]),
        (f"| Fluxx - state arts council | grants@riverbend.org | {v[2]} |", v[2]),
        (f"for the county grant portal use our shared login, the password is {v[3]}", v[3]),
    )

    v = [gen_pw(), human_pw(), gen_pw(), human_pw()]
    sec(
        "database_url_with_password",
        (f"DATABASE_URL=postgres://volunteers:{v[0]}@db.riverbend.internal:5432/shifts", v[0]),
        (f"metabase connects to mysql://reporting:{v[1]}@10.0.3.12:3306/civicrm", v[1]),
        (
            f"psql 'postgresql://admin:{v[2]}@shifts-db.cluster.us-east-1.rds.amazonaws.com/shifts'",
            v[2],
        ),
        (f"mongodb+srv://eventsapp:{v[3]}@cluster0.{s(LOWDIG, 5)}.mongodb.net/tickets", v[3]),
    )

    v = []
    for _ in range(4):
        body = pem_body(6, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW")
        v.append(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "\n-----END OPENSSH PRIVATE KEY-----"
        )
    sec(
        "openssh_private_key",
        ("deploy key for the WP droplet (id_ed25519):\n" + v[0], v[0]),
        ("in case the laptop dies, here's the backup server key\n\n" + v[1] + "\n", v[1]),
        (
            "cat > ~/.ssh/riverbend_deploy <<'EOF'\n"
            + v[2]
            + "\nEOF\nchmod 600 ~/.ssh/riverbend_deploy",
            v[2],
        ),
        ("ssh key für den Webserver:\n" + v[3], v[3]),
    )

    v = [s(B64, 40) for _ in range(4)]
    ak = ["AKIA" + s(UPDIG, 16) for _ in range(4)]
    sec(
        "aws_secret_access_key",
        (f"S3 bucket riverbend-civi-backups: access key {ak[0]} secret {v[0]}", v[0]),
        (f"[backup]\naws_access_key_id = {ak[1]}\naws_secret_access_key = {v[1]}", v[1]),
        (
            f"AWS_ACCESS_KEY_ID={ak[2]} AWS_SECRET_ACCESS_KEY={v[2]} aws s3 sync ./exports s3://riverbend-civi-backups",
            v[2],
        ),
        (f"| aws | backup-bot | {ak[3]} | {v[3]} |", v[3]),
    )

    v = [s(HEX, 32) for _ in range(4)]
    sid = ["AC" + s(HEX, 32) for _ in range(4)]
    sec(
        "twilio_auth_token",
        (f"Twilio (text-to-give + shift SMS): SID {sid[0]}, auth token {v[0]}", v[0]),
        (f"TWILIO_ACCOUNT_SID={sid[1]}\nTWILIO_AUTH_TOKEN={v[1]}", v[1]),
        (
            f"curl -X POST https://api.twilio.com/2010-04-01/Accounts/{sid[2]}/Messages.json -u {sid[2]}:{v[2]} --data-urlencode 'Body=Shift tomorrow 9am'",
            v[2],
        ),
        (f"twilio token {v[3]} (primary)", v[3]),
    )

    v = [
        "ghp_" + s(B62, 36),
        "github_pat_11" + s(UPDIG, 20) + "_" + s(B62, 59),
        "ghp_" + s(B62, 36),
        "github_pat_11" + s(UPDIG, 20) + "_" + s(B62, 59),
    ]
    sec(
        "github_token",
        (f"PAT for pushing the theme to riverbend/wp-theme: {v[0]}", v[0]),
        (f"GH_TOKEN={v[1]}", v[1]),
        (f"git clone https://webteam:{v[2]}@github.com/riverbend/volunteer-portal.git", v[2]),
        (f"fine-grained token (contents rw, expires Jun)\n{v[3]}", v[3]),
    )

    v = [s(B62, 32) for _ in range(4)]
    sec(
        "zoom_client_secret",
        (
            f"Zoom server-to-server app (webinar registrants -> CRM): account id {s(B64URL, 22)}, client id {s(B64URL, 22)}, client secret {v[0]}",
            v[0],
        ),
        (f"ZOOM_CLIENT_SECRET={v[1]}", v[1]),
        (
            f"curl -X POST 'https://zoom.us/oauth/token?grant_type=account_credentials&account_id={s(B64URL, 22)}' -u '{s(B64URL, 22)}:{v[2]}'",
            v[2],
        ),
        (f"zoom s2s secret: {v[3]}", v[3]),
    )

    v = []
    for _ in range(4):
        v.append(
            "\n".join(
                f"{rng.randrange(1000, 10000)} {rng.randrange(1000, 10000)}" for _ in range(5)
            )
        )
    sec(
        "twofa_backup_codes",
        ("Backup codes for admin@riverbend.org (each works once):\n" + v[0], v[0]),
        ("instagram 2FA recovery codes - keep these for when Mia is away\n" + v[1], v[1]),
        ("Google backup verification codes, info@ account\n" + v[2], v[2]),
        ("Códigos de respaldo de la cuenta de Facebook de la ONG:\n" + v[3], v[3]),
    )

    v = [s(B32, 32) for _ in range(4)]
    sec(
        "totp_seed",
        (f"otpauth://totp/Stripe:treasurer@riverbend.org?secret={v[0]}&issuer=Stripe", v[0]),
        (f"TOTP seed for the shared PayPal login (add to your authenticator): {v[1]}", v[1]),
        (
            f"if the 2fa phone is lost, the setup key for the FB business manager was {' '.join(v[2][i : i + 4] for i in range(0, 32, 4))}",
            " ".join(v[2][i : i + 4] for i in range(0, 32, 4)),
        ),
        (f"| WP admin 2FA (Wordfence) | secret | {v[3]} |", v[3]),
    )

    v = [human_pw(), gen_pw(), human_pw(), gen_pw()]
    sec(
        "basic_auth_url",
        (f"staging site is behind basic auth: https://preview:{v[0]}@staging.riverbend.org", v[0]),
        (f"curl -u editor:{v[1]} https://staging.riverbend.org/wp-json/wp/v2/posts", v[1]),
        (f"grafana at https://admin:{v[2]}@status.riverbend.org/", v[2]),
        (f"htpasswd user 'board' pw '{v[3]}' for the board-docs page", v[3]),
    )

    v = ["pat" + s(B62, 14) + "." + s(HEX, 64) for _ in range(4)]
    sec(
        "airtable_personal_access_token",
        (f"Airtable PAT (volunteer roster base): {v[0]}", v[0]),
        (f"AIRTABLE_TOKEN={v[1]}", v[1]),
        (
            f"curl https://api.airtable.com/v0/app{s(B62, 14)}/Volunteers -H 'Authorization: Bearer {v[2]}'",
            v[2],
        ),
        (f"airtable token for the food-drive sign-up sheet\n{v[3]}", v[3]),
    )

    v = [
        "sk-proj-" + s(B64URL, 48) + "T3BlbkFJ" + s(B64URL, 48),
        "sk-" + s(B62, 20) + "T3BlbkFJ" + s(B62, 20),
        "sk-proj-" + s(B64URL, 48) + "T3BlbkFJ" + s(B64URL, 48),
        "sk-" + s(B62, 20) + "T3BlbkFJ" + s(B62, 20),
    ]
    sec(
        "openai_api_key",
        (f"OpenAI key for the thank-you-letter drafting thing: {v[0]}", v[0]),
        (f"OPENAI_API_KEY={v[1]}", v[1]),
        (f'in the grant-helper colab: openai.api_key = "{v[2]}"', v[2]),
        (f"openai key (nonprofit credits) {v[3]}", v[3]),
    )

    v = [human_pw(), human_pw(), gen_pw(12), human_pw()]
    sec(
        "office_wifi_password",
        (f"Office wifi RiverbendStaff / {v[0]} (guest network is open)", v[0]),
        (f"warehouse router admin: http://192.168.1.1 admin / {v[1]}", v[1]),
        (f"WIFI:T:WPA;S:RiverbendStaff;P:{v[2]};;", v[2]),
        (f"El wifi del almacén: red RiverbendStaff, clave {v[3]}", v[3]),
    )

    # ------------------------------------------------------------------ benign
    v = [
        "pk_live_" + s(B62, 24),
        "pk_live_51" + s(B62, 97),
        "pk_live_" + s(B62, 24),
        "pk_live_51" + s(B62, 97),
    ]
    ben(
        "stripe_publishable_key",
        (
            f"Publishable key on the donate page (public, it's in the page source anyway): {v[0]}",
            v[0],
        ),
        (f"STRIPE_PUBLISHABLE_KEY={v[1]}", v[1]),
        (f"<script>const stripe = Stripe('{v[2]}');</script>", v[2]),
        (f"| stripe | publishable | {v[3]} | ok to share |", v[3]),
    )

    ben(
        "stripe_docs_example_key",
        (
            "Stripe docs use sk_test_4eC39HqLyjWDarjtT1zdp7dc in every example, don't confuse it with ours",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        ),
        (
            "copied from stripe.com/docs: curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        ),
        (
            "pk_test_TYooMQauvdEDq54NiTphI7jx is the docs' publishable test key",
            "pk_test_TYooMQauvdEDq54NiTphI7jx",
        ),
    )

    ben(
        "stripe_test_card_number",
        (
            "For test donations on staging use card 4242 4242 4242 4242, any future date, any CVC",
            "4242 4242 4242 4242",
        ),
        ("declined test: 4000000000000002 ; 3DS test: 4000002500003155", "4000000000000002"),
        (
            f"test card 4242424242424242 exp 12/{rng.randrange(27, 35)} cvc {rng.randrange(100, 1000)} (stripe test mode only)",
            "4242424242424242",
        ),
        (
            "Tarjeta de prueba de Stripe: 5555 5555 5555 4444 (Mastercard, solo modo test)",
            "5555 5555 5555 4444",
        ),
    )

    v = [
        "ch_3" + s(B62, 23),
        "pi_3" + s(B62, 23),
        "cus_" + s(B62, 14),
        "evt_1" + s(B62, 23),
        "acct_1" + s(B62, 15),
    ]
    ben(
        "stripe_object_id",
        (f"refund requested for charge {v[0]} (duplicate gala ticket)", v[0]),
        (f"payment_intent {v[1]} failed with card_declined, donor retried", v[1]),
        (f"monthly donor Mrs Okafor = Stripe customer {v[2]}", v[2]),
        (f"webhook failed on event {v[3]}, resent from dashboard", v[3]),
        (f"our connected account id is {v[4]}", v[4]),
    )

    v = [s(UPDIG, 17) for _ in range(4)]
    ben(
        "paypal_transaction_id",
        (f"PayPal txn {v[0]} - donor says it's a duplicate, refunded", v[0]),
        (f"| {v[1]} | $250.00 | Giving Tuesday | matched |", v[1]),
        (f"Transaction ID: {v[2]}", v[2]),
        (f"ID de transacción PayPal {v[3]}, donación anónima", v[3]),
    )

    v = [s(UPDIG, 13) for _ in range(4)]
    ben(
        "paypal_hosted_button_id",
        (f'<input type="hidden" name="hosted_button_id" value="{v[0]}">', v[0]),
        (f"donate button id for the newsletter footer: {v[1]}", v[1]),
        (f"https://www.paypal.com/donate/?hosted_button_id={v[2]}", v[2]),
        (f"old button {v[3]} (2019 appeal) still live on the blog", v[3]),
    )

    v = ["A" + s(B64URL, 79) for _ in range(3)]
    ben(
        "paypal_client_id_public",
        (
            f'<script src="https://www.paypal.com/sdk/js?client-id={v[0]}&currency=USD"></script>',
            v[0],
        ),
        (f"PayPal client ID (public, goes in the JS SDK tag): {v[1]}", v[1]),
        (f"PAYPAL_CLIENT_ID={v[2]}  # secret lives in Bitwarden", v[2]),
    )

    v = [
        "003" + s(B62, 15),
        "001" + s(B62, 15),
        "006" + s(B62, 12),
        "a0B" + s(B62, 15),
        "701" + s(B62, 15),
    ]
    ben(
        "salesforce_record_id",
        (f"Contact {v[0]} has two households, merge pending", v[0]),
        (f"https://riverbend.lightning.force.com/lightning/r/Account/{v[1]}/view", v[1]),
        (f"Opp {v[2]} stuck in 'Pledged'", v[2]),
        (f"| npe03__Recurring_Donation__c | {v[3]} | paused |", v[3]),
        (f"Spring appeal campaign record {v[4]}", v[4]),
    )

    v = ["00D" + s(UPDIG, 12) + s(B62, 3) for _ in range(3)]
    ben(
        "salesforce_org_id",
        (f"Our production org id (for Power of Us renewal form): {v[0]}", v[0]),
        (f"sandbox 'uat' org id {v[1]}", v[1]),
        (f"Org ID: {v[2]}", v[2]),
    )

    v = [str(rng.randrange(1000, 99999)) for _ in range(4)]
    ben(
        "civicrm_contact_id",
        (f"civicrm/contact/view?reset=1&cid={v[0]}", v[0]),
        (f"dupe of cid {v[1]}, merged", v[1]),
        (f"cv api4 Contact.get +w id={v[2]} +s display_name", v[2]),
        (f"contact {v[3]} asked to be removed from the mailing, done", v[3]),
    )

    v = [s(HEX, 10) for _ in range(4)]
    ben(
        "mailchimp_audience_id",
        (f"Mailchimp audience id (Newsletter main): {v[0]}", v[0]),
        (f"MC_LIST_ID={v[1]}", v[1]),
        (f"https://riverbend.us5.list-manage.com/subscribe/post?u={s(HEX, 25)}&id={v[2]}", v[2]),
        (f"campaign {v[3]} = Nov appeal email 2", v[3]),
    )

    v = [
        "G-" + s(UPDIG, 10),
        "UA-" + str(rng.randrange(10**7, 10**9)) + "-1",
        "G-" + s(UPDIG, 10),
        "G-" + s(UPDIG, 10),
    ]
    ben(
        "google_analytics_id",
        (f"GA4 measurement id {v[0]} (site kit shows it)", v[0]),
        (f"old universal analytics property {v[1]} is dead since 2023", v[1]),
        (f"gtag('config', '{v[2]}');", v[2]),
        (f"| GA4 | donate.riverbend.org | {v[3]} |", v[3]),
    )

    v = ["GTM-" + s(UPDIG, 7) for _ in range(3)]
    ben(
        "google_tag_manager_id",
        (f"GTM container {v[0]} is installed via the header plugin", v[0]),
        (
            f'<noscript><iframe src="https://www.googletagmanager.com/ns.html?id={v[1]}"></iframe></noscript>',
            v[1],
        ),
        (f"tag manager: {v[2]}", v[2]),
    )

    v = [str(rng.randrange(10**14, 10**16)) for _ in range(3)]
    ben(
        "meta_pixel_id",
        (f"Meta pixel id {v[0]} for the fundraiser ads", v[0]),
        (f"fbq('init', '{v[1]}');", v[1]),
        (f"Pixel-ID der Facebook-Werbung: {v[2]}", v[2]),
    )

    v = ["6L" + s(B64URL, 38) for _ in range(4)]
    ben(
        "recaptcha_site_key",
        (f"reCAPTCHA v3 site key for the gravity forms (public): {v[0]}", v[0]),
        (f'<div class="g-recaptcha" data-sitekey="{v[1]}"></div>', v[1]),
        (f"RECAPTCHA_SITE_KEY={v[2]}  # secret key is in Bitwarden, NOT here", v[2]),
        (f"hcaptcha/recaptcha site key {v[3]} (public by design)", v[3]),
    )

    v = [f"{s(DIG, 12)}-{s(LOWDIG, 32)}.apps.googleusercontent.com" for _ in range(3)]
    ben(
        "google_oauth_client_id",
        (f"OAuth client id (the volunteer sign-in button): {v[0]}", v[0]),
        (f"GOOGLE_CLIENT_ID={v[1]}", v[1]),
        (f'<meta name="google-signin-client_id" content="{v[2]}">', v[2]),
    )

    v = [
        str(rng.randrange(1000000, 1200000)),
        f"{rng.randrange(10, 99)}-{rng.randrange(1000000, 9999999)}",
        f"{rng.randrange(100000000, 999999999)}RR0001",
        "SC0" + str(rng.randrange(10000, 99999)),
        f"{rng.randrange(10, 99)}-{rng.randrange(1000000, 9999999)}",
    ]
    ben(
        "charity_registration_number",
        (f"Registered charity no. {v[0]} (England & Wales) - goes in every email footer", v[0]),
        (f"EIN {v[1]} - needed on the tax receipt template", v[1]),
        (f"CRA charitable registration number: {v[2]}", v[2]),
        (f"Scottish charity number {v[3]}", v[3]),
        (f"Numéro fiscal (EIN) de l'association américaine : {v[4]}", v[4]),
    )

    v = [f"DNR-{rng.randrange(2019, 2027)}-{rng.randrange(0, 999999):06d}" for _ in range(3)] + [
        str(rng.randrange(100000, 999999)),
        f"D{rng.randrange(10**7, 10**8)}",
    ]
    ben(
        "donor_id",
        (f"donor {v[0]} wants receipts by post only", v[0]),
        (f"| {v[1]} | major donor | steward: Pat |", v[1]),
        (f"merge {v[2]} into the older record", v[2]),
        (f"Donorbox donor id {v[3]} = the anonymous $5k", v[3]),
        (f"legacy RE constituent id {v[4]}", v[4]),
    )

    v = [
        f"FY{rng.randrange(24, 28)}-SPR-EM0{rng.randrange(1, 10)}",
        f"GT{rng.randrange(2023, 2027)}-{s(UP, 3)}",
        f"APL{rng.randrange(100, 999)}{s(UP, 2)}",
        f"EOY{rng.randrange(23, 28)}_DM_{s(UP, 2)}{rng.randrange(1, 9)}",
    ]
    ben(
        "campaign_code",
        (f"source code for the spring email appeal: {v[0]}", v[0]),
        (f"Giving Tuesday campaign code {v[1]} - use it in Salesforce AND in the utm", v[1]),
        (f"| appeal code | {v[2]} | direct mail | 4,200 pieces |", v[2]),
        (f"Code de campagne fin d'année : {v[3]}", v[3]),
    )

    v = [s(HEX, 40) for _ in range(4)]
    ben(
        "git_commit_sha",
        (f"theme fix for the donate button deployed at {v[0]}", v[0]),
        (f"git revert {v[1]}  # broke the gravity forms css", v[1]),
        (f"prod is on {v[2][:7]} (full {v[2]})", v[2]),
        (f"Merge commit {v[3]}", v[3]),
    )

    v = [s(HEX, 64) for _ in range(3)] + [s(HEX, 32)]
    ben(
        "file_sha256",
        (f"sha256 of donors_2025-03.csv.gpg: {v[0]}", v[0]),
        (f"{v[1]}  civicrm-5.75.0-wordpress.zip", v[1]),
        (f"checksum matches: {v[2]}", v[2]),
        (f"md5 of the export {v[3]} (just to make sure the upload wasn't truncated)", v[3]),
    )

    def uuid4():
        h = s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    v = [uuid4() for _ in range(4)]
    ben(
        "uuid_identifier",
        (f"Givebutter campaign uuid {v[0]}", v[0]),
        (f"form_id: {v[1]}", v[1]),
        (f"Zoom webinar registrant id {v[2]} bounced", v[2]),
        (f"request id {v[3]} in the error log for the failed donation", v[3]),
    )

    v = [str(rng.randrange(10**11, 10**12)) for _ in range(3)] + [str(rng.randrange(10**9, 10**10))]
    ben(
        "eventbrite_event_id",
        (f"5k fun run event id {v[0]}", v[0]),
        (f"https://www.eventbrite.com/e/riverbend-gala-tickets-{v[1]}", v[1]),
        (
            f'curl https://www.eventbriteapi.com/v3/events/{v[2]}/attendees/ -H "Authorization: Bearer $EVENTBRITE_TOKEN"',
            v[2],
        ),
        (f"Eventbrite order #{v[3]} needs a refund", v[3]),
    )

    v = [str(rng.randrange(10**17, 13 * 10**17)) for _ in range(4)]
    ben(
        "discord_snowflake_id",
        (f"guild id {v[0]} (Riverbend Volunteers server)", v[0]),
        (f"#shift-swaps channel id {v[1]}", v[1]),
        (f"ROLE_VERIFIED={v[2]}", v[2]),
        (f"PantryBot application id / client id: {v[3]} (public, used in the invite link)", v[3]),
    )

    v = ["https://discord.gg/" + s(B62, 8) for _ in range(3)]
    ben(
        "discord_invite_link",
        (f"Public invite for new volunteers (on the website): {v[0]}", v[0]),
        (f"join us on discord {v[1]} !", v[1]),
        (f"Enlace de invitación al Discord de voluntarios: {v[2]}", v[2]),
    )

    v = ["C0" + s(UPDIG, 9), "U0" + s(UPDIG, 9), "C0" + s(UPDIG, 9), "T0" + s(UPDIG, 8)]
    ben(
        "slack_channel_id",
        (f"#donations channel id {v[0]} (for the bot config)", v[0]),
        (f"Kim's slack user id {v[1]}", v[1]),
        (f"SLACK_CHANNEL={v[2]}", v[2]),
        (f"workspace/team id {v[3]}", v[3]),
    )

    ben(
        "placeholder_value",
        ("STRIPE_SECRET_KEY=<your-stripe-secret-key>", "<your-stripe-secret-key>"),
        (
            "define( 'DB_PASSWORD', 'changeme' );  # template, real one set by the installer",
            "changeme",
        ),
        ("MAILCHIMP_API_KEY=${MAILCHIMP_API_KEY}", "${MAILCHIMP_API_KEY}"),
        (
            "SLACK_BOT_TOKEN=xoxb-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx",
            "xoxb-xxxxxxxxxxxx-xxxxxxxxxxxx-xxxxxxxxxxxxxxxxxxxxxxxx",
        ),
        ("password: YOUR_PASSWORD_HERE", "YOUR_PASSWORD_HERE"),
        ("sendgrid key goes here -> SG.XXXXXXXX.XXXXXXXX", "SG.XXXXXXXX.XXXXXXXX"),
    )

    v = [
        "sk_live_" + "*" * 20 + s(B62, 4),
        s(B62, 4),
        "xoxb-" + "•" * 12 + s(B62, 4),
        "pk_" + "*" * 6,
    ]
    ben(
        "redacted_value",
        (f"Stripe dashboard shows the live key as {v[0]} - rolled it, new one in Bitwarden", v[0]),
        (f"mailchimp key ending in ...{v[1]} is the one to delete", v[1]),
        (f"slack app page shows {v[2]}", v[2]),
        ("WP admin pw: [REDACTED] (ask Jo)", "[REDACTED]"),
        (f"bot token: {v[3]} <- masked, see 1Password", v[3]),
    )

    ben(
        "vault_reference",
        (
            "Stripe live key is in Bitwarden -> Collections -> Finance -> 'Stripe live secret'",
            "Bitwarden -> Collections -> Finance -> 'Stripe live secret'",
        ),
        (
            "OPENAI_API_KEY=op://Riverbend Tech/OpenAI/credential",
            "op://Riverbend Tech/OpenAI/credential",
        ),
        (
            "all social logins are in the shared 1Password vault 'Comms', ask Mia for access",
            "1Password vault 'Comms'",
        ),
        (
            "SENDGRID_API_KEY comes from Google Secret Manager: projects/riverbend-prod/secrets/sendgrid-key/versions/latest",
            "projects/riverbend-prod/secrets/sendgrid-key/versions/latest",
        ),
        (
            "La contraseña del Instagram está en Bitwarden (carpeta Comunicación), no la pegues aquí",
            "Bitwarden (carpeta Comunicación)",
        ),
    )

    ben(
        "env_var_reference",
        ('stripe.api_key = os.environ["STRIPE_SECRET_KEY"]', 'os.environ["STRIPE_SECRET_KEY"]'),
        ('curl -u "api:$MAILGUN_API_KEY" https://api.mailgun.net/v3/domains', "$MAILGUN_API_KEY"),
        ("define( 'DB_PASSWORD', getenv('WP_DB_PASSWORD') );", "getenv('WP_DB_PASSWORD')"),
        ("token: ${{ secrets.DEPLOY_TOKEN }} in the GH action", "${{ secrets.DEPLOY_TOKEN }}"),
    )

    ben(
        "aws_docs_example_key",
        (
            "AWS docs example: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY - not ours",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        (
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE  # from the tutorial, replace",
            "AKIAIOSFODNN7EXAMPLE",
        ),
        (
            "the README still has the sample key AKIAI44QH8DHBEXAMPLE, harmless",
            "AKIAI44QH8DHBEXAMPLE",
        ),
    )

    v = [
        "AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
        "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + s(B64, 340),
        "AAAAC3NzaC1lZDI1NTE5AAAAI" + s(B64, 43),
    ]
    ben(
        "ssh_public_key",
        (f"add this to authorized_keys on the droplet: ssh-ed25519 {v[0]} sam@laptop", v[0]),
        (f"Jo's public key: ssh-rsa {v[1]} jo@riverbend", v[1]),
        (f"deploy key (public half, added to GitHub): ssh-ed25519 {v[2]} deploy", v[2]),
    )

    v = [
        "-----BEGIN CERTIFICATE-----\n" + pem_body(12, "MIID") + "\n-----END CERTIFICATE-----"
        for _ in range(2)
    ]
    ben(
        "x509_certificate",
        ("SAML IdP cert for Google Workspace SSO into Salesforce (public cert):\n" + v[0], v[0]),
        (
            "cert chain from letsencrypt for donate.riverbend.org, fullchain.pem first block:\n"
            + v[1],
            v[1],
        ),
    )

    v = [
        "SHA256:" + s(B64, 43),
        ":".join(s(HEX, 2) for _ in range(16)),
        "SHA256:" + s(B64, 43),
        ":".join(s(UHEX, 2) for _ in range(20)),
    ]
    ben(
        "ssh_fingerprint",
        (f"droplet host key fingerprint is {v[0]}, check it before typing yes", v[0]),
        (f"old md5 fp {v[1]}", v[1]),
        (f"ED25519 key fingerprint is {v[2]}.", v[2]),
        (f"SHA1 fingerprint of the SSO cert: {v[3]}", v[3]),
    )

    ben(
        "password_policy_text",
        (
            "Policy: passwords for shared accounts must be 16+ chars, generated by Bitwarden, rotated when a volunteer leaves.",
            "16+ chars",
        ),
        (
            "Reminder: never paste passwords in #general. Use the Bitwarden send link, it expires after 1 view.",
            "Bitwarden send link",
        ),
        (
            "Google Workspace admin: enforce 2SV for all, min password length 12, no reuse of last 5",
            "min password length 12",
        ),
        (
            "Política: contraseñas de al menos 14 caracteres y 2FA obligatorio para las cuentas de redes sociales.",
            "al menos 14 caracteres",
        ),
    )

    v = [
        f"xoxb-{rng.randrange(10**10, 10**12)}-{rng.randrange(10**12, 10**13)}-{s(B62, 24)}",
        "sk_live_" + s(B62, 24),
        "SG." + s(B64URL, 22) + "." + s(B64URL, 43),
    ]
    ben(
        "revoked_token_stated_revoked",
        (f"REVOKED 2026-03-02 after the leak in #general, do not use: {v[0]}", v[0]),
        (
            f"old stripe key {v[1]} was rolled + expired immediately (dashboard confirms 'expired')",
            v[1],
        ),
        (f"sendgrid key {v[2]} deleted from the account today, replaced", v[2]),
    )

    v = ["AC" + s(HEX, 32) for _ in range(3)]
    ben(
        "twilio_account_sid",
        (f"Twilio account SID {v[0]} (token is in Bitwarden)", v[0]),
        (f"messaging service for shifts is under account {v[1]}", v[1]),
        (f"TWILIO_ACCOUNT_SID={v[2]}", v[2]),
    )

    v = [
        f"GRANT{rng.randrange(10**7, 10**8)}",
        f"CF-{rng.randrange(2024, 2027)}-{rng.randrange(1000, 9999)}",
        f"APP-{s(UPDIG, 8)}",
        f"{rng.randrange(10**5, 10**6)}",
    ]
    ben(
        "grant_application_id",
        (f"grants.gov tracking number {v[0]} - status: validated", v[0]),
        (f"Community Foundation application {v[1]} due Friday", v[1]),
        (f"Submittable submission {v[2]} (arts council)", v[2]),
        (f"Numéro de dossier de subvention : {v[3]}", v[3]),
    )

    v = [s("ABCDEFGHJKLMNPQRSTUVWXYZ123456789", 12) for _ in range(3)]
    ben(
        "sam_uei",
        (f"SAM.gov UEI {v[0]}, registration renews in May", v[0]),
        (f"| UEI | {v[1]} | CAGE {s(UPDIG, 5)} |", v[1]),
        (f"Unique Entity ID: {v[2]}", v[2]),
    )

    v = [s(HEX, 10) for _ in range(3)]
    ben(
        "wp_nonce_in_url",
        (f"https://riverbend.org/wp-admin/post.php?post=412&action=trash&_wpnonce={v[0]}", v[0]),
        (f"ajax call fails with 403, nonce {v[1]} expired I think", v[1]),
        (f"X-WP-Nonce: {v[2]}", v[2]),
    )

    v = [
        f"https://riverbend.org/donate?utm_source=newsletter&utm_medium=email&utm_campaign=fy{rng.randrange(24, 28)}_spring_{s(LOWDIG, 4)}"
        for _ in range(3)
    ]
    ben(
        "utm_tracking_url",
        (f"link for the spring email: {v[0]}", v[0]),
        (f"| IG bio | {v[1]} |", v[1]),
        (f"use {v[2]} in the QR code on the flyer", v[2]),
    )

    v = [
        f"GB{rng.randrange(10, 99)} NWBK {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)} {rng.randrange(10, 99)}",
        f"DE{rng.randrange(10, 99)} {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)} {rng.randrange(10, 99)}",
        f"{rng.randrange(10, 99)}-{rng.randrange(10, 99)}-{rng.randrange(10, 99)} {rng.randrange(10**7, 10**8)}",
    ]
    ben(
        "org_bank_details_public",
        (f"bank details for donations by transfer (published on the donate page): {v[0]}", v[0]),
        (f"Spendenkonto (öffentlich auf der Website): IBAN {v[1]}", v[1]),
        (f"sort code/account for standing orders, as printed on the leaflet: {v[2]}", v[2]),
    )

    v = ["bc1q" + s("023456789acdefghjklmnpqrstuvwxyz", 38) for _ in range(3)]
    ben(
        "bitcoin_donation_address",
        (f"crypto donations page shows BTC address {v[0]} (public)", v[0]),
        (f"The Giving Block gave us {v[1]} for BTC", v[1]),
        (f"Dirección BTC para donaciones: {v[2]}", v[2]),
    )

    v = [
        "$P$B" + s(B62 + "./", 30),
        "$wp$2y$10$" + s(B62 + "./", 53),
        "$2y$10$" + s(B62 + "./", 53),
    ]
    ben(
        "wordpress_password_hash",
        (f"wp_users row for webteam has user_pass {v[0]} (phpass hash, not the pw)", v[0]),
        (f"after WP 6.8 the hash looks like {v[1]}", v[1]),
        (f"civi contact dedupe found hash {v[2]} in the old import, it's a bcrypt hash", v[2]),
    )

    v = ["1" + s(B64URL, 32) for _ in range(3)] + ["1" + s(B64URL, 43)]
    ben(
        "google_drive_file_id",
        (f"grant budget sheet: https://docs.google.com/spreadsheets/d/{v[0]}/edit", v[0]),
        (f"volunteer handbook doc id {v[1]}", v[1]),
        (f"https://drive.google.com/file/d/{v[2]}/view?usp=sharing (board only)", v[2]),
        (f"SHEET_ID={v[3]}", v[3]),
    )

    v = [f"c_{s(HEX, 52)}@group.calendar.google.com", f"{s(LOWDIG, 26)}@group.calendar.google.com"]
    ben(
        "google_calendar_id",
        (f"shift calendar id for the embed: {v[0]}", v[0]),
        (f"events calendar (public): {v[1]}", v[1]),
    )

    v = ["1Z" + s(UPDIG, 16), str(rng.randrange(10**19, 10**20)), "9400" + s(DIG, 18)]
    ben(
        "shipping_tracking_number",
        (f"t-shirts for the 5k shipped, UPS {v[0]}", v[0]),
        (f"FedEx tracking {v[1]}", v[1]),
        (f"USPS {v[2]} (raffle prizes)", v[2]),
    )

    v = [
        f"RCPT-{rng.randrange(2024, 2027)}-{rng.randrange(0, 99999):05d}",
        f"GA-{s(UPDIG, 8)}",
        str(rng.randrange(10**6, 10**7)),
        f"R{rng.randrange(10**8, 10**9)}",
    ]
    ben(
        "donation_receipt_number",
        (f"reissued tax receipt {v[0]} with the corrected address", v[0]),
        (f"Gift Aid declaration ref {v[1]} on file for this donor", v[1]),
        (f"| receipt no | {v[2]} | $1,000 | in-kind |", v[2]),
        (f"Numéro de reçu fiscal {v[3]} envoyé au donateur", v[3]),
    )

    v = [
        f"{rng.randrange(800, 999)} {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)}",
        str(rng.randrange(10**10, 10**11)),
        f"{rng.randrange(800, 999)} {rng.randrange(1000, 9999)} {rng.randrange(1000, 9999)}",
    ]
    ben(
        "zoom_meeting_id_public",
        (
            f"Volunteer orientation webinar, Meeting ID {v[0]} (registration link on the site, no passcode)",
            v[0],
        ),
        (f"https://us02web.zoom.us/webinar/register/WN_{s(B64URL, 22)} -> webinar id {v[1]}", v[1]),
        (f"board call uses the standing room {v[2]}, waiting room on", v[2]),
    )

    v = [str(rng.randrange(100, 9999)) for _ in range(3)] + [s(HEX, 8)]
    ben(
        "form_and_post_ids",
        (
            f"Gravity Forms form id {v[0]} is the volunteer application, {v[1]} is the food-drive signup",
            v[0],
        ),
        (f'[gravityform id="{v[2]}" title="false" ajax="true"]', v[2]),
        (f'Contact Form 7 shortcode [contact-form-7 id="{v[3]}" title="Contact"]', v[3]),
    )

    v = [
        "00D" + s(UPDIG, 12) + s(B62, 3),
        "GTM-" + s(UPDIG, 7),
        f"{s(LOWDIG, 26)}@group.calendar.google.com",
        "bc1q" + s("023456789acdefghjklmnpqrstuvwxyz", 38),
    ]
    ben(
        "mixed_public_ids_table",
        (f"| Salesforce org | {v[0]} |\n| GTM | {v[1]} |", v[0]),
        (f"ids cheat sheet: GTM {v[1]}", v[1]),
        (f"volunteer shift cal (public embed) {v[2]}", v[2]),
        (f"BTC (public donate page) {v[3]}", v[3]),
    )

    for r in rows:
        assert r["value"] in r["text"], r
    return rows


def main() -> None:
    out = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus())
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()

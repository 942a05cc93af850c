# ruff: noqa: E501
"""Blind secret-detector corpus 83: fitness studio and gym chain.

Brief: memory notes of a gym chain (Mindbody, Glofox, door access and turnstiles, payment terminals, direct debit, smart equipment, signage, marketing tools, mobile app, front-desk and trainer notes in English, Dutch, Italian and Hindi) holding live secrets or look-alikes that are not secrets.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_83.py [out.jsonl]

Kinds, secret: mindbody_api_key, mindbody_owner_password, glofox_api_key, glofox_admin_password, stripe_secret_key, stripe_restricted_key, stripe_webhook_secret, gocardless_access_token, adyen_api_key, mollie_api_key, sumup_api_key, square_access_token, terminal_supervisor_password, door_controller_password, access_control_api_secret, alarm_code_prose, keysafe_code, staff_wifi_password, mailchimp_api_key, sendgrid_api_key, twilio_auth_token, meta_access_token, hubspot_private_app_token, klaviyo_private_key, onesignal_rest_api_key, firebase_service_account_key, apns_p8_private_key, android_keystore_password, github_token, aws_secret_access_key, postgres_url_password, mysql_cli_password, redis_url_password, smtp_password, slack_webhook_url, slack_bot_token, jwt_signing_secret, ssh_private_key, signage_cms_password, equipment_cloud_api_key, openai_api_key, nvr_admin_password, anydesk_unattended_password, azure_storage_connection_string, admin_api_bearer_jwt, sftp_url_password, google_oauth_client_secret
Kinds, benign: aws_documented_example_key, stripe_documented_test_key, stripe_test_card_number, mindbody_sandbox_documented_login, stripe_publishable_key, stripe_object_id, recaptcha_site_key, firebase_web_api_key_public, sentry_dsn_public, git_commit_sha, uuid_id, mindbody_site_id, glofox_branch_id, member_number, terminal_serial_number, terminal_id_tid, firmware_sha256, export_md5, bcrypt_hash, ssh_public_key, x509_certificate, cert_fingerprint, apk_cert_sha1_fingerprint, placeholder_angle, placeholder_changeme, env_var_reference, vault_reference, masked_value, redacted_value, password_policy_text, password_procedure_no_value, revoked_key_stated_revoked, twilio_account_sid, mailchimp_audience_id, meta_pixel_id, ga4_measurement_id, gocardless_object_id, onesignal_app_id, klaviyo_public_site_id, mac_address, private_ip_address, apple_team_id, docker_image_digest, ticket_reference, booking_confirmation_code, promo_code, adyen_terminal_poiid, invoice_number, sepa_creditor_id, npm_integrity_hash, google_place_id, spotify_playlist_id, youtube_video_id, vat_number, door_event_log_line, app_build_version, base64_image_fragment, env_var_name_only
"""

import json
import random
import string
import sys

SEED = 8383

ALNUM = string.ascii_letters + string.digits
UPDIG = string.ascii_uppercase + string.digits
LOWDIG = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
WORDS = [
    "Sporty",
    "Gym",
    "Zumba",
    "Spinning",
    "Fitness",
    "Pilates",
    "Kettlebell",
    "Deadlift",
    "Amsterdam",
    "Milano",
    "Ciao",
    "Welkom",
    "Zomer",
    "Squat",
    "Burpee",
    "Protein",
    "Rotterdam",
    "Yoga",
    "Namaste",
    "Tiger",
    "Bicep",
    "Cardio",
]


def rs(r, alpha, n):
    return "".join(r.choice(alpha) for _ in range(n))


def human_pw(r):
    w = r.choice(WORDS)
    if r.random() < 0.3:
        w = w.lower()
    return w + str(r.randint(1, 2029)) + r.choice("!@#$%*?.")


def gen_pw(r):
    return rs(r, ALNUM, r.randint(14, 22)) + r.choice("!#%&*")


def uuid4(r):
    h = rs(r, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{r.choice('89ab')}{h[17:20]}-{h[20:]}"


def pem_body(r, n):
    b = rs(r, B64, n)
    return "\n".join(b[i : i + 64] for i in range(0, len(b), 64))


def b64url_json(r):
    import base64

    payload = json.dumps(
        {
            "sub": str(r.randint(1000, 99999)),
            "role": "admin",
            "iat": r.randint(1760000000, 1790000000),
        },
        separators=(",", ":"),
    )
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


EXTRAS = {
    "{sid}": lambda r: "AC" + rs(r, HEX, 32),
    "{akid}": lambda r: "AKIA" + rs(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    "{site}": lambda r: "512884",  # template text: fixed for every seed
    "{ip}": lambda r: "10.20.1.15",
}

# --- secret value generators ---
G = {
    "mindbody_api_key": lambda r: rs(r, HEX, 32),
    "glofox_api_key": lambda r: rs(r, ALNUM, 40),
    "stripe_secret_key": lambda r: (
        "sk_live_" + (("51" + rs(r, ALNUM, 97)) if r.random() < 0.6 else rs(r, ALNUM, 24))
    ),
    "stripe_restricted_key": lambda r: "rk_live_51" + rs(r, ALNUM, 97),
    "stripe_webhook_secret": lambda r: "whsec_" + rs(r, ALNUM, 32),
    "gocardless_access_token": lambda r: "live_" + rs(r, URLSAFE, 40),
    "adyen_api_key": lambda r: (
        "AQE" + rs(r, B64, 95) + "==-" + rs(r, B64, 43) + "=-" + rs(r, ALNUM + "<>[]{}", 16)
    ),
    "mollie_api_key": lambda r: "live_" + rs(r, ALNUM, 30),
    "sumup_api_key": lambda r: "sup_sk_" + rs(r, ALNUM, 32),
    "square_access_token": lambda r: "EAAA" + rs(r, URLSAFE, 60),
    "mailchimp_api_key": lambda r: rs(r, HEX, 32) + "-us" + str(r.randint(1, 21)),
    "sendgrid_api_key": lambda r: "SG." + rs(r, URLSAFE, 22) + "." + rs(r, URLSAFE, 43),
    "twilio_auth_token": lambda r: rs(r, HEX, 32),
    "meta_access_token": lambda r: "EAAG" + rs(r, ALNUM, r.randint(150, 190)),
    "hubspot_private_app_token": lambda r: "pat-eu1-" + uuid4(r),
    "klaviyo_private_key": lambda r: "pk_" + rs(r, HEX, 34),
    "onesignal_rest_api_key": lambda r: (
        "os_v2_app_" + rs(r, "abcdefghijklmnopqrstuvwxyz234567", 113)
    ),
    "github_token": lambda r: (
        ("ghp_" + rs(r, ALNUM, 36))
        if r.random() < 0.5
        else ("github_pat_11" + rs(r, UPDIG, 20) + "_" + rs(r, ALNUM, 59))
    ),
    "aws_secret_access_key": lambda r: rs(r, B64, 40),
    "slack_bot_token": lambda r: (
        f"xoxb-{r.randint(10**10, 10**12)}-{r.randint(10**12, 10**13 - 1)}-{rs(r, ALNUM, 24)}"
    ),
    "jwt_signing_secret": lambda r: rs(r, HEX, 64),
    "equipment_cloud_api_key": lambda r: rs(r, ALNUM, 40),
    "openai_api_key": lambda r: "sk-proj-" + rs(r, URLSAFE, 156),
    "google_oauth_client_secret": lambda r: "GOCSPX-" + rs(r, URLSAFE, 28),
    "access_control_api_secret": lambda r: rs(r, HEX, 48),
}

SECRET = [
    (
        "mindbody_api_key",
        G["mindbody_api_key"],
        [
            "Mindbody Public API key for the class sync job: {v} (site {site})",
            "curl -s -H 'Api-Key: {v}' -H 'SiteId: {site}' https://api.mindbodyonline.com/public/v6/class/classes?limit=200",
            "MINDBODY_API_KEY={v}",
            "| mindbody | prod | {v} | owner: Sanne |",
            "nieuwe mindbody key (de oude is ingetrokken door support): {v}",
        ],
    ),
    (
        "mindbody_owner_password",
        human_pw,
        [
            "Mindbody owner login for Utrecht site = owner@fitclub-nl.com / {v}",
            "front desk: mindbody inlog is receptie.utrecht, ww {v}",
            "pw for the mindbody 'Business Owner' account got changed, new one is {v} - dont share w/ trainers",
            "La password di Mindbody per la reception di Milano Porta Romana è {v}",
        ],
    ),
    (
        "glofox_api_key",
        G["glofox_api_key"],
        [
            "Glofox integration creds from our CSM: x-api-key {v}",
            'GLOFOX_API_KEY="{v}"',
            "glofox:\n  branch: milano-centrale\n  api_key: {v}",
            'curl -H "x-api-key: {v}" https://gf-api.aws.glofox.com/prod/2.0/members',
        ],
    ),
    (
        "glofox_admin_password",
        human_pw,
        [
            "glofox dashboard: manager.milano@fitclub.it pw {v}",
            "Glofox admin (hub) -> user: studio.rotterdam, wachtwoord: {v}",
            "[09:12] Priya: glofox ka password kya hai?\n[09:13] Marco: {v}\n[09:13] Priya: thanks",
            "new Glofox login for Eindhoven desk:\n{v}",
        ],
    ),
    (
        "stripe_secret_key",
        G["stripe_secret_key"],
        [
            "Stripe live secret for the app backend: {v}",
            "STRIPE_SECRET_KEY={v}",
            "stripe customers list --api-key {v} --limit 5",
            "rotated stripe key today, new value below\n{v}",
            "export STRIPE_API_KEY='{v}'  # prod, do not commit",
        ],
    ),
    (
        "stripe_restricted_key",
        G["stripe_restricted_key"],
        [
            "Restricted Stripe key for the Zapier refund zap (write: refunds only): {v}",
            "rk for marketing dashboard (read charges): {v}",
            "STRIPE_RESTRICTED_KEY={v}",
            "| stripe rk | read-only reporting | {v} |",
        ],
    ),
    (
        "stripe_webhook_secret",
        G["stripe_webhook_secret"],
        [
            "webhook signing secret for /hooks/stripe on api.fitclub.app: {v}",
            "STRIPE_WEBHOOK_SECRET={v}",
            "stripe endpoint 'membership-renewals' -> signing secret {v}",
            "Il secret del webhook Stripe (ambiente prod) è {v}",
        ],
    ),
    (
        "gocardless_access_token",
        G["gocardless_access_token"],
        [
            "GoCardless live access token (direct debit collections NL+IT): {v}",
            "GOCARDLESS_ACCESS_TOKEN={v}",
            "curl -H 'Authorization: Bearer {v}' -H 'GoCardless-Version: 2015-07-06' https://api.gocardless.com/mandates",
            "GC token voor de incasso-koppeling, door finance aangemaakt: {v}",
        ],
    ),
    (
        "adyen_api_key",
        G["adyen_api_key"],
        [
            "Adyen ws user key for terminal API (FitClubNL_POS): {v}",
            "ADYEN_API_KEY={v}",
            "curl -H 'X-API-Key: {v}' https://checkout-live.adyen.com/v71/payments",
            "adyen key generated in CA, copy here before it's hidden:\n{v}",
        ],
    ),
    (
        "mollie_api_key",
        G["mollie_api_key"],
        [
            "Mollie live key for the webshop (eiwitshakes + merch): {v}",
            "MOLLIE_API_KEY={v}",
            "mollie api key van de webshop: {v} (test key staat in de staging env)",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "sumup_api_key",
        G["sumup_api_key"],
        [
            "SumUp secret API key for the pop-up bootcamp readers: {v}",
            "SUMUP_API_KEY={v}",
            "sumup key (merchant MC7Q2) -> {v}",
            "chiave API SumUp per i lettori del corso all'aperto: {v}",
        ],
    ),
    (
        "square_access_token",
        G["square_access_token"],
        [
            "Square prod access token, London pilot studio: {v}",
            "SQUARE_ACCESS_TOKEN={v}",
            "curl https://connect.squareup.com/v2/locations -H 'Authorization: Bearer {v}'",
            "square token (prod)\n{v}",
        ],
    ),
    (
        "terminal_supervisor_password",
        lambda r: str(r.randint(100000, 999999)),
        [
            "CCV terminal supervisor/merchant password (needed for refunds + day close): {v}",
            "terminal menu -> beheer -> wachtwoord {v} -> dagafsluiting",
            "password manager del POS Ingenico per gli storni: {v}",
            "refunds on the PAX at the Utrecht desk need the manager code {v}",
        ],
    ),
    (
        "door_controller_password",
        gen_pw,
        [
            "Paxton Net2 server login: sysadmin / {v}",
            "door controller web UI at https://{ip} admin pw {v}",
            "Gantner turnstile controller (GAT Access) service account pw: {v}",
            "deur controller beheerder wachtwoord: {v}",
            "Controller porte (tornelli) - utente admin, password {v}",
        ],
    ),
    (
        "access_control_api_secret",
        G["access_control_api_secret"],
        [
            "Salto KS API client secret for the member-app unlock feature: {v}",
            "ACCESS_CONTROL_CLIENT_SECRET={v}",
            "turnstile cloud integration: client_id=fitclub-app client_secret={v}",
            "| access cloud | prod | secret | {v} |",
        ],
    ),
    (
        "alarm_code_prose",
        lambda r: str(r.randint(1000, 999999)),
        [
            "Closing at Rotterdam Zuid: lights off, then alarm panel next to the back door, type {v} and press the key icon. You have 45s.",
            "alarm code back door: {v}",
            "als het alarm afgaat bij het openen, toets {v} en daarna OFF",
            "Per disinserire l'allarme alla mattina digitare {v} sul pannello vicino allo spogliatoio.",
            "सुबह अलार्म बंद करने के लिए पैनल पर {v} दबाएं",
        ],
    ),
    (
        "keysafe_code",
        lambda r: str(r.randint(1000, 9999)),
        [
            "Key safe by the loading bay (for the 6am PT sessions) is {v}",
            "sleutelkluisje naast de nooduitgang: {v}",
            "cassetta chiavi vicino all'ingresso: combinazione {v}",
            "trainers opening early: keysafe {v}, return key after!",
        ],
    ),
    (
        "staff_wifi_password",
        human_pw,
        [
            "Staff wifi FITCLUB-STAFF pw {v} (guest wifi is on the poster)",
            "wifi personeel: FitClub_Personeel / {v}",
            "WPA2 key for the back-office SSID: {v}",
            "password wifi staff: {v}",
        ],
    ),
    (
        "mailchimp_api_key",
        G["mailchimp_api_key"],
        [
            "Mailchimp API key for the member newsletter sync: {v}",
            "MAILCHIMP_API_KEY={v}",
            "mailchimp key (used by the churn campaign script) -> {v}",
            "curl --user 'anystring:{v}' https://us6.api.mailchimp.com/3.0/lists",
        ],
    ),
    (
        "sendgrid_api_key",
        G["sendgrid_api_key"],
        [
            "SendGrid key for booking confirmation mails: {v}",
            "SENDGRID_API_KEY={v}",
            "sendgrid full access key, made by Tom for the migration:\n{v}",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "twilio_auth_token",
        G["twilio_auth_token"],
        [
            "Twilio for class reminder SMS: account {sid}, auth token {v}",
            "TWILIO_ACCOUNT_SID={sid}\nTWILIO_AUTH_TOKEN={v}",
            "curl -u {sid}:{v} https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json",
            "twilio token voor sms herinneringen: {v}",
        ],
    ),
    (
        "meta_access_token",
        G["meta_access_token"],
        [
            "FB page access token for the lead ads sync (never expires): {v}",
            "META_ACCESS_TOKEN={v}",
            "token meta per le campagne lead di gennaio: {v}",
            "curl 'https://graph.facebook.com/v19.0/me/leadgen_forms?access_token={v}'",
        ],
    ),
    (
        "hubspot_private_app_token",
        G["hubspot_private_app_token"],
        [
            "HubSpot private app 'mindbody-sync' token: {v}",
            "HUBSPOT_TOKEN={v}",
            "Authorization: Bearer {v}",
            "hubspot token voor de leads uit de proefles-form: {v}",
        ],
    ),
    (
        "klaviyo_private_key",
        G["klaviyo_private_key"],
        [
            "Klaviyo private API key (full access) for flows: {v}",
            "KLAVIYO_PRIVATE_KEY={v}",
            "Authorization: Klaviyo-API-Key {v}",
            "klaviyo pk for the winback script -> {v}",
        ],
    ),
    (
        "onesignal_rest_api_key",
        G["onesignal_rest_api_key"],
        [
            "OneSignal REST API key for push (class cancelled alerts): {v}",
            "ONESIGNAL_REST_API_KEY={v}",
            "curl -H 'Authorization: Key {v}' https://api.onesignal.com/notifications",
            "push key onesignal:\n{v}",
        ],
    ),
    (
        "github_token",
        G["github_token"],
        [
            "GitHub token for CI pulling the private fitclub-app repo: {v}",
            "git clone https://x-access-token:{v}@github.com/fitclub/booking-backend.git",
            "GH_TOKEN={v}",
            "echo {v} | gh auth login --with-token",
        ],
    ),
    (
        "aws_secret_access_key",
        G["aws_secret_access_key"],
        [
            "AWS creds for the member photo bucket: {akid} / {v}",
            "[default]\naws_access_key_id = {akid}\naws_secret_access_key = {v}",
            "AWS_ACCESS_KEY_ID={akid} AWS_SECRET_ACCESS_KEY={v} aws s3 ls s3://fitclub-member-photos",
            "credenziali AWS per il backup: key {akid}, secret {v}",
        ],
    ),
    (
        "postgres_url_password",
        gen_pw,
        [
            "DATABASE_URL=postgres://booking_app:{v}@db.prod.fitclub.internal:5432/booking",
            "prod db: psql 'postgresql://readonly:{v}@{ip}:5432/members?sslmode=require'",
            "reporting connection string for Metabase: postgresql://metabase:{v}@reporting-db:5432/dwh",
        ],
    ),
    (
        "mysql_cli_password",
        human_pw,
        [
            "mysql -h {ip} -u glofox_export -p'{v}' exports",
            "old kiosk DB: user root pw {v}",
            "mysqldump -u backup --password='{v}' checkins > checkins.sql",
        ],
    ),
    (
        "redis_url_password",
        lambda r: rs(r, ALNUM, 32),
        [
            "REDIS_URL=redis://:{v}@cache.prod.fitclub.internal:6379/0",
            "rediss://default:{v}@redis-13542.c55.eu-central-1-1.ec2.cloud.redislabs.com:13542",
            "redis-cli -h cache-prod -a {v} FLUSHDB  <- never again",
        ],
    ),
    (
        "smtp_password",
        gen_pw,
        [
            "SMTP for the kiosk receipts: smtp.office365.com:587 noreply@fitclub.nl / {v}",
            "SMTP_PASSWORD={v}",
            "smtp relay user mailer@mg.fitclub.app, password {v}",
            "email scanner in back office sends via smtp, user scanner@fitclub.it pw {v}",
        ],
    ),
    (
        "slack_webhook_url",
        lambda r: (
            f"https://hooks.slack.com/services/T{rs(r, UPDIG, 8)}/B{rs(r, UPDIG, 10)}/{rs(r, ALNUM, 24)}"
        ),
        [
            "door alerts go to #ops-doors via {v}",
            "SLACK_WEBHOOK_URL={v}",
            'curl -X POST -d \'{"text":"turnstile offline"}\' {v}',
        ],
    ),
    (
        "slack_bot_token",
        G["slack_bot_token"],
        [
            "slack bot (shift-swap bot) token {v}",
            "SLACK_BOT_TOKEN={v}",
            "Authorization: Bearer {v}",
        ],
    ),
    (
        "jwt_signing_secret",
        G["jwt_signing_secret"],
        [
            "JWT_SECRET={v}",
            "member app backend signs sessions with HS256, secret: {v}",
            'auth:\n  jwt:\n    secret: "{v}"\n    ttl: 3600',
        ],
    ),
    (
        "ssh_private_key",
        lambda r: (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            + pem_body(r, 320)
            + "\n-----END OPENSSH PRIVATE KEY-----"
        ),
        [
            "deploy key for the signage pi's (pasted so we don't lose it):\n{v}",
            "~/.ssh/id_ed25519 on the kiosk build box:\n{v}",
            "ssh key for the sftp to the bank:\n\n{v}\n",
        ],
    ),
    (
        "signage_cms_password",
        human_pw,
        [
            "Yodeck login for the screens in all studios: screens@fitclub.nl / {v}",
            "schermen (tv's bij de spinningzaal) beheer via ScreenCloud, ww {v}",
            "login per gli schermi della sala pesi: marketing@fitclub.it - {v}",
            "signage cms pw changed to {v} after Lisa left",
        ],
    ),
    (
        "equipment_cloud_api_key",
        G["equipment_cloud_api_key"],
        [
            "Technogym Mywellness API key (workout data into app): {v}",
            "EQUIPMENT_API_KEY={v}",
            "smart bikes cloud (Stages) partner key: {v}",
            "X-MWAPPS-APIKEY: {v}",
        ],
    ),
    (
        "openai_api_key",
        G["openai_api_key"],
        [
            "OpenAI key for the workout-plan chatbot in the app: {v}",
            "OPENAI_API_KEY={v}",
            "openai key voor de ai-coach pilot:\n{v}",
        ],
    ),
    (
        "nvr_admin_password",
        human_pw,
        [
            "Hikvision NVR (camera recorder) at {ip}: admin / {v}",
            "camera's bekijken: app Hik-Connect, account beveiliging@fitclub.nl ww {v}",
            "NVR della palestra: utente admin password {v}",
        ],
    ),
    (
        "anydesk_unattended_password",
        gen_pw,
        [
            "AnyDesk unattended access on reception PC (ID 1 234 567 890): password {v}",
            "teamviewer front desk Eindhoven, pw {v}",
            "remote access reception pc -> anydesk, wachtwoord {v}",
        ],
    ),
    (
        "azure_storage_connection_string",
        lambda r: rs(r, B64, 86) + "==",
        [
            "DefaultEndpointsProtocol=https;AccountName=fitclubexports;AccountKey={v};EndpointSuffix=core.windows.net",
            "AZURE_STORAGE_KEY={v}",
            "storage key for nightly check-in exports: {v}",
        ],
    ),
    (
        "admin_api_bearer_jwt",
        lambda r: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + b64url_json(r) + "." + rs(r, URLSAFE, 43)
        ),
        [
            "admin token for the app API (valid till end of year): {v}",
            "curl -H 'Authorization: Bearer {v}' https://api.fitclub.app/admin/members?studio=utrecht",
            "token admin per l'API dell'app:\n{v}",
        ],
    ),
    (
        "sftp_url_password",
        human_pw,
        [
            "SEPA batch upload: sftp://fitclub_dd:{v}@sftp.incasso-partner.nl:22/inbound",
            "sftp fitclub_dd@sftp.incasso-partner.nl pw {v}",
            "export for payroll goes to ftp://payroll:{v}@ftp.fitclub.it/uploads",
        ],
    ),
    (
        "google_oauth_client_secret",
        G["google_oauth_client_secret"],
        [
            "Google sign-in for the member app: client secret {v}",
            "GOOGLE_CLIENT_SECRET={v}",
            '{"web":{"client_id":"4471239.apps.googleusercontent.com","client_secret":"{v}"}}',
        ],
    ),
    (
        "android_keystore_password",
        gen_pw,
        [
            "upload keystore for the Android app: storePassword {v}, keyAlias fitclub",
            "storePassword={v}\nkeyPassword={v}\nkeyAlias=upload",
            "keystore pw (Play Store upload key) -> {v}",
        ],
    ),
]


def sa_json(r):
    key = (
        "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
        + "\\n".join(rs(r, B64, 64) for _ in range(8))
        + "\\n-----END PRIVATE KEY-----\\n"
    )
    return key


def p8(r):
    return (
        "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg"
        + rs(r, B64, 16)
        + "\n"
        + pem_body(r, 128)
        + "\n"
        + rs(r, B64, 24)
        + "\n-----END PRIVATE KEY-----"
    )


SECRET += [
    (
        "firebase_service_account_key",
        sa_json,
        [
            '{\n  "type": "service_account",\n  "project_id": "fitclub-app-prod",\n  "private_key_id": "{h40}",\n  "private_key": "{v}",\n  "client_email": "firebase-adminsdk-x1@fitclub-app-prod.iam.gserviceaccount.com"\n}',
            'firebase admin json (push + auth) pasted from the console:\n{"type":"service_account","project_id":"fitclub-app-prod","private_key":"{v}"}',
            'FIREBASE_PRIVATE_KEY="{v}"',
        ],
    ),
    (
        "apns_p8_private_key",
        p8,
        [
            "APNs auth key AuthKey_{kid}.p8 (team FITCLUB), push for iOS app:\n{v}",
            "p8 key for push notifications, Key ID {kid}:\n\n{v}",
            "{v}",
        ],
    ),
]

EXTRAS["{h40}"] = lambda r: rs(r, HEX, 40)
EXTRAS["{kid}"] = lambda r: rs(r, UPDIG, 10)

# --- benign ---
BENIGN = [
    (
        "aws_documented_example_key",
        lambda r: "AKIAIOSFODNN7EXAMPLE",
        [
            "the AWS docs example key AKIAIOSFODNN7EXAMPLE is what the tutorial used, replace with ours from the vault",
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE  # sample from docs",
            "if you see AKIAIOSFODNN7EXAMPLE in the config the export script is still on the template",
        ],
    ),
    (
        "aws_documented_example_key",
        lambda r: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        [
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (AWS docs placeholder)",
        ],
    ),
    (
        "stripe_documented_test_key",
        lambda r: "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        [
            "Stripe docs sample key sk_test_4eC39HqLyjWDarjtT1zdp7dc works in their examples only",
            "curl https://api.stripe.com/v1/charges -u sk_test_4eC39HqLyjWDarjtT1zdp7dc:  # straight from stripe docs",
            "README snippet uses sk_test_4eC39HqLyjWDarjtT1zdp7dc, that's Stripe's public demo key",
        ],
    ),
    (
        "stripe_test_card_number",
        lambda r: r.choice(["4242 4242 4242 4242", "4000 0025 0000 3155", "4000 0000 0000 9995"]),
        [
            "to test a membership signup on staging use card {v}, any future date, any CVC",
            "test kaart voor de proefles flow: {v}",
            "carta di test Stripe: {v} (3DS) - solo su staging",
        ],
    ),
    (
        "mindbody_sandbox_documented_login",
        lambda r: "apitest1234",
        [
            "Mindbody sandbox (site -99) login from their dev docs: user Siteowner / pw apitest1234 - public sandbox, no real data",
            "sandbox site -99 -> Siteowner / apitest1234 (documented by Mindbody for developers)",
        ],
    ),
    (
        "stripe_publishable_key",
        lambda r: "pk_live_51" + rs(r, ALNUM, 97),
        [
            "publishable key for the app checkout (public, ships in the app bundle): {v}",
            "STRIPE_PUBLISHABLE_KEY={v}",
            "<script>const stripe = Stripe('{v}');</script>",
            "pk voor de webshop frontend: {v}",
        ],
    ),
    (
        "stripe_object_id",
        lambda r: (
            r.choice(["cus_", "pi_", "sub_", "in_", "ch_"]) + rs(r, ALNUM, r.choice([14, 24]))
        ),
        [
            "member complained about double charge, stripe id {v}",
            "refund done for {v} (Anna, 12-week bootcamp)",
            "| 03/11 | Utrecht | {v} | disputed |",
            "rimborso effettuato: {v}",
            "{v}",
        ],
    ),
    (
        "recaptcha_site_key",
        lambda r: "6L" + rs(r, URLSAFE, 38),
        [
            "reCAPTCHA site key for the trial class form (public): {v}",
            '<div class="g-recaptcha" data-sitekey="{v}"></div>',
            "RECAPTCHA_SITE_KEY={v}  # site key, the secret one is in 1Password",
        ],
    ),
    (
        "firebase_web_api_key_public",
        lambda r: "AIza" + rs(r, URLSAFE, 35),
        [
            "firebase web config apiKey {v} - this is public by design, restricted to our bundle ids",
            'const firebaseConfig = { apiKey: "{v}", authDomain: "fitclub-app-prod.firebaseapp.com", projectId: "fitclub-app-prod" };',
            "google-services.json current_key: {v} (client key, ships in APK)",
        ],
    ),
    (
        "sentry_dsn_public",
        lambda r: (
            f"https://{rs(r, HEX, 32)}@o{r.randint(100000, 999999)}.ingest.sentry.io/{r.randint(1000000, 9999999)}"
        ),
        [
            "Sentry DSN for the mobile app (client side, fine to be public): {v}",
            "SENTRY_DSN={v}",
            "Sentry.init({ dsn: '{v}' })",
        ],
    ),
    (
        "git_commit_sha",
        lambda r: rs(r, HEX, 40),
        [
            "booking bug fixed in {v}, deployed 14:20",
            "rollback app backend to {v} if waitlist breaks again",
            "git revert {v}",
            "release 4.12.0 = commit {v}",
            "hotfix per le prenotazioni doppie: commit {v}",
            "{v}",
        ],
    ),
    (
        "uuid_id",
        uuid4,
        [
            "class instance id for the broken HIIT slot: {v}",
            "Glofox booking {v} stuck in 'pending', support case opened",
            "member uuid {v} requested GDPR delete",
            "| {v} | spinning 18:00 | waitlist 4 |",
            "correlation id from the app error: {v}",
            "prenotazione {v} cancellata dal socio",
        ],
    ),
    (
        "mindbody_site_id",
        lambda r: str(r.randint(100000, 999999)),
        [
            "Mindbody site id Utrecht = {v}, Amersfoort is a separate site",
            "| studio | mindbody site |\n| Utrecht | {v} |",
            "SiteId: {v}",
            "sito Mindbody Milano: {v}",
            "MINDBODY_SITE_ID={v}",
        ],
    ),
    (
        "glofox_branch_id",
        lambda r: rs(r, HEX, 24),
        [
            "Glofox branch id Milano Centrale: {v}",
            "GLOFOX_BRANCH_ID={v}",
            "GET /2.0/branches/{v}/programs",
            "branch {v} = Rotterdam Zuid (not Noord!)",
        ],
    ),
    (
        "member_number",
        lambda r: "FC" + str(r.randint(1000000, 9999999)),
        [
            "member {v} paid cash, note it in Mindbody",
            "guest pass converted: {v}",
            "lid {v} heeft pasje kwijt, nieuwe gegeven",
            "socio {v}: abbonamento sospeso per infortunio",
            "सदस्य {v} का कार्ड काम नहीं कर रहा",
        ],
    ),
    (
        "terminal_serial_number",
        lambda r: f"{r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(100, 999)}",
        [
            "PAX A920 at Utrecht desk serial {v} sent for repair",
            "S/N {v} (Verifone V400m, Milano)",
            "terminal serienummer {v} vervangen door leverancier",
        ],
    ),
    (
        "terminal_id_tid",
        lambda r: str(r.randint(10000000, 99999999)),
        [
            "TID {v} is the one at the cafe bar, not reception",
            "terminale {v} da sostituire, schermo rotto",
            "terminal id {v} shows offline on the CCV portal",
            "| Rotterdam | reception | TID {v} |",
        ],
    ),
    (
        "firmware_sha256",
        lambda r: rs(r, HEX, 64),
        [
            "turnstile firmware 3.4.1 sha256 {v} verified before flashing",
            "sha256sum gat_fw_3.4.1.bin -> {v}",
            "checksum firmware tapis roulant: {v}",
        ],
    ),
    (
        "export_md5",
        lambda r: rs(r, HEX, 32),
        [
            "members_export_nov.csv md5 {v} (matches what finance got)",
            "md5: {v}",
            "md5 van het incasso bestand: {v}",
        ],
    ),
    (
        "bcrypt_hash",
        lambda r: "$2b$12$" + rs(r, ALNUM + "./", 53),
        [
            "password column in old kiosk db looks like {v} - bcrypt, so no plaintext there",
            "hash stored for test member: {v}",
        ],
    ),
    (
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, B64, 43) + " signage@fitclub",
        [
            "add this pubkey to the signage pi's authorized_keys: {v}",
            "public key for the bank sftp (they asked for it): {v}",
            "{v}",
        ],
    ),
    (
        "x509_certificate",
        lambda r: (
            "-----BEGIN CERTIFICATE-----\nMIID" + pem_body(r, 380) + "\n-----END CERTIFICATE-----"
        ),
        [
            "CA cert of the door controller (public, install on the tablets):\n{v}",
            "certificaat van de terminal API (alleen public cert):\n{v}",
        ],
    ),
    (
        "cert_fingerprint",
        lambda r: ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(32)),
        [
            "pin this SHA-256 fingerprint in the app: {v}",
            "door controller cert fingerprint {v} (accept on first connect)",
            "impronta certificato: {v}",
        ],
    ),
    (
        "apk_cert_sha1_fingerprint",
        lambda r: ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(20)),
        [
            "SHA1 of the Play app signing cert (for Firebase/Google sign-in): {v}",
            "add SHA-1 {v} to the Android app in the firebase console",
        ],
    ),
    (
        "placeholder_angle",
        lambda r: r.choice(["<your-token>", "<API_KEY>", "<mindbody-api-key>", "<password>"]),
        [
            "curl -H 'Api-Key: {v}' https://api.mindbodyonline.com/public/v6/site/sites",
            "set GLOFOX_API_KEY={v} before running the import",
            "onboarding doc: paste {v} in the settings screen of the kiosk app",
            "STRIPE_SECRET_KEY={v}",
        ],
    ),
    (
        "placeholder_changeme",
        lambda r: r.choice(["changeme", "CHANGEME", "changeme123", "password"]),
        [
            "default pw on new Gantner controllers is {v}, change on install",
            "DB_PASSWORD={v}  # local docker only",
            "new trainer accounts start with {v} and must reset at first login",
            "la password di default è {v}, va cambiata subito",
        ],
    ),
    (
        "env_var_reference",
        lambda r: r.choice(
            [
                "${STRIPE_SECRET_KEY}",
                "${GOCARDLESS_ACCESS_TOKEN}",
                "$MINDBODY_API_KEY",
                "${{ secrets.SENDGRID_API_KEY }}",
                "%SMTP_PASSWORD%",
            ]
        ),
        [
            "api_key: {v}",
            "the job reads {v} from the environment, don't hardcode",
            "Authorization: Bearer {v}",
            "curl -u {v}: https://api.stripe.com/v1/balance",
        ],
    ),
    (
        "vault_reference",
        lambda r: r.choice(
            [
                "op://Studios/Glofox admin/password",
                "vault:secret/data/payments/adyen#api_key",
                "arn:aws:secretsmanager:eu-west-1:"
                + str(r.randint(10**11, 10**12 - 1))
                + ":secret:prod/stripe-"
                + rs(r, ALNUM, 6),
                "1Password > Ops > Door controllers",
            ]
        ),
        [
            "door controller pw is in {v}",
            "secret lives at {v}, ask Sanne for access",
            "wachtwoord staat in {v}",
            "password: {v}",
        ],
    ),
    (
        "masked_value",
        lambda r: (
            r.choice(["sk_live_", "whsec_", "SG.", "live_"])
            + "*" * r.randint(8, 20)
            + rs(r, ALNUM, 4)
        ),
        [
            "Stripe dashboard shows the key as {v} - the full one is only in 1Password",
            "key ending in {v} was used by the old zap",
            "| gocardless | {v} | rotated 2026-10 |",
        ],
    ),
    (
        "masked_value",
        lambda r: "•" * 8 + rs(r, string.digits, 4),
        [
            "card on file {v}, expires 09/27",
        ],
    ),
    (
        "redacted_value",
        lambda r: r.choice(["[REDACTED]", "***", "xxxxxxxx", "XXXX-XXXX-XXXX", "<redacted>"]),
        [
            "Glofox api key: {v} (see vault)",
            "pasted the log for support with token={v}",
            "alarm code: {v} - ask the club manager in person",
            "password: {v}",
        ],
    ),
    (
        "password_policy_text",
        lambda r: str(r.choice([10, 12, 14, 16])),
        [
            "Policy: front desk passwords must be at least {v} chars, no gym words, rotate after staff leaves",
            "wachtwoordbeleid: minimaal {v} tekens, nooit het alarm code in de groepsapp zetten",
            "Regola: password di almeno {v} caratteri con simbolo; niente post-it sul monitor",
        ],
    ),
    (
        "password_procedure_no_value",
        lambda r: str(r.randint(2, 9)),
        [
            "If a member forgets the app password: Profile > Reset, they get a link by email. Takes ~{v} min.",
            "trainer lost glofox password -> manager resets in Hub > Staff, temp pw is sent by SMS (not to us), {v} attempts max",
        ],
    ),
    (
        "revoked_key_stated_revoked",
        G["stripe_secret_key"],
        [
            "REVOKED 2026-11-02, leaked in the Zapier log, do not use: {v}",
            "old stripe key {v} was rolled and deleted in the dashboard - dead",
        ],
    ),
    (
        "revoked_key_stated_revoked",
        G["sendgrid_api_key"],
        [
            "sendgrid key {v} deleted after the spam incident, new one in vault",
        ],
    ),
    (
        "twilio_account_sid",
        lambda r: "AC" + rs(r, HEX, 32),
        [
            "Twilio account SID (not secret, token is in vault): {v}",
            "TWILIO_ACCOUNT_SID={v}",
            "sms bounced, check logs in account {v}",
        ],
    ),
    (
        "mailchimp_audience_id",
        lambda r: rs(r, HEX, 10),
        [
            "Mailchimp audience 'Members NL' list id {v}",
            "MAILCHIMP_LIST_ID={v}",
            "lijst id oud-leden: {v}",
        ],
    ),
    (
        "meta_pixel_id",
        lambda r: str(r.randint(10**14, 10**16 - 1)),
        [
            "Meta pixel id on the join page: {v}",
            "fbq('init', '{v}');",
            "pixel {v} is the Italian one",
            "Meta pixel voor de proefles landingspagina: {v}",
        ],
    ),
    (
        "ga4_measurement_id",
        lambda r: "G-" + rs(r, UPDIG, 10),
        [
            "GA4 measurement id for fitclub.nl: {v}",
            "gtag('config', '{v}');",
        ],
    ),
    (
        "gocardless_object_id",
        lambda r: r.choice(["MD", "CU", "PM", "SB"]) + rs(r, UPDIG, 12),
        [
            "failed direct debit for member, GoCardless ref {v}",
            "mandaat {v} geannuleerd door lid",
            "| {v} | failed | insufficient_funds |",
            "{v}",
        ],
    ),
    (
        "onesignal_app_id",
        uuid4,
        [
            "OneSignal app id (public, in the app config): {v}",
            "ONESIGNAL_APP_ID={v}",
        ],
    ),
    (
        "klaviyo_public_site_id",
        lambda r: rs(r, ALNUM, 6),
        [
            "Klaviyo public site id for the onsite signup form: {v}",
            '<script src="https://static.klaviyo.com/onsite/js/klaviyo.js?company_id={v}"></script>',
        ],
    ),
    (
        "mac_address",
        lambda r: ":".join(rs(r, "0123456789ABCDEF", 2) for _ in range(6)),
        [
            "turnstile 2 controller MAC {v}, reserve IP on the router",
            "screen in spin room has MAC {v}",
            "indirizzo MAC del tornello: {v}",
        ],
    ),
    (
        "private_ip_address",
        lambda r: f"192.168.{r.randint(0, 20)}.{r.randint(2, 250)}",
        [
            "door controller is on {v} (static)",
            "ping {v}  # NVR",
            "printer reception: {v}",
        ],
    ),
    (
        "apple_team_id",
        lambda r: rs(r, UPDIG, 10),
        [
            "Apple team id {v}, bundle app.fitclub.member",
            "DEVELOPMENT_TEAM = {v};",
        ],
    ),
    (
        "docker_image_digest",
        lambda r: "sha256:" + rs(r, HEX, 64),
        [
            "booking-api image pinned to {v}",
            "image: ghcr.io/fitclub/booking-api@{v}",
        ],
    ),
    (
        "ticket_reference",
        lambda r: r.choice(["FIT-", "OPS-", "#", "CASE-"]) + str(r.randint(100, 99999)),
        [
            "door issue tracked in {v}",
            "Glofox ticket {v}: memberships not syncing to the turnstiles",
            "Mindbody support case {v}, they'll call back Tue",
            "zie ticket {v} voor de storing van het tourniquet",
        ],
    ),
    (
        "booking_confirmation_code",
        lambda r: rs(r, UPDIG, 6),
        [
            "member shows code {v} at the desk for her PT session",
            "bukking code {v} not found in glofox, gave her a guest pass",
            "boekingscode {v} (bootcamp za 9:00)",
            "codice prenotazione {v} - lezione annullata, rimborsare credito",
        ],
    ),
    (
        "promo_code",
        lambda r: (
            r.choice(["ZOMER", "SUMMER", "NEWYEAR", "BRINGAFRIEND", "ESTATE"])
            + str(r.randint(10, 50))
        ),
        [
            "promo code {v} = first month free, valid till end of Jan, on all flyers",
            "kortingscode {v} staat op Instagram",
            "codice sconto {v} per la campagna di settembre (pubblico)",
        ],
    ),
    (
        "adyen_terminal_poiid",
        lambda r: "V400m-" + str(r.randint(100000000, 999999999)),
        [
            "POIID of the Milano reception terminal: {v}",
            '"POIID": "{v}"',
            "terminal {v} needs a reboot every morning",
        ],
    ),
    (
        "invoice_number",
        lambda r: f"INV-2026-{r.randint(1000, 99999)}",
        [
            "Technogym invoice {v} for the new bikes, paid",
            "factuur {v} van de schoonmaak nog niet betaald",
        ],
    ),
    (
        "sepa_creditor_id",
        lambda r: "NL" + str(r.randint(10, 99)) + "ZZZ" + str(r.randint(10**11, 10**12 - 1)),
        [
            "our SEPA creditor id (Incassant ID, printed on every mandate): {v}",
            "incassant ID FitClub BV: {v}",
            "| creditor id | {v} | public, on the membership form |",
        ],
    ),
    (
        "npm_integrity_hash",
        lambda r: "sha512-" + rs(r, B64, 86) + "==",
        [
            'package-lock diff only changed "integrity": "{v}" for react-native-svg',
            "integrity {v}",
            "lockfile conflict in the app repo, kept {v}",
        ],
    ),
    (
        "google_place_id",
        lambda r: "ChIJ" + rs(r, URLSAFE, 23),
        [
            "Google place id Rotterdam Zuid (for the reviews widget): {v}",
            "GOOGLE_PLACE_ID_MILANO={v}",
            "review link: https://search.google.com/local/writereview?placeid={v}",
        ],
    ),
    (
        "spotify_playlist_id",
        lambda r: rs(r, ALNUM, 22),
        [
            "spin class playlist (Marco, tuesday 19:00): https://open.spotify.com/playlist/{v}",
            "playlist per il corso di step: spotify:playlist:{v}",
            "नई HIIT प्लेलिस्ट: https://open.spotify.com/playlist/{v}",
        ],
    ),
    (
        "youtube_video_id",
        lambda r: rs(r, URLSAFE, 11),
        [
            "warm-up video for the screens: https://youtu.be/{v}",
            "mobility uitleg video: https://www.youtube.com/watch?v={v}",
            "embed id {v} in the app's 'technique' tab",
        ],
    ),
    (
        "vat_number",
        lambda r: (
            r.choice(["NL", "IT"]) + str(r.randint(10**8, 10**9 - 1)) + r.choice(["B01", "B02", ""])
        ),
        [
            "VAT number for the Technogym invoices: {v}",
            "partita IVA / btw-nummer: {v}",
            "{v}",
        ],
    ),
    (
        "door_event_log_line",
        lambda r: str(r.randint(10000000, 99999999)),
        [
            "2026-11-30 06:02:14 TURNSTILE_1 GRANTED card={v} member=FC{site}",
            "log: 21:47:03 DOOR_BACK FORCED_OPEN badge {v} (cleaner)",
            "pasje {v} werd geweigerd bij tourniquet 2, abonnement verlopen",
        ],
    ),
    (
        "app_build_version",
        lambda r: (
            f"{r.randint(3, 6)}.{r.randint(0, 20)}.{r.randint(0, 9)} ({r.randint(1000, 9999)})"
        ),
        [
            "member app {v} in review at Apple",
            "crash only on Android build {v}",
            "versione app {v} risolve il bug delle prenotazioni",
        ],
    ),
    (
        "base64_image_fragment",
        lambda r: "iVBORw0KGgoAAAANSUhEUgAA" + rs(r, B64, 60),
        [
            "logo for the kiosk email header: data:image/png;base64,{v}...",
            'avatar placeholder in the app seed data: "data:image/png;base64,{v}"',
        ],
    ),
    (
        "env_var_name_only",
        lambda r: str(r.randint(2, 30)),
        [
            "STRIPE_SECRET_KEY and GOCARDLESS_ACCESS_TOKEN are set in Render env for booking-api; nobody should paste values here ({v} vars total)",
            "Rotated: MINDBODY_API_KEY, GLOFOX_API_KEY, SENDGRID_API_KEY. Values only in 1Password. Took {v} min.",
        ],
    ),
]


def fill(r, tpl, v):
    text = tpl
    for tok, fn in EXTRAS.items():
        while tok in text:
            text = (
                text.replace(tok, fn(r), 1)
                if tok not in ("{sid}", "{akid}", "{kid}")
                else text.replace(tok, fn(r))
            )
    return text.replace("{v}", v)


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows = []
    for label, table in (("secret", SECRET), ("benign", BENIGN)):
        for kind, gen, templates in table:
            for tpl in templates:
                v = gen(r)
                text = fill(r, tpl, v)
                assert v in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
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

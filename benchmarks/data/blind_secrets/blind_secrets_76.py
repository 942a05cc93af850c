# ruff: noqa: E501
"""Blind secret-detector corpus 76: veterinary hospital group IT.

Brief: memory notes of a vet hospital group's IT and clinical staff: practice-management systems (ezyVet, Cornerstone, Provet Cloud), reference-lab integrations (IDEXX VetConnect PLUS, Antech), digital radiography and PACS, payment terminals and online payments, pet-owner apps and SMS/email reminders, pharmacy and controlled-drug cabinets, plus the usual cloud/dev credentials; notes by vets, nurses and receptionists, some in French or Dutch.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_76.py [out.jsonl]

Kinds, secret: ezyvet_api_client_secret, ezyvet_user_password, cornerstone_sql_connection_password, cornerstone_user_password, provet_cloud_api_token, idexx_vetconnect_password, idexx_integration_api_key, antech_lab_account_password, pacs_admin_password, dr_console_service_password, postgres_url_with_password, mysql_cli_password, aws_access_key_pair, twilio_auth_token, twilio_api_key_secret, sendgrid_api_key, mailgun_api_key, stripe_secret_key, stripe_restricted_key, square_access_token, adyen_api_key, payment_terminal_supervisor_pin, github_pat_classic, github_pat_fine_grained, gitlab_pat, slack_bot_token, slack_webhook_url, azure_storage_account_key, azure_ad_client_secret, google_server_api_key, gcp_service_account_private_key, rsa_private_key_pem, openssh_private_key, clinic_wifi_psk, vpn_preshared_key, controlled_drug_cabinet_code, alarm_door_code, fcm_legacy_server_key, session_jwt_bearer, basic_auth_in_url, npm_token, docker_hub_pat, openai_api_key, anthropic_api_key, mailchimp_api_key, m365_app_password, ldap_bind_password, windows_local_admin_password, mirth_hl7_admin_password, shopify_admin_token, paypal_client_secret, sshpass_cli_password, telegram_bot_token, hashicorp_vault_token, totp_shared_seed, meraki_api_key
Kinds, benign: aws_documented_example_key, git_commit_sha, sha256_checksum, md5_checksum, record_uuid, pet_microchip_number, lab_accession_number, dicom_study_uid, payment_terminal_serial_tid, stripe_publishable_key, recaptcha_site_key, firebase_web_config_apikey_public, adyen_client_key_public, square_application_id, mapbox_public_token, sentry_dsn_public, twilio_account_sid_only, aws_account_id_arn, bcrypt_password_hash, docker_image_digest, npm_integrity_hash, ssh_public_key, x509_certificate_pem, ssh_host_fingerprint, ansible_vault_encrypted_blob, pgp_public_key_block, placeholder_angle_brackets, placeholder_changeme, env_var_reference, secret_manager_reference, masked_or_redacted_value, revoked_token_stated_revoked, stripe_documented_test_values, twilio_magic_test_number, password_policy_text, vaccine_lot_number, invoice_or_order_number, mac_address, vet_registration_number, ticket_id, oauth_client_id_only, azure_tenant_or_app_id, reminder_tracking_link_id, base64_image_data, ip_address_and_port, drug_cabinet_audit_event_id, hl7_message_control_id, appointment_booking_reference, drug_gtin_barcode, tls_cert_serial_number, k8s_secret_key_ref, dr_panel_serial_number, public_clinic_phone
"""

import json
import random
import string
import sys
import uuid

SEED = 7676

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
HEX = "0123456789abcdef"
B64 = AN + "+/"
B64U = AN + "-_"
B32 = UP + "234567"

WORDS = [
    "Biscuit",
    "Labrador",
    "Whiskers",
    "Bella",
    "Kitten",
    "Paws",
    "Vetcare",
    "Spaniel",
    "Fluffy",
    "Rocky",
    "Hondje",
    "Chaton",
    "Tilly",
    "Molly",
    "Poppy",
    "Teckel",
    "Minou",
    "Bulldog",
    "Collie",
    "Hamster",
    "Parrot",
    "Pony",
    "Noisette",
    "Kwispel",
]
SYMS = "!@#$%&*?."


def _r(rng, alpha, n):
    return "".join(rng.choice(alpha) for _ in range(n))


def _b64bytes(rng, n):
    import base64

    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()


def _b64url_nopad(s):
    import base64

    return base64.urlsafe_b64encode(s.encode()).decode().rstrip("=")


def human_pw(rng):
    style = rng.randrange(5)
    w = rng.choice(WORDS)
    if style == 0:
        return f"{w}{rng.randint(2015, 2026)}{rng.choice(SYMS)}"
    if style == 1:
        return f"{w.lower()}{rng.choice(SYMS)}{rng.choice(WORDS)}{rng.randint(1, 99)}"
    if style == 2:
        return f"{w[0].lower()}{w[1:].upper()}{rng.randint(100, 999)}{rng.choice(SYMS)}"
    if style == 3:
        return f"{rng.choice(WORDS)}{rng.choice('-_.')}{w}{rng.randint(10, 99)}{rng.choice(SYMS)}"
    return f"{w}{rng.randint(1, 9)}{rng.choice(SYMS)}{rng.choice(WORDS).lower()}"


def gen_pw(rng, n=None):
    n = n or rng.randint(16, 24)
    while True:
        s = _r(rng, AN + "!#$%^*-_=+", n)
        if any(c in DG for c in s) and any(c in UP for c in s) and any(c in LO for c in s):
            return s


def any_pw(rng):
    return human_pw(rng) if rng.random() < 0.6 else gen_pw(rng)


def pem(rng, label, prefix, nbytes):
    body = prefix + _b64bytes(rng, nbytes)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


def jwt(rng):
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    payload = json.dumps(
        {
            "sub": str(rng.randint(10000, 99999)),
            "role": "clinic_admin",
            "exp": rng.randint(1790000000, 1800000000),
        },
        separators=(",", ":"),
    )
    return f"{head}.{_b64url_nopad(payload)}.{_r(rng, B64U, 43)}"


def stripe_like(rng, prefix):
    if rng.random() < 0.5:
        return prefix + "51" + _r(rng, AN, 97)
    return prefix + _r(rng, AN, 24)


def corpus() -> list[dict]:
    rng = random.Random(SEED)
    rows = []

    def K(label, kind, gen, templates, **extra):
        for t in templates:
            v = gen(rng)
            text = t
            for name in sorted(extra):
                tok = "<<" + name + ">>"
                if tok in text:
                    text = text.replace(tok, extra[name](rng))
            text = text.replace("@@", v)
            assert v in text, (kind, t)
            rows.append({"label": label, "kind": kind, "text": text, "value": v})

    S, B = "secret", "benign"
    # template words cycle in a fixed order, independent of the seed
    sites = ["nrth", "ldn-kew", "utrecht", "lyon2", "bristol", "gent"]
    users = ["reception", "nurse.sam", "dr.martin", "lvermeer", "j.dubois", "pm.admin"]
    ctr = {"s": 0, "u": 0}

    def site(_r):
        ctr["s"] += 1
        return sites[ctr["s"] % len(sites)]

    def user(_r):
        ctr["u"] += 1
        return users[ctr["u"] % len(users)]

    hexn = lambda n: lambda r: _r(r, HEX, n)  # noqa: E731
    anyn = lambda a, n: lambda r: _r(r, a, n)  # noqa: E731

    # ------------------------------------------------------------------ SECRETS
    K(
        S,
        "ezyvet_api_client_secret",
        anyn(AN, 48),
        [
            "ezyVet API creds for the reminders sync: partner_id=<<PID>> client_id=<<CID>> client_secret=@@",
            "EZYVET_CLIENT_SECRET=@@",
            "curl -X POST https://api.trial.ezyvet.com/v2/oauth/access_token -d 'partner_id=<<PID>>&client_id=<<CID>>&client_secret=@@&grant_type=client_credentials&scope=read-animal,read-appointment'",
            "new ezyVet integration secret after the rotation friday (old one dead): @@ -- only the booking widget uses it",
        ],
        PID=anyn(DG, 4),
        CID=anyn(AN, 32),
    )
    K(
        S,
        "ezyvet_user_password",
        any_pw,
        [
            "ezyVet login for locum vets this week: user locum.vet@<<S>>.example-vets.com / pw @@",
            "reception shared ezyVet acct -> reception<<S>> , password is @@ (dont give to students)",
            "Mot de passe ezyVet pour l'accueil de <<S>> : @@ — à changer après le départ de Julie",
            "ezyVet wachtwoord balie <<S>>: @@",
            "| ezyVet | admin.<<S>> | @@ | full admin |",
        ],
        S=site,
    )
    K(
        S,
        "cornerstone_sql_connection_password",
        gen_pw,
        [
            "Cornerstone DB conn: Server=CSTONE-SQL01\\IDEXX;Database=Cornerstone;User Id=sa;Password=@@;",
            "sqlcmd -S CSTONE-SQL01\\IDEXX -U sa -P '@@' -Q \"SELECT COUNT(*) FROM invoice\"",
            "for the reporting export the SQL 'cs_report' user has password @@ (read only on Cornerstone db)",
            "odbc dsn CornerstoneRpt  uid=cs_report  pwd=@@",
        ],
    )
    K(
        S,
        "cornerstone_user_password",
        human_pw,
        [
            "Cornerstone workstation login for exam room 3 is TECH3 / @@",
            "Dr. Patel forgot her Cornerstone password again, reset it to @@ and told her to change it",
            "cornerstone: staff id 'FRONT' pass @@",
            "Cornerstone wachtwoord voor de dierenartsassistenten: @@ (zelfde voor alle werkplekken)",
        ],
    )
    K(
        S,
        "provet_cloud_api_token",
        hexn(40),
        [
            "Provet Cloud REST: Authorization: Token @@",
            "PROVET_API_TOKEN=@@",
            "curl -H 'Authorization: Token @@' https://provetcloud.com/<<N>>/api/0.1/client/?limit=50",
            "token API Provet pour la clinique de Lyon : @@ (créé par Marc, droits lecture+écriture)",
        ],
        N=anyn(DG, 4),
    )
    K(
        S,
        "idexx_vetconnect_password",
        human_pw,
        [
            "VetConnect PLUS login practice <<N>>: vcp_<<S>> / @@",
            "IDEXX VCP password reset today, new one is @@",
            "VetConnect PLUS — identifiant cabinet<<N>> mdp @@",
            "lab results portal (idexx) pw: @@",
        ],
        N=anyn(DG, 5),
        S=site,
    )
    K(
        S,
        "idexx_integration_api_key",
        anyn(AN, 32),
        [
            "IDEXX lab integration key for ezyVet (Settings > Integrations > IDEXX): @@",
            'idexx_api_key: "@@"',
            "the IDEXX in-house analyser bridge talks to the cloud with x-api-key @@",
        ],
    )
    K(
        S,
        "antech_lab_account_password",
        any_pw,
        [
            "Antech Diagnostics online acct <<N>> password @@",
            "antech labs portal: user <<U>> pw=@@",
            "Antech account <<N>> — wachtwoord @@ (Sandra beheert dit)",
            "ANTECH_PASSWORD='@@'",
        ],
        N=anyn(DG, 6),
        U=user,
    )
    K(
        S,
        "pacs_admin_password",
        any_pw,
        [
            "PACS web admin https://pacs.<<S>>.local:8443 admin / @@",
            'Orthanc config: "RegisteredUsers" : { "admin" : "@@" }',
            "pacs admin pw changed to @@ after the vendor visit",
            "Mot de passe admin du PACS (radiologie) : @@",
        ],
        S=site,
    )
    K(
        S,
        "dr_console_service_password",
        human_pw,
        [
            "DR console (the flat panel PC in x-ray) local service acct: service / @@",
            "Sound/Vetel x-ray acquisition pc - windows login 'xray' pwd @@",
            "röntgen pc inloggen: gebruiker radiologie, ww @@",
        ],
    )
    K(
        S,
        "postgres_url_with_password",
        gen_pw,
        [
            "DATABASE_URL=postgres://petapp:@@@db-prod.<<S>>.internal:5432/petapp",
            "reminders worker uses postgresql://reminders_rw:@@@10.20.4.11/reminders?sslmode=require",
            'psql "host=pg01 user=bi_reader password=@@ dbname=warehouse"',
        ],
        S=site,
    )
    K(
        S,
        "mysql_cli_password",
        gen_pw,
        [
            "mysql -h booking-db -u booking -p'@@' booking_prod",
            "MYSQL_ROOT_PASSWORD=@@",
            "booking widget mysql pw for user wp_book: @@",
        ],
    )
    K(
        S,
        "aws_access_key_pair",
        anyn(B64, 40),
        [
            "AWS creds for the x-ray archive bucket: AKID <<AK>> secret @@",
            "aws_access_key_id = <<AK>>\naws_secret_access_key = @@",
            "export AWS_ACCESS_KEY_ID=<<AK>> AWS_SECRET_ACCESS_KEY=@@",
            "S3 backup user (vet-pacs-backup): <<AK>> / @@",
        ],
        AK=lambda r: "AKIA" + _r(r, B32, 16),
    )
    K(
        S,
        "twilio_auth_token",
        hexn(32),
        [
            "Twilio (SMS reminders) SID <<SID>> auth token @@",
            "TWILIO_ACCOUNT_SID=<<SID>>\nTWILIO_AUTH_TOKEN=@@",
            "curl -u <<SID>>:@@ https://api.twilio.com/2010-04-01/Accounts/<<SID>>/Messages.json",
            "token twilio pour les rappels vaccins: @@",
        ],
        SID=lambda r: "AC" + _r(r, HEX, 32),
    )
    K(
        S,
        "twilio_api_key_secret",
        anyn(AN, 32),
        [
            "twilio api key <<SK>> secret @@ (made for the appointment bot)",
            "TWILIO_API_KEY=<<SK>> TWILIO_API_SECRET=@@",
            "sms gateway: key sid <<SK>>, secret = @@",
        ],
        SK=lambda r: "SK" + _r(r, HEX, 32),
    )
    K(
        S,
        "sendgrid_api_key",
        lambda r: "SG." + _r(r, B64U, 22) + "." + _r(r, B64U, 43),
        [
            "SENDGRID_API_KEY=@@",
            "sendgrid key for vaccine reminder emails: @@",
            "@@",
            "Authorization: Bearer @@",
            "clé SendGrid (emails de rappel) : @@",
        ],
    )
    K(
        S,
        "mailgun_api_key",
        lambda r: "key-" + _r(r, HEX, 32),
        [
            "mailgun api key @@ domain mg.<<S>>-vets.com",
            "MAILGUN_API_KEY=@@",
            "curl -s --user 'api:@@' https://api.eu.mailgun.net/v3/mg.example-vets.com/messages",
        ],
        S=site,
    )
    K(
        S,
        "stripe_secret_key",
        lambda r: stripe_like(r, "sk_live_"),
        [
            "pet app payments: STRIPE_SECRET_KEY=@@",
            "stripe live secret for online consult deposits: @@",
            "curl https://api.stripe.com/v1/refunds -u @@: -d payment_intent=pi_<<PI>>",
            "Stripe sleutel (live) voor de webshop: @@",
        ],
        PI=anyn(AN, 24),
    )
    K(
        S,
        "stripe_restricted_key",
        lambda r: stripe_like(r, "rk_live_"),
        [
            "restricted stripe key (read charges only) for the finance spreadsheet: @@",
            "STRIPE_RK=@@",
            "rk for xero sync -> @@",
        ],
    )
    K(
        S,
        "square_access_token",
        lambda r: "EAAA" + _r(r, B64U, 60),
        [
            "Square prod access token (reception iPads): @@",
            "SQUARE_ACCESS_TOKEN=@@",
            "curl https://connect.squareup.com/v2/payments -H 'Authorization: Bearer @@'",
        ],
    )
    K(
        S,
        "adyen_api_key",
        lambda r: "AQE" + _r(r, B64, 117) + "==-" + _r(r, B64, 43) + "=-" + _r(r, AN, 16),
        [
            "Adyen ws user api key (terminal API, all clinics): @@",
            "ADYEN_API_KEY=@@",
            "X-API-Key: @@",
        ],
    )
    K(
        S,
        "payment_terminal_supervisor_pin",
        anyn(DG, 6),
        [
            "card terminal supervisor/manager pin for refunds: @@",
            "Ingenico at front desk <<S>> — merchant menu code @@",
            "code superviseur TPE (remboursements) : @@",
            "pinautomaat beheerderscode: @@, niet aan stagiairs geven",
        ],
        S=site,
    )
    K(
        S,
        "github_pat_classic",
        lambda r: "ghp_" + _r(r, AN, 36),
        [
            "gh token for the deploy of the owner app: @@",
            "git clone https://@@@github.com/vetgroup/pet-owner-app.git",
            "GITHUB_TOKEN=@@",
            "@@",
        ],
    )
    K(
        S,
        "github_pat_fine_grained",
        lambda r: "github_pat_" + _r(r, AN, 22) + "_" + _r(r, AN, 59),
        [
            "fine-grained PAT (contents:read on reminders-svc) @@ expires in 90d",
            "echo @@ | gh auth login --with-token",
            "GH_PAT=@@",
        ],
    )
    K(
        S,
        "gitlab_pat",
        lambda r: "glpat-" + _r(r, B64U, 20),
        [
            "gitlab token for the hl7 mapper repo: @@",
            "CI_PUSH_TOKEN=@@",
            "git remote set-url origin https://oauth2:@@@gitlab.example-vets.com/it/hl7-mapper.git",
        ],
    )
    K(
        S,
        "slack_bot_token",
        lambda r: f"xoxb-{_r(r, DG, 12)}-{_r(r, DG, 13)}-{_r(r, AN, 24)}",
        [
            "slack bot for #drug-cabinet-alerts: @@",
            "SLACK_BOT_TOKEN=@@",
            "curl -H 'Authorization: Bearer @@' https://slack.com/api/chat.postMessage -d channel=C0PHARM",
        ],
    )
    K(
        S,
        "slack_webhook_url",
        lambda r: (
            "https://hooks.slack.com/services/T"
            + _r(r, UP + DG, 8)
            + "/B"
            + _r(r, UP + DG, 10)
            + "/"
            + _r(r, AN, 24)
        ),
        [
            "lab-results webhook -> @@",
            "alerts for the fridge temp sensor post to @@",
            "SLACK_WEBHOOK=@@",
        ],
    )
    K(
        S,
        "azure_storage_account_key",
        lambda r: _b64bytes(r, 64),
        [
            "DefaultEndpointsProtocol=https;AccountName=vetimgarchive;AccountKey=@@;EndpointSuffix=core.windows.net",
            "az storage blob upload --account-name vetimgarchive --account-key @@ -c dicom -f study.zip",
            "storage key1 for vetimgarchive (rotated 3 Nov): @@",
        ],
    )
    K(
        S,
        "azure_ad_client_secret",
        lambda r: _r(r, AN, 3) + r.choice(DG) + "Q~" + _r(r, AN + "~._-", 34),
        [
            "Entra app 'vet-intranet' client secret value: @@ (expires 2027-06)",
            "AZURE_CLIENT_SECRET=@@",
            "secret de l'appli Entra pour le SSO ezyVet : @@",
        ],
    )
    K(
        S,
        "google_server_api_key",
        lambda r: "AIza" + _r(r, B64U, 35),
        [
            "server-side Geocoding key (unrestricted!! fix) used by the home-visit planner: @@",
            "GOOGLE_MAPS_SERVER_KEY=@@",
            "curl 'https://maps.googleapis.com/maps/api/distancematrix/json?origins=...&key=@@'",
        ],
    )
    K(
        S,
        "gcp_service_account_private_key",
        lambda r: pem(
            r, "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 420
        ).replace("\n", "\\n"),
        [
            '{"type": "service_account", "project_id": "vet-reminders-prod", "private_key_id": "<<KID>>", "private_key": "@@\\n", "client_email": "sms-worker@vet-reminders-prod.iam.gserviceaccount.com"}',
            'pasted the SA key for the BigQuery export: "private_key": "@@\\n",',
        ],
        KID=hexn(40),
    )
    K(
        S,
        "rsa_private_key_pem",
        lambda r: pem(r, "RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", 400),
        [
            "key for sftp to the Antech results drop:\n@@",
            "@@",
            "private key of the reminders server TLS cert (needed for renewal):\n@@",
        ],
    )
    K(
        S,
        "openssh_private_key",
        lambda r: pem(
            r,
            "OPENSSH PRIVATE KEY",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA",
            180,
        ),
        [
            "deploy key for the pacs-bridge box (id_ed25519):\n@@",
            "@@",
            "cle ssh privee du serveur de rappels (a remettre sur la nouvelle VM) :\n@@",
        ],
    )
    K(
        S,
        "clinic_wifi_psk",
        human_pw,
        [
            "staff wifi VETS-STAFF pw @@",
            "WiFi personnel : VETS-STAFF / @@",
            "wifi personeel: @@",
            "guest wifi is open, staff one is @@",
            "WIFI:T:WPA;S:VETS-STAFF;P:@@;;",
        ],
    )
    K(
        S,
        "vpn_preshared_key",
        anyn(AN, 32),
        [
            "site-to-site ipsec <<S>> <-> DC psk: @@",
            "set psksecret @@",
            "fortigate tunnel to the Lyon clinic, pre-shared key @@",
        ],
        S=site,
    )
    K(
        S,
        "controlled_drug_cabinet_code",
        anyn(DG, 6),
        [
            "CD cabinet keypad code (ketamine/methadone cupboard) changed to @@",
            "code armoire stupéfiants : @@ — ne pas écrire sur le post-it!",
            "opiatenkast code nieuw: @@",
            "drug safe <<S>> master code @@ (only head nurse + vets)",
        ],
        S=site,
    )
    K(
        S,
        "alarm_door_code",
        anyn(DG, 4),
        [
            "alarm code for the back door (after hours emergencies) @@#",
            "alarmcode achterdeur: @@",
            "code alarme entrée de service : @@",
        ],
    )
    K(
        S,
        "fcm_legacy_server_key",
        lambda r: "AAAA" + _r(r, B64U, 7) + ":APA91b" + _r(r, B64U, 134),
        [
            "FCM server key for pet app push (legacy api): @@",
            "Authorization: key=@@",
            "push notifs still on the old firebase server key @@ until we move to v1",
        ],
    )
    K(
        S,
        "session_jwt_bearer",
        jwt,
        [
            "reproduced the booking bug with this token: Authorization: Bearer @@",
            "admin jwt (valid till next month): @@",
            'curl -H "Authorization: Bearer @@" https://api.petapp.example-vets.com/v1/owners/me',
        ],
    )
    K(
        S,
        "basic_auth_in_url",
        gen_pw,
        [
            "reminder export feed: https://export:@@@reminders.example-vets.com/feed.csv",
            "Antech HL7 sftp: sftp://vetgroup:@@@sftp.antechdiagnostics.example/results",
            "ftp://xray:@@@192.168.30.5/incoming (old CR reader pushes here)",
        ],
    )
    K(
        S,
        "npm_token",
        lambda r: "npm_" + _r(r, AN, 36),
        [
            "//registry.npmjs.org/:_authToken=@@",
            "NPM_TOKEN=@@ (publish rights on @vetgroup)",
            "npm config set //registry.npmjs.org/:_authToken @@",
        ],
    )
    K(
        S,
        "docker_hub_pat",
        lambda r: "dckr_pat_" + _r(r, B64U, 27),
        [
            "echo @@ | docker login -u vetgroupci --password-stdin",
            "dockerhub pat for CI: @@",
            "docker login -u vetgroupci -p @@",
        ],
    )
    K(
        S,
        "openai_api_key",
        lambda r: "sk-proj-" + _r(r, B64U, 74) + "T3BlbkFJ" + _r(r, B64U, 74),
        [
            "key for the discharge-letter summariser: OPENAI_API_KEY=@@",
            "openai key (Marc's account, don't share): @@",
            "sleutel voor de samenvattingen van ontslagbrieven: @@",
        ],
    )
    K(
        S,
        "anthropic_api_key",
        lambda r: "sk-ant-api03-" + _r(r, B64U, 93) + "AA",
        [
            "ANTHROPIC_API_KEY=@@",
            "the triage chatbot uses @@ for now",
            "x-api-key: @@",
        ],
    )
    K(
        S,
        "mailchimp_api_key",
        lambda r: _r(r, HEX, 32) + "-us" + str(r.randint(2, 21)),
        [
            "mailchimp newsletter (puppy club) api key @@",
            "MAILCHIMP_KEY=@@",
            "clé Mailchimp newsletter clients : @@",
        ],
    )
    K(
        S,
        "m365_app_password",
        anyn(LO, 16),
        [
            "app password for the scanner-to-email on the reception MFP (smtp.office365.com): @@",
            "SMTP for Cornerstone invoices via o365: invoices@example-vets.com app pw @@",
            "app-wachtwoord scanner: @@",
        ],
    )
    K(
        S,
        "ldap_bind_password",
        gen_pw,
        [
            "ldap bind for the PACS: cn=svc-pacs,ou=svc,dc=vetgroup,dc=local pw @@",
            "bindPassword: @@",
            "ldapsearch -x -D 'svc-ezyvet@vetgroup.local' -w '@@' -H ldaps://dc01 '(sAMAccountName=nurse*)'",
        ],
    )
    K(
        S,
        "windows_local_admin_password",
        any_pw,
        [
            "local admin on all reception PCs: .\\vetadmin / @@",
            "compte admin local des postes : @@",
            "lokale beheerder wachtwoord (alle balie-pc's): @@",
            "runas /user:RECEP01\\Administrator ... pwd is @@",
        ],
    )
    K(
        S,
        "mirth_hl7_admin_password",
        any_pw,
        [
            "Mirth Connect admin (lab interface engine) admin/@@",
            "mirth cli: mccommand -a https://mirth01:8443 -u admin -p @@",
            "hl7 engine login changed from the default to @@",
        ],
    )
    K(
        S,
        "shopify_admin_token",
        lambda r: "shpat_" + _r(r, HEX, 32),
        [
            "shopify admin api token for the pet food shop: @@",
            "X-Shopify-Access-Token: @@",
            "petfood shop private app, admin token below\n@@",
        ],
    )
    K(
        S,
        "paypal_client_secret",
        lambda r: "E" + _r(r, B64U, 79),
        [
            "paypal live app client id <<CID>> secret @@",
            "PAYPAL_CLIENT_SECRET=@@",
        ],
        CID=lambda r: "A" + _r(r, B64U, 79),
    )
    K(
        S,
        "sshpass_cli_password",
        gen_pw,
        [
            "sshpass -p '@@' ssh root@pacs-bridge.<<S>>.local 'systemctl restart storescp'",
            "root on the dicom router is @@ (ssh only from the IT vlan)",
            "ssh op de pacs-bridge: root / @@",
        ],
        S=site,
    )
    K(
        S,
        "telegram_bot_token",
        lambda r: _r(r, DG, 10) + ":AA" + _r(r, B64U, 33),
        [
            "on-call vet telegram bot token @@",
            "TELEGRAM_BOT_TOKEN=@@",
            "curl https://api.telegram.org/bot@@/sendMessage -d chat_id=-100123 -d text='GDV in bay 2'",
        ],
    )
    K(
        S,
        "hashicorp_vault_token",
        lambda r: "hvs." + _r(r, B64U, 91),
        [
            "VAULT_TOKEN=@@",
            "root-ish vault token from the unseal session: @@",
            "vault login @@",
        ],
    )
    K(
        S,
        "totp_shared_seed",
        anyn(B32, 32),
        [
            "MFA seed for the shared IDEXX admin account (so night staff can log in): @@",
            "otpauth://totp/Provet:admin@example-vets.com?secret=@@&issuer=Provet",
            "secret TOTP du compte admin Stripe : @@",
        ],
    )
    K(
        S,
        "meraki_api_key",
        hexn(40),
        [
            "Meraki dashboard API key (network team): @@",
            "X-Cisco-Meraki-API-Key: @@",
            "cle API Meraki (equipe reseau, lecture/ecriture) : @@",
        ],
    )

    # ------------------------------------------------------------------ BENIGN
    K(
        B,
        "aws_documented_example_key",
        lambda r: "AKIAIOSFODNN7EXAMPLE",
        [
            "docs example for the S3 backup script uses AKIAIOSFODNN7EXAMPLE, replace with the real one from the vault",
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE  # from AWS docs, placeholder",
        ],
    )
    K(
        B,
        "aws_documented_example_key",
        lambda r: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        [
            "the README sample secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY is AWS's doc value, not ours",
        ],
    )
    K(
        B,
        "git_commit_sha",
        hexn(40),
        [
            "reminders-svc deployed at @@ on prod",
            "fix for the IDEXX result parser is commit @@",
            "rollback to @@ if ezyVet sync breaks again",
            "hl7-mapper: build ok (@@)",
        ],
    )
    K(
        B,
        "sha256_checksum",
        hexn(64),
        [
            "sha256 of the DR console installer v5.2: @@",
            "Cornerstone 9.6 update ISO checksum @@ — matches vendor site",
            "@@  pacs_backup_2026-11-30.tar.gz",
            "checksum export DICOM (sha256) : @@",
        ],
    )
    K(
        B,
        "md5_checksum",
        hexn(32),
        [
            "md5 of the firmware for the Ingenico Move5000: @@",
            "DICOM file md5 @@ differs from the one on the PACS -> re-send study",
            "md5sum rapport_labo.pdf = @@",
        ],
    )
    K(
        B,
        "record_uuid",
        lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4)),
        [
            "Provet patient uuid for Bella (the diabetic cat): @@",
            "failed webhook delivery id @@ — retried OK",
            "ezyVet animal record @@ duplicated, merged into older one",
            "reminder batch @@ sent 412 SMS",
            "identifiant de la consultation : @@",
        ],
    )
    K(
        B,
        "pet_microchip_number",
        lambda r: r.choice(["985", "250", "528", "900", "941"]) + _r(r, DG, 12),
        [
            "Microchip @@ scanned at intake, owner details match",
            "chip @@ not registered on petlog — told the owner",
            "puce électronique n° @@ (chat perdu retrouvé)",
            "chipnummer @@ staat op naam van vorige eigenaar",
        ],
    )
    K(
        B,
        "lab_accession_number",
        lambda r: r.choice(["", "A", "IDX"]) + _r(r, DG, 9),
        [
            "IDEXX accession @@ results missing in ezyVet, re-pulled",
            "Antech requisition @@ — sample haemolysed, recollect",
            "n° de demande labo @@ pour la biochimie de Rex",
        ],
    )
    K(
        B,
        "dicom_study_uid",
        lambda r: (
            "1.2.826.0.1.3680043."
            + str(r.randint(2, 10))
            + "."
            + _r(r, DG, 6)
            + "."
            + _r(r, DG, 10)
            + "."
            + str(r.randint(1, 999))
        ),
        [
            "StudyInstanceUID @@ stuck in PACS queue",
            "thorax rx of Milo: study uid @@",
            "(0020,000D) @@",
        ],
    )
    K(
        B,
        "payment_terminal_serial_tid",
        lambda r: _r(r, DG, 3) + "-" + _r(r, DG, 3) + "-" + _r(r, DG, 3),
        [
            "Verifone V400m serial @@ swapped under warranty",
            "terminal S/N @@ at the Gent reception",
        ],
    )
    K(
        B,
        "payment_terminal_serial_tid",
        anyn(DG, 8),
        [
            "TID @@ (Lyon, consult room card reader)",
            "numéro de terminal TPE : @@",
        ],
    )
    K(
        B,
        "stripe_publishable_key",
        lambda r: stripe_like(r, "pk_live_"),
        [
            "publishable key for the web booking form (fine to be in the frontend): @@",
            "NEXT_PUBLIC_STRIPE_PK=@@",
            "Stripe.js init: Stripe('@@')",
        ],
    )
    K(
        B,
        "recaptcha_site_key",
        lambda r: "6L" + _r(r, B64U, 38),
        [
            "reCAPTCHA site key for the contact form: @@ (secret key is in vault)",
            'data-sitekey="@@"',
            "RECAPTCHA_SITE_KEY=@@",
        ],
    )
    K(
        B,
        "firebase_web_config_apikey_public",
        lambda r: "AIza" + _r(r, B64U, 35),
        [
            'firebaseConfig for the owner web app: { apiKey: "@@", authDomain: "vet-owner-app.firebaseapp.com", projectId: "vet-owner-app" } (public by design, rules do the security)',
            "google-services.json current_key @@ — this one ships in the APK anyway, restricted to the android package",
        ],
    )
    K(
        B,
        "adyen_client_key_public",
        lambda r: "live_" + _r(r, UP + DG, 32),
        [
            "Adyen client key for Drop-in on the website: @@ (client side, allowed origins set)",
            "ADYEN_CLIENT_KEY=@@ # public, see docs",
        ],
    )
    K(
        B,
        "square_application_id",
        lambda r: "sq0idp-" + _r(r, B64U, 22),
        [
            "Square application id @@ (not a secret, goes in the POS app config)",
            "SQUARE_APP_ID=@@",
        ],
    )
    K(
        B,
        "mapbox_public_token",
        lambda r: (
            "pk."
            + _b64url_nopad(
                json.dumps({"u": "vetgroup", "a": _r(r, LO + DG, 25)}, separators=(",", ":"))
            )
            + "."
            + _r(r, B64U, 22)
        ),
        [
            "mapbox public token for the clinic finder map: @@ (URL-restricted)",
            "mapboxgl.accessToken = '@@';",
        ],
    )
    K(
        B,
        "sentry_dsn_public",
        lambda r: f"https://{_r(r, HEX, 32)}@o{_r(r, DG, 6)}.ingest.sentry.io/{_r(r, DG, 7)}",
        [
            "Sentry DSN for the pet app (safe in client bundle): @@",
            "SENTRY_DSN=@@",
        ],
    )
    K(
        B,
        "twilio_account_sid_only",
        lambda r: "AC" + _r(r, HEX, 32),
        [
            "our twilio account SID is @@ — the auth token is in 1Password, not here",
            "twilio sub-account for the NL clinics: @@",
            "SID du compte Twilio (pas secret) : @@",
        ],
    )
    K(
        B,
        "aws_account_id_arn",
        lambda r: _r(r, DG, 12),
        [
            "prod AWS account @@ (eu-west-1)",
            "role arn:aws:iam::@@:role/pacs-archive-writer",
            "bucket policy allows account @@ only",
        ],
    )
    K(
        B,
        "bcrypt_password_hash",
        lambda r: "$2b$12$" + _r(r, "./" + AN, 53),
        [
            "owner-app users table, row for test owner: password_hash=@@",
            "hash stored for the kiosk user: @@ (bcrypt cost 12)",
        ],
    )
    K(
        B,
        "docker_image_digest",
        lambda r: "sha256:" + _r(r, HEX, 64),
        [
            "pinned image vetgroup/reminders@@@",
            "orthanc image digest @@ is the one that works with the DR console",
        ],
    )
    K(
        B,
        "npm_integrity_hash",
        lambda r: "sha512-" + _b64bytes(r, 64),
        [
            'package-lock: "integrity": "@@"',
            "integrity mismatch for dicom-parser, expected @@",
        ],
    )
    K(
        B,
        "ssh_public_key",
        lambda r: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _r(r, B64, 43),
        [
            "add this pubkey for the vendor on pacs-bridge: @@ vendor@sound",
            "authorized_keys line for the backup job: @@ backup@nas01",
            "ma clé publique pour le serveur PACS : @@",
        ],
    )
    K(
        B,
        "x509_certificate_pem",
        lambda r: pem(r, "CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU", 560),
        [
            "public cert of the IDEXX SFTP server (to pin):\n@@",
            "@@",
        ],
    )
    K(
        B,
        "ssh_host_fingerprint",
        lambda r: "SHA256:" + _b64bytes(r, 32).rstrip("="),
        [
            "pacs-bridge host key fingerprint is @@ — verify before accepting",
            "ED25519 key fingerprint is @@.",
            "vingerafdruk hostkey sftp antech: @@",
        ],
    )
    K(
        B,
        "ansible_vault_encrypted_blob",
        lambda r: (
            "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(_r(r, DG + "abcdef", 80) for _ in range(4))
        ),
        [
            "mirth_admin_password: !vault |\n@@",
            "group_vars/clinics/vault.yml is now:\n@@",
        ],
    )
    K(
        B,
        "pgp_public_key_block",
        lambda r: pem(r, "PGP PUBLIC KEY BLOCK", "mDMEZ", 150),
        [
            "Antech wants our PGP public key for the encrypted results:\n@@",
            "IT team pubkey:\n@@",
        ],
    )
    K(
        B,
        "placeholder_angle_brackets",
        lambda r: "<your-token>",
        [
            "Authorization: Token <your-token>   (get it from Provet > Settings > API)",
            "curl -u api:<your-token> https://api.eu.mailgun.net/v3/... ",
        ],
    )
    K(
        B,
        "placeholder_angle_brackets",
        lambda r: "<CLIENT_SECRET>",
        [
            "client_secret=<CLIENT_SECRET> in the ezyVet request body, real value in 1Password",
            "EZYVET_CLIENT_SECRET=<CLIENT_SECRET>",
        ],
    )
    K(
        B,
        "placeholder_changeme",
        lambda r: "changeme",
        [
            "default in the docker-compose for local dev: POSTGRES_PASSWORD=changeme",
            "template .env has TWILIO_AUTH_TOKEN=changeme, fill in per clinic",
            "mot de passe par défaut dans le modèle : changeme (à remplacer)",
        ],
    )
    K(
        B,
        "placeholder_changeme",
        lambda r: "xxxxxxxxxxxxxxxx",
        [
            "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxx (example in the runbook)",
            "password: xxxxxxxxxxxxxxxx",
        ],
    )
    K(
        B,
        "env_var_reference",
        lambda r: "${TWILIO_AUTH_TOKEN}",
        [
            "reminders compose file: TWILIO_AUTH_TOKEN: ${TWILIO_AUTH_TOKEN}",
            "curl -u $TWILIO_SID:${TWILIO_AUTH_TOKEN} ... works from the worker box",
        ],
    )
    K(
        B,
        "env_var_reference",
        lambda r: "$EZYVET_CLIENT_SECRET",
        [
            "script reads the secret from $EZYVET_CLIENT_SECRET, never hardcode it",
            "client_secret=$EZYVET_CLIENT_SECRET",
        ],
    )
    K(
        B,
        "env_var_reference",
        lambda r: "%CSTONE_SQL_PWD%",
        [
            "sqlcmd -S CSTONE-SQL01\\IDEXX -U cs_report -P %CSTONE_SQL_PWD% -i export.sql",
        ],
    )
    K(
        B,
        "secret_manager_reference",
        lambda r: "secret/vetgroup/prod/ezyvet",
        [
            "ezyVet API creds live in vault: vault kv get secret/vetgroup/prod/ezyvet",
            "wachtwoord staat in vault onder secret/vetgroup/prod/ezyvet",
        ],
    )
    K(
        B,
        "secret_manager_reference",
        lambda r: "op://IT-Shared/PACS admin/password",
        [
            "PACS admin pw: see op://IT-Shared/PACS admin/password",
            'op read "op://IT-Shared/PACS admin/password"',
        ],
    )
    K(
        B,
        "secret_manager_reference",
        lambda r: (
            "arn:aws:secretsmanager:eu-west-1:" + _r(r, DG, 12) + ":secret:twilio-" + _r(r, AN, 6)
        ),
        [
            "task def pulls the twilio token from @@",
            "valueFrom: @@",
        ],
    )
    K(
        B,
        "masked_or_redacted_value",
        lambda r: "sk_live_****" + _r(r, AN, 4),
        [
            "stripe dashboard shows key @@ created 2025 — that's the one to roll",
            "clé Stripe @@ (masquée)",
        ],
    )
    K(
        B,
        "masked_or_redacted_value",
        lambda r: "•" * 8 + _r(r, DG, 4),
        [
            "card ending @@ declined twice on the terminal, client paid cash",
            "Twilio token @@ shown in console, rotate if leaked",
        ],
    )
    K(
        B,
        "masked_or_redacted_value",
        lambda r: "[REDACTED]",
        [
            "SENDGRID_API_KEY=[REDACTED]",
            "Password=[REDACTED]; in the connection string sent to Cornerstone support",
        ],
    )
    K(
        B,
        "masked_or_redacted_value",
        lambda r: "********",
        [
            "ezyVet reception login: reception / ******** (ask the practice manager)",
            "wachtwoord: ******** (zie kluis)",
        ],
    )
    K(
        B,
        "revoked_token_stated_revoked",
        lambda r: "ghp_" + _r(r, AN, 36),
        [
            "REVOKED 2026-11-02: @@ leaked in a screenshot, deleted in GitHub, new one in vault",
            "old gh token @@ — revoked and confirmed 401, keep for the incident log",
        ],
    )
    K(
        B,
        "revoked_token_stated_revoked",
        lambda r: "SG." + _r(r, B64U, 22) + "." + _r(r, B64U, 43),
        [
            "incident #412: sendgrid key @@ was pushed to the public repo; key deleted in SendGrid within 10 min (verified 401)",
        ],
    )
    K(
        B,
        "stripe_documented_test_values",
        lambda r: "4242 4242 4242 4242",
        [
            "test the web deposit with card 4242 4242 4242 4242, any CVC, future expiry",
            "carte de test Stripe : 4242 4242 4242 4242",
        ],
    )
    K(
        B,
        "stripe_documented_test_values",
        lambda r: "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        [
            "Stripe's docs sample key sk_test_4eC39HqLyjWDarjtT1zdp7dc works for the curl examples, not our account",
        ],
    )
    K(
        B,
        "twilio_magic_test_number",
        lambda r: "+15005550006",
        [
            "use From=+15005550006 with the twilio test credentials (magic number, always succeeds)",
            "magic number +15005550006 for reminder unit tests",
        ],
    )
    K(
        B,
        "password_policy_text",
        lambda r: "14",
        [
            "policy: passwords for ezyVet and Cornerstone at least @@ characters, no pet names, no reuse of last 5",
            "Règle mots de passe : minimum @@ caractères, MFA obligatoire pour Provet",
            "wachtwoordbeleid: minimaal @@ tekens, elke 180 dagen wijzigen is NIET meer nodig",
            "reminder to staff: never write the CD cabinet code on the cupboard; min @@ chars for any shared account too",
        ],
    )
    K(
        B,
        "vaccine_lot_number",
        lambda r: r.choice(["A", "B", "C"]) + _r(r, DG, 3) + r.choice(UP) + _r(r, DG, 2),
        [
            "Nobivac DHPPi lot @@ exp 03/2027 — recorded in ezyVet",
            "lot rage @@ (Rabisin) pour le carnet",
            "batchnummer @@ van de Versican doses",
        ],
    )
    K(
        B,
        "invoice_or_order_number",
        lambda r: "INV-" + _r(r, DG, 7),
        [
            "refund for @@ done on the terminal",
            "Cornerstone invoice @@ posted twice, voided one",
        ],
    )
    K(
        B,
        "invoice_or_order_number",
        lambda r: _r(r, DG, 8),
        [
            "Covetrus pharmacy order @@ delivered short 2x Metacam",
            "commande pharmacie @@ reçue",
        ],
    )
    K(
        B,
        "mac_address",
        lambda r: ":".join(_r(r, "0123456789ABCDEF", 2) for _ in range(6)),
        [
            "DHCP reservation for the DR flat panel: @@ -> 192.168.30.21",
            "card terminal MAC @@ on VLAN 40",
            "label printer MAC @@",
        ],
    )
    K(
        B,
        "vet_registration_number",
        anyn(DG, 7),
        [
            "new locum Dr. Okafor, RCVS number @@, added to ezyVet as prescriber",
            "numéro ordinal du Dr Lefèvre : @@",
        ],
    )
    K(
        B,
        "ticket_id",
        lambda r: "IT-" + str(r.randint(100, 9999)),
        [
            "see @@ for the PACS outage timeline",
            "ezyVet support case opened, our ref @@",
            "ticket @@: balie-pc Gent start niet",
        ],
    )
    K(
        B,
        "oauth_client_id_only",
        anyn(AN, 32),
        [
            "ezyVet client_id for the reminders integration: @@ (secret in vault)",
            "partner client id @@ — IDs are fine to share with the vendor",
        ],
    )
    K(
        B,
        "azure_tenant_or_app_id",
        lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4)),
        [
            "tenant id @@ (vetgroup.onmicrosoft.com)",
            "app registration 'vet-intranet' application (client) id: @@",
            "AZURE_TENANT_ID=@@",
        ],
    )
    K(
        B,
        "reminder_tracking_link_id",
        hexn(24),
        [
            "SMS reminder link format: https://r.example-vets.com/b/@@ (opens booking page for that pet)",
            "owner says link ?ref=@@ gives 404",
        ],
    )
    K(
        B,
        "base64_image_data",
        lambda r: "iVBORw0KGgoAAAANSUhEUgAA" + _b64bytes(r, 60),
        [
            "clinic logo for the email template: data:image/png;base64,@@",
            "signature image: @@",
        ],
    )
    K(
        B,
        "ip_address_and_port",
        lambda r: (
            f"10.{r.randint(0, 255)}.{r.randint(0, 255)}.{r.randint(1, 254)}:{r.choice([104, 4242, 11112, 8042])}"
        ),
        [
            "DICOM C-STORE target for the ultrasound: PACS @@ AET VETPACS",
            "modality worklist at @@",
            "adresse du PACS : @@",
        ],
    )
    K(
        B,
        "drug_cabinet_audit_event_id",
        lambda r: "EVT-" + _r(r, UP + DG, 10),
        [
            "controlled drug discrepancy: cabinet event @@ (methadone 1ml unaccounted) — reviewed with head nurse",
            "écart registre stupéfiants, événement @@",
            "kastlog event @@ gecontroleerd, klopt",
        ],
    )
    # more benign phrasings and look-alike kinds
    K(
        B,
        "git_commit_sha",
        lambda r: _r(r, HEX, 7),
        [
            "hotfix @@ cherry-picked onto release/2026.12",
            "PR merged as @@, Provet webhook retries fixed",
        ],
    )
    K(
        B,
        "sha256_checksum",
        hexn(64),
        [
            "Provet export file hash: @@",
        ],
    )
    K(
        B,
        "record_uuid",
        lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4)),
        [
            "| appt_id | @@ | no-show |",
            "afspraak-id @@ dubbel geboekt in Provet",
        ],
    )
    K(
        B,
        "stripe_publishable_key",
        lambda r: "pk_test_" + _r(r, AN, 24),
        [
            "staging booking form uses publishable test key @@",
        ],
    )
    K(
        B,
        "ssh_public_key",
        lambda r: "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + _r(r, B64, 340),
        [
            "vendor (DR service) pubkey: @@ support@vendor",
        ],
    )
    K(
        B,
        "twilio_account_sid_only",
        lambda r: "MG" + _r(r, HEX, 32),
        [
            "Messaging Service SID for reminders: @@ (sender pool NL + FR)",
            "messaging service @@ has the alphanumeric sender 'VetClinic'",
        ],
    )
    K(
        B,
        "hl7_message_control_id",
        lambda r: _r(r, DG, 14) + _r(r, DG, 4),
        [
            "MSH-10 control id @@ rejected by Cornerstone (ORU^R01, bad OBX units)",
            "ack AA for message @@",
            "HL7 bericht @@ kwam twee keer binnen",
        ],
    )
    K(
        B,
        "appointment_booking_reference",
        lambda r: _r(r, UP + DG, 6),
        [
            "owner booking ref @@ — moved to Thursday 10:30",
            "référence de rendez-vous @@ annulée par le client",
            "boekingsnummer @@ (online afspraak, kat sterilisatie)",
        ],
    )
    K(
        B,
        "drug_gtin_barcode",
        lambda r: "0" + _r(r, DG, 13),
        [
            "GTIN @@ scanned for Metacam 1.5mg/ml 100ml, stock updated",
            "code-barres @@ pas reconnu par Provet",
            "scanner reads @@ for the Vetmedin box",
        ],
    )
    K(
        B,
        "tls_cert_serial_number",
        lambda r: ":".join(_r(r, "0123456789ABCDEF", 2) for _ in range(16)),
        [
            "new cert for petapp.example-vets.com serial @@, expires 2027-03-01",
            "PACS web UI cert serial @@ (internal CA)",
        ],
    )
    K(
        B,
        "k8s_secret_key_ref",
        lambda r: "reminders-twilio",
        [
            "env:\n  - name: TWILIO_AUTH_TOKEN\n    valueFrom:\n      secretKeyRef: {name: reminders-twilio, key: auth_token}",
            "kubectl get secret reminders-twilio -o yaml  <- don't paste the output in here",
        ],
    )
    K(
        B,
        "dr_panel_serial_number",
        lambda r: r.choice(["VX", "DRX", "CXD"]) + _r(r, DG, 8),
        [
            "flat panel SN @@ back from repair, recalibrated",
            "numéro de série capteur radio : @@",
            "detector @@ battery swells, ticket with vendor",
        ],
    )
    K(
        B,
        "public_clinic_phone",
        lambda r: "+44 117 " + _r(r, DG, 3) + " " + _r(r, DG, 4),
        [
            "Bristol out-of-hours number on the reminder SMS footer: @@",
            "owners ring @@ for repeat prescriptions",
        ],
    )
    K(
        B,
        "placeholder_angle_brackets",
        lambda r: "<password>",
        [
            "mysql -h booking-db -u booking -p'<password>' booking_prod  (password in 1Password)",
            "Server=CSTONE-SQL01\\IDEXX;Database=Cornerstone;User Id=cs_report;Password=<password>;",
        ],
    )
    K(
        B,
        "placeholder_changeme",
        lambda r: "YOUR_API_KEY",
        [
            "IDEXX sample code has x-api-key: YOUR_API_KEY, ours is in vault",
            "clé API : YOUR_API_KEY dans le modèle de config",
        ],
    )
    K(
        B,
        "env_var_reference",
        lambda r: "{{ vault_pacs_admin_password }}",
        [
            'pacs_admin_password: "{{ vault_pacs_admin_password }}"',
        ],
    )
    K(
        B,
        "password_policy_text",
        lambda r: "5",
        [
            "account locks after @@ failed logins on ezyVet; reception knows to call the PM",
        ],
    )
    K(
        B,
        "masked_or_redacted_value",
        lambda r: "AKIA" + "*" * 12 + _r(r, B32, 4),
        [
            "CloudTrail shows key @@ used from an unknown IP — disabled it, investigating",
        ],
    )
    K(
        B,
        "revoked_token_stated_revoked",
        lambda r: _r(r, DG, 6),
        [
            "old CD cabinet code @@ is no longer valid since the reprogramming on Monday",
        ],
    )
    K(
        B,
        "dicom_study_uid",
        lambda r: "1.2.840.113619.2." + _r(r, DG, 3) + "." + _r(r, DG, 10) + "." + _r(r, DG, 5),
        [
            "SeriesInstanceUID @@ missing 3 images",
        ],
    )
    K(
        B,
        "lab_accession_number",
        lambda r: _r(r, DG, 10),
        [
            "Antech order @@ — results attached to wrong patient, corrected",
        ],
    )
    K(
        B,
        "oauth_client_id_only",
        lambda r: _r(r, DG, 12) + "-" + _r(r, LO + DG, 32) + ".apps.googleusercontent.com",
        [
            "Google sign-in client id for the owner app: @@",
            "OAuth client ID @@ (web, not secret)",
        ],
    )
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
